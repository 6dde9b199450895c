// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the local link.
 *
 * Carries packets between rnic devices of this host. Where a packet goes
 * was decided when its address was made (struct rnic_av.route, see
 * rnic_av_from_attr()); this file only follows the route. A multicast
 * route delivers to every QP attached to the group on the sending device,
 * and hands the packet to the udp link as well if the device is bound.
 * A local route delivers device first, as a network does: the device is
 * the one of the sender's network namespace that owns the destination GID
 * now (the GID map, rnic_gid_dev()), then the QP is that device's QP of
 * the destination number (rnic_qp_lookup()). Two namespaces may use the
 * same addresses, and nothing crosses from one to the other; a GID that
 * leaves its device (address removed, netdev moved, device removed)
 * stops delivery at once. QP 1 of every device is its GSI endpoint:
 * what arrives there goes to the connection manager (rnic_cm_gsi_rcv()),
 * which drops and counts what is not one of its MADs. The packet is handed over in a
 * function call; its payload stays in the sender's memory until the
 * receiver copies it into its own (struct rnic_payload). A packet with no
 * receiver is lost, as on a wire: the RC requester's timer finds out. A
 * packet that fault injection damaged (RNIC_PKT_CORRUPT) is dropped by
 * the receiving device before anything else, as a wire receiver drops a
 * bad ICRC.
 *
 * The udp link (link/udp.c, RoCEv2 through the bound netdev) is another
 * struct rnic_link_ops, with its own route for destinations that are not
 * local. Its receive path parses an skb into a struct rnic_pkt and hands
 * it to rnic_link_deliver() here, as the local link does: one dispatch,
 * device by destination GID, then QP by number. What a link can vouch
 * for about a packet's sender is its own: rnic_local_from_peer() is the
 * local link's rule, rnic_udp_from_peer() the udp link's.
 */
#include "engine/engine.h"

/**
 * rnic_local_from_peer() - did an RC or UC packet the local link carried
 *	come from the QP's peer?
 * @pkt: a request or a response that arrived for a connected QP
 * @path: the QP's path (rnic_qp.path)
 *
 * A connected QP talks to one peer: QP @path->dqpn, which sends from
 * @path->av.dgid to @path->av.sgid. The local link knows the sender of
 * every packet: the sending QP's own number and path, which the kernel
 * filled in (rnic_req_send(), rnic_resp_send()). QP numbers are a
 * device's, and the source GID is one of the sending device's. So the
 * rule is exact and cannot be spoofed: that QP, over that pair of GIDs,
 * as long as no two devices of a namespace own one GID (two netdevs
 * given one address, which only an administrator of the namespace can
 * do). A wire link has no source QP for RC and UC (no DETH); its rule
 * would compare the packet's IP source and destination with the path's
 * address as here (as rdma_rxe's check_addr() does), plus whatever else
 * the wire can vouch for.
 *
 * Context: one of the QP's engine locks held (struct rnic_path).
 * Return: true if it did; false: drop it, rnic_link_drop_stranger().
 */
bool rnic_local_from_peer(const struct rnic_pkt *pkt,
			  const struct rnic_path *path)
{
	const struct rnic_av *av = &path->av;

	return pkt->sqpn == path->dqpn &&
	       !memcmp(pkt->av->sgid, av->dgid, sizeof(av->dgid)) &&
	       !memcmp(pkt->av->dgid, av->sgid, sizeof(av->sgid));
}

/**
 * rnic_link_drop_stranger() - count and log a packet that a connected QP
 *	drops because it did not come from its peer
 * @qp: the QP
 * @pkt: the packet
 * @counter: RNIC_NL_COUNTER_REQ_NOT_PEER or RNIC_NL_COUNTER_RESP_NOT_PEER
 */
void rnic_link_drop_stranger(struct rnic_qp *qp, const struct rnic_pkt *pkt,
			     enum rnic_nl_counter counter)
{
	rnic_dev_count(qp->rdev, counter);
	rnic_dbg_qp(qp, "dropped opcode 0x%02x psn 0x%06x from QP %u at %pI6c: not the peer\n",
		    pkt->opcode, pkt->psn, pkt->sqpn, pkt->av->sgid);
}

/* A packet arrived for @qp: a request for its responder, or a response. */
static void rnic_link_rcv(struct rnic_qp *qp, void *arg)
{
	const struct rnic_pkt *pkt = arg;
	u8 oper = pkt->opcode & RNIC_OPER_MASK;

	rnic_dev_count(qp->rdev, RNIC_NL_COUNTER_RCVD_PKTS);
	if (oper >= RNIC_READ_RESP_FIRST && oper <= RNIC_ATOMIC_ACK)
		rnic_comp_rcv(qp, pkt);
	else
		rnic_resp_rcv(qp, pkt);
}

