// SPDX-License-Identifier: GPL-2.0
/*
 * The connection manager's char device (/dev/infiniband/rnic_cm) through
 * its raw ioctls: the IB CM handshake between two event channels on one
 * host (REQ, REP, RTU, DREQ, DREP as MADs over QP 1 of the device on the
 * local link), what each side is told (events, private data, the QP
 * attributes that make the two QPs agree), rejects, a port nobody listens
 * on, a full backlog, a closed channel, killed peers (the survivor is
 * told), stale connections (a QP number connected again too soon),
 * ADDR_CHANGE, and the errors of the ABI.
 * librnic's librdmacm API on top is tested by rdmacm.c.
 *
 * One device bound to a dummy netdev with 10.80.0.1/24. RNIC_CM_CHURN
 * (default 2,000 connections) and RNIC_CM_KILLS (default 300 killed
 * processes, 100 where a passive side in another process survives them)
 * set the long passes' counts (make stress: 10,000 and 1,000).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <time.h>
#include <rdma/rnic-cm-abi.h>

#include "rnic_test.h"

#define DEV	"t_cm_a"
#define NETDEV	"t_cm0"
#define PORT	7471

FIXTURE(cm) {
	struct rnic_genl *g;
	int srv;	/* the passive side's event channel */
	int cli;	/* the active side's */
};

FIXTURE_SETUP(cm)
{
	rnic_fixture_setup(_metadata, &self->g, NULL, NULL, NULL);
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
	ASSERT_EQ(0, rnic_sh("ip link add " NETDEV " type dummy && "
			     "ip link set " NETDEV " up && "
			     "ip addr add 10.80.0.1/24 dev " NETDEV));
	do_link_add(self->g, DEV, NETDEV);
	self->srv = open(RNIC_CM_DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->srv);
	self->cli = open(RNIC_CM_DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->cli);
}

FIXTURE_TEARDOWN(cm)
{
	close(self->srv);
	close(self->cli);
	rnic_fixture_teardown(_metadata, self->g, NULL);
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
}

static struct rnic_cm_sockaddr cm_sin(const char *ip, int port)
{
	struct rnic_cm_sockaddr a = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&a;

	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	inet_pton(AF_INET, ip, &sin->sin_addr);
	return a;
}

static int cm_port_of(const struct rnic_cm_sockaddr *a)
{
	return ntohs(((const struct sockaddr_in *)a)->sin_port);
}

static int _cm_create_ps(int fd, __u64 uid, __u16 ps, __u32 *id)
{
	struct rnic_cm_create_id c = {
		.size = sizeof(c), .uid = uid, .ps = ps,
		.qp_type = ps == RNIC_CM_PS_TCP ? RNIC_QPT_RC : RNIC_QPT_UD,
	};
	int ret = _rnic_ioctl(fd, RNIC_CM_IOCTL_CREATE_ID, &c);

	*id = c.out_id;
	return ret;
}

static int _cm_create(int fd, __u64 uid, __u32 *id)
{
	return _cm_create_ps(fd, uid, RNIC_CM_PS_TCP, id);
}

static int _cm_bind(int fd, __u32 id, const char *ip, int port)
{
	struct rnic_cm_bind_addr b = {
		.size = sizeof(b), .id = id, .addr = cm_sin(ip, port),
	};

	return _rnic_ioctl(fd, RNIC_CM_IOCTL_BIND_ADDR, &b);
}

static int _cm_listen(int fd, __u32 id, int backlog)
{
	struct rnic_cm_listen l = {
		.size = sizeof(l), .id = id, .backlog = backlog,
	};

	return _rnic_ioctl(fd, RNIC_CM_IOCTL_LISTEN, &l);
}

/* The next event of @fd within 5 s: 0, or -ETIMEDOUT / -errno. */
static int cm_get_event(int fd, struct rnic_cm_get_event *ev)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 5000) != 1)
		return -ETIMEDOUT;
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	return _rnic_ioctl(fd, RNIC_CM_IOCTL_GET_EVENT, ev);
}

#define expect_event(fd, ev, type) do {					\
	ASSERT_EQ(0, cm_get_event(fd, ev));				\
	ASSERT_EQ(type, (ev)->out_event)				\
		TH_LOG("event %u status %d", (ev)->out_event,		\
		       (ev)->out_status);				\
} while (0)

static int _cm_init_qp_attr(int fd, __u32 id, __u32 state,
			    struct rnic_cm_init_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->id = id;
	a->qp_state = state;
	return _rnic_ioctl(fd, RNIC_CM_IOCTL_INIT_QP_ATTR, a);
}

/* An id of @cli, port space @ps, resolved to 10.80.0.1:@port. */
static void cm_resolve(struct __test_metadata *_metadata, int cli,
		       __u32 *active, int port, __u16 ps)
{
	struct rnic_cm_resolve_addr ra = { .size = sizeof(ra) };
	struct rnic_cm_resolve_route rr = { .size = sizeof(rr) };
	struct rnic_cm_get_event ev;

	ASSERT_EQ(0, _cm_create_ps(cli, 200, ps, active));
	ra.id = *active;
	ra.timeout_ms = 2000;
	ra.dst_addr = cm_sin("10.80.0.1", port);
	do_ioctl(cli, RNIC_CM_IOCTL_RESOLVE_ADDR, &ra);
	expect_event(cli, &ev, RNIC_CM_EVENT_ADDR_RESOLVED);
	ASSERT_EQ(200, ev.out_uid);
	ASSERT_EQ(*active, ev.out_id);
	rr.id = *active;
	rr.timeout_ms = 2000;
	do_ioctl(cli, RNIC_CM_IOCTL_RESOLVE_ROUTE, &rr);
	expect_event(cli, &ev, RNIC_CM_EVENT_ROUTE_RESOLVED);
}

/*
 * A listener of port space @ps on PORT of @srv; an id of @cli resolved
 * to @port.
 */
static void cm_prepare_ps(struct __test_metadata *_metadata, int srv,
			  int cli, __u32 *listener, __u32 *active, int port,
			  __u16 ps)
{
	ASSERT_EQ(0, _cm_create_ps(srv, 100, ps, listener));
	ASSERT_EQ(0, _cm_bind(srv, *listener, "10.80.0.1", PORT));
	ASSERT_EQ(0, _cm_listen(srv, *listener, 8));
	cm_resolve(_metadata, cli, active, port, ps);
}

