// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The connection manager's char device, event channels, the id table and
 * the events (rdma_get_cm_event(), rdma_ack_cm_event()).
 */
#define _GNU_SOURCE /* secure_getenv() */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cm.h"

#define CM_TABLE_SIZE 64

static pthread_mutex_t cm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cm_id *cm_table[CM_TABLE_SIZE];

int cm_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -1 : 0;
}

static const char *cm_dev_dir(void)
{
	const char *dir = secure_getenv(CM_ENV_DEV_DIR);

	return dir && *dir ? dir : CM_DEV_DIR_DEFAULT;
}

struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct rdma_event_channel *channel;
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", cm_dev_dir(), CM_DEV_NAME) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	channel = malloc(sizeof(*channel));
	if (!channel)
		return NULL;
	channel->fd = open(path, O_RDWR | O_CLOEXEC);
	if (channel->fd < 0) {
		/* No rnic_cm node: no connection manager (rdma-core's errno). */
		if (errno == ENOENT)
			errno = ENODEV;
		free(channel);
		return NULL;
	}
	return channel;
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	if (!channel)
		return;
	close(channel->fd);
	free(channel);
}

static unsigned int cm_hash(int fd, uint32_t handle)
{
	return ((unsigned int)fd * 31u + handle) % CM_TABLE_SIZE;
}

void cm_table_add(struct cm_id *cid)
{
	unsigned int h;

	cid->fd = cid->id.channel->fd;
	h = cm_hash(cid->fd, cid->handle);
	pthread_mutex_lock(&cm_lock);
	cid->next = cm_table[h];
	cm_table[h] = cid;
	pthread_mutex_unlock(&cm_lock);
}

void cm_table_del(struct cm_id *cid)
{
	struct cm_id **p;

	pthread_mutex_lock(&cm_lock);
	for (p = &cm_table[cm_hash(cid->fd, cid->handle)]; *p;
	     p = &(*p)->next) {
		if (*p == cid) {
			*p = cid->next;
			break;
		}
	}
	pthread_mutex_unlock(&cm_lock);
}

struct cm_id *cm_table_find(int fd, uint32_t handle)
{
	struct cm_id *cid;

	pthread_mutex_lock(&cm_lock);
	for (cid = cm_table[cm_hash(fd, handle)]; cid; cid = cid->next)
		if (cid->fd == fd && cid->handle == handle)
			break;
	pthread_mutex_unlock(&cm_lock);
	return cid;
}

/*
 * A new id on @channel: allocated and made in the kernel, not yet in the
 * table (the caller adds it once it is complete).
 */
struct cm_id *cm_id_new(struct rdma_event_channel *channel, void *context,
			enum rdma_port_space ps, enum ibv_qp_type qp_type)
{
	struct rnic_cm_create_id cmd;
	struct cm_id *cid;

	cid = calloc(1, sizeof(*cid));
	if (!cid)
		return NULL;
	pthread_mutex_init(&cid->lock, NULL);
	pthread_cond_init(&cid->cond, NULL);
	cid->id.channel = channel;
	cid->id.context = context;
	cid->id.ps = ps;
	cid->id.qp_type = qp_type;

	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.uid = (uintptr_t)cid;
	cmd.ps = (uint16_t)ps;
	cmd.qp_type = (uint8_t)qp_type;
	if (cm_ioctl(channel->fd, RNIC_CM_IOCTL_CREATE_ID, &cmd)) {
		cm_id_free(cid);
		return NULL;
	}
	cid->handle = cmd.out_id;
	cid->fd = channel->fd;
	return cid;
}

void cm_id_free(struct cm_id *cid)
{
	int err = errno;

	pthread_cond_destroy(&cid->cond);
	pthread_mutex_destroy(&cid->lock);
	free(cid->qp_init_attr);
	free(cid);
	errno = err;
}

void cm_complete_events(struct cm_id *cid, uint32_t count)
{
	pthread_mutex_lock(&cid->lock);
	cid->events_completed += count;
	pthread_cond_broadcast(&cid->cond);
	pthread_mutex_unlock(&cid->lock);
}

/*
 * Waits until the application has acknowledged @reported events of the
 * id (what the kernel says it handed out), so that no event it still
 * holds points at an id about to be freed.
 */
