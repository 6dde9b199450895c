// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - XRC domains, and the handles of contexts on
 * the TGT QPs of a domain (DOC "rnic XRC domains" in the uapi header).
 *
 * A domain (struct rnic_xrcd) is a device object that no context owns:
 * each context that opens it holds a handle (struct rnic_xrcd_handle, a
 * uobj of the context), and the last handle to go frees it. A domain
 * opened with a file is listed in rnic_dev.xrcds by the file's inode, so
 * that other contexts of the device find it again.
 *
 * A domain has a context of its own, without a file (rnic_xrcd.ctx): its
 * TGT QPs are uobjs of that context, so they outlive the context that
 * created them and reuse every rule of uobj.c. Contexts reach a TGT QP
 * through handles (struct rnic_tgt_handle), each holding a reference on
 * the QP's uobj. Destroying a handle with RNIC_IOCTL_DESTROY_QP destroys
 * the QP too if no other handle holds it (rnic_destroy_tgt()); a handle
 * that goes with its context leaves the QP to the domain, where another
 * context can open it by number, until the domain goes. Creating the
 * first handle, opening one by number and destroying the QP are
 * serialised by rnic_dev.xrcd_lock, so a QP is never opened while it is
 * destroyed, nor destroyed before its creator holds its handle.
 *
 * References, from the user to what it uses: an XRC SRQ or TGT QP handle
 * -> the context's domain handle -> the domain -> its context -> the
 * TGT QPs. Nothing points the other way, so the domain's context is
 * empty of handles' QPs by the time the domain goes (it destroys what
 * might be left anyway).
 */
#include <linux/file.h>
#include <linux/fs.h>

#include "verbs/verbs.h"

static struct rnic_xrcd_handle *to_rnic_xrcd_handle(struct rnic_uobj *uobj)
{
	return container_of(uobj, struct rnic_xrcd_handle, uobj);
}

static struct rnic_tgt_handle *to_rnic_tgt_handle(struct rnic_uobj *uobj)
{
	return container_of(uobj, struct rnic_tgt_handle, uobj);
}

/* A new domain with one user; listed by @inode if there is one. */
static struct rnic_xrcd *rnic_xrcd_new(struct rnic_dev *rdev,
				       struct inode *inode)
{
	struct rnic_xrcd *xrcd;

	xrcd = kzalloc(sizeof(*xrcd), GFP_KERNEL_ACCOUNT);
	if (!xrcd)
		return ERR_PTR(-ENOMEM);
	refcount_set(&xrcd->users, 1);
	rnic_ctx_init(&xrcd->ctx, rdev);
	if (inode) {
		ihold(inode);
		xrcd->inode = inode;
		list_add(&xrcd->node, &rdev->xrcds);
	}
	return xrcd;
}

/*
 * The domain of @inode with a new user, created with O_CREAT if it has
 * none; a domain of the caller's alone without an inode.
 */
static struct rnic_xrcd *rnic_xrcd_open(struct rnic_dev *rdev,
					struct inode *inode, u32 oflags)
{
	struct rnic_xrcd *xrcd;

