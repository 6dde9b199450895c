// SPDX-License-Identifier: GPL-2.0
/*
 * The connection manager against MADs from a raw socket on the wire:
 * CM MADs written on host 1's end of the veth pair (rnic_wire.h) to QP 1
 * of host 0's device, where a CM char device of host 0's namespace
 * listens; host 0's answers are captured by a second raw socket on the
 * same end.
 *
 * What the IB CM says is checked: a REQ to a listener is a
 * CONNECT_REQUEST, its duplicate is dropped before the accept and gets
 * the same REP after it; the RTU establishes; a DREQ disconnects and is
 * answered by a DREP, again in time wait; a REQ nobody listens for, or
 * whose rdma_cm header is garbage, or not for RC, gets a REJ with reason
 * 8 (invalid service id); a SIDR_REQ nobody listens for gets a SIDR_REP
 * of status 1, one to a UD listener its QP and Q_Key, again for a
 * duplicate. A REQ from the QP of a live connection, or of one in its
 * time wait, gets a REJ with reason 10 (stale connection), and the live
 * one a DREQ. Messages naming dead comm ids, or out of their state (an
 * RTU with no REP sent, a DREP with no DREQ), change nothing, are not
 * answered and are counted in cm_ignored, but a DREQ for a dead comm id,
 * which gets a DREP. What is not a CM MAD (truncated, oversized, wrong Q_Key,
 * base version, class, class version, method, attribute, opcode) is
 * dropped and counted in gsi_dropped, exactly. After each test a real
 * connection from host 1's CM through the wire still works.
 *
 * The mutation mode (test "mutate") sends RNIC_CM_WIRE_PKTS (default
 * CW_PKTS, the short pass) random mutations of valid MADs (seed
 * RNIC_CM_WIRE_SEED) while host 0 answers its requests at random;
 * make fuzz MODE=cm-wire PKTS=N runs it long.
 */
#include <inttypes.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <rdma/rnic-cm-abi.h>

#include "rnic_fuzz.h"
#include "rnic_wire.h"

#define CW_PORT		7600
#define CW_DEAD_PORT	7601
#define CW_MAD		256
#define CW_HDR		24
#define CW_QKEY_GSI	0x80010000
#define CW_GUID		0x0002c9fffe001234ULL
#define CW_PKTS		20000
#define CW_SEED		0x5eed
/* How long an answer may take; how long silence is waited for. */
#define CW_ANSWER_MS	5000
#define CW_QUIET_MS	300

/* CM attribute ids */
#define CW_REQ		0x0010
#define CW_MRA		0x0011
#define CW_REJ		0x0012
#define CW_REP		0x0013
#define CW_RTU		0x0014
#define CW_DREQ		0x0015
#define CW_DREP		0x0016
#define CW_SIDR_REQ	0x0017
#define CW_SIDR_REP	0x0018

FIXTURE(cm_wire) {
	struct wire_hosts h;
	int cm0;	/* a CM channel of host 0's namespace */
	int cm1;	/* ... of host 1's */
	int rx;		/* raw socket on host 1's end: host 0's answers */
	uint32_t listener, ud_listener;
	uint32_t comm;	/* the next comm id the fake peer uses */
	uint64_t tid;
};

FIXTURE_SETUP(cm_wire)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
	};
	struct rnic_cm_create_id c = { .size = sizeof(c) };
	struct rnic_cm_bind_addr b = { .size = sizeof(b) };
	struct rnic_cm_listen l = { .size = sizeof(l), .backlog = 64 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&b.addr;

	self->cm0 = self->cm1 = self->rx = -1;
	/* host 0's REPs are not sent again while a test looks */
	rnic_put_file("/sys/module/rnic/parameters/cm_timeout_ms", "30000");
	wire_hosts_setup(_metadata, &self->h, false);
	ASSERT_EQ(0, setns(self->h.s[0].nsfd, CLONE_NEWNET));
	self->cm0 = open(RNIC_CM_DEV_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, self->cm0);
	ASSERT_EQ(0, setns(self->h.s[1].nsfd, CLONE_NEWNET));
	self->cm1 = open(RNIC_CM_DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->cm1);
	self->rx = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	ASSERT_LE(0, self->rx);
	sll.sll_ifindex = if_nametoindex(wh_netdev[1]);
	ASSERT_NE(0, sll.sll_ifindex);
	ASSERT_EQ(0, bind(self->rx, (struct sockaddr *)&sll, sizeof(sll)));
	ASSERT_EQ(0, setns(self->h.init_ns, CLONE_NEWNET));

	/* host 0 listens on CW_PORT: RC (TCP port space) and UD (UDP) */
	sin->sin_family = AF_INET;
	sin->sin_port = htons(CW_PORT);
	inet_pton(AF_INET, wh_addr4[0], &sin->sin_addr);
	c.ps = RNIC_CM_PS_TCP;
	c.qp_type = IBV_QPT_RC;
	c.uid = 1;
	do_ioctl(self->cm0, RNIC_CM_IOCTL_CREATE_ID, &c);
	self->listener = b.id = l.id = c.out_id;
	do_ioctl(self->cm0, RNIC_CM_IOCTL_BIND_ADDR, &b);
	do_ioctl(self->cm0, RNIC_CM_IOCTL_LISTEN, &l);
	c.ps = RNIC_CM_PS_UDP;
	c.qp_type = IBV_QPT_UD;
	c.uid = 2;
	do_ioctl(self->cm0, RNIC_CM_IOCTL_CREATE_ID, &c);
	self->ud_listener = b.id = l.id = c.out_id;
	do_ioctl(self->cm0, RNIC_CM_IOCTL_BIND_ADDR, &b);
	do_ioctl(self->cm0, RNIC_CM_IOCTL_LISTEN, &l);
	self->comm = 0x5a000001 + getpid() % 1000 * 0x1000;
	self->tid = 0x7700000000000000ULL;
}

FIXTURE_TEARDOWN(cm_wire)
{
	if (self->cm0 >= 0)
		close(self->cm0);
	if (self->cm1 >= 0)
		close(self->cm1);
	if (self->rx >= 0)
		close(self->rx);
	wire_hosts_teardown(_metadata, &self->h);
	rnic_put_file("/sys/module/rnic/parameters/cm_timeout_ms", "4295");
}

/* ---- MADs -------------------------------------------------------------- */

static uint8_t *cw_mad_init(uint8_t *mad, uint16_t attr, uint64_t tid)
{
	memset(mad, 0, CW_MAD);
	mad[0] = 1;		/* base version */
	mad[1] = 0x07;		/* class: CM */
	mad[2] = 2;		/* class version */
	mad[3] = 0x03;		/* method: SEND */
	rw_put64(mad + 8, tid);
	rw_put16(mad + 16, attr);
	return mad + CW_HDR;
}

