/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rnic: software RDMA NIC - the verbs objects (PD, MR, CQ, SRQ, AH, QP,
 * multicast groups) and their ioctls. A QP embeds its engine state
 * (engine/qp_engine.h), the one engine header this layer includes.
 */
#ifndef RNIC_VERBS_H
#define RNIC_VERBS_H

#include <linux/bitfield.h>

#include "rnic.h"
#include "engine/qp_engine.h"

/**
 * struct rnic_pd - protection domain
 * @uobj: common header
 */
struct rnic_pd {
	struct rnic_uobj uobj;
};

/**
 * rnic_pd_get() - find a protection domain by handle, for an object that
 *	will hold it
 * @ctx: the calling context
 * @handle: handle from userspace, untrusted
 *
 * Return: the PD with a reference, dropped with rnic_uobj_put(&pd->uobj)
 * (when the object holding it goes), or ERR_PTR(-EINVAL).
 */
static inline struct rnic_pd *rnic_pd_get(struct rnic_ctx *ctx, u32 handle)
{
	struct rnic_uobj *uobj = rnic_uobj_get(ctx, handle, RNIC_OBJ_PD);

	if (IS_ERR(uobj))
		return ERR_CAST(uobj);
	return container_of(uobj, struct rnic_pd, uobj);
}

/**
 * struct rnic_mr - memory region: pinned user pages
 * @uobj: common header
 * @pd: its protection domain, a counted reference (pd->uobj.users)
 * @iova: address of the first byte in work requests
 * @length: bytes
 * @offset: offset of the first byte in @pages[0]
 * @access: enum rnic_access bits
 * @lkey: local key: the index in the device's MR table and a random
 *	part (RNIC_MR_INDEX_MASK)
 * @rkey: remote key, same index, another random part
 * @npages: entries in @pages
 * @pages: the pinned pages
 * @mm: address space charged for the pages (pinned_vm), a mmgrab()
 *	reference
 * @dp: the data path's lifetime reference: deregistering waits for it
 *	before it unpins
 */
struct rnic_mr {
	struct rnic_uobj uobj;
	struct rnic_pd *pd;
	u64 iova;
	u64 length;
	u32 offset;
	u32 access;
	u32 lkey;
	u32 rkey;
	unsigned long npages;
	struct page **pages;
	struct mm_struct *mm;
	struct rnic_dpref dp;
};

/**
 * struct rnic_cq - completion queue
 * @uobj: common header; a QP using the CQ holds a reference for its life
 * @ev: asynchronous event state (IBV_EVENT_CQ_ERR)
 * @channel: its completion channel, a counted reference; or NULL
 * @comp_vector: as created; rnic has one event path for every vector
 * @lock: the producer lock: protects @ring, @arm, @producer and
 *	@notify_seq; always with BH off (the data path may run in softirq):
 *	the data path has BH off already and takes it plain, ioctls use _bh
 * @ring: the CQE ring (struct rnic_cqe); resize replaces it under @lock
 * @arm: the arm word in @ring's region, written by userspace only (DOC
 *	"rnic CQ notification")
 * @producer: the producer index; the kernel's copy is the truth, the one
 *	in @ring is written from it
 * @cons_seen: the consumer index in @ring as last read; read again only
 *	when @producer is a ring ahead of it (the line is the poller's)
 * @notify_seq: sequence number of the last arming acted on; U32_MAX (no
 *	30-bit sequence number) before the first
 * @comp_event: its completion event, queued on @channel at most once
 * @comp_reported: completion events userspace read; the channel queue's
 *	lock
 * @overrun: a CQE was lost to a full ring (IBV_EVENT_CQ_ERR was raised);
 *	@lock
 *
 * The data path adds CQEs under @lock: when @cons_seen says full it reads
 * the consumer index with smp_load_acquire() (a value more than the ring
 * size behind @producer is an overrun, IBV_EVENT_CQ_ERR), writes the
 * entry, publishes @producer with smp_store_release() and then calls
 * rnic_cq_notify().
 */
struct rnic_cq {
	struct rnic_uobj uobj;
	struct rnic_evobj ev;
	struct rnic_channel *channel;
	u32 comp_vector;
	spinlock_t lock; /* see above */
	struct rnic_ring ring;
	u32 *arm;
	u32 producer;
	u32 cons_seen;
	u32 notify_seq;
	struct rnic_event comp_event;
	u32 comp_reported;
	bool overrun;
};

