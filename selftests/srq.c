// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: sizes, rounding and limits, the SRQ limit
 * (modify/query), no resize, the receive ring and its mapping, EBUSY on
 * the PD and while a QP uses the SRQ, handles per context, the device's SRQ limit, teardown on close,
 * on SIGKILL and after device removal, and the size contract of the
 * ioctls.
 */
#include <infiniband/verbs.h>
#include <signal.h>
#include <sys/mman.h>

#include "rnic_verbs_test.h"

#define DEV "t_srq"

static int _create_srq(int fd, __u32 pd, __u32 max_wr, __u32 max_sge,
		       __u32 srq_limit, struct rnic_create_srq *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->pd_handle = pd;
	cmd->max_wr = max_wr;
	cmd->max_sge = max_sge;
	cmd->srq_limit = srq_limit;
	cmd->user_handle = 0x1234567890abcdefULL;
	return _rnic_ioctl(fd, RNIC_IOCTL_CREATE_SRQ, cmd);
}

/* Destroy an SRQ; 0 or -errno, and how many of its events were read. */
static int _destroy_srq(int fd, __u32 handle, __u32 *reported)
{
	struct rnic_destroy_srq cmd = { .size = sizeof(cmd), .handle = handle,
					.out_async_events_reported = 0xdead };
	int ret;

	ret = _rnic_ioctl(fd, RNIC_IOCTL_DESTROY_SRQ, &cmd);
	if (reported)
		*reported = cmd.out_async_events_reported;
	return ret;
}

static struct ibv_srq *create_srq(struct ibv_pd *pd, uint32_t max_wr,
				  uint32_t max_sge, uint32_t srq_limit,
				  struct ibv_srq_init_attr *init)
{
	memset(init, 0, sizeof(*init));
	init->srq_context = pd;
	init->attr.max_wr = max_wr;
	init->attr.max_sge = max_sge;
	init->attr.srq_limit = srq_limit;
	return ibv_create_srq(pd, init);
}

FIXTURE(srq) {
	struct rnic_genl *g;
	struct rnic_res_info *res;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
};

FIXTURE_SETUP(srq)
{
	self->ctx = NULL;
	rnic_fixture_setup(_metadata, &self->g, &self->res, DEV, NULL);
	self->ctx = do_ptr(rnic_ibv_open(DEV));
	ASSERT_EQ(0, ibv_query_device(self->ctx, &self->attr));
	self->pd = do_ptr(ibv_alloc_pd(self->ctx));
}

FIXTURE_TEARDOWN(srq)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	rnic_fixture_teardown(_metadata, self->g, self->res);
}

TEST_F(srq, device_limits_and_no_resize)
{
	EXPECT_EQ(65536, self->attr.max_srq);
	EXPECT_EQ(32768, self->attr.max_srq_wr);
	EXPECT_EQ(32, self->attr.max_srq_sge);
	/* rnic does not resize SRQs, and says so. */
	EXPECT_EQ(0, self->attr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE);
}

TEST_F(srq, sizes_are_rounded_up_to_a_power_of_two)
{
	static const struct {
		uint32_t max_wr, granted;
	} sizes[] = {
		{ 1, 1 }, { 2, 2 }, { 3, 4 }, { 5, 8 }, { 100, 128 },
		{ 1000, 1024 }, { 16385, 32768 }, { 32768, 32768 },
	};
	static const uint32_t sges[] = { 0, 1, 3, 32 };
	struct ibv_srq_init_attr init;
	struct ibv_srq_attr attr;
	struct ibv_srq *srq;
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t sge = sges[i % 4];

		srq = create_srq(self->pd, sizes[i].max_wr, sge, 0, &init);
		ASSERT_NE(NULL, srq) TH_LOG("max_wr %u: %d", sizes[i].max_wr,
					    errno);
		EXPECT_EQ(sizes[i].granted, init.attr.max_wr);
		EXPECT_EQ(sge, init.attr.max_sge);
		EXPECT_EQ(0, init.attr.srq_limit);
		EXPECT_EQ(self->ctx, srq->context);
		EXPECT_EQ(self->pd, srq->pd);
		EXPECT_EQ(self->pd, srq->srq_context);
		EXPECT_EQ(0, srq->events_completed);

		memset(&attr, 0xff, sizeof(attr));
		ASSERT_EQ(0, ibv_query_srq(srq, &attr));
		EXPECT_EQ(sizes[i].granted, attr.max_wr);
		EXPECT_EQ(sge, attr.max_sge);
		EXPECT_EQ(0, attr.srq_limit);
		EXPECT_EQ(0, ibv_destroy_srq(srq));
	}
}