static void cm_prepare(struct __test_metadata *_metadata, int srv, int cli,
		       __u32 *listener, __u32 *active, int port)
{
	cm_prepare_ps(_metadata, srv, cli, listener, active, port,
		      RNIC_CM_PS_TCP);
}

static int _cm_connect(int fd, __u32 id, __u32 qpn, const char *pdata)
{
	struct rnic_cm_connect c = {
		.size = sizeof(c), .id = id,
		.conn = {
			.qp_num = qpn, .responder_resources = 4,
			.initiator_depth = 4, .retry_count = 7,
			.rnr_retry_count = 7,
			.private_data_len = strlen(pdata),
		},
	};

	memcpy(c.conn.private_data, pdata, strlen(pdata));
	return _rnic_ioctl(fd, RNIC_CM_IOCTL_CONNECT, &c);
}

/* The handshake, a transfer's worth of checks, and the disconnect. */
TEST_F(cm, connect_accept_disconnect)
{
	struct rnic_cm_init_qp_attr crtr, crts, srtr, srts;
	struct rnic_cm_accept acc = { .size = sizeof(acc) };
	struct rnic_cm_disconnect dis = { .size = sizeof(dis) };
	struct rnic_cm_query q = { .size = sizeof(q) };
	struct rnic_cm_destroy_id d = { .size = sizeof(d) };
	struct rnic_cm_id_cmd est = { .size = sizeof(est) };
	struct rnic_cm_get_event ev;
	__u32 l, a, p;

	cm_prepare(_metadata, self->srv, self->cli, &l, &a, PORT);
	q.id = a;
	do_ioctl(self->cli, RNIC_CM_IOCTL_QUERY, &q);
	ASSERT_STREQ(DEV, q.out_dev_name);
	ASSERT_EQ(1, q.out_num_paths);
	ASSERT_EQ(1, q.out_port_num);
	ASSERT_NE(0, cm_port_of(&q.out_src_addr));
	ASSERT_EQ(PORT, cm_port_of(&q.out_dst_addr));

	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, "hello"));
	expect_event(self->srv, &ev, RNIC_CM_EVENT_CONNECT_REQUEST);
	ASSERT_EQ(100, ev.out_uid);
	ASSERT_EQ(l, ev.out_listen_id);
	ASSERT_NE(l, ev.out_id);
	ASSERT_EQ(0x111, ev.out_conn.qp_num);
	ASSERT_EQ(4, ev.out_conn.responder_resources);
	ASSERT_EQ(RNIC_CM_REQ_PRIVATE_DATA, ev.out_conn.private_data_len);
	ASSERT_EQ(0, memcmp(ev.out_conn.private_data, "hello", 6));
	p = ev.out_id;
	q.id = p;
	do_ioctl(self->srv, RNIC_CM_IOCTL_QUERY, &q);
	ASSERT_EQ(PORT, cm_port_of(&q.out_src_addr));
	ASSERT_NE(0, cm_port_of(&q.out_dst_addr));

	ASSERT_EQ(0, _cm_init_qp_attr(self->srv, p, RNIC_QPS_RTR, &srtr));
	ASSERT_EQ(0x111, srtr.out_attr.dest_qp_num);
	ASSERT_EQ(4, srtr.out_attr.max_dest_rd_atomic);
	ASSERT_TRUE(srtr.out_attr_mask & RNIC_QP_AV);
	ASSERT_EQ(0, _cm_init_qp_attr(self->srv, p, RNIC_QPS_RTS, &srts));
	acc.id = p;
	acc.uid = 300;
	acc.conn.qp_num = 0x222;
	acc.conn.responder_resources = 2;
	acc.conn.initiator_depth = 2;
	acc.conn.retry_count = 7;
	acc.conn.rnr_retry_count = 7;
	acc.conn.private_data_len = 6;
	memcpy(acc.conn.private_data, "world", 6);
	do_ioctl(self->srv, RNIC_CM_IOCTL_ACCEPT, &acc);

	expect_event(self->cli, &ev, RNIC_CM_EVENT_CONNECT_RESPONSE);
	ASSERT_EQ(0x222, ev.out_conn.qp_num);
	ASSERT_EQ(0, memcmp(ev.out_conn.private_data, "world", 6));
	ASSERT_EQ(0, _cm_init_qp_attr(self->cli, a, RNIC_QPS_RTR, &crtr));
	ASSERT_EQ(0, _cm_init_qp_attr(self->cli, a, RNIC_QPS_RTS, &crts));
	ASSERT_EQ(0x222, crtr.out_attr.dest_qp_num);
	/* each side receives from the PSN the other sends from */
	ASSERT_EQ(crts.out_attr.sq_psn, srtr.out_attr.rq_psn);
	ASSERT_EQ(srts.out_attr.sq_psn, crtr.out_attr.rq_psn);
	/* the peer takes 2 in flight: the client sends no more */
	ASSERT_EQ(2, crts.out_attr.max_rd_atomic);
	ASSERT_EQ(7, crts.out_attr.retry_cnt);
	est.id = a;
	do_ioctl(self->cli, RNIC_CM_IOCTL_ESTABLISH, &est);
	expect_event(self->srv, &ev, RNIC_CM_EVENT_ESTABLISHED);
	ASSERT_EQ(300, ev.out_uid);
	ASSERT_EQ(p, ev.out_id);

	dis.id = a;
	do_ioctl(self->cli, RNIC_CM_IOCTL_DISCONNECT, &dis);
	expect_event(self->srv, &ev, RNIC_CM_EVENT_DISCONNECTED);
	dis.id = p;
	do_ioctl(self->srv, RNIC_CM_IOCTL_DISCONNECT, &dis);
	expect_event(self->cli, &ev, RNIC_CM_EVENT_DISCONNECTED);
	/* a second disconnect has nothing to end: no error (rdma_cm's) */
	do_ioctl(self->srv, RNIC_CM_IOCTL_DISCONNECT, &dis);
	expect_event(self->cli, &ev, RNIC_CM_EVENT_TIMEWAIT_EXIT);
	expect_event(self->srv, &ev, RNIC_CM_EVENT_TIMEWAIT_EXIT);

	d.id = a;
	do_ioctl(self->cli, RNIC_CM_IOCTL_DESTROY_ID, &d);
	ASSERT_EQ(5, d.out_events_reported);
	d.id = p;
	do_ioctl(self->srv, RNIC_CM_IOCTL_DESTROY_ID, &d);
	ASSERT_EQ(4, d.out_events_reported);
	do_err_ioctl(ENOENT, self->srv, RNIC_CM_IOCTL_DESTROY_ID, &d);
}