static inline struct rnic_cq *to_rnic_cq(struct rnic_uobj *uobj)
{
	return container_of(uobj, struct rnic_cq, uobj);
}

/* queue pairs, multicast: types */

/*
 * QP numbers, per device: 24 bits. 0 (the SMI of IB) is never used, 1 is
 * the device's GSI endpoint, a link endpoint for the CM's MADs; user QPs
 * start at RNIC_QPN_FIRST.
 */
#define RNIC_QPN_MASK		0xffffff
#define RNIC_QPN_GSI		1
/* the destination QP of a datagram to a multicast group (IBTA) */
#define RNIC_QPN_MCAST		0xffffff
#define RNIC_QPN_FIRST		2

/**
 * struct rnic_mcast_grp - a multicast group of a device
 * @node: entry in its device's bucket (mcast.c); added and removed under
 *	rnic_mcast_lock, walked under rcu_read_lock()
 * @gid: the multicast GID, network byte order
 * @nqps: QPs attached, at most RNIC_MAX_MCAST_QP; rnic_mcast_lock
 * @qps: the attachments, struct rnic_mcast_attach.grp_node; changed
 *	under rnic_mcast_lock, walked under rcu_read_lock()
 * @rcu: for kfree_rcu()
 *
 * A group exists while a QP is attached to it: detaching the last QP
 * frees it after a grace period.
 */
struct rnic_mcast_grp {
	struct hlist_node node;
	u8 gid[16];
	u32 nqps;
	struct list_head qps;
	struct rcu_head rcu;
};

/**
 * struct rnic_mcast_attach - one QP attached to one group
 * @grp_node: entry in @grp->qps (RCU list)
 * @qp_node: entry in @qp->mcast; rnic_mcast_lock
 * @qp: the QP
 * @grp: the group
 * @rcu: for kfree_rcu()
 *
 * Data path readers walk a group's attachments under rcu_read_lock(); a
 * QP reached that way stays allocated until rcu_read_unlock(): destroying
 * a QP detaches it, then waits for a grace period before the QP is freed.
 */
struct rnic_mcast_attach {
	struct list_head grp_node;
	struct list_head qp_node;
	struct rnic_qp *qp;
	struct rnic_mcast_grp *grp;
	struct rcu_head rcu;
};

/* shared receive queues, address handles: types */

/**
 * struct rnic_xrcd - an XRC domain (xrcd.c; DOC "rnic XRC domains")
 * @users: the handles on it (struct rnic_xrcd_handle) of every context;
 *	for a domain of a file, taken from 0 only under rnic_dev.xrcd_lock
 * @inode: the file's inode (a held reference), or NULL for a domain of
 *	one context alone
 * @node: entry in rnic_dev.xrcds while @inode is set; rnic_dev.xrcd_lock
 * @ctx: the domain's own context, without a file: it owns the domain's
 *	TGT QPs, so that they outlive the context that created them
 * @rcu: freed after a grace period, as the QPs in @ctx are
 */
struct rnic_xrcd {
	refcount_t users;
	struct inode *inode;
	struct list_head node;
	struct rnic_ctx ctx;
	struct rcu_head rcu;
};

/**
 * struct rnic_xrcd_handle - a context's handle on an XRC domain
 * @uobj: common header; each XRC SRQ and TGT QP handle of the context in
 *	the domain holds a reference, so closing a used handle is EBUSY
 * @xrcd: the domain, a counted reference (rnic_xrcd.users)
 */
struct rnic_xrcd_handle {
	struct rnic_uobj uobj;
	struct rnic_xrcd *xrcd;
};

/**
 * struct rnic_tgt_handle - a context's handle on an XRC TGT QP
 * @uobj: common header
 * @ev: asynchronous event state of the handle (rnic raises no events on
 *	TGT QPs: their events would belong to every handle)
 * @xh: the context's handle on the QP's domain, a counted reference
 * @qp: the QP, an object of the domain's context, a counted reference
 *	(qp->uobj.users); destroying the last handle destroys it, closing
 *	the context leaves it to the domain (xrcd.c)
 */
struct rnic_tgt_handle {
	struct rnic_uobj uobj;
	struct rnic_evobj ev;
	struct rnic_xrcd_handle *xh;
	struct rnic_qp *qp;
};

