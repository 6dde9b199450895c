// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: posting work requests.
 *
 * Work requests are checked (DOC "rnic work request checks" in
 * rnic-abi.h), written as entries into the rings ibv_create_qp() and
 * ibv_create_srq() mapped, and published with one store-release of the
 * producer index per call (DOC "rnic rings"). Receives need no system
 * call; sends ring the doorbell (DOC "rnic send doorbell"): one
 * RNIC_IOCTL_RING_SQ per call, or, for a QP whose SQ the kernel polls,
 * one only when the polling thread sleeps.
 *
 * Each queue has a spinlock of its own, so threads may post to one QP at
 * once (as rdma-core allows) and posting to different queues shares
 * nothing. The hot path allocates nothing; the consumer index, written by
 * the kernel, is read only when the ring looks full.
 *
 * A failed doorbell does not fail the post: the entries are in the ring
 * and published, and the kernel starts them at the next doorbell (or
 * poll). The caller cannot take them back, and rdma-core's convention has
 * no way to report "posted, but": an error return needs a *bad_wr, and
 * none was refused. The doorbell only fails on a removed device (which the
 * application learns from IBV_EVENT_DEVICE_FATAL) or on a librnic bug;
 * RNIC_DEBUG reports it on stderr.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* The verbs values are the ABI's: work requests are copied, not mapped. */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(IBV_WR_RDMA_WRITE, RNIC_WR_RDMA_WRITE) &&
	       SAME(IBV_WR_RDMA_WRITE_WITH_IMM, RNIC_WR_RDMA_WRITE_WITH_IMM) &&
	       SAME(IBV_WR_SEND, RNIC_WR_SEND) &&
	       SAME(IBV_WR_SEND_WITH_IMM, RNIC_WR_SEND_WITH_IMM) &&
	       SAME(IBV_WR_RDMA_READ, RNIC_WR_RDMA_READ) &&
	       SAME(IBV_WR_ATOMIC_CMP_AND_SWP, RNIC_WR_ATOMIC_CMP_AND_SWP) &&
	       SAME(IBV_WR_ATOMIC_FETCH_AND_ADD, RNIC_WR_ATOMIC_FETCH_AND_ADD) &&
	       SAME(IBV_WR_LOCAL_INV, RNIC_WR_LOCAL_INV) &&
	       SAME(IBV_WR_BIND_MW, RNIC_WR_BIND_MW) &&
	       SAME(IBV_WR_SEND_WITH_INV, RNIC_WR_SEND_WITH_INV),
	       "ibv_wr_opcode and rnic_wr_opcode differ");
_Static_assert(SAME(IBV_SEND_FENCE, RNIC_SEND_FENCE) &&
	       SAME(IBV_SEND_SIGNALED, RNIC_SEND_SIGNALED) &&
	       SAME(IBV_SEND_SOLICITED, RNIC_SEND_SOLICITED) &&
	       SAME(IBV_SEND_INLINE, RNIC_SEND_INLINE),
	       "ibv_send_flags and rnic_send_flags differ");
_Static_assert(sizeof(struct rnic_send_wqe) == 64,
	       "the send WQE header is 64 bytes");

/* The send flags rnic has; IBV_SEND_IP_CSUM (raw packet QPs) is not one. */
#define RNIC_POST_SEND_FLAGS \
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | \
	 IBV_SEND_INLINE)

/*
 * The steps of ibv_post_send(), inlined into it (the hot path) and into
 * the wrappers the work request builder calls (at the end of the file).
 */
#define RNIC_INLINE inline __attribute__((always_inline))

#define OP(op) (1U << (op))
#define OPS_ATOMIC (OP(IBV_WR_ATOMIC_CMP_AND_SWP) | \
		    OP(IBV_WR_ATOMIC_FETCH_AND_ADD))
/* Opcodes that may carry inline data: those that send local data. */
#define OPS_INLINE (OP(IBV_WR_RDMA_WRITE) | OP(IBV_WR_RDMA_WRITE_WITH_IMM) | \
		    OP(IBV_WR_SEND) | OP(IBV_WR_SEND_WITH_IMM) | \
		    OP(IBV_WR_SEND_WITH_INV))
/* Opcodes the HCA executes itself: no data, no SGEs (num_sge ignored). */
#define OPS_LOCAL (OP(IBV_WR_BIND_MW) | OP(IBV_WR_LOCAL_INV))

