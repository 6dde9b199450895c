// SPDX-License-Identifier: GPL-2.0
/*
 * Every error the data path reports, produced on purpose, with the status
 * the verbs specification names for it: remote access errors (bad rkey,
 * out of bounds, rights missing on the MR or on the QP, an MR of another
 * PD or context, a deregistered MR, keys of a deregistered MR against
 * the MR registered after it), a receive too small (REM_INV_REQ_ERR
 * at the requester, LOC_LEN_ERR at the responder), local protection
 * errors, local length errors, a misaligned atomic, RNR retries exhausted
 * and RNR recovered, the RNR wait's length and resolution, a QP destroyed,
 * reset or moved to ERR in an RNR wait, transport retries exhausted when
 * the peer is gone,
 * with the time it takes. After each error: the QPs in ERR, every
 * outstanding request and receive flushed in order, later posts flushed.
 * The post calls' own checks (EINVAL with bad_wr, ENOMEM on full
 * queues), the asynchronous events of the data path (COMM_EST,
 * SQ_DRAINED with sends in flight, LAST_WQE_REACHED, QP_ACCESS_ERR,
 * QP_REQ_ERR), the SQE state of UD and its way back, and UC dropping
 * what it cannot place.
 */
#include <limits.h>

#include "rnic_dp_test.h"

#define DEV "t_dperr"

/* Completions for the wr_ids @first .. @first + @n - 1, all flushed. */
#define ASSERT_FLUSHED(cq, first, n, qpn) do {				\
	struct ibv_wc __w[64];						\
	int __i;							\
	ASSERT_EQ((n), dp_poll(cq, n, __w, DP_TIMEOUT_MS));		\
	for (__i = 0; __i < (n); __i++) {				\
		ASSERT_WC(&__w[__i], (first) + __i, IBV_WC_WR_FLUSH_ERR, 0); \
		EXPECT_EQ((qpn), __w[__i].qp_num);			\
	}								\
} while (0)

/* A QP in ERR flushes what is posted to it from now on, both queues. */
static void posts_flush(struct __test_metadata *_metadata, struct ibv_qp *qp,
			struct ibv_cq *scq, struct ibv_cq *rcq)
{
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 0xf1 };

	ASSERT_EQ(IBV_QPS_ERR, dp_qp_state(qp));
	ASSERT_EQ(0, dp_post(qp, &w));
	ASSERT_FLUSHED(scq, 0xf1, 1, qp->qp_num);
	ASSERT_EQ(0, dp_post_recv(qp, NULL, 0xf2));
	ASSERT_FLUSHED(rcq, 0xf2, 1, qp->qp_num);
	ASSERT_QUIET(scq);
}

FIXTURE(err) {
	struct dp_env env;
	struct dp_pair p;
	struct dp_buf lb, rb;
};

FIXTURE_SETUP(err)
{
	dp_env_open(_metadata, &self->env, DEV, NULL);
	do_buf_alloc(self->env.pd[0], 16384, DP_ACCESS_ALL, &self->lb);
	do_buf_alloc(self->env.pd[1], 16384, DP_ACCESS_ALL, &self->rb);
	dp_buf_guard(&self->lb);
	dp_buf_guard(&self->rb);
}

FIXTURE_TEARDOWN(err)
{
	dp_env_close(_metadata, &self->env);
}

/* ---- remote access errors, table driven --------------------------------- */

enum fault {
	F_BAD_RKEY,		/* an rkey no MR has */
	F_PAST_END,		/* the range runs past the MR's end */
	F_BEFORE_START,		/* the range starts before the MR */
	F_MR_ACCESS,		/* the MR lacks the right */
	F_QP_ACCESS,		/* the responder QP's qp_access_flags lack it */
	F_OTHER_PD,		/* an MR of another PD of the responder */
	F_OTHER_CTX,		/* an MR of the requester's own context */
	F_DEREGISTERED,		/* an MR that was deregistered */
};

FIXTURE(acc) {
	struct dp_env env;
	struct dp_pair p;
};

FIXTURE_VARIANT(acc) {
	enum ibv_wr_opcode op;
	enum fault fault;
};

#define ACC(name, o, f) \
	FIXTURE_VARIANT_ADD(acc, name) { .op = IBV_WR_##o, .fault = f }

ACC(write_bad_rkey, RDMA_WRITE, F_BAD_RKEY);
ACC(write_past_end, RDMA_WRITE, F_PAST_END);
ACC(write_before_start, RDMA_WRITE, F_BEFORE_START);
ACC(write_mr_without_remote_write, RDMA_WRITE, F_MR_ACCESS);
ACC(write_qp_without_remote_write, RDMA_WRITE, F_QP_ACCESS);
ACC(write_mr_of_other_pd, RDMA_WRITE, F_OTHER_PD);
ACC(write_mr_of_other_context, RDMA_WRITE, F_OTHER_CTX);
ACC(write_deregistered_mr, RDMA_WRITE, F_DEREGISTERED);
ACC(write_imm_bad_rkey, RDMA_WRITE_WITH_IMM, F_BAD_RKEY);
ACC(write_imm_qp_without_remote_write, RDMA_WRITE_WITH_IMM, F_QP_ACCESS);
ACC(read_bad_rkey, RDMA_READ, F_BAD_RKEY);
ACC(read_past_end, RDMA_READ, F_PAST_END);
ACC(read_before_start, RDMA_READ, F_BEFORE_START);
ACC(read_mr_without_remote_read, RDMA_READ, F_MR_ACCESS);
ACC(read_qp_without_remote_read, RDMA_READ, F_QP_ACCESS);
ACC(read_mr_of_other_pd, RDMA_READ, F_OTHER_PD);
ACC(read_mr_of_other_context, RDMA_READ, F_OTHER_CTX);
ACC(read_deregistered_mr, RDMA_READ, F_DEREGISTERED);
ACC(cas_bad_rkey, ATOMIC_CMP_AND_SWP, F_BAD_RKEY);
ACC(cas_past_end, ATOMIC_CMP_AND_SWP, F_PAST_END);
ACC(cas_mr_without_remote_atomic, ATOMIC_CMP_AND_SWP, F_MR_ACCESS);
ACC(cas_qp_without_remote_atomic, ATOMIC_CMP_AND_SWP, F_QP_ACCESS);
ACC(fadd_bad_rkey, ATOMIC_FETCH_AND_ADD, F_BAD_RKEY);
ACC(fadd_before_start, ATOMIC_FETCH_AND_ADD, F_BEFORE_START);
ACC(fadd_mr_without_remote_atomic, ATOMIC_FETCH_AND_ADD, F_MR_ACCESS);
ACC(fadd_qp_without_remote_atomic, ATOMIC_FETCH_AND_ADD, F_QP_ACCESS);
ACC(fadd_mr_of_other_pd, ATOMIC_FETCH_AND_ADD, F_OTHER_PD);

FIXTURE_SETUP(acc)
{
	dp_env_open(_metadata, &self->env, DEV, NULL);
}

FIXTURE_TEARDOWN(acc)
{
	dp_env_close(_metadata, &self->env);
}

static unsigned int right_of(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_READ:
		return IBV_ACCESS_REMOTE_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_ACCESS_REMOTE_ATOMIC;
	default:
		return IBV_ACCESS_REMOTE_WRITE;
	}
}

/*
 * The request at fault, unsignaled on a QP without sq_sig_all, still
 * completes with IBV_WC_REM_ACCESS_ERR; the three SENDs behind it and
 * every receive of both QPs are flushed; both QPs are in ERR; no byte of
 * either buffer changed (the SENDs behind never reached the responder).
 */
