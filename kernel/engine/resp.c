// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the responder.
 *
 * Executes the requests that arrive for a QP, one packet at a time under
 * rnic_resp.lock: checks the PSN (RC: duplicates are acknowledged again
 * or, for READs and atomics, answered again; a gap is NAKed once; UC:
 * a gap drops the message), the opcode sequence, the keys and access
 * rights, then places the payload with the one copy of a received packet
 * (rnic_pkt_copy_payload(), from the sender's memory or from an skb) and
 * completes receive WQEs. RC requests get their ACK, NAK, READ responses
 * or atomic ACK back through the link while the lock is held; the
 * requester's completer takes only its own lock.
 *
 * Responses leave in PSN order. The READ responses and atomic ACKs owed
 * are queued (rnic_resp.owed, sorted by PSN) and sent in passes of
 * RNIC_RESP_BUDGET packets: one at the end of the call that delivered the
 * request, the others from the requester's work (rnic_resp_work()). A
 * peer may so ask for a whole 2 GiB message in one READ (rdma_rxe does)
 * without the receive path sending it all at once. An ACK, or a NAK that
 * asks for a resend, waits behind what is owed (rnic_resp.aeth_owed); a
 * NAK that ends the connection does not wait, and nothing owed is sent
 * after it.
 *
 * Receive WQEs are copied out of the RQ or SRQ ring when a message
 * starts (struct rnic_resp.rwqe); the ring entry is free for userspace
 * from then on.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/log2.h>
#include <net/ip.h>

#include "engine/engine.h"

/**
 * rnic_resp_init() - responder state of a new or reset QP
 * @qp: the QP; rnic_resp.lock held unless nobody can reach it yet
 */
void rnic_resp_init(struct rnic_qp *qp)
{
	struct rnic_resp *resp = &qp->resp;

	resp->epsn = 0;
	resp->msn = 0;
	resp->in_msg = false;
	resp->drop_msg = false;
	resp->has_rwqe = false;
	resp->comm_est = false;
	if (resp->atomics)
		memset(resp->atomics, 0xff,
		       RNIC_MAX_RD_ATOM * sizeof(*resp->atomics));
	resp->atomic_next = 0;
	resp->owed_head = 0;
	resp->owed_tail = 0;
	resp->aeth_owed = false;
	resp->nak_sent = false;
	resp->rq_cons = 0;
	resp->rq_prod = 0;
	resp->last_wqe_sent = false;
	resp->access = 0;
	resp->max_dest_rd_atomic = 0;
}

static bool rnic_oper_has_inv(u8 oper)
{
	return oper == RNIC_SEND_LAST_INV || oper == RNIC_SEND_ONLY_INV;
}

static bool rnic_oper_is_send(u8 oper)
{
	return oper <= RNIC_SEND_ONLY_IMM || rnic_oper_has_inv(oper);
}

static bool rnic_oper_is_write(u8 oper)
{
	return oper >= RNIC_WRITE_FIRST && oper <= RNIC_WRITE_ONLY_IMM;
}

static bool rnic_oper_starts(u8 oper)
{
	switch (oper) {
	case RNIC_SEND_MIDDLE:
	case RNIC_SEND_LAST:
	case RNIC_SEND_LAST_IMM:
	case RNIC_SEND_LAST_INV:
	case RNIC_WRITE_MIDDLE:
	case RNIC_WRITE_LAST:
	case RNIC_WRITE_LAST_IMM:
		return false;
	default:
		return true;
	}
}

static bool rnic_oper_ends(u8 oper)
{
	switch (oper) {
	case RNIC_SEND_FIRST:
	case RNIC_SEND_MIDDLE:
	case RNIC_WRITE_FIRST:
	case RNIC_WRITE_MIDDLE:
		return false;
	default:
		return true;
	}
}

static bool rnic_oper_has_imm(u8 oper)
{
	return oper == RNIC_SEND_LAST_IMM || oper == RNIC_SEND_ONLY_IMM ||
	       oper == RNIC_WRITE_LAST_IMM || oper == RNIC_WRITE_ONLY_IMM;
}

/*
 * Hand a response (ACK, NAK, READ response, atomic ACK), its MSN set, to
 * the link. Return: 0, or -errno if the link refused it.
 */
static int rnic_resp_send(struct rnic_qp *qp, struct rnic_pkt *pkt)
{
	pkt->dqpn = qp->path.dqpn;
	pkt->sqpn = qp->qpn;
	pkt->av = &qp->path.av;
	pkt->dev = qp->rdev;
	pkt->dst = qp->resp.reply_to;
	return rnic_link_xmit(pkt);
}

static void rnic_resp_send_aeth(struct rnic_qp *qp, u32 psn, u32 msn,
				u8 syndrome)
{
	struct rnic_pkt pkt = {
		.opcode = rnic_transport(qp->type) | RNIC_ACK,
		.psn = psn,
		.msn = msn,
		.syndrome = syndrome,
	};

	rnic_resp_send(qp, &pkt);
}

static u32 rnic_resp_owed_count(const struct rnic_resp *resp)
{
	return resp->owed_tail - resp->owed_head;
}

static struct rnic_resp_owed *rnic_resp_owed_at(struct rnic_resp *resp,
						u32 i)
{
	return &resp->owed[i % RNIC_MAX_RD_ATOM];
}

/* Nothing owed is sent any more: the connection ended. */
static void rnic_resp_owed_clear(struct rnic_resp *resp)
{
	resp->owed_head = resp->owed_tail;
	resp->aeth_owed = false;
}

/*
 * An ACK or a NAK. One that lets the connection go on waits behind the
 * READ responses and atomic ACKs owed (they are for earlier PSNs): a
 * later one replaces it, but an ACK never replaces a NAK, which says more.
 */
static void rnic_resp_aeth(struct rnic_qp *qp, u32 psn, u8 syndrome)
{
	struct rnic_resp *resp = &qp->resp;
	u8 type = syndrome & RNIC_SYN_TYPE_MASK;
	bool goes_on = type != RNIC_SYN_NAK ||
		       (syndrome & RNIC_SYN_VALUE_MASK) == RNIC_NAK_PSN_SEQ;

	if (!goes_on) {
		rnic_resp_owed_clear(resp);
	} else if (rnic_resp_owed_count(resp)) {
		if (!resp->aeth_owed || type != RNIC_SYN_ACK ||
		    (resp->aeth_syndrome & RNIC_SYN_TYPE_MASK) == RNIC_SYN_ACK) {
			resp->aeth_owed = true;
			resp->aeth_psn = psn;
			resp->aeth_msn = resp->msn;
			resp->aeth_syndrome = syndrome;
		}
		return;
	}
	rnic_resp_send_aeth(qp, psn, resp->msn, syndrome);
}

/*
 * Owe @o: inserted in PSN order, replacing (and so restarting) an entry
 * with the same first PSN. Return: 0, or -ENOSPC if RNIC_MAX_RD_ATOM
 * entries are owed already.
 */
static int rnic_resp_owe(struct rnic_resp *resp,
			 const struct rnic_resp_owed *o)
{
	u32 i = resp->owed_tail, j;
	struct rnic_resp_owed *e;

	while (i != resp->owed_head) {
		e = rnic_resp_owed_at(resp, i - 1);
		if (e->psn == o->psn) {
			*e = *o;
			return 0;
		}
		if (rnic_psn_before(e->psn, o->psn))
			break;
		i--;
	}
	if (rnic_resp_owed_count(resp) == RNIC_MAX_RD_ATOM)
		return -ENOSPC;
	/* the later ones move up by one */
	for (j = resp->owed_tail++; j != i; j--)
		*rnic_resp_owed_at(resp, j) = *rnic_resp_owed_at(resp, j - 1);
	*rnic_resp_owed_at(resp, i) = *o;
	return 0;
}

/*
 * A request that cannot be executed: NAK it (RC) and take the QP out of
 * service with @event, or drop the message (UC).
 */
static void rnic_resp_nak(struct rnic_qp *qp, const struct rnic_pkt *pkt,
			  u32 code, u32 event)
{
	struct rnic_resp *resp = &qp->resp;

	resp->in_msg = false;
	if (!rnic_qpt_reliable(qp->type)) {
		resp->drop_msg = !rnic_oper_ends(pkt->opcode & RNIC_OPER_MASK);
		return;
	}
	rnic_resp_aeth(qp, pkt->psn, RNIC_SYN_NAK | code);
	rnic_qp_error(qp, event);
}

/*
 * The SRQ receives come from: the QP's, or an XRC TGT QP's for the
 * request being handled (resp->xsrq); NULL for a QP with an RQ.
 */
static struct rnic_srq *rnic_resp_srq(struct rnic_qp *qp)
{
	return qp->type == RNIC_QPT_XRC_RECV ? qp->resp.xsrq : qp->srq;
}

/* The CQ of receive completions: an XRC TGT QP's is its SRQ's. */
static struct rnic_cq *rnic_resp_cq(struct rnic_qp *qp)
{
	return qp->type == RNIC_QPT_XRC_RECV ? qp->resp.xsrq->cq :
	       qp->recv_cq;
}

/* Complete the receive WQE in resp->rwqe. */
static void rnic_resp_complete(struct rnic_qp *qp, u32 status, u32 opcode,
			       u32 byte_len, const struct rnic_pkt *pkt)
{
	struct rnic_resp *resp = &qp->resp;
	struct rnic_cqe cqe = {
		.wr_id = resp->rwqe.wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.qp_num = qp->qpn,
	};
	bool solicited = false;

	resp->has_rwqe = false;
	if (pkt) {
		cqe.src_qp = pkt->sqpn;
		if (rnic_oper_has_imm(pkt->opcode & RNIC_OPER_MASK)) {
			cqe.imm_data = pkt->imm;
			cqe.wc_flags |= RNIC_WC_WITH_IMM;
		}
		if (rnic_oper_has_inv(pkt->opcode & RNIC_OPER_MASK)) {
			cqe.invalidated_rkey = pkt->inv_rkey;
			cqe.wc_flags |= RNIC_WC_WITH_INV;
		}
		if (qp->type == RNIC_QPT_UD)
			cqe.wc_flags |= RNIC_WC_GRH;
		solicited = pkt->solicited;
	}
	if (rnic_cq_post(rnic_resp_cq(qp), &cqe, solicited))
		rnic_qp_error(qp, U32_MAX);
}

/*
 * Copy entry *@cons of @ring into resp->rwqe; see rnic_resp_take().
 * *@prod is the producer index as last read: the ring's own is read (and
 * checked) again only when *@cons caught up with it.
 */
static int rnic_resp_take_from(struct rnic_qp *qp, struct rnic_ring *ring,
			       u32 *cons, u32 *prod, u32 max_sge)
{
	struct rnic_resp *resp = &qp->resp;
	const u8 *slot;
	int ret = 0;
	u32 n;

	if (*prod == *cons) {
		/* Pairs with userspace's store-release of the index. */
		*prod = smp_load_acquire(ring->producer);
		if (*prod == *cons)
			return -EAGAIN;
		if (*prod - *cons > ring->mask + 1) {
			*prod = *cons;
			return -EPROTO;
		}
	}
	slot = rnic_ring_slot(ring, *cons);
	memcpy(&resp->rwqe, slot, sizeof(resp->rwqe));
	n = resp->rwqe.num_sge;
	if (n > max_sge || resp->rwqe.__reserved) {
		resp->rwqe.num_sge = 0;
		ret = -EINVAL;
	} else {
		memcpy(resp->rwqe_sges, slot + sizeof(resp->rwqe),
		       n * sizeof(struct rnic_sge));
	}
	(*cons)++;
	/* The slot is ours no more: after the copy. */
	smp_store_release(ring->consumer, *cons);
	resp->has_rwqe = true;
	return ret;
}

/*
 * Copy the next receive WQE of the QP's RQ or SRQ into resp->rwqe.
 * Return: 0, -EAGAIN if there is none, -EPROTO if the ring's producer
 * index lies, -EINVAL if the WQE is malformed (it is taken anyway, so
 * that it can complete in error).
 */
static int rnic_resp_take(struct rnic_qp *qp)
{
	struct rnic_srq *srq = rnic_resp_srq(qp);
	int ret;

	if (qp->resp.has_rwqe)
		return 0;
	if (!srq) {
		if (!qp->rq.region)
			return -EAGAIN;
		return rnic_resp_take_from(qp, &qp->rq, &qp->resp.rq_cons,
					   &qp->resp.rq_prod,
					   qp->cap.max_recv_sge);
	}
	spin_lock(&srq->lock);
	ret = rnic_resp_take_from(qp, &srq->ring, &srq->consumer,
				  &srq->producer_seen, srq->max_sge);
	qp->resp.rwqe_srqn = srq->srqn;
	if (ret != -EAGAIN && ret != -EPROTO && srq->limit &&
	    READ_ONCE(*srq->ring.producer) - srq->consumer < srq->limit) {
		srq->limit = 0;
		rnic_async_event(srq->uobj.ctx, RNIC_EVENT_SRQ_LIMIT_REACHED,
				 &srq->ev, 0);
	}
	spin_unlock(&srq->lock);
	return ret;
}

/* Bytes the receive WQE in resp->rwqe can take. */
static u64 rnic_resp_room(struct rnic_resp *resp)
{
	u64 room = 0;
	u32 i;

	for (i = 0; i < resp->rwqe.num_sge; i++)
		room += resp->rwqe_sges[i].length;
	return room;
}

/*
 * Place @len bytes at @off of the receive WQE: the payload of @pkt (@len
 * is its length), or if it is NULL those at @buf. Return: 0 or a WC status.
 */
static u32 rnic_resp_place(struct rnic_qp *qp, u32 off,
			   const struct rnic_pkt *pkt, const void *buf,
			   u32 len)
{
	struct rnic_resp *resp = &qp->resp;
	struct rnic_pd *pd = rnic_resp_recv_pd(qp);
	struct rnic_payload *dst = &qp->scratch->resp_pl;
	u32 status = 0;

	if ((u64)off + len > rnic_resp_room(resp))
		return RNIC_WC_LOC_LEN_ERR;
	if (!len)
		return 0;
	dst->inline_data = NULL;
	dst->nsegs = 0;
	if (rnic_payload_from_sgl(dst, qp->rdev, pd, resp->rwqe_sges,
				  resp->rwqe.num_sge, off, len,
				  RNIC_ACCESS_LOCAL_WRITE))
		status = RNIC_WC_LOC_PROT_ERR;
	else if (pkt)
		rnic_pkt_copy_payload(dst, 0, pkt);
	else
		rnic_payload_copy_in(dst, 0, buf, len);
	rnic_payload_put(dst);
	return status;
}

/* The 40 bytes of GRH a UD receive starts with: IPv4 or IPv6 header. */
static void rnic_resp_grh(const struct rnic_pkt *pkt, u8 *grh)
{
	const struct rnic_av *av = pkt->av;
	u32 len = pkt->len + 8 + 12 + 8 + 4;	/* UDP, BTH, DETH, ICRC */

	memset(grh, 0, RNIC_GRH_LEN);
	if (av->ipv4) {
		struct iphdr *ip = (struct iphdr *)(grh + 20);

		ip->version = 4;
		ip->ihl = 5;
		ip->tos = av->traffic_class;
		ip->tot_len = htons(len + sizeof(*ip));
		ip->frag_off = htons(IP_DF);
		ip->ttl = av->hop_limit;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, av->sgid + 12, 4);
		memcpy(&ip->daddr, av->dgid + 12, 4);
		ip->check = ip_fast_csum(ip, ip->ihl);
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)grh;

		*(__be32 *)ip6 = htonl(6 << 28 | av->traffic_class << 20 |
				       av->flow_label);
		ip6->payload_len = htons(len);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = av->hop_limit;
		memcpy(&ip6->saddr, av->sgid, 16);
		memcpy(&ip6->daddr, av->dgid, 16);
	}
}

