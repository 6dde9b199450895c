/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rnic: software RDMA NIC - types and helpers shared by the module's files.
 */
#ifndef RNIC_H
#define RNIC_H

#include <linux/bits.h>
#include <linux/cdev.h>
#include <linux/cgroup_rdma.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/percpu-rwsem.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>

#include <rdma/rnic-abi.h>
#include <rdma/rnic-netlink.h>

#define RNIC_VERSION_MAJOR 0
#define RNIC_VERSION_MINOR 1
#define RNIC_VERSION_PATCH 0

/*
 * Device limits reported by RNIC_IOCTL_QUERY_DEVICE. They are chosen, not
 * derived: see Documentation/admin-guide.rst ("Limits").
 */
#define RNIC_MAX_QP		131072
#define RNIC_MAX_QP_WR		32768
#define RNIC_MAX_SGE		32
#define RNIC_MAX_CQ		131072
#define RNIC_MAX_CQE		65536
#define RNIC_MAX_MR		131072
#define RNIC_MAX_MR_SIZE	BIT_ULL(40)
#define RNIC_MAX_PD		65536
#define RNIC_MAX_RD_ATOM	64
#define RNIC_MAX_SRQ		65536
#define RNIC_MAX_SRQ_WR		32768
#define RNIC_MAX_AH		65536
#define RNIC_MAX_MCAST_GRP	8192
#define RNIC_MAX_MCAST_QP	56
#define RNIC_MAX_MSG_SZ		BIT(30)
#define RNIC_MAX_COMP_VECTORS	32
#define RNIC_MAX_CHANNEL	65536

/* IB-spec values the port reports; the same numbers as enum ibv_*. */
#define RNIC_PORT_DOWN		1
#define RNIC_PORT_ACTIVE	4
#define RNIC_PHYS_DISABLED	3
#define RNIC_PHYS_LINK_UP	5
#define RNIC_MTU_256		1
#define RNIC_MTU_4096		5
#define RNIC_LINK_LAYER_ETH	2
#define RNIC_WIDTH_4X		2
#define RNIC_SPEED_EDR		32
#define RNIC_ATOMIC_HCA		1
#define RNIC_DEVICE_PORT_ACTIVE_EVENT	BIT(10)
#define RNIC_DEVICE_SYS_IMAGE_GUID	BIT(11)
#define RNIC_PORT_IP_BASED_GIDS		BIT(26)

/**
 * enum rnic_obj_type - kinds of objects, for handles, limits and the leak
 *	check at unload
 * @RNIC_OBJ_DEVICE: struct rnic_dev (leak check only)
 * @RNIC_OBJ_CONTEXT: struct rnic_ctx (leak check only)
 * @RNIC_OBJ_PD: struct rnic_pd
 * @RNIC_OBJ_MR: struct rnic_mr
 * @RNIC_OBJ_CHANNEL: struct rnic_channel, a completion channel
 * @RNIC_OBJ_CQ: struct rnic_cq
 * @RNIC_OBJ_SRQ: struct rnic_srq
 * @RNIC_OBJ_QP: struct rnic_qp
 * @RNIC_OBJ_AH: struct rnic_ah
 * @RNIC_OBJ_MAX: number of kinds
 *
 * Objects a context owns come after RNIC_OBJ_CONTEXT, in creation
 * dependency order. Closing a context destroys them from the last kind
 * to the first, and repeats while that freed something
 * (rnic_uobj_destroy_all()), so the order is a preference, not a rule.
 */
enum rnic_obj_type {
	RNIC_OBJ_DEVICE,
	RNIC_OBJ_CONTEXT,
	RNIC_OBJ_PD,
	RNIC_OBJ_MR,
	RNIC_OBJ_CHANNEL,
	RNIC_OBJ_CQ,
	RNIC_OBJ_SRQ,
	RNIC_OBJ_QP,
	RNIC_OBJ_AH,
	RNIC_OBJ_MAX
};

#define RNIC_UOBJ_FIRST RNIC_OBJ_PD

/**
 * struct rnic_gid - one GID table entry
 * @raw: the GID, network byte order
 * @valid: the entry is in use
 */
struct rnic_gid {
	u8 raw[16];
	bool valid;
};

/**
 * rnic_xa_load_rcu() - xa_load() for a caller already in an RCU read-side
 *	critical section
 * @xa: the array
 * @index: the index, untrusted
 *
 * The data path looks objects up and takes references under its own
 * rcu_read_lock(); this spares xa_load()'s nested one.
 *
 * Return: the entry, or NULL (also for a reserved but unset index).
 */
static inline void *rnic_xa_load_rcu(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);
	void *entry;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "rnic: xarray read without RCU");
	do {
		entry = xas_load(&xas);
		if (xa_is_zero(entry))
			entry = NULL;
	} while (xas_retry(&xas, entry));
	return entry;
}

/**
 * struct rnic_dpref - lifetime reference the data path takes on a QP or
 *	MR it found by number or key
 * @ref: 1 for the owner while the object is findable, plus 1 per user
 * @done: completed when @ref drops to 0: the owner may free the object
 *
 * The tables that lead to the object are read under RCU and objects are
 * freed after a grace period (kfree_rcu() in uobj.c), so a lookup may
 * try refcount_inc_not_zero() on an object being destroyed.
 */
struct rnic_dpref {
	refcount_t ref;
	struct completion done;
};

