// SPDX-License-Identifier: GPL-2.0
/*
 * Isolation between processes and users: a second process (and, in the
 * second test, a second user: uid 65534 once its context is set up) is
 * connected over RC QPs to a first process that registered 64 MRs, one
 * page each. The first MR's key is given to it (and must work); it then
 * guesses keys for the other 63 with RDMA WRITE and READ:
 *   random keys; the given key with one bit flipped; the given key's
 *   random part with another MR's index; random keys with another MR's
 *   index; keys of MRs deregistered before; the lkeys of the MRs (used as
 *   rkeys); the given key at an address outside its MR.
 * Every guess must complete with IBV_WC_REM_ACCESS_ERR, no page of the
 * first process may change, and no byte of them may reach the guesser.
 * An RC access error takes both QPs to ERR, so both sides reset and
 * reconnect their 32 QPs after every batch of 32 guesses.
 *
 * An rkey is the MR's index (17 bits) and 15 random bits: a guess that
 * happens to be a live key of the first process is a right key, not a
 * flaw of the check, and is skipped (counted) rather than sent.
 *
 * Wrong PD (lkey and rkey), another context's keys and handles are
 * covered by dp_errors (acc.*_other_pd, *_other_context,
 * err.local_protection) and by the handles_are_per_context tests of
 * mr, qp, cq and srq.
 *
 * RNIC_ISOLATION_GUESSES sets the guesses per test (default 2048).
 */
#include <sys/socket.h>

#include "rnic_dp_test.h"

#define DEV "t_iso"

#define NMR	64
#define NSTALE	16
#define NQP	32
#define PAGE	4096
#define IDX_BITS 17
#define IDX_MASK ((1u << IDX_BITS) - 1)

/* What the first process tells the guesser. */
struct victim_info {
	uint64_t base;			/* page i is MR i */
	uint32_t key0;			/* the rkey of MR 0, given away */
	uint32_t stale[NSTALE];		/* rkeys of deregistered MRs */
	uint32_t lkeys[NMR];
	uint32_t live[NMR];		/* only to skip right guesses */
	uint32_t qpn[NQP];
};

/* What the guesser found. */
struct verdict {
	uint32_t sent;
	uint32_t skipped;		/* guesses that were a live key */
	uint32_t granted;		/* completed successfully: breaches */
	uint32_t other;			/* neither success nor REM_ACCESS_ERR */
	uint32_t leaked;		/* READ results not left untouched */
	uint32_t key0_ok;		/* the given key worked */
	int status;			/* last unexpected WC status */
};

static bool is_live(const struct victim_info *vi, uint32_t key)
{
	int i;

	for (i = 0; i < NMR; i++)
		if (vi->live[i] == key)
			return true;
	return false;
}

/* Guess @n: a key and the page (of the first process) it is tried on. */
static void guess(const struct victim_info *vi, uint32_t n, uint64_t *rnd,
		  uint32_t *key, uint32_t *page)
{
	uint32_t r = dp_rand(rnd), other = 1 + r % (NMR - 1);
	uint32_t idx0 = vi->key0 & IDX_MASK;

	*page = other;
	switch (n % 7) {
	case 0:		/* anything */
		*key = dp_rand(rnd);
		break;
	case 1:		/* the given key, one bit off, on its own page */
		*key = vi->key0 ^ (1u << (n / 7 % 32));
		*page = 0;
		break;
	case 2:		/* the given key's random part, the next MRs' index */
		*key = (vi->key0 & ~IDX_MASK) | ((idx0 + other) & IDX_MASK);
		break;
	case 3:		/* any random part with the next MRs' index */
		*key = (dp_rand(rnd) & ~IDX_MASK) | ((idx0 + other) & IDX_MASK);
		break;
	case 4:		/* a key that was valid once */
		*key = vi->stale[n / 7 % NSTALE];
		break;
	case 5:		/* an lkey */
		*page = n / 7 % NMR;
		*key = vi->lkeys[*page];
		break;
	default:	/* the given key, outside its MR */
		*key = vi->key0;
		break;
	}
}

/* Side of a test: a context with NQP RC QPs on one CQ. */
struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[NQP];
	uint8_t *mem;
	size_t size;
};

static int side_open(struct side *s, size_t size)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	int i;

	memset(s, 0, sizeof(*s));
	s->ctx = rnic_ibv_open(DEV);
	s->pd = s->ctx ? ibv_alloc_pd(s->ctx) : NULL;
	s->cq = s->pd ? ibv_create_cq(s->ctx, 2 * NQP, NULL, NULL, 0) : NULL;
	if (!s->cq)
		return -1;
	o.max_send_wr = 2;
	o.max_recv_wr = 1;
	for (i = 0; i < NQP; i++) {
		s->qp[i] = dp_qp_create(s->pd, s->cq, s->cq, &o);
		if (!s->qp[i])
			return -1;
	}
	s->size = size;
	s->mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->mem == MAP_FAILED)
		return -1;
	dp_fill(s->mem, size, 0x150, 0);
	return 0;
}

