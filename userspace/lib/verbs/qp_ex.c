// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: the work request builder of a QP created with send_ops_flags
 * (struct ibv_qp_ex, ibv_wr_*()).
 *
 * ibv_wr_start() takes the send queue's lock, as ibv_post_send() does for
 * one call, and keeps it until ibv_wr_complete() or ibv_wr_abort(). Each
 * opcode function begins a work request as a struct ibv_send_wr; the
 * setters fill it in; the next opcode function, or ibv_wr_complete(),
 * checks it and writes it into the ring with ibv_post_send()'s own
 * functions (rnic_send_wr_check(), rnic_send_wqe_write()), so that a work
 * request means the same built either way. Nothing is visible to the
 * kernel before ibv_wr_complete() publishes the producer index and rings
 * the doorbell once; ibv_wr_abort() moves the head back over what was
 * written.
 *
 * Inline data is copied when it is set (the caller may reuse its buffer
 * at once) into a buffer of the builder's, which holds the one work
 * request being built: max_inline_data bytes. The first error (a work
 * request the QP cannot take, a full ring, too much inline data) is kept:
 * later work requests are dropped, and ibv_wr_complete() posts nothing
 * and returns it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/**
 * struct rnic_wr_builder - a QP's work request being built
 * @wr: the work request; @wr.sg_list is @sge
 * @pending: @wr was begun and is not in the ring yet
 * @err: the first error since ibv_wr_start(), 0 if none
 * @start_head: the SQ's head at ibv_wr_start(), for ibv_wr_abort()
 * @inline_len: bytes in @inl
 * @inl: the current work request's inline data, max_inline bytes
 * @sge: its SGEs, max_sge of them (and one for @inl)
 */
struct rnic_wr_builder {
	struct ibv_send_wr wr;
	bool pending;
	int err;
	uint32_t start_head;
	uint32_t inline_len;
	char *inl;
	struct ibv_sge sge[];
};

static struct rnic_qp *qpx_to_rqp(struct ibv_qp_ex *ibqpx)
{
	return container_of(ibqpx, struct rnic_qp, ibqpx);
}

static void builder_fail(struct rnic_wr_builder *b, int err)
{
	if (!b->err)
		b->err = err;
}

/* Write the pending work request into the ring at the SQ's head. */
static void flush_pending(struct rnic_qp *qp)
{
	struct rnic_wr_builder *b = qp->builder;
	uint32_t inline_len = 0;
	int ret;

	if (!b->pending)
		return;
	b->pending = false;
	if (b->err)
		return;
	ret = rnic_send_wr_check(qp, &b->wr, &inline_len);
	if (!ret && rnic_wq_full(&qp->sq))
		ret = ENOMEM;
	if (ret) {
		builder_fail(b, ret);
		return;
	}
	rnic_send_wqe_write(rnic_ring_entry(&qp->sq.ring, qp->sq.head), qp,
			    &b->wr, inline_len);
	qp->sq.head++;
}

/*
 * Begin a work request with @opcode, the id and flags the caller set in
 * the struct ibv_qp_ex; IBV_SEND_INLINE comes from the inline setters.
 */
static struct ibv_send_wr *begin_wr(struct ibv_qp_ex *ibqpx,
				    enum ibv_wr_opcode opcode)
{
	struct rnic_qp *qp = qpx_to_rqp(ibqpx);
	struct rnic_wr_builder *b = qp->builder;

	flush_pending(qp);
	memset(&b->wr, 0, sizeof(b->wr));
	b->wr.wr_id = ibqpx->wr_id;
	b->wr.opcode = opcode;
	b->wr.send_flags = ibqpx->wr_flags & ~(unsigned int)IBV_SEND_INLINE;
	b->wr.sg_list = b->sge;
	b->pending = true;
	return &b->wr;
}

/* The work request being built, or NULL (and an error) if none is. */
static struct ibv_send_wr *cur_wr(struct ibv_qp_ex *ibqpx)
{
	struct rnic_wr_builder *b = qpx_to_rqp(ibqpx)->builder;

	if (b->pending)
		return &b->wr;
	builder_fail(b, EINVAL);
	return NULL;
}

static void wr_rdma(struct ibv_qp_ex *ibqpx, enum ibv_wr_opcode opcode,
		    uint32_t rkey, uint64_t remote_addr)
{
	struct ibv_send_wr *wr = begin_wr(ibqpx, opcode);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
}

