/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * librnic private types and helpers; never installed.
 */
#ifndef RNIC_LIB_INTERNAL_H
#define RNIC_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>
#include <rdma/rnic-abi.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Environment variables, read on every call that uses them. */
#define RNIC_ENV_SYSFS_DIR "RNIC_SYSFS_DIR" /* default /sys/class/rnic */
#define RNIC_ENV_DEV_DIR "RNIC_DEV_DIR"	    /* default /dev/infiniband */
#define RNIC_ENV_DEBUG "RNIC_DEBUG"	    /* set: say why a device is skipped */
#define RNIC_ENV_SQ_POLL "RNIC_SQ_POLL"    /* "1": new QPs' SQs are polled */

#define RNIC_SYSFS_DIR_DEFAULT "/sys/class/rnic"
#define RNIC_DEV_DIR_DEFAULT "/dev/infiniband"

/**
 * struct rnic_device - librnic's side of a struct ibv_device
 * @ibdev: what the application sees
 * @node_guid: node GUID, network byte order
 * @devt: device number of the char device, from the sysfs ``dev`` file
 * @node_path: path of the char device node, malloc()ed
 * @refcnt: one reference for the list that created the device and one per
 *          open context; the last rnic_device_put() frees the device.
 *          Atomic, so lists and contexts may be released from any thread.
 */
struct rnic_device {
	struct ibv_device ibdev;
	__be64 node_guid;
	dev_t devt;
	char *node_path;
	unsigned int refcnt;
};

static inline struct rnic_device *to_rdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct rnic_device, ibdev);
}

void rnic_device_get(struct rnic_device *rdev);
void rnic_device_put(struct rnic_device *rdev);

/**
 * struct rnic_context - librnic's side of a struct ibv_context
 * @vctx: the extended operations, then (vctx.context) what the application
 *	sees; rnic fills the operations it has
 * @rdev: the device, referenced for the context's lifetime
 */
struct rnic_context {
	struct verbs_context vctx;
	struct rnic_device *rdev;
};

static inline struct rnic_context *to_rctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct rnic_context, vctx.context);
}

/*
 * Bytes of struct ibv_port_attr that the entry point of binaries built
 * before the struct grew fills: up to and including ``flags``.
 */
#define RNIC_PORT_ATTR_COMPAT_SIZE \
	(offsetof(struct ibv_port_attr, flags) + \
	 sizeof(((struct ibv_port_attr *)0)->flags))

/**
 * rnic_query_gid() - RNIC_IOCTL_QUERY_GID for one entry
 * @context: the context
 * @port_num: port, from 1
 * @index: entry
 * @q: filled with the kernel's answer
 *
 * Return: 0 or the errno value (errno is set too); ENODATA for an empty
 * entry.
 */
int rnic_query_gid(struct ibv_context *context, uint32_t port_num,
		   uint32_t index, struct rnic_query_gid *q);

/*
 * GID types as rdma-core's provider interface names them (the words of
 * sysfs' gid_attrs/types): ibv_query_gid_type() answers with these.
 */
enum rnic_gid_type_sysfs {
	RNIC_GID_TYPE_SYSFS_IB_ROCE_V1,
	RNIC_GID_TYPE_SYSFS_ROCE_V2,
};

/**
 * ibv_query_gid_type() - the type of a GID table entry
 * @context: an open context
 * @port_num: port number, from 1
 * @index: entry
 * @type: set on success
 *
 * Not in librnic's own API: rdma-core has it in its provider interface,
 * and ibv_devinfo calls it; the libibverbs.so.1 build exports it there.
 *
 * Return: 0, or -1 with errno set (EINVAL for a bad port or index,
 * ENODATA for an empty entry, ENODEV).
 */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum rnic_gid_type_sysfs *type);

/* The verbs_context operations, set by ibv_open_device(). */
int rnic_query_port(struct ibv_context *context, uint8_t port_num,
		    struct ibv_port_attr *port_attr, size_t port_attr_len);
int rnic_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
struct ibv_cq_ex *rnic_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);
struct ibv_qp *rnic_create_qp_ex(struct ibv_context *context,
				struct ibv_qp_init_attr_ex *attr);
struct ibv_srq *rnic_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr);
int rnic_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
struct ibv_qp *rnic_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr);
struct ibv_xrcd *rnic_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr);
int rnic_close_xrcd(struct ibv_xrcd *xrcd);

/**
 * struct rnic_xrcd - librnic's side of a struct ibv_xrcd
 * @ibxrcd: what the application sees
 * @handle: the kernel's handle on the domain, in ibxrcd.context
 */
struct rnic_xrcd {
	struct ibv_xrcd ibxrcd;
	uint32_t handle;
};

static inline struct rnic_xrcd *to_rxrcd(struct ibv_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct rnic_xrcd, ibxrcd);
}

/**
 * rnic_cmd() - issue an rnic ioctl on a context
 * @context: the context
 * @cmd: RNIC_IOCTL_*
 * @arg: its struct, size field set
 *
 * Return: 0 or the errno value of the failure (errno is set too).
 */
