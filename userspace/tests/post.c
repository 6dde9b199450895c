// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The data path (ibv_post_send(), ibv_post_recv(), ibv_post_srq_recv(),
 * ibv_poll_cq() racing ibv_resize_cq(), the extended CQ's iterator)
 * against a fake kernel, as in context.c: the device node is a symlink to
 * /dev/null, and this program defines ioctl(), mmap() and munmap(), which
 * take precedence over libc's for librnic's calls. The fake answers the
 * create ioctls with rings laid out as rnic.ko lays them out, in a memfd:
 * librnic's mmap() of the device maps the memfd instead, and the tests
 * read what librnic wrote (and play the kernel's part of the indexes and
 * flags words) through a mapping of their own.
 */
#include "fake-sysfs.h"

#include <endian.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <time.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include <infiniband/verbs.h>
#include <rdma/rnic-abi.h>

#include "tap.h"

static struct fake fk;
static dev_t null_rdev;

/* ---- the fake kernel ------------------------------------------------- */

#define FAKE_PAGE	4096u
#define FAKE_MEM_SIZE	(64u << 20)
/* rnic.ko's layout: each index in a cache line, the entries after them. */
#define FAKE_PROD_OFF	0u
#define FAKE_CONS_OFF	64u
#define FAKE_FLAGS_OFF	68u	/* in the consumer's cache line */
#define FAKE_ENTS_OFF	128u
#define FAKE_ARM_OFF	68u
#define FAKE_MAX_QP_WR	16384u
#define FAKE_MAX_SGE	32u
#define FAKE_PATTERN	0xa5	/* unwritten entry bytes */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int mem_fd = -1;		/* the rings' memory */
static char *mem;		/* the tests' view of it */
static uint32_t mem_next;	/* bump allocator, page-aligned */

static unsigned int fake_calls;	   /* rnic ioctls seen */
static unsigned int fake_bad_args; /* malformed requests */
static int fake_mmap_fail;	   /* errno for the next fake mmap() */
static int fake_mmap_fail_skip;	   /* ... after this many succeed */
static int fake_maps_live;	   /* fake regions mapped by librnic */
static unsigned int fake_destroys; /* RNIC_IOCTL_DESTROY_QP/SRQ seen */
static unsigned int fake_cq_destroys; /* RNIC_IOCTL_DESTROY_CQ seen */
static uint32_t fake_start_index;  /* indexes of the rings created */

/* What the doorbell ioctls (RING_SQ, KICK_SQ) saw. */
static unsigned int kicks;
static unsigned long kick_cmd;
static uint32_t kick_flags;
static uint32_t kick_handle;
static int fake_kick_err;
static int fake_ring_sq_err; /* RING_SQ fails with it, unseen */

/* The last RNIC_IOCTL_CREATE_QP, and a hook to corrupt its answer. */
static struct rnic_create_qp last_create_qp;
/* The last XRC requests, as librnic made them. */
static struct rnic_open_xrcd last_open_xrcd;
static struct rnic_open_qp last_open_qp;
static struct rnic_create_srq last_create_srq;
static uint32_t last_destroyed;	/* handle of the last destroy of any kind */
static void (*tamper_qp)(struct rnic_create_qp *q);
static void (*tamper_srq)(struct rnic_create_srq *q);
/* ... and of RNIC_IOCTL_CREATE_CQ and RNIC_IOCTL_RESIZE_CQ. */
static void (*tamper_cq)(struct rnic_ring_info *ri, uint32_t *arm_off);

#define FAKE_MAX_OBJS 128
struct fake_qp {
	struct rnic_create_qp cmd; /* as answered (before any tampering) */
};
static struct fake_qp fqps[FAKE_MAX_OBJS];
static unsigned int nr_qps;
static struct rnic_create_srq fsrqs[FAKE_MAX_OBJS];
static unsigned int nr_srqs;
static uint32_t next_handle = 1;

struct fake_map {
	void *addr;
	size_t len;
};
static struct fake_map maps[FAKE_MAX_OBJS];

#define FAKE_CHECK(q, reserved_ok)                                          \
	do {                                                                \
		if ((q)->size != sizeof(*(q)) || (q)->flags || !(reserved_ok)) { \
			fake_bad_args++;                                    \
			return EINVAL;                                      \
		}                                                           \
	} while (0)

static uint32_t roundup_pow2(uint32_t v)
{
	uint32_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

/* A zeroed ring region with the entries filled with FAKE_PATTERN. */
static void fake_ring(struct rnic_ring_info *ri, uint32_t entries,
		      uint32_t entry_size)
{
	uint32_t size = FAKE_ENTS_OFF + entries * entry_size;

	size = (size + FAKE_PAGE - 1) & ~(FAKE_PAGE - 1);
	if (mem_next + size > FAKE_MEM_SIZE) {
		printf("Bail out! fake ring memory exhausted\n");
		exit(1);
	}
	memset(ri, 0, sizeof(*ri));
	ri->offset = mem_next;
	ri->size = size;
	ri->entries = entries;
	ri->entry_size = entry_size;
	ri->producer_off = FAKE_PROD_OFF;
	ri->consumer_off = FAKE_CONS_OFF;
	ri->entries_off = FAKE_ENTS_OFF;
	memset(mem + mem_next, 0, FAKE_ENTS_OFF);
	memset(mem + mem_next + FAKE_ENTS_OFF, FAKE_PATTERN,
	       size - FAKE_ENTS_OFF);
	*(uint32_t *)(mem + mem_next + FAKE_PROD_OFF) = fake_start_index;
	*(uint32_t *)(mem + mem_next + FAKE_CONS_OFF) = fake_start_index;
	mem_next += size;
}

static int fake_create_async_fd(struct rnic_create_async_fd *q)
{
	FAKE_CHECK(q, !q->__reserved);
	q->out_fd = eventfd(0, EFD_CLOEXEC);
	return q->out_fd < 0 ? errno : 0;
}

static int fake_query_device(struct rnic_query_device *q)
{
	FAKE_CHECK(q, !q->__reserved);
	q->out_max_qp_wr = FAKE_MAX_QP_WR;
	q->out_max_sge = FAKE_MAX_SGE;
	q->out_num_comp_vectors = 1;
	q->out_phys_port_cnt = 1;
	return 0;
}

static int fake_alloc_pd(struct rnic_alloc_pd *q)
{
	FAKE_CHECK(q, !q->__reserved);
	q->out_handle = next_handle++;
	return 0;
}

static int fake_destroy(struct rnic_destroy *q)
{
	FAKE_CHECK(q, !q->__reserved);
	last_destroyed = q->handle;
	return 0;
}

static int fake_open_xrcd(struct rnic_open_xrcd *q)
{
	FAKE_CHECK(q, !q->__reserved);
	q->out_handle = next_handle++;
	last_open_xrcd = *q;
	return 0;
}

/* The handle of the domain opened last. */
static uint32_t fake_last_xrcd_handle(void)
{
	return last_open_xrcd.out_handle;
}

static int fake_open_qp(struct rnic_open_qp *q)
{
	FAKE_CHECK(q, !q->__reserved);
	last_open_qp = *q;
	q->out_handle = next_handle++;
	return 0;
}

/*
 * The CQs' rings, for resize and the fake producer (fake_cq_post()):
 * fake_cq_lock plays rnic_cq.lock.
 */
static pthread_mutex_t fake_cq_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint32_t handle;
	struct rnic_ring_info ri;
} fcqs[FAKE_MAX_OBJS];
static unsigned int nr_cqs;

static struct rnic_ring_info *fake_cq_ring(uint32_t handle)
{
	unsigned int i;

	for (i = 0; i < nr_cqs; i++)
		if (fcqs[i].handle == handle)
			return &fcqs[i].ri;
	return NULL;
}

static int fake_create_cq(struct rnic_create_cq *q)
{
	FAKE_CHECK(q, !q->__reserved && !q->channel_handle);
	if (nr_cqs == FAKE_MAX_OBJS)
		return ENOMEM;
	q->out_handle = next_handle++;
	q->out_arm_off = FAKE_ARM_OFF;
	pthread_mutex_lock(&fake_cq_lock);
	fake_ring(&q->out_ring, roundup_pow2(q->cqe), sizeof(struct rnic_cqe));
	fcqs[nr_cqs].handle = q->out_handle;
	fcqs[nr_cqs++].ri = q->out_ring;
	pthread_mutex_unlock(&fake_cq_lock);
	if (tamper_cq)
		tamper_cq(&q->out_ring, &q->out_arm_off);
	return 0;
}

static uint32_t *ring_word(const struct rnic_ring_info *ri, uint32_t off);

/* As rnic.ko: the CQEs not polled move to the start of a new ring. */
static int fake_resize_cq(struct rnic_resize_cq *q)
{
	struct rnic_ring_info *old, ri;
	uint32_t cons, n, i;
	int err = 0;

	FAKE_CHECK(q, !q->__reserved);
	pthread_mutex_lock(&fake_cq_lock);
	old = fake_cq_ring(q->handle);
	cons = old ? __atomic_load_n(ring_word(old, FAKE_CONS_OFF),
				     __ATOMIC_ACQUIRE) : 0;
	n = old ? *ring_word(old, FAKE_PROD_OFF) - cons : 0;
	if (!old || !q->cqe || n > roundup_pow2(q->cqe)) {
		err = EINVAL;
		goto out;
	}
	fake_ring(&ri, roundup_pow2(q->cqe), sizeof(struct rnic_cqe));
	for (i = 0; i < n; i++)
		memcpy(mem + ri.offset + FAKE_ENTS_OFF +
		       i * sizeof(struct rnic_cqe),
		       mem + old->offset + FAKE_ENTS_OFF +
		       ((cons + i) & (old->entries - 1)) *
		       sizeof(struct rnic_cqe), sizeof(struct rnic_cqe));
	*ring_word(&ri, FAKE_CONS_OFF) = 0;
	__atomic_store_n(ring_word(&ri, FAKE_PROD_OFF), n, __ATOMIC_RELEASE);
	*old = ri;
	q->out_ring = ri;
	q->out_arm_off = FAKE_ARM_OFF;
	if (tamper_cq)
		tamper_cq(&q->out_ring, &q->out_arm_off);
out:
	pthread_mutex_unlock(&fake_cq_lock);
	return err;
}

/* Produce a copy of @tmpl on the CQ @handle; false if it is full. */
static bool fake_cq_post_cqe(uint32_t handle, const struct rnic_cqe *tmpl)
{
	struct rnic_ring_info *ri;
	struct rnic_cqe *cqe;
	uint32_t prod;
	bool done = false;

	pthread_mutex_lock(&fake_cq_lock);
	ri = fake_cq_ring(handle);
	prod = *ring_word(ri, FAKE_PROD_OFF);
	if (prod - __atomic_load_n(ring_word(ri, FAKE_CONS_OFF),
				   __ATOMIC_ACQUIRE) < ri->entries) {
		cqe = (struct rnic_cqe *)(mem + ri->offset + FAKE_ENTS_OFF) +
		      (prod & (ri->entries - 1));
		*cqe = *tmpl;
		__atomic_store_n(ring_word(ri, FAKE_PROD_OFF), prod + 1,
				 __ATOMIC_RELEASE);
		done = true;
	}
	pthread_mutex_unlock(&fake_cq_lock);
	return done;
}

/* Produce a CQE with @wr_id on the CQ @handle; false if it is full. */
static bool fake_cq_post(uint32_t handle, uint64_t wr_id)
{
	struct rnic_cqe cqe = { .wr_id = wr_id };

	return fake_cq_post_cqe(handle, &cqe);
}

static int fake_destroy_cq(struct rnic_destroy_cq *q)
{
	FAKE_CHECK(q, !q->__reserved);
	fake_cq_destroys++;
	q->out_comp_events_reported = 0;
	q->out_async_events_reported = 0;
	return 0;
}

/* rnic.ko's grant: whole rings, as many SGEs/inline bytes as fit. */
static int fake_create_qp(struct rnic_create_qp *q)
{
	const uint32_t known = RNIC_CREATE_QP_SRQ | RNIC_CREATE_QP_SQ_SIG_ALL |
			       RNIC_CREATE_QP_SQ_POLL;
	struct rnic_qp_cap *c = &q->out_cap;
	uint32_t room;

	last_create_qp = *q;
	if (q->size != sizeof(*q) || q->flags & ~known || q->__reserved ||
	    q->cap.__reserved || q->__reserved2 ||
	    (q->xrcd_handle && q->qp_type != RNIC_QPT_XRC_RECV)) {
		fake_bad_args++;
		return EINVAL;
	}
	/* rnic.ko's XRC grants: a target QP has no queues. */
	if (q->qp_type == RNIC_QPT_XRC_RECV)
		memset(&q->cap, 0, sizeof(q->cap));
	if (nr_qps == FAKE_MAX_OBJS)
		return ENOMEM;
	memset(c, 0, sizeof(*c));
	c->max_send_wr = q->cap.max_send_wr ? roundup_pow2(q->cap.max_send_wr) : 0;
	room = q->cap.max_send_sge * 16;
	if (room < ((q->cap.max_inline_data + 15) & ~15u))
		room = (q->cap.max_inline_data + 15) & ~15u;
	c->max_send_sge = room / 16 > FAKE_MAX_SGE ? FAKE_MAX_SGE : room / 16;
	c->max_inline_data = room > RNIC_MAX_INLINE_DATA ?
			     RNIC_MAX_INLINE_DATA : room;
	if (!(q->flags & RNIC_CREATE_QP_SRQ) &&
	    q->qp_type != RNIC_QPT_XRC_SEND) {
		c->max_recv_wr = q->cap.max_recv_wr ?
				 roundup_pow2(q->cap.max_recv_wr) : 0;
		c->max_recv_sge = q->cap.max_recv_sge;
	}
	memset(&q->out_sq, 0, sizeof(q->out_sq));
	memset(&q->out_rq, 0, sizeof(q->out_rq));
	q->out_sq_flags_off = 0;
	q->out_rq_flags_off = 0;
	if (c->max_send_wr) {
		fake_ring(&q->out_sq, c->max_send_wr,
			  sizeof(struct rnic_send_wqe) +
			  (room > c->max_inline_data ? room : c->max_inline_data));
		q->out_sq_flags_off = FAKE_FLAGS_OFF;
	}
	if (c->max_recv_wr) {
		fake_ring(&q->out_rq, c->max_recv_wr,
			  sizeof(struct rnic_recv_wqe) + c->max_recv_sge * 16);
		q->out_rq_flags_off = FAKE_FLAGS_OFF;
	}
	q->out_handle = next_handle++;
	q->out_qp_num = 0x100 + nr_qps;
	fqps[nr_qps++].cmd = *q;
	if (tamper_qp)
		tamper_qp(q);
	return 0;
}

static struct fake_qp *fake_qp_of(uint32_t handle)
{
	unsigned int i;

	for (i = 0; i < nr_qps; i++)
		if (fqps[i].cmd.out_handle == handle)
			return &fqps[i];
	return NULL;
}

static uint32_t *ring_word(const struct rnic_ring_info *ri, uint32_t off)
{
	return (uint32_t *)(mem + ri->offset + off);
}

/* Moving to RESET sets every index of both rings back to 0. */
static int fake_modify_qp(struct rnic_modify_qp *q)
{
	struct fake_qp *f = fake_qp_of(q->handle);

	FAKE_CHECK(q, !q->attr.__reserved);
	if (!f)
		return EINVAL;
	if ((q->attr_mask & RNIC_QP_STATE) &&
	    q->attr.qp_state == RNIC_QPS_RESET) {
		if (f->cmd.out_sq.size) {
			*ring_word(&f->cmd.out_sq, FAKE_PROD_OFF) = 0;
			*ring_word(&f->cmd.out_sq, FAKE_CONS_OFF) = 0;
		}
		if (f->cmd.out_rq.size) {
			*ring_word(&f->cmd.out_rq, FAKE_PROD_OFF) = 0;
			*ring_word(&f->cmd.out_rq, FAKE_CONS_OFF) = 0;
		}
	}
	return 0;
}

static int fake_query_qp(struct rnic_query_qp *q)
{
	FAKE_CHECK(q, !q->__reserved);
	memset(&q->out_attr, 0, sizeof(q->out_attr));
	memset(&q->out_cap, 0, sizeof(q->out_cap));
	return 0;
}

