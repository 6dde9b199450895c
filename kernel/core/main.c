// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - module setup and the device registry.
 */
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/xarray.h>
#include <net/addrconf.h>

#include "verbs/verbs.h"

/*
 * The registry: index -> struct rnic_dev. A published device is findable
 * here; removal first replaces it by a reserved (NULL) entry, so that its
 * index (the char device minor) is not handed out again until the struct is
 * released, then tears it down (see rnic_dev_stop()). Adding, publishing
 * and unpublishing take rnic_devs_lock; rnic_dev_release() frees the
 * reserved index without it (the xarray's own lock suffices: nothing
 * else looks at a reserved entry).
 */
DEFINE_MUTEX(rnic_devs_lock);
static DEFINE_XARRAY_ALLOC(rnic_devs);

static dev_t rnic_devt;
static struct class *rnic_class;

static atomic_t rnic_live_objs[RNIC_OBJ_MAX];
static const char * const rnic_obj_names[RNIC_OBJ_MAX] = {
	[RNIC_OBJ_DEVICE] = "device",
	[RNIC_OBJ_CONTEXT] = "context",
	[RNIC_OBJ_PD] = "pd",
	[RNIC_OBJ_MR] = "mr",
	[RNIC_OBJ_CHANNEL] = "channel",
	[RNIC_OBJ_CQ] = "cq",
	[RNIC_OBJ_SRQ] = "srq",
	[RNIC_OBJ_QP] = "qp",
	[RNIC_OBJ_AH] = "ah",
	[RNIC_OBJ_MW] = "mw",
	[RNIC_OBJ_XRCD] = "xrcd",
	[RNIC_OBJ_TGT_QP] = "tgt_qp",
};

/**
 * rnic_obj_account() - count objects that are alive, for the leak check
 * @type: object type
 * @delta: +1 on creation, -1 on destruction
 */
void rnic_obj_account(enum rnic_obj_type type, int delta)
{
	atomic_add(delta, &rnic_live_objs[type]);
}

static void rnic_check_leaks(void)
{
	int type, n;

	for (type = 0; type < RNIC_OBJ_MAX; type++) {
		n = atomic_read(&rnic_live_objs[type]);
		if (n)
			pr_err("rnic: leak: %d %s objects at unload\n", n,
			       rnic_obj_names[type]);
	}
}

static char *rnic_devnode(struct device *dev, umode_t *mode)
{
	/* Everybody may open a verbs device, as with rdma-core's rules. */
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "infiniband/uverbs%u",
			 RNIC_UVERBS_BASE + to_rnic_dev(dev)->index);
}

/*
 * The last step of a device's life, a grace period after its release: the
 * local link may have found it in the GID map just before its GIDs left
 * (rnic_port_remove()) and still count a drop on it.
 */
static void rnic_dev_free_rcu(struct rcu_head *rcu)
{
	struct rnic_dev *rdev = container_of(rcu, struct rnic_dev, rcu);

	free_percpu(rdev->counters);
	kfree(rdev);
}

static void rnic_dev_release(struct device *dev)
{
	struct rnic_dev *rdev = to_rnic_dev(dev);

	WARN_ON(!xa_empty(&rdev->mrs));
	WARN_ON(!xa_empty(&rdev->qps));
	WARN_ON(!xa_empty(&rdev->srqs));
	WARN_ON(!list_empty(&rdev->xrcds));
	/* A device that was never published still has its link-local GID. */
	if (rdev->port.gids[0].valid)
		rnic_port_remove(rdev);
	rnic_dev_dp_fini(rdev);
	percpu_free_rwsem(&rdev->live_rwsem);
	xa_erase(&rnic_devs, rdev->index);
	call_rcu(&rdev->rcu, rnic_dev_free_rcu);
	rnic_obj_account(RNIC_OBJ_DEVICE, -1);
}

