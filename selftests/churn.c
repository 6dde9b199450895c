// SPDX-License-Identifier: GPL-2.0
/*
 * Connection churn across two processes: every cycle both create an RC
 * QP, trade QP numbers over a socket, connect, move data both ways
 * (an RDMA WRITE and a SEND with immediate one way, a SEND back; every
 * byte checked) and destroy their QP.
 *
 * QP numbers: the kernel hands them out cyclically over 2^24 values, so
 * none may come back within a run (2 * cycles numbers, at most 20,000 for
 * make stress): the test asserts that every number seen is new.
 *
 * Growth: the resource counts are the same every 100 cycles as after a
 * warm-up, and the kernel's unreclaimable slab plus vmalloc memory
 * (/proc/meminfo SUnreclaim + VmallocUsed) after the churn is within a
 * bound of what it was after the warm-up. The bound is measured in the
 * same run: what 100 idle QP pairs with 64-entry queues cost (about
 * 8 MiB; the noise seen is up to 2.2 MiB either way). A leaked object
 * shows in the counts at once; leaked memory alone must add up past the
 * bound: never freeing the rings of the churn's QPs (about 22 KiB a
 * cycle) stays under it in 200 cycles, and exceeds it 25 times over in
 * 10,000.
 *
 * RNIC_CHURN_CYCLES sets the cycles (default 200, what make check runs;
 * make stress runs 10000).
 */
#include <sys/socket.h>

#include "rnic_dp_test.h"

#define DEV "t_churn"

#define BUFSZ	(64 << 10)
#define WLEN	(16 << 10)	/* WRITE at offset 0 */
#define SLEN	512		/* SENDs at offset 32 KiB */
#define SOFF	(32 << 10)
#define CALIBRATE 100		/* QP pairs the growth bound is worth */
#define WARMUP	20

/* What one side of the churn keeps for the whole run. */
struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct dp_buf b;
};

static int side_open(struct side *s)
{
	memset(s, 0, sizeof(*s));
	s->ctx = rnic_ibv_open(DEV);
	if (!s->ctx)
		return -ENODEV;
	s->pd = ibv_alloc_pd(s->ctx);
	s->scq = s->pd ? ibv_create_cq(s->ctx, 64, NULL, NULL, 0) : NULL;
	s->rcq = s->pd ? ibv_create_cq(s->ctx, 64, NULL, NULL, 0) : NULL;
	if (!s->scq || !s->rcq)
		return -errno;
	return dp_buf_alloc(s->pd, BUFSZ, DP_ACCESS_ALL, &s->b);
}

static int side_close(struct side *s)
{
	int ret = dp_buf_free(&s->b);

	/* (a CQ left alive keeps its ring mapped, and the context with it) */
	ret = ret ?: ibv_destroy_cq(s->scq);
	ret = ret ?: ibv_destroy_cq(s->rcq);
	ret = ret ?: ibv_dealloc_pd(s->pd);
	return ret ?: ibv_close_device(s->ctx);
}

/* Exactly @len bytes both ways over the control socket; 0 or -1. */
static int xfer(int sk, const void *out, void *in, size_t len)
{
	if (out && write(sk, out, len) != (ssize_t)len)
		return -1;
	if (in && recv(sk, in, len, MSG_WAITALL) != (ssize_t)len)
		return -1;
	return 0;
}

static int poll1(struct ibv_cq *cq, enum ibv_wc_opcode op, struct ibv_wc *wc)
{
	if (dp_poll(cq, 1, wc, DP_TIMEOUT_MS) != 1) {
		fprintf(stderr, "# no completion (opcode %d) within %d ms\n",
			op, DP_TIMEOUT_MS);
		return -ETIMEDOUT;
	}
	if (wc->status == IBV_WC_SUCCESS && wc->opcode == op)
		return 0;
	fprintf(stderr, "# want opcode %d: " DP_WC_FMT "\n", op,
		DP_WC_ARGS(wc));
	return -EIO;
}

