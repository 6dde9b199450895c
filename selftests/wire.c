// SPDX-License-Identifier: GPL-2.0
/*
 * The udp link: RoCEv2 between two hosts. Two network namespaces stand for
 * the hosts, joined by a veth pair (MTU 9000) with an IPv4 and an IPv6
 * address on each end, and an rnic device bound to each end. No rnic
 * device of one namespace owns the other's GIDs, so every packet between
 * them goes over the wire: built as IP/UDP/BTH/.../ICRC, through the
 * veth, parsed by the other device's rx_handler.
 *
 * A veth without NAPI delivers a packet through the backlog of the CPU
 * that sent it, so a QP whose requester moves between CPUs would see its
 * packets reordered, which a NIC's receive queue does not do and UC
 * (which does not retransmit) does not survive: each end steers its
 * receive to one CPU (RPS), as a receive queue does.
 *
 * A retried burst of READs (16 outstanding, 64 responses each) is 1024
 * packets at once, more than the receive backlog's default 1000: the
 * tail is dropped on every retry, the same way, and the retries run out.
 * That is congestion, not what this test is about: it raises
 * net.core.netdev_max_backlog while it runs.
 *
 * Each end knows the other's link-layer addresses from the start
 * (permanent neighbours): a first packet that waits for neighbour
 * discovery waits a second for each solicitation lost (one is, now and
 * then, while the previous test's namespaces are being dismantled), longer
 * than the 0.5 s the transport retries for here. The VM harness's two
 * hosts and make interop cover discovery.
 *
 * Each side's context is opened from inside its namespace; the test
 * process then drives both (a context keeps its device, wherever the
 * caller is), and lives in the initial namespace between steps.
 *
 * Variants: IPv4 or IPv6 GIDs, path MTU 1024 or 4096. Data is checked
 * byte for byte, with guard bytes around every piece.
 */
#include <sched.h>

#include "rnic_dp_test.h"

#define W_MTU		9000
#define W_WAIT_MS	10000
#define W_BIG		(1u << 20)
#define W_BUF		(W_BIG + 64 * 1024)
#define W_INLINE	64

static const char *const w_netdev[2] = { "t_wire0", "t_wire1" };
static const char *const w_addr4[2] = { "10.77.0.1", "10.77.0.2" };
static const char *const w_addr6[2] = { "fd77::1", "fd77::2" };
static const char *const w_mac[2] = { "02:77:00:00:00:01", "02:77:00:00:00:02" };
static const uint8_t w_gid4[2][16] = {
	{ [10] = 0xff, [11] = 0xff, 10, 77, 0, 1 },
	{ [10] = 0xff, [11] = 0xff, 10, 77, 0, 2 },
};
static const uint8_t w_gid6[2][16] = {
	{ 0xfd, 0x77, [15] = 1 },
	{ 0xfd, 0x77, [15] = 2 },
};

/**
 * struct w_side - one host
 * @nsfd: its network namespace
 * @g: a netlink socket of that namespace
 * @dev: the rnic device bound to its end of the veth pair
 * @ctx, @pd, @scq, @rcq: a context opened inside the namespace
 * @gid: the GID of the variant's family
 * @gid_index: its index
 * @sbuf: where messages come from
 * @dbuf: where they go
 */
struct w_side {
	int nsfd;
	struct rnic_genl *g;
	char dev[RNIC_LINK_NAME_SIZE];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	union ibv_gid gid;
	int gid_index;
	struct dp_buf sbuf;
	struct dp_buf dbuf;
};

FIXTURE(wire) {
	int init_ns;
	struct w_side s[2];
	struct dp_pair p;
	struct dp_qp_opts o;
};

FIXTURE_VARIANT(wire) {
	bool ipv6;
	enum ibv_mtu mtu;
};

FIXTURE_VARIANT_ADD(wire, v4_mtu1024) { .ipv6 = false, .mtu = IBV_MTU_1024 };
FIXTURE_VARIANT_ADD(wire, v4_mtu4096) { .ipv6 = false, .mtu = IBV_MTU_4096 };
FIXTURE_VARIANT_ADD(wire, v6_mtu1024) { .ipv6 = true, .mtu = IBV_MTU_1024 };
FIXTURE_VARIANT_ADD(wire, v6_mtu4096) { .ipv6 = true, .mtu = IBV_MTU_4096 };

static int w_self_ns(void)
{
	return open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
}

/* Wait for @gid in @ctx's GID table; its index or -1. */
static int w_wait_gid(struct ibv_context *ctx, const uint8_t *gid)
{
	long end = dp_now_ms() + W_WAIT_MS;
	int index;

	while ((index = dp_find_gid(ctx, gid)) < 0 && dp_now_ms() < end)
		usleep(10000);
	return index;
}

#define W_BACKLOG_SYSCTL	"/proc/sys/net/core/netdev_max_backlog"
#define W_BACKLOG		100000

/* net.core.netdev_max_backlog before the test, or 0 */
static int w_backlog_saved;

static void w_backlog_raise(void)
{
	FILE *f = fopen(W_BACKLOG_SYSCTL, "r");

	if (f) {
		if (fscanf(f, "%d", &w_backlog_saved) != 1)
			w_backlog_saved = 0;
		fclose(f);
	}
	rnic_put_file(W_BACKLOG_SYSCTL, "%d", W_BACKLOG);
}

static void w_backlog_restore(void)
{
	if (w_backlog_saved)
		rnic_put_file(W_BACKLOG_SYSCTL, "%d", w_backlog_saved);
}

/*
 * Two namespaces joined by a veth pair, addresses on both ends, a device
 * bound to each and a context on it: the hosts. Leaves the caller in
 * @init_ns.
 */