static void rnic_resp_ud(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	u8 oper = pkt->opcode & RNIC_OPER_MASK;
	u8 grh[RNIC_GRH_LEN];
	u32 status;
	int ret;

	/*
	 * A datagram is one packet of at most the MTU: longer, it would
	 * not have reached this port.
	 */
	if (oper != RNIC_SEND_ONLY && oper != RNIC_SEND_ONLY_IMM) {
		rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_DROP_BAD_OPCODE);
		return;
	}
	if (pkt->qkey != qp->resp.qkey) {
		rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_DROP_BAD_QKEY);
		return;
	}
	if (pkt->len > qp->path.mtu) {
		rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_DROP_LENGTH);
		return;
	}
	ret = rnic_resp_take(qp);
	if (ret == -EAGAIN) {
		rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_DROP_NO_WQE);
		return;
	}
	if (ret == -EPROTO) {
		rnic_qp_error(qp, RNIC_EVENT_QP_FATAL);
		return;
	}
	if (ret) {
		rnic_resp_complete(qp, RNIC_WC_LOC_QP_OP_ERR, RNIC_WC_RECV, 0,
				   pkt);
		rnic_qp_error(qp, RNIC_EVENT_QP_FATAL);
		return;
	}
	rnic_resp_grh(pkt, grh);
	status = rnic_resp_place(qp, 0, NULL, grh, RNIC_GRH_LEN);
	if (!status && pkt->len)
		status = rnic_resp_place(qp, RNIC_GRH_LEN, pkt, NULL,
					 pkt->len);
	rnic_resp_complete(qp, status, RNIC_WC_RECV,
			   status ? 0 : RNIC_GRH_LEN + pkt->len, pkt);
	if (status == RNIC_WC_LOC_PROT_ERR)
		rnic_qp_error(qp, RNIC_EVENT_QP_ACCESS_ERR);
}

