// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-matrix: every verbs operation between two sides, data checked byte
 * for byte, for the interop test (selftests/interop.sh).
 *
 *   rnic-matrix [-d DEV] [-x GID] [-p PORT] [-m MTU] [-L LABEL]        server
 *   rnic-matrix [-d DEV] [-x GID] [-p PORT] [-m MTU] [-L LABEL] HOST   client
 *
 * The same source builds against librnic (build/matrix/rnic-matrix) and
 * against rdma-core's libibverbs (build/rdma-core/rnic-matrix), so that
 * one side runs on rnic and the other on rdma_rxe. The client walks the
 * matrix: RC, UC and UD, and UD to a multicast group (the responder's QP
 * attached to 239.77.0.1 or ff0e::77:1, the requester sending to QP
 * 0xffffff); SEND, SEND with immediate, WRITE, WRITE with immediate,
 * READ, compare-and-swap and fetch-and-add where the QP type has them,
 * and on RC an RDMA WRITE through a type 2 memory window and a SEND with
 * invalidate of one (the responder binds the window on its QP over its
 * buffer first and hands its rkey over; a SEND with invalidate must
 * arrive with IBV_WC_WITH_INV and that rkey); one SGE, three SGEs, or
 * inline; message sizes from 0 B to
 * 1 MiB around the path MTU (-m); once with the client as the requester
 * and once with the server. Per case both sides make a fresh QP, swap
 * QPN, PSN, GID and the address and rkey of their buffer over TCP, the
 * responder fills its buffer (a pattern for READ and atomics, 0xa5 for
 * the rest) and posts a receive where the operation consumes one, then
 * the requester posts one work request and waits for its completion. The
 * responder checks what landed (receive completion: status, length,
 * immediate; memory: every byte, and the bytes after the message still
 * 0xa5), the requester what came back (READ data, the atomic's original
 * value), and the client prints one TAP line per case with LABEL of the
 * requester and the responder. Exit status 1 if any case failed. When a
 * case gets no completion in MX_WAIT_MS before any case of its QP type
 * and direction has passed, the later cases of that group are reported
 * failed without being run, so that a link that carries nothing fails in
 * seconds rather than in an hour.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
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

#define MX_MAX_MSG	(1u << 20)
#define MX_GUARD	64		/* poisoned bytes checked after a message */
#define MX_REGION	(MX_MAX_MSG + 4096)
#define MX_GRH		40
#define MX_POISON	0xa5
#define MX_QKEY		0x11111111
#define MX_INLINE	64
#define MX_WAIT_MS	5000
#define MX_END		UINT32_MAX
#define MX_SWAP		0x1122334455667788ULL
#define MX_ADD		0x10001ULL

enum mx_op { MX_SEND, MX_SEND_IMM, MX_WRITE, MX_WRITE_IMM, MX_READ,
	     MX_CMP_SWP, MX_FETCH_ADD, MX_WRITE_MW, MX_SEND_INV, MX_NR_OPS };
enum mx_variant { MX_ONE_SGE, MX_THREE_SGE, MX_INLINE_DATA, MX_NR_VARIANTS };

static const char *const mx_op_name[] = {
	"SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ", "CMP_SWP",
	"FETCH_ADD", "WRITE_MW", "SEND_INV",
};
static const char *const mx_variant_name[] = { "1-sge", "3-sge", "inline" };

/* One case, as the client sends it to the server (@mcast: UD to a group). */
struct mx_case {
	uint32_t index;
	uint32_t qp_type;
	uint32_t mcast;
	uint32_t op;
	uint32_t variant;
	uint32_t size;
	uint32_t client_requests;
};

/* What a side tells the other about its QP and buffer. */
struct mx_info {
	uint32_t qpn;
	uint32_t psn;
	uint64_t addr;
	uint32_t rkey;
	uint32_t lid;
	uint8_t gid[16];
};

struct mx_verdict {
	int32_t ok;
	char why[124];
};

