// SPDX-License-Identifier: GPL-2.0
/*
 * Data integrity of every operation of every QP type: RC SEND, SEND with
 * immediate, RDMA WRITE (with immediate), RDMA READ and the atomics; UC
 * SEND and WRITE with and without immediate; UD SEND with and without
 * immediate (GRH, src_qp, Q_Key). Sizes from 0 to 64 MiB across the path
 * MTU (1024 and 4096), 1, 2 and the most SGEs on either side at odd
 * offsets, inline data, signaled and unsignaled requests, a full send
 * queue completing in order, the fence, PSNs wrapping, the pair in one
 * context, in two processes, and over the IPv4 GID of a device bound to
 * lo. Every byte is checked, and so are the bytes around every
 * destination. The size and SGE matrices run twice more with one packet
 * per request (a device made with max_burst 1): the FIRST/MIDDLE/LAST
 * packets a wire link carries. Seeds: see rnic_dp_test.h.
 */
#include "rnic_dp_test.h"

#define DEV "t_dpops"

static const char *op_name(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND: return "SEND";
	case IBV_WR_SEND_WITH_IMM: return "SEND_WITH_IMM";
	case IBV_WR_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WR_RDMA_WRITE_WITH_IMM: return "RDMA_WRITE_WITH_IMM";
	case IBV_WR_RDMA_READ: return "RDMA_READ";
	default: return "?";
	}
}

static bool has_imm(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static bool is_send(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM;
}

static enum ibv_wc_opcode wc_op(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	default:
		return IBV_WC_SEND;
	}
}

/**
 * struct xfer - one RC/UC transfer to check
 * @op: SEND, SEND_WITH_IMM, RDMA_WRITE(_WITH_IMM) or RDMA_READ
 * @len: message bytes
 * @lsge: pieces on side 0 (the requester): the gather list of a SEND or
 *	WRITE, the scatter list of a READ
 * @rsge: pieces of the receive on side 1 (SEND); RDMA targets are one
 *	piece at an odd offset
 * @flags: send flags besides IBV_SEND_SIGNALED
 */
struct xfer {
	enum ibv_wr_opcode op;
	size_t len;
	int lsge;
	int rsge;
	unsigned int flags;
};

/*
 * Run @x over @p (side 0 requests) and check everything: completions on
 * both sides, the destination byte for byte, and that nothing around it
 * or in the source changed. With IBV_SEND_INLINE the source lives in
 * unregistered memory and is overwritten right after the post.
 */
static void xfer(struct __test_metadata *_metadata, struct dp_env *env,
		 struct dp_pair *p, const struct xfer *x, uint32_t seed)
{
	int n = x->lsge > x->rsge ? x->lsge : x->rsge;
	size_t room = dp_sgl_room(x->len, n);
	uint32_t imm = seed ^ 0x01020304;
	struct dp_buf lb, rb, ib = { 0 };
	struct dp_sgl ls, rs;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = x->op,
		.flags = x->flags | IBV_SEND_SIGNALED,
		.wr_id = 0xfeed000000000000ULL | seed,
		.sgl = &ls,
		.imm = imm,
	};
	bool inl = x->flags & IBV_SEND_INLINE;
	int ret;

	ASSERT_EQ(0, dp_buf_alloc(env->pd[0], room, DP_ACCESS_ALL, &lb));
	ASSERT_EQ(0, dp_buf_alloc(env->pd[1], room, DP_ACCESS_ALL, &rb));
	dp_buf_guard(&lb);
	dp_buf_guard(&rb);
	ASSERT_EQ(0, dp_sgl_make(&lb, 0, x->len, x->lsge, seed, &ls));
	ASSERT_EQ(0, dp_sgl_make(&rb, 0, x->len,
				 is_send(x->op) ? x->rsge : 1, ~seed, &rs));
	if (x->op == IBV_WR_RDMA_READ)
		dp_sgl_fill(&rs, seed, 0);
	else
		dp_sgl_fill(&ls, seed, 0);
	if (x->len == 0 && x->lsge == 0)
		w.sgl = NULL;
	if (inl) {
		/* the source: a copy in memory no MR covers, lkey 0 */
		ib.size = room;
		ib.mem = malloc(room);
		ASSERT_NE(NULL, ib.mem);
		memcpy(ib.mem, lb.mem, room);
		for (n = 0; n < ls.n; n++) {
			ls.sge[n].addr += (uintptr_t)ib.mem - (uintptr_t)lb.mem;
			ls.sge[n].lkey = 0;
		}
	}
	w.raddr = rs.sge[0].addr;
	w.rkey = rb.mr->rkey;
	if (is_send(x->op)) {
		ASSERT_EQ(0, dp_post_recv(p->qp[1], &rs, ~w.wr_id));
	} else if (x->op == IBV_WR_RDMA_WRITE_WITH_IMM) {
		/* consumes a receive, which needs no SGE */
		ASSERT_EQ(0, dp_post_recv(p->qp[1], NULL, ~w.wr_id));
	}

	ret = dp_post(p->qp[0], &w);
	ASSERT_EQ(0, ret) TH_LOG("post %s len %zu: %s", op_name(x->op),
				 x->len, strerror(ret));
	if (inl) {
		/* Inline data was copied at post time. */
		memset(ib.mem, 0xee, room);
		free(ib.mem);
	}
	ASSERT_POLL1(env->scq[0], &wc);
	ASSERT_WC(&wc, w.wr_id, IBV_WC_SUCCESS, wc_op(x->op));
	EXPECT_EQ(p->qp[0]->qp_num, wc.qp_num);
	if (x->op == IBV_WR_RDMA_READ)
		EXPECT_EQ(x->len, wc.byte_len);

	if (is_send(x->op) || x->op == IBV_WR_RDMA_WRITE_WITH_IMM) {
		ASSERT_POLL1(env->rcq[1], &wc);
		ASSERT_WC(&wc, ~w.wr_id, IBV_WC_SUCCESS,
			  is_send(x->op) ? IBV_WC_RECV :
					   IBV_WC_RECV_RDMA_WITH_IMM);
		EXPECT_EQ(x->len, wc.byte_len);
		EXPECT_EQ(p->qp[1]->qp_num, wc.qp_num);
		if (has_imm(x->op)) {
			EXPECT_EQ(IBV_WC_WITH_IMM, wc.wc_flags & IBV_WC_WITH_IMM);
			EXPECT_EQ(htonl(imm), wc.imm_data);
		} else {
			EXPECT_EQ(0, wc.wc_flags & IBV_WC_WITH_IMM);
		}
		EXPECT_EQ(0, wc.wc_flags & IBV_WC_GRH);
	}
	/* no second completion on either side (dp_pair_close() waits) */
	ASSERT_QUIET_MS(env->rcq[1], 0);
	ASSERT_QUIET_MS(env->scq[0], 0);

	if (x->op == IBV_WR_RDMA_READ) {
		ASSERT_SGL(&lb, &ls, 0, x->len, seed);
		ASSERT_SGL(&rb, &rs, 0, x->len, seed);
	} else {
		ASSERT_SGL(&rb, &rs, 0, x->len, seed);
		if (!inl)
			ASSERT_SGL(&lb, &ls, 0, x->len, seed);
	}
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
}

/* The sizes every operation goes through, around the path MTU. */
static int sizes(enum ibv_mtu mtu, size_t *sz)
{
	size_t m = 128u << mtu;
	int n = 0;

	sz[n++] = 0;
	sz[n++] = 1;
	sz[n++] = 63;
	sz[n++] = m - 1;
	sz[n++] = m;
	sz[n++] = m + 1;
	sz[n++] = 3 * m + 7;
	sz[n++] = 64 << 10;
	/* one byte past a burst of the local link (RNIC_BURST_BYTES) */
	sz[n++] = (64 << 10) + 1;
	sz[n++] = (192 << 10) + 7;
	sz[n++] = 1 << 20;
	return n;
}

/* ---- every size, per path MTU ----------------------------------------- */

FIXTURE(ops) {
	struct dp_env env;
	struct dp_pair p;
	int max_sge;
};

/* @max_burst: of the device (RNIC_NL_ATTR_MAX_BURST), 0 for the link's */
FIXTURE_VARIANT(ops) {
	enum ibv_mtu mtu;
	uint32_t max_burst;
};

