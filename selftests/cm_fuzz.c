// SPDX-License-Identifier: GPL-2.0
/*
 * cm_fuzz: a structure-aware fuzzer of the connection manager's char
 * device (/dev/infiniband/rnic_cm), in the style of fuzz.c.
 *
 * Several worker processes, each with CF_FDS event channels, issue every
 * RNIC_CM_IOCTL_* with random, boundary and malformed fields (sizes,
 * flags, reserved fields, port spaces, address families, private data
 * lengths, QP states, options), bad handles and bad pointers, in random
 * orders, while real connections are made between the worker's own ids:
 * listeners on some ports, active ids resolving, connecting (RC: REQ,
 * UD: SIDR_REQ) to them or to ports nobody listens on, and every event
 * answered at random (accept, reject, establish, disconnect, destroy, or
 * nothing), so that every state of the protocol is reached, with short
 * CM timeouts so that retries, give-ups and time waits happen too. Ids
 * migrate between the channels; channels are closed under a thread that
 * migrates from them and issues ioctls on them; forked children use and
 * destroy the parent's ids.
 *
 * Determinism: as fuzz.c. A worker's work is cut into chunks of
 * CF_CHUNK_OPS operations; every chunk starts from fresh channels and
 * ends by closing them; operation i of chunk c of worker w draws its
 * randomness from (seed, w, c, i) only (what the kernel answers, and
 * when, still depends on timing). A chunk can be replayed alone
 * (RNIC_CM_FUZZ_REPLAY=seed:worker:chunk) and is then shrunk by dropping
 * operations. Each chunk writes "rnic-cm-fuzz: replay S:W:C" to
 * /dev/kmsg so that a kernel warning points at the chunks running.
 *
 * Environment:
 *   RNIC_CM_FUZZ_SEED    seed (default CF_DEFAULT_SEED)
 *   RNIC_CM_FUZZ_ITERS   operations across all workers (default
 *                        CF_DEFAULT_ITERS, the short pass)
 *   RNIC_CM_FUZZ_PROCS   worker processes (default 4)
 *   RNIC_CM_FUZZ_REPLAY  seed:worker:chunk: run that chunk alone and
 *                        print the shortest operation list that fails
 *   RNIC_CM_FUZZ_TRACE   print every operation
 *   RNIC_CM_FUZZ_INJECT  chunk:op: report a failure at that operation
 *
 * Failures: an errno outside the ABI's contract (rnic-cm-abi.h's DOC
 * block), an event that names no id of its channel or no known event, a
 * worker that crashes or hangs, a kernel log line of the kinds
 * tools/dev/vm/run rejects; and at the end, a connection between two
 * fresh channels must still work. Output is TAP.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rnic-abi.h>
#include <rdma/rnic-cm-abi.h>

#include "rnic_fuzz.h"
#include "rnic_genl.h"

#define CF_DEV			"cmfz0"
#define CF_NETDEV		"t_cmfz0"
#define CF_ADDR			"10.81.0.1"
#define CF_ADDR6		"fd81::1"
#define CF_DEFAULT_SEED		0x5eed
#define CF_DEFAULT_ITERS	20000
#define CF_CHUNK_OPS		256
#define CF_FDS			3
#define CF_POOL			48
/* Ports of worker w: CF_PORT_BASE + w * CF_PORTS + k; k >= CF_LIVE: dead */
#define CF_PORT_BASE		21000
#define CF_PORTS		16
#define CF_LIVE			4
#define CF_HANG_S		120
/* Short CM timeouts while fuzzing: give-ups and retries happen. */
#define CF_CM_TIMEOUT_MS	150
#define CF_CM_RETRIES		2
#define CF_NR_CMDS		(RNIC_CM_CMD_LEAVE_MCAST - RNIC_CM_CMD_BASE + 1)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static unsigned int cf_inject_chunk;
static int cf_inject_op = -1;

/* ---- randomness (fuzz.c's) ---------------------------------------------- */

static const uint32_t cf_bounds32[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 55, 56, 57, 63, 64, 127, 128,
	135, 136, 137, 147, 148, 149, 179, 180, 181, 195, 196, 197, 219, 220,
	221, 255, 256, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff,
	0x80000000, 0xffffffff,
};

static uint32_t cf_bound(uint64_t *s)
{
	uint32_t v = cf_bounds32[fuzz_rand(s) % ARRAY_SIZE(cf_bounds32)];

	switch (fuzz_rand(s) % 8) {
	case 0:
		return fuzz_rand(s);
	case 1:
		return v + 1;
	case 2:
		return v - 1;
	default:
		return v;
	}
}

/* ---- a worker ------------------------------------------------------------ */

enum cf_role { CF_ANY, CF_LISTENER, CF_ACTIVE, CF_PASSIVE };

struct cf_id {
	bool live;
	uint8_t fd;
	uint8_t role;
	uint32_t h;
};

struct cf_stats {
	unsigned long chunks, ok, err, events, requests, responses,
		established, disconnected, rejected, unreachable, timewait,
		migrated, closes, forks;
	unsigned long cmd_ok[CF_NR_CMDS], cmd_err[CF_NR_CMDS];
};

struct cf_worker {
	int id;
	uint64_t seed;
	unsigned int chunk;
	unsigned int op;
	const bool *mask;
	bool verbose;
	int kfd;
	int fds[CF_FDS];
	struct cf_id pool[CF_POOL];
	uint8_t *ro;		/* a read-only page */
	uint8_t *edge;		/* a page followed by an unmapped one */
	char fail[256];
	struct cf_stats st;
};

static const char *const cf_cmd_names[CF_NR_CMDS] = {
	"CREATE_ID", "DESTROY_ID", "BIND_ADDR", "RESOLVE_ADDR",
	"RESOLVE_ROUTE", "QUERY", "LISTEN", "CONNECT", "ACCEPT", "REJECT",
	"ESTABLISH", "DISCONNECT", "NOTIFY", "INIT_QP_ATTR", "GET_EVENT",
	"SET_OPTION", "MIGRATE_ID", "JOIN_MCAST", "LEAVE_MCAST",
};

static const unsigned long cf_cmds[CF_NR_CMDS] = {
	RNIC_CM_IOCTL_CREATE_ID, RNIC_CM_IOCTL_DESTROY_ID,
	RNIC_CM_IOCTL_BIND_ADDR, RNIC_CM_IOCTL_RESOLVE_ADDR,
	RNIC_CM_IOCTL_RESOLVE_ROUTE, RNIC_CM_IOCTL_QUERY,
	RNIC_CM_IOCTL_LISTEN, RNIC_CM_IOCTL_CONNECT, RNIC_CM_IOCTL_ACCEPT,
	RNIC_CM_IOCTL_REJECT, RNIC_CM_IOCTL_ESTABLISH,
	RNIC_CM_IOCTL_DISCONNECT, RNIC_CM_IOCTL_NOTIFY,
	RNIC_CM_IOCTL_INIT_QP_ATTR, RNIC_CM_IOCTL_GET_EVENT,
	RNIC_CM_IOCTL_SET_OPTION, RNIC_CM_IOCTL_MIGRATE_ID,
	RNIC_CM_IOCTL_JOIN_MCAST, RNIC_CM_IOCTL_LEAVE_MCAST,
};

static const uint16_t cf_sizes[CF_NR_CMDS] = {
	sizeof(struct rnic_cm_create_id), sizeof(struct rnic_cm_destroy_id),
	sizeof(struct rnic_cm_bind_addr), sizeof(struct rnic_cm_resolve_addr),
	sizeof(struct rnic_cm_resolve_route), sizeof(struct rnic_cm_query),
	sizeof(struct rnic_cm_listen), sizeof(struct rnic_cm_connect),
	sizeof(struct rnic_cm_accept), sizeof(struct rnic_cm_reject),
	sizeof(struct rnic_cm_id_cmd), sizeof(struct rnic_cm_disconnect),
	sizeof(struct rnic_cm_notify), sizeof(struct rnic_cm_init_qp_attr),
	sizeof(struct rnic_cm_get_event), sizeof(struct rnic_cm_set_option),
	sizeof(struct rnic_cm_migrate_id), sizeof(struct rnic_cm_join_mcast),
	sizeof(struct rnic_cm_join_mcast),
};