/*
 * Did @pkt arrive damaged at @rdev (fault injection, RNIC_PKT_CORRUPT)?
 * Then it is dropped first, as a wire receiver drops a bad ICRC.
 */
static bool rnic_link_corrupt(struct rnic_dev *rdev, const struct rnic_pkt *pkt)
{
	if (likely(!(pkt->flags & RNIC_PKT_CORRUPT)))
		return false;
	rnic_dev_count(rdev, RNIC_NL_COUNTER_DROP_BAD_ICRC);
	return true;
}

/**
 * rnic_link_deliver() - deliver a packet to a QP of the device that owns
 *	its destination GID
 * @rdev: the device: of the sender's namespace (local link), or bound to
 *	the netdev the packet arrived on (udp link)
 * @pkt: the packet, @pkt->link set
 *
 * QP 1 is the GSI endpoint: the connection manager's; a QP
 * number the device does not have is counted in drop_no_qp.
 *
 * Context: BH disabled, in an RCU read-side critical section.
 */
void rnic_link_deliver(struct rnic_dev *rdev, struct rnic_pkt *pkt)
{
	struct rnic_qp *qp = pkt->dst;

	if (pkt->dqpn == RNIC_QPN_GSI) {
		rnic_cm_gsi_rcv(rdev, pkt);
		return;
	}
	/* A reply to a requester in its call: alive, no lookup needed. */
	if (qp && qp->rdev == rdev && qp->qpn == pkt->dqpn) {
		rnic_link_rcv(qp, pkt);
		return;
	}
	qp = rnic_qp_lookup(rdev, pkt->dqpn);
	if (!qp) {
		rnic_dev_count(rdev, RNIC_NL_COUNTER_DROP_NO_QP);
		return;
	}
	rnic_link_rcv(qp, pkt);
	rnic_qp_dp_put(qp);
}

/**
 * rnic_link_deliver_mcast() - deliver a datagram that came to a group
 * @rdev: the device bound to the netdev it arrived on; a QP of it is
 *	attached to the packet's destination GID
 * @pkt: the packet, @pkt->link set
 *
 * Only a UD packet to QP 0xffffff is for a group's members (IBTA);
 * anything else is counted in drop_no_qp.
 *
 * Context: BH disabled, in an RCU read-side critical section.
 */
void rnic_link_deliver_mcast(struct rnic_dev *rdev, struct rnic_pkt *pkt)
{
	if (pkt->dqpn != RNIC_QPN_MCAST ||
	    (pkt->opcode & RNIC_TRANSPORT_MASK) != RNIC_TRANSPORT_UD) {
		rnic_dev_count(rdev, RNIC_NL_COUNTER_DROP_NO_QP);
		return;
	}
	rnic_mcast_deliver(rdev, pkt->av->dgid, rnic_link_rcv, pkt);
}

/**
 * rnic_local_xmit() - the local link's xmit: deliver a packet along its
 *	route in this call
 * @pkt: the packet
 *
 * A datagram to a group goes to the sending device's members here, and
 * if the device is bound, to the wire too (the udp link), where other
 * hosts' members are.
 *
 * Context: see rnic_link_xmit().
 * Return: 0: what the receiver makes of it is the receiver's; for a
 * group on a bound device, what the udp link said.
 */
int rnic_local_xmit(struct rnic_pkt *pkt)
{
	struct rnic_dev *rdev;

	pkt->link = &rnic_local_link;
	switch (pkt->av->route) {
	case RNIC_ROUTE_MCAST:
		/* UD only (a connected QP's path is unicast) */
		if (!rnic_link_corrupt(pkt->dev, pkt))
			rnic_mcast_deliver(pkt->dev, pkt->av->dgid,
					   rnic_link_rcv, pkt);
		if (READ_ONCE(pkt->dev->netdev))
			return rnic_udp_xmit(pkt);
		break;
	case RNIC_ROUTE_LOCAL:
		rdev = rnic_gid_dev(rnic_dev_net(pkt->dev), pkt->av->dgid);
		if (!rdev)	/* the GID left its device after the route was chosen */
			rnic_dev_count(pkt->dev, RNIC_NL_COUNTER_DROP_NOT_REACHED);
		else if (!rnic_link_corrupt(rdev, pkt))
			rnic_link_deliver(rdev, pkt);
		break;
	}
	return 0;
}

/*
 * The local link delivers a burst of packets in one call: the receiver
 * copies its payload at once, and per-packet costs are paid once. It
 * cannot hold a packet back (fault injection's delay).
 */
const struct rnic_link_ops rnic_local_link = {
	.name = "local",
	.xmit = rnic_local_xmit,
	.from_peer = rnic_local_from_peer,
	.max_burst = RNIC_BURST_BYTES,
};