static void w_hosts_setup(struct __test_metadata *_metadata, int init_ns,
			  struct w_side *s, bool ipv6, const char *tag)
{
	const uint8_t (*gids)[16] = ipv6 ? w_gid6 : w_gid4;
	int i;

	for (i = 0; i < 2; i++)
		s[i].nsfd = -1;
	w_backlog_raise();
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	s[1].nsfd = w_self_ns();
	ASSERT_LE(0, s[1].nsfd);
	ASSERT_EQ(0, setns(init_ns, CLONE_NEWNET));
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	s[0].nsfd = w_self_ns();
	ASSERT_LE(0, s[0].nsfd);
	ASSERT_EQ(0, rnic_sh("ip link add %s mtu %d address %s type veth peer name %s mtu %d address %s netns /proc/%d/fd/%d",
			     w_netdev[0], W_MTU, w_mac[0], w_netdev[1], W_MTU,
			     w_mac[1], getpid(), s[1].nsfd));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, setns(s[i].nsfd, CLONE_NEWNET));
		ASSERT_EQ(0, rnic_sh("ip link set lo up && ip addr add %s/24 dev %s && ip -6 addr add %s/64 dev %s nodad && ip link set %s up",
				     w_addr4[i], w_netdev[i], w_addr6[i],
				     w_netdev[i], w_netdev[i]));
		ASSERT_EQ(0, rnic_sh("ip neigh add %s lladdr %s dev %s nud permanent && ip neigh add %s lladdr %s dev %s nud permanent",
				     w_addr4[!i], w_mac[!i], w_netdev[i],
				     w_addr6[!i], w_mac[!i], w_netdev[i]));
		/* sysfs shows the namespace of whoever mounts it */
		ASSERT_EQ(0, rnic_sh("unshare -m sh -c 'mount -t sysfs none /sys && echo 1 > /sys/class/net/%s/queues/rx-0/rps_cpus'",
				     w_netdev[i]));
		s[i].g = do_ptr(rnic_genl_open());
		snprintf(s[i].dev, sizeof(s[i].dev), "t_w%s%c%d", tag,
			 'a' + i, getpid());
		do_link_add(s[i].g, s[i].dev, w_netdev[i]);
		s[i].ctx = do_ptr(rnic_ibv_open(s[i].dev));
		s[i].pd = do_ptr(ibv_alloc_pd(s[i].ctx));
		s[i].scq = do_ptr(ibv_create_cq(s[i].ctx, DP_CQE, NULL, NULL, 0));
		s[i].rcq = do_ptr(ibv_create_cq(s[i].ctx, DP_CQE, NULL, NULL, 0));
		s[i].gid_index = w_wait_gid(s[i].ctx, gids[i]);
		ASSERT_LE(0, s[i].gid_index) TH_LOG("%s has no GID for %s",
						    s[i].dev, ipv6 ?
						    w_addr6[i] : w_addr4[i]);
		memcpy(s[i].gid.raw, gids[i], 16);
		do_buf_alloc(s[i].pd, W_BUF, DP_ACCESS_ALL, &s[i].sbuf);
		do_buf_alloc(s[i].pd, W_BUF, DP_ACCESS_ALL, &s[i].dbuf);
	}
	ASSERT_EQ(0, setns(init_ns, CLONE_NEWNET));
}

/* After a failure: the counters of both hosts that are not 0. */
static void w_log_counters(struct __test_metadata *_metadata, struct w_side *s)
{
	struct rnic_stat_info info;
	unsigned int i, c;

	for (i = 0; i < 2; i++) {
		if (!s[i].g || rnic_stat_get(s[i].g, s[i].dev, &info))
			continue;
		for (c = 1; c <= RNIC_NL_COUNTER_MAX; c++)
			if (info.counters[c])
				TH_LOG("host %u: %s %llu", i,
				       rnic_counter_name(c),
				       (unsigned long long)info.counters[c]);
	}
}

static void w_hosts_teardown(struct __test_metadata *_metadata, int init_ns,
			     struct w_side *s)
{
	int i;

	if (!_metadata->passed) {
		w_log_counters(_metadata, s);
		for (i = 0; i < 2; i++) {
			if (s[i].nsfd < 0 || setns(s[i].nsfd, CLONE_NEWNET))
				continue;
			printf("# host %d's network:\n", i);
			fflush(stdout);
			rnic_net_log();
		}
	}
	EXPECT_EQ(0, setns(init_ns, CLONE_NEWNET));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, dp_buf_free(&s[i].sbuf));
		EXPECT_EQ(0, dp_buf_free(&s[i].dbuf));
		if (s[i].scq)
			EXPECT_EQ(0, ibv_destroy_cq(s[i].scq));
		if (s[i].rcq)
			EXPECT_EQ(0, ibv_destroy_cq(s[i].rcq));
		if (s[i].pd)
			EXPECT_EQ(0, ibv_dealloc_pd(s[i].pd));
		if (s[i].ctx)
			EXPECT_EQ(0, ibv_close_device(s[i].ctx));
		if (s[i].g) {
			/* a test that removed the device clears its name */
			if (s[i].dev[0])
				EXPECT_EQ(0, rnic_link_del(s[i].g, s[i].dev));
			rnic_genl_close(s[i].g);
		}
	}
	/* a namespace that goes takes its end of the veth, and the other */
	for (i = 0; i < 2; i++)
		if (s[i].nsfd >= 0)
			close(s[i].nsfd);
	w_backlog_restore();
}

FIXTURE_SETUP(wire)
{
	memset(&self->p, 0, sizeof(self->p));
	self->init_ns = w_self_ns();
	ASSERT_LE(0, self->init_ns);
	w_hosts_setup(_metadata, self->init_ns, self->s, variant->ipv6, "");
	self->o = dp_opts(IBV_QPT_RC);
	self->o.mtu = variant->mtu;
	self->o.max_inline = W_INLINE;
}

