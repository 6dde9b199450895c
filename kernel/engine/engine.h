/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rnic: software RDMA NIC - the transport engine's own types and
 * functions; included by the engine's files and by the links only (the
 * layers above use engine/qp_engine.h).
 *
 * The engine (req.c: requester, comp.c: completer, resp.c: responder,
 * payload.c: memory access through MRs, qp_engine.c: a QP's engine life,
 * doorbell.c and sqpoll.c: what makes the requester run) speaks the
 * InfiniBand transport: packets carry the fields of the BTH and of the
 * extended headers that their opcode has. What carries a packet is the
 * link: the local link hands it to the destination QP in a function call,
 * with the payload still in the sender's memory (struct rnic_payload), so
 * that the receiver copies it once, straight into its own memory. A wire
 * link would build a real packet from the same struct.
 *
 * Segmentation is the requester's: a SEND or WRITE request carries a
 * burst of its message (struct rnic_pkt.npkts): consecutive MTU-sized
 * packets, each with its own PSN, that arrive together, as many as the
 * link of the path allows (struct rnic_link_ops.max_burst: RNIC_BURST_BYTES
 * on the local link, one packet on a wire) and the device
 * (rnic_dev.max_burst). The responder treats a burst exactly as that run
 * of packets, and per-packet costs are paid once per burst; a link never
 * cuts one.
 */
#ifndef RNIC_ENGINE_H
#define RNIC_ENGINE_H

#include <linux/sizes.h>

#include "verbs/verbs.h"

/* BTH opcodes: transport in the top 3 bits, operation in the low 5. */
#define RNIC_TRANSPORT_RC	0x00
#define RNIC_TRANSPORT_UC	0x20
#define RNIC_TRANSPORT_UD	0x60
#define RNIC_TRANSPORT_XRC	0xa0
#define RNIC_TRANSPORT_MASK	0xe0
#define RNIC_OPER_MASK		0x1f

/* The BTH transport of a QP type (enum rnic_qp_type). */
static inline u8 rnic_transport(u32 qp_type)
{
	if (qp_type == RNIC_QPT_UC)
		return RNIC_TRANSPORT_UC;
	if (qp_type == RNIC_QPT_UD)
		return RNIC_TRANSPORT_UD;
	if (qp_type == RNIC_QPT_XRC_SEND || qp_type == RNIC_QPT_XRC_RECV)
		return RNIC_TRANSPORT_XRC;
	return RNIC_TRANSPORT_RC;
}

/*
 * Does a QP type follow RC's rules (acknowledgments, retries, READ and
 * atomics)? RC, and both halves of XRC: the INI QP is an RC requester,
 * the TGT QP an RC responder.
 */
static inline bool rnic_qpt_reliable(u32 qp_type)
{
	return qp_type == RNIC_QPT_RC || qp_type == RNIC_QPT_XRC_SEND ||
	       qp_type == RNIC_QPT_XRC_RECV;
}

/*
 * The PD a responder checks receive buffers against: an SRQ's if the QP
 * has one, an XRC TGT QP's being the SRQ its request named (@xsrq).
 */
static inline struct rnic_pd *rnic_resp_recv_pd(const struct rnic_qp *qp)
{
	if (qp->type == RNIC_QPT_XRC_RECV)
		return qp->resp.xsrq->pd;
	return qp->srq ? qp->srq->pd : qp->pd;
}

/*
 * The PD a responder checks remote keys against: the QP's own, and for
 * an XRC TGT QP, which has none, that of the SRQ its request named.
 */
static inline struct rnic_pd *rnic_resp_rkey_pd(const struct rnic_qp *qp)
{
	if (qp->type == RNIC_QPT_XRC_RECV)
		return qp->resp.xsrq->pd;
	return qp->pd;
}

enum rnic_oper {
	RNIC_SEND_FIRST = 0x00,
	RNIC_SEND_MIDDLE = 0x01,
	RNIC_SEND_LAST = 0x02,
	RNIC_SEND_LAST_IMM = 0x03,
	RNIC_SEND_ONLY = 0x04,
	RNIC_SEND_ONLY_IMM = 0x05,
	RNIC_WRITE_FIRST = 0x06,
	RNIC_WRITE_MIDDLE = 0x07,
	RNIC_WRITE_LAST = 0x08,
	RNIC_WRITE_LAST_IMM = 0x09,
	RNIC_WRITE_ONLY = 0x0a,
	RNIC_WRITE_ONLY_IMM = 0x0b,
	RNIC_READ_REQ = 0x0c,
	RNIC_READ_RESP_FIRST = 0x0d,
	RNIC_READ_RESP_MIDDLE = 0x0e,
	RNIC_READ_RESP_LAST = 0x0f,
	RNIC_READ_RESP_ONLY = 0x10,
	RNIC_ACK = 0x11,
	RNIC_ATOMIC_ACK = 0x12,
	RNIC_CMP_SWAP = 0x13,
	RNIC_FETCH_ADD = 0x14,
	RNIC_SEND_LAST_INV = 0x16,
	RNIC_SEND_ONLY_INV = 0x17,
};

