// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the udp link: RoCEv2 (IBTA Annex A17) through
 * the netdev a device is bound to, wire-compatible with rdma_rxe.
 *
 * A packet is IPv4 (GIDs ::ffff:a.b.c.d) or IPv6, then UDP to port 4791,
 * then the BTH, the extended headers of its opcode (rnic_wire_hdrs()),
 * the payload, a pad to 4 bytes and the invariant CRC (ICRC).
 *
 * Sending (rnic_udp_xmit(), the link's xmit; .max_burst 0, so every
 * request is one packet): the kernel's route from the source GID to the
 * destination GID in the device's namespace must leave through the bound
 * netdev; the packet is built in a new skb, then handed to ip_local_out()
 * or ip6_local_out(), which resolve the neighbour. The payload of an RC
 * SEND or WRITE leaves in page fragments of the sender's pinned pages,
 * without a copy, if the netdev takes fragments (rnic_udp_zcopy()); any
 * other payload is copied into the skb. The UDP source port is 0xc000 | a 14-bit hash of
 * the sending QP's number, as rdma_rxe chooses it, so that flows hash
 * apart; the UDP checksum is 0 (the ICRC covers the packet), on IPv6 too,
 * as rdma_rxe sends it. A packet that cannot be sent is counted in
 * send_err and lost: the RC requester's timer retries. A packet fault
 * injection damaged (RNIC_PKT_CORRUPT) leaves with its ICRC inverted, so
 * that the peer drops it as a bad ICRC; one it delays is built at once
 * and held in the device's queue (struct rnic_held, at most
 * RNIC_HELD_MAX packets) until an hrtimer sends it.
 *
 * Receiving (rnic_udp_rcv(), the bound netdev's rx_handler, registered
 * by core/netdev.c): the handler takes IPv4 and IPv6 packets whose UDP
 * destination port is 4791 and whose destination address is a GID of the
 * device, or a multicast group a QP of the device is attached to (the
 * netdev is in allmulti mode while bound; its own multicast, looped
 * back, passes: the sending device delivered to its members itself);
 * everything else passes on to the stack (rdma_rxe's socket, or
 * the host's, keeps port 4791 for other addresses). It trusts nothing of
 * what it takes: the IP header and its lengths, no fragment, the UDP
 * length, TVer 0, the P_Key (default, 0xffff), an opcode rnic knows and
 * the extended headers it needs, the pad count, a payload no longer than
 * the port's active MTU and none where the opcode has none, the ICRC.
 * What fails is dropped and counted (drop_bad_header, drop_bad_pkey,
 * drop_bad_icrc). What passes becomes a struct rnic_pkt whose address is
 * the IP header's (source and destination as GIDs, TTL or hop limit, TOS
 * or traffic class) and whose payload stays in the skb (struct
 * rnic_pkt.skb); it is delivered as the local link delivers
 * (rnic_link_deliver()): QP 1 dropped, the QP looked up by number,
 * requests to the responder, responses to the completer, which copy the
 * payload once, from the skb into the destination MR. A datagram to a
 * group goes to its members (rnic_link_deliver_mcast()).
 *
 * RC and UC packets on the wire carry no source QP: a connected QP takes
 * them from its peer's pair of addresses alone (rnic_udp_from_peer()), as
 * rdma_rxe does.
 */
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <asm/unaligned.h>

#include "engine/engine.h"

/* The UDP port of RoCEv2 (IANA) */
#define RNIC_ROCE_PORT		4791
/* UDP source ports: 0xc000 | a hash of the QP number, as rdma_rxe's */
#define RNIC_SPORT_BASE		0xc000
#define RNIC_SPORT_BITS		14

/**
 * struct rnic_bth - the base transport header
 * @opcode: transport (3 bits), operation (5 bits)
 * @flags: SE, MigReq, PadCnt (2 bits), TVer (4 bits)
 * @pkey: partition key
 * @qpn: FECN, BECN, 6 reserved bits, destination QP (24 bits)
 * @apsn: AckReq, 7 reserved bits, PSN (24 bits)
 */
struct rnic_bth {
	u8 opcode;
	u8 flags;
	__be16 pkey;
	__be32 qpn;
	__be32 apsn;
} __packed;

#define RNIC_BTH_SE		0x80
#define RNIC_BTH_PAD_SHIFT	4
#define RNIC_BTH_PAD_MASK	0x30
#define RNIC_BTH_TVER_MASK	0x0f
#define RNIC_BTH_ACK_REQ	BIT(31)
#define RNIC_BTH_QPN_MASK	0x00ffffff
#define RNIC_PKEY_BASE_MASK	0x7fff

/**
 * struct rnic_deth - datagram extended header (UD)
 * @qkey: Q_Key
 * @sqpn: 8 reserved bits, source QP (24 bits)
 */
struct rnic_deth {
	__be32 qkey;
	__be32 sqpn;
} __packed;

/**
 * struct rnic_reth - RDMA extended header (WRITE FIRST and ONLY, READ)
 * @va: virtual address
 * @rkey: remote key
 * @dma_len: bytes of the whole message
 */
struct rnic_reth {
	__be64 va;
	__be32 rkey;
	__be32 dma_len;
} __packed;

/**
 * struct rnic_atmeth - atomic extended header
 * @va: virtual address
 * @rkey: remote key
 * @swap_add: swap value (compare and swap) or add value (fetch and add)
 * @compare: compare value (compare and swap)
 */
struct rnic_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 compare;
} __packed;

/**
 * struct rnic_aeth - ACK extended header
 * @smsn: syndrome (8 bits), MSN (24 bits)
 */
struct rnic_aeth {
	__be32 smsn;
} __packed;

/**
 * struct rnic_atmack - atomic ACK extended header
 * @orig: the original value at the address
 */
struct rnic_atmack {
	__be64 orig;
} __packed;

static_assert(sizeof(struct rnic_bth) == 12);
static_assert(sizeof(struct rnic_deth) == 8);
static_assert(sizeof(struct rnic_reth) == 16);
static_assert(sizeof(struct rnic_atmeth) == 28);
static_assert(sizeof(struct rnic_aeth) == 4);
static_assert(sizeof(struct rnic_atmack) == 8);

