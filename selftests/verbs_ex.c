// SPDX-License-Identifier: GPL-2.0
/*
 * The extended verbs against the real module: an RC pair whose QPs are
 * made with ibv_create_qp_ex() and fed by the ibv_wr_* builder (WRITE,
 * SEND with immediate and inline data, READ, both atomics in one list)
 * and whose CQs are extended CQs read with ibv_start_poll() and the
 * ibv_wc_read_*() functions, every byte checked; UD SENDs addressed with
 * ibv_wr_set_ud_addr(); ibv_query_device_ex(),
 * ibv_query_gid_ex() and ibv_query_gid_table() against the classic
 * queries; ibv_reg_mr_iova2() with optional access bits, written to at
 * its I/O address; ibv_rereg_mr() refused.
 */
#include "rnic_dp_test.h"

#define DEV "t_verbs_ex"
#define BUF (64 * 1024)

FIXTURE(ex) {
	struct dp_env env;
};

FIXTURE_SETUP(ex)
{
	dp_env_open(_metadata, &self->env, DEV, NULL);
}

FIXTURE_TEARDOWN(ex)
{
	dp_env_close(_metadata, &self->env);
}

static struct ibv_cq_ex *cq_ex(struct ibv_context *ctx)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 64,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};

	return ibv_create_cq_ex(ctx, &a);
}

static struct ibv_qp *qp_ex(struct dp_env *env, int side, struct ibv_cq *cq,
			    const struct dp_qp_opts *o)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = o->max_send_wr,
			.max_recv_wr = o->max_recv_wr,
			.max_send_sge = o->max_send_sge,
			.max_recv_sge = o->max_recv_sge,
			.max_inline_data = o->max_inline,
		},
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = env->pd[side],
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
	};

	return ibv_create_qp_ex(env->ctx[side], &a);
}

/* A completion read from an extended CQ. */
struct cqe {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len, qp_num, src_qp;
	unsigned int wc_flags;
	__be32 imm;
};

static void read_cqe(struct ibv_cq_ex *cq, struct cqe *c)
{
	c->wr_id = cq->wr_id;
	c->status = cq->status;
	c->opcode = ibv_wc_read_opcode(cq);
	c->byte_len = ibv_wc_read_byte_len(cq);
	c->qp_num = ibv_wc_read_qp_num(cq);
	c->src_qp = ibv_wc_read_src_qp(cq);
	c->wc_flags = ibv_wc_read_wc_flags(cq);
	c->imm = ibv_wc_read_imm_data(cq);
}