FIXTURE_TEARDOWN(wire)
{
	dp_pair_close(_metadata, &self->p);
	w_hosts_teardown(_metadata, self->init_ns, self->s);
	close(self->init_ns);
}

/* A QP of @type on each host, connected to the other's (RC, UC) or in RTS
 * with an AH towards it (UD).
 */
static void w_pair(struct __test_metadata *_metadata,
		   FIXTURE_DATA(wire) *self, enum ibv_qp_type type)
{
	struct w_side *s = self->s;
	struct dp_pair *p = &self->p;
	const uint32_t psn[2] = { 0xfffff0, 0x000100 };
	int i;

	self->o.type = type;
	p->o = self->o;
	for (i = 0; i < 2; i++)
		p->qp[i] = do_ptr(dp_qp_create(s[i].pd, s[i].scq, s[i].rcq,
					       &self->o));
	for (i = 0; i < 2; i++) {
		if (type != IBV_QPT_UD) {
			ASSERT_EQ(0, dp_qp_connect(p->qp[i], &self->o,
						   p->qp[!i]->qp_num,
						   &s[!i].gid, s[i].gid_index,
						   psn[i], psn[!i], false));
			continue;
		}
		ASSERT_EQ(0, dp_qp_init(p->qp[i], &self->o));
		ASSERT_EQ(0, dp_qp_rtr(p->qp[i], &self->o, 0, &s[i].gid,
				       s[i].gid_index, 0));
		ASSERT_EQ(0, dp_qp_rts(p->qp[i], &self->o, psn[i]));
		p->ah[i] = do_ptr(dp_ah(s[i].pd, &s[!i].gid, s[i].gid_index));
	}
}

static uint32_t w_mtu(const FIXTURE_DATA(wire) *self)
{
	return 128u << self->o.mtu;
}

/* The message sizes every operation moves. */
static void w_sizes(const FIXTURE_DATA(wire) *self, size_t *sz)
{
	sz[0] = 0;
	sz[1] = 1;
	sz[2] = w_mtu(self) - 1;
	sz[3] = w_mtu(self) + 1;
	sz[4] = W_BIG;
}

#define W_NSIZES 5

/*
 * A SEND (@imm: with immediate) of @len bytes in @nsge pieces (@inl:
 * inline) from host @from to the other: both completions, and the bytes.
 */
static void w_send(struct __test_metadata *_metadata, FIXTURE_DATA(wire) *self,
		   int from, size_t len, int nsge, bool imm, bool inl)
{
	struct w_side *src = &self->s[from], *dst = &self->s[!from];
	uint32_t seed = dp_seed(from, len, nsge * 2 + imm);
	struct dp_sgl ssgl, dsgl;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.flags = inl ? IBV_SEND_INLINE : 0,
		.wr_id = len,
		.sgl = &ssgl,
		.imm = seed,
	};
	bool ud = self->o.type == IBV_QPT_UD;
	size_t grh = ud ? DP_GRH : 0;

	if (ud) {
		w.ah = self->p.ah[from];
		w.rqpn = self->p.qp[!from]->qp_num;
		w.qkey = self->o.qkey;
	}
	dp_buf_guard(&dst->dbuf);
	ASSERT_EQ(0, dp_sgl_make(&src->sbuf, 0, len, nsge, seed, &ssgl));
	dp_sgl_fill(&ssgl, seed, 0);
	ASSERT_EQ(0, dp_sgl_make(&dst->dbuf, 0, grh + len, 2, ~seed, &dsgl));
	ASSERT_EQ(0, dp_post_recv(self->p.qp[!from], &dsgl, 7));
	ASSERT_EQ(0, dp_post(self->p.qp[from], &w));
	ASSERT_POLL1(src->scq, &wc);
	ASSERT_WC(&wc, len, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(dst->rcq, &wc);
	ASSERT_WC(&wc, 7, IBV_WC_SUCCESS, IBV_WC_RECV);
	ASSERT_EQ(grh + len, wc.byte_len);
	ASSERT_EQ(imm ? IBV_WC_WITH_IMM : 0, wc.wc_flags & IBV_WC_WITH_IMM);
	if (imm)
		ASSERT_EQ(htonl(seed), wc.imm_data);
	if (ud) {
		ASSERT_EQ(self->p.qp[from]->qp_num, wc.src_qp);
		ASSERT_EQ(IBV_WC_GRH, wc.wc_flags & IBV_WC_GRH);
	}
	ASSERT_SGL(&dst->dbuf, &dsgl, grh, len, seed);
}

/*
 * A WRITE (@imm: with immediate) of @len bytes in @nsge pieces from host
 * @from into the other's dbuf at an odd offset: the bytes, and nothing
 * else of the buffer.
 */
