// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-xrc-pingpong: ping-pong over XRC between one server and several
 * client processes (Documentation/man/rnic-xrc-pingpong.1).
 *
 * The server opens one XRC domain, by a file (-f) so that other processes
 * of the host could open it too, and serves -c clients in it: for each, an
 * XRC SRQ that the client's messages land in, a target (XRC_RECV) QP that
 * receives them and an initiator (XRC_SEND) QP that answers to the
 * client's own XRC SRQ. A client has a domain of its own with one SRQ and
 * the same two QPs. All the server's SRQs complete on one CQ, and the
 * completion's wr_id says whose message came in.
 *
 * Over TCP each client sends its address (initiator and target QP
 * numbers, SRQ number, PSN, GID: struct xp_dest, network byte order) and
 * the server answers with the one it made for that client; at the end the
 * client sends one byte. The client sends -n messages of -s bytes, one at
 * a time, each to the SRQ number the server gave it; the server checks
 * each one and sends it back; the client checks that every byte of the
 * answer is what it sent. A message is a pattern that starts from its
 * first byte, which changes with every message, so a stale or torn one
 * fails the check on either side.
 *
 * Only <infiniband/verbs.h> is used, so the same source builds against
 * librnic and against rdma-core.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define XP_MAX_CLIENTS 64
#define XP_RECVS 8		/* receives posted on each SRQ */
#define XP_SEND_SLOT 0xff	/* wr_id's slot byte of a send */
#define XP_DONE 'D'		/* the client's last byte over TCP */

static const char *prog;

static void __attribute__((format(printf, 1, 2))) xp_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/**
 * struct xp_opts - the command line
 * @dev: -d, the device (default: the first)
 * @port: -p, the TCP port
 * @host: the server to connect to; NULL: be the server
 * @file: -f, the server's domain file
 * @gid_index: -g
 * @size: -s, bytes per message
 * @iters: -n, messages each way per client
 * @clients: -c, clients the server serves
 * @timeout_s: --timeout, longest wait for a completion
 */
struct xp_opts {
	const char *dev;
	const char *port;
	const char *host;
	const char *file;
	unsigned long gid_index;
	unsigned long size;
	unsigned long iters;
	unsigned long clients;
	unsigned long timeout_s;
};

/* An address as it travels: every word in network byte order. */
struct xp_dest {
	uint32_t ini_qpn;
	uint32_t tgt_qpn;
	uint32_t srqn;
	uint32_t psn;
	uint8_t gid[16];
};

/**
 * struct xp_conn - one side of one client's ping-pong
 * @ini: sends to the peer's SRQ
 * @tgt: takes the peer's messages to @srq
 * @srq: where the peer's messages land
 * @sock: the TCP connection
 * @local: our address, host byte order
 * @remote: the peer's, host byte order
 * @buf: a send slot of -s bytes, then XP_RECVS receive slots
 * @received: messages received (the server) or answers (the client)
 * @send_busy: a send has not completed yet
 * @due: the server's receive slot whose answer waits for @send_busy
 *	to clear, or -1
 */
struct xp_conn {
	struct ibv_qp *ini;
	struct ibv_qp *tgt;
	struct ibv_srq *srq;
	int sock;
	struct xp_dest local;
	struct xp_dest remote;
	uint8_t *buf;
	unsigned long received;
	bool send_busy;
	int due;
};

/**
 * struct xp_ctx - a side
 * @o: its options
 * @ctx, @pd, @cq, @mr: the verbs objects all connections share
 * @xrcd: the side's XRC domain
 * @xrcd_fd: the server's domain file, or -1
 * @mtu: the port's active MTU
 * @gid: the GID of -g
 * @buf: every connection's slots
 * @nr: connections made
 * @conn: them
 */
struct xp_ctx {
	struct xp_opts o;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_xrcd *xrcd;
	int xrcd_fd;
	enum ibv_mtu mtu;
	union ibv_gid gid;
	uint8_t *buf;
	unsigned int nr;
	struct xp_conn conn[XP_MAX_CLIENTS];
};

/* ---- options --------------------------------------------------------- */