enum {
	C_CREATE, C_DESTROY, C_BIND, C_RESOLVE_ADDR, C_RESOLVE_ROUTE, C_QUERY,
	C_LISTEN, C_CONNECT, C_ACCEPT, C_REJECT, C_ESTABLISH, C_DISCONNECT,
	C_NOTIFY, C_INIT_QP_ATTR, C_GET_EVENT, C_SET_OPTION, C_MIGRATE,
	C_JOIN, C_LEAVE,
};

static void cf_failf(struct cf_worker *w, const char *fmt, ...)
{
	va_list ap;

	if (w->fail[0])
		return;
	va_start(ap, fmt);
	vsnprintf(w->fail, sizeof(w->fail), fmt, ap);
	va_end(ap);
}

static void cf_log(struct cf_worker *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->verbose)
		return;
	printf("#   op %3u: ", w->op);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/*
 * The error contract (rnic-cm-abi.h's DOC block and the structs'
 * kernel-doc): which errno command @c may fail with (@c < 0: an unknown
 * number, ENOTTY only).
 */
static bool cf_errno_ok(int c, int err)
{
	if (c < 0)
		return err == ENOTTY;
	switch (err) {
	case EINVAL: case E2BIG: case EFAULT: case ENOMEM:
		return true;
	case ENOENT:
		return c != C_CREATE && c != C_GET_EVENT;
	case EADDRINUSE:
		return c == C_BIND || c == C_RESOLVE_ADDR || c == C_LISTEN ||
		       c == C_JOIN;
	case EADDRNOTAVAIL:
		return c == C_BIND || c == C_RESOLVE_ADDR || c == C_LEAVE;
	case EACCES:
		return c == C_BIND || c == C_RESOLVE_ADDR || c == C_LISTEN;
	case EOPNOTSUPP:
		return c == C_CONNECT || c == C_SET_OPTION || c == C_JOIN;
	case EAGAIN:
		return c == C_GET_EVENT;
	case ENOSPC:
		return c == C_JOIN;
	case EBADF:
		return c == C_MIGRATE;
	default:
		return false;
	}
}

/* Issue command @c (or raw number @num if @c < 0) and check its errno. */
static int cf_ioctl(struct cf_worker *w, int fd, int c, unsigned long num,
		    void *arg)
{
	int ret, err;

	if (c >= 0)
		num = cf_cmds[c];
	ret = ioctl(fd, num, arg);
	err = ret ? errno : 0;
	if (ret)
		w->st.err++;
	else
		w->st.ok++;
	if (c >= 0) {
		if (ret)
			w->st.cmd_err[c]++;
		else
			w->st.cmd_ok[c]++;
	}
	if (w->verbose)
		printf("#            %s -> %s\n", c >= 0 ? cf_cmd_names[c] :
		       "raw", ret ? strerror(err) : "ok");
	if (ret && !cf_errno_ok(c, err))
		cf_failf(w, "ioctl %s (0x%lx) failed with errno %d (%s), not in the ABI's contract",
			 c >= 0 ? cf_cmd_names[c] : "unknown", num, err,
			 strerror(err));
	if (!ret && c < 0)
		cf_failf(w, "unknown ioctl 0x%lx succeeded", num);
	return -err;
}

/* ---- the pool of ids ------------------------------------------------------ */

static void cf_pool_add(struct cf_worker *w, int fd, uint32_t h, int role)
{
	int i, slot = -1;

	for (i = 0; i < CF_POOL; i++) {
		if (w->pool[i].live && w->pool[i].fd == fd &&
		    w->pool[i].h == h) {
			if (role != CF_ANY)
				w->pool[i].role = role;
			return;
		}
		if (!w->pool[i].live && slot < 0)
			slot = i;
	}
	if (slot < 0)
		slot = h % CF_POOL;
	w->pool[slot] = (struct cf_id){ .live = true, .fd = fd, .role = role,
					.h = h };
}

static void cf_pool_del(struct cf_worker *w, int fd, uint32_t h)
{
	int i;

	for (i = 0; i < CF_POOL; i++)
		if (w->pool[i].live && w->pool[i].fd == fd && w->pool[i].h == h)
			w->pool[i].live = false;
}

/* A random live id of the pool (of @role unless CF_ANY); NULL if none. */
static struct cf_id *cf_pick(struct cf_worker *w, uint64_t *s, int role)
{
	int i, start = fuzz_rand(s) % CF_POOL;

	for (i = 0; i < CF_POOL; i++) {
		struct cf_id *p = &w->pool[(start + i) % CF_POOL];

		if (p->live && (role == CF_ANY || p->role == role))
			return p;
	}
	return NULL;
}

/* A handle for a command: mostly a live one, else a bad one. */
static uint32_t cf_handle(struct cf_worker *w, uint64_t *s, int *fd)
{
	struct cf_id *p = fuzz_chance(s, 7, 8) ? cf_pick(w, s, CF_ANY) : NULL;

	if (p) {
		*fd = p->fd;
		return p->h;
	}
	*fd = fuzz_rand(s) % CF_FDS;
	switch (fuzz_rand(s) % 4) {
	case 0:
		return 0;
	case 1:
		return cf_bound(s);
	default:
		return fuzz_rand(s) % 64;
	}
}

/* ---- addresses ------------------------------------------------------------ */

static uint16_t cf_port(const struct cf_worker *w, unsigned int k)
{
	return CF_PORT_BASE + w->id * CF_PORTS + k % CF_PORTS;
}

static void cf_sin(struct rnic_cm_sockaddr *a, const char *ip, uint16_t port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)a;

	memset(a, 0, sizeof(*a));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	inet_pton(AF_INET, ip, &sin->sin_addr);
}

static void cf_sin6(struct rnic_cm_sockaddr *a, const char *ip,
		    uint16_t port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)a;

	memset(a, 0, sizeof(*a));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	inet_pton(AF_INET6, ip, &sin6->sin6_addr);
}

/* An address for a command: mostly one of the worker's, else anything. */
static void cf_addr(struct cf_worker *w, uint64_t *s, struct rnic_cm_sockaddr *a)
{
	uint16_t port = cf_port(w, fuzz_rand(s));
	uint8_t *b = (uint8_t *)a;

	switch (fuzz_rand(s) % 12) {
	case 0:
		cf_sin(a, "0.0.0.0", port);
		break;
	case 1:
		cf_sin6(a, CF_ADDR6, port);
		break;
	case 2:
		cf_sin6(a, "::", port);
		break;
	case 3:
		cf_sin(a, "10.81.0.99", port);	/* on the subnet, nobody's */
		break;
	case 4:
		cf_sin(a, "239.81.0.1", 0);	/* a group */
		break;
	case 5:
		cf_sin(a, CF_ADDR, fuzz_rand(s) % 1024);
		break;
	case 6:	/* another family, or garbage after a good one */
		cf_sin(a, CF_ADDR, port);
		if (fuzz_chance(s, 1, 2))
			((struct sockaddr_in *)a)->sin_family = fuzz_rand(s) % 64;
		else
			b[16 + fuzz_rand(s) % 100] = fuzz_rand(s) | 1;
		break;
	case 7:
		memset(a, 0, sizeof(*a));
		break;
	default:
		cf_sin(a, CF_ADDR, port);
		break;
	}
}

/* ---- the protocol, driven at random ----------------------------------------- */

