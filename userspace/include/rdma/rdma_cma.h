/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * rnic: software RDMA NIC - connection manager API (librnic).
 *
 * rdma-core's librdmacm API: the same names, enum values, struct fields
 * and layouts (rdma-core 44, Debian 12; the ABI probe compares them), so
 * that a program written for librdmacm builds unmodified against librnic
 * and a binary built against rdma-core's header runs on librnic's
 * librdmacm.so.1 (rnic-run). The connection manager itself is rnic.ko's
 * (/dev/infiniband/rnic_cm, <rdma/rnic-cm-abi.h>); librnic keeps the ids,
 * opens the verbs devices they are bound to and moves their QPs through
 * their states with the attributes the kernel computes.
 *
 * Return conventions are rdma-core's: functions returning int give 0, or
 * -1 with errno set; those returning a pointer give NULL with errno set.
 *
 * Not supported yet (-1, errno EOPNOTSUPP): ECE (rdma_set_local_ece(),
 * rdma_get_remote_ece(), rdma_reject_ece()). struct ibv_ece is declared
 * only as an incomplete type.
 */
#ifndef RDMA_CMA_H
#define RDMA_CMA_H

#include <netinet/in.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <infiniband/sa.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What rdma_get_cm_event() reports; rdma_event_str() names each. */
enum rdma_cm_event_type {
	RDMA_CM_EVENT_ADDR_RESOLVED,
	RDMA_CM_EVENT_ADDR_ERROR,
	RDMA_CM_EVENT_ROUTE_RESOLVED,
	RDMA_CM_EVENT_ROUTE_ERROR,
	RDMA_CM_EVENT_CONNECT_REQUEST,
	RDMA_CM_EVENT_CONNECT_RESPONSE,
	RDMA_CM_EVENT_CONNECT_ERROR,
	RDMA_CM_EVENT_UNREACHABLE,
	RDMA_CM_EVENT_REJECTED,
	RDMA_CM_EVENT_ESTABLISHED,
	RDMA_CM_EVENT_DISCONNECTED,
	RDMA_CM_EVENT_DEVICE_REMOVAL,
	RDMA_CM_EVENT_MULTICAST_JOIN,
	RDMA_CM_EVENT_MULTICAST_ERROR,
	RDMA_CM_EVENT_ADDR_CHANGE,
	RDMA_CM_EVENT_TIMEWAIT_EXIT
};

/*
 * Port spaces: TCP for connected (RC) ids, UDP and IPOIB for datagram
 * (UD) ids, IB for either (the QP type decides).
 */
enum rdma_port_space {
	RDMA_PS_IPOIB = 0x0002,
	RDMA_PS_TCP = 0x0106,
	RDMA_PS_UDP = 0x0111,
	RDMA_PS_IB = 0x013F,
};

/* How an IB service ID encodes a port space and an IP port. */
#define RDMA_IB_IP_PS_MASK 0xFFFFFFFFFFFF0000ULL
#define RDMA_IB_IP_PORT_MASK 0x000000000000FFFFULL
#define RDMA_IB_IP_PS_TCP 0x0000000001060000ULL
#define RDMA_IB_IP_PS_UDP 0x0000000001110000ULL
#define RDMA_IB_PS_IB 0x00000000013F0000ULL

/* The Q_Key of every UD id of the UDP and IPOIB port spaces. */
#define RDMA_UDP_QKEY 0x01234567

/* An id's GIDs and P_Key (network byte order). */
struct rdma_ib_addr {
	union ibv_gid sgid;
	union ibv_gid dgid;
	__be16 pkey;
};

/*
 * An id's source and destination addresses, each as big as a struct
 * sockaddr_storage and readable as any of the socket address types.
 */
struct rdma_addr {
	union {
		struct sockaddr src_addr;
		struct sockaddr_in src_sin;
		struct sockaddr_in6 src_sin6;
		struct sockaddr_storage src_storage;
	};
	union {
		struct sockaddr dst_addr;
		struct sockaddr_in dst_sin;
		struct sockaddr_in6 dst_sin6;
		struct sockaddr_storage dst_storage;
	};
	union {
		struct rdma_ib_addr ibaddr;
	} addr;
};

