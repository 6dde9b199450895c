// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: completion channels and completion queues.
 *
 * A CQ's ring is mapped from the context's char device. The kernel
 * produces struct rnic_cqe entries; ibv_poll_cq() consumes them
 * (load-acquire of the producer index, copy, store-release of the
 * consumer index) and ibv_req_notify_cq() arms the CQ through its arm word
 * (DOC "rnic CQ notification" in rnic-abi.h): neither makes a system call.
 * A spinlock per CQ serialises poll, arm and resize of that CQ; nothing is
 * shared between CQs.
 *
 * Every completion event names its CQ by the user_handle given at
 * creation: the struct ibv_cq pointer.
 *
 * An extended CQ (ibv_create_cq_ex()) is the same CQ seen through a
 * struct ibv_cq_ex, which begins as struct ibv_cq does. Its iterator
 * takes the lock at ibv_start_poll() and keeps it until ibv_end_poll():
 * the read_* functions read the current CQE where it lies in the ring
 * (the kernel does not reuse an entry before the consumer index passes
 * it, which happens at ibv_end_poll()), so reading a completion copies
 * only the fields asked for and makes no system call.
 *
 * The empty poll, resize and the mapping
 * --------------------------------------
 * ibv_poll_cq() answers "nothing new" without the lock: busy pollers ask
 * that most, millions of times a second. ibv_resize_cq() gets a new ring
 * from the kernel and puts it where the old one was, while such a poller
 * may be reading the old one's indexes. Two rules make that safe:
 *
 * 1. An address the lock-free check may read is never unmapped before
 *    the CQ is destroyed. Each CQ owns two slots, reservations of
 *    address space mapped as anonymous zeros, and its ring is mapped
 *    (MAP_FIXED) over the start of one of them. A resize maps the new
 *    ring over the other slot, publishes it, and then, outside the CQ
 *    lock, maps zeros over the old ring: MAP_FIXED replaces pages without
 *    a moment where the address is unmapped, and the slow part (dropping
 *    the old pages, which pollers may be reading) blocks no poller. A
 *    slot too small for the new ring is replaced by one at least twice
 *    its size; the old one stays, zeros, until destroy (struct
 *    rnic_cq_tomb). So a stale reader reads the old ring, the new one, or
 *    zeros: never a fault. Memory: the kernel's ring pages are released
 *    at once; what is kept is address space, under eight times (usually
 *    twice) the largest ring the CQ ever had, and the few zero pages
 *    stale readers touched; resizing many times costs nothing more.
 *
 * 2. What a lock-free check reads is consistent, or it takes the lock:
 *    @seq is a sequence count, odd while resize changes the mapping or
 *    @ring. Barrier pairs (C11 fences, as in a kernel seqcount):
 *
 *      resize (cq->lock held)            empty check (no lock)
 *      mmap() the new ring over the      s = load-acquire(seq)      [S1]
 *        other slot                      if (s odd) take the lock
 *      seq = odd                         p = ring.producer ...
 *      fence-release              [W1]   prod, cons = *p, *c
 *      ring = new                        fence-acquire              [S2]
 *      store-release(seq = even)  [W2]   if (seq != s) take the lock
 *      (lock dropped) zeros over
 *        the old ring
 *
 *    [W1] pairs with [S2]: a check that read a pointer resize changed
 *    after making @seq odd sees @seq changed. [W2] pairs with [S1]: a
 *    check that sees the even value reads the new @ring. The old ring
 *    turns to zeros only after [W2], when no check can start with
 *    pointers into it, and one that read those zeros sees @seq changed
 *    too; so does one that kept pointers into the other slot from an
 *    earlier resize and read the new ring being mapped there. The
 *    producer index itself pairs as before: the kernel's store-release
 *    of it with the load-acquire here.
 *
 * Everything else (copying CQEs, the consumer index, the arm word)
 * happens under the lock, against the current @ring. Resizes are
 * serialised by @resize_lock, which they hold while they map zeros.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* CQEs carry the verbs' values: copied, not mapped. */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(IBV_WC_MW_BIND_ERR, RNIC_WC_MW_BIND_ERR) &&
	       SAME(IBV_WC_REM_INV_REQ_ERR, RNIC_WC_REM_INV_REQ_ERR) &&
	       SAME(IBV_WC_BIND_MW, RNIC_WC_BIND_MW) &&
	       SAME(IBV_WC_LOCAL_INV, RNIC_WC_LOCAL_INV) &&
	       SAME(IBV_WC_RECV_RDMA_WITH_IMM, RNIC_WC_RECV_RDMA_WITH_IMM) &&
	       SAME(IBV_WC_WITH_INV, RNIC_WC_WITH_INV) &&
	       SAME(IBV_WC_WITH_IMM, RNIC_WC_WITH_IMM),
	       "ibv_wc and rnic_cqe values differ");

