// SPDX-License-Identifier: GPL-2.0
/*
 * The SQ polling thread (RNIC_SQ_POLL, DOC "rnic send doorbell"):
 *
 * - posting receives (QP and SRQ), polling and arming CQs make no system
 *   call, and neither does posting sends to a polled QP while the thread
 *   is awake; without polling, a post makes exactly one (the kick). A
 *   child counts system calls with a seccomp filter that traps every one;
 * - the thread goes idle while the only work it has cannot start (a SEND
 *   posted in SQD), and that work starts back in RTS;
 * - a QP created while the thread sleeps gets its first post kicked, and
 *   so does a QP reset while the thread sleeps, whose producer index comes
 *   back to where the thread last saw it;
 * - no wake-up is lost: several threads, each with a loopback RC pair of
 *   polled QPs, post bursts of RDMA WRITEs and SENDs after random pauses
 *   of up to three idle periods of the thread, one by one at random
 *   intervals or as one list, so that posts race with the thread going to
 *   sleep, and check that every work request completes in time, with the
 *   right data. Each has a device (and a thread) of its own, so that no
 *   other worker's kick hides a lost wake-up; in another run they share
 *   one device, and their QPs come and go.
 *
 * The idle period is the module parameter sq_poll_idle_us, which the tests
 * change and restore.
 */
#include <dirent.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>

#include "rnic_verbs_test.h"

#define DEV "t_poll"
#define IDLE_PARAM "/sys/module/rnic/parameters/sq_poll_idle_us"
#define ENV_POLL "RNIC_SQ_POLL"

/* Buffers: NSLOTS slots of SLOT bytes to send from, to write to, to receive. */
#define SLOT 256
#define NSLOTS 8
#define SRC_OFF 0
#define WRITE_OFF (NSLOTS * SLOT)
#define RECV_OFF (2 * NSLOTS * SLOT)
#define BUF_SIZE (3 * NSLOTS * SLOT)
/* A completion not there after this long was lost. */
#define WAIT_MS 10000

static int read_idle(unsigned int *us)
{
	FILE *f = fopen(IDLE_PARAM, "r");
	int ret;

	if (!f)
		return -errno;
	ret = fscanf(f, "%u", us) == 1 ? 0 : -EINVAL;
	fclose(f);
	return ret;
}

static int write_idle(unsigned int us)
{
	FILE *f = fopen(IDLE_PARAM, "w");

	if (!f)
		return -errno;
	fprintf(f, "%u\n", us);
	return fclose(f) ? -errno : 0;
}

/* One QP of a loopback pair, with its CQ and its registered buffer. */
struct side {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
};

/* Two RC QPs of one context connected to each other. */
struct pair {
	struct ibv_pd *pd;
	struct side s[2];
};

