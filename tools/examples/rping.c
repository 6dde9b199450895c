// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-rping: the classic rping of librdmacm's examples, on librnic's
 * <rdma/rdma_cma.h> (and, built against rdma-core, on its librdmacm: the
 * same source). A client and a server connect through the connection
 * manager and then, per ping, the client advertises its source buffer,
 * the server RDMA READs it, the client advertises its sink buffer, the
 * server RDMA WRITEs the data back into it, and the client may compare
 * the two (-V). The messages are the classic ones (16 bytes: address,
 * rkey and length in network byte order), so either side can be rping.
 *
 * One thread: completions and CM events are waited for together with
 * poll(), so that a peer's disconnect ends a wait for data. A persistent
 * server (-P) serves its clients one after the other (each gets its own
 * event channel, the others wait in the listen backlog).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#define RPING_PORT 7174
#define RPING_SIZE 64
#define RPING_FMT "rdma-ping-%d: "
/* room for the header with the largest ping number, and the NUL */
#define RPING_MIN_SIZE ((int)(sizeof(RPING_FMT) + sizeof("2147483647")))
#define RPING_MAX_SIZE (64 * 1024)
#define RPING_SQ_DEPTH 16
#define RPING_TIMEOUT_MS 2000

/* What each side sends: a buffer the peer may access, as rping's. */
struct rping_msg {
	uint64_t buf;
	uint32_t rkey;
	uint32_t size;
};

struct rping {
	/* options */
	bool server, client, persistent, verbose, validate, debug;
	int count;
	int size;
	uint16_t port;
	struct sockaddr_storage addr, src;
	bool have_addr, have_src;

	/* the connection */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	bool disconnected;

	/* its verbs objects */
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	bool cq_armed;
	struct rping_msg recv_msg, send_msg, peer;
	struct ibv_mr *recv_mr, *send_mr, *rping_mr, *start_mr;
	char *rping_buf, *start_buf;
	int recvs, sends;
};

#define DEBUG_LOG(r, ...)                             \
	do {                                          \
		if ((r)->debug)                       \
			fprintf(stderr, __VA_ARGS__); \
	} while (0)

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rnic-rping -s [-vVdP] [-S size] [-C count] [-a addr] [-p port]\n"
		"       rnic-rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]\n"
		"\t-c\t\tclient side\n"
		"\t-s\t\tserver side\n"
		"\t-P\t\tpersistent server mode (clients one after another)\n"
		"\t-v\t\tdisplay ping data to stdout\n"
		"\t-V\t\tvalidate ping data\n"
		"\t-d\t\tdebug printfs\n"
		"\t-S size\t\tping data size (%d to %d, default %d)\n"
		"\t-C count\tping count times (default: forever)\n"
		"\t-a addr\t\taddress to bind to (server) or connect to (client)\n"
		"\t-I addr\t\tsource address to connect from (client)\n"
		"\t-p port\t\tport (default %d)\n",
		RPING_MIN_SIZE, RPING_MAX_SIZE, RPING_SIZE, RPING_PORT);
}

static int get_addr(const char *name, struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res;
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	ret = getaddrinfo(name, NULL, &hints, &res);
	if (ret) {
		fprintf(stderr, "getaddrinfo %s: %s\n", name, gai_strerror(ret));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

/* A whole decimal number in [min, max], or -1 and a message. */
static long get_num(const char *arg, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 0);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "Invalid %s %s (valid range is %ld to %ld)\n",
			what, arg, min, max);
		return -1;
	}
	return v;
}

