// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The engine of the ping-pong examples (see pingpong.h).
 *
 * A run speaks the TCP exchange of rdma-core's ibv_rc_pingpong,
 * ibv_uc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong, so that either
 * side may be one of those programs (on rdma_rxe, say). The server waits
 * on a TCP port, the client connects to it. Each side opens the device,
 * creates its QPs (one, or -q of them sharing an SRQ) and posts -r
 * receives. The client sends one address record per QP: 52 bytes,
 * "LLLL:QQQQQQ:PPPPPP:" (LID, QPN, PSN in hex), the GID's 16 bytes as 32
 * hex digits in memory order, and a NUL; the SRQ example always sends
 * PP_SRQ_RECORDS of them, zero records after the last QP. The server
 * reads them, moves its QPs to RTS, answers with its own records; the
 * client writes "done" and its NUL, and both close the connection.
 * Nothing else goes over TCP, so the two sides cannot compare -s or -n:
 * a mismatch shows up as a wrong length or a stall.
 *
 * Then the client sends on every QP, the server answers each message it
 * receives on the QP it came on, and so on, until -n messages have gone
 * each way (in total over all QPs, as rdma-core counts them). A side
 * sends on a QP only when its previous send there has completed, and the
 * client only once the answer to its previous message has arrived.
 *
 * The data is rdma-core's: whatever the client sends first on a QP is
 * echoed back and forth for the whole run. This client's first message
 * on every QP is pp_pattern(offset), with a zero byte at every page offset
 * (what rdma-core's -c checks on its side); rdma-core's client sends 0x7b
 * bytes (zeros on the SRQ example). The client checks every byte of every
 * answer against what it sent; the server keeps the first message of each
 * QP and checks every later one against it. Receive buffers are filled
 * with PP_POISON before they are posted, so a completion whose data never
 * arrived does not pass for an echo. The first mismatch stops the run.
 *
 * No completion for --timeout seconds (a UC or UD message lost, a peer
 * that died) stops the run with an error instead of waiting forever.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pingpong.h"

#define PP_GRH_LEN 40		/* a UD receive starts with the GRH */
#define PP_QKEY 0x11111111
#define PP_SEND_WRID (1ULL << 63)	/* send: this | QP index; receive: buffer */
#define PP_CQ_BATCH 16
#define PP_IDLE_POLLS 16384	/* empty CQ polls between looks at the clock */
#define PP_TIMEOUT_S 60		/* default longest wait for a completion */
#define PP_SRQ_RECORDS 256	/* address records each way, srq example */
#define PP_RECORD_LEN 52	/* "LLLL:QQQQQQ:PPPPPP:" 32 hex digits, NUL */
#define PP_DONE "done"		/* the client's last word, sent with its NUL */
#define PP_POISON 0xa5		/* fills receive buffers before they are posted */

static const char *prog;

static void __attribute__((format(printf, 1, 2))) pp_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- options ---------------------------------------------------------- */

struct pp_opts {
	const char *server;	/* host to connect to; NULL: be the server */
	char tcp_port[8];
	const char *ib_dev;	/* NULL: the first device */
	unsigned int ib_port;
	unsigned int size;
	enum ibv_mtu mtu;
	unsigned int rx_depth;
	unsigned int iters;
	unsigned int sl;
	bool events;
	int gid_index;		/* -1: not given */
	unsigned int num_qp;
	unsigned int timeout_s;
};

/* Which examples an option exists for: rdma-core's sets. */
enum {
	PP_RC = 1 << 0,
	PP_UC = 1 << 1,
	PP_UD = 1 << 2,
	PP_SRQ = 1 << 3,
	PP_ALL = PP_RC | PP_UC | PP_UD | PP_SRQ,
};

/**
 * struct pp_opt - one command-line option
 * @lo: its long and short name and whether it takes an argument
 * @arg: the argument's name in the help, or NULL
 * @help: what it does
 * @examples: PP_RC, PP_UC, PP_UD, PP_SRQ: the programs that take it
 * @unsupported: NULL, or why an rdma-core option is refused here
 */
static const struct pp_opt {
	struct option lo;
	const char *arg;
	const char *help;
	unsigned int examples;
	const char *unsupported;
} pp_opt_table[] = {
	{ { "port", required_argument, NULL, 'p' }, "PORT",
	  "listen on / connect to TCP port PORT (default 18515)", PP_ALL, NULL },
	{ { "ib-dev", required_argument, NULL, 'd' }, "DEV",
	  "use RDMA device DEV (default: the first one found)", PP_ALL, NULL },
	{ { "ib-port", required_argument, NULL, 'i' }, "PORT",
	  "use port PORT of the device (default 1)", PP_ALL, NULL },
	{ { "size", required_argument, NULL, 's' }, "SIZE",
	  "message size in bytes", PP_ALL, NULL },
	{ { "mtu", required_argument, NULL, 'm' }, "MTU",
	  "path MTU: 256, 512, 1024, 2048 or 4096 (default 1024)",
	  PP_RC | PP_UC | PP_SRQ, NULL },
	{ { "num-qp", required_argument, NULL, 'q' }, "NUM",
	  "number of QPs sharing the SRQ (default 16)", PP_SRQ, NULL },
	{ { "rx-depth", required_argument, NULL, 'r' }, "DEPTH",
	  "receives kept posted (default 500)", PP_ALL, NULL },
	{ { "iters", required_argument, NULL, 'n' }, "ITERS",
	  "messages each way, over all QPs (default 1000)", PP_ALL, NULL },
	{ { "sl", required_argument, NULL, 'l' }, "SL",
	  "service level (default 0)", PP_ALL, NULL },
	{ { "events", no_argument, NULL, 'e' }, NULL,
	  "sleep on completion events (default: busy poll)", PP_ALL, NULL },
	{ { "gid-idx", required_argument, NULL, 'g' }, "INDEX",
	  "local GID index (default 0 on Ethernet ports)", PP_ALL, NULL },
	{ { "chk", no_argument, NULL, 'c' }, NULL,
	  "check received data (always done)", PP_ALL, NULL },
	{ { "timeout", required_argument, NULL, 'T' }, "SECONDS",
	  "longest wait for a completion (default 60)", PP_ALL, NULL },
	{ { "odp", no_argument, NULL, 'o' }, NULL,
	  "on-demand paging", PP_RC | PP_SRQ,
	  "on-demand paging is not supported by rnic" },
	{ { "iodp", no_argument, NULL, 'O' }, NULL,
	  "implicit on-demand paging", PP_RC,
	  "on-demand paging is not supported by rnic" },
	{ { "prefetch", no_argument, NULL, 'P' }, NULL,
	  "prefetch an on-demand MR", PP_RC,
	  "on-demand paging is not supported by rnic" },
	{ { "ts", no_argument, NULL, 't' }, NULL,
	  "completion timestamps", PP_RC,
	  "completion timestamps (ibv_create_cq_ex) are not supported by rnic" },
	{ { "dm", no_argument, NULL, 'j' }, NULL,
	  "device memory", PP_RC,
	  "device memory is not supported by rnic" },
	{ { "new_send", no_argument, NULL, 'N' }, NULL,
	  "the ibv_wr_* send API", PP_RC,
	  "the ibv_wr_* send API is not supported by rnic" },
	{ { "help", no_argument, NULL, 'h' }, NULL,
	  "print this help", PP_ALL, NULL },
};

#define PP_NR_OPTS (sizeof(pp_opt_table) / sizeof(pp_opt_table[0]))

static unsigned int pp_example_bit(const struct pp_example *ex)
{
	if (ex->srq)
		return PP_SRQ;
	if (ex->qp_type == IBV_QPT_UD)
		return PP_UD;
	return ex->qp_type == IBV_QPT_UC ? PP_UC : PP_RC;
}

static const struct pp_opt *pp_find_opt(int c)
{
	const struct pp_opt *o;

	for (o = pp_opt_table; o < pp_opt_table + PP_NR_OPTS; o++)
		if (o->lo.val == c)
			return o;
	return NULL;
}

static void pp_usage(FILE *f, const struct pp_example *ex)
{
	const struct pp_opt *o;
	char left[32];

	fprintf(f, "Usage:\n"
		"  %s [OPTIONS]          start a server and wait for a client\n"
		"  %s [OPTIONS] HOST     connect to the server on HOST\n"
		"\nOptions:\n", prog, prog);
	for (o = pp_opt_table; o < pp_opt_table + PP_NR_OPTS; o++) {
		if (!(o->examples & pp_example_bit(ex)) || o->unsupported)
			continue;
		if (o->lo.val == 'T')
			snprintf(left, sizeof(left), "    --%s=%s", o->lo.name,
				 o->arg);
		else
			snprintf(left, sizeof(left), "-%c, --%s%s%s",
				 o->lo.val, o->lo.name, o->arg ? "=" : "",
				 o->arg ? o->arg : "");
		fprintf(f, "  %-24s %s", left, o->help);
		if (o->lo.val == 's')
			fprintf(f, " (default %u)", ex->default_size);
		fputc('\n', f);
	}
	fprintf(f, "\nrdma-core's options for on-demand paging, timestamps, device memory\n"
		"and the ibv_wr_* API are refused: rnic has none of them.\n");
}

/* @s as an unsigned number in [@min, @max] into *@val; false if it is not one. */
static bool pp_parse_uint(const char *s, unsigned long min, unsigned long max,
			  unsigned int *val)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return false;
	*val = v;
	return true;
}