/**
 * struct rnic_port - the (single) port of a device
 * @lock: protects every field below; taken in any context (softirq
 *	included, the IPv6 address notifier is atomic), so always with _bh
 * @gid_seq: bumped around every change of @gids, under @lock, so that the
 *	local link can look a GID up for each packet without the lock
 *	(rnic_dev_has_gid())
 * @state: logical port state, RNIC_PORT_DOWN or RNIC_PORT_ACTIVE
 * @netdev_mtu: MTU of the bound netdev, 0 when unbound
 * @gids: GID table; entry 0 is the permanent link-local GID
 */
struct rnic_port {
	spinlock_t lock; /* see above */
	seqcount_spinlock_t gid_seq;
	u8 state;
	u32 netdev_mtu;
	struct rnic_gid gids[RNIC_GID_TABLE_LEN];
};

/**
 * struct rnic_dev - one rnic device (rnic0, ...)
 * @dev: class device in /sys/class/rnic; its reference count is the
 *	lifetime of the whole struct, which is freed by its release callback
 * @cdev: the verbs char device /dev/infiniband/uverbsN; holds a reference
 *	on @dev while registered, open files hold their own
 * @index: slot in the device registry; also the char device minor
 * @net: the network namespace the device belongs to: its bound netdev's,
 *	or its creator's when unbound (rnic_dev_net()). Not a counted
 *	reference: no published device outlives the namespace, whose exit
 *	removes it (a bound device's netdev is removed, or moved out, before
 *	that); a removed device kept by open contexts may, and its @net is
 *	then only compared, never followed. Set before the device is
 *	published; changed only when the bound netdev moves to another
 *	namespace, under rtnl_lock, rnic_devs_lock and rnic_bind_lock, so
 *	stable under any of them (sysfs net_ns reads it under
 *	rnic_bind_lock). The data path and open() read it without a lock: a
 *	packet racing a move may see either namespace.
 * @node_guid: node GUID, fixed at creation
 * @port: port 1
 * @live_rwsem: ioctls and opens run under it for reading; the second
 *	step of a removal takes it for writing, to wait for those that saw
 *	@live true. Per CPU: every doorbell takes it, and removal is rare.
 * @live: the device is registered; cleared (WRITE_ONCE) by the first step
 *	of a removal without @live_rwsem, read with READ_ONCE under it
 * @ncontexts: open verbs contexts
 * @ctx_lock: protects @contexts and @next_ctx_id
 * @contexts: open contexts, for resource reports
 * @next_ctx_id: id of the next context opened
 * @nobjs: objects of each kind on the device, checked against its limits
 * @pinned: bytes pinned by memory regions of the device
 * @async_lock: protects @async_queues
 * @async_queues: asynchronous event queues of its contexts, for device
 *	events; @async_lock (event.c)
 * @mrs: MR table, index (the low bits of lkey and rkey) -> struct rnic_mr;
 *	an entry is non-NULL while the MR is registered
 * @netdev: bound netdev (a held reference) or NULL; written under
 *	rnic_bind_lock, before the device is published and after it is
 *	unpublished, so it is also stable under rnic_devs_lock while published
 * @netdev_tracker: reference tracker for @netdev
 * @netdev_name: name of @netdev, kept current on renames; rnic_bind_lock
 * @bind_node: entry in the list of bound devices; rnic_bind_lock
 * @wq: the data path's workers: requesters that yield, timers' work
 * @poller: the polling thread's state (poll.c), or NULL
 * @cg_rwsem: protects @cg_registered: charges and uncharges take it for
 *	reading, rnic_cg_unregister() for writing (uobj.c)
 * @cg_registered: @cg_dev is registered with the RDMA cgroup controller:
 *	from just before the char device appears until removal
 * @cg_dev: the device as the RDMA cgroup controller knows it (rdma.max,
 *	rdma.current), under the device's name
 * @counters: events of the data path, indexed by enum rnic_nl_counter
 *	(entry 0 is unused); lockless, rnic_dev_count()
 * @remove_work: the second step of a removal under rtnl_lock (main.c);
 *	holds the registry's reference
 *
 * Lock order: rtnl_lock -> rnic_devs_lock -> @live_rwsem -> @ctx_lock ->
 * (context objs xa_lock) -> rnic_bind_lock -> @port.lock -> @async_lock
 * -> rnic_ctx.async_lock -> an event queue's lock; rnic_qp.lock ->
 * @port.lock; @live_rwsem -> @cg_rwsem (-> the RDMA cgroup controller's
 * mutex). The event locks are spinlocks taken with interrupts off, so
 * that events may be raised from any context but hard interrupts; none
 * is global (see "Event locks"). mmap() must not take @live_rwsem
 * (mmap_lock is held there and ioctls fault under it). The first step of
 * a removal takes the data path's locks and waits for the QPs' timers and
 * work under rnic_devs_lock (and rtnl_lock), never for @live_rwsem.
 */
struct rnic_dev {
	struct device dev;
	struct cdev cdev;
	u32 index;
	possible_net_t net;
	__be64 node_guid;
	struct rnic_port port;

	struct percpu_rw_semaphore live_rwsem;
	bool live;
	atomic_t ncontexts;

	struct mutex ctx_lock; /* see above */
	struct list_head contexts;
	u32 next_ctx_id;
	atomic_t nobjs[RNIC_OBJ_MAX];
	atomic64_t pinned;
	spinlock_t async_lock; /* see above */
	struct list_head async_queues;
	struct xarray mrs;

	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	char netdev_name[IFNAMSIZ];
	struct list_head bind_node;

	struct workqueue_struct *wq;
	struct rnic_poller *poller;

	struct rw_semaphore cg_rwsem; /* see above */
	bool cg_registered;
#if IS_ENABLED(CONFIG_CGROUP_RDMA)
	struct rdmacg_device cg_dev;
#endif
	atomic64_t counters[__RNIC_NL_COUNTER_MAX];
	struct work_struct remove_work;
};