/* Read @n completions within DP_TIMEOUT_MS; how many came. */
static int poll_ex(struct ibv_cq_ex *cq, struct cqe *c, int n)
{
	struct ibv_poll_cq_attr attr = { 0 };
	long end = dp_now_ms() + DP_TIMEOUT_MS;
	int got = 0;

	while (got < n && dp_now_ms() < end) {
		if (ibv_start_poll(cq, &attr)) {
			usleep(100);
			continue;
		}
		do
			read_cqe(cq, &c[got++]);
		while (got < n && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
	return got;
}

/*
 * One list of five work requests from side 0, built with ibv_wr_*: every
 * one lands where it should, and the completions say so.
 */
TEST_F_TIMEOUT(ex, rc_builder, 60)
{
	struct dp_env *env = &self->env;
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_cq_ex *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_qp_ex *x;
	struct dp_buf b[2];
	struct ibv_sge rsge;
	struct ibv_recv_wr rwr = { .wr_id = 77, .sg_list = &rsge,
				   .num_sge = 1 }, *bad;
	uint32_t seed = dp_seed(20, 1, 0);
	char inl[48];
	uint64_t *word;
	struct cqe c[5];
	int i;

	for (i = 0; i < 2; i++) {
		cq[i] = cq_ex(env->ctx[i]);
		ASSERT_NE(NULL, cq[i]) TH_LOG("ibv_create_cq_ex: %s",
					      strerror(errno));
		qp[i] = qp_ex(env, i, ibv_cq_ex_to_cq(cq[i]), &o);
		ASSERT_NE(NULL, qp[i]) TH_LOG("ibv_create_qp_ex: %s",
					      strerror(errno));
		ASSERT_EQ(0, dp_buf_alloc(env->pd[i], BUF, DP_ACCESS_ALL,
					  &b[i]));
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, dp_qp_connect(qp[i], &o, qp[!i]->qp_num,
					   &env->gid, env->gid_index,
					   0x100 + i, 0x101 - i, false));

	/* Side 0 writes 0..4095 to side 1's 8192; side 1 holds 16384.. */
	dp_fill(b[0].mem, 4096, seed, 0);
	dp_fill(b[1].mem + 16384, 4096, seed + 1, 0);
	word = (uint64_t *)(b[1].mem + 40000);
	*word = 10;
	rsge = (struct ibv_sge){ (uintptr_t)b[1].mem + 20480, 4096,
				 b[1].mr->lkey };
	ASSERT_EQ(0, ibv_post_recv(qp[1], &rwr, &bad));
	dp_fill(inl, sizeof(inl), seed + 2, 0);

	x = ibv_qp_to_qp_ex(qp[0]);
	ASSERT_NE(NULL, x);
	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_SIGNALED;
	x->wr_id = 1;
	ibv_wr_rdma_write(x, b[1].mr->rkey, (uintptr_t)b[1].mem + 8192);
	ibv_wr_set_sge(x, b[0].mr->lkey, (uintptr_t)b[0].mem, 4096);
	x->wr_id = 2;
	ibv_wr_send_imm(x, htonl(0xabcdef01));
	ibv_wr_set_inline_data(x, inl, sizeof(inl));
	memset(inl, 0, sizeof(inl)); /* copied at the set: reusable */
	x->wr_id = 3;
	ibv_wr_rdma_read(x, b[1].mr->rkey, (uintptr_t)b[1].mem + 16384);
	ibv_wr_set_sge(x, b[0].mr->lkey, (uintptr_t)b[0].mem + 32768, 4096);
	x->wr_id = 4;
	x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_atomic_fetch_add(x, b[1].mr->rkey, (uintptr_t)word, 5);
	ibv_wr_set_sge(x, b[0].mr->lkey, (uintptr_t)b[0].mem + 48000, 8);
	x->wr_id = 5;
	ibv_wr_atomic_cmp_swp(x, b[1].mr->rkey, (uintptr_t)word, 15, 99);
	ibv_wr_set_sge(x, b[0].mr->lkey, (uintptr_t)b[0].mem + 48008, 8);
	ASSERT_EQ(0, ibv_wr_complete(x));

	ASSERT_EQ(5, poll_ex(cq[0], c, 5));
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(i + 1, c[i].wr_id);
		EXPECT_EQ(IBV_WC_SUCCESS, c[i].status)
			TH_LOG("wr %d: %s", i + 1,
			       ibv_wc_status_str(c[i].status));
		EXPECT_EQ(qp[0]->qp_num, c[i].qp_num);
	}
	EXPECT_EQ(IBV_WC_RDMA_WRITE, c[0].opcode);
	EXPECT_EQ(IBV_WC_SEND, c[1].opcode);
	EXPECT_EQ(IBV_WC_RDMA_READ, c[2].opcode);
	EXPECT_EQ(IBV_WC_FETCH_ADD, c[3].opcode);
	EXPECT_EQ(IBV_WC_COMP_SWAP, c[4].opcode);

	ASSERT_EQ(1, poll_ex(cq[1], c, 1));
	EXPECT_EQ(77, c[0].wr_id);
	EXPECT_EQ(IBV_WC_SUCCESS, c[0].status);
	EXPECT_EQ(IBV_WC_RECV, c[0].opcode);
	EXPECT_EQ(sizeof(inl), c[0].byte_len);
	EXPECT_EQ(IBV_WC_WITH_IMM, c[0].wc_flags & IBV_WC_WITH_IMM);
	EXPECT_EQ(htonl(0xabcdef01), c[0].imm);
	EXPECT_EQ(qp[1]->qp_num, c[0].qp_num);
	EXPECT_EQ(qp[0]->qp_num, c[0].src_qp);

	EXPECT_EQ(-1, dp_check(b[1].mem + 8192, 4096, seed, 0));
	EXPECT_EQ(-1, dp_check(b[1].mem + 20480, sizeof(inl), seed + 2, 0));
	EXPECT_EQ(-1, dp_check(b[0].mem + 32768, 4096, seed + 1, 0));
	EXPECT_EQ(10, *(uint64_t *)(b[0].mem + 48000));
	EXPECT_EQ(15, *(uint64_t *)(b[0].mem + 48008));
	EXPECT_EQ(99, *word);

	/*
	 * An aborted list never reaches the wire: the next request's
	 * completion is the first, and the aborted WRITE's target stays 0.
	 */
	ibv_wr_start(x);
	x->wr_id = 6;
	ibv_wr_rdma_write(x, b[1].mr->rkey, (uintptr_t)b[1].mem);
	ibv_wr_set_sge(x, b[0].mr->lkey, (uintptr_t)b[0].mem, 4096);
	ibv_wr_abort(x);
	ibv_wr_start(x);
	x->wr_id = 7;
	ibv_wr_rdma_write(x, b[1].mr->rkey, (uintptr_t)b[1].mem + 24576);
	ibv_wr_set_sge(x, b[0].mr->lkey, (uintptr_t)b[0].mem, 4096);
	ASSERT_EQ(0, ibv_wr_complete(x));
	ASSERT_EQ(1, poll_ex(cq[0], c, 1));
	EXPECT_EQ(7, c[0].wr_id);
	EXPECT_EQ(IBV_WC_SUCCESS, c[0].status);
	EXPECT_EQ(-1, dp_check(b[1].mem + 24576, 4096, seed, 0));
	for (i = 0; i < 4096 && !b[1].mem[i]; i++)
		;
	EXPECT_EQ(4096, i);

	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, ibv_destroy_qp(qp[i]));
		EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(cq[i])));
		EXPECT_EQ(0, dp_buf_free(&b[i]));
	}
}

