// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the connection manager's addresses: IP
 * addresses to rnic devices, GIDs and paths, and the port spaces.
 *
 * An IP address is a GID (RoCEv2: ::ffff:a.b.c.d or the IPv6 address),
 * and the device that owns it in the id's namespace is the GID map's
 * (rnic_gid_dev()). A destination some device of the namespace owns is
 * reached over the local link, from the same address when the source is
 * not given (as the kernel routes to a local address); any other
 * destination through the kernel's route, from the source address it
 * picks, on the device that owns that address. The path (rnic_av) is
 * then what rnic_av_from_attr() makes of the two GIDs, its route
 * (local or wire) chosen there, as for an address handle.
 *
 * Port spaces: every bound id is in rnic_cm_binds, with its namespace,
 * port space and address; a port is taken for an address that overlaps
 * (equal, or one is the wildcard of the family) unless both ids allow
 * reuse and neither listens. All under rnic_cm_lock.
 */
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <net/sock.h>

#include "cm/cm.h"

static HLIST_HEAD(rnic_cm_binds);
/* Ids on a device, for DEVICE_REMOVAL (rnic_cm_dev_remove()) */
LIST_HEAD(rnic_cm_all);

/* Ephemeral ports, the kernel's default ip_local_port_range */
#define RNIC_CM_PORT_LOW	32768
#define RNIC_CM_PORT_HIGH	60999

/**
 * rnic_cm_addr_check() - is @addr an address the CM takes?
 * @addr: a struct sockaddr_in or sockaddr_in6 in a sockaddr_storage
 *
 * Return: 0, or -EINVAL for another family.
 */
int rnic_cm_addr_check(const struct sockaddr_storage *addr)
{
	return addr->ss_family == AF_INET || addr->ss_family == AF_INET6 ?
	       0 : -EINVAL;
}

bool rnic_cm_addr_any(const struct sockaddr_storage *addr)
{
	if (addr->ss_family == AF_INET)
		return ((const struct sockaddr_in *)addr)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)addr)->sin6_addr);
}

/* Port, host byte order */
u16 rnic_cm_port(const struct sockaddr_storage *addr)
{
	if (addr->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)addr)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
}

void rnic_cm_set_port(struct sockaddr_storage *addr, u16 port)
{
	if (addr->ss_family == AF_INET)
		((struct sockaddr_in *)addr)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)addr)->sin6_port = htons(port);
}

/* The GID of an address: IPv4-mapped, or the IPv6 address itself */
void rnic_cm_addr_gid(const struct sockaddr_storage *addr, u8 *gid)
{
	struct in6_addr a;

	if (addr->ss_family == AF_INET)
		ipv6_addr_set_v4mapped(((const struct sockaddr_in *)addr)->sin_addr.s_addr,
				       &a);
	else
		a = ((const struct sockaddr_in6 *)addr)->sin6_addr;
	memcpy(gid, &a, sizeof(a));
}

/* The address of a GID, with @port (host byte order) */
void rnic_cm_gid_addr(const u8 *gid, u16 port, struct sockaddr_storage *addr)
{
	memset(addr, 0, sizeof(*addr));
	if (rnic_gid_is_v4mapped(gid)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)addr;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, gid + 12, 4);
		sin->sin_port = htons(port);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)addr;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, gid, 16);
		sin6->sin6_port = htons(port);
	}
}

/* GID table index of @gid on @rdev, or -EADDRNOTAVAIL */
static int rnic_cm_gid_index(struct rnic_dev *rdev, const u8 *gid)
{
	struct rnic_port *port = &rdev->port;
	int i, ret = -EADDRNOTAVAIL;

	spin_lock_bh(&port->lock);
	for (i = 0; i < RNIC_GID_TABLE_LEN; i++)
		if (port->gids[i].valid && !memcmp(port->gids[i].raw, gid, 16)) {
			ret = i;
			break;
		}
	spin_unlock_bh(&port->lock);
	return ret;
}

/**
 * rnic_cm_set_sgid() - the id's source GID: one of its device's
 * @id: an id on a device
 * @gid: the GID
 *
 * Return: 0 or -EADDRNOTAVAIL.
 */
