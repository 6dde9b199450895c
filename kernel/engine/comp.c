// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the completer.
 *
 * The completer (rnic_comp_rcv()) retires WQEs in order: UC and UD ones
 * once sent, RC ones when an ACK, a READ response or an atomic ACK covers
 * their last PSN. A NAK rewinds the requester (PSN sequence error, RNR
 * after the RNR wait) or fails the WQE and the QP. It shares the
 * requester's state (struct rnic_req, under rnic_req.lock) and its
 * helpers (engine.h, "requester internals").
 */
#include "engine/engine.h"

#define RNIC_RNR_INFINITE	7

/* RNR NAK timer codes in microseconds (IB spec, table 45) */
static const u32 rnic_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * An RNR NAK: wait @usecs before resending, unless the QP is going away.
 * The peer answered, so no transport timeout runs meanwhile.
 */
static void rnic_req_rnr_wait(struct rnic_qp *qp, u32 usecs)
{
	struct rnic_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	req->rnr_wait = true;
	if (req->dead)
		return;
	req->timed_out = false;
	if (del_timer(&req->timer))
		rnic_qp_dp_put(qp);
	/* a wait still queued hands its reference on; a running one keeps it */
	if (hrtimer_try_to_cancel(&req->rnr_timer) != 1 &&
	    !rnic_dpref_get(&qp->dp))
		return;
	hrtimer_start(&req->rnr_timer, ns_to_ktime((u64)usecs * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_SOFT);
}

/* Retire the RC WQEs that an acknowledgment of @psn covers. */
static bool rnic_comp_ack(struct rnic_qp *qp, u32 psn)
{
	struct rnic_req *req = &qp->req;
	struct rnic_kwqe *kw;
	bool progress = false;

	while (req->done != req->fetched) {
		kw = rnic_kwqe(qp, req->done);
		if (!kw->started || rnic_wqe_is_rd_atomic(kw->wqe.opcode) ||
		    rnic_psn_before(psn, kw->last_psn) ||
		    req->done == req->next)
			break;
		rnic_req_complete(qp, RNIC_WC_SUCCESS);
		progress = true;
	}
	return progress;
}

static bool rnic_is_read_resp(u8 oper)
{
	return oper >= RNIC_READ_RESP_FIRST && oper <= RNIC_READ_RESP_ONLY;
}

/* What the completer did with a READ response or an atomic ACK */
enum rnic_comp_result {
	RNIC_COMP_IGNORED,	/* stale or unexpected */
	RNIC_COMP_PLACED,	/* progress */
	RNIC_COMP_DONE,		/* the WQE is complete (or failed) */
	RNIC_COMP_REWOUND,	/* a response is missing: asked again */
};

/*
 * Place a READ response, in order: the WQE completes with its last
 * response only when every one before it was placed.
 */
static int rnic_comp_read(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_req *req = &qp->req;
	struct rnic_kwqe *kw = rnic_kwqe(qp, req->done);
	struct rnic_payload *dst = &qp->scratch->comp_pl;
	u64 off;

	if (req->done == req->fetched || !kw->started ||
	    kw->wqe.opcode != RNIC_WR_RDMA_READ ||
	    pkt->psn != kw->resp_psn)
		return RNIC_COMP_IGNORED;
	off = (u64)rnic_psn_add(pkt->psn, -kw->first_psn) * qp->path.mtu;
	if (off + pkt->len > kw->length)
		return RNIC_COMP_IGNORED;
	if (pkt->len) {
		dst->inline_data = NULL;
		dst->nsegs = 0;
		if (rnic_payload_from_sgl(dst, qp->rdev, qp->pd, kw->sge,
					  kw->wqe.num_sge, off, pkt->len,
					  RNIC_ACCESS_LOCAL_WRITE)) {
			rnic_payload_put(dst);
			rnic_req_fail(qp, RNIC_WC_LOC_PROT_ERR);
			return RNIC_COMP_DONE;
		}
		rnic_pkt_copy_payload(dst, 0, pkt);
		rnic_payload_put(dst);
	}
	kw->resp_psn = rnic_psn_add(pkt->psn, 1);
	kw->resp_gap = false;
	if (pkt->psn != kw->last_psn)
		return RNIC_COMP_PLACED;
	rnic_req_rd_grow(qp);
	rnic_req_complete(qp, RNIC_WC_SUCCESS);
	return RNIC_COMP_DONE;
}

/* Place an atomic's original value. */
static int rnic_comp_atomic(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_req *req = &qp->req;
	struct rnic_kwqe *kw = rnic_kwqe(qp, req->done);
	struct rnic_payload *dst = &qp->scratch->comp_pl;
	u64 orig = pkt->orig;

	if (req->done == req->fetched || !kw->started ||
	    !rnic_wqe_is_atomic(kw->wqe.opcode) || pkt->psn != kw->first_psn)
		return RNIC_COMP_IGNORED;
	dst->inline_data = NULL;
	dst->nsegs = 0;
	if (rnic_payload_from_sgl(dst, qp->rdev, qp->pd, kw->sge, 1, 0, 8,
				  RNIC_ACCESS_LOCAL_WRITE)) {
		rnic_payload_put(dst);
		rnic_req_fail(qp, RNIC_WC_LOC_PROT_ERR);
		return RNIC_COMP_DONE;
	}
	rnic_payload_copy_in(dst, 0, &orig, sizeof(orig));
	rnic_payload_put(dst);
	rnic_req_complete(qp, RNIC_WC_SUCCESS);
	return RNIC_COMP_DONE;
}

/*
 * A response that is not the one the READ or atomic at done waits for
 * (rnic_kwqe.resp_psn). One after it means that one was lost, or is late:
 * ask again from it, once until it comes; the transport timer covers a
 * request that is lost again.
 */
static int rnic_comp_gap(struct rnic_qp *qp, u32 psn)
{
	struct rnic_req *req = &qp->req;
	struct rnic_kwqe *kw = rnic_kwqe(qp, req->done);

	if (req->done == req->fetched || !kw->started ||
	    !rnic_wqe_is_rd_atomic(kw->wqe.opcode) || kw->resp_gap ||
	    !rnic_psn_before(kw->resp_psn, psn) ||
	    !rnic_req_rewind(qp, kw->resp_psn))
		return RNIC_COMP_IGNORED;
	kw->resp_gap = true;
	rnic_req_rd_shrink(qp);
	return RNIC_COMP_REWOUND;
}

/* The peer answered up to @psn: transport and RNR retries start afresh. */
static void rnic_comp_progress(struct rnic_req *req, u32 psn)
{
	if (rnic_psn_before(req->ack_psn, psn))
		req->ack_psn = psn;
	req->retry_left = req->retry_cnt;
	req->rnr_left = req->rnr_retry;
	req->progress = jiffies;
}

/*
 * A READ response or atomic ACK the requester does not take: an answer to
 * a request answered before and sent again after a rewind, or one behind
 * a lost response. The peer is alive and works through what it owes, in
 * PSN order; the requests sent again are answered after that. The
 * transport timer's clock restarts: a timeout now would send every READ in
 * flight once more and lengthen the peer's queue by as much each time (a
 * slow peer never catches up: rdma_rxe under TCG takes longer than a
 * 67 ms timeout for 64 READs of 64 KiB). Only progress restores the
 * retries; a peer that stops answering times out as configured.
 */
static void rnic_comp_busy(struct rnic_qp *qp, u32 psn)
{
	u32 index;

	if (!rnic_psn_before(qp->req.ack_psn, psn) ||
	    rnic_req_find_psn(qp, psn, &index))
		qp->req.progress = jiffies;
}

static u32 rnic_nak_status(u32 code)
{
	switch (code) {
	case RNIC_NAK_INV_REQ:
		return RNIC_WC_REM_INV_REQ_ERR;
	case RNIC_NAK_REM_ACCESS:
		return RNIC_WC_REM_ACCESS_ERR;
	default:
		return RNIC_WC_REM_OP_ERR;
	}
}

/*
 * The last PSN an AETH acknowledges into @psn: an ACK's own; the one
 * before an RNR NAK's or a PSN sequence error NAK's (the peer took
 * everything up to there). Return: false for the NAKs that end the QP.
 */
static bool rnic_aeth_acked(const struct rnic_pkt *pkt, u32 *psn)
{
	u32 type = pkt->syndrome & RNIC_SYN_TYPE_MASK;

	if (type == RNIC_SYN_ACK) {
		*psn = pkt->psn;
		return true;
	}
	if (type == RNIC_SYN_RNR ||
	    (type == RNIC_SYN_NAK &&
	     (pkt->syndrome & RNIC_SYN_VALUE_MASK) == RNIC_NAK_PSN_SEQ)) {
		*psn = rnic_psn_add(pkt->psn, -1);
		return true;
	}
	return false;
}

/* An ACK or NAK (AETH). Return: true if the requester should look. */
static bool rnic_comp_aeth(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_req *req = &qp->req;
	u32 value = pkt->syndrome & RNIC_SYN_VALUE_MASK;
	u32 prev = rnic_psn_add(pkt->psn, -1);
	u32 index;

	switch (pkt->syndrome & RNIC_SYN_TYPE_MASK) {
	case RNIC_SYN_ACK:
		return rnic_comp_ack(qp, pkt->psn);
	case RNIC_SYN_RNR:
		rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_RCVD_RNR_ERR);
		rnic_comp_ack(qp, prev);
		/* nothing was sent during the wait: a duplicate or a late one */
		if (req->rnr_wait ||
		    !rnic_req_find_psn(qp, pkt->psn, &index))
			return false;
		if (req->rnr_retry != RNIC_RNR_INFINITE) {
			if (!req->rnr_left) {
				rnic_dev_count(qp->rdev,
					       RNIC_NL_COUNTER_RETRY_RNR_EXCEEDED_ERR);
				rnic_req_fail(qp, RNIC_WC_RNR_RETRY_EXC_ERR);
				return true;
			}
			req->rnr_left--;
		}
		rnic_req_rewind(qp, pkt->psn);
		rnic_req_rnr_wait(qp, rnic_rnr_usecs[value]);
		return false;
	case RNIC_SYN_NAK:
		rnic_comp_ack(qp, prev);
		if (value == RNIC_NAK_PSN_SEQ) {
			rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_RCVD_SEQ_ERR);
			rnic_req_rewind(qp, pkt->psn);
			return true;
		}
		if (req->done != req->fetched &&
		    rnic_kwqe(qp, req->done)->started)
			rnic_req_fail(qp, rnic_nak_status(value));
		return true;
	}
	return false;
}