#define RNIC_IMM_LEN		4
#define RNIC_IETH_LEN		4
#define RNIC_XRCETH_LEN		4
#define RNIC_ICRC_LEN		4

/* What a packet carries after the BTH, in this order on the wire. */
#define RNIC_HDR_XRCETH		BIT(8)
#define RNIC_HDR_DETH		BIT(0)
#define RNIC_HDR_RETH		BIT(1)
#define RNIC_HDR_ATMETH		BIT(2)
#define RNIC_HDR_AETH		BIT(3)
#define RNIC_HDR_ATMACK		BIT(4)
#define RNIC_HDR_IMM		BIT(5)
#define RNIC_HDR_IETH		BIT(7)
/* not a header: the opcode carries a payload */
#define RNIC_HDR_PAYLOAD	BIT(6)

/* The extended headers of each RC operation; 0: rnic does not know it. */
static const u8 rnic_oper_hdrs[] = {
	[RNIC_SEND_FIRST] = RNIC_HDR_PAYLOAD,
	[RNIC_SEND_MIDDLE] = RNIC_HDR_PAYLOAD,
	[RNIC_SEND_LAST] = RNIC_HDR_PAYLOAD,
	[RNIC_SEND_LAST_IMM] = RNIC_HDR_PAYLOAD | RNIC_HDR_IMM,
	[RNIC_SEND_ONLY] = RNIC_HDR_PAYLOAD,
	[RNIC_SEND_ONLY_IMM] = RNIC_HDR_PAYLOAD | RNIC_HDR_IMM,
	[RNIC_WRITE_FIRST] = RNIC_HDR_PAYLOAD | RNIC_HDR_RETH,
	[RNIC_WRITE_MIDDLE] = RNIC_HDR_PAYLOAD,
	[RNIC_WRITE_LAST] = RNIC_HDR_PAYLOAD,
	[RNIC_WRITE_LAST_IMM] = RNIC_HDR_PAYLOAD | RNIC_HDR_IMM,
	[RNIC_WRITE_ONLY] = RNIC_HDR_PAYLOAD | RNIC_HDR_RETH,
	[RNIC_WRITE_ONLY_IMM] = RNIC_HDR_PAYLOAD | RNIC_HDR_RETH |
				RNIC_HDR_IMM,
	[RNIC_READ_REQ] = RNIC_HDR_RETH,
	[RNIC_READ_RESP_FIRST] = RNIC_HDR_PAYLOAD | RNIC_HDR_AETH,
	[RNIC_READ_RESP_MIDDLE] = RNIC_HDR_PAYLOAD,
	[RNIC_READ_RESP_LAST] = RNIC_HDR_PAYLOAD | RNIC_HDR_AETH,
	[RNIC_READ_RESP_ONLY] = RNIC_HDR_PAYLOAD | RNIC_HDR_AETH,
	[RNIC_ACK] = RNIC_HDR_AETH,
	[RNIC_ATOMIC_ACK] = RNIC_HDR_AETH | RNIC_HDR_ATMACK,
	[RNIC_CMP_SWAP] = RNIC_HDR_ATMETH,
	[RNIC_FETCH_ADD] = RNIC_HDR_ATMETH,
	[RNIC_SEND_LAST_INV] = RNIC_HDR_PAYLOAD | RNIC_HDR_IETH,
	[RNIC_SEND_ONLY_INV] = RNIC_HDR_PAYLOAD | RNIC_HDR_IETH,
};

/*
 * The extended headers of a BTH opcode (RNIC_HDR_*), or 0 for an opcode
 * rnic does not know: UC has SENDs and WRITEs, UD only SEND ONLY (with a
 * DETH), RC every operation above, and XRC too, its requests with an
 * XRCETH.
 */
static u16 rnic_wire_hdrs(u8 opcode)
{
	u8 oper = opcode & RNIC_OPER_MASK;

	if (oper >= ARRAY_SIZE(rnic_oper_hdrs))
		return 0;
	switch (opcode & RNIC_TRANSPORT_MASK) {
	case RNIC_TRANSPORT_RC:
		return rnic_oper_hdrs[oper];
	case RNIC_TRANSPORT_UC:
		return oper <= RNIC_WRITE_ONLY_IMM ? rnic_oper_hdrs[oper] : 0;
	case RNIC_TRANSPORT_UD:
		return oper == RNIC_SEND_ONLY || oper == RNIC_SEND_ONLY_IMM ?
		       rnic_oper_hdrs[oper] | RNIC_HDR_DETH : 0;
	case RNIC_TRANSPORT_XRC:
		if (!rnic_oper_hdrs[oper] ||
		    (oper >= RNIC_READ_RESP_FIRST && oper <= RNIC_ATOMIC_ACK))
			return rnic_oper_hdrs[oper];
		return rnic_oper_hdrs[oper] | RNIC_HDR_XRCETH;
	default:
		return 0;
	}
}

/* Bytes of the BTH and the extended headers @hdrs. */
static u32 rnic_wire_hdr_len(u16 hdrs)
{
	u32 len = sizeof(struct rnic_bth);

	if (hdrs & RNIC_HDR_XRCETH)
		len += RNIC_XRCETH_LEN;
	if (hdrs & RNIC_HDR_DETH)
		len += sizeof(struct rnic_deth);
	if (hdrs & RNIC_HDR_RETH)
		len += sizeof(struct rnic_reth);
	if (hdrs & RNIC_HDR_ATMETH)
		len += sizeof(struct rnic_atmeth);
	if (hdrs & RNIC_HDR_AETH)
		len += sizeof(struct rnic_aeth);
	if (hdrs & RNIC_HDR_ATMACK)
		len += sizeof(struct rnic_atmack);
	if (hdrs & RNIC_HDR_IMM)
		len += RNIC_IMM_LEN;
	if (hdrs & RNIC_HDR_IETH)
		len += RNIC_IETH_LEN;
	return len;
}

/* The ICRC is a CRC32 (Ethernet's), computed on skbs with __skb_checksum(). */
static __wsum rnic_crc_update(const void *buf, int len, __wsum crc)
{
	return (__force __wsum)crc32_le((__force u32)crc, buf, len);
}