struct mx_ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;		/* requester region, then responder region */
	int sock;
	bool server;
	int gid_index;
	enum ibv_mtu mtu;
	bool rxe;
	char label[16];
	char peer_label[16];
};

static void mx_die(const char *fmt, ...)
{
	va_list ap;

	fputs("rnic-matrix: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void mx_send(struct mx_ctx *m, const void *p, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = send(m->sock, (const char *)p + done, len - done,
			 MSG_NOSIGNAL);
		if (n <= 0 && errno != EINTR)
			mx_die("TCP send: %s", strerror(errno));
		if (n > 0)
			done += n;
	}
}

static void mx_recv(struct mx_ctx *m, void *p, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = recv(m->sock, (char *)p + done, len - done, 0);
		if (n == 0)
			mx_die("TCP receive: the peer closed the connection");
		if (n < 0 && errno != EINTR)
			mx_die("TCP receive: %s", strerror(errno));
		if (n > 0)
			done += n;
	}
}

/* Client: sends @out, then receives @in; server: the other way round. */
static void mx_swap(struct mx_ctx *m, const void *out, void *in, size_t len)
{
	if (m->server) {
		mx_recv(m, in, len);
		mx_send(m, out, len);
	} else {
		mx_send(m, out, len);
		mx_recv(m, in, len);
	}
}

static int mx_tcp(const char *host, const char *port)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
		.ai_flags = host ? 0 : AI_PASSIVE,
	};
	struct addrinfo *res, *ai;
	int fd = -1, one = 1, conn;

	if (getaddrinfo(host, port, &hints, &res))
		mx_die("can't resolve %s", host ? host : "the port");
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (host ? !connect(fd, ai->ai_addr, ai->ai_addrlen) :
			   !bind(fd, ai->ai_addr, ai->ai_addrlen) &&
			   !listen(fd, 1))
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		mx_die("can't %s port %s: %s", host ? "connect to" : "listen on",
		       port, strerror(errno));
	if (host)
		return fd;
	conn = accept(fd, NULL, NULL);
	close(fd);
	if (conn < 0)
		mx_die("accept: %s", strerror(errno));
	return conn;
}

/* Byte @off of a message from @seed. */
static uint8_t mx_pattern(unsigned int seed, uint32_t index, size_t off)
{
	uint32_t w = (uint32_t)(off / 4 + 1) * 2654435761u ^ index * 40503u;

	return (uint8_t)((w >> (off % 4 * 8)) + seed * 77 + 1);
}

static bool mx_has(enum ibv_qp_type t, enum mx_op op)
{
	if (t == IBV_QPT_UD)
		return op == MX_SEND || op == MX_SEND_IMM;
	if (t == IBV_QPT_UC)
		return op <= MX_WRITE_IMM;
	return true;
}

static bool mx_atomic(enum mx_op op)
{
	return op == MX_CMP_SWP || op == MX_FETCH_ADD;
}

static bool mx_needs_recv(enum mx_op op)
{
	return op == MX_SEND || op == MX_SEND_IMM || op == MX_WRITE_IMM ||
	       op == MX_SEND_INV;
}

static bool mx_to_memory(enum mx_op op)
{
	return op == MX_WRITE || op == MX_WRITE_IMM || op == MX_WRITE_MW;
}

static bool mx_has_imm(enum mx_op op)
{
	return op == MX_SEND_IMM || op == MX_WRITE_IMM;
}

/*
 * The flag of a receive that invalidated a key. rdma_rxe (6.1) writes the
 * kernel's IB_WC_WITH_INVALIDATE (bit 2) into the user's ring, where
 * libibverbs reads it as IBV_WC_IP_CSUM_OK: on rxe that bit is the flag.
 */
static unsigned int mx_inv_flag(const struct mx_ctx *m)
{
	return m->rxe ? 1u << 2 : IBV_WC_WITH_INV;
}

/* The responder binds a type 2 window over its buffer for these. */
static bool mx_window(enum mx_op op)
{
	return op == MX_WRITE_MW || op == MX_SEND_INV;
}