/* Returns 0 to run, 1 for a usage error, 2 when -h printed the usage. */
static int parse_args(struct rping *r, int argc, char **argv)
{
	long v;
	int c;

	r->size = RPING_SIZE;
	r->port = RPING_PORT;
	opterr = 0;
	while ((c = getopt(argc, argv, "a:I:p:C:S:PscvVdh")) != -1) {
		switch (c) {
		case 'a':
		case 'I':
			if (get_addr(optarg, c == 'a' ? &r->addr : &r->src))
				return 1;
			*(c == 'a' ? &r->have_addr : &r->have_src) = true;
			break;
		case 'p':
			v = get_num(optarg, 0, 65535, "port");
			if (v < 0)
				return 1;
			r->port = (uint16_t)v;
			break;
		case 'C':
			v = get_num(optarg, 1, INT_MAX, "count");
			if (v < 0)
				return 1;
			r->count = (int)v;
			break;
		case 'S':
			v = get_num(optarg, RPING_MIN_SIZE, RPING_MAX_SIZE,
				    "size");
			if (v < 0)
				return 1;
			r->size = (int)v;
			break;
		case 'P':
			r->persistent = true;
			break;
		case 's':
			r->server = true;
			break;
		case 'c':
			r->client = true;
			break;
		case 'v':
			r->verbose = true;
			break;
		case 'V':
			r->validate = true;
			break;
		case 'd':
			r->debug = true;
			break;
		case 'h':
			usage(stdout);
			return 2;
		default:
			fprintf(stderr, "rnic-rping: unknown option or missing argument: -%c\n",
				optopt);
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rnic-rping: unexpected argument: %s\n",
			argv[optind]);
		usage(stderr);
		return 1;
	}
	if (r->server == r->client) {
		fprintf(stderr, "rnic-rping: exactly one of -s and -c\n");
		usage(stderr);
		return 1;
	}
	if (r->client && !r->have_addr) {
		fprintf(stderr, "rnic-rping: the client needs -a\n");
		usage(stderr);
		return 1;
	}
	if (r->persistent && r->client) {
		fprintf(stderr, "rnic-rping: -P is for the server\n");
		usage(stderr);
		return 1;
	}
	if (r->have_src && r->server) {
		fprintf(stderr, "rnic-rping: -I is for the client\n");
		usage(stderr);
		return 1;
	}
	return 0;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htobe16(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htobe16(port);
}

/*
 * Handles one CM event of the connection's channel: a disconnect ends
 * the connection, others are logged.
 */
static int handle_cm_event(struct rping *r)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(r->ch, &ev)) {
		perror("rdma_get_cm_event");
		return -1;
	}
	DEBUG_LOG(r, "cma_event type %s cma_id %p (%s)\n",
		  rdma_event_str(ev->event), (void *)ev->id,
		  r->server ? "child" : "parent");
	if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
		fprintf(stderr, "%s DISCONNECT EVENT...\n",
			r->server ? "server" : "client");
		r->disconnected = true;
	}
	rdma_ack_cm_event(ev);
	return 0;
}

/* Waits for the next CM event and checks it is @want. */
static int wait_cm_event(struct rping *r, struct rdma_event_channel *ch,
			 enum rdma_cm_event_type want,
			 struct rdma_cm_event **out)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		return -1;
	}
	DEBUG_LOG(r, "cma_event type %s cma_id %p (%s)\n",
		  rdma_event_str(ev->event), (void *)ev->id,
		  ev->listen_id || !r->server ? "parent" : "child");
	if (ev->event != want || ev->status) {
		fprintf(stderr, "rnic-rping: %s (status %d), expected %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (out)
		*out = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

static int post_recv(struct rping *r)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&r->recv_msg,
		.length = sizeof(r->recv_msg),
		.lkey = r->recv_mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(r->id->qp, &wr, &bad)) {
		fprintf(stderr, "post recv failed\n");
		return -1;
	}
	return 0;
}

/* One completion: a receive is kept in @peer (and the receive reposted). */
static int take_wc(struct rping *r, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status == IBV_WC_WR_FLUSH_ERR && r->disconnected)
			return 1;
		fprintf(stderr, "cq completion failed status %d (%s)\n",
			wc->status, ibv_wc_status_str(wc->status));
		return -1;
	}
	if (wc->opcode != IBV_WC_RECV) {
		r->sends++;
		return 0;
	}
	if (wc->byte_len != sizeof(r->recv_msg)) {
		fprintf(stderr, "Received bogus data, size %u\n", wc->byte_len);
		return -1;
	}
	r->peer.buf = be64toh(r->recv_msg.buf);
	r->peer.rkey = be32toh(r->recv_msg.rkey);
	r->peer.size = be32toh(r->recv_msg.size);
	DEBUG_LOG(r, "Received rkey %x addr %" PRIx64 " len %u from peer\n",
		  r->peer.rkey, r->peer.buf, r->peer.size);
	r->recvs++;
	return post_recv(r);
}

/*
 * Waits until a completion has come for what *@counter counts (a receive
 * or a send-queue request), watching the CM channel meanwhile. Returns 0,
 * 1 when the peer disconnected, -1 on error.
 */
