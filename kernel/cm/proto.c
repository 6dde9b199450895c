// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the IB CM protocol (IBTA vol. 1 ch. 12) with
 * the kernel rdma_cm's private data header, so that rnic connects to the
 * kernel's rdma_cm over rdma_rxe as to itself.
 *
 * Messages are MADs (management class 0x07, class version 2, method
 * SEND) carried as UD datagrams from QP 1 to QP 1 (Q_Key 0x80010000) of
 * the devices, on the link the path takes: rnic_cm_mad_xmit() hands one
 * to the link like any packet; the link hands one that arrived at QP 1
 * to rnic_cm_gsi_rcv() (softirq), which copies it and queues a work item
 * that handles it under rnic_cm_lock (rnic_cm_mad_work()), in the order
 * the MADs came (the workqueue is ordered).
 *
 * A connection, active side: CONNECT sends a REQ (REQ_SENT); the REP
 * queues CONNECT_RESPONSE (REP_RCVD); ESTABLISH sends the RTU
 * (ESTABLISHED). Passive side: a REQ makes a new id on the listener's
 * file and queues CONNECT_REQUEST (REQ_RCVD); ACCEPT sends the REP
 * (REP_SENT); the RTU queues ESTABLISHED. REJECT, or no listener, sends
 * a REJ (REJECTED at the other side). DISCONNECT sends a DREQ (DREQ_SENT)
 * or, after the peer's (DREQ_RCVD), the DREP; both sides then wait out
 * the time in which packets of the connection can be in flight
 * (TIMEWAIT) and get TIMEWAIT_EXIT.
 *
 * A message that waits for an answer (REQ, REP, DREQ) is kept in
 * rnic_cm_conn.mad and sent again by the id's timer after the peer's
 * response time, up to the retries the REQ names; then the id gives up
 * (UNREACHABLE, CONNECT_ERROR, or DISCONNECTED). A duplicate of a
 * message already answered gets the answer again (REP to a REQ, RTU to a
 * REP, DREP to a DREQ). Every field of a received message is checked
 * before it is used; what does not fit the id's state is dropped.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <asm/unaligned.h>

#include "cm/cm.h"
#include "engine/engine.h"

/* MAD header (IBTA 13.4.3) */
#define RNIC_MAD_BASE_VERSION	1
#define RNIC_MAD_CLASS_CM	0x07
#define RNIC_MAD_CM_VERSION	2
#define RNIC_MAD_METHOD_SEND	0x03
#define RNIC_MAD_HDR_SIZE	24

/* CM attribute ids (IBTA 12.6.1) */
#define RNIC_CM_ATTR_REQ	0x0010
#define RNIC_CM_ATTR_MRA	0x0011
#define RNIC_CM_ATTR_REJ	0x0012
#define RNIC_CM_ATTR_REP	0x0013
#define RNIC_CM_ATTR_RTU	0x0014
#define RNIC_CM_ATTR_DREQ	0x0015
#define RNIC_CM_ATTR_DREP	0x0016
#define RNIC_CM_ATTR_SIDR_REQ	0x0017
#define RNIC_CM_ATTR_SIDR_REP	0x0018

/* REJ's "message rejected" */
#define RNIC_CM_REJ_MSG_REQ	0
#define RNIC_CM_REJ_MSG_REP	1
#define RNIC_CM_REJ_MSG_OTHER	2

/*
 * Timing: the response timeout both sides ask for (4.096 us * 2^20, about
 * 4.3 s) and the retries, the kernel rdma_cm's values; a module
 * parameter makes them shorter for tests of a peer that is gone.
 */
#define RNIC_CM_RESPONSE_TIMEOUT 20
static unsigned int cm_retries = 15;
module_param(cm_retries, uint, 0644);
MODULE_PARM_DESC(cm_retries, "times the CM sends a REQ, REP or DREQ again (default 15)");
static unsigned int cm_timeout_ms = 4295;
module_param(cm_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cm_timeout_ms, "milliseconds the CM waits for an answer before sending again (default 4295)");

/*
 * A field of a message: its first byte (from the start of the message,
 * after the MAD header), the bit it starts at (0: the byte's most
 * significant) and its width, as IBTA's tables give them. Fields are big
 * endian and at most 64 bits.
 */
struct rnic_cm_field {
	u16 byte;
	u8 bit;
	u8 bits;
};

#define F(b, o, w) ((struct rnic_cm_field){ .byte = (b), .bit = (o), .bits = (w) })

/* REQ (IBTA table 106) */
#define REQ_LOCAL_COMM_ID	F(0, 0, 32)
#define REQ_SERVICE_ID		F(8, 0, 64)
#define REQ_LOCAL_CA_GUID	F(16, 0, 64)
#define REQ_LOCAL_QKEY		F(28, 0, 32)
#define REQ_LOCAL_QPN		F(32, 0, 24)
#define REQ_RESP_RESOURCES	F(35, 0, 8)
#define REQ_INIT_DEPTH		F(39, 0, 8)
#define REQ_REMOTE_RESP_TIMEOUT	F(43, 0, 5)
#define REQ_TRANSPORT		F(43, 5, 2)
#define REQ_FLOW_CONTROL	F(43, 7, 1)
#define REQ_STARTING_PSN	F(44, 0, 24)
#define REQ_LOCAL_RESP_TIMEOUT	F(47, 0, 5)
#define REQ_RETRY_COUNT		F(47, 5, 3)
#define REQ_PKEY		F(48, 0, 16)
#define REQ_PATH_MTU		F(50, 0, 4)
#define REQ_RNR_RETRY		F(50, 5, 3)
#define REQ_MAX_CM_RETRIES	F(51, 0, 4)
#define REQ_SRQ			F(51, 4, 1)
#define REQ_LOCAL_LID		F(52, 0, 16)
#define REQ_REMOTE_LID		F(54, 0, 16)
#define REQ_LOCAL_GID		56
#define REQ_REMOTE_GID		72
#define REQ_FLOW_LABEL		F(88, 0, 20)
#define REQ_PACKET_RATE		F(91, 2, 6)
#define REQ_TRAFFIC_CLASS	F(92, 0, 8)
#define REQ_HOP_LIMIT		F(93, 0, 8)
#define REQ_SL			F(94, 0, 4)
#define REQ_LOCAL_ACK_TIMEOUT	F(95, 0, 5)
#define REQ_PRIVATE_DATA	140
#define REQ_PRIVATE_DATA_LEN	92

/* REP (table 108) */
#define REP_LOCAL_COMM_ID	F(0, 0, 32)
#define REP_REMOTE_COMM_ID	F(4, 0, 32)
#define REP_LOCAL_QKEY		F(8, 0, 32)
#define REP_LOCAL_QPN		F(12, 0, 24)
#define REP_STARTING_PSN	F(20, 0, 24)
#define REP_RESP_RESOURCES	F(24, 0, 8)
#define REP_INIT_DEPTH		F(25, 0, 8)
#define REP_TARGET_ACK_DELAY	F(26, 0, 5)
#define REP_FLOW_CONTROL	F(26, 7, 1)
#define REP_RNR_RETRY		F(27, 0, 3)
#define REP_SRQ			F(27, 3, 1)
#define REP_LOCAL_CA_GUID	F(28, 0, 64)
#define REP_PRIVATE_DATA	36
#define REP_PRIVATE_DATA_LEN	196

/* RTU, DREQ, DREP (tables 110, 112, 113) */
#define MSG_LOCAL_COMM_ID	F(0, 0, 32)
#define MSG_REMOTE_COMM_ID	F(4, 0, 32)
#define RTU_PRIVATE_DATA	8
#define RTU_PRIVATE_DATA_LEN	224
#define DREQ_REMOTE_QPN		F(8, 0, 24)
#define DREQ_PRIVATE_DATA	12
#define DREQ_PRIVATE_DATA_LEN	220
#define DREP_PRIVATE_DATA	8
#define DREP_PRIVATE_DATA_LEN	224

/* REJ (table 109) */
#define REJ_MSG_REJECTED	F(8, 0, 2)
#define REJ_INFO_LEN		F(9, 0, 7)
#define REJ_ARI			12
#define REJ_REASON		F(10, 0, 16)
#define REJ_PRIVATE_DATA	84
#define REJ_PRIVATE_DATA_LEN	148

/* MRA (table 107): only its comm ids are read */

/* SIDR_REQ, SIDR_REP (tables 119, 120) */
#define SIDR_REQUEST_ID		F(0, 0, 32)
#define SIDR_REQ_PKEY		F(4, 0, 16)
#define SIDR_REQ_SERVICE_ID	F(8, 0, 64)
#define SIDR_REQ_PRIVATE_DATA	16
#define SIDR_REQ_PRIVATE_DATA_LEN 216
#define SIDR_REP_STATUS		F(4, 0, 8)
#define SIDR_REP_QPN		F(8, 0, 24)
#define SIDR_REP_SERVICE_ID	F(12, 0, 64)
#define SIDR_REP_QKEY		F(20, 0, 32)
#define SIDR_REP_PRIVATE_DATA	96
#define SIDR_REP_PRIVATE_DATA_LEN 136

/* SIDR_REP's status (IBTA table 121) */
#define RNIC_CM_SIDR_SUCCESS	0
#define RNIC_CM_SIDR_UNSUPPORTED 1
#define RNIC_CM_SIDR_REJECT	2

/*
 * The kernel rdma_cm's header in front of a REQ's private data (IP port
 * spaces): version 0, IP version in the high nibble, the active side's
 * port, its address and the passive side's (IPv4 in the last 4 bytes).
 */
#define CMA_HDR_LEN		36
#define CMA_VERSION		0x00

static u64 rnic_cm_get(const u8 *msg, struct rnic_cm_field f)
{
	unsigned int nbytes = (f.bit + f.bits + 7) / 8, i;
	u64 v = 0;

	for (i = 0; i < nbytes; i++)
		v = v << 8 | msg[f.byte + i];
	v >>= nbytes * 8 - f.bit - f.bits;
	return f.bits == 64 ? v : v & GENMASK_ULL(f.bits - 1, 0);
}

static void rnic_cm_put(u8 *msg, struct rnic_cm_field f, u64 val)
{
	unsigned int nbytes = (f.bit + f.bits + 7) / 8, i;
	unsigned int shift = nbytes * 8 - f.bit - f.bits;
	u64 mask = (f.bits == 64 ? ~0ULL : GENMASK_ULL(f.bits - 1, 0)) << shift;
	u64 v = 0;

	for (i = 0; i < nbytes; i++)
		v = v << 8 | msg[f.byte + i];
	v = (v & ~mask) | ((val << shift) & mask);
	for (i = nbytes; i--; v >>= 8)
		msg[f.byte + i] = v & 0xff;
}