void cm_wait_events(struct cm_id *cid, uint32_t reported)
{
	pthread_mutex_lock(&cid->lock);
	while (cid->events_completed < reported)
		pthread_cond_wait(&cid->cond, &cid->lock);
	pthread_mutex_unlock(&cid->lock);
}

static void cm_conn_from_kern(struct cm_event *evt,
			      const struct rnic_cm_conn_param *k)
{
	struct rdma_conn_param *conn = &evt->ev.param.conn;
	/* A u8 length never exceeds the 256-byte buffers. */
	uint8_t len = k->private_data_len;

	memcpy(evt->private_data, k->private_data, len);
	conn->private_data = evt->private_data;
	conn->private_data_len = len;
	conn->responder_resources = k->responder_resources;
	conn->initiator_depth = k->initiator_depth;
	conn->flow_control = k->flow_control;
	conn->retry_count = k->retry_count;
	conn->rnr_retry_count = k->rnr_retry_count;
	conn->srq = k->srq;
	conn->qp_num = k->qp_num;
}

void cm_ud_from_kern(struct cm_event *evt, const struct rnic_cm_get_event *k)
{
	struct rdma_ud_param *ud = &evt->ev.param.ud;
	/* A u8 length never exceeds the 256-byte buffers. */
	uint8_t len = k->out_conn.private_data_len;

	memcpy(evt->private_data, k->out_conn.private_data, len);
	ud->private_data = evt->private_data;
	ud->private_data_len = len;
	cm_ah_attr_from_kern(&ud->ah_attr, &k->out_ud.ah_attr);
	ud->qp_num = k->out_ud.qp_num;
	ud->qkey = k->out_ud.qkey;
}

/*
 * A CONNECT_REQUEST: the kernel made an id for the request on this file;
 * give it a struct rdma_cm_id like its listener's. Returns -1 (errno)
 * if the request cannot be taken: it is then rejected and dropped.
 */
static int cm_conn_request(struct rdma_event_channel *channel,
			   struct cm_event *evt,
			   const struct rnic_cm_get_event *k)
{
	struct rnic_cm_destroy_id destroy;
	struct cm_id *listen, *cid;

	listen = cm_table_find(channel->fd, k->out_listen_id);
	if (!listen) {
		errno = ENOENT;
		goto err_drop;
	}
	cid = calloc(1, sizeof(*cid));
	if (!cid)
		goto err_drop;
	pthread_mutex_init(&cid->lock, NULL);
	pthread_cond_init(&cid->cond, NULL);
	cid->id.channel = listen->id.channel;
	cid->id.context = listen->id.context;
	cid->id.ps = listen->id.ps;
	cid->id.qp_type = listen->id.qp_type;
	cid->handle = k->out_id;
	cm_table_add(cid);
	if (cm_query(cid)) {
		cm_table_del(cid);
		cm_id_free(cid);
		goto err_drop;
	}
	evt->ev.id = &cid->id;
	evt->ev.listen_id = &listen->id;
	if (cid->id.qp_type == IBV_QPT_UD)
		cm_ud_from_kern(evt, k);
	else
		cm_conn_from_kern(evt, &k->out_conn);
	/*
	 * A synchronous listener's requests get a private channel each, so
	 * that their calls wait for their own events only.
	 */
	if (listen->sync && cm_migrate(cid, NULL, false)) {
		/* The request is not handed out: nothing will ack it. */
		cm_complete_events(cid, 1);
		rdma_destroy_id(&cid->id);
		return -1;
	}
	return 0;

err_drop:
	/* DESTROY_ID of an unanswered request's id rejects it. */
	memset(&destroy, 0, sizeof(destroy));
	destroy.size = sizeof(destroy);
	destroy.id = k->out_id;
	cm_ioctl(channel->fd, RNIC_CM_IOCTL_DESTROY_ID, &destroy);
	return -1;
}

/*
 * What an event does to its id before the application sees it; the
 * library may turn it into another event (CONNECT_RESPONSE into
 * ESTABLISHED or CONNECT_ERROR, a failed resolution into its error).
 */