static __wsum rnic_crc_combine(__wsum crc1, __wsum crc2, int off, int len)
{
	return (__force __wsum)crc32_le_combine((__force u32)crc1,
						(__force u32)crc2, len);
}

static const struct skb_checksum_ops rnic_crc_ops = {
	.update = rnic_crc_update,
	.combine = rnic_crc_combine,
};

/*
 * The ICRC of a packet whose IP header is at @skb->data (@ip_len bytes,
 * 20 or 40), up to @end (where the ICRC goes). It covers the IP, UDP and
 * BTH headers with the fields a router may change masked to ones, after
 * 8 bytes of ones where InfiniBand's LRH would be, then everything after
 * the BTH.
 */
static u32 rnic_icrc(const struct sk_buff *skb, u32 ip_len, u32 end)
{
	static const u8 lrh[8] = { 0xff, 0xff, 0xff, 0xff,
				   0xff, 0xff, 0xff, 0xff };
	u8 ph[sizeof(struct ipv6hdr) + sizeof(struct udphdr) +
	      sizeof(struct rnic_bth)];
	u32 ph_len = ip_len + sizeof(struct udphdr) + sizeof(struct rnic_bth);
	struct rnic_bth *bth;
	struct udphdr *uh;
	u32 crc;

	if (skb_copy_bits(skb, 0, ph, ph_len))
		return 0;
	if (ip_len == sizeof(struct iphdr)) {
		struct iphdr *iph = (struct iphdr *)ph;

		iph->tos = 0xff;
		iph->ttl = 0xff;
		iph->check = CSUM_MANGLED_0;
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)ph;

		ip6h->priority = 0xf;
		memset(ip6h->flow_lbl, 0xff, sizeof(ip6h->flow_lbl));
		ip6h->hop_limit = 0xff;
	}
	uh = (struct udphdr *)(ph + ip_len);
	uh->check = CSUM_MANGLED_0;
	bth = (struct rnic_bth *)(uh + 1);
	bth->qpn |= cpu_to_be32(~RNIC_BTH_QPN_MASK);

	crc = crc32_le(~0U, lrh, sizeof(lrh));
	crc = crc32_le(crc, ph, ph_len);
	crc = (__force u32)__skb_checksum(skb, ph_len, end - ph_len,
					  (__force __wsum)crc, &rnic_crc_ops);
	return ~crc;
}

/**
 * rnic_udp_route() - the kernel's route for an address, through a netdev
 * @netdev: the bound netdev
 * @av: the address: source and destination GIDs of one family
 *
 * Looked up in @netdev's namespace from the source GID's address, without
 * naming an output device (IPv4 would then take any destination for
 * on-link), and accepted only if it leaves through @netdev. Multicast and
 * IPv6 link-local destinations are looked up on @netdev: a group is
 * reached on the link the device is bound to.
 *
 * Context: any; in an RCU read-side critical section or not.
 * Return: the route, to be released with dst_release(), or an ERR_PTR:
 * -ENETUNREACH, or what the lookup failed with.
 */
static struct dst_entry *rnic_udp_route(struct net_device *netdev,
					const struct rnic_av *av)
{
	struct net *net = dev_net(netdev);
	struct dst_entry *dst;

	if (av->ipv4) {
		struct flowi4 fl4 = { .flowi4_proto = IPPROTO_UDP };
		struct rtable *rt;

		memcpy(&fl4.saddr, av->sgid + 12, 4);
		memcpy(&fl4.daddr, av->dgid + 12, 4);
		if (ipv4_is_multicast(fl4.daddr))
			fl4.flowi4_oif = netdev->ifindex;
		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt))
			return ERR_CAST(rt);
		dst = &rt->dst;
	} else {
		struct flowi6 fl6 = { .flowi6_proto = IPPROTO_UDP };

		memcpy(&fl6.saddr, av->sgid, 16);
		memcpy(&fl6.daddr, av->dgid, 16);
		if (ipv6_addr_type(&fl6.daddr) &
		    (IPV6_ADDR_LINKLOCAL | IPV6_ADDR_MULTICAST))
			fl6.flowi6_oif = netdev->ifindex;
		dst = ip6_route_output(net, NULL, &fl6);
		if (dst->error) {
			int err = dst->error;

			dst_release(dst);
			return ERR_PTR(err);
		}
	}
	if (dst->dev != netdev) {
		dst_release(dst);
		return ERR_PTR(-ENETUNREACH);
	}
	return dst;
}

/**
 * rnic_udp_reaches() - can a device reach an address over the wire?
 * @rdev: the device
 * @av: the address, its GIDs set: a unicast destination no device of
 *	@rdev's namespace owns
 *
 * Context: process or softirq.
 * Return: 0 if @rdev is bound and the kernel's route to the destination
 * leaves through its netdev, else -ENETUNREACH.
 */
int rnic_udp_reaches(struct rnic_dev *rdev, const struct rnic_av *av)
{
	struct net_device *netdev;
	struct dst_entry *dst;
	int ret = -ENETUNREACH;

	rcu_read_lock();
	netdev = READ_ONCE(rdev->netdev);
	if (netdev) {
		dst = rnic_udp_route(netdev, av);
		if (!IS_ERR(dst)) {
			dst_release(dst);
			ret = 0;
		}
	}
	rcu_read_unlock();
	return ret;
}

/* Payloads shorter than this are copied: a copy costs less than frags. */
#define RNIC_ZCOPY_MIN		512

/*
 * Do @pkt's page pieces and the trailer fit in an skb's fragments? A
 * piece of an MR of n bytes spans at most n / PAGE_SIZE + 2 pages.
 */
static bool rnic_udp_frags_fit(const struct rnic_pkt *pkt)
{
	return pkt->len / PAGE_SIZE + 2 * pkt->payload->nsegs + 1 <=
	       MAX_SKB_FRAGS;
}

