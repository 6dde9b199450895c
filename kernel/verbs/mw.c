// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - memory windows.
 *
 * A window is an rkey for a range of a memory region, with rights of its
 * own. Its owner binds it with a bind work request (ibv_bind_mw() posts
 * one for a type 1 window, the application posts IBV_WR_BIND_MW for a
 * type 2 one), which the requester executes in send queue order
 * (rnic_mw_bind()); a type 2 window is unbound by IBV_WR_LOCAL_INV or by
 * a peer's SEND with invalidate (rnic_mw_invalidate()), a type 1 window
 * by a bind of length 0. Windows share the device's key table with
 * regions (verbs.h, the key layout): a remote access whose rkey names a
 * window is checked against the window's range and rights, never the
 * region's (rnic_mw_resolve()).
 *
 * Lifetimes: a bound window holds a reference on its region's uobj, so
 * that deregistering the region is EBUSY; deallocating a window unbinds
 * it. The data path takes data path references on the region itself
 * (struct rnic_dpref), which keep its pages pinned while a packet uses
 * them, whatever happens to the window meanwhile.
 */
#include "verbs/verbs.h"

/* Rights a window can grant; LOCAL_WRITE is accepted and means nothing. */
#define RNIC_MW_ACCESS							\
	(RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |		\
	 RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)
#define RNIC_KEY_BYTE		0xff

/* Forget the binding; the window's lock held. */
static void rnic_mw_unbind(struct rnic_mw *mw)
{
	if (mw->mr)
		rnic_uobj_put(&mw->mr->uobj);
	mw->mr = NULL;
	mw->qpn = 0;
	mw->addr = 0;
	mw->length = 0;
	mw->access = 0;
}

static void rnic_mw_destroy(struct rnic_uobj *uobj)
{
	struct rnic_mw *mw = container_of(uobj, struct rnic_mw, uobj);

	xa_erase(&uobj->ctx->dev->mrs, mw->index);
	/* a bind that found the window before the erase fails from here */
	spin_lock_bh(&mw->lock);
	mw->dead = true;
	rnic_mw_unbind(mw);
	spin_unlock_bh(&mw->lock);
	rnic_uobj_put(&mw->pd->uobj);
}

int rnic_alloc_mw(struct rnic_ucmd *ucmd)
{
	struct rnic_alloc_mw *cmd = ucmd->cmd;
	struct rnic_dev *rdev = ucmd->ctx->dev;
	struct rnic_pd *pd;
	struct rnic_mw *mw;
	int ret;

	if (cmd->flags ||
	    (cmd->type != RNIC_MW_TYPE_1 && cmd->type != RNIC_MW_TYPE_2))
		return -EINVAL;
	pd = rnic_pd_get(ucmd->ctx, cmd->pd_handle);
	if (IS_ERR(pd))
		return PTR_ERR(pd);

	mw = rnic_uobj_alloc(ucmd->ctx, RNIC_OBJ_MW, sizeof(*mw),
			     rnic_mw_destroy);
	if (IS_ERR(mw)) {
		ret = PTR_ERR(mw);
		goto err_put_pd;
	}
	mw->pd = pd;
	mw->type = cmd->type;
	spin_lock_init(&mw->lock);
	ret = rnic_key_alloc(rdev, &mw->index);
	if (ret)
		goto err_abort;
	mw->rkey = rnic_key_make(mw->index);

	cmd->out_handle = mw->uobj.handle;
	cmd->out_rkey = mw->rkey;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_erase;

	xa_store(&rdev->mrs, mw->index, xa_tag_pointer(mw, RNIC_KEY_TAG_MW),
		 GFP_KERNEL);
	rnic_uobj_finalize(&mw->uobj);
	return 0;

err_erase:
	xa_erase(&rdev->mrs, mw->index);
err_abort:
	rnic_uobj_abort(&mw->uobj);
err_put_pd:
	rnic_uobj_put(&pd->uobj);
	return ret;
}

int rnic_dealloc_mw(struct rnic_ucmd *ucmd)
{
	struct rnic_destroy *cmd = ucmd->cmd;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	return rnic_uobj_destroy(ucmd->ctx, cmd->handle, RNIC_OBJ_MW);
}

/*
 * May @qp bind @mw as @b asks, to @mr (NULL for length 0)? The rules of
 * IBTA 10.6.7: the window is the QP's, in its PD; the new rkey differs
 * in the key byte only; a type 2 window is bound only when free and never
 * with length 0; the region allows binding, is in the same PD, covers
 * the window and can be written if the window grants writes or atomics.
 * The window's lock held.
 */
static bool rnic_mw_bind_ok(const struct rnic_mw *mw, const struct rnic_qp *qp,
			    const struct rnic_bind_wr *b,
			    const struct rnic_mr *mr)
{
	if (mw->dead || mw->pd != qp->pd ||
	    (b->rkey & ~RNIC_KEY_BYTE) != (mw->rkey & ~RNIC_KEY_BYTE) ||
	    b->access & ~RNIC_MW_ACCESS)
		return false;
	if (mw->type == RNIC_MW_TYPE_2 && (mw->mr || !b->length))
		return false;
	if (!mr)
		return true;
	if (mr->pd != mw->pd || !(mr->access & RNIC_ACCESS_MW_BIND))
		return false;
	if ((b->access & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & RNIC_ACCESS_LOCAL_WRITE))
		return false;
	return rnic_in_range(mr->iova, mr->length, b->addr, b->length);
}

