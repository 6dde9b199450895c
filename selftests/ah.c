// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles: valid and invalid addresses, IPv4-mapped GIDs on a
 * device bound to lo, EBUSY on the PD, handles per context, the device's
 * AH limit, teardown on close; ibv_init_ah_from_wc() and
 * ibv_create_ah_from_wc() on hand-built IPv6 and IPv4 headers; the size
 * contract of the ioctls; ENETUNREACH for a destination no rnic device of
 * the namespace owns and the kernel does not route through the device's
 * netdev.
 *
 * The peers of the hand-built headers (2001:db8::99, 10.0.0.7) are the
 * addresses of DEV_PEER's dummy netdev: reachable, and not DEV_LO's.
 */
#include <endian.h>
#include <infiniband/verbs.h>

#include "rnic_dp_test.h"

#define DEV "t_ah"
#define DEV_LO "t_ah_lo"
#define DEV_PEER "t_ah_peer"
#define NETDEV_PEER "t_ah_peer"

static void gid_from_str(union ibv_gid *gid, const char *s)
{
	const char *v4 = strncmp(s, "::ffff:", 7) ? NULL : s + 7;
	unsigned int a, b, c, d;

	memset(gid, 0, sizeof(*gid));
	if (v4 && sscanf(v4, "%u.%u.%u.%u", &a, &b, &c, &d) == 4) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		gid->raw[12] = a;
		gid->raw[13] = b;
		gid->raw[14] = c;
		gid->raw[15] = d;
	} else if (!strcmp(s, "::1")) {
		gid->raw[15] = 1;
	} else if (!strcmp(s, "2001:db8::99")) {
		gid->raw[0] = 0x20;
		gid->raw[1] = 0x01;
		gid->raw[2] = 0x0d;
		gid->raw[3] = 0xb8;
		gid->raw[15] = 0x99;
	} else if (!strcmp(s, "ff02::1")) {
		gid->raw[0] = 0xff;
		gid->raw[1] = 0x02;
		gid->raw[15] = 1;
	}
}

/* The index of @gid in the table of port 1, or -1. */
static int gid_index(struct ibv_context *ctx, const union ibv_gid *gid)
{
	union ibv_gid entry;
	int i;

	for (i = 0; i < RNIC_GID_TABLE_LEN; i++)
		if (!ibv_query_gid(ctx, 1, i, &entry) &&
		    !memcmp(&entry, gid, sizeof(entry)))
			return i;
	return -1;
}

/*
 * A valid RoCE address from our GID 0 (link-local) to ::1, a GID of DEV_LO
 * (bound to lo) in our namespace: a reachable destination.
 */
static void good_attr(struct ibv_ah_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	gid_from_str(&attr->grh.dgid, "::1");
	attr->is_global = 1;
	attr->port_num = 1;
	attr->grh.sgid_index = 0;
	attr->grh.hop_limit = 64;
}

/* A hand-built RoCEv2 IPv6 header. */
static void build_ipv6_grh(struct ibv_grh *grh, uint8_t tclass,
			   uint32_t flow, uint8_t next_hdr, uint8_t hop_limit,
			   const union ibv_gid *sgid, const union ibv_gid *dgid)
{
	memset(grh, 0, sizeof(*grh));
	grh->version_tclass_flow = htobe32(6u << 28 | (uint32_t)tclass << 20 |
					   flow);
	grh->paylen = htobe16(64);
	grh->next_hdr = next_hdr;
	grh->hop_limit = hop_limit;
	grh->sgid = *sgid;
	grh->dgid = *dgid;
}

/* A hand-built IPv4 header in the last 20 bytes, the first 20 zero. */
static void build_ipv4_grh(struct ibv_grh *grh, uint8_t tos, uint8_t ttl,
			   const uint8_t saddr[4], const uint8_t daddr[4])
{
	uint8_t *h = (uint8_t *)grh + 20;
	uint32_t sum = 0;
	int i;

	memset(grh, 0, sizeof(*grh));
	h[0] = 0x45;
	h[1] = tos;
	h[3] = 84;			/* total length */
	h[6] = 0x40;			/* DF */
	h[8] = ttl;
	h[9] = 17;			/* UDP */
	memcpy(h + 12, saddr, 4);
	memcpy(h + 16, daddr, 4);
	for (i = 0; i < 20; i += 2)
		sum += h[i] << 8 | h[i + 1];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	h[10] = ~sum >> 8;
	h[11] = ~sum & 0xff;
}

