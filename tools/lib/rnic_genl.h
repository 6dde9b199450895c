/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rnic_genl: a small client for the "rnic" generic netlink family, on
 * libmnl. Used by the rnic management tool and by the kselftests.
 *
 * Conventions for every function below:
 *
 * - Functions returning int return 0 on success or a negative errno value.
 *   They never print and never exit.
 * - Every request asks for an ACK, so one call sends one request and
 *   consumes every reply to it (data messages, then the ACK or NLMSG_DONE).
 * - After each request the kernel's extended ACK message (if any) can be
 *   read with rnic_genl_errmsg(); it is copied into the handle, so it stays
 *   valid until the next request on the same handle.
 * - A handle is not thread safe; use one per thread.
 */
#ifndef RNIC_GENL_H
#define RNIC_GENL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

#include <rdma/rnic-cm-abi.h>
#include <rdma/rnic-netlink.h>

struct rnic_genl;

/* Room for a request built by the build callback of rnic_genl_request(),
 * generic netlink header included (use with mnl_attr_put_*_check()). */
#define RNIC_GENL_SEND_SIZE 8192u

/* Longest extended ACK message kept by the handle, NUL included. */
#define RNIC_GENL_ERRMSG_SIZE 256u

/**
 * rnic_genl_open() - open a socket and resolve the "rnic" family
 *
 * Return: a new handle, owned by the caller (free it with
 * rnic_genl_close()), or NULL with errno set. errno ENOENT means the
 * generic netlink family "rnic" does not exist, i.e. the module is not
 * loaded; the tool reports it as
 * "module not loaded (generic netlink family 'rnic' not found)".
 */
struct rnic_genl *rnic_genl_open(void);

/**
 * rnic_genl_open_family() - like rnic_genl_open() for any family name
 * @family: generic netlink family name (e.g. "nlctrl" in unit tests)
 *
 * Return: as rnic_genl_open().
 */
struct rnic_genl *rnic_genl_open_family(const char *family);

/**
 * rnic_genl_close() - close the socket and free the handle
 * @g: handle from rnic_genl_open(), or NULL (then nothing happens)
 */
void rnic_genl_close(struct rnic_genl *g);

/**
 * rnic_genl_family_id() - the resolved generic netlink family id
 * @g: open handle
 */
uint16_t rnic_genl_family_id(const struct rnic_genl *g);

/**
 * rnic_genl_family_version() - the version the kernel announced for the
 * family (RNIC_GENL_VERSION for a matching module)
 * @g: open handle
 */
uint32_t rnic_genl_family_version(const struct rnic_genl *g);

/**
 * rnic_genl_request() - send one request and process every reply to it
 * @g: open handle
 * @cmd: generic netlink command (RNIC_NL_CMD_*)
 * @nlm_flags: extra netlink flags, e.g. NLM_F_DUMP; NLM_F_REQUEST and
 *	NLM_F_ACK are always set
 * @build: called once to add attributes to the request with
 *	mnl_attr_put*() (the buffer holds RNIC_GENL_SEND_SIZE bytes from
 *	@nlh); returns 0 or a negative errno, which aborts the request
 *	unsent. May be NULL.
 * @cb: called for every data message of the reply (mnl_cb_t: return
 *	MNL_CB_OK to go on, MNL_CB_STOP to ignore the rest, MNL_CB_ERROR
 *	with errno set to fail the request). May be NULL.
 * @arg: passed to @build and @cb
 *
 * Replies are read to the end even when @cb stops early, so the socket is
 * ready for the next request.
 *
 * Return: 0, the negative errno from the kernel's netlink error (dump
 * errors included), the negative errno of a failing @build or @cb, or a
 * negative errno from the socket (-EPROTO for a malformed reply).
 */
int rnic_genl_request(struct rnic_genl *g, uint8_t cmd, uint16_t nlm_flags,
		      int (*build)(struct nlmsghdr *nlh, void *arg),
		      mnl_cb_t cb, void *arg);