static int fake_destroy_qp(struct rnic_destroy_qp *q)
{
	FAKE_CHECK(q, !q->__reserved);
	last_destroyed = q->handle;
	fake_destroys++;
	q->out_async_events_reported = 0;
	return 0;
}

static int fake_create_srq(struct rnic_create_srq *q)
{
	bool xrc = q->flags & RNIC_CREATE_SRQ_XRC;

	last_create_srq = *q;
	if (q->size != sizeof(*q) || q->flags & ~(uint32_t)RNIC_CREATE_SRQ_XRC ||
	    q->__reserved || q->__reserved2 ||
	    (!xrc && (q->xrcd_handle || q->cq_handle))) {
		fake_bad_args++;
		return EINVAL;
	}
	if (nr_srqs == FAKE_MAX_OBJS)
		return ENOMEM;
	q->out_srq_num = xrc ? 0xabc000 + nr_srqs : 0;
	q->out_handle = next_handle++;
	q->out_max_wr = roundup_pow2(q->max_wr);
	q->out_max_sge = q->max_sge;
	fake_ring(&q->out_ring, q->out_max_wr,
		  sizeof(struct rnic_recv_wqe) + q->out_max_sge * 16);
	fsrqs[nr_srqs++] = *q;
	if (tamper_srq)
		tamper_srq(q);
	return 0;
}

static int fake_destroy_srq(struct rnic_destroy_srq *q)
{
	FAKE_CHECK(q, !q->__reserved);
	last_destroyed = q->handle;
	fake_destroys++;
	q->out_async_events_reported = 0;
	return 0;
}

static int fake_create_ah(struct rnic_create_ah *q)
{
	FAKE_CHECK(q, 1);
	q->out_handle = 0x1000 + next_handle++;
	return 0;
}

static int fake_kick_sq(struct rnic_kick_sq *q)
{
	if (q->size != sizeof(*q) || q->flags & ~(uint32_t)RNIC_KICK_RQ ||
	    q->__reserved) {
		__atomic_add_fetch(&fake_bad_args, 1, __ATOMIC_RELAXED);
		return EINVAL;
	}
	__atomic_add_fetch(&kicks, 1, __ATOMIC_RELAXED);
	kick_cmd = RNIC_IOCTL_KICK_SQ;
	kick_flags = q->flags;
	kick_handle = q->qp_handle;
	return fake_kick_err;
}

static int fake_ring_sq(unsigned long handle)
{
	if (fake_ring_sq_err)
		return fake_ring_sq_err;
	__atomic_add_fetch(&kicks, 1, __ATOMIC_RELAXED);
	kick_cmd = RNIC_IOCTL_RING_SQ;
	kick_flags = 0;
	kick_handle = handle;
	return fake_kick_err;
}

static bool is_fake_fd(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	       st.st_rdev == null_rdev;
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int err;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (!is_fake_fd(fd) || _IOC_TYPE(request) != RNIC_IOCTL_MAGIC)
		return (int)syscall(SYS_ioctl, fd, request, arg);

	__atomic_add_fetch(&fake_calls, 1, __ATOMIC_RELAXED);
	switch (request) {
	case RNIC_IOCTL_QUERY_DEVICE:
		err = fake_query_device(arg);
		break;
	case RNIC_IOCTL_CREATE_ASYNC_FD:
		err = fake_create_async_fd(arg);
		break;
	case RNIC_IOCTL_ALLOC_PD:
		err = fake_alloc_pd(arg);
		break;
	case RNIC_IOCTL_DEALLOC_PD:
	case RNIC_IOCTL_DESTROY_AH:
	case RNIC_IOCTL_CLOSE_XRCD:
		err = fake_destroy(arg);
		break;
	case RNIC_IOCTL_OPEN_XRCD:
		err = fake_open_xrcd(arg);
		break;
	case RNIC_IOCTL_OPEN_QP:
		err = fake_open_qp(arg);
		break;
	case RNIC_IOCTL_QUERY_QP:
		err = fake_query_qp(arg);
		break;
	case RNIC_IOCTL_CREATE_CQ:
		err = fake_create_cq(arg);
		break;
	case RNIC_IOCTL_DESTROY_CQ:
		err = fake_destroy_cq(arg);
		break;
	case RNIC_IOCTL_RESIZE_CQ:
		err = fake_resize_cq(arg);
		break;
	case RNIC_IOCTL_CREATE_QP:
		err = fake_create_qp(arg);
		break;
	case RNIC_IOCTL_MODIFY_QP:
		err = fake_modify_qp(arg);
		break;
	case RNIC_IOCTL_DESTROY_QP:
		err = fake_destroy_qp(arg);
		break;
	case RNIC_IOCTL_CREATE_SRQ:
		err = fake_create_srq(arg);
		break;
	case RNIC_IOCTL_DESTROY_SRQ:
		err = fake_destroy_srq(arg);
		break;
	case RNIC_IOCTL_CREATE_AH:
		err = fake_create_ah(arg);
		break;
	case RNIC_IOCTL_KICK_SQ:
		err = fake_kick_sq(arg);
		break;
	case RNIC_IOCTL_RING_SQ:
		err = fake_ring_sq((uintptr_t)arg);
		break;
	default:
		err = ENOTTY;
		break;
	}
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

static void *real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		       off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* MAP_FIXED at @addr replaces the fake regions mapped in there. */
static void fake_maps_replaced(void *addr, size_t len)
{
	int i;

	for (i = 0; i < FAKE_MAX_OBJS; i++) {
		if (maps[i].addr && (char *)maps[i].addr >= (char *)addr &&
		    (char *)maps[i].addr < (char *)addr + len) {
			maps[i].addr = NULL;
			fake_maps_live--;
		}
	}
}

/* A region of the device is the same range of the memfd. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;
	int i;

	if (flags & MAP_FIXED)
		fake_maps_replaced(addr, len);
	if (!is_fake_fd(fd))
		return real_mmap(addr, len, prot, flags, fd, off);
	if (prot != (PROT_READ | PROT_WRITE) ||
	    (flags & ~MAP_FIXED) != MAP_SHARED ||
	    off % FAKE_PAGE || off + len > mem_next) {
		fake_bad_args++;
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (fake_mmap_fail) {
		if (fake_mmap_fail_skip) {
			fake_mmap_fail_skip--;
		} else {
			errno = fake_mmap_fail;
			fake_mmap_fail = 0;
			return MAP_FAILED;
		}
	}
	p = real_mmap(addr, len, prot, flags, mem_fd, off);
	if (p == MAP_FAILED)
		return p;
	for (i = 0; i < FAKE_MAX_OBJS; i++) {
		if (!maps[i].addr) {
			maps[i].addr = p;
			maps[i].len = len;
			fake_maps_live++;
			break;
		}
	}
	return p;
}

int munmap(void *addr, size_t len)
{
	int i;

	for (i = 0; i < FAKE_MAX_OBJS; i++) {
		if (maps[i].addr == addr) {
			if (maps[i].len != len)
				fake_bad_args++;
			maps[i].addr = NULL;
			fake_maps_live--;
			break;
		}
	}
	return (int)syscall(SYS_munmap, addr, len);
}

/* ---- helpers ------------------------------------------------------- */

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_ah *ah;

struct caps {
	uint32_t swr, rwr, ssge, rsge, inl;
};

static struct ibv_qp *make_qp(enum ibv_qp_type type, struct caps c,
			      struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
		.cap = {
			.max_send_wr = c.swr,
			.max_recv_wr = c.rwr,
			.max_send_sge = c.ssge,
			.max_recv_sge = c.rsge,
			.max_inline_data = c.inl,
		},
	};

	return ibv_create_qp(pd, &a);
}

static int set_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

static const struct rnic_ring_info *sq_of(struct ibv_qp *qp)
{
	return &fake_qp_of(qp->handle)->cmd.out_sq;
}

static const struct rnic_ring_info *rq_of(struct ibv_qp *qp)
{
	return &fake_qp_of(qp->handle)->cmd.out_rq;
}

static const struct rnic_ring_info *srq_ring_of(struct ibv_srq *srq)
{
	unsigned int i;

	for (i = 0; i < nr_srqs; i++)
		if (fsrqs[i].out_handle == srq->handle)
			return &fsrqs[i].out_ring;
	return NULL;
}

static uint32_t prod(const struct rnic_ring_info *ri)
{
	return __atomic_load_n(ring_word(ri, ri->producer_off),
			       __ATOMIC_ACQUIRE);
}

static void set_cons(const struct rnic_ring_info *ri, uint32_t v)
{
	__atomic_store_n(ring_word(ri, ri->consumer_off), v, __ATOMIC_RELEASE);
}

static void set_flags(const struct rnic_ring_info *ri, uint32_t v)
{
	__atomic_store_n(ring_word(ri, FAKE_FLAGS_OFF), v, __ATOMIC_RELEASE);
}

static char *slot(const struct rnic_ring_info *ri, uint32_t idx)
{
	return mem + ri->offset + ri->entries_off +
	       (size_t)(idx & (ri->entries - 1)) * ri->entry_size;
}

static struct rnic_send_wqe swqe(const struct rnic_ring_info *ri,
				 uint32_t idx)
{
	struct rnic_send_wqe w;

	memcpy(&w, slot(ri, idx), sizeof(w));
	return w;
}

static bool untouched(const struct rnic_ring_info *ri, uint32_t idx)
{
	const char *p = slot(ri, idx);
	uint32_t i;

	for (i = 0; i < ri->entry_size; i++)
		if ((unsigned char)p[i] != FAKE_PATTERN)
			return false;
	return true;
}

static void fill_pattern(const struct rnic_ring_info *ri)
{
	memset(mem + ri->offset + ri->entries_off, FAKE_PATTERN,
	       (size_t)ri->entries * ri->entry_size);
}

static bool zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}

/* A WR any QP type takes: SEND, one SGE (of 8 bytes: atomics like it). */
static uint64_t buf8;
static struct ibv_sge sge8 = { .length = 8, .lkey = 0x77 };

static struct ibv_send_wr send_wr(uint64_t wr_id, enum ibv_wr_opcode op)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge8,
		.num_sge = 1,
		.opcode = op,
	};

	sge8.addr = (uintptr_t)&buf8;
	wr.wr.ud.ah = ah;
	return wr;
}

static struct ibv_send_wr *sentinel_send = (struct ibv_send_wr *)&sge8;
static struct ibv_recv_wr *sentinel_recv = (struct ibv_recv_wr *)&sge8;

/* One bad send WR: EINVAL, bad_wr at it, nothing written, no kick. */
static void send_bad(struct ibv_qp *qp, struct ibv_send_wr *wr,
		     const char *what)
{
	const struct rnic_ring_info *ri = sq_of(qp);
	unsigned int k = kicks;
	uint32_t p = prod(ri);
	struct ibv_send_wr *bad = NULL;
	int ret;

	errno = 0;
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == EINVAL && errno == EINVAL && bad == wr && prod(ri) == p &&
	   untouched(ri, p) && kicks == k,
	   "%s: EINVAL, bad_wr at it, nothing posted, no doorbell", what);
	if (ret != EINVAL || bad != wr)
		diag("  ret %d errno %d bad_wr %s", ret, errno,
		     bad == wr ? "right" : "wrong");
}

/* ---- tests ------------------------------------------------------------ */

static void test_create(void)
{
	struct caps c = { .swr = 3, .rwr = 5, .ssge = 2, .rsge = 3, .inl = 40 };
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { 3, 5, 2, 3, 40 },
	};
	struct ibv_qp *qp;
	int live = fake_maps_live;

	qp = ibv_create_qp(pd, &a);
	if (!ok(qp != NULL, "create an RC QP"))
		return;
	ok(a.cap.max_send_wr == 4 && a.cap.max_recv_wr == 8 &&
	   a.cap.max_send_sge == 3 && a.cap.max_recv_sge == 3 &&
	   a.cap.max_inline_data == 48, "granted sizes are written back");
	ok(!(last_create_qp.flags & RNIC_CREATE_QP_SQ_POLL),
	   "no RNIC_SQ_POLL: no SQ polling");
	is_int(fake_maps_live, live + 2, "both rings mapped");
	is_int(qp->state, IBV_QPS_RESET, "created in RESET");
	is_int(ibv_destroy_qp(qp), 0, "destroy the QP");
	is_int(fake_maps_live, live, "destroy unmaps both rings");

	setenv("RNIC_SQ_POLL", "1", 1);
	qp = make_qp(IBV_QPT_RC, c, NULL);
	ok(qp && (last_create_qp.flags & RNIC_CREATE_QP_SQ_POLL),
	   "RNIC_SQ_POLL=1: created with RNIC_CREATE_QP_SQ_POLL");
	if (qp)
		ibv_destroy_qp(qp);
	c.swr = 0;
	qp = make_qp(IBV_QPT_RC, c, NULL);
	ok(qp && !(last_create_qp.flags & RNIC_CREATE_QP_SQ_POLL),
	   "RNIC_SQ_POLL=1 and no send queue: no SQ polling");
	if (qp)
		ibv_destroy_qp(qp);
	c.swr = 3;
	setenv("RNIC_SQ_POLL", "0", 1);
	qp = make_qp(IBV_QPT_RC, c, NULL);
	ok(qp && !(last_create_qp.flags & RNIC_CREATE_QP_SQ_POLL),
	   "RNIC_SQ_POLL=0: no SQ polling");
	if (qp)
		ibv_destroy_qp(qp);
	setenv("RNIC_SQ_POLL", "yes", 1);
	qp = make_qp(IBV_QPT_RC, c, NULL);
	ok(qp && !(last_create_qp.flags & RNIC_CREATE_QP_SQ_POLL),
	   "RNIC_SQ_POLL=yes: no SQ polling (only \"1\" enables)");
	if (qp)
		ibv_destroy_qp(qp);
	unsetenv("RNIC_SQ_POLL");
}

/* A QP without queues maps nothing; posting finds them full. */
static void test_no_rings(void)
{
	struct caps c = { 0 };
	struct ibv_send_wr swr = send_wr(1, IBV_WR_SEND), *sbad = NULL;
	struct ibv_recv_wr rwr = { .wr_id = 2 }, *rbad = NULL;
	int live = fake_maps_live;
	unsigned int k = kicks;
	struct ibv_qp *qp;

	swr.num_sge = 0; /* max_send_sge is 0 too */
	qp = make_qp(IBV_QPT_RC, c, NULL);
	if (!ok(qp != NULL, "create a QP with 0 send and 0 receive WRs"))
		return;
	is_int(fake_maps_live, live, "no ring mapped");
	set_state(qp, IBV_QPS_RTS);
	is_int(ibv_post_send(qp, &swr, &sbad), ENOMEM,
	       "post_send without a send queue: ENOMEM");
	ok(sbad == &swr && kicks == k, "bad_wr at it, no doorbell");
	is_int(ibv_post_recv(qp, &rwr, &rbad), ENOMEM,
	       "post_recv without a receive queue: ENOMEM");
	ok(rbad == &rwr, "bad_wr at it");
	ibv_destroy_qp(qp);
}

/* The kernel's answer is checked before anything is mapped. */
static uint32_t tamper_what;

static void tamper_qp_fn(struct rnic_create_qp *q)
{
	switch (tamper_what) {
	case 0: /* SGEs do not fit */
		q->out_sq.entry_size -= 8;
		break;
	case 1:
		q->out_sq.entries = 3;
		q->out_cap.max_send_wr = 3;
		break;
	case 2: /* not what was granted */
		q->out_sq.entries /= 2;
		break;
	case 3:
		q->out_sq.size = FAKE_ENTS_OFF + 16;
		break;
	case 4: /* on the producer index */
		q->out_sq_flags_off = 0;
		break;
	case 5:
		q->out_sq_flags_off = q->out_sq.size;
		break;
	case 6: /* unaligned */
		q->out_rq.consumer_off = 66;
		break;
	case 7: /* inside an entry */
		q->out_rq_flags_off = FAKE_ENTS_OFF + 8;
		break;
	case 8:
		q->out_sq.consumer_off = q->out_sq.producer_off;
		break;
	case 9: /* unaligned */
		q->out_sq.entries_off = 100;
		break;
	case 10:
		q->out_cap.max_inline_data += 64;
		break;
	case 11:
		q->out_cap.max_recv_sge += 1;
		break;
	case 12:
		q->out_rq.producer_off = q->out_rq.size - 2;
		break;
	case 13:
		q->out_sq.entries = 0;
		break;
	case 14: /* yet a ring */
		q->out_cap.max_recv_wr = 0;
		break;
	}
}

