/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the data path kselftests (dp_*.c): a test environment
 * (one device, two verbs contexts on it), connected RC/UC pairs and UD
 * pairs, registered buffers, data patterns with guard bytes, scatter
 * layouts at odd offsets, posting, and polling with a deadline.
 *
 * Functions taking @_metadata assert with the harness' macros (a failure
 * is reported at the helper's line, with the caller's values logged);
 * they must run in the test's main thread. Functions without it return 0
 * or a negative errno and are safe in other threads and forked children.
 *
 * Patterns: byte i of a message is dp_pat(seed, i). Every seed comes from
 * dp_seed(), which mixes the test's own numbers with RNIC_DP_SEED from the
 * environment (default 1): failures print the seed, and running again
 * with the same RNIC_DP_SEED reproduces them.
 */
#ifndef RNIC_DP_TEST_H
#define RNIC_DP_TEST_H

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>

#include "rnic_verbs_test.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the word-wise pattern code assumes a little-endian host"
#endif

/* Deadline for one completion to arrive, in milliseconds. */
#define DP_TIMEOUT_MS	20000
/* How long "nothing happens" is watched, in milliseconds. */
#define DP_QUIET_MS	300
#define DP_MAX_SGE	32
#define DP_CQE		1024
#define DP_QKEY		0x11223344u
/* The GRH in front of every UD receive. */
#define DP_GRH		40

static inline long dp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* An integer from the environment (a test's knob), or @dflt. */
static inline int dp_env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : dflt;
}

/* Read exactly @len bytes from @fd if they come within @ms; 0 or -1. */
static inline int dp_read_within(int fd, void *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -1;
	return read(fd, buf, len) == (ssize_t)len ? 0 : -1;
}

/* ---- patterns -------------------------------------------------------- */

static inline uint64_t dp_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* A seed from the test's numbers and RNIC_DP_SEED. */
static inline uint32_t dp_seed(uint32_t a, uint32_t b, uint32_t c)
{
	const char *env = getenv("RNIC_DP_SEED");
	uint64_t base = env ? strtoull(env, NULL, 0) : 1;

	return (uint32_t)dp_mix(base ^ dp_mix(a ^ dp_mix(b ^ dp_mix(c))));
}

static inline uint64_t dp_word(uint32_t seed, uint64_t w)
{
	return dp_mix(((uint64_t)seed << 40) ^ w);
}

/* Byte @i of the message of @seed. */
static inline uint8_t dp_pat(uint32_t seed, uint64_t i)
{
	return dp_word(seed, i >> 3) >> ((i & 7) * 8);
}

/* Write bytes @off .. @off + @len of the message of @seed to @p. */
static inline void dp_fill(void *p, size_t len, uint32_t seed, uint64_t off)
{
	uint8_t *b = p;
	size_t i = 0;

	for (; i < len && ((off + i) & 7); i++)
		b[i] = dp_pat(seed, off + i);
	for (; i + 8 <= len; i += 8) {
		uint64_t w = dp_word(seed, (off + i) >> 3);

		memcpy(b + i, &w, 8);
	}
	for (; i < len; i++)
		b[i] = dp_pat(seed, off + i);
}

/* Index of the first byte of @p not as dp_fill() wrote it, or -1. */
static inline long dp_check(const void *p, size_t len, uint32_t seed,
			    uint64_t off)
{
	const uint8_t *b = p;
	size_t i = 0, j;

	for (; i < len && ((off + i) & 7); i++)
		if (b[i] != dp_pat(seed, off + i))
			return i;
	for (; i + 8 <= len; i += 8) {
		uint64_t w = dp_word(seed, (off + i) >> 3);

		if (memcmp(b + i, &w, 8))
			break;
	}
	for (j = i; j < len; j++)
		if (b[j] != dp_pat(seed, off + j))
			return j;
	return -1;
}

/* A small PRNG for layouts and random choices (not for data). */
static inline uint32_t dp_rand(uint64_t *state)
{
	*state = dp_mix(*state);
	return *state >> 32;
}

/* ---- environment: a device and two contexts ------------------------- */