/*
 * Take a receive WQE for a message that needs one. Return: true if the
 * QP has one; false after it answered (RNR NAK, error) or dropped.
 */
static bool rnic_resp_need_rwqe(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_resp *resp = &qp->resp;
	int ret;

	/* fault injection: as if no receive WQE was posted */
	if (rnic_qpt_reliable(qp->type) && !resp->has_rwqe &&
	    rnic_fault_rnr(qp->rdev))
		ret = -EAGAIN;
	else
		ret = rnic_resp_take(qp);
	if (!ret)
		return true;
	if (ret == -EAGAIN) {
		if (rnic_qpt_reliable(qp->type)) {
			rnic_dev_count(qp->rdev,
				       RNIC_NL_COUNTER_SEND_RNR_ERR);
			rnic_resp_aeth(qp, pkt->psn,
				       RNIC_SYN_RNR | resp->min_rnr_timer);
			/*
			 * The requester sends again from here after its
			 * wait: the packets behind this one get no NAK of
			 * their own, which would make it send at once.
			 */
			resp->nak_sent = true;
		} else {
			rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_DROP_NO_WQE);
			resp->drop_msg = !rnic_oper_ends(pkt->opcode &
							 RNIC_OPER_MASK);
		}
		return false;
	}
	/* a corrupted ring: the QP is done for, whatever its type */
	if (ret == -EINVAL)
		rnic_resp_complete(qp, RNIC_WC_LOC_QP_OP_ERR, RNIC_WC_RECV, 0,
				   NULL);
	if (rnic_qpt_reliable(qp->type))
		rnic_resp_aeth(qp, pkt->psn, RNIC_SYN_NAK | RNIC_NAK_REM_OP);
	resp->in_msg = false;
	rnic_qp_error(qp, RNIC_EVENT_QP_FATAL);
	return false;
}