/**
 * rnic_mw_bind() - execute a bind work request
 * @qp: the QP whose send queue holds it (RC or UC)
 * @wqe: the kernel's copy of the WQE, RNIC_WR_BIND_MW
 *
 * Binds the window, replacing a type 1 window's binding, or unbinds a
 * type 1 window for length 0; the window's rkey takes the key byte of
 * wqe->wr.bind.rkey either way.
 *
 * Context: the requester: RCU read-side critical section, BH off.
 * Return: 0, or RNIC_WC_MW_BIND_ERR if a rule forbids the bind (nothing
 * changed).
 */
u32 rnic_mw_bind(struct rnic_qp *qp, const struct rnic_send_wqe *wqe)
{
	const struct rnic_bind_wr *b = &wqe->wr.bind;
	struct rnic_mr *mr = NULL;
	struct rnic_uobj *uobj;
	struct rnic_mw *mw;
	u32 status = RNIC_WC_MW_BIND_ERR;

	uobj = rnic_xa_load_rcu(&qp->uobj.ctx->objs, b->mw_handle);
	if (!uobj || uobj->type != RNIC_OBJ_MW)
		return status;
	mw = container_of(uobj, struct rnic_mw, uobj);
	if (b->length) {
		mr = rnic_mr_get(qp->rdev, b->mr_lkey, false);
		if (!mr)
			return status;
	}

	spin_lock(&mw->lock);
	/* a region being deregistered has no users left to take */
	if (rnic_mw_bind_ok(mw, qp, b, mr) &&
	    (!mr || refcount_inc_not_zero(&mr->uobj.users))) {
		rnic_mw_unbind(mw);
		mw->rkey = b->rkey;
		mw->mr = mr;
		if (mr) {
			mw->qpn = mw->type == RNIC_MW_TYPE_2 ? qp->qpn : 0;
			mw->addr = b->addr;
			mw->length = b->length;
			mw->access = b->access;
		}
		status = RNIC_WC_SUCCESS;
	}
	spin_unlock(&mw->lock);
	if (mr)
		rnic_mr_dp_put(mr);
	return status;
}

/**
 * rnic_mw_invalidate() - unbind the type 2 window of an rkey
 * @qp: the QP that asks: IBV_WR_LOCAL_INV in its send queue, or a SEND
 *	with invalidate it received; the window must be in its PD
 * @rkey: the key, untrusted
 *
 * Context: the data path: RCU read-side critical section, BH off.
 * Return: whether @rkey named a bound type 2 window of @qp's PD, now
 * unbound.
 */
bool rnic_mw_invalidate(struct rnic_qp *qp, u32 rkey)
{
	void *entry = rnic_xa_load_rcu(&qp->rdev->mrs, rnic_mr_key_index(rkey));
	struct rnic_mw *mw;
	bool done = false;

	if (xa_pointer_tag(entry) != RNIC_KEY_TAG_MW)
		return false;
	mw = xa_untag_pointer(entry);
	spin_lock(&mw->lock);
	if (mw->rkey == rkey && mw->type == RNIC_MW_TYPE_2 && mw->mr &&
	    mw->pd == qp->pd) {
		rnic_mw_unbind(mw);
		done = true;
	}
	spin_unlock(&mw->lock);
	return done;
}

/**
 * rnic_mw_resolve() - check a remote access through a window
 * @mw: the window the key table holds at @rkey's index
 * @qp: the responder's QP
 * @rkey: the key of the request, untrusted
 * @va: first byte, in the region's iova space
 * @len: bytes
 * @access: the enum rnic_access right the request needs
 *
 * Every byte must be in the window, the window bound with @rkey, in
 * @qp's PD, to @qp if it is a type 2 window, and granting @access.
 *
 * Context: the data path: RCU read-side critical section, BH off.
 * Return: the window's region with a data path reference, to be dropped
 * with rnic_mr_dp_put(), or NULL.
 */
struct rnic_mr *rnic_mw_resolve(struct rnic_mw *mw, const struct rnic_qp *qp,
				u32 rkey, u64 va, u32 len, u32 access)
{
	struct rnic_mr *mr = NULL;

	spin_lock(&mw->lock);
	if (mw->rkey == rkey && mw->mr && mw->pd == qp->pd &&
	    (mw->type == RNIC_MW_TYPE_1 || mw->qpn == qp->qpn) &&
	    (mw->access & access) == access &&
	    rnic_in_range(mw->addr, mw->length, va, len) &&
	    rnic_dpref_get(&mw->mr->dp))
		mr = mw->mr;
	spin_unlock(&mw->lock);
	return mr;
}