static uint32_t cw_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static uint16_t cw_get16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

/*
 * A REQ from host 1's "comm" to service (port space TCP, @port) of host
 * 0, from QP @qpn, with the kernel rdma_cm's header (IPv4) and @pdata.
 */
static void cw_req(FIXTURE_DATA(cm_wire) *self, uint8_t *mad, uint32_t comm,
		   uint16_t port, uint32_t qpn, const char *pdata)
{
	uint8_t *m = cw_mad_init(mad, CW_REQ, ++self->tid);
	uint8_t *hdr = m + 140;

	rw_put32(m, comm);
	rw_put64(m + 8, (uint64_t)RNIC_CM_PS_TCP << 16 | port);
	rw_put64(m + 16, CW_GUID);
	rw_put32(m + 32, qpn << 8 | 4);		/* QPN, responder resources */
	m[39] = 4;				/* initiator depth */
	m[43] = 20 << 3;			/* remote timeout, RC */
	rw_put32(m + 44, 0x123456 << 8 | (20 << 3 | 7));
	rw_put16(m + 48, 0xffff);
	m[50] = 3 << 4 | 7;			/* MTU 1024, RNR retry 7 */
	m[51] = 2 << 4;				/* max CM retries */
	rw_put16(m + 52, 0xffff);
	rw_put16(m + 54, 0xffff);
	memcpy(m + 56, wh_gid4[1], 16);
	memcpy(m + 72, wh_gid4[0], 16);
	m[93] = 64;				/* hop limit */
	m[95] = 18 << 3;	/* local ACK timeout: a time wait of 2 s */
	hdr[0] = 0;
	hdr[1] = 4 << 4;
	rw_put16(hdr + 2, 40000);
	memcpy(hdr + 16, wh_gid4[1] + 12, 4);
	memcpy(hdr + 32, wh_gid4[0] + 12, 4);
	memcpy(hdr + 36, pdata, strlen(pdata));
}

/* A message that names two comm ids (RTU, DREQ, DREP, REJ, MRA). */
static void cw_msg(FIXTURE_DATA(cm_wire) *self, uint8_t *mad, uint16_t attr,
		   uint32_t local, uint32_t remote)
{
	uint8_t *m = cw_mad_init(mad, attr, ++self->tid);

	rw_put32(m, local);
	rw_put32(m + 4, remote);
	if (attr == CW_REJ)
		rw_put16(m + 10, RNIC_CM_REJ_CONSUMER_DEFINED);
}

/* A REP from the fake peer's @local to host 0's @remote. */
static void cw_rep(FIXTURE_DATA(cm_wire) *self, uint8_t *mad, uint32_t local,
		   uint32_t remote)
{
	uint8_t *m = cw_mad_init(mad, CW_REP, ++self->tid);

	rw_put32(m, local);
	rw_put32(m + 4, remote);
	rw_put32(m + 12, 0x333 << 8);
	rw_put32(m + 20, 0x111111 << 8);
	rw_put64(m + 28, CW_GUID);
}

static void cw_sidr_req(FIXTURE_DATA(cm_wire) *self, uint8_t *mad,
			uint32_t reqid, uint16_t port)
{
	uint8_t *m = cw_mad_init(mad, CW_SIDR_REQ, ++self->tid);
	uint8_t *hdr = m + 16;

	rw_put32(m, reqid);
	rw_put16(m + 4, 0xffff);
	rw_put64(m + 8, (uint64_t)RNIC_CM_PS_UDP << 16 | port);
	hdr[1] = 4 << 4;
	rw_put16(hdr + 2, 40001);
	memcpy(hdr + 16, wh_gid4[1] + 12, 4);
	memcpy(hdr + 32, wh_gid4[0] + 12, 4);
}

/*
 * Send @len bytes of @mad from host 1's QP 1 to host 0's, as a UD SEND
 * ONLY with Q_Key @qkey (opcode @opcode).
 */
static int cw_send_raw(FIXTURE_DATA(cm_wire) *self, const uint8_t *mad,
		       uint32_t len, uint32_t qkey, uint8_t opcode)
{
	struct rw_frame *f = malloc(sizeof(*f));
	struct rw_pkt p = {
		.opcode = opcode, .dqpn = 1, .sqpn = 1, .qkey = qkey,
		.payload = mad, .len = len, .psn = self->tid & RW_PSN_MASK,
	};
	int ret = -ENOMEM;

	if (f && !rw_build(f, &self->h.addr, &p))
		ret = rw_send(&self->h.tx, f);
	free(f);
	return ret;
}

static int cw_send(FIXTURE_DATA(cm_wire) *self, const uint8_t *mad)
{
	return cw_send_raw(self, mad, CW_MAD, CW_QKEY_GSI, RW_UD | RW_SEND_ONLY);
}

/* @mad from 10.79.0.3, another address of host 1's side */
static int cw_send_from3(FIXTURE_DATA(cm_wire) *self, const uint8_t *mad)
{
	struct rw_addr real = self->h.addr;
	int ret;

	self->h.addr.sgid[15] = 3;
	ret = cw_send(self, mad);
	self->h.addr = real;
	return ret;
}

/*
 * The next MAD host 0 sends to host 1's QP 1 within @ms: its attribute
 * id and bytes in @mad, or 0 if none came.
 */
