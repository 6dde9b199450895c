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
 * kernel must not warn, and rmmod afterwards (tools/dev/vm/run) must find
 * nothing left.
 *
 * Also here: the removed device stops (rmstop: its WQEs flushed, its
 * polling thread gone, its peers' packets lost), and deleting the netdev
 * does not wait under rtnl_lock for an ioctl stuck on a page fault.
 */
#include <dirent.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

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
	/*
	 * Both connected before either sends: a request that finds the peer
	 * still before RTR is lost, and seven 1 ms retries are soon spent on
	 * a busy TCG guest.
	 */
	CHECK(write(wfd, &me, 1) == 1 && read(rfd, &me, 1) == 1, 20);
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

/*
 * A clean slate, then DEV: bound to a new dummy netdev when the test
 * removes it by deleting the netdev, unbound otherwise.
 */
#define rm_dev_add(g, how) do {						\
	rnic_fixture_setup(_metadata, &(g), NULL, NULL, NULL);		\
	rnic_sh("ip link del " NETDEV " 2>/dev/null");			\
	if ((how) == NETDEV_DEL) {					\
		ASSERT_EQ(0, rnic_sh("ip link add " NETDEV " type dummy && " \
				     "ip link set " NETDEV " up"));	\
		do_link_add(g, DEV, NETDEV);				\
	} else {							\
		do_link_add(g, DEV, NULL);				\
	}								\
} while (0)

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
	rm_dev_add(self->g, variant->how);
	progress = mmap(NULL, 2 * sizeof(*progress), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, progress);
}

FIXTURE_TEARDOWN(rm)
{
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
	rnic_fixture_teardown(_metadata, self->g, NULL);
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
	char c = 0;
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
	/* the workers start sending when both are connected */
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, dp_read_within(up[i][0], &c, 1, 20000))
			TH_LOG("worker %d did not connect", i);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(1, write(down[i][1], &c, 1));
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

/*
 * Removal stops the device: a QP of the removed device (A, polled by the
 * SQ thread) talks to a QP of another device (B). A stream runs both ways,
 * then A is left with receives posted and (RC) sends that the peer keeps
 * refusing with RNR NAKs. After the removal, the CQ that A's process
 * mapped shows every one of those WQEs as IBV_WC_WR_FLUSH_ERR without any
 * system call, the polling thread is gone, calls fail with ENODEV, and
 * the device is gone from netlink. A send from B to A afterwards finds no
 * one: RC fails with IBV_WC_RETRY_EXC_ERR by B's own timer, UD is lost
 * (A's CQ shows no receive).
 */
#define DEV2 "t_rm2"
#define NRECV 8
#define NSEND 4
#define MSG 64

FIXTURE(rmstop) {
	struct rnic_genl *g;
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct ibv_cq *cq[2];
	struct dp_buf b[2];
	struct ibv_qp *qp[2];
	struct ibv_ah *ah[2];
	union ibv_gid gid[2];
	struct dp_qp_opts o;
};

FIXTURE_VARIANT(rmstop) {
	enum how how;
	enum ibv_qp_type type;
};

FIXTURE_VARIANT_ADD(rmstop, rc_link_del) {
	.how = LINK_DEL,
	.type = IBV_QPT_RC,
};

FIXTURE_VARIANT_ADD(rmstop, rc_netdev_del) {
	.how = NETDEV_DEL,
	.type = IBV_QPT_RC,
};

FIXTURE_VARIANT_ADD(rmstop, ud_link_del) {
	.how = LINK_DEL,
	.type = IBV_QPT_UD,
};

FIXTURE_VARIANT_ADD(rmstop, ud_netdev_del) {
	.how = NETDEV_DEL,
	.type = IBV_QPT_UD,
};

