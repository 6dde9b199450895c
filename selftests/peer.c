// SPDX-License-Identifier: GPL-2.0
/*
 * A connected QP accepts packets only from its peer: the QP and path it
 * was connected to at RTR.
 *
 * The victim (the test) holds an RC pair and a UC pair. A forked attacker
 * that knows only the victim's QP numbers, its GID and an rkey of one of
 * its MRs aims QPs of its own at them: RDMA READs with a bad rkey (two
 * PSNs 2^23 apart, so that one of them is a "duplicate"), SENDs, WRITEs
 * and atomics with the right rkey, each in a sweep of PSNs that covers the
 * victim's expected one. Another attacker relays requests through a QP of
 * its own whose responder answers into a victim QP that waits for
 * answers: a forged ACK, READ response and NAK. A stale peer (the QP a
 * victim QP was connected to before it re-connected) tries the same.
 * Afterwards the victim's QPs are in RTS, its CQs are empty, its buffers
 * unchanged, the device counted every packet it dropped
 * (RNIC_NL_COUNTER_REQ_NOT_PEER), and the real connections still move
 * data. Each with the attacker on the victim's device and on another one.
 */
#include <sys/wait.h>

#include "rnic_dp_test.h"

#define DEV		"t_peer"
#define DEV2		"t_peer2"
/* Receive WQEs posted on every victim QP, and their size. */
#define PEER_RECVS	8
#define PEER_SLOT	256
#define PEER_BUF	16384
/* Bytes of every SEND and WRITE */
#define PEER_MSG	32
/* A message that really goes over a victim connection */
#define PEER_REAL	200

/* The attacker's PSN sweep around the victim's expected PSN. */
static const uint32_t peer_sweep[] = { -2u, -1u, 0, 1, 0x800000 };
#define PEER_NSWEEP	(sizeof(peer_sweep) / sizeof(peer_sweep[0]))

/* Requests the attacker of the "strangers" test sends. */
#define PEER_RC_PKTS	(2 + 3 * PEER_NSWEEP)
#define PEER_UC_PKTS	(2 * PEER_NSWEEP)

/**
 * struct peer_target - a victim QP, as the attacker knows it
 * @qpn: its number
 * @type: RC or UC
 * @epsn: the PSN it expects next
 * @addr: an address in a victim MR that the QP's PD owns
 * @rkey: that MR's rkey
 */
struct peer_target {
	uint32_t qpn;
	enum ibv_qp_type type;
	uint32_t epsn;
	uint64_t addr;
	uint32_t rkey;
};

/* What a forked attacker works with; set up before the fork. */
struct peer_attack {
	const char *dev;
	union ibv_gid dgid;
	struct peer_target t[2];
	int sock;
};

/* The attacker's own resources. */
struct atk {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct dp_buf buf;
	union ibv_gid gid;
};

static int atk_open(struct atk *a, const char *dev)
{
	memset(a, 0, sizeof(*a));
	a->ctx = rnic_ibv_open(dev);
	if (!a->ctx)
		return -1;
	a->pd = ibv_alloc_pd(a->ctx);
	a->cq = ibv_create_cq(a->ctx, DP_CQE, NULL, NULL, 0);
	if (!a->pd || !a->cq ||
	    dp_buf_alloc(a->pd, PEER_BUF, DP_ACCESS_ALL, &a->buf) ||
	    ibv_query_gid(a->ctx, 1, 0, &a->gid))
		return -1;
	dp_fill(a->buf.mem, PEER_BUF, 0xbadbad, 0);
	return 0;
}

/* The attacker's QPs: one try, a short timeout, no RNR retry. */
static struct dp_qp_opts atk_opts(enum ibv_qp_type type)
{
	struct dp_qp_opts o = dp_opts(type);

	o.timeout = 8;
	o.retry_cnt = 0;
	o.rnr_retry = 0;
	return o;
}

