// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: asynchronous events.
 *
 * context->async_fd is the context's asynchronous event descriptor,
 * created with the context (ibv_open_device()). Events about an object
 * carry the user_handle given when it was created: the pointer to its
 * public struct. The destroy verbs of CQs, QPs and SRQs wait until every
 * event about the object that was read here has been acknowledged.
 */
#include <errno.h>
#include <unistd.h>

#include "internal.h"

/* What the element of an event is. */
enum element_kind {
	ELEMENT_PORT,	/* a port number; 0 for the device */
	ELEMENT_CQ,
	ELEMENT_QP,
	ELEMENT_SRQ,
	ELEMENT_WQ,
};

static enum element_kind element_kind(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		return ELEMENT_CQ;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return ELEMENT_QP;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return ELEMENT_SRQ;
	case IBV_EVENT_WQ_FATAL:
		return ELEMENT_WQ;
	default:
		return ELEMENT_PORT;
	}
}

int ibv_get_async_event(struct ibv_context *context,
			struct ibv_async_event *event)
{
	struct rnic_event_desc desc;
	void *obj;
	ssize_t n;

	n = read(context->async_fd, &desc, sizeof(desc));
	if (n != (ssize_t)sizeof(desc)) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	if (desc.lost)
		rnic_debug("%s: %u asynchronous events were lost",
			   context->device->name, desc.lost);

	obj = (void *)(uintptr_t)desc.element;
	event->event_type = (enum ibv_event_type)desc.event_type;
	switch (element_kind(event->event_type)) {
	case ELEMENT_CQ:
		event->element.cq = obj;
		break;
	case ELEMENT_QP:
		event->element.qp = obj;
		break;
	case ELEMENT_SRQ:
		event->element.srq = obj;
		break;
	case ELEMENT_WQ:
		event->element.wq = obj;
		break;
	case ELEMENT_PORT:
		event->element.port_num = (int)desc.element;
		break;
	}
	return 0;
}

/* One more acknowledged event of an object whose destroy waits for them. */
static void count_ack(pthread_mutex_t *mutex, pthread_cond_t *cond,
		      uint32_t *completed)
{
	pthread_mutex_lock(mutex);
	(*completed)++;
	pthread_cond_signal(cond);
	pthread_mutex_unlock(mutex);
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	switch (element_kind(event->event_type)) {
	case ELEMENT_CQ:
		cq = event->element.cq;
		count_ack(&cq->mutex, &cq->cond, &cq->async_events_completed);
		break;
	case ELEMENT_QP:
		qp = event->element.qp;
		count_ack(&qp->mutex, &qp->cond, &qp->events_completed);
		break;
	case ELEMENT_SRQ:
		srq = event->element.srq;
		count_ack(&srq->mutex, &srq->cond, &srq->events_completed);
		break;
	case ELEMENT_WQ:	/* rnic has no WQ: never raised */
	case ELEMENT_PORT:	/* about no object */
		break;
	}
}
