// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the "rnic" generic netlink family: create,
 * remove and list devices. The contract is in
 * include/uapi/rdma/rnic-netlink.h.
 */
#include <linux/pid_namespace.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "rnic.h"

/* Ranges are checked by the handler, for clearer messages. */
static const struct nla_policy rnic_nl_fault_policy[RNIC_NL_FAULT_MAX + 1] = {
	[RNIC_NL_FAULT_DROP] = { .type = NLA_U32 },
	[RNIC_NL_FAULT_DUPLICATE] = { .type = NLA_U32 },
	[RNIC_NL_FAULT_CORRUPT] = { .type = NLA_U32 },
	[RNIC_NL_FAULT_DELAY] = { .type = NLA_U32 },
	[RNIC_NL_FAULT_DELAY_US] = { .type = NLA_U32 },
	[RNIC_NL_FAULT_RNR] = { .type = NLA_U32 },
	[RNIC_NL_FAULT_REM_ACCESS] = { .type = NLA_U32 },
	[RNIC_NL_FAULT_RETRY_EXC] = { .type = NLA_U32 },
};

static const struct nla_policy rnic_nl_policy[RNIC_NL_ATTR_MAX + 1] = {
	/* Lengths are checked by the handlers, for clearer messages. */
	[RNIC_NL_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING },
	[RNIC_NL_ATTR_NETDEV] = { .type = NLA_NUL_STRING },
	[RNIC_NL_ATTR_MAX_BURST] = { .type = NLA_U32 },
	[RNIC_NL_ATTR_FAULT] = NLA_POLICY_NESTED(rnic_nl_fault_policy),
};

static struct genl_family rnic_nl_family;

static int rnic_nl_put_gids(struct sk_buff *msg,
			    const struct rnic_dev_info *info)
{
	struct nlattr *table, *entry;
	u32 i;

	table = nla_nest_start(msg, RNIC_NL_ATTR_GID_TABLE);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < RNIC_GID_TABLE_LEN; i++) {
		if (!info->gids[i].valid)
			continue;
		entry = nla_nest_start(msg, RNIC_NL_ATTR_GID_ENTRY);
		if (!entry ||
		    nla_put_u32(msg, RNIC_NL_ATTR_GID_INDEX, i) ||
		    nla_put(msg, RNIC_NL_ATTR_GID, sizeof(info->gids[i].raw),
			    info->gids[i].raw))
			return -EMSGSIZE;
		nla_nest_end(msg, entry);
	}
	nla_nest_end(msg, table);
	return 0;
}

static int rnic_nl_put_fault(struct sk_buff *msg,
			     const struct rnic_dev_info *info)
{
	struct nlattr *nest;
	u32 i;

	nest = nla_nest_start(msg, RNIC_NL_ATTR_FAULT);
	if (!nest)
		return -EMSGSIZE;
	for (i = RNIC_NL_FAULT_UNSPEC + 1; i <= RNIC_NL_FAULT_MAX; i++)
		if (nla_put_u32(msg, i, info->fault[i]))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int rnic_nl_put_link(struct sk_buff *msg,
			    const struct rnic_dev_info *info,
			    u32 portid, u32 seq, int flags)
{
	char uverbs[16];
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &rnic_nl_family, flags,
			  RNIC_NL_CMD_LINK_GET);
	if (!hdr)
		return -EMSGSIZE;

	snprintf(uverbs, sizeof(uverbs), "uverbs%u", info->uverbs_num);
	if (nla_put_string(msg, RNIC_NL_ATTR_DEV_NAME, info->name) ||
	    nla_put_u32(msg, RNIC_NL_ATTR_DEV_INDEX, info->index) ||
	    nla_put_string(msg, RNIC_NL_ATTR_UVERBS, uverbs) ||
	    nla_put_be64(msg, RNIC_NL_ATTR_NODE_GUID, info->node_guid,
			 RNIC_NL_ATTR_PAD) ||
	    nla_put_u32(msg, RNIC_NL_ATTR_PORT_INDEX, 1) ||
	    nla_put_u8(msg, RNIC_NL_ATTR_PORT_STATE, info->state) ||
	    nla_put_u8(msg, RNIC_NL_ATTR_PORT_PHYS_STATE,
		       rnic_port_phys_state(info->state)) ||
	    nla_put_u32(msg, RNIC_NL_ATTR_ACTIVE_MTU, info->active_mtu) ||
	    nla_put_u32(msg, RNIC_NL_ATTR_CONTEXTS, info->contexts))
		goto err_cancel;
	if (info->netdev_ifindex &&
	    (nla_put_string(msg, RNIC_NL_ATTR_NETDEV, info->netdev_name) ||
	     nla_put_u32(msg, RNIC_NL_ATTR_NETDEV_INDEX,
			 info->netdev_ifindex) ||
	     nla_put_u32(msg, RNIC_NL_ATTR_NETDEV_MTU, info->netdev_mtu)))
		goto err_cancel;
	if (info->max_burst &&
	    nla_put_u32(msg, RNIC_NL_ATTR_MAX_BURST, info->max_burst))
		goto err_cancel;
	if (rnic_nl_put_fault(msg, info) || rnic_nl_put_gids(msg, info))
		goto err_cancel;
	genlmsg_end(msg, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

static const char *rnic_nl_dev_name(struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, RNIC_NL_ATTR_DEV_NAME))
		return NULL;
	return nla_data(info->attrs[RNIC_NL_ATTR_DEV_NAME]);
}