/**
 * rnic_comp_rcv() - the completer: a response arrived for the QP
 * @qp: the QP (a requester)
 * @pkt: ACK, NAK, READ response or atomic ACK
 *
 * Context: any but hard interrupt; BH disabled. Called with the
 * responder's lock of the peer held (local link), never with this QP's
 * requester lock.
 */
void rnic_comp_rcv(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_req *req = &qp->req;
	u8 oper = pkt->opcode & RNIC_OPER_MASK;
	int result = RNIC_COMP_IGNORED;
	bool poke = false;
	u32 state, acked;

	if (!rnic_qpt_reliable(qp->type) ||
	    (pkt->opcode & RNIC_TRANSPORT_MASK) != rnic_transport(qp->type))
		return;
	spin_lock(&req->lock);
	state = rnic_qp_state(qp);
	if (state != RNIC_QPS_RTS && state != RNIC_QPS_SQD)
		goto out;
	/* a stranger's response must neither retire nor fail a WQE */
	if (!rnic_link_from_peer(pkt, &qp->path)) {
		rnic_link_drop_stranger(qp, pkt, RNIC_NL_COUNTER_RESP_NOT_PEER);
		goto out;
	}
	if (rnic_is_read_resp(oper) || oper == RNIC_ATOMIC_ACK) {
		/* a response acknowledges the requests before it */
		poke = rnic_comp_ack(qp, rnic_psn_add(pkt->psn, -1));
		result = oper == RNIC_ATOMIC_ACK ? rnic_comp_atomic(qp, pkt) :
						   rnic_comp_read(qp, pkt);
		if (result == RNIC_COMP_IGNORED)
			result = rnic_comp_gap(qp, pkt->psn);
		if (result == RNIC_COMP_PLACED || result == RNIC_COMP_DONE)
			rnic_comp_progress(req, pkt->psn);
		else
			rnic_comp_busy(qp, pkt->psn);
		poke = poke || result == RNIC_COMP_DONE ||
		       result == RNIC_COMP_REWOUND ||
		       (result == RNIC_COMP_PLACED && req->rd_blocked);
	} else if (oper == RNIC_ACK) {
		/*
		 * A new PSN acknowledged, by an ACK or a NAK that asks for
		 * the packets after it: the peer makes progress. Before the
		 * NAK is handled, so that an RNR NAK for a new PSN uses one
		 * of a fresh set of RNR retries.
		 */
		if (rnic_aeth_acked(pkt, &acked) &&
		    rnic_psn_before(req->ack_psn, acked)) {
			rnic_comp_progress(req, acked);
			poke = req->rd_blocked;
		}
		poke = rnic_comp_aeth(qp, pkt) || poke;
	}
out:
	spin_unlock(&req->lock);
	if (poke)
		rnic_req_poke(qp);
}
