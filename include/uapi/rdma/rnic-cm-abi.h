/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * rnic: software RDMA NIC - connection manager char device ABI.
 *
 * The only contract between rnic.ko's connection manager and librnic's
 * librdmacm API (<rdma/rdma_cma.h>), on /dev/infiniband/rnic_cm.
 */
#ifndef _UAPI_RDMA_RNIC_CM_ABI_H
#define _UAPI_RDMA_RNIC_CM_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>

#include "rnic-abi.h"

/**
 * DOC: rnic connection manager ioctl contract
 *
 * /dev/infiniband/rnic_cm (a misc device, mode 0666; RNIC_CM_DEV_PATH) is
 * the connection manager of every rnic device. It does not collide with
 * the in-kernel stack's /dev/infiniband/rdma_cm. Opening it makes an
 * event channel (librdmacm's struct rdma_event_channel): the CM ids made
 * on the file belong to it, their events queue on it, and closing it
 * destroys them (an established connection is disconnected, a request
 * not yet answered is rejected). poll() and epoll report EPOLLIN while an
 * event is queued; RNIC_CM_IOCTL_GET_EVENT blocks while none is, or fails
 * with EAGAIN on an O_NONBLOCK file.
 *
 * Every ioctl takes a struct that starts with ``__u32 size, __u32 flags``,
 * with the same rules as rnic-abi.h (shorter and longer structs, ``out_``
 * fields, ``__reserved`` zero, flags 0 unless a command names some).
 * A CM id is named by a handle (``id``) valid on the file that made it.
 *
 * An id belongs to the network namespace of the process that opened the
 * file; addresses are that namespace's, and only rnic devices of it are
 * used. Addresses are struct rnic_cm_sockaddr: a struct sockaddr_in or
 * struct sockaddr_in6 (port in network byte order), the rest zero.
 *
 * Error contract, beyond rnic-abi.h's (ENOTTY, E2BIG, EINVAL, EFAULT):
 *
 * - ENOENT: no id of that handle on this file.
 * - EBADF: RNIC_CM_IOCTL_MIGRATE_ID's fd is not an open file (EINVAL: a
 *   file that is not an rnic_cm one).
 * - EINVAL: also a command the id's state does not allow (connect before
 *   the route is resolved, accept on an id that got no request, ...), an
 *   address family other than AF_INET and AF_INET6, private data longer
 *   than the message allows.
 * - EADDRINUSE: the port of the port space is bound already (by an id of
 *   this namespace that does not allow reuse).
 * - EADDRNOTAVAIL: an address no rnic device of the namespace has.
 * - EACCES: a port below 1024 without CAP_NET_BIND_SERVICE.
 * - EOPNOTSUPP: what this kernel does not do yet (the IB port space's
 *   connect, multicast join flags other than full member).
 *
 * Asynchronous failures (no route, no answer, a reject) are events, with
 * a negative errno or an IB CM reject reason in ``out_status`` as the
 * kernel's rdma_cm gives them.
 */

/** RNIC_CM_DEV_PATH - the connection manager's char device. */
#define RNIC_CM_DEV_PATH "/dev/infiniband/rnic_cm"

/**
 * enum rnic_cm_port_space - port spaces, librdmacm's enum rdma_port_space
 * @RNIC_CM_PS_IPOIB: UD ids
 * @RNIC_CM_PS_IB: any QP type (create_id's qp_type)
 * @RNIC_CM_PS_TCP: RC ids
 * @RNIC_CM_PS_UDP: UD ids
 */
enum rnic_cm_port_space {
	RNIC_CM_PS_IPOIB = 0x0002,
	RNIC_CM_PS_IB = 0x013F,
	RNIC_CM_PS_TCP = 0x0106,
	RNIC_CM_PS_UDP = 0x0111,
};