	if (!inode)
		return rnic_xrcd_new(rdev, NULL);
	mutex_lock(&rdev->xrcd_lock);
	list_for_each_entry(xrcd, &rdev->xrcds, node) {
		if (xrcd->inode != inode)
			continue;
		if ((oflags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
			xrcd = ERR_PTR(-EINVAL);
		else
			refcount_inc(&xrcd->users);
		goto out;
	}
	xrcd = oflags & O_CREAT ? rnic_xrcd_new(rdev, inode) : ERR_PTR(-EINVAL);
out:
	mutex_unlock(&rdev->xrcd_lock);
	return xrcd;
}

/* Drop a user; the last one destroys what the domain still owns. */
static void rnic_xrcd_put(struct rnic_xrcd *xrcd)
{
	struct rnic_dev *rdev = xrcd->ctx.dev;

	mutex_lock(&rdev->xrcd_lock);
	if (!refcount_dec_and_test(&xrcd->users)) {
		mutex_unlock(&rdev->xrcd_lock);
		return;
	}
	if (xrcd->inode)
		list_del(&xrcd->node);
	mutex_unlock(&rdev->xrcd_lock);

	rnic_uobj_destroy_all(&xrcd->ctx);
	rnic_ctx_fini(&xrcd->ctx);
	if (xrcd->inode)
		iput(xrcd->inode);
	kfree_rcu(xrcd, rcu);
}

static void rnic_xrcd_handle_destroy(struct rnic_uobj *uobj)
{
	rnic_xrcd_put(to_rnic_xrcd_handle(uobj)->xrcd);
}

int rnic_open_xrcd(struct rnic_ucmd *ucmd)
{
	struct rnic_open_xrcd *cmd = ucmd->cmd;
	struct rnic_xrcd_handle *xh;
	struct inode *inode = NULL;
	struct rnic_xrcd *xrcd;
	struct fd f = {};
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	if (cmd->fd != -1) {
		f = fdget(cmd->fd);
		if (!f.file)
			return -EBADF;
		inode = file_inode(f.file);
	}
	xh = rnic_uobj_alloc(ucmd->ctx, RNIC_OBJ_XRCD, sizeof(*xh),
			     rnic_xrcd_handle_destroy);
	if (IS_ERR(xh)) {
		ret = PTR_ERR(xh);
		goto out_fdput;
	}
	xrcd = rnic_xrcd_open(ucmd->ctx->dev, inode, cmd->oflags);
	if (IS_ERR(xrcd)) {
		ret = PTR_ERR(xrcd);
		goto err_abort;
	}
	xh->xrcd = xrcd;
	cmd->out_handle = xh->uobj.handle;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_put;
	rnic_uobj_finalize(&xh->uobj);
	fdput(f);
	return 0;

err_put:
	rnic_xrcd_put(xrcd);
err_abort:
	rnic_uobj_abort(&xh->uobj);
out_fdput:
	fdput(f);
	return ret;
}

int rnic_close_xrcd(struct rnic_ucmd *ucmd)
{
	struct rnic_destroy *cmd = ucmd->cmd;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	return rnic_uobj_destroy(ucmd->ctx, cmd->handle, RNIC_OBJ_XRCD);
}

/**
 * rnic_xrcd_get() - find a context's handle on an XRC domain, for an
 *	object that will hold it
 * @ctx: the calling context
 * @handle: handle from userspace, untrusted
 *
 * Return: the handle with a reference (rnic_uobj_put(&xh->uobj)), or
 * ERR_PTR(-EINVAL).
 */
struct rnic_xrcd_handle *rnic_xrcd_get(struct rnic_ctx *ctx, u32 handle)
{
	struct rnic_uobj *uobj = rnic_uobj_get(ctx, handle, RNIC_OBJ_XRCD);

	if (IS_ERR(uobj))
		return ERR_CAST(uobj);
	return to_rnic_xrcd_handle(uobj);
}

static struct rnic_evobj *rnic_tgt_evobj(struct rnic_uobj *uobj)
{
	return &to_rnic_tgt_handle(uobj)->ev;
}

static const struct rnic_evobj_type rnic_tgt_evobj_type = {
	.type = RNIC_OBJ_TGT_QP,
	.to_evobj = rnic_tgt_evobj,
};

/* A handle goes: the QP stays, in its domain (see the top of the file). */
static void rnic_tgt_handle_destroy(struct rnic_uobj *uobj)
{
	struct rnic_tgt_handle *th = to_rnic_tgt_handle(uobj);

	rnic_evobj_fini(uobj->ctx, &th->ev);
	rnic_uobj_put(&th->qp->uobj);
	rnic_uobj_put(&th->xh->uobj);
}

/**
 * rnic_destroy_tgt() - RNIC_IOCTL_DESTROY_QP of a handle on a TGT QP
 * @ctx: the calling context
 * @handle: handle from userspace, untrusted
 * @counts: as rnic_evobj_destroy() has them
 *
 * The handle goes, and the QP with it unless another handle holds it.
 * References on the QP and the domain keep both across the handle's
 * destruction, so the QP destroyed is the one the handle named.
 *
 * Return: 0, or what rnic_evobj_destroy() says (-EINVAL for a handle that
 * names no TGT QP handle, -EBUSY).
 */
int rnic_destroy_tgt(struct rnic_ctx *ctx, u32 handle,
		     struct rnic_event_counts *counts)
{
	struct rnic_xrcd_handle *xh;
	struct rnic_tgt_handle *th;
	struct rnic_qp *qp;
	int ret;

	th = rnic_tgt_lookup(ctx, handle);
	if (IS_ERR(th))
		return PTR_ERR(th);
	qp = th->qp;
	xh = th->xh;
	refcount_inc(&qp->uobj.users);
	refcount_inc(&xh->uobj.users);
	rnic_uobj_put(&th->uobj);

	ret = rnic_evobj_destroy(ctx, handle, &rnic_tgt_evobj_type, counts);
	mutex_lock(&ctx->dev->xrcd_lock);
	rnic_uobj_put(&qp->uobj);
	/* EBUSY while another handle holds it: it stays */
	if (!ret)
		rnic_uobj_destroy(&xh->xrcd->ctx, qp->uobj.handle, RNIC_OBJ_QP);
	mutex_unlock(&ctx->dev->xrcd_lock);
	rnic_uobj_put(&xh->uobj);
	return ret;
}

/**
 * rnic_tgt_handle_new() - reserve a context's handle on a TGT QP
 * @ctx: the context
 *
 * Return: the handle, not findable yet (rnic_tgt_handle_publish() or
 * rnic_uobj_abort()), or an ERR_PTR of rnic_uobj_alloc().
 */
struct rnic_tgt_handle *rnic_tgt_handle_new(struct rnic_ctx *ctx)
{
	return rnic_uobj_alloc(ctx, RNIC_OBJ_TGT_QP,
			       sizeof(struct rnic_tgt_handle),
			       rnic_tgt_handle_destroy);
}

/**
 * rnic_tgt_handle_publish() - make a handle on a TGT QP findable
 * @th: from rnic_tgt_handle_new()
 * @xh: the context's handle on the QP's domain; its reference passes to
 *	@th
 * @qp: the QP, a finalized object of the domain's context; @th takes a
 *	reference
 * @user_handle: for the handle's events
 *
 * Context: rnic_dev.xrcd_lock held.
 */
void rnic_tgt_handle_publish(struct rnic_tgt_handle *th,
			     struct rnic_xrcd_handle *xh, struct rnic_qp *qp,
			     u64 user_handle)
{
	lockdep_assert_held(&qp->rdev->xrcd_lock);
	refcount_inc(&qp->uobj.users);
	th->qp = qp;
	th->xh = xh;
	rnic_evobj_init(&th->ev, user_handle);
	rnic_uobj_finalize(&th->uobj);
}

/*
 * The TGT QP numbered @qpn of @xrcd, or NULL. Any QP found is readable
 * under RCU (structs are freed after a grace period); one of the domain
 * stays after it under rnic_dev.xrcd_lock: only the last handle destroys
 * a TGT QP, under that lock, and the domain (which the caller holds)
 * does not go.
 */
static struct rnic_qp *rnic_tgt_find(struct rnic_xrcd *xrcd, u32 qpn)
{
	struct rnic_qp *qp;

	lockdep_assert_held(&xrcd->ctx.dev->xrcd_lock);
	rcu_read_lock();
	qp = rnic_xa_load_rcu(&xrcd->ctx.dev->qps, qpn);
	if (qp && (qp->type != RNIC_QPT_XRC_RECV ||
		   qp->uobj.ctx != &xrcd->ctx))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

int rnic_open_qp(struct rnic_ucmd *ucmd)
{
	struct rnic_open_qp *cmd = ucmd->cmd;
	struct rnic_dev *rdev = ucmd->ctx->dev;
	struct rnic_xrcd_handle *xh;
	struct rnic_tgt_handle *th;
	struct rnic_qp *qp;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	xh = rnic_xrcd_get(ucmd->ctx, cmd->xrcd_handle);
	if (IS_ERR(xh))
		return PTR_ERR(xh);
	th = rnic_tgt_handle_new(ucmd->ctx);
	if (IS_ERR(th)) {
		ret = PTR_ERR(th);
		goto err_put;
	}
	cmd->out_handle = th->uobj.handle;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_abort;

	mutex_lock(&rdev->xrcd_lock);
	qp = rnic_tgt_find(xh->xrcd, cmd->qp_num);
	if (!qp) {
		mutex_unlock(&rdev->xrcd_lock);
		ret = -EINVAL;
		goto err_abort;
	}
	rnic_tgt_handle_publish(th, xh, qp, cmd->user_handle);
	mutex_unlock(&rdev->xrcd_lock);
	return 0;

err_abort:
	rnic_uobj_abort(&th->uobj);
err_put:
	rnic_uobj_put(&xh->uobj);
	return ret;
}

/**
 * rnic_tgt_lookup() - the TGT QP a context's handle names, for a modify
 *	or a query
 * @ctx: the calling context
 * @handle: handle from userspace, untrusted
 *
 * Return: the handle with a reference (rnic_uobj_put(&th->uobj)), which
 * keeps th->qp, or ERR_PTR(-EINVAL).
 */
struct rnic_tgt_handle *rnic_tgt_lookup(struct rnic_ctx *ctx, u32 handle)
{
	struct rnic_uobj *uobj = rnic_uobj_get(ctx, handle, RNIC_OBJ_TGT_QP);

	if (IS_ERR(uobj))
		return ERR_CAST(uobj);
	return to_rnic_tgt_handle(uobj);
}
