// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: 16 RC pairs and a UD pair driven by 4 threads with random
 * batches of SEND, SEND with immediate, RDMA WRITE (with immediate),
 * RDMA READ and atomics, random sizes and SGE counts, every byte and
 * every atomic result checked; then 200 children SIGKILLed at random
 * moments while they move data (some of them with a peer QP in this
 * process, the others with a QP of their own that they reach through a
 * memory window), after which every object and pinned page they had is
 * gone.
 *
 * RNIC_STRESS_SECONDS sets how long the traffic test runs (default 20,
 * what make check uses); RNIC_STRESS_ROUNDS the number of children
 * (default 200). For a long run:
 *   tools/dev/vm/run -- env RNIC_STRESS_SECONDS=3600 build/selftests/dp_stress
 * A failure names its seed: RNIC_DP_SEED=<seed> replays the same choices
 * (timing aside).
 */
#include <stdatomic.h>

#include "rnic_dp_test.h"

#define DEV "t_dpst"

#define NRC	16
#define NTHREAD	4
#define SLOTS	4
#define SLOT	(64 << 10)
#define ATOMIC_OFF (SLOTS * SLOT)
#define BUFSZ	(ATOMIC_OFF + 4096)

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : dflt;
}

/* One pair with CQs of its own, so that one thread owns it all. */
struct spair {
	struct dp_env env;	/* a copy with this pair's CQs */
	struct dp_pair p;
	struct dp_buf lb, rb;
	uint64_t atom;		/* what the remote atomic word holds */
	bool ud;
	uint64_t ops;
};

struct sthread {
	pthread_t thread;
	struct spair *pairs[NRC + 1];
	int npairs;
	uint64_t rnd;
	long end;
	char err[256];
	uint64_t ops;
};

struct op {
	enum ibv_wr_opcode op;
	size_t len;
	int lsge;
	int rsge;
	uint32_t seed;
	struct dp_sgl ls, rs;
	uint64_t cmp, swap, before;
};

static bool is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static bool takes_recv(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

#define FAIL(t, ...) do {						\
	snprintf((t)->err, sizeof((t)->err), __VA_ARGS__);		\
	return -1;							\
} while (0)