/* The local SGEs of a message of @size at @base: one or three pieces. */
static int mx_sges(struct mx_ctx *m, uint8_t *base, uint32_t size, bool three,
		   struct ibv_sge *sge)
{
	uint32_t a = size / 3, b = size / 3;

	if (!three) {
		sge[0] = (struct ibv_sge){ (uintptr_t)base, size, m->mr->lkey };
		return 1;
	}
	sge[0] = (struct ibv_sge){ (uintptr_t)base, a, m->mr->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)base + a + 64, b, m->mr->lkey };
	sge[2] = (struct ibv_sge){ (uintptr_t)base + a + b + 128,
				   size - a - b, m->mr->lkey };
	return 3;
}

/* Fills (@check false) or checks the SGEs against @seed's pattern. */
static bool mx_sge_data(struct ibv_sge *sge, int n, unsigned int seed,
			uint32_t index, bool check, char *why, size_t wlen)
{
	size_t off = 0, i;
	int s;

	for (s = 0; s < n; s++) {
		uint8_t *p = (uint8_t *)(uintptr_t)sge[s].addr;

		for (i = 0; i < sge[s].length; i++, off++) {
			uint8_t want = mx_pattern(seed, index, off);

			if (!check) {
				p[i] = want;
			} else if (p[i] != want) {
				snprintf(why, wlen, "byte %zu is 0x%02x, want 0x%02x",
					 off, p[i], want);
				return false;
			}
		}
	}
	return true;
}

/* The @len bytes at @p are the poison; false (and @why) if not. */
static bool mx_poisoned(const uint8_t *p, size_t len, size_t at, char *why,
			size_t wlen)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != MX_POISON) {
			snprintf(why, wlen, "byte %zu after the message is 0x%02x",
				 at + i, p[i]);
			return false;
		}
	}
	return true;
}

/* Waits for one completion; false on timeout. */
static bool mx_poll(struct mx_ctx *m, struct ibv_wc *wc)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(m->cq, 1, wc);
		if (n < 0)
			mx_die("ibv_poll_cq failed");
		if (n)
			return true;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > MX_WAIT_MS)
			return false;
	}
}

static struct ibv_qp *mx_qp(struct mx_ctx *m, enum ibv_qp_type t)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = m->cq, .recv_cq = m->cq, .qp_type = t,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 3,
			 .max_recv_sge = 1, .max_inline_data = MX_INLINE },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = MX_QKEY,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   (t == IBV_QPT_RC ? IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC : 0),
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   (t == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	struct ibv_qp *qp = ibv_create_qp(m->pd, &ia);

	if (!qp)
		mx_die("ibv_create_qp: %s", strerror(errno));
	if (ibv_modify_qp(qp, &a, mask))
		mx_die("modify QP to INIT failed");
	return qp;
}

/* The group of a multicast case, of the family of @gid. */
static union ibv_gid mx_group(const uint8_t *gid)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t group4[16] = {
		[10] = 0xff, [11] = 0xff, 239, 77, 0, 1
	};
	static const uint8_t group6[16] = { 0xff, 0x0e, [13] = 0x77, [15] = 1 };
	union ibv_gid g;

	memcpy(g.raw, memcmp(gid, v4mapped, 12) ? group6 : group4, 16);
	return g;
}

static struct ibv_ah_attr mx_ah(struct mx_ctx *m, const struct mx_info *peer)
{
	struct ibv_ah_attr ah = {
		.is_global = 1, .port_num = 1, .dlid = peer->lid,
		.grh = { .sgid_index = m->gid_index, .hop_limit = 64 },
	};

	memcpy(ah.grh.dgid.raw, peer->gid, 16);
	return ah;
}