TEST_F(acc, remote_access_error)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	bool atomic = variant->op == IBV_WR_ATOMIC_CMP_AND_SWP ||
		      variant->op == IBV_WR_ATOMIC_FETCH_AND_ADD;
	size_t len = atomic ? 8 : 64;
	struct ibv_pd *pd = self->env.pd[1];
	unsigned int access = DP_ACCESS_ALL;
	struct dp_buf lb, rb, other = { 0 };
	struct ibv_wc wc;
	struct dp_sgl s;
	struct dp_wr w = {
		.op = variant->op, .wr_id = 1, .sgl = &s, .imm = 5,
		.compare_add = 0, .swap = 0x77,
	};
	uint32_t rkey;
	int i;

	o.sq_sig_all = 0;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	if (variant->fault == F_MR_ACCESS)
		access &= ~right_of(variant->op);
	if (variant->fault == F_QP_ACCESS) {
		struct ibv_qp_attr a = {
			.qp_access_flags = DP_ACCESS_ALL &
					   ~right_of(variant->op),
		};

		ASSERT_EQ(0, ibv_modify_qp(self->p.qp[1], &a,
					   IBV_QP_ACCESS_FLAGS));
	}
	if (variant->fault == F_OTHER_PD) {
		pd = ibv_alloc_pd(self->env.ctx[1]);
		ASSERT_NE(NULL, pd);
	}
	if (variant->fault == F_OTHER_CTX)
		pd = self->env.pd[0];
	do_buf_alloc(self->env.pd[0], 4096, DP_ACCESS_ALL, &lb);
	do_buf_alloc(pd, 8192, access, &rb);
	dp_buf_guard(&lb);
	dp_buf_guard(&rb);
	rkey = rb.mr->rkey;
	w.raddr = (uintptr_t)rb.mem + 4096;
	switch (variant->fault) {
	case F_BAD_RKEY:
		rkey ^= KEY_RANDOM_BIT;
		break;
	case F_PAST_END:
		w.raddr = (uintptr_t)rb.mem + rb.size - (atomic ? 0 : 8);
		break;
	case F_BEFORE_START:
		w.raddr = (uintptr_t)rb.mem - 8;
		break;
	case F_DEREGISTERED:
		/* The old key, with an MR of the same PD registered again. */
		ASSERT_EQ(0, ibv_dereg_mr(rb.mr));
		rb.mr = NULL;
		do_buf_alloc(self->env.pd[1], 4096, DP_ACCESS_ALL, &other);
		break;
	default:
		break;
	}
	w.rkey = rkey;
	dp_sgl_one(&lb, 1024, len, &s);
	dp_sgl_fill(&s, 0x33, 0);
	if (variant->op == IBV_WR_RDMA_READ || atomic)
		dp_buf_guard(&lb);

	/* receives on both sides, none of which may be consumed */
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 500));
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 501));
	ASSERT_EQ(0, dp_post_recv(self->p.qp[0], NULL, 600));
	ASSERT_EQ(0, dp_post_recv(self->p.qp[0], NULL, 601));
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	for (i = 2; i <= 4; i++) {
		struct dp_wr send = { .op = IBV_WR_SEND,
				      .flags = IBV_SEND_SIGNALED, .wr_id = i };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &send));
	}
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 1, IBV_WC_REM_ACCESS_ERR, 0);
	EXPECT_EQ(self->p.qp[0]->qp_num, wc.qp_num);
	ASSERT_FLUSHED(self->env.scq[0], 2, 3, self->p.qp[0]->qp_num);
	ASSERT_FLUSHED(self->env.rcq[0], 600, 2, self->p.qp[0]->qp_num);
	/* The responder went to ERR too: its receives are flushed. */
	ASSERT_FLUSHED(self->env.rcq[1], 500, 2, self->p.qp[1]->qp_num);
	EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[1]));
	posts_flush(_metadata, self->p.qp[0], self->env.scq[0],
		    self->env.rcq[0]);
	ASSERT_QUIET(self->env.rcq[1]);
	EXPECT_EQ(-1, dp_check(rb.mem, rb.size, dp_guard_seed(&rb), 0));
	if (variant->op == IBV_WR_RDMA_READ || atomic)
		EXPECT_EQ(-1, dp_check(lb.mem, lb.size, dp_guard_seed(&lb), 0));
	dp_pair_close(_metadata, &self->p);
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
	EXPECT_EQ(0, dp_buf_free(&other));
	if (variant->fault == F_OTHER_PD)
		EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/* ---- the responder's receive ------------------------------------------- */

/*
 * A SEND longer than the receive: REM_INV_REQ_ERR for the requester,
 * LOC_LEN_ERR for the receive, both QPs in ERR, the rest flushed.
 */
TEST_F(err, recv_too_small)
{
	size_t lens[][2] = {
		{ 100, 99 },		/* one packet */
		{ 5000, 3000 },		/* the 3rd packet of 5 overflows */
		{ 1, 0 },		/* a receive without SGE */
	};
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
		struct dp_sgl ls, rs;
		struct ibv_wc wc;
		struct dp_wr w = { .op = i == 1 ? IBV_WR_SEND_WITH_IMM :
					       IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 1,
				   .sgl = &ls };

		dp_pair_open(_metadata, &self->env, &o, &self->p);
		dp_sgl_one(&self->lb, 0, lens[i][0], &ls);
		dp_sgl_one(&self->rb, 0, lens[i][1], &rs);
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1],
					  lens[i][1] ? &rs : NULL, 10));
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 11));
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		w.wr_id = 2;
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, 1, IBV_WC_REM_INV_REQ_ERR, 0);
		ASSERT_FLUSHED(self->env.scq[0], 2, 1, self->p.qp[0]->qp_num);
		ASSERT_POLL1(self->env.rcq[1], &wc);
		ASSERT_WC(&wc, 10, IBV_WC_LOC_LEN_ERR, 0);
		EXPECT_EQ(self->p.qp[1]->qp_num, wc.qp_num);
		ASSERT_FLUSHED(self->env.rcq[1], 11, 1, self->p.qp[1]->qp_num);
		EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));
		posts_flush(_metadata, self->p.qp[1], self->env.scq[1],
			    self->env.rcq[1]);
		dp_pair_close(_metadata, &self->p);
	}
}

/*
 * The responder cannot place a SEND into its receive (a bad lkey, a
 * range out of its MR, an MR without LOCAL_WRITE): LOC_PROT_ERR there,
 * REM_OP_ERR at the requester, both in ERR.
 */
TEST_F(err, recv_local_protection)
{
	struct dp_buf ro;
	int i;

	do_buf_alloc(self->env.pd[1], 4096, IBV_ACCESS_REMOTE_READ, &ro);
	for (i = 0; i < 3; i++) {
		struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
		struct dp_sgl ls, rs;
		struct ibv_wc wc;
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 1,
				   .sgl = &ls };

		dp_pair_open(_metadata, &self->env, &o, &self->p);
		dp_sgl_one(&self->lb, 0, 200, &ls);
		if (i == 0) {
			dp_sgl_one(&self->rb, 0, 200, &rs);
			rs.sge[0].lkey ^= KEY_RANDOM_BIT;
		} else if (i == 1) {
			dp_sgl_one(&self->rb, self->rb.size - 100, 200, &rs);
		} else {
			dp_sgl_one(&ro, 0, 200, &rs);
		}
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 10));
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.rcq[1], &wc);
		ASSERT_EQ(IBV_WC_LOC_PROT_ERR, wc.status)
			TH_LOG("case %d: " DP_WC_FMT, i, DP_WC_ARGS(&wc));
		ASSERT_WC(&wc, 10, IBV_WC_LOC_PROT_ERR, 0);
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_EQ(IBV_WC_REM_OP_ERR, wc.status)
			TH_LOG("case %d: " DP_WC_FMT, i, DP_WC_ARGS(&wc));
		ASSERT_WC(&wc, 1, IBV_WC_REM_OP_ERR, 0);
		EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));
		EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[1]));
		dp_pair_close(_metadata, &self->p);
	}
	EXPECT_EQ(-1, dp_check(self->rb.mem, self->rb.size,
			       dp_guard_seed(&self->rb), 0));
	EXPECT_EQ(0, dp_buf_free(&ro));
}

/* ---- local protection and length errors at the requester --------------- */

/*
 * The requester cannot use its own SGE: LOC_PROT_ERR, the requester in
 * ERR with the rest flushed; nothing reached the responder, which stays
 * in RTS with its receive still posted (a SEND after the QPs are
 * reconnected would find it: checked by the receive not completing).
 */
TEST_F(err, local_protection)
{
	struct dp_buf ro, other;
	struct ibv_pd *pd2;
	int i;

	pd2 = ibv_alloc_pd(self->env.ctx[0]);
	ASSERT_NE(NULL, pd2);
	do_buf_alloc(self->env.pd[0], 4096, IBV_ACCESS_REMOTE_READ, &ro);
	do_buf_alloc(pd2, 4096, DP_ACCESS_ALL, &other);
	for (i = 0; i < 8; i++) {
		struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
		struct dp_sgl ls;
		struct ibv_wc wc;
		struct dp_wr w = { .flags = IBV_SEND_SIGNALED, .wr_id = 1,
				   .sgl = &ls, .raddr = (uintptr_t)self->rb.mem,
				   .rkey = self->rb.mr->rkey };

		dp_pair_open(_metadata, &self->env, &o, &self->p);
		dp_sgl_one(&self->lb, 0, 100, &ls);
		switch (i) {
		case 0:		/* SEND, bad lkey */
			w.op = IBV_WR_SEND;
			ls.sge[0].lkey ^= KEY_RANDOM_BIT;
			break;
		case 1:		/* WRITE, range past the MR */
			w.op = IBV_WR_RDMA_WRITE;
			dp_sgl_one(&self->lb, self->lb.size - 50, 100, &ls);
			break;
		case 2:		/* SEND, the second SGE before the MR */
			w.op = IBV_WR_SEND;
			ls.n = 2;
			ls.sge[1] = ls.sge[0];
			ls.sge[1].addr = (uintptr_t)self->lb.mem - 64;
			ls.sge[1].length = 32;
			break;
		case 3:		/* READ into an MR without LOCAL_WRITE */
			w.op = IBV_WR_RDMA_READ;
			dp_sgl_one(&ro, 0, 100, &ls);
			break;
		case 4:		/* atomic result into it */
			w.op = IBV_WR_ATOMIC_FETCH_AND_ADD;
			w.compare_add = 1;
			/* where the atomic may or may not have run */
			w.raddr += 12288;
			dp_sgl_one(&ro, 0, 8, &ls);
			break;
		case 5:		/* an lkey of another PD */
			w.op = IBV_WR_SEND;
			dp_sgl_one(&other, 0, 100, &ls);
			break;
		case 6:		/* an lkey of another context */
			w.op = IBV_WR_RDMA_WRITE;
			dp_sgl_one(&self->rb, 0, 100, &ls);
			w.raddr += 4096;
			break;
		case 7:		/* READ scattering past the MR's end */
			w.op = IBV_WR_RDMA_READ;
			dp_sgl_one(&self->lb, self->lb.size - 8, 100, &ls);
			break;
		}
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 10));
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		w.op = IBV_WR_SEND;
		w.sgl = NULL;
		w.wr_id = 2;
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_EQ(IBV_WC_LOC_PROT_ERR, wc.status)
			TH_LOG("case %d: " DP_WC_FMT, i, DP_WC_ARGS(&wc));
		ASSERT_WC(&wc, 1, IBV_WC_LOC_PROT_ERR, 0);
		ASSERT_FLUSHED(self->env.scq[0], 2, 1, self->p.qp[0]->qp_num);
		posts_flush(_metadata, self->p.qp[0], self->env.scq[0],
			    self->env.rcq[0]);
		EXPECT_EQ(IBV_QPS_RTS, dp_qp_state(self->p.qp[1]))
			TH_LOG("case %d", i);
		ASSERT_QUIET(self->env.rcq[1]);
		dp_pair_close(_metadata, &self->p);
		/* whatever destroying the QP did with its receive */
		dp_poll(self->env.rcq[1], 1, &wc, 0);
	}
	/*
	 * No request left: nothing written (the local buffers of a failed
	 * READ are undefined, so they are not checked).
	 */
	EXPECT_EQ(-1, dp_check(self->rb.mem, 8192,
			       dp_guard_seed(&self->rb), 0));
	EXPECT_EQ(0, dp_buf_free(&ro));
	EXPECT_EQ(0, dp_buf_free(&other));
	EXPECT_EQ(0, ibv_dealloc_pd(pd2));
}

