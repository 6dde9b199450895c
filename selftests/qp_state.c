// SPDX-License-Identifier: GPL-2.0
/*
 * The QP state machine, table-driven: for every QP type and transition
 * of the IB specification's QP state table, the minimal and the full set
 * of attributes work, each required attribute missing is EINVAL, each
 * attribute not allowed is EINVAL, and a refused modify changes nothing.
 * Then the transitions that do not exist, the moves to RESET and ERR from
 * every state, IBV_QP_CUR_STATE, and query after each step.
 *
 * SQE cannot be reached without the data path (a UC/UD send error): its
 * way back to RTS is not exercised here.
 */
#include <infiniband/verbs.h>

#include "rnic_verbs_test.h"

#define DEV "t_qps"

/* Every bit of enum ibv_qp_attr_mask, and some that are not. */
static const int all_bits[] = {
	IBV_QP_STATE, IBV_QP_CUR_STATE, IBV_QP_EN_SQD_ASYNC_NOTIFY,
	IBV_QP_ACCESS_FLAGS, IBV_QP_PKEY_INDEX, IBV_QP_PORT, IBV_QP_QKEY,
	IBV_QP_AV, IBV_QP_PATH_MTU, IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT,
	IBV_QP_RNR_RETRY, IBV_QP_RQ_PSN, IBV_QP_MAX_QP_RD_ATOMIC,
	IBV_QP_ALT_PATH, IBV_QP_MIN_RNR_TIMER, IBV_QP_SQ_PSN,
	IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_PATH_MIG_STATE, IBV_QP_CAP,
	IBV_QP_DEST_QPN, 1 << 21, 1 << 24, IBV_QP_RATE_LIMIT, 1 << 26,
	1 << 30,
};

#define NBITS (sizeof(all_bits) / sizeof(all_bits[0]))

/* The attribute sets of the IB QP state table, written out for the test. */
#define INIT_RC (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define INIT_UD (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)
#define RTR_UC (IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)
#define RTR_RC (RTR_UC | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTS_RC (IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)
#define CHG_RC (IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | \
		IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE)
#define CHG_UC (IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE)
#define CHG_UD (IBV_QP_CUR_STATE | IBV_QP_QKEY)
#define SQD_RC (IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC | \
		IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ACCESS_FLAGS | \
		IBV_QP_PKEY_INDEX | IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE)
#define SQD_UC (IBV_QP_AV | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | \
		IBV_QP_PATH_MIG_STATE)
#define SQD_UD (IBV_QP_PKEY_INDEX | IBV_QP_QKEY)

/* Minimal masks that walk a QP of each type up the states. */
static int walk_mask(enum ibv_qp_type type, enum ibv_qp_state to)
{
	switch (to) {
	case IBV_QPS_INIT:
		return type == IBV_QPT_UD ? INIT_UD : INIT_RC;
	case IBV_QPS_RTR:
		return type == IBV_QPT_RC ? RTR_RC :
		       type == IBV_QPT_UC ? RTR_UC : 0;
	case IBV_QPS_RTS:
		return type == IBV_QPT_RC ? RTS_RC : IBV_QP_SQ_PSN;
	default:
		return 0;
	}
}

/* Valid values for every attribute, moving to @to, believed in @from. */
static void good_attr(struct ibv_qp_attr *a, const union ibv_gid *gid,
		      enum ibv_qp_state from, enum ibv_qp_state to)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = to;
	a->cur_qp_state = from;
	a->path_mtu = IBV_MTU_1024;
	a->path_mig_state = IBV_MIG_MIGRATED;
	a->qkey = 0x11111111;
	a->rq_psn = 0x123456;
	a->sq_psn = 0xabcdef;
	a->dest_qp_num = 0x654321;
	a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	a->cap.max_send_wr = 4;
	a->ah_attr.grh.dgid = *gid;
	a->ah_attr.grh.hop_limit = 64;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->alt_ah_attr = a->ah_attr;
	a->en_sqd_async_notify = 1;
	a->max_rd_atomic = 16;
	a->max_dest_rd_atomic = 8;
	a->min_rnr_timer = 12;
	a->port_num = 1;
	a->timeout = 14;
	a->retry_cnt = 6;
	a->rnr_retry = 7;
	a->alt_port_num = 1;
	a->alt_timeout = 14;
}

