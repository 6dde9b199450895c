// SPDX-License-Identifier: GPL-2.0
/*
 * The char device ioctl contract: struct sizes, flags, reserved fields,
 * bad pointers, unknown numbers, and what each query answers.
 */
#include <endian.h>
#include <sys/mman.h>

#include "rnic_test.h"

FIXTURE(ioctl) {
	struct rnic_genl *g;
	int fd;
};

FIXTURE_SETUP(ioctl)
{
	self->fd = -1;
	rnic_fixture_setup(_metadata, &self->g, NULL, "t_ioctl", NULL);
	self->fd = rnic_open("t_ioctl");
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ioctl)
{
	if (self->fd >= 0)
		close(self->fd);
	rnic_fixture_teardown(_metadata, self->g, NULL);
}

/* The struct of each ioctl, with the size of its first version. */
static const struct {
	unsigned long cmd;
	size_t size;
	size_t min_size;
	const char *name;
} cmds[] = {
	{ RNIC_IOCTL_QUERY_DEVICE, sizeof(struct rnic_query_device),
	  sizeof(struct rnic_query_device), "query_device" },
	{ RNIC_IOCTL_QUERY_PORT, sizeof(struct rnic_query_port),
	  sizeof(struct rnic_query_port), "query_port" },
	{ RNIC_IOCTL_QUERY_GID, sizeof(struct rnic_query_gid),
	  sizeof(struct rnic_query_gid), "query_gid" },
	{ RNIC_IOCTL_QUERY_PKEY, sizeof(struct rnic_query_pkey),
	  sizeof(struct rnic_query_pkey), "query_pkey" },
};

/* A valid argument for cmds[i] in a buffer of @len bytes. */
static void fill_valid(unsigned int i, void *buf, size_t len)
{
	__u32 *w = buf;

	memset(buf, 0, len);
	w[0] = cmds[i].size;
	if (cmds[i].cmd != RNIC_IOCTL_QUERY_DEVICE)
		w[2] = 1;		/* port_num */
}

TEST_F(ioctl, cmd_length)
{
	unsigned char buf[512];
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		__u32 *size = (__u32 *)buf;

		TH_LOG("%s", cmds[i].name);
		fill_valid(i, buf, sizeof(buf));
		do_ioctl(self->fd, cmds[i].cmd, buf);

		/* Shorter than the first version. */
		*size = cmds[i].min_size - 1;
		do_err_ioctl(EINVAL, self->fd, cmds[i].cmd, buf);
		*size = 0;
		do_err_ioctl(EINVAL, self->fd, cmds[i].cmd, buf);

		/* Longer, zero tail: fine; the tail is left alone. */
		fill_valid(i, buf, sizeof(buf));
		*size = cmds[i].size + 64;
		do_ioctl(self->fd, cmds[i].cmd, buf);
		EXPECT_EQ(0, buf[cmds[i].size + 63]);

		/* Longer with something in the tail: E2BIG. */
		buf[cmds[i].size + 7] = 1;
		do_err_ioctl(E2BIG, self->fd, cmds[i].cmd, buf);

		/* Non-zero flags. */
		fill_valid(i, buf, sizeof(buf));
		((__u32 *)buf)[1] = 1;
		do_err_ioctl(EINVAL, self->fd, cmds[i].cmd, buf);
		((__u32 *)buf)[1] = 1u << 31;
		do_err_ioctl(EINVAL, self->fd, cmds[i].cmd, buf);

		/* Bad pointers. */
		do_err_ioctl(EFAULT, self->fd, cmds[i].cmd, NULL);
		do_err_ioctl(EFAULT, self->fd, cmds[i].cmd, (void *)1);
	}
}

TEST_F(ioctl, output_only_as_long_as_the_user_struct)
{
	struct rnic_query_device dev;
	const size_t half = offsetof(struct rnic_query_device, out_max_qp);

	/* A read-only page right after the struct: a write past it faults. */
	unsigned char *map = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + 4096, 4096, PROT_READ));
	memset(&dev, 0, sizeof(dev));
	dev.size = sizeof(dev);
	memcpy(map + 4096 - sizeof(dev), &dev, sizeof(dev));
	do_ioctl(self->fd, RNIC_IOCTL_QUERY_DEVICE, map + 4096 - sizeof(dev));
	memcpy(&dev, map + 4096 - sizeof(dev), sizeof(dev));
	EXPECT_EQ(1, dev.out_phys_port_cnt);

	/*
	 * A struct that straddles into the read-only page: the kernel must
	 * write all of it, so EFAULT, never a partial silent success.
	 */
	memset(map + 4096 - half, 0, half);
	*(__u32 *)(map + 4096 - half) = sizeof(dev);
	do_err_ioctl(EFAULT, self->fd, RNIC_IOCTL_QUERY_DEVICE,
		     map + 4096 - half);
	munmap(map, 8192);
}

TEST_F(ioctl, unknown_ioctls)
{
	unsigned char buf[256] = { 0 };

	*(__u32 *)buf = sizeof(buf);
	do_err_ioctl(ENOTTY, self->fd, _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_BASE - 1),
		     buf);
	do_err_ioctl(ENOTTY, self->fd, _IO(RNIC_IOCTL_MAGIC, 0xff), buf);
	do_err_ioctl(ENOTTY, self->fd, _IO(RNIC_IOCTL_MAGIC + 1,
					   RNIC_CMD_QUERY_DEVICE), buf);
	/* The right number with direction/size bits set is not ours either. */
	do_err_ioctl(ENOTTY, self->fd, _IOWR(RNIC_IOCTL_MAGIC,
					     RNIC_CMD_QUERY_DEVICE,
					     struct rnic_query_device), buf);
}

