// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The engine of the ping-pong examples (see pingpong.h).
 *
 * A run: the server waits on a TCP port, the client connects to it. Each
 * side opens the device, creates its QPs (one, or -q of them sharing an
 * SRQ), posts -r receives, and the two exchange a hello line (example,
 * number of QPs, size, iterations: both sides must agree) and one address
 * line per QP (LID, QPN, PSN, GID) over TCP. The server moves its QPs to
 * RTS before it answers, so the client may send as soon as it has the
 * answer.
 *
 * Then, on every QP, the client sends message 0, the server answers with
 * its message 0 once it has received and checked the client's, the client
 * sends message 1 once it has received and checked that, and so on for -n
 * messages each way. A side sends message k only when its previous send
 * has completed. Every payload byte depends on the sender, the QP, the
 * message number and the byte's offset (pp_pattern()); the receiver
 * checks all of them and stops with an error on the first mismatch.
 * Each posted receive has its own buffer, so -r times -s bytes are
 * registered for receiving.
 *
 * At the end each side writes "done" on the TCP connection and waits for
 * the peer's, so that neither destroys its QPs while the other still
 * needs them (an RC sender still waiting for the last ACK, say). While
 * the messages fly the TCP connection is watched: if the peer goes away,
 * or no completion comes for a minute (a UC or UD message lost, say), the
 * run stops with an error instead of waiting forever.
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
#define PP_IDLE_POLLS 16384	/* empty CQ polls between looks at the peer */
#define PP_DRAIN_MS 5000	/* how long to wait for messages once the peer is done */
#define PP_STALL_MS 60000	/* longest wait for a completion before giving up */
#define PP_MAX_QP 1024
#define PP_LINE_MAX 128

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
};

static const struct pp_opt {
	struct option lo;
	const char *arg;
	const char *help;
} pp_opt_table[] = {
	{ { "port", required_argument, NULL, 'p' }, "PORT",
	  "listen on / connect to TCP port PORT (default 18515)" },
	{ { "ib-dev", required_argument, NULL, 'd' }, "DEV",
	  "use RDMA device DEV (default: the first one found)" },
	{ { "ib-port", required_argument, NULL, 'i' }, "PORT",
	  "use port PORT of the device (default 1)" },
	{ { "size", required_argument, NULL, 's' }, "SIZE",
	  "message size in bytes" },
	{ { "mtu", required_argument, NULL, 'm' }, "MTU",
	  "path MTU: 256, 512, 1024, 2048 or 4096 (default 1024)" },
	{ { "rx-depth", required_argument, NULL, 'r' }, "DEPTH",
	  "receives kept posted (default 500)" },
	{ { "iters", required_argument, NULL, 'n' }, "ITERS",
	  "messages each way (per QP) (default 1000)" },
	{ { "sl", required_argument, NULL, 'l' }, "SL",
	  "service level (default 0)" },
	{ { "events", no_argument, NULL, 'e' }, NULL,
	  "sleep on completion events (default: busy poll)" },
	{ { "gid-idx", required_argument, NULL, 'g' }, "INDEX",
	  "local GID index (default 0 on Ethernet ports)" },
	{ { "num-qp", required_argument, NULL, 'q' }, "NUM",
	  "number of QPs sharing the SRQ (default 16)" },
	{ { "chk", no_argument, NULL, 'c' }, NULL,
	  "check received data (always done)" },
	{ { "help", no_argument, NULL, 'h' }, NULL,
	  "print this help" },
};

#define PP_NR_OPTS (sizeof(pp_opt_table) / sizeof(pp_opt_table[0]))

static bool pp_opt_applies(const struct pp_example *ex, int c)
{
	if (c == 'm')
		return ex->qp_type != IBV_QPT_UD;
	if (c == 'q')
		return ex->srq;
	return true;
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
		if (!pp_opt_applies(ex, o->lo.val))
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", o->lo.name,
			 o->arg ? "=" : "", o->arg ? o->arg : "");
		fprintf(f, "  -%c, %-20s %s", o->lo.val, left, o->help);
		if (o->lo.val == 's')
			fprintf(f, " (default %u)", ex->default_size);
		fputc('\n', f);
	}
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

