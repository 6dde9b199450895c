// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: a structure-aware fuzzer of the rnic char device ABI.
 *
 * Several processes with several threads each ("workers") issue random
 * sequences of every rnic ioctl with random, boundary and malformed fields,
 * bad handles and bad pointers, map and unmap rings, fork, close contexts
 * under running ioctls, and corrupt every user-writable ring field while a
 * connected RC pair and a UD pair carry traffic (among them, an SQ
 * producer index moved back over entries the kernel fetched).
 *
 * Determinism: a worker's work is cut into chunks of FZ_CHUNK_OPS
 * operations. Every chunk starts from fresh contexts and ends by closing
 * them, and operation i of chunk c of worker w draws its randomness from
 * (seed, w, c, i) only, so one chunk can be replayed alone
 * (RNIC_FUZZ_REPLAY=seed:worker:chunk) and shrunk by dropping operations.
 * Each chunk writes a marker line to /dev/kmsg so that a kernel warning
 * in the log points at the chunks running when it happened.
 *
 * Environment:
 *   RNIC_FUZZ_SEED     seed (default FZ_DEFAULT_SEED)
 *   RNIC_FUZZ_ITERS    operations (ioctls and ring corruptions) across all
 *                      workers (default FZ_DEFAULT_ITERS, the short pass)
 *   RNIC_FUZZ_PROCS    processes (default 2)
 *   RNIC_FUZZ_THREADS  workers per process (default 2)
 *   RNIC_FUZZ_REPLAY   seed:worker:chunk: run that chunk alone and print
 *                      the shortest operation list that still fails
 *   RNIC_FUZZ_TRACE    print every operation and ioctl result
 *   RNIC_FUZZ_INJECT   chunk:op: report a failure at that operation of
 *                      every worker (checks the reporting and shrinking)
 *
 * Failures checked by the fuzzer itself: an errno outside the ABI's error
 * contract, a worker that crashes or hangs, a kernel log line of the kinds
 * tools/dev/vm/run rejects or any other stack dump (allocation failures too),
 * resource counts (netlink RES_GET) not back to zero or pinned memory not
 * returned at the end. Output is TAP: the run, then a check of the
 * failure detection and shrinking on an injected failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
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

#include <infiniband/verbs.h>
#include <rdma/rnic-abi.h>

#include "rnic_fuzz.h"
#include "rnic_genl.h"
#include "rnic_proc.h"

#define FZ_DEV			"fuzz0"
#define FZ_DEFAULT_SEED		0x5eed
#define FZ_DEFAULT_ITERS	20000
#define FZ_CHUNK_OPS		256
#define FZ_POOL			48
#define FZ_RINGS		16
#define FZ_BUF_SIZE		(4 * 4096)
#define FZ_FLAP_PAGES		4
/* A worker that makes no progress for this long has hung. */
#define FZ_HANG_S		120
/* The rnic ioctls (fz_cmds[]). */
#define FZ_NR_CMDS		32

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * RNIC_FUZZ_INJECT=chunk:op: pretend that operation fails (to check the
 * failure reporting and the shrinking).
 */
static unsigned int fz_inject_chunk;
static int fz_inject_op = -1;

/* ---- randomness -------------------------------------------------------- */

static uint64_t fz_rand64(uint64_t *s)
{
	return (uint64_t)fuzz_rand(s) << 32 | fuzz_rand(s);
}

static const uint32_t fz_bounds32[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 65, 127, 128, 255, 256,
	511, 512, 513, 1023, 1024, 4095, 4096, 4097, 0x7fff, 0x8000, 0xffff,
	0x10000, 0xffffff, 0x1000000, 0x7fffffff, 0x80000000, 0xfffffffe,
	0xffffffff,
};

/* A 32-bit value from the boundary list, or near it, or random. */
static uint32_t fz_bound(uint64_t *s)
{
	uint32_t v = fz_bounds32[fuzz_rand(s) % ARRAY_SIZE(fz_bounds32)];

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

/* ---- what a worker knows ---------------------------------------------- */

enum fz_kind { FZ_PD, FZ_MR, FZ_CHANNEL, FZ_CQ, FZ_QP, FZ_SRQ, FZ_AH,
	       FZ_MW, FZ_XRCD, FZ_NR_KINDS };

/**
 * struct fz_obj - a handle the worker got from a create ioctl
 * @kind: what it names
 * @ctx: index of the context it belongs to
 * @handle: the handle
 * @dead: destroyed (kept to try it again)
 * @used: the slot is in use
 */
struct fz_obj {
	uint8_t kind;
	uint8_t ctx;
	bool dead;
	bool used;
	uint32_t handle;
};

/**
 * struct fz_ring - a mapped ring region
 * @base: the mapping, NULL if not mapped
 * @size: its size
 * @info: where things are in it
 * @flags_off: offset of the flags or CQ arm word, 0 for none
 * @qp: QP handle to kick after writing (0 for a CQ), @ctx its context
 * @recv: entries are receive WQEs
 */
struct fz_ring {
	uint8_t *base;
	size_t size;
	struct rnic_ring_info info;
	uint32_t flags_off;
	uint32_t qp;
	int ctx;
	bool recv;
};

/**
 * struct fz_qp - one QP of the traffic pairs, driven through its rings
 * @handle: handle, @qpn: QP number, @type: RNIC_QPT_*
 * @sq: send ring, @rq: receive ring (index into worker->rings, -1: none)
 * @cap: granted sizes
 * @ah: UD: address handle of the peer
 */
struct fz_qp {
	uint32_t handle;
	uint32_t qpn;
	uint32_t type;
	int sq, rq;
	struct rnic_qp_cap cap;
	uint32_t ah;
};

/**
 * struct fz_side - one context of a worker with its traffic objects
 * @fd: the context's file descriptor, -1 when closed
 * @pd: PD of the traffic objects
 * @cq: CQ of the traffic QPs (index into worker->rings)
 * @cq_handle: its handle
 * @buf: registered buffer, @mr_handle its MR, @lkey/@rkey its keys
 * @rc, @ud: the RC and UD QPs
 * @srq: ring of the SRQ the RC QP receives from, -1: it has an RQ
 * @srq_handle: its handle
 */
struct fz_side {
	int fd;
	uint32_t pd;
	int srq;
	uint32_t srq_handle;
	int cq;
	uint32_t cq_handle;
	uint8_t *buf;
	uint32_t mr_handle, lkey, rkey;
	struct fz_qp rc, ud;
};

struct fz_shared;

/**
 * struct fz_stats - counts of one worker, printed at the end
 * @ok: ioctls that succeeded, @err: that failed (as allowed)
 * @created: objects created by fuzzed ioctls
 * @posted: work requests posted, @corrupted: ring words corrupted
 * @cqe_ok: successful completions seen, @cqe_err: failed ones
 * @chunks: chunks run
 * @verbs_pairs: librnic pairs that carried their messages
 * @cmd_ok: successes per ioctl (index of fz_cmds), @cmd_err: failures
 */
struct fz_stats {
	unsigned long ok, err, created, posted, corrupted, cqe_ok, cqe_err;
	unsigned long chunks, verbs_pairs;
	unsigned long cmd_ok[FZ_NR_CMDS], cmd_err[FZ_NR_CMDS];

};

/**
 * struct fz_worker - one fuzzing thread
 * @id: worker number, @seed: the run's seed
 * @chunk: current chunk, @op: current operation in it
 * @sh: what the process's workers share
 * @side: the two contexts (handles of one are "other context" to the other)
 * @pool: handles created by fuzzed ioctls
 * @rings: mapped rings (traffic and fuzzed objects)
 * @scratch: two pages, the second PROT_NONE: structs that end at the page
 *	boundary, sizes that run into the unmapped page
 * @ro: a read-only page
 * @gid: the loopback GID, @gid_index its index
 * @tgt_qpn: number of the last XRC TGT QP a fuzzed CREATE_QP made, for
 *	OPEN_QP
 * @dev: device limits
 * @mask: operations to run (replay shrinking), NULL: all
 * @fail: first failure of this worker, "" if none
 * @verbose: print every operation (replay)
 * @kfd: replay: the kernel log, read after every operation, else -1
 * @st: what happened, for the summary
 */
struct fz_worker {
	int id;
	uint64_t seed;
	unsigned int chunk, op;
	struct fz_shared *sh;
	struct fz_side side[2];
	struct fz_obj pool[FZ_POOL];
	struct fz_ring rings[FZ_RINGS];
	uint8_t *scratch;
	uint8_t *ro;
	uint8_t gid[16];
	uint32_t gid_index;
	uint32_t tgt_qpn;
	struct rnic_query_device dev;
	const bool *mask;
	char fail[256];
	bool verbose;
	int kfd;
	struct fz_stats st;
};

/**
 * struct fz_shared - per process
 * @flap: FZ_FLAP_PAGES pages that a thread maps and unmaps all the time
 * @stop: ask the flapper to end
 */
struct fz_shared {
	uint8_t *flap;
	atomic_bool stop;
};

static const char *fz_uverbs_path(void)
{
	static char path[PATH_MAX];
	char name[64] = "";
	ssize_t n;
	int fd;

	if (path[0])
		return path;
	fd = open("/sys/class/rnic/" FZ_DEV "/uverbs", O_RDONLY);
	if (fd < 0)
		return NULL;
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
	snprintf(path, sizeof(path), "/dev/infiniband/%s", name);
	return path;
}

static void fz_failf(struct fz_worker *w, const char *fmt, ...)
{
	va_list ap;

	if (w->fail[0])
		return;
	va_start(ap, fmt);
	vsnprintf(w->fail, sizeof(w->fail), fmt, ap);
	va_end(ap);
}

static void fz_log(struct fz_worker *w, const char *fmt, ...)
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

/* ---- ioctls and the error contract ----------------------------------- */

static const unsigned int fz_cmds[FZ_NR_CMDS] = {
	RNIC_IOCTL_QUERY_DEVICE, RNIC_IOCTL_QUERY_PORT, RNIC_IOCTL_QUERY_GID,
	RNIC_IOCTL_QUERY_PKEY, RNIC_IOCTL_ALLOC_PD, RNIC_IOCTL_DEALLOC_PD,
	RNIC_IOCTL_REG_MR, RNIC_IOCTL_DEREG_MR, RNIC_IOCTL_CREATE_ASYNC_FD,
	RNIC_IOCTL_CREATE_COMP_CHANNEL, RNIC_IOCTL_DESTROY_COMP_CHANNEL,
	RNIC_IOCTL_CREATE_CQ, RNIC_IOCTL_RESIZE_CQ, RNIC_IOCTL_DESTROY_CQ,
	RNIC_IOCTL_CREATE_QP, RNIC_IOCTL_MODIFY_QP, RNIC_IOCTL_QUERY_QP,
	RNIC_IOCTL_DESTROY_QP, RNIC_IOCTL_ATTACH_MCAST,
	RNIC_IOCTL_DETACH_MCAST, RNIC_IOCTL_KICK_SQ, RNIC_IOCTL_CREATE_SRQ,
	RNIC_IOCTL_MODIFY_SRQ, RNIC_IOCTL_QUERY_SRQ, RNIC_IOCTL_DESTROY_SRQ,
	RNIC_IOCTL_CREATE_AH, RNIC_IOCTL_DESTROY_AH, RNIC_IOCTL_ALLOC_MW,
	RNIC_IOCTL_DEALLOC_MW, RNIC_IOCTL_OPEN_XRCD, RNIC_IOCTL_CLOSE_XRCD,
	RNIC_IOCTL_OPEN_QP,
};

static const char *const fz_cmd_names[ARRAY_SIZE(fz_cmds)] = {
	"QUERY_DEVICE", "QUERY_PORT", "QUERY_GID", "QUERY_PKEY", "ALLOC_PD",
	"DEALLOC_PD", "REG_MR", "DEREG_MR", "CREATE_ASYNC_FD",
	"CREATE_COMP_CHANNEL", "DESTROY_COMP_CHANNEL", "CREATE_CQ",
	"RESIZE_CQ", "DESTROY_CQ", "CREATE_QP", "MODIFY_QP", "QUERY_QP",
	"DESTROY_QP", "ATTACH_MCAST", "DETACH_MCAST", "KICK_SQ", "CREATE_SRQ",
	"MODIFY_SRQ", "QUERY_SRQ", "DESTROY_SRQ", "CREATE_AH", "DESTROY_AH",
	"ALLOC_MW", "DEALLOC_MW", "OPEN_XRCD", "CLOSE_XRCD", "OPEN_QP",
};

/* The sizes of the structs, in the order of fz_cmds. */
static const size_t fz_cmd_sizes[] = {
	sizeof(struct rnic_query_device), sizeof(struct rnic_query_port),
	sizeof(struct rnic_query_gid), sizeof(struct rnic_query_pkey),
	sizeof(struct rnic_alloc_pd), sizeof(struct rnic_destroy),
	sizeof(struct rnic_reg_mr), sizeof(struct rnic_destroy),
	sizeof(struct rnic_create_async_fd),
	sizeof(struct rnic_create_comp_channel), sizeof(struct rnic_destroy),
	sizeof(struct rnic_create_cq), sizeof(struct rnic_resize_cq),
	sizeof(struct rnic_destroy_cq), sizeof(struct rnic_create_qp),
	sizeof(struct rnic_modify_qp), sizeof(struct rnic_query_qp),
	sizeof(struct rnic_destroy_qp), sizeof(struct rnic_attach_mcast),
	sizeof(struct rnic_attach_mcast), sizeof(struct rnic_kick_sq),
	sizeof(struct rnic_create_srq), sizeof(struct rnic_modify_srq),
	sizeof(struct rnic_query_srq), sizeof(struct rnic_destroy_srq),
	sizeof(struct rnic_create_ah), sizeof(struct rnic_destroy),
	sizeof(struct rnic_alloc_mw), sizeof(struct rnic_destroy),
	sizeof(struct rnic_open_xrcd), sizeof(struct rnic_destroy),
	sizeof(struct rnic_open_qp),
};

/*
 * Is @err one the ABI allows for rnic command @cmd (index, or -1 for an
 * unknown number)?
 */
static bool fz_errno_ok(int cmd, int err)
{
	switch (err) {
	case ENOTTY:
		return cmd < 0;
	case EINVAL: case E2BIG: case EFAULT: case ENOMEM: case EBUSY:
	case EOPNOTSUPP: case EPERM: case ENODEV: case EMFILE: case ENFILE:
	case EBADF:
		return true;
	case ENODATA:
		return fz_cmds[cmd] == RNIC_IOCTL_QUERY_GID;
	case EEXIST:
		return fz_cmds[cmd] == RNIC_IOCTL_CREATE_ASYNC_FD;
	case ENETUNREACH:
		return fz_cmds[cmd] == RNIC_IOCTL_CREATE_AH ||
		       fz_cmds[cmd] == RNIC_IOCTL_MODIFY_QP;
	default:
		return false;
	}
}

/*
 * Issue ioctl number @i of fz_cmds (or raw @num if @i < 0) and check the
 * errno; 0 or -errno.
 */
static int fz_ioctl(struct fz_worker *w, int fd, int i, unsigned long num,
		    void *arg)
{
	int ret, err;

	if (i >= 0)
		num = fz_cmds[i];
	ret = ioctl(fd, num, arg);
	err = ret ? errno : 0;
	if (ret)
		w->st.err++;
	else
		w->st.ok++;
	if (i >= 0 && ret)
		w->st.cmd_err[i]++;
	else if (i >= 0)
		w->st.cmd_ok[i]++;
	if (w->verbose)
		printf("#            -> %s\n", ret ? strerror(err) : "ok");
	if (ret && !fz_errno_ok(i, err))
		fz_failf(w, "ioctl %s (0x%lx) failed with errno %d (%s), not in the ABI's contract",
			 i >= 0 ? fz_cmd_names[i] : "unknown", num, err,
			 strerror(err));
	if (ret == 0 && i < 0)
		fz_failf(w, "unknown ioctl 0x%lx succeeded", num);
	return -err;
}

static int fz_cmd_index(unsigned long num)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fz_cmds); i++)
		if (fz_cmds[i] == num)
			return i;
	return -1;
}

