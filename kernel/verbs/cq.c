// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - completion queues.
 *
 * A CQ is a ring of struct rnic_cqe (see "rnic rings" in rnic-abi.h): the
 * data path produces, userspace polls without a system call. Arming for a
 * completion event is a word in the same mapping (DOC "rnic CQ
 * notification"), read by rnic_cq_notify() after CQEs are published; the
 * event goes to the CQ's completion channel (event.c).
 *
 * Sizes are rounded up to a power of two and every slot is usable, so the
 * CQ's cqe is the ring size. Resizing moves the CQEs not polled yet to a
 * new ring under the producer lock; the old region stays mapped for
 * userspace until it unmaps it, but the kernel never touches it again.
 */
#include <linux/log2.h>
#include <net/netlink.h>

#include "verbs/verbs.h"

/* The ring layout userspace relies on. */
static_assert(sizeof(struct rnic_cqe) == 64);
static_assert(offsetof(struct rnic_cqe, imm_data) == 24);
static_assert(offsetof(struct rnic_cqe, pkey_index) == 40);
static_assert(offsetof(struct rnic_create_cq, out_ring) == 40);
static_assert(offsetof(struct rnic_resize_cq, out_ring) == 24);

/* The arm word: in the consumer's cache line, just after the index. */
static u32 rnic_cq_arm_off(const struct rnic_ring_info *info)
{
	return info->consumer_off + sizeof(u32);
}

static u32 *rnic_cq_arm(const struct rnic_ring *ring, u32 arm_off)
{
	return ring->region->vaddr + arm_off;
}

static struct rnic_evobj *rnic_cq_evobj(struct rnic_uobj *uobj)
{
	return &to_rnic_cq(uobj)->ev;
}

const struct rnic_evobj_type rnic_cq_evobj_type = {
	.type = RNIC_OBJ_CQ,
	.to_evobj = rnic_cq_evobj,
};

static void rnic_cq_destroy(struct rnic_uobj *uobj)
{
	struct rnic_cq *cq = to_rnic_cq(uobj);
	u32 comp = 0;

	/* No QP uses the CQ: nothing produces into it or notifies. */
	if (cq->channel) {
		comp = rnic_channel_drop(cq->channel, &cq->comp_event);
		rnic_uobj_put(&cq->channel->uobj);
	}
	if (cq->ev.counts)
		cq->ev.counts->comp = comp;
	rnic_evobj_fini(uobj->ctx, &cq->ev);
	rnic_ring_free(&cq->ring);
}

int rnic_create_cq(struct rnic_ucmd *ucmd)
{
	struct rnic_create_cq *cmd = ucmd->cmd;
	struct rnic_ctx *ctx = ucmd->ctx;
	struct rnic_channel *channel = NULL;
	struct rnic_uobj *uobj;
	struct rnic_cq *cq;
	int ret;

	if (cmd->flags & ~RNIC_CREATE_CQ_CHANNEL || cmd->__reserved)
		return -EINVAL;
	if (!(cmd->flags & RNIC_CREATE_CQ_CHANNEL) && cmd->channel_handle)
		return -EINVAL;
	if (!cmd->cqe || cmd->cqe > RNIC_MAX_CQE ||
	    cmd->comp_vector >= rnic_num_comp_vectors())
		return -EINVAL;

	if (cmd->flags & RNIC_CREATE_CQ_CHANNEL) {
		uobj = rnic_uobj_get(ctx, cmd->channel_handle,
				     RNIC_OBJ_CHANNEL);
		if (IS_ERR(uobj))
			return PTR_ERR(uobj);
		channel = container_of(uobj, struct rnic_channel, uobj);
	}
	cq = rnic_uobj_alloc(ctx, RNIC_OBJ_CQ, sizeof(*cq), rnic_cq_destroy);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto err_put_channel;
	}
	ret = rnic_ring_alloc(ctx, &cq->ring, roundup_pow_of_two(cmd->cqe),
			      sizeof(struct rnic_cqe), &cmd->out_ring);
	if (ret)
		goto err_abort;
	cmd->out_handle = cq->uobj.handle;
	cmd->out_arm_off = rnic_cq_arm_off(&cmd->out_ring);

	cq->channel = channel;
	cq->comp_vector = cmd->comp_vector;
	spin_lock_init(&cq->lock);
	cq->arm = rnic_cq_arm(&cq->ring, cmd->out_arm_off);
	cq->notify_seq = U32_MAX;
	rnic_evobj_init(&cq->ev, cmd->user_handle);
	INIT_LIST_HEAD(&cq->comp_event.node);
	INIT_LIST_HEAD(&cq->comp_event.obj_node);
	cq->comp_event.counter = &cq->comp_reported;
	cq->comp_event.desc.element = cmd->user_handle;

	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_ring;
	rnic_uobj_finalize(&cq->uobj);
	return 0;

err_ring:
	rnic_ring_free(&cq->ring);
err_abort:
	rnic_uobj_abort(&cq->uobj);
err_put_channel:
	if (channel)
		rnic_uobj_put(&channel->uobj);
	return ret;
}