static void cf_conn_param(uint64_t *s, struct rnic_cm_conn_param *c,
			  unsigned int pd_max, bool malformed)
{
	memset(c, 0, sizeof(*c));
	c->qp_num = 0x100 + fuzz_rand(s) % 0x1000;
	c->responder_resources = fuzz_rand(s) % 256;
	c->initiator_depth = fuzz_rand(s) % 256;
	c->retry_count = fuzz_rand(s) % 8;
	c->rnr_retry_count = fuzz_rand(s) % 8;
	c->srq = fuzz_rand(s) % 2;
	c->flow_control = fuzz_rand(s) % 2;
	c->private_data_len = fuzz_rand(s) % (pd_max + 1);
	memset(c->private_data, fuzz_rand(s), c->private_data_len);
	if (!malformed)
		return;
	switch (fuzz_rand(s) % 5) {
	case 0:
		c->private_data_len = pd_max + 1 + fuzz_rand(s) % (256 - pd_max);
		break;
	case 1:
		c->__reserved = fuzz_rand(s) | 1;
		break;
	case 2:
		c->retry_count = 8 + fuzz_rand(s) % 248;
		break;
	case 3:
		c->rnr_retry_count = 8 + fuzz_rand(s) % 248;
		break;
	default:
		c->srq = 2 + fuzz_rand(s) % 254;
		break;
	}
}

static int cf_destroy(struct cf_worker *w, int fd, uint32_t h)
{
	struct rnic_cm_destroy_id d = { .size = sizeof(d), .id = h };
	int ret = cf_ioctl(w, w->fds[fd], C_DESTROY, 0, &d);

	if (!ret)
		cf_pool_del(w, fd, h);
	return ret;
}

static int cf_id_cmd(struct cf_worker *w, int fd, int c, uint32_t h)
{
	struct rnic_cm_disconnect d = { .size = sizeof(d), .id = h };

	if (c == C_ESTABLISH)
		d.size = sizeof(struct rnic_cm_id_cmd);
	return cf_ioctl(w, w->fds[fd], c, 0, &d);
}

static int cf_connect(struct cf_worker *w, uint64_t *s, int fd, uint32_t h)
{
	struct rnic_cm_connect c = { .size = sizeof(c), .id = h };

	cf_conn_param(s, &c.conn, RNIC_CM_REQ_PRIVATE_DATA,
		      fuzz_chance(s, 1, 10));
	return cf_ioctl(w, w->fds[fd], C_CONNECT, 0, &c);
}

static void cf_qp_attrs(struct cf_worker *w, uint64_t *s, int fd, uint32_t h)
{
	static const uint32_t states[] = {
		RNIC_QPS_INIT, RNIC_QPS_RTR, RNIC_QPS_RTS,
	};
	struct rnic_cm_init_qp_attr a = { .size = sizeof(a), .id = h };

	a.qp_state = fuzz_chance(s, 7, 8) ?
		     states[fuzz_rand(s) % ARRAY_SIZE(states)] : cf_bound(s);
	cf_ioctl(w, w->fds[fd], C_INIT_QP_ATTR, 0, &a);
}

static int cf_accept(struct cf_worker *w, uint64_t *s, int fd, uint32_t h)
{
	struct rnic_cm_accept a = { .size = sizeof(a), .id = h };

	a.uid = fuzz_rand(s);
	cf_conn_param(s, &a.conn, RNIC_CM_SIDR_REP_PRIVATE_DATA,
		      fuzz_chance(s, 1, 10));
	return cf_ioctl(w, w->fds[fd], C_ACCEPT, 0, &a);
}

static int cf_reject(struct cf_worker *w, uint64_t *s, int fd, uint32_t h)
{
	struct rnic_cm_reject r = { .size = sizeof(r), .id = h };

	r.reason = fuzz_chance(s, 1, 2) ? 0 : fuzz_rand(s) % 64;
	r.private_data_len = fuzz_chance(s, 9, 10) ?
			     fuzz_rand(s) % (RNIC_CM_SIDR_REP_PRIVATE_DATA + 1) :
			     cf_bound(s);
	return cf_ioctl(w, w->fds[fd], C_REJECT, 0, &r);
}

/* Answer one event at random, as an application (or a broken one) would. */
static void cf_react(struct cf_worker *w, uint64_t *s, int fd,
		     const struct rnic_cm_get_event *ev)
{
	struct rnic_cm_resolve_route rr = { .size = sizeof(rr),
					    .id = ev->out_id,
					    .timeout_ms = 2000 };
	uint32_t h = ev->out_id;
	unsigned int r = fuzz_rand(s) % 10;

	switch (ev->out_event) {
	case RNIC_CM_EVENT_ADDR_RESOLVED:
		if (r < 9)
			cf_ioctl(w, w->fds[fd], C_RESOLVE_ROUTE, 0, &rr);
		break;
	case RNIC_CM_EVENT_ROUTE_RESOLVED:
		if (r < 9)
			cf_connect(w, s, fd, h);
		break;
	case RNIC_CM_EVENT_CONNECT_REQUEST:
		w->st.requests++;
		cf_pool_add(w, fd, h, CF_PASSIVE);
		if (r < 6) {
			cf_qp_attrs(w, s, fd, h);
			cf_accept(w, s, fd, h);
		} else if (r < 8) {
			cf_reject(w, s, fd, h);
		} else if (r < 9) {
			cf_destroy(w, fd, h);
		}
		break;
	case RNIC_CM_EVENT_CONNECT_RESPONSE:
		w->st.responses++;
		cf_qp_attrs(w, s, fd, h);
		if (r < 7)
			cf_id_cmd(w, fd, C_ESTABLISH, h);
		else if (r < 8)
			cf_reject(w, s, fd, h);
		else if (r < 9)
			cf_id_cmd(w, fd, C_DISCONNECT, h);
		break;
	case RNIC_CM_EVENT_ESTABLISHED:
		w->st.established++;
		if (r < 4)
			cf_id_cmd(w, fd, C_DISCONNECT, h);
		break;
	case RNIC_CM_EVENT_DISCONNECTED:
		w->st.disconnected++;
		if (r < 8)
			cf_id_cmd(w, fd, C_DISCONNECT, h);
		break;
	case RNIC_CM_EVENT_REJECTED:
	case RNIC_CM_EVENT_UNREACHABLE:
	case RNIC_CM_EVENT_CONNECT_ERROR:
	case RNIC_CM_EVENT_TIMEWAIT_EXIT:
		if (ev->out_event == RNIC_CM_EVENT_REJECTED)
			w->st.rejected++;
		else if (ev->out_event == RNIC_CM_EVENT_TIMEWAIT_EXIT)
			w->st.timewait++;
		else
			w->st.unreachable++;
		if (r < 7)
			cf_destroy(w, fd, h);
		break;
	}
}

/* Check an event the kernel handed out on channel @fd. */
static void cf_check_event(struct cf_worker *w, int fd,
			   const struct rnic_cm_get_event *ev)
{
	struct rnic_cm_query q = { .size = sizeof(q), .id = ev->out_id };

	if (ev->out_event > RNIC_CM_EVENT_TIMEWAIT_EXIT) {
		cf_failf(w, "event %u: no such event", ev->out_event);
		return;
	}
	/* nobody else uses the channel meanwhile: the id is there */
	if (ioctl(w->fds[fd], RNIC_CM_IOCTL_QUERY, &q))
		cf_failf(w, "event %u names id %u, not on its channel (%s)",
			 ev->out_event, ev->out_id, strerror(errno));
	else if (ev->out_event == RNIC_CM_EVENT_CONNECT_REQUEST &&
		 (q.out_port_num != 1 || !q.out_dev_name[0]))
		cf_failf(w, "a request's id %u is on no device", ev->out_id);
	/* UD ids have no connection: SIDR ends in ESTABLISHED or UNREACHABLE */
	else if (q.out_qp_type == RNIC_QPT_UD &&
		 (ev->out_event == RNIC_CM_EVENT_CONNECT_RESPONSE ||
		  ev->out_event == RNIC_CM_EVENT_REJECTED ||
		  ev->out_event == RNIC_CM_EVENT_CONNECT_ERROR ||
		  ev->out_event == RNIC_CM_EVENT_DISCONNECTED ||
		  ev->out_event == RNIC_CM_EVENT_TIMEWAIT_EXIT))
		cf_failf(w, "event %u on UD id %u", ev->out_event, ev->out_id);
	else if (q.out_qp_type == RNIC_QPT_UD &&
		 ev->out_event == RNIC_CM_EVENT_ESTABLISHED &&
		 ev->out_ud.qkey != RNIC_CM_UDP_QKEY)
		cf_failf(w, "UD id %u ESTABLISHED with Q_Key 0x%x", ev->out_id,
			 ev->out_ud.qkey);
	if (ev->out_event == RNIC_CM_EVENT_REJECTED && ev->out_status <= 0)
		cf_failf(w, "REJECTED with status %d", ev->out_status);
	/* no message carries more than an RTU's or DREP's 224 bytes */
	if (ev->out_conn.private_data_len > 224)
		cf_failf(w, "event private data of %u bytes",
			 ev->out_conn.private_data_len);
}