/**
 * rnic_active_mtu() - the IB MTU a port can use over a netdev
 * @netdev_mtu: MTU of the netdev in bytes, 0 for no netdev
 *
 * Return: the largest IB MTU in bytes whose packets, with the largest
 * RoCEv2 headers (IPv6, UDP, BTH, RETH, ImmDt, ICRC), fit the netdev MTU;
 * 4096 without a netdev, 256 at least.
 */
u32 rnic_active_mtu(u32 netdev_mtu)
{
	const u32 hdr_len = 40 + 8 + 12 + 16 + 4 + 4;
	u32 mtu;

	if (!netdev_mtu)
		return 4096;
	for (mtu = 4096; mtu > 256; mtu /= 2)
		if (mtu + hdr_len <= netdev_mtu)
			break;
	return mtu;
}

static bool rnic_name_valid(const char *name, struct netlink_ext_ack *extack)
{
	size_t len = strnlen(name, RNIC_DEV_NAME_MAX);
	const char *c;

	if (!len) {
		NL_SET_ERR_MSG(extack, "device name is empty");
		return false;
	}
	if (len >= RNIC_DEV_NAME_MAX) {
		NL_SET_ERR_MSG(extack, "device name is longer than 63 bytes");
		return false;
	}
	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		NL_SET_ERR_MSG(extack, "device name may not be . or ..");
		return false;
	}
	for (c = name; *c; c++) {
		/* Printable ASCII only: the name is a sysfs and node name. */
		if (*c == '/' || *c == ':' || *c <= ' ' || *c > '~') {
			NL_SET_ERR_MSG(extack,
				       "device name must be printable ASCII without '/', ':' or spaces");
			return false;
		}
	}
	return true;
}

/**
 * rnic_dev_find() - look a published device up by name
 * @net: the namespace the device must belong to, or NULL for any (names
 *	are global: sysfs and the char device nodes are)
 * @name: device name
 *
 * Context: rnic_devs_lock held; the device stays published until it is
 * dropped.
 * Return: the device (no reference taken) or NULL.
 */
struct rnic_dev *rnic_dev_find(struct net *net, const char *name)
{
	struct rnic_dev *rdev;
	unsigned long index;

	lockdep_assert_held(&rnic_devs_lock);
	xa_for_each(&rnic_devs, index, rdev)
		if (!strcmp(rnic_dev_name(rdev), name))
			return !net || net_eq(rnic_dev_net(rdev), net) ?
			       rdev : NULL;
	return NULL;
}

static void rnic_make_guid(struct rnic_dev *rdev, struct net_device *netdev)
{
	u8 *guid = (u8 *)&rdev->node_guid;

	/* Modified EUI-64 from the MAC, as for an IPv6 link-local address. */
	if (netdev && netdev->addr_len == ETH_ALEN &&
	    is_valid_ether_addr(netdev->dev_addr)) {
		addrconf_addr_eui48(guid, netdev->dev_addr);
		return;
	}
	/* Random, with the universal/local and group bits clear. */
	get_random_bytes(guid, sizeof(rdev->node_guid));
	guid[0] &= ~0x03;
}

/*
 * Removal happens in two steps:
 *
 * 1. rnic_dev_stop(), under rtnl_lock (unless the device is unbound, as
 *    when its namespace goes) and rnic_devs_lock: the device becomes
 *    unfindable, new ioctls and opens fail with ENODEV, its name is free
 *    (char device and sysfs entry gone), the device stops being the
 *    netdev's rx_handler and the netdev reference is dropped, the port is DOWN with no GID, the
 *    polling thread stops, every QP is in ERR with its WQEs flushed and
 *    its timers and work stopped, and every open context gets
 *    IBV_EVENT_DEVICE_FATAL. It does not wait for ioctls in flight: one
 *    may wait for a page fault that a user serves late or never (FUSE,
 *    userfaultfd), and rtnl_lock must not wait with it.
 * 2. rnic_dev_finish(), in process context without those locks: waits for
 *    the ioctls in flight, halts what they created or changed meanwhile,
 *    raises IBV_EVENT_DEVICE_FATAL in an event queue they created, and
 *    drops the registry's reference. Open contexts keep the struct until
 *    they are closed.
 *
 * rnic_dev_del() (`rnic link del`) runs both. A removal from a notifier or
 * a namespace exit (rnic_dev_remove_queued()) leaves step 2 to a work item on
 * rnic_remove_wq, which module exit drains.
 */
