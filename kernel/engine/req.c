// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the requester.
 *
 * The requester copies each send WQE once from the SQ ring into kernel
 * memory (struct rnic_kwqe), checks the copy, and turns it into packets:
 * SEND and WRITE bursts of MTU-sized segments (engine.h), RDMA READ
 * requests (in chunks of at most RNIC_READ_CHUNK_PKTS responses, so that
 * no responder loop is long), atomics. One thread at a time runs it
 * (rnic_req.running); it builds each packet under rnic_req.lock and hands
 * it to the link without the lock, so that the response, which the local
 * link delivers at once, finds the completer (comp.c) free.
 *
 * The timers are the requester's: the RNR wait is an hrtimer
 * (rnic_req.rnr_timer) that lasts what the NAK's timer code says, down to
 * 10 us; the transport timer (rnic_req.timer) is stopped while it runs.
 * The transport timer is armed when a request goes out and nothing was
 * outstanding, re-armed while the peer makes progress or still answers
 * requests sent before (comp.c: rnic_comp_busy()), and on expiry
 * rewinds to the oldest unacknowledged WQE until retry_cnt is used up
 * (IBV_WC_RETRY_EXC_ERR).
 */
#include <linux/jiffies.h>

#include "engine/engine.h"

#define RNIC_SEND_FLAGS		(RNIC_SEND_FENCE | RNIC_SEND_SIGNALED |	\
				 RNIC_SEND_SOLICITED | RNIC_SEND_INLINE)

#define RNIC_RUNNING		0
#define RNIC_RUN_AGAIN		1

static u32 rnic_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case RNIC_WR_RDMA_WRITE:
	case RNIC_WR_RDMA_WRITE_WITH_IMM:
		return RNIC_WC_RDMA_WRITE;
	case RNIC_WR_RDMA_READ:
		return RNIC_WC_RDMA_READ;
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
		return RNIC_WC_COMP_SWAP;
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		return RNIC_WC_FETCH_ADD;
	case RNIC_WR_BIND_MW:
		return RNIC_WC_BIND_MW;
	case RNIC_WR_LOCAL_INV:
		return RNIC_WC_LOCAL_INV;
	default:
		return RNIC_WC_SEND;
	}
}

/**
 * rnic_req_init() - requester state of a new or reset QP
 * @qp: the QP; rnic_req.lock held unless nobody can reach it yet
 */
void rnic_req_init(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;

	req->fetched = 0;
	req->next = 0;
	req->done = 0;
	req->offset = 0;
	req->psn = 0;
	req->rd_atomic = 0;
	req->rd_window = RNIC_RD_WINDOW_MAX;
	req->rd_blocked = false;
	req->retry_left = 0;
	req->rnr_left = 0;
	req->rnr_wait = false;
	req->drained_sent = false;
	req->timed_out = false;
	req->ask_next = false;
	req->gen++;
	req->timeout = 0;
	req->max_rd_atomic = 1;
}

/* Arm the transport timer unless the QP is dying; it holds a reference. */
static void rnic_req_timer_set(struct rnic_qp *qp, unsigned long delay)
{
	struct rnic_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (req->dead || !rnic_dpref_get(&qp->dp))
		return;
	/* it was pending: it had a reference already */
	if (mod_timer(&req->timer, jiffies + delay))
		rnic_qp_dp_put(qp);
}

/* Requests are outstanding: make sure the transport timer runs. */
static void rnic_req_timer_start(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;

	if (!req->timeout || req->rnr_wait || timer_pending(&req->timer))
		return;
	rnic_req_timer_set(qp, req->timeout);
}

/**
 * rnic_req_timer() - the transport timer expired: a timeout for the work
 *	to look at
 * @t: rnic_req.timer
 *
 * Context: softirq.
 */
void rnic_req_timer(struct timer_list *t)
{
	struct rnic_qp *qp = from_timer(qp, t, req.timer);
	struct rnic_req *req = &qp->req;

	spin_lock(&req->lock);
	/* an RNR NAK came while this waited for the lock: not a timeout */
	if (!req->rnr_wait)
		req->timed_out = true;
	spin_unlock(&req->lock);
	rnic_req_schedule(qp);
	/* the timer's reference */
	rnic_qp_dp_put(qp);
}

/**
 * rnic_req_rnr_timer() - the RNR wait is over: the requester resends
 * @t: rnic_req.rnr_timer
 *
 * Context: softirq.
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart rnic_req_rnr_timer(struct hrtimer *t)
{
	struct rnic_qp *qp = container_of(t, struct rnic_qp, req.rnr_timer);
	struct rnic_req *req = &qp->req;

	spin_lock(&req->lock);
	/* armed again while this waited for the lock: that wait goes on */
	if (!hrtimer_is_queued(t))
		req->rnr_wait = false;
	spin_unlock(&req->lock);
	rnic_req_schedule(qp);
	/* the timer's reference */
	rnic_qp_dp_put(qp);
	return HRTIMER_NORESTART;
}

/**
 * rnic_req_rnr_stop() - end an RNR wait early (flush, reset)
 * @qp: the QP, rnic_req.lock held
 *
 * Does not wait for a callback that runs: it finds rnr_wait false (or a
 * new wait queued), schedules the work, which has nothing to do, and drops
 * its own reference.
 */
