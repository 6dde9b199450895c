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

/* ::ffff:0:0/96, the IPv4-mapped GIDs of RoCEv2 over IPv4 */
static const u8 rnic_v4mapped_prefix[12] = { [10] = 0xff, [11] = 0xff };

static bool rnic_gid_is_v4mapped(const u8 *gid)
{
	return !memcmp(gid, rnic_v4mapped_prefix, sizeof(rnic_v4mapped_prefix));
}

static bool rnic_rate_valid(u8 rate)
{
	return rate != RNIC_RATE_UNUSED && rate <= RNIC_RATE_LAST;
}

/**
 * rnic_av_from_attr() - validate an address and resolve its source GID
 * @rdev: the device whose port 1 the address leaves from
 * @attr: the address, a kernel copy (read once by the caller)
 * @av: filled on success
 *
 * Checks every rule of struct rnic_create_ah, then copies the source GID
 * from the GID table. Source and destination must be of one IP family:
 * both IPv4-mapped (RoCEv2 over IPv4) or neither.
 *
 * Context: process or softirq; takes the port lock.
 * Return: 0 or -EINVAL.
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
	return 0;
}

static void rnic_ah_destroy(struct rnic_uobj *uobj)
{
	struct rnic_ah *ah = container_of(uobj, struct rnic_ah, uobj);

	rnic_uobj_put(&ah->pd->uobj);
}

int rnic_create_ah(struct rnic_ucmd *ucmd)
{
	struct rnic_create_ah *cmd = ucmd->cmd;
	struct rnic_uobj *pd_uobj;
	struct rnic_ah *ah;
	struct rnic_av av;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	ret = rnic_av_from_attr(ucmd->ctx->dev, &cmd->attr, &av);
	if (ret)
		return ret;
	pd_uobj = rnic_uobj_get(ucmd->ctx, cmd->pd_handle, RNIC_OBJ_PD);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);

	ah = rnic_uobj_alloc(ucmd->ctx, RNIC_OBJ_AH, sizeof(*ah),
			     rnic_ah_destroy);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto err_put_pd;
	}
	ah->pd = container_of(pd_uobj, struct rnic_pd, uobj);
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
	rnic_uobj_put(pd_uobj);
	return ret;
}

int rnic_destroy_ah(struct rnic_ucmd *ucmd)
{
	struct rnic_destroy *cmd = ucmd->cmd;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	return rnic_uobj_destroy(ucmd->ctx, cmd->handle, RNIC_OBJ_AH);
}
