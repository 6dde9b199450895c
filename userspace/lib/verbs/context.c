// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: contexts (ibv_open_device(), ibv_close_device()) and the device
 * and port queries, each one ioctl on the context's char device.
 *
 * A context is allocated as rdma-core lays it out: the extended operations
 * (struct verbs_context) in front of the struct ibv_context the application
 * holds, whose ops table points at librnic's data path. A binary built
 * against rdma-core's header reaches librnic through those tables.
 *
 * The uapi structs use __u32 for values that struct ibv_device_attr and
 * struct ibv_port_attr keep in int, uint16_t or uint8_t; a kernel value too
 * big for the ibv field saturates at the field's maximum rather than
 * wrapping around.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "internal.h"

/* The header's macro would rename the entry point defined below. */
#undef ibv_query_port

static int sat_int(__u32 v)
{
	return v > INT_MAX ? INT_MAX : (int)v;
}

static uint16_t sat_u16(__u32 v)
{
	return v > UINT16_MAX ? UINT16_MAX : (uint16_t)v;
}

static uint8_t sat_u8(__u32 v)
{
	return v > UINT8_MAX ? UINT8_MAX : (uint8_t)v;
}

/* Issue a query ioctl; returns 0 or an errno value (errno is set too). */
int rnic_cmd(struct ibv_context *context, unsigned long cmd, void *arg)
{
	if (ioctl(context->cmd_fd, cmd, arg))
		return errno;
	return 0;
}

static int query_device(struct ibv_context *context,
			struct rnic_query_device *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	return rnic_cmd(context, RNIC_IOCTL_QUERY_DEVICE, q);
}

/*
 * Fill the operation tables: the data path in ibv_context.ops, the
 * extended verbs rnic has in the verbs_context; the rest stay NULL, which
 * rdma-core's inline wrappers turn into EOPNOTSUPP.
 */