int rnic_cmd(struct ibv_context *context, unsigned long cmd, void *arg);

/**
 * rnic_destroy_obj() - destroy a kernel object with a struct rnic_destroy
 * @context: the context owning it
 * @cmd: RNIC_IOCTL_DEALLOC_PD, RNIC_IOCTL_DEREG_MR, ...
 * @handle: the object's handle
 *
 * Return: 0 or the errno value of the failure.
 */
int rnic_destroy_obj(struct ibv_context *context, unsigned long cmd,
		     uint32_t handle);

/**
 * struct rnic_ring - a ring the kernel described, as mapped (DOC "rnic
 *	rings" in rnic-abi.h)
 * @producer: the producer index word
 * @consumer: the consumer index word
 * @entries: entry 0
 * @entry_size: bytes per entry
 * @mask: number of entries - 1
 * @size: bytes mapped
 *
 * Filled by rnic_ring_set() from a struct rnic_ring_info that
 * rnic_ring_check() accepted.
 */
struct rnic_ring {
	uint32_t *producer;
	uint32_t *consumer;
	char *entries;
	uint32_t entry_size;
	uint32_t mask;
	size_t size;
};

/**
 * rnic_ring_check() - check a ring the kernel described before mapping it
 * @ri: the ring, from a create or resize ioctl
 * @room: bytes an entry must hold
 * @word_off: offset of the ring's other __u32 word (a work queue's flags
 *	word, a CQ's arm word), or NULL if it has none
 *
 * Return: 0, or EPROTO if @ri breaks the contract: no entries or not a
 * power of two of them; entries smaller than @room, not 8-byte aligned,
 * or past the region; an index or @word_off word unaligned, outside the
 * region, inside an entry, or on another of these words.
 */
int rnic_ring_check(const struct rnic_ring_info *ri, uint64_t room,
		    const uint32_t *word_off);

/**
 * rnic_ring_mmap() - map a checked ring's region from the char device
 * @at: where (MAP_FIXED: replaces what is there), or NULL for anywhere
 * @fd: the context's cmd_fd
 * @ri: the ring
 *
 * Return: the region's address, or NULL with errno set.
 */
void *rnic_ring_mmap(void *at, int fd, const struct rnic_ring_info *ri);

/**
 * rnic_ring_set() - describe a checked ring mapped at @va
 * @r: the description to fill
 * @va: the region's address
 * @ri: the ring
 *
 * The index pointers are stored atomically (relaxed), so that a reader
 * that loads them without a lock (ibv_poll_cq()'s empty check) sees
 * either the old or the new one.
 */
void rnic_ring_set(struct rnic_ring *r, void *va,
		   const struct rnic_ring_info *ri);

/* rnic_ring_entry() - the entry at free-running index @idx. */
static inline void *rnic_ring_entry(const struct rnic_ring *r, uint32_t idx)
{
	return r->entries + (size_t)(idx & r->mask) * r->entry_size;
}

/**
 * struct rnic_wq - the producer side of a work queue ring: an SQ, an RQ or
 *	an SRQ
 * @lock: serialises posting to this queue, and only to it
 * @map: the mapped region; NULL for a queue without a ring (0 work
 *	requests), which is always full
 * @ring: the ring in @map. We write its producer index (store-release),
 *	the kernel its consumer index (load-acquire)
 * @flags: flags word in @map (enum rnic_wq_flags), written by the kernel;
 *	NULL for an SRQ, which has none
 * @size: number of entries; 0 without a ring
 * @head: our copy of the producer index: the next entry to write
 * @tail: the consumer index as last read: entries below it are free.
 *	Read again only when the ring looks full
 * @max_sge: SGEs per work request, as granted
 * @max_inline: inline bytes per send work request, as granted; 0 for a
 *	receive queue
 *
 * Everything but @head and @tail is fixed once the ring is mapped; @head
 * and @tail change under @lock.
 */
struct rnic_wq {
	pthread_spinlock_t lock;
	void *map;
	struct rnic_ring ring;
	uint32_t *flags;
	uint32_t size;
	uint32_t head;
	uint32_t tail;
	uint32_t max_sge;
	uint32_t max_inline;
};

/**
 * rnic_wq_open() - check a ring the kernel described, map it, and set up
 *	a work queue for posting
 * @wq: the work queue, zeroed by the caller
 * @fd: the context's cmd_fd
 * @ri: the ring, from a create ioctl (all zero: the queue has no ring)
 * @flags_off: offset of the flags word in the region, or NULL if the ring
 *	has none
 * @nr_wr: work requests granted: must be the ring's entries (0: no ring)
 * @room: bytes an entry needs: header and SGEs or inline data
 *
 * Return: 0; EPROTO if the kernel's answer does not fit the contract
 * (rnic_ring_check(), and a ring exactly when there are work requests,
 * @nr_wr entries); or the errno value of a failed mmap() or
 * pthread_spin_init().
 */