/* ---- the handle pool ---------------------------------------------------- */

static void fz_pool_add(struct fz_worker *w, int kind, int ctx,
			uint32_t handle)
{
	unsigned int i, slot = FZ_POOL;

	for (i = 0; i < FZ_POOL; i++) {
		if (!w->pool[i].used) {
			slot = i;
			break;
		}
		if (w->pool[i].dead && slot == FZ_POOL)
			slot = i;
	}
	if (slot == FZ_POOL)
		slot = handle % FZ_POOL;	/* forget one: close frees it */
	w->st.created++;
	w->pool[slot] = (struct fz_obj){ .kind = kind, .ctx = ctx,
					 .handle = handle, .used = true };
}

/*
 * A handle for an argument of kind @kind in context @ctx: mostly a live one
 * of that kind (one the fuzzed ioctls created, or one of the traffic
 * pairs), else one of another kind or context, a dead one or junk.
 */
static uint32_t fz_handle(struct fz_worker *w, uint64_t *s, int kind, int ctx)
{
	unsigned int i, n = 0, pick, start = fuzz_rand(s) % FZ_POOL;
	uint32_t r = fuzz_rand(s) % 32;

	if (r < 26) {
		struct fz_side *sd = &w->side[ctx];
		uint32_t traffic[FZ_NR_KINDS] = {
			[FZ_PD] = sd->pd, [FZ_MR] = sd->mr_handle,
			[FZ_CQ] = sd->cq_handle, [FZ_SRQ] = sd->srq_handle,
			[FZ_AH] = sd->ud.ah,
			[FZ_QP] = fuzz_chance(s, 1, 2) ? sd->rc.handle :
						       sd->ud.handle,
		};

		for (i = 0; i < FZ_POOL; i++) {
			struct fz_obj *o = &w->pool[(start + i) % FZ_POOL];

			if (o->used && !o->dead && o->kind == kind &&
			    o->ctx == ctx)
				return o->handle;
		}
		/* none of the fuzzed ones: the traffic's, half of the time */
		if (kind != FZ_CHANNEL && fuzz_chance(s, 1, 2))
			return traffic[kind];
	}
	if (r < 30) {
		for (i = 0; i < FZ_POOL; i++)
			n += w->pool[i].used;
		if (n) {
			pick = fuzz_rand(s) % n;
			for (i = 0; i < FZ_POOL; i++)
				if (w->pool[i].used && !pick--)
					return w->pool[i].handle;
		}
	}
	if (r == 30) {
		/* one of the traffic objects, of any kind */
		struct fz_side *sd = &w->side[fuzz_rand(s) & 1];
		uint32_t h[] = { sd->pd, sd->cq_handle, sd->rc.handle,
				 sd->ud.handle, sd->ud.ah };

		return h[fuzz_rand(s) % ARRAY_SIZE(h)];
	}
	return fz_bound(s);
}

/* ---- rings ---------------------------------------------------------------- */

/* Map @info of context @ctx into a free ring slot; slot or -1. */
static int fz_ring_map(struct fz_worker *w, int ctx,
		       const struct rnic_ring_info *info, uint32_t flags_off,
		       uint32_t qp, bool recv)
{
	struct fz_ring *r = NULL;
	void *p;
	int i;

	if (!info->size || w->side[ctx].fd < 0)
		return -1;
	for (i = 0; i < FZ_RINGS; i++) {
		if (!w->rings[i].base) {
			r = &w->rings[i];
			break;
		}
	}
	if (!r)
		return -1;
	p = mmap(NULL, info->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 w->side[ctx].fd, info->offset);
	if (p == MAP_FAILED) {
		fz_failf(w, "mmap of a ring the kernel returned failed: %s",
			 strerror(errno));
		return -1;
	}
	*r = (struct fz_ring){ .base = p, .size = info->size, .info = *info,
			       .flags_off = flags_off, .qp = qp, .ctx = ctx,
			       .recv = recv };
	return i;
}

static void fz_ring_unmap(struct fz_worker *w, int i)
{
	if (i < 0 || !w->rings[i].base)
		return;
	munmap(w->rings[i].base, w->rings[i].size);
	memset(&w->rings[i], 0, sizeof(w->rings[i]));
}

static volatile uint32_t *fz_ring_word(struct fz_ring *r, uint32_t off)
{
	return (volatile uint32_t *)(r->base + off);
}

static uint8_t *fz_ring_entry(struct fz_ring *r, uint32_t idx)
{
	return r->base + r->info.entries_off +
	       (size_t)(idx & (r->info.entries - 1)) * r->info.entry_size;
}

/*
 * RNIC_IOCTL_RING_SQ, whose argument is the handle itself: half the time
 * for a plain kick, now and then with bits above 32 set (EINVAL).
 */
static void fz_ring_sq(struct fz_worker *w, uint64_t *s, int fd, uint32_t qp)
{
	unsigned long arg = qp;
	bool high = fuzz_chance(s, 1, 8);
	int err;

	if (high)
		arg |= (unsigned long)(1 + fuzz_rand(s) % 0xffff) << 32;
	err = ioctl(fd, RNIC_IOCTL_RING_SQ, arg) ? errno : 0;
	if (err)
		w->st.err++;
	else
		w->st.ok++;
	if (w->verbose)
		printf("#            RING_SQ 0x%lx -> %s\n", arg,
		       err ? strerror(err) : "ok");
	if ((err || high) && err != EINVAL && err != ENODEV)
		fz_failf(w, "RING_SQ 0x%lx: errno %d (%s), not EINVAL/ENODEV",
			 arg, err, strerror(err));
}

static void fz_kick(struct fz_worker *w, uint64_t *s, int ctx, uint32_t qp,
		    uint32_t flags)
{
	struct rnic_kick_sq k = { .size = sizeof(k), .flags = flags,
				  .qp_handle = qp };

	if (w->side[ctx].fd < 0)
		return;
	if (!flags && fuzz_chance(s, 1, 2))
		fz_ring_sq(w, s, w->side[ctx].fd, qp);
	else
		fz_ioctl(w, w->side[ctx].fd, fz_cmd_index(RNIC_IOCTL_KICK_SQ),
			 0, &k);
}

/* Consume whatever a CQ ring holds (userspace's side of polling). */
static void fz_cq_drain(struct fz_worker *w, int ring)
{
	uint32_t prod, cons, n;
	struct fz_ring *r;

	if (ring < 0 || !w->rings[ring].base)
		return;
	r = &w->rings[ring];
	prod = __atomic_load_n(fz_ring_word(r, r->info.producer_off),
			       __ATOMIC_ACQUIRE);
	cons = *fz_ring_word(r, r->info.consumer_off);
	for (n = 0; prod - cons - n && n < r->info.entries; n++) {
		struct rnic_cqe *cqe = (void *)fz_ring_entry(r, cons + n);

		if (cqe->status == RNIC_WC_SUCCESS)
			w->st.cqe_ok++;
		else
			w->st.cqe_err++;
	}
	__atomic_store_n(fz_ring_word(r, r->info.consumer_off), prod,
			 __ATOMIC_RELEASE);
}

/* Room for one more entry in a ring userspace produces into? */
static bool fz_ring_room(struct fz_ring *r)
{
	uint32_t prod = *fz_ring_word(r, r->info.producer_off);
	uint32_t cons = __atomic_load_n(fz_ring_word(r, r->info.consumer_off),
					__ATOMIC_ACQUIRE);

	return prod - cons < r->info.entries;
}

static void fz_ring_publish(struct fz_ring *r)
{
	uint32_t prod = *fz_ring_word(r, r->info.producer_off);

	__atomic_store_n(fz_ring_word(r, r->info.producer_off), prod + 1,
			 __ATOMIC_RELEASE);
}

/* ---- traffic pairs -------------------------------------------------------- */

static int fz_modify(struct fz_worker *w, int ctx, uint32_t qp, uint32_t mask,
		     const struct rnic_qp_attr *attr)
{
	struct rnic_modify_qp m = { .size = sizeof(m), .handle = qp,
				    .attr_mask = mask, .attr = *attr };

	return fz_ioctl(w, w->side[ctx].fd, fz_cmd_index(RNIC_IOCTL_MODIFY_QP),
			0, &m);
}

/* RESET -> INIT -> RTR -> RTS, connected to @peer (RC) */
static int fz_qp_connect(struct fz_worker *w, int ctx, struct fz_qp *qp,
			 const struct fz_qp *peer)
{
	struct rnic_qp_attr a = { .qp_state = RNIC_QPS_RESET };
	int ret;

	fz_modify(w, ctx, qp->handle, RNIC_QP_STATE, &a);
	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	if (qp->type == RNIC_QPT_UD) {
		a.qkey = 0x1234;
		ret = fz_modify(w, ctx, qp->handle, RNIC_QP_STATE |
				RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
				RNIC_QP_QKEY, &a);
		a.qp_state = RNIC_QPS_RTR;
		ret = ret ?: fz_modify(w, ctx, qp->handle, RNIC_QP_STATE, &a);
		a.qp_state = RNIC_QPS_RTS;
		return ret ?: fz_modify(w, ctx, qp->handle, RNIC_QP_STATE |
					RNIC_QP_SQ_PSN, &a);
	}
	a.qp_access_flags = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
			    RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	ret = fz_modify(w, ctx, qp->handle, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX |
			RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS, &a);
	a.qp_state = RNIC_QPS_RTR;
	memcpy(a.ah_attr.dgid, w->gid, 16);
	a.ah_attr.sgid_index = w->gid_index;
	a.ah_attr.hop_limit = 64;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.path_mtu = 3;			/* IBV_MTU_1024 */
	a.dest_qp_num = peer->qpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	ret = ret ?: fz_modify(w, ctx, qp->handle, RNIC_QP_STATE | RNIC_QP_AV |
			       RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN |
			       RNIC_QP_RQ_PSN | RNIC_QP_MAX_DEST_RD_ATOMIC |
			       RNIC_QP_MIN_RNR_TIMER, &a);
	a.qp_state = RNIC_QPS_RTS;
	a.timeout = 10;			/* about 4 ms: errors end quickly */
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.max_rd_atomic = 4;
	return ret ?: fz_modify(w, ctx, qp->handle, RNIC_QP_STATE |
				RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT |
				RNIC_QP_RNR_RETRY | RNIC_QP_SQ_PSN |
				RNIC_QP_MAX_QP_RD_ATOMIC, &a);
}

