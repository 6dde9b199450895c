// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows: type 1 bound by ibv_bind_mw() and unbound by a bind of
 * length 0, type 2 bound by IBV_WR_BIND_MW and unbound by
 * IBV_WR_LOCAL_INV or a peer's IBV_WR_SEND_WITH_INV (IBV_WC_WITH_INV at
 * the receiver); every byte of an access checked against the window's
 * range and rights, never the region's; a type 2 window reachable only
 * through the QP that bound it; every bind rule of the IB specification
 * (IBV_WC_MW_BIND_ERR); a region with a bound window cannot be
 * deregistered (EBUSY); deallocating a bound window, or closing the
 * context, leaves nothing behind.
 *
 * Side 1 of the pair owns the memory and the window; side 0 accesses it.
 */
#include "rnic_dp_test.h"

#define DEV "t_mw"
#define BUF 16384
#define WIN_OFF 4096
#define WIN_LEN 4096
#define MR_MW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND)

/* What both fixtures have: a connected RC pair and a buffer each. */
struct mw_env {
	struct dp_env env;
	struct dp_pair p;
	struct dp_buf lb, rb;
	struct ibv_mw *mw;
};

static void mw_env_open(struct __test_metadata *_metadata, struct mw_env *m)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);

	m->mw = NULL;
	dp_env_open(_metadata, &m->env, DEV, NULL);
	do_buf_alloc(m->env.pd[0], BUF, DP_ACCESS_ALL, &m->lb);
	/* the region grants nothing remote: only the window does */
	do_buf_alloc(m->env.pd[1], BUF, MR_MW, &m->rb);
	dp_buf_guard(&m->rb);
	dp_pair_open(_metadata, &m->env, &o, &m->p);
}

/* Windows of the device, as the resource counts report them. */
static int mw_count(struct __test_metadata *_metadata, struct mw_env *m)
{
	EXPECT_EQ(0, rnic_res_get(m->env.g, DEV, m->env.res));
	return (int)m->env.res->counts[RNIC_RES_MW];
}

FIXTURE(mw) {
	struct mw_env m;
};

FIXTURE_SETUP(mw)
{
	mw_env_open(_metadata, &self->m);
}

FIXTURE_TEARDOWN(mw)
{
	dp_env_close(_metadata, &self->m.env);
}

/* Post one work request on @qp and return its completion. */
static struct ibv_wc post1(struct __test_metadata *_metadata,
			   struct ibv_qp *qp, struct ibv_cq *cq,
			   struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc = { .status = -1 };

	wr->send_flags |= IBV_SEND_SIGNALED;
	EXPECT_EQ(0, ibv_post_send(qp, wr, &bad));
	EXPECT_EQ(1, dp_poll(cq, 1, &wc, DP_TIMEOUT_MS));
	return wc;
}

/* Bind a type 2 window over [WIN_OFF, +@len) of rb with @access. */
static struct ibv_wc bind2(struct __test_metadata *_metadata,
			   struct mw_env *m, struct ibv_mw *mw,
			   struct ibv_mr *mr, uint64_t len, unsigned int access,
			   uint32_t *rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = 0xb1,
		.opcode = IBV_WR_BIND_MW,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = {
				.mr = mr,
				.addr = (uintptr_t)m->rb.mem + WIN_OFF,
				.length = len,
				.mw_access_flags = access,
			},
		},
	};

	*rkey = wr.bind_mw.rkey;
	return post1(_metadata, m->p.qp[1], m->env.scq[1], &wr);
}

/* A new type 2 window over [WIN_OFF, +WIN_LEN) of rb with @access. */
static void window2(struct __test_metadata *_metadata, struct mw_env *m,
		    unsigned int access, uint32_t *rkey)
{
	struct ibv_wc wc;

	m->mw = ibv_alloc_mw(m->env.pd[1], IBV_MW_TYPE_2);
	ASSERT_NE(NULL, m->mw) TH_LOG("alloc_mw: %s", strerror(errno));
	wc = bind2(_metadata, m, m->mw, m->rb.mr, WIN_LEN, access, rkey);
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(IBV_WC_BIND_MW, wc.opcode);
	EXPECT_EQ(0xb1, wc.wr_id);
}

