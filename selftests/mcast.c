// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast groups: UD QPs only, multicast GIDs only (ff00::/8 and
 * IPv4-mapped 224.0.0.0/4), attaching twice and detaching what is not
 * attached (as the kernel's uverbs), EBUSY on destroying an attached QP,
 * groups shared by the contexts of a device, the limits of QPs per group
 * and groups per device, teardown on close and after device removal, and
 * the size contract of the ioctls.
 */
#include <infiniband/verbs.h>
#include <pthread.h>

#include "rnic_verbs_test.h"

#define DEV "t_mc"

/* ff0e::N, or the IPv4-mapped 239.0.x.y */
static union ibv_gid mgid(unsigned int n)
{
	union ibv_gid gid = { .raw = { 0xff, 0x0e } };

	gid.raw[14] = n >> 8;
	gid.raw[15] = n;
	return gid;
}

static union ibv_gid mgid4(unsigned int n)
{
	union ibv_gid gid = { .raw = { [10] = 0xff, [11] = 0xff, [12] = 239 } };

	gid.raw[14] = n >> 8;
	gid.raw[15] = n;
	return gid;
}

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1 },
		.qp_type = type,
	};

	return ibv_create_qp(pd, &init);
}

static int _mcast(int fd, unsigned long ioctl_cmd, __u32 qp,
		  const union ibv_gid *gid)
{
	struct rnic_attach_mcast cmd = { .size = sizeof(cmd), .qp_handle = qp };

	memcpy(cmd.gid, gid->raw, 16);
	return _rnic_ioctl(fd, ioctl_cmd, &cmd);
}

FIXTURE(mc) {
	struct rnic_genl *g;
	struct rnic_res_info *res;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *ud;
};

FIXTURE_SETUP(mc)
{
	self->ctx = NULL;
	rnic_fixture_setup(_metadata, &self->g, &self->res, DEV, NULL);
	self->ctx = do_ptr(rnic_ibv_open(DEV));
	self->pd = do_ptr(ibv_alloc_pd(self->ctx));
	self->cq = do_ptr(ibv_create_cq(self->ctx, 16, NULL, NULL, 0));
	self->ud = do_ptr(create_qp(self->pd, self->cq, IBV_QPT_UD));
}

FIXTURE_TEARDOWN(mc)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	rnic_fixture_teardown(_metadata, self->g, self->res);
}

TEST_F(mc, ud_qps_only)
{
	union ibv_gid gid = mgid(1);
	struct ibv_qp *rc, *uc;

	rc = create_qp(self->pd, self->cq, IBV_QPT_RC);
	ASSERT_NE(NULL, rc);
	uc = create_qp(self->pd, self->cq, IBV_QPT_UC);
	ASSERT_NE(NULL, uc);
	EXPECT_EQ(EINVAL, ibv_attach_mcast(rc, &gid, 0));
	EXPECT_EQ(EINVAL, ibv_attach_mcast(uc, &gid, 0));
	EXPECT_EQ(EINVAL, ibv_detach_mcast(rc, &gid, 0));
	EXPECT_EQ(0, ibv_attach_mcast(self->ud, &gid, 0));
	EXPECT_EQ(0, ibv_destroy_qp(rc));
	EXPECT_EQ(0, ibv_destroy_qp(uc));
}

