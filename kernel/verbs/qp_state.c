// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the QP state machine (RNIC_IOCTL_MODIFY_QP).
 *
 * Which transitions exist, and which attributes each one requires or
 * allows per QP type, is the QP state table of the IB specification as
 * the kernel's ib_modify_qp_is_ok() has it, written out below as a list.
 * Two rules stand outside the list: any state may go to RESET, and any
 * state but RESET may go to ERR, both with no attribute but the state.
 *
 * Differences, all of them refusals (EINVAL): the alternate path
 * (RNIC_QP_ALT_PATH) is not allowed anywhere, as the kernel refuses APM on
 * RoCE; RNIC_QP_CAP and RNIC_QP_RATE_LIMIT are not either (no resizing,
 * no raw packet QPs). SQE is entered by the data path only (a UC or UD
 * send error); from there the table allows the way back to RTS.
 *
 * A modify either applies completely or changes nothing: values are
 * checked first, then the transition under the QP's lock, then applied
 * under the same lock.
 */
#include <linux/capability.h>

#include "verbs/verbs.h"

#define RNIC_QP_NTYPES		5	/* RC, UC, UD, XRC_SEND, XRC_RECV */
#define RNIC_QKEY_CONTROLLED	0x80000000
#define RNIC_MAX_TIMEOUT	31	/* 5-bit timer codes */
#define RNIC_MAX_RETRY		7	/* 3-bit retry counts */
#define RNIC_PKEY_TBL_LEN	1
#define RNIC_MIG_ARMED		2	/* the last enum ibv_mig_state value */

#define RNIC_QP_ACCESS_ALLOWED						\
	(RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |		\
	 RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)

/**
 * struct rnic_qp_transition - one transition of the QP state table
 * @from: current state
 * @to: next state
 * @req: attributes it requires, per QP type (rnic_qp_type_index())
 * @opt: attributes it also allows, per QP type
 */
struct rnic_qp_transition {
	u8 from;
	u8 to;
	u32 req[RNIC_QP_NTYPES];
	u32 opt[RNIC_QP_NTYPES];
};

/* Per-type masks, in the order of enum rnic_qp_type. */
#define RNIC_PER_TYPE(rc, uc, ud, ini, tgt)	\
	{ (rc), (uc), (ud), (ini), (tgt) }

/* RESET -> INIT requires, INIT -> INIT allows */
#define RNIC_INIT_RC	(RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_ACCESS_FLAGS)
#define RNIC_INIT_UD	(RNIC_QP_PKEY_INDEX | RNIC_QP_PORT | RNIC_QP_QKEY)
/* a connected QP's path to its peer */
#define RNIC_PATH_UC	(RNIC_QP_AV | RNIC_QP_PATH_MTU | RNIC_QP_DEST_QPN | \
			 RNIC_QP_RQ_PSN)
#define RNIC_PATH_RC	(RNIC_PATH_UC | RNIC_QP_MAX_DEST_RD_ATOMIC |	\
			 RNIC_QP_MIN_RNR_TIMER)
/* the requester of an RC QP */
#define RNIC_SEND_RC	(RNIC_QP_TIMEOUT | RNIC_QP_RETRY_CNT |		\
			 RNIC_QP_RNR_RETRY | RNIC_QP_MAX_QP_RD_ATOMIC)
/* what RTS (from RTR, RTS, SQD) allows to change */
#define RNIC_RTS_UC	(RNIC_QP_CUR_STATE | RNIC_QP_ACCESS_FLAGS |	\
			 RNIC_QP_PATH_MIG_STATE)
#define RNIC_RTS_RC	(RNIC_RTS_UC | RNIC_QP_MIN_RNR_TIMER)
#define RNIC_RTS_UD	(RNIC_QP_CUR_STATE | RNIC_QP_QKEY)
/* INIT -> RTR allows (connected QPs) */
#define RNIC_RTR_OPT	(RNIC_QP_ACCESS_FLAGS | RNIC_QP_PKEY_INDEX)
/* RTR -> RTS of an XRC TGT QP, which has no requester, requires */
#define RNIC_SEND_TGT	(RNIC_QP_TIMEOUT | RNIC_QP_SQ_PSN)
/* SQD -> SQD allows, XRC INI and TGT */
#define RNIC_SQD_XRC		(RNIC_QP_PORT | RNIC_QP_AV | RNIC_QP_TIMEOUT | \
				 RNIC_QP_ACCESS_FLAGS | RNIC_QP_PKEY_INDEX | \
				 RNIC_QP_PATH_MIG_STATE)

