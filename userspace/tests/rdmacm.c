// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic's librdmacm API without a kernel: rdma_event_str() for every
 * event, rdma_getaddrinfo()'s numeric, passive and hints-only answers and
 * its UD port spaces, the ports of an id, what is not supported (ECE), and
 * the error paths when the connection manager's char device is missing
 * (ENODEV) or is not one (ENOTTY).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <stdlib.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	enum rdma_cm_event_type ev;
	const char *str;
} event_names[] = {
	{ RDMA_CM_EVENT_ADDR_RESOLVED, "RDMA_CM_EVENT_ADDR_RESOLVED" },
	{ RDMA_CM_EVENT_ADDR_ERROR, "RDMA_CM_EVENT_ADDR_ERROR" },
	{ RDMA_CM_EVENT_ROUTE_RESOLVED, "RDMA_CM_EVENT_ROUTE_RESOLVED" },
	{ RDMA_CM_EVENT_ROUTE_ERROR, "RDMA_CM_EVENT_ROUTE_ERROR" },
	{ RDMA_CM_EVENT_CONNECT_REQUEST, "RDMA_CM_EVENT_CONNECT_REQUEST" },
	{ RDMA_CM_EVENT_CONNECT_RESPONSE, "RDMA_CM_EVENT_CONNECT_RESPONSE" },
	{ RDMA_CM_EVENT_CONNECT_ERROR, "RDMA_CM_EVENT_CONNECT_ERROR" },
	{ RDMA_CM_EVENT_UNREACHABLE, "RDMA_CM_EVENT_UNREACHABLE" },
	{ RDMA_CM_EVENT_REJECTED, "RDMA_CM_EVENT_REJECTED" },
	{ RDMA_CM_EVENT_ESTABLISHED, "RDMA_CM_EVENT_ESTABLISHED" },
	{ RDMA_CM_EVENT_DISCONNECTED, "RDMA_CM_EVENT_DISCONNECTED" },
	{ RDMA_CM_EVENT_DEVICE_REMOVAL, "RDMA_CM_EVENT_DEVICE_REMOVAL" },
	{ RDMA_CM_EVENT_MULTICAST_JOIN, "RDMA_CM_EVENT_MULTICAST_JOIN" },
	{ RDMA_CM_EVENT_MULTICAST_ERROR, "RDMA_CM_EVENT_MULTICAST_ERROR" },
	{ RDMA_CM_EVENT_ADDR_CHANGE, "RDMA_CM_EVENT_ADDR_CHANGE" },
	{ RDMA_CM_EVENT_TIMEWAIT_EXIT, "RDMA_CM_EVENT_TIMEWAIT_EXIT" },
	{ (enum rdma_cm_event_type)16, "UNKNOWN EVENT" },
	{ (enum rdma_cm_event_type)-1, "UNKNOWN EVENT" },
	{ (enum rdma_cm_event_type)INT_MAX, "UNKNOWN EVENT" },
};

static void test_event_str(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(event_names); i++)
		is_str(rdma_event_str(event_names[i].ev), event_names[i].str,
		       "rdma_event_str(%d)", (int)event_names[i].ev);
}

static void test_getaddrinfo_active(void)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct sockaddr_in *sin;
	struct sockaddr_in6 *sin6;
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_NUMERICHOST;
	ret = rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res);
	is_int(ret, 0, "getaddrinfo 127.0.0.1:7471");
	if (ret)
		return;
	sin = (struct sockaddr_in *)res->ai_dst_addr;
	ok(sin && res->ai_dst_len == sizeof(*sin) &&
	   sin->sin_family == AF_INET &&
	   sin->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
	   sin->sin_port == htons(7471), "active: the destination is the node");
	ok(!res->ai_src_addr && res->ai_src_len == 0, "active: no source");
	is_int(res->ai_family, AF_INET, "family AF_INET");
	is_int(res->ai_qp_type, IBV_QPT_RC, "default QP type RC");
	is_int(res->ai_port_space, RDMA_PS_TCP, "default port space TCP");
	ok(!res->ai_next, "one answer");
	rdma_freeaddrinfo(res);

	/* UD endpoints are in the UDP port space; IPv6 works alike. */
	hints.ai_qp_type = IBV_QPT_UD;
	res = NULL;
	ret = rdma_getaddrinfo("::1", "18515", &hints, &res);
	is_int(ret, 0, "getaddrinfo [::1]:18515, UD");
	if (ret)
		return;
	sin6 = (struct sockaddr_in6 *)res->ai_dst_addr;
	ok(sin6 && sin6->sin6_family == AF_INET6 &&
	   IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) &&
	   sin6->sin6_port == htons(18515), "IPv6 destination");
	is_int(res->ai_port_space, RDMA_PS_UDP, "UD: port space UDP");
	rdma_freeaddrinfo(res);
}