TEST_F(srq, bad_sizes_and_limits)
{
	static const struct {
		uint32_t max_wr, max_sge, srq_limit;
	} bad[] = {
		{ 0, 1, 0 },
		{ 32769, 1, 0 },
		{ UINT32_MAX, 1, 0 },
		{ 1u << 31, 1, 0 },
		{ 16, 33, 0 },
		{ 16, UINT32_MAX, 0 },
		{ 16, 1, 17 },
		{ 32768, 1, 32769 },
		{ 5, 1, 9 },		/* above the granted 8 */
	};
	struct ibv_srq_init_attr init;
	struct ibv_srq_attr attr;
	struct ibv_srq *srq;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(NULL, create_srq(self->pd, bad[i].max_wr,
					   bad[i].max_sge, bad[i].srq_limit,
					   &init));
		EXPECT_EQ(EINVAL, errno) TH_LOG("case %u", i);
	}
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_SRQ]);

	/* The limit counts what is granted: 8 entries for 5 asked. */
	srq = create_srq(self->pd, 5, 1, 8, &init);
	ASSERT_NE(NULL, srq);
	EXPECT_EQ(8, init.attr.max_wr);
	EXPECT_EQ(8, init.attr.srq_limit);
	/* A limit given at creation is armed at once. */
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_EQ(8, attr.srq_limit);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

TEST_F(srq, modify_limit_and_query_back)
{
	struct ibv_srq_init_attr init;
	struct ibv_srq_attr attr, q;
	struct ibv_srq *srq;

	srq = create_srq(self->pd, 100, 2, 0, &init);
	ASSERT_NE(NULL, srq);

	memset(&attr, 0, sizeof(attr));
	attr.srq_limit = 10;
	attr.max_wr = 1;		/* not looked at without IBV_SRQ_MAX_WR */
	EXPECT_EQ(0, ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT));
	ASSERT_EQ(0, ibv_query_srq(srq, &q));
	EXPECT_EQ(128, q.max_wr);
	EXPECT_EQ(2, q.max_sge);
	EXPECT_EQ(10, q.srq_limit);

	/* Up to max_wr; beyond is EINVAL and changes nothing. */
	attr.srq_limit = 128;
	EXPECT_EQ(0, ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT));
	attr.srq_limit = 129;
	EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT));
	ASSERT_EQ(0, ibv_query_srq(srq, &q));
	EXPECT_EQ(128, q.srq_limit);

	/* An empty mask is a successful no-op. */
	attr.srq_limit = 3;
	EXPECT_EQ(0, ibv_modify_srq(srq, &attr, 0));
	ASSERT_EQ(0, ibv_query_srq(srq, &q));
	EXPECT_EQ(128, q.srq_limit);

	/* Unknown bits. */
	EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &attr, 1 << 2));
	EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT | 1 << 31));
	EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &attr, -1));

	/* 0 disarms. */
	attr.srq_limit = 0;
	EXPECT_EQ(0, ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT));
	ASSERT_EQ(0, ibv_query_srq(srq, &q));
	EXPECT_EQ(0, q.srq_limit);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

TEST_F(srq, max_wr_is_not_resizable)
{
	struct ibv_srq_init_attr init;
	struct ibv_srq_attr attr, q;
	struct ibv_srq *srq;

	srq = create_srq(self->pd, 64, 1, 5, &init);
	ASSERT_NE(NULL, srq);
	memset(&attr, 0, sizeof(attr));
	attr.max_wr = 128;
	attr.srq_limit = 7;
	EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR));
	attr.max_wr = 64;
	EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR));
	/* Both bits: refused as a whole, the limit is not touched. */
	EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &attr,
					 IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT));
	ASSERT_EQ(0, ibv_query_srq(srq, &q));
	EXPECT_EQ(64, q.max_wr);
	EXPECT_EQ(5, q.srq_limit);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

