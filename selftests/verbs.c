// SPDX-License-Identifier: GPL-2.0
/*
 * librnic's first verbs against the real module: device list, open, the
 * query verbs with the return conventions rdma-core documents, and a
 * device removed under an open context.
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "rnic_test.h"

FIXTURE(verbs) {
	struct rnic_genl *g;
	struct ibv_device **list;
	struct ibv_context *ctx;
};

FIXTURE_SETUP(verbs)
{
	self->list = NULL;
	self->ctx = NULL;
	rnic_fixture_setup(_metadata, &self->g, NULL, NULL, NULL);
	ASSERT_EQ(0, rnic_sh("ip link set lo up"));
	do_link_add(self->g, "t_verbs0", NULL);
	do_link_add(self->g, "t_verbs1", "lo");
}

FIXTURE_TEARDOWN(verbs)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	if (self->list)
		ibv_free_device_list(self->list);
	rnic_fixture_teardown(_metadata, self->g, NULL);
}

static struct ibv_device *find(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

TEST_F(verbs, device_list)
{
	struct rnic_link_info info;
	struct ibv_device *dev;
	int num = -1;

	self->list = ibv_get_device_list(&num);
	ASSERT_NE(NULL, self->list);
	ASSERT_EQ(2, num);
	EXPECT_EQ(NULL, self->list[2]);
	dev = find(self->list, "t_verbs1");
	ASSERT_NE(NULL, dev);
	ASSERT_NE(NULL, find(self->list, "t_verbs0"));
	EXPECT_EQ(IBV_NODE_CA, dev->node_type);
	EXPECT_EQ(IBV_TRANSPORT_IB, dev->transport_type);

	ASSERT_EQ(0, rnic_link_get(self->g, "t_verbs1", &info));
	EXPECT_EQ(info.node_guid_be, ibv_get_device_guid(dev));
	EXPECT_STREQ(info.uverbs, dev->dev_name);
}

TEST_F(verbs, query)
{
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid, zero = { 0 };
	struct ibv_device *dev;
	uint16_t pkey;

	self->list = ibv_get_device_list(NULL);
	ASSERT_NE(NULL, self->list);
	dev = find(self->list, "t_verbs1");
	ASSERT_NE(NULL, dev);
	self->ctx = ibv_open_device(dev);
	ASSERT_NE(NULL, self->ctx);
	EXPECT_EQ(dev, self->ctx->device);
	EXPECT_LE(1, self->ctx->num_comp_vectors);

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	EXPECT_EQ(ibv_get_device_guid(dev), attr.node_guid);
	EXPECT_EQ(1, attr.phys_port_cnt);
	EXPECT_EQ(32, attr.max_sge);
	EXPECT_EQ(IBV_ATOMIC_HCA, attr.atomic_cap);
	EXPECT_STREQ("0.1.0", attr.fw_ver);
	EXPECT_EQ(RNIC_VENDOR_ID, attr.vendor_id);
	EXPECT_EQ(65536, attr.max_mw);
	EXPECT_EQ(IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B,
		  attr.device_cap_flags & (IBV_DEVICE_MEM_WINDOW |
					   IBV_DEVICE_MEM_WINDOW_TYPE_2A |
					   IBV_DEVICE_MEM_WINDOW_TYPE_2B));

	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &port));
	EXPECT_EQ(IBV_PORT_ACTIVE, port.state);
	EXPECT_EQ(IBV_MTU_4096, port.active_mtu);
	EXPECT_EQ(IBV_LINK_LAYER_ETHERNET, port.link_layer);
	EXPECT_EQ(RNIC_GID_TABLE_LEN, port.gid_tbl_len);
	EXPECT_EQ(EINVAL, ibv_query_port(self->ctx, 2, &port));
	EXPECT_EQ(EINVAL, ibv_query_port(self->ctx, 0, &port));

	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, 0, &gid));
	EXPECT_EQ(0xfe, gid.raw[0]);
	EXPECT_EQ(attr.node_guid, gid.global.interface_id);
	/* An empty entry reads as the zero GID, as with rdma-core. */
	memset(&gid, 0xaa, sizeof(gid));
	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, RNIC_GID_TABLE_LEN - 1, &gid));
	EXPECT_EQ(0, memcmp(&gid, &zero, sizeof(gid)));
	errno = 0;
	EXPECT_EQ(-1, ibv_query_gid(self->ctx, 1, RNIC_GID_TABLE_LEN, &gid));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ibv_query_gid(self->ctx, 1, -1, &gid));
	EXPECT_EQ(-1, ibv_query_gid(self->ctx, 2, 0, &gid));

	ASSERT_EQ(0, ibv_query_pkey(self->ctx, 1, 0, &pkey));
	EXPECT_EQ(0xffff, ntohs(pkey));
	errno = 0;
	EXPECT_EQ(-1, ibv_query_pkey(self->ctx, 1, 1, &pkey));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(verbs, device_removed_under_context)
{
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	struct ibv_device *dev;

	self->list = ibv_get_device_list(NULL);
	ASSERT_NE(NULL, self->list);
	dev = find(self->list, "t_verbs0");
	ASSERT_NE(NULL, dev);
	self->ctx = ibv_open_device(dev);
	ASSERT_NE(NULL, self->ctx);
	/* The list may go before the context. */
	ibv_free_device_list(self->list);
	self->list = NULL;

	do_link_del(self->g, "t_verbs0");
	EXPECT_EQ(ENODEV, ibv_query_device(self->ctx, &attr));
	EXPECT_EQ(ENODEV, ibv_query_port(self->ctx, 1, &port));
	EXPECT_STREQ("t_verbs0", ibv_get_device_name(self->ctx->device));
	EXPECT_EQ(0, ibv_close_device(self->ctx));
	self->ctx = NULL;

	/* A fresh list no longer has it; opening a stale entry fails. */
	self->list = ibv_get_device_list(NULL);
	ASSERT_NE(NULL, self->list);
	EXPECT_EQ(NULL, find(self->list, "t_verbs0"));
}

TEST_F(verbs, stale_list_entry)
{
	struct ibv_device *dev;

	self->list = ibv_get_device_list(NULL);
	ASSERT_NE(NULL, self->list);
	dev = find(self->list, "t_verbs0");
	ASSERT_NE(NULL, dev);
	do_link_del(self->g, "t_verbs0");
	errno = 0;
	EXPECT_EQ(NULL, ibv_open_device(dev));
	EXPECT_NE(0, errno);
}

TEST_HARNESS_MAIN