/* AETH syndromes: ACK, RNR NAK (with a timer code), NAK (with a code). */
#define RNIC_SYN_ACK		0x00
#define RNIC_SYN_RNR		0x20
#define RNIC_SYN_NAK		0x60
#define RNIC_SYN_TYPE_MASK	0x60
#define RNIC_SYN_VALUE_MASK	0x1f
#define RNIC_NAK_PSN_SEQ	0
#define RNIC_NAK_INV_REQ	1
#define RNIC_NAK_REM_ACCESS	2
#define RNIC_NAK_REM_OP		3

/*
 * IB's largest message (2^31 bytes): what a responder accepts from any
 * sender. rnic's own requester sends at most RNIC_MAX_MSG_SZ.
 */
#define RNIC_IB_MAX_MSG_SZ	BIT(31)
/* READ requests are cut into chunks of at most this many responses. */
#define RNIC_READ_CHUNK_PKTS	64
/* rnic_req.rd_window: its largest value, as good as none, and smallest */
#define RNIC_RD_WINDOW_MAX	(RNIC_MAX_RD_ATOM * RNIC_READ_CHUNK_PKTS)
#define RNIC_RD_WINDOW_MIN	RNIC_READ_CHUNK_PKTS
/* READ responses and atomic ACKs the responder sends per pass. */
#define RNIC_RESP_BUDGET	64
/* RC: an ACK is asked for at least every so many packets (a power of 2). */
#define RNIC_ACK_EVERY		64
/* Bytes of a SEND or WRITE message a request carries on the local link. */
#define RNIC_BURST_BYTES	SZ_64K
/* Packets the requester sends per batch, and batches per run. */
#define RNIC_REQ_BUDGET		64
#define RNIC_REQ_BATCHES	16
/* WQEs flushed per pass before the lock is dropped */
#define RNIC_FLUSH_BUDGET	256
/* A UD receive buffer starts with room for the GRH. */
#define RNIC_GRH_LEN		40

/**
 * struct rnic_req_step - one packet the requester sends
 * @pkt: the packet
 * @pl: its payload
 * @av: a copy of its address: the QP's path's, or the UD WQE's AH's
 * @index: the WQE it belongs to
 * @last: it is the WQE's last packet
 * @gen: rnic_req.gen when it was built
 * @lost: its WQE's rnic_kwqe.lost: it is not sent
 */
struct rnic_req_step {
	struct rnic_pkt pkt;
	struct rnic_payload pl;
	struct rnic_av av;
	u32 index;
	bool last;
	u32 gen;
	bool lost;
};

/**
 * struct rnic_qp_scratch - a QP's room for the large per-packet structs
 * @step: the packet being sent; only the thread that runs the requester
 *	(rnic_req.running) uses it
 * @resp_pl: the payload the responder resolves (where a SEND or WRITE
 *	goes, what a READ or an atomic reads); under rnic_resp.lock
 * @comp_pl: where the completer places a READ response or an atomic's
 *	original value; under rnic_req.lock
 *
 * They are a KiB each, and the kernel may clear every automatic
 * variable on entry (CONFIG_INIT_STACK_ALL_ZERO): on the stack they would
 * be cleared for every packet. Allocated with the QP (rnic_qp_dp_init()).
 */
struct rnic_qp_scratch {
	struct rnic_req_step step;
	struct rnic_payload resp_pl;
	struct rnic_payload comp_pl;
};

/**
 * struct rnic_kwqe - the kernel's copy of a send work request
 * @wqe: the header as posted, validated
 * @length: message bytes
 * @first_psn: PSN of its first packet, once started
 * @last_psn: PSN of its last packet (RDMA READ: last response)
 * @resp_psn: RDMA READ, atomic: the PSN of the next response it waits
 *	for; READ responses are placed in order (rnic_comp_read())
 * @status: 0, or the WC status it fails with when its turn comes
 * @rd_credit: holds one of the QP's RDMA READ/atomic credits
 * @resp_gap: RDMA READ, atomic: a response after @resp_psn came, and
 *	the requester was sent back to @resp_psn; until that one comes
 * @started: its first packet was sent since the last rewind
 * @lost: RC, fault injection (RNIC_NL_FAULT_RETRY_EXC): none of its
 *	packets is sent, first or again, so that it ends in
 *	IBV_WC_RETRY_EXC_ERR; set when it starts
 * @dqpn: UD: destination QP
 * @qkey: UD: Q_Key to send with
 * @av: UD: the address of its address handle, copied when fetched
 * @sge: the scatter/gather list (or the inline data, as bytes)
 */
