// SPDX-License-Identifier: GPL-2.0
/*
 * Device removal under load: two processes move data over RC (WRITE,
 * READ, empty SENDs into receives) with their CQ armed on a completion
 * channel, and the device goes away under them: by `rnic link del`
 * (netlink) or by deleting the dummy netdev it is bound to. Each process
 * must get IBV_EVENT_DEVICE_FATAL on its async fd; then calls that
 * create or change something fail with ENODEV (ABI: "the device was
 * removed"), while every destroy call and closing the context still
 * succeed, and the process' pinned memory (VmPin) is back to 0. The
 * kernel must not warn, and rmmod afterwards (tools/vm/run) must find
 * nothing left.
 */
#include "rnic_dp_test.h"

#define DEV "t_rm"
#define NETDEV "t_rmdummy"
#define BUFSZ (1 << 20)

enum how { LINK_DEL, NETDEV_DEL };

/* What the parent passes between the two workers. */
struct peer_info {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
};

/* What a worker found; step is 0 or the first check that failed. */
struct report {
	int step;
	int err;		/* errno of that check */
	uint64_t completions;	/* successful ones before the removal */
	long pin_before;	/* kB pinned while running */
};

/* Progress of the workers, in memory shared with the parent. */
static _Atomic uint64_t *progress;

#define CHECK(cond, n) do {						\
	if (!(cond)) {							\
		r.step = (n);						\
		r.err = errno;						\
		goto out;						\
	}								\
} while (0)

/* A worker: traffic until DEVICE_FATAL, then the checks; never returns. */
static void __attribute__((noreturn))
worker(int wfd, int rfd, const union ibv_gid *gid, int id)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_context *ctx = rnic_ibv_open(DEV);
	struct ibv_comp_channel *ch = NULL;
	struct ibv_async_event ev;
	struct peer_info me, peer;
	struct report r = { 0 };
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_pd *pd = NULL;
	struct dp_buf b = { 0 };
	struct ibv_device_attr da;
	uint64_t n;

	CHECK(ctx, 1);
	pd = ibv_alloc_pd(ctx);
	ch = ibv_create_comp_channel(ctx);
	CHECK(pd && ch, 2);
	cq = ibv_create_cq(ctx, 256, NULL, ch, 0);
	CHECK(cq && !dp_buf_alloc(pd, BUFSZ, DP_ACCESS_ALL, &b), 3);
	o.max_send_wr = 16;
	o.max_recv_wr = 64;
	o.timeout = 8;
	qp = dp_qp_create(pd, cq, cq, &o);
	CHECK(qp, 4);
	me.qpn = qp->qp_num;
	me.rkey = b.mr->rkey;
	me.addr = (uintptr_t)b.mem;
	CHECK(write(wfd, &me, sizeof(me)) == sizeof(me) &&
	      read(rfd, &peer, sizeof(peer)) == sizeof(peer), 5);
	CHECK(!dp_qp_connect(qp, &o, peer.qpn, gid, 0, 7, 7, false), 6);
	r.pin_before = vm_pin_kb();
	for (n = 0;; n++) {
		struct pollfd p[2] = {
			{ .fd = ctx->async_fd, .events = POLLIN },
			{ .fd = ch->fd, .events = POLLIN },
		};
		struct dp_sgl s;
		struct dp_wr w = {
			.op = (enum ibv_wr_opcode[]){ IBV_WR_RDMA_WRITE,
				IBV_WR_RDMA_READ, IBV_WR_SEND }[n % 3],
			.wr_id = n, .sgl = &s, .rkey = peer.rkey,
			.raddr = peer.addr + (n % 8) * 65536,
		};
		struct ibv_wc wc[16];
		struct ibv_cq *ecq;
		void *cq_ctx;
		int k;

		dp_sgl_one(&b, BUFSZ / 2 + (n % 8) * 65536,
			   w.op == IBV_WR_SEND ? 0 : 1 + n % 65536, &s);
		dp_post_recv(qp, NULL, n);
		dp_post(qp, &w);
		ibv_req_notify_cq(cq, 0);
		if (poll(p, 2, 10) > 0) {
			if (p[0].revents & POLLIN)
				break;
			if (!ibv_get_cq_event(ch, &ecq, &cq_ctx))
				ibv_ack_cq_events(ecq, 1);
		}
		while ((k = ibv_poll_cq(cq, 16, wc)) > 0)
			while (k--)
				if (wc[k].status == IBV_WC_SUCCESS) {
					r.completions++;
					progress[id]++;
				}
	}
	/* The event: DEVICE_FATAL (the QP may have had its own before). */
	CHECK(!dp_wait_async(ctx, IBV_EVENT_DEVICE_FATAL, 10000, &ev), 7);
	/* Nothing new on a removed device. */
	errno = 0;
	CHECK(!ibv_alloc_pd(ctx) && errno == ENODEV, 8);
	errno = 0;
	CHECK(!ibv_create_cq(ctx, 16, NULL, NULL, 0) && errno == ENODEV, 9);
	errno = 0;
	CHECK(!ibv_reg_mr(pd, b.mem, 4096, IBV_ACCESS_LOCAL_WRITE) &&
	      errno == ENODEV, 10);
	CHECK(ibv_query_device(ctx, &da) == ENODEV, 11);
	CHECK(dp_qp_modify_state(qp, IBV_QPS_ERR) == ENODEV, 12);
	/* Everything can be destroyed, and the pages are let go. */
	errno = 0;
	CHECK(!ibv_destroy_qp(qp), 13);
	CHECK(!dp_buf_free(&b), 14);
	CHECK(!ibv_destroy_cq(cq), 15);
	CHECK(!ibv_destroy_comp_channel(ch), 16);
	CHECK(!ibv_dealloc_pd(pd), 17);
	CHECK(!ibv_close_device(ctx), 18);
	CHECK(vm_pin_kb() == 0, 19);
