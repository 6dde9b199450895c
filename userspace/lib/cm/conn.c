// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * Connections: the QP's states on the way (with the kernel's attributes),
 * connect, accept, reject, establish, disconnect, notify.
 */
#include <errno.h>
#include <string.h>

#include "cm.h"

void cm_ah_attr_from_kern(struct ibv_ah_attr *ah,
			  const struct rnic_ah_attr *k)
{
	memset(ah, 0, sizeof(*ah));
	memcpy(ah->grh.dgid.raw, k->dgid, sizeof(k->dgid));
	ah->grh.flow_label = k->flow_label;
	ah->grh.sgid_index = k->sgid_index;
	ah->grh.hop_limit = k->hop_limit;
	ah->grh.traffic_class = k->traffic_class;
	ah->dlid = k->dlid;
	ah->sl = k->sl;
	ah->src_path_bits = k->src_path_bits;
	ah->static_rate = k->static_rate;
	ah->is_global = k->is_global;
	ah->port_num = k->port_num;
}

/* rnic_qp_attr_mask's bits are ibv_qp_attr_mask's: only values move. */
void cm_qp_attr_from_kern(struct ibv_qp_attr *attr,
			  const struct rnic_qp_attr *k)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)k->qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)k->cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)k->path_mtu;
	attr->path_mig_state = (enum ibv_mig_state)k->path_mig_state;
	attr->qkey = k->qkey;
	attr->rq_psn = k->rq_psn;
	attr->sq_psn = k->sq_psn;
	attr->dest_qp_num = k->dest_qp_num;
	attr->qp_access_flags = k->qp_access_flags;
	attr->pkey_index = (uint16_t)k->pkey_index;
	attr->en_sqd_async_notify = (uint8_t)k->en_sqd_async_notify;
	attr->sq_draining = (uint8_t)k->sq_draining;
	attr->max_rd_atomic = (uint8_t)k->max_rd_atomic;
	attr->max_dest_rd_atomic = (uint8_t)k->max_dest_rd_atomic;
	attr->min_rnr_timer = (uint8_t)k->min_rnr_timer;
	attr->port_num = (uint8_t)k->port_num;
	attr->timeout = (uint8_t)k->timeout;
	attr->retry_cnt = (uint8_t)k->retry_cnt;
	attr->rnr_retry = (uint8_t)k->rnr_retry;
	cm_ah_attr_from_kern(&attr->ah_attr, &k->ah_attr);
}

static int cm_init_qp_attr(struct cm_id *cid, enum ibv_qp_state state,
			   struct ibv_qp_attr *attr, int *mask)
{
	struct rnic_cm_init_qp_attr cmd;

	CM_CMD_INIT(cmd, cid);
	cmd.qp_state = state;
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_INIT_QP_ATTR, &cmd))
		return -1;
	cm_qp_attr_from_kern(attr, &cmd.out_attr);
	attr->qp_state = state;
	*mask = (int)cmd.out_attr_mask | IBV_QP_STATE;
	return 0;
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	if (!id || !qp_attr || !qp_attr_mask) {
		errno = EINVAL;
		return -1;
	}
	return cm_init_qp_attr(to_cm_id(id), qp_attr->qp_state, qp_attr,
			       qp_attr_mask);
}

/*
 * Moves the id's QP to @state with the attributes the kernel gives; an
 * accepting side's READ/atomic depths no deeper than its @param asks (the
 * kernel learns them only with the accept, after the QP moved).
 */