void rnic_req_rnr_stop(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	req->rnr_wait = false;
	if (hrtimer_try_to_cancel(&req->rnr_timer) == 1)
		rnic_qp_dp_put(qp);
}

/* Does a WQE that completes with @status == 0 get a CQE? */
static bool rnic_wqe_signaled(const struct rnic_qp *qp,
			      const struct rnic_kwqe *kw)
{
	return qp->sq_sig_all || (kw->wqe.send_flags & RNIC_SEND_SIGNALED);
}

/* Retire the oldest WQE with @status; completes it if it must. */
void rnic_req_complete(struct rnic_qp *qp, u32 status)
{
	struct rnic_req *req = &qp->req;
	struct rnic_kwqe *kw = rnic_kwqe(qp, req->done);
	struct rnic_cqe cqe;
	bool signaled, failed = false;

	lockdep_assert_held(&req->lock);
	if (kw->rd_credit) {
		kw->rd_credit = false;
		req->rd_atomic--;
	}
	signaled = status || rnic_wqe_signaled(qp, kw);
	if (signaled) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.wr_id = kw->wqe.wr_id;
		cqe.status = status;
		cqe.opcode = rnic_wc_opcode(kw->wqe.opcode);
		cqe.byte_len = kw->length;
		cqe.qp_num = qp->qpn;
	}
	if (req->next == req->done) {
		/*
		 * The requester was sending it again (a READ or an atomic
		 * answered while it went back): the next one goes on after
		 * its last PSN, not from where the resending got to.
		 */
		if (kw->started)
			req->psn = rnic_psn_add(kw->last_psn, 1);
		req->next++;
		req->offset = 0;
	}
	req->done++;
	/*
	 * Slot free for userspace (our copy is not read any more), before
	 * the completion shows: whoever polls it may post at once and must
	 * not find the ring full.
	 */
	smp_store_release(qp->sq.consumer, req->done);
	if (signaled)
		failed = rnic_cq_post(qp->send_cq, &cqe, false);
	if (failed)
		rnic_qp_error(qp, U32_MAX);
}

/* A WQE failed: complete it and take the QP out of service. */
void rnic_req_fail(struct rnic_qp *qp, u32 status)
{
	rnic_req_complete(qp, status);
	if (rnic_qpt_reliable(qp->type))
		rnic_qp_error(qp, U32_MAX);
	else
		rnic_qp_send_error(qp);
}

/* The address handle @handle of the QP's context and PD, copied. */
static bool rnic_req_ah(struct rnic_qp *qp, u32 handle, struct rnic_av *av)
{
	struct rnic_uobj *uobj;
	struct rnic_ah *ah;
	bool ok = false;

	/* uobjs are freed after a grace period; an AH's av never changes. */
	rcu_read_lock();
	uobj = rnic_xa_load_rcu(&qp->uobj.ctx->objs, handle);
	if (uobj && uobj->type == RNIC_OBJ_AH) {
		ah = container_of(uobj, struct rnic_ah, uobj);
		if (ah->pd == qp->pd) {
			*av = ah->av;
			ok = true;
		}
	}
	rcu_read_unlock();
	return ok;
}

static bool rnic_opcode_ok(u32 type, u32 opcode)
{
	switch (opcode) {
	case RNIC_WR_SEND:
	case RNIC_WR_SEND_WITH_IMM:
		return true;
	case RNIC_WR_RDMA_WRITE:
	case RNIC_WR_RDMA_WRITE_WITH_IMM:
		return type != RNIC_QPT_UD;
	case RNIC_WR_RDMA_READ:
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
	case RNIC_WR_SEND_WITH_INV:
		return rnic_qpt_reliable(type);
	case RNIC_WR_BIND_MW:
	case RNIC_WR_LOCAL_INV:
		return type != RNIC_QPT_UD;
	default:
		return false;
	}
}

/*
 * Check the kernel's copy of a send WQE; set its length and, for UD, its
 * destination. Return: 0 or the WC status it fails with.
 */