/*
 * May @pkt's payload leave in fragments of the pages it is in, rather
 * than copied (rnic_udp_put_frags())? The skb holds its own reference on
 * each page, so the pages outlive the MR; but what leaves is what is in
 * them when the netdev sends it, after the ICRC was computed. Only an
 * RC SEND or WRITE is sure its bytes stay put until then: its WQE
 * completes, and its buffer may be written again, once the peer
 * acknowledged what it received. A copy that a retransmission made
 * redundant may still be queued then; if it leaves changed, the peer
 * drops it on its ICRC, as the duplicate it is. A UC or UD send completes
 * when its packets leave the QP, and a READ response is read from memory
 * the peer's application may be writing: those are copied, so that what
 * was read is what arrives, whole.
 */
static bool rnic_udp_zcopy(const struct rnic_pkt *pkt,
			   const struct net_device *netdev)
{
	u8 oper = pkt->opcode & RNIC_OPER_MASK;

	return pkt->len >= RNIC_ZCOPY_MIN && !pkt->payload->inline_data &&
	       (pkt->opcode & RNIC_TRANSPORT_MASK) == RNIC_TRANSPORT_RC &&
	       oper <= RNIC_WRITE_ONLY_IMM && (netdev->features & NETIF_F_SG) &&
	       rnic_udp_frags_fit(pkt);
}

/*
 * Append @pkt's payload to @skb as fragments of its pages, each with a
 * page reference of the skb's, then @trailer bytes (pad and ICRC, zeroed)
 * in a fragment of their own; rnic_udp_frags_fit() said they fit.
 * Return: where the trailer is, or NULL without memory (the fragments
 * added are released with @skb).
 */
static u8 *rnic_udp_put_frags(struct sk_buff *skb, const struct rnic_pkt *pkt,
			      u32 trailer)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	struct rnic_payload_iter it;
	u32 left = pkt->len, n, i;
	struct page *page;
	u8 *tail;

	rnic_payload_iter_init(&it, pkt->payload, 0);
	while (left) {
		n = rnic_payload_iter_next(&it, left, ITER_SOURCE);
		left -= n;
		for (i = 0; i < it.iter.nr_segs; i++) {
			const struct bio_vec *bv = &it.bvec[i];

			if (WARN_ON_ONCE(sh->nr_frags >= MAX_SKB_FRAGS - 1))
				return NULL;
			get_page(bv->bv_page);
			skb_fill_page_desc(skb, sh->nr_frags, bv->bv_page,
					   bv->bv_offset, bv->bv_len);
		}
	}
	tail = netdev_alloc_frag(SMP_CACHE_BYTES);
	if (!tail)
		return NULL;
	memset(tail, 0, trailer);
	page = virt_to_head_page(tail);
	skb_fill_page_desc(skb, sh->nr_frags, page, tail - (u8 *)page_address(page),
			   trailer);
	/* the sender's pages: what reads them must not assume they stay put */
	sh->flags |= SKBFL_SHARED_FRAG;
	skb->len += pkt->len + trailer;
	skb->data_len += pkt->len + trailer;
	skb->truesize += pkt->len + SMP_CACHE_BYTES;
	return tail;
}

/* Write the BTH and the extended headers of @pkt at @p. */
static void rnic_wire_put_hdrs(u8 *p, const struct rnic_pkt *pkt, u16 hdrs,
			       u32 pad)
{
	struct rnic_bth *bth = (struct rnic_bth *)p;

	bth->opcode = pkt->opcode;
	bth->flags = (pkt->solicited ? RNIC_BTH_SE : 0) |
		     pad << RNIC_BTH_PAD_SHIFT;
	bth->pkey = cpu_to_be16(RNIC_PKEY_DEFAULT);
	bth->qpn = cpu_to_be32(pkt->dqpn & RNIC_BTH_QPN_MASK);
	bth->apsn = cpu_to_be32((pkt->ack_req ? RNIC_BTH_ACK_REQ : 0) |
				(pkt->psn & RNIC_PSN_MASK));
	p += sizeof(*bth);
	if (hdrs & RNIC_HDR_XRCETH) {
		put_unaligned_be32(pkt->srqn & RNIC_BTH_QPN_MASK, p);
		p += RNIC_XRCETH_LEN;
	}
	if (hdrs & RNIC_HDR_DETH) {
		struct rnic_deth *deth = (struct rnic_deth *)p;

		deth->qkey = cpu_to_be32(pkt->qkey);
		deth->sqpn = cpu_to_be32(pkt->sqpn & RNIC_BTH_QPN_MASK);
		p += sizeof(*deth);
	}
	if (hdrs & RNIC_HDR_RETH) {
		struct rnic_reth *reth = (struct rnic_reth *)p;

		reth->va = cpu_to_be64(pkt->va);
		reth->rkey = cpu_to_be32(pkt->rkey);
		reth->dma_len = cpu_to_be32(pkt->dma_len);
		p += sizeof(*reth);
	}
	if (hdrs & RNIC_HDR_ATMETH) {
		struct rnic_atmeth *ath = (struct rnic_atmeth *)p;
		bool cas = (pkt->opcode & RNIC_OPER_MASK) == RNIC_CMP_SWAP;

		ath->va = cpu_to_be64(pkt->va);
		ath->rkey = cpu_to_be32(pkt->rkey);
		ath->swap_add = cpu_to_be64(cas ? pkt->swap : pkt->compare_add);
		ath->compare = cpu_to_be64(cas ? pkt->compare_add : 0);
		p += sizeof(*ath);
	}
	if (hdrs & RNIC_HDR_AETH) {
		struct rnic_aeth *aeth = (struct rnic_aeth *)p;

		aeth->smsn = cpu_to_be32((u32)pkt->syndrome << 24 |
					 (pkt->msn & RNIC_PSN_MASK));
		p += sizeof(*aeth);
	}
	if (hdrs & RNIC_HDR_ATMACK) {
		struct rnic_atmack *ack = (struct rnic_atmack *)p;

		ack->orig = cpu_to_be64(pkt->orig);
		p += sizeof(*ack);
	}
	if (hdrs & RNIC_HDR_IMM)
		memcpy(p, &pkt->imm, RNIC_IMM_LEN);
	if (hdrs & RNIC_HDR_IETH)
		put_unaligned_be32(pkt->inv_rkey, p);
}