static void tamper_srq_fn(struct rnic_create_srq *q)
{
	if (tamper_what == 0)
		q->out_max_sge += 1;
	else if (tamper_what == 1)
		q->out_max_wr = 0;
	else
		q->out_ring.entries *= 2;
}

static void test_bad_rings(void)
{
	static const char *const what[] = {
		"SQ entry too small for max_send_sge",
		"SQ entries not a power of two",
		"SQ entries not the granted max_send_wr",
		"SQ entries past the region",
		"SQ flags word on the producer index",
		"SQ flags word past the region",
		"RQ consumer index unaligned",
		"RQ flags word inside an entry",
		"SQ producer and consumer in one word",
		"SQ entries unaligned",
		"SQ entry too small for max_inline_data",
		"RQ entry too small for max_recv_sge",
		"RQ producer index across the region's end",
		"SQ with max_send_wr but no entries",
		"RQ ring with max_recv_wr 0",
	};
	struct caps c = { .swr = 4, .rwr = 4, .ssge = 2, .rsge = 2 };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	int live = fake_maps_live;
	unsigned int d, i;
	struct ibv_srq *srq;
	struct ibv_qp *qp;

	tamper_qp = tamper_qp_fn;
	for (i = 0; i < ARRAY_SIZE(what); i++) {
		tamper_what = i;
		d = fake_destroys;
		errno = 0;
		qp = make_qp(IBV_QPT_RC, c, NULL);
		ok(!qp && errno == EPROTO && fake_destroys == d + 1 &&
		   fake_maps_live == live,
		   "%s: EPROTO, QP destroyed, nothing mapped", what[i]);
		if (qp)
			ibv_destroy_qp(qp);
	}
	tamper_qp = NULL;

	/* A failed mmap() of the second ring unmaps the first. */
	fake_mmap_fail = ENOMEM;
	fake_mmap_fail_skip = 1;
	d = fake_destroys;
	errno = 0;
	qp = make_qp(IBV_QPT_RC, c, NULL);
	ok(!qp && errno == ENOMEM && fake_destroys == d + 1 &&
	   fake_maps_live == live,
	   "RQ mmap() fails: its errno, QP destroyed, SQ unmapped");
	fake_mmap_fail = 0;
	fake_mmap_fail_skip = 0;

	tamper_srq = tamper_srq_fn;
	for (i = 0; i < 3; i++) {
		tamper_what = i;
		sa.attr.max_wr = 4;
		sa.attr.max_sge = 1;
		d = fake_destroys;
		errno = 0;
		srq = ibv_create_srq(pd, &sa);
		ok(!srq && errno == EPROTO && fake_destroys == d + 1 &&
		   fake_maps_live == live,
		   "SRQ %s: EPROTO, SRQ destroyed, nothing mapped",
		   i == 0 ? "entry too small for max_sge" :
		   i == 1 ? "with 0 max_wr" : "entries not the granted max_wr");
		if (srq)
			ibv_destroy_srq(srq);
	}
	tamper_srq = NULL;
}

/* A CQ's ring is checked by the same rules as a work queue's. */
static const char *const bad_cq_ring[] = {
	"entry smaller than a CQE",
	"entries not a power of two",
	"no entries",
	"entries past the region",
	"arm word on the producer index",
	"arm word on the consumer index",
	"arm word past the region",
	"arm word unaligned",
	"arm word inside an entry",
	"producer and consumer in one word",
	"consumer index unaligned",
	"producer index across the region's end",
	"entries unaligned",
};

static void tamper_cq_fn(struct rnic_ring_info *ri, uint32_t *arm_off)
{
	switch (tamper_what) {
	case 0:
		ri->entry_size -= 8;
		break;
	case 1:
		ri->entries = 3;
		break;
	case 2:
		ri->entries = 0;
		break;
	case 3:
		ri->size = FAKE_ENTS_OFF + 16;
		break;
	case 4:
		*arm_off = ri->producer_off;
		break;
	case 5:
		*arm_off = ri->consumer_off;
		break;
	case 6:
		*arm_off = ri->size;
		break;
	case 7:
		*arm_off = FAKE_ARM_OFF + 2;
		break;
	case 8:
		*arm_off = FAKE_ENTS_OFF + 8;
		break;
	case 9:
		ri->consumer_off = ri->producer_off;
		break;
	case 10:
		ri->consumer_off = FAKE_CONS_OFF + 2;
		break;
	case 11:
		ri->producer_off = ri->size - 2;
		break;
	case 12:
		ri->entries_off = FAKE_ENTS_OFF - 28;
		break;
	}
}

static void test_bad_cq_rings(void)
{
	struct ibv_wc wc;
	int live = fake_maps_live;
	unsigned int d, i;
	struct ibv_cq *bad;
	int ret;

	tamper_cq = tamper_cq_fn;
	for (i = 0; i < ARRAY_SIZE(bad_cq_ring); i++) {
		tamper_what = i;
		d = fake_cq_destroys;
		errno = 0;
		bad = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		ok(!bad && errno == EPROTO && fake_cq_destroys == d + 1 &&
		   fake_maps_live == live,
		   "CQ %s: EPROTO, CQ destroyed, nothing mapped",
		   bad_cq_ring[i]);
		if (bad)
			ibv_destroy_cq(bad);
	}

	/* On resize: EPROTO, and the CQ keeps its old ring until destroy. */
	for (i = 0; i < ARRAY_SIZE(bad_cq_ring); i++) {
		tamper_cq = NULL;
		bad = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		if (!ok(bad != NULL, "a CQ to resize"))
			break;
		tamper_what = i;
		tamper_cq = tamper_cq_fn;
		errno = 0;
		ret = ibv_resize_cq(bad, 32);
		ok(ret == EPROTO && errno == EPROTO && bad->cqe == 16 &&
		   ibv_poll_cq(bad, 1, &wc) == 0,
		   "resize, new ring's %s: EPROTO, CQ as it was",
		   bad_cq_ring[i]);
		tamper_cq = NULL;
		is_int(ibv_destroy_cq(bad), 0, "... and it is destroyed");
		is_int(fake_maps_live, live, "... with every ring unmapped");
	}
	tamper_cq = NULL;
}

static void test_send_state(void)
{
	static const struct {
		enum ibv_qp_state s;
		const char *name;
		int ret;
	} states[] = {
		{ IBV_QPS_RESET, "RESET", EINVAL },
		{ IBV_QPS_INIT, "INIT", EINVAL },
		{ IBV_QPS_RTR, "RTR", EINVAL },
		{ IBV_QPS_RTS, "RTS", 0 },
		{ IBV_QPS_SQD, "SQD", 0 },
		{ IBV_QPS_SQE, "SQE", 0 },
		{ IBV_QPS_ERR, "ERR", 0 },
	};
	struct caps c = { .swr = 16, .ssge = 1 };
	struct ibv_send_wr wr = send_wr(7, IBV_WR_SEND), *bad;
	const struct rnic_ring_info *ri;
	struct ibv_qp *qp;
	unsigned int i, k;
	uint32_t p;
	int ret;

	qp = make_qp(IBV_QPT_RC, c, NULL);
	if (!ok(qp != NULL, "create an RC QP for the state checks"))
		return;
	ri = sq_of(qp);
	for (i = 0; i < ARRAY_SIZE(states); i++) {
		set_state(qp, states[i].s);
		if (states[i].ret) {
			send_bad(qp, &wr, states[i].name);
			continue;
		}
		k = kicks;
		p = prod(ri);
		bad = sentinel_send;
		ret = ibv_post_send(qp, &wr, &bad);
		ok(!ret && prod(ri) == p + 1 && kicks == k + 1 &&
		   bad == sentinel_send,
		   "%s: posted, one doorbell, bad_wr untouched",
		   states[i].name);
	}
	ibv_destroy_qp(qp);
}

static void test_opcodes(void)
{
	static const int ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, IBV_WR_SEND_WITH_INV,
		IBV_WR_TSO, IBV_WR_DRIVER1, IBV_WR_ATOMIC_WRITE, 12, 31, 32,
		1000, -1,
	};
	static const struct {
		enum ibv_qp_type type;
		const char *name;
		uint32_t allowed; /* bit per index of ops[] */
	} types[] = {
		/* BIND_MW without a window is EINVAL: test_bind_wqe() */
		{ IBV_QPT_RC, "RC", 0x2ff },
		{ IBV_QPT_UC, "UC", 0x08f },
		{ IBV_QPT_UD, "UD", 0x0c },
	};
	struct caps c = { .swr = 64, .ssge = 1 };
	struct ibv_send_wr wr, *bad;
	const struct rnic_ring_info *ri;
	unsigned int t, i;
	struct ibv_qp *qp;
	uint32_t p;
	int ret;

	for (t = 0; t < 3; t++) {
		qp = make_qp(types[t].type, c, NULL);
		if (!ok(qp != NULL, "create a %s QP", types[t].name))
			continue;
		ri = sq_of(qp);
		set_state(qp, IBV_QPS_RTS);
		for (i = 0; i < ARRAY_SIZE(ops); i++) {
			wr = send_wr(i, (enum ibv_wr_opcode)ops[i]);
			if (!(types[t].allowed & 1u << i)) {
				char what[64];

				snprintf(what, sizeof(what), "%s opcode %d",
					 types[t].name, ops[i]);
				send_bad(qp, &wr, what);
				continue;
			}
			p = prod(ri);
			ret = ibv_post_send(qp, &wr, &bad);
			ok(!ret && prod(ri) == p + 1 &&
			   swqe(ri, p).opcode == (uint32_t)ops[i] &&
			   swqe(ri, p).wr_id == i,
			   "%s opcode %d: posted as that opcode",
			   types[t].name, ops[i]);
		}
		ibv_destroy_qp(qp);
	}
}

/* Memory window work requests: what reaches the ring, what is refused. */
static void test_bind_wqe(void)
{
	struct caps c = { .swr = 16, .ssge = 2, .inl = 32 };
	struct ibv_context other = { 0 };
	struct ibv_pd mpd = { 0 };
	struct ibv_mr mr = { .pd = &mpd, .lkey = 0x1234 };
	struct ibv_mw mw = { .handle = 42, .type = IBV_MW_TYPE_2 };
	struct ibv_send_wr wr, *bad;
	const struct rnic_ring_info *ri;
	struct rnic_send_wqe w;
	struct ibv_qp *qp;
	uint32_t p;

	qp = make_qp(IBV_QPT_RC, c, NULL);
	if (!ok(qp != NULL, "create an RC QP for binds"))
		return;
	ri = sq_of(qp);
	set_state(qp, IBV_QPS_RTS);
	mw.context = qp->context;

	wr = send_wr(7, IBV_WR_BIND_MW);
	wr.num_sge = 2; /* ignored: a bind has no data */
	wr.bind_mw.mw = &mw;
	wr.bind_mw.rkey = 0xabcdef01;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = &mr, .addr = 0x1000, .length = 0x2000,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	p = prod(ri);
	ok(!ibv_post_send(qp, &wr, &bad) && prod(ri) == p + 1,
	   "a type 2 bind is posted");
	w = swqe(ri, p);
	ok(w.opcode == RNIC_WR_BIND_MW && w.wr_id == 7 && !w.num_sge &&
	   w.wr.bind.mw_handle == 42 && w.wr.bind.rkey == 0xabcdef01 &&
	   w.wr.bind.mr_lkey == 0x1234 && w.wr.bind.addr == 0x1000 &&
	   w.wr.bind.length == 0x2000 &&
	   w.wr.bind.access == IBV_ACCESS_REMOTE_WRITE,
	   "the bind WQE carries the window, rkey, region, range and rights");

	wr.bind_mw.bind_info.mr = NULL;
	send_bad(qp, &wr, "a bind with a length and no region");
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.mw = NULL;
	send_bad(qp, &wr, "a bind without a window");
	mw.context = &other;
	wr.bind_mw.mw = &mw;
	send_bad(qp, &wr, "a bind of another context's window");
	mw.context = qp->context;
	wr.send_flags = IBV_SEND_INLINE;
	send_bad(qp, &wr, "an inline bind");

	wr = send_wr(8, IBV_WR_LOCAL_INV);
	wr.invalidate_rkey = 0x55aa55aa;
	p = prod(ri);
	ok(!ibv_post_send(qp, &wr, &bad) && prod(ri) == p + 1 &&
	   swqe(ri, p).ex.invalidate_rkey == 0x55aa55aa && !swqe(ri, p).num_sge,
	   "LOCAL_INV carries the rkey, no SGE");
	wr = send_wr(9, IBV_WR_SEND_WITH_INV);
	wr.invalidate_rkey = 0x11223344;
	p = prod(ri);
	ok(!ibv_post_send(qp, &wr, &bad) && prod(ri) == p + 1 &&
	   swqe(ri, p).ex.invalidate_rkey == 0x11223344 &&
	   swqe(ri, p).num_sge == 1,
	   "SEND_WITH_INV carries the rkey and its data");
	ibv_destroy_qp(qp);
}

static void test_send_checks(void)
{
	struct caps c = { .swr = 16, .ssge = 2, .inl = 32 };
	struct ibv_sge sges[4], big[2];
	struct ibv_send_wr wr;
	struct ibv_qp *qp, *ud;
	char data[64];
	int i;

	qp = make_qp(IBV_QPT_RC, c, NULL);
	ud = make_qp(IBV_QPT_UD, c, NULL);
	if (!ok(qp && ud, "create RC and UD QPs for the checks"))
		goto out;
	set_state(qp, IBV_QPS_RTS);
	set_state(ud, IBV_QPS_RTS);
	memset(sges, 0, sizeof(sges));
	for (i = 0; i < 4; i++) {
		sges[i].addr = (uintptr_t)data;
		sges[i].length = 8;
	}

	wr = send_wr(1, IBV_WR_SEND);
	wr.send_flags = IBV_SEND_IP_CSUM;
	send_bad(qp, &wr, "IBV_SEND_IP_CSUM");
	wr.send_flags = 1 << 5;
	send_bad(qp, &wr, "unknown send flag 1 << 5");
	wr.send_flags = IBV_SEND_SIGNALED | 1u << 31;
	send_bad(qp, &wr, "unknown send flag 1 << 31");

	wr = send_wr(2, IBV_WR_SEND);
	wr.num_sge = -1;
	send_bad(qp, &wr, "num_sge -1");
	wr.sg_list = sges;
	wr.num_sge = 3;
	send_bad(qp, &wr, "num_sge max_send_sge + 1");
	wr.send_flags = IBV_SEND_INLINE;
	wr.num_sge = -1;
	send_bad(qp, &wr, "inline with num_sge -1");

	/* 8 + 8 + 8 + 9 bytes > max_inline_data 32 */
	wr.num_sge = 4;
	sges[3].length = 9;
	send_bad(qp, &wr, "inline 33 bytes, max_inline_data 32");
	sges[3].length = 8;
	big[0].addr = big[1].addr = (uintptr_t)data;
	big[0].length = big[1].length = 0x80000000u;
	wr.sg_list = big;
	wr.num_sge = 2;
	send_bad(qp, &wr, "inline lengths whose 32-bit sum wraps to 0");
	big[0].length = 0xffffffffu;
	big[1].length = 2;
	send_bad(qp, &wr, "inline lengths whose 32-bit sum wraps to 1");

	wr = send_wr(3, IBV_WR_RDMA_READ);
	wr.send_flags = IBV_SEND_INLINE;
	send_bad(qp, &wr, "inline RDMA READ");
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	send_bad(qp, &wr, "inline compare and swap");
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	send_bad(qp, &wr, "inline fetch and add");

	wr = send_wr(4, IBV_WR_ATOMIC_CMP_AND_SWP);
	wr.num_sge = 0;
	send_bad(qp, &wr, "compare and swap without an SGE");
	wr.sg_list = sges;
	wr.num_sge = 2;
	send_bad(qp, &wr, "compare and swap with 2 SGEs");
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.num_sge = 1;
	sges[0].length = 4;
	send_bad(qp, &wr, "fetch and add with a 4-byte SGE");
	sges[0].length = 16;
	send_bad(qp, &wr, "fetch and add with a 16-byte SGE");
	sges[0].length = 8;

	wr = send_wr(5, IBV_WR_SEND);
	wr.wr.ud.ah = NULL;
	send_bad(ud, &wr, "UD send without an address handle");
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (ud)
		ibv_destroy_qp(ud);
}