static int side_open(struct ibv_pd *pd, struct ibv_srq *srq, struct side *s)
{
	struct ibv_qp_init_attr init = {
		.srq = srq,
		.cap = { .max_send_wr = 2 * NSLOTS, .max_recv_wr = 2 * NSLOTS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	s->buf = aligned_alloc(4096, BUF_SIZE);
	if (!s->buf)
		return ENOMEM;
	memset(s->buf, 0, BUF_SIZE);
	s->mr = ibv_reg_mr(pd, s->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!s->mr)
		return errno;
	s->cq = ibv_create_cq(pd->context, 4 * NSLOTS, NULL, NULL, 0);
	if (!s->cq)
		return errno;
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ibv_create_qp(pd, &init);
	return s->qp ? 0 : errno;
}

/* Move @qp to RTS, talking to QP @dqpn at @gid; 0 or an errno value. */
static int qp_connect(struct ibv_qp *qp, uint32_t dqpn, const union ibv_gid *gid)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0x1000;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = 0;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x1000;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * A connected pair on @ctx; polled if RNIC_SQ_POLL is set now. With @srq,
 * side 1 receives from it. 0 or an errno value.
 */
static int pair_open(struct ibv_context *ctx, struct ibv_pd *pd,
		     struct ibv_srq *srq, struct pair *p)
{
	union ibv_gid gid;
	int ret;

	memset(p, 0, sizeof(*p));
	p->pd = pd;
	ret = ibv_query_gid(ctx, 1, 0, &gid);
	if (ret)
		return ret;
	ret = side_open(pd, NULL, &p->s[0]);
	if (!ret)
		ret = side_open(pd, srq, &p->s[1]);
	if (!ret)
		ret = qp_connect(p->s[0].qp, p->s[1].qp->qp_num, &gid);
	if (!ret)
		ret = qp_connect(p->s[1].qp, p->s[0].qp->qp_num, &gid);
	return ret;
}

static void pair_close(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct side *s = &p->s[i];

		if (s->qp)
			ibv_destroy_qp(s->qp);
		if (s->cq)
			ibv_destroy_cq(s->cq);
		if (s->mr)
			ibv_dereg_mr(s->mr);
		free(s->buf);
	}
	memset(p, 0, sizeof(*p));
}

static int post_recv_slot(struct side *s, struct ibv_srq *srq, int slot,
			  uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + RECV_OFF + slot * SLOT,
		.length = SLOT,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (srq)
		return ibv_post_srq_recv(srq, &wr, &bad);
	return ibv_post_recv(s->qp, &wr, &bad);
}

/* Fill @wr to send or write slot @slot of @from to the same slot of @to. */
static void fill_send(struct ibv_send_wr *wr, struct ibv_sge *sge,
		      struct side *from, struct side *to, bool write, int slot,
		      uint64_t wr_id)
{
	sge->addr = (uintptr_t)from->buf + SRC_OFF + slot * SLOT;
	sge->length = SLOT;
	sge->lkey = from->mr->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
	if (write) {
		wr->opcode = IBV_WR_RDMA_WRITE;
		wr->wr.rdma.remote_addr = (uintptr_t)to->buf + WRITE_OFF +
					  slot * SLOT;
		wr->wr.rdma.rkey = to->mr->rkey;
	} else {
		wr->opcode = IBV_WR_SEND;
	}
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Take @n completions off @cq into @wc, waiting up to WAIT_MS: how many. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	struct timespec t0;
	int got = 0, ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < n) {
		ret = ibv_poll_cq(cq, n - got, wc + got);
		if (ret < 0)
			break;
		got += ret;
		if (got < n) {
			if (ms_since(&t0) > WAIT_MS)
				break;
			sched_yield();
		}
	}
	return got;
}

/* The bytes of slot @slot in round @round of worker @id. */
static void fill_pattern(char *p, int id, int round, int slot)
{
	int i;

	for (i = 0; i < SLOT; i++)
		p[i] = (char)(id * 31 + round * 7 + slot * 3 + i);
}

/* First failure of a worker or child, for the report. */
struct failure {
	char msg[200];
};