/* Push the IP header of @av before the UDP header of @skb. */
static void rnic_udp_push_ip(struct sk_buff *skb, const struct rnic_av *av,
			     struct dst_entry *dst)
{
	u8 hop_limit = av->hop_limit;

	if (av->ipv4) {
		struct iphdr *iph = skb_push(skb, sizeof(*iph));

		skb_reset_network_header(skb);
		iph->version = 4;
		iph->ihl = sizeof(*iph) / 4;
		iph->tos = av->traffic_class;
		iph->tot_len = htons(skb->len);
		iph->frag_off = htons(IP_DF);
		iph->ttl = hop_limit ?: ip4_dst_hoplimit(dst);
		iph->protocol = IPPROTO_UDP;
		iph->check = 0;
		memcpy(&iph->saddr, av->sgid + 12, 4);
		memcpy(&iph->daddr, av->dgid + 12, 4);
		/* before the ICRC, which covers the identification */
		__ip_select_ident(dev_net(dst->dev), iph, 1);
		skb->protocol = htons(ETH_P_IP);
		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	} else {
		struct ipv6hdr *ip6h = skb_push(skb, sizeof(*ip6h));

		skb_reset_network_header(skb);
		ip6_flow_hdr(ip6h, av->traffic_class, htonl(av->flow_label));
		ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
		ip6h->nexthdr = IPPROTO_UDP;
		ip6h->hop_limit = hop_limit ?: ip6_dst_hoplimit(dst);
		memcpy(&ip6h->saddr, av->sgid, 16);
		memcpy(&ip6h->daddr, av->dgid, 16);
		skb->protocol = htons(ETH_P_IPV6);
		memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	}
}

/*
 * Build the packet of @pkt for @netdev: headers, payload, pad and ICRC.
 * Return: the skb, or NULL without memory.
 */
static struct sk_buff *rnic_udp_build(const struct rnic_pkt *pkt,
				      struct net_device *netdev,
				      struct dst_entry *dst)
{
	const struct rnic_av *av = pkt->av;
	u16 hdrs = rnic_wire_hdrs(pkt->opcode);
	u32 hdr_len = rnic_wire_hdr_len(hdrs);
	u32 ip_len = av->ipv4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	u32 pad = -pkt->len & 3;
	u32 trailer = pad + RNIC_ICRC_LEN;
	u32 head = LL_RESERVED_SPACE(netdev) + ip_len + sizeof(struct udphdr);
	bool zcopy = rnic_udp_zcopy(pkt, netdev);
	u32 len = hdr_len + (zcopy ? 0 : pkt->len + trailer);
	struct sk_buff *skb;
	struct udphdr *uh;
	u8 *tail;
	u32 icrc;
	u8 *p;

	skb = alloc_skb(head + len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	p = skb_put(skb, len);
	rnic_wire_put_hdrs(p, pkt, hdrs, pad);
	if (zcopy) {
		tail = rnic_udp_put_frags(skb, pkt, trailer);
		if (!tail) {
			kfree_skb(skb);
			return NULL;
		}
	} else {
		if (pkt->len)
			rnic_payload_copy_out(p + hdr_len, pkt->payload, pkt->len);
		tail = p + hdr_len + pkt->len;
		memset(tail, 0, trailer);
	}

	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(RNIC_SPORT_BASE |
			   hash_32(pkt->sqpn, RNIC_SPORT_BITS));
	uh->dest = htons(RNIC_ROCE_PORT);
	uh->len = htons(skb->len);
	uh->check = 0;
	rnic_udp_push_ip(skb, av, dst);
	icrc = rnic_icrc(skb, ip_len, skb->len - RNIC_ICRC_LEN);
	/* fault injection: damaged after the ICRC, the peer drops it */
	if (pkt->flags & RNIC_PKT_CORRUPT)
		icrc = ~icrc;
	put_unaligned_le32(icrc, tail + pad);
	skb->ip_summed = CHECKSUM_NONE;
	skb->dev = netdev;
	return skb;
}

/*
 * Hand a built packet to the IP layer, which resolves the neighbour.
 * Return: 0, or (counted in send_err) -ENOBUFS if a queue dropped it, or
 * the stack's error.
 */
static int rnic_udp_out(struct rnic_dev *rdev, struct sk_buff *skb)
{
	struct net *net = dev_net(skb->dev);
	int err;

	if (skb->protocol == htons(ETH_P_IP))
		err = ip_local_out(net, NULL, skb);
	else
		err = ip6_local_out(net, NULL, skb);
	if (!net_xmit_eval(err))
		return 0;
	rnic_dev_count(rdev, RNIC_NL_COUNTER_SEND_ERR);
	/* NET_XMIT_DROP (a full queue), or what the stack said */
	return err > 0 ? -ENOBUFS : err;
}

/* Packets the delay fault holds back at most, per device */
#define RNIC_HELD_MAX	4096

/*
 * Fault injection's delay: hold a built packet back @delay_us, behind
 * those held already (struct rnic_held). Return: 0, or -ENOBUFS with
 * RNIC_HELD_MAX held (the packet is freed, counted in send_err).
 */
static int rnic_udp_hold(struct rnic_dev *rdev, struct sk_buff *skb,
			 u32 delay_us)
{
	struct sk_buff_head *q = &rdev->held.skbs;
	ktime_t due = ktime_add_us(ktime_get(), delay_us);
	bool first;

	spin_lock(&q->lock);
	if (skb_queue_len(q) >= RNIC_HELD_MAX) {
		spin_unlock(&q->lock);
		kfree_skb(skb);
		rnic_dev_count(rdev, RNIC_NL_COUNTER_SEND_ERR);
		return -ENOBUFS;
	}
	skb->tstamp = due;
	first = skb_queue_empty(q);
	__skb_queue_tail(q, skb);
	spin_unlock(&q->lock);
	/* a timer with packets to send keeps itself armed */
	if (first)
		hrtimer_start(&rdev->held.timer, due, HRTIMER_MODE_ABS_SOFT);
	return 0;
}

/**
 * rnic_udp_held_timer() - send the held packets that are due
 * @timer: struct rnic_held.timer of a bound device
 *
 * In the order they were held: a packet held for less time than the one
 * before it waits for that one (the delay of a device changed meanwhile).
 *
 * Context: softirq.
 * Return: HRTIMER_RESTART, set for the next packet, while any is held.
 */
enum hrtimer_restart rnic_udp_held_timer(struct hrtimer *timer)
{
	struct rnic_dev *rdev = container_of(timer, struct rnic_dev,
					     held.timer);
	struct sk_buff_head *q = &rdev->held.skbs;
	struct sk_buff *skb;