static const struct rnic_qp_transition rnic_qp_transitions[] = {
	{
		.from = RNIC_QPS_RESET, .to = RNIC_QPS_INIT,
		.req = RNIC_PER_TYPE(RNIC_INIT_RC, RNIC_INIT_RC, RNIC_INIT_UD,
				     RNIC_INIT_RC, RNIC_INIT_RC),
	}, {
		.from = RNIC_QPS_INIT, .to = RNIC_QPS_INIT,
		.opt = RNIC_PER_TYPE(RNIC_INIT_RC, RNIC_INIT_RC, RNIC_INIT_UD,
				     RNIC_INIT_RC, RNIC_INIT_RC),
	}, {
		.from = RNIC_QPS_INIT, .to = RNIC_QPS_RTR,
		.req = RNIC_PER_TYPE(RNIC_PATH_RC, RNIC_PATH_UC, 0,
				     RNIC_PATH_UC, RNIC_PATH_RC),
		.opt = RNIC_PER_TYPE(RNIC_RTR_OPT, RNIC_RTR_OPT,
				     RNIC_QP_PKEY_INDEX | RNIC_QP_QKEY,
				     RNIC_RTR_OPT, RNIC_RTR_OPT),
	}, {
		.from = RNIC_QPS_RTR, .to = RNIC_QPS_RTS,
		.req = RNIC_PER_TYPE(RNIC_SEND_RC | RNIC_QP_SQ_PSN,
				     RNIC_QP_SQ_PSN, RNIC_QP_SQ_PSN,
				     RNIC_SEND_RC | RNIC_QP_SQ_PSN,
				     RNIC_SEND_TGT),
		.opt = RNIC_PER_TYPE(RNIC_RTS_RC, RNIC_RTS_UC, RNIC_RTS_UD,
				     RNIC_RTS_UC, RNIC_RTS_RC),
	}, {
		.from = RNIC_QPS_RTS, .to = RNIC_QPS_RTS,
		.opt = RNIC_PER_TYPE(RNIC_RTS_RC, RNIC_RTS_UC, RNIC_RTS_UD,
				     RNIC_RTS_UC, RNIC_RTS_RC),
	}, {
		.from = RNIC_QPS_RTS, .to = RNIC_QPS_SQD,
		.opt = RNIC_PER_TYPE(RNIC_QP_EN_SQD_ASYNC_NOTIFY,
				     RNIC_QP_EN_SQD_ASYNC_NOTIFY,
				     RNIC_QP_EN_SQD_ASYNC_NOTIFY,
				     RNIC_QP_EN_SQD_ASYNC_NOTIFY,
				     RNIC_QP_EN_SQD_ASYNC_NOTIFY),
	}, {
		.from = RNIC_QPS_SQD, .to = RNIC_QPS_RTS,
		.opt = RNIC_PER_TYPE(RNIC_RTS_RC, RNIC_RTS_UC, RNIC_RTS_UD,
				     RNIC_RTS_UC, RNIC_RTS_RC),
	}, {
		/* drained: the path and the requester may change */
		.from = RNIC_QPS_SQD, .to = RNIC_QPS_SQD,
		.opt = RNIC_PER_TYPE(RNIC_QP_PORT | RNIC_QP_AV | RNIC_SEND_RC |
				     RNIC_QP_MAX_DEST_RD_ATOMIC |
				     RNIC_QP_ACCESS_FLAGS | RNIC_QP_PKEY_INDEX |
				     RNIC_QP_MIN_RNR_TIMER |
				     RNIC_QP_PATH_MIG_STATE,
				     RNIC_QP_AV | RNIC_QP_ACCESS_FLAGS |
				     RNIC_QP_PKEY_INDEX | RNIC_QP_PATH_MIG_STATE,
				     RNIC_QP_PKEY_INDEX | RNIC_QP_QKEY,
				     RNIC_SQD_XRC | RNIC_SEND_RC,
				     RNIC_SQD_XRC | RNIC_QP_MAX_DEST_RD_ATOMIC |
				     RNIC_QP_MIN_RNR_TIMER),
	}, {
		/* UC and UD only: an RC send error moves to ERR */
		.from = RNIC_QPS_SQE, .to = RNIC_QPS_RTS,
		.opt = RNIC_PER_TYPE(0, RNIC_QP_CUR_STATE | RNIC_QP_ACCESS_FLAGS,
				     RNIC_QP_CUR_STATE | RNIC_QP_QKEY, 0, 0),
	},
};

/*
 * Is @mask right for moving a QP of @type from @cur to @next? RNIC_QP_STATE
 * is always allowed; RNIC_QP_CUR_STATE only where the table allows it,
 * which is from RTR, RTS, SQD and SQE.
 */
/* The column of @type in struct rnic_qp_transition's masks */
static unsigned int rnic_qp_type_index(u32 type)
{
	return type >= RNIC_QPT_XRC_SEND ? type - RNIC_QPT_XRC_SEND + 3 :
	       type - RNIC_QPT_RC;
}

