/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rnic: software RDMA NIC - the link interface: a link's operations
 * (struct rnic_link_ops), what the engine hands to a link (a parsed
 * packet, struct rnic_pkt, and where its bytes are, struct rnic_payload),
 * the address an address handle or a connection uses (struct rnic_av,
 * with its route) and a QP's path (struct rnic_path).
 * link/link.c is the local link and the dispatch both links share;
 * link/udp.c is the udp link (RoCEv2 through the bound netdev).
 */
#ifndef RNIC_LINK_H
#define RNIC_LINK_H

#include <linux/bvec.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/uio.h>

#include "rnic.h"

/**
 * enum rnic_route - how packets to an address leave, chosen once when the
 *	address is validated (rnic_av_from_attr())
 * @RNIC_ROUTE_LOCAL: to an rnic device of the sender's namespace that owns
 *	the destination GID, over the local link; the device is looked up
 *	per packet in the GID map, so that a GID that leaves its device
 *	stops delivery at once
 * @RNIC_ROUTE_MCAST: to the QPs attached to the multicast group on the
 *	sending device (UD)
 * @RNIC_ROUTE_WIRE: to another host, as RoCEv2 through the netdev the
 *	sending device is bound to (the udp link, link/udp.c): no device of
 *	its namespace owns the unicast destination GID, and the kernel's
 *	route to it leaves through that netdev
 *
 * An address that none of them reaches is refused (-ENETUNREACH).
 */
enum rnic_route {
	RNIC_ROUTE_LOCAL,
	RNIC_ROUTE_MCAST,
	RNIC_ROUTE_WIRE,
};

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
 * @route: enum rnic_route
 *
 * Built by rnic_av_from_attr() and never changed afterwards (an address
 * handle's), or changed only as part of a struct rnic_path.
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
	u8 route;
};

/**
 * struct rnic_path - the peer of a QP, as the data path uses it
 * @av: RC, UC: the address set with the path (modify to RTR), its route
 *	chosen then; zero before
 * @dqpn: RC, UC: the destination QP
 * @mtu: bytes per packet: the path MTU (RC, UC) or the port's active MTU
 *	when the QP was last modified (UD)
 *
 * One per QP (rnic_qp.path). Written by rnic_qp_dp_apply() with the QP's
 * three engine locks held (rnic_resp.lock, rnic_req.lock, rnic_qp.lock),
 * so the requester, the completer and the responder each read it under
 * their own lock. A packet carries a pointer to it only while one of
 * them is held; the requester, which sends without its lock, copies @av.
 */