/* The addresses and, once resolved, the path(s) of an id. */
struct rdma_route {
	struct rdma_addr addr;
	struct ibv_sa_path_rec *path_rec;
	int num_paths;
};

/* A queue of CM events; @fd can be polled, made non-blocking, epolled. */
struct rdma_event_channel {
	int fd;
};

/*
 * A CM id: a socket-like endpoint. The verbs fields are set by the
 * library (@verbs and @port_num once the id is bound to a device, @qp by
 * rdma_create_qp(), the CQs, @srq and @pd by rdma_create_ep() and
 * rdma_create_qp() when it makes them); @context is the application's.
 */
struct rdma_cm_id {
	struct ibv_context *verbs;
	struct rdma_event_channel *channel;
	void *context;
	struct ibv_qp *qp;
	struct rdma_route route;
	enum rdma_port_space ps;
	uint8_t port_num;
	struct rdma_cm_event *event;
	struct ibv_comp_channel *send_cq_channel;
	struct ibv_cq *send_cq;
	struct ibv_comp_channel *recv_cq_channel;
	struct ibv_cq *recv_cq;
	struct ibv_srq *srq;
	struct ibv_pd *pd;
	enum ibv_qp_type qp_type;
};

/* "As many as the device allows" for the two RDMA READ depths. */
enum {
	RDMA_MAX_RESP_RES = 0xFF,
	RDMA_MAX_INIT_DEPTH = 0xFF
};

/*
 * A connection's parameters (rdma_connect(), rdma_accept(), and the
 * peer's in events). retry_count is not used by rdma_accept(); srq and
 * qp_num are used only when the id has no QP of the library's making.
 */
struct rdma_conn_param {
	const void *private_data;
	uint8_t private_data_len;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t flow_control;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint8_t srq;
	uint32_t qp_num;
};

/* How to send to a UD peer (events of UD ids). */
struct rdma_ud_param {
	const void *private_data;
	uint8_t private_data_len;
	struct ibv_ah_attr ah_attr;
	uint32_t qp_num;
	uint32_t qkey;
};

/*
 * An event. @id is the id it is about (CONNECT_REQUEST: a new id for the
 * request, @listen_id its listener); @status is 0, a negative errno, or a
 * reject reason (REJECTED). The private data @param points at belongs to
 * the event and lives until rdma_ack_cm_event().
 */
struct rdma_cm_event {
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	enum rdma_cm_event_type event;
	int status;
	union {
		struct rdma_conn_param conn;
		struct rdma_ud_param ud;
	} param;
};

/* rdma_addrinfo's ai_flags */
#define RAI_PASSIVE 0x00000001
#define RAI_NUMERICHOST 0x00000002
#define RAI_NOROUTE 0x00000004
#define RAI_FAMILY 0x00000008

/* rdma_getaddrinfo()'s answer: one element per address, in a list. */
struct rdma_addrinfo {
	int ai_flags;
	int ai_family;
	int ai_qp_type;
	int ai_port_space;
	socklen_t ai_src_len;
	socklen_t ai_dst_len;
	struct sockaddr *ai_src_addr;
	struct sockaddr *ai_dst_addr;
	char *ai_src_canonname;
	char *ai_dst_canonname;
	size_t ai_route_len;
	void *ai_route;
	size_t ai_connect_len;
	void *ai_connect;
	struct rdma_addrinfo *ai_next;
};

/* struct rdma_cm_join_mc_attr_ex's comp_mask bits */
enum rdma_cm_join_mc_attr_mask {
	RDMA_CM_JOIN_MC_ATTR_ADDRESS = 1 << 0,
	RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS = 1 << 1,
	RDMA_CM_JOIN_MC_ATTR_RESERVED = 1 << 2,
};

/* How to join a multicast group */
enum rdma_cm_mc_join_flags {
	RDMA_MC_JOIN_FLAG_FULLMEMBER,
	RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER,
	RDMA_MC_JOIN_FLAG_RESERVED,
};

/* rdma_join_multicast_ex()'s request */
struct rdma_cm_join_mc_attr_ex {
	uint32_t comp_mask;
	uint32_t join_flags;
	struct sockaddr *addr;
};