static unsigned int pp_mtu_bytes(enum ibv_mtu mtu)
{
	return 128u << mtu;
}

static bool pp_parse_mtu(const char *s, enum ibv_mtu *mtu)
{
	enum ibv_mtu m;
	unsigned int v;

	if (!pp_parse_uint(s, 256, 4096, &v))
		return false;
	for (m = IBV_MTU_256; m <= IBV_MTU_4096; m++) {
		if (pp_mtu_bytes(m) == v) {
			*mtu = m;
			return true;
		}
	}
	return false;
}

/* Stores option @c's argument in @o; false if the argument is bad. */
static bool pp_set_opt(struct pp_opts *o, int c, const char *arg)
{
	unsigned int v;

	switch (c) {
	case 'p':
		if (!pp_parse_uint(arg, 1, 65535, &v))
			return false;
		snprintf(o->tcp_port, sizeof(o->tcp_port), "%u", v);
		return true;
	case 'd':
		o->ib_dev = arg;
		return true;
	case 'i':
		return pp_parse_uint(arg, 1, 255, &o->ib_port);
	case 's':
		return pp_parse_uint(arg, 1, 1u << 30, &o->size);
	case 'm':
		return pp_parse_mtu(arg, &o->mtu);
	case 'r':
		return pp_parse_uint(arg, 1, 1u << 20, &o->rx_depth);
	case 'n':
		return pp_parse_uint(arg, 1, INT32_MAX, &o->iters);
	case 'l':
		return pp_parse_uint(arg, 0, 15, &o->sl);
	case 'e':
		o->events = true;
		return true;
	case 'g':
		if (!pp_parse_uint(arg, 0, 255, &v))
			return false;
		o->gid_index = v;
		return true;
	case 'q':
		/* one record must stay zero: rdma-core wants fewer than 256 */
		return pp_parse_uint(arg, 1, PP_SRQ_RECORDS - 1, &o->num_qp);
	case 'T':
		return pp_parse_uint(arg, 1, 86400, &o->timeout_s);
	}
	return true;	/* -c */
}