struct rnic_path {
	struct rnic_av av;
	u32 dqpn;
	u32 mtu;
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
 *
 * The engine copies between two payloads with rnic_payload_copy(), page
 * to page (the local link). Bytes that are not in a memory region, such
 * as a packet a wire link received, go into one through an iov_iter over
 * its pages (struct rnic_payload_iter), the iterator the network stack's
 * copy functions take (skb_copy_datagram_iter()); rnic_payload_copy_in()
 * copies a kernel buffer so.
 */
struct rnic_payload {
	const u8 *inline_data;
	u32 nsegs;
	struct rnic_mseg segs[RNIC_MAX_SGE];
};

/**
 * struct rnic_cursor - a position in a payload, for copying
 * @pl: the payload
 * @seg: current memory region piece
 * @off: bytes into it (into @pl->inline_data for inline payloads)
 */
struct rnic_cursor {
	const struct rnic_payload *pl;
	u32 seg;
	u64 off;
};

/* Page pieces a struct rnic_payload_iter covers at a time. */
#define RNIC_PAYLOAD_ITER_BVECS	8

/**
 * struct rnic_payload_iter - an iov_iter over a payload's memory region
 *	pages, a run of pages at a time (rnic_payload_iter_next())
 * @cur: where the next run starts
 * @iter: the run: ITER_BVEC over @bvec
 * @bvec: its pages, pinned by the MRs the payload holds
 */
struct rnic_payload_iter {
	struct rnic_cursor cur;
	struct iov_iter iter;
	struct bio_vec bvec[RNIC_PAYLOAD_ITER_BVECS];
};

/* struct rnic_pkt.flags */
#define RNIC_PKT_CORRUPT	BIT(0)

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
 *	its peer rule relies on it; the udp link only for UD)
 * @qkey: Q_Key (DETH)
 * @imm: immediate data, network byte order
 * @inv_rkey: IETH: the rkey a SEND with invalidate unbinds at the peer
 * @srqn: XRCETH (every request of an XRC INI QP): the XRC SRQ at the
 *	target that takes it
 * @va: RETH/AtomicETH virtual address
 * @rkey: RETH/AtomicETH remote key
 * @dma_len: RETH DMA length
 * @swap: AtomicETH swap value
 * @compare_add: AtomicETH compare or add value
 * @syndrome: AETH syndrome
 * @msn: AETH message sequence number
 * @orig: AtomicAckETH original value
 * @av: addressing (GIDs, hop limit, traffic class) of the sender; its
 *	sgid is a GID of the sending device, its route the one the link
 *	follows. From the udp link: the IP header's addresses, TTL or hop
 *	limit and TOS or traffic class
 * @dev: the sending device; from the udp link, the receiving one
 * @link: the link the packet arrived on (set by the link that delivers
 *	it): its rule says whether the packet came from a connected QP's
 *	peer (rnic_link_from_peer())
 * @src: the sending QP if it stays in the call while the local link
 *	delivers the packet (requests), else NULL
 * @dst: the destination QP if the sender knows it is alive for the call
 *	(a reply to @src of the request being handled), else NULL: the link
 *	looks @dqpn up on the device that owns the destination GID
 * @len: payload bytes
 * @payload: where they are (the local link); NULL if @len is 0 or the
 *	bytes are in @skb
 * @skb: the received packet the payload is in (the udp link), or NULL
 * @skb_off: offset of the payload's first byte in @skb
 *
 * The engine copies a packet's payload with rnic_pkt_copy_payload(),
 * whatever holds it.
 * @flags: what fault injection did to it (link/fault.c), 0 otherwise:
 *	RNIC_PKT_CORRUPT: it arrives damaged, and the receiving device
 *	drops it as a packet with a bad ICRC (DROP_BAD_ICRC). A wire link
 *	damages the packet it builds after the ICRC is computed; the local
 *	link drops it at the receiving device
 * @delay_us: fault injection: hold the packet back so many microseconds
 *	before it leaves; only a link with rnic_link_ops.can_delay is
 *	asked to (the local link cannot: it delivers in the sender's call,
 *	with the payload in the sender's memory)
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
	u32 inv_rkey;
	u32 srqn;
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
	const struct rnic_link_ops *link;
	u32 len;
	const struct rnic_payload *payload;
	const struct sk_buff *skb;
	u32 skb_off;
	u8 flags;
	u32 delay_us;
};

/**
 * struct rnic_link_ops - a link: what carries packets between QPs
 * @name: the link's name, for debug output ("local", "udp")
 * @xmit: send a packet, see rnic_link_xmit(); 0, or -errno if the link
 *	refused it (counted, lost)
 * @from_peer: did an RC or UC packet that arrived on this link come from
 *	the connected QP's peer? What a link can vouch for about a sender is
 *	its own; see rnic_link_from_peer()
 * @max_burst: bytes of a SEND or WRITE message that one request (a
 *	struct rnic_pkt of @npkts packets) may carry on this link. The
 *	requester cuts messages into bursts of whole packets of the path
 *	MTU, at most this many bytes (and the device's rnic_dev.max_burst)
 *	and at least one packet; so a link that carries every packet on
 *	its own says 0, and the requester segments exactly as the
 *	transport does on a wire (FIRST, MIDDLE, LAST).
 * @can_delay: the link can hold a packet back (struct rnic_pkt.delay_us)
 *
 * A link is stateless here: one const instance per kind of link.
 */
struct rnic_link_ops {
	const char *name;
	int (*xmit)(struct rnic_pkt *pkt);
	bool (*from_peer)(const struct rnic_pkt *pkt,
			  const struct rnic_path *path);
	u32 max_burst;
	bool can_delay;
};

/* link.c: the local link, and the dispatch of received packets */
extern const struct rnic_link_ops rnic_local_link;
int rnic_local_xmit(struct rnic_pkt *pkt);
bool rnic_local_from_peer(const struct rnic_pkt *pkt,
			  const struct rnic_path *path);
void rnic_link_deliver(struct rnic_dev *rdev, struct rnic_pkt *pkt);
void rnic_link_deliver_mcast(struct rnic_dev *rdev, struct rnic_pkt *pkt);
void rnic_link_drop_stranger(struct rnic_qp *qp, const struct rnic_pkt *pkt,
			     enum rnic_nl_counter counter);