int rnic_cm_set_sgid(struct rnic_cm_id *id, const u8 *gid)
{
	int index = rnic_cm_gid_index(id->rdev, gid);

	if (index < 0)
		return index;
	id->av.sgid_index = index;
	memcpy(id->av.sgid, gid, 16);
	return 0;
}

/* The device of @net owning @gid, with a reference, or NULL */
static struct rnic_dev *rnic_cm_gid_dev_get(struct net *net, const u8 *gid)
{
	struct rnic_dev *rdev;

	rcu_read_lock();
	rdev = rnic_gid_dev(net, gid);
	if (rdev)
		get_device(&rdev->dev);
	rcu_read_unlock();
	return rdev;
}

/**
 * rnic_cm_set_dev() - put an id on a device
 * @id: the id
 * @rdev: the device; the id takes a reference of its own
 *
 * Context: rnic_cm_lock held.
 */
void rnic_cm_set_dev(struct rnic_cm_id *id, struct rnic_dev *rdev)
{
	if (id->rdev == rdev)
		return;
	get_device(&rdev->dev);
	if (id->rdev)
		put_device(&id->rdev->dev);
	id->rdev = rdev;
	list_del(&id->dev_node);
	list_add_tail(&id->dev_node, &rnic_cm_all);
}

/* Do the addresses of two bound ids overlap? */
static bool rnic_cm_addr_overlap(const struct rnic_cm_id *a,
				 const struct rnic_cm_id *b)
{
	const struct sockaddr_storage *x = &a->src, *y = &b->src;

	if (x->ss_family != y->ss_family) {
		/* An IPv6 wildcard takes IPv4 too, unless AFONLY. */
		const struct rnic_cm_id *v6 = x->ss_family == AF_INET6 ? a : b;

		return rnic_cm_addr_any(&v6->src) && !v6->afonly;
	}
	if (rnic_cm_addr_any(x) || rnic_cm_addr_any(y))
		return true;
	if (x->ss_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)x)->sin6_addr,
			       &((const struct sockaddr_in6 *)y)->sin6_addr);
}

/* Is @port of @id's port space taken for @id's address? */
static bool rnic_cm_port_taken(const struct rnic_cm_id *id, u16 port)
{
	struct rnic_cm_id *b;

	hlist_for_each_entry(b, &rnic_cm_binds, bind_node) {
		if (b->ps != id->ps || rnic_cm_port(&b->src) != port ||
		    !net_eq(b->file->net, id->file->net))
			continue;
		if (id->reuseaddr && b->reuseaddr && b->state != RNIC_CM_LISTEN)
			continue;
		if (rnic_cm_addr_overlap(id, b))
			return true;
	}
	return false;
}

/*
 * A free ephemeral port for @id's address, from a random start; 0 if
 * there is none.
 */
static u16 rnic_cm_port_pick(const struct rnic_cm_id *id)
{
	u32 n = RNIC_CM_PORT_HIGH - RNIC_CM_PORT_LOW + 1;
	u32 start = get_random_u32_below(n), i;

	for (i = 0; i < n; i++) {
		u16 port = RNIC_CM_PORT_LOW + (start + i) % n;

		if (!rnic_cm_port_taken(id, port))
			return port;
	}
	return 0;
}

/**
 * rnic_cm_bind() - bind an id to an address and port
 * @id: an unbound id
 * @addr: a wildcard, or an address a device of the id's namespace owns
 *	(the id goes on that device); port 0 picks a free one
 *
 * Context: rnic_cm_lock held.
 * Return: 0, -EADDRNOTAVAIL, -EADDRINUSE or -EACCES (a port below 1024
 * without CAP_NET_BIND_SERVICE).
 */