static uint16_t cw_recv(FIXTURE_DATA(cm_wire) *self, uint8_t *mad, int ms)
{
	long end = dp_now_ms() + ms;
	uint8_t buf[2048];
	struct sockaddr_ll from;
	struct pollfd pfd = { .fd = self->rx, .events = POLLIN };

	for (;;) {
		long left = end - dp_now_ms();
		socklen_t fl = sizeof(from);
		const uint8_t *ip, *udp, *bth;
		ssize_t n;

		if (poll(&pfd, 1, left > 0 ? left : 0) != 1)
			break;
		n = recvfrom(self->rx, buf, sizeof(buf), 0,
			     (struct sockaddr *)&from, &fl);
		if (n < 0 || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		ip = buf + RW_ETH_LEN;
		if (n < RW_ETH_LEN + RW_IP4_LEN + RW_UDP_LEN + RW_BTH_LEN +
		    RW_DETH_LEN + CW_MAD || cw_get16(buf + 12) != ETH_P_IP ||
		    ip[9] != IPPROTO_UDP)
			continue;
		udp = ip + (ip[0] & 0xf) * 4;
		bth = udp + RW_UDP_LEN;
		if (cw_get16(udp + 2) != RW_ROCE_PORT ||
		    bth[0] != (RW_UD | RW_SEND_ONLY) ||
		    (cw_get32(bth + 4) & RW_PSN_MASK) != 1 ||
		    bth + RW_BTH_LEN + RW_DETH_LEN + CW_MAD > buf + n)
			continue;
		if (cw_get32(bth + RW_BTH_LEN) != CW_QKEY_GSI)
			continue;
		memcpy(mad, bth + RW_BTH_LEN + RW_DETH_LEN, CW_MAD);
		return cw_get16(mad + 16);
	}
	return 0;
}

/* Host 0 sends nothing for CW_QUIET_MS: 0, else the attribute it sent. */
static uint16_t cw_quiet(FIXTURE_DATA(cm_wire) *self)
{
	uint8_t mad[CW_MAD];

	return cw_recv(self, mad, CW_QUIET_MS);
}

/* The next event of host 0's channel within CW_ANSWER_MS, or -1. */
static int cw_event(FIXTURE_DATA(cm_wire) *self,
		    struct rnic_cm_get_event *ev, int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	if (poll(&p, 1, ms) != 1)
		return -1;
	(void)self;
	return _rnic_ioctl(fd, RNIC_CM_IOCTL_GET_EVENT, ev) ? -1 :
	       (int)ev->out_event;
}

/* Host 0's counter @which (enum rnic_nl_counter). */
static uint64_t cw_count(FIXTURE_DATA(cm_wire) *self, int which)
{
	uint64_t c[RNIC_NL_COUNTER_MAX + 1];

	wh_counters(&self->h, 0, c);
	return c[which];
}

static uint64_t cw_gsi_dropped(FIXTURE_DATA(cm_wire) *self)
{
	return cw_count(self, RNIC_NL_COUNTER_GSI_DROPPED);
}

/* Counter @which reaches @want within CW_ANSWER_MS; its value then. */
static uint64_t cw_wait_count(FIXTURE_DATA(cm_wire) *self, int which,
			      uint64_t want)
{
	long end = dp_now_ms() + CW_ANSWER_MS;

	while (cw_count(self, which) < want && dp_now_ms() < end)
		usleep(10000);
	/* and no more than that */
	usleep(50000);
	return cw_count(self, which);
}

static void cw_accept(struct __test_metadata *_metadata,
		      FIXTURE_DATA(cm_wire) *self, uint32_t id, uint32_t qpn)
{
	struct rnic_cm_accept acc = { .size = sizeof(acc), .id = id };

	acc.conn.qp_num = qpn;
	acc.conn.responder_resources = 4;
	acc.conn.initiator_depth = 4;
	acc.conn.retry_count = 7;
	acc.conn.rnr_retry_count = 7;
	do_ioctl(self->cm0, RNIC_CM_IOCTL_ACCEPT, &acc);
}

static void cw_destroy(struct __test_metadata *_metadata, int fd, uint32_t id)
{
	struct rnic_cm_destroy_id d = { .size = sizeof(d), .id = id };

	do_ioctl(fd, RNIC_CM_IOCTL_DESTROY_ID, &d);
}

/* The next event of @fd, of @type; its id. */
#define expect_cw_event(fd, type) ({					\
	struct rnic_cm_get_event __ev;					\
	ASSERT_EQ(type, cw_event(self, &__ev, fd, CW_ANSWER_MS))	\
		TH_LOG("event %u status %d", __ev.out_event,		\
		       __ev.out_status);				\
	__ev.out_id;							\
})

#define expect_no_event(fd) do {					\
	struct rnic_cm_get_event __ev;					\
	ASSERT_EQ(-1, cw_event(self, &__ev, fd, 0))			\
		TH_LOG("unexpected event %u", __ev.out_event);		\
} while (0)

/* The next MAD host 0 sends is of @attr. */
#define expect_mad(mad, attr) \
	ASSERT_EQ(attr, cw_recv(self, mad, CW_ANSWER_MS))

#define expect_quiet() ASSERT_EQ(0, cw_quiet(self))

/*
 * A REQ from host 1's comm id @x and QP 0x777 to the listener, accepted
 * by host 0 with QP 0x888: the request's id in @p, host 0's comm id (in
 * its REP) in @them.
 */
static void cw_accepted_request(struct __test_metadata *_metadata,
				FIXTURE_DATA(cm_wire) *self, uint32_t x,
				uint32_t *p, uint32_t *them)
{
	uint8_t req[CW_MAD], rep[CW_MAD];
	struct rnic_cm_get_event ev;

	cw_req(self, req, x, CW_PORT, 0x777, "");
	ASSERT_EQ(0, cw_send(self, req));
	ASSERT_EQ(RNIC_CM_EVENT_CONNECT_REQUEST,
		  cw_event(self, &ev, self->cm0, CW_ANSWER_MS));
	*p = ev.out_id;
	cw_accept(_metadata, self, *p, 0x888);
	expect_mad(rep, CW_REP);
	*them = cw_get32(rep + CW_HDR);
}

/*
 * A real connection from host 1's CM to host 0's listener through the
 * wire, established and disconnected: the CM still works.
 */
static void cw_real_connection(struct __test_metadata *_metadata,
			       FIXTURE_DATA(cm_wire) *self)
{
	struct rnic_cm_create_id c = { .size = sizeof(c),
				       .ps = RNIC_CM_PS_TCP,
				       .qp_type = IBV_QPT_RC };
	struct rnic_cm_resolve_addr ra = { .size = sizeof(ra) };
	struct rnic_cm_resolve_route rr = { .size = sizeof(rr) };
	struct rnic_cm_connect cn = { .size = sizeof(cn) };
	struct rnic_cm_id_cmd est = { .size = sizeof(est) };
	struct rnic_cm_disconnect d = { .size = sizeof(d) };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ra.dst_addr;
	struct rnic_cm_get_event ev;
	uint32_t a, p;

	/* what host 0 had queued from before (the mutations' requests) */
	while (cw_event(self, &ev, self->cm0, 0) >= 0)
		if (ev.out_event == RNIC_CM_EVENT_CONNECT_REQUEST)
			cw_destroy(_metadata, self->cm0, ev.out_id);
	do_ioctl(self->cm1, RNIC_CM_IOCTL_CREATE_ID, &c);
	a = ra.id = rr.id = cn.id = est.id = d.id = c.out_id;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(CW_PORT);
	inet_pton(AF_INET, wh_addr4[0], &sin->sin_addr);
	ra.timeout_ms = rr.timeout_ms = 2000;
	do_ioctl(self->cm1, RNIC_CM_IOCTL_RESOLVE_ADDR, &ra);
	expect_cw_event(self->cm1, RNIC_CM_EVENT_ADDR_RESOLVED);
	do_ioctl(self->cm1, RNIC_CM_IOCTL_RESOLVE_ROUTE, &rr);
	expect_cw_event(self->cm1, RNIC_CM_EVENT_ROUTE_RESOLVED);
	cn.conn.qp_num = 0x4444;
	cn.conn.private_data_len = 5;
	memcpy(cn.conn.private_data, "real", 5);
	do_ioctl(self->cm1, RNIC_CM_IOCTL_CONNECT, &cn);
	ASSERT_EQ(RNIC_CM_EVENT_CONNECT_REQUEST,
		  cw_event(self, &ev, self->cm0, CW_ANSWER_MS));
	ASSERT_EQ(0x4444, ev.out_conn.qp_num);
	ASSERT_EQ(0, memcmp(ev.out_conn.private_data, "real", 5));
	p = ev.out_id;
	cw_accept(_metadata, self, p, 0x5555);
	expect_cw_event(self->cm1, RNIC_CM_EVENT_CONNECT_RESPONSE);
	do_ioctl(self->cm1, RNIC_CM_IOCTL_ESTABLISH, &est);
	ASSERT_EQ(p, expect_cw_event(self->cm0, RNIC_CM_EVENT_ESTABLISHED));
	do_ioctl(self->cm1, RNIC_CM_IOCTL_DISCONNECT, &d);
	expect_cw_event(self->cm0, RNIC_CM_EVENT_DISCONNECTED);
	d.id = p;
	do_ioctl(self->cm0, RNIC_CM_IOCTL_DISCONNECT, &d);
	expect_cw_event(self->cm1, RNIC_CM_EVENT_DISCONNECTED);
	cw_destroy(_metadata, self->cm1, a);
	cw_destroy(_metadata, self->cm0, p);
}

