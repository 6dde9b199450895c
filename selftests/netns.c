// SPDX-License-Identifier: GPL-2.0
/*
 * Network and pid namespaces: a device belongs to a network namespace (its
 * netdev's, or its creator's when unbound), nothing crosses from one
 * namespace to another, listings show the caller's namespace only, and a
 * namespace that goes away takes its devices along.
 *
 * The fixture makes two network namespaces, each with a dummy netdev
 * carrying the same IPv4 address and an rnic device bound to it, and opens
 * a context on each device from inside its namespace. The test process
 * itself lives in the initial namespace between steps (setns()).
 */
#include <sched.h>
#include <sys/socket.h>

#include "rnic_dp_test.h"

#define NS_NETDEV	"t_nsdum"
#define NS_ADDR		"192.0.2.1"
#define NS_WAIT_MS	10000
#define NS_MSG		64

/* ::ffff:192.0.2.1, the GID of NS_ADDR in both namespaces */
static const uint8_t ns_gid[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 };

/**
 * struct ns_side - one namespace of the fixture
 * @nsfd: the namespace (/proc/self/ns/net of a process inside)
 * @g: a netlink socket opened inside it
 * @dev: the rnic device bound to NS_NETDEV there
 * @ctx, @pd, @cq: a context on @dev opened inside the namespace
 * @gid_index: index of ns_gid in @dev's GID table
 */
struct ns_side {
	int nsfd;
	struct rnic_genl *g;
	char dev[RNIC_LINK_NAME_SIZE];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int gid_index;
};

static int ns_self(void)
{
	return open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
}

/* Wait for @gid in @ctx's GID table; its index or -1. */
static int ns_wait_gid(struct ibv_context *ctx, const uint8_t *gid)
{
	long end = dp_now_ms() + NS_WAIT_MS;
	int index;

	while ((index = dp_find_gid(ctx, gid)) < 0 && dp_now_ms() < end)
		usleep(10000);
	return index;
}

/* Wait until no device called @name exists any more; whether it is gone. */
static bool ns_wait_gone(const char *name)
{
	long end = dp_now_ms() + NS_WAIT_MS;

	while (rnic_sysfs_exists(name) && dp_now_ms() < end)
		usleep(10000);
	return !rnic_sysfs_exists(name);
}

static const union ibv_gid *ns_ibv_gid(void)
{
	return (const union ibv_gid *)ns_gid;
}

/* Open a context with a PD and a CQ on @s->dev; current namespace. */
static void ns_open_ctx(struct __test_metadata *_metadata, struct ns_side *s)
{
	s->ctx = rnic_ibv_open(s->dev);
	ASSERT_NE(NULL, s->ctx) TH_LOG("open %s: %s", s->dev, strerror(errno));
	s->pd = ibv_alloc_pd(s->ctx);
	ASSERT_NE(NULL, s->pd);
	s->cq = ibv_create_cq(s->ctx, DP_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, s->cq);
	s->gid_index = ns_wait_gid(s->ctx, ns_gid);
	ASSERT_LE(0, s->gid_index) TH_LOG("%s never got " NS_ADDR, s->dev);
}

static void ns_close_ctx(struct __test_metadata *_metadata, struct ns_side *s)
{
	if (s->cq)
		EXPECT_EQ(0, ibv_destroy_cq(s->cq));
	if (s->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(s->pd));
	if (s->ctx)
		EXPECT_EQ(0, ibv_close_device(s->ctx));
	s->cq = NULL;
	s->pd = NULL;
	s->ctx = NULL;
}

/* A QP of @s, both queues on its CQ. */
static struct ibv_qp *ns_qp(struct ns_side *s, const struct dp_qp_opts *o)
{
	return dp_qp_create(s->pd, s->cq, s->cq, o);
}

/*
 * A QP of @s numbered above @qpn, or NULL. QP numbers are per device: in
 * the other namespace the address is the other device's, so a packet to
 * a number that device also has reaches its own QP, not a lost one.
 */
