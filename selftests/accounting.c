// SPDX-License-Identifier: GPL-2.0
/*
 * What a user's objects cost that user (Documentation/admin-guide.rst,
 * "Accounting"):
 * - RLIMIT_MEMLOCK: a QP pins its rings and the kernel's private copy of
 *   its send queue plus its scratch structs (an RC QP without queues
 *   still costs two pages); the charge goes to the process that created the QP
 *   and comes back to it however the context ends (destroy, close from
 *   another process, close after the creator died); a QP whose ring fits
 *   the limit but whose ring and kernel copy do not is ENOMEM;
 * - the RDMA cgroup controller: rdma.max limits the contexts
 *   (hca_handle) and objects (hca_object) of a cgroup on an rnic device,
 *   EAGAIN beyond; rdma.current counts them and is back to 0 when the
 *   process is gone; the device is listed while it exists, and a device
 *   removed under open contexts leaves no count and no cgroup reference
 *   behind;
 * - the SQ polling thread: creating a polled QP needs CAP_SYS_NICE
 *   (EPERM without), nothing else does.
 * Raw ioctls, so that no ring is mapped: rings go with their objects.
 */
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "rnic_proc.h"
#include "rnic_test.h"

#define DEV "t_acct"
#define CGROOT "/tmp/rnic-acct-cg"
#define CGP CGROOT "/acct"
#define CG CGP "/c"

FIXTURE(acct) {
	struct rnic_genl *g;
	struct rnic_res_info *res;
	int fd;
};

FIXTURE_SETUP(acct)
{
	self->fd = -1;
	rnic_fixture_setup(_metadata, &self->g, &self->res, DEV, NULL);
	self->fd = rnic_open(DEV);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(acct)
{
	if (self->fd >= 0)
		close(self->fd);
	rnic_fixture_teardown(_metadata, self->g, self->res);
}

/* An RC QP with @swr send entries of 4 SGEs, no receive queue. */
static int _qp(int fd, __u32 pd, __u32 cq, __u32 swr, __u32 flags,
	       struct rnic_create_qp *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->flags = flags;
	c->pd_handle = pd;
	c->send_cq_handle = cq;
	c->recv_cq_handle = cq;
	c->qp_type = 2;	/* IBV_QPT_RC */
	c->cap.max_send_wr = swr;
	c->cap.max_send_sge = swr ? 4 : 0;
	return _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, c);
}

/* Pinned bytes of this process. */
static long pin(void)
{
	return vm_pin_kb() << 10;
}

static long pages(long bytes)
{
	return (bytes + 4095) & ~4095L;
}

TEST_F(acct, rc_qp_without_queues_costs_two_pages)
{
	struct rnic_create_qp c;
	__u32 pd, cq;
	long pin0;

	do_pd_and_cq(self->fd, &pd, &cq);
	pin0 = pin();
	ASSERT_EQ(0, _qp(self->fd, pd, cq, 0, 0, &c));
	ASSERT_EQ(0, c.out_sq.size);
	ASSERT_EQ(0, c.out_rq.size);
	/*
	 * its scratch structs (2.5 KiB), the responder's history of 64
	 * atomic answers (1 KiB) and its ring of 64 READ/atomic answers owed
	 * (3 KiB)
	 */
	EXPECT_EQ(pin0 + 2 * 4096, pin());
	do_destroy_qp(self->fd, c.out_handle);
	EXPECT_EQ(pin0, pin());
}

TEST_F(acct, qp_pins_ring_and_kernel_sq_copy)
{
	struct rnic_create_qp c;
	long pin0, shadow, copy;
	__u32 pd, cq;

	do_pd_and_cq(self->fd, &pd, &cq);
	pin0 = pin();
	ASSERT_EQ(0, _qp(self->fd, pd, cq, 1024, 0, &c));
	ASSERT_EQ(1024, c.out_sq.entries);
	ASSERT_EQ(0, c.out_rq.size);
	shadow = pin() - pin0 - (long)c.out_sq.size;
	/*
	 * A copy of every entry (with some private state each) and the
	 * scratch structs, in pages: more than the ring's entries, less
	 * than 128 bytes more per entry and a page.
	 */
	copy = (long)c.out_sq.entries * c.out_sq.entry_size;
	EXPECT_LE(pages(copy + 1), shadow)
		TH_LOG("ring %llu B, kernel copy %ld B", c.out_sq.size, shadow);
	EXPECT_GE(pages(copy + 128 * 1024 + 4096), shadow);
	do_destroy_qp(self->fd, c.out_handle);
	EXPECT_EQ(pin0, pin());
	/* and at close */
	ASSERT_EQ(0, _qp(self->fd, pd, cq, 1024, 0, &c));
	EXPECT_EQ(pin0 + (long)c.out_sq.size + shadow, pin());
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	EXPECT_EQ(0, pin());
}

