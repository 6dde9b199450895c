// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-bench-qpmem: the kernel memory an idle RC QP costs, for make bench.
 * Built twice from this file, against librnic and against rdma-core, so
 * that rnic and rdma_rxe are measured the same way.
 *
 *   rnic-bench-qpmem DEVICE N
 *	creates N (even) RC QPs on DEVICE with the default caps below,
 *	connects them in pairs to each other (QP 2i <-> QP 2i+1, both on
 *	DEVICE, through its first IPv4 GID) and moves every one to RTS, posts
 *	nothing; prints "qpmem N SLAB VMALLOC": how much /proc/meminfo's Slab
 *	and VmallocUsed (KiB) grew from before the first QP was created to
 *	after the last one reached RTS. The device context, PD and the one
 *	CQ that every QP shares are made before the first reading.
 *
 * The default caps are those of rnic-perf and perftest: a send queue of
 * 128 WRs, a receive queue of as many, one SGE each, no inline data.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "bench_verbs.h"

#define QP_WRS		128
/* let deferred frees and RCU callbacks of earlier work settle, in usec */
#define SETTLE_US	200000

struct run {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp **qps;
	unsigned int n;
	struct bench_path path;
};

/* The figure of /proc/meminfo line KEY in KiB, or -1. */
static long meminfo_kib(const char *key)
{
	size_t len = strlen(key);
	char line[256];
	long kib = -1;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			kib = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return kib;
}

/* Slab and VmallocUsed now, after the system settled; false if unreadable. */
static bool kernel_mem(long *slab, long *vmalloc)
{
	usleep(SETTLE_US);
	*slab = meminfo_kib("Slab");
	*vmalloc = meminfo_kib("VmallocUsed");
	return *slab >= 0 && *vmalloc >= 0;
}

/* Create every QP, then connect them in pairs; "what" says what failed. */
static int make_qps(struct run *r, const char **what)
{
	unsigned int i;
	int ret;

	*what = "ibv_create_qp";
	for (i = 0; i < r->n; i++) {
		r->qps[i] = bench_rc_qp(r->pd, r->cq, QP_WRS, QP_WRS);
		if (!r->qps[i])
			return -errno;
	}
	*what = "ibv_modify_qp to RTS";
	for (i = 0; i < r->n; i++) {
		ret = bench_connect(r->qps[i], &r->path,
				    r->qps[i ^ 1]->qp_num);
		if (ret)
			return ret;
	}
	return 0;
}

static void close_run(struct run *r)
{
	unsigned int i;

	for (i = 0; r->qps && i < r->n && r->qps[i]; i++)
		ibv_destroy_qp(r->qps[i]);
	free(r->qps);
	bench_close(r->ctx, r->pd, r->cq);
}

static int measure(struct run *r, const char *dev)
{
	long slab0, vmalloc0, slab1, vmalloc1;
	const char *what = "open";
	int ret;

	ret = bench_open(dev, &r->ctx);
	if (!ret) {
		what = "no IPv4 GID";
		ret = bench_path(r->ctx, &r->path);
	}
	if (!ret) {
		what = "ibv_alloc_pd";
		r->pd = ibv_alloc_pd(r->ctx);
		ret = r->pd ? 0 : -errno;
	}
	if (!ret) {
		what = "ibv_create_cq";
		r->cq = ibv_create_cq(r->ctx, 16, NULL, NULL, 0);
		ret = r->cq ? 0 : -errno;
	}
	if (!ret) {
		what = "calloc";
		r->qps = calloc(r->n, sizeof(*r->qps));
		ret = r->qps ? 0 : -ENOMEM;
	}
	if (!ret) {
		what = "/proc/meminfo";
		ret = kernel_mem(&slab0, &vmalloc0) ? 0 : -EIO;
	}
	if (!ret)
		ret = make_qps(r, &what);
	if (!ret) {
		what = "/proc/meminfo";
		ret = kernel_mem(&slab1, &vmalloc1) ? 0 : -EIO;
	}
	if (ret) {
		fprintf(stderr, "rnic-bench-qpmem: %s: %s: %s\n", dev, what,
			strerror(-ret));
		return ret;
	}
	printf("qpmem %u %ld %ld\n", r->n, slab1 - slab0, vmalloc1 - vmalloc0);
	return 0;
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	char *end;
	long n;
	int ret;

	n = argc == 3 ? strtol(argv[2], &end, 10) : 0;
	if (argc != 3 || *end || n < 2 || n > 65536 || n % 2) {
		fprintf(stderr, "usage: rnic-bench-qpmem DEVICE N (N even, 2 to 65536)\n");
		return 2;
	}
	r.n = n;
	ret = measure(&r, argv[1]);
	close_run(&r);
	return ret ? 1 : 0;
}