/* @key with its key byte, the consumer's (ibv_inc_rkey()), moved on. */
static uint32_t key_byte_inc(uint32_t key)
{
	return (key & ~0xffu) | ((key + 1) & 0xffu);
}

/*
 * Keys of a deregistered MR, with a new MR registered over the same
 * memory right after it: the old key, the old key's random parts at the
 * new MR's index (where indexes reused at once would have put the new
 * MR), and the new key with its key byte changed are all refused:
 * REM_ACCESS_ERR as an rkey of a WRITE, LOC_PROT_ERR as the lkey of a
 * SEND. The new keys work, and the new MR took the next index.
 */
TEST_F(err, stale_keys_refused)
{
	uint32_t old_rkey, old_lkey, rkeys[3], lkeys[3];
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_mr *mr, *rmr, *lmr;
	struct dp_sgl ls;
	struct ibv_wc wc;
	struct dp_wr w;
	int i;

	mr = ibv_reg_mr(self->env.pd[1], self->rb.mem, 4096, DP_ACCESS_ALL);
	ASSERT_NE(NULL, mr);
	old_rkey = mr->rkey;
	ASSERT_EQ(0, ibv_dereg_mr(mr));
	rmr = ibv_reg_mr(self->env.pd[1], self->rb.mem, 4096, DP_ACCESS_ALL);
	ASSERT_NE(NULL, rmr);
	mr = ibv_reg_mr(self->env.pd[0], self->lb.mem, 4096, DP_ACCESS_ALL);
	ASSERT_NE(NULL, mr);
	old_lkey = mr->lkey;
	ASSERT_EQ(0, ibv_dereg_mr(mr));
	lmr = ibv_reg_mr(self->env.pd[0], self->lb.mem, 4096, DP_ACCESS_ALL);
	ASSERT_NE(NULL, lmr);
	/* the next index, not the one just freed */
	EXPECT_EQ(KEY_INDEX(old_rkey) + 1, KEY_INDEX(rmr->rkey));
	EXPECT_EQ(KEY_INDEX(old_lkey) + 1, KEY_INDEX(lmr->lkey));

	rkeys[0] = old_rkey;
	rkeys[1] = KEY_WITH_INDEX(old_rkey, KEY_INDEX(rmr->rkey));
	rkeys[2] = key_byte_inc(rmr->rkey);
	lkeys[0] = old_lkey;
	lkeys[1] = KEY_WITH_INDEX(old_lkey, KEY_INDEX(lmr->lkey));
	lkeys[2] = key_byte_inc(lmr->lkey);
	/* 0-2: WRITE, wrong rkey; 3-5: SEND, wrong lkey; 6: right keys */
	for (i = 0; i < 7; i++) {
		enum ibv_wc_status want = IBV_WC_REM_ACCESS_ERR;

		w = (struct dp_wr){ .op = IBV_WR_RDMA_WRITE,
				    .flags = IBV_SEND_SIGNALED, .wr_id = i,
				    .sgl = &ls, .raddr = (uintptr_t)self->rb.mem,
				    .rkey = rmr->rkey };
		dp_sgl_one(&self->lb, 0, 64, &ls);
		ls.sge[0].lkey = lmr->lkey;
		if (i < 3) {
			w.rkey = rkeys[i];
		} else if (i < 6) {
			w.op = IBV_WR_SEND;
			ls.sge[0].lkey = lkeys[i - 3];
			want = IBV_WC_LOC_PROT_ERR;
		} else {
			/* nothing written before */
			EXPECT_EQ(-1, dp_check(self->rb.mem, self->rb.size,
					       dp_guard_seed(&self->rb), 0));
			want = IBV_WC_SUCCESS;
		}
		/* moved random parts may make the new key: 1 in 2^15 */
		if (i != 6 && w.rkey == rmr->rkey &&
		    ls.sge[0].lkey == lmr->lkey)
			continue;
		dp_pair_open(_metadata, &self->env, &o, &self->p);
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 10));
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_EQ(want, wc.status)
			TH_LOG("case %d: " DP_WC_FMT, i, DP_WC_ARGS(&wc));
		dp_pair_close(_metadata, &self->p);
		/* the receive, flushed or not consumed */
		dp_poll(self->env.rcq[1], 1, &wc, 0);
	}
	EXPECT_EQ(0, memcmp(self->rb.mem, self->lb.mem, 64));
	EXPECT_EQ(0, ibv_dereg_mr(rmr));
	EXPECT_EQ(0, ibv_dereg_mr(lmr));
}

/*
 * A message longer than the port's max_msg_sz (1 GiB): 32 SGEs of 40 MiB
 * over the same memory. The requester refuses it with the status the IB
 * specification gives a message over the maximum message size,
 * LOC_LEN_ERR, without sending a byte.
 */
TEST_F_TIMEOUT(err, message_longer_than_max_msg_sz, 60)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_buf big;
	struct dp_sgl ls;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_RDMA_WRITE,
			   .flags = IBV_SEND_SIGNALED, .wr_id = 1, .sgl = &ls,
			   .raddr = (uintptr_t)self->rb.mem,
			   .rkey = self->rb.mr->rkey };
	int i;

	ASSERT_GT((uint64_t)32 * (40 << 20), self->env.port.max_msg_sz);
	o.max_send_sge = 32;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	do_buf_alloc(self->env.pd[0], 40 << 20, DP_ACCESS_ALL, &big);
	dp_sgl_one(&big, 0, 40 << 20, &ls);
	ls.n = 32;
	for (i = 1; i < 32; i++)
		ls.sge[i] = ls.sge[0];
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 1, IBV_WC_LOC_LEN_ERR, 0);
	EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));
	EXPECT_EQ(-1, dp_check(self->rb.mem, self->rb.size,
			       dp_guard_seed(&self->rb), 0));
	EXPECT_EQ(0, dp_buf_free(&big));
	dp_pair_close(_metadata, &self->p);
}

/*
 * An atomic on an address that is not 8-byte aligned: the responder
 * refuses it (NAK invalid request): REM_INV_REQ_ERR, the target
 * untouched, both QPs in ERR, IBV_EVENT_QP_REQ_ERR for the responder.
 */
TEST_F(err, misaligned_atomic)
{
	static const int offs[] = { 1, 4, 7 };
	int i;

	for (i = 0; i < 3; i++) {
		struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
		struct ibv_async_event ev;
		struct dp_sgl ls;
		struct ibv_wc wc;
		struct dp_wr w = {
			.op = i % 2 ? IBV_WR_ATOMIC_CMP_AND_SWP :
				      IBV_WR_ATOMIC_FETCH_AND_ADD,
			.flags = IBV_SEND_SIGNALED, .wr_id = 1, .sgl = &ls,
			.raddr = (uintptr_t)self->rb.mem + 64 + offs[i],
			.rkey = self->rb.mr->rkey, .compare_add = 1,
		};

		dp_pair_open(_metadata, &self->env, &o, &self->p);
		dp_sgl_one(&self->lb, 0, 8, &ls);
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR, wc.status)
			TH_LOG("offset %d: " DP_WC_FMT, offs[i],
			       DP_WC_ARGS(&wc));
		ASSERT_WC(&wc, 1, IBV_WC_REM_INV_REQ_ERR, 0);
		EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));
		EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[1]));
		EXPECT_EQ(0, dp_wait_async(self->env.ctx[1],
					   IBV_EVENT_QP_REQ_ERR, 2000, &ev));
		EXPECT_EQ(self->p.qp[1], ev.element.qp);
		dp_pair_close(_metadata, &self->p);
	}
	EXPECT_EQ(-1, dp_check(self->rb.mem, self->rb.size,
			       dp_guard_seed(&self->rb), 0));
}