struct rnic_kwqe {
	struct rnic_send_wqe wqe;
	u32 length;
	u32 first_psn;
	u32 last_psn;
	u32 resp_psn;
	u32 status;
	bool rd_credit;
	bool resp_gap;
	bool started;
	bool lost;
	u32 dqpn;
	u32 qkey;
	struct rnic_av av;
	struct rnic_sge sge[];
};

static inline bool rnic_psn_before(u32 a, u32 b)
{
	return ((a - b) & RNIC_PSN_MASK) >= BIT(23);
}

static inline u32 rnic_psn_add(u32 psn, u32 n)
{
	return (psn + n) & RNIC_PSN_MASK;
}

/**
 * rnic_payload_put() - drop the MR references of a payload
 * @pl: the payload; empty afterwards
 */
static inline void rnic_payload_put(struct rnic_payload *pl)
{
	u32 i;

	for (i = 0; i < pl->nsegs; i++)
		rnic_mr_dp_put(pl->segs[i].mr);
	pl->nsegs = 0;
}

/* payload.c */
int rnic_payload_add_rkey(struct rnic_payload *pl, struct rnic_qp *qp,
			  u32 rkey, u64 addr, u32 len, u32 access);
int rnic_payload_from_sgl(struct rnic_payload *pl, struct rnic_dev *rdev,
			  struct rnic_pd *pd, const struct rnic_sge *sge,
			  u32 nsge, u32 off, u32 len, u32 access);
void rnic_payload_copy(const struct rnic_payload *dst, u32 dst_off,
		       const struct rnic_payload *src, u32 len);
void rnic_payload_iter_init(struct rnic_payload_iter *it,
			    const struct rnic_payload *pl, u32 off);
u32 rnic_payload_iter_next(struct rnic_payload_iter *it, u32 len,
			   unsigned int dir);
void rnic_payload_copy_in(const struct rnic_payload *dst, u32 dst_off,
			  const void *buf, u32 len);
void rnic_payload_copy_out(void *buf, const struct rnic_payload *src, u32 len);
void rnic_pkt_copy_payload(const struct rnic_payload *dst, u32 dst_off,
			   const struct rnic_pkt *pkt);
u64 *rnic_payload_map_u64(const struct rnic_payload *pl);

/* qp_engine.c */
void rnic_req_schedule(struct rnic_qp *qp);
void rnic_qp_error(struct rnic_qp *qp, u32 event);
void rnic_qp_send_error(struct rnic_qp *qp);

/* requester internals, shared with the completer (req.c, comp.c) */

static inline struct rnic_kwqe *rnic_kwqe(struct rnic_qp *qp, u32 index)
{
	return (void *)qp->req.wqes + (size_t)(index & qp->sq.mask) *
				      qp->req.stride;
}

static inline bool rnic_wqe_is_rd_atomic(u32 opcode)
{
	return opcode == RNIC_WR_RDMA_READ ||
	       opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD;
}

/* Work requests executed by the local HCA: nothing is sent. */
static inline bool rnic_wqe_is_local(u32 opcode)
{
	return opcode == RNIC_WR_BIND_MW || opcode == RNIC_WR_LOCAL_INV;
}

static inline bool rnic_wqe_is_atomic(u32 opcode)
{
	return opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD;
}

/* req.c */
void rnic_req_init(struct rnic_qp *qp);
void rnic_req_timer(struct timer_list *t);
enum hrtimer_restart rnic_req_rnr_timer(struct hrtimer *t);
void rnic_req_rnr_stop(struct rnic_qp *qp);
void rnic_req_run(struct rnic_qp *qp);
void rnic_req_poke(struct rnic_qp *qp);
void rnic_req_complete(struct rnic_qp *qp, u32 status);
void rnic_req_fail(struct rnic_qp *qp, u32 status);
struct rnic_kwqe *rnic_req_find_psn(struct rnic_qp *qp, u32 psn, u32 *index);
bool rnic_req_rewind(struct rnic_qp *qp, u32 psn);
void rnic_req_rd_shrink(struct rnic_qp *qp);
void rnic_req_rd_grow(struct rnic_qp *qp);
bool rnic_req_flush(struct rnic_qp *qp);

/* comp.c */
void rnic_comp_rcv(struct rnic_qp *qp, const struct rnic_pkt *pkt);

/* resp.c */
void rnic_resp_init(struct rnic_qp *qp);
void rnic_resp_rcv(struct rnic_qp *qp, const struct rnic_pkt *pkt);

#endif /* RNIC_ENGINE_H */