/**
 * struct rnic_comp_channel - librnic's side of a struct ibv_comp_channel
 * @ibch: what the application sees
 * @handle: kernel handle of the channel
 */
struct rnic_comp_channel {
	struct ibv_comp_channel ibch;
	uint32_t handle;
};

static struct rnic_comp_channel *to_rch(struct ibv_comp_channel *ibch)
{
	return container_of(ibch, struct rnic_comp_channel, ibch);
}

/**
 * struct rnic_cq_slot - a reservation of address space for a CQ's ring
 * @va: its address, NULL before its first use
 * @size: its bytes
 */
struct rnic_cq_slot {
	void *va;
	size_t size;
};

/**
 * struct rnic_cq_tomb - a slot a CQ outgrew, zeros until destroy
 * @next: the one outgrown before
 * @va: its address
 * @size: its bytes
 */
struct rnic_cq_tomb {
	struct rnic_cq_tomb *next;
	void *va;
	size_t size;
};

/**
 * struct rnic_cq - librnic's side of a struct ibv_cq
 * @ibcq: what the application sees
 * @ibcq_ex: the same, for an extended CQ
 * @lock: serialises poll, arm and resize of this CQ
 * @resize_lock: serialises resizes, over the mapping of zeros they do
 *	without @lock
 * @seq: sequence count of @ring (see the top of the file); written under
 *	@lock, read without it by the empty check
 * @ring: the ring, mapped at @slot[@cur]; the kernel writes its producer
 *	index, we its consumer index. Written under @lock with @seq odd
 * @arm: the arm word in @ring's region, written by us; set with @ring
 * @slot: where the ring is mapped, and where the next one will be;
 *	written under @resize_lock and @lock
 * @cur: the slot of @ring; written under @resize_lock and @lock
 * @tombs: slots outgrown, kept until destroy; @resize_lock
 * @arm_seq: sequence number of the last arming
 * @poll_cqe: between ibv_start_poll() and ibv_end_poll(), the current
 *	CQE
 * @poll_next: ... the index after it; @lock held
 * @poll_prod: ... the producer index as last read
 */
struct rnic_cq {
	union {
		struct ibv_cq ibcq;
		struct ibv_cq_ex ibcq_ex;
	};
	pthread_spinlock_t lock;
	pthread_mutex_t resize_lock;
	uint32_t seq;
	struct rnic_ring ring;
	uint32_t *arm;
	struct rnic_cq_slot slot[2];
	unsigned int cur;
	struct rnic_cq_tomb *tombs;
	uint32_t arm_seq;
	const struct rnic_cqe *poll_cqe;
	uint32_t poll_next;
	uint32_t poll_prod;
};

static struct rnic_cq *to_rcq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct rnic_cq, ibcq);
}

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct rnic_create_comp_channel cmd = { .size = sizeof(cmd) };
	struct rnic_comp_channel *rch;
	int ret;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	rch = calloc(1, sizeof(*rch));
	if (!rch)
		return NULL;
	ret = rnic_cmd(context, RNIC_IOCTL_CREATE_COMP_CHANNEL, &cmd);
	if (ret) {
		free(rch);
		errno = ret;
		return NULL;
	}
	rch->ibch.context = context;
	rch->ibch.fd = cmd.out_fd;
	rch->handle = cmd.out_handle;
	return &rch->ibch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct rnic_comp_channel *rch = to_rch(channel);
	int ret;

	/* The kernel refuses (EBUSY) while a CQ uses the channel. */
	ret = rnic_destroy_obj(channel->context,
			       RNIC_IOCTL_DESTROY_COMP_CHANNEL, rch->handle);
	if (ret)
		return ret;
	close(channel->fd);
	free(rch);
	return 0;
}

