// SPDX-License-Identifier: GPL-2.0
/*
 * Routes and dispatch on the local link: a destination no rnic device of
 * the namespace owns is unreachable (ENETUNREACH at modify to RTR); QP
 * numbers are per device, from 2 on (0 and 1 are never a user QP's), so
 * two devices hand out the same numbers and a packet goes to the device
 * that owns its destination GID, then to its QP of that number; a GID
 * that leaves the peer device after RTR stops delivery (RC retries run
 * out); a packet to QP 1, the GSI endpoint, is dropped and counted.
 *
 * Two devices, each bound to a dummy netdev of its own with one IPv4
 * address: their GIDs ::ffff:10.79.0.1 (A) and ::ffff:10.79.1.1 (B).
 */
#include "rnic_dp_test.h"

#define NQPS		64
#define MSG		64

static const char *const devs[2] = { "t_rt_a", "t_rt_b" };
static const char *const netdevs[2] = { "t_rt0", "t_rt1" };

struct rt_side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	union ibv_gid gid;
	int gid_index;
	struct dp_buf buf;
};

FIXTURE(route) {
	struct rnic_genl *g;
	struct rt_side s[2];
};

/* The GID of 10.79.@net.1: wait up to 5 s for it; its index, or -1. */
static int rt_gid_index(struct ibv_context *ctx, uint8_t net)
{
	const uint8_t gid[16] = {
		[10] = 0xff, [11] = 0xff, 10, 79, net, 1
	};
	long end = dp_now_ms() + 5000;
	int i;

	while ((i = dp_find_gid(ctx, gid)) < 0 && dp_now_ms() < end)
		usleep(10000);
	return i;
}

static void rt_netdevs_del(void)
{
	rnic_sh("ip link del t_rt0 2>/dev/null; ip link del t_rt1 2>/dev/null");
}

FIXTURE_SETUP(route)
{
	struct rt_side *s;
	int i;

	self->g = rnic_genl_open();
	ASSERT_NE(NULL, self->g);
	ASSERT_EQ(0, rnic_del_all(self->g));
	rt_netdevs_del();
	for (i = 0; i < 2; i++) {
		s = &self->s[i];
		ASSERT_EQ(0, rnic_sh("ip link add %s type dummy && "
				     "ip link set %s up && "
				     "ip addr add 10.79.%d.1/24 dev %s",
				     netdevs[i], netdevs[i], i, netdevs[i]));
		ASSERT_EQ(0, rnic_link_add(self->g, devs[i], netdevs[i]))
			TH_LOG("%s", rnic_genl_errmsg(self->g));
		s->ctx = rnic_ibv_open(devs[i]);
		ASSERT_NE(NULL, s->ctx);
		s->pd = ibv_alloc_pd(s->ctx);
		ASSERT_NE(NULL, s->pd);
		s->scq = ibv_create_cq(s->ctx, DP_CQE, NULL, NULL, 0);
		ASSERT_NE(NULL, s->scq);
		s->rcq = ibv_create_cq(s->ctx, DP_CQE, NULL, NULL, 0);
		ASSERT_NE(NULL, s->rcq);
		s->gid_index = rt_gid_index(s->ctx, i);
		ASSERT_LE(0, s->gid_index);
		ASSERT_EQ(0, ibv_query_gid(s->ctx, 1, s->gid_index, &s->gid));
		ASSERT_EQ(0, dp_buf_alloc(s->pd, 4096, DP_ACCESS_ALL, &s->buf));
	}
}

FIXTURE_TEARDOWN(route)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (self->s[i].buf.mr)
			EXPECT_EQ(0, dp_buf_free(&self->s[i].buf));
		if (self->s[i].ctx)
			EXPECT_EQ(0, ibv_close_device(self->s[i].ctx));
	}
	if (self->g) {
		EXPECT_EQ(0, rnic_del_all(self->g));
		rnic_genl_close(self->g);
	}
	rt_netdevs_del();
}

static struct ibv_qp *rt_qp(struct rt_side *s, const struct dp_qp_opts *o)
{
	return dp_qp_create(s->pd, s->scq, s->rcq, o);
}