/* A WC status of the receive side, and what the requester is told. */
static void rnic_resp_recv_error(struct rnic_qp *qp, const struct rnic_pkt *pkt,
				 u32 status)
{
	rnic_resp_complete(qp, status, RNIC_WC_RECV, 0, NULL);
	if (status == RNIC_WC_LOC_LEN_ERR)
		rnic_resp_nak(qp, pkt, RNIC_NAK_INV_REQ, RNIC_EVENT_QP_REQ_ERR);
	else
		rnic_resp_nak(qp, pkt, RNIC_NAK_REM_OP,
			      RNIC_EVENT_QP_ACCESS_ERR);
}

/* SEND_*: returns false if the packet was not accepted. */
static bool rnic_resp_send_pkt(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_resp *resp = &qp->resp;
	u8 oper = pkt->opcode & RNIC_OPER_MASK;
	u32 status;

	if (rnic_oper_starts(oper)) {
		if (!rnic_resp_need_rwqe(qp, pkt))
			return false;
		resp->recv_off = 0;
	}
	/* no message is longer than IB's maximum: recv_off never wraps */
	if ((u64)resp->recv_off + pkt->len > RNIC_IB_MAX_MSG_SZ)
		status = RNIC_WC_LOC_LEN_ERR;
	else
		status = rnic_resp_place(qp, resp->recv_off, pkt, NULL,
					 pkt->len);
	if (status) {
		rnic_resp_recv_error(qp, pkt, status);
		return false;
	}
	resp->recv_off += pkt->len;
	resp->in_msg = !rnic_oper_ends(oper);
	if (resp->in_msg)
		return true;
	/*
	 * IBTA class J: an rkey that names no bound type 2 window of the
	 * QP's PD fails the receive and the QP (as rdma_rxe does too).
	 */
	if (rnic_oper_has_inv(oper) && !rnic_mw_invalidate(qp, pkt->inv_rkey)) {
		rnic_resp_complete(qp, RNIC_WC_REM_INV_REQ_ERR, RNIC_WC_RECV, 0,
				   NULL);
		rnic_resp_nak(qp, pkt, RNIC_NAK_INV_REQ, RNIC_EVENT_QP_REQ_ERR);
		return false;
	}
	rnic_resp_complete(qp, RNIC_WC_SUCCESS, RNIC_WC_RECV, resp->recv_off,
			   pkt);
	return true;
}

/* Resolve a remote key for @len bytes at @va with @access; 0 or -EACCES. */
static int rnic_resp_rkey(struct rnic_qp *qp, struct rnic_payload *pl,
			  u32 rkey, u64 va, u32 len, u32 access)
{
	pl->inline_data = NULL;
	pl->nsegs = 0;
	if (!(qp->resp.access & access))
		return -EACCES;
	if (!len)
		return 0;
	return rnic_payload_add_rkey(pl, qp, rkey, va, len, access);
}

/* RDMA WRITE_*: returns false if the packet was not accepted. */
static bool rnic_resp_write_pkt(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_resp *resp = &qp->resp;
	u8 oper = pkt->opcode & RNIC_OPER_MASK;
	struct rnic_payload *dst = &qp->scratch->resp_pl;
	int ret;

	if (rnic_oper_starts(oper)) {
		resp->write_va = pkt->va;
		resp->write_rkey = pkt->rkey;
		resp->write_left = pkt->dma_len;
		resp->write_len = pkt->dma_len;
	}
	if (resp->write_len > RNIC_IB_MAX_MSG_SZ ||
	    pkt->len > resp->write_left ||
	    (rnic_oper_ends(oper) && pkt->len != resp->write_left)) {
		rnic_resp_nak(qp, pkt, RNIC_NAK_INV_REQ, RNIC_EVENT_QP_REQ_ERR);
		return false;
	}
	/* The receive WQE of WRITE_WITH_IMM is needed before any byte lands. */
	if (rnic_oper_has_imm(oper) && !rnic_resp_need_rwqe(qp, pkt))
		return false;
	ret = rnic_resp_rkey(qp, dst, resp->write_rkey, resp->write_va,
			     pkt->len, RNIC_ACCESS_REMOTE_WRITE);
	if (ret) {
		rnic_payload_put(dst);
		rnic_resp_nak(qp, pkt, RNIC_NAK_REM_ACCESS,
			      RNIC_EVENT_QP_ACCESS_ERR);
		return false;
	}
	rnic_pkt_copy_payload(dst, 0, pkt);
	rnic_payload_put(dst);
	resp->write_va += pkt->len;
	resp->write_left -= pkt->len;
	resp->in_msg = !rnic_oper_ends(oper);
	if (rnic_oper_has_imm(oper))
		rnic_resp_complete(qp, RNIC_WC_SUCCESS,
				   RNIC_WC_RECV_RDMA_WITH_IMM, resp->write_len,
				   pkt);
	return true;
}

/*
 * Responses (PSNs) a READ request asks for: at least 1. In 64 bits: a
 * DMA length near 2^32 must not wrap to a small count.
 */
static u64 rnic_resp_read_npkts(const struct rnic_qp *qp,
				const struct rnic_pkt *pkt)
{
	return max_t(u64, DIV_ROUND_UP_ULL(pkt->dma_len, qp->path.mtu), 1);
}

/*
 * Accept an RDMA READ request (again, for a duplicate, with the MSN it
 * had): its responses are owed. The whole range is checked now, so that
 * a bad request is NAKed at its own PSN.
 */