static struct ibv_qp *ns_qp_above(struct ns_side *s,
				  const struct dp_qp_opts *o, uint32_t qpn)
{
	struct ibv_qp *qp;

	while ((qp = ns_qp(s, o)) && qp->qp_num <= qpn)
		if (ibv_destroy_qp(qp))
			return NULL;
	return qp;
}

/* Connect @qp to @dqpn at NS_ADDR; 0 or an errno value. */
static int ns_rc_connect(struct ibv_qp *qp, const struct dp_qp_opts *o,
			 uint32_t dqpn, int gid_index)
{
	return dp_qp_connect(qp, o, dqpn, ns_ibv_gid(), gid_index, 0x100,
			     0x100, false);
}

/*
 * Two RC QPs of @s connected to each other over NS_ADDR; a SEND of
 * NS_MSG bytes of pattern @seed from the first lands in a receive of the
 * second. The pair is left posted (not polled) so that both namespaces
 * can have traffic in flight at once: ns_rc_check() finishes it.
 */
struct ns_rc {
	struct ibv_qp *qp[2];
	struct dp_buf buf;
	uint32_t seed;
};

static void ns_rc_start(struct __test_metadata *_metadata, struct ns_side *s,
			struct ns_rc *rc, uint32_t seed)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_sgl src, dst;
	int i;

	rc->seed = seed;
	ASSERT_EQ(0, dp_buf_alloc(s->pd, 4096, DP_ACCESS_ALL, &rc->buf));
	for (i = 0; i < 2; i++) {
		rc->qp[i] = ns_qp(s, &o);
		ASSERT_NE(NULL, rc->qp[i]);
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, ns_rc_connect(rc->qp[i], &o, rc->qp[!i]->qp_num,
					   s->gid_index));
	dp_sgl_one(&rc->buf, 0, NS_MSG, &src);
	dp_sgl_one(&rc->buf, 2048, NS_MSG, &dst);
	dp_sgl_fill(&src, seed, 0);
	memset(rc->buf.mem + 2048, 0, NS_MSG);
	ASSERT_EQ(0, dp_post_recv(rc->qp[1], &dst, 2));
	ASSERT_EQ(0, dp_post(rc->qp[0], &(struct dp_wr){
		.op = IBV_WR_SEND, .wr_id = 1, .sgl = &src }));
}

static void ns_rc_check(struct __test_metadata *_metadata, struct ns_side *s,
			struct ns_rc *rc)
{
	struct ibv_wc wc[2];
	struct dp_sgl dst;
	int i;

	ASSERT_EQ(2, dp_poll(s->cq, 2, wc, DP_TIMEOUT_MS));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(IBV_WC_SUCCESS, wc[i].status)
			TH_LOG(DP_WC_FMT, DP_WC_ARGS(&wc[i]));
		if (wc[i].wr_id == 2)
			ASSERT_EQ(NS_MSG, wc[i].byte_len);
	}
	dp_sgl_one(&rc->buf, 2048, NS_MSG, &dst);
	ASSERT_EQ(-1, dp_sgl_check(&dst, 0, NS_MSG, rc->seed))
		TH_LOG("%s: received data is not its own namespace's", s->dev);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, ibv_destroy_qp(rc->qp[i]));
	ASSERT_EQ(0, dp_buf_free(&rc->buf));
}

FIXTURE(netns) {
	int init_ns;
	struct ns_side s[2];
};

FIXTURE_SETUP(netns)
{
	struct ns_side *s;
	int i;

	for (i = 0; i < 2; i++)
		self->s[i].nsfd = -1;
	self->init_ns = ns_self();
	ASSERT_LE(0, self->init_ns);
	for (i = 0; i < 2; i++) {
		s = &self->s[i];
		ASSERT_EQ(0, setns(self->init_ns, CLONE_NEWNET));
		ASSERT_EQ(0, unshare(CLONE_NEWNET));
		s->nsfd = ns_self();
		ASSERT_LE(0, s->nsfd);
		ASSERT_EQ(0, rnic_sh("ip link add " NS_NETDEV " type dummy && "
				     "ip addr add " NS_ADDR "/24 dev " NS_NETDEV
				     " && ip link set " NS_NETDEV " up"));
		s->g = do_ptr(rnic_genl_open());
		snprintf(s->dev, sizeof(s->dev), "rnic_ns%c%d", 'a' + i,
			 getpid());
		do_link_add(s->g, s->dev, NS_NETDEV);
		ns_open_ctx(_metadata, s);
	}
	ASSERT_EQ(0, setns(self->init_ns, CLONE_NEWNET));
}