/* The kernel's answer decides where we read and write: check it. */
static int cq_ring_check(const struct rnic_ring_info *ri,
			 const uint32_t *arm_off)
{
	return rnic_ring_check(ri, sizeof(struct rnic_cqe), arm_off);
}

/* Zeros at @addr, @len bytes (MAP_FIXED: whatever was there goes). */
static void *cq_zeros(void *addr, size_t len)
{
	return mmap(addr, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		    (addr ? MAP_FIXED : 0), -1, 0);
}

/* Make the ring @ri describes, mapped at @va, the CQ's. */
static void cq_ring_set(struct rnic_cq *cq, void *va,
			const struct rnic_ring_info *ri, uint32_t arm_off)
{
	rnic_ring_set(&cq->ring, va, ri);
	cq->arm = (uint32_t *)((char *)va + arm_off);
}

/*
 * Map the ring @ri describes over the start of slot @i, which is zeros,
 * first replacing the slot by one twice as large if the ring does not
 * fit (the old one goes to cq->tombs). Should mapping fail, the slot is
 * zeros again. 0 or an errno value.
 */
static int cq_map_slot(struct rnic_cq *cq, unsigned int i, int fd,
		       const struct rnic_ring_info *ri)
{
	struct rnic_cq_slot *s = &cq->slot[i];
	size_t size = s->size * 2 > ri->size ? s->size * 2 : ri->size;
	struct rnic_cq_tomb *tomb = NULL;
	void *va;
	int ret;

	if (ri->size > s->size) {
		if (s->va) {
			tomb = malloc(sizeof(*tomb));
			if (!tomb)
				return ENOMEM;
		}
		va = cq_zeros(NULL, size);
		if (va == MAP_FAILED) {
			free(tomb);
			return errno;
		}
		if (tomb) {
			*tomb = (struct rnic_cq_tomb){ .next = cq->tombs,
						       .va = s->va,
						       .size = s->size };
			cq->tombs = tomb;
		}
		s->va = va;
		s->size = size;
	}
	if (rnic_ring_mmap(s->va, fd, ri))
		return 0;
	/* MAP_FIXED may have unmapped what was there: no holes. */
	ret = errno;
	cq_zeros(s->va, ri->size);
	return ret;
}

/* A new CQ's slots and ring; 0 or an errno value. */
static int cq_map(struct rnic_cq *cq, int fd, const struct rnic_ring_info *ri,
		  uint32_t arm_off)
{
	int ret;

	ret = cq_ring_check(ri, &arm_off);
	if (!ret)
		ret = cq_map_slot(cq, 0, fd, ri);
	if (ret) {
		if (cq->slot[0].va)
			munmap(cq->slot[0].va, cq->slot[0].size);
		return ret;
	}
	cq_ring_set(cq, cq->slot[0].va, ri, arm_off);
	cq->ibcq.cqe = (int)ri->entries;
	return 0;
}

/*
 * Make the ring @ri describes the CQ's, mapped over the other slot;
 * cq->lock held. Should mapping fail, the CQ keeps the old ring, which
 * no longer receives CQEs. Return: 0 or an errno value.
 */
static int cq_remap(struct rnic_cq *cq, int fd,
		    const struct rnic_ring_info *ri, uint32_t arm_off)
{
	unsigned int next = !cq->cur;
	int ret;

	ret = cq_map_slot(cq, next, fd, ri);
	if (ret)
		return ret;
	__atomic_store_n(&cq->seq, cq->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);		/* [W1] */
	cq_ring_set(cq, cq->slot[next].va, ri, arm_off);
	__atomic_store_n(&cq->seq, cq->seq + 1, __ATOMIC_RELEASE); /* [W2] */
	cq->cur = next;
	return 0;
}