static void set_ops(struct rnic_context *rctx)
{
	struct verbs_context *vctx = &rctx->vctx;
	struct ibv_context_ops *ops = &vctx->context.ops;

	ops->poll_cq = ibv_poll_cq;
	ops->req_notify_cq = ibv_req_notify_cq;
	ops->post_srq_recv = ibv_post_srq_recv;
	ops->post_send = ibv_post_send;
	ops->post_recv = ibv_post_recv;
	ops->alloc_mw = rnic_alloc_mw;
	ops->bind_mw = rnic_bind_mw;
	ops->dealloc_mw = rnic_dealloc_mw;

	vctx->query_port = rnic_query_port;
	vctx->query_device_ex = rnic_query_device_ex;
	vctx->create_cq_ex = rnic_create_cq_ex;
	vctx->create_qp_ex = rnic_create_qp_ex;
	vctx->create_srq_ex = rnic_create_srq_ex;
	vctx->get_srq_num = rnic_get_srq_num;
	vctx->open_qp = rnic_open_qp;
	vctx->open_xrcd = rnic_open_xrcd;
	vctx->close_xrcd = rnic_close_xrcd;
	vctx->sz = sizeof(*vctx);
	vctx->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct rnic_create_async_fd async = { .size = sizeof(async) };
	struct rnic_query_device q;
	struct rnic_context *rctx;
	struct rnic_device *rdev;
	struct ibv_context *ctx;
	struct stat st;
	int fd, ret;

	if (!device) {
		errno = EINVAL;
		return NULL;
	}
	rdev = to_rdev(device);

	fd = open(rdev->node_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/*
	 * The node must be the char device sysfs names: a stale node of a
	 * removed device, or one of another driver, is not ours to talk to.
	 */
	if (fstat(fd, &st)) {
		ret = errno;
		goto err_close;
	}
	if (!S_ISCHR(st.st_mode) || st.st_rdev != rdev->devt) {
		rnic_debug("%s: %s is not the char device of %s",
			   device->name, rdev->node_path, device->name);
		ret = ENODEV;
		goto err_close;
	}

	rctx = calloc(1, sizeof(*rctx));
	if (!rctx) {
		ret = ENOMEM;
		goto err_close;
	}
	ctx = &rctx->vctx.context;
	ctx->device = device;
	ctx->cmd_fd = fd;
	set_ops(rctx);

	/* One query now, so that num_comp_vectors is known. */
	ret = query_device(ctx, &q);
	if (ret)
		goto err_free;
	ctx->num_comp_vectors = sat_int(q.out_num_comp_vectors);

	/* The descriptor ibv_get_async_event() reads. */
	ret = rnic_cmd(ctx, RNIC_IOCTL_CREATE_ASYNC_FD, &async);
	if (ret)
		goto err_free;
	ctx->async_fd = async.out_fd;

	ret = pthread_mutex_init(&ctx->mutex, NULL);
	if (ret)
		goto err_async;

	rnic_device_get(rdev);
	rctx->rdev = rdev;
	return ctx;

err_async:
	close(ctx->async_fd);
err_free:
	free(rctx);
err_close:
	close(fd);
	errno = ret;
	return NULL;
}

int ibv_close_device(struct ibv_context *context)
{
	struct rnic_context *rctx;
	int ret;

	if (!context) {
		errno = EINVAL;
		return -1;
	}
	rctx = to_rctx(context);

	/*
	 * Closing the file destroys, in the kernel, everything the context
	 * still owns (objects whose rings are still mapped keep it until
	 * they are unmapped). close() releases the descriptor even when it
	 * reports an error, so the context is gone in every case; so is its
	 * asynchronous event descriptor.
	 */
	ret = close(context->cmd_fd) ? errno : 0;
	close(context->async_fd);
	pthread_mutex_destroy(&context->mutex);
	rnic_device_put(rctx->rdev);
	free(rctx);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

static void fill_device_attr(struct ibv_device_attr *a,
			     const struct rnic_query_device *q)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), RNIC_FW_VER_FMT,
		 RNIC_FW_VER_MAJOR(q->out_fw_ver),
		 RNIC_FW_VER_MINOR(q->out_fw_ver),
		 RNIC_FW_VER_PATCH(q->out_fw_ver));
	a->node_guid = q->out_node_guid;
	a->sys_image_guid = q->out_sys_image_guid;
	a->max_mr_size = q->out_max_mr_size;
	a->page_size_cap = q->out_page_size_cap;
	a->vendor_id = q->out_vendor_id;
	a->vendor_part_id = q->out_vendor_part_id;
	a->hw_ver = q->out_hw_ver;
	a->max_qp = sat_int(q->out_max_qp);
	a->max_qp_wr = sat_int(q->out_max_qp_wr);
	/* Bits above 31 are the _ex flags, outside this struct's reach. */
	a->device_cap_flags = (unsigned int)(q->out_device_cap_flags &
					     0xffffffffu);
	a->max_sge = sat_int(q->out_max_sge);
	a->max_sge_rd = sat_int(q->out_max_sge_rd);
	a->max_cq = sat_int(q->out_max_cq);
	a->max_cqe = sat_int(q->out_max_cqe);
	a->max_mr = sat_int(q->out_max_mr);
	a->max_pd = sat_int(q->out_max_pd);
	a->max_qp_rd_atom = sat_int(q->out_max_qp_rd_atom);
	a->max_res_rd_atom = sat_int(q->out_max_res_rd_atom);
	a->max_qp_init_rd_atom = sat_int(q->out_max_qp_init_rd_atom);
	a->atomic_cap = (enum ibv_atomic_cap)q->out_atomic_cap;
	a->max_mw = sat_int(q->out_max_mw);
	a->max_mcast_grp = sat_int(q->out_max_mcast_grp);
	a->max_mcast_qp_attach = sat_int(q->out_max_mcast_qp_attach);
	a->max_total_mcast_qp_attach =
		sat_int(q->out_max_total_mcast_qp_attach);
	a->max_ah = sat_int(q->out_max_ah);
	a->max_srq = sat_int(q->out_max_srq);
	a->max_srq_wr = sat_int(q->out_max_srq_wr);
	a->max_srq_sge = sat_int(q->out_max_srq_sge);
	a->max_pkeys = sat_u16(q->out_max_pkeys);
	a->local_ca_ack_delay = sat_u8(q->out_local_ca_ack_delay);
	a->phys_port_cnt = sat_u8(q->out_phys_port_cnt);
}

int ibv_query_device(struct ibv_context *context,
		     struct ibv_device_attr *device_attr)
{
	struct rnic_query_device q;
	int ret;

	if (!context || !device_attr) {
		errno = EINVAL;
		return EINVAL;
	}
	ret = query_device(context, &q);
	if (ret)
		return ret;
	fill_device_attr(device_attr, &q);
	return 0;
}

/*
 * Copy a growable struct the library filled (@ours, @ours_len bytes) into
 * the caller's build of it (@len bytes): a shorter one gets the prefix, a
 * longer one (a newer header than librnic's) zeros past what we know.
 */
