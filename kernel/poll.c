// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the send queue polling thread (not yet):
 * QPs created with RNIC_CREATE_QP_SQ_POLL are refused with EOPNOTSUPP.
 */
#include "rnic.h"

int rnic_poll_add(struct rnic_qp *qp)
{
	return -EOPNOTSUPP;
}

void rnic_poll_del(struct rnic_qp *qp)
{
}

void rnic_poll_wake(struct rnic_qp *qp)
{
}

void rnic_poll_dev_fini(struct rnic_dev *rdev)
{
}