TEST_F(ioctl, reserved_fields)
{
	struct rnic_query_device dev = { .size = sizeof(dev), .__reserved = 1 };
	struct rnic_query_port port = { .size = sizeof(port), .port_num = 1,
					.__reserved = 1 };
	struct rnic_query_pkey pkey = { .size = sizeof(pkey), .port_num = 1,
					.__reserved = 1 };

	do_err_ioctl(EINVAL, self->fd, RNIC_IOCTL_QUERY_DEVICE, &dev);
	do_err_ioctl(EINVAL, self->fd, RNIC_IOCTL_QUERY_PORT, &port);
	do_err_ioctl(EINVAL, self->fd, RNIC_IOCTL_QUERY_PKEY, &pkey);
}

TEST_F(ioctl, query_device)
{
	struct rnic_query_device dev = { .size = sizeof(dev) };
	char guid[64], want[64];
	__u64 g;

	do_ioctl(self->fd, RNIC_IOCTL_QUERY_DEVICE, &dev);
	g = be64toh(dev.out_node_guid);
	snprintf(want, sizeof(want), "%04x:%04x:%04x:%04x",
		 (unsigned int)(g >> 48) & 0xffff,
		 (unsigned int)(g >> 32) & 0xffff,
		 (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
	ASSERT_EQ(0, rnic_sysfs_read("t_ioctl", "node_guid", guid, sizeof(guid)));
	EXPECT_STREQ(want, guid);
	EXPECT_EQ(dev.out_node_guid, dev.out_sys_image_guid);
	EXPECT_EQ(1, dev.out_phys_port_cnt);
	EXPECT_EQ(32, dev.out_max_sge);
	EXPECT_EQ(1, dev.out_max_pkeys);
	EXPECT_EQ(1, dev.out_atomic_cap);	/* IBV_ATOMIC_HCA */
	/* IBV_DEVICE_PORT_ACTIVE_EVENT and IBV_DEVICE_SYS_IMAGE_GUID */
	EXPECT_EQ(3 << 10, dev.out_device_cap_flags & (3 << 10));
	EXPECT_LE(1, dev.out_num_comp_vectors);
	EXPECT_LE(1ull << 30, dev.out_max_mr_size);
	EXPECT_NE(0, dev.out_page_size_cap & 4096);
	EXPECT_LE(32768, dev.out_max_qp_wr);
	EXPECT_LE(dev.out_max_qp_rd_atom, 64);
}

TEST_F(ioctl, query_port)
{
	struct rnic_query_port port;

	EXPECT_EQ(-EINVAL, _query_port(self->fd, 0, &port));
	EXPECT_EQ(-EINVAL, _query_port(self->fd, 2, &port));
	EXPECT_EQ(-EINVAL, _query_port(self->fd, 0xffffffff, &port));
	ASSERT_EQ(0, _query_port(self->fd, 1, &port));
	EXPECT_EQ(4, port.out_state);		/* IBV_PORT_ACTIVE */
	EXPECT_EQ(5, port.out_phys_state);	/* LinkUp */
	EXPECT_EQ(5, port.out_max_mtu);		/* IBV_MTU_4096 */
	EXPECT_EQ(5, port.out_active_mtu);
	EXPECT_EQ(RNIC_GID_TABLE_LEN, port.out_gid_tbl_len);
	EXPECT_EQ(1, port.out_pkey_tbl_len);
	EXPECT_EQ(2, port.out_link_layer);	/* IBV_LINK_LAYER_ETHERNET */
	EXPECT_LE(1u << 30, port.out_max_msg_sz);
	EXPECT_EQ(0, port.out_lid);
}

TEST_F(ioctl, query_gid)
{
	struct rnic_query_device dev = { .size = sizeof(dev) };
	struct rnic_query_gid gid;

	do_ioctl(self->fd, RNIC_IOCTL_QUERY_DEVICE, &dev);
	ASSERT_EQ(0, _query_gid(self->fd, 0, &gid));
	EXPECT_EQ(0xfe, gid.out_gid[0]);
	EXPECT_EQ(0x80, gid.out_gid[1]);
	EXPECT_EQ(0, memcmp(&gid.out_gid[8], &dev.out_node_guid, 8));
	EXPECT_EQ(RNIC_GID_TYPE_ROCE_V2, gid.out_gid_type);
	EXPECT_EQ(0, gid.out_ifindex);

	EXPECT_EQ(-ENODATA, _query_gid(self->fd, 1, &gid));
	EXPECT_EQ(-ENODATA, _query_gid(self->fd, RNIC_GID_TABLE_LEN - 1, &gid));
	EXPECT_EQ(-EINVAL, _query_gid(self->fd, RNIC_GID_TABLE_LEN, &gid));
	EXPECT_EQ(-EINVAL, _query_gid(self->fd, 0xffffffff, &gid));
	gid.port_num = 2;
	gid.index = 0;
	do_err_ioctl(EINVAL, self->fd, RNIC_IOCTL_QUERY_GID, &gid);
}

TEST_F(ioctl, query_pkey)
{
	struct rnic_query_pkey pkey = { .size = sizeof(pkey), .port_num = 1 };

	do_ioctl(self->fd, RNIC_IOCTL_QUERY_PKEY, &pkey);
	EXPECT_EQ(0xffff, pkey.out_pkey);
	pkey.index = 1;
	do_err_ioctl(EINVAL, self->fd, RNIC_IOCTL_QUERY_PKEY, &pkey);
	pkey.index = 0;
	pkey.port_num = 0;
	do_err_ioctl(EINVAL, self->fd, RNIC_IOCTL_QUERY_PKEY, &pkey);
}

TEST_HARNESS_MAIN
