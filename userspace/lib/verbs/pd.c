// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: protection domains.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct rnic_alloc_pd cmd = { .size = sizeof(cmd) };
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	ret = rnic_cmd(context, RNIC_IOCTL_ALLOC_PD, &cmd);
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	pd->context = context;
	pd->handle = cmd.out_handle;
	return pd;
}

int rnic_destroy_obj(struct ibv_context *context, unsigned long cmd,
		     uint32_t handle)
{
	struct rnic_destroy arg = { .size = sizeof(arg), .handle = handle };

	return rnic_cmd(context, cmd, &arg);
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	int ret;

	ret = rnic_destroy_obj(pd->context, RNIC_IOCTL_DEALLOC_PD, pd->handle);
	if (ret)
		return ret;
	free(pd);
	return 0;
}
