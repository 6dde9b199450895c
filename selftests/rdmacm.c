// SPDX-License-Identifier: GPL-2.0
/*
 * librnic's librdmacm API (<rdma/rdma_cma.h>, <rdma/rdma_verbs.h>) on the
 * kernel's connection manager, between two processes on one host: the
 * test process is the active side, a child it forks the passive one.
 * A connection carries a SEND and an RDMA WRITE whose bytes are checked,
 * and ends with DISCONNECTED on both sides; a reject carries its private
 * data (REJECTED, status 28); a port nobody listens on is REJECTED with
 * status 8; rdma_create_ep()/rdma_get_request() make a synchronous pair;
 * rdma_destroy_id() waits for the events not yet acknowledged; a channel
 * works non-blocking and in epoll; rdma_migrate_id() moves an id's events
 * and makes it synchronous; UD ids connect with SIDR and exchange a
 * datagram, then one through a multicast group; rdma_set_option() and
 * rdma_create_srq(); a bound id has its device's PD; and the device
 * accounts no object once the ids are gone; rnic res show cm_id
 * (RNIC_NL_CMD_RES_CM_ID_GET) lists the ids with their state, port space,
 * addresses, QP and process, to the caller's network namespace only, and
 * resumes a listing longer than one dump buffer.
 * churn_with_data makes connections one after the other (new ids
 * and QPs each time, private data naming the cycle, a SEND and an answer
 * by SEND or RDMA WRITE with immediate, every byte checked, either side
 * disconnecting) with no QP number coming back and nothing left over.
 * Raw ioctls of the char device are tested by cm.c.
 *
 * One device bound to a dummy netdev with 10.82.0.1/24.
 * RNIC_RDMACM_CHURN (default 400) sets churn_with_data's connections
 * (make stress: 10,000).
 */
#include <arpa/inet.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "rnic_test.h"

#define DEV	"t_rcm_a"
#define NETDEV	"t_rcm0"
#define IP	"10.82.0.1"
#define PORT	7481
#define EV_TIMEOUT_MS 5000

#define SEND_LEN	4096
#define WRITE_LEN	8192

/* What the passive side says in its REP: where the client may write. */
struct target {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

FIXTURE(rdmacm) {
	struct rnic_genl *g;
	struct rnic_res_info *res;
	pid_t child;
	int ready[2];	/* the child writes a byte once it listens */
};

FIXTURE_SETUP(rdmacm)
{
	self->child = -1;
	self->ready[0] = self->ready[1] = -1;
	rnic_fixture_setup(_metadata, &self->g, &self->res, NULL, NULL);
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
	ASSERT_EQ(0, rnic_sh("ip link add " NETDEV " type dummy && "
			     "ip link set " NETDEV " up && "
			     "ip addr add " IP "/24 dev " NETDEV));
	do_link_add(self->g, DEV, NETDEV);
	ASSERT_EQ(0, pipe(self->ready));
}

FIXTURE_TEARDOWN(rdmacm)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	close(self->ready[0]);
	close(self->ready[1]);
	rnic_fixture_teardown(_metadata, self->g, self->res);
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
}

static struct sockaddr_in sin_of(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_port = htons(port);
	inet_pton(AF_INET, IP, &sin.sin_addr);
	return sin;
}

static uint8_t pattern(size_t i, int seed)
{
	return (uint8_t)(i * 7 + (size_t)seed);
}

/* The next event of @ch within EV_TIMEOUT_MS, or NULL. */
static struct rdma_cm_event *next_ev(struct rdma_event_channel *ch)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, EV_TIMEOUT_MS) != 1 || rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/* The next event of @ch within EV_TIMEOUT_MS, if it is @want; else NULL. */
static struct rdma_cm_event *get_ev(struct rdma_event_channel *ch,
				    enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = next_ev(ch);

	if (!ev)
		return NULL;
	if (ev->event == want)
		return ev;
	fprintf(stderr, "# got %s (status %d), expected %s\n",
		rdma_event_str(ev->event), ev->status, rdma_event_str(want));
	rdma_ack_cm_event(ev);
	return NULL;
}

static bool ack_ev(struct rdma_event_channel *ch,
		   enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = get_ev(ch, want);

	if (ev)
		rdma_ack_cm_event(ev);
	return ev != NULL;
}

/* A listener on PORT + @off, then a byte on @ready_fd; NULL on failure. */
static struct rdma_cm_id *listen_ps(struct rdma_event_channel *ch, int off,
				    int ready_fd, enum rdma_port_space ps)
{
	struct sockaddr_in sin = sin_of(PORT + off);
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, ps))
		return NULL;
	if (rdma_bind_addr(id, (struct sockaddr *)&sin) ||
	    rdma_listen(id, 4) || write(ready_fd, "r", 1) != 1) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

static struct rdma_cm_id *listen_on(struct rdma_event_channel *ch, int off,
				    int ready_fd)
{
	return listen_ps(ch, off, ready_fd, RDMA_PS_TCP);
}