/* Unmap everything the CQ mapped (the ring first, as it was mapped). */
static void cq_unmap(struct rnic_cq *cq)
{
	struct rnic_cq_slot *s = &cq->slot[cq->cur];
	struct rnic_cq_slot *other = &cq->slot[!cq->cur];
	struct rnic_cq_tomb *tomb;

	munmap(s->va, cq->ring.size);
	if (s->size > cq->ring.size)
		munmap((char *)s->va + cq->ring.size, s->size - cq->ring.size);
	if (other->va)
		munmap(other->va, other->size);
	while ((tomb = cq->tombs)) {
		cq->tombs = tomb->next;
		munmap(tomb->va, tomb->size);
		free(tomb);
	}
}

/* RNIC_IOCTL_DESTROY_CQ; 0 or an errno value, the event counts in @cmd. */
static int cq_destroy_cmd(struct ibv_context *context, uint32_t handle,
			  struct rnic_destroy_cq *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->handle = handle;
	return rnic_cmd(context, RNIC_IOCTL_DESTROY_CQ, cmd);
}

static int cq_init_locks(struct rnic_cq *cq)
{
	int ret;

	ret = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		return ret;
	ret = pthread_mutex_init(&cq->ibcq.mutex, NULL);
	if (ret)
		goto err_spin;
	ret = pthread_cond_init(&cq->ibcq.cond, NULL);
	if (ret)
		goto err_mutex;
	ret = pthread_mutex_init(&cq->resize_lock, NULL);
	if (ret)
		goto err_cond;
	return 0;

err_cond:
	pthread_cond_destroy(&cq->ibcq.cond);
err_mutex:
	pthread_mutex_destroy(&cq->ibcq.mutex);
err_spin:
	pthread_spin_destroy(&cq->lock);
	return ret;
}

static void cq_fini_locks(struct rnic_cq *cq)
{
	pthread_mutex_destroy(&cq->resize_lock);
	pthread_cond_destroy(&cq->ibcq.cond);
	pthread_mutex_destroy(&cq->ibcq.mutex);
	pthread_spin_destroy(&cq->lock);
}

