// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-bench-ceiling: the reference figures of make bench, measured in
 * the same VM as the RDMA stacks.
 *
 *   rnic-bench-ceiling [-D SECONDS] memcpy SIZE...
 *	single-thread memcpy() bandwidth for each SIZE: the same SIZE
 *	bytes copied to the same place again and again for SECONDS, as
 *	rnic-perf (like perftest) sends every message from one buffer into
 *	one buffer; prints "memcpy SIZE MB/s" per size
 *   rnic-bench-ceiling [-D SECONDS] syscall
 *	the cost of a null system call (getppid); prints "syscall 0 USEC"
 *   rnic-bench-ceiling [-D SECONDS] udp-sink PORT
 *   rnic-bench-ceiling [-D SECONDS] udp-source ADDR PORT SIZE
 *	the ceiling of the wire rows: the kernel's own UDP path between two
 *	processes (over the bench's veth pair, one namespace each). The
 *	source sends SIZE-byte IPv4 datagrams to ADDR:PORT for SECONDS + 1
 *	s; the sink counts what arrives in the SECONDS after the first one
 *	and prints "udp SIZE MB/s MPPS". Both move 64 datagrams per system
 *	call (sendmmsg, recvmmsg), so the figure is the network path's
 *	(skb, IP, UDP, the veth, the receive softirq, the socket), not the
 *	system calls'.
 *
 * MB/s is 2^20 bytes per second, as rnic-perf (and perftest) report it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_time.h"

#define MAX_SIZE	(16UL << 20)
#define MB		1048576.0
#define UDP_BATCH	64
#define UDP_MAX		1472	/* one Ethernet frame of MTU 1500 */

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

/* @n datagrams of @size bytes from one buffer each (@bufs), for a batch */
static void udp_batch(struct mmsghdr *m, struct iovec *v, char (*bufs)[UDP_MAX],
		      unsigned int n, size_t size)
{
	unsigned int i;

	memset(m, 0, n * sizeof(*m));
	for (i = 0; i < n; i++) {
		v[i].iov_base = bufs[i];
		v[i].iov_len = size;
		m[i].msg_hdr.msg_iov = &v[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
}

static int parse_port(const char *s, struct sockaddr_in *a)
{
	char *end;
	unsigned long port = strtoul(s, &end, 10);

	if (*end || !port || port > 65535) {
		fprintf(stderr, "rnic-bench-ceiling: bad port %s\n", s);
		return -1;
	}
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	return 0;
}

static int bench_udp_sink(const char *port, double secs)
{
	static char bufs[UDP_BATCH][UDP_MAX];
	struct mmsghdr m[UDP_BATCH];
	struct iovec v[UDP_BATCH];
	struct sockaddr_in a = { 0 };
	struct timeval idle = { .tv_sec = 2 };
	int rcvbuf = 4 << 20, fd, n, i;
	unsigned long pkts = 0, bytes = 0;
	double t0 = 0, t = 0;

	if (parse_port(port, &a))
		return 2;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof(idle)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("rnic-bench-ceiling: udp-sink");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	udp_batch(m, v, bufs, UDP_BATCH, UDP_MAX);
	for (;;) {
		n = recvmmsg(fd, m, UDP_BATCH, 0, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			perror("rnic-bench-ceiling: recvmmsg");
			close(fd);
			return 1;
		}
		if (n < 0)
			break;	/* nothing for 2 s: the source is done */
		t = bench_now();
		if (!t0) {
			/* the clock starts at the first batch, not counted */
			t0 = t;
			continue;
		}
		for (i = 0; i < n; i++)
			bytes += m[i].msg_len;
		pkts += n;
		if (t - t0 >= secs)
			break;
	}
	close(fd);
	if (!pkts) {
		fprintf(stderr, "rnic-bench-ceiling: udp-sink: nothing arrived\n");
		return 1;
	}
	printf("udp %lu %.1f %.4f\n", bytes / pkts, bytes / (t - t0) / MB,
	       pkts / (t - t0) / 1e6);
	return 0;
}

static int bench_udp_source(const char *addr, const char *port,
			    const char *size_arg, double secs)
{
	static char bufs[UDP_BATCH][UDP_MAX];
	struct mmsghdr m[UDP_BATCH];
	struct iovec v[UDP_BATCH];
	struct sockaddr_in a = { 0 };
	unsigned long size;
	double t0;
	char *end;
	int fd;

	size = strtoul(size_arg, &end, 10);
	if (*end || !size || size > UDP_MAX) {
		fprintf(stderr, "rnic-bench-ceiling: bad size %s (1 to %d)\n",
			size_arg, UDP_MAX);
		return 2;
	}
	if (parse_port(port, &a))
		return 2;
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "rnic-bench-ceiling: bad IPv4 address %s\n", addr);
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("rnic-bench-ceiling: udp-source");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	udp_batch(m, v, bufs, UDP_BATCH, size);
	/* the sink's window starts at its first datagram: overrun it */
	t0 = bench_now();
	while (bench_now() - t0 < secs + 1) {
		/* a full socket buffer or a dropped batch is the path's limit */
		if (sendmmsg(fd, m, UDP_BATCH, 0) < 0 && errno != ENOBUFS &&
		    errno != EINTR && errno != ECONNREFUSED) {
			perror("rnic-bench-ceiling: sendmmsg");
			close(fd);
			return 1;
		}
	}
	close(fd);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rnic-bench-ceiling [-D SECONDS] memcpy SIZE...\n"
		   "       rnic-bench-ceiling [-D SECONDS] syscall\n"
		   "       rnic-bench-ceiling [-D SECONDS] udp-sink PORT\n"
		   "       rnic-bench-ceiling [-D SECONDS] udp-source ADDR PORT SIZE\n");
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
	if (optind < argc && !strcmp(argv[optind], "udp-sink") && optind + 2 == argc)
		return bench_udp_sink(argv[optind + 1], secs);
	if (optind < argc && !strcmp(argv[optind], "udp-source") && optind + 4 == argc)
		return bench_udp_source(argv[optind + 1], argv[optind + 2],
					argv[optind + 3], secs);
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