/* RTR and RTS towards @peer; 0 or an errno value. */
static int mx_connect(struct mx_ctx *m, struct ibv_qp *qp,
		      const struct mx_info *me, const struct mx_info *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = m->mtu,
		.dest_qp_num = peer->qpn, .rq_psn = peer->psn,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = mx_ah(m, peer),
	};
	int mask = IBV_QP_STATE, ret;

	if (qp->qp_type != IBV_QPT_UD)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	ret = ibv_modify_qp(qp, &a, mask);
	if (ret)
		return ret;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .sq_psn = me->psn, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1,
	};
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	return ibv_modify_qp(qp, &a, mask);
}

static uint8_t *mx_req_buf(struct mx_ctx *m)
{
	return m->buf;
}

static uint8_t *mx_resp_buf(struct mx_ctx *m)
{
	return m->buf + MX_REGION;
}

static uint64_t mx_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The responder's 8 bytes at the atomic's target, as the requester expects them. */
static uint64_t mx_orig(const struct mx_case *c)
{
	uint8_t b[8];
	size_t i;

	for (i = 0; i < sizeof(b); i++)
		b[i] = mx_pattern(2, c->index, i);
	return mx_u64(b);
}

static uint32_t mx_imm(const struct mx_case *c)
{
	return htonl(0x5a000000u | c->index);
}

/* The requester's half of case @c; writes its findings into @v. */
static void mx_request(struct mx_ctx *m, const struct mx_case *c,
		       struct ibv_qp *qp, const struct mx_info *peer,
		       struct mx_verdict *v)
{
	static const enum ibv_wr_opcode opc[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_RDMA_WRITE, IBV_WR_SEND_WITH_INV,
	};
	uint8_t *local = mx_req_buf(m);
	struct ibv_sge sge[3];
	struct ibv_send_wr wr = {
		.wr_id = c->index, .sg_list = sge, .opcode = opc[c->op],
		.send_flags = IBV_SEND_SIGNALED, .imm_data = mx_imm(c),
	}, *bad;
	struct ibv_ah_attr aha;
	struct ibv_ah *ah = NULL;
	uint64_t orig = mx_orig(c);
	struct ibv_wc wc;
	int ret;

	memset(local, MX_POISON, MX_REGION);
	if (mx_atomic(c->op)) {
		sge[0] = (struct ibv_sge){ (uintptr_t)local, 8, m->mr->lkey };
		wr.num_sge = 1;
		wr.wr.atomic.remote_addr = peer->addr;
		wr.wr.atomic.rkey = peer->rkey;
		wr.wr.atomic.compare_add = c->op == MX_CMP_SWP ? orig : MX_ADD;
		wr.wr.atomic.swap = MX_SWAP;
	} else {
		wr.num_sge = mx_sges(m, local, c->size,
				     c->variant == MX_THREE_SGE, sge);
		if (c->op != MX_READ)
			mx_sge_data(sge, wr.num_sge, 1, c->index, false, NULL, 0);
		wr.wr.rdma.remote_addr = peer->addr;
		wr.wr.rdma.rkey = peer->rkey;
	}
	if (c->op == MX_SEND_INV)
		wr.invalidate_rkey = peer->rkey;
	if (c->variant == MX_INLINE_DATA)
		wr.send_flags |= IBV_SEND_INLINE;
	if (qp->qp_type == IBV_QPT_UD) {
		aha = mx_ah(m, peer);
		if (c->mcast)
			aha.grh.dgid = mx_group(peer->gid);
		ah = ibv_create_ah(m->pd, &aha);
		if (!ah) {
			snprintf(v->why, sizeof(v->why), "ibv_create_ah: %s",
				 strerror(errno));
			return;
		}
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = c->mcast ? 0xffffff : peer->qpn;
		wr.wr.ud.remote_qkey = MX_QKEY;
	}
	ret = ibv_post_send(qp, &wr, &bad);
	if (ret) {
		snprintf(v->why, sizeof(v->why), "ibv_post_send: %s",
			 strerror(ret));
	} else if (!mx_poll(m, &wc)) {
		snprintf(v->why, sizeof(v->why), "no send completion in %d ms",
			 MX_WAIT_MS);
	} else if (wc.status != IBV_WC_SUCCESS) {
		snprintf(v->why, sizeof(v->why), "send completion: %s",
			 ibv_wc_status_str(wc.status));
	} else if (c->op == MX_READ) {
		v->ok = mx_sge_data(sge, wr.num_sge, 2, c->index, true,
				    v->why, sizeof(v->why));
	} else if (mx_atomic(c->op) && mx_u64(local) != orig) {
		snprintf(v->why, sizeof(v->why),
			 "atomic returned 0x%016llx, want 0x%016llx",
			 (unsigned long long)mx_u64(local),
			 (unsigned long long)orig);
	} else {
		v->ok = 1;
	}
	if (ah)
		ibv_destroy_ah(ah);
}