/**
 * rnic_genl_errmsg() - extended ACK message of the last request
 * @g: open handle
 *
 * Return: the kernel's message (NLMSGERR_ATTR_MSG), or "" when the last
 * reply had none. Never NULL. Owned by the handle, valid until the next
 * request on it.
 */
const char *rnic_genl_errmsg(const struct rnic_genl *g);

/**
 * rnic_genl_err_offset() - NLMSGERR_ATTR_OFFS of the last request
 * @g: open handle
 *
 * Return: byte offset of the offending attribute from the start of the
 * request's netlink header, or 0 when the kernel named none.
 */
uint32_t rnic_genl_err_offset(const struct rnic_genl *g);

/**
 * rnic_genl_err_miss_type() - NLMSGERR_ATTR_MISS_TYPE of the last request
 * @g: open handle
 *
 * Return: the type of a required attribute the request lacked (the kernel
 * sends no text message for it), or 0 when the kernel named none.
 */
uint32_t rnic_genl_err_miss_type(const struct rnic_genl *g);

/**
 * typedef rnic_genl_parse_t - decode one reply message of a GET command
 * @nlh: a generic netlink message of the rnic family
 * @info: the noun's info struct (struct rnic_link_info, ...), filled on
 *	success
 *
 * Return: 0 or a negative errno (-EPROTO for a malformed message).
 */
typedef int (*rnic_genl_parse_t)(const struct nlmsghdr *nlh, void *info);

/**
 * typedef rnic_genl_each_t - called by rnic_genl_dump() once per reply
 * @info: what the parse function filled; valid only during the call
 * @arg: the caller's argument
 *
 * Return: 0 to go on, or a negative errno to stop the dump, which then
 * returns it.
 */
typedef int (*rnic_genl_each_t)(const void *info, void *arg);

/**
 * rnic_genl_get() - one GET request for one device (RNIC_NL_ATTR_DEV_NAME)
 * @g: open handle
 * @cmd: RNIC_NL_CMD_*_GET
 * @name: device name
 * @parse: decodes the reply into @info
 * @info: filled on success (the first reply message; there is one)
 *
 * Return: 0, or a negative errno (-ENODEV from the kernel for no such
 * device; -EPROTO for a malformed or missing reply).
 */
int rnic_genl_get(struct rnic_genl *g, uint8_t cmd, const char *name,
		  rnic_genl_parse_t parse, void *info);

/**
 * rnic_genl_dump() - one GET dump (NLM_F_DUMP), parsed message by message
 * @g: open handle
 * @cmd: RNIC_NL_CMD_*_GET
 * @name: device name sent as RNIC_NL_ATTR_DEV_NAME to restrict the dump
 *	to that device, or NULL for every device of the caller's namespace
 * @parse: decodes each reply message
 * @size: size of what @parse fills (allocated here, on the heap)
 * @each: called for each decoded message
 * @arg: passed to @each
 *
 * Return: 0 or a negative errno (-ENOMEM if no room for @size bytes).
 */
int rnic_genl_dump(struct rnic_genl *g, uint8_t cmd, const char *name,
		   rnic_genl_parse_t parse, size_t size,
		   rnic_genl_each_t each, void *arg);

/**
 * rnic_link_add() - RNIC_NL_CMD_LINK_ADD
 * @g: open handle
 * @name: device name (sent as given; the kernel validates it)
 * @netdev: name of the netdev to bind, or NULL for none
 *
 * Return: 0 or a negative errno (-EMSGSIZE if the names do not fit in a
 * request).
 */
int rnic_link_add(struct rnic_genl *g, const char *name, const char *netdev);

/**
 * rnic_link_add_burst() - RNIC_NL_CMD_LINK_ADD with RNIC_NL_ATTR_MAX_BURST
 * @g: open handle
 * @name: device name
 * @netdev: name of the netdev to bind, or NULL for none
 * @max_burst: bytes one request may carry at most; 0 sends no attribute
 *	(what the link allows)
 *
 * Return: as rnic_link_add().
 */