/* The active side's id of port space @ps, its route resolved to PORT + @off. */
static struct rdma_cm_id *resolve_ps(struct rdma_event_channel *ch, int off,
				     enum rdma_port_space ps)
{
	struct sockaddr_in sin = sin_of(PORT + off);
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, ps))
		return NULL;
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 2000) ||
	    !ack_ev(ch, RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(id, 2000) ||
	    !ack_ev(ch, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

static struct rdma_cm_id *resolve(struct rdma_event_channel *ch, int off)
{
	return resolve_ps(ch, off, RDMA_PS_TCP);
}

static int create_qp_type(struct rdma_cm_id *id, struct ibv_pd *pd,
			  enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
		.sq_sig_all = 1,
	};

	return rdma_create_qp(id, pd, &attr);
}

static int create_qp(struct rdma_cm_id *id, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	return rdma_create_qp(id, pd, &attr);
}

static bool wait_child(pid_t *pid, int *status)
{
	bool ok = waitpid(*pid, status, 0) == *pid;

	*pid = -1;
	return ok;
}

/*
 * The passive side of data_path: accepts, advertises its write target in
 * the REP, checks the SEND and then (told by a second SEND) the RDMA
 * WRITE, and waits for DISCONNECTED. Exit status: the failed step.
 */
static int passive_data(int ready_fd)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param = { 0 };
	static uint8_t rbuf[SEND_LEN], wbuf[WRITE_LEN];
	struct rdma_cm_id *listen, *id;
	struct ibv_qp_init_attr qinit;
	struct ibv_qp_attr qattr;
	struct rdma_cm_event *ev;
	struct ibv_mr *rmr, *wmr;
	struct target t;
	struct ibv_wc wc;
	size_t i;

	listen = ch ? listen_on(ch, 0, ready_fd) : NULL;
	if (!listen)
		return 10;
	ev = get_ev(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!ev || ev->listen_id != listen ||
	    ev->param.conn.private_data_len < 5 ||
	    memcmp(ev->param.conn.private_data, "hello", 5))
		return 11;
	id = ev->id;
	rdma_ack_cm_event(ev);
	if (!id->verbs || create_qp(id, NULL))
		return 12;
	rmr = rdma_reg_msgs(id, rbuf, sizeof(rbuf));
	wmr = rdma_reg_write(id, wbuf, sizeof(wbuf));
	if (!rmr || !wmr || rdma_post_recv(id, NULL, rbuf, sizeof(rbuf), rmr))
		return 13;
	t.addr = (uintptr_t)wbuf;
	t.rkey = wmr->rkey;
	t.len = sizeof(wbuf);
	param.private_data = &t;
	param.private_data_len = sizeof(t);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	/*
	 * The RNR retries of the client's QP are the passive side's to name
	 * (the IB CM's REP): it reposts its receive after checking the
	 * first message.
	 */
	param.rnr_retry_count = 7;
	if (rdma_accept(id, &param) || !ack_ev(ch, RDMA_CM_EVENT_ESTABLISHED))
		return 14;
	if (rdma_get_recv_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS ||
	    wc.byte_len != SEND_LEN)
		return 15;
	for (i = 0; i < SEND_LEN; i++)
		if (rbuf[i] != pattern(i, 1))
			return 16;
	if (rdma_post_recv(id, NULL, rbuf, sizeof(rbuf), rmr) ||
	    rdma_get_recv_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
		return 17;
	for (i = 0; i < WRITE_LEN; i++)
		if (wbuf[i] != pattern(i, 2))
			return 18;
	if (!ack_ev(ch, RDMA_CM_EVENT_DISCONNECTED))
		return 19;
	/*
	 * The peer's disconnect leaves this side's QP alone, as librdmacm
	 * does: a program may have destroyed it with ibv_destroy_qp()
	 * before it reads the event (rping does).
	 */
	if (ibv_query_qp(id->qp, &qattr, IBV_QP_STATE, &qinit) ||
	    qattr.qp_state != IBV_QPS_RTS)
		return 21;
	rdma_destroy_qp(id);
	rdma_dereg_mr(rmr);
	rdma_dereg_mr(wmr);
	if (rdma_destroy_id(id) || rdma_destroy_id(listen))
		return 20;
	rdma_destroy_event_channel(ch);
	return 0;
}

/* Every object of the device is gone (but @pds protection domains). */
static void expect_no_objects(struct __test_metadata *_metadata,
			      struct rnic_genl *g, struct rnic_res_info *res,
			      uint64_t pds)
{
	int k;

	memset(res, 0, sizeof(*res));
	ASSERT_EQ(0, rnic_res_get(g, DEV, res));
	for (k = 0; k < RNIC_RES_NR_KINDS; k++) {
		uint64_t allowed = k == RNIC_RES_PD ? pds : 0;

		EXPECT_GE(allowed, res->counts[k]) {
			TH_LOG("%s: %llu left", rnic_res_kinds[k].name,
			       (unsigned long long)res->counts[k]);
		}
	}
}

static pid_t fork_passive(struct __test_metadata *_metadata, int ready[2],
			  int (*fn)(int ready_fd))
{
	pid_t pid;
	char c;

	/* exit(), not _exit(): librnic releases its devices at exit. */
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		exit(fn(ready[1]));
	}
	EXPECT_LT(0, pid);
	EXPECT_EQ(1, read(ready[0], &c, 1));
	return pid;
}

/* The CM ids of process @pid, as RNIC_NL_CMD_RES_CM_ID_GET lists them. */
struct cm_ids {
	pid_t pid;
	unsigned int n;
	struct rnic_res_obj o[4];
};

static int cm_ids_collect(const void *obj, void *arg)
{
	const struct rnic_res_obj *o = obj;
	struct cm_ids *c = arg;

	if (o->pid != (uint32_t)c->pid)
		return 0;
	if (c->n >= sizeof(c->o) / sizeof(c->o[0]))
		return -ENOSPC;
	c->o[c->n++] = *o;
	return 0;
}

/* @pid's ids (on device @dev only, unless NULL) in @c; 0 or -errno */
static int cm_ids_of(struct rnic_genl *g, const char *dev, pid_t pid,
		     struct cm_ids *c)
{
	memset(c, 0, sizeof(*c));
	c->pid = pid;
	return rnic_genl_dump(g, RNIC_NL_CMD_RES_CM_ID_GET, dev,
			      rnic_res_cm_parse, sizeof(struct rnic_res_obj),
			      cm_ids_collect, c);
}

static bool cm_has(const struct rnic_res_obj *o, unsigned int attr)
{
	return o->attrs & (UINT64_C(1) << attr);
}

/* @a is IP:@port */
static bool cm_addr_is(const struct rnic_cm_sockaddr *a, int port)
{
	struct sockaddr_in want = sin_of(port), got;

	memcpy(&got, a, sizeof(got));
	return got.sin_family == AF_INET && got.sin_port == want.sin_port &&
	       got.sin_addr.s_addr == want.sin_addr.s_addr;
}

/* SEND and RDMA WRITE over a connection, then DISCONNECTED on both sides. */
TEST_F(rdmacm, data_path)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param = { 0 };
	static uint8_t sbuf[SEND_LEN], wbuf[WRITE_LEN];
	struct ibv_mr *smr, *wmr;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct cm_ids ids;
	struct target t;
	struct ibv_pd *pd;
	struct ibv_wc wc;
	int status;
	size_t i;

	ASSERT_NE(NULL, ch);
	self->child = fork_passive(_metadata, self->ready, passive_data);
	id = resolve(ch, 0);
	ASSERT_NE(NULL, id);
	ASSERT_NE(NULL, id->verbs);
	EXPECT_EQ(1, id->port_num);
	ASSERT_EQ(1, id->route.num_paths);
	EXPECT_EQ(htons(PORT), rdma_get_dst_port(id));
	pd = ibv_alloc_pd(id->verbs);
	ASSERT_NE(NULL, pd);
	ASSERT_EQ(0, create_qp(id, pd));
	ASSERT_NE(NULL, id->send_cq);	/* the library's CQs */
	for (i = 0; i < SEND_LEN; i++)
		sbuf[i] = pattern(i, 1);
	for (i = 0; i < WRITE_LEN; i++)
		wbuf[i] = pattern(i, 2);
	smr = ibv_reg_mr(pd, sbuf, sizeof(sbuf), IBV_ACCESS_LOCAL_WRITE);
	wmr = ibv_reg_mr(pd, wbuf, sizeof(wbuf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, smr);
	ASSERT_NE(NULL, wmr);

	param.private_data = "hello";
	param.private_data_len = 5;
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	/* the server's QP's RNR retries (the IB CM's REQ) */
	param.rnr_retry_count = 7;
	ASSERT_EQ(0, rdma_connect(id, &param));
	/* With the library's QP, ESTABLISHED comes in CONNECT_RESPONSE's place. */
	ev = get_ev(ch, RDMA_CM_EVENT_ESTABLISHED);
	ASSERT_NE(NULL, ev);
	ASSERT_LE(sizeof(t), ev->param.conn.private_data_len);
	memcpy(&t, ev->param.conn.private_data, sizeof(t));
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(WRITE_LEN, t.len);
	/* rnic res show cm_id: this side's id, and the child's listener */
	ASSERT_EQ(0, cm_ids_of(self->g, DEV, getpid(), &ids));
	ASSERT_EQ(1, ids.n);
	EXPECT_EQ(RNIC_CM_ESTABLISHED, ids.o[0].cm_state);
	EXPECT_EQ(id->qp->qp_num, ids.o[0].lqpn);
	EXPECT_TRUE(cm_addr_is(&ids.o[0].dst, PORT));
	EXPECT_TRUE(cm_has(&ids.o[0], RNIC_NL_ATTR_RES_SRC_ADDR));
	ASSERT_EQ(0, cm_ids_of(self->g, DEV, self->child, &ids));
	ASSERT_LE(1, ids.n);
	EXPECT_EQ(RNIC_CM_LISTEN, ids.o[0].cm_state);
	EXPECT_TRUE(cm_addr_is(&ids.o[0].src, PORT));

	ASSERT_EQ(0, rdma_post_send(id, NULL, sbuf, SEND_LEN, smr, 0));
	ASSERT_EQ(1, rdma_get_send_comp(id, &wc));
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(0, rdma_post_write(id, NULL, wbuf, WRITE_LEN, wmr, 0,
				     t.addr, t.rkey));
	ASSERT_EQ(1, rdma_get_send_comp(id, &wc));
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(IBV_WC_RDMA_WRITE, wc.opcode);
	/* "the write is there" */
	ASSERT_EQ(0, rdma_post_send(id, NULL, sbuf, 1, smr, 0));
	ASSERT_EQ(1, rdma_get_send_comp(id, &wc));
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status);

	ASSERT_EQ(0, rdma_disconnect(id));
	ASSERT_TRUE(ack_ev(ch, RDMA_CM_EVENT_DISCONNECTED));
	ASSERT_TRUE(wait_child(&self->child, &status));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	rdma_destroy_qp(id);
	EXPECT_EQ(NULL, id->send_cq);
	ibv_dereg_mr(smr);
	ibv_dereg_mr(wmr);
	ibv_dealloc_pd(pd);
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
	/* but the device's PD, which the library keeps for its ids */
	expect_no_objects(_metadata, self->g, self->res, 1);
}