static struct workqueue_struct *rnic_remove_wq;

/* Stop what runs on its own: the polling thread, the QPs' engines. */
static void rnic_dev_halt(struct rnic_dev *rdev)
{
	rnic_poll_dev_stop(rdev);
	rnic_qp_halt_dev(rdev);
}

/**
 * rnic_dev_stop() - step 1 of a removal: unpublish and stop a device
 * @rdev: a published device
 *
 * Context: process, rnic_devs_lock held, and rtnl_lock if the device is
 * bound (rnic_netdev_unbind()). The caller then owns the registry's
 * reference and must pass it to rnic_dev_finish().
 */
static void rnic_dev_stop(struct rnic_dev *rdev)
{
	lockdep_assert_held(&rnic_devs_lock);
	/* The index (the char device minor) stays reserved until release. */
	xa_store(&rnic_devs, rdev->index, NULL, GFP_KERNEL);
	WRITE_ONCE(rdev->live, false);
	/* No charge from now on; rdma.current forgets the device. */
	rnic_cg_unregister(rdev);
	rnic_sysfs_del(rdev);
	cdev_device_del(&rdev->cdev, &rdev->dev);
	rnic_netdev_unbind(rdev);
	rnic_port_remove(rdev);
	rnic_dev_halt(rdev);
	rnic_cm_dev_remove(rdev);
	/* After the flush: a context that reacts sees every completion. */
	rnic_dev_async_event(rdev, RNIC_EVENT_DEVICE_FATAL);
	rnic_dbg_dev(rdev, "stopped\n");
}

/**
 * rnic_dev_finish() - step 2 of a removal: wait for the ioctls in flight
 *	and drop the registry's reference
 * @rdev: a device rnic_dev_stop() stopped
 *
 * Context: process, no rtnl_lock or rnic_devs_lock held; sleeps as long
 * as an ioctl in flight does.
 */
static void rnic_dev_finish(struct rnic_dev *rdev)
{
	/* Every ioctl that saw the device live has returned. */
	percpu_down_write(&rdev->live_rwsem);
	percpu_up_write(&rdev->live_rwsem);
	rnic_dev_halt(rdev);
	/* For an event queue created meanwhile; the others had it. */
	rnic_dev_async_event(rdev, RNIC_EVENT_DEVICE_FATAL);
	rnic_dbg_dev(rdev, "removed\n");
	put_device(&rdev->dev);
}

static void rnic_dev_remove_work(struct work_struct *work)
{
	rnic_dev_finish(container_of(work, struct rnic_dev, remove_work));
}

/**
 * rnic_dev_add() - create, bind and publish a device
 * @name: device name, unique across namespaces
 * @net: the caller's namespace: the device's, and where @ifname is looked
 *	up
 * @ifname: netdev to bind to, or NULL
 * @max_burst: rnic_dev.max_burst
 * @extack: netlink extended ACK for error messages
 *
 * Context: process, takes rtnl_lock (when binding) and rnic_devs_lock.
 * Return: 0 or a negative errno (EINVAL, EEXIST, ENODEV, ENOSPC, ENOMEM).
 */