/* Fills @o from the command line: -1 to go on, else the exit status to leave with. */
static int pp_parse_args(int argc, char **argv, const struct pp_example *ex,
			 struct pp_opts *o)
{
	struct option longopts[PP_NR_OPTS + 1] = {};
	char shortopts[2 * PP_NR_OPTS + 1] = "";
	const struct pp_opt *opt;
	unsigned int n = 0;
	size_t i, len = 0;
	int c;

	for (i = 0; i < PP_NR_OPTS; i++) {
		opt = &pp_opt_table[i];
		if (!(opt->examples & pp_example_bit(ex)))
			continue;
		longopts[n++] = opt->lo;
		if (opt->lo.val == 'T')
			continue;	/* long only: rdma-core's -t is another option */
		shortopts[len++] = opt->lo.val;
		if (opt->lo.has_arg)
			shortopts[len++] = ':';
	}

	*o = (struct pp_opts) {
		.tcp_port = "18515",
		.ib_port = 1,
		.size = ex->default_size,
		.mtu = IBV_MTU_1024,
		.rx_depth = 500,
		.iters = 1000,
		.gid_index = -1,
		.num_qp = ex->srq ? 16 : 1,
		.timeout_s = PP_TIMEOUT_S,
	};
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'h') {
			pp_usage(stdout, ex);
			return 0;
		}
		opt = pp_find_opt(c);
		if (!opt) {
			pp_usage(stderr, ex);
			return 1;
		}
		if (opt->unsupported) {
			pp_err("-%c (--%s): %s", c, opt->lo.name,
			       opt->unsupported);
			return 1;
		}
		if (!pp_set_opt(o, c, optarg)) {
			if (c == 'T')
				pp_err("invalid value '%s' for --%s", optarg,
				       opt->lo.name);
			else
				pp_err("invalid value '%s' for -%c", optarg, c);
			return 1;
		}
	}
	if (optind < argc)
		o->server = argv[optind++];
	if (optind < argc) {
		pp_err("unexpected argument '%s'", argv[optind]);
		pp_usage(stderr, ex);
		return 1;
	}
	if (o->rx_depth < o->num_qp) {
		pp_err("-r %u is less than -q %u: every QP needs a receive posted",
		       o->rx_depth, o->num_qp);
		return 1;
	}
	return -1;
}

/* ---- the TCP side channel ---------------------------------------------- */

/* Waits for one client on @port; the connected socket or -1. */
static int pp_tcp_accept(const char *port)
{
	struct addrinfo hints = {
		.ai_flags = AI_PASSIVE,
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res, *ai;
	int fd = -1, conn = -1, one = 1, ret;

	ret = getaddrinfo(NULL, port, &hints, &res);
	if (ret) {
		pp_err("TCP port %s: %s", port, gai_strerror(ret));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 1))
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		pp_err("can't listen on TCP port %s: %s", port, strerror(errno));
		goto out_free;
	}
	conn = accept(fd, NULL, NULL);
	if (conn < 0)
		pp_err("accept on TCP port %s: %s", port, strerror(errno));
	close(fd);
out_free:
	freeaddrinfo(res);
	return conn;
}

/* Connects to the server at @host:@port; the socket or -1. */
static int pp_tcp_connect(const char *host, const char *port)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res, *ai;
	int fd = -1, ret, err = 0;

	ret = getaddrinfo(host, port, &hints, &res);
	if (ret) {
		pp_err("%s: %s", host, gai_strerror(ret));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		err = errno;
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		pp_err("can't connect to %s port %s: %s", host, port,
		       strerror(err));
	freeaddrinfo(res);
	return fd;
}

/* Sends @len bytes of @buf on @fd; 0 or -1. */
static int pp_send_all(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = send(fd, (const char *)buf + done, len - done,
			 MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			pp_err("TCP send: %s", strerror(errno));
			return -1;
		}
		done += n;
	}
	return 0;
}