FIXTURE_VARIANT_ADD(ops, mtu1024) { .mtu = IBV_MTU_1024 };
FIXTURE_VARIANT_ADD(ops, mtu4096) { .mtu = IBV_MTU_4096 };
FIXTURE_VARIANT_ADD(ops, mtu1024_one_packet) {
	.mtu = IBV_MTU_1024, .max_burst = 1
};
FIXTURE_VARIANT_ADD(ops, mtu4096_one_packet) {
	.mtu = IBV_MTU_4096, .max_burst = 1
};

FIXTURE_SETUP(ops)
{
	dp_env_open_burst(_metadata, &self->env, DEV, NULL,
			  variant->max_burst);
	self->max_sge = self->env.dattr.max_sge < DP_MAX_SGE ?
			self->env.dattr.max_sge : DP_MAX_SGE;
	if (self->env.dattr.max_sge_rd < self->max_sge)
		self->max_sge = self->env.dattr.max_sge_rd;
	ASSERT_LE(2, self->max_sge);
}

FIXTURE_TEARDOWN(ops)
{
	struct ibv_wc wc;

	/* nothing came late, after the checks */
	EXPECT_EQ(0, dp_poll(self->env.rcq[1], 1, &wc, 0));
	EXPECT_EQ(0, dp_poll(self->env.scq[0], 1, &wc, 0));
	dp_env_close(_metadata, &self->env);
}

static void open_pair(struct __test_metadata *_metadata,
		      FIXTURE_DATA(ops) *self, enum ibv_qp_type type,
		      enum ibv_mtu mtu)
{
	struct dp_qp_opts o = dp_opts(type);

	o.mtu = mtu;
	o.max_send_sge = self->max_sge;
	o.max_recv_sge = self->max_sge;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
}

static void every_size(struct __test_metadata *_metadata,
		       FIXTURE_DATA(ops) *self, enum ibv_qp_type type,
		       enum ibv_mtu mtu, enum ibv_wr_opcode op)
{
	size_t sz[16];
	int i, n;

	open_pair(_metadata, self, type, mtu);
	n = sizes(mtu, sz);
	for (i = 0; i < n; i++) {
		struct xfer x = { .op = op, .len = sz[i], .lsge = 1, .rsge = 1 };

		xfer(_metadata, &self->env, &self->p, &x,
		     dp_seed(type, op, sz[i]));
	}
	dp_pair_close(_metadata, &self->p);
}

TEST_F_TIMEOUT(ops, rc_send, 60)
{
	every_size(_metadata, self, IBV_QPT_RC, variant->mtu, IBV_WR_SEND);
}

TEST_F_TIMEOUT(ops, rc_send_imm, 60)
{
	every_size(_metadata, self, IBV_QPT_RC, variant->mtu, IBV_WR_SEND_WITH_IMM);
}

TEST_F_TIMEOUT(ops, rc_write, 60)
{
	every_size(_metadata, self, IBV_QPT_RC, variant->mtu, IBV_WR_RDMA_WRITE);
}

TEST_F_TIMEOUT(ops, rc_write_imm, 60)
{
	every_size(_metadata, self, IBV_QPT_RC, variant->mtu,
		   IBV_WR_RDMA_WRITE_WITH_IMM);
}

TEST_F_TIMEOUT(ops, rc_read, 60)
{
	every_size(_metadata, self, IBV_QPT_RC, variant->mtu, IBV_WR_RDMA_READ);
}

TEST_F_TIMEOUT(ops, uc_send, 60)
{
	every_size(_metadata, self, IBV_QPT_UC, variant->mtu, IBV_WR_SEND);
}

TEST_F_TIMEOUT(ops, uc_send_imm, 60)
{
	every_size(_metadata, self, IBV_QPT_UC, variant->mtu, IBV_WR_SEND_WITH_IMM);
}

TEST_F_TIMEOUT(ops, uc_write, 60)
{
	every_size(_metadata, self, IBV_QPT_UC, variant->mtu, IBV_WR_RDMA_WRITE);
}

TEST_F_TIMEOUT(ops, uc_write_imm, 60)
{
	every_size(_metadata, self, IBV_QPT_UC, variant->mtu,
		   IBV_WR_RDMA_WRITE_WITH_IMM);
}

/*
 * 1, 2 and the most SGEs on each side, cut at odd offsets, for sizes
 * around the MTU: piece boundaries and packet boundaries fall anywhere.
 */
static void sge_matrix(struct __test_metadata *_metadata,
		       FIXTURE_DATA(ops) *self, enum ibv_qp_type type,
		       enum ibv_mtu mtu)
{
	static const enum ibv_wr_opcode rc_ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
	};
	size_t m = 128u << mtu;
	size_t sz[] = { 63, m + 1, 5 * m - 3 };
	int counts[] = { 1, 2, self->max_sge };
	int nops = type == IBV_QPT_RC ? 5 : 4;
	int o, s, a, b;

	open_pair(_metadata, self, type, mtu);
	for (o = 0; o < nops; o++)
		for (s = 0; s < 3; s++)
			for (a = 0; a < 3; a++)
				for (b = 0; b < 3; b++) {
					struct xfer x = {
						.op = rc_ops[o],
						.len = sz[s],
						.lsge = counts[a],
						.rsge = counts[b],
					};

					/* RDMA targets are one piece */
					if (!is_send(x.op) && b)
						continue;
					xfer(_metadata, &self->env, &self->p,
					     &x, dp_seed(type + 16 * o, s,
							 a * 8 + b));
				}
	dp_pair_close(_metadata, &self->p);
}

TEST_F_TIMEOUT(ops, rc_sge_matrix, 120)
{
	sge_matrix(_metadata, self, IBV_QPT_RC, variant->mtu);
}

TEST_F_TIMEOUT(ops, uc_sge_matrix, 120)
{
	sge_matrix(_metadata, self, IBV_QPT_UC, variant->mtu);
}

/* ---- one-off cases ---------------------------------------------------- */

FIXTURE(dp) {
	struct dp_env env;
	struct dp_pair p;
};

FIXTURE_SETUP(dp)
{
	dp_env_open(_metadata, &self->env, DEV, NULL);
}

FIXTURE_TEARDOWN(dp)
{
	struct ibv_wc wc;

	EXPECT_EQ(0, dp_poll(self->env.rcq[1], 1, &wc, 0));
	EXPECT_EQ(0, dp_poll(self->env.scq[0], 1, &wc, 0));
	dp_env_close(_metadata, &self->env);
}

static void big(struct __test_metadata *_metadata, FIXTURE_DATA(dp) *self,
		enum ibv_qp_type type, enum ibv_wr_opcode op)
{
	struct dp_qp_opts o = dp_opts(type);
	struct xfer x = { .op = op, .len = 64 << 20, .lsge = 1, .rsge = 1 };

	o.mtu = IBV_MTU_4096;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	xfer(_metadata, &self->env, &self->p, &x, dp_seed(type, op, 64));
	dp_pair_close(_metadata, &self->p);
}

TEST_F_TIMEOUT(dp, rc_send_64mib, 120)
{
	big(_metadata, self, IBV_QPT_RC, IBV_WR_SEND);
}

TEST_F_TIMEOUT(dp, rc_send_imm_64mib, 120)
{
	big(_metadata, self, IBV_QPT_RC, IBV_WR_SEND_WITH_IMM);
}

TEST_F_TIMEOUT(dp, rc_write_64mib, 120)
{
	big(_metadata, self, IBV_QPT_RC, IBV_WR_RDMA_WRITE);
}

TEST_F_TIMEOUT(dp, rc_write_imm_64mib, 120)
{
	big(_metadata, self, IBV_QPT_RC, IBV_WR_RDMA_WRITE_WITH_IMM);
}

TEST_F_TIMEOUT(dp, rc_read_64mib, 120)
{
	big(_metadata, self, IBV_QPT_RC, IBV_WR_RDMA_READ);
}

TEST_F_TIMEOUT(dp, uc_send_64mib, 120)
{
	big(_metadata, self, IBV_QPT_UC, IBV_WR_SEND);
}

TEST_F_TIMEOUT(dp, uc_write_64mib, 120)
{
	big(_metadata, self, IBV_QPT_UC, IBV_WR_RDMA_WRITE);
}