int rnic_link_add_burst(struct rnic_genl *g, const char *name,
			const char *netdev, uint32_t max_burst);

/**
 * rnic_link_del() - RNIC_NL_CMD_LINK_DEL
 * @g: open handle
 * @name: device name
 *
 * Return: 0 or a negative errno.
 */
int rnic_link_del(struct rnic_genl *g, const char *name);

/**
 * struct rnic_link_fault - a device's fault injection settings
 *	(RNIC_NL_ATTR_FAULT)
 * @has: bit N is set when setting N (enum rnic_nl_fault) was present in
 *	a LINK_GET answer, or is to be sent by rnic_link_set_fault()
 * @val: the settings, indexed by enum rnic_nl_fault; 0 when absent
 */
struct rnic_link_fault {
	uint32_t has;
	uint32_t val[RNIC_NL_FAULT_MAX + 1];
};

/**
 * rnic_fault_name() - the name of a fault setting, as the tool takes and
 *	prints it
 * @setting: a value of enum rnic_nl_fault
 *
 * Return: "drop", "delay_us", "rnr", ..., or NULL for
 * RNIC_NL_FAULT_UNSPEC and settings this code does not know.
 */
const char *rnic_fault_name(unsigned int setting);

/**
 * rnic_link_set_fault() - RNIC_NL_CMD_LINK_SET with the settings of
 *	@fault whose bit is set in @fault->has (needs CAP_NET_ADMIN)
 * @g: open handle
 * @name: device name
 * @fault: what to set; the kernel checks the ranges
 *
 * Return: 0 or a negative errno (-EINVAL with a message for a value out
 * of range or nothing to set, -ENODEV, -EPERM).
 */
int rnic_link_set_fault(struct rnic_genl *g, const char *name,
			const struct rnic_link_fault *fault);

#define RNIC_LINK_NAME_SIZE 64
#define RNIC_LINK_NETDEV_SIZE 16
#define RNIC_LINK_UVERBS_SIZE 32
#define RNIC_LINK_MAX_GIDS 64

/**
 * struct rnic_link_info - one device, as told by RNIC_NL_CMD_LINK_GET
 * @attrs: bit N is set when attribute N (enum rnic_nl_attr) was present;
 *	a field whose attribute was absent is 0 / ""
 * @name: RNIC_NL_ATTR_DEV_NAME
 * @index: RNIC_NL_ATTR_DEV_INDEX
 * @has_netdev: the device is bound to a netdev (RNIC_NL_ATTR_NETDEV)
 * @netdev: RNIC_NL_ATTR_NETDEV
 * @netdev_index: RNIC_NL_ATTR_NETDEV_INDEX
 * @uverbs: RNIC_NL_ATTR_UVERBS
 * @node_guid_be: RNIC_NL_ATTR_NODE_GUID, network byte order as sent
 * @port: RNIC_NL_ATTR_PORT_INDEX
 * @port_state: RNIC_NL_ATTR_PORT_STATE (enum ibv_port_state)
 * @phys_state: RNIC_NL_ATTR_PORT_PHYS_STATE (ibv_port_attr.phys_state)
 * @active_mtu: RNIC_NL_ATTR_ACTIVE_MTU
 * @netdev_mtu: RNIC_NL_ATTR_NETDEV_MTU
 * @contexts: RNIC_NL_ATTR_CONTEXTS
 * @max_burst: RNIC_NL_ATTR_MAX_BURST, 0 when the device has none
 * @fault: RNIC_NL_ATTR_FAULT (unknown settings skipped)
 * @n_gids: how many entries of @gids are filled, in the order received
 * @gids_truncated: the kernel sent more than RNIC_LINK_MAX_GIDS entries
 * @gids: RNIC_NL_ATTR_GID_TABLE entries (index and raw 16-byte GID)
 */