static void w_write(struct __test_metadata *_metadata,
		    FIXTURE_DATA(wire) *self, int from, size_t len, int nsge,
		    bool imm)
{
	struct w_side *src = &self->s[from], *dst = &self->s[!from];
	uint32_t seed = dp_seed(from, len, 100 + nsge * 2 + imm);
	struct dp_sgl ssgl, dsgl;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		.wr_id = len,
		.sgl = &ssgl,
		.imm = seed,
	};

	dp_buf_guard(&dst->dbuf);
	ASSERT_EQ(0, dp_sgl_make(&src->sbuf, 0, len, nsge, seed, &ssgl));
	dp_sgl_fill(&ssgl, seed, 0);
	dp_sgl_one(&dst->dbuf, 33, len, &dsgl);
	w.raddr = (uintptr_t)dst->dbuf.mem + 33;
	w.rkey = dst->dbuf.mr->rkey;
	if (imm)
		ASSERT_EQ(0, dp_post_recv(self->p.qp[!from], NULL, 9));
	ASSERT_EQ(0, dp_post(self->p.qp[from], &w));
	ASSERT_POLL1(src->scq, &wc);
	ASSERT_WC(&wc, len, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	if (imm) {
		ASSERT_POLL1(dst->rcq, &wc);
		ASSERT_WC(&wc, 9, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM);
		ASSERT_EQ(len, wc.byte_len);
		ASSERT_EQ(htonl(seed), wc.imm_data);
	} else if (self->o.type == IBV_QPT_RC) {
		/* RC: the WRITE completed, so it was placed */
		ASSERT_QUIET_MS(dst->rcq, 0);
	} else {
		/* UC: the sender does not wait for the receiver */
		long end = dp_now_ms() + DP_TIMEOUT_MS;

		while (dp_sgl_verify(&dst->dbuf, &dsgl, 0, len, seed) >= 0 &&
		       dp_now_ms() < end)
			usleep(1000);
	}
	ASSERT_SGL(&dst->dbuf, &dsgl, 0, len, seed);
}

/* A READ of @len bytes by host @from of the other's sbuf, into @nsge pieces. */
static void w_read(struct __test_metadata *_metadata, FIXTURE_DATA(wire) *self,
		   int from, size_t len, int nsge)
{
	struct w_side *me = &self->s[from], *peer = &self->s[!from];
	uint32_t seed = dp_seed(from, len, 200 + nsge);
	struct dp_sgl dsgl;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = IBV_WR_RDMA_READ,
		.wr_id = len,
		.sgl = &dsgl,
		.raddr = (uintptr_t)peer->sbuf.mem + 5,
		.rkey = peer->sbuf.mr->rkey,
	};

	dp_fill(peer->sbuf.mem + 5, len, seed, 0);
	dp_buf_guard(&me->dbuf);
	ASSERT_EQ(0, dp_sgl_make(&me->dbuf, 0, len, nsge, ~seed, &dsgl));
	ASSERT_EQ(0, dp_post(self->p.qp[from], &w));
	ASSERT_POLL1(me->scq, &wc);
	ASSERT_WC(&wc, len, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	ASSERT_EQ(len, wc.byte_len);
	ASSERT_SGL(&me->dbuf, &dsgl, 0, len, seed);
}

/* Host @from's atomic on the other's word: the original back, the result. */
static void w_atomic(struct __test_metadata *_metadata,
		     FIXTURE_DATA(wire) *self, int from, bool cas)
{
	struct w_side *me = &self->s[from], *peer = &self->s[!from];
	uint64_t *word = (uint64_t *)(peer->dbuf.mem + 4096 + 8 * from);
	uint64_t *orig = (uint64_t *)(me->sbuf.mem + 64);
	const uint64_t before = 0x0123456789abcdefull + from;
	const uint64_t arg = 0x1111000022220000ull;
	struct dp_sgl sgl;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = cas ? IBV_WR_ATOMIC_CMP_AND_SWP :
			    IBV_WR_ATOMIC_FETCH_AND_ADD,
		.wr_id = 3,
		.sgl = &sgl,
		.raddr = (uintptr_t)word,
		.rkey = peer->dbuf.mr->rkey,
		.compare_add = cas ? before : arg,
		.swap = arg,
	};

	*word = before;
	*orig = 0;
	dp_sgl_one(&me->sbuf, 64, 8, &sgl);
	ASSERT_EQ(0, dp_post(self->p.qp[from], &w));
	ASSERT_POLL1(me->scq, &wc);
	ASSERT_WC(&wc, 3, IBV_WC_SUCCESS,
		  cas ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD);
	ASSERT_EQ(before, *orig);
	ASSERT_EQ(cas ? arg : before + arg, *word);
}

TEST_F(wire, rc_send)
{
	size_t sz[W_NSIZES];
	int from, i;

	w_pair(_metadata, self, IBV_QPT_RC);
	w_sizes(self, sz);
	for (from = 0; from < 2; from++) {
		for (i = 0; i < W_NSIZES; i++) {
			w_send(_metadata, self, from, sz[i], 1, false, false);
			w_send(_metadata, self, from, sz[i], 3, true, false);
		}
		w_send(_metadata, self, from, W_INLINE, 4, false, true);
		w_send(_metadata, self, from, 1, 1, true, true);
	}
}

TEST_F(wire, rc_write)
{
	size_t sz[W_NSIZES];
	int from, i;

	w_pair(_metadata, self, IBV_QPT_RC);
	w_sizes(self, sz);
	for (from = 0; from < 2; from++) {
		for (i = 0; i < W_NSIZES; i++) {
			w_write(_metadata, self, from, sz[i], 1, false);
			w_write(_metadata, self, from, sz[i], 3, true);
		}
	}
}

TEST_F(wire, rc_read_atomic)
{
	size_t sz[W_NSIZES];
	int from, i;

	w_pair(_metadata, self, IBV_QPT_RC);
	w_sizes(self, sz);
	for (from = 0; from < 2; from++) {
		for (i = 0; i < W_NSIZES; i++)
			w_read(_metadata, self, from, sz[i], 3);
		w_atomic(_metadata, self, from, true);
		w_atomic(_metadata, self, from, false);
	}
}

TEST_F(wire, uc)
{
	size_t sz[W_NSIZES];
	int from, i;

	w_pair(_metadata, self, IBV_QPT_UC);
	w_sizes(self, sz);
	for (from = 0; from < 2; from++) {
		for (i = 0; i < W_NSIZES; i++) {
			w_send(_metadata, self, from, sz[i], 2, i & 1, false);
			w_write(_metadata, self, from, sz[i], 2, false);
			w_write(_metadata, self, from, sz[i], 1, true);
		}
		w_send(_metadata, self, from, W_INLINE, 1, false, true);
	}
}