/*
 * A message that takes far longer to move than the local ACK timeout
 * (12: 16.8 ms; 16 MiB at a 256-byte MTU is 65536 packets) must not be
 * taken for a lost one: the peer acknowledges as it goes, so it
 * completes. A timeout that does fire (a slow VM) must resend from the
 * first packet not acknowledged, or the message never catches up.
 */
TEST_F_TIMEOUT(dp, rc_message_longer_than_ack_timeout, 120)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
	};
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	int i;

	o.mtu = IBV_MTU_256;
	o.timeout = 12;
	o.retry_cnt = 2;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (i = 0; i < 3; i++) {
		struct xfer x = { .op = ops[i], .len = 16 << 20, .lsge = 1,
				  .rsge = 1 };

		xfer(_metadata, &self->env, &self->p, &x, dp_seed(0x10, i, 10));
	}
	dp_pair_close(_metadata, &self->p);
}

/*
 * The peer answers at once: no request may wait for the transport timer.
 * With a local ACK timeout of 1.07 s (18), each of 32 WRITEs of 256 KiB
 * completes in well under that; one that waits for a timeout and a
 * resend (an acknowledgment that went unnoticed) takes longer.
 */
TEST_F_TIMEOUT(dp, rc_no_completion_waits_for_the_timer, 120)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	const size_t len = 256 << 10;
	struct dp_buf lb, rb;
	struct ibv_wc wc;
	struct dp_sgl s;
	int i;

	o.mtu = IBV_MTU_4096;
	o.timeout = 18;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	do_buf_alloc(self->env.pd[0], len, DP_ACCESS_ALL, &lb);
	do_buf_alloc(self->env.pd[1], len, DP_ACCESS_ALL, &rb);
	dp_sgl_one(&lb, 0, len, &s);
	for (i = 0; i < 32; i++) {
		struct dp_wr w = { .op = IBV_WR_RDMA_WRITE,
				   .flags = IBV_SEND_SIGNALED, .wr_id = i,
				   .sgl = &s, .raddr = (uintptr_t)rb.mem,
				   .rkey = rb.mr->rkey };
		long t0 = dp_now_ms(), dt;

		dp_fill(lb.mem, len, dp_seed(0x18, i, 0), 0);
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		dt = dp_now_ms() - t0;
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		EXPECT_GT(800, dt) TH_LOG("WRITE %d took %ld ms", i, dt);
		EXPECT_EQ(-1, dp_check(rb.mem, len, dp_seed(0x18, i, 0), 0));
	}
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
	dp_pair_close(_metadata, &self->p);
}

/* A message in SGEs of zero bytes, and no SGE at all. */
TEST_F(dp, zero_byte_messages)
{
	static const enum ibv_wr_opcode rc_ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
	};
	struct dp_qp_opts o;
	int t, i, nsge;

	for (t = IBV_QPT_RC; t <= IBV_QPT_UC; t++) {
		o = dp_opts(t);
		dp_pair_open(_metadata, &self->env, &o, &self->p);
		for (i = 0; i < (t == IBV_QPT_RC ? 5 : 4); i++)
			for (nsge = 0; nsge <= 1; nsge++) {
				struct xfer x = { .op = rc_ops[i],
						  .lsge = nsge, .rsge = 1 };

				xfer(_metadata, &self->env, &self->p, &x,
				     dp_seed(t, i, nsge));
			}
		dp_pair_close(_metadata, &self->p);
	}
}

/* Inline sends: any number of SGEs, no MR, copied at post time. */
TEST_F(dp, inline_data)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM,
	};
	struct dp_qp_opts o;
	size_t sz[5];
	int t, i, s, nsge;

	for (t = IBV_QPT_RC; t <= IBV_QPT_UC; t++) {
		o = dp_opts(t);
		o.max_inline = 200;
		dp_pair_open(_metadata, &self->env, &o, &self->p);
		sz[0] = 1;
		sz[1] = 17;
		sz[2] = 64;
		sz[3] = 199;
		sz[4] = o.max_inline;
		{
			struct ibv_qp_init_attr init;
			struct ibv_qp_attr a;

			ASSERT_EQ(0, ibv_query_qp(self->p.qp[0], &a, 0, &init));
			ASSERT_LE(200, init.cap.max_inline_data);
			sz[4] = init.cap.max_inline_data;
		}
		for (i = 0; i < 4; i++)
			for (s = 0; s < 5; s++)
				for (nsge = 1; nsge <= 3; nsge++) {
					struct xfer x = {
						.op = ops[i], .len = sz[s],
						.lsge = nsge, .rsge = 2,
						.flags = IBV_SEND_INLINE,
					};

					xfer(_metadata, &self->env, &self->p,
					     &x, dp_seed(t, i, s * 4 + nsge));
				}
		dp_pair_close(_metadata, &self->p);
	}
}

/*
 * The most inline data into the most receive pieces, across a page
 * boundary: the copy from the kernel's WQE copy walks 32 pieces, one of
 * them split by the page end.
 */
TEST_F(dp, inline_data_into_many_pieces)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	uint32_t seed = dp_seed(0x1d, 0, 0);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	struct dp_buf rb;
	struct dp_sgl ls, rs;
	struct ibv_wc wc;
	uint8_t *src;
	size_t len;
	struct dp_wr w = {
		.op = IBV_WR_SEND_WITH_IMM,
		.flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		.wr_id = 0x1d1d,
		.sgl = &ls,
		.imm = 0x1d,
	};

	o.max_inline = 512;
	o.max_recv_sge = DP_MAX_SGE;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	ASSERT_EQ(0, ibv_query_qp(self->p.qp[0], &a, 0, &init));
	len = init.cap.max_inline_data;
	ASSERT_LE(512, len);
	ASSERT_EQ(0, ibv_query_qp(self->p.qp[1], &a, 0, &init));
	ASSERT_LE(DP_MAX_SGE, init.cap.max_recv_sge);
	do_buf_alloc(self->env.pd[1], 3 * 4096, DP_ACCESS_ALL, &rb);
	dp_buf_guard(&rb);
	/* 32 pieces from 400 bytes before the first page boundary on */
	ASSERT_EQ(0, dp_sgl_make(&rb, 4096 - 400, len, DP_MAX_SGE, ~seed,
				 &rs));
	ASSERT_EQ(DP_MAX_SGE, rs.n);
	ASSERT_LT(4096, rs.sge[rs.n - 1].addr - (uintptr_t)rb.mem);
	src = malloc(len);
	ASSERT_NE(NULL, src);
	dp_fill(src, len, seed, 0);
	ls.n = 1;
	ls.len = len;
	ls.sge[0].addr = (uintptr_t)src;
	ls.sge[0].length = len;
	ls.sge[0].lkey = 0;

	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, ~w.wr_id));
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	/* copied at post time */
	memset(src, 0xee, len);
	free(src);
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, w.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, ~w.wr_id, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(len, wc.byte_len);
	EXPECT_EQ(htonl(0x1d), wc.imm_data);
	ASSERT_SGL(&rb, &rs, 0, len, seed);
	dp_pair_close(_metadata, &self->p);
	EXPECT_EQ(0, dp_buf_free(&rb));
}

/* IBV_SEND_SOLICITED and IBV_SEND_FENCE change nothing in the data. */
TEST_F(dp, solicited_and_fence_flags)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
	};
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	int i;

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (i = 0; i < 5; i++) {
		struct xfer x = { .op = ops[i], .len = 3000, .lsge = 2,
				  .rsge = 2, .flags = IBV_SEND_SOLICITED };

		xfer(_metadata, &self->env, &self->p, &x, dp_seed(1, i, 0));
		x.flags = IBV_SEND_FENCE;
		xfer(_metadata, &self->env, &self->p, &x, dp_seed(2, i, 0));
	}
	dp_pair_close(_metadata, &self->p);
}

/* PSNs wrap at 2^24: start just below and move a few thousand packets. */
TEST_F(dp, psn_wrap)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
	};
	struct dp_qp_opts o;
	int t, i;

	for (t = IBV_QPT_RC; t <= IBV_QPT_UC; t++) {
		o = dp_opts(t);
		o.mtu = IBV_MTU_256;
		o.psn = 0xfffff0;
		dp_pair_open(_metadata, &self->env, &o, &self->p);
		for (i = 0; i < (t == IBV_QPT_RC ? 3 : 2); i++) {
			struct xfer x = { .op = ops[i], .len = 300000,
					  .lsge = 3, .rsge = 3 };

			xfer(_metadata, &self->env, &self->p, &x,
			     dp_seed(t, i, 0xfff));
		}
		dp_pair_close(_metadata, &self->p);
	}
}