TEST_F(srq, ring_layout_and_mapping)
{
	int fd = self->ctx->cmd_fd;
	struct rnic_create_srq c;
	struct rnic_recv_wqe *wqe;
	struct rnic_sge *sge;
	unsigned char *ring;
	__u32 pd, i;

	do_alloc_pd(fd, &pd);
	ASSERT_EQ(0, _create_srq(fd, pd, 6, 3, 0, &c));
	EXPECT_EQ(8, c.out_max_wr);
	EXPECT_EQ(3, c.out_max_sge);
	EXPECT_EQ(0, c.__reserved);
	EXPECT_EQ(8, c.out_ring.entries);
	EXPECT_EQ(sizeof(*wqe) + 3 * sizeof(*sge), c.out_ring.entry_size);
	EXPECT_EQ(0, c.out_ring.size % getpagesize());
	EXPECT_EQ(0, c.out_ring.offset % getpagesize());
	EXPECT_LE(c.out_ring.entries_off +
		  c.out_ring.entries * c.out_ring.entry_size, c.out_ring.size);
	/* Producer and consumer in cache lines of their own, before entries. */
	EXPECT_LE(64, abs((int)c.out_ring.producer_off -
			  (int)c.out_ring.consumer_off));
	EXPECT_LE(c.out_ring.producer_off + 64, c.out_ring.entries_off);
	EXPECT_LE(c.out_ring.consumer_off + 64, c.out_ring.entries_off);

	/* Only MAP_SHARED and the exact size. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.out_ring.size,
				   PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
				   c.out_ring.offset));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.out_ring.size + getpagesize(),
				   PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				   c.out_ring.offset));
	EXPECT_EQ(EINVAL, errno);

	ring = mmap(NULL, c.out_ring.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, c.out_ring.offset);
	ASSERT_NE(MAP_FAILED, ring);
	/* A new ring: indexes 0, entries zeroed. */
	EXPECT_EQ(0, *(__u32 *)(ring + c.out_ring.producer_off));
	EXPECT_EQ(0, *(__u32 *)(ring + c.out_ring.consumer_off));
	for (i = 0; i < c.out_ring.size; i++)
		ASSERT_EQ(0, ring[i]) TH_LOG("byte %u", i);

	/* Post like the data path will: a WQE in every slot. */
	for (i = 0; i < c.out_ring.entries; i++) {
		wqe = (void *)(ring + c.out_ring.entries_off +
			       i * c.out_ring.entry_size);
		wqe->wr_id = i;
		wqe->num_sge = 3;
		sge = (void *)(wqe + 1);
		sge[2].length = i;
	}
	__atomic_store_n((__u32 *)(ring + c.out_ring.producer_off),
			 c.out_ring.entries, __ATOMIC_RELEASE);

	/* Destroy: the mapping stays usable, but cannot be made again. */
	ASSERT_EQ(0, _destroy_srq(fd, c.out_handle, NULL));
	wqe = (void *)(ring + c.out_ring.entries_off +
		       7 * c.out_ring.entry_size);
	EXPECT_EQ(7, wqe->wr_id);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.out_ring.size,
				   PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				   c.out_ring.offset));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, munmap(ring, c.out_ring.size));
}

TEST_F(srq, librnic_maps_and_unmaps_the_ring)
{
	struct ibv_srq_init_attr init;
	struct ibv_srq *a, *b;
	int base = uverbs_mappings();

	ASSERT_LE(0, base);
	a = create_srq(self->pd, 32768, 32, 0, &init);
	ASSERT_NE(NULL, a);
	EXPECT_EQ(base + 1, uverbs_mappings());
	b = create_srq(self->pd, 1, 0, 0, &init);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(base + 2, uverbs_mappings());
	EXPECT_EQ(0, ibv_destroy_srq(a));
	EXPECT_EQ(base + 1, uverbs_mappings());
	EXPECT_EQ(0, ibv_destroy_srq(b));
	EXPECT_EQ(base, uverbs_mappings());
}