/* UD: datagrams up to the MTU; the GRH holds the sender's IP header. */
TEST_F(wire, ud)
{
	struct w_side *s = self->s;
	const uint8_t *grh;
	int from;

	w_pair(_metadata, self, IBV_QPT_UD);
	for (from = 0; from < 2; from++) {
		struct dp_sgl dsgl;

		w_send(_metadata, self, from, 0, 1, false, false);
		w_send(_metadata, self, from, 1, 1, true, false);
		w_send(_metadata, self, from, W_INLINE, 1, false, true);
		w_send(_metadata, self, from, w_mtu(self), 3, true, false);
		/* the receive began at an odd offset: find its GRH */
		ASSERT_EQ(0, dp_sgl_make(&s[!from].dbuf, 0,
					 DP_GRH + w_mtu(self), 2,
					 ~dp_seed(from, w_mtu(self), 7),
					 &dsgl));
		grh = (const uint8_t *)(uintptr_t)dsgl.sge[0].addr;
		if (!variant->ipv6) {
			/* IPv4 in the last 20 bytes: source, destination */
			ASSERT_EQ(0x45, grh[20]);
			ASSERT_EQ(0, memcmp(grh + 32, s[from].gid.raw + 12, 4));
			ASSERT_EQ(0, memcmp(grh + 36, s[!from].gid.raw + 12, 4));
		} else {
			ASSERT_EQ(6, grh[0] >> 4);
			ASSERT_EQ(0, memcmp(grh + 8, s[from].gid.raw, 16));
			ASSERT_EQ(0, memcmp(grh + 24, s[!from].gid.raw, 16));
		}
	}
}

/* Groups of the multicast test, IPv4 (239.77.0.1) and IPv6 (ff0e::77:1) */
static const uint8_t w_group4[16] = {
	[10] = 0xff, [11] = 0xff, 239, 77, 0, 1
};
static const uint8_t w_group6[16] = { 0xff, 0x0e, [13] = 0x77, [15] = 1 };

/*
 * Post a receive of a datagram of @len bytes on host @to's QP; the
 * buffer's contents poisoned with @seed's complement.
 */
static void w_mcast_recv(struct __test_metadata *_metadata,
			 FIXTURE_DATA(wire) *self, int to, size_t len,
			 uint32_t seed, struct dp_sgl *dsgl)
{
	dp_buf_guard(&self->s[to].dbuf);
	ASSERT_EQ(0, dp_sgl_make(&self->s[to].dbuf, 0, DP_GRH + len, 1, ~seed,
				 dsgl));
	ASSERT_EQ(0, dp_post_recv(self->p.qp[to], dsgl, 20 + to));
}

/* The datagram of @len bytes from host 0's QP, intact, on @to's. */
static void w_mcast_got(struct __test_metadata *_metadata,
			FIXTURE_DATA(wire) *self, int to, size_t len,
			uint32_t seed, const struct dp_sgl *dsgl)
{
	struct ibv_wc wc;

	ASSERT_POLL1(self->s[to].rcq, &wc);
	ASSERT_WC(&wc, 20 + to, IBV_WC_SUCCESS, IBV_WC_RECV);
	ASSERT_EQ(DP_GRH + len, wc.byte_len);
	ASSERT_EQ(self->p.qp[0]->qp_num, wc.src_qp);
	ASSERT_SGL(&self->s[to].dbuf, dsgl, DP_GRH, len, seed);
}

/*
 * UD multicast on the wire: host 1's QP and host 0's (the sender's) are
 * attached to a group; host 0 sends to it (QP 0xffffff). Host 1's member
 * gets the datagram once, over the wire; host 0's once, from its own
 * device (the copy the netdev loops back is not taken again); every byte
 * checked. Once host 1 has left the group, a datagram to it does not
 * reach host 1 (the stack gets it) while host 0's member still does.
 */
TEST_F(wire, ud_mcast)
{
	const uint8_t *group = variant->ipv6 ? w_group6 : w_group4;
	const size_t len = 100;
	struct dp_sgl ssgl, dsgl[2];
	union ibv_gid mgid;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = IBV_WR_SEND,
		.wr_id = 5,
		.sgl = &ssgl,
		.rqpn = 0xffffff,
	};
	int round, to;

	memcpy(mgid.raw, group, 16);
	w_pair(_metadata, self, IBV_QPT_UD);
	w.qkey = self->o.qkey;
	for (to = 0; to < 2; to++)
		ASSERT_EQ(0, ibv_attach_mcast(self->p.qp[to], &mgid, 0));
	ah = do_ptr(dp_ah(self->s[0].pd, &mgid, self->s[0].gid_index));
	w.ah = ah;
	for (round = 0; round < 2; round++) {
		uint32_t seed = dp_seed(0, len, 40 + round);

		ASSERT_EQ(0, dp_sgl_make(&self->s[0].sbuf, 0, len, 1, seed,
					 &ssgl));
		dp_sgl_fill(&ssgl, seed, 0);
		for (to = 0; to < 2; to++)
			w_mcast_recv(_metadata, self, to, len, seed, &dsgl[to]);
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->s[0].scq, &wc);
		ASSERT_WC(&wc, 5, IBV_WC_SUCCESS, IBV_WC_SEND);
		w_mcast_got(_metadata, self, 0, len, seed, &dsgl[0]);
		if (round == 0) {
			w_mcast_got(_metadata, self, 1, len, seed, &dsgl[1]);
			ASSERT_EQ(0, ibv_detach_mcast(self->p.qp[1], &mgid, 0));
		} else {
			ASSERT_QUIET_MS(self->s[1].rcq, 200);
		}
		/* no second copy on host 0 */
		ASSERT_QUIET_MS(self->s[0].rcq, 200);
	}
	ASSERT_EQ(0, ibv_detach_mcast(self->p.qp[0], &mgid, 0));
	ASSERT_EQ(0, ibv_destroy_ah(ah));
}