/*
 * The whole passive side against a peer on the wire, with duplicates
 * and messages out of their state on the way.
 */
TEST_F(cm_wire, handshake_replays_and_out_of_state)
{
	uint8_t req[CW_MAD], mad[CW_MAD], rep[CW_MAD];
	struct rnic_cm_get_event ev;
	uint32_t x = self->comm++, p, them;
	uint64_t dropped = cw_gsi_dropped(self);

	cw_req(self, req, x, CW_PORT, 0x777, "hello");
	ASSERT_EQ(0, cw_send(self, req));
	ASSERT_EQ(RNIC_CM_EVENT_CONNECT_REQUEST,
		  cw_event(self, &ev, self->cm0, CW_ANSWER_MS));
	ASSERT_EQ(self->listener, ev.out_listen_id);
	ASSERT_EQ(0x777, ev.out_conn.qp_num);
	ASSERT_EQ(0, memcmp(ev.out_conn.private_data, "hello", 5));
	p = ev.out_id;
	/* a duplicate before the answer: no second request, no answer */
	ASSERT_EQ(0, cw_send(self, req));
	expect_quiet();
	expect_no_event(self->cm0);

	cw_accept(_metadata, self, p, 0x888);
	expect_mad(rep, CW_REP);
	ASSERT_EQ(x, cw_get32(rep + CW_HDR + 4));
	ASSERT_EQ(0x888, cw_get32(rep + CW_HDR + 12) >> 8);
	them = cw_get32(rep + CW_HDR);
	ASSERT_NE(0, them);
	/* the REQ again after the REP: the same REP again */
	ASSERT_EQ(0, cw_send(self, req));
	expect_mad(mad, CW_REP);
	ASSERT_EQ(0, memcmp(mad + CW_HDR, rep + CW_HDR, CW_MAD - CW_HDR));
	expect_no_event(self->cm0);

	/* out of state: a DREP with no DREQ, a REP to a passive side */
	cw_msg(self, mad, CW_DREP, x, them);
	ASSERT_EQ(0, cw_send(self, mad));
	cw_rep(self, mad, x, them);
	ASSERT_EQ(0, cw_send(self, mad));
	/* an RTU naming the wrong peer comm id */
	cw_msg(self, mad, CW_RTU, x + 1, them);
	ASSERT_EQ(0, cw_send(self, mad));
	expect_quiet();
	expect_no_event(self->cm0);

	/*
	 * An RTU and a DREQ for a request not yet answered (no REP sent):
	 * a second REQ's id takes the next comm id (they are cyclic).
	 */
	cw_req(self, req, x + 1, CW_PORT, 0x779, "");
	ASSERT_EQ(0, cw_send(self, req));
	ASSERT_EQ(RNIC_CM_EVENT_CONNECT_REQUEST,
		  cw_event(self, &ev, self->cm0, CW_ANSWER_MS));
	cw_msg(self, mad, CW_RTU, x + 1, them + 1);
	ASSERT_EQ(0, cw_send(self, mad));
	cw_msg(self, mad, CW_DREQ, x + 1, them + 1);
	ASSERT_EQ(0, cw_send(self, mad));
	expect_quiet();
	expect_no_event(self->cm0);
	cw_accept(_metadata, self, ev.out_id, 0x889);
	expect_mad(mad, CW_REP);
	ASSERT_EQ(them + 1, cw_get32(mad + CW_HDR));
	cw_destroy(_metadata, self->cm0, ev.out_id);
	expect_mad(mad, CW_DREQ);

	cw_msg(self, mad, CW_RTU, x, them);
	ASSERT_EQ(0, cw_send(self, mad));
	ASSERT_EQ(p, expect_cw_event(self->cm0, RNIC_CM_EVENT_ESTABLISHED));
	/* the RTU again, and an MRA: nothing */
	ASSERT_EQ(0, cw_send(self, mad));
	cw_msg(self, mad, CW_MRA, x, them);
	ASSERT_EQ(0, cw_send(self, mad));
	expect_quiet();
	expect_no_event(self->cm0);

	/* the peer's DREQ: DISCONNECTED; the DREP when host 0 says so */
	cw_msg(self, mad, CW_DREQ, x, them);
	rw_put32(mad + CW_HDR + 8, 0x888 << 8);
	ASSERT_EQ(0, cw_send(self, mad));
	ASSERT_EQ(p, expect_cw_event(self->cm0, RNIC_CM_EVENT_DISCONNECTED));
	{
		struct rnic_cm_disconnect d = { .size = sizeof(d), .id = p };

		do_ioctl(self->cm0, RNIC_CM_IOCTL_DISCONNECT, &d);
	}
	expect_mad(rep, CW_DREP);
	ASSERT_EQ(them, cw_get32(rep + CW_HDR));
	ASSERT_EQ(x, cw_get32(rep + CW_HDR + 4));
	/* the DREQ again (the DREP was lost): the DREP again */
	ASSERT_EQ(0, cw_send(self, mad));
	expect_mad(rep, CW_DREP);
	ASSERT_EQ(x, cw_get32(rep + CW_HDR + 4));
	expect_no_event(self->cm0);
	ASSERT_EQ(p, expect_cw_event(self->cm0, RNIC_CM_EVENT_TIMEWAIT_EXIT));
	cw_destroy(_metadata, self->cm0, p);
	/* none of it was malformed */
	ASSERT_EQ(dropped, cw_gsi_dropped(self));
	cw_real_connection(_metadata, self);
}