TEST_F(mc, multicast_gids_only)
{
	static const uint8_t bad[][16] = {
		{ 0 },						/* :: */
		{ 0xfe, 0x80, [15] = 1 },			/* fe80::1 */
		{ 0xfe, 0xff, [15] = 1 },
		{ [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 },	/* 10.0.0.1 */
		{ [10] = 0xff, [11] = 0xff, 223, 255, 255, 255 },
		{ [10] = 0xff, [11] = 0xff, 240, 0, 0, 1 },
		{ [10] = 0xfe, [11] = 0xff, 224, 0, 0, 1 },	/* not mapped */
	};
	static const uint8_t good[][16] = {
		{ 0xff, 0x02, [15] = 1 },			/* ff02::1 */
		{ 0xff, [15] = 0 },				/* ff00:: */
		{ [10] = 0xff, [11] = 0xff, 224, 0, 0, 1 },
		{ [10] = 0xff, [11] = 0xff, 239, 255, 255, 255 },
	};
	union ibv_gid gid;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(gid.raw, bad[i], 16);
		EXPECT_EQ(EINVAL, ibv_attach_mcast(self->ud, &gid, 0))
			TH_LOG("bad %u", i);
		EXPECT_EQ(EINVAL, ibv_detach_mcast(self->ud, &gid, 0));
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		memcpy(gid.raw, good[i], 16);
		EXPECT_EQ(0, ibv_attach_mcast(self->ud, &gid, 0xc000 + i))
			TH_LOG("good %u", i);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		memcpy(gid.raw, good[i], 16);
		/* The LID means nothing on RoCE. */
		EXPECT_EQ(0, ibv_detach_mcast(self->ud, &gid, 0));
	}
}

TEST_F(mc, attach_twice_detach_once)
{
	union ibv_gid a = mgid(1), b = mgid4(1);

	/* Detaching from a group the QP is not in. */
	EXPECT_EQ(EINVAL, ibv_detach_mcast(self->ud, &a, 0));
	EXPECT_EQ(0, ibv_attach_mcast(self->ud, &a, 0));
	EXPECT_EQ(0, ibv_attach_mcast(self->ud, &a, 0));
	EXPECT_EQ(EINVAL, ibv_detach_mcast(self->ud, &b, 0));
	EXPECT_EQ(0, ibv_detach_mcast(self->ud, &a, 0));
	EXPECT_EQ(EINVAL, ibv_detach_mcast(self->ud, &a, 0));
	/* And again from the start. */
	EXPECT_EQ(0, ibv_attach_mcast(self->ud, &a, 0));
	EXPECT_EQ(0, ibv_attach_mcast(self->ud, &b, 0));
	EXPECT_EQ(0, ibv_detach_mcast(self->ud, &b, 0));
	EXPECT_EQ(0, ibv_detach_mcast(self->ud, &a, 0));
}

TEST_F(mc, attached_qp_is_busy)
{
	union ibv_gid a = mgid(1), b = mgid(2);

	ASSERT_EQ(0, ibv_attach_mcast(self->ud, &a, 0));
	ASSERT_EQ(0, ibv_attach_mcast(self->ud, &b, 0));
	EXPECT_EQ(EBUSY, ibv_destroy_qp(self->ud));
	EXPECT_EQ(0, ibv_detach_mcast(self->ud, &a, 0));
	EXPECT_EQ(EBUSY, ibv_destroy_qp(self->ud));
	EXPECT_EQ(0, ibv_detach_mcast(self->ud, &b, 0));
	EXPECT_EQ(0, ibv_destroy_qp(self->ud));
}

