/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * rnic: software RDMA NIC - generic netlink management ABI.
 */
#ifndef _UAPI_RDMA_RNIC_NETLINK_H
#define _UAPI_RDMA_RNIC_NETLINK_H

/**
 * DOC: rnic generic netlink family
 *
 * Devices are created, removed and listed over the generic netlink family
 * RNIC_GENL_NAME. RNIC_NL_CMD_LINK_ADD, RNIC_NL_CMD_LINK_DEL and
 * RNIC_NL_CMD_LINK_SET need CAP_NET_ADMIN; RNIC_NL_CMD_LINK_GET is open to everybody and supports
 * dumps (NLM_F_DUMP) as well as a single device named by
 * RNIC_NL_ATTR_DEV_NAME.
 *
 * Errors come back as a netlink error with an extended ACK message:
 *
 * - EINVAL: missing or malformed attribute (a name that is empty, too long
 *   or contains '/', ':' or white space; a fault setting out of its range,
 *   enum rnic_nl_fault; a SET that sets nothing).
 * - EEXIST: a device of that name exists, or the netdev is already bound
 *   to another rnic device.
 * - ENODEV: no such rnic device (DEL, GET) or no such netdev (ADD).
 * - ENOSPC: all RNIC_MAX_DEVICES device slots are in use.
 * - EPERM: ADD, DEL or SET without CAP_NET_ADMIN.
 *
 * ADD, DEL and SET answer with an ACK. A LINK_GET answer carries, per
 * device, the RNIC_NL_ATTR_* attributes listed in enum rnic_nl_attr
 * (NETDEV, NETDEV_INDEX and NETDEV_MTU only for a bound device, MAX_BURST
 * only if it was set, FAULT always). Userspace must skip
 * attributes it does not know.
 */

#define RNIC_GENL_NAME "rnic"
#define RNIC_GENL_VERSION 1

/** RNIC_MAX_DEVICES - how many rnic devices can exist at once. */
#define RNIC_MAX_DEVICES 256

/**
 * enum rnic_nl_cmd - generic netlink commands
 * @RNIC_NL_CMD_UNSPEC: unused
 * @RNIC_NL_CMD_LINK_GET: show one device (DEV_NAME) or dump all
 * @RNIC_NL_CMD_LINK_ADD: create a device: DEV_NAME, optional NETDEV and
 *	MAX_BURST
 * @RNIC_NL_CMD_LINK_DEL: remove a device: DEV_NAME
 * @RNIC_NL_CMD_RES_GET: resources of one device (DEV_NAME) or of all (dump)
 * @RNIC_NL_CMD_STAT_GET: counters of one device (DEV_NAME) or of all (dump)
 * @RNIC_NL_CMD_RES_QP_GET: dump only: one message per QP of every device, or
 *	of the device named by DEV_NAME
 * @RNIC_NL_CMD_RES_MR_GET: dump only: one message per MR, likewise
 * @RNIC_NL_CMD_RES_PD_GET: dump only: one message per PD, likewise
 * @RNIC_NL_CMD_RES_CQ_GET: dump only: one message per CQ, likewise
 * @RNIC_NL_CMD_LINK_SET: change a device: DEV_NAME and FAULT (fault
 *	injection); the settings FAULT holds change, the others stay
 * @RNIC_NL_CMD_RES_CM_ID_GET: dump only: one message per connection
 *	manager id (/dev/infiniband/rnic_cm), or per id on the device named
 *	by DEV_NAME
 */
enum rnic_nl_cmd {
	RNIC_NL_CMD_UNSPEC,
	RNIC_NL_CMD_LINK_GET,
	RNIC_NL_CMD_LINK_ADD,
	RNIC_NL_CMD_LINK_DEL,
	RNIC_NL_CMD_RES_GET,
	RNIC_NL_CMD_STAT_GET,
	RNIC_NL_CMD_RES_QP_GET,
	RNIC_NL_CMD_RES_MR_GET,
	RNIC_NL_CMD_RES_PD_GET,
	RNIC_NL_CMD_RES_CQ_GET,
	RNIC_NL_CMD_LINK_SET,
	RNIC_NL_CMD_RES_CM_ID_GET,

