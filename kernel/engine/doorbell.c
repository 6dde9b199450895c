// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the send doorbell: the ioctls that make the
 * requester run (RNIC_IOCTL_RING_SQ, RNIC_IOCTL_KICK_SQ), and the
 * device's workqueue that runs it when it is deferred.
 */
#include "engine/engine.h"

/* The SQ producer index may have moved: send, or wake the poller. */
static void rnic_sq_doorbell(struct rnic_qp *qp)
{
	if (!qp->sq.region)
		return;
	if (qp->polled)
		rnic_poll_wake(qp);
	else
		rnic_req_run(qp);
}

int rnic_kick_sq(struct rnic_ucmd *ucmd)
{
	struct rnic_kick_sq *cmd = ucmd->cmd;
	struct rnic_uobj *uobj;
	struct rnic_qp *qp;

	if (cmd->flags & ~RNIC_KICK_RQ || cmd->__reserved)
		return -EINVAL;
	uobj = rnic_uobj_get(ucmd->ctx, cmd->qp_handle, RNIC_OBJ_QP);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	qp = to_rnic_qp(uobj);
	if ((cmd->flags & RNIC_KICK_RQ) && rnic_qp_state(qp) == RNIC_QPS_ERR)
		rnic_resp_flush(qp);
	rnic_sq_doorbell(qp);
	rnic_uobj_put(uobj);
	return 0;
}

/**
 * rnic_ring_sq() - RNIC_IOCTL_RING_SQ: the send doorbell in one word
 * @ctx: the calling context
 * @handle: the ioctl's argument, a QP handle; untrusted
 *
 * Context: process, under the device's live_rwsem (read).
 * Return: 0, or -EINVAL if @handle names no QP of @ctx.
 */
int rnic_ring_sq(struct rnic_ctx *ctx, unsigned long handle)
{
	struct rnic_uobj *uobj;

	if (handle > U32_MAX)
		return -EINVAL;
	uobj = rnic_uobj_get(ctx, handle, RNIC_OBJ_QP);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	rnic_sq_doorbell(to_rnic_qp(uobj));
	rnic_uobj_put(uobj);
	return 0;
}

/**
 * rnic_dev_dp_init() - data path state of a new device
 * @rdev: the device, named
 *
 * Return: 0 or -ENOMEM.
 */
int rnic_dev_dp_init(struct rnic_dev *rdev)
{
	rdev->wq = alloc_workqueue("rnic%u_dp", WQ_UNBOUND, 0,
				   rdev->index);
	return rdev->wq ? 0 : -ENOMEM;
}

/**
 * rnic_dev_dp_fini() - free the data path state of a device
 * @rdev: the device; its contexts are gone, so are its QPs
 */
void rnic_dev_dp_fini(struct rnic_dev *rdev)
{
	rnic_poll_dev_fini(rdev);
	if (rdev->wq)
		destroy_workqueue(rdev->wq);
}