static int side_close(struct side *s)
{
	int i, ret = 0;

	for (i = 0; i < NQP && !ret; i++)
		ret = ibv_destroy_qp(s->qp[i]);
	ret = ret ?: ibv_destroy_cq(s->cq);
	ret = ret ?: ibv_dealloc_pd(s->pd);
	ret = ret ?: ibv_close_device(s->ctx);
	munmap(s->mem, s->size);
	return ret;
}

/* (Re)connect every QP of @s to @peer's; 0 or an errno value. */
static int side_connect(struct side *s, const uint32_t *peer,
			const union ibv_gid *gid)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	int i, ret = 0;

	o.retry_cnt = 1;
	for (i = 0; i < NQP && !ret; i++) {
		ret = dp_qp_modify_state(s->qp[i], IBV_QPS_RESET);
		if (!ret)
			ret = dp_qp_connect(s->qp[i], &o, peer[i], gid, 0,
					    0x100, 0x100, false);
	}
	return ret;
}

/* Exactly @len bytes over the control socket; 0 or -1. */
static int put(int sk, const void *p, size_t len)
{
	return write(sk, p, len) == (ssize_t)len ? 0 : -1;
}

static int get(int sk, void *p, size_t len)
{
	return recv(sk, p, len, MSG_WAITALL) == (ssize_t)len ? 0 : -1;
}

/*
 * The guesser: its own context, @guesses guesses in batches of NQP; its
 * verdict goes back on @sk. Exit status 0, or the step that failed.
 */
static void __attribute__((noreturn))
guesser(int sk, bool other_user, int guesses, const union ibv_gid *gid)
{
	struct verdict v = { 0 };
	struct victim_info vi;
	uint64_t rnd = dp_seed(0x150, other_user, 0);
	uint32_t qpn[NQP], n = 0, go;
	struct ibv_mr *mr;
	struct side s;
	int i;

	if (side_open(&s, NQP * PAGE))
		_exit(10);
	mr = ibv_reg_mr(s.pd, s.mem, s.size, DP_ACCESS_ALL);
	if (!mr)
		_exit(11);
	for (i = 0; i < NQP; i++)
		qpn[i] = s.qp[i]->qp_num;
	if (get(sk, &vi, sizeof(vi)) || put(sk, qpn, sizeof(qpn)))
		_exit(12);
	if (other_user && (setgid(65534) || setuid(65534)))
		_exit(13);
	while ((int)v.sent < guesses) {
		uint32_t reads = 0;
		struct ibv_wc wc[NQP];
		int posted = 0, got;

		go = 1;
		if (side_connect(&s, vi.qpn, gid) || put(sk, &go, 4) ||
		    get(sk, &go, 4))	/* both sides in RTS */
			_exit(14);
		for (i = 0; i < NQP && (int)v.sent < guesses; i++, n++) {
			struct dp_sgl sl;
			struct dp_wr w = { .wr_id = i, .sgl = &sl };
			uint32_t page;

			if (n == 0) {	/* the given key, where it belongs */
				w.rkey = vi.key0;
				page = 0;
			} else {
				guess(&vi, n, &rnd, &w.rkey, &page);
				/* (the given key is tried out of its MR) */
				if (w.rkey != vi.key0 &&
				    is_live(&vi, w.rkey)) {
					v.skipped++;
					continue;
				}
			}
			w.op = n % 2 ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
			w.raddr = vi.base + page * PAGE + dp_rand(&rnd) % 2048;
			dp_sgl_one(&(struct dp_buf){ .mem = s.mem, .mr = mr },
				   i * PAGE + 64, 1 + dp_rand(&rnd) % 1024, &sl);
			if (w.op == IBV_WR_RDMA_READ)
				reads |= 1u << i;
			if (dp_post(s.qp[i], &w))
				_exit(15);
			posted++;
			if (n)
				v.sent++;
		}
		got = dp_poll(s.cq, posted, wc, DP_TIMEOUT_MS);
		if (got != posted)
			_exit(16);
		for (i = 0; i < got; i++) {
			uint32_t q = wc[i].wr_id;

			if (n <= NQP && q == 0 && wc[i].status ==
			    IBV_WC_SUCCESS) {
				v.key0_ok = 1;
				continue;
			}
			if (wc[i].status == IBV_WC_SUCCESS)
				v.granted++;
			else if (wc[i].status != IBV_WC_REM_ACCESS_ERR) {
				v.other++;
				v.status = wc[i].status;
			}
			if ((reads & (1u << q)) &&
			    dp_check(s.mem + q * PAGE, PAGE, 0x150,
				     q * PAGE) >= 0) {
				v.leaked++;
				dp_fill(s.mem + q * PAGE, PAGE, 0x150,
					q * PAGE);
			}
		}
	}
	go = 0;
	if (put(sk, &go, 4) || put(sk, &v, sizeof(v)))
		_exit(17);
	_exit(0);
}