/*
 * A connection's messages come from its peer: the same RTU, REJ, MRA and
 * DREQ from another address of the wire (the comm ids right) change
 * nothing, as a connected QP hears only its peer.
 */
TEST_F(cm_wire, messages_from_another_address)
{
	uint8_t mad[CW_MAD];
	uint32_t x = self->comm++, p, them;

	cw_accepted_request(_metadata, self, x, &p, &them);

	cw_msg(self, mad, CW_RTU, x, them);
	ASSERT_EQ(0, cw_send_from3(self, mad));
	cw_msg(self, mad, CW_MRA, x, them);
	ASSERT_EQ(0, cw_send_from3(self, mad));
	cw_msg(self, mad, CW_REJ, x, them);
	ASSERT_EQ(0, cw_send_from3(self, mad));
	expect_quiet();
	expect_no_event(self->cm0);
	cw_msg(self, mad, CW_RTU, x, them);
	ASSERT_EQ(0, cw_send(self, mad));
	ASSERT_EQ(p, expect_cw_event(self->cm0, RNIC_CM_EVENT_ESTABLISHED));

	cw_msg(self, mad, CW_DREQ, x, them);
	ASSERT_EQ(0, cw_send_from3(self, mad));
	cw_msg(self, mad, CW_REJ, x, them);
	ASSERT_EQ(0, cw_send_from3(self, mad));
	expect_quiet();
	expect_no_event(self->cm0);
	cw_msg(self, mad, CW_DREQ, x, them);
	ASSERT_EQ(0, cw_send(self, mad));
	ASSERT_EQ(p, expect_cw_event(self->cm0, RNIC_CM_EVENT_DISCONNECTED));
	cw_destroy(_metadata, self->cm0, p);
	cw_real_connection(_metadata, self);
}

/*
 * The peer gives up on its REQ before the answer (its id destroyed, or
 * its retries out): a REJ with reason 4 (timeout), no remote comm id
 * yet, its CA GUID in the ARI, as the kernel's IB CM sends it. The
 * request's id is REJECTED (IB CM: the REJ is for an id in REQ_RCVD),
 * its backlog slot free again, and accepting it is too late.
 */
TEST_F(cm_wire, peer_gives_up_on_request)
{
	struct rnic_cm_accept acc = { .size = sizeof(acc) };
	uint8_t req[CW_MAD], rej[CW_MAD];
	struct rnic_cm_get_event ev;
	uint32_t x = self->comm++;
	uint8_t *m;

	cw_req(self, req, x, CW_PORT, 0x777, "");
	ASSERT_EQ(0, cw_send(self, req));
	ASSERT_EQ(RNIC_CM_EVENT_CONNECT_REQUEST,
		  cw_event(self, &ev, self->cm0, CW_ANSWER_MS));
	acc.id = ev.out_id;
	/* a REJ naming another peer's GUID is not this request's */
	cw_msg(self, rej, CW_REJ, x, 0);
	m = rej + CW_HDR;
	m[8] = 2 << 6;			/* message rejected: other */
	m[9] = 8 << 1;			/* ARI length */
	rw_put16(m + 10, RNIC_CM_REJ_TIMEOUT);
	rw_put64(m + 12, CW_GUID + 1);
	ASSERT_EQ(0, cw_send(self, rej));
	expect_quiet();
	expect_no_event(self->cm0);
	rw_put64(m + 12, CW_GUID);
	ASSERT_EQ(0, cw_send(self, rej));
	ASSERT_EQ(RNIC_CM_EVENT_REJECTED,
		  cw_event(self, &ev, self->cm0, CW_ANSWER_MS));
	ASSERT_EQ(acc.id, ev.out_id);
	ASSERT_EQ(RNIC_CM_REJ_TIMEOUT, ev.out_status);
	acc.conn.qp_num = 0x888;
	do_err_ioctl(EINVAL, self->cm0, RNIC_CM_IOCTL_ACCEPT, &acc);
	expect_quiet();
	cw_destroy(_metadata, self->cm0, acc.id);
	cw_real_connection(_metadata, self);
}

/* REQs nobody takes: REJ, reason 8 (invalid service id). */
TEST_F(cm_wire, unwanted_requests_are_rejected)
{
	uint8_t req[CW_MAD], rej[CW_MAD];
	int k;

	for (k = 0; k < 5; k++) {
		uint32_t x = self->comm++;

		cw_req(self, req, x, CW_PORT, 0x777, "");
		switch (k) {
		case 0:		/* nobody listens on the port */
			cw_req(self, req, x, CW_DEAD_PORT, 0x777, "");
			break;
		case 1:		/* rdma_cm header: a version that is not 0 */
			req[CW_HDR + 140] = 0x5a;
			break;
		case 2:		/* rdma_cm header: IP version 5 */
			req[CW_HDR + 141] = 5 << 4;
			break;
		case 3:		/* transport UC, not RC */
			req[CW_HDR + 43] |= 1 << 1;
			break;
		case 4:		/* a service id of another port space */
			rw_put64(req + CW_HDR + 8,
				 (uint64_t)RNIC_CM_PS_UDP << 16 | CW_PORT);
			break;
		}
		ASSERT_EQ(0, cw_send(self, req));
		expect_mad(rej, CW_REJ);
		ASSERT_EQ(0, cw_get32(rej + CW_HDR)) TH_LOG("case %d", k);
		ASSERT_EQ(x, cw_get32(rej + CW_HDR + 4));
		ASSERT_EQ(0, rej[CW_HDR + 8] >> 6);	/* the REQ rejected */
		ASSERT_EQ(RNIC_CM_REJ_INVALID_SERVICE_ID,
			  cw_get16(rej + CW_HDR + 10)) TH_LOG("case %d", k);
		/* the REJ answers the REQ's transaction */
		ASSERT_EQ(0, memcmp(rej + 8, req + 8, 8));
		expect_no_event(self->cm0);
	}
	cw_real_connection(_metadata, self);
}