	__RNIC_NL_CMD_MAX,
	RNIC_NL_CMD_MAX = __RNIC_NL_CMD_MAX - 1
};

/**
 * enum rnic_nl_attr - generic netlink attributes
 * @RNIC_NL_ATTR_UNSPEC: unused
 * @RNIC_NL_ATTR_PAD: padding for 64-bit attributes
 * @RNIC_NL_ATTR_DEV_NAME: NUL-terminated string, device name (rnic0)
 * @RNIC_NL_ATTR_DEV_INDEX: u32, device index (stable while it exists)
 * @RNIC_NL_ATTR_NETDEV: NUL-terminated string, bound netdev name
 * @RNIC_NL_ATTR_NETDEV_INDEX: u32, bound netdev ifindex
 * @RNIC_NL_ATTR_UVERBS: NUL-terminated string, char device name
 *	(uverbsN, the node is /dev/infiniband/uverbsN)
 * @RNIC_NL_ATTR_NODE_GUID: u64, node GUID in network byte order
 * @RNIC_NL_ATTR_PORT_STATE: u8, port 1 state, a value of enum ibv_port_state
 * @RNIC_NL_ATTR_ACTIVE_MTU: u32, port 1 active MTU in bytes
 * @RNIC_NL_ATTR_NETDEV_MTU: u32, MTU of the bound netdev in bytes
 * @RNIC_NL_ATTR_CONTEXTS: u32, open verbs contexts
 * @RNIC_NL_ATTR_GID_TABLE: nest of RNIC_NL_ATTR_GID_ENTRY, the non-empty
 *	entries of the port 1 GID table
 * @RNIC_NL_ATTR_GID_ENTRY: nest of RNIC_NL_ATTR_GID_INDEX and RNIC_NL_ATTR_GID
 * @RNIC_NL_ATTR_GID_INDEX: u32, GID table index
 * @RNIC_NL_ATTR_GID: binary, 16 bytes, GID in network byte order
 * @RNIC_NL_ATTR_RES_PD: u32, protection domains
 * @RNIC_NL_ATTR_RES_MR: u32, memory regions
 * @RNIC_NL_ATTR_RES_PINNED: u64, bytes pinned by memory regions
 * @RNIC_NL_ATTR_CTX_TABLE: nest of RNIC_NL_ATTR_CTX_ENTRY, one per open
 *	context of the device
 * @RNIC_NL_ATTR_CTX_ENTRY: nest: CTX_ID, CTX_PID, CTX_COMM and the RES_*
 *	counts of one context
 * @RNIC_NL_ATTR_CTX_ID: u32, context id, unique on the device while open
 * @RNIC_NL_ATTR_CTX_PID: u32, process (thread group) that opened it
 * @RNIC_NL_ATTR_CTX_COMM: NUL-terminated string, that process's name
 * @RNIC_NL_ATTR_RES_CHANNEL: u32, completion channels
 * @RNIC_NL_ATTR_RES_CQ: u32, completion queues
 * @RNIC_NL_ATTR_RES_SRQ: u32, shared receive queues
 * @RNIC_NL_ATTR_RES_QP: u32, queue pairs
 * @RNIC_NL_ATTR_RES_AH: u32, address handles
 * @RNIC_NL_ATTR_RES_MW: u32, memory windows
 * @RNIC_NL_ATTR_RES_XRCD: u32, handles on XRC domains
 * @RNIC_NL_ATTR_RES_TGT_QP: u32, handles on XRC TGT QPs (the TGT QPs
 *	themselves belong to their domains, and count in the device's
 *	RES_QP but in no context's)
 * @RNIC_NL_ATTR_RES_CM_STATE: u8, a CM id's state (enum rnic_cm_state,
 *	rnic-cm-abi.h)
 * @RNIC_NL_ATTR_RES_CM_PS: u32, its port space (enum rnic_cm_port_space)
 * @RNIC_NL_ATTR_RES_SRC_ADDR: binary, struct rnic_cm_sockaddr
 *	(rnic-cm-abi.h): its bound source address and port
 * @RNIC_NL_ATTR_RES_DST_ADDR: binary, struct rnic_cm_sockaddr: its
 *	destination (a listener's requests: the requester's address)
 * @RNIC_NL_ATTR_CTX_TRUNCATED: flag: CTX_TABLE lists only the first open
 *	contexts, as many as fit in one message
 * @RNIC_NL_ATTR_COUNTERS: nest of the device's counters (STAT_GET), one
 *	u64 attribute per counter, typed by enum rnic_nl_counter
 * @RNIC_NL_ATTR_PORT_INDEX: u32, the port a LINK_GET or STAT_GET answer
 *	is about: 1, the device's only port
 * @RNIC_NL_ATTR_PORT_PHYS_STATE: u8, port 1 physical state (IB values as
 *	enum ibv_port_attr.phys_state: 5 LinkUp, 3 Disabled)
 * @RNIC_NL_ATTR_RES_LQPN: u32, a QP's number
 * @RNIC_NL_ATTR_RES_RQPN: u32, its destination QP number (RC and UC only)
 * @RNIC_NL_ATTR_RES_QP_TYPE: u8, its type (enum ibv_qp_type values)
 * @RNIC_NL_ATTR_RES_QP_STATE: u8, its state (enum ibv_qp_state values)
 * @RNIC_NL_ATTR_RES_SQ_PSN: u32, its sq_psn as last modified
 * @RNIC_NL_ATTR_RES_RQ_PSN: u32, its rq_psn as last modified (RC and UC)
 * @RNIC_NL_ATTR_RES_LKEY: u32, an MR's lkey; only to a reader with
 *	CAP_NET_ADMIN (the keys' random part is the MR's protection)
 * @RNIC_NL_ATTR_RES_RKEY: u32, its rkey; likewise
 * @RNIC_NL_ATTR_RES_MRLEN: u64, its length in bytes
 * @RNIC_NL_ATTR_RES_HANDLE: u32, a PD's or CQ's handle in its context
 *	(the number its context knows it by; unique in the context only)
 * @RNIC_NL_ATTR_RES_USERS: u32, references to a PD or CQ besides its
 *	context's: the objects that use it, and lookups in progress
 * @RNIC_NL_ATTR_RES_CQE: u32, a CQ's size: entries of its ring
 * @RNIC_NL_ATTR_MAX_BURST: u32, bytes of a SEND or WRITE message that one
 *	request may carry at most on the device's links, fixed at LINK_ADD;
 *	LINK_GET reports it only when it was given. The requester cuts
 *	messages into bursts of whole packets: absent or 0, as large as the
 *	link allows (64 KiB on the local link); below the path MTU, one
 *	packet per request, as a wire link sends them
 * @RNIC_NL_ATTR_FAULT: nest of the device's fault injection settings,
 *	typed by enum rnic_nl_fault: what LINK_SET sets (the settings it
 *	holds) and LINK_GET reports (every setting, 0 when off)
 *
 * A RES_GET answer has, per device, DEV_NAME, DEV_INDEX, the RES_* totals
 * of the device and a CTX_TABLE, followed by CTX_TRUNCATED when not every
 * context fit (a nest holds at most 64 KiB: about 500 contexts).
 *
 * A STAT_GET answer has, per device, DEV_NAME, DEV_INDEX, PORT_INDEX and
 * COUNTERS.
 *
 * A RES_QP_GET, RES_MR_GET, RES_PD_GET or RES_CQ_GET dump has one
 * message per object of the caller's network namespace's devices whose
 * context was opened by a process the caller's pid namespace sees:
 * DEV_NAME, DEV_INDEX, CTX_ID, CTX_PID (as the caller's pid namespace
 * numbers it), CTX_COMM, then LQPN, RQPN, QP_TYPE, QP_STATE, SQ_PSN,
 * RQ_PSN for a QP, LKEY, RKEY, MRLEN for an MR, HANDLE and USERS for a
 * PD, HANDLE, USERS and CQE for a CQ. Objects are listed per device,
 * context and handle; one created or destroyed during the dump may be
 * missed.
 *
 * A RES_CM_ID_GET dump has one message per CM id made on an rnic_cm file
 * opened in the caller's network namespace by a process the caller's pid
 * namespace sees, in the order the ids were made: CTX_PID and CTX_COMM
 * (of the process that opened the file), RES_CM_STATE, RES_CM_PS,
 * RES_QP_TYPE, then DEV_NAME and DEV_INDEX once the id is on a device,
 * RES_SRC_ADDR once bound, RES_DST_ADDR once it has a destination, and
 * RES_LQPN once connect or accept named a QP.
 */