/* One cycle on either side: 0, or a negative step number. */
static int cycle(struct side *s, int sk, bool requester, uint32_t n,
		 const union ibv_gid *gid, uint32_t *qpns)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct { uint64_t addr; uint32_t rkey, qpn; } me, peer;
	uint32_t psn[2] = { n & 0xffffff, ~n & 0xffffff };
	struct ibv_wc wc;
	struct dp_sgl sl;
	struct ibv_qp *qp;
	int ret = 0;

	o.max_send_wr = 4;
	o.max_recv_wr = 4;
	qp = dp_qp_create(s->pd, s->scq, s->rcq, &o);
	if (!qp)
		return -1;
	dp_sgl_one(&s->b, SOFF, SLEN, &sl);
	me.addr = (uintptr_t)s->b.mem;
	me.rkey = s->b.mr->rkey;
	me.qpn = qp->qp_num;
	if (xfer(sk, &me, &peer, sizeof(me)) ||
	    dp_qp_connect(qp, &o, peer.qpn, gid, 0, psn[!requester],
			  psn[requester], false) ||
	    dp_post_recv(qp, &sl, n) ||
	    xfer(sk, &n, &n, sizeof(n))) {	/* both in RTS */
		ret = -2;
		goto out;
	}
	qpns[0] = me.qpn;
	qpns[1] = peer.qpn;
	if (requester) {
		struct dp_sgl wl;
		struct dp_wr w = { .op = IBV_WR_RDMA_WRITE, .sgl = &wl,
				   .raddr = peer.addr, .rkey = peer.rkey };

		dp_sgl_one(&s->b, 0, WLEN, &wl);
		dp_sgl_fill(&wl, n, 0);
		if (dp_post(qp, &w) || poll1(s->scq, IBV_WC_RDMA_WRITE, &wc)) {
			ret = -3;
			goto out;
		}
		w.op = IBV_WR_SEND_WITH_IMM;
		w.imm = n;
		w.sgl = &sl;
		dp_sgl_fill(&sl, ~n, 0);
		if (dp_post(qp, &w) || poll1(s->scq, IBV_WC_SEND, &wc)) {
			ret = -4;
			goto out;
		}
		/* the answer */
		if (poll1(s->rcq, IBV_WC_RECV, &wc) || wc.byte_len != SLEN ||
		    dp_sgl_check(&sl, 0, SLEN, n ^ 0xa5a5a5a5) >= 0)
			ret = -5;
	} else {
		struct dp_sgl wl;
		struct dp_wr w = { .op = IBV_WR_SEND, .sgl = &sl };

		dp_sgl_one(&s->b, 0, WLEN, &wl);
		if (poll1(s->rcq, IBV_WC_RECV, &wc) || wc.byte_len != SLEN ||
		    ntohl(wc.imm_data) != n ||
		    dp_sgl_check(&sl, 0, SLEN, ~n) >= 0 ||
		    dp_sgl_check(&wl, 0, WLEN, n) >= 0) {
			ret = -6;
			goto out;
		}
		dp_sgl_fill(&sl, n ^ 0xa5a5a5a5, 0);
		if (dp_post(qp, &w) || poll1(s->scq, IBV_WC_SEND, &wc))
			ret = -7;
	}
out:
	if (ibv_destroy_qp(qp) && !ret)
		ret = -8;
	/* both QPs are gone before the next cycle or a count */
	if (!ret && xfer(sk, &n, &n, sizeof(n)))
		ret = -9;
	return ret;
}

/* The peer: cycles until the socket closes; exits 0 or with the step. */
static void __attribute__((noreturn))
peer_main(int sk, const union ibv_gid *gid)
{
	uint32_t qpns[2], n;
	struct side s;
	int ret;

	if (side_open(&s))
		_exit(100);
	while (recv(sk, &n, sizeof(n), MSG_WAITALL) == sizeof(n)) {
		ret = cycle(&s, sk, false, n, gid, qpns);
		if (ret)
			_exit(-ret);
	}
	_exit(side_close(&s) ? 101 : 0);
}

/* SUnreclaim + VmallocUsed of /proc/meminfo, in KiB, once frees settled. */
static long kernel_kb(void)
{
	char line[256];
	long kb, sum = 0;
	FILE *f;

	usleep(300000);	/* RCU callbacks, deferred frees */
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld kB", &kb) == 1 ||
		    sscanf(line, "VmallocUsed: %ld kB", &kb) == 1)
			sum += kb;
	fclose(f);
	return sum;
}