/*
 * Unprivileged, a QP whose ring fits RLIMIT_MEMLOCK but whose ring and
 * kernel copy do not is ENOMEM; exactly its whole cost fits.
 */
TEST_F(acct, memlock_limit_counts_kernel_copy)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rlimit rl = { .rlim_max = 64 << 20 };
		struct rnic_create_qp c;
		long base, cost, ring;
		__u32 pd, cq;
		int ret = 0;

		if (_pd_and_cq(self->fd, &pd, &cq))
			_exit(100);
		/* what a QP costs, measured with CAP_IPC_LOCK */
		base = pin();
		if (_qp(self->fd, pd, cq, 1024, 0, &c))
			_exit(101);
		cost = pin() - base;
		ring = c.out_sq.size;
		if (_destroy_qp(self->fd, c.out_handle) || pin() != base)
			_exit(102);
		rl.rlim_cur = base + ring;
		if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgid(65534) ||
		    setuid(65534))
			_exit(103);
		errno = 0;
		if (_qp(self->fd, pd, cq, 1024, 0, &c) != -ENOMEM)
			ret |= 1;
		rl.rlim_cur = base + cost - 4096;
		if (setrlimit(RLIMIT_MEMLOCK, &rl) ||
		    _qp(self->fd, pd, cq, 1024, 0, &c) != -ENOMEM)
			ret |= 2;
		if (pin() != base)
			ret |= 4;
		rl.rlim_cur = base + cost;
		if (setrlimit(RLIMIT_MEMLOCK, &rl) ||
		    _qp(self->fd, pd, cq, 1024, 0, &c))
			ret |= 8;
		if (pin() != base + cost)
			ret |= 16;
		if (_destroy_qp(self->fd, c.out_handle) || pin() != base)
			ret |= 32;
		if (ret)
			ksft_print_msg("ring %ld B, QP %ld B in all\n", ring,
				       cost);
		_exit(ret);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* A child that waits for a byte (or EOF) on @rfd, then closes @fd. */
static pid_t closer(int fd, int rfd, int wfd)
{
	pid_t pid = fork();
	char b;

	if (pid)
		return pid;
	close(wfd);
	if (read(rfd, &b, 1) < 0)
		_exit(1);
	close(fd);
	/* nothing was charged to this process */
	_exit(vm_pin_kb() ? 2 : 0);
}

/*
 * The creator's pinned_vm pays, and is paid back when the last holder of
 * the context closes it, even from another process.
 */
static void __attribute__((noreturn)) creator(bool die_first)
{
	struct rnic_create_qp c;
	int fd, p[2], status;
	__u32 pd, cq;
	long charged;
	pid_t pid;

	fd = rnic_open(DEV);
	if (fd < 0 || _pd_and_cq(fd, &pd, &cq) ||
	    _qp(fd, pd, cq, 256, 0, &c) || pipe(p))
		_exit(100);
	charged = pin();
	pid = closer(fd, p[0], p[1]);
	if (pid < 0)
		_exit(101);
	if (die_first)
		_exit(0);	/* the closer sees EOF and closes after us */
	close(p[0]);
	close(fd);
	/* the closer still holds the context */
	if (pin() != charged)
		_exit(1);
	if (write(p[1], "x", 1) != 1 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		_exit(2);
	_exit(pin() ? 3 : 0);
}

TEST_F(acct, charge_follows_creator)
{
	int status, i;
	pid_t pid;

	/* orphaned closers come back to us */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	for (i = 0; i < 2; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			creator(i == 1);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("die first: %d", i);
	}
	/* the closer of the creator that died first */
	pid = wait(&status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_QP]);
	EXPECT_EQ(0, self->res->counts[RNIC_RES_CQ]);
	EXPECT_EQ(0, self->res->counts[RNIC_RES_PD]);
}

/*
 * capget(2)/capset(2) without libcap: make the effective and permitted
 * sets what they are with @drop cleared, or exactly @only if @drop is 0
 * (bit masks of CAP_*).
 */
