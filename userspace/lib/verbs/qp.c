// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: queue pairs and multicast.
 *
 * The kernel allocates a QP's send and receive rings; ibv_create_qp() maps
 * them (wq.c), so that posting work requests (post.c) writes to them
 * directly, and ibv_destroy_qp() unmaps them. With RNIC_SQ_POLL=1 in the
 * environment, QPs with a send queue are created with
 * RNIC_CREATE_QP_SQ_POLL. The state machine and every check of the
 * attributes are the kernel's: ibv_modify_qp() only translates.
 *
 * XRC QPs are the kernel's too: an XRC_SEND QP has a send ring and no
 * receive ring; an XRC_RECV (target) QP has neither, lives in an XRC
 * domain and is shared by number (ibv_open_qp()): each context holds a
 * handle on it, which ibv_destroy_qp() drops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Bytes a send entry needs after the header: SGEs or inline data. */
static uint64_t send_room(const struct rnic_qp_cap *cap)
{
	uint64_t sges = (uint64_t)cap->max_send_sge * sizeof(struct rnic_sge);

	return sges > cap->max_inline_data ? sges : cap->max_inline_data;
}

/*
 * Check and map both rings of a QP the kernel created. The granted sizes
 * are what posting checks against, so they are kept with the rings.
 */
static int qp_map(struct rnic_qp *qp, int fd, const struct rnic_create_qp *cmd)
{
	const struct rnic_qp_cap *cap = &cmd->out_cap;
	int ret;

	qp->sq.max_sge = cap->max_send_sge;
	qp->sq.max_inline = cap->max_inline_data;
	ret = rnic_wq_open(&qp->sq, fd, &cmd->out_sq, &cmd->out_sq_flags_off,
			   cap->max_send_wr,
			   sizeof(struct rnic_send_wqe) + send_room(cap));
	if (ret)
		return ret;
	qp->rq.max_sge = cap->max_recv_sge;
	ret = rnic_wq_open(&qp->rq, fd, &cmd->out_rq, &cmd->out_rq_flags_off,
			   cap->max_recv_wr,
			   sizeof(struct rnic_recv_wqe) +
			   (uint64_t)cap->max_recv_sge * sizeof(struct rnic_sge));
	if (ret)
		rnic_wq_close(&qp->sq);
	return ret;
}

static void qp_unmap(struct rnic_qp *qp)
{
	rnic_wq_close(&qp->rq);
	rnic_wq_close(&qp->sq);
}

/* RNIC_SQ_POLL=1: the kernel's polling thread watches new send queues. */
static bool sq_poll_wanted(void)
{
	const char *v = secure_getenv(RNIC_ENV_SQ_POLL);

	return v && !strcmp(v, "1");
}

static void cap_from_kernel(struct ibv_qp_cap *cap,
			    const struct rnic_qp_cap *kcap)
{
	cap->max_send_wr = kcap->max_send_wr;
	cap->max_recv_wr = kcap->max_recv_wr;
	cap->max_send_sge = kcap->max_send_sge;
	cap->max_recv_sge = kcap->max_recv_sge;
	cap->max_inline_data = kcap->max_inline_data;
}

static int destroy_cmd(struct ibv_context *context, uint32_t handle,
		       uint32_t *events_reported)
{
	struct rnic_destroy_qp cmd = { .size = sizeof(cmd), .handle = handle };
	int ret;

	ret = rnic_cmd(context, RNIC_IOCTL_DESTROY_QP, &cmd);
	*events_reported = cmd.out_async_events_reported;
	return ret;
}

/*
 * The kernel's type of a QP: the reference documents' IBV_QPT_XRC is an
 * XRC send QP. Other values go to the kernel as they are, which refuses
 * what it does not implement.
 */
static uint32_t kernel_qp_type(enum ibv_qp_type type)
{
	return type == IBV_QPT_XRC ? RNIC_QPT_XRC_SEND : (uint32_t)type;
}

static bool qpt_is_xrc(enum ibv_qp_type type)
{
	return type == IBV_QPT_XRC || type == IBV_QPT_XRC_SEND ||
	       type == IBV_QPT_XRC_RECV;
}

/*
 * The objects a QP type needs, of the context: a target QP its domain
 * only; an XRC send QP a PD and a send CQ (and, as the reference
 * documents' IBV_QPT_XRC, its domain); the others a PD and both CQs.
 */