static void xp_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTIONS]        the server\n"
		"       %s [OPTIONS] HOST   a client\n"
		"  -p, --port=PORT       TCP port (default 18515)\n"
		"  -d, --ib-dev=DEV      RDMA device (default: the first)\n"
		"  -g, --gid-idx=N       GID index (default 0)\n"
		"  -s, --size=BYTES      message size (default 4096)\n"
		"  -n, --iters=N         messages each way per client (default 1000)\n"
		"  -c, --clients=N       server: clients to serve (default 2, at most %d)\n"
		"  -f, --file=PATH       server: the XRC domain's file\n"
		"                        (default /tmp/rnic-xrc-pingpong.PORT)\n"
		"      --timeout=SEC     longest wait for a completion (default 60)\n"
		"  -h, --help\n", prog, prog, XP_MAX_CLIENTS);
}

static bool xp_uint(const char *s, unsigned long min, unsigned long max,
		    unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return !errno && *s && !*end && *s != '-' && *v >= min && *v <= max;
}

static int xp_parse(int argc, char **argv, struct xp_opts *o)
{
	static const struct option longs[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "gid-idx", required_argument, NULL, 'g' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "clients", required_argument, NULL, 'c' },
		{ "file", required_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long *num;
	unsigned long max;
	int c;

	*o = (struct xp_opts){ .port = "18515", .size = 4096, .iters = 1000,
			       .clients = 2, .timeout_s = 60 };
	while ((c = getopt_long(argc, argv, "p:d:g:s:n:c:f:h", longs,
				NULL)) != -1) {
		num = NULL;
		max = UINT32_MAX;
		switch (c) {
		case 'p':
			o->port = optarg;
			continue;
		case 'd':
			o->dev = optarg;
			continue;
		case 'f':
			o->file = optarg;
			continue;
		case 'h':
			xp_usage(stdout);
			exit(0);
		case 'g':
			num = &o->gid_index;
			max = 255;
			break;
		case 's':
			num = &o->size;
			max = 1 << 30;
			break;
		case 'n':
			num = &o->iters;
			break;
		case 'c':
			num = &o->clients;
			max = XP_MAX_CLIENTS;
			break;
		case 'T':
			num = &o->timeout_s;
			max = 3600;
			break;
		default:
			xp_usage(stderr);
			return -1;
		}
		if (!xp_uint(optarg, c == 'g' ? 0 : 1, max, num)) {
			xp_err("invalid value '%s' for %s%c", optarg,
			       c == 'T' ? "--timeout" : "-",
			       c == 'T' ? ' ' : c);
			return -1;
		}
	}
	if (optind < argc)
		o->host = argv[optind++];
	if (optind < argc) {
		xp_usage(stderr);
		return -1;
	}
	return 0;
}

/* ---- TCP ------------------------------------------------------------- */

static int xp_tcp(const struct xp_opts *o, bool listening)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = listening ? AI_PASSIVE : 0 };
	struct addrinfo *res, *a;
	int fd = -1, one = 1;

	if (getaddrinfo(o->host, o->port, &hints, &res)) {
		xp_err("can't resolve %s:%s", o->host ? o->host : "*", o->port);
		return -1;
	}
	for (a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd < 0)
			continue;
		if (listening) {
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				   sizeof(one));
			if (!bind(fd, a->ai_addr, a->ai_addrlen) &&
			    !listen(fd, XP_MAX_CLIENTS))
				continue;
		} else if (!connect(fd, a->ai_addr, a->ai_addrlen)) {
			continue;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		xp_err("can't %s %s:%s", listening ? "listen on" : "connect to",
		       o->host ? o->host : "*", o->port);
	return fd;
}