int rnic_dev_add(const char *name, struct net *net, const char *ifname,
		 u32 max_burst, struct netlink_ext_ack *extack)
{
	struct net_device *netdev = NULL;
	struct rnic_dev *rdev;
	u32 index;
	int ret;

	if (!rnic_name_valid(name, extack))
		return -EINVAL;

	if (ifname)
		rtnl_lock();
	mutex_lock(&rnic_devs_lock);
	if (rnic_dev_find(NULL, name)) {
		/* In any namespace: names are global. */
		NL_SET_ERR_MSG(extack, "an rnic device of that name exists");
		ret = -EEXIST;
		goto err_unlock;
	}
	if (ifname) {
		netdev = __dev_get_by_name(net, ifname);
		if (!netdev) {
			NL_SET_ERR_MSG(extack, "no such netdev");
			ret = -ENODEV;
			goto err_unlock;
		}
	}

	rdev = kzalloc(sizeof(*rdev), GFP_KERNEL);
	if (!rdev) {
		ret = -ENOMEM;
		goto err_unlock;
	}
	ret = xa_alloc(&rnic_devs, &index, NULL,
		       XA_LIMIT(0, RNIC_MAX_DEVICES - 1), GFP_KERNEL);
	if (ret) {
		kfree(rdev);
		if (ret == -EBUSY) {
			NL_SET_ERR_MSG(extack, "all rnic device slots are in use");
			ret = -ENOSPC;
		}
		goto err_unlock;
	}
	rnic_obj_account(RNIC_OBJ_DEVICE, 1);

	/* From here on the release callback frees rdev and its index. */
	rdev->index = index;
	rdev->max_burst = max_burst;
	/* A bound netdev was looked up in @net: the device's namespace. */
	write_pnet(&rdev->net, net);
	device_initialize(&rdev->dev);
	rdev->dev.class = rnic_class;
	rdev->dev.devt = MKDEV(MAJOR(rnic_devt), index);
	rdev->dev.release = rnic_dev_release;
	ret = dev_set_name(&rdev->dev, "%s", name);
	if (ret)
		goto err_put;
	rdev->counters = alloc_percpu(struct rnic_dev_counters);
	if (!rdev->counters) {
		ret = -ENOMEM;
		goto err_put;
	}
	ret = rnic_dev_dp_init(rdev);
	if (ret)
		goto err_put;
	ret = percpu_init_rwsem(&rdev->live_rwsem);
	if (ret)
		goto err_put;
	cdev_init(&rdev->cdev, &rnic_uverbs_fops);
	rdev->cdev.owner = THIS_MODULE;
	mutex_init(&rdev->ctx_lock);
	INIT_LIST_HEAD(&rdev->contexts);
	spin_lock_init(&rdev->async_lock);
	INIT_LIST_HEAD(&rdev->async_queues);
	xa_init_flags(&rdev->mrs, XA_FLAGS_ALLOC);
	xa_init_flags(&rdev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&rdev->srqs, XA_FLAGS_ALLOC);
	INIT_LIST_HEAD(&rdev->xrcds);
	mutex_init(&rdev->xrcd_lock);
	INIT_LIST_HEAD(&rdev->bind_node);
	INIT_WORK(&rdev->remove_work, rnic_dev_remove_work);
	rnic_make_guid(rdev, netdev);
	ret = rnic_port_init(rdev);
	if (ret)
		goto err_put;

	if (netdev) {
		ret = rnic_netdev_bind(rdev, netdev, extack);
		if (ret)
			goto err_put;
	}

	rnic_cg_register(rdev);
	rdev->live = true;
	ret = cdev_device_add(&rdev->cdev, &rdev->dev);
	if (ret)
		goto err_cg;
	ret = rnic_sysfs_add(rdev);
	if (ret)
		goto err_remove;
	xa_store(&rnic_devs, index, rdev, GFP_KERNEL);
	mutex_unlock(&rnic_devs_lock);
	if (ifname)
		rtnl_unlock();
	rnic_dbg_dev(rdev, "created\n");
	return 0;

err_remove:
	/* The char device may have been opened: a whole removal. */
	rnic_dev_stop(rdev);
	mutex_unlock(&rnic_devs_lock);
	if (ifname)
		rtnl_unlock();
	rnic_dev_finish(rdev);
	return ret;

err_cg:
	rnic_cg_unregister(rdev);
	rnic_netdev_unbind(rdev);
err_put:
	put_device(&rdev->dev);
err_unlock:
	mutex_unlock(&rnic_devs_lock);
	if (ifname)
		rtnl_unlock();
	return ret;
}