static int qp_objs_check(struct ibv_context *context, struct ibv_pd *pd,
			 struct ibv_xrcd *xrcd,
			 const struct ibv_qp_init_attr *a)
{
	switch (a->qp_type) {
	case IBV_QPT_XRC_RECV:
		return xrcd && xrcd->context == context ? 0 : EINVAL;
	case IBV_QPT_XRC:
		/* The last field rdma-core's struct lacks: this type only. */
		if (!a->xrc_domain)
			return EINVAL;
		/* fall through */
	case IBV_QPT_XRC_SEND:
		return pd && a->send_cq ? 0 : EINVAL;
	default:
		return pd && a->send_cq && a->recv_cq ? 0 : EINVAL;
	}
}

/* The create command for @a, checked by qp_objs_check(). */
static void qp_create_cmd(struct rnic_create_qp *cmd, struct ibv_pd *pd,
			  struct ibv_xrcd *xrcd,
			  const struct ibv_qp_init_attr *a)
{
	const struct ibv_qp_cap *cap = &a->cap;

	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->qp_type = kernel_qp_type(a->qp_type);
	if (a->qp_type == IBV_QPT_XRC_RECV) {
		/* No PD, CQs, queues or flags: the domain's SRQs have them. */
		cmd->xrcd_handle = to_rxrcd(xrcd)->handle;
		return;
	}
	cmd->pd_handle = pd->handle;
	cmd->send_cq_handle = a->send_cq->handle;
	cmd->recv_cq_handle = a->recv_cq ? a->recv_cq->handle : 0;
	cmd->cap = (struct rnic_qp_cap){
		.max_send_wr = cap->max_send_wr,
		.max_recv_wr = cap->max_recv_wr,
		.max_send_sge = cap->max_send_sge,
		.max_recv_sge = cap->max_recv_sge,
		.max_inline_data = cap->max_inline_data,
	};
	if (a->srq) {
		cmd->flags |= RNIC_CREATE_QP_SRQ;
		cmd->srq_handle = a->srq->handle;
	}
	if (a->sq_sig_all)
		cmd->flags |= RNIC_CREATE_QP_SQ_SIG_ALL;
	if (cap->max_send_wr && sq_poll_wanted())
		cmd->flags |= RNIC_CREATE_QP_SQ_POLL;
}

/* The event counting state of a new QP; undone by qp_sync_fini(). */
static int qp_sync_init(struct rnic_qp *qp)
{
	int ret;

	ret = pthread_mutex_init(&qp->ibqp.mutex, NULL);
	if (ret)
		return ret;
	ret = pthread_cond_init(&qp->ibqp.cond, NULL);
	if (ret)
		pthread_mutex_destroy(&qp->ibqp.mutex);
	return ret;
}

static void qp_sync_fini(struct rnic_qp *qp)
{
	pthread_cond_destroy(&qp->ibqp.cond);
	pthread_mutex_destroy(&qp->ibqp.mutex);
}

/*
 * The QP ibv_create_qp() and ibv_create_qp_ex() make; NULL and errno.
 * @pd is NULL for a target QP, @xrcd NULL but for one.
 */
static struct rnic_qp *qp_create(struct ibv_context *context,
				 struct ibv_pd *pd, struct ibv_xrcd *xrcd,
				 struct ibv_qp_init_attr *qp_init_attr)
{
	struct rnic_create_qp cmd;
	struct rnic_qp *qp;
	uint32_t reported;
	int ret;