static u32 rnic_wqe_check(struct rnic_qp *qp, struct rnic_kwqe *kw)
{
	struct rnic_send_wqe *w = &kw->wqe;
	u64 len = 0;
	u32 i;

	if (w->send_flags & ~RNIC_SEND_FLAGS ||
	    !rnic_opcode_ok(qp->type, w->opcode) ||
	    w->remote_srqn > (qp->type == RNIC_QPT_XRC_SEND ? RNIC_QPN_MASK : 0))
		return RNIC_WC_LOC_QP_OP_ERR;
	if (w->send_flags & RNIC_SEND_INLINE) {
		if (w->num_sge || w->inline_len > qp->cap.max_inline_data ||
		    rnic_wqe_is_rd_atomic(w->opcode) ||
		    rnic_wqe_is_local(w->opcode))
			return RNIC_WC_LOC_QP_OP_ERR;
		len = w->inline_len;
	} else {
		if (w->inline_len || w->num_sge > qp->cap.max_send_sge)
			return RNIC_WC_LOC_QP_OP_ERR;
		for (i = 0; i < w->num_sge; i++)
			len += kw->sge[i].length;
	}
	if (len > RNIC_MAX_MSG_SZ)
		return RNIC_WC_LOC_LEN_ERR;
	kw->length = len;

	switch (w->opcode) {
	case RNIC_WR_RDMA_WRITE:
	case RNIC_WR_RDMA_WRITE_WITH_IMM:
	case RNIC_WR_RDMA_READ:
		if (w->wr.rdma.__reserved)
			return RNIC_WC_LOC_QP_OP_ERR;
		break;
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		if (w->wr.atomic.__reserved || w->num_sge != 1 || len != 8)
			return RNIC_WC_LOC_QP_OP_ERR;
		break;
	case RNIC_WR_BIND_MW:
	case RNIC_WR_LOCAL_INV:
		if (w->num_sge)
			return RNIC_WC_LOC_QP_OP_ERR;
		break;
	}
	if (qp->type != RNIC_QPT_UD)
		return 0;

	if (w->wr.ud.__reserved || w->wr.ud.remote_qpn & ~RNIC_QPN_MASK ||
	    !rnic_req_ah(qp, w->wr.ud.ah_handle, &kw->av))
		return RNIC_WC_LOC_QP_OP_ERR;
	kw->dqpn = w->wr.ud.remote_qpn;
	/* A Q_Key with the high bit set means the QP's own (IB spec). */
	kw->qkey = w->wr.ud.remote_qkey & BIT(31) ? READ_ONCE(qp->attr.qkey) :
						   w->wr.ud.remote_qkey;
	return 0;
}

/*
 * Copy the next SQ entry into kernel memory and check it (its status
 * says how it went). Return: 1 with a WQE fetched, 0 if the ring is
 * empty, or -EPROTO if the producer index lies: more than a ring ahead
 * of done, or behind fetched (done <= fetched <= producer always, so
 * fetched - done never exceeds the ring size).
 */
static int rnic_req_fetch(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	struct rnic_kwqe *kw;
	const u8 *slot;
	u32 prod;

	/* Pairs with userspace's store-release of the producer index. */
	prod = smp_load_acquire(qp->sq.producer);
	if (prod == req->fetched)
		return 0;
	if (prod - req->done > qp->sq.mask + 1 ||
	    prod - req->done < req->fetched - req->done)
		return -EPROTO;
	kw = rnic_kwqe(qp, req->fetched);
	slot = rnic_ring_slot(&qp->sq, req->fetched);
	memcpy(&kw->wqe, slot, sizeof(kw->wqe));
	memcpy(kw->sge, slot + sizeof(kw->wqe),
	       qp->sq.entry_size - sizeof(kw->wqe));
	kw->length = 0;
	kw->rd_credit = false;
	kw->started = false;
	req->fetched++;
	kw->status = rnic_wqe_check(qp, kw);
	return 1;
}

/*
 * The QP is in ERR or SQE: complete every WQE with IBV_WC_WR_FLUSH_ERR,
 * those fetched and those still in the ring. Return: true if there is
 * more to do than one pass does.
 */
static bool rnic_req_flush_pass(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	int ret;
	u32 n;

	for (n = 0; n < RNIC_FLUSH_BUDGET; n++) {
		if (req->done == req->fetched) {
			ret = rnic_req_fetch(qp);
			if (ret <= 0)
				break;
		}
		req->next = req->done;
		rnic_req_complete(qp, RNIC_WC_WR_FLUSH_ERR);
	}
	req->next = req->done;
	req->offset = 0;
	rnic_req_rnr_stop(qp);
	return n == RNIC_FLUSH_BUDGET;
}

/**
 * rnic_req_flush() - one flush pass over the send queue of a QP in ERR
 * @qp: the QP, in ERR
 *
 * For a caller that flushes in its own context (device removal) instead
 * of leaving it to the requester's work. Serialised with the requester's
 * steps by rnic_req.lock, as rnic_req_step() does it.
 *
 * Context: process, no data path lock held.
 * Return: whether there is more than one pass does.
 */
bool rnic_req_flush(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	bool more = false;

	if (!qp->sq.region)
		return false;
	local_bh_disable();
	rcu_read_lock();
	spin_lock(&req->lock);
	if (rnic_qp_state(qp) == RNIC_QPS_ERR)
		more = rnic_req_flush_pass(qp);
	spin_unlock(&req->lock);
	rcu_read_unlock();
	local_bh_enable();
	return more;
}

/* Is a WQE with the first or last PSN @psn started, at or after done? */
struct rnic_kwqe *rnic_req_find_psn(struct rnic_qp *qp, u32 psn, u32 *index)
{
	struct rnic_req *req = &qp->req;
	struct rnic_kwqe *kw;
	u32 i;

	for (i = req->done; i != req->fetched; i++) {
		kw = rnic_kwqe(qp, i);
		if (!kw->started)
			break;
		if (!rnic_psn_before(psn, kw->first_psn) &&
		    !rnic_psn_before(kw->last_psn, psn)) {
			*index = i;
			return kw;
		}
	}
	return NULL;
}