/* One device's LINK_GET answer; rnic_devs_lock held. */
static int rnic_nl_fill_link(struct sk_buff *msg, struct rnic_dev *rdev,
			     u32 portid, u32 seq, int flags)
{
	struct rnic_dev_info *info;
	int ret;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	rnic_dev_info(rdev, info);
	ret = rnic_nl_put_link(msg, info, portid, seq, flags);
	kfree(info);
	return ret;
}

/* Fills one device's answer; rnic_devs_lock held. */
typedef int (*rnic_nl_fill_t)(struct sk_buff *msg, struct rnic_dev *rdev,
			      u32 portid, u32 seq, int flags);

/* A GET of the device named by DEV_NAME: @fill's answer, in @size bytes. */
static int rnic_nl_dev_doit(struct genl_info *info, rnic_nl_fill_t fill,
			    size_t size)
{
	struct rnic_dev *rdev;
	struct sk_buff *msg;
	const char *name;
	int ret;

	name = rnic_nl_dev_name(info);
	if (!name)
		return -EINVAL;
	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&rnic_devs_lock);
	rdev = rnic_dev_find(genl_info_net(info), name);
	ret = rdev ? fill(msg, rdev, info->snd_portid, info->snd_seq, 0) :
		     -ENODEV;
	mutex_unlock(&rnic_devs_lock);
	if (ret) {
		nlmsg_free(msg);
		if (ret == -ENODEV)
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[RNIC_NL_ATTR_DEV_NAME],
					    "no such rnic device");
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/*
 * A GET dump: @fill's answer for every device of the reader's namespace,
 * from cb->args[0] (the device index to resume at) on.
 */
static int rnic_nl_dev_dumpit(struct sk_buff *skb,
			      struct netlink_callback *cb, rnic_nl_fill_t fill)
{
	unsigned long index = cb->args[0];
	struct rnic_dev *rdev;
	int ret = 0;

	mutex_lock(&rnic_devs_lock);
	while ((rdev = rnic_dev_next(sock_net(skb->sk), &index))) {
		ret = fill(skb, rdev, NETLINK_CB(cb->skb).portid,
			   cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
		index++;
	}
	mutex_unlock(&rnic_devs_lock);

	cb->args[0] = index;
	/* A full skb ends this round; the next one resumes at index. */
	if (ret == -EMSGSIZE && skb->len)
		ret = 0;
	return ret ?: skb->len;
}

static int rnic_nl_link_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return rnic_nl_dev_doit(info, rnic_nl_fill_link, NLMSG_GOODSIZE);
}

static int rnic_nl_link_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return rnic_nl_dev_dumpit(skb, cb, rnic_nl_fill_link);
}