/* A remote access error raises IBV_EVENT_QP_ACCESS_ERR on the responder. */
TEST_F(err, responder_access_error_event)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_async_event ev;
	struct dp_sgl ls;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_RDMA_WRITE,
			   .flags = IBV_SEND_SIGNALED, .wr_id = 1, .sgl = &ls,
			   .raddr = (uintptr_t)self->rb.mem,
			   .rkey = self->rb.mr->rkey ^ KEY_RANDOM_BIT };

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	dp_sgl_one(&self->lb, 0, 64, &ls);
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 1, IBV_WC_REM_ACCESS_ERR, 0);
	ASSERT_EQ(0, dp_wait_async(self->env.ctx[1], IBV_EVENT_QP_ACCESS_ERR,
				   2000, &ev));
	EXPECT_EQ(self->p.qp[1], ev.element.qp);
	/* the requester learnt it from its completion: no event there */
	EXPECT_EQ(0, dp_drain_async(self->env.ctx[0], IBV_EVENT_QP_ACCESS_ERR,
				    NULL));
	dp_pair_close(_metadata, &self->p);
}

/*
 * A CQ of one entry that nobody polls overruns on the second completion:
 * IBV_EVENT_CQ_ERR naming it, the QP in ERR, the first CQE intact.
 */
TEST_F(err, cq_overrun)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_cq *small, *saved = self->env.scq[0];
	struct ibv_async_event ev;
	struct ibv_wc wc;
	int i;

	small = ibv_create_cq(self->env.ctx[0], 1, NULL, NULL, 0);
	ASSERT_NE(NULL, small);
	ASSERT_EQ(1, small->cqe);
	self->env.scq[0] = small;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	self->env.scq[0] = saved;
	for (i = 0; i < 3; i++) {
		struct dp_wr w = { .op = IBV_WR_RDMA_WRITE,
				   .flags = IBV_SEND_SIGNALED, .wr_id = i,
				   .raddr = (uintptr_t)self->rb.mem,
				   .rkey = self->rb.mr->rkey };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	}
	ASSERT_EQ(0, dp_wait_async(self->env.ctx[0], IBV_EVENT_CQ_ERR, 5000,
				   &ev));
	EXPECT_EQ(small, ev.element.cq);
	EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));
	ASSERT_POLL1(small, &wc);
	ASSERT_WC(&wc, 0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	dp_pair_close(_metadata, &self->p);
	EXPECT_EQ(0, ibv_destroy_cq(small));
}

/* ---- UD: local length errors, SQE and back ------------------------------ */

/*
 * A UD SEND longer than the MTU: LOC_LEN_ERR, the QP in SQE (its
 * receive queue still works), back to RTS with a modify, sending again.
 * A UD receive too small: LOC_LEN_ERR for it.
 */
TEST_F(err, ud_length_errors_and_sqe)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	size_t mtu = 128u << self->env.port.active_mtu;
	struct dp_sgl ls, rs;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS,
				 .cur_qp_state = IBV_QPS_SQE };
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 1, .sgl = &ls, .qkey = DP_QKEY };

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	w.ah = self->p.ah[0];
	w.rqpn = self->p.qp[1]->qp_num;
	dp_sgl_one(&self->lb, 0, mtu + 1, &ls);
	dp_sgl_one(&self->rb, 0, mtu + 1 + DP_GRH, &rs);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 10));
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 1, IBV_WC_LOC_LEN_ERR, 0);
	EXPECT_EQ(IBV_QPS_SQE, dp_qp_state(self->p.qp[0]));
	ASSERT_QUIET(self->env.rcq[1]);

	/* SQE: sends flush, receives still land */
	ls.sge[0].length = 10;
	w.wr_id = 2;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_FLUSHED(self->env.scq[0], 2, 1, self->p.qp[0]->qp_num);
	dp_sgl_one(&self->lb, 4096, 10 + DP_GRH, &rs);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[0], &rs, 20));
	{
		struct dp_wr back = w;

		back.ah = self->p.ah[1];
		back.rqpn = self->p.qp[0]->qp_num;
		back.wr_id = 3;
		dp_sgl_one(&self->rb, 8192, 10, &ls);
		back.sgl = &ls;
		ASSERT_EQ(0, dp_post(self->p.qp[1], &back));
		ASSERT_POLL1(self->env.scq[1], &wc);
		ASSERT_WC(&wc, 3, IBV_WC_SUCCESS, IBV_WC_SEND);
		ASSERT_POLL1(self->env.rcq[0], &wc);
		ASSERT_WC(&wc, 20, IBV_WC_SUCCESS, IBV_WC_RECV);
	}

	/* SQE -> RTS: sending works again, into the receive still posted */
	ASSERT_EQ(0, ibv_modify_qp(self->p.qp[0], &a,
				   IBV_QP_STATE | IBV_QP_CUR_STATE));
	EXPECT_EQ(IBV_QPS_RTS, dp_qp_state(self->p.qp[0]));
	dp_sgl_one(&self->lb, 0, mtu, &ls);
	dp_sgl_fill(&ls, 0x55, 0);
	w.sgl = &ls;
	w.wr_id = 4;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 4, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 10, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(mtu + DP_GRH, wc.byte_len);
	EXPECT_EQ(-1, dp_check(self->rb.mem + DP_GRH, mtu, 0x55, 0));

	/* a receive too small for the datagram */
	dp_sgl_one(&self->rb, 0, 100 + DP_GRH - 1, &rs);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 11));
	dp_sgl_one(&self->lb, 0, 100, &ls);
	w.wr_id = 5;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 5, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 11, IBV_WC_LOC_LEN_ERR, 0);
	dp_pair_close(_metadata, &self->p);
}

/* ---- the post calls' own checks ----------------------------------------- */

/*
 * A list of three where the second is bad: EINVAL, bad_wr the second,
 * the first posted (it completes), the third not (nothing more comes).
 */
static void bad_second(struct __test_metadata *_metadata,
		       FIXTURE_DATA(err) *self, struct ibv_qp *qp,
		       struct ibv_cq *scq, struct ibv_send_wr *bad_wr,
		       struct ibv_ah *ah, uint32_t rqpn, const char *what)
{
	struct ibv_sge sge = { (uintptr_t)self->lb.mem, 16, self->lb.mr->lkey };
	struct ibv_send_wr wr[3], *bad = NULL;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 3; i += 2) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = 100 + i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)self->rb.mem;
		wr[i].wr.rdma.rkey = self->rb.mr->rkey;
		if (ah) {
			wr[i].opcode = IBV_WR_SEND;
			wr[i].wr.ud.ah = ah;
			wr[i].wr.ud.remote_qpn = rqpn;
			wr[i].wr.ud.remote_qkey = DP_QKEY;
		}
	}
	wr[1] = *bad_wr;
	wr[1].wr_id = 101;
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	wr[2].next = NULL;
	ASSERT_EQ(EINVAL, ibv_post_send(qp, wr, &bad)) TH_LOG("%s", what);
	ASSERT_EQ(&wr[1], bad) TH_LOG("%s", what);
	ASSERT_POLL1(scq, &wc);
	ASSERT_WC(&wc, 100, IBV_WC_SUCCESS, ah ? IBV_WC_SEND : IBV_WC_RDMA_WRITE);
	ASSERT_QUIET_MS(scq, 100);
}

