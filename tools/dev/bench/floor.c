// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-bench-floor: the costs under make bench's small messages, measured
 * in the same VM as the rest: any ioctl, and two of rnic itself. rnic
 * only: it rings rnic's doorbell ioctl itself.
 *
 *   rnic-bench-floor [-D SECONDS] -d DEVICE FIGURE...
 *
 * FIGURE is
 *   ioctl	an ioctl the kernel refuses before any driver runs (an unknown
 *		command on /dev/null, which has no ioctl handler: ENOTTY):
 *		what the system call of a doorbell costs without rnic, its
 *		entry, file lookup and security hooks; prints "ioctl 0 USEC"
 *   doorbell	RNIC_IOCTL_RING_SQ on the context's command fd, naming an
 *		RC QP in RTS whose send queue is empty: the system call
 *		every ibv_post_send() on rnic makes, with nothing to send;
 *		prints "doorbell 0 USEC"
 *   write8	one signaled 8-byte RDMA WRITE posted on that QP and its
 *		completion polled, one after the other; the QP is connected
 *		to a second RC QP of the same context on DEVICE (the local
 *		link, one process, no peer to wait for): the whole engine
 *		for one message; prints "write8 8 USEC". Every WRITE carries a new
 *		value, checked at the target after its completion.
 *
 * USEC is the mean time of one operation over SECONDS (default 1), the
 * clock read every CLOCK_EVERY operations, after one untimed batch.
 * Exit status 0, 1 if something failed, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rnic-abi.h>

#include "bench_time.h"
#include "bench_verbs.h"

#define QP_WRS		16
#define WRITE_SIZE	8
/* a command no driver and no generic ioctl handler knows */
#define NULL_IOCTL	_IO('r', 0x7f)
/* a WRITE whose completion takes longer than this has failed, in s */
#define WC_TIMEOUT	10.0

struct run {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];	/* qp[0] WRITEs into qp[1] */
	uint64_t *src, *dst;	/* one page each */
	struct ibv_mr *src_mr, *dst_mr;
	uint64_t seq;		/* the value of the last WRITE */
	const char *dev;
	int null_fd;		/* /dev/null, for the ioctl figure */
};

static int fail(const struct run *r, const char *what, int err)
{
	fprintf(stderr, "rnic-bench-floor: %s: %s: %s\n", r->dev, what,
		strerror(err));
	return -1;
}

/* The device, a PD, a CQ, two connected RC QPs, a source and a target. */
static int open_run(struct run *r)
{
	struct bench_path path;
	int ret, i;

	ret = bench_open(r->dev, &r->ctx);
	if (ret)
		return fail(r, "open", -ret);
	ret = bench_path(r->ctx, &path);
	if (ret)
		return fail(r, "no IPv4 GID", -ret);
	r->pd = ibv_alloc_pd(r->ctx);
	if (!r->pd)
		return fail(r, "ibv_alloc_pd", errno);
	r->cq = ibv_create_cq(r->ctx, QP_WRS, NULL, NULL, 0);
	if (!r->cq)
		return fail(r, "ibv_create_cq", errno);
	for (i = 0; i < 2; i++) {
		r->qp[i] = bench_rc_qp(r->pd, r->cq, QP_WRS, 1);
		if (!r->qp[i])
			return fail(r, "ibv_create_qp", errno);
	}
	for (i = 0; i < 2; i++) {
		ret = bench_connect(r->qp[i], &path, r->qp[!i]->qp_num);
		if (ret)
			return fail(r, "ibv_modify_qp to RTS", -ret);
	}
	r->null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (r->null_fd < 0)
		return fail(r, "open /dev/null", errno);
	r->src = aligned_alloc(4096, 4096);
	r->dst = aligned_alloc(4096, 4096);
	if (!r->src || !r->dst)
		return fail(r, "aligned_alloc", ENOMEM);
	memset(r->src, 0, 4096);
	memset(r->dst, 0, 4096);
	r->src_mr = ibv_reg_mr(r->pd, r->src, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!r->src_mr)
		return fail(r, "ibv_reg_mr", errno);
	r->dst_mr = ibv_reg_mr(r->pd, r->dst, 4096, IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE);
	if (!r->dst_mr)
		return fail(r, "ibv_reg_mr", errno);
	return 0;
}

static void close_run(struct run *r)
{
	int i;

	if (r->null_fd >= 0)
		close(r->null_fd);
	if (r->dst_mr)
		ibv_dereg_mr(r->dst_mr);
	if (r->src_mr)
		ibv_dereg_mr(r->src_mr);
	free(r->dst);
	free(r->src);
	for (i = 1; i >= 0; i--)
		if (r->qp[i])
			ibv_destroy_qp(r->qp[i]);
	bench_close(r->ctx, r->pd, r->cq);
}

/* N ioctls of a command /dev/null does not know (no driver code runs). */
static int ioctls(struct run *r, unsigned int n)
{
	while (n--)
		if (ioctl(r->null_fd, NULL_IOCTL, 0) != -1 || errno != ENOTTY)
			return fail(r, "ioctl on /dev/null: not ENOTTY",
				    errno ? errno : EPROTO);
	return 0;
}