/* Did the QP keep @a's value for every attribute in @mask? */
static int attr_mismatch(const struct ibv_qp_attr *q, const struct ibv_qp_attr *a,
			 int mask)
{
#define CMP(bit, field) \
	do { if ((mask & (bit)) && q->field != a->field) return bit; } while (0)
	CMP(IBV_QP_STATE, qp_state);
	CMP(IBV_QP_ACCESS_FLAGS, qp_access_flags);
	CMP(IBV_QP_PKEY_INDEX, pkey_index);
	CMP(IBV_QP_PORT, port_num);
	CMP(IBV_QP_QKEY, qkey);
	CMP(IBV_QP_PATH_MTU, path_mtu);
	CMP(IBV_QP_TIMEOUT, timeout);
	CMP(IBV_QP_RETRY_CNT, retry_cnt);
	CMP(IBV_QP_RNR_RETRY, rnr_retry);
	CMP(IBV_QP_RQ_PSN, rq_psn);
	CMP(IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic);
	CMP(IBV_QP_MIN_RNR_TIMER, min_rnr_timer);
	CMP(IBV_QP_SQ_PSN, sq_psn);
	CMP(IBV_QP_MAX_DEST_RD_ATOMIC, max_dest_rd_atomic);
	CMP(IBV_QP_PATH_MIG_STATE, path_mig_state);
	CMP(IBV_QP_DEST_QPN, dest_qp_num);
	CMP(IBV_QP_EN_SQD_ASYNC_NOTIFY, en_sqd_async_notify);
#undef CMP
	if ((mask & IBV_QP_AV) &&
	    (memcmp(&q->ah_attr.grh.dgid, &a->ah_attr.grh.dgid, 16) ||
	     q->ah_attr.grh.hop_limit != a->ah_attr.grh.hop_limit ||
	     q->ah_attr.is_global != 1 || q->ah_attr.port_num != 1))
		return IBV_QP_AV;
	return 0;
}

FIXTURE(qps) {
	struct rnic_genl *g;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid gid;
};

FIXTURE_VARIANT(qps) {
	enum ibv_qp_type type;
	enum ibv_qp_state from;
	enum ibv_qp_state to;
	int req;
	int opt;
};

#define TR(name, t, f, n, r, o)						\
	FIXTURE_VARIANT_ADD(qps, name) {				\
		.type = IBV_QPT_##t, .from = IBV_QPS_##f,		\
		.to = IBV_QPS_##n, .req = (r), .opt = (o),		\
	}

TR(rc_reset_init, RC, RESET, INIT, INIT_RC, 0);
TR(rc_init_init, RC, INIT, INIT, 0, INIT_RC);
TR(rc_init_rtr, RC, INIT, RTR, RTR_RC, IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX);
TR(rc_rtr_rts, RC, RTR, RTS, RTS_RC, CHG_RC);
TR(rc_rts_rts, RC, RTS, RTS, 0, CHG_RC);
TR(rc_rts_sqd, RC, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY);
TR(rc_sqd_rts, RC, SQD, RTS, 0, CHG_RC);
TR(rc_sqd_sqd, RC, SQD, SQD, 0, SQD_RC);
TR(uc_reset_init, UC, RESET, INIT, INIT_RC, 0);
TR(uc_init_init, UC, INIT, INIT, 0, INIT_RC);
TR(uc_init_rtr, UC, INIT, RTR, RTR_UC, IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX);
TR(uc_rtr_rts, UC, RTR, RTS, IBV_QP_SQ_PSN, CHG_UC);
TR(uc_rts_rts, UC, RTS, RTS, 0, CHG_UC);
TR(uc_rts_sqd, UC, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY);
TR(uc_sqd_rts, UC, SQD, RTS, 0, CHG_UC);
TR(uc_sqd_sqd, UC, SQD, SQD, 0, SQD_UC);
TR(ud_reset_init, UD, RESET, INIT, INIT_UD, 0);
TR(ud_init_init, UD, INIT, INIT, 0, INIT_UD);
TR(ud_init_rtr, UD, INIT, RTR, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY);
TR(ud_rtr_rts, UD, RTR, RTS, IBV_QP_SQ_PSN, CHG_UD);
TR(ud_rts_rts, UD, RTS, RTS, 0, CHG_UD);
TR(ud_rts_sqd, UD, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY);
TR(ud_sqd_rts, UD, SQD, RTS, 0, CHG_UD);
TR(ud_sqd_sqd, UD, SQD, SQD, 0, SQD_UD);

