// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: types, sizes (rounding, limits, zero-sized queues, SRQ),
 * the rings and their mappings (reset by RESET), attribute values (bad
 * ones are EINVAL, controlled Q_Keys EPERM unprivileged) and query, EBUSY
 * on the PD, CQs and SRQ, QP numbers not reused, handles per context, the
 * QP counters, teardown on close, on SIGKILL and after device removal,
 * and the size contract of the ioctls.
 *
 * The device's max_qp (131072) is too many QPs for a test: the counter
 * behind the limit is checked through the resource counts instead.
 */
#include <infiniband/verbs.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>

#include "rnic_verbs_test.h"

#define DEV "t_qp"
#define QPN_SPACE (1u << 24)

static void fill_create_qp(struct rnic_create_qp *cmd, __u32 pd, __u32 cq,
			   __u32 type, const struct rnic_qp_cap *cap)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->pd_handle = pd;
	cmd->send_cq_handle = cq;
	cmd->recv_cq_handle = cq;
	cmd->qp_type = type;
	cmd->cap = *cap;
	cmd->user_handle = 0xfedcba9876543210ULL;
}

static int _create_qp(int fd, __u32 pd, __u32 cq, __u32 type,
		      const struct rnic_qp_cap *cap, struct rnic_create_qp *cmd)
{
	fill_create_qp(cmd, pd, cq, type, cap);
	return _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, cmd);
}

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				enum ibv_qp_type type, uint32_t send_wr,
				uint32_t recv_wr, struct ibv_qp_init_attr *init)
{
	memset(init, 0, sizeof(*init));
	init->qp_context = pd;
	init->send_cq = cq;
	init->recv_cq = cq;
	init->cap.max_send_wr = send_wr;
	init->cap.max_recv_wr = recv_wr;
	init->cap.max_send_sge = 1;
	init->cap.max_recv_sge = 1;
	init->qp_type = type;
	return ibv_create_qp(pd, init);
}

FIXTURE(qp) {
	struct rnic_genl *g;
	struct rnic_res_info *res;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_device_attr attr;
	union ibv_gid gid;
};

FIXTURE_SETUP(qp)
{
	self->ctx = NULL;
	rnic_fixture_setup(_metadata, &self->g, &self->res, DEV, NULL);
	self->ctx = do_ptr(rnic_ibv_open(DEV));
	ASSERT_EQ(0, ibv_query_device(self->ctx, &self->attr));
	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, 0, &self->gid));
	self->pd = do_ptr(ibv_alloc_pd(self->ctx));
	self->cq = do_ptr(ibv_create_cq(self->ctx, 16, NULL, NULL, 0));
}

FIXTURE_TEARDOWN(qp)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	rnic_fixture_teardown(_metadata, self->g, self->res);
}

TEST_F(qp, device_limits)
{
	EXPECT_EQ(131072, self->attr.max_qp);
	EXPECT_EQ(32768, self->attr.max_qp_wr);
	EXPECT_EQ(32, self->attr.max_sge);
	EXPECT_EQ(64, self->attr.max_qp_rd_atom);
	EXPECT_EQ(64, self->attr.max_qp_init_rd_atom);
	EXPECT_EQ(8192, self->attr.max_mcast_grp);
	EXPECT_EQ(56, self->attr.max_mcast_qp_attach);
}

TEST_F(qp, create_each_type)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
	};
	struct ibv_qp_init_attr init, qinit;
	struct ibv_qp_attr attr;
	struct ibv_cq *cq2;
	struct ibv_qp *qp;
	unsigned int i;

	cq2 = ibv_create_cq(self->ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, cq2);
	for (i = 0; i < 3; i++) {
		qp = create_qp(self->pd, self->cq, types[i], 4, 4, &init);
		ASSERT_NE(NULL, qp) TH_LOG("type %d: %d", types[i], errno);
		EXPECT_EQ(self->ctx, qp->context);
		EXPECT_EQ(self->pd, qp->qp_context);
		EXPECT_EQ(self->pd, qp->pd);
		EXPECT_EQ(self->cq, qp->send_cq);
		EXPECT_EQ(self->cq, qp->recv_cq);
		EXPECT_EQ(NULL, qp->srq);
		EXPECT_EQ(IBV_QPS_RESET, qp->state);
		EXPECT_EQ(types[i], qp->qp_type);
		EXPECT_EQ(0, qp->events_completed);
		EXPECT_LE(2, qp->qp_num);
		EXPECT_GT(QPN_SPACE, qp->qp_num);
		EXPECT_EQ(0, ibv_destroy_qp(qp));
	}

	/* Two CQs, and sq_sig_all, come back from query. */
	init.send_cq = cq2;
	init.sq_sig_all = 1;
	qp = ibv_create_qp(self->pd, &init);
	ASSERT_NE(NULL, qp);
	EXPECT_EQ(cq2, qp->send_cq);
	memset(&qinit, 0xa5, sizeof(qinit));
	ASSERT_EQ(0, ibv_query_qp(qp, &attr, IBV_QP_STATE, &qinit));
	EXPECT_EQ(IBV_QPS_RESET, attr.qp_state);
	EXPECT_EQ(self->pd, qinit.qp_context);
	EXPECT_EQ(cq2, qinit.send_cq);
	EXPECT_EQ(self->cq, qinit.recv_cq);
	EXPECT_EQ(NULL, qinit.srq);
	EXPECT_EQ(IBV_QPT_UD, qinit.qp_type);
	EXPECT_EQ(1, qinit.sq_sig_all);
	EXPECT_EQ(0, memcmp(&init.cap, &qinit.cap, sizeof(init.cap)));
	EXPECT_EQ(0, memcmp(&init.cap, &attr.cap, sizeof(init.cap)));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq2));
}

TEST_F(qp, types_rnic_does_not_have)
{
	static const struct {
		int type, err;
	} bad[] = {
		{ IBV_QPT_RAW_PACKET, EOPNOTSUPP },
		/* a target QP needs its domain: ibv_create_qp_ex (xrc.c) */
		{ IBV_QPT_XRC_RECV, EINVAL },
		{ IBV_QPT_DRIVER, EOPNOTSUPP },
		/* 5: the reference documents' IBV_QPT_XRC, without a domain */
		{ 0, EINVAL }, { 1, EINVAL }, { 5, EINVAL }, { 7, EINVAL },
		{ 11, EINVAL }, { -1, EINVAL },
	};
	struct ibv_qp_init_attr init;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(NULL, create_qp(self->pd, self->cq,
					  (enum ibv_qp_type)bad[i].type, 1, 1,
					  &init));
		EXPECT_EQ(bad[i].err, errno) TH_LOG("type %d", bad[i].type);
	}
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_QP]);
}

TEST_F(qp, sizes_are_rounded_up)
{
	static const struct {
		uint32_t wr, granted;
	} wrs[] = {
		{ 1, 1 }, { 2, 2 }, { 3, 4 }, { 5, 8 }, { 100, 128 },
		{ 16385, 32768 }, { 32768, 32768 },
	};
	/* sge, inline asked -> sge, inline granted (16-byte SGEs) */
	static const struct {
		uint32_t sge, inl, gsge, ginl;
	} room[] = {
		{ 0, 0, 0, 0 }, { 1, 0, 1, 16 }, { 2, 100, 7, 112 },
		{ 4, 64, 4, 64 }, { 0, 1, 1, 16 }, { 32, 0, 32, 512 },
		{ 0, 512, 32, 512 }, { 3, 17, 3, 48 },
	};
	struct ibv_qp_init_attr init, qinit;
	struct ibv_qp_attr attr;
	struct ibv_qp *qp;
	unsigned int i;

	for (i = 0; i < sizeof(wrs) / sizeof(wrs[0]); i++) {
		qp = create_qp(self->pd, self->cq, IBV_QPT_RC, wrs[i].wr,
			       wrs[(i + 3) % 7].wr, &init);
		ASSERT_NE(NULL, qp) TH_LOG("%u: %d", wrs[i].wr, errno);
		EXPECT_EQ(wrs[i].granted, init.cap.max_send_wr);
		EXPECT_EQ(wrs[(i + 3) % 7].granted, init.cap.max_recv_wr);
		EXPECT_EQ(1, init.cap.max_recv_sge);
		/* query reports what creation granted */
		ASSERT_EQ(0, ibv_query_qp(qp, &attr, 0, &qinit));
		EXPECT_EQ(0, memcmp(&init.cap, &qinit.cap, sizeof(init.cap)));
		EXPECT_EQ(0, ibv_destroy_qp(qp));
	}
	for (i = 0; i < sizeof(room) / sizeof(room[0]); i++) {
		memset(&init, 0, sizeof(init));
		init.send_cq = init.recv_cq = self->cq;
		init.qp_type = IBV_QPT_UC;
		init.cap.max_send_wr = 8;
		init.cap.max_recv_wr = 8;
		init.cap.max_send_sge = room[i].sge;
		init.cap.max_recv_sge = room[i].sge;
		init.cap.max_inline_data = room[i].inl;
		qp = ibv_create_qp(self->pd, &init);
		ASSERT_NE(NULL, qp) TH_LOG("case %u: %d", i, errno);
		EXPECT_EQ(room[i].gsge, init.cap.max_send_sge) TH_LOG("case %u", i);
		EXPECT_EQ(room[i].ginl, init.cap.max_inline_data) TH_LOG("case %u", i);
		EXPECT_EQ(room[i].sge, init.cap.max_recv_sge);
		ASSERT_EQ(0, ibv_query_qp(qp, &attr, 0, &qinit));
		EXPECT_EQ(0, memcmp(&init.cap, &qinit.cap, sizeof(init.cap)));
		EXPECT_EQ(0, ibv_destroy_qp(qp));
	}
}