/**
 * struct rnic_uobj - header of every object a context owns
 * @users: 1 for the context's handle table while the object is findable,
 *	plus 1 per lookup in progress and 1 per object that depends on it;
 *	destroy succeeds only when the table's is the last one
 * @type: kind of object
 * @handle: index in the context's handle table
 * @ctx: the owning context
 * @destroy: frees what the object holds, or NULL; the framework frees the
 *	struct
 * @rcu: the struct is freed after a grace period, so that the data path
 *	may look objects up under RCU (struct rnic_dpref)
 * @cg: the RDMA cgroup charged one hca_object for it (rnic_cg_charge())
 */
struct rnic_uobj {
	refcount_t users;
	enum rnic_obj_type type;
	u32 handle;
	struct rnic_ctx *ctx;
	void (*destroy)(struct rnic_uobj *uobj);
	struct rcu_head rcu;
	struct rdma_cgroup *cg;
};

/**
 * struct rnic_ctx - a verbs context: one open file of a char device
 * @dev: the device, a counted reference
 * @objs: handle table, handle -> struct rnic_uobj; an object is findable
 *	when its entry is non-NULL (creation reserves the handle with a NULL
 *	entry first); lookups and destroy decide under its xa_lock
 * @id: context id for resource reports, unique on the device while open
 * @pid: thread group that opened the file, a counted reference; reported
 *	as its number in the reader's pid namespace, and only there
 * @comm: its name at open time
 * @mmaps: regions the context may map, key (mmap offset in pages) ->
 *	struct rnic_mmap
 * @nobjs: objects of each kind the context owns
 * @pinned: bytes its memory regions pin
 * @dev_node: entry in the device's list of contexts; rnic_dev.ctx_lock
 * @async_lock: protects @async_evq; taken before the queue's own lock
 *	(event.c), which also protects the event state (struct rnic_evobj)
 *	of the context's objects
 * @async_evq: its asynchronous event queue (open, or closed with its
 *	descriptor), or NULL; written under rnic_dev.async_lock too
 * @cg: the RDMA cgroup charged one hca_handle for it (rnic_cg_charge())
 */
struct rnic_ctx {
	struct rnic_dev *dev;
	struct xarray objs;
	u32 id;
	struct pid *pid;
	char comm[TASK_COMM_LEN];
	struct xarray mmaps;
	atomic_t nobjs[RNIC_OBJ_MAX];
	atomic64_t pinned;
	struct list_head dev_node;
	spinlock_t async_lock; /* see above */
	struct rnic_evq *async_evq;
	struct rdma_cgroup *cg;
};

/**
 * struct rnic_mmap - kernel memory a context may map (see mmap.c)
 * @ref: 1 for the owning object until rnic_mmap_remove(), 1 per VMA
 * @ctx: the context
 * @key: mmap offset in pages, the index in @ctx->mmaps
 * @vaddr: the memory, vmalloc_user()
 * @size: bytes, a page multiple
 * @mm: the address space whose pinned_vm pays for @size, a mmgrab()
 *	reference
 */
struct rnic_mmap {
	refcount_t ref;
	struct rnic_ctx *ctx;
	u32 key;
	void *vaddr;
	size_t size;
	struct mm_struct *mm;
};

/**
 * struct rnic_ring - a ring shared with userspace (see "rnic rings" in
 *	rnic-abi.h); the kernel side of struct rnic_ring_info
 * @region: the mapped memory, a reference held by the ring
 * @mask: entries - 1
 * @entry_size: bytes per entry
 * @producer: the producer index in @region
 * @consumer: the consumer index in @region
 * @slots: entry 0
 *
 * Whatever userspace can write is read with READ_ONCE()/smp_load_acquire()
 * into a local and validated once.
 */
struct rnic_ring {
	struct rnic_mmap *region;
	u32 mask;
	u32 entry_size;
	u32 *producer;
	u32 *consumer;
	void *slots;
};

/**
 * struct rnic_pd - protection domain
 * @uobj: common header
 */
struct rnic_pd {
	struct rnic_uobj uobj;
};

/**
 * struct rnic_mr - memory region: pinned user pages
 * @uobj: common header
 * @pd: its protection domain, a counted reference (pd->uobj.users)
 * @iova: address of the first byte in work requests
 * @length: bytes
 * @offset: offset of the first byte in @pages[0]
 * @access: enum rnic_access bits
 * @lkey: local key; its low RNIC_MR_INDEX_BITS are the index in the
 *	device's MR table, the rest is random
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

/* completion queues, channels, async events: types */

/*
 * Event locks (event.c, cq.c), all per device, context or queue, none
 * global: rnic_cq.lock -> a channel's queue lock; rnic_port.lock ->
 * rnic_dev.async_lock (the device's list of asynchronous queues) ->
 * rnic_ctx.async_lock (which queue is the context's) -> the queue's lock
 * (its events, and the struct rnic_evobj state of the context's objects).
 * The data path raises an object's event under its context's two locks
 * only. The locks are taken with interrupts off, so events may be raised
 * from any context but hard interrupts of code that holds them.
 */

struct rnic_evq;

/**
 * struct rnic_event - one event queued on a completion channel or an
 *	asynchronous event queue
 * @node: entry in the queue's list; empty while not queued
 * @obj_node: asynchronous event about an object: entry in the object's
 *	rnic_evobj.events
 * @counter: incremented (under the queue's lock) when userspace reads the
 *	event; NULL if nobody counts
 * @seq: the queue's sequence number for it, given when it is queued
 * @dynamic: allocated when queued and freed when read or dropped; false
 *	for events embedded in their owner (a CQ's completion event, a
 *	queue's IBV_EVENT_DEVICE_FATAL)
 * @desc: what read() returns
 */