static uint64_t rt_counter(struct __test_metadata *_metadata,
			   FIXTURE_DATA(route) *self, int side,
			   enum rnic_nl_counter c)
{
	struct rnic_stat_info info;

	EXPECT_EQ(0, rnic_stat_get(self->g, devs[side], &info));
	EXPECT_TRUE(info.has & (UINT64_C(1) << c))
		TH_LOG("STAT_GET has no counter %s", rnic_counter_name(c));
	return info.counters[c];
}

/* MSG bytes of pattern @seed at offset @off of @s's buffer, as @sgl. */
static void rt_fill(struct rt_side *s, size_t off, uint32_t seed,
		    struct dp_sgl *sgl)
{
	dp_sgl_one(&s->buf, off, MSG, sgl);
	dp_fill(s->buf.mem + off, MSG, seed, 0);
}

/*
 * A fresh device's first QP is number 2; numbers go up from there, 0 and
 * 1 never among them, and a destroyed QP's number is not handed out again
 * soon. The other device, fresh too, also starts at 2.
 */
TEST_F(route, qp_numbers_per_device_from_2)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct ibv_qp *qp[NQPS], *b, *again;
	int i;

	o.max_send_wr = o.max_recv_wr = 1;
	for (i = 0; i < NQPS; i++) {
		qp[i] = rt_qp(&self->s[0], &o);
		ASSERT_NE(NULL, qp[i]);
		ASSERT_EQ(2 + i, qp[i]->qp_num);
	}
	b = rt_qp(&self->s[1], &o);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(2, b->qp_num);
	for (i = 0; i < NQPS; i++)
		ASSERT_EQ(0, ibv_destroy_qp(qp[i]));
	again = rt_qp(&self->s[0], &o);
	ASSERT_NE(NULL, again);
	EXPECT_EQ(2 + NQPS, again->qp_num);
	EXPECT_EQ(0, ibv_destroy_qp(again));
	EXPECT_EQ(0, ibv_destroy_qp(b));
}

/*
 * RC QP 2 of A connected to RC QP 2 of B: each message lands on the
 * other device's QP 2, never on the sender's own QP 2; a UD datagram
 * from A to QP 3 at B's GID lands on B's QP 3, not on A's.
 */