/*
 * Unsignaled requests complete silently (their data still lands), the
 * signaled ones in order; with sq_sig_all every request completes.
 */
TEST_F(dp, signaled_and_unsignaled)
{
	struct dp_buf lb, rb;
	struct ibv_wc wc[16];
	struct dp_qp_opts o;
	int sig_all, i;

	for (sig_all = 0; sig_all <= 1; sig_all++) {
		o = dp_opts(IBV_QPT_RC);
		o.sq_sig_all = sig_all;
		dp_pair_open(_metadata, &self->env, &o, &self->p);
		do_buf_alloc(self->env.pd[0], 16 * 4096, DP_ACCESS_ALL, &lb);
		do_buf_alloc(self->env.pd[1], 16 * 4096, DP_ACCESS_ALL, &rb);
		dp_buf_guard(&rb);
		for (i = 0; i < 8; i++) {
			struct dp_sgl s;
			struct dp_wr w = {
				.op = IBV_WR_RDMA_WRITE,
				.flags = i % 2 ? IBV_SEND_SIGNALED : 0,
				.wr_id = 100 + i,
				.sgl = &s,
				.raddr = (uintptr_t)rb.mem + i * 4096 + 1,
				.rkey = rb.mr->rkey,
			};

			dp_sgl_one(&lb, i * 4096, 4000, &s);
			dp_sgl_fill(&s, dp_seed(sig_all, i, 7), 0);
			ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		}
		/* A SEND behind them, signaled: when it completed, all did. */
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 1));
		{
			struct dp_wr w = { .op = IBV_WR_SEND,
					   .flags = IBV_SEND_SIGNALED,
					   .wr_id = 999 };

			ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		}
		if (sig_all) {
			ASSERT_EQ(9, dp_poll(self->env.scq[0], 9, wc,
					     DP_TIMEOUT_MS));
			for (i = 0; i < 8; i++)
				ASSERT_WC(&wc[i], 100 + i, IBV_WC_SUCCESS,
					  IBV_WC_RDMA_WRITE);
			ASSERT_WC(&wc[8], 999, IBV_WC_SUCCESS, IBV_WC_SEND);
		} else {
			ASSERT_EQ(5, dp_poll(self->env.scq[0], 5, wc,
					     DP_TIMEOUT_MS));
			for (i = 0; i < 4; i++)
				ASSERT_WC(&wc[i], 101 + 2 * i, IBV_WC_SUCCESS,
					  IBV_WC_RDMA_WRITE);
			ASSERT_WC(&wc[4], 999, IBV_WC_SUCCESS, IBV_WC_SEND);
		}
		ASSERT_QUIET(self->env.scq[0]);
		ASSERT_POLL1(self->env.rcq[1], wc);
		ASSERT_WC(wc, 1, IBV_WC_SUCCESS, IBV_WC_RECV);
		EXPECT_EQ(0, wc[0].byte_len);
		for (i = 0; i < 8; i++) {
			size_t g = i * 4096;

			EXPECT_EQ(-1, dp_check(rb.mem + g + 1, 4000,
					       dp_seed(sig_all, i, 7), 0))
				TH_LOG("write %d", i);
			EXPECT_EQ(-1, dp_check(rb.mem + g, 1,
					       dp_guard_seed(&rb), g));
			EXPECT_EQ(-1, dp_check(rb.mem + g + 4001, 95,
					       dp_guard_seed(&rb), g + 4001));
		}
		EXPECT_EQ(0, dp_buf_free(&lb));
		EXPECT_EQ(0, dp_buf_free(&rb));
		dp_pair_close(_metadata, &self->p);
	}
}

/*
 * A full send queue of mixed requests posted as one list, a receive for
 * every SEND: completions come in post order on both sides, and each
 * request's data is where it belongs.
 */
TEST_F_TIMEOUT(dp, full_send_queue_in_order, 90)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_send_wr *wrs, *bad;
	struct ibv_sge *sges;
	struct dp_buf lb, rb;
	struct ibv_wc *wc;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	const size_t slot = 2048, len = 1500;
	int nwr, nrecv = 0, i, k;

	o.max_send_wr = 256;
	o.max_recv_wr = 256;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	ASSERT_EQ(0, ibv_query_qp(self->p.qp[0], &a, 0, &init));
	nwr = init.cap.max_send_wr;
	ASSERT_LE(256, nwr);
	ASSERT_GE(DP_CQE, nwr);
	wrs = calloc(nwr, sizeof(*wrs));
	sges = calloc(nwr, sizeof(*sges));
	wc = calloc(nwr, sizeof(*wc));
	ASSERT_NE(NULL, wrs);
	ASSERT_NE(NULL, sges);
	ASSERT_NE(NULL, wc);
	do_buf_alloc(self->env.pd[0], nwr * slot, DP_ACCESS_ALL, &lb);
	do_buf_alloc(self->env.pd[1], nwr * slot, DP_ACCESS_ALL, &rb);
	dp_buf_guard(&rb);
	for (i = 0; i < nwr; i++) {
		uint32_t seed = dp_seed(77, i, 0);
		int kind = i % 4;	/* SEND, WRITE, WRITE_IMM, READ */

		sges[i].addr = (uintptr_t)lb.mem + i * slot;
		sges[i].length = len;
		sges[i].lkey = lb.mr->lkey;
		wrs[i].wr_id = 0x5000 + i;
		wrs[i].next = i + 1 < nwr ? &wrs[i + 1] : NULL;
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = 1;
		wrs[i].wr.rdma.remote_addr = (uintptr_t)rb.mem + i * slot + 3;
		wrs[i].wr.rdma.rkey = rb.mr->rkey;
		wrs[i].imm_data = htonl(i);
		if (kind == 3) {
			wrs[i].opcode = IBV_WR_RDMA_READ;
			dp_fill(rb.mem + i * slot + 3, len, seed, 0);
			memset(lb.mem + i * slot, 0, slot);
			continue;
		}
		dp_fill(lb.mem + i * slot, len, seed, 0);
		if (kind == 0) {
			struct dp_sgl s;

			wrs[i].opcode = IBV_WR_SEND;
			dp_sgl_one(&rb, i * slot + 3, len, &s);
			ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &s, i));
			nrecv++;
		} else if (kind == 1) {
			wrs[i].opcode = IBV_WR_RDMA_WRITE;
		} else {
			wrs[i].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, i));
			nrecv++;
		}
	}
	bad = NULL;
	ASSERT_EQ(0, ibv_post_send(self->p.qp[0], wrs, &bad));
	EXPECT_EQ(NULL, bad);
	ASSERT_EQ(nwr, dp_poll(self->env.scq[0], nwr, wc, DP_TIMEOUT_MS * 3));
	for (i = 0; i < nwr; i++)
		ASSERT_WC(&wc[i], 0x5000 + i, IBV_WC_SUCCESS,
			  wc_op(wrs[i].opcode));
	ASSERT_EQ(nrecv, dp_poll(self->env.rcq[1], nrecv, wc, DP_TIMEOUT_MS));
	for (i = 0, k = 0; i < nwr; i++) {
		if (i % 4 == 3 || i % 4 == 1)
			continue;
		ASSERT_WC(&wc[k], i, IBV_WC_SUCCESS, i % 4 ?
			  IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV);
		EXPECT_EQ(len, wc[k].byte_len);
		if (i % 4 == 2)
			EXPECT_EQ(htonl(i), wc[k].imm_data);
		k++;
	}
	for (i = 0; i < nwr; i++) {
		uint32_t seed = dp_seed(77, i, 0);
		uint8_t *d = i % 4 == 3 ? lb.mem + i * slot :
			     rb.mem + i * slot + 3;

		ASSERT_EQ(-1, dp_check(d, len, seed, 0)) TH_LOG("wr %d", i);
	}
	ASSERT_QUIET(self->env.scq[0]);
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
	free(wrs);
	free(sges);
	free(wc);
	dp_pair_close(_metadata, &self->p);
}

/*
 * A polled completion frees its send queue slot at once: posting one work
 * request for each completion, with the queue kept exactly full (as
 * perftest does), never meets ENOMEM. Once the kernel published the
 * completion before it moved the consumer index, and a busy poller could
 * see the completion and a full ring together.
 */