/* Receives exactly @len bytes into @buf from @fd; 0 or -1. */
static int pp_recv_all(int fd, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = recv(fd, (char *)buf + done, len - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			pp_err("TCP receive: %s", n ? strerror(errno) :
			       "the peer closed the connection");
			return -1;
		}
		done += n;
	}
	return 0;
}

/* ---- verbs resources --------------------------------------------------- */

/* What a side tells the other about one of its QPs. */
struct pp_dest {
	unsigned int lid;
	unsigned int qpn;
	unsigned int psn;
	union ibv_gid gid;
};

/**
 * struct pp_qp - one QP and its progress
 * @qp: the QP
 * @ah: UD: the address of the peer's QP
 * @local: this side's address
 * @remote: the peer's address
 * @sent: sends posted on this QP
 * @received: receives completed and checked on this QP
 * @send_busy: a send is posted and not completed yet
 */
struct pp_qp {
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct pp_dest local;
	struct pp_dest remote;
	unsigned int sent;
	unsigned int received;
	bool send_busy;
};

/**
 * struct pp_ctx - one side of a run
 * @ex: which example
 * @o: the options
 * @server: this side is the server
 * @sock: the TCP connection to the peer, until the addresses are exchanged
 * @sent: sends posted, all QPs
 * @send_done: sends completed, all QPs
 * @received: receives completed and checked, all QPs
 * @ctx: the device
 * @port: its port's attributes
 * @gid_index: local GID index, -1 for none (LID addressing)
 * @channel: completion channel (-e), or NULL
 * @pd: protection domain
 * @cq: the CQ of every send and receive
 * @srq: the shared receive queue, or NULL
 * @buf: send buffers (one per QP), then receive buffers (one per receive)
 * @buf_len: size of @buf
 * @recv_len: bytes per receive buffer (-s, plus the GRH for UD)
 * @mr: covers @buf
 * @qps: @o->num_qp QPs
 */
struct pp_ctx {
	const struct pp_example *ex;
	const struct pp_opts *o;
	bool server;
	int sock;
	unsigned int sent;
	unsigned int send_done;
	unsigned int received;
	struct ibv_context *ctx;
	struct ibv_port_attr port;
	int gid_index;
	struct ibv_comp_channel *channel;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	char *buf;
	size_t buf_len;
	unsigned int recv_len;
	struct ibv_mr *mr;
	struct pp_qp *qps;
};

static struct ibv_context *pp_open_device(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		pp_err("can't list RDMA devices: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == n) {
		if (name)
			pp_err("RDMA device %s not found", name);
		else
			pp_err("no RDMA device found");
	} else {
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			pp_err("can't open %s: %s",
			       ibv_get_device_name(list[i]), strerror(errno));
	}
	ibv_free_device_list(list);
	return ctx;
}

/* Checks the options against the port; 0 or -1. */
static int pp_check_port(struct pp_ctx *c)
{
	const struct pp_opts *o = c->o;
	unsigned int active = pp_mtu_bytes(c->port.active_mtu);

	if (c->port.state != IBV_PORT_ACTIVE) {
		pp_err("port %u is %s, not active", o->ib_port,
		       ibv_port_state_str(c->port.state));
		return -1;
	}
	if (c->ex->qp_type == IBV_QPT_UD && o->size > active) {
		pp_err("-s %u is larger than the port's active MTU %u: a UD message is one packet",
		       o->size, active);
		return -1;
	}
	if (c->ex->qp_type != IBV_QPT_UD && pp_mtu_bytes(o->mtu) > active) {
		pp_err("-m %u is larger than the port's active MTU %u",
		       pp_mtu_bytes(o->mtu), active);
		return -1;
	}
	if (o->size > c->port.max_msg_sz) {
		pp_err("-s %u is larger than the port's largest message %u",
		       o->size, c->port.max_msg_sz);
		return -1;
	}
	return 0;
}

static void *pp_recv_buf(struct pp_ctx *c, uint64_t i)
{
	return c->buf + (size_t)c->o->num_qp * c->o->size +
	       (size_t)i * c->recv_len;
}

static void *pp_send_buf(struct pp_ctx *c, unsigned int qp_index)
{
	return c->buf + (size_t)qp_index * c->o->size;
}

static struct ibv_qp *pp_create_qp(struct pp_ctx *c)
{
	const struct pp_opts *o = c->o;
	struct ibv_qp_init_attr attr = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.srq = c->srq,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = c->srq ? 0 : o->rx_depth,
			.max_send_sge = 1,
			.max_recv_sge = c->srq ? 0 : 1,
		},
		.qp_type = c->ex->qp_type,
	};
	struct ibv_qp_attr init = {
		.qp_state = IBV_QPS_INIT,
		.port_num = o->ib_port,
		.qkey = PP_QKEY,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	struct ibv_qp *qp;
	int ret;

	mask |= c->ex->qp_type == IBV_QPT_UD ? IBV_QP_QKEY :
					       IBV_QP_ACCESS_FLAGS;
	qp = ibv_create_qp(c->pd, &attr);
	if (!qp) {
		pp_err("can't create a QP: %s", strerror(errno));
		return NULL;
	}
	ret = ibv_modify_qp(qp, &init, mask);
	if (ret) {
		pp_err("can't move QP 0x%06x to INIT: %s", qp->qp_num,
		       strerror(ret));
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static int pp_post_recv(struct pp_ctx *c, uint64_t buf_index)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)pp_recv_buf(c, buf_index),
		.length = c->recv_len,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = buf_index,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;
	int ret;

	memset(pp_recv_buf(c, buf_index), PP_POISON, c->recv_len);
	if (c->srq)
		ret = ibv_post_srq_recv(c->srq, &wr, &bad);
	else
		ret = ibv_post_recv(c->qps[0].qp, &wr, &bad);
	if (ret)
		pp_err("can't post a receive: %s", strerror(ret));
	return ret ? -1 : 0;
}

