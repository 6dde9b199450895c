// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librdmacm.so.1 shell: rdma-core's librdmacm ABI (nodes RDMACM_1.0 to
 * 1.3, rdmacm.map) without a connection manager behind it yet. Programs
 * that link librdmacm without using it (perftest without -R) load and run;
 * every call that would make or use a CM object fails with ENOSYS, the
 * way the issue asks until rnic's CM exists: -1 or NULL, errno ENOSYS.
 * rsocket's calls, exported in RDMACM_1.0 too, fail the same way.
 *
 * Since no event channel, id or address list can ever be made, the
 * functions that release one have nothing to do.
 */
#include <stdint.h>

#include "stub.h"

/* RDMACM_1.0: event channels, ids, connections */
STUB_NULL(rdma_create_event_channel, ENOSYS)
STUB_VOID(rdma_destroy_event_channel)
STUB_MINUS1(rdma_create_id, ENOSYS)
STUB_MINUS1(rdma_create_ep, ENOSYS)
STUB_VOID(rdma_destroy_ep)
STUB_MINUS1(rdma_destroy_id, ENOSYS)
STUB_MINUS1(rdma_bind_addr, ENOSYS)
STUB_MINUS1(rdma_resolve_addr, ENOSYS)
STUB_MINUS1(rdma_resolve_route, ENOSYS)
STUB_MINUS1(rdma_create_qp, ENOSYS)
STUB_MINUS1(rdma_create_qp_ex, ENOSYS)
STUB_VOID(rdma_destroy_qp)
STUB_MINUS1(rdma_create_srq, ENOSYS)
STUB_MINUS1(rdma_create_srq_ex, ENOSYS)
STUB_VOID(rdma_destroy_srq)
STUB_MINUS1(rdma_connect, ENOSYS)
STUB_MINUS1(rdma_listen, ENOSYS)
STUB_MINUS1(rdma_get_request, ENOSYS)
STUB_MINUS1(rdma_accept, ENOSYS)
STUB_MINUS1(rdma_reject, ENOSYS)
STUB_MINUS1(rdma_notify, ENOSYS)
STUB_MINUS1(rdma_disconnect, ENOSYS)
STUB_MINUS1(rdma_join_multicast, ENOSYS)
STUB_MINUS1(rdma_leave_multicast, ENOSYS)
STUB_MINUS1(rdma_get_cm_event, ENOSYS)
STUB_MINUS1(rdma_ack_cm_event, ENOSYS)
STUB_MINUS1(rdma_set_option, ENOSYS)
STUB_MINUS1(rdma_migrate_id, ENOSYS)
STUB_MINUS1(rdma_getaddrinfo, ENOSYS)
STUB_VOID(rdma_freeaddrinfo)
STUB_NULL(rdma_get_devices, ENOSYS)
STUB_VOID(rdma_free_devices)

/* RDMACM_1.1 to 1.3 */
STUB_MINUS1(rdma_join_multicast_ex, ENOSYS)
STUB_MINUS1(rdma_establish, ENOSYS)
STUB_MINUS1(rdma_init_qp_attr, ENOSYS)
STUB_MINUS1(rdma_set_local_ece, ENOSYS)
STUB_MINUS1(rdma_get_remote_ece, ENOSYS)
STUB_MINUS1(rdma_reject_ece, ENOSYS)

/* RDMACM_1.0: rsocket */
STUB_MINUS1(rsocket, ENOSYS)
STUB_MINUS1(rbind, ENOSYS)
STUB_MINUS1(rlisten, ENOSYS)
STUB_MINUS1(raccept, ENOSYS)
STUB_MINUS1(rconnect, ENOSYS)
STUB_MINUS1(rshutdown, ENOSYS)
STUB_MINUS1(rclose, ENOSYS)
STUB_MINUS1(rrecv, ENOSYS)
STUB_MINUS1(rrecvfrom, ENOSYS)
STUB_MINUS1(rrecvmsg, ENOSYS)
STUB_MINUS1(rsend, ENOSYS)
STUB_MINUS1(rsendto, ENOSYS)
STUB_MINUS1(rsendmsg, ENOSYS)
STUB_MINUS1(rread, ENOSYS)
STUB_MINUS1(rreadv, ENOSYS)
STUB_MINUS1(rwrite, ENOSYS)
STUB_MINUS1(rwritev, ENOSYS)
STUB_MINUS1(rpoll, ENOSYS)
STUB_MINUS1(rselect, ENOSYS)
STUB_MINUS1(rgetpeername, ENOSYS)
STUB_MINUS1(rgetsockname, ENOSYS)
STUB_MINUS1(rsetsockopt, ENOSYS)
STUB_MINUS1(rgetsockopt, ENOSYS)
STUB_MINUS1(rfcntl, ENOSYS)
STUB_MINUS1(riomap, ENOSYS)
STUB_MINUS1(riounmap, ENOSYS)
STUB_MINUS1(riowrite, ENOSYS)

/* An id's ports: no id exists, so there is no port (0). */
uint16_t rdma_get_src_port(void *id);
uint16_t rdma_get_src_port(void *id)
{
	(void)id;
	return 0;
}

uint16_t rdma_get_dst_port(void *id);
uint16_t rdma_get_dst_port(void *id)
{
	(void)id;
	return 0;
}

/*
 * The names of enum rdma_cm_event_type's values, in their order: pure
 * data, useful even without a CM (a program may print an event it expected).
 */
static const char *const event_names[] = {
	"RDMA_CM_EVENT_ADDR_RESOLVED",
	"RDMA_CM_EVENT_ADDR_ERROR",
	"RDMA_CM_EVENT_ROUTE_RESOLVED",
	"RDMA_CM_EVENT_ROUTE_ERROR",
	"RDMA_CM_EVENT_CONNECT_REQUEST",
	"RDMA_CM_EVENT_CONNECT_RESPONSE",
	"RDMA_CM_EVENT_CONNECT_ERROR",
	"RDMA_CM_EVENT_UNREACHABLE",
	"RDMA_CM_EVENT_REJECTED",
	"RDMA_CM_EVENT_ESTABLISHED",
	"RDMA_CM_EVENT_DISCONNECTED",
	"RDMA_CM_EVENT_DEVICE_REMOVAL",
	"RDMA_CM_EVENT_MULTICAST_JOIN",
	"RDMA_CM_EVENT_MULTICAST_ERROR",
	"RDMA_CM_EVENT_ADDR_CHANGE",
	"RDMA_CM_EVENT_TIMEWAIT_EXIT",
};

const char *rdma_event_str(unsigned int event);
const char *rdma_event_str(unsigned int event)
{
	if (event < sizeof(event_names) / sizeof(event_names[0]))
		return event_names[event];
	return "UNKNOWN EVENT";
}