static void test_send_encoding(void)
{
	struct caps c = { .swr = 16, .ssge = 3, .inl = 48 };
	struct ibv_sge sges[6] = {
		{ 0x1111222233334444ULL, 0x1000, 0xaaaa0001 },
		{ 0x5555666677778888ULL, 0, 0xaaaa0002 },
		{ 0x9999aaaabbbbccccULL, 0xffffffffu, 0xaaaa0003 },
	};
	struct ibv_send_wr wr, *bad;
	const struct rnic_ring_info *ri;
	struct rnic_send_wqe w;
	struct rnic_sge s[3];
	char src[3][16], *inl;
	struct ibv_qp *qp;
	uint32_t p;
	int i;

	qp = make_qp(IBV_QPT_RC, c, NULL);
	if (!ok(qp != NULL, "create an RC QP for the encoding"))
		return;
	ri = sq_of(qp);
	set_state(qp, IBV_QPS_RTS);

	/* RDMA WRITE with immediate, 3 SGEs, every flag */
	memset(&wr, 0x5a, sizeof(wr));
	wr.wr_id = 0x0123456789abcdefULL;
	wr.next = NULL;
	wr.sg_list = sges;
	wr.num_sge = 3;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	wr.imm_data = htobe32(0xfeedbeef);
	wr.wr.rdma.remote_addr = 0xdeadbeef00c0ffeeULL;
	wr.wr.rdma.rkey = 0x12345678;
	p = prod(ri);
	is_int(ibv_post_send(qp, &wr, &bad), 0, "post RDMA WRITE with imm");
	w = swqe(ri, p);
	ok(w.wr_id == wr.wr_id, "wr_id");
	is_int(w.opcode, RNIC_WR_RDMA_WRITE_WITH_IMM, "opcode");
	is_int(w.send_flags,
	       RNIC_SEND_FENCE | RNIC_SEND_SIGNALED | RNIC_SEND_SOLICITED,
	       "send_flags");
	ok(w.ex.imm_data == htobe32(0xfeedbeef), "imm_data, network order");
	is_int(w.num_sge, 3, "num_sge");
	is_int(w.inline_len, 0, "inline_len 0");
	is_int(w.remote_srqn, 0, "remote_srqn 0 (not an XRC QP)");
	ok(w.wr.rdma.remote_addr == 0xdeadbeef00c0ffeeULL &&
	   w.wr.rdma.rkey == 0x12345678 && !w.wr.rdma.__reserved,
	   "rdma: remote_addr, rkey, reserved 0");
	ok(zero((char *)&w + 48, 16), "the rest of the per-opcode part is 0");
	memcpy(s, slot(ri, p) + sizeof(w), sizeof(s));
	ok(s[0].addr == sges[0].addr && s[0].length == sges[0].length &&
	   s[0].lkey == sges[0].lkey && s[1].addr == sges[1].addr &&
	   s[1].length == 0 && s[1].lkey == sges[1].lkey &&
	   s[2].addr == sges[2].addr && s[2].length == 0xffffffffu &&
	   s[2].lkey == sges[2].lkey, "the 3 SGEs follow the header");
	ok(untouched(ri, p + 1), "the next entry is untouched");

	/* RDMA WRITE without immediate: imm_data is not carried */
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = 0;
	wr.num_sge = 0;
	p = prod(ri);
	is_int(ibv_post_send(qp, &wr, &bad), 0, "post RDMA WRITE, 0 SGEs");
	w = swqe(ri, p);
	ok(w.opcode == RNIC_WR_RDMA_WRITE && !w.send_flags &&
	   !w.ex.imm_data && !w.num_sge &&
	   w.wr.rdma.remote_addr == 0xdeadbeef00c0ffeeULL,
	   "WRITE: no imm_data, no flags, no SGE, remote address");

	/* RDMA READ */
	wr.opcode = IBV_WR_RDMA_READ;
	wr.num_sge = 2;
	wr.wr.rdma.remote_addr = 0x42;
	wr.wr.rdma.rkey = 0x43;
	p = prod(ri);
	is_int(ibv_post_send(qp, &wr, &bad), 0, "post RDMA READ");
	w = swqe(ri, p);
	memcpy(s, slot(ri, p) + sizeof(w), sizeof(s));
	ok(w.opcode == RNIC_WR_RDMA_READ && !w.ex.imm_data && w.num_sge == 2 &&
	   w.wr.rdma.remote_addr == 0x42 && w.wr.rdma.rkey == 0x43 &&
	   s[1].addr == sges[1].addr && zero((char *)&w + 48, 16),
	   "READ: remote address, rkey, SGEs");

	/* atomics */
	wr = send_wr(0x77, IBV_WR_ATOMIC_CMP_AND_SWP);
	memset(&wr.wr, 0x5a, sizeof(wr.wr));
	wr.wr.atomic.remote_addr = 0x1000000000000008ULL;
	wr.wr.atomic.compare_add = 0xc0c0c0c0c0c0c0c0ULL;
	wr.wr.atomic.swap = 0x5050505050505050ULL;
	wr.wr.atomic.rkey = 0xabcdef01;
	wr.send_flags = IBV_SEND_SIGNALED;
	p = prod(ri);
	is_int(ibv_post_send(qp, &wr, &bad), 0, "post compare and swap");
	w = swqe(ri, p);
	memcpy(s, slot(ri, p) + sizeof(w), sizeof(s[0]));
	ok(w.opcode == RNIC_WR_ATOMIC_CMP_AND_SWP && w.num_sge == 1 &&
	   w.wr.atomic.remote_addr == 0x1000000000000008ULL &&
	   w.wr.atomic.compare_add == 0xc0c0c0c0c0c0c0c0ULL &&
	   w.wr.atomic.swap == 0x5050505050505050ULL &&
	   w.wr.atomic.rkey == 0xabcdef01 && !w.wr.atomic.__reserved &&
	   s[0].length == 8 && s[0].lkey == 0x77 &&
	   s[0].addr == (uintptr_t)&buf8,
	   "compare and swap: every atomic field, the 8-byte SGE");
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.swap = 0;
	p = prod(ri);
	is_int(ibv_post_send(qp, &wr, &bad), 0, "post fetch and add");
	w = swqe(ri, p);
	ok(w.opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD &&
	   w.wr.atomic.compare_add == 0xc0c0c0c0c0c0c0c0ULL &&
	   !w.wr.atomic.swap, "fetch and add: the value to add");

	/* RC SEND: the per-opcode part is all zero */
	wr = send_wr(0x88, IBV_WR_SEND);
	memset(&wr.wr, 0x5a, sizeof(wr.wr));
	wr.imm_data = 0x5a5a5a5a;
	p = prod(ri);
	is_int(ibv_post_send(qp, &wr, &bad), 0, "post RC SEND");
	w = swqe(ri, p);
	ok(w.opcode == RNIC_WR_SEND && !w.ex.imm_data &&
	   zero(&w.wr, sizeof(w.wr)), "RC SEND: no imm_data, no remote part");
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(7);
	p = prod(ri);
	is_int(ibv_post_send(qp, &wr, &bad), 0, "post RC SEND with imm");
	w = swqe(ri, p);
	ok(w.ex.imm_data == htobe32(7) && zero(&w.wr, sizeof(w.wr)),
	   "RC SEND with imm: imm_data, no remote part");

	/* inline: bytes copied, lkeys and addresses not carried */
	for (i = 0; i < 3; i++) {
		memset(src[i], 'a' + i, sizeof(src[i]));
		sges[i].addr = (uintptr_t)src[i];
		sges[i].lkey = 0xdead;
	}
	sges[0].length = 5;
	sges[1].length = 0;
	sges[2].length = 11;
	wr = send_wr(0x99, IBV_WR_SEND);
	wr.sg_list = sges;
	wr.num_sge = 3;
	wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	p = prod(ri);
	is_int(ibv_post_send(qp, &wr, &bad), 0, "post inline SEND");
	memset(src, 0, sizeof(src)); /* copied at post time */
	w = swqe(ri, p);
	inl = slot(ri, p) + sizeof(w);
	ok(w.send_flags == (RNIC_SEND_INLINE | RNIC_SEND_SIGNALED) &&
	   w.inline_len == 16 && w.num_sge == 0,
	   "inline: flag, inline_len 16, num_sge 0");
	ok(!memcmp(inl, "aaaaa", 5) && !memcmp(inl + 5, "ccccccccccc", 11),
	   "inline: the SGEs' bytes, in order, after the header");
	ok((unsigned char)inl[16] == FAKE_PATTERN,
	   "inline: nothing written past the data");

	/* inline at max_inline_data, with more SGEs than max_send_sge */
	for (i = 0; i < 6; i++) {
		sges[i].addr = (uintptr_t)src;
		sges[i].length = 8;
	}
	memset(src, 'z', sizeof(src));
	wr.num_sge = 6;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(9);
	wr.wr.rdma.remote_addr = 0x5000;
	wr.wr.rdma.rkey = 5;
	p = prod(ri);
	is_int(ibv_post_send(qp, &wr, &bad), 0,
	       "inline WRITE with imm: 48 bytes in 6 SGEs (max_send_sge 3)");
	w = swqe(ri, p);
	inl = slot(ri, p) + sizeof(w);
	ok(w.inline_len == 48 && w.num_sge == 0 &&
	   w.ex.imm_data == htobe32(9) && w.wr.rdma.remote_addr == 0x5000 &&
	   w.wr.rdma.rkey == 5 && inl[0] == 'z' && inl[47] == 'z',
	   "inline WRITE: 48 bytes, imm_data, remote address");
	sges[5].length = 9;
	send_bad(qp, &wr, "inline 49 bytes, max_inline_data 48");

	/* exactly max_send_sge SGEs */
	wr.send_flags = 0;
	wr.num_sge = 3;
	p = prod(ri);
	is_int(ibv_post_send(qp, &wr, &bad), 0, "max_send_sge SGEs");
	is_int(swqe(ri, p).num_sge, 3, "all of them encoded");
	ibv_destroy_qp(qp);
}

static void test_ud_encoding(void)
{
	struct caps c = { .swr = 4, .ssge = 1 };
	const struct rnic_ring_info *ri;
	struct ibv_send_wr wr, *bad;
	struct rnic_send_wqe w;
	struct ibv_qp *qp;

	qp = make_qp(IBV_QPT_UD, c, NULL);
	if (!ok(qp != NULL, "create a UD QP"))
		return;
	ri = sq_of(qp);
	set_state(qp, IBV_QPS_RTS);
	wr = send_wr(0x55, IBV_WR_SEND_WITH_IMM);
	memset(&wr.wr, 0x5a, sizeof(wr.wr));
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0xabcdef;
	wr.wr.ud.remote_qkey = 0x80000000u;
	wr.imm_data = htobe32(0x1234);
	is_int(ibv_post_send(qp, &wr, &bad), 0, "post UD SEND with imm");
	w = swqe(ri, 0);
	ok(w.wr.ud.ah_handle == ah->handle && w.wr.ud.remote_qpn == 0xabcdef &&
	   w.wr.ud.remote_qkey == 0x80000000u && !w.wr.ud.__reserved &&
	   zero((char *)&w + 48, 16),
	   "UD: the AH's kernel handle, remote QPN, Q_Key as given (bit 31)");
	ok(w.ex.imm_data == htobe32(0x1234) && w.opcode == RNIC_WR_SEND_WITH_IMM,
	   "UD: imm_data, opcode");
	wr.opcode = IBV_WR_SEND;
	wr.wr.ud.remote_qkey = 0x11111111;
	is_int(ibv_post_send(qp, &wr, &bad), 0, "post UD SEND");
	w = swqe(ri, 1);
	ok(w.wr.ud.remote_qkey == 0x11111111 && !w.ex.imm_data,
	   "UD SEND: Q_Key, no imm_data");
	ibv_destroy_qp(qp);
}

static void test_send_list(void)
{
	struct caps c = { .swr = 4, .ssge = 1 };
	struct ibv_send_wr wr[4], *bad;
	const struct rnic_ring_info *ri;
	struct ibv_qp *qp;
	unsigned int k;
	int i, ret;

	qp = make_qp(IBV_QPT_RC, c, NULL);
	if (!ok(qp != NULL, "create an RC QP for lists"))
		return;
	ri = sq_of(qp);
	set_state(qp, IBV_QPS_RTS);
	for (i = 0; i < 4; i++) {
		wr[i] = send_wr(100 + i, IBV_WR_SEND);
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	wr[2].send_flags = IBV_SEND_IP_CSUM;
	k = kicks;
	bad = NULL;
	errno = 0;
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == EINVAL && errno == EINVAL && bad == &wr[2],
	   "good, good, bad, good: EINVAL, bad_wr at the third");
	is_int(prod(ri), 2, "the producer moved by the two good ones");
	ok(swqe(ri, 0).wr_id == 100 && swqe(ri, 1).wr_id == 101,
	   "the two good ones were written");
	ok(untouched(ri, 2) && untouched(ri, 3),
	   "nothing written for the bad one or after it");
	is_int(kicks, k + 1, "one doorbell for what was posted");

	/* first bad: nothing */
	wr[2].send_flags = 0;
	wr[0].num_sge = -1;
	k = kicks;
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[0] && prod(ri) == 2 && kicks == k,
	   "first bad: EINVAL, bad_wr at it, nothing posted, no doorbell");

	/* all good, wrapping around the ring */
	wr[0].num_sge = 1;
	set_cons(ri, 2);
	k = kicks;
	bad = sentinel_send;
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == 0 && prod(ri) == 6 && kicks == k + 1 && bad == sentinel_send,
	   "four good ones: posted, one doorbell, bad_wr untouched");
	ok(swqe(ri, 2).wr_id == 100 && swqe(ri, 3).wr_id == 101 &&
	   swqe(ri, 4).wr_id == 102 && swqe(ri, 5).wr_id == 103,
	   "indexes 2 .. 5 (slots 2, 3, 0, 1) hold them in order");
	ibv_destroy_qp(qp);
}