uint32_t rnic_qp_send_opcodes(enum ibv_qp_type qp_type)
{
	switch (qp_type) {
	case IBV_QPT_RC:
		return OPS_INLINE | OP(IBV_WR_RDMA_READ) | OPS_ATOMIC |
		       OPS_LOCAL;
	case IBV_QPT_UC:
		return (OPS_INLINE & ~OP(IBV_WR_SEND_WITH_INV)) | OPS_LOCAL;
	case IBV_QPT_UD:
		return OP(IBV_WR_SEND) | OP(IBV_WR_SEND_WITH_IMM);
	case IBV_QPT_XRC:
	case IBV_QPT_XRC_SEND:
		/* RC's transport operations; no windows through XRC yet. */
		return (OPS_INLINE & ~OP(IBV_WR_SEND_WITH_INV)) |
		       OP(IBV_WR_RDMA_READ) | OPS_ATOMIC;
	default:
		return 0;
	}
}

/*
 * The cached consumer index may be old: read the kernel's (load-acquire:
 * it has finished with the entries below it) only when the cached one
 * says full. An index that is more than the ring ahead, or behind, reads
 * as full: never write over a live entry.
 */
static RNIC_INLINE bool wq_full(struct rnic_wq *wq)
{
	if (wq->head - wq->tail < wq->size)
		return false;
	if (!wq->size)
		return true;
	wq->tail = __atomic_load_n(wq->ring.consumer, __ATOMIC_ACQUIRE);
	return wq->head - wq->tail >= wq->size;
}

/*
 * The doorbell: RNIC_IOCTL_RING_SQ for a plain kick (the handle is the
 * argument: nothing for the kernel to copy in), RNIC_IOCTL_KICK_SQ with
 * flags. A failure is only reported (see the top comment).
 */
static void qp_kick(struct rnic_qp *qp, uint32_t flags)
{
	struct rnic_kick_sq cmd = {
		.size = sizeof(cmd),
		.flags = flags,
		.qp_handle = qp->ibqp.handle,
	};
	int saved = errno, ret;

	if (flags)
		ret = rnic_cmd(qp->ibqp.context, RNIC_IOCTL_KICK_SQ, &cmd);
	else
		ret = rnic_cmd(qp->ibqp.context, RNIC_IOCTL_RING_SQ,
			       (void *)(uintptr_t)qp->ibqp.handle);
	if (ret)
		rnic_debug("QP %u: doorbell%s failed: %s", qp->ibqp.qp_num,
			   flags & RNIC_KICK_RQ ? " (RQ flush)" : "",
			   strerror(ret));
	errno = saved;
}

/* The states a QP takes sends in; in ERR the kernel flushes them. */
static RNIC_INLINE bool send_state_ok(const struct ibv_qp *ibqp)
{
	switch (__atomic_load_n(&ibqp->state, __ATOMIC_RELAXED)) {
	case IBV_QPS_RTS:
	case IBV_QPS_SQD:
	case IBV_QPS_SQE:
	case IBV_QPS_ERR:
		return true;
	default:
		return false;
	}
}

/*
 * A bind names a window of the QP's context, and a region when it has a
 * length; the kernel checks the rest when it executes it.
 */
static int local_wr_check(const struct rnic_qp *qp,
			  const struct ibv_send_wr *wr)
{
	const struct ibv_mw_bind_info *info = &wr->bind_mw.bind_info;

	if (wr->send_flags & IBV_SEND_INLINE)
		return EINVAL;
	if (wr->opcode != IBV_WR_BIND_MW)
		return 0;
	if (!wr->bind_mw.mw || wr->bind_mw.mw->context != qp->ibqp.context)
		return EINVAL;
	if (info->length && !info->mr)
		return EINVAL;
	return 0;
}

