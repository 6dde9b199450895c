/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What make bench's verbs programs share (rnic-bench-qpmem,
 * rnic-bench-floor): a device opened by name, RC QPs, and RC QPs of one
 * device connected to each other through its first IPv4 GID. Plain verbs, so
 * that it builds against librnic and against rdma-core alike.
 *
 * Every function returns 0 or a negative errno value.
 */
#ifndef RNIC_BENCH_VERBS_H
#define RNIC_BENCH_VERBS_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

#define BENCH_PORT	1

/* Where QPs of one device reach each other: a GID of it and the MTU. */
struct bench_path {
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
};

/* Open the device called NAME into *CTX (which the caller closes). */
static inline int bench_open(const char *name, struct ibv_context **ctx)
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
		*ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (i == n)
		return -ENODEV;
	return *ctx ? 0 : -errno;
}

/* Free what bench_open() and the caller made; NULL for what it did not. */
static inline void bench_close(struct ibv_context *ctx, struct ibv_pd *pd,
			       struct ibv_cq *cq)
{
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
}

/* The port's first IPv4-mapped GID (the one rnic-perf uses) and MTU. */
static inline int bench_path(struct ibv_context *ctx, struct bench_path *p)
{
	static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr pattr;
	int i;

	if (ibv_query_port(ctx, BENCH_PORT, &pattr))
		return -errno;
	p->mtu = pattr.active_mtu;
	for (i = 0; i < pattr.gid_tbl_len; i++) {
		if (ibv_query_gid(ctx, BENCH_PORT, i, &p->gid))
			continue;
		if (!memcmp(p->gid.raw, v4_prefix, sizeof(v4_prefix))) {
			p->gid_index = i;
			return 0;
		}
	}
	return -ENOENT;
}

/* An RC QP on PD with SEND_WRS and RECV_WRS, one SGE each, CQ for both. */
static inline struct ibv_qp *bench_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
					 uint32_t send_wrs, uint32_t recv_wrs)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = send_wrs,
			.max_recv_wr = recv_wrs,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	return ibv_create_qp(pd, &init);
}

/*
 * Move the RC QP to RTS, connected to the QP numbered DEST on the same
 * device along P; it lets its peer WRITE into it (no READs, no atomics).
 */
static inline int bench_connect(struct ibv_qp *qp, const struct bench_path *p,
				uint32_t dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = BENCH_PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return -ret;
	a = (struct ibv_qp_attr) {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = p->mtu,
		.dest_qp_num = dest,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.grh = {
				.dgid = p->gid,
				.sgid_index = p->gid_index,
				.hop_limit = 64,
			},
			.port_num = BENCH_PORT,
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

#endif /* RNIC_BENCH_VERBS_H */