FIXTURE_TEARDOWN(netns)
{
	struct ns_side *s;
	int i;

	for (i = 0; i < 2; i++) {
		s = &self->s[i];
		/* Closing destroys whatever a failed test left. */
		if (s->ctx)
			EXPECT_EQ(0, ibv_close_device(s->ctx));
		/* Names are global: free them now, not at namespace exit. */
		if (s->g) {
			EXPECT_EQ(0, rnic_link_del(s->g, s->dev));
			rnic_genl_close(s->g);
		}
		if (s->nsfd >= 0)
			close(s->nsfd);
	}
	if (self->init_ns >= 0)
		close(self->init_ns);
}

/* The same address in two namespaces: each pair talks to its own peer. */
TEST_F(netns, same_address_traffic_stays_inside)
{
	struct ns_rc rc[2];
	int i;

	for (i = 0; i < 2; i++)
		ns_rc_start(_metadata, &self->s[i], &rc[i], dp_seed(7, i, 0));
	for (i = 0; i < 2; i++)
		ns_rc_check(_metadata, &self->s[i], &rc[i]);
}

/*
 * A QP in namespace A aimed at the QPN and GID of a QP in namespace B
 * (which is aimed back at it, so that only the namespace stands between
 * them) does not reach it: its SEND and WRITE exhaust their retries, and
 * B's memory and CQ stay untouched.
 */
TEST_F(netns, no_delivery_across_namespaces)
{
	struct ns_side *a = &self->s[0], *b = &self->s[1];
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct dp_buf abuf, bbuf;
	struct ibv_qp *aqp, *bqp;
	struct dp_sgl src, dst;
	struct ibv_wc wc;
	size_t i;

	o.timeout = 12;
	o.retry_cnt = 1;
	ASSERT_EQ(0, dp_buf_alloc(a->pd, 4096, DP_ACCESS_ALL, &abuf));
	ASSERT_EQ(0, dp_buf_alloc(b->pd, 4096, DP_ACCESS_ALL, &bbuf));
	memset(bbuf.mem, 0, bbuf.size);
	aqp = ns_qp(a, &o);
	ASSERT_NE(NULL, aqp);
	/* A's device has no QP of bqp's number. */
	bqp = ns_qp_above(b, &o, aqp->qp_num);
	ASSERT_NE(NULL, bqp);
	ASSERT_EQ(0, ns_rc_connect(aqp, &o, bqp->qp_num, a->gid_index));
	ASSERT_EQ(0, ns_rc_connect(bqp, &o, aqp->qp_num, b->gid_index));

	dp_sgl_one(&bbuf, 0, NS_MSG, &dst);
	ASSERT_EQ(0, dp_post_recv(bqp, &dst, 9));
	dp_sgl_one(&abuf, 0, NS_MSG, &src);
	memset(abuf.mem, 0xa5, NS_MSG);
	ASSERT_EQ(0, dp_post(aqp, &(struct dp_wr){
		.op = IBV_WR_RDMA_WRITE, .wr_id = 1, .sgl = &src,
		.raddr = (uintptr_t)bbuf.mem + 1024, .rkey = bbuf.mr->rkey }));
	ASSERT_EQ(0, dp_post(aqp, &(struct dp_wr){
		.op = IBV_WR_SEND, .wr_id = 2, .sgl = &src }));

	ASSERT_POLL1(a->cq, &wc);
	ASSERT_WC(&wc, 1, IBV_WC_RETRY_EXC_ERR, 0);
	ASSERT_POLL1(a->cq, &wc);
	ASSERT_WC(&wc, 2, IBV_WC_WR_FLUSH_ERR, 0);
	ASSERT_QUIET(b->cq);
	for (i = 0; i < bbuf.size; i++)
		ASSERT_EQ(0, bbuf.mem[i]) TH_LOG("B's byte %zu written", i);
	ASSERT_EQ(IBV_QPS_RTS, dp_qp_state(bqp));

	ASSERT_EQ(0, ibv_destroy_qp(aqp));
	ASSERT_EQ(0, ibv_destroy_qp(bqp));
	ASSERT_EQ(0, dp_buf_free(&abuf));
	ASSERT_EQ(0, dp_buf_free(&bbuf));
}