static int rnic_nl_link_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *netdev_attr = info->attrs[RNIC_NL_ATTR_NETDEV];
	const struct nlattr *burst_attr = info->attrs[RNIC_NL_ATTR_MAX_BURST];
	u32 max_burst = burst_attr ? nla_get_u32(burst_attr) : 0;
	const char *ifname = NULL;
	const char *name;

	name = rnic_nl_dev_name(info);
	if (!name)
		return -EINVAL;
	if (netdev_attr) {
		ifname = nla_data(netdev_attr);
		if (!*ifname || strnlen(ifname, IFNAMSIZ) >= IFNAMSIZ) {
			NL_SET_ERR_MSG_ATTR(info->extack, netdev_attr,
					    "bad netdev name");
			return -EINVAL;
		}
	}
	return rnic_dev_add(name, genl_info_net(info), ifname, max_burst,
			    info->extack);
}

static int rnic_nl_link_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	const char *name = rnic_nl_dev_name(info);

	if (!name)
		return -EINVAL;
	return rnic_dev_del(genl_info_net(info), name, info->extack);
}

/* Is fault setting @type's value @val in its range? 0 or -EINVAL. */
static int rnic_nl_check_fault(u32 type, u32 val, const struct nlattr *attr,
			       struct netlink_ext_ack *extack)
{
	switch (type) {
	case RNIC_NL_FAULT_DELAY_US:
		if (val <= RNIC_FAULT_DELAY_US_MAX)
			return 0;
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "fault delay above 1000000 us (1 s)");
		return -EINVAL;
	case RNIC_NL_FAULT_RNR:
	case RNIC_NL_FAULT_REM_ACCESS:
	case RNIC_NL_FAULT_RETRY_EXC:
		if (val <= INT_MAX)
			return 0;
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "fault count above 2147483647");
		return -EINVAL;
	default:
		if (val <= RNIC_FAULT_PPM_MAX)
			return 0;
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "fault rate above 1000000 ppm (100%)");
		return -EINVAL;
	}
}

/*
 * The settings of a FAULT nest into @fault (indexed by enum
 * rnic_nl_fault), with a bit per setting it holds in *@mask.
 * Return: 0, or -EINVAL for a value out of range or no setting at all.
 */
static int rnic_nl_parse_fault(struct genl_info *info, u32 *fault, u32 *mask)
{
	const struct nlattr *nest = info->attrs[RNIC_NL_ATTR_FAULT];
	struct nlattr *tb[RNIC_NL_FAULT_MAX + 1];
	u32 i;
	int ret;

	*mask = 0;
	if (GENL_REQ_ATTR_CHECK(info, RNIC_NL_ATTR_FAULT))
		return -EINVAL;
	ret = nla_parse_nested(tb, RNIC_NL_FAULT_MAX, nest,
			       rnic_nl_fault_policy, info->extack);
	if (ret)
		return ret;
	for (i = RNIC_NL_FAULT_UNSPEC + 1; i <= RNIC_NL_FAULT_MAX; i++) {
		if (!tb[i])
			continue;
		fault[i] = nla_get_u32(tb[i]);
		ret = rnic_nl_check_fault(i, fault[i], tb[i], info->extack);
		if (ret)
			return ret;
		*mask |= BIT(i);
	}
	if (!*mask) {
		NL_SET_ERR_MSG_ATTR(info->extack, nest, "no fault setting given");
		return -EINVAL;
	}
	return 0;
}

static int rnic_nl_link_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 fault[RNIC_NL_FAULT_MAX + 1] = {};
	struct rnic_dev *rdev;
	const char *name;
	u32 mask;
	int ret;

	name = rnic_nl_dev_name(info);
	if (!name)
		return -EINVAL;
	ret = rnic_nl_parse_fault(info, fault, &mask);
	if (ret)
		return ret;
	mutex_lock(&rnic_devs_lock);
	rdev = rnic_dev_find(genl_info_net(info), name);
	if (rdev)
		rnic_dev_set_fault(rdev, fault, mask);
	mutex_unlock(&rnic_devs_lock);
	if (!rdev) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[RNIC_NL_ATTR_DEV_NAME],
				    "no such rnic device");
		return -ENODEV;
	}
	return 0;
}

