// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - protection domains.
 */
#include "verbs/verbs.h"

int rnic_alloc_pd(struct rnic_ucmd *ucmd)
{
	struct rnic_alloc_pd *cmd = ucmd->cmd;
	struct rnic_pd *pd;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;

	/* A PD holds nothing; its users hold references on it. */
	pd = rnic_uobj_alloc(ucmd->ctx, RNIC_OBJ_PD, sizeof(*pd), NULL);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	cmd->out_handle = pd->uobj.handle;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		rnic_uobj_abort(&pd->uobj);
		return ret;
	}
	rnic_uobj_finalize(&pd->uobj);
	return 0;
}

int rnic_dealloc_pd(struct rnic_ucmd *ucmd)
{
	struct rnic_destroy *cmd = ucmd->cmd;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	return rnic_uobj_destroy(ucmd->ctx, cmd->handle, RNIC_OBJ_PD);
}

/* See rnic.h. */
int rnic_pd_nl_fill(struct sk_buff *msg, struct rnic_uobj *uobj)
{
	return rnic_uobj_nl_fill(msg, uobj);
}
