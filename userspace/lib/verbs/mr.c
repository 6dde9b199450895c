// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: memory regions.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access)
{
	struct rnic_reg_mr cmd = {
		.size = sizeof(cmd),
		.pd_handle = pd->handle,
		.access = (uint32_t)access,
		.addr = (uintptr_t)addr,
		.length = length,
		.iova = iova,
	};
	struct ibv_mr *mr;
	int ret;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	ret = rnic_cmd(pd->context, RNIC_IOCTL_REG_MR, &cmd);
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->handle = cmd.out_handle;
	mr->lkey = cmd.out_lkey;
	mr->rkey = cmd.out_rkey;
	return mr;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access)
{
	return ibv_reg_mr_iova(pd, addr, length, (uintptr_t)addr, access);
}

/*
 * The optional access bits are hints a device may ignore: rnic keeps
 * RELAXED_ORDERING (which it accepts) and drops the others, as rdma-core
 * does for a kernel without them.
 */
struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	unsigned int ignored = IBV_ACCESS_OPTIONAL_RANGE &
			       ~(unsigned int)IBV_ACCESS_RELAXED_ORDERING;

	return ibv_reg_mr_iova(pd, addr, length, iova,
			       (int)(access & ~ignored));
}

/* rnic's kernel has no re-registration; the MR stays as it was. */
int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		 size_t length, int access)
{
	(void)mr;
	(void)pd;
	(void)addr;
	(void)length;
	(void)access;
	if (!flags || (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED))
		errno = EINVAL;
	else
		errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	int ret;

	ret = rnic_destroy_obj(mr->context, RNIC_IOCTL_DEREG_MR, mr->handle);
	if (ret)
		return ret;
	free(mr);
	return 0;
}
