// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - shared receive queues.
 *
 * An SRQ is a receive ring in kernel memory that userspace maps and fills
 * with receive WQEs without a system call; the responders of the QPs
 * attached to it take the WQEs (data path). Here: creation, the limit,
 * queries and destruction.
 *
 * rnic does not resize SRQs: the producer is a userspace library that
 * never enters the kernel to post, so swapping the ring under it would
 * need a handshake on every post. RNIC_SRQ_MAX_WR is EINVAL, as on other
 * devices without IBV_DEVICE_SRQ_RESIZE.
 *
 * An XRC SRQ belongs to an XRC domain and has a CQ and a number of its
 * own: XRC requests name it by number (rnic_dev.srqs), and the responder
 * of any TGT QP of the same domain takes its WQEs. No QP holds it, so
 * the responder takes a data path reference (rnic_srq_lookup()), and
 * destroying the SRQ makes it unfindable, then waits for those.
 */
#include <linux/log2.h>

#include "verbs/verbs.h"

#define RNIC_SRQ_ATTR_MASK	(RNIC_SRQ_MAX_WR | RNIC_SRQ_LIMIT)

static struct rnic_evobj *rnic_srq_evobj(struct rnic_uobj *uobj)
{
	return &to_rnic_srq(uobj)->ev;
}

const struct rnic_evobj_type rnic_srq_evobj_type = {
	.type = RNIC_OBJ_SRQ,
	.to_evobj = rnic_srq_evobj,
};

/* What an XRC SRQ holds besides its PD; NULL-safe for a half-built one */
static void rnic_srq_put_xrc(struct rnic_srq *srq)
{
	if (srq->cq)
		rnic_uobj_put(&srq->cq->uobj);
	if (srq->xh)
		rnic_uobj_put(&srq->xh->uobj);
}

static void rnic_srq_destroy(struct rnic_uobj *uobj)
{
	struct rnic_srq *srq = to_rnic_srq(uobj);

	if (srq->xh) {
		xa_erase(&uobj->ctx->dev->srqs, srq->srqn);
		rnic_dpref_kill(&srq->dp);
	}
	/* No QP uses the SRQ: nothing takes WQEs or raises its events. */
	rnic_evobj_fini(uobj->ctx, &srq->ev);
	rnic_ring_free(&srq->ring);
	rnic_srq_put_xrc(srq);
	rnic_uobj_put(&srq->pd->uobj);
}

/**
 * rnic_srq_lookup() - find an XRC SRQ of a device by number for the data
 *	path
 * @rdev: the device, alive for the caller's RCU read-side section
 * @srqn: the number, untrusted
 *
 * Context: in an RCU read-side critical section.
 * Return: the SRQ with a data path reference (rnic_srq_dp_put()), or
 * NULL.
 */
struct rnic_srq *rnic_srq_lookup(struct rnic_dev *rdev, u32 srqn)
{
	struct rnic_srq *srq = rnic_xa_load_rcu(&rdev->srqs, srqn);

	if (srq && !rnic_dpref_get(&srq->dp))
		srq = NULL;
	return srq;
}

