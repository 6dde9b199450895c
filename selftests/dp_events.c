// SPDX-License-Identifier: GPL-2.0
/*
 * Completions that wake threads, and receives shared by several QPs:
 * threads blocked in ibv_get_cq_event() woken by the CQ they wait for and
 * no other, solicited-only arming (an unsolicited message does not wake,
 * a solicited one or an error does), UD multicast delivered once to each
 * QP attached to the group in two contexts and another process, an SRQ
 * serving several QPs, and IBV_EVENT_SRQ_LIMIT_REACHED.
 */
#include <stdatomic.h>

#include "rnic_dp_test.h"

#define DEV "t_dpev"

/* A thread blocked in ibv_get_cq_event(). */
struct waiter {
	pthread_t thread;
	struct ibv_comp_channel *ch;
	atomic_int woke;	/* 1: returned */
	int ret;
	int err;
	struct ibv_cq *cq;
	void *cq_ctx;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	w->ret = ibv_get_cq_event(w->ch, &w->cq, &w->cq_ctx);
	w->err = errno;
	atomic_store(&w->woke, 1);
	return NULL;
}

static int waiter_start(struct waiter *w, struct ibv_comp_channel *ch)
{
	memset(w, 0, sizeof(*w));
	w->ch = ch;
	return pthread_create(&w->thread, NULL, waiter_main, w);
}

/* Did the waiter return within @ms? Joined if so. */
static bool waiter_done(struct waiter *w, int ms)
{
	long end = dp_now_ms() + ms;

	while (!atomic_load(&w->woke) && dp_now_ms() < end)
		usleep(1000);
	if (!atomic_load(&w->woke))
		return false;
	pthread_join(w->thread, NULL);
	return true;
}

FIXTURE(ev) {
	struct dp_env env;
	struct dp_pair p;
	struct dp_buf lb, rb;
};

FIXTURE_SETUP(ev)
{
	dp_env_open(_metadata, &self->env, DEV, NULL);
	do_buf_alloc(self->env.pd[0], 1 << 16, DP_ACCESS_ALL, &self->lb);
	do_buf_alloc(self->env.pd[1], 1 << 16, DP_ACCESS_ALL, &self->rb);
}

FIXTURE_TEARDOWN(ev)
{
	dp_env_close(_metadata, &self->env);
}

/* Side 0 sends @len bytes of @seed with @op and @flags to @qp's peer. */
static int send_msg(FIXTURE_DATA(ev) *self, struct ibv_qp *qp,
		    enum ibv_wr_opcode op, unsigned int flags, size_t len,
		    uint32_t seed, uint64_t wr_id)
{
	struct dp_sgl s;
	struct dp_wr w = { .op = op, .flags = flags | IBV_SEND_SIGNALED,
			   .wr_id = wr_id, .sgl = &s, .imm = seed,
			   .raddr = (uintptr_t)self->rb.mem + 32768,
			   .rkey = self->rb.mr->rkey };

	dp_sgl_one(&self->lb, 0, len, &s);
	dp_sgl_fill(&s, seed, 0);
	return dp_post(qp, &w);
}

/*
 * Two QPs receiving into two CQs on two channels, a thread blocked on
 * each: a message to one wakes its thread only.
 */
