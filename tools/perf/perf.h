/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rnic-perf: verbs benchmarks (bandwidth and latency of RDMA WRITE, READ,
 * SEND and fetch-and-add) between a server and a client that meet over TCP.
 *
 * The same sources build against librnic (build/bin/rnic-perf) and against
 * the distribution's rdma-core (build/rdma-core/rnic-perf, compiled with
 * PERF_RDMA_CORE defined), so that one program measures both stacks.
 *
 * Files: rnic-perf.c options and main, perf_verbs.c device, queue pairs
 * and the test loops, perf_net.c the TCP exchange, perf_report.c
 * statistics, the table and --json.
 */
#ifndef RNIC_PERF_H
#define RNIC_PERF_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PERF_DEFAULT_PORT	18515
#define PERF_BW_SIZE		65536
#define PERF_LAT_SIZE		2
#define PERF_BW_ITERS		5000
#define PERF_LAT_ITERS		1000
#define PERF_TX_DEPTH		128
/* perftest's default transport timeout code: 4.096 us * 2^14, 67 ms */
#define PERF_QP_TIMEOUT		14
/* Receives kept posted per QP by the send tests' receiving side. */
#define PERF_RX_DEPTH		512
/*
 * Completions are requested every PERF_CQ_MOD sends (or TX depth), and
 * for every send of a message over PERF_CQ_MOD_LIMIT bytes unless -a is
 * given, as perftest does.
 */
#define PERF_CQ_MOD		100
#define PERF_CQ_MOD_LIMIT	8192
#define PERF_MAX_INLINE		1024
#define PERF_MIN_SIZE		2
#define PERF_MAX_SIZE		(8u << 20)
#define PERF_ATOMIC_SIZE	8
#define PERF_MAX_QPS		64
/* Give up when the peer makes no progress for this long (ms). */
#define PERF_STALL_MS		20000

enum perf_test_id {
	PERF_WRITE_BW,
	PERF_WRITE_LAT,
	PERF_READ_BW,
	PERF_READ_LAT,
	PERF_SEND_BW,
	PERF_SEND_LAT,
	PERF_ATOMIC_LAT,
};

/**
 * struct perf_test - what a test does
 * @name: as given on the command line and written to --json
 * @title: the table's title
 * @bw: a bandwidth test (else a latency test)
 * @opcode: the work request the client posts
 * @pingpong: both sides send, the latency is half the round trip
 */
struct perf_test {
	const char *name;
	const char *title;
	bool bw;
	enum ibv_wr_opcode opcode;
	bool pingpong;
};

/**
 * struct perf_opts - the command line
 * @test: which test
 * @host: the server to connect to, NULL on the server
 * @dev: device name, NULL for the first one
 * @gid_index: -x, or -1 for the first IPv4-mapped GID (else 0)
 * @port: TCP port
 * @ib_port: the device's port
 * @min_size: first message size
 * @max_size: last message size (sizes double from @min_size)
 * @iters: iterations per QP (per size), unless @duration
 * @duration: seconds per size, 0 to run @iters
 * @qps: queue pairs
 * @tx_depth: send queue depth of the bandwidth tests
 * @rx_depth: receives each QP keeps posted (tests that SEND)
 * @qp_timeout: -u, the RC QPs' transport timeout code (ibv_qp_attr.timeout)
 * @inline_size: messages up to this size are sent inline (WRITE, SEND)
 * @all_sizes: -a
 * @events: wait for completions on a completion channel
 * @poll: create the QPs in the driver's polling doorbell mode
 * @start_at: client: the CLOCK_REALTIME second (since the epoch) at which
 *	the first size starts once set up, so that the timed runs of several
 *	processes start together; 0 to start at once
 * @json: file for the results as JSON, or NULL
 */
struct perf_opts {
	const struct perf_test *test;
	const char *host;
	const char *dev;
	int gid_index;
	unsigned int port;
	uint8_t ib_port;
	uint32_t min_size;
	uint32_t max_size;
	uint64_t iters;
	unsigned int duration;
	unsigned int qps;
	unsigned int tx_depth;
	unsigned int rx_depth;
	uint8_t qp_timeout;
	uint32_t inline_size;
	bool all_sizes;
	bool events;
	bool poll;
	double start_at;
	const char *json;
};

