// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-perf: verbs benchmarks with perftest's tests, options and table.
 *
 *   rnic-perf TEST [OPTIONS]          server
 *   rnic-perf TEST [OPTIONS] HOST     client
 *
 * See Documentation/man/rnic-perf.1.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

static const struct perf_test tests[] = {
	[PERF_WRITE_BW] = { "write_bw", "RDMA_Write BW Test", true,
			    IBV_WR_RDMA_WRITE, false },
	[PERF_WRITE_LAT] = { "write_lat", "RDMA_Write Latency Test", false,
			     IBV_WR_RDMA_WRITE, true },
	[PERF_READ_BW] = { "read_bw", "RDMA_Read BW Test", true,
			   IBV_WR_RDMA_READ, false },
	[PERF_READ_LAT] = { "read_lat", "RDMA_Read Latency Test", false,
			    IBV_WR_RDMA_READ, false },
	[PERF_SEND_BW] = { "send_bw", "Send BW Test", true, IBV_WR_SEND,
			   false },
	[PERF_SEND_LAT] = { "send_lat", "Send Latency Test", false,
			    IBV_WR_SEND, true },
	[PERF_ATOMIC_LAT] = { "atomic_lat", "Atomic FETCH_AND_ADD Latency Test",
			      false, IBV_WR_ATOMIC_FETCH_AND_ADD, false },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define OPT_POLL	256
#define OPT_JSON	257
#define OPT_START_AT	258

static const struct option long_opts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "all", no_argument, NULL, 'a' },
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "qp", required_argument, NULL, 'q' },
	{ "tx-depth", required_argument, NULL, 't' },
	{ "rx-depth", required_argument, NULL, 'r' },
	{ "qp-timeout", required_argument, NULL, 'u' },
	{ "inline-size", required_argument, NULL, 'I' },
	{ "events", no_argument, NULL, 'e' },
	{ "poll", no_argument, NULL, OPT_POLL },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "port", required_argument, NULL, 'p' },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "start-at", required_argument, NULL, OPT_START_AT },
	{ "help", no_argument, NULL, 'h' },
	{ }
};

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
		"Usage: rnic-perf TEST [OPTIONS]          (server)\n"
		"       rnic-perf TEST [OPTIONS] HOST     (client)\n"
		"TEST:");
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		fprintf(f, " %s", tests[i].name);
	fprintf(f, "\n"
		"  -s, --size=BYTES       message size (default %u bw, %u lat)\n"
		"  -a, --all              every size from %u to %u bytes\n"
		"  -n, --iters=N          iterations per QP (default %u bw, %u lat)\n"
		"  -D, --duration=SECS    run each size for SECS instead of -n\n"
		"  -q, --qp=N             queue pairs, bandwidth tests (default 1)\n"
		"  -t, --tx-depth=N       send queue depth, bandwidth tests (default %u)\n"
		"  -r, --rx-depth=N       receives posted per QP, send tests (default %u)\n"
		"  -u, --qp-timeout=N     RC transport timeout, 4.096 us * 2^N (default %u)\n"
		"  -I, --inline-size=N    send WRITEs and SENDs up to N bytes inline (default 0)\n"
		"  -e, --events           wait for completions on a channel\n"
		"      --poll             the driver's polling doorbell mode\n"
		"  -d, --ib-dev=DEV       device (default: the first one)\n"
		"  -i, --ib-port=PORT     device port (default 1)\n"
		"  -x, --gid-index=N      GID index (default: first IPv4 GID)\n"
		"  -p, --port=PORT        TCP port (default %u)\n"
		"      --json=FILE        write the results to FILE as JSON\n"
		"      --start-at=TIME    client: start the first size at TIME, seconds\n"
		"                         since the epoch, once connected (runs of\n"
		"                         several clients start together)\n"
		"  -h, --help             this help\n"
		"Server and client must be given the same TEST, -s/-a, -n, -D and -q.\n",
		PERF_BW_SIZE, PERF_LAT_SIZE, PERF_MIN_SIZE, PERF_MAX_SIZE,
		PERF_BW_ITERS, PERF_LAT_ITERS, PERF_TX_DEPTH, PERF_RX_DEPTH,
		PERF_QP_TIMEOUT,
		PERF_DEFAULT_PORT);
}

