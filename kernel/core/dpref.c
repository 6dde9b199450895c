// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - data path lifetime references.
 *
 * The data path finds QPs by number (a device's QP table, a multicast
 * group) and MRs by key (the device's MR table) under RCU and takes a
 * struct rnic_dpref reference with refcount_inc_not_zero(). The owner,
 * when it destroys the object, first makes it unfindable, then drops its
 * own reference and waits until the last user is gone; the struct itself
 * is freed after a grace period (uobj.c), so a lookup racing with the
 * destruction reads valid memory and fails to take a reference.
 */
#include "rnic.h"

void rnic_dpref_init(struct rnic_dpref *ref)
{
	refcount_set(&ref->ref, 1);
	init_completion(&ref->done);
}

/**
 * rnic_dpref_kill() - drop the owner's reference and wait for the users
 * @ref: the reference of an object nobody can find any more
 *
 * Context: process; sleeps until every user dropped its reference.
 */
void rnic_dpref_kill(struct rnic_dpref *ref)
{
	rnic_dpref_put(ref);
	wait_for_completion(&ref->done);
}