/*
 * Move the CQEs not polled yet to @ring, which becomes the CQ's ring; on
 * success @ring holds the old one. -EINVAL if they do not fit, or if the
 * consumer index userspace wrote is not within the old ring.
 */
static int rnic_cq_move(struct rnic_cq *cq, struct rnic_ring *ring,
			u32 arm_off)
{
	u32 cons, n, i, *arm;

	lockdep_assert_held(&cq->lock);
	/* Read once (see "rnic rings"); pairs with userspace's release. */
	cons = smp_load_acquire(cq->ring.consumer);
	n = cq->producer - cons;
	if (n > cq->ring.mask + 1 || n > ring->mask + 1)
		return -EINVAL;
	for (i = 0; i < n; i++)
		memcpy(rnic_ring_slot(ring, i), rnic_ring_slot(&cq->ring, cons + i),
		       sizeof(struct rnic_cqe));
	arm = rnic_cq_arm(ring, arm_off);
	WRITE_ONCE(*arm, READ_ONCE(*cq->arm));
	/* Entries before index: the order userspace's acquire expects. */
	smp_store_release(ring->producer, n);

	swap(cq->ring, *ring);
	cq->arm = arm;
	cq->producer = n;
	cq->cons_seen = 0;
	return 0;
}

int rnic_resize_cq(struct rnic_ucmd *ucmd)
{
	struct rnic_resize_cq *cmd = ucmd->cmd;
	struct rnic_ctx *ctx = ucmd->ctx;
	struct rnic_uobj *uobj;
	struct rnic_ring ring;
	struct rnic_cq *cq;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	if (!cmd->cqe || cmd->cqe > RNIC_MAX_CQE)
		return -EINVAL;

	uobj = rnic_uobj_get(ctx, cmd->handle, RNIC_OBJ_CQ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	cq = to_rnic_cq(uobj);
	ret = rnic_ring_alloc(ctx, &ring, roundup_pow_of_two(cmd->cqe),
			      sizeof(struct rnic_cqe), &cmd->out_ring);
	if (ret)
		goto out_put;
	cmd->out_arm_off = rnic_cq_arm_off(&cmd->out_ring);
	/* Answer first: once the CQEs moved there is no going back. */
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (!ret) {
		spin_lock_bh(&cq->lock);
		ret = rnic_cq_move(cq, &ring, cmd->out_arm_off);
		spin_unlock_bh(&cq->lock);
	}
	/* The old ring if the move was done, else the new one. */
	rnic_ring_free(&ring);
out_put:
	rnic_uobj_put(uobj);
	return ret;
}

/**
 * rnic_cq_post() - add a completion to a CQ
 * @cq: the CQ
 * @cqe: the completion, every byte set
 * @solicited: it is a solicited receive (unsuccessful ones count as
 *	solicited anyway)
 *
 * A CQ whose consumer index says it is full (or lies) has overrun: the
 * CQE is lost, IBV_EVENT_CQ_ERR is raised (the first time) and the
 * caller moves its QP to the error state.
 *
 * Context: BH disabled (its callers hold a requester or responder lock,
 * which are taken with BH off).
 * Return: 0 or -ENOSPC on overrun.
 */
int rnic_cq_post(struct rnic_cq *cq, const struct rnic_cqe *cqe,
		 bool solicited)
{
	struct rnic_cqe *slot;
	bool overrun;
	u32 cons;

	lockdep_assert_in_softirq();
	spin_lock(&cq->lock);
	/* Full as last seen: read the consumer index again. */
	if (cq->producer - cq->cons_seen > cq->ring.mask) {
		/* Pairs with userspace's store-release of the index. */
		cons = smp_load_acquire(cq->ring.consumer);
		cq->cons_seen = cons;
	}
	if (cq->producer - cq->cons_seen > cq->ring.mask) {
		overrun = !cq->overrun;
		cq->overrun = true;
		spin_unlock(&cq->lock);
		if (overrun)
			rnic_async_event(cq->uobj.ctx, RNIC_EVENT_CQ_ERR,
					 &cq->ev, 0);
		return -ENOSPC;
	}
	slot = rnic_ring_slot(&cq->ring, cq->producer);
	*slot = *cqe;
	cq->producer++;
	/* Entry before index: the order userspace's acquire expects. */
	smp_store_release(cq->ring.producer, cq->producer);
	rnic_cq_notify(cq, solicited || cqe->status != RNIC_WC_SUCCESS);
	spin_unlock(&cq->lock);
	return 0;
}

/* See rnic.h; a resize changes the ring under the CQ's lock. */
int rnic_cq_nl_fill(struct sk_buff *msg, struct rnic_uobj *uobj)
{
	struct rnic_cq *cq = to_rnic_cq(uobj);
	u32 cqe;

	spin_lock_bh(&cq->lock);
	cqe = cq->ring.mask + 1;
	spin_unlock_bh(&cq->lock);
	if (rnic_uobj_nl_fill(msg, uobj) ||
	    nla_put_u32(msg, RNIC_NL_ATTR_RES_CQE, cqe))
		return -EMSGSIZE;
	return 0;
}