static uint64_t w_counter(struct __test_metadata *_metadata,
			  struct w_side *s, enum rnic_nl_counter c)
{
	struct rnic_stat_info info;

	EXPECT_EQ(0, rnic_stat_get(s->g, s->dev, &info));
	return info.counters[c];
}

/*
 * sent_pkts and rcvd_pkts count packets on the wire: a WRITE of 3 MTUs is
 * 3 packets out of one host and into the other, whose ACKs go back; a UD
 * datagram is one packet. Nothing is dropped or fails to go out.
 */
TEST_F(wire, counters)
{
	static const enum rnic_nl_counter zero[] = {
		RNIC_NL_COUNTER_SEND_ERR, RNIC_NL_COUNTER_DROP_BAD_HEADER,
		RNIC_NL_COUNTER_DROP_BAD_ICRC, RNIC_NL_COUNTER_DROP_BAD_PKEY,
		RNIC_NL_COUNTER_DROP_NO_QP, RNIC_NL_COUNTER_REQ_NOT_PEER,
		RNIC_NL_COUNTER_RESP_NOT_PEER,
	};
	uint64_t sent[2], rcvd[2];
	unsigned int i, j;

	w_pair(_metadata, self, IBV_QPT_RC);
	w_send(_metadata, self, 0, 8, 1, false, false);
	for (i = 0; i < 2; i++) {
		sent[i] = w_counter(_metadata, &self->s[i],
				    RNIC_NL_COUNTER_SENT_PKTS);
		rcvd[i] = w_counter(_metadata, &self->s[i],
				    RNIC_NL_COUNTER_RCVD_PKTS);
	}
	w_write(_metadata, self, 0, 3 * w_mtu(self), 1, false);
	/* the last ACK may still be on its way to host 0 */
	usleep(100 * 1000);
	ASSERT_EQ(sent[0] + 3, w_counter(_metadata, &self->s[0],
					 RNIC_NL_COUNTER_SENT_PKTS));
	ASSERT_EQ(rcvd[1] + 3, w_counter(_metadata, &self->s[1],
					 RNIC_NL_COUNTER_RCVD_PKTS));
	/* every ACK host 1 sent, host 0 received; at least one */
	ASSERT_LT(sent[1], w_counter(_metadata, &self->s[1],
				     RNIC_NL_COUNTER_SENT_PKTS));
	ASSERT_EQ(w_counter(_metadata, &self->s[1],
			    RNIC_NL_COUNTER_SENT_PKTS) - sent[1],
		  w_counter(_metadata, &self->s[0],
			    RNIC_NL_COUNTER_RCVD_PKTS) - rcvd[0]);
	for (i = 0; i < 2; i++)
		for (j = 0; j < ARRAY_SIZE(zero); j++)
			ASSERT_EQ(0, w_counter(_metadata, &self->s[i], zero[j]))
				TH_LOG("host %u: %s", i,
				       rnic_counter_name(zero[j]));
}

/*
 * Fault injection's delay on the wire: every packet host 0 sends is held
 * back 100 ms and counted (the QPs' timeout, 268 ms, is longer: nothing
 * is sent again), and the message arrives intact after that. Then a
 * packet held for a second when the netdev goes: removing the veth
 * removes both devices and frees the packet unsent. Its route holds the
 * netdev (had it leaked, "ip link del" would wait for ever) and its
 * timer points into the device (had it run later: a use after free, in
 * the kernel log).
 */
TEST_F(wire, fault_delay)
{
	struct rnic_link_fault f = {
		.has = UINT32_C(1) << RNIC_NL_FAULT_DELAY |
		       UINT32_C(1) << RNIC_NL_FAULT_DELAY_US,
	};
	struct rnic_link_info info;
	struct dp_sgl sgl;
	struct dp_wr w = { .op = IBV_WR_SEND, .wr_id = 9, .sgl = &sgl };
	long start, took;
	int i;

	f.val[RNIC_NL_FAULT_DELAY] = 1000000;
	f.val[RNIC_NL_FAULT_DELAY_US] = 100000;
	self->o.timeout = 16;
	w_pair(_metadata, self, IBV_QPT_RC);
	ASSERT_EQ(0, rnic_link_set_fault(self->s[0].g, self->s[0].dev, &f));
	start = dp_now_ms();
	w_send(_metadata, self, 0, 3 * w_mtu(self), 1, false, false);
	took = dp_now_ms() - start;
	ASSERT_LE(100, took);
	ASSERT_EQ(3, w_counter(_metadata, &self->s[0],
			       RNIC_NL_COUNTER_FAULT_DELAY));
	ASSERT_EQ(0, w_counter(_metadata, &self->s[0],
			       RNIC_NL_COUNTER_COMPLETER_RETRY_ERR));

	f.val[RNIC_NL_FAULT_DELAY_US] = 1000000;
	ASSERT_EQ(0, rnic_link_set_fault(self->s[0].g, self->s[0].dev, &f));
	dp_sgl_one(&self->s[0].sbuf, 0, 8, &sgl);
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_EQ(0, setns(self->s[0].nsfd, CLONE_NEWNET));
	start = dp_now_ms();
	ASSERT_EQ(0, rnic_sh("ip link del %s", w_netdev[0]));
	took = dp_now_ms() - start;
	ASSERT_EQ(0, setns(self->init_ns, CLONE_NEWNET));
	for (i = 0; i < 2; i++) {
		ASSERT_NE(0, rnic_link_get(self->s[i].g, self->s[i].dev,
					   &info));
		self->s[i].dev[0] = '\0';
	}
	TH_LOG("the netdev went in %ld ms, holding a packet for 1000", took);
}