/*
 * The responder's type 2 window over its buffer, bound on @qp; its rkey
 * into @rkey. Return: the window, or NULL with @v->why set.
 */
static struct ibv_mw *mx_bind(struct mx_ctx *m, struct ibv_qp *qp,
			      uint32_t *rkey, struct mx_verdict *v)
{
	struct ibv_mw *mw = ibv_alloc_mw(m->pd, IBV_MW_TYPE_2);
	struct ibv_send_wr wr = {
		.wr_id = MX_END, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	if (!mw) {
		snprintf(v->why, sizeof(v->why), "ibv_alloc_mw: %s",
			 strerror(errno));
		return NULL;
	}
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = m->mr, .addr = (uintptr_t)mx_resp_buf(m),
		.length = MX_REGION, .mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	if (ibv_post_send(qp, &wr, &bad))
		snprintf(v->why, sizeof(v->why), "bind: ibv_post_send failed");
	else if (!mx_poll(m, &wc))
		snprintf(v->why, sizeof(v->why), "no bind completion");
	else if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_BIND_MW)
		snprintf(v->why, sizeof(v->why), "bind completion: %s",
			 ibv_wc_status_str(wc.status));
	else
		*rkey = wr.bind_mw.rkey;
	if (v->why[0]) {
		ibv_dealloc_mw(mw);
		return NULL;
	}
	return mw;
}

/* The responder's checks once the requester is done; into @v. */
static void mx_respond(struct mx_ctx *m, const struct mx_case *c,
		       struct ibv_qp *qp, uint32_t rkey, struct mx_verdict *v)
{
	uint8_t *mem = mx_resp_buf(m);
	uint32_t grh = qp->qp_type == IBV_QPT_UD ? MX_GRH : 0;
	struct ibv_sge sge = { (uintptr_t)mem, c->size, m->mr->lkey };
	uint64_t orig = mx_orig(c), want;
	struct ibv_wc wc;

	if (mx_needs_recv(c->op)) {
		if (!mx_poll(m, &wc)) {
			snprintf(v->why, sizeof(v->why),
				 "no receive completion in %d ms", MX_WAIT_MS);
			return;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			snprintf(v->why, sizeof(v->why), "receive completion: %s",
				 ibv_wc_status_str(wc.status));
			return;
		}
		/* a WRITE with immediate counts the bytes it wrote */
		if (wc.byte_len != c->size + grh) {
			snprintf(v->why, sizeof(v->why),
				 "receive byte_len %u, want %u", wc.byte_len,
				 c->size + grh);
			return;
		}
		if (mx_has_imm(c->op) != !!(wc.wc_flags & IBV_WC_WITH_IMM) ||
		    (mx_has_imm(c->op) && wc.imm_data != mx_imm(c))) {
			snprintf(v->why, sizeof(v->why),
				 "immediate: flags 0x%x data 0x%08x", wc.wc_flags,
				 ntohl(wc.imm_data));
			return;
		}
		if ((c->op == MX_SEND_INV) != !!(wc.wc_flags & mx_inv_flag(m)) ||
		    (c->op == MX_SEND_INV && wc.invalidated_rkey != rkey)) {
			snprintf(v->why, sizeof(v->why),
				 "invalidate: flags 0x%x rkey 0x%08x, want 0x%08x",
				 wc.wc_flags, wc.invalidated_rkey, rkey);
			return;
		}
		sge.addr += c->op == MX_WRITE_IMM ? 0 : grh;
	}
	if (mx_atomic(c->op)) {
		want = c->op == MX_CMP_SWP ? MX_SWAP : orig + MX_ADD;
		if (mx_u64(mem) != want) {
			snprintf(v->why, sizeof(v->why),
				 "memory holds 0x%016llx, want 0x%016llx",
				 (unsigned long long)mx_u64(mem),
				 (unsigned long long)want);
			return;
		}
	} else if (mx_needs_recv(c->op) || mx_to_memory(c->op)) {
		if (!mx_sge_data(&sge, 1, 1, c->index, true, v->why,
				 sizeof(v->why)) ||
		    !mx_poisoned((uint8_t *)(uintptr_t)sge.addr + c->size,
				 MX_GUARD, c->size, v->why, sizeof(v->why)))
			return;
	}
	v->ok = 1;
}