/**
 * struct dp_env - what every data path test starts with
 * @g: netlink handle
 * @res: resource report buffer (heap)
 * @dev: the rnic device's name
 * @ctx: two contexts on the device; side 0 is the requester by convention
 * @pd: a PD per context
 * @scq: a send CQ per context
 * @rcq: a receive CQ per context
 * @gid: the GID each side uses
 * @gid_index: its index
 * @port: the port's attributes (active_mtu, max_msg_sz)
 * @dattr: the device's attributes
 */
struct dp_env {
	struct rnic_genl *g;
	struct rnic_res_info *res;
	const char *dev;
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct ibv_cq *scq[2];
	struct ibv_cq *rcq[2];
	union ibv_gid gid;
	int gid_index;
	struct ibv_port_attr port;
	struct ibv_device_attr dattr;
};

/* Index of @gid in port 1's table of @ctx, or -1. */
static inline int dp_find_gid(struct ibv_context *ctx, const uint8_t *gid)
{
	union ibv_gid g;
	int i;

	for (i = 0; i < RNIC_GID_TABLE_LEN; i++)
		if (!ibv_query_gid(ctx, 1, i, &g) && !memcmp(g.raw, gid, 16))
			return i;
	return -1;
}

/*
 * Remove every device, create @dev (bound to @netdev, or not; with
 * RNIC_NL_ATTR_MAX_BURST @max_burst unless it is 0), open two contexts
 * with a PD and two CQs each. With @netdev "lo" the pair talks over the
 * IPv4-mapped GID of 127.0.0.1, else over GID 0.
 */
static inline void dp_env_open_burst(struct __test_metadata *_metadata,
				     struct dp_env *env, const char *dev,
				     const char *netdev, uint32_t max_burst)
{
	static const uint8_t lo4[16] = {
		[10] = 0xff, [11] = 0xff, 127, 0, 0, 1
	};
	long end;
	int i;

	memset(env, 0, sizeof(*env));
	env->dev = dev;
	rnic_fixture_setup(_metadata, &env->g, &env->res, NULL, NULL);
	ASSERT_EQ(0, rnic_link_add_burst(env->g, dev, netdev, max_burst))
		TH_LOG("link add %s: %s", dev, rnic_genl_errmsg(env->g));
	for (i = 0; i < 2; i++) {
		env->ctx[i] = do_ptr(rnic_ibv_open(dev));
		env->pd[i] = do_ptr(ibv_alloc_pd(env->ctx[i]));
		env->scq[i] = do_ptr(ibv_create_cq(env->ctx[i], DP_CQE,
						   NULL, NULL, 0));
		env->rcq[i] = do_ptr(ibv_create_cq(env->ctx[i], DP_CQE,
						   NULL, NULL, 0));
	}
	ASSERT_EQ(0, ibv_query_device(env->ctx[0], &env->dattr));
	ASSERT_EQ(0, ibv_query_port(env->ctx[0], 1, &env->port));
	env->gid_index = 0;
	if (netdev && !strcmp(netdev, "lo")) {
		/* The address may take a moment to reach the GID table. */
		end = dp_now_ms() + 5000;
		while ((env->gid_index = dp_find_gid(env->ctx[0], lo4)) < 0 &&
		       dp_now_ms() < end)
			usleep(10000);
		ASSERT_LE(0, env->gid_index);
	}
	ASSERT_EQ(0, ibv_query_gid(env->ctx[0], 1, env->gid_index, &env->gid));
}

/* dp_env_open_burst() with the link's own burst size. */
static inline void dp_env_open(struct __test_metadata *_metadata,
			       struct dp_env *env, const char *dev,
			       const char *netdev)
{
	dp_env_open_burst(_metadata, env, dev, netdev, 0);
}

static inline void dp_env_close(struct __test_metadata *_metadata,
				struct dp_env *env)
{
	int i;

	for (i = 0; i < 2; i++)
		if (env->ctx[i])
			EXPECT_EQ(0, ibv_close_device(env->ctx[i]));
	rnic_fixture_teardown(_metadata, env->g, env->res);
}

/* ---- registered buffers ---------------------------------------------- */