static int fz_qp_create(struct fz_worker *w, int ctx, uint32_t type,
			uint32_t flags, struct fz_qp *qp)
{
	struct fz_side *sd = &w->side[ctx];
	struct rnic_create_qp c = {
		.size = sizeof(c), .flags = flags, .pd_handle = sd->pd,
		.srq_handle = sd->srq_handle,
		.send_cq_handle = sd->cq_handle, .recv_cq_handle = sd->cq_handle,
		.qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};
	int ret;

	ret = fz_ioctl(w, sd->fd, fz_cmd_index(RNIC_IOCTL_CREATE_QP), 0, &c);
	if (ret)
		return ret;
	qp->handle = c.out_handle;
	qp->qpn = c.out_qp_num;
	qp->type = type;
	qp->cap = c.out_cap;
	qp->sq = fz_ring_map(w, ctx, &c.out_sq, c.out_sq_flags_off, qp->handle,
			     false);
	if (flags & RNIC_CREATE_QP_SRQ) {
		qp->rq = sd->srq;
		return qp->sq < 0 ? -ENOMEM : 0;
	}
	qp->rq = fz_ring_map(w, ctx, &c.out_rq, c.out_rq_flags_off, qp->handle,
			     true);
	return qp->sq < 0 || qp->rq < 0 ? -ENOMEM : 0;
}

/*
 * Both contexts, each with a PD, a CQ, a registered buffer, an RC QP
 * connected to the other side's and a UD QP with an AH to the other's.
 * Bits of @variant: side 0's and side 1's RC QP receive from an SRQ, the
 * send queues are watched by the polling thread.
 */