struct rnic_link_info {
	uint64_t attrs;
	char name[RNIC_LINK_NAME_SIZE];
	uint32_t index;
	bool has_netdev;
	char netdev[RNIC_LINK_NETDEV_SIZE];
	uint32_t netdev_index;
	char uverbs[RNIC_LINK_UVERBS_SIZE];
	uint64_t node_guid_be;
	uint32_t port;
	uint8_t port_state;
	uint8_t phys_state;
	uint32_t active_mtu;
	uint32_t netdev_mtu;
	uint32_t contexts;
	uint32_t max_burst;
	struct rnic_link_fault fault;
	unsigned int n_gids;
	bool gids_truncated;
	struct {
		uint32_t index;
		uint8_t gid[16];
	} gids[RNIC_LINK_MAX_GIDS];
};

/**
 * rnic_link_parse() - decode one LINK_GET reply message (rnic_genl_parse_t)
 * @nlh: a generic netlink message of the rnic family
 * @info: struct rnic_link_info, filled on success (zeroed first)
 *
 * Attribute types and lengths are checked; attributes this code does not
 * know are skipped, as are unknown attributes inside GID entries.
 *
 * Return: 0, or -EPROTO if the message is malformed: truncated, a known
 * attribute of the wrong type or length, a string longer than its field
 * in struct rnic_link_info, a GID entry without index or GID, or no
 * RNIC_NL_ATTR_DEV_NAME.
 */
int rnic_link_parse(const struct nlmsghdr *nlh, void *info);

/* RNIC_NL_CMD_LINK_GET for one device: rnic_genl_get(). */
static inline int rnic_link_get(struct rnic_genl *g, const char *name,
				struct rnic_link_info *info)
{
	return rnic_genl_get(g, RNIC_NL_CMD_LINK_GET, name, rnic_link_parse,
			     info);
}

/* RNIC_NL_CMD_LINK_GET dump; @each gets a struct rnic_link_info. */
static inline int rnic_link_dump(struct rnic_genl *g, rnic_genl_each_t each,
				 void *arg)
{
	return rnic_genl_dump(g, RNIC_NL_CMD_LINK_GET, NULL, rnic_link_parse,
			      sizeof(struct rnic_link_info), each, arg);
}

/* ---- counters (RNIC_NL_CMD_STAT_GET) --------------------------------- */

/**
 * rnic_counter_name() - the name of a counter, as the tool prints it
 * @counter: a value of enum rnic_nl_counter
 *
 * Return: "sent_pkts" (rxe's names where the meaning is rxe's), or NULL
 * for RNIC_NL_COUNTER_UNSPEC and counters this code does not know.
 */
const char *rnic_counter_name(unsigned int counter);

/**
 * struct rnic_stat_info - one device's counters, as told by STAT_GET
 * @attrs: bit N is set when attribute N was present at the top level
 * @name: RNIC_NL_ATTR_DEV_NAME (always present)
 * @index: RNIC_NL_ATTR_DEV_INDEX
 * @port: RNIC_NL_ATTR_PORT_INDEX
 * @has: bit N is set when counter N was sent
 * @counters: RNIC_NL_ATTR_COUNTERS, indexed by enum rnic_nl_counter; 0
 *	for a counter the kernel did not send
 */
struct rnic_stat_info {
	uint64_t attrs;
	char name[RNIC_LINK_NAME_SIZE];
	uint32_t index;
	uint32_t port;
	uint64_t has;
	uint64_t counters[RNIC_NL_COUNTER_MAX + 1];
};

/**
 * rnic_stat_parse() - decode one STAT_GET reply message (rnic_genl_parse_t)
 * @nlh: a generic netlink message of the rnic family
 * @info: struct rnic_stat_info, filled on success (zeroed first)
 *
 * Unknown attributes and counters are skipped.
 *
 * Return: 0, or -EPROTO if the message is malformed: truncated, a known
 * attribute or a counter of the wrong type or length, a name longer than
 * its field, or no RNIC_NL_ATTR_DEV_NAME.
 */