TEST_F(ev, channel_wakes_the_right_blocked_thread)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_comp_channel *ch[2];
	struct ibv_cq *cq[2], *rcq_saved = self->env.rcq[1];
	struct dp_pair p[2];
	struct waiter w[2];
	struct ibv_wc wc;
	struct dp_sgl rs;
	int tag[2], i, j;

	for (i = 0; i < 2; i++) {
		ch[i] = ibv_create_comp_channel(self->env.ctx[1]);
		ASSERT_NE(NULL, ch[i]);
		cq[i] = ibv_create_cq(self->env.ctx[1], 16, &tag[i], ch[i], 0);
		ASSERT_NE(NULL, cq[i]);
		self->env.rcq[1] = cq[i];
		dp_pair_open(_metadata, &self->env, &o, &p[i]);
	}
	self->env.rcq[1] = rcq_saved;
	for (j = 0; j < 3; j++) {
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, ibv_req_notify_cq(cq[i], 0));
			ASSERT_EQ(0, waiter_start(&w[i], ch[i]));
		}
		usleep(DP_QUIET_MS * 1000);
		for (i = 0; i < 2; i++) {
			int k = (i + j) % 2;	/* alternate who goes first */

			ASSERT_FALSE(atomic_load(&w[k].woke))
				TH_LOG("thread %d woke up before its message",
				       k);
			dp_sgl_one(&self->rb, 1024 * k, 1000, &rs);
			ASSERT_EQ(0, dp_post_recv(p[k].qp[1], &rs, 10 + k));
			ASSERT_EQ(0, send_msg(self, p[k].qp[0], IBV_WR_SEND,
					      0, 1000, dp_seed(j, k, 0), k));
			ASSERT_TRUE(waiter_done(&w[k], DP_TIMEOUT_MS))
				TH_LOG("round %d: thread %d not woken", j, k);
			EXPECT_EQ(0, w[k].ret) TH_LOG("%s", strerror(w[k].err));
			EXPECT_EQ(cq[k], w[k].cq);
			EXPECT_EQ(&tag[k], w[k].cq_ctx);
			/* the other one sleeps on */
			if (i == 0) {
				usleep(DP_QUIET_MS * 1000);
				EXPECT_FALSE(atomic_load(&w[!k].woke));
			}
			ibv_ack_cq_events(cq[k], 1);
			ASSERT_POLL1(cq[k], &wc);
			ASSERT_WC(&wc, 10 + k, IBV_WC_SUCCESS, IBV_WC_RECV);
			EXPECT_EQ(-1, dp_check(self->rb.mem + 1024 * k, 1000,
					       dp_seed(j, k, 0), 0));
			ASSERT_POLL1(self->env.scq[0], &wc);
		}
	}
	/* Not armed: a completion queues no event. */
	dp_sgl_one(&self->rb, 0, 1000, &rs);
	ASSERT_EQ(0, dp_post_recv(p[0].qp[1], &rs, 20));
	ASSERT_EQ(0, send_msg(self, p[0].qp[0], IBV_WR_SEND, 0, 10, 1, 20));
	ASSERT_POLL1(cq[0], &wc);
	{
		struct pollfd pfd = { .fd = ch[0]->fd, .events = POLLIN };

		EXPECT_EQ(0, poll(&pfd, 1, DP_QUIET_MS));
	}
	for (i = 0; i < 2; i++) {
		dp_pair_close(_metadata, &p[i]);
		EXPECT_EQ(0, ibv_destroy_cq(cq[i]));
		EXPECT_EQ(0, ibv_destroy_comp_channel(ch[i]));
	}
}

/*
 * Armed for solicited completions only: SEND, SEND_WITH_IMM and
 * RDMA_WRITE_WITH_IMM without IBV_SEND_SOLICITED complete without waking
 * the thread; with it they wake it; so does an unsuccessful completion.
 */