/*
 * UD through the builder: two SENDs to the other side's QP with the AH,
 * QPN and Q_Key set by ibv_wr_set_ud_addr, one of them with immediate
 * data; the receiver gets the GRH and then each message, byte for byte.
 */
TEST_F_TIMEOUT(ex, ud_builder, 60)
{
	struct dp_env *env = &self->env;
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct ibv_qp_init_attr_ex a = {
		.send_cq = env->scq[0],
		.recv_cq = env->rcq[0],
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = env->pd[0],
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM,
	};
	uint32_t seed = dp_seed(20, 3, 0);
	struct ibv_recv_wr rwr[2], *bad;
	struct ibv_sge rsge[2];
	struct dp_buf b[2];
	struct ibv_qp *qp[2];
	struct ibv_qp_ex *x;
	struct ibv_ah *ah;
	struct ibv_wc wc[2];
	int i;

	qp[0] = ibv_create_qp_ex(env->ctx[0], &a);
	ASSERT_NE(NULL, qp[0]) TH_LOG("ibv_create_qp_ex: %s", strerror(errno));
	qp[1] = dp_qp_create(env->pd[1], env->scq[1], env->rcq[1], &o);
	ASSERT_NE(NULL, qp[1]);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, dp_qp_init(qp[i], &o));
		ASSERT_EQ(0, dp_qp_rtr(qp[i], &o, 0, &env->gid,
				       env->gid_index, 0));
		ASSERT_EQ(0, dp_qp_rts(qp[i], &o, 0));
		ASSERT_EQ(0, dp_buf_alloc(env->pd[i], BUF, DP_ACCESS_ALL,
					  &b[i]));
	}
	ah = dp_ah(env->pd[0], &env->gid, env->gid_index);
	ASSERT_NE(NULL, ah);
	for (i = 0; i < 2; i++) {
		rsge[i] = (struct ibv_sge){ (uintptr_t)b[1].mem + i * 4096,
					    DP_GRH + 512, b[1].mr->lkey };
		rwr[i] = (struct ibv_recv_wr){ .wr_id = 50 + i,
					       .sg_list = &rsge[i],
					       .num_sge = 1 };
		ASSERT_EQ(0, ibv_post_recv(qp[1], &rwr[i], &bad));
		dp_fill(b[0].mem + i * 4096, 512, seed + i, 0);
	}

	x = ibv_qp_to_qp_ex(qp[0]);
	ASSERT_NE(NULL, x);
	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_SIGNALED;
	x->wr_id = 1;
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, ah, qp[1]->qp_num, DP_QKEY);
	ibv_wr_set_sge(x, b[0].mr->lkey, (uintptr_t)b[0].mem, 512);
	x->wr_id = 2;
	ibv_wr_send_imm(x, htonl(0x5eed));
	ibv_wr_set_sge(x, b[0].mr->lkey, (uintptr_t)b[0].mem + 4096, 300);
	ibv_wr_set_ud_addr(x, ah, qp[1]->qp_num, DP_QKEY);
	ASSERT_EQ(0, ibv_wr_complete(x));

	ASSERT_EQ(2, dp_poll(env->scq[0], 2, wc, DP_TIMEOUT_MS));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(i + 1, wc[i].wr_id);
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
	}
	ASSERT_EQ(2, dp_poll(env->rcq[1], 2, wc, DP_TIMEOUT_MS));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(50 + i, wc[i].wr_id);
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
		EXPECT_EQ(qp[0]->qp_num, wc[i].src_qp);
		EXPECT_EQ(DP_GRH + (i ? 300 : 512), wc[i].byte_len);
		EXPECT_EQ(-1, dp_check(b[1].mem + i * 4096 + DP_GRH,
				       i ? 300 : 512, seed + i, 0));
	}
	EXPECT_EQ(0, wc[0].wc_flags & IBV_WC_WITH_IMM);
	EXPECT_EQ(IBV_WC_WITH_IMM, wc[1].wc_flags & IBV_WC_WITH_IMM);
	EXPECT_EQ(htonl(0x5eed), wc[1].imm_data);

	EXPECT_EQ(0, ibv_destroy_ah(ah));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, ibv_destroy_qp(qp[i]));
		EXPECT_EQ(0, dp_buf_free(&b[i]));
	}
}