/* Fills @o from the command line: -1 to go on, else the exit status to leave with. */
static int pp_parse_args(int argc, char **argv, const struct pp_example *ex,
			 struct pp_opts *o)
{
	struct option longopts[PP_NR_OPTS + 1] = {};
	char shortopts[2 * PP_NR_OPTS + 1] = "";
	unsigned int n = 0, v;
	size_t i, len = 0;
	int c;

	for (i = 0; i < PP_NR_OPTS; i++) {
		c = pp_opt_table[i].lo.val;
		if (!pp_opt_applies(ex, c))
			continue;
		longopts[n++] = pp_opt_table[i].lo;
		shortopts[len++] = c;
		if (pp_opt_table[i].lo.has_arg)
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
	};
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case 'p':
			ok = pp_parse_uint(optarg, 1, 65535, &v);
			if (ok)
				snprintf(o->tcp_port, sizeof(o->tcp_port),
					 "%u", v);
			break;
		case 'd':
			o->ib_dev = optarg;
			break;
		case 'i':
			ok = pp_parse_uint(optarg, 1, 255, &o->ib_port);
			break;
		case 's':
			ok = pp_parse_uint(optarg, 1, 1u << 30, &o->size);
			break;
		case 'm':
			ok = pp_parse_mtu(optarg, &o->mtu);
			break;
		case 'r':
			ok = pp_parse_uint(optarg, 1, 1u << 20, &o->rx_depth);
			break;
		case 'n':
			ok = pp_parse_uint(optarg, 1, UINT32_MAX, &o->iters);
			break;
		case 'l':
			ok = pp_parse_uint(optarg, 0, 15, &o->sl);
			break;
		case 'e':
			o->events = true;
			break;
		case 'g':
			ok = pp_parse_uint(optarg, 0, 255, &v);
			if (ok)
				o->gid_index = v;
			break;
		case 'q':
			ok = pp_parse_uint(optarg, 1, PP_MAX_QP, &o->num_qp);
			break;
		case 'c':
			break;
		case 'h':
			pp_usage(stdout, ex);
			return 0;
		default:
			pp_usage(stderr, ex);
			return 1;
		}
		if (!ok) {
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

static int pp_send_line(int fd, const char *line)
{
	size_t len = strlen(line), done = 0;
	ssize_t n;

	while (done < len) {
		n = send(fd, line + done, len - done, MSG_NOSIGNAL);
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

/* One '\n'-terminated line into @line (without the '\n'); 0 or -1. */
static int pp_recv_line(int fd, char *line, size_t size)
{
	size_t len = 0;
	ssize_t n;
	char ch;

	for (;;) {
		n = recv(fd, &ch, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			pp_err("TCP receive: %s", n ? strerror(errno) :
			       "the peer closed the connection");
			return -1;
		}
		if (ch == '\n')
			break;
		if (len + 1 >= size) {
			pp_err("TCP receive: line too long");
			return -1;
		}
		line[len++] = ch;
	}
	line[len] = '\0';
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
 * @sent: sends posted
 * @received: receives completed and checked
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
 * @sock: the TCP connection to the peer
 * @peer_done: the peer's "done" line has arrived
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
	bool peer_done;
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

static void pp_hello(struct pp_ctx *c, char *line, size_t size)
{
	snprintf(line, size, "rnic-pingpong %s qps %u size %u iters %u",
		 c->ex->tag, c->o->num_qp, c->o->size, c->o->iters);
}

/* Both sides say what they run and check that the other runs the same. */
static int pp_exchange_hello(struct pp_ctx *c)
{
	char line[PP_LINE_MAX], mine[PP_LINE_MAX];

	pp_hello(c, mine, sizeof(mine));
	if (pp_send_line(c->sock, mine) || pp_send_line(c->sock, "\n") ||
	    pp_recv_line(c->sock, line, sizeof(line)))
		return -1;
	if (strcmp(line, mine)) {
		pp_err("the peer does not match: it runs \"%s\", this side \"%s\"",
		       line, mine);
		return -1;
	}
	return 0;
}

static int pp_send_dests(struct pp_ctx *c)
{
	char line[PP_LINE_MAX];
	unsigned int i, j;
	struct pp_dest *d;
	int len;

	for (i = 0; i < c->o->num_qp; i++) {
		d = &c->qps[i].local;
		len = snprintf(line, sizeof(line), "%04x %06x %06x ", d->lid,
			       d->qpn, d->psn);
		for (j = 0; j < sizeof(d->gid.raw); j++)
			len += snprintf(line + len, sizeof(line) - len,
					"%02x", d->gid.raw[j]);
		strcat(line, "\n");
		if (pp_send_line(c->sock, line))
			return -1;
	}
	return 0;
}

static int pp_recv_dests(struct pp_ctx *c)
{
	char line[PP_LINE_MAX], gid[33];
	unsigned int i, j, byte;
	struct pp_dest *d;

	for (i = 0; i < c->o->num_qp; i++) {
		d = &c->qps[i].remote;
		if (pp_recv_line(c->sock, line, sizeof(line)))
			return -1;
		if (sscanf(line, "%x %x %x %32s", &d->lid, &d->qpn, &d->psn,
			   gid) != 4 || strlen(gid) != 32)
			goto bad;
		for (j = 0; j < sizeof(d->gid.raw); j++) {
			if (sscanf(gid + 2 * j, "%2x", &byte) != 1)
				goto bad;
			d->gid.raw[j] = byte;
		}
	}
	return 0;
bad:
	pp_err("bad address line from the peer: \"%s\"", line);
	return -1;
}

/*
 * Exchanges addresses with the peer and connects every QP: the server
 * connects before it answers, the client after the answer. 0 or -1.
 */
static int pp_exchange(struct pp_ctx *c)
{
	unsigned int i;

	if (pp_exchange_hello(c))
		return -1;
	if (!c->server && pp_send_dests(c))
		return -1;
	if (pp_recv_dests(c))
		return -1;
	for (i = 0; i < c->o->num_qp; i++)
		if (pp_connect(c, &c->qps[i]))
			return -1;
	if (c->server && pp_send_dests(c))
		return -1;
	for (i = 0; i < c->o->num_qp; i++) {
		pp_print_dest("local address:", &c->qps[i].local);
		pp_print_dest("remote address:", &c->qps[i].remote);
	}
	return 0;
}

/* ---- the ping-pong ------------------------------------------------------ */

/*
 * Byte @off of message @iter from sender @seed. Every four consecutive
 * bytes hold the whole message number, so a stale or repeated message of
 * four bytes or more never matches; a hash of the offset catches data in
 * the wrong place, and @seed data from the wrong sender or QP.
 */
static uint8_t pp_pattern(unsigned int seed, unsigned int iter, size_t off)
{
	uint32_t word = (uint32_t)(off / 4) * 2654435761u;

	return (uint8_t)((iter >> (off % 4 * 8)) + (word >> 24) + seed * 101);
}

/* Who sends on QP @qp_index: the client and the server differ. */
static unsigned int pp_seed(unsigned int qp_index, bool server)
{
	return 2 * qp_index + server;
}

static int pp_post_send(struct pp_ctx *c, unsigned int qp_index)
{
	struct pp_qp *p = &c->qps[qp_index];
	uint8_t *buf = pp_send_buf(c, qp_index);
	unsigned int seed = pp_seed(qp_index, c->server);
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf,
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
	size_t off;
	int ret;

	for (off = 0; off < c->o->size; off++)
		buf[off] = pp_pattern(seed, p->sent, off);
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
	return 0;
}

/* The client sends message k after k answers, the server after k + 1 messages. */
static int pp_next_send(struct pp_ctx *c, unsigned int qp_index)
{
	struct pp_qp *p = &c->qps[qp_index];

	if (p->send_busy || p->sent == c->o->iters ||
	    p->received != p->sent + c->server)
		return 0;
	return pp_post_send(c, qp_index);
}

static bool pp_finished(struct pp_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->o->num_qp; i++) {
		struct pp_qp *p = &c->qps[i];

		if (p->send_busy || p->sent < c->o->iters ||
		    p->received < c->o->iters)
			return false;
	}
	return true;
}

/* Checks a received message of QP @qp_index; 0 or -1. */
static int pp_check(struct pp_ctx *c, unsigned int qp_index,
		    const struct ibv_wc *wc)
{
	const struct pp_qp *p = &c->qps[qp_index];
	unsigned int seed = pp_seed(qp_index, !c->server);
	const uint8_t *buf = pp_recv_buf(c, wc->wr_id);
	size_t off;

	if (wc->byte_len != c->recv_len) {
		pp_err("QP 0x%06x: message %u has %u bytes, expected %u",
		       p->local.qpn, p->received, wc->byte_len, c->recv_len);
		return -1;
	}
	buf += c->recv_len - c->o->size;
	for (off = 0; off < c->o->size; off++) {
		if (buf[off] != pp_pattern(seed, p->received, off)) {
			pp_err("QP 0x%06x: message %u: byte %zu is 0x%02x, expected 0x%02x",
			       p->local.qpn, p->received, off, buf[off],
			       pp_pattern(seed, p->received, off));
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
	} else {
		i = pp_qp_index(c, wc->qp_num);
		if (i < 0) {
			pp_err("receive completion for unknown QP 0x%06x",
			       wc->qp_num);
			return -1;
		}
		if (c->qps[i].received == c->o->iters) {
			pp_err("QP 0x%06x: more than %u messages arrived",
			       wc->qp_num, c->o->iters);
			return -1;
		}
		if (pp_check(c, i, wc))
			return -1;
		c->qps[i].received++;
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

/*
 * Looks at the TCP connection, waiting up to @timeout_ms for it or, with
 * -e, for a completion event. The peer closing the connection is an
 * error; its "done" line is left for pp_finish(), and from then on
 * pp_run() waits at most PP_DRAIN_MS for what is still missing. 0 or -1.
 */
static int pp_wait(struct pp_ctx *c, int timeout_ms)
{
	struct pollfd fds[2] = {
		{ .fd = c->peer_done ? -1 : c->sock, .events = POLLIN },
		{ .fd = c->channel ? c->channel->fd : -1, .events = POLLIN },
	};
	struct ibv_cq *cq;
	void *cq_ctx;
	char ch;
	int n;

	n = poll(fds, 2, timeout_ms);
	if (n < 0 && errno != EINTR) {
		pp_err("poll: %s", strerror(errno));
		return -1;
	}
	if (n <= 0)
		return 0;
	if (fds[0].revents) {
		if (recv(c->sock, &ch, 1, MSG_PEEK) <= 0) {
			pp_err("the peer closed the connection before the end");
			return -1;
		}
		c->peer_done = true;
	}
	if (fds[1].revents) {
		if (ibv_get_cq_event(c->channel, &cq, &cq_ctx)) {
			pp_err("can't get a completion event");
			return -1;
		}
		ibv_ack_cq_events(cq, 1);
		if (ibv_req_notify_cq(c->cq, 0)) {
			pp_err("can't request completion events");
			return -1;
		}
	}
	return 0;
}

/* Ping-pong until every QP has sent and received -n messages; 0 or -1. */
static int pp_run(struct pp_ctx *c)
{
	struct ibv_wc wc[PP_CQ_BATCH];
	long long last = pp_now_us(), quiet;
	unsigned int idle = 0, i;
	int n, ret;

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
		if (c->channel)
			ret = pp_wait(c, 1000);
		else if (++idle % PP_IDLE_POLLS)
			continue;
		else
			ret = pp_wait(c, 0);
		if (ret)
			return -1;
		quiet = (pp_now_us() - last) / 1000;
		if (c->peer_done && quiet > PP_DRAIN_MS) {
			pp_err("the peer has finished but messages are missing");
			return -1;
		}
		if (quiet > PP_STALL_MS) {
			pp_err("no completion for %lld s: a message was lost",
			       quiet / 1000);
			return -1;
		}
	}
	return 0;
}

/* Tells the peer this side is done and waits until it is too; 0 or -1. */
static int pp_finish(struct pp_ctx *c)
{
	char line[PP_LINE_MAX];

	if (pp_send_line(c->sock, "done\n") ||
	    pp_recv_line(c->sock, line, sizeof(line)))
		return -1;
	if (strcmp(line, "done")) {
		pp_err("unexpected line from the peer: \"%s\"", line);
		return -1;
	}
	return 0;
}

static void pp_report(struct pp_ctx *c, long long usec)
{
	long long bytes = 2LL * c->o->size * c->o->iters * c->o->num_qp;
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
	if (c.sock < 0)
		goto out_close;
	if (pp_exchange(&c))
		goto out_sock;
	fflush(stdout);
	start = pp_now_us();
	if (pp_run(&c))
		goto out_sock;
	pp_report(&c, pp_now_us() - start);
	if (pp_finish(&c))
		goto out_sock;
	ret = 0;
out_sock:
	close(c.sock);
out_close:
	pp_close(&c);
	return ret;
}