/* Hold every packet host 0 sends for @us microseconds. */
static void w_delay_all(struct __test_metadata *_metadata,
			FIXTURE_DATA(wire) *self, uint32_t us)
{
	struct rnic_link_fault f = {
		.has = UINT32_C(1) << RNIC_NL_FAULT_DELAY |
		       UINT32_C(1) << RNIC_NL_FAULT_DELAY_US,
	};

	f.val[RNIC_NL_FAULT_DELAY] = 1000000;
	f.val[RNIC_NL_FAULT_DELAY_US] = us;
	ASSERT_EQ(0, rnic_link_set_fault(self->s[0].g, self->s[0].dev, &f));
}

/*
 * An RC WRITE's payload leaves in fragments of the sender's own pages,
 * not a copy: bytes written into the buffer after the post (which an
 * application must not do before the completion) are what the held
 * packets carry, under the ICRC of the bytes posted, so the peer drops
 * each as damaged. The transport timer sends the WRITE again, built
 * anew from the buffer: it completes, and the peer has the new bytes.
 */
TEST_F(wire, zcopy_sends_pages)
{
	struct w_side *src = &self->s[0], *dst = &self->s[1];
	uint32_t len = 4 * w_mtu(self);
	struct dp_sgl ssgl, dsgl;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = IBV_WR_RDMA_WRITE, .wr_id = 4, .sgl = &ssgl,
		.raddr = (uintptr_t)dst->dbuf.mem, .rkey = dst->dbuf.mr->rkey,
	};

	self->o.timeout = 16;
	w_pair(_metadata, self, IBV_QPT_RC);
	w_delay_all(_metadata, self, 100000);
	dp_buf_guard(&dst->dbuf);
	dp_sgl_one(&src->sbuf, 0, len, &ssgl);
	dp_sgl_fill(&ssgl, 1, 0);
	dp_sgl_one(&dst->dbuf, 0, len, &dsgl);
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	dp_sgl_fill(&ssgl, 2, 0);
	ASSERT_POLL1(src->scq, &wc);
	ASSERT_WC(&wc, 4, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	ASSERT_SGL(&dst->dbuf, &dsgl, 0, len, 2);
	ASSERT_LE(4, w_counter(_metadata, dst, RNIC_NL_COUNTER_DROP_BAD_ICRC));
	ASSERT_LE(1, w_counter(_metadata, src,
			       RNIC_NL_COUNTER_COMPLETER_RETRY_ERR));
}

/*
 * Pages in flight outlive their MR and mapping: a WRITE is held in the
 * sender's queue while its QP is destroyed, its MR deregistered and its
 * buffer unmapped, and the pages freed so are written over, if the
 * kernel hands them out again, by new memory of the process's own. The
 * packets, sent later, still carry the bytes posted, and the peer places
 * them.
 */