static void test_full_and_wrap(void)
{
	struct caps c = { .swr = 4, .ssge = 1 };
	struct ibv_send_wr wr[6], *bad;
	const struct rnic_ring_info *ri;
	struct ibv_qp *qp;
	unsigned int k;
	int i, ret;

	qp = make_qp(IBV_QPT_RC, c, NULL);
	if (!ok(qp != NULL, "create an RC QP with 4 send entries"))
		return;
	ri = sq_of(qp);
	set_state(qp, IBV_QPS_RTS);
	for (i = 0; i < 6; i++) {
		wr[i] = send_wr(200 + i, IBV_WR_SEND);
		wr[i].next = i < 5 ? &wr[i + 1] : NULL;
	}
	k = kicks;
	errno = 0;
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == ENOMEM && errno == ENOMEM && bad == &wr[4] &&
	   prod(ri) == 4 && kicks == k + 1,
	   "6 WRs into 4 entries: ENOMEM at the fifth, 4 posted, one doorbell");
	k = kicks;
	ret = ibv_post_send(qp, &wr[5], &bad);
	ok(ret == ENOMEM && bad == &wr[5] && prod(ri) == 4 && kicks == k,
	   "full: ENOMEM, no doorbell");

	set_cons(ri, 1);
	wr[5].next = NULL;
	ret = ibv_post_send(qp, &wr[4], &bad);
	ok(ret == ENOMEM && bad == &wr[5] && prod(ri) == 5,
	   "one entry freed: one posted, then ENOMEM");
	ok(swqe(ri, 4).wr_id == 204 && swqe(ri, 1).wr_id == 201,
	   "it reused slot 0; slot 1 still holds a live entry");

	/* A consumer index ahead of the producer never frees entries. */
	set_cons(ri, 100);
	ret = ibv_post_send(qp, &wr[5], &bad);
	ok(ret == ENOMEM && prod(ri) == 5 && swqe(ri, 1).wr_id == 201,
	   "consumer index ahead of the producer: ENOMEM, nothing overwritten");
	set_cons(ri, 5);
	ret = ibv_post_send(qp, &wr[5], &bad);
	ok(!ret && prod(ri) == 6 && swqe(ri, 5).wr_id == 205,
	   "all consumed: posting goes on");

	/* RESET: the kernel zeroes the indexes; so does librnic. */
	set_state(qp, IBV_QPS_RESET);
	set_state(qp, IBV_QPS_RTS);
	fill_pattern(ri);
	ret = ibv_post_send(qp, &wr[5], &bad);
	ok(!ret && prod(ri) == 1 && swqe(ri, 0).wr_id == 205 &&
	   untouched(ri, 1) && untouched(ri, 2),
	   "after RESET posting starts over at index 0");
	ibv_destroy_qp(qp);

	/* The free-running indexes wrap at 2^32. */
	fake_start_index = 0xfffffffeu;
	qp = make_qp(IBV_QPT_RC, c, NULL);
	fake_start_index = 0;
	if (!ok(qp != NULL, "create an RC QP whose indexes start at 2^32 - 2"))
		return;
	ri = sq_of(qp);
	set_state(qp, IBV_QPS_RTS);
	wr[5].next = NULL;
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == ENOMEM && bad == &wr[4] && prod(ri) == 2,
	   "4 posted across 2^32: producer 2, then ENOMEM");
	ok(swqe(ri, 2).wr_id == 200 && swqe(ri, 3).wr_id == 201 &&
	   swqe(ri, 0).wr_id == 202 && swqe(ri, 1).wr_id == 203,
	   "indexes 2^32 - 2 .. 1 are slots 2, 3, 0, 1");
	set_cons(ri, 0);
	ret = ibv_post_send(qp, &wr[3], &bad);
	ok(ret == ENOMEM && bad == &wr[5] && prod(ri) == 4 &&
	   swqe(ri, 2).wr_id == 203 && swqe(ri, 3).wr_id == 204 &&
	   swqe(ri, 0).wr_id == 202,
	   "consumer at 0 frees two: two posted, then ENOMEM");
	ibv_destroy_qp(qp);
}

static void test_doorbell(void)
{
	struct caps c = { .swr = 64, .ssge = 1 };
	const struct rnic_ring_info *ri;
	struct ibv_send_wr wr[3], *bad;
	struct ibv_qp *qp;
	unsigned int k;
	int i, ret;

	for (i = 0; i < 3; i++) {
		wr[i] = send_wr(300 + i, IBV_WR_SEND);
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}

	qp = make_qp(IBV_QPT_RC, c, NULL);
	if (!ok(qp != NULL, "create an RC QP without SQ polling"))
		return;
	ri = sq_of(qp);
	set_state(qp, IBV_QPS_RTS);
	k = kicks;
	kick_flags = 0xff;
	ret = ibv_post_send(qp, wr, &bad);
	ok(!ret && kicks == k + 1 && kick_cmd == RNIC_IOCTL_RING_SQ &&
	   kick_handle == qp->handle,
	   "three WRs: one RNIC_IOCTL_RING_SQ with the QP's handle");
	fake_kick_err = ENODEV;
	k = kicks;
	ret = ibv_post_send(qp, wr, &bad);
	ok(!ret && kicks == k + 1 && prod(ri) == 6,
	   "a failed doorbell still returns 0: the WRs are posted");
	fake_kick_err = 0;
	fake_ring_sq_err = ENOTTY;
	k = kicks;
	ret = ibv_post_send(qp, wr, &bad);
	ok(!ret && kicks == k && prod(ri) == 9,
	   "RING_SQ fails with ENOTTY: posted, no RNIC_IOCTL_KICK_SQ after it");
	fake_ring_sq_err = 0;
	ibv_destroy_qp(qp);

	setenv("RNIC_SQ_POLL", "1", 1);
	qp = make_qp(IBV_QPT_RC, c, NULL);
	unsetenv("RNIC_SQ_POLL");
	if (!ok(qp != NULL, "create an RC QP with SQ polling"))
		return;
	ri = sq_of(qp);
	set_state(qp, IBV_QPS_RTS);
	k = kicks;
	ret = ibv_post_send(qp, wr, &bad);
	ok(!ret && kicks == k && prod(ri) == 3,
	   "polling thread awake: posted, no doorbell");
	set_flags(ri, RNIC_WQ_ERR);
	ret = ibv_post_send(qp, wr, &bad);
	ok(!ret && kicks == k && prod(ri) == 6,
	   "flags word without NEED_WAKEUP: no doorbell");
	set_flags(ri, RNIC_SQ_NEED_WAKEUP);
	ret = ibv_post_send(qp, wr, &bad);
	ok(!ret && kicks == k + 1 && kick_cmd == RNIC_IOCTL_RING_SQ &&
	   kick_handle == qp->handle && prod(ri) == 9,
	   "NEED_WAKEUP set: one doorbell");
	wr[0].num_sge = -1;
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == EINVAL && kicks == k + 1,
	   "NEED_WAKEUP set but nothing posted: no doorbell");
	wr[0].num_sge = 1;
	ibv_destroy_qp(qp);
}

static void test_recv(void)
{
	struct caps c = { .swr = 1, .rwr = 4, .ssge = 1, .rsge = 3 };
	struct ibv_sge sges[4] = {
		{ 0x1000, 10, 1 }, { 0x2000, 20, 2 }, { 0x3000, 30, 3 },
		{ 0x4000, 40, 4 },
	};
	struct ibv_recv_wr wr[6], *bad;
	const struct rnic_ring_info *ri;
	struct rnic_recv_wqe w;
	struct rnic_sge s[3];
	unsigned int calls, k;
	struct ibv_qp *qp;
	int i, ret;

	qp = make_qp(IBV_QPT_RC, c, NULL);
	if (!ok(qp != NULL, "create an RC QP with 4 receive entries"))
		return;
	ri = rq_of(qp);
	for (i = 0; i < 6; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = 400 + i;
		wr[i].sg_list = sges;
		wr[i].num_sge = 1;
		wr[i].next = i < 5 ? &wr[i + 1] : NULL;
	}

	wr[0].next = NULL;
	errno = 0;
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == EINVAL && errno == EINVAL && bad == wr && prod(ri) == 0 &&
	   untouched(ri, 0), "RESET: EINVAL, nothing posted");
	wr[0].next = &wr[1];

	set_state(qp, IBV_QPS_INIT);
	calls = fake_calls;
	wr[0].num_sge = 3;
	wr[1].num_sge = 0;
	wr[1].next = NULL;
	bad = sentinel_recv;
	ret = ibv_post_recv(qp, wr, &bad);
	ok(!ret && prod(ri) == 2 && bad == sentinel_recv,
	   "INIT: two posted, bad_wr untouched");
	is_int(fake_calls, calls, "no system call");
	memcpy(&w, slot(ri, 0), sizeof(w));
	memcpy(s, slot(ri, 0) + sizeof(w), sizeof(s));
	ok(w.wr_id == 400 && w.num_sge == 3 && !w.__reserved,
	   "wr_id, num_sge, reserved 0");
	ok(s[0].addr == 0x1000 && s[0].length == 10 && s[0].lkey == 1 &&
	   s[1].addr == 0x2000 && s[1].length == 20 && s[1].lkey == 2 &&
	   s[2].addr == 0x3000 && s[2].length == 30 && s[2].lkey == 3,
	   "the SGEs follow the header");
	memcpy(&w, slot(ri, 1), sizeof(w));
	ok(w.wr_id == 401 && w.num_sge == 0 && !w.__reserved &&
	   (unsigned char)slot(ri, 1)[sizeof(w)] == FAKE_PATTERN,
	   "a receive without SGEs: header only");

	wr[1].next = &wr[2];
	wr[0].num_sge = 4;
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[0] && prod(ri) == 2,
	   "num_sge max_recv_sge + 1: EINVAL");
	wr[0].num_sge = -1;
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[0] && prod(ri) == 2,
	   "num_sge -1: EINVAL");
	wr[0].num_sge = 1;
	wr[1].num_sge = 4;
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[1] && prod(ri) == 3 &&
	   untouched(ri, 3), "good, bad: the good one posted, bad_wr at the bad");
	wr[1].num_sge = 1;

	calls = fake_calls;
	errno = 0;
	ret = ibv_post_recv(qp, &wr[1], &bad);
	ok(ret == ENOMEM && errno == ENOMEM && bad == &wr[2] &&
	   prod(ri) == 4 && fake_calls == calls,
	   "full after one: ENOMEM at the second, no system call");

	/* ERR: flush through the doorbell with RNIC_KICK_RQ */
	set_cons(ri, 4);
	set_flags(ri, RNIC_WQ_ERR);
	k = kicks;
	wr[3].next = NULL;
	ret = ibv_post_recv(qp, &wr[2], &bad);
	ok(!ret && kicks == k + 1 && kick_cmd == RNIC_IOCTL_KICK_SQ &&
	   kick_flags == RNIC_KICK_RQ && kick_handle == qp->handle &&
	   prod(ri) == 6,
	   "RNIC_WQ_ERR set: one RNIC_IOCTL_KICK_SQ with RNIC_KICK_RQ");
	wr[2].num_sge = 9;
	ret = ibv_post_recv(qp, &wr[2], &bad);
	ok(ret == EINVAL && kicks == k + 1,
	   "RNIC_WQ_ERR set but nothing posted: no doorbell");
	wr[2].num_sge = 1;
	set_flags(ri, RNIC_SQ_NEED_WAKEUP);
	ret = ibv_post_recv(qp, &wr[2], &bad);
	ok(!ret && kicks == k + 1, "only RNIC_WQ_ERR asks for a flush");
	ibv_destroy_qp(qp);
}

static void test_srq(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 3, .max_sge = 2 } };
	struct caps c = { .swr = 1, .rwr = 4, .ssge = 1, .rsge = 1 };
	struct ibv_sge sges[3] = {
		{ 0x1000, 10, 1 }, { 0x2000, 20, 2 }, { 0x3000, 30, 3 },
	};
	struct ibv_recv_wr wr[5], *bad;
	const struct rnic_ring_info *ri;
	struct rnic_recv_wqe w;
	struct rnic_sge s[2];
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	unsigned int calls;
	int i, ret, live = fake_maps_live;

	srq = ibv_create_srq(pd, &sa);
	if (!ok(srq != NULL, "create an SRQ"))
		return;
	ok(sa.attr.max_wr == 4 && sa.attr.max_sge == 2,
	   "granted sizes are written back");
	is_int(fake_maps_live, live + 1, "its ring is mapped");
	ri = srq_ring_of(srq);
	for (i = 0; i < 5; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = 500 + i;
		wr[i].sg_list = sges;
		wr[i].num_sge = 2;
		wr[i].next = i < 4 ? &wr[i + 1] : NULL;
	}
	calls = fake_calls;
	wr[1].num_sge = 3;
	errno = 0;
	ret = ibv_post_srq_recv(srq, wr, &bad);
	ok(ret == EINVAL && errno == EINVAL && bad == &wr[1] && prod(ri) == 1 &&
	   untouched(ri, 1), "good, num_sge max_sge + 1: EINVAL at the second");
	memcpy(&w, slot(ri, 0), sizeof(w));
	memcpy(s, slot(ri, 0) + sizeof(w), sizeof(s));
	ok(w.wr_id == 500 && w.num_sge == 2 && !w.__reserved &&
	   s[0].addr == 0x1000 && s[0].length == 10 && s[0].lkey == 1 &&
	   s[1].addr == 0x2000 && s[1].length == 20 && s[1].lkey == 2,
	   "SRQ entry: wr_id, num_sge, reserved 0, SGEs");
	wr[1].num_sge = -1;
	ret = ibv_post_srq_recv(srq, &wr[1], &bad);
	ok(ret == EINVAL && bad == &wr[1] && prod(ri) == 1, "num_sge -1: EINVAL");
	wr[1].num_sge = 0;
	ret = ibv_post_srq_recv(srq, &wr[1], &bad);
	ok(ret == ENOMEM && errno == ENOMEM && bad == &wr[4] && prod(ri) == 4,
	   "4 entries: three more posted, ENOMEM at the fifth");
	set_cons(ri, 2);
	wr[4].next = NULL;
	ret = ibv_post_srq_recv(srq, &wr[3], &bad);
	ok(!ret && prod(ri) == 6, "two consumed: two more posted");
	memcpy(&w, slot(ri, 5), sizeof(w));
	ok(w.wr_id == 504, "wrapped to slot 1");
	is_int(fake_calls, calls, "no system call at all");

	/* A QP with an SRQ has no receive queue of its own. */
	qp = make_qp(IBV_QPT_RC, c, srq);
	if (ok(qp != NULL, "create an RC QP on the SRQ")) {
		set_state(qp, IBV_QPS_RTS);
		ret = ibv_post_recv(qp, wr, &bad);
		ok(ret == EINVAL && bad == wr, "post_recv on it: EINVAL");
		ibv_destroy_qp(qp);
	}
	is_int(ibv_destroy_srq(srq), 0, "destroy the SRQ");
	is_int(fake_maps_live, live, "its ring is unmapped");
}

/* Threads posting to one QP: every WR lands in its own entry. */
#define THREADS 4
#define PER_THREAD 500

struct poster {
	struct ibv_qp *qp;
	uint64_t id;
	int failed;
};

static void *poster_main(void *arg)
{
	struct poster *p = arg;
	struct ibv_send_wr wr, *bad;
	int i;

	for (i = 0; i < PER_THREAD; i++) {
		wr = send_wr(p->id << 32 | (uint64_t)i, IBV_WR_SEND);
		if (ibv_post_send(p->qp, &wr, &bad))
			p->failed++;
	}
	return NULL;
}

static void test_threads(void)
{
	struct caps c = { .swr = THREADS * PER_THREAD, .ssge = 1 };
	static unsigned char seen[THREADS][PER_THREAD];
	struct poster p[THREADS];
	pthread_t th[THREADS];
	const struct rnic_ring_info *ri;
	unsigned int k, i, dup = 0, failed = 0;
	struct ibv_qp *qp;
	uint64_t id;

	qp = make_qp(IBV_QPT_RC, c, NULL);
	if (!ok(qp != NULL, "create an RC QP for %d threads", THREADS))
		return;
	ri = sq_of(qp);
	set_state(qp, IBV_QPS_RTS);
	k = kicks;
	for (i = 0; i < THREADS; i++) {
		p[i] = (struct poster){ .qp = qp, .id = i };
		pthread_create(&th[i], NULL, poster_main, &p[i]);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		failed += p[i].failed;
	}
	is_int(failed, 0, "every post succeeded");
	is_int(prod(ri), THREADS * PER_THREAD, "producer counts them all");
	is_int(kicks - k, THREADS * PER_THREAD, "one doorbell per post");
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < THREADS * PER_THREAD; i++) {
		id = swqe(ri, i).wr_id;
		if (id >> 32 >= THREADS || (id & 0xffffffff) >= PER_THREAD ||
		    seen[id >> 32][id & 0xffffffff]++)
			dup++;
	}
	is_int(dup, 0, "each WR in exactly one entry");
	ibv_destroy_qp(qp);
}

/* ---- ibv_poll_cq() racing ibv_resize_cq() ------------------------- */

#define RACE_POLLERS	3
#define RACE_RESIZES	1000
#define RACE_MS		3000	/* or stop resizing then */
#define RACE_CQES	(1u << 22)
#define RACE_WINDOW	32	/* CQEs not polled: fit the smaller size */

/**
 * struct race - the fake kernel produces CQEs with wr_id 0, 1, 2, ...
 *	on @cq while RACE_POLLERS threads poll it and one resizes it
 * @cq: the CQ
 * @seen: one byte per wr_id, set by the thread that polled it
 * @produced: CQEs produced; final once @stop is set
 * @polled: CQEs polled, all threads
 * @resizes: resizes done
 * @stop: no more CQEs
 * @drain: @produced is final: the pollers stop once they polled it all
 * @bad: CQEs polled twice, out of a thread's order or with a bad wr_id
 * @errors: calls that failed
 */