static bool rnic_resp_read(struct rnic_qp *qp, const struct rnic_pkt *pkt,
			   u32 msn)
{
	struct rnic_resp *resp = &qp->resp;
	struct rnic_payload *src = &qp->scratch->resp_pl;
	struct rnic_resp_owed o = {
		.va = pkt->va,
		.rkey = pkt->rkey,
		.len = pkt->dma_len,
		.msn = msn,
		.psn = pkt->psn,
		.npkts = rnic_resp_read_npkts(qp, pkt),
		.srqn = resp->xsrq ? resp->xsrq->srqn : 0,
	};
	int ret;

	if (!resp->max_dest_rd_atomic || pkt->dma_len > RNIC_IB_MAX_MSG_SZ) {
		rnic_resp_nak(qp, pkt, RNIC_NAK_INV_REQ, RNIC_EVENT_QP_REQ_ERR);
		return false;
	}
	ret = rnic_resp_rkey(qp, src, pkt->rkey, pkt->va, pkt->dma_len,
			     RNIC_ACCESS_REMOTE_READ);
	rnic_payload_put(src);
	if (ret) {
		rnic_resp_nak(qp, pkt, RNIC_NAK_REM_ACCESS,
			      RNIC_EVENT_QP_ACCESS_ERR);
		return false;
	}
	/* more in flight than any requester may have: it does not follow IB */
	if (rnic_resp_owe(resp, &o)) {
		rnic_resp_nak(qp, pkt, RNIC_NAK_INV_REQ, RNIC_EVENT_QP_REQ_ERR);
		return false;
	}
	return true;
}

/* The opcode of response @i of the @n a READ asks for. */
static u8 rnic_read_resp_opcode(u32 i, u32 n)
{
	if (n == 1)
		return RNIC_READ_RESP_ONLY;
	if (!i)
		return RNIC_READ_RESP_FIRST;
	return i == n - 1 ? RNIC_READ_RESP_LAST : RNIC_READ_RESP_MIDDLE;
}

/*
 * The memory @len bytes at @off of the READ @o read from, now: its rkey
 * checked against the PD of the QP, or of an XRC TGT QP's SRQ (which
 * must still be there). Return: 0 or -EACCES.
 */
static int rnic_resp_read_rkey(struct rnic_qp *qp, struct rnic_resp_owed *o,
			       struct rnic_payload *src, u32 off, u32 len)
{
	struct rnic_resp *resp = &qp->resp;
	int ret;

	if (qp->type != RNIC_QPT_XRC_RECV)
		return rnic_resp_rkey(qp, src, o->rkey, o->va + off, len,
				      RNIC_ACCESS_REMOTE_READ);
	rcu_read_lock();
	resp->xsrq = rnic_srq_lookup(qp->rdev, o->srqn);
	rcu_read_unlock();
	if (!resp->xsrq)
		return -EACCES;
	ret = rnic_resp_rkey(qp, src, o->rkey, o->va + off, len,
			     RNIC_ACCESS_REMOTE_READ);
	rnic_srq_dp_put(resp->xsrq);
	resp->xsrq = NULL;
	return ret;
}

/*
 * Send up to @budget more responses of the READ @o, read from its MR
 * now, until the link refuses one. Return: how many were sent, or
 * -EACCES if the rkey no longer allows it (the MR went away on the way).
 */
static int rnic_resp_read_more(struct rnic_qp *qp, struct rnic_resp_owed *o,
			       u32 budget)
{
	struct rnic_payload *src = &qp->scratch->resp_pl;
	u32 mtu = qp->path.mtu, n = min(o->npkts - o->sent, budget);
	/* a READ is at most 2^31 bytes: offsets fit */
	u32 start = o->sent * mtu, off = start;
	u32 end = min_t(u64, o->len, (u64)start + n * mtu);
	struct rnic_pkt rsp = { .msn = o->msn };
	u32 i, len;
	u64 base;
	int ret;

	ret = rnic_resp_read_rkey(qp, o, src, start, end - start);
	if (ret) {
		rnic_payload_put(src);
		return ret;
	}
	/* one MR piece (none for 0 bytes), moved along for each response */
	base = src->nsegs ? src->segs[0].off : 0;
	for (i = 0; i < n; i++, off += len) {
		len = min(end - off, mtu);
		rsp.opcode = rnic_transport(qp->type) |
			     rnic_read_resp_opcode(o->sent + i, o->npkts);
		rsp.psn = rnic_psn_add(o->psn, o->sent + i);
		rsp.len = len;
		rsp.payload = NULL;
		if (len) {
			src->segs[0].off = base + off - start;
			src->segs[0].len = len;
			rsp.payload = src;
		}
		if (rnic_resp_send(qp, &rsp))
			break;
	}
	rnic_payload_put(src);
	o->sent += i;
	return i;
}

/*
 * Send what is owed, oldest first: up to @budget packets, and once all
 * is sent, the ACK or NAK that waited behind it. A READ whose MR stopped
 * allowing it ends the connection (remote access NAK at the first
 * response that could not be read). A response the link refuses (its
 * queue is full, say) stops the pass where it is: the next request from
 * the peer, its retry at the latest, sends it again.
 * Return: whether to go on from the requester's work.
 */
static bool rnic_resp_push(struct rnic_qp *qp, u32 budget)
{
	struct rnic_resp *resp = &qp->resp;
	u32 state = rnic_qp_state(qp);
	struct rnic_resp_owed *o;
	u32 want;
	int n;

	if (state < RNIC_QPS_RTR || state == RNIC_QPS_ERR) {
		rnic_resp_owed_clear(resp);
		return false;
	}
	while (budget && rnic_resp_owed_count(resp)) {
		o = rnic_resp_owed_at(resp, resp->owed_head);
		want = min(o->npkts - o->sent, budget);
		if (o->atomic) {
			struct rnic_pkt rsp = {
				.opcode = rnic_transport(qp->type) | RNIC_ATOMIC_ACK,
				.psn = o->psn,
				.msn = o->msn,
				.orig = o->orig,
			};

			n = !rnic_resp_send(qp, &rsp);
			o->sent += n;
		} else {
			n = rnic_resp_read_more(qp, o, budget);
		}
		if (n < 0) {
			u32 psn = rnic_psn_add(o->psn, o->sent);

			rnic_resp_owed_clear(resp);
			rnic_resp_send_aeth(qp, psn, resp->msn, RNIC_SYN_NAK |
					    RNIC_NAK_REM_ACCESS);
			rnic_qp_error(qp, RNIC_EVENT_QP_ACCESS_ERR);
			return false;
		}
		budget -= n;
		if (o->sent == o->npkts)
			resp->owed_head++;
		else if (n < want)
			return false;
	}
	if (rnic_resp_owed_count(resp))
		return true;
	if (resp->aeth_owed) {
		resp->aeth_owed = false;
		rnic_resp_send_aeth(qp, resp->aeth_psn, resp->aeth_msn,
				    resp->aeth_syndrome);
	}
	return false;
}