/**
 * struct rnic_srq - shared receive queue
 * @uobj: common header; every QP attached to the SRQ holds a reference
 *	for its whole life, so destroying a used SRQ is EBUSY
 * @pd: its protection domain, a counted reference (pd->uobj.users)
 * @ev: asynchronous event state (IBV_EVENT_SRQ_LIMIT_REACHED,
 *	IBV_EVENT_SRQ_ERR); its user_handle is the events' element
 * @ring: the receive ring; userspace produces entries (struct
 *	rnic_recv_wqe + @max_sge struct rnic_sge), the data path consumes
 *	them; never trusted (see "rnic rings"); its size is fixed (no
 *	resize)
 * @max_sge: scatter/gather entries per entry; fixed
 * @lock: protects @limit, and serialises the consumers of @ring (the
 *	responders of every QP attached); taken with _bh, the data path may
 *	run in softirq context
 * @consumer: the ring's consumer index, the kernel's copy; @lock
 * @producer_seen: the ring's producer index as last read; read again
 *	only when @consumer caught up with it; @lock
 * @limit: the armed SRQ limit, 0 when not armed. RNIC_IOCTL_MODIFY_SRQ
 *	arms it; the data path, after taking a WQE, raises
 *	IBV_EVENT_SRQ_LIMIT_REACHED (rnic_async_event() on @ev) if fewer
 *	than @limit are left and sets @limit to 0 in the same critical
 *	section, so the event fires once per arming.
 * @xh: an XRC SRQ's domain (a counted reference on the context's
 *	handle), NULL for an SRQ of RC and UD QPs
 * @cq: an XRC SRQ's CQ for its receive completions (counted), or NULL
 * @srqn: an XRC SRQ's number in rnic_dev.srqs, which XRC requests name
 * @dp: an XRC SRQ's data path reference: the responders of TGT QPs find
 *	it by number, not through a reference of their own QP
 */
struct rnic_srq {
	struct rnic_uobj uobj;
	struct rnic_pd *pd;
	struct rnic_evobj ev;
	struct rnic_ring ring;
	u32 max_sge;
	spinlock_t lock; /* see above */
	u32 consumer;
	u32 producer_seen;
	u32 limit;
	struct rnic_xrcd_handle *xh;
	struct rnic_cq *cq;
	u32 srqn;
	struct rnic_dpref dp;
};

static inline struct rnic_srq *to_rnic_srq(struct rnic_uobj *uobj)
{
	return container_of(uobj, struct rnic_srq, uobj);
}

struct rnic_srq *rnic_srq_lookup(struct rnic_dev *rdev, u32 srqn);

static inline void rnic_srq_dp_put(struct rnic_srq *srq)
{
	rnic_dpref_put(&srq->dp);
}

/**
 * struct rnic_ah - address handle
 * @uobj: common header
 * @pd: its protection domain, a counted reference (pd->uobj.users)
 * @av: the address, immutable
 *
 * The requester finds an AH by the handle of a UD send WQE in the QP's
 * own context under RCU (uobjs are freed after a grace period), checks
 * that @pd is the QP's and copies @av, keeping no reference: destroying
 * the AH, or closing the context, never waits for the data path.
 */
struct rnic_ah {
	struct rnic_uobj uobj;
	struct rnic_pd *pd;
	struct rnic_av av;
};

/*
 * MR and MW keys, lkey and rkey alike: bits 31-25 random, 24-8 the index
 * in the device's key table (rnic_dev.mrs), 7-0 the key byte. The key
 * byte is IB's "key" field, which belongs to the consumer (ibv_inc_rkey(),
 * memory windows); an MR's is random and fixed (no reregistration), so an
 * MR key has 15 random bits; a window's rkey has 7, and its key byte is
 * what a bind sets. A lookup compares the whole key. Indexes are
 * allocated cyclically (rnic_dev.mr_next): the key of a deregistered MR
 * names an MR again only once the indexes wrapped around, and then
 * matches with one chance in 2^15.
 *
 * The table holds MRs as plain pointers and MWs tagged RNIC_KEY_TAG_MW
 * (xa_tag_pointer()): one index space, so that the rkeys of regions and
 * windows never collide. RNIC_MAX_MR entries in all.
 */
#define RNIC_MR_INDEX_BITS	17
#define RNIC_MR_INDEX_MASK	GENMASK(RNIC_MR_INDEX_BITS + 7, 8)
static_assert(BIT(RNIC_MR_INDEX_BITS) >= RNIC_MAX_MR);
#define RNIC_KEY_TAG_MW		1

/* The key table index a key names; the key is untrusted. */
static inline u32 rnic_mr_key_index(u32 key)
{
	return FIELD_GET(RNIC_MR_INDEX_MASK, key);
}