enum rnic_nl_attr {
	RNIC_NL_ATTR_UNSPEC,
	RNIC_NL_ATTR_PAD,
	RNIC_NL_ATTR_DEV_NAME,
	RNIC_NL_ATTR_DEV_INDEX,
	RNIC_NL_ATTR_NETDEV,
	RNIC_NL_ATTR_NETDEV_INDEX,
	RNIC_NL_ATTR_UVERBS,
	RNIC_NL_ATTR_NODE_GUID,
	RNIC_NL_ATTR_PORT_STATE,
	RNIC_NL_ATTR_ACTIVE_MTU,
	RNIC_NL_ATTR_NETDEV_MTU,
	RNIC_NL_ATTR_CONTEXTS,
	RNIC_NL_ATTR_GID_TABLE,
	RNIC_NL_ATTR_GID_ENTRY,
	RNIC_NL_ATTR_GID_INDEX,
	RNIC_NL_ATTR_GID,
	RNIC_NL_ATTR_RES_PD,
	RNIC_NL_ATTR_RES_MR,
	RNIC_NL_ATTR_RES_PINNED,
	RNIC_NL_ATTR_CTX_TABLE,
	RNIC_NL_ATTR_CTX_ENTRY,
	RNIC_NL_ATTR_CTX_ID,
	RNIC_NL_ATTR_CTX_PID,
	RNIC_NL_ATTR_CTX_COMM,
	RNIC_NL_ATTR_RES_CHANNEL,
	RNIC_NL_ATTR_RES_CQ,
	RNIC_NL_ATTR_RES_SRQ,
	RNIC_NL_ATTR_RES_QP,
	RNIC_NL_ATTR_RES_AH,
	RNIC_NL_ATTR_CTX_TRUNCATED,
	RNIC_NL_ATTR_COUNTERS,
	RNIC_NL_ATTR_PORT_INDEX,
	RNIC_NL_ATTR_PORT_PHYS_STATE,
	RNIC_NL_ATTR_RES_LQPN,
	RNIC_NL_ATTR_RES_RQPN,
	RNIC_NL_ATTR_RES_QP_TYPE,
	RNIC_NL_ATTR_RES_QP_STATE,
	RNIC_NL_ATTR_RES_SQ_PSN,
	RNIC_NL_ATTR_RES_RQ_PSN,
	RNIC_NL_ATTR_RES_LKEY,
	RNIC_NL_ATTR_RES_RKEY,
	RNIC_NL_ATTR_RES_MRLEN,
	RNIC_NL_ATTR_RES_HANDLE,
	RNIC_NL_ATTR_RES_USERS,
	RNIC_NL_ATTR_RES_CQE,
	RNIC_NL_ATTR_MAX_BURST,
	RNIC_NL_ATTR_FAULT,
	RNIC_NL_ATTR_RES_MW,
	RNIC_NL_ATTR_RES_XRCD,
	RNIC_NL_ATTR_RES_TGT_QP,
	RNIC_NL_ATTR_RES_CM_STATE,
	RNIC_NL_ATTR_RES_CM_PS,
	RNIC_NL_ATTR_RES_SRC_ADDR,
	RNIC_NL_ATTR_RES_DST_ADDR,