struct rnic_event {
	struct list_head node;
	struct list_head obj_node;
	u32 *counter;
	u64 seq;
	bool dynamic;
	struct rnic_event_desc desc;
};

/**
 * struct rnic_event_counts - events userspace read about an object
 * @comp: completion events (CQs)
 * @async: asynchronous events
 */
struct rnic_event_counts {
	u32 comp;
	u32 async;
};

/**
 * struct rnic_evobj - what an object with asynchronous events (CQ, QP,
 *	SRQ) embeds; rnic_evobj_init() at creation, rnic_evobj_fini() in its
 *	destroy callback
 * @user_handle: from the create ioctl, the element of the object's events
 * @events: its asynchronous events not read yet; the lock of its context's
 *	asynchronous queue (found under rnic_ctx.async_lock)
 * @async_reported: its asynchronous events userspace read; the same lock
 * @counts: set by rnic_evobj_destroy() while it destroys the object, so
 *	that the destroy callback can report into it; NULL otherwise
 */
struct rnic_evobj {
	u64 user_handle;
	struct list_head events;
	u32 async_reported;
	struct rnic_event_counts *counts;
};

/**
 * struct rnic_channel - a completion channel
 * @uobj: common header; a CQ using the channel holds a reference, so
 *	destroying a used channel is EBUSY
 * @evq: its event queue, a counted reference; the channel's file holds
 *	another, so the queue outlives whichever of the two goes first
 */
