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

#define QP_WRS		128
#define PORT		1
/* let deferred frees and RCU callbacks of earlier work settle, in usec */
#define SETTLE_US	200000

struct run {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp **qps;
	unsigned int n;
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
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

static int open_device(struct run *r, const char *name)
{
	struct ibv_device **list;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list)
		return -errno;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i < n)
		r->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (i == n)
		return -ENODEV;
	return r->ctx ? 0 : -errno;
}

/* The port's first IPv4-mapped GID, the one rnic-perf uses. */
static int pick_gid(struct run *r)
{
	static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr pattr;
	int i;

	if (ibv_query_port(r->ctx, PORT, &pattr))
		return -errno;
	r->mtu = pattr.active_mtu;
	for (i = 0; i < pattr.gid_tbl_len; i++) {
		if (ibv_query_gid(r->ctx, PORT, i, &r->gid))
			continue;
		if (!memcmp(r->gid.raw, v4_prefix, sizeof(v4_prefix))) {
			r->gid_index = i;
			return 0;
		}
	}
	return -ENOENT;
}

static struct ibv_qp *create_qp(struct run *r)
{
	struct ibv_qp_init_attr init = {
		.send_cq = r->cq,
		.recv_cq = r->cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = QP_WRS,
			.max_recv_wr = QP_WRS,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	return ibv_create_qp(r->pd, &init);
}

/* Move QP to RTS, connected to the QP numbered DEST on the same device. */
static int connect_qp(struct run *r, struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return -ret;
	a = (struct ibv_qp_attr) {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = r->mtu,
		.dest_qp_num = dest,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.grh = {
				.dgid = r->gid,
				.sgid_index = r->gid_index,
				.hop_limit = 64,
			},
			.port_num = PORT,
		},
	};
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return -ret;
	a = (struct ibv_qp_attr) {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
	};
	return -ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Create every QP, then connect them in pairs; "what" says what failed. */
static int make_qps(struct run *r, const char **what)
{
	unsigned int i;
	int ret;

	*what = "ibv_create_qp";
	for (i = 0; i < r->n; i++) {
		r->qps[i] = create_qp(r);
		if (!r->qps[i])
			return -errno;
	}
	*what = "ibv_modify_qp to RTS";
	for (i = 0; i < r->n; i++) {
		ret = connect_qp(r, r->qps[i], r->qps[i ^ 1]->qp_num);
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
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
}

static int measure(struct run *r, const char *dev)
{
	long slab0, vmalloc0, slab1, vmalloc1;
	const char *what = "open";
	int ret;

	ret = open_device(r, dev);
	if (!ret) {
		what = "no IPv4 GID";
		ret = pick_gid(r);
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
