/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests read about their own process from /proc; no test
 * harness, so that the fuzzer (its own TAP) can use it too.
 */
#ifndef RNIC_PROC_H
#define RNIC_PROC_H

#include <stdio.h>
#include <string.h>

/* Pinned memory of this process in kB (/proc/self/status), -1 if unknown. */
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

/* Mappings of rnic char devices in this process, -1 if unknown. */
static inline int uverbs_mappings(void)
{
	char line[512];
	int n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs"))
			n++;
	fclose(f);
	return n;
}

#endif /* RNIC_PROC_H */
