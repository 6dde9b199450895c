// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the connection manager's char device,
 * /dev/infiniband/rnic_cm: event channels, CM ids and their events.
 *
 * A file is an event channel; its ids live in its handle table and their
 * events queue on it (include/uapi/rdma/rnic-cm-abi.h). The ioctls copy
 * their struct in with copy_struct_from_user(), as the verbs char device
 * does, and run under rnic_cm_lock, all but GET_EVENT, which waits on
 * the file's queue alone.
 *
 * Lifetime of an id (struct rnic_cm_id.ref): created findable in its
 * file's table; destroyed by DESTROY_ID, by its file's release, or, for
 * a request nobody read, with its listener. Destroying takes it out of
 * every table and cancels what the protocol has going (rnic_cm_proto_
 * destroy()); the struct goes with its last reference (a queued event,
 * a timer that is running).
 *
 * Every id made on a file is also in rnic_cm_ids, by a number of its own
 * (@res_id), for the listing of ids (rnic res show cm_id,
 * rnic_cm_nl_dumpit()): from its creation to its destroy, as long as it
 * is findable in its file.
 */
#include <linux/miscdevice.h>
#include <linux/nsproxy.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "cm/cm.h"

/* Protects every id, the CM's tables and the files' handle tables (cm.h) */
DEFINE_MUTEX(rnic_cm_lock);
struct workqueue_struct *rnic_cm_wq;
/* Ids alive, for the leak check at unload */
static atomic_t rnic_cm_nids = ATOMIC_INIT(0);
/* Every findable id by its res_id, for the listing; rnic_cm_lock */
static DEFINE_XARRAY_ALLOC(rnic_cm_ids);

static void rnic_cm_id_free(struct kref *ref)
{
	struct rnic_cm_id *id = container_of(ref, struct rnic_cm_id, ref);

	if (id->listener)
		rnic_cm_id_put(id->listener);
	if (id->rdev)
		put_device(&id->rdev->dev);
	kfree(id);
	atomic_dec(&rnic_cm_nids);
}

/* Context: process (the last put may drop a device reference). */
void rnic_cm_id_put(struct rnic_cm_id *id)
{
	kref_put(&id->ref, rnic_cm_id_free);
}

/**
 * rnic_cm_id_create() - make an id, findable in its file
 * @file: the file
 * @ps: enum rnic_cm_port_space
 * @qp_type: IBV_QPT_RC or IBV_QPT_UD
 * @uid: userspace's value for its events
 *
 * Context: rnic_cm_lock held.
 * Return: the id (the file's reference) or an ERR_PTR.
 */