/* SIDR: status 1 where nobody listens; the QP and Q_Key where one does. */
TEST_F(cm_wire, sidr)
{
	uint8_t req[CW_MAD], rep[CW_MAD], again[CW_MAD];
	struct rnic_cm_get_event ev;
	struct rnic_cm_accept acc = { .size = sizeof(acc) };
	uint32_t r = self->comm++;

	cw_sidr_req(self, req, r, CW_DEAD_PORT);
	ASSERT_EQ(0, cw_send(self, req));
	expect_mad(rep, CW_SIDR_REP);
	ASSERT_EQ(r, cw_get32(rep + CW_HDR));
	ASSERT_EQ(1, rep[CW_HDR + 4]);
	expect_no_event(self->cm0);

	r = self->comm++;
	cw_sidr_req(self, req, r, CW_PORT);
	memcpy(req + CW_HDR + 16 + 36, "ud?", 3);
	ASSERT_EQ(0, cw_send(self, req));
	ASSERT_EQ(RNIC_CM_EVENT_CONNECT_REQUEST,
		  cw_event(self, &ev, self->cm0, CW_ANSWER_MS));
	ASSERT_EQ(self->ud_listener, ev.out_listen_id);
	ASSERT_EQ(0, memcmp(ev.out_conn.private_data, "ud?", 3));
	acc.id = ev.out_id;
	acc.conn.qp_num = 0x999;
	do_ioctl(self->cm0, RNIC_CM_IOCTL_ACCEPT, &acc);
	expect_mad(rep, CW_SIDR_REP);
	ASSERT_EQ(r, cw_get32(rep + CW_HDR));
	ASSERT_EQ(0, rep[CW_HDR + 4]);
	ASSERT_EQ(0x999, cw_get32(rep + CW_HDR + 8) >> 8);
	ASSERT_EQ(RNIC_CM_UDP_QKEY, cw_get32(rep + CW_HDR + 20));
	/* the request again: the same answer, no new request */
	ASSERT_EQ(0, cw_send(self, req));
	expect_mad(again, CW_SIDR_REP);
	ASSERT_EQ(0, memcmp(again + CW_HDR, rep + CW_HDR, CW_MAD - CW_HDR));
	expect_no_event(self->cm0);
	cw_destroy(_metadata, self->cm0, acc.id);
	cw_real_connection(_metadata, self);
}

/*
 * A UD id's SIDR_REQ (to 10.79.0.3, an address on host 1's side that no
 * device has: the test answers for it) takes a SIDR_REP from there and
 * nothing else: a REP, REJ or MRA naming its request id is for RC ids,
 * and changes nothing.
 */
TEST_F(cm_wire, sidr_request_takes_only_sidr_rep)
{
	struct rnic_cm_create_id c = { .size = sizeof(c),
				       .ps = RNIC_CM_PS_UDP,
				       .qp_type = IBV_QPT_UD };
	struct rnic_cm_resolve_addr ra = { .size = sizeof(ra) };
	struct rnic_cm_resolve_route rr = { .size = sizeof(rr) };
	struct rnic_cm_connect cn = { .size = sizeof(cn) };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ra.dst_addr;
	uint8_t req[CW_MAD], mad[CW_MAD];
	struct rnic_cm_get_event ev;
	uint32_t reqid;
	uint8_t *m;

	ASSERT_EQ(0, setns(self->h.s[0].nsfd, CLONE_NEWNET));
	ASSERT_EQ(0, rnic_sh("ip neigh add 10.79.0.3 lladdr %s dev %s nud permanent",
			     wh_mac[1], wh_netdev[0]));
	ASSERT_EQ(0, setns(self->h.init_ns, CLONE_NEWNET));
	do_ioctl(self->cm0, RNIC_CM_IOCTL_CREATE_ID, &c);
	ra.id = rr.id = cn.id = c.out_id;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(CW_PORT);
	inet_pton(AF_INET, "10.79.0.3", &sin->sin_addr);
	ra.timeout_ms = rr.timeout_ms = 2000;
	do_ioctl(self->cm0, RNIC_CM_IOCTL_RESOLVE_ADDR, &ra);
	ASSERT_EQ(c.out_id, expect_cw_event(self->cm0,
					    RNIC_CM_EVENT_ADDR_RESOLVED));
	do_ioctl(self->cm0, RNIC_CM_IOCTL_RESOLVE_ROUTE, &rr);
	expect_cw_event(self->cm0, RNIC_CM_EVENT_ROUTE_RESOLVED);
	do_ioctl(self->cm0, RNIC_CM_IOCTL_CONNECT, &cn);
	expect_mad(req, CW_SIDR_REQ);
	reqid = cw_get32(req + CW_HDR);

	/* from the peer, 10.79.0.3 */
	cw_rep(self, mad, 0x4321, reqid);
	ASSERT_EQ(0, cw_send_from3(self, mad));
	cw_msg(self, mad, CW_REJ, 0x4321, reqid);
	ASSERT_EQ(0, cw_send_from3(self, mad));
	cw_msg(self, mad, CW_MRA, 0x4321, reqid);
	ASSERT_EQ(0, cw_send_from3(self, mad));
	expect_quiet();
	expect_no_event(self->cm0);

	m = cw_mad_init(mad, CW_SIDR_REP,
			(uint64_t)cw_get32(req + 8) << 32 | cw_get32(req + 12));
	rw_put32(m, reqid);
	rw_put32(m + 8, 0x999 << 8);
	rw_put32(m + 20, RNIC_CM_UDP_QKEY);
	/* from another address: nothing; from the peer: the answer */
	ASSERT_EQ(0, cw_send(self, mad));
	expect_quiet();
	expect_no_event(self->cm0);
	ASSERT_EQ(0, cw_send_from3(self, mad));
	ASSERT_EQ(RNIC_CM_EVENT_ESTABLISHED,
		  cw_event(self, &ev, self->cm0, CW_ANSWER_MS))
		TH_LOG("event %u status %d", ev.out_event, ev.out_status);
	ASSERT_EQ(c.out_id, ev.out_id);
	ASSERT_EQ(0x999, ev.out_ud.qp_num);
	ASSERT_EQ(RNIC_CM_UDP_QKEY, ev.out_ud.qkey);
	cw_destroy(_metadata, self->cm0, c.out_id);
	cw_real_connection(_metadata, self);
}

/*
 * Messages naming comm ids nobody has: no event, and (being CM MADs) not
 * counted as dropped at the GSI. A DREQ gets a DREP (the IB CM's answer
 * for a connection that is gone, so that the peer stops asking); the
 * others no answer, and each counts once as ignored by the CM.
 */
