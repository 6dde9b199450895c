// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * CM ids: creation and destruction, addresses, routes, listening, options
 * and moving an id to another channel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"

/* What the kernel's QUERY says, into the id's struct rdma_cm_id. */
static void cm_route_from_query(struct cm_id *cid,
				const struct rnic_cm_query *q)
{
	struct rdma_route *route = &cid->id.route;
	struct ibv_sa_path_rec *path = &cid->path;

	memcpy(&route->addr.src_storage, &q->out_src_addr,
	       sizeof(route->addr.src_storage));
	memcpy(&route->addr.dst_storage, &q->out_dst_addr,
	       sizeof(route->addr.dst_storage));
	memcpy(route->addr.addr.ibaddr.sgid.raw, q->out_sgid, 16);
	memcpy(route->addr.addr.ibaddr.dgid.raw, q->out_dgid, 16);
	route->addr.addr.ibaddr.pkey = htons(q->out_pkey);
	cid->id.port_num = q->out_port_num;

	route->num_paths = q->out_num_paths;
	if (!q->out_num_paths) {
		route->path_rec = NULL;
		return;
	}
	memset(path, 0, sizeof(*path));
	memcpy(path->dgid.raw, q->out_dgid, 16);
	memcpy(path->sgid.raw, q->out_sgid, 16);
	path->flow_label = htonl(q->out_flow_label);
	path->hop_limit = q->out_hop_limit;
	path->traffic_class = q->out_traffic_class;
	path->reversible = 1;
	path->numb_path = 1;
	path->pkey = htons(q->out_pkey);
	path->sl = q->out_sl;
	/* selector 2: exactly this value (IBTA 15.2.5.16) */
	path->mtu_selector = 2;
	path->mtu = q->out_mtu;
	path->rate_selector = 2;
	path->rate = q->out_rate;
	path->packet_life_time_selector = 2;
	path->packet_life_time = q->out_packet_life_time;
	route->path_rec = path;
}

/*
 * Refreshes the id from the kernel: addresses, route and, once it is
 * bound to a device, the device's verbs context (opened on first use) and
 * its PD: as with librdmacm, a bound id's pd is the device's shared one
 * from then on (until a QP of the id is made in another), so that an
 * application can register memory and make AHs and QPs with id->pd right
 * after rdma_bind_addr() or rdma_resolve_addr().
 */
int cm_query(struct cm_id *cid)
{
	struct rnic_cm_query q;

	CM_CMD_INIT(q, cid);
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_QUERY, &q))
		return -1;
	q.out_dev_name[sizeof(q.out_dev_name) - 1] = '\0';
	if (q.out_dev_name[0] && !cid->dev) {
		cid->dev = cm_device_get(q.out_dev_name);
		if (!cid->dev)
			return -1;
		cid->id.verbs = cid->dev->verbs;
		cid->id.pd = cm_device_pd(cid->dev);
		if (!cid->id.pd)
			return -1;
	}
	cm_route_from_query(cid, &q);
	return 0;
}

/* The QP type a port space implies, as librdmacm chooses it. */
static enum ibv_qp_type cm_ps_qp_type(enum rdma_port_space ps)
{
	return ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB ? IBV_QPT_UD :
		IBV_QPT_RC;
}

int rdma_create_id(struct rdma_event_channel *channel,
		   struct rdma_cm_id **id, void *context,
		   enum rdma_port_space ps)
{
	struct rdma_event_channel *own = NULL;
	struct cm_id *cid;

	if (!id) {
		errno = EINVAL;
		return -1;
	}
	/* No channel: the id is synchronous, on a private channel. */
	if (!channel) {
		own = rdma_create_event_channel();
		if (!own)
			return -1;
		channel = own;
	}
	cid = cm_id_new(channel, context, ps, cm_ps_qp_type(ps));
	if (!cid) {
		rdma_destroy_event_channel(own);
		return -1;
	}
	cid->sync = own != NULL;
	cm_table_add(cid);
	*id = &cid->id;
	return 0;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	struct rnic_cm_destroy_id cmd;
	struct cm_id *cid;

	cid = cm_id_arg(id);
	if (!cid)
		return -1;
	cm_drop_sync_event(cid);
	CM_CMD_INIT(cmd, cid);
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_DESTROY_ID, &cmd))
		return -1;
	cm_table_del(cid);
	cm_wait_events(cid, cmd.out_events_reported);
	/* The kernel left the groups with the id. */
	cm_mc_free_all(cid);
	if (cid->sync)
		rdma_destroy_event_channel(id->channel);
	cm_id_free(cid);
	return 0;
}

socklen_t cm_addr_len(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return 0;
	}
}