/* The domain and CQ of an XRC SRQ, and its number (not published yet). */
static int rnic_srq_setup_xrc(struct rnic_ctx *ctx, struct rnic_srq *srq,
			      const struct rnic_create_srq *cmd)
{
	struct rnic_xrcd_handle *xh;
	struct rnic_uobj *uobj;
	int ret;

	xh = rnic_xrcd_get(ctx, cmd->xrcd_handle);
	if (IS_ERR(xh))
		return PTR_ERR(xh);
	srq->xh = xh;
	uobj = rnic_uobj_get(ctx, cmd->cq_handle, RNIC_OBJ_CQ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	srq->cq = to_rnic_cq(uobj);
	rnic_dpref_init(&srq->dp);
	ret = xa_alloc_cyclic(&ctx->dev->srqs, &srq->srqn, NULL,
			      XA_LIMIT(1, RNIC_QPN_MASK), &ctx->dev->srqn_next,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		return ret == -EBUSY ? -ENOMEM : ret;
	return 0;
}

static int rnic_create_srq_check(const struct rnic_create_srq *cmd)
{
	if (cmd->flags & ~RNIC_CREATE_SRQ_XRC || cmd->__reserved ||
	    cmd->__reserved2)
		return -EINVAL;
	if (!(cmd->flags & RNIC_CREATE_SRQ_XRC) &&
	    (cmd->xrcd_handle || cmd->cq_handle))
		return -EINVAL;
	if (!cmd->max_wr || cmd->max_wr > RNIC_MAX_SRQ_WR ||
	    cmd->max_sge > RNIC_MAX_SGE)
		return -EINVAL;
	/* Against what is granted: the limit counts ring entries. */
	if (cmd->srq_limit > roundup_pow_of_two(cmd->max_wr))
		return -EINVAL;
	return 0;
}

int rnic_create_srq(struct rnic_ucmd *ucmd)
{
	struct rnic_create_srq *cmd = ucmd->cmd;
	struct rnic_pd *pd;
	struct rnic_srq *srq;
	int ret;

	ret = rnic_create_srq_check(cmd);
	if (ret)
		return ret;
	pd = rnic_pd_get(ucmd->ctx, cmd->pd_handle);
	if (IS_ERR(pd))
		return PTR_ERR(pd);

	srq = rnic_uobj_alloc(ucmd->ctx, RNIC_OBJ_SRQ, sizeof(*srq),
			      rnic_srq_destroy);
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		goto err_put_pd;
	}
	srq->pd = pd;
	if (cmd->flags & RNIC_CREATE_SRQ_XRC) {
		ret = rnic_srq_setup_xrc(ucmd->ctx, srq, cmd);
		if (ret)
			goto err_put_xrc;
	}
	rnic_evobj_init(&srq->ev, cmd->user_handle);
	srq->max_sge = cmd->max_sge;
	spin_lock_init(&srq->lock);
	srq->limit = cmd->srq_limit;

	ret = rnic_ring_alloc(ucmd->ctx, &srq->ring,
			      roundup_pow_of_two(cmd->max_wr),
			      sizeof(struct rnic_recv_wqe) +
			      srq->max_sge * sizeof(struct rnic_sge),
			      &cmd->out_ring);
	if (ret)
		goto err_erase;

	cmd->out_handle = srq->uobj.handle;
	cmd->out_srq_num = srq->srqn;
	cmd->out_max_wr = rnic_ring_entries(&srq->ring);
	cmd->out_max_sge = srq->max_sge;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_free_ring;

	if (srq->xh)
		xa_store(&ucmd->ctx->dev->srqs, srq->srqn, srq, GFP_KERNEL);
	rnic_uobj_finalize(&srq->uobj);
	return 0;

err_free_ring:
	rnic_ring_free(&srq->ring);
err_erase:
	if (srq->srqn)
		xa_erase(&ucmd->ctx->dev->srqs, srq->srqn);
err_put_xrc:
	rnic_srq_put_xrc(srq);
	rnic_uobj_abort(&srq->uobj);
err_put_pd:
	rnic_uobj_put(&pd->uobj);
	return ret;
}

int rnic_modify_srq(struct rnic_ucmd *ucmd)
{
	struct rnic_modify_srq *cmd = ucmd->cmd;
	struct rnic_uobj *uobj;
	struct rnic_srq *srq;
	int ret = 0;

	/* No resize: see the top of this file. */
	if (cmd->flags || cmd->attr_mask & ~RNIC_SRQ_ATTR_MASK ||
	    cmd->attr_mask & RNIC_SRQ_MAX_WR)
		return -EINVAL;
	uobj = rnic_uobj_get(ucmd->ctx, cmd->handle, RNIC_OBJ_SRQ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	srq = to_rnic_srq(uobj);

	if (cmd->attr_mask & RNIC_SRQ_LIMIT) {
		if (cmd->srq_limit > rnic_ring_entries(&srq->ring)) {
			ret = -EINVAL;
			goto out_put;
		}
		spin_lock_bh(&srq->lock);
		srq->limit = cmd->srq_limit;
		spin_unlock_bh(&srq->lock);
	}

out_put:
	rnic_uobj_put(uobj);
	return ret;
}

int rnic_query_srq(struct rnic_ucmd *ucmd)
{
	struct rnic_query_srq *cmd = ucmd->cmd;
	struct rnic_uobj *uobj;
	struct rnic_srq *srq;

	if (cmd->flags)
		return -EINVAL;
	uobj = rnic_uobj_get(ucmd->ctx, cmd->handle, RNIC_OBJ_SRQ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	srq = to_rnic_srq(uobj);

	cmd->out_max_wr = rnic_ring_entries(&srq->ring);
	cmd->out_max_sge = srq->max_sge;
	spin_lock_bh(&srq->lock);
	cmd->out_srq_limit = srq->limit;
	spin_unlock_bh(&srq->lock);
	rnic_uobj_put(uobj);
	return rnic_ucmd_respond(ucmd, sizeof(*cmd));
}