/* Record the failure; -1. */
static int __attribute__((format(printf, 2, 3)))
fail(struct failure *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Busy-wait @us microseconds: finer than a sleep. */
static void spin_us(unsigned int us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

/*
 * One round on @p: @n work requests from side @from to the other, each an
 * RDMA WRITE or a SEND at random, posted in one list or one by one (up to
 * @spread_us apart); wait for every completion on both sides and check
 * the bytes. 0 or -1 with @f filled.
 */
static int burst(struct pair *p, struct ibv_srq *srq, int from, int id,
		 int round, int n, unsigned int spread_us, unsigned int *seed,
		 struct failure *f)
{
	struct side *src = &p->s[from], *dst = &p->s[!from];
	struct ibv_send_wr wr[NSLOTS], *bad;
	struct ibv_sge sge[NSLOTS];
	struct ibv_wc wc[NSLOTS];
	bool write[NSLOTS];
	bool chain = rand_r(seed) & 1;
	int i, got, nsend = 0, ret;

	for (i = 0; i < n; i++) {
		write[i] = rand_r(seed) & 1;
		fill_pattern(src->buf + SRC_OFF + i * SLOT, id, round, i);
		if (write[i]) {
			memset(dst->buf + WRITE_OFF + i * SLOT, 0, SLOT);
			continue;
		}
		/* Receive k-th SEND into slot k. */
		memset(dst->buf + RECV_OFF + nsend * SLOT, 0, SLOT);
		ret = post_recv_slot(dst, srq, nsend, (uint64_t)round << 8 | i);
		if (ret)
			return fail(f, "round %d: post_recv: %s", round,
				    strerror(ret));
		nsend++;
	}
	for (i = 0; i < n; i++) {
		fill_send(&wr[i], &sge[i], src, dst, write[i], i,
			  (uint64_t)round << 8 | i);
		wr[i].next = chain && i + 1 < n ? &wr[i + 1] : NULL;
	}
	for (i = 0; i < n; i++) {
		if (chain && i)
			break;
		if (i && spread_us)
			spin_us(rand_r(seed) % (spread_us + 1));
		ret = ibv_post_send(src->qp, &wr[i], &bad);
		if (ret)
			return fail(f, "round %d: post_send: %s", round,
				    strerror(ret));
	}

	got = wait_wc(src->cq, wc, n);
	if (got < n)
		return fail(f, "round %d: %d of %d send completions after %d ms: lost wake-up?",
			    round, got, n, WAIT_MS);
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].wr_id != ((uint64_t)round << 8 | i) ||
		    wc[i].opcode != (write[i] ? IBV_WC_RDMA_WRITE :
						IBV_WC_SEND))
			return fail(f, "round %d: send completion %d: status %d opcode %d wr_id %#llx",
				    round, i, wc[i].status, wc[i].opcode,
				    (unsigned long long)wc[i].wr_id);
	}
	got = wait_wc(dst->cq, wc, nsend);
	if (got < nsend)
		return fail(f, "round %d: %d of %d receive completions",
			    round, got, nsend);

	for (i = 0, nsend = 0; i < n; i++) {
		const char *want = src->buf + SRC_OFF + i * SLOT;
		const char *have;

		if (write[i]) {
			have = dst->buf + WRITE_OFF + i * SLOT;
		} else {
			if (wc[nsend].status != IBV_WC_SUCCESS ||
			    wc[nsend].opcode != IBV_WC_RECV ||
			    wc[nsend].byte_len != SLOT ||
			    wc[nsend].wr_id != ((uint64_t)round << 8 | i))
				return fail(f, "round %d: receive completion %d: status %d opcode %d len %u wr_id %#llx",
					    round, nsend, wc[nsend].status,
					    wc[nsend].opcode, wc[nsend].byte_len,
					    (unsigned long long)wc[nsend].wr_id);
			have = dst->buf + RECV_OFF + nsend * SLOT;
			nsend++;
		}
		if (memcmp(want, have, SLOT))
			return fail(f, "round %d: %s %d: wrong data", round,
				    write[i] ? "write" : "send", i);
	}
	return 0;
}

/* Start from one device, t_poll; remember the idle period. */
static void setup(struct __test_metadata *_metadata, struct rnic_genl **g,
		  unsigned int *idle_us, bool *idle_saved)
{
	*idle_saved = false;
	rnic_fixture_setup(_metadata, g, NULL, DEV, NULL);
	ASSERT_EQ(0, read_idle(idle_us));
	*idle_saved = true;
	unsetenv(ENV_POLL);
}

static void teardown(struct __test_metadata *_metadata, struct rnic_genl *g,
		     unsigned int idle_us, bool idle_saved)
{
	if (idle_saved)
		EXPECT_EQ(0, write_idle(idle_us));
	rnic_fixture_teardown(_metadata, g, NULL);
}