/* Destroys what pp_open() and pp_connect() made, in reverse order. */
static void pp_close(struct pp_ctx *c)
{
	unsigned int i;

	if (c->qps) {
		for (i = c->o->num_qp; i-- > 0;) {
			if (c->qps[i].ah)
				ibv_destroy_ah(c->qps[i].ah);
			if (c->qps[i].qp)
				ibv_destroy_qp(c->qps[i].qp);
		}
		free(c->qps);
	}
	if (c->srq)
		ibv_destroy_srq(c->srq);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	free(c->buf);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->channel)
		ibv_destroy_comp_channel(c->channel);
	ibv_close_device(c->ctx);
}

/*
 * Opens the device and creates everything up to QPs in INIT with their
 * receives posted; 0 or -1 (and nothing left behind).
 */
static int pp_open(struct pp_ctx *c)
{
	const struct pp_opts *o = c->o;
	unsigned int i;
	static const union ibv_gid zero_gid;
	union ibv_gid gid = {};
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	c->ctx = pp_open_device(o->ib_dev);
	if (!c->ctx)
		return -1;
	ret = ibv_query_port(c->ctx, o->ib_port, &c->port);
	if (ret) {
		pp_err("can't query port %u of %s: %s", o->ib_port,
		       ibv_get_device_name(c->ctx->device), strerror(ret));
		goto err;
	}
	if (pp_check_port(c))
		goto err;
	c->gid_index = o->gid_index;
	if (c->gid_index < 0 && c->port.link_layer == IBV_LINK_LAYER_ETHERNET)
		c->gid_index = 0;
	if (c->gid_index >= 0) {
		if (ibv_query_gid(c->ctx, o->ib_port, c->gid_index, &gid)) {
			pp_err("can't read GID %d of port %u: %s",
			       c->gid_index, o->ib_port, strerror(errno));
			goto err;
		}
		if (!memcmp(&gid, &zero_gid, sizeof(gid))) {
			pp_err("GID %d of port %u is empty (rnic-devinfo -v lists the GIDs)",
			       c->gid_index, o->ib_port);
			goto err;
		}
	}
	if (o->events) {
		c->channel = ibv_create_comp_channel(c->ctx);
		if (!c->channel) {
			pp_err("can't create a completion channel: %s",
			       strerror(errno));
			goto err;
		}
	}
	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd) {
		pp_err("can't allocate a PD: %s", strerror(errno));
		goto err;
	}
	c->recv_len = o->size +
		      (c->ex->qp_type == IBV_QPT_UD ? PP_GRH_LEN : 0);
	c->buf_len = (size_t)o->num_qp * o->size +
		     (size_t)o->rx_depth * c->recv_len;
	ret = posix_memalign((void **)&c->buf, page, c->buf_len);
	if (ret) {
		c->buf = NULL;
		pp_err("can't allocate %zu bytes of buffers: %s", c->buf_len,
		       strerror(ret));
		goto err;
	}
	memset(c->buf, 0, c->buf_len);
	c->mr = ibv_reg_mr(c->pd, c->buf, c->buf_len, IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr) {
		pp_err("can't register %zu bytes: %s", c->buf_len,
		       strerror(errno));
		goto err;
	}
	c->cq = ibv_create_cq(c->ctx, o->rx_depth + o->num_qp, NULL,
			      c->channel, 0);
	if (!c->cq) {
		pp_err("can't create a CQ: %s", strerror(errno));
		goto err;
	}
	if (c->ex->srq) {
		struct ibv_srq_init_attr attr = {
			.attr = { .max_wr = o->rx_depth, .max_sge = 1 },
		};

		c->srq = ibv_create_srq(c->pd, &attr);
		if (!c->srq) {
			pp_err("can't create an SRQ: %s", strerror(errno));
			goto err;
		}
	}
	c->qps = calloc(o->num_qp, sizeof(*c->qps));
	if (!c->qps) {
		pp_err("out of memory");
		goto err;
	}
	for (i = 0; i < o->num_qp; i++) {
		struct pp_qp *p = &c->qps[i];

		p->qp = pp_create_qp(c);
		if (!p->qp)
			goto err;
		p->local = (struct pp_dest) {
			.lid = c->port.lid,
			.qpn = p->qp->qp_num,
			.psn = lrand48() & 0xffffff,
			.gid = gid,
		};
	}
	for (i = 0; i < o->rx_depth; i++)
		if (pp_post_recv(c, i))
			goto err;
	return 0;

