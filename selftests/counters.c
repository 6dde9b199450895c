// SPDX-License-Identifier: GPL-2.0
/*
 * The device counters of RNIC_NL_CMD_STAT_GET count exactly what the data
 * path did: UD datagrams sent and received, and each reason a datagram
 * was dropped (a wrong Q_Key, a QP that is gone, a QP that does not
 * receive yet, no receive posted: UD and UC alike); an RC SEND that
 * finds no receive is an RNR NAK sent, an RNR NAK received and, with no
 * RNR retry, a work request failed. Every other counter stays where it
 * was.
 */
#include "rnic_dp_test.h"

#define DEV		"t_stat"
#define STAT_MSG	100
#define STAT_N		5

FIXTURE(stat) {
	struct dp_env env;
	struct dp_pair p;
	struct dp_buf lb, rb;
	struct dp_sgl ls, rs;
	struct rnic_stat_info *before, *after;
};

FIXTURE_SETUP(stat)
{
	self->before = calloc(1, sizeof(*self->before));
	self->after = calloc(1, sizeof(*self->after));
	ASSERT_NE(NULL, self->before);
	ASSERT_NE(NULL, self->after);
	dp_env_open(_metadata, &self->env, DEV, NULL);
	do_buf_alloc(self->env.pd[0], 4096, DP_ACCESS_ALL, &self->lb);
	do_buf_alloc(self->env.pd[1], 4096, DP_ACCESS_ALL, &self->rb);
	dp_sgl_one(&self->lb, 0, STAT_MSG, &self->ls);
	dp_sgl_one(&self->rb, 0, STAT_MSG + DP_GRH, &self->rs);
}

FIXTURE_TEARDOWN(stat)
{
	EXPECT_EQ(0, dp_buf_free(&self->lb));
	EXPECT_EQ(0, dp_buf_free(&self->rb));
	dp_env_close(_metadata, &self->env);
	free(self->before);
	free(self->after);
}

static void stat_read(struct __test_metadata *_metadata,
		      FIXTURE_DATA(stat) *self, struct rnic_stat_info *info)
{
	ASSERT_EQ(0, rnic_stat_get(self->env.g, DEV, info));
	ASSERT_EQ(1, info->port);
	ASSERT_EQ((UINT64_C(1) << (RNIC_NL_COUNTER_MAX + 1)) - 2, info->has)
		TH_LOG("STAT_GET lacks counters: 0x%llx",
		       (unsigned long long)info->has);
}

/* Since the last stat_read() of self->before, counter @c grew by @n. */
#define ASSERT_GREW(c, n)						\
	ASSERT_EQ((uint64_t)(n), self->after->counters[c] -		\
				 self->before->counters[c])		\
		TH_LOG("%s grew by %llu", rnic_counter_name(c),		\
		       (unsigned long long)(self->after->counters[c] -	\
					    self->before->counters[c]))

/* Every counter but those in @mask stayed where it was. */
static void stat_others_still(struct __test_metadata *_metadata,
			      FIXTURE_DATA(stat) *self, uint64_t mask)
{
	unsigned int c;

	for (c = RNIC_NL_COUNTER_UNSPEC + 1; c <= RNIC_NL_COUNTER_MAX; c++)
		if (!(mask & (UINT64_C(1) << c)))
			EXPECT_EQ(self->before->counters[c],
				  self->after->counters[c])
				TH_LOG("%s moved", rnic_counter_name(c));
}

#define BIT_OF(c) (UINT64_C(1) << (c))

/* One signalled UD SEND from side 0 to QP @rqpn with Q_Key @qkey. */
static void stat_ud_send(struct __test_metadata *_metadata,
			 FIXTURE_DATA(stat) *self, uint32_t rqpn,
			 uint32_t qkey, uint64_t wr_id)
{
	struct dp_wr w = {
		.op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
		.sgl = &self->ls, .wr_id = wr_id, .ah = self->p.ah[0],
		.rqpn = rqpn, .qkey = qkey,
	};
	struct ibv_wc wc;

	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, wr_id, IBV_WC_SUCCESS, IBV_WC_SEND);
}

/* N datagrams: N packets sent and N received, on the one device. */
TEST_F(stat, ud_sends_counted)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct ibv_wc wc;
	int i;

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (i = 0; i < STAT_N; i++)
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &self->rs, i));
	stat_read(_metadata, self, self->before);
	for (i = 0; i < STAT_N; i++) {
		stat_ud_send(_metadata, self, self->p.qp[1]->qp_num, DP_QKEY,
			     i);
		ASSERT_POLL1(self->env.rcq[1], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_RECV);
	}
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_SENT_PKTS, STAT_N);
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_PKTS, STAT_N);
	stat_others_still(_metadata, self,
			  BIT_OF(RNIC_NL_COUNTER_SENT_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_RCVD_PKTS));
	dp_pair_close(_metadata, &self->p);
}

/* A wrong Q_Key: received, then dropped and counted; no completion. */
TEST_F(stat, ud_bad_qkey)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &self->rs, 1));
	stat_read(_metadata, self, self->before);
	stat_ud_send(_metadata, self, self->p.qp[1]->qp_num, DP_QKEY + 1, 7);
	ASSERT_QUIET(self->env.rcq[1]);
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_SENT_PKTS, 1);
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_PKTS, 1);
	ASSERT_GREW(RNIC_NL_COUNTER_DROP_BAD_QKEY, 1);
	stat_others_still(_metadata, self,
			  BIT_OF(RNIC_NL_COUNTER_SENT_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_RCVD_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_DROP_BAD_QKEY));
	dp_pair_close(_metadata, &self->p);
}