TEST_F(cm_wire, dead_comm_ids)
{
	static const uint16_t attrs[] = {
		CW_REP, CW_RTU, CW_REJ, CW_DREQ, CW_DREP, CW_MRA, CW_SIDR_REP,
	};
	uint64_t ignored = cw_count(self, RNIC_NL_COUNTER_CM_IGNORED);
	uint64_t dropped = cw_gsi_dropped(self);
	uint8_t mad[CW_MAD], drep[CW_MAD];
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		for (k = 0; k < 2; k++) {
			uint32_t remote = k ? 0 : 0xdead0000 + i;
			uint32_t local = k ? 0 : 0x1234;

			if (attrs[i] == CW_REP)
				cw_rep(self, mad, local, remote);
			else
				cw_msg(self, mad, attrs[i], local, remote);
			ASSERT_EQ(0, cw_send(self, mad));
			if (attrs[i] != CW_DREQ)
				continue;
			expect_mad(drep, CW_DREP);
			ASSERT_EQ(remote, cw_get32(drep + CW_HDR));
			ASSERT_EQ(local, cw_get32(drep + CW_HDR + 4));
			/* the DREP answers the DREQ's transaction */
			ASSERT_EQ(0, memcmp(drep + 8, mad + 8, 8));
		}
	}
	expect_quiet();
	expect_no_event(self->cm0);
	ASSERT_EQ(dropped, cw_gsi_dropped(self));
	ASSERT_EQ(ignored + 2 * (ARRAY_SIZE(attrs) - 1),
		  cw_wait_count(self, RNIC_NL_COUNTER_CM_IGNORED,
				ignored + 2 * (ARRAY_SIZE(attrs) - 1)));
	cw_real_connection(_metadata, self);
}

/*
 * A REQ from the QP of an established connection (the peer restarted
 * and its new QP has the old number): a REJ with reason 10 (stale
 * connection), and a DREQ that ends the old connection, as the kernel's
 * IB CM answers. Once both sides let go, the QP number stays stale for
 * the time wait, even with the ids destroyed; then it connects again.
 */
TEST_F(cm_wire, stale_connection)
{
	uint8_t req[CW_MAD], mad[CW_MAD];
	struct rnic_cm_get_event ev;
	uint32_t x = self->comm++, p, them;

	cw_accepted_request(_metadata, self, x, &p, &them);
	cw_msg(self, mad, CW_RTU, x, them);
	ASSERT_EQ(0, cw_send(self, mad));
	ASSERT_EQ(p, expect_cw_event(self->cm0, RNIC_CM_EVENT_ESTABLISHED));

	cw_req(self, req, self->comm++, CW_PORT, 0x777, "");
	ASSERT_EQ(0, cw_send(self, req));
	expect_mad(mad, CW_REJ);
	ASSERT_EQ(self->comm - 1, cw_get32(mad + CW_HDR + 4));
	ASSERT_EQ(0, mad[CW_HDR + 8] >> 6);	/* the REQ rejected */
	ASSERT_EQ(RNIC_CM_REJ_STALE_CONN, cw_get16(mad + CW_HDR + 10));
	expect_mad(mad, CW_DREQ);
	ASSERT_EQ(them, cw_get32(mad + CW_HDR));
	ASSERT_EQ(x, cw_get32(mad + CW_HDR + 4));
	expect_no_event(self->cm0);
	cw_msg(self, mad, CW_DREP, x, them);
	ASSERT_EQ(0, cw_send(self, mad));
	ASSERT_EQ(p, expect_cw_event(self->cm0, RNIC_CM_EVENT_DISCONNECTED));
	cw_destroy(_metadata, self->cm0, p);

	/* the REQ's local ACK timeout, 18: a time wait of 2.1 s */
	cw_req(self, req, self->comm++, CW_PORT, 0x777, "");
	ASSERT_EQ(0, cw_send(self, req));
	expect_mad(mad, CW_REJ);
	ASSERT_EQ(RNIC_CM_REJ_STALE_CONN, cw_get16(mad + CW_HDR + 10));
	expect_quiet();
	usleep(2500000);
	cw_req(self, req, self->comm++, CW_PORT, 0x777, "");
	ASSERT_EQ(0, cw_send(self, req));
	ASSERT_EQ(RNIC_CM_EVENT_CONNECT_REQUEST,
		  cw_event(self, &ev, self->cm0, CW_ANSWER_MS));
	cw_destroy(_metadata, self->cm0, ev.out_id);
	expect_mad(mad, CW_REJ);
	cw_real_connection(_metadata, self);
}

/* What is not a CM MAD is dropped and counted, each exactly once. */
TEST_F(cm_wire, malformed_are_counted)
{
	uint8_t req[CW_MAD], mad[CW_MAD + 64];
	static const uint32_t lens[] = { 0, 4, 24, 100, 255, 252, 257, 260,
					 320 };
	uint64_t dropped = cw_gsi_dropped(self), sent = 0;
	unsigned int i;

	cw_req(self, req, self->comm++, CW_PORT, 0x777, "");
	/* truncated and oversized */
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(mad, 0, sizeof(mad));
		memcpy(mad, req, CW_MAD);
		ASSERT_EQ(0, cw_send_raw(self, mad, lens[i], CW_QKEY_GSI,
					 RW_UD | RW_SEND_ONLY));
		sent++;
	}
	/* wrong Q_Key */
	ASSERT_EQ(0, cw_send_raw(self, req, CW_MAD, 0x80010001,
				 RW_UD | RW_SEND_ONLY));
	ASSERT_EQ(0, cw_send_raw(self, req, CW_MAD, RNIC_CM_UDP_QKEY,
				 RW_UD | RW_SEND_ONLY));
	/* SEND with immediate */
	ASSERT_EQ(0, cw_send_raw(self, req, CW_MAD, CW_QKEY_GSI,
				 RW_UD | RW_SEND_ONLY_IMM));
	sent += 3;
	/* header fields: base version, class, class version, method, attr */
	for (i = 0; i < 9; i++) {
		static const struct { uint8_t off, val; } bad[] = {
			{ 0, 2 }, { 1, 0x01 }, { 1, 0x08 }, { 2, 1 }, { 2, 3 },
			{ 3, 0x01 }, { 3, 0x81 }, { 17, 0x0f }, { 17, 0x19 },
		};

		memcpy(mad, req, CW_MAD);
		mad[bad[i].off] = bad[i].val;
		ASSERT_EQ(0, cw_send(self, mad));
		sent++;
	}
	memcpy(mad, req, CW_MAD);
	rw_put16(mad + 16, 0xffff);
	ASSERT_EQ(0, cw_send(self, mad));
	sent++;
	ASSERT_EQ(dropped + sent, cw_wait_count(self, RNIC_NL_COUNTER_GSI_DROPPED,
						 dropped + sent));
	expect_quiet();
	expect_no_event(self->cm0);
	cw_real_connection(_metadata, self);
}

/* ---- the mutation mode --------------------------------------------------- */