/*
 * Send again from @psn: a NAK, an RNR NAK or a timeout asks for it. The
 * WQEs from there on stay started, with their PSNs and credits: they are
 * sent again exactly as before, also in SQD.
 */
bool rnic_req_rewind(struct rnic_qp *qp, u32 psn)
{
	struct rnic_req *req = &qp->req;
	struct rnic_kwqe *kw;
	u32 index;

	kw = rnic_req_find_psn(qp, psn, &index);
	if (!kw)
		return false;
	req->next = index;
	req->offset = rnic_psn_add(psn, -kw->first_psn) * qp->path.mtu;
	if (rnic_wqe_is_atomic(kw->wqe.opcode))
		req->offset = 0;
	req->psn = psn;
	return true;
}

static u8 rnic_seg_opcode(u32 wr_opcode, bool first, bool last)
{
	bool imm = wr_opcode == RNIC_WR_SEND_WITH_IMM ||
		   wr_opcode == RNIC_WR_RDMA_WRITE_WITH_IMM;
	bool send = wr_opcode == RNIC_WR_SEND ||
		    wr_opcode == RNIC_WR_SEND_WITH_IMM ||
		    wr_opcode == RNIC_WR_SEND_WITH_INV;

	if (last && wr_opcode == RNIC_WR_SEND_WITH_INV)
		return first ? RNIC_SEND_ONLY_INV : RNIC_SEND_LAST_INV;
	if (first && last)
		return send ? (imm ? RNIC_SEND_ONLY_IMM : RNIC_SEND_ONLY) :
			      (imm ? RNIC_WRITE_ONLY_IMM : RNIC_WRITE_ONLY);
	if (first)
		return send ? RNIC_SEND_FIRST : RNIC_WRITE_FIRST;
	if (last)
		return send ? (imm ? RNIC_SEND_LAST_IMM : RNIC_SEND_LAST) :
			      (imm ? RNIC_WRITE_LAST_IMM : RNIC_WRITE_LAST);
	return send ? RNIC_SEND_MIDDLE : RNIC_WRITE_MIDDLE;
}

/*
 * Execute a local operation (bind, invalidate), the WQE at next and done:
 * those before it completed, so it takes effect after them, in the order
 * of the send queue (stricter than IBTA asks, which leaves a bind free to
 * pass an RDMA READ without a fence). It completes at once, or fails.
 */
static void rnic_req_local(struct rnic_qp *qp, struct rnic_kwqe *kw)
{
	const struct rnic_send_wqe *w = &kw->wqe;
	u32 status;

	if (w->opcode == RNIC_WR_BIND_MW)
		status = rnic_mw_bind(qp, w);
	else
		status = rnic_mw_invalidate(qp, w->ex.invalidate_rkey) ?
			 RNIC_WC_SUCCESS : RNIC_WC_LOC_QP_OP_ERR;
	if (status)
		rnic_req_fail(qp, status);
	else
		rnic_req_complete(qp, RNIC_WC_SUCCESS);
}

/* Start a WQE: credits, fences, PSNs. false: it must wait. */
static bool rnic_req_start(struct rnic_qp *qp, struct rnic_kwqe *kw)
{
	struct rnic_req *req = &qp->req;
	u32 npkts;

	if ((kw->wqe.send_flags & RNIC_SEND_FENCE) && req->rd_atomic)
		return false;
	if (rnic_wqe_is_rd_atomic(kw->wqe.opcode) && !kw->rd_credit) {
		if (req->rd_atomic >= req->max_rd_atomic)
			return false;
		req->rd_atomic++;
		kw->rd_credit = true;
	}
	npkts = rnic_wqe_is_atomic(kw->wqe.opcode) ? 1 :
		max_t(u32, DIV_ROUND_UP(kw->length, qp->path.mtu), 1);
	kw->first_psn = req->psn;
	kw->last_psn = rnic_psn_add(req->psn, npkts - 1);
	kw->resp_psn = req->psn;
	kw->resp_gap = false;
	kw->started = true;
	kw->lost = rnic_qpt_reliable(qp->type) && rnic_fault_retry_exc(qp->rdev);
	return true;
}

/* With the WQE at next, do half the SQ's WQEs wait for an ACK? */
static bool rnic_req_sq_half(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;

	return req->next + 1 - req->done > qp->sq.mask / 2;
}

/* Bytes of the next READ request of the WQE at next: a chunk at most. */
static u32 rnic_req_read_chunk(struct rnic_qp *qp, struct rnic_kwqe *kw)
{
	return min_t(u32, kw->length - qp->req.offset,
		     RNIC_READ_CHUNK_PKTS * qp->path.mtu);
}

/* Responses a READ request of @len bytes asks for. */
static u32 rnic_read_npkts(struct rnic_qp *qp, u32 len)
{
	return max_t(u32, DIV_ROUND_UP(len, qp->path.mtu), 1);
}

/*
 * Must the READ request of the WQE at next wait for answers to those in
 * flight (rnic_req.rd_window)? PSNs after the last acknowledged one are
 * in flight; after a rewind behind it, none are.
 */
