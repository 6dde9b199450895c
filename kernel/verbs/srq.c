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
 */
#include <linux/log2.h>

#include "verbs/verbs.h"

#define RNIC_SRQ_ATTR_MASK	(RNIC_SRQ_MAX_WR | RNIC_SRQ_LIMIT)

static struct rnic_srq *to_rnic_srq(struct rnic_uobj *uobj)
{
	return container_of(uobj, struct rnic_srq, uobj);
}

static struct rnic_evobj *rnic_srq_evobj(struct rnic_uobj *uobj)
{
	return &to_rnic_srq(uobj)->ev;
}

static void rnic_srq_destroy(struct rnic_uobj *uobj)
{
	struct rnic_srq *srq = to_rnic_srq(uobj);

	/* No QP uses the SRQ: nothing takes WQEs or raises its events. */
	rnic_evobj_fini(uobj->ctx, &srq->ev);
	rnic_ring_free(&srq->ring);
	rnic_uobj_put(&srq->pd->uobj);
}

static int rnic_create_srq_check(const struct rnic_create_srq *cmd)
{
	if (cmd->flags || cmd->__reserved)
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
	struct rnic_uobj *pd_uobj;
	struct rnic_srq *srq;
	int ret;

	ret = rnic_create_srq_check(cmd);
	if (ret)
		return ret;
	pd_uobj = rnic_uobj_get(ucmd->ctx, cmd->pd_handle, RNIC_OBJ_PD);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);

	srq = rnic_uobj_alloc(ucmd->ctx, RNIC_OBJ_SRQ, sizeof(*srq),
			      rnic_srq_destroy);
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		goto err_put_pd;
	}
	srq->pd = container_of(pd_uobj, struct rnic_pd, uobj);
	rnic_evobj_init(&srq->ev, cmd->user_handle);
	srq->max_wr = roundup_pow_of_two(cmd->max_wr);
	srq->max_sge = cmd->max_sge;
	spin_lock_init(&srq->lock);
	srq->limit = cmd->srq_limit;

	ret = rnic_ring_alloc(ucmd->ctx, &srq->ring, srq->max_wr,
			      sizeof(struct rnic_recv_wqe) +
			      srq->max_sge * sizeof(struct rnic_sge),
			      &cmd->out_ring);
	if (ret)
		goto err_abort;

	cmd->out_handle = srq->uobj.handle;
	cmd->out_max_wr = srq->max_wr;
	cmd->out_max_sge = srq->max_sge;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_free_ring;

	rnic_uobj_finalize(&srq->uobj);
	return 0;

err_free_ring:
	rnic_ring_free(&srq->ring);
err_abort:
	rnic_uobj_abort(&srq->uobj);
err_put_pd:
	rnic_uobj_put(pd_uobj);
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
		if (cmd->srq_limit > srq->max_wr) {
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

	cmd->out_max_wr = srq->max_wr;
	cmd->out_max_sge = srq->max_sge;
	spin_lock_bh(&srq->lock);
	cmd->out_srq_limit = srq->limit;
	spin_unlock_bh(&srq->lock);
	rnic_uobj_put(uobj);
	return rnic_ucmd_respond(ucmd, sizeof(*cmd));
}

int rnic_destroy_srq(struct rnic_ucmd *ucmd)
{
	struct rnic_destroy_srq *cmd = ucmd->cmd;
	struct rnic_event_counts counts = {};
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	ret = rnic_evobj_destroy(ucmd->ctx, cmd->handle, RNIC_OBJ_SRQ,
				 rnic_srq_evobj, &counts);
	if (ret)
		return ret;
	cmd->out_async_events_reported = counts.async;
	return rnic_ucmd_respond(ucmd, sizeof(*cmd));
}