	__RNIC_NL_ATTR_MAX,
	RNIC_NL_ATTR_MAX = __RNIC_NL_ATTR_MAX - 1
};

/**
 * enum rnic_nl_counter - device counters, the attributes of
 *	RNIC_NL_ATTR_COUNTERS
 * @RNIC_NL_COUNTER_UNSPEC: no counter; pads the nest for 64-bit alignment
 * @RNIC_NL_COUNTER_REQ_NOT_PEER: RC and UC requests that arrived for a
 *	connected QP of the device from another QP or path than the one it
 *	was connected to (its peer), and were dropped
 * @RNIC_NL_COUNTER_RESP_NOT_PEER: RC responses (ACK, NAK, READ response,
 *	atomic ACK) dropped likewise
 * @RNIC_NL_COUNTER_SENT_PKTS: packets the device's QPs handed to the link:
 *	requests, responses and acknowledgements. The local link carries a
 *	burst of up to 64 KiB of one message as one packet.
 * @RNIC_NL_COUNTER_RCVD_PKTS: packets the link delivered to a QP of the
 *	device, before the QP's own checks (a UD multicast datagram counts
 *	once per attached QP)
 * @RNIC_NL_COUNTER_DUPLICATE_REQUEST: RC requests with a PSN before the
 *	expected one, answered again
 * @RNIC_NL_COUNTER_OUT_OF_SEQ_REQUEST: RC requests with a PSN after the
 *	expected one (packets were lost) for which a PSN sequence error NAK
 *	was sent; the following ones until the gap closes are dropped
 *	uncounted
 * @RNIC_NL_COUNTER_RCVD_RNR_ERR: RNR NAKs received by the device's RC
 *	requesters
 * @RNIC_NL_COUNTER_SEND_RNR_ERR: RNR NAKs sent by the device's RC
 *	responders (a SEND found no receive WQE)
 * @RNIC_NL_COUNTER_RCVD_SEQ_ERR: PSN sequence error NAKs received by the
 *	device's RC requesters
 * @RNIC_NL_COUNTER_RETRY_EXCEEDED_ERR: work requests completed with
 *	IBV_WC_RETRY_EXC_ERR (the transport retries ran out)
 * @RNIC_NL_COUNTER_RETRY_RNR_EXCEEDED_ERR: work requests completed with
 *	IBV_WC_RNR_RETRY_EXC_ERR (the RNR retries ran out)
 * @RNIC_NL_COUNTER_COMPLETER_RETRY_ERR: transport retries started (the
 *	local ACK timeout expired with retries left)
 * @RNIC_NL_COUNTER_SEND_ERR: packets the link failed to send; the local
 *	link never fails (a packet nobody receives is dropped, below), the
 *	udp link fails without a route, a bound netdev or memory
 * @RNIC_NL_COUNTER_LINK_DOWNED: times port 1 went from ACTIVE to DOWN
 * @RNIC_NL_COUNTER_DROP_NO_QP: packets that reached the device for a QP
 *	number none of its QPs has; counted on the receiving device
 * @RNIC_NL_COUNTER_DROP_NOT_REACHED: packets to a GID that no device of
 *	the sender's network namespace owns (any more); counted on the
 *	sending device
 * @RNIC_NL_COUNTER_DROP_BAD_OPCODE: requests whose transport does not
 *	match the receiving QP's type, or UD datagrams that are not a SEND
 * @RNIC_NL_COUNTER_DROP_QP_STATE: requests for a QP that does not receive:
 *	in RESET or INIT, or in ERR
 * @RNIC_NL_COUNTER_DROP_BAD_QKEY: UD datagrams whose Q_Key is not the
 *	receiving QP's
 * @RNIC_NL_COUNTER_DROP_BAD_PKEY: packets whose P_Key does not match the
 *	device's (the default P_Key, 0xffff: the low 15 bits must be
 *	0x7fff); the local link carries no P_Key, so only the udp link counts
 *	them
 * @RNIC_NL_COUNTER_DROP_LENGTH: UD datagrams longer than the receiving
 *	QP's path MTU
 * @RNIC_NL_COUNTER_GSI_DROPPED: packets that arrived for QP 1, the
 *	device's GSI endpoint, and that the connection manager dropped: not
 *	a UD SEND of one 256-byte CM MAD (class 0x07, version 2, method
 *	SEND, a CM attribute) with the GSI's Q_Key, or more than it had
 *	room to queue
 * @RNIC_NL_COUNTER_DROP_BAD_HEADER: RoCEv2 packets (UDP port 4791 to a GID
 *	of the device) the udp link dropped because a header lies: the IP
 *	header (checksum, lengths, options, a fragment), the UDP length, the
 *	BTH (TVer not 0, an opcode rnic does not know, extended headers cut
 *	short) or the pad count and payload length (a payload where the
 *	opcode has none, payload and pad that are no multiple of 4 bytes,
 *	a payload longer than the port's active MTU)
 * @RNIC_NL_COUNTER_DROP_BAD_ICRC: packets that arrived damaged and were
 *	dropped: RoCEv2 packets the udp link received with a wrong
 *	invariant CRC, and on the local link packets the sender's fault
 *	injection corrupted; counted on the receiving device
 * @RNIC_NL_COUNTER_FAULT_DROP: packets the device's fault injection
 *	dropped instead of sending (RNIC_NL_FAULT_DROP); SENT_PKTS counts
 *	them, RCVD_PKTS of no device does
 * @RNIC_NL_COUNTER_FAULT_DUPLICATE: packets it sent twice
 *	(RNIC_NL_FAULT_DUPLICATE); SENT_PKTS counts them once
 * @RNIC_NL_COUNTER_FAULT_CORRUPT: packets it sent damaged
 *	(RNIC_NL_FAULT_CORRUPT); the receiver drops them (DROP_BAD_ICRC)
 * @RNIC_NL_COUNTER_FAULT_DELAY: packets it had a link hold back
 *	(RNIC_NL_FAULT_DELAY); only a wire link can: on the local link it
 *	stays 0
 * @RNIC_NL_COUNTER_FAULT_RNR: RNR NAKs its RC responders sent because of
 *	RNIC_NL_FAULT_RNR (also counted in SEND_RNR_ERR)
 * @RNIC_NL_COUNTER_FAULT_REM_ACCESS: remote access error NAKs its RC
 *	responders sent because of RNIC_NL_FAULT_REM_ACCESS
 * @RNIC_NL_COUNTER_FAULT_RETRY_EXC: RC work requests of its requesters
 *	whose packets were all dropped because of RNIC_NL_FAULT_RETRY_EXC;
 *	those packets never reach the link (SENT_PKTS does not count them)
 * @RNIC_NL_COUNTER_DROP_NO_WQE: UD datagrams and UC messages the
 *	receiving QP dropped because no receive WQE was posted (RC answers
 *	with an RNR NAK instead, SEND_RNR_ERR)
 * @RNIC_NL_COUNTER_CM_IGNORED: CM messages (well-formed MADs that
 *	GSI_DROPPED does not count) the connection manager dropped because
 *	they name no connection of the device's, come from another address
 *	than its peer, or do not fit its state (a duplicate with nothing to
 *	answer, an RTU before the REP, a DREP without a DREQ)
 *
 * Each counter is a u64 that counts from 0 since the device was created
 * and only grows. Userspace must skip counters it does not know. The
 * names rxe uses for the same events are those of SENT_PKTS to
 * LINK_DOWNED in lower case.
 */