int rnic_stat_parse(const struct nlmsghdr *nlh, void *info);

/* RNIC_NL_CMD_STAT_GET for one device: rnic_genl_get(). */
static inline int rnic_stat_get(struct rnic_genl *g, const char *name,
				struct rnic_stat_info *info)
{
	return rnic_genl_get(g, RNIC_NL_CMD_STAT_GET, name, rnic_stat_parse,
			     info);
}

/* ---- resources (RNIC_NL_CMD_RES_GET) ---------------------------------- */

/*
 * RNIC_RES_KINDS(X) - the resource counts this code knows, in output
 * order: X(KIND, attribute, name, width) with KIND the suffix of an
 * enum rnic_res_kind constant, the RNIC_NL_ATTR_RES_* attribute carrying
 * the count, its short name (used by the tool as text keyword and JSON
 * member) and the attribute's payload width in bytes (4: u32, 8: u64).
 * The same attribute carries the device total and a context's count.
 * Adding a resource kind is adding one line here.
 */
#define RNIC_RES_KINDS(X)						\
	X(PD,     RNIC_NL_ATTR_RES_PD,     "pd",     4)			\
	X(MR,     RNIC_NL_ATTR_RES_MR,     "mr",     4)			\
	X(CHANNEL, RNIC_NL_ATTR_RES_CHANNEL, "channel", 4)		\
	X(CQ,     RNIC_NL_ATTR_RES_CQ,     "cq",     4)			\
	X(SRQ,    RNIC_NL_ATTR_RES_SRQ,    "srq",    4)			\
	X(QP,     RNIC_NL_ATTR_RES_QP,     "qp",     4)			\
	X(AH,     RNIC_NL_ATTR_RES_AH,     "ah",     4)			\
	X(MW,     RNIC_NL_ATTR_RES_MW,     "mw",     4)			\
	X(XRCD,   RNIC_NL_ATTR_RES_XRCD,   "xrcd",   4)			\
	X(TGT_QP, RNIC_NL_ATTR_RES_TGT_QP, "tgt_qp", 4)			\
	X(PINNED, RNIC_NL_ATTR_RES_PINNED, "pinned", 8)

#define RNIC_RES_KIND_ENUM(kind, attr, name, width) RNIC_RES_##kind,
/**
 * enum rnic_res_kind - index into the counts arrays below
 * @RNIC_RES_PD: protection domains
 * @RNIC_RES_MR: memory regions
 * @RNIC_RES_PINNED: bytes pinned by memory regions
 * @RNIC_RES_NR_KINDS: how many kinds there are (an array size, not a kind)
 */
enum rnic_res_kind {
	RNIC_RES_KINDS(RNIC_RES_KIND_ENUM)
	RNIC_RES_NR_KINDS
};
#undef RNIC_RES_KIND_ENUM

/**
 * struct rnic_res_kind_desc - how one resource count travels and is named
 * @attr: netlink attribute (RNIC_NL_ATTR_RES_*), below 64
 * @name: short name, "pd"
 * @width: attribute payload in bytes, 4 or 8
 */
struct rnic_res_kind_desc {
	uint16_t attr;
	const char *name;
	unsigned int width;
};

/* Indexed by enum rnic_res_kind; generated from RNIC_RES_KINDS. */
extern const struct rnic_res_kind_desc rnic_res_kinds[RNIC_RES_NR_KINDS];

#define RNIC_RES_COMM_SIZE 64
#define RNIC_RES_MAX_CTXS 64