TEST_F(cm, reject_with_private_data)
{
	struct rnic_cm_reject rej = { .size = sizeof(rej) };
	struct rnic_cm_get_event ev;
	__u32 l, a;

	cm_prepare(_metadata, self->srv, self->cli, &l, &a, PORT);
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, "hi"));
	expect_event(self->srv, &ev, RNIC_CM_EVENT_CONNECT_REQUEST);
	rej.id = ev.out_id;
	rej.private_data_len = 3;
	memcpy(rej.private_data, "no", 3);
	do_ioctl(self->srv, RNIC_CM_IOCTL_REJECT, &rej);
	expect_event(self->cli, &ev, RNIC_CM_EVENT_REJECTED);
	ASSERT_EQ(RNIC_CM_REJ_CONSUMER_DEFINED, ev.out_status);
	ASSERT_EQ(0, memcmp(ev.out_conn.private_data, "no", 3));
	/* too much private data for a REJ */
	rej.private_data_len = RNIC_CM_REJ_PRIVATE_DATA + 1;
	do_err_ioctl(EINVAL, self->srv, RNIC_CM_IOCTL_REJECT, &rej);
}

TEST_F(cm, no_listener_is_rejected)
{
	struct rnic_cm_get_event ev;
	__u32 l, a;

	cm_prepare(_metadata, self->srv, self->cli, &l, &a, PORT + 1);
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, ""));
	expect_event(self->cli, &ev, RNIC_CM_EVENT_REJECTED);
	ASSERT_EQ(RNIC_CM_REJ_INVALID_SERVICE_ID, ev.out_status);
}

TEST_F(cm, backlog_full_is_rejected)
{
	struct rnic_cm_resolve_addr ra = { .size = sizeof(ra) };
	struct rnic_cm_resolve_route rr = { .size = sizeof(rr) };
	struct rnic_cm_get_event ev;
	__u32 l, a, b;

	cm_prepare(_metadata, self->srv, self->cli, &l, &a, PORT);
	ASSERT_EQ(0, _cm_listen(self->srv, l, 1));
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, ""));
	expect_event(self->srv, &ev, RNIC_CM_EVENT_CONNECT_REQUEST);
	ASSERT_EQ(0, _cm_create(self->cli, 201, &b));
	ra.id = b;
	ra.dst_addr = cm_sin("10.80.0.1", PORT);
	do_ioctl(self->cli, RNIC_CM_IOCTL_RESOLVE_ADDR, &ra);
	expect_event(self->cli, &ev, RNIC_CM_EVENT_ADDR_RESOLVED);
	rr.id = b;
	do_ioctl(self->cli, RNIC_CM_IOCTL_RESOLVE_ROUTE, &rr);
	expect_event(self->cli, &ev, RNIC_CM_EVENT_ROUTE_RESOLVED);
	ASSERT_EQ(0, _cm_connect(self->cli, b, 0x112, ""));
	expect_event(self->cli, &ev, RNIC_CM_EVENT_REJECTED);
	ASSERT_EQ(b, ev.out_id);
	ASSERT_EQ(RNIC_CM_REJ_CONSUMER_DEFINED, ev.out_status);
}

/* Closing a channel disconnects its connections: the peer is told. */
TEST_F(cm, close_disconnects_the_peer)
{
	struct rnic_cm_accept acc = { .size = sizeof(acc) };
	struct rnic_cm_id_cmd est = { .size = sizeof(est) };
	struct rnic_cm_get_event ev;
	__u32 l, a;

	cm_prepare(_metadata, self->srv, self->cli, &l, &a, PORT);
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, ""));
	expect_event(self->srv, &ev, RNIC_CM_EVENT_CONNECT_REQUEST);
	acc.id = ev.out_id;
	acc.conn.qp_num = 0x222;
	do_ioctl(self->srv, RNIC_CM_IOCTL_ACCEPT, &acc);
	expect_event(self->cli, &ev, RNIC_CM_EVENT_CONNECT_RESPONSE);
	est.id = a;
	do_ioctl(self->cli, RNIC_CM_IOCTL_ESTABLISH, &est);
	expect_event(self->srv, &ev, RNIC_CM_EVENT_ESTABLISHED);
	close(self->cli);
	self->cli = open(RNIC_CM_DEV_PATH, O_RDWR | O_CLOEXEC);
	expect_event(self->srv, &ev, RNIC_CM_EVENT_DISCONNECTED);
}

/*
 * The active side goes before the request is answered: its REJ
 * (timeout, its CA GUID in the ARI, as the IB CM sends it) makes the
 * request's id REJECTED, and accepting it is too late.
 */
TEST_F(cm, active_gone_before_the_answer)
{
	struct rnic_cm_accept acc = { .size = sizeof(acc) };
	struct rnic_cm_destroy_id d = { .size = sizeof(d) };
	struct rnic_cm_get_event ev;
	__u32 l, a;

	cm_prepare(_metadata, self->srv, self->cli, &l, &a, PORT);
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, ""));
	expect_event(self->srv, &ev, RNIC_CM_EVENT_CONNECT_REQUEST);
	acc.id = ev.out_id;
	d.id = a;
	do_ioctl(self->cli, RNIC_CM_IOCTL_DESTROY_ID, &d);
	expect_event(self->srv, &ev, RNIC_CM_EVENT_REJECTED);
	ASSERT_EQ(acc.id, ev.out_id);
	ASSERT_EQ(RNIC_CM_REJ_TIMEOUT, ev.out_status);
	acc.conn.qp_num = 0x222;
	do_err_ioctl(EINVAL, self->srv, RNIC_CM_IOCTL_ACCEPT, &acc);
}