int rnic_cm_bind(struct rnic_cm_id *id, const struct sockaddr_storage *addr)
{
	struct net *net = id->file->net;
	struct rnic_dev *rdev = NULL;
	u16 port = rnic_cm_port(addr);
	u8 gid[16];

	if (!rnic_cm_addr_any(addr)) {
		rnic_cm_addr_gid(addr, gid);
		rdev = rnic_cm_gid_dev_get(net, gid);
		if (!rdev)
			return -EADDRNOTAVAIL;
	}
	id->src = *addr;
	if (port && port < PROT_SOCK &&
	    !ns_capable(net->user_ns, CAP_NET_BIND_SERVICE))
		goto err_acces;
	if (!port)
		port = rnic_cm_port_pick(id);
	if (!port || rnic_cm_port_taken(id, port))
		goto err_inuse;
	rnic_cm_set_port(&id->src, port);
	if (rdev) {
		rnic_cm_set_dev(id, rdev);
		id->av.sgid_index = rnic_cm_gid_index(rdev, gid);
		memcpy(id->av.sgid, gid, 16);
		put_device(&rdev->dev);
	}
	hlist_add_head(&id->bind_node, &rnic_cm_binds);
	id->bound = true;
	return 0;

err_acces:
	memset(&id->src, 0, sizeof(id->src));
	if (rdev)
		put_device(&rdev->dev);
	return -EACCES;
err_inuse:
	memset(&id->src, 0, sizeof(id->src));
	if (rdev)
		put_device(&rdev->dev);
	return -EADDRINUSE;
}

/* Context: rnic_cm_lock held. */
void rnic_cm_unbind(struct rnic_cm_id *id)
{
	if (!id->bound)
		return;
	hlist_del_init(&id->bind_node);
	id->bound = false;
}

/* Does listener @l take a request to @addr? */
static bool rnic_cm_listener_takes(const struct rnic_cm_id *l,
				   const struct sockaddr_storage *addr)
{
	u8 a[16], b[16];

	if (rnic_cm_addr_any(&l->src))
		return l->src.ss_family == addr->ss_family ||
		       (l->src.ss_family == AF_INET6 && !l->afonly);
	rnic_cm_addr_gid(&l->src, a);
	rnic_cm_addr_gid(addr, b);
	return !memcmp(a, b, 16);
}

/**
 * rnic_cm_find_listener() - the listener a request to an address goes to
 * @net: the namespace of the device the request came to
 * @ps: the port space
 * @addr: the destination address and port of the request
 *
 * A listener bound to the address itself comes before a wildcard one.
 *
 * Context: rnic_cm_lock held.
 * Return: the listener, or NULL.
 */
struct rnic_cm_id *rnic_cm_find_listener(struct net *net, u16 ps,
					 const struct sockaddr_storage *addr)
{
	struct rnic_cm_id *l, *any = NULL;
	u16 port = rnic_cm_port(addr);

	hlist_for_each_entry(l, &rnic_cm_binds, bind_node) {
		if (l->state != RNIC_CM_LISTEN || l->ps != ps ||
		    rnic_cm_port(&l->src) != port ||
		    !net_eq(l->file->net, net) ||
		    !rnic_cm_listener_takes(l, addr))
			continue;
		if (!rnic_cm_addr_any(&l->src))
			return l;
		any = any ?: l;
	}
	return any;
}

/*
 * The source address the kernel's route to @dst leaves from, in @src
 * (family and address). Return: 0 or -ENETUNREACH.
 */
static int rnic_cm_route_src(struct net *net,
			     const struct sockaddr_storage *dst,
			     struct sockaddr_storage *src)
{
	memset(src, 0, sizeof(*src));
	src->ss_family = dst->ss_family;
	if (dst->ss_family == AF_INET) {
		struct flowi4 fl4 = {
			.daddr = ((const struct sockaddr_in *)dst)->sin_addr.s_addr,
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt))
			return -ENETUNREACH;
		ip_rt_put(rt);
		((struct sockaddr_in *)src)->sin_addr.s_addr = fl4.saddr;
	} else {
		struct flowi6 fl6 = {
			.daddr = ((const struct sockaddr_in6 *)dst)->sin6_addr,
		};
		struct dst_entry *d = ip6_route_output(net, NULL, &fl6);
		int err = d->error;

		if (!err)
			err = ipv6_dev_get_saddr(net, d->dev, &fl6.daddr, 0,
						 &((struct sockaddr_in6 *)src)->sin6_addr);
		dst_release(d);
		if (err)
			return -ENETUNREACH;
	}
	return 0;
}

/**
 * rnic_cm_resolve_addr() - find the device, the source and the GIDs of a
 *	connection to @dst
 * @id: the id
 * @src: the source, or family AF_UNSPEC: the id's bound address, else
 *	the one the route picks
 * @dst: the destination
 *
 * An unbound id is bound here (a free port).
 *
 * Context: rnic_cm_lock held.
 * Return: 0; what the network says as -errno for ADDR_ERROR
 * (-EADDRNOTAVAIL: the source is no device's; -ENETUNREACH: no route;
 * -ENODEV: the route leaves from an address no rnic device has); or an
 * error of the call itself (-EINVAL: families that do not match,
 * -EADDRINUSE, -EACCES).
 */