/*
 * A UD datagram from namespace A to the QPN of a UD QP in B, over the
 * address both have, is lost; the same datagram to a QP of A's own device
 * arrives (so the loss is the namespace's doing).
 */
TEST_F(netns, ud_no_delivery_across_namespaces)
{
	struct ns_side *a = &self->s[0], *b = &self->s[1];
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct ibv_qp *aqp, *alocal, *bqp;
	struct dp_buf abuf, bbuf;
	struct dp_sgl src, dst;
	struct ibv_wc wc, wcs[2];
	struct ibv_ah *ah;

	ASSERT_EQ(0, dp_buf_alloc(a->pd, 4096, DP_ACCESS_ALL, &abuf));
	ASSERT_EQ(0, dp_buf_alloc(b->pd, 4096, DP_ACCESS_ALL, &bbuf));
	aqp = ns_qp(a, &o);
	alocal = ns_qp(a, &o);
	ASSERT_NE(NULL, aqp);
	ASSERT_NE(NULL, alocal);
	/* A's device has no QP of bqp's number. */
	bqp = ns_qp_above(b, &o, alocal->qp_num);
	ASSERT_NE(NULL, bqp);
	ASSERT_EQ(0, dp_qp_connect(aqp, &o, 0, ns_ibv_gid(), a->gid_index,
				   0, 0, false));
	ASSERT_EQ(0, dp_qp_connect(alocal, &o, 0, ns_ibv_gid(), a->gid_index,
				   0, 0, false));
	ASSERT_EQ(0, dp_qp_connect(bqp, &o, 0, ns_ibv_gid(), b->gid_index,
				   0, 0, false));
	ah = dp_ah(a->pd, ns_ibv_gid(), a->gid_index);
	ASSERT_NE(NULL, ah);

	memset(bbuf.mem, 0, bbuf.size);
	dp_sgl_one(&bbuf, 0, NS_MSG + DP_GRH, &dst);
	ASSERT_EQ(0, dp_post_recv(bqp, &dst, 9));
	dp_sgl_one(&abuf, 2048, NS_MSG + DP_GRH, &dst);
	ASSERT_EQ(0, dp_post_recv(alocal, &dst, 8));
	dp_sgl_one(&abuf, 0, NS_MSG, &src);
	memset(abuf.mem, 0xa5, NS_MSG);
	ASSERT_EQ(0, dp_post(aqp, &(struct dp_wr){
		.op = IBV_WR_SEND, .wr_id = 1, .sgl = &src, .ah = ah,
		.rqpn = bqp->qp_num, .qkey = o.qkey }));
	ASSERT_POLL1(a->cq, &wc);
	ASSERT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_QUIET(b->cq);
	ASSERT_EQ(0, bbuf.mem[DP_GRH]) TH_LOG("B received A's datagram");

	ASSERT_EQ(0, dp_post(aqp, &(struct dp_wr){
		.op = IBV_WR_SEND, .wr_id = 2, .sgl = &src, .ah = ah,
		.rqpn = alocal->qp_num, .qkey = o.qkey }));
	ASSERT_EQ(2, dp_poll(a->cq, 2, wcs, DP_TIMEOUT_MS));
	ASSERT_EQ(IBV_WC_SUCCESS, wcs[0].status);
	ASSERT_EQ(IBV_WC_SUCCESS, wcs[1].status);
	ASSERT_EQ(0xa5, abuf.mem[2048 + DP_GRH]);

	ASSERT_EQ(0, ibv_destroy_ah(ah));
	ASSERT_EQ(0, ibv_destroy_qp(aqp));
	ASSERT_EQ(0, ibv_destroy_qp(alocal));
	ASSERT_EQ(0, ibv_destroy_qp(bqp));
	ASSERT_EQ(0, dp_buf_free(&abuf));
	ASSERT_EQ(0, dp_buf_free(&bbuf));
}