TEST_F(ev, solicited_only)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM,
	};
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct waiter w;
	struct ibv_wc wc;
	struct dp_sgl rs;
	int i;

	ch = ibv_create_comp_channel(self->env.ctx[1]);
	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->env.ctx[1], 64, NULL, ch, 0);
	ASSERT_NE(NULL, cq);
	self->env.rcq[1] = cq;
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, ibv_req_notify_cq(cq, 1));
		ASSERT_EQ(0, waiter_start(&w, ch));
		dp_sgl_one(&self->rb, 0, 500, &rs);
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 1));
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 2));
		/* unsolicited: completes, wakes nobody */
		ASSERT_EQ(0, send_msg(self, self->p.qp[0], ops[i], 0, 500,
				      dp_seed(i, 1, 0), 1));
		ASSERT_POLL1(cq, &wc);
		ASSERT_WC(&wc, 1, IBV_WC_SUCCESS, i < 2 ? IBV_WC_RECV :
			  IBV_WC_RECV_RDMA_WITH_IMM);
		EXPECT_FALSE(waiter_done(&w, DP_QUIET_MS))
			TH_LOG("op %d: an unsolicited message woke the thread",
			       ops[i]);
		/* solicited: wakes */
		ASSERT_EQ(0, send_msg(self, self->p.qp[0], ops[i],
				      IBV_SEND_SOLICITED, 500,
				      dp_seed(i, 2, 0), 2));
		ASSERT_TRUE(waiter_done(&w, DP_TIMEOUT_MS))
			TH_LOG("op %d: a solicited message did not wake the "
			       "thread", ops[i]);
		EXPECT_EQ(0, w.ret);
		EXPECT_EQ(cq, w.cq);
		ibv_ack_cq_events(cq, 1);
		ASSERT_POLL1(cq, &wc);
		ASSERT_WC(&wc, 2, IBV_WC_SUCCESS, i < 2 ? IBV_WC_RECV :
			  IBV_WC_RECV_RDMA_WITH_IMM);
		if (ops[i] != IBV_WR_SEND)
			EXPECT_EQ(htonl(dp_seed(i, 2, 0)), wc.imm_data);
		EXPECT_EQ(-1, dp_check(self->rb.mem + (i < 2 ? 0 : 32768), 500,
				       dp_seed(i, 2, 0), 0));
		ASSERT_EQ(2, dp_poll(self->env.scq[0], 2, &wc, DP_TIMEOUT_MS));
	}
	/* an error (a flushed receive) is worth an event too */
	ASSERT_EQ(0, ibv_req_notify_cq(cq, 1));
	ASSERT_EQ(0, waiter_start(&w, ch));
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], NULL, 3));
	usleep(DP_QUIET_MS * 1000);
	ASSERT_FALSE(atomic_load(&w.woke));
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[1], IBV_QPS_ERR));
	ASSERT_TRUE(waiter_done(&w, DP_TIMEOUT_MS))
		TH_LOG("a flush did not wake the thread");
	ibv_ack_cq_events(cq, 1);
	ASSERT_POLL1(cq, &wc);
	ASSERT_WC(&wc, 3, IBV_WC_WR_FLUSH_ERR, 0);
	dp_pair_close(_metadata, &self->p);
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

/* ---- multicast ---------------------------------------------------------- */

static const union ibv_gid mcast_gid = {
	.raw = { 0xff, 0x0e, [12] = 0xde, 0xad, 0xbe, 0xef }
};

/* A UD QP of @pd in RTS on @cq with one receive of 40 + @len posted. */
static struct ibv_qp *mc_member(struct ibv_pd *pd, struct ibv_cq *cq,
				struct dp_buf *b, size_t len)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	union ibv_gid any = { .raw = { 0 } };
	struct ibv_qp *qp;
	struct dp_sgl s;

	qp = dp_qp_create(pd, cq, cq, &o);
	if (!qp || dp_qp_init(qp, &o) || dp_qp_rtr(qp, &o, 0, &any, 0, 0) ||
	    dp_qp_rts(qp, &o, 0))
		return NULL;
	dp_buf_guard(b);
	dp_sgl_one(b, 0, len + DP_GRH, &s);
	if (dp_post_recv(qp, &s, qp->qp_num))
		return NULL;
	return qp;
}

/* One multicast message as a member sees it: 0 if all is right. */
static int mc_check(struct ibv_cq *cq, struct ibv_qp *qp, struct dp_buf *b,
		    size_t len, uint32_t seed, uint32_t src_qp)
{
	struct ibv_grh *grh = (struct ibv_grh *)b->mem;
	struct ibv_wc wc;

	if (dp_poll(cq, 1, &wc, DP_TIMEOUT_MS) != 1)
		return 1;
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
	    wc.wr_id != qp->qp_num || wc.qp_num != qp->qp_num)
		return 2;
	if (wc.byte_len != len + DP_GRH || !(wc.wc_flags & IBV_WC_GRH) ||
	    wc.src_qp != src_qp || !(wc.wc_flags & IBV_WC_WITH_IMM) ||
	    wc.imm_data != htonl(seed))
		return 3;
	if (dp_check(b->mem + DP_GRH, len, seed, 0) >= 0)
		return 4;
	if (dp_check(b->mem + DP_GRH + len, b->size - DP_GRH - len,
		     dp_guard_seed(b), DP_GRH + len) >= 0)
		return 5;
	/* sent to the group: the GRH names it as destination */
	if (memcmp(&grh->dgid, &mcast_gid, 16))
		return 6;
	/* exactly one copy */
	if (dp_poll(cq, 1, &wc, DP_QUIET_MS))
		return 7;
	return 0;
}