int rnic_cm_resolve_addr(struct rnic_cm_id *id,
			 const struct sockaddr_storage *src,
			 const struct sockaddr_storage *dst)
{
	struct net *net = id->file->net;
	struct sockaddr_storage s;
	struct rnic_dev *rdev;
	u8 sgid[16], dgid[16];
	int ret, index;

	if (src->ss_family != AF_UNSPEC)
		s = *src;
	else if (id->bound)
		s = id->src;
	else
		s = (struct sockaddr_storage){ .ss_family = dst->ss_family };
	if (s.ss_family != dst->ss_family)
		return -EINVAL;
	rnic_cm_addr_gid(dst, dgid);

	if (rnic_cm_addr_any(&s)) {
		u16 port = rnic_cm_port(&s);

		rdev = rnic_cm_gid_dev_get(net, dgid);
		if (rdev) {
			/* local: from the destination's own address */
			memcpy(sgid, dgid, 16);
			put_device(&rdev->dev);
			rnic_cm_gid_addr(sgid, port, &s);
		} else {
			ret = rnic_cm_route_src(net, dst, &s);
			if (ret)
				return ret;
			rnic_cm_set_port(&s, port);
		}
	}
	rnic_cm_addr_gid(&s, sgid);
	rdev = rnic_cm_gid_dev_get(net, sgid);
	if (!rdev)
		return src->ss_family == AF_UNSPEC ? -ENODEV : -EADDRNOTAVAIL;
	index = rnic_cm_gid_index(rdev, sgid);
	if (index < 0) {
		put_device(&rdev->dev);
		return index;
	}
	if (id->bound) {
		/* a wildcard bind becomes the address the route picked */
		u16 port = rnic_cm_port(&id->src);

		id->src = s;
		rnic_cm_set_port(&id->src, port);
	} else {
		rnic_cm_set_port(&s, 0);
		ret = rnic_cm_bind(id, &s);
		if (ret) {
			put_device(&rdev->dev);
			return ret;
		}
	}
	rnic_cm_set_dev(id, rdev);
	put_device(&rdev->dev);
	id->dst = *dst;
	id->av.sgid_index = index;
	memcpy(id->av.sgid, sgid, 16);
	memcpy(id->av.dgid, dgid, 16);
	return 0;
}

/**
 * rnic_cm_path() - make the id's path to a GID
 * @id: an id on a device, @id->av.sgid_index its source GID's index
 * @dgid: the peer's GID
 * @hop_limit: hop limit / TTL
 * @traffic_class: traffic class / TOS
 * @flow_label: IPv6 flow label
 *
 * The path MTU is the port's active MTU.
 *
 * Context: rnic_cm_lock held.
 * Return: 0, or rnic_av_from_attr()'s error (-ENETUNREACH: no route).
 */
int rnic_cm_path(struct rnic_cm_id *id, const u8 *dgid, u8 hop_limit,
		 u8 traffic_class, u32 flow_label)
{
	struct rnic_dev *rdev = id->rdev;
	struct rnic_ah_attr attr = {
		.sgid_index = id->av.sgid_index,
		.hop_limit = hop_limit,
		.traffic_class = traffic_class,
		.flow_label = flow_label & GENMASK(19, 0),
		.is_global = 1,
		.port_num = 1,
	};
	u32 netdev_mtu;
	int ret;

	memcpy(attr.dgid, dgid, sizeof(attr.dgid));
	ret = rnic_av_from_attr(rdev, &attr, &id->av);
	if (ret)
		return ret;
	spin_lock_bh(&rdev->port.lock);
	netdev_mtu = rdev->port.netdev_mtu;
	spin_unlock_bh(&rdev->port.lock);
	id->mtu = rnic_mtu_enum(rnic_active_mtu(netdev_mtu));
	return 0;
}

/**
 * rnic_cm_resolve_route() - the path of an id whose address is resolved
 * @id: the id
 *
 * Context: rnic_cm_lock held.
 * Return: 0, or -errno for ROUTE_ERROR.
 */