/* The group is the device's: 56 QPs, from any of its contexts. */
TEST_F(mc, qps_per_group)
{
	struct ibv_device_attr attr;
	struct ibv_context *other;
	union ibv_gid gid = mgid(7);
	struct ibv_qp *qp[57];
	struct ibv_pd *opd;
	struct ibv_cq *ocq;
	int i;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	ASSERT_EQ(56, attr.max_mcast_qp_attach);
	other = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, other);
	opd = ibv_alloc_pd(other);
	ASSERT_NE(NULL, opd);
	ocq = ibv_create_cq(other, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, ocq);

	qp[0] = self->ud;
	for (i = 1; i < 57; i++) {
		qp[i] = i % 2 ? create_qp(opd, ocq, IBV_QPT_UD) :
				create_qp(self->pd, self->cq, IBV_QPT_UD);
		ASSERT_NE(NULL, qp[i]);
	}
	for (i = 0; i < 56; i++)
		ASSERT_EQ(0, ibv_attach_mcast(qp[i], &gid, 0)) TH_LOG("qp %d", i);
	EXPECT_EQ(ENOMEM, ibv_attach_mcast(qp[56], &gid, 0));
	/* Attaching one that is in: still fine. */
	EXPECT_EQ(0, ibv_attach_mcast(qp[3], &gid, 0));
	/* Another group has room. */
	gid = mgid(8);
	EXPECT_EQ(0, ibv_attach_mcast(qp[56], &gid, 0));
	gid = mgid(7);

	/* Room again once one leaves, whichever context it is in. */
	EXPECT_EQ(0, ibv_detach_mcast(qp[1], &gid, 0));
	EXPECT_EQ(0, ibv_attach_mcast(qp[56], &gid, 0));
	EXPECT_EQ(ENOMEM, ibv_attach_mcast(qp[1], &gid, 0));

	/* Every attachment is the group's, whichever context made it. */
	for (i = 1; i < 57; i++)
		if (i != 1)
			EXPECT_EQ(0, ibv_detach_mcast(qp[i], &gid, 0))
				TH_LOG("qp %d", i);
	EXPECT_EQ(0, ibv_detach_mcast(qp[0], &gid, 0));
	EXPECT_EQ(EINVAL, ibv_detach_mcast(qp[0], &gid, 0));
}

TEST_F_TIMEOUT(mc, groups_per_device, 120)
{
	struct ibv_device_attr attr;
	struct ibv_qp *qp[3];
	union ibv_gid gid;
	int i;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	ASSERT_EQ(8192, attr.max_mcast_grp);
	qp[0] = self->ud;
	for (i = 1; i < 3; i++) {
		qp[i] = create_qp(self->pd, self->cq, IBV_QPT_UD);
		ASSERT_NE(NULL, qp[i]);
	}
	/* Half of them IPv4-mapped; a second QP in some groups is no group. */
	for (i = 0; i < 8192; i++) {
		gid = i % 2 ? mgid4(i) : mgid(i);
		ASSERT_EQ(0, ibv_attach_mcast(qp[i % 2], &gid, 0)) TH_LOG("%d", i);
		if (i % 100 == 0)
			ASSERT_EQ(0, ibv_attach_mcast(qp[2], &gid, 0));
	}
	gid = mgid(9000);
	EXPECT_EQ(ENOMEM, ibv_attach_mcast(qp[2], &gid, 0));
	/* A group that exists still takes QPs. */
	gid = mgid(2);
	EXPECT_EQ(0, ibv_attach_mcast(qp[2], &gid, 0));
	/* A group is freed when its last QP leaves. */
	gid = mgid(100);
	EXPECT_EQ(0, ibv_detach_mcast(qp[0], &gid, 0));
	gid = mgid(9000);
	EXPECT_EQ(ENOMEM, ibv_attach_mcast(qp[2], &gid, 0));
	gid = mgid(100);
	EXPECT_EQ(0, ibv_detach_mcast(qp[2], &gid, 0));
	gid = mgid(9000);
	EXPECT_EQ(0, ibv_attach_mcast(qp[2], &gid, 0));
	gid = mgid(9001);
	EXPECT_EQ(ENOMEM, ibv_attach_mcast(qp[2], &gid, 0));
}

