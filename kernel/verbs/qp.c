// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - queue pairs: creation, queries, destruction.
 *
 * A QP holds references on its PD, its CQs and its SRQ for its whole life
 * and owns two rings that userspace maps: the send queue and, without an
 * SRQ, the receive queue. Nothing here reads them: the data path does,
 * never trusting them. The state machine is in qp_state.c, multicast in
 * mcast.c.
 *
 * QP numbers are the device's (rnic_dev.qps), as on a network where a
 * packet is addressed to a device first and a QP on it second: two
 * devices may hand out the same number. They are allocated cyclically
 * over [RNIC_QPN_FIRST, RNIC_QPN_MASK]: a number comes back only after the
 * other 16 million were handed out, so a peer that still knows an old QP
 * does not find a new one under its number. QP 0 is never used and QP 1
 * (RNIC_QPN_GSI) is the device's GSI endpoint, which belongs to the link
 * (rnic_link_xmit()): neither is ever a user QP. The table maps a number
 * to its QP once the QP is published (the entry is reserved but empty
 * while it is built). The data path looks numbers up under RCU
 * (rnic_qp_lookup()) and takes a struct rnic_dpref reference; changes
 * happen in process context only.
 */
#include <linux/log2.h>
#include <linux/xarray.h>
#include <net/netlink.h>

#include "verbs/verbs.h"

/* Values of enum ibv_qp_type that rnic knows but does not implement. */
#define RNIC_QPT_RAW_PACKET	8
#define RNIC_QPT_DRIVER		0xff

#define RNIC_CREATE_QP_FLAGS	(RNIC_CREATE_QP_SRQ | RNIC_CREATE_QP_SQ_SIG_ALL | \
				 RNIC_CREATE_QP_SQ_POLL)

static void rnic_qp_free_rings(struct rnic_qp *qp)
{
	if (qp->rq.region)
		rnic_ring_free(&qp->rq);
	if (qp->sq.region)
		rnic_ring_free(&qp->sq);
}

static struct rnic_evobj *rnic_qp_evobj(struct rnic_uobj *uobj)
{
	return &to_rnic_qp(uobj)->ev;
}

/* Attached to a multicast group: detach first (ibv_destroy_qp(3)). */
static bool rnic_qp_busy(struct rnic_uobj *uobj)
{
	return rnic_mcast_attached(to_rnic_qp(uobj));
}

const struct rnic_evobj_type rnic_qp_evobj_type = {
	.type = RNIC_OBJ_QP,
	.to_evobj = rnic_qp_evobj,
	.busy = rnic_qp_busy,
};

/**
 * rnic_qp_lookup() - find a QP of a device by number for the data path
 * @rdev: the device, alive for the caller's RCU read-side section
 * @qpn: the number, untrusted
 *
 * Context: in an RCU read-side critical section (the engine's).
 * Return: the QP with a data path reference (rnic_qp_dp_put()), or NULL.
 */
struct rnic_qp *rnic_qp_lookup(struct rnic_dev *rdev, u32 qpn)
{
	struct rnic_qp *qp;

	qp = rnic_xa_load_rcu(&rdev->qps, qpn);
	if (qp && !rnic_dpref_get(&qp->dp))
		qp = NULL;
	return qp;
}

/**
 * rnic_qp_halt_dev() - halt every QP of a device being removed
 * @rdev: the device
 *
 * A QP that is being destroyed may be missed (it stops anyway); one that
 * is being created is found by a later walk (removal walks again once no
 * ioctl runs).
 *
 * Context: process; sleeps (rnic_qp_dp_halt()).
 */
void rnic_qp_halt_dev(struct rnic_dev *rdev)
{
	struct rnic_qp *qp;
	unsigned long qpn;

	rcu_read_lock();
	xa_for_each(&rdev->qps, qpn, qp) {
		/* The struct is freed after a grace period: readable here. */
		if (!rnic_dpref_get(&qp->dp))
			continue;
		rcu_read_unlock();
		rnic_qp_dp_halt(qp);
		rnic_qp_dp_put(qp);
		rcu_read_lock();
	}
	rcu_read_unlock();
}

/* The objects a QP holds, given the references rnic_qp_get_refs() took */
static void rnic_qp_put_refs(struct rnic_qp *qp)
{
	if (qp->srq)
		rnic_uobj_put(&qp->srq->uobj);
	if (qp->recv_cq)
		rnic_uobj_put(&qp->recv_cq->uobj);
	if (qp->send_cq)
		rnic_uobj_put(&qp->send_cq->uobj);
	if (qp->pd)
		rnic_uobj_put(&qp->pd->uobj);
}