static bool rnic_qp_transition_ok(u32 type, u32 cur, u32 next, u32 mask)
{
	unsigned int t = rnic_qp_type_index(type);
	u32 req = 0, opt = 0;
	unsigned int i;

	if (next == RNIC_QPS_RESET || (next == RNIC_QPS_ERR &&
				       cur != RNIC_QPS_RESET))
		goto check;
	for (i = 0; i < ARRAY_SIZE(rnic_qp_transitions); i++) {
		const struct rnic_qp_transition *tr = &rnic_qp_transitions[i];

		if (tr->from == cur && tr->to == next) {
			req = tr->req[t];
			opt = tr->opt[t];
			goto check;
		}
	}
	return false;

check:
	return (mask & req) == req && !(mask & ~(req | opt | RNIC_QP_STATE));
}

static bool rnic_qp_state_valid(u32 state)
{
	return state <= RNIC_QPS_ERR;
}

/*
 * Does a path MTU fit the route? Over the wire, the packets must fit the
 * bound netdev: an IB MTU above the port's active MTU (rnic_active_mtu()
 * of the netdev MTU) is refused, not clamped, so that both ends of a
 * connection segment READ responses alike. The local link carries any.
 */
static bool rnic_path_mtu_fits(struct rnic_dev *rdev, const struct rnic_av *av,
			       u32 path_mtu)
{
	u32 active;

	if (av->route != RNIC_ROUTE_WIRE)
		return true;
	spin_lock_bh(&rdev->port.lock);
	active = rnic_active_mtu(rdev->port.netdev_mtu);
	spin_unlock_bh(&rdev->port.lock);
	return rnic_mtu_bytes(path_mtu) <= active;
}

/*
 * Check the value of every attribute in @mask, whatever the transition;
 * resolve the path into @av, its route included. EPERM for a controlled
 * Q_Key without CAP_NET_RAW, ENETUNREACH for a destination no device
 * reaches (rnic_av_from_attr()), EINVAL for anything else (a path MTU
 * above what the wire path carries, rnic_path_mtu_fits(), included).
 */
static int rnic_qp_check_attr(struct rnic_dev *rdev,
			      const struct rnic_qp_attr *attr, u32 mask,
			      struct rnic_av *av)
{
	int ret;

	if (attr->__reserved)
		return -EINVAL;
	if (((mask & RNIC_QP_STATE) && !rnic_qp_state_valid(attr->qp_state)) ||
	    ((mask & RNIC_QP_CUR_STATE) &&
	     !rnic_qp_state_valid(attr->cur_qp_state)) ||
	    ((mask & RNIC_QP_EN_SQD_ASYNC_NOTIFY) &&
	     attr->en_sqd_async_notify > 1) ||
	    ((mask & RNIC_QP_ACCESS_FLAGS) &&
	     attr->qp_access_flags & ~RNIC_QP_ACCESS_ALLOWED) ||
	    ((mask & RNIC_QP_PKEY_INDEX) &&
	     attr->pkey_index >= RNIC_PKEY_TBL_LEN) ||
	    ((mask & RNIC_QP_PORT) && attr->port_num != 1) ||
	    ((mask & RNIC_QP_PATH_MTU) && (attr->path_mtu < RNIC_MTU_256 ||
					   attr->path_mtu > RNIC_MTU_4096)) ||
	    ((mask & RNIC_QP_TIMEOUT) && attr->timeout > RNIC_MAX_TIMEOUT) ||
	    ((mask & RNIC_QP_RETRY_CNT) && attr->retry_cnt > RNIC_MAX_RETRY) ||
	    ((mask & RNIC_QP_RNR_RETRY) && attr->rnr_retry > RNIC_MAX_RETRY) ||
	    ((mask & RNIC_QP_RQ_PSN) && attr->rq_psn & ~RNIC_PSN_MASK) ||
	    ((mask & RNIC_QP_SQ_PSN) && attr->sq_psn & ~RNIC_PSN_MASK) ||
	    ((mask & RNIC_QP_DEST_QPN) && attr->dest_qp_num & ~RNIC_QPN_MASK) ||
	    ((mask & RNIC_QP_MAX_QP_RD_ATOMIC) &&
	     attr->max_rd_atomic > RNIC_MAX_RD_ATOM) ||
	    ((mask & RNIC_QP_MAX_DEST_RD_ATOMIC) &&
	     attr->max_dest_rd_atomic > RNIC_MAX_RD_ATOM) ||
	    ((mask & RNIC_QP_MIN_RNR_TIMER) &&
	     attr->min_rnr_timer > RNIC_MAX_TIMEOUT) ||
	    ((mask & RNIC_QP_PATH_MIG_STATE) &&
	     attr->path_mig_state > RNIC_MIG_ARMED))
		return -EINVAL;