/* Is [@addr, @addr + @len) inside [@start, @start + @length)? No wrap. */
static inline bool rnic_in_range(u64 start, u64 length, u64 addr, u64 len)
{
	return addr >= start && len <= length && addr - start <= length - len;
}

/**
 * struct rnic_mw - memory window: remote access to a range of an MR
 * @uobj: common header
 * @pd: its protection domain, a counted reference (pd->uobj.users)
 * @type: RNIC_MW_TYPE_1 or RNIC_MW_TYPE_2, fixed
 * @index: its entry in the device's key table, fixed
 * @lock: protects everything below; taken with BH off (the data path
 *	binds, invalidates and resolves windows in softirq context too)
 * @rkey: the key; a bind changes its key byte
 * @dead: being deallocated: never bound again
 * @mr: the MR it is bound to, with a reference on mr->uobj.users (so
 *	that deregistering the MR is EBUSY); NULL while not bound
 * @qpn: type 2: the QP it is bound to, by number (with @pd, type 2B)
 * @addr: first byte of the window in @mr's iova space
 * @length: bytes, inside @mr
 * @access: remote rights it grants, enum rnic_access bits
 *
 * The data path finds a window by rkey in the key table under RCU (uobjs
 * are freed after a grace period) and reads the binding under @lock; it
 * takes a data path reference on @mr there, which keeps the pages pinned
 * however the window changes afterwards.
 */
struct rnic_mw {
	struct rnic_uobj uobj;
	struct rnic_pd *pd;
	u32 type;
	u32 index;
	spinlock_t lock; /* see above */
	u32 rkey;
	bool dead;
	struct rnic_mr *mr;
	u32 qpn;
	u64 addr;
	u64 length;
	u32 access;
};

/* pd.c, mr.c, mw.c: the ioctls */
int rnic_alloc_pd(struct rnic_ucmd *ucmd);
int rnic_dealloc_pd(struct rnic_ucmd *ucmd);
int rnic_reg_mr(struct rnic_ucmd *ucmd);
int rnic_dereg_mr(struct rnic_ucmd *ucmd);
int rnic_alloc_mw(struct rnic_ucmd *ucmd);
int rnic_dealloc_mw(struct rnic_ucmd *ucmd);
/* xrcd.c: XRC domains and the handles on TGT QPs */
int rnic_open_xrcd(struct rnic_ucmd *ucmd);
int rnic_close_xrcd(struct rnic_ucmd *ucmd);
int rnic_open_qp(struct rnic_ucmd *ucmd);
struct rnic_xrcd_handle *rnic_xrcd_get(struct rnic_ctx *ctx, u32 handle);
struct rnic_tgt_handle *rnic_tgt_handle_new(struct rnic_ctx *ctx);
void rnic_tgt_handle_publish(struct rnic_tgt_handle *th,
			     struct rnic_xrcd_handle *xh, struct rnic_qp *qp,
			     u64 user_handle);
struct rnic_tgt_handle *rnic_tgt_lookup(struct rnic_ctx *ctx, u32 handle);
int rnic_destroy_tgt(struct rnic_ctx *ctx, u32 handle,
		     struct rnic_event_counts *counts);
int rnic_key_alloc(struct rnic_dev *rdev, u32 *index);
u32 rnic_key_make(u32 index);
struct rnic_mr *rnic_mr_from_entry(void *entry, u32 key, bool remote);
struct rnic_mr *rnic_mr_get(struct rnic_dev *rdev, u32 key, bool remote);

int rnic_create_cq(struct rnic_ucmd *ucmd);
int rnic_resize_cq(struct rnic_ucmd *ucmd);
extern const struct rnic_evobj_type rnic_cq_evobj_type;
int rnic_cq_post(struct rnic_cq *cq, const struct rnic_cqe *cqe,
		 bool solicited);

/**
 * rnic_cq_notify() - queue a completion event if userspace armed the CQ
 *	for the CQEs just published
 * @cq: the CQ, its lock held; the new CQEs published with
 *	smp_store_release() of the producer index
 * @solicited: one of the new CQEs is solicited or unsuccessful
 *
 * Implements the kernel side of DOC "rnic CQ notification"; the data path
 * calls it after each CQE (rnic_cq_post()), hence inline.
 *
 * Context: any but hard interrupt; does not sleep.
 */