TEST_F_TIMEOUT(dp, completion_frees_its_send_slot, 120)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_qp_init_attr init;
	struct ibv_send_wr wr, *bad;
	struct ibv_qp_attr a;
	struct dp_buf lb, rb;
	struct ibv_sge sge;
	struct ibv_wc wc;
	const size_t len = 4096;
	const int total = 6000;
	int depth, posted = 0, done = 0, r;
	long end;

	o.max_send_wr = 32;
	/* The device's thread completes them, on another CPU. */
	ASSERT_EQ(0, setenv("RNIC_SQ_POLL", "1", 1));
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	ASSERT_EQ(0, unsetenv("RNIC_SQ_POLL"));
	ASSERT_EQ(0, ibv_query_qp(self->p.qp[0], &a, 0, &init));
	depth = init.cap.max_send_wr;
	do_buf_alloc(self->env.pd[0], len, DP_ACCESS_ALL, &lb);
	do_buf_alloc(self->env.pd[1], len, DP_ACCESS_ALL, &rb);
	while (done < total) {
		while (posted < total && posted - done < depth) {
			sge = (struct ibv_sge) {
				.addr = (uintptr_t)lb.mem,
				.length = len,
				.lkey = lb.mr->lkey,
			};
			/* READs complete in the path of their responses. */
			wr = (struct ibv_send_wr) {
				.wr_id = posted,
				.sg_list = &sge,
				.num_sge = 1,
				.opcode = posted % 2 ? IBV_WR_RDMA_READ :
						       IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma.remote_addr = (uintptr_t)rb.mem,
				.wr.rdma.rkey = rb.mr->rkey,
			};
			ASSERT_EQ(0, ibv_post_send(self->p.qp[0], &wr, &bad))
				TH_LOG("WR %d, with %d of %d in flight", posted,
				       posted - done, depth);
			posted++;
		}
		/* Busy polling, to post the moment a completion shows. */
		end = dp_now_ms() + DP_TIMEOUT_MS;
		while (!(r = ibv_poll_cq(self->env.scq[0], 1, &wc)) &&
		       dp_now_ms() < end)
			;
		ASSERT_EQ(1, r);
		ASSERT_WC(&wc, done, IBV_WC_SUCCESS, done % 2 ?
			  IBV_WC_RDMA_READ : IBV_WC_RDMA_WRITE);
		done++;
	}
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
	dp_pair_close(_metadata, &self->p);
}

/*
 * IBV_SEND_FENCE: a WRITE whose source is the destination of the READ
 * before it waits for the READ, so it carries what the READ brought.
 */
TEST_F(dp, fence_read_then_write)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	const size_t len = 48 << 10;
	struct dp_buf lb, rb;
	struct ibv_wc wc[2];
	int round;

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	do_buf_alloc(self->env.pd[0], len, DP_ACCESS_ALL, &lb);
	do_buf_alloc(self->env.pd[1], 2 * len, DP_ACCESS_ALL, &rb);
	for (round = 0; round < 8; round++) {
		uint32_t seed = dp_seed(0xfe, round, 0);
		struct dp_sgl s;
		struct dp_wr rd = {
			.op = IBV_WR_RDMA_READ, .flags = IBV_SEND_SIGNALED,
			.wr_id = 1, .sgl = &s, .raddr = (uintptr_t)rb.mem,
			.rkey = rb.mr->rkey,
		};
		struct dp_wr wr = {
			.op = IBV_WR_RDMA_WRITE,
			.flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE,
			.wr_id = 2, .sgl = &s,
			.raddr = (uintptr_t)rb.mem + len, .rkey = rb.mr->rkey,
		};

		dp_sgl_one(&lb, 0, len, &s);
		memset(lb.mem, 0, len);
		dp_fill(rb.mem, len, seed, 0);
		memset(rb.mem + len, 0, len);
		ASSERT_EQ(0, dp_post(self->p.qp[0], &rd));
		ASSERT_EQ(0, dp_post(self->p.qp[0], &wr));
		ASSERT_EQ(2, dp_poll(self->env.scq[0], 2, wc, DP_TIMEOUT_MS));
		ASSERT_WC(&wc[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
		ASSERT_WC(&wc[1], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		ASSERT_EQ(-1, dp_check(rb.mem + len, len, seed, 0))
			TH_LOG("round %d: the fenced WRITE did not carry the "
			       "READ's data", round);
	}
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
	dp_pair_close(_metadata, &self->p);
}

/* ---- atomics ----------------------------------------------------------- */

/*
 * One atomic on the 8 bytes at @rb + @off; its result lands at @lb + 9.
 * Checks the completion and that no byte around either moved.
 */
static void atomic1(struct __test_metadata *_metadata, FIXTURE_DATA(dp) *self,
		    struct dp_buf *lb, struct dp_buf *rb, size_t off,
		    enum ibv_wr_opcode op, uint64_t cmp_add, uint64_t swap,
		    uint64_t *orig)
{
	uint8_t before_l[32], before_r[32];
	struct dp_sgl s;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = op, .flags = IBV_SEND_SIGNALED, .wr_id = 0xa70,
		.sgl = &s, .raddr = (uintptr_t)rb->mem + off,
		.rkey = rb->mr->rkey, .compare_add = cmp_add, .swap = swap,
	};

	dp_sgl_one(lb, 16, 8, &s);
	memset(lb->mem, 0x5c, 40);
	memcpy(before_l, lb->mem, 16);
	memcpy(before_r, rb->mem + off - 16, 16);
	memcpy(before_r + 16, rb->mem + off + 8, 16);
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0xa70, IBV_WC_SUCCESS,
		  op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
						    IBV_WC_FETCH_ADD);
	EXPECT_EQ(8, wc.byte_len);
	memcpy(orig, lb->mem + 16, 8);
	EXPECT_EQ(0, memcmp(before_l, lb->mem, 16));
	EXPECT_EQ(0, memcmp(before_l, lb->mem + 24, 16));
	EXPECT_EQ(0, memcmp(before_r, rb->mem + off - 16, 16));
	EXPECT_EQ(0, memcmp(before_r + 16, rb->mem + off + 8, 16));
}

TEST_F(dp, atomics)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_buf lb, rb;
	uint64_t *target, got;

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	do_buf_alloc(self->env.pd[0], 4096, DP_ACCESS_ALL, &lb);
	do_buf_alloc(self->env.pd[1], 4096, DP_ACCESS_ALL, &rb);
	dp_buf_guard(&rb);
	target = (uint64_t *)(rb.mem + 1024);

	/* compare and swap, equal: swapped, the old value returned */
	*target = 0x0123456789abcdefULL;
	atomic1(_metadata, self, &lb, &rb, 1024, IBV_WR_ATOMIC_CMP_AND_SWP,
		0x0123456789abcdefULL, 0xfedcba9876543210ULL, &got);
	EXPECT_EQ(0x0123456789abcdefULL, got);
	EXPECT_EQ(0xfedcba9876543210ULL, *target);

	/* compare and swap, different: nothing swapped, old value returned */
	atomic1(_metadata, self, &lb, &rb, 1024, IBV_WR_ATOMIC_CMP_AND_SWP,
		0x0123456789abcdefULL, 0x1111111111111111ULL, &got);
	EXPECT_EQ(0xfedcba9876543210ULL, got);
	EXPECT_EQ(0xfedcba9876543210ULL, *target);
	/* differs in the top bit only */
	atomic1(_metadata, self, &lb, &rb, 1024, IBV_WR_ATOMIC_CMP_AND_SWP,
		0x7edcba9876543210ULL, 0, &got);
	EXPECT_EQ(0xfedcba9876543210ULL, got);
	EXPECT_EQ(0xfedcba9876543210ULL, *target);

	/* fetch and add, with a carry across 32 bits and a wrap at 64 */
	*target = 0x00000000ffffffffULL;
	atomic1(_metadata, self, &lb, &rb, 1024, IBV_WR_ATOMIC_FETCH_AND_ADD,
		1, 0, &got);
	EXPECT_EQ(0x00000000ffffffffULL, got);
	EXPECT_EQ(0x0000000100000000ULL, *target);
	*target = UINT64_MAX - 1;
	atomic1(_metadata, self, &lb, &rb, 1024, IBV_WR_ATOMIC_FETCH_AND_ADD,
		5, 0, &got);
	EXPECT_EQ(UINT64_MAX - 1, got);
	EXPECT_EQ(3, *target);

	/* at the very start and end of the MR */
	*(uint64_t *)(rb.mem + 4088) = 40;
	atomic1(_metadata, self, &lb, &rb, 4088, IBV_WR_ATOMIC_FETCH_AND_ADD,
		2, 0, &got);
	EXPECT_EQ(40, got);
	EXPECT_EQ(42, *(uint64_t *)(rb.mem + 4088));
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
	dp_pair_close(_metadata, &self->p);
}