/*
 * (Re)connect @qp to @dqpn at @dgid with first PSN @psn, post @w and wait
 * for its completion: it has been sent by then (UC completes at once, RC
 * when its only try times out, or earlier if the victim answered). Its
 * status is not checked: the attacker does not care. 0 or -1.
 */
static int atk_fire(struct atk *a, struct ibv_qp *qp, uint32_t dqpn,
		    const union ibv_gid *dgid, uint32_t psn,
		    const struct dp_wr *w)
{
	struct dp_qp_opts o = atk_opts(qp->qp_type);
	struct ibv_wc wc;

	if (dp_qp_modify_state(qp, IBV_QPS_RESET) ||
	    dp_qp_connect(qp, &o, dqpn, dgid, 0, psn & 0xffffff, 0, false) ||
	    dp_post(qp, w))
		return -1;
	return dp_poll(a->cq, 1, &wc, DP_TIMEOUT_MS) == 1 ? 0 : -1;
}

/*
 * The requests a stranger can send to @t: READs with a bad rkey (RC),
 * SENDs, WRITEs with the right rkey and atomics (RC), in a PSN sweep.
 * 0, or the line that failed.
 */
static int atk_strangers(struct atk *a, const union ibv_gid *dgid,
			 const struct peer_target *t)
{
	struct dp_qp_opts o = atk_opts(t->type);
	struct dp_sgl msg, word;
	struct ibv_qp *qp;
	unsigned int i;

	qp = dp_qp_create(a->pd, a->cq, a->cq, &o);
	if (!qp)
		return __LINE__;
	dp_sgl_one(&a->buf, 0, PEER_MSG, &msg);
	dp_sgl_one(&a->buf, 1024, 8, &word);
	if (t->type == IBV_QPT_RC) {
		struct dp_wr rd = { .op = IBV_WR_RDMA_READ, .sgl = &msg,
				    .flags = IBV_SEND_SIGNALED,
				    .raddr = t->addr,
				    .rkey = t->rkey ^ KEY_RANDOM_BIT };

		/* one of the two is before the expected PSN: a duplicate */
		if (atk_fire(a, qp, t->qpn, dgid, t->epsn + 0x400000, &rd) ||
		    atk_fire(a, qp, t->qpn, dgid, t->epsn + 0xc00000, &rd))
			return __LINE__;
	}
	for (i = 0; i < PEER_NSWEEP; i++) {
		uint32_t psn = t->epsn + peer_sweep[i];
		struct dp_wr send = { .op = IBV_WR_SEND, .sgl = &msg,
				      .flags = IBV_SEND_SIGNALED };
		struct dp_wr wr = { .op = IBV_WR_RDMA_WRITE, .sgl = &msg,
				    .flags = IBV_SEND_SIGNALED,
				    .raddr = t->addr, .rkey = t->rkey };
		struct dp_wr fa = { .op = IBV_WR_ATOMIC_FETCH_AND_ADD,
				    .sgl = &word, .flags = IBV_SEND_SIGNALED,
				    .raddr = t->addr + 64, .rkey = t->rkey,
				    .compare_add = 1 };

		if (atk_fire(a, qp, t->qpn, dgid, psn, &send) ||
		    atk_fire(a, qp, t->qpn, dgid, psn, &wr))
			return __LINE__;
		if (t->type == IBV_QPT_RC &&
		    atk_fire(a, qp, t->qpn, dgid, psn, &fa))
			return __LINE__;
	}
	if (ibv_destroy_qp(qp))
		return __LINE__;
	return 0;
}

static int attacker_strangers(const struct peer_attack *at)
{
	struct atk a;
	int ret, i;

	if (atk_open(&a, at->dev))
		return __LINE__;
	for (i = 0; i < 2; i++) {
		ret = atk_strangers(&a, &at->dgid, &at->t[i]);
		if (ret)
			return ret;
	}
	return ibv_close_device(a.ctx) ? __LINE__ : 0;
}