/**
 * struct dp_buf - an anonymous mapping and its MR
 * @mem: the mapping, page aligned
 * @size: its bytes
 * @mr: the MR over all of it
 */
struct dp_buf {
	uint8_t *mem;
	size_t size;
	struct ibv_mr *mr;
};

#define DP_ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* Map and register @size bytes with @access; 0 or -errno. */
static inline int dp_buf_alloc(struct ibv_pd *pd, size_t size, int access,
			       struct dp_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->size = size;
	b->mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->mem == MAP_FAILED) {
		b->mem = NULL;
		return -errno;
	}
	b->mr = ibv_reg_mr(pd, b->mem, size, access);
	if (!b->mr) {
		int ret = -errno;

		munmap(b->mem, size);
		b->mem = NULL;
		return ret;
	}
	return 0;
}

static inline int dp_buf_free(struct dp_buf *b)
{
	int ret = 0;

	if (b->mr)
		ret = ibv_dereg_mr(b->mr);
	if (b->mem)
		munmap(b->mem, b->size);
	memset(b, 0, sizeof(*b));
	return ret ? -ret : 0;
}

#define do_buf_alloc(pd, size, access, b) \
	ASSERT_EQ(0, dp_buf_alloc(pd, size, access, b))

/* The guard pattern of a buffer: every byte no transfer may touch. */
static inline uint32_t dp_guard_seed(const struct dp_buf *b)
{
	return 0x6a09e667u ^ (uint32_t)(uintptr_t)b->mem;
}

static inline void dp_buf_guard(struct dp_buf *b)
{
	dp_fill(b->mem, b->size, dp_guard_seed(b), 0);
}

/* ---- scatter layouts ------------------------------------------------- */

/**
 * struct dp_sgl - a message cut into pieces at odd offsets of a buffer,
 *	with guard bytes between them
 * @n: pieces
 * @len: bytes of all pieces
 * @sge: the pieces, as SGEs of the buffer's MR
 */
struct dp_sgl {
	int n;
	size_t len;
	struct ibv_sge sge[DP_MAX_SGE];
};

/* Bytes of buffer a layout of @len bytes in @n pieces needs at most. */
static inline size_t dp_sgl_room(size_t len, int n)
{
	return len + 64 * (size_t)(n + 2);
}

/*
 * Cut @len bytes into @n pieces (1 .. DP_MAX_SGE; at most @len of them
 * when @len is not 0, each piece at least one byte; @len 0 gives one empty
 * piece; @n 0 gives no piece) placed in @b from @start on: the first at an odd offset, each
 * followed by a gap of 1 to 63 bytes. 0, or -ENOSPC if @b is too small.
 */
static inline int dp_sgl_make(struct dp_buf *b, size_t start, size_t len,
			      int n, uint32_t seed, struct dp_sgl *s)
{
	uint64_t rnd = seed;
	size_t pos = start + 1 + 2 * (dp_rand(&rnd) % 16);
	size_t left = len, each;
	int i;

	s->n = 0;
	s->len = 0;
	if (n <= 0)
		return 0;
	if (n > (int)len)
		n = len ? (int)len : 1;
	s->n = n;
	s->len = len;
	each = len / n;
	for (i = 0; i < n; i++) {
		size_t l = left;

		if (i < n - 1) {
			size_t skew = each / 2 ? dp_rand(&rnd) % (each / 2 + 1) : 0;

			l = dp_rand(&rnd) & 1 ? each + skew : each - skew;
			if (!l)
				l = 1;
			if (l > left - (n - 1 - i))
				l = left - (n - 1 - i);
		}
		s->sge[i].addr = (uintptr_t)b->mem + pos;
		s->sge[i].length = l;
		s->sge[i].lkey = b->mr->lkey;
		left -= l;
		pos += l + 1 + dp_rand(&rnd) % 63;
		if (pos > b->size)
			return -ENOSPC;
	}
	return 0;
}