/* Read (non-blocking) and answer up to 16 events of each channel. */
static void cf_op_pump(struct cf_worker *w, uint64_t *s)
{
	struct rnic_cm_get_event ev;
	int fd, n;

	for (fd = 0; fd < CF_FDS; fd++) {
		for (n = 0; n < 16; n++) {
			memset(&ev, 0, sizeof(ev));
			ev.size = sizeof(ev);
			if (ioctl(w->fds[fd], RNIC_CM_IOCTL_GET_EVENT, &ev)) {
				if (errno != EAGAIN)
					cf_failf(w, "GET_EVENT: %s",
						 strerror(errno));
				break;
			}
			w->st.events++;
			cf_log(w, "fd %d event %u id %u status %d", fd,
			       ev.out_event, ev.out_id, ev.out_status);
			cf_check_event(w, fd, &ev);
			cf_react(w, s, fd, &ev);
		}
	}
}

/* Wait up to 20 ms for an event, then read it with a blocking GET_EVENT. */
static void cf_op_wait(struct cf_worker *w, uint64_t *s)
{
	int fd = fuzz_rand(s) % CF_FDS, fl = fcntl(w->fds[fd], F_GETFL);
	struct pollfd p = { .fd = w->fds[fd], .events = POLLIN };
	struct rnic_cm_get_event ev = { .size = sizeof(ev) };

	if (poll(&p, 1, 20) != 1)
		return;
	fcntl(w->fds[fd], F_SETFL, fl & ~O_NONBLOCK);
	if (!cf_ioctl(w, w->fds[fd], C_GET_EVENT, 0, &ev)) {
		w->st.events++;
		cf_check_event(w, fd, &ev);
		cf_react(w, s, fd, &ev);
	}
	fcntl(w->fds[fd], F_SETFL, fl);
}

static int cf_create(struct cf_worker *w, uint64_t *s, int fd, bool ud,
		     int role, uint32_t *h)
{
	struct rnic_cm_create_id c = { .size = sizeof(c) };
	int ret;

	c.uid = fuzz_rand(s);
	c.ps = ud ? (fuzz_chance(s, 1, 2) ? RNIC_CM_PS_UDP : RNIC_CM_PS_IPOIB) :
		    RNIC_CM_PS_TCP;
	c.qp_type = ud ? RNIC_QPT_UD : RNIC_QPT_RC;
	ret = cf_ioctl(w, w->fds[fd], C_CREATE, 0, &c);
	if (!ret) {
		cf_pool_add(w, fd, c.out_id, role);
		*h = c.out_id;
	}
	return ret;
}

/* A listener (UD if @ud) on one of the worker's live ports. */
static void cf_listen(struct cf_worker *w, uint64_t *s, int fd, bool ud)
{
	struct rnic_cm_bind_addr b = { .size = sizeof(b) };
	struct rnic_cm_listen l = { .size = sizeof(l) };
	struct rnic_cm_set_option o = { .size = sizeof(o) };
	uint32_t h;

	if (cf_create(w, s, fd, ud, CF_LISTENER, &h))
		return;
	if (fuzz_chance(s, 1, 4)) {
		o.id = h;
		o.optname = RNIC_CM_OPTION_ID_REUSEADDR;
		o.value = 1;
		cf_ioctl(w, w->fds[fd], C_SET_OPTION, 0, &o);
	}
	b.id = h;
	if (fuzz_chance(s, 1, 5))
		cf_sin(&b.addr, "0.0.0.0", cf_port(w, fuzz_rand(s) % CF_LIVE));
	else
		cf_sin(&b.addr, CF_ADDR, cf_port(w, fuzz_rand(s) % CF_LIVE));
	if (cf_ioctl(w, w->fds[fd], C_BIND, 0, &b))
		return;
	l.id = h;
	l.backlog = (int)(fuzz_rand(s) % 5) - 1;
	cf_ioctl(w, w->fds[fd], C_LISTEN, 0, &l);
}

static void cf_op_listen(struct cf_worker *w, uint64_t *s)
{
	cf_listen(w, s, fuzz_rand(s) % CF_FDS, fuzz_chance(s, 1, 4));
}

/* An active id starting to connect to a port of the worker. */
static void cf_op_start(struct cf_worker *w, uint64_t *s)
{
	int fd = fuzz_rand(s) % CF_FDS;
	struct rnic_cm_resolve_addr ra = { .size = sizeof(ra) };
	uint32_t h;

	if (cf_create(w, s, fd, fuzz_chance(s, 1, 4), CF_ACTIVE, &h))
		return;
	ra.id = h;
	ra.timeout_ms = 2000;
	/* mostly a live port, sometimes a dead one */
	cf_sin(&ra.dst_addr, CF_ADDR, cf_port(w, fuzz_chance(s, 3, 4) ?
					      fuzz_rand(s) % CF_LIVE :
					      CF_LIVE + fuzz_rand(s) % 4));
	if (fuzz_chance(s, 1, 4))
		cf_sin(&ra.src_addr, CF_ADDR, 0);
	cf_log(w, "start id %u on fd %d", h, fd);
	cf_ioctl(w, w->fds[fd], C_RESOLVE_ADDR, 0, &ra);
}