FIXTURE(sqpoll) {
	struct rnic_genl *g;
	unsigned int idle_us;
	bool idle_saved;
};

FIXTURE_SETUP(sqpoll)
{
	setup(_metadata, &self->g, &self->idle_us, &self->idle_saved);
}

FIXTURE_TEARDOWN(sqpoll)
{
	teardown(_metadata, self->g, self->idle_us, self->idle_saved);
}

/* system calls made under the seccomp filter, counted by the child */

#define MAX_TRAPS 16

enum stage {
	ST_POST_RECV = 1,
	ST_POST_SRQ_RECV,
	ST_REQ_NOTIFY,
	ST_POLL_CQ,
	ST_POST_SEND,
	ST_WAIT,
};

static const char *const stage_name[] = {
	[ST_POST_RECV] = "ibv_post_recv",
	[ST_POST_SRQ_RECV] = "ibv_post_srq_recv",
	[ST_REQ_NOTIFY] = "ibv_req_notify_cq",
	[ST_POLL_CQ] = "ibv_poll_cq",
	[ST_POST_SEND] = "ibv_post_send",
	[ST_WAIT] = "ibv_poll_cq for the completions",
};

/* Shared between the child and the test, MAP_SHARED. */
struct traps {
	int count;
	int nr[MAX_TRAPS];
	int stage[MAX_TRAPS];
	int done;
	struct failure f;
};

static struct traps *traps;
static volatile int cur_stage;

/* SIGSYS from SECCOMP_RET_TRAP: count the call, let it "return" 0. */
static void on_sigsys(int sig, siginfo_t *si, void *uctx)
{
	ucontext_t *uc = uctx;
	int i = traps->count++;

	(void)sig;
	if (i < MAX_TRAPS) {
		traps->nr[i] = si->si_syscall;
		traps->stage[i] = cur_stage;
	}
#ifdef __x86_64__
	uc->uc_mcontext.gregs[REG_RAX] = 0;
#else
	(void)uc;
#endif
}

/*
 * From now on every system call but exit, exit_group and rt_sigreturn
 * (the way back from on_sigsys()) traps, is counted and skipped.
 */
static int trap_syscalls(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigreturn, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.filter = insns,
	};
	struct sigaction sa = {
		.sa_sigaction = on_sigsys,
		.sa_flags = SA_SIGINFO,
	};

	if (sigaction(SIGSYS, &sa, NULL))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static void __attribute__((noreturn, format(printf, 2, 3)))
child_exit(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(traps->f.msg, sizeof(traps->f.msg), fmt, ap);
	va_end(ap);
	_exit(status);
}

/*
 * The child: a pair (polled if @poll), an SRQ; one SEND from side 0 to
 * side 1 waited for normally, which also wakes the polling thread; then,
 * under the filter, the calls. With @poll, a second SEND must complete
 * without a system call. Exit status 0 when everything up to the filter
 * worked; traps->done says how far it got after.
 */