static void cm_process(struct cm_id *cid, struct cm_event *evt,
		       const struct rnic_cm_get_event *k)
{
	struct rdma_cm_event *ev = &evt->ev;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		/* Addresses, device and path are the kernel's: fetch them. */
		if (cm_query(cid)) {
			ev->status = -errno;
			ev->event = ev->event == RDMA_CM_EVENT_ADDR_RESOLVED ?
				RDMA_CM_EVENT_ADDR_ERROR :
				RDMA_CM_EVENT_ROUTE_ERROR;
		}
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		cm_conn_from_kern(evt, &k->out_conn);
		/*
		 * With the library's QP, finish the handshake here and report
		 * ESTABLISHED, as librdmacm does.
		 */
		if (!cid->id.qp)
			break;
		if (cm_finish_connect(cid)) {
			ev->status = -errno;
			ev->event = RDMA_CM_EVENT_CONNECT_ERROR;
		} else {
			ev->event = RDMA_CM_EVENT_ESTABLISHED;
		}
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (cid->id.qp_type == IBV_QPT_UD)
			cm_ud_from_kern(evt, k);
		else
			cm_conn_from_kern(evt, &k->out_conn);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		/*
		 * The QP is left alone, as librdmacm leaves it: the program
		 * may have destroyed it already with ibv_destroy_qp(), which
		 * leaves id->qp dangling (rping does, from another thread).
		 */
		cm_conn_from_kern(evt, &k->out_conn);
		break;
	case RDMA_CM_EVENT_MULTICAST_JOIN:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		cm_mc_event(cid, evt, k);
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		if (cid->id.qp_type == IBV_QPT_UD)
			cm_ud_from_kern(evt, k);
		else
			cm_conn_from_kern(evt, &k->out_conn);
		break;
	default:
		break;
	}
}

int rdma_get_cm_event(struct rdma_event_channel *channel,
		      struct rdma_cm_event **event)
{
	struct rnic_cm_get_event k;
	struct cm_event *evt;
	struct cm_id *cid;

	if (!channel || !event) {
		errno = EINVAL;
		return -1;
	}
	evt = calloc(1, sizeof(*evt));
	if (!evt)
		return -1;
	for (;;) {
		memset(&k, 0, sizeof(k));
		k.size = sizeof(k);
		if (cm_ioctl(channel->fd, RNIC_CM_IOCTL_GET_EVENT, &k)) {
			free(evt);
			return -1;
		}
		memset(evt, 0, sizeof(*evt));
		evt->ev.event = (enum rdma_cm_event_type)k.out_event;
		evt->ev.status = k.out_status;
		if (k.out_event == RNIC_CM_EVENT_CONNECT_REQUEST) {
			if (cm_conn_request(channel, evt, &k))
				continue;
			break;
		}
		/*
		 * The id is found by its handle on this file, never from the
		 * uid the kernel echoes (a request's id carries its
		 * listener's until accepted); an event of an id the library
		 * no longer knows is dropped.
		 */
		cid = cm_table_find(channel->fd, k.out_id);
		if (!cid)
			continue;
		evt->ev.id = &cid->id;
		cm_process(cid, evt, &k);
		break;
	}
	*event = &evt->ev;
	return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct cm_event *evt;

	if (!event) {
		errno = EINVAL;
		return -1;
	}
	evt = (struct cm_event *)event;
	/*
	 * Which id the kernel counts a request against is its business:
	 * completing it on both never makes a destroy wait too long.
	 */
	if (event->listen_id)
		cm_complete_events(to_cm_id(event->listen_id), 1);
	cm_complete_events(to_cm_id(event->id), 1);
	free(evt);
	return 0;
}

/* Acknowledges the event a synchronous call kept on the id, if any. */
void cm_drop_sync_event(struct cm_id *cid)
{
	if (cid->id.event) {
		rdma_ack_cm_event(cid->id.event);
		cid->id.event = NULL;
	}
}

/*
 * A synchronous id's call waits for its event, kept in id->event until
 * the next call (the application may read it, as with librdmacm).
 * Returns 0 if the event is @expected and succeeded, else -1 and errno
 * (ECONNREFUSED for a reject, the event's errno otherwise).
 */
int cm_sync_wait(struct cm_id *cid, enum rdma_cm_event_type expected)
{
	struct rdma_cm_event *ev;

	if (!cid->sync)
		return 0;
	cm_drop_sync_event(cid);
	if (rdma_get_cm_event(cid->id.channel, &ev))
		return -1;
	cid->id.event = ev;
	if (ev->event == expected && ev->status == 0)
		return 0;
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		errno = ECONNREFUSED;
	else if (ev->status < 0)
		errno = -ev->status;
	else
		errno = EINVAL;
	return -1;
}