struct rnic_channel {
	struct rnic_uobj uobj;
	struct rnic_evq *evq;
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

/* QP numbers: 24 bits; 0 and 1 name the special QPs of IB, never used. */
#define RNIC_QPN_MASK		0xffffff
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
 * struct rnic_srq - shared receive queue
 * @uobj: common header; every QP attached to the SRQ holds a reference
 *	for its whole life, so destroying a used SRQ is EBUSY
 * @pd: its protection domain, a counted reference (pd->uobj.users)
 * @ev: asynchronous event state (IBV_EVENT_SRQ_LIMIT_REACHED,
 *	IBV_EVENT_SRQ_ERR); its user_handle is the events' element
 * @ring: the receive ring; userspace produces entries (struct
 *	rnic_recv_wqe + @max_sge struct rnic_sge), the data path consumes
 *	them; never trusted (see "rnic rings")
 * @max_wr: entries in @ring, a power of two; fixed (no resize)
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
 */
struct rnic_srq {
	struct rnic_uobj uobj;
	struct rnic_pd *pd;
	struct rnic_evobj ev;
	struct rnic_ring ring;
	u32 max_wr;
	u32 max_sge;
	spinlock_t lock; /* see above */
	u32 consumer;
	u32 producer_seen;
	u32 limit;
};

/**
 * struct rnic_av - a validated address: where packets to a peer go
 * @dgid: destination GID, network byte order
 * @sgid: source GID, copied from the GID table entry @sgid_index when
 *	the address was validated; kept if the entry changes later
 * @flow_label: IPv6 flow label, 20 bits
 * @sgid_index: GID table index @sgid came from
 * @hop_limit: IPv6 hop limit, or the IPv4 TTL when @ipv4
 * @traffic_class: IPv6 traffic class, or the IPv4 TOS when @ipv4
 * @sl: service level, below 16
 * @static_rate: an enum ibv_rate value
 * @ipv4: @sgid is IPv4-mapped (::ffff:a.b.c.d): RoCEv2 over IPv4
 *
 * Built by rnic_av_from_attr() and never changed afterwards, so readers
 * need no lock.
 */
struct rnic_av {
	u8 dgid[16];
	u8 sgid[16];
	u32 flow_label;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u8 sl;
	u8 static_rate;
	bool ipv4;
};

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

/* MR keys: index in the low bits, random above: 2^15 guesses per index. */
#define RNIC_MR_INDEX_BITS	17
static_assert(BIT(RNIC_MR_INDEX_BITS) >= RNIC_MAX_MR);

/**
 * struct rnic_dev_info - a consistent snapshot of a device for reporting
 * @name: device name
 * @index: device index
 * @uverbs_num: N of /dev/infiniband/uverbsN
 * @node_guid: node GUID
 * @state: port state
 * @active_mtu: active MTU in bytes
 * @netdev_mtu: MTU of the bound netdev, 0 when unbound
 * @netdev_ifindex: ifindex of the bound netdev, 0 when unbound
 * @netdev_name: name of the bound netdev, empty when unbound
 * @contexts: open contexts
 * @gids: copy of the GID table
 */
struct rnic_dev_info {
	char name[RNIC_DEV_NAME_MAX];
	u32 index;
	u32 uverbs_num;
	__be64 node_guid;
	u8 state;
	u32 active_mtu;
	u32 netdev_mtu;
	int netdev_ifindex;
	char netdev_name[IFNAMSIZ];
	u32 contexts;
	struct rnic_gid gids[RNIC_GID_TABLE_LEN];
};

static inline struct rnic_dev *to_rnic_dev(struct device *dev)
{
	return container_of(dev, struct rnic_dev, dev);
}

static inline const char *rnic_dev_name(const struct rnic_dev *rdev)
{
	return dev_name(&rdev->dev);
}

/* The device's network namespace (see struct rnic_dev.net). */
static inline struct net *rnic_dev_net(const struct rnic_dev *rdev)
{
	return read_pnet(&rdev->net);
}

#define rnic_dbg_dev(rdev, fmt, ...) \
	dev_dbg(&(rdev)->dev, fmt, ##__VA_ARGS__)
#define rnic_dbg_qp(qp, fmt, ...) ({				\
	const struct rnic_qp *__qp = (qp);				\
	rnic_dbg_dev(__qp->rdev, "qp %u: " fmt, __qp->qpn, ##__VA_ARGS__); \
})

/* The physical state that goes with a logical port state. */
static inline u8 rnic_port_phys_state(u8 state)
{
	return state == RNIC_PORT_ACTIVE ? RNIC_PHYS_LINK_UP :
					   RNIC_PHYS_DISABLED;
}

/* Count an event of the data path on the device. */
static inline void rnic_dev_count(struct rnic_dev *rdev,
				  enum rnic_nl_counter counter)
{
	atomic64_inc(&rdev->counters[counter]);
}

/* main.c: device registry */
extern struct mutex rnic_devs_lock;
void rnic_obj_account(enum rnic_obj_type type, int delta);
int rnic_dev_add(const char *name, struct net *net, const char *ifname,
		 struct netlink_ext_ack *extack);
int rnic_dev_del(struct net *net, const char *name,
		 struct netlink_ext_ack *extack);
void rnic_dev_del_bound(struct net_device *netdev);
void rnic_dev_remove_queued(struct rnic_dev *rdev);
struct rnic_dev *rnic_dev_find(struct net *net, const char *name);
struct rnic_dev *rnic_dev_next(struct net *net, unsigned long *index);
void rnic_dev_info(struct rnic_dev *rdev, struct rnic_dev_info *info);
u32 rnic_active_mtu(u32 netdev_mtu);

/* netdev.c: binding to a netdev, GID table */
extern spinlock_t rnic_bind_lock;
void rnic_port_init(struct rnic_dev *rdev);
void rnic_port_remove(struct rnic_dev *rdev);
int rnic_netdev_bind(struct rnic_dev *rdev, struct net_device *netdev,
		     struct netlink_ext_ack *extack);
void rnic_netdev_unbind(struct rnic_dev *rdev);
int rnic_netdev_init(void);
void rnic_netdev_exit(void);

/* uverbs.c: char device, contexts, ioctls */
extern const struct file_operations rnic_uverbs_fops;

/**
 * struct rnic_ucmd - one ioctl call in progress
 * @ctx: the calling context
 * @ubuffer: the user's struct
 * @user_size: size the user gave in the struct's first field
 * @cmd: kernel copy of the struct, zero-extended to the kernel's size
 */
struct rnic_ucmd {
	struct rnic_ctx *ctx;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
};

int rnic_ucmd_respond(struct rnic_ucmd *ucmd, size_t size);

/* uobj.c: objects owned by contexts */
void *rnic_uobj_alloc(struct rnic_ctx *ctx, enum rnic_obj_type type,
		      size_t size, void (*destroy)(struct rnic_uobj *uobj));
void rnic_uobj_finalize(struct rnic_uobj *uobj);
void rnic_uobj_abort(struct rnic_uobj *uobj);
struct rnic_uobj *rnic_uobj_get(struct rnic_ctx *ctx, u32 handle,
				enum rnic_obj_type type);
int rnic_uobj_destroy(struct rnic_ctx *ctx, u32 handle,
		      enum rnic_obj_type type);
void rnic_uobj_destroy_all(struct rnic_ctx *ctx);
void rnic_cg_register(struct rnic_dev *rdev);
void rnic_cg_unregister(struct rnic_dev *rdev);
int rnic_cg_charge(struct rnic_dev *rdev, struct rdma_cgroup **cg,
		   enum rdmacg_resource_type type);
void rnic_cg_uncharge(struct rnic_dev *rdev, struct rdma_cgroup *cg,
		      enum rdmacg_resource_type type);

/**
 * rnic_uobj_put() - drop a reference from rnic_uobj_get()
 * @uobj: the object; the handle table still holds its own reference
 */
static inline void rnic_uobj_put(struct rnic_uobj *uobj)
{
	/* Never the last: only destroy drops the table's reference. */
	WARN_ON(refcount_dec_and_test(&uobj->users));
}

/* mmap.c: memory shared with userspace */
struct mm_struct *rnic_charge_pinned(unsigned long npages);
void rnic_uncharge_pinned(struct mm_struct *mm, unsigned long npages);
struct rnic_mmap *rnic_mmap_alloc(struct rnic_ctx *ctx, size_t size);
u64 rnic_mmap_offset(const struct rnic_mmap *m);
void rnic_mmap_remove(struct rnic_mmap *m);
int rnic_mmap(struct rnic_ctx *ctx, struct vm_area_struct *vma);
int rnic_ring_alloc(struct rnic_ctx *ctx, struct rnic_ring *ring,
		    u32 entries, u32 entry_size, struct rnic_ring_info *info);
void rnic_ring_free(struct rnic_ring *ring);

/**
 * rnic_ring_slot() - address of entry @index (free-running) of a ring
 * @ring: the ring
 * @index: any index; masked here
 */
static inline void *rnic_ring_slot(const struct rnic_ring *ring, u32 index)
{
	return ring->slots + (size_t)(index & ring->mask) * ring->entry_size;
}

/* pd.c, mr.c: the ioctls */
int rnic_alloc_pd(struct rnic_ucmd *ucmd);
int rnic_dealloc_pd(struct rnic_ucmd *ucmd);
int rnic_reg_mr(struct rnic_ucmd *ucmd);
int rnic_dereg_mr(struct rnic_ucmd *ucmd);

/* data path: types (dp.c, req.c, resp.c) */

struct rnic_kwqe;
struct rnic_poller;
struct rnic_qp_scratch;

/**
 * struct rnic_resp_atomic - an atomic the responder executed, kept so
 *	that a duplicate of it gets the same answer
 * @psn: its PSN; U32_MAX (no 24-bit PSN) for an unused entry
 * @orig: the original value it answered with
 */
struct rnic_resp_atomic {
	u32 psn;
	u64 orig;
};

/**
 * struct rnic_req - requester and completer of a QP: sends the work
 *	requests of its SQ and completes them when the responses arrive
 * @lock: protects everything below; always with BH off (_bh, or plain
 *	inside the requester's BH-off section). Never held while a packet
 *	is handed to the link, so responses may arrive at once. The runner
 *	also reads @fetched, @next and @timed_out without it, as a hint
 *	(rnic_req_idle() in req.c says why that is safe)
 * @running: bit 0: a thread runs the requester (rnic_req_run()), the
 *	only one that may transmit; bit 1: run again, new work arrived
 * @runner: the task that holds bit 0 of @running while it steps, else
 *	NULL; written only by that task
 * @wqes: kernel copies of the send WQEs, @stride bytes each, one per SQ
 *	slot: copied once when fetched, then trusted
 * @stride: bytes per entry of @wqes
 * @fetched: SQ entries copied so far (free-running, like the ring)
 * @next: the WQE being sent, between @done and @fetched
 * @done: the oldest WQE not completed; written to the ring's consumer
 * @offset: bytes of @next already sent
 * @psn: PSN of the next packet
 * @ack_psn: the last PSN the peer acknowledged
 * @ackreq_psn: the last PSN an answer was asked for (AckReq, READ, atomic)
 * @ask_next: the next packet asks for an ACK whatever it is (ACKs are
 *	coalesced: whatever waits for one asks first, rnic_req_ask())
 * @rd_atomic: RDMA READ and atomic requests waiting for their response
 * @retry_left: transport retries left for the oldest unacknowledged
 *	packet
 * @rnr_left: RNR retries left likewise
 * @rnr_wait: waiting for @rnr_timer: nothing is sent, @timer is stopped
 * @timer: transport (retransmission) timer; holds a @dp reference while
 *	pending. Not armed during an RNR wait
 * @rnr_timer: the RNR wait, as long as the responder's RNR NAK asked for
 *	(microseconds, softirq); holds a @dp reference while queued. Armed
 *	and cancelled under @lock; a callback that finds it queued again
 *	leaves @rnr_wait to the new wait
 * @work: runs the requester on the device's workqueue; holds a @dp
 *	reference while pending
 * @drained_sent: IBV_EVENT_SQ_DRAINED was raised for this stay in SQD
 * @timed_out: @timer fired for a transport timeout, the work handles it
 * @dead: the QP is being destroyed: nothing is scheduled any more
 * @gen: incremented when the QP is reset, so that a run that dropped the
 *	lock notices
 * @progress: when the peer last acknowledged something, or when the
 *	requester started to wait for an answer (jiffies)
 * @mtu: bytes per packet
 * @dqpn: destination QP (RC, UC)
 * @av: path to the destination (RC, UC)
 * @timeout: transport timeout in jiffies, 0 for none
 * @retry_cnt: transport retries, as set
 * @rnr_retry: RNR retries, as set (7: infinite)
 * @max_rd_atomic: READ/atomic requests in flight at most, at least 1
 *
 * @mtu .. @max_rd_atomic are copied from the attributes by
 * rnic_qp_dp_apply(), so that the data path never reads them under
 * rnic_qp.lock.
 */
struct rnic_req {
	spinlock_t lock; /* see above */
	unsigned long running;
	struct task_struct *runner;
	struct rnic_kwqe *wqes;
	u32 stride;
	u32 fetched;
	u32 next;
	u32 done;
	u32 offset;
	u32 psn;
	u32 ack_psn;
	u32 ackreq_psn;
	u32 rd_atomic;
	u8 retry_left;
	u8 rnr_left;
	bool rnr_wait;
	bool drained_sent;
	bool timed_out;
	bool ask_next;
	bool dead;
	u32 gen;
	unsigned long progress;
	struct timer_list timer;
	struct hrtimer rnr_timer;
	struct work_struct work;