TEST_F(qp, bad_sizes)
{
	static const struct ibv_qp_cap bad[] = {
		{ .max_send_wr = 32769, .max_recv_wr = 1 },
		{ .max_send_wr = 1, .max_recv_wr = 32769 },
		{ .max_send_wr = UINT32_MAX, .max_recv_wr = 1 },
		{ .max_send_wr = 1, .max_recv_wr = 1u << 31 },
		{ .max_send_wr = 1, .max_send_sge = 33 },
		{ .max_send_wr = 1, .max_recv_sge = 33 },
		{ .max_send_wr = 1, .max_send_sge = UINT32_MAX },
		{ .max_send_wr = 1, .max_inline_data = 513 },
		{ .max_send_wr = 1, .max_inline_data = UINT32_MAX },
	};
	struct ibv_qp_init_attr init;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&init, 0, sizeof(init));
		init.send_cq = init.recv_cq = self->cq;
		init.qp_type = IBV_QPT_RC;
		init.cap = bad[i];
		errno = 0;
		EXPECT_EQ(NULL, ibv_create_qp(self->pd, &init));
		EXPECT_EQ(EINVAL, errno) TH_LOG("case %u", i);
	}
	/* A missing CQ. */
	create_qp(self->pd, self->cq, IBV_QPT_RC, 1, 1, &init);
	init.recv_cq = NULL;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp(self->pd, &init));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(1, self->res->counts[RNIC_RES_QP]);
}

TEST_F(qp, zero_sized_queues_have_no_ring)
{
	struct ibv_qp_init_attr init;
	int before = uverbs_mappings();
	struct ibv_qp *qp;

	qp = create_qp(self->pd, self->cq, IBV_QPT_UD, 0, 0, &init);
	ASSERT_NE(NULL, qp);
	EXPECT_EQ(0, init.cap.max_send_wr);
	EXPECT_EQ(0, init.cap.max_recv_wr);
	EXPECT_EQ(before, uverbs_mappings());
	EXPECT_EQ(0, ibv_destroy_qp(qp));

	qp = create_qp(self->pd, self->cq, IBV_QPT_UD, 0, 1, &init);
	ASSERT_NE(NULL, qp);
	EXPECT_EQ(before + 1, uverbs_mappings());
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	qp = create_qp(self->pd, self->cq, IBV_QPT_RC, 2, 3, &init);
	ASSERT_NE(NULL, qp);
	EXPECT_EQ(before + 2, uverbs_mappings());
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(before, uverbs_mappings());
}

TEST_F(qp, srq_replaces_the_receive_queue)
{
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = 8 } };
	struct ibv_qp_init_attr init, qinit;
	struct ibv_qp_attr attr;
	int before = uverbs_mappings();
	struct ibv_srq *srq;
	struct ibv_qp *qp;

	srq = ibv_create_srq(self->pd, &sinit);
	ASSERT_NE(NULL, srq);
	before = uverbs_mappings();

	/* Receive sizes are ignored, even out of range: no RQ. */
	memset(&init, 0, sizeof(init));
	init.send_cq = init.recv_cq = self->cq;
	init.srq = srq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = 4;
	init.cap.max_recv_wr = 100000;
	init.cap.max_recv_sge = 100;
	qp = ibv_create_qp(self->pd, &init);
	ASSERT_NE(NULL, qp) TH_LOG("%d", errno);
	EXPECT_EQ(srq, qp->srq);
	EXPECT_EQ(0, init.cap.max_recv_wr);
	EXPECT_EQ(0, init.cap.max_recv_sge);
	EXPECT_EQ(before + 1, uverbs_mappings());
	ASSERT_EQ(0, ibv_query_qp(qp, &attr, 0, &qinit));
	EXPECT_EQ(srq, qinit.srq);
	EXPECT_EQ(0, qinit.cap.max_recv_wr);

	/* The SRQ is held: EBUSY until the QP is gone. */
	EXPECT_EQ(EBUSY, ibv_destroy_srq(srq));
	init.qp_type = IBV_QPT_UD;
	init.cap.max_recv_wr = 0;
	EXPECT_NE(NULL, ibv_create_qp(self->pd, &init));
	/* Not for UC (ibv_create_qp(3)). */
	init.qp_type = IBV_QPT_UC;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp(self->pd, &init));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(EBUSY, ibv_destroy_srq(srq));
}