/**
 * struct rnic_res_ctx - one open verbs context (RNIC_NL_ATTR_CTX_ENTRY)
 * @attrs: bit N is set when attribute N was present in the entry; a count
 *	is known only if the bit of its rnic_res_kinds[].attr is set (see
 *	rnic_res_has()), otherwise it is 0
 * @id: RNIC_NL_ATTR_CTX_ID (always present)
 * @pid: RNIC_NL_ATTR_CTX_PID
 * @comm: RNIC_NL_ATTR_CTX_COMM
 * @counts: the RNIC_NL_ATTR_RES_* counts of the context
 */
struct rnic_res_ctx {
	uint64_t attrs;
	uint32_t id;
	uint32_t pid;
	char comm[RNIC_RES_COMM_SIZE];
	uint64_t counts[RNIC_RES_NR_KINDS];
};

/**
 * struct rnic_res_info - resources of one device, as told by RES_GET
 * @attrs: bit N is set when attribute N was present at the top level
 * @name: RNIC_NL_ATTR_DEV_NAME (always present)
 * @index: RNIC_NL_ATTR_DEV_INDEX
 * @counts: the RNIC_NL_ATTR_RES_* totals of the device
 * @n_ctxs: how many entries of @ctxs are filled, in the order received
 * @ctxs_truncated: the kernel sent more than RNIC_RES_MAX_CTXS contexts
 * @ctxs: RNIC_NL_ATTR_CTX_TABLE entries
 *
 * Several KiB, growing with RNIC_RES_NR_KINDS: allocate it on the heap.
 */
struct rnic_res_info {
	uint64_t attrs;
	char name[RNIC_LINK_NAME_SIZE];
	uint32_t index;
	uint64_t counts[RNIC_RES_NR_KINDS];
	unsigned int n_ctxs;
	bool ctxs_truncated;
	struct rnic_res_ctx ctxs[RNIC_RES_MAX_CTXS];
};

/**
 * rnic_res_has() - was a count present?
 * @attrs: the @attrs of a struct rnic_res_info or struct rnic_res_ctx
 * @kind: which count
 */
static inline bool rnic_res_has(uint64_t attrs, enum rnic_res_kind kind)
{
	return attrs & (UINT64_C(1) << rnic_res_kinds[kind].attr);
}

/**
 * rnic_res_parse() - decode one RES_GET reply message (rnic_genl_parse_t)
 * @nlh: a generic netlink message of the rnic family
 * @info: struct rnic_res_info, filled on success (zeroed first)
 *
 * Attribute types and lengths are checked; attributes this code does not
 * know are skipped, at the top level, in the context table and inside
 * context entries. Contexts beyond RNIC_RES_MAX_CTXS are validated, then
 * dropped with @info->ctxs_truncated set.
 *
 * Return: 0, or -EPROTO if the message is malformed: truncated, a known
 * attribute of the wrong type or length, a string longer than its field,
 * a context entry without RNIC_NL_ATTR_CTX_ID, or no
 * RNIC_NL_ATTR_DEV_NAME.
 */
int rnic_res_parse(const struct nlmsghdr *nlh, void *info);

/* RNIC_NL_CMD_RES_GET for one device: rnic_genl_get(); @info on the heap. */
static inline int rnic_res_get(struct rnic_genl *g, const char *name,
			       struct rnic_res_info *info)
{
	return rnic_genl_get(g, RNIC_NL_CMD_RES_GET, name, rnic_res_parse,
			     info);
}

/* RNIC_NL_CMD_RES_GET dump; @each gets a struct rnic_res_info. */
static inline int rnic_res_dump(struct rnic_genl *g, rnic_genl_each_t each,
				void *arg)
{
	return rnic_genl_dump(g, RNIC_NL_CMD_RES_GET, NULL, rnic_res_parse,
			      sizeof(struct rnic_res_info), each, arg);
}

/* ---- objects (RNIC_NL_CMD_RES_QP_GET, _MR_GET, _PD_GET, _CQ_GET, -------
 * _CM_ID_GET) */