enum rnic_nl_counter {
	RNIC_NL_COUNTER_UNSPEC,
	RNIC_NL_COUNTER_REQ_NOT_PEER,
	RNIC_NL_COUNTER_RESP_NOT_PEER,
	RNIC_NL_COUNTER_SENT_PKTS,
	RNIC_NL_COUNTER_RCVD_PKTS,
	RNIC_NL_COUNTER_DUPLICATE_REQUEST,
	RNIC_NL_COUNTER_OUT_OF_SEQ_REQUEST,
	RNIC_NL_COUNTER_RCVD_RNR_ERR,
	RNIC_NL_COUNTER_SEND_RNR_ERR,
	RNIC_NL_COUNTER_RCVD_SEQ_ERR,
	RNIC_NL_COUNTER_RETRY_EXCEEDED_ERR,
	RNIC_NL_COUNTER_RETRY_RNR_EXCEEDED_ERR,
	RNIC_NL_COUNTER_COMPLETER_RETRY_ERR,
	RNIC_NL_COUNTER_SEND_ERR,
	RNIC_NL_COUNTER_LINK_DOWNED,
	RNIC_NL_COUNTER_DROP_NO_QP,
	RNIC_NL_COUNTER_DROP_NOT_REACHED,
	RNIC_NL_COUNTER_DROP_BAD_OPCODE,
	RNIC_NL_COUNTER_DROP_QP_STATE,
	RNIC_NL_COUNTER_DROP_BAD_QKEY,
	RNIC_NL_COUNTER_DROP_BAD_PKEY,
	RNIC_NL_COUNTER_DROP_LENGTH,
	RNIC_NL_COUNTER_GSI_DROPPED,
	RNIC_NL_COUNTER_DROP_BAD_HEADER,
	RNIC_NL_COUNTER_DROP_BAD_ICRC,
	RNIC_NL_COUNTER_FAULT_DROP,
	RNIC_NL_COUNTER_FAULT_DUPLICATE,
	RNIC_NL_COUNTER_FAULT_CORRUPT,
	RNIC_NL_COUNTER_FAULT_DELAY,
	RNIC_NL_COUNTER_FAULT_RNR,
	RNIC_NL_COUNTER_FAULT_REM_ACCESS,
	RNIC_NL_COUNTER_FAULT_RETRY_EXC,
	RNIC_NL_COUNTER_DROP_NO_WQE,
	RNIC_NL_COUNTER_CM_IGNORED,