/* An RDMA WRITE or READ of @len bytes at @off of rb from side 0. */
static struct ibv_wc access0(struct __test_metadata *_metadata,
			     struct mw_env *m, enum ibv_wr_opcode op,
			     uint32_t rkey, size_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)m->lb.mem, .length = len,
		.lkey = m->lb.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 0xa0,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.wr.rdma = {
			.remote_addr = (uintptr_t)m->rb.mem + off,
			.rkey = rkey,
		},
	};

	return post1(_metadata, m->p.qp[0], m->env.scq[0], &wr);
}

#define ASSERT_STATUS(wc, st, op) do {					\
	ASSERT_EQ((st), (wc).status) TH_LOG(DP_WC_FMT, DP_WC_ARGS(&(wc))); \
	if ((st) == IBV_WC_SUCCESS)					\
		ASSERT_EQ((op), (wc).opcode);				\
} while (0)

/* Does rb hold @seed's pattern in [off, off + len) and its guard elsewhere? */
static void check_rb(struct __test_metadata *_metadata,
		     struct mw_env *m, size_t off, size_t len,
		     uint32_t seed)
{
	uint32_t guard = dp_guard_seed(&m->rb);

	EXPECT_EQ(-1, dp_check(m->rb.mem, off, guard, 0));
	EXPECT_EQ(-1, dp_check(m->rb.mem + off, len, seed, 0));
	EXPECT_EQ(-1, dp_check(m->rb.mem + off + len, BUF - off - len,
			       guard, off + len));
}

TEST_F(mw, type2_write_read_in_window)
{
	struct mw_env *m = &self->m;
	struct ibv_wc wc;
	uint32_t rkey;

	window2(_metadata, m, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		&rkey);
	EXPECT_EQ(1, mw_count(_metadata, m));

	dp_fill(m->lb.mem, WIN_LEN, 7, 0);
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, rkey, WIN_OFF,
		     WIN_LEN);
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	check_rb(_metadata, m, WIN_OFF, WIN_LEN, 7);

	memset(m->lb.mem, 0, WIN_LEN);
	wc = access0(_metadata, m, IBV_WR_RDMA_READ, rkey, WIN_OFF + 100,
		     512);
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	EXPECT_EQ(-1, dp_check(m->lb.mem, 512, 7, 100));

	/* the region's own rkey grants nothing remote */
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, m->rb.mr->rkey,
		     WIN_OFF, 8);
	ASSERT_STATUS(wc, IBV_WC_REM_ACCESS_ERR, 0);
	EXPECT_EQ(0, ibv_dealloc_mw(m->mw));
}

/*
 * rdma_rxe 6.1 lets a WRITE that starts inside a 4 KiB window run 156
 * bytes past it; here nothing of it lands.
 */
TEST_F(mw, write_past_window_end)
{
	struct mw_env *m = &self->m;
	struct ibv_wc wc;
	uint32_t rkey;

	window2(_metadata, m, IBV_ACCESS_REMOTE_WRITE, &rkey);
	dp_fill(m->lb.mem, BUF, 9, 0);
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, rkey,
		     WIN_OFF + WIN_LEN - 100, 256);
	ASSERT_STATUS(wc, IBV_WC_REM_ACCESS_ERR, 0);
	check_rb(_metadata, m, 0, 0, 0);
	EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(m->p.qp[1]));
}

TEST_F(mw, write_before_window_start)
{
	struct mw_env *m = &self->m;
	struct ibv_wc wc;
	uint32_t rkey;

	window2(_metadata, m, IBV_ACCESS_REMOTE_WRITE, &rkey);
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, rkey, WIN_OFF - 8,
		     16);
	ASSERT_STATUS(wc, IBV_WC_REM_ACCESS_ERR, 0);
	check_rb(_metadata, m, 0, 0, 0);
}