/* The comm ids of this side's connections: local comm id -> id */
static DEFINE_XARRAY_ALLOC1(rnic_cm_comm_ids);
static u32 rnic_cm_comm_next;

/* Passive ids by the peer's comm id, to find a REQ's duplicates */
static DEFINE_HASHTABLE(rnic_cm_remote, 8);

/* MADs received and not yet handled, at most RNIC_CM_MADS_MAX */
static atomic_t rnic_cm_mads_queued = ATOMIC_INIT(0);
#define RNIC_CM_MADS_MAX	1024

static u8 *rnic_cm_msg(u8 *mad)
{
	return mad + RNIC_MAD_HDR_SIZE;
}

/* Start a MAD: the header of attribute @attr_id, transaction @tid. */
static u8 *rnic_cm_mad_init(u8 *mad, u16 attr_id, u64 tid)
{
	memset(mad, 0, RNIC_CM_MAD_SIZE);
	mad[0] = RNIC_MAD_BASE_VERSION;
	mad[1] = RNIC_MAD_CLASS_CM;
	mad[2] = RNIC_MAD_CM_VERSION;
	mad[3] = RNIC_MAD_METHOD_SEND;
	put_unaligned_be64(tid, mad + 8);
	put_unaligned_be16(attr_id, mad + 16);
	return rnic_cm_msg(mad);
}

/*
 * Send a MAD from QP 1 of @rdev along @av to QP 1 of the peer.
 * Return: 0 or what the link said (the message is lost; a retry or the
 * peer's finds out).
 */
static int rnic_cm_mad_xmit(struct rnic_dev *rdev, const struct rnic_av *av,
			    const u8 *mad)
{
	struct rnic_payload pl = { .inline_data = mad };
	struct rnic_pkt pkt = {
		.opcode = RNIC_TRANSPORT_UD | RNIC_SEND_ONLY,
		.dqpn = RNIC_QPN_GSI,
		.sqpn = RNIC_QPN_GSI,
		.qkey = RNIC_CM_GSI_QKEY,
		.npkts = 1,
		.av = av,
		.dev = rdev,
		.len = RNIC_CM_MAD_SIZE,
		.payload = &pl,
	};
	int ret;

	if (!READ_ONCE(rdev->live))
		return -ENODEV;
	rcu_read_lock();
	local_bh_disable();
	ret = rnic_link_xmit(&pkt);
	local_bh_enable();
	rcu_read_unlock();
	return ret;
}

static void rnic_cm_send(struct rnic_cm_id *id, const u8 *mad)
{
	rnic_cm_mad_xmit(id->rdev, &id->av, mad);
}

/* Arm the id's timer (one reference while pending). */
static void rnic_cm_timer_arm(struct rnic_cm_id *id, unsigned long ms)
{
	if (!delayed_work_pending(&id->timer))
		kref_get(&id->ref);
	mod_delayed_work(rnic_cm_wq, &id->timer, msecs_to_jiffies(ms));
}

static void rnic_cm_timer_cancel(struct rnic_cm_id *id)
{
	if (cancel_delayed_work(&id->timer))
		rnic_cm_id_put(id);
}

/* Send the message that waits for an answer, and wait for it. */
static void rnic_cm_send_wait(struct rnic_cm_id *id)
{
	id->conn.retries = 0;
	rnic_cm_send(id, id->conn.mad);
	rnic_cm_timer_arm(id, id->conn.resp_timeout_ms);
}

/*
 * The time packets of a connection may still be in flight after it
 * ends: twice the QP's ACK timeout, at least 100 ms.
 */
static unsigned long rnic_cm_timewait_ms(const struct rnic_cm_id *id)
{
	u64 us = 4ULL << id->ack_timeout;

	return max_t(u64, 100, 2 * us / 1000);
}

/*
 * The peers' QPs of this side's connections, by QPN and CA GUID. A REQ
 * or REP that names one of them again while its connection lives, or
 * while that connection's packets may still be in flight, is for a stale
 * connection: it is rejected (reason 10) and the old connection, if
 * established, gets a DREQ, as the kernel's IB CM does. A record is made
 * when the peer's QPN becomes known (a REQ or a REP taken) and belongs
 * to the id while the id has the connection (@id, rnic_cm_conn.peer_qp);
 * when the connection ends or its id goes first, the record stays for
 * the time wait (@expires, on rnic_cm_peer_qps_ending) and the reaper
 * frees it then: destroying an id at once after DISCONNECTED, as most
 * programs do, does not make the peer's QPN fresh. A device's records go
 * with it. rnic_cm_lock protects the records, the table and the list.
 */
struct rnic_cm_peer_qp {
	struct hlist_node node;
	struct list_head ending;
	struct rnic_cm_id *id;
	struct rnic_dev *rdev;	/* no reference: dropped before it goes */
	__be64 guid;
	u32 qpn;
	unsigned long expires;
};

static DEFINE_HASHTABLE(rnic_cm_peer_qps, 8);
static LIST_HEAD(rnic_cm_peer_qps_ending);
static void rnic_cm_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(rnic_cm_reaper, rnic_cm_reap);

/*
 * The record of the peer's QP @qpn of CA @guid, if a connection of this
 * side uses it or one that may still have packets in flight did: a new
 * connection to it would be stale.
 */
static struct rnic_cm_peer_qp *rnic_cm_peer_qp_find(u32 qpn, __be64 guid)
{
	struct rnic_cm_peer_qp *p;

	hash_for_each_possible(rnic_cm_peer_qps, p, node, qpn)
		if (p->qpn == qpn && p->guid == guid)
			return p;
	return NULL;
}

/* Record the peer's QP of @id's connection: 0 or -ENOMEM. */
static int rnic_cm_peer_qp_add(struct rnic_cm_id *id)
{
	struct rnic_cm_peer_qp *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	p->id = id;
	p->rdev = id->rdev;
	p->guid = id->conn.remote_guid;
	p->qpn = id->conn.remote_qpn;
	INIT_LIST_HEAD(&p->ending);
	hash_add(rnic_cm_peer_qps, &p->node, p->qpn);
	id->conn.peer_qp = p;
	return 0;
}

static void rnic_cm_peer_qp_free(struct rnic_cm_peer_qp *p)
{
	hash_del(&p->node);
	list_del(&p->ending);
	kfree(p);
}

/*
 * May packets of @id's connection still be in flight? From the REP on,
 * both QPs may send, until the time wait is over.
 */
static bool rnic_cm_may_have_packets(const struct rnic_cm_id *id)
{
	return id->state == RNIC_CM_REP_RCVD ||
	       (id->state >= RNIC_CM_REP_SENT && id->state <= RNIC_CM_TIMEWAIT);
}

/* @id lets go of its peer's QP: freed now, or after the time wait. */
static void rnic_cm_peer_qp_end(struct rnic_cm_id *id)
{
	struct rnic_cm_peer_qp *p = id->conn.peer_qp;
	unsigned long ms = rnic_cm_timewait_ms(id);

	if (!p)
		return;
	id->conn.peer_qp = NULL;
	if (!rnic_cm_may_have_packets(id)) {
		rnic_cm_peer_qp_free(p);
		return;
	}
	p->id = NULL;
	p->expires = jiffies + msecs_to_jiffies(ms);
	list_add_tail(&p->ending, &rnic_cm_peer_qps_ending);
	/*
	 * Pending already: the reaper runs for another record first and
	 * re-arms for the earliest left; if that is later than this one's
	 * end, this record lives longer than it must, never shorter.
	 */
	queue_delayed_work(rnic_cm_wq, &rnic_cm_reaper, msecs_to_jiffies(ms));
}

/* The reaper: free the records whose time wait is over. */
static void rnic_cm_reap(struct work_struct *work)
{
	struct rnic_cm_peer_qp *p, *next;
	unsigned long now = jiffies, first = 0;
	bool more = false;

	mutex_lock(&rnic_cm_lock);
	list_for_each_entry_safe(p, next, &rnic_cm_peer_qps_ending, ending) {
		if (time_after_eq(now, p->expires)) {
			rnic_cm_peer_qp_free(p);
		} else if (!more || time_before(p->expires, first)) {
			first = p->expires;
			more = true;
		}
	}
	if (more)
		queue_delayed_work(rnic_cm_wq, &rnic_cm_reaper, first - now);
	mutex_unlock(&rnic_cm_lock);
}

/* The connection of @id is over (or never was): its comm id goes. */
static void rnic_cm_comm_id_free(struct rnic_cm_id *id)
{
	if (id->conn.local_comm_id) {
		xa_erase(&rnic_cm_comm_ids, id->conn.local_comm_id);
		id->conn.local_comm_id = 0;
	}
	hash_del(&id->remote_node);
	rnic_cm_peer_qp_end(id);
}

static int rnic_cm_comm_id_alloc(struct rnic_cm_id *id)
{
	int ret = xa_alloc_cyclic(&rnic_cm_comm_ids, &id->conn.local_comm_id,
				  id, xa_limit_32b, &rnic_cm_comm_next,
				  GFP_KERNEL);

	return ret < 0 ? ret : 0;
}

/* The connection is over: wait out its packets, then TIMEWAIT_EXIT. */
static void rnic_cm_enter_timewait(struct rnic_cm_id *id)
{
	id->state = RNIC_CM_TIMEWAIT;
	rnic_cm_timer_arm(id, rnic_cm_timewait_ms(id));
}

/* Fill an event's connection parameters from a message's fields. */
static void rnic_cm_event_pdata(struct rnic_cm_event *ev, const u8 *pdata,
				unsigned int len)
{
	if (!ev)
		return;
	memcpy(ev->desc.out_conn.private_data, pdata, len);
	ev->desc.out_conn.private_data_len = len;
}

/* A REJ: to the id's peer, or (@id NULL) to the sender of a REQ. */
static void rnic_cm_fill_rej(u8 *mad, u64 tid, u32 local, u32 remote,
			     u8 msg_rejected, u16 reason, const u8 *pdata,
			     u8 len)
{
	u8 *msg = rnic_cm_mad_init(mad, RNIC_CM_ATTR_REJ, tid);

	rnic_cm_put(msg, MSG_LOCAL_COMM_ID, local);
	rnic_cm_put(msg, MSG_REMOTE_COMM_ID, remote);
	rnic_cm_put(msg, REJ_MSG_REJECTED, msg_rejected);
	rnic_cm_put(msg, REJ_REASON, reason);
	if (len)
		memcpy(msg + REJ_PRIVATE_DATA, pdata, len);
}

/*
 * A REJ of reason timeout carries the sender's CA GUID in its ARI (IBTA
 * 12.6.7.2, as the kernel's IB CM sends it): a peer that has no comm id
 * of this side yet finds its request by it and the sender's comm id.
 */