	for (;;) {
		spin_lock(&q->lock);
		skb = skb_peek(q);
		if (skb && ktime_after(skb->tstamp, ktime_get())) {
			hrtimer_set_expires(timer, skb->tstamp);
			spin_unlock(&q->lock);
			return HRTIMER_RESTART;
		}
		if (skb)
			__skb_unlink(skb, q);
		spin_unlock(&q->lock);
		if (!skb)
			return HRTIMER_NORESTART;
		skb->tstamp = 0;
		rnic_udp_out(rdev, skb);
	}
}

/**
 * rnic_udp_xmit() - the udp link's xmit: send a packet as RoCEv2
 * @pkt: one packet (a request of one PSN, or a response)
 *
 * A packet that cannot be sent (no bound netdev, no route through it, no
 * memory, the stack refused it: a full queue, say) is counted in send_err
 * and lost. One that fault injection delays (@pkt->delay_us) is built now
 * and held (rnic_udp_hold()).
 *
 * Context: see rnic_link_xmit().
 * Return: 0, -ENETUNREACH (no netdev, no route), -ENOMEM, or what the
 * stack said (-ENOBUFS for a queue that dropped it, or with too many
 * packets held).
 */
int rnic_udp_xmit(struct rnic_pkt *pkt)
{
	struct net_device *netdev;
	struct dst_entry *dst;
	struct sk_buff *skb;
	int err;

	/* cleared before the netdev is let go after a grace period */
	netdev = READ_ONCE(pkt->dev->netdev);
	if (!netdev) {
		err = -ENETUNREACH;
		goto err;
	}
	dst = rnic_udp_route(netdev, pkt->av);
	if (IS_ERR(dst)) {
		err = PTR_ERR(dst);
		goto err;
	}
	skb = rnic_udp_build(pkt, netdev, dst);
	if (!skb) {
		dst_release(dst);
		err = -ENOMEM;
		goto err;
	}
	skb_dst_set(skb, dst);
	if (pkt->delay_us)
		return rnic_udp_hold(pkt->dev, skb, pkt->delay_us);
	return rnic_udp_out(pkt->dev, skb);
err:
	rnic_dev_count(pkt->dev, RNIC_NL_COUNTER_SEND_ERR);
	return err;
}

/**
 * rnic_udp_from_peer() - did an RC or UC packet the udp link received come
 *	from the QP's peer?
 * @pkt: a request or a response that arrived for a connected QP
 * @path: the QP's path (rnic_qp.path)
 *
 * The wire carries no source QP for RC and UC: the rule is the pair of
 * addresses, the packet's IP source being the path's destination GID and
 * its IP destination the path's source GID (rdma_rxe checks the same).
 *
 * Context: one of the QP's engine locks held (struct rnic_path).
 * Return: true if it did.
 */
bool rnic_udp_from_peer(const struct rnic_pkt *pkt,
			const struct rnic_path *path)
{
	const struct rnic_av *av = &path->av;

	return !memcmp(pkt->av->sgid, av->dgid, sizeof(av->dgid)) &&
	       !memcmp(pkt->av->dgid, av->sgid, sizeof(av->sgid));
}

/**
 * struct rnic_rx - a received packet being parsed
 * @rdev: the device bound to the netdev it arrived on
 * @skb: the packet, its IP header at @skb->data
 * @ip_len: bytes of the IP header (20 or 40)
 * @end: bytes of the IP packet (IP header to ICRC included)
 * @av: the addresses of the IP header, as the sender's address
 * @pkt: what the engine is handed
 */
struct rnic_rx {
	struct rnic_dev *rdev;
	struct sk_buff *skb;
	u32 ip_len;
	u32 end;
	struct rnic_av av;
	struct rnic_pkt pkt;
};

/* Verdicts of the receive checks: take it, pass it to the stack, or drop. */
enum rnic_rx_verdict {
	RNIC_RX_OK,
	RNIC_RX_PASS,
	RNIC_RX_DROP,
};

/*
 * Is the packet UDP to port 4791? Its IP header (@rx->ip_len bytes) was
 * checked enough to find the UDP header after it.
 */
static bool rnic_rx_is_roce(struct rnic_rx *rx)
{
	const struct udphdr *uh;

	if (!pskb_may_pull(rx->skb, rx->ip_len + sizeof(*uh)))
		return false;
	uh = (const struct udphdr *)(rx->skb->data + rx->ip_len);
	return uh->dest == htons(RNIC_ROCE_PORT);
}

/*
 * Is the destination the device's: a GID it owns (a unicast packet), or a
 * group a QP of it is attached to (a multicast one)?
 */
static bool rnic_rx_for_dev(const struct rnic_rx *rx)
{
	if (rx->skb->pkt_type == PACKET_MULTICAST)
		return rnic_gid_is_mcast(rx->av.dgid) &&
		       rnic_mcast_joined(rx->rdev, rx->av.dgid);
	return rnic_gid_dev(dev_net(rx->skb->dev), rx->av.dgid) == rx->rdev;
}

/*
 * Is the IPv4 packet at @rx->skb->data RoCEv2 for the device (else: pass
 * it on)? Fills @rx->av from the IP header, and checks the header.
 */
static enum rnic_rx_verdict rnic_rx_ipv4(struct rnic_rx *rx)
{
	struct sk_buff *skb = rx->skb;
	const struct iphdr *iph;
	u32 tot_len;

