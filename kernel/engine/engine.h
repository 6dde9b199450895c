/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rnic: software RDMA NIC - the transport engine's private types.
 *
 * The engine (req.c: requester and completer, resp.c: responder, dp.c:
 * memory, completions, QP lifecycle, link.c: the local link) speaks the
 * InfiniBand transport: packets carry the fields of the BTH and of the
 * extended headers that their opcode has. What carries a packet is the
 * link: the local link hands it to the destination QP in a function call,
 * with the payload still in the sender's memory (struct rnic_payload), so
 * that the receiver copies it once, straight into its own memory. A wire
 * link would build a real packet from the same struct.
 *
 * On the local link a SEND or WRITE request carries up to
 * RNIC_BURST_BYTES of its message at once (struct rnic_pkt.npkts): a burst
 * of consecutive MTU-sized packets, each with its own PSN, that arrive
 * together. The responder treats it exactly as that run of packets, and
 * per-packet costs are paid once per burst. A wire link would cut a burst
 * into packets.
 */
#ifndef RNIC_ENGINE_H
#define RNIC_ENGINE_H

#include <linux/sizes.h>

#include "rnic.h"

/* BTH opcodes: transport in the top 3 bits, operation in the low 5. */
#define RNIC_TRANSPORT_RC	0x00
#define RNIC_TRANSPORT_UC	0x20
#define RNIC_TRANSPORT_UD	0x60
#define RNIC_TRANSPORT_MASK	0xe0
#define RNIC_OPER_MASK		0x1f

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

#define RNIC_PSN_MASK		0xffffff
/*
 * IB's largest message (2^31 bytes): what a responder accepts from any
 * sender. rnic's own requester sends at most RNIC_MAX_MSG_SZ.
 */
#define RNIC_IB_MAX_MSG_SZ	BIT(31)
/* READ requests are cut into chunks of at most this many responses. */
#define RNIC_READ_CHUNK_PKTS	64
/* RC: an ACK is asked for at least every so many packets (a power of 2). */
#define RNIC_ACK_EVERY		64
/* Bytes of a SEND or WRITE message a request carries at most. */
#define RNIC_BURST_BYTES	SZ_64K
/* Packets the requester sends per batch, and batches per run. */
#define RNIC_REQ_BUDGET		64
#define RNIC_REQ_BATCHES	16
/* WQEs flushed per pass before the lock is dropped */
#define RNIC_FLUSH_BUDGET	256
/* A UD receive buffer starts with room for the GRH. */
#define RNIC_GRH_LEN		40

/**
 * struct rnic_mseg - a piece of a memory region
 * @mr: the region, with a data path reference (struct rnic_dpref)
 * @off: byte offset in the region
 * @len: bytes
 */
struct rnic_mseg {
	struct rnic_mr *mr;
	u64 off;
	u32 len;
};

/**
 * struct rnic_payload - where the bytes of a packet are (or go)
 * @inline_data: the bytes themselves (inline sends), or NULL
 * @nsegs: entries of @segs used, without @inline_data
 * @segs: memory region pieces, in order
 */
struct rnic_payload {
	const u8 *inline_data;
	u32 nsegs;
	struct rnic_mseg segs[RNIC_MAX_SGE];
};

/**
 * struct rnic_pkt - one transport packet
 * @opcode: BTH opcode
 * @solicited: BTH SE bit
 * @ack_req: BTH AckReq bit
 * @dqpn: destination QP
 * @psn: packet sequence number; of the first packet of a burst
 * @npkts: requests: packets (PSNs) of the burst, at least 1; all but the
 *	last carry exactly an MTU of payload, the opcode is that of the
 *	whole run (FIRST, MIDDLE, LAST or ONLY) and AckReq that of its last
 * @sqpn: source QP (DETH; the local link has it for every packet, and
 *	rnic_link_from_peer() relies on it)
 * @qkey: Q_Key (DETH)
 * @imm: immediate data, network byte order
 * @va: RETH/AtomicETH virtual address
 * @rkey: RETH/AtomicETH remote key
 * @dma_len: RETH DMA length
 * @swap: AtomicETH swap value
 * @compare_add: AtomicETH compare or add value
 * @syndrome: AETH syndrome
 * @msn: AETH message sequence number
 * @orig: AtomicAckETH original value
 * @av: addressing (GIDs, hop limit, traffic class) of the sender; its
 *	sgid is a GID of the sending device
 * @dev: the sending device
 * @src: the sending QP if it stays in the call while the local link
 *	delivers the packet (requests), else NULL
 * @dst: the destination QP if the sender knows it is alive for the call
 *	(a reply to @src of the request being handled), else NULL: the link
 *	looks @dqpn up
 * @len: payload bytes
 * @payload: where they are; NULL if @len is 0
 */