/**
 * enum rnic_cm_state - where an id is, as RNIC_NL_CMD_RES_CM_ID_GET
 *	reports it (rnic-netlink.h)
 * @RNIC_CM_IDLE: created (perhaps bound)
 * @RNIC_CM_ADDR_RESOLVED: has a device, a source and a destination
 * @RNIC_CM_ROUTE_RESOLVED: has a path to the destination
 * @RNIC_CM_LISTEN: takes requests
 * @RNIC_CM_REQ_SENT: active: the REQ is out, no REP yet
 * @RNIC_CM_REP_RCVD: active: CONNECT_RESPONSE queued, ESTABLISH (the
 *	RTU) not yet
 * @RNIC_CM_REQ_RCVD: passive: CONNECT_REQUEST queued, not yet accepted
 *	or rejected
 * @RNIC_CM_REP_SENT: passive: accepted, the REP is out, no RTU yet
 * @RNIC_CM_ESTABLISHED: connected
 * @RNIC_CM_DREQ_SENT: disconnecting: the DREQ is out, no DREP yet
 * @RNIC_CM_DREQ_RCVD: the peer's DREQ came: DISCONNECTED queued, the DREP
 *	goes when userspace disconnects too
 * @RNIC_CM_TIMEWAIT: disconnected; the connection's packets may still be
 *	in flight, TIMEWAIT_EXIT comes when they cannot
 * @RNIC_CM_DONE: the connection is over (or never was: rejected,
 *	unreachable); only destroy is left
 */
enum rnic_cm_state {
	RNIC_CM_IDLE,
	RNIC_CM_ADDR_RESOLVED,
	RNIC_CM_ROUTE_RESOLVED,
	RNIC_CM_LISTEN,
	RNIC_CM_REQ_SENT,
	RNIC_CM_REP_RCVD,
	RNIC_CM_REQ_RCVD,
	RNIC_CM_REP_SENT,
	RNIC_CM_ESTABLISHED,
	RNIC_CM_DREQ_SENT,
	RNIC_CM_DREQ_RCVD,
	RNIC_CM_TIMEWAIT,
	RNIC_CM_DONE,
};

/**
 * enum rnic_cm_event_type - events, librdmacm's enum rdma_cm_event_type
 *
 * The values are rdma-core's. ESTABLISHED is queued by the kernel on the
 * passive side (when the RTU arrives, or on RNIC_CM_IOCTL_NOTIFY); on the
 * active side the kernel queues CONNECT_RESPONSE and userspace, after
 * moving its QP to RTS and RNIC_CM_IOCTL_ESTABLISH, reports ESTABLISHED
 * itself, as librdmacm does.
 */
enum rnic_cm_event_type {
	RNIC_CM_EVENT_ADDR_RESOLVED,
	RNIC_CM_EVENT_ADDR_ERROR,
	RNIC_CM_EVENT_ROUTE_RESOLVED,
	RNIC_CM_EVENT_ROUTE_ERROR,
	RNIC_CM_EVENT_CONNECT_REQUEST,
	RNIC_CM_EVENT_CONNECT_RESPONSE,
	RNIC_CM_EVENT_CONNECT_ERROR,
	RNIC_CM_EVENT_UNREACHABLE,
	RNIC_CM_EVENT_REJECTED,
	RNIC_CM_EVENT_ESTABLISHED,
	RNIC_CM_EVENT_DISCONNECTED,
	RNIC_CM_EVENT_DEVICE_REMOVAL,
	RNIC_CM_EVENT_MULTICAST_JOIN,
	RNIC_CM_EVENT_MULTICAST_ERROR,
	RNIC_CM_EVENT_ADDR_CHANGE,
	RNIC_CM_EVENT_TIMEWAIT_EXIT,
};

/*
 * IB CM reject reasons an event's out_status may carry (IBTA 12.6.7.2,
 * the kernel's enum ib_cm_rej_reason); REJECTED events only.
 */
#define RNIC_CM_REJ_NO_QP		1
#define RNIC_CM_REJ_INVALID_SERVICE_ID	8
#define RNIC_CM_REJ_STALE_CONN		10
#define RNIC_CM_REJ_TIMEOUT		4
#define RNIC_CM_REJ_CONSUMER_DEFINED	28

/** RNIC_CM_UDP_QKEY - the Q_Key of UD ids' QPs (the kernel rdma_cm's) */
#define RNIC_CM_UDP_QKEY 0x01234567

/**
 * RNIC_CM_PRIVATE_DATA_MAX - size of a private data buffer
 *
 * What a message carries is less (the IB CM's limits): CONNECT 56 bytes
 * (the rest of a REQ's 92 is the rdma_cm header that makes rnic
 * interoperate with the kernel's rdma_cm), ACCEPT 196, REJECT 148,
 * DISCONNECT 220; on UD ids (SIDR) CONNECT 180 and ACCEPT and REJECT 136.
 */