static RNIC_INLINE int send_wr_check(const struct rnic_qp *qp,
				     const struct ibv_send_wr *wr,
				     uint32_t *inline_len)
{
	uint32_t op = (uint32_t)wr->opcode;
	uint64_t len = 0;
	int i;

	if (op >= 32 || !(qp->send_opcodes & OP(op)))
		return EINVAL;
	if (wr->send_flags & ~RNIC_POST_SEND_FLAGS)
		return EINVAL;
	if (OPS_LOCAL & OP(op))
		return local_wr_check(qp, wr);
	if (wr->num_sge < 0)
		return EINVAL;
	if (wr->send_flags & IBV_SEND_INLINE) {
		if (!(OPS_INLINE & OP(op)))
			return EINVAL;
		/* 64 bits and a check per SGE: the sum cannot wrap. */
		for (i = 0; i < wr->num_sge; i++) {
			len += wr->sg_list[i].length;
			if (len > qp->sq.max_inline)
				return EINVAL;
		}
		*inline_len = (uint32_t)len;
	} else if ((uint32_t)wr->num_sge > qp->sq.max_sge) {
		return EINVAL;
	}
	if ((OPS_ATOMIC & OP(op)) &&
	    (wr->num_sge != 1 || wr->sg_list[0].length != sizeof(uint64_t)))
		return EINVAL;
	if (qp->ibqp.qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	return 0;
}

static void bind_wqe_write(struct rnic_send_wqe *wqe,
			   const struct ibv_send_wr *wr)
{
	const struct ibv_mw_bind_info *info = &wr->bind_mw.bind_info;

	wqe->wr.bind.mw_handle = wr->bind_mw.mw->handle;
	wqe->wr.bind.rkey = wr->bind_mw.rkey;
	wqe->wr.bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->wr.bind.access = info->mw_access_flags;
	wqe->wr.bind.addr = info->addr;
	wqe->wr.bind.length = info->length;
}

static RNIC_INLINE void send_wqe_write(void *slot, const struct rnic_qp *qp,
				       const struct ibv_send_wr *wr,
				       uint32_t inline_len)
{
	struct rnic_send_wqe wqe;
	char *data = (char *)slot + sizeof(wqe);
	struct rnic_sge *sge = (struct rnic_sge *)data;
	uint32_t len;
	int i;

	memset(&wqe, 0, sizeof(wqe));
	wqe.wr_id = wr->wr_id;
	wqe.opcode = (uint32_t)wr->opcode;
	wqe.send_flags = wr->send_flags;
	/* The kernel wants 0 from other types; only XRC_SEND ones post. */
	if (qp->xrc)
		wqe.remote_srqn = wr->qp_type.xrc.remote_srqn;
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe.ex.imm_data = wr->imm_data;
		/* fall through */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		wqe.wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe.wr.rdma.rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wqe.wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe.wr.atomic.compare_add = wr->wr.atomic.compare_add;
		wqe.wr.atomic.swap = wr->wr.atomic.swap;
		wqe.wr.atomic.rkey = wr->wr.atomic.rkey;
		break;
	case IBV_WR_BIND_MW:
		bind_wqe_write(&wqe, wr);
		memcpy(slot, &wqe, sizeof(wqe));
		return;
	case IBV_WR_LOCAL_INV:
		wqe.ex.invalidate_rkey = wr->invalidate_rkey;
		memcpy(slot, &wqe, sizeof(wqe));
		return;
	case IBV_WR_SEND_WITH_INV:
		wqe.ex.invalidate_rkey = wr->invalidate_rkey;
		break;
	case IBV_WR_SEND_WITH_IMM:
		wqe.ex.imm_data = wr->imm_data;
		/* fall through */
	default: /* IBV_WR_SEND */
		if (qp->ibqp.qp_type == IBV_QPT_UD) {
			wqe.wr.ud.ah_handle = wr->wr.ud.ah->handle;
			wqe.wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
			wqe.wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		}
		break;
	}

	if (wr->send_flags & IBV_SEND_INLINE) {
		wqe.inline_len = inline_len;
		for (i = 0; i < wr->num_sge; i++) {
			len = wr->sg_list[i].length;
			if (!len)
				continue;
			memcpy(data,
			       (const void *)(uintptr_t)wr->sg_list[i].addr,
			       len);
			data += len;
		}
	} else {
		wqe.num_sge = (uint32_t)wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
	memcpy(slot, &wqe, sizeof(wqe));
}

static RNIC_INLINE void sq_publish(struct rnic_qp *qp)
{
	struct rnic_wq *sq = &qp->sq;

	__atomic_store_n(sq->ring.producer, sq->head, __ATOMIC_RELEASE);
	pthread_spin_unlock(&sq->lock);

	if (qp->sq_poll) {
		/*
		 * Pairs with the polling thread's barrier between setting
		 * NEED_WAKEUP and its last look at the producer index: it
		 * sees our entries, or we see the flag.
		 */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(sq->flags, __ATOMIC_RELAXED) &
		    RNIC_SQ_NEED_WAKEUP)
			qp_kick(qp, 0);
	} else {
		qp_kick(qp, 0);
	}
}

