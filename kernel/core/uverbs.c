// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the verbs char device: contexts and ioctls.
 *
 * Every ioctl but the send doorbell (RNIC_IOCTL_RING_SQ, whose argument
 * is a QP handle) takes a struct that starts with its own size (see the
 * DOC block of include/uapi/rdma/rnic-abi.h). The dispatcher copies it in
 * with copy_struct_from_user(), so older (shorter) and newer (longer, zero
 * tail) userspace both work, runs the handler under the device's
 * live_rwsem and the handler copies the answer back with
 * rnic_ucmd_respond().
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "verbs/verbs.h"

/**
 * rnic_ucmd_respond() - copy an ioctl's answer back to userspace
 * @ucmd: the call
 * @size: the kernel's size of the struct
 *
 * Copies as much of the struct as the user's has room for. A creating
 * ioctl calls it before making the object findable, so that a fault
 * unwinds the creation instead of leaking an object nobody knows about.
 *
 * Return: 0 or -EFAULT.
 */
int rnic_ucmd_respond(struct rnic_ucmd *ucmd, size_t size)
{
	if (copy_to_user(ucmd->ubuffer, ucmd->cmd,
			 min_t(size_t, ucmd->user_size, size)))
		return -EFAULT;
	return 0;
}

static int rnic_query_device(struct rnic_ucmd *ucmd)
{
	struct rnic_query_device *cmd = ucmd->cmd;
	struct rnic_dev *rdev = ucmd->ctx->dev;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;

	cmd->out_node_guid = rdev->node_guid;
	cmd->out_sys_image_guid = rdev->node_guid;
	cmd->out_max_mr_size = RNIC_MAX_MR_SIZE;
	cmd->out_page_size_cap = PAGE_SIZE;
	/*
	 * What the engine and the QP state machine do: the responder sends
	 * RNR NAKs when an RC receive queue is empty, and modify_qp takes
	 * IBV_QP_CUR_STATE where the IB state table allows it.
	 */
	cmd->out_device_cap_flags = RNIC_DEVICE_PORT_ACTIVE_EVENT |
				    RNIC_DEVICE_SYS_IMAGE_GUID |
				    RNIC_DEVICE_RC_RNR_NAK_GEN |
				    RNIC_DEVICE_CURR_QP_STATE_MOD |
				    RNIC_DEVICE_MEM_WINDOW |
				    RNIC_DEVICE_XRC |
				    RNIC_DEVICE_MEM_WINDOW_TYPE_2B;
	cmd->out_fw_ver = RNIC_FW_VERSION;
	cmd->out_vendor_id = RNIC_VENDOR_ID;
	cmd->out_vendor_part_id = 0;
	cmd->out_hw_ver = 0;
	cmd->out_max_qp = RNIC_MAX_QP;
	cmd->out_max_qp_wr = RNIC_MAX_QP_WR;
	cmd->out_max_sge = RNIC_MAX_SGE;
	cmd->out_max_sge_rd = RNIC_MAX_SGE;
	cmd->out_max_cq = RNIC_MAX_CQ;
	cmd->out_max_cqe = RNIC_MAX_CQE;
	cmd->out_max_mr = RNIC_MAX_MR;
	cmd->out_max_pd = RNIC_MAX_PD;
	cmd->out_max_qp_rd_atom = RNIC_MAX_RD_ATOM;
	cmd->out_max_qp_init_rd_atom = RNIC_MAX_RD_ATOM;
	cmd->out_max_res_rd_atom = RNIC_MAX_RD_ATOM * RNIC_MAX_QP;
	cmd->out_max_srq = RNIC_MAX_SRQ;
	cmd->out_max_srq_wr = RNIC_MAX_SRQ_WR;
	cmd->out_max_srq_sge = RNIC_MAX_SGE;
	cmd->out_max_ah = RNIC_MAX_AH;
	cmd->out_max_mcast_grp = RNIC_MAX_MCAST_GRP;
	cmd->out_max_mcast_qp_attach = RNIC_MAX_MCAST_QP;
	cmd->out_max_total_mcast_qp_attach =
		RNIC_MAX_MCAST_GRP * RNIC_MAX_MCAST_QP;
	cmd->out_max_mw = RNIC_MAX_MW;
	cmd->out_max_pkeys = 1;
	cmd->out_atomic_cap = RNIC_ATOMIC_HCA;
	cmd->out_local_ca_ack_delay = 15;
	cmd->out_phys_port_cnt = 1;
	cmd->out_num_comp_vectors = rnic_num_comp_vectors();
	return rnic_ucmd_respond(ucmd, sizeof(*cmd));
}