static inline void rnic_cq_notify(struct rnic_cq *cq, bool solicited)
{
	u32 arm, seq;

	lockdep_assert_held(&cq->lock);
	/*
	 * Orders the producer store before the arm word load; pairs with
	 * the full barrier userspace issues between arming and polling.
	 */
	smp_mb();
	arm = READ_ONCE(*cq->arm);
	seq = arm >> RNIC_CQ_ARM_SEQ_SHIFT;
	if (seq == cq->notify_seq)
		return;
	if (!(arm & RNIC_CQ_ARM_NEXT) &&
	    !(solicited && (arm & RNIC_CQ_ARM_SOLICITED)))
		return;
	cq->notify_seq = seq;
	if (cq->channel)
		rnic_channel_event(cq->channel, &cq->comp_event);
}

/* queue pairs, multicast: functions */

/**
 * struct rnic_qp_limits - what each work request of a QP may carry
 * @max_send_sge: scatter/gather entries of a send WQE
 * @max_recv_sge: scatter/gather entries of a receive WQE (0 with an SRQ)
 * @max_inline_data: inline bytes of a send WQE
 */
struct rnic_qp_limits {
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
};

/**
 * struct rnic_qp - queue pair
 * @uobj: common header
 * @pd: its protection domain, a counted reference (pd->uobj.users)
 * @send_cq: the send CQ, a counted reference (cq->uobj.users)
 * @recv_cq: the receive CQ, a counted reference of its own (a CQ that is
 *	both holds two)
 * @srq: the SRQ the QP receives from, a counted reference; or NULL
 * @ev: asynchronous event state (IBV_EVENT_SQ_DRAINED, and the data
 *	path's QP events)
 * @qpn: QP number, the index of the QP in its device's table
 *	(rnic_dev.qps), fixed
 * @type: enum rnic_qp_type
 * @sq_sig_all: every send work request completes with a CQE
 * @cap: what a work request may carry, granted at creation; fixed. The
 *	queue sizes are those of @sq and @rq (rnic_qp_cap()).
 * @sq: the send ring; .region is NULL without a send queue
 * @rq: the receive ring; .region is NULL with an SRQ or without a
 *	receive queue
 * @lock: protects @attr; taken with _bh, the data path may run in
 *	softirq context
 * @attr: the attributes as RNIC_IOCTL_MODIFY_QP last set them;
 *	@attr.qp_state is the QP's state
 * @mcast: the groups the QP is attached to (struct
 *	rnic_mcast_attach.qp_node), UD only; rnic_mcast_lock
 * @rdev: its device
 * @dp: lifetime reference of the data path: taken by whoever found the QP
 *	by number (a peer's packet, a multicast group), by its timers and
 *	work while they are pending; destroy waits for it (core/dpref.c)
 * @sq_flags: the SQ's flags word (enum rnic_wq_flags) in @sq's region,
 *	or NULL without an SQ
 * @rq_flags: the RQ's flags word in @rq's region, or NULL without an RQ
 * @polled: created with RNIC_CREATE_QP_SQ_POLL; fixed
 * @poll_node: entry in the device's polling list (engine/sqpoll.c)
 * @poll_prod: the SQ producer index the polling thread last kicked for
 * @poll_gen: rnic_req.gen when it did; both under the poller's lock
 * @path: the peer, as the data path uses it (link/link.h); rnic_qp_dp_apply()
 *	writes it with @resp.lock, @req.lock and @lock held, so any one of
 *	them is enough to read it
 * @req: requester and completer state (engine/qp_engine.h)
 * @resp: responder state (engine/qp_engine.h)
 * @scratch: large per-packet structs of the requester, the responder and
 *	the completer, each under its own rule (engine.h)
 * @dp_mm: the address space whose pinned_vm pays for @scratch and
 *	@req.wqes, as it pays for the rings (RLIMIT_MEMLOCK), a mmgrab()
 *	reference; NULL until rnic_qp_dp_init() charged it
 * @dp_pages: pages charged to @dp_mm
 *
 * Lock order: @resp.lock -> @req.lock -> @lock -> rnic_port.lock; the
 * locks of CQs (rnic_cq_post()) and SRQs are taken under any of them. A
 * responder holding @resp.lock calls into the peer's completer, which
 * takes the peer's @req.lock; no engine lock is held while a requester
 * hands a packet to the link. rnic_mcast_lock (a mutex, mcast.c) is
 * never taken under any of them.
 */