	if (mask & RNIC_QP_AV) {
		ret = rnic_av_from_attr(rdev, &attr->ah_attr, av);
		if (ret)
			return ret;
		/* A connected QP talks to one peer. */
		if (rnic_gid_is_mcast(av->dgid))
			return -EINVAL;
		if ((mask & RNIC_QP_PATH_MTU) &&
		    !rnic_path_mtu_fits(rdev, av, attr->path_mtu))
			return -EINVAL;
	}
	/* Controlled Q_Keys (high bit set) are for privileged consumers. */
	if ((mask & RNIC_QP_QKEY) && attr->qkey & RNIC_QKEY_CONTROLLED &&
	    !capable(CAP_NET_RAW))
		return -EPERM;
	return 0;
}

/* Back to the state of a new QP: no attribute (the data path empties the rings). */
static void rnic_qp_reset(struct rnic_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	memset(&qp->attr, 0, sizeof(qp->attr));
}

static void rnic_qp_apply(struct rnic_qp *qp, const struct rnic_qp_attr *attr,
			  u32 mask)
{
	struct rnic_qp_attr *cur = &qp->attr;

	lockdep_assert_held(&qp->lock);
	if (mask & RNIC_QP_EN_SQD_ASYNC_NOTIFY)
		cur->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & RNIC_QP_ACCESS_FLAGS)
		cur->qp_access_flags = attr->qp_access_flags;
	if (mask & RNIC_QP_PKEY_INDEX)
		cur->pkey_index = attr->pkey_index;
	if (mask & RNIC_QP_PORT)
		cur->port_num = attr->port_num;
	if (mask & RNIC_QP_QKEY)
		cur->qkey = attr->qkey;
	if (mask & RNIC_QP_AV)
		cur->ah_attr = attr->ah_attr;
	if (mask & RNIC_QP_PATH_MTU)
		cur->path_mtu = attr->path_mtu;
	if (mask & RNIC_QP_TIMEOUT)
		cur->timeout = attr->timeout;
	if (mask & RNIC_QP_RETRY_CNT)
		cur->retry_cnt = attr->retry_cnt;
	if (mask & RNIC_QP_RNR_RETRY)
		cur->rnr_retry = attr->rnr_retry;
	if (mask & RNIC_QP_RQ_PSN)
		cur->rq_psn = attr->rq_psn;
	if (mask & RNIC_QP_MAX_QP_RD_ATOMIC)
		cur->max_rd_atomic = attr->max_rd_atomic;
	if (mask & RNIC_QP_MIN_RNR_TIMER)
		cur->min_rnr_timer = attr->min_rnr_timer;
	if (mask & RNIC_QP_SQ_PSN)
		cur->sq_psn = attr->sq_psn;
	if (mask & RNIC_QP_MAX_DEST_RD_ATOMIC)
		cur->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & RNIC_QP_PATH_MIG_STATE)
		cur->path_mig_state = attr->path_mig_state;
	if (mask & RNIC_QP_DEST_QPN)
		cur->dest_qp_num = attr->dest_qp_num;
}

int rnic_modify_qp(struct rnic_ucmd *ucmd)
{
	struct rnic_modify_qp *cmd = ucmd->cmd;
	const struct rnic_qp_attr *attr = &cmd->attr;
	u32 mask = cmd->attr_mask;
	struct rnic_uobj *uobj;
	struct rnic_qp *qp;
	struct rnic_av av;
	u32 cur, next;
	bool ok;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	qp = rnic_qp_get(ucmd->ctx, cmd->handle, &uobj);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = rnic_qp_check_attr(ucmd->ctx->dev, attr, mask, &av);
	if (ret)
		goto out_put;

	/* The data path sees the change at once, complete: all its locks. */
	spin_lock_bh(&qp->resp.lock);
	spin_lock(&qp->req.lock);
	spin_lock(&qp->lock);
	cur = qp->attr.qp_state;
	next = mask & RNIC_QP_STATE ? attr->qp_state : cur;
	ok = (!(mask & RNIC_QP_CUR_STATE) || attr->cur_qp_state == cur) &&
	     rnic_qp_transition_ok(qp->type, cur, next, mask);
	if (ok) {
		if (next == RNIC_QPS_RESET)
			rnic_qp_reset(qp);
		else
			rnic_qp_apply(qp, attr, mask);
		WRITE_ONCE(qp->attr.qp_state, next);
		rnic_qp_dp_apply(qp, cur, next, mask, &av);
	}
	spin_unlock(&qp->lock);
	spin_unlock(&qp->req.lock);
	spin_unlock_bh(&qp->resp.lock);
	if (!ok) {
		ret = -EINVAL;
		goto out_put;
	}
	rnic_qp_dp_modified(qp, cur, next);

out_put:
	rnic_uobj_put(uobj);
	return ret;
}