static int rnic_query_port(struct rnic_ucmd *ucmd)
{
	struct rnic_query_port *cmd = ucmd->cmd;
	struct rnic_port *port = &ucmd->ctx->dev->port;
	u32 netdev_mtu, mtu_enum;
	u8 state;

	if (cmd->flags || cmd->__reserved || cmd->port_num != 1)
		return -EINVAL;

	spin_lock_bh(&port->lock);
	state = port->state;
	netdev_mtu = port->netdev_mtu;
	spin_unlock_bh(&port->lock);
	mtu_enum = rnic_mtu_enum(rnic_active_mtu(netdev_mtu));

	cmd->out_state = state;
	cmd->out_max_mtu = RNIC_MTU_4096;
	cmd->out_active_mtu = mtu_enum;
	cmd->out_gid_tbl_len = RNIC_GID_TABLE_LEN;
	cmd->out_port_cap_flags = RNIC_PORT_CAP_FLAGS;
	cmd->out_max_msg_sz = RNIC_MAX_MSG_SZ;
	cmd->out_bad_pkey_cntr = 0;
	cmd->out_qkey_viol_cntr = 0;
	cmd->out_pkey_tbl_len = 1;
	cmd->out_lid = 0;
	cmd->out_sm_lid = 0;
	cmd->out_lmc = 0;
	cmd->out_max_vl_num = 1;
	cmd->out_sm_sl = 0;
	cmd->out_subnet_timeout = 0;
	cmd->out_init_type_reply = 0;
	cmd->out_active_width = RNIC_WIDTH_4X;
	cmd->out_active_speed = RNIC_SPEED_EDR;
	cmd->out_phys_state = rnic_port_phys_state(state);
	cmd->out_link_layer = RNIC_LINK_LAYER_ETH;
	cmd->out_port_flags = 0;
	cmd->out_port_cap_flags2 = 0;
	cmd->out_active_speed_ex = 0;
	return rnic_ucmd_respond(ucmd, sizeof(*cmd));
}

static int rnic_query_gid(struct rnic_ucmd *ucmd)
{
	struct rnic_query_gid *cmd = ucmd->cmd;
	struct rnic_dev *rdev = ucmd->ctx->dev;
	struct rnic_port *port = &rdev->port;
	struct rnic_gid gid;

	if (cmd->flags || cmd->port_num != 1 ||
	    cmd->index >= RNIC_GID_TABLE_LEN)
		return -EINVAL;

	spin_lock_bh(&port->lock);
	gid = port->gids[cmd->index];
	spin_unlock_bh(&port->lock);
	if (!gid.valid)
		return -ENODATA;

	memcpy(cmd->out_gid, gid.raw, sizeof(cmd->out_gid));
	cmd->out_gid_type = RNIC_GID_TYPE_ROCE_V2;
	spin_lock_bh(&rnic_bind_lock);
	cmd->out_ifindex = rdev->netdev ? rdev->netdev->ifindex : 0;
	spin_unlock_bh(&rnic_bind_lock);
	return rnic_ucmd_respond(ucmd, sizeof(*cmd));
}

static int rnic_query_pkey(struct rnic_ucmd *ucmd)
{
	struct rnic_query_pkey *cmd = ucmd->cmd;

	if (cmd->flags || cmd->__reserved || cmd->port_num != 1 ||
	    cmd->index != 0)
		return -EINVAL;

	cmd->out_pkey = RNIC_PKEY_DEFAULT;
	return rnic_ucmd_respond(ucmd, sizeof(*cmd));
}

