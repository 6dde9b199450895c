/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * rnic: software RDMA NIC - librdmacm's verbs shortcuts (librnic).
 *
 * rdma-core's <rdma/rdma_verbs.h>: registering buffers on an id's PD,
 * posting work requests to an id's QP (or SRQ) and waiting for their
 * completions on the id's CQs, for ids whose QP and CQs the library made
 * (rdma_create_ep(), rdma_create_qp()). The same names, arguments and
 * return conventions: the int helpers give 0 or a completion count, or -1
 * with errno set.
 */
#ifndef RDMA_VERBS_H
#define RDMA_VERBS_H

#include <assert.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * rdma_seterrno() - a verbs return value in librdmacm's convention
 * @ret: 0 or an errno value
 *
 * RETURN: 0, or -1 with errno set to @ret.
 */
static inline int rdma_seterrno(int ret)
{
	if (ret == 0)
		return 0;
	errno = ret;
	return -1;
}

/**
 * rdma_create_srq() - make the id's SRQ
 * @id: the id, bound to a device
 * @pd: its PD, or NULL (id->pd, else the device's PD)
 * @attr: as ibv_create_srq()'s; the granted sizes are written back
 *
 * The id's receive CQ is made if it has none; the id's QP, made after,
 * receives through the SRQ.
 *
 * RETURN: 0 (id->srq is set), or -1 with errno set.
 */
int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		    struct ibv_srq_init_attr *attr);
/**
 * rdma_create_srq_ex() - make the id's SRQ from extended attributes
 * @id: the id, bound to a device
 * @attr: as ibv_create_srq_ex()'s; a missing PD, type (basic) or XRC CQ
 *	are the library's
 *
 * RETURN: 0 (id->srq is set), or -1 with errno set.
 */
int rdma_create_srq_ex(struct rdma_cm_id *id,
		       struct ibv_srq_init_attr_ex *attr);
/**
 * rdma_destroy_srq() - destroy the id's SRQ
 * @id: the id
 */
void rdma_destroy_srq(struct rdma_cm_id *id);

/**
 * rdma_reg_msgs() - register a buffer to send from or receive into
 * @id: the id, whose PD is used
 * @addr: the buffer
 * @length: its size
 *
 * RETURN: the MR, or NULL with errno set.
 */
static inline struct ibv_mr *rdma_reg_msgs(struct rdma_cm_id *id,
					   void *addr, size_t length)
{
	return ibv_reg_mr(id->pd, addr, length, IBV_ACCESS_LOCAL_WRITE);
}

/**
 * rdma_reg_read() - register a buffer the peer may RDMA READ
 * @id: the id, whose PD is used
 * @addr: the buffer
 * @length: its size
 *
 * RETURN: the MR, or NULL with errno set.
 */
