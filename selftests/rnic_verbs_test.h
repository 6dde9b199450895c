/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the kselftests that go through librnic's public API.
 */
#ifndef RNIC_VERBS_TEST_H
#define RNIC_VERBS_TEST_H

#include <infiniband/verbs.h>

#include "rnic_proc.h"
#include "rnic_test.h"

/* Open the rnic device called @name through librnic; NULL if absent. */
static inline struct ibv_context *rnic_ibv_open(const char *name)
{
	struct ibv_device **list, **d;
	struct ibv_context *ctx = NULL;

	list = ibv_get_device_list(NULL);
	if (!list)
		return NULL;
	for (d = list; *d; d++)
		if (!strcmp(ibv_get_device_name(*d), name))
			ctx = ibv_open_device(*d);
	ibv_free_device_list(list);
	return ctx;
}

#endif /* RNIC_VERBS_TEST_H */
