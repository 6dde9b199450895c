// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The endpoint calls on top of the ids: rdma_getaddrinfo(),
 * rdma_create_ep(), rdma_get_request(), rdma_destroy_ep().
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"

/* *@dst becomes a copy of @len bytes of @src; false if out of memory. */
static bool cm_addr_copy(struct sockaddr **dst, socklen_t *dst_len,
			 const struct sockaddr *src, socklen_t len)
{
	*dst = malloc(len);
	if (!*dst)
		return false;
	memcpy(*dst, src, len);
	*dst_len = len;
	return true;
}

/* The hints name a datagram port space (UDP, IPoIB): its QPs are UD. */
static bool cm_ps_datagram(const struct rdma_addrinfo *hints)
{
	return hints && (hints->ai_port_space == RDMA_PS_UDP ||
			 hints->ai_port_space == RDMA_PS_IPOIB);
}

/* What getaddrinfo() is asked, from the RAI_* flags and the hints. */
static void cm_gai_hints(struct addrinfo *ai,
			 const struct rdma_addrinfo *hints)
{
	memset(ai, 0, sizeof(*ai));
	ai->ai_socktype = SOCK_STREAM;
	if (!hints)
		return;
	if (hints->ai_flags & RAI_PASSIVE)
		ai->ai_flags |= AI_PASSIVE;
	if (hints->ai_flags & RAI_NUMERICHOST)
		ai->ai_flags |= AI_NUMERICHOST;
	ai->ai_family = hints->ai_family;
	if (hints->ai_qp_type == IBV_QPT_UD ||
	    (!hints->ai_qp_type && cm_ps_datagram(hints)))
		ai->ai_socktype = SOCK_DGRAM;
}

/*
 * One answer: the address is the source of a passive endpoint and the
 * destination of an active one (whose source, if the hints give one, is
 * theirs).
 */
static int cm_fill_rai(struct rdma_addrinfo *rai, const struct addrinfo *ai,
		       const struct rdma_addrinfo *hints)
{
	rai->ai_flags = hints ? hints->ai_flags : 0;
	rai->ai_family = ai->ai_family;
	rai->ai_qp_type = hints && hints->ai_qp_type ? hints->ai_qp_type :
		cm_ps_datagram(hints) ? IBV_QPT_UD : IBV_QPT_RC;
	if (hints && hints->ai_port_space)
		rai->ai_port_space = hints->ai_port_space;
	else
		rai->ai_port_space = rai->ai_qp_type == IBV_QPT_UD ?
			RDMA_PS_UDP : RDMA_PS_TCP;

	if (rai->ai_flags & RAI_PASSIVE)
		return cm_addr_copy(&rai->ai_src_addr, &rai->ai_src_len,
				    ai->ai_addr, ai->ai_addrlen) ?
			0 : EAI_MEMORY;
	if (!cm_addr_copy(&rai->ai_dst_addr, &rai->ai_dst_len, ai->ai_addr,
			  ai->ai_addrlen))
		return EAI_MEMORY;
	if (hints && hints->ai_src_addr && hints->ai_src_len &&
	    !cm_addr_copy(&rai->ai_src_addr, &rai->ai_src_len,
			  hints->ai_src_addr, hints->ai_src_len))
		return EAI_MEMORY;
	return 0;
}

/*
 * No node and no service: nothing to look up, the answer is the hints
 * themselves (flags, family, QP type, port space and the addresses they
 * give), as librdmacm answers it. pyverbs' AddrInfo(src=ADDR) ends so.
 */
static int cm_rai_from_hints(const struct rdma_addrinfo *hints,
			     struct rdma_addrinfo **res)
{
	struct rdma_addrinfo *rai = calloc(1, sizeof(*rai));

	if (!rai)
		return -1;
	rai->ai_flags = hints->ai_flags;
	rai->ai_family = hints->ai_family;
	rai->ai_qp_type = hints->ai_qp_type;
	rai->ai_port_space = hints->ai_port_space;
	if ((hints->ai_src_addr && hints->ai_src_len &&
	     !cm_addr_copy(&rai->ai_src_addr, &rai->ai_src_len,
			   hints->ai_src_addr, hints->ai_src_len)) ||
	    (hints->ai_dst_addr && hints->ai_dst_len &&
	     !cm_addr_copy(&rai->ai_dst_addr, &rai->ai_dst_len,
			   hints->ai_dst_addr, hints->ai_dst_len))) {
		rdma_freeaddrinfo(rai);
		errno = ENOMEM;
		return -1;
	}
	*res = rai;
	return 0;
}