/* The netlink attribute of each kind of object a context owns. */
static const u16 rnic_nl_res_attr[RNIC_OBJ_MAX] = {
	[RNIC_OBJ_PD] = RNIC_NL_ATTR_RES_PD,
	[RNIC_OBJ_MR] = RNIC_NL_ATTR_RES_MR,
	[RNIC_OBJ_CHANNEL] = RNIC_NL_ATTR_RES_CHANNEL,
	[RNIC_OBJ_CQ] = RNIC_NL_ATTR_RES_CQ,
	[RNIC_OBJ_SRQ] = RNIC_NL_ATTR_RES_SRQ,
	[RNIC_OBJ_QP] = RNIC_NL_ATTR_RES_QP,
	[RNIC_OBJ_AH] = RNIC_NL_ATTR_RES_AH,
	[RNIC_OBJ_MW] = RNIC_NL_ATTR_RES_MW,
	[RNIC_OBJ_XRCD] = RNIC_NL_ATTR_RES_XRCD,
	[RNIC_OBJ_TGT_QP] = RNIC_NL_ATTR_RES_TGT_QP,
};

static int rnic_nl_put_res(struct sk_buff *msg, const atomic_t *nobjs,
			   s64 pinned)
{
	int type;

	for (type = RNIC_UOBJ_FIRST; type < RNIC_OBJ_MAX; type++)
		if (nla_put_u32(msg, rnic_nl_res_attr[type],
				atomic_read(&nobjs[type])))
			return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, RNIC_NL_ATTR_RES_PINNED, pinned,
			      RNIC_NL_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}

/* Upper bound of one CTX_ENTRY nest. */
#define RNIC_NL_CTX_ENTRY_MAX	256

/*
 * The device's contexts, as many as fit in @msg and in one nest (whose
 * length is 16 bits), then CTX_TRUNCATED if some did not. Only those whose
 * opener the reader's pid namespace sees are listed, with the pid it
 * knows them by. The reader is current: requests and dumps run in the
 * system calls on the reader's socket.
 */
static int rnic_nl_put_contexts(struct sk_buff *msg, struct rnic_dev *rdev)
{
	struct pid_namespace *pid_ns = task_active_pid_ns(current);
	struct nlattr *table, *entry;
	bool truncated = false;
	struct rnic_ctx *ctx;
	pid_t pid;

	table = nla_nest_start(msg, RNIC_NL_ATTR_CTX_TABLE);
	if (!table)
		return -EMSGSIZE;
	mutex_lock(&rdev->ctx_lock);
	list_for_each_entry(ctx, &rdev->contexts, dev_node) {
		pid = pid_nr_ns(ctx->pid, pid_ns);
		if (!pid)
			continue;
		if (skb_tailroom(msg) < RNIC_NL_CTX_ENTRY_MAX + nla_total_size(0) ||
		    skb_tail_pointer(msg) - (unsigned char *)table >
		    U16_MAX - RNIC_NL_CTX_ENTRY_MAX) {
			truncated = true;
			break;
		}
		entry = nla_nest_start(msg, RNIC_NL_ATTR_CTX_ENTRY);
		if (!entry ||
		    nla_put_u32(msg, RNIC_NL_ATTR_CTX_ID, ctx->id) ||
		    nla_put_u32(msg, RNIC_NL_ATTR_CTX_PID, pid) ||
		    nla_put_string(msg, RNIC_NL_ATTR_CTX_COMM, ctx->comm) ||
		    rnic_nl_put_res(msg, ctx->nobjs,
				    atomic64_read(&ctx->pinned))) {
			/* Cannot happen with the room checked above. */
			mutex_unlock(&rdev->ctx_lock);
			return -EMSGSIZE;
		}
		nla_nest_end(msg, entry);
	}
	mutex_unlock(&rdev->ctx_lock);
	nla_nest_end(msg, table);
	if (truncated && nla_put_flag(msg, RNIC_NL_ATTR_CTX_TRUNCATED))
		return -EMSGSIZE;
	return 0;
}

