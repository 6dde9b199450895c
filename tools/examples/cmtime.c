// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-cmtime: how long each step of setting up and tearing down an RC
 * connection through the connection manager takes, on librnic's
 * <rdma/rdma_cma.h> (and, built against rdma-core, on its librdmacm: the
 * same source, so the kernel's rdma_cm is measured by the same code).
 *
 * The client makes N connections one after the other, each through every
 * step (resolve the address, resolve the route, create the QP, connect,
 * disconnect, destroy), and prints per step the median, the 99th
 * percentile, the mean, the minimum and the maximum in microseconds. The
 * server accepts them with a QP each and tears each down when the client
 * disconnects; it exits after N connections.
 *
 *   rnic-cmtime -s [-b ADDR] [-p PORT] [-n N]
 *   rnic-cmtime -a SERVER [-b ADDR] [-p PORT] [-n N] [-t MS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_cma.h>

#define CMT_PORT	7471
#define CMT_N		1000
#define CMT_TIMEOUT_MS	5000

enum cmt_step {
	CMT_RESOLVE_ADDR,
	CMT_RESOLVE_ROUTE,
	CMT_CREATE_QP,
	CMT_CONNECT,
	CMT_DISCONNECT,
	CMT_DESTROY,
	CMT_NSTEPS,
};

static const char *const cmt_step_names[CMT_NSTEPS] = {
	"resolve_addr", "resolve_route", "create_qp", "connect",
	"disconnect", "destroy",
};

struct cmt {
	bool server;
	int n;
	int timeout_ms;
	const char *addr, *bind;
	const char *port;
	struct rdma_event_channel *ch;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	double *us[CMT_NSTEPS];
};

static double cmt_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * The next event of the channel within the timeout; 0 and *ev (to ack),
 * or -1 with errno (ETIMEDOUT).
 */
static int cmt_event(struct cmt *c, struct rdma_cm_event **ev)
{
	struct pollfd p = { .fd = c->ch->fd, .events = POLLIN };
	int r = poll(&p, 1, c->timeout_ms);

	if (r == 0)
		errno = ETIMEDOUT;
	if (r <= 0)
		return -1;
	return rdma_get_cm_event(c->ch, ev);
}

/* Wait for event @want on @id; -1 if another came (printed) or none. */
static int cmt_expect(struct cmt *c, struct rdma_cm_id *id,
		      enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int ok;

	if (cmt_event(c, &ev)) {
		fprintf(stderr, "waiting for %s: %s\n", rdma_event_str(want),
			strerror(errno));
		return -1;
	}
	ok = ev->event == want && ev->id == id;
	if (!ok)
		fprintf(stderr, "got %s (status %d), wanted %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(want));
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

/* A PD and a CQ on the id's device, once (every connection shares them). */
static int cmt_verbs(struct cmt *c, struct rdma_cm_id *id)
{
	if (c->pd)
		return 0;
	c->pd = ibv_alloc_pd(id->verbs);
	if (c->pd)
		c->cq = ibv_create_cq(id->verbs, 64, NULL, NULL, 0);
	if (!c->pd || !c->cq) {
		perror("ibv_alloc_pd/ibv_create_cq");
		return -1;
	}
	return 0;
}

static int cmt_create_qp(struct cmt *c, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = 1, .max_recv_wr = 1,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};

	if (cmt_verbs(c, id))
		return -1;
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	if (rdma_create_qp(id, c->pd, &attr)) {
		perror("rdma_create_qp");
		return -1;
	}
	return 0;
}

static struct rdma_addrinfo *cmt_addrinfo(const char *node, const char *port,
					  bool passive)
{
	struct rdma_addrinfo hints = {
		.ai_flags = passive ? RAI_PASSIVE : 0,
		.ai_port_space = RDMA_PS_TCP,
	}, *res;
	int ret = rdma_getaddrinfo(node, port, &hints, &res);

	if (ret) {
		fprintf(stderr, "rdma_getaddrinfo %s: %s\n", node ? node : "*",
			ret == -1 ? strerror(errno) : gai_strerror(ret));
		return NULL;
	}
	return res;
}

/* One connection, every step timed into slot @i. */
static int cmt_connect_one(struct cmt *c, struct rdma_addrinfo *dst,
			   struct rdma_addrinfo *src, int i)
{
	struct rdma_conn_param param = {
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct rdma_cm_id *id;
	double t[CMT_NSTEPS + 1];
	int s;

	if (rdma_create_id(c->ch, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return -1;
	}
	t[0] = cmt_now_us();
	if (rdma_resolve_addr(id, src ? src->ai_src_addr : NULL,
			      dst->ai_dst_addr, c->timeout_ms) ||
	    cmt_expect(c, id, RDMA_CM_EVENT_ADDR_RESOLVED))
		goto err;
	t[1] = cmt_now_us();
	if (rdma_resolve_route(id, c->timeout_ms) ||
	    cmt_expect(c, id, RDMA_CM_EVENT_ROUTE_RESOLVED))
		goto err;
	t[2] = cmt_now_us();
	if (cmt_create_qp(c, id))
		goto err;
	t[3] = cmt_now_us();
	if (rdma_connect(id, &param) ||
	    cmt_expect(c, id, RDMA_CM_EVENT_ESTABLISHED))
		goto err;
	t[4] = cmt_now_us();
	if (rdma_disconnect(id) ||
	    cmt_expect(c, id, RDMA_CM_EVENT_DISCONNECTED))
		goto err;
	t[5] = cmt_now_us();
	rdma_destroy_qp(id);
	if (rdma_destroy_id(id)) {
		perror("rdma_destroy_id");
		return -1;
	}
	t[6] = cmt_now_us();
	for (s = 0; s < CMT_NSTEPS; s++)
		c->us[s][i] = t[s + 1] - t[s];
	return 0;
err:
	fprintf(stderr, "connection %d failed\n", i);
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
	return -1;
}

static int cmt_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void cmt_report(struct cmt *c)
{
	int s, i;

	printf("%-14s %6s %10s %10s %10s %10s %10s\n", "step", "n",
	       "median_us", "p99_us", "mean_us", "min_us", "max_us");
	for (s = 0; s < CMT_NSTEPS; s++) {
		double *v = c->us[s], sum = 0;

		qsort(v, c->n, sizeof(*v), cmt_cmp);
		for (i = 0; i < c->n; i++)
			sum += v[i];
		printf("%-14s %6d %10.1f %10.1f %10.1f %10.1f %10.1f\n",
		       cmt_step_names[s], c->n, v[c->n / 2],
		       v[(c->n * 99 + 99) / 100 - 1], sum / c->n, v[0],
		       v[c->n - 1]);
	}
}

static int cmt_client(struct cmt *c)
{
	struct rdma_addrinfo *dst, *src = NULL;
	int i, ret = 0;

	dst = cmt_addrinfo(c->addr, c->port, false);
	if (!dst)
		return 1;
	if (c->bind) {
		src = cmt_addrinfo(c->bind, NULL, true);
		if (!src) {
			rdma_freeaddrinfo(dst);
			return 1;
		}
	}
	for (i = 0; i < CMT_NSTEPS; i++) {
		c->us[i] = calloc(c->n, sizeof(double));
		if (!c->us[i]) {
			perror("calloc");
			return 1;
		}
	}
	for (i = 0; i < c->n && !ret; i++)
		ret = cmt_connect_one(c, dst, src, i);
	if (!ret)
		cmt_report(c);
	rdma_freeaddrinfo(dst);
	if (src)
		rdma_freeaddrinfo(src);
	return ret ? 1 : 0;
}

/* The server's answer to one event; 1 when a connection is over. */
static int cmt_serve(struct cmt *c, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (cmt_create_qp(c, id) || rdma_accept(id, NULL)) {
			perror("accept");
			rdma_reject(id, NULL, 0);
			return -1;
		}
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		rdma_disconnect(id);
		rdma_destroy_qp(id);
		return 1;
	default:
		fprintf(stderr, "server: %s (status %d)\n",
			rdma_event_str(ev->event), ev->status);
		return -1;
	}
}

static int cmt_server(struct cmt *c)
{
	struct rdma_addrinfo *ai = cmt_addrinfo(c->bind, c->port, true);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *listener;
	int done = 0, r;

	if (!ai)
		return 1;
	if (rdma_create_id(c->ch, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, ai->ai_src_addr) ||
	    rdma_listen(listener, 16)) {
		perror("listen");
		rdma_freeaddrinfo(ai);
		return 1;
	}
	rdma_freeaddrinfo(ai);
	while (done < c->n) {
		struct rdma_cm_id *id;

		if (rdma_get_cm_event(c->ch, &ev)) {
			perror("rdma_get_cm_event");
			return 1;
		}
		id = ev->id;
		r = cmt_serve(c, ev);
		rdma_ack_cm_event(ev);
		if (r < 0)
			return 1;
		if (r > 0) {
			rdma_destroy_id(id);
			done++;
		}
	}
	rdma_destroy_id(listener);
	return 0;
}

static void cmt_usage(FILE *f)
{
	fprintf(f,
		"Usage: rnic-cmtime -s [-b ADDR] [-p PORT] [-n N]\n"
		"       rnic-cmtime -a SERVER [-b ADDR] [-p PORT] [-n N] [-t MS]\n"
		"  -s         server: accept N connections, then exit\n"
		"  -a SERVER  client: connect to SERVER N times, one after the other\n"
		"  -b ADDR    local address to bind (server: to listen on)\n"
		"  -p PORT    port (default %d)\n"
		"  -n N       connections (default %d)\n"
		"  -t MS      how long a step may take (default %d)\n",
		CMT_PORT, CMT_N, CMT_TIMEOUT_MS);
}

int main(int argc, char **argv)
{
	char port[8];
	struct cmt c = {
		.n = CMT_N, .timeout_ms = CMT_TIMEOUT_MS, .port = port,
	};
	int opt, ret;

	snprintf(port, sizeof(port), "%d", CMT_PORT);
	while ((opt = getopt(argc, argv, "sa:b:p:n:t:h")) != -1) {
		switch (opt) {
		case 's':
			c.server = true;
			break;
		case 'a':
			c.addr = optarg;
			break;
		case 'b':
			c.bind = optarg;
			break;
		case 'p':
			c.port = optarg;
			break;
		case 'n':
			c.n = atoi(optarg);
			break;
		case 't':
			c.timeout_ms = atoi(optarg);
			break;
		case 'h':
			cmt_usage(stdout);
			return 0;
		default:
			cmt_usage(stderr);
			return 2;
		}
	}
	if (optind != argc || c.n < 1 || c.timeout_ms < 1 ||
	    c.server == !!c.addr) {
		cmt_usage(stderr);
		return 2;
	}
	c.ch = rdma_create_event_channel();
	if (!c.ch) {
		perror("rdma_create_event_channel");
		return 1;
	}
	ret = c.server ? cmt_server(&c) : cmt_client(&c);
	if (c.cq)
		ibv_destroy_cq(c.cq);
	if (c.pd)
		ibv_dealloc_pd(c.pd);
	rdma_destroy_event_channel(c.ch);
	return ret;
}
