// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: shared receive queues.
 *
 * The kernel allocates the receive ring; ibv_create_srq() maps it (wq.c),
 * so that posting receives (post.c) needs no system call, and
 * ibv_destroy_srq() unmaps it. An XRC SRQ is the same ring with a domain,
 * a CQ and a number (the kernel's RNIC_CREATE_SRQ_XRC).
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

/* The SRQ ibv_create_srq() and ibv_create_srq_ex() make; NULL and errno. */
static struct ibv_srq *srq_create(struct ibv_pd *pd,
				  struct ibv_srq_init_attr *srq_init_attr,
				  struct ibv_xrcd *xrcd, struct ibv_cq *xrc_cq)
{
	struct ibv_srq_attr *attr = &srq_init_attr->attr;
	struct rnic_create_srq cmd = {
		.size = sizeof(cmd),
		.pd_handle = pd->handle,
		.max_wr = attr->max_wr,
		.max_sge = attr->max_sge,
		.srq_limit = attr->srq_limit,
	};
	struct rnic_destroy_srq destroy_cmd = { .size = sizeof(destroy_cmd) };
	struct rnic_srq *srq;
	int ret;

	if (xrcd) {
		cmd.flags = RNIC_CREATE_SRQ_XRC;
		cmd.xrcd_handle = to_rxrcd(xrcd)->handle;
		cmd.cq_handle = xrc_cq->handle;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	/* Asynchronous events name the SRQ by this pointer. */
	cmd.user_handle = (uintptr_t)&srq->ibsrq;
	ret = rnic_cmd(pd->context, RNIC_IOCTL_CREATE_SRQ, &cmd);
	if (ret)
		goto err_free;

	/* An SRQ always has a ring: the kernel grants at least 1 WR. */
	ret = cmd.out_max_wr ? 0 : EPROTO;
	srq->rq.max_sge = cmd.out_max_sge;
	if (!ret)
		ret = rnic_wq_open(&srq->rq, pd->context->cmd_fd,
				   &cmd.out_ring, NULL, cmd.out_max_wr,
				   sizeof(struct rnic_recv_wqe) +
				   (uint64_t)cmd.out_max_sge *
				   sizeof(struct rnic_sge));
	if (ret)
		goto err_destroy;
	srq->max_wr = cmd.out_max_wr;
	ret = pthread_mutex_init(&srq->ibsrq.mutex, NULL);
	if (ret)
		goto err_unmap;
	ret = pthread_cond_init(&srq->ibsrq.cond, NULL);
	if (ret)
		goto err_mutex;

	srq->ibsrq.context = pd->context;
	srq->ibsrq.srq_context = srq_init_attr->srq_context;
	srq->ibsrq.pd = pd;
	srq->ibsrq.handle = cmd.out_handle;
	srq->xrc = xrcd != NULL;
	srq->srq_num = cmd.out_srq_num;
	attr->max_wr = cmd.out_max_wr;
	attr->max_sge = cmd.out_max_sge;
	return &srq->ibsrq;

err_mutex:
	pthread_mutex_destroy(&srq->ibsrq.mutex);
err_unmap:
	rnic_wq_close(&srq->rq);
err_destroy:
	destroy_cmd.handle = cmd.out_handle;
	rnic_cmd(pd->context, RNIC_IOCTL_DESTROY_SRQ, &destroy_cmd);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *srq_init_attr)
{
	return srq_create(pd, srq_init_attr, NULL, NULL);
}

int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		   int srq_attr_mask)
{
	struct rnic_modify_srq cmd = {
		.size = sizeof(cmd),
		.handle = srq->handle,
		.attr_mask = (uint32_t)srq_attr_mask,
	};

	if (srq_attr_mask & IBV_SRQ_MAX_WR)
		cmd.max_wr = srq_attr->max_wr;
	if (srq_attr_mask & IBV_SRQ_LIMIT)
		cmd.srq_limit = srq_attr->srq_limit;
	return rnic_cmd(srq->context, RNIC_IOCTL_MODIFY_SRQ, &cmd);
}

int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	struct rnic_query_srq cmd = {
		.size = sizeof(cmd),
		.handle = srq->handle,
	};
	int ret;

	ret = rnic_cmd(srq->context, RNIC_IOCTL_QUERY_SRQ, &cmd);
	if (ret)
		return ret;
	srq_attr->max_wr = cmd.out_max_wr;
	srq_attr->max_sge = cmd.out_max_sge;
	srq_attr->srq_limit = cmd.out_srq_limit;
	return 0;
}

int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct rnic_srq *srq = to_rsrq(ibsrq);
	struct rnic_destroy_srq cmd = {
		.size = sizeof(cmd),
		.handle = ibsrq->handle,
	};
	int ret;

	ret = rnic_cmd(ibsrq->context, RNIC_IOCTL_DESTROY_SRQ, &cmd);
	if (ret)
		return ret;
	/* Every event the application got about the SRQ must be acked. */
	pthread_mutex_lock(&ibsrq->mutex);
	while (ibsrq->events_completed != cmd.out_async_events_reported)
		pthread_cond_wait(&ibsrq->cond, &ibsrq->mutex);
	pthread_mutex_unlock(&ibsrq->mutex);
	rnic_wq_close(&srq->rq);
	pthread_cond_destroy(&ibsrq->cond);
	pthread_mutex_destroy(&ibsrq->mutex);
	free(srq);
	return 0;
}

/*
 * What ibv_create_srq_ex() asks for, checked: the objects of this
 * context that the type needs. Tag matching is a feature rnic lacks; an
 * XRC domain and CQ given to a basic SRQ are ignored, as by rdma-core.
 */
static int srq_ex_attr_check(struct ibv_context *context,
			     const struct ibv_srq_init_attr_ex *attr,
			     enum ibv_srq_type type)
{
	uint32_t xrc = IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;

	if (attr->comp_mask >= IBV_SRQ_INIT_ATTR_RESERVED ||
	    attr->comp_mask & IBV_SRQ_INIT_ATTR_TM || type == IBV_SRQT_TM)
		return EOPNOTSUPP;
	if (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC)
		return EINVAL;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != context)
		return EINVAL;
	if (type == IBV_SRQT_XRC &&
	    ((attr->comp_mask & xrc) != xrc || !attr->xrcd || !attr->cq ||
	     attr->xrcd->context != context || attr->cq->context != context))
		return EINVAL;
	return 0;
}

/*
 * ibv_create_srq_ex() comes here for what is not a plain basic SRQ
 * (rdma-core's wrapper, and ours, call ibv_create_srq() for that).
 */
struct ibv_srq *rnic_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr)
{
	enum ibv_srq_type type = attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE ?
				 attr->srq_type : IBV_SRQT_BASIC;
	int ret;

	ret = srq_ex_attr_check(context, attr, type);
	if (ret) {
		errno = ret;
		return NULL;
	}
	/* struct ibv_srq_init_attr_ex begins as struct ibv_srq_init_attr. */
	if (type == IBV_SRQT_XRC)
		return srq_create(attr->pd, (struct ibv_srq_init_attr *)attr,
				  attr->xrcd, attr->cq);
	return srq_create(attr->pd, (struct ibv_srq_init_attr *)attr, NULL,
			  NULL);
}

/* Only XRC SRQs have a number: the one XRC senders name. */
int rnic_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct rnic_srq *srq = to_rsrq(ibsrq);

	if (!srq->xrc)
		return EINVAL;
	*srq_num = srq->srq_num;
	return 0;
}