err:
	pp_close(c);
	return -1;
}

static struct ibv_ah_attr pp_ah_attr(struct pp_ctx *c,
				     const struct pp_dest *remote)
{
	struct ibv_ah_attr ah = {
		.dlid = remote->lid,
		.sl = c->o->sl,
		.port_num = c->o->ib_port,
	};

	if (c->gid_index >= 0) {
		ah.is_global = 1;
		ah.grh.dgid = remote->gid;
		ah.grh.sgid_index = c->gid_index;
		ah.grh.hop_limit = 64;
	}
	return ah;
}

/* Moves @p to RTR and RTS towards the peer's QP (UD: makes its AH); 0 or -1. */
static int pp_connect(struct pp_ctx *c, struct pp_qp *p)
{
	enum ibv_qp_type type = c->ex->qp_type;
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = c->o->mtu,
		.dest_qp_num = p->remote.qpn,
		.rq_psn = p->remote.psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = pp_ah_attr(c, &p->remote),
	};
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = p->local.psn,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};
	int rtr_mask = IBV_QP_STATE;
	int rts_mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	int ret;

	if (type != IBV_QPT_UD)
		rtr_mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN;
	if (type == IBV_QPT_RC) {
		rtr_mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		rts_mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	ret = ibv_modify_qp(p->qp, &rtr, rtr_mask);
	if (ret) {
		pp_err("can't move QP 0x%06x to RTR: %s", p->local.qpn,
		       strerror(ret));
		return -1;
	}
	ret = ibv_modify_qp(p->qp, &rts, rts_mask);
	if (ret) {
		pp_err("can't move QP 0x%06x to RTS: %s", p->local.qpn,
		       strerror(ret));
		return -1;
	}
	if (type == IBV_QPT_UD) {
		p->ah = ibv_create_ah(c->pd, &rtr.ah_attr);
		if (!p->ah) {
			pp_err("can't create an AH: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* ---- exchanging addresses ---------------------------------------------- */

static void pp_gid_str(const union ibv_gid *gid, char *s, size_t size)
{
	if (!inet_ntop(AF_INET6, gid->raw, s, size))
		snprintf(s, size, "?");
}

static void pp_print_dest(const char *what, const struct pp_dest *d)
{
	char gid[INET6_ADDRSTRLEN];

	pp_gid_str(&d->gid, gid, sizeof(gid));
	printf("  %-15s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", what,
	       d->lid, d->qpn, d->psn, gid);
}

/* Address records each way: rdma-core's srq_pingpong always sends 256. */
static unsigned int pp_nr_records(const struct pp_ctx *c)
{
	return c->ex->srq ? PP_SRQ_RECORDS : 1;
}

/* @d as an address record (a zero record for NULL) into @rec. */
static void pp_format_record(const struct pp_dest *d,
			     char rec[PP_RECORD_LEN])
{
	static const struct pp_dest none;
	char *p = rec;
	unsigned int j;

	if (!d)
		d = &none;
	p += sprintf(p, "%04x:%06x:%06x:", d->lid & 0xffff, d->qpn & 0xffffff,
		     d->psn & 0xffffff);
	for (j = 0; j < sizeof(d->gid.raw); j++)
		p += sprintf(p, "%02x", d->gid.raw[j]);
}

/* Parses record @rec into @d; false if it is not one. */
static bool pp_parse_record(char rec[PP_RECORD_LEN], struct pp_dest *d)
{
	unsigned int j, byte;
	char gid[33];

	if (rec[PP_RECORD_LEN - 1])
		return false;
	if (sscanf(rec, "%x:%x:%x:%32s", &d->lid, &d->qpn, &d->psn,
		   gid) != 4 || strlen(gid) != 32)
		return false;
	for (j = 0; j < sizeof(d->gid.raw); j++) {
		if (sscanf(gid + 2 * j, "%2x", &byte) != 1)
			return false;
		d->gid.raw[j] = byte;
	}
	return true;
}

static int pp_send_dests(struct pp_ctx *c)
{
	char rec[PP_RECORD_LEN];
	unsigned int i;

	for (i = 0; i < pp_nr_records(c); i++) {
		pp_format_record(i < c->o->num_qp ? &c->qps[i].local : NULL,
				 rec);
		if (pp_send_all(c->sock, rec, sizeof(rec)))
			return -1;
	}
	return 0;
}

/*
 * Reads the peer's records; the first -q must name a QP, the others (SRQ)
 * must be zero: a peer with another number of QPs is refused. 0 or -1.
 */
static int pp_recv_dests(struct pp_ctx *c)
{
	char rec[PP_RECORD_LEN];
	struct pp_dest d;
	unsigned int i;

	for (i = 0; i < pp_nr_records(c); i++) {
		if (pp_recv_all(c->sock, rec, sizeof(rec)))
			return -1;
		if (!pp_parse_record(rec, &d)) {
			rec[PP_RECORD_LEN - 1] = '\0';
			pp_err("bad address record %u from the peer: \"%s\"",
			       i, rec);
			return -1;
		}
		if ((i < c->o->num_qp) != (d.qpn != 0)) {
			pp_err("the peer has %s QPs than -q %u",
			       d.qpn ? "more" : "fewer", c->o->num_qp);
			return -1;
		}
		if (i < c->o->num_qp)
			c->qps[i].remote = d;
	}
	return 0;
}

/*
 * The client sends its records, reads the server's and says "done"; the
 * server reads, connects its QPs, answers and waits for the "done".
 * Then the client connects. 0 or -1; the connection is closed either way.
 */
static int pp_exchange(struct pp_ctx *c)
{
	char done[sizeof(PP_DONE)];
	unsigned int i;
	int ret = -1;

	for (i = 0; i < c->o->num_qp; i++)
		pp_print_dest("local address:", &c->qps[i].local);
	fflush(stdout);
	if (!c->server && pp_send_dests(c))
		goto out;
	if (pp_recv_dests(c))
		goto out;
	for (i = 0; c->server && i < c->o->num_qp; i++)
		if (pp_connect(c, &c->qps[i]))
			goto out;
	if (c->server && pp_send_dests(c))
		goto out;
	if (!c->server && pp_send_all(c->sock, PP_DONE, sizeof(PP_DONE)))
		goto out;
	if (c->server) {
		if (pp_recv_all(c->sock, done, sizeof(done)))
			goto out;
		if (memcmp(done, PP_DONE, sizeof(done))) {
			pp_err("the peer did not end the exchange with \"%s\"",
			       PP_DONE);
			goto out;
		}
	}
	for (i = 0; !c->server && i < c->o->num_qp; i++)
		if (pp_connect(c, &c->qps[i]))
			goto out;
	for (i = 0; i < c->o->num_qp; i++)
		pp_print_dest("remote address:", &c->qps[i].remote);
	ret = 0;
out:
	close(c->sock);
	c->sock = -1;
	return ret;
}

/* ---- the ping-pong ------------------------------------------------------ */

/*
 * Byte @off of this client's first message on every QP: a hash of the
 * offset catches data in the wrong place. Every page offset holds 0, as
 * rdma-core's -c expects. The QPs cannot differ: rdma-core's SRQ server
 * receives every QP's message into one buffer and answers from it, so an
 * answer may carry another QP's message.
 */
static uint8_t pp_pattern(size_t off, size_t page)
{
	uint32_t word = (uint32_t)(off / 4) * 2654435761u;

	if (off % page == 0)
		return 0;
	return (uint8_t)((word >> (off % 4 * 8)) + (word >> 24) + 1);
}

/* The client fills its send buffers with the messages it will echo. */
static void pp_fill(struct pp_ctx *c)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i;
	uint8_t *buf;
	size_t off;

	for (i = 0; i < c->o->num_qp; i++) {
		buf = pp_send_buf(c, i);
		for (off = 0; off < c->o->size; off++)
			buf[off] = pp_pattern(off, page);
	}
}

static int pp_post_send(struct pp_ctx *c, unsigned int qp_index)
{
	struct pp_qp *p = &c->qps[qp_index];
	struct ibv_sge sge = {
		.addr = (uintptr_t)pp_send_buf(c, qp_index),
		.length = c->o->size,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = PP_SEND_WRID | qp_index,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	int ret;

	if (p->ah) {
		wr.wr.ud.ah = p->ah;
		wr.wr.ud.remote_qpn = p->remote.qpn;
		wr.wr.ud.remote_qkey = PP_QKEY;
	}
	ret = ibv_post_send(p->qp, &wr, &bad);
	if (ret) {
		pp_err("can't post a send on QP 0x%06x: %s", p->local.qpn,
		       strerror(ret));
		return -1;
	}
	p->send_busy = true;
	p->sent++;
	c->sent++;
	return 0;
}

/*
 * Sends on QP @qp_index if it is its turn: the client once the answer to
 * its last message is in, the server once a message is waiting for its
 * answer; neither beyond -n sends in all.
 */
static int pp_next_send(struct pp_ctx *c, unsigned int qp_index)
{
	struct pp_qp *p = &c->qps[qp_index];

	if (p->send_busy || c->sent == c->o->iters ||
	    p->received != p->sent + c->server)
		return 0;
	return pp_post_send(c, qp_index);
}

static bool pp_finished(struct pp_ctx *c)
{
	return c->send_done >= c->o->iters && c->received >= c->o->iters;
}

/*
 * Checks a message received on QP @qp_index against the message of this
 * QP (the server takes the client's first one as it comes); 0 or -1.
 */
static int pp_check(struct pp_ctx *c, unsigned int qp_index,
		    const struct ibv_wc *wc)
{
	const struct pp_qp *p = &c->qps[qp_index];
	const uint8_t *buf = pp_recv_buf(c, wc->wr_id);
	uint8_t *want = pp_send_buf(c, qp_index);
	size_t off;

	if (wc->byte_len != c->recv_len) {
		pp_err("QP 0x%06x: message %u has %u bytes, expected %u",
		       p->local.qpn, p->received, wc->byte_len, c->recv_len);
		return -1;
	}
	buf += c->recv_len - c->o->size;
	if (c->server && !p->received) {
		memcpy(want, buf, c->o->size);
		return 0;
	}
	for (off = 0; off < c->o->size; off++) {
		if (buf[off] != want[off]) {
			pp_err("QP 0x%06x: message %u: byte %zu is 0x%02x, expected 0x%02x",
			       p->local.qpn, p->received, off, buf[off],
			       want[off]);
			return -1;
		}
	}
	return 0;
}

static int pp_qp_index(struct pp_ctx *c, uint32_t qp_num)
{
	unsigned int i;

	for (i = 0; i < c->o->num_qp; i++)
		if (c->qps[i].local.qpn == qp_num)
			return i;
	return -1;
}

static int pp_complete(struct pp_ctx *c, const struct ibv_wc *wc)
{
	bool send = wc->wr_id & PP_SEND_WRID;
	int i;

	if (wc->status != IBV_WC_SUCCESS) {
		pp_err("QP 0x%06x: %s completion failed: %s (%d)", wc->qp_num,
		       send ? "send" : "receive",
		       ibv_wc_status_str(wc->status), wc->status);
		return -1;
	}
	if (send) {
		i = wc->wr_id & ~PP_SEND_WRID;
		c->qps[i].send_busy = false;
		c->send_done++;
	} else {
		i = pp_qp_index(c, wc->qp_num);
		if (i < 0) {
			pp_err("receive completion for unknown QP 0x%06x",
			       wc->qp_num);
			return -1;
		}
		if (!c->server && c->qps[i].received == c->qps[i].sent) {
			pp_err("QP 0x%06x: a message arrived that answers none",
			       wc->qp_num);
			return -1;
		}
		if (pp_check(c, i, wc))
			return -1;
		c->qps[i].received++;
		c->received++;
		if (pp_post_recv(c, wc->wr_id))
			return -1;
	}
	return pp_next_send(c, i);
}

static long long pp_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* With -e: waits up to @timeout_ms for a completion event; 0 or -1. */
static int pp_wait(struct pp_ctx *c, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->channel->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;
	int n;

	n = poll(&pfd, 1, timeout_ms);
	if (n < 0 && errno != EINTR) {
		pp_err("poll: %s", strerror(errno));
		return -1;
	}
	if (n <= 0)
		return 0;
	if (ibv_get_cq_event(c->channel, &cq, &cq_ctx)) {
		pp_err("can't get a completion event");
		return -1;
	}
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(c->cq, 0)) {
		pp_err("can't request completion events");
		return -1;
	}
	return 0;
}

/* Ping-pong until -n messages went each way; 0 or -1. */
static int pp_run(struct pp_ctx *c)
{
	struct ibv_wc wc[PP_CQ_BATCH];
	long long last = pp_now_us(), quiet;
	unsigned int idle = 0, i;
	int n;

	if (c->channel && ibv_req_notify_cq(c->cq, 0)) {
		pp_err("can't request completion events");
		return -1;
	}
	for (i = 0; i < c->o->num_qp; i++)
		if (pp_next_send(c, i))
			return -1;
	while (!pp_finished(c)) {
		n = ibv_poll_cq(c->cq, PP_CQ_BATCH, wc);
		if (n < 0) {
			pp_err("can't poll the CQ");
			return -1;
		}
		for (i = 0; i < (unsigned int)n; i++)
			if (pp_complete(c, &wc[i]))
				return -1;
		if (n) {
			idle = 0;
			last = pp_now_us();
			continue;
		}
		if (c->channel) {
			if (pp_wait(c, 1000))
				return -1;
		} else if (++idle % PP_IDLE_POLLS) {
			continue;
		}
		quiet = (pp_now_us() - last) / 1000000;
		if (quiet >= c->o->timeout_s) {
			pp_err("no completion for %lld s: a message was lost or the peer is gone",
			       quiet);
			return -1;
		}
	}
	return 0;
}

static void pp_report(struct pp_ctx *c, long long usec)
{
	long long bytes = 2LL * c->o->size * c->o->iters;
	double sec;

	if (usec < 1)
		usec = 1;
	sec = usec / 1e6;
	printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, sec,
	       bytes * 8.0 / usec);
	printf("%u iters in %.2f seconds = %.2f usec/iter\n", c->o->iters, sec,
	       (double)usec / c->o->iters);
}

int pp_main(int argc, char **argv, const struct pp_example *ex)
{
	struct pp_opts o;
	struct pp_ctx c = { .ex = ex, .o = &o, .sock = -1 };
	long long start;
	int ret;

	prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	ret = pp_parse_args(argc, argv, ex, &o);
	if (ret >= 0)
		return ret;
	c.server = !o.server;
	srand48(getpid() * 1000003L ^ time(NULL));

	if (pp_open(&c))
		return 1;
	ret = 1;
	c.sock = c.server ? pp_tcp_accept(o.tcp_port) :
			    pp_tcp_connect(o.server, o.tcp_port);
	if (c.sock < 0 || pp_exchange(&c))
		goto out;
	if (!c.server)
		pp_fill(&c);
	fflush(stdout);
	start = pp_now_us();
	if (pp_run(&c))
		goto out;
	pp_report(&c, pp_now_us() - start);
	ret = 0;
out:
	pp_close(&c);
	return ret;
}