static int caps_set(__u64 drop, __u64 only)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	__u64 caps;

	if (syscall(SYS_capget, &h, d))
		return -1;
	caps = drop ? ((__u64)d[1].permitted << 32 | d[0].permitted) & ~drop :
		      only;
	d[0].effective = d[0].permitted = caps;
	d[1].effective = d[1].permitted = caps >> 32;
	return syscall(SYS_capset, &h, d);
}

TEST_F(acct, sq_poll_needs_cap_sys_nice)
{
	int i, status;
	pid_t pid;

	for (i = 0; i < 2; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			struct rnic_create_qp c;
			__u32 pd, cq;
			int ret = 0;

			if (_pd_and_cq(self->fd, &pd, &cq))
				_exit(100);
			/*
			 * 0: root without CAP_SYS_NICE; 1: nobody with
			 * CAP_SYS_NICE alone.
			 */
			if (i == 0 && caps_set(1ull << CAP_SYS_NICE, 0))
				_exit(101);
			if (i == 1 && (prctl(PR_SET_KEEPCAPS, 1) ||
				       setgid(65534) || setuid(65534) ||
				       caps_set(0, 1ull << CAP_SYS_NICE)))
				_exit(102);
			ret = _qp(self->fd, pd, cq, 16, RNIC_CREATE_QP_SQ_POLL,
				  &c);
			if (i == 0 && ret != -EPERM)
				_exit(1);
			if (i == 1 && (ret || _destroy_qp(self->fd,
							   c.out_handle)))
				_exit(2);
			/* without polling, nothing is needed */
			if (_qp(self->fd, pd, cq, 16, 0, &c) ||
			    _destroy_qp(self->fd, c.out_handle))
				_exit(3);
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("case %d", i);
	}
}

/*
 * rdma.current of the test cgroup for DEV: 0 with the counts, -1 if the
 * device is not listed.
 */
static int rdma_current(int *handles, int *objects)
{
	char line[256];
	int ret = -1;
	FILE *f;

	f = fopen(CG "/rdma.current", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, DEV " hca_handle=%d hca_object=%d", handles,
			   objects) == 2)
			ret = 0;
	fclose(f);
	return ret;
}

/* Value of @key in the parent cgroup's cgroup.stat, -1 if unknown. */
static long cg_stat(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f;

	f = fopen(CGP "/cgroup.stat", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) &&
		    line[strlen(key)] == ' ')
			v = atol(line + strlen(key) + 1);
	fclose(f);
	return v;
}

static void cg_cleanup(void)
{
	rmdir(CG);
	rmdir(CGP);
	umount(CGROOT);
	rmdir(CGROOT);
}

/*
 * A cgroup CG with the rdma controller; 0, or -1 with a reason when the
 * controller is not there.
 */
static int cg_setup(char *why, size_t len)
{
	cg_cleanup();
	if (mkdir(CGROOT, 0755) || mount("none", CGROOT, "cgroup2", 0, NULL)) {
		snprintf(why, len, "cgroup2: %s", strerror(errno));
		return -1;
	}
	if (rnic_put_file(CGROOT "/cgroup.subtree_control", "+rdma")) {
		snprintf(why, len, "no rdma controller in cgroup2");
		return -1;
	}
	if (mkdir(CGP, 0755) ||
	    rnic_put_file(CGP "/cgroup.subtree_control", "+rdma") ||
	    mkdir(CG, 0755)) {
		snprintf(why, len, "cgroup: %s", strerror(errno));
		return -1;
	}
	return 0;
}

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			ksft_print_msg("child: line %d: %s\n", __LINE__, \
				       #cond);				\
			_exit(1);					\
		}							\
	} while (0)

#define NOBJ 3