static int xp_io(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n <= 0) {
			xp_err("TCP %s: %s", out ? "send" : "receive",
			       n ? strerror(errno) : "the peer closed the connection");
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int xp_send_dest(int fd, const struct xp_dest *d)
{
	struct xp_dest w = {
		.ini_qpn = htonl(d->ini_qpn),
		.tgt_qpn = htonl(d->tgt_qpn),
		.srqn = htonl(d->srqn),
		.psn = htonl(d->psn),
	};

	memcpy(w.gid, d->gid, sizeof(w.gid));
	return xp_io(fd, &w, sizeof(w), true);
}

static int xp_recv_dest(int fd, struct xp_dest *d)
{
	struct xp_dest w;

	if (xp_io(fd, &w, sizeof(w), false))
		return -1;
	d->ini_qpn = ntohl(w.ini_qpn);
	d->tgt_qpn = ntohl(w.tgt_qpn);
	d->srqn = ntohl(w.srqn);
	d->psn = ntohl(w.psn);
	memcpy(d->gid, w.gid, sizeof(d->gid));
	return 0;
}

static void xp_print_dest(const char *what, const struct xp_dest *d)
{
	char gid[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, d->gid, gid, sizeof(gid));
	printf("  %s INI QPN 0x%06x, TGT QPN 0x%06x, SRQN 0x%06x, PSN 0x%06x, GID %s\n",
	       what, d->ini_qpn, d->tgt_qpn, d->srqn, d->psn, gid);
}

/* ---- verbs ----------------------------------------------------------- */

static size_t xp_conn_bytes(const struct xp_ctx *c)
{
	return (1 + XP_RECVS) * c->o.size;
}

static uint8_t *xp_slot(struct xp_conn *k, size_t size, int slot)
{
	return k->buf + (slot == XP_SEND_SLOT ? 0 : (size_t)(slot + 1) * size);
}

static uint64_t xp_wr_id(unsigned int conn, int slot)
{
	return (uint64_t)conn << 8 | (unsigned int)slot;
}

static struct ibv_context *xp_open_device(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i;

	list = ibv_get_device_list(NULL);
	if (!list) {
		xp_err("no RDMA devices: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; list[i]; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (list[i])
		ctx = ibv_open_device(list[i]);
	if (!list[i])
		xp_err("RDMA device %s not found", name ? name : "");
	else if (!ctx)
		xp_err("can't open %s: %s", name, strerror(errno));
	ibv_free_device_list(list);
	return ctx;
}

/* The device, its port and GID, the PD, CQ, domain and region. */
static int xp_open(struct xp_ctx *c)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	unsigned int n = c->o.host ? 1 : (unsigned int)c->o.clients;
	struct ibv_port_attr pa;
	const char *file = c->o.file;
	char path[64];
	size_t len;

	c->xrcd_fd = -1;
	c->ctx = xp_open_device(c->o.dev);
	if (!c->ctx)
		return -1;
	if (ibv_query_port(c->ctx, 1, &pa) || pa.state != IBV_PORT_ACTIVE) {
		xp_err("port 1 is not active");
		return -1;
	}
	c->mtu = pa.active_mtu;
	if (ibv_query_gid(c->ctx, 1, (int)c->o.gid_index, &c->gid)) {
		xp_err("can't read GID %lu", c->o.gid_index);
		return -1;
	}
	c->pd = ibv_alloc_pd(c->ctx);
	c->cq = c->pd ? ibv_create_cq(c->ctx, (int)(n * (XP_RECVS + 2)),
				      NULL, NULL, 0) : NULL;
	if (!c->cq) {
		xp_err("PD or CQ: %s", strerror(errno));
		return -1;
	}
	if (!c->o.host) {
		if (!file) {
			snprintf(path, sizeof(path), "/tmp/rnic-xrc-pingpong.%s",
				 c->o.port);
			file = path;
		}
		c->xrcd_fd = open(file, O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
		if (c->xrcd_fd < 0) {
			xp_err("%s: %s", file, strerror(errno));
			return -1;
		}
		xa.fd = c->xrcd_fd;
	}
	c->xrcd = ibv_open_xrcd(c->ctx, &xa);
	if (!c->xrcd) {
		xp_err("ibv_open_xrcd: %s", strerror(errno));
		return -1;
	}
	len = n * xp_conn_bytes(c);
	c->buf = calloc(1, len);
	c->mr = c->buf ? ibv_reg_mr(c->pd, c->buf, len,
				    IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!c->mr) {
		xp_err("memory region: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int xp_post_recv(struct xp_ctx *c, unsigned int i, int slot)
{
	struct xp_conn *k = &c->conn[i];
	struct ibv_sge sge = {
		.addr = (uintptr_t)xp_slot(k, c->o.size, slot),
		.length = (uint32_t)c->o.size,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = xp_wr_id(i, slot), .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(k->srq, &wr, &bad);
}

/* Connection @i's SRQ (with its receives), target and initiator QPs. */
static int xp_conn_make(struct xp_ctx *c, unsigned int i)
{
	struct xp_conn *k = &c->conn[i];
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = XP_RECVS, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = c->pd,
		.xrcd = c->xrcd,
		.cq = c->cq,
	};
	struct ibv_qp_init_attr_ex tgt = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = c->xrcd,
	};
	struct ibv_qp_init_attr_ex ini = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = { .max_send_wr = 2, .max_send_sge = 1 },
		.qp_type = IBV_QPT_XRC_SEND,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = c->pd,
	};
	int slot;

	k->buf = c->buf + i * xp_conn_bytes(c);
	k->due = -1;
	k->srq = ibv_create_srq_ex(c->ctx, &sa);
	if (!k->srq || ibv_get_srq_num(k->srq, &k->local.srqn)) {
		xp_err("XRC SRQ: %s", strerror(errno));
		return -1;
	}
	k->tgt = ibv_create_qp_ex(c->ctx, &tgt);
	k->ini = k->tgt ? ibv_create_qp_ex(c->ctx, &ini) : NULL;
	if (!k->ini) {
		xp_err("XRC QPs: %s", strerror(errno));
		return -1;
	}
	for (slot = 0; slot < XP_RECVS; slot++)
		if (xp_post_recv(c, i, slot)) {
			xp_err("ibv_post_srq_recv: %s", strerror(errno));
			return -1;
		}
	k->local.ini_qpn = k->ini->qp_num;
	k->local.tgt_qpn = k->tgt->qp_num;
	k->local.psn = (uint32_t)(lrand48() & 0xffffff);
	memcpy(k->local.gid, c->gid.raw, sizeof(k->local.gid));
	return 0;
}

/*
 * Both QPs of connection @k towards its peer: the target to RTR (it
 * only answers), the initiator to RTS. The target's peer is the
 * initiator over there, and the other way round.
 */
static int xp_conn_connect(struct xp_ctx *c, struct xp_conn *k)
{
	struct ibv_qp_attr a;
	struct ibv_qp *qp[2] = { k->tgt, k->ini };
	uint32_t dest[2] = { k->remote.ini_qpn, k->remote.tgt_qpn };
	int i;

	for (i = 0; i < 2; i++) {
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT,
					  .port_num = 1 };
		if (ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			return -1;
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTR,
			.path_mtu = c->mtu,
			.dest_qp_num = dest[i],
			.rq_psn = k->remote.psn,
			.max_dest_rd_atomic = 1,
			.min_rnr_timer = 12,
			.ah_attr = {
				.is_global = 1,
				.port_num = 1,
				.grh = {
					.sgid_index = (uint8_t)c->o.gid_index,
					.hop_limit = 64,
				},
			},
		};
		memcpy(a.ah_attr.grh.dgid.raw, k->remote.gid, 16);
		if (ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN |
				  (qp[i] == k->tgt ? IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER : 0)))
			return -1;
	}
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.sq_psn = k->local.psn,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};
	return ibv_modify_qp(k->ini, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void xp_close(struct xp_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		if (c->conn[i].ini)
			ibv_destroy_qp(c->conn[i].ini);
		if (c->conn[i].tgt)
			ibv_destroy_qp(c->conn[i].tgt);
		if (c->conn[i].srq)
			ibv_destroy_srq(c->conn[i].srq);
		if (c->conn[i].sock >= 0)
			close(c->conn[i].sock);
	}
	if (c->mr)
		ibv_dereg_mr(c->mr);
	free(c->buf);
	if (c->xrcd)
		ibv_close_xrcd(c->xrcd);
	if (c->xrcd_fd >= 0)
		close(c->xrcd_fd);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->ctx)
		ibv_close_device(c->ctx);
}

/* ---- messages -------------------------------------------------------- */

/* A message: every byte follows from the first. */
static void xp_fill(uint8_t *p, size_t len, uint8_t first)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(first + i * 7);
}