/* Does a thread named (rnic-sqpoll/@index) run? */
static bool poller_exists(unsigned int index)
{
	char want[64], path[300], buf[512];
	bool found = false;
	struct dirent *e;
	DIR *d;

	snprintf(want, sizeof(want), "(rnic-sqpoll/%u) ", index);
	d = opendir("/proc");
	while (d && !found && (e = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = fgets(buf, sizeof(buf), f) && strstr(buf, want);
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

FIXTURE_SETUP(rmstop)
{
	const char *devs[2] = { DEV, DEV2 };
	int i;

	rm_dev_add(self->g, variant->how);
	do_link_add(self->g, DEV2, NULL);

	self->o = dp_opts(variant->type);
	/* B gives up after 3 tries of about 1 ms; A retries RNR forever. */
	self->o.timeout = 8;
	self->o.retry_cnt = 2;
	/* B's RNR NAKs ask for a pause of about 2 ms, not a busy loop. */
	self->o.min_rnr_timer = 14;
	for (i = 0; i < 2; i++) {
		self->ctx[i] = do_ptr(rnic_ibv_open(devs[i]));
		ASSERT_EQ(0, ibv_query_gid(self->ctx[i], 1, 0, &self->gid[i]));
		self->pd[i] = do_ptr(ibv_alloc_pd(self->ctx[i]));
		self->cq[i] = do_ptr(ibv_create_cq(self->ctx[i], 256, NULL,
						   NULL, 0));
		ASSERT_EQ(0, dp_buf_alloc(self->pd[i], 1 << 16, DP_ACCESS_ALL,
					  &self->b[i]));
		/* A is polled by its device's SQ thread. */
		if (!i)
			ASSERT_EQ(0, setenv("RNIC_SQ_POLL", "1", 1));
		self->qp[i] = dp_qp_create(self->pd[i], self->cq[i],
					   self->cq[i], &self->o);
		unsetenv("RNIC_SQ_POLL");
		ASSERT_NE(NULL, self->qp[i]);
	}
	for (i = 0; i < 2; i++) {
		if (variant->type == IBV_QPT_UD) {
			ASSERT_EQ(0, dp_qp_init(self->qp[i], &self->o));
			ASSERT_EQ(0, dp_qp_rtr(self->qp[i], &self->o, 0,
					       &self->gid[!i], 0, 0));
			ASSERT_EQ(0, dp_qp_rts(self->qp[i], &self->o, 1));
			self->ah[i] = do_ptr(dp_ah(self->pd[i],
						   &self->gid[!i], 0));
		} else {
			self->o.rnr_retry = i ? 2 : 7;
			ASSERT_EQ(0, dp_qp_connect(self->qp[i], &self->o,
						   self->qp[!i]->qp_num,
						   &self->gid[!i], 0, 100, 100,
						   false));
		}
	}
}

FIXTURE_TEARDOWN(rmstop)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (self->ah[i])
			EXPECT_EQ(0, ibv_destroy_ah(self->ah[i]));
		if (self->qp[i])
			EXPECT_EQ(0, ibv_destroy_qp(self->qp[i]));
		if (self->b[i].mr)
			EXPECT_EQ(0, dp_buf_free(&self->b[i]));
		if (self->cq[i])
			EXPECT_EQ(0, ibv_destroy_cq(self->cq[i]));
		if (self->pd[i])
			EXPECT_EQ(0, ibv_dealloc_pd(self->pd[i]));
		if (self->ctx[i])
			EXPECT_EQ(0, ibv_close_device(self->ctx[i]));
	}
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
	rnic_fixture_teardown(_metadata, self->g, NULL);
}

/* Side @i sends one MSG-byte message to the other; 0 or an errno value. */
static int rm_send(struct _test_data_rmstop *self, int i, uint64_t wr_id)
{
	struct dp_sgl s;
	struct dp_wr w = {
		.op = IBV_WR_SEND,
		.wr_id = wr_id,
		.sgl = &s,
		.ah = self->ah[i],
		.rqpn = self->qp[!i]->qp_num,
		.qkey = DP_QKEY,
	};

	dp_sgl_one(&self->b[i], 0, MSG, &s);
	return dp_post(self->qp[i], &w);
}

/* Side @i posts a receive with room for a GRH and a message. */
static int rm_recv(struct _test_data_rmstop *self, int i, uint64_t wr_id)
{
	struct dp_sgl s;

	dp_sgl_one(&self->b[i], 4096, 4096, &s);
	return dp_post_recv(self->qp[i], &s, wr_id);
}

TEST_F_TIMEOUT(rmstop, flushes_and_stops, 60)
{
	struct ibv_wc wc[NRECV + NSEND + 1];
	int i, n, want, nrecv = 0, nsend = 0;
	struct ibv_async_event ev;
	struct rnic_link_info info;
	char uverbs[32];
	unsigned int index;
	uint64_t k;

	ASSERT_EQ(0, rnic_sysfs_read(DEV, "uverbs", uverbs, sizeof(uverbs)));
	ASSERT_EQ(1, sscanf(uverbs, "uverbs%u", &index));
	index -= RNIC_UVERBS_BASE;

	/* A stream both ways: every message arrives. */
	for (k = 0; k < 32; k++) {
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, rm_recv(self, !i, k));
			ASSERT_EQ(0, rm_send(self, i, k));
		}
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(2, dp_poll(self->cq[i], 2, wc, DP_TIMEOUT_MS));
			ASSERT_EQ(IBV_WC_SUCCESS, wc[0].status);
			ASSERT_EQ(IBV_WC_SUCCESS, wc[1].status);
		}
	}
	ASSERT_TRUE(poller_exists(index));

	/* Work left on A: receives; RC: sends B refuses (no receive). */
	for (k = 0; k < NRECV; k++)
		ASSERT_EQ(0, rm_recv(self, 0, 1000 + k));
	if (variant->type == IBV_QPT_RC) {
		for (k = 0; k < NSEND; k++)
			ASSERT_EQ(0, rm_send(self, 0, 2000 + k));
		ASSERT_QUIET(self->cq[0]);
	}

	if (variant->how == NETDEV_DEL) {
		ASSERT_EQ(0, rnic_sh("ip link del " NETDEV));
	} else {
		do_link_del(self->g, DEV);
	}

	/* Every WQE flushed, on the mapped CQ: no system call involved. */
	want = variant->type == IBV_QPT_RC ? NRECV + NSEND : NRECV;
	n = dp_poll(self->cq[0], want, wc, 5000);
	EXPECT_EQ(want, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status)
			TH_LOG(DP_WC_FMT, DP_WC_ARGS(&wc[i]));
		/* in posting order on each queue */
		if (wc[i].wr_id >= 2000) {
			EXPECT_EQ(2000 + nsend++, wc[i].wr_id);
		} else {
			EXPECT_EQ(1000 + nrecv++, wc[i].wr_id);
		}
	}
	EXPECT_EQ(NRECV, nrecv);
	EXPECT_EQ(want - NRECV, nsend);
	/* The polling thread is gone at once. */
	EXPECT_FALSE(poller_exists(index));
	/* IBV_EVENT_DEVICE_FATAL, once (removal raises it in both steps). */
	EXPECT_EQ(0, dp_wait_async(self->ctx[0], IBV_EVENT_DEVICE_FATAL,
				   5000, &ev));
	EXPECT_EQ(-ETIMEDOUT, dp_wait_async(self->ctx[0],
					    IBV_EVENT_DEVICE_FATAL, 300, &ev));

	/* Calls fail; the device is gone from sysfs and netlink. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_pd(self->ctx[0]));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, dp_qp_state(self->qp[0]));
	EXPECT_FALSE(rnic_sysfs_exists(DEV));
	EXPECT_EQ(-ENODEV, rnic_link_get(self->g, DEV, &info));
	ASSERT_EQ(0, rnic_link_get(self->g, DEV2, &info));

	/* B's next message reaches no one. */
	ASSERT_EQ(0, rm_send(self, 1, 3000));
	ASSERT_EQ(1, dp_poll(self->cq[1], 1, wc, 5000));
	if (variant->type == IBV_QPT_RC) {
		ASSERT_WC(&wc[0], 3000, IBV_WC_RETRY_EXC_ERR, 0);
	} else {
		ASSERT_WC(&wc[0], 3000, IBV_WC_SUCCESS, IBV_WC_SEND);
	}
	ASSERT_QUIET(self->cq[0]);
}