/* One piece: @len bytes at @b + @off. */
static inline void dp_sgl_one(struct dp_buf *b, size_t off, size_t len,
			      struct dp_sgl *s)
{
	s->n = 1;
	s->len = len;
	s->sge[0].addr = (uintptr_t)b->mem + off;
	s->sge[0].length = len;
	s->sge[0].lkey = b->mr->lkey;
}

/* Fill the pieces with bytes @skip .. of the message of @seed. */
static inline void dp_sgl_fill(const struct dp_sgl *s, uint32_t seed,
			       uint64_t off)
{
	int i;

	for (i = 0; i < s->n; i++) {
		dp_fill((void *)(uintptr_t)s->sge[i].addr, s->sge[i].length,
			seed, off);
		off += s->sge[i].length;
	}
}

/* Copy bytes @off .. @off + @len of what the pieces hold to @out. */
static inline void dp_sgl_gather(const struct dp_sgl *s, size_t off,
				 size_t len, void *out)
{
	uint8_t *o = out;
	size_t pos = 0;
	int i;

	for (i = 0; i < s->n && len; i++) {
		size_t l = s->sge[i].length;
		const uint8_t *p = (const uint8_t *)(uintptr_t)s->sge[i].addr;

		if (off < pos + l) {
			size_t from = off - pos, n = l - from;

			if (n > len)
				n = len;
			memcpy(o, p + from, n);
			o += n;
			off += n;
			len -= n;
		}
		pos += l;
	}
}

/*
 * After a transfer into the pieces of @s in @b (which dp_buf_guard()
 * filled before): bytes @skip .. @skip + @len of the pieces hold bytes
 * 0 .. @len of the message of @seed, and every other byte of @b still
 * holds its guard. -1, or the offset in @b of the first wrong byte.
 */
static inline long dp_sgl_verify(const struct dp_buf *b,
				 const struct dp_sgl *s, size_t skip,
				 size_t len, uint32_t seed)
{
	uint32_t gs = dp_guard_seed(b);
	size_t cur = 0, pos = 0;
	long bad;
	int i;

	for (i = 0; i < s->n; i++) {
		size_t off = (uintptr_t)s->sge[i].addr - (uintptr_t)b->mem;
		size_t l = s->sge[i].length, j = 0;

		/* gap before the piece */
		bad = dp_check(b->mem + cur, off - cur, gs, cur);
		if (bad >= 0)
			return cur + bad;
		/* piece: GRH (not checked), message, then guard */
		while (j < l) {
			size_t lp = pos + j, n;

			if (lp < skip) {
				n = skip - lp;
				bad = -1;
			} else if (lp < skip + len) {
				n = skip + len - lp;
				if (n > l - j)
					n = l - j;
				bad = dp_check(b->mem + off + j, n, seed,
					       lp - skip);
			} else {
				n = l - j;
				bad = dp_check(b->mem + off + j, n, gs,
					       off + j);
			}
			if (n > l - j)
				n = l - j;
			if (bad >= 0)
				return off + j + bad;
			j += n;
		}
		pos += l;
		cur = off + l;
	}
	bad = dp_check(b->mem + cur, b->size - cur, gs, cur);
	return bad >= 0 ? (long)(cur + bad) : -1;
}

/*
 * Bytes @skip .. @skip + @len of the pieces hold the message of @seed:
 * -1, or the index in the message of the first wrong byte. (No guard
 * check: for buffers that dp_buf_guard() did not fill.)
 */
static inline long dp_sgl_check(const struct dp_sgl *s, size_t skip,
				size_t len, uint32_t seed)
{
	size_t pos = 0;
	int i;

	for (i = 0; i < s->n; i++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)s->sge[i].addr;
		size_t l = s->sge[i].length, from = 0, n;
		long bad;

		if (pos + l > skip && pos < skip + len) {
			if (pos < skip)
				from = skip - pos;
			n = l - from;
			if (pos + l > skip + len)
				n -= pos + l - (skip + len);
			bad = dp_check(p + from, n, seed, pos + from - skip);
			if (bad >= 0)
				return pos + from - skip + bad;
		}
		pos += l;
	}
	return -1;
}