/* One device's resources; rnic_devs_lock held, so @rdev is published. */
static int rnic_nl_fill_res(struct sk_buff *msg, struct rnic_dev *rdev,
			    u32 portid, u32 seq, int flags)
{
	void *hdr;

	lockdep_assert_held(&rnic_devs_lock);
	hdr = genlmsg_put(msg, portid, seq, &rnic_nl_family, flags,
			  RNIC_NL_CMD_RES_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(msg, RNIC_NL_ATTR_DEV_NAME, rnic_dev_name(rdev)) ||
	    nla_put_u32(msg, RNIC_NL_ATTR_DEV_INDEX, rdev->index) ||
	    rnic_nl_put_res(msg, rdev->nobjs, atomic64_read(&rdev->pinned)) ||
	    rnic_nl_put_contexts(msg, rdev)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

/* The device's counters; lockless (rnic_dev_counter()). */
static int rnic_nl_put_counters(struct sk_buff *msg, struct rnic_dev *rdev)
{
	struct nlattr *nest;
	u32 i;

	nest = nla_nest_start(msg, RNIC_NL_ATTR_COUNTERS);
	if (!nest)
		return -EMSGSIZE;
	for (i = RNIC_NL_COUNTER_UNSPEC + 1; i <= RNIC_NL_COUNTER_MAX; i++)
		if (nla_put_u64_64bit(msg, i, rnic_dev_counter(rdev, i),
				      RNIC_NL_COUNTER_UNSPEC))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* One device's counters; rnic_devs_lock held, so @rdev is published. */
static int rnic_nl_fill_stat(struct sk_buff *msg, struct rnic_dev *rdev,
			     u32 portid, u32 seq, int flags)
{
	void *hdr;

	lockdep_assert_held(&rnic_devs_lock);
	hdr = genlmsg_put(msg, portid, seq, &rnic_nl_family, flags,
			  RNIC_NL_CMD_STAT_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(msg, RNIC_NL_ATTR_DEV_NAME, rnic_dev_name(rdev)) ||
	    nla_put_u32(msg, RNIC_NL_ATTR_DEV_INDEX, rdev->index) ||
	    nla_put_u32(msg, RNIC_NL_ATTR_PORT_INDEX, 1) ||
	    rnic_nl_put_counters(msg, rdev)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

static int rnic_nl_res_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	/* Room for the largest context table a nest can hold. */
	return rnic_nl_dev_doit(info, rnic_nl_fill_res,
				NLMSG_GOODSIZE + U16_MAX);
}

static int rnic_nl_res_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	return rnic_nl_dev_dumpit(skb, cb, rnic_nl_fill_res);
}

static int rnic_nl_stat_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return rnic_nl_dev_doit(info, rnic_nl_fill_stat, NLMSG_GOODSIZE);
}

static int rnic_nl_stat_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return rnic_nl_dev_dumpit(skb, cb, rnic_nl_fill_stat);
}

/* Fills an object's own attributes: rnic_qp_nl_fill(), ... */
typedef int (*rnic_nl_obj_fill_t)(struct sk_buff *msg,
				  struct rnic_uobj *uobj);

/* Where an object dump is: cb->args[] names, with what they hold. */
enum {
	RNIC_NL_ARG_DEV,	/* index of the device to resume at */
	RNIC_NL_ARG_CTX,	/* id of the context to resume at */
	RNIC_NL_ARG_HANDLE,	/* handle of the object to resume at */
};

/**
 * rnic_nl_dump_msg() - start the next message of a dump
 * @skb: the dump's buffer
 * @cb: the dump
 *
 * The message is of the dumped command, for the reader; the caller puts
 * its attributes and ends it (genlmsg_end()) or cancels it.
 *
 * Return: its header, or NULL when @skb is full.
 */
void *rnic_nl_dump_msg(struct sk_buff *skb, struct netlink_callback *cb)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &rnic_nl_family, NLM_F_MULTI,
			   genl_dumpit_info(cb)->op.cmd);
}