struct race {
	struct ibv_cq *cq;
	uint8_t *seen;
	unsigned long produced;
	unsigned long polled;
	unsigned long resizes;
	bool stop;
	bool drain;
	unsigned long bad;
	unsigned long errors;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static void *race_poller(void *arg)
{
	struct race *r = arg;
	struct ibv_wc wc[4];
	uint64_t next = 0;
	int n, i;

	while (!(__atomic_load_n(&r->drain, __ATOMIC_ACQUIRE) &&
		 __atomic_load_n(&r->polled, __ATOMIC_RELAXED) ==
		 r->produced)) {
		n = ibv_poll_cq(r->cq, 4, wc);
		if (n < 0)
			__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
		for (i = 0; i < n; i++) {
			/* This thread's CQEs come in production order. */
			if (wc[i].wr_id >= RACE_CQES || wc[i].wr_id < next ||
			    __atomic_exchange_n(&r->seen[wc[i].wr_id], 1,
						__ATOMIC_RELAXED))
				__atomic_add_fetch(&r->bad, 1,
						   __ATOMIC_RELAXED);
			next = wc[i].wr_id + 1;
		}
		if (n > 0)
			__atomic_add_fetch(&r->polled, n, __ATOMIC_RELAXED);
		else
			sched_yield();	/* valgrind runs one thread at a time */
	}
	return NULL;
}

static void *race_producer(void *arg)
{
	struct race *r = arg;
	unsigned long n = 0;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED) &&
	       n < RACE_CQES) {
		if (n - __atomic_load_n(&r->polled, __ATOMIC_RELAXED) <
		    RACE_WINDOW && fake_cq_post(r->cq->handle, n))
			n++;
		else
			sched_yield();
	}
	return (void *)n;
}

/*
 * ibv_poll_cq() reads the ring's indexes without the CQ lock when the CQ
 * looks empty; resizing replaces the ring. No poller may fault on the old
 * mapping, and every CQE is polled once, in order.
 */
static void test_poll_while_resizing(void)
{
	pthread_t poller[RACE_POLLERS], producer;
	struct race r = { 0 };
	unsigned long i, polled, missing = 0;
	long end = now_ms() + RACE_MS;
	int live = fake_maps_live;
	void *produced;

	r.seen = calloc(RACE_CQES, 1);
	r.cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!ok(r.seen && r.cq, "a CQ to resize"))
		return;
	for (i = 0; i < RACE_POLLERS; i++)
		pthread_create(&poller[i], NULL, race_poller, &r);
	pthread_create(&producer, NULL, race_producer, &r);
	while (r.resizes < RACE_RESIZES && now_ms() < end) {
		/* 64 and 128 entries: both hold what is not polled. */
		if (ibv_resize_cq(r.cq, r.resizes % 2 ? 64 : 128))
			r.errors++;
		r.resizes++;
		/* Let CQEs come and go (the pollers spin on the lock). */
		polled = __atomic_load_n(&r.polled, __ATOMIC_RELAXED);
		while (__atomic_load_n(&r.polled, __ATOMIC_RELAXED) <
		       polled + 8 && now_ms() < end)
			sched_yield();
	}
	__atomic_store_n(&r.stop, true, __ATOMIC_RELAXED);
	pthread_join(producer, &produced);
	r.produced = (uintptr_t)produced;
	__atomic_store_n(&r.drain, true, __ATOMIC_RELEASE);
	for (i = 0; i < RACE_POLLERS; i++)
		pthread_join(poller[i], NULL);

	diag("%lu resizes, %lu CQEs", r.resizes, r.produced);
	ok(r.resizes >= 20 && r.produced >= 100,
	   "resized while CQEs came and went");
	is_int(r.errors, 0, "every poll and resize succeeded");
	is_int(r.polled, r.produced, "every CQE polled");
	for (i = 0; i < r.produced; i++)
		missing += !r.seen[i];
	is_int(missing + r.bad, 0,
	       "each CQE polled once, in order by each thread");
	is_int(ibv_destroy_cq(r.cq), 0, "destroy the CQ resized");
	is_int(fake_maps_live, live, "its ring unmapped");
	free(r.seen);
}

static struct ibv_qp *make_qp_ex(enum ibv_qp_type type, struct caps c,
				 uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = type,
		.cap = { c.swr, c.rwr, c.ssge, c.rsge, c.inl },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = send_ops,
	};

	return ibv_create_qp_ex(ctx, &a);
}

static void qp_ex_refused(enum ibv_qp_type type, uint64_t send_ops,
			  uint32_t comp_mask, int err, const char *what)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = 4 },
		.comp_mask = comp_mask, .pd = pd, .send_ops_flags = send_ops,
	};

	errno = 0;
	ok(!ibv_create_qp_ex(ctx, &a) && errno == err, "%s: %s", what,
	   strerror(err));
}

#define RC_SEND_OPS (IBV_QP_EX_WITH_RDMA_WRITE | \
		     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND | \
		     IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ | \
		     IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

static void test_qp_ex_create(void)
{
	struct ibv_qp_init_attr_ex a_flags = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = pd,
	};
	struct ibv_qp_ex *x;
	struct ibv_qp *qp;

	qp_ex_refused(IBV_QPT_UD, IBV_QP_EX_WITH_LOCAL_INV,
		      IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		      EOPNOTSUPP, "LOCAL_INV on UD");
	qp_ex_refused(IBV_QPT_UC, IBV_QP_EX_WITH_SEND_WITH_INV,
		      IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		      EOPNOTSUPP, "SEND_WITH_INV on UC");
	qp_ex_refused(IBV_QPT_RC, IBV_QP_EX_WITH_ATOMIC_WRITE,
		      IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		      EOPNOTSUPP, "ATOMIC_WRITE");
	qp_ex_refused(IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_READ,
		      IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		      EOPNOTSUPP, "RDMA READ on UD");
	qp_ex_refused(IBV_QPT_RC, IBV_QP_EX_WITH_SEND,
		      IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER,
		      EOPNOTSUPP, "a TSO header");
	a_flags.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	errno = 0;
	ok(!ibv_create_qp_ex(ctx, &a_flags) && errno == EOPNOTSUPP,
	   "a create flag: EOPNOTSUPP");
	a_flags.create_flags = 0;
	qp = ibv_create_qp_ex(ctx, &a_flags);
	ok(qp != NULL, "create flags asking for nothing are accepted");
	if (qp)
		ibv_destroy_qp(qp);
	qp_ex_refused(IBV_QPT_RC, IBV_QP_EX_WITH_SEND,
		      IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, EINVAL, "no PD");

	qp = make_qp(IBV_QPT_RC, (struct caps){ .swr = 4 }, NULL);
	ok(qp && !ibv_qp_to_qp_ex(qp), "a QP without send_ops_flags: no builder");
	if (qp)
		ibv_destroy_qp(qp);

	qp = make_qp_ex(IBV_QPT_UD, (struct caps){ .swr = 4, .ssge = 1 },
			IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM);
	x = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!ok(x && &x->qp_base == qp, "a UD QP with its builder"))
		return;
	ok(x->wr_send && x->wr_send_imm && x->wr_set_ud_addr &&
	   x->wr_set_sge && x->wr_set_sge_list && x->wr_set_inline_data &&
	   x->wr_set_inline_data_list && x->wr_start && x->wr_complete &&
	   x->wr_abort, "the functions it needs");
	ok(!x->wr_rdma_write && !x->wr_rdma_read && !x->wr_atomic_cmp_swp &&
	   !x->wr_local_inv && !x->wr_bind_mw && !x->wr_send_inv &&
	   !x->wr_send_tso && !x->wr_set_xrc_srqn && !x->wr_atomic_write,
	   "opcodes not asked for, or not rnic's, are NULL");
	is_int(ibv_destroy_qp(qp), 0, "destroy it");
}

/* The builder's memory window opcodes write what ibv_post_send() writes. */
static void test_qp_ex_mw(void)
{
	struct ibv_pd mpd = { 0 };
	struct ibv_mr mr = { .pd = &mpd, .lkey = 0x77 };
	struct ibv_mw mw = { .handle = 5, .type = IBV_MW_TYPE_2 };
	struct ibv_mw_bind_info info = {
		.mr = &mr, .addr = 0x100, .length = 64,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ,
	};
	const struct rnic_ring_info *ri;
	struct rnic_send_wqe w;
	struct ibv_qp_ex *x;
	struct ibv_qp *qp;
	uint32_t p;

	qp = make_qp_ex(IBV_QPT_RC, (struct caps){ .swr = 8, .ssge = 1 },
			IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV |
			IBV_QP_EX_WITH_SEND_WITH_INV);
	x = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!ok(x && x->wr_bind_mw && x->wr_local_inv && x->wr_send_inv,
		"an RC QP with the memory window opcodes"))
		return;
	mw.context = qp->context;
	ri = sq_of(qp);
	set_state(qp, IBV_QPS_RTS);
	p = prod(ri);
	ibv_wr_start(x);
	x->wr_id = 1;
	ibv_wr_bind_mw(x, &mw, 0x10203040, &info);
	x->wr_id = 2;
	ibv_wr_local_inv(x, 0x10203040);
	x->wr_id = 3;
	ibv_wr_send_inv(x, 0x50607080);
	ibv_wr_set_sge(x, 0x44, 0x4000, 16);
	is_int(ibv_wr_complete(x), 0, "bind, invalidate, SEND with invalidate");
	w = swqe(ri, p);
	ok(w.opcode == RNIC_WR_BIND_MW && w.wr_id == 1 &&
	   w.wr.bind.mw_handle == 5 && w.wr.bind.rkey == 0x10203040 &&
	   w.wr.bind.mr_lkey == 0x77 && w.wr.bind.addr == 0x100 &&
	   w.wr.bind.length == 64 &&
	   w.wr.bind.access == IBV_ACCESS_REMOTE_READ, "the bind");
	w = swqe(ri, p + 1);
	ok(w.opcode == RNIC_WR_LOCAL_INV && w.wr_id == 2 &&
	   w.ex.invalidate_rkey == 0x10203040, "the local invalidate");
	w = swqe(ri, p + 2);
	ok(w.opcode == RNIC_WR_SEND_WITH_INV && w.wr_id == 3 &&
	   w.ex.invalidate_rkey == 0x50607080 && w.num_sge == 1,
	   "the SEND with invalidate");
	ibv_destroy_qp(qp);
}

static void test_qp_ex_build(void)
{
	struct caps c = { .swr = 8, .ssge = 2, .inl = 32 };
	struct ibv_sge sges[3] = { { 0x1000, 16, 0x11 }, { 0x2000, 32, 0x22 },
				   { 0x3000, 8, 0x33 } };
	char hello[8] = "hello, ", world[6] = "world";
	struct ibv_data_buf bufs[2] = { { hello, 7 }, { world, 5 } };
	const struct rnic_ring_info *ri;
	struct rnic_send_wqe w;
	struct rnic_sge s[2];
	struct ibv_qp_ex *x;
	struct ibv_qp *qp;
	unsigned int k;
	uint32_t p;

	qp = make_qp_ex(IBV_QPT_RC, c, RC_SEND_OPS);
	x = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!ok(x != NULL, "an RC QP with every opcode rnic has"))
		return;
	ri = sq_of(qp);
	fill_pattern(ri);

	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, 0x44, 0x4000, 64);
	is_int(ibv_wr_complete(x), EINVAL, "in RESET: wr_complete EINVAL");
	ok(untouched(ri, prod(ri)), "... nothing written");

	set_state(qp, IBV_QPS_RTS);
	p = prod(ri);
	k = kicks;
	ibv_wr_start(x);
	x->wr_id = 10;
	x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_rdma_write_imm(x, 0x1234, 0xabc000, htobe32(77));
	ibv_wr_set_sge_list(x, 2, sges);
	x->wr_id = 11;
	x->wr_flags = IBV_SEND_INLINE; /* the setters decide, not the flag */
	ibv_wr_send_imm(x, htobe32(78));
	ibv_wr_set_inline_data_list(x, 2, bufs);
	x->wr_id = 12;
	x->wr_flags = 0;
	ibv_wr_atomic_fetch_add(x, 0x99, 0x8008, 5);
	ibv_wr_set_sge(x, 0x55, 0x5000, 8);
	x->wr_id = 13;
	ibv_wr_rdma_read(x, 0x66, 0x7000);
	ibv_wr_set_inline_data(x, hello, 4); /* not for a READ */
	ok(prod(ri) == p && kicks == k, "nothing published while building");
	is_int(ibv_wr_complete(x), EINVAL,
	       "inline data on a READ: wr_complete EINVAL");
	ok(prod(ri) == p && kicks == k, "... and nothing posted");

	ibv_wr_start(x);
	x->wr_id = 10;
	x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_rdma_write_imm(x, 0x1234, 0xabc000, htobe32(77));
	ibv_wr_set_sge_list(x, 2, sges);
	x->wr_id = 11;
	x->wr_flags = IBV_SEND_INLINE;
	ibv_wr_send_imm(x, htobe32(78));
	ibv_wr_set_inline_data_list(x, 2, bufs);
	memcpy(hello, "XXXXXXX", 7); /* copied already: may be reused */
	x->wr_id = 12;
	x->wr_flags = 0;
	ibv_wr_atomic_fetch_add(x, 0x99, 0x8008, 5);
	ibv_wr_set_sge(x, 0x55, 0x5000, 8);
	is_int(ibv_wr_complete(x), 0, "three work requests posted");
	ok(prod(ri) == p + 3 && kicks == k + 1,
	   "published together, one doorbell");

	w = swqe(ri, p);
	memcpy(s, slot(ri, p) + sizeof(w), sizeof(s));
	ok(w.wr_id == 10 && w.opcode == RNIC_WR_RDMA_WRITE_WITH_IMM &&
	   w.send_flags == (RNIC_SEND_SIGNALED | RNIC_SEND_FENCE) &&
	   w.ex.imm_data == htobe32(77) && w.wr.rdma.rkey == 0x1234 &&
	   w.wr.rdma.remote_addr == 0xabc000 && w.num_sge == 2 &&
	   s[0].addr == 0x1000 && s[0].length == 16 && s[0].lkey == 0x11 &&
	   s[1].addr == 0x2000 && s[1].length == 32 && s[1].lkey == 0x22,
	   "WRITE with imm: as ibv_post_send() writes it");
	w = swqe(ri, p + 1);
	ok(w.wr_id == 11 && w.opcode == RNIC_WR_SEND_WITH_IMM &&
	   w.send_flags == RNIC_SEND_INLINE && w.inline_len == 12 &&
	   w.ex.imm_data == htobe32(78) &&
	   !memcmp(slot(ri, p + 1) + sizeof(w), "hello, world", 12),
	   "SEND with imm: the inline data of both buffers, copied");
	w = swqe(ri, p + 2);
	memcpy(s, slot(ri, p + 2) + sizeof(w), sizeof(s[0]));
	ok(w.wr_id == 12 && w.opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD &&
	   !w.send_flags && w.wr.atomic.rkey == 0x99 &&
	   w.wr.atomic.remote_addr == 0x8008 && w.wr.atomic.compare_add == 5 &&
	   w.num_sge == 1 && s[0].addr == 0x5000 && s[0].lkey == 0x55,
	   "FETCH AND ADD: add, remote address, the 8-byte SGE");

	/* Abort: the head goes back, the next build reuses the entries. */
	p = prod(ri);
	k = kicks;
	ibv_wr_start(x);
	x->wr_id = 20;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, 0x44, 0x4000, 64);
	ibv_wr_abort(x);
	ok(prod(ri) == p && kicks == k, "wr_abort posts nothing");
	ibv_wr_start(x);
	x->wr_id = 21;
	ibv_wr_rdma_read(x, 0x66, 0x7000);
	ibv_wr_set_sge(x, 0x44, 0x4000, 64);
	is_int(ibv_wr_complete(x), 0, "a READ after the abort");
	w = swqe(ri, p);
	ok(prod(ri) == p + 1 && w.wr_id == 21 && w.opcode == RNIC_WR_RDMA_READ,
	   "... takes the entry the aborted SEND had");

	/* Errors: too many SGEs, too much inline, a full ring. */
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 3, sges);
	is_int(ibv_wr_complete(x), EINVAL, "3 SGEs for 2: EINVAL");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, mem, 33);
	is_int(ibv_wr_complete(x), EINVAL, "33 inline bytes for 32: EINVAL");
	ibv_wr_start(x);
	ibv_wr_set_sge(x, 0x44, 0x4000, 64);
	is_int(ibv_wr_complete(x), EINVAL, "a setter before any opcode: EINVAL");
	p = prod(ri);
	ibv_wr_start(x);
	for (k = 0; k < 9; k++) {
		x->wr_id = 100 + k;
		ibv_wr_send(x);
		ibv_wr_set_sge(x, 0x44, 0x4000, 64);
	}
	is_int(ibv_wr_complete(x), ENOMEM, "9 work requests for 8: ENOMEM");
	is_int(prod(ri), p, "... none posted");
	set_cons(ri, prod(ri));
	ibv_wr_start(x);
	is_int(ibv_wr_complete(x), 0, "an empty list completes");
	is_int(ibv_destroy_qp(qp), 0, "destroy the QP");
}