/* ECE options (not supported: declared for the prototypes only). */
struct ibv_ece;

/**
 * rdma_create_event_channel() - open an event channel
 *
 * Its @fd reports the events of the ids made on it; it may be polled,
 * made O_NONBLOCK or put in an epoll set.
 *
 * RETURN: the channel, or NULL with errno set: ENODEV when there is no
 * connection manager (no /dev/infiniband/rnic_cm), or open()'s errno.
 */
struct rdma_event_channel *rdma_create_event_channel(void);

/**
 * rdma_destroy_event_channel() - close an event channel
 * @channel: the channel, whose ids are all destroyed already (or NULL)
 */
void rdma_destroy_event_channel(struct rdma_event_channel *channel);

/**
 * rdma_create_id() - make a CM id
 * @channel: where its events go; NULL makes the id synchronous (each
 *	call waits for its own event, on a private channel)
 * @id: set to the new id
 * @context: the application's pointer, in id->context
 * @ps: its port space: RDMA_PS_TCP (RC), RDMA_PS_UDP (UD), RDMA_PS_IB
 *	or RDMA_PS_IPOIB
 *
 * RETURN: 0, or -1 with errno set (EINVAL for a bad @ps, ENODEV without
 * a connection manager, ENOMEM).
 */
int rdma_create_id(struct rdma_event_channel *channel,
		   struct rdma_cm_id **id, void *context,
		   enum rdma_port_space ps);

/**
 * rdma_create_ep() - make a synchronous id from rdma_getaddrinfo()'s answer
 * @id: set to the new id
 * @res: the answer: with RAI_PASSIVE the id is bound to its source (to
 *	listen on), else its address and route are resolved
 *	(2 seconds each at most)
 * @pd: the PD of its QP (NULL: the device's PD the library allocates)
 * @qp_init_attr: if not NULL, the id gets a QP made with these attributes
 *	(a passive id: each id of rdma_get_request() does); CQs are made
 *	when they name none; qp_type is set to @res's ai_qp_type
 *
 * RETURN: 0, or -1 with errno set (the failed step's errno).
 */
int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
		   struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr);

/**
 * rdma_destroy_ep() - destroy an id with its QP, SRQ and CQs
 * @id: the id, from rdma_create_ep() or rdma_get_request()
 */
void rdma_destroy_ep(struct rdma_cm_id *id);

/**
 * rdma_destroy_id() - destroy an id
 * @id: the id; its QP must be destroyed first (rdma_destroy_qp())
 *
 * A connected id is disconnected, a request not answered is rejected.
 * Waits until every event of the id that was handed out is acknowledged.
 *
 * RETURN: 0, or -1 with errno set.
 */
int rdma_destroy_id(struct rdma_cm_id *id);

/**
 * rdma_bind_addr() - bind an id to a local address
 * @id: the id, not bound yet
 * @addr: a struct sockaddr_in or sockaddr_in6: a wildcard or an address of
 *	an rnic device (the id is then bound to that device); port 0 picks one
 *
 * RETURN: 0, or -1 with errno set (EADDRINUSE, EADDRNOTAVAIL, EACCES for
 * a port below 1024 without CAP_NET_BIND_SERVICE, EAFNOSUPPORT).
 */
int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr);

/**
 * rdma_resolve_addr() - find the device and source address to reach a peer
 * @id: the id
 * @src_addr: the source address, or NULL (the bound one, or the route's)
 * @dst_addr: the peer's address
 * @timeout_ms: how long it may take
 *
 * ADDR_RESOLVED (id->verbs is then set) or ADDR_ERROR follows.
 *
 * RETURN: 0 once started (a synchronous id: once resolved), or -1 with
 * errno set.
 */
int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      struct sockaddr *dst_addr, int timeout_ms);

/**
 * rdma_resolve_route() - find the path to the resolved peer
 * @id: the id, its address resolved
 * @timeout_ms: how long it may take
 *
 * ROUTE_RESOLVED (id->route.path_rec is then set) or ROUTE_ERROR follows.
 *
 * RETURN: 0 once started (a synchronous id: once resolved), or -1 with
 * errno set.
 */
int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms);

