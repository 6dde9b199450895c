// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the local link.
 *
 * Carries packets between rnic QPs of this host: the destination QP is
 * found by number (or, for a UD multicast GID, every QP attached to the
 * group on the sending device), and must be on a device of the sender's
 * network namespace that owns the destination GID, as on a network: two
 * namespaces may use the same addresses, and nothing crosses from one to
 * the other. The packet is handed over in a
 * function call; its payload stays in the sender's memory until the
 * receiver copies it into its own (struct rnic_payload). A packet with no
 * receiver is lost, as on a wire: the RC requester's timer finds out.
 *
 * A wire link (RoCEv2 over UDP) plugs in here: rnic_link_xmit() would
 * build an skb for a destination that is not local, and its receive path
 * would parse one into a struct rnic_pkt and call rnic_link_rcv(). What
 * a link can vouch for about a packet's sender is its own:
 * rnic_link_from_peer() is the local link's rule.
 */
#include "engine/engine.h"

/**
 * rnic_dev_has_gid() - is @gid in the device's GID table?
 * @rdev: the device
 * @gid: a GID, network byte order
 *
 * Context: any but hard interrupt; lockless (rnic_port.gid_seq).
 */
static bool rnic_dev_has_gid(struct rnic_dev *rdev, const u8 *gid)
{
	struct rnic_port *port = &rdev->port;
	unsigned int seq, i;
	bool found;

	do {
		seq = read_seqcount_begin(&port->gid_seq);
		found = false;
		for (i = 0; i < RNIC_GID_TABLE_LEN && !found; i++)
			found = port->gids[i].valid &&
				!memcmp(port->gids[i].raw, gid, 16);
	} while (read_seqcount_retry(&port->gid_seq, seq));
	return found;
}

/**
 * rnic_link_from_peer() - did an RC or UC packet come from the QP's peer?
 * @pkt: a request or a response that arrived for a connected QP
 * @dqpn: the QP's destination QP (rnic_resp.dqpn or rnic_req.dqpn)
 * @av: its path (rnic_resp.av or rnic_req.av)
 *
 * A connected QP talks to one peer: QP @dqpn, which sends from
 * @av->dgid to @av->sgid. The local link knows the sender of every
 * packet: the sending QP's own number and path, which the kernel filled
 * in (rnic_req_send(), rnic_resp_send()), and QP numbers are unique on
 * the host. So the rule is exact and cannot be spoofed: that QP, over
 * that pair of GIDs. A wire link has no source QP for RC and UC (no
 * DETH); its rule would compare the packet's IP source and destination
 * with @av as here (as rdma_rxe's check_addr() does), plus whatever else
 * the wire can vouch for.
 *
 * Context: the lock that protects @dqpn and @av held (rnic_qp_dp_apply()
 * writes them under both engine locks).
 * Return: true if it did; false: drop it, rnic_link_drop_stranger().
 */
bool rnic_link_from_peer(const struct rnic_pkt *pkt, u32 dqpn,
			 const struct rnic_av *av)
{
	return pkt->sqpn == dqpn &&
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

/*
 * Does @pkt reach @qp: is @qp's device in the sender's namespace, and does
 * it own the destination GID?
 */
static bool rnic_link_reaches(const struct rnic_pkt *pkt, struct rnic_qp *qp)
{
	return net_eq(rnic_dev_net(pkt->dev), rnic_dev_net(qp->rdev)) &&
	       rnic_dev_has_gid(qp->rdev, pkt->av->dgid);
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

/* Deliver @pkt to @qp if it reaches it (rnic_link_reaches()). */
static void rnic_link_deliver(struct rnic_pkt *pkt, struct rnic_qp *qp)
{
	if (rnic_link_reaches(pkt, qp))
		rnic_link_rcv(qp, pkt);
	else	/* on the sender's device: the QP's is not the destination */
		rnic_dev_count(pkt->dev, RNIC_NL_COUNTER_DROP_NOT_REACHED);
}

/**
 * rnic_link_xmit() - send a packet
 * @pkt: the packet; its payload stays valid during the call
 *
 * Context: BH disabled, in an RCU read-side critical section (the
 * requester's, rnic_req_send(): the receivers look QPs and MRs up under
 * it), no lock of the sending QP but (for responses) its responder's.
 */
void rnic_link_xmit(struct rnic_pkt *pkt)
{
	struct rnic_qp *qp;

	rnic_dev_count(pkt->dev, RNIC_NL_COUNTER_SENT_PKTS);
	/* Groups are the sending device's: its namespace's by construction. */
	if ((pkt->opcode & RNIC_TRANSPORT_MASK) == RNIC_TRANSPORT_UD &&
	    rnic_gid_is_mcast(pkt->av->dgid)) {
		rnic_mcast_deliver(pkt->dev, pkt->av->dgid, rnic_link_rcv, pkt);
		return;
	}
	/* A reply to a requester in its call: alive, no lookup needed. */
	qp = pkt->dst;
	if (qp && qp->qpn == pkt->dqpn) {
		rnic_link_deliver(pkt, qp);
		return;
	}
	qp = rnic_qp_lookup(pkt->dqpn);
	if (!qp) {
		rnic_dev_count(pkt->dev, RNIC_NL_COUNTER_DROP_NO_QP);
		return;
	}
	rnic_link_deliver(pkt, qp);
	rnic_qp_dp_put(qp);
}