static void test_getaddrinfo_source(void)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct sockaddr_in src, *got;
	int ret;

	memset(&src, 0, sizeof(src));
	src.sin_family = AF_INET;
	src.sin_addr.s_addr = htonl(0x7f000002);
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_NUMERICHOST;
	hints.ai_src_addr = (struct sockaddr *)&src;
	hints.ai_src_len = sizeof(src);
	hints.ai_port_space = RDMA_PS_IB;
	ret = rdma_getaddrinfo("127.0.0.1", "1", &hints, &res);
	is_int(ret, 0, "getaddrinfo with a source in the hints");
	if (ret)
		return;
	got = (struct sockaddr_in *)res->ai_src_addr;
	ok(got && got != &src && res->ai_src_len == sizeof(src) &&
	   !memcmp(got, &src, sizeof(src)), "the hints' source is copied");
	is_int(res->ai_port_space, RDMA_PS_IB, "the hints' port space");
	rdma_freeaddrinfo(res);
}

static void test_getaddrinfo_passive(void)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct sockaddr_in *sin;
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_family = AF_INET;
	ret = rdma_getaddrinfo(NULL, "7471", &hints, &res);
	is_int(ret, 0, "passive getaddrinfo, no node");
	if (ret)
		return;
	sin = (struct sockaddr_in *)res->ai_src_addr;
	ok(sin && sin->sin_family == AF_INET &&
	   sin->sin_addr.s_addr == htonl(INADDR_ANY) &&
	   sin->sin_port == htons(7471), "passive: the wildcard is the source");
	ok(!res->ai_dst_addr, "passive: no destination");
	ok(res->ai_flags & RAI_PASSIVE, "RAI_PASSIVE kept");
	rdma_freeaddrinfo(res);
}

/*
 * Neither node nor service: the answer is the hints. pyverbs' AddrInfo(src=)
 * asks so for a multicast address (test_rdmacm's multicast tests).
 */
static void test_getaddrinfo_hints_only(void)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct sockaddr_in src, dst, *got;
	int ret;

	memset(&src, 0, sizeof(src));
	src.sin_family = AF_INET;
	src.sin_addr.s_addr = htonl(0xe0004f02);
	dst = src;
	dst.sin_port = htons(7471);
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_NUMERICHOST;
	hints.ai_family = AF_INET;
	hints.ai_port_space = RDMA_PS_UDP;
	hints.ai_src_addr = (struct sockaddr *)&src;
	hints.ai_src_len = sizeof(src);
	ret = rdma_getaddrinfo(NULL, NULL, &hints, &res);
	is_int(ret, 0, "getaddrinfo with hints only");
	if (ret)
		return;
	got = (struct sockaddr_in *)res->ai_src_addr;
	ok(got && got != &src && res->ai_src_len == sizeof(src) &&
	   !memcmp(got, &src, sizeof(src)), "hints only: their source, copied");
	ok(!res->ai_dst_addr && !res->ai_dst_len, "hints only: no destination");
	is_int(res->ai_flags, RAI_NUMERICHOST, "hints only: their flags");
	is_int(res->ai_family, AF_INET, "hints only: their family");
	is_int(res->ai_port_space, RDMA_PS_UDP, "hints only: their port space");
	is_int(res->ai_qp_type, 0, "hints only: their QP type (none)");
	rdma_freeaddrinfo(res);

	hints.ai_src_addr = NULL;
	hints.ai_src_len = 0;
	hints.ai_dst_addr = (struct sockaddr *)&dst;
	hints.ai_dst_len = sizeof(dst);
	res = NULL;
	ret = rdma_getaddrinfo(NULL, NULL, &hints, &res);
	is_int(ret, 0, "getaddrinfo with a destination in the hints only");
	if (ret)
		return;
	got = (struct sockaddr_in *)res->ai_dst_addr;
	ok(got && res->ai_dst_len == sizeof(dst) &&
	   !memcmp(got, &dst, sizeof(dst)) && !res->ai_src_addr,
	   "hints only: their destination, copied");
	rdma_freeaddrinfo(res);
}