	u32 mtu;
	u32 dqpn;
	struct rnic_av av;
	unsigned long timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u32 max_rd_atomic;
};

/**
 * struct rnic_resp - responder of a QP: executes incoming requests
 * @lock: protects everything below; always with BH off (plain in the
 *	receive path, where BH is off already), held while the request is
 *	executed and its response handed to the link
 * @epsn: PSN expected next
 * @msn: messages completed (in ACKs)
 * @in_msg: a multi-packet SEND or WRITE is in progress
 * @in_send: ... and it is a SEND
 * @drop_msg: UC: the message in progress lost a packet; drop the rest
 * @has_rwqe: @rwqe holds a receive WQE taken from the ring
 * @rwqe: the receive WQE taken for the message in progress (kernel copy)
 * @rwqe_sges: its scatter list
 * @recv_off: bytes of the SEND in progress placed so far
 * @write_va: next address of the RDMA WRITE in progress
 * @write_rkey: its rkey
 * @write_left: bytes of it still to come
 * @write_len: its length
 * @comm_est: IBV_EVENT_COMM_EST was raised
 * @atomics: RC: the last RNIC_MAX_RD_ATOM atomics executed (at least
 *	max_dest_rd_atomic, what a requester may have outstanding), for
 *	replay; a ring of RNIC_MAX_RD_ATOM entries allocated with the QP
 *	(rnic_qp_dp_init()), so that no modify allocates under the locks.
 *	NULL for UC and UD
 * @atomic_next: atomics executed (free-running): the next entry of
 *	@atomics to reuse, modulo RNIC_MAX_RD_ATOM
 * @nak_sent: a PSN sequence error NAK was sent and not yet resolved
 * @rq_cons: the RQ's consumer index, the kernel's copy
 * @rq_prod: the RQ's producer index as last read; read again only when
 *	@rq_cons caught up with it (the line is the poster's)
 * @last_wqe_sent: IBV_EVENT_QP_LAST_WQE_REACHED was raised (SRQ QPs)
 * @reply_to: while rnic_resp_rcv() handles a request, its sender if that
 *	stays in the call (struct rnic_pkt.src), else NULL
 * @access: the QP's access flags, enum rnic_access
 * @max_dest_rd_atomic: READ/atomic requests accepted in flight
 * @min_rnr_timer: RNR NAK timer code
 * @qkey: Q_Key (UD)
 * @mtu: bytes per packet (READ responses)
 * @dqpn: where responses go (RC)
 * @av: path for responses (RC)
 *
 * @access .. @av are copied from the attributes by rnic_qp_dp_apply().
 */
struct rnic_resp {
	spinlock_t lock; /* see above */
	u32 epsn;
	u32 msn;
	bool in_msg;
	bool in_send;
	bool drop_msg;
	bool has_rwqe;
	struct rnic_recv_wqe rwqe;
	struct rnic_sge rwqe_sges[RNIC_MAX_SGE];
	u32 recv_off;
	u64 write_va;
	u32 write_rkey;
	u32 write_left;
	u32 write_len;
	bool comm_est;
	struct rnic_resp_atomic *atomics;
	u32 atomic_next;
	bool nak_sent;
	u32 rq_cons;
	u32 rq_prod;
	bool last_wqe_sent;
	struct rnic_qp *reply_to;