/* One batch of 1 to SLOTS requests on @sp, checked; 0 or -1 (t->err). */
static int batch(struct sthread *t, struct spair *sp)
{
	static const enum ibv_wr_opcode rc_ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	size_t mtu = 128u << sp->env.port.active_mtu;
	struct ibv_wc wc[SLOTS];
	struct op ops[SLOTS];
	int n = 1 + dp_rand(&t->rnd) % SLOTS, nrecv = 0, i, j;
	bool atomic_used = false;
	uint64_t *aw = (uint64_t *)(sp->rb.mem + ATOMIC_OFF);

	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];
		uint32_t r = dp_rand(&t->rnd);

		o->seed = dp_rand(&t->rnd);
		o->op = sp->ud ? (r & 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND) :
			rc_ops[r % 7];
		if (is_atomic(o->op) && atomic_used)
			o->op = IBV_WR_RDMA_WRITE;
		atomic_used |= is_atomic(o->op);
		/* mostly small, sometimes up to a slot */
		switch ((r >> 8) % 4) {
		case 0:
			o->len = (r >> 12) % 64;
			break;
		case 1:
			o->len = (r >> 12) % 4096;
			break;
		case 2:
			o->len = (r >> 12) % 20000;
			break;
		default:
			o->len = (r >> 12) % (SLOT - 4096);
			break;
		}
		if (sp->ud && o->len > mtu - 64)
			o->len = (r >> 12) % (mtu - 64);
		o->lsge = 1 + (r >> 28) % 4;
		o->rsge = 1 + (r >> 26) % 4;
		if (is_atomic(o->op)) {
			o->len = 8;
			o->lsge = 1;
		}
		dp_sgl_make(&sp->lb, i * SLOT, o->len, o->lsge, o->seed,
			    &o->ls);
		dp_sgl_make(&sp->rb, i * SLOT,
			    o->len + (sp->ud ? DP_GRH : 0),
			    takes_recv(o->op) && o->op !=
			    IBV_WR_RDMA_WRITE_WITH_IMM ? o->rsge : 1,
			    ~o->seed, &o->rs);
		if (o->op == IBV_WR_RDMA_READ)
			dp_sgl_fill(&o->rs, o->seed, 0);
		else
			dp_sgl_fill(&o->ls, o->seed, 0);
		if (takes_recv(o->op)) {
			int ret = o->op == IBV_WR_RDMA_WRITE_WITH_IMM ?
				  dp_post_recv(sp->p.qp[1], NULL, i) :
				  dp_post_recv(sp->p.qp[1], &o->rs, i);

			if (ret)
				FAIL(t, "post_recv: %s", strerror(ret));
			nrecv++;
		}
	}
	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];
		struct dp_wr w = {
			.op = o->op, .wr_id = i, .sgl = &o->ls, .imm = o->seed,
			.raddr = o->rs.sge[0].addr, .rkey = sp->rb.mr->rkey,
		};
		int ret;

		if (sp->ud) {
			w.ah = sp->p.ah[0];
			w.rqpn = sp->p.qp[1]->qp_num;
			w.qkey = DP_QKEY;
		}
		if (is_atomic(o->op)) {
			o->before = sp->atom;
			w.raddr = (uintptr_t)aw;
			if (o->op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
				o->cmp = dp_mix(o->seed);
				sp->atom += o->cmp;
			} else {
				o->cmp = o->seed & 1 ? sp->atom : ~sp->atom;
				o->swap = dp_mix(o->seed);
				if (o->cmp == sp->atom)
					sp->atom = o->swap;
			}
			w.compare_add = o->cmp;
			w.swap = o->swap;
		}
		ret = dp_post(sp->p.qp[0], &w);
		if (ret)
			FAIL(t, "post_send op %d: %s", o->op, strerror(ret));
	}
	if (dp_poll(sp->env.scq[0], n, wc, DP_TIMEOUT_MS) != n)
		FAIL(t, "QP %u: send completions missing", sp->p.qp[0]->qp_num);
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != (uint64_t)i)
			FAIL(t, "QP %u: send %d: " DP_WC_FMT,
			     sp->p.qp[0]->qp_num, i, DP_WC_ARGS(&wc[i]));
	if (dp_poll(sp->env.rcq[1], nrecv, wc, DP_TIMEOUT_MS) != nrecv)
		FAIL(t, "QP %u: receive completions missing",
		     sp->p.qp[1]->qp_num);
	for (i = 0, j = 0; i < n; i++) {
		struct op *o = &ops[i];
		size_t skip = sp->ud ? DP_GRH : 0;
		long bad;

		if (takes_recv(o->op)) {
			struct ibv_wc *c = &wc[j++];

			if (c->status != IBV_WC_SUCCESS ||
			    c->wr_id != (uint64_t)i ||
			    c->byte_len != o->len + skip)
				FAIL(t, "QP %u: receive %d (len %zu): "
				     DP_WC_FMT, sp->p.qp[1]->qp_num, i,
				     o->len, DP_WC_ARGS(c));
			if (o->op != IBV_WR_SEND &&
			    c->imm_data != htonl(o->seed))
				FAIL(t, "receive %d: imm %x", i,
				     ntohl(c->imm_data));
		}
		if (is_atomic(o->op)) {
			uint64_t got;

			memcpy(&got, (void *)(uintptr_t)o->ls.sge[0].addr, 8);
			if (got != o->before)
				FAIL(t, "QP %u: atomic %d returned %llx, "
				     "not %llx", sp->p.qp[0]->qp_num, o->op,
				     (unsigned long long)got,
				     (unsigned long long)o->before);
			continue;
		}
		bad = o->op == IBV_WR_RDMA_READ ?
		      dp_sgl_check(&o->ls, 0, o->len, o->seed) :
		      dp_sgl_check(&o->rs, skip, o->len, o->seed);
		if (bad >= 0)
			FAIL(t, "QP %u: op %d len %zu (%d/%d SGEs) seed 0x%x: "
			     "byte %ld wrong", sp->p.qp[0]->qp_num, o->op,
			     o->len, o->ls.n, o->rs.n, o->seed, bad);
	}
	if (*aw != sp->atom)
		FAIL(t, "QP %u: atomic word %llx, not %llx",
		     sp->p.qp[0]->qp_num, (unsigned long long)*aw,
		     (unsigned long long)sp->atom);
	sp->ops += n;
	t->ops += n;
	return 0;
}