static void copy_sized(void *dst, size_t len, const void *ours,
		       size_t ours_len)
{
	memset(dst, 0, len);
	memcpy(dst, ours, len < ours_len ? len : ours_len);
}

int rnic_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex a;
	struct rnic_query_device q;
	int ret;

	if (!context || !attr || (input && input->comp_mask) ||
	    attr_size < sizeof(a.orig_attr)) {
		errno = EINVAL;
		return EINVAL;
	}
	ret = query_device(context, &q);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	fill_device_attr(&a.orig_attr, &q);
	a.device_cap_flags_ex = q.out_device_cap_flags;
	a.phys_port_cnt_ex = q.out_phys_port_cnt;
	copy_sized(attr, attr_size, &a, sizeof(a));
	return 0;
}

int rnic_query_port(struct ibv_context *context, uint8_t port_num,
		    struct ibv_port_attr *port_attr, size_t port_attr_len)
{
	struct ibv_port_attr attr, *a = &attr;
	struct rnic_query_port q;
	int ret;

	if (!context || !port_attr) {
		errno = EINVAL;
		return EINVAL;
	}
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.port_num = port_num;
	ret = rnic_cmd(context, RNIC_IOCTL_QUERY_PORT, &q);
	if (ret)
		return ret;

	memset(a, 0, sizeof(*a));
	a->state = (enum ibv_port_state)q.out_state;
	a->max_mtu = (enum ibv_mtu)q.out_max_mtu;
	a->active_mtu = (enum ibv_mtu)q.out_active_mtu;
	a->gid_tbl_len = sat_int(q.out_gid_tbl_len);
	a->port_cap_flags = q.out_port_cap_flags;
	a->max_msg_sz = q.out_max_msg_sz;
	a->bad_pkey_cntr = q.out_bad_pkey_cntr;
	a->qkey_viol_cntr = q.out_qkey_viol_cntr;
	a->pkey_tbl_len = sat_u16(q.out_pkey_tbl_len);
	a->lid = sat_u16(q.out_lid);
	a->sm_lid = sat_u16(q.out_sm_lid);
	a->lmc = sat_u8(q.out_lmc);
	a->max_vl_num = sat_u8(q.out_max_vl_num);
	a->sm_sl = sat_u8(q.out_sm_sl);
	a->subnet_timeout = sat_u8(q.out_subnet_timeout);
	a->init_type_reply = sat_u8(q.out_init_type_reply);
	a->active_width = sat_u8(q.out_active_width);
	a->active_speed = sat_u8(q.out_active_speed);
	a->phys_state = sat_u8(q.out_phys_state);
	a->link_layer = sat_u8(q.out_link_layer);
	a->flags = sat_u8(q.out_port_flags);
	a->port_cap_flags2 = sat_u16(q.out_port_cap_flags2);
	a->active_speed_ex = q.out_active_speed_ex;
	copy_sized(port_attr, port_attr_len, a, sizeof(*a));
	return 0;
}

/*
 * The exported entry point serves binaries built before struct
 * ibv_port_attr grew (newer ones go through verbs_context.query_port),
 * so it writes the old struct's bytes only.
 */
int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct ibv_port_attr *port_attr)
{
	return rnic_query_port(context, port_num, port_attr,
			       RNIC_PORT_ATTR_COMPAT_SIZE);
}

int rnic_query_gid(struct ibv_context *context, uint32_t port_num,
		   uint32_t index, struct rnic_query_gid *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->port_num = port_num;
	q->index = index;
	return rnic_cmd(context, RNIC_IOCTL_QUERY_GID, q);
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
		  union ibv_gid *gid)
{
	struct rnic_query_gid q;

	if (!context || !gid || index < 0) {
		errno = EINVAL;
		return -1;
	}
	if (rnic_query_gid(context, port_num, (uint32_t)index, &q)) {
		/* An empty entry reads as the zero GID, as in rdma-core. */
		if (errno != ENODATA)
			return -1;
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	memcpy(gid->raw, q.out_gid, sizeof(gid->raw));
	return 0;
}

int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
		   __be16 *pkey)
{
	struct rnic_query_pkey q;

	if (!context || !pkey || index < 0) {
		errno = EINVAL;
		return -1;
	}
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.port_num = port_num;
	q.index = (__u32)index;
	if (rnic_cmd(context, RNIC_IOCTL_QUERY_PKEY, &q))
		return -1;
	/* The kernel answers in host order, the verbs API in network order. */
	*pkey = htobe16((uint16_t)q.out_pkey);
	return 0;
}