FIXTURE(churn) {
	struct rnic_genl *g;
	struct rnic_res_info *res;
};

FIXTURE_SETUP(churn)
{
	rnic_fixture_setup(_metadata, &self->g, &self->res, DEV, NULL);
}

FIXTURE_TEARDOWN(churn)
{
	rnic_fixture_teardown(_metadata, self->g, self->res);
}

TEST_F_TIMEOUT(churn, two_processes, 3600)
{
	int cycles = dp_env_int("RNIC_CHURN_CYCLES", 200);
	uint8_t *seen = calloc(1 << 21, 1);	/* a bit per QP number */
	uint64_t base[RNIC_RES_NR_KINDS];
	struct ibv_qp *idle[2 * CALIBRATE];
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	long kb_warm = 0, kb_end, kb_cal, start = dp_now_ms();
	uint64_t left = 0;
	union ibv_gid gid;
	struct side s;
	int sk[2], status, i;
	uint32_t n;
	pid_t pid;

	ASSERT_NE(NULL, seen);
	ASSERT_LE(WARMUP + 1, cycles);
	ASSERT_EQ(0, side_open(&s));
	ASSERT_EQ(0, ibv_query_gid(s.ctx, 1, 0, &gid));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sk));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(sk[0]);
		peer_main(sk[1], &gid);
	}
	close(sk[1]);
	for (n = 0; n < (uint32_t)cycles; n++) {
		uint32_t qpns[2];
		int ret;

		ASSERT_EQ(sizeof(n), write(sk[0], &n, sizeof(n)));
		ret = cycle(&s, sk[0], true, n, &gid, qpns);
		ASSERT_EQ(0, ret) TH_LOG("cycle %u: step %d", n, -ret);
		for (i = 0; i < 2; i++) {
			uint32_t q = qpns[i] & 0xffffff;

			ASSERT_EQ(0, seen[q / 8] & (1 << q % 8))
				TH_LOG("cycle %u: QP number %u again", n, q);
			seen[q / 8] |= 1 << q % 8;
		}
		if (n == WARMUP) {
			ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
			memcpy(base, self->res->counts, sizeof(base));
			kb_warm = kernel_kb();
		} else if (n > WARMUP && n % 100 == 0) {
			ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
			ASSERT_EQ(0, memcmp(base, self->res->counts,
					    sizeof(base)))
				TH_LOG("cycle %u: resource counts changed", n);
		}
	}
	close(sk[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("peer failed at step %d",
						 WEXITSTATUS(status));
	kb_end = kernel_kb();

	/* What the bound is worth: CALIBRATE pairs of QPs kept. */
	for (i = 0; i < 2 * CALIBRATE; i++) {
		idle[i] = dp_qp_create(s.pd, s.scq, s.rcq, &o);
		ASSERT_NE(NULL, idle[i]);
	}
	kb_cal = kernel_kb() - kb_end;
	for (i = 0; i < 2 * CALIBRATE; i++)
		ASSERT_EQ(0, ibv_destroy_qp(idle[i]));
	ASSERT_EQ(0, side_close(&s));
	ASSERT_LT(0, kb_cal);
	EXPECT_GT(kb_cal, kb_end - kb_warm)
		TH_LOG("kernel memory grew by %ld KiB over %d cycles; "
		       "%d QP pairs take %ld KiB", kb_end - kb_warm,
		       cycles - WARMUP, CALIBRATE, kb_cal);
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	for (i = 0; i < RNIC_RES_NR_KINDS; i++) {
		const char *name = rnic_res_kinds[i].name;

		EXPECT_EQ(0, self->res->counts[i]) TH_LOG("%s", name);
		if (i != RNIC_RES_PINNED)
			left += self->res->counts[i];
	}
	ksft_print_msg("churn: %d cycles in %.1f s, %d QP numbers all "
		       "distinct, kernel memory %+ld KiB after warm-up "
		       "(bound %ld KiB = %d QP pairs), objects left %llu\n",
		       cycles, (dp_now_ms() - start) / 1000.0, 2 * cycles,
		       kb_end - kb_warm, kb_cal, CALIBRATE,
		       (unsigned long long)left);
	fflush(stdout);	/* the harness ends the test with _exit() */
	free(seen);
}

TEST_HARNESS_MAIN
