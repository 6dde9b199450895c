// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-perf: statistics, the result table and --json.
 *
 * Units, the same in both builds: MB is 2^20 bytes (as perftest), Mpps is
 * 10^6 messages per second, times are microseconds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf.h"
#include "rnic_json.h"

#define MB	1048576.0
/* Peak bandwidth looks at windows of at most this many batches. */
#define PERF_PEAK_WINDOW	256

static const char rule[] =
	"---------------------------------------------------------------------------------------\n";

double perf_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The sample at or below which a fraction @p of the sorted samples lie. */
static double percentile(const double *sorted, uint64_t n, double p)
{
	uint64_t k = (uint64_t)ceil(p * n);

	return sorted[k ? k - 1 : 0];
}

/**
 * perf_lat_stats() - fill a latency row from its samples
 * @samples: microseconds; sorted in place
 * @n: how many, at least 1
 * @r: t_* and p99* are set
 */
void perf_lat_stats(double *samples, uint64_t n, struct perf_result *r)
{
	double sum = 0, var = 0;
	uint64_t i;

	qsort(samples, n, sizeof(*samples), cmp_double);
	for (i = 0; i < n; i++)
		sum += samples[i];
	r->t_avg = sum / n;
	for (i = 0; i < n; i++)
		var += (samples[i] - r->t_avg) * (samples[i] - r->t_avg);
	r->t_stdev = sqrt(var / n);
	r->t_min = samples[0];
	r->t_max = samples[n - 1];
	r->t_typical = n % 2 ? samples[n / 2] :
			       (samples[n / 2 - 1] + samples[n / 2]) / 2;
	r->p99 = percentile(samples, n, 0.99);
	r->p99_9 = percentile(samples, n, 0.999);
}

/**
 * perf_peak_bw() - the best bandwidth over any run of consecutive batches
 * @start: per batch, when its first work request was posted (us)
 * @end: per batch, when its completion was polled (us)
 * @ops: per batch, how many messages
 * @n: batches, in the order they were started
 * @size: message size
 *
 * A window of batches i..j moved their messages between the posting of
 * the first of i and the last completion among i..j; the peak is the
 * largest bytes / time over windows of up to PERF_PEAK_WINDOW batches.
 * Starting at a post time keeps a burst of completions polled at once
 * from looking infinitely fast.
 *
 * Return: MB/s, 0 without batches.
 */
double perf_peak_bw(const double *start, const double *end,
		    const uint32_t *ops, size_t n, uint32_t size)
{
	double best = 0, last, bw;
	uint64_t msgs;
	size_t i, j;

	for (i = 0; i < n; i++) {
		last = 0;
		msgs = 0;
		for (j = i; j < n && j - i < PERF_PEAK_WINDOW; j++) {
			msgs += ops[j];
			if (end[j] > last)
				last = end[j];
			if (last <= start[i])
				continue;
			bw = msgs * (double)size / (last - start[i]);
			if (bw > best)
				best = bw;
		}
	}
	return best * 1e6 / MB;
}

static const char *gid_str(const union ibv_gid *gid, char *buf)
{
	int i;

	for (i = 0; i < 16; i += 2)
		sprintf(buf + i / 2 * 5, "%02x%02x%s", gid->raw[i],
			gid->raw[i + 1], i < 14 ? ":" : "");
	return buf;
}

static void print_qp(const char *who, const struct perf_remote *r)
{
	char gid[40];

	printf(" %s address: QPN %#06x PSN %#08x RKey %#010x VAddr %#018llx\n"
	       "   GID %s\n", who, r->qpn, r->psn, r->rkey,
	       (unsigned long long)r->addr, gid_str(&r->gid, gid));
}

/**
 * perf_print_header() - what runs where, then the column titles
 * @c: the run, connected
 */