/**
 * rnic_dev_remove_queued() - remove a device, finishing in the background
 * @rdev: a published device
 *
 * Step 1 of the removal now, step 2 in a work item that holds the
 * registry's reference. When this returns, the device is stopped and its
 * name is free.
 *
 * Context: process, rnic_devs_lock held, and rtnl_lock if the device is
 * bound.
 */
void rnic_dev_remove_queued(struct rnic_dev *rdev)
{
	rnic_dev_stop(rdev);
	queue_work(rnic_remove_wq, &rdev->remove_work);
}

/**
 * rnic_dev_del() - remove a device by name
 * @net: the caller's namespace; devices of others are not found
 * @name: device name
 * @extack: netlink extended ACK for error messages
 *
 * Both steps of the removal: when it returns, no ioctl runs on the device.
 *
 * Context: process, no rtnl_lock held; takes it (to unbind) and
 * rnic_devs_lock.
 * Return: 0 or -ENODEV.
 */
int rnic_dev_del(struct net *net, const char *name,
		 struct netlink_ext_ack *extack)
{
	struct rnic_dev *rdev;

	rtnl_lock();
	mutex_lock(&rnic_devs_lock);
	rdev = rnic_dev_find(net, name);
	if (rdev)
		rnic_dev_stop(rdev);
	mutex_unlock(&rnic_devs_lock);
	rtnl_unlock();
	if (!rdev) {
		NL_SET_ERR_MSG(extack, "no such rnic device");
		return -ENODEV;
	}
	rnic_dev_finish(rdev);
	return 0;
}

/**
 * rnic_dev_del_bound() - remove every device bound to a netdev
 * @netdev: a netdev that goes away
 *
 * Context: process, rtnl_lock held (netdev notifier); takes rnic_devs_lock.
 */
void rnic_dev_del_bound(struct net_device *netdev)
{
	struct rnic_dev *rdev;
	unsigned long index;

	ASSERT_RTNL();
	mutex_lock(&rnic_devs_lock);
	xa_for_each(&rnic_devs, index, rdev) {
		/* Stable: published devices are neither bound nor unbound. */
		if (rdev->netdev == netdev)
			rnic_dev_remove_queued(rdev);
	}
	mutex_unlock(&rnic_devs_lock);
}

/* The fault settings of @rdev, indexed by enum rnic_nl_fault. */
static void rnic_dev_fault_info(struct rnic_dev *rdev, u32 *fault)
{
	struct rnic_fault *f = &rdev->fault;

	fault[RNIC_NL_FAULT_DROP] = READ_ONCE(f->drop);
	fault[RNIC_NL_FAULT_DUPLICATE] = READ_ONCE(f->duplicate);
	fault[RNIC_NL_FAULT_CORRUPT] = READ_ONCE(f->corrupt);
	fault[RNIC_NL_FAULT_DELAY] = READ_ONCE(f->delay);
	fault[RNIC_NL_FAULT_DELAY_US] = READ_ONCE(f->delay_us);
	fault[RNIC_NL_FAULT_RNR] = atomic_read(&f->rnr);
	fault[RNIC_NL_FAULT_REM_ACCESS] = atomic_read(&f->rem_access);
	fault[RNIC_NL_FAULT_RETRY_EXC] = atomic_read(&f->retry_exc);
}

/**
 * rnic_dev_set_fault() - change a device's fault injection settings
 * @rdev: a published device
 * @fault: new values, indexed by enum rnic_nl_fault, in their ranges
 * @mask: bit N set: setting N changes; the others stay
 *
 * Context: rnic_devs_lock held (it serialises the writers of
 * struct rnic_fault).
 */
