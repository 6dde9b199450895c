// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: posting work requests (placeholder until the data path lands).
 */
#include <errno.h>

#include "internal.h"

int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	(void)qp;
	*bad_wr = wr;
	return EOPNOTSUPP;
}

int ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	(void)qp;
	*bad_wr = wr;
	return EOPNOTSUPP;
}

int ibv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
		      struct ibv_recv_wr **bad_recv_wr)
{
	(void)srq;
	*bad_recv_wr = recv_wr;
	return EOPNOTSUPP;
}
