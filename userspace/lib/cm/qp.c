// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The devices ids are bound to, and the verbs objects the library makes
 * for ids: QPs (moved to INIT, or for UD to RTS, at once), their CQs when
 * the application gives none, SRQs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"

/*
 * One context per rnic device for the whole process, opened on first use
 * and kept (as librdmacm keeps its devices): ids of one device share it,
 * and rdma_get_devices() hands the same ones out.
 */
static pthread_mutex_t cm_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cm_device *cm_devices;

static struct cm_device *cm_device_find(const char *name)
{
	struct cm_device *dev;

	for (dev = cm_devices; dev; dev = dev->next)
		if (!strcmp(ibv_get_device_name(dev->verbs->device), name))
			return dev;
	return NULL;
}

static struct cm_device *cm_device_open(struct ibv_device *ibdev)
{
	struct cm_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->verbs = ibv_open_device(ibdev);
	if (!dev->verbs) {
		free(dev);
		return NULL;
	}
	dev->next = cm_devices;
	cm_devices = dev;
	return dev;
}

/*
 * Opens every rnic device not opened yet; with @name, only that one.
 * Called with cm_dev_lock held.
 */
static int cm_devices_open(const char *name)
{
	struct ibv_device **list;
	const char *devname;
	int i, n, ret = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return -1;
	for (i = 0; i < n; i++) {
		devname = ibv_get_device_name(list[i]);
		if (name && strcmp(devname, name))
			continue;
		if (cm_device_find(devname))
			continue;
		if (!cm_device_open(list[i]))
			ret = -1;
	}
	ibv_free_device_list(list);
	return ret;
}

struct cm_device *cm_device_get(const char *name)
{
	struct cm_device *dev;

	pthread_mutex_lock(&cm_dev_lock);
	dev = cm_device_find(name);
	if (!dev) {
		cm_devices_open(name);
		dev = cm_device_find(name);
	}
	pthread_mutex_unlock(&cm_dev_lock);
	if (!dev && !errno)
		errno = ENODEV;
	return dev;
}

/*
 * At exit (or when the library is unloaded), the devices' PDs and
 * contexts are released: a program that destroyed its ids leaves nothing
 * behind, and leak checkers see no context still held.
 */
static void __attribute__((destructor)) cm_devices_close(void)
{
	struct cm_device *dev, *next;

	pthread_mutex_lock(&cm_dev_lock);
	for (dev = cm_devices; dev; dev = next) {
		next = dev->next;
		if (dev->pd)
			ibv_dealloc_pd(dev->pd);
		ibv_close_device(dev->verbs);
		free(dev);
	}
	cm_devices = NULL;
	pthread_mutex_unlock(&cm_dev_lock);
}

struct ibv_pd *cm_device_pd(struct cm_device *dev)
{
	struct ibv_pd *pd;

	pthread_mutex_lock(&cm_dev_lock);
	if (!dev->pd)
		dev->pd = ibv_alloc_pd(dev->verbs);
	pd = dev->pd;
	pthread_mutex_unlock(&cm_dev_lock);
	return pd;
}

struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	struct cm_device *dev;
	int n = 0;

	pthread_mutex_lock(&cm_dev_lock);
	cm_devices_open(NULL);
	for (dev = cm_devices; dev; dev = dev->next)
		n++;
	list = calloc((size_t)n + 1, sizeof(*list));
	if (list) {
		n = 0;
		for (dev = cm_devices; dev; dev = dev->next)
			list[n++] = dev->verbs;
	}
	pthread_mutex_unlock(&cm_dev_lock);
	if (num_devices)
		*num_devices = list ? n : 0;
	return list;
}

/* Only the array is the caller's: the contexts stay open. */
void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

static void cm_destroy_cqs(struct cm_id *cid)
{
	struct rdma_cm_id *id = &cid->id;

	if (!cid->own_cqs)
		return;
	if (id->recv_cq && id->recv_cq != id->send_cq)
		ibv_destroy_cq(id->recv_cq);
	if (id->send_cq)
		ibv_destroy_cq(id->send_cq);
	if (id->recv_cq_channel)
		ibv_destroy_comp_channel(id->recv_cq_channel);
	if (id->send_cq_channel)
		ibv_destroy_comp_channel(id->send_cq_channel);
	id->recv_cq = id->send_cq = NULL;
	id->recv_cq_channel = id->send_cq_channel = NULL;
	cid->own_cqs = false;
}

static struct ibv_cq *cm_make_cq(struct rdma_cm_id *id, int cqe,
				 struct ibv_comp_channel **channel)
{
	struct ibv_cq *cq;

	*channel = ibv_create_comp_channel(id->verbs);
	if (!*channel)
		return NULL;
	cq = ibv_create_cq(id->verbs, cqe > 0 ? cqe : 1, id, *channel, 0);
	if (!cq) {
		ibv_destroy_comp_channel(*channel);
		*channel = NULL;
	}
	return cq;
}

/*
 * The id's CQs (each with a completion channel, for rdma_verbs.h's
 * rdma_get_send_comp() and rdma_get_recv_comp()), if it has none yet.
 */
static int cm_create_cqs(struct cm_id *cid, int send_cqe, int recv_cqe)
{
	struct rdma_cm_id *id = &cid->id;

	if (send_cqe && !id->send_cq) {
		cid->own_cqs = true;
		id->send_cq = cm_make_cq(id, send_cqe, &id->send_cq_channel);
		if (!id->send_cq)
			goto err;
	}
	if (recv_cqe && !id->recv_cq) {
		cid->own_cqs = true;
		id->recv_cq = cm_make_cq(id, recv_cqe, &id->recv_cq_channel);
		if (!id->recv_cq)
			goto err;
	}
	return 0;

err:
	cm_destroy_cqs(cid);
	return -1;
}

