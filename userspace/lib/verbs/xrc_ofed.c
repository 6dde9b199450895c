// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: the reference documents' OFED 1.5 XRC API, a thin layer over
 * rdma-core's (xrcd.c, srq.c, qp.c).
 *
 * OFED names a receive QP by its number and registers processes with it;
 * the modern verbs give each context a handle on it (ibv_open_qp()), and
 * the QP goes away with its last handle. So a registration is a handle:
 * each struct ibv_xrc_domain keeps a small table, number -> this
 * context's QP handle, with a count of the registrations it stands for.
 * The first registration (ibv_create_xrc_rcv_qp(), or
 * ibv_reg_xrc_rcv_qp() of a QP another process made) takes the handle;
 * the last ibv_unreg_xrc_rcv_qp() destroys it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

/**
 * struct rnic_rcv_reg - the process's registrations with one receive QP
 * @qp: this context's handle on it
 * @count: ibv_reg_xrc_rcv_qp() calls (the create counts as one) not yet
 *	undone by ibv_unreg_xrc_rcv_qp()
 */
struct rnic_rcv_reg {
	struct ibv_qp *qp;
	unsigned int count;
};

/**
 * struct ibv_xrc_domain - an OFED XRC domain: one ibv_open_xrcd()
 * @xrcd: the domain as this context opened it
 * @lock: protects @regs and @nr_regs
 * @regs: the registrations, in no order; @nr_regs of them
 * @nr_regs: entries used in @regs
 * @max_regs: entries allocated
 */
struct ibv_xrc_domain {
	struct ibv_xrcd *xrcd;
	pthread_mutex_t lock;
	struct rnic_rcv_reg *regs;
	unsigned int nr_regs;
	unsigned int max_regs;
};

struct ibv_xrc_domain *ibv_open_xrc_domain(struct ibv_context *context,
					   int fd, int oflag)
{
	struct ibv_xrcd_init_attr attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflag,
	};
	struct ibv_xrc_domain *d;
	int ret;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	ret = pthread_mutex_init(&d->lock, NULL);
	if (ret) {
		free(d);
		errno = ret;
		return NULL;
	}
	d->xrcd = ibv_open_xrcd(context, &attr);
	if (!d->xrcd) {
		ret = errno;
		pthread_mutex_destroy(&d->lock);
		free(d);
		errno = ret;
		return NULL;
	}
	return d;
}

int ibv_close_xrc_domain(struct ibv_xrc_domain *d)
{
	int ret;

	/* OFED: closing fails while the process is registered with a QP. */
	pthread_mutex_lock(&d->lock);
	ret = d->nr_regs ? EBUSY : 0;
	pthread_mutex_unlock(&d->lock);
	if (!ret)
		ret = ibv_close_xrcd(d->xrcd);
	if (ret) {
		errno = ret;
		return ret;
	}
	pthread_mutex_destroy(&d->lock);
	free(d->regs);
	free(d);
	return 0;
}

struct ibv_srq *ibv_create_xrc_srq(struct ibv_pd *pd,
				   struct ibv_xrc_domain *xrc_domain,
				   struct ibv_cq *xrc_cq,
				   struct ibv_srq_init_attr *srq_init_attr)
{
	struct ibv_srq_init_attr_ex attr = {
		.srq_context = srq_init_attr->srq_context,
		.attr = srq_init_attr->attr,
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.cq = xrc_cq,
	};
	struct ibv_srq *srq;

	if (!xrc_domain) {
		errno = EINVAL;
		return NULL;
	}
	attr.xrcd = xrc_domain->xrcd;
	srq = ibv_create_srq_ex(pd->context, &attr);
	if (srq)
		srq_init_attr->attr = attr.attr;
	return srq;
}

/* The entry of QP @qp_num in @d->regs, or NULL; @d->lock held. */
static struct rnic_rcv_reg *reg_find(struct ibv_xrc_domain *d,
				     uint32_t qp_num)
{
	unsigned int i;

	for (i = 0; i < d->nr_regs; i++)
		if (d->regs[i].qp->qp_num == qp_num)
			return &d->regs[i];
	return NULL;
}

/* Room for one more entry in @d->regs; @d->lock held. 0 or ENOMEM. */
static int reg_reserve(struct ibv_xrc_domain *d)
{
	unsigned int max = d->max_regs ? 2 * d->max_regs : 4;
	struct rnic_rcv_reg *regs;

	if (d->nr_regs < d->max_regs)
		return 0;
	regs = realloc(d->regs, max * sizeof(*regs));
	if (!regs)
		return ENOMEM;
	d->regs = regs;
	d->max_regs = max;
	return 0;
}