/* Names of the devices a LINK_GET dump lists, "" terminated. */
static int ns_link_names(struct rnic_genl *g,
			 char (*names)[RNIC_LINK_NAME_SIZE])
{
	memset(names, 0, (RNIC_MAX_DEVICES + 1) * sizeof(*names));
	return rnic_link_dump(g, rnic_collect_name, names);
}

static bool ns_listed(char (*names)[RNIC_LINK_NAME_SIZE], const char *name)
{
	int i;

	for (i = 0; names[i][0]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* What a RES_GET dump told: how many devices, the first one's report. */
struct ns_res_dump {
	unsigned int n;
	struct rnic_res_info first;
};

static int ns_collect_res(const void *res, void *arg)
{
	const struct rnic_res_info *info = res;
	struct ns_res_dump *out = arg;

	if (!out->n++)
		out->first = *info;
	return 0;
}

/* LINK and RES, dumps and single gets, see the caller's namespace only. */
TEST_F(netns, listings_show_own_namespace)
{
	char (*names)[RNIC_LINK_NAME_SIZE];
	struct ns_side *a = &self->s[0], *b = &self->s[1];
	struct rnic_link_info *link;
	struct ns_res_dump *dump;
	struct rnic_genl *g0;

	names = calloc(RNIC_MAX_DEVICES + 1, sizeof(*names));
	link = calloc(1, sizeof(*link));
	dump = calloc(1, sizeof(*dump));
	ASSERT_NE(NULL, names);
	ASSERT_NE(NULL, link);
	ASSERT_NE(NULL, dump);

	ASSERT_EQ(0, ns_link_names(a->g, names));
	ASSERT_STREQ(a->dev, names[0]);
	ASSERT_EQ(0, names[1][0]) TH_LOG("A lists %s", names[1]);
	ASSERT_EQ(-ENODEV, rnic_link_get(a->g, b->dev, link));
	ASSERT_EQ(-ENODEV, rnic_res_get(a->g, b->dev, &dump->first));
	/* Neither removable nor shadowed from another namespace. */
	ASSERT_EQ(-ENODEV, rnic_link_del(a->g, b->dev));
	ASSERT_EQ(-EEXIST, rnic_link_add(a->g, b->dev, NULL));
	ASSERT_EQ(0, rnic_link_get(b->g, b->dev, link));

	/* RES: one device, one context (ours, by our pid). */
	memset(dump, 0, sizeof(*dump));
	ASSERT_EQ(0, rnic_res_dump(a->g, ns_collect_res, dump));
	ASSERT_EQ(1, dump->n) TH_LOG("A's RES dump has %u devices", dump->n);
	ASSERT_STREQ(a->dev, dump->first.name);
	ASSERT_EQ(1, dump->first.n_ctxs);
	ASSERT_EQ((uint32_t)getpid(), dump->first.ctxs[0].pid);

	/* The initial namespace sees neither. */
	g0 = rnic_genl_open();
	ASSERT_NE(NULL, g0);
	ASSERT_EQ(0, ns_link_names(g0, names));
	EXPECT_FALSE(ns_listed(names, a->dev));
	EXPECT_FALSE(ns_listed(names, b->dev));
	EXPECT_EQ(-ENODEV, rnic_link_get(g0, a->dev, link));
	rnic_genl_close(g0);
	free(names);
	free(link);
	free(dump);
}

/* A device's char device opens in its own namespace only. */
TEST_F(netns, open_from_other_namespace_refused)
{
	int fd;

	ASSERT_EQ(-EPERM, rnic_open(self->s[0].dev));
	ASSERT_EQ(0, setns(self->s[1].nsfd, CLONE_NEWNET));
	ASSERT_EQ(-EPERM, rnic_open(self->s[0].dev));
	ASSERT_EQ(0, setns(self->s[0].nsfd, CLONE_NEWNET));
	fd = rnic_open(self->s[0].dev);
	ASSERT_LE(0, fd);
	close(fd);
}

/* The inode number of the namespace @nsfd, as a decimal string. */
static void ns_inum(int nsfd, char *buf, size_t size)
{
	struct stat st;

	snprintf(buf, size, "%lu",
		 fstat(nsfd, &st) ? 0UL : (unsigned long)st.st_ino);
}

/*
 * Whether ibv_get_device_list() lists @name; every device it lists must
 * open (it is of the caller's namespace), else -1.
 */
static int ns_ibv_listed(const char *name)
{
	struct ibv_device **list, **d;
	struct ibv_context *ctx;
	int found = 0;

	list = ibv_get_device_list(NULL);
	if (!list)
		return -1;
	for (d = list; *d; d++) {
		ctx = ibv_open_device(*d);
		if (!ctx) {
			found = -1;
			break;
		}
		ibv_close_device(ctx);
		if (!strcmp(ibv_get_device_name(*d), name))
			found = 1;
	}
	ibv_free_device_list(list);
	return found;
}

/*
 * sysfs shows every device with its namespace (net_ns); librnic lists
 * only the caller's, so that whatever it lists opens.
 */
TEST_F(netns, device_list_shows_own_namespace)
{
	struct ns_side *a = &self->s[0], *b = &self->s[1];
	char want[32], got[32];
	int i;

	for (i = 0; i < 2; i++) {
		ns_inum(self->s[i].nsfd, want, sizeof(want));
		ASSERT_EQ(0, rnic_sysfs_read(self->s[i].dev, "net_ns", got,
					     sizeof(got)));
		ASSERT_STREQ(want, got);
	}
	ASSERT_EQ(0, setns(a->nsfd, CLONE_NEWNET));
	ASSERT_EQ(1, ns_ibv_listed(a->dev));
	ASSERT_EQ(0, ns_ibv_listed(b->dev));
	ASSERT_EQ(0, setns(b->nsfd, CLONE_NEWNET));
	ASSERT_EQ(1, ns_ibv_listed(b->dev));
	ASSERT_EQ(0, ns_ibv_listed(a->dev));
	ASSERT_EQ(0, setns(self->init_ns, CLONE_NEWNET));
	ASSERT_EQ(0, ns_ibv_listed(a->dev));
	ASSERT_EQ(0, ns_ibv_listed(b->dev));
}

/* Send @fd over the UNIX socket @sock. */
static int ns_send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

/* Receive a descriptor sent by ns_send_fd(); it or -errno. */
static int ns_recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -EPROTO;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* Open a context on @name with a PD, a CQ and an RC QP; 0 or -1. */
static int ns_leave_open(const char *name)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	ctx = rnic_ibv_open(name);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	return cq && dp_qp_create(pd, cq, cq, &o) ? 0 : -1;
}

/*
 * The child: in a namespace of its own, make an unbound device and one
 * bound to a dummy netdev, leave a context with objects open on each,
 * pass another context of the unbound one to the parent, exit.
 */
static int ns_dying_child(const char *name, const char *bound, int sock)
{
	struct rnic_genl *g;
	int fd;

	if (unshare(CLONE_NEWNET))
		return 1;
	g = rnic_genl_open();
	if (!g || rnic_link_add(g, name, NULL))
		return 2;
	if (rnic_sh("ip link add t_nsdie type dummy && ip link set t_nsdie up") ||
	    rnic_link_add(g, bound, "t_nsdie"))
		return 3;
	if (ns_leave_open(name) || ns_leave_open(bound))
		return 4;
	fd = rnic_open(name);
	if (fd < 0 || ns_send_fd(sock, fd))
		return 5;
	/* Everything stays open: exit closes it, then the namespace dies. */
	return 0;
}

/*
 * The devices of a namespace go away with it: an unbound one by the
 * namespace's exit, a bound one with its (virtual) netdev. Also when a
 * process of the namespace exited with contexts open, and when a process
 * outside still holds a context, which then sees the device removed.
 */
TEST(devices_die_with_namespace)
{
	char name[RNIC_LINK_NAME_SIZE], bound[RNIC_LINK_NAME_SIZE];
	struct rnic_query_port port;
	int sv[2], status, fd;
	struct rnic_genl *g;
	pid_t pid;

	snprintf(name, sizeof(name), "rnic_nsgone%d", getpid());
	snprintf(bound, sizeof(bound), "rnic_nsgoneb%d", getpid());
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(ns_dying_child(name, bound, sv[1]));
	close(sv[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status) TH_LOG("child failed at step %d",
				    WEXITSTATUS(status));
	fd = ns_recv_fd(sv[0]);
	ASSERT_LE(0, fd);
	close(sv[0]);

	EXPECT_TRUE(ns_wait_gone(bound))
		TH_LOG("%s outlived its namespace", bound);
	EXPECT_TRUE(ns_wait_gone(name))
		TH_LOG("%s outlived its namespace", name);
	EXPECT_EQ(-ENODEV, _query_port(fd, 1, &port));
	close(fd);
	if (rnic_sysfs_exists(name)) {
		/* Unfixed module: the device sits in no namespace at all. */
		g = rnic_genl_open();
		rnic_link_del(g, name);
		rnic_genl_close(g);
	}
}

/*
 * A bound device follows its netdev to another namespace and works there;
 * back in the initial namespace it is listed there again.
 */
TEST(bound_device_follows_netdev)
{
	struct ns_side s = { .nsfd = -1 };
	struct rnic_link_info *link;
	char path[64], want[32], got[32];
	int init_ns, ready[2], hold[2];
	struct rnic_genl *g0;
	struct ns_rc rc;
	char c;
	pid_t pid;

	link = calloc(1, sizeof(*link));
	ASSERT_NE(NULL, link);
	init_ns = ns_self();
	ASSERT_LE(0, init_ns);
	g0 = rnic_genl_open();
	ASSERT_NE(NULL, g0);
	snprintf(s.dev, sizeof(s.dev), "rnic_nsmove%d", getpid());
	rnic_sh("ip link del t_nsmove 2>/dev/null");
	ASSERT_EQ(0, rnic_sh("ip link add t_nsmove type dummy"));
	do_link_add(g0, s.dev, "t_nsmove");

	/* A process that holds a namespace open to move the netdev into. */
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(hold, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(hold[1]);
		if (unshare(CLONE_NEWNET))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		/* Until the parent closes its end. */
		_exit(read(hold[0], &c, 1) == 0 ? 0 : 3);
	}
	close(hold[0]);
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, rnic_sh("ip link set t_nsmove netns %d", pid));

	ASSERT_EQ(-ENODEV, rnic_link_get(g0, s.dev, link));
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	s.nsfd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, s.nsfd);
	ASSERT_EQ(0, setns(s.nsfd, CLONE_NEWNET));
	s.g = rnic_genl_open();
	ASSERT_NE(NULL, s.g);
	ASSERT_EQ(0, rnic_link_get(s.g, s.dev, link))
		TH_LOG("%s did not follow its netdev", s.dev);
	ns_inum(s.nsfd, want, sizeof(want));
	ASSERT_EQ(0, rnic_sysfs_read(s.dev, "net_ns", got, sizeof(got)));
	ASSERT_STREQ(want, got);
	ASSERT_STREQ("t_nsmove", link->netdev);
	ASSERT_EQ(0, rnic_sh("ip addr add " NS_ADDR "/24 dev t_nsmove && "
			     "ip link set t_nsmove up"));
	ns_open_ctx(_metadata, &s);
	ns_rc_start(_metadata, &s, &rc, dp_seed(9, 0, 0));
	ns_rc_check(_metadata, &s, &rc);
	ns_close_ctx(_metadata, &s);

	/* Back to the namespace of pid 1, without the address. */
	ASSERT_EQ(0, rnic_sh("ip link set t_nsmove netns 1"));
	ASSERT_EQ(-ENODEV, rnic_link_get(s.g, s.dev, link));
	ASSERT_EQ(0, setns(init_ns, CLONE_NEWNET));
	ASSERT_EQ(0, rnic_link_get(g0, s.dev, link));
	ASSERT_EQ(-1, rnic_info_gid_index(link, ns_gid));
	ns_inum(init_ns, want, sizeof(want));
	ASSERT_EQ(0, rnic_sysfs_read(s.dev, "net_ns", got, sizeof(got)));
	ASSERT_STREQ(want, got);

	close(hold[1]);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	do_link_del(g0, s.dev);
	EXPECT_EQ(0, rnic_sh("ip link del t_nsmove"));
	rnic_genl_close(s.g);
	rnic_genl_close(g0);
	close(s.nsfd);
	close(init_ns);
	free(link);
}