FIXTURE_SETUP(qps)
{
	self->ctx = NULL;
	rnic_fixture_setup(_metadata, &self->g, NULL, DEV, NULL);
	self->ctx = do_ptr(rnic_ibv_open(DEV));
	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, 0, &self->gid));
	self->pd = do_ptr(ibv_alloc_pd(self->ctx));
	self->cq = do_ptr(ibv_create_cq(self->ctx, 16, NULL, NULL, 0));
}

FIXTURE_TEARDOWN(qps)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	rnic_fixture_teardown(_metadata, self->g, NULL);
}

static struct ibv_qp *new_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			     enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};

	return ibv_create_qp(pd, &init);
}

/* Walk @qp from RESET to @to with the minimal masks; 0 or an errno. */
static int walk(struct ibv_qp *qp, const union ibv_gid *gid,
		enum ibv_qp_state to)
{
	static const enum ibv_qp_state path[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD,
	};
	struct ibv_qp_attr a;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(path) / sizeof(path[0]) && path[i] <= to; i++) {
		good_attr(&a, gid, qp->state, path[i]);
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE |
				    walk_mask(qp->qp_type, path[i]));
		if (ret)
			return ret;
	}
	return 0;
}

static enum ibv_qp_state query_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr q;

	if (ibv_query_qp(qp, &q, IBV_QP_STATE, &init))
		return IBV_QPS_UNKNOWN;
	return q.qp_state;
}

TEST_F(qps, minimal_and_full_masks)
{
	int masks[] = { variant->req, variant->req | variant->opt };
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, q;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct ibv_qp *qp = new_qp(self->pd, self->cq, variant->type);

		ASSERT_NE(NULL, qp);
		ASSERT_EQ(0, walk(qp, &self->gid, variant->from));
		ASSERT_EQ(variant->from, query_state(qp));
		good_attr(&a, &self->gid, variant->from, variant->to);
		ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE | masks[i]))
			TH_LOG("mask %#x", masks[i]);
		EXPECT_EQ(variant->to, qp->state);
		ASSERT_EQ(0, ibv_query_qp(qp, &q, 0, &init));
		EXPECT_EQ(variant->to, q.qp_state);
		EXPECT_EQ(variant->to, q.cur_qp_state);
		EXPECT_EQ(0, attr_mismatch(&q, &a, masks[i]));
		EXPECT_EQ(0, q.sq_draining);
		EXPECT_EQ(variant->type, init.qp_type);
		EXPECT_EQ(0, ibv_destroy_qp(qp));
	}
}

/* Without IBV_QP_STATE a modify stays in the state: X -> X rules apply. */
TEST_F(qps, same_state_without_state_bit)
{
	struct ibv_qp *qp = new_qp(self->pd, self->cq, variant->type);
	struct ibv_qp_attr a;

	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, walk(qp, &self->gid, variant->from));
	if (variant->from != variant->to || !variant->opt)
		return;
	good_attr(&a, &self->gid, variant->from, IBV_QPS_ERR);
	EXPECT_EQ(0, ibv_modify_qp(qp, &a, variant->opt));
	EXPECT_EQ(variant->from, query_state(qp));
}

TEST_F(qps, missing_required_attribute)
{
	struct ibv_qp *qp = new_qp(self->pd, self->cq, variant->type);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, before, after;
	unsigned int i;

	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, walk(qp, &self->gid, variant->from));
	ASSERT_EQ(0, ibv_query_qp(qp, &before, 0, &init));
	good_attr(&a, &self->gid, variant->from, variant->to);
	for (i = 0; i < NBITS; i++) {
		int mask = IBV_QP_STATE | variant->req | variant->opt;

		if (!(variant->req & all_bits[i]))
			continue;
		EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask & ~all_bits[i]))
			TH_LOG("without %#x", all_bits[i]);
	}
	/* Nothing changed. */
	ASSERT_EQ(0, ibv_query_qp(qp, &after, 0, &init));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	EXPECT_EQ(variant->from, qp->state);
}

TEST_F(qps, attribute_not_allowed)
{
	struct ibv_qp *qp = new_qp(self->pd, self->cq, variant->type);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, before, after;
	int allowed = IBV_QP_STATE | variant->req | variant->opt;
	unsigned int i;

	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, walk(qp, &self->gid, variant->from));
	ASSERT_EQ(0, ibv_query_qp(qp, &before, 0, &init));
	good_attr(&a, &self->gid, variant->from, variant->to);
	for (i = 0; i < NBITS; i++) {
		if (allowed & all_bits[i])
			continue;
		EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, allowed | all_bits[i]))
			TH_LOG("with %#x", all_bits[i]);
	}
	ASSERT_EQ(0, ibv_query_qp(qp, &after, 0, &init));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
}