/* The case's verdict from the requester's and the responder's. */
static struct mx_verdict mx_verdict(const struct mx_verdict *req,
				    const struct mx_verdict *resp)
{
	struct mx_verdict v = { 0 };

	if (req->ok && resp->ok)
		return *req;
	if (!req->ok && req->why[0])
		return *req;
	if (!resp->ok && resp->why[0])
		return *resp;
	snprintf(v.why, sizeof(v.why), "failed before any check");
	return v;
}

/* Both sides: one case; its verdict. */
static struct mx_verdict mx_run(struct mx_ctx *m, const struct mx_case *c)
{
	bool requester = m->server != !!c->client_requests;
	struct mx_verdict v = { 0 }, peer_v;
	struct mx_info me, peer;
	uint8_t *mem = mx_resp_buf(m);
	struct ibv_qp *qp = mx_qp(m, c->qp_type);
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge rsge;
	uint32_t grh = c->qp_type == IBV_QPT_UD ? MX_GRH : 0;
	union ibv_gid gid, group;
	int32_t ready = 0, peer_ready;
	struct ibv_mw *mw = NULL;
	uint32_t mw_rkey = 0;
	bool member = false;
	int ret;

	if (ibv_query_gid(m->ctx, 1, m->gid_index, &gid))
		mx_die("can't read GID %d", m->gid_index);
	me = (struct mx_info){
		.qpn = qp->qp_num, .psn = lrand48() & 0xffffff,
		.addr = (uintptr_t)mem, .rkey = m->mr->rkey,
	};
	memcpy(me.gid, gid.raw, 16);
	memset(mem, MX_POISON, MX_REGION);
	if (!requester && mx_atomic(c->op))
		mx_sge_data(&(struct ibv_sge){ (uintptr_t)mem, 8, 0 }, 1, 2,
			    c->index, false, NULL, 0);
	if (!requester && c->op == MX_READ) {
		rsge = (struct ibv_sge){ (uintptr_t)mem, c->size, 0 };
		mx_sge_data(&rsge, 1, 2, c->index, false, NULL, 0);
	}
	if (!requester && mx_needs_recv(c->op)) {
		/* a WRITE with immediate consumes a receive with no SGE */
		rsge = (struct ibv_sge){ (uintptr_t)mem, c->size + grh,
					 m->mr->lkey };
		rwr = (struct ibv_recv_wr){
			.sg_list = &rsge, .num_sge = c->op != MX_WRITE_IMM,
		};
		if (ibv_post_recv(qp, &rwr, &rbad))
			mx_die("ibv_post_recv failed");
	}
	mx_swap(m, &me, &peer, sizeof(me));
	ret = mx_connect(m, qp, &me, &peer);
	if (ret) {
		snprintf(v.why, sizeof(v.why), "modify QP to RTR/RTS: %s",
			 strerror(ret));
		ready = -1;
	} else if (c->mcast && !requester) {
		group = mx_group(gid.raw);
		ret = ibv_attach_mcast(qp, &group, 0);
		if (ret) {
			snprintf(v.why, sizeof(v.why), "ibv_attach_mcast: %s",
				 strerror(ret));
			ready = -1;
		}
		member = !ret;
	} else if (mx_window(c->op) && !requester) {
		mw = mx_bind(m, qp, &mw_rkey, &v);
		ready = mw ? 0 : -1;
	}
	/* both QPs are ready (and the receive posted) before anything flies */
	mx_swap(m, &ready, &peer_ready, sizeof(ready));
	if (!ready && !peer_ready) {
		/* the window's rkey replaces the region's */
		if (mx_window(c->op))
			mx_swap(m, &mw_rkey, &peer.rkey, sizeof(mw_rkey));
		if (requester)
			mx_request(m, c, qp, &peer, &v);
		/* the requester is done: the responder may look */
		mx_swap(m, &ready, &peer_ready, sizeof(ready));
		if (!requester)
			mx_respond(m, c, qp, mw_rkey, &v);
	}
	mx_swap(m, &v, &peer_v, sizeof(v));
	if (member && ibv_detach_mcast(qp, &group, 0))
		mx_die("ibv_detach_mcast failed");
	/* the window before its QP: the other order once wedged rxe 6.1 */
	if (mw)
		ibv_dealloc_mw(mw);
	ibv_destroy_qp(qp);
	return requester ? mx_verdict(&v, &peer_v) : mx_verdict(&peer_v, &v);
}