/* Fill command @c's struct with random, boundary and malformed fields. */
static void cf_fill(struct cf_worker *w, uint64_t *s, int c, void *buf,
		    int *fd)
{
	uint32_t h = cf_handle(w, s, fd);
	union {
		struct rnic_cm_create_id create;
		struct rnic_cm_bind_addr bind;
		struct rnic_cm_resolve_addr ra;
		struct rnic_cm_resolve_route rr;
		struct rnic_cm_listen listen;
		struct rnic_cm_connect connect;
		struct rnic_cm_accept accept;
		struct rnic_cm_reject reject;
		struct rnic_cm_disconnect disc;
		struct rnic_cm_notify notify;
		struct rnic_cm_init_qp_attr qa;
		struct rnic_cm_set_option opt;
		struct rnic_cm_migrate_id mig;
		struct rnic_cm_join_mcast join;
		struct rnic_cm_id_cmd idc;
	} *u = buf;
	static const uint16_t ps[] = {
		RNIC_CM_PS_TCP, RNIC_CM_PS_UDP, RNIC_CM_PS_IPOIB, RNIC_CM_PS_IB,
	};
	bool bad = fuzz_chance(s, 1, 4);

	u->idc.id = h;
	switch (c) {
	case C_CREATE:
		u->create.uid = fuzz_rand(s);
		u->create.ps = bad ? cf_bound(s) : ps[fuzz_rand(s) % 4];
		u->create.qp_type = fuzz_chance(s, 1, 8) ? fuzz_rand(s) :
				    fuzz_chance(s, 1, 2) ? RNIC_QPT_RC :
				    RNIC_QPT_UD;
		u->create.__reserved = bad && fuzz_chance(s, 1, 4);
		break;
	case C_BIND:
		cf_addr(w, s, &u->bind.addr);
		break;
	case C_RESOLVE_ADDR:
		u->ra.timeout_ms = fuzz_chance(s, 1, 4) ? cf_bound(s) : 1000;
		if (fuzz_chance(s, 1, 3))
			cf_addr(w, s, &u->ra.src_addr);
		cf_addr(w, s, &u->ra.dst_addr);
		break;
	case C_RESOLVE_ROUTE:
		u->rr.timeout_ms = cf_bound(s);
		break;
	case C_LISTEN:
		u->listen.backlog = cf_bound(s);
		break;
	case C_CONNECT:
		cf_conn_param(s, &u->connect.conn,
			      fuzz_chance(s, 1, 2) ? RNIC_CM_REQ_PRIVATE_DATA :
			      RNIC_CM_SIDR_REQ_PRIVATE_DATA, bad);
		break;
	case C_ACCEPT:
		u->accept.uid = fuzz_rand(s);
		cf_conn_param(s, &u->accept.conn, RNIC_CM_REP_PRIVATE_DATA,
			      bad);
		break;
	case C_REJECT:
		u->reject.reason = cf_bound(s);
		u->reject.private_data_len = cf_bound(s);
		u->reject.__reserved = bad && fuzz_chance(s, 1, 4);
		break;
	case C_DISCONNECT:
		u->disc.private_data_len = cf_bound(s);
		if (bad)
			u->disc.__reserved[fuzz_rand(s) % 3] = fuzz_rand(s) | 1;
		break;
	case C_NOTIFY:
		u->notify.event = fuzz_chance(s, 1, 2) ? 4 : cf_bound(s);
		break;
	case C_INIT_QP_ATTR:
		u->qa.qp_state = fuzz_chance(s, 3, 4) ? fuzz_rand(s) % 8 :
				 cf_bound(s);
		u->qa.__reserved = bad && fuzz_chance(s, 1, 4);
		break;
	case C_SET_OPTION:
		u->opt.level = fuzz_chance(s, 3, 4) ? RNIC_CM_OPTION_ID :
			       cf_bound(s);
		u->opt.optname = fuzz_chance(s, 3, 4) ? fuzz_rand(s) % 5 :
				 cf_bound(s);
		u->opt.value = fuzz_chance(s, 1, 2) ? fuzz_rand(s) % 2 :
			       cf_bound(s);
		u->opt.__reserved = bad && fuzz_chance(s, 1, 4);
		break;
	case C_MIGRATE:
		*fd = fuzz_rand(s) % CF_FDS;
		u->mig.fd = w->fds[h % CF_FDS];
		if (fuzz_chance(s, 1, 5))
			u->mig.fd = fuzz_chance(s, 1, 2) ? -1 :
				    (int)(fuzz_rand(s) % 64);
		u->mig.id = fuzz_rand(s) % 32;
		break;
	case C_JOIN:
	case C_LEAVE:
		u->join.join_flags = fuzz_chance(s, 3, 4) ?
				     RNIC_CM_MC_JOIN_FULLMEMBER : cf_bound(s);
		u->join.uid = fuzz_rand(s);
		if (fuzz_chance(s, 2, 3))
			cf_sin(&u->join.addr, "239.81.0.0", 0);
		else
			cf_addr(w, s, &u->join.addr);
		if (fuzz_chance(s, 2, 3))
			((uint8_t *)&u->join.addr)[7] = fuzz_rand(s) % 4;
		if (c == C_LEAVE && fuzz_chance(s, 3, 4))
			u->join.join_flags = u->join.uid = 0;
		break;
	}
}

/* A random command with random fields, sizes, flags and pointers. */
static void cf_op_ioctl(struct cf_worker *w, uint64_t *s)
{
	uint64_t buf64[128];
	uint8_t *buf = (uint8_t *)buf64;
	int c = fuzz_rand(s) % CF_NR_CMDS, fd;
	uint32_t size = cf_sizes[c];
	void *arg = buf;

	memset(buf64, 0, sizeof(buf64));
	cf_fill(w, s, c, buf, &fd);
	if (c == C_GET_EVENT)
		return;		/* pump reads events; a lost one is fine too */
	switch (fuzz_rand(s) % 16) {
	case 0:
		size = fuzz_rand(s) % cf_sizes[c];	/* short */
		break;
	case 1:	/* longer, with a zero tail */
		size = cf_sizes[c] + 8 * (1 + fuzz_rand(s) % 8);
		break;
	case 2:	/* longer, with a non-zero tail: E2BIG */
		size = cf_sizes[c] + 8 * (1 + fuzz_rand(s) % 8);
		buf[size - 1 - fuzz_rand(s) % 8] = fuzz_rand(s) | 1;
		break;
	case 3:
		size = fuzz_chance(s, 1, 2) ? 0xffffffff : cf_bound(s);
		break;
	case 4:
		((uint32_t *)buf)[1] = fuzz_rand(s) | 1;	/* flags */
		break;
	default:
		break;
	}
	((uint32_t *)buf)[0] = size;
	switch (fuzz_rand(s) % 24) {
	case 0:
		arg = NULL;
		break;
	case 1:
		arg = (void *)(uintptr_t)0xffff888000000000ULL;
		break;
	case 2:	/* read-only: the kernel's answer cannot be written */
		memcpy(w->ro, buf, sizeof(buf64));
		mprotect(w->ro, 4096, PROT_READ);
		arg = w->ro;
		break;
	case 3:	/* the struct runs into an unmapped page */
		arg = w->edge + 4096 - (fuzz_rand(s) % (cf_sizes[c] + 1) & ~3u);
		if ((uint8_t *)arg < w->edge + 4096 - 4)
			memcpy(arg, buf, w->edge + 4096 - (uint8_t *)arg);
		else
			arg = w->edge + 4096 - 4;
		memcpy(arg, &size, 4);
		break;
	default:
		break;
	}
	cf_log(w, "%s fd %d id %u size %u", cf_cmd_names[c], fd,
	       ((uint32_t *)buf)[2], size);
	if (!cf_ioctl(w, w->fds[fd], c, 0, arg) && arg == buf) {
		if (c == C_CREATE)
			cf_pool_add(w, fd, ((struct rnic_cm_create_id *)buf)->out_id,
				    CF_ANY);
		else if (c == C_DESTROY)
			cf_pool_del(w, fd, ((struct rnic_cm_destroy_id *)buf)->id);
		else if (c == C_MIGRATE) {
			struct rnic_cm_migrate_id *m = (void *)buf;
			int from;

			for (from = 0; from < CF_FDS; from++)
				if (w->fds[from] == m->fd && from != fd)
					cf_pool_del(w, from, m->id);
			cf_pool_add(w, fd, m->out_id, CF_ANY);
		}
	}
	if (arg == w->ro)
		mprotect(w->ro, 4096, PROT_READ | PROT_WRITE);
}

/* Numbers that are no command of the CM's: ENOTTY. */
static void cf_op_bad_number(struct cf_worker *w, uint64_t *s)
{
	uint8_t buf[64] = { 64 };
	unsigned long num;

	switch (fuzz_rand(s) % 4) {
	case 0:
		num = _IO(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_BASE + CF_NR_CMDS +
			  fuzz_rand(s) % 16);
		break;
	case 1:
		num = _IO(RNIC_IOCTL_MAGIC, fuzz_rand(s) % RNIC_CM_CMD_BASE);
		break;
	case 2:	/* a good number with direction and size bits */
		num = _IOWR(RNIC_IOCTL_MAGIC, RNIC_CM_CMD_BASE +
			    fuzz_rand(s) % CF_NR_CMDS, uint64_t);
		break;
	default:
		num = _IO(fuzz_rand(s) & 0xff, RNIC_CM_CMD_BASE);
		if (_IOC_TYPE(num) == RNIC_IOCTL_MAGIC)
			num = _IO(RNIC_IOCTL_MAGIC + 1, RNIC_CM_CMD_BASE);
		break;
	}
	cf_ioctl(w, w->fds[fuzz_rand(s) % CF_FDS], -1, num, buf);
}