union rnic_ucmd_buffer {
	struct rnic_query_device query_device;
	struct rnic_query_port query_port;
	struct rnic_query_gid query_gid;
	struct rnic_query_pkey query_pkey;
	struct rnic_alloc_pd alloc_pd;
	struct rnic_destroy destroy;
	struct rnic_reg_mr reg_mr;
	struct rnic_alloc_mw alloc_mw;
	/* completion queues, channels, async events */
	struct rnic_create_async_fd create_async_fd;
	struct rnic_create_comp_channel create_comp_channel;
	struct rnic_create_cq create_cq;
	struct rnic_resize_cq resize_cq;
	struct rnic_destroy_cq destroy_cq;
	/* queue pairs, multicast */
	struct rnic_create_qp create_qp;
	struct rnic_modify_qp modify_qp;
	struct rnic_query_qp query_qp;
	struct rnic_destroy_qp destroy_qp;
	struct rnic_attach_mcast attach_mcast;
	struct rnic_kick_sq kick_sq;
	/* shared receive queues, address handles */
	struct rnic_create_srq create_srq;
	struct rnic_modify_srq modify_srq;
	struct rnic_query_srq query_srq;
	struct rnic_destroy_srq destroy_srq;
	struct rnic_create_ah create_ah;
};

/**
 * struct rnic_ioctl_op - how to run one ioctl
 * @size: the kernel's size of the struct
 * @min_size: the size of the first version of the struct
 * @ioctl_num: the full ioctl number
 * @execute: the handler; returns 0 or a negative errno
 * @on_dead_device: also runs after the device was removed (destroy calls,
 *	so that applications can clean up after IBV_EVENT_DEVICE_FATAL)
 * @evobj: the kind of object rnic_destroy_evobj() destroys, or NULL
 */
struct rnic_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	unsigned int ioctl_num;
	int (*execute)(struct rnic_ucmd *ucmd);
	bool on_dead_device;
	const struct rnic_evobj_type *evobj;
};

#define __RNIC_IOCTL_OP(_name, _fn, _struct, _last, _dead, _evobj)	\
	[RNIC_CMD_##_name - RNIC_CMD_BASE] = {				\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(union rnic_ucmd_buffer) < \
					  sizeof(_struct)),		\
		.min_size = offsetofend(_struct, _last),		\
		.ioctl_num = RNIC_IOCTL_##_name,			\
		.execute = _fn,						\
		.on_dead_device = _dead,				\
		.evobj = _evobj,					\
	}
#define RNIC_IOCTL_OP(_name, _fn, _struct, _last)			\
	__RNIC_IOCTL_OP(_name, _fn, _struct, _last, false, NULL)
/* Destroy calls take a struct rnic_destroy and work on a dead device. */
#define RNIC_DESTROY_OP(_name, _fn)					\
	__RNIC_IOCTL_OP(_name, _fn, struct rnic_destroy, __reserved, true, NULL)
/* The same for objects with events, which report the events read. */
#define RNIC_DESTROY_EVOBJ_OP(_name, _struct, _last, _evobj)		\
	__RNIC_IOCTL_OP(_name, rnic_destroy_evobj, _struct, _last, true, \
			&(_evobj))

/*
 * Destroy a CQ, QP or SRQ (the table entry says which) and report how
 * many of its events userspace read. struct rnic_destroy_qp and struct
 * rnic_destroy_srq are the beginning of struct rnic_destroy_cq, which
 * adds the completion events: for them that field is not copied back.
 */
static int rnic_destroy_evobj(struct rnic_ucmd *ucmd)
{
	struct rnic_destroy_cq *cmd = ucmd->cmd;
	struct rnic_event_counts counts = {};
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	ret = rnic_evobj_destroy(ucmd->ctx, cmd->handle, ucmd->op->evobj,
				 &counts);
	/* a QP's handle may be a handle on an XRC TGT QP (verbs/xrcd.c) */
	if (ret == -EINVAL && ucmd->op->evobj == &rnic_qp_evobj_type)
		ret = rnic_destroy_tgt(ucmd->ctx, cmd->handle, &counts);
	if (ret)
		return ret;
	cmd->out_async_events_reported = counts.async;
	cmd->out_comp_events_reported = counts.comp;
	return rnic_ucmd_respond(ucmd, ucmd->op->size);
}