static const char rej_data[] = "not now: the server is busy, come back later";

/* The passive side of reject: rejects the request with rej_data. */
static int passive_reject(int ready_fd)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	listen = ch ? listen_on(ch, 1, ready_fd) : NULL;
	if (!listen)
		return 10;
	ev = get_ev(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!ev)
		return 11;
	id = ev->id;
	rdma_ack_cm_event(ev);
	if (rdma_reject(id, rej_data, sizeof(rej_data)))
		return 12;
	if (rdma_destroy_id(id) || rdma_destroy_id(listen))
		return 13;
	rdma_destroy_event_channel(ch);
	return 0;
}

/* A reject reaches the client with its private data, status 28. */
TEST_F(rdmacm, reject_with_private_data)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int status;

	ASSERT_NE(NULL, ch);
	self->child = fork_passive(_metadata, self->ready, passive_reject);
	id = resolve(ch, 1);
	ASSERT_NE(NULL, id);
	ASSERT_EQ(0, create_qp(id, NULL));
	ASSERT_EQ(0, rdma_connect(id, NULL));
	ev = get_ev(ch, RDMA_CM_EVENT_REJECTED);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(28, ev->status);
	ASSERT_LE(sizeof(rej_data), ev->param.conn.private_data_len);
	EXPECT_EQ(0, memcmp(ev->param.conn.private_data, rej_data,
			    sizeof(rej_data)));
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_TRUE(wait_child(&self->child, &status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	rdma_destroy_qp(id);
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
	/* the library's own PD of the device stays with the process */
	expect_no_objects(_metadata, self->g, self->res, 1);
}

/* No listener on the port: REJECTED, invalid service ID (8). */
TEST_F(rdmacm, nobody_listens)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	ASSERT_NE(NULL, ch);
	id = resolve(ch, 2);
	ASSERT_NE(NULL, id);
	ASSERT_EQ(0, rdma_connect(id, NULL));
	ev = get_ev(ch, RDMA_CM_EVENT_REJECTED);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(8, ev->status);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

/* The passive side of create_ep: rdma_server's echo, synchronous. */
static int passive_ep(int ready_fd)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE }, *res;
	struct rdma_cm_id *listen, *id;
	static uint8_t buf[64];
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char port[16];

	snprintf(port, sizeof(port), "%d", PORT + 3);
	if (rdma_getaddrinfo(IP, port, &hints, &res))
		return 10;
	if (rdma_create_ep(&listen, res, NULL, &attr))
		return 11;
	rdma_freeaddrinfo(res);
	if (rdma_listen(listen, 0) || write(ready_fd, "r", 1) != 1)
		return 12;
	if (rdma_get_request(listen, &id) || !id->qp || !id->event ||
	    id->event->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 13;
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	if (!mr || rdma_post_recv(id, NULL, buf, sizeof(buf), mr))
		return 14;
	if (rdma_accept(id, NULL))
		return 15;
	if (rdma_get_recv_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
		return 16;
	if (rdma_post_send(id, NULL, buf, wc.byte_len, mr, 0) ||
	    rdma_get_send_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
		return 17;
	if (rdma_disconnect(id))
		return 18;
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen);
	return 0;
}

/* rdma_create_ep() and rdma_get_request(): rdma_client and rdma_server. */
TEST_F(rdmacm, create_ep_sync)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	struct rdma_addrinfo hints = { 0 }, *res;
	static uint8_t sbuf[64], rbuf[64];
	struct ibv_mr *smr, *rmr;
	struct rdma_cm_id *id;
	struct ibv_wc wc;
	char port[16];
	int status;

	self->child = fork_passive(_metadata, self->ready, passive_ep);
	snprintf(port, sizeof(port), "%d", PORT + 3);
	hints.ai_port_space = RDMA_PS_TCP;
	ASSERT_EQ(0, rdma_getaddrinfo(IP, port, &hints, &res));
	ASSERT_EQ(0, rdma_create_ep(&id, res, NULL, &attr));
	rdma_freeaddrinfo(res);
	ASSERT_NE(NULL, id->qp);
	ASSERT_NE(NULL, id->pd);
	memcpy(sbuf, "echo this, synchronous server", 30);
	smr = rdma_reg_msgs(id, sbuf, sizeof(sbuf));
	rmr = rdma_reg_msgs(id, rbuf, sizeof(rbuf));
	ASSERT_NE(NULL, smr);
	ASSERT_NE(NULL, rmr);
	ASSERT_EQ(0, rdma_post_recv(id, NULL, rbuf, sizeof(rbuf), rmr));
	ASSERT_EQ(0, rdma_connect(id, NULL));
	ASSERT_EQ(0, rdma_post_send(id, NULL, sbuf, 30, smr, 0));
	ASSERT_EQ(1, rdma_get_send_comp(id, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(1, rdma_get_recv_comp(id, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(30, wc.byte_len);
	EXPECT_EQ(0, memcmp(rbuf, sbuf, 30));
	/* The server disconnected first: ours answers its DREQ. */
	EXPECT_EQ(0, rdma_disconnect(id));
	ASSERT_TRUE(wait_child(&self->child, &status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	rdma_dereg_mr(smr);
	rdma_dereg_mr(rmr);
	rdma_destroy_ep(id);
	expect_no_objects(_metadata, self->g, self->res, 1);
}

struct late_ack {
	struct rdma_cm_event *ev;
	struct timespec acked;
};

static void *ack_later(void *arg)
{
	struct late_ack *la = arg;

	usleep(300 * 1000);
	clock_gettime(CLOCK_MONOTONIC, &la->acked);
	rdma_ack_cm_event(la->ev);
	return NULL;
}

/*
 * rdma_destroy_id() of an id whose event the application still holds
 * waits for the acknowledgement (the event points at the id).
 */
TEST_F(rdmacm, destroy_waits_for_unacked_events)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct late_ack la = { 0 };
	struct rdma_cm_id *id;
	struct timespec done;
	pthread_t thread;

	ASSERT_NE(NULL, ch);
	id = resolve(ch, 4);
	ASSERT_NE(NULL, id);
	ASSERT_EQ(0, rdma_connect(id, NULL));
	la.ev = get_ev(ch, RDMA_CM_EVENT_REJECTED);
	ASSERT_NE(NULL, la.ev);
	ASSERT_EQ(id, la.ev->id);
	ASSERT_EQ(0, pthread_create(&thread, NULL, ack_later, &la));
	ASSERT_EQ(0, rdma_destroy_id(id));
	clock_gettime(CLOCK_MONOTONIC, &done);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	/* returned only once the event was acknowledged */
	EXPECT_TRUE(done.tv_sec > la.acked.tv_sec ||
		    (done.tv_sec == la.acked.tv_sec &&
		     done.tv_nsec >= la.acked.tv_nsec));
	rdma_destroy_event_channel(ch);
}

/* An O_NONBLOCK channel: EAGAIN while empty; epoll says when it is not. */
TEST_F(rdmacm, nonblocking_channel_and_epoll)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in sin = sin_of(PORT + 5);
	struct epoll_event eev = { .events = EPOLLIN }, got;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int ep;

	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK));
	errno = 0;
	EXPECT_EQ(-1, rdma_get_cm_event(ch, &ev));
	EXPECT_EQ(EAGAIN, errno);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, ch->fd, &eev));
	EXPECT_EQ(0, epoll_wait(ep, &got, 1, 0));
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin,
				       2000));
	ASSERT_EQ(1, epoll_wait(ep, &got, 1, EV_TIMEOUT_MS));
	ASSERT_EQ(0, rdma_get_cm_event(ch, &ev));
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, ev->event);
	EXPECT_EQ(id, ev->id);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	errno = 0;
	EXPECT_EQ(-1, rdma_get_cm_event(ch, &ev));
	EXPECT_EQ(EAGAIN, errno);
	close(ep);
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