/* @addr into the kernel's form; -1 (EAFNOSUPPORT) for another family. */
static int cm_addr_to_kern(struct rnic_cm_sockaddr *k,
			   const struct sockaddr *addr)
{
	socklen_t len;

	memset(k, 0, sizeof(*k));
	if (!addr)
		return 0;
	len = cm_addr_len(addr);
	if (!len) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	memcpy(k, addr, len);
	return 0;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rnic_cm_bind_addr cmd;
	struct cm_id *cid;

	if (!id || !addr) {
		errno = EINVAL;
		return -1;
	}
	cid = to_cm_id(id);
	CM_CMD_INIT(cmd, cid);
	if (cm_addr_to_kern(&cmd.addr, addr))
		return -1;
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_BIND_ADDR, &cmd))
		return -1;
	return cm_query(cid);
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      struct sockaddr *dst_addr, int timeout_ms)
{
	struct rnic_cm_resolve_addr cmd;
	struct cm_id *cid;

	if (!id || !dst_addr || timeout_ms < 0) {
		errno = EINVAL;
		return -1;
	}
	cid = to_cm_id(id);
	CM_CMD_INIT(cmd, cid);
	cmd.timeout_ms = (uint32_t)timeout_ms;
	if (cm_addr_to_kern(&cmd.src_addr, src_addr) ||
	    cm_addr_to_kern(&cmd.dst_addr, dst_addr))
		return -1;
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_RESOLVE_ADDR, &cmd))
		return -1;
	/* The destination is known now, as librdmacm shows it at once. */
	memcpy(&id->route.addr.dst_storage, &cmd.dst_addr,
	       sizeof(id->route.addr.dst_storage));
	return cm_sync_wait(cid, RDMA_CM_EVENT_ADDR_RESOLVED);
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct rnic_cm_resolve_route cmd;
	struct cm_id *cid;

	if (!id || timeout_ms < 0) {
		errno = EINVAL;
		return -1;
	}
	cid = to_cm_id(id);
	CM_CMD_INIT(cmd, cid);
	cmd.timeout_ms = (uint32_t)timeout_ms;
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_RESOLVE_ROUTE, &cmd))
		return -1;
	return cm_sync_wait(cid, RDMA_CM_EVENT_ROUTE_RESOLVED);
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rnic_cm_listen cmd;
	struct cm_id *cid;

	cid = cm_id_arg(id);
	if (!cid)
		return -1;
	CM_CMD_INIT(cmd, cid);
	cmd.backlog = backlog;
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_LISTEN, &cmd))
		return -1;
	/* An unbound id was bound by listening: show its port. */
	return cm_query(cid);
}

/* The kernel's value of an RDMA_OPTION_ID option, checking its size. */
static int cm_option_value(int optname, const void *optval, size_t optlen,
			   __u64 *value)
{
	int ival;

	switch (optname) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(uint8_t))
			break;
		*value = *(const uint8_t *)optval;
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(int))
			break;
		memcpy(&ival, optval, sizeof(ival));
		*value = ival ? 1 : 0;
		return 0;
	default:
		errno = ENOSYS;
		return -1;
	}
	errno = EINVAL;
	return -1;
}

int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
		    void *optval, size_t optlen)
{
	struct rnic_cm_set_option cmd;
	struct cm_id *cid;

	if (!id || !optval) {
		errno = EINVAL;
		return -1;
	}
	/* RDMA_OPTION_IB_PATH: RoCE paths are the kernel's to make. */
	if (level != RDMA_OPTION_ID) {
		errno = level == RDMA_OPTION_IB ? EOPNOTSUPP : ENOSYS;
		return -1;
	}
	cid = to_cm_id(id);
	CM_CMD_INIT(cmd, cid);
	cmd.level = RNIC_CM_OPTION_ID;
	cmd.optname = (uint32_t)optname;
	if (cm_option_value(optname, optval, optlen, &cmd.value))
		return -1;
	return cm_ioctl(cid->fd, RNIC_CM_IOCTL_SET_OPTION, &cmd);
}

/*
 * Moves the id to @channel (NULL: a new private one, making the id
 * synchronous). With @wait, first waits until the events the old channel
 * handed out are acknowledged.
 */
int cm_migrate(struct cm_id *cid, struct rdma_event_channel *channel,
	       bool wait)
{
	struct rdma_event_channel *old = cid->id.channel, *own = NULL;
	struct rnic_cm_migrate_id cmd;
	bool was_sync = cid->sync;

	if (!channel) {
		own = rdma_create_event_channel();
		if (!own)
			return -1;
		channel = own;
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.fd = old->fd;
	cmd.id = cid->handle;
	if (cm_ioctl(channel->fd, RNIC_CM_IOCTL_MIGRATE_ID, &cmd)) {
		rdma_destroy_event_channel(own);
		return -1;
	}
	cm_table_del(cid);
	cid->handle = cmd.out_id;
	cid->id.channel = channel;
	cid->sync = own != NULL;
	cm_table_add(cid);
	/* The event a synchronous call kept counts among those awaited. */
	if (was_sync)
		cm_drop_sync_event(cid);
	if (wait)
		cm_wait_events(cid, cmd.out_events_reported);
	if (was_sync)
		rdma_destroy_event_channel(old);
	return 0;
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	if (!id) {
		errno = EINVAL;
		return -1;
	}
	return cm_migrate(to_cm_id(id), channel, true);
}

static __be16 cm_port(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)addr)->sin_port;
	case AF_INET6:
		return ((const struct sockaddr_in6 *)addr)->sin6_port;
	default:
		return 0;
	}
}

__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return cm_port(&id->route.addr.src_addr);
}

__be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return cm_port(&id->route.addr.dst_addr);
}