/* UD ids: SIDR_REQ and SIDR_REP give the client the server's QP. */
TEST_F(cm, ud_sidr)
{
	struct rnic_cm_accept acc = { .size = sizeof(acc) };
	const __u8 gid[16] = { [10] = 0xff, [11] = 0xff, 10, 80, 0, 1 };
	struct rnic_cm_init_qp_attr qa;
	struct rnic_cm_get_event ev;
	__u32 l, a;

	cm_prepare_ps(_metadata, self->srv, self->cli, &l, &a, PORT,
		      RNIC_CM_PS_UDP);
	ASSERT_EQ(0, _cm_init_qp_attr(self->cli, a, RNIC_QPS_INIT, &qa));
	ASSERT_EQ(RNIC_CM_UDP_QKEY, qa.out_attr.qkey);
	ASSERT_TRUE(qa.out_attr_mask & RNIC_QP_QKEY);
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, "ud hello"));
	expect_event(self->srv, &ev, RNIC_CM_EVENT_CONNECT_REQUEST);
	ASSERT_EQ(l, ev.out_listen_id);
	ASSERT_EQ(0, memcmp(ev.out_conn.private_data, "ud hello", 9));
	ASSERT_EQ(RNIC_CM_SIDR_REQ_PRIVATE_DATA,
		  ev.out_conn.private_data_len);
	acc.id = ev.out_id;
	acc.conn.qp_num = 0x333;
	acc.conn.private_data_len = 3;
	memcpy(acc.conn.private_data, "ok", 3);
	do_ioctl(self->srv, RNIC_CM_IOCTL_ACCEPT, &acc);
	expect_event(self->cli, &ev, RNIC_CM_EVENT_ESTABLISHED);
	ASSERT_EQ(0x333, ev.out_ud.qp_num);
	ASSERT_EQ(RNIC_CM_UDP_QKEY, ev.out_ud.qkey);
	ASSERT_EQ(0, memcmp(ev.out_ud.ah_attr.dgid, gid, 16));
	ASSERT_EQ(1, ev.out_ud.ah_attr.is_global);
	ASSERT_EQ(0, memcmp(ev.out_conn.private_data, "ok", 3));
}

/* A SIDR_REQ nobody listens for: UNREACHABLE, SIDR status 1. */
TEST_F(cm, ud_sidr_no_listener)
{
	struct rnic_cm_get_event ev;
	__u32 l, a;

	cm_prepare_ps(_metadata, self->srv, self->cli, &l, &a, PORT + 1,
		      RNIC_CM_PS_UDP);
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, ""));
	expect_event(self->cli, &ev, RNIC_CM_EVENT_UNREACHABLE);
	ASSERT_EQ(1, ev.out_status);
}

TEST_F(cm, ud_sidr_reject)
{
	struct rnic_cm_reject rej = { .size = sizeof(rej) };
	struct rnic_cm_get_event ev;
	__u32 l, a;

	cm_prepare_ps(_metadata, self->srv, self->cli, &l, &a, PORT,
		      RNIC_CM_PS_UDP);
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, ""));
	expect_event(self->srv, &ev, RNIC_CM_EVENT_CONNECT_REQUEST);
	rej.id = ev.out_id;
	rej.private_data_len = RNIC_CM_SIDR_REP_PRIVATE_DATA + 1;
	do_err_ioctl(EINVAL, self->srv, RNIC_CM_IOCTL_REJECT, &rej);
	rej.private_data_len = 4;
	memcpy(rej.private_data, "bye", 4);
	do_ioctl(self->srv, RNIC_CM_IOCTL_REJECT, &rej);
	expect_event(self->cli, &ev, RNIC_CM_EVENT_UNREACHABLE);
	ASSERT_EQ(2, ev.out_status);
	ASSERT_EQ(0, memcmp(ev.out_conn.private_data, "bye", 4));
}

/* One event of @fd within 5 s, of @type: 0 or -1. */
static int cm_want(int fd, __u32 type, __u32 *id)
{
	struct rnic_cm_get_event ev;

	if (cm_get_event(fd, &ev) || ev.out_event != type)
		return -1;
	if (id)
		*id = ev.out_id;
	return 0;
}

static int _cm_id_cmd(int fd, unsigned long cmd, __u32 id)
{
	struct rnic_cm_disconnect d = { .size = sizeof(d), .id = id };

	/* struct rnic_cm_id_cmd is struct rnic_cm_disconnect's start */
	if (cmd == RNIC_CM_IOCTL_ESTABLISH)
		d.size = sizeof(struct rnic_cm_id_cmd);
	return _rnic_ioctl(fd, cmd, &d);
}

static int _cm_destroy(int fd, __u32 id)
{
	struct rnic_cm_destroy_id d = { .size = sizeof(d), .id = id };

	return _rnic_ioctl(fd, RNIC_CM_IOCTL_DESTROY_ID, &d);
}

/*
 * A QP number for a connection: the CM rejects a QP number whose last
 * connection may still have packets in flight (stale), so each of a
 * process's connections names new ones, as real QPs would.
 */
static __u32 cm_qpn(void)
{
	static __u32 n;

	return (getpid() & 0xfff) << 12 | (n++ & 0xfff);
}

/*
 * A whole connection's life to listener port @port of @srv from @cli:
 * resolve, connect, accept, establish, disconnect (both), destroy.
 * Return: 0, or -1 at the first step that went wrong.
 */
static int cm_cycle(int srv, int cli, int port)
{
	struct rnic_cm_resolve_addr ra = { .size = sizeof(ra) };
	struct rnic_cm_resolve_route rr = { .size = sizeof(rr) };
	struct rnic_cm_accept acc = { .size = sizeof(acc) };
	__u32 a, p;

	if (_cm_create(cli, 7, &a))
		return -1;
	ra.id = a;
	ra.dst_addr = cm_sin("10.80.0.1", port);
	rr.id = a;
	acc.conn.qp_num = cm_qpn();
	if (_rnic_ioctl(cli, RNIC_CM_IOCTL_RESOLVE_ADDR, &ra) ||
	    cm_want(cli, RNIC_CM_EVENT_ADDR_RESOLVED, NULL) ||
	    _rnic_ioctl(cli, RNIC_CM_IOCTL_RESOLVE_ROUTE, &rr) ||
	    cm_want(cli, RNIC_CM_EVENT_ROUTE_RESOLVED, NULL) ||
	    _cm_connect(cli, a, cm_qpn(), "x") ||
	    cm_want(srv, RNIC_CM_EVENT_CONNECT_REQUEST, &p))
		return -1;
	acc.id = p;
	if (_rnic_ioctl(srv, RNIC_CM_IOCTL_ACCEPT, &acc) ||
	    cm_want(cli, RNIC_CM_EVENT_CONNECT_RESPONSE, NULL) ||
	    _cm_id_cmd(cli, RNIC_CM_IOCTL_ESTABLISH, a) ||
	    cm_want(srv, RNIC_CM_EVENT_ESTABLISHED, NULL) ||
	    _cm_id_cmd(cli, RNIC_CM_IOCTL_DISCONNECT, a) ||
	    cm_want(srv, RNIC_CM_EVENT_DISCONNECTED, NULL) ||
	    _cm_id_cmd(srv, RNIC_CM_IOCTL_DISCONNECT, p) ||
	    cm_want(cli, RNIC_CM_EVENT_DISCONNECTED, NULL))
		return -1;
	/* in time wait: destroying ends it */
	return _cm_destroy(cli, a) || _cm_destroy(srv, p) ? -1 : 0;
}