	__RNIC_NL_COUNTER_MAX,
	RNIC_NL_COUNTER_MAX = __RNIC_NL_COUNTER_MAX - 1
};

/**
 * RNIC_NL_COUNTER_NAMES - an initializer of an array of the counters'
 *	names, indexed by enum rnic_nl_counter (none for UNSPEC); C only
 *
 * ``rnic stat`` prints a counter under its name, and it is the name of
 * its file in /sys/class/rnic/NAME/ports/1/hw_counters/. Lower case of
 * the enum name without RNIC_NL_COUNTER_.
 */
#define RNIC_NL_COUNTER_NAMES {	\
	[RNIC_NL_COUNTER_REQ_NOT_PEER] = "req_not_peer",	\
	[RNIC_NL_COUNTER_RESP_NOT_PEER] = "resp_not_peer",	\
	[RNIC_NL_COUNTER_SENT_PKTS] = "sent_pkts",	\
	[RNIC_NL_COUNTER_RCVD_PKTS] = "rcvd_pkts",	\
	[RNIC_NL_COUNTER_DUPLICATE_REQUEST] = "duplicate_request",	\
	[RNIC_NL_COUNTER_OUT_OF_SEQ_REQUEST] = "out_of_seq_request",	\
	[RNIC_NL_COUNTER_RCVD_RNR_ERR] = "rcvd_rnr_err",	\
	[RNIC_NL_COUNTER_SEND_RNR_ERR] = "send_rnr_err",	\
	[RNIC_NL_COUNTER_RCVD_SEQ_ERR] = "rcvd_seq_err",	\
	[RNIC_NL_COUNTER_RETRY_EXCEEDED_ERR] = "retry_exceeded_err",	\
	[RNIC_NL_COUNTER_RETRY_RNR_EXCEEDED_ERR] = "retry_rnr_exceeded_err",	\
	[RNIC_NL_COUNTER_COMPLETER_RETRY_ERR] = "completer_retry_err",	\
	[RNIC_NL_COUNTER_SEND_ERR] = "send_err",	\
	[RNIC_NL_COUNTER_LINK_DOWNED] = "link_downed",	\
	[RNIC_NL_COUNTER_DROP_NO_QP] = "drop_no_qp",	\
	[RNIC_NL_COUNTER_DROP_NOT_REACHED] = "drop_not_reached",	\
	[RNIC_NL_COUNTER_DROP_BAD_OPCODE] = "drop_bad_opcode",	\
	[RNIC_NL_COUNTER_DROP_QP_STATE] = "drop_qp_state",	\
	[RNIC_NL_COUNTER_DROP_BAD_QKEY] = "drop_bad_qkey",	\
	[RNIC_NL_COUNTER_DROP_BAD_PKEY] = "drop_bad_pkey",	\
	[RNIC_NL_COUNTER_DROP_LENGTH] = "drop_length",	\
	[RNIC_NL_COUNTER_GSI_DROPPED] = "gsi_dropped",	\
	[RNIC_NL_COUNTER_DROP_BAD_HEADER] = "drop_bad_header",	\
	[RNIC_NL_COUNTER_DROP_BAD_ICRC] = "drop_bad_icrc",	\
	[RNIC_NL_COUNTER_FAULT_DROP] = "fault_drop",	\
	[RNIC_NL_COUNTER_FAULT_DUPLICATE] = "fault_duplicate",	\
	[RNIC_NL_COUNTER_FAULT_CORRUPT] = "fault_corrupt",	\
	[RNIC_NL_COUNTER_FAULT_DELAY] = "fault_delay",	\
	[RNIC_NL_COUNTER_FAULT_RNR] = "fault_rnr",	\
	[RNIC_NL_COUNTER_FAULT_REM_ACCESS] = "fault_rem_access",	\
	[RNIC_NL_COUNTER_FAULT_RETRY_EXC] = "fault_retry_exc",	\
	[RNIC_NL_COUNTER_DROP_NO_WQE] = "drop_no_wqe",	\
	[RNIC_NL_COUNTER_CM_IGNORED] = "cm_ignored",	\
}