static bool rnic_req_rd_wait(struct rnic_qp *qp, struct rnic_kwqe *kw)
{
	struct rnic_req *req = &qp->req;
	u32 first = rnic_psn_add(req->ack_psn, 1), in_flight;

	if (!rnic_psn_before(first, req->psn))
		return false;
	in_flight = rnic_psn_add(req->psn, -first);
	req->rd_blocked = in_flight +
			  rnic_read_npkts(qp, rnic_req_read_chunk(qp, kw)) >
			  req->rd_window;
	return req->rd_blocked;
}

/**
 * rnic_req_rd_shrink() - READ responses were lost or late: halve the
 *	READ window
 * @qp: the QP, rnic_req.lock held
 *
 * Half of what could be in flight: a window above max_rd_atomic chunks
 * never bound, and halving it would not slow the requester down.
 */
void rnic_req_rd_shrink(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	u32 cap = req->max_rd_atomic * RNIC_READ_CHUNK_PKTS;

	req->rd_window = max_t(u32, min(req->rd_window, cap) / 2,
			       RNIC_RD_WINDOW_MIN);
}

/**
 * rnic_req_rd_grow() - a READ completed: widen the READ window
 * @qp: the QP, rnic_req.lock held
 *
 * By one chunk per window of responses (a chunk's share of it per READ):
 * the window creeps back up to where the link dropped responses last,
 * instead of doubling into the same drops again at once.
 */
void rnic_req_rd_grow(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	u32 step = RNIC_READ_CHUNK_PKTS * RNIC_READ_CHUNK_PKTS / req->rd_window;

	req->rd_window = min_t(u32, req->rd_window + max_t(u32, step, 1),
			       RNIC_RD_WINDOW_MAX);
}

/* An RDMA READ request for the next chunk of the WQE's responses. */
static void rnic_req_build_read(struct rnic_qp *qp, struct rnic_kwqe *kw,
				struct rnic_req_step *st)
{
	struct rnic_req *req = &qp->req;
	struct rnic_send_wqe *w = &kw->wqe;
	struct rnic_pkt *pkt = &st->pkt;
	u32 len, npkts;

	len = rnic_req_read_chunk(qp, kw);
	npkts = rnic_read_npkts(qp, len);
	pkt->opcode = rnic_transport(qp->type) | RNIC_READ_REQ;
	pkt->va = w->wr.rdma.remote_addr + req->offset;
	pkt->rkey = w->wr.rdma.rkey;
	pkt->dma_len = len;
	pkt->ack_req = true;
	pkt->npkts = 1;
	req->psn = rnic_psn_add(req->psn, npkts);
	req->offset += len;
	st->last = req->offset >= kw->length;
}

/* The one packet of a compare-and-swap or fetch-and-add. */
static void rnic_req_build_atomic(struct rnic_qp *qp, struct rnic_kwqe *kw,
				  struct rnic_req_step *st)
{
	struct rnic_req *req = &qp->req;
	struct rnic_send_wqe *w = &kw->wqe;
	struct rnic_pkt *pkt = &st->pkt;

	pkt->opcode = rnic_transport(qp->type) |
		(w->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ?
		 RNIC_CMP_SWAP : RNIC_FETCH_ADD);
	pkt->va = w->wr.atomic.remote_addr;
	pkt->rkey = w->wr.atomic.rkey;
	pkt->swap = w->wr.atomic.swap;
	pkt->compare_add = w->wr.atomic.compare_add;
	pkt->ack_req = true;
	pkt->npkts = 1;
	req->psn = rnic_psn_add(req->psn, 1);
	st->last = true;
}

/*
 * Bytes of a SEND or WRITE message one request carries at most: as many
 * whole packets as the path's link and the device allow, at least one.
 */
static u32 rnic_req_burst(struct rnic_qp *qp, const struct rnic_av *av)
{
	u32 max = rnic_av_link(av)->max_burst;
	u32 mtu = qp->path.mtu;

	if (qp->rdev->max_burst)
		max = min(max, qp->rdev->max_burst);
	return max_t(u32, round_down(max, mtu), mtu);
}

/*
 * SEND and WRITE: the next burst of MTU segments (struct rnic_pkt.npkts),
 * as many as rnic_req_burst() allows; with one per request, the packets
 * are exactly those of the wire: RETH on the first of a WRITE, the
 * immediate and SE on the last. A datagram is one packet of at most the
 * MTU in force now (a modify may have changed it since the WQE was
 * posted): never cut. Return: 0 or a WC status.
 */
static u32 rnic_req_build_burst(struct rnic_qp *qp, struct rnic_kwqe *kw,
				struct rnic_req_step *st)
{
	struct rnic_req *req = &qp->req;
	struct rnic_send_wqe *w = &kw->wqe;
	struct rnic_pkt *pkt = &st->pkt;
	u32 len, npkts;