/* In CG, limited to one context and NOBJ objects on DEV. */
static void __attribute__((noreturn)) rdmacg_child(int sync)
{
	struct rnic_create_cq cq;
	int fd, h, o, i;
	__u32 pd[NOBJ + 1];
	char b;

	CHECK(rnic_put_file(CG "/cgroup.procs", "%d", getpid()) == 0);
	fd = rnic_open(DEV);
	CHECK(fd >= 0);
	CHECK(rnic_open(DEV) == -EAGAIN);
	CHECK(rdma_current(&h, &o) == 0 && h == 1 && o == 0);
	for (i = 0; i < NOBJ; i++)
		CHECK(_alloc_pd(fd, &pd[i]) == 0);
	CHECK(_alloc_pd(fd, &pd[NOBJ]) == -EAGAIN);
	CHECK(rdma_current(&h, &o) == 0 && h == 1 && o == NOBJ);
	/* one goes, another comes */
	CHECK(_destroy(fd, RNIC_IOCTL_DEALLOC_PD, pd[0]) == 0);
	CHECK(rdma_current(&h, &o) == 0 && h == 1 && o == NOBJ - 1);
	CHECK(_alloc_pd(fd, &pd[0]) == 0);
	CHECK(_alloc_pd(fd, &pd[NOBJ]) == -EAGAIN);
	/* any kind counts: a CQ is an object too */
	CHECK(_destroy(fd, RNIC_IOCTL_DEALLOC_PD, pd[0]) == 0);
	CHECK(_create_cq(fd, 4, 0, 0, &cq) == 0);
	CHECK(_create_cq(fd, 4, 0, 0, &cq) == -EAGAIN);
	CHECK(rdma_current(&h, &o) == 0 && h == 1 && o == NOBJ);
	/* tell the parent, wait for it, exit with everything open */
	CHECK(write(sync, "x", 1) == 1);
	CHECK(read(sync, &b, 1) == 1);
	_exit(0);
}

TEST_F(acct, rdmacg_limits)
{
	int sv[2], status, h, o;
	char why[128], b;
	pid_t pid;

	if (cg_setup(why, sizeof(why))) {
		cg_cleanup();
		SKIP(return, "%s", why);
	}
	/* listed, with nothing counted yet */
	ASSERT_EQ(0, rdma_current(&h, &o));
	EXPECT_EQ(0, h);
	EXPECT_EQ(0, o);
	ASSERT_EQ(0, rnic_put_file(CG "/rdma.max",
				   DEV " hca_handle=1 hca_object=%d", NOBJ));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(sv[0]);
		rdmacg_child(sv[1]);
	}
	close(sv[1]);
	if (read(sv[0], &b, 1) == 1) {
		/* the child's objects, seen from outside */
		ASSERT_EQ(0, rdma_current(&h, &o));
		EXPECT_EQ(1, h);
		EXPECT_EQ(NOBJ, o);
		ASSERT_EQ(1, write(sv[0], "x", 1));
	}
	close(sv[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* the process is gone, and so are its charges */
	ASSERT_EQ(0, rdma_current(&h, &o));
	EXPECT_EQ(0, h);
	EXPECT_EQ(0, o);
	/* the device is listed while it exists */
	do_link_del(self->g, DEV);
	EXPECT_EQ(-1, rdma_current(&h, &o));
	cg_cleanup();
}

/*
 * Removed under a context with objects charged: the device leaves
 * rdma.current at once, closing afterwards releases the cgroup (no
 * dying cgroup left behind) and nothing warns.
 */
TEST_F(acct, rdmacg_removal_with_charges)
{
	int sv[2], status, h, o, i;
	char why[128], b;
	pid_t pid;

	if (cg_setup(why, sizeof(why))) {
		cg_cleanup();
		SKIP(return, "%s", why);
	}
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u32 pd, cq, pd2;
		int fd;

		close(sv[0]);
		CHECK(rnic_put_file(CG "/cgroup.procs", "%d", getpid()) == 0);
		fd = rnic_open(DEV);
		CHECK(fd >= 0);
		CHECK(_pd_and_cq(fd, &pd, &cq) == 0);
		CHECK(write(sv[1], "x", 1) == 1);
		/* the device is removed meanwhile */
		CHECK(read(sv[1], &b, 1) == 1);
		CHECK(_alloc_pd(fd, &pd2) == -ENODEV);
		/* one uncharge by a destroy, one by the close */
		CHECK(_destroy(fd, RNIC_IOCTL_DEALLOC_PD, pd) == 0);
		CHECK(close(fd) == 0);
		_exit(0);
	}
	close(sv[1]);
	ASSERT_EQ(1, read(sv[0], &b, 1));
	ASSERT_EQ(0, rdma_current(&h, &o));
	EXPECT_EQ(1, h);
	EXPECT_EQ(2, o);
	do_link_del(self->g, DEV);
	EXPECT_EQ(-1, rdma_current(&h, &o));
	ASSERT_EQ(1, write(sv[0], "x", 1));
	close(sv[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* every reference on the cgroup went with the charges */
	ASSERT_EQ(0, rmdir(CG));
	for (i = 0; i < 100 && cg_stat("nr_dying_descendants"); i++)
		usleep(50000);
	EXPECT_EQ(0, cg_stat("nr_dying_descendants"));
	cg_cleanup();
}

TEST_HARNESS_MAIN