/** RNIC_FAULT_PPM_MAX - a fault rate of 100%, in parts per million. */
#define RNIC_FAULT_PPM_MAX 1000000
/** RNIC_FAULT_DELAY_US_MAX - the longest fault delay: one second. */
#define RNIC_FAULT_DELAY_US_MAX 1000000

/**
 * enum rnic_nl_fault - fault injection settings of a device, the
 *	attributes of RNIC_NL_ATTR_FAULT; each a u32
 * @RNIC_NL_FAULT_UNSPEC: unused
 * @RNIC_NL_FAULT_DROP: parts per million of the packets the device sends
 *	that are dropped instead (0 to RNIC_FAULT_PPM_MAX)
 * @RNIC_NL_FAULT_DUPLICATE: parts per million sent twice
 * @RNIC_NL_FAULT_CORRUPT: parts per million sent damaged, so that the
 *	receiver drops them as a packet with a bad ICRC
 * @RNIC_NL_FAULT_DELAY: parts per million held back by DELAY_US; a wire
 *	link only: the local link delivers every packet in the sender's call
 * @RNIC_NL_FAULT_DELAY_US: how long, in microseconds (0 to
 *	RNIC_FAULT_DELAY_US_MAX)
 * @RNIC_NL_FAULT_RNR: RC responders of the device answer the next so many
 *	messages that would take a receive WQE (SEND, RDMA WRITE with
 *	immediate) with an RNR NAK, as if none was posted
 * @RNIC_NL_FAULT_REM_ACCESS: RC responders NAK the next so many RDMA
 *	WRITE, RDMA READ and atomic requests with a remote access error
 * @RNIC_NL_FAULT_RETRY_EXC: every packet of the next so many work
 *	requests the device's RC requesters start is dropped, so that they
 *	end in IBV_WC_RETRY_EXC_ERR once the QP's retries are used up
 *
 * A rate applies to each packet on its own; the local link carries a
 * burst of up to 64 KiB of one message as one packet (SENT_PKTS). The
 * three counts (RNR, REM_ACCESS, RETRY_EXC: 0 to INT32_MAX) go down by
 * one for each use; LINK_GET reports what is left. A LINK_SET with a
 * count replaces what was left.
 */
enum rnic_nl_fault {
	RNIC_NL_FAULT_UNSPEC,
	RNIC_NL_FAULT_DROP,
	RNIC_NL_FAULT_DUPLICATE,
	RNIC_NL_FAULT_CORRUPT,
	RNIC_NL_FAULT_DELAY,
	RNIC_NL_FAULT_DELAY_US,
	RNIC_NL_FAULT_RNR,
	RNIC_NL_FAULT_REM_ACCESS,
	RNIC_NL_FAULT_RETRY_EXC,

	__RNIC_NL_FAULT_MAX,
	RNIC_NL_FAULT_MAX = __RNIC_NL_FAULT_MAX - 1
};

#endif /* _UAPI_RDMA_RNIC_NETLINK_H */