/**
 * struct rnic_res_obj - one QP, MR, PD, CQ or CM id, as told by an object
 *	dump
 * @attrs: bit N is set when attribute N was present; a field whose
 *	attribute was absent is 0 / ""
 * @name: RNIC_NL_ATTR_DEV_NAME (always present but for a CM id on no
 *	device)
 * @index: RNIC_NL_ATTR_DEV_INDEX
 * @ctx: RNIC_NL_ATTR_CTX_ID
 * @pid: RNIC_NL_ATTR_CTX_PID
 * @comm: RNIC_NL_ATTR_CTX_COMM
 * @lqpn: RNIC_NL_ATTR_RES_LQPN
 * @rqpn: RNIC_NL_ATTR_RES_RQPN
 * @qp_type: RNIC_NL_ATTR_RES_QP_TYPE (enum ibv_qp_type)
 * @qp_state: RNIC_NL_ATTR_RES_QP_STATE (enum ibv_qp_state)
 * @sq_psn: RNIC_NL_ATTR_RES_SQ_PSN
 * @rq_psn: RNIC_NL_ATTR_RES_RQ_PSN
 * @lkey: RNIC_NL_ATTR_RES_LKEY
 * @rkey: RNIC_NL_ATTR_RES_RKEY
 * @mrlen: RNIC_NL_ATTR_RES_MRLEN
 * @handle: RNIC_NL_ATTR_RES_HANDLE
 * @users: RNIC_NL_ATTR_RES_USERS
 * @cqe: RNIC_NL_ATTR_RES_CQE
 * @cm_state: RNIC_NL_ATTR_RES_CM_STATE (enum rnic_cm_state)
 * @cm_ps: RNIC_NL_ATTR_RES_CM_PS (enum rnic_cm_port_space)
 * @src: RNIC_NL_ATTR_RES_SRC_ADDR (AF_INET or AF_INET6)
 * @dst: RNIC_NL_ATTR_RES_DST_ADDR (likewise)
 */
struct rnic_res_obj {
	uint64_t attrs;
	char name[RNIC_LINK_NAME_SIZE];
	uint32_t index;
	uint32_t ctx;
	uint32_t pid;
	char comm[RNIC_RES_COMM_SIZE];
	uint32_t lqpn;
	uint32_t rqpn;
	uint8_t qp_type;
	uint8_t qp_state;
	uint32_t sq_psn;
	uint32_t rq_psn;
	uint32_t lkey;
	uint32_t rkey;
	uint64_t mrlen;
	uint32_t handle;
	uint32_t users;
	uint32_t cqe;
	uint8_t cm_state;
	uint32_t cm_ps;
	struct rnic_cm_sockaddr src;
	struct rnic_cm_sockaddr dst;
};

/**
 * rnic_res_obj_parse() - decode one object dump message (rnic_genl_parse_t)
 * @nlh: a generic netlink message of the rnic family
 * @info: struct rnic_res_obj, filled on success (zeroed first)
 *
 * Return: 0, or -EPROTO if the message is malformed: truncated, a known
 * attribute of the wrong type or length, a string longer than its field,
 * or no RNIC_NL_ATTR_DEV_NAME.
 */
int rnic_res_obj_parse(const struct nlmsghdr *nlh, void *info);

/**
 * rnic_res_cm_parse() - decode one CM id dump message (rnic_genl_parse_t)
 * @nlh: a generic netlink message of the rnic family
 * @info: struct rnic_res_obj, filled on success (zeroed first)
 *
 * Return: 0, or -EPROTO if the message is malformed as for
 * rnic_res_obj_parse(), an address of another size or family than
 * struct rnic_cm_sockaddr's AF_INET and AF_INET6, or no
 * RNIC_NL_ATTR_RES_CM_STATE (a CM id need not be on a device).
 */
int rnic_res_cm_parse(const struct nlmsghdr *nlh, void *info);

#endif /* RNIC_GENL_H */