static int wait_for(struct rping *r, int *counter)
{
	struct pollfd fds[2];
	struct ibv_wc wc;
	struct ibv_cq *cq;
	void *ctx;
	int n;

	while (!*counter) {
		n = ibv_poll_cq(r->cq, 1, &wc);
		if (n < 0)
			return -1;
		if (n) {
			n = take_wc(r, &wc);
			if (n)
				return n;
			continue;
		}
		if (r->disconnected)
			return 1;
		if (!r->cq_armed) {
			/* Poll once more after arming: nothing is lost. */
			if (ibv_req_notify_cq(r->cq, 0))
				return -1;
			r->cq_armed = true;
			continue;
		}
		fds[0] = (struct pollfd){ .fd = r->cc->fd, .events = POLLIN };
		fds[1] = (struct pollfd){ .fd = r->ch->fd, .events = POLLIN };
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			return -1;
		if (fds[0].revents & POLLIN) {
			if (ibv_get_cq_event(r->cc, &cq, &ctx))
				return -1;
			ibv_ack_cq_events(cq, 1);
			r->cq_armed = false;
		}
		if ((fds[1].revents & POLLIN) && handle_cm_event(r))
			return -1;
	}
	(*counter)--;
	return 0;
}

static int post_send_wr(struct rping *r, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	wr->send_flags |= IBV_SEND_SIGNALED;
	if (ibv_post_send(r->id->qp, wr, &bad)) {
		fprintf(stderr, "post send error\n");
		return -1;
	}
	return wait_for(r, &r->sends);
}

/* SENDs an advertisement of @buf (the server's go-ahead: any buffer). */
static int send_msg(struct rping *r, const void *buf, struct ibv_mr *mr,
		    uint32_t size)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&r->send_msg,
		.length = sizeof(r->send_msg),
		.lkey = r->send_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	};

	r->send_msg.buf = htobe64((uintptr_t)buf);
	r->send_msg.rkey = htobe32(mr->rkey);
	r->send_msg.size = htobe32(size);
	DEBUG_LOG(r, "RDMA addr %" PRIx64 " rkey %x len %u\n",
		  (uint64_t)(uintptr_t)buf, mr->rkey, size);
	return post_send_wr(r, &wr);
}

/* RDMA READ or WRITE of the peer's advertised buffer to/from rping_buf. */
static int rdma_op(struct rping *r, enum ibv_wr_opcode op)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->rping_buf,
		.length = r->peer.size,
		.lkey = r->rping_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
	};

	if (r->peer.size > (uint32_t)r->size) {
		fprintf(stderr, "peer's buffer of %u bytes exceeds -S %d\n",
			r->peer.size, r->size);
		return -1;
	}
	wr.wr.rdma.remote_addr = r->peer.buf;
	wr.wr.rdma.rkey = r->peer.rkey;
	return post_send_wr(r, &wr);
}

static void free_verbs(struct rping *r)
{
	struct ibv_mr **mrs[] = { &r->recv_mr, &r->send_mr, &r->rping_mr,
				  &r->start_mr };
	size_t i;

	if (r->id && r->id->qp)
		rdma_destroy_qp(r->id);
	for (i = 0; i < sizeof(mrs) / sizeof(mrs[0]); i++) {
		if (*mrs[i])
			ibv_dereg_mr(*mrs[i]);
		*mrs[i] = NULL;
	}
	free(r->rping_buf);
	free(r->start_buf);
	r->rping_buf = r->start_buf = NULL;
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->cc)
		ibv_destroy_comp_channel(r->cc);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	r->cq = NULL;
	r->cc = NULL;
	r->pd = NULL;
	r->cq_armed = false;
	r->recvs = r->sends = 0;
}

static struct ibv_mr *reg(struct rping *r, void *buf, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(r->pd, buf, len,
				       IBV_ACCESS_LOCAL_WRITE | access);

	if (!mr)
		perror("ibv_reg_mr");
	return mr;
}