/**
 * struct ns_pid_view - what a process of a new pid namespace saw in RES
 * @step: 0 if all went well, else the step that failed
 * @n_ctxs: contexts listed on the device
 * @pid: the pid of the first one
 */
struct ns_pid_view {
	int step;
	unsigned int n_ctxs;
	uint32_t pid;
};

/* pid 1 of a new pid namespace: open a context, report what RES shows. */
static void ns_pid_init(const char *name, int out, int hold)
{
	struct ns_pid_view v = { 0 };
	struct rnic_res_info *res = calloc(1, sizeof(*res));
	struct rnic_genl *g = rnic_genl_open();
	char c;
	int fd;

	fd = rnic_open(name);
	if (!res || !g || fd < 0)
		v.step = 1;
	else if (rnic_res_get(g, name, res))
		v.step = 2;
	if (!v.step) {
		v.n_ctxs = res->n_ctxs;
		v.pid = res->n_ctxs ? res->ctxs[0].pid : 0;
	}
	if (write(out, &v, sizeof(v)) != sizeof(v))
		_exit(1);
	/* Keep the context open until the parent has looked. */
	_exit(read(hold, &c, 1) == 0 ? 0 : 1);
}

/*
 * RES lists a context with the pid its reader knows the opener by, and
 * not at all if the reader's pid namespace does not see the opener.
 */