/*
 * A relay: QP A is aimed at the victim's RC QP @at->t[0] and expects PSN
 * epsn; QP B of the attacker sends to A from that PSN on. Whatever A's
 * responder answers goes to the victim: an ACK of a SEND, a READ
 * response with the attacker's bytes, and a NAK for a WRITE with a bad
 * rkey, with the PSNs of the requests the victim has outstanding.
 */
static int attacker_relay(const struct peer_attack *at)
{
	const struct peer_target *t = &at->t[0];
	struct dp_qp_opts o = atk_opts(IBV_QPT_RC);
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge[3][DP_MAX_SGE];
	struct dp_sgl msg, rd, rcv;
	struct ibv_qp *qa, *qb;
	struct ibv_wc wc[3];
	struct atk a;
	char c;

	if (atk_open(&a, at->dev))
		return __LINE__;
	qa = dp_qp_create(a.pd, a.cq, a.cq, &o);
	qb = dp_qp_create(a.pd, a.cq, a.cq, &o);
	if (!qa || !qb)
		return __LINE__;
	dp_sgl_one(&a.buf, 0, PEER_MSG, &msg);
	dp_sgl_one(&a.buf, 4096, PEER_MSG, &rcv);
	dp_sgl_one(&a.buf, 8192, 64, &rd);
	if (dp_qp_connect(qa, &o, t->qpn, &at->dgid, 0, 0, t->epsn, false))
		return __LINE__;
	/* B's three requests must all leave before its timer ends them */
	o.timeout = 16;
	if (dp_qp_connect(qb, &o, qa->qp_num, &a.gid, 0, t->epsn, 0, false) ||
	    dp_post_recv(qa, &rcv, 1))
		return __LINE__;
	{
		struct dp_wr w[3] = {
			{ .op = IBV_WR_SEND, .sgl = &msg,
			  .flags = IBV_SEND_SIGNALED },
			{ .op = IBV_WR_RDMA_READ, .sgl = &rd,
			  .flags = IBV_SEND_SIGNALED,
			  .raddr = (uintptr_t)a.buf.mem + 2048,
			  .rkey = a.buf.mr->rkey },
			{ .op = IBV_WR_RDMA_WRITE, .sgl = &msg,
			  .flags = IBV_SEND_SIGNALED,
			  .raddr = (uintptr_t)a.buf.mem,
			  .rkey = a.buf.mr->rkey ^ KEY_RANDOM_BIT },
		};
		int i;

		for (i = 0; i < 3; i++) {
			dp_wr_build(&w[i], &wr[i], sge[i]);
			wr[i].next = i < 2 ? &wr[i + 1] : NULL;
		}
	}
	/* ready; wait until the victim's requests are outstanding */
	if (write(at->sock, "r", 1) != 1 ||
	    dp_read_within(at->sock, &c, 1, DP_TIMEOUT_MS))
		return __LINE__;
	if (ibv_post_send(qb, wr, &bad))
		return __LINE__;
	/* B's requests are all out when they completed (in error) */
	if (dp_poll(a.cq, 3, wc, DP_TIMEOUT_MS) != 3)
		return __LINE__;
	return ibv_close_device(a.ctx) ? __LINE__ : 0;
}

/* Run @fn in a child process; its exit code (0, or a line of it). */
static int peer_fork(struct peer_attack *at,
		     int (*fn)(const struct peer_attack *at), pid_t *pid)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (!*pid) {
		close(sv[0]);
		at->sock = sv[1];
		_exit(fn(at));
	}
	close(sv[1]);
	at->sock = sv[0];
	return 0;
}