/* The offset of the first byte of @p that breaks the pattern, or -1. */
static long xp_bad_byte(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 1; i < len; i++)
		if (p[i] != (uint8_t)(p[0] + i * 7))
			return (long)i;
	return -1;
}

/* Send the message in connection @i's slot @slot to the peer's SRQ. */
static int xp_post_send(struct xp_ctx *c, unsigned int i, int slot)
{
	struct xp_conn *k = &c->conn[i];
	struct ibv_sge sge = {
		.addr = (uintptr_t)xp_slot(k, c->o.size, slot),
		.length = (uint32_t)c->o.size,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = xp_wr_id(i, XP_SEND_SLOT),
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.qp_type.xrc.remote_srqn = k->remote.srqn;
	k->send_busy = true;
	return ibv_post_send(k->ini, &wr, &bad);
}

static long long xp_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* One completion, or -1 after --timeout seconds without one. */
static int xp_poll(struct xp_ctx *c, struct ibv_wc *wc)
{
	long long end = xp_now_us() + (long long)c->o.timeout_s * 1000000;
	int n;

	while (!(n = ibv_poll_cq(c->cq, 1, wc)))
		if (xp_now_us() > end) {
			xp_err("no completion for %lu s", c->o.timeout_s);
			return -1;
		}
	if (n < 0) {
		xp_err("ibv_poll_cq: %d", n);
		return -1;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		xp_err("work request 0x%llx: %s", (unsigned long long)wc->wr_id,
		       ibv_wc_status_str(wc->status));
		return -1;
	}
	return 0;
}

/*
 * The server's answer to the message in slot @slot of connection @i:
 * sent back as it came, and the slot goes back to the SRQ once the send
 * has completed (when a send is still busy, at its completion).
 */
static int xp_answer(struct xp_ctx *c, unsigned int i, int slot)
{
	struct xp_conn *k = &c->conn[i];

	if (k->send_busy) {
		k->due = slot;
		return 0;
	}
	k->due = -1;
	memcpy(xp_slot(k, c->o.size, XP_SEND_SLOT),
	       xp_slot(k, c->o.size, slot), c->o.size);
	if (xp_post_send(c, i, XP_SEND_SLOT) || xp_post_recv(c, i, slot)) {
		xp_err("post: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A receive on the server: check the message, then answer it. */
static int xp_server_recv(struct xp_ctx *c, const struct ibv_wc *wc,
			  unsigned int i, int slot)
{
	struct xp_conn *k = &c->conn[i];
	long bad;

	if (wc->byte_len != c->o.size) {
		xp_err("client %u message %lu: %u bytes, expected %lu", i,
		       k->received, wc->byte_len, c->o.size);
		return -1;
	}
	bad = xp_bad_byte(xp_slot(k, c->o.size, slot), c->o.size);
	if (bad >= 0) {
		xp_err("client %u message %lu: byte %ld is wrong", i,
		       k->received, bad);
		return -1;
	}
	k->received++;
	return xp_answer(c, i, slot);
}

static bool xp_server_done(struct xp_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		if (c->conn[i].received < c->o.iters || c->conn[i].send_busy)
			return false;
	return true;
}

static int xp_server_run(struct xp_ctx *c)
{
	struct ibv_wc wc;
	unsigned int i;
	int slot;

	while (!xp_server_done(c)) {
		if (xp_poll(c, &wc))
			return -1;
		i = (unsigned int)(wc.wr_id >> 8);
		slot = (int)(wc.wr_id & 0xff);
		if (i >= c->nr)
			return -1;
		if (slot != XP_SEND_SLOT) {
			if (xp_server_recv(c, &wc, i, slot))
				return -1;
			continue;
		}
		c->conn[i].send_busy = false;
		if (c->conn[i].due >= 0 && xp_answer(c, i, c->conn[i].due))
			return -1;
	}
	return 0;
}

/* The client: one message at a time, each answer checked byte for byte. */
static int xp_client_run(struct xp_ctx *c)
{
	struct xp_conn *k = &c->conn[0];
	uint8_t *out = xp_slot(k, c->o.size, XP_SEND_SLOT);
	unsigned long n;
	struct ibv_wc wc;
	bool sent, answered;
	int slot;

	for (n = 0; n < c->o.iters; n++) {
		xp_fill(out, c->o.size, (uint8_t)(n * 31 + getpid()));
		if (xp_post_send(c, 0, XP_SEND_SLOT)) {
			xp_err("ibv_post_send: %s", strerror(errno));
			return -1;
		}
		for (sent = answered = false; !sent || !answered;) {
			if (xp_poll(c, &wc))
				return -1;
			slot = (int)(wc.wr_id & 0xff);
			if (slot == XP_SEND_SLOT) {
				sent = true;
				continue;
			}
			if (wc.byte_len != c->o.size ||
			    memcmp(xp_slot(k, c->o.size, slot), out,
				   c->o.size)) {
				xp_err("answer %lu differs from the message", n);
				return -1;
			}
			answered = true;
			if (xp_post_recv(c, 0, slot))
				return -1;
		}
	}
	return 0;
}

static void xp_report(unsigned long long bytes, unsigned long iters,
		      long long usec)
{
	double s = usec / 1e6;

	printf("%llu bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, s,
	       bytes * 8.0 / (usec ? usec : 1));
	printf("%lu iters in %.2f seconds = %.2f usec/iter\n", iters, s,
	       (double)usec / (iters ? iters : 1));
}

/* Accept -c clients, one connection each, then serve them all. */
static int xp_server(struct xp_ctx *c)
{
	int lfd, ret = -1;
	long long start;
	unsigned int i;
	char done;

	lfd = xp_tcp(&c->o, true);
	if (lfd < 0)
		return -1;
	for (i = 0; i < c->o.clients; i++) {
		struct xp_conn *k = &c->conn[i];

		k->sock = accept(lfd, NULL, NULL);
		c->nr = i + 1;
		if (k->sock < 0 || xp_conn_make(c, i) ||
		    xp_recv_dest(k->sock, &k->remote))
			goto out;
		if (xp_conn_connect(c, k)) {
			xp_err("client %u: modify QP: %s", i, strerror(errno));
			goto out;
		}
		if (xp_send_dest(k->sock, &k->local))
			goto out;
		xp_print_dest("local address: ", &k->local);
		xp_print_dest("remote address:", &k->remote);
	}
	start = xp_now_us();
	if (xp_server_run(c))
		goto out;
	for (i = 0; i < c->nr; i++)
		if (xp_io(c->conn[i].sock, &done, 1, false) || done != XP_DONE)
			goto out;
	xp_report(2ULL * c->o.size * c->o.iters * c->nr, c->o.iters * c->nr,
		  xp_now_us() - start);
	ret = 0;
out:
	close(lfd);
	return ret;
}

static int xp_client(struct xp_ctx *c)
{
	struct xp_conn *k = &c->conn[0];
	char done = XP_DONE;
	long long start;

	c->nr = 1;
	k->sock = xp_tcp(&c->o, false);
	if (k->sock < 0 || xp_conn_make(c, 0) ||
	    xp_send_dest(k->sock, &k->local) ||
	    xp_recv_dest(k->sock, &k->remote))
		return -1;
	if (xp_conn_connect(c, k)) {
		xp_err("modify QP: %s", strerror(errno));
		return -1;
	}
	xp_print_dest("local address: ", &k->local);
	xp_print_dest("remote address:", &k->remote);
	start = xp_now_us();
	if (xp_client_run(c) || xp_io(k->sock, &done, 1, true))
		return -1;
	xp_report(2ULL * c->o.size * c->o.iters, c->o.iters,
		  xp_now_us() - start);
	return 0;
}

int main(int argc, char **argv)
{
	struct xp_ctx c;
	unsigned int i;
	int ret;

	prog = argv[0];
	memset(&c, 0, sizeof(c));
	for (i = 0; i < XP_MAX_CLIENTS; i++)
		c.conn[i].sock = -1;
	if (xp_parse(argc, argv, &c.o))
		return 1;
	srand48(getpid() * 1000003L ^ time(NULL));
	ret = xp_open(&c);
	if (!ret)
		ret = c.o.host ? xp_client(&c) : xp_server(&c);
	xp_close(&c);
	return ret ? 1 : 0;
}
