/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The clock of make bench's timing programs (rnic-bench-ceiling,
 * rnic-bench-floor): each runs an operation in batches of CLOCK_EVERY and
 * reads the clock after each batch, for -D SECONDS.
 */
#ifndef RNIC_BENCH_TIME_H
#define RNIC_BENCH_TIME_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CLOCK_EVERY	64

/* CLOCK_MONOTONIC in seconds. */
static inline double bench_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* -D ARG of program PROG into *SECS; false (and says so) if not > 0. */
static inline bool bench_secs(const char *prog, const char *arg, double *secs)
{
	char *end;

	*secs = strtod(arg, &end);
	if (*end || !(*secs > 0)) {
		fprintf(stderr, "%s: bad duration %s\n", prog, arg);
		return false;
	}
	return true;
}

#endif /* RNIC_BENCH_TIME_H */