/* Answer host 0's events at random; how many were read. */
static unsigned int cw_answer(struct __test_metadata *_metadata,
			      FIXTURE_DATA(cm_wire) *self, uint64_t *s)
{
	struct rnic_cm_get_event ev;
	unsigned int n = 0;

	while (cw_event(self, &ev, self->cm0, 0) >= 0) {
		struct rnic_cm_reject rej = { .size = sizeof(rej),
					      .id = ev.out_id };
		struct rnic_cm_disconnect d = { .size = sizeof(d),
						.id = ev.out_id };
		struct rnic_cm_destroy_id x = { .size = sizeof(x),
						.id = ev.out_id };

		n++;
		switch (ev.out_event) {
		case RNIC_CM_EVENT_CONNECT_REQUEST:
			/* each answered: the backlog has room again */
			if (fuzz_rand(s) % 2)
				cw_accept(_metadata, self, ev.out_id, 0x100);
			else if (fuzz_rand(s) % 2)
				_rnic_ioctl(self->cm0, RNIC_CM_IOCTL_REJECT,
					    &rej);
			else
				_rnic_ioctl(self->cm0, RNIC_CM_IOCTL_DESTROY_ID,
					    &x);
			break;
		case RNIC_CM_EVENT_DISCONNECTED:
			_rnic_ioctl(self->cm0, RNIC_CM_IOCTL_DISCONNECT, &d);
			break;
		case RNIC_CM_EVENT_ESTABLISHED:
			if (fuzz_rand(s) % 2)
				break;
			_rnic_ioctl(self->cm0, RNIC_CM_IOCTL_DISCONNECT, &d);
			break;
		default:
			/* the listeners stay; whatever else is over */
			if (ev.out_id != self->listener &&
			    ev.out_id != self->ud_listener)
				_rnic_ioctl(self->cm0, RNIC_CM_IOCTL_DESTROY_ID,
					    &x);
			break;
		}
	}
	return n;
}

/* A valid MAD of a random kind, naming recent comm ids. */
static void cw_template(FIXTURE_DATA(cm_wire) *self, uint64_t *s,
			uint8_t *mad, uint32_t *them)
{
	uint32_t x = self->comm - fuzz_rand(s) % 4;
	uint32_t y = them[fuzz_rand(s) % 4];

	switch (fuzz_rand(s) % 10) {
	case 0:
	case 1:
		cw_req(self, mad, fuzz_rand(s) % 4 ? self->comm++ : x,
		       fuzz_rand(s) % 4 ? CW_PORT : CW_DEAD_PORT, 0x700, "m");
		break;
	case 2:
		cw_sidr_req(self, mad, fuzz_rand(s) % 2 ? self->comm++ : x,
			    fuzz_rand(s) % 4 ? CW_PORT : CW_DEAD_PORT);
		break;
	case 3:
		cw_rep(self, mad, x, y);
		break;
	default: {
		static const uint16_t attrs[] = {
			CW_RTU, CW_REJ, CW_DREQ, CW_DREP, CW_MRA, CW_SIDR_REP,
		};

		cw_msg(self, mad, attrs[fuzz_rand(s) % ARRAY_SIZE(attrs)], x, y);
		break;
	}
	}
}

/*
 * RNIC_CM_WIRE_PKTS mutations of valid MADs: bits flipped, bytes set,
 * lengths, Q_Keys and opcodes changed; host 0 answers what it takes at
 * random. Nothing may crash or warn (the VM's log is checked), gsi_dropped
 * counts no more than was sent, and a real connection works afterwards.
 */
TEST_F_TIMEOUT(cm_wire, mutate, 7200)
{
	unsigned long pkts = fuzz_env("RNIC_CM_WIRE_PKTS", CW_PKTS);
	uint64_t seed = fuzz_env("RNIC_CM_WIRE_SEED", CW_SEED);
	uint64_t dropped = cw_gsi_dropped(self);
	uint32_t them[4] = { 0 };
	unsigned long i, events = 0, answers = 0;
	uint8_t mad[CW_MAD + 64], got[CW_MAD];
	long t0 = dp_now_ms();

	TH_LOG("seed %" PRIu64 ", %lu packets", seed, pkts);
	for (i = 0; i < pkts; i++) {
		uint64_t s = fuzz_mix(seed ^ fuzz_mix(i));
		uint32_t len = CW_MAD, qkey = CW_QKEY_GSI;
		uint8_t opcode = RW_UD | RW_SEND_ONLY;
		unsigned int k, n;

		memset(mad, 0, sizeof(mad));
		cw_template(self, &s, mad, them);
		switch (fuzz_rand(&s) % 8) {
		case 0:	/* bits flipped anywhere */
			for (n = 1 + fuzz_rand(&s) % 8, k = 0; k < n; k++)
				mad[fuzz_rand(&s) % CW_MAD] ^= 1 << fuzz_rand(&s) % 8;
			break;
		case 1:	/* a byte of the message set */
			mad[CW_HDR + fuzz_rand(&s) % (CW_MAD - CW_HDR)] =
				fuzz_rand(&s);
			break;
		case 2:	/* a byte of the MAD header */
			mad[fuzz_rand(&s) % CW_HDR] = fuzz_rand(&s);
			break;
		case 3:	/* length */
			len = fuzz_rand(&s) % (CW_MAD + 64);
			break;
		case 4:
			if (fuzz_rand(&s) % 2)
				qkey = fuzz_rand(&s);
			else
				opcode = fuzz_rand(&s) % 2 ?
					 (RW_UD | RW_SEND_ONLY_IMM) :
					 (RW_RC | (fuzz_rand(&s) % 8));
			break;
		case 5:	/* a comm id field: a live one's neighbour */
			rw_put32(mad + CW_HDR + 4 * (fuzz_rand(&s) % 2),
				 them[fuzz_rand(&s) % 4] + fuzz_rand(&s) % 3 - 1);
			break;
		default: /* valid */
			break;
		}
		ASSERT_EQ(0, cw_send_raw(self, mad, len, qkey, opcode));
		if (i % 64 == 63) {
			/* remember host 0's comm ids for the next messages */
			while (cw_recv(self, got, 0)) {
				answers++;
				them[answers % 4] = cw_get32(got + CW_HDR);
			}
			events += cw_answer(_metadata, self, &s);
		}
	}
	usleep(200000);
	events += cw_answer(_metadata, self, &seed);
	TH_LOG("%lu packets in %ld ms: %lu events, %lu answers captured, gsi_dropped +%" PRIu64,
	       pkts, dp_now_ms() - t0, events, answers,
	       cw_gsi_dropped(self) - dropped);
	ASSERT_GE(dropped + pkts, cw_gsi_dropped(self));
	if (pkts >= 1000) {
		/* the valid eighth at least got requests and answers */
		ASSERT_LT(0, events);
		ASSERT_LT(0, answers);
	}
	cw_real_connection(_metadata, self);
}

TEST_HARNESS_MAIN