/*
 * Nobody finds the QP any more (handle, number, groups), then its data
 * path stops: after that nothing touches its rings, CQs or SRQ.
 */
static void rnic_qp_destroy(struct rnic_uobj *uobj)
{
	struct rnic_qp *qp = to_rnic_qp(uobj);

	if (qp->polled)
		rnic_poll_del(qp);
	rnic_mcast_detach_all(qp);
	xa_erase(&qp->rdev->qps, qp->qpn);
	rnic_qp_dp_stop(qp);
	rnic_qp_dp_fini(qp);
	rnic_evobj_fini(qp->uobj.ctx, &qp->ev);
	rnic_qp_free_rings(qp);
	rnic_qp_put_refs(qp);
}

static int rnic_qp_type_check(u32 type)
{
	switch (type) {
	case RNIC_QPT_RC:
	case RNIC_QPT_UC:
	case RNIC_QPT_UD:
	case RNIC_QPT_XRC_SEND:
	case RNIC_QPT_XRC_RECV:
		return 0;
	case RNIC_QPT_RAW_PACKET:
	case RNIC_QPT_DRIVER:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

/* A receive queue of its own: not with an SRQ, not on the send side of XRC */
static bool rnic_qp_has_rq(const struct rnic_create_qp *cmd)
{
	return !(cmd->flags & RNIC_CREATE_QP_SRQ) &&
	       cmd->qp_type != RNIC_QPT_XRC_SEND;
}

static int rnic_create_qp_check(const struct rnic_create_qp *cmd)
{
	const struct rnic_qp_cap *cap = &cmd->cap;
	bool srq = cmd->flags & RNIC_CREATE_QP_SRQ;
	int ret;

	if (cmd->flags & ~RNIC_CREATE_QP_FLAGS || cmd->__reserved ||
	    cap->__reserved || cmd->__reserved2)
		return -EINVAL;
	ret = rnic_qp_type_check(cmd->qp_type);
	if (ret)
		return ret;
	if (cmd->qp_type == RNIC_QPT_XRC_RECV)
		return cmd->flags & ~RNIC_CREATE_QP_SQ_SIG_ALL ? -EINVAL : 0;
	if (cmd->xrcd_handle)
		return -EINVAL;
	/* An SRQ serves RC and UD QPs (ibv_create_qp(3)). */
	if (srq && (cmd->qp_type == RNIC_QPT_UC ||
		    cmd->qp_type == RNIC_QPT_XRC_SEND))
		return -EINVAL;
	/* Nothing to poll without a send queue. */
	if ((cmd->flags & RNIC_CREATE_QP_SQ_POLL) && !cap->max_send_wr)
		return -EINVAL;
	if (cap->max_send_wr > RNIC_MAX_QP_WR ||
	    cap->max_send_sge > RNIC_MAX_SGE ||
	    cap->max_inline_data > RNIC_MAX_INLINE_DATA)
		return -EINVAL;
	/* With an SRQ, or none (XRC_SEND), the receive sizes are ignored. */
	if (rnic_qp_has_rq(cmd) && (cap->max_recv_wr > RNIC_MAX_QP_WR ||
				    cap->max_recv_sge > RNIC_MAX_SGE))
		return -EINVAL;
	/*
	 * The polling thread is a kernel thread shared by the device: its
	 * CPU time is charged to no cgroup. Only who may take CPU from
	 * others anyway may make it spin (Documentation/admin-guide.rst).
	 */
	if ((cmd->flags & RNIC_CREATE_QP_SQ_POLL) && !capable(CAP_SYS_NICE))
		return -EPERM;
	return 0;
}

static u32 rnic_qp_ring_entries(u32 wr)
{
	return wr ? roundup_pow_of_two(wr) : 0;
}

/*
 * What a QP gets for what it asked: whole rings, and as many SGEs and
 * inline bytes as fit in the room a send entry has after its header.
 */
static void rnic_qp_grant(const struct rnic_create_qp *cmd,
			  struct rnic_qp_cap *cap)
{
	const struct rnic_qp_cap *req = &cmd->cap;
	u32 room;

	memset(cap, 0, sizeof(*cap));
	cap->max_send_wr = rnic_qp_ring_entries(req->max_send_wr);
	room = max_t(u32, req->max_send_sge * sizeof(struct rnic_sge),
		     ALIGN(req->max_inline_data, sizeof(struct rnic_sge)));
	cap->max_send_sge = min_t(u32, room / sizeof(struct rnic_sge),
				  RNIC_MAX_SGE);
	cap->max_inline_data = min_t(u32, room, RNIC_MAX_INLINE_DATA);
	if (rnic_qp_has_rq(cmd)) {
		cap->max_recv_wr = rnic_qp_ring_entries(req->max_recv_wr);
		cap->max_recv_sge = req->max_recv_sge;
	}
}

/* What a QP has: the sizes of its rings and its per-WQE limits. */
static void rnic_qp_cap(const struct rnic_qp *qp, struct rnic_qp_cap *cap)
{
	memset(cap, 0, sizeof(*cap));
	cap->max_send_wr = rnic_ring_entries(&qp->sq);
	cap->max_recv_wr = rnic_ring_entries(&qp->rq);
	cap->max_send_sge = qp->cap.max_send_sge;
	cap->max_recv_sge = qp->cap.max_recv_sge;
	cap->max_inline_data = qp->cap.max_inline_data;
}

static int rnic_qp_alloc_rings(struct rnic_ctx *ctx, struct rnic_qp *qp,
			       struct rnic_create_qp *cmd)
{
	const struct rnic_qp_cap *cap = &cmd->out_cap;
	u32 send_room, recv_room;
	int ret;

	send_room = max_t(u32, cap->max_send_sge * sizeof(struct rnic_sge),
			  cap->max_inline_data);
	recv_room = cap->max_recv_sge * sizeof(struct rnic_sge);
	memset(&cmd->out_sq, 0, sizeof(cmd->out_sq));
	memset(&cmd->out_rq, 0, sizeof(cmd->out_rq));

	if (cap->max_send_wr) {
		ret = rnic_ring_alloc(ctx, &qp->sq, cap->max_send_wr,
				      sizeof(struct rnic_send_wqe) + send_room,
				      &cmd->out_sq);
		if (ret)
			return ret;
	}
	if (cap->max_recv_wr) {
		ret = rnic_ring_alloc(ctx, &qp->rq, cap->max_recv_wr,
				      sizeof(struct rnic_recv_wqe) + recv_room,
				      &cmd->out_rq);
		if (ret)
			goto err_free_sq;
	}
	return 0;

err_free_sq:
	if (qp->sq.region)
		rnic_ring_free(&qp->sq);
	return ret;
}

/*
 * Find and hold the PD, CQs and SRQ of a new QP. An XRC_SEND QP has no
 * receives: its receive CQ is its send CQ, as in the kernel's uverbs.
 * On failure what was taken is in @qp, for rnic_qp_put_refs().
 */
static int rnic_qp_get_refs(struct rnic_ctx *ctx, struct rnic_qp *qp,
			    const struct rnic_create_qp *cmd)
{
	u32 recv_cq = cmd->qp_type == RNIC_QPT_XRC_SEND ?
		      cmd->send_cq_handle : cmd->recv_cq_handle;
	struct rnic_uobj *uobj;
	struct rnic_pd *pd;

	pd = rnic_pd_get(ctx, cmd->pd_handle);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	qp->pd = pd;
	uobj = rnic_uobj_get(ctx, cmd->send_cq_handle, RNIC_OBJ_CQ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	qp->send_cq = to_rnic_cq(uobj);
	uobj = rnic_uobj_get(ctx, recv_cq, RNIC_OBJ_CQ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	qp->recv_cq = to_rnic_cq(uobj);
	if (cmd->flags & RNIC_CREATE_QP_SRQ) {
		uobj = rnic_uobj_get(ctx, cmd->srq_handle, RNIC_OBJ_SRQ);
		if (IS_ERR(uobj))
			return PTR_ERR(uobj);
		qp->srq = to_rnic_srq(uobj);
	}
	return 0;
}

/*
 * The QP's state and data path, its number reserved: everything but
 * publishing it. On failure nothing of this is left.
 */
static int rnic_qp_setup(struct rnic_ctx *ctx, struct rnic_qp *qp,
			 struct rnic_create_qp *cmd)
{
	int ret;

	rnic_evobj_init(&qp->ev, cmd->user_handle);
	qp->type = cmd->qp_type;
	qp->sq_sig_all = cmd->flags & RNIC_CREATE_QP_SQ_SIG_ALL;
	rnic_qp_grant(cmd, &cmd->out_cap);
	qp->cap.max_send_sge = cmd->out_cap.max_send_sge;
	qp->cap.max_recv_sge = cmd->out_cap.max_recv_sge;
	qp->cap.max_inline_data = cmd->out_cap.max_inline_data;
	spin_lock_init(&qp->lock);
	qp->attr.qp_state = RNIC_QPS_RESET;
	INIT_LIST_HEAD(&qp->mcast);

	ret = rnic_qp_alloc_rings(ctx, qp, cmd);
	if (ret)
		return ret;
	ret = rnic_qp_dp_init(qp);
	if (ret)
		goto err_free_dp;
	if (cmd->flags & RNIC_CREATE_QP_SQ_POLL) {
		ret = rnic_poll_add(qp);
		if (ret)
			goto err_free_dp;
		qp->polled = true;
	}
	ret = xa_alloc_cyclic(&qp->rdev->qps, &qp->qpn, NULL,
			      XA_LIMIT(RNIC_QPN_FIRST, RNIC_QPN_MASK),
			      &qp->rdev->qpn_next, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		ret = ret == -EBUSY ? -ENOMEM : ret;
		goto err_poll_del;
	}
	cmd->out_qp_num = qp->qpn;
	/* the flags words: next to the consumer index, which we write */
	cmd->out_sq_flags_off = qp->sq.region ?
		cmd->out_sq.consumer_off + sizeof(u32) : 0;
	cmd->out_rq_flags_off = qp->rq.region ?
		cmd->out_rq.consumer_off + sizeof(u32) : 0;
	return 0;

err_poll_del:
	if (qp->polled)
		rnic_poll_del(qp);
err_free_dp:
	rnic_qp_dp_fini(qp);
	rnic_qp_free_rings(qp);
	return ret;
}

/* Undo rnic_qp_setup() */
static void rnic_qp_unsetup(struct rnic_qp *qp)
{
	xa_erase(&qp->rdev->qps, qp->qpn);
	if (qp->polled)
		rnic_poll_del(qp);
	rnic_qp_dp_fini(qp);
	rnic_qp_free_rings(qp);
}

/* Make a set up QP findable by number and by handle in its context. */
static void rnic_qp_publish(struct rnic_qp *qp)
{
	xa_store(&qp->rdev->qps, qp->qpn, qp, GFP_KERNEL);
	rnic_uobj_finalize(&qp->uobj);
}

/*
 * An XRC TGT QP: an object of its domain's context (xrcd.c), without
 * PD, CQs or queues; the caller gets a handle on it.
 */
static int rnic_create_tgt_qp(struct rnic_ucmd *ucmd)
{
	struct rnic_create_qp *cmd = ucmd->cmd;
	struct rnic_xrcd_handle *xh;
	struct rnic_tgt_handle *th;
	struct rnic_ctx *dctx;
	struct rnic_qp *qp;
	int ret;

	xh = rnic_xrcd_get(ucmd->ctx, cmd->xrcd_handle);
	if (IS_ERR(xh))
		return PTR_ERR(xh);
	dctx = &xh->xrcd->ctx;
	th = rnic_tgt_handle_new(ucmd->ctx);
	if (IS_ERR(th)) {
		ret = PTR_ERR(th);
		goto err_put;
	}
	qp = rnic_uobj_alloc(dctx, RNIC_OBJ_QP, sizeof(*qp), rnic_qp_destroy);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto err_abort_handle;
	}
	memset(&cmd->cap, 0, sizeof(cmd->cap));
	ret = rnic_qp_setup(dctx, qp, cmd);
	if (ret)
		goto err_abort;
	cmd->out_handle = th->uobj.handle;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_unsetup;

	mutex_lock(&qp->rdev->xrcd_lock);
	rnic_qp_publish(qp);
	rnic_tgt_handle_publish(th, xh, qp, cmd->user_handle);
	mutex_unlock(&qp->rdev->xrcd_lock);
	return 0;

err_unsetup:
	rnic_qp_unsetup(qp);
err_abort:
	rnic_uobj_abort(&qp->uobj);
err_abort_handle:
	rnic_uobj_abort(&th->uobj);
err_put:
	rnic_uobj_put(&xh->uobj);
	return ret;
}

int rnic_create_qp(struct rnic_ucmd *ucmd)
{
	struct rnic_create_qp *cmd = ucmd->cmd;
	struct rnic_ctx *ctx = ucmd->ctx;
	struct rnic_qp *qp;
	int ret;

	BUILD_BUG_ON(sizeof(struct rnic_send_wqe) != 64);
	BUILD_BUG_ON(offsetof(struct rnic_send_wqe, wr) != 32);

	ret = rnic_create_qp_check(cmd);
	if (ret)
		return ret;
	if (cmd->qp_type == RNIC_QPT_XRC_RECV)
		return rnic_create_tgt_qp(ucmd);

	qp = rnic_uobj_alloc(ctx, RNIC_OBJ_QP, sizeof(*qp), rnic_qp_destroy);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = rnic_qp_get_refs(ctx, qp, cmd);
	if (ret)
		goto err_put_refs;
	ret = rnic_qp_setup(ctx, qp, cmd);
	if (ret)
		goto err_put_refs;
	cmd->out_handle = qp->uobj.handle;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_unsetup;
	rnic_qp_publish(qp);
	return 0;

err_unsetup:
	rnic_qp_unsetup(qp);
err_put_refs:
	rnic_qp_put_refs(qp);
	rnic_uobj_abort(&qp->uobj);
	return ret;
}

/**
 * rnic_qp_get() - the QP a handle from userspace names, for a modify or
 *	a query: a QP of the context, or an XRC TGT QP through the
 *	context's handle on it
 * @ctx: the calling context
 * @handle: untrusted
 * @held: set to what to rnic_uobj_put() when done
 *
 * Return: the QP, or ERR_PTR(-EINVAL).
 */
struct rnic_qp *rnic_qp_get(struct rnic_ctx *ctx, u32 handle,
			    struct rnic_uobj **held)
{
	struct rnic_uobj *uobj = rnic_uobj_get(ctx, handle, RNIC_OBJ_QP);
	struct rnic_tgt_handle *th;

	if (!IS_ERR(uobj)) {
		*held = uobj;
		return to_rnic_qp(uobj);
	}
	th = rnic_tgt_lookup(ctx, handle);
	if (IS_ERR(th))
		return ERR_CAST(th);
	*held = &th->uobj;
	return th->qp;
}

int rnic_query_qp(struct rnic_ucmd *ucmd)
{
	struct rnic_query_qp *cmd = ucmd->cmd;
	struct rnic_uobj *uobj;
	struct rnic_qp *qp;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	qp = rnic_qp_get(ucmd->ctx, cmd->handle, &uobj);
	if (IS_ERR(qp))
		return PTR_ERR(qp);

	spin_lock_bh(&qp->req.lock);
	spin_lock(&qp->lock);
	cmd->out_attr = qp->attr;
	cmd->out_attr.sq_draining = qp->attr.qp_state == RNIC_QPS_SQD &&
				    rnic_req_in_flight(qp);
	spin_unlock(&qp->lock);
	spin_unlock_bh(&qp->req.lock);
	cmd->out_attr.cur_qp_state = cmd->out_attr.qp_state;
	rnic_qp_cap(qp, &cmd->out_cap);
	rnic_uobj_put(uobj);
	return rnic_ucmd_respond(ucmd, sizeof(*cmd));
}

/*
 * A QP attached to a multicast group is EBUSY, as in the kernel's uverbs:
 * the application detaches it first. An attach that slips in between the
 * check and the destroy is undone by the destroy, as at close.
 */
/* See rnic.h; the attributes are read under the QP's lock, as one. */
int rnic_qp_nl_fill(struct sk_buff *msg, struct rnic_uobj *uobj)
{
	struct rnic_qp *qp = to_rnic_qp(uobj);
	u32 rqpn, sq_psn, rq_psn;
	u8 state;

	spin_lock_bh(&qp->lock);
	state = qp->attr.qp_state;
	rqpn = qp->attr.dest_qp_num;
	sq_psn = qp->attr.sq_psn;
	rq_psn = qp->attr.rq_psn;
	spin_unlock_bh(&qp->lock);

	if (nla_put_u32(msg, RNIC_NL_ATTR_RES_LQPN, qp->qpn) ||
	    nla_put_u8(msg, RNIC_NL_ATTR_RES_QP_TYPE, qp->type) ||
	    nla_put_u8(msg, RNIC_NL_ATTR_RES_QP_STATE, state) ||
	    nla_put_u32(msg, RNIC_NL_ATTR_RES_SQ_PSN, sq_psn))
		return -EMSGSIZE;
	if (qp->type != RNIC_QPT_UD &&
	    (nla_put_u32(msg, RNIC_NL_ATTR_RES_RQPN, rqpn) ||
	     nla_put_u32(msg, RNIC_NL_ATTR_RES_RQ_PSN, rq_psn)))
		return -EMSGSIZE;
	return 0;
}