TEST_F(qp, ring_layout_and_mapping)
{
	struct rnic_qp_cap cap = {
		.max_send_wr = 5, .max_recv_wr = 9,
		.max_send_sge = 3, .max_recv_sge = 2, .max_inline_data = 60,
	};
	struct rnic_modify_qp mod = { .size = sizeof(mod) };
	int fd = self->ctx->cmd_fd;
	struct rnic_create_qp cmd;
	struct rnic_ring_info *ri;
	volatile __u32 *idx;
	char *sq, *rq;

	ASSERT_EQ(0, _create_qp(fd, self->pd->handle, self->cq->handle,
				RNIC_QPT_RC, &cap, &cmd));
	EXPECT_EQ(8, cmd.out_cap.max_send_wr);
	EXPECT_EQ(16, cmd.out_cap.max_recv_wr);
	EXPECT_EQ(4, cmd.out_cap.max_send_sge);
	EXPECT_EQ(64, cmd.out_cap.max_inline_data);
	EXPECT_EQ(2, cmd.out_cap.max_recv_sge);
	EXPECT_EQ(0, cmd.out_cap.__reserved);

	ri = &cmd.out_sq;
	EXPECT_EQ(8, ri->entries);
	EXPECT_EQ(sizeof(struct rnic_send_wqe) + 64, ri->entry_size);
	EXPECT_EQ(0, ri->size % 4096);
	EXPECT_LE(ri->entries_off + ri->entries * ri->entry_size, ri->size);
	EXPECT_NE(ri->producer_off, ri->consumer_off);
	EXPECT_EQ(16, cmd.out_rq.entries);
	EXPECT_EQ(sizeof(struct rnic_recv_wqe) + 2 * sizeof(struct rnic_sge),
		  cmd.out_rq.entry_size);
	EXPECT_NE(cmd.out_sq.offset, cmd.out_rq.offset);

	/* Exactly the size, shared only. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ri->size + 4096, PROT_READ, MAP_SHARED,
				   fd, ri->offset));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ri->size, PROT_READ, MAP_PRIVATE,
				   fd, ri->offset));
	sq = mmap(NULL, ri->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		  ri->offset);
	ASSERT_NE(MAP_FAILED, sq);
	rq = mmap(NULL, cmd.out_rq.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		  fd, cmd.out_rq.offset);
	ASSERT_NE(MAP_FAILED, rq);

	/* Empty rings; userspace produces. */
	idx = (volatile __u32 *)(sq + ri->producer_off);
	EXPECT_EQ(0, *idx);
	EXPECT_EQ(0, *(volatile __u32 *)(sq + ri->consumer_off));
	memset(sq + ri->entries_off, 0x5a, ri->entries * ri->entry_size);
	*idx = 3;
	*(volatile __u32 *)(rq + cmd.out_rq.producer_off) = 7;

	/* RESET -> RESET empties both rings. */
	mod.handle = cmd.out_handle;
	mod.attr_mask = RNIC_QP_STATE;
	mod.attr.qp_state = RNIC_QPS_RESET;
	ASSERT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_MODIFY_QP, &mod));
	EXPECT_EQ(0, *idx);
	EXPECT_EQ(0, *(volatile __u32 *)(rq + cmd.out_rq.producer_off));

	/* The mapping outlives the QP, until munmap. */
	EXPECT_EQ(0, _destroy_qp(fd, cmd.out_handle));
	*idx = 1;
	EXPECT_EQ(1, *idx);
	EXPECT_EQ(0, munmap(sq, ri->size));
	EXPECT_EQ(0, munmap(rq, cmd.out_rq.size));
	/* And its offsets are gone with it. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ri->size, PROT_READ, MAP_SHARED, fd,
				   ri->offset));
}

TEST_F(qp, librnic_maps_and_unmaps_the_rings)
{
	struct ibv_qp_init_attr init;
	int before = uverbs_mappings();
	struct ibv_qp *qp[4];
	int i;

	for (i = 0; i < 4; i++) {
		qp[i] = create_qp(self->pd, self->cq, IBV_QPT_RC, 16, 16, &init);
		ASSERT_NE(NULL, qp[i]);
	}
	EXPECT_EQ(before + 8, uverbs_mappings());
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, ibv_destroy_qp(qp[i]));
	EXPECT_EQ(before, uverbs_mappings());
}

/* Walk a QP to RTS with the values of @a. */
static int to_rts(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	int ret;

	a->qp_state = IBV_QPS_INIT;
	ret = ibv_modify_qp(qp, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	a->qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(qp, a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	a->qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(qp, a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void rc_attr(struct ibv_qp_attr *a, const union ibv_gid *gid)
{
	memset(a, 0, sizeof(*a));
	a->port_num = 1;
	a->qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.dgid = *gid;
	a->ah_attr.grh.flow_label = 0xabcde;
	a->ah_attr.grh.hop_limit = 9;
	a->ah_attr.grh.traffic_class = 0x20;
	a->ah_attr.sl = 3;
	a->ah_attr.static_rate = IBV_RATE_25_GBPS;
	a->path_mtu = IBV_MTU_4096;
	a->dest_qp_num = 0xffffff;
	a->rq_psn = 0xfffffe;
	a->max_dest_rd_atomic = 64;
	a->min_rnr_timer = 31;
	a->sq_psn = 1;
	a->timeout = 31;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->max_rd_atomic = 64;
}

TEST_F(qp, query_returns_what_was_set)
{
	struct ibv_qp_init_attr init, qinit;
	struct ibv_qp_attr a, q;
	struct ibv_qp *qp;

	qp = create_qp(self->pd, self->cq, IBV_QPT_RC, 4, 4, &init);
	ASSERT_NE(NULL, qp);
	rc_attr(&a, &self->gid);
	ASSERT_EQ(0, to_rts(qp, &a));
	EXPECT_EQ(IBV_QPS_RTS, qp->state);

	memset(&q, 0xa5, sizeof(q));
	ASSERT_EQ(0, ibv_query_qp(qp, &q, IBV_QP_STATE, &qinit));
	EXPECT_EQ(IBV_QPS_RTS, q.qp_state);
	EXPECT_EQ(IBV_QPS_RTS, q.cur_qp_state);
	EXPECT_EQ(IBV_MTU_4096, q.path_mtu);
	EXPECT_EQ(IBV_MIG_MIGRATED, q.path_mig_state);
	EXPECT_EQ(0, q.qkey);
	EXPECT_EQ(0xfffffe, q.rq_psn);
	EXPECT_EQ(1, q.sq_psn);
	EXPECT_EQ(0xffffff, q.dest_qp_num);
	EXPECT_EQ(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		  q.qp_access_flags);
	EXPECT_EQ(0, memcmp(&q.ah_attr.grh.dgid, &self->gid, 16));
	EXPECT_EQ(0xabcde, q.ah_attr.grh.flow_label);
	EXPECT_EQ(0, q.ah_attr.grh.sgid_index);
	EXPECT_EQ(9, q.ah_attr.grh.hop_limit);
	EXPECT_EQ(0x20, q.ah_attr.grh.traffic_class);
	EXPECT_EQ(0, q.ah_attr.dlid);
	EXPECT_EQ(3, q.ah_attr.sl);
	EXPECT_EQ(0, q.ah_attr.src_path_bits);
	EXPECT_EQ(IBV_RATE_25_GBPS, q.ah_attr.static_rate);
	EXPECT_EQ(1, q.ah_attr.is_global);
	EXPECT_EQ(1, q.ah_attr.port_num);
	EXPECT_EQ(0, q.alt_ah_attr.is_global);
	EXPECT_EQ(0, q.pkey_index);
	EXPECT_EQ(0, q.alt_pkey_index);
	EXPECT_EQ(0, q.en_sqd_async_notify);
	EXPECT_EQ(0, q.sq_draining);
	EXPECT_EQ(64, q.max_rd_atomic);
	EXPECT_EQ(64, q.max_dest_rd_atomic);
	EXPECT_EQ(31, q.min_rnr_timer);
	EXPECT_EQ(1, q.port_num);
	EXPECT_EQ(31, q.timeout);
	EXPECT_EQ(7, q.retry_cnt);
	EXPECT_EQ(7, q.rnr_retry);
	EXPECT_EQ(0, q.alt_port_num);
	EXPECT_EQ(0, q.alt_timeout);
	EXPECT_EQ(0, q.rate_limit);
	EXPECT_EQ(0, memcmp(&init.cap, &q.cap, sizeof(q.cap)));
	EXPECT_EQ(IBV_QPT_RC, qinit.qp_type);
	EXPECT_EQ(0, qinit.sq_sig_all);

	/* RTS -> RTS changes one value, the rest stays. */
	a.min_rnr_timer = 1;
	a.qp_access_flags = 0;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_MIN_RNR_TIMER |
				   IBV_QP_ACCESS_FLAGS));
	ASSERT_EQ(0, ibv_query_qp(qp, &q, 0, &qinit));
	EXPECT_EQ(1, q.min_rnr_timer);
	EXPECT_EQ(0, q.qp_access_flags);
	EXPECT_EQ(64, q.max_rd_atomic);
	EXPECT_EQ(IBV_QPS_RTS, q.qp_state);

	/* ibv_query_qp() refreshes qp->state when asked for the state. */
	qp->state = IBV_QPS_UNKNOWN;
	ASSERT_EQ(0, ibv_query_qp(qp, &q, IBV_QP_CAP, &qinit));
	EXPECT_EQ(IBV_QPS_UNKNOWN, qp->state);
	EXPECT_EQ(IBV_QPS_RTS, q.qp_state);
	ASSERT_EQ(0, ibv_query_qp(qp, &q, IBV_QP_STATE, &qinit));
	EXPECT_EQ(IBV_QPS_RTS, qp->state);
}

/* One attribute, one bad value: EINVAL, and the QP does not move. */
enum field {
	F_PKEY, F_PORT, F_ACCESS, F_GLOBAL, F_AH_PORT, F_SGID, F_DLID,
	F_PATH_BITS, F_SL, F_FLOW, F_RATE, F_DGID_MCAST, F_DGID_V4, F_MTU,
	F_DQPN, F_RQ_PSN, F_DEST_RD, F_RNR_TIMER, F_SQ_PSN, F_TIMEOUT,
	F_RETRY, F_RNR_RETRY, F_RD, F_MIG, F_CUR, F_SQD_NOTIFY,
};

static void set_field(struct ibv_qp_attr *a, enum field f, uint32_t v)
{
	static const uint8_t v4[16] = {
		[10] = 0xff, [11] = 0xff, [12] = 10, [15] = 1,
	};

	switch (f) {
	case F_PKEY: a->pkey_index = v; break;
	case F_PORT: a->port_num = v; break;
	case F_ACCESS: a->qp_access_flags = v; break;
	case F_GLOBAL: a->ah_attr.is_global = v; break;
	case F_AH_PORT: a->ah_attr.port_num = v; break;
	case F_SGID: a->ah_attr.grh.sgid_index = v; break;
	case F_DLID: a->ah_attr.dlid = v; break;
	case F_PATH_BITS: a->ah_attr.src_path_bits = v; break;
	case F_SL: a->ah_attr.sl = v; break;
	case F_FLOW: a->ah_attr.grh.flow_label = v; break;
	case F_RATE: a->ah_attr.static_rate = v; break;
	case F_DGID_MCAST: a->ah_attr.grh.dgid.raw[0] = v; break;
	case F_DGID_V4: memcpy(a->ah_attr.grh.dgid.raw, v4, 16); break;
	case F_MTU: a->path_mtu = v; break;
	case F_DQPN: a->dest_qp_num = v; break;
	case F_RQ_PSN: a->rq_psn = v; break;
	case F_DEST_RD: a->max_dest_rd_atomic = v; break;
	case F_RNR_TIMER: a->min_rnr_timer = v; break;
	case F_SQ_PSN: a->sq_psn = v; break;
	case F_TIMEOUT: a->timeout = v; break;
	case F_RETRY: a->retry_cnt = v; break;
	case F_RNR_RETRY: a->rnr_retry = v; break;
	case F_RD: a->max_rd_atomic = v; break;
	case F_MIG: a->path_mig_state = v; break;
	case F_CUR: a->cur_qp_state = v; break;
	case F_SQD_NOTIFY: a->en_sqd_async_notify = v; break;
	}
}

TEST_F(qp, bad_values)
{
	static const struct {
		enum ibv_qp_state from;
		int mask;
		enum field field;
		uint32_t value;
	} bad[] = {
		{ IBV_QPS_RESET, IBV_QP_PKEY_INDEX, F_PKEY, 1 },
		{ IBV_QPS_RESET, IBV_QP_PORT, F_PORT, 0 },
		{ IBV_QPS_RESET, IBV_QP_PORT, F_PORT, 2 },
		{ IBV_QPS_RESET, IBV_QP_ACCESS_FLAGS, F_ACCESS, IBV_ACCESS_MW_BIND },
		{ IBV_QPS_RESET, IBV_QP_ACCESS_FLAGS, F_ACCESS, IBV_ACCESS_ZERO_BASED },
		{ IBV_QPS_RESET, IBV_QP_ACCESS_FLAGS, F_ACCESS, 1u << 31 },
		{ IBV_QPS_INIT, IBV_QP_AV, F_GLOBAL, 0 },
		{ IBV_QPS_INIT, IBV_QP_AV, F_AH_PORT, 2 },
		{ IBV_QPS_INIT, IBV_QP_AV, F_SGID, 1 },		/* empty */
		{ IBV_QPS_INIT, IBV_QP_AV, F_SGID, 64 },
		{ IBV_QPS_INIT, IBV_QP_AV, F_SGID, 255 },
		{ IBV_QPS_INIT, IBV_QP_AV, F_DLID, 1 },
		{ IBV_QPS_INIT, IBV_QP_AV, F_PATH_BITS, 1 },
		{ IBV_QPS_INIT, IBV_QP_AV, F_SL, 16 },
		{ IBV_QPS_INIT, IBV_QP_AV, F_FLOW, 1 << 20 },
		{ IBV_QPS_INIT, IBV_QP_AV, F_RATE, 1 },
		{ IBV_QPS_INIT, IBV_QP_AV, F_RATE, 25 },
		/* a multicast peer, an IPv4 peer from an IPv6 source GID */
		{ IBV_QPS_INIT, IBV_QP_AV, F_DGID_MCAST, 0xff },
		{ IBV_QPS_INIT, IBV_QP_AV, F_DGID_V4, 0 },
		{ IBV_QPS_INIT, IBV_QP_PATH_MTU, F_MTU, 0 },
		{ IBV_QPS_INIT, IBV_QP_PATH_MTU, F_MTU, 6 },
		{ IBV_QPS_INIT, IBV_QP_DEST_QPN, F_DQPN, 1 << 24 },
		{ IBV_QPS_INIT, IBV_QP_RQ_PSN, F_RQ_PSN, 1 << 24 },
		{ IBV_QPS_INIT, IBV_QP_RQ_PSN, F_RQ_PSN, UINT32_MAX },
		{ IBV_QPS_INIT, IBV_QP_MAX_DEST_RD_ATOMIC, F_DEST_RD, 65 },
		{ IBV_QPS_INIT, IBV_QP_MAX_DEST_RD_ATOMIC, F_DEST_RD, 255 },
		{ IBV_QPS_INIT, IBV_QP_MIN_RNR_TIMER, F_RNR_TIMER, 32 },
		{ IBV_QPS_RTR, IBV_QP_SQ_PSN, F_SQ_PSN, 1 << 24 },
		{ IBV_QPS_RTR, IBV_QP_TIMEOUT, F_TIMEOUT, 32 },
		{ IBV_QPS_RTR, IBV_QP_RETRY_CNT, F_RETRY, 8 },
		{ IBV_QPS_RTR, IBV_QP_RNR_RETRY, F_RNR_RETRY, 8 },
		{ IBV_QPS_RTR, IBV_QP_MAX_QP_RD_ATOMIC, F_RD, 65 },
		{ IBV_QPS_RTR, IBV_QP_PATH_MIG_STATE, F_MIG, 3 },
		{ IBV_QPS_RTR, IBV_QP_CUR_STATE, F_CUR, IBV_QPS_RTS },
		{ IBV_QPS_RTR, IBV_QP_CUR_STATE, F_CUR, 8 },
		{ IBV_QPS_RTS, IBV_QP_EN_SQD_ASYNC_NOTIFY, F_SQD_NOTIFY, 2 },
	};
	static const int walk[] = {
		[IBV_QPS_INIT] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				 IBV_QP_ACCESS_FLAGS,
		[IBV_QPS_RTR] = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER,
		[IBV_QPS_RTS] = IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				IBV_QP_MAX_QP_RD_ATOMIC,
		[IBV_QPS_SQD] = 0,
	};
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, q;
	struct ibv_qp *qp;
	unsigned int i;

	qp = create_qp(self->pd, self->cq, IBV_QPT_RC, 4, 4, &init);
	ASSERT_NE(NULL, qp);
	/* The values of rc_attr() are good all the way... */
	rc_attr(&a, &self->gid);
	ASSERT_EQ(0, to_rts(qp, &a));
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE |
				   IBV_QP_EN_SQD_ASYNC_NOTIFY));
	/* ...but for one value each time. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum ibv_qp_state to = bad[i].from + 1;
		int mask = IBV_QP_STATE | walk[to] | bad[i].mask;

		ASSERT_EQ(0, ibv_modify_qp(qp, &reset, IBV_QP_STATE));
		rc_attr(&a, &self->gid);
		while (qp->state < bad[i].from) {
			a.qp_state = qp->state + 1;
			ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE |
						   walk[a.qp_state]));
		}
		a.qp_state = to;
		a.cur_qp_state = bad[i].from;
		a.en_sqd_async_notify = 1;
		set_field(&a, bad[i].field, bad[i].value);
		EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask)) TH_LOG("case %u", i);
		ASSERT_EQ(0, ibv_query_qp(qp, &q, 0, &init));
		EXPECT_EQ(bad[i].from, q.qp_state) TH_LOG("case %u", i);
	}
	EXPECT_EQ(0, ibv_destroy_qp(qp));
}

TEST_F(qp, bad_values_ud)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x1234,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_QKEY;
	struct ibv_qp *qp;

	qp = create_qp(self->pd, self->cq, IBV_QPT_UD, 4, 4, &init);
	ASSERT_NE(NULL, qp);
	a.pkey_index = 1;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask));
	a.pkey_index = 0;
	/* UD has no access flags. */
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask | IBV_QP_ACCESS_FLAGS));
	EXPECT_EQ(0, ibv_modify_qp(qp, &a, mask));
	a.qp_state = IBV_QPS_RTR;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV));
	EXPECT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
}

