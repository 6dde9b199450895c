/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rnic: software RDMA NIC - what the engine offers the layers above it:
 * the per-QP engine state that struct rnic_qp embeds (struct rnic_req,
 * struct rnic_resp), the QP's engine life (rnic_qp_dp_*, called by
 * verbs/qp.c and verbs/qp_state.c), the device's engine state
 * (rnic_dev_dp_*, called by core/main.c), the doorbell ioctls (called by
 * core/uverbs.c's ioctl table) and the SQ polling thread. Nothing above
 * the engine includes engine/engine.h.
 */
#ifndef RNIC_QP_ENGINE_H
#define RNIC_QP_ENGINE_H

#include "link/link.h"

struct rnic_qp;

/* PSNs are 24 bits (the BTH's); verbs/qp_state.c checks modify's. */
#define RNIC_PSN_MASK		0xffffff

/* per-QP engine state (req.c, comp.c, resp.c) */

struct rnic_kwqe;
struct rnic_poller;
struct rnic_qp_scratch;

/**
 * struct rnic_resp_atomic - an atomic the responder executed, kept so
 *	that a duplicate of it gets the same answer
 * @psn: its PSN; U32_MAX (no 24-bit PSN) for an unused entry
 * @orig: the original value it answered with
 */
struct rnic_resp_atomic {
	u32 psn;
	u64 orig;
};

/**
 * struct rnic_resp_owed - responses the responder owes for one READ or
 *	atomic request it accepted, sent in PSN order (resp.c)
 * @va: READ: the address of the first byte
 * @rkey: READ: the key the request named
 * @len: READ: bytes asked for
 * @orig: atomic: the original value to answer with
 * @msn: the MSN its responses carry
 * @psn: PSN of the first response
 * @npkts: responses in all (1 for an atomic)
 * @sent: responses sent so far
 * @atomic: an atomic ACK, else READ responses
 * @srqn: READ of an XRC TGT QP: the XRC SRQ the request named, whose PD
 *	the MR must be of when the responses are read
 */
struct rnic_resp_owed {
	u64 va;
	u32 rkey;
	u32 len;
	u64 orig;
	u32 msn;
	u32 psn;
	u32 npkts;
	u32 sent;
	bool atomic;
	u32 srqn;
};

/**
 * struct rnic_req - requester and completer of a QP: sends the work
 *	requests of its SQ and completes them when the responses arrive
 * @lock: protects everything below; always with BH off (_bh, or plain
 *	inside the requester's BH-off section). Never held while a packet
 *	is handed to the link, so responses may arrive at once. The runner
 *	also reads @fetched, @next and @timed_out without it, as a hint
 *	(rnic_req_idle() in req.c says why that is safe)
 * @running: bit 0: a thread runs the requester (rnic_req_run()), the
 *	only one that may transmit; bit 1: run again, new work arrived
 * @runner: the task that holds bit 0 of @running while it steps, else
 *	NULL; written only by that task
 * @wqes: kernel copies of the send WQEs, @stride bytes each, one per SQ
 *	slot: copied once when fetched, then trusted
 * @stride: bytes per entry of @wqes
 * @fetched: SQ entries copied so far (free-running, like the ring)
 * @next: the WQE being sent, between @done and @fetched
 * @done: the oldest WQE not completed; written to the ring's consumer
 * @offset: bytes of @next already sent
 * @psn: PSN of the next packet
 * @ack_psn: the last PSN the peer acknowledged
 * @ackreq_psn: the last PSN an answer was asked for (AckReq, READ, atomic)
 * @ask_next: the next packet asks for an ACK whatever it is (ACKs are
 *	coalesced: whatever waits for one asks first, rnic_req_ask())
 * @rd_atomic: RDMA READ and atomic requests waiting for their response
 * @rd_window: READ responses (PSNs) in flight at most: halved when the
 *	transport timer expires or a response is missing, grown back by a
 *	chunk per window's worth of READs completed. A READ request that would exceed it
 *	waits for answers, unless nothing is in flight: a slow peer or link
 *	gets as many responses as it delivers, not a burst it drops again at
 *	every retry
 * @rd_blocked: a READ request waits for @rd_window: the completer pokes
 *	the requester when the peer answers
 * @retry_left: transport retries left for the oldest unacknowledged
 *	packet
 * @rnr_left: RNR retries left likewise
 * @rnr_wait: waiting for @rnr_timer: nothing is sent, @timer is stopped
 * @timer: transport (retransmission) timer; holds a @dp reference while
 *	pending. Not armed during an RNR wait
 * @rnr_timer: the RNR wait, as long as the responder's RNR NAK asked for
 *	(microseconds, softirq); holds a @dp reference while queued. Armed
 *	and cancelled under @lock; a callback that finds it queued again
 *	leaves @rnr_wait to the new wait
 * @work: runs the requester on the device's workqueue; holds a @dp
 *	reference while pending
 * @drained_sent: IBV_EVENT_SQ_DRAINED was raised for this stay in SQD
 * @timed_out: @timer fired for a transport timeout, the work handles it
 * @dead: the QP is being destroyed: nothing is scheduled any more
 * @gen: incremented when the QP is reset, so that a run that dropped the
 *	lock notices
 * @progress: when the peer last acknowledged something or answered a
 *	request this QP sent, or when the requester started to wait for an
 *	answer (jiffies)
 * @timeout: transport timeout in jiffies, 0 for none
 * @retry_cnt: transport retries, as set
 * @rnr_retry: RNR retries, as set (7: infinite)
 * @max_rd_atomic: READ/atomic requests in flight at most, at least 1
 *
 * @timeout .. @max_rd_atomic are copied from the attributes by
 * rnic_qp_dp_apply(), so that the data path reads them under @lock, not
 * rnic_qp.lock. Three one-word attributes it reads straight from
 * rnic_qp.attr with READ_ONCE(): qp_state (rnic_qp_state()), qkey (for a
 * UD WQE that names a controlled Q_Key) and en_sqd_async_notify; a modify
 * racing with the read makes it see the old value or the new one, each a
 * value the QP had.
 */
struct rnic_req {
	spinlock_t lock; /* see above */
	unsigned long running;
	struct task_struct *runner;
	struct rnic_kwqe *wqes;
	u32 stride;
	u32 fetched;
	u32 next;
	u32 done;
	u32 offset;
	u32 psn;
	u32 ack_psn;
	u32 ackreq_psn;
	u32 rd_atomic;
	u32 rd_window;
	bool rd_blocked;
	u8 retry_left;
	u8 rnr_left;
	bool rnr_wait;
	bool drained_sent;
	bool timed_out;
	bool ask_next;
	bool dead;
	u32 gen;
	unsigned long progress;
	struct timer_list timer;
	struct hrtimer rnr_timer;
	struct work_struct work;

	unsigned long timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u32 max_rd_atomic;
};

/**
 * struct rnic_resp - responder of a QP: executes incoming requests
 * @lock: protects everything below; always with BH off (plain in the
 *	receive path, where BH is off already), held while the request is
 *	executed and its response handed to the link
 * @epsn: PSN expected next
 * @msn: messages completed (in ACKs)
 * @in_msg: a multi-packet SEND or WRITE is in progress
 * @in_send: ... and it is a SEND
 * @drop_msg: UC: the message in progress lost a packet; drop the rest
 * @has_rwqe: @rwqe holds a receive WQE taken from the ring
 * @rwqe: the receive WQE taken for the message in progress (kernel copy)
 * @rwqe_sges: its scatter list
 * @recv_off: bytes of the SEND in progress placed so far
 * @write_va: next address of the RDMA WRITE in progress
 * @write_rkey: its rkey
 * @write_left: bytes of it still to come
 * @write_len: its length
 * @comm_est: IBV_EVENT_COMM_EST was raised
 * @atomics: RC: the last RNIC_MAX_RD_ATOM atomics executed (at least
 *	max_dest_rd_atomic, what a requester may have outstanding), for
 *	replay; a ring of RNIC_MAX_RD_ATOM entries allocated with the QP
 *	(rnic_qp_dp_init()), so that no modify allocates under the locks.
 *	NULL for UC and UD
 * @atomic_next: atomics executed (free-running): the next entry of
 *	@atomics to reuse, modulo RNIC_MAX_RD_ATOM
 * @owed: RC: READ responses and atomic ACKs not yet sent, oldest at
 *	@owed_head, a ring of RNIC_MAX_RD_ATOM entries allocated with the
 *	QP; NULL for UC and UD. A READ is answered in budgeted passes
 *	(rnic_resp_push()): the first in the call that accepted it, the
 *	rest from the requester's work, so that a peer may ask for a whole
 *	message at once. While it is not empty, an ACK or a NAK that asks
 *	for a resend waits in @aeth_owed: responses leave in PSN order
 * @owed_head: entries done (free-running)
 * @owed_tail: entries queued (free-running)
 * @aeth_owed: an ACK or RNR/sequence NAK waits behind @owed
 * @aeth_psn: its PSN
 * @aeth_msn: its MSN
 * @aeth_syndrome: its syndrome
 * @nak_sent: a PSN sequence error NAK was sent and not yet resolved
 * @rq_cons: the RQ's consumer index, the kernel's copy
 * @rq_prod: the RQ's producer index as last read; read again only when
 *	@rq_cons caught up with it (the line is the poster's)
 * @last_wqe_sent: IBV_EVENT_QP_LAST_WQE_REACHED was raised (SRQ QPs)
 * @reply_to: while rnic_resp_rcv() handles a request, its sender if that
 *	stays in the call (struct rnic_pkt.src), else NULL
 * @xsrq: XRC TGT QPs, while a request is handled (rnic_resp_rcv()) or a
 *	READ's responses are read (rnic_resp_read_more()): the XRC SRQ the
 *	request named, with a data path reference; else NULL
 * @rwqe_srqn: XRC TGT QPs: the number of the SRQ @rwqe was taken from
 * @access: the QP's access flags, enum rnic_access
 * @max_dest_rd_atomic: READ/atomic requests accepted in flight
 * @min_rnr_timer: RNR NAK timer code
 * @qkey: Q_Key (UD)
 *
 * @access .. @qkey are copied from the attributes by rnic_qp_dp_apply().
 * Responses go to the QP's path (rnic_qp.path).
 */
struct rnic_resp {
	spinlock_t lock; /* see above */
	u32 epsn;
	u32 msn;
	bool in_msg;
	bool in_send;
	bool drop_msg;
	bool has_rwqe;
	struct rnic_recv_wqe rwqe;
	struct rnic_sge rwqe_sges[RNIC_MAX_SGE];
	u32 recv_off;
	u64 write_va;
	u32 write_rkey;
	u32 write_left;
	u32 write_len;
	bool comm_est;
	struct rnic_resp_atomic *atomics;
	u32 atomic_next;
	struct rnic_resp_owed *owed;
	u32 owed_head;
	u32 owed_tail;
	bool aeth_owed;
	u32 aeth_psn;
	u32 aeth_msn;
	u8 aeth_syndrome;
	bool nak_sent;
	u32 rq_cons;
	u32 rq_prod;
	bool last_wqe_sent;
	struct rnic_qp *reply_to;
	struct rnic_srq *xsrq;
	u32 rwqe_srqn;

	u32 access;
	u32 max_dest_rd_atomic;
	u8 min_rnr_timer;
	u32 qkey;
};

/* the engine offers: qp_engine.c, doorbell.c, req.c, resp.c, sqpoll.c */
int rnic_dev_dp_init(struct rnic_dev *rdev);
void rnic_dev_dp_fini(struct rnic_dev *rdev);
int rnic_qp_dp_init(struct rnic_qp *qp);
void rnic_qp_dp_stop(struct rnic_qp *qp);
void rnic_qp_dp_halt(struct rnic_qp *qp);
void rnic_qp_dp_fini(struct rnic_qp *qp);
void rnic_qp_dp_apply(struct rnic_qp *qp, u32 cur, u32 next, u32 mask,
		      const struct rnic_av *av);
void rnic_qp_dp_modified(struct rnic_qp *qp, u32 cur, u32 next);
bool rnic_req_in_flight(struct rnic_qp *qp);
bool rnic_resp_flush(struct rnic_qp *qp);
void rnic_resp_work(struct rnic_qp *qp);
int rnic_kick_sq(struct rnic_ucmd *ucmd);
int rnic_ring_sq(struct rnic_ctx *ctx, unsigned long handle);

/**
 * rnic_poll_add() - let the device's polling thread watch a QP's SQ
 *	producer index (RNIC_CREATE_QP_SQ_POLL); starts the thread if needed
 * @qp: the QP, with an SQ, not findable yet
 *
 * Return: 0, -ENOMEM, or -EINTR if the caller was killed while the
 * thread was being created.
 */
int rnic_poll_add(struct rnic_qp *qp);
/**
 * rnic_poll_del() - stop watching a QP; when it returns, the thread no
 *	longer touches @qp
 * @qp: a QP rnic_poll_add() accepted
 */
void rnic_poll_del(struct rnic_qp *qp);
/**
 * rnic_poll_wake() - wake the polling thread for a kick on a polled QP
 * @qp: a polled QP
 */
void rnic_poll_wake(struct rnic_qp *qp);
/**
 * rnic_poll_dev_stop() - stop the polling thread of a device being
 *	removed, if it has one; its QPs stay listed
 * @rdev: the device
 */
void rnic_poll_dev_stop(struct rnic_dev *rdev);
/**
 * rnic_poll_dev_fini() - stop the device's polling thread, if any; no QP
 *	is watched any more
 * @rdev: the device being freed
 */
void rnic_poll_dev_fini(struct rnic_dev *rdev);

#endif /* RNIC_QP_ENGINE_H */