#define RNIC_CM_PRIVATE_DATA_MAX 256

/* Private data bytes each message carries for the user. */
#define RNIC_CM_REQ_PRIVATE_DATA	56
#define RNIC_CM_REP_PRIVATE_DATA	196
#define RNIC_CM_REJ_PRIVATE_DATA	148
#define RNIC_CM_DREQ_PRIVATE_DATA	220
#define RNIC_CM_SIDR_REQ_PRIVATE_DATA	180
#define RNIC_CM_SIDR_REP_PRIVATE_DATA	136

/**
 * struct rnic_cm_sockaddr - an address: a struct sockaddr_in or struct
 *	sockaddr_in6, the rest zero (as big as struct sockaddr_storage)
 * @data: its bytes
 */
struct rnic_cm_sockaddr {
	__aligned_u64 data[16];
};

/**
 * struct rnic_cm_conn_param - librdmacm's struct rdma_conn_param
 * @qp_num: connect, accept: the id's QP number; in events: the peer's
 * @private_data_len: bytes of @private_data used
 * @responder_resources: RDMA READ/atomic requests this side takes in
 *	flight from the peer; clamped to the device's max_qp_rd_atom
 * @initiator_depth: ... this side sends; clamped to max_qp_init_rd_atom,
 *	and on accept to the peer's responder resources
 * @flow_control: end-to-end flow control (ignored, as RoCE does)
 * @retry_count: transport retries, 0 .. 7
 * @rnr_retry_count: RNR retries, 0 .. 7 (7: infinite)
 * @srq: the QP takes its receives from an SRQ (1) or not (0)
 * @__reserved: must be 0
 * @private_data: the user's private data
 */
struct rnic_cm_conn_param {
	__u32 qp_num;
	__u8 private_data_len;
	__u8 responder_resources;
	__u8 initiator_depth;
	__u8 flow_control;
	__u8 retry_count;
	__u8 rnr_retry_count;
	__u8 srq;
	__u8 __reserved;
	__u8 private_data[RNIC_CM_PRIVATE_DATA_MAX];
};

/**
 * struct rnic_cm_ud_param - how to reach a UD peer (librdmacm's struct
 *	rdma_ud_param)
 * @qp_num: its QP
 * @qkey: its Q_Key
 * @ah_attr: the address, for ibv_create_ah()
 */
struct rnic_cm_ud_param {
	__u32 qp_num;
	__u32 qkey;
	struct rnic_ah_attr ah_attr;
};

/**
 * enum rnic_cm_cmd - ioctl command numbers (after the verbs', same magic)
 * @RNIC_CM_CMD_CREATE_ID: &struct rnic_cm_create_id
 * @RNIC_CM_CMD_DESTROY_ID: &struct rnic_cm_destroy_id
 * @RNIC_CM_CMD_BIND_ADDR: &struct rnic_cm_bind_addr
 * @RNIC_CM_CMD_RESOLVE_ADDR: &struct rnic_cm_resolve_addr
 * @RNIC_CM_CMD_RESOLVE_ROUTE: &struct rnic_cm_resolve_route
 * @RNIC_CM_CMD_QUERY: &struct rnic_cm_query
 * @RNIC_CM_CMD_LISTEN: &struct rnic_cm_listen
 * @RNIC_CM_CMD_CONNECT: &struct rnic_cm_connect
 * @RNIC_CM_CMD_ACCEPT: &struct rnic_cm_accept
 * @RNIC_CM_CMD_REJECT: &struct rnic_cm_reject
 * @RNIC_CM_CMD_ESTABLISH: &struct rnic_cm_id_cmd
 * @RNIC_CM_CMD_DISCONNECT: &struct rnic_cm_disconnect
 * @RNIC_CM_CMD_NOTIFY: &struct rnic_cm_notify
 * @RNIC_CM_CMD_INIT_QP_ATTR: &struct rnic_cm_init_qp_attr
 * @RNIC_CM_CMD_GET_EVENT: &struct rnic_cm_get_event
 * @RNIC_CM_CMD_SET_OPTION: &struct rnic_cm_set_option
 * @RNIC_CM_CMD_MIGRATE_ID: &struct rnic_cm_migrate_id
 * @RNIC_CM_CMD_JOIN_MCAST: &struct rnic_cm_join_mcast
 * @RNIC_CM_CMD_LEAVE_MCAST: &struct rnic_cm_join_mcast
 * @RNIC_CM_CMD_BASE: the first number
 */