/* A count from the environment (make stress), or @def. */
static int cm_count(const char *var, int def)
{
	const char *v = getenv(var);

	return v && atoi(v) > 0 ? atoi(v) : def;
}

/* Many connections, one after the other, with nothing left behind. */
TEST_F(cm, churn)
{
	__u32 l;
	int i;

	ASSERT_EQ(0, _cm_create(self->srv, 1, &l));
	ASSERT_EQ(0, _cm_bind(self->srv, l, "10.80.0.1", PORT));
	ASSERT_EQ(0, _cm_listen(self->srv, l, 8));
	for (i = 0; i < cm_count("RNIC_CM_CHURN", 2000); i++)
		ASSERT_EQ(0, cm_cycle(self->srv, self->cli, PORT))
			TH_LOG("cycle %d", i);
}

/* The child: both sides of connections, one after the other, forever. */
static void cm_churn_child(void *arg)
{
	int srv = open(RNIC_CM_DEV_PATH, O_RDWR);
	int cli = open(RNIC_CM_DEV_PATH, O_RDWR);
	int port = *(int *)arg + getpid() % 1000;
	__u32 l;

	if (srv < 0 || cli < 0 || _cm_create(srv, 1, &l) ||
	    _cm_bind(srv, l, "10.80.0.1", port) || _cm_listen(srv, l, 8))
		return;
	while (!cm_cycle(srv, cli, port))
		;
}

/*
 * Processes killed at any point of the handshake leave nothing behind
 * (the unload's leak check counts the ids) and break nothing: a
 * connection afterwards works.
 */
TEST_F(cm, killed_mid_handshake)
{
	int base = 20000;
	__u32 l;

	rnic_kill_at_random(_metadata, cm_count("RNIC_CM_KILLS", 300), 30000,
			    cm_churn_child, &base);
	ASSERT_EQ(0, _cm_create(self->srv, 1, &l));
	ASSERT_EQ(0, _cm_bind(self->srv, l, "10.80.0.1", PORT));
	ASSERT_EQ(0, _cm_listen(self->srv, l, 8));
	ASSERT_EQ(0, cm_cycle(self->srv, self->cli, PORT));
}

/*
 * Connect a new id of @cli (resolved to PORT, local ACK timeout code 18:
 * a time wait of 2.1 s) from QP @qpa to QP @qpb of a request of @srv's
 * listener; both established. Return: 0 or -1.
 */
static int cm_connection(int srv, int cli, __u32 qpa, __u32 qpb, __u32 *a,
			 __u32 *p)
{
	struct rnic_cm_resolve_addr ra = { .size = sizeof(ra) };
	struct rnic_cm_resolve_route rr = { .size = sizeof(rr) };
	struct rnic_cm_set_option o = {
		.size = sizeof(o), .level = RNIC_CM_OPTION_ID,
		.optname = RNIC_CM_OPTION_ID_ACK_TIMEOUT, .value = 18,
	};
	struct rnic_cm_accept acc = { .size = sizeof(acc) };

	if (_cm_create(cli, 7, a))
		return -1;
	ra.id = rr.id = o.id = *a;
	ra.dst_addr = cm_sin("10.80.0.1", PORT);
	if (_rnic_ioctl(cli, RNIC_CM_IOCTL_SET_OPTION, &o) ||
	    _rnic_ioctl(cli, RNIC_CM_IOCTL_RESOLVE_ADDR, &ra) ||
	    cm_want(cli, RNIC_CM_EVENT_ADDR_RESOLVED, NULL) ||
	    _rnic_ioctl(cli, RNIC_CM_IOCTL_RESOLVE_ROUTE, &rr) ||
	    cm_want(cli, RNIC_CM_EVENT_ROUTE_RESOLVED, NULL) ||
	    _cm_connect(cli, *a, qpa, "") ||
	    cm_want(srv, RNIC_CM_EVENT_CONNECT_REQUEST, p))
		return -1;
	acc.id = *p;
	acc.conn.qp_num = qpb;
	return _rnic_ioctl(srv, RNIC_CM_IOCTL_ACCEPT, &acc) ||
	       cm_want(cli, RNIC_CM_EVENT_CONNECT_RESPONSE, NULL) ||
	       _cm_id_cmd(cli, RNIC_CM_IOCTL_ESTABLISH, *a) ||
	       cm_want(srv, RNIC_CM_EVENT_ESTABLISHED, NULL) ? -1 : 0;
}

/*
 * The next two events of @fd are @type1 (status @status1) for @id1 and
 * @type2 for @id2, in either order (the CM handles two MADs in the order
 * its workqueue runs them). Return: 0 or -1.
 */
static int cm_want_two(int fd, __u32 type1, int status1, __u32 id1,
		       __u32 type2, __u32 id2)
{
	struct rnic_cm_get_event ev;
	bool one = false, two = false;
	int i;

	for (i = 0; i < 2; i++) {
		if (cm_get_event(fd, &ev))
			return -1;
		if (!one && ev.out_event == type1 && ev.out_id == id1 &&
		    ev.out_status == status1)
			one = true;
		else if (!two && ev.out_event == type2 && ev.out_id == id2)
			two = true;
	}
	return one && two ? 0 : -1;
}

/*
 * A connection from a QP that a connection of the passive side has, or
 * had within its time wait, is stale (IB CM): the REQ is REJECTED with
 * reason 10 and the established connection that has the QP ends (a
 * DREQ), as the kernel's IB CM answers a peer that restarted. Destroying
 * the ids does not end the time wait; after it the QP connects again. A
 * REP from a QP the active side has a connection with is rejected the
 * same way.
 */