/*
 * 200 fetch-and-adds posted at once with 4 outstanding allowed: the
 * responder runs them in order, so the k-th returns start + k * add.
 */
TEST_F(dp, atomics_in_order)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	const int n = 200;
	const uint64_t start = 0x100000000000ULL, add = 0x10001;
	struct dp_buf lb, rb;
	struct ibv_wc wc[200];
	int i;

	o.rd_atomic = 4;
	o.max_send_wr = 256;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	do_buf_alloc(self->env.pd[0], n * 8, DP_ACCESS_ALL, &lb);
	do_buf_alloc(self->env.pd[1], 4096, DP_ACCESS_ALL, &rb);
	*(uint64_t *)(rb.mem + 8) = start;
	for (i = 0; i < n; i++) {
		struct dp_sgl s;
		struct dp_wr w = {
			.op = IBV_WR_ATOMIC_FETCH_AND_ADD, .wr_id = i,
			.sgl = &s, .raddr = (uintptr_t)rb.mem + 8,
			.rkey = rb.mr->rkey, .compare_add = add,
		};

		dp_sgl_one(&lb, i * 8, 8, &s);
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	}
	ASSERT_EQ(n, dp_poll(self->env.scq[0], n, wc, DP_TIMEOUT_MS));
	for (i = 0; i < n; i++) {
		ASSERT_WC(&wc[i], i, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD);
		EXPECT_EQ(start + i * add, ((uint64_t *)lb.mem)[i])
			TH_LOG("atomic %d", i);
	}
	EXPECT_EQ(start + n * add, *(uint64_t *)(rb.mem + 8));
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
	dp_pair_close(_metadata, &self->p);
}

/* ---- UD -------------------------------------------------------------- */

/*
 * One UD SEND of @len bytes from @sgl_n pieces into a receive of @rsge
 * pieces (the GRH first), to @qkey. Checks the GRH through
 * ibv_init_ah_from_wc() and, for IPv6 GIDs, field by field.
 */
static void ud1(struct __test_metadata *_metadata, struct dp_env *env,
		struct dp_pair *p, size_t len, int lsge, int rsge, bool imm,
		unsigned int flags, uint32_t seed)
{
	struct dp_buf lb, rb;
	struct dp_sgl ls, rs;
	struct ibv_ah_attr ah;
	struct ibv_grh grh;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.flags = IBV_SEND_SIGNALED | flags,
		.wr_id = 0x0d000000ULL + seed, .sgl = &ls, .imm = seed,
		.ah = p->ah[0], .rqpn = p->qp[1]->qp_num, .qkey = p->o.qkey,
	};

	ASSERT_EQ(0, dp_buf_alloc(env->pd[0], dp_sgl_room(len, lsge),
				  DP_ACCESS_ALL, &lb));
	ASSERT_EQ(0, dp_buf_alloc(env->pd[1], dp_sgl_room(len + DP_GRH, rsge),
				  DP_ACCESS_ALL, &rb));
	dp_buf_guard(&lb);
	dp_buf_guard(&rb);
	ASSERT_EQ(0, dp_sgl_make(&lb, 0, len, lsge, seed, &ls));
	ASSERT_EQ(0, dp_sgl_make(&rb, 0, len + DP_GRH, rsge, ~seed, &rs));
	dp_sgl_fill(&ls, seed, 0);
	ASSERT_EQ(0, dp_post_recv(p->qp[1], &rs, 7));
	ASSERT_EQ(0, dp_post(p->qp[0], &w));
	ASSERT_POLL1(env->scq[0], &wc);
	ASSERT_WC(&wc, w.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(env->rcq[1], &wc);
	ASSERT_WC(&wc, 7, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(len + DP_GRH, wc.byte_len);
	EXPECT_EQ(p->qp[1]->qp_num, wc.qp_num);
	EXPECT_EQ(p->qp[0]->qp_num, wc.src_qp);
	EXPECT_EQ(IBV_WC_GRH, wc.wc_flags & IBV_WC_GRH);
	EXPECT_EQ(0, wc.pkey_index);
	if (imm) {
		EXPECT_EQ(IBV_WC_WITH_IMM, wc.wc_flags & IBV_WC_WITH_IMM);
		EXPECT_EQ(htonl(seed), wc.imm_data);
	} else {
		EXPECT_EQ(0, wc.wc_flags & IBV_WC_WITH_IMM);
	}
	ASSERT_SGL(&rb, &rs, DP_GRH, len, seed);
	if (!(flags & IBV_SEND_INLINE))
		ASSERT_SGL(&lb, &ls, 0, len, seed);
	dp_sgl_gather(&rs, 0, DP_GRH, &grh);
	ASSERT_EQ(0, ibv_init_ah_from_wc(env->ctx[1], 1, &wc, &grh, &ah));
	EXPECT_EQ(1, ah.is_global);
	EXPECT_EQ(0, memcmp(&env->gid, &ah.grh.dgid, 16));
	EXPECT_EQ(env->gid_index, ah.grh.sgid_index);
	if (env->gid.raw[10] != 0xff || env->gid.raw[0]) {
		/* an IPv6 header: version 6, our GIDs, UDP */
		EXPECT_EQ(6, ntohl(grh.version_tclass_flow) >> 28);
		EXPECT_EQ(0, memcmp(&env->gid, &grh.sgid, 16));
		EXPECT_EQ(0, memcmp(&env->gid, &grh.dgid, 16));
		EXPECT_EQ(17, grh.next_hdr);
	}
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
}

/*
 * The GRH into 32 receive pieces of a byte or two: it is placed through
 * an iov_iter over the receiver's pages (rnic_payload_copy_in()), which
 * covers RNIC_PAYLOAD_ITER_BVECS (8) pieces at a time, so it takes four
 * runs or more; ud1() checks the GRH and the bytes after it.
 */
TEST_F(dp, ud_grh_into_many_pieces)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	size_t sz[] = { 0, 1, 24 };
	unsigned int s;

	o.max_recv_sge = DP_MAX_SGE;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (s = 0; s < sizeof(sz) / sizeof(sz[0]); s++)
		ud1(_metadata, &self->env, &self->p, sz[s], 1, DP_MAX_SGE,
		    s & 1, 0, dp_seed(0x9e, s, 0));
	dp_pair_close(_metadata, &self->p);
}

TEST_F(dp, ud_send_sizes_and_sges)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	size_t m = 128u << self->env.port.active_mtu;
	size_t sz[] = { 0, 1, 63, 1023, 1024, 1025, m - 1, m };
	int counts[] = { 1, 2, 3, 8 };
	unsigned int s, a, b;

	o.max_send_sge = 8;
	o.max_recv_sge = 8;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (s = 0; s < sizeof(sz) / sizeof(sz[0]); s++) {
		ud1(_metadata, &self->env, &self->p, sz[s], 1, 1, false, 0,
		    dp_seed(0xd, s, 0));
		ud1(_metadata, &self->env, &self->p, sz[s], 1, 1, true, 0,
		    dp_seed(0xd, s, 1));
		if (sz[s] < 63)
			continue;
		for (a = 0; a < 4; a++)
			for (b = 0; b < 4; b++)
				ud1(_metadata, &self->env, &self->p, sz[s],
				    counts[a], counts[b], b & 1, 0,
				    dp_seed(0xd, s, 16 + a * 4 + b));
	}
	dp_pair_close(_metadata, &self->p);
}

TEST_F(dp, ud_inline)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	size_t sz[] = { 1, 40, 64 };
	unsigned int s;

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (s = 0; s < 3; s++)
		ud1(_metadata, &self->env, &self->p, sz[s], 2, 1, s & 1,
		    IBV_SEND_INLINE, dp_seed(0x1d, s, 0));
	dp_pair_close(_metadata, &self->p);
}

/*
 * Q_Keys: a wrong one is dropped without a trace at the receiver (the
 * sender completes); a remote Q_Key with bit 31 set sends the QP's own.
 */