static int cm_modify_qp_param(struct cm_id *cid, enum ibv_qp_state state,
			      const struct rdma_conn_param *param)
{
	struct ibv_qp_attr attr;
	int mask, ret;

	if (cm_init_qp_attr(cid, state, &attr, &mask))
		return -1;
	if (param && attr.max_dest_rd_atomic > param->responder_resources)
		attr.max_dest_rd_atomic = param->responder_resources;
	if (param && attr.max_rd_atomic > param->initiator_depth)
		attr.max_rd_atomic = param->initiator_depth;
	ret = ibv_modify_qp(cid->id.qp, &attr, mask);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

/* Moves the id's QP to @state with the attributes the kernel gives. */
int cm_modify_qp(struct cm_id *cid, enum ibv_qp_state state)
{
	return cm_modify_qp_param(cid, state, NULL);
}

int cm_qp_to_err(struct cm_id *cid)
{
	struct ibv_qp_attr attr;
	int ret;

	if (!cid->id.qp)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_ERR;
	ret = ibv_modify_qp(cid->id.qp, &attr, IBV_QP_STATE);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

static int cm_id_cmd(struct cm_id *cid, unsigned long cmd)
{
	struct rnic_cm_id_cmd c;

	CM_CMD_INIT(c, cid);
	return cm_ioctl(cid->fd, cmd, &c);
}

static int cm_reject(struct cm_id *cid, const void *data, uint8_t len)
{
	struct rnic_cm_reject cmd;

	if (len > RNIC_CM_REJ_PRIVATE_DATA || (len && !data)) {
		errno = EINVAL;
		return -1;
	}
	CM_CMD_INIT(cmd, cid);
	cmd.private_data_len = len;
	if (len)
		memcpy(cmd.private_data, data, len);
	return cm_ioctl(cid->fd, RNIC_CM_IOCTL_REJECT, &cmd);
}

/*
 * The active side got CONNECT_RESPONSE: QP to RTR and RTS, then the RTU.
 * On failure the peer is told with a reject (the caller reports
 * CONNECT_ERROR).
 */
int cm_finish_connect(struct cm_id *cid)
{
	int err;

	if (!cm_modify_qp(cid, IBV_QPS_RTR) &&
	    !cm_modify_qp(cid, IBV_QPS_RTS) &&
	    !cm_id_cmd(cid, RNIC_CM_IOCTL_ESTABLISH))
		return 0;
	err = errno;
	cm_qp_to_err(cid);
	cm_reject(cid, NULL, 0);
	errno = err;
	return -1;
}

/*
 * The parameters the kernel gets: the application's, or librdmacm's
 * defaults (as deep as the device allows, every retry); the QP number
 * and SRQ use are the id's own QP's when the library made one.
 */
static int cm_conn_to_kern(struct cm_id *cid, struct rnic_cm_conn_param *k,
			   const struct rdma_conn_param *p)
{
	memset(k, 0, sizeof(*k));
	if (!p) {
		k->responder_resources = RDMA_MAX_RESP_RES;
		k->initiator_depth = RDMA_MAX_INIT_DEPTH;
		k->retry_count = 7;
		k->rnr_retry_count = 7;
	} else {
		/* Each message's own limit is the kernel's to check. */
		if (p->private_data_len && !p->private_data) {
			errno = EINVAL;
			return -1;
		}
		k->private_data_len = p->private_data_len;
		if (p->private_data_len)
			memcpy(k->private_data, p->private_data,
			       p->private_data_len);
		k->responder_resources = p->responder_resources;
		k->initiator_depth = p->initiator_depth;
		k->flow_control = p->flow_control;
		k->retry_count = p->retry_count;
		k->rnr_retry_count = p->rnr_retry_count;
		k->srq = p->srq;
		k->qp_num = p->qp_num;
	}
	if (cid->id.qp) {
		k->qp_num = cid->id.qp->qp_num;
		k->srq = cid->id.qp->srq != NULL;
	}
	return 0;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rnic_cm_connect cmd;
	struct cm_id *cid;

	cid = cm_id_arg(id);
	if (!cid)
		return -1;
	CM_CMD_INIT(cmd, cid);
	if (cm_conn_to_kern(cid, &cmd.conn, conn_param))
		return -1;
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_CONNECT, &cmd))
		return -1;
	/* UD (SIDR) and the library's QP: ESTABLISHED; else the response. */
	return cm_sync_wait(cid, id->qp || id->qp_type == IBV_QPT_UD ?
			    RDMA_CM_EVENT_ESTABLISHED :
			    RDMA_CM_EVENT_CONNECT_RESPONSE);
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rnic_cm_accept cmd;
	struct cm_id *cid;
	int err;

	cid = cm_id_arg(id);
	if (!cid)
		return -1;
	CM_CMD_INIT(cmd, cid);
	cmd.uid = (uintptr_t)cid;
	if (cm_conn_to_kern(cid, &cmd.conn, conn_param))
		return -1;
	/* A UD QP is ready since its creation; an RC one moves now. */
	if (id->qp && id->qp_type != IBV_QPT_UD &&
	    (cm_modify_qp_param(cid, IBV_QPS_RTR, conn_param) ||
	     cm_modify_qp_param(cid, IBV_QPS_RTS, conn_param)))
		goto err;
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_ACCEPT, &cmd))
		goto err;
	if (id->qp_type == IBV_QPT_UD)
		return 0;
	return cm_sync_wait(cid, RDMA_CM_EVENT_ESTABLISHED);

err:
	err = errno;
	cm_qp_to_err(cid);
	errno = err;
	return -1;
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		uint8_t private_data_len)
{
	if (!id) {
		errno = EINVAL;
		return -1;
	}
	return cm_reject(to_cm_id(id), private_data, private_data_len);
}

int rdma_establish(struct rdma_cm_id *id)
{
	struct cm_id *cid;

	cid = cm_id_arg(id);
	if (!cid)
		return -1;
	/* The library's QP moves as it would have in rdma_get_cm_event(). */
	if (id->qp && (cm_modify_qp(cid, IBV_QPS_RTR) ||
		       cm_modify_qp(cid, IBV_QPS_RTS)))
		return -1;
	return cm_id_cmd(cid, RNIC_CM_IOCTL_ESTABLISH);
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	struct rnic_cm_disconnect cmd;
	struct cm_id *cid;

	cid = cm_id_arg(id);
	if (!cid)
		return -1;
	/* Flush what is posted before the peer is told (as rdma-core). */
	if (cm_qp_to_err(cid))
		return -1;
	CM_CMD_INIT(cmd, cid);
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_DISCONNECT, &cmd))
		return -1;
	return cm_sync_wait(cid, RDMA_CM_EVENT_DISCONNECTED);
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	struct rnic_cm_notify cmd;
	struct cm_id *cid;

	cid = cm_id_arg(id);
	if (!cid)
		return -1;
	CM_CMD_INIT(cmd, cid);
	cmd.event = (uint32_t)event;
	return cm_ioctl(cid->fd, RNIC_CM_IOCTL_NOTIFY, &cmd);
}