	if (qp->type == RNIC_QPT_UD && kw->length > qp->path.mtu)
		return RNIC_WC_LOC_LEN_ERR;
	len = min(kw->length - req->offset, rnic_req_burst(qp, &st->av));
	npkts = max_t(u32, DIV_ROUND_UP(len, qp->path.mtu), 1);
	if (w->send_flags & RNIC_SEND_INLINE)
		st->pl.inline_data = (const u8 *)kw->sge + req->offset;
	else if (rnic_payload_from_sgl(&st->pl, qp->rdev, qp->pd, kw->sge,
				       w->num_sge, req->offset, len, 0))
		return RNIC_WC_LOC_PROT_ERR;
	st->last = req->offset + len == kw->length;
	pkt->opcode = rnic_transport(qp->type) |
		      rnic_seg_opcode(w->opcode, req->offset == 0, st->last);
	if (req->offset == 0 && (w->opcode == RNIC_WR_RDMA_WRITE ||
				 w->opcode == RNIC_WR_RDMA_WRITE_WITH_IMM)) {
		pkt->va = w->wr.rdma.remote_addr;
		pkt->rkey = w->wr.rdma.rkey;
		pkt->dma_len = kw->length;
	}
	if (st->last) {
		pkt->imm = w->ex.imm_data;
		pkt->inv_rkey = w->ex.invalidate_rkey;
		pkt->solicited = w->send_flags & RNIC_SEND_SOLICITED;
	}
	/*
	 * ACKs are coalesced. One is asked for at the end of a WQE that
	 * completes with a CQE, when half the SQ waits for one, and at
	 * every RNIC_ACK_EVERY-th packet (progress for the timer). The
	 * packets between are acknowledged with the next that asks; if
	 * none comes, the transport timer, SQD or a WQE that has to fail
	 * asks (rnic_req_ask()).
	 */
	pkt->ack_req = rnic_qpt_reliable(qp->type) &&
		       ((st->last && (rnic_wqe_signaled(qp, kw) ||
				      rnic_req_sq_half(qp))) ||
			(pkt->psn & (RNIC_ACK_EVERY - 1)) + npkts >=
			RNIC_ACK_EVERY);
	pkt->npkts = npkts;
	pkt->len = len;
	pkt->payload = len ? &st->pl : NULL;
	req->psn = rnic_psn_add(req->psn, npkts);
	req->offset += len;
	return 0;
}

/*
 * Build the next packet of WQE @kw (the one at next) into @st and move
 * the requester past it. Return: 0, or a WC status the WQE fails with.
 */
static u32 rnic_req_build(struct rnic_qp *qp, struct rnic_kwqe *kw,
			  struct rnic_req_step *st)
{
	struct rnic_req *req = &qp->req;
	struct rnic_send_wqe *w = &kw->wqe;
	struct rnic_pkt *pkt = &st->pkt;

	memset(pkt, 0, sizeof(*pkt));
	st->pl.inline_data = NULL;
	st->pl.nsegs = 0;
	pkt->sqpn = qp->qpn;
	pkt->dev = qp->rdev;
	pkt->src = qp;
	pkt->psn = req->psn;
	if (qp->type == RNIC_QPT_UD) {
		st->av = kw->av;
		pkt->dqpn = kw->dqpn;
		pkt->qkey = kw->qkey;
	} else {
		st->av = qp->path.av;
		pkt->dqpn = qp->path.dqpn;
	}
	pkt->av = &st->av;
	/* 0 but on an XRC INI QP (rnic_wqe_check()) */
	pkt->srqn = w->remote_srqn;

	if (w->opcode == RNIC_WR_RDMA_READ) {
		rnic_req_build_read(qp, kw, st);
		return 0;
	}
	if (rnic_wqe_is_atomic(w->opcode)) {
		rnic_req_build_atomic(qp, kw, st);
		return 0;
	}
	return rnic_req_build_burst(qp, kw, st);
}

/*
 * RC: packets were sent after the last one that asked for an answer (ACKs
 * are coalesced), and something waits for one: SQD, a WQE that fails
 * after those before it, the transport timer. The last packet is sent
 * again, asking; the responder answers the duplicate. Return: true if it
 * will be.
 */
static bool rnic_req_ask(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	u32 last = rnic_psn_add(req->psn, -1);

	if (!rnic_qpt_reliable(qp->type) || !rnic_psn_before(req->ackreq_psn, last))
		return false;
	if (!rnic_req_rewind(qp, last))
		return false;
	req->ask_next = true;
	return true;
}

/* The transport timer expired: go back, or give up. */
static void rnic_req_timeout(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	struct rnic_kwqe *kw;

	u32 index;

	req->timed_out = false;
	if (!rnic_req_in_flight(qp))
		return;
	/* every ACK asked for came: ask about the rest, if there is any */
	if (!rnic_psn_before(req->ack_psn, req->ackreq_psn)) {
		rnic_req_ask(qp);
		return;
	}
	if (time_before(jiffies, req->progress + req->timeout)) {
		rnic_req_timer_set(qp, req->progress + req->timeout - jiffies);
		return;
	}
	if (!req->retry_left) {
		rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_RETRY_EXCEEDED_ERR);
		rnic_req_fail(qp, RNIC_WC_RETRY_EXC_ERR);
		return;
	}
	rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_COMPLETER_RETRY_ERR);
	req->retry_left--;
	rnic_req_rd_shrink(qp);
	/*
	 * Go back to the first packet not acknowledged; for a READ or an
	 * atomic, not answered: a NAK acknowledges it without its answer.
	 */
	kw = rnic_kwqe(qp, req->done);
	if (rnic_wqe_is_rd_atomic(kw->wqe.opcode))
		rnic_req_rewind(qp, kw->resp_psn);
	else if (rnic_req_find_psn(qp, rnic_psn_add(req->ack_psn, 1), &index))
		rnic_req_rewind(qp, rnic_psn_add(req->ack_psn, 1));
	else
		rnic_req_rewind(qp, kw->first_psn);
	req->progress = jiffies;
	rnic_req_timer_set(qp, req->timeout);
}

