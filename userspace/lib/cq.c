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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

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
 * struct rnic_cq - librnic's side of a struct ibv_cq
 * @ibcq: what the application sees
 * @lock: serialises poll, arm and resize of this CQ
 * @map: the mapped region, @map_size bytes
 * @producer: producer index in @map, written by the kernel
 * @consumer: consumer index in @map, written by us
 * @arm: arm word in @map, written by us
 * @cqes: entry 0 in @map
 * @mask: entries - 1
 * @arm_seq: sequence number of the last arming
 */
struct rnic_cq {
	struct ibv_cq ibcq;
	pthread_spinlock_t lock;
	void *map;
	size_t map_size;
	uint32_t *producer;
	uint32_t *consumer;
	uint32_t *arm;
	struct rnic_cqe *cqes;
	uint32_t mask;
	uint32_t arm_seq;
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

/* Map the ring the kernel described; 0 or an errno value. */
static int cq_map(struct rnic_cq *cq, int fd, const struct rnic_ring_info *ri,
		  uint32_t arm_off)
{
	uint64_t ents_end = ri->entries_off +
			    (uint64_t)ri->entries * ri->entry_size;
	void *map;

	/* The kernel's answer decides where we read and write: check it. */
	if (ri->entry_size != sizeof(struct rnic_cqe) || !ri->entries ||
	    (ri->entries & (ri->entries - 1)) || ents_end > ri->size ||
	    ri->producer_off > ri->size - sizeof(uint32_t) ||
	    ri->consumer_off > ri->size - sizeof(uint32_t) ||
	    arm_off > ri->size - sizeof(uint32_t))
		return EPROTO;
	map = mmap(NULL, ri->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)ri->offset);
	if (map == MAP_FAILED)
		return errno;
	cq->map = map;
	cq->map_size = ri->size;
	cq->producer = (uint32_t *)((char *)map + ri->producer_off);
	cq->consumer = (uint32_t *)((char *)map + ri->consumer_off);
	cq->arm = (uint32_t *)((char *)map + arm_off);
	cq->cqes = (struct rnic_cqe *)((char *)map + ri->entries_off);
	cq->mask = ri->entries - 1;
	cq->ibcq.cqe = (int)ri->entries;
	return 0;
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
	return 0;

err_mutex:
	pthread_mutex_destroy(&cq->ibcq.mutex);
err_spin:
	pthread_spin_destroy(&cq->lock);
	return ret;
}

static void cq_fini_locks(struct rnic_cq *cq)
{
	pthread_cond_destroy(&cq->ibcq.cond);
	pthread_mutex_destroy(&cq->ibcq.mutex);
	pthread_spin_destroy(&cq->lock);
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
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
	return &cq->ibcq;

err_destroy:
	cq_destroy_cmd(context, cmd.out_handle, &dcmd);
err_locks:
	cq_fini_locks(cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

int ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct rnic_resize_cq cmd = { .size = sizeof(cmd) };
	struct rnic_cq *cq = to_rcq(ibcq);
	void *old_map;
	size_t old_size;
	int ret;

	if (cqe <= 0) {
		errno = EINVAL;
		return EINVAL;
	}
	cmd.handle = ibcq->handle;
	cmd.cqe = (uint32_t)cqe;

	pthread_spin_lock(&cq->lock);
	old_map = cq->map;
	old_size = cq->map_size;
	ret = rnic_cmd(ibcq->context, RNIC_IOCTL_RESIZE_CQ, &cmd);
	/*
	 * The kernel moved the CQEs to the new ring. Should mapping it fail,
	 * the CQ keeps the old mapping, which no longer receives CQEs:
	 * destroying the CQ is all that is left to do.
	 */
	if (!ret)
		ret = cq_map(cq, ibcq->context->cmd_fd, &cmd.out_ring,
			     cmd.out_arm_off);
	pthread_spin_unlock(&cq->lock);
	if (ret) {
		errno = ret;
		return ret;
	}
	munmap(old_map, old_size);
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

	munmap(cq->map, cq->map_size);
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

int ibv_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct rnic_cq *cq = to_rcq(ibcq);
	uint32_t prod, cons;
	int n = 0;

	/*
	 * Nothing new: no lock (busy pollers ask this most). The consumer
	 * index never passes the producer index; equal to the one just read,
	 * every CQE published by then has been taken.
	 */
	prod = __atomic_load_n(cq->producer, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(cq->consumer, __ATOMIC_RELAXED) == prod)
		return 0;
	pthread_spin_lock(&cq->lock);
	cons = __atomic_load_n(cq->consumer, __ATOMIC_RELAXED);
	prod = __atomic_load_n(cq->producer, __ATOMIC_ACQUIRE);
	while (n < num_entries && cons != prod) {
		cqe_to_wc(&cq->cqes[cons & cq->mask], &wc[n]);
		cons++;
		n++;
	}
	if (n)
		__atomic_store_n(cq->consumer, cons, __ATOMIC_RELEASE);
	pthread_spin_unlock(&cq->lock);
	return n;
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