/* The client's list of cases, into @c (NULL: only counts); returns how many. */
static unsigned int mx_cases(struct mx_case *c, unsigned int mtu)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_UD,
	};
	uint32_t sizes[] = { 0, 1, 100, mtu, mtu + 1, 3 * mtu + 5, 65536,
			     MX_MAX_MSG };
	uint32_t inl[] = { 1, MX_INLINE };
	unsigned int n = 0, t, op, var, s, dir, nsizes;
	uint32_t *sz;

	for (dir = 0; dir < 2; dir++)
	for (t = 0; t < 4; t++)
	for (op = 0; op < MX_NR_OPS; op++)
	for (var = 0; var < MX_NR_VARIANTS; var++) {
		if (!mx_has(types[t], op))
			continue;
		if ((mx_atomic(op) || mx_window(op)) && var != MX_ONE_SGE)
			continue;
		if (var == MX_INLINE_DATA && op == MX_READ)
			continue;
		sz = var == MX_INLINE_DATA ? inl : sizes;
		nsizes = var == MX_INLINE_DATA ? 2 : 8;
		if (mx_atomic(op))
			nsizes = 1;
		for (s = 0; s < nsizes; s++) {
			uint32_t size = mx_atomic(op) ? 8 : sz[s];

			if (types[t] == IBV_QPT_UD && size > mtu)
				continue;
			if (var == MX_THREE_SGE && size < 3)
				continue;
			if (c)
				c[n] = (struct mx_case){
					.index = n, .qp_type = types[t],
					.mcast = t == 3,
					.op = op, .variant = var, .size = size,
					.client_requests = !dir,
				};
			n++;
		}
	}
	return n;
}

static unsigned int mx_type_index(const struct mx_case *c)
{
	if (c->mcast)
		return 3;
	return c->qp_type == IBV_QPT_RC ? 0 : c->qp_type == IBV_QPT_UC ? 1 : 2;
}

static const char *mx_type_name(const struct mx_case *c)
{
	static const char *const name[] = { "RC", "UC", "UD", "UD-mcast" };

	return name[mx_type_index(c)];
}