	ret = qp_objs_check(context, pd, xrcd, qp_init_attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	qp_create_cmd(&cmd, pd, xrcd, qp_init_attr);

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	/* Asynchronous events name the QP by this pointer. */
	cmd.user_handle = (uintptr_t)&qp->ibqp;
	ret = rnic_cmd(context, RNIC_IOCTL_CREATE_QP, &cmd);
	if (ret)
		goto err_free;

	ret = qp_map(qp, context->cmd_fd, &cmd);
	if (ret)
		goto err_destroy;
	ret = qp_sync_init(qp);
	if (ret)
		goto err_unmap;

	qp->ibqp.context = context;
	qp->ibqp.qp_context = qp_init_attr->qp_context;
	if (qp_init_attr->qp_type != IBV_QPT_XRC_RECV) {
		qp->ibqp.pd = pd;
		qp->ibqp.send_cq = qp_init_attr->send_cq;
		qp->ibqp.recv_cq = qp_init_attr->recv_cq;
		qp->ibqp.srq = qp_init_attr->srq;
	}
	qp->ibqp.handle = cmd.out_handle;
	qp->ibqp.qp_num = cmd.out_qp_num;
	qp->ibqp.state = IBV_QPS_RESET;
	qp->ibqp.qp_type = qp_init_attr->qp_type;
	qp->sq_sig_all = qp_init_attr->sq_sig_all;
	qp->sq_poll = cmd.flags & RNIC_CREATE_QP_SQ_POLL;
	qp->xrc = qpt_is_xrc(qp_init_attr->qp_type);
	qp->send_opcodes = rnic_qp_send_opcodes(qp_init_attr->qp_type);
	cap_from_kernel(&qp_init_attr->cap, &cmd.out_cap);
	return qp;

err_unmap:
	qp_unmap(qp);
err_destroy:
	destroy_cmd(context, cmd.out_handle, &reported);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	struct rnic_qp *qp;

	/*
	 * A target QP has no PD: it is made by ibv_create_qp_ex() with its
	 * domain, which this struct cannot carry.
	 */
	if (qp_init_attr->qp_type == IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	qp = qp_create(pd->context, pd, NULL, qp_init_attr);
	return qp ? &qp->ibqp : NULL;
}

/* The send_ops_flags bits are the ibv_wr_opcode values' bits. */
#define SAME_BIT(flag, op) ((uint64_t)(flag) == 1ULL << (op))
_Static_assert(SAME_BIT(IBV_QP_EX_WITH_RDMA_WRITE, IBV_WR_RDMA_WRITE) &&
	       SAME_BIT(IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
			IBV_WR_RDMA_WRITE_WITH_IMM) &&
	       SAME_BIT(IBV_QP_EX_WITH_SEND, IBV_WR_SEND) &&
	       SAME_BIT(IBV_QP_EX_WITH_SEND_WITH_IMM, IBV_WR_SEND_WITH_IMM) &&
	       SAME_BIT(IBV_QP_EX_WITH_RDMA_READ, IBV_WR_RDMA_READ) &&
	       SAME_BIT(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
			IBV_WR_ATOMIC_CMP_AND_SWP) &&
	       SAME_BIT(IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
			IBV_WR_ATOMIC_FETCH_AND_ADD) &&
	       SAME_BIT(IBV_QP_EX_WITH_LOCAL_INV, IBV_WR_LOCAL_INV) &&
	       SAME_BIT(IBV_QP_EX_WITH_BIND_MW, IBV_WR_BIND_MW) &&
	       SAME_BIT(IBV_QP_EX_WITH_SEND_WITH_INV, IBV_WR_SEND_WITH_INV),
	       "send_ops_flags bits are opcode bits");

/*
 * What ibv_create_qp_ex() accepts beyond ibv_create_qp(): the PD it
 * requires (a target QP: its XRC domain instead), send_ops_flags naming
 * opcodes the QP type has on rnic, and create_flags if they ask for
 * nothing. Create flags, TSO, RSS and source QPNs are features rnic
 * lacks. The reference documents' IBV_QPT_XRC is ibv_create_qp()'s
 * alone: struct ibv_qp_init_attr_ex has comp_mask where that type's
 * xrc_domain would be.
 */
static int qp_ex_attr_check(struct ibv_context *context,
			    const struct ibv_qp_init_attr_ex *attr)
{
	uint32_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
			 IBV_QP_INIT_ATTR_CREATE_FLAGS;

	if (attr->comp_mask & ~known)
		return EOPNOTSUPP;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if (attr->qp_type == IBV_QPT_XRC)
		return EINVAL;
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd ||
		    attr->xrcd->context != context)
			return EINVAL;
	} else if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
		   attr->pd->context != context) {
		return EINVAL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS &&
	    attr->send_ops_flags & ~(uint64_t)rnic_qp_send_opcodes(attr->qp_type))
		return EOPNOTSUPP;
	return 0;
}

struct ibv_qp *rnic_create_qp_ex(struct ibv_context *context,
				struct ibv_qp_init_attr_ex *attr)
{
	struct rnic_qp *qp;
	int ret;