TEST_F(ex, queries)
{
	struct ibv_context *ctx = self->env.ctx[0];
	struct ibv_gid_entry e, table[RNIC_GID_TABLE_LEN];
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr a;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	ssize_t n, i;

	ASSERT_EQ(0, ibv_query_device(ctx, &a));
	ASSERT_EQ(0, ibv_query_device_ex(ctx, NULL, &ax));
	EXPECT_EQ(0, memcmp(&a, &ax.orig_attr, sizeof(a)));
	/*
	 * The flags say what rnic does (RNR NAKs, IBV_QP_CUR_STATE, memory
	 * windows of type 1 and 2B, XRC), no more.
	 */
	EXPECT_EQ(IBV_DEVICE_CURR_QP_STATE_MOD | IBV_DEVICE_PORT_ACTIVE_EVENT |
		  IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_RC_RNR_NAK_GEN |
		  IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B |
		  IBV_DEVICE_XRC, a.device_cap_flags);
	EXPECT_EQ(a.device_cap_flags, ax.device_cap_flags_ex);
	EXPECT_EQ(1, ax.phys_port_cnt_ex);
	EXPECT_EQ(0, ax.odp_caps.general_caps);
	EXPECT_EQ(0, ax.completion_timestamp_mask);

	/* The macro passes the whole struct; the entry point the old part. */
	memset(&pa, 0xa5, sizeof(pa));
	ASSERT_EQ(0, ibv_query_port(ctx, 1, &pa));
	EXPECT_EQ(IBV_LINK_LAYER_ETHERNET, pa.link_layer);
	EXPECT_NE(0xa5a5a5a5, pa.active_speed_ex);
	memset(&pa, 0xa5, sizeof(pa));
	ASSERT_EQ(0, (ibv_query_port)(ctx, 1, &pa));
	EXPECT_EQ(IBV_LINK_LAYER_ETHERNET, pa.link_layer);
	EXPECT_EQ(0xa5a5, pa.port_cap_flags2);
	EXPECT_EQ(0xa5a5a5a5, pa.active_speed_ex);

	ASSERT_EQ(0, ibv_query_gid(ctx, 1, self->env.gid_index, &gid));
	ASSERT_EQ(0, ibv_query_gid_ex(ctx, 1, self->env.gid_index, &e, 0));
	EXPECT_EQ(0, memcmp(gid.raw, e.gid.raw, 16));
	EXPECT_EQ(IBV_GID_TYPE_ROCE_V2, e.gid_type);
	EXPECT_EQ(1, e.port_num);
	EXPECT_EQ(ENODATA, ibv_query_gid_ex(ctx, 1, RNIC_GID_TABLE_LEN - 1,
					    &e, 0));

	n = ibv_query_gid_table(ctx, table, RNIC_GID_TABLE_LEN, 0);
	ASSERT_LE(1, n);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, ibv_query_gid(ctx, 1, table[i].gid_index, &gid));
		EXPECT_EQ(0, memcmp(gid.raw, table[i].gid.raw, 16));
		EXPECT_EQ(IBV_GID_TYPE_ROCE_V2, table[i].gid_type);
	}
	EXPECT_EQ(0, ibv_get_pkey_index(ctx, 1, htons(0xffff)));
}