static void mx_open(struct mx_ctx *m, const char *dev)
{
	struct ibv_device **list;
	size_t len = 2 * MX_REGION;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		mx_die("no RDMA device list");
	for (i = 0; i < n; i++)
		if (!dev || !strcmp(ibv_get_device_name(list[i]), dev))
			break;
	if (i == n)
		mx_die("device %s not found", dev ? dev : "(any)");
	m->rxe = !strncmp(ibv_get_device_name(list[i]), "rxe", 3);
	m->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!m->ctx)
		mx_die("can't open the device");
	m->pd = ibv_alloc_pd(m->ctx);
	m->cq = ibv_create_cq(m->ctx, 16, NULL, NULL, 0);
	if (posix_memalign((void **)&m->buf, 4096, len))
		mx_die("out of memory");
	m->mr = ibv_reg_mr(m->pd, m->buf, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
	if (!m->pd || !m->cq || !m->mr)
		mx_die("can't make a PD, CQ and MR: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct mx_ctx m = { .gid_index = 1, .mtu = IBV_MTU_1024,
			    .label = "local" };
	const char *dev = NULL, *port = "18520";
	struct mx_case *cases, c;
	unsigned int mtu = 1024, n, i, failed = 0;
	/* [server requests][QP type]: no completion / a case passed */
	bool stalled[2][4] = { { false } }, worked[2][4] = { { false } };
	struct mx_verdict v;
	int opt;

	while ((opt = getopt(argc, argv, "d:x:p:m:L:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'x': m.gid_index = atoi(optarg); break;
		case 'p': port = optarg; break;
		case 'm':
			mtu = atoi(optarg);
			if (mtu != 1024 && mtu != 4096)
				mx_die("-m is 1024 or 4096");
			m.mtu = mtu == 1024 ? IBV_MTU_1024 : IBV_MTU_4096;
			break;
		case 'L': snprintf(m.label, sizeof(m.label), "%s", optarg); break;
		default:
			fprintf(stderr, "usage: rnic-matrix [-d DEV] [-x GID] [-p PORT] [-m 1024|4096] [-L LABEL] [HOST]\n");
			return 2;
		}
	}
	m.server = optind >= argc;
	srand48(getpid());
	mx_open(&m, dev);
	m.sock = mx_tcp(m.server ? NULL : argv[optind], port);
	mx_swap(&m, m.label, m.peer_label, sizeof(m.label));
	m.peer_label[sizeof(m.peer_label) - 1] = '\0';
	if (m.server) {
		for (;;) {
			mx_recv(&m, &c, sizeof(c));
			if (c.index == MX_END)
				return 0;
			mx_run(&m, &c);
		}
	}
	n = mx_cases(NULL, mtu);
	cases = calloc(n, sizeof(*cases));
	mx_cases(cases, mtu);
	for (i = 0; i < n; i++) {
		unsigned int dir = !cases[i].client_requests;
		unsigned int t = mx_type_index(&cases[i]);
		bool *dead = &stalled[dir][t], *works = &worked[dir][t];

		if (*dead) {
			v = (struct mx_verdict){ .ok = 0 };
			snprintf(v.why, sizeof(v.why),
				 "not run: a case before it got no completion");
		} else {
			mx_send(&m, &cases[i], sizeof(cases[i]));
			v = mx_run(&m, &cases[i]);
			/* a lost UC message after working cases is no dead link */
			*dead = !v.ok && !strncmp(v.why, "no ", 3) && !*works;
			*works |= v.ok;
		}
		failed += !v.ok;
		printf("%s %u - %s %s %s %u B mtu %u %s->%s%s%s\n",
		       v.ok ? "ok" : "not ok", i + 1,
		       mx_type_name(&cases[i]), mx_op_name[cases[i].op],
		       mx_variant_name[cases[i].variant], cases[i].size, mtu,
		       cases[i].client_requests ? m.label : m.peer_label,
		       cases[i].client_requests ? m.peer_label : m.label,
		       v.ok ? "" : ": ", v.ok ? "" : v.why);
		fflush(stdout);
	}
	c = (struct mx_case){ .index = MX_END };
	mx_send(&m, &c, sizeof(c));
	printf("1..%u\n", n);
	free(cases);
	return failed ? 1 : 0;
}