/* PD, CQ, QP and the four buffers of the connection's id. */
static int setup_verbs(struct rping *r)
{
	struct ibv_qp_init_attr attr;
	int remote = r->server ? 0 : IBV_ACCESS_REMOTE_WRITE;

	r->pd = ibv_alloc_pd(r->id->verbs);
	r->cc = r->pd ? ibv_create_comp_channel(r->id->verbs) : NULL;
	r->cq = r->cc ? ibv_create_cq(r->id->verbs, RPING_SQ_DEPTH * 2, r,
				      r->cc, 0) : NULL;
	if (!r->cq) {
		perror("rnic-rping: PD, completion channel or CQ");
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = RPING_SQ_DEPTH;
	attr.cap.max_recv_wr = 2;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	attr.send_cq = r->cq;
	attr.recv_cq = r->cq;
	if (rdma_create_qp(r->id, r->pd, &attr)) {
		perror("rdma_create_qp");
		return -1;
	}
	DEBUG_LOG(r, "created pd %p cq %p qp %p\n", (void *)r->pd,
		  (void *)r->cq, (void *)r->id->qp);
	r->rping_buf = calloc(1, (size_t)r->size);
	r->start_buf = r->server ? NULL : calloc(1, (size_t)r->size);
	if (!r->rping_buf || (!r->server && !r->start_buf))
		return -1;
	r->recv_mr = reg(r, &r->recv_msg, sizeof(r->recv_msg), 0);
	r->send_mr = r->recv_mr ? reg(r, &r->send_msg, sizeof(r->send_msg), 0) :
		NULL;
	r->rping_mr = r->send_mr ? reg(r, r->rping_buf, (size_t)r->size,
				       remote) : NULL;
	if (!r->rping_mr)
		return -1;
	if (!r->server) {
		r->start_mr = reg(r, r->start_buf, (size_t)r->size,
				  IBV_ACCESS_REMOTE_READ);
		if (!r->start_mr)
			return -1;
	}
	return post_recv(r);
}

static void conn_param(struct rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

/* The server's side of the pings, until the client disconnects. */
static int server_pings(struct rping *r)
{
	int ret;

	for (;;) {
		ret = wait_for(r, &r->recvs);
		if (ret)
			return ret > 0 ? 0 : -1;
		/* the client's source buffer: fetch it */
		if (rdma_op(r, IBV_WR_RDMA_READ))
			return r->disconnected ? 0 : -1;
		DEBUG_LOG(r, "server received read complete\n");
		if (r->verbose)
			printf("server ping data: %s\n", r->rping_buf);
		if (send_msg(r, r->rping_buf, r->rping_mr, (uint32_t)r->size))
			return r->disconnected ? 0 : -1;
		ret = wait_for(r, &r->recvs);
		if (ret)
			return ret > 0 ? 0 : -1;
		/* the client's sink buffer: write the data back */
		if (rdma_op(r, IBV_WR_RDMA_WRITE))
			return r->disconnected ? 0 : -1;
		DEBUG_LOG(r, "server rdma write complete\n");
		if (send_msg(r, r->rping_buf, r->rping_mr, (uint32_t)r->size))
			return r->disconnected ? 0 : -1;
	}
}

static void fill_start(struct rping *r, int ping, unsigned char *start)
{
	unsigned char c = *start;
	int i;

	i = snprintf(r->start_buf, (size_t)r->size, RPING_FMT, ping);
	for (; i < r->size; i++) {
		r->start_buf[i] = (char)c;
		c = c == 'z' ? 'A' : (unsigned char)(c + 1);
	}
	r->start_buf[r->size - 1] = '\0';
	*start = *start == 'z' ? 'A' : (unsigned char)(*start + 1);
}

/* The client's pings: -C of them, or until something fails. */
static int client_pings(struct rping *r)
{
	unsigned char start = 'A';
	int ping;

	for (ping = 0; !r->count || ping < r->count; ping++) {
		fill_start(r, ping, &start);
		if (send_msg(r, r->start_buf, r->start_mr, (uint32_t)r->size) ||
		    wait_for(r, &r->recvs))
			return -1;
		memset(r->rping_buf, 0, (size_t)r->size);
		if (send_msg(r, r->rping_buf, r->rping_mr, (uint32_t)r->size) ||
		    wait_for(r, &r->recvs))
			return -1;
		if (r->validate && memcmp(r->start_buf, r->rping_buf,
					  (size_t)r->size)) {
			fprintf(stderr, "data mismatch!\n");
			return -1;
		}
		if (r->verbose)
			printf("ping data: %s\n", r->rping_buf);
	}
	return 0;
}

static int run_client(struct rping *r)
{
	struct rdma_conn_param param;
	struct pollfd pfd;
	int ret;

	if (rdma_create_id(r->ch, &r->id, r, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return -1;
	}
	DEBUG_LOG(r, "created cm_id %p\n", (void *)r->id);
	set_port(&r->addr, r->port);
	if (rdma_resolve_addr(r->id, r->have_src ? (struct sockaddr *)&r->src :
			      NULL, (struct sockaddr *)&r->addr,
			      RPING_TIMEOUT_MS)) {
		perror("rdma_resolve_addr");
		return -1;
	}
	if (wait_cm_event(r, r->ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL))
		return -1;
	if (rdma_resolve_route(r->id, RPING_TIMEOUT_MS)) {
		perror("rdma_resolve_route");
		return -1;
	}
	if (wait_cm_event(r, r->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL) ||
	    setup_verbs(r))
		return -1;
	conn_param(&param);
	if (rdma_connect(r->id, &param)) {
		perror("rdma_connect");
		return -1;
	}
	if (wait_cm_event(r, r->ch, RDMA_CM_EVENT_ESTABLISHED, NULL))
		return -1;
	DEBUG_LOG(r, "rdma_connect successful\n");
	ret = client_pings(r);
	if (!r->disconnected) {
		rdma_disconnect(r->id);
		/* The DISCONNECTED event says the peer has heard. */
		pfd = (struct pollfd){ .fd = r->ch->fd, .events = POLLIN };
		while (!r->disconnected && poll(&pfd, 1, RPING_TIMEOUT_MS) > 0)
			if (handle_cm_event(r))
				break;
	}
	return ret;
}

/* One client of the server, on its own channel, until it disconnects. */
static int serve_one(struct rping *r, struct rdma_cm_id *child)
{
	struct rdma_conn_param param;
	int ret = -1;

	r->id = child;
	r->disconnected = false;
	r->ch = rdma_create_event_channel();
	if (!r->ch || rdma_migrate_id(child, r->ch)) {
		perror("rnic-rping: the connection's event channel");
		goto out;
	}
	if (setup_verbs(r))
		goto out;
	conn_param(&param);
	if (rdma_accept(child, &param)) {
		perror("rdma_accept");
		goto out;
	}
	if (wait_cm_event(r, r->ch, RDMA_CM_EVENT_ESTABLISHED, NULL))
		goto out;
	DEBUG_LOG(r, "accepting client connection request\n");
	ret = server_pings(r);
out:
	free_verbs(r);
	rdma_destroy_id(child);
	r->id = NULL;
	if (r->ch)
		rdma_destroy_event_channel(r->ch);
	r->ch = NULL;
	return ret;
}

static int run_server(struct rping *r)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct rdma_cm_id *listen_id = NULL, *child;
	struct rdma_cm_event *ev;
	int ret = -1;

	if (!lch) {
		perror("rdma_create_event_channel");
		return -1;
	}
	if (rdma_create_id(lch, &listen_id, r, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		goto out;
	}
	DEBUG_LOG(r, "created cm_id %p\n", (void *)listen_id);
	if (!r->have_addr)
		r->addr.ss_family = AF_INET;
	set_port(&r->addr, r->port);
	if (rdma_bind_addr(listen_id, (struct sockaddr *)&r->addr)) {
		perror("rdma_bind_addr");
		goto out;
	}
	if (rdma_listen(listen_id, 3)) {
		perror("rdma_listen");
		goto out;
	}
	DEBUG_LOG(r, "rdma_listen\n");
	do {
		if (wait_cm_event(r, lch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev))
			goto out;
		child = ev->id;
		DEBUG_LOG(r, "child cma %p\n", (void *)child);
		rdma_ack_cm_event(ev);
		ret = serve_one(r, child);
	} while (r->persistent);
out:
	if (listen_id)
		rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(lch);
	return ret;
}

int main(int argc, char **argv)
{
	struct rping r;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = parse_args(&r, argc, argv);
	if (ret)
		return ret == 2 ? 0 : 1;
	if (r.server) {
		ret = run_server(&r);
	} else {
		r.ch = rdma_create_event_channel();
		if (!r.ch) {
			perror("rdma_create_event_channel");
			return 1;
		}
		ret = run_client(&r);
		free_verbs(&r);
		if (r.id)
			rdma_destroy_id(r.id);
		rdma_destroy_event_channel(r.ch);
	}
	return ret ? 1 : 0;
}
