// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-perf: the TCP exchange between server and client.
 *
 * Everything is one text line per message, so that a mismatch shows in a
 * packet capture as plainly as in an error message:
 *
 *   rnic-perf 1 TEST MIN MAX ITERS DURATION QPS   both ways, first; the
 *                                                 sides must agree
 *   qp QPN PSN RKEY ADDR RD_ATOM GID              both ways, one per QP
 *   sync                                          both ways, a barrier
 *   result SIZE ITERS V...                        client to server, the
 *                                                 row of one size
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "perf.h"

/* How long the client keeps trying to reach a server that is starting. */
#define PERF_CONNECT_MS		20000
#define PERF_PROTO_VERSION	1

/*
 * Listen on every address, IPv6 and IPv4 (or IPv4 only on a kernel
 * without IPv6), and accept one connection.
 */
static int tcp_listen(unsigned int port)
{
	struct sockaddr_in6 sa6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	struct sockaddr_in sa4 = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	struct sockaddr *sa = (struct sockaddr *)&sa6;
	socklen_t len = sizeof(sa6);
	int one = 1, fd, conn;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 && errno == EAFNOSUPPORT) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		sa = (struct sockaddr *)&sa4;
		len = sizeof(sa4);
	}
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, sa, len) || listen(fd, 1))
		goto err;
	conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (conn < 0)
		goto err;
	close(fd);
	return conn;
err:
	conn = -errno;
	close(fd);
	return conn;
}

static int tcp_connect(const char *host, unsigned int port)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res, *ai;
	double end = perf_now_us() + PERF_CONNECT_MS * 1000.0;
	char service[16];
	int fd, ret;

	snprintf(service, sizeof(service), "%u", port);
	ret = getaddrinfo(host, service, &hints, &res);
	if (ret) {
		fprintf(stderr, "rnic-perf: %s: %s\n", host, gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	for (;;) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
				    ai->ai_protocol);
			if (fd < 0)
				continue;
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
				goto out;
			ret = -errno;
			close(fd);
		}
		/* The server may still be starting: try again a while. */
		if (ret != -ECONNREFUSED || perf_now_us() > end)
			break;
		usleep(100000);
	}
	fd = ret;
out:
	freeaddrinfo(res);
	return fd;
}

/**
 * perf_net_connect() - accept the client (server) or reach the server
 * @c: the run; its socket is set
 *
 * Return: 0 or a negative errno.
 */