static void rnic_cm_rej_ari_guid(u8 *mad, __be64 guid)
{
	u8 *msg = rnic_cm_msg(mad);

	rnic_cm_put(msg, REJ_INFO_LEN, sizeof(guid));
	memcpy(msg + REJ_ARI, &guid, sizeof(guid));
}

/* The kernel rdma_cm's header: the id's addresses, its source port. */
static void rnic_cm_put_cma_hdr(const struct rnic_cm_id *id, u8 *hdr)
{
	hdr[0] = CMA_VERSION;
	hdr[1] = (id->src.ss_family == AF_INET ? 4 : 6) << 4;
	put_unaligned_be16(rnic_cm_port(&id->src), hdr + 2);
	memcpy(hdr + 4, id->av.sgid, 16);
	memcpy(hdr + 20, id->av.dgid, 16);
	if (id->src.ss_family == AF_INET) {
		memset(hdr + 4, 0, 12);
		memset(hdr + 20, 0, 12);
	}
}

/* The service id of the id's destination (its port space and port) */
static u64 rnic_cm_service_id(const struct rnic_cm_id *id,
			      const struct sockaddr_storage *addr)
{
	return (u64)id->ps << 16 | rnic_cm_port(addr);
}

/* UD: a SIDR_REQ asks the peer's listener for its QP and Q_Key. */
static int rnic_cm_sidr_connect(struct rnic_cm_id *id,
				const struct rnic_cm_conn_param *param)
{
	struct rnic_cm_conn *c = &id->conn;
	u8 *msg;
	int ret;

	ret = rnic_cm_comm_id_alloc(id);
	if (ret)
		return ret;
	c->tid = (u64)get_random_u32() << 32 | c->local_comm_id;
	c->resp_timeout_ms = READ_ONCE(cm_timeout_ms);
	c->max_retries = min(READ_ONCE(cm_retries), 15U);
	msg = rnic_cm_mad_init(c->mad, RNIC_CM_ATTR_SIDR_REQ, c->tid);
	rnic_cm_put(msg, SIDR_REQUEST_ID, c->local_comm_id);
	rnic_cm_put(msg, SIDR_REQ_PKEY, RNIC_PKEY_DEFAULT);
	rnic_cm_put(msg, SIDR_REQ_SERVICE_ID, rnic_cm_service_id(id, &id->dst));
	rnic_cm_put_cma_hdr(id, msg + SIDR_REQ_PRIVATE_DATA);
	memcpy(msg + SIDR_REQ_PRIVATE_DATA + CMA_HDR_LEN, param->private_data,
	       param->private_data_len);
	id->state = RNIC_CM_REQ_SENT;
	rnic_cm_send_wait(id);
	return 0;
}

/**
 * rnic_cm_connect() - send a REQ for an id whose route is resolved
 * @id: the id
 * @param: the QP and parameters, checked
 *
 * Context: rnic_cm_lock held.
 * A UD id sends a SIDR_REQ instead: the peer answers with its QP.
 *
 * Return: 0, -EINVAL (state), -EOPNOTSUPP (the IB port space), -ENOMEM.
 */
int rnic_cm_connect(struct rnic_cm_id *id,
		    const struct rnic_cm_conn_param *param)
{
	struct rnic_cm_conn *c = &id->conn;
	u8 *msg, *hdr;
	int ret;

	if (id->ps == RNIC_CM_PS_IB)
		return -EOPNOTSUPP;
	if (id->state != RNIC_CM_ROUTE_RESOLVED)
		return -EINVAL;
	if (id->qp_type == RNIC_QPT_UD)
		return rnic_cm_sidr_connect(id, param);
	ret = rnic_cm_comm_id_alloc(id);
	if (ret)
		return ret;
	c->qpn = param->qp_num;
	c->psn = get_random_u32() & RNIC_PSN_MASK;
	c->responder_resources = min_t(u8, param->responder_resources,
				       RNIC_MAX_RD_ATOM);
	c->initiator_depth = min_t(u8, param->initiator_depth,
				   RNIC_MAX_RD_ATOM);
	c->retry_count = param->retry_count;
	c->rnr_retry_count = param->rnr_retry_count;
	c->srq = param->srq;
	c->flow_control = param->flow_control;
	c->tid = (u64)get_random_u32() << 32 | c->local_comm_id;
	c->resp_timeout_ms = READ_ONCE(cm_timeout_ms);
	c->max_retries = min(READ_ONCE(cm_retries), 15U);

	msg = rnic_cm_mad_init(c->mad, RNIC_CM_ATTR_REQ, c->tid);
	rnic_cm_put(msg, REQ_LOCAL_COMM_ID, c->local_comm_id);
	rnic_cm_put(msg, REQ_SERVICE_ID, rnic_cm_service_id(id, &id->dst));
	rnic_cm_put(msg, REQ_LOCAL_CA_GUID, be64_to_cpu(id->rdev->node_guid));
	rnic_cm_put(msg, REQ_LOCAL_QPN, c->qpn);
	rnic_cm_put(msg, REQ_RESP_RESOURCES, c->responder_resources);
	rnic_cm_put(msg, REQ_INIT_DEPTH, c->initiator_depth);
	rnic_cm_put(msg, REQ_REMOTE_RESP_TIMEOUT, RNIC_CM_RESPONSE_TIMEOUT);
	rnic_cm_put(msg, REQ_TRANSPORT, 0);	/* RC */
	rnic_cm_put(msg, REQ_FLOW_CONTROL, c->flow_control);
	rnic_cm_put(msg, REQ_STARTING_PSN, c->psn);
	rnic_cm_put(msg, REQ_LOCAL_RESP_TIMEOUT, RNIC_CM_RESPONSE_TIMEOUT);
	rnic_cm_put(msg, REQ_RETRY_COUNT, c->retry_count);
	rnic_cm_put(msg, REQ_PKEY, RNIC_PKEY_DEFAULT);
	rnic_cm_put(msg, REQ_PATH_MTU, id->mtu);
	rnic_cm_put(msg, REQ_RNR_RETRY, c->rnr_retry_count);
	rnic_cm_put(msg, REQ_MAX_CM_RETRIES, c->max_retries);
	rnic_cm_put(msg, REQ_SRQ, c->srq);
	/* RoCE has no LIDs: the permissive LID, as the kernel's CM sends */
	rnic_cm_put(msg, REQ_LOCAL_LID, 0xffff);
	rnic_cm_put(msg, REQ_REMOTE_LID, 0xffff);
	memcpy(msg + REQ_LOCAL_GID, id->av.sgid, 16);
	memcpy(msg + REQ_REMOTE_GID, id->av.dgid, 16);
	rnic_cm_put(msg, REQ_FLOW_LABEL, id->av.flow_label);
	rnic_cm_put(msg, REQ_PACKET_RATE, id->av.static_rate);
	rnic_cm_put(msg, REQ_TRAFFIC_CLASS, id->av.traffic_class);
	rnic_cm_put(msg, REQ_HOP_LIMIT, id->av.hop_limit);
	rnic_cm_put(msg, REQ_SL, id->av.sl);
	rnic_cm_put(msg, REQ_LOCAL_ACK_TIMEOUT, id->ack_timeout);

	hdr = msg + REQ_PRIVATE_DATA;
	rnic_cm_put_cma_hdr(id, hdr);
	memcpy(hdr + CMA_HDR_LEN, param->private_data,
	       param->private_data_len);

	id->state = RNIC_CM_REQ_SENT;
	rnic_cm_send_wait(id);
	return 0;
}

/* The REP of an accepted request, from the id's agreed parameters. */
static void rnic_cm_fill_rep(struct rnic_cm_id *id,
			     const struct rnic_cm_conn_param *param)
{
	struct rnic_cm_conn *c = &id->conn;
	u8 *msg = rnic_cm_mad_init(c->mad, RNIC_CM_ATTR_REP, c->tid);

	rnic_cm_put(msg, REP_LOCAL_COMM_ID, c->local_comm_id);
	rnic_cm_put(msg, REP_REMOTE_COMM_ID, c->remote_comm_id);
	rnic_cm_put(msg, REP_LOCAL_QPN, c->qpn);
	rnic_cm_put(msg, REP_STARTING_PSN, c->psn);
	rnic_cm_put(msg, REP_RESP_RESOURCES, c->responder_resources);
	rnic_cm_put(msg, REP_INIT_DEPTH, c->initiator_depth);
	rnic_cm_put(msg, REP_FLOW_CONTROL, c->flow_control);
	/* the RNR retries the active side's QP is to make */
	rnic_cm_put(msg, REP_RNR_RETRY, param->rnr_retry_count);
	rnic_cm_put(msg, REP_SRQ, c->srq);
	rnic_cm_put(msg, REP_LOCAL_CA_GUID, be64_to_cpu(id->rdev->node_guid));
	memcpy(msg + REP_PRIVATE_DATA, param->private_data,
	       param->private_data_len);
}

/* A request's id is answered: its listener's backlog has room again. */
static void rnic_cm_request_done(struct rnic_cm_id *id)
{
	if (!id->listener)
		return;
	id->listener->pending--;
	rnic_cm_id_put(id->listener);
	id->listener = NULL;
}

/*
 * Answer a SIDR_REQ: its listener's QP (@status RNIC_CM_SIDR_SUCCESS) or
 * why not. The answer is kept for duplicates of the request; the id is
 * done.
 */
static void rnic_cm_sidr_rep(struct rnic_cm_id *id, u8 status, u32 qpn,
			     const u8 *pdata, u8 len)
{
	struct rnic_cm_conn *c = &id->conn;
	u8 *msg = rnic_cm_mad_init(c->mad, RNIC_CM_ATTR_SIDR_REP, c->tid);

	rnic_cm_put(msg, SIDR_REQUEST_ID, c->remote_comm_id);
	rnic_cm_put(msg, SIDR_REP_STATUS, status);
	if (status == RNIC_CM_SIDR_SUCCESS) {
		rnic_cm_put(msg, SIDR_REP_QPN, qpn);
		rnic_cm_put(msg, SIDR_REP_QKEY, RNIC_CM_UDP_QKEY);
	}
	rnic_cm_put(msg, SIDR_REP_SERVICE_ID, rnic_cm_service_id(id, &id->src));
	memcpy(msg + SIDR_REP_PRIVATE_DATA, pdata, len);
	rnic_cm_send(id, c->mad);
	rnic_cm_request_done(id);
	id->state = RNIC_CM_DONE;
}

/**
 * rnic_cm_accept() - accept a connection request: send the REP
 * @id: a request's id
 * @param: its QP (in RTS already, with INIT_QP_ATTR's attributes) and
 *	parameters, checked
 *
 * Context: rnic_cm_lock held.
 * Return: 0 or -EINVAL (state).
 */