#define ASSERT_SGL(b, s, skip, len, seed) do {				\
	long __bad = dp_sgl_verify(b, s, skip, len, seed);		\
	ASSERT_EQ(-1, __bad)						\
		TH_LOG("wrong byte at buffer offset %ld (seed 0x%x, "	\
		       "len %zu, %d pieces)", __bad, (unsigned int)(seed), \
		       (size_t)(len), (s)->n);				\
} while (0)

/* ---- QPs --------------------------------------------------------------- */

/**
 * struct dp_qp_opts - how to create and connect a QP
 * @type: RC, UC or UD
 * @max_send_wr, @max_recv_wr, @max_send_sge, @max_recv_sge,
 *	@max_inline: asked for at creation
 * @sq_sig_all: every send completes
 * @srq: receive from this SRQ (RC, UD)
 * @mtu: path MTU (RC, UC)
 * @access: qp_access_flags (RC, UC)
 * @timeout, @retry_cnt, @rnr_retry, @min_rnr_timer: RC timers
 * @rd_atomic: max_rd_atomic and max_dest_rd_atomic (RC)
 * @qkey: the Q_Key (UD)
 * @psn: sq_psn of side 0 (side 1 uses another one), to cross the 24-bit
 *	wrap when asked
 * @stay_rtr: leave side 1 in RTR (for IBV_EVENT_COMM_EST)
 */
struct dp_qp_opts {
	enum ibv_qp_type type;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
	int sq_sig_all;
	struct ibv_srq *srq;
	enum ibv_mtu mtu;
	unsigned int access;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t rd_atomic;
	uint32_t qkey;
	uint32_t psn;
	bool stay_rtr;
};

static inline struct dp_qp_opts dp_opts(enum ibv_qp_type type)
{
	struct dp_qp_opts o = {
		.type = type,
		.max_send_wr = 64,
		.max_recv_wr = 64,
		.max_send_sge = 4,
		.max_recv_sge = 4,
		.max_inline = 64,
		.sq_sig_all = 1,
		.mtu = IBV_MTU_1024,
		.access = DP_ACCESS_ALL,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.min_rnr_timer = 1,
		.rd_atomic = 16,
		.qkey = DP_QKEY,
		.psn = 0x123456,
	};

	return o;
}

static inline struct ibv_qp *dp_qp_create(struct ibv_pd *pd,
					  struct ibv_cq *scq,
					  struct ibv_cq *rcq,
					  const struct dp_qp_opts *o)
{
	struct ibv_qp_init_attr init = {
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = o->srq,
		.cap = {
			.max_send_wr = o->max_send_wr,
			.max_recv_wr = o->srq ? 0 : o->max_recv_wr,
			.max_send_sge = o->max_send_sge,
			.max_recv_sge = o->srq ? 0 : o->max_recv_sge,
			.max_inline_data = o->max_inline,
		},
		.qp_type = o->type,
		.sq_sig_all = o->sq_sig_all,
	};

	return ibv_create_qp(pd, &init);
}

/* RESET -> INIT; 0 or an errno value. */
static inline int dp_qp_init(struct ibv_qp *qp, const struct dp_qp_opts *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = o->qkey,
		.qp_access_flags = o->access,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | (o->type == IBV_QPT_UD ?
					    IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS));
}

/* INIT -> RTR towards @dqpn at @dgid; 0 or an errno value. */
static inline int dp_qp_rtr(struct ibv_qp *qp, const struct dp_qp_opts *o,
			    uint32_t dqpn, const union ibv_gid *dgid,
			    int sgid_index, uint32_t rq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = o->mtu,
		.dest_qp_num = dqpn,
		.rq_psn = rq_psn,
		.max_dest_rd_atomic = o->rd_atomic,
		.min_rnr_timer = o->min_rnr_timer,
		.ah_attr = {
			.grh = {
				.dgid = *dgid,
				.sgid_index = sgid_index,
				.hop_limit = 64,
			},
			.is_global = 1,
			.port_num = 1,
		},
	};
	int mask = IBV_QP_STATE;

	if (o->type != IBV_QPT_UD)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	/* An XRC target is RC's responder, an initiator RC's requester. */
	if (o->type == IBV_QPT_RC || o->type == IBV_QPT_XRC_RECV)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	return ibv_modify_qp(qp, &a, mask);
}