/*
 * rdma_migrate_id(): the id's next event comes on the new channel; with
 * NULL the id becomes synchronous (rdma_connect() waits and reports the
 * reject).
 */
TEST_F(rdmacm, migrate_id)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_event_channel *ch2 = rdma_create_event_channel();
	struct sockaddr_in sin = sin_of(PORT + 6);
	struct pollfd pfd;
	struct rdma_cm_id *id;

	ASSERT_NE(NULL, ch);
	ASSERT_NE(NULL, ch2);
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin,
				       2000));
	ASSERT_TRUE(ack_ev(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	ASSERT_EQ(0, rdma_migrate_id(id, ch2));
	EXPECT_EQ(ch2, id->channel);
	ASSERT_EQ(0, rdma_resolve_route(id, 2000));
	ASSERT_TRUE(ack_ev(ch2, RDMA_CM_EVENT_ROUTE_RESOLVED));
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, rdma_migrate_id(id, NULL));
	EXPECT_NE(ch2, id->channel);
	errno = 0;
	EXPECT_EQ(-1, rdma_connect(id, NULL));
	EXPECT_EQ(ECONNREFUSED, errno);
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_REJECTED, id->event->event);
	EXPECT_EQ(8, id->event->status);
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch2);
	rdma_destroy_event_channel(ch);
}

#define UD_GRH		40
#define GROUP		"239.3.3.3"

static const char ud_msg[] = "a datagram to the SIDR peer";
static const char mc_msg[] = "a datagram to the group";
static int mc_context;

/* One receive into @buf (after the GRH): 0 if it holds @want. */
static int ud_recv_check(struct rdma_cm_id *id, uint8_t *buf, size_t len,
			 struct ibv_mr *mr, const char *want)
{
	struct ibv_wc wc;

	if (rdma_get_recv_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS ||
	    wc.byte_len != UD_GRH + strlen(want) + 1 ||
	    memcmp(buf + UD_GRH, want, strlen(want) + 1))
		return -1;
	return rdma_post_recv(id, NULL, buf, len, mr);
}

/*
 * The passive side of ud_sidr_and_multicast: a UD listener answers the
 * SIDR request, receives a datagram, joins GROUP (a second byte on
 * @ready_fd once joined) and receives a datagram sent to the group.
 */
static int passive_ud(int ready_fd)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in group = sin_of(0);
	static uint8_t buf[UD_GRH + 64];
	struct rdma_cm_id *listen, *id;
	struct rdma_cm_event *ev;
	struct ibv_mr *mr;

	inet_pton(AF_INET, GROUP, &group.sin_addr);
	listen = ch ? listen_ps(ch, 7, ready_fd, RDMA_PS_UDP) : NULL;
	if (!listen)
		return 10;
	ev = get_ev(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!ev || ev->param.ud.private_data_len < 8 ||
	    memcmp(ev->param.ud.private_data, "ud hello", 8))
		return 11;
	id = ev->id;
	rdma_ack_cm_event(ev);
	if (id->qp_type != IBV_QPT_UD ||
	    create_qp_type(id, NULL, IBV_QPT_UD))
		return 12;
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	if (!mr || rdma_post_recv(id, NULL, buf, sizeof(buf), mr) ||
	    rdma_accept(id, NULL))
		return 13;
	if (ud_recv_check(id, buf, sizeof(buf), mr, ud_msg))
		return 14;
	if (rdma_join_multicast(id, (struct sockaddr *)&group, &mc_context))
		return 15;
	ev = get_ev(ch, RDMA_CM_EVENT_MULTICAST_JOIN);
	if (!ev || ev->param.ud.private_data != &mc_context ||
	    ev->param.ud.qp_num != 0xffffff)
		return 16;
	rdma_ack_cm_event(ev);
	if (write(ready_fd, "j", 1) != 1)
		return 17;
	if (ud_recv_check(id, buf, sizeof(buf), mr, mc_msg))
		return 18;
	if (rdma_leave_multicast(id, (struct sockaddr *)&group))
		return 19;
	rdma_destroy_qp(id);
	rdma_dereg_mr(mr);
	if (rdma_destroy_id(id) || rdma_destroy_id(listen))
		return 20;
	rdma_destroy_event_channel(ch);
	return 0;
}

/* Sends @msg to @qpn through an AH of @attr; 0 once it completed. */
static int ud_send(struct rdma_cm_id *id, struct ibv_ah_attr *attr,
		   uint32_t qpn, const char *msg, struct ibv_mr *mr)
{
	struct ibv_ah *ah = ibv_create_ah(id->pd, attr);
	struct ibv_wc wc;
	int ret = -1;

	if (!ah)
		return -1;
	if (!rdma_post_ud_send(id, NULL, mr->addr, strlen(msg) + 1, mr, 0, ah,
			       qpn) &&
	    rdma_get_send_comp(id, &wc) == 1 && wc.status == IBV_WC_SUCCESS)
		ret = 0;
	ibv_destroy_ah(ah);
	return ret;
}

/*
 * UD ids: rdma_connect() is SIDR (ESTABLISHED with the peer's QP, Q_Key
 * and address); a datagram to the peer, then one to a multicast group the
 * peer joined (this side joins send-only, for the group's address).
 */