/* A UDP (or IPoIB) port space without a QP type: UD, as librdmacm says. */
static void test_getaddrinfo_udp_ps(void)
{
	static const struct {
		enum rdma_port_space ps;
		const char *name;
	} spaces[] = { { RDMA_PS_UDP, "UDP" }, { RDMA_PS_IPOIB, "IPoIB" } };
	struct rdma_addrinfo hints, *res;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(spaces); i++) {
		memset(&hints, 0, sizeof(hints));
		hints.ai_flags = RAI_NUMERICHOST;
		hints.ai_port_space = spaces[i].ps;
		res = NULL;
		ret = rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res);
		is_int(ret, 0, "getaddrinfo 127.0.0.1:7471, %s port space",
		       spaces[i].name);
		if (ret)
			continue;
		is_int(res->ai_qp_type, IBV_QPT_UD, "%s port space: QP type UD",
		       spaces[i].name);
		is_int(res->ai_port_space, spaces[i].ps, "%s port space kept",
		       spaces[i].name);
		rdma_freeaddrinfo(res);
	}
}

static void test_getaddrinfo_errors(void)
{
	struct rdma_addrinfo hints, *res = NULL;

	errno = 0;
	is_int(rdma_getaddrinfo(NULL, NULL, NULL, &res), -1,
	       "no node and no service: -1");
	is_int(errno, EINVAL, "... errno EINVAL");
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_NUMERICHOST;
	is_int(rdma_getaddrinfo("not-an-address", "1", &hints, &res),
	       EAI_NONAME, "RAI_NUMERICHOST with a name: EAI_NONAME");
	rdma_freeaddrinfo(NULL);
	ok(1, "rdma_freeaddrinfo(NULL) does nothing");
}

static void test_ports(void)
{
	struct rdma_cm_id id;

	memset(&id, 0, sizeof(id));
	is_int(rdma_get_src_port(&id), 0, "no address: source port 0");
	id.route.addr.src_sin.sin_family = AF_INET;
	id.route.addr.src_sin.sin_port = htons(7471);
	id.route.addr.dst_sin6.sin6_family = AF_INET6;
	id.route.addr.dst_sin6.sin6_port = htons(18515);
	is_int(rdma_get_src_port(&id), htons(7471), "IPv4 source port");
	is_int(rdma_get_dst_port(&id), htons(18515), "IPv6 destination port");
	ok(rdma_get_local_addr(&id) == &id.route.addr.src_addr &&
	   rdma_get_peer_addr(&id) == &id.route.addr.dst_addr,
	   "rdma_get_local_addr/peer_addr");
}