/* One object's message: device, context, then the object's own. */
static int rnic_nl_put_obj(struct sk_buff *skb, struct netlink_callback *cb,
			   struct rnic_ctx *ctx, pid_t pid,
			   struct rnic_uobj *uobj, rnic_nl_obj_fill_t fill)
{
	void *hdr = rnic_nl_dump_msg(skb, cb);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, RNIC_NL_ATTR_DEV_NAME,
			   rnic_dev_name(ctx->dev)) ||
	    nla_put_u32(skb, RNIC_NL_ATTR_DEV_INDEX, ctx->dev->index) ||
	    nla_put_u32(skb, RNIC_NL_ATTR_CTX_ID, ctx->id) ||
	    nla_put_u32(skb, RNIC_NL_ATTR_CTX_PID, pid) ||
	    nla_put_string(skb, RNIC_NL_ATTR_CTX_COMM, ctx->comm) ||
	    fill(skb, uobj)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * The objects of @type of one context from handle cb->args[HANDLE] on.
 * The table is walked under RCU (objects are freed after a grace period,
 * rnic_uobj), so a fill never sleeps and never blocks a destroy.
 */
static int rnic_nl_dump_ctx(struct sk_buff *skb, struct netlink_callback *cb,
			    struct rnic_ctx *ctx, pid_t pid,
			    enum rnic_obj_type type, rnic_nl_obj_fill_t fill)
{
	unsigned long handle = cb->args[RNIC_NL_ARG_HANDLE];
	struct rnic_uobj *uobj;
	int ret = 0;

	rcu_read_lock();
	xa_for_each_start(&ctx->objs, handle, uobj, handle) {
		if (uobj->type != type)
			continue;
		ret = rnic_nl_put_obj(skb, cb, ctx, pid, uobj, fill);
		if (ret)
			break;
	}
	rcu_read_unlock();
	cb->args[RNIC_NL_ARG_HANDLE] = ret ? handle : 0;
	return ret;
}

/* The objects of one device, from context cb->args[CTX] on. */
static int rnic_nl_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			    struct rnic_dev *rdev, enum rnic_obj_type type,
			    rnic_nl_obj_fill_t fill)
{
	struct pid_namespace *pid_ns = task_active_pid_ns(current);
	struct rnic_ctx *ctx;
	int ret = 0;
	pid_t pid;

	mutex_lock(&rdev->ctx_lock);
	/* Contexts are listed in the order of their ids. */
	list_for_each_entry(ctx, &rdev->contexts, dev_node) {
		if (ctx->id < cb->args[RNIC_NL_ARG_CTX])
			continue;
		pid = pid_nr_ns(ctx->pid, pid_ns);
		if (!pid)
			continue;
		/* the one resumed at may be gone: start the next at 0 */
		if (ctx->id != cb->args[RNIC_NL_ARG_CTX]) {
			cb->args[RNIC_NL_ARG_CTX] = ctx->id;
			cb->args[RNIC_NL_ARG_HANDLE] = 0;
		}
		ret = rnic_nl_dump_ctx(skb, cb, ctx, pid, type, fill);
		if (ret)
			break;
	}
	mutex_unlock(&rdev->ctx_lock);
	if (!ret)
		cb->args[RNIC_NL_ARG_CTX] = 0;
	return ret;
}

/*
 * An object dump: one message per object of @type of every device of the
 * reader's namespace (or of the one named by DEV_NAME), resumed across
 * skbs from cb->args[].
 */
static int rnic_nl_obj_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
			      enum rnic_obj_type type, rnic_nl_obj_fill_t fill)
{
	const struct nlattr *name = genl_dumpit_info(cb)->attrs[RNIC_NL_ATTR_DEV_NAME];
	unsigned long index = cb->args[RNIC_NL_ARG_DEV];
	struct rnic_dev *rdev;
	int ret = 0;

	mutex_lock(&rnic_devs_lock);
	while ((rdev = rnic_dev_next(sock_net(skb->sk), &index))) {
		/* the one resumed at may be gone: start the next afresh */
		if (index != cb->args[RNIC_NL_ARG_DEV]) {
			cb->args[RNIC_NL_ARG_DEV] = index;
			cb->args[RNIC_NL_ARG_CTX] = 0;
			cb->args[RNIC_NL_ARG_HANDLE] = 0;
		}
		if (!name || !nla_strcmp(name, rnic_dev_name(rdev))) {
			ret = rnic_nl_dump_dev(skb, cb, rdev, type, fill);
			if (ret)
				break;
		}
		index++;
	}
	mutex_unlock(&rnic_devs_lock);