TEST_F(dp, ud_qkey)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct dp_buf rb, lb;
	struct dp_sgl rs, ls;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED, .sgl = &ls,
	};
	uint32_t seed = dp_seed(0x9e, 0, 0);

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	do_buf_alloc(self->env.pd[0], 4096, DP_ACCESS_ALL, &lb);
	do_buf_alloc(self->env.pd[1], 4096, DP_ACCESS_ALL, &rb);
	dp_sgl_one(&lb, 0, 100, &ls);
	dp_sgl_fill(&ls, seed, 0);
	dp_sgl_one(&rb, 0, 100 + DP_GRH, &rs);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 1));
	w.ah = self->p.ah[0];
	w.rqpn = self->p.qp[1]->qp_num;

	w.wr_id = 10;
	w.qkey = DP_QKEY + 1;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 10, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_QUIET(self->env.rcq[1]);

	/* the wrong QP number: dropped too */
	w.wr_id = 11;
	w.qkey = DP_QKEY;
	w.rqpn = self->p.qp[1]->qp_num ^ 0x800000;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 11, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_QUIET(self->env.rcq[1]);

	/* bit 31: the sender's own Q_Key, which matches */
	w.wr_id = 12;
	w.qkey = 0x80000000;
	w.rqpn = self->p.qp[1]->qp_num;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 12, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(100 + DP_GRH, wc.byte_len);
	EXPECT_EQ(-1, dp_check(rb.mem + DP_GRH, 100, seed, 0));
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
	dp_pair_close(_metadata, &self->p);
}

/* The answer to a UD message goes back through ibv_create_ah_from_wc(). */
TEST_F(dp, ud_reply_through_ah_from_wc)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct dp_buf b0, b1;
	struct dp_sgl s0, s1;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = IBV_WR_SEND_WITH_IMM, .flags = IBV_SEND_SIGNALED,
		.wr_id = 1, .imm = 0xabcdef01, .qkey = DP_QKEY,
	};

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	do_buf_alloc(self->env.pd[0], 4096, DP_ACCESS_ALL, &b0);
	do_buf_alloc(self->env.pd[1], 4096, DP_ACCESS_ALL, &b1);
	dp_sgl_one(&b1, 0, 64 + DP_GRH, &s1);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &s1, 2));
	w.ah = self->p.ah[0];
	w.rqpn = self->p.qp[1]->qp_num;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(htonl(0xabcdef01), wc.imm_data);
	ah = ibv_create_ah_from_wc(self->env.pd[1], &wc,
				   (struct ibv_grh *)b1.mem, 1);
	ASSERT_NE(NULL, ah) TH_LOG("%s", strerror(errno));

	dp_sgl_one(&b0, 0, 32 + DP_GRH, &s0);
	dp_sgl_fill(&s1, 0x77, 0);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[0], &s0, 3));
	dp_sgl_one(&b1, 200, 32, &s1);
	dp_sgl_fill(&s1, 0x77, 0);
	w.ah = ah;
	w.rqpn = wc.src_qp;
	w.op = IBV_WR_SEND;
	w.sgl = &s1;
	w.wr_id = 4;
	ASSERT_EQ(0, dp_post(self->p.qp[1], &w));
	ASSERT_POLL1(self->env.scq[1], &wc);
	ASSERT_WC(&wc, 4, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(self->env.rcq[0], &wc);
	ASSERT_WC(&wc, 3, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(self->p.qp[1]->qp_num, wc.src_qp);
	EXPECT_EQ(-1, dp_check(b0.mem + DP_GRH, 32, 0x77, 0));
	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(0, dp_buf_free(&b0));
	EXPECT_EQ(0, dp_buf_free(&b1));
	dp_pair_close(_metadata, &self->p);
}

/* ---- where the QPs live ----------------------------------------------- */

/* Both QPs in one context, sharing its CQs. */
TEST_F(dp, rc_pair_in_one_context)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_env one = self->env;
	struct xfer x = { .len = 5000, .lsge = 2, .rsge = 3 };
	int i;

	/* side 1 sends nothing, side 0 receives nothing: share the CQs */
	one.pd[1] = one.pd[0];
	one.ctx[1] = one.ctx[0];
	one.scq[1] = one.scq[0];
	one.rcq[1] = one.rcq[0];
	dp_pair_open(_metadata, &one, &o, &self->p);
	for (i = 0; i < 5; i++) {
		x.op = (enum ibv_wr_opcode[]){ IBV_WR_SEND,
			IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
			IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ }[i];
		xfer(_metadata, &one, &self->p, &x, dp_seed(0xc, i, 0));
	}
	dp_pair_close(_metadata, &self->p);
}

/* What the two processes tell each other. */
struct peer {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
	uint8_t gid[16];
	int gid_index;
};

static int xchg(int fd, const struct peer *mine, struct peer *theirs)
{
	if (write(fd, mine, sizeof(*mine)) != sizeof(*mine))
		return -EIO;
	if (read(fd, theirs, sizeof(*theirs)) != sizeof(*theirs))
		return -EIO;
	return 0;
}

/*
 * The child: its own context (nothing inherited is used), a QP and a
 * buffer; it receives a SEND, lets the parent WRITE and READ, and checks
 * what arrived. Exit status 0 when everything was right.
 */
static int child(int fd, uint32_t seed)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_context *ctx = rnic_ibv_open(DEV);
	struct peer me = { 0 }, them;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct dp_buf b;
	struct dp_sgl s;
	struct ibv_wc wc;
	union ibv_gid gid;
	char c;

	if (!ctx)
		return 10;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq || ibv_query_gid(ctx, 1, 0, &gid))
		return 11;
	qp = dp_qp_create(pd, cq, cq, &o);
	if (!qp || dp_buf_alloc(pd, 3 << 20, DP_ACCESS_ALL, &b))
		return 12;
	dp_fill(b.mem + (2 << 20), 1 << 20, seed + 2, 0);
	me.qpn = qp->qp_num;
	me.rkey = b.mr->rkey;
	me.addr = (uintptr_t)b.mem;
	memcpy(me.gid, gid.raw, 16);
	if (xchg(fd, &me, &them))
		return 13;
	memcpy(gid.raw, them.gid, 16);
	if (dp_qp_connect(qp, &o, them.qpn, &gid, 0, 0x42, 0x24, false))
		return 14;
	dp_sgl_one(&b, 0, 1 << 20, &s);
	if (dp_post_recv(qp, &s, 5))
		return 15;
	if (write(fd, "c", 1) != 1)
		return 16;
	if (dp_poll(cq, 1, &wc, DP_TIMEOUT_MS) != 1 ||
	    wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
	    wc.wr_id != 5 || wc.byte_len != 1 << 20)
		return 17;
	if (dp_check(b.mem, 1 << 20, seed, 0) >= 0)
		return 18;
	/* the parent WRITEs the second MiB, READs the third */
	if (read(fd, &c, 1) != 1)
		return 19;
	if (dp_check(b.mem + (1 << 20), 1 << 20, seed + 1, 0) >= 0)
		return 20;
	if (ibv_destroy_qp(qp) || dp_buf_free(&b) || ibv_destroy_cq(cq) ||
	    ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		return 21;
	return 0;
}