static inline struct ibv_mr *rdma_reg_read(struct rdma_cm_id *id,
					   void *addr, size_t length)
{
	return ibv_reg_mr(id->pd, addr, length,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
}

/**
 * rdma_reg_write() - register a buffer the peer may RDMA WRITE
 * @id: the id, whose PD is used
 * @addr: the buffer
 * @length: its size
 *
 * RETURN: the MR, or NULL with errno set.
 */
static inline struct ibv_mr *rdma_reg_write(struct rdma_cm_id *id,
					    void *addr, size_t length)
{
	return ibv_reg_mr(id->pd, addr, length,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

/**
 * rdma_dereg_mr() - deregister a buffer
 * @mr: its MR
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_dereg_mr(struct ibv_mr *mr)
{
	return rdma_seterrno(ibv_dereg_mr(mr));
}

/**
 * rdma_post_recvv() - post a receive into scattered buffers
 * @id: the id: to its SRQ if it has one, else to its QP
 * @context: the completion's wr_id
 * @sgl: the buffers
 * @nsge: their count
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_post_recvv(struct rdma_cm_id *id, void *context,
				  struct ibv_sge *sgl, int nsge)
{
	struct ibv_recv_wr wr, *bad_wr;

	wr.wr_id = (uintptr_t)context;
	wr.next = NULL;
	wr.sg_list = sgl;
	wr.num_sge = nsge;

	if (id->srq)
		return rdma_seterrno(ibv_post_srq_recv(id->srq, &wr, &bad_wr));
	return rdma_seterrno(ibv_post_recv(id->qp, &wr, &bad_wr));
}

/**
 * rdma_post_wr_() - post a send queue request (the helpers' common part)
 * @id: the id
 * @wr: the request, opcode and remote fields set, the rest filled here
 * @context: the completion's wr_id
 * @sgl: the buffers
 * @nsge: their count
 * @flags: enum ibv_send_flags bits
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_post_wr_(struct rdma_cm_id *id, struct ibv_send_wr *wr,
				void *context, struct ibv_sge *sgl, int nsge,
				int flags)
{
	struct ibv_send_wr *bad_wr;

	wr->wr_id = (uintptr_t)context;
	wr->next = NULL;
	wr->sg_list = sgl;
	wr->num_sge = nsge;
	wr->send_flags = (unsigned int)flags;
	return rdma_seterrno(ibv_post_send(id->qp, wr, &bad_wr));
}

/**
 * rdma_post_sendv() - post a SEND from scattered buffers
 * @id: the id
 * @context: the completion's wr_id
 * @sgl: the buffers
 * @nsge: their count
 * @flags: enum ibv_send_flags bits
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_post_sendv(struct rdma_cm_id *id, void *context,
				  struct ibv_sge *sgl, int nsge, int flags)
{
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	return rdma_post_wr_(id, &wr, context, sgl, nsge, flags);
}

/**
 * rdma_post_readv() - post an RDMA READ into scattered buffers
 * @id: the id
 * @context: the completion's wr_id
 * @sgl: the buffers
 * @nsge: their count
 * @flags: enum ibv_send_flags bits
 * @remote_addr: the peer's address
 * @rkey: the peer's key
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_post_readv(struct rdma_cm_id *id, void *context,
				  struct ibv_sge *sgl, int nsge, int flags,
				  uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	return rdma_post_wr_(id, &wr, context, sgl, nsge, flags);
}

/**
 * rdma_post_writev() - post an RDMA WRITE from scattered buffers
 * @id: the id
 * @context: the completion's wr_id
 * @sgl: the buffers
 * @nsge: their count
 * @flags: enum ibv_send_flags bits
 * @remote_addr: the peer's address
 * @rkey: the peer's key
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_post_writev(struct rdma_cm_id *id, void *context,
				   struct ibv_sge *sgl, int nsge, int flags,
				   uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	return rdma_post_wr_(id, &wr, context, sgl, nsge, flags);
}

/**
 * rdma_sge_() - one buffer as a scatter/gather element (the helpers')
 * @addr: the buffer
 * @length: its size
 * @mr: its MR, or NULL for inline data (no lkey)
 *
 * RETURN: the element.
 */
static inline struct ibv_sge rdma_sge_(void *addr, size_t length,
				       struct ibv_mr *mr)
{
	struct ibv_sge sge;

	sge.addr = (uint64_t)(uintptr_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = mr ? mr->lkey : 0;
	return sge;
}

/**
 * rdma_post_recv() - post a receive into one buffer
 * @id: the id: to its SRQ if it has one, else to its QP
 * @context: the completion's wr_id
 * @addr: the buffer, inside @mr
 * @length: its size
 * @mr: its MR
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_post_recv(struct rdma_cm_id *id, void *context,
				 void *addr, size_t length, struct ibv_mr *mr)
{
	struct ibv_sge sge = rdma_sge_(addr, length, mr);

	/* A receive must land inside its MR. */
	assert((uint8_t *)addr >= (uint8_t *)mr->addr &&
	       (uint8_t *)addr + length <= (uint8_t *)mr->addr + mr->length);
	return rdma_post_recvv(id, context, &sge, 1);
}

/**
 * rdma_post_send() - post a SEND of one buffer
 * @id: the id
 * @context: the completion's wr_id
 * @addr: the buffer
 * @length: its size
 * @mr: its MR, or NULL with IBV_SEND_INLINE
 * @flags: enum ibv_send_flags bits
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_post_send(struct rdma_cm_id *id, void *context,
				 void *addr, size_t length, struct ibv_mr *mr,
				 int flags)
{
	struct ibv_sge sge = rdma_sge_(addr, length, mr);

	return rdma_post_sendv(id, context, &sge, 1, flags);
}

/**
 * rdma_post_read() - post an RDMA READ into one buffer
 * @id: the id
 * @context: the completion's wr_id
 * @addr: the buffer
 * @length: its size
 * @mr: its MR
 * @flags: enum ibv_send_flags bits
 * @remote_addr: the peer's address
 * @rkey: the peer's key
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_post_read(struct rdma_cm_id *id, void *context,
				 void *addr, size_t length, struct ibv_mr *mr,
				 int flags, uint64_t remote_addr,
				 uint32_t rkey)
{
	struct ibv_sge sge = rdma_sge_(addr, length, mr);

	return rdma_post_readv(id, context, &sge, 1, flags, remote_addr,
			       rkey);
}

/**
 * rdma_post_write() - post an RDMA WRITE of one buffer
 * @id: the id
 * @context: the completion's wr_id
 * @addr: the buffer
 * @length: its size
 * @mr: its MR, or NULL with IBV_SEND_INLINE
 * @flags: enum ibv_send_flags bits
 * @remote_addr: the peer's address
 * @rkey: the peer's key
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_post_write(struct rdma_cm_id *id, void *context,
				  void *addr, size_t length,
				  struct ibv_mr *mr, int flags,
				  uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_sge sge = rdma_sge_(addr, length, mr);

	return rdma_post_writev(id, context, &sge, 1, flags, remote_addr,
				rkey);
}

/**
 * rdma_post_ud_send() - post a UD SEND of one buffer
 * @id: the id
 * @context: the completion's wr_id
 * @addr: the buffer
 * @length: its size
 * @mr: its MR, or NULL with IBV_SEND_INLINE
 * @flags: enum ibv_send_flags bits
 * @ah: the peer's address handle
 * @remote_qpn: the peer's QP (its Q_Key is RDMA_UDP_QKEY)
 *
 * RETURN: 0, or -1 with errno set.
 */
static inline int rdma_post_ud_send(struct rdma_cm_id *id, void *context,
				    void *addr, size_t length,
				    struct ibv_mr *mr, int flags,
				    struct ibv_ah *ah, uint32_t remote_qpn)
{
	struct ibv_sge sge = rdma_sge_(addr, length, mr);
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = remote_qpn;
	wr.wr.ud.remote_qkey = RDMA_UDP_QKEY;
	return rdma_post_wr_(id, &wr, context, &sge, 1, flags);
}

/**
 * rdma_get_comp_() - wait for one completion of a CQ (the helpers')
 * @cq: the CQ
 * @channel: its completion channel
 * @wc: set to the completion
 *
 * Polls; when the CQ is empty, arms it, polls again (a completion may
 * have come before the arming) and sleeps on @channel.
 *
 * RETURN: 1, or -1 with errno set.
 */
static inline int rdma_get_comp_(struct ibv_cq *cq,
				 struct ibv_comp_channel *channel,
				 struct ibv_wc *wc)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int ret;

	for (;;) {
		ret = ibv_poll_cq(cq, 1, wc);
		if (ret)
			break;
		ret = ibv_req_notify_cq(cq, 0);
		if (ret)
			return rdma_seterrno(ret);
		ret = ibv_poll_cq(cq, 1, wc);
		if (ret)
			break;
		if (ibv_get_cq_event(channel, &ev_cq, &ev_ctx))
			return -1;
		assert(ev_cq == cq);
		ibv_ack_cq_events(ev_cq, 1);
	}
	return ret < 0 ? rdma_seterrno(-ret) : ret;
}

/**
 * rdma_get_send_comp() - wait for a completion of the id's send CQ
 * @id: the id, its CQs the library's
 * @wc: set to the completion
 *
 * RETURN: 1, or -1 with errno set.
 */
static inline int rdma_get_send_comp(struct rdma_cm_id *id,
				     struct ibv_wc *wc)
{
	return rdma_get_comp_(id->send_cq, id->send_cq_channel, wc);
}

/**
 * rdma_get_recv_comp() - wait for a completion of the id's receive CQ
 * @id: the id, its CQs the library's
 * @wc: set to the completion
 *
 * RETURN: 1, or -1 with errno set.
 */
static inline int rdma_get_recv_comp(struct rdma_cm_id *id,
				     struct ibv_wc *wc)
{
	return rdma_get_comp_(id->recv_cq, id->recv_cq_channel, wc);
}

#ifdef __cplusplus
}
#endif

#endif /* RDMA_VERBS_H */