/**
 * rnic_req_in_flight() - has the requester started WQEs it did not complete?
 * @qp: the QP, rnic_req.lock held
 */
bool rnic_req_in_flight(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (!qp->sq.region)
		return false;
	return req->done != req->next || req->offset ||
	       (req->done != req->fetched && rnic_kwqe(qp, req->done)->started);
}

/* SQD and nothing in flight: tell userspace once, if it asked. */
static void rnic_req_check_drained(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;

	if (rnic_req_in_flight(qp) || req->drained_sent)
		return;
	req->drained_sent = true;
	if (READ_ONCE(qp->attr.en_sqd_async_notify))
		rnic_async_event(qp->uobj.ctx, RNIC_EVENT_SQ_DRAINED,
				 &qp->ev, 0);
}

/*
 * Decide what the requester does next, under its lock; @pause: it is the
 * last packet before the requester yields. Return: 1 with a packet in @st
 * to send, 0 when there is nothing to do now, -EAGAIN when there is more
 * to do but no packet (a flush pass).
 */
static int rnic_req_step(struct rnic_qp *qp, struct rnic_req_step *st,
			 bool pause)
{
	struct rnic_req *req = &qp->req;
	struct rnic_kwqe *kw;
	u32 state, status;
	int ret;

	lockdep_assert_held(&req->lock);
	state = rnic_qp_state(qp);
	if (state == RNIC_QPS_ERR || state == RNIC_QPS_SQE)
		return rnic_req_flush_pass(qp) ? -EAGAIN : 0;
	if (state != RNIC_QPS_RTS && state != RNIC_QPS_SQD)
		return 0;
	if (req->timed_out)
		rnic_req_timeout(qp);
	/* the timeout may have failed the QP: flush on the next step */
	if (rnic_qp_state(qp) == RNIC_QPS_ERR)
		return -EAGAIN;
	if (req->rnr_wait)
		return 0;

	if (req->next == req->fetched) {
		if (state == RNIC_QPS_SQD)
			goto drain;
		ret = rnic_req_fetch(qp);
		if (ret < 0) {
			rnic_qp_error(qp, RNIC_EVENT_QP_FATAL);
			return -EAGAIN;
		}
		if (!ret)
			return 0;
	}
	kw = rnic_kwqe(qp, req->next);
	if (!req->offset && !kw->started) {
		if (state == RNIC_QPS_SQD)
			goto drain;
		/* A bad WQE fails in order: after those before it. */
		if (kw->status) {
			if (req->done != req->next)
				goto ask;
			rnic_req_fail(qp, kw->status);
			return -EAGAIN;
		}
		if (rnic_wqe_is_local(kw->wqe.opcode)) {
			if (req->done != req->next)
				goto ask;
			rnic_req_local(qp, kw);
			return -EAGAIN;
		}
		if (!rnic_req_start(qp, kw))
			return 0;
	}
	if (kw->wqe.opcode == RNIC_WR_RDMA_READ && rnic_req_rd_wait(qp, kw))
		return 0;
	st->index = req->next;
	status = rnic_req_build(qp, kw, st);
	if (status) {
		rnic_payload_put(&st->pl);
		if (req->done != req->next) {
			/* fail it once those before it are done */
			kw->status = status;
			kw->started = false;
			goto ask;
		}
		rnic_req_fail(qp, status);
		return -EAGAIN;
	}
	if (st->last) {
		req->next++;
		req->offset = 0;
	}
	if (rnic_qpt_reliable(qp->type)) {
		/* before a pause, ask for an ACK: nothing waits unasked */
		if (pause || req->ask_next)
			st->pkt.ack_req = true;
		req->ask_next = false;
		if (st->pkt.ack_req) {
			/* the clock runs from the first ACK waited for */
			if (!rnic_psn_before(req->ack_psn, req->ackreq_psn))
				req->progress = jiffies;
			/* a READ is answered up to its last response */
			req->ackreq_psn = rnic_psn_add(req->psn, -1);
		}
		rnic_req_timer_start(qp);
	}
	st->gen = req->gen;
	st->lost = kw->lost;
	return 1;

drain:
	rnic_req_check_drained(qp);
ask:
	/* what waits needs the WQEs before it acknowledged */
	return rnic_req_ask(qp) ? -EAGAIN : 0;
}

/* UC and UD: a WQE is complete once its last packet is sent. BH off. */
static void rnic_req_sent(struct rnic_qp *qp, const struct rnic_req_step *st)
{
	struct rnic_req *req = &qp->req;

	spin_lock(&req->lock);
	if (st->gen == req->gen && req->done == st->index &&
	    rnic_qp_state(qp) != RNIC_QPS_ERR)
		rnic_req_complete(qp, RNIC_WC_SUCCESS);
	spin_unlock(&req->lock);
}