/* Each device has its own groups. */
TEST_F(mc, groups_are_per_device)
{
	union ibv_gid gid = mgid(1);
	struct ibv_context *ctx2;
	struct ibv_qp *qp[56];
	struct ibv_pd *pd2;
	struct ibv_cq *cq2;
	int i;

	do_link_add(self->g, DEV "2", NULL);
	ctx2 = rnic_ibv_open(DEV "2");
	ASSERT_NE(NULL, ctx2);
	pd2 = ibv_alloc_pd(ctx2);
	ASSERT_NE(NULL, pd2);
	cq2 = ibv_create_cq(ctx2, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, cq2);
	for (i = 0; i < 56; i++) {
		qp[i] = create_qp(self->pd, self->cq, IBV_QPT_UD);
		ASSERT_NE(NULL, qp[i]);
		ASSERT_EQ(0, ibv_attach_mcast(qp[i], &gid, 0));
	}
	EXPECT_EQ(ENOMEM, ibv_attach_mcast(self->ud, &gid, 0));
	qp[0] = create_qp(pd2, cq2, IBV_QPT_UD);
	ASSERT_NE(NULL, qp[0]);
	EXPECT_EQ(0, ibv_attach_mcast(qp[0], &gid, 0));
	EXPECT_EQ(0, ibv_detach_mcast(qp[0], &gid, 0));
	EXPECT_EQ(0, ibv_destroy_qp(qp[0]));
	EXPECT_EQ(0, ibv_destroy_cq(cq2));
	EXPECT_EQ(0, ibv_dealloc_pd(pd2));
	EXPECT_EQ(0, ibv_close_device(ctx2));
}

/* Raw, unmapped QPs: closing the file detaches and frees everything. */
TEST_F(mc, close_detaches)
{
	struct rnic_create_qp q;
	union ibv_gid gid = mgid(5);
	int round, fd, i;
	__u32 pd, cq;

	for (round = 0; round < 3; round++) {
		fd = rnic_open(DEV);
		ASSERT_LE(0, fd);
		do_pd_and_cq(fd, &pd, &cq);
		for (i = 0; i < 56; i++) {
			memset(&q, 0, sizeof(q));
			q.size = sizeof(q);
			q.pd_handle = pd;
			q.send_cq_handle = q.recv_cq_handle = cq;
			q.qp_type = RNIC_QPT_UD;
			ASSERT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_CREATE_QP, &q));
			ASSERT_EQ(0, _mcast(fd, RNIC_IOCTL_ATTACH_MCAST,
					    q.out_handle, &gid));
			gid = mgid(100 + i);
			ASSERT_EQ(0, _mcast(fd, RNIC_IOCTL_ATTACH_MCAST,
					    q.out_handle, &gid));
			gid = mgid(5);
		}
		EXPECT_EQ(ENOMEM, ibv_attach_mcast(self->ud, &gid, 0));
		EXPECT_EQ(0, close(fd));
		/* The 56 places are free again. */
		EXPECT_EQ(0, ibv_attach_mcast(self->ud, &gid, 0));
		EXPECT_EQ(0, ibv_detach_mcast(self->ud, &gid, 0));
	}
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(1, self->res->counts[RNIC_RES_QP]);
	EXPECT_EQ(1, self->res->n_ctxs);
}

struct churn {
	int fd;
	__u32 qps[8];
	volatile bool stop;
	volatile unsigned int rounds;
};

static void *attach_churn(void *arg)
{
	struct churn *c = arg;
	union ibv_gid gid = mgid(3);
	unsigned int i;

	while (!c->stop) {
		for (i = 0; i < 8; i++) {
			_mcast(c->fd, RNIC_IOCTL_ATTACH_MCAST, c->qps[i], &gid);
			_mcast(c->fd, RNIC_IOCTL_DETACH_MCAST, c->qps[i], &gid);
		}
		c->rounds++;
	}
	return NULL;
}