int rnic_cm_accept(struct rnic_cm_id *id,
		   const struct rnic_cm_conn_param *param)
{
	struct rnic_cm_conn *c = &id->conn;

	if (id->state != RNIC_CM_REQ_RCVD)
		return -EINVAL;
	if (id->qp_type == RNIC_QPT_UD) {
		rnic_cm_sidr_rep(id, RNIC_CM_SIDR_SUCCESS, param->qp_num,
				 param->private_data, param->private_data_len);
		return 0;
	}
	c->qpn = param->qp_num;
	/* at most what the peer sends / takes */
	c->responder_resources = min(param->responder_resources,
				     c->responder_resources);
	c->initiator_depth = min(param->initiator_depth, c->initiator_depth);
	c->srq = param->srq;
	c->flow_control = param->flow_control;
	rnic_cm_fill_rep(id, param);
	rnic_cm_request_done(id);
	id->state = RNIC_CM_REP_SENT;
	rnic_cm_send_wait(id);
	return 0;
}

/**
 * rnic_cm_reject() - reject a connection request (or a response)
 * @id: a request's id, or an active id after CONNECT_RESPONSE
 * @reason: the IB CM reason
 * @pdata: private data
 * @len: its bytes, checked
 *
 * Context: rnic_cm_lock held.
 * Return: 0 or -EINVAL (state).
 */
int rnic_cm_reject(struct rnic_cm_id *id, u16 reason, const u8 *pdata, u8 len)
{
	struct rnic_cm_conn *c = &id->conn;
	u8 which;

	if (id->state == RNIC_CM_REQ_RCVD && id->qp_type == RNIC_QPT_UD) {
		rnic_cm_sidr_rep(id, RNIC_CM_SIDR_REJECT, 0, pdata, len);
		return 0;
	}
	if (id->state == RNIC_CM_REQ_RCVD)
		which = RNIC_CM_REJ_MSG_REQ;
	else if (id->state == RNIC_CM_REP_RCVD)
		which = RNIC_CM_REJ_MSG_REP;
	else
		return -EINVAL;
	rnic_cm_fill_rej(c->mad, c->tid, c->local_comm_id, c->remote_comm_id,
			 which, reason, pdata, len);
	rnic_cm_send(id, c->mad);
	rnic_cm_request_done(id);
	rnic_cm_comm_id_free(id);
	id->state = RNIC_CM_DONE;
	return 0;
}

/* Fill and send the RTU (active side, after the REP). */
static void rnic_cm_send_rtu(struct rnic_cm_id *id)
{
	struct rnic_cm_conn *c = &id->conn;
	u8 *msg = rnic_cm_mad_init(c->mad, RNIC_CM_ATTR_RTU, c->tid);

	rnic_cm_put(msg, MSG_LOCAL_COMM_ID, c->local_comm_id);
	rnic_cm_put(msg, MSG_REMOTE_COMM_ID, c->remote_comm_id);
	rnic_cm_send(id, c->mad);
}

/**
 * rnic_cm_establish() - the connection is up: the active side sends the
 *	RTU; the passive side (rdma_notify() of COMM_EST) takes it as come
 * @id: an id in REP_RCVD, or REP_SENT
 *
 * Context: rnic_cm_lock held.
 * Return: 0 or -EINVAL (state).
 */
int rnic_cm_establish(struct rnic_cm_id *id)
{
	if (id->state == RNIC_CM_REP_RCVD) {
		rnic_cm_send_rtu(id);
		id->state = RNIC_CM_ESTABLISHED;
		return 0;
	}
	if (id->state == RNIC_CM_REP_SENT) {
		rnic_cm_timer_cancel(id);
		id->state = RNIC_CM_ESTABLISHED;
		rnic_cm_event(id, RNIC_CM_EVENT_ESTABLISHED, 0);
		return 0;
	}
	return -EINVAL;
}

/* Fill and send a DREP to the id's peer. */
static void rnic_cm_send_drep(struct rnic_cm_id *id, u64 tid, const u8 *pdata,
			      u8 len)
{
	struct rnic_cm_conn *c = &id->conn;
	u8 *msg = rnic_cm_mad_init(c->mad, RNIC_CM_ATTR_DREP, tid);

	rnic_cm_put(msg, MSG_LOCAL_COMM_ID, c->local_comm_id);
	rnic_cm_put(msg, MSG_REMOTE_COMM_ID, c->remote_comm_id);
	memcpy(msg + DREP_PRIVATE_DATA, pdata, len);
	rnic_cm_send(id, c->mad);
}

/* Fill the DREQ and send it, waiting for the DREP. */
static void rnic_cm_send_dreq(struct rnic_cm_id *id, const u8 *pdata, u8 len)
{
	struct rnic_cm_conn *c = &id->conn;
	u8 *msg;

	c->tid = (u64)get_random_u32() << 32 | c->local_comm_id;
	msg = rnic_cm_mad_init(c->mad, RNIC_CM_ATTR_DREQ, c->tid);
	rnic_cm_put(msg, MSG_LOCAL_COMM_ID, c->local_comm_id);
	rnic_cm_put(msg, MSG_REMOTE_COMM_ID, c->remote_comm_id);
	rnic_cm_put(msg, DREQ_REMOTE_QPN, c->remote_qpn);
	memcpy(msg + DREQ_PRIVATE_DATA, pdata, len);
	id->state = RNIC_CM_DREQ_SENT;
	rnic_cm_send_wait(id);
}

/**
 * rnic_cm_disconnect() - end a connection
 * @id: a connected id (or one whose peer asked first: the DREP goes)
 * @pdata: private data for the DREQ or DREP
 * @len: its bytes, checked
 *
 * An id whose connection is being made, or is over already, has nothing
 * to send: 0, as the kernel's rdma_cm answers (programs disconnect after
 * DISCONNECTED, or while a connect is pending).
 *
 * Context: rnic_cm_lock held.
 * Return: 0 or -EINVAL (an id that never tried to connect).
 */
int rnic_cm_disconnect(struct rnic_cm_id *id, const u8 *pdata, u8 len)
{
	switch (id->state) {
	case RNIC_CM_ESTABLISHED:
	case RNIC_CM_REP_SENT:
	case RNIC_CM_REP_RCVD:
		rnic_cm_timer_cancel(id);
		rnic_cm_send_dreq(id, pdata, len);
		return 0;
	case RNIC_CM_DREQ_RCVD:
		rnic_cm_send_drep(id, id->conn.tid, pdata, len);
		rnic_cm_enter_timewait(id);
		return 0;
	case RNIC_CM_REQ_SENT:
	case RNIC_CM_REQ_RCVD:
	case RNIC_CM_DREQ_SENT:
	case RNIC_CM_TIMEWAIT:
	case RNIC_CM_DONE:
		/* nothing (more) to end: as the kernel's rdma_cm, no error */
		return 0;
	}
	return -EINVAL;
}

/**
 * rnic_cm_proto_destroy() - end what an id being destroyed has going
 * @id: the id
 *
 * As the IB CM does when its id goes: an unanswered request or response
 * is rejected, a connection gets a DREQ (not waited for), the timer is
 * stopped, the comm id freed.
 *
 * Context: rnic_cm_lock held.
 */