static void child(bool poll)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 4, .max_sge = 1 },
	};
	struct ibv_send_wr wr, *bad;
	struct ibv_context *ctx;
	struct ibv_wc wc[2];
	struct ibv_sge sge;
	struct ibv_srq *srq;
	struct ibv_pd *pd;
	struct pair p;
	int ret;

	if (poll)
		setenv(ENV_POLL, "1", 1);
	ctx = rnic_ibv_open(DEV);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	srq = pd ? ibv_create_srq(pd, &sattr) : NULL;
	if (!srq)
		child_exit(10, "context, PD or SRQ: %s", strerror(errno));
	ret = pair_open(ctx, pd, NULL, &p);
	if (ret)
		child_exit(11, "pair: %s", strerror(ret));

	/* One SEND the normal way: the thread (if any) is awake after it. */
	ret = post_recv_slot(&p.s[1], NULL, 0, 1);
	if (ret)
		child_exit(12, "post_recv: %s", strerror(ret));
	fill_send(&wr, &sge, &p.s[0], &p.s[1], false, 0, 2);
	ret = ibv_post_send(p.s[0].qp, &wr, &bad);
	if (ret)
		child_exit(13, "post_send: %s", strerror(ret));
	if (wait_wc(p.s[0].cq, wc, 1) != 1 || wc[0].status ||
	    wait_wc(p.s[1].cq, wc, 1) != 1 || wc[0].status)
		child_exit(14, "first SEND: no completion or an error");

	if (trap_syscalls())
		child_exit(15, "seccomp: %s", strerror(errno));

	cur_stage = ST_POST_RECV;
	ret = post_recv_slot(&p.s[1], NULL, 1, 3);
	cur_stage = ST_POST_SRQ_RECV;
	ret |= post_recv_slot(&p.s[1], srq, 2, 4);
	cur_stage = ST_REQ_NOTIFY;
	ret |= ibv_req_notify_cq(p.s[0].cq, 0);
	cur_stage = ST_POLL_CQ;
	ret |= ibv_poll_cq(p.s[0].cq, 2, wc) != 0;
	traps->done = ret ? -1 : 1;
	cur_stage = ST_POST_SEND;
	fill_send(&wr, &sge, &p.s[0], &p.s[1], false, 1, 5);
	ret = ibv_post_send(p.s[0].qp, &wr, &bad);
	traps->done = ret ? -2 : 2;
	if (!poll || ret)
		_exit(0);

	/* No clock: a vDSO fallback would be a system call. The test times out. */
	cur_stage = ST_WAIT;
	while (ibv_poll_cq(p.s[0].cq, 1, wc) != 1)
		;
	if (wc[0].status || wc[0].wr_id != 5)
		_exit(0);
	while (ibv_poll_cq(p.s[1].cq, 1, wc) != 1)
		;
	if (wc[0].status || wc[0].wr_id != 3)
		_exit(0);
	traps->done = 3;
	_exit(0);
}

/* Run child() in a new process; its exit status, or -1 after @ms. */
static int run_child(bool poll, long ms)
{
	struct timespec t0;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		child(poll);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (ms_since(&t0) > ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(10000);
	}
	return status;
}

static void report_traps(struct __test_metadata *_metadata)
{
	int i;

	for (i = 0; i < traps->count && i < MAX_TRAPS; i++)
		TH_LOG("system call %d in %s", traps->nr[i],
		       stage_name[traps->stage[i]]);
}

TEST_F_TIMEOUT(sqpoll, data_path_makes_no_system_call, 120)
{
	int status;

#ifndef __x86_64__
	SKIP(return, "the seccomp filter is written for x86_64");
#endif
	traps = mmap(NULL, sizeof(*traps), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, traps);

	/* Long enough for the child to post while the thread polls. */
	ASSERT_EQ(0, write_idle(5000000));
	memset(traps, 0, sizeof(*traps));
	status = run_child(true, 20000);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("polled child: status %#x %s", status, traps->f.msg);
	report_traps(_metadata);
	EXPECT_EQ(0, traps->count);
	EXPECT_EQ(3, traps->done) TH_LOG("the polled SEND did not complete");
	ASSERT_EQ(0, write_idle(self->idle_us));

	/* Without polling, the post is exactly one ioctl, the kick. */
	memset(traps, 0, sizeof(*traps));
	status = run_child(false, 20000);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child: status %#x %s", status, traps->f.msg);
	EXPECT_EQ(2, traps->done);
	ASSERT_EQ(1, traps->count) report_traps(_metadata);
	EXPECT_EQ(__NR_ioctl, traps->nr[0]);
	EXPECT_EQ(ST_POST_SEND, traps->stage[0]);
	munmap(traps, sizeof(*traps));
}

/*
 * CPU time of the polling thread of DEV, in clock ticks, and its state
 * letter in *@state; -1 if it has none.
 */