TEST_F(err, post_send_einval)
{
	/* a bind without a window (dp_post()'s work request has none) */
	static const int rc_bad_ops[] = {
		IBV_WR_BIND_MW, IBV_WR_TSO, IBV_WR_DRIVER1,
		IBV_WR_ATOMIC_WRITE, 12, 99, -1,
	};
	static const int uc_bad_ops[] = {
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_SEND_WITH_INV,
	};
	static const int ud_bad_ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct ibv_sge sges[DP_MAX_SGE + 1];
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	struct ibv_send_wr bad;
	struct dp_qp_opts o;
	char what[64];
	unsigned int i;

	for (i = 0; i <= DP_MAX_SGE; i++) {
		sges[i].addr = (uintptr_t)self->lb.mem + i * 8;
		sges[i].length = 8;
		sges[i].lkey = self->lb.mr->lkey;
	}
	o = dp_opts(IBV_QPT_RC);
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	ASSERT_EQ(0, ibv_query_qp(self->p.qp[0], &a, 0, &init));
	for (i = 0; i < sizeof(rc_bad_ops) / sizeof(rc_bad_ops[0]); i++) {
		memset(&bad, 0, sizeof(bad));
		bad.opcode = rc_bad_ops[i];
		bad.send_flags = IBV_SEND_SIGNALED;
		snprintf(what, sizeof(what), "RC opcode %d", rc_bad_ops[i]);
		bad_second(_metadata, self, self->p.qp[0], self->env.scq[0],
			   &bad, NULL, 0, what);
	}
	/* one SGE too many */
	memset(&bad, 0, sizeof(bad));
	bad.opcode = IBV_WR_RDMA_WRITE;
	bad.sg_list = sges;
	bad.num_sge = init.cap.max_send_sge + 1;
	bad.wr.rdma.remote_addr = (uintptr_t)self->rb.mem;
	bad.wr.rdma.rkey = self->rb.mr->rkey;
	ASSERT_GE(DP_MAX_SGE + 1, bad.num_sge);
	bad_second(_metadata, self, self->p.qp[0], self->env.scq[0], &bad,
		   NULL, 0, "too many SGEs");
	bad.num_sge = -1;
	bad_second(_metadata, self, self->p.qp[0], self->env.scq[0], &bad,
		   NULL, 0, "num_sge -1");
	/* one inline byte too many, over several SGEs */
	bad.num_sge = 2;
	bad.send_flags = IBV_SEND_INLINE;
	sges[0].length = init.cap.max_inline_data / 2;
	sges[1].length = init.cap.max_inline_data - sges[0].length + 1;
	bad_second(_metadata, self, self->p.qp[0], self->env.scq[0], &bad,
		   NULL, 0, "too much inline data");
	sges[0].length = sges[1].length = 8;
	/* a flag rnic does not have */
	bad.send_flags = IBV_SEND_IP_CSUM;
	bad.num_sge = 1;
	bad_second(_metadata, self, self->p.qp[0], self->env.scq[0], &bad,
		   NULL, 0, "IBV_SEND_IP_CSUM");
	bad.send_flags = 1 << 20;
	bad_second(_metadata, self, self->p.qp[0], self->env.scq[0], &bad,
		   NULL, 0, "unknown flag");
	dp_pair_close(_metadata, &self->p);

	o = dp_opts(IBV_QPT_UC);
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (i = 0; i < sizeof(uc_bad_ops) / sizeof(uc_bad_ops[0]); i++) {
		memset(&bad, 0, sizeof(bad));
		bad.opcode = uc_bad_ops[i];
		bad.sg_list = sges;
		bad.num_sge = 1;
		bad.wr.rdma.remote_addr = (uintptr_t)self->rb.mem;
		bad.wr.rdma.rkey = self->rb.mr->rkey;
		snprintf(what, sizeof(what), "UC opcode %d", uc_bad_ops[i]);
		bad_second(_metadata, self, self->p.qp[0], self->env.scq[0],
			   &bad, NULL, 0, what);
	}
	dp_pair_close(_metadata, &self->p);

	o = dp_opts(IBV_QPT_UD);
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (i = 0; i < sizeof(ud_bad_ops) / sizeof(ud_bad_ops[0]); i++) {
		memset(&bad, 0, sizeof(bad));
		bad.opcode = ud_bad_ops[i];
		bad.sg_list = sges;
		bad.num_sge = 1;
		bad.wr.ud.ah = self->p.ah[0];
		bad.wr.ud.remote_qpn = self->p.qp[1]->qp_num;
		bad.wr.ud.remote_qkey = DP_QKEY;
		snprintf(what, sizeof(what), "UD opcode %d", ud_bad_ops[i]);
		bad_second(_metadata, self, self->p.qp[0], self->env.scq[0],
			   &bad, self->p.ah[0], self->p.qp[1]->qp_num, what);
	}
	dp_pair_close(_metadata, &self->p);
}

/* Posting to a QP not ready for it; receives with too many SGEs. */
TEST_F(err, post_in_wrong_state_or_too_many_sges)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_sge sges[DP_MAX_SGE + 1];
	struct ibv_send_wr swr = { .wr_id = 1, .opcode = IBV_WR_SEND };
	struct ibv_recv_wr rwr[2], *rbad;
	struct ibv_send_wr *sbad;
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 8, .max_sge = 2 },
	};
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	unsigned int i;

	for (i = 0; i <= DP_MAX_SGE; i++) {
		sges[i].addr = (uintptr_t)self->lb.mem + i * 8;
		sges[i].length = 8;
		sges[i].lkey = self->lb.mr->lkey;
	}
	memset(rwr, 0, sizeof(rwr));
	rwr[0].wr_id = 1;
	rwr[1].wr_id = 2;
	rwr[0].next = &rwr[1];

	qp = dp_qp_create(self->env.pd[0], self->env.scq[0], self->env.rcq[0],
			  &o);
	ASSERT_NE(NULL, qp);
	/* RESET: neither; INIT and RTR: receives only */
	sbad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_send(qp, &swr, &sbad));
	EXPECT_EQ(&swr, sbad);
	rbad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_recv(qp, rwr, &rbad));
	EXPECT_EQ(&rwr[0], rbad);
	ASSERT_EQ(0, dp_qp_init(qp, &o));
	sbad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_send(qp, &swr, &sbad));
	EXPECT_EQ(&swr, sbad);
	ASSERT_EQ(0, dp_qp_rtr(qp, &o, qp->qp_num, &self->env.gid, 0, 0));
	sbad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_send(qp, &swr, &sbad));
	EXPECT_EQ(&swr, sbad);

	/* receives: the second has one SGE too many */
	rwr[0].sg_list = sges;
	rwr[0].num_sge = 1;
	rwr[1].sg_list = sges;
	rwr[1].num_sge = o.max_recv_sge + 1;
	{
		struct ibv_qp_init_attr init;
		struct ibv_qp_attr a;

		ASSERT_EQ(0, ibv_query_qp(qp, &a, 0, &init));
		rwr[1].num_sge = init.cap.max_recv_sge + 1;
	}
	rbad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_recv(qp, rwr, &rbad));
	EXPECT_EQ(&rwr[1], rbad);
	/* the first was posted: ERR flushes exactly it */
	ASSERT_EQ(0, dp_qp_modify_state(qp, IBV_QPS_ERR));
	ASSERT_FLUSHED(self->env.rcq[0], 1, 1, qp->qp_num);
	ASSERT_QUIET(self->env.rcq[0]);
	EXPECT_EQ(0, ibv_destroy_qp(qp));

	/* a QP with an SRQ has no receive queue to post to */
	srq = ibv_create_srq(self->env.pd[0], &sattr);
	ASSERT_NE(NULL, srq);
	o.srq = srq;
	qp = dp_qp_create(self->env.pd[0], self->env.scq[0], self->env.rcq[0],
			  &o);
	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, dp_qp_init(qp, &o));
	rwr[1].num_sge = 1;
	rbad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_recv(qp, rwr, &rbad));
	EXPECT_EQ(&rwr[0], rbad);
	/* SRQ: the second has one SGE too many */
	rwr[1].num_sge = sattr.attr.max_sge + 1;
	rbad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_srq_recv(srq, rwr, &rbad));
	EXPECT_EQ(&rwr[1], rbad);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

/*
 * ENOMEM once a queue is full, with bad_wr at the first request that did
 * not fit: the SQ (held in SQD, so nothing leaves it), the RQ and an
 * SRQ. Everything posted before is intact: it all completes.
 */
TEST_F(err, full_queues_enomem)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	struct ibv_send_wr *sbad, swr[2];
	struct ibv_recv_wr *rbad, rwr[2];
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 16,
						     .max_sge = 1 } };
	struct ibv_srq *srq;
	struct ibv_wc wc[64];
	uint32_t n, i;

	o.max_send_wr = 16;
	o.max_recv_wr = 16;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	ASSERT_EQ(0, ibv_query_qp(self->p.qp[0], &a, 0, &init));
	n = init.cap.max_send_wr;
	ASSERT_GE(64u, n);
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_SQD));
	for (i = 0; i < n; i++) {
		struct dp_wr w = { .op = IBV_WR_RDMA_WRITE,
				   .flags = IBV_SEND_SIGNALED, .wr_id = i,
				   .raddr = (uintptr_t)self->rb.mem,
				   .rkey = self->rb.mr->rkey };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w)) TH_LOG("wr %u", i);
	}
	memset(swr, 0, sizeof(swr));
	swr[0].opcode = swr[1].opcode = IBV_WR_RDMA_WRITE;
	swr[0].next = &swr[1];
	sbad = NULL;
	EXPECT_EQ(ENOMEM, ibv_post_send(self->p.qp[0], swr, &sbad));
	EXPECT_EQ(&swr[0], sbad);
	ASSERT_QUIET(self->env.scq[0]);
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_RTS));
	ASSERT_EQ((int)n, dp_poll(self->env.scq[0], n, wc, DP_TIMEOUT_MS));
	for (i = 0; i < n; i++)
		ASSERT_WC(&wc[i], i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	/* room again: one more fits, in a list of two the second doesn't */
	swr[0].send_flags = IBV_SEND_SIGNALED;
	swr[0].wr.rdma.remote_addr = (uintptr_t)self->rb.mem;
	swr[0].wr.rdma.rkey = self->rb.mr->rkey;
	swr[1] = swr[0];
	swr[0].next = &swr[1];
	swr[1].next = NULL;
	swr[0].wr_id = 7;
	ASSERT_EQ(0, ibv_post_send(self->p.qp[0], swr, &sbad));
	ASSERT_EQ(2, dp_poll(self->env.scq[0], 2, wc, DP_TIMEOUT_MS));

	/* the RQ */
	ASSERT_EQ(0, ibv_query_qp(self->p.qp[1], &a, 0, &init));
	n = init.cap.max_recv_wr;
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, i));
	memset(rwr, 0, sizeof(rwr));
	rwr[0].wr_id = 1000;
	rbad = NULL;
	EXPECT_EQ(ENOMEM, ibv_post_recv(self->p.qp[1], rwr, &rbad));
	EXPECT_EQ(&rwr[0], rbad);
	{
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 9 };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.rcq[1], wc);
		ASSERT_WC(wc, 0, IBV_WC_SUCCESS, IBV_WC_RECV);
	}
	/* one consumed: exactly one fits */
	rwr[0].next = &rwr[1];
	rwr[1].wr_id = 1001;
	rbad = NULL;
	EXPECT_EQ(ENOMEM, ibv_post_recv(self->p.qp[1], rwr, &rbad));
	EXPECT_EQ(&rwr[1], rbad);
	dp_pair_close(_metadata, &self->p);

	/* an SRQ */
	srq = ibv_create_srq(self->env.pd[0], &sattr);
	ASSERT_NE(NULL, srq);
	for (i = 0; i < sattr.attr.max_wr; i++)
		ASSERT_EQ(0, dp_post_srq_recv(srq, NULL, i));
	rwr[0].next = NULL;
	rbad = NULL;
	EXPECT_EQ(ENOMEM, ibv_post_srq_recv(srq, rwr, &rbad));
	EXPECT_EQ(&rwr[0], rbad);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

