// SPDX-License-Identifier: GPL-2.0
/*
 * Kill storm: rounds of two worker processes, each with its own context,
 * a completion channel, one CQ armed for events, an SRQ, an RC QP on the
 * SRQ connected to the other worker's, a UD QP sending to itself, and
 * MRs registered and deregistered all the time; WRITE, READ and SEND go
 * both ways. Each worker is SIGKILLed at its own random moment (during
 * setup in some rounds, mostly while data moves). After the storm the
 * device accounts no object and no pinned byte, no context is left, and
 * the device can be deleted (rmmod afterwards is the harness' check).
 *
 * RNIC_STORM_ROUNDS sets the number of rounds (default 40, what make
 * check runs; make stress runs 1000). RNIC_DP_SEED changes the moments.
 */
#include "rnic_dp_test.h"

#define DEV "t_storm"

#define BUFSZ	(1 << 20)
#define NMR	4		/* MRs a worker keeps registered besides its buffer */
#define CQE	512

/* Successful completions of all workers, in memory shared with them. */
static _Atomic uint64_t *completions;

/* What a worker tells the other one through the parent. */
struct peer_info {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
};

/* Keep the receive queues full; errors (full, QP gone bad) are ignored. */
static void refill(struct ibv_srq *srq, struct ibv_qp *ud, struct dp_buf *b)
{
	struct dp_sgl s;
	int i;

	dp_sgl_one(b, 0, 4096, &s);
	for (i = 0; i < 8 && !dp_post_srq_recv(srq, &s, 1); i++)
		;
	dp_sgl_one(b, 4096, 4096, &s);
	for (i = 0; i < 8 && !dp_post_recv(ud, &s, 2); i++)
		;
}

/*
 * A worker: sets everything up, sends its peer_info on @wfd, reads the
 * other worker's from @rfd, then moves data until it is killed. It never
 * returns; an exit status says which step failed.
 */
static void __attribute__((noreturn))
worker(int wfd, int rfd, const union ibv_gid *gid, uint32_t seed)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC), ou = dp_opts(IBV_QPT_UD);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 1 } };
	struct ibv_context *ctx = rnic_ibv_open(DEV);
	struct ibv_comp_channel *ch;
	struct ibv_mr *mrs[NMR] = { NULL };
	struct ibv_qp *rc, *ud;
	struct peer_info me, peer;
	struct ibv_srq *srq;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_ah *ah;
	struct dp_buf b;
	uint64_t rnd = seed, n;

	if (!ctx)
		_exit(10);
	pd = ibv_alloc_pd(ctx);
	ch = ibv_create_comp_channel(ctx);
	if (!pd || !ch)
		_exit(11);
	cq = ibv_create_cq(ctx, CQE, NULL, ch, 0);
	srq = ibv_create_srq(pd, &sa);
	if (!cq || !srq || dp_buf_alloc(pd, BUFSZ, DP_ACCESS_ALL, &b))
		_exit(12);
	o.srq = srq;
	o.max_send_wr = 32;
	ou.max_send_wr = 16;
	ou.max_recv_wr = 16;
	rc = dp_qp_create(pd, cq, cq, &o);
	ud = dp_qp_create(pd, cq, cq, &ou);
	ah = dp_ah(pd, gid, 0);
	if (!rc || !ud || !ah)
		_exit(13);
	if (dp_qp_init(ud, &ou) || dp_qp_rtr(ud, &ou, 0, gid, 0, 0) ||
	    dp_qp_rts(ud, &ou, 0))
		_exit(14);
	refill(srq, ud, &b);
	me.qpn = rc->qp_num;
	me.rkey = b.mr->rkey;
	me.addr = (uintptr_t)b.mem;
	if (write(wfd, &me, sizeof(me)) != sizeof(me) ||
	    read(rfd, &peer, sizeof(peer)) != sizeof(peer))
		_exit(15);
	if (dp_qp_connect(rc, &o, peer.qpn, gid, 0, 1, 1, false))
		_exit(16);
	for (n = 0;; n++) {
		struct pollfd p = { .fd = ch->fd, .events = POLLIN };
		uint32_t r = dp_rand(&rnd);
		size_t len = 1 + r % 65536;
		struct ibv_wc wc[16];
		struct dp_sgl s;
		struct dp_wr w = {
			.op = (enum ibv_wr_opcode[]){ IBV_WR_RDMA_WRITE,
				IBV_WR_RDMA_READ, IBV_WR_SEND }[n % 3],
			.wr_id = n, .sgl = &s, .rkey = peer.rkey,
			.raddr = peer.addr + 8192 + r % (BUFSZ / 2),
		};
		struct dp_wr wu = {
			.op = IBV_WR_SEND, .wr_id = n, .sgl = &s, .ah = ah,
			.rqpn = ud->qp_num, .qkey = DP_QKEY,
		};
		void *cq_ctx;
		struct ibv_cq *ecq;
		int k = r % NMR;

		dp_sgl_one(&b, BUFSZ / 2 + r % (BUFSZ / 4),
			   w.op == IBV_WR_SEND ? len % 4096 : len, &s);
		dp_post(rc, &w);
		dp_sgl_one(&b, 8192, r % 1024, &s);
		dp_post(ud, &wu);
		refill(srq, ud, &b);
		/* an MR comes, another goes, over part of the buffer */
		if (mrs[k])
			ibv_dereg_mr(mrs[k]);
		mrs[k] = ibv_reg_mr(pd, b.mem + (r >> 8) % 64 * 4096,
				    4096 * (1 + (r >> 16) % 64),
				    IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE);
		/* wait for a completion event, briefly */
		ibv_req_notify_cq(cq, 0);
		if (poll(&p, 1, 5) == 1 && !ibv_get_cq_event(ch, &ecq, &cq_ctx))
			ibv_ack_cq_events(ecq, 1);
		while ((k = ibv_poll_cq(cq, 16, wc)) > 0)
			while (k--)
				if (wc[k].status == IBV_WC_SUCCESS)
					(*completions)++;
	}
}