/* A window granting WRITE only: a READ through it is refused. */
TEST_F(mw, read_without_window_right)
{
	struct mw_env *m = &self->m;
	struct ibv_wc wc;
	uint32_t rkey;

	window2(_metadata, m, IBV_ACCESS_REMOTE_WRITE, &rkey);
	wc = access0(_metadata, m, IBV_WR_RDMA_READ, rkey, WIN_OFF, 64);
	ASSERT_STATUS(wc, IBV_WC_REM_ACCESS_ERR, 0);
}

TEST_F(mw, local_invalidate_then_access)
{
	struct mw_env *m = &self->m;
	struct ibv_send_wr inv = { .wr_id = 0x1c, .opcode = IBV_WR_LOCAL_INV };
	struct ibv_wc wc;
	uint32_t rkey;

	window2(_metadata, m, IBV_ACCESS_REMOTE_WRITE, &rkey);
	inv.invalidate_rkey = rkey;
	wc = post1(_metadata, m->p.qp[1], m->env.scq[1], &inv);
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV);
	/* unbound: the region is free to go */
	EXPECT_EQ(0, ibv_dereg_mr(m->rb.mr));
	m->rb.mr = NULL;
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, rkey, WIN_OFF, 8);
	ASSERT_STATUS(wc, IBV_WC_REM_ACCESS_ERR, 0);
	check_rb(_metadata, m, 0, 0, 0);
}

/* Invalidating what is not a bound type 2 window fails the QP. */
TEST_F(mw, local_invalidate_of_region_key)
{
	struct mw_env *m = &self->m;
	struct ibv_send_wr inv = { .wr_id = 0x1d, .opcode = IBV_WR_LOCAL_INV };
	struct ibv_wc wc;

	inv.invalidate_rkey = m->rb.mr->rkey;
	wc = post1(_metadata, m->p.qp[1], m->env.scq[1], &inv);
	ASSERT_STATUS(wc, IBV_WC_LOC_QP_OP_ERR, 0);
	EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(m->p.qp[1]));
}

static struct ibv_wc send_inv(struct __test_metadata *_metadata,
			      struct mw_env *m, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)m->lb.mem, .length = 32,
		.lkey = m->lb.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 0x5e,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_INV,
		.invalidate_rkey = rkey,
	};
	struct dp_sgl s;

	dp_sgl_one(&m->rb, 0, 64, &s);
	EXPECT_EQ(0, dp_post_recv(m->p.qp[1], &s, 0x4e));
	return post1(_metadata, m->p.qp[0], m->env.scq[0], &wr);
}

TEST_F(mw, send_with_invalidate)
{
	struct mw_env *m = &self->m;
	struct ibv_wc wc, rwc;
	uint32_t rkey;

	window2(_metadata, m, IBV_ACCESS_REMOTE_WRITE, &rkey);
	dp_fill(m->lb.mem, 32, 3, 0);
	wc = send_inv(_metadata, m, rkey);
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_EQ(1, dp_poll(m->env.rcq[1], 1, &rwc, DP_TIMEOUT_MS));
	ASSERT_STATUS(rwc, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(0x4e, rwc.wr_id);
	EXPECT_EQ(32, rwc.byte_len);
	EXPECT_EQ(IBV_WC_WITH_INV, rwc.wc_flags & (IBV_WC_WITH_INV |
						   IBV_WC_WITH_IMM));
	EXPECT_EQ(rkey, rwc.invalidated_rkey);
	EXPECT_EQ(-1, dp_check(m->rb.mem, 32, 3, 0));

	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, rkey, WIN_OFF, 8);
	ASSERT_STATUS(wc, IBV_WC_REM_ACCESS_ERR, 0);
}

/* IBTA class J: a SEND with invalidate of a key that names no window. */
TEST_F(mw, send_with_invalidate_bad_key)
{
	struct mw_env *m = &self->m;
	struct ibv_wc wc, rwc;

	wc = send_inv(_metadata, m, m->rb.mr->rkey);
	ASSERT_STATUS(wc, IBV_WC_REM_INV_REQ_ERR, 0);
	ASSERT_EQ(1, dp_poll(m->env.rcq[1], 1, &rwc, DP_TIMEOUT_MS));
	EXPECT_EQ(0x4e, rwc.wr_id);
	EXPECT_EQ(IBV_WC_REM_INV_REQ_ERR, rwc.status);
	EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(m->p.qp[1]));
}

