/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the kselftests that go through librnic's public API.
 */
#ifndef RNIC_VERBS_TEST_H
#define RNIC_VERBS_TEST_H

#include <infiniband/verbs.h>

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

/* Pinned memory of this process in kB, from /proc/self/status. */
static inline long vm_pin_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

#endif /* RNIC_VERBS_TEST_H */