enum rnic_cm_cmd {
	RNIC_CM_CMD_BASE = 0xc0,
	RNIC_CM_CMD_CREATE_ID = RNIC_CM_CMD_BASE,
	RNIC_CM_CMD_DESTROY_ID,
	RNIC_CM_CMD_BIND_ADDR,
	RNIC_CM_CMD_RESOLVE_ADDR,
	RNIC_CM_CMD_RESOLVE_ROUTE,
	RNIC_CM_CMD_QUERY,
	RNIC_CM_CMD_LISTEN,
	RNIC_CM_CMD_CONNECT,
	RNIC_CM_CMD_ACCEPT,
	RNIC_CM_CMD_REJECT,
	RNIC_CM_CMD_ESTABLISH,
	RNIC_CM_CMD_DISCONNECT,
	RNIC_CM_CMD_NOTIFY,
	RNIC_CM_CMD_INIT_QP_ATTR,
	RNIC_CM_CMD_GET_EVENT,
	RNIC_CM_CMD_SET_OPTION,
	RNIC_CM_CMD_MIGRATE_ID,
	RNIC_CM_CMD_JOIN_MCAST,
	RNIC_CM_CMD_LEAVE_MCAST,
};

/**
 * struct rnic_cm_create_id - RNIC_CM_IOCTL_CREATE_ID (rdma_create_id)
 * @size: sizeof(struct rnic_cm_create_id)
 * @flags: must be 0
 * @uid: echoed in the id's events (out_uid)
 * @ps: enum rnic_cm_port_space
 * @qp_type: IBV_QPT_RC (2) or IBV_QPT_UD (4); RNIC_CM_PS_TCP needs RC,
 *	RNIC_CM_PS_UDP and RNIC_CM_PS_IPOIB need UD, RNIC_CM_PS_IB either
 * @__reserved: must be 0
 * @out_id: the new id's handle
 */
struct rnic_cm_create_id {
	__u32 size;
	__u32 flags;
	__aligned_u64 uid;
	__u16 ps;
	__u8 qp_type;
	__u8 __reserved;
	__u32 out_id;
};

/**
 * struct rnic_cm_id_cmd - a command that takes only an id
 *	(RNIC_CM_IOCTL_ESTABLISH: the active side, after CONNECT_RESPONSE and
 *	moving its QP to RTS, sends the RTU; rdma_establish())
 * @size: sizeof(struct rnic_cm_id_cmd)
 * @flags: must be 0
 * @id: the id
 * @__reserved: must be 0
 */
struct rnic_cm_id_cmd {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 __reserved;
};

/**
 * struct rnic_cm_destroy_id - RNIC_CM_IOCTL_DESTROY_ID (rdma_destroy_id)
 * @size: sizeof(struct rnic_cm_destroy_id)
 * @flags: must be 0
 * @id: the id
 * @__reserved: must be 0
 * @out_events_reported: events of the id read with GET_EVENT (since it
 *	was made, on every file it was on), so that userspace can wait
 *	until it has acknowledged them all; events still queued are
 *	dropped. A CONNECT_REQUEST counts against the request's new id, not
 *	the listener
 *
 * A connected id sends a DREQ, an id with an unanswered request sends a
 * REJ, a listener's requests not yet read are rejected.
 */
struct rnic_cm_destroy_id {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 __reserved;
	__u32 out_events_reported;
	__u32 __reserved2;
};

/**
 * struct rnic_cm_bind_addr - RNIC_CM_IOCTL_BIND_ADDR (rdma_bind_addr)
 * @size: sizeof(struct rnic_cm_bind_addr)
 * @flags: must be 0
 * @id: the id, not bound yet
 * @__reserved: must be 0
 * @addr: a wildcard or an address of an rnic device of the namespace
 *	(EADDRNOTAVAIL otherwise); port 0 picks a free one
 */
struct rnic_cm_bind_addr {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 __reserved;
	struct rnic_cm_sockaddr addr;
};