int rnic_cm_resolve_route(struct rnic_cm_id *id)
{
	if (!READ_ONCE(id->rdev->live))
		return -ENODEV;
	return rnic_cm_path(id, id->av.dgid, 64, id->tos, 0);
}

/* Is @addr a multicast address? */
static bool rnic_cm_addr_mcast(const struct sockaddr_storage *addr)
{
	if (addr->ss_family == AF_INET)
		return ipv4_is_multicast(((const struct sockaddr_in *)addr)->sin_addr.s_addr);
	return ipv6_addr_is_multicast(&((const struct sockaddr_in6 *)addr)->sin6_addr);
}

static struct rnic_cm_mc *rnic_cm_mc_find(struct rnic_cm_id *id,
					  const u8 *gid)
{
	struct rnic_cm_mc *mc;

	list_for_each_entry(mc, &id->mcs, node)
		if (!memcmp(mc->gid, gid, 16))
			return mc;
	return NULL;
}

/**
 * rnic_cm_join() - join a UD id to a multicast group
 * @id: the id
 * @addr: the group's address, checked as an address
 * @uid: what the MULTICAST_JOIN event carries
 *
 * RoCE has no subnet administrator to ask: the group's GID is its
 * address as a GID, and MULTICAST_JOIN is queued at once with the
 * address userspace attaches its QP to and sends to.
 *
 * Context: rnic_cm_lock held.
 * Return: 0, -EINVAL (not a UD id on a device, not a group of its
 * family), -EADDRINUSE (joined already), -ENOSPC, -ENOMEM.
 */
int rnic_cm_join(struct rnic_cm_id *id, const struct sockaddr_storage *addr,
		 u64 uid)
{
	struct rnic_cm_event *ev;
	struct rnic_ah_attr *ah;
	struct rnic_cm_mc *mc;
	u8 gid[16];

	if (id->qp_type != RNIC_QPT_UD || !id->rdev ||
	    addr->ss_family != id->src.ss_family || !rnic_cm_addr_mcast(addr))
		return -EINVAL;
	rnic_cm_addr_gid(addr, gid);
	if (rnic_cm_mc_find(id, gid))
		return -EADDRINUSE;
	if (id->nmcs >= RNIC_CM_MC_MAX)
		return -ENOSPC;
	mc = kzalloc(sizeof(*mc), GFP_KERNEL_ACCOUNT);
	ev = rnic_cm_event_alloc(id, RNIC_CM_EVENT_MULTICAST_JOIN, 0);
	if (!mc || !ev) {
		kfree(mc);
		if (ev)
			rnic_cm_id_put(ev->id);
		kfree(ev);
		return -ENOMEM;
	}
	memcpy(mc->gid, gid, 16);
	list_add_tail(&mc->node, &id->mcs);
	id->nmcs++;

	ev->desc.out_uid = uid;
	ev->desc.out_ud.qp_num = RNIC_QPN_MCAST;
	ev->desc.out_ud.qkey = RNIC_CM_UDP_QKEY;
	ah = &ev->desc.out_ud.ah_attr;
	memcpy(ah->dgid, gid, 16);
	ah->sgid_index = id->av.sgid_index;
	ah->hop_limit = 1;
	ah->traffic_class = id->tos;
	ah->is_global = 1;
	ah->port_num = 1;
	rnic_cm_event_queue(ev);
	return 0;
}

/**
 * rnic_cm_leave() - leave a group
 * @id: the id
 * @addr: the group's address
 *
 * Context: rnic_cm_lock held.
 * Return: 0 or -EADDRNOTAVAIL (not joined).
 */
int rnic_cm_leave(struct rnic_cm_id *id, const struct sockaddr_storage *addr)
{
	struct rnic_cm_mc *mc;
	u8 gid[16];

	rnic_cm_addr_gid(addr, gid);
	mc = rnic_cm_mc_find(id, gid);
	if (!mc)
		return -EADDRNOTAVAIL;
	list_del(&mc->node);
	id->nmcs--;
	kfree(mc);
	return 0;
}

/* Context: rnic_cm_lock held. */
void rnic_cm_leave_all(struct rnic_cm_id *id)
{
	struct rnic_cm_mc *mc, *next;

	list_for_each_entry_safe(mc, next, &id->mcs, node)
		kfree(mc);
	INIT_LIST_HEAD(&id->mcs);
	id->nmcs = 0;
}