TEST_F(route, same_qpn_on_two_devices)
{
	struct rt_side *a = &self->s[0], *b = &self->s[1];
	struct dp_qp_opts rc = dp_opts(IBV_QPT_RC);
	struct dp_qp_opts ud = dp_opts(IBV_QPT_UD);
	struct ibv_qp *arc, *brc, *aud, *bud;
	struct dp_sgl src, dst;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	int i;

	arc = rt_qp(a, &rc);
	brc = rt_qp(b, &rc);
	ASSERT_NE(NULL, arc);
	ASSERT_NE(NULL, brc);
	ASSERT_EQ(2, arc->qp_num);
	ASSERT_EQ(2, brc->qp_num);
	ASSERT_EQ(0, dp_qp_connect(arc, &rc, 2, &b->gid, a->gid_index,
				   0x10, 0x20, false));
	ASSERT_EQ(0, dp_qp_connect(brc, &rc, 2, &a->gid, b->gid_index,
				   0x20, 0x10, false));
	/* A receive on each QP 2: a message for the wrong one would take it. */
	dp_sgl_one(&a->buf, 1024, MSG, &dst);
	ASSERT_EQ(0, dp_post_recv(arc, &dst, 80));
	dp_sgl_one(&b->buf, 1024, MSG, &dst);
	ASSERT_EQ(0, dp_post_recv(brc, &dst, 81));
	for (i = 0; i < 2; i++) {
		struct rt_side *from = &self->s[i], *to = &self->s[!i];

		rt_fill(from, 2048, 7 + i, &src);
		ASSERT_EQ(0, dp_post(i ? brc : arc, &(struct dp_wr){
			.op = IBV_WR_SEND, .wr_id = 1, .sgl = &src }));
		ASSERT_POLL1(from->scq, &wc);
		ASSERT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
		ASSERT_POLL1(to->rcq, &wc);
		ASSERT_WC(&wc, 80 + !i, IBV_WC_SUCCESS, IBV_WC_RECV);
		EXPECT_EQ(MSG, wc.byte_len);
		EXPECT_EQ(-1, dp_check(to->buf.mem + 1024, MSG, 7 + i, 0));
		/* The sender's own QP 2 got nothing. */
		ASSERT_QUIET(from->rcq);
	}

	aud = rt_qp(a, &ud);
	bud = rt_qp(b, &ud);
	ASSERT_NE(NULL, aud);
	ASSERT_NE(NULL, bud);
	ASSERT_EQ(3, aud->qp_num);
	ASSERT_EQ(3, bud->qp_num);
	ASSERT_EQ(0, dp_qp_connect(aud, &ud, 0, &a->gid, a->gid_index, 0, 0,
				   false));
	ASSERT_EQ(0, dp_qp_connect(bud, &ud, 0, &b->gid, b->gid_index, 0, 0,
				   false));
	dp_sgl_one(&a->buf, 0, MSG + DP_GRH, &dst);
	ASSERT_EQ(0, dp_post_recv(aud, &dst, 92));
	dp_sgl_one(&b->buf, 0, MSG + DP_GRH, &dst);
	ASSERT_EQ(0, dp_post_recv(bud, &dst, 93));
	ah = dp_ah(a->pd, &b->gid, a->gid_index);
	ASSERT_NE(NULL, ah);
	rt_fill(a, 2048, 9, &src);
	ASSERT_EQ(0, dp_post(aud, &(struct dp_wr){
		.op = IBV_WR_SEND, .wr_id = 2, .sgl = &src, .ah = ah,
		.rqpn = 3, .qkey = ud.qkey }));
	ASSERT_POLL1(a->scq, &wc);
	ASSERT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(b->rcq, &wc);
	ASSERT_WC(&wc, 93, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(MSG + DP_GRH, wc.byte_len);
	EXPECT_EQ(3, wc.src_qp);
	EXPECT_EQ(-1, dp_check(b->buf.mem + DP_GRH, MSG, 9, 0));
	ASSERT_QUIET(a->rcq);

	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(0, ibv_destroy_qp(aud));
	EXPECT_EQ(0, ibv_destroy_qp(bud));
	EXPECT_EQ(0, ibv_destroy_qp(arc));
	EXPECT_EQ(0, ibv_destroy_qp(brc));
}

/*
 * Modify to RTR towards a GID no device of the namespace owns fails with
 * ENETUNREACH, and the QP stays in INIT; once B owns it, it succeeds.
 */
TEST_F(route, rtr_to_unreachable_gid)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	union ibv_gid far = self->s[1].gid;
	struct ibv_qp *qp;
	long end;
	int ret;

	far.raw[15] = 2;	/* 10.79.1.2: nobody's */
	qp = rt_qp(&self->s[0], &o);
	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, dp_qp_init(qp, &o));
	EXPECT_EQ(ENETUNREACH, dp_qp_rtr(qp, &o, 2, &far,
					 self->s[0].gid_index, 0));
	EXPECT_EQ(IBV_QPS_INIT, dp_qp_state(qp));

	ASSERT_EQ(0, rnic_sh("ip addr add 10.79.1.2/24 dev t_rt1"));
	end = dp_now_ms() + 5000;
	while ((ret = dp_qp_rtr(qp, &o, 2, &far, self->s[0].gid_index, 0)) ==
	       ENETUNREACH && dp_now_ms() < end)
		usleep(10000);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(IBV_QPS_RTR, dp_qp_state(qp));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
}

/*
 * A and B connected over B's GID; a SEND arrives. Then B's address goes:
 * the next SEND is not delivered, A's retries run out
 * (IBV_WC_RETRY_EXC_ERR) and B sees nothing.
 */
