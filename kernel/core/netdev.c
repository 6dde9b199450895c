// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - binding devices to netdevs, port state and the
 * GID table.
 *
 * A bound device follows its netdev: the port is ACTIVE while the netdev is
 * up with carrier, the active MTU follows the netdev MTU, every IPv4 address
 * gives a GID ::ffff:a.b.c.d and every IPv6 address one GID, and removing
 * the netdev removes the device. The device is the netdev's rx_handler
 * (rnic_udp_rcv(), the udp link's receive path) while bound, so a netdev
 * that has one already (a bridge port, a bond slave, the lower device of
 * a macvlan) cannot be bound: bind the master instead. When the netdev
 * moves to another network
 * namespace the device moves with it (struct rnic_dev.net), keeping its
 * open contexts; the addresses of the old namespace leave the GID table as
 * the netdev core removes them. GID entry 0 is the link-local GID
 * fe80::/64 + node GUID, there for the device's life. Entries keep their
 * index while they exist, so an application's GID index stays valid when
 * other addresses come and go. A removed device's port is DOWN with no GID
 * at all (rnic_port_remove()).
 *
 * The GID map answers the local link's question "which device of this
 * namespace owns this GID?" (rnic_gid_dev()): one entry per valid GID
 * table entry of every device, added and removed with it under the port
 * lock, so that a GID leaves the map the moment it leaves the table. An
 * entry holds the device, not the namespace: rnic_dev.net is compared at
 * lookup, so a device that moves to another namespace is found in the new
 * one at once and no more in the old one.
 */
#include <linux/hashtable.h>
#include <linux/inetdevice.h>
#include <linux/jhash.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ipv6.h>

#include "rnic.h"

/*
 * Protects the list of bound devices and, in each, netdev and netdev_name.
 * Taken with _bh: the IPv6 address notifier may run in softirq context.
 */
DEFINE_SPINLOCK(rnic_bind_lock);
static LIST_HEAD(rnic_bound_devs);

/**
 * struct rnic_gid_owner - an entry of the GID map
 * @node: in its rnic_gid_map bucket
 * @rdev: the device whose GID table holds @gid; the entry is removed
 *	before the device is freed (rnic_port_remove())
 * @gid: the GID, network byte order
 * @rcu: freed after a grace period: the local link reads the map under RCU
 */
struct rnic_gid_owner {
	struct hlist_node node;
	struct rnic_dev *rdev;
	u8 gid[16];
	struct rcu_head rcu;
};

#define RNIC_GID_MAP_BITS	8
/* Written under rnic_gid_map_lock, read under RCU. */
static DEFINE_HASHTABLE(rnic_gid_map, RNIC_GID_MAP_BITS);
/* Nests inside rnic_port.lock. */
static DEFINE_SPINLOCK(rnic_gid_map_lock);

static u32 rnic_gid_hash(const u8 *gid)
{
	return jhash(gid, 16, 0);
}

/**
 * rnic_gid_dev() - the device of a namespace that owns a GID
 * @net: the namespace
 * @gid: the GID, network byte order
 *
 * If two devices of @net own @gid (two netdevs with one address), the one
 * that got it last is found.
 *
 * Context: in an RCU read-side critical section; the device stays
 * allocated until it ends (rnic_dev_release() frees it after a grace
 * period).
 * Return: the device or NULL.
 */
struct rnic_dev *rnic_gid_dev(const struct net *net, const u8 *gid)
{
	struct rnic_gid_owner *o;

	hash_for_each_possible_rcu(rnic_gid_map, o, node, rnic_gid_hash(gid))
		if (!memcmp(o->gid, gid, sizeof(o->gid)) &&
		    net_eq(rnic_dev_net(o->rdev), net))
			return o->rdev;
	return NULL;
}

/* Add @rdev's @gid to the map; port lock held. Returns 0 or -ENOMEM. */
static int rnic_gid_map_add(struct rnic_dev *rdev, const u8 *gid, gfp_t gfp)
{
	struct rnic_gid_owner *o = kmalloc(sizeof(*o), gfp);

	if (!o)
		return -ENOMEM;
	o->rdev = rdev;
	memcpy(o->gid, gid, sizeof(o->gid));
	spin_lock(&rnic_gid_map_lock);
	hash_add_rcu(rnic_gid_map, &o->node, rnic_gid_hash(gid));
	spin_unlock(&rnic_gid_map_lock);
	return 0;
}

/* Remove @rdev's @gid from the map; port lock held. */
static void rnic_gid_map_del(struct rnic_dev *rdev, const u8 *gid)
{
	struct rnic_gid_owner *o;

	spin_lock(&rnic_gid_map_lock);
	hash_for_each_possible(rnic_gid_map, o, node, rnic_gid_hash(gid)) {
		if (o->rdev == rdev && !memcmp(o->gid, gid, sizeof(o->gid))) {
			hash_del_rcu(&o->node);
			kfree_rcu(o, rcu);
			break;
		}
	}
	spin_unlock(&rnic_gid_map_lock);
}

/**
 * rnic_port_init() - initialise port 1 of an unbound device
 * @rdev: device being created, its node GUID and namespace set
 *
 * Its link-local GID enters the GID map: rnic_dev_release() calls
 * rnic_port_remove() for a device that was never published.
 *
 * Context: process.
 * Return: 0 or -ENOMEM.
 */
int rnic_port_init(struct rnic_dev *rdev)
{
	struct rnic_port *port = &rdev->port;
	struct rnic_gid *gid = &port->gids[0];
	int ret;

	spin_lock_init(&port->lock);
	port->state = RNIC_PORT_ACTIVE;
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	memcpy(&gid->raw[8], &rdev->node_guid, sizeof(rdev->node_guid));
	spin_lock_bh(&port->lock);
	ret = rnic_gid_map_add(rdev, gid->raw, GFP_ATOMIC);
	gid->valid = !ret;
	spin_unlock_bh(&port->lock);
	return ret;
}

/**
 * rnic_port_remove() - the port of a device being removed: DOWN, with an
 *	empty GID table
 * @rdev: the device, unbound
 *
 * The local link delivers a packet only to a device the GID map names
 * for its destination GID: from now on nothing reaches the device's QPs.
 * Raises no event; removal raises IBV_EVENT_DEVICE_FATAL. Calling it
 * again changes nothing.
 */
void rnic_port_remove(struct rnic_dev *rdev)
{
	struct rnic_port *port = &rdev->port;
	int i;

	spin_lock_bh(&port->lock);
	port->state = RNIC_PORT_DOWN;
	port->netdev_mtu = 0;
	for (i = 0; i < RNIC_GID_TABLE_LEN; i++)
		if (port->gids[i].valid)
			rnic_gid_map_del(rdev, port->gids[i].raw);
	memset(port->gids, 0, sizeof(port->gids));
	spin_unlock_bh(&port->lock);
}

/* Returns whether the table changed. */
static bool rnic_gid_add(struct rnic_port *port, const struct in6_addr *addr)
{
	struct rnic_dev *rdev = container_of(port, struct rnic_dev, port);
	int i, free = -1;

	lockdep_assert_held(&port->lock);
	for (i = 0; i < RNIC_GID_TABLE_LEN; i++) {
		if (!port->gids[i].valid) {
			if (free < 0)
				free = i;
		} else if (!memcmp(port->gids[i].raw, addr, sizeof(*addr))) {
			return false;
		}
	}
	if (free < 0) {
		pr_debug("rnic: GID table full, %pI6 not added\n", addr);
		return false;
	}
	/* Atomic: the IPv6 address notifier may run in softirq context. */
	if (rnic_gid_map_add(rdev, addr->s6_addr, GFP_ATOMIC)) {
		pr_debug("rnic: out of memory, %pI6 not added\n", addr);
		return false;
	}
	memcpy(port->gids[free].raw, addr, sizeof(*addr));
	port->gids[free].valid = true;
	return true;
}

/* Returns whether the table changed. */
static bool rnic_gid_del(struct rnic_port *port, const struct in6_addr *addr)
{
	struct rnic_dev *rdev = container_of(port, struct rnic_dev, port);
	int i;

	lockdep_assert_held(&port->lock);
	/* Entry 0, the link-local GID from the GUID, is permanent. */
	for (i = 1; i < RNIC_GID_TABLE_LEN; i++) {
		if (port->gids[i].valid &&
		    !memcmp(port->gids[i].raw, addr, sizeof(*addr))) {
			rnic_gid_map_del(rdev, port->gids[i].raw);
			memset(&port->gids[i], 0, sizeof(port->gids[i]));
			return true;
		}
	}
	return false;
}

static u8 rnic_netdev_port_state(const struct net_device *netdev)
{
	return netif_running(netdev) && netif_oper_up(netdev) ?
	       RNIC_PORT_ACTIVE : RNIC_PORT_DOWN;
}

/*
 * Calls @fn on port of the device bound to @netdev, if any, under the
 * port lock. At most one device is bound to a netdev.
 */
static void rnic_for_bound_port(const struct net_device *netdev,
				void (*fn)(struct rnic_port *port,
					   const void *arg),
				const void *arg)
{
	struct rnic_dev *rdev;

	spin_lock_bh(&rnic_bind_lock);
	list_for_each_entry(rdev, &rnic_bound_devs, bind_node) {
		if (rdev->netdev != netdev)
			continue;
		spin_lock(&rdev->port.lock);
		fn(&rdev->port, arg);
		spin_unlock(&rdev->port.lock);
		break;
	}
	spin_unlock_bh(&rnic_bind_lock);
}

/* Port changes raise asynchronous events in the device's contexts. */
static void rnic_port_event(struct rnic_port *port, u32 event_type)
{
	rnic_dev_async_event(container_of(port, struct rnic_dev, port),
			     event_type);
}

static void rnic_port_gid_add(struct rnic_port *port, const void *addr)
{
	if (rnic_gid_add(port, addr))
		rnic_port_event(port, RNIC_EVENT_GID_CHANGE);
}

static void rnic_port_gid_del(struct rnic_port *port, const void *addr)
{
	if (rnic_gid_del(port, addr))
		rnic_port_event(port, RNIC_EVENT_GID_CHANGE);
}

static void rnic_port_sync(struct rnic_port *port, const void *arg)
{
	const struct net_device *netdev = arg;
	u8 state = rnic_netdev_port_state(netdev);

	if (state != port->state)
		rnic_port_event(port, state == RNIC_PORT_ACTIVE ?
				RNIC_EVENT_PORT_ACTIVE : RNIC_EVENT_PORT_ERR);
	if (state == RNIC_PORT_DOWN && port->state == RNIC_PORT_ACTIVE)
		rnic_dev_count(container_of(port, struct rnic_dev, port),
			       RNIC_NL_COUNTER_LINK_DOWNED);
	port->state = state;
	port->netdev_mtu = READ_ONCE(netdev->mtu);
}

/* The addresses of a netdev as GIDs; rtnl_lock held. */
static int rnic_netdev_gids(struct net_device *netdev, struct in6_addr *gids,
			    int max)
{
	struct in_device *in_dev = __in_dev_get_rtnl(netdev);
	struct inet6_dev *idev = __in6_dev_get(netdev);
	const struct in_ifaddr *ifa;
	struct inet6_ifaddr *ifp;
	int n = 0;

	ASSERT_RTNL();
	if (in_dev) {
		in_dev_for_each_ifa_rtnl(ifa, in_dev) {
			if (n == max)
				return n;
			ipv6_addr_set_v4mapped(ifa->ifa_local, &gids[n++]);
		}
	}
	if (idev) {
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			if (n == max)
				break;
			if (ifp->flags & IFA_F_TENTATIVE)
				continue;
			gids[n++] = ifp->addr;
		}
		read_unlock_bh(&idev->lock);
	}
	return n;
}