FIXTURE(iso) {
	struct rnic_genl *g;
};

FIXTURE_SETUP(iso)
{
	rnic_fixture_setup(_metadata, &self->g, NULL, DEV, NULL);
}

FIXTURE_TEARDOWN(iso)
{
	rnic_fixture_teardown(_metadata, self->g, NULL);
}

static void guess_keys(struct __test_metadata *_metadata, bool other_user)
{
	int guesses = dp_env_int("RNIC_ISOLATION_GUESSES", 2048);
	struct ibv_mr *mrs[NMR], *stale;
	struct victim_info vi = { 0 };
	struct verdict v;
	union ibv_gid gid;
	struct side s;
	int sk[2], status, i;
	uint32_t go;
	pid_t pid;

	ASSERT_EQ(0, side_open(&s, NMR * PAGE));
	ASSERT_EQ(0, ibv_query_gid(s.ctx, 1, 0, &gid));
	for (i = 0; i < NSTALE; i++) {
		stale = ibv_reg_mr(s.pd, s.mem, PAGE, DP_ACCESS_ALL);
		ASSERT_NE(NULL, stale);
		vi.stale[i] = stale->rkey;
		ASSERT_EQ(0, ibv_dereg_mr(stale));
	}
	for (i = 0; i < NMR; i++) {
		mrs[i] = ibv_reg_mr(s.pd, s.mem + i * PAGE, PAGE,
				    DP_ACCESS_ALL);
		ASSERT_NE(NULL, mrs[i]);
		vi.lkeys[i] = mrs[i]->lkey;
		vi.live[i] = mrs[i]->rkey;
	}
	for (i = 0; i < NQP; i++)
		vi.qpn[i] = s.qp[i]->qp_num;
	vi.base = (uintptr_t)s.mem;
	vi.key0 = mrs[0]->rkey;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sk));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(sk[0]);
		guesser(sk[1], other_user, guesses, &gid);
	}
	close(sk[1]);
	{
		uint32_t qpn[NQP];

		ASSERT_EQ(0, put(sk[0], &vi, sizeof(vi)));
		ASSERT_EQ(0, get(sk[0], qpn, sizeof(qpn)));
		/* a batch: connect, then wait for the guesser's next one */
		for (;;) {
			ASSERT_EQ(0, get(sk[0], &go, 4));
			if (!go)
				break;
			ASSERT_EQ(0, side_connect(&s, qpn, &gid));
			ASSERT_EQ(0, put(sk[0], &go, 4));
			dp_drain_async(s.ctx, IBV_EVENT_QP_ACCESS_ERR, NULL);
		}
	}
	ASSERT_EQ(0, get(sk[0], &v, sizeof(v)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	EXPECT_EQ(1, v.key0_ok);
	EXPECT_EQ(guesses, (int)v.sent);
	EXPECT_EQ(0, v.granted);
	EXPECT_EQ(0, v.other) TH_LOG("last status %d", v.status);
	EXPECT_EQ(0, v.leaked);
	/* pages 1 .. NMR - 1 untouched (page 0 took the given key's WRITE) */
	EXPECT_EQ(-1, dp_check(s.mem + PAGE, (NMR - 1) * PAGE, 0x150, PAGE));
	ksft_print_msg("%s: %u guesses sent, %u skipped (a live key), "
		       "%u granted\n", other_user ? "uid 65534" : "same uid",
		       v.sent, v.skipped, v.granted);
	fflush(stdout);	/* the harness ends the test with _exit() */
	for (i = 0; i < NMR; i++)
		EXPECT_EQ(0, ibv_dereg_mr(mrs[i]));
	ASSERT_EQ(0, side_close(&s));
}

TEST_F_TIMEOUT(iso, other_process_guesses_keys, 600)
{
	guess_keys(_metadata, false);
}

TEST_F_TIMEOUT(iso, other_user_guesses_keys, 600)
{
	guess_keys(_metadata, true);
}

TEST_HARNESS_MAIN