/* A UD QP goes to RTS at once: it is ready for any peer's datagrams. */
static int cm_ud_qp_ready(struct cm_id *cid)
{
	struct ibv_qp_attr attr;
	int ret;

	if (cm_modify_qp(cid, IBV_QPS_INIT))
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(cid->id.qp, &attr, IBV_QP_STATE);
	if (!ret) {
		attr.qp_state = IBV_QPS_RTS;
		attr.sq_psn = 0;
		ret = ibv_modify_qp(cid->id.qp, &attr,
				    IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

int rdma_create_qp_ex(struct rdma_cm_id *id,
		      struct ibv_qp_init_attr_ex *attr)
{
	struct cm_id *cid;
	struct ibv_qp *qp;
	int err;

	if (!id || !attr || !id->verbs || id->qp) {
		errno = EINVAL;
		return -1;
	}
	cid = to_cm_id(id);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = id->pd ? id->pd : cm_device_pd(cid->dev);
		if (!attr->pd)
			return -1;
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
	}
	if (attr->pd->context != id->verbs) {
		errno = EINVAL;
		return -1;
	}
	if (id->srq && !attr->srq)
		attr->srq = id->srq;
	if (cm_create_cqs(cid, attr->send_cq ? 0 : (int)attr->cap.max_send_wr,
			  attr->recv_cq ? 0 : (int)attr->cap.max_recv_wr))
		return -1;
	if (!attr->send_cq)
		attr->send_cq = id->send_cq;
	if (!attr->recv_cq)
		attr->recv_cq = id->recv_cq;
	qp = ibv_create_qp_ex(id->verbs, attr);
	if (!qp)
		goto err_cqs;
	id->qp = qp;
	if (id->qp_type == IBV_QPT_UD ? cm_ud_qp_ready(cid) :
	    cm_modify_qp(cid, IBV_QPS_INIT))
		goto err_qp;
	/* The id's PD is its QP's from now on (rdma_reg_msgs() uses it). */
	id->pd = qp->pd;
	return 0;

err_qp:
	err = errno;
	ibv_destroy_qp(qp);
	id->qp = NULL;
	errno = err;
err_cqs:
	err = errno;
	cm_destroy_cqs(cid);
	errno = err;
	return -1;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex attr;
	int ret;

	if (!id || !qp_init_attr) {
		errno = EINVAL;
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.qp_context = qp_init_attr->qp_context;
	attr.send_cq = qp_init_attr->send_cq;
	attr.recv_cq = qp_init_attr->recv_cq;
	attr.srq = qp_init_attr->srq;
	attr.cap = qp_init_attr->cap;
	attr.qp_type = qp_init_attr->qp_type;
	attr.sq_sig_all = qp_init_attr->sq_sig_all;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.pd = pd;
	ret = rdma_create_qp_ex(id, &attr);
	if (!ret) {
		/* The caller learns what it got, as from ibv_create_qp(). */
		qp_init_attr->cap = attr.cap;
		qp_init_attr->send_cq = attr.send_cq;
		qp_init_attr->recv_cq = attr.recv_cq;
		qp_init_attr->srq = attr.srq;
	}
	return ret;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (!id || !id->qp)
		return;
	ibv_destroy_qp(id->qp);
	id->qp = NULL;
	/* The CQs of an SRQ the library made stay with the SRQ. */
	if (!id->srq)
		cm_destroy_cqs(to_cm_id(id));
}

int rdma_create_srq_ex(struct rdma_cm_id *id,
		       struct ibv_srq_init_attr_ex *attr)
{
	struct cm_id *cid;
	struct ibv_srq *srq;

	if (!id || !attr || !id->verbs || id->srq) {
		errno = EINVAL;
		return -1;
	}
	cid = to_cm_id(id);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = id->pd ? id->pd : cm_device_pd(cid->dev);
		if (!attr->pd)
			return -1;
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)) {
		attr->srq_type = IBV_SRQT_BASIC;
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_TYPE;
	}
	/* Receives through the SRQ complete on the id's receive CQ. */
	if (cm_create_cqs(cid, 0, (int)attr->attr.max_wr))
		return -1;
	if (attr->srq_type == IBV_SRQT_XRC &&
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ)) {
		attr->cq = id->recv_cq;
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
	}
	srq = ibv_create_srq_ex(id->verbs, attr);
	if (!srq) {
		int err = errno;

		cm_destroy_cqs(cid);
		errno = err;
		return -1;
	}
	id->srq = srq;
	if (!id->pd)
		id->pd = attr->pd;
	return 0;
}

int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		    struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex;
	int ret;

	if (!id || !attr) {
		errno = EINVAL;
		return -1;
	}
	memset(&ex, 0, sizeof(ex));
	ex.srq_context = attr->srq_context;
	ex.attr = attr->attr;
	ex.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
	ex.srq_type = IBV_SRQT_BASIC;
	ex.pd = pd;
	ret = rdma_create_srq_ex(id, &ex);
	if (!ret)
		attr->attr = ex.attr;
	return ret;
}

void rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (!id || !id->srq)
		return;
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
	if (!id->qp)
		cm_destroy_cqs(to_cm_id(id));
}