/*
 * After the last packet of a WQE: is there certainly nothing to send? A
 * lockless look that spares the step that would find nothing (the usual
 * case of one post, one doorbell). Whatever gives the requester work
 * after it is seen here if it happened in our own call (the local link
 * answers inside rnic_link_xmit(): a NAK rewinds next, an error changes
 * the state), or pokes the requester (RUN_AGAIN, which rnic_req_run()
 * looks at after it let go), or moves the producer index and kicks.
 */
static bool rnic_req_idle(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	u32 fetched = READ_ONCE(req->fetched);

	if (rnic_qp_state(qp) != RNIC_QPS_RTS || READ_ONCE(req->timed_out) ||
	    READ_ONCE(req->next) != fetched)
		return false;
	/* Pairs with userspace's store-release of the producer index. */
	return smp_load_acquire(qp->sq.producer) == fetched;
}

/*
 * Send packets until there is nothing to do or the budget is spent. Each
 * step and its packet run in one BH-disabled RCU read-side section: the
 * link wants BH off, the lock then needs no _bh of its own, and every
 * lookup of the step and of the local link's receivers (QPs by number,
 * MRs by key) runs under this one rcu_read_lock().
 */
static bool rnic_req_send(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	struct rnic_req_step *st = &qp->scratch->step;
	int budget, ret;

	for (budget = RNIC_REQ_BUDGET; budget; budget--) {
		local_bh_disable();
		rcu_read_lock();
		spin_lock(&req->lock);
		ret = rnic_req_step(qp, st, budget == 1);
		spin_unlock(&req->lock);
		if (ret > 0) {
			if (likely(!st->lost))
				rnic_link_xmit(&st->pkt);
			rnic_payload_put(&st->pl);
			if (st->last && !rnic_qpt_reliable(qp->type))
				rnic_req_sent(qp, st);
		}
		rcu_read_unlock();
		local_bh_enable();
		if (!ret)
			return false;
		if (ret > 0 && st->last && rnic_req_idle(qp))
			return false;
	}
	return true;
}

/**
 * rnic_req_run() - run the requester of a QP
 * @qp: the QP
 *
 * If another thread runs it, that thread is told to look again instead.
 * It sends RNIC_REQ_BATCHES batches of RNIC_REQ_BUDGET packets at most,
 * rescheduling between them, the runs that other threads ask for while it
 * runs included; the rest goes on to the device's workqueue.
 *
 * Context: process (the kick ioctl, modify, the polling thread, the
 * QP's work), no data path lock held.
 */
void rnic_req_run(struct rnic_qp *qp)
{
	struct rnic_req *req = &qp->req;
	bool more = false;
	int batch = 0;

	if (!qp->sq.region) {
		spin_lock_bh(&req->lock);
		if (rnic_qp_state(qp) == RNIC_QPS_SQD)
			rnic_req_check_drained(qp);
		spin_unlock_bh(&req->lock);
		return;
	}
	for (;;) {
		if (test_and_set_bit_lock(RNIC_RUNNING, &req->running)) {
			set_bit(RNIC_RUN_AGAIN, &req->running);
			/* The runner looks at RUN_AGAIN after it let go. */
			smp_mb__after_atomic();
			if (test_and_set_bit_lock(RNIC_RUNNING, &req->running))
				return;
		}
		/* this run looks anyway; a locked op only if there is a kick */
		if (test_bit(RNIC_RUN_AGAIN, &req->running))
			clear_bit(RNIC_RUN_AGAIN, &req->running);
		WRITE_ONCE(req->runner, current);
		while (batch < RNIC_REQ_BATCHES) {
			batch++;
			more = rnic_req_send(qp);
			if (!more)
				break;
			cond_resched();
		}
		WRITE_ONCE(req->runner, NULL);
		clear_bit_unlock(RNIC_RUNNING, &req->running);
		/* Pairs with the barrier after a kicker's RUN_AGAIN. */
		smp_mb__after_atomic();
		if (more || !test_bit(RNIC_RUN_AGAIN, &req->running))
			break;
		/*
		 * Kicked while it ran. The kicks of other threads share this
		 * call's budget: they cannot keep it here for ever.
		 */
		if (batch == RNIC_REQ_BATCHES) {
			more = true;
			break;
		}
		cond_resched();
	}
	if (more)
		rnic_req_schedule(qp);
}

/* After the completer freed something, make sure the requester looks. */
void rnic_req_poke(struct rnic_qp *qp)
{
	/*
	 * The local link answers a request while its requester hands it
	 * over: that requester steps again after the call, no need to
	 * run it again.
	 */
	if (in_task() && READ_ONCE(qp->req.runner) == current)
		return;
	set_bit(RNIC_RUN_AGAIN, &qp->req.running);
	/* Pairs with the barrier after the runner let go of RUNNING. */
	smp_mb__after_atomic();
	if (!test_bit(RNIC_RUNNING, &qp->req.running))
		rnic_req_schedule(qp);
}