static void test_qp_ex_ud(void)
{
	struct ibv_qp_ex *x;
	struct ibv_qp *qp;
	struct rnic_send_wqe w;
	uint32_t p;

	qp = make_qp_ex(IBV_QPT_UD, (struct caps){ .swr = 4, .ssge = 1 },
			IBV_QP_EX_WITH_SEND);
	x = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!ok(x != NULL, "a UD QP with its builder"))
		return;
	set_state(qp, IBV_QPS_RTS);
	p = prod(sq_of(qp));
	ibv_wr_start(x);
	x->wr_id = 5;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, 0x44, 0x4000, 64);
	is_int(ibv_wr_complete(x), EINVAL, "UD without an address: EINVAL");
	ibv_wr_start(x);
	x->wr_id = 6;
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, ah, 0xabcdef, 0x11111111);
	ibv_wr_set_sge(x, 0x44, 0x4000, 64);
	is_int(ibv_wr_complete(x), 0, "UD SEND with its address");
	w = swqe(sq_of(qp), p);
	ok(w.wr_id == 6 && w.wr.ud.ah_handle == ah->handle &&
	   w.wr.ud.remote_qpn == 0xabcdef && w.wr.ud.remote_qkey == 0x11111111,
	   "the AH, remote QPN and Q_Key are in the entry");
	is_int(ibv_destroy_qp(qp), 0, "destroy the UD QP");
}

static void srq_ex_refused(struct ibv_srq_init_attr_ex a, int err,
			   const char *what)
{
	errno = 0;
	ok(!ibv_create_srq_ex(ctx, &a) && errno == err, "%s: %s", what,
	   strerror(err));
}

static void test_srq_ex(void)
{
	struct ibv_srq_init_attr_ex a = {
		.srq_context = &a,
		.attr = { .max_wr = 5, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
		.srq_type = IBV_SRQT_BASIC,
		.pd = pd,
	};
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *bad;
	struct ibv_srq *srq;

	srq_ex_refused((struct ibv_srq_init_attr_ex){
			       .attr = { .max_wr = 4, .max_sge = 1 },
			       .comp_mask = IBV_SRQ_INIT_ATTR_PD |
					    IBV_SRQ_INIT_ATTR_TYPE,
			       .srq_type = IBV_SRQT_TM, .pd = pd },
		       EOPNOTSUPP, "a tag matching SRQ type");
	srq_ex_refused((struct ibv_srq_init_attr_ex){
			       .attr = { .max_wr = 4, .max_sge = 1 },
			       .comp_mask = IBV_SRQ_INIT_ATTR_PD |
					    IBV_SRQ_INIT_ATTR_TM,
			       .pd = pd },
		       EOPNOTSUPP, "tag matching");
	srq_ex_refused((struct ibv_srq_init_attr_ex){
			       .attr = { .max_wr = 4, .max_sge = 1 },
			       .comp_mask = IBV_SRQ_INIT_ATTR_TYPE,
			       .srq_type = IBV_SRQT_BASIC },
		       EINVAL, "no PD");

	srq = ibv_create_srq_ex(ctx, &a);
	if (!ok(srq != NULL, "a basic SRQ with ibv_create_srq_ex"))
		return;
	ok(srq->pd == pd && srq->srq_context == &a && a.attr.max_wr == 8 &&
	   a.attr.max_sge == 2, "its PD, context and granted sizes");
	is_int(ibv_post_srq_recv(srq, &rwr, &bad), 0, "it takes a receive");
	is_int(prod(srq_ring_of(srq)), 1, "... in its ring");
	is_int(ibv_destroy_srq(srq), 0, "destroy it");
}

/* ---- XRC -------------------------------------------------------------- */

/* ibv_open_xrcd() with @comp_mask: NULL, @err, and no ioctl made. */
static void xrcd_refused(uint32_t comp_mask, int err, const char *what)
{
	struct ibv_xrcd_init_attr a = { .comp_mask = comp_mask, .fd = -1 };
	unsigned int calls = fake_calls;

	errno = 0;
	ok(!ibv_open_xrcd(ctx, &a) && errno == err && fake_calls == calls,
	   "%s: %s, the kernel not asked", what, strerror(err));
}

static struct ibv_xrcd *test_xrcd_open(void)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = 7,
		.oflags = O_CREAT | O_EXCL,
	};
	struct ibv_xrcd *xrcd;

	xrcd_refused(0, EINVAL, "no comp_mask");
	xrcd_refused(IBV_XRCD_INIT_ATTR_FD, EINVAL, "no OFLAGS");
	xrcd_refused(IBV_XRCD_INIT_ATTR_OFLAGS, EINVAL, "no FD");
	xrcd_refused(IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS |
		     IBV_XRCD_INIT_ATTR_RESERVED, EOPNOTSUPP, "a reserved bit");
	xrcd = ibv_open_xrcd(ctx, &a);
	if (!ok(xrcd != NULL, "open an XRC domain"))
		return NULL;
	ok(xrcd->context == ctx && last_open_xrcd.fd == 7 &&
	   last_open_xrcd.oflags == (uint32_t)(O_CREAT | O_EXCL),
	   "its context; the kernel got the fd and oflags");
	return xrcd;
}

static struct ibv_srq *xrc_srq(struct ibv_xrcd *xrcd, struct ibv_cq *c,
			       uint32_t comp_mask)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 3, .max_sge = 2 },
		.comp_mask = comp_mask,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd, .xrcd = xrcd, .cq = c,
	};

	return ibv_create_srq_ex(ctx, &a);
}

#define XRC_SRQ_MASK (IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | \
		      IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ)

static struct ibv_srq *test_xrc_srq(struct ibv_xrcd *xrcd)
{
	struct ibv_srq_init_attr basic = { .attr = { .max_wr = 2 } };
	struct ibv_recv_wr rwr = { .wr_id = 3 }, *bad;
	struct ibv_srq *srq, *bsrq;
	uint32_t num = 0;

	errno = 0;
	ok(!xrc_srq(xrcd, cq, XRC_SRQ_MASK & ~IBV_SRQ_INIT_ATTR_CQ) &&
	   errno == EINVAL, "an XRC SRQ without its CQ: EINVAL");
	errno = 0;
	ok(!xrc_srq(xrcd, cq, XRC_SRQ_MASK & ~IBV_SRQ_INIT_ATTR_XRCD) &&
	   errno == EINVAL, "an XRC SRQ without its domain: EINVAL");
	errno = 0;
	ok(!xrc_srq(NULL, cq, XRC_SRQ_MASK) && errno == EINVAL,
	   "an XRC SRQ with a NULL domain: EINVAL");
	srq = xrc_srq(xrcd, cq, XRC_SRQ_MASK);
	if (!ok(srq != NULL, "an XRC SRQ"))
		return NULL;
	ok(last_create_srq.flags == RNIC_CREATE_SRQ_XRC &&
	   last_create_srq.xrcd_handle != 0 &&
	   last_create_srq.xrcd_handle == fake_last_xrcd_handle() &&
	   last_create_srq.cq_handle == cq->handle &&
	   last_create_srq.pd_handle == pd->handle,
	   "the kernel got the XRC flag, the domain, the CQ and the PD");
	is_int(ibv_get_srq_num(srq, &num), 0, "ibv_get_srq_num");
	is_int(num, 0xabc000 + nr_srqs - 1, "... is the kernel's number");
	is_int(ibv_post_srq_recv(srq, &rwr, &bad), 0,
	       "the XRC SRQ takes a receive");
	is_int(prod(srq_ring_of(srq)), 1, "... in its ring");

	bsrq = ibv_create_srq(pd, &basic);
	if (ok(bsrq != NULL, "a basic SRQ")) {
		num = 7;
		ok(ibv_get_srq_num(bsrq, &num) == EINVAL && num == 7,
		   "ibv_get_srq_num of a basic SRQ: EINVAL, nothing written");
		ibv_destroy_srq(bsrq);
	}
	return srq;
}

static struct ibv_qp *tgt_qp(struct ibv_xrcd *xrcd, uint32_t comp_mask)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_context = &a,
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = comp_mask,
		.xrcd = xrcd,
	};

	return ibv_create_qp_ex(ctx, &a);
}

static void test_xrc_tgt(struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr plain = { .qp_type = IBV_QPT_XRC_RECV };
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad = NULL;
	struct ibv_send_wr swr = send_wr(1, IBV_WR_SEND), *sbad = NULL;
	struct ibv_qp *qp;

	errno = 0;
	ok(!tgt_qp(xrcd, IBV_QP_INIT_ATTR_PD) && errno == EINVAL,
	   "a target QP without IBV_QP_INIT_ATTR_XRCD: EINVAL");
	errno = 0;
	ok(!tgt_qp(NULL, IBV_QP_INIT_ATTR_XRCD) && errno == EINVAL,
	   "a target QP with a NULL domain: EINVAL");
	errno = 0;
	ok(!ibv_create_qp(pd, &plain) && errno == EINVAL,
	   "a target QP by ibv_create_qp (no domain there): EINVAL");
	qp = tgt_qp(xrcd, IBV_QP_INIT_ATTR_XRCD);
	if (!ok(qp != NULL, "a target QP with only its domain"))
		return;
	ok(last_create_qp.qp_type == RNIC_QPT_XRC_RECV &&
	   last_create_qp.xrcd_handle == fake_last_xrcd_handle() &&
	   !last_create_qp.pd_handle && !last_create_qp.send_cq_handle &&
	   !last_create_qp.recv_cq_handle && !last_create_qp.flags,
	   "the kernel got the type and the domain, no PD, CQ or flag");
	ok(qp->qp_type == IBV_QPT_XRC_RECV && !qp->pd && !qp->send_cq &&
	   !qp->recv_cq && qp->context == ctx &&
	   qp->qp_num == fqps[nr_qps - 1].cmd.out_qp_num,
	   "its type, number, context; no PD or CQs");
	set_state(qp, IBV_QPS_RTR);
	errno = 0;
	ok(ibv_post_recv(qp, &rwr, &rbad) == EINVAL && errno == EINVAL &&
	   rbad == &rwr, "post_recv on a target QP: EINVAL");
	ok(ibv_post_send(qp, &swr, &sbad) == EINVAL && sbad == &swr,
	   "post_send on a target QP: EINVAL");
	is_int(ibv_destroy_qp(qp), 0, "destroy the target QP handle");
}

static void test_xrc_ini(void)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 4, .max_send_sge = 1,
			 .max_recv_wr = 4, .max_recv_sge = 1 },
	};
	struct ibv_send_wr swr = send_wr(9, IBV_WR_RDMA_WRITE), *sbad;
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad = NULL;
	struct rnic_send_wqe w;
	struct ibv_qp_ex *x;
	struct ibv_qp *qp;
	uint32_t p;

	_Static_assert(offsetof(struct ibv_send_wr, xrc_remote_srq_num) ==
		       offsetof(struct ibv_send_wr, qp_type.xrc.remote_srqn),
		       "xrc_remote_srq_num is qp_type.xrc.remote_srqn");
	qp = ibv_create_qp(pd, &a);
	if (!ok(qp != NULL, "an XRC send QP by ibv_create_qp, no recv CQ"))
		return;
	ok(last_create_qp.qp_type == RNIC_QPT_XRC_SEND &&
	   !last_create_qp.recv_cq_handle && !last_create_qp.xrcd_handle &&
	   a.cap.max_recv_wr == 0 && a.cap.max_send_wr == 4 &&
	   !rq_of(qp)->size, "type XRC_SEND; a send ring, no receive ring");
	set_state(qp, IBV_QPS_RTS);
	errno = 0;
	ok(ibv_post_recv(qp, &rwr, &rbad) == EINVAL && errno == EINVAL &&
	   rbad == &rwr, "post_recv on an XRC send QP: EINVAL");
	p = prod(sq_of(qp));
	swr.qp_type.xrc.remote_srqn = 0xabcdef;
	swr.wr.rdma.rkey = 0x55;
	is_int(ibv_post_send(qp, &swr, &sbad), 0, "an XRC RDMA WRITE");
	w = swqe(sq_of(qp), p);
	ok(w.remote_srqn == 0xabcdef && w.wr_id == 9 && w.wr.rdma.rkey == 0x55,
	   "the WQE names the remote SRQ");
	swr.xrc_remote_srq_num = 0x123;
	is_int(ibv_post_send(qp, &swr, &sbad), 0,
	       "the same through the OFED name");
	is_int(swqe(sq_of(qp), p + 1).remote_srqn, 0x123,
	       "xrc_remote_srq_num reaches the WQE");
	swr.opcode = IBV_WR_BIND_MW;
	send_bad(qp, &swr, "a bind on an XRC send QP");
	is_int(ibv_destroy_qp(qp), 0, "destroy the XRC send QP");

	qp = make_qp_ex(IBV_QPT_XRC_SEND, (struct caps){ .swr = 4, .ssge = 1 },
			IBV_QP_EX_WITH_SEND);
	x = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!ok(x && x->wr_set_xrc_srqn, "an XRC send QP's builder has "
		"wr_set_xrc_srqn"))
		goto out;
	set_state(qp, IBV_QPS_RTS);
	p = prod(sq_of(qp));
	ibv_wr_start(x);
	x->wr_id = 4;
	ibv_wr_send(x);
	ibv_wr_set_xrc_srqn(x, 0x42);
	ibv_wr_set_sge(x, 0x44, 0x4000, 8);
	is_int(ibv_wr_complete(x), 0, "build an XRC SEND");
	w = swqe(sq_of(qp), p);
	ok(w.remote_srqn == 0x42 && w.wr_id == 4 && w.opcode == RNIC_WR_SEND,
	   "ibv_wr_set_xrc_srqn reaches the WQE");
out:
	if (qp)
		ibv_destroy_qp(qp);
	qp = make_qp_ex(IBV_QPT_RC, (struct caps){ .swr = 4, .ssge = 1 },
			IBV_QP_EX_WITH_SEND);
	x = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	ok(x && !x->wr_set_xrc_srqn, "an RC QP's builder has none");
	if (qp)
		ibv_destroy_qp(qp);
}

static struct ibv_qp *open_qp(struct ibv_xrcd *xrcd, uint32_t comp_mask,
			      enum ibv_qp_type type)
{
	struct ibv_qp_open_attr a = {
		.comp_mask = comp_mask, .qp_num = 0x3456, .xrcd = xrcd,
		.qp_context = &fk, .qp_type = type,
	};

	return ibv_open_qp(ctx, &a);
}

#define OPEN_MASK (IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | \
		   IBV_QP_OPEN_ATTR_TYPE)