TEST_F(rdmacm, ud_sidr_and_multicast)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_join_mc_attr_ex mc = { 0 };
	struct sockaddr_in group = sin_of(0);
	struct rdma_conn_param param = { 0 };
	struct rdma_ud_param ud;
	static char buf[64];
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	int status;
	char c;

	ASSERT_NE(NULL, ch);
	inet_pton(AF_INET, GROUP, &group.sin_addr);
	self->child = fork_passive(_metadata, self->ready, passive_ud);
	id = resolve_ps(ch, 7, RDMA_PS_UDP);
	ASSERT_NE(NULL, id);
	ASSERT_EQ(IBV_QPT_UD, id->qp_type);
	ASSERT_EQ(0, create_qp_type(id, NULL, IBV_QPT_UD));
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	ASSERT_NE(NULL, mr);

	param.private_data = "ud hello";
	param.private_data_len = 8;
	ASSERT_EQ(0, rdma_connect(id, &param));
	ev = get_ev(ch, RDMA_CM_EVENT_ESTABLISHED);
	ASSERT_NE(NULL, ev);
	ud = ev->param.ud;
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_EQ(RDMA_UDP_QKEY, ud.qkey);
	EXPECT_NE(0, ud.qp_num);
	strcpy(buf, ud_msg);
	ASSERT_EQ(0, ud_send(id, &ud.ah_attr, ud.qp_num, ud_msg, mr));

	ASSERT_EQ(1, read(self->ready[0], &c, 1));	/* the peer joined */
	mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
		       RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	mc.join_flags = RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER;
	mc.addr = (struct sockaddr *)&group;
	ASSERT_EQ(0, rdma_join_multicast_ex(id, &mc, NULL));
	ev = get_ev(ch, RDMA_CM_EVENT_MULTICAST_JOIN);
	ASSERT_NE(NULL, ev);
	ud = ev->param.ud;
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	strcpy(buf, mc_msg);
	ASSERT_EQ(0, ud_send(id, &ud.ah_attr, ud.qp_num, mc_msg, mr));
	ASSERT_TRUE(wait_child(&self->child, &status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	EXPECT_EQ(0, rdma_leave_multicast(id, (struct sockaddr *)&group));
	errno = 0;
	EXPECT_EQ(-1, rdma_leave_multicast(id, (struct sockaddr *)&group));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	rdma_dereg_mr(mr);
	rdma_destroy_qp(id);
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
	expect_no_objects(_metadata, self->g, self->res, 1);
}

/* rdma_set_option(): the ID level's options, sizes checked; no IB level. */
TEST_F(rdmacm, set_option)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in sin = sin_of(PORT + 8);
	struct rdma_cm_id *id, *id2;
	uint8_t tos = 32, tmo = 14;
	int one = 1;

	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(ch, &id2, NULL, RDMA_PS_TCP));
	EXPECT_EQ(0, rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
				     &tos, sizeof(tos)));
	EXPECT_EQ(0, rdma_set_option(id, RDMA_OPTION_ID,
				     RDMA_OPTION_ID_ACK_TIMEOUT, &tmo,
				     sizeof(tmo)));
	errno = 0;
	EXPECT_EQ(-1, rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
				      &one, sizeof(one)));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, rdma_set_option(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
				      &one, sizeof(one)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* Without REUSEADDR, a bound port is taken. */
	ASSERT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&sin));
	EXPECT_EQ(htons(PORT + 8), rdma_get_src_port(id));
	errno = 0;
	EXPECT_EQ(-1, rdma_bind_addr(id2, (struct sockaddr *)&sin));
	EXPECT_EQ(EADDRINUSE, errno);
	/* REUSEADDR only before binding */
	errno = 0;
	EXPECT_EQ(-1, rdma_set_option(id, RDMA_OPTION_ID,
				      RDMA_OPTION_ID_REUSEADDR, &one,
				      sizeof(one)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, rdma_destroy_id(id2));
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

/* rdma_create_srq(): the id's QP made after it receives through it. */
TEST_F(rdmacm, srq)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct rdma_cm_id *id;

	ASSERT_NE(NULL, ch);
	id = resolve(ch, 9);
	ASSERT_NE(NULL, id);
	ASSERT_EQ(0, rdma_create_srq(id, NULL, &sattr));
	ASSERT_NE(NULL, id->srq);
	ASSERT_NE(NULL, id->recv_cq);	/* the library's */
	ASSERT_EQ(0, create_qp(id, NULL));
	EXPECT_EQ(id->srq, id->qp->srq);
	rdma_destroy_qp(id);
	EXPECT_NE(NULL, id->recv_cq);	/* the SRQ's CQ stays with it */
	rdma_destroy_srq(id);
	EXPECT_EQ(NULL, id->srq);
	EXPECT_EQ(NULL, id->recv_cq);
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
	expect_no_objects(_metadata, self->g, self->res, 1);
}

/* churn_with_data's listener, its default count, its buffers */
#define CHURN_PORT	(PORT + 10)
#define CHURN_DEFAULT	400
#define CHURN_BUF	4096
#define CHURN_GUARD	0xee

static int churn_cycles;

/*
 * The private data of a REQ and a REP: the cycle and the sender's QP;
 * in the REQ, where the server may write too.
 */
struct churn_pdata {
	uint32_t cycle;
	uint32_t qpn;
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

/* One side's connection of a cycle. */
struct churn_conn {
	const char *who;	/* "client" or "server", for messages */
	struct rdma_cm_id *id;
	struct ibv_mr *rmr, *smr;
	uint8_t rbuf[CHURN_BUF];
	uint8_t sbuf[CHURN_BUF];
};

/* What the client sends in cycle @c: 256 to 4096 bytes. */
static size_t churn_len(int c)
{
	return 256 + (size_t)c * 613 % (CHURN_BUF - 256 + 1);
}

/* The server's answer: another length in the same range. */
static size_t churn_reply_len(int c)
{
	return CHURN_BUF + 256 - churn_len(c);
}

/* Byte @i of cycle @c's message from the client (@dir 0) or server (1). */
static uint8_t churn_byte(size_t i, int c, int dir)
{
	return (uint8_t)(i * 13 + (i >> 8) + (size_t)c * 101 + dir * 0x55);
}

static int churn_fail(const struct churn_conn *cc, int c, const char *what)
{
	fprintf(stderr, "# %s: cycle %d: %s\n", cc->who, c, what);
	return -1;
}

/*
 * Records @qpn in @seen, a bit per 24-bit QP number: false if it was
 * there already. A side records its own QPs' numbers and its peer's
 * together: both are the one device's, from one allocator.
 */
static bool churn_qpn_new(uint8_t *seen, uint32_t qpn)
{
	uint32_t q = qpn & 0xffffff;

	if (seen[q / 8] & (1u << q % 8))
		return false;
	seen[q / 8] |= (uint8_t)(1u << q % 8);
	return true;
}

/*
 * The next completion of @cq (a library CQ, its channel @ch) within
 * EV_TIMEOUT_MS of each wait: rdma_get_comp_() with a time limit, so that
 * a lost completion fails the cycle instead of hanging it.
 */
static bool churn_comp(struct ibv_cq *cq, struct ibv_comp_channel *ch,
		       struct ibv_wc *wc)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n == 1;
		if (ibv_req_notify_cq(cq, 0))
			return false;
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n == 1;
		if (poll(&pfd, 1, EV_TIMEOUT_MS) != 1 ||
		    ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
			return false;
		ibv_ack_cq_events(ev_cq, 1);
	}
}