int perf_net_connect(struct perf_ctx *c)
{
	int one = 1;

	c->sock = c->o->host ? tcp_connect(c->o->host, c->o->port) :
			       tcp_listen(c->o->port);
	if (c->sock < 0) {
		fprintf(stderr, "rnic-perf: %s port %u: %s\n",
			c->o->host ? "cannot connect to" : "cannot listen on",
			c->o->port, strerror(-c->sock));
		return c->sock;
	}
	setsockopt(c->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

int perf_net_send(struct perf_ctx *c, const char *fmt, ...)
{
	char line[sizeof(c->sock_buf)];
	size_t done = 0;
	va_list ap;
	ssize_t n;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(line))
		return -EOVERFLOW;
	while (done < (size_t)len) {
		n = send(c->sock, line + done, len - done, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += n;
	}
	return 0;
}

/* Read what the socket has into the buffer; wait up to @timeout_ms. */
static int fill(struct perf_ctx *c, int timeout_ms)
{
	struct pollfd p = { .fd = c->sock, .events = POLLIN };
	ssize_t n;
	int ret;

	if (c->sock_len == sizeof(c->sock_buf))
		return -EPROTO;
	ret = poll(&p, 1, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (!ret)
		return timeout_ms ? -ETIMEDOUT : 0;
	n = recv(c->sock, c->sock_buf + c->sock_len,
		 sizeof(c->sock_buf) - c->sock_len, 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (!n)
		return -ECONNRESET;
	c->sock_len += n;
	return 0;
}

static bool have_line(const struct perf_ctx *c)
{
	return memchr(c->sock_buf, '\n', c->sock_len);
}

/**
 * perf_net_peek() - is a whole line from the peer waiting? Never blocks.
 * @c: the run
 *
 * Return: 1 if perf_net_recv() would return at once, 0 if not, or a
 * negative errno (the peer closed the connection: -ECONNRESET).
 */
int perf_net_peek(struct perf_ctx *c)
{
	int ret;

	if (have_line(c))
		return 1;
	ret = fill(c, 0);
	if (ret)
		return ret;
	return have_line(c);
}

/**
 * perf_net_recv() - the next line from the peer, without its newline
 * @c: the run
 * @line: where to put it
 * @len: size of @line
 * @timeout_ms: how long to wait, -1 for ever
 *
 * Return: 0, -ETIMEDOUT, -ECONNRESET when the peer went away, -EPROTO for
 * a line that does not fit, or another negative errno.
 */
int perf_net_recv(struct perf_ctx *c, char *line, size_t len, int timeout_ms)
{
	char *nl;
	size_t n;
	int ret;

	while (!have_line(c)) {
		ret = fill(c, timeout_ms);
		if (ret)
			return ret;
	}
	nl = memchr(c->sock_buf, '\n', c->sock_len);
	n = nl - c->sock_buf;
	if (n >= len)
		return -EPROTO;
	memcpy(line, c->sock_buf, n);
	line[n] = '\0';
	c->sock_len -= n + 1;
	memmove(c->sock_buf, nl + 1, c->sock_len);
	return 0;
}

/* Receive a line and report a failure as "while waiting for @what". */
static int recv_line(struct perf_ctx *c, char *line, size_t len,
		     const char *what)
{
	int ret = perf_net_recv(c, line, len, -1);

	if (ret)
		fprintf(stderr, "rnic-perf: waiting for the peer's %s: %s\n",
			what, ret == -ECONNRESET ? "connection closed" :
			strerror(-ret));
	return ret;
}

/**
 * perf_net_sync() - a barrier: return when the peer reached its own call
 * @c: the run
 *
 * Return: 0 or a negative errno.
 */
int perf_net_sync(struct perf_ctx *c)
{
	char line[16];
	int ret;

	ret = perf_net_send(c, "sync\n");
	if (ret)
		return ret;
	ret = recv_line(c, line, sizeof(line), "sync");
	if (ret)
		return ret;
	if (strcmp(line, "sync")) {
		fprintf(stderr, "rnic-perf: expected sync from the peer, got '%s'\n",
			line);
		return -EPROTO;
	}
	return 0;
}

/**
 * perf_net_hello() - check that both sides were given the same test
 * @c: the run
 *
 * Return: 0, or -EINVAL when the test, sizes, iterations, duration or
 * number of QPs differ (said on stderr), or another negative errno.
 */
int perf_net_hello(struct perf_ctx *c)
{
	const struct perf_opts *o = c->o;
	char mine[128], theirs[128];
	int ret;

	snprintf(mine, sizeof(mine), "rnic-perf %d %s %u %u %llu %u %u",
		 PERF_PROTO_VERSION, o->test->name, o->min_size, o->max_size,
		 (unsigned long long)o->iters, o->duration, o->qps);
	ret = perf_net_send(c, "%s\n", mine);
	if (ret)
		return ret;
	ret = recv_line(c, theirs, sizeof(theirs), "parameters");
	if (ret)
		return ret;
	if (strcmp(mine, theirs)) {
		fprintf(stderr,
			"rnic-perf: server and client disagree (give both the same test, -s/-a, -n, -D and -q):\n"
			"  this side: %s\n  the peer:  %s\n", mine, theirs);
		return -EINVAL;
	}
	return 0;
}

static void gid_to_hex(const union ibv_gid *gid, char *hex)
{
	int i;

	for (i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", gid->raw[i]);
}

static int hex_to_gid(const char *hex, union ibv_gid *gid)
{
	unsigned int b;
	int i;

	if (strlen(hex) != 32)
		return -EINVAL;
	for (i = 0; i < 16; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -EINVAL;
		gid->raw[i] = b;
	}
	return 0;
}

/**
 * perf_net_exchange_qps() - tell the peer about our QPs, learn about its
 * @c: the run; every QP's @local is sent, @remote filled in
 *
 * Return: 0 or a negative errno.
 */
int perf_net_exchange_qps(struct perf_ctx *c)
{
	char line[160], hex[33];
	unsigned long long addr;
	struct perf_remote *r;
	unsigned int i;
	int ret;

	for (i = 0; i < c->o->qps; i++) {
		r = &c->qps[i].local;
		gid_to_hex(&r->gid, hex);
		ret = perf_net_send(c, "qp %x %x %x %llx %u %s\n", r->qpn,
				    r->psn, r->rkey,
				    (unsigned long long)r->addr, r->rd_atom,
				    hex);
		if (ret)
			return ret;
	}
	for (i = 0; i < c->o->qps; i++) {
		r = &c->qps[i].remote;
		ret = recv_line(c, line, sizeof(line), "QP");
		if (ret)
			return ret;
		if (sscanf(line, "qp %x %x %x %llx %u %32s", &r->qpn, &r->psn,
			   &r->rkey, &addr, &r->rd_atom, hex) != 6 ||
		    hex_to_gid(hex, &r->gid)) {
			fprintf(stderr, "rnic-perf: bad QP line from the peer: '%s'\n",
				line);
			return -EPROTO;
		}
		r->addr = addr;
	}
	return 0;
}

int perf_net_send_result(struct perf_ctx *c, const struct perf_result *r)
{
	return perf_net_send(c,
			     "result %u %llu %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
			     r->size, (unsigned long long)r->iters, r->bw_peak,
			     r->bw_avg, r->msg_rate, r->t_min, r->t_max,
			     r->t_typical, r->t_avg, r->t_stdev, r->p99,
			     r->p99_9);
}

/**
 * perf_net_recv_result() - the client's row for one size
 * @c: the run
 * @r: filled in
 *
 * Return: 0 or a negative errno.
 */
int perf_net_recv_result(struct perf_ctx *c, struct perf_result *r)
{
	unsigned long long iters;
	char line[sizeof(c->sock_buf)];
	int ret;

	ret = recv_line(c, line, sizeof(line), "result");
	if (ret)
		return ret;
	if (sscanf(line, "result %u %llu %lg %lg %lg %lg %lg %lg %lg %lg %lg %lg",
		   &r->size, &iters, &r->bw_peak, &r->bw_avg, &r->msg_rate,
		   &r->t_min, &r->t_max, &r->t_typical, &r->t_avg, &r->t_stdev,
		   &r->p99, &r->p99_9) != 12) {
		fprintf(stderr, "rnic-perf: bad result line from the peer: '%s'\n",
			line);
		return -EPROTO;
	}
	r->iters = iters;
	return 0;
}
