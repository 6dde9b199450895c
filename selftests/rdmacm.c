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
 * accounts no object once the ids are gone. raw ioctls of the
 * char device are tested by cm.c.
 *
 * One device bound to a dummy netdev with 10.82.0.1/24.
 */
#include <arpa/inet.h>
#include <poll.h>
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

/* The next event of @ch within EV_TIMEOUT_MS, if it is @want; else NULL. */
static struct rdma_cm_event *get_ev(struct rdma_event_channel *ch,
				    enum rdma_cm_event_type want)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, EV_TIMEOUT_MS) != 1 || rdma_get_cm_event(ch, &ev))
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

/* SEND and RDMA WRITE over a connection, then DISCONNECTED on both sides. */
TEST_F(rdmacm, data_path)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param = { 0 };
	static uint8_t sbuf[SEND_LEN], wbuf[WRITE_LEN];
	struct ibv_mr *smr, *wmr;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
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
	struct sockaddr_in sin = sin_of(PORT + 10);
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

	id = resolve(ch, 11);
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

TEST_HARNESS_MAIN
