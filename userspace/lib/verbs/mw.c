// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: memory windows. rdma-core's ibv_alloc_mw(), ibv_dealloc_mw()
 * and ibv_bind_mw() are inline functions that call these through
 * ibv_context.ops (context.c).
 *
 * ibv_bind_mw() (type 1) is a bind work request in the QP's send queue,
 * as for a type 2 window: the kernel executes both alike. The window's
 * rkey changes when the bind is posted, as the verbs say: the new one is
 * the old with the next key byte.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

struct ibv_mw *rnic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct rnic_alloc_mw cmd = {
		.size = sizeof(cmd),
		.pd_handle = pd->handle,
		.type = (uint32_t)type,
	};
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = rnic_cmd(pd->context, RNIC_IOCTL_ALLOC_MW, &cmd);
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = cmd.out_rkey;
	mw->handle = cmd.out_handle;
	mw->type = type;
	return mw;
}

int rnic_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = rnic_destroy_obj(mw->context, RNIC_IOCTL_DEALLOC_MW, mw->handle);
	if (ret)
		return ret;
	free(mw);
	return 0;
}

int rnic_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = mw_bind->bind_info,
		},
	};
	struct ibv_send_wr *bad;
	int ret;

	ret = ibv_post_send(qp, &wr, &bad);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}