/**
 * struct rnic_cm_resolve_addr - RNIC_CM_IOCTL_RESOLVE_ADDR
 *	(rdma_resolve_addr)
 * @size: sizeof(struct rnic_cm_resolve_addr)
 * @flags: must be 0
 * @id: the id
 * @timeout_ms: how long resolution may take
 * @src_addr: the source; family 0 (AF_UNSPEC): the id's bound address, or
 *	the one the route to @dst_addr leaves from
 * @dst_addr: the destination
 *
 * Queues ADDR_RESOLVED (the id is then bound to an rnic device and a
 * source address, RNIC_CM_IOCTL_QUERY) or ADDR_ERROR (out_status
 * -ENETUNREACH: no route; -EADDRNOTAVAIL or -ENODEV: the source is not an
 * rnic device's).
 */
struct rnic_cm_resolve_addr {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 timeout_ms;
	struct rnic_cm_sockaddr src_addr;
	struct rnic_cm_sockaddr dst_addr;
};

/**
 * struct rnic_cm_resolve_route - RNIC_CM_IOCTL_RESOLVE_ROUTE
 *	(rdma_resolve_route)
 * @size: sizeof(struct rnic_cm_resolve_route)
 * @flags: must be 0
 * @id: the id, its address resolved
 * @timeout_ms: how long resolution may take
 *
 * Queues ROUTE_RESOLVED or ROUTE_ERROR.
 */
struct rnic_cm_resolve_route {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 timeout_ms;
};

/**
 * struct rnic_cm_query - RNIC_CM_IOCTL_QUERY: what userspace keeps in
 *	struct rdma_cm_id (addresses, device, route)
 * @size: sizeof(struct rnic_cm_query)
 * @flags: must be 0
 * @id: the id
 * @__reserved: must be 0
 * @out_src_addr: the bound or resolved source address (family 0 if none)
 * @out_dst_addr: the destination or, for a connection request's id, the
 *	peer's address (family 0 if none)
 * @out_dev_name: the rnic device the id is bound to, or empty
 * @out_node_guid: its node GUID (network byte order), 0 if none
 * @out_sgid: the source GID (from @out_src_addr)
 * @out_dgid: the destination GID
 * @out_pkey: the P_Key, 0xffff (host byte order)
 * @out_port_num: 1 when bound to a device, else 0
 * @out_num_paths: 1 once the route is resolved, else 0
 * @out_mtu: path MTU, an enum ibv_mtu value, once the route is resolved
 * @out_hop_limit: hop limit / TTL of the path
 * @out_traffic_class: traffic class / TOS of the path
 * @out_sl: service level
 * @out_flow_label: IPv6 flow label
 * @out_packet_life_time: IB packet life time code of the path
 * @out_rate: enum ibv_rate value of the path
 * @out_ps: the id's port space
 * @out_qp_type: the id's QP type
 * @out_gid_index: the GID table index of @out_sgid
 * @out___reserved: always 0
 */
struct rnic_cm_query {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 __reserved;
	struct rnic_cm_sockaddr out_src_addr;
	struct rnic_cm_sockaddr out_dst_addr;
	char out_dev_name[RNIC_DEV_NAME_MAX];
	__aligned_u64 out_node_guid;
	__u8 out_sgid[16];
	__u8 out_dgid[16];
	__u16 out_pkey;
	__u8 out_port_num;
	__u8 out_num_paths;
	__u8 out_mtu;
	__u8 out_hop_limit;
	__u8 out_traffic_class;
	__u8 out_sl;
	__u32 out_flow_label;
	__u8 out_packet_life_time;
	__u8 out_rate;
	__u16 out_ps;
	__u8 out_qp_type;
	__u8 out_gid_index;
	__u16 out___reserved;
};

/**
 * struct rnic_cm_listen - RNIC_CM_IOCTL_LISTEN (rdma_listen)
 * @size: sizeof(struct rnic_cm_listen)
 * @flags: must be 0
 * @id: the id, bound (an unbound id is bound to the wildcard, any port)
 * @backlog: requests queued and not yet accepted or rejected at most;
 *	more are rejected. 0 or negative: a default (128)
 */
struct rnic_cm_listen {
	__u32 size;
	__u32 flags;
	__u32 id;
	__s32 backlog;
};