static int peer_wait(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

FIXTURE(peer) {
	struct dp_env env;
	struct dp_pair pair[2];		/* RC, UC */
	struct dp_buf mr[2];		/* remote access target, per side */
	struct dp_buf rbuf[2];		/* receive buffers, per side */
	struct rnic_stat_info *info;
	const char *atk_dev;
};

FIXTURE_VARIANT(peer) {
	bool other_dev;
};

FIXTURE_VARIANT_ADD(peer, same_device) { .other_dev = false };
FIXTURE_VARIANT_ADD(peer, other_device) { .other_dev = true };

/* Receive slot @slot of pair @p in a receive buffer */
static size_t peer_slot(int p, int slot)
{
	return (size_t)(p * PEER_RECVS + slot) * PEER_SLOT;
}

FIXTURE_SETUP(peer)
{
	static const enum ibv_qp_type type[2] = { IBV_QPT_RC, IBV_QPT_UC };
	struct dp_sgl s;
	int i, p, k;

	self->info = do_ptr(calloc(1, sizeof(*self->info)));
	dp_env_open(_metadata, &self->env, DEV, NULL);
	self->atk_dev = DEV;
	if (variant->other_dev) {
		ASSERT_EQ(0, rnic_link_add(self->env.g, DEV2, NULL));
		self->atk_dev = DEV2;
	}
	for (i = 0; i < 2; i++) {
		do_buf_alloc(self->env.pd[i], PEER_BUF, DP_ACCESS_ALL,
			     &self->mr[i]);
		do_buf_alloc(self->env.pd[i], PEER_BUF,
			     IBV_ACCESS_LOCAL_WRITE, &self->rbuf[i]);
		dp_buf_guard(&self->mr[i]);
		dp_buf_guard(&self->rbuf[i]);
	}
	for (p = 0; p < 2; p++) {
		struct dp_qp_opts o = dp_opts(type[p]);

		dp_pair_open(_metadata, &self->env, &o, &self->pair[p]);
		for (i = 0; i < 2; i++) {
			for (k = 0; k < PEER_RECVS; k++) {
				dp_sgl_one(&self->rbuf[i], peer_slot(p, k),
					   PEER_SLOT, &s);
				ASSERT_EQ(0, dp_post_recv(self->pair[p].qp[i],
							  &s, p * 100 + k));
			}
		}
	}
}

FIXTURE_TEARDOWN(peer)
{
	dp_env_close(_metadata, &self->env);
	free(self->info);
}

/* Counter @c of device @dev. */
static uint64_t peer_counter(struct __test_metadata *_metadata,
			     FIXTURE_DATA(peer) *self, const char *dev,
			     enum rnic_nl_counter c)
{
	EXPECT_EQ(0, rnic_stat_get(self->env.g, dev, self->info));
	EXPECT_TRUE(self->info->has & (UINT64_C(1) << c))
		TH_LOG("STAT_GET has no counter %s", rnic_counter_name(c));
	return self->info->counters[c];
}

/* The victim's side 0 QP of pair @p, as an attacker sees it. */
static struct peer_target peer_target_of(FIXTURE_DATA(peer) *self, int p)
{
	struct peer_target t = {
		.qpn = self->pair[p].qp[0]->qp_num,
		.type = self->pair[p].qp[0]->qp_type,
		/* side 0 expects the PSNs of side 1 (dp_pair_open2()) */
		.epsn = (self->pair[p].o.psn ^ 0x5a5a5a) & 0xffffff,
		.addr = (uintptr_t)self->mr[0].mem,
		.rkey = self->mr[0].mr->rkey,
	};

	return t;
}

/* No completion on @cq; each one found is logged. */
static void peer_cq_empty(struct __test_metadata *_metadata,
			  struct ibv_cq *cq, const char *name)
{
	struct ibv_wc wc[64];
	int i, n;

	n = ibv_poll_cq(cq, 64, wc);
	for (i = 0; i < n; i++)
		TH_LOG("%s: " DP_WC_FMT " qp %u", name, DP_WC_ARGS(&wc[i]),
		       wc[i].qp_num);
	ASSERT_EQ(0, n);
}

/* Every victim QP in RTS, every CQ empty, every buffer untouched. */
static void peer_unharmed(struct __test_metadata *_metadata,
			  FIXTURE_DATA(peer) *self)
{
	long bad;
	int i, p;

	for (i = 0; i < 2; i++) {
		peer_cq_empty(_metadata, self->env.scq[i], "send CQ");
		peer_cq_empty(_metadata, self->env.rcq[i], "receive CQ");
	}
	for (p = 0; p < 2; p++) {
		for (i = 0; i < 2; i++) {
			int state = dp_qp_state(self->pair[p].qp[i]);

			ASSERT_EQ(IBV_QPS_RTS, state)
				TH_LOG("%s QP %d of the victim left RTS",
				       p ? "UC" : "RC", i);
		}
	}
	for (i = 0; i < 2; i++) {
		bad = dp_check(self->mr[i].mem, PEER_BUF,
			       dp_guard_seed(&self->mr[i]), 0);
		ASSERT_EQ(-1, bad) TH_LOG("MR %d changed at %ld", i, bad);
		bad = dp_check(self->rbuf[i].mem, PEER_BUF,
			       dp_guard_seed(&self->rbuf[i]), 0);
		ASSERT_EQ(-1, bad)
			TH_LOG("receive buffer %d changed at %ld", i, bad);
	}
}

/*
 * The real connection of pair @p moves data: a SEND each way into the
 * next receive WQEs (slot @slot), and on RC a WRITE and a READ.
 */
static void peer_moves_data(struct __test_metadata *_metadata,
			    FIXTURE_DATA(peer) *self, struct ibv_qp **qp,
			    int p, int slot)
{
	struct dp_sgl s;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 2; i++) {
		uint32_t seed = dp_seed(p, i, slot);
		struct dp_wr w = { .op = IBV_WR_SEND, .wr_id = 7,
				   .flags = IBV_SEND_SIGNALED, .sgl = &s };
		long bad;

		dp_sgl_one(&self->mr[i], 8192, PEER_REAL, &s);
		dp_fill(self->mr[i].mem + 8192, PEER_REAL, seed, 0);
		ASSERT_EQ(0, dp_post(qp[i], &w));
		ASSERT_POLL1(self->env.scq[i], &wc);
		ASSERT_WC(&wc, 7, IBV_WC_SUCCESS, IBV_WC_SEND);
		ASSERT_POLL1(self->env.rcq[!i], &wc);
		ASSERT_WC(&wc, p * 100 + slot, IBV_WC_SUCCESS, IBV_WC_RECV);
		ASSERT_EQ(PEER_REAL, wc.byte_len);
		ASSERT_EQ(qp[!i]->qp_num, wc.qp_num);
		bad = dp_check(self->rbuf[!i].mem + peer_slot(p, slot),
			       PEER_REAL, seed, 0);
		ASSERT_EQ(-1, bad) TH_LOG("SEND data wrong at %ld", bad);
	}
	if (qp[0]->qp_type != IBV_QPT_RC)
		return;
	{
		uint32_t seed = dp_seed(p, 2, slot);
		struct dp_wr w = { .op = IBV_WR_RDMA_WRITE, .wr_id = 8,
				   .flags = IBV_SEND_SIGNALED, .sgl = &s,
				   .raddr = (uintptr_t)self->mr[1].mem + 4096,
				   .rkey = self->mr[1].mr->rkey };

		dp_sgl_one(&self->mr[0], 8192, PEER_REAL, &s);
		dp_fill(self->mr[0].mem + 8192, PEER_REAL, seed, 0);
		ASSERT_EQ(0, dp_post(qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, 8, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		ASSERT_EQ(-1, dp_check(self->mr[1].mem + 4096, PEER_REAL,
				       seed, 0));
		w.op = IBV_WR_RDMA_READ;
		w.wr_id = 9;
		dp_sgl_one(&self->mr[0], 12288, PEER_REAL, &s);
		ASSERT_EQ(0, dp_post(qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, 9, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
		ASSERT_EQ(-1, dp_check(self->mr[0].mem + 12288, PEER_REAL,
				       seed, 0));
	}
}

/*
 * A third process aims its QPs at the victim's RC and UC QPs: bad-rkey
 * READs, SENDs, WRITEs and atomics with the right rkey, PSN sweeps.
 */
TEST_F(peer, strangers)
{
	struct peer_attack at = { .dev = self->atk_dev };
	uint64_t req0, resp0;
	pid_t pid;
	int p;

	at.dgid = self->env.gid;
	for (p = 0; p < 2; p++)
		at.t[p] = peer_target_of(self, p);
	req0 = peer_counter(_metadata, self, DEV, RNIC_NL_COUNTER_REQ_NOT_PEER);
	resp0 = peer_counter(_metadata, self, DEV,
			     RNIC_NL_COUNTER_RESP_NOT_PEER);
	ASSERT_EQ(0, peer_fork(&at, attacker_strangers, &pid));
	close(at.sock);
	ASSERT_EQ(0, peer_wait(pid)) TH_LOG("the attacker failed");

	peer_unharmed(_metadata, self);
	EXPECT_EQ(req0 + PEER_RC_PKTS + PEER_UC_PKTS,
		  peer_counter(_metadata, self, DEV,
			       RNIC_NL_COUNTER_REQ_NOT_PEER));
	EXPECT_EQ(resp0, peer_counter(_metadata, self, DEV,
				      RNIC_NL_COUNTER_RESP_NOT_PEER));
	for (p = 0; p < 2; p++)
		peer_moves_data(_metadata, self, self->pair[p].qp, p, 0);
}

/*
 * The attacker relays through a QP of its own aimed at a victim RC QP
 * that has a SEND, a READ and a SEND outstanding (its peer is not ready
 * yet): the relay's responder would ACK the first, answer the READ with
 * the attacker's bytes and NAK the last.
 */
TEST_F(peer, forged_responses)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct peer_attack at = { .dev = self->atk_dev };
	const uint32_t psn = 0x345678;
	struct ibv_qp *qp[2];
	struct dp_sgl s[3];
	struct ibv_wc wc[3];
	uint64_t req0, resp0;
	long bad;
	pid_t pid;
	char c;
	int i;

	/* retransmits every second, for 8 s: long enough for the attack */
	o.timeout = 18;
	for (i = 0; i < 2; i++) {
		qp[i] = dp_qp_create(self->env.pd[i], self->env.scq[i],
				     self->env.rcq[i], &o);
		ASSERT_NE(NULL, qp[i]);
	}
	ASSERT_EQ(0, dp_qp_connect(qp[0], &o, qp[1]->qp_num, &self->env.gid,
				   self->env.gid_index, psn, 0, false));
	ASSERT_EQ(0, dp_qp_init(qp[1], &o));

	at.dgid = self->env.gid;
	at.t[0].qpn = qp[0]->qp_num;
	at.t[0].type = IBV_QPT_RC;
	at.t[0].epsn = psn;
	req0 = peer_counter(_metadata, self, self->atk_dev,
			    RNIC_NL_COUNTER_REQ_NOT_PEER);
	resp0 = peer_counter(_metadata, self, DEV,
			     RNIC_NL_COUNTER_RESP_NOT_PEER);
	ASSERT_EQ(0, peer_fork(&at, attacker_relay, &pid));
	ASSERT_EQ(0, dp_read_within(at.sock, &c, 1, DP_TIMEOUT_MS));

	/* SEND (psn), READ (psn + 1), SEND (psn + 2), to a peer in INIT */
	dp_sgl_one(&self->mr[0], 8192, PEER_MSG, &s[0]);
	dp_sgl_one(&self->mr[0], 12288, 64, &s[1]);
	dp_sgl_one(&self->mr[0], 8192 + 64, PEER_MSG, &s[2]);
	dp_fill(self->mr[0].mem + 8192, 64 + PEER_MSG, dp_seed(1, 2, 3), 0);
	{
		struct dp_wr w[3] = {
			{ .op = IBV_WR_SEND, .wr_id = 1, .sgl = &s[0],
			  .flags = IBV_SEND_SIGNALED },
			{ .op = IBV_WR_RDMA_READ, .wr_id = 2, .sgl = &s[1],
			  .flags = IBV_SEND_SIGNALED,
			  .raddr = (uintptr_t)self->mr[1].mem,
			  .rkey = self->mr[1].mr->rkey },
			{ .op = IBV_WR_SEND, .wr_id = 3, .sgl = &s[2],
			  .flags = IBV_SEND_SIGNALED },
		};

		for (i = 0; i < 3; i++) {
			ASSERT_EQ(0, dp_post(qp[0], &w[i]));
		}
	}
	ASSERT_EQ(1, write(at.sock, "g", 1));
	ASSERT_EQ(0, peer_wait(pid)) TH_LOG("the attacker failed");
	close(at.sock);

	/* a forged response would have completed a victim WQE */
	peer_cq_empty(_metadata, self->env.scq[0], "send CQ");
	ASSERT_EQ(IBV_QPS_RTS, dp_qp_state(qp[0]));
	bad = dp_check(self->mr[0].mem + 12288, 64,
		       dp_guard_seed(&self->mr[0]), 12288);
	ASSERT_EQ(-1, bad) TH_LOG("forged READ response placed at %ld", bad);
	/* the relay dropped what its attacker sent it; nothing came back */
	EXPECT_EQ(req0 + 3, peer_counter(_metadata, self, self->atk_dev,
					 RNIC_NL_COUNTER_REQ_NOT_PEER));
	EXPECT_EQ(resp0, peer_counter(_metadata, self, DEV,
				      RNIC_NL_COUNTER_RESP_NOT_PEER));

	/* the peer gets ready: the retransmissions go through */
	for (i = 0; i < 2; i++) {
		struct dp_sgl r;

		dp_sgl_one(&self->rbuf[1], peer_slot(2, i), PEER_SLOT, &r);
		ASSERT_EQ(0, dp_post_recv(qp[1], &r, 11 + 2 * i));
	}
	ASSERT_EQ(0, dp_qp_rtr(qp[1], &o, qp[0]->qp_num, &self->env.gid,
			       self->env.gid_index, psn));
	ASSERT_EQ(0, dp_qp_rts(qp[1], &o, 0));
	ASSERT_EQ(3, dp_poll(self->env.scq[0], 3, wc, DP_TIMEOUT_MS));
	ASSERT_WC(&wc[0], 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_WC(&wc[1], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	ASSERT_WC(&wc[2], 3, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_EQ(0, memcmp(self->mr[0].mem + 12288, self->mr[1].mem, 64));
	ASSERT_EQ(2, dp_poll(self->env.rcq[1], 2, wc, DP_TIMEOUT_MS));
	ASSERT_WC(&wc[0], 11, IBV_WC_SUCCESS, IBV_WC_RECV);
	ASSERT_WC(&wc[1], 13, IBV_WC_SUCCESS, IBV_WC_RECV);
	ASSERT_EQ(-1, dp_check(self->rbuf[1].mem + peer_slot(2, 0), PEER_MSG,
			       dp_seed(1, 2, 3), 0));
	ASSERT_EQ(-1, dp_check(self->rbuf[1].mem + peer_slot(2, 1), PEER_MSG,
			       dp_seed(1, 2, 3), 64));
	EXPECT_EQ(0, ibv_destroy_qp(qp[0]));
	EXPECT_EQ(0, ibv_destroy_qp(qp[1]));
}

/*
 * A victim QP re-connects to a new peer; its old peer, aimed at it again
 * with PSNs around the one the victim now expects (and one try each),
 * sends SENDs, WRITEs with the right rkey and bad-rkey READs. The old
 * peer is on the victim's device in both variants: run once.
 */
TEST_F(peer, stale_peer)
{
	const uint32_t psn[2] = { 0x10203, 0xf0e0d };
	struct atk a = {
		.ctx = self->env.ctx[1],
		.pd = self->env.pd[1],
		.cq = self->env.scq[1],
	};
	uint64_t req0, sent = 0;
	struct ibv_qp *qp[2];
	struct dp_sgl msg;
	unsigned int i;
	int p;

	if (variant->other_dev)
		SKIP(return, "same as same_device");
	do_buf_alloc(a.pd, PEER_BUF, DP_ACCESS_ALL, &a.buf);
	dp_sgl_one(&a.buf, 0, PEER_MSG, &msg);
	req0 = peer_counter(_metadata, self, DEV, RNIC_NL_COUNTER_REQ_NOT_PEER);
	for (p = 0; p < 2; p++) {
		struct dp_pair *pr = &self->pair[p];
		struct ibv_qp *old = pr->qp[1];
		struct peer_target t = peer_target_of(self, p);
		struct dp_sgl s;
		int k;

		qp[0] = pr->qp[0];
		qp[1] = dp_qp_create(self->env.pd[1], self->env.scq[1],
				     self->env.rcq[1], &pr->o);
		ASSERT_NE(NULL, qp[1]);
		/* the victim's QP re-connects, through RESET */
		ASSERT_EQ(0, dp_qp_modify_state(qp[0], IBV_QPS_RESET));
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, dp_qp_init(qp[i], &pr->o));
			/* RESET dropped the receives: post them again */
			for (k = 0; k < PEER_RECVS; k++) {
				dp_sgl_one(&self->rbuf[i], peer_slot(p, k),
					   PEER_SLOT, &s);
				ASSERT_EQ(0, dp_post_recv(qp[i], &s,
							  p * 100 + k));
			}
		}
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, dp_qp_rtr(qp[i], &pr->o, qp[!i]->qp_num,
					       &self->env.gid,
					       self->env.gid_index, psn[!i]));
			ASSERT_EQ(0, dp_qp_rts(qp[i], &pr->o, psn[i]));
		}
		/*
		 * The old peer (its first reset drops its receives, so that
		 * its ERR flushes none)
		 */
		t.epsn = psn[1];
		for (i = 0; i < PEER_NSWEEP; i++) {
			struct dp_wr send = { .op = IBV_WR_SEND, .sgl = &msg,
					      .flags = IBV_SEND_SIGNALED };
			struct dp_wr wr = { .op = IBV_WR_RDMA_WRITE,
					    .sgl = &msg,
					    .flags = IBV_SEND_SIGNALED,
					    .raddr = t.addr, .rkey = t.rkey };
			struct dp_wr rd = { .op = IBV_WR_RDMA_READ,
					    .sgl = &msg,
					    .flags = IBV_SEND_SIGNALED,
					    .raddr = t.addr,
					    .rkey = t.rkey ^ KEY_RANDOM_BIT };

			ASSERT_EQ(0, atk_fire(&a, old, t.qpn, &self->env.gid,
					      t.epsn + peer_sweep[i], &send));
			ASSERT_EQ(0, atk_fire(&a, old, t.qpn, &self->env.gid,
					      t.epsn + peer_sweep[i], &wr));
			sent += 2;
			if (t.type != IBV_QPT_RC)
				continue;
			ASSERT_EQ(0, atk_fire(&a, old, t.qpn, &self->env.gid,
					      t.epsn + peer_sweep[i], &rd));
			sent++;
		}
		ASSERT_EQ(0, ibv_destroy_qp(old));
		pr->qp[1] = qp[1];
	}
	peer_unharmed(_metadata, self);
	EXPECT_EQ(req0 + sent, peer_counter(_metadata, self, DEV,
					    RNIC_NL_COUNTER_REQ_NOT_PEER));
	for (p = 0; p < 2; p++)
		peer_moves_data(_metadata, self, self->pair[p].qp, p, 0);
	EXPECT_EQ(0, dp_buf_free(&a.buf));
}

TEST_HARNESS_MAIN