static long poller_ticks(char *state)
{
	char uverbs[32], want[64], path[300], buf[1024], *p;
	unsigned long utime, stime;
	long ticks = -1;
	struct dirent *e;
	unsigned int n;
	DIR *d;

	if (rnic_sysfs_read(DEV, "uverbs", uverbs, sizeof(uverbs)) ||
	    sscanf(uverbs, "uverbs%u", &n) != 1)
		return -1;
	snprintf(want, sizeof(want), "(rnic-sqpoll/%u) ", n - RNIC_UVERBS_BASE);
	d = opendir("/proc");
	while (d && ticks < 0 && (e = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strstr(buf, want) : NULL;
		/* state ppid pgrp session tty tpgid flags 4 faults utime stime */
		if (p && sscanf(p + strlen(want),
				"%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
				state, &utime, &stime) == 3)
			ticks = utime + stime;
		fclose(f);
	}
	if (d)
		closedir(d);
	return ticks;
}

/* Move @qp to @state with no other attribute; 0 or an errno value. */
static int qp_to(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/*
 * A SEND posted in SQD waits there: the thread must go idle rather than
 * spin on it, and the SEND goes once the QP is back in RTS.
 */
TEST_F(sqpoll, idle_while_the_queue_is_blocked)
{
	long idle_ms = self->idle_us / 1000 + 1, t0, t1;
	struct ibv_send_wr wr, *bad;
	struct ibv_context *ctx;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct pair p;
	char state;

	ASSERT_EQ(0, setenv(ENV_POLL, "1", 1));
	ctx = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, ctx);
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);
	ASSERT_EQ(0, pair_open(ctx, pd, NULL, &p));
	ASSERT_EQ(0, post_recv_slot(&p.s[1], NULL, 0, 1));
	ASSERT_EQ(0, qp_to(p.s[0].qp, IBV_QPS_SQD));
	fill_send(&wr, &sge, &p.s[0], &p.s[1], false, 0, 2);
	ASSERT_EQ(0, ibv_post_send(p.s[0].qp, &wr, &bad));

	usleep((3 * idle_ms + 200) * 1000);
	t0 = poller_ticks(&state);
	ASSERT_LE(0, t0);
	usleep(500000);
	t1 = poller_ticks(&state);
	EXPECT_GE(5, t1 - t0) TH_LOG("the polling thread spins (%ld ticks in 0.5 s, state %c)",
				     t1 - t0, state);
	EXPECT_EQ('S', state);
	EXPECT_EQ(0, ibv_poll_cq(p.s[0].cq, 1, &wc));

	ASSERT_EQ(0, qp_to(p.s[0].qp, IBV_QPS_RTS));
	ASSERT_EQ(1, wait_wc(p.s[0].cq, &wc, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(2, wc.wr_id);
	ASSERT_EQ(1, wait_wc(p.s[1].cq, &wc, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	pair_close(&p);
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_close_device(ctx));
}

/* A QP created while the thread sleeps: its first post must kick. */
TEST_F(sqpoll, created_while_asleep)
{
	long idle_ms = self->idle_us / 1000 + 1;
	struct ibv_context *ctx;
	struct failure f = {};
	unsigned int seed = 1;
	struct pair p, q;
	struct ibv_pd *pd;
	char state;

	ASSERT_EQ(0, setenv(ENV_POLL, "1", 1));
	ctx = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, ctx);
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);
	ASSERT_EQ(0, pair_open(ctx, pd, NULL, &p));
	usleep((3 * idle_ms + 200) * 1000);
	ASSERT_LE(0, poller_ticks(&state));
	EXPECT_EQ('S', state);
	ASSERT_EQ(0, pair_open(ctx, pd, NULL, &q));
	ASSERT_EQ(0, burst(&q, NULL, 0, 0, 0, 1, 0, &seed, &f)) TH_LOG("%s", f.msg);
	pair_close(&q);
	pair_close(&p);
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_close_device(ctx));
}