/*
 * A QP for @cc's id (its number new to @seen), its two MRs (the receive
 * buffer a write target with @access) and a receive posted, guard bytes
 * in its buffer.
 */
static int churn_prepare(struct churn_conn *cc, int c, uint8_t *seen,
			 int access)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	if (rdma_create_qp(cc->id, NULL, &attr))
		return churn_fail(cc, c, "rdma_create_qp");
	if (!churn_qpn_new(seen, cc->id->qp->qp_num))
		return churn_fail(cc, c, "its own QP number again");
	cc->rmr = ibv_reg_mr(cc->id->pd, cc->rbuf, sizeof(cc->rbuf),
			     IBV_ACCESS_LOCAL_WRITE | access);
	cc->smr = rdma_reg_msgs(cc->id, cc->sbuf, sizeof(cc->sbuf));
	memset(cc->rbuf, CHURN_GUARD, sizeof(cc->rbuf));
	if (!cc->rmr || !cc->smr ||
	    rdma_post_recv(cc->id, NULL, cc->rbuf, sizeof(cc->rbuf), cc->rmr))
		return churn_fail(cc, c, "MRs or the receive");
	return 0;
}

/*
 * The peer's private data in @ev (acknowledged here) into @pd: it names
 * cycle @c and the QP the event names, new to @seen.
 */
static int churn_peer(struct churn_conn *cc, struct rdma_cm_event *ev,
		      struct churn_pdata *pd, int c, uint8_t *seen)
{
	bool has = ev->param.conn.private_data_len >= sizeof(*pd);
	uint32_t qpn = ev->param.conn.qp_num;

	if (has)
		memcpy(pd, ev->param.conn.private_data, sizeof(*pd));
	rdma_ack_cm_event(ev);
	if (!has)
		return churn_fail(cc, c, "the peer's private data is short");
	if (pd->cycle != (uint32_t)c || pd->qpn != qpn) {
		fprintf(stderr, "# %s: cycle %d: the peer names cycle %u, "
			"QP %u; the event QP %u\n", cc->who, c, pd->cycle,
			pd->qpn, qpn);
		return -1;
	}
	if (!churn_qpn_new(seen, qpn))
		return churn_fail(cc, c, "the peer's QP number again");
	return 0;
}

/* The receive holds @len bytes of @c's pattern, then guard bytes. */
static bool churn_check(const struct churn_conn *cc, size_t len, int c,
			int dir)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (cc->rbuf[i] != churn_byte(i, c, dir))
			return false;
	for (; i < CHURN_BUF; i++)
		if (cc->rbuf[i] != CHURN_GUARD)
			return false;
	return true;
}

/*
 * The next cycle's request, if it came before this cycle's DISCONNECTED:
 * MADs are datagrams, so the client's DREP and its next REQ may be
 * handled in either order.
 */
static struct rdma_cm_event *churn_early_req;

/* DISCONNECTED of @cc's id, the next event of @ch but an early request. */
static bool churn_disconnected(struct churn_conn *cc,
			       struct rdma_event_channel *ch)
{
	struct rdma_cm_event *ev;
	bool ok;

	for (;;) {
		ev = next_ev(ch);
		if (!ev)
			return false;
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST ||
		    churn_early_req)
			break;
		churn_early_req = ev;
	}
	ok = ev->event == RDMA_CM_EVENT_DISCONNECTED && ev->id == cc->id;
	if (!ok)
		fprintf(stderr, "# %s: got %s (status %d), expected "
			"DISCONNECTED\n", cc->who, rdma_event_str(ev->event),
			ev->status);
	rdma_ack_cm_event(ev);
	return ok;
}

/*
 * The end of cycle @c's connection: on even cycles the client
 * disconnects and the server answers (its DREP), on odd ones the other
 * way round; both get DISCONNECTED and destroy QP, MRs and id.
 */
static int churn_end(struct churn_conn *cc, struct rdma_event_channel *ch,
		     int c, bool server)
{
	bool ok;

	if (server == (c % 2 == 1))
		ok = !rdma_disconnect(cc->id) && churn_disconnected(cc, ch);
	else
		ok = churn_disconnected(cc, ch) && !rdma_disconnect(cc->id);
	if (!ok)
		return churn_fail(cc, c, "disconnect");
	rdma_destroy_qp(cc->id);
	if (rdma_dereg_mr(cc->rmr) || rdma_dereg_mr(cc->smr) ||
	    rdma_destroy_id(cc->id))
		return churn_fail(cc, c, "teardown");
	return 0;
}

/*
 * One connection of the passive side: the client's SEND is checked byte
 * by byte; the answer is a SEND on even cycles, an RDMA WRITE with
 * immediate data (the cycle) into the buffer the REQ named on odd ones.
 */
static int churn_serve(struct rdma_event_channel *ch, struct rdma_cm_id *listen,
		       int c, uint8_t *seen)
{
	static struct churn_conn cc = { .who = "server" };
	size_t len = churn_len(c), rlen = churn_reply_len(c), i;
	struct rdma_conn_param param = { 0 };
	struct ibv_send_wr wr = { 0 }, *bad;
	struct churn_pdata req, rep = { 0 };
	struct rdma_cm_event *ev;
	struct ibv_sge sge;
	struct ibv_wc wc;

	ev = churn_early_req ? churn_early_req :
	     get_ev(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	churn_early_req = NULL;
	if (!ev || ev->listen_id != listen)
		return churn_fail(&cc, c, "no CONNECT_REQUEST");
	cc.id = ev->id;
	if (churn_peer(&cc, ev, &req, c, seen) ||
	    churn_prepare(&cc, c, seen, 0))
		return -1;
	rep.cycle = (uint32_t)c;
	rep.qpn = cc.id->qp->qp_num;
	param.private_data = &rep;
	param.private_data_len = sizeof(rep);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.rnr_retry_count = 7;
	if (rdma_accept(cc.id, &param) ||
	    !ack_ev(ch, RDMA_CM_EVENT_ESTABLISHED))
		return churn_fail(&cc, c, "accept: no ESTABLISHED");

	if (!churn_comp(cc.id->recv_cq, cc.id->recv_cq_channel, &wc) ||
	    wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
	    wc.byte_len != len)
		return churn_fail(&cc, c, "no SEND of the right length");
	if (!churn_check(&cc, len, c, 0))
		return churn_fail(&cc, c, "the SEND's bytes differ");
	for (i = 0; i < rlen; i++)
		cc.sbuf[i] = churn_byte(i, c, 1);
	if (c % 2 == 0) {
		if (rdma_post_send(cc.id, NULL, cc.sbuf, rlen, cc.smr, 0))
			return churn_fail(&cc, c, "post SEND");
	} else {
		if (req.len < rlen)
			return churn_fail(&cc, c, "a write target too small");
		sge.addr = (uintptr_t)cc.sbuf;
		sge.length = (uint32_t)rlen;
		sge.lkey = cc.smr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl((uint32_t)c);
		wr.wr.rdma.remote_addr = req.addr;
		wr.wr.rdma.rkey = req.rkey;
		if (ibv_post_send(cc.id->qp, &wr, &bad))
			return churn_fail(&cc, c, "post RDMA WRITE");
	}
	if (!churn_comp(cc.id->send_cq, cc.id->send_cq_channel, &wc) ||
	    wc.status != IBV_WC_SUCCESS)
		return churn_fail(&cc, c, "the answer did not complete");
	return churn_end(&cc, ch, c, true);
}

/* The passive side of churn_with_data. Exit status: 0 if all went well. */
static int passive_churn(int ready_fd)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	uint8_t *seen = calloc(1 << 21, 1);
	struct rdma_cm_id *listen;
	int c;

	listen = ch ? listen_on(ch, CHURN_PORT - PORT, ready_fd) : NULL;
	if (!listen || !seen)
		return 10;
	for (c = 0; c < churn_cycles; c++)
		if (churn_serve(ch, listen, c, seen))
			return 11;
	if (rdma_destroy_id(listen))
		return 12;
	rdma_destroy_event_channel(ch);
	free(seen);
	return 0;
}