/**
 * struct rnic_cm_connect - RNIC_CM_IOCTL_CONNECT (rdma_connect)
 * @size: sizeof(struct rnic_cm_connect)
 * @flags: must be 0
 * @id: the id, its route resolved
 * @__reserved: must be 0
 * @conn: the QP and the connection's parameters
 *
 * Sends a REQ. Then CONNECT_RESPONSE (the peer accepted: move the QP to
 * RTR and RTS with RNIC_CM_IOCTL_INIT_QP_ATTR, then ESTABLISH), REJECTED
 * (out_status the reason, private data the peer's), or UNREACHABLE
 * (no answer after the IB CM's retries: out_status -ETIMEDOUT).
 *
 * A UD id sends a SIDR_REQ (@conn: only the private data counts). Then
 * ESTABLISHED with the peer's QP, Q_Key and address in out_ud, or
 * UNREACHABLE: out_status the SIDR status (1: nobody listens, 2: the
 * peer rejected) or -ETIMEDOUT.
 */
struct rnic_cm_connect {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 __reserved;
	struct rnic_cm_conn_param conn;
};

/**
 * struct rnic_cm_accept - RNIC_CM_IOCTL_ACCEPT (rdma_accept)
 * @size: sizeof(struct rnic_cm_accept)
 * @flags: must be 0
 * @id: a connection request's id
 * @__reserved: must be 0
 * @uid: the id's uid from now on (a request's id starts with its
 *	listener's)
 * @conn: the QP (moved to RTR and RTS already) and parameters
 *
 * Sends a REP. Then ESTABLISHED (the RTU arrived) or CONNECT_ERROR (no
 * RTU after the retries: out_status -ETIMEDOUT). A request whose
 * requester gives up before it is answered (its id destroyed, its
 * retries out) gets REJECTED (out_status 4, RNIC_CM_REJ_TIMEOUT), and
 * accepting it is then EINVAL. A UD request's id sends
 * the SIDR_REP with its QP (@conn.qp_num) and RNIC_CM_UDP_QKEY; no event
 * follows.
 */
struct rnic_cm_accept {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 __reserved;
	__aligned_u64 uid;
	struct rnic_cm_conn_param conn;
};

/**
 * struct rnic_cm_reject - RNIC_CM_IOCTL_REJECT (rdma_reject)
 * @size: sizeof(struct rnic_cm_reject)
 * @flags: must be 0
 * @id: a connection request's id
 * @reason: 0: RNIC_CM_REJ_CONSUMER_DEFINED (a UD request's id answers
 *	with SIDR status 2, reject, whatever the reason)
 * @private_data_len: bytes of @private_data, RNIC_CM_REJ_PRIVATE_DATA
 *	at most (a UD request's: RNIC_CM_SIDR_REP_PRIVATE_DATA)
 * @__reserved: must be 0
 * @private_data: what the peer's REJECTED event carries
 */
struct rnic_cm_reject {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u16 reason;
	__u8 private_data_len;
	__u8 __reserved;
	__u8 private_data[RNIC_CM_PRIVATE_DATA_MAX];
};

/**
 * struct rnic_cm_disconnect - RNIC_CM_IOCTL_DISCONNECT (rdma_disconnect)
 * @size: sizeof(struct rnic_cm_disconnect)
 * @flags: must be 0
 * @id: a connected id
 * @private_data_len: bytes of @private_data, RNIC_CM_DREQ_PRIVATE_DATA
 *	at most
 * @__reserved: must be 0
 * @private_data: sent with the DREQ
 *
 * Sends a DREQ (or, if the peer's DREQ came first, the DREP); on an id
 * whose connection is being made or is over already, does nothing and
 * succeeds (EINVAL only for an id that never connected). Both sides
 * get DISCONNECTED once: the side that asked when the DREP arrives (or
 * after the retries), the other when the DREQ arrives. TIMEWAIT_EXIT
 * follows when the connection's packets can no longer be in flight.
 */
struct rnic_cm_disconnect {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u8 private_data_len;
	__u8 __reserved[3];
	__u8 private_data[RNIC_CM_PRIVATE_DATA_MAX];
};

