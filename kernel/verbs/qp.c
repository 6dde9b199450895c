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
#define RNIC_QPT_XRC_SEND	9
#define RNIC_QPT_XRC_RECV	10
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
	if (qp->srq)
		rnic_uobj_put(&qp->srq->uobj);
	rnic_uobj_put(&qp->recv_cq->uobj);
	rnic_uobj_put(&qp->send_cq->uobj);
	rnic_uobj_put(&qp->pd->uobj);
}

static int rnic_qp_type_check(u32 type)
{
	switch (type) {
	case RNIC_QPT_RC:
	case RNIC_QPT_UC:
	case RNIC_QPT_UD:
		return 0;
	case RNIC_QPT_RAW_PACKET:
	case RNIC_QPT_XRC_SEND:
	case RNIC_QPT_XRC_RECV:
	case RNIC_QPT_DRIVER:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

static int rnic_create_qp_check(const struct rnic_create_qp *cmd)
{
	const struct rnic_qp_cap *cap = &cmd->cap;
	bool srq = cmd->flags & RNIC_CREATE_QP_SRQ;
	int ret;

	if (cmd->flags & ~RNIC_CREATE_QP_FLAGS || cmd->__reserved ||
	    cap->__reserved)
		return -EINVAL;
	ret = rnic_qp_type_check(cmd->qp_type);
	if (ret)
		return ret;
	/* An SRQ serves RC and UD QPs (ibv_create_qp(3)). */
	if (srq && cmd->qp_type == RNIC_QPT_UC)
		return -EINVAL;
	/* Nothing to poll without a send queue. */
	if ((cmd->flags & RNIC_CREATE_QP_SQ_POLL) && !cap->max_send_wr)
		return -EINVAL;
	if (cap->max_send_wr > RNIC_MAX_QP_WR ||
	    cap->max_send_sge > RNIC_MAX_SGE ||
	    cap->max_inline_data > RNIC_MAX_INLINE_DATA)
		return -EINVAL;
	/* With an SRQ the receive sizes are ignored. */
	if (!srq && (cap->max_recv_wr > RNIC_MAX_QP_WR ||
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
	if (!(cmd->flags & RNIC_CREATE_QP_SRQ)) {
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

int rnic_create_qp(struct rnic_ucmd *ucmd)
{
	struct rnic_create_qp *cmd = ucmd->cmd;
	struct rnic_ctx *ctx = ucmd->ctx;
	struct rnic_uobj *uobj;
	struct rnic_qp *qp;
	int ret;

	BUILD_BUG_ON(sizeof(struct rnic_send_wqe) != 64);
	BUILD_BUG_ON(offsetof(struct rnic_send_wqe, wr) != 32);

	ret = rnic_create_qp_check(cmd);
	if (ret)
		return ret;

	qp = rnic_uobj_alloc(ctx, RNIC_OBJ_QP, sizeof(*qp), rnic_qp_destroy);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	qp->pd = rnic_pd_get(ctx, cmd->pd_handle);
	if (IS_ERR(qp->pd)) {
		ret = PTR_ERR(qp->pd);
		goto err_abort;
	}
	uobj = rnic_uobj_get(ctx, cmd->send_cq_handle, RNIC_OBJ_CQ);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto err_put_pd;
	}
	qp->send_cq = to_rnic_cq(uobj);
	uobj = rnic_uobj_get(ctx, cmd->recv_cq_handle, RNIC_OBJ_CQ);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto err_put_send_cq;
	}
	qp->recv_cq = to_rnic_cq(uobj);
	if (cmd->flags & RNIC_CREATE_QP_SRQ) {
		uobj = rnic_uobj_get(ctx, cmd->srq_handle, RNIC_OBJ_SRQ);
		if (IS_ERR(uobj)) {
			ret = PTR_ERR(uobj);
			goto err_put_recv_cq;
		}
		qp->srq = to_rnic_srq(uobj);
	}

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
		goto err_put_srq;
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

	cmd->out_handle = qp->uobj.handle;
	cmd->out_qp_num = qp->qpn;
	/* the flags words: next to the consumer index, which we write */
	cmd->out_sq_flags_off = qp->sq.region ?
		cmd->out_sq.consumer_off + sizeof(u32) : 0;
	cmd->out_rq_flags_off = qp->rq.region ?
		cmd->out_rq.consumer_off + sizeof(u32) : 0;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_erase;

	xa_store(&qp->rdev->qps, qp->qpn, qp, GFP_KERNEL);
	rnic_uobj_finalize(&qp->uobj);
	return 0;

err_erase:
	xa_erase(&qp->rdev->qps, qp->qpn);
err_poll_del:
	if (qp->polled)
		rnic_poll_del(qp);
err_free_dp:
	rnic_qp_dp_fini(qp);
	rnic_qp_free_rings(qp);
err_put_srq:
	if (qp->srq)
		rnic_uobj_put(&qp->srq->uobj);
err_put_recv_cq:
	rnic_uobj_put(&qp->recv_cq->uobj);
err_put_send_cq:
	rnic_uobj_put(&qp->send_cq->uobj);
err_put_pd:
	rnic_uobj_put(&qp->pd->uobj);
err_abort:
	rnic_uobj_abort(&qp->uobj);
	return ret;
}

int rnic_query_qp(struct rnic_ucmd *ucmd)
{
	struct rnic_query_qp *cmd = ucmd->cmd;
	struct rnic_uobj *uobj;
	struct rnic_qp *qp;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	uobj = rnic_uobj_get(ucmd->ctx, cmd->handle, RNIC_OBJ_QP);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	qp = to_rnic_qp(uobj);

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