static int _create_ah(int fd, __u32 pd, const struct rnic_ah_attr *attr,
		      struct rnic_create_ah *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->pd_handle = pd;
	cmd->attr = *attr;
	return _rnic_ioctl(fd, RNIC_IOCTL_CREATE_AH, cmd);
}

/* A valid raw address: GID 0 to ::1, DEV_LO's (reachable). */
static const struct rnic_ah_attr raw_good = {
	.dgid = { [15] = 1 },
	.is_global = 1,
	.port_num = 1,
	.hop_limit = 64,
};

FIXTURE(ah) {
	struct rnic_genl *g;
	struct rnic_res_info *res;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_context *lo_ctx;
	struct ibv_pd *lo_pd;
	int lo_v4, lo_v6;
};

FIXTURE_SETUP(ah)
{
	union ibv_gid gid;

	self->ctx = NULL;
	self->lo_ctx = NULL;
	rnic_fixture_setup(_metadata, &self->g, &self->res, DEV, NULL);
	rnic_sh("ip link del " NETDEV_PEER " 2>/dev/null");
	ASSERT_EQ(0, rnic_sh("ip link add " NETDEV_PEER " type dummy && "
			     "ip link set " NETDEV_PEER " up && "
			     "ip addr add 10.0.0.7/32 dev " NETDEV_PEER " && "
			     "ip addr add 2001:db8::99/128 dev " NETDEV_PEER
			     " nodad"));
	do_link_add(self->g, DEV_LO, "lo");
	do_link_add(self->g, DEV_PEER, NETDEV_PEER);
	self->ctx = do_ptr(rnic_ibv_open(DEV));
	self->pd = do_ptr(ibv_alloc_pd(self->ctx));
	self->lo_ctx = do_ptr(rnic_ibv_open(DEV_LO));
	self->lo_pd = do_ptr(ibv_alloc_pd(self->lo_ctx));
	gid_from_str(&gid, "::ffff:127.0.0.1");
	self->lo_v4 = gid_index(self->lo_ctx, &gid);
	ASSERT_LT(0, self->lo_v4);
	gid_from_str(&gid, "::1");
	self->lo_v6 = gid_index(self->lo_ctx, &gid);
	ASSERT_LT(0, self->lo_v6);
}

FIXTURE_TEARDOWN(ah)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	if (self->lo_ctx)
		EXPECT_EQ(0, ibv_close_device(self->lo_ctx));
	rnic_fixture_teardown(_metadata, self->g, self->res);
	rnic_sh("ip link del " NETDEV_PEER " 2>/dev/null");
}

TEST_F(ah, create_and_destroy)
{
	static const uint8_t rates[] = { IBV_RATE_MAX, IBV_RATE_2_5_GBPS,
					 IBV_RATE_100_GBPS,
					 IBV_RATE_1200_GBPS };
	struct ibv_ah_attr attr;
	struct ibv_ah *ahs[8];
	unsigned int i;

	for (i = 0; i < 8; i++) {
		good_attr(&attr);
		attr.sl = i * 2;
		attr.grh.flow_label = i ? 0xfffff >> i : 0xfffff;
		attr.grh.hop_limit = i * 37;
		attr.grh.traffic_class = i * 33;
		attr.static_rate = rates[i % 4];
		/* Any non-zero is_global is true, as in rdma-core. */
		attr.is_global = i + 1;
		ahs[i] = ibv_create_ah(self->pd, &attr);
		ASSERT_NE(NULL, ahs[i]) TH_LOG("case %u: %d", i, errno);
		EXPECT_EQ(self->ctx, ahs[i]->context);
		EXPECT_EQ(self->pd, ahs[i]->pd);
	}
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(8, self->res->counts[RNIC_RES_AH]);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, ibv_destroy_ah(ahs[i]));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_AH]);
}