	u32 access;
	u32 max_dest_rd_atomic;
	u8 min_rnr_timer;
	u32 qkey;
	u32 mtu;
	u32 dqpn;
	struct rnic_av av;
};

/* completion queues, channels, async events: functions */
int rnic_create_async_fd(struct rnic_ucmd *ucmd);
int rnic_create_comp_channel(struct rnic_ucmd *ucmd);
int rnic_destroy_comp_channel(struct rnic_ucmd *ucmd);
void rnic_async_ctx_close(struct rnic_ctx *ctx);
void rnic_channel_event(struct rnic_channel *channel, struct rnic_event *ev);
u32 rnic_channel_drop(struct rnic_channel *channel, struct rnic_event *ev);
void rnic_evobj_init(struct rnic_evobj *obj, u64 user_handle);
void rnic_evobj_fini(struct rnic_ctx *ctx, struct rnic_evobj *obj);
int rnic_evobj_destroy(struct rnic_ctx *ctx, u32 handle,
		       enum rnic_obj_type type,
		       struct rnic_evobj *(*to_evobj)(struct rnic_uobj *uobj),
		       struct rnic_event_counts *counts);
void rnic_async_event(struct rnic_ctx *ctx, u32 event_type,
		      struct rnic_evobj *obj, u32 port_num);
void rnic_dev_async_event(struct rnic_dev *rdev, u32 event_type);
int rnic_create_cq(struct rnic_ucmd *ucmd);
int rnic_resize_cq(struct rnic_ucmd *ucmd);
int rnic_destroy_cq(struct rnic_ucmd *ucmd);

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
 * struct rnic_qp - queue pair
 * @uobj: common header
 * @pd: its protection domain, a counted reference (pd->uobj.users)
 * @send_cq: the send CQ, a counted reference (cq->uobj.users)
 * @recv_cq: the receive CQ, a counted reference of its own (a CQ that is
 *	both holds two)
 * @srq: the SRQ the QP receives from, a counted reference; or NULL
 * @ev: asynchronous event state (IBV_EVENT_SQ_DRAINED, and the data
 *	path's QP events)
 * @qpn: QP number, the index of the QP in the module's QP table (qp.c:
 *	an xarray over all devices, so that numbers are not reused soon)
 * @type: enum rnic_qp_type
 * @sq_sig_all: every send work request completes with a CQE
 * @cap: queue sizes granted at creation, fixed
 * @sq: the send ring; .region is NULL if @cap.max_send_wr is 0
 * @rq: the receive ring; .region is NULL with an SRQ or if
 *	@cap.max_recv_wr is 0
 * @lock: protects @attr and @av; taken with _bh, the data path may run in
 *	softirq context
 * @attr: the attributes as RNIC_IOCTL_MODIFY_QP last set them;
 *	@attr.qp_state is the QP's state
 * @av: @attr.ah_attr validated, its source GID resolved when it was set;
 *	meaningful once RNIC_QP_AV was set (RTR and later, RC and UC)
 * @mcast: the groups the QP is attached to (struct
 *	rnic_mcast_attach.qp_node), UD only; rnic_mcast_lock
 * @rdev: its device
 * @dp: lifetime reference of the data path: taken by whoever found the QP
 *	by number (a peer's packet, a multicast group), by its timers and
 *	work while they are pending; destroy waits for it (dp.c, req.c, resp.c)
 * @sq_flags: the SQ's flags word (enum rnic_wq_flags) in @sq's region,
 *	or NULL without an SQ
 * @rq_flags: the RQ's flags word in @rq's region, or NULL without an RQ
 * @polled: created with RNIC_CREATE_QP_SQ_POLL; fixed
 * @poll_node: entry in the device's polling list (poll.c)
 * @poll_prod: the SQ producer index the polling thread last kicked for
 * @poll_gen: rnic_req.gen when it did; both under the poller's lock
 * @req: requester and completer state (dp.c, req.c, resp.c)
 * @resp: responder state (dp.c, req.c, resp.c)
 * @scratch: large per-packet structs of the requester, the responder and
 *	the completer, each under its own rule (engine.h)
 * @dp_mm: the address space whose pinned_vm pays for @scratch and
 *	@req.wqes, as it pays for the rings (RLIMIT_MEMLOCK), a mmgrab()
 *	reference; NULL until rnic_qp_dp_init() charged it
 * @dp_pages: pages charged to @dp_mm
 *
 * Defined here rather than with the family's types: it embeds struct
 * rnic_av, which comes after them.
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
	struct rnic_qp_cap cap;
	struct rnic_ring sq;
	struct rnic_ring rq;
	spinlock_t lock; /* see above */
	struct rnic_qp_attr attr;
	struct rnic_av av;
	struct list_head mcast;

	struct rnic_dev *rdev;
	struct rnic_dpref dp;
	u32 *sq_flags;
	u32 *rq_flags;
	bool polled;
	struct list_head poll_node;
	u32 poll_prod;
	u32 poll_gen;
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

/* Data path references: inline, as the engine takes several per message. */
static inline bool rnic_dpref_get(struct rnic_dpref *ref)
{
	return refcount_inc_not_zero(&ref->ref);
}

static inline void rnic_dpref_put(struct rnic_dpref *ref)
{
	if (refcount_dec_and_test(&ref->ref))
		complete(&ref->done);
}

/**
 * rnic_qp_put() - drop a data path reference on a QP
 * @qp: the QP
 */
static inline void rnic_qp_put(struct rnic_qp *qp)
{
	rnic_dpref_put(&qp->dp);
}

static inline void rnic_mr_put(struct rnic_mr *mr)
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
int rnic_destroy_qp(struct rnic_ucmd *ucmd);
int rnic_attach_mcast(struct rnic_ucmd *ucmd);
int rnic_detach_mcast(struct rnic_ucmd *ucmd);
bool rnic_gid_is_mcast(const u8 *gid);
bool rnic_mcast_attached(struct rnic_qp *qp);
void rnic_mcast_detach_all(struct rnic_qp *qp);
void rnic_qp_halt_dev(struct rnic_dev *rdev);

/* data path: functions (dp.c, req.c, resp.c, poll.c) */
int rnic_dev_dp_init(struct rnic_dev *rdev);
void rnic_dev_dp_fini(struct rnic_dev *rdev);
int rnic_qp_dp_init(struct rnic_qp *qp);
void rnic_qp_dp_stop(struct rnic_qp *qp);
void rnic_qp_dp_halt(struct rnic_qp *qp);
void rnic_qp_dp_fini(struct rnic_qp *qp);
void rnic_qp_dp_apply(struct rnic_qp *qp, u32 cur, u32 next, u32 mask);
void rnic_qp_dp_modified(struct rnic_qp *qp, u32 cur, u32 next);
void rnic_req_kick(struct rnic_qp *qp);
bool rnic_resp_flush(struct rnic_qp *qp);
int rnic_kick_sq(struct rnic_ucmd *ucmd);
int rnic_ring_sq(struct rnic_ctx *ctx, unsigned long handle);

/**
 * rnic_poll_add() - let the device's polling thread watch a QP's SQ
 *	producer index (RNIC_CREATE_QP_SQ_POLL); starts the thread if needed
 * @qp: the QP, with an SQ, not findable yet
 *
 * Return: 0, -ENOMEM, or -EINTR if the caller was killed while the
 * thread was being created.
 */
int rnic_poll_add(struct rnic_qp *qp);
/**
 * rnic_poll_del() - stop watching a QP; when it returns, the thread no
 *	longer touches @qp
 * @qp: a QP rnic_poll_add() accepted
 */
void rnic_poll_del(struct rnic_qp *qp);
/**
 * rnic_poll_wake() - wake the polling thread for a kick on a polled QP
 * @qp: a polled QP
 */
void rnic_poll_wake(struct rnic_qp *qp);
/**
 * rnic_poll_dev_stop() - stop the polling thread of a device being
 *	removed, if it has one; its QPs stay listed
 * @rdev: the device
 */
void rnic_poll_dev_stop(struct rnic_dev *rdev);
/**
 * rnic_poll_dev_fini() - stop the device's polling thread, if any; no QP
 *	is watched any more
 * @rdev: the device being freed
 */
void rnic_poll_dev_fini(struct rnic_dev *rdev);

/* shared receive queues, address handles: functions */
int rnic_create_srq(struct rnic_ucmd *ucmd);
int rnic_modify_srq(struct rnic_ucmd *ucmd);
int rnic_query_srq(struct rnic_ucmd *ucmd);
int rnic_destroy_srq(struct rnic_ucmd *ucmd);
int rnic_av_from_attr(struct rnic_dev *rdev, const struct rnic_ah_attr *attr,
		      struct rnic_av *av);
int rnic_create_ah(struct rnic_ucmd *ucmd);
int rnic_destroy_ah(struct rnic_ucmd *ucmd);

/* netlink.c: generic netlink family */
int rnic_nl_init(void);
void rnic_nl_exit(void);

#endif /* RNIC_H */