struct rnic_cm_id *rnic_cm_id_create(struct rnic_cm_file *file, u16 ps,
				     u8 qp_type, u64 uid)
{
	struct rnic_cm_id *id;
	int ret;

	lockdep_assert_held(&rnic_cm_lock);
	id = kzalloc(sizeof(*id), GFP_KERNEL_ACCOUNT);
	if (!id)
		return ERR_PTR(-ENOMEM);
	kref_init(&id->ref);
	id->file = file;
	id->uid = uid;
	id->ps = ps;
	id->qp_type = qp_type;
	id->state = RNIC_CM_IDLE;
	id->ack_timeout = 14;
	INIT_HLIST_NODE(&id->bind_node);
	INIT_HLIST_NODE(&id->remote_node);
	INIT_LIST_HEAD(&id->dev_node);
	INIT_LIST_HEAD(&id->mcs);
	INIT_DELAYED_WORK(&id->timer, rnic_cm_timer_fn);
	ret = xa_alloc(&rnic_cm_ids, &id->res_id, id, xa_limit_32b,
		       GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_free;
	ret = xa_alloc(&file->ids, &id->handle, id, xa_limit_31b,
		       GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_res;
	atomic_inc(&rnic_cm_nids);
	return id;

err_res:
	xa_erase(&rnic_cm_ids, id->res_id);
err_free:
	kfree(id);
	return ERR_PTR(ret);
}

/* Drop the id's queued events; the caller holds a reference of its own. */
static void rnic_cm_drop_events(struct rnic_cm_file *file,
				struct rnic_cm_id *id)
{
	struct rnic_cm_event *ev, *next;
	LIST_HEAD(dropped);

	spin_lock_irq(&file->lock);
	list_for_each_entry_safe(ev, next, &file->events, node)
		if (ev->id == id)
			list_move_tail(&ev->node, &dropped);
	spin_unlock_irq(&file->lock);
	list_for_each_entry_safe(ev, next, &dropped, node) {
		rnic_cm_id_put(ev->id);
		kfree(ev);
	}
}

/*
 * The requests of listener @id whose CONNECT_REQUEST nobody read: they go
 * with it (rejected), as nobody can answer them.
 */
static void rnic_cm_destroy_unread(struct rnic_cm_file *file,
				   struct rnic_cm_id *id)
{
	struct rnic_cm_event *ev;
	struct rnic_cm_id *req;

	for (;;) {
		req = NULL;
		spin_lock_irq(&file->lock);
		list_for_each_entry(ev, &file->events, node)
			if (ev->desc.out_event == RNIC_CM_EVENT_CONNECT_REQUEST &&
			    ev->id->listener == id) {
				req = ev->id;
				break;
			}
		spin_unlock_irq(&file->lock);
		if (!req)
			return;
		rnic_cm_id_destroy(req);
	}
}

/**
 * rnic_cm_id_destroy() - take an id out of everything and drop the file's
 *	reference
 * @id: the id, findable in its file
 *
 * A connection is ended as the IB CM ends it (rnic_cm_proto_destroy():
 * REJ or DREQ); its queued events are dropped; a listener's unread
 * requests go with it.
 *
 * Context: rnic_cm_lock held.
 */
void rnic_cm_id_destroy(struct rnic_cm_id *id)
{
	struct rnic_cm_file *file = id->file;

	lockdep_assert_held(&rnic_cm_lock);
	xa_erase(&file->ids, id->handle);
	xa_erase(&rnic_cm_ids, id->res_id);
	kref_get(&id->ref);
	if (id->state == RNIC_CM_LISTEN)
		rnic_cm_destroy_unread(file, id);
	rnic_cm_proto_destroy(id);
	rnic_cm_leave_all(id);
	rnic_cm_unbind(id);
	list_del_init(&id->dev_node);
	id->file = NULL;
	rnic_cm_drop_events(file, id);
	rnic_cm_id_put(id);	/* the file's */
	rnic_cm_id_put(id);
}

/**
 * rnic_cm_event_alloc() - make an event of an id, to fill and queue
 * @id: the id, findable
 * @event: enum rnic_cm_event_type
 * @status: 0, -errno or a reject reason
 *
 * Context: rnic_cm_lock held.
 * Return: the event (holding a reference on @id), or NULL if there is no
 * memory: the event is lost, which the caller cannot help.
 */
struct rnic_cm_event *rnic_cm_event_alloc(struct rnic_cm_id *id, u32 event,
					  int status)
{
	struct rnic_cm_event *ev;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return NULL;
	kref_get(&id->ref);
	ev->id = id;
	ev->desc.size = sizeof(ev->desc);
	ev->desc.out_uid = id->uid;
	ev->desc.out_id = id->handle;
	ev->desc.out_event = event;
	ev->desc.out_status = status;
	return ev;
}

/**
 * rnic_cm_event_queue() - queue an event on its id's file and wake
 *	readers
 * @ev: from rnic_cm_event_alloc(), or NULL (nothing happens)
 *
 * Context: rnic_cm_lock held, the id findable.
 */
void rnic_cm_event_queue(struct rnic_cm_event *ev)
{
	struct rnic_cm_file *file;

	if (!ev)
		return;
	file = ev->id->file;
	spin_lock_irq(&file->lock);
	list_add_tail(&ev->node, &file->events);
	spin_unlock_irq(&file->lock);
	wake_up_interruptible(&file->wait);
}

/* An event with nothing but a status. Context: rnic_cm_lock held. */
void rnic_cm_event(struct rnic_cm_id *id, u32 event, int status)
{
	rnic_cm_event_queue(rnic_cm_event_alloc(id, event, status));
}

/**
 * struct rnic_cm_ucmd - an ioctl call
 * @file: the file it came on
 * @ubuffer: the user's struct
 * @user_size: its size
 * @cmd: the kernel's copy
 * @id: the id it names (its ``id`` field, after ``size`` and ``flags``),
 *	for the commands that name one (rnic_cm_ioctl_op.takes_id)
 */
struct rnic_cm_ucmd {
	struct rnic_cm_file *file;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
	struct rnic_cm_id *id;
};

/* What every struct starts with; most go on with the id they are for. */
struct rnic_cm_cmd_hdr {
	__u32 size;
	__u32 flags;
	__u32 id;
};

static int rnic_cm_respond(struct rnic_cm_ucmd *ucmd, size_t size)
{
	if (copy_to_user(ucmd->ubuffer, ucmd->cmd,
			 min_t(size_t, ucmd->user_size, size)))
		return -EFAULT;
	return 0;
}

/* The id of a handle on the file. Context: rnic_cm_lock held. */
static struct rnic_cm_id *rnic_cm_id_get(struct rnic_cm_file *file,
					 u32 handle)
{
	struct rnic_cm_id *id = xa_load(&file->ids, handle);

	return id ?: ERR_PTR(-ENOENT);
}

/* Copy a user's struct rnic_cm_sockaddr into a checked kernel one. */
static int rnic_cm_addr_in(struct sockaddr_storage *addr,
			   const struct rnic_cm_sockaddr *uaddr, bool may_be_none)
{
	BUILD_BUG_ON(sizeof(*addr) != sizeof(*uaddr));
	memcpy(addr, uaddr, sizeof(*addr));
	if (may_be_none && addr->ss_family == AF_UNSPEC)
		return memchr_inv(addr, 0, sizeof(*addr)) ? -EINVAL : 0;
	return rnic_cm_addr_check(addr);
}

static int rnic_cm_create_id(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_create_id *cmd = ucmd->cmd;
	struct rnic_cm_id *id;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	switch (cmd->ps) {
	case RNIC_CM_PS_TCP:
		if (cmd->qp_type != RNIC_QPT_RC)
			return -EINVAL;
		break;
	case RNIC_CM_PS_UDP:
	case RNIC_CM_PS_IPOIB:
		if (cmd->qp_type != RNIC_QPT_UD)
			return -EINVAL;
		break;
	case RNIC_CM_PS_IB:
		if (cmd->qp_type != RNIC_QPT_RC && cmd->qp_type != RNIC_QPT_UD)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	id = rnic_cm_id_create(ucmd->file, cmd->ps, cmd->qp_type, cmd->uid);
	if (IS_ERR(id))
		return PTR_ERR(id);
	cmd->out_id = id->handle;
	ret = rnic_cm_respond(ucmd, sizeof(*cmd));
	if (ret)
		rnic_cm_id_destroy(id);
	return ret;
}

static int rnic_cm_destroy_id(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_destroy_id *cmd = ucmd->cmd;
	struct rnic_cm_id *id = ucmd->id;

	if (cmd->__reserved || cmd->__reserved2)
		return -EINVAL;
	cmd->out_events_reported = id->events_reported;
	rnic_cm_id_destroy(id);
	return rnic_cm_respond(ucmd, sizeof(*cmd));
}

static int rnic_cm_bind_addr(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_bind_addr *cmd = ucmd->cmd;
	struct sockaddr_storage addr;
	struct rnic_cm_id *id = ucmd->id;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	ret = rnic_cm_addr_in(&addr, &cmd->addr, false);
	if (ret)
		return ret;
	if (id->state != RNIC_CM_IDLE || id->bound)
		return -EINVAL;
	return rnic_cm_bind(id, &addr);
}

static int rnic_cm_resolve_addr_cmd(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_resolve_addr *cmd = ucmd->cmd;
	struct sockaddr_storage src, dst;
	struct rnic_cm_id *id = ucmd->id;
	int ret;

	ret = rnic_cm_addr_in(&src, &cmd->src_addr, true);
	if (!ret)
		ret = rnic_cm_addr_in(&dst, &cmd->dst_addr, false);
	if (ret)
		return ret;
	if (id->state != RNIC_CM_IDLE && id->state != RNIC_CM_ADDR_RESOLVED)
		return -EINVAL;
	ret = rnic_cm_resolve_addr(id, &src, &dst);
	/* Bad arguments fail the call; what the network says is an event. */
	if (ret == -EINVAL || ret == -EADDRINUSE || ret == -EACCES ||
	    ret == -ENOMEM)
		return ret;
	if (!ret)
		id->state = RNIC_CM_ADDR_RESOLVED;
	rnic_cm_event(id, ret ? RNIC_CM_EVENT_ADDR_ERROR :
			  RNIC_CM_EVENT_ADDR_RESOLVED, ret);
	return 0;
}

static int rnic_cm_resolve_route_cmd(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_id *id = ucmd->id;
	int ret;

	if (id->state != RNIC_CM_ADDR_RESOLVED &&
	    id->state != RNIC_CM_ROUTE_RESOLVED)
		return -EINVAL;
	ret = rnic_cm_resolve_route(id);
	if (!ret)
		id->state = RNIC_CM_ROUTE_RESOLVED;
	rnic_cm_event(id, ret ? RNIC_CM_EVENT_ROUTE_ERROR :
			  RNIC_CM_EVENT_ROUTE_RESOLVED, ret);
	return 0;
}

static int rnic_cm_query(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_query *cmd = ucmd->cmd;
	struct rnic_cm_id *id = ucmd->id;
	struct rnic_dev *rdev;

	if (cmd->__reserved)
		return -EINVAL;
	*cmd = (struct rnic_cm_query){
		.size = cmd->size, .id = cmd->id,
	};
	memcpy(&cmd->out_src_addr, &id->src, sizeof(id->src));
	memcpy(&cmd->out_dst_addr, &id->dst, sizeof(id->dst));
	cmd->out_ps = id->ps;
	cmd->out_qp_type = id->qp_type;
	rdev = id->rdev;
	if (rdev) {
		strscpy(cmd->out_dev_name, rnic_dev_name(rdev),
			sizeof(cmd->out_dev_name));
		cmd->out_node_guid = (__force u64)rdev->node_guid;
		cmd->out_pkey = 0xffff;
		cmd->out_port_num = 1;
		cmd->out_gid_index = id->av.sgid_index;
		memcpy(cmd->out_sgid, id->av.sgid, sizeof(cmd->out_sgid));
		memcpy(cmd->out_dgid, id->av.dgid, sizeof(cmd->out_dgid));
	}
	if (id->state >= RNIC_CM_ROUTE_RESOLVED && id->state != RNIC_CM_LISTEN) {
		cmd->out_num_paths = 1;
		cmd->out_mtu = id->mtu;
		cmd->out_hop_limit = id->av.hop_limit;
		cmd->out_traffic_class = id->av.traffic_class;
		cmd->out_sl = id->av.sl;
		cmd->out_flow_label = id->av.flow_label;
		cmd->out_packet_life_time = id->ack_timeout - 1;
		cmd->out_rate = id->av.static_rate;
	}
	return rnic_cm_respond(ucmd, sizeof(*cmd));
}

static int rnic_cm_listen(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_listen *cmd = ucmd->cmd;
	struct sockaddr_storage any = { .ss_family = AF_INET };
	struct rnic_cm_id *id = ucmd->id;
	int ret;

	if (id->state == RNIC_CM_LISTEN) {
		/* rdma_listen() again: a new backlog */
		id->backlog = cmd->backlog > 0 ? cmd->backlog : 128;
		return 0;
	}
	if (id->state != RNIC_CM_IDLE)
		return -EINVAL;
	if (!id->bound) {
		ret = rnic_cm_bind(id, &any);
		if (ret)
			return ret;
	}
	id->backlog = cmd->backlog > 0 ? cmd->backlog : 128;
	id->state = RNIC_CM_LISTEN;
	return 0;
}

/* Userspace's connection parameters, checked. */
static int rnic_cm_conn_check(const struct rnic_cm_conn_param *conn, u8 max)
{
	if (conn->__reserved || conn->private_data_len > max ||
	    conn->retry_count > 7 || conn->rnr_retry_count > 7 ||
	    conn->srq > 1 || conn->qp_num & ~RNIC_QPN_MASK)
		return -EINVAL;
	return 0;
}

static int rnic_cm_connect_cmd(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_connect *cmd = ucmd->cmd;
	struct rnic_cm_id *id = ucmd->id;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	ret = rnic_cm_conn_check(&cmd->conn, id->qp_type == RNIC_QPT_UD ?
				 RNIC_CM_SIDR_REQ_PRIVATE_DATA :
				 RNIC_CM_REQ_PRIVATE_DATA);
	if (ret)
		return ret;
	return rnic_cm_connect(id, &cmd->conn);
}

static int rnic_cm_accept_cmd(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_accept *cmd = ucmd->cmd;
	struct rnic_cm_id *id = ucmd->id;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	ret = rnic_cm_conn_check(&cmd->conn, id->qp_type == RNIC_QPT_UD ?
				 RNIC_CM_SIDR_REP_PRIVATE_DATA :
				 RNIC_CM_REP_PRIVATE_DATA);
	if (ret)
		return ret;
	ret = rnic_cm_accept(id, &cmd->conn);
	if (!ret)
		id->uid = cmd->uid;
	return ret;
}

static int rnic_cm_reject_cmd(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_reject *cmd = ucmd->cmd;
	struct rnic_cm_id *id = ucmd->id;

	if (cmd->__reserved ||
	    cmd->private_data_len > (id->qp_type == RNIC_QPT_UD ?
				     RNIC_CM_SIDR_REP_PRIVATE_DATA :
				     RNIC_CM_REJ_PRIVATE_DATA))
		return -EINVAL;
	return rnic_cm_reject(id, cmd->reason ?: RNIC_CM_REJ_CONSUMER_DEFINED,
			      cmd->private_data, cmd->private_data_len);
}

static int rnic_cm_establish_cmd(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_id_cmd *cmd = ucmd->cmd;
	struct rnic_cm_id *id = ucmd->id;

	if (cmd->__reserved)
		return -EINVAL;
	return rnic_cm_establish(id);
}

static int rnic_cm_disconnect_cmd(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_disconnect *cmd = ucmd->cmd;
	struct rnic_cm_id *id = ucmd->id;

	if (memchr_inv(cmd->__reserved, 0, sizeof(cmd->__reserved)) ||
	    cmd->private_data_len > RNIC_CM_DREQ_PRIVATE_DATA)
		return -EINVAL;
	return rnic_cm_disconnect(id, cmd->private_data,
				  cmd->private_data_len);
}

static int rnic_cm_notify(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_notify *cmd = ucmd->cmd;
	struct rnic_cm_id *id = ucmd->id;

	/* IBV_EVENT_COMM_EST: data came before the RTU; it is as good. */
	if (cmd->event == 4 && id->state == RNIC_CM_REP_SENT)
		return rnic_cm_establish(id);
	return 0;
}

static int rnic_cm_init_qp_attr_cmd(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_init_qp_attr *cmd = ucmd->cmd;
	struct rnic_cm_id *id = ucmd->id;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	memset(&cmd->out_attr, 0, sizeof(cmd->out_attr));
	ret = rnic_cm_init_qp_attr(id, cmd->qp_state, &cmd->out_attr,
				   &cmd->out_attr_mask);
	if (ret)
		return ret;
	return rnic_cm_respond(ucmd, sizeof(*cmd));
}

static int rnic_cm_set_option(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_set_option *cmd = ucmd->cmd;
	struct rnic_cm_id *id = ucmd->id;
	u64 v = cmd->value;

	if (cmd->__reserved)
		return -EINVAL;
	if (cmd->level != RNIC_CM_OPTION_ID)
		return -EOPNOTSUPP;
	switch (cmd->optname) {
	case RNIC_CM_OPTION_ID_TOS:
		if (v > 255)
			return -EINVAL;
		id->tos = v;
		return 0;
	case RNIC_CM_OPTION_ID_REUSEADDR:
	case RNIC_CM_OPTION_ID_AFONLY:
		if (v > 1)
			return -EINVAL;
		if (id->bound)
			return -EINVAL;
		if (cmd->optname == RNIC_CM_OPTION_ID_REUSEADDR)
			id->reuseaddr = v;
		else
			id->afonly = v;
		return 0;
	case RNIC_CM_OPTION_ID_ACK_TIMEOUT:
		if (v > 31)
			return -EINVAL;
		id->ack_timeout = v;
		return 0;
	}
	return -EOPNOTSUPP;
}

static int rnic_cm_join_mcast(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_join_mcast *cmd = ucmd->cmd;
	struct sockaddr_storage addr;
	int ret;

	if (cmd->join_flags != RNIC_CM_MC_JOIN_FULLMEMBER &&
	    cmd->join_flags != RNIC_CM_MC_JOIN_SENDONLY_FULLMEMBER)
		return cmd->join_flags ? -EOPNOTSUPP : -EINVAL;
	ret = rnic_cm_addr_in(&addr, &cmd->addr, false);
	if (ret)
		return ret;
	return rnic_cm_join(ucmd->id, &addr, cmd->uid);
}

static int rnic_cm_leave_mcast(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_join_mcast *cmd = ucmd->cmd;
	struct sockaddr_storage addr;
	int ret;

	if (cmd->join_flags || cmd->uid)
		return -EINVAL;
	ret = rnic_cm_addr_in(&addr, &cmd->addr, false);
	if (ret)
		return ret;
	return rnic_cm_leave(ucmd->id, &addr);
}

/* The file behind @fd, if it is an rnic_cm file. */
static struct rnic_cm_file *rnic_cm_fdget(struct fd *f, int fd);

static int rnic_cm_migrate_id(struct rnic_cm_ucmd *ucmd)
{
	struct rnic_cm_migrate_id *cmd = ucmd->cmd;
	struct rnic_cm_file *to = ucmd->file, *from;
	struct rnic_cm_event *ev, *next;
	struct rnic_cm_id *id;
	struct fd f;
	u32 handle;
	int ret;

	from = rnic_cm_fdget(&f, cmd->fd);
	if (IS_ERR(from))
		return PTR_ERR(from);
	id = rnic_cm_id_get(from, cmd->id);
	ret = PTR_ERR_OR_ZERO(id);
	if (ret || from == to) {
		if (!ret) {
			cmd->out_id = id->handle;
			cmd->out_events_reported = id->events_reported;
			ret = rnic_cm_respond(ucmd, sizeof(*cmd));
		}
		goto out;
	}
	/* A listener's requests are ids of its file: they stay with it. */
	if (id->state == RNIC_CM_LISTEN) {
		ret = -EINVAL;
		goto out;
	}
	ret = xa_alloc(&to->ids, &handle, id, xa_limit_31b,
		       GFP_KERNEL_ACCOUNT);
	if (ret)
		goto out;
	cmd->out_id = handle;
	cmd->out_events_reported = id->events_reported;
	ret = rnic_cm_respond(ucmd, sizeof(*cmd));
	if (ret) {
		xa_erase(&to->ids, handle);
		goto out;
	}
	xa_erase(&from->ids, id->handle);
	id->handle = handle;
	id->file = to;
	/* Its queued events move with it, in order, after the new file's. */
	spin_lock_irq(&from->lock);
	spin_lock_nested(&to->lock, SINGLE_DEPTH_NESTING);
	list_for_each_entry_safe(ev, next, &from->events, node)
		if (ev->id == id) {
			ev->desc.out_id = handle;
			list_move_tail(&ev->node, &to->events);
		}
	spin_unlock(&to->lock);
	spin_unlock_irq(&from->lock);
	wake_up_interruptible(&to->wait);
out:
	fdput(f);
	return ret;
}

/**
 * struct rnic_cm_ioctl_op - an ioctl of the CM char device
 * @execute: the command, under rnic_cm_lock
 * @size: the kernel's size of its struct
 * @min_size: the first version's size
 * @ioctl_num: its number
 * @takes_id: its struct names an id after size and flags: the dispatcher
 *	looks it up (ENOENT)
 */
struct rnic_cm_ioctl_op {
	int (*execute)(struct rnic_cm_ucmd *ucmd);
	u16 size;
	u16 min_size;
	unsigned int ioctl_num;
	bool takes_id;
};

#define __RNIC_CM_OP(NAME, fn, type, id)                                    \
	[RNIC_CM_CMD_##NAME - RNIC_CM_CMD_BASE] = {                         \
		.execute = fn, .size = sizeof(type),                        \
		.min_size = sizeof(type),                                   \
		.ioctl_num = RNIC_CM_IOCTL_##NAME,                          \
		.takes_id = id,                                             \
	}
/* A command on an id (its struct's id where struct rnic_cm_cmd_hdr's is) */
#define RNIC_CM_OP(NAME, fn, type) __RNIC_CM_OP(NAME, fn, type, true)
/* A command on the file */
#define RNIC_CM_FILE_OP(NAME, fn, type) __RNIC_CM_OP(NAME, fn, type, false)

static const struct rnic_cm_ioctl_op rnic_cm_ioctl_ops[] = {
	RNIC_CM_FILE_OP(CREATE_ID, rnic_cm_create_id, struct rnic_cm_create_id),
	RNIC_CM_OP(DESTROY_ID, rnic_cm_destroy_id, struct rnic_cm_destroy_id),
	RNIC_CM_OP(BIND_ADDR, rnic_cm_bind_addr, struct rnic_cm_bind_addr),
	RNIC_CM_OP(RESOLVE_ADDR, rnic_cm_resolve_addr_cmd,
		   struct rnic_cm_resolve_addr),
	RNIC_CM_OP(RESOLVE_ROUTE, rnic_cm_resolve_route_cmd,
		   struct rnic_cm_resolve_route),
	RNIC_CM_OP(QUERY, rnic_cm_query, struct rnic_cm_query),
	RNIC_CM_OP(LISTEN, rnic_cm_listen, struct rnic_cm_listen),
	RNIC_CM_OP(CONNECT, rnic_cm_connect_cmd, struct rnic_cm_connect),
	RNIC_CM_OP(ACCEPT, rnic_cm_accept_cmd, struct rnic_cm_accept),
	RNIC_CM_OP(REJECT, rnic_cm_reject_cmd, struct rnic_cm_reject),
	RNIC_CM_OP(ESTABLISH, rnic_cm_establish_cmd, struct rnic_cm_id_cmd),
	RNIC_CM_OP(DISCONNECT, rnic_cm_disconnect_cmd,
		   struct rnic_cm_disconnect),
	RNIC_CM_OP(NOTIFY, rnic_cm_notify, struct rnic_cm_notify),
	RNIC_CM_OP(INIT_QP_ATTR, rnic_cm_init_qp_attr_cmd,
		   struct rnic_cm_init_qp_attr),
	RNIC_CM_FILE_OP(GET_EVENT, NULL, struct rnic_cm_get_event),
	RNIC_CM_OP(SET_OPTION, rnic_cm_set_option, struct rnic_cm_set_option),
	RNIC_CM_FILE_OP(MIGRATE_ID, rnic_cm_migrate_id,
			struct rnic_cm_migrate_id),
	RNIC_CM_OP(JOIN_MCAST, rnic_cm_join_mcast, struct rnic_cm_join_mcast),
	RNIC_CM_OP(LEAVE_MCAST, rnic_cm_leave_mcast,
		   struct rnic_cm_join_mcast),
};

#define RNIC_CM_ID_AT_HDR(type) \
	static_assert(offsetof(type, id) == offsetof(struct rnic_cm_cmd_hdr, id))
RNIC_CM_ID_AT_HDR(struct rnic_cm_destroy_id);
RNIC_CM_ID_AT_HDR(struct rnic_cm_bind_addr);
RNIC_CM_ID_AT_HDR(struct rnic_cm_resolve_addr);
RNIC_CM_ID_AT_HDR(struct rnic_cm_resolve_route);
RNIC_CM_ID_AT_HDR(struct rnic_cm_query);
RNIC_CM_ID_AT_HDR(struct rnic_cm_listen);
RNIC_CM_ID_AT_HDR(struct rnic_cm_connect);
RNIC_CM_ID_AT_HDR(struct rnic_cm_accept);
RNIC_CM_ID_AT_HDR(struct rnic_cm_reject);
RNIC_CM_ID_AT_HDR(struct rnic_cm_id_cmd);
RNIC_CM_ID_AT_HDR(struct rnic_cm_disconnect);
RNIC_CM_ID_AT_HDR(struct rnic_cm_notify);
RNIC_CM_ID_AT_HDR(struct rnic_cm_init_qp_attr);
RNIC_CM_ID_AT_HDR(struct rnic_cm_set_option);
RNIC_CM_ID_AT_HDR(struct rnic_cm_join_mcast);

/*
 * GET_EVENT: wait for the oldest event (unless O_NONBLOCK), hand it out
 * and count it as reported on its id.
 */
static int rnic_cm_get_event(struct rnic_cm_ucmd *ucmd, struct file *filp)
{
	struct rnic_cm_file *file = ucmd->file;
	struct rnic_cm_event *ev;
	int ret;

	spin_lock_irq(&file->lock);
	while (list_empty(&file->events)) {
		spin_unlock_irq(&file->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(file->wait,
					       !list_empty(&file->events));
		if (ret)
			return ret;
		spin_lock_irq(&file->lock);
	}
	ev = list_first_entry(&file->events, struct rnic_cm_event, node);
	list_del(&ev->node);
	spin_unlock_irq(&file->lock);

	ret = copy_to_user(ucmd->ubuffer, &ev->desc,
			   min_t(size_t, ucmd->user_size, sizeof(ev->desc))) ?
	      -EFAULT : 0;
	mutex_lock(&rnic_cm_lock);
	if (ret) {
		/* Put it back, first: nothing is lost to a bad pointer. */
		if (ev->id->file == file) {
			spin_lock_irq(&file->lock);
			list_add(&ev->node, &file->events);
			spin_unlock_irq(&file->lock);
			ev = NULL;
		}
	} else {
		ev->id->events_reported++;
	}
	mutex_unlock(&rnic_cm_lock);
	if (ev) {
		rnic_cm_id_put(ev->id);
		kfree(ev);
	}
	return ret;
}

static long rnic_cm_ioctl(struct file *filp, unsigned int cmd,
			  unsigned long arg)
{
	const struct rnic_cm_ioctl_op *op;
	union {
		struct rnic_cm_connect connect;
		struct rnic_cm_accept accept;
		struct rnic_cm_reject reject;
		struct rnic_cm_disconnect disconnect;
		struct rnic_cm_query query;
		struct rnic_cm_resolve_addr resolve_addr;
		struct rnic_cm_init_qp_attr init_qp_attr;
		struct rnic_cm_get_event get_event;
	} *buf;
	const struct rnic_cm_cmd_hdr *hdr;
	struct rnic_cm_ucmd ucmd = {
		.file = filp->private_data,
		.ubuffer = (void __user *)arg,
	};
	unsigned int nr = _IOC_NR(cmd);
	long ret;

	if (_IOC_TYPE(cmd) != RNIC_IOCTL_MAGIC || nr < RNIC_CM_CMD_BASE ||
	    nr - RNIC_CM_CMD_BASE >= ARRAY_SIZE(rnic_cm_ioctl_ops))
		return -ENOTTY;
	op = &rnic_cm_ioctl_ops[nr - RNIC_CM_CMD_BASE];
	if (op->ioctl_num != cmd)
		return -ENOTTY;
	ret = get_user(ucmd.user_size, (u32 __user *)ucmd.ubuffer);
	if (ret)
		return ret;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ucmd.cmd = buf;
	ret = copy_struct_from_user(buf, op->size, ucmd.ubuffer,
				    ucmd.user_size);
	if (ret)
		goto out;
	hdr = ucmd.cmd;
	if (hdr->flags) {
		ret = -EINVAL;
		goto out;
	}
	if (!op->execute) {
		ret = rnic_cm_get_event(&ucmd, filp);
		goto out;
	}
	mutex_lock(&rnic_cm_lock);
	if (op->takes_id) {
		ucmd.id = xa_load(&ucmd.file->ids, hdr->id);
		ret = ucmd.id ? op->execute(&ucmd) : -ENOENT;
	} else {
		ret = op->execute(&ucmd);
	}
	mutex_unlock(&rnic_cm_lock);
out:
	kfree(buf);
	return ret;
}

static __poll_t rnic_cm_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct rnic_cm_file *file = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &file->wait, wait);
	spin_lock_irq(&file->lock);
	if (!list_empty(&file->events))
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock_irq(&file->lock);
	return mask;
}

static int rnic_cm_open(struct inode *inode, struct file *filp)
{
	struct rnic_cm_file *file;

	file = kzalloc(sizeof(*file), GFP_KERNEL_ACCOUNT);
	if (!file)
		return -ENOMEM;
	xa_init_flags(&file->ids, XA_FLAGS_ALLOC1);
	file->net = get_net(current->nsproxy->net_ns);
	file->pid = get_task_pid(current, PIDTYPE_TGID);
	get_task_comm(file->comm, current);
	spin_lock_init(&file->lock);
	INIT_LIST_HEAD(&file->events);
	init_waitqueue_head(&file->wait);
	filp->private_data = file;
	return nonseekable_open(inode, filp);
}

static int rnic_cm_release(struct inode *inode, struct file *filp)
{
	struct rnic_cm_file *file = filp->private_data;
	struct rnic_cm_id *id;
	unsigned long handle;

	mutex_lock(&rnic_cm_lock);
	xa_for_each(&file->ids, handle, id)
		rnic_cm_id_destroy(id);
	mutex_unlock(&rnic_cm_lock);
	/* Every event held a reference of an id of the file: none left. */
	WARN_ON(!list_empty(&file->events));
	xa_destroy(&file->ids);
	put_pid(file->pid);
	put_net(file->net);
	kfree(file);
	return 0;
}

static const struct file_operations rnic_cm_fops = {
	.owner = THIS_MODULE,
	.open = rnic_cm_open,
	.release = rnic_cm_release,
	.unlocked_ioctl = rnic_cm_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.poll = rnic_cm_poll,
	.llseek = no_llseek,
};

static struct rnic_cm_file *rnic_cm_fdget(struct fd *f, int fd)
{
	*f = fdget(fd);
	if (!f->file)
		return ERR_PTR(-EBADF);
	if (f->file->f_op != &rnic_cm_fops) {
		fdput(*f);
		return ERR_PTR(-EINVAL);
	}
	return f->file->private_data;
}

/* An address attribute of the listing: the family's bytes, zeros after. */
static int rnic_cm_nl_put_addr(struct sk_buff *skb, int type,
			       const struct sockaddr_storage *addr)
{
	struct rnic_cm_sockaddr sa = {};

	if (!addr->ss_family)
		return 0;
	memcpy(&sa, addr, addr->ss_family == AF_INET ?
	       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	return nla_put(skb, type, sizeof(sa), &sa);
}

/* One id's message of the listing (rnic-netlink.h says what it holds). */
static int rnic_cm_nl_put(struct sk_buff *skb, struct netlink_callback *cb,
			  const struct rnic_cm_id *id, pid_t pid)
{
	void *hdr = rnic_nl_dump_msg(skb, cb);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, RNIC_NL_ATTR_CTX_PID, pid) ||
	    nla_put_string(skb, RNIC_NL_ATTR_CTX_COMM, id->file->comm) ||
	    nla_put_u8(skb, RNIC_NL_ATTR_RES_CM_STATE, id->state) ||
	    nla_put_u32(skb, RNIC_NL_ATTR_RES_CM_PS, id->ps) ||
	    nla_put_u8(skb, RNIC_NL_ATTR_RES_QP_TYPE, id->qp_type) ||
	    (id->rdev &&
	     (nla_put_string(skb, RNIC_NL_ATTR_DEV_NAME,
			     rnic_dev_name(id->rdev)) ||
	      nla_put_u32(skb, RNIC_NL_ATTR_DEV_INDEX, id->rdev->index))) ||
	    rnic_cm_nl_put_addr(skb, RNIC_NL_ATTR_RES_SRC_ADDR, &id->src) ||
	    rnic_cm_nl_put_addr(skb, RNIC_NL_ATTR_RES_DST_ADDR, &id->dst) ||
	    (id->conn.qpn &&
	     nla_put_u32(skb, RNIC_NL_ATTR_RES_LQPN, id->conn.qpn))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * rnic_cm_nl_dumpit() - RNIC_NL_CMD_RES_CM_ID_GET: list the CM ids
 * @skb: the dump's message buffer
 * @cb: the dump; cb->args[0] is the res_id to resume at
 *
 * The ids of the files opened in the reader's network namespace, by a
 * process its pid namespace sees; with DEV_NAME, only those on that
 * device. In res_id order, so that a dump resumes where its last buffer
 * filled up; an id made or destroyed meanwhile may be missed.
 *
 * Return: the bytes put in @skb (0: the dump is over) or a negative errno.
 */
int rnic_cm_nl_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct nlattr *name =
		genl_dumpit_info(cb)->attrs[RNIC_NL_ATTR_DEV_NAME];
	struct pid_namespace *pid_ns = task_active_pid_ns(current);
	struct net *net = sock_net(skb->sk);
	unsigned long index = cb->args[0];
	struct rnic_cm_id *id;
	int ret = 0;
	pid_t pid;

	mutex_lock(&rnic_cm_lock);
	xa_for_each_start(&rnic_cm_ids, index, id, index) {
		if (!net_eq(id->file->net, net))
			continue;
		pid = pid_nr_ns(id->file->pid, pid_ns);
		if (!pid)
			continue;
		if (name && (!id->rdev ||
			     nla_strcmp(name, rnic_dev_name(id->rdev))))
			continue;
		ret = rnic_cm_nl_put(skb, cb, id, pid);
		if (ret)
			break;
	}
	mutex_unlock(&rnic_cm_lock);
	/* resume at the id that did not fit; past every res_id when done */
	cb->args[0] = ret ? index : ULONG_MAX;
	if (ret == -EMSGSIZE && skb->len)
		ret = 0;
	return ret ?: skb->len;
}

static struct miscdevice rnic_cm_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "rnic_cm",
	.nodename = "infiniband/rnic_cm",
	.mode = 0666,
	.fops = &rnic_cm_fops,
};

/**
 * rnic_cm_init() - start the connection manager: its workqueue, the
 *	protocol's tables and the char device
 *
 * Return: 0 or a negative errno.
 */
int rnic_cm_init(void)
{
	int ret;

	/* ordered: MADs are handled in the order they came, as IB CM's are */
	rnic_cm_wq = alloc_ordered_workqueue("rnic_cm", 0);
	if (!rnic_cm_wq)
		return -ENOMEM;
	ret = rnic_cm_proto_init();
	if (ret)
		goto err_wq;
	ret = misc_register(&rnic_cm_misc);
	if (ret)
		goto err_proto;
	return 0;

err_proto:
	rnic_cm_proto_exit();
err_wq:
	destroy_workqueue(rnic_cm_wq);
	return ret;
}

/**
 * rnic_cm_exit() - stop it: no file is open (each holds the module)
 *
 * The MADs still queued are handled (and find no id) before the
 * workqueue goes.
 */
void rnic_cm_exit(void)
{
	misc_deregister(&rnic_cm_misc);
	flush_workqueue(rnic_cm_wq);
	rnic_cm_proto_exit();
	destroy_workqueue(rnic_cm_wq);
	if (atomic_read(&rnic_cm_nids))
		pr_err("rnic: leak: %d CM ids at unload\n",
		       atomic_read(&rnic_cm_nids));
}