	ret = qp_ex_attr_check(context, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	/*
	 * struct ibv_qp_init_attr_ex begins as struct ibv_qp_init_attr, up
	 * to the xrc_domain field that IBV_QPT_XRC alone reads.
	 */
	qp = qp_create(context,
		       attr->qp_type == IBV_QPT_XRC_RECV ? NULL : attr->pd,
		       attr->qp_type == IBV_QPT_XRC_RECV ? attr->xrcd : NULL,
		       (struct ibv_qp_init_attr *)attr);
	if (!qp)
		return NULL;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return &qp->ibqp;
	ret = rnic_wr_builder_init(qp, attr->send_ops_flags);
	if (ret) {
		ibv_destroy_qp(&qp->ibqp);
		errno = ret;
		return NULL;
	}
	return &qp->ibqp;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
	struct rnic_qp *qp = to_rqp(ibqp);

	return qp->builder ? &qp->ibqpx : NULL;
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct rnic_qp *qp = to_rqp(ibqp);
	uint32_t reported;
	int ret;

	ret = destroy_cmd(ibqp->context, ibqp->handle, &reported);
	if (ret)
		return ret;
	/* Every event the application got about the QP must be acked. */
	pthread_mutex_lock(&ibqp->mutex);
	while (ibqp->events_completed != reported)
		pthread_cond_wait(&ibqp->cond, &ibqp->mutex);
	pthread_mutex_unlock(&ibqp->mutex);
	qp_unmap(qp);
	rnic_wr_builder_fini(qp);
	qp_sync_fini(qp);
	free(qp);
	return 0;
}

/* rdma-core's rules for ibv_open_qp(): NUM, XRCD and TYPE required. */
static int open_attr_check(struct ibv_context *context,
			   const struct ibv_qp_open_attr *attr)
{
	uint32_t needed = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			  IBV_QP_OPEN_ATTR_TYPE;

	if (attr->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED)
		return EOPNOTSUPP;
	if ((attr->comp_mask & needed) != needed || !attr->xrcd ||
	    attr->xrcd->context != context ||
	    attr->qp_type != IBV_QPT_XRC_RECV)
		return EINVAL;
	return 0;
}

/*
 * A handle on a target QP of the domain: a QP without queues (the
 * zeroed command gives it empty rings, as for a created target QP). Its
 * state is not known until ibv_query_qp() or ibv_modify_qp() tells it.
 */
struct ibv_qp *rnic_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr)
{
	struct rnic_open_qp cmd = { .size = sizeof(cmd) };
	struct rnic_create_qp none;
	struct rnic_qp *qp;
	uint32_t reported;
	int ret;

	ret = open_attr_check(context, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	cmd.xrcd_handle = to_rxrcd(attr->xrcd)->handle;
	cmd.qp_num = attr->qp_num;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	cmd.user_handle = (uintptr_t)&qp->ibqp;
	ret = rnic_cmd(context, RNIC_IOCTL_OPEN_QP, &cmd);
	if (ret)
		goto err_free;
	memset(&none, 0, sizeof(none));
	ret = qp_map(qp, context->cmd_fd, &none);
	if (ret)
		goto err_destroy;
	ret = qp_sync_init(qp);
	if (ret)
		goto err_unmap;

	qp->ibqp.context = context;
	if (attr->comp_mask & IBV_QP_OPEN_ATTR_CONTEXT)
		qp->ibqp.qp_context = attr->qp_context;
	qp->ibqp.handle = cmd.out_handle;
	qp->ibqp.qp_num = attr->qp_num;
	qp->ibqp.state = IBV_QPS_UNKNOWN;
	qp->ibqp.qp_type = IBV_QPT_XRC_RECV;
	qp->xrc = true;
	return &qp->ibqp;

err_unmap:
	qp_unmap(qp);
err_destroy:
	destroy_cmd(context, cmd.out_handle, &reported);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

static void ah_attr_to_kernel(struct rnic_ah_attr *k,
			      const struct ibv_ah_attr *a)
{
	memcpy(k->dgid, a->grh.dgid.raw, sizeof(k->dgid));
	k->flow_label = a->grh.flow_label;
	k->sgid_index = a->grh.sgid_index;
	k->hop_limit = a->grh.hop_limit;
	k->traffic_class = a->grh.traffic_class;
	k->sl = a->sl;
	k->is_global = a->is_global ? 1 : 0;
	k->port_num = a->port_num;
	k->static_rate = a->static_rate;
	k->src_path_bits = a->src_path_bits;
	k->dlid = a->dlid;
}

static void ah_attr_from_kernel(struct ibv_ah_attr *a,
				const struct rnic_ah_attr *k)
{
	memcpy(a->grh.dgid.raw, k->dgid, sizeof(a->grh.dgid.raw));
	a->grh.flow_label = k->flow_label;
	a->grh.sgid_index = k->sgid_index;
	a->grh.hop_limit = k->hop_limit;
	a->grh.traffic_class = k->traffic_class;
	a->sl = k->sl;
	a->is_global = k->is_global;
	a->port_num = k->port_num;
	a->static_rate = k->static_rate;
	a->src_path_bits = k->src_path_bits;
	a->dlid = k->dlid;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct rnic_modify_qp cmd = {
		.size = sizeof(cmd),
		.handle = qp->handle,
		.attr_mask = (uint32_t)attr_mask,
		.attr = {
			.qp_state = (uint32_t)attr->qp_state,
			.cur_qp_state = (uint32_t)attr->cur_qp_state,
			.path_mtu = (uint32_t)attr->path_mtu,
			.path_mig_state = (uint32_t)attr->path_mig_state,
			.qkey = attr->qkey,
			.rq_psn = attr->rq_psn,
			.sq_psn = attr->sq_psn,
			.dest_qp_num = attr->dest_qp_num,
			.qp_access_flags = attr->qp_access_flags,
			.pkey_index = attr->pkey_index,
			.en_sqd_async_notify = attr->en_sqd_async_notify,
			.max_rd_atomic = attr->max_rd_atomic,
			.max_dest_rd_atomic = attr->max_dest_rd_atomic,
			.min_rnr_timer = attr->min_rnr_timer,
			.port_num = attr->port_num,
			.timeout = attr->timeout,
			.retry_cnt = attr->retry_cnt,
			.rnr_retry = attr->rnr_retry,
		},
	};
	int ret;

	ah_attr_to_kernel(&cmd.attr.ah_attr, &attr->ah_attr);
	ret = rnic_cmd(qp->context, RNIC_IOCTL_MODIFY_QP, &cmd);
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_STATE) {
		__atomic_store_n(&qp->state, attr->qp_state, __ATOMIC_RELAXED);
		/* The kernel set every ring index back to 0. */
		if (attr->qp_state == IBV_QPS_RESET) {
			rnic_wq_sync(&to_rqp(qp)->sq);
			rnic_wq_sync(&to_rqp(qp)->rq);
		}
	}
	return 0;
}

int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		 int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct rnic_query_qp cmd = {
		.size = sizeof(cmd),
		.handle = ibqp->handle,
	};
	const struct rnic_qp_attr *k = &cmd.out_attr;
	struct rnic_qp *qp = to_rqp(ibqp);
	int ret;