void rnic_dev_set_fault(struct rnic_dev *rdev, const u32 *fault, u32 mask)
{
	struct rnic_fault *f = &rdev->fault;

	lockdep_assert_held(&rnic_devs_lock);
	if (mask & BIT(RNIC_NL_FAULT_DROP))
		WRITE_ONCE(f->drop, fault[RNIC_NL_FAULT_DROP]);
	if (mask & BIT(RNIC_NL_FAULT_DUPLICATE))
		WRITE_ONCE(f->duplicate, fault[RNIC_NL_FAULT_DUPLICATE]);
	if (mask & BIT(RNIC_NL_FAULT_CORRUPT))
		WRITE_ONCE(f->corrupt, fault[RNIC_NL_FAULT_CORRUPT]);
	if (mask & BIT(RNIC_NL_FAULT_DELAY))
		WRITE_ONCE(f->delay, fault[RNIC_NL_FAULT_DELAY]);
	if (mask & BIT(RNIC_NL_FAULT_DELAY_US))
		WRITE_ONCE(f->delay_us, fault[RNIC_NL_FAULT_DELAY_US]);
	if (mask & BIT(RNIC_NL_FAULT_RNR))
		atomic_set(&f->rnr, fault[RNIC_NL_FAULT_RNR]);
	if (mask & BIT(RNIC_NL_FAULT_REM_ACCESS))
		atomic_set(&f->rem_access, fault[RNIC_NL_FAULT_REM_ACCESS]);
	if (mask & BIT(RNIC_NL_FAULT_RETRY_EXC))
		atomic_set(&f->retry_exc, fault[RNIC_NL_FAULT_RETRY_EXC]);
	WRITE_ONCE(f->pkt, f->drop || f->duplicate || f->corrupt || f->delay);
}

/**
 * rnic_dev_info() - snapshot a device for reporting
 * @rdev: a published device
 * @info: filled in
 *
 * Context: rnic_devs_lock held.
 */
void rnic_dev_info(struct rnic_dev *rdev, struct rnic_dev_info *info)
{
	struct rnic_port *port = &rdev->port;

	lockdep_assert_held(&rnic_devs_lock);
	memset(info, 0, sizeof(*info));
	strscpy(info->name, rnic_dev_name(rdev), sizeof(info->name));
	info->index = rdev->index;
	info->uverbs_num = RNIC_UVERBS_BASE + rdev->index;
	info->node_guid = rdev->node_guid;
	info->max_burst = rdev->max_burst;
	rnic_dev_fault_info(rdev, info->fault);
	info->contexts = atomic_read(&rdev->ncontexts);

	spin_lock_bh(&rnic_bind_lock);
	if (rdev->netdev) {
		info->netdev_ifindex = rdev->netdev->ifindex;
		strscpy(info->netdev_name, rdev->netdev_name,
			sizeof(info->netdev_name));
	}
	spin_unlock_bh(&rnic_bind_lock);

	spin_lock_bh(&port->lock);
	info->state = port->state;
	info->netdev_mtu = port->netdev_mtu;
	memcpy(info->gids, port->gids, sizeof(info->gids));
	spin_unlock_bh(&port->lock);
	info->active_mtu = rnic_active_mtu(info->netdev_mtu);
}

/**
 * rnic_dev_next() - iterate over the published devices of a namespace
 * @net: the namespace
 * @index: in: first index to look at; out: index of the device found
 *
 * Context: rnic_devs_lock held.
 * Return: the next published device of @net at or after *@index, or NULL.
 */
struct rnic_dev *rnic_dev_next(struct net *net, unsigned long *index)
{
	struct rnic_dev *rdev;

	lockdep_assert_held(&rnic_devs_lock);
	for (rdev = xa_find(&rnic_devs, index, ULONG_MAX, XA_PRESENT); rdev;
	     rdev = xa_find_after(&rnic_devs, index, ULONG_MAX, XA_PRESENT))
		if (net_eq(rnic_dev_net(rdev), net))
			return rdev;
	return NULL;
}