/* RTR -> RTS; 0 or an errno value. */
static inline int dp_qp_rts(struct ibv_qp *qp, const struct dp_qp_opts *o,
			    uint32_t sq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = sq_psn,
		.timeout = o->timeout,
		.retry_cnt = o->retry_cnt,
		.rnr_retry = o->rnr_retry,
		.max_rd_atomic = o->rd_atomic,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (o->type == IBV_QPT_RC || o->type == IBV_QPT_XRC_SEND)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	return ibv_modify_qp(qp, &a, mask);
}

/* RESET -> RTS, connected to @dqpn (RC, UC) ; 0 or an errno value. */
static inline int dp_qp_connect(struct ibv_qp *qp, const struct dp_qp_opts *o,
				uint32_t dqpn, const union ibv_gid *dgid,
				int sgid_index, uint32_t sq_psn,
				uint32_t rq_psn, bool stay_rtr)
{
	int ret;

	ret = dp_qp_init(qp, o);
	if (!ret)
		ret = dp_qp_rtr(qp, o, dqpn, dgid, sgid_index, rq_psn);
	if (!ret && !stay_rtr)
		ret = dp_qp_rts(qp, o, sq_psn);
	return ret;
}

/* The state ibv_query_qp() reports, or -1. */
static inline int dp_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

static inline int dp_qp_modify_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/**
 * struct dp_pair - a QP on each side of a struct dp_env, connected
 *	(RC, UC) or in RTS with an AH towards the other (UD)
 * @qp: side 0 and side 1
 * @ah: UD: the AH of each side towards the other
 * @o: what they were made with
 */
struct dp_pair {
	struct ibv_qp *qp[2];
	struct ibv_ah *ah[2];
	struct dp_qp_opts o;
};

static inline struct ibv_ah *dp_ah(struct ibv_pd *pd, const union ibv_gid *dgid,
				   int sgid_index)
{
	struct ibv_ah_attr a = {
		.grh = {
			.dgid = *dgid,
			.sgid_index = sgid_index,
			.hop_limit = 64,
		},
		.is_global = 1,
		.port_num = 1,
	};

	return ibv_create_ah(pd, &a);
}

/*
 * A QP on each side, made with @o0 and @o1 (which may differ in their
 * queues, SRQ, access flags and timers; not in type), connected.
 */
static inline void dp_pair_open2(struct __test_metadata *_metadata,
				 struct dp_env *env,
				 const struct dp_qp_opts *o0,
				 const struct dp_qp_opts *o1,
				 struct dp_pair *p)
{
	const struct dp_qp_opts *o[2] = { o0, o1 };
	uint32_t psn[2] = { o0->psn & 0xffffff,
			    (o0->psn ^ 0x5a5a5a) & 0xffffff };
	int i;

	memset(p, 0, sizeof(*p));
	p->o = *o0;
	for (i = 0; i < 2; i++) {
		p->qp[i] = dp_qp_create(env->pd[i], env->scq[i], env->rcq[i],
					o[i]);
		ASSERT_NE(NULL, p->qp[i]) TH_LOG("create QP: %s",
						 strerror(errno));
	}
	for (i = 0; i < 2; i++) {
		if (o[i]->type == IBV_QPT_UD) {
			ASSERT_EQ(0, dp_qp_init(p->qp[i], o[i]));
			ASSERT_EQ(0, dp_qp_rtr(p->qp[i], o[i], 0, &env->gid,
					       env->gid_index, 0));
			ASSERT_EQ(0, dp_qp_rts(p->qp[i], o[i], psn[i]));
			p->ah[i] = dp_ah(env->pd[i], &env->gid,
					 env->gid_index);
			ASSERT_NE(NULL, p->ah[i]);
		} else {
			ASSERT_EQ(0, dp_qp_connect(p->qp[i], o[i],
						   p->qp[!i]->qp_num,
						   &env->gid, env->gid_index,
						   psn[i], psn[!i],
						   i == 1 && o[i]->stay_rtr));
		}
	}
}