/**
 * struct rnic_cm_notify - RNIC_CM_IOCTL_NOTIFY (rdma_notify)
 * @size: sizeof(struct rnic_cm_notify)
 * @flags: must be 0
 * @id: the id
 * @event: an enum ibv_event_type value its QP raised; IBV_EVENT_COMM_EST
 *	(4) on the passive side before the RTU establishes the connection
 *	(ESTABLISHED is queued); others are ignored
 */
struct rnic_cm_notify {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 event;
};

/**
 * struct rnic_cm_init_qp_attr - RNIC_CM_IOCTL_INIT_QP_ATTR
 *	(rdma_init_qp_attr)
 * @size: sizeof(struct rnic_cm_init_qp_attr)
 * @flags: must be 0
 * @id: the id
 * @qp_state: RNIC_QPS_INIT (once the address is resolved, or for a
 *	request's id), RNIC_QPS_RTR or RNIC_QPS_RTS (once connect got its
 *	response, or for an accepting id)
 * @out_attr_mask: enum rnic_qp_attr_mask bits of @out_attr to set, with
 *	RNIC_IOCTL_MODIFY_QP as they are
 * @__reserved: must be 0
 * @out_attr: the attributes
 */
struct rnic_cm_init_qp_attr {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 qp_state;
	__u32 out_attr_mask;
	__u32 __reserved;
	struct rnic_qp_attr out_attr;
};

/**
 * struct rnic_cm_get_event - RNIC_CM_IOCTL_GET_EVENT (rdma_get_cm_event)
 * @size: sizeof(struct rnic_cm_get_event)
 * @flags: must be 0
 * @out_uid: the id's uid (CONNECT_REQUEST: the listener's)
 * @out_id: the id (CONNECT_REQUEST: the new id of the request, on this
 *	file; its addresses and route are ready for RNIC_CM_IOCTL_QUERY)
 * @out_event: enum rnic_cm_event_type
 * @out_status: 0, a negative errno, or for REJECTED the reject reason
 * @out_listen_id: CONNECT_REQUEST: the listener's handle; else 0
 * @out_conn: CONNECT_REQUEST, CONNECT_RESPONSE, ESTABLISHED, REJECTED,
 *	DISCONNECTED: the peer's parameters and private data (responder
 *	resources and initiator depth as the peer sent them)
 * @out_ud: UD ids: how to reach the peer (MULTICAST_JOIN: the group)
 *
 * MULTICAST_JOIN and MULTICAST_ERROR carry the join's uid in @out_uid.
 */
struct rnic_cm_get_event {
	__u32 size;
	__u32 flags;
	__aligned_u64 out_uid;
	__u32 out_id;
	__u32 out_event;
	__s32 out_status;
	__u32 out_listen_id;
	struct rnic_cm_conn_param out_conn;
	struct rnic_cm_ud_param out_ud;
};

/* set_option levels and names: rdma-core's values */
#define RNIC_CM_OPTION_ID		0
#define RNIC_CM_OPTION_ID_TOS		0
#define RNIC_CM_OPTION_ID_REUSEADDR	1
#define RNIC_CM_OPTION_ID_AFONLY	2
#define RNIC_CM_OPTION_ID_ACK_TIMEOUT	3
#define RNIC_CM_OPTION_IB		1
#define RNIC_CM_OPTION_IB_PATH		1

/**
 * struct rnic_cm_set_option - RNIC_CM_IOCTL_SET_OPTION (rdma_set_option)
 * @size: sizeof(struct rnic_cm_set_option)
 * @flags: must be 0
 * @id: the id
 * @level: RNIC_CM_OPTION_ID
 * @optname: RNIC_CM_OPTION_ID_TOS (@value: the IP TOS of the id's
 *	connections, 0 .. 255), RNIC_CM_OPTION_ID_REUSEADDR (@value 0 or 1,
 *	before binding), RNIC_CM_OPTION_ID_AFONLY (0 or 1: an IPv6 wildcard
 *	listener takes IPv6 only, before binding), RNIC_CM_OPTION_ID_ACK_TIMEOUT
 *	(the QP's local ACK timeout code, 0 .. 31); others EOPNOTSUPP
 * @__reserved: must be 0
 * @value: the option's value
 */
struct rnic_cm_set_option {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 level;
	__u32 optname;
	__u32 __reserved;
	__aligned_u64 value;
};