TEST_F(mw, type1_bind_rebind_unbind)
{
	struct mw_env *m = &self->m;
	struct ibv_mw_bind b = {
		.wr_id = 0x71,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = m->rb.mr,
			.addr = (uintptr_t)m->rb.mem + WIN_OFF,
			.length = WIN_LEN,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
		},
	};
	struct ibv_wc wc;
	uint32_t old;

	m->mw = ibv_alloc_mw(m->env.pd[1], IBV_MW_TYPE_1);
	ASSERT_NE(NULL, m->mw);
	old = m->mw->rkey;
	ASSERT_EQ(0, ibv_bind_mw(m->p.qp[1], m->mw, &b));
	EXPECT_EQ(ibv_inc_rkey(old), m->mw->rkey);
	ASSERT_EQ(1, dp_poll(m->env.scq[1], 1, &wc, DP_TIMEOUT_MS));
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	EXPECT_EQ(0x71, wc.wr_id);

	dp_fill(m->lb.mem, 64, 5, 0);
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, m->mw->rkey,
		     WIN_OFF, 64);
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	check_rb(_metadata, m, WIN_OFF, 64, 5);

	/* a type 1 window is rebound while bound: the old rkey is dead */
	old = m->mw->rkey;
	b.bind_info.addr += 1024;
	ASSERT_EQ(0, ibv_bind_mw(m->p.qp[1], m->mw, &b));
	ASSERT_EQ(1, dp_poll(m->env.scq[1], 1, &wc, DP_TIMEOUT_MS));
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	EXPECT_NE(old, m->mw->rkey);
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, m->mw->rkey,
		     WIN_OFF + 1024 + WIN_LEN - 8, 8);
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);

	/* length 0 unbinds */
	b.bind_info.length = 0;
	ASSERT_EQ(0, ibv_bind_mw(m->p.qp[1], m->mw, &b));
	ASSERT_EQ(1, dp_poll(m->env.scq[1], 1, &wc, DP_TIMEOUT_MS));
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	EXPECT_EQ(0, ibv_dereg_mr(m->rb.mr)) TH_LOG("unbound: not busy");
	m->rb.mr = NULL;
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, m->mw->rkey,
		     WIN_OFF, 8);
	ASSERT_STATUS(wc, IBV_WC_REM_ACCESS_ERR, 0);
}

/* The verbs' own checks of ibv_bind_mw() and ibv_alloc_mw(). */
TEST_F(mw, verb_checks)
{
	struct mw_env *m = &self->m;
	struct ibv_mw_bind b = { .bind_info = { .length = 8 } };
	struct ibv_pd *pd2 = ibv_alloc_pd(m->env.ctx[1]);
	struct ibv_mr *mr2;
	struct ibv_mw *mw2;

	ASSERT_NE(NULL, pd2);
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_mw(m->env.pd[1], 3));
	EXPECT_EQ(EINVAL, errno);
	mw2 = ibv_alloc_mw(m->env.pd[1], IBV_MW_TYPE_2);
	ASSERT_NE(NULL, mw2);
	EXPECT_EQ(EINVAL, ibv_bind_mw(m->p.qp[1], mw2, &b));
	m->mw = ibv_alloc_mw(m->env.pd[1], IBV_MW_TYPE_1);
	ASSERT_NE(NULL, m->mw);
	EXPECT_EQ(EINVAL, ibv_bind_mw(m->p.qp[1], m->mw, &b))
		TH_LOG("a length without a region");
	mr2 = ibv_reg_mr(pd2, m->rb.mem, 4096, MR_MW);
	ASSERT_NE(NULL, mr2);
	b.bind_info.mr = mr2;
	EXPECT_EQ(EPERM, ibv_bind_mw(m->p.qp[1], m->mw, &b));
	EXPECT_NE(m->mw->rkey, mw2->rkey);
	EXPECT_NE(m->rb.mr->rkey & ~0xffu, mw2->rkey & ~0xffu);
	EXPECT_EQ(0, ibv_dealloc_mw(mw2));
	EXPECT_EQ(0, ibv_dealloc_mw(m->mw));
	EXPECT_EQ(0, ibv_dereg_mr(mr2));
	EXPECT_EQ(0, ibv_dealloc_pd(pd2));
	EXPECT_EQ(0, mw_count(_metadata, m));
}