static inline void dp_pair_open(struct __test_metadata *_metadata,
				struct dp_env *env,
				const struct dp_qp_opts *o, struct dp_pair *p)
{
	dp_pair_open2(_metadata, env, o, o, p);
}

static inline void dp_pair_close(struct __test_metadata *_metadata,
				 struct dp_pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (p->ah[i])
			EXPECT_EQ(0, ibv_destroy_ah(p->ah[i]));
		if (p->qp[i])
			EXPECT_EQ(0, ibv_destroy_qp(p->qp[i]));
	}
	memset(p, 0, sizeof(*p));
}

/* ---- posting ------------------------------------------------------------ */

/**
 * struct dp_wr - one send work request, filled in by the caller
 * @op: the opcode
 * @flags: send flags
 * @wr_id: its wr_id
 * @sgl: local pieces (or NULL and @n 0)
 * @raddr, @rkey: RDMA and atomic target
 * @imm: immediate data, host order (sent in network order)
 * @compare_add, @swap: atomic operands
 * @ah, @rqpn, @qkey: UD destination
 */
struct dp_wr {
	enum ibv_wr_opcode op;
	unsigned int flags;
	uint64_t wr_id;
	const struct dp_sgl *sgl;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t imm;
	uint64_t compare_add;
	uint64_t swap;
	struct ibv_ah *ah;
	uint32_t rqpn;
	uint32_t qkey;
};

static inline void dp_wr_build(const struct dp_wr *w, struct ibv_send_wr *wr,
			       struct ibv_sge *sge)
{
	int i, n = w->sgl ? w->sgl->n : 0;

	memset(wr, 0, sizeof(*wr));
	for (i = 0; i < n; i++)
		sge[i] = w->sgl->sge[i];
	wr->wr_id = w->wr_id;
	wr->sg_list = n ? sge : NULL;
	wr->num_sge = n;
	wr->opcode = w->op;
	wr->send_flags = w->flags;
	wr->imm_data = htonl(w->imm);
	switch (w->op) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wr->wr.atomic.remote_addr = w->raddr;
		wr->wr.atomic.rkey = w->rkey;
		wr->wr.atomic.compare_add = w->compare_add;
		wr->wr.atomic.swap = w->swap;
		break;
	default:
		if (w->ah) {
			wr->wr.ud.ah = w->ah;
			wr->wr.ud.remote_qpn = w->rqpn;
			wr->wr.ud.remote_qkey = w->qkey;
		} else {
			wr->wr.rdma.remote_addr = w->raddr;
			wr->wr.rdma.rkey = w->rkey;
		}
	}
}

/* Post one send work request; 0 or an errno value. */
static inline int dp_post(struct ibv_qp *qp, const struct dp_wr *w)
{
	struct ibv_sge sge[DP_MAX_SGE];
	struct ibv_send_wr wr, *bad = NULL;

	dp_wr_build(w, &wr, sge);
	return ibv_post_send(qp, &wr, &bad);
}

/* Post one receive of the pieces of @s (NULL: no SGE); 0 or an errno. */
static inline int dp_post_recv(struct ibv_qp *qp, const struct dp_sgl *s,
			       uint64_t wr_id)
{
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = s ? (struct ibv_sge *)s->sge : NULL,
		.num_sge = s ? s->n : 0,
	}, *bad = NULL;

	return ibv_post_recv(qp, &wr, &bad);
}

static inline int dp_post_srq_recv(struct ibv_srq *srq,
				   const struct dp_sgl *s, uint64_t wr_id)
{
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = s ? (struct ibv_sge *)s->sge : NULL,
		.num_sge = s ? s->n : 0,
	}, *bad = NULL;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

/* ---- polling ----------------------------------------------------------- */

/*
 * Poll @cq until @n completions are in @wc or @ms milliseconds have
 * passed; how many came (a negative value if ibv_poll_cq() failed).
 */
