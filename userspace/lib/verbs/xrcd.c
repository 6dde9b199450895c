// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: XRC domains. rdma-core's ibv_open_xrcd() and ibv_close_xrcd()
 * are inline functions that call these through the verbs_context
 * (context.c). The domain is the kernel's (DOC "rnic XRC domains" in
 * rnic-abi.h): sharing it by file, and its lifetime across contexts, are
 * decided there; the library keeps only this context's handle.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

/* rdma-core's rule: both fields are required, newer ones unknown. */
static int xrcd_attr_check(const struct ibv_xrcd_init_attr *attr)
{
	uint32_t both = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;

	if (attr->comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED)
		return EOPNOTSUPP;
	if ((attr->comp_mask & both) != both)
		return EINVAL;
	return 0;
}

struct ibv_xrcd *rnic_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr)
{
	struct rnic_open_xrcd cmd = {
		.size = sizeof(cmd),
		.fd = attr->fd,
		.oflags = (uint32_t)attr->oflags,
	};
	struct rnic_xrcd *xrcd;
	int ret;

	ret = xrcd_attr_check(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return NULL;
	ret = rnic_cmd(context, RNIC_IOCTL_OPEN_XRCD, &cmd);
	if (ret) {
		free(xrcd);
		errno = ret;
		return NULL;
	}
	xrcd->ibxrcd.context = context;
	xrcd->handle = cmd.out_handle;
	return &xrcd->ibxrcd;
}

int rnic_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct rnic_xrcd *xrcd = to_rxrcd(ibxrcd);
	int ret;

	ret = rnic_destroy_obj(ibxrcd->context, RNIC_IOCTL_CLOSE_XRCD,
			       xrcd->handle);
	if (ret)
		return ret;
	free(xrcd);
	return 0;
}