/* udp.c: the udp link */
extern const struct rnic_link_ops rnic_udp_link;
int rnic_udp_xmit(struct rnic_pkt *pkt);
bool rnic_udp_from_peer(const struct rnic_pkt *pkt,
			const struct rnic_path *path);
int rnic_udp_reaches(struct rnic_dev *rdev, const struct rnic_av *av);

/**
 * rnic_av_link() - the link that carries packets on a path
 * @av: the path
 *
 * The local and multicast routes are the local link's, the wire's the
 * udp link's.
 */
static inline const struct rnic_link_ops *rnic_av_link(const struct rnic_av *av)
{
	return av->route == RNIC_ROUTE_WIRE ? &rnic_udp_link : &rnic_local_link;
}

/**
 * rnic_link_from_peer() - did an RC or UC packet come from the QP's peer?
 * @pkt: a request or a response that arrived for a connected QP
 * @path: the QP's path (rnic_qp.path)
 *
 * Asks the link the packet arrived on (struct rnic_link_ops.from_peer).
 *
 * Context: one of the QP's engine locks held (struct rnic_path).
 * Return: true if it did; false: drop it, rnic_link_drop_stranger().
 */
static inline bool rnic_link_from_peer(const struct rnic_pkt *pkt,
				       const struct rnic_path *path)
{
	return INDIRECT_CALL_2(pkt->link->from_peer, rnic_local_from_peer,
			       rnic_udp_from_peer, pkt, path);
}

/* Hand a packet to its path's link, as it is; see rnic_link_xmit(). */
static inline int rnic_link_send(struct rnic_pkt *pkt)
{
	return INDIRECT_CALL_2(rnic_av_link(pkt->av)->xmit, rnic_local_xmit,
			       rnic_udp_xmit, pkt);
}

/* fault.c: fault injection (struct rnic_fault) */
int rnic_fault_xmit(struct rnic_pkt *pkt);
bool rnic_fault_take(struct rnic_dev *rdev, atomic_t *left,
		     enum rnic_nl_counter counter);

/**
 * rnic_link_xmit() - send a packet on its path's link
 * @pkt: the packet; its payload stays valid during the call
 *
 * A device with a packet fault set (struct rnic_fault.pkt) sends through
 * rnic_fault_xmit(), which may drop, damage, delay or duplicate it.
 *
 * Context: BH disabled, in an RCU read-side critical section (the
 * requester's, rnic_req_send(): the local link's receivers look QPs and
 * MRs up under it), no lock of the sending QP but (for responses) its
 * responder's.
 * Return: 0, or -errno if the link refused the packet (no route, no
 * memory, the netdev's queue full: counted in send_err, lost). A packet
 * fault injection drops counts as sent. A sender that has more to send
 * may stop there: the network is not taking more now.
 */
static inline int rnic_link_xmit(struct rnic_pkt *pkt)
{
	rnic_dev_count(pkt->dev, RNIC_NL_COUNTER_SENT_PKTS);
	if (unlikely(READ_ONCE(pkt->dev->fault.pkt)))
		return rnic_fault_xmit(pkt);
	return rnic_link_send(pkt);
}

/*
 * Fault injection's forced errors: does this RC message (responder:
 * rnic_fault_rnr(), rnic_fault_rem_access()) or work request (requester:
 * rnic_fault_retry_exc()) fail so? One use of the device's count each,
 * counted. A count of 0 costs one read of a line nobody writes.
 */
static inline bool rnic_fault_rnr(struct rnic_dev *rdev)
{
	return unlikely(atomic_read(&rdev->fault.rnr)) &&
	       rnic_fault_take(rdev, &rdev->fault.rnr,
			       RNIC_NL_COUNTER_FAULT_RNR);
}

static inline bool rnic_fault_rem_access(struct rnic_dev *rdev)
{
	return unlikely(atomic_read(&rdev->fault.rem_access)) &&
	       rnic_fault_take(rdev, &rdev->fault.rem_access,
			       RNIC_NL_COUNTER_FAULT_REM_ACCESS);
}

static inline bool rnic_fault_retry_exc(struct rnic_dev *rdev)
{
	return unlikely(atomic_read(&rdev->fault.retry_exc)) &&
	       rnic_fault_take(rdev, &rdev->fault.retry_exc,
			       RNIC_NL_COUNTER_FAULT_RETRY_EXC);
}

#endif /* RNIC_LINK_H */