static void test_open_qp(struct ibv_xrcd *xrcd)
{
	unsigned int calls = fake_calls;
	uint32_t handle;
	struct ibv_qp *qp;

	errno = 0;
	ok(!open_qp(xrcd, OPEN_MASK & ~IBV_QP_OPEN_ATTR_TYPE,
		    IBV_QPT_XRC_RECV) && errno == EINVAL,
	   "ibv_open_qp without TYPE: EINVAL");
	errno = 0;
	ok(!open_qp(xrcd, OPEN_MASK & ~IBV_QP_OPEN_ATTR_NUM,
		    IBV_QPT_XRC_RECV) && errno == EINVAL,
	   "... without NUM: EINVAL");
	errno = 0;
	ok(!open_qp(xrcd, OPEN_MASK | IBV_QP_OPEN_ATTR_RESERVED,
		    IBV_QPT_XRC_RECV) && errno == EOPNOTSUPP,
	   "... with a reserved bit: EOPNOTSUPP");
	errno = 0;
	ok(!open_qp(xrcd, OPEN_MASK, IBV_QPT_RC) && errno == EINVAL,
	   "... of an RC QP: EINVAL");
	is_int(fake_calls, calls, "none of them asked the kernel");
	qp = open_qp(xrcd, OPEN_MASK | IBV_QP_OPEN_ATTR_CONTEXT,
		     IBV_QPT_XRC_RECV);
	if (!ok(qp != NULL, "open a target QP by number"))
		return;
	ok(last_open_qp.qp_num == 0x3456 &&
	   last_open_qp.xrcd_handle == fake_last_xrcd_handle() &&
	   last_open_qp.user_handle == (uintptr_t)qp,
	   "the kernel got the number, the domain, the QP as user handle");
	ok(qp->qp_num == 0x3456 && qp->qp_type == IBV_QPT_XRC_RECV &&
	   qp->qp_context == &fk && qp->context == ctx && !qp->pd,
	   "its number, type and context");
	handle = qp->handle;
	is_int(ibv_destroy_qp(qp), 0, "destroy the opened handle");
	is_int(last_destroyed, handle, "... with RNIC_IOCTL_DESTROY_QP");
}

/* ibv_query_qp() writes no byte past rdma-core's struct ibv_qp_init_attr. */
static void test_query_keeps_tail(void)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_qp *qp;

	qp = make_qp(IBV_QPT_RC, (struct caps){ .swr = 1 }, NULL);
	if (!ok(qp != NULL, "an RC QP"))
		return;
	memset(&init, 0x5a, sizeof(init));
	is_int(ibv_query_qp(qp, &attr, IBV_QP_STATE, &init), 0, "query it");
	ok(init.qp_type == IBV_QPT_RC && init.send_cq == cq &&
	   init.xrc_domain == (struct ibv_xrc_domain *)
			      (uintptr_t)0x5a5a5a5a5a5a5a5aULL,
	   "init_attr filled up to sq_sig_all, xrc_domain untouched");
	ibv_destroy_qp(qp);
}

static void test_xrc(void)
{
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	uint32_t handle;

	xrcd = test_xrcd_open();
	if (!xrcd)
		return;
	srq = test_xrc_srq(xrcd);
	test_xrc_tgt(xrcd);
	test_xrc_ini();
	test_open_qp(xrcd);
	test_query_keeps_tail();
	if (srq)
		is_int(ibv_destroy_srq(srq), 0, "destroy the XRC SRQ");
	handle = fake_last_xrcd_handle();
	is_int(ibv_close_xrcd(xrcd), 0, "close the domain");
	is_int(last_destroyed, handle, "... with RNIC_IOCTL_CLOSE_XRCD");
}

/* The reference documents' OFED 1.5 XRC API, over the calls above. */
static void test_xrc_ofed(void)
{
	struct ibv_qp_init_attr ini = {
		.send_cq = cq, .qp_type = IBV_QPT_XRC,
		.cap = { .max_send_wr = 2, .max_send_sge = 1 },
	};
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 3, .max_sge = 1 } };
	struct ibv_qp_init_attr rcv = { .qp_type = IBV_QPT_XRC };
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT };
	struct ibv_qp_init_attr qinit;
	struct ibv_xrc_domain *d;
	unsigned int destroys;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	uint32_t qpn = 0, num;

	d = ibv_open_xrc_domain(ctx, -1, O_CREAT);
	if (!ok(d != NULL, "ibv_open_xrc_domain"))
		return;
	ok(last_open_xrcd.fd == -1 && last_open_xrcd.oflags == O_CREAT,
	   "the kernel got fd -1 and O_CREAT");
	srq = ibv_create_xrc_srq(pd, d, cq, &sa);
	ok(srq && sa.attr.max_wr == 4 && !ibv_get_srq_num(srq, &num) &&
	   last_create_srq.flags == RNIC_CREATE_SRQ_XRC &&
	   last_create_srq.cq_handle == cq->handle,
	   "ibv_create_xrc_srq: an XRC SRQ with a number, sizes granted");

	errno = 0;
	ok(!ibv_create_qp(pd, &ini) && errno == EINVAL,
	   "IBV_QPT_XRC without xrc_domain: EINVAL");
	ini.xrc_domain = d;
	qp = ibv_create_qp(pd, &ini);
	ok(qp && last_create_qp.qp_type == RNIC_QPT_XRC_SEND &&
	   qp->qp_type == IBV_QPT_XRC,
	   "IBV_QPT_XRC: an XRC send QP, of the type asked for");
	if (qp)
		ibv_destroy_qp(qp);

	is_int(ibv_create_xrc_rcv_qp(&(struct ibv_qp_init_attr){ 0 }, &qpn),
	       EINVAL, "ibv_create_xrc_rcv_qp without a domain: EINVAL");
	rcv.xrc_domain = d;
	is_int(ibv_create_xrc_rcv_qp(&rcv, &qpn), 0, "ibv_create_xrc_rcv_qp");
	ok(qpn == fqps[nr_qps - 1].cmd.out_qp_num &&
	   last_create_qp.qp_type == RNIC_QPT_XRC_RECV,
	   "a target QP, its number returned");
	is_int(ibv_modify_xrc_rcv_qp(d, qpn, &attr, IBV_QP_STATE), 0,
	       "ibv_modify_xrc_rcv_qp of the registered QP");
	memset(&qinit, 0, sizeof(qinit));
	is_int(ibv_query_xrc_rcv_qp(d, qpn, &attr, IBV_QP_STATE, &qinit), 0,
	       "ibv_query_xrc_rcv_qp");
	ok(qinit.xrc_domain == d, "... gives the domain in init_attr");
	is_int(ibv_modify_xrc_rcv_qp(d, 0x999, &attr, IBV_QP_STATE), EINVAL,
	       "ibv_modify_xrc_rcv_qp of a QP not registered: EINVAL");

	is_int(ibv_reg_xrc_rcv_qp(d, qpn), 0, "register again");
	destroys = fake_destroys;
	is_int(ibv_close_xrc_domain(d), EBUSY,
	       "close while registered: EBUSY");
	is_int(ibv_unreg_xrc_rcv_qp(d, qpn), 0, "unregister once");
	is_int(fake_destroys, destroys, "... the QP stays");
	is_int(ibv_unreg_xrc_rcv_qp(d, qpn), 0, "unregister the last time");
	is_int(fake_destroys, destroys + 1, "... its handle is destroyed");
	is_int(ibv_unreg_xrc_rcv_qp(d, qpn), EINVAL,
	       "unregister once more: EINVAL");

	is_int(ibv_reg_xrc_rcv_qp(d, 0x777), 0,
	       "register with another process's QP");
	ok(last_open_qp.qp_num == 0x777 &&
	   last_open_qp.xrcd_handle == fake_last_xrcd_handle(),
	   "... opens it by number in the domain");
	is_int(ibv_unreg_xrc_rcv_qp(d, 0x777), 0, "... and unregister");
	is_int(fake_destroys, destroys + 2, "... drops that handle");

	if (srq)
		ibv_destroy_srq(srq);
	is_int(ibv_close_xrc_domain(d), 0, "ibv_close_xrc_domain");
}

/* ibv_create_cq_ex() with @wc_flags: NULL and the errno expected. */
static void cq_ex_refused(struct ibv_cq_init_attr_ex a, int err,
			  const char *what)
{
	errno = 0;
	ok(!ibv_create_cq_ex(ctx, &a) && errno == err, "%s: %s", what,
	   strerror(err));
}

static uint32_t cq_cons(struct ibv_cq *c)
{
	return __atomic_load_n(ring_word(fake_cq_ring(c->handle),
					 FAKE_CONS_OFF), __ATOMIC_ACQUIRE);
}

static void test_cq_ex(void)
{
	struct ibv_cq_init_attr_ex a = { .cqe = 8,
					 .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct rnic_cqe c1 = {
		.wr_id = 11, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV_RDMA_WITH_IMM, .byte_len = 4000,
		.imm_data = htobe32(0xabcd1234), .qp_num = 0x123456,
		.src_qp = 0x654321, .wc_flags = IBV_WC_WITH_IMM | IBV_WC_GRH,
		.slid = 7, .sl = 3, .dlid_path_bits = 2, .vendor_err = 0,
	};
	struct rnic_cqe c2 = { .wr_id = 12, .status = IBV_WC_WR_FLUSH_ERR,
			       .opcode = IBV_WC_SEND, .vendor_err = 0x99 };
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_cq_ex *cx;
	struct ibv_wc wc;

	cq_ex_refused((struct ibv_cq_init_attr_ex){
			      .cqe = 8,
			      .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP },
		      EOPNOTSUPP, "a timestamp");
	cq_ex_refused((struct ibv_cq_init_attr_ex){
			      .cqe = 8, .comp_mask = IBV_CQ_INIT_ATTR_MASK_PD },
		      EOPNOTSUPP, "a parent domain");
	cq_ex_refused((struct ibv_cq_init_attr_ex){
			      .cqe = 8,
			      .comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
			      .flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN },
		      EOPNOTSUPP, "ignoring overruns");
	cq_ex_refused((struct ibv_cq_init_attr_ex){ .cqe = 8,
						     .comp_mask = 1 << 2 },
		      EINVAL, "an unknown comp_mask bit");

	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	a.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	cx = ibv_create_cq_ex(ctx, &a);
	if (!ok(cx != NULL, "ibv_create_cq_ex with the standard fields"))
		return;
	ok(ibv_cq_ex_to_cq(cx)->cqe == 8 && ibv_cq_ex_to_cq(cx)->context == ctx,
	   "it is a CQ of 8 entries");
	ok(!cx->read_completion_ts && !cx->read_completion_wallclock_ns &&
	   !cx->read_cvlan && !cx->read_flow_tag && !cx->read_tm_info,
	   "readers of fields rnic lacks are NULL");
	is_int(ibv_start_poll(cx, &pa), ENOENT, "empty: ENOENT");

	fake_cq_post_cqe(ibv_cq_ex_to_cq(cx)->handle, &c1);
	fake_cq_post_cqe(ibv_cq_ex_to_cq(cx)->handle, &c2);
	fake_cq_post(ibv_cq_ex_to_cq(cx)->handle, 13);
	pa.comp_mask = 1;
	is_int(ibv_start_poll(cx, &pa), EINVAL, "poll comp_mask 1: EINVAL");
	pa.comp_mask = 0;
	is_int(ibv_start_poll(cx, &pa), 0, "start_poll finds a completion");
	ok(cx->wr_id == 11 && cx->status == IBV_WC_SUCCESS,
	   "the first: wr_id and status");
	ok(ibv_wc_read_opcode(cx) == IBV_WC_RECV_RDMA_WITH_IMM &&
	   ibv_wc_read_byte_len(cx) == 4000 &&
	   ibv_wc_read_imm_data(cx) == htobe32(0xabcd1234) &&
	   ibv_wc_read_qp_num(cx) == 0x123456 &&
	   ibv_wc_read_src_qp(cx) == 0x654321 &&
	   ibv_wc_read_wc_flags(cx) == (IBV_WC_WITH_IMM | IBV_WC_GRH) &&
	   ibv_wc_read_slid(cx) == 7 && ibv_wc_read_sl(cx) == 3 &&
	   ibv_wc_read_dlid_path_bits(cx) == 2 &&
	   ibv_wc_read_vendor_err(cx) == 0,
	   "its fields read back");
	is_int(ibv_next_poll(cx), 0, "next_poll finds the second");
	ok(cx->wr_id == 12 && cx->status == IBV_WC_WR_FLUSH_ERR &&
	   ibv_wc_read_vendor_err(cx) == 0x99 &&
	   ibv_wc_read_opcode(cx) == IBV_WC_SEND,
	   "the second: flushed, vendor_err");
	is_int(cq_cons(ibv_cq_ex_to_cq(cx)), 0,
	   "nothing consumed before end_poll");
	is_int(ibv_next_poll(cx), 0, "next_poll finds the third");
	ok(cx->wr_id == 13, "the third: wr_id");
	is_int(ibv_next_poll(cx), ENOENT, "then ENOENT");
	ibv_end_poll(cx);
	is_int(cq_cons(ibv_cq_ex_to_cq(cx)), 3, "end_poll consumed the 3");
	is_int(ibv_poll_cq(ibv_cq_ex_to_cq(cx), 1, &wc), 0,
	       "ibv_poll_cq finds none left");

	/* The two ways of polling share the ring. */
	fake_cq_post(ibv_cq_ex_to_cq(cx)->handle, 21);
	fake_cq_post(ibv_cq_ex_to_cq(cx)->handle, 22);
	is_int(ibv_poll_cq(ibv_cq_ex_to_cq(cx), 1, &wc), 1,
	       "ibv_poll_cq takes one");
	is_int(wc.wr_id, 21, "... the first");
	is_int(ibv_start_poll(cx, &pa), 0, "start_poll the other");
	is_int(cx->wr_id, 22, "... the second");
	ibv_end_poll(cx);
	is_int(cq_cons(ibv_cq_ex_to_cq(cx)), 5, "both consumed once");
	is_int(ibv_destroy_cq(ibv_cq_ex_to_cq(cx)), 0,
	       "ibv_destroy_cq destroys it");
}

static struct ibv_device **setup_device(void)
{
	char path[400], dev[32];

	snprintf(dev, sizeof(dev), "%u:%u", major(null_rdev),
		 minor(null_rdev));
	fake_add(&fk, "rnic0", "1", "uverbs1024", "0200:00ff:fe00:0001", dev);
	snprintf(path, sizeof(path), "%s/uverbs1024", fk.dev_dir);
	if (symlink("/dev/null", path) && errno != EEXIST)
		fake_die("cannot symlink", path);
	return ibv_get_device_list(NULL);
}

int main(void)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_device **list;
	struct stat st;

	if (stat("/dev/null", &st) || !S_ISCHR(st.st_mode)) {
		printf("1..0 # SKIP /dev/null is not a char device\n");
		return 0;
	}
	null_rdev = st.st_rdev;
	unsetenv("RNIC_DEBUG");
	unsetenv("RNIC_SQ_POLL");
	mem_fd = memfd_create("rnic-rings", MFD_CLOEXEC);
	if (mem_fd < 0 || ftruncate(mem_fd, FAKE_MEM_SIZE)) {
		printf("Bail out! memfd: %s\n", strerror(errno));
		return 1;
	}
	mem = real_mmap(NULL, FAKE_MEM_SIZE, PROT_READ | PROT_WRITE,
			MAP_SHARED, mem_fd, 0);
	if (mem == MAP_FAILED) {
		printf("Bail out! mmap: %s\n", strerror(errno));
		return 1;
	}
	fake_init(&fk);

	list = setup_device();
	if (!ok(list && list[0], "fake rnic0 is listed"))
		goto out;
	ctx = ibv_open_device(list[0]);
	if (!ok(ctx != NULL, "open rnic0"))
		goto out;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (pd)
		ah = ibv_create_ah(pd, &aa);
	if (!ok(pd && cq && ah, "a PD, a CQ and an AH"))
		goto out;

	test_create();
	test_no_rings();
	test_bad_rings();
	test_bad_cq_rings();
	test_send_state();
	test_opcodes();
	test_bind_wqe();
	test_send_checks();
	test_send_encoding();
	test_ud_encoding();
	test_send_list();
	test_full_and_wrap();
	test_doorbell();
	test_recv();
	test_srq();
	test_threads();
	test_poll_while_resizing();
	test_cq_ex();
	test_qp_ex_create();
	test_qp_ex_build();
	test_qp_ex_mw();
	test_qp_ex_ud();
	test_srq_ex();
	test_xrc();
	test_xrc_ofed();

	is_int(fake_bad_args, 0,
	       "every request had the right size, flags and reserved fields");
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	ibv_free_device_list(list);
	fake_fini(&fk);
	syscall(SYS_munmap, mem, FAKE_MEM_SIZE);
	close(mem_fd);
	return tap_done();
}