TEST_F(cm, stale_connection)
{
	struct rnic_cm_get_event ev;
	__u32 l, a, b, p, q;

	ASSERT_EQ(0, _cm_create(self->srv, 100, &l));
	ASSERT_EQ(0, _cm_bind(self->srv, l, "10.80.0.1", PORT));
	ASSERT_EQ(0, _cm_listen(self->srv, l, 8));
	ASSERT_EQ(0, cm_connection(self->srv, self->cli, 0x111, 0x222, &a, &p));

	/* QP 0x111 again: rejected, and its connection ends */
	cm_resolve(_metadata, self->cli, &b, PORT, RNIC_CM_PS_TCP);
	ASSERT_EQ(0, _cm_connect(self->cli, b, 0x111, ""));
	ASSERT_EQ(0, cm_want_two(self->cli, RNIC_CM_EVENT_REJECTED,
				 RNIC_CM_REJ_STALE_CONN, b,
				 RNIC_CM_EVENT_DISCONNECTED, a));
	ASSERT_EQ(0, _cm_id_cmd(self->cli, RNIC_CM_IOCTL_DISCONNECT, a));
	expect_event(self->srv, &ev, RNIC_CM_EVENT_DISCONNECTED);
	ASSERT_EQ(p, ev.out_id);
	ASSERT_EQ(0, _cm_destroy(self->cli, a));
	ASSERT_EQ(0, _cm_destroy(self->cli, b));
	ASSERT_EQ(0, _cm_destroy(self->srv, p));

	/* the ids are gone, the time wait (2.1 s) is not */
	cm_resolve(_metadata, self->cli, &b, PORT, RNIC_CM_PS_TCP);
	ASSERT_EQ(0, _cm_connect(self->cli, b, 0x111, ""));
	expect_event(self->cli, &ev, RNIC_CM_EVENT_REJECTED);
	ASSERT_EQ(RNIC_CM_REJ_STALE_CONN, ev.out_status);
	ASSERT_EQ(0, _cm_destroy(self->cli, b));
	usleep(2500000);
	ASSERT_EQ(0, cm_connection(self->srv, self->cli, 0x111, 0x222, &a, &p));

	/* a REP from QP 0x222, which the active side is connected to */
	cm_resolve(_metadata, self->cli, &b, PORT, RNIC_CM_PS_TCP);
	ASSERT_EQ(0, _cm_connect(self->cli, b, 0x113, ""));
	ASSERT_EQ(0, cm_want(self->srv, RNIC_CM_EVENT_CONNECT_REQUEST, &q));
	{
		struct rnic_cm_accept acc = { .size = sizeof(acc), .id = q };

		acc.conn.qp_num = 0x222;
		do_ioctl(self->srv, RNIC_CM_IOCTL_ACCEPT, &acc);
	}
	expect_event(self->cli, &ev, RNIC_CM_EVENT_REJECTED);
	ASSERT_EQ(b, ev.out_id);
	ASSERT_EQ(RNIC_CM_REJ_STALE_CONN, ev.out_status);
	/* the REJ of the REP, and the DREQ of the old connection */
	ASSERT_EQ(0, cm_want_two(self->srv, RNIC_CM_EVENT_CONNECT_ERROR,
				 -ECONNRESET, q, RNIC_CM_EVENT_DISCONNECTED, p));
}

/*
 * The netdev's hardware address changes: ADDR_CHANGE on the ids of its
 * device (a listener bound to its address, a connection's two ids), as
 * the kernel's rdma_cm tells the ids of a bond that failed over; the
 * connection goes on.
 */
TEST_F(cm, addr_change)
{
	struct rnic_cm_get_event ev;
	__u32 l, a, p;

	ASSERT_EQ(0, _cm_create(self->srv, 100, &l));
	ASSERT_EQ(0, _cm_bind(self->srv, l, "10.80.0.1", PORT));
	ASSERT_EQ(0, _cm_listen(self->srv, l, 8));
	ASSERT_EQ(0, cm_connection(self->srv, self->cli, cm_qpn(), cm_qpn(),
				   &a, &p));
	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " address 02:00:00:80:00:01"));
	expect_event(self->cli, &ev, RNIC_CM_EVENT_ADDR_CHANGE);
	ASSERT_EQ(a, ev.out_id);
	ASSERT_EQ(0, cm_want_two(self->srv, RNIC_CM_EVENT_ADDR_CHANGE, 0, l,
				 RNIC_CM_EVENT_ADDR_CHANGE, p));
	ASSERT_EQ(0, _cm_id_cmd(self->cli, RNIC_CM_IOCTL_DISCONNECT, a));
	expect_event(self->srv, &ev, RNIC_CM_EVENT_DISCONNECTED);
	ASSERT_EQ(p, ev.out_id);
}

/* The active side of connections to @port, one after the other, forever. */
static void cm_client_child(void *arg)
{
	int cli = open(RNIC_CM_DEV_PATH, O_RDWR);
	int port = *(int *)arg;

	if (cli < 0)
		return;
	for (;;) {
		struct rnic_cm_resolve_addr ra = { .size = sizeof(ra) };
		struct rnic_cm_resolve_route rr = { .size = sizeof(rr) };
		__u32 a;

		if (_cm_create(cli, 7, &a))
			return;
		ra.id = rr.id = a;
		ra.dst_addr = cm_sin("10.80.0.1", port);
		if (_rnic_ioctl(cli, RNIC_CM_IOCTL_RESOLVE_ADDR, &ra) ||
		    cm_want(cli, RNIC_CM_EVENT_ADDR_RESOLVED, NULL) ||
		    _rnic_ioctl(cli, RNIC_CM_IOCTL_RESOLVE_ROUTE, &rr) ||
		    cm_want(cli, RNIC_CM_EVENT_ROUTE_RESOLVED, NULL) ||
		    _cm_connect(cli, a, cm_qpn(), "") ||
		    cm_want(cli, RNIC_CM_EVENT_CONNECT_RESPONSE, NULL) ||
		    _cm_id_cmd(cli, RNIC_CM_IOCTL_ESTABLISH, a))
			return;
		usleep(rand() % 2000);
		if (_cm_id_cmd(cli, RNIC_CM_IOCTL_DISCONNECT, a) ||
		    cm_want(cli, RNIC_CM_EVENT_DISCONNECTED, NULL) ||
		    _cm_destroy(cli, a))
			return;
	}
}

/* The survivor's ids, by handle: alive or not */
#define CM_SURVIVOR_IDS	4096

static long cm_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * The passive side that survives: accepts every request on @port and
 * answers every event until @stop is readable, then until each of its
 * ids has ended, each with an event that ends it where it was: REJECTED
 * (a request the peer gave up on), CONNECT_ERROR (accepted, the peer
 * gone), or DISCONNECTED and then TIMEWAIT_EXIT. Exit status 0 if every
 * id ended within 10 s of @stop and no other event came.
 */