/* A whole decimal number in [@min, @max], or -1 (said on stderr). */
static long long number(const char *opt, const char *s, long long min,
			long long max)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "rnic-perf: %s wants a number from %lld to %lld, not '%s'\n",
			opt, min, max, s);
		return -1;
	}
	return v;
}

/* A time in seconds since the epoch, fractions allowed, or -1 (said). */
static double epoch_time(const char *opt, const char *s)
{
	double v;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0) {
		fprintf(stderr, "rnic-perf: %s wants seconds since the epoch, not '%s'\n",
			opt, s);
		return -1;
	}
	return v;
}

static const struct perf_test *find_test(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tests); i++)
		if (!strcmp(tests[i].name, name))
			return &tests[i];
	return NULL;
}

/* Options that make no sense together or for the test. */
static int check_opts(struct perf_opts *o, bool size_set, bool iters_set,
		      bool all)
{
	const struct perf_test *t = o->test;

	if (all && size_set) {
		fprintf(stderr, "rnic-perf: -a and -s exclude each other\n");
		return -EINVAL;
	}
	if (iters_set && o->duration) {
		fprintf(stderr, "rnic-perf: -n and -D exclude each other\n");
		return -EINVAL;
	}
	if (o->start_at && !o->host) {
		fprintf(stderr, "rnic-perf: --start-at is for the client\n");
		return -EINVAL;
	}
	if (!t->bw && o->qps > 1) {
		fprintf(stderr, "rnic-perf: latency tests use one QP\n");
		return -EINVAL;
	}
	if (t->opcode == IBV_WR_RDMA_WRITE && !t->bw && o->events) {
		fprintf(stderr,
			"rnic-perf: write_lat waits on memory, not on completions: no -e\n");
		return -EINVAL;
	}
	if (t->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		if (size_set && o->min_size != PERF_ATOMIC_SIZE) {
			fprintf(stderr, "rnic-perf: atomics are %u bytes\n",
				PERF_ATOMIC_SIZE);
			return -EINVAL;
		}
		o->min_size = PERF_ATOMIC_SIZE;
		o->max_size = PERF_ATOMIC_SIZE;
	} else if (all) {
		o->all_sizes = true;
		o->min_size = PERF_MIN_SIZE;
		o->max_size = PERF_MAX_SIZE;
	} else if (!size_set) {
		o->min_size = t->bw ? PERF_BW_SIZE : PERF_LAT_SIZE;
		o->max_size = o->min_size;
	}
	/* As perftest: READs and atomics carry no data to inline. */
	if (t->opcode != IBV_WR_RDMA_WRITE && t->opcode != IBV_WR_SEND)
		o->inline_size = 0;
	if (!iters_set)
		o->iters = t->bw ? PERF_BW_ITERS : PERF_LAT_ITERS;
	if (o->poll) {
#ifdef PERF_RDMA_CORE
		fprintf(stderr,
			"rnic-perf: --poll is librnic's polling doorbell mode; this build uses rdma-core\n");
		return -EOPNOTSUPP;
#else
		if (setenv("RNIC_SQ_POLL", "1", 1))
			return -errno;
#endif
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct perf_opts *o)
{
	bool size_set = false, iters_set = false, all = false;
	long long v;
	int opt;

	*o = (struct perf_opts) {
		.gid_index = -1,
		.port = PERF_DEFAULT_PORT,
		.ib_port = 1,
		.qps = 1,
		.tx_depth = PERF_TX_DEPTH,
		.rx_depth = PERF_RX_DEPTH,
		.qp_timeout = PERF_QP_TIMEOUT,
	};
	while ((opt = getopt_long(argc, argv, "s:an:D:q:t:r:u:I:ed:i:x:p:h",
				  long_opts, NULL)) != -1) {
		v = 0;
		switch (opt) {
		case 's':
			v = number("-s", optarg, 1, PERF_MAX_SIZE);
			o->min_size = v;
			o->max_size = v;
			size_set = true;
			break;
		case 'a':
			all = true;
			break;
		case 'n':
			v = number("-n", optarg, 1, LLONG_MAX);
			o->iters = v;
			iters_set = true;
			break;
		case 'D':
			v = number("-D", optarg, 1, 3600);
			o->duration = v;
			break;
		case 'q':
			v = number("-q", optarg, 1, PERF_MAX_QPS);
			o->qps = v;
			break;
		case 't':
			v = number("-t", optarg, 1, 32768);
			o->tx_depth = v;
			break;
		case 'r':
			v = number("-r", optarg, 1, 32768);
			o->rx_depth = v;
			break;
		case 'u':
			/* 0 (no timeout) is not offered: a lost packet hangs */
			v = number("-u", optarg, 1, 31);
			o->qp_timeout = v;
			break;
		case 'I':
			v = number("-I", optarg, 0, PERF_MAX_INLINE);
			o->inline_size = v;
			break;
		case 'e':
			o->events = true;
			break;
		case OPT_POLL:
			o->poll = true;
			break;
		case 'd':
			o->dev = optarg;
			break;
		case 'i':
			v = number("-i", optarg, 1, 255);
			o->ib_port = v;
			break;
		case 'x':
			v = number("-x", optarg, 0, INT_MAX);
			o->gid_index = v;
			break;
		case 'p':
			v = number("-p", optarg, 1, 65535);
			o->port = v;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_START_AT:
			o->start_at = epoch_time("--start-at", optarg);
			v = o->start_at < 0 ? -1 : 0;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
		if (v < 0)
			return -EINVAL;
	}
	if (optind >= argc || argc - optind > 2) {
		usage(stderr);
		return -EINVAL;
	}
	o->test = find_test(argv[optind]);
	if (!o->test) {
		fprintf(stderr, "rnic-perf: unknown test '%s'\n", argv[optind]);
		usage(stderr);
		return -EINVAL;
	}
	o->host = argv[optind + 1];
	return check_opts(o, size_set, iters_set, all);
}

static unsigned int count_sizes(const struct perf_opts *o)
{
	unsigned int n = 1;
	uint32_t s;

	for (s = o->min_size; s < o->max_size; s *= 2)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	struct perf_ctx c = { .sock = -1 };
	struct perf_result *rows = NULL;
	struct perf_opts o;
	unsigned int n = 0;
	uint32_t size;
	int ret;

	if (parse_opts(argc, argv, &o))
		return 2;
	c.o = &o;
	ret = perf_open(&c);
	if (ret)
		goto out;
	ret = perf_net_connect(&c);
	if (!ret)
		ret = perf_net_hello(&c);
	if (!ret)
		ret = perf_net_exchange_qps(&c);
	if (!ret)
		ret = perf_connect_qps(&c);
	if (ret)
		goto out;
	rows = calloc(count_sizes(&o), sizeof(*rows));
	if (!rows) {
		ret = -ENOMEM;
		goto out;
	}
	perf_print_header(&c);
	for (size = o.min_size; size <= o.max_size; size *= 2) {
		ret = perf_run_size(&c, size, &rows[n]);
		if (ret)
			break;
		perf_print_row(&c, &rows[n++]);
	}
	perf_print_footer(&c);
	if (o.json && n)
		ret = perf_json_write(o.json, o.test, rows, n) ?: ret;
out:
	free(rows);
	perf_close(&c);
	return ret ? 1 : 0;
}