/**
 * rdma_create_qp() - make the id's QP
 * @id: the id, bound to a device
 * @pd: its PD, or NULL (id->pd, else the device's PD the library allocates)
 * @qp_init_attr: as ibv_create_qp()'s; CQs (with completion channels) are
 *	made for those it names none of. The granted sizes are written back.
 *
 * The QP is moved to INIT (UD: to RTS) with the connection manager's
 * attributes; the library moves it further on connection.
 *
 * RETURN: 0 (id->qp is set), or -1 with errno set.
 */
int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr);

/**
 * rdma_create_qp_ex() - make the id's QP from extended attributes
 * @id: the id, bound to a device
 * @qp_init_attr: as ibv_create_qp_ex()'s; a missing PD or CQs are the
 *	library's, as with rdma_create_qp()
 *
 * RETURN: 0 (id->qp is set), or -1 with errno set.
 */
int rdma_create_qp_ex(struct rdma_cm_id *id,
		      struct ibv_qp_init_attr_ex *qp_init_attr);

/**
 * rdma_destroy_qp() - destroy the id's QP (and the CQs the library made)
 * @id: the id
 */
void rdma_destroy_qp(struct rdma_cm_id *id);

/**
 * rdma_connect() - ask a listening peer for a connection (or a UD peer's QP)
 * @id: the id, its route resolved
 * @conn_param: private data and RDMA READ depths (NULL: the device's
 *	maximum, 7 retries); qp_num and srq only for a QP not the library's
 *
 * With the library's QP, ESTABLISHED follows (the QP is moved to RTS
 * first); without, CONNECT_RESPONSE, after which rdma_establish(). Or
 * REJECTED, UNREACHABLE, CONNECT_ERROR.
 *
 * RETURN: 0 once sent (a synchronous id: once established), or -1 with
 * errno set (ECONNREFUSED: rejected).
 */
int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param);

/**
 * rdma_establish() - finish a connection after CONNECT_RESPONSE
 * @id: the id; a QP the application made is in RTS already
 *
 * RETURN: 0, or -1 with errno set.
 */
int rdma_establish(struct rdma_cm_id *id);

/**
 * rdma_listen() - wait for connection requests
 * @id: the id (an unbound one is bound to the wildcard, any port)
 * @backlog: requests not yet answered at most (0 or less: 128)
 *
 * RETURN: 0, or -1 with errno set.
 */
int rdma_listen(struct rdma_cm_id *id, int backlog);

/**
 * rdma_get_request() - wait for the next request of a synchronous listener
 * @listen: the listener, from rdma_create_ep() with RAI_PASSIVE
 * @id: set to the request's id (synchronous; its QP made if @listen was
 *	given QP attributes; its event, with the private data, in id->event)
 *
 * RETURN: 0, or -1 with errno set (EINVAL for an asynchronous listener).
 */
int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id);

/**
 * rdma_accept() - accept a connection request
 * @id: the request's id
 * @conn_param: private data and RDMA READ depths (NULL: defaults)
 *
 * The id's QP is moved to RTR and RTS first. ESTABLISHED follows.
 *
 * RETURN: 0 once sent (a synchronous id: once established), or -1 with
 * errno set.
 */
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param);

/**
 * rdma_reject() - refuse a connection request
 * @id: the request's id
 * @private_data: what the peer's REJECTED event carries, or NULL
 * @private_data_len: its length, 148 bytes at most
 *
 * RETURN: 0, or -1 with errno set.
 */
int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		uint8_t private_data_len);

/**
 * rdma_reject_ece() - refuse a request with ECE options (not supported)
 * @id: the request's id
 * @private_data: the private data
 * @private_data_len: its length
 *
 * RETURN: -1, errno EOPNOTSUPP.
 */
int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
		    uint8_t private_data_len);

/**
 * rdma_notify() - tell the connection manager of a QP event
 * @id: the id
 * @event: IBV_EVENT_COMM_EST (data arrived before the RTU): the passive
 *	side is established at once; other events are ignored
 *
 * RETURN: 0, or -1 with errno set.
 */
int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event);

/**
 * rdma_disconnect() - end a connection
 * @id: the connected id; its QP is moved to ERR first
 *
 * Both sides get DISCONNECTED.
 *
 * RETURN: 0 once sent (a synchronous id: once disconnected), or -1 with
 * errno set.
 */