int rnic_wq_open(struct rnic_wq *wq, int fd, const struct rnic_ring_info *ri,
		 const uint32_t *flags_off, uint32_t nr_wr, uint64_t room);

/* rnic_wq_close() - unmap a work queue's ring; undoes rnic_wq_open(). */
void rnic_wq_close(struct rnic_wq *wq);

/*
 * rnic_wq_sync() - take our copies of the indexes from the ring, after
 * the kernel set them (at creation, on a move to RESET).
 */
void rnic_wq_sync(struct rnic_wq *wq);

struct rnic_wr_builder;

/**
 * struct rnic_qp - librnic's side of a struct ibv_qp
 * @ibqp: what the application sees
 * @ibqpx: the same with its work request builder (ibv_qp_to_qp_ex())
 * @sq_sig_all: as created
 * @sq_poll: created with RNIC_CREATE_QP_SQ_POLL: kick only when the
 *	polling thread asks for it
 * @xrc: an XRC QP (XRC_SEND, the reference documents' XRC, XRC_RECV):
 *	no receive queue; its send work requests name an XRC SRQ
 * @send_opcodes: bit n set: ibv_wr_opcode n is allowed on this QP type
 * @sq: the send queue
 * @rq: the receive queue (no ring with an SRQ)
 * @builder: the builder's state, for a QP created with send_ops_flags;
 *	else NULL
 */
struct rnic_qp {
	union {
		struct ibv_qp ibqp;
		struct ibv_qp_ex ibqpx;
	};
	int sq_sig_all;
	bool sq_poll;
	bool xrc;
	uint32_t send_opcodes;
	struct rnic_wq sq;
	struct rnic_wq rq;
	struct rnic_wr_builder *builder;
};

static inline struct rnic_qp *to_rqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct rnic_qp, ibqp);
}

/**
 * rnic_wr_builder_init() - give a new QP the work request builder
 * @qp: the QP, its queues mapped
 * @send_ops_flags: enum ibv_qp_create_send_ops_flags, checked
 *
 * Return: 0 or ENOMEM.
 */
int rnic_wr_builder_init(struct rnic_qp *qp, uint64_t send_ops_flags);

/* rnic_wr_builder_fini() - free what rnic_wr_builder_init() allocated */
void rnic_wr_builder_fini(struct rnic_qp *qp);

/* mw.c: ibv_context.ops' memory window functions (rdma-core's inlines) */
struct ibv_mw *rnic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int rnic_dealloc_mw(struct ibv_mw *mw);
int rnic_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);

/* rnic_qp_send_opcodes() - the struct rnic_qp.send_opcodes of a QP type */
uint32_t rnic_qp_send_opcodes(enum ibv_qp_type qp_type);

/* The pieces of ibv_post_send() the work request builder (qp_ex.c) uses. */

/* rnic_send_state_ok() - does the QP's state take send work requests? */
bool rnic_send_state_ok(const struct ibv_qp *ibqp);

/* rnic_wq_full() - is the ring full (no entry at @wq->head is free)? */
bool rnic_wq_full(struct rnic_wq *wq);

/**
 * rnic_send_wr_check() - check one send work request
 * @qp: the QP
 * @wr: the work request
 * @inline_len: with IBV_SEND_INLINE, set to the bytes to copy
 *
 * Return: 0 or EINVAL (DOC "rnic work request checks" in rnic-abi.h).
 */
int rnic_send_wr_check(const struct rnic_qp *qp,
		       const struct ibv_send_wr *wr, uint32_t *inline_len);

/* rnic_send_wqe_write() - write a checked work request into @slot. */
void rnic_send_wqe_write(void *slot, const struct rnic_qp *qp,
			 const struct ibv_send_wr *wr, uint32_t inline_len);

/**
 * rnic_sq_publish() - publish the entries written below qp->sq.head and
 *	ring the doorbell (if the SQ is not polled by a thread that is awake)
 * @qp: the QP, its SQ lock held; released here, before the doorbell
 */
void rnic_sq_publish(struct rnic_qp *qp);

/**
 * struct rnic_srq - librnic's side of a struct ibv_srq
 * @ibsrq: what the application sees
 * @max_wr: work requests granted, the ring's entries
 * @rq: the receive ring
 * @xrc: an XRC SRQ, numbered @srq_num
 * @srq_num: with @xrc, its number (ibv_get_srq_num())
 */
struct rnic_srq {
	struct ibv_srq ibsrq;
	uint32_t max_wr;
	struct rnic_wq rq;
	bool xrc;
	uint32_t srq_num;
};

static inline struct rnic_srq *to_rsrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct rnic_srq, ibsrq);
}

/* rnic_debug() - print to stderr when RNIC_DEBUG is set in the environment. */
void rnic_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* rnic_env_dir() - directory from @env, or @def if unset or empty. */
const char *rnic_env_dir(const char *env, const char *def);

#endif /* RNIC_LIB_INTERNAL_H */