/* ---- RNR -------------------------------------------------------------- */

/*
 * No receive at the responder: RNR NAKs, retried rnr_retry times, then
 * RNR_RETRY_EXC_ERR. The responder is not in error: a receive posted
 * later is still there (reconnecting is not needed to see it: it is
 * flushed when the responder is moved to ERR).
 */
TEST_F(err, rnr_retries_exhausted)
{
	int retries[] = { 0, 3 };
	int i;

	for (i = 0; i < 2; i++) {
		struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
		struct ibv_wc wc;
		struct dp_wr w = { .op = IBV_WR_SEND_WITH_IMM,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 1 };

		o.rnr_retry = retries[i];
		o.min_rnr_timer = 1;	/* 0.01 ms */
		dp_pair_open(_metadata, &self->env, &o, &self->p);
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		w.wr_id = 2;
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_EQ(IBV_WC_RNR_RETRY_EXC_ERR, wc.status)
			TH_LOG("rnr_retry %d: " DP_WC_FMT, retries[i],
			       DP_WC_ARGS(&wc));
		ASSERT_WC(&wc, 1, IBV_WC_RNR_RETRY_EXC_ERR, 0);
		ASSERT_FLUSHED(self->env.scq[0], 2, 1, self->p.qp[0]->qp_num);
		EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));
		EXPECT_EQ(IBV_QPS_RTS, dp_qp_state(self->p.qp[1]));
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 3));
		ASSERT_QUIET(self->env.rcq[1]);
		ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[1], IBV_QPS_ERR));
		ASSERT_FLUSHED(self->env.rcq[1], 3, 1, self->p.qp[1]->qp_num);
		dp_pair_close(_metadata, &self->p);
	}
}

/* The RNR timer is honoured: 491.52 ms (code 31) before the one retry. */
TEST_F(err, rnr_timer)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 1 };
	long t0, dt;

	o.rnr_retry = 1;
	o.min_rnr_timer = 31;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	t0 = dp_now_ms();
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	dt = dp_now_ms() - t0;
	ASSERT_WC(&wc, 1, IBV_WC_RNR_RETRY_EXC_ERR, 0);
	EXPECT_LE(450, dt) TH_LOG("RNR retry after %ld ms", dt);
	EXPECT_GE(5000, dt) TH_LOG("RNR retry after %ld ms", dt);
	dp_pair_close(_metadata, &self->p);
}

/*
 * rnr_retry 7 retries for ever: a receive posted 300 ms late still gets
 * the SEND, data intact, and the SEND completes only then.
 */
TEST_F(err, rnr_then_success)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_sgl ls, rs;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 1, .sgl = &ls };
	int i;

	o.rnr_retry = 7;
	o.min_rnr_timer = 1;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (i = 0; i < 3; i++) {
		uint32_t seed = dp_seed(0x77, i, 0);

		dp_buf_guard(&self->rb);
		dp_sgl_one(&self->lb, 0, 5000, &ls);
		dp_sgl_fill(&ls, seed, 0);
		dp_sgl_one(&self->rb, 7, 5000, &rs);
		w.wr_id = i;
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_QUIET(self->env.scq[0]);
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 10 + i));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_SEND);
		ASSERT_POLL1(self->env.rcq[1], &wc);
		ASSERT_WC(&wc, 10 + i, IBV_WC_SUCCESS, IBV_WC_RECV);
		EXPECT_EQ(5000, wc.byte_len);
		ASSERT_SGL(&self->rb, &rs, 0, 5000, seed);
	}
	EXPECT_EQ(IBV_QPS_RTS, dp_qp_state(self->p.qp[0]));
	dp_pair_close(_metadata, &self->p);
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

#define RNR_RUNS	7

/*
 * The RNR wait lasts what the NAK asks for, not a scheduler tick: with
 * code 1 (0.01 ms) and rnr_retry 6, a SEND nobody receives fails after 7
 * RNR NAKs and 6 waits. The fastest of RNR_RUNS runs must take less than
 * 2 ms per wait. A wait rounded up to a jiffy ends on a tick, and each
 * one starts after the last ended, so 6 of them span at least 5 ticks
 * (20 ms at HZ=250) however fast the host is. The minimum, not the median,
 * is compared: a loaded host only makes runs slower, and one quiet run
 * shows the resolution.
 */
TEST_F(err, rnr_timer_resolution)
{
	long dt[RNR_RUNS], best = LONG_MAX;
	int i;

	for (i = 0; i < RNR_RUNS; i++) {
		struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
		struct ibv_wc wc;
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = i };
		long t0;

		o.rnr_retry = 6;
		o.min_rnr_timer = 1;
		dp_pair_open(_metadata, &self->env, &o, &self->p);
		t0 = now_us();
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		dt[i] = now_us() - t0;
		ASSERT_WC(&wc, i, IBV_WC_RNR_RETRY_EXC_ERR, 0);
		if (dt[i] < best)
			best = dt[i];
		dp_pair_close(_metadata, &self->p);
	}
	for (i = 0; i < RNR_RUNS; i++)
		TH_LOG("run %d: 6 RNR waits of 0.01 ms in %ld us", i, dt[i]);
	EXPECT_GT(6 * 2000, best) TH_LOG("fastest run: %ld us", best);
}

/*
 * A SEND stuck in an RNR wait of 655.36 ms (code 0), no receive posted:
 * after 50 ms without a completion it has had its first RNR NAK.
 */
static void rnr_stuck(struct __test_metadata *_metadata,
		      FIXTURE_DATA(err) *self)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 1 };

	o.rnr_retry = 7;
	o.min_rnr_timer = 0;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_QUIET_MS(self->env.scq[0], 50);
}

/*
 * Destroying a QP in an RNR wait cancels the wait: destroy does not wait
 * for it to end (a pending wait holds a reference on the QP), nothing
 * leaks.
 */
TEST_F(err, rnr_wait_then_destroy)
{
	long t0, dt;

	rnr_stuck(_metadata, self);
	t0 = dp_now_ms();
	ASSERT_EQ(0, ibv_destroy_qp(self->p.qp[0]));
	dt = dp_now_ms() - t0;
	self->p.qp[0] = NULL;
	EXPECT_GT(400, dt) TH_LOG("destroy took %ld ms", dt);
	dp_pair_close(_metadata, &self->p);
}

/* Moved to ERR in an RNR wait: the SEND is flushed at once. */
TEST_F(err, rnr_wait_then_err)
{
	long t0, dt;

	rnr_stuck(_metadata, self);
	t0 = dp_now_ms();
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_ERR));
	ASSERT_FLUSHED(self->env.scq[0], 1, 1, self->p.qp[0]->qp_num);
	dt = dp_now_ms() - t0;
	EXPECT_GT(400, dt) TH_LOG("flushed after %ld ms", dt);
	ASSERT_QUIET(self->env.scq[0]);
	dp_pair_close(_metadata, &self->p);
}

/*
 * Reset in an RNR wait: nothing completes, and after a new connection the
 * QP sends at once; the old wait neither holds it back nor disturbs it.
 */
TEST_F(err, rnr_wait_then_reset)
{
	struct dp_sgl ls, rs;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 2, .sgl = &ls };
	long t0, dt;
	int i;

	rnr_stuck(_metadata, self);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[i], IBV_QPS_RESET));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, dp_qp_connect(self->p.qp[i], &self->p.o,
					   self->p.qp[!i]->qp_num,
					   &self->env.gid, self->env.gid_index,
					   100 + i, 101 - i, false));
	dp_sgl_one(&self->lb, 0, 3000, &ls);
	dp_sgl_fill(&ls, 0x5c, 0);
	dp_sgl_one(&self->rb, 9, 3000, &rs);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 3));
	t0 = dp_now_ms();
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	dt = dp_now_ms() - t0;
	ASSERT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND);
	EXPECT_GT(400, dt) TH_LOG("sent after %ld ms", dt);
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 3, IBV_WC_SUCCESS, IBV_WC_RECV);
	ASSERT_SGL(&self->rb, &rs, 0, 3000, 0x5c);
	/* the reset dropped the stuck SEND without a completion */
	ASSERT_QUIET(self->env.scq[0]);
	dp_pair_close(_metadata, &self->p);
}

