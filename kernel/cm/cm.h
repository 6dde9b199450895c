/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rnic: software RDMA NIC - the connection manager: CM ids, their event
 * channels, addresses and the IB CM protocol.
 *
 * cm/cdev.c is the char device (/dev/infiniband/rnic_cm): files, ids,
 * events and the ioctls; cm/addr.c turns IP addresses into rnic devices,
 * GIDs and paths and keeps the port spaces; cm/proto.c speaks the IB CM
 * protocol (REQ, REP, RTU, REJ, DREQ, DREP MADs) through the GSI endpoint
 * (QP 1) of the devices, on whatever link the path takes.
 *
 * Directions: cdev.c calls addr.c and proto.c; proto.c calls addr.c and
 * queues events through cdev.c's rnic_cm_event_queue(); the link hands
 * MADs that arrive at QP 1 to rnic_cm_gsi_rcv(). The CM does not touch
 * QPs: userspace moves them with the attributes it gets (INIT_QP_ATTR).
 *
 * Locking: one mutex, rnic_cm_lock, protects every id's fields below (but
 * @ref), the tables of ids (by comm id, by remote comm id, by port), the
 * records of the peers' QPs (proto.c) and every file's handle table. The
 * ioctls and the work items (MADs that arrived, timers, the reaper) take
 * it; nothing in softirq does. A file's event queue has its own spinlock
 * (struct rnic_cm_file), so that GET_EVENT and poll() do not wait for
 * the protocol.
 */
#ifndef RNIC_CM_H
#define RNIC_CM_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kref.h>
#include <linux/sched.h>
#include <linux/socket.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <rdma/rnic-cm-abi.h>

#include "verbs/verbs.h"
#include "link/link.h"

/* A MAD: a 24-byte header and 232 bytes of a message (IBTA 13.4.2). */
#define RNIC_CM_MAD_SIZE	256
/* The GSI's Q_Key (IBTA 9.6.1.1.2) */
#define RNIC_CM_GSI_QKEY	0x80010000

extern struct mutex rnic_cm_lock;
extern struct workqueue_struct *rnic_cm_wq;
extern struct list_head rnic_cm_all;

/**
 * struct rnic_cm_file - an open /dev/infiniband/rnic_cm: an event channel
 * @ids: handle -> struct rnic_cm_id; rnic_cm_lock
 * @net: the opener's network namespace (a counted reference)
 * @pid: the opener's thread group (a counted reference), for the listing
 *	of ids (RNIC_NL_CMD_RES_CM_ID_GET)
 * @comm: its name at open time, likewise
 * @lock: protects @events
 * @events: queued struct rnic_cm_event, oldest first
 * @wait: GET_EVENT and poll() wait here for @events
 */
struct rnic_cm_file {
	struct xarray ids;
	struct net *net;
	struct pid *pid;
	char comm[TASK_COMM_LEN];
	spinlock_t lock; /* see above */
	struct list_head events;
	wait_queue_head_t wait;
};

struct rnic_cm_peer_qp;

/**
 * struct rnic_cm_conn - what a connection's two sides agreed on
 * @qpn: this side's QP
 * @psn: the starting PSN of this side's message (REQ or REP): in the IB
 *	CM the PSN a side names is the one its receive queue expects (its
 *	RTR rq_psn, the peer's RTS sq_psn), as the kernel's CM reads it
 * @remote_qpn: the peer's QP
 * @remote_psn: the starting PSN of the peer's message (this side's RTS
 *	sq_psn)
 * @responder_resources: READ/atomic requests this side takes in flight
 *	(its max_dest_rd_atomic)
 * @initiator_depth: ... this side sends (its max_rd_atomic)
 * @retry_count: transport retries of this side's QP: the active side's
 *	own, the passive side's from the REQ
 * @rnr_retry_count: RNR retries of this side's QP: the passive side's
 *	from the REQ, the active side's from the REP
 * @srq: this side's QP uses an SRQ
 * @flow_control: end-to-end flow control, as sent
 * @local_comm_id: this side's communication id (in rnic_cm_comm_ids)
 * @remote_comm_id: the peer's
 * @remote_guid: the peer's CA GUID (REQ/REP), network byte order
 * @tid: the transaction id of the exchange in progress
 * @resp_timeout_ms: how long to wait for the peer's answer to a message
 * @max_retries: how often to send it again before giving up
 * @retries: sent again so many times
 * @peer_qp: the record of the peer's QP (proto.c), from the REQ or REP
 *	that named it until the connection is over
 * @mad: the last message sent that waits for an answer (REQ, REP,
 *	DREQ), or the answer a duplicate gets (DREP, RTU, REJ)
 */