static void rnic_dev_del_all(void)
{
	struct rnic_dev *rdev;
	unsigned long index;

	rtnl_lock();
	mutex_lock(&rnic_devs_lock);
	xa_for_each(&rnic_devs, index, rdev)
		rnic_dev_remove_queued(rdev);
	mutex_unlock(&rnic_devs_lock);
	rtnl_unlock();
}

/*
 * A namespace going away takes its devices along. Its netdevs are gone
 * (or moved out, their devices following them) by now: the netdev core's
 * pernet exit runs before those of subsystems. What is left are the
 * devices created unbound in the namespace. Their removal finishes in
 * the background (rnic_dev_remove_queued()): namespace cleanup does not
 * wait for an ioctl in flight.
 *
 * Context: the namespace cleanup work, without rtnl_lock.
 */
static void __net_exit rnic_net_exit(struct net *net)
{
	struct rnic_dev *rdev;
	unsigned long index;

	mutex_lock(&rnic_devs_lock);
	xa_for_each(&rnic_devs, index, rdev)
		if (net_eq(rnic_dev_net(rdev), net))
			rnic_dev_remove_queued(rdev);
	mutex_unlock(&rnic_devs_lock);
}

static struct pernet_operations rnic_net_ops = {
	.exit = rnic_net_exit,
};

static int __init rnic_init(void)
{
	int ret;

	rnic_remove_wq = alloc_workqueue("rnic_remove", WQ_UNBOUND, 0);
	if (!rnic_remove_wq)
		return -ENOMEM;
	ret = alloc_chrdev_region(&rnic_devt, 0, RNIC_MAX_DEVICES, "rnic");
	if (ret)
		goto err_wq;
	rnic_class = class_create(THIS_MODULE, "rnic");
	if (IS_ERR(rnic_class)) {
		ret = PTR_ERR(rnic_class);
		goto err_chrdev;
	}
	rnic_class->devnode = rnic_devnode;
	rnic_class->dev_groups = rnic_dev_groups;
	rnic_sysfs_init();

	ret = rnic_netdev_init();
	if (ret)
		goto err_class;
	ret = register_pernet_subsys(&rnic_net_ops);
	if (ret)
		goto err_netdev;
	ret = rnic_cm_init();
	if (ret)
		goto err_pernet;
	ret = rnic_nl_init();
	if (ret)
		goto err_cm;
	return 0;

err_cm:
	rnic_cm_exit();
err_pernet:
	unregister_pernet_subsys(&rnic_net_ops);
err_netdev:
	rnic_netdev_exit();
err_class:
	class_destroy(rnic_class);
err_chrdev:
	unregister_chrdev_region(rnic_devt, RNIC_MAX_DEVICES);
err_wq:
	destroy_workqueue(rnic_remove_wq);
	return ret;
}

static void __exit rnic_exit(void)
{
	rnic_nl_exit();
	/*
	 * Before the netdev notifiers go: unregistering them replays
	 * NETDEV_UNREGISTER for every netdev.
	 */
	rnic_dev_del_all();
	/* No device is left to hand a MAD to the CM, no file is open. */
	rnic_cm_exit();
	unregister_pernet_subsys(&rnic_net_ops);
	rnic_netdev_exit();
	/*
	 * Pending removals finish: no ioctl runs, every open file holds
	 * the module. The devices are freed before their class goes.
	 */
	destroy_workqueue(rnic_remove_wq);
	/* rnic_dev_free_rcu() is module code */
	rcu_barrier();
	class_destroy(rnic_class);
	unregister_chrdev_region(rnic_devt, RNIC_MAX_DEVICES);
	rnic_check_leaks();
}

module_init(rnic_init);
module_exit(rnic_exit);

MODULE_DESCRIPTION("rnic: software RDMA NIC");
MODULE_LICENSE("GPL");
MODULE_VERSION(__stringify(RNIC_VERSION_MAJOR) "."
	       __stringify(RNIC_VERSION_MINOR) "."
	       __stringify(RNIC_VERSION_PATCH));
