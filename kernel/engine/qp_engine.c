// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the engine side of a QP's life: creation,
 * state changes, errors and flushing, destruction.
 *
 * The verbs layer (verbs/qp.c, verbs/qp_state.c) calls the rnic_qp_dp_*
 * functions declared in engine/qp_engine.h; everything else here is the
 * engine's own.
 */
#include <linux/slab.h>

#include "engine/engine.h"

/**
 * rnic_req_schedule() - run the requester's work: flush, resume after an
 *	RNR wait, handle a timeout, continue after the budget
 * @qp: the QP; the queued work holds a data path reference
 */
void rnic_req_schedule(struct rnic_qp *qp)
{
	if (READ_ONCE(qp->req.dead) || !rnic_dpref_get(&qp->dp))
		return;
	if (!queue_work(qp->rdev->wq, &qp->req.work))
		rnic_qp_dp_put(qp);
}

/* Receives posted from now on are flushed by a kick (RNIC_WQ_ERR). */
static void rnic_qp_flush_start(struct rnic_qp *qp)
{
	if (qp->rq_flags) {
		WRITE_ONCE(*qp->rq_flags, READ_ONCE(*qp->rq_flags) | RNIC_WQ_ERR);
		/* Flag before the producer index is read: see enum rnic_wq_flags */
		smp_mb();
	}
	rnic_req_schedule(qp);
}

/**
 * rnic_qp_error() - move a QP to the error state from the data path
 * @qp: the QP
 * @event: asynchronous event to raise (an enum rnic_event_type), or
 *	U32_MAX for none
 *
 * Every work request still queued completes with IBV_WC_WR_FLUSH_ERR,
 * from the requester's work.
 *
 * Context: any but hard interrupt; any data path lock may be held.
 */
void rnic_qp_error(struct rnic_qp *qp, u32 event)
{
	u32 state;

	spin_lock_bh(&qp->lock);
	state = qp->attr.qp_state;
	if (state != RNIC_QPS_RESET && state != RNIC_QPS_ERR)
		WRITE_ONCE(qp->attr.qp_state, RNIC_QPS_ERR);
	spin_unlock_bh(&qp->lock);
	if (state == RNIC_QPS_RESET || state == RNIC_QPS_ERR)
		return;
	if (event != U32_MAX)
		rnic_async_event(qp->uobj.ctx, event, &qp->ev, 0);
	rnic_qp_flush_start(qp);
}

/**
 * rnic_qp_send_error() - a UC or UD send failed: move to SQE
 * @qp: the QP, in RTS or SQD; its send queue is flushed, receives go on
 *
 * Context: as rnic_qp_error().
 */
void rnic_qp_send_error(struct rnic_qp *qp)
{
	bool moved = false;

	spin_lock_bh(&qp->lock);
	if (qp->attr.qp_state == RNIC_QPS_RTS ||
	    qp->attr.qp_state == RNIC_QPS_SQD) {
		WRITE_ONCE(qp->attr.qp_state, RNIC_QPS_SQE);
		moved = true;
	}
	spin_unlock_bh(&qp->lock);
	if (moved)
		rnic_req_schedule(qp);
}

static void rnic_req_work(struct work_struct *work)
{
	struct rnic_qp *qp = container_of(work, struct rnic_qp, req.work);

	if (!READ_ONCE(qp->req.dead)) {
		if (rnic_qp_state(qp) == RNIC_QPS_ERR)
			rnic_resp_flush(qp);
		else
			rnic_resp_work(qp);
		rnic_req_run(qp);
	}
	rnic_qp_dp_put(qp);
}

/*
 * Charge the kernel's private copy of the QP's queues to the caller's
 * pinned_vm with its rings: the WQE copies, the scratch structs and (RC)
 * the responder's atomic history. A QP without queues still costs its
 * scratch, so it is never free.
 */
static int rnic_qp_dp_charge(struct rnic_qp *qp, size_t wqes_size)
{
	size_t bytes = sizeof(*qp->scratch) + wqes_size;
	unsigned long npages;
	struct mm_struct *mm;

	if (rnic_qpt_reliable(qp->type))
		bytes += RNIC_MAX_RD_ATOM * (sizeof(*qp->resp.atomics) +
					     sizeof(*qp->resp.owed));
	npages = DIV_ROUND_UP(bytes, PAGE_SIZE);
	mm = rnic_charge_pinned(npages);
	if (IS_ERR(mm))
		return PTR_ERR(mm);
	qp->dp_mm = mm;
	qp->dp_pages = npages;
	return 0;
}

/* The path of a new or reset QP: no peer, the smallest MTU. */
static void rnic_qp_path_reset(struct rnic_qp *qp)
{
	memset(&qp->path, 0, sizeof(qp->path));
	qp->path.mtu = rnic_mtu_bytes(RNIC_MTU_256);
}

/**
 * rnic_qp_dp_init() - set up the data path state of a new QP
 * @qp: the QP, its rings allocated, not findable yet
 *
 * The kernel's copy of the send queue, the scratch structs and the atomic
 * history are charged to RLIMIT_MEMLOCK like the rings. On failure the
 * caller still calls rnic_qp_dp_fini().
 *
 * Return: 0 or -ENOMEM (also beyond RLIMIT_MEMLOCK).
 */