/* The CQ ibv_create_cq() and ibv_create_cq_ex() make; NULL and errno. */
static struct rnic_cq *cq_create(struct ibv_context *context, int cqe,
				 void *cq_context,
				 struct ibv_comp_channel *channel,
				 int comp_vector)
{
	struct rnic_create_cq cmd = { .size = sizeof(cmd) };
	struct rnic_destroy_cq dcmd;
	struct rnic_cq *cq;
	int ret;

	if (!context || cqe <= 0 || comp_vector < 0 ||
	    (channel && channel->context != context)) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	ret = cq_init_locks(cq);
	if (ret)
		goto err_free;

	cmd.user_handle = (uintptr_t)&cq->ibcq;
	cmd.cqe = (uint32_t)cqe;
	cmd.comp_vector = (uint32_t)comp_vector;
	if (channel) {
		cmd.flags = RNIC_CREATE_CQ_CHANNEL;
		cmd.channel_handle = to_rch(channel)->handle;
	}
	ret = rnic_cmd(context, RNIC_IOCTL_CREATE_CQ, &cmd);
	if (ret)
		goto err_locks;
	ret = cq_map(cq, context->cmd_fd, &cmd.out_ring, cmd.out_arm_off);
	if (ret)
		goto err_destroy;

	cq->ibcq.context = context;
	cq->ibcq.channel = channel;
	cq->ibcq.cq_context = cq_context;
	cq->ibcq.handle = cmd.out_handle;
	if (channel)
		__atomic_add_fetch(&channel->refcnt, 1, __ATOMIC_RELAXED);
	return cq;

err_destroy:
	cq_destroy_cmd(context, cmd.out_handle, &dcmd);
err_locks:
	cq_fini_locks(cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
			     void *cq_context,
			     struct ibv_comp_channel *channel,
			     int comp_vector)
{
	struct rnic_cq *cq;

	cq = cq_create(context, cqe, cq_context, channel, comp_vector);
	return cq ? &cq->ibcq : NULL;
}

int ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct rnic_resize_cq cmd = { .size = sizeof(cmd) };
	struct rnic_cq *cq = to_rcq(ibcq);
	int fd = ibcq->context->cmd_fd;
	size_t old_size;
	void *old;
	int ret;

	if (cqe <= 0) {
		errno = EINVAL;
		return EINVAL;
	}
	cmd.handle = ibcq->handle;
	cmd.cqe = (uint32_t)cqe;

	pthread_mutex_lock(&cq->resize_lock);
	pthread_spin_lock(&cq->lock);
	old = cq->slot[cq->cur].va;
	old_size = cq->ring.size;
	ret = rnic_cmd(ibcq->context, RNIC_IOCTL_RESIZE_CQ, &cmd);
	/*
	 * The kernel moved the CQEs to the new ring. Should mapping it fail,
	 * destroying the CQ is all that is left to do.
	 */
	if (!ret)
		ret = cq_ring_check(&cmd.out_ring, &cmd.out_arm_off);
	if (!ret)
		ret = cq_remap(cq, fd, &cmd.out_ring, cmd.out_arm_off);
	if (!ret)
		ibcq->cqe = (int)cmd.out_ring.entries;
	pthread_spin_unlock(&cq->lock);
	/* After [W2], without blocking pollers: the old ring goes. */
	if (!ret)
		cq_zeros(old, old_size);
	pthread_mutex_unlock(&cq->resize_lock);
	if (ret) {
		errno = ret;
		return ret;
	}
	return 0;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct rnic_cq *cq = to_rcq(ibcq);
	struct rnic_destroy_cq cmd;
	int ret;

	ret = cq_destroy_cmd(ibcq->context, ibcq->handle, &cmd);
	if (ret)
		return ret;
	if (ibcq->channel)
		__atomic_sub_fetch(&ibcq->channel->refcnt, 1, __ATOMIC_RELAXED);

	/* Events handed out must be acknowledged before the CQ goes. */
	pthread_mutex_lock(&ibcq->mutex);
	while (ibcq->comp_events_completed != cmd.out_comp_events_reported ||
	       ibcq->async_events_completed != cmd.out_async_events_reported)
		pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
	pthread_mutex_unlock(&ibcq->mutex);

	cq_unmap(cq);
	cq_fini_locks(cq);
	free(cq);
	return 0;
}

static void cqe_to_wc(const struct rnic_cqe *cqe, struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = (enum ibv_wc_status)cqe->status;
	wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	/* imm_data or invalidated_rkey: the same 32 bits. */
	wc->invalidated_rkey = cqe->invalidated_rkey;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
}

/*
 * Whether the CQ is empty, told without the lock (see the top of the
 * file); false also when a resize got in the way. Always inlined: it is
 * ibv_poll_cq()'s whole answer when there is nothing new (and the
 * extended CQ's start_poll uses it too, which would make GCC stop
 * inlining it).
 */
static inline __attribute__((always_inline)) bool
cq_empty_lockless(struct rnic_cq *cq)
{
	uint32_t seq, prod, cons;
	uint32_t *p, *c;

	seq = __atomic_load_n(&cq->seq, __ATOMIC_ACQUIRE);	/* [S1] */
	if (seq & 1)
		return false;
	p = __atomic_load_n(&cq->ring.producer, __ATOMIC_RELAXED);
	c = __atomic_load_n(&cq->ring.consumer, __ATOMIC_RELAXED);
	prod = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	cons = __atomic_load_n(c, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);		/* [S2] */
	return prod == cons &&
	       __atomic_load_n(&cq->seq, __ATOMIC_RELAXED) == seq;
}