TEST_F(srq, pd_busy_while_srq_exists)
{
	struct ibv_srq_init_attr init;
	struct ibv_srq *srq;

	srq = create_srq(self->pd, 16, 1, 0, &init);
	ASSERT_NE(NULL, srq);
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	self->pd = NULL;
}

TEST_F(srq, busy_while_a_qp_uses_it)
{
	struct ibv_qp_init_attr qp_attr;
	struct ibv_srq_init_attr init;
	struct ibv_srq_attr attr;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_cq *cq;

	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	srq = create_srq(self->pd, 64, 2, 0, &init);
	ASSERT_NE(NULL, srq);
	memset(&qp_attr, 0, sizeof(qp_attr));
	qp_attr.send_cq = cq;
	qp_attr.recv_cq = cq;
	qp_attr.srq = srq;
	qp_attr.cap.max_send_wr = 4;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.qp_type = IBV_QPT_RC;
	qp = ibv_create_qp(self->pd, &qp_attr);
	ASSERT_NE(NULL, qp) TH_LOG("%d", errno);

	EXPECT_EQ(EBUSY, ibv_destroy_srq(srq));
	/* Still there, and still ours to use. */
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_EQ(64, attr.max_wr);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(srq, handles_are_per_context_and_per_type)
{
	struct rnic_query_srq q = { .size = sizeof(q) };
	struct rnic_modify_srq m = { .size = sizeof(m),
				     .attr_mask = RNIC_SRQ_LIMIT };
	struct ibv_srq_init_attr init;
	struct rnic_create_srq c;
	struct ibv_context *other;
	struct ibv_srq *srq;
	int fd = self->ctx->cmd_fd;
	__u32 handle;

	srq = create_srq(self->pd, 16, 1, 0, &init);
	ASSERT_NE(NULL, srq);
	other = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, other);

	/* Our SRQ means nothing in the other context. */
	q.handle = srq->handle;
	m.handle = srq->handle;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(other->cmd_fd, RNIC_IOCTL_QUERY_SRQ, &q));
	EXPECT_EQ(-EINVAL, _rnic_ioctl(other->cmd_fd, RNIC_IOCTL_MODIFY_SRQ, &m));
	EXPECT_EQ(-EINVAL, _destroy_srq(other->cmd_fd, srq->handle, NULL));
	/* Nor is our PD usable there. */
	EXPECT_EQ(-EINVAL, _create_srq(other->cmd_fd, self->pd->handle, 16, 1,
				       0, &c));
	/* An SRQ is not a PD, an AH or an MR, nor the reverse. */
	EXPECT_EQ(-EINVAL, _destroy(fd, RNIC_IOCTL_DEALLOC_PD, srq->handle));
	EXPECT_EQ(-EINVAL, _destroy(fd, RNIC_IOCTL_DESTROY_AH, srq->handle));
	EXPECT_EQ(-EINVAL, _destroy(fd, RNIC_IOCTL_DEREG_MR, srq->handle));
	EXPECT_EQ(-EINVAL, _create_srq(fd, srq->handle, 16, 1, 0, &c));
	q.handle = self->pd->handle;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_QUERY_SRQ, &q));
	EXPECT_EQ(-EINVAL, _destroy_srq(fd, self->pd->handle, NULL));
	EXPECT_EQ(0, ibv_close_device(other));

	/* A destroyed handle is gone. */
	handle = srq->handle;
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	q.handle = handle;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(fd, RNIC_IOCTL_QUERY_SRQ, &q));
	EXPECT_EQ(-EINVAL, _destroy_srq(fd, handle, NULL));
	EXPECT_EQ(-EINVAL, _destroy_srq(fd, UINT32_MAX, NULL));
}