FIXTURE(storm) {
	struct rnic_genl *g;
	struct rnic_res_info *res;
};

FIXTURE_SETUP(storm)
{
	rnic_fixture_setup(_metadata, &self->g, &self->res, DEV, NULL);
}

FIXTURE_TEARDOWN(storm)
{
	rnic_fixture_teardown(_metadata, self->g, self->res);
}

TEST_F_TIMEOUT(storm, sigkill_workers, 3600)
{
	int rounds = dp_env_int("RNIC_STORM_ROUNDS", 40);
	uint64_t rnd = dp_seed(0x5707, 0, 0);
	struct rnic_link_info info;
	int round, k, running = 0;
	uint64_t left = 0;
	long start = dp_now_ms(), end;
	union ibv_gid gid;
	struct ibv_context *ctx;

	/* GID 0 of the device, which both workers use */
	ctx = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, ctx);
	ASSERT_EQ(0, ibv_query_gid(ctx, 1, 0, &gid));
	ASSERT_EQ(0, ibv_close_device(ctx));
	completions = mmap(NULL, sizeof(*completions), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, completions);

	for (round = 0; round < rounds; round++) {
		int up[2][2], down[2][2], status, i;
		struct peer_info pi[2];
		pid_t pid[2];

		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, pipe(up[i]));
			ASSERT_EQ(0, pipe(down[i]));
			pid[i] = fork();
			ASSERT_LE(0, pid[i]);
			if (pid[i] == 0) {
				close(up[i][0]);
				close(down[i][1]);
				worker(up[i][1], down[i][0], &gid,
				       dp_seed(0x5707, round, i));
			}
			close(up[i][1]);
			close(down[i][0]);
		}
		/* one round in four: kill at any moment, setup included */
		if (dp_rand(&rnd) % 4) {
			ASSERT_EQ(0, dp_read_within(up[0][0], &pi[0],
						    sizeof(pi[0]), 20000));
			ASSERT_EQ(0, dp_read_within(up[1][0], &pi[1],
						    sizeof(pi[1]), 20000));
			ASSERT_EQ(sizeof(pi[1]),
				  write(down[0][1], &pi[1], sizeof(pi[1])));
			ASSERT_EQ(sizeof(pi[0]),
				  write(down[1][1], &pi[0], sizeof(pi[0])));
			running++;
		}
		/* each worker dies at its own moment */
		for (i = 0; i < 2; i++) {
			usleep(dp_rand(&rnd) % 50000);
			kill(pid[i], SIGKILL);
		}
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
			close(up[i][0]);
			close(down[i][1]);
			/* a worker that stopped on its own is a failure */
			ASSERT_TRUE(WIFSIGNALED(status))
				TH_LOG("round %d: worker %d exited with %d",
				       round, i, WEXITSTATUS(status));
		}
	}
	/* Nothing is left: every count (pinned bytes too) back to zero. */
	end = dp_now_ms() + 10000;
	do {
		ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
		if (dp_res_empty(self->res))
			break;
		usleep(50000);
	} while (dp_now_ms() < end);
	for (k = 0; k < RNIC_RES_NR_KINDS; k++) {
		EXPECT_EQ(0, self->res->counts[k])
			TH_LOG("%s", rnic_res_kinds[k].name);
		if (k != RNIC_RES_PINNED)
			left += self->res->counts[k];
	}
	ASSERT_EQ(0, rnic_link_get(self->g, DEV, &info));
	EXPECT_EQ(0, info.contexts);
	EXPECT_LE(rounds / 2, running);
	/* the workers did move data before they died */
	EXPECT_LE(rounds, *completions);
	do_link_del(self->g, DEV);
	ksft_print_msg("storm: %d rounds (%d workers killed, %d rounds with "
		       "traffic running, %llu completions) in %.1f s, "
		       "objects left %llu, pinned bytes left %llu\n", rounds,
		       2 * rounds, running, (unsigned long long)*completions,
		       (dp_now_ms() - start) / 1000.0, (unsigned long long)left,
		       (unsigned long long)self->res->counts[RNIC_RES_PINNED]);
	fflush(stdout);	/* the harness ends the test with _exit() */
	munmap(completions, sizeof(*completions));
}

TEST_HARNESS_MAIN