TEST_F(ah, invalid_addresses)
{
	struct ibv_ah_attr attr;
	int i;

	for (i = 0; i < 13; i++) {
		good_attr(&attr);
		switch (i) {
		case 0:		/* RoCE has no LIDs: a GRH is required */
			attr.is_global = 0;
			break;
		case 1:
			attr.port_num = 0;
			break;
		case 2:
			attr.port_num = 2;
			break;
		case 3:		/* an empty entry of an unbound device */
			attr.grh.sgid_index = 1;
			break;
		case 4:		/* beyond the table */
			attr.grh.sgid_index = 64;
			break;
		case 5:
			attr.grh.sgid_index = 255;
			break;
		case 6:
			attr.dlid = 1;
			break;
		case 7:
			attr.src_path_bits = 1;
			break;
		case 8:
			attr.sl = 16;
			break;
		case 9:
			attr.grh.flow_label = 0x100000;
			break;
		case 10:	/* 1 is no enum ibv_rate value */
			attr.static_rate = 1;
			break;
		case 11:
			attr.static_rate = IBV_RATE_1200_GBPS + 1;
			break;
		case 12:	/* IPv6 source, IPv4 destination */
			gid_from_str(&attr.grh.dgid, "::ffff:10.0.0.1");
			break;
		}
		errno = 0;
		EXPECT_EQ(NULL, ibv_create_ah(self->pd, &attr))
			TH_LOG("case %d", i);
		EXPECT_EQ(EINVAL, errno) TH_LOG("case %d", i);
	}
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_AH]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_PD]);
}

/*
 * A unicast destination that no rnic device of the namespace owns is
 * unreachable (the devices are unbound, or the kernel has no route to it
 * through their netdev): ENETUNREACH, no AH. It is
 * reachable while a device owns the address, and no more once it is gone.
 */
TEST_F(ah, unreachable_destination)
{
	int fd = self->ctx->cmd_fd;
	struct ibv_ah_attr attr;
	struct rnic_create_ah c;
	struct rnic_ah_attr a;
	struct ibv_ah *ah;
	long end;

	good_attr(&attr);
	gid_from_str(&attr.grh.dgid, "2001:db8::99");
	attr.grh.dgid.raw[15] = 0x98;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah(self->pd, &attr));
	EXPECT_EQ(ENETUNREACH, errno);
	a = raw_good;
	memcpy(a.dgid, attr.grh.dgid.raw, 16);
	EXPECT_EQ(-ENETUNREACH, _create_ah(fd, self->pd->handle, &a, &c));
	/* IPv4 likewise. */
	attr.grh.sgid_index = self->lo_v4;
	gid_from_str(&attr.grh.dgid, "::ffff:10.0.0.8");
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah(self->lo_pd, &attr));
	EXPECT_EQ(ENETUNREACH, errno);
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_AH]);

	/* DEV_PEER gets the address: reachable. */
	ASSERT_EQ(0, rnic_sh("ip addr add 10.0.0.8/32 dev " NETDEV_PEER));
	end = dp_now_ms() + 5000;
	while (!(ah = ibv_create_ah(self->lo_pd, &attr)) &&
	       errno == ENETUNREACH && dp_now_ms() < end)
		usleep(10000);
	ASSERT_NE(NULL, ah) TH_LOG("%d", errno);
	EXPECT_EQ(0, ibv_destroy_ah(ah));
	/* It loses it: unreachable again, at once. */
	ASSERT_EQ(0, rnic_sh("ip addr del 10.0.0.8/32 dev " NETDEV_PEER));
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah(self->lo_pd, &attr));
	EXPECT_EQ(ENETUNREACH, errno);
}