/* Q_Keys with bit 31 set are controlled: CAP_NET_RAW only. */
TEST_F(qp, controlled_qkey_needs_cap_net_raw)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x80010000,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_QKEY;
	struct ibv_qp *qp, *qp2;
	int status;
	pid_t pid;

	qp = create_qp(self->pd, self->cq, IBV_QPT_UD, 4, 4, &init);
	ASSERT_NE(NULL, qp);
	qp2 = create_qp(self->pd, self->cq, IBV_QPT_UD, 4, 4, &init);
	ASSERT_NE(NULL, qp2);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct ibv_qp_init_attr qinit;
		struct ibv_qp_attr q;
		int ret = 0;

		if (setgid(65534) || setuid(65534))
			_exit(20);
		if (ibv_modify_qp(qp, &a, mask) != EPERM)
			ret |= 1;
		if (ibv_query_qp(qp, &q, 0, &qinit) || q.qp_state != IBV_QPS_RESET)
			ret |= 2;
		a.qkey = 0x7fffffff;
		if (ibv_modify_qp(qp, &a, mask))
			ret |= 4;
		a.qkey = 0x80000000;
		if (ibv_modify_qp(qp, &a, IBV_QP_QKEY) != EPERM)
			ret |= 8;
		_exit(ret);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* Root has CAP_NET_RAW. */
	EXPECT_EQ(0, ibv_modify_qp(qp2, &a, mask));
	a.qkey = 0xffffffff;
	EXPECT_EQ(0, ibv_modify_qp(qp2, &a, IBV_QP_QKEY));
}