static void *thread_main(void *arg)
{
	struct sthread *t = arg;

	while (dp_now_ms() < t->end) {
		struct spair *sp = t->pairs[dp_rand(&t->rnd) % t->npairs];

		if (batch(t, sp))
			break;
	}
	return NULL;
}

FIXTURE(st) {
	struct dp_env env;
};

FIXTURE_SETUP(st)
{
	dp_env_open(_metadata, &self->env, DEV, NULL);
}

FIXTURE_TEARDOWN(st)
{
	dp_env_close(_metadata, &self->env);
}

static void spair_open(struct __test_metadata *_metadata, struct dp_env *env,
		       struct spair *sp, bool ud, int i)
{
	struct dp_qp_opts o = dp_opts(ud ? IBV_QPT_UD : IBV_QPT_RC);
	int s;

	memset(sp, 0, sizeof(*sp));
	sp->env = *env;
	sp->ud = ud;
	for (s = 0; s < 2; s++) {
		sp->env.scq[s] = ibv_create_cq(env->ctx[s], 64, NULL, NULL, 0);
		sp->env.rcq[s] = ibv_create_cq(env->ctx[s], 64, NULL, NULL, 0);
		ASSERT_NE(NULL, sp->env.scq[s]);
		ASSERT_NE(NULL, sp->env.rcq[s]);
	}
	o.max_send_sge = 4;
	o.max_recv_sge = 4;
	o.mtu = i % 2 ? IBV_MTU_1024 : IBV_MTU_4096;
	o.rd_atomic = 1 + i % 4;
	o.psn = 0xffff00 + i;	/* PSNs wrap along the way */
	dp_pair_open(_metadata, &sp->env, &o, &sp->p);
	ASSERT_EQ(0, dp_buf_alloc(env->pd[0], BUFSZ, DP_ACCESS_ALL, &sp->lb));
	ASSERT_EQ(0, dp_buf_alloc(env->pd[1], BUFSZ, DP_ACCESS_ALL, &sp->rb));
	sp->atom = dp_mix(i);
	memcpy(sp->rb.mem + ATOMIC_OFF, &sp->atom, 8);
}

static void spair_close(struct __test_metadata *_metadata, struct spair *sp)
{
	int s;

	dp_pair_close(_metadata, &sp->p);
	EXPECT_EQ(0, dp_buf_free(&sp->lb));
	EXPECT_EQ(0, dp_buf_free(&sp->rb));
	for (s = 0; s < 2; s++) {
		EXPECT_EQ(0, ibv_destroy_cq(sp->env.scq[s]));
		EXPECT_EQ(0, ibv_destroy_cq(sp->env.rcq[s]));
	}
}

