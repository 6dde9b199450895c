// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - address handles, and the validation of the
 * addresses (struct rnic_ah_attr) they hold.
 *
 * rnic's link layer is Ethernet and every GID is a RoCEv2 GID, so an
 * address is always global: a destination GID plus the GRH fields, and a
 * source GID taken from the port's table. LIDs and path bits do not exist
 * (the port's LMC is 0) and must be 0.
 */
#include "verbs/verbs.h"

/* IB service levels are 4 bits; IPv6 flow labels 20. */
#define RNIC_MAX_SL		15
#define RNIC_FLOW_LABEL_MASK	0xfffff

/* enum ibv_rate: 0 (no limit) and 2 .. 24 (IBV_RATE_1200_GBPS); 1 is unused. */
#define RNIC_RATE_UNUSED	1
#define RNIC_RATE_LAST		24

static bool rnic_rate_valid(u8 rate)
{
	return rate != RNIC_RATE_UNUSED && rate <= RNIC_RATE_LAST;
}

/*
 * The route of @av from @rdev: a multicast group of the device, a device
 * of its namespace that owns the destination GID, or else the wire, if
 * the device is bound and the kernel routes the destination through its
 * netdev (rnic_udp_reaches()).
 */
static int rnic_av_route(struct rnic_dev *rdev, struct rnic_av *av)
{
	bool local;

	if (rnic_gid_is_mcast(av->dgid)) {
		av->route = RNIC_ROUTE_MCAST;
		return 0;
	}
	rcu_read_lock();
	local = rnic_gid_dev(rnic_dev_net(rdev), av->dgid);
	rcu_read_unlock();
	if (local) {
		av->route = RNIC_ROUTE_LOCAL;
		return 0;
	}
	av->route = RNIC_ROUTE_WIRE;
	return rnic_udp_reaches(rdev, av);
}

/**
 * rnic_av_from_attr() - validate an address, resolve its source GID and
 *	choose its route
 * @rdev: the device whose port 1 the address leaves from
 * @attr: the address, a kernel copy (read once by the caller)
 * @av: filled on success
 *
 * Checks every rule of struct rnic_create_ah, then copies the source GID
 * from the GID table. Source and destination must be of one IP family:
 * both IPv4-mapped (RoCEv2 over IPv4) or neither. The route (enum
 * rnic_route) is chosen here, once for the address's life.
 *
 * Context: process or softirq; takes the port lock.
 * Return: 0, -EINVAL, or -ENETUNREACH: no rnic device of @rdev's namespace
 * owns the destination GID (a unicast one), and @rdev is not bound or
 * the kernel's route to it does not leave through its netdev.
 */
int rnic_av_from_attr(struct rnic_dev *rdev, const struct rnic_ah_attr *attr,
		      struct rnic_av *av)
{
	struct rnic_port *port = &rdev->port;
	bool valid;

	if (attr->port_num != 1 || attr->is_global != 1 || attr->dlid ||
	    attr->src_path_bits || attr->sl > RNIC_MAX_SL ||
	    attr->flow_label & ~RNIC_FLOW_LABEL_MASK ||
	    !rnic_rate_valid(attr->static_rate) || attr->__reserved ||
	    attr->sgid_index >= RNIC_GID_TABLE_LEN)
		return -EINVAL;

	spin_lock_bh(&port->lock);
	valid = port->gids[attr->sgid_index].valid;
	if (valid)
		memcpy(av->sgid, port->gids[attr->sgid_index].raw,
		       sizeof(av->sgid));
	spin_unlock_bh(&port->lock);
	if (!valid)
		return -EINVAL;

	av->ipv4 = rnic_gid_is_v4mapped(av->sgid);
	if (av->ipv4 != rnic_gid_is_v4mapped(attr->dgid))
		return -EINVAL;
	memcpy(av->dgid, attr->dgid, sizeof(av->dgid));
	av->flow_label = attr->flow_label;
	av->sgid_index = attr->sgid_index;
	av->hop_limit = attr->hop_limit;
	av->traffic_class = attr->traffic_class;
	av->sl = attr->sl;
	av->static_rate = attr->static_rate;
	return rnic_av_route(rdev, av);
}

static void rnic_ah_destroy(struct rnic_uobj *uobj)
{
	struct rnic_ah *ah = container_of(uobj, struct rnic_ah, uobj);

	rnic_uobj_put(&ah->pd->uobj);
}

int rnic_create_ah(struct rnic_ucmd *ucmd)
{
	struct rnic_create_ah *cmd = ucmd->cmd;
	struct rnic_pd *pd;
	struct rnic_ah *ah;
	struct rnic_av av;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	ret = rnic_av_from_attr(ucmd->ctx->dev, &cmd->attr, &av);
	if (ret)
		return ret;
	pd = rnic_pd_get(ucmd->ctx, cmd->pd_handle);
	if (IS_ERR(pd))
		return PTR_ERR(pd);

	ah = rnic_uobj_alloc(ucmd->ctx, RNIC_OBJ_AH, sizeof(*ah),
			     rnic_ah_destroy);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto err_put_pd;
	}
	ah->pd = pd;
	ah->av = av;

	cmd->out_handle = ah->uobj.handle;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_abort;

	rnic_uobj_finalize(&ah->uobj);
	return 0;

err_abort:
	rnic_uobj_abort(&ah->uobj);
err_put_pd:
	rnic_uobj_put(&pd->uobj);
	return ret;
}

int rnic_destroy_ah(struct rnic_ucmd *ucmd)
{
	struct rnic_destroy *cmd = ucmd->cmd;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	return rnic_uobj_destroy(ucmd->ctx, cmd->handle, RNIC_OBJ_AH);
}