	if (!pskb_may_pull(skb, sizeof(*iph)))
		return RNIC_RX_PASS;
	iph = ip_hdr(skb);
	/* a later fragment has no UDP header: nothing says it is ours */
	if (iph->version != 4 || iph->ihl < 5 ||
	    iph->protocol != IPPROTO_UDP || iph->frag_off & htons(IP_OFFSET))
		return RNIC_RX_PASS;
	ipv6_addr_set_v4mapped(iph->saddr, (struct in6_addr *)rx->av.sgid);
	ipv6_addr_set_v4mapped(iph->daddr, (struct in6_addr *)rx->av.dgid);
	rx->av.ipv4 = true;
	rx->av.traffic_class = iph->tos;
	rx->av.hop_limit = iph->ttl;
	rx->ip_len = iph->ihl * 4;
	if (!rnic_rx_for_dev(rx) || !rnic_rx_is_roce(rx))
		return RNIC_RX_PASS;
	iph = ip_hdr(skb);
	tot_len = ntohs(iph->tot_len);
	/* no peer puts IP options in the ICRC; RoCEv2 is never fragmented */
	if (iph->ihl != 5 || ip_fast_csum(iph, iph->ihl) ||
	    iph->frag_off & htons(IP_MF) || tot_len > skb->len ||
	    tot_len < rx->ip_len + sizeof(struct udphdr))
		return RNIC_RX_DROP;
	rx->end = tot_len;
	return RNIC_RX_OK;
}

/* rnic_rx_ipv4() for IPv6; with extension headers it is not taken. */
static enum rnic_rx_verdict rnic_rx_ipv6(struct rnic_rx *rx)
{
	struct sk_buff *skb = rx->skb;
	const struct ipv6hdr *ip6h;
	u32 tot_len;

	if (!pskb_may_pull(skb, sizeof(*ip6h)))
		return RNIC_RX_PASS;
	ip6h = ipv6_hdr(skb);
	if (ip6h->version != 6 || ip6h->nexthdr != IPPROTO_UDP)
		return RNIC_RX_PASS;
	memcpy(rx->av.sgid, &ip6h->saddr, 16);
	memcpy(rx->av.dgid, &ip6h->daddr, 16);
	rx->av.traffic_class = ip6_tclass(ip6_flowinfo(ip6h));
	rx->av.flow_label = ntohl(ip6_flowlabel(ip6h));
	rx->av.hop_limit = ip6h->hop_limit;
	rx->ip_len = sizeof(*ip6h);
	if (!rnic_rx_for_dev(rx) || !rnic_rx_is_roce(rx))
		return RNIC_RX_PASS;
	ip6h = ipv6_hdr(skb);
	tot_len = sizeof(*ip6h) + ntohs(ip6h->payload_len);
	if (tot_len > skb->len ||
	    tot_len < sizeof(*ip6h) + sizeof(struct udphdr))
		return RNIC_RX_DROP;
	rx->end = tot_len;
	return RNIC_RX_OK;
}

/* The UDP length must be the IP payload's. */
static bool rnic_rx_udp_ok(struct rnic_rx *rx)
{
	const struct udphdr *uh = (const struct udphdr *)(rx->skb->data +
							  rx->ip_len);

	return ntohs(uh->len) == rx->end - rx->ip_len;
}

/* Read the extended headers @hdrs at @p into @pkt. */
static void rnic_rx_ext_hdrs(struct rnic_pkt *pkt, const u8 *p, u16 hdrs)
{
	if (hdrs & RNIC_HDR_XRCETH) {
		pkt->srqn = get_unaligned_be32(p) & RNIC_BTH_QPN_MASK;
		p += RNIC_XRCETH_LEN;
	}
	if (hdrs & RNIC_HDR_DETH) {
		const struct rnic_deth *deth = (const void *)p;

		pkt->qkey = be32_to_cpu(deth->qkey);
		pkt->sqpn = be32_to_cpu(deth->sqpn) & RNIC_BTH_QPN_MASK;
		p += sizeof(*deth);
	}
	if (hdrs & RNIC_HDR_RETH) {
		const struct rnic_reth *reth = (const void *)p;

		pkt->va = get_unaligned_be64(&reth->va);
		pkt->rkey = get_unaligned_be32(&reth->rkey);
		pkt->dma_len = get_unaligned_be32(&reth->dma_len);
		p += sizeof(*reth);
	}
	if (hdrs & RNIC_HDR_ATMETH) {
		const struct rnic_atmeth *ath = (const void *)p;
		u64 swap_add = get_unaligned_be64(&ath->swap_add);

		pkt->va = get_unaligned_be64(&ath->va);
		pkt->rkey = get_unaligned_be32(&ath->rkey);
		if ((pkt->opcode & RNIC_OPER_MASK) == RNIC_CMP_SWAP) {
			pkt->swap = swap_add;
			pkt->compare_add = get_unaligned_be64(&ath->compare);
		} else {
			pkt->compare_add = swap_add;
		}
		p += sizeof(*ath);
	}
	if (hdrs & RNIC_HDR_AETH) {
		u32 smsn = get_unaligned_be32(p);

		pkt->syndrome = smsn >> 24;
		pkt->msn = smsn & RNIC_PSN_MASK;
		p += sizeof(struct rnic_aeth);
	}
	if (hdrs & RNIC_HDR_ATMACK) {
		pkt->orig = get_unaligned_be64(p);
		p += sizeof(struct rnic_atmack);
	}
	if (hdrs & RNIC_HDR_IMM)
		memcpy(&pkt->imm, p, RNIC_IMM_LEN);
	if (hdrs & RNIC_HDR_IETH)
		pkt->inv_rkey = get_unaligned_be32(p);
}

/*
 * The BTH, the extended headers, the pad count and the payload length;
 * fills @rx->pkt. Return: 0, or the counter of the drop.
 */
static enum rnic_nl_counter rnic_rx_bth(struct rnic_rx *rx)
{
	struct rnic_pkt *pkt = &rx->pkt;
	u32 off = rx->ip_len + sizeof(struct udphdr);
	const struct rnic_bth *bth;
	u32 hdr_len, pad, apsn, room;
	u16 hdrs;

