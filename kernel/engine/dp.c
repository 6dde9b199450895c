// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - data path services: lifetime references,
 * memory access through memory regions, completions, QP errors and the
 * QP's data path life (creation, state changes, destruction).
 *
 * Lifetime: the data path finds QPs by number (qp.c's table, a multicast
 * group) and MRs by key (the device's MR table) under RCU and takes a
 * struct rnic_dpref reference with refcount_inc_not_zero(). The owner,
 * when it destroys the object, first makes it unfindable, then drops its
 * own reference and waits until the last user is gone; the struct itself
 * is freed after a grace period (uobj.c), so a lookup racing with the
 * destruction reads valid memory and fails to take a reference.
 */
#include <linux/highmem.h>
#include <linux/slab.h>

#include "engine.h"

void rnic_dpref_init(struct rnic_dpref *ref)
{
	refcount_set(&ref->ref, 1);
	init_completion(&ref->done);
}

/**
 * rnic_dpref_kill() - drop the owner's reference and wait for the users
 * @ref: the reference of an object nobody can find any more
 *
 * Context: process; sleeps until every user dropped its reference.
 */
void rnic_dpref_kill(struct rnic_dpref *ref)
{
	rnic_dpref_put(ref);
	wait_for_completion(&ref->done);
}

/**
 * rnic_mr_get() - find a memory region by key, with a data path reference
 * @rdev: the device
 * @key: an lkey or rkey, untrusted
 * @remote: @key is an rkey
 *
 * Context: in an RCU read-side critical section (the engine's).
 * Return: the MR, to be released with rnic_mr_put(), or NULL.
 */
struct rnic_mr *rnic_mr_get(struct rnic_dev *rdev, u32 key, bool remote)
{
	struct rnic_mr *mr;

	mr = rnic_xa_load_rcu(&rdev->mrs, key & (BIT(RNIC_MR_INDEX_BITS) - 1));
	if (mr && ((remote ? mr->rkey : mr->lkey) != key ||
		   !rnic_dpref_get(&mr->dp)))
		mr = NULL;
	return mr;
}

/**
 * rnic_payload_add_mr() - append a checked piece of an MR to a payload
 * @pl: the payload; on failure unchanged
 * @rdev: the device whose MR table @key indexes
 * @pd: the protection domain the MR must be in
 * @key: lkey or rkey
 * @remote: @key is an rkey
 * @addr: first byte, in the MR's iova space
 * @len: bytes, not 0
 * @access: enum rnic_access bits the MR must have
 *
 * Return: 0, or -EACCES if no MR of @pd has @key with @access covering
 * the range, -EINVAL if @pl is full.
 */
int rnic_payload_add_mr(struct rnic_payload *pl, struct rnic_dev *rdev,
			struct rnic_pd *pd, u32 key, bool remote, u64 addr,
			u32 len, u32 access)
{
	struct rnic_mseg *seg;
	struct rnic_mr *mr;

	if (pl->nsegs >= ARRAY_SIZE(pl->segs))
		return -EINVAL;
	mr = rnic_mr_get(rdev, key, remote);
	if (!mr)
		return -EACCES;
	if (mr->pd != pd || (mr->access & access) != access ||
	    addr < mr->iova || len > mr->length ||
	    addr - mr->iova > mr->length - len) {
		rnic_mr_put(mr);
		return -EACCES;
	}
	seg = &pl->segs[pl->nsegs++];
	seg->mr = mr;
	seg->off = addr - mr->iova;
	seg->len = len;
	return 0;
}

/**
 * rnic_payload_from_sgl() - resolve bytes [@off, @off + @len) of a
 *	scatter/gather list into a payload
 * @pl: an empty payload; filled in, released by the caller on failure too
 * @rdev: the device
 * @pd: the protection domain of the list's MRs
 * @sge: the list, its total length at least @off + @len
 * @nsge: entries
 * @off: first byte of the message
 * @len: bytes
 * @access: enum rnic_access bits every MR must have
 *
 * Entries of length 0 are skipped without looking at their key.
 *
 * Return: 0 or -EACCES (a bad key, range or access right).
 */
int rnic_payload_from_sgl(struct rnic_payload *pl, struct rnic_dev *rdev,
			  struct rnic_pd *pd, const struct rnic_sge *sge,
			  u32 nsge, u32 off, u32 len, u32 access)
{
	u32 i, n;
	int ret;

	for (i = 0; i < nsge && len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(sge[i].length - off, len);
		ret = rnic_payload_add_mr(pl, rdev, pd, sge[i].lkey, false,
					  sge[i].addr + off, n, access);
		if (ret)
			return ret;
		off = 0;
		len -= n;
	}
	return len ? -EACCES : 0;
}

/**
 * struct rnic_cursor - a position in a payload, for copying
 * @pl: the payload
 * @seg: current segment
 * @off: bytes into it (into @pl->inline_data for inline payloads)
 */
struct rnic_cursor {
	const struct rnic_payload *pl;
	u32 seg;
	u64 off;
};

static void rnic_cursor_init(struct rnic_cursor *cur,
			     const struct rnic_payload *pl, u32 off)
{
	cur->pl = pl;
	cur->seg = 0;
	cur->off = off;
	if (pl->inline_data)
		return;
	while (cur->seg < pl->nsegs && cur->off >= pl->segs[cur->seg].len) {
		cur->off -= pl->segs[cur->seg].len;
		cur->seg++;
	}
}

/*
 * Map the bytes at the cursor, at most to the end of their page and of
 * their segment: *@avail is how many. Unmap with rnic_cursor_unmap().
 */
static inline u8 *rnic_cursor_map(const struct rnic_cursor *cur, u32 *avail)
{
	const struct rnic_mseg *seg;
	u64 pos;
	u32 in_page;

	if (cur->pl->inline_data) {
		*avail = U32_MAX;
		return (u8 *)cur->pl->inline_data + cur->off;
	}
	seg = &cur->pl->segs[cur->seg];
	pos = seg->mr->offset + seg->off + cur->off;
	in_page = pos & ~PAGE_MASK;
	*avail = min_t(u64, PAGE_SIZE - in_page, seg->len - cur->off);
	return (u8 *)kmap_local_page(seg->mr->pages[pos >> PAGE_SHIFT]) +
	       in_page;
}

static void rnic_cursor_unmap(const struct rnic_cursor *cur, u8 *p)
{
	if (!cur->pl->inline_data)
		kunmap_local(p);
}

static void rnic_cursor_advance(struct rnic_cursor *cur, u32 n)
{
	cur->off += n;
	if (!cur->pl->inline_data && cur->off == cur->pl->segs[cur->seg].len) {
		cur->seg++;
		cur->off = 0;
	}
}

/**
 * rnic_payload_copy() - the one copy of the data path
 * @dst: where the bytes go; memory regions only
 * @dst_off: first byte of @dst to write
 * @src: where they come from
 * @len: bytes; both payloads have that many from their start offsets
 *
 * Context: any; does not sleep (pages are mapped with kmap_local_page()).
 */
void rnic_payload_copy(const struct rnic_payload *dst, u32 dst_off,
		       const struct rnic_payload *src, u32 len)
{
	struct rnic_cursor d, s;
	u32 davail, savail, n;
	u8 *dp, *sp;

	rnic_cursor_init(&d, dst, dst_off);
	rnic_cursor_init(&s, src, 0);
	while (len) {
		sp = rnic_cursor_map(&s, &savail);
		dp = rnic_cursor_map(&d, &davail);
		n = min3(len, savail, davail);
		memcpy(dp, sp, n);
		/* kmap_local: unmap in the reverse order of mapping */
		rnic_cursor_unmap(&d, dp);
		rnic_cursor_unmap(&s, sp);
		rnic_cursor_advance(&s, n);
		rnic_cursor_advance(&d, n);
		len -= n;
	}
}

/**
 * rnic_payload_map_u64() - map the 8-byte aligned word a payload of one
 *	segment starts with, for atomics
 * @pl: the payload: one MR segment of 8 bytes at an 8-byte aligned iova
 *
 * The word never crosses a page: pages are aligned, and so is the MR's
 * start relative to them when the iova is (the caller checks it).
 * Unmap with kunmap_local().
 */
u64 *rnic_payload_map_u64(const struct rnic_payload *pl)
{
	const struct rnic_mseg *seg = &pl->segs[0];
	u64 pos = seg->mr->offset + seg->off;

	return kmap_local_page(seg->mr->pages[pos >> PAGE_SHIFT]) +
	       (pos & ~PAGE_MASK);
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
		rnic_qp_put(qp);
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
		rnic_req_run(qp);
	}
	rnic_qp_put(qp);
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

	if (qp->type == RNIC_QPT_RC)
		bytes += RNIC_MAX_RD_ATOM * sizeof(*qp->resp.atomics);
	npages = DIV_ROUND_UP(bytes, PAGE_SIZE);
	mm = rnic_charge_pinned(npages);
	if (IS_ERR(mm))
		return PTR_ERR(mm);
	qp->dp_mm = mm;
	qp->dp_pages = npages;
	return 0;
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
	if (qp->type == RNIC_QPT_RC) {
		qp->resp.atomics = kcalloc(RNIC_MAX_RD_ATOM,
					   sizeof(*qp->resp.atomics),
					   GFP_KERNEL_ACCOUNT);
		if (!qp->resp.atomics)
			return -ENOMEM;
	}
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
		rnic_qp_put(qp);
	if (hrtimer_cancel(&qp->req.rnr_timer))
		rnic_qp_put(qp);
	if (cancel_work_sync(&qp->req.work))
		rnic_qp_put(qp);
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
		rnic_qp_put(qp);
	rnic_req_rnr_stop(qp);
	for (i = 0; i < ARRAY_SIZE(rings); i++) {
		if (!rings[i]->region)
			continue;
		WRITE_ONCE(*rings[i]->producer, 0);
		WRITE_ONCE(*rings[i]->consumer, 0);
	}
	if (qp->rq_flags)
		WRITE_ONCE(*qp->rq_flags, 0);
	rnic_req_init(qp);
	rnic_resp_init(qp);
}

