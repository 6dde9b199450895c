/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rnic: software RDMA NIC - the link interface: what the engine hands to a
 * link (a parsed packet, struct rnic_pkt, and where its bytes are, struct
 * rnic_payload) and the path a connection or an address handle uses
 * (struct rnic_av). link/link.c is the local link.
 */
#ifndef RNIC_LINK_H
#define RNIC_LINK_H

#include "rnic.h"

/**
 * struct rnic_av - a validated address: where packets to a peer go
 * @dgid: destination GID, network byte order
 * @sgid: source GID, copied from the GID table entry @sgid_index when
 *	the address was validated; kept if the entry changes later
 * @flow_label: IPv6 flow label, 20 bits
 * @sgid_index: GID table index @sgid came from
 * @hop_limit: IPv6 hop limit, or the IPv4 TTL when @ipv4
 * @traffic_class: IPv6 traffic class, or the IPv4 TOS when @ipv4
 * @sl: service level, below 16
 * @static_rate: an enum ibv_rate value
 * @ipv4: @sgid is IPv4-mapped (::ffff:a.b.c.d): RoCEv2 over IPv4
 *
 * Built by rnic_av_from_attr() and never changed afterwards, so readers
 * need no lock.
 */
struct rnic_av {
	u8 dgid[16];
	u8 sgid[16];
	u32 flow_label;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u8 sl;
	u8 static_rate;
	bool ipv4;
};

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

/* link.c: the local link */
void rnic_link_xmit(struct rnic_pkt *pkt);
bool rnic_link_from_peer(const struct rnic_pkt *pkt, u32 dqpn,
			 const struct rnic_av *av);
void rnic_link_drop_stranger(struct rnic_qp *qp, const struct rnic_pkt *pkt,
			     enum rnic_nl_counter counter);

#endif /* RNIC_LINK_H */