/* A legitimate command on a live id, whatever its state. */
static void cf_op_poke(struct cf_worker *w, uint64_t *s)
{
	struct cf_id *p = cf_pick(w, s, CF_ANY);
	struct rnic_cm_notify n = { .size = sizeof(n) };

	if (!p)
		return;
	switch (fuzz_rand(s) % 9) {
	case 0:
		cf_id_cmd(w, p->fd, C_DISCONNECT, p->h);
		break;
	case 1:
		cf_id_cmd(w, p->fd, C_ESTABLISH, p->h);
		break;
	case 2:
		cf_accept(w, s, p->fd, p->h);
		break;
	case 3:
		cf_reject(w, s, p->fd, p->h);
		break;
	case 4:
		cf_connect(w, s, p->fd, p->h);
		break;
	case 5:
		n.id = p->h;
		n.event = 4;	/* IBV_EVENT_COMM_EST */
		cf_ioctl(w, w->fds[p->fd], C_NOTIFY, 0, &n);
		break;
	case 6:
		cf_qp_attrs(w, s, p->fd, p->h);
		break;
	default:
		cf_destroy(w, p->fd, p->h);
		break;
	}
}

/* Move a live id to another channel. */
static void cf_op_migrate(struct cf_worker *w, uint64_t *s)
{
	struct cf_id *p = cf_pick(w, s, CF_ANY);
	struct rnic_cm_migrate_id m = { .size = sizeof(m) };
	int to = fuzz_rand(s) % CF_FDS;

	if (!p)
		return;
	m.fd = w->fds[p->fd];
	m.id = p->h;
	cf_log(w, "migrate id %u fd %d -> %d", p->h, p->fd, to);
	if (!cf_ioctl(w, w->fds[to], C_MIGRATE, 0, &m)) {
		int role = p->role;

		w->st.migrated++;
		if (to != p->fd)
			p->live = false;
		cf_pool_add(w, to, m.out_id, role);
	}
}

struct cf_racer {
	int fd;		/* the channel being closed */
	int to;		/* where the racer migrates its ids */
	atomic_bool stop;
	unsigned long bad;
	char why[128];
};

static void *cf_racer_main(void *arg)
{
	struct cf_racer *r = arg;
	uint32_t h = 1;

	while (!atomic_load(&r->stop)) {
		struct rnic_cm_migrate_id m = { .size = sizeof(m), .fd = r->fd,
						.id = h };
		struct rnic_cm_query q = { .size = sizeof(q), .id = h };
		struct rnic_cm_disconnect d = { .size = sizeof(d), .id = h };

		/* after the close: /dev/null, EINVAL or ENOTTY */
		if (ioctl(r->to, RNIC_CM_IOCTL_MIGRATE_ID, &m) &&
		    errno != ENOENT && errno != EINVAL && !r->bad++)
			snprintf(r->why, sizeof(r->why), "MIGRATE_ID: %s",
				 strerror(errno));
		if (ioctl(r->fd, RNIC_CM_IOCTL_QUERY, &q) && errno != ENOENT &&
		    errno != ENOTTY && !r->bad++)
			snprintf(r->why, sizeof(r->why), "QUERY: %s",
				 strerror(errno));
		if (ioctl(r->fd, RNIC_CM_IOCTL_DISCONNECT, &d) &&
		    errno != ENOENT && errno != EINVAL && errno != ENOTTY &&
		    !r->bad++)
			snprintf(r->why, sizeof(r->why), "DISCONNECT: %s",
				 strerror(errno));
		h = h % 40 + 1;
	}
	return NULL;
}

/*
 * Close a channel while a thread migrates its ids away and issues
 * commands on it: dup2() of /dev/null over the descriptor drops the file
 * atomically, so the racer never reaches a reused number. The channel is
 * opened anew.
 */
static void cf_op_close(struct cf_worker *w, uint64_t *s)
{
	int fd = fuzz_rand(s) % CF_FDS, i;
	struct cf_racer r = { .fd = w->fds[fd], .to = w->fds[(fd + 1) % CF_FDS] };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	bool race = fuzz_chance(s, 1, 2);
	pthread_t t;

	if (null < 0)
		return;
	cf_log(w, "close fd %d%s", fd, race ? " under a racer" : "");
	w->st.closes++;
	if (race && pthread_create(&t, NULL, cf_racer_main, &r))
		race = false;
	usleep(fuzz_rand(s) % 300);
	dup2(null, w->fds[fd]);
	if (race) {
		usleep(fuzz_rand(s) % 200);
		atomic_store(&r.stop, true);
		pthread_join(t, NULL);
		if (r.bad)
			cf_failf(w, "racer on a closing channel: %s", r.why);
	}
	close(null);
	close(w->fds[fd]);
	w->fds[fd] = open(RNIC_CM_DEV_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (w->fds[fd] < 0)
		cf_failf(w, "open %s: %s", RNIC_CM_DEV_PATH, strerror(errno));
	/* what the racer migrated is unknown: forget both channels' ids */
	for (i = 0; i < CF_POOL; i++)
		if (w->pool[i].fd == fd ||
		    (race && w->pool[i].fd == (fd + 1) % CF_FDS))
			w->pool[i].live = false;
}

static void cf_run_op(struct cf_worker *w, uint64_t *s);

/* fork: the child uses and destroys the parent's ids, then exits. */
static void cf_op_fork(struct cf_worker *w, uint64_t *s)
{
	uint64_t cs = fuzz_mix(*s ^ 0xf0f0);
	pid_t pid;
	int st;

	cf_log(w, "fork");
	w->st.forks++;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		int n;

		w->verbose = false;
		for (n = 0; n < 12 && !w->fail[0]; n++) {
			cs = fuzz_mix(cs);
			if (fuzz_rand(&cs) % 2)
				cf_op_ioctl(w, &cs);
			else
				cf_op_poke(w, &cs);
		}
		cf_op_pump(w, &cs);
		if (w->fail[0])
			printf("# forked child of worker %d: %s\n", w->id,
			       w->fail);
		fflush(stdout);
		_exit(w->fail[0] ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) == pid && (!WIFEXITED(st) || WEXITSTATUS(st)))
		cf_failf(w, "forked child failed (status 0x%x)", st);
}

static void cf_run_op(struct cf_worker *w, uint64_t *s)
{
	unsigned int r = fuzz_rand(s) % 100;

	if (r < 25)
		cf_op_ioctl(w, s);
	else if (r < 47)
		cf_op_pump(w, s);
	else if (r < 61)
		cf_op_start(w, s);
	else if (r < 66)
		cf_op_listen(w, s);
	else if (r < 76)
		cf_op_poke(w, s);
	else if (r < 82)
		cf_op_migrate(w, s);
	else if (r < 89)
		cf_op_wait(w, s);
	else if (r < 92)
		cf_op_bad_number(w, s);
	else if (r < 94)
		cf_op_close(w, s);
	else if (r < 95)
		cf_op_fork(w, s);
	else
		usleep(fuzz_rand(s) % 5000);	/* let timers run */
}

/* ---- chunks ---------------------------------------------------------------- */

/* New kernel log lines of @fd, with this fuzzer's chunk markers */
static int cf_kmsg_scan(int fd, bool print_markers, unsigned int *markers)
{
	return fuzz_kmsg_scan(fd, "rnic-cm-fuzz: replay ",
			      "RNIC_CM_FUZZ_REPLAY", print_markers, markers);
}

static void cf_chunk_close(struct cf_worker *w)
{
	int i;

	for (i = 0; i < CF_FDS; i++) {
		if (w->fds[i] >= 0)
			close(w->fds[i]);
		w->fds[i] = -1;
	}
	memset(w->pool, 0, sizeof(w->pool));
}