TEST(res_contexts_by_pid_namespace)
{
	char name[RNIC_LINK_NAME_SIZE];
	int view[2], gpid[2], hold[2], fd, status, i;
	struct rnic_res_info *res;
	struct ns_pid_view v;
	struct rnic_genl *g;
	bool own = false, theirs = false;
	pid_t pid, inner;

	res = calloc(1, sizeof(*res));
	ASSERT_NE(NULL, res);
	g = rnic_genl_open();
	ASSERT_NE(NULL, g);
	snprintf(name, sizeof(name), "rnic_nspid%d", getpid());
	do_link_add(g, name, NULL);
	fd = rnic_open(name);
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, pipe2(view, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(gpid, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(hold, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(hold[1]);
		if (unshare(CLONE_NEWPID))
			_exit(1);
		inner = fork();
		if (inner < 0)
			_exit(2);
		if (!inner)
			ns_pid_init(name, view[1], hold[0]);
		if (write(gpid[1], &inner, sizeof(inner)) != sizeof(inner))
			_exit(3);
		_exit(waitpid(inner, &status, 0) == inner && !status ? 0 : 4);
	}
	close(hold[0]);
	ASSERT_EQ(sizeof(inner), read(gpid[0], &inner, sizeof(inner)));
	ASSERT_EQ(sizeof(v), read(view[0], &v, sizeof(v)));

	/* Inside: only its own context, as pid 1. */
	ASSERT_EQ(0, v.step);
	ASSERT_EQ(1, v.n_ctxs) TH_LOG("the new pid namespace sees %u contexts",
				      v.n_ctxs);
	ASSERT_EQ(1, v.pid);

	/* Outside: both, each by its pid here. */
	ASSERT_EQ(0, rnic_res_get(g, name, res));
	ASSERT_EQ(2, res->n_ctxs);
	for (i = 0; i < 2; i++) {
		own |= res->ctxs[i].pid == (uint32_t)getpid();
		theirs |= res->ctxs[i].pid == (uint32_t)inner;
	}
	ASSERT_TRUE(own);
	ASSERT_TRUE(theirs);

	close(hold[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	close(fd);
	do_link_del(g, name);
	rnic_genl_close(g);
	free(res);
}

TEST_HARNESS_MAIN