/*
 * The netdev of a device goes while an ioctl of one of its contexts is
 * stuck on a page fault that a userfaultfd (standing in for FUSE) does
 * not serve: REG_MR writing its answer back into a write-protected page.
 * (Linux 6.1 does not let a userfaultfd hold up the long-term pinning
 * itself: that fault fails at once.) The ioctl holds the device's
 * live_rwsem for reading, and the removal must not wait for it under
 * rtnl_lock: `ip link del` returns at once and the device is gone. Once
 * the fault is served the ioctl, which began on a live device, completes;
 * its MR can be deregistered, and nothing stays pinned.
 */
struct uffd_reg {
	int fd;
	struct rnic_reg_mr *cmd;
	int ret;
};

static void *uffd_reg_mr(void *arg)
{
	struct uffd_reg *r = arg;

	r->ret = _rnic_ioctl(r->fd, RNIC_IOCTL_REG_MR, r->cmd);
	return NULL;
}

/*
 * Run @cmd for at most @ms: its exit status, or -ETIMEDOUT with the
 * child still running as *@pid.
 */
static int sh_within(const char *cmd, int ms, pid_t *pid)
{
	long end = dp_now_ms() + ms;
	int status;

	*pid = fork();
	if (*pid < 0)
		return -errno;
	if (!*pid) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (dp_now_ms() < end) {
		if (waitpid(*pid, &status, WNOHANG) == *pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

TEST(netdev_del_while_an_ioctl_is_stuck)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_PAGEFAULT_FLAG_WP,
	};
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	struct rnic_alloc_pd pd = { .size = sizeof(pd) };
	struct rnic_destroy dereg = { .size = sizeof(dereg) };
	size_t page = getpagesize();
	struct rnic_link_info info;
	struct uffd_reg r = { 0 };
	struct uffd_msg msg;
	struct rnic_genl *g;
	struct pollfd pfd;
	int uffd, st, status, linked;
	char *mem, *cmdpage;
	long took;
	pthread_t t;
	pid_t pid;
	bool gone;

	rnic_fixture_setup(_metadata, &g, NULL, NULL, NULL);
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
	ASSERT_EQ(0, rnic_sh("ip link add " NETDEV " type dummy"));
	do_link_add(g, DEV, NETDEV);
	r.fd = rnic_open(DEV);
	ASSERT_LE(0, r.fd);
	do_ioctl(r.fd, RNIC_IOCTL_ALLOC_PD, &pd);

	mem = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	cmdpage = mem + page;
	mem[0] = 1;
	r.cmd = (struct rnic_reg_mr *)cmdpage;
	*r.cmd = (struct rnic_reg_mr){
		.size = sizeof(*r.cmd),
		.pd_handle = pd.out_handle,
		.access = IBV_ACCESS_LOCAL_WRITE,
		.addr = (uintptr_t)mem,
		.length = page,
		.iova = (uintptr_t)mem,
	};

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, uffd) TH_LOG("userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	reg.range.start = (uintptr_t)cmdpage;
	reg.range.len = page;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));
	wp.range = reg.range;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_WRITEPROTECT, &wp));

	/* REG_MR pins, answers into the protected page, and waits for us. */
	ASSERT_EQ(0, pthread_create(&t, NULL, uffd_reg_mr, &r));
	pfd = (struct pollfd){ .fd = uffd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);
	ASSERT_TRUE(msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP);

	took = dp_now_ms();
	st = sh_within("ip link del " NETDEV, 5000, &pid);
	took = dp_now_ms() - took;
	/* (A removal still running would block the netlink query.) */
	gone = !st && !rnic_sysfs_exists(DEV);
	linked = st ? 0 : rnic_link_get(g, DEV, &info);

	/* Serve the fault, whatever happened: the ioctl goes on. */
	wp.mode = 0;
	EXPECT_EQ(0, ioctl(uffd, UFFDIO_WRITEPROTECT, &wp));
	ASSERT_EQ(0, pthread_join(t, NULL));
	close(uffd);
	if (st == -ETIMEDOUT)
		waitpid(pid, &status, 0);

	ASSERT_EQ(0, st) TH_LOG("ip link del: still running after 5 s");
	ksft_print_msg("ip link del returned after %ld ms\n", took);
	EXPECT_TRUE(gone);
	EXPECT_EQ(-ENODEV, linked);
	/* It began on a live device: it completes, and can be undone. */
	ASSERT_EQ(0, r.ret);
	EXPECT_LT(0, vm_pin_kb());
	dereg.handle = r.cmd->out_handle;
	EXPECT_EQ(0, _rnic_ioctl(r.fd, RNIC_IOCTL_DEREG_MR, &dereg));
	EXPECT_EQ(0, vm_pin_kb());
	/* A new call finds the device removed. */
	pd.out_handle = 0;
	EXPECT_EQ(-ENODEV, _rnic_ioctl(r.fd, RNIC_IOCTL_ALLOC_PD, &pd));
	EXPECT_EQ(0, close(r.fd));
	munmap(mem, 2 * page);
	rnic_fixture_teardown(_metadata, g, NULL);
	fflush(stdout);
}

TEST_HARNESS_MAIN