/**
 * rnic_netdev_bind() - bind a device being created to a netdev
 * @rdev: device, not yet published
 * @netdev: the netdev; a reference is taken
 * @extack: netlink extended ACK for error messages
 *
 * The device becomes @netdev's rx_handler (rnic_udp_rcv()) and takes
 * every multicast frame (allmulti, one count of it until unbound).
 *
 * Context: process, rtnl_lock held, so that no address event is missed
 * between reading the addresses and listing the device as bound.
 * Return: 0, -EEXIST if another device is bound to @netdev, -EBUSY if
 * it has another rx_handler (a bridge port, a bond slave, a macvlan's
 * lower device), -ENOMEM.
 */
int rnic_netdev_bind(struct rnic_dev *rdev, struct net_device *netdev,
		     struct netlink_ext_ack *extack)
{
	struct in6_addr *gids;
	struct rnic_dev *other;
	int i, n, ret = 0;

	ASSERT_RTNL();
	gids = kcalloc(RNIC_GID_TABLE_LEN, sizeof(*gids), GFP_KERNEL);
	if (!gids)
		return -ENOMEM;
	n = rnic_netdev_gids(netdev, gids, RNIC_GID_TABLE_LEN);

	spin_lock_bh(&rnic_bind_lock);
	list_for_each_entry(other, &rnic_bound_devs, bind_node) {
		if (other->netdev == netdev) {
			NL_SET_ERR_MSG(extack,
				       "the netdev is bound to another rnic device");
			ret = -EEXIST;
			goto out_unlock;
		}
	}
	/* does not sleep: checks and publishes two pointers */
	ret = netdev_rx_handler_register(netdev, rnic_udp_rcv, rdev);
	if (ret) {
		NL_SET_ERR_MSG(extack,
			       "the netdev has an rx handler (bridge port, bond slave, macvlan lower device?): bind its master");
		goto out_unlock;
	}
	strscpy(rdev->netdev_name, netdev->name, sizeof(rdev->netdev_name));
	skb_queue_head_init(&rdev->held.skbs);
	hrtimer_init(&rdev->held.timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	rdev->held.timer.function = rnic_udp_held_timer;
	netdev_hold(netdev, &rdev->netdev_tracker, GFP_ATOMIC);
	rdev->netdev = netdev;
	list_add_tail(&rdev->bind_node, &rnic_bound_devs);

	spin_lock(&rdev->port.lock);
	rnic_port_sync(&rdev->port, netdev);
	for (i = 0; i < n; i++)
		rnic_gid_add(&rdev->port, &gids[i]);
	spin_unlock(&rdev->port.lock);
out_unlock:
	spin_unlock_bh(&rnic_bind_lock);
	kfree(gids);
	/*
	 * Every multicast frame: datagrams to the groups the device's QPs
	 * join (the udp link takes those of its groups, the stack the rest).
	 */
	if (!ret)
		dev_set_allmulti(netdev, 1);
	return ret;
}

/**
 * rnic_netdev_unbind() - drop a device's netdev binding, if any
 * @rdev: device, unpublished or never published
 *
 * Address and link changes of the netdev no longer reach the port: call
 * it before rnic_port_remove(). Removing a netdev must drop the reference
 * while rtnl_lock is held in NETDEV_UNREGISTER, or netdev_wait_allrefs()
 * waits for it. The device stops being the netdev's rx_handler; the
 * grace period that takes waits for the udp link's receivers and senders
 * that saw the netdev (struct rnic_dev.netdev); then the packets the
 * delay fault holds (struct rnic_held) are freed, unsent, and the
 * reference goes.
 *
 * Context: process, rtnl_lock held if the device is bound.
 */
void rnic_netdev_unbind(struct rnic_dev *rdev)
{
	struct net_device *netdev;

	spin_lock_bh(&rnic_bind_lock);
	netdev = rdev->netdev;
	if (netdev) {
		list_del_init(&rdev->bind_node);
		WRITE_ONCE(rdev->netdev, NULL);
		rdev->netdev_name[0] = '\0';
	}
	spin_unlock_bh(&rnic_bind_lock);
	if (!netdev)
		return;
	netdev_rx_handler_unregister(netdev);
	/* no sender can hold a packet back any more */
	hrtimer_cancel(&rdev->held.timer);
	skb_queue_purge(&rdev->held.skbs);
	dev_set_allmulti(netdev, -1);
	netdev_put(netdev, &rdev->netdev_tracker);
}

static void rnic_netdev_rename(struct net_device *netdev)
{
	struct rnic_dev *rdev;

	spin_lock_bh(&rnic_bind_lock);
	list_for_each_entry(rdev, &rnic_bound_devs, bind_node)
		if (rdev->netdev == netdev)
			strscpy(rdev->netdev_name, netdev->name,
				sizeof(rdev->netdev_name));
	spin_unlock_bh(&rnic_bind_lock);
}

/*
 * A netdev registered: a new one, or a bound one that moved to another
 * namespace. Its device, if any, follows it there.
 */
static void rnic_netdev_moved(struct net_device *netdev)
{
	struct rnic_dev *rdev;

	ASSERT_RTNL();
	mutex_lock(&rnic_devs_lock);
	spin_lock_bh(&rnic_bind_lock);
	list_for_each_entry(rdev, &rnic_bound_devs, bind_node)
		if (rdev->netdev == netdev)
			write_pnet(&rdev->net, dev_net(netdev));
	spin_unlock_bh(&rnic_bind_lock);
	mutex_unlock(&rnic_devs_lock);
	/* It may have been renamed on the way. */
	rnic_netdev_rename(netdev);
}

/* A bound netdev's hardware address changed: the CM's ids are told. */
static void rnic_netdev_addr_change(struct net_device *netdev)
{
	struct rnic_dev *rdev, *found = NULL;

	spin_lock_bh(&rnic_bind_lock);
	list_for_each_entry(rdev, &rnic_bound_devs, bind_node)
		if (rdev->netdev == netdev) {
			found = rdev;
			get_device(&found->dev);
			break;
		}
	spin_unlock_bh(&rnic_bind_lock);
	if (!found)
		return;
	rnic_cm_addr_change(found);
	put_device(&found->dev);
}

static int rnic_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		rnic_for_bound_port(netdev, rnic_port_sync, netdev);
		break;
	case NETDEV_CHANGENAME:
		rnic_netdev_rename(netdev);
		break;
	case NETDEV_CHANGEADDR:
	case NETDEV_BONDING_FAILOVER:
		rnic_netdev_addr_change(netdev);
		break;
	case NETDEV_REGISTER:
		rnic_netdev_moved(netdev);
		break;
	case NETDEV_UNREGISTER:
		/* Still registered: it moves to another namespace. */
		if (netdev->reg_state == NETREG_REGISTERED)
			break;
		rnic_dev_del_bound(netdev);
		break;
	}
	return NOTIFY_DONE;
}