struct rnic_pkt {
	u8 opcode;
	bool solicited;
	bool ack_req;
	u32 dqpn;
	u32 psn;
	u32 npkts;
	u32 sqpn;
	u32 qkey;
	__be32 imm;
	u64 va;
	u32 rkey;
	u32 dma_len;
	u64 swap;
	u64 compare_add;
	u8 syndrome;
	u32 msn;
	u64 orig;
	const struct rnic_av *av;
	struct rnic_dev *dev;
	struct rnic_qp *src;
	struct rnic_qp *dst;
	u32 len;
	const struct rnic_payload *payload;
};

/**
 * struct rnic_req_step - one packet the requester sends
 * @pkt: the packet
 * @pl: its payload
 * @av: its path
 * @index: the WQE it belongs to
 * @last: it is the WQE's last packet
 * @gen: rnic_req.gen when it was built
 */
struct rnic_req_step {
	struct rnic_pkt pkt;
	struct rnic_payload pl;
	struct rnic_av av;
	u32 index;
	bool last;
	u32 gen;
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
 * @status: 0, or the WC status it fails with when its turn comes
 * @rd_credit: holds one of the QP's RDMA READ/atomic credits
 * @started: its first packet was sent since the last rewind
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
	u32 status;
	bool rd_credit;
	bool started;
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

static inline u32 rnic_mtu_bytes(u32 ib_mtu)
{
	return 128U << ib_mtu;
}

/**
 * rnic_payload_put() - drop the MR references of a payload
 * @pl: the payload; empty afterwards
 */
static inline void rnic_payload_put(struct rnic_payload *pl)
{
	u32 i;

	for (i = 0; i < pl->nsegs; i++)
		rnic_mr_put(pl->segs[i].mr);
	pl->nsegs = 0;
}

/* dp.c */
void rnic_dpref_init(struct rnic_dpref *ref);
void rnic_dpref_kill(struct rnic_dpref *ref);
struct rnic_mr *rnic_mr_get(struct rnic_dev *rdev, u32 key, bool remote);
int rnic_payload_add_mr(struct rnic_payload *pl, struct rnic_dev *rdev,
			struct rnic_pd *pd, u32 key, bool remote, u64 addr,
			u32 len, u32 access);
int rnic_payload_from_sgl(struct rnic_payload *pl, struct rnic_dev *rdev,
			  struct rnic_pd *pd, const struct rnic_sge *sge,
			  u32 nsge, u32 off, u32 len, u32 access);
void rnic_payload_copy(const struct rnic_payload *dst, u32 dst_off,
		       const struct rnic_payload *src, u32 len);
u64 *rnic_payload_map_u64(const struct rnic_payload *pl);
int rnic_cq_post(struct rnic_cq *cq, const struct rnic_cqe *cqe,
		 bool solicited);
void rnic_qp_error(struct rnic_qp *qp, u32 event);
void rnic_qp_send_error(struct rnic_qp *qp);

/* qp.c, mcast.c */
struct rnic_qp *rnic_qp_lookup(u32 qpn);
void rnic_mcast_deliver(struct rnic_dev *rdev, const u8 *gid,
			void (*fn)(struct rnic_qp *qp, void *arg), void *arg);

/* link.c */
void rnic_link_xmit(struct rnic_pkt *pkt);
bool rnic_link_from_peer(const struct rnic_pkt *pkt, u32 dqpn,
			 const struct rnic_av *av);
void rnic_link_drop_stranger(struct rnic_qp *qp, const struct rnic_pkt *pkt,
			     enum rnic_nl_counter counter);

/* req.c */
void rnic_req_init(struct rnic_qp *qp);
void rnic_req_schedule(struct rnic_qp *qp);
void rnic_req_timer(struct timer_list *t);
enum hrtimer_restart rnic_req_rnr_timer(struct hrtimer *t);
void rnic_req_rnr_stop(struct rnic_qp *qp);
void rnic_req_run(struct rnic_qp *qp);
bool rnic_req_flush(struct rnic_qp *qp);
bool rnic_req_in_flight(struct rnic_qp *qp);
void rnic_comp_rcv(struct rnic_qp *qp, const struct rnic_pkt *pkt);

/* resp.c */
void rnic_resp_init(struct rnic_qp *qp);
void rnic_resp_rcv(struct rnic_qp *qp, const struct rnic_pkt *pkt);

#endif /* RNIC_ENGINE_H */