/* ---- transport retries ---------------------------------------------------- */

FIXTURE(gone) {
	struct dp_env env;
	struct dp_pair p;
};

FIXTURE_VARIANT(gone) {
	bool destroy;		/* destroy the peer, else move it to RESET */
	bool in_flight;		/* the peer goes while a SEND is RNR-stuck */
};

FIXTURE_VARIANT_ADD(gone, destroyed) { .destroy = true };
FIXTURE_VARIANT_ADD(gone, reset) { .destroy = false };
FIXTURE_VARIANT_ADD(gone, destroyed_mid_transfer) {
	.destroy = true, .in_flight = true };
FIXTURE_VARIANT_ADD(gone, reset_mid_transfer) {
	.destroy = false, .in_flight = true };

FIXTURE_SETUP(gone)
{
	dp_env_open(_metadata, &self->env, DEV, NULL);
}

FIXTURE_TEARDOWN(gone)
{
	dp_env_close(_metadata, &self->env);
}

/*
 * The peer is gone: nothing answers, the requester retries retry_cnt
 * times after each local ACK timeout (14: 67.1 ms) and fails with
 * RETRY_EXC_ERR after about 3 timeouts; the rest is flushed.
 */
TEST_F(gone, retry_exceeded)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_buf lb;
	struct dp_sgl ls;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 1, .sgl = &ls };
	long t0, dt;

	o.timeout = 14;
	o.retry_cnt = 2;
	o.rnr_retry = 7;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	do_buf_alloc(self->env.pd[0], 1 << 20, DP_ACCESS_ALL, &lb);
	dp_sgl_one(&lb, 0, 1 << 20, &ls);
	if (variant->in_flight) {
		/* stuck in RNR retries: no receive at the peer */
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_QUIET(self->env.scq[0]);
	}
	if (variant->destroy) {
		ASSERT_EQ(0, ibv_destroy_qp(self->p.qp[1]));
		self->p.qp[1] = NULL;
	} else {
		ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[1], IBV_QPS_RESET));
	}
	t0 = dp_now_ms();
	if (!variant->in_flight)
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	w.wr_id = 2;
	w.op = IBV_WR_RDMA_WRITE;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	dt = dp_now_ms() - t0;
	ASSERT_WC(&wc, 1, IBV_WC_RETRY_EXC_ERR, 0);
	ASSERT_FLUSHED(self->env.scq[0], 2, 1, self->p.qp[0]->qp_num);
	EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));
	/* 3 x 67.1 ms expected; some slack each way for a slow VM */
	EXPECT_LE(130, dt) TH_LOG("gave up after %ld ms", dt);
	EXPECT_GE(3000, dt) TH_LOG("gave up after %ld ms", dt);
	if (!variant->destroy)
		EXPECT_EQ(IBV_QPS_RESET, dp_qp_state(self->p.qp[1]));
	EXPECT_EQ(0, dp_buf_free(&lb));
	dp_pair_close(_metadata, &self->p);
}

/* ---- flushing by modify ------------------------------------------------------ */

/*
 * Receives and sends (held back in SQD) are all flushed in order when
 * the QP is moved to ERR; after RESET and a new connection the QPs carry
 * data again.
 */
TEST_F(err, modify_to_err_flushes_then_reset_reuses)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_wc wc;
	struct dp_sgl ls, rs;
	int i;

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, dp_post_recv(self->p.qp[0], NULL, 10 + i));
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_SQD));
	for (i = 0; i < 3; i++) {
		struct dp_wr w = { .op = IBV_WR_RDMA_WRITE,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 20 + i,
				   .raddr = (uintptr_t)self->rb.mem,
				   .rkey = self->rb.mr->rkey };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	}
	ASSERT_QUIET(self->env.scq[0]);
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_ERR));
	ASSERT_FLUSHED(self->env.rcq[0], 10, 5, self->p.qp[0]->qp_num);
	ASSERT_FLUSHED(self->env.scq[0], 20, 3, self->p.qp[0]->qp_num);
	posts_flush(_metadata, self->p.qp[0], self->env.scq[0],
		    self->env.rcq[0]);

	/* RESET both, connect again, send */
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[i], IBV_QPS_RESET));
	ASSERT_QUIET(self->env.rcq[1]);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, dp_qp_connect(self->p.qp[i], &o,
					   self->p.qp[!i]->qp_num,
					   &self->env.gid, 0, 100 + i, 101 - i,
					   false));
	dp_sgl_one(&self->lb, 0, 3000, &ls);
	dp_sgl_fill(&ls, 0x99, 0);
	dp_sgl_one(&self->rb, 5, 3000, &rs);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 30));
	{
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 31,
				   .sgl = &ls };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	}
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 31, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 30, IBV_WC_SUCCESS, IBV_WC_RECV);
	ASSERT_SGL(&self->rb, &rs, 0, 3000, 0x99);
	dp_pair_close(_metadata, &self->p);
}

/* ---- asynchronous events ---------------------------------------------------- */

/* The first packet reaching a QP in RTR raises COMM_EST, once. */
TEST_F(err, comm_est)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_async_event ev;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED };
	int i;

	o.stay_rtr = true;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	EXPECT_EQ(IBV_QPS_RTR, dp_qp_state(self->p.qp[1]));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, i));
		w.wr_id = i;
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_SEND);
		ASSERT_POLL1(self->env.rcq[1], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_RECV);
	}
	ASSERT_EQ(0, dp_wait_async(self->env.ctx[1], IBV_EVENT_COMM_EST, 2000,
				   &ev));
	EXPECT_EQ(self->p.qp[1], ev.element.qp);
	usleep(DP_QUIET_MS * 1000);
	EXPECT_EQ(0, dp_drain_async(self->env.ctx[1], IBV_EVENT_COMM_EST, NULL));
	/* the requester was in RTS: none there */
	EXPECT_EQ(0, dp_drain_async(self->env.ctx[0], IBV_EVENT_COMM_EST, NULL));
	dp_pair_close(_metadata, &self->p);

	/* both in RTS from the start: no COMM_EST */
	o.stay_rtr = false;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 5));
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.rcq[1], &wc);
	usleep(DP_QUIET_MS * 1000);
	EXPECT_EQ(0, dp_drain_async(self->env.ctx[1], IBV_EVENT_COMM_EST, NULL));
	dp_pair_close(_metadata, &self->p);
}

/*
 * SQD with a SEND in flight (RNR-stuck): sq_draining reads 1 and
 * SQ_DRAINED waits until the SEND completes; a request posted in SQD is
 * not started until RTS.
 */
TEST_F(err, sq_drained_with_sends_in_flight)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD,
				 .en_sqd_async_notify = 1 };
	struct ibv_qp_init_attr init;
	struct ibv_async_event ev;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 1 };

	o.rnr_retry = 7;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_QUIET(self->env.scq[0]);
	ASSERT_EQ(0, ibv_modify_qp(self->p.qp[0], &a,
				   IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY));
	ASSERT_EQ(0, ibv_query_qp(self->p.qp[0], &a, IBV_QP_STATE, &init));
	EXPECT_EQ(IBV_QPS_SQD, a.qp_state);
	EXPECT_EQ(1, a.sq_draining);
	EXPECT_EQ(-ETIMEDOUT, dp_wait_async(self->env.ctx[0],
					    IBV_EVENT_SQ_DRAINED, DP_QUIET_MS,
					    &ev));
	/* posted in SQD: waits */
	w.op = IBV_WR_RDMA_WRITE;
	w.wr_id = 2;
	w.raddr = (uintptr_t)self->rb.mem;
	w.rkey = self->rb.mr->rkey;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	/* the receive lets the SEND through: drained */
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 10));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_EQ(0, dp_wait_async(self->env.ctx[0], IBV_EVENT_SQ_DRAINED,
				   2000, &ev));
	EXPECT_EQ(self->p.qp[0], ev.element.qp);
	ASSERT_EQ(0, ibv_query_qp(self->p.qp[0], &a, IBV_QP_STATE, &init));
	EXPECT_EQ(IBV_QPS_SQD, a.qp_state);
	EXPECT_EQ(0, a.sq_draining);
	ASSERT_QUIET(self->env.scq[0]);
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_RTS));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	dp_pair_close(_metadata, &self->p);
}

/* ---- coalesced ACKs ----------------------------------------------------- */

/*
 * Post @n unsignaled RDMA WRITEs of 1000 bytes of message @seed, WRITE i
 * from lb at i KiB to rb at i KiB. An unsignaled WQE asks for no ACK: it
 * is acknowledged with the next request that asks.
 */
