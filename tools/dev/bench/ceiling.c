// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-bench-ceiling: the two reference figures of make bench, measured in
 * the same VM as the RDMA stacks.
 *
 *   rnic-bench-ceiling [-D SECONDS] memcpy SIZE...
 *	single-thread memcpy() bandwidth for each SIZE: the same SIZE
 *	bytes copied to the same place again and again for SECONDS, as
 *	rnic-perf (like perftest) sends every message from one buffer into
 *	one buffer; prints "memcpy SIZE MB/s" per size
 *   rnic-bench-ceiling [-D SECONDS] syscall
 *	the cost of a null system call (getppid); prints "syscall 0 USEC"
 *
 * MB/s is 2^20 bytes per second, as rnic-perf (and perftest) report it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_time.h"

#define MAX_SIZE	(16UL << 20)
#define MB		1048576.0

static int bench_memcpy(unsigned long size, double secs)
{
	static char *src, *dst;
	unsigned long copies = 0;
	double t0, t;
	int i;

	if (!src) {
		src = aligned_alloc(4096, MAX_SIZE);
		dst = aligned_alloc(4096, MAX_SIZE);
		if (!src || !dst) {
			perror("rnic-bench-ceiling: aligned_alloc");
			return -1;
		}
		/* fault every page in before the clock starts */
		memset(src, 0x5a, MAX_SIZE);
		memset(dst, 0, MAX_SIZE);
	}
	t0 = bench_now();
	do {
		for (i = 0; i < CLOCK_EVERY; i++) {
			memcpy(dst, src, size);
			/* the copy is observable: the compiler keeps it */
			__asm__ __volatile__("" : : "r"(dst) : "memory");
		}
		copies += CLOCK_EVERY;
		t = bench_now();
	} while (t - t0 < secs);
	printf("memcpy %lu %.1f\n", size, copies * (double)size / (t - t0) / MB);
	return 0;
}

static void bench_syscall(double secs)
{
	unsigned long calls = 0;
	double t0, t;
	int i;

	t0 = bench_now();
	do {
		for (i = 0; i < CLOCK_EVERY; i++)
			syscall(SYS_getppid);
		calls += CLOCK_EVERY;
		t = bench_now();
	} while (t - t0 < secs);
	printf("syscall 0 %.3f\n", (t - t0) * 1e6 / calls);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rnic-bench-ceiling [-D SECONDS] memcpy SIZE...\n"
		   "       rnic-bench-ceiling [-D SECONDS] syscall\n");
}

int main(int argc, char **argv)
{
	double secs = 1;
	unsigned long size;
	char *end;
	int opt, i;

	while ((opt = getopt(argc, argv, "D:h")) != -1) {
		switch (opt) {
		case 'D':
			if (!bench_secs("rnic-bench-ceiling", optarg, &secs))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "syscall") && optind + 1 == argc) {
		bench_syscall(secs);
		return 0;
	}
	if (optind + 1 >= argc || strcmp(argv[optind], "memcpy")) {
		usage(stderr);
		return 2;
	}
	for (i = optind + 1; i < argc; i++) {
		errno = 0;
		size = strtoul(argv[i], &end, 0);
		if (errno || *end || !size || size > MAX_SIZE) {
			fprintf(stderr, "rnic-bench-ceiling: bad size %s (1 to %lu)\n",
				argv[i], MAX_SIZE);
			return 2;
		}
		if (bench_memcpy(size, secs))
			return 1;
	}
	return 0;
}