/**
 * rnic_resp_work() - the responder's part of the requester's work: send
 *	the next pass of what is owed
 * @qp: the QP, not in ERR
 *
 * Context: process; takes rnic_resp.lock. Schedules the work again while
 * something is owed and the link took the whole pass.
 */
void rnic_resp_work(struct rnic_qp *qp)
{
	struct rnic_resp *resp = &qp->resp;
	bool more;

	if (!rnic_qpt_reliable(qp->type))
		return;
	/* the local link's receivers look QPs and MRs up under RCU */
	rcu_read_lock();
	spin_lock_bh(&resp->lock);
	more = rnic_resp_push(qp, RNIC_RESP_BUDGET);
	spin_unlock_bh(&resp->lock);
	rcu_read_unlock();
	if (more)
		rnic_req_schedule(qp);
}

/*
 * The atomic executed with PSN @psn, the latest first (an entry a PSN wrap
 * ago is older than the one that reused its PSN), or NULL: no longer kept.
 * A requester never has more than its max_rd_atomic outstanding, and the
 * ring keeps at least max_dest_rd_atomic: enough if the first is at most
 * the second, as the peers agree when they connect.
 */
static struct rnic_resp_atomic *rnic_resp_atomic_find(struct rnic_resp *resp,
						      u32 psn)
{
	struct rnic_resp_atomic *a;
	u32 n;

	/* atomic_next wraps at 2^32: the ring must go evenly into that */
	BUILD_BUG_ON(!is_power_of_2(RNIC_MAX_RD_ATOM));
	for (n = 1; n <= RNIC_MAX_RD_ATOM; n++) {
		a = &resp->atomics[(resp->atomic_next - n) % RNIC_MAX_RD_ATOM];
		if (a->psn == psn)
			return a;
	}
	return NULL;
}

/*
 * Execute an atomic, or replay the answer to a duplicate (with the MSN
 * it had); the answer is owed.
 */
static bool rnic_resp_atomic(struct rnic_qp *qp, const struct rnic_pkt *pkt,
			     bool duplicate)
{
	struct rnic_resp *resp = &qp->resp;
	struct rnic_resp_owed o = {
		.msn = resp->msn + !duplicate,
		.psn = pkt->psn,
		.npkts = 1,
		.atomic = true,
	};
	struct rnic_payload *dst = &qp->scratch->resp_pl;
	struct rnic_resp_atomic *done;
	atomic64_t *word;

	if (duplicate) {
		done = rnic_resp_atomic_find(resp, pkt->psn);
		if (done) {
			o.orig = done->orig;
			/* a full ring drops it: the requester asks again */
			rnic_resp_owe(resp, &o);
		}
		return false;
	}
	/* a full ring: more owed than any requester may have outstanding */
	if (!resp->max_dest_rd_atomic || pkt->va & 7 ||
	    rnic_resp_owed_count(resp) == RNIC_MAX_RD_ATOM) {
		rnic_resp_nak(qp, pkt, RNIC_NAK_INV_REQ, RNIC_EVENT_QP_REQ_ERR);
		return false;
	}
	if (rnic_resp_rkey(qp, dst, pkt->rkey, pkt->va, 8,
			   RNIC_ACCESS_REMOTE_ATOMIC) ||
	    (dst->segs[0].mr->iova ^ dst->segs[0].mr->offset) & 7) {
		rnic_payload_put(dst);
		rnic_resp_nak(qp, pkt, RNIC_NAK_REM_ACCESS,
			      RNIC_EVENT_QP_ACCESS_ERR);
		return false;
	}
	/*
	 * A CPU atomic on the word: atomic against every other atomic of
	 * the device and of the CPUs (IBV_ATOMIC_HCA and more).
	 */
	word = (atomic64_t *)rnic_payload_map_u64(dst);
	if ((pkt->opcode & RNIC_OPER_MASK) == RNIC_CMP_SWAP)
		o.orig = atomic64_cmpxchg(word, pkt->compare_add, pkt->swap);
	else
		o.orig = atomic64_fetch_add(pkt->compare_add, word);
	kunmap_local(word);
	rnic_payload_put(dst);

	done = &resp->atomics[resp->atomic_next++ % RNIC_MAX_RD_ATOM];
	done->psn = pkt->psn;
	done->orig = o.orig;
	/* cannot fail: there was room */
	rnic_resp_owe(resp, &o);
	return true;
}

/*
 * A READ sent again from @psn, a PSN inside a READ still owed: the
 * requester went back to a response it did not get and asks again from
 * there, in PSN order, and its later READs no longer start at the PSNs
 * they had (so they cannot replace their entries, rnic_resp_owe()). That
 * READ ends before @psn, or where it has got to, and what is owed after
 * it is forgotten: nothing is sent twice, and the ring does not fill up
 * with answers nobody waits for. A request sent again from the start of
 * what it asked for (a timeout, or a duplicate on the network) changes
 * nothing here: it replaces its own entry.
 */
static void rnic_resp_owed_trim(struct rnic_resp *resp, u32 psn)
{
	struct rnic_resp_owed *e;
	u32 i, off;

	for (i = resp->owed_tail; i != resp->owed_head; i--) {
		e = rnic_resp_owed_at(resp, i - 1);
		if (rnic_psn_before(psn, e->psn))
			continue;
		off = rnic_psn_add(psn, -e->psn);
		if (off && off < e->npkts) {
			e->npkts = max(off, e->sent);
			resp->owed_tail = i;
		}
		return;
	}
}