static void test_unsupported(void)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	errno = 0;
	ok(rdma_join_multicast(NULL, (struct sockaddr *)&sin, NULL) == -1 &&
	   errno == EINVAL, "rdma_join_multicast(NULL id): EINVAL");
	errno = 0;
	ok(rdma_join_multicast_ex(NULL, NULL, NULL) == -1 &&
	   errno == EINVAL, "rdma_join_multicast_ex(NULL id): EINVAL");
	errno = 0;
	ok(rdma_leave_multicast(NULL, (struct sockaddr *)&sin) == -1 &&
	   errno == EINVAL, "rdma_leave_multicast(NULL id): EINVAL");
	errno = 0;
	ok(rdma_set_local_ece(NULL, NULL) == -1 && errno == EOPNOTSUPP,
	   "rdma_set_local_ece: EOPNOTSUPP");
	errno = 0;
	ok(rdma_get_remote_ece(NULL, NULL) == -1 && errno == EOPNOTSUPP,
	   "rdma_get_remote_ece: EOPNOTSUPP");
	errno = 0;
	ok(rdma_reject_ece(NULL, NULL, 0) == -1 && errno == EOPNOTSUPP,
	   "rdma_reject_ece: EOPNOTSUPP");
}

static void test_bad_arguments(void)
{
	struct rdma_cm_event *ev;

	errno = 0;
	ok(rdma_destroy_id(NULL) == -1 && errno == EINVAL,
	   "rdma_destroy_id(NULL): EINVAL");
	errno = 0;
	ok(rdma_ack_cm_event(NULL) == -1 && errno == EINVAL,
	   "rdma_ack_cm_event(NULL): EINVAL");
	errno = 0;
	ok(rdma_get_cm_event(NULL, &ev) == -1 && errno == EINVAL,
	   "rdma_get_cm_event(NULL): EINVAL");
	errno = 0;
	ok(rdma_seterrno(EAGAIN) == -1 && errno == EAGAIN &&
	   rdma_seterrno(0) == 0, "rdma_seterrno");
	rdma_destroy_event_channel(NULL);
	rdma_free_devices(NULL);
	ok(1, "destroying NULL channels and device lists does nothing");
}

/* No rnic_cm node in the device directory: no connection manager. */
static void test_no_device(const char *dir)
{
	struct rdma_cm_id *id = NULL;

	setenv("RNIC_DEV_DIR", dir, 1);
	errno = 0;
	ok(!rdma_create_event_channel() && errno == ENODEV,
	   "no char device: rdma_create_event_channel NULL, ENODEV");
	errno = 0;
	ok(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) == -1 &&
	   errno == ENODEV && !id,
	   "no char device: synchronous rdma_create_id -1, ENODEV");
}

/* A node that is no connection manager: every command is ENOTTY. */
static void test_not_a_cm(const char *dir)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id = NULL;
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/rnic_cm", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	setenv("RNIC_DEV_DIR", dir, 1);
	ch = rdma_create_event_channel();
	ok(ch && ch->fd >= 0, "a channel opens on the node");
	if (!ch)
		return;
	ok(fcntl(ch->fd, F_GETFD) & FD_CLOEXEC, "its fd is close-on-exec");
	errno = 0;
	ok(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == -1 &&
	   errno == ENOTTY && !id, "rdma_create_id: -1, the kernel's errno");
	errno = 0;
	ok(rdma_get_cm_event(ch, &ev) == -1 && errno == ENOTTY,
	   "rdma_get_cm_event: -1, the kernel's errno");
	rdma_destroy_event_channel(ch);
	unlink(path);
}

/* No rnic device at all: an empty list, not an error. */
static void test_no_devices(const char *dir)
{
	struct ibv_context **list;
	int n = -1;

	setenv("RNIC_SYSFS_DIR", dir, 1);
	list = rdma_get_devices(&n);
	ok(list && !list[0] && n == 0, "rdma_get_devices: empty list");
	rdma_free_devices(list);
}

int main(void)
{
	char dir[] = "/tmp/librnic-rdmacm.XXXXXX";

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_event_str();
	test_getaddrinfo_active();
	test_getaddrinfo_source();
	test_getaddrinfo_passive();
	test_getaddrinfo_hints_only();
	test_getaddrinfo_udp_ps();
	test_getaddrinfo_errors();
	test_ports();
	test_unsupported();
	test_bad_arguments();
	test_no_device(dir);
	test_not_a_cm(dir);
	test_no_devices(dir);
	rmdir(dir);
	return tap_done();
}