/*
 * Three UD QPs attached to a group: one in the sender's context, one in
 * another context, one in another process. One SEND to the group's GID
 * reaches each exactly once; a UD QP not attached gets nothing. After a
 * detach, the detached QP gets nothing more.
 */
TEST_F_TIMEOUT(ev, ud_multicast, 60)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	const size_t len = 1000;
	struct dp_buf b[3], sb;
	struct ibv_qp *m[3], *sender;
	struct ibv_cq *cq[3];
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct dp_sgl s;
	int sv[2], status, round, i;
	uint32_t child_qpn;
	pid_t pid;
	char c;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* the third member, in a process of its own */
		struct ibv_context *ctx = rnic_ibv_open(DEV);
		struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
		struct ibv_cq *ccq = pd ? ibv_create_cq(ctx, 8, NULL, NULL, 0)
					: NULL;
		struct dp_buf cb;
		struct ibv_qp *qp;
		uint32_t qpn, src;
		int ret = 0;

		close(sv[0]);
		if (!ccq || dp_buf_alloc(pd, 4096, DP_ACCESS_ALL, &cb))
			_exit(30);
		qp = mc_member(pd, ccq, &cb, len);
		if (!qp || ibv_attach_mcast(qp, &mcast_gid, 0))
			_exit(31);
		qpn = qp->qp_num;
		if (write(sv[1], &qpn, 4) != 4 || read(sv[1], &src, 4) != 4)
			_exit(32);
		ret = mc_check(ccq, qp, &cb, len, dp_seed(0xc, 0, 0), src);
		if (ret)
			_exit(40 + ret);
		if (ibv_detach_mcast(qp, &mcast_gid, 0) ||
		    ibv_destroy_qp(qp) || dp_buf_free(&cb) ||
		    ibv_destroy_cq(ccq) || ibv_dealloc_pd(pd) ||
		    ibv_close_device(ctx))
			_exit(33);
		_exit(write(sv[1], "x", 1) == 1 ? 0 : 34);
	}
	close(sv[1]);

	/* member 0 in the sender's context, member 1 in the other */
	for (i = 0; i < 2; i++) {
		int side = i;

		cq[i] = ibv_create_cq(self->env.ctx[side], 8, NULL, NULL, 0);
		ASSERT_NE(NULL, cq[i]);
		do_buf_alloc(self->env.pd[side], 4096, DP_ACCESS_ALL, &b[i]);
		m[i] = mc_member(self->env.pd[side], cq[i], &b[i], len);
		ASSERT_NE(NULL, m[i]);
		ASSERT_EQ(0, ibv_attach_mcast(m[i], &mcast_gid, 0));
	}
	/* a UD QP not in the group */
	cq[2] = ibv_create_cq(self->env.ctx[1], 8, NULL, NULL, 0);
	ASSERT_NE(NULL, cq[2]);
	do_buf_alloc(self->env.pd[1], 4096, DP_ACCESS_ALL, &b[2]);
	m[2] = mc_member(self->env.pd[1], cq[2], &b[2], len);
	ASSERT_NE(NULL, m[2]);

	sender = dp_qp_create(self->env.pd[0], self->env.scq[0],
			      self->env.rcq[0], &o);
	ASSERT_NE(NULL, sender);
	ASSERT_EQ(0, dp_qp_init(sender, &o));
	ASSERT_EQ(0, dp_qp_rtr(sender, &o, 0, &self->env.gid, 0, 0));
	ASSERT_EQ(0, dp_qp_rts(sender, &o, 0));
	ah = dp_ah(self->env.pd[0], &mcast_gid, self->env.gid_index);
	ASSERT_NE(NULL, ah) TH_LOG("multicast AH: %s", strerror(errno));
	do_buf_alloc(self->env.pd[0], 4096, DP_ACCESS_ALL, &sb);
	ASSERT_EQ(4, read(sv[0], &child_qpn, 4));
	ASSERT_EQ(4, write(sv[0], &sender->qp_num, 4));

	for (round = 0; round < 2; round++) {
		uint32_t seed = dp_seed(0xc, round, 0);
		struct dp_wr w = { .op = IBV_WR_SEND_WITH_IMM,
				   .flags = IBV_SEND_SIGNALED, .wr_id = round,
				   .sgl = &s, .imm = seed, .ah = ah,
				   .rqpn = 0xffffff, .qkey = DP_QKEY };

		dp_sgl_one(&sb, 0, len, &s);
		dp_sgl_fill(&s, seed, 0);
		ASSERT_EQ(0, dp_post(sender, &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, round, IBV_WC_SUCCESS, IBV_WC_SEND);
		EXPECT_EQ(0, mc_check(cq[0], m[0], &b[0], len, seed,
				      sender->qp_num))
			TH_LOG("round %d, member in the sender's context",
			       round);
		if (round == 0) {
			EXPECT_EQ(0, mc_check(cq[1], m[1], &b[1], len, seed,
					      sender->qp_num))
				TH_LOG("member in another context");
		} else {
			ASSERT_QUIET(cq[1]);	/* detached */
		}
		ASSERT_QUIET(cq[2]);		/* never attached */
		if (round)
			break;
		/* the child checked its copy */
		ASSERT_EQ(1, read(sv[0], &c, 1));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status))
			TH_LOG("the child failed at step %d",
			       WEXITSTATUS(status));
		/* member 1 leaves; both post a new receive */
		ASSERT_EQ(0, ibv_detach_mcast(m[1], &mcast_gid, 0));
		for (i = 0; i < 2; i++) {
			dp_buf_guard(&b[i]);
			dp_sgl_one(&b[i], 0, len + DP_GRH, &s);
			ASSERT_EQ(0, dp_post_recv(m[i], &s, m[i]->qp_num));
		}
	}
	EXPECT_EQ(0, ibv_detach_mcast(m[0], &mcast_gid, 0));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, ibv_destroy_qp(m[i]));
		EXPECT_EQ(0, ibv_destroy_cq(cq[i]));
		EXPECT_EQ(0, dp_buf_free(&b[i]));
	}
	EXPECT_EQ(0, ibv_destroy_qp(sender));
	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(0, dp_buf_free(&sb));
	close(sv[0]);
}

