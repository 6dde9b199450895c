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
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>

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
 * @netdev: bound netdev (a held reference) or NULL; written under
 *	rnic_bind_lock, before the device is published and after it is
 *	unpublished, so it is also stable under rnic_devs_lock while published
 * @netdev_tracker: reference tracker for @netdev
 * @netdev_name: name of @netdev, kept current on renames; rnic_bind_lock
 * @bind_node: entry in the list of bound devices; rnic_bind_lock
 *
 * Lock order: rtnl_lock -> rnic_devs_lock -> @live_rwsem ->
 * rnic_bind_lock -> @port.lock.
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

	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	char netdev_name[IFNAMSIZ];
	struct list_head bind_node;
};

/**
 * struct rnic_ctx - a verbs context: one open file of a char device
 * @dev: the device, a counted reference
 */
struct rnic_ctx {
	struct rnic_dev *dev;
};

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

/**
 * enum rnic_obj_type - kinds of objects counted for the leak check at unload
 * @RNIC_OBJ_DEVICE: struct rnic_dev
 * @RNIC_OBJ_CONTEXT: struct rnic_ctx
 * @RNIC_OBJ_MAX: number of kinds
 */
enum rnic_obj_type {
	RNIC_OBJ_DEVICE,
	RNIC_OBJ_CONTEXT,
	RNIC_OBJ_MAX
};

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

/* netlink.c: generic netlink family */
int rnic_nl_init(void);
void rnic_nl_exit(void);

#endif /* RNIC_H */