static int cm_survivor(int port, int stop)
{
	static bool alive[CM_SURVIVOR_IDS];
	int fd = open(RNIC_CM_DEV_PATH, O_RDWR);
	int n = 0, ended[RNIC_CM_EVENT_TIMEWAIT_EXIT + 1] = { 0 };
	long deadline = 0;
	__u32 l;

	if (fd < 0 || _cm_create(fd, 1, &l) ||
	    _cm_bind(fd, l, "10.80.0.1", port) || _cm_listen(fd, l, 64))
		return 1;
	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = stop, .events = POLLIN } };
		struct rnic_cm_accept acc = { .size = sizeof(acc) };
		struct rnic_cm_get_event ev = { .size = sizeof(ev) };

		if (!deadline && poll(&p[1], 1, 0) == 1)
			deadline = cm_now_ms() + 10000;
		if (deadline && !n)
			break;
		if (deadline && cm_now_ms() > deadline) {
			printf("# survivor: %d ids never ended\n", n);
			fflush(stdout);
			return 1;
		}
		if (poll(p, 1, 100) != 1)
			continue;
		if (_rnic_ioctl(fd, RNIC_CM_IOCTL_GET_EVENT, &ev) ||
		    ev.out_id >= CM_SURVIVOR_IDS)
			return 1;
		switch (ev.out_event) {
		case RNIC_CM_EVENT_CONNECT_REQUEST:
			alive[ev.out_id] = true;
			n++;
			acc.id = ev.out_id;
			acc.conn.qp_num = cm_qpn();
			/* EINVAL: the requester gave up already (REJECTED) */
			_rnic_ioctl(fd, RNIC_CM_IOCTL_ACCEPT, &acc);
			break;
		case RNIC_CM_EVENT_ESTABLISHED:
			break;
		case RNIC_CM_EVENT_DISCONNECTED:
			if (_cm_id_cmd(fd, RNIC_CM_IOCTL_DISCONNECT, ev.out_id))
				return 1;
			ended[ev.out_event]++;
			break;
		case RNIC_CM_EVENT_REJECTED:
		case RNIC_CM_EVENT_CONNECT_ERROR:
		case RNIC_CM_EVENT_TIMEWAIT_EXIT:
			if (!alive[ev.out_id] || _cm_destroy(fd, ev.out_id))
				return 1;
			alive[ev.out_id] = false;
			n--;
			ended[ev.out_event]++;
			break;
		default:
			fprintf(stderr, "# survivor: event %u status %d\n",
				ev.out_event, ev.out_status);
			return 1;
		}
	}
	printf("# survivor: %d rejected, %d connect errors, %d disconnected, %d time waits over\n",
	       ended[RNIC_CM_EVENT_REJECTED],
	       ended[RNIC_CM_EVENT_CONNECT_ERROR],
	       ended[RNIC_CM_EVENT_DISCONNECTED],
	       ended[RNIC_CM_EVENT_TIMEWAIT_EXIT]);
	fflush(stdout);	/* the child ends with _exit() */
	return 0;
}

/*
 * Active sides killed at random points of their connections (their
 * channel's release ends what they had as the IB CM does): the passive
 * side that survives gets, for each of its ids, the event that ends it
 * (cm_survivor()) in seconds, not after the MAD retries run out.
 */
TEST_F(cm, killed_peer_survivor_told)
{
	int port = PORT + 60, stop[2], status;
	pid_t srv;

	ASSERT_EQ(0, pipe(stop));
	srv = fork();
	ASSERT_LE(0, srv);
	if (srv == 0) {
		close(stop[1]);
		_exit(cm_survivor(port, stop[0]));
	}
	close(stop[0]);
	usleep(300000);	/* the listener */
	rnic_kill_at_random(_metadata, cm_count("RNIC_CM_KILLS", 100), 30000,
			    cm_client_child, &port);
	close(stop[1]);
	ASSERT_EQ(srv, waitpid(srv, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

static void cm_params(int timeout_ms, int retries)
{
	rnic_put_file("/sys/module/rnic/parameters/cm_timeout_ms", "%d",
		      timeout_ms);
	rnic_put_file("/sys/module/rnic/parameters/cm_retries", "%d",
		      retries);
}

static int cm_drop(struct rnic_genl *g, uint32_t ppm)
{
	struct rnic_link_fault f = { .has = 1u << RNIC_NL_FAULT_DROP };

	f.val[RNIC_NL_FAULT_DROP] = ppm;
	return rnic_link_set_fault(g, DEV, &f);
}

/*
 * A lost REQ is sent again after the response timeout; a peer that
 * never answers is UNREACHABLE (-ETIMEDOUT) after the retries.
 */
TEST_F(cm, lost_mads)
{
	struct rnic_cm_get_event ev;
	__u32 l, a;

	cm_params(300, 2);
	cm_prepare(_metadata, self->srv, self->cli, &l, &a, PORT);
	ASSERT_EQ(0, cm_drop(self->g, 1000000));
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, ""));
	usleep(100000);
	ASSERT_EQ(0, cm_drop(self->g, 0));
	/* the second REQ gets through */
	expect_event(self->srv, &ev, RNIC_CM_EVENT_CONNECT_REQUEST);

	ASSERT_EQ(0, _cm_destroy(self->cli, a));
	cm_resolve(_metadata, self->cli, &a, PORT, RNIC_CM_PS_TCP);
	ASSERT_EQ(0, cm_drop(self->g, 1000000));
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, ""));
	/* three REQs, 300 ms apart, then the give-up */
	expect_event(self->cli, &ev, RNIC_CM_EVENT_UNREACHABLE);
	ASSERT_EQ(-ETIMEDOUT, ev.out_status);
	cm_params(4295, 15);
}

/* A device that goes away: DEVICE_REMOVAL on both sides' ids. */
TEST_F(cm, device_removal)
{
	struct rnic_cm_get_event ev;
	__u32 l, a, p;

	cm_prepare(_metadata, self->srv, self->cli, &l, &a, PORT);
	ASSERT_EQ(0, _cm_connect(self->cli, a, 0x111, ""));
	expect_event(self->srv, &ev, RNIC_CM_EVENT_CONNECT_REQUEST);
	p = ev.out_id;
	ASSERT_EQ(0, rnic_link_del(self->g, DEV));
	expect_event(self->cli, &ev, RNIC_CM_EVENT_DEVICE_REMOVAL);
	ASSERT_EQ(a, ev.out_id);
	/* the listener, bound to the device's address, and the request */
	expect_event(self->srv, &ev, RNIC_CM_EVENT_DEVICE_REMOVAL);
	ASSERT_EQ(l, ev.out_id);
	expect_event(self->srv, &ev, RNIC_CM_EVENT_DEVICE_REMOVAL);
	ASSERT_EQ(p, ev.out_id);
	ASSERT_EQ(0, _cm_destroy(self->cli, a));
	ASSERT_EQ(0, _cm_destroy(self->srv, p));
	ASSERT_EQ(0, _cm_destroy(self->srv, l));
}