/* A datagram to a QP that was destroyed: sent, received by nobody. */
TEST_F(stat, ud_to_destroyed_qp)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct ibv_qp *gone;
	uint32_t qpn;

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	gone = dp_qp_create(self->env.pd[1], self->env.scq[1],
			    self->env.rcq[1], &o);
	ASSERT_NE(NULL, gone);
	qpn = gone->qp_num;
	ASSERT_EQ(0, ibv_destroy_qp(gone));
	stat_read(_metadata, self, self->before);
	stat_ud_send(_metadata, self, qpn, DP_QKEY, 8);
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_SENT_PKTS, 1);
	ASSERT_GREW(RNIC_NL_COUNTER_DROP_NO_QP, 1);
	stat_others_still(_metadata, self,
			  BIT_OF(RNIC_NL_COUNTER_SENT_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_DROP_NO_QP));
	dp_pair_close(_metadata, &self->p);
}

/* A datagram to a QP still in INIT: received, dropped for its state. */
TEST_F(stat, ud_to_qp_in_init)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct ibv_qp *init;

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	init = dp_qp_create(self->env.pd[1], self->env.scq[1],
			    self->env.rcq[1], &o);
	ASSERT_NE(NULL, init);
	ASSERT_EQ(0, dp_qp_init(init, &o));
	stat_read(_metadata, self, self->before);
	stat_ud_send(_metadata, self, init->qp_num, DP_QKEY, 9);
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_SENT_PKTS, 1);
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_PKTS, 1);
	ASSERT_GREW(RNIC_NL_COUNTER_DROP_QP_STATE, 1);
	stat_others_still(_metadata, self,
			  BIT_OF(RNIC_NL_COUNTER_SENT_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_RCVD_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_DROP_QP_STATE));
	ASSERT_EQ(0, ibv_destroy_qp(init));
	dp_pair_close(_metadata, &self->p);
}

/* A datagram and a UC message with no receive posted: dropped, counted. */
TEST_F(stat, ud_and_uc_without_receive)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_UD, IBV_QPT_UC };
	unsigned int t;

	for (t = 0; t < 2; t++) {
		struct dp_qp_opts o = dp_opts(types[t]);
		struct dp_wr w = {
			.op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			.sgl = &self->ls, .wr_id = 11,
		};
		struct ibv_wc wc;

		dp_pair_open(_metadata, &self->env, &o, &self->p);
		if (types[t] == IBV_QPT_UD) {
			w.ah = self->p.ah[0];
			w.rqpn = self->p.qp[1]->qp_num;
			w.qkey = DP_QKEY;
		}
		stat_read(_metadata, self, self->before);
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, 11, IBV_WC_SUCCESS, IBV_WC_SEND);
		ASSERT_QUIET(self->env.rcq[1]);
		stat_read(_metadata, self, self->after);
		ASSERT_GREW(RNIC_NL_COUNTER_SENT_PKTS, 1);
		ASSERT_GREW(RNIC_NL_COUNTER_RCVD_PKTS, 1);
		ASSERT_GREW(RNIC_NL_COUNTER_DROP_NO_WQE, 1);
		stat_others_still(_metadata, self,
				  BIT_OF(RNIC_NL_COUNTER_SENT_PKTS) |
				  BIT_OF(RNIC_NL_COUNTER_RCVD_PKTS) |
				  BIT_OF(RNIC_NL_COUNTER_DROP_NO_WQE));
		dp_pair_close(_metadata, &self->p);
	}
}

/*
 * An RC SEND with no receive posted and no RNR retry: the responder sends
 * an RNR NAK, the requester receives it and fails the work request.
 */
TEST_F(stat, rc_rnr_without_retry)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_wr w = {
		.op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
		.sgl = &self->ls, .wr_id = 3,
	};
	struct ibv_wc wc;

	o.rnr_retry = 0;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	stat_read(_metadata, self, self->before);
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 3, IBV_WC_RNR_RETRY_EXC_ERR, IBV_WC_SEND);
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_SEND_RNR_ERR, 1);
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_RNR_ERR, 1);
	ASSERT_GREW(RNIC_NL_COUNTER_RETRY_RNR_EXCEEDED_ERR, 1);
	/* the SEND and the RNR NAK */
	ASSERT_GREW(RNIC_NL_COUNTER_SENT_PKTS, 2);
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_PKTS, 2);
	stat_others_still(_metadata, self,
			  BIT_OF(RNIC_NL_COUNTER_SENT_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_RCVD_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_SEND_RNR_ERR) |
			  BIT_OF(RNIC_NL_COUNTER_RCVD_RNR_ERR) |
			  BIT_OF(RNIC_NL_COUNTER_RETRY_RNR_EXCEEDED_ERR));
	dp_pair_close(_metadata, &self->p);
}

/* A dump has the device; a GET of a missing one is ENODEV. */
static int stat_find(const void *stat, void *arg)
{
	const struct rnic_stat_info *info = stat;
	int *found = arg;

	if (!strcmp(info->name, DEV))
		(*found)++;
	return 0;
}

TEST_F(stat, dump_and_missing_device)
{
	int found = 0;

	ASSERT_EQ(0, rnic_genl_dump(self->env.g, RNIC_NL_CMD_STAT_GET, NULL,
				    rnic_stat_parse,
				    sizeof(struct rnic_stat_info), stat_find,
				    &found));
	ASSERT_EQ(1, found);
	ASSERT_EQ(-ENODEV, rnic_stat_get(self->env.g, "t_stat_nosuch",
					 self->before));
	ASSERT_STREQ("no such rnic device", rnic_genl_errmsg(self->env.g));
}

TEST_HARNESS_MAIN