TEST_F(ah, raw_bad_values)
{
	int fd = self->ctx->cmd_fd;
	struct rnic_create_ah c;
	struct rnic_ah_attr a;

	a = raw_good;
	ASSERT_EQ(0, _create_ah(fd, self->pd->handle, &a, &c));
	EXPECT_EQ(0, _destroy(fd, RNIC_IOCTL_DESTROY_AH, c.out_handle));
	a.is_global = 2;
	EXPECT_EQ(-EINVAL, _create_ah(fd, self->pd->handle, &a, &c));
	a = raw_good;
	a.__reserved = 1;
	EXPECT_EQ(-EINVAL, _create_ah(fd, self->pd->handle, &a, &c));
	a = raw_good;
	a.flow_label = 1u << 31;
	EXPECT_EQ(-EINVAL, _create_ah(fd, self->pd->handle, &a, &c));
	a = raw_good;
	a.static_rate = 255;
	EXPECT_EQ(-EINVAL, _create_ah(fd, self->pd->handle, &a, &c));
	a = raw_good;
	a.dlid = 0xffff;
	EXPECT_EQ(-EINVAL, _create_ah(fd, self->pd->handle, &a, &c));
	/* Not a PD. */
	EXPECT_EQ(-EINVAL, _create_ah(fd, self->pd->handle + 100, &raw_good,
				      &c));
	EXPECT_EQ(-EINVAL, _create_ah(fd, UINT32_MAX, &raw_good, &c));
}

TEST_F(ah, ipv4_mapped_gid_on_lo)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	/* RoCEv2 over IPv4: both ends IPv4-mapped. */
	good_attr(&attr);
	attr.grh.sgid_index = self->lo_v4;
	gid_from_str(&attr.grh.dgid, "::ffff:127.0.0.1");
	ah = ibv_create_ah(self->lo_pd, &attr);
	ASSERT_NE(NULL, ah) TH_LOG("%d", errno);
	EXPECT_EQ(0, ibv_destroy_ah(ah));
	/* IPv4 multicast is IPv4 too. */
	gid_from_str(&attr.grh.dgid, "::ffff:239.1.2.3");
	ah = ibv_create_ah(self->lo_pd, &attr);
	ASSERT_NE(NULL, ah) TH_LOG("%d", errno);
	EXPECT_EQ(0, ibv_destroy_ah(ah));

	/* An IPv4 source cannot reach an IPv6 destination. */
	gid_from_str(&attr.grh.dgid, "::1");
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah(self->lo_pd, &attr));
	EXPECT_EQ(EINVAL, errno);

	/* IPv6 over lo, and the link-local GID 0. */
	attr.grh.sgid_index = self->lo_v6;
	ah = ibv_create_ah(self->lo_pd, &attr);
	ASSERT_NE(NULL, ah) TH_LOG("%d", errno);
	EXPECT_EQ(0, ibv_destroy_ah(ah));
	attr.grh.sgid_index = 0;
	gid_from_str(&attr.grh.dgid, "ff02::1");
	ah = ibv_create_ah(self->lo_pd, &attr);
	ASSERT_NE(NULL, ah) TH_LOG("%d", errno);

	/* An empty entry of the bound device. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah(self->lo_pd, &(struct ibv_ah_attr){
		.is_global = 1, .port_num = 1, .grh.sgid_index = 63 }));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ibv_destroy_ah(ah));
}

TEST_F(ah, pd_busy_while_ah_exists)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	good_attr(&attr);
	ah = ibv_create_ah(self->pd, &attr);
	ASSERT_NE(NULL, ah);
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	self->pd = NULL;
}

TEST_F(ah, handles_are_per_context_and_per_type)
{
	int fd = self->ctx->cmd_fd;
	struct rnic_create_ah c;
	struct ibv_context *other;
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;
	__u32 handle;

	good_attr(&attr);
	ah = ibv_create_ah(self->pd, &attr);
	ASSERT_NE(NULL, ah);
	other = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, other);
	EXPECT_EQ(-EINVAL, _destroy(other->cmd_fd, RNIC_IOCTL_DESTROY_AH,
				    ah->handle));
	EXPECT_EQ(-EINVAL, _create_ah(other->cmd_fd, self->pd->handle,
				      &raw_good, &c));
	EXPECT_EQ(0, ibv_close_device(other));
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_DESTROY_SRQ,
				       &(struct rnic_destroy_srq){
					.size = sizeof(struct rnic_destroy_srq),
					.handle = ah->handle }));
	EXPECT_EQ(-EINVAL, _destroy(fd, RNIC_IOCTL_DEALLOC_PD, ah->handle));
	EXPECT_EQ(-EINVAL, _destroy(fd, RNIC_IOCTL_DESTROY_AH,
				    self->pd->handle));
	EXPECT_EQ(-EINVAL, _create_ah(fd, ah->handle, &raw_good, &c));
	handle = ah->handle;
	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(-EINVAL, _destroy(fd, RNIC_IOCTL_DESTROY_AH, handle));
}

TEST_F(ah, close_frees_everything)
{
	struct rnic_create_ah c;
	int fd, i;
	__u32 pd;

	fd = rnic_open(DEV);
	ASSERT_LE(0, fd);
	do_alloc_pd(fd, &pd);
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, _create_ah(fd, pd, &raw_good, &c));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(100, self->res->counts[RNIC_RES_AH]);
	EXPECT_EQ(0, close(fd));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_AH]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_PD]);
	EXPECT_EQ(1, self->res->n_ctxs);
}

TEST_F(ah, destroy_works_after_device_removal)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	good_attr(&attr);
	ah = ibv_create_ah(self->pd, &attr);
	ASSERT_NE(NULL, ah);
	do_link_del(self->g, DEV);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah(self->pd, &attr));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	self->pd = NULL;
}

TEST_F(ah, ah_limit_of_the_device)
{
	struct ibv_device_attr dattr;
	struct ibv_ah_attr attr;
	struct rnic_create_ah c;
	int fds[2], i, n = 0;
	__u32 pds[2];

	ASSERT_EQ(0, ibv_query_device(self->ctx, &dattr));
	EXPECT_EQ(65536, dattr.max_ah);
	for (i = 0; i < 2; i++) {
		fds[i] = rnic_open(DEV);
		ASSERT_LE(0, fds[i]);
		do_alloc_pd(fds[i], &pds[i]);
	}
	for (i = 0; i < dattr.max_ah; i++) {
		if (_create_ah(fds[i % 2], pds[i % 2], &raw_good, &c))
			break;
		n++;
	}
	EXPECT_EQ(dattr.max_ah, n);
	EXPECT_EQ(-ENOMEM, _create_ah(fds[0], pds[0], &raw_good, &c));
	good_attr(&attr);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah(self->pd, &attr));
	EXPECT_EQ(ENOMEM, errno);
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(dattr.max_ah, self->res->counts[RNIC_RES_AH]);
	/* The limit is per device: the lo device has its own. */
	EXPECT_NE(NULL, ibv_create_ah(self->lo_pd, &attr));

	EXPECT_EQ(0, close(fds[1]));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(dattr.max_ah / 2, self->res->counts[RNIC_RES_AH]);
	EXPECT_EQ(0, _create_ah(fds[0], pds[0], &raw_good, &c));
	EXPECT_EQ(0, close(fds[0]));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_AH]);
}