struct rnic_cm_conn {
	u32 qpn;
	u32 psn;
	u32 remote_qpn;
	u32 remote_psn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 srq;
	u8 flow_control;
	u32 local_comm_id;
	u32 remote_comm_id;
	__be64 remote_guid;
	u64 tid;
	u32 resp_timeout_ms;
	u8 max_retries;
	u8 retries;
	struct rnic_cm_peer_qp *peer_qp;
	u8 mad[RNIC_CM_MAD_SIZE];
};

/**
 * struct rnic_cm_id - a CM id (librdmacm's struct rdma_cm_id)
 * @ref: the file's handle table holds one while the id is findable,
 *	each queued event one, a pending timer one, each request id its
 *	listener's one
 * @file: the owning file; NULL once destroyed
 * @handle: index in @file's ids
 * @res_id: index in rnic_cm_ids (cdev.c), the listing's order; while
 *	@file is set
 * @uid: userspace's value for the id's events
 * @ps: enum rnic_cm_port_space
 * @qp_type: IBV_QPT_RC or IBV_QPT_UD
 * @state: enum rnic_cm_state
 * @reuseaddr: RNIC_CM_OPTION_ID_REUSEADDR
 * @afonly: RNIC_CM_OPTION_ID_AFONLY
 * @tos: RNIC_CM_OPTION_ID_TOS
 * @ack_timeout: local ACK timeout code of the QP
 * @src: source (bound) address; family 0 if none
 * @dst: destination address; family 0 if none
 * @bound: @src's port is taken in the port space (@bind_node)
 * @bind_node: in rnic_cm_binds
 * @rdev: the device the id is on (a device reference), or NULL
 * @av: the path to the peer, its route chosen (RNIC_CM_ROUTE_RESOLVED
 *	and later); @av.sgid_index is the GID of @src
 * @mtu: the path MTU, an enum ibv_mtu value
 * @backlog: a listener's requests not yet answered, at most
 * @pending: a listener's requests not yet answered
 * @listener: a request's listener (a reference), until accepted or
 *	rejected
 * @remote_node: in rnic_cm_remote (passive ids, by @conn.remote_comm_id)
 * @conn: the connection
 * @timer: retransmits @conn.mad, or ends the time wait; holds a
 *	reference while pending
 * @events_reported: events of the id read with GET_EVENT
 * @dev_node: in rnic_cm_all, for DEVICE_REMOVAL
 * @mcs: the multicast groups joined (struct rnic_cm_mc)
 * @nmcs: how many
 */
struct rnic_cm_id {
	struct kref ref;
	struct rnic_cm_file *file;
	u32 handle;
	u32 res_id;
	u64 uid;
	u16 ps;
	u8 qp_type;
	u8 state;
	bool reuseaddr;
	bool afonly;
	u8 tos;
	u8 ack_timeout;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	bool bound;
	struct hlist_node bind_node;
	struct rnic_dev *rdev;
	struct rnic_av av;
	u8 mtu;
	int backlog;
	int pending;
	struct rnic_cm_id *listener;
	struct hlist_node remote_node;
	struct rnic_cm_conn conn;
	struct delayed_work timer;
	u32 events_reported;
	struct list_head dev_node;
	struct list_head mcs;
	u8 nmcs;
};