int ibv_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct rnic_qp *qp = to_rqp(ibqp);
	struct rnic_wq *sq = &qp->sq;
	uint32_t inline_len = 0;
	bool posted = false;
	int ret = 0;

	if (!send_state_ok(ibqp)) {
		*bad_wr = wr;
		errno = EINVAL;
		return EINVAL;
	}

	pthread_spin_lock(&sq->lock);
	for (; wr; wr = wr->next) {
		ret = send_wr_check(qp, wr, &inline_len);
		if (!ret && wq_full(sq))
			ret = ENOMEM;
		if (ret)
			break;
		send_wqe_write(rnic_ring_entry(&sq->ring, sq->head), qp, wr,
			       inline_len);
		sq->head++;
		posted = true;
	}
	if (posted)
		sq_publish(qp);
	else
		pthread_spin_unlock(&sq->lock);
	if (ret) {
		*bad_wr = wr;
		errno = ret;
	}
	return ret;
}

/*
 * The work request builder (qp_ex.c) shares these steps with
 * ibv_post_send(). They are static and always inlined above, so that
 * ibv_post_send() makes no call for them, as before the builder existed;
 * the builder calls them through these.
 */
bool rnic_send_state_ok(const struct ibv_qp *ibqp)
{
	return send_state_ok(ibqp);
}

bool rnic_wq_full(struct rnic_wq *wq)
{
	return wq_full(wq);
}

int rnic_send_wr_check(const struct rnic_qp *qp,
		       const struct ibv_send_wr *wr, uint32_t *inline_len)
{
	return send_wr_check(qp, wr, inline_len);
}

void rnic_send_wqe_write(void *slot, const struct rnic_qp *qp,
			 const struct ibv_send_wr *wr, uint32_t inline_len)
{
	send_wqe_write(slot, qp, wr, inline_len);
}

void rnic_sq_publish(struct rnic_qp *qp)
{
	sq_publish(qp);
}

/*
 * Post the list at *@wrp to a receive queue; *@wrp is left at the first
 * work request not posted (NULL when all were). Return 0 or the errno
 * value of the failure; *@posted tells whether anything was published.
 */
static int recv_post(struct rnic_wq *wq, struct ibv_recv_wr **wrp,
		     bool *posted)
{
	struct ibv_recv_wr *wr = *wrp;
	struct rnic_recv_wqe wqe;
	struct rnic_sge *sge;
	char *slot;
	int i, ret = 0;

	*posted = false;
	pthread_spin_lock(&wq->lock);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge)
			ret = EINVAL;
		else if (wq_full(wq))
			ret = ENOMEM;
		if (ret)
			break;
		slot = rnic_ring_entry(&wq->ring, wq->head);
		memset(&wqe, 0, sizeof(wqe));
		wqe.wr_id = wr->wr_id;
		wqe.num_sge = (uint32_t)wr->num_sge;
		memcpy(slot, &wqe, sizeof(wqe));
		sge = (struct rnic_sge *)(slot + sizeof(wqe));
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		wq->head++;
		*posted = true;
	}
	if (*posted)
		__atomic_store_n(wq->ring.producer, wq->head, __ATOMIC_RELEASE);
	pthread_spin_unlock(&wq->lock);
	*wrp = wr;
	return ret;
}

int ibv_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct rnic_qp *qp = to_rqp(ibqp);
	bool posted;
	int ret;

	/* XRC QPs have no receive queue, as in rdma-core's providers. */
	if (ibqp->srq || qp->xrc ||
	    __atomic_load_n(&ibqp->state, __ATOMIC_RELAXED) == IBV_QPS_RESET) {
		*bad_wr = wr;
		errno = EINVAL;
		return EINVAL;
	}
	ret = recv_post(&qp->rq, &wr, &posted);
	/*
	 * A QP in ERR flushes receives only when asked: after the kernel set
	 * RNIC_WQ_ERR it flushed what the producer index showed then. Our
	 * barrier pairs with the one after it set the flag: it saw our
	 * entries, or we see the flag and ask.
	 */
	if (posted) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(qp->rq.flags, __ATOMIC_RELAXED) &
		    RNIC_WQ_ERR)
			qp_kick(qp, RNIC_KICK_RQ);
	}
	if (ret) {
		*bad_wr = wr;
		errno = ret;
	}
	return ret;
}

int ibv_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *recv_wr,
		      struct ibv_recv_wr **bad_recv_wr)
{
	struct rnic_srq *srq = to_rsrq(ibsrq);
	bool posted;
	int ret;

	ret = recv_post(&srq->rq, &recv_wr, &posted);
	if (ret) {
		*bad_recv_wr = recv_wr;
		errno = ret;
	}
	return ret;
}