/* ---- SRQ ----------------------------------------------------------------- */

/*
 * Three RC QPs receive from one SRQ: every message lands once, in a
 * receive nobody else got, with the QP number of the QP it came over;
 * per QP in the order sent.
 */
TEST_F(ev, srq_shared_by_several_qps)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 64,
						     .max_sge = 2 } };
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC), o1;
	enum { NQP = 3, NMSG = 8, SLOT = 2048 };
	struct dp_pair p[NQP];
	struct ibv_srq *srq;
	struct ibv_wc wc[NQP * NMSG];
	bool seen_wr[NQP * NMSG] = { false }, seen_msg[NQP][NMSG];
	int last[NQP], i, k, n;

	memset(seen_msg, 0, sizeof(seen_msg));
	srq = ibv_create_srq(self->env.pd[1], &sattr);
	ASSERT_NE(NULL, srq);
	o1 = o;
	o1.srq = srq;
	for (i = 0; i < NQP; i++)
		dp_pair_open2(_metadata, &self->env, &o, &o1, &p[i]);
	for (n = 0; n < NQP * NMSG; n++) {
		struct dp_sgl s;

		dp_sgl_make(&self->rb, n * SLOT, 1500, 2, n, &s);
		ASSERT_EQ(0, dp_post_srq_recv(srq, &s, n));
	}
	dp_buf_guard(&self->rb);
	/* interleave the senders */
	for (k = 0; k < NMSG; k++)
		for (i = 0; i < NQP; i++) {
			struct dp_sgl s;
			struct dp_wr w = { .op = k % 2 ? IBV_WR_SEND_WITH_IMM :
						       IBV_WR_SEND,
					   .flags = IBV_SEND_SIGNALED,
					   .wr_id = k, .sgl = &s,
					   .imm = i * 100 + k };
			uint32_t hdr[2] = { i, k };

			dp_sgl_one(&self->lb, (i * NMSG + k) * SLOT, 1500, &s);
			dp_fill(self->lb.mem + (i * NMSG + k) * SLOT, 1500,
				dp_seed(i, k, 5), 0);
			memcpy(self->lb.mem + (i * NMSG + k) * SLOT, hdr, 8);
			ASSERT_EQ(0, dp_post(p[i].qp[0], &w));
		}
	ASSERT_EQ(NQP * NMSG, dp_poll(self->env.scq[0], NQP * NMSG, wc,
				      DP_TIMEOUT_MS));
	for (n = 0; n < NQP * NMSG; n++)
		ASSERT_EQ(IBV_WC_SUCCESS, wc[n].status);
	ASSERT_EQ(NQP * NMSG, dp_poll(self->env.rcq[1], NQP * NMSG, wc,
				      DP_TIMEOUT_MS));
	for (i = 0; i < NQP; i++)
		last[i] = -1;
	for (n = 0; n < NQP * NMSG; n++) {
		uint8_t msg[1500];
		struct dp_sgl s;
		uint32_t hdr[2];
		int wr = wc[n].wr_id;

		ASSERT_EQ(IBV_WC_SUCCESS, wc[n].status);
		ASSERT_LE(0, wr);
		ASSERT_GT(NQP * NMSG, wr);
		ASSERT_FALSE(seen_wr[wr]) TH_LOG("receive %d twice", wr);
		seen_wr[wr] = true;
		EXPECT_EQ(1500, wc[n].byte_len);
		dp_sgl_make(&self->rb, wr * SLOT, 1500, 2, wr, &s);
		dp_sgl_gather(&s, 0, 1500, msg);
		memcpy(hdr, msg, 8);
		ASSERT_GT(NQP, (int)hdr[0]);
		ASSERT_GT(NMSG, (int)hdr[1]);
		i = hdr[0];
		k = hdr[1];
		ASSERT_FALSE(seen_msg[i][k]);
		seen_msg[i][k] = true;
		EXPECT_EQ(p[i].qp[1]->qp_num, wc[n].qp_num)
			TH_LOG("message %d/%d", i, k);
		EXPECT_LT(last[i], k) TH_LOG("QP %d out of order", i);
		last[i] = k;
		if (k % 2) {
			EXPECT_EQ(IBV_WC_WITH_IMM,
				  wc[n].wc_flags & IBV_WC_WITH_IMM);
			EXPECT_EQ(htonl(i * 100 + k), wc[n].imm_data);
		}
		EXPECT_EQ(-1, dp_check(msg + 8, 1492, dp_seed(i, k, 5), 8));
	}
	for (i = 0; i < NQP; i++)
		dp_pair_close(_metadata, &p[i]);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