/* RTS -> SQD with en_sqd_async_notify: IBV_EVENT_SQ_DRAINED, at once. */
TEST_F_TIMEOUT(qp, sq_drained_event, 20)
{
	struct rnic_destroy_qp d = { .size = sizeof(d) };
	struct ibv_qp_init_attr init;
	struct ibv_async_event ev;
	struct ibv_qp_attr a;
	struct ibv_qp *qp, *qp2;
	int fl;

	ASSERT_LE(0, self->ctx->async_fd);
	fl = fcntl(self->ctx->async_fd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->ctx->async_fd, F_SETFL, fl | O_NONBLOCK));
	qp = create_qp(self->pd, self->cq, IBV_QPT_RC, 4, 4, &init);
	ASSERT_NE(NULL, qp);
	rc_attr(&a, &self->gid);
	ASSERT_EQ(0, to_rts(qp, &a));

	/* Not asked for: no event. */
	a.qp_state = IBV_QPS_SQD;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(-1, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(EAGAIN, errno);
	a.qp_state = IBV_QPS_RTS;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 0;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE |
				   IBV_QP_EN_SQD_ASYNC_NOTIFY));
	EXPECT_EQ(-1, ibv_get_async_event(self->ctx, &ev));
	a.qp_state = IBV_QPS_RTS;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));

	/* Asked for: one event naming the QP. */
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE |
				   IBV_QP_EN_SQD_ASYNC_NOTIFY));
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(IBV_EVENT_SQ_DRAINED, ev.event_type);
	EXPECT_EQ(qp, ev.element.qp);
	ibv_ack_async_event(&ev);
	/* SQD -> SQD is no new drain. */
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(-1, ibv_get_async_event(self->ctx, &ev));
	/* The event was acknowledged: destroy does not wait. */
	EXPECT_EQ(0, ibv_destroy_qp(qp));

	/* The kernel counts the events read, for destroy to wait on. */
	qp2 = create_qp(self->pd, self->cq, IBV_QPT_UD, 4, 4, &init);
	ASSERT_NE(NULL, qp2);
	a.qkey = 1;
	a.qp_state = IBV_QPS_INIT;
	ASSERT_EQ(0, ibv_modify_qp(qp2, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_QKEY));
	a.qp_state = IBV_QPS_RTR;
	ASSERT_EQ(0, ibv_modify_qp(qp2, &a, IBV_QP_STATE));
	a.qp_state = IBV_QPS_RTS;
	ASSERT_EQ(0, ibv_modify_qp(qp2, &a, IBV_QP_STATE | IBV_QP_SQ_PSN));
	for (fl = 0; fl < 3; fl++) {
		a.qp_state = IBV_QPS_SQD;
		ASSERT_EQ(0, ibv_modify_qp(qp2, &a, IBV_QP_STATE |
					   IBV_QP_EN_SQD_ASYNC_NOTIFY));
		a.qp_state = IBV_QPS_RTS;
		ASSERT_EQ(0, ibv_modify_qp(qp2, &a, IBV_QP_STATE));
	}
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(qp2, ev.element.qp);
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	d.handle = qp2->handle;
	ASSERT_EQ(0, _rnic_ioctl(self->ctx->cmd_fd, RNIC_IOCTL_DESTROY_QP, &d));
	EXPECT_EQ(2, d.out_async_events_reported);
	/* The third, unread, went with the QP. */
	EXPECT_EQ(-1, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(qp, pd_cqs_and_srq_busy_while_the_qp_exists)
{
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = 8 } };
	struct ibv_qp_init_attr init;
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;

	scq = ibv_create_cq(self->ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, scq);
	rcq = ibv_create_cq(self->ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, rcq);
	srq = ibv_create_srq(self->pd, &sinit);
	ASSERT_NE(NULL, srq);
	memset(&init, 0, sizeof(init));
	init.send_cq = scq;
	init.recv_cq = rcq;
	init.srq = srq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = 1;
	qp = ibv_create_qp(self->pd, &init);
	ASSERT_NE(NULL, qp);

	EXPECT_EQ(EBUSY, ibv_destroy_cq(scq));
	EXPECT_EQ(EBUSY, ibv_destroy_cq(rcq));
	EXPECT_EQ(EBUSY, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(scq));
	EXPECT_EQ(0, ibv_destroy_cq(rcq));
	EXPECT_EQ(0, ibv_destroy_srq(srq));

	/* One CQ for both queues is held twice, and released twice. */
	qp = create_qp(self->pd, self->cq, IBV_QPT_UD, 1, 1, &init);
	ASSERT_NE(NULL, qp);
	EXPECT_EQ(EBUSY, ibv_destroy_cq(self->cq));
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(self->cq));
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
}

TEST_F_TIMEOUT(qp, qp_numbers_are_not_reused_soon, 300)
{
	uint8_t *seen = calloc(QPN_SPACE / 8, 1);
	struct ibv_qp_init_attr init;
	struct ibv_qp *qp, *keep;
	int i, repeats = 0;

	ASSERT_NE(NULL, seen);
	keep = create_qp(self->pd, self->cq, IBV_QPT_UD, 1, 1, &init);
	ASSERT_NE(NULL, keep);
	seen[keep->qp_num / 8] |= 1 << (keep->qp_num % 8);
	for (i = 0; i < 10000; i++) {
		qp = create_qp(self->pd, self->cq,
			       i % 3 ? IBV_QPT_RC : IBV_QPT_UD, 0, 0, &init);
		ASSERT_NE(NULL, qp) TH_LOG("round %d: %d", i, errno);
		ASSERT_LE(2, qp->qp_num);
		ASSERT_GT(QPN_SPACE, qp->qp_num);
		if (seen[qp->qp_num / 8] & (1 << (qp->qp_num % 8)))
			repeats++;
		seen[qp->qp_num / 8] |= 1 << (qp->qp_num % 8);
		ASSERT_EQ(0, ibv_destroy_qp(qp));
	}
	EXPECT_EQ(0, repeats);
	free(seen);
}

TEST_F(qp, handles_are_per_context_and_per_type)
{
	struct rnic_qp_cap cap = { .max_send_wr = 1 };
	struct rnic_query_qp q = { .size = sizeof(q) };
	struct ibv_qp_init_attr init;
	struct rnic_create_qp cmd;
	struct ibv_context *other;
	struct ibv_qp *qp;
	int fd = self->ctx->cmd_fd, ofd;

	qp = create_qp(self->pd, self->cq, IBV_QPT_RC, 1, 1, &init);
	ASSERT_NE(NULL, qp);
	other = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, other);
	ofd = other->cmd_fd;

	/* Our QP, PD and CQ mean nothing in the other context. */
	q.handle = qp->handle;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(ofd, RNIC_IOCTL_QUERY_QP, &q));
	EXPECT_EQ(-EINVAL, _destroy_qp(ofd, qp->handle));
	EXPECT_EQ(-EINVAL, _create_qp(ofd, self->pd->handle, self->cq->handle,
				      RNIC_QPT_RC, &cap, &cmd));
	/* A PD or CQ is not a QP, a QP is not a CQ. */
	q.handle = self->pd->handle;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_QUERY_QP, &q));
	EXPECT_EQ(-EINVAL, _destroy_qp(fd, self->cq->handle));
	EXPECT_EQ(-EINVAL, _create_qp(fd, self->pd->handle, qp->handle,
				      RNIC_QPT_RC, &cap, &cmd));
	EXPECT_EQ(-EINVAL, _create_qp(fd, self->cq->handle, self->cq->handle,
				      RNIC_QPT_RC, &cap, &cmd));
	fill_create_qp(&cmd, self->pd->handle, self->cq->handle, RNIC_QPT_RC,
		       &cap);
	cmd.flags = RNIC_CREATE_QP_SRQ;
	cmd.srq_handle = self->cq->handle;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, &cmd));

	/* A destroyed QP's handle is gone. */
	q.handle = qp->handle;
	EXPECT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_QUERY_QP, &q));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_QUERY_QP, &q));
	EXPECT_EQ(-EINVAL, _destroy_qp(fd, q.handle));
	EXPECT_EQ(0, ibv_close_device(other));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_QP]);
}