static void post_unsignaled_writes(struct __test_metadata *_metadata,
				   FIXTURE_DATA(err) *self, int n,
				   uint32_t seed)
{
	struct dp_sgl ls;
	struct dp_wr w = { .op = IBV_WR_RDMA_WRITE, .sgl = &ls,
			   .rkey = self->rb.mr->rkey };
	int i;

	for (i = 0; i < n; i++) {
		dp_sgl_one(&self->lb, i * 1024, 1000, &ls);
		dp_sgl_fill(&ls, seed, i * 1024);
		w.raddr = (uintptr_t)self->rb.mem + i * 1024;
		w.wr_id = i;
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w)) TH_LOG("WRITE %d", i);
	}
}

static void check_unsignaled_writes(struct __test_metadata *_metadata,
				    FIXTURE_DATA(err) *self, int n,
				    uint32_t seed)
{
	int i;

	for (i = 0; i < n; i++)
		EXPECT_EQ(-1, dp_check((uint8_t *)self->rb.mem + i * 1024,
				       1000, seed, i * 1024))
			TH_LOG("WRITE %d", i);
}

/*
 * A WQE that fails locally after unsignaled WRITEs completes after them
 * (in order): the requester asks for the ACK they did not ask for, and
 * then fails the WQE with LOC_PROT_ERR. Their data arrived.
 */
TEST_F(err, unsignaled_writes_then_local_error)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	uint32_t seed = dp_seed(71, 0, 0);
	struct dp_sgl ls;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 9, .sgl = &ls };

	o.sq_sig_all = 0;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	post_unsignaled_writes(_metadata, self, 3, seed);
	dp_sgl_one(&self->lb, 8192, 100, &ls);
	ls.sge[0].lkey ^= KEY_RANDOM_BIT;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 9, IBV_WC_LOC_PROT_ERR, 0);
	ASSERT_QUIET(self->env.scq[0]);
	check_unsignaled_writes(_metadata, self, 3, seed);
	dp_pair_close(_metadata, &self->p);
}

/*
 * SQD after unsignaled WRITEs: SQ_DRAINED comes once they are
 * acknowledged, which the requester asks for itself; back in RTS the QP
 * goes on.
 */
TEST_F(err, sq_drained_after_unsignaled_writes)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD,
				 .en_sqd_async_notify = 1 };
	uint32_t seed = dp_seed(72, 0, 0);
	struct ibv_async_event ev;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 9 };

	o.sq_sig_all = 0;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	post_unsignaled_writes(_metadata, self, 5, seed);
	ASSERT_EQ(0, ibv_modify_qp(self->p.qp[0], &a,
				   IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY));
	ASSERT_EQ(0, dp_wait_async(self->env.ctx[0], IBV_EVENT_SQ_DRAINED,
				   2000, &ev));
	EXPECT_EQ(self->p.qp[0], ev.element.qp);
	check_unsignaled_writes(_metadata, self, 5, seed);
	ASSERT_QUIET(self->env.scq[0]);
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_RTS));
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 10));
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 9, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 10, IBV_WC_SUCCESS, IBV_WC_RECV);
	dp_pair_close(_metadata, &self->p);
}

/*
 * An unsignaled WRITE that nothing follows is acknowledged once the
 * transport timer fires (the requester asks itself). Before that it is
 * outstanding: ERR flushes it (a 4 s timeout); after it (67 ms), ERR
 * finds nothing to flush. Its data arrived both times.
 */
TEST_F(err, unsignaled_write_acknowledged_by_the_timer)
{
	uint32_t seed = dp_seed(74, 0, 0);
	int i;

	for (i = 0; i < 2; i++) {
		struct dp_qp_opts o = dp_opts(IBV_QPT_RC);

		o.sq_sig_all = 0;
		o.timeout = i ? 14 : 20;
		dp_pair_open(_metadata, &self->env, &o, &self->p);
		post_unsignaled_writes(_metadata, self, 1, seed + i);
		if (i)
			usleep(1000 * 1000);
		ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_ERR));
		if (i) {
			ASSERT_QUIET(self->env.scq[0]);
		} else {
			ASSERT_FLUSHED(self->env.scq[0], 0, 1,
				       self->p.qp[0]->qp_num);
		}
		check_unsignaled_writes(_metadata, self, 1, seed + i);
		dp_pair_close(_metadata, &self->p);
	}
}

/*
 * Only unsignaled WQEs, many times the SQ's depth: slots come back
 * without a completion to wait for (an ACK is asked for when half the SQ
 * waits), so no post finds the SQ full.
 */
TEST_F(err, unsignaled_only_never_fills_the_sq)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	uint32_t seed = dp_seed(73, 0, 0);
	struct dp_sgl ls;
	struct dp_wr w = { .op = IBV_WR_RDMA_WRITE, .sgl = &ls,
			   .rkey = self->rb.mr->rkey };
	int i;

	o.sq_sig_all = 0;
	o.max_send_wr = 16;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (i = 0; i < 16 * 8; i++) {
		dp_sgl_one(&self->lb, (i % 8) * 1024, 1000, &ls);
		dp_sgl_fill(&ls, seed + i, 0);
		w.raddr = (uintptr_t)self->rb.mem + (i % 8) * 1024;
		w.wr_id = i;
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w)) TH_LOG("WQE %d", i);
	}
	ASSERT_QUIET(self->env.scq[0]);
	for (i = 16 * 8 - 8; i < 16 * 8; i++)
		EXPECT_EQ(-1, dp_check((uint8_t *)self->rb.mem +
				       (i % 8) * 1024, 1000, seed + i, 0))
			TH_LOG("WQE %d", i);
	dp_pair_close(_metadata, &self->p);
}

/* A QP on an SRQ moved to ERR raises LAST_WQE_REACHED. */
TEST_F(err, last_wqe_reached)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 16,
						     .max_sge = 1 } };
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC), o1;
	struct ibv_async_event ev;
	struct ibv_srq *srq;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 1 };

	srq = ibv_create_srq(self->env.pd[1], &sattr);
	ASSERT_NE(NULL, srq);
	o1 = o;
	o1.srq = srq;
	dp_pair_open2(_metadata, &self->env, &o, &o1, &self->p);
	ASSERT_EQ(0, dp_post_srq_recv(srq, NULL, 40));
	ASSERT_EQ(0, dp_post_srq_recv(srq, NULL, 41));
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 40, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(-ETIMEDOUT, dp_wait_async(self->env.ctx[1],
					    IBV_EVENT_QP_LAST_WQE_REACHED,
					    DP_QUIET_MS, &ev));
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[1], IBV_QPS_ERR));
	ASSERT_EQ(0, dp_wait_async(self->env.ctx[1],
				   IBV_EVENT_QP_LAST_WQE_REACHED, 2000, &ev));
	EXPECT_EQ(self->p.qp[1], ev.element.qp);
	/* the SRQ's receives are not the QP's: 41 is not flushed */
	ASSERT_QUIET(self->env.rcq[1]);
	dp_pair_close(_metadata, &self->p);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

/* ---- UC drops what it cannot place ------------------------------------------ */

/*
 * UC WRITEs with a bad rkey or out of the MR are dropped at the
 * responder: the requester completes successfully, no byte changes, no
 * receive is consumed (WRITE_WITH_IMM), both QPs stay in RTS, and the
 * next good SEND takes the first receive.
 */
TEST_F(err, uc_drops_bad_writes)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UC);
	struct dp_sgl ls, rs;
	struct ibv_wc wc;
	int i;

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	dp_sgl_one(&self->lb, 0, 3000, &ls);
	dp_sgl_fill(&ls, 0x42, 0);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 50));
	for (i = 0; i < 4; i++) {
		struct dp_wr w = {
			.op = i % 2 ? IBV_WR_RDMA_WRITE_WITH_IMM :
				      IBV_WR_RDMA_WRITE,
			.flags = IBV_SEND_SIGNALED, .wr_id = i, .sgl = &ls,
			.raddr = (uintptr_t)self->rb.mem + 100,
			.rkey = self->rb.mr->rkey,
		};

		if (i < 2)
			w.rkey ^= KEY_RANDOM_BIT;
		else
			w.raddr = (uintptr_t)self->rb.mem + self->rb.size - 10;
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	}
	ASSERT_QUIET(self->env.rcq[1]);
	EXPECT_EQ(IBV_QPS_RTS, dp_qp_state(self->p.qp[0]));
	EXPECT_EQ(IBV_QPS_RTS, dp_qp_state(self->p.qp[1]));
	EXPECT_EQ(-1, dp_check(self->rb.mem, self->rb.size,
			       dp_guard_seed(&self->rb), 0));
	/* a good message takes receive 50 */
	dp_sgl_one(&self->rb, 0, 3000, &rs);
	{
		struct dp_wr w = { .op = IBV_WR_RDMA_WRITE_WITH_IMM,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 9,
				   .sgl = &ls, .raddr = rs.sge[0].addr,
				   .rkey = self->rb.mr->rkey, .imm = 9 };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	}
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 50, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM);
	EXPECT_EQ(htonl(9), wc.imm_data);
	EXPECT_EQ(-1, dp_check(self->rb.mem, 3000, 0x42, 0));
	dp_pair_close(_metadata, &self->p);
}

TEST_HARNESS_MAIN