static int rnic_inetaddr_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	const struct in_ifaddr *ifa = ptr;
	struct in6_addr gid;

	ipv6_addr_set_v4mapped(ifa->ifa_local, &gid);
	if (event == NETDEV_UP)
		rnic_for_bound_port(ifa->ifa_dev->dev, rnic_port_gid_add, &gid);
	else if (event == NETDEV_DOWN)
		rnic_for_bound_port(ifa->ifa_dev->dev, rnic_port_gid_del, &gid);
	return NOTIFY_DONE;
}

static int rnic_inet6addr_event(struct notifier_block *nb, unsigned long event,
				void *ptr)
{
	const struct inet6_ifaddr *ifp = ptr;

	if (event == NETDEV_UP)
		rnic_for_bound_port(ifp->idev->dev, rnic_port_gid_add,
				    &ifp->addr);
	else if (event == NETDEV_DOWN)
		rnic_for_bound_port(ifp->idev->dev, rnic_port_gid_del,
				    &ifp->addr);
	return NOTIFY_DONE;
}

static struct notifier_block rnic_netdev_nb = {
	.notifier_call = rnic_netdev_event,
};

static struct notifier_block rnic_inetaddr_nb = {
	.notifier_call = rnic_inetaddr_event,
};

static struct notifier_block rnic_inet6addr_nb = {
	.notifier_call = rnic_inet6addr_event,
};

int rnic_netdev_init(void)
{
	int ret;

	ret = register_netdevice_notifier(&rnic_netdev_nb);
	if (ret)
		return ret;
	ret = register_inetaddr_notifier(&rnic_inetaddr_nb);
	if (ret)
		goto err_netdev;
	ret = register_inet6addr_notifier(&rnic_inet6addr_nb);
	if (ret)
		goto err_inet;
	return 0;

err_inet:
	unregister_inetaddr_notifier(&rnic_inetaddr_nb);
err_netdev:
	unregister_netdevice_notifier(&rnic_netdev_nb);
	return ret;
}

void rnic_netdev_exit(void)
{
	unregister_inet6addr_notifier(&rnic_inet6addr_nb);
	unregister_inetaddr_notifier(&rnic_inetaddr_nb);
	unregister_netdevice_notifier(&rnic_netdev_nb);
}