/* The counter behind max_qp, per device and per context. */
TEST_F(qp, qps_are_counted)
{
	struct rnic_qp_cap cap = { .max_send_wr = 1, .max_recv_wr = 1 };
	struct ibv_qp_init_attr init;
	struct rnic_create_qp cmd;
	struct ibv_qp *qp[4];
	int i, fd;
	__u32 pd, cq;

	/* Raw, unmapped rings: a mapping would keep the file open. */
	fd = rnic_open(DEV);
	ASSERT_LE(0, fd);
	do_pd_and_cq(fd, &pd, &cq);
	for (i = 0; i < 4; i++) {
		qp[i] = create_qp(self->pd, self->cq, IBV_QPT_RC, 1, 1, &init);
		ASSERT_NE(NULL, qp[i]);
	}
	ASSERT_EQ(0, _create_qp(fd, pd, cq, RNIC_QPT_UD, &cap, &cmd));
	ASSERT_EQ(0, _create_qp(fd, pd, cq, RNIC_QPT_UC, &cap, &cmd));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(6, self->res->counts[RNIC_RES_QP]);
	ASSERT_EQ(2, self->res->n_ctxs);
	/* 4 in one context, 2 in the other, in either order */
	EXPECT_EQ(6, self->res->ctxs[0].counts[RNIC_RES_QP] +
		  self->res->ctxs[1].counts[RNIC_RES_QP]);
	EXPECT_EQ(8, self->res->ctxs[0].counts[RNIC_RES_QP] *
		  self->res->ctxs[1].counts[RNIC_RES_QP]);
	EXPECT_EQ(0, ibv_destroy_qp(qp[0]));
	EXPECT_EQ(0, close(fd));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(3, self->res->counts[RNIC_RES_QP]);
	ASSERT_EQ(1, self->res->n_ctxs);
	EXPECT_EQ(3, self->res->ctxs[0].counts[RNIC_RES_QP]);
}

TEST_F(qp, close_frees_everything)
{
	struct rnic_create_srq srq = { .size = sizeof(srq), .max_wr = 4 };
	struct rnic_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 64 };
	struct rnic_link_info info;
	struct rnic_create_qp cmd;
	int fd, i;
	__u32 pd, cq;

	/* Raw, unmapped rings: a mapping would keep the file open. */
	fd = rnic_open(DEV);
	ASSERT_LE(0, fd);
	do_pd_and_cq(fd, &pd, &cq);
	srq.pd_handle = pd;
	ASSERT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_CREATE_SRQ, &srq));
	for (i = 0; i < 32; i++)
		ASSERT_EQ(0, _create_qp(fd, pd, cq, RNIC_QPT_RC + i % 3, &cap,
					&cmd));
	fill_create_qp(&cmd, pd, cq, RNIC_QPT_RC, &cap);
	cmd.flags = RNIC_CREATE_QP_SRQ;
	cmd.srq_handle = srq.out_handle;
	ASSERT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, &cmd));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(33, self->res->counts[RNIC_RES_QP]);
	/* QPs go before what they hold, whatever the creation order. */
	EXPECT_EQ(0, close(fd));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_QP]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_CQ]);
	EXPECT_EQ(0, self->res->counts[RNIC_RES_SRQ]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_PD]);
	ASSERT_EQ(0, rnic_link_get(self->g, DEV, &info));
	EXPECT_EQ(1, info.contexts);
}

TEST_F(qp, process_exit_frees_mapped_qps)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct ibv_context *ctx = rnic_ibv_open(DEV);
		struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
		struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 8, NULL, NULL, 0) :
				    NULL;
		struct ibv_qp_init_attr init;
		int i;

		for (i = 0; cq && i < 16; i++)
			if (!create_qp(pd, cq, IBV_QPT_RC + i % 3, 64, 64, &init))
				_exit(2);
		/* Neither destroyed nor unmapped nor closed. */
		_exit(cq ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_QP]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_CQ]);
	EXPECT_EQ(1, self->res->n_ctxs);
}

/* QPs of every type and size, moved to ERR, half destroyed. */
static void qp_churn(void *arg)
{
	struct ibv_context *ctx = rnic_ibv_open(DEV);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i;

	(void)arg;
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 8, NULL, NULL, 0) : NULL;
	for (i = 0; cq; i++) {
		qp = create_qp(pd, cq, IBV_QPT_RC + i % 3, i % 64, 8, &init);
		if (!qp)
			continue;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_ERR;
		ibv_modify_qp(qp, &a, IBV_QP_STATE);
		if (i % 2)
			ibv_destroy_qp(qp);
	}
}

TEST_F(qp, sigkill_at_random_points)
{
	rnic_kill_at_random(_metadata, 100, 3000, qp_churn, NULL);
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_QP]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_CQ]);
	EXPECT_EQ(1, self->res->n_ctxs);
}

TEST_F(qp, destroy_works_after_device_removal)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp *qp;

	qp = create_qp(self->pd, self->cq, IBV_QPT_RC, 4, 4, &init);
	ASSERT_NE(NULL, qp);
	do_link_del(self->g, DEV);
	errno = 0;
	EXPECT_EQ(NULL, create_qp(self->pd, self->cq, IBV_QPT_RC, 4, 4, &init));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(ENODEV, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(self->cq));
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
}

/* RNIC_IOCTL_RING_SQ: the argument is the handle, not a pointer. */
static int _ring_sq(int fd, unsigned long handle)
{
	return ioctl(fd, RNIC_IOCTL_RING_SQ, handle) ? -errno : 0;
}

/*
 * The one-word doorbell takes only a QP handle of the caller's context:
 * anything else (another kind of object, a handle of another context, a
 * destroyed QP, bits above 32) is EINVAL; a QP without a send queue
 * ignores it; a removed device is ENODEV.
 */
TEST_F(qp, ring_sq_handles)
{
	struct ibv_qp_init_attr init;
	struct ibv_context *other;
	struct ibv_qp *qp, *rq_only;
	int fd = self->ctx->cmd_fd;
	__u32 handle;

	qp = create_qp(self->pd, self->cq, IBV_QPT_RC, 4, 4, &init);
	ASSERT_NE(NULL, qp);
	rq_only = create_qp(self->pd, self->cq, IBV_QPT_RC, 0, 4, &init);
	ASSERT_NE(NULL, rq_only);
	EXPECT_EQ(0, _ring_sq(fd, qp->handle));
	EXPECT_EQ(0, _ring_sq(fd, rq_only->handle));
	EXPECT_EQ(-EINVAL, _ring_sq(fd, self->pd->handle));
	EXPECT_EQ(-EINVAL, _ring_sq(fd, self->cq->handle));
	EXPECT_EQ(-EINVAL, _ring_sq(fd, qp->handle | 1UL << 32));
	EXPECT_EQ(-EINVAL, _ring_sq(fd, ~0UL));
	other = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, other);
	EXPECT_EQ(-EINVAL, _ring_sq(other->cmd_fd, qp->handle));
	EXPECT_EQ(0, ibv_close_device(other));
	handle = qp->handle;
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(-EINVAL, _ring_sq(fd, handle));
	do_link_del(self->g, DEV);
	EXPECT_EQ(-ENODEV, _ring_sq(fd, rq_only->handle));
	EXPECT_EQ(0, ibv_destroy_qp(rq_only));
	EXPECT_EQ(0, ibv_destroy_cq(self->cq));
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
}

/* A raw UD QP in RTS with its send ring mapped; the ring in *@sq. */
static int ud_qp_rts(int fd, __u32 pd, __u32 cq, struct rnic_create_qp *cmd,
		     char **sq)
{
	struct rnic_qp_cap cap = { .max_send_wr = 4, .max_send_sge = 1 };
	struct rnic_modify_qp mod = { .size = sizeof(mod) };
	static const struct { __u32 state, mask; } steps[] = {
		{ RNIC_QPS_INIT, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX |
				 RNIC_QP_PORT | RNIC_QP_QKEY },
		{ RNIC_QPS_RTR, RNIC_QP_STATE },
		{ RNIC_QPS_RTS, RNIC_QP_STATE | RNIC_QP_SQ_PSN },
	};
	unsigned int i;
	int ret;

	ret = _create_qp(fd, pd, cq, RNIC_QPT_UD, &cap, cmd);
	if (ret)
		return ret;
	mod.handle = cmd->out_handle;
	mod.attr.port_num = 1;
	mod.attr.qkey = 0x11;
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		mod.attr.qp_state = steps[i].state;
		mod.attr_mask = steps[i].mask;
		ret = _rnic_ioctl(fd, RNIC_IOCTL_MODIFY_QP, &mod);
		if (ret)
			return ret;
	}
	*sq = mmap(NULL, cmd->out_sq.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, cmd->out_sq.offset);
	return *sq == MAP_FAILED ? -errno : 0;
}