	cb->args[RNIC_NL_ARG_DEV] = index;
	/* A full skb ends this round; the next one resumes where it was. */
	if (ret == -EMSGSIZE && skb->len)
		ret = 0;
	return ret ?: skb->len;
}

static int rnic_nl_res_qp_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return rnic_nl_obj_dumpit(skb, cb, RNIC_OBJ_QP, rnic_qp_nl_fill);
}

static int rnic_nl_mr_fill_keys(struct sk_buff *msg, struct rnic_uobj *uobj)
{
	return rnic_mr_nl_fill(msg, uobj, true);
}

static int rnic_nl_mr_fill(struct sk_buff *msg, struct rnic_uobj *uobj)
{
	return rnic_mr_nl_fill(msg, uobj, false);
}

/* MR keys go only to a reader with CAP_NET_ADMIN. */
static int rnic_nl_res_mr_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return rnic_nl_obj_dumpit(skb, cb, RNIC_OBJ_MR,
				  netlink_capable(cb->skb, CAP_NET_ADMIN) ?
				  rnic_nl_mr_fill_keys : rnic_nl_mr_fill);
}

static int rnic_nl_res_pd_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return rnic_nl_obj_dumpit(skb, cb, RNIC_OBJ_PD, rnic_pd_nl_fill);
}

static int rnic_nl_res_cq_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return rnic_nl_obj_dumpit(skb, cb, RNIC_OBJ_CQ, rnic_cq_nl_fill);
}

static const struct genl_small_ops rnic_nl_ops[] = {
	{
		.cmd = RNIC_NL_CMD_LINK_GET,
		.doit = rnic_nl_link_get_doit,
		.dumpit = rnic_nl_link_get_dumpit,
	},
	{
		.cmd = RNIC_NL_CMD_LINK_ADD,
		.doit = rnic_nl_link_add_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RNIC_NL_CMD_LINK_DEL,
		.doit = rnic_nl_link_del_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RNIC_NL_CMD_LINK_SET,
		.doit = rnic_nl_link_set_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RNIC_NL_CMD_RES_GET,
		.doit = rnic_nl_res_get_doit,
		.dumpit = rnic_nl_res_get_dumpit,
	},
	{
		.cmd = RNIC_NL_CMD_STAT_GET,
		.doit = rnic_nl_stat_get_doit,
		.dumpit = rnic_nl_stat_get_dumpit,
	},
	{
		.cmd = RNIC_NL_CMD_RES_QP_GET,
		.dumpit = rnic_nl_res_qp_dumpit,
	},
	{
		.cmd = RNIC_NL_CMD_RES_MR_GET,
		.dumpit = rnic_nl_res_mr_dumpit,
	},
	{
		.cmd = RNIC_NL_CMD_RES_PD_GET,
		.dumpit = rnic_nl_res_pd_dumpit,
	},
	{
		.cmd = RNIC_NL_CMD_RES_CQ_GET,
		.dumpit = rnic_nl_res_cq_dumpit,
	},
	{
		.cmd = RNIC_NL_CMD_RES_CM_ID_GET,
		.dumpit = rnic_cm_nl_dumpit,
	},
};

static struct genl_family rnic_nl_family __ro_after_init = {
	.name = RNIC_GENL_NAME,
	.version = RNIC_GENL_VERSION,
	.maxattr = RNIC_NL_ATTR_MAX,
	.policy = rnic_nl_policy,
	.netnsok = true,
	.module = THIS_MODULE,
	.small_ops = rnic_nl_ops,
	.n_small_ops = ARRAY_SIZE(rnic_nl_ops),
};

MODULE_ALIAS_GENL_FAMILY(RNIC_GENL_NAME);

int rnic_nl_init(void)
{
	return genl_register_family(&rnic_nl_family);
}

void rnic_nl_exit(void)
{
	genl_unregister_family(&rnic_nl_family);
}