int rdma_getaddrinfo(const char *node, const char *service,
		     const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	struct rdma_addrinfo *rai;
	struct addrinfo gai_hints, *ai;
	int ret;

	if (!res || (!node && !service && !hints)) {
		errno = EINVAL;
		return -1;
	}
	if (!node && !service)
		return cm_rai_from_hints(hints, res);
	cm_gai_hints(&gai_hints, hints);
	ret = getaddrinfo(node, service, &gai_hints, &ai);
	if (ret)
		return ret;
	rai = calloc(1, sizeof(*rai));
	if (!rai) {
		freeaddrinfo(ai);
		return -1;
	}
	/* The first answer, as librdmacm gives it. */
	ret = cm_fill_rai(rai, ai, hints);
	freeaddrinfo(ai);
	if (ret) {
		rdma_freeaddrinfo(rai);
		return ret;
	}
	*res = rai;
	return 0;
}

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *next;

	for (; res; res = next) {
		next = res->ai_next;
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
	}
}

/* A passive endpoint keeps what its requests' QPs are made with. */
static int cm_ep_passive(struct cm_id *cid, struct rdma_addrinfo *res,
			 struct ibv_pd *pd,
			 struct ibv_qp_init_attr *qp_init_attr)
{
	if (rdma_bind_addr(&cid->id, res->ai_src_addr))
		return -1;
	/* Without one, the device's PD that binding gave the id. */
	if (pd)
		cid->id.pd = pd;
	if (qp_init_attr) {
		cid->qp_init_attr = malloc(sizeof(*qp_init_attr));
		if (!cid->qp_init_attr)
			return -1;
		*cid->qp_init_attr = *qp_init_attr;
		cid->qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	}
	return 0;
}

static int cm_ep_active(struct cm_id *cid, struct rdma_addrinfo *res,
			struct ibv_pd *pd,
			struct ibv_qp_init_attr *qp_init_attr)
{
	if (rdma_resolve_addr(&cid->id, res->ai_src_addr, res->ai_dst_addr,
			      CM_EP_TIMEOUT_MS))
		return -1;
	if (rdma_resolve_route(&cid->id, CM_EP_TIMEOUT_MS))
		return -1;
	if (pd)
		cid->id.pd = pd;
	if (!qp_init_attr)
		return 0;
	/* The QP type is the endpoint's, as librdmacm sets it. */
	qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	return rdma_create_qp(&cid->id, pd, qp_init_attr);
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
		   struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *new_id;
	struct cm_id *cid;
	int ret, err;

	if (!id || !res) {
		errno = EINVAL;
		return -1;
	}
	if (rdma_create_id(NULL, &new_id, NULL,
			   (enum rdma_port_space)res->ai_port_space))
		return -1;
	cid = to_cm_id(new_id);
	new_id->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	if (res->ai_flags & RAI_PASSIVE)
		ret = cm_ep_passive(cid, res, pd, qp_init_attr);
	else
		ret = cm_ep_active(cid, res, pd, qp_init_attr);
	if (ret) {
		err = errno;
		rdma_destroy_ep(new_id);
		errno = err;
		return -1;
	}
	*id = new_id;
	return 0;
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq)
		rdma_destroy_srq(id);
	rdma_destroy_id(id);
}

int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct cm_id *lcid = listen ? to_cm_id(listen) : NULL;
	struct rdma_cm_event *ev;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *new_id;
	int err;

	if (!lcid || !id || !lcid->sync) {
		errno = EINVAL;
		return -1;
	}
	cm_drop_sync_event(lcid);
	if (rdma_get_cm_event(listen->channel, &ev))
		return -1;
	if (ev->status) {
		errno = ev->status < 0 ? -ev->status : EINVAL;
		goto err_ack;
	}
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		errno = EINVAL;
		goto err_ack;
	}
	new_id = ev->id;
	/* The request's data stays readable through the new id's event. */
	new_id->event = ev;
	if (lcid->qp_init_attr) {
		attr = *lcid->qp_init_attr;
		if (rdma_create_qp(new_id, listen->pd, &attr))
			goto err_destroy;
	}
	if (listen->pd)
		new_id->pd = listen->pd;
	*id = new_id;
	return 0;

err_destroy:
	err = errno;
	rdma_reject(new_id, NULL, 0);
	rdma_destroy_ep(new_id);
	errno = err;
	return -1;
err_ack:
	err = errno;
	rdma_ack_cm_event(ev);
	errno = err;
	return -1;
}