/* Copy what the data path needs of the attributes. */
static void rnic_qp_dp_config(struct rnic_qp *qp, u32 mask)
{
	struct rnic_qp_attr *attr = &qp->attr;
	struct rnic_resp *resp = &qp->resp;
	struct rnic_req *req = &qp->req;
	u64 timeout_us;

	if (qp->type == RNIC_QPT_UD) {
		spin_lock(&qp->rdev->port.lock);
		req->mtu = rnic_active_mtu(qp->rdev->port.netdev_mtu);
		spin_unlock(&qp->rdev->port.lock);
	} else if (attr->path_mtu) {
		req->mtu = rnic_mtu_bytes(attr->path_mtu);
	}
	resp->mtu = req->mtu;
	req->dqpn = attr->dest_qp_num;
	resp->dqpn = attr->dest_qp_num;
	req->av = qp->av;
	resp->av = qp->av;
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
 *
 * Then, without the locks, rnic_qp_dp_modified().
 */
void rnic_qp_dp_apply(struct rnic_qp *qp, u32 cur, u32 next, u32 mask)
{
	lockdep_assert_held(&qp->lock);
	lockdep_assert_held(&qp->req.lock);
	lockdep_assert_held(&qp->resp.lock);
	if (next == RNIC_QPS_RESET) {
		rnic_qp_dp_reset(qp);
		return;
	}
	rnic_qp_dp_config(qp, mask);
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

/**
 * rnic_req_kick() - the SQ producer index may have moved: send
 * @qp: the QP
 *
 * Context: process; runs a bounded amount of work.
 */
void rnic_req_kick(struct rnic_qp *qp)
{
	rnic_req_run(qp);
}

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