/* Run chunk @chunk of worker @w (the operations of w->mask, or all). */
static int cf_chunk(struct cf_worker *w, unsigned int chunk, unsigned int nops)
{
	uint64_t cs = fuzz_mix(w->seed ^ fuzz_mix(w->id ^ fuzz_mix(chunk)));
	int i;

	w->chunk = chunk;
	w->st.chunks++;
	fuzz_kmsg("rnic-cm-fuzz: replay %" PRIu64 ":%d:%u\n", w->seed, w->id,
		chunk);
	for (i = 0; i < CF_FDS; i++) {
		w->fds[i] = open(RNIC_CM_DEV_PATH,
				 O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (w->fds[i] < 0) {
			cf_failf(w, "open %s: %s", RNIC_CM_DEV_PATH,
				 strerror(errno));
			cf_chunk_close(w);
			return -1;
		}
	}
	/* listeners to connect to from the start: an RC one and a UD one */
	cf_listen(w, &cs, fuzz_rand(&cs) % CF_FDS, false);
	cf_listen(w, &cs, fuzz_rand(&cs) % CF_FDS, true);
	for (w->op = 0; w->op < nops; w->op++) {
		uint64_t s = fuzz_mix(cs ^ fuzz_mix(w->op));

		if (w->mask && !w->mask[w->op])
			continue;
		cf_run_op(w, &s);
		if (chunk == cf_inject_chunk && (int)w->op == cf_inject_op)
			cf_failf(w, "failure injected by RNIC_CM_FUZZ_INJECT");
		if (w->kfd >= 0 && cf_kmsg_scan(w->kfd, false, NULL))
			cf_failf(w, "kernel log lines after this operation");
		if (w->fail[0])
			break;
	}
	cf_chunk_close(w);
	return w->fail[0] ? -1 : 0;
}

static int cf_worker_init(struct cf_worker *w, int id, uint64_t seed)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->id = id;
	w->seed = seed;
	w->kfd = -1;
	for (i = 0; i < CF_FDS; i++)
		w->fds[i] = -1;
	w->ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w->edge = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->ro == MAP_FAILED || w->edge == MAP_FAILED)
		return -ENOMEM;
	mprotect(w->edge + 4096, 4096, PROT_NONE);
	return 0;
}

static void cf_worker_fini(struct cf_worker *w)
{
	munmap(w->ro, 4096);
	munmap(w->edge, 8192);
}

struct cf_config {
	uint64_t seed;
	unsigned long iters;
	int procs;
};

/* One worker process: its share of the operations; exit status. */
static int cf_process(const struct cf_config *cfg, int id)
{
	struct cf_worker *w = calloc(1, sizeof(*w));
	unsigned long nops, done;
	unsigned int chunk, k;
	struct cf_stats *st;

	if (!w || cf_worker_init(w, id, cfg->seed))
		return 1;
	w->verbose = getenv("RNIC_CM_FUZZ_TRACE");
	nops = cfg->iters / cfg->procs + (id < (int)(cfg->iters % cfg->procs));
	for (chunk = 0, done = 0; done < nops; chunk++) {
		unsigned int n = nops - done < CF_CHUNK_OPS ? nops - done :
				 CF_CHUNK_OPS;

		if (cf_chunk(w, chunk, n))
			break;
		done += n;
	}
	st = &w->st;
	printf("# worker %d: %lu chunks, ioctls %lu ok %lu failed; events %lu: %lu requests, %lu responses, %lu established, %lu disconnected, %lu rejected, %lu unreachable/connect errors, %lu timewait exits; %lu migrated, %lu closes, %lu forks\n",
	       id, st->chunks, st->ok, st->err, st->events, st->requests,
	       st->responses, st->established, st->disconnected, st->rejected,
	       st->unreachable, st->timewait, st->migrated, st->closes,
	       st->forks);
	printf("# worker %d ioctls ok/failed:", id);
	for (k = 0; k < CF_NR_CMDS; k++)
		printf(" %s %lu/%lu", cf_cmd_names[k], st->cmd_ok[k],
		       st->cmd_err[k]);
	printf("\n");
	if (w->fail[0]) {
		printf("# FAIL seed %" PRIu64 " worker %d chunk %u op %u: %s\n",
		       cfg->seed, id, w->chunk, w->op, w->fail);
		printf("# reproduce: RNIC_CM_FUZZ_REPLAY=%" PRIu64 ":%d:%u cm_fuzz\n",
		       cfg->seed, id, w->chunk);
	}
	fflush(stdout);
	return w->fail[0] ? 1 : 0;
}

/* ---- replay and shrinking ---------------------------------------------------- */

static bool cf_replay_once(const struct cf_config *cfg, int id,
			   unsigned int chunk, const bool *mask, bool verbose,
			   int kfd, unsigned int *fail_op)
{
	struct cf_worker *w = calloc(1, sizeof(*w));
	bool failed;

	if (!w || cf_worker_init(w, id, cfg->seed))
		return false;
	w->mask = mask;
	w->verbose = verbose;
	w->kfd = kfd;
	cf_chunk(w, chunk, CF_CHUNK_OPS);
	failed = w->fail[0];
	if (failed && fail_op)
		*fail_op = w->op;
	if (failed && verbose)
		printf("# worker failure: %s\n", w->fail);
	if (cf_kmsg_scan(kfd, false, NULL))
		failed = true;
	cf_worker_fini(w);
	free(w);
	return failed;
}

static int cf_shrink(const struct cf_config *c, int id, unsigned int chunk,
		     bool *mask, int kfd)
{
	unsigned int n, k, i, step, fail_op = CF_CHUNK_OPS - 1;
	bool save[CF_CHUNK_OPS];

	for (i = 0; i < CF_CHUNK_OPS; i++)
		mask[i] = true;
	if (!cf_replay_once(c, id, chunk, mask, false, kfd, &fail_op))
		return -1;
	for (i = fail_op + 1; i < CF_CHUNK_OPS; i++)
		mask[i] = false;
	for (step = CF_CHUNK_OPS / 2; step; step /= 2) {
		for (k = 0; k < CF_CHUNK_OPS; k += step) {
			memcpy(save, mask, sizeof(save));
			for (i = k, n = 0; i < k + step; i++) {
				n += mask[i];
				mask[i] = false;
			}
			if (n && !cf_replay_once(c, id, chunk, mask, false, kfd,
						 NULL))
				memcpy(mask, save, sizeof(save));
		}
	}
	for (i = 0, n = 0; i < CF_CHUNK_OPS; i++)
		n += mask[i];
	return n;
}

static int cf_replay(const struct cf_config *cfg, const char *spec)
{
	bool mask[CF_CHUNK_OPS];
	unsigned long long seed;
	struct cf_config c = *cfg;
	unsigned int chunk;
	int id, n, kfd = fuzz_kmsg_open();

	if (sscanf(spec, "%llu:%d:%u", &seed, &id, &chunk) != 3) {
		printf("not ok 1 - RNIC_CM_FUZZ_REPLAY must be seed:worker:chunk\n");
		return 1;
	}
	c.seed = seed;
	printf("# replay seed %llu worker %d chunk %u\n", seed, id, chunk);
	n = cf_shrink(&c, id, chunk, mask, kfd);
	if (n < 0) {
		printf("ok 1 - cm fuzz replay: the chunk does not fail when run alone\n");
		return 0;
	}
	printf("# minimal operation list: %d of %u operations:\n", n,
	       CF_CHUNK_OPS);
	cf_replay_once(&c, id, chunk, mask, true, kfd, NULL);
	printf("not ok 1 - cm fuzz replay: failure reproduced\n");
	return 1;
}

/* The shrinking, checked on a failure injected at one operation. */
static bool cf_check_shrink(const struct cf_config *cfg)
{
	bool mask[CF_CHUNK_OPS];
	int n, kfd = fuzz_kmsg_open();

	cf_inject_chunk = 1;
	cf_inject_op = CF_CHUNK_OPS / 3;
	n = cf_shrink(cfg, 0, cf_inject_chunk, mask, kfd);
	cf_inject_op = -1;
	if (kfd >= 0)
		close(kfd);
	printf("# shrinking an injected failure at op %u left %d operation(s)\n",
	       CF_CHUNK_OPS / 3, n);
	return n == 1 && mask[CF_CHUNK_OPS / 3];
}

/* ---- setup and a last real connection ----------------------------------------- */

static int cf_sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void cf_params(int timeout_ms, int retries)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "echo %d > /sys/module/rnic/parameters/cm_timeout_ms && echo %d > /sys/module/rnic/parameters/cm_retries",
		 timeout_ms, retries);
	cf_sh(cmd);
}