static_assert(sizeof(struct rnic_destroy_qp) ==
	      offsetof(struct rnic_destroy_cq, out_comp_events_reported));
static_assert(sizeof(struct rnic_destroy_srq) ==
	      offsetof(struct rnic_destroy_cq, out_comp_events_reported));
static_assert(offsetof(struct rnic_destroy_qp, out_async_events_reported) ==
	      offsetof(struct rnic_destroy_cq, out_async_events_reported));
static_assert(offsetof(struct rnic_destroy_srq, out_async_events_reported) ==
	      offsetof(struct rnic_destroy_cq, out_async_events_reported));

static const struct rnic_ioctl_op rnic_ioctl_ops[] = {
	RNIC_IOCTL_OP(QUERY_DEVICE, rnic_query_device,
		      struct rnic_query_device, __reserved),
	RNIC_IOCTL_OP(QUERY_PORT, rnic_query_port,
		      struct rnic_query_port, __reserved),
	RNIC_IOCTL_OP(QUERY_GID, rnic_query_gid,
		      struct rnic_query_gid, out_ifindex),
	RNIC_IOCTL_OP(QUERY_PKEY, rnic_query_pkey,
		      struct rnic_query_pkey, __reserved),
	RNIC_IOCTL_OP(ALLOC_PD, rnic_alloc_pd, struct rnic_alloc_pd, __reserved),
	RNIC_DESTROY_OP(DEALLOC_PD, rnic_dealloc_pd),
	RNIC_IOCTL_OP(REG_MR, rnic_reg_mr, struct rnic_reg_mr, __reserved),
	RNIC_DESTROY_OP(DEREG_MR, rnic_dereg_mr),
	RNIC_IOCTL_OP(ALLOC_MW, rnic_alloc_mw, struct rnic_alloc_mw, out_rkey),
	RNIC_DESTROY_OP(DEALLOC_MW, rnic_dealloc_mw),
	RNIC_IOCTL_OP(OPEN_XRCD, rnic_open_xrcd, struct rnic_open_xrcd,
		      __reserved),
	RNIC_DESTROY_OP(CLOSE_XRCD, rnic_close_xrcd),
	/* completion queues, channels, async events */
	RNIC_IOCTL_OP(CREATE_ASYNC_FD, rnic_create_async_fd,
		      struct rnic_create_async_fd, __reserved),
	RNIC_IOCTL_OP(CREATE_COMP_CHANNEL, rnic_create_comp_channel,
		      struct rnic_create_comp_channel, out_fd),
	RNIC_DESTROY_OP(DESTROY_COMP_CHANNEL, rnic_destroy_comp_channel),
	RNIC_IOCTL_OP(CREATE_CQ, rnic_create_cq, struct rnic_create_cq,
		      out_ring),
	RNIC_IOCTL_OP(RESIZE_CQ, rnic_resize_cq, struct rnic_resize_cq,
		      out_ring),
	RNIC_DESTROY_EVOBJ_OP(DESTROY_CQ, struct rnic_destroy_cq,
			      out_comp_events_reported, rnic_cq_evobj_type),
	/* queue pairs, multicast */
	RNIC_IOCTL_OP(CREATE_QP, rnic_create_qp, struct rnic_create_qp,
		      out_rq),
	RNIC_IOCTL_OP(MODIFY_QP, rnic_modify_qp, struct rnic_modify_qp, attr),
	RNIC_IOCTL_OP(QUERY_QP, rnic_query_qp, struct rnic_query_qp, out_cap),
	RNIC_DESTROY_EVOBJ_OP(DESTROY_QP, struct rnic_destroy_qp,
			      out_async_events_reported, rnic_qp_evobj_type),
	RNIC_IOCTL_OP(ATTACH_MCAST, rnic_attach_mcast, struct rnic_attach_mcast,
		      gid),
	/* Detaching is cleaning up: it works on a removed device too. */
	__RNIC_IOCTL_OP(DETACH_MCAST, rnic_detach_mcast,
			struct rnic_attach_mcast, gid, true, NULL),
	RNIC_IOCTL_OP(KICK_SQ, rnic_kick_sq, struct rnic_kick_sq, __reserved),
	RNIC_IOCTL_OP(OPEN_QP, rnic_open_qp, struct rnic_open_qp, __reserved),
	/* shared receive queues, address handles */
	RNIC_IOCTL_OP(CREATE_SRQ, rnic_create_srq, struct rnic_create_srq,
		      out_ring),
	RNIC_IOCTL_OP(MODIFY_SRQ, rnic_modify_srq, struct rnic_modify_srq,
		      srq_limit),
	RNIC_IOCTL_OP(QUERY_SRQ, rnic_query_srq, struct rnic_query_srq,
		      out_srq_limit),
	RNIC_DESTROY_EVOBJ_OP(DESTROY_SRQ, struct rnic_destroy_srq,
			      out_async_events_reported, rnic_srq_evobj_type),
	RNIC_IOCTL_OP(CREATE_AH, rnic_create_ah, struct rnic_create_ah, attr),
	RNIC_DESTROY_OP(DESTROY_AH, rnic_destroy_ah),
};