struct rnic_qp {
	struct rnic_uobj uobj;
	struct rnic_pd *pd;
	struct rnic_cq *send_cq;
	struct rnic_cq *recv_cq;
	struct rnic_srq *srq;
	struct rnic_evobj ev;
	u32 qpn;
	u32 type;
	bool sq_sig_all;
	struct rnic_qp_limits cap;
	struct rnic_ring sq;
	struct rnic_ring rq;
	spinlock_t lock; /* see above */
	struct rnic_qp_attr attr;
	struct list_head mcast;

	struct rnic_dev *rdev;
	struct rnic_dpref dp;
	u32 *sq_flags;
	u32 *rq_flags;
	bool polled;
	struct list_head poll_node;
	u32 poll_prod;
	u32 poll_gen;
	struct rnic_path path;
	struct rnic_req req;
	struct rnic_resp resp;
	struct rnic_qp_scratch *scratch;
	struct mm_struct *dp_mm;
	unsigned long dp_pages;
};

static inline struct rnic_qp *to_rnic_qp(struct rnic_uobj *uobj)
{
	return container_of(uobj, struct rnic_qp, uobj);
}

/**
 * rnic_qp_xrcd() - the XRC domain of a TGT QP
 * @qp: an XRC_RECV QP, an object of its domain's own context
 */
static inline struct rnic_xrcd *rnic_qp_xrcd(struct rnic_qp *qp)
{
	return container_of(qp->uobj.ctx, struct rnic_xrcd, ctx);
}

/**
 * rnic_qp_dp_put() - drop a data path reference on a QP
 * @qp: the QP
 */
static inline void rnic_qp_dp_put(struct rnic_qp *qp)
{
	rnic_dpref_put(&qp->dp);
}

static inline void rnic_mr_dp_put(struct rnic_mr *mr)
{
	rnic_dpref_put(&mr->dp);
}

/**
 * rnic_qp_state() - the QP's state, for the data path
 * @qp: the QP
 *
 * Written under rnic_qp.lock by modify and by rnic_qp_error(); the data
 * path reads it without that lock and re-reads it under its own locks.
 */
static inline u32 rnic_qp_state(struct rnic_qp *qp)
{
	return READ_ONCE(qp->attr.qp_state);
}

/* qp.c, qp_state.c, mcast.c: the ioctls and their helpers */
int rnic_create_qp(struct rnic_ucmd *ucmd);
int rnic_modify_qp(struct rnic_ucmd *ucmd);
int rnic_query_qp(struct rnic_ucmd *ucmd);
struct rnic_qp *rnic_qp_get(struct rnic_ctx *ctx, u32 handle,
			    struct rnic_uobj **held);
extern const struct rnic_evobj_type rnic_qp_evobj_type;
int rnic_attach_mcast(struct rnic_ucmd *ucmd);
int rnic_detach_mcast(struct rnic_ucmd *ucmd);
bool rnic_gid_is_mcast(const u8 *gid);
bool rnic_mcast_attached(struct rnic_qp *qp);
bool rnic_mcast_joined(struct rnic_dev *rdev, const u8 *gid);
void rnic_mcast_detach_all(struct rnic_qp *qp);
void rnic_qp_halt_dev(struct rnic_dev *rdev);
struct rnic_qp *rnic_qp_lookup(struct rnic_dev *rdev, u32 qpn);
void rnic_mcast_deliver(struct rnic_dev *rdev, const u8 *gid,
			void (*fn)(struct rnic_qp *qp, void *arg), void *arg);

/* mw.c: what the data path does with windows */
u32 rnic_mw_bind(struct rnic_qp *qp, const struct rnic_send_wqe *wqe);
bool rnic_mw_invalidate(struct rnic_qp *qp, u32 rkey);
struct rnic_mr *rnic_mw_resolve(struct rnic_mw *mw, const struct rnic_qp *qp,
				u32 rkey, u64 va, u32 len, u32 access);

/* shared receive queues, address handles: functions */
int rnic_create_srq(struct rnic_ucmd *ucmd);
int rnic_modify_srq(struct rnic_ucmd *ucmd);
int rnic_query_srq(struct rnic_ucmd *ucmd);
extern const struct rnic_evobj_type rnic_srq_evobj_type;
int rnic_av_from_attr(struct rnic_dev *rdev, const struct rnic_ah_attr *attr,
		      struct rnic_av *av);
int rnic_create_ah(struct rnic_ucmd *ucmd);
int rnic_destroy_ah(struct rnic_ucmd *ucmd);

#endif /* RNIC_VERBS_H */