TEST_F(srq, close_frees_everything)
{
	struct rnic_create_srq c;
	struct rnic_link_info info;
	int fd, i;
	__u32 pd;

	/* Raw, unmapped rings: a mapping would keep the file open. */
	fd = rnic_open(DEV);
	ASSERT_LE(0, fd);
	for (i = 0; i < 32; i++) {
		do_alloc_pd(fd, &pd);
		ASSERT_EQ(0, _create_srq(fd, pd, 1 + i * 100, i % 33, i % 2,
					 &c));
	}
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(32, self->res->counts[RNIC_RES_SRQ]);
	EXPECT_EQ(33, self->res->counts[RNIC_RES_PD]);
	EXPECT_EQ(0, close(fd));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_SRQ]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_PD]);
	ASSERT_EQ(0, rnic_link_get(self->g, DEV, &info));
	EXPECT_EQ(1, info.contexts);
}

TEST_F(srq, process_exit_frees_mapped_srqs)
{
	struct ibv_srq_init_attr init;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct ibv_context *ctx = rnic_ibv_open(DEV);
		struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
		int i;

		for (i = 0; pd && i < 16; i++)
			if (!create_srq(pd, 1024, 4, 0, &init))
				_exit(2);
		/* Neither destroyed nor unmapped nor closed. */
		_exit(pd ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_SRQ]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_PD]);
	EXPECT_EQ(1, self->res->n_ctxs);
}

/* PDs and SRQs of every size with a limit armed, some destroyed. */
static void srq_churn(void *arg)
{
	struct ibv_context *ctx = rnic_ibv_open(DEV);
	struct ibv_srq_attr attr = { .srq_limit = 1 };
	struct ibv_srq_init_attr init;
	struct ibv_srq *srq;
	struct ibv_pd *pd;
	int i;

	(void)arg;
	for (i = 0; ctx; i++) {
		pd = ibv_alloc_pd(ctx);
		srq = pd ? create_srq(pd, 1 + i % 300, i % 4, 0, &init) : NULL;
		if (srq)
			ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT);
		if (srq && i % 2)
			ibv_destroy_srq(srq);
		if (pd && i % 4 == 1)
			ibv_dealloc_pd(pd);
	}
}

TEST_F(srq, sigkill_at_random_points)
{
	rnic_kill_at_random(_metadata, 100, 3000, srq_churn, NULL);
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_SRQ]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_PD]);
	EXPECT_EQ(1, self->res->n_ctxs);
}

TEST_F(srq, destroy_works_after_device_removal)
{
	struct ibv_srq_init_attr init;
	struct ibv_srq_attr attr;
	struct ibv_srq *srq;

	srq = create_srq(self->pd, 16, 1, 0, &init);
	ASSERT_NE(NULL, srq);
	do_link_del(self->g, DEV);
	errno = 0;
	EXPECT_EQ(NULL, create_srq(self->pd, 16, 1, 0, &init));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(ENODEV, ibv_query_srq(srq, &attr));
	EXPECT_EQ(ENODEV, ibv_modify_srq(srq, &attr, 0));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
}

TEST_F_TIMEOUT(srq, srq_limit_of_the_device, 180)
{
	struct rnic_create_srq c;
	int fds[2], i, n = 0;
	__u32 pds[2];

	/* Raw ioctls: nothing mapped, so no map count limit in the way. */
	for (i = 0; i < 2; i++) {
		fds[i] = rnic_open(DEV);
		ASSERT_LE(0, fds[i]);
		do_alloc_pd(fds[i], &pds[i]);
	}
	for (i = 0; i < self->attr.max_srq; i++) {
		if (_create_srq(fds[i % 2], pds[i % 2], 1, 0, 0, &c))
			break;
		n++;
	}
	EXPECT_EQ(self->attr.max_srq, n);
	EXPECT_EQ(-ENOMEM, _create_srq(fds[0], pds[0], 1, 0, 0, &c));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(self->attr.max_srq, self->res->counts[RNIC_RES_SRQ]);
	ASSERT_EQ(3, self->res->n_ctxs);

	/* Closing one context gives its SRQs back to the device. */
	EXPECT_EQ(0, close(fds[1]));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(self->attr.max_srq / 2, self->res->counts[RNIC_RES_SRQ]);
	EXPECT_EQ(0, _create_srq(fds[0], pds[0], 1, 0, 0, &c));
	EXPECT_EQ(0, close(fds[0]));
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_SRQ]);
}