/* The active side's cycle @c: the client of churn_serve(). */
static int churn_connect(struct rdma_event_channel *ch, int c,
			 uint8_t *seen)
{
	static struct churn_conn cc = { .who = "client" };
	size_t len = churn_len(c), rlen = churn_reply_len(c), i;
	struct rdma_conn_param param = { 0 };
	struct churn_pdata req, rep;
	struct rdma_cm_event *ev;
	struct ibv_wc wc;

	cc.id = resolve(ch, CHURN_PORT - PORT);
	if (!cc.id)
		return churn_fail(&cc, c, "address or route");
	if (churn_prepare(&cc, c, seen, IBV_ACCESS_REMOTE_WRITE))
		return -1;
	req.cycle = (uint32_t)c;
	req.qpn = cc.id->qp->qp_num;
	req.addr = (uintptr_t)cc.rbuf;
	req.rkey = cc.rmr->rkey;
	req.len = sizeof(cc.rbuf);
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(cc.id, &param))
		return churn_fail(&cc, c, "rdma_connect");
	/* With the library's QP, ESTABLISHED comes in CONNECT_RESPONSE's place. */
	ev = get_ev(ch, RDMA_CM_EVENT_ESTABLISHED);
	if (!ev)
		return churn_fail(&cc, c, "no ESTABLISHED");
	if (churn_peer(&cc, ev, &rep, c, seen))
		return -1;

	for (i = 0; i < len; i++)
		cc.sbuf[i] = churn_byte(i, c, 0);
	if (rdma_post_send(cc.id, NULL, cc.sbuf, len, cc.smr, 0) ||
	    !churn_comp(cc.id->send_cq, cc.id->send_cq_channel, &wc) ||
	    wc.status != IBV_WC_SUCCESS)
		return churn_fail(&cc, c, "the SEND did not complete");
	if (!churn_comp(cc.id->recv_cq, cc.id->recv_cq_channel, &wc) ||
	    wc.status != IBV_WC_SUCCESS || wc.byte_len != rlen)
		return churn_fail(&cc, c, "no answer of the right length");
	if (c % 2 == 0 ? wc.opcode != IBV_WC_RECV :
	    wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
	    !(wc.wc_flags & IBV_WC_WITH_IMM) ||
	    ntohl(wc.imm_data) != (uint32_t)c)
		return churn_fail(&cc, c, "not the answer expected");
	if (!churn_check(&cc, rlen, c, 1))
		return churn_fail(&cc, c, "the answer's bytes differ");
	return churn_end(&cc, ch, c, false);
}

static double churn_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Connections between two processes, one after the other: each a new id
 * and QP (with the library's CQs) on both sides, private data naming the
 * cycle both ways, a SEND of 256 to 4096 bytes checked byte by byte, an
 * answer of another pattern (SEND, or RDMA WRITE with immediate) checked
 * likewise, then a disconnect by either side in turn. No QP number comes
 * back, on either side, neither its own nor the one the peer's event
 * gave: the device allocates them cyclically over 24 bits, so a number
 * returns only after 16 million others, long after the time wait of the
 * connection that had it (the IB CM's stale connections). Afterwards the
 * device accounts no object, the listener's port is free, and the
 * module's unload counts no CM id left (tools/dev/vm/run fails the run on
 * "rnic: leak"): there is no count of CM ids to read from userspace.
 */
TEST_F_TIMEOUT(rdmacm, churn_with_data, 3600)
{
	const char *env = getenv("RNIC_RDMACM_CHURN");
	struct rdma_event_channel *ch = rdma_create_event_channel();
	uint8_t *seen = calloc(1 << 21, 1);
	struct sockaddr_in sin = sin_of(CHURN_PORT);
	struct pollfd pfd;
	struct rdma_cm_id *id;
	uint64_t left = 0;
	double start, secs;
	int status, c, k;

	churn_cycles = env && atoi(env) > 0 ? atoi(env) : CHURN_DEFAULT;
	ASSERT_NE(NULL, ch);
	ASSERT_NE(NULL, seen);
	self->child = fork_passive(_metadata, self->ready, passive_churn);
	start = churn_now();
	for (c = 0; c < churn_cycles; c++) {
		/* braces: the harness's ASSERT is more than one statement */
		ASSERT_EQ(0, churn_connect(ch, c, seen))
			TH_LOG("cycle %d of %d", c, churn_cycles);
	}
	ASSERT_TRUE(wait_child(&self->child, &status));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status))
		TH_LOG("the server failed (exit %d)", WEXITSTATUS(status));

	/* Nothing is queued for this side; the listener's port is free. */
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	EXPECT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&sin));
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
	/* the library's own PD of the device stays with the process */
	expect_no_objects(_metadata, self->g, self->res, 1);
	for (k = 0; k < RNIC_RES_NR_KINDS; k++)
		if (k != RNIC_RES_PINNED)
			left += self->res->counts[k] -
				(k == RNIC_RES_PD && self->res->counts[k]);
	secs = churn_now() - start;
	ksft_print_msg("rdmacm churn: %d connections with data in %.1f s "
		       "(%.1f ms each), %d QP numbers all distinct, objects "
		       "left %llu besides the library's PD\n", churn_cycles,
		       secs, secs * 1000 / churn_cycles, 2 * churn_cycles,
		       (unsigned long long)left);
	fflush(stdout);	/* the harness ends the test with _exit() */
	free(seen);
}

/* The index of the id's source GID (its route's) in the port's table. */
static uint8_t sgid_index(struct rdma_cm_id *id)
{
	union ibv_gid gid;
	int i;

	for (i = 0; i < 16; i++)
		if (!ibv_query_gid(id->verbs, 1, i, &gid) &&
		    !memcmp(&gid, &id->route.path_rec->sgid, sizeof(gid)))
			return (uint8_t)i;
	return 0;
}

/*
 * A bound id has a PD at once, its device's (shared by the ids of the
 * device, as librdmacm's): pyverbs registers memory and makes AHs and QPs
 * with id->pd right after rdma_bind_addr() or rdma_resolve_route().
 * A QP made in another PD makes that one the id's.
 */