/*
 * Reset and reconnect while the thread sleeps, then post as many work
 * requests as before the reset: the producer index is back where the
 * thread last saw it, and the first post must still kick.
 */
TEST_F(sqpoll, reset_while_asleep)
{
	long idle_ms = self->idle_us / 1000 + 1;
	struct ibv_context *ctx;
	unsigned int seed = 1;
	union ibv_gid gid;
	struct failure f = {};
	struct ibv_pd *pd;
	struct pair p;
	char state;
	int i;

	ASSERT_EQ(0, setenv(ENV_POLL, "1", 1));
	ctx = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, ctx);
	ASSERT_EQ(0, ibv_query_gid(ctx, 1, 0, &gid));
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);
	ASSERT_EQ(0, pair_open(ctx, pd, NULL, &p));
	ASSERT_EQ(0, burst(&p, NULL, 0, 0, 0, 4, 0, &seed, &f)) TH_LOG("%s", f.msg);

	for (i = 1; i <= 2; i++) {
		usleep((3 * idle_ms + 200) * 1000);
		ASSERT_LE(0, poller_ticks(&state));
		EXPECT_EQ('S', state);
		ASSERT_EQ(0, qp_to(p.s[0].qp, IBV_QPS_RESET));
		ASSERT_EQ(0, qp_to(p.s[1].qp, IBV_QPS_RESET));
		ASSERT_EQ(0, qp_connect(p.s[0].qp, p.s[1].qp->qp_num, &gid));
		ASSERT_EQ(0, qp_connect(p.s[1].qp, p.s[0].qp->qp_num, &gid));
		/* The first time, post at once; the second, once it sleeps. */
		if (i == 2)
			usleep((3 * idle_ms + 200) * 1000);
		ASSERT_EQ(0, burst(&p, NULL, 0, 0, i, 4, 0, &seed, &f))
			TH_LOG("after reset %d: %s", i, f.msg);
	}
	pair_close(&p);
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_close_device(ctx));
}

/* NEED_WAKEUP stress */

/*
 * @dev: the device to use
 * @reopen: rounds after which the pair is replaced by a new one (0: never),
 *	so that QPs come and go while the thread works on others
 * @idle_us: the thread's idle period; pauses are up to three of them,
 *	half of them around one, when the thread goes to sleep
 */
struct worker {
	pthread_t thread;
	char dev[32];
	int id;
	int rounds;
	int reopen;
	unsigned int idle_us;
	unsigned int seed;
	bool srq;
	int ret;
	struct failure f;
};

static unsigned int pause_us(struct worker *w)
{
	unsigned int idle = w->idle_us ? w->idle_us : 100;

	if (rand_r(&w->seed) & 1)
		return rand_r(&w->seed) % (3 * idle + 1);
	return idle / 2 + rand_r(&w->seed) % (idle + 1);
}

static void *worker_run(void *arg)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 2 * NSLOTS, .max_sge = 1 },
	};
	struct worker *w = arg;
	struct ibv_srq *srq = NULL;
	struct ibv_context *ctx;
	struct ibv_pd *pd = NULL;
	struct pair p = {};
	int round, ret;

	w->ret = -1;
	ctx = rnic_ibv_open(w->dev);
	if (!ctx) {
		fail(&w->f, "open: %s", strerror(errno));
		return NULL;
	}
	pd = ibv_alloc_pd(ctx);
	if (pd && w->srq)
		srq = ibv_create_srq(pd, &sattr);
	if (!pd || (w->srq && !srq)) {
		fail(&w->f, "pd/srq: %s", strerror(errno));
		goto out;
	}
	ret = pair_open(ctx, pd, srq, &p);
	if (ret) {
		fail(&w->f, "pair: %s", strerror(ret));
		goto out;
	}
	for (round = 0; round < w->rounds; round++) {
		unsigned int us = pause_us(w);
		/* Side 1 receives from the SRQ, if any: only side 0 sends. */
		int from = srq ? 0 : rand_r(&w->seed) & 1;

		if (w->reopen && round && round % w->reopen == 0) {
			pair_close(&p);
			ret = pair_open(ctx, pd, srq, &p);
			if (ret) {
				fail(&w->f, "pair again: %s", strerror(ret));
				goto out;
			}
		}
		if (us)
			usleep(us);
		/* Posts one by one straddle the thread's going to sleep. */
		if (burst(&p, srq, from, w->id, round,
			  1 + rand_r(&w->seed) % NSLOTS, 2 * w->idle_us + 20,
			  &w->seed, &w->f))
			goto out;
	}
	w->ret = 0;