/* The size contract, flags and reserved fields of the SRQ ioctls. */
TEST_F(srq, cmd_length)
{
	int fd = self->ctx->cmd_fd;
	unsigned char buf[256];
	struct rnic_create_srq *c = (void *)buf;
	struct rnic_modify_srq *m = (void *)buf;
	struct rnic_query_srq *q = (void *)buf;
	struct rnic_destroy_srq *d = (void *)buf;
	__u32 pd, handle;

	do_alloc_pd(fd, &pd);

	/* create: the first version ends with out_ring. */
	memset(buf, 0, sizeof(buf));
	c->size = offsetof(struct rnic_create_srq, out_ring) +
		  sizeof(c->out_ring) - 1;
	c->pd_handle = pd;
	c->max_wr = 1;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_CREATE_SRQ, buf);
	c->size = sizeof(*c) + 64;
	do_ioctl(fd, RNIC_IOCTL_CREATE_SRQ, buf);
	handle = c->out_handle;
	EXPECT_EQ(1, c->out_max_wr);
	EXPECT_EQ(0, buf[sizeof(*c) + 63]);
	buf[sizeof(*c) + 3] = 1;
	do_err_ioctl(E2BIG, fd, RNIC_IOCTL_CREATE_SRQ, buf);
	buf[sizeof(*c) + 3] = 0;
	c->flags = 1;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_CREATE_SRQ, buf);
	c->flags = 0;
	c->__reserved = 1;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_CREATE_SRQ, buf);
	do_err_ioctl(EFAULT, fd, RNIC_IOCTL_CREATE_SRQ, NULL);

	/* modify */
	memset(buf, 0, sizeof(buf));
	m->size = sizeof(*m) - 1;
	m->handle = handle;
	m->attr_mask = RNIC_SRQ_LIMIT;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_MODIFY_SRQ, buf);
	m->size = sizeof(*m) + 64;
	do_ioctl(fd, RNIC_IOCTL_MODIFY_SRQ, buf);
	buf[sizeof(*m) + 1] = 1;
	do_err_ioctl(E2BIG, fd, RNIC_IOCTL_MODIFY_SRQ, buf);
	buf[sizeof(*m) + 1] = 0;
	m->flags = 1u << 31;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_MODIFY_SRQ, buf);
	do_err_ioctl(EFAULT, fd, RNIC_IOCTL_MODIFY_SRQ, (void *)1);

	/* query: output only as long as the user's struct */
	memset(buf, 0xee, sizeof(buf));
	memset(buf, 0, sizeof(*q));
	q->size = offsetof(struct rnic_query_srq, out_srq_limit);
	q->handle = handle;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_QUERY_SRQ, buf);
	q->size = sizeof(*q);
	q->flags = 2;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_QUERY_SRQ, buf);
	q->flags = 0;
	do_ioctl(fd, RNIC_IOCTL_QUERY_SRQ, buf);
	EXPECT_EQ(1, q->out_max_wr);
	EXPECT_EQ(0, q->out_max_sge);
	EXPECT_EQ(0, q->out_srq_limit);
	EXPECT_EQ(0xee, buf[sizeof(*q)]);

	/* destroy: answers how many of the SRQ's events were read */
	memset(buf, 0, sizeof(buf));
	d->size = sizeof(*d) - 1;
	d->handle = handle;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_DESTROY_SRQ, buf);
	d->size = sizeof(*d);
	d->__reserved = 1;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_DESTROY_SRQ, buf);
	d->__reserved = 0;
	d->flags = 1;
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_DESTROY_SRQ, buf);
	d->flags = 0;
	d->size = sizeof(*d) + 8;
	d->out_async_events_reported = 0xdead;
	do_ioctl(fd, RNIC_IOCTL_DESTROY_SRQ, buf);
	EXPECT_EQ(0, d->out_async_events_reported);
	do_err_ioctl(EINVAL, fd, RNIC_IOCTL_DESTROY_SRQ, buf);
}

TEST_HARNESS_MAIN