static void wr_rdma_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			  uint64_t remote_addr)
{
	wr_rdma(ibqpx, IBV_WR_RDMA_WRITE, rkey, remote_addr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	wr_rdma(ibqpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr);
	qpx_to_rqp(ibqpx)->builder->wr.imm_data = imm_data;
}

static void wr_rdma_read(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			 uint64_t remote_addr)
{
	wr_rdma(ibqpx, IBV_WR_RDMA_READ, rkey, remote_addr);
}

static void wr_send(struct ibv_qp_ex *ibqpx)
{
	begin_wr(ibqpx, IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *ibqpx, __be32 imm_data)
{
	begin_wr(ibqpx, IBV_WR_SEND_WITH_IMM)->imm_data = imm_data;
}

static void wr_atomic(struct ibv_qp_ex *ibqpx, enum ibv_wr_opcode opcode,
		      uint32_t rkey, uint64_t remote_addr,
		      uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr *wr = begin_wr(ibqpx, opcode);

	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare,
			      uint64_t swap)
{
	wr_atomic(ibqpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
		  compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	wr_atomic(ibqpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add,
		  0);
}

static void wr_bind_mw(struct ibv_qp_ex *ibqpx, struct ibv_mw *mw,
		       uint32_t rkey, const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = begin_wr(ibqpx, IBV_WR_BIND_MW);

	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
}

static void wr_local_inv(struct ibv_qp_ex *ibqpx, uint32_t invalidate_rkey)
{
	begin_wr(ibqpx, IBV_WR_LOCAL_INV)->invalidate_rkey = invalidate_rkey;
}

static void wr_send_inv(struct ibv_qp_ex *ibqpx, uint32_t invalidate_rkey)
{
	begin_wr(ibqpx, IBV_WR_SEND_WITH_INV)->invalidate_rkey =
		invalidate_rkey;
}

static void wr_set_ud_addr(struct ibv_qp_ex *ibqpx, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ibv_send_wr *wr = cur_wr(ibqpx);

	if (!wr)
		return;
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

static void wr_set_xrc_srqn(struct ibv_qp_ex *ibqpx, uint32_t remote_srqn)
{
	struct ibv_send_wr *wr = cur_wr(ibqpx);

	if (wr)
		wr->qp_type.xrc.remote_srqn = remote_srqn;
}

static void wr_set_sge_list(struct ibv_qp_ex *ibqpx, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct rnic_qp *qp = qpx_to_rqp(ibqpx);
	struct ibv_send_wr *wr = cur_wr(ibqpx);

	if (!wr)
		return;
	if (num_sge > qp->sq.max_sge) {
		builder_fail(qp->builder, EINVAL);
		return;
	}
	if (num_sge)
		memcpy(qp->builder->sge, sg_list, num_sge * sizeof(*sg_list));
	wr->num_sge = (int)num_sge;
	wr->send_flags &= ~(unsigned int)IBV_SEND_INLINE;
}

static void wr_set_sge(struct ibv_qp_ex *ibqpx, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(ibqpx, 1, &sge);
}

/*
 * Copy the buffers into the builder's inline buffer, and make the work
 * request an inline one with a single SGE over it.
 */
static void wr_set_inline_data_list(struct ibv_qp_ex *ibqpx, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct rnic_qp *qp = qpx_to_rqp(ibqpx);
	struct rnic_wr_builder *b = qp->builder;
	struct ibv_send_wr *wr = cur_wr(ibqpx);
	size_t i, len = 0;

	if (!wr)
		return;
	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > qp->sq.max_inline - len) {
			builder_fail(b, EINVAL);
			return;
		}
		memcpy(b->inl + len, buf_list[i].addr, buf_list[i].length);
		len += buf_list[i].length;
	}
	b->sge[0] = (struct ibv_sge){ .addr = (uintptr_t)b->inl,
				      .length = (uint32_t)len };
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void wr_set_inline_data(struct ibv_qp_ex *ibqpx, void *addr,
			       size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	wr_set_inline_data_list(ibqpx, 1, &buf);
}

static void wr_start(struct ibv_qp_ex *ibqpx)
{
	struct rnic_qp *qp = qpx_to_rqp(ibqpx);
	struct rnic_wr_builder *b = qp->builder;

	pthread_spin_lock(&qp->sq.lock);
	b->pending = false;
	b->err = rnic_send_state_ok(&qp->ibqp) ? 0 : EINVAL;
	b->start_head = qp->sq.head;
}

static void wr_abort(struct ibv_qp_ex *ibqpx)
{
	struct rnic_qp *qp = qpx_to_rqp(ibqpx);

	qp->builder->pending = false;
	qp->sq.head = qp->builder->start_head;
	pthread_spin_unlock(&qp->sq.lock);
}

static int wr_complete(struct ibv_qp_ex *ibqpx)
{
	struct rnic_qp *qp = qpx_to_rqp(ibqpx);
	struct rnic_wr_builder *b = qp->builder;
	int err;

	flush_pending(qp);
	err = b->err;
	if (err) {
		wr_abort(ibqpx);
		errno = err;
		return err;
	}
	if (qp->sq.head == b->start_head)
		pthread_spin_unlock(&qp->sq.lock);
	else
		rnic_sq_publish(qp);
	return 0;
}

/* The opcode functions, by the opcode's bit in send_ops_flags. */
static void set_opcode_ops(struct ibv_qp_ex *x, uint64_t ops)
{
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		x->wr_rdma_write = wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		x->wr_rdma_write_imm = wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_SEND)
		x->wr_send = wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		x->wr_send_imm = wr_send_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		x->wr_rdma_read = wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		x->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		x->wr_atomic_fetch_add = wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		x->wr_bind_mw = wr_bind_mw;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		x->wr_local_inv = wr_local_inv;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		x->wr_send_inv = wr_send_inv;
}

int rnic_wr_builder_init(struct rnic_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *x = &qp->ibqpx;
	uint32_t nsge = qp->sq.max_sge ? qp->sq.max_sge : 1;
	struct rnic_wr_builder *b;

	b = calloc(1, sizeof(*b) + nsge * sizeof(b->sge[0]) +
		      qp->sq.max_inline);
	if (!b)
		return ENOMEM;
	b->inl = (char *)&b->sge[nsge];
	qp->builder = b;

	set_opcode_ops(x, send_ops_flags);
	if (qp->ibqp.qp_type == IBV_QPT_UD)
		x->wr_set_ud_addr = wr_set_ud_addr;
	if (qp->ibqp.qp_type == IBV_QPT_XRC_SEND)
		x->wr_set_xrc_srqn = wr_set_xrc_srqn;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	return 0;
}

void rnic_wr_builder_fini(struct rnic_qp *qp)
{
	free(qp->builder);
	qp->builder = NULL;
}