out:
	pair_close(&p);
	if (srq)
		ibv_destroy_srq(srq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return NULL;
}

FIXTURE(stress) {
	struct rnic_genl *g;
	unsigned int idle_us;
	bool idle_saved;
};

FIXTURE_SETUP(stress)
{
	setup(_metadata, &self->g, &self->idle_us, &self->idle_saved);
}

FIXTURE_TEARDOWN(stress)
{
	teardown(_metadata, self->g, self->idle_us, self->idle_saved);
}

/*
 * With a device (and so a thread) per worker, a lost wake-up is not
 * rescued by another worker's kick: the completions never come. On one
 * device, the workers' QPs come and go while the thread serves the others.
 */
FIXTURE_VARIANT(stress) {
	int idle_us;		/* -1: the module's value */
	int workers;
	int rounds;
	bool one_device;
};

FIXTURE_VARIANT_ADD(stress, default_idle) {
	.idle_us = -1, .workers = 3, .rounds = 300,
};

FIXTURE_VARIANT_ADD(stress, idle_0) {
	.idle_us = 0, .workers = 3, .rounds = 3000,
};

FIXTURE_VARIANT_ADD(stress, idle_50us) {
	.idle_us = 50, .workers = 3, .rounds = 3000,
};

FIXTURE_VARIANT_ADD(stress, one_device) {
	.idle_us = 50, .workers = 4, .rounds = 1000, .one_device = true,
};

TEST_F_TIMEOUT(stress, need_wakeup, 600)
{
	const FIXTURE_VARIANT(stress) *v = variant;
	unsigned int idle, seed = time(NULL);
	struct timespec t0;
	struct worker w[4];
	int i;

	ASSERT_LE(v->workers, 4);
	idle = v->idle_us < 0 ? self->idle_us : (unsigned int)v->idle_us;
	ASSERT_EQ(0, write_idle(idle));
	ASSERT_EQ(0, setenv(ENV_POLL, "1", 1));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < v->workers; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].id = i;
		w[i].rounds = v->rounds;
		if (v->one_device || !i) {
			snprintf(w[i].dev, sizeof(w[i].dev), DEV);
		} else {
			snprintf(w[i].dev, sizeof(w[i].dev), DEV "%d", i);
			do_link_add(self->g, w[i].dev, NULL);
		}
		w[i].reopen = v->one_device ? 50 + 10 * i : 0;
		w[i].idle_us = idle;
		w[i].seed = seed + i;
		w[i].srq = i == 2;
		ASSERT_EQ(0, pthread_create(&w[i].thread, NULL, worker_run,
					    &w[i]));
	}
	for (i = 0; i < v->workers; i++) {
		pthread_join(w[i].thread, NULL);
		EXPECT_EQ(0, w[i].ret) TH_LOG("worker %d (seed %u): %s", i,
					      w[i].seed, w[i].f.msg);
	}
	TH_LOG("%d workers, %d rounds each, idle %u us: %ld ms", v->workers,
	       v->rounds, idle, ms_since(&t0));
}

TEST_HARNESS_MAIN