/**
 * struct rnic_cm_migrate_id - RNIC_CM_IOCTL_MIGRATE_ID (rdma_migrate_id),
 *	issued on the file the id moves to
 * @size: sizeof(struct rnic_cm_migrate_id)
 * @flags: must be 0
 * @fd: the file the id is on now
 * @id: its handle there
 * @out_id: its handle on this file
 * @out_events_reported: events of the id read so far, on every file
 *	it was on (as DESTROY_ID counts them)
 *
 * The id's queued events move with it.
 */
struct rnic_cm_migrate_id {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 id;
	__u32 out_id;
	__u32 out_events_reported;
};

/* join_flags of struct rnic_cm_join_mcast, librdmacm's values */
#define RNIC_CM_MC_JOIN_FULLMEMBER	0x1
#define RNIC_CM_MC_JOIN_SENDONLY_FULLMEMBER 0x8

/* groups an id may be joined to at once */
#define RNIC_CM_MC_MAX			64

/**
 * struct rnic_cm_join_mcast - RNIC_CM_IOCTL_JOIN_MCAST
 *	(rdma_join_multicast) and RNIC_CM_IOCTL_LEAVE_MCAST
 *	(rdma_leave_multicast)
 * @size: sizeof(struct rnic_cm_join_mcast)
 * @flags: must be 0
 * @id: a UD id on a device (its address bound or resolved)
 * @join_flags: RNIC_CM_MC_JOIN_FULLMEMBER or
 *	RNIC_CM_MC_JOIN_SENDONLY_FULLMEMBER; leave: must be 0
 * @uid: join: what the group's events carry in out_uid; leave: must be 0
 * @addr: the group: an IPv4 (224.0.0.0/4) or IPv6 (ff00::/8) multicast
 *	address of the id's family
 *
 * RoCE has no subnet administrator: the group's GID is its address as a
 * GID (::ffff:a.b.c.d for IPv4), and joining succeeds at once:
 * MULTICAST_JOIN is queued with out_ud: QP 0xffffff, RNIC_CM_UDP_QKEY
 * and the group's address, for ibv_attach_mcast() and ibv_create_ah().
 * Joining a group the id is in is EADDRINUSE, more than RNIC_CM_MC_MAX
 * groups ENOSPC; leaving a group not joined is EADDRNOTAVAIL. Destroying
 * the id leaves its groups.
 */
struct rnic_cm_join_mcast {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 join_flags;
	__aligned_u64 uid;
	struct rnic_cm_sockaddr addr;
};

#define RNIC_CM_IOCTL_CREATE_ID _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_CREATE_ID)
#define RNIC_CM_IOCTL_DESTROY_ID _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_DESTROY_ID)
#define RNIC_CM_IOCTL_BIND_ADDR _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_BIND_ADDR)
#define RNIC_CM_IOCTL_RESOLVE_ADDR \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_RESOLVE_ADDR)
#define RNIC_CM_IOCTL_RESOLVE_ROUTE \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_RESOLVE_ROUTE)
#define RNIC_CM_IOCTL_QUERY _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_QUERY)
#define RNIC_CM_IOCTL_LISTEN _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_LISTEN)
#define RNIC_CM_IOCTL_CONNECT _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_CONNECT)
#define RNIC_CM_IOCTL_ACCEPT _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_ACCEPT)
#define RNIC_CM_IOCTL_REJECT _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_REJECT)
#define RNIC_CM_IOCTL_ESTABLISH _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_ESTABLISH)
#define RNIC_CM_IOCTL_DISCONNECT \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_DISCONNECT)
#define RNIC_CM_IOCTL_NOTIFY _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_NOTIFY)
#define RNIC_CM_IOCTL_INIT_QP_ATTR \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_INIT_QP_ATTR)
#define RNIC_CM_IOCTL_GET_EVENT _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_GET_EVENT)
#define RNIC_CM_IOCTL_SET_OPTION \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_SET_OPTION)
#define RNIC_CM_IOCTL_MIGRATE_ID \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_MIGRATE_ID)
#define RNIC_CM_IOCTL_JOIN_MCAST \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_JOIN_MCAST)
#define RNIC_CM_IOCTL_LEAVE_MCAST \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_LEAVE_MCAST)

#endif /* _UAPI_RDMA_RNIC_CM_ABI_H */