/* Record a new handle as one registration; @d->lock held, room reserved. */
static void reg_add(struct ibv_xrc_domain *d, struct ibv_qp *qp)
{
	d->regs[d->nr_regs++] = (struct rnic_rcv_reg){ .qp = qp, .count = 1 };
}

int ibv_create_xrc_rcv_qp(struct ibv_qp_init_attr *init_attr,
			  uint32_t *xrc_rcv_qpn)
{
	struct ibv_xrc_domain *d = init_attr->xrc_domain;
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_qp *qp;
	int ret;

	if (!d) {
		errno = EINVAL;
		return EINVAL;
	}
	attr.xrcd = d->xrcd;
	pthread_mutex_lock(&d->lock);
	ret = reg_reserve(d);
	if (!ret) {
		qp = ibv_create_qp_ex(d->xrcd->context, &attr);
		ret = qp ? 0 : errno;
	}
	if (!ret) {
		reg_add(d, qp);
		*xrc_rcv_qpn = qp->qp_num;
	}
	pthread_mutex_unlock(&d->lock);
	if (ret)
		errno = ret;
	return ret;
}

int ibv_reg_xrc_rcv_qp(struct ibv_xrc_domain *d, uint32_t xrc_qp_num)
{
	struct ibv_qp_open_attr attr = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = xrc_qp_num,
		.xrcd = d->xrcd,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct rnic_rcv_reg *reg;
	struct ibv_qp *qp;
	int ret = 0;

	pthread_mutex_lock(&d->lock);
	reg = reg_find(d, xrc_qp_num);
	if (reg) {
		reg->count++;
	} else {
		ret = reg_reserve(d);
		if (!ret) {
			qp = ibv_open_qp(d->xrcd->context, &attr);
			ret = qp ? 0 : errno;
		}
		if (!ret)
			reg_add(d, qp);
	}
	pthread_mutex_unlock(&d->lock);
	if (ret)
		errno = ret;
	return ret;
}

int ibv_unreg_xrc_rcv_qp(struct ibv_xrc_domain *d, uint32_t xrc_qp_num)
{
	struct rnic_rcv_reg *reg;
	int ret = 0;

	pthread_mutex_lock(&d->lock);
	reg = reg_find(d, xrc_qp_num);
	if (!reg) {
		ret = EINVAL;
	} else if (reg->count > 1) {
		reg->count--;
	} else {
		ret = ibv_destroy_qp(reg->qp);
		/* Its entry goes: the last one takes its place. */
		if (!ret)
			*reg = d->regs[--d->nr_regs];
	}
	pthread_mutex_unlock(&d->lock);
	if (ret)
		errno = ret;
	return ret;
}

/*
 * Modify or query (@init_attr not NULL) the registered handle on QP
 * @qp_num of @d, under @d->lock so that no unregistration destroys it
 * meanwhile.
 */
static int reg_qp_call(struct ibv_xrc_domain *d, uint32_t qp_num,
		       struct ibv_qp_attr *attr, int attr_mask,
		       struct ibv_qp_init_attr *init_attr)
{
	struct rnic_rcv_reg *reg;
	int ret;

	pthread_mutex_lock(&d->lock);
	reg = reg_find(d, qp_num);
	if (!reg)
		ret = EINVAL;
	else if (init_attr)
		ret = ibv_query_qp(reg->qp, attr, attr_mask, init_attr);
	else
		ret = ibv_modify_qp(reg->qp, attr, attr_mask);
	pthread_mutex_unlock(&d->lock);
	if (ret)
		errno = ret;
	return ret;
}

int ibv_modify_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
			  uint32_t xrc_qp_num, struct ibv_qp_attr *attr,
			  int attr_mask)
{
	return reg_qp_call(xrc_domain, xrc_qp_num, attr, attr_mask, NULL);
}

int ibv_query_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
			 uint32_t xrc_qp_num, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	int ret;

	ret = reg_qp_call(xrc_domain, xrc_qp_num, attr, attr_mask, init_attr);
	/* An OFED caller's struct has the field rdma-core's lacks. */
	if (!ret)
		init_attr->xrc_domain = xrc_domain;
	return ret;
}