out:
	if (write(wfd, &r, sizeof(r)) != sizeof(r))
		_exit(2);
	_exit(r.step ? 1 : 0);
}

FIXTURE(rm) {
	struct rnic_genl *g;
};

FIXTURE_VARIANT(rm) {
	enum how how;
};

FIXTURE_VARIANT_ADD(rm, link_del) {
	.how = LINK_DEL,
};

FIXTURE_VARIANT_ADD(rm, netdev_del) {
	.how = NETDEV_DEL,
};

FIXTURE_SETUP(rm)
{
	self->g = rnic_genl_open();
	ASSERT_NE(NULL, self->g);
	ASSERT_EQ(0, rnic_del_all(self->g));
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
	if (variant->how == NETDEV_DEL) {
		ASSERT_EQ(0, rnic_sh("ip link add " NETDEV " type dummy && "
				     "ip link set " NETDEV " up"));
		do_link_add(self->g, DEV, NETDEV);
	} else {
		do_link_add(self->g, DEV, NULL);
	}
	progress = mmap(NULL, 2 * sizeof(*progress), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, progress);
}

FIXTURE_TEARDOWN(rm)
{
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
	EXPECT_EQ(0, rnic_del_all(self->g));
	rnic_genl_close(self->g);
	munmap(progress, 2 * sizeof(*progress));
}

TEST_F_TIMEOUT(rm, under_load, 120)
{
	int up[2][2], down[2][2], status, i;
	struct peer_info pi[2];
	struct report r[2];
	union ibv_gid gid;
	struct ibv_context *ctx;
	uint64_t seen[2];
	pid_t pid[2];
	long end;

	ctx = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, ctx);
	ASSERT_EQ(0, ibv_query_gid(ctx, 1, 0, &gid));
	ASSERT_EQ(0, ibv_close_device(ctx));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pipe(up[i]));
		ASSERT_EQ(0, pipe(down[i]));
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			close(up[i][0]);
			close(down[i][1]);
			worker(up[i][1], down[i][0], &gid, i);
		}
		close(up[i][1]);
		close(down[i][0]);
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, dp_read_within(up[i][0], &pi[i], sizeof(pi[i]),
					    20000));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(sizeof(pi[0]), write(down[i][1], &pi[!i],
					       sizeof(pi[0])));
	/* both move data, and keep moving it */
	end = dp_now_ms() + 20000;
	while ((progress[0] < 100 || progress[1] < 100) && dp_now_ms() < end)
		usleep(10000);
	ASSERT_LE(100, progress[0]);
	ASSERT_LE(100, progress[1]);
	seen[0] = progress[0];
	seen[1] = progress[1];
	usleep(100000);
	ASSERT_LT(seen[0], progress[0]);
	ASSERT_LT(seen[1], progress[1]);

	if (variant->how == NETDEV_DEL) {
		ASSERT_EQ(0, rnic_sh("ip link del " NETDEV));
	} else {
		do_link_del(self->g, DEV);
	}
	EXPECT_FALSE(rnic_sysfs_exists(DEV));

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, dp_read_within(up[i][0], &r[i], sizeof(r[i]),
					    30000)) TH_LOG("worker %d silent", i);
		EXPECT_EQ(0, r[i].step)
			TH_LOG("worker %d: check %d failed (%s)", i,
			       r[i].step, strerror(r[i].err));
		EXPECT_LT(0, r[i].pin_before);
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		close(up[i][0]);
		close(down[i][1]);
	}
	ksft_print_msg("%s: %llu and %llu completions before the removal\n",
		       variant->how == NETDEV_DEL ? "netdev del" : "link del",
		       (unsigned long long)r[0].completions,
		       (unsigned long long)r[1].completions);
	fflush(stdout);	/* the harness ends the test with _exit() */
}

TEST_HARNESS_MAIN