static int cf_setup(struct rnic_genl *g)
{
	cf_sh("ip link del " CF_NETDEV " 2>/dev/null");
	if (cf_sh("ip link add " CF_NETDEV " type dummy && ip link set " CF_NETDEV
		  " up && ip addr add " CF_ADDR "/24 dev " CF_NETDEV
		  " && ip -6 addr add " CF_ADDR6 "/64 dev " CF_NETDEV " nodad"))
		return -1;
	rnic_link_del(g, CF_DEV);
	return rnic_link_add(g, CF_DEV, CF_NETDEV);
}

/* The next event of @fd within 5 s, of @type; 0 or -1. */
static int cf_want(int fd, uint32_t type, uint32_t *id)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct rnic_cm_get_event ev = { .size = sizeof(ev) };

	if (poll(&p, 1, 5000) != 1 ||
	    ioctl(fd, RNIC_CM_IOCTL_GET_EVENT, &ev) || ev.out_event != type) {
		printf("# wanted event %u, got %u (status %d)\n", type,
		       ev.out_event, ev.out_status);
		return -1;
	}
	if (id)
		*id = ev.out_id;
	return 0;
}

/* After the fuzzing: a connection between two fresh channels works. */
static bool cf_still_works(void)
{
	int srv = open(RNIC_CM_DEV_PATH, O_RDWR | O_CLOEXEC);
	int cli = open(RNIC_CM_DEV_PATH, O_RDWR | O_CLOEXEC);
	struct rnic_cm_create_id c = { .size = sizeof(c),
				       .ps = RNIC_CM_PS_TCP,
				       .qp_type = RNIC_QPT_RC };
	struct rnic_cm_bind_addr b = { .size = sizeof(b) };
	struct rnic_cm_listen l = { .size = sizeof(l), .backlog = 1 };
	struct rnic_cm_resolve_addr ra = { .size = sizeof(ra) };
	struct rnic_cm_resolve_route rr = { .size = sizeof(rr) };
	struct rnic_cm_connect cn = { .size = sizeof(cn) };
	struct rnic_cm_accept acc = { .size = sizeof(acc) };
	struct rnic_cm_id_cmd est = { .size = sizeof(est) };
	struct rnic_cm_disconnect d = { .size = sizeof(d) };
	uint32_t a, p;
	bool ok = false;

	if (srv < 0 || cli < 0 || ioctl(srv, RNIC_CM_IOCTL_CREATE_ID, &c))
		goto out;
	b.id = l.id = c.out_id;
	cf_sin(&b.addr, CF_ADDR, 7999);
	if (ioctl(srv, RNIC_CM_IOCTL_BIND_ADDR, &b) ||
	    ioctl(srv, RNIC_CM_IOCTL_LISTEN, &l) ||
	    ioctl(cli, RNIC_CM_IOCTL_CREATE_ID, &c))
		goto out;
	a = ra.id = rr.id = cn.id = est.id = d.id = c.out_id;
	cf_sin(&ra.dst_addr, CF_ADDR, 7999);
	cn.conn.qp_num = 0x111;
	acc.conn.qp_num = 0x222;
	if (ioctl(cli, RNIC_CM_IOCTL_RESOLVE_ADDR, &ra) ||
	    cf_want(cli, RNIC_CM_EVENT_ADDR_RESOLVED, NULL) ||
	    ioctl(cli, RNIC_CM_IOCTL_RESOLVE_ROUTE, &rr) ||
	    cf_want(cli, RNIC_CM_EVENT_ROUTE_RESOLVED, NULL) ||
	    ioctl(cli, RNIC_CM_IOCTL_CONNECT, &cn) ||
	    cf_want(srv, RNIC_CM_EVENT_CONNECT_REQUEST, &p))
		goto out;
	acc.id = p;
	if (ioctl(srv, RNIC_CM_IOCTL_ACCEPT, &acc) ||
	    cf_want(cli, RNIC_CM_EVENT_CONNECT_RESPONSE, NULL) ||
	    ioctl(cli, RNIC_CM_IOCTL_ESTABLISH, &est) ||
	    cf_want(srv, RNIC_CM_EVENT_ESTABLISHED, NULL) ||
	    ioctl(cli, RNIC_CM_IOCTL_DISCONNECT, &d) ||
	    cf_want(srv, RNIC_CM_EVENT_DISCONNECTED, NULL))
		goto out;
	d.id = p;
	ok = !ioctl(srv, RNIC_CM_IOCTL_DISCONNECT, &d) &&
	     !cf_want(cli, RNIC_CM_EVENT_DISCONNECTED, NULL);
	(void)a;
out:
	if (srv >= 0)
		close(srv);
	if (cli >= 0)
		close(cli);
	return ok;
}

int main(void)
{
	struct cf_config cfg = {
		.seed = fuzz_env("RNIC_CM_FUZZ_SEED", CF_DEFAULT_SEED),
		.iters = fuzz_env("RNIC_CM_FUZZ_ITERS", CF_DEFAULT_ITERS),
		.procs = fuzz_env("RNIC_CM_FUZZ_PROCS", 4),
	};
	const char *replay = getenv("RNIC_CM_FUZZ_REPLAY");
	const char *inject = getenv("RNIC_CM_FUZZ_INJECT");
	struct timespec t0, t1;
	struct rnic_genl *g;
	int kfd, p, failed = 0;
	double secs;
	pid_t *pids;
	bool ok;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (inject && sscanf(inject, "%u:%d", &cf_inject_chunk,
			     &cf_inject_op) != 2) {
		printf("not ok 1 - RNIC_CM_FUZZ_INJECT must be chunk:op\n");
		return 1;
	}
	printf("TAP version 13\n1..%d\n", replay ? 1 : 3);
	g = rnic_genl_open();
	if (!g || cf_setup(g)) {
		printf("not ok 1 - cm fuzz: cannot create device %s on %s\n",
		       CF_DEV, CF_NETDEV);
		return 1;
	}
	if (cfg.procs < 1 || cfg.procs > 64) {
		printf("not ok 1 - cm fuzz: bad RNIC_CM_FUZZ_PROCS\n");
		return 1;
	}
	cf_params(CF_CM_TIMEOUT_MS, CF_CM_RETRIES);
	if (replay) {
		failed = cf_replay(&cfg, replay);
		goto out;
	}
	printf("# seed %" PRIu64 ", %lu operations, %d worker processes\n",
	       cfg.seed, cfg.iters, cfg.procs);
	kfd = fuzz_kmsg_open();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pids = calloc(cfg.procs, sizeof(*pids));
	for (p = 0; p < cfg.procs; p++) {
		pids[p] = fork();
		if (!pids[p])
			_exit(cf_process(&cfg, p));
	}
	if (fuzz_supervise(pids, cfg.procs, kfd, "rnic-cm-fuzz: replay ", "RNIC_CM_FUZZ_REPLAY",
			   CF_HANG_S))
		failed = 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* the time waits of the last chunks end: their timers run */
	usleep(500000);
	if (cf_kmsg_scan(kfd, true, NULL))
		failed = 1;
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("# %lu operations by %d workers in %.1f s (%.0f/s)\n",
	       cfg.iters, cfg.procs, secs, cfg.iters / (secs + 1e-9));
	printf("%s 1 - cm fuzz seed %" PRIu64 " iters %lu\n",
	       failed ? "not ok" : "ok", cfg.seed, cfg.iters);
	cf_params(4295, 15);
	ok = cf_still_works();
	printf("%s 2 - cm fuzz: a connection works afterwards\n",
	       ok ? "ok" : "not ok");
	failed |= !ok;
	cf_params(CF_CM_TIMEOUT_MS, CF_CM_RETRIES);
	ok = cf_check_shrink(&cfg);
	printf("%s 3 - cm fuzz: an injected failure shrinks to its one operation\n",
	       ok ? "ok" : "not ok");
	failed |= !ok;
	if (cf_kmsg_scan(kfd, true, NULL))
		failed = 1;
out:
	cf_params(4295, 15);
	rnic_link_del(g, CF_DEV);
	rnic_genl_close(g);
	cf_sh("ip link del " CF_NETDEV " 2>/dev/null");
	return failed;
}