/**
 * struct rnic_cm_mc - a multicast group an id joined
 * @node: in the id's mcs
 * @gid: the group's GID
 */
struct rnic_cm_mc {
	struct list_head node;
	u8 gid[16];
};

/**
 * struct rnic_cm_event - a queued event
 * @node: in the file's events
 * @id: the id (a reference)
 * @desc: what GET_EVENT returns (its out_ part)
 */
struct rnic_cm_event {
	struct list_head node;
	struct rnic_cm_id *id;
	struct rnic_cm_get_event desc;
};

/* cdev.c: files, ids, events */
void rnic_cm_id_put(struct rnic_cm_id *id);
struct rnic_cm_id *rnic_cm_id_create(struct rnic_cm_file *file, u16 ps,
				     u8 qp_type, u64 uid);
void rnic_cm_id_destroy(struct rnic_cm_id *id);
struct rnic_cm_event *rnic_cm_event_alloc(struct rnic_cm_id *id, u32 event,
					  int status);
void rnic_cm_event_queue(struct rnic_cm_event *ev);
void rnic_cm_event(struct rnic_cm_id *id, u32 event, int status);

/* addr.c: addresses, devices, paths, port spaces */
int rnic_cm_addr_check(const struct sockaddr_storage *addr);
bool rnic_cm_addr_any(const struct sockaddr_storage *addr);
u16 rnic_cm_port(const struct sockaddr_storage *addr);
void rnic_cm_set_port(struct sockaddr_storage *addr, u16 port);
void rnic_cm_addr_gid(const struct sockaddr_storage *addr, u8 *gid);
void rnic_cm_gid_addr(const u8 *gid, u16 port, struct sockaddr_storage *addr);
int rnic_cm_bind(struct rnic_cm_id *id, const struct sockaddr_storage *addr);
void rnic_cm_unbind(struct rnic_cm_id *id);
struct rnic_cm_id *rnic_cm_find_listener(struct net *net, u16 ps,
					 const struct sockaddr_storage *addr);
int rnic_cm_resolve_addr(struct rnic_cm_id *id,
			 const struct sockaddr_storage *src,
			 const struct sockaddr_storage *dst);
int rnic_cm_resolve_route(struct rnic_cm_id *id);
int rnic_cm_path(struct rnic_cm_id *id, const u8 *dgid, u8 hop_limit,
		 u8 traffic_class, u32 flow_label);
void rnic_cm_set_dev(struct rnic_cm_id *id, struct rnic_dev *rdev);
int rnic_cm_set_sgid(struct rnic_cm_id *id, const u8 *gid);
int rnic_cm_join(struct rnic_cm_id *id, const struct sockaddr_storage *addr,
		 u64 uid);
int rnic_cm_leave(struct rnic_cm_id *id, const struct sockaddr_storage *addr);
void rnic_cm_leave_all(struct rnic_cm_id *id);

/* proto.c: the IB CM protocol */
int rnic_cm_connect(struct rnic_cm_id *id,
		    const struct rnic_cm_conn_param *param);
int rnic_cm_accept(struct rnic_cm_id *id,
		   const struct rnic_cm_conn_param *param);
int rnic_cm_reject(struct rnic_cm_id *id, u16 reason, const u8 *pdata,
		   u8 len);
int rnic_cm_establish(struct rnic_cm_id *id);
int rnic_cm_disconnect(struct rnic_cm_id *id, const u8 *pdata, u8 len);
void rnic_cm_proto_destroy(struct rnic_cm_id *id);
void rnic_cm_timer_fn(struct work_struct *work);
int rnic_cm_init_qp_attr(struct rnic_cm_id *id, u32 qp_state,
			 struct rnic_qp_attr *attr, u32 *mask);
int rnic_cm_proto_init(void);
void rnic_cm_proto_exit(void);

#endif /* RNIC_CM_H */