TEST_F(wire, zcopy_pages_outlive_mr)
{
	struct w_side *src = &self->s[0], *dst = &self->s[1];
	uint32_t len = 4 * w_mtu(self);
	size_t churn = 64u << 20;
	struct dp_sgl ssgl, dsgl;
	struct dp_buf b;
	struct dp_wr w = {
		.op = IBV_WR_RDMA_WRITE, .wr_id = 5, .sgl = &ssgl,
		.raddr = (uintptr_t)dst->dbuf.mem, .rkey = dst->dbuf.mr->rkey,
	};
	long end;
	void *m;

	w_pair(_metadata, self, IBV_QPT_RC);
	w_delay_all(_metadata, self, 300000);
	dp_buf_guard(&dst->dbuf);
	do_buf_alloc(src->pd, len, DP_ACCESS_ALL, &b);
	dp_sgl_one(&b, 0, len, &ssgl);
	dp_sgl_fill(&ssgl, 3, 0);
	dp_sgl_one(&dst->dbuf, 0, len, &dsgl);
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_EQ(0, ibv_destroy_qp(self->p.qp[0]));
	self->p.qp[0] = NULL;
	ASSERT_EQ(0, dp_buf_free(&b));
	m = mmap(NULL, churn, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	memset(m, 0xee, churn);
	munmap(m, churn);
	end = dp_now_ms() + W_WAIT_MS;
	while (dp_sgl_verify(&dst->dbuf, &dsgl, 0, len, 3) >= 0 &&
	       dp_now_ms() < end)
		usleep(10000);
	ASSERT_SGL(&dst->dbuf, &dsgl, 0, len, 3);
	ASSERT_EQ(0, w_counter(_metadata, dst, RNIC_NL_COUNTER_DROP_BAD_ICRC));
}

/*
 * An address the kernel does not route through the bound netdev is
 * unreachable: no AH, and the QP stays in INIT.
 */
TEST_F(wire, unreachable)
{
	static const uint8_t far4[16] = {
		[10] = 0xff, [11] = 0xff, 10, 78, 0, 9
	};
	static const uint8_t far6[16] = { 0xfd, 0x78, [15] = 9 };
	union ibv_gid far;
	struct ibv_qp *qp;

	memcpy(far.raw, variant->ipv6 ? far6 : far4, 16);
	errno = 0;
	ASSERT_EQ(NULL, dp_ah(self->s[0].pd, &far, self->s[0].gid_index));
	ASSERT_EQ(ENETUNREACH, errno);
	qp = do_ptr(dp_qp_create(self->s[0].pd, self->s[0].scq,
				 self->s[0].rcq, &self->o));
	ASSERT_EQ(0, dp_qp_init(qp, &self->o));
	ASSERT_EQ(ENETUNREACH, dp_qp_rtr(qp, &self->o, 2, &far,
					 self->s[0].gid_index, 0));
	ASSERT_EQ(IBV_QPS_INIT, dp_qp_state(qp));
	/* the peer's address is reachable from the same QP */
	ASSERT_EQ(0, dp_qp_rtr(qp, &self->o, 2, &self->s[1].gid,
			       self->s[0].gid_index, 0));
	ASSERT_EQ(0, ibv_destroy_qp(qp));
}

/*
 * A path MTU above what the bound netdev carries is refused (EINVAL), not
 * clamped: with MTU 1500 the port's active MTU is 1024.
 */
TEST_F(wire, path_mtu)
{
	struct ibv_port_attr port;
	struct ibv_qp *qp;

	ASSERT_EQ(0, setns(self->s[0].nsfd, CLONE_NEWNET));
	ASSERT_EQ(0, rnic_sh("ip link set %s mtu 1500", w_netdev[0]));
	ASSERT_EQ(0, setns(self->init_ns, CLONE_NEWNET));
	ASSERT_EQ(0, ibv_query_port(self->s[0].ctx, 1, &port));
	ASSERT_EQ(IBV_MTU_1024, port.active_mtu);
	qp = do_ptr(dp_qp_create(self->s[0].pd, self->s[0].scq,
				 self->s[0].rcq, &self->o));
	ASSERT_EQ(0, dp_qp_init(qp, &self->o));
	self->o.mtu = IBV_MTU_2048;
	ASSERT_EQ(EINVAL, dp_qp_rtr(qp, &self->o, 2, &self->s[1].gid,
				    self->s[0].gid_index, 0));
	ASSERT_EQ(IBV_QPS_INIT, dp_qp_state(qp));
	self->o.mtu = IBV_MTU_1024;
	ASSERT_EQ(0, dp_qp_rtr(qp, &self->o, 2, &self->s[1].gid,
			       self->s[0].gid_index, 0));
	ASSERT_EQ(0, ibv_destroy_qp(qp));
}

/*
 * rdma_rxe beside the udp link: rxe bound to a veth of the initial
 * namespace (where rxe works) is created with `rdma link add` and carries
 * rdma-core's traffic (rnic-perf built against rdma-core, client and
 * server on the rxe device) while the two rnic hosts exchange messages
 * over their own veth pair, before and after; neither stack takes the
 * other's packets (no drop counted on the rnic devices).
 */
FIXTURE(wire_rxe) {
	int init_ns;
	struct w_side s[2];
	bool have_rxe;
	char perf[PATH_MAX];
};

/* build/rdma-core/rnic-perf, beside this test's build/selftests. */
static void w_rxe_perf(char *path, size_t len)
{
	char self[PATH_MAX - 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	path[0] = '\0';
	if (n <= 0)
		return;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(path, len, "%s/../rdma-core/rnic-perf", self);
}

FIXTURE_SETUP(wire_rxe)
{
	self->init_ns = w_self_ns();
	ASSERT_LE(0, self->init_ns);
	w_rxe_perf(self->perf, sizeof(self->perf));
	self->have_rxe = !rnic_sh("modprobe rdma_rxe 2>/dev/null") &&
			 !access(self->perf, X_OK);
	w_hosts_setup(_metadata, self->init_ns, self->s, false, "x");
	if (!self->have_rxe)
		return;
	ASSERT_EQ(0, rnic_sh("ip link add t_wx0 type veth peer name t_wx1 && ip addr add 10.78.0.1/24 dev t_wx0 && ip link set t_wx0 up && ip link set t_wx1 up"));
	ASSERT_EQ(0, rnic_sh("rdma link add t_wrxe0 type rxe netdev t_wx0"));
}

FIXTURE_TEARDOWN(wire_rxe)
{
	w_hosts_teardown(_metadata, self->init_ns, self->s);
	if (self->have_rxe) {
		rnic_sh("rdma link del t_wrxe0 2>/dev/null");
		rnic_sh("ip link del t_wx0 2>/dev/null");
	}
	close(self->init_ns);
}

/* An RC SEND each way between the rnic hosts; data checked. */
static void w_rxe_rnic_traffic(struct __test_metadata *_metadata,
			       struct w_side *s)
{
	FIXTURE_DATA(wire) w = { .s = { s[0], s[1] } };
	int from;

	w.o = dp_opts(IBV_QPT_RC);
	w_pair(_metadata, &w, IBV_QPT_RC);
	for (from = 0; from < 2; from++)
		w_send(_metadata, &w, from, 3000, 2, true, false);
	dp_pair_close(_metadata, &w.p);
}

TEST_F_TIMEOUT(wire_rxe, coexist, 120)
{
	static const char *const env = "env -u LD_LIBRARY_PATH";
	const char *perf = self->perf;
	unsigned int i;

	if (!self->have_rxe)
		SKIP(return, "no rdma_rxe or no rnic-perf built against rdma-core");
	w_rxe_rnic_traffic(_metadata, self->s);
	ASSERT_EQ(0, rnic_sh("%s timeout 30 %s write_lat -d t_wrxe0 -p 18601 -n 100 >/dev/null 2>&1 & sleep 0.5; %s timeout 30 %s write_lat -d t_wrxe0 -p 18601 -n 100 10.78.0.1 >/dev/null 2>&1 && wait $!",
			     env, perf, env, perf));
	w_rxe_rnic_traffic(_metadata, self->s);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, w_counter(_metadata, &self->s[i],
				       RNIC_NL_COUNTER_DROP_BAD_HEADER));
		ASSERT_EQ(0, w_counter(_metadata, &self->s[i],
				       RNIC_NL_COUNTER_DROP_BAD_ICRC));
		ASSERT_EQ(0, w_counter(_metadata, &self->s[i],
				       RNIC_NL_COUNTER_SEND_ERR));
	}
}

TEST_HARNESS_MAIN