/* Destroy races attach and detach: EBUSY, or gone and detached. */
TEST_F(mc, destroy_races_attach)
{
	union ibv_gid gid = mgid(3);
	struct rnic_create_qp q;
	struct churn churn = { 0 };
	int i, busy = 0, left = 8;
	bool gone[8] = { 0 };
	pthread_t thread;
	__u32 pd, cq;

	churn.fd = rnic_open(DEV);
	ASSERT_LE(0, churn.fd);
	do_pd_and_cq(churn.fd, &pd, &cq);
	for (i = 0; i < 8; i++) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.pd_handle = pd;
		q.send_cq_handle = q.recv_cq_handle = cq;
		q.qp_type = RNIC_QPT_UD;
		ASSERT_EQ(0, _rnic_ioctl(churn.fd, RNIC_IOCTL_CREATE_QP, &q));
		churn.qps[i] = q.out_handle;
	}
	ASSERT_EQ(0, pthread_create(&thread, NULL, attach_churn, &churn));
	while (churn.rounds < 10)
		usleep(100);
	while (left) {
		for (i = 0; i < 8; i++) {
			int ret;

			if (gone[i])
				continue;
			ret = _destroy_qp(churn.fd, churn.qps[i]);
			if (ret == -EBUSY) {
				busy++;
				continue;
			}
			ASSERT_EQ(0, ret);
			/* Nothing is created meanwhile: the number stays dead. */
			gone[i] = true;
			left--;
		}
		usleep(rand() % 200);
	}
	churn.stop = true;
	pthread_join(thread, NULL);
	TH_LOG("%d EBUSY", busy);
	/* Whatever the order, the group is empty: 56 places. */
	ASSERT_EQ(0, ibv_attach_mcast(self->ud, &gid, 0));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(1, self->res->counts[RNIC_RES_QP]);
	EXPECT_EQ(0, close(churn.fd));
}

TEST_F(mc, detach_works_after_device_removal)
{
	union ibv_gid gid = mgid(1);

	ASSERT_EQ(0, ibv_attach_mcast(self->ud, &gid, 0));
	do_link_del(self->g, DEV);
	gid = mgid(2);
	EXPECT_EQ(ENODEV, ibv_attach_mcast(self->ud, &gid, 0));
	EXPECT_EQ(EINVAL, ibv_detach_mcast(self->ud, &gid, 0));
	gid = mgid(1);
	EXPECT_EQ(0, ibv_detach_mcast(self->ud, &gid, 0));
	EXPECT_EQ(0, ibv_destroy_qp(self->ud));
}

TEST_F(mc, handles_are_per_context)
{
	union ibv_gid gid = mgid(1);
	struct ibv_context *other;

	other = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, other);
	EXPECT_EQ(-EINVAL, _mcast(other->cmd_fd, RNIC_IOCTL_ATTACH_MCAST,
				  self->ud->handle, &gid));
	EXPECT_EQ(-EINVAL, _mcast(self->ctx->cmd_fd, RNIC_IOCTL_ATTACH_MCAST,
				  self->cq->handle, &gid));
	EXPECT_EQ(0, ibv_close_device(other));
}

TEST_F(mc, cmd_length)
{
	struct rnic_attach_mcast cmd = {
		.size = sizeof(cmd), .qp_handle = self->ud->handle,
		.gid = { 0xff, 0x02, [15] = 1 },
	};
	struct {
		struct rnic_attach_mcast cmd;
		__u64 tail;
	} big = { .cmd = cmd, .tail = 1 };
	int fd = self->ctx->cmd_fd;

	cmd.flags = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_ATTACH_MCAST, &cmd));
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_DETACH_MCAST, &cmd));
	cmd.flags = 0;
	cmd.__reserved = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_ATTACH_MCAST, &cmd));
	cmd.__reserved = 0;
	cmd.size = offsetof(struct rnic_attach_mcast, gid) + 15;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_ATTACH_MCAST, &cmd));
	cmd.size = sizeof(cmd);
	big.cmd.size = sizeof(big);
	EXPECT_EQ(-E2BIG, _rnic_ioctl(fd, RNIC_IOCTL_ATTACH_MCAST, &big));
	big.tail = 0;
	EXPECT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_ATTACH_MCAST, &big));
	EXPECT_EQ(0, _rnic_ioctl(fd, RNIC_IOCTL_DETACH_MCAST, &cmd));
}

TEST_HARNESS_MAIN