static int _cm_mcast(int fd, unsigned long cmd, __u32 id, const char *ip,
		     __u32 join_flags, __u64 uid)
{
	struct rnic_cm_join_mcast j = {
		.size = sizeof(j), .id = id, .join_flags = join_flags,
		.uid = uid, .addr = cm_sin(ip, 0),
	};

	return _rnic_ioctl(fd, cmd, &j);
}

#define JOIN RNIC_CM_IOCTL_JOIN_MCAST
#define LEAVE RNIC_CM_IOCTL_LEAVE_MCAST
#define FULL RNIC_CM_MC_JOIN_FULLMEMBER

/* RoCE multicast: the group's GID is its address; joined at once. */
TEST_F(cm, multicast_join_leave)
{
	const __u8 mgid[16] = { [10] = 0xff, [11] = 0xff, 239, 80, 0, 1 };
	struct rnic_cm_get_event ev;
	__u32 u, r;

	ASSERT_EQ(0, _cm_create_ps(self->cli, 5, RNIC_CM_PS_UDP, &u));
	/* not on a device yet */
	ASSERT_EQ(-EINVAL, _cm_mcast(self->cli, JOIN, u, "239.80.0.1", FULL,
				     77));
	ASSERT_EQ(0, _cm_bind(self->cli, u, "10.80.0.1", 0));
	ASSERT_EQ(0, _cm_mcast(self->cli, JOIN, u, "239.80.0.1", FULL, 77));
	expect_event(self->cli, &ev, RNIC_CM_EVENT_MULTICAST_JOIN);
	ASSERT_EQ(77, ev.out_uid);
	ASSERT_EQ(u, ev.out_id);
	ASSERT_EQ(0xffffff, ev.out_ud.qp_num);
	ASSERT_EQ(RNIC_CM_UDP_QKEY, ev.out_ud.qkey);
	ASSERT_EQ(0, memcmp(ev.out_ud.ah_attr.dgid, mgid, 16));
	ASSERT_EQ(-EADDRINUSE, _cm_mcast(self->cli, JOIN, u, "239.80.0.1",
					 FULL, 78));
	ASSERT_EQ(-EINVAL, _cm_mcast(self->cli, JOIN, u, "10.80.0.9", FULL,
				     78));
	ASSERT_EQ(-EOPNOTSUPP, _cm_mcast(self->cli, JOIN, u, "239.80.0.2",
					 0x2, 78));
	ASSERT_EQ(0, _cm_mcast(self->cli, LEAVE, u, "239.80.0.1", 0, 0));
	ASSERT_EQ(-EADDRNOTAVAIL, _cm_mcast(self->cli, LEAVE, u,
					    "239.80.0.1", 0, 0));
	/* joined at destroy: left */
	ASSERT_EQ(0, _cm_mcast(self->cli, JOIN, u, "239.80.0.3",
			       RNIC_CM_MC_JOIN_SENDONLY_FULLMEMBER, 79));
	ASSERT_EQ(0, _cm_destroy(self->cli, u));
	/* an RC id has no groups */
	ASSERT_EQ(0, _cm_create(self->cli, 6, &r));
	ASSERT_EQ(0, _cm_bind(self->cli, r, "10.80.0.1", 0));
	ASSERT_EQ(-EINVAL, _cm_mcast(self->cli, JOIN, r, "239.80.0.1", FULL,
				     1));
}

TEST_F(cm, abi_errors)
{
	struct rnic_cm_bind_addr b = { .size = sizeof(b) };
	struct rnic_cm_create_id c = { .size = sizeof(c) };
	struct rnic_cm_get_event ev = { .size = sizeof(ev) };
	struct rnic_cm_init_qp_attr qa;
	__u32 x, y;
	int fl;

	ASSERT_EQ(0, _cm_create(self->srv, 1, &x));
	ASSERT_EQ(0, _cm_create(self->cli, 2, &y));
	/* a port taken on one address; an address no device has */
	ASSERT_EQ(0, _cm_bind(self->srv, x, "10.80.0.1", PORT));
	ASSERT_EQ(-EADDRINUSE, _cm_bind(self->cli, y, "0.0.0.0", PORT));
	ASSERT_EQ(-EADDRNOTAVAIL, _cm_bind(self->cli, y, "10.99.0.1", PORT));
	b.id = y;
	b.addr = cm_sin("10.80.0.1", PORT + 3);
	memcpy(&b.addr, &(sa_family_t){ AF_UNIX }, sizeof(sa_family_t));
	do_err_ioctl(EINVAL, self->cli, RNIC_CM_IOCTL_BIND_ADDR, &b);
	/* bound already */
	ASSERT_EQ(-EINVAL, _cm_bind(self->srv, x, "10.80.0.1", PORT + 2));
	/* handles are the file's */
	ASSERT_EQ(-ENOENT, _cm_listen(self->cli, x + 100, 1));
	/* a TCP id is RC */
	c.ps = RNIC_CM_PS_TCP;
	c.qp_type = RNIC_QPT_UD;
	do_err_ioctl(EINVAL, self->srv, RNIC_CM_IOCTL_CREATE_ID, &c);
	/* an id that never connected has nothing to disconnect */
	ASSERT_EQ(-EINVAL, _cm_id_cmd(self->cli, RNIC_CM_IOCTL_DISCONNECT, y));
	/* no QP attributes before the address is known */
	ASSERT_EQ(-EINVAL, _cm_init_qp_attr(self->cli, y, RNIC_QPS_INIT, &qa));
	/* nothing queued on a non-blocking file */
	fl = fcntl(self->cli, F_GETFL);
	ASSERT_EQ(0, fcntl(self->cli, F_SETFL, fl | O_NONBLOCK));
	do_err_ioctl(EAGAIN, self->cli, RNIC_CM_IOCTL_GET_EVENT, &ev);
	/* the verbs' ioctl numbers are not the CM's */
	do_err_ioctl(ENOTTY, self->cli, RNIC_IOCTL_ALLOC_PD, &ev);
}

TEST_HARNESS_MAIN