int rnic_qp_dp_init(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	int ret;

	qp->rdev = qp->uobj.ctx->dev;
	rnic_dpref_init(&qp->dp);
	spin_lock_init(&req->lock);
	spin_lock_init(&qp->resp.lock);
	timer_setup(&req->timer, rnic_req_timer, 0);
	hrtimer_init(&req->rnr_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	req->rnr_timer.function = rnic_req_rnr_timer;
	INIT_WORK(&req->work, rnic_req_work);
	INIT_LIST_HEAD(&qp->poll_node);
	if (qp->sq.region)
		req->stride = ALIGN(sizeof(struct rnic_kwqe) +
				    qp->sq.entry_size -
				    sizeof(struct rnic_send_wqe), 8);
	ret = rnic_qp_dp_charge(qp, (size_t)req->stride *
				(qp->sq.region ? qp->sq.mask + 1 : 0));
	if (ret)
		return ret;
	qp->scratch = kmalloc(sizeof(*qp->scratch), GFP_KERNEL_ACCOUNT);
	if (!qp->scratch)
		return -ENOMEM;
	if (qp->sq.region) {
		req->wqes = kvcalloc(qp->sq.mask + 1, req->stride,
				     GFP_KERNEL_ACCOUNT);
		if (!req->wqes)
			return -ENOMEM;
		qp->sq_flags = (u32 *)qp->sq.consumer + 1;
	}
	if (qp->rq.region)
		qp->rq_flags = (u32 *)qp->rq.consumer + 1;
	if (rnic_qpt_reliable(qp->type)) {
		qp->resp.atomics = kcalloc(RNIC_MAX_RD_ATOM,
					   sizeof(*qp->resp.atomics),
					   GFP_KERNEL_ACCOUNT);
		qp->resp.owed = kcalloc(RNIC_MAX_RD_ATOM,
					sizeof(*qp->resp.owed),
					GFP_KERNEL_ACCOUNT);
		if (!qp->resp.atomics || !qp->resp.owed)
			return -ENOMEM;
	}
	rnic_qp_path_reset(qp);
	rnic_req_init(qp);
	rnic_resp_init(qp);
	return 0;
}

/*
 * No timer or work of the QP runs when this returns, and none is started
 * again (rnic_req.dead). Each of them held a data path reference.
 */
static void rnic_qp_dp_cancel(struct rnic_qp *qp)
{
	spin_lock_bh(&qp->req.lock);
	WRITE_ONCE(qp->req.dead, true);
	spin_unlock_bh(&qp->req.lock);
	if (del_timer_sync(&qp->req.timer))
		rnic_qp_dp_put(qp);
	if (hrtimer_cancel(&qp->req.rnr_timer))
		rnic_qp_dp_put(qp);
	if (cancel_work_sync(&qp->req.work))
		rnic_qp_dp_put(qp);
}

/**
 * rnic_qp_dp_stop() - stop the data path of a QP being destroyed
 * @qp: the QP, no longer findable by handle, number or multicast group
 *
 * Cancels its timers and work and waits until nobody uses it any more.
 *
 * Context: process; sleeps.
 */
void rnic_qp_dp_stop(struct rnic_qp *qp)
{
	rnic_qp_dp_cancel(qp);
	rnic_dpref_kill(&qp->dp);
}

/**
 * rnic_qp_dp_halt() - stop the data path of a QP whose device is removed
 * @qp: the QP, held by a data path reference of the caller
 *
 * Moves the QP to ERR, stops its timers and work for good, then
 * completes the WQEs in its rings with IBV_WC_WR_FLUSH_ERR here, instead
 * of in the work. A user who keeps moving a producer index cannot keep
 * this going: it stops after the passes that cover each ring once. The QP
 * stays a verbs object until it is destroyed; a packet that still finds
 * it by number meets a QP in ERR.
 *
 * Context: process; sleeps.
 */
void rnic_qp_dp_halt(struct rnic_qp *qp)
{
	u32 passes = max(qp->sq.mask, qp->rq.mask) / RNIC_FLUSH_BUDGET + 2;
	bool more;

	rnic_qp_error(qp, U32_MAX);
	rnic_qp_dp_cancel(qp);
	do {
		more = rnic_resp_flush(qp);
		more |= rnic_req_flush(qp);
		cond_resched();
	} while (more && --passes);
}

/**
 * rnic_qp_dp_fini() - free and uncharge the data path state of a stopped
 *	QP, or of one whose rnic_qp_dp_init() failed
 * @qp: the QP
 */
void rnic_qp_dp_fini(struct rnic_qp *qp)
{
	kvfree(qp->req.wqes);
	kfree(qp->resp.atomics);
	kfree(qp->resp.owed);
	kfree(qp->scratch);
	if (qp->dp_mm)
		rnic_uncharge_pinned(qp->dp_mm, qp->dp_pages);
}

/* Back to the state of a new QP: nothing in flight, empty rings. */
static void rnic_qp_dp_reset(struct rnic_qp *qp)
{
	struct rnic_ring *rings[] = { &qp->sq, &qp->rq };
	unsigned int i;

	/*
	 * Under the data path locks: no waiting for a timer callback that
	 * runs. It waits for rnic_req.lock, then finds a new QP with
	 * nothing in flight and no RNR wait, and drops its own reference.
	 */
	if (del_timer(&qp->req.timer))
		rnic_qp_dp_put(qp);
	rnic_req_rnr_stop(qp);
	for (i = 0; i < ARRAY_SIZE(rings); i++) {
		if (!rings[i]->region)
			continue;
		WRITE_ONCE(*rings[i]->producer, 0);
		WRITE_ONCE(*rings[i]->consumer, 0);
	}
	if (qp->rq_flags)
		WRITE_ONCE(*qp->rq_flags, 0);
	rnic_qp_path_reset(qp);
	rnic_req_init(qp);
	rnic_resp_init(qp);
}

/* Copy what the data path needs of the attributes. */
static void rnic_qp_dp_config(struct rnic_qp *qp, u32 mask,
			      const struct rnic_av *av)
{
	struct rnic_qp_attr *attr = &qp->attr;
	struct rnic_path *path = &qp->path;
	struct rnic_resp *resp = &qp->resp;
	struct rnic_req *req = &qp->req;
	u64 timeout_us;

	if (qp->type == RNIC_QPT_UD) {
		spin_lock(&qp->rdev->port.lock);
		path->mtu = rnic_active_mtu(qp->rdev->port.netdev_mtu);
		spin_unlock(&qp->rdev->port.lock);
	} else if (attr->path_mtu) {
		path->mtu = rnic_mtu_bytes(attr->path_mtu);
	}
	path->dqpn = attr->dest_qp_num;
	if (mask & RNIC_QP_AV)
		path->av = *av;
	/* 4.096 us * 2^timeout; 0 is infinite */
	timeout_us = attr->timeout ? (4096ULL << attr->timeout) / 1000 : 0;
	req->timeout = timeout_us ?
		max_t(unsigned long, usecs_to_jiffies(timeout_us), 1) : 0;
	req->retry_cnt = attr->retry_cnt;
	req->rnr_retry = attr->rnr_retry;
	req->max_rd_atomic = max_t(u32, attr->max_rd_atomic, 1);
	resp->access = attr->qp_access_flags;
	resp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	resp->min_rnr_timer = attr->min_rnr_timer;
	resp->qkey = attr->qkey;
	if (mask & RNIC_QP_SQ_PSN) {
		req->psn = attr->sq_psn;
		req->ack_psn = rnic_psn_add(attr->sq_psn, -1);
		req->ackreq_psn = req->ack_psn;
	}
	if (mask & RNIC_QP_RQ_PSN)
		resp->epsn = attr->rq_psn;
	if (mask & RNIC_QP_RETRY_CNT)
		req->retry_left = attr->retry_cnt;
	if (mask & RNIC_QP_RNR_RETRY)
		req->rnr_left = attr->rnr_retry;
}

/**
 * rnic_qp_dp_apply() - apply a state change to the data path
 * @qp: the QP, rnic_resp.lock, rnic_req.lock and rnic_qp.lock held (in
 *	that order), the new attributes applied
 * @cur: the state it was in
 * @next: the state it is in now
 * @mask: the attributes modify changed, enum rnic_qp_attr_mask
 * @av: with RNIC_QP_AV in @mask, the validated address, its route chosen
 *	(rnic_av_from_attr()); it becomes the path's
 *
 * This is where struct rnic_path is written. Then, without the locks,
 * rnic_qp_dp_modified().
 */
void rnic_qp_dp_apply(struct rnic_qp *qp, u32 cur, u32 next, u32 mask,
		      const struct rnic_av *av)
{
	lockdep_assert_held(&qp->lock);
	lockdep_assert_held(&qp->req.lock);
	lockdep_assert_held(&qp->resp.lock);
	if (next == RNIC_QPS_RESET) {
		rnic_qp_dp_reset(qp);
		return;
	}
	rnic_qp_dp_config(qp, mask, av);
	if (next == RNIC_QPS_SQD && cur != RNIC_QPS_SQD)
		qp->req.drained_sent = false;
}

/**
 * rnic_qp_dp_modified() - start what a state change calls for: flushing
 *	in ERR, sending in RTS, the SQ_DRAINED check in SQD
 * @qp: the QP
 * @cur: the state it was in
 * @next: the state it is in now
 */
void rnic_qp_dp_modified(struct rnic_qp *qp, u32 cur, u32 next)
{
	if (next == RNIC_QPS_ERR && cur != RNIC_QPS_ERR)
		rnic_qp_flush_start(qp);
	else if (next == RNIC_QPS_RTS || next == RNIC_QPS_SQD)
		/* inline: SQ_DRAINED comes at once if nothing is in flight */
		rnic_req_run(qp);
}