int rdma_disconnect(struct rdma_cm_id *id);

/**
 * rdma_join_multicast() - join a multicast group as a full member
 * @id: a UD id bound to a device (address bound or resolved)
 * @addr: the group: an IPv4 (224.0.0.0/4) or IPv6 (ff00::/8) multicast
 *	address of the id's family
 * @context: the application's pointer, the join event's
 *	param.ud.private_data
 *
 * MULTICAST_JOIN follows at once (RoCE: the group's GID is its address),
 * with the group's address handle attributes, QP 0xffffff and the Q_Key;
 * the id's QP, if any, is then attached to the group.
 *
 * RETURN: 0 (a synchronous id: once joined), or -1 with errno set
 * (EADDRINUSE: joined already; ENOSPC: too many groups; EINVAL: not a UD
 * id or not a multicast address).
 */
int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			void *context);

/**
 * rdma_leave_multicast() - leave a multicast group
 * @id: the id
 * @addr: the group, as joined
 *
 * The id's QP is detached from the group first.
 *
 * RETURN: 0, or -1 with errno set (EADDRNOTAVAIL: not joined).
 */
int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr);

/**
 * rdma_join_multicast_ex() - join a multicast group, saying how
 * @id: a UD id bound to a device
 * @mc_join_attr: comp_mask RDMA_CM_JOIN_MC_ATTR_ADDRESS and _JOIN_FLAGS;
 *	join_flags RDMA_MC_JOIN_FLAG_FULLMEMBER or _SENDONLY_FULLMEMBER (the
 *	QP is not attached: it only sends to the group)
 * @context: the application's pointer
 *
 * RETURN: as rdma_join_multicast(); EINVAL for another comp_mask or flag.
 */
int rdma_join_multicast_ex(struct rdma_cm_id *id,
			   struct rdma_cm_join_mc_attr_ex *mc_join_attr,
			   void *context);

/**
 * rdma_get_cm_event() - take the next event of a channel
 * @channel: the channel
 * @event: set to the event, the caller's until rdma_ack_cm_event()
 *
 * Blocks while none is queued (O_NONBLOCK: fails with EAGAIN).
 *
 * RETURN: 0, or -1 with errno set.
 */
int rdma_get_cm_event(struct rdma_event_channel *channel,
		      struct rdma_cm_event **event);

/**
 * rdma_ack_cm_event() - release an event
 * @event: the event; its private data is freed with it
 *
 * RETURN: 0, or -1 with errno set.
 */
int rdma_ack_cm_event(struct rdma_cm_event *event);

/**
 * rdma_get_src_port() - the id's local port
 * @id: the id
 *
 * RETURN: the port, network byte order (0 if the id has no address).
 */
__be16 rdma_get_src_port(struct rdma_cm_id *id);

/**
 * rdma_get_dst_port() - the id's peer's port
 * @id: the id
 *
 * RETURN: the port, network byte order (0 if the id has no peer).
 */
__be16 rdma_get_dst_port(struct rdma_cm_id *id);

/**
 * rdma_get_local_addr() - the id's local address
 * @id: the id
 *
 * RETURN: the address, in the id.
 */
static inline struct sockaddr *rdma_get_local_addr(struct rdma_cm_id *id)
{
	return &id->route.addr.src_addr;
}

/**
 * rdma_get_peer_addr() - the id's peer's address
 * @id: the id
 *
 * RETURN: the address, in the id.
 */
static inline struct sockaddr *rdma_get_peer_addr(struct rdma_cm_id *id)
{
	return &id->route.addr.dst_addr;
}

/**
 * rdma_get_devices() - the verbs contexts of every rnic device
 * @num_devices: set to their count, if not NULL
 *
 * The contexts are the library's (the ones ids use): never close them.
 *
 * RETURN: a NULL-terminated array to free with rdma_free_devices(), or
 * NULL with errno set.
 */
struct ibv_context **rdma_get_devices(int *num_devices);

/**
 * rdma_free_devices() - free rdma_get_devices()'s array
 * @list: the array (the contexts stay open)
 */