static inline int dp_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc, int ms)
{
	long end = dp_now_ms() + ms;
	int got = 0, idle = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (got == n)
			break;
		if (r) {
			idle = 0;
			continue;
		}
		if (dp_now_ms() > end)
			break;
		/* Spin a little, then leave the CPU to the kernel's workers. */
		if (++idle > 64)
			usleep(100);
		else
			sched_yield();
	}
	return got;
}

/* Completions that arrive on @cq within @ms milliseconds (none wanted). */
static inline int dp_poll_quiet(struct ibv_cq *cq, int ms, struct ibv_wc *wc)
{
	return dp_poll(cq, 1, wc, ms);
}

#define DP_WC_FMT "wr_id %llu status %d (%s) opcode %d byte_len %u"
#define DP_WC_ARGS(wc) (unsigned long long)(wc)->wr_id, (wc)->status, \
	ibv_wc_status_str((wc)->status), (wc)->opcode, (wc)->byte_len

/* Exactly one completion on @cq within the deadline. */
#define ASSERT_POLL1(cq, wc) \
	ASSERT_EQ(1, dp_poll(cq, 1, wc, DP_TIMEOUT_MS)) \
		TH_LOG("no completion within %d ms", DP_TIMEOUT_MS)

/* Nothing on @cq for @ms milliseconds. */
#define ASSERT_QUIET_MS(cq, ms) do {					\
	struct ibv_wc __wc;						\
	ASSERT_EQ(0, dp_poll_quiet(cq, ms, &__wc))			\
		TH_LOG("unexpected completion: " DP_WC_FMT,		\
		       DP_WC_ARGS(&__wc));				\
} while (0)

/* Nothing on @cq for DP_QUIET_MS. */
#define ASSERT_QUIET(cq) ASSERT_QUIET_MS(cq, DP_QUIET_MS)

/* A completion's status, wr_id, and (when successful) opcode. */
#define ASSERT_WC(wc, _id, _st, _op) do {				\
	ASSERT_EQ((int)(_st), (int)(wc)->status)			\
		TH_LOG("want %s: " DP_WC_FMT,				\
		       ibv_wc_status_str(_st), DP_WC_ARGS(wc));		\
	ASSERT_EQ((uint64_t)(_id), (wc)->wr_id)				\
		TH_LOG(DP_WC_FMT, DP_WC_ARGS(wc));			\
	if ((_st) == IBV_WC_SUCCESS)					\
		ASSERT_EQ((int)(_op), (int)(wc)->opcode)		\
			TH_LOG(DP_WC_FMT, DP_WC_ARGS(wc));		\
} while (0)

/* ---- asynchronous events ---------------------------------------------- */

/*
 * Wait up to @ms for an asynchronous event of @type on @ctx; events of
 * other types are acknowledged and skipped. 0 with the event in @ev
 * (acknowledged: do not use @ev's element beyond comparing it), or
 * -ETIMEDOUT.
 */
static inline int dp_wait_async(struct ibv_context *ctx,
				enum ibv_event_type type, int ms,
				struct ibv_async_event *ev)
{
	long end = dp_now_ms() + ms;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

	for (;;) {
		long left = end - dp_now_ms();

		if (left < 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left > 50 ? 50 : (int)left) != 1)
			continue;
		if (ibv_get_async_event(ctx, ev))
			return -errno;
		ibv_ack_async_event(ev);
		if (ev->event_type == type)
			return 0;
	}
}

/* Read every event waiting on @ctx; how many of @type were among them. */
static inline int dp_drain_async(struct ibv_context *ctx,
				 enum ibv_event_type type, void *element)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int n = 0;

	while (poll(&pfd, 1, 0) == 1) {
		if (ibv_get_async_event(ctx, &ev))
			break;
		if (ev.event_type == type &&
		    (!element || ev.element.qp == element))
			n++;
		ibv_ack_async_event(&ev);
	}
	return n;
}

/* ---- resources ---------------------------------------------------------- */

/* Does the device account no object at all (every context's gone)? */
static inline bool dp_res_empty(const struct rnic_res_info *r)
{
	int k;

	for (k = 0; k < RNIC_RES_NR_KINDS; k++)
		if (r->counts[k])
			return false;
	return true;
}

#endif /* RNIC_DP_TEST_H */