	ret = rnic_cmd(ibqp->context, RNIC_IOCTL_QUERY_QP, &cmd);
	if (ret)
		return ret;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)k->qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)k->cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)k->path_mtu;
	attr->path_mig_state = (enum ibv_mig_state)k->path_mig_state;
	attr->qkey = k->qkey;
	attr->rq_psn = k->rq_psn;
	attr->sq_psn = k->sq_psn;
	attr->dest_qp_num = k->dest_qp_num;
	attr->qp_access_flags = k->qp_access_flags;
	cap_from_kernel(&attr->cap, &cmd.out_cap);
	ah_attr_from_kernel(&attr->ah_attr, &k->ah_attr);
	/* The kernel checked the ranges: these fit their fields. */
	attr->pkey_index = (uint16_t)k->pkey_index;
	attr->en_sqd_async_notify = (uint8_t)k->en_sqd_async_notify;
	attr->sq_draining = (uint8_t)k->sq_draining;
	attr->max_rd_atomic = (uint8_t)k->max_rd_atomic;
	attr->max_dest_rd_atomic = (uint8_t)k->max_dest_rd_atomic;
	attr->min_rnr_timer = (uint8_t)k->min_rnr_timer;
	attr->port_num = (uint8_t)k->port_num;
	attr->timeout = (uint8_t)k->timeout;
	attr->retry_cnt = (uint8_t)k->retry_cnt;
	attr->rnr_retry = (uint8_t)k->rnr_retry;

	/*
	 * Up to xrc_domain: a caller built with rdma-core's header has no
	 * more. The reference documents' API fills that field itself.
	 */
	memset(init_attr, 0, offsetof(struct ibv_qp_init_attr, xrc_domain));
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = attr->cap;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->sq_sig_all = qp->sq_sig_all;
	if (attr_mask & IBV_QP_STATE)
		__atomic_store_n(&ibqp->state, attr->qp_state,
				 __ATOMIC_RELAXED);
	return 0;
}

static int mcast_cmd(struct ibv_qp *qp, unsigned long ioctl_cmd,
		     const union ibv_gid *gid, uint16_t lid)
{
	struct rnic_attach_mcast cmd = {
		.size = sizeof(cmd),
		.qp_handle = qp->handle,
		.mlid = lid,
	};

	memcpy(cmd.gid, gid->raw, sizeof(cmd.gid));
	return rnic_cmd(qp->context, ioctl_cmd, &cmd);
}

int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	return mcast_cmd(qp, RNIC_IOCTL_ATTACH_MCAST, gid, lid);
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	return mcast_cmd(qp, RNIC_IOCTL_DETACH_MCAST, gid, lid);
}