TEST_F(ah, init_ah_from_wc_ipv6)
{
	struct ibv_wc wc = { .wc_flags = IBV_WC_GRH, .sl = 3, .slid = 0 };
	union ibv_gid peer, ours, zero = { .raw = { 0 } };
	struct ibv_ah_attr attr;
	struct ibv_grh grh;
	struct ibv_ah *ah;

	gid_from_str(&peer, "2001:db8::99");
	ASSERT_EQ(0, ibv_query_gid(self->lo_ctx, 1, self->lo_v6, &ours));
	build_ipv6_grh(&grh, 0xa5, 0x12345, 17, 42, &peer, &ours);

	memset(&attr, 0xcc, sizeof(attr));
	ASSERT_EQ(0, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(0, memcmp(&attr.grh.dgid, &peer, sizeof(peer)));
	EXPECT_EQ(0x12345, attr.grh.flow_label);
	EXPECT_EQ(self->lo_v6, attr.grh.sgid_index);
	EXPECT_EQ(42, attr.grh.hop_limit);
	EXPECT_EQ(0xa5, attr.grh.traffic_class);
	EXPECT_EQ(0, attr.dlid);
	EXPECT_EQ(3, attr.sl);
	EXPECT_EQ(0, attr.src_path_bits);
	EXPECT_EQ(0, attr.static_rate);
	EXPECT_EQ(1, attr.is_global);
	EXPECT_EQ(1, attr.port_num);
	ah = ibv_create_ah(self->lo_pd, &attr);
	ASSERT_NE(NULL, ah) TH_LOG("%d", errno);
	EXPECT_EQ(0, ibv_destroy_ah(ah));

	/* The link-local GID 0 too. */
	ASSERT_EQ(0, ibv_query_gid(self->lo_ctx, 1, 0, &ours));
	build_ipv6_grh(&grh, 0, 0, 17, 1, &peer, &ours);
	ASSERT_EQ(0, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(0, attr.grh.sgid_index);
	ah = ibv_create_ah_from_wc(self->lo_pd, &wc, &grh, 1);
	ASSERT_NE(NULL, ah) TH_LOG("%d", errno);
	EXPECT_EQ(self->lo_pd, ah->pd);
	EXPECT_EQ(0, ibv_destroy_ah(ah));

	/* Sent to a multicast GID: nothing of ours. */
	gid_from_str(&ours, "ff02::1");
	build_ipv6_grh(&grh, 0, 0, 17, 1, &peer, &ours);
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(EINVAL, errno);
	/* Sent to a GID that is not ours, or to the zero GID. */
	build_ipv6_grh(&grh, 0, 0, 17, 1, &ours, &peer);
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(EINVAL, errno);
	build_ipv6_grh(&grh, 0, 0, 17, 1, &peer, &zero);
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah_from_wc(self->lo_pd, &wc, &grh, 1));
	EXPECT_EQ(EINVAL, errno);

	/* RoCEv1 (next header 0x1b): rnic's GIDs are RoCEv2 only. */
	ASSERT_EQ(0, ibv_query_gid(self->lo_ctx, 1, self->lo_v6, &ours));
	build_ipv6_grh(&grh, 0, 0, 0x1b, 1, &peer, &ours);
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(EINVAL, errno);
	/* Not UDP: not RoCE at all. */
	build_ipv6_grh(&grh, 0, 0, 6, 1, &peer, &ours);
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(EPROTONOSUPPORT, errno);
	/* Neither version 6 nor an IPv4 header. */
	build_ipv6_grh(&grh, 0, 0, 17, 1, &peer, &ours);
	grh.version_tclass_flow = htobe32(5u << 28);
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(EPROTONOSUPPORT, errno);
	/* A bad port. */
	build_ipv6_grh(&grh, 0, 0, 17, 1, &peer, &ours);
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->lo_ctx, 2, &wc, &grh, &attr));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ah, init_ah_from_wc_ipv4)
{
	static const uint8_t peer4[4] = { 10, 0, 0, 7 };
	static const uint8_t lo4[4] = { 127, 0, 0, 1 };
	static const uint8_t mcast4[4] = { 224, 0, 0, 251 };
	struct ibv_wc wc = { .wc_flags = IBV_WC_GRH | IBV_WC_IP_CSUM_OK,
			     .sl = 0 };
	union ibv_gid peer, ours;
	struct ibv_ah_attr attr;
	struct ibv_grh grh;
	struct ibv_ah *ah;

	gid_from_str(&peer, "::ffff:10.0.0.7");
	build_ipv4_grh(&grh, 0x88, 17, peer4, lo4);
	memset(&attr, 0xcc, sizeof(attr));
	ASSERT_EQ(0, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(0, memcmp(&attr.grh.dgid, &peer, sizeof(peer)));
	EXPECT_EQ(0, attr.grh.flow_label);
	EXPECT_EQ(self->lo_v4, attr.grh.sgid_index);
	EXPECT_EQ(17, attr.grh.hop_limit);
	EXPECT_EQ(0x88, attr.grh.traffic_class);
	EXPECT_EQ(0, attr.dlid);
	EXPECT_EQ(0, attr.sl);
	EXPECT_EQ(0, attr.src_path_bits);
	EXPECT_EQ(0, attr.static_rate);
	EXPECT_EQ(1, attr.is_global);
	EXPECT_EQ(1, attr.port_num);
	ah = ibv_create_ah(self->lo_pd, &attr);
	ASSERT_NE(NULL, ah) TH_LOG("%d", errno);
	EXPECT_EQ(0, ibv_destroy_ah(ah));

	/* First word saying version 6, yet an intact IPv4 header: IPv4. */
	grh.version_tclass_flow = htobe32(6u << 28 | 0xfffff);
	ASSERT_EQ(0, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(0, memcmp(&attr.grh.dgid, &peer, sizeof(peer)));
	EXPECT_EQ(self->lo_v4, attr.grh.sgid_index);
	EXPECT_EQ(0, attr.grh.flow_label);
	/* ... but with a broken checksum it is an IPv6 header. */
	((uint8_t *)&grh)[30] ^= 0xff;
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	/* (Whose next header, byte 6, is 0: not UDP.) */
	EXPECT_EQ(EPROTONOSUPPORT, errno);

	build_ipv4_grh(&grh, 0, 64, peer4, lo4);
	ah = ibv_create_ah_from_wc(self->lo_pd, &wc, &grh, 1);
	ASSERT_NE(NULL, ah) TH_LOG("%d", errno);
	EXPECT_EQ(0, ibv_destroy_ah(ah));

	/* Sent to an IPv4 multicast group, or to an address not ours. */
	build_ipv4_grh(&grh, 0, 64, peer4, mcast4);
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(EINVAL, errno);
	build_ipv4_grh(&grh, 0, 64, lo4, peer4);
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->lo_ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(EINVAL, errno);
	/* The unbound device has no IPv4 GID. */
	build_ipv4_grh(&grh, 0, 64, peer4, lo4);
	errno = 0;
	EXPECT_EQ(-1, ibv_init_ah_from_wc(self->ctx, 1, &wc, &grh, &attr));
	EXPECT_EQ(EINVAL, errno);
	gid_from_str(&ours, "::ffff:127.0.0.1");
	EXPECT_EQ(-1, gid_index(self->ctx, &ours));
}

TEST_F(ah, init_ah_from_wc_without_grh)
{
	struct ibv_wc wc = { .slid = 0x1234, .sl = 5, .dlid_path_bits = 2 };
	struct ibv_ah_attr attr;

	/* No GRH: the GRH buffer is not read, the address is local. */
	memset(&attr, 0xcc, sizeof(attr));
	ASSERT_EQ(0, ibv_init_ah_from_wc(self->ctx, 1, &wc, NULL, &attr));
	EXPECT_EQ(0x1234, attr.dlid);
	EXPECT_EQ(5, attr.sl);
	EXPECT_EQ(2, attr.src_path_bits);
	EXPECT_EQ(1, attr.port_num);
	EXPECT_EQ(0, attr.is_global);
	EXPECT_EQ(0, attr.static_rate);
	EXPECT_EQ(0, attr.grh.flow_label);
	EXPECT_EQ(0, attr.grh.sgid_index);
	/* Which RoCE cannot use. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah_from_wc(self->pd, &wc, NULL, 1));
	EXPECT_EQ(EINVAL, errno);
}

/* The size contract, flags and reserved fields of the AH ioctls. */
TEST_F(ah, cmd_length)
{
	int fd = self->ctx->cmd_fd;
	unsigned char buf[256];
	struct rnic_create_ah *c = (void *)buf;
	struct rnic_destroy *d = (void *)buf;
	__u32 handle;

	memset(buf, 0, sizeof(buf));
	c->size = sizeof(*c) - 1;
	c->pd_handle = self->pd->handle;
	c->attr = raw_good;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_CREATE_AH, buf);
	c->size = sizeof(*c) + 64;
	do_ioctl(fd, RNIC_IOCTL_CREATE_AH, buf);
	handle = c->out_handle;
	EXPECT_EQ(0, buf[sizeof(*c) + 63]);
	buf[sizeof(*c) + 9] = 1;
	do_err_ioctl(E2BIG, fd, RNIC_IOCTL_CREATE_AH, buf);
	buf[sizeof(*c) + 9] = 0;
	c->flags = 1;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_CREATE_AH, buf);
	do_err_ioctl(EFAULT, fd, RNIC_IOCTL_CREATE_AH, NULL);

	memset(buf, 0, sizeof(buf));
	d->size = sizeof(*d);
	d->handle = handle;
	d->__reserved = 1;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_DESTROY_AH, buf);
	d->__reserved = 0;
	d->flags = 4;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_DESTROY_AH, buf);
	d->flags = 0;
	d->size = sizeof(*d) - 1;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_DESTROY_AH, buf);
	d->size = sizeof(*d);
	do_ioctl(fd, RNIC_IOCTL_DESTROY_AH, buf);
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_DESTROY_AH, buf);
}

TEST_HARNESS_MAIN