/* Every ioctl but the doorbell: a struct to copy in, then the verb. */
static noinline long rnic_uverbs_cmd(struct rnic_ctx *ctx, unsigned int cmd,
				     unsigned long arg)
{
	struct rnic_dev *rdev = ctx->dev;
	const struct rnic_ioctl_op *op;
	union rnic_ucmd_buffer buf;
	struct rnic_ucmd ucmd = {
		.ctx = ctx,
		.ubuffer = (void __user *)arg,
		.cmd = &buf,
	};
	unsigned int nr = _IOC_NR(cmd);
	long ret;

	if (_IOC_TYPE(cmd) != RNIC_IOCTL_MAGIC || nr < RNIC_CMD_BASE ||
	    nr - RNIC_CMD_BASE >= ARRAY_SIZE(rnic_ioctl_ops))
		return -ENOTTY;
	op = &rnic_ioctl_ops[nr - RNIC_CMD_BASE];
	if (op->ioctl_num != cmd)
		return -ENOTTY;
	ucmd.op = op;

	ret = get_user(ucmd.user_size, (u32 __user *)ucmd.ubuffer);
	if (ret)
		return ret;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;
	ret = copy_struct_from_user(ucmd.cmd, op->size, ucmd.ubuffer,
				    ucmd.user_size);
	if (ret)
		return ret;

	percpu_down_read(&rdev->live_rwsem);
	if (READ_ONCE(rdev->live) || op->on_dead_device)
		ret = op->execute(&ucmd);
	else
		ret = -ENODEV;
	percpu_up_read(&rdev->live_rwsem);
	return ret;
}

/*
 * The doorbell first, and without a struct to copy: it is per post. The
 * other commands are a call away, so that the doorbell does not pay for
 * clearing their buffer (the kernel may zero every automatic variable).
 */
static long rnic_uverbs_ioctl(struct file *filp, unsigned int cmd,
			      unsigned long arg)
{
	struct rnic_ctx *ctx = filp->private_data;
	struct rnic_dev *rdev = ctx->dev;
	long ret;

	if (cmd != RNIC_IOCTL_RING_SQ)
		return rnic_uverbs_cmd(ctx, cmd, arg);
	percpu_down_read(&rdev->live_rwsem);
	ret = READ_ONCE(rdev->live) ? rnic_ring_sq(ctx, arg) : -ENODEV;
	percpu_up_read(&rdev->live_rwsem);
	return ret;
}

static int rnic_uverbs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct rnic_ctx *ctx = filp->private_data;

	/*
	 * Not under live_rwsem: mmap_lock is held here, and ioctls take
	 * mmap_lock (faults in copy_to_user, pinning) under live_rwsem.
	 * Regions are reference counted, so mapping one of a device that is
	 * going away is harmless.
	 */
	if (!READ_ONCE(ctx->dev->live))
		return -ENODEV;
	return rnic_mmap(ctx, vma);
}

/**
 * rnic_ctx_init() - the parts of a new context that an open file and an
 *	XRC domain's own context share
 * @ctx: zeroed
 * @rdev: its device; a reference is taken
 */