/* A request whose PSN is before the expected one: answer it again. */
static void rnic_resp_duplicate(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	u8 oper = pkt->opcode & RNIC_OPER_MASK;

	if (oper == RNIC_READ_REQ) {
		rnic_resp_owed_trim(&qp->resp, pkt->psn);
		rnic_resp_read(qp, pkt, qp->resp.msn);
	} else if (oper == RNIC_CMP_SWAP || oper == RNIC_FETCH_ADD) {
		rnic_resp_atomic(qp, pkt, true);
	} else if (pkt->ack_req) {
		rnic_resp_aeth(qp, rnic_psn_add(qp->resp.epsn, -1),
			       RNIC_SYN_ACK);
	}
}

/* RC and UC: PSN and opcode sequence. true: execute the packet. */
static bool rnic_resp_check_seq(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_resp *resp = &qp->resp;
	u8 oper = pkt->opcode & RNIC_OPER_MASK;
	bool starts = rnic_oper_starts(oper);

	if (pkt->psn != resp->epsn && qp->type == RNIC_QPT_UC) {
		/* Lost packets: drop up to the next message start. */
		resp->epsn = pkt->psn;
		resp->in_msg = false;
		resp->drop_msg = !starts;
		if (resp->drop_msg)
			return false;
	} else if (pkt->psn != resp->epsn) {
		if (rnic_psn_before(pkt->psn, resp->epsn)) {
			rnic_dev_count(qp->rdev,
				       RNIC_NL_COUNTER_DUPLICATE_REQUEST);
			rnic_resp_duplicate(qp, pkt);
			return false;
		}
		/* a gap: ask for the missing packets, once */
		if (!resp->nak_sent) {
			rnic_dev_count(qp->rdev,
				       RNIC_NL_COUNTER_OUT_OF_SEQ_REQUEST);
			rnic_resp_aeth(qp, resp->epsn,
				       RNIC_SYN_NAK | RNIC_NAK_PSN_SEQ);
		}
		resp->nak_sent = true;
		return false;
	}
	resp->nak_sent = false;
	if (resp->drop_msg) {
		if (!starts) {
			resp->epsn = rnic_psn_add(resp->epsn, 1);
			return false;
		}
		resp->drop_msg = false;
	}
	/* a message in progress goes on; anything else starts one */
	if (resp->in_msg == starts ||
	    (resp->in_msg && rnic_oper_is_send(oper) != resp->in_send)) {
		rnic_resp_nak(qp, pkt, RNIC_NAK_INV_REQ, RNIC_EVENT_QP_REQ_ERR);
		return false;
	}
	return true;
}

/*
 * Fault injection: is this new RC request, the start of an RDMA WRITE,
 * an RDMA READ or an atomic, to fail as if its rkey did not allow it?
 */
static bool rnic_resp_forced_access_err(struct rnic_qp *qp, u8 oper)
{
	bool rkey = (rnic_oper_is_write(oper) && rnic_oper_starts(oper)) ||
		    oper == RNIC_READ_REQ || oper == RNIC_CMP_SWAP ||
		    oper == RNIC_FETCH_ADD;

	return rnic_qpt_reliable(qp->type) && rkey &&
	       rnic_fault_rem_access(qp->rdev);
}

/*
 * Does a SEND or WRITE packet carry what its opcode says (IBTA 9.7.6.1.4,
 * rdma_rxe checks the same)? FIRST and MIDDLE: the path MTU exactly;
 * LAST: 1 byte to the MTU; ONLY: up to the MTU. A burst of the local link
 * (npkts packets) counts as npkts of them, its last one as the opcode says.
 */
static bool rnic_resp_len_ok(const struct rnic_qp *qp,
			     const struct rnic_pkt *pkt)
{
	u8 oper = pkt->opcode & RNIC_OPER_MASK;
	u64 full = (u64)pkt->npkts * qp->path.mtu;

	if (!rnic_oper_is_send(oper) && !rnic_oper_is_write(oper))
		return true;
	if (!rnic_oper_ends(oper))
		return pkt->len == full;
	if (pkt->len > full)
		return false;
	/* a message of 0 bytes is one ONLY packet */
	return pkt->len + qp->path.mtu > full ||
	       (rnic_oper_starts(oper) && pkt->npkts == 1);
}

static void rnic_resp_rc_uc(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_resp *resp = &qp->resp;
	u8 oper = pkt->opcode & RNIC_OPER_MASK;
	u32 npkts = pkt->npkts;
	bool done;

	if (!rnic_resp_check_seq(qp, pkt))
		return;
	if (!rnic_resp_len_ok(qp, pkt)) {
		rnic_resp_nak(qp, pkt, RNIC_NAK_INV_REQ, RNIC_EVENT_QP_REQ_ERR);
		return;
	}
	if (rnic_resp_forced_access_err(qp, oper)) {
		rnic_resp_nak(qp, pkt, RNIC_NAK_REM_ACCESS,
			      RNIC_EVENT_QP_ACCESS_ERR);
		return;
	}
	if (rnic_oper_is_send(oper)) {
		resp->in_send = true;
		done = rnic_resp_send_pkt(qp, pkt);
	} else if (rnic_oper_is_write(oper)) {
		resp->in_send = false;
		done = rnic_resp_write_pkt(qp, pkt);
	} else if (!rnic_qpt_reliable(qp->type)) {
		done = false;
	} else if (oper == RNIC_READ_REQ) {
		npkts = rnic_resp_read_npkts(qp, pkt);
		done = rnic_resp_read(qp, pkt, resp->msn + 1);
	} else if (oper == RNIC_CMP_SWAP || oper == RNIC_FETCH_ADD) {
		done = rnic_resp_atomic(qp, pkt, false);
	} else {
		rnic_resp_nak(qp, pkt, RNIC_NAK_INV_REQ, RNIC_EVENT_QP_REQ_ERR);
		return;
	}
	if (!done)
		return;
	resp->epsn = rnic_psn_add(pkt->psn, npkts);
	if (rnic_oper_ends(oper))
		resp->msn++;
	/* a burst is acknowledged up to its last packet */
	if (rnic_qpt_reliable(qp->type) && pkt->ack_req &&
	    (rnic_oper_is_send(oper) || rnic_oper_is_write(oper)))
		rnic_resp_aeth(qp, rnic_psn_add(pkt->psn, npkts - 1),
			       RNIC_SYN_ACK);
}