void rnic_cm_proto_destroy(struct rnic_cm_id *id)
{
	rnic_cm_timer_cancel(id);
	switch (id->state) {
	case RNIC_CM_REQ_RCVD:
	case RNIC_CM_REP_RCVD:
		rnic_cm_reject(id, RNIC_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case RNIC_CM_REQ_SENT:
		if (id->qp_type == RNIC_QPT_UD)
			break;
		rnic_cm_fill_rej(id->conn.mad, id->conn.tid,
				 id->conn.local_comm_id, 0, RNIC_CM_REJ_MSG_OTHER,
				 RNIC_CM_REJ_TIMEOUT, NULL, 0);
		rnic_cm_rej_ari_guid(id->conn.mad, id->rdev->node_guid);
		rnic_cm_send(id, id->conn.mad);
		break;
	case RNIC_CM_ESTABLISHED:
	case RNIC_CM_REP_SENT:
		rnic_cm_send_dreq(id, NULL, 0);
		rnic_cm_timer_cancel(id);
		break;
	case RNIC_CM_DREQ_RCVD:
		rnic_cm_send_drep(id, id->conn.tid, NULL, 0);
		break;
	}
	rnic_cm_request_done(id);
	rnic_cm_comm_id_free(id);
	id->state = RNIC_CM_DONE;
}

/* The id gives up on the message it sent: no answer after the retries. */
static void rnic_cm_give_up(struct rnic_cm_id *id)
{
	struct rnic_cm_conn *c = &id->conn;

	if (id->qp_type == RNIC_QPT_UD) {
		rnic_cm_event(id, RNIC_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
		rnic_cm_comm_id_free(id);
		id->state = RNIC_CM_DONE;
		return;
	}
	switch (id->state) {
	case RNIC_CM_REQ_SENT:
	case RNIC_CM_REP_SENT:
		rnic_cm_fill_rej(c->mad, c->tid, c->local_comm_id,
				 c->remote_comm_id,
				 id->state == RNIC_CM_REQ_SENT ?
				 RNIC_CM_REJ_MSG_OTHER : RNIC_CM_REJ_MSG_REP,
				 RNIC_CM_REJ_TIMEOUT, NULL, 0);
		rnic_cm_rej_ari_guid(c->mad, id->rdev->node_guid);
		rnic_cm_send(id, c->mad);
		rnic_cm_event(id, id->state == RNIC_CM_REQ_SENT ?
			      RNIC_CM_EVENT_UNREACHABLE :
			      RNIC_CM_EVENT_CONNECT_ERROR, -ETIMEDOUT);
		rnic_cm_comm_id_free(id);
		id->state = RNIC_CM_DONE;
		break;
	case RNIC_CM_DREQ_SENT:
		rnic_cm_event(id, RNIC_CM_EVENT_DISCONNECTED, 0);
		rnic_cm_enter_timewait(id);
		break;
	}
}

/**
 * rnic_cm_timer_fn() - an id's timer: send the waiting message again,
 *	give up on it, or end the time wait
 * @work: rnic_cm_id.timer
 *
 * Holds the id's reference the arming took, and drops it.
 */
void rnic_cm_timer_fn(struct work_struct *work)
{
	struct rnic_cm_id *id = container_of(to_delayed_work(work),
					     struct rnic_cm_id, timer);

	mutex_lock(&rnic_cm_lock);
	if (!id->file || delayed_work_pending(&id->timer)) {
		/* destroyed, or re-armed since: not this run's business */
	} else if (id->state == RNIC_CM_TIMEWAIT) {
		id->state = RNIC_CM_DONE;	/* waited: the peer's QP is free */
		rnic_cm_comm_id_free(id);
		rnic_cm_event(id, RNIC_CM_EVENT_TIMEWAIT_EXIT, 0);
	} else if (id->state == RNIC_CM_REQ_SENT ||
		   id->state == RNIC_CM_REP_SENT ||
		   id->state == RNIC_CM_DREQ_SENT) {
		if (id->conn.retries++ < id->conn.max_retries) {
			rnic_cm_send(id, id->conn.mad);
			kref_get(&id->ref);
			queue_delayed_work(rnic_cm_wq, &id->timer,
					   msecs_to_jiffies(id->conn.resp_timeout_ms));
		} else {
			rnic_cm_give_up(id);
		}
	}
	mutex_unlock(&rnic_cm_lock);
	rnic_cm_id_put(id);
}

/**
 * struct rnic_cm_mad_work - a MAD that arrived at QP 1
 * @work: handled by rnic_cm_mad_work()
 * @rdev: the device it came to (a reference)
 * @sgid: the sender's GID
 * @dgid: the GID it was sent to (one of @rdev's)
 * @mad: the MAD
 */
struct rnic_cm_mad_work {
	struct work_struct work;
	struct rnic_dev *rdev;
	u8 sgid[16];
	u8 dgid[16];
	u8 mad[RNIC_CM_MAD_SIZE];
};

/*
 * Did @w come from @id's peer, to @id's device? A connection's messages
 * are taken from its peer only, as a connected QP's packets are: comm
 * ids are no secret.
 */
static bool rnic_cm_from_peer(const struct rnic_cm_mad_work *w,
			      const struct rnic_cm_id *id)
{
	return id->rdev == w->rdev && !memcmp(id->av.dgid, w->sgid, 16);
}

/* The id of this side a message names by its remote comm id */
static struct rnic_cm_id *rnic_cm_lookup(const struct rnic_cm_mad_work *w,
					 const u8 *msg)
{
	struct rnic_cm_id *id;

	id = xa_load(&rnic_cm_comm_ids, rnic_cm_get(msg, MSG_REMOTE_COMM_ID));
	/* the peer's comm id too, once known, from the peer */
	if (!id || !rnic_cm_from_peer(w, id) ||
	    (id->conn.remote_comm_id &&
	     id->conn.remote_comm_id != rnic_cm_get(msg, MSG_LOCAL_COMM_ID)))
		return NULL;
	return id;
}

/*
 * Send @mad to the sender of @w, from the GID it was sent to: the answer
 * to a message that no id of this side takes (lost if that GID is gone).
 */
static void rnic_cm_reply(const struct rnic_cm_mad_work *w, const u8 *mad)
{
	struct rnic_ah_attr attr = {
		.hop_limit = 64, .is_global = 1, .port_num = 1,
	};
	struct rnic_port *port = &w->rdev->port;
	int index, found = -1;
	struct rnic_av av;

	spin_lock_bh(&port->lock);
	for (index = 0; index < RNIC_GID_TABLE_LEN && found < 0; index++)
		if (port->gids[index].valid &&
		    !memcmp(port->gids[index].raw, w->dgid, 16))
			found = index;
	spin_unlock_bh(&port->lock);
	if (found < 0)
		return;
	attr.sgid_index = found;
	memcpy(attr.dgid, w->sgid, 16);
	if (!rnic_av_from_attr(w->rdev, &attr, &av))
		rnic_cm_mad_xmit(w->rdev, &av, mad);
}

/* REJ to the sender of a REQ that no id takes */
static void rnic_cm_reject_req(const struct rnic_cm_mad_work *w,
			       const u8 *req, u16 reason)
{
	u8 mad[RNIC_CM_MAD_SIZE];

	rnic_cm_fill_rej(mad, get_unaligned_be64(w->mad + 8), 0,
			 rnic_cm_get(req, REQ_LOCAL_COMM_ID),
			 RNIC_CM_REJ_MSG_REQ, reason, NULL, 0);
	rnic_cm_reply(w, mad);
}

/* The id a REQ made before, if @msg is a duplicate of that REQ */
static struct rnic_cm_id *rnic_cm_req_id(const u8 *msg)
{
	u32 remote = rnic_cm_get(msg, REQ_LOCAL_COMM_ID);
	__be64 guid = cpu_to_be64(rnic_cm_get(msg, REQ_LOCAL_CA_GUID));
	struct rnic_cm_id *id;

	hash_for_each_possible(rnic_cm_remote, id, remote_node, remote)
		if (id->conn.remote_comm_id == remote &&
		    id->conn.remote_guid == guid)
			return id;
	return NULL;
}

/* The addresses a REQ's rdma_cm header names (IP port spaces) */
static int rnic_cm_req_addrs(const u8 *hdr, u16 port,
			     struct sockaddr_storage *src,
			     struct sockaddr_storage *dst)
{
	u8 sgid[16], dgid[16];
	u8 ipv = hdr[1] >> 4;

	if (hdr[0] != CMA_VERSION || (ipv != 4 && ipv != 6))
		return -EINVAL;
	memcpy(sgid, hdr + 4, 16);
	memcpy(dgid, hdr + 20, 16);
	if (ipv == 4) {
		/* IPv4-mapped, whatever the pad bytes said */
		memset(sgid, 0, 10);
		memset(sgid + 10, 0xff, 2);
		memset(dgid, 0, 10);
		memset(dgid + 10, 0xff, 2);
	}
	rnic_cm_gid_addr(sgid, get_unaligned_be16(hdr + 2), src);
	rnic_cm_gid_addr(dgid, port, dst);
	return 0;
}

/*
 * A request (REQ or SIDR_REQ) to listener @l from the sender of @w: the
 * new id on the listener's file, on the device the request came to, its
 * path back to the sender made. Return: the id, or NULL (no memory, no
 * comm id, no path back): the caller rejects.
 */
static struct rnic_cm_id *rnic_cm_new_request(const struct rnic_cm_mad_work *w,
					      struct rnic_cm_id *l,
					      const struct sockaddr_storage *src,
					      const struct sockaddr_storage *dst,
					      u32 remote_comm_id, u8 hop_limit,
					      u8 traffic_class)
{
	struct rnic_cm_id *id;
	int ret;

	id = rnic_cm_id_create(l->file, l->ps, l->qp_type, l->uid);
	if (IS_ERR(id))
		return NULL;
	rnic_cm_set_dev(id, w->rdev);
	ret = rnic_cm_comm_id_alloc(id);
	if (!ret)
		ret = rnic_cm_set_sgid(id, w->dgid);
	if (!ret)
		ret = rnic_cm_path(id, w->sgid, hop_limit ?: 64, traffic_class,
				   0);
	if (ret) {
		rnic_cm_id_destroy(id);
		return NULL;
	}
	id->src = *dst;
	id->dst = *src;
	id->conn.remote_comm_id = remote_comm_id;
	id->conn.tid = get_unaligned_be64(w->mad + 8);
	id->conn.resp_timeout_ms = READ_ONCE(cm_timeout_ms);
	hash_add(rnic_cm_remote, &id->remote_node, remote_comm_id);
	kref_get(&l->ref);
	id->listener = l;
	l->pending++;
	id->state = RNIC_CM_REQ_RCVD;
	return id;
}

/*
 * The listener a request with @sid and the rdma_cm header @hdr goes to,
 * of one of the port spaces @ps_a, @ps_b; the addresses the header names
 * in @src and @dst. NULL: nobody listens there.
 */
static struct rnic_cm_id *rnic_cm_request_listener(const struct rnic_cm_mad_work *w,
						   u64 sid, u16 ps_a, u16 ps_b,
						   const u8 *hdr,
						   struct sockaddr_storage *src,
						   struct sockaddr_storage *dst)
{
	u16 ps = sid >> 16 & 0xffff;

	if (sid >> 32 || (ps != ps_a && ps != ps_b) ||
	    rnic_cm_req_addrs(hdr, sid & 0xffff, src, dst))
		return NULL;
	return rnic_cm_find_listener(rnic_dev_net(w->rdev), ps, dst);
}

/* The requester's address, for a request's event (UD ids: to reply). */
static void rnic_cm_event_ah(struct rnic_cm_event *ev,
			     const struct rnic_cm_id *id)
{
	struct rnic_ah_attr *ah = &ev->desc.out_ud.ah_attr;

	memcpy(ah->dgid, id->av.dgid, 16);
	ah->flow_label = id->av.flow_label;
	ah->sgid_index = id->av.sgid_index;
	ah->hop_limit = id->av.hop_limit;
	ah->traffic_class = id->av.traffic_class;
	ah->sl = id->av.sl;
	ah->is_global = 1;
	ah->port_num = 1;
	ah->static_rate = id->av.static_rate;
}

/* A device goes: its records too (its ids let go of theirs already). */
static void rnic_cm_peer_qps_drop(struct rnic_dev *rdev)
{
	struct rnic_cm_peer_qp *p;
	struct hlist_node *next;
	int bkt;

	hash_for_each_safe(rnic_cm_peer_qps, bkt, next, p, node)
		if (p->rdev == rdev && !WARN_ON(p->id))
			rnic_cm_peer_qp_free(p);
}

/*
 * A stale connection was rejected: the old one, if established, ends (a
 * DREQ), as the IB CM does. The peer restarted, or lost track of it.
 */
static void rnic_cm_stale_end(struct rnic_cm_peer_qp *p)
{
	if (p->id && p->id->state == RNIC_CM_ESTABLISHED)
		rnic_cm_send_dreq(p->id, NULL, 0);
}

/* A REQ for a listener: the new id, its CONNECT_REQUEST queued. */
static bool rnic_cm_rcv_req(const struct rnic_cm_mad_work *w, const u8 *msg)
{
	struct rnic_cm_peer_qp *stale;
	struct sockaddr_storage src, dst;
	struct rnic_cm_id *l, *id;
	struct rnic_cm_event *ev;
	struct rnic_cm_conn *c;

	id = rnic_cm_req_id(msg);
	if (id) {
		/* a duplicate: the REP again, if it went */
		if (id->state != RNIC_CM_REP_SENT)
			return false;
		rnic_cm_send(id, id->conn.mad);
		return true;
	}
	stale = rnic_cm_peer_qp_find(rnic_cm_get(msg, REQ_LOCAL_QPN),
				     cpu_to_be64(rnic_cm_get(msg,
							     REQ_LOCAL_CA_GUID)));
	if (stale) {
		rnic_cm_reject_req(w, msg, RNIC_CM_REJ_STALE_CONN);
		rnic_cm_stale_end(stale);
		return true;
	}
	l = rnic_cm_get(msg, REQ_TRANSPORT) != 0 ? NULL :
	    rnic_cm_request_listener(w, rnic_cm_get(msg, REQ_SERVICE_ID),
				     RNIC_CM_PS_TCP, RNIC_CM_PS_TCP,
				     msg + REQ_PRIVATE_DATA, &src, &dst);
	if (!l) {
		rnic_cm_reject_req(w, msg, RNIC_CM_REJ_INVALID_SERVICE_ID);
		return true;
	}
	if (l->pending >= l->backlog) {
		rnic_cm_reject_req(w, msg, RNIC_CM_REJ_CONSUMER_DEFINED);
		return true;
	}
	id = rnic_cm_new_request(w, l, &src, &dst,
				 rnic_cm_get(msg, REQ_LOCAL_COMM_ID),
				 rnic_cm_get(msg, REQ_HOP_LIMIT),
				 rnic_cm_get(msg, REQ_TRAFFIC_CLASS));
	if (!id) {
		rnic_cm_reject_req(w, msg, RNIC_CM_REJ_CONSUMER_DEFINED);
		return true;
	}
	c = &id->conn;
	c->remote_guid = cpu_to_be64(rnic_cm_get(msg, REQ_LOCAL_CA_GUID));
	c->remote_qpn = rnic_cm_get(msg, REQ_LOCAL_QPN);
	if (rnic_cm_peer_qp_add(id)) {
		rnic_cm_reject(id, RNIC_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		rnic_cm_id_destroy(id);
		return true;
	}
	c->remote_psn = rnic_cm_get(msg, REQ_STARTING_PSN);
	c->psn = get_random_u32() & RNIC_PSN_MASK;
	/* the most this side may take / send: what the peer sends / takes */
	c->responder_resources = min_t(u8, rnic_cm_get(msg, REQ_INIT_DEPTH),
				       RNIC_MAX_RD_ATOM);
	c->initiator_depth = min_t(u8, rnic_cm_get(msg, REQ_RESP_RESOURCES),
				   RNIC_MAX_RD_ATOM);
	c->retry_count = rnic_cm_get(msg, REQ_RETRY_COUNT);
	c->rnr_retry_count = rnic_cm_get(msg, REQ_RNR_RETRY);
	c->srq = rnic_cm_get(msg, REQ_SRQ);
	c->max_retries = min_t(u8, rnic_cm_get(msg, REQ_MAX_CM_RETRIES),
			       READ_ONCE(cm_retries));
	/* the path MTU the requester asks for, within this port's */
	id->av.flow_label = rnic_cm_get(msg, REQ_FLOW_LABEL);
	id->mtu = clamp_t(u8, rnic_cm_get(msg, REQ_PATH_MTU), RNIC_MTU_256,
			  id->mtu);
	id->ack_timeout = max_t(u8, 1, rnic_cm_get(msg, REQ_LOCAL_ACK_TIMEOUT));

	ev = rnic_cm_event_alloc(id, RNIC_CM_EVENT_CONNECT_REQUEST, 0);
	if (ev) {
		ev->desc.out_uid = l->uid;
		ev->desc.out_listen_id = l->handle;
		ev->desc.out_conn.qp_num = c->remote_qpn;
		ev->desc.out_conn.responder_resources =
			rnic_cm_get(msg, REQ_RESP_RESOURCES);
		ev->desc.out_conn.initiator_depth =
			rnic_cm_get(msg, REQ_INIT_DEPTH);
		ev->desc.out_conn.flow_control = rnic_cm_get(msg, REQ_FLOW_CONTROL);
		ev->desc.out_conn.retry_count = c->retry_count;
		ev->desc.out_conn.rnr_retry_count = c->rnr_retry_count;
		ev->desc.out_conn.srq = c->srq;
		rnic_cm_event_pdata(ev, msg + REQ_PRIVATE_DATA + CMA_HDR_LEN,
				    REQ_PRIVATE_DATA_LEN - CMA_HDR_LEN);
	}
	rnic_cm_event_queue(ev);
	return true;
}

/* A SIDR_REP to the sender of a SIDR_REQ that no listener takes. */
static void rnic_cm_sidr_unsupported(const struct rnic_cm_mad_work *w,
				     const u8 *req)
{
	u8 mad[RNIC_CM_MAD_SIZE];
	u8 *msg;

	msg = rnic_cm_mad_init(mad, RNIC_CM_ATTR_SIDR_REP,
			       get_unaligned_be64(w->mad + 8));
	rnic_cm_put(msg, SIDR_REQUEST_ID, rnic_cm_get(req, SIDR_REQUEST_ID));
	rnic_cm_put(msg, SIDR_REP_STATUS, RNIC_CM_SIDR_UNSUPPORTED);
	rnic_cm_put(msg, SIDR_REP_SERVICE_ID,
		    rnic_cm_get(req, SIDR_REQ_SERVICE_ID));
	rnic_cm_reply(w, mad);
}

/* A SIDR_REQ: a UD listener's CONNECT_REQUEST; a duplicate, the answer. */
static bool rnic_cm_rcv_sidr_req(const struct rnic_cm_mad_work *w,
				 const u8 *msg)
{
	u32 reqid = rnic_cm_get(msg, SIDR_REQUEST_ID);
	struct sockaddr_storage src, dst;
	struct rnic_cm_id *l, *id;
	struct rnic_cm_event *ev;

	hash_for_each_possible(rnic_cm_remote, id, remote_node, reqid)
		if (id->conn.remote_comm_id == reqid &&
		    id->qp_type == RNIC_QPT_UD && id->rdev == w->rdev &&
		    !memcmp(id->av.dgid, w->sgid, 16)) {
			/* a duplicate: the answer again, if it went */
			if (id->state != RNIC_CM_DONE)
				return false;
			rnic_cm_send(id, id->conn.mad);
			return true;
		}
	l = rnic_cm_request_listener(w, rnic_cm_get(msg, SIDR_REQ_SERVICE_ID),
				     RNIC_CM_PS_UDP, RNIC_CM_PS_IPOIB,
				     msg + SIDR_REQ_PRIVATE_DATA, &src, &dst);
	if (!l || l->qp_type != RNIC_QPT_UD || l->pending >= l->backlog) {
		rnic_cm_sidr_unsupported(w, msg);
		return true;
	}
	id = rnic_cm_new_request(w, l, &src, &dst, reqid, 64, 0);
	if (!id) {
		rnic_cm_sidr_unsupported(w, msg);
		return true;
	}
	ev = rnic_cm_event_alloc(id, RNIC_CM_EVENT_CONNECT_REQUEST, 0);
	if (ev) {
		ev->desc.out_uid = l->uid;
		ev->desc.out_listen_id = l->handle;
		ev->desc.out_ud.qkey = RNIC_CM_UDP_QKEY;
		rnic_cm_event_ah(ev, id);
		rnic_cm_event_pdata(ev, msg + SIDR_REQ_PRIVATE_DATA + CMA_HDR_LEN,
				    SIDR_REQ_PRIVATE_DATA_LEN - CMA_HDR_LEN);
	}
	rnic_cm_event_queue(ev);
	return true;
}

/* The SIDR_REP: the peer's QP and Q_Key (ESTABLISHED), or UNREACHABLE. */
static bool rnic_cm_rcv_sidr_rep(const struct rnic_cm_mad_work *w,
				 const u8 *msg)
{
	struct rnic_cm_id *id;
	struct rnic_cm_event *ev;
	u8 status = rnic_cm_get(msg, SIDR_REP_STATUS);

	id = xa_load(&rnic_cm_comm_ids, rnic_cm_get(msg, SIDR_REQUEST_ID));
	if (!id || !rnic_cm_from_peer(w, id) || id->qp_type != RNIC_QPT_UD ||
	    id->state != RNIC_CM_REQ_SENT)
		return false;
	rnic_cm_timer_cancel(id);
	if (status != RNIC_CM_SIDR_SUCCESS) {
		ev = rnic_cm_event_alloc(id, RNIC_CM_EVENT_UNREACHABLE, status);
	} else {
		ev = rnic_cm_event_alloc(id, RNIC_CM_EVENT_ESTABLISHED, 0);
		if (ev) {
			ev->desc.out_ud.qp_num = rnic_cm_get(msg, SIDR_REP_QPN);
			ev->desc.out_ud.qkey = rnic_cm_get(msg, SIDR_REP_QKEY);
			rnic_cm_event_ah(ev, id);
		}
	}
	rnic_cm_event_pdata(ev, msg + SIDR_REP_PRIVATE_DATA,
			    SIDR_REP_PRIVATE_DATA_LEN);
	rnic_cm_event_queue(ev);
	rnic_cm_comm_id_free(id);
	id->state = RNIC_CM_DONE;
	return true;
}

/*
 * A REP from a QP this side's connections use or used (rnic_cm_peer_qp_find()):
 * a REJ to it, and the connect is REJECTED (reason 10) at once.
 */
static void rnic_cm_rep_stale(struct rnic_cm_id *id)
{
	struct rnic_cm_conn *c = &id->conn;

	rnic_cm_timer_cancel(id);
	rnic_cm_fill_rej(c->mad, c->tid, c->local_comm_id, c->remote_comm_id,
			 RNIC_CM_REJ_MSG_REP, RNIC_CM_REJ_STALE_CONN, NULL, 0);
	rnic_cm_send(id, c->mad);
	rnic_cm_event(id, RNIC_CM_EVENT_REJECTED, RNIC_CM_REJ_STALE_CONN);
	rnic_cm_comm_id_free(id);
	id->state = RNIC_CM_DONE;
}

/* The REP: the peer accepted; CONNECT_RESPONSE. A duplicate: the RTU again. */
static bool rnic_cm_rcv_rep(const struct rnic_cm_mad_work *w, const u8 *msg)
{
	struct rnic_cm_peer_qp *stale;
	struct rnic_cm_id *id;
	struct rnic_cm_event *ev;
	struct rnic_cm_conn *c;

	id = xa_load(&rnic_cm_comm_ids, rnic_cm_get(msg, REP_REMOTE_COMM_ID));
	/* a SIDR_REQ's request id is no connection: only a SIDR_REP for it */
	if (!id || !rnic_cm_from_peer(w, id) || id->qp_type != RNIC_QPT_RC)
		return false;
	c = &id->conn;
	if (id->state == RNIC_CM_ESTABLISHED &&
	    c->remote_comm_id == rnic_cm_get(msg, REP_LOCAL_COMM_ID)) {
		rnic_cm_send_rtu(id);
		return true;
	}
	if (id->state != RNIC_CM_REQ_SENT)
		return false;
	c->remote_comm_id = rnic_cm_get(msg, REP_LOCAL_COMM_ID);
	c->remote_guid = cpu_to_be64(rnic_cm_get(msg, REP_LOCAL_CA_GUID));
	c->remote_qpn = rnic_cm_get(msg, REP_LOCAL_QPN);
	stale = rnic_cm_peer_qp_find(c->remote_qpn, c->remote_guid);
	if (stale) {
		rnic_cm_rep_stale(id);
		rnic_cm_stale_end(stale);
		return true;
	}
	/* no memory: as if lost, the REP comes again */
	if (rnic_cm_peer_qp_add(id))
		return false;
	rnic_cm_timer_cancel(id);
	c->remote_psn = rnic_cm_get(msg, REP_STARTING_PSN);
	/* the passive side says how often to retry after its RNR NAKs */
	c->rnr_retry_count = rnic_cm_get(msg, REP_RNR_RETRY);
	/* never more than asked for */
	c->initiator_depth = min_t(u8, c->initiator_depth,
				   rnic_cm_get(msg, REP_RESP_RESOURCES));
	c->responder_resources = min_t(u8, c->responder_resources,
				       rnic_cm_get(msg, REP_INIT_DEPTH));
	id->state = RNIC_CM_REP_RCVD;

	ev = rnic_cm_event_alloc(id, RNIC_CM_EVENT_CONNECT_RESPONSE, 0);
	if (ev) {
		ev->desc.out_conn.qp_num = c->remote_qpn;
		ev->desc.out_conn.responder_resources =
			rnic_cm_get(msg, REP_RESP_RESOURCES);
		ev->desc.out_conn.initiator_depth =
			rnic_cm_get(msg, REP_INIT_DEPTH);
		ev->desc.out_conn.flow_control = rnic_cm_get(msg, REP_FLOW_CONTROL);
		ev->desc.out_conn.rnr_retry_count = rnic_cm_get(msg, REP_RNR_RETRY);
		ev->desc.out_conn.srq = rnic_cm_get(msg, REP_SRQ);
		rnic_cm_event_pdata(ev, msg + REP_PRIVATE_DATA,
				    REP_PRIVATE_DATA_LEN);
	}
	rnic_cm_event_queue(ev);
	return true;
}

static bool rnic_cm_rcv_rtu(const struct rnic_cm_mad_work *w, const u8 *msg)
{
	struct rnic_cm_id *id = rnic_cm_lookup(w, msg);
	struct rnic_cm_event *ev;

	if (!id || id->state != RNIC_CM_REP_SENT)
		return false;
	rnic_cm_timer_cancel(id);
	id->state = RNIC_CM_ESTABLISHED;
	ev = rnic_cm_event_alloc(id, RNIC_CM_EVENT_ESTABLISHED, 0);
	if (ev)
		ev->desc.out_conn.qp_num = id->conn.remote_qpn;
	rnic_cm_event_pdata(ev, msg + RTU_PRIVATE_DATA, RTU_PRIVATE_DATA_LEN);
	rnic_cm_event_queue(ev);
	return true;
}

/*
 * The request a REJ of reason timeout gives up on, sent before the
 * requester knew this side's comm id: by the requester's comm id and the
 * CA GUID in the ARI (rnic_cm_rej_ari_guid()).
 */
static struct rnic_cm_id *rnic_cm_rej_request(const struct rnic_cm_mad_work *w,
					      const u8 *msg)
{
	u32 remote = rnic_cm_get(msg, MSG_LOCAL_COMM_ID);
	struct rnic_cm_id *id;
	__be64 guid;

	if (rnic_cm_get(msg, REJ_INFO_LEN) < sizeof(guid))
		return NULL;
	memcpy(&guid, msg + REJ_ARI, sizeof(guid));
	hash_for_each_possible(rnic_cm_remote, id, remote_node, remote)
		if (id->conn.remote_comm_id == remote &&
		    id->conn.remote_guid == guid && id->rdev == w->rdev &&
		    id->qp_type == RNIC_QPT_RC)
			return id;
	return NULL;
}

/* The peer rejected this side's REQ or REP, or gave up on it. */
static bool rnic_cm_rcv_rej(const struct rnic_cm_mad_work *w, const u8 *msg)
{
	struct rnic_cm_id *id;
	struct rnic_cm_event *ev;
	u16 reason = rnic_cm_get(msg, REJ_REASON);
	u32 event;

	id = xa_load(&rnic_cm_comm_ids, rnic_cm_get(msg, MSG_REMOTE_COMM_ID));
	if (!id && reason == RNIC_CM_REJ_TIMEOUT)
		id = rnic_cm_rej_request(w, msg);
	if (!id || !rnic_cm_from_peer(w, id) || id->qp_type != RNIC_QPT_RC)
		return false;
	/* a REJ of a REQ may not know this side's comm id: 0 */
	if (id->conn.remote_comm_id && rnic_cm_get(msg, MSG_LOCAL_COMM_ID) &&
	    id->conn.remote_comm_id != rnic_cm_get(msg, MSG_LOCAL_COMM_ID))
		return false;
	switch (id->state) {
	case RNIC_CM_REQ_SENT:
	case RNIC_CM_REP_RCVD:
		event = reason == RNIC_CM_REJ_TIMEOUT ?
			RNIC_CM_EVENT_UNREACHABLE : RNIC_CM_EVENT_REJECTED;
		break;
	case RNIC_CM_REQ_RCVD:
		/* the requester gave up before the answer (IB CM: REJECTED) */
		event = RNIC_CM_EVENT_REJECTED;
		break;
	case RNIC_CM_REP_SENT:
		event = RNIC_CM_EVENT_CONNECT_ERROR;
		break;
	case RNIC_CM_ESTABLISHED:
		/* the peer gave up on it after all: as a disconnect */
		event = RNIC_CM_EVENT_DISCONNECTED;
		break;
	default:
		return false;
	}
	rnic_cm_timer_cancel(id);
	ev = rnic_cm_event_alloc(id, event,
				 event == RNIC_CM_EVENT_REJECTED ? reason :
				 event == RNIC_CM_EVENT_DISCONNECTED ? 0 :
				 -ECONNRESET);
	rnic_cm_event_pdata(ev, msg + REJ_PRIVATE_DATA, REJ_PRIVATE_DATA_LEN);
	rnic_cm_event_queue(ev);
	rnic_cm_request_done(id);
	rnic_cm_comm_id_free(id);
	id->state = RNIC_CM_DONE;
	return true;
}

/*
 * A DREQ for a connection this side no longer has (its id destroyed, the
 * comm id free): a DREP, as the IB CM answers, so that the peer need not
 * send it again until its retries run out.
 */
static void rnic_cm_drep_unknown(const struct rnic_cm_mad_work *w,
				 const u8 *dreq)
{
	u8 mad[RNIC_CM_MAD_SIZE];
	u8 *msg;

	msg = rnic_cm_mad_init(mad, RNIC_CM_ATTR_DREP,
			       get_unaligned_be64(w->mad + 8));
	rnic_cm_put(msg, MSG_LOCAL_COMM_ID,
		    rnic_cm_get(dreq, MSG_REMOTE_COMM_ID));
	rnic_cm_put(msg, MSG_REMOTE_COMM_ID,
		    rnic_cm_get(dreq, MSG_LOCAL_COMM_ID));
	rnic_cm_reply(w, mad);
}

/* The peer's DREQ: DISCONNECTED; the DREP when this side disconnects. */
static bool rnic_cm_rcv_dreq(const struct rnic_cm_mad_work *w, const u8 *msg)
{
	struct rnic_cm_id *id = rnic_cm_lookup(w, msg);
	struct rnic_cm_event *ev;
	u64 tid = get_unaligned_be64(w->mad + 8);

	if (!id && !xa_load(&rnic_cm_comm_ids,
			    rnic_cm_get(msg, MSG_REMOTE_COMM_ID))) {
		rnic_cm_drep_unknown(w, msg);
		return true;
	}
	if (!id)
		return false;
	switch (id->state) {
	case RNIC_CM_REP_SENT:
	case RNIC_CM_ESTABLISHED:
		break;
	case RNIC_CM_DREQ_SENT:
		/* both asked: answer, and the DISCONNECTED is this one */
		rnic_cm_timer_cancel(id);
		rnic_cm_send_drep(id, tid, NULL, 0);
		rnic_cm_event(id, RNIC_CM_EVENT_DISCONNECTED, 0);
		rnic_cm_enter_timewait(id);
		return true;
	case RNIC_CM_TIMEWAIT:
		/* our DREP was lost: it again */
		rnic_cm_send_drep(id, tid, NULL, 0);
		return true;
	default:
		return false;
	}
	rnic_cm_timer_cancel(id);
	id->conn.tid = tid;
	id->state = RNIC_CM_DREQ_RCVD;
	ev = rnic_cm_event_alloc(id, RNIC_CM_EVENT_DISCONNECTED, 0);
	rnic_cm_event_pdata(ev, msg + DREQ_PRIVATE_DATA, DREQ_PRIVATE_DATA_LEN);
	rnic_cm_event_queue(ev);
	return true;
}

static bool rnic_cm_rcv_drep(const struct rnic_cm_mad_work *w, const u8 *msg)
{
	struct rnic_cm_id *id = rnic_cm_lookup(w, msg);
	struct rnic_cm_event *ev;

	if (!id || id->state != RNIC_CM_DREQ_SENT)
		return false;
	rnic_cm_timer_cancel(id);
	ev = rnic_cm_event_alloc(id, RNIC_CM_EVENT_DISCONNECTED, 0);
	rnic_cm_event_pdata(ev, msg + DREP_PRIVATE_DATA, DREP_PRIVATE_DATA_LEN);
	rnic_cm_event_queue(ev);
	rnic_cm_enter_timewait(id);
	return true;
}

/* An MRA: the peer needs longer; wait again from now, retries anew. */
static bool rnic_cm_rcv_mra(const struct rnic_cm_mad_work *w, const u8 *msg)
{
	struct rnic_cm_id *id;

	id = xa_load(&rnic_cm_comm_ids, rnic_cm_get(msg, MSG_REMOTE_COMM_ID));
	if (!id || !rnic_cm_from_peer(w, id) || id->qp_type != RNIC_QPT_RC ||
	    (id->state != RNIC_CM_REQ_SENT && id->state != RNIC_CM_REP_SENT))
		return false;
	id->conn.retries = 0;
	rnic_cm_timer_arm(id, id->conn.resp_timeout_ms);
	return true;
}

/*
 * The handler of each attribute (rnic_cm_mad_valid() let only these
 * through): true if the message did something, false if it was dropped
 * (it names no id, comes from another address than the id's peer, or
 * does not fit the id's state; counted in cm_ignored).
 */
static bool (* const rnic_cm_rcv[])(const struct rnic_cm_mad_work *w,
				    const u8 *msg) = {
	[RNIC_CM_ATTR_REQ - RNIC_CM_ATTR_REQ] = rnic_cm_rcv_req,
	[RNIC_CM_ATTR_MRA - RNIC_CM_ATTR_REQ] = rnic_cm_rcv_mra,
	[RNIC_CM_ATTR_REJ - RNIC_CM_ATTR_REQ] = rnic_cm_rcv_rej,
	[RNIC_CM_ATTR_REP - RNIC_CM_ATTR_REQ] = rnic_cm_rcv_rep,
	[RNIC_CM_ATTR_RTU - RNIC_CM_ATTR_REQ] = rnic_cm_rcv_rtu,
	[RNIC_CM_ATTR_DREQ - RNIC_CM_ATTR_REQ] = rnic_cm_rcv_dreq,
	[RNIC_CM_ATTR_DREP - RNIC_CM_ATTR_REQ] = rnic_cm_rcv_drep,
	[RNIC_CM_ATTR_SIDR_REQ - RNIC_CM_ATTR_REQ] = rnic_cm_rcv_sidr_req,
	[RNIC_CM_ATTR_SIDR_REP - RNIC_CM_ATTR_REQ] = rnic_cm_rcv_sidr_rep,
};

/* Handle a MAD that arrived, under rnic_cm_lock. */
static void rnic_cm_mad_work(struct work_struct *work)
{
	struct rnic_cm_mad_work *w = container_of(work, struct rnic_cm_mad_work,
						  work);
	const u8 *msg = w->mad + RNIC_MAD_HDR_SIZE;

	mutex_lock(&rnic_cm_lock);
	if (!rnic_cm_rcv[get_unaligned_be16(w->mad + 16) - RNIC_CM_ATTR_REQ](w, msg))
		rnic_dev_count(w->rdev, RNIC_NL_COUNTER_CM_IGNORED);
	mutex_unlock(&rnic_cm_lock);
	put_device(&w->rdev->dev);
	kfree(w);
	atomic_dec(&rnic_cm_mads_queued);
}

/* Is @mad a CM MAD this side handles (SEND of a known attribute)? */
static bool rnic_cm_mad_valid(const u8 *mad)
{
	u16 attr = get_unaligned_be16(mad + 16);

	return mad[0] == RNIC_MAD_BASE_VERSION &&
	       mad[1] == RNIC_MAD_CLASS_CM &&
	       mad[2] == RNIC_MAD_CM_VERSION &&
	       mad[3] == RNIC_MAD_METHOD_SEND &&
	       attr >= RNIC_CM_ATTR_REQ &&
	       attr - RNIC_CM_ATTR_REQ < ARRAY_SIZE(rnic_cm_rcv);
}

/**
 * rnic_cm_gsi_rcv() - a packet arrived at QP 1 of a device
 * @rdev: the device
 * @pkt: the packet
 *
 * A UD SEND of one MAD with the GSI's Q_Key is copied and queued for
 * rnic_cm_mad_work(); anything else, or more MADs than the CM has
 * queued room for, is dropped and counted (gsi_dropped). The Q_Key
 * keeps unprivileged local users' UD QPs out: a controlled Q_Key needs
 * CAP_NET_RAW.
 *
 * Context: BH disabled, in an RCU read-side critical section.
 */
void rnic_cm_gsi_rcv(struct rnic_dev *rdev, const struct rnic_pkt *pkt)
{
	struct rnic_cm_mad_work *w;

	if (pkt->opcode != (RNIC_TRANSPORT_UD | RNIC_SEND_ONLY) ||
	    pkt->len != RNIC_CM_MAD_SIZE || pkt->qkey != RNIC_CM_GSI_QKEY)
		goto drop;
	if (atomic_inc_return(&rnic_cm_mads_queued) > RNIC_CM_MADS_MAX)
		goto drop_dec;
	w = kmalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		goto drop_dec;
	if (pkt->skb)
		skb_copy_bits(pkt->skb, pkt->skb_off, w->mad, RNIC_CM_MAD_SIZE);
	else
		rnic_payload_copy_out(w->mad, pkt->payload, RNIC_CM_MAD_SIZE);
	if (!rnic_cm_mad_valid(w->mad)) {
		kfree(w);
		goto drop_dec;
	}
	memcpy(w->sgid, pkt->av->sgid, 16);
	memcpy(w->dgid, pkt->av->dgid, 16);
	get_device(&rdev->dev);
	w->rdev = rdev;
	INIT_WORK(&w->work, rnic_cm_mad_work);
	queue_work(rnic_cm_wq, &w->work);
	return;

drop_dec:
	atomic_dec(&rnic_cm_mads_queued);
drop:
	rnic_dev_count(rdev, RNIC_NL_COUNTER_GSI_DROPPED);
}

/**
 * rnic_cm_init_qp_attr() - the attributes that move an id's QP to a state
 * @id: the id
 * @qp_state: RNIC_QPS_INIT, RTR or RTS
 * @attr: filled (zeroed by the caller)
 * @mask: the enum rnic_qp_attr_mask bits of @attr to set
 *
 * Context: rnic_cm_lock held.
 * Return: 0, or -EINVAL (a state the id has no attributes for yet).
 */
int rnic_cm_init_qp_attr(struct rnic_cm_id *id, u32 qp_state,
			 struct rnic_qp_attr *attr, u32 *mask)
{
	const struct rnic_cm_conn *c = &id->conn;
	struct rnic_ah_attr *ah = &attr->ah_attr;

	if (!id->rdev)
		return -EINVAL;
	attr->qp_state = qp_state;
	switch (qp_state) {
	case RNIC_QPS_INIT:
		attr->pkey_index = 0;
		attr->port_num = 1;
		*mask = RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT;
		if (id->qp_type == RNIC_QPT_UD) {
			attr->qkey = RNIC_CM_UDP_QKEY;
			*mask |= RNIC_QP_QKEY;
		} else {
			attr->qp_access_flags = RNIC_ACCESS_REMOTE_WRITE |
						RNIC_ACCESS_REMOTE_READ |
						RNIC_ACCESS_REMOTE_ATOMIC;
			*mask |= RNIC_QP_ACCESS_FLAGS;
		}
		return 0;
	case RNIC_QPS_RTR:
		if (id->qp_type == RNIC_QPT_UD) {
			*mask = RNIC_QP_STATE;
			return 0;
		}
		if (id->state != RNIC_CM_REQ_RCVD && id->state != RNIC_CM_REP_RCVD &&
		    id->state != RNIC_CM_REP_SENT &&
		    id->state != RNIC_CM_ESTABLISHED)
			return -EINVAL;
		attr->path_mtu = id->mtu;
		attr->dest_qp_num = c->remote_qpn;
		attr->rq_psn = c->psn;
		attr->max_dest_rd_atomic = c->responder_resources;
		attr->min_rnr_timer = 12;	/* 0.64 ms, the kernel CM's */
		memcpy(ah->dgid, id->av.dgid, 16);
		ah->flow_label = id->av.flow_label;
		ah->sgid_index = id->av.sgid_index;
		ah->hop_limit = id->av.hop_limit;
		ah->traffic_class = id->av.traffic_class;
		ah->sl = id->av.sl;
		ah->is_global = 1;
		ah->port_num = 1;
		ah->static_rate = id->av.static_rate;
		*mask = RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
			RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN |
			RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER;
		return 0;
	case RNIC_QPS_RTS:
		if (id->qp_type == RNIC_QPT_UD) {
			attr->sq_psn = 0;
			*mask = RNIC_QP_STATE | RNIC_QP_SQ_PSN;
			return 0;
		}
		if (id->state != RNIC_CM_REQ_RCVD && id->state != RNIC_CM_REP_RCVD &&
		    id->state != RNIC_CM_REP_SENT &&
		    id->state != RNIC_CM_ESTABLISHED)
			return -EINVAL;
		attr->sq_psn = c->remote_psn;
		attr->timeout = id->ack_timeout;
		attr->retry_cnt = c->retry_count;
		attr->rnr_retry = c->rnr_retry_count;
		attr->max_rd_atomic = c->initiator_depth;
		*mask = RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT |
			RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY |
			RNIC_QP_MAX_QP_RD_ATOMIC;
		return 0;
	}
	return -EINVAL;
}

/**
 * rnic_cm_dev_remove() - a device goes: its ids get DEVICE_REMOVAL
 * @rdev: the device, no longer live
 *
 * Their connections end without a word to the peers (the device cannot
 * send any more); userspace destroys the ids.
 *
 * Context: process; takes rnic_cm_lock.
 */
void rnic_cm_dev_remove(struct rnic_dev *rdev)
{
	struct rnic_cm_id *id;

	mutex_lock(&rnic_cm_lock);
	list_for_each_entry(id, &rnic_cm_all, dev_node) {
		if (id->rdev != rdev || id->state == RNIC_CM_DONE)
			continue;
		rnic_cm_timer_cancel(id);
		rnic_cm_request_done(id);
		rnic_cm_comm_id_free(id);
		if (id->state != RNIC_CM_LISTEN)
			id->state = RNIC_CM_DONE;
		rnic_cm_event(id, RNIC_CM_EVENT_DEVICE_REMOVAL, 0);
	}
	rnic_cm_peer_qps_drop(rdev);
	mutex_unlock(&rnic_cm_lock);
}

/**
 * rnic_cm_addr_change() - the hardware address of a device's netdev
 *	changed (a new MAC, a bond's failover): its ids get ADDR_CHANGE
 * @rdev: the device
 *
 * As the kernel's rdma_cm tells the ids bound to a bond that failed over:
 * the peers may have to learn the new address (a reconnect, a new path);
 * userspace decides. Nothing of the ids changes.
 *
 * Context: process; takes rnic_cm_lock.
 */
void rnic_cm_addr_change(struct rnic_dev *rdev)
{
	struct rnic_cm_id *id;

	mutex_lock(&rnic_cm_lock);
	list_for_each_entry(id, &rnic_cm_all, dev_node)
		if (id->rdev == rdev && id->state != RNIC_CM_DONE)
			rnic_cm_event(id, RNIC_CM_EVENT_ADDR_CHANGE, 0);
	mutex_unlock(&rnic_cm_lock);
}

int rnic_cm_proto_init(void)
{
	rnic_cm_comm_next = get_random_u32() | 1;
	return 0;
}

/**
 * rnic_cm_proto_exit() - the protocol's end: no file is open, no device
 *	left, no MAD queued
 *
 * Context: before the CM's workqueue goes.
 */
void rnic_cm_proto_exit(void)
{
	cancel_delayed_work_sync(&rnic_cm_reaper);
	/* every record went with its device */
	WARN_ON(!list_empty(&rnic_cm_peer_qps_ending));
	WARN_ON(!xa_empty(&rnic_cm_comm_ids));
}