void perf_print_header(const struct perf_ctx *c)
{
	const struct perf_opts *o = c->o;
	unsigned int i;

	printf("%s", rule);
	printf("%*s%s\n", 20, "", o->test->title);
	printf(" Device         : %-18s Transport      : RC\n",
	       ibv_get_device_name(c->ctx->device));
	printf(" Number of QPs  : %-18u Port           : %u\n", o->qps,
	       o->ib_port);
	if (o->test->bw)
		printf(" TX depth       : %-18u CQ moderation  : %u\n",
		       o->tx_depth, perf_cq_mod(o, o->max_size));
	printf(" Mtu            : %-18u GID index      : %d\n",
	       128u << c->pattr.active_mtu, c->gid_index);
	printf(" Max inline     : %-18u Completions    : %s\n",
	       o->inline_size, o->events ? "events" : "polling");
	printf(" Doorbell       : %-18s Role           : %s\n",
	       o->poll ? "polling (--poll)" : "ioctl",
	       o->host ? "client" : "server");
	if (o->duration)
		printf(" Duration       : %u s\n", o->duration);
	printf("%s", rule);
	for (i = 0; i < o->qps; i++) {
		print_qp("local ", &c->qps[i].local);
		print_qp("remote", &c->qps[i].remote);
	}
	printf("%s", rule);
	if (o->test->bw)
		printf(" %-10s %-14s %-18s %-20s %s\n", "#bytes", "#iterations",
		       "BW peak[MB/sec]", "BW average[MB/sec]",
		       "MsgRate[Mpps]");
	else
		printf(" %-7s %-12s %-12s %-12s %-16s %-12s %-14s %-22s %s\n",
		       "#bytes", "#iterations", "t_min[usec]", "t_max[usec]",
		       "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]",
		       "99% percentile[usec]", "99.9% percentile[usec]");
	fflush(stdout);
}

void perf_print_row(const struct perf_ctx *c, const struct perf_result *r)
{
	if (c->o->test->bw)
		printf(" %-10u %-14llu %-18.2f %-20.2f %.6f\n", r->size,
		       (unsigned long long)r->iters, r->bw_peak, r->bw_avg,
		       r->msg_rate);
	else
		printf(" %-7u %-12llu %-12.2f %-12.2f %-16.2f %-12.2f %-14.2f %-22.2f %.2f\n",
		       r->size, (unsigned long long)r->iters, r->t_min,
		       r->t_max, r->t_typical, r->t_avg, r->t_stdev, r->p99,
		       r->p99_9);
	fflush(stdout);
}

void perf_print_footer(const struct perf_ctx *c)
{
	(void)c;
	printf("%s", rule);
	fflush(stdout);
}

static void json_num(struct rnic_json *j, const char *key, double v,
		     int decimals)
{
	rnic_json_key(j, key);
	rnic_json_double(j, v, decimals);
}

/**
 * perf_json_write() - write the rows as a JSON list of objects
 * @path: the file, replaced
 * @t: the test
 * @r: the rows
 * @n: how many
 *
 * Return: 0 or a negative errno (said on stderr).
 */
int perf_json_write(const char *path, const struct perf_test *t,
		    const struct perf_result *r, size_t n)
{
	struct rnic_json *j;
	int ret = 0;
	size_t i;
	FILE *f;

	f = fopen(path, "w");
	if (!f)
		goto err;
	j = rnic_json_new(f, true);
	if (!j) {
		fclose(f);
		goto err;
	}
	rnic_json_start_array(j);
	for (i = 0; i < n; i++) {
		rnic_json_start_object(j);
		rnic_json_key(j, "test");
		rnic_json_string(j, t->name);
		rnic_json_key(j, "size");
		rnic_json_uint(j, r[i].size);
		rnic_json_key(j, "iterations");
		rnic_json_uint(j, r[i].iters);
		if (t->bw) {
			json_num(j, "bw_peak", r[i].bw_peak, 3);
			json_num(j, "bw_avg", r[i].bw_avg, 3);
			json_num(j, "msg_rate", r[i].msg_rate, 6);
		} else {
			json_num(j, "t_min", r[i].t_min, 3);
			json_num(j, "t_max", r[i].t_max, 3);
			json_num(j, "t_typical", r[i].t_typical, 3);
			json_num(j, "t_avg", r[i].t_avg, 3);
			json_num(j, "t_stdev", r[i].t_stdev, 3);
			json_num(j, "p99", r[i].p99, 3);
			json_num(j, "p99_9", r[i].p99_9, 3);
		}
		rnic_json_end_object(j);
	}
	rnic_json_end_array(j);
	rnic_json_free(j);
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		fprintf(stderr, "rnic-perf: %s: %s\n", path, strerror(-ret));
	return ret;
err:
	ret = -errno;
	fprintf(stderr, "rnic-perf: %s: %s\n", path, strerror(errno));
	return ret;
}