TEST_F_TIMEOUT(st, random_traffic, 3600 * 24)
{
	int secs = env_int("RNIC_STRESS_SECONDS", 20);
	struct spair *sp;
	struct sthread *t;
	uint64_t total = 0;
	int i;

	sp = calloc(NRC + 1, sizeof(*sp));
	t = calloc(NTHREAD, sizeof(*t));
	ASSERT_NE(NULL, sp);
	ASSERT_NE(NULL, t);
	for (i = 0; i <= NRC; i++)
		spair_open(_metadata, &self->env, &sp[i], i == NRC, i);
	for (i = 0; i <= NRC; i++)
		t[i % NTHREAD].pairs[t[i % NTHREAD].npairs++] = &sp[i];
	for (i = 0; i < NTHREAD; i++) {
		t[i].rnd = dp_seed(0x57, i, 0);
		t[i].end = dp_now_ms() + secs * 1000L;
		ASSERT_EQ(0, pthread_create(&t[i].thread, NULL, thread_main,
					    &t[i]));
	}
	for (i = 0; i < NTHREAD; i++) {
		pthread_join(t[i].thread, NULL);
		EXPECT_EQ('\0', t[i].err[0])
			TH_LOG("thread %d (seed 0x%x): %s", i,
			       dp_seed(0x57, i, 0), t[i].err);
		total += t[i].ops;
	}
	/* every pair moved something */
	for (i = 0; i <= NRC; i++)
		EXPECT_LT(0, sp[i].ops) TH_LOG("pair %d idle", i);
	for (i = 0; i <= NRC; i++)
		spair_close(_metadata, &sp[i]);
	ksft_print_msg("%llu requests in %d s\n", (unsigned long long)total,
		       secs);
	free(sp);
	free(t);
}

/* ---- SIGKILL during traffic ------------------------------------------------- */

/*
 * A type 2 window over all of @b, bound on @qp (in RTS; its send CQ @cq
 * empty); its rkey, or 0.
 */
static uint32_t kill_window(struct ibv_qp *qp, struct ibv_cq *cq,
			    struct ibv_pd *pd, struct dp_buf *b)
{
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	if (!mw)
		return 0;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = b->mr, .addr = (uintptr_t)b->mem, .length = b->size,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	if (ibv_post_send(qp, &wr, &bad) || dp_poll(cq, 1, &wc, 5000) != 1 ||
	    wc.status != IBV_WC_SUCCESS)
		return 0;
	return wr.bind_mw.rkey;
}

/*
 * The child: its own context, an RC QP to @peer_qpn (0: a second QP of
 * its own, which it reaches through a memory window), a receive ring
 * full, and WRITE/READ/SEND batches for ever. It writes its QP number to
 * @fd once traffic is about to start.
 */
static void kill_child(int fd, uint32_t peer_qpn, uint64_t peer_addr,
		       uint32_t peer_rkey, const union ibv_gid *gid)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_context *ctx = rnic_ibv_open(DEV);
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 256, NULL, NULL, 0) : NULL;
	struct ibv_qp *qp[2] = { NULL, NULL };
	struct dp_buf b;
	struct ibv_wc wc[16];
	uint64_t n = 0;
	int i;

	if (!cq || dp_buf_alloc(pd, 1 << 20,
				DP_ACCESS_ALL | IBV_ACCESS_MW_BIND, &b))
		_exit(2);
	o.max_send_wr = 16;
	o.max_recv_wr = 128;
	for (i = 0; i < (peer_qpn ? 1 : 2); i++) {
		qp[i] = dp_qp_create(pd, cq, cq, &o);
		if (!qp[i])
			_exit(3);
	}
	if (!peer_qpn) {
		peer_addr = (uintptr_t)b.mem;
		if (dp_qp_connect(qp[1], &o, qp[0]->qp_num, gid, 0, 2, 1,
				  false))
			_exit(4);
		peer_rkey = kill_window(qp[1], cq, pd, &b);
		if (!peer_rkey)
			_exit(7);
		for (i = 0; i < 128; i++)
			dp_post_recv(qp[1], NULL, i);
	}
	if (dp_qp_connect(qp[0], &o, peer_qpn ? peer_qpn : qp[1]->qp_num,
			  gid, 0, 1, 2, false))
		_exit(5);
	if (write(fd, &qp[0]->qp_num, 4) != 4)
		_exit(6);
	for (;;) {
		struct dp_sgl s;
		struct dp_wr w = { .wr_id = n, .sgl = &s, .rkey = peer_rkey,
				   .raddr = peer_addr + (n % 8) * 65536 };

		w.op = (enum ibv_wr_opcode[]){ IBV_WR_RDMA_WRITE,
			IBV_WR_RDMA_READ, IBV_WR_SEND }[n % (peer_qpn ? 2 : 3)];
		dp_sgl_one(&b, 512 * 1024 + (n % 8) * 65536, 1 + n % 65536,
			   &s);
		if (w.op == IBV_WR_SEND)
			s.sge[0].length = 0;
		if (!dp_post(qp[0], &w))
			n++;
		if (!peer_qpn && w.op == IBV_WR_SEND)
			dp_post_recv(qp[1], NULL, n);
		ibv_poll_cq(cq, 16, wc);
	}
}