static __u32 raw_qp_state(int fd, __u32 handle)
{
	struct rnic_query_qp q = { .size = sizeof(q), .handle = handle };

	if (_rnic_ioctl(fd, RNIC_IOCTL_QUERY_QP, &q))
		return ~0U;
	return q.out_attr.qp_state;
}

/*
 * The kernel trusts nothing in a ring: a producer index that lies moves
 * the QP to ERR with IBV_EVENT_QP_FATAL, without reading an entry; an
 * entry with a bad opcode completes with IBV_WC_LOC_QP_OP_ERR and moves a
 * UD QP to SQE.
 */
TEST_F(qp, corrupted_send_ring)
{
	struct rnic_kick_sq kick = { .size = sizeof(kick) };
	struct rnic_event_desc desc;
	struct rnic_create_qp cmd;
	struct rnic_send_wqe *wqe;
	int fd = self->ctx->cmd_fd;
	struct ibv_wc wc;
	char *sq;
	int fl;

	fl = fcntl(self->ctx->async_fd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->ctx->async_fd, F_SETFL, fl | O_NONBLOCK));

	/* a producer index 100 entries ahead of a 4-entry ring */
	ASSERT_EQ(0, ud_qp_rts(fd, self->pd->handle, self->cq->handle, &cmd,
			       &sq));
	*(volatile __u32 *)(sq + cmd.out_sq.producer_off) = 100;
	kick.qp_handle = cmd.out_handle;
	ASSERT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_KICK_SQ, &kick));
	EXPECT_EQ(RNIC_QPS_ERR, raw_qp_state(fd, cmd.out_handle));
	ASSERT_EQ(sizeof(desc), read(self->ctx->async_fd, &desc, sizeof(desc)));
	EXPECT_EQ(RNIC_EVENT_QP_FATAL, desc.event_type);
	EXPECT_EQ(cmd.user_handle, desc.element);
	EXPECT_EQ(0, ibv_poll_cq(self->cq, 1, &wc));
	EXPECT_EQ(0, _destroy_qp(fd, cmd.out_handle));
	munmap(sq, cmd.out_sq.size);

	/* an entry with an opcode that does not exist */
	ASSERT_EQ(0, ud_qp_rts(fd, self->pd->handle, self->cq->handle, &cmd,
			       &sq));
	wqe = (struct rnic_send_wqe *)(sq + cmd.out_sq.entries_off);
	memset(wqe, 0, cmd.out_sq.entry_size);
	wqe->wr_id = 77;
	wqe->opcode = 0x55;
	wqe->send_flags = RNIC_SEND_SIGNALED;
	__atomic_store_n((__u32 *)(sq + cmd.out_sq.producer_off), 1,
			 __ATOMIC_RELEASE);
	/* the one-word doorbell librnic rings: the same checks */
	ASSERT_EQ(0, _ring_sq(fd, cmd.out_handle));
	ASSERT_EQ(1, ibv_poll_cq(self->cq, 1, &wc));
	EXPECT_EQ(77, wc.wr_id);
	EXPECT_EQ(IBV_WC_LOC_QP_OP_ERR, wc.status);
	EXPECT_EQ(RNIC_QPS_SQE, raw_qp_state(fd, cmd.out_handle));
	EXPECT_EQ(1, *(volatile __u32 *)(sq + cmd.out_sq.consumer_off));
	EXPECT_EQ(0, _destroy_qp(fd, cmd.out_handle));
	munmap(sq, cmd.out_sq.size);
}

/* A raw RC QP of @cap on @pd and @cq, its send ring mapped into *@sq. */
static int rc_qp_raw(int fd, __u32 pd, __u32 cq, const struct rnic_qp_cap *cap,
		     struct rnic_create_qp *cmd, char **sq)
{
	int ret;

	ret = _create_qp(fd, pd, cq, RNIC_QPT_RC, cap, cmd);
	if (ret)
		return ret;
	*sq = mmap(NULL, cmd->out_sq.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, cmd->out_sq.offset);
	return *sq == MAP_FAILED ? -errno : 0;
}

/* RESET -> RTS towards QP number @dqpn at @gid, transport @timeout code. */
static int rc_connect_raw(int fd, __u32 handle, __u32 dqpn,
			  const union ibv_gid *gid, __u32 timeout)
{
	struct rnic_modify_qp mod = { .size = sizeof(mod), .handle = handle };
	static const struct { __u32 state, mask; } steps[] = {
		{ RNIC_QPS_INIT, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX |
				 RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS },
		{ RNIC_QPS_RTR, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
				RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN |
				RNIC_QP_MAX_DEST_RD_ATOMIC |
				RNIC_QP_MIN_RNR_TIMER },
		{ RNIC_QPS_RTS, RNIC_QP_STATE | RNIC_QP_SQ_PSN |
				RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT |
				RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC },
	};
	unsigned int i;
	int ret;

	mod.attr.port_num = 1;
	mod.attr.qp_access_flags = RNIC_ACCESS_LOCAL_WRITE |
				   RNIC_ACCESS_REMOTE_WRITE;
	memcpy(mod.attr.ah_attr.dgid, gid->raw, 16);
	mod.attr.ah_attr.is_global = 1;
	mod.attr.ah_attr.hop_limit = 64;
	mod.attr.ah_attr.port_num = 1;
	mod.attr.path_mtu = IBV_MTU_1024;
	mod.attr.dest_qp_num = dqpn;
	mod.attr.max_dest_rd_atomic = 1;
	mod.attr.min_rnr_timer = 1;
	mod.attr.timeout = timeout;
	mod.attr.retry_cnt = 7;
	mod.attr.rnr_retry = 7;
	mod.attr.max_rd_atomic = 1;
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		mod.attr.qp_state = steps[i].state;
		mod.attr_mask = steps[i].mask;
		ret = _rnic_ioctl(fd, RNIC_IOCTL_MODIFY_QP, &mod);
		if (ret)
			return ret;
	}
	return 0;
}

/* Write an RDMA WRITE of 8 inline bytes @fill to @raddr into SQ slot @i. */
static void sq_put_write(char *sq, const struct rnic_create_qp *cmd, __u32 i,
			 __u64 wr_id, __u64 raddr, __u32 rkey, char fill)
{
	struct rnic_send_wqe *wqe = (void *)(sq + cmd->out_sq.entries_off +
					      (size_t)(i & (cmd->out_sq.entries - 1)) *
					      cmd->out_sq.entry_size);

	memset(wqe, 0, cmd->out_sq.entry_size);
	wqe->wr_id = wr_id;
	wqe->opcode = RNIC_WR_RDMA_WRITE;
	wqe->send_flags = RNIC_SEND_INLINE;
	wqe->inline_len = 8;
	wqe->wr.rdma.remote_addr = raddr;
	wqe->wr.rdma.rkey = rkey;
	memset(wqe + 1, fill, 8);
}