/* A bound window holds its region: EBUSY until it is gone. */
TEST_F(mw, dereg_bound_region_busy)
{
	struct mw_env *m = &self->m;
	struct ibv_wc wc;
	uint32_t rkey;

	window2(_metadata, m, IBV_ACCESS_REMOTE_WRITE, &rkey);
	EXPECT_EQ(EBUSY, ibv_dereg_mr(m->rb.mr));
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, rkey, WIN_OFF, 8);
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	/* deallocating a bound window unbinds it */
	EXPECT_EQ(0, ibv_dealloc_mw(m->mw));
	EXPECT_EQ(0, ibv_dereg_mr(m->rb.mr));
	m->rb.mr = NULL;
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, rkey, WIN_OFF, 8);
	ASSERT_STATUS(wc, IBV_WC_REM_ACCESS_ERR, 0);
}

/* A type 2 window is reachable only through the QP that bound it. */
TEST_F(mw, type2_other_qp_refused)
{
	struct mw_env *m = &self->m;
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_pair p2;
	struct ibv_sge sge = {
		.addr = (uintptr_t)m->lb.mem, .length = 8,
		.lkey = m->lb.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 0x2a, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
	};
	struct ibv_wc wc;
	uint32_t rkey;

	window2(_metadata, m, IBV_ACCESS_REMOTE_WRITE, &rkey);
	dp_pair_open(_metadata, &m->env, &o, &p2);
	wr.wr.rdma.remote_addr = (uintptr_t)m->rb.mem + WIN_OFF;
	wr.wr.rdma.rkey = rkey;
	wc = post1(_metadata, p2.qp[0], m->env.scq[0], &wr);
	ASSERT_STATUS(wc, IBV_WC_REM_ACCESS_ERR, 0);
	dp_pair_close(_metadata, &p2);
	/* the QP that bound it still reaches it */
	wc = access0(_metadata, m, IBV_WR_RDMA_WRITE, rkey, WIN_OFF, 8);
	ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
}

/* Closing a context with bound windows leaves nothing behind. */
TEST_F(mw, close_with_bound_windows)
{
	struct mw_env *m = &self->m;
	struct ibv_wc wc;
	uint32_t rkey;
	int i;

	for (i = 0; i < 8; i++) {
		m->mw = ibv_alloc_mw(m->env.pd[1], IBV_MW_TYPE_2);
		ASSERT_NE(NULL, m->mw);
		wc = bind2(_metadata, m, m->mw, m->rb.mr, 64,
			   IBV_ACCESS_REMOTE_READ, &rkey);
		ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	}
	EXPECT_EQ(8, mw_count(_metadata, m));
	EXPECT_EQ(EBUSY, ibv_dereg_mr(m->rb.mr));
	/* the rings' mappings hold the file: QPs and CQs go first */
	dp_pair_close(_metadata, &m->p);
	EXPECT_EQ(0, ibv_destroy_cq(m->env.scq[1]));
	EXPECT_EQ(0, ibv_destroy_cq(m->env.rcq[1]));
	EXPECT_EQ(0, ibv_close_device(m->env.ctx[1]));
	m->env.ctx[1] = NULL;
	EXPECT_EQ(0, mw_count(_metadata, m));
	EXPECT_EQ(1, (int)m->env.res->counts[RNIC_RES_MR]) TH_LOG("lb's only");
}

/* ---- bind rules: each fails with IBV_WC_MW_BIND_ERR, the QP in ERR ---- */