static int fz_traffic_setup(struct fz_worker *w, uint32_t variant)
{
	uint32_t qp_flags = variant & 4 ? RNIC_CREATE_QP_SQ_POLL : 0;
	int i, ret;

	for (i = 0; i < 2; i++) {
		struct fz_side *sd = &w->side[i];
		struct rnic_alloc_pd pd = { .size = sizeof(pd) };
		struct rnic_create_cq cq = { .size = sizeof(cq), .cqe = 256 };
		struct rnic_reg_mr mr = { .size = sizeof(mr) };

		ret = fz_ioctl(w, sd->fd, fz_cmd_index(RNIC_IOCTL_ALLOC_PD), 0,
			       &pd);
		if (ret)
			return ret;
		sd->pd = pd.out_handle;
		ret = fz_ioctl(w, sd->fd, fz_cmd_index(RNIC_IOCTL_CREATE_CQ), 0,
			       &cq);
		if (ret)
			return ret;
		sd->cq_handle = cq.out_handle;
		sd->cq = fz_ring_map(w, i, &cq.out_ring, cq.out_arm_off, 0,
				     false);
		sd->buf = mmap(NULL, FZ_BUF_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (sd->buf == MAP_FAILED) {
			sd->buf = NULL;
			return -ENOMEM;
		}
		memset(sd->buf, i, FZ_BUF_SIZE);
		mr.pd_handle = sd->pd;
		mr.access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
			    RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
		mr.addr = (uintptr_t)sd->buf;
		mr.iova = (uintptr_t)sd->buf;
		mr.length = FZ_BUF_SIZE;
		ret = fz_ioctl(w, sd->fd, fz_cmd_index(RNIC_IOCTL_REG_MR), 0,
			       &mr);
		if (ret)
			return ret;
		sd->mr_handle = mr.out_handle;
		sd->lkey = mr.out_lkey;
		sd->rkey = mr.out_rkey;
		if (variant & (1 << i)) {
			struct rnic_create_srq srq = {
				.size = sizeof(srq), .pd_handle = sd->pd,
				.max_wr = 32, .max_sge = 2, .srq_limit = 4,
			};

			ret = fz_ioctl(w, sd->fd,
				       fz_cmd_index(RNIC_IOCTL_CREATE_SRQ), 0,
				       &srq);
			if (ret)
				return ret;
			sd->srq_handle = srq.out_handle;
			sd->srq = fz_ring_map(w, i, &srq.out_ring, 0, 0, true);
		}
		ret = fz_qp_create(w, i, RNIC_QPT_RC, qp_flags |
				   (variant & (1 << i) ? RNIC_CREATE_QP_SRQ : 0),
				   &sd->rc);
		ret = ret ?: fz_qp_create(w, i, RNIC_QPT_UD, qp_flags, &sd->ud);
		if (ret)
			return ret;
	}
	for (i = 0; i < 2; i++) {
		struct fz_side *sd = &w->side[i];
		struct rnic_create_ah ah = { .size = sizeof(ah),
					     .pd_handle = sd->pd };

		memcpy(ah.attr.dgid, w->gid, 16);
		ah.attr.sgid_index = w->gid_index;
		ah.attr.hop_limit = 64;
		ah.attr.is_global = 1;
		ah.attr.port_num = 1;
		ret = fz_ioctl(w, sd->fd, fz_cmd_index(RNIC_IOCTL_CREATE_AH), 0,
			       &ah);
		if (ret)
			return ret;
		sd->ud.ah = ah.out_handle;
		ret = fz_qp_connect(w, i, &sd->rc, &w->side[!i].rc);
		ret = ret ?: fz_qp_connect(w, i, &sd->ud, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

/* A bind of a fuzzed window of side @ctx to a random piece of its buffer. */
static void fz_make_bind(struct fz_worker *w, uint64_t *s, int ctx,
			 struct rnic_send_wqe *wqe)
{
	struct fz_side *sd = &w->side[ctx];

	wqe->wr.bind.mw_handle = fz_handle(w, s, FZ_MW, ctx);
	wqe->wr.bind.rkey = fuzz_rand(s);
	wqe->wr.bind.mr_lkey = sd->lkey;
	wqe->wr.bind.access = fuzz_rand(s) & 0x3f;
	wqe->wr.bind.addr = (uintptr_t)sd->buf + fuzz_rand(s) % 8192;
	wqe->wr.bind.length = fuzz_rand(s) % 8192;
}

/* A valid send WQE on @qp of side @ctx into @e (entry_size bytes). */
static void fz_make_send(struct fz_worker *w, uint64_t *s, int ctx,
			 struct fz_qp *qp, uint8_t *e, size_t esize)
{
	struct fz_side *sd = &w->side[ctx], *peer = &w->side[!ctx];
	struct rnic_send_wqe *wqe = (struct rnic_send_wqe *)e;
	struct rnic_sge *sge = (struct rnic_sge *)(e + sizeof(*wqe));
	static const uint32_t rc_ops[] = {
		RNIC_WR_SEND, RNIC_WR_SEND_WITH_IMM, RNIC_WR_RDMA_WRITE,
		RNIC_WR_RDMA_WRITE_WITH_IMM, RNIC_WR_RDMA_READ,
		RNIC_WR_ATOMIC_CMP_AND_SWP, RNIC_WR_ATOMIC_FETCH_AND_ADD,
	};
	static const uint32_t mw_ops[] = {
		RNIC_WR_BIND_MW, RNIC_WR_LOCAL_INV, RNIC_WR_SEND_WITH_INV,
	};
	uint32_t len = fuzz_rand(s) % 2048;

	memset(e, 0, esize);
	wqe->wr_id = fz_rand64(s);
	/* unsignaled RC WQEs wait for a later ACK: rnic_req_ask() */
	wqe->send_flags = fuzz_chance(s, 3, 4) ? RNIC_SEND_SIGNALED : 0;
	/* an XRC SRQ number on a QP that is not XRC: refused, QP in error */
	if (fuzz_chance(s, 1, 64))
		wqe->remote_srqn = fuzz_rand(s);
	if (qp->type == RNIC_QPT_UD) {
		wqe->opcode = RNIC_WR_SEND;
		wqe->wr.ud.ah_handle = qp->ah;
		wqe->wr.ud.remote_qpn = peer->ud.qpn;
		wqe->wr.ud.remote_qkey = 0x1234;
		len %= 1024;
	} else if (fuzz_chance(s, 1, 16)) {
		/* windows: binds of fuzzed windows, invalidates of any key */
		wqe->opcode = mw_ops[fuzz_rand(s) % ARRAY_SIZE(mw_ops)];
		wqe->ex.invalidate_rkey = fuzz_chance(s, 1, 2) ? peer->rkey :
							      fuzz_rand(s);
		if (wqe->opcode == RNIC_WR_BIND_MW)
			fz_make_bind(w, s, ctx, wqe);
		if (wqe->opcode != RNIC_WR_SEND_WITH_INV)
			return;
	} else {
		wqe->opcode = rc_ops[fuzz_rand(s) % ARRAY_SIZE(rc_ops)];
		wqe->wr.rdma.remote_addr = (uintptr_t)peer->buf + 4096 +
					   fuzz_rand(s) % 1024;
		wqe->wr.rdma.rkey = peer->rkey;
	}
	if (wqe->opcode == RNIC_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD) {
		wqe->wr.atomic.remote_addr = (uintptr_t)peer->buf + 8192 +
					     8 * (fuzz_rand(s) % 64);
		wqe->wr.atomic.compare_add = fz_rand64(s);
		wqe->wr.atomic.swap = fz_rand64(s);
		wqe->wr.atomic.rkey = peer->rkey;
		len = 8;
	}
	if (wqe->opcode == RNIC_WR_SEND_WITH_IMM ||
	    wqe->opcode == RNIC_WR_RDMA_WRITE_WITH_IMM)
		wqe->ex.imm_data = fuzz_rand(s);
	if (len <= qp->cap.max_inline_data && wqe->opcode != RNIC_WR_RDMA_READ &&
	    len != 8 && fuzz_chance(s, 1, 3)) {
		wqe->send_flags |= RNIC_SEND_INLINE;
		wqe->inline_len = len;
		memset(e + sizeof(*wqe), 0x5a, len);
		return;
	}
	wqe->num_sge = 1;
	sge->addr = (uintptr_t)sd->buf + 12288 + fuzz_rand(s) % 1024;
	sge->length = len;
	sge->lkey = sd->lkey;
}

static void fz_make_recv(struct fz_worker *w, uint64_t *s, int ctx, uint8_t *e,
			 size_t esize)
{
	struct rnic_recv_wqe *wqe = (struct rnic_recv_wqe *)e;
	struct rnic_sge *sge = (struct rnic_sge *)(e + sizeof(*wqe));

	memset(e, 0, esize);
	wqe->wr_id = fz_rand64(s);
	wqe->num_sge = 1;
	sge->addr = (uintptr_t)w->side[ctx].buf + fuzz_rand(s) % 1024;
	sge->length = 2048 + 64;
	sge->lkey = w->side[ctx].lkey;
}

/*
 * Post a valid receive or send on a traffic QP, maybe corrupt one field of
 * it first, publish and kick.
 */
static void fz_op_post(struct fz_worker *w, uint64_t *s, bool corrupt)
{
	int ctx = fuzz_rand(s) & 1;
	struct fz_side *sd = &w->side[ctx];
	struct fz_qp *qp = fuzz_chance(s, 1, 2) ? &sd->rc : &sd->ud;
	bool recv = fuzz_chance(s, 1, 2);
	int ri = recv ? qp->rq : qp->sq;
	struct fz_ring *r;
	uint8_t *e;
	uint32_t off;

	fz_cq_drain(w, sd->cq);
	if (ri < 0 || !w->rings[ri].base || sd->fd < 0)
		return;
	r = &w->rings[ri];
	if (!fz_ring_room(r)) {
		fz_log(w, "post: ring full, kick");
		fz_kick(w, s, ctx, qp->handle, recv ? RNIC_KICK_RQ : 0);
		return;
	}
	e = fz_ring_entry(r, *fz_ring_word(r, r->info.producer_off));
	if (recv)
		fz_make_recv(w, s, ctx, e, r->info.entry_size);
	else
		fz_make_send(w, s, ctx, qp, e, r->info.entry_size);
	if (corrupt) {
		off = 4 * (fuzz_rand(s) % (r->info.entry_size / 4));
		if (fuzz_chance(s, 2, 3))
			off = 4 * (fuzz_rand(s) % 12);	/* header words */
		*(uint32_t *)(e + off) = fz_bound(s);
	}
	fz_log(w, "post %s on ctx %d %s qp %u%s", recv ? "recv" : "send", ctx,
	       qp->type == RNIC_QPT_UD ? "UD" : "RC", qp->handle,
	       corrupt ? " (one word corrupted)" : "");
	fz_ring_publish(r);
	w->st.posted++;
	if (!recv || fuzz_chance(s, 1, 4))
		fz_kick(w, s, ctx, qp->handle, recv ? RNIC_KICK_RQ : 0);
}

/*
 * Write a random value into an index, flags or arm word or a random word
 * of a mapped ring, then kick its QP.
 */
static void fz_op_corrupt(struct fz_worker *w, uint64_t *s)
{
	struct fz_ring *r = &w->rings[fuzz_rand(s) % FZ_RINGS];
	uint32_t off, v = fz_bound(s);

	if (!r->base)
		return;
	switch (fuzz_rand(s) % 5) {
	case 0:
		off = r->info.producer_off;
		if (fuzz_chance(s, 1, 2))
			v = *fz_ring_word(r, off) + (fuzz_rand(s) % 3) *
			    r->info.entries + fuzz_rand(s) % 3 - 1;
		break;
	case 1:
		off = r->info.consumer_off;
		break;
	case 2:
		if (!r->flags_off)
			return;
		off = r->flags_off;
		break;
	default:
		off = 4 * (fuzz_rand(s) % (r->size / 4));
		break;
	}
	fz_log(w, "corrupt ring word at %u of ctx %d ring (qp %u) = 0x%x", off,
	       r->ctx, r->qp, v);
	*fz_ring_word(r, off) = v;
	w->st.corrupted++;
	if (r->qp)
		fz_kick(w, s, r->ctx, r->qp,
			fuzz_chance(s, 1, 2) ? RNIC_KICK_RQ : 0);
}

/*
 * Post a few valid sends on a traffic QP (unsignaled, so that RC ones wait
 * for an ACK nobody asked for) and kick; then move the SQ producer index
 * back over some of them, not behind the consumer index: into the entries
 * the kernel fetched but did not complete, or behind those it completed.
 * Either way a corrupt ring (the QP to ERR); kick again.
 */
static void fz_op_sq_back(struct fz_worker *w, uint64_t *s)
{
	int ctx = fuzz_rand(s) & 1;
	struct fz_side *sd = &w->side[ctx];
	struct fz_qp *qp = fuzz_chance(s, 1, 2) ? &sd->rc : &sd->ud;
	unsigned int i, n = 2 + fuzz_rand(s) % 6;
	uint32_t prod, cons, v;
	struct fz_ring *r;
	uint8_t *e;

	fz_cq_drain(w, sd->cq);
	if (qp->sq < 0 || !w->rings[qp->sq].base || sd->fd < 0)
		return;
	r = &w->rings[qp->sq];
	for (i = 0; i < n && fz_ring_room(r); i++) {
		e = fz_ring_entry(r, *fz_ring_word(r, r->info.producer_off));
		fz_make_send(w, s, ctx, qp, e, r->info.entry_size);
		((struct rnic_send_wqe *)e)->send_flags &= ~RNIC_SEND_SIGNALED;
		fz_ring_publish(r);
		w->st.posted++;
	}
	fz_kick(w, s, ctx, qp->handle, 0);
	prod = *fz_ring_word(r, r->info.producer_off);
	cons = __atomic_load_n(fz_ring_word(r, r->info.consumer_off),
			       __ATOMIC_ACQUIRE);
	if (prod == cons)
		return;
	v = cons + fuzz_rand(s) % (prod - cons);
	fz_log(w, "SQ producer of ctx %d %s qp %u back from %u to %u (consumer %u)",
	       ctx, qp->type == RNIC_QPT_UD ? "UD" : "RC", qp->handle, prod, v,
	       cons);
	__atomic_store_n(fz_ring_word(r, r->info.producer_off), v,
			 __ATOMIC_RELEASE);
	w->st.corrupted++;
	fz_kick(w, s, ctx, qp->handle, 0);
}

/*
 * Move a traffic QP to another state under traffic: SQD (and back),
 * SQE, ERR, RESET, or a bogus current state.
 */
static void fz_op_state(struct fz_worker *w, uint64_t *s)
{
	int ctx = fuzz_rand(s) & 1;
	struct fz_side *sd = &w->side[ctx];
	struct fz_qp *qp = fuzz_chance(s, 1, 2) ? &sd->rc : &sd->ud;
	struct rnic_qp_attr a = { .qp_state = fuzz_rand(s) % 7,
				  .cur_qp_state = fuzz_rand(s) % 7,
				  .en_sqd_async_notify = 1 };
	uint32_t mask = RNIC_QP_STATE;

	if (sd->fd < 0)
		return;
	if (fuzz_chance(s, 1, 3))
		mask |= RNIC_QP_CUR_STATE;
	if (a.qp_state == RNIC_QPS_SQD)
		mask |= RNIC_QP_EN_SQD_ASYNC_NOTIFY;
	fz_log(w, "modify ctx %d qp %u to state %u (mask 0x%x)", ctx,
	       qp->handle, a.qp_state, mask);
	fz_modify(w, ctx, qp->handle, mask, &a);
}

/*
 * Resize a traffic CQ under traffic and map its new ring in place of the
 * old one.
 */
static void fz_op_resize(struct fz_worker *w, uint64_t *s)
{
	int ctx = fuzz_rand(s) & 1;
	struct fz_side *sd = &w->side[ctx];
	struct rnic_resize_cq r = { .size = sizeof(r), .handle = sd->cq_handle,
				    .cqe = 1 + fuzz_rand(s) % 512 };

	if (sd->fd < 0)
		return;
	fz_cq_drain(w, sd->cq);
	fz_log(w, "resize the CQ of ctx %d to %u", ctx, r.cqe);
	if (fz_ioctl(w, sd->fd, fz_cmd_index(RNIC_IOCTL_RESIZE_CQ), 0, &r))
		return;
	fz_ring_unmap(w, sd->cq);
	sd->cq = fz_ring_map(w, ctx, &r.out_ring, r.out_arm_off, 0, false);
}

/* Arm a traffic SRQ's limit, or ask for a resize. */
static void fz_op_srq(struct fz_worker *w, uint64_t *s)
{
	int ctx = fuzz_rand(s) & 1;
	struct fz_side *sd = &w->side[ctx];
	struct rnic_modify_srq m = { .size = sizeof(m),
				     .handle = sd->srq_handle,
				     .attr_mask = fuzz_chance(s, 7, 8) ?
						  RNIC_SRQ_LIMIT : RNIC_SRQ_MAX_WR,
				     .srq_limit = fuzz_rand(s) % 40 };

	if (sd->fd < 0 || sd->srq < 0)
		return;
	fz_log(w, "modify the SRQ of ctx %d: mask %u limit %u", ctx,
	       m.attr_mask, m.srq_limit);
	fz_ioctl(w, sd->fd, fz_cmd_index(RNIC_IOCTL_MODIFY_SRQ), 0, &m);
}

/*
 * Put a traffic QP back into RTS (after a fuzzed modify or a fatal WQE),
 * with its ring indexes back at 0 as RESET leaves them.
 */
static void fz_op_reconnect(struct fz_worker *w, uint64_t *s)
{
	int ctx = fuzz_rand(s) & 1;
	struct fz_side *sd = &w->side[ctx];
	struct fz_qp *qp = fuzz_chance(s, 1, 2) ? &sd->rc : &sd->ud;

	if (sd->fd < 0)
		return;
	fz_log(w, "reconnect ctx %d qp %u", ctx, qp->handle);
	fz_qp_connect(w, ctx, qp, &w->side[!ctx].rc);
}

/* ---- fuzzed ioctls ------------------------------------------------------- */

/* Fill @buf with a plausible argument of fz_cmds[@i] for context @ctx. */
static void fz_fill(struct fz_worker *w, uint64_t *s, int i, int ctx,
		    void *buf)
{
	unsigned long num = fz_cmds[i];
	struct fz_side *sd = &w->side[ctx];

	memset(buf, 0, fz_cmd_sizes[i]);
	*(uint32_t *)buf = fz_cmd_sizes[i];
	switch (num) {
	case RNIC_IOCTL_QUERY_PORT:
		((struct rnic_query_port *)buf)->port_num = fuzz_chance(s, 3, 4) ?
			1 : fz_bound(s);
		break;
	case RNIC_IOCTL_QUERY_GID: {
		struct rnic_query_gid *q = buf;

		q->port_num = 1;
		q->index = fuzz_rand(s) % (RNIC_GID_TABLE_LEN + 2);
		break;
	}
	case RNIC_IOCTL_QUERY_PKEY:
		((struct rnic_query_pkey *)buf)->port_num = 1;
		((struct rnic_query_pkey *)buf)->index = fuzz_rand(s) % 2;
		break;
	case RNIC_IOCTL_ALLOC_MW: {
		struct rnic_alloc_mw *a = buf;

		a->pd_handle = fz_handle(w, s, FZ_PD, ctx);
		a->type = fuzz_rand(s) % 4;
		break;
	}
	case RNIC_IOCTL_OPEN_XRCD: {
		/* the device's own file: one domain for every context */
		static const uint32_t oflags[] = { 0, O_CREAT, O_CREAT | O_EXCL };
		struct rnic_open_xrcd *o = buf;

		o->fd = fuzz_chance(s, 1, 3) ? -1 : fuzz_chance(s, 7, 8) ?
			sd->fd : (int)fz_bound(s);
		o->oflags = fuzz_chance(s, 7, 8) ? oflags[fuzz_rand(s) % 3] :
			    fz_bound(s);
		break;
	}
	case RNIC_IOCTL_OPEN_QP: {
		struct rnic_open_qp *o = buf;

		o->xrcd_handle = fz_handle(w, s, FZ_XRCD, ctx);
		o->qp_num = fuzz_chance(s, 2, 3) ? w->tgt_qpn :
			    fuzz_chance(s, 1, 2) ? w->side[fuzz_rand(s) & 1].rc.qpn :
			    fuzz_rand(s) % 64;
		o->user_handle = fz_rand64(s);
		break;
	}
	case RNIC_IOCTL_DEALLOC_PD:
	case RNIC_IOCTL_DEREG_MR:
	case RNIC_IOCTL_DESTROY_COMP_CHANNEL:
	case RNIC_IOCTL_DESTROY_AH:
	case RNIC_IOCTL_DEALLOC_MW:
	case RNIC_IOCTL_CLOSE_XRCD: {
		static const int kinds[] = { FZ_PD, FZ_MR, FZ_CHANNEL, FZ_AH,
					     FZ_MW, FZ_XRCD };
		int k = num == RNIC_IOCTL_DEALLOC_PD ? 0 :
			num == RNIC_IOCTL_DEREG_MR ? 1 :
			num == RNIC_IOCTL_DESTROY_AH ? 3 :
			num == RNIC_IOCTL_DEALLOC_MW ? 4 :
			num == RNIC_IOCTL_CLOSE_XRCD ? 5 : 2;

		((struct rnic_destroy *)buf)->handle =
			fz_handle(w, s, kinds[k], ctx);
		break;
	}
	case RNIC_IOCTL_REG_MR: {
		struct rnic_reg_mr *m = buf;
		uint8_t *base;

		m->pd_handle = fz_handle(w, s, FZ_PD, ctx);
		m->access = fuzz_chance(s, 3, 4) ? fuzz_rand(s) & 0xf : fz_bound(s);
		switch (fuzz_rand(s) % 6) {
		case 0:
			base = w->sh->flap;
			break;
		case 1:
			base = w->ro;
			break;
		case 2:
			base = (uint8_t *)(uintptr_t)fz_rand64(s);
			break;
		default:
			base = sd->buf ? sd->buf : w->scratch;
			break;
		}
		m->addr = (uintptr_t)base + fuzz_rand(s) % 4096;
		m->length = fuzz_chance(s, 3, 4) ? 1 + fuzz_rand(s) % 8192 :
			    fz_bound(s) | (uint64_t)fz_bound(s) << 32 * (fuzz_rand(s) & 1);
		m->iova = fuzz_chance(s, 1, 2) ? m->addr : fz_rand64(s);
		break;
	}
	case RNIC_IOCTL_CREATE_CQ: {
		struct rnic_create_cq *c = buf;

		c->cqe = fuzz_chance(s, 3, 4) ? 1 + fuzz_rand(s) % 64 : fz_bound(s);
		c->user_handle = fz_rand64(s);
		if (fuzz_chance(s, 1, 3)) {
			c->flags = RNIC_CREATE_CQ_CHANNEL;
			c->channel_handle = fz_handle(w, s, FZ_CHANNEL, ctx);
		}
		if (fuzz_chance(s, 1, 8))
			c->comp_vector = fz_bound(s);
		break;
	}
	case RNIC_IOCTL_RESIZE_CQ: {
		struct rnic_resize_cq *c = buf;

		c->handle = fz_handle(w, s, FZ_CQ, ctx);
		c->cqe = fuzz_chance(s, 3, 4) ? 1 + fuzz_rand(s) % 512 : fz_bound(s);
		break;
	}
	case RNIC_IOCTL_DESTROY_CQ:
		((struct rnic_destroy_cq *)buf)->handle =
			fz_handle(w, s, FZ_CQ, ctx);
		break;
	case RNIC_IOCTL_CREATE_QP: {
		struct rnic_create_qp *c = buf;
		static const uint32_t types[] = { RNIC_QPT_RC, RNIC_QPT_UC,
						  RNIC_QPT_UD, RNIC_QPT_XRC_SEND,
						  RNIC_QPT_XRC_RECV };

		c->flags = fuzz_rand(s) & (fuzz_chance(s, 1, 4) ? 7 : 6);
		c->pd_handle = fz_handle(w, s, FZ_PD, ctx);
		c->send_cq_handle = fz_handle(w, s, FZ_CQ, ctx);
		c->recv_cq_handle = fuzz_chance(s, 1, 2) ? c->send_cq_handle :
				    fz_handle(w, s, FZ_CQ, ctx);
		c->srq_handle = fz_handle(w, s, FZ_SRQ, ctx);
		c->qp_type = fuzz_chance(s, 7, 8) ? types[fuzz_rand(s) % 5] :
			     fz_bound(s);
		if (c->qp_type == RNIC_QPT_XRC_RECV || fuzz_chance(s, 1, 16))
			c->xrcd_handle = fz_handle(w, s, FZ_XRCD, ctx);
		/* a target takes no SRQ and no polling thread */
		if (c->qp_type == RNIC_QPT_XRC_RECV && fuzz_chance(s, 3, 4))
			c->flags &= RNIC_CREATE_QP_SQ_SIG_ALL;
		c->user_handle = fz_rand64(s);
		c->cap.max_send_wr = fuzz_chance(s, 3, 4) ? fuzz_rand(s) % 33 :
				     fz_bound(s);
		c->cap.max_recv_wr = fuzz_chance(s, 3, 4) ? fuzz_rand(s) % 33 :
				     fz_bound(s);
		c->cap.max_send_sge = fuzz_chance(s, 3, 4) ? fuzz_rand(s) % 5 :
				      fz_bound(s);
		c->cap.max_recv_sge = fuzz_chance(s, 3, 4) ? fuzz_rand(s) % 5 :
				      fz_bound(s);
		c->cap.max_inline_data = fuzz_chance(s, 3, 4) ?
					 fuzz_rand(s) % 520 : fz_bound(s);
		break;
	}
	case RNIC_IOCTL_MODIFY_QP: {
		struct rnic_modify_qp *m = buf;
		uint32_t *a = (uint32_t *)&m->attr;
		unsigned int k;

		m->handle = fz_handle(w, s, FZ_QP, ctx);
		m->attr_mask = fuzz_chance(s, 3, 4) ? fuzz_rand(s) & 0x1fffff :
			       fz_bound(s);
		for (k = 0; k < 20; k++)
			a[k] = fuzz_chance(s, 1, 2) ? fuzz_rand(s) % 8 : fz_bound(s);
		m->attr.qp_state = fuzz_rand(s) % 8;
		m->attr.port_num = 1;
		m->attr.__reserved = 0;
		memcpy(m->attr.ah_attr.dgid, w->gid, 16);
		m->attr.ah_attr.sgid_index = w->gid_index;
		m->attr.ah_attr.is_global = 1;
		m->attr.ah_attr.port_num = 1;
		m->attr.ah_attr.hop_limit = 64;
		break;
	}
	case RNIC_IOCTL_QUERY_QP:
		((struct rnic_query_qp *)buf)->handle =
			fz_handle(w, s, FZ_QP, ctx);
		break;
	case RNIC_IOCTL_DESTROY_QP:
		((struct rnic_destroy_qp *)buf)->handle =
			fz_handle(w, s, FZ_QP, ctx);
		break;
	case RNIC_IOCTL_ATTACH_MCAST:
	case RNIC_IOCTL_DETACH_MCAST: {
		struct rnic_attach_mcast *m = buf;

		m->qp_handle = fuzz_chance(s, 1, 3) ? sd->ud.handle :
			       fz_handle(w, s, FZ_QP, ctx);
		m->gid[0] = fuzz_chance(s, 3, 4) ? 0xff : fuzz_rand(s);
		m->gid[15] = fuzz_rand(s) % 4;
		break;
	}
	case RNIC_IOCTL_KICK_SQ: {
		struct rnic_kick_sq *k = buf;

		k->qp_handle = fz_handle(w, s, FZ_QP, ctx);
		k->flags = fuzz_rand(s) % 2;
		break;
	}
	case RNIC_IOCTL_CREATE_SRQ: {
		struct rnic_create_srq *c = buf;

		c->pd_handle = fz_handle(w, s, FZ_PD, ctx);
		c->max_wr = fuzz_chance(s, 3, 4) ? fuzz_rand(s) % 40 : fz_bound(s);
		c->max_sge = fuzz_chance(s, 3, 4) ? fuzz_rand(s) % 5 : fz_bound(s);
		c->srq_limit = fuzz_rand(s) % 8;
		c->user_handle = fz_rand64(s);
		if (fuzz_chance(s, 1, 4)) {
			c->flags = RNIC_CREATE_SRQ_XRC;
			c->xrcd_handle = fz_handle(w, s, FZ_XRCD, ctx);
			c->cq_handle = fz_handle(w, s, FZ_CQ, ctx);
		}
		break;
	}
	case RNIC_IOCTL_MODIFY_SRQ: {
		struct rnic_modify_srq *m = buf;

		m->handle = fz_handle(w, s, FZ_SRQ, ctx);
		m->attr_mask = fuzz_rand(s) % 4;
		m->srq_limit = fuzz_chance(s, 1, 2) ? fuzz_rand(s) % 64 : fz_bound(s);
		break;
	}
	case RNIC_IOCTL_QUERY_SRQ:
		((struct rnic_query_srq *)buf)->handle =
			fz_handle(w, s, FZ_SRQ, ctx);
		break;
	case RNIC_IOCTL_DESTROY_SRQ:
		((struct rnic_destroy_srq *)buf)->handle =
			fz_handle(w, s, FZ_SRQ, ctx);
		break;
	case RNIC_IOCTL_CREATE_AH: {
		struct rnic_create_ah *c = buf;

		c->pd_handle = fz_handle(w, s, FZ_PD, ctx);
		memcpy(c->attr.dgid, w->gid, 16);
		if (fuzz_chance(s, 1, 4))
			c->attr.dgid[fuzz_rand(s) % 16] = fuzz_rand(s);
		c->attr.sgid_index = fuzz_chance(s, 3, 4) ? w->gid_index :
				     fuzz_rand(s);
		c->attr.is_global = 1;
		c->attr.port_num = 1;
		c->attr.hop_limit = fuzz_rand(s);
		c->attr.sl = fuzz_rand(s) % 20;
		break;
	}
	default:
		break;
	}
}

/* After a successful fuzzed ioctl: remember what it created, map rings. */
static void fz_note(struct fz_worker *w, uint64_t *s, int i, int ctx,
		    void *buf, size_t size)
{
	unsigned long num = fz_cmds[i];

	/* a short struct has no output fields to learn from */
	if (size < fz_cmd_sizes[i])
		return;
	switch (num) {
	case RNIC_IOCTL_ALLOC_PD:
		fz_pool_add(w, FZ_PD, ctx, ((struct rnic_alloc_pd *)buf)->out_handle);
		break;
	case RNIC_IOCTL_REG_MR:
		fz_pool_add(w, FZ_MR, ctx, ((struct rnic_reg_mr *)buf)->out_handle);
		break;
	case RNIC_IOCTL_CREATE_COMP_CHANNEL: {
		struct rnic_create_comp_channel *c = buf;
		struct rnic_event_desc ev;

		fz_pool_add(w, FZ_CHANNEL, ctx, c->out_handle);
		/*
		 * a non-blocking read of the new descriptor, then close it
		 * (the channel lives on)
		 */
		fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
		if (read(c->out_fd, &ev, fuzz_chance(s, 1, 2) ? sizeof(ev) : 3) > 0)
			fz_failf(w, "a new completion channel had an event");
		close(c->out_fd);
		break;
	}
	case RNIC_IOCTL_CREATE_ASYNC_FD: {
		struct rnic_create_async_fd *c = buf;
		struct rnic_event_desc ev;

		fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
		while (read(c->out_fd, &ev, sizeof(ev)) > 0)
			;
		close(c->out_fd);
		break;
	}
	case RNIC_IOCTL_CREATE_CQ: {
		struct rnic_create_cq *c = buf;

		fz_pool_add(w, FZ_CQ, ctx, c->out_handle);
		if (fuzz_chance(s, 1, 4))
			fz_ring_map(w, ctx, &c->out_ring, c->out_arm_off, 0,
				    false);
		break;
	}
	case RNIC_IOCTL_CREATE_QP: {
		struct rnic_create_qp *c = buf;

		fz_pool_add(w, FZ_QP, ctx, c->out_handle);
		if (c->qp_type == RNIC_QPT_XRC_RECV)
			w->tgt_qpn = c->out_qp_num;
		if (fuzz_chance(s, 1, 4)) {
			fz_ring_map(w, ctx, &c->out_sq, c->out_sq_flags_off,
				    c->out_handle, false);
			fz_ring_map(w, ctx, &c->out_rq, c->out_rq_flags_off,
				    c->out_handle, true);
		}
		break;
	}
	case RNIC_IOCTL_CREATE_SRQ: {
		struct rnic_create_srq *c = buf;

		fz_pool_add(w, FZ_SRQ, ctx, c->out_handle);
		if (fuzz_chance(s, 1, 4))
			fz_ring_map(w, ctx, &c->out_ring, 0, 0, true);
		break;
	}
	case RNIC_IOCTL_CREATE_AH:
		fz_pool_add(w, FZ_AH, ctx, ((struct rnic_create_ah *)buf)->out_handle);
		break;
	case RNIC_IOCTL_ALLOC_MW:
		fz_pool_add(w, FZ_MW, ctx, ((struct rnic_alloc_mw *)buf)->out_handle);
		break;
	case RNIC_IOCTL_OPEN_XRCD:
		fz_pool_add(w, FZ_XRCD, ctx,
			    ((struct rnic_open_xrcd *)buf)->out_handle);
		break;
	case RNIC_IOCTL_OPEN_QP:
		fz_pool_add(w, FZ_QP, ctx, ((struct rnic_open_qp *)buf)->out_handle);
		break;
	case RNIC_IOCTL_CLOSE_XRCD:
	case RNIC_IOCTL_DEALLOC_MW:
	case RNIC_IOCTL_DEALLOC_PD:
	case RNIC_IOCTL_DEREG_MR:
	case RNIC_IOCTL_DESTROY_COMP_CHANNEL:
	case RNIC_IOCTL_DESTROY_CQ:
	case RNIC_IOCTL_DESTROY_QP:
	case RNIC_IOCTL_DESTROY_SRQ:
	case RNIC_IOCTL_DESTROY_AH: {
		uint32_t h = ((struct rnic_destroy *)buf)->handle;
		unsigned int k;

		for (k = 0; k < FZ_POOL; k++)
			if (w->pool[k].used && w->pool[k].ctx == ctx &&
			    w->pool[k].handle == h)
				w->pool[k].dead = true;
		break;
	}
	default:
		break;
	}
}

/*
 * One fuzzed ioctl: a plausible struct, then malformed in one or more
 * ways (size, flags, a reserved or any word, the pointer).
 */
static void fz_op_ioctl(struct fz_worker *w, uint64_t *s)
{
	static const unsigned long creates[] = {
		RNIC_IOCTL_ALLOC_PD, RNIC_IOCTL_REG_MR,
		RNIC_IOCTL_CREATE_COMP_CHANNEL, RNIC_IOCTL_CREATE_CQ,
		RNIC_IOCTL_CREATE_QP, RNIC_IOCTL_CREATE_SRQ,
		RNIC_IOCTL_CREATE_AH,
	};
	/* a fifth of them create objects, for the others to use */
	int i = fuzz_chance(s, 1, 5) ?
		fz_cmd_index(creates[fuzz_rand(s) % ARRAY_SIZE(creates)]) :
		(int)(fuzz_rand(s) % ARRAY_SIZE(fz_cmds));
	int ctx = fuzz_rand(s) & 1;
	size_t size = fz_cmd_sizes[i], room = 4096;
	uint8_t *buf = w->scratch, *arg;
	const char *how = "";
	int ret;

	if (w->side[ctx].fd < 0)
		return;
	/*
	 * Place the struct at the end of the first page sometimes, so that a
	 * longer size runs into the PROT_NONE page.
	 */
	if (fuzz_chance(s, 1, 4)) {
		buf = w->scratch + 4096 - size;
		room = size;
	}
	memset(w->scratch, 0, 4096);
	fz_fill(w, s, i, ctx, buf);
	switch (fuzz_rand(s) % 16) {
	case 0: {
		static const size_t sizes[] = { 0, 4, 8, 12, 4095, 4096,
						 65536, 0xffffffff };
		uint32_t v = fuzz_chance(s, 1, 2) ? size + 8 * (fuzz_rand(s) % 4) :
			     sizes[fuzz_rand(s) % ARRAY_SIZE(sizes)];

		if (fuzz_chance(s, 1, 2) && v > size && v <= room)
			buf[v - 1] = 1;		/* non-zero tail: E2BIG */
		*(uint32_t *)buf = v;
		how = "size";
		break;
	}
	case 1:
		((uint32_t *)buf)[1] |= 1u << (fuzz_rand(s) % 32);
		how = "flags";
		break;
	case 2:
	case 3: {
		unsigned int k = 2 + fuzz_rand(s) % (size / 4 - 2);

		((uint32_t *)buf)[k] = fz_bound(s);
		how = "word";
		break;
	}
	default:
		*(uint32_t *)buf = size;
		break;
	}
	arg = buf;
	switch (fuzz_rand(s) % 24) {
	case 0:
		arg = NULL;
		how = "NULL";
		break;
	case 1:
		arg = (uint8_t *)(uintptr_t)0xffffffff81000000ULL;
		how = "kernel pointer";
		break;
	case 2:
		arg = w->scratch + 4096;
		how = "unmapped";
		break;
	case 3:
		memcpy(w->ro, buf, size);
		mprotect(w->ro, 4096, PROT_READ);
		arg = w->ro;
		how = "read-only";
		break;
	case 4:
		arg = w->sh->flap + 4096 * (fuzz_rand(s) % FZ_FLAP_PAGES);
		how = "flapping page";
		break;
	default:
		break;
	}
	fz_log(w, "ioctl %s ctx %d size %u flags 0x%x (%s)", fz_cmd_names[i],
	       ctx, *(uint32_t *)buf, ((uint32_t *)buf)[1], how);
	if (w->verbose) {
		unsigned int k;

		printf("#            ");
		for (k = 0; k < size / 4 && k < 12; k++)
			printf(" %08x", ((uint32_t *)buf)[k]);
		printf("\n");
	}
	ret = fz_ioctl(w, w->side[ctx].fd, i, 0, arg);
	if (arg == w->ro)
		mprotect(w->ro, 4096, PROT_READ | PROT_WRITE);
	if (!ret && arg == buf)
		fz_note(w, s, i, ctx, buf, *(uint32_t *)buf);
}

/* Numbers next to the real ones: wrong magic, direction bits, unknown. */
static void fz_op_bad_number(struct fz_worker *w, uint64_t *s)
{
	unsigned long num = RNIC_IOCTL_QUERY_DEVICE;

	switch (fuzz_rand(s) % 4) {
	case 0:
		num = _IO(RNIC_IOCTL_MAGIC, fuzz_rand(s) % 256);
		break;
	case 1:
		num = _IOWR(RNIC_IOCTL_MAGIC, RNIC_CMD_BASE + fuzz_rand(s) % 64,
			    struct rnic_query_device);
		break;
	case 2:
		num = _IO(fuzz_rand(s) % 256, RNIC_CMD_BASE + fuzz_rand(s) % 64);
		break;
	default:
		num = fuzz_rand(s);
		break;
	}
	if (fz_cmd_index(num) >= 0)
		return;
	memset(w->scratch, 0, 4096);
	*(uint32_t *)w->scratch = 16;
	fz_log(w, "ioctl number 0x%lx", num);
	fz_ioctl(w, w->side[fuzz_rand(s) & 1].fd, -1, num, w->scratch);
}

/*
 * mmap with a wrong size, offset, protection or flags; must fail or
 * give a mapping that works.
 */
static void fz_op_mmap(struct fz_worker *w, uint64_t *s)
{
	struct fz_ring *r = &w->rings[fuzz_rand(s) % FZ_RINGS];
	int ctx = fuzz_rand(s) & 1;
	size_t len = r->base ? r->size : 4096;
	off_t off = r->base ? (off_t)r->info.offset : 0;
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED;
	void *p;

	if (w->side[ctx].fd < 0)
		return;
	switch (fuzz_rand(s) % 6) {
	case 0:
		len += 4096 * (1 + fuzz_rand(s) % 2);
		break;
	case 1:
		len = len > 4096 ? len - 4096 : 4096;
		break;
	case 2:
		off += 4096 * (fuzz_rand(s) % 4);
		break;
	case 3:
		flags = MAP_PRIVATE;
		break;
	case 4:
		off = (off_t)fz_bound(s) << 12;
		break;
	default:
		prot |= PROT_EXEC;
		break;
	}
	fz_log(w, "mmap ctx %d len %zu off 0x%llx prot %d flags %d", ctx, len,
	       (unsigned long long)off, prot, flags);
	p = mmap(NULL, len, prot, flags, w->side[ctx].fd, off);
	if (p != MAP_FAILED) {
		*(volatile uint32_t *)p = fuzz_rand(s);
		munmap(p, len);
	}
}

/* Unmap a ring (the kernel keeps using its pages) or an MR's buffer. */
static void fz_op_munmap(struct fz_worker *w, uint64_t *s)
{
	int ctx = fuzz_rand(s) & 1, i = fuzz_rand(s) % FZ_RINGS;
	struct fz_ring *r = &w->rings[i];
	void *p;

	if (fuzz_chance(s, 1, 4) && w->side[ctx].buf) {
		fz_log(w, "munmap the MR buffer of ctx %d", ctx);
		munmap(w->side[ctx].buf, FZ_BUF_SIZE);
		w->side[ctx].buf = NULL;
		return;
	}
	if (!r->base)
		return;
	switch (fuzz_rand(s) % 4) {
	case 0:
		/* split the mapping in two, then unmap the parts one by one */
		fz_log(w, "split and unmap ring %d", i);
		mprotect(r->base, 4096, PROT_READ);
		if (r->size > 4096)
			munmap(r->base + 4096, r->size - 4096);
		munmap(r->base, 4096);
		memset(r, 0, sizeof(*r));
		break;
	case 1:
		/* grow (refused) or move it elsewhere */
		fz_log(w, "mremap ring %d", i);
		p = mremap(r->base, r->size, r->size + 4096, MREMAP_MAYMOVE);
		if (p != MAP_FAILED) {
			fz_failf(w, "a ring mapping could grow with mremap()");
			munmap(p, r->size + 4096);
			memset(r, 0, sizeof(*r));
			break;
		}
		p = mmap(NULL, r->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (p == MAP_FAILED)
			break;
		if (mremap(r->base, r->size, r->size,
			   MREMAP_MAYMOVE | MREMAP_FIXED, p) == p)
			r->base = p;
		else
			munmap(p, r->size);
		break;
	default:
		fz_log(w, "munmap ring %d", i);
		fz_ring_unmap(w, i);
		break;
	}
}

/* Open the context's asynchronous event descriptor and read what it holds. */
static void fz_op_events(struct fz_worker *w, uint64_t *s)
{
	int ctx = fuzz_rand(s) & 1;
	struct rnic_create_async_fd a = { .size = sizeof(a) };
	struct rnic_event_desc ev;
	struct pollfd p;

	if (w->side[ctx].fd < 0)
		return;
	fz_log(w, "async fd of ctx %d", ctx);
	if (fz_ioctl(w, w->side[ctx].fd, fz_cmd_index(RNIC_IOCTL_CREATE_ASYNC_FD),
		     0, &a))
		return;
	p = (struct pollfd){ .fd = a.out_fd, .events = POLLIN };
	while (poll(&p, 1, 0) > 0 && (p.revents & POLLIN) &&
	       read(a.out_fd, &ev, sizeof(ev)) == sizeof(ev))
		;
	close(a.out_fd);
}

struct fz_racer {
	int fd;
	atomic_bool stop;
};

/* Create and destroy objects on r->fd until told to stop. */
static void *fz_racer_main(void *arg)
{
	struct fz_racer *r = arg;
	struct rnic_alloc_pd pd;
	struct rnic_create_cq cq;
	struct rnic_destroy d = { .size = sizeof(d) };

	while (!atomic_load(&r->stop)) {
		memset(&pd, 0, sizeof(pd));
		pd.size = sizeof(pd);
		memset(&cq, 0, sizeof(cq));
		cq.size = sizeof(cq);
		cq.cqe = 64;
		if (!ioctl(r->fd, RNIC_IOCTL_ALLOC_PD, &pd) && (pd.out_handle & 1)) {
			d.handle = pd.out_handle;
			ioctl(r->fd, RNIC_IOCTL_DEALLOC_PD, &d);
		}
		ioctl(r->fd, RNIC_IOCTL_CREATE_CQ, &cq);
	}
	return NULL;
}

/*
 * A third context, with a CQ ring mapped, closed while another thread
 * creates objects in it: dup2() of /dev/null over the descriptor drops the
 * context atomically, so the racer never reaches a reused number.
 */
static void fz_op_close_race(struct fz_worker *w, uint64_t *s)
{
	struct fz_racer r = { .fd = open(fz_uverbs_path(), O_RDWR | O_CLOEXEC) };
	struct rnic_create_cq cq = { .size = sizeof(cq), .cqe = 8 };
	void *ring = MAP_FAILED;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	pthread_t t;

	if (r.fd < 0 || null < 0)
		goto out;
	if (!ioctl(r.fd, RNIC_IOCTL_CREATE_CQ, &cq))
		ring = mmap(NULL, cq.out_ring.size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, r.fd, cq.out_ring.offset);
	fz_log(w, "close a context under ioctls");
	if (pthread_create(&t, NULL, fz_racer_main, &r))
		goto out;
	usleep(fuzz_rand(s) % 500);
	dup2(null, r.fd);
	usleep(fuzz_rand(s) % 200);
	if (ring != MAP_FAILED && fuzz_chance(s, 1, 2)) {
		*(volatile uint32_t *)ring = fuzz_rand(s);
		munmap(ring, cq.out_ring.size);
		ring = MAP_FAILED;
	}
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
out:
	if (ring != MAP_FAILED)
		munmap(ring, cq.out_ring.size);
	if (r.fd >= 0)
		close(r.fd);
	if (null >= 0)
		close(null);
}

/* fork: the child uses and destroys the parent's objects, then exits. */
static void fz_op_fork(struct fz_worker *w, uint64_t *s)
{
	uint64_t cs = fz_rand64(s);
	pid_t pid;
	int st;

	fz_log(w, "fork");
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		int n;

		w->verbose = false;
		for (n = 0; n < 8; n++) {
			fz_op_ioctl(w, &cs);
			fz_op_post(w, &cs, false);
		}
		if (w->fail[0])
			printf("# forked child of worker %d: %s\n", w->id,
			       w->fail);
		_exit(w->fail[0] ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) == pid && (!WIFEXITED(st) || WEXITSTATUS(st)))
		fz_failf(w, "forked child failed (status 0x%x)", st);
}

/* ---- librnic traffic in a context of its own ---------------------------- */

static int fz_verbs_connect(struct fz_worker *w, struct ibv_qp *qp,
			    uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	memcpy(a.ah_attr.grh.dgid.raw, w->gid, 16);
	a.ah_attr.grh.sgid_index = w->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	ret = ret ?: ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ret ?: ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * An RC pair in a librnic context of its own, carrying SENDs while the
 * other workers fuzz: every message must arrive intact and complete
 * successfully, whatever the others do to their own contexts.
 */
static void fz_op_verbs(struct fz_worker *w, uint64_t *s)
{
	enum { N = 8, LEN = 1024 };
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = N, .max_recv_wr = N,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_context *ctx = NULL;
	struct ibv_qp *qp[2] = { NULL, NULL };
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_mr *mr = NULL;
	uint8_t *buf = calloc(2 * N, LEN);
	int i, n = 0, got = 0, tries;
	struct ibv_wc wc[2 * N];
	uint32_t len[N];

	fz_log(w, "librnic RC pair, %d SENDs", N);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), FZ_DEV))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx || !buf) {
		fz_failf(w, "librnic: cannot open %s", FZ_DEV);
		goto out;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 2 * N, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, 2 * N * LEN, IBV_ACCESS_LOCAL_WRITE) :
	     NULL;
	if (!mr) {
		fz_failf(w, "librnic: objects for a pair: %s", strerror(errno));
		goto out;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	for (i = 0; i < 2; i++) {
		qp[i] = ibv_create_qp(pd, &init);
		if (!qp[i]) {
			fz_failf(w, "librnic: create QP: %s", strerror(errno));
			goto out;
		}
	}
	if (fz_verbs_connect(w, qp[0], qp[1]->qp_num) ||
	    fz_verbs_connect(w, qp[1], qp[0]->qp_num)) {
		fz_failf(w, "librnic: connect the pair: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < N; i++) {
		struct ibv_sge rs = { (uintptr_t)buf + (N + i) * LEN, LEN,
				      mr->lkey };
		struct ibv_sge ss = { (uintptr_t)buf + i * LEN,
				      len[i] = 1 + fuzz_rand(s) % LEN, mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = N + i, .sg_list = &rs,
					   .num_sge = 1 }, *rbad;
		struct ibv_send_wr swr = { .wr_id = i, .sg_list = &ss,
					   .num_sge = 1, .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		memset(buf + i * LEN, 0xa0 + i, LEN);
		if (ibv_post_recv(qp[1], &rwr, &rbad) ||
		    ibv_post_send(qp[0], &swr, &sbad)) {
			fz_failf(w, "librnic: post: %s", strerror(errno));
			goto out;
		}
	}
	for (tries = 0; got < 2 * N && tries < 20000; tries++) {
		n = ibv_poll_cq(cq, 2 * N - got, wc + got);
		if (n < 0)
			break;
		got += n;
		if (!n)
			usleep(500);
	}
	if (got < 2 * N) {
		fz_failf(w, "librnic: %d of %d completions of an undisturbed pair",
			 got, 2 * N);
		goto out;
	}
	for (i = 0; i < 2 * N; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fz_failf(w, "librnic: completion of wr %" PRIu64 ": %s",
				 wc[i].wr_id, ibv_wc_status_str(wc[i].status));
			goto out;
		}
		if (wc[i].wr_id >= N && wc[i].byte_len != len[wc[i].wr_id - N]) {
			fz_failf(w, "librnic: receive %" PRIu64 " of %u bytes, sent %u",
				 wc[i].wr_id - N, wc[i].byte_len,
				 len[wc[i].wr_id - N]);
			goto out;
		}
	}
	for (i = 0; i < N; i++) {
		uint8_t *r = buf + (N + i) * LEN;
		int k;

		for (k = 0; k < (int)len[i]; k++) {
			if (r[k] != 0xa0 + i) {
				fz_failf(w, "librnic: message %d byte %d is 0x%x",
					 i, k, r[k]);
				goto out;
			}
		}
	}
	w->st.verbs_pairs++;
out:
	for (i = 0; i < 2; i++)
		if (qp[i])
			ibv_destroy_qp(qp[i]);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	free(buf);
}

/* ---- chunks ---------------------------------------------------------------- */

enum fz_op {
	FZ_OP_IOCTL, FZ_OP_POST, FZ_OP_POST_BAD, FZ_OP_CORRUPT,
	FZ_OP_RECONNECT, FZ_OP_BAD_NUMBER, FZ_OP_MMAP, FZ_OP_MUNMAP,
	FZ_OP_EVENTS, FZ_OP_CLOSE_RACE, FZ_OP_FORK, FZ_OP_STATE, FZ_OP_RESIZE,
	FZ_OP_SRQ, FZ_OP_VERBS, FZ_OP_SQ_BACK,
};

/* weights out of 1000 */
static const struct { enum fz_op op; int weight; } fz_weights[] = {
	{ FZ_OP_IOCTL, 438 }, { FZ_OP_VERBS, 2 }, { FZ_OP_POST, 230 }, { FZ_OP_POST_BAD, 100 },
	{ FZ_OP_CORRUPT, 100 }, { FZ_OP_SQ_BACK, 20 }, { FZ_OP_RECONNECT, 30 },
	{ FZ_OP_STATE, 20 },
	{ FZ_OP_RESIZE, 5 }, { FZ_OP_SRQ, 10 },
	{ FZ_OP_BAD_NUMBER, 20 }, { FZ_OP_MMAP, 6 }, { FZ_OP_MUNMAP, 6 },
	{ FZ_OP_EVENTS, 10 }, { FZ_OP_CLOSE_RACE, 2 }, { FZ_OP_FORK, 1 },
};

static void fz_run_op(struct fz_worker *w, uint64_t *s)
{
	int r = fuzz_rand(s) % 1000;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fz_weights) - 1; i++) {
		if (r < fz_weights[i].weight)
			break;
		r -= fz_weights[i].weight;
	}
	switch (fz_weights[i].op) {
	case FZ_OP_IOCTL:
		fz_op_ioctl(w, s);
		break;
	case FZ_OP_POST:
		fz_op_post(w, s, false);
		break;
	case FZ_OP_POST_BAD:
		fz_op_post(w, s, true);
		break;
	case FZ_OP_CORRUPT:
		fz_op_corrupt(w, s);
		break;
	case FZ_OP_RECONNECT:
		fz_op_reconnect(w, s);
		break;
	case FZ_OP_BAD_NUMBER:
		fz_op_bad_number(w, s);
		break;
	case FZ_OP_MMAP:
		fz_op_mmap(w, s);
		break;
	case FZ_OP_MUNMAP:
		fz_op_munmap(w, s);
		break;
	case FZ_OP_EVENTS:
		fz_op_events(w, s);
		break;
	case FZ_OP_CLOSE_RACE:
		fz_op_close_race(w, s);
		break;
	case FZ_OP_FORK:
		fz_op_fork(w, s);
		break;
	case FZ_OP_STATE:
		fz_op_state(w, s);
		break;
	case FZ_OP_RESIZE:
		fz_op_resize(w, s);
		break;
	case FZ_OP_SRQ:
		fz_op_srq(w, s);
		break;
	case FZ_OP_VERBS:
		fz_op_verbs(w, s);
		break;
	case FZ_OP_SQ_BACK:
		fz_op_sq_back(w, s);
		break;
	}
}

static void fz_chunk_close(struct fz_worker *w)
{
	int i;

	for (i = 0; i < 2; i++)
		fz_cq_drain(w, w->side[i].cq);
	for (i = 0; i < FZ_RINGS; i++)
		fz_ring_unmap(w, i);
	for (i = 0; i < 2; i++) {
		if (w->side[i].fd >= 0)
			close(w->side[i].fd);
		if (w->side[i].buf)
			munmap(w->side[i].buf, FZ_BUF_SIZE);
		memset(&w->side[i], 0, sizeof(w->side[i]));
		w->side[i].fd = -1;
		w->side[i].cq = -1;
		w->side[i].srq = -1;
	}
	memset(w->pool, 0, sizeof(w->pool));
}

/* Find the loopback GID (::ffff:127.0.0.1) of the device. */
static int fz_find_gid(struct fz_worker *w)
{
	static const uint8_t lo4[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };
	struct rnic_query_gid q;
	int i, tries;

	for (tries = 0; tries < 500; tries++) {
		for (i = 0; i < RNIC_GID_TABLE_LEN; i++) {
			memset(&q, 0, sizeof(q));
			q.size = sizeof(q);
			q.port_num = 1;
			q.index = i;
			if (!ioctl(w->side[0].fd, RNIC_IOCTL_QUERY_GID, &q) &&
			    !memcmp(q.out_gid, lo4, 16)) {
				memcpy(w->gid, lo4, 16);
				w->gid_index = i;
				return 0;
			}
		}
		usleep(10000);
	}
	return -ENOENT;
}

/* New kernel log lines of @fd, with this fuzzer's chunk markers */
static int fz_kmsg_scan(int fd, bool print_markers, unsigned int *markers)
{
	return fuzz_kmsg_scan(fd, "rnic-fuzz: replay ", "RNIC_FUZZ_REPLAY",
			      print_markers, markers);
}

/* Run chunk @chunk of worker @w (ops enabled in w->mask, or all). */
static int fz_chunk(struct fz_worker *w, unsigned int chunk, unsigned int nops)
{
	const char *path = fz_uverbs_path();
	uint64_t cs = fuzz_mix(w->seed ^ fuzz_mix(w->id ^ fuzz_mix(chunk)));
	int i, ret;

	w->chunk = chunk;
	w->st.chunks++;
	fuzz_kmsg("rnic-fuzz: replay %" PRIu64 ":%d:%u\n", w->seed, w->id, chunk);
	for (i = 0; i < 2; i++) {
		w->side[i].fd = path ? open(path, O_RDWR | O_CLOEXEC) : -1;
		if (w->side[i].fd < 0) {
			fz_failf(w, "open %s: %s", path ? path : FZ_DEV,
				 strerror(errno));
			fz_chunk_close(w);
			return -1;
		}
	}
	memset(&w->dev, 0, sizeof(w->dev));
	w->dev.size = sizeof(w->dev);
	ret = ioctl(w->side[0].fd, RNIC_IOCTL_QUERY_DEVICE, &w->dev);
	if (!ret)
		ret = fz_find_gid(w);
	if (!ret)
		ret = fz_traffic_setup(w, fuzz_rand(&cs));
	if (ret) {
		fz_failf(w, "traffic setup failed: %d", ret);
		fz_chunk_close(w);
		return -1;
	}
	for (w->op = 0; w->op < nops; w->op++) {
		uint64_t s = fuzz_mix(cs ^ fuzz_mix(w->op));

		if (w->mask && !w->mask[w->op])
			continue;
		fz_run_op(w, &s);
		if (chunk == fz_inject_chunk && (int)w->op == fz_inject_op)
			fz_failf(w, "failure injected by RNIC_FUZZ_INJECT");
		if (w->kfd >= 0 && fz_kmsg_scan(w->kfd, false, NULL))
			fz_failf(w, "kernel log lines after this operation");
		if (w->fail[0])
			break;
	}
	fz_chunk_close(w);
	return w->fail[0] ? -1 : 0;
}

/* ---- processes and threads ------------------------------------------------ */

static void *fz_flapper(void *arg)
{
	struct fz_shared *sh = arg;
	size_t len = 4096 * FZ_FLAP_PAGES;
	unsigned int n = 0;

	while (!atomic_load(&sh->stop)) {
		if (n++ & 1)
			mmap(sh->flap, len, PROT_READ | PROT_WRITE,
			     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		else
			mmap(sh->flap, len, PROT_NONE,
			     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		usleep(50);
	}
	return NULL;
}

struct fz_config {
	uint64_t seed;
	unsigned long iters;
	int procs, threads;
};

static int fz_worker_init(struct fz_worker *w, struct fz_shared *sh, int id,
			  uint64_t seed)
{
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->seed = seed;
	w->sh = sh;
	w->side[0].fd = w->side[1].fd = -1;
	w->kfd = -1;
	w->side[0].cq = w->side[1].cq = -1;
	w->side[0].srq = w->side[1].srq = -1;
	w->scratch = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w->ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->scratch == MAP_FAILED || w->ro == MAP_FAILED)
		return -ENOMEM;
	mprotect(w->scratch + 4096, 4096, PROT_NONE);
	return 0;
}

struct fz_thread {
	struct fz_worker w;
	unsigned long nops;
	pthread_t tid;
};

static void *fz_worker_main(void *arg)
{
	struct fz_thread *t = arg;
	unsigned int chunk;
	unsigned long done;

	for (chunk = 0, done = 0; done < t->nops; chunk++) {
		unsigned int n = t->nops - done < FZ_CHUNK_OPS ?
				 t->nops - done : FZ_CHUNK_OPS;

		if (fz_chunk(&t->w, chunk, n))
			break;
		done += n;
	}
	return NULL;
}

/* One process: cfg->threads workers; exit status 0 if none failed. */
static int fz_process(const struct fz_config *cfg, int proc)
{
	struct fz_shared sh = { 0 };
	struct fz_thread *t;
	pthread_t flap;
	unsigned int k;
	long pin0, pin = -1;
	int i, failed = 0;
	unsigned long nw = (unsigned long)cfg->procs * cfg->threads;

	t = calloc(cfg->threads, sizeof(*t));
	sh.flap = mmap(NULL, 4096 * FZ_FLAP_PAGES, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!t || sh.flap == MAP_FAILED)
		return 1;
	pin0 = vm_pin_kb();
	pthread_create(&flap, NULL, fz_flapper, &sh);
	for (i = 0; i < cfg->threads; i++) {
		int id = proc * cfg->threads + i;

		if (fz_worker_init(&t[i].w, &sh, id, cfg->seed))
			return 1;
		t[i].w.verbose = getenv("RNIC_FUZZ_TRACE");
		t[i].nops = cfg->iters / nw + (id < (int)(cfg->iters % nw));
		pthread_create(&t[i].tid, NULL, fz_worker_main, &t[i]);
	}
	for (i = 0; i < cfg->threads; i++) {
		struct fz_stats *st = &t[i].w.st;

		pthread_join(t[i].tid, NULL);
		printf("# worker %d: %lu chunks, ioctls %lu ok %lu failed, %lu objects created, %lu WRs posted, %lu ring words corrupted, CQEs %lu ok %lu failed, %lu librnic pairs\n",
		       t[i].w.id, st->chunks, st->ok, st->err, st->created,
		       st->posted, st->corrupted, st->cqe_ok, st->cqe_err,
		       st->verbs_pairs);
		printf("# worker %d ioctls ok/failed:", t[i].w.id);
		for (k = 0; k < ARRAY_SIZE(fz_cmds); k++)
			printf(" %s %lu/%lu", fz_cmd_names[k], st->cmd_ok[k],
			       st->cmd_err[k]);
		printf("\n");
		if (t[i].w.fail[0]) {
			printf("# FAIL seed %" PRIu64 " worker %d chunk %u op %u: %s\n",
			       cfg->seed, t[i].w.id, t[i].w.chunk, t[i].w.op,
			       t[i].w.fail);
			printf("# reproduce: RNIC_FUZZ_REPLAY=%" PRIu64 ":%d:%u fuzz\n",
			       cfg->seed, t[i].w.id, t[i].w.chunk);
			failed = 1;
		}
	}
	atomic_store(&sh.stop, true);
	pthread_join(flap, NULL);
	/* Every context is closed: the MRs' pages are unpinned. */
	for (i = 0; i < 20 && (pin = vm_pin_kb()) != pin0; i++)
		usleep(100000);
	if (pin != pin0) {
		printf("# process %d: VmPin %ld kB at the end, %ld kB before\n",
		       proc, pin, pin0);
		failed = 1;
	}
	fflush(stdout);
	return failed;
}

/* ---- the kernel log ---------------------------------------------------- */

/* ---- device and resources ------------------------------------------------ */

/*
 * Wait up to 10 s for the device to have no context and no object left;
 * @what gets the last counts. 0, -EBUSY if something is left, or the
 * error of RES_GET.
 */
static int fz_res_zero(struct rnic_genl *g, char *what, size_t len)
{
	struct rnic_res_info *info = calloc(1, sizeof(*info));
	int ret, k, n, tries;

	if (!info)
		return -ENOMEM;
	for (tries = 0; tries < 100; tries++) {
		ret = rnic_res_get(g, FZ_DEV, info);
		if (ret) {
			snprintf(what, len, "RES_GET: %s", strerror(-ret));
			break;
		}
		ret = info->n_ctxs ? -EBUSY : 0;
		for (k = 0; k < RNIC_RES_NR_KINDS; k++)
			if (info->counts[k])
				ret = -EBUSY;
		n = snprintf(what, len, "%u contexts,", info->n_ctxs);
		for (k = 0; k < RNIC_RES_NR_KINDS && n < (int)len; k++)
			n += snprintf(what + n, len - n, " %s %" PRIu64,
				      rnic_res_kinds[k].name, info->counts[k]);
		if (!ret)
			break;
		usleep(100000);
	}
	free(info);
	return ret;
}

static int fz_device_add(struct rnic_genl *g)
{
	int ret;

	rnic_link_del(g, FZ_DEV);
	ret = rnic_link_add(g, FZ_DEV, "lo");
	if (ret)
		return ret;
	return fz_uverbs_path() ? 0 : -ENOENT;
}

/* ---- replay and shrinking ------------------------------------------------- */

/*
 * Run chunk @chunk of worker @id alone with the ops of @mask; did it fail
 * (worker failure, kernel log lines, or resources left)?
 */
static bool fz_replay_once(const struct fz_config *cfg, int id,
			   unsigned int chunk, const bool *mask, bool verbose,
			   int kfd, struct rnic_genl *g, unsigned int *fail_op)
{
	struct fz_shared sh = { 0 };
	struct fz_worker *w = calloc(1, sizeof(*w));
	char res[256] = "";
	pthread_t flap;
	bool failed;

	sh.flap = mmap(NULL, 4096 * FZ_FLAP_PAGES, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!w || sh.flap == MAP_FAILED || fz_worker_init(w, &sh, id, cfg->seed))
		return false;
	pthread_create(&flap, NULL, fz_flapper, &sh);
	w->mask = mask;
	w->verbose = verbose;
	w->kfd = kfd;
	fz_chunk(w, chunk, FZ_CHUNK_OPS);
	atomic_store(&sh.stop, true);
	pthread_join(flap, NULL);
	failed = w->fail[0];
	if (failed && fail_op)
		*fail_op = w->op;
	/*
	 * The kernel rate-limits some reports (allocation failures: 10 in
	 * 5 s): leave it room for the next trial's.
	 */
	if (failed && strstr(w->fail, "kernel log"))
		usleep(600000);
	if (failed && verbose)
		printf("# worker failure: %s\n", w->fail);
	if (fz_kmsg_scan(kfd, false, NULL))
		failed = true;
	if (fz_res_zero(g, res, sizeof(res))) {
		if (verbose)
			printf("# resources left: %s\n", res);
		failed = true;
	}
	munmap(sh.flap, 4096 * FZ_FLAP_PAGES);
	munmap(w->scratch, 8192);
	munmap(w->ro, 4096);
	free(w);
	return failed;
}

/*
 * Run chunk @chunk of worker @id alone; if it fails, drop ever smaller
 * runs of operations from @mask while it still fails. Number of
 * operations left in @mask, or -1 if the chunk does not fail alone.
 */
static int fz_shrink(const struct fz_config *c, int id, unsigned int chunk,
		     bool *mask, int kfd, struct rnic_genl *g)
{
	bool save[FZ_CHUNK_OPS];
	unsigned int n, k, i, step;

	unsigned int fail_op = FZ_CHUNK_OPS - 1;

	for (i = 0; i < FZ_CHUNK_OPS; i++)
		mask[i] = true;
	if (!fz_replay_once(c, id, chunk, mask, false, kfd, g, &fail_op))
		return -1;
	/* the chunk stops at its first failure: later operations never ran */
	for (i = fail_op + 1; i < FZ_CHUNK_OPS; i++)
		mask[i] = false;
	for (step = FZ_CHUNK_OPS / 2; step; step /= 2) {
		for (k = 0; k < FZ_CHUNK_OPS; k += step) {
			memcpy(save, mask, sizeof(save));
			for (i = k, n = 0; i < k + step; i++) {
				n += mask[i];
				mask[i] = false;
			}
			if (n && !fz_replay_once(c, id, chunk, mask, false, kfd,
						 g, NULL))
				memcpy(mask, save, sizeof(save));
		}
	}
	for (i = 0, n = 0; i < FZ_CHUNK_OPS; i++)
		n += mask[i];
	return n;
}

static int fz_replay(const struct fz_config *cfg, const char *spec,
		     struct rnic_genl *g)
{
	bool mask[FZ_CHUNK_OPS];
	unsigned long long seed;
	struct fz_config c = *cfg;
	unsigned int chunk;
	int id, n, kfd = fuzz_kmsg_open();

	if (sscanf(spec, "%llu:%d:%u", &seed, &id, &chunk) != 3) {
		printf("not ok 1 - RNIC_FUZZ_REPLAY must be seed:worker:chunk\n");
		return 1;
	}
	c.seed = seed;
	printf("# replay seed %llu worker %d chunk %u\n", seed, id, chunk);
	n = fz_shrink(&c, id, chunk, mask, kfd, g);
	if (n < 0) {
		printf("ok 1 - fuzz replay: the chunk does not fail when run alone\n");
		return 0;
	}
	printf("# minimal operation list: %d of %u operations:\n", n,
	       FZ_CHUNK_OPS);
	fz_replay_once(&c, id, chunk, mask, true, kfd, g, NULL);
	printf("not ok 1 - fuzz replay: failure reproduced\n");
	return 1;
}

/*
 * The failure detection and shrinking machinery, checked on a failure
 * injected at one operation: shrinking must keep exactly that one.
 */
static bool fz_check_shrink(const struct fz_config *cfg, struct rnic_genl *g)
{
	bool mask[FZ_CHUNK_OPS];
	int n, kfd = fuzz_kmsg_open();

	fz_inject_chunk = 1;
	fz_inject_op = FZ_CHUNK_OPS / 3;
	n = fz_shrink(cfg, 0, fz_inject_chunk, mask, kfd, g);
	fz_inject_op = -1;
	if (kfd >= 0)
		close(kfd);
	printf("# shrinking an injected failure at op %u left %d operation(s)\n",
	       FZ_CHUNK_OPS / 3, n);
	return n == 1 && mask[FZ_CHUNK_OPS / 3];
}

/* ---- main ---------------------------------------------------------------- */

int main(void)
{
	struct fz_config cfg = {
		.seed = fuzz_env("RNIC_FUZZ_SEED", FZ_DEFAULT_SEED),
		.iters = fuzz_env("RNIC_FUZZ_ITERS", FZ_DEFAULT_ITERS),
		.procs = fuzz_env("RNIC_FUZZ_PROCS", 2),
		.threads = fuzz_env("RNIC_FUZZ_THREADS", 2),
	};
	const char *replay = getenv("RNIC_FUZZ_REPLAY");
	const char *inject = getenv("RNIC_FUZZ_INJECT");
	unsigned long nw;
	struct timespec t0, t1;
	struct rnic_genl *g;
	char res[256] = "";
	int kfd, p, failed = 0;
	bool ok;
	pid_t *pids;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (inject && sscanf(inject, "%u:%d", &fz_inject_chunk,
			     &fz_inject_op) != 2) {
		printf("not ok 1 - RNIC_FUZZ_INJECT must be chunk:op\n");
		return 1;
	}
	printf("TAP version 13\n1..%d\n", replay ? 1 : 2);
	g = rnic_genl_open();
	if (!g || fz_device_add(g)) {
		printf("not ok 1 - fuzz: cannot create device %s\n", FZ_DEV);
		return 1;
	}
	if (cfg.procs < 1 || cfg.threads < 1) {
		printf("not ok 1 - fuzz: bad RNIC_FUZZ_PROCS/THREADS\n");
		return 1;
	}
	if (replay) {
		failed = fz_replay(&cfg, replay, g);
		rnic_link_del(g, FZ_DEV);
		rnic_genl_close(g);
		return failed;
	}
	nw = (unsigned long)cfg.procs * cfg.threads;
	printf("# seed %" PRIu64 ", %lu operations, %d processes x %d threads\n",
	       cfg.seed, cfg.iters, cfg.procs, cfg.threads);
	kfd = fuzz_kmsg_open();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pids = calloc(cfg.procs, sizeof(*pids));
	for (p = 0; p < cfg.procs; p++) {
		pids[p] = fork();
		if (!pids[p])
			_exit(fz_process(&cfg, p));
	}
	if (fuzz_supervise(pids, cfg.procs, kfd, "rnic-fuzz: replay ", "RNIC_FUZZ_REPLAY",
			   FZ_HANG_S))
		failed = 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (fz_kmsg_scan(kfd, true, NULL))
		failed = 1;
	if (fz_res_zero(g, res, sizeof(res))) {
		printf("# resources not freed at the end\n");
		failed = 1;
	}
	printf("# %lu operations by %lu workers in %.1f s (%.0f/s); at the end: %s\n",
	       cfg.iters, nw, (t1.tv_sec - t0.tv_sec) +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       cfg.iters / ((t1.tv_sec - t0.tv_sec) +
			    (t1.tv_nsec - t0.tv_nsec) / 1e9 + 1e-9), res);
	printf("%s 1 - fuzz seed %" PRIu64 " iters %lu\n",
	       failed ? "not ok" : "ok", cfg.seed, cfg.iters);
	ok = fz_check_shrink(&cfg, g);
	printf("%s 2 - fuzz: an injected failure shrinks to its one operation\n",
	       ok ? "ok" : "not ok");
	failed |= !ok;
	rnic_link_del(g, FZ_DEV);
	rnic_genl_close(g);
	return failed;
}