static void sq_publish(char *sq, const struct rnic_create_qp *cmd, __u32 prod)
{
	__atomic_store_n((__u32 *)(sq + cmd->out_sq.producer_off), prod,
			 __ATOMIC_RELEASE);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* The next raw asynchronous event within 2 s; its type, or ~0U. */
static __u32 raw_async_event(int async_fd, __u64 *element)
{
	struct pollfd p = { .fd = async_fd, .events = POLLIN };
	struct rnic_event_desc desc;

	if (poll(&p, 1, 2000) != 1 ||
	    read(async_fd, &desc, sizeof(desc)) != sizeof(desc))
		return ~0U;
	*element = desc.element;
	return desc.event_type;
}

/*
 * The SQ producer index moved back behind what the kernel fetched, on an
 * RC QP whose packets are lost (its peer does not exist) and that has no
 * transport timer: the kernel must not fetch on from there, round and
 * round the ring. The doorbell returns at once with the QP in ERR,
 * IBV_EVENT_QP_FATAL, the WQEs it had fetched flushed.
 */
TEST_F(qp, sq_producer_moved_back_peer_gone)
{
	struct rnic_qp_cap cap = { .max_send_wr = 4, .max_send_sge = 1,
				   .max_inline_data = 8 };
	int fd = self->ctx->cmd_fd;
	struct rnic_create_qp cmd;
	struct ibv_wc wc[8];
	__u64 element;
	long t0;
	char *sq;
	int i;

	ASSERT_EQ(0, rc_qp_raw(fd, self->pd->handle, self->cq->handle, &cap,
			       &cmd, &sq));
	ASSERT_EQ(4, cmd.out_sq.entries);
	ASSERT_EQ(0, rc_connect_raw(fd, cmd.out_handle,
				    (cmd.out_qp_num + 0x1000) & 0xffffff,
				    &self->gid, 0));
	for (i = 0; i < 4; i++)
		sq_put_write(sq, &cmd, i, i + 1, 0, 0, 'a' + i);
	sq_publish(sq, &cmd, 4);
	ASSERT_EQ(0, _ring_sq(fd, cmd.out_handle));
	/* all four sent and lost: none done */
	EXPECT_EQ(0, *(volatile __u32 *)(sq + cmd.out_sq.consumer_off));
	EXPECT_EQ(RNIC_QPS_RTS, raw_qp_state(fd, cmd.out_handle));

	sq_publish(sq, &cmd, 2);
	t0 = now_ms();
	ASSERT_EQ(0, _ring_sq(fd, cmd.out_handle));
	EXPECT_GT(1000, now_ms() - t0);
	EXPECT_EQ(RNIC_QPS_ERR, raw_qp_state(fd, cmd.out_handle));
	EXPECT_EQ(RNIC_EVENT_QP_FATAL,
		  raw_async_event(self->ctx->async_fd, &element));
	EXPECT_EQ(cmd.user_handle, element);
	/* the four fetched ones, flushed in order; nothing else */
	for (i = 0; i < 4; i++) {
		long end = now_ms() + 2000;
		int n;

		while (!(n = ibv_poll_cq(self->cq, 1, &wc[i])) &&
		       now_ms() < end)
			usleep(1000);
		ASSERT_EQ(1, n) TH_LOG("completion %d missing", i);
		EXPECT_EQ(i + 1, wc[i].wr_id);
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status);
	}
	usleep(100000);
	EXPECT_EQ(0, ibv_poll_cq(self->cq, 8, wc));
	EXPECT_EQ(0, _destroy_qp(fd, cmd.out_handle));
	munmap(sq, cmd.out_sq.size);
}

/*
 * The same with a live peer: three unsignaled WRITEs went out (nothing
 * asked for an ACK, no timer: none is done), then the producer index
 * moves back to 1. A stale entry behind the old producer index must never
 * be executed: it is not a work request any more.
 */
TEST_F(qp, sq_producer_moved_back_live_peer)
{
	struct rnic_qp_cap cap = { .max_send_wr = 16, .max_send_sge = 1,
				   .max_recv_wr = 1, .max_recv_sge = 1,
				   .max_inline_data = 8 };
	int fd = self->ctx->cmd_fd;
	struct rnic_create_qp a, b;
	char *sqa, *sqb, *buf;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	__u64 element;
	int i;

	buf = calloc(1, 4096);
	ASSERT_NE(NULL, buf);
	mr = ibv_reg_mr(self->pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, mr);
	ASSERT_EQ(0, rc_qp_raw(fd, self->pd->handle, self->cq->handle, &cap,
			       &a, &sqa));
	ASSERT_EQ(0, rc_qp_raw(fd, self->pd->handle, self->cq->handle, &cap,
			       &b, &sqb));
	ASSERT_EQ(0, rc_connect_raw(fd, a.out_handle, b.out_qp_num,
				    &self->gid, 0));
	ASSERT_EQ(0, rc_connect_raw(fd, b.out_handle, a.out_qp_num,
				    &self->gid, 0));
	for (i = 0; i < 3; i++)
		sq_put_write(sqa, &a, i, i + 1, (uintptr_t)buf + 8 * i,
			     mr->rkey, '0' + i);
	/* behind the producer: a stale entry, never posted */
	sq_put_write(sqa, &a, 3, 99, (uintptr_t)buf + 64, mr->rkey, 'S');
	sq_publish(sqa, &a, 3);
	ASSERT_EQ(0, _ring_sq(fd, a.out_handle));
	ASSERT_EQ(0, memcmp(buf, "000000001111111122222222", 24));
	ASSERT_EQ(0, *(volatile __u32 *)(sqa + a.out_sq.consumer_off));

	sq_publish(sqa, &a, 1);
	ASSERT_EQ(0, _ring_sq(fd, a.out_handle));
	EXPECT_EQ(RNIC_QPS_ERR, raw_qp_state(fd, a.out_handle));
	EXPECT_EQ(RNIC_EVENT_QP_FATAL,
		  raw_async_event(self->ctx->async_fd, &element));
	EXPECT_EQ(a.user_handle, element);
	for (i = 64; i < 72; i++)
		EXPECT_EQ(0, buf[i]) TH_LOG("the stale entry was executed");
	for (i = 0; i < 3; i++) {
		long end = now_ms() + 2000;
		int n;

		while (!(n = ibv_poll_cq(self->cq, 1, &wc)) && now_ms() < end)
			usleep(1000);
		ASSERT_EQ(1, n);
		EXPECT_EQ(i + 1, wc.wr_id);
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc.status);
	}
	EXPECT_EQ(RNIC_QPS_RTS, raw_qp_state(fd, b.out_handle));
	EXPECT_EQ(0, _destroy_qp(fd, a.out_handle));
	EXPECT_EQ(0, _destroy_qp(fd, b.out_handle));
	munmap(sqa, a.out_sq.size);
	munmap(sqb, b.out_sq.size);
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	free(buf);
}

/* Every QP ioctl: flags, reserved fields, too short, a non-zero tail. */
TEST_F(qp, cmd_length)
{
	struct rnic_qp_cap cap = { .max_send_wr = 1 };
	int fd = self->ctx->cmd_fd;
	struct {
		struct rnic_create_qp cmd;
		__u64 tail;
	} big;
	struct rnic_destroy_qp d = { .size = sizeof(d) };
	struct rnic_modify_qp mod;
	struct rnic_query_qp q;
	struct rnic_create_qp cmd;
	__u32 handle;

	ASSERT_EQ(0, _create_qp(fd, self->pd->handle, self->cq->handle,
				RNIC_QPT_UD, &cap, &cmd));
	handle = cmd.out_handle;

	_create_qp(fd, self->pd->handle, self->cq->handle, RNIC_QPT_UD, &cap,
		   &cmd);
	cmd.flags = 1 << 3;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, &cmd));
	cmd.flags = 0;
	cmd.__reserved = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, &cmd));
	cmd.__reserved = 0;
	cmd.cap.__reserved = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, &cmd));
	cmd.cap.__reserved = 0;
	cmd.size = offsetof(struct rnic_create_qp, out_rq);
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, &cmd));

	memset(&big, 0, sizeof(big));
	_create_qp(fd, self->pd->handle, self->cq->handle, RNIC_QPT_UD, &cap,
		   &big.cmd);
	big.cmd.size = sizeof(big);
	big.tail = 1;
	EXPECT_EQ(-E2BIG, _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, &big));
	big.tail = 0;
	EXPECT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, &big));

	memset(&mod, 0, sizeof(mod));
	mod.size = sizeof(mod);
	mod.handle = handle;
	mod.attr_mask = RNIC_QP_STATE;
	mod.flags = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_MODIFY_QP, &mod));
	mod.flags = 0;
	mod.attr.__reserved = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_MODIFY_QP, &mod));
	mod.attr.__reserved = 0;
	mod.size = offsetof(struct rnic_modify_qp, attr);
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_MODIFY_QP, &mod));
	mod.size = sizeof(mod);
	EXPECT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_MODIFY_QP, &mod));

	memset(&q, 0xff, sizeof(q));
	q.size = sizeof(q);
	q.flags = 0;
	q.handle = handle;
	q.__reserved = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_QUERY_QP, &q));
	q.__reserved = 0;
	q.flags = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_QUERY_QP, &q));
	q.flags = 0;
	ASSERT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_QUERY_QP, &q));
	/* Every output byte is written. */
	EXPECT_EQ(0, q.out_attr.qp_state);
	EXPECT_EQ(0, q.out_attr.sq_draining);
	EXPECT_EQ(0, q.out_attr.__reserved);
	EXPECT_EQ(0, q.out_attr.ah_attr.__reserved);
	EXPECT_EQ(0, q.out_cap.__reserved);
	EXPECT_EQ(1, q.out_cap.max_send_wr);

	d.handle = handle;
	d.flags = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_DESTROY_QP, &d));
	d.flags = 0;
	d.__reserved = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_DESTROY_QP, &d));
	d.__reserved = 0;
	d.size = offsetof(struct rnic_destroy_qp, out_async_events_reported);
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_DESTROY_QP, &d));
	d.size = sizeof(d);
	d.out_async_events_reported = 7;
	EXPECT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_DESTROY_QP, &d));
	EXPECT_EQ(0, d.out_async_events_reported);
}

TEST_HARNESS_MAIN