/* Take what the ring holds, up to @num_entries, under the lock. */
static __attribute__((noinline)) int cq_poll_locked(struct rnic_cq *cq,
						    int num_entries,
						    struct ibv_wc *wc)
{
	struct rnic_ring *r = &cq->ring;
	uint32_t prod, cons;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	cons = __atomic_load_n(r->consumer, __ATOMIC_RELAXED);
	prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
	while (n < num_entries && cons != prod) {
		cqe_to_wc(rnic_ring_entry(r, cons), &wc[n]);
		cons++;
		n++;
	}
	if (n)
		__atomic_store_n(r->consumer, cons, __ATOMIC_RELEASE);
	pthread_spin_unlock(&cq->lock);
	return n;
}

int ibv_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct rnic_cq *cq = to_rcq(ibcq);

	/*
	 * Nothing new: no lock (busy pollers ask this most), and no register
	 * saved for the locked path. The consumer index never passes the
	 * producer index; equal to the one just read, every CQE published
	 * by then has been taken.
	 */
	if (cq_empty_lockless(cq))
		return 0;
	return cq_poll_locked(cq, num_entries, wc);
}

int ibv_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct rnic_cq *cq = to_rcq(ibcq);
	uint32_t arm;

	pthread_spin_lock(&cq->lock);
	cq->arm_seq = (cq->arm_seq + 1) & (UINT32_MAX >> RNIC_CQ_ARM_SEQ_SHIFT);
	arm = cq->arm_seq << RNIC_CQ_ARM_SEQ_SHIFT |
	      (solicited_only ? RNIC_CQ_ARM_SOLICITED : RNIC_CQ_ARM_NEXT);
	__atomic_store_n(cq->arm, arm, __ATOMIC_RELAXED);
	/*
	 * Pairs with the kernel's barrier between publishing CQEs and reading
	 * the arm word: the caller's next poll sees any CQE the kernel
	 * published without seeing this arming.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		     void **cq_context)
{
	struct rnic_event_desc desc;
	ssize_t n;

	n = read(channel->fd, &desc, sizeof(desc));
	if (n != (ssize_t)sizeof(desc)) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	*cq = (struct ibv_cq *)(uintptr_t)desc.element;
	*cq_context = (*cq)->cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* extended CQs: the iterator and its readers */

static struct rnic_cq *ex_to_rcq(struct ibv_cq_ex *ibcq_ex)
{
	return container_of(ibcq_ex, struct rnic_cq, ibcq_ex);
}

/* Make entry @idx current; @lock held. */
static void cq_ex_set_current(struct rnic_cq *cq, uint32_t idx)
{
	cq->poll_cqe = rnic_ring_entry(&cq->ring, idx);
	cq->poll_next = idx + 1;
	cq->ibcq_ex.status = (enum ibv_wc_status)cq->poll_cqe->status;
	cq->ibcq_ex.wr_id = cq->poll_cqe->wr_id;
}

static int cq_ex_start_poll(struct ibv_cq_ex *ibcq_ex,
			    struct ibv_poll_cq_attr *attr)
{
	struct rnic_cq *cq = ex_to_rcq(ibcq_ex);
	uint32_t cons;