void rnic_ctx_init(struct rnic_ctx *ctx, struct rnic_dev *rdev)
{
	get_device(&rdev->dev);
	ctx->dev = rdev;
	spin_lock_init(&ctx->async_lock);
	xa_init_flags(&ctx->objs, XA_FLAGS_ALLOC);
	xa_init_flags(&ctx->mmaps, XA_FLAGS_ALLOC);
	ctx->pid = get_task_pid(current, PIDTYPE_TGID);
	get_task_comm(ctx->comm, current);
}

/**
 * rnic_ctx_fini() - undo rnic_ctx_init()
 * @ctx: a context no call can reach any more, its objects destroyed
 *	(rnic_uobj_destroy_all())
 */
void rnic_ctx_fini(struct rnic_ctx *ctx)
{
	xa_destroy(&ctx->objs);
	/* Objects remove their regions; a mapping would have kept us open. */
	WARN_ON(!xa_empty(&ctx->mmaps));
	xa_destroy(&ctx->mmaps);
	put_pid(ctx->pid);
	put_device(&ctx->dev->dev);
}

static int rnic_uverbs_open(struct inode *inode, struct file *filp)
{
	struct rnic_dev *rdev = container_of(inode->i_cdev, struct rnic_dev,
					     cdev);
	struct rnic_ctx *ctx;
	int ret;

	/*
	 * A device is for its own namespace only; device nodes are visible
	 * in every one (devtmpfs).
	 */
	if (!net_eq(current->nsproxy->net_ns, rnic_dev_net(rdev)))
		return -EPERM;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;

	percpu_down_read(&rdev->live_rwsem);
	if (!READ_ONCE(rdev->live)) {
		ret = -ENODEV;
		goto err_unlock;
	}
	/* One hca_handle of the opener's RDMA cgroup: EAGAIN beyond it. */
	ret = rnic_cg_charge(rdev, &ctx->cg, RDMACG_RESOURCE_HCA_HANDLE);
	if (ret)
		goto err_unlock;
	rnic_ctx_init(ctx, rdev);
	atomic_inc(&rdev->ncontexts);
	/*
	 * A removal may raise IBV_EVENT_DEVICE_FATAL from here on, before
	 * this context has an asynchronous event queue: it never gets the
	 * event, but each of its ioctls, the one creating the queue
	 * included, fails with ENODEV. That is enough: it learns of the
	 * removal at its first call (librnic's ibv_open_device() fails).
	 */
	percpu_up_read(&rdev->live_rwsem);

	mutex_lock(&rdev->ctx_lock);
	ctx->id = rdev->next_ctx_id++;
	list_add_tail(&ctx->dev_node, &rdev->contexts);
	mutex_unlock(&rdev->ctx_lock);
	filp->private_data = ctx;
	rnic_obj_account(RNIC_OBJ_CONTEXT, 1);
	return stream_open(inode, filp);

err_unlock:
	percpu_up_read(&rdev->live_rwsem);
	kfree(ctx);
	return ret;
}

static int rnic_uverbs_release(struct inode *inode, struct file *filp)
{
	struct rnic_ctx *ctx = filp->private_data;
	struct rnic_dev *rdev = ctx->dev;

	mutex_lock(&rdev->ctx_lock);
	list_del(&ctx->dev_node);
	mutex_unlock(&rdev->ctx_lock);
	rnic_uobj_destroy_all(ctx);
	rnic_cg_uncharge(rdev, ctx->cg, RDMACG_RESOURCE_HCA_HANDLE);
	/* Events: the asynchronous event descriptor reads EIO from now on. */
	rnic_async_ctx_close(ctx);
	atomic_dec(&rdev->ncontexts);
	rnic_ctx_fini(ctx);
	kfree(ctx);
	rnic_obj_account(RNIC_OBJ_CONTEXT, -1);
	return 0;
}

const struct file_operations rnic_uverbs_fops = {
	.owner = THIS_MODULE,
	.open = rnic_uverbs_open,
	.release = rnic_uverbs_release,
	.unlocked_ioctl = rnic_uverbs_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = rnic_uverbs_mmap,
	.llseek = no_llseek,
};
