// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * Multicast: joining and leaving groups (UD ids). The kernel answers a
 * join at once with MULTICAST_JOIN (RoCE has no subnet administrator: the
 * group's GID is its address); the library then attaches the id's QP to
 * the group, as librdmacm does, and detaches it on leave.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"

static struct cm_mc *cm_mc_find_addr(struct cm_id *cid,
				     const struct sockaddr *addr,
				     socklen_t len)
{
	struct cm_mc *mc;

	for (mc = cid->mcs; mc; mc = mc->next)
		if (!memcmp(&mc->addr, addr, len))
			return mc;
	return NULL;
}

static void cm_mc_unlink(struct cm_id *cid, struct cm_mc *mc)
{
	struct cm_mc **p;

	for (p = &cid->mcs; *p; p = &(*p)->next) {
		if (*p == mc) {
			*p = mc->next;
			return;
		}
	}
}

/*
 * A join's event: the group is found among the id's by the uid the
 * kernel echoes (never dereferenced unchecked); its context is the
 * event's private_data, as librdmacm reports it.
 */
void cm_mc_event(struct cm_id *cid, struct cm_event *evt,
		 const struct rnic_cm_get_event *k)
{
	struct rdma_ud_param *ud = &evt->ev.param.ud;
	struct cm_mc *mc;
	int ret = 0;

	cm_ud_from_kern(evt, k);
	pthread_mutex_lock(&cid->lock);
	for (mc = cid->mcs; mc; mc = mc->next)
		if ((uintptr_t)mc == k->out_uid)
			break;
	ud->private_data = mc ? mc->context : NULL;
	if (mc && evt->ev.event == RDMA_CM_EVENT_MULTICAST_JOIN) {
		mc->mgid = ud->ah_attr.grh.dgid;
		if (cid->id.qp && !mc->sendonly && !mc->attached) {
			ret = ibv_attach_mcast(cid->id.qp, &mc->mgid, 0);
			mc->attached = !ret;
		}
	}
	pthread_mutex_unlock(&cid->lock);
	if (ret) {
		evt->ev.event = RDMA_CM_EVENT_MULTICAST_ERROR;
		evt->ev.status = -ret;
	}
}

void cm_mc_free_all(struct cm_id *cid)
{
	struct cm_mc *mc, *next;

	for (mc = cid->mcs; mc; mc = next) {
		next = mc->next;
		free(mc);
	}
	cid->mcs = NULL;
}

static int cm_join(struct cm_id *cid, const struct sockaddr *addr,
		   uint32_t join_flags, void *context)
{
	struct rnic_cm_join_mcast cmd;
	socklen_t len;
	struct cm_mc *mc;

	len = addr ? cm_addr_len(addr) : 0;
	if (!len) {
		errno = addr ? EAFNOSUPPORT : EINVAL;
		return -1;
	}
	mc = calloc(1, sizeof(*mc));
	if (!mc)
		return -1;
	memcpy(&mc->addr, addr, len);
	mc->context = context;
	mc->sendonly = join_flags == RNIC_CM_MC_JOIN_SENDONLY_FULLMEMBER;
	/* Listed first: the event may be read as soon as the ioctl is done. */
	pthread_mutex_lock(&cid->lock);
	mc->next = cid->mcs;
	cid->mcs = mc;
	pthread_mutex_unlock(&cid->lock);

	CM_CMD_INIT(cmd, cid);
	cmd.join_flags = join_flags;
	cmd.uid = (uintptr_t)mc;
	memcpy(&cmd.addr, addr, len);
	if (cm_ioctl(cid->fd, RNIC_CM_IOCTL_JOIN_MCAST, &cmd)) {
		int err = errno;

		pthread_mutex_lock(&cid->lock);
		cm_mc_unlink(cid, mc);
		pthread_mutex_unlock(&cid->lock);
		free(mc);
		errno = err;
		return -1;
	}
	return cm_sync_wait(cid, RDMA_CM_EVENT_MULTICAST_JOIN);
}

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			void *context)
{
	struct cm_id *cid = cm_id_arg(id);

	if (!cid)
		return -1;
	return cm_join(cid, addr, RNIC_CM_MC_JOIN_FULLMEMBER, context);
}

int rdma_join_multicast_ex(struct rdma_cm_id *id,
			   struct rdma_cm_join_mc_attr_ex *mc_join_attr,
			   void *context)
{
	const uint32_t need = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
			      RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	struct cm_id *cid = cm_id_arg(id);
	uint32_t flags;

	if (!cid)
		return -1;
	if (!mc_join_attr || (mc_join_attr->comp_mask & need) != need ||
	    mc_join_attr->comp_mask & ~need) {
		errno = EINVAL;
		return -1;
	}
	switch (mc_join_attr->join_flags) {
	case RDMA_MC_JOIN_FLAG_FULLMEMBER:
		flags = RNIC_CM_MC_JOIN_FULLMEMBER;
		break;
	case RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER:
		flags = RNIC_CM_MC_JOIN_SENDONLY_FULLMEMBER;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	return cm_join(cid, mc_join_attr->addr, flags, context);
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct cm_id *cid = cm_id_arg(id);
	struct rnic_cm_join_mcast cmd;
	struct cm_mc *mc;
	socklen_t len;

	if (!cid)
		return -1;
	len = addr ? cm_addr_len(addr) : 0;
	if (!len) {
		errno = addr ? EAFNOSUPPORT : EINVAL;
		return -1;
	}
	pthread_mutex_lock(&cid->lock);
	mc = cm_mc_find_addr(cid, addr, len);
	if (mc)
		cm_mc_unlink(cid, mc);
	pthread_mutex_unlock(&cid->lock);
	if (!mc) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	if (mc->attached && cid->id.qp)
		ibv_detach_mcast(cid->id.qp, &mc->mgid, 0);
	CM_CMD_INIT(cmd, cid);
	memcpy(&cmd.addr, addr, len);
	free(mc);
	return cm_ioctl(cid->fd, RNIC_CM_IOCTL_LEAVE_MCAST, &cmd);
}