/**
 * struct perf_remote - what one side tells the other about a QP
 * @qpn: QP number
 * @psn: first packet sequence number
 * @rkey: key of the QP's buffer
 * @addr: address of the buffer's target area
 * @rd_atom: READs/atomics the QP accepts in flight (responder resources)
 * @gid: the GID the side uses
 */
struct perf_remote {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t addr;
	uint32_t rd_atom;
	union ibv_gid gid;
};

/**
 * struct perf_qp - one queue pair and its buffer
 * @qp: the QP
 * @mr: registration of @buf
 * @buf: two areas of max_size bytes: the target area (peer writes, sends
 *       and reads go there) and the local area (what this side sends,
 *       and where its READs and atomics land)
 * @local: what this side tells the peer
 * @remote: what the peer told
 * @posted: send work requests posted in the current run
 * @completed: of those, how many are known complete
 * @unsignaled: posted since the last signaled one
 */
struct perf_qp {
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct perf_remote local;
	struct perf_remote remote;
	uint64_t posted;
	uint64_t completed;
	unsigned int unsignaled;
};

/**
 * struct perf_result - one row of the table
 * @size: message size
 * @iters: iterations per QP
 * @bw_peak: MB/s (MB = 2^20 bytes), bandwidth tests
 * @bw_avg: MB/s
 * @msg_rate: million messages per second
 * @t_min: latency tests, microseconds
 * @t_max: largest sample
 * @t_typical: median
 * @t_avg: mean
 * @t_stdev: standard deviation
 * @p99: 99th percentile
 * @p99_9: 99.9th percentile
 */
struct perf_result {
	uint32_t size;
	uint64_t iters;
	double bw_peak;
	double bw_avg;
	double msg_rate;
	double t_min;
	double t_max;
	double t_typical;
	double t_avg;
	double t_stdev;
	double p99;
	double p99_9;
};

/**
 * struct perf_ctx - everything a run owns
 * @o: the options
 * @ctx: verbs context
 * @pd: protection domain
 * @channel: completion channel (with -e)
 * @scq: send CQ, shared by the QPs
 * @rcq: receive CQ, shared by the QPs
 * @dattr: device attributes
 * @pattr: port attributes
 * @gid: our GID
 * @gid_index: its index
 * @qps: @o->qps queue pairs
 * @sock: TCP connection to the peer
 * @sock_buf: bytes received on @sock and not consumed yet
 * @sock_len: how many
 */
struct perf_ctx {
	const struct perf_opts *o;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	int gid_index;
	struct perf_qp *qps;
	int sock;
	char sock_buf[512];
	size_t sock_len;
};

/* perf_verbs.c */
int perf_open(struct perf_ctx *c);
int perf_connect_qps(struct perf_ctx *c);
void perf_close(struct perf_ctx *c);
int perf_run_size(struct perf_ctx *c, uint32_t size, struct perf_result *r);
unsigned int perf_cq_mod(const struct perf_opts *o, uint32_t size);

/* perf_net.c */
int perf_net_connect(struct perf_ctx *c);
__attribute__((format(printf, 2, 3)))
int perf_net_send(struct perf_ctx *c, const char *fmt, ...);
int perf_net_recv(struct perf_ctx *c, char *line, size_t len, int timeout_ms);
int perf_net_peek(struct perf_ctx *c);
int perf_net_sync(struct perf_ctx *c);
int perf_net_hello(struct perf_ctx *c);
int perf_net_exchange_qps(struct perf_ctx *c);
int perf_net_send_result(struct perf_ctx *c, const struct perf_result *r);
int perf_net_recv_result(struct perf_ctx *c, struct perf_result *r);

/* perf_report.c */
double perf_now_us(void);
void perf_lat_stats(double *samples, uint64_t n, struct perf_result *r);
double perf_peak_bw(const double *start, const double *end,
		    const uint32_t *ops, size_t n, uint32_t size);
void perf_print_header(const struct perf_ctx *c);
void perf_print_row(const struct perf_ctx *c, const struct perf_result *r);
void perf_print_footer(const struct perf_ctx *c);
int perf_json_write(const char *path, const struct perf_test *t,
		    const struct perf_result *r, size_t n);

#endif /* RNIC_PERF_H */