TEST_F(route, peer_gid_removed_after_rtr)
{
	struct rt_side *a = &self->s[0], *b = &self->s[1];
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_qp *aqp, *bqp;
	struct dp_sgl src, dst;
	struct ibv_wc wc;

	o.timeout = 10;
	o.retry_cnt = 1;
	aqp = rt_qp(a, &o);
	bqp = rt_qp(b, &o);
	ASSERT_NE(NULL, aqp);
	ASSERT_NE(NULL, bqp);
	ASSERT_EQ(0, dp_qp_connect(aqp, &o, bqp->qp_num, &b->gid,
				   a->gid_index, 0x10, 0x20, false));
	ASSERT_EQ(0, dp_qp_connect(bqp, &o, aqp->qp_num, &a->gid,
				   b->gid_index, 0x20, 0x10, false));
	dp_sgl_one(&b->buf, 0, MSG, &dst);
	ASSERT_EQ(0, dp_post_recv(bqp, &dst, 90));
	ASSERT_EQ(0, dp_post_recv(bqp, &dst, 91));
	rt_fill(a, 0, 5, &src);
	ASSERT_EQ(0, dp_post(aqp, &(struct dp_wr){
		.op = IBV_WR_SEND, .wr_id = 1, .sgl = &src }));
	ASSERT_POLL1(a->scq, &wc);
	ASSERT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(b->rcq, &wc);
	ASSERT_WC(&wc, 90, IBV_WC_SUCCESS, IBV_WC_RECV);

	ASSERT_EQ(0, rnic_sh("ip addr del 10.79.1.1/24 dev t_rt1"));
	ASSERT_GT(0, dp_find_gid(b->ctx, b->gid.raw));
	ASSERT_EQ(0, dp_post(aqp, &(struct dp_wr){
		.op = IBV_WR_SEND, .wr_id = 2, .sgl = &src }));
	ASSERT_POLL1(a->scq, &wc);
	ASSERT_WC(&wc, 2, IBV_WC_RETRY_EXC_ERR, 0);
	ASSERT_QUIET(b->rcq);
	EXPECT_EQ(IBV_QPS_RTS, dp_qp_state(bqp));
	EXPECT_EQ(0, ibv_destroy_qp(aqp));
	EXPECT_EQ(0, ibv_destroy_qp(bqp));
}

/*
 * A UD datagram to QP 1 of B, the GSI endpoint, completes at the sender
 * and is dropped and counted by B (RNIC_NL_COUNTER_GSI_DROPPED), once
 * per datagram; A counts nothing, and B's own UD QP gets nothing.
 */
TEST_F(route, qpn1_dropped_and_counted)
{
	struct rt_side *a = &self->s[0], *b = &self->s[1];
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	uint64_t a0, b0;
	struct ibv_qp *aqp, *bqp;
	struct dp_sgl src, dst;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	int i;

	aqp = rt_qp(a, &o);
	bqp = rt_qp(b, &o);
	ASSERT_NE(NULL, aqp);
	ASSERT_NE(NULL, bqp);
	ASSERT_EQ(0, dp_qp_connect(aqp, &o, 0, &a->gid, a->gid_index, 0, 0,
				   false));
	ASSERT_EQ(0, dp_qp_connect(bqp, &o, 0, &b->gid, b->gid_index, 0, 0,
				   false));
	dp_sgl_one(&b->buf, 0, MSG + DP_GRH, &dst);
	ASSERT_EQ(0, dp_post_recv(bqp, &dst, 90));
	ah = dp_ah(a->pd, &b->gid, a->gid_index);
	ASSERT_NE(NULL, ah);
	a0 = rt_counter(_metadata, self, 0, RNIC_NL_COUNTER_GSI_DROPPED);
	b0 = rt_counter(_metadata, self, 1, RNIC_NL_COUNTER_GSI_DROPPED);
	rt_fill(a, 0, 3, &src);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, dp_post(aqp, &(struct dp_wr){
			.op = IBV_WR_SEND, .wr_id = i, .sgl = &src, .ah = ah,
			.rqpn = 1, .qkey = o.qkey }));
		ASSERT_POLL1(a->scq, &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_SEND);
	}
	EXPECT_EQ(b0 + 3, rt_counter(_metadata, self, 1,
				     RNIC_NL_COUNTER_GSI_DROPPED));
	EXPECT_EQ(a0, rt_counter(_metadata, self, 0,
				 RNIC_NL_COUNTER_GSI_DROPPED));
	ASSERT_QUIET(b->rcq);

	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(0, ibv_destroy_qp(aqp));
	EXPECT_EQ(0, ibv_destroy_qp(bqp));
}

TEST_HARNESS_MAIN