enum bind_fault {
	B_MR_NO_BIND,		/* the region lacks IBV_ACCESS_MW_BIND */
	B_OUTSIDE_MR,		/* the window runs past the region */
	B_WRITE_NO_LOCAL_WRITE,	/* write rights, region not writable */
	B_TYPE2_BOUND,		/* a type 2 window bound already */
	B_TYPE2_ZERO_LENGTH,	/* type 2 with length 0 */
	B_WRONG_RKEY,		/* the new rkey changes more than the key byte */
	B_OTHER_PD,		/* window and QP in different PDs */
	B_ZERO_BASED,		/* IBV_ACCESS_ZERO_BASED */
};

FIXTURE(bind) {
	struct mw_env m;
};

FIXTURE_VARIANT(bind) {
	enum bind_fault fault;
};

FIXTURE_SETUP(bind)
{
	mw_env_open(_metadata, &self->m);
}

FIXTURE_TEARDOWN(bind)
{
	dp_env_close(_metadata, &self->m.env);
}

#define BIND(name, f) FIXTURE_VARIANT_ADD(bind, name) { .fault = f }
BIND(mr_without_mw_bind, B_MR_NO_BIND);
BIND(outside_region, B_OUTSIDE_MR);
BIND(write_right_region_not_writable, B_WRITE_NO_LOCAL_WRITE);
BIND(type2_already_bound, B_TYPE2_BOUND);
BIND(type2_zero_length, B_TYPE2_ZERO_LENGTH);
BIND(rkey_not_of_window, B_WRONG_RKEY);
BIND(window_of_other_pd, B_OTHER_PD);
BIND(zero_based, B_ZERO_BASED);

TEST_F(bind, rule)
{
	struct mw_env *m = &self->m;
	struct ibv_pd *pd2 = NULL;
	struct ibv_mr *mr = m->rb.mr;
	unsigned int access = IBV_ACCESS_REMOTE_WRITE;
	uint64_t len = WIN_LEN;
	struct ibv_wc wc;
	uint32_t rkey;

	m->mw = ibv_alloc_mw(m->env.pd[1], IBV_MW_TYPE_2);
	ASSERT_NE(NULL, m->mw);
	switch (variant->fault) {
	case B_MR_NO_BIND:
		mr = do_ptr(ibv_reg_mr(m->env.pd[1], m->rb.mem, BUF,
				       IBV_ACCESS_LOCAL_WRITE));
		break;
	case B_OUTSIDE_MR:
		len = BUF - WIN_OFF + 1;
		break;
	case B_WRITE_NO_LOCAL_WRITE:
		mr = do_ptr(ibv_reg_mr(m->env.pd[1], m->rb.mem, BUF,
				       IBV_ACCESS_MW_BIND));
		break;
	case B_TYPE2_BOUND:
		wc = bind2(_metadata, m, m->mw, mr, len, access, &rkey);
		ASSERT_STATUS(wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		m->mw->rkey = rkey;
		break;
	case B_TYPE2_ZERO_LENGTH:
		len = 0;
		break;
	case B_WRONG_RKEY:
		m->mw->rkey ^= 0x100;
		break;
	case B_OTHER_PD:
		pd2 = do_ptr(ibv_alloc_pd(m->env.ctx[1]));
		EXPECT_EQ(0, ibv_dealloc_mw(m->mw));
		m->mw = do_ptr(ibv_alloc_mw(pd2, IBV_MW_TYPE_2));
		break;
	case B_ZERO_BASED:
		access |= IBV_ACCESS_ZERO_BASED;
		break;
	}
	wc = bind2(_metadata, m, m->mw, mr, len, access, &rkey);
	ASSERT_EQ(IBV_WC_MW_BIND_ERR, wc.status)
		TH_LOG(DP_WC_FMT, DP_WC_ARGS(&wc));
	EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(m->p.qp[1]));
	/* nothing was bound: the region deregisters */
	if (mr != m->rb.mr) {
		EXPECT_EQ(0, ibv_dereg_mr(mr));
	} else if (variant->fault != B_TYPE2_BOUND) {
		EXPECT_EQ(0, ibv_dereg_mr(m->rb.mr));
		m->rb.mr = NULL;
	}
	if (pd2) {
		EXPECT_EQ(0, ibv_dealloc_mw(m->mw));
		EXPECT_EQ(0, ibv_dealloc_pd(pd2));
	}
}
TEST_HARNESS_MAIN