	if (!pskb_may_pull(rx->skb, off + sizeof(*bth)))
		return RNIC_NL_COUNTER_DROP_BAD_HEADER;
	bth = (const struct rnic_bth *)(rx->skb->data + off);
	if (bth->flags & RNIC_BTH_TVER_MASK)
		return RNIC_NL_COUNTER_DROP_BAD_HEADER;
	if ((be16_to_cpu(bth->pkey) & RNIC_PKEY_BASE_MASK) !=
	    RNIC_PKEY_BASE_MASK)
		return RNIC_NL_COUNTER_DROP_BAD_PKEY;
	hdrs = rnic_wire_hdrs(bth->opcode);
	if (!hdrs)
		return RNIC_NL_COUNTER_DROP_BAD_HEADER;
	hdr_len = rnic_wire_hdr_len(hdrs);
	pad = (bth->flags & RNIC_BTH_PAD_MASK) >> RNIC_BTH_PAD_SHIFT;
	room = rx->end - off;
	/* headers and ICRC are whole words; the pad makes the payload one */
	if (room % 4 || room < hdr_len + pad + RNIC_ICRC_LEN ||
	    !pskb_may_pull(rx->skb, off + hdr_len))
		return RNIC_NL_COUNTER_DROP_BAD_HEADER;
	bth = (const struct rnic_bth *)(rx->skb->data + off);
	pkt->len = room - hdr_len - pad - RNIC_ICRC_LEN;
	if ((!(hdrs & RNIC_HDR_PAYLOAD) && (pkt->len || pad)) ||
	    pkt->len > rnic_active_mtu(READ_ONCE(rx->skb->dev->mtu)))
		return RNIC_NL_COUNTER_DROP_BAD_HEADER;

	pkt->opcode = bth->opcode;
	pkt->solicited = bth->flags & RNIC_BTH_SE;
	pkt->dqpn = be32_to_cpu(bth->qpn) & RNIC_BTH_QPN_MASK;
	apsn = be32_to_cpu(bth->apsn);
	pkt->ack_req = apsn & RNIC_BTH_ACK_REQ;
	pkt->psn = apsn & RNIC_PSN_MASK;
	pkt->npkts = 1;
	rnic_rx_ext_hdrs(pkt, (const u8 *)(bth + 1), hdrs);
	pkt->skb_off = off + hdr_len;
	return 0;
}

/* Is the ICRC at @rx->end - 4 right? */
static bool rnic_rx_icrc_ok(struct rnic_rx *rx)
{
	__le32 icrc;

	if (skb_copy_bits(rx->skb, rx->end - RNIC_ICRC_LEN, &icrc,
			  sizeof(icrc)))
		return false;
	return le32_to_cpu(icrc) ==
	       rnic_icrc(rx->skb, rx->ip_len, rx->end - RNIC_ICRC_LEN);
}

/*
 * Parse and check a packet for the device; returns whether it is taken
 * (RNIC_RX_PASS: not RoCEv2 for the device) and, for a drop, counts it.
 */
static enum rnic_rx_verdict rnic_rx_parse(struct rnic_rx *rx)
{
	enum rnic_rx_verdict v;
	enum rnic_nl_counter counter;

	if (rx->skb->protocol == htons(ETH_P_IP))
		v = rnic_rx_ipv4(rx);
	else if (rx->skb->protocol == htons(ETH_P_IPV6))
		v = rnic_rx_ipv6(rx);
	else
		v = RNIC_RX_PASS;
	if (v == RNIC_RX_PASS)
		return v;
	counter = RNIC_NL_COUNTER_DROP_BAD_HEADER;
	if (v == RNIC_RX_OK && rnic_rx_udp_ok(rx)) {
		counter = rnic_rx_bth(rx);
		if (!counter && !rnic_rx_icrc_ok(rx))
			counter = RNIC_NL_COUNTER_DROP_BAD_ICRC;
	}
	if (!counter)
		return RNIC_RX_OK;
	rnic_dev_count(rx->rdev, counter);
	rnic_dbg_dev(rx->rdev, "udp: dropped a packet from %pI6c (counter %d)\n",
		     rx->av.sgid, counter);
	return RNIC_RX_DROP;
}

/**
 * rnic_udp_rcv() - the rx_handler of a bound netdev: take the RoCEv2
 *	packets for the device
 * @pskb: the packet; its IP header at ->data
 *
 * Context: softirq, in an RCU read-side critical section (the netdev's
 * receive path); the device bound to the netdev is its rx_handler_data.
 * Return: RX_HANDLER_CONSUMED for a packet taken (delivered or dropped),
 * RX_HANDLER_PASS for anything else.
 */
rx_handler_result_t rnic_udp_rcv(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct rnic_rx rx = {};
	enum rnic_rx_verdict v;

	/* not what the netdev sends and loops back (multicast) */
	if (skb->pkt_type != PACKET_HOST && skb->pkt_type != PACKET_MULTICAST)
		return RX_HANDLER_PASS;
	rx.rdev = rcu_dereference(skb->dev->rx_handler_data);
	/* the parse may pull headers: it needs its own skb */
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	*pskb = skb;
	rx.skb = skb;
	v = rnic_rx_parse(&rx);
	if (v == RNIC_RX_PASS)
		return RX_HANDLER_PASS;
	if (v == RNIC_RX_OK) {
		rx.av.route = RNIC_ROUTE_WIRE;
		rx.pkt.av = &rx.av;
		rx.pkt.dev = rx.rdev;
		rx.pkt.link = &rnic_udp_link;
		rx.pkt.skb = skb;
		if (skb->pkt_type == PACKET_MULTICAST)
			rnic_link_deliver_mcast(rx.rdev, &rx.pkt);
		else
			rnic_link_deliver(rx.rdev, &rx.pkt);
		consume_skb(skb);
	} else {
		kfree_skb(skb);
	}
	return RX_HANDLER_CONSUMED;
}

/* The wire carries one packet per PSN: the requester segments so. */
const struct rnic_link_ops rnic_udp_link = {
	.name = "udp",
	.xmit = rnic_udp_xmit,
	.from_peer = rnic_udp_from_peer,
	.max_burst = 0,
	.can_delay = true,
};