	if (attr->comp_mask)
		return EINVAL;
	if (cq_empty_lockless(cq))
		return ENOENT;
	pthread_spin_lock(&cq->lock);
	cons = __atomic_load_n(cq->ring.consumer, __ATOMIC_RELAXED);
	cq->poll_prod = __atomic_load_n(cq->ring.producer, __ATOMIC_ACQUIRE);
	if (cons == cq->poll_prod) {
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	cq_ex_set_current(cq, cons);
	return 0;
}

static int cq_ex_next_poll(struct ibv_cq_ex *ibcq_ex)
{
	struct rnic_cq *cq = ex_to_rcq(ibcq_ex);

	/* Read the producer index again only when what it said is used up. */
	if (cq->poll_next == cq->poll_prod)
		cq->poll_prod = __atomic_load_n(cq->ring.producer,
						__ATOMIC_ACQUIRE);
	if (cq->poll_next == cq->poll_prod)
		return ENOENT;
	cq_ex_set_current(cq, cq->poll_next);
	return 0;
}

/* The completions read are consumed: the kernel may reuse their entries. */
static void cq_ex_end_poll(struct ibv_cq_ex *ibcq_ex)
{
	struct rnic_cq *cq = ex_to_rcq(ibcq_ex);

	__atomic_store_n(cq->ring.consumer, cq->poll_next, __ATOMIC_RELEASE);
	cq->poll_cqe = NULL;
	pthread_spin_unlock(&cq->lock);
}

static const struct rnic_cqe *cur_cqe(struct ibv_cq_ex *ibcq_ex)
{
	return ex_to_rcq(ibcq_ex)->poll_cqe;
}

static enum ibv_wc_opcode cq_ex_read_opcode(struct ibv_cq_ex *ibcq_ex)
{
	return (enum ibv_wc_opcode)cur_cqe(ibcq_ex)->opcode;
}

static uint32_t cq_ex_read_vendor_err(struct ibv_cq_ex *ibcq_ex)
{
	return cur_cqe(ibcq_ex)->vendor_err;
}

static uint32_t cq_ex_read_byte_len(struct ibv_cq_ex *ibcq_ex)
{
	return cur_cqe(ibcq_ex)->byte_len;
}

static __be32 cq_ex_read_imm_data(struct ibv_cq_ex *ibcq_ex)
{
	return cur_cqe(ibcq_ex)->imm_data;
}

static uint32_t cq_ex_read_qp_num(struct ibv_cq_ex *ibcq_ex)
{
	return cur_cqe(ibcq_ex)->qp_num;
}

static uint32_t cq_ex_read_src_qp(struct ibv_cq_ex *ibcq_ex)
{
	return cur_cqe(ibcq_ex)->src_qp;
}

static unsigned int cq_ex_read_wc_flags(struct ibv_cq_ex *ibcq_ex)
{
	return cur_cqe(ibcq_ex)->wc_flags;
}

static uint32_t cq_ex_read_slid(struct ibv_cq_ex *ibcq_ex)
{
	return cur_cqe(ibcq_ex)->slid;
}

static uint8_t cq_ex_read_sl(struct ibv_cq_ex *ibcq_ex)
{
	return cur_cqe(ibcq_ex)->sl;
}

static uint8_t cq_ex_read_dlid_path_bits(struct ibv_cq_ex *ibcq_ex)
{
	return cur_cqe(ibcq_ex)->dlid_path_bits;
}

/*
 * What ibv_create_cq_ex() accepts: the standard fields, and the
 * single-threaded hint (the CQ's lock is cheap uncontended). Timestamps,
 * VLANs, flow tags, tag matching, parent domains and ignoring overruns
 * are features rnic does not have.
 */
static int cq_ex_attr_check(const struct ibv_cq_init_attr_ex *attr)
{
	uint32_t known = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD;

	if (attr->comp_mask & ~known || attr->cqe > INT32_MAX ||
	    attr->comp_vector > INT32_MAX)
		return EINVAL;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD ||
	    attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS)
		return EOPNOTSUPP;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS &&
	    attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)
		return EOPNOTSUPP;
	return 0;
}

struct ibv_cq_ex *rnic_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *ex;
	struct rnic_cq *cq;
	int ret;

	ret = cq_ex_attr_check(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	cq = cq_create(context, (int)attr->cqe, attr->cq_context,
		       attr->channel, (int)attr->comp_vector);
	if (!cq)
		return NULL;
	ex = &cq->ibcq_ex;
	ex->start_poll = cq_ex_start_poll;
	ex->next_poll = cq_ex_next_poll;
	ex->end_poll = cq_ex_end_poll;
	ex->read_opcode = cq_ex_read_opcode;
	ex->read_vendor_err = cq_ex_read_vendor_err;
	ex->read_byte_len = cq_ex_read_byte_len;
	ex->read_imm_data = cq_ex_read_imm_data;
	ex->read_qp_num = cq_ex_read_qp_num;
	ex->read_src_qp = cq_ex_read_src_qp;
	ex->read_wc_flags = cq_ex_read_wc_flags;
	ex->read_slid = cq_ex_read_slid;
	ex->read_sl = cq_ex_read_sl;
	ex->read_dlid_path_bits = cq_ex_read_dlid_path_bits;
	return ex;
}