/*
 * The SRQ limit: armed at 8 with 16 posted, no event while 8 or more are
 * left, one event when a receive leaves 7, the limit then reads 0 and no
 * second event comes. Armed again, and armed at creation, it fires again.
 */
TEST_F(ev, srq_limit_reached)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 16,
						     .max_sge = 1,
						     .srq_limit = 0 } };
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC), o1;
	struct ibv_srq_attr sa = { .srq_limit = 8 };
	struct ibv_async_event ev;
	struct ibv_srq *srq;
	struct ibv_wc wc;
	int i, sent = 0;

	srq = ibv_create_srq(self->env.pd[1], &sattr);
	ASSERT_NE(NULL, srq);
	ASSERT_EQ(16, sattr.attr.max_wr);
	o1 = o;
	o1.srq = srq;
	dp_pair_open2(_metadata, &self->env, &o, &o1, &self->p);
	for (i = 0; i < 16; i++)
		ASSERT_EQ(0, dp_post_srq_recv(srq, NULL, i));
	ASSERT_EQ(0, ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT));
	for (; sent < 8; sent++) {
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = sent };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.rcq[1], &wc);
		ASSERT_WC(&wc, sent, IBV_WC_SUCCESS, IBV_WC_RECV);
	}
	EXPECT_EQ(-ETIMEDOUT, dp_wait_async(self->env.ctx[1],
					    IBV_EVENT_SRQ_LIMIT_REACHED,
					    DP_QUIET_MS, &ev))
		TH_LOG("event with 8 receives left, limit 8");
	ASSERT_EQ(0, ibv_query_srq(srq, &sa));
	EXPECT_EQ(8, sa.srq_limit);
	{
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = sent++ };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.rcq[1], &wc);
	}
	ASSERT_EQ(0, dp_wait_async(self->env.ctx[1],
				   IBV_EVENT_SRQ_LIMIT_REACHED, 2000, &ev));
	EXPECT_EQ(srq, ev.element.srq);
	ASSERT_EQ(0, ibv_query_srq(srq, &sa));
	EXPECT_EQ(0, sa.srq_limit);
	/* disarmed: no second event */
	for (i = 0; i < 3; i++, sent++) {
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = sent };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.rcq[1], &wc);
	}
	EXPECT_EQ(-ETIMEDOUT, dp_wait_async(self->env.ctx[1],
					    IBV_EVENT_SRQ_LIMIT_REACHED,
					    DP_QUIET_MS, &ev));
	/* 4 left; refill to 16, arm at 4 again, take 13 */
	for (i = 0; i < 12; i++)
		ASSERT_EQ(0, dp_post_srq_recv(srq, NULL, 100 + i));
	sa.srq_limit = 4;
	ASSERT_EQ(0, ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT));
	for (i = 0; i < 12; i++, sent++) {
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = sent };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.rcq[1], &wc);
	}
	EXPECT_EQ(-ETIMEDOUT, dp_wait_async(self->env.ctx[1],
					    IBV_EVENT_SRQ_LIMIT_REACHED,
					    DP_QUIET_MS, &ev));
	{
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = sent++ };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.rcq[1], &wc);
	}
	ASSERT_EQ(0, dp_wait_async(self->env.ctx[1],
				   IBV_EVENT_SRQ_LIMIT_REACHED, 2000, &ev));
	EXPECT_EQ(srq, ev.element.srq);
	dp_pair_close(_metadata, &self->p);
	EXPECT_EQ(0, ibv_destroy_srq(srq));

	/* armed at creation */
	sattr.attr.max_wr = 4;
	sattr.attr.srq_limit = 2;
	srq = ibv_create_srq(self->env.pd[1], &sattr);
	ASSERT_NE(NULL, srq);
	o1.srq = srq;
	dp_pair_open2(_metadata, &self->env, &o, &o1, &self->p);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, dp_post_srq_recv(srq, NULL, i));
	for (i = 0; i < 3; i++) {
		struct dp_wr w = { .op = IBV_WR_SEND,
				   .flags = IBV_SEND_SIGNALED, .wr_id = i };

		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.rcq[1], &wc);
		if (i == 1)
			EXPECT_EQ(-ETIMEDOUT,
				  dp_wait_async(self->env.ctx[1],
						IBV_EVENT_SRQ_LIMIT_REACHED,
						DP_QUIET_MS, &ev));
	}
	ASSERT_EQ(0, dp_wait_async(self->env.ctx[1],
				   IBV_EVENT_SRQ_LIMIT_REACHED, 2000, &ev));
	EXPECT_EQ(srq, ev.element.srq);
	dp_pair_close(_metadata, &self->p);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

TEST_HARNESS_MAIN