/* N doorbells on qp[0], its send queue empty. */
static int doorbells(struct run *r, unsigned int n)
{
	unsigned long handle = r->qp[0]->handle;

	while (n--)
		if (ioctl(r->ctx->cmd_fd, RNIC_IOCTL_RING_SQ, handle))
			return fail(r, "RNIC_IOCTL_RING_SQ", errno);
	return 0;
}

/* The completion of the WRITE numbered r->seq, polled for. */
static int write_done(struct run *r)
{
	unsigned long spins = 0;
	struct ibv_wc wc;
	double t0 = 0;
	int n;

	while (!(n = ibv_poll_cq(r->cq, 1, &wc))) {
		/* read the clock only when the completion is late */
		if (++spins % 4096)
			continue;
		if (!t0)
			t0 = bench_now();
		else if (bench_now() - t0 > WC_TIMEOUT)
			return fail(r, "no completion for a WRITE", ETIMEDOUT);
	}
	if (n < 0)
		return fail(r, "ibv_poll_cq", EIO);
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rnic-bench-floor: %s: WRITE %" PRIu64 ": %s\n",
			r->dev, r->seq, ibv_wc_status_str(wc.status));
		return -1;
	}
	if (wc.wr_id != r->seq || wc.opcode != IBV_WC_RDMA_WRITE) {
		fprintf(stderr, "rnic-bench-floor: %s: completion of WR %" PRIu64
			" (opcode %d), want WRITE %" PRIu64 "\n", r->dev,
			(uint64_t)wc.wr_id, wc.opcode, r->seq);
		return -1;
	}
	return 0;
}

/* N signaled 8-byte WRITEs from qp[0] into qp[1]'s target, one at a time. */
static int writes(struct run *r, unsigned int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->src,
		.length = WRITE_SIZE,
		.lkey = r->src_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)r->dst,
			.rkey = r->dst_mr->rkey,
		},
	}, *bad;
	uint64_t got;
	int ret;

	while (n--) {
		wr.wr_id = ++r->seq;
		*r->src = r->seq;
		ret = ibv_post_send(r->qp[0], &wr, &bad);
		if (ret)
			return fail(r, "ibv_post_send", ret);
		if (write_done(r))
			return -1;
		/* the target is written by the kernel, not by this thread */
		got = __atomic_load_n(r->dst, __ATOMIC_RELAXED);
		if (got != r->seq) {
			fprintf(stderr, "rnic-bench-floor: %s: WRITE %" PRIu64
				" completed, the target holds %" PRIu64 "\n",
				r->dev, r->seq, got);
			return -1;
		}
	}
	return 0;
}

struct figure {
	const char *name;
	unsigned int size;
	int (*op)(struct run *r, unsigned int n);
};

static const struct figure figures[] = {
	{ "ioctl", 0, ioctls },
	{ "doorbell", 0, doorbells },
	{ "write8", WRITE_SIZE, writes },
};

static int measure(struct run *r, const struct figure *f, double secs)
{
	unsigned long ops = 0;
	double t0, t;

	if (f->op(r, CLOCK_EVERY))
		return -1;
	t0 = bench_now();
	do {
		if (f->op(r, CLOCK_EVERY))
			return -1;
		ops += CLOCK_EVERY;
		t = bench_now();
	} while (t - t0 < secs);
	printf("%s %u %.3f\n", f->name, f->size, (t - t0) * 1e6 / ops);
	fflush(stdout);
	return 0;
}

static const struct figure *figure_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(figures) / sizeof(figures[0]); i++)
		if (!strcmp(figures[i].name, name))
			return &figures[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rnic-bench-floor [-D SECONDS] -d DEVICE FIGURE...\n"
		   "FIGURE: ioctl (ENOTTY from /dev/null: the system call alone),\n"
		   "        doorbell (RNIC_IOCTL_RING_SQ, nothing to send),\n"
		   "        write8 (a signaled 8 B RDMA WRITE posted and polled)\n");
}

int main(int argc, char **argv)
{
	struct run r = { .null_fd = -1 };
	double secs = 1;
	int opt, i, ret = 0;

	while ((opt = getopt(argc, argv, "D:d:h")) != -1) {
		switch (opt) {
		case 'D':
			if (!bench_secs("rnic-bench-floor", optarg, &secs))
				return 2;
			break;
		case 'd':
			r.dev = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!r.dev || optind == argc) {
		usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		if (!figure_of(argv[i])) {
			fprintf(stderr, "rnic-bench-floor: unknown figure %s\n",
				argv[i]);
			usage(stderr);
			return 2;
		}
	}
	ret = open_run(&r);
	for (i = optind; !ret && i < argc; i++)
		ret = measure(&r, figure_of(argv[i]), secs);
	close_run(&r);
	return ret ? 1 : 0;
}