void rdma_free_devices(struct ibv_context **list);

/**
 * rdma_event_str() - the name of an event type
 * @event: the type
 *
 * RETURN: the name of its enumerator, or "UNKNOWN EVENT".
 */
const char *rdma_event_str(enum rdma_cm_event_type event);

/* rdma_set_option() levels */
enum {
	RDMA_OPTION_ID = 0,
	RDMA_OPTION_IB = 1
};

/* RDMA_OPTION_ID names and their values' types */
enum {
	RDMA_OPTION_ID_TOS = 0,		/* uint8_t: IP type of service */
	RDMA_OPTION_ID_REUSEADDR = 1,	/* int: like SO_REUSEADDR */
	RDMA_OPTION_ID_AFONLY = 2,	/* int: like IPV6_V6ONLY */
	RDMA_OPTION_ID_ACK_TIMEOUT = 3	/* uint8_t: local ACK timeout code */
};

/* RDMA_OPTION_IB names */
enum {
	RDMA_OPTION_IB_PATH = 1		/* struct ibv_path_data[] */
};

/**
 * rdma_set_option() - set an option of an id
 * @id: the id
 * @level: RDMA_OPTION_ID (RDMA_OPTION_IB: EOPNOTSUPP, RoCE paths are
 *	the kernel's)
 * @optname: RDMA_OPTION_ID_TOS, _REUSEADDR, _AFONLY or _ACK_TIMEOUT
 * @optval: the value, of the type the name says
 * @optlen: its size
 *
 * RETURN: 0, or -1 with errno set (EINVAL for a wrong @optlen, ENOSYS for
 * an unknown @optname).
 */
int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
		    void *optval, size_t optlen);

/**
 * rdma_migrate_id() - move an id and its events to another channel
 * @id: the id
 * @channel: the channel, or NULL for a new private one (the id becomes
 *	synchronous)
 *
 * Waits until the events the old channel handed out are acknowledged.
 *
 * RETURN: 0, or -1 with errno set.
 */
int rdma_migrate_id(struct rdma_cm_id *id,
		    struct rdma_event_channel *channel);

/**
 * rdma_getaddrinfo() - resolve a host and service into endpoint addresses
 * @node: a host name or numeric address, or NULL
 * @service: a port number or service name, or NULL
 * @hints: RAI_PASSIVE (the answer is a source to bind), RAI_NUMERICHOST,
 *	ai_family, ai_qp_type, ai_port_space, a source address; or NULL
 * @res: set to the answer, to free with rdma_freeaddrinfo()
 *
 * With neither @node nor @service, the answer is a copy of @hints (its
 * flags, family, QP type, port space, source and destination); with
 * neither and no @hints either, EINVAL. Without a QP type in @hints, the
 * UDP and IPoIB port spaces answer UD, the others RC.
 *
 * RETURN: 0; -1 with errno set; or getaddrinfo()'s EAI_* error code.
 */
int rdma_getaddrinfo(const char *node, const char *service,
		     const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res);

/**
 * rdma_freeaddrinfo() - free rdma_getaddrinfo()'s answer
 * @res: the answer (or NULL)
 */
void rdma_freeaddrinfo(struct rdma_addrinfo *res);

/**
 * rdma_init_qp_attr() - the attributes to move a QP of the id to a state
 * @id: the id
 * @qp_attr: qp_state: IBV_QPS_INIT, IBV_QPS_RTR or IBV_QPS_RTS; filled
 *	for ibv_modify_qp()
 * @qp_attr_mask: set to the ibv_qp_attr_mask bits to pass with it
 *
 * RETURN: 0, or -1 with errno set (EINVAL: the id is not far enough).
 */
int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
		      int *qp_attr_mask);

/**
 * rdma_set_local_ece() - set ECE options (not supported)
 * @id: the id
 * @ece: the options
 *
 * RETURN: -1, errno EOPNOTSUPP.
 */
int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece);

/**
 * rdma_get_remote_ece() - the peer's ECE options (not supported)
 * @id: the id
 * @ece: the options
 *
 * RETURN: -1, errno EOPNOTSUPP.
 */
int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece);

#ifdef __cplusplus
}
#endif

#endif /* RDMA_CMA_H */
