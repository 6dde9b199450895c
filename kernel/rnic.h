/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rnic: software RDMA NIC - what every layer needs: the device and its
 * port, contexts and their objects' common header (handles, references),
 * memory shared with userspace (rings), data path lifetime references,
 * event queues. The layers and the directions they may call in are in
 * Documentation/architecture.rst ("Layers"); each has its own header:
 * verbs/verbs.h, engine/qp_engine.h (what the engine offers the layers
 * above), engine/engine.h (the engine's own), link/link.h.
 */
#ifndef RNIC_H
#define RNIC_H

#include <linux/bits.h>
#include <linux/cdev.h>
#include <linux/cgroup_rdma.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/log2.h>
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
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include <rdma/rnic-abi.h>
#include <rdma/rnic-netlink.h>

#define RNIC_VERSION_MAJOR 0
#define RNIC_VERSION_MINOR 1
#define RNIC_VERSION_PATCH 0
/* The version as RNIC_IOCTL_QUERY_DEVICE and sysfs fw_ver give it */
#define RNIC_FW_VERSION \
	RNIC_FW_VER(RNIC_VERSION_MAJOR, RNIC_VERSION_MINOR, RNIC_VERSION_PATCH)

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
/* windows share the MR key table (verbs.h): MRs and MWs, RNIC_MAX_MR */
#define RNIC_MAX_MW		65536
#define RNIC_MAX_XRCD		4096
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
/*
 * The rate of the port's RNIC_WIDTH_4X and RNIC_SPEED_EDR (4 lanes of
 * 25 Gb/s) as the in-kernel stack's sysfs writes it
 */
#define RNIC_PORT_RATE		"100 Gb/sec (4X EDR)"
#define RNIC_ATOMIC_HCA		1
/* enum ibv_device_cap_flags bits rnic has */
#define RNIC_DEVICE_CURR_QP_STATE_MOD	BIT(7)
#define RNIC_DEVICE_PORT_ACTIVE_EVENT	BIT(10)
#define RNIC_DEVICE_SYS_IMAGE_GUID	BIT(11)
#define RNIC_DEVICE_RC_RNR_NAK_GEN	BIT(12)
#define RNIC_DEVICE_MEM_WINDOW		BIT(17)
#define RNIC_DEVICE_XRC			BIT(20)
#define RNIC_DEVICE_MEM_WINDOW_TYPE_2B	BIT(24)
#define RNIC_PORT_IP_BASED_GIDS		BIT(26)
/* enum ibv_port_cap_flags bits the port has */
#define RNIC_PORT_CAP_FLAGS		RNIC_PORT_IP_BASED_GIDS
/* the P_Key table's one entry: the default P_Key, full member */
#define RNIC_PKEY_DEFAULT		0xffff

/* An IB MTU (enum ibv_mtu, RNIC_MTU_256 .. RNIC_MTU_4096) in bytes */
static inline u32 rnic_mtu_bytes(u32 ib_mtu)
{
	return 128U << ib_mtu;
}

/* The IB MTU of @bytes, a power of two from 256 to 4096 */
static inline u32 rnic_mtu_enum(u32 bytes)
{
	return ilog2(bytes) - 7;
}

/*
 * Completion vectors, as RNIC_IOCTL_QUERY_DEVICE reports them and CQ
 * creation checks them: one per online CPU, at most RNIC_MAX_COMP_VECTORS.
 */
static inline u32 rnic_num_comp_vectors(void)
{
	return min_t(u32, num_online_cpus(), RNIC_MAX_COMP_VECTORS);
}

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
 * @RNIC_OBJ_MW: struct rnic_mw, a memory window
 * @RNIC_OBJ_XRCD: struct rnic_xrcd_handle, a context's handle on an XRC
 *	domain
 * @RNIC_OBJ_TGT_QP: struct rnic_tgt_handle, a context's handle on an XRC
 *	TGT QP (the QP itself is an RNIC_OBJ_QP of its domain's context)
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
	RNIC_OBJ_MW,
	RNIC_OBJ_XRCD,
	RNIC_OBJ_TGT_QP,
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

/* Is @gid (network byte order) in ::ffff:0:0/96, RoCEv2's IPv4 GIDs? */
static inline bool rnic_gid_is_v4mapped(const u8 *gid)
{
	struct in6_addr addr;

	memcpy(&addr, gid, sizeof(addr));
	return ipv6_addr_v4mapped(&addr);
}

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
 * @state: logical port state, RNIC_PORT_DOWN or RNIC_PORT_ACTIVE
 * @netdev_mtu: MTU of the bound netdev, 0 when unbound
 * @gids: GID table; entry 0 is the permanent link-local GID. Each valid
 *	entry is also in the GID map (netdev.c, rnic_gid_dev()), changed
 *	with it under @lock
 */
struct rnic_port {
	spinlock_t lock; /* see above */
	u8 state;
	u32 netdev_mtu;
	struct rnic_gid gids[RNIC_GID_TABLE_LEN];
};

/**
 * struct rnic_fault - a device's fault injection (RNIC_NL_ATTR_FAULT)
 * @pkt: one of the packet faults is on (@drop, @duplicate, @corrupt or
 *	@delay is not 0): the one test rnic_link_xmit() makes for them
 * @drop: parts per million of sent packets dropped (RNIC_NL_FAULT_DROP)
 * @duplicate: sent twice (RNIC_NL_FAULT_DUPLICATE)
 * @corrupt: sent damaged (RNIC_NL_FAULT_CORRUPT)
 * @delay: held back @delay_us by a link that can (RNIC_NL_FAULT_DELAY)
 * @delay_us: RNIC_NL_FAULT_DELAY_US
 * @rnr: RC messages left that the responders answer with an RNR NAK
 *	(RNIC_NL_FAULT_RNR)
 * @rem_access: RC RDMA and atomic requests left that the responders NAK
 *	with a remote access error (RNIC_NL_FAULT_REM_ACCESS)
 * @retry_exc: RC work requests left whose packets the requesters drop
 *	(RNIC_NL_FAULT_RETRY_EXC)
 *
 * Written by RNIC_NL_CMD_LINK_SET under rnic_devs_lock, with WRITE_ONCE;
 * the data path reads it without a lock (READ_ONCE), so a packet racing
 * a change sees each setting either old or new. The counts are taken by
 * the data path with atomic_dec_if_positive() (link/fault.c), so that
 * each is used exactly once. Everything 0: no fault (a new device).
 */
struct rnic_fault {
	bool pkt;
	u32 drop;
	u32 duplicate;
	u32 corrupt;
	u32 delay;
	u32 delay_us;
	atomic_t rnr;
	atomic_t rem_access;
	atomic_t retry_exc;
};

/**
 * struct rnic_held - packets fault injection's delay holds back on the
 *	udp link (link/udp.c)
 * @skbs: the built packets, in the order they were sent, each with the
 *	time it is due in skb->tstamp (CLOCK_MONOTONIC); at most
 *	RNIC_HELD_MAX; its own lock, taken with BH disabled
 * @timer: sends what is due (softirq) and re-arms for the next
 *
 * Initialised when the device is bound (rnic_netdev_bind()); the udp
 * link's xmit adds to it while the device is bound. rnic_netdev_unbind()
 * cancels @timer and frees what is left after the grace period after
 * which no sender can add to it, before the netdev reference goes (a
 * held packet's route holds the netdev).
 */
struct rnic_held {
	struct sk_buff_head skbs;
	struct hrtimer timer;
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
 * @max_burst: bytes of a SEND or WRITE message one request may carry on
 *	the device's links, or 0 for what each link allows
 *	(RNIC_NL_ATTR_MAX_BURST); fixed at creation
 * @fault: fault injection settings (struct rnic_fault)
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
 * @mrs: MR table, index (a field of lkey and rkey, RNIC_MR_INDEX_MASK) ->
 *	struct rnic_mr; an entry is non-NULL while the MR is registered
 * @mr_next: the next index xa_alloc_cyclic() tries in @mrs; @mrs' lock
 * @qps: QP table, QP number -> struct rnic_qp (verbs/qp.c); numbers are
 *	the device's own, the local link looks them up after the GID map
 *	gave the device. An entry is reserved but NULL while its QP is built
 * @qpn_next: where the cyclic allocation of QP numbers goes on; @qps's
 *	xa_lock
 * @srqs: XRC SRQ table, SRQ number -> struct rnic_srq (verbs/srq.c);
 *	like @qps, an entry is reserved but NULL while its SRQ is built
 * @srqn_next: where the cyclic allocation of SRQ numbers goes on; @srqs'
 *	xa_lock
 * @xrcds: the XRC domains opened with a file, by inode (verbs/xrcd.c);
 *	@xrcd_lock
 * @xrcd_lock: protects @xrcds, and serialises the opening of TGT QPs
 *	with the destruction of their last handle
 * @netdev: bound netdev (a held reference) or NULL; written under
 *	rnic_bind_lock, before the device is published and after it is
 *	unpublished, so it is also stable under rnic_devs_lock while
 *	published. The udp link reads it under RCU without a lock
 *	(READ_ONCE): unbinding clears it, then waits for a grace period
 *	before the reference goes
 * @netdev_tracker: reference tracker for @netdev
 * @netdev_name: name of @netdev, kept current on renames; rnic_bind_lock
 * @bind_node: entry in the list of bound devices; rnic_bind_lock
 * @held: packets the delay fault holds back on the udp link
 * @wq: the data path's workers: requesters that yield, timers' work
 * @poller: the polling thread's state (engine/sqpoll.c), or NULL
 * @cg_rwsem: protects @cg_registered: charges and uncharges take it for
 *	reading, rnic_cg_unregister() for writing (uobj.c)
 * @cg_registered: @cg_dev is registered with the RDMA cgroup controller:
 *	from just before the char device appears until removal
 * @cg_dev: the device as the RDMA cgroup controller knows it (rdma.max,
 *	rdma.current), under the device's name
 * @sysfs_ports: the directory ports/ of @dev in sysfs (core/sysfs.c),
 *	made before the device is published and deleted by the first step
 *	of its removal, like the two below; NULL where not made
 * @sysfs_port: ports/1/
 * @sysfs_gid_attrs: ports/1/gid_attrs/
 * @counters: events of the data path, per CPU, each indexed by enum
 *	rnic_nl_counter (entry 0 is unused); rnic_dev_count() increments
 *	the running CPU's, rnic_dev_counter() sums them
 * @remove_work: the second step of a removal under rtnl_lock (main.c);
 *	holds the registry's reference
 * @rcu: the struct and @counters are freed after a grace period
 *	(rnic_dev_free_rcu()): the local link finds a device in the GID map
 *	under RCU, looks its @qps up and counts drops on it
 *
 * Lock order: rtnl_lock -> rnic_devs_lock -> @live_rwsem -> @ctx_lock ->
 * (context objs xa_lock) -> rnic_bind_lock -> @port.lock -> (the GID
 * map's lock) -> @async_lock
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
	u32 max_burst;
	struct rnic_fault fault;
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
	struct xarray qps;
	u32 qpn_next;
	struct xarray srqs;
	u32 srqn_next;
	struct list_head xrcds;
	struct mutex xrcd_lock; /* see above */
	u32 mr_next;

	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	char netdev_name[IFNAMSIZ];
	struct list_head bind_node;
	struct rnic_held held;

	struct workqueue_struct *wq;
	struct rnic_poller *poller;

	struct rw_semaphore cg_rwsem; /* see above */
	bool cg_registered;
#if IS_ENABLED(CONFIG_CGROUP_RDMA)
	struct rdmacg_device cg_dev;
#endif
	struct kobject *sysfs_ports;
	struct kobject *sysfs_port;
	struct kobject *sysfs_gid_attrs;
	struct rnic_dev_counters __percpu *counters;
	struct work_struct remove_work;
	struct rcu_head rcu;
};

/**
 * struct rnic_dev_counters - one CPU's share of a device's counters
 * @c: indexed by enum rnic_nl_counter
 *
 * Per CPU, so that the data path of QPs running on several CPUs does not
 * bounce one cache line per packet between them.
 */
struct rnic_dev_counters {
	u64 c[__RNIC_NL_COUNTER_MAX];
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

/* Entries of a ring: 0 for one never allocated (.region NULL). */
static inline u32 rnic_ring_entries(const struct rnic_ring *ring)
{
	return ring->region ? ring->mask + 1 : 0;
}

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
 * struct rnic_evobj_type - a kind of object with events (CQ, QP, SRQ), as
 *	its destroy ioctl finds it
 * @type: RNIC_OBJ_CQ, RNIC_OBJ_QP or RNIC_OBJ_SRQ
 * @to_evobj: the struct rnic_evobj of an object of @type
 * @busy: optional; true makes the destroy EBUSY for a reason the
 *	object's references do not show (a QP attached to a multicast group)
 */
struct rnic_evobj_type {
	enum rnic_obj_type type;
	struct rnic_evobj *(*to_evobj)(struct rnic_uobj *uobj);
	bool (*busy)(struct rnic_uobj *uobj);
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
 * @max_burst: rnic_dev.max_burst
 * @fault: rnic_dev.fault, indexed by enum rnic_nl_fault (what is left of
 *	the counts)
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
	u32 max_burst;
	u32 fault[RNIC_NL_FAULT_MAX + 1];
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

/* Count an event of the data path on the device; any context. */
static inline void rnic_dev_count(struct rnic_dev *rdev,
				  enum rnic_nl_counter counter)
{
	this_cpu_inc(rdev->counters->c[counter]);
}

/*
 * The device's count of an event: the CPUs' shares summed, each read once,
 * without stopping the writers (on a 32-bit kernel a share being
 * incremented can be read torn).
 */
static inline u64 rnic_dev_counter(struct rnic_dev *rdev,
				   enum rnic_nl_counter counter)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(rdev->counters, cpu)->c[counter]);
	return sum;
}

/* main.c: device registry */
extern struct mutex rnic_devs_lock;
void rnic_obj_account(enum rnic_obj_type type, int delta);
int rnic_dev_add(const char *name, struct net *net, const char *ifname,
		 u32 max_burst, struct netlink_ext_ack *extack);
int rnic_dev_del(struct net *net, const char *name,
		 struct netlink_ext_ack *extack);
void rnic_dev_del_bound(struct net_device *netdev);
void rnic_dev_remove_queued(struct rnic_dev *rdev);
struct rnic_dev *rnic_dev_find(struct net *net, const char *name);
struct rnic_dev *rnic_dev_next(struct net *net, unsigned long *index);
void rnic_dev_info(struct rnic_dev *rdev, struct rnic_dev_info *info);
void rnic_dev_set_fault(struct rnic_dev *rdev, const u32 *fault, u32 mask);
u32 rnic_active_mtu(u32 netdev_mtu);

/* sysfs.c: the device's directory in /sys/class/rnic */
extern const struct attribute_group *rnic_dev_groups[];
void rnic_sysfs_init(void);
int rnic_sysfs_add(struct rnic_dev *rdev);
void rnic_sysfs_del(struct rnic_dev *rdev);

/* netdev.c: binding to a netdev, GID table */
extern spinlock_t rnic_bind_lock;
int rnic_port_init(struct rnic_dev *rdev);
struct rnic_dev *rnic_gid_dev(const struct net *net, const u8 *gid);
void rnic_port_remove(struct rnic_dev *rdev);
int rnic_netdev_bind(struct rnic_dev *rdev, struct net_device *netdev,
		     struct netlink_ext_ack *extack);
void rnic_netdev_unbind(struct rnic_dev *rdev);
int rnic_netdev_init(void);
void rnic_netdev_exit(void);

/* cm/: the connection manager (cm/cm.h) */
struct rnic_pkt;
int rnic_cm_init(void);
void rnic_cm_exit(void);
void rnic_cm_dev_remove(struct rnic_dev *rdev);
void rnic_cm_addr_change(struct rnic_dev *rdev);
void rnic_cm_gsi_rcv(struct rnic_dev *rdev, const struct rnic_pkt *pkt);
struct netlink_callback;
int rnic_cm_nl_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/*
 * link/udp.c: the udp link's receive path, the rx_handler netdev.c gives
 * a bound netdev, and the timer of its held packets (struct rnic_held),
 * which netdev.c sets up (a named exception to the layers' directions)
 */
rx_handler_result_t rnic_udp_rcv(struct sk_buff **pskb);
enum hrtimer_restart rnic_udp_held_timer(struct hrtimer *timer);

/* uverbs.c: char device, contexts, ioctls */
extern const struct file_operations rnic_uverbs_fops;
void rnic_ctx_init(struct rnic_ctx *ctx, struct rnic_dev *rdev);
void rnic_ctx_fini(struct rnic_ctx *ctx);

/**
 * struct rnic_ucmd - one ioctl call in progress
 * @ctx: the calling context
 * @op: its entry in the ioctl table (core/uverbs.c)
 * @ubuffer: the user's struct
 * @user_size: size the user gave in the struct's first field
 * @cmd: kernel copy of the struct, zero-extended to the kernel's size
 */
struct rnic_ioctl_op;

struct rnic_ucmd {
	struct rnic_ctx *ctx;
	const struct rnic_ioctl_op *op;
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
		       const struct rnic_evobj_type *et,
		       struct rnic_event_counts *counts);
void rnic_async_event(struct rnic_ctx *ctx, u32 event_type,
		      struct rnic_evobj *obj, u32 port_num);
void rnic_dev_async_event(struct rnic_dev *rdev, u32 event_type);
/* dpref.c: data path lifetime references; get and put are inline, as the
 * engine takes several per message.
 */
void rnic_dpref_init(struct rnic_dpref *ref);
void rnic_dpref_kill(struct rnic_dpref *ref);

static inline bool rnic_dpref_get(struct rnic_dpref *ref)
{
	return refcount_inc_not_zero(&ref->ref);
}

static inline void rnic_dpref_put(struct rnic_dpref *ref)
{
	if (refcount_dec_and_test(&ref->ref))
		complete(&ref->done);
}

/* netlink.c: generic netlink family */
int rnic_nl_init(void);
void rnic_nl_exit(void);
void *rnic_nl_dump_msg(struct sk_buff *skb, struct netlink_callback *cb);

/*
 * verbs/: an object's RNIC_NL_ATTR_RES_* attributes for the resource
 * listings of netlink.c (RNIC_NL_CMD_RES_QP_GET, _MR_GET; an MR's keys
 * only with @keys, for a reader with CAP_NET_ADMIN). Called under
 * rcu_read_lock() with an object found in its context's table, which may
 * be being destroyed (its struct outlives the grace period). Return: 0 or
 * -EMSGSIZE.
 */
int rnic_qp_nl_fill(struct sk_buff *msg, struct rnic_uobj *uobj);
int rnic_mr_nl_fill(struct sk_buff *msg, struct rnic_uobj *uobj, bool keys);
int rnic_pd_nl_fill(struct sk_buff *msg, struct rnic_uobj *uobj);
int rnic_cq_nl_fill(struct sk_buff *msg, struct rnic_uobj *uobj);
/* uobj.c: a handle's attributes for them, HANDLE and USERS */
int rnic_uobj_nl_fill(struct sk_buff *msg, struct rnic_uobj *uobj);

#endif /* RNIC_H */
