// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A first verbs program, built against an installed librnic with nothing but
 * `pkg-config --cflags --libs rnic` (tools/install/check), run in the VM by
 * tools/install/tests/vm.sh: find the device, open it, query it, then one
 * RC QP connected to itself RDMA WRITEs a buffer into another and the data
 * is compared.
 *
 * Usage: staged DEVICE
 * Prints one line per step; exit status 0 when every step worked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#define LEN 4096

static int fail(const char *what, int err)
{
	fprintf(stderr, "staged: %s: %s\n", what, strerror(err));
	return 1;
}

static struct ibv_context *open_named(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx && !errno)
		errno = ENODEV;
	return ctx;
}

/* RESET -> INIT -> RTR -> RTS, connected to itself over GID index 0. */
static int connect_self(struct ibv_qp *qp, const union ibv_gid *gid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.hop_limit = 64;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* One signalled RDMA WRITE of @src into @dst; waits for its completion. */
static int write_once(struct ibv_qp *qp, struct ibv_cq *cq,
		      struct ibv_mr *src, struct ibv_mr *dst)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)src->addr,
		.length = LEN,
		.lkey = src->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 42,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)dst->addr,
			.rkey = dst->rkey,
		},
	}, *bad;
	time_t end = time(NULL) + 60;
	struct ibv_wc wc;
	int ret, n;

	ret = ibv_post_send(qp, &wr, &bad);
	if (ret)
		return ret;
	/* A minute: the VM runs under TCG on a loaded host. */
	while (time(NULL) < end) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			return EIO;
		if (n == 0)
			continue;
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != 42 ||
		    wc.opcode != IBV_WC_RDMA_WRITE) {
			fprintf(stderr, "staged: completion: %s, wr_id %llu, opcode %d\n",
				ibv_wc_status_str(wc.status),
				(unsigned long long)wc.wr_id, wc.opcode);
			return EIO;
		}
		return 0;
	}
	return ETIMEDOUT;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_mr *src, *dst;
	struct ibv_context *ctx;
	union ibv_gid gid;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	char *buf;
	int ret = 1, i;

	if (argc != 2) {
		fprintf(stderr, "usage: staged DEVICE\n");
		return 2;
	}
	ctx = open_named(argv[1]);
	if (!ctx)
		return fail(argv[1], errno);
	printf("opened %s\n", argv[1]);
	if (ibv_query_device(ctx, &dattr) || ibv_query_port(ctx, 1, &pattr) ||
	    ibv_query_gid(ctx, 1, 0, &gid)) {
		fail("query", errno);
		goto out_close;
	}
	printf("max_qp %d, port state %s\n", dattr.max_qp,
	       ibv_port_state_str(pattr.state));

	buf = calloc(2, LEN);
	if (!buf) {
		fail("calloc", errno);
		goto out_close;
	}
	for (i = 0; i < LEN; i++)
		buf[i] = (char)(i * 7 + 1);
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		fail("ibv_alloc_pd", errno);
		goto out_free;
	}
	src = ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!src) {
		fail("ibv_reg_mr", errno);
		goto out_pd;
	}
	dst = ibv_reg_mr(pd, buf + LEN, LEN,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!dst) {
		fail("ibv_reg_mr", errno);
		goto out_src;
	}
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	if (!cq) {
		fail("ibv_create_cq", errno);
		goto out_dst;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	if (!qp) {
		fail("ibv_create_qp", errno);
		goto out_cq;
	}
	ret = connect_self(qp, &gid);
	if (ret) {
		fail("ibv_modify_qp", ret);
		goto out_qp;
	}
	printf("QP %u connected to itself\n", qp->qp_num);
	ret = write_once(qp, cq, src, dst);
	if (ret) {
		fail("RDMA WRITE", ret);
		goto out_qp;
	}
	if (memcmp(buf, buf + LEN, LEN)) {
		fprintf(stderr, "staged: RDMA WRITE: data differs\n");
		ret = 1;
		goto out_qp;
	}
	printf("RDMA WRITE of %d bytes verified\n", LEN);
out_qp:
	if (ibv_destroy_qp(qp))
		ret = fail("ibv_destroy_qp", errno);
out_cq:
	if (ibv_destroy_cq(cq))
		ret = fail("ibv_destroy_cq", errno);
out_dst:
	if (ibv_dereg_mr(dst))
		ret = fail("ibv_dereg_mr", errno);
out_src:
	if (ibv_dereg_mr(src))
		ret = fail("ibv_dereg_mr", errno);
out_pd:
	if (ibv_dealloc_pd(pd))
		ret = fail("ibv_dealloc_pd", errno);
out_free:
	free(buf);
out_close:
	if (ibv_close_device(ctx))
		ret = fail("ibv_close_device", errno);
	return ret ? 1 : 0;
}