/* An MR at a chosen I/O address, optional access bits ignored. */
TEST_F_TIMEOUT(ex, reg_mr_iova2, 60)
{
	struct dp_env *env = &self->env;
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	uint64_t iova = 0x40000000ULL;
	uint32_t seed = dp_seed(20, 2, 0);
	struct dp_pair p;
	struct dp_buf src;
	struct ibv_mr *mr;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	uint8_t *dst;

	dp_pair_open(_metadata, env, &o, &p);
	ASSERT_EQ(0, dp_buf_alloc(env->pd[0], 8192, DP_ACCESS_ALL, &src));
	dst = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);
	mr = ibv_reg_mr_iova2(env->pd[1], dst, 8192, iova,
			      IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_RELAXED_ORDERING | (1 << 21));
	ASSERT_NE(NULL, mr) TH_LOG("ibv_reg_mr_iova2: %s", strerror(errno));

	dp_fill(src.mem, 4096, seed, 0);
	sge = (struct ibv_sge){ (uintptr_t)src.mem, 4096, src.mr->lkey };
	wr.wr.rdma.remote_addr = iova + 1000;
	wr.wr.rdma.rkey = mr->rkey;
	ASSERT_EQ(0, ibv_post_send(p.qp[0], &wr, &bad));
	ASSERT_EQ(1, dp_poll(env->scq[0], 1, &wc, DP_TIMEOUT_MS));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(-1, dp_check(dst + 1000, 4096, seed, 0));

	errno = 0;
	EXPECT_EQ(IBV_REREG_MR_ERR_INPUT,
		  ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			       IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EOPNOTSUPP, errno);

	EXPECT_EQ(0, ibv_dereg_mr(mr));
	munmap(dst, 8192);
	EXPECT_EQ(0, dp_buf_free(&src));
	dp_pair_close(_metadata, &p);
}

TEST_HARNESS_MAIN