/*
 * XRC TGT QPs: find the SRQ a request names (XRCETH) into resp->xsrq,
 * with a data path reference. It must be an XRC SRQ of the QP's domain,
 * and, while a receive WQE is held for a message, the SRQ it came from:
 * else the request is invalid (IBTA NAK, the QP goes to ERR).
 * Return: whether the request goes on, with resp->xsrq set.
 */
static bool rnic_resp_xrc_srq(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_resp *resp = &qp->resp;
	struct rnic_srq *srq;

	rcu_read_lock();
	srq = rnic_srq_lookup(qp->rdev, pkt->srqn);
	rcu_read_unlock();
	if (srq && srq->xh->xrcd == rnic_qp_xrcd(qp) &&
	    (!resp->has_rwqe || resp->rwqe_srqn == srq->srqn)) {
		resp->xsrq = srq;
		return true;
	}
	if (srq)
		rnic_srq_dp_put(srq);
	rnic_resp_nak(qp, pkt, RNIC_NAK_INV_REQ, RNIC_EVENT_QP_REQ_ERR);
	return false;
}

/**
 * rnic_resp_rcv() - the responder: a request arrived for the QP
 * @qp: the destination QP, with a data path reference
 * @pkt: the request
 *
 * Context: any but hard interrupt; BH disabled.
 */
void rnic_resp_rcv(struct rnic_qp *qp, const struct rnic_pkt *pkt)
{
	struct rnic_resp *resp = &qp->resp;
	bool more = false;
	u32 state;

	/* an XRC INI QP has no receive side */
	if ((pkt->opcode & RNIC_TRANSPORT_MASK) != rnic_transport(qp->type) ||
	    qp->type == RNIC_QPT_XRC_SEND) {
		rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_DROP_BAD_OPCODE);
		return;
	}
	spin_lock(&resp->lock);
	resp->reply_to = pkt->src;
	state = rnic_qp_state(qp);
	if (state < RNIC_QPS_RTR || state == RNIC_QPS_ERR) {
		rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_DROP_QP_STATE);
		goto out;
	}
	/* before anything the packet could cause: it must be the peer's */
	if (qp->type != RNIC_QPT_UD &&
	    !rnic_link_from_peer(pkt, &qp->path)) {
		rnic_link_drop_stranger(qp, pkt, RNIC_NL_COUNTER_REQ_NOT_PEER);
		goto out;
	}
	if (state == RNIC_QPS_RTR && !resp->comm_est) {
		resp->comm_est = true;
		rnic_async_event(qp->uobj.ctx, RNIC_EVENT_COMM_EST, &qp->ev, 0);
	}
	if (qp->type == RNIC_QPT_UD) {
		rnic_resp_ud(qp, pkt);
	} else if (qp->type != RNIC_QPT_XRC_RECV) {
		rnic_resp_rc_uc(qp, pkt);
	} else if (rnic_resp_xrc_srq(qp, pkt)) {
		rnic_resp_rc_uc(qp, pkt);
		rnic_srq_dp_put(resp->xsrq);
		resp->xsrq = NULL;
	}
	if (rnic_qpt_reliable(qp->type))
		more = rnic_resp_push(qp, RNIC_RESP_BUDGET);
out:
	resp->reply_to = NULL;
	spin_unlock(&resp->lock);
	if (more)
		rnic_req_schedule(qp);
}

/*
 * An XRC TGT QP in ERR: the receive WQE it holds for a message completes
 * with IBV_WC_WR_FLUSH_ERR on its SRQ's CQ, if the SRQ is still there.
 * The SRQs' other WQEs are the domain's, not the QP's.
 */
static void rnic_resp_xrc_flush(struct rnic_qp *qp)
{
	struct rnic_resp *resp = &qp->resp;

	resp->in_msg = false;
	if (!resp->has_rwqe)
		return;
	rcu_read_lock();
	resp->xsrq = rnic_srq_lookup(qp->rdev, resp->rwqe_srqn);
	rcu_read_unlock();
	if (!resp->xsrq) {
		resp->has_rwqe = false;
		return;
	}
	rnic_resp_complete(qp, RNIC_WC_WR_FLUSH_ERR, RNIC_WC_RECV, 0, NULL);
	rnic_srq_dp_put(resp->xsrq);
	resp->xsrq = NULL;
}

/**
 * rnic_resp_flush() - complete the receives of a QP in ERR with
 *	IBV_WC_WR_FLUSH_ERR
 * @qp: the QP
 *
 * A QP on an SRQ leaves the SRQ's WQEs alone and raises
 * IBV_EVENT_QP_LAST_WQE_REACHED, once. Flushes RNIC_FLUSH_BUDGET WQEs at
 * most, then leaves the rest to the requester's work, which calls it
 * again.
 *
 * Context: process or softirq, no data path lock held.
 * Return: whether WQEs were left for the work.
 */
bool rnic_resp_flush(struct rnic_qp *qp)
{
	struct rnic_resp *resp = &qp->resp;
	u32 n = 0;
	int ret;

	spin_lock_bh(&resp->lock);
	if (rnic_qp_state(qp) != RNIC_QPS_ERR)
		goto out;
	if (qp->type == RNIC_QPT_XRC_RECV) {
		rnic_resp_xrc_flush(qp);
		goto out;
	}
	if (resp->has_rwqe)
		rnic_resp_complete(qp, RNIC_WC_WR_FLUSH_ERR, RNIC_WC_RECV, 0,
				   NULL);
	resp->in_msg = false;
	if (qp->srq) {
		if (!resp->last_wqe_sent) {
			resp->last_wqe_sent = true;
			rnic_async_event(qp->uobj.ctx,
					 RNIC_EVENT_QP_LAST_WQE_REACHED,
					 &qp->ev, 0);
		}
		goto out;
	}
	/* a lying producer index stops it; the work goes on with the rest */
	for (n = 0; n < RNIC_FLUSH_BUDGET; n++) {
		ret = rnic_resp_take(qp);
		if (ret && ret != -EINVAL)
			break;
		rnic_resp_complete(qp, RNIC_WC_WR_FLUSH_ERR, RNIC_WC_RECV, 0,
				   NULL);
	}
	if (n == RNIC_FLUSH_BUDGET)
		rnic_req_schedule(qp);
out:
	spin_unlock_bh(&resp->lock);
	return n == RNIC_FLUSH_BUDGET;
}