/* IBV_QP_CUR_STATE must name the state the QP is in. */
TEST_F(qps, wrong_current_state)
{
	struct ibv_qp *qp = new_qp(self->pd, self->cq, variant->type);
	struct ibv_qp_attr a;

	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, walk(qp, &self->gid, variant->from));
	if (!(variant->opt & IBV_QP_CUR_STATE))
		return;
	good_attr(&a, &self->gid, IBV_QPS_SQE, variant->to);
	if (variant->from == IBV_QPS_SQE)
		a.cur_qp_state = IBV_QPS_RTS;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE | variant->req |
					IBV_QP_CUR_STATE));
	a.cur_qp_state = IBV_QPS_UNKNOWN;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE | variant->req |
					IBV_QP_CUR_STATE));
	EXPECT_EQ(variant->from, query_state(qp));
	a.cur_qp_state = variant->from;
	EXPECT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE | variant->req |
				   IBV_QP_CUR_STATE));
	EXPECT_EQ(variant->to, query_state(qp));
}

/* From the variant's state: to RESET (always) and to ERR (not from RESET). */
TEST_F(qps, reset_and_error_from_any_state)
{
	struct ibv_qp *qp = new_qp(self->pd, self->cq, variant->type);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, q;

	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, walk(qp, &self->gid, variant->from));

	good_attr(&a, &self->gid, variant->from, IBV_QPS_ERR);
	/* Nothing but the state. */
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX));
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE));
	if (variant->from == IBV_QPS_RESET) {
		EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	} else {
		EXPECT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
		EXPECT_EQ(IBV_QPS_ERR, query_state(qp));
		/* ERR -> ERR, and nowhere else but RESET. */
		EXPECT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
		a.qp_state = IBV_QPS_INIT;
		EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE |
						walk_mask(variant->type,
							  IBV_QPS_INIT)));
		a.qp_state = IBV_QPS_RTS;
		EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE |
						IBV_QP_SQ_PSN));
	}

	a.qp_state = IBV_QPS_RESET;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT));
	EXPECT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	/* RESET forgets every attribute, and the QP starts over. */
	ASSERT_EQ(0, ibv_query_qp(qp, &q, 0, &init));
	EXPECT_EQ(IBV_QPS_RESET, q.qp_state);
	EXPECT_EQ(0, q.qkey);
	EXPECT_EQ(0, q.port_num);
	EXPECT_EQ(0, q.sq_psn);
	EXPECT_EQ(0, q.dest_qp_num);
	EXPECT_EQ(0, q.ah_attr.is_global);
	EXPECT_EQ(0, q.qp_access_flags);
	EXPECT_EQ(0, walk(qp, &self->gid, IBV_QPS_RTS));
	EXPECT_EQ(IBV_QPS_RTS, query_state(qp));
}

/* Every (from, to) pair the table does not have is EINVAL. */
TEST_F(qps, transitions_that_do_not_exist)
{
	static const enum ibv_qp_state states[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
		IBV_QPS_SQD, IBV_QPS_SQE, IBV_QPS_ERR,
	};
	struct ibv_qp *qp = new_qp(self->pd, self->cq, variant->type);
	struct ibv_qp_attr a;
	unsigned int i;

	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, walk(qp, &self->gid, variant->from));
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		enum ibv_qp_state to = states[i];
		bool exists;

		exists = to == IBV_QPS_RESET ||
			 (to == IBV_QPS_ERR && variant->from != IBV_QPS_RESET) ||
			 (to == variant->from && to != IBV_QPS_RTR) ||
			 to == variant->from + 1 ||
			 (variant->from == IBV_QPS_SQD && to == IBV_QPS_RTS);
		if (to == IBV_QPS_SQE)
			exists = false;
		if (exists)
			continue;
		good_attr(&a, &self->gid, variant->from, to);
		/* With whatever a transition into @to could need. */
		EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE))
			TH_LOG("%d -> %d", variant->from, to);
		EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE |
						walk_mask(variant->type, to)))
			TH_LOG("%d -> %d", variant->from, to);
	}
	a.qp_state = 7;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	a.qp_state = 100;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(variant->from, query_state(qp));
}

TEST_HARNESS_MAIN