TEST_F(rdmacm, bound_id_has_pd)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in sin = sin_of(PORT + 20);
	struct rdma_cm_id *lid, *id;
	struct ibv_ah_attr ah_attr;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	char buf[64];

	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP));
	EXPECT_EQ(NULL, lid->pd);	/* not bound to a device yet */
	ASSERT_EQ(0, rdma_bind_addr(lid, (struct sockaddr *)&sin));
	ASSERT_NE(NULL, lid->verbs);
	ASSERT_NE(NULL, lid->pd);
	EXPECT_EQ(lid->verbs, lid->pd->context);
	mr = ibv_reg_mr(lid->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(0, ibv_dereg_mr(mr));

	id = resolve(ch, 21);
	ASSERT_NE(NULL, id);
	ASSERT_NE(NULL, id->pd);
	EXPECT_EQ(lid->pd, id->pd);	/* one PD per device */
	memset(&ah_attr, 0, sizeof(ah_attr));
	ah_attr.is_global = 1;
	ah_attr.port_num = 1;
	ah_attr.grh.dgid = id->route.path_rec->dgid;
	ah_attr.grh.sgid_index = sgid_index(id);
	ah_attr.grh.hop_limit = 1;
	ah = ibv_create_ah(id->pd, &ah_attr);
	ASSERT_NE(NULL, ah);
	EXPECT_EQ(0, ibv_destroy_ah(ah));

	/* The id's PD follows its QP's. */
	pd = ibv_alloc_pd(id->verbs);
	ASSERT_NE(NULL, pd);
	ASSERT_EQ(0, create_qp(id, pd));
	EXPECT_EQ(pd, id->pd);
	rdma_destroy_qp(id);
	EXPECT_EQ(0, rdma_destroy_id(id));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, rdma_destroy_id(lid));
	rdma_destroy_event_channel(ch);
	expect_no_objects(_metadata, self->g, self->res, 1);
}

/* A child in a network namespace of its own: how many ids it is shown */
static int cm_ids_in_new_netns(void)
{
	struct rnic_genl *g;
	struct cm_ids c;
	int ret;

	if (unshare(CLONE_NEWNET))
		return 100;
	g = rnic_genl_open();
	if (!g)
		return 101;
	ret = cm_ids_of(g, NULL, getppid(), &c);
	rnic_genl_close(g);
	return ret ? 102 : (int)c.n;
}

/*
 * rnic res show cm_id: an id on no device yet, then bound and listening,
 * with its port space, type, address and process; listed for its device
 * and not for another; not to another network namespace; gone once
 * destroyed.
 */
TEST_F(rdmacm, res_show_cm_id)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in sin = sin_of(PORT + 22);
	struct rdma_cm_id *id;
	struct cm_ids ids;
	char comm[32] = "";
	int status;
	pid_t pid;
	FILE *f;

	ASSERT_NE(NULL, ch);
	f = fopen("/proc/self/comm", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';

	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_UDP));
	ASSERT_EQ(0, cm_ids_of(self->g, NULL, getpid(), &ids));
	ASSERT_EQ(1, ids.n);
	EXPECT_EQ(RNIC_CM_IDLE, ids.o[0].cm_state);
	EXPECT_EQ(RNIC_CM_PS_UDP, ids.o[0].cm_ps);
	EXPECT_EQ(IBV_QPT_UD, ids.o[0].qp_type);
	EXPECT_STREQ(comm, ids.o[0].comm);
	EXPECT_FALSE(cm_has(&ids.o[0], RNIC_NL_ATTR_DEV_NAME));
	EXPECT_FALSE(cm_has(&ids.o[0], RNIC_NL_ATTR_RES_SRC_ADDR));
	EXPECT_FALSE(cm_has(&ids.o[0], RNIC_NL_ATTR_RES_DST_ADDR));
	EXPECT_FALSE(cm_has(&ids.o[0], RNIC_NL_ATTR_RES_LQPN));
	/* on no device: not listed for one */
	ASSERT_EQ(0, cm_ids_of(self->g, DEV, getpid(), &ids));
	EXPECT_EQ(0, ids.n);

	ASSERT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&sin));
	ASSERT_EQ(0, rdma_listen(id, 1));
	ASSERT_EQ(0, cm_ids_of(self->g, DEV, getpid(), &ids));
	ASSERT_EQ(1, ids.n);
	EXPECT_EQ(RNIC_CM_LISTEN, ids.o[0].cm_state);
	EXPECT_STREQ(DEV, ids.o[0].name);
	EXPECT_TRUE(cm_addr_is(&ids.o[0].src, PORT + 22));
	EXPECT_FALSE(cm_has(&ids.o[0], RNIC_NL_ATTR_RES_DST_ADDR));
	ASSERT_EQ(0, cm_ids_of(self->g, "t_rcm_none", getpid(), &ids));
	EXPECT_EQ(0, ids.n);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(cm_ids_in_new_netns());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	EXPECT_EQ(0, rdma_destroy_id(id));
	ASSERT_EQ(0, cm_ids_of(self->g, NULL, getpid(), &ids));
	EXPECT_EQ(0, ids.n);
	rdma_destroy_event_channel(ch);
	expect_no_objects(_metadata, self->g, self->res, 1);
}

/* Ids of the long dump: several dump buffers' worth of messages */
#define CM_MANY		300
#define CM_MANY_PORT	(PORT + 1000)

struct cm_seen {
	pid_t pid;
	unsigned int other;	/* ids of this pid not of the test's ports */
	unsigned int n[CM_MANY];
};

/* Count @pid's ids per source port (rnic_genl_each_t). */
static int cm_seen_count(const void *obj, void *arg)
{
	const struct rnic_res_obj *o = obj;
	struct cm_seen *c = arg;
	struct sockaddr_in sin;
	int port;

	if (o->pid != (uint32_t)c->pid)
		return 0;
	memcpy(&sin, &o->src, sizeof(sin));
	port = ntohs(sin.sin_port) - CM_MANY_PORT;
	if (port >= 0 && port < CM_MANY && o->cm_state == RNIC_CM_LISTEN)
		c->n[port]++;
	else
		c->other++;
	return 0;
}

/* A listing longer than one dump buffer resumes where it stopped. */
TEST_F(rdmacm, res_show_cm_id_long_dump)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id[CM_MANY];
	struct cm_seen *c = calloc(1, sizeof(*c));
	struct sockaddr_in sin;
	unsigned int i;

	ASSERT_NE(NULL, ch);
	ASSERT_NE(NULL, c);
	for (i = 0; i < CM_MANY; i++) {
		sin = sin_of(CM_MANY_PORT + i);
		ASSERT_EQ(0, rdma_create_id(ch, &id[i], NULL, RDMA_PS_TCP));
		ASSERT_EQ(0, rdma_bind_addr(id[i], (struct sockaddr *)&sin));
		ASSERT_EQ(0, rdma_listen(id[i], 1));
	}
	c->pid = getpid();
	ASSERT_EQ(0, rnic_genl_dump(self->g, RNIC_NL_CMD_RES_CM_ID_GET, NULL,
				    rnic_res_cm_parse,
				    sizeof(struct rnic_res_obj), cm_seen_count,
				    c));
	EXPECT_EQ(0, c->other);
	for (i = 0; i < CM_MANY; i++)
		EXPECT_EQ(1, c->n[i]) TH_LOG("id %u listed %u times", i,
					     c->n[i]);
	for (i = 0; i < CM_MANY; i++)
		ASSERT_EQ(0, rdma_destroy_id(id[i]));
	rdma_destroy_event_channel(ch);
	free(c);
}

TEST_HARNESS_MAIN
