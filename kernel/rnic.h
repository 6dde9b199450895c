/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rnic: software RDMA NIC - types and helpers shared by the module's files.
 */
#ifndef RNIC_H
#define RNIC_H

#include <linux/bits.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

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
 * dependency order: a context is torn down from the last kind to the first.
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
 * struct rnic_port - the (single) port of a device
 * @lock: protects every field below; taken in any context (softirq
 *	included, the IPv6 address notifier is atomic), so always with _bh
 * @state: logical port state, RNIC_PORT_DOWN or RNIC_PORT_ACTIVE
 * @netdev_mtu: MTU of the bound netdev, 0 when unbound
 * @gids: GID table; entry 0 is the permanent link-local GID
 */
struct rnic_port {
	spinlock_t lock; /* see above */
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
 * @node_guid: node GUID, fixed at creation
 * @port: port 1
 * @live_rwsem: ioctls run under it for reading; removal takes it for
 *	writing to clear @live, so that no ioctl runs on a removed device
 * @live: the device is registered; false once removal started
 * @ncontexts: open verbs contexts
 * @ctx_lock: protects @contexts and @next_ctx_id
 * @contexts: open contexts, for resource reports
 * @next_ctx_id: id of the next context opened
 * @nobjs: objects of each kind on the device, checked against its limits
 * @pinned: bytes pinned by memory regions of the device
 * @mrs: MR table, index (the low bits of lkey and rkey) -> struct rnic_mr;
 *	an entry is non-NULL while the MR is registered
 * @netdev: bound netdev (a held reference) or NULL; written under
 *	rnic_bind_lock, before the device is published and after it is
 *	unpublished, so it is also stable under rnic_devs_lock while published
 * @netdev_tracker: reference tracker for @netdev
 * @netdev_name: name of @netdev, kept current on renames; rnic_bind_lock
 * @bind_node: entry in the list of bound devices; rnic_bind_lock
 *
 * Lock order: rtnl_lock -> rnic_devs_lock -> @live_rwsem -> @ctx_lock ->
 * (context objs xa_lock) -> rnic_bind_lock -> @port.lock.
 */
struct rnic_dev {
	struct device dev;
	struct cdev cdev;
	u32 index;
	__be64 node_guid;
	struct rnic_port port;

	struct rw_semaphore live_rwsem;
	bool live;
	atomic_t ncontexts;

	struct mutex ctx_lock; /* see above */
	struct list_head contexts;
	u32 next_ctx_id;
	atomic_t nobjs[RNIC_OBJ_MAX];
	atomic64_t pinned;
	struct xarray mrs;

	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	char netdev_name[IFNAMSIZ];
	struct list_head bind_node;
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
 */
struct rnic_uobj {
	refcount_t users;
	enum rnic_obj_type type;
	u32 handle;
	struct rnic_ctx *ctx;
	void (*destroy)(struct rnic_uobj *uobj);
};

/**
 * struct rnic_ctx - a verbs context: one open file of a char device
 * @dev: the device, a counted reference
 * @objs: handle table, handle -> struct rnic_uobj; an object is findable
 *	when its entry is non-NULL (creation reserves the handle with a NULL
 *	entry first); lookups and destroy decide under its xa_lock
 * @id: context id for resource reports, unique on the device while open
 * @pid: thread group that opened the file
 * @comm: its name at open time
 * @mmaps: regions the context may map, key (mmap offset in pages) ->
 *	struct rnic_mmap
 * @nobjs: objects of each kind the context owns
 * @pinned: bytes its memory regions pin
 * @dev_node: entry in the device's list of contexts; rnic_dev.ctx_lock
 */
struct rnic_ctx {
	struct rnic_dev *dev;
	struct xarray objs;
	u32 id;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	struct xarray mmaps;
	atomic_t nobjs[RNIC_OBJ_MAX];
	atomic64_t pinned;
	struct list_head dev_node;
};

/**
 * struct rnic_mmap - kernel memory a context may map (see mmap.c)
 * @ref: 1 for the owning object until rnic_mmap_remove(), 1 per VMA
 * @ctx: the context
 * @key: mmap offset in pages, the index in @ctx->mmaps
 * @vaddr: the memory, vmalloc_user()
 * @size: bytes, a page multiple
 */
struct rnic_mmap {
	refcount_t ref;
	struct rnic_ctx *ctx;
	u32 key;
	void *vaddr;
	size_t size;
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
 *	reference; NULL if the owner had CAP_IPC_LOCK
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
};

/* completion queues, channels, async events: types */

/* queue pairs, multicast: types */

/* shared receive queues, address handles: types */

/* MR keys: index in the low bits, random above: 2^15 guesses per index. */
#define RNIC_MR_INDEX_BITS	17
static_assert(BIT(RNIC_MR_INDEX_BITS) >= RNIC_MAX_MR);

/**
 * struct rnic_link_info - a consistent snapshot of a device for reporting
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
struct rnic_link_info {
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

#define rnic_dbg_dev(rdev, fmt, ...) \
	dev_dbg(&(rdev)->dev, fmt, ##__VA_ARGS__)

/* main.c: device registry */
extern struct mutex rnic_devs_lock;
void rnic_obj_account(enum rnic_obj_type type, int delta);
int rnic_dev_add(const char *name, struct net *net, const char *ifname,
		 struct netlink_ext_ack *extack);
int rnic_dev_del(const char *name, struct netlink_ext_ack *extack);
void rnic_dev_del_bound(struct net_device *netdev);
struct rnic_dev *rnic_dev_find(const char *name);
struct rnic_dev *rnic_dev_next(unsigned long *index);
void rnic_dev_info(struct rnic_dev *rdev, struct rnic_link_info *info);
u32 rnic_active_mtu(u32 netdev_mtu);

/* netdev.c: binding to a netdev, GID table */
extern spinlock_t rnic_bind_lock;
void rnic_port_init(struct rnic_dev *rdev);
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
void rnic_uobj_put(struct rnic_uobj *uobj);
int rnic_uobj_destroy(struct rnic_ctx *ctx, u32 handle,
		      enum rnic_obj_type type);
void rnic_uobj_destroy_all(struct rnic_ctx *ctx);

/* mmap.c: memory shared with userspace */
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

/* completion queues, channels, async events: functions */

/* queue pairs, multicast: functions */

/* shared receive queues, address handles: functions */

/* netlink.c: generic netlink family */
int rnic_nl_init(void);
void rnic_nl_exit(void);

#endif /* RNIC_H */