TEST_F_TIMEOUT(dp, rc_two_processes, 60)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	uint32_t seed = dp_seed(0x2, 0, 0);
	struct peer me = { 0 }, them;
	union ibv_gid gid;
	struct dp_buf b;
	struct dp_sgl s;
	struct ibv_wc wc;
	struct ibv_qp *qp;
	int sv[2], status;
	pid_t pid;
	char c;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(sv[0]);
		_exit(child(sv[1], seed));
	}
	close(sv[1]);
	qp = dp_qp_create(self->env.pd[0], self->env.scq[0],
			  self->env.rcq[0], &o);
	ASSERT_NE(NULL, qp);
	do_buf_alloc(self->env.pd[0], 3 << 20, DP_ACCESS_ALL, &b);
	dp_fill(b.mem, 2 << 20, seed, 0);
	dp_fill(b.mem + (1 << 20), 1 << 20, seed + 1, 0);
	me.qpn = qp->qp_num;
	memcpy(me.gid, self->env.gid.raw, 16);
	ASSERT_EQ(0, xchg(sv[0], &me, &them));
	memcpy(gid.raw, them.gid, 16);
	ASSERT_EQ(0, dp_qp_connect(qp, &o, them.qpn, &gid, 0, 0x24, 0x42,
				   false));
	ASSERT_EQ(1, read(sv[0], &c, 1));

	dp_sgl_one(&b, 0, 1 << 20, &s);
	{
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 1,
				   .sgl = &s };

		ASSERT_EQ(0, dp_post(qp, &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	}
	dp_sgl_one(&b, 1 << 20, 1 << 20, &s);
	{
		struct dp_wr w = { .op = IBV_WR_RDMA_WRITE,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 2,
				   .sgl = &s, .raddr = them.addr + (1 << 20),
				   .rkey = them.rkey };

		ASSERT_EQ(0, dp_post(qp, &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	}
	dp_sgl_one(&b, 2 << 20, 1 << 20, &s);
	{
		struct dp_wr w = { .op = IBV_WR_RDMA_READ,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 3,
				   .sgl = &s, .raddr = them.addr + (2 << 20),
				   .rkey = them.rkey };

		ASSERT_EQ(0, dp_post(qp, &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, 3, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
		EXPECT_EQ(-1, dp_check(b.mem + (2 << 20), 1 << 20, seed + 2,
				       0));
	}
	ASSERT_EQ(1, write(sv[0], "d", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("the child failed at step %d",
						 WEXITSTATUS(status));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, dp_buf_free(&b));
	close(sv[0]);
}

/* QPs of two devices of the host talk to each other. */
TEST_F(dp, rc_between_two_devices)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_env two = self->env;
	int i;

	ASSERT_EQ(0, rnic_link_add(self->env.g, DEV "2", NULL));
	/* side 1 on the second device, with its own GID */
	two.ctx[1] = rnic_ibv_open(DEV "2");
	ASSERT_NE(NULL, two.ctx[1]);
	two.pd[1] = ibv_alloc_pd(two.ctx[1]);
	ASSERT_NE(NULL, two.pd[1]);
	two.scq[1] = ibv_create_cq(two.ctx[1], 64, NULL, NULL, 0);
	two.rcq[1] = ibv_create_cq(two.ctx[1], 64, NULL, NULL, 0);
	ASSERT_NE(NULL, two.scq[1]);
	ASSERT_NE(NULL, two.rcq[1]);
	{
		union ibv_gid g1;
		struct ibv_qp *q[2];

		ASSERT_EQ(0, ibv_query_gid(two.ctx[1], 1, 0, &g1));
		ASSERT_NE(0, memcmp(&g1, &self->env.gid, 16));
		for (i = 0; i < 2; i++) {
			q[i] = dp_qp_create(two.pd[i], two.scq[i], two.rcq[i],
					    &o);
			ASSERT_NE(NULL, q[i]);
		}
		ASSERT_EQ(0, dp_qp_connect(q[0], &o, q[1]->qp_num, &g1, 0, 1,
					   2, false));
		ASSERT_EQ(0, dp_qp_connect(q[1], &o, q[0]->qp_num,
					   &self->env.gid, 0, 2, 1, false));
		memset(&self->p, 0, sizeof(self->p));
		self->p.qp[0] = q[0];
		self->p.qp[1] = q[1];
		self->p.o = o;
	}
	for (i = 0; i < 5; i++) {
		struct xfer x = { .len = 10000, .lsge = 2, .rsge = 2 };

		x.op = (enum ibv_wr_opcode[]){ IBV_WR_SEND,
			IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
			IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ }[i];
		xfer(_metadata, &two, &self->p, &x, dp_seed(0x22, i, 0));
	}
	dp_pair_close(_metadata, &self->p);
	EXPECT_EQ(0, ibv_close_device(two.ctx[1]));
}

/* ---- a device bound to lo: the IPv4-mapped GID of 127.0.0.1 ------------ */

FIXTURE(lo) {
	struct dp_env env;
	struct dp_pair p;
};

FIXTURE_SETUP(lo)
{
	dp_env_open(_metadata, &self->env, DEV, "lo");
}

FIXTURE_TEARDOWN(lo)
{
	dp_env_close(_metadata, &self->env);
}

TEST_F(lo, rc_over_ipv4_gid)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	int i;

	o.mtu = self->env.port.active_mtu;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (i = 0; i < 5; i++) {
		struct xfer x = { .len = 70000, .lsge = 3, .rsge = 2 };

		x.op = (enum ibv_wr_opcode[]){ IBV_WR_SEND,
			IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
			IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ }[i];
		xfer(_metadata, &self->env, &self->p, &x, dp_seed(0x10, i, 0));
	}
	dp_pair_close(_metadata, &self->p);
}

TEST_F(lo, ud_over_ipv4_gid)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	ud1(_metadata, &self->env, &self->p, 1000, 2, 2, true, 0,
	    dp_seed(0x11, 0, 0));
	ud1(_metadata, &self->env, &self->p,
	    128u << self->env.port.active_mtu, 1, 3, false, 0,
	    dp_seed(0x11, 1, 0));
	dp_pair_close(_metadata, &self->p);
}

TEST_HARNESS_MAIN

/* ---- the burst size: what one request carries ------------------------- */

/*
 * @max_burst: the device's (0: the local link's 64 KiB); @landed: bytes of
 * an RDMA WRITE that land before the packet that runs past the end of the
 * target MR: the requests before the failing one, in whole bursts.
 */
FIXTURE(burst) {
	struct dp_env env;
	struct dp_pair p;
};

FIXTURE_VARIANT(burst) {
	uint32_t max_burst;
	size_t landed;
};

FIXTURE_VARIANT_ADD(burst, link) { .max_burst = 0, .landed = 0 };
FIXTURE_VARIANT_ADD(burst, one_packet) { .max_burst = 1, .landed = 5120 };
/* rounded down to whole packets: two of 1 KiB */
FIXTURE_VARIANT_ADD(burst, two_packets) { .max_burst = 3000, .landed = 4096 };

FIXTURE_SETUP(burst)
{
	dp_env_open_burst(_metadata, &self->env, DEV, NULL,
			  variant->max_burst);
}

FIXTURE_TEARDOWN(burst)
{
	dp_env_close(_metadata, &self->env);
}

/* The device reports the max_burst it was made with, and only if set. */
TEST_F(burst, link_show_reports_it)
{
	struct rnic_link_info *info = calloc(1, sizeof(*info));

	ASSERT_NE(NULL, info);
	ASSERT_EQ(0, rnic_link_get(self->env.g, DEV, info));
	EXPECT_EQ(variant->max_burst, info->max_burst);
	EXPECT_EQ(variant->max_burst != 0,
		  !!(info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_MAX_BURST)));
	free(info);
}

/*
 * An 8 KiB RDMA WRITE at MTU 1024 into an MR of 5 KiB: the responder
 * checks each request against the MR, so every request before the one
 * that runs past its end lands, and nothing after. How much that is
 * shows how the requester cut the message: nothing with one 64 KiB
 * burst, 5 KiB with one packet per request (as on a wire), 4 KiB with
 * bursts of two packets.
 */
TEST_F(burst, write_lands_whole_requests)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	const size_t len = 8192, mr_len = 5120;
	uint32_t seed = dp_seed(0xb0, variant->max_burst, 0);
	struct dp_buf lb, rb;
	struct dp_sgl ls;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = IBV_WR_RDMA_WRITE,
		.flags = IBV_SEND_SIGNALED,
		.wr_id = 0xb0b0,
		.sgl = &ls,
	};

	o.mtu = IBV_MTU_1024;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	do_buf_alloc(self->env.pd[0], len, DP_ACCESS_ALL, &lb);
	do_buf_alloc(self->env.pd[1], mr_len, DP_ACCESS_ALL, &rb);
	dp_fill(lb.mem, len, seed, 0);
	dp_buf_guard(&rb);
	dp_sgl_one(&lb, 0, len, &ls);
	w.raddr = (uintptr_t)rb.mem;
	w.rkey = rb.mr->rkey;

	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, w.wr_id, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE);
	EXPECT_EQ(-1, dp_check(rb.mem, variant->landed, seed, 0));
	EXPECT_EQ(-1, dp_check(rb.mem + variant->landed,
			       mr_len - variant->landed, dp_guard_seed(&rb),
			       variant->landed));
	EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[1]));
	dp_pair_close(_metadata, &self->p);
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&rb));
}