TEST_F_TIMEOUT(st, sigkill_during_traffic, 600)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	uint64_t base[RNIC_RES_NR_KINDS];
	int rounds = env_int("RNIC_STRESS_ROUNDS", 200);
	struct rnic_link_info info;
	long pin0 = vm_pin_kb(), end;
	uint64_t rnd = dp_seed(0x4b, 0, 0);
	int round, k, killed_running = 0;

	ASSERT_EQ(0, rnic_res_get(self->env.g, DEV, self->env.res));
	memcpy(base, self->env.res->counts, sizeof(base));
	for (round = 0; round < rounds; round++) {
		bool peer = round % 2;
		struct ibv_qp *pqp = NULL;
		struct dp_buf pb = { 0 };
		uint32_t child_qpn;
		int pfd[2], status;
		pid_t pid;

		if (peer) {
			/* a QP of ours the child talks to */
			pqp = dp_qp_create(self->env.pd[0], self->env.scq[0],
					   self->env.rcq[0], &o);
			ASSERT_NE(NULL, pqp);
			do_buf_alloc(self->env.pd[0], 1 << 20, DP_ACCESS_ALL,
				     &pb);
		}
		ASSERT_EQ(0, pipe(pfd));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			close(pfd[0]);
			kill_child(pfd[1], pqp ? pqp->qp_num : 0,
				   (uintptr_t)pb.mem, pb.mr ? pb.mr->rkey : 0,
				   &self->env.gid);
			_exit(1);
		}
		close(pfd[1]);
		/* most rounds: kill once traffic runs; some: any time */
		if (dp_rand(&rnd) % 4) {
			struct pollfd p = { .fd = pfd[0], .events = POLLIN };

			if (poll(&p, 1, 5000) == 1 &&
			    read(pfd[0], &child_qpn, 4) == 4) {
				int ret = pqp ? dp_qp_connect(pqp, &o,
							      child_qpn,
							      &self->env.gid,
							      0, 2, 1, false)
					      : 0;

				ASSERT_EQ(0, ret);
				killed_running++;
			}
		}
		usleep(dp_rand(&rnd) % 20000);
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		close(pfd[0]);
		if (pqp) {
			EXPECT_EQ(0, ibv_destroy_qp(pqp));
			EXPECT_EQ(0, dp_buf_free(&pb));
		}
		/* a child that failed on its own is a failure */
		ASSERT_TRUE(WIFSIGNALED(status))
			TH_LOG("round %d: child exited with %d", round,
			       WEXITSTATUS(status));
	}
	/* Everything the children had is gone. */
	end = dp_now_ms() + 10000;
	for (;;) {
		ASSERT_EQ(0, rnic_res_get(self->env.g, DEV, self->env.res));
		if (!memcmp(base, self->env.res->counts, sizeof(base)) ||
		    dp_now_ms() > end)
			break;
		usleep(50000);
	}
	for (k = 0; k < RNIC_RES_NR_KINDS; k++) {
		const char *name = rnic_res_kinds[k].name;

		EXPECT_EQ(base[k], self->env.res->counts[k]) TH_LOG("%s", name);
	}
	ASSERT_EQ(0, rnic_link_get(self->env.g, DEV, &info));
	EXPECT_EQ(2, info.contexts);
	EXPECT_EQ(pin0, vm_pin_kb());
	/* most children were killed with traffic running */
	EXPECT_LE(rounds / 2, killed_running);
	ksft_print_msg("%d children killed, %d while moving data\n", rounds,
		       killed_running);
}

TEST_HARNESS_MAIN
