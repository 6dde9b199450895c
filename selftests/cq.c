// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues and completion channels: creation and its limits,
 * EBUSY, handles per context, the ioctl size contract, ring mappings,
 * resize, polling and arming without a system call, channel descriptors
 * (non-blocking, poll/epoll, EIO once their owner is gone, lifetimes
 * either way round), teardown on close and on SIGKILL.
 *
 * The data path (CQEs) comes later: here every CQ is empty.
 */
#include <infiniband/verbs.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#include <sys/resource.h>

#include "rnic_dp_test.h"

#define DEV "t_cq"

/* Raw ioctls, for what librnic never sends. */
static int _destroy_cq(int fd, __u32 handle, struct rnic_destroy_cq *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->handle = handle;
	return _rnic_ioctl(fd, RNIC_IOCTL_DESTROY_CQ, cmd);
}

static int _create_channel(int fd, struct rnic_create_comp_channel *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	return _rnic_ioctl(fd, RNIC_IOCTL_CREATE_COMP_CHANNEL, cmd);
}

static int _resize_cq(int fd, __u32 handle, __u32 cqe,
		      struct rnic_resize_cq *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->handle = handle;
	cmd->cqe = cqe;
	return _rnic_ioctl(fd, RNIC_IOCTL_RESIZE_CQ, cmd);
}

FIXTURE(cq) {
	struct rnic_genl *g;
	struct rnic_res_info *res;
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	int fd;		/* a raw context, no librnic */
};

FIXTURE_SETUP(cq)
{
	self->ctx = NULL;
	self->fd = -1;
	rnic_fixture_setup(_metadata, &self->g, &self->res, DEV, NULL);
	self->ctx = do_ptr(rnic_ibv_open(DEV));
	ASSERT_EQ(0, ibv_query_device(self->ctx, &self->attr));
	self->fd = rnic_open(DEV);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(cq)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	rnic_fixture_teardown(_metadata, self->g, self->res);
}

/* CQs and channels of the device, from the resource report. */
#define ASSERT_COUNTS(_cqs, _channels)					\
	do {								\
		ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));	\
		EXPECT_EQ(_cqs, self->res->counts[RNIC_RES_CQ]);	\
		EXPECT_EQ(_channels, self->res->counts[RNIC_RES_CHANNEL]); \
	} while (0)

TEST_F(cq, create_destroy_without_channel)
{
	struct ibv_cq *cq;
	int token;

	cq = ibv_create_cq(self->ctx, 1, &token, NULL, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(self->ctx, cq->context);
	EXPECT_EQ(NULL, cq->channel);
	EXPECT_EQ(&token, cq->cq_context);
	EXPECT_EQ(1, cq->cqe);
	EXPECT_EQ(0, cq->comp_events_completed);
	EXPECT_EQ(0, cq->async_events_completed);
	ASSERT_COUNTS(1, 0);
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	ASSERT_COUNTS(0, 0);
}

TEST_F(cq, create_destroy_with_channel)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *a, *b;

	ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, ch);
	EXPECT_EQ(self->ctx, ch->context);
	EXPECT_LE(0, ch->fd);
	EXPECT_TRUE(fcntl(ch->fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(0, ch->refcnt);
	ASSERT_COUNTS(0, 1);

	a = ibv_create_cq(self->ctx, 10, NULL, ch, 0);
	ASSERT_NE(NULL, a);
	b = ibv_create_cq(self->ctx, 10, NULL, ch, 0);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(ch, a->channel);
	EXPECT_EQ(2, ch->refcnt);
	ASSERT_COUNTS(2, 1);

	/* The channel is busy until its last CQ is gone. */
	EXPECT_EQ(EBUSY, ibv_destroy_comp_channel(ch));
	EXPECT_EQ(0, ibv_destroy_cq(a));
	EXPECT_EQ(EBUSY, ibv_destroy_comp_channel(ch));
	EXPECT_EQ(1, ch->refcnt);
	EXPECT_EQ(0, ibv_destroy_cq(b));
	EXPECT_EQ(0, ch->refcnt);
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
	ASSERT_COUNTS(0, 0);
}

TEST_F(cq, sizes)
{
	static const struct { int want, got; } ok_sizes[] = {
		{ 1, 1 }, { 2, 2 }, { 3, 4 }, { 1000, 1024 }, { 4096, 4096 },
		{ 4097, 8192 },
	};
	const int bad[] = { 0, -1, self->attr.max_cqe + 1, INT_MAX };
	struct ibv_cq *cq;
	unsigned int i;

	EXPECT_EQ(65536, self->attr.max_cqe);
	for (i = 0; i < sizeof(ok_sizes) / sizeof(ok_sizes[0]); i++) {
		cq = ibv_create_cq(self->ctx, ok_sizes[i].want, NULL, NULL, 0);
		ASSERT_NE(NULL, cq) TH_LOG("cqe %d", ok_sizes[i].want);
		EXPECT_EQ(ok_sizes[i].got, cq->cqe);
		EXPECT_EQ(0, ibv_destroy_cq(cq));
	}
	cq = ibv_create_cq(self->ctx, self->attr.max_cqe, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(self->attr.max_cqe, cq->cqe);
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(NULL, ibv_create_cq(self->ctx, bad[i], NULL, NULL, 0));
		EXPECT_EQ(EINVAL, errno) TH_LOG("cqe %d", bad[i]);
	}
	ASSERT_COUNTS(0, 0);
}

TEST_F(cq, comp_vector)
{
	struct rnic_create_cq cmd;
	struct ibv_cq *cq;
	int v;

	ASSERT_LT(0, self->ctx->num_comp_vectors);
	for (v = 0; v < self->ctx->num_comp_vectors; v++) {
		cq = ibv_create_cq(self->ctx, 1, NULL, NULL, v);
		ASSERT_NE(NULL, cq) TH_LOG("vector %d", v);
		EXPECT_EQ(0, ibv_destroy_cq(cq));
	}
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 1, NULL, NULL,
				      self->ctx->num_comp_vectors));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 1, NULL, NULL, -1));
	EXPECT_EQ(EINVAL, errno);
	/* The kernel checks it too. */
	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.cqe = 1;
	cmd.comp_vector = self->ctx->num_comp_vectors;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(self->fd, RNIC_IOCTL_CREATE_CQ, &cmd));
	cmd.comp_vector = 0xffffffff;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(self->fd, RNIC_IOCTL_CREATE_CQ, &cmd));
	ASSERT_COUNTS(0, 0);
}

TEST_F(cq, bad_create_arguments)
{
	struct rnic_create_comp_channel ch;
	struct ibv_comp_channel *other_ch;
	struct ibv_context *other;
	struct rnic_create_cq cmd;

	ASSERT_EQ(0, _create_channel(self->fd, &ch));

	EXPECT_EQ(-EINVAL, _create_cq(self->fd, 1, 1 << 1, 0, &cmd));
	EXPECT_EQ(-EINVAL, _create_cq(self->fd, 1, 1u << 31, 0, &cmd));
	/* A channel handle without the flag, or a bad one with it. */
	EXPECT_EQ(-EINVAL, _create_cq(self->fd, 1, 0, ch.out_handle + 1, &cmd));
	EXPECT_EQ(-EINVAL, _create_cq(self->fd, 1, RNIC_CREATE_CQ_CHANNEL,
				      ch.out_handle + 100, &cmd));
	EXPECT_EQ(-EINVAL, _create_cq(self->fd, 0, 0, 0, &cmd));
	EXPECT_EQ(-EINVAL, _create_cq(self->fd, 65537, 0, 0, &cmd));
	EXPECT_EQ(-EINVAL, _create_cq(self->fd, 0xffffffff, 0, 0, &cmd));
	/* Reserved must be 0. */
	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.cqe = 1;
	cmd.__reserved = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(self->fd, RNIC_IOCTL_CREATE_CQ, &cmd));

	/* A CQ handle is not a channel handle. */
	do_create_cq(self->fd, 1, 0, 0, &cmd);
	EXPECT_EQ(-EINVAL, _create_cq(self->fd, 1, RNIC_CREATE_CQ_CHANNEL,
				      cmd.out_handle, &cmd));

	/* The channel of another context: librnic and the kernel refuse. */
	other = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, other);
	other_ch = ibv_create_comp_channel(other);
	ASSERT_NE(NULL, other_ch);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 1, NULL, other_ch, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ibv_destroy_comp_channel(other_ch));
	EXPECT_EQ(0, ibv_close_device(other));

	/* The raw context's channel handle names nothing in librnic's. */
	EXPECT_EQ(-EINVAL, _create_cq(self->ctx->cmd_fd, 1,
				      RNIC_CREATE_CQ_CHANNEL, ch.out_handle,
				      &cmd));
	ASSERT_COUNTS(1, 1);
	close(ch.out_fd);
}

TEST_F(cq, handles_are_per_context)
{
	struct rnic_create_comp_channel ch;
	struct rnic_destroy_cq dcmd;
	struct rnic_create_cq cmd;

	ASSERT_EQ(0, _create_channel(self->fd, &ch));
	do_create_cq(self->fd, 1, RNIC_CREATE_CQ_CHANNEL, ch.out_handle, &cmd);
	/* Handle numbers of the raw context mean nothing in librnic's. */
	EXPECT_EQ(-EINVAL, _destroy_cq(self->ctx->cmd_fd, cmd.out_handle,
				       &dcmd));
	EXPECT_EQ(-EINVAL, _destroy(self->ctx->cmd_fd,
				    RNIC_IOCTL_DESTROY_COMP_CHANNEL,
				    ch.out_handle));
	/* Nor is a CQ a channel, or a channel a CQ. */
	EXPECT_EQ(-EINVAL, _destroy(self->fd, RNIC_IOCTL_DESTROY_COMP_CHANNEL,
				    cmd.out_handle));
	EXPECT_EQ(-EINVAL, _destroy_cq(self->fd, ch.out_handle, &dcmd));
	EXPECT_EQ(-EINVAL, _destroy_cq(self->fd, 0xffffffff, &dcmd));
	/* Order: the channel is busy while the CQ holds it. */
	EXPECT_EQ(-EBUSY, _destroy(self->fd, RNIC_IOCTL_DESTROY_COMP_CHANNEL,
				   ch.out_handle));
	memset(&dcmd, 0xff, sizeof(dcmd));
	ASSERT_EQ(0, _destroy_cq(self->fd, cmd.out_handle, &dcmd));
	EXPECT_EQ(0, dcmd.out_comp_events_reported);
	EXPECT_EQ(0, dcmd.out_async_events_reported);
	EXPECT_EQ(-EINVAL, _destroy_cq(self->fd, cmd.out_handle, &dcmd));
	EXPECT_EQ(0, _destroy(self->fd, RNIC_IOCTL_DESTROY_COMP_CHANNEL,
			      ch.out_handle));
	EXPECT_EQ(-EINVAL, _destroy(self->fd, RNIC_IOCTL_DESTROY_COMP_CHANNEL,
				    ch.out_handle));
	close(ch.out_fd);
	ASSERT_COUNTS(0, 0);
}

/* The size contract of each ioctl of the family. */
TEST_F(cq, cmd_length)
{
	static const struct {
		unsigned long cmd;
		size_t size;
		const char *name;
	} cmds[] = {
		{ RNIC_IOCTL_CREATE_COMP_CHANNEL,
		  sizeof(struct rnic_create_comp_channel), "create_channel" },
		{ RNIC_IOCTL_CREATE_CQ, sizeof(struct rnic_create_cq),
		  "create_cq" },
		{ RNIC_IOCTL_RESIZE_CQ, sizeof(struct rnic_resize_cq),
		  "resize_cq" },
		{ RNIC_IOCTL_DESTROY_CQ, sizeof(struct rnic_destroy_cq),
		  "destroy_cq" },
		{ RNIC_IOCTL_DESTROY_COMP_CHANNEL, sizeof(struct rnic_destroy),
		  "destroy_channel" },
		{ RNIC_IOCTL_CREATE_ASYNC_FD,
		  sizeof(struct rnic_create_async_fd), "create_async_fd" },
	};
	struct rnic_create_comp_channel ch;
	struct rnic_create_cq cq;
	unsigned char buf[512];
	unsigned int i;
	__u32 *w = (__u32 *)buf;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		TH_LOG("%s", cmds[i].name);
		/* An object for the calls that need one: a CQ, a channel. */
		do_create_cq(self->fd, 1, 0, 0, &cq);
		ASSERT_EQ(0, _create_channel(self->fd, &ch));
		close(ch.out_fd);

		memset(buf, 0, sizeof(buf));
		w[0] = cmds[i].size - 1;
		do_err_ioctl(EINVAL, self->fd, cmds[i].cmd, buf);
		w[0] = 0;
		do_err_ioctl(EINVAL, self->fd, cmds[i].cmd, buf);
		/* A non-zero tail past the kernel's struct. */
		w[0] = cmds[i].size + 64;
		buf[cmds[i].size + 7] = 1;
		do_err_ioctl(E2BIG, self->fd, cmds[i].cmd, buf);
		buf[cmds[i].size + 7] = 0;
		/* Unknown flags. */
		w[0] = cmds[i].size;
		w[1] = 1u << 30;
		do_err_ioctl(EINVAL, self->fd, cmds[i].cmd, buf);
		do_err_ioctl(EFAULT, self->fd, cmds[i].cmd, NULL);
		do_err_ioctl(EFAULT, self->fd, cmds[i].cmd, (void *)1);

		/* A longer struct with a zero tail is fine. */
		memset(buf, 0, sizeof(buf));
		w[0] = cmds[i].size + 64;
		if (cmds[i].cmd == RNIC_IOCTL_CREATE_CQ) {
			((struct rnic_create_cq *)buf)->cqe = 1;
		} else if (cmds[i].cmd == RNIC_IOCTL_RESIZE_CQ) {
			((struct rnic_resize_cq *)buf)->handle = cq.out_handle;
			((struct rnic_resize_cq *)buf)->cqe = 2;
		} else if (cmds[i].cmd == RNIC_IOCTL_DESTROY_CQ) {
			w[2] = cq.out_handle;
		} else if (cmds[i].cmd == RNIC_IOCTL_DESTROY_COMP_CHANNEL) {
			w[2] = ch.out_handle;
		}
		do_ioctl(self->fd, cmds[i].cmd, buf);
		EXPECT_EQ(0, buf[cmds[i].size + 63]);
		if (cmds[i].cmd == RNIC_IOCTL_CREATE_COMP_CHANNEL)
			close(((struct rnic_create_comp_channel *)buf)->out_fd);
		if (cmds[i].cmd == RNIC_IOCTL_CREATE_ASYNC_FD)
			close(((struct rnic_create_async_fd *)buf)->out_fd);
	}
	close(self->fd);
	self->fd = -1;
	ASSERT_COUNTS(0, 0);
}

TEST_F(cq, ring_mapping)
{
	struct rnic_ring_info *ri;
	struct rnic_destroy_cq dcmd;
	struct rnic_create_cq cmd;
	long page = sysconf(_SC_PAGESIZE);
	volatile __u32 *arm;
	char *map;

	do_create_cq(self->fd, 100, 0, 0, &cmd);
	ri = &cmd.out_ring;
	EXPECT_EQ(128, ri->entries);
	EXPECT_EQ(sizeof(struct rnic_cqe), ri->entry_size);
	EXPECT_EQ(64, sizeof(struct rnic_cqe));
	EXPECT_EQ(0, ri->size % page);
	EXPECT_EQ(0, ri->offset % page);
	EXPECT_LE(ri->entries_off + ri->entries * ri->entry_size, ri->size);
	/* The arm word is the consumer's neighbour, in its cache line. */
	EXPECT_EQ(ri->consumer_off + 4, cmd.out_arm_off);
	EXPECT_LE(ri->producer_off + 64, ri->consumer_off);
	EXPECT_LE(ri->consumer_off + 64, ri->entries_off);

	/* Exactly the size, always shared. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ri->size - page, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, ri->offset));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ri->size + page, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, ri->offset));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ri->size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, self->fd, ri->offset));
	EXPECT_EQ(EINVAL, errno);
	map = mmap(NULL, ri->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, ri->offset);
	ASSERT_NE(MAP_FAILED, map);
	EXPECT_EQ(0, *(__u32 *)(map + ri->producer_off));
	EXPECT_EQ(0, *(__u32 *)(map + ri->consumer_off));
	arm = (__u32 *)(map + cmd.out_arm_off);
	EXPECT_EQ(0, *arm);
	*arm = 1 << RNIC_CQ_ARM_SEQ_SHIFT | RNIC_CQ_ARM_NEXT;

	/* The mapping outlives the CQ; the offset is gone. */
	ASSERT_EQ(0, _destroy_cq(self->fd, cmd.out_handle, &dcmd));
	ASSERT_COUNTS(0, 0);
	EXPECT_EQ(1 << RNIC_CQ_ARM_SEQ_SHIFT | RNIC_CQ_ARM_NEXT, *arm);
	map[ri->size - 1] = 1;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ri->size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, ri->offset));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, munmap(map, ri->size));
}

TEST_F(cq, resize)
{
	struct ibv_wc wc[4];
	struct ibv_cq *cq;

	cq = ibv_create_cq(self->ctx, 1, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(0, ibv_resize_cq(cq, 100));
	EXPECT_EQ(128, cq->cqe);
	EXPECT_EQ(0, ibv_resize_cq(cq, 128));
	EXPECT_EQ(128, cq->cqe);
	EXPECT_EQ(0, ibv_resize_cq(cq, 3));
	EXPECT_EQ(4, cq->cqe);
	EXPECT_EQ(0, ibv_resize_cq(cq, self->attr.max_cqe));
	EXPECT_EQ(self->attr.max_cqe, cq->cqe);
	EXPECT_EQ(EINVAL, ibv_resize_cq(cq, self->attr.max_cqe + 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(EINVAL, ibv_resize_cq(cq, 0));
	EXPECT_EQ(EINVAL, ibv_resize_cq(cq, -5));
	/* A failed resize leaves the CQ as it was. */
	EXPECT_EQ(self->attr.max_cqe, cq->cqe);
	EXPECT_EQ(0, ibv_poll_cq(cq, 4, wc));
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 0));
	EXPECT_EQ(0, ibv_resize_cq(cq, 1));
	EXPECT_EQ(1, cq->cqe);
	EXPECT_EQ(0, ibv_poll_cq(cq, 4, wc));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	ASSERT_COUNTS(0, 0);
}

/* Resize checks the consumer index userspace wrote and moves the arm word. */
TEST_F(cq, resize_raw)
{
	struct rnic_resize_cq rcmd;
	struct rnic_destroy_cq dcmd;
	struct rnic_create_cq cmd;
	char *map, *map2;
	__u32 *cons;

	do_create_cq(self->fd, 8, 0, 0, &cmd);
	map = mmap(NULL, cmd.out_ring.size, PROT_READ | PROT_WRITE,
		   MAP_SHARED, self->fd, cmd.out_ring.offset);
	ASSERT_NE(MAP_FAILED, map);
	cons = (__u32 *)(map + cmd.out_ring.consumer_off);
	*(__u32 *)(map + cmd.out_arm_off) = 0x1235;

	/* A consumer ahead of the producer: not within the ring. */
	*cons = 5;
	EXPECT_EQ(-EINVAL, _resize_cq(self->fd, cmd.out_handle, 16, &rcmd));
	*cons = 0;
	EXPECT_EQ(-EINVAL, _resize_cq(self->fd, cmd.out_handle, 0, &rcmd));
	EXPECT_EQ(-EINVAL, _resize_cq(self->fd, cmd.out_handle, 65537, &rcmd));
	EXPECT_EQ(-EINVAL, _resize_cq(self->fd, cmd.out_handle + 1, 16, &rcmd));
	rcmd.__reserved = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(self->fd, RNIC_IOCTL_RESIZE_CQ, &rcmd));

	ASSERT_EQ(0, _resize_cq(self->fd, cmd.out_handle, 16, &rcmd));
	EXPECT_EQ(16, rcmd.out_ring.entries);
	EXPECT_NE(cmd.out_ring.offset, rcmd.out_ring.offset);
	map2 = mmap(NULL, rcmd.out_ring.size, PROT_READ | PROT_WRITE,
		    MAP_SHARED, self->fd, rcmd.out_ring.offset);
	ASSERT_NE(MAP_FAILED, map2);
	EXPECT_EQ(0x1235, *(__u32 *)(map2 + rcmd.out_arm_off));
	EXPECT_EQ(0, *(__u32 *)(map2 + rcmd.out_ring.producer_off));
	EXPECT_EQ(0, *(__u32 *)(map2 + rcmd.out_ring.consumer_off));
	/* The old region is no longer mappable, but still mapped. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, cmd.out_ring.size,
				   PROT_READ | PROT_WRITE, MAP_SHARED,
				   self->fd, cmd.out_ring.offset));
	*cons = 7;
	/* The kernel reads the new ring's consumer now. */
	ASSERT_EQ(0, _resize_cq(self->fd, cmd.out_handle, 4, &rcmd));
	ASSERT_EQ(0, _destroy_cq(self->fd, cmd.out_handle, &dcmd));
	EXPECT_EQ(0, munmap(map, cmd.out_ring.size));
	EXPECT_EQ(0, munmap(map2, rcmd.out_ring.size));
	ASSERT_COUNTS(0, 0);
}

TEST_F(cq, poll_empty)
{
	struct ibv_wc wc[8];
	struct ibv_cq *cq;

	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	memset(wc, 0x5a, sizeof(wc));
	EXPECT_EQ(0, ibv_poll_cq(cq, 8, wc));
	EXPECT_EQ(0, ibv_poll_cq(cq, 0, wc));
	EXPECT_EQ(0, ibv_poll_cq(cq, -1, wc));
	EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, wc[0].wr_id);
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/*
 * Run @fn in a child under seccomp strict mode (read, write, exit and
 * sigreturn only): any other system call kills it with SIGKILL.
 */
static int run_strict(struct ibv_cq *cq, int (*fn)(struct ibv_cq *cq))
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
			_exit(3);
		syscall(SYS_exit, fn(cq));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static int arm_and_poll(struct ibv_cq *cq)
{
	struct ibv_wc wc[4];
	int i, bad = 0;

	for (i = 0; i < 1000; i++) {
		bad |= ibv_req_notify_cq(cq, i % 2);
		bad |= ibv_poll_cq(cq, 4, wc);
	}
	return bad ? 1 : 0;
}

static int resize(struct ibv_cq *cq)
{
	return ibv_resize_cq(cq, 64) ? 1 : 0;
}

TEST_F(cq, req_notify_and_poll_make_no_system_call)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	int status;

	ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->ctx, 16, NULL, ch, 0);
	ASSERT_NE(NULL, cq);

	status = run_strict(cq, arm_and_poll);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* Control: a verb that makes a system call is killed. */
	status = run_strict(cq, resize);
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(SIGKILL, WTERMSIG(status));

	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

TEST_F(cq, channel_nonblocking_and_poll)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct ibv_comp_channel *ch;
	struct pollfd pfd;
	struct ibv_cq *cq, *got;
	void *got_ctx;
	int epfd;

	ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->ctx, 4, NULL, ch, 0);
	ASSERT_NE(NULL, cq);
	ASSERT_EQ(0, ibv_req_notify_cq(cq, 0));

	/* Nothing to report: poll and epoll time out. */
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, poll(&pfd, 1, 50));
	epfd = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, epfd);
	ASSERT_EQ(0, epoll_ctl(epfd, EPOLL_CTL_ADD, ch->fd, &ev));
	EXPECT_EQ(0, epoll_wait(epfd, &ev, 1, 50));
	close(epfd);

	/* Non-blocking: EAGAIN instead of waiting. */
	ASSERT_EQ(0, fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK));
	errno = 0;
	EXPECT_EQ(-1, ibv_get_cq_event(ch, &got, &got_ctx));
	EXPECT_EQ(EAGAIN, errno);

	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

/* Read events of a raw channel descriptor. */
TEST_F(cq, channel_read_contract)
{
	struct rnic_create_comp_channel ch;
	struct rnic_event_desc desc;
	struct pollfd pfd;
	char small[15];

	ASSERT_EQ(0, _create_channel(self->fd, &ch));
	EXPECT_TRUE(fcntl(ch.out_fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(-1, read(ch.out_fd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(ch.out_fd, &desc, sizeof(desc)));
	EXPECT_EQ(EBADF, errno);
	ASSERT_EQ(0, fcntl(ch.out_fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(ch.out_fd, &desc, sizeof(desc)));
	EXPECT_EQ(EAGAIN, errno);

	/* Destroyed (the descriptor lives on): EIO and EPOLLERR. */
	do_destroy(self->fd, RNIC_IOCTL_DESTROY_COMP_CHANNEL, ch.out_handle);
	ASSERT_COUNTS(0, 0);
	EXPECT_EQ(-1, read(ch.out_fd, &desc, sizeof(desc)));
	EXPECT_EQ(EIO, errno);
	pfd.fd = ch.out_fd;
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLERR, pfd.revents);
	close(ch.out_fd);
}

struct reader {
	int fd;
	ssize_t ret;
	int err;
};

static void *read_event(void *arg)
{
	struct reader *r = arg;
	struct rnic_event_desc desc;

	r->ret = read(r->fd, &desc, sizeof(desc));
	r->err = errno;
	return NULL;
}

/* A reader blocked on a channel wakes up with EIO when its context goes. */
TEST_F(cq, channel_outlives_context)
{
	struct rnic_create_comp_channel ch;
	struct rnic_link_info info;
	struct reader r = { .ret = 1 };
	struct rnic_create_cq cmd;
	pthread_t thread;
	struct pollfd pfd;

	ASSERT_EQ(0, _create_channel(self->fd, &ch));
	do_create_cq(self->fd, 1, RNIC_CREATE_CQ_CHANNEL, ch.out_handle, &cmd);
	r.fd = ch.out_fd;
	ASSERT_EQ(0, pthread_create(&thread, NULL, read_event, &r));
	usleep(100000);
	EXPECT_EQ(1, r.ret);	/* still blocked */

	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EIO, r.err);
	pfd.fd = ch.out_fd;
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLERR, pfd.revents);
	ASSERT_COUNTS(0, 0);
	ASSERT_EQ(0, rnic_link_get(self->g, DEV, &info));
	EXPECT_EQ(1, info.contexts);
	close(ch.out_fd);
}

/* Closing a channel's descriptor leaves the channel object usable. */
TEST_F(cq, context_outlives_channel_fd)
{
	struct rnic_create_comp_channel ch;
	struct rnic_destroy_cq dcmd;
	struct rnic_create_cq cmd;

	ASSERT_EQ(0, _create_channel(self->fd, &ch));
	close(ch.out_fd);
	do_create_cq(self->fd, 1, RNIC_CREATE_CQ_CHANNEL, ch.out_handle, &cmd);
	ASSERT_COUNTS(1, 1);
	EXPECT_EQ(-EBUSY, _destroy(self->fd, RNIC_IOCTL_DESTROY_COMP_CHANNEL,
				   ch.out_handle));
	ASSERT_EQ(0, _destroy_cq(self->fd, cmd.out_handle, &dcmd));
	do_destroy(self->fd, RNIC_IOCTL_DESTROY_COMP_CHANNEL, ch.out_handle);
	ASSERT_COUNTS(0, 0);
}

TEST_F(cq, close_frees_everything)
{
	struct rnic_create_comp_channel ch;
	struct rnic_link_info info;
	struct rnic_create_cq cmd;
	int i, status;
	pid_t pid;

	/* Raw: objects in any order, closed with the file. */
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, _create_channel(self->fd, &ch));
		do_create_cq(self->fd, 1 << i, RNIC_CREATE_CQ_CHANNEL,
			     ch.out_handle, &cmd);
		do_create_cq(self->fd, 1, 0, 0, &cmd);
		if (i % 2)
			close(ch.out_fd);
	}
	ASSERT_COUNTS(16, 8);
	close(self->fd);
	self->fd = -1;
	ASSERT_COUNTS(0, 0);

	/* librnic: a process that exits without cleaning up. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct ibv_context *ctx = rnic_ibv_open(DEV);
		struct ibv_comp_channel *c;
		struct ibv_cq *q;

		for (i = 0; ctx && i < 8; i++) {
			c = ibv_create_comp_channel(ctx);
			q = c ? ibv_create_cq(ctx, 100, NULL, c, 0) : NULL;
			if (!q || ibv_resize_cq(q, 1000) ||
			    !ibv_create_cq(ctx, 1, NULL, NULL, 0))
				_exit(1);
		}
		_exit(ctx ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_COUNTS(0, 0);
	ASSERT_EQ(0, rnic_link_get(self->g, DEV, &info));
	EXPECT_EQ(1, info.contexts);
}

/* After the device is removed, objects can still be destroyed. */
TEST_F(cq, ring_memory_counts_as_locked_memory)
{
	long before = vm_pin_kb();
	struct ibv_cq *cq;
	pid_t pid;
	int status;

	/* 65536 CQEs of 64 bytes: 4 MiB and a header page. */
	cq = ibv_create_cq(self->ctx, 65536, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(before + 4096 + 4, vm_pin_kb());
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(before, vm_pin_kb());

	/* Unprivileged, the ring counts against RLIMIT_MEMLOCK. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rlimit rl = { 1 << 20, 1 << 20 };
		struct ibv_cq *small;

		if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgid(65534) ||
		    setuid(65534))
			_exit(10);
		errno = 0;
		if (ibv_create_cq(self->ctx, 65536, NULL, NULL, 0) ||
		    errno != ENOMEM)
			_exit(1);
		small = ibv_create_cq(self->ctx, 1024, NULL, NULL, 0);
		if (!small || ibv_destroy_cq(small))
			_exit(2);
		_exit(vm_pin_kb() == before ? 0 : 3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(cq, destroy_after_device_removal)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;

	ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->ctx, 1, NULL, ch, 0);
	ASSERT_NE(NULL, cq);
	do_link_del(self->g, DEV);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 1, NULL, NULL, 0));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(ENODEV, ibv_resize_cq(cq, 4));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

TEST_F_TIMEOUT(cq, cq_limit, 120)
{
	struct rnic_create_cq cmd;
	int i, n = 0, err = 0;

	/* One raw context (no mappings), CQs of one entry. */
	for (i = 0; i <= self->attr.max_cq; i++) {
		err = _create_cq(self->fd, 1, 0, 0, &cmd);
		if (err)
			break;
		n++;
	}
	EXPECT_EQ(self->attr.max_cq, n);
	EXPECT_EQ(-ENOMEM, err);
	/* librnic's context hits the same device limit. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 1, NULL, NULL, 0));
	EXPECT_EQ(ENOMEM, errno);
	ASSERT_COUNTS(self->attr.max_cq, 0);
	close(self->fd);
	self->fd = -1;
	ASSERT_COUNTS(0, 0);
}

static void *get_async_event(void *arg)
{
	struct ibv_async_event ev;

	ibv_get_async_event(arg, &ev);
	return NULL;
}

/* Threads blocked in the event calls die with their process. */
TEST_F(cq, sigkill_while_blocked_in_event_calls)
{
	struct rnic_link_info info;
	int pipefd[2], status;
	char c;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct ibv_context *ctx = rnic_ibv_open(DEV);
		struct ibv_comp_channel *ch;
		pthread_t thread;
		struct ibv_cq *cq;
		void *cq_ctx;

		ch = ctx ? ibv_create_comp_channel(ctx) : NULL;
		cq = ch ? ibv_create_cq(ctx, 8, NULL, ch, 0) : NULL;
		if (!cq || ibv_req_notify_cq(cq, 0) ||
		    pthread_create(&thread, NULL, get_async_event, ctx))
			_exit(1);
		if (write(pipefd[1], "r", 1) != 1)
			_exit(2);
		ibv_get_cq_event(ch, &cq, &cq_ctx);
		_exit(3);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	close(pipefd[0]);
	usleep(200000);
	ASSERT_EQ(0, rnic_res_get(self->g, DEV, self->res));
	EXPECT_EQ(1, self->res->counts[RNIC_RES_CQ]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_CHANNEL]);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	ASSERT_COUNTS(0, 0);
	ASSERT_EQ(0, rnic_link_get(self->g, DEV, &info));
	EXPECT_EQ(2, info.contexts);
}

/* Channels and CQs of every size, armed, polled, resized, some destroyed. */
static void cq_churn(void *arg)
{
	struct ibv_context *ctx = rnic_ibv_open(DEV);
	struct ibv_comp_channel *ch;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	int i;

	(void)arg;
	for (i = 0; ctx; i++) {
		ch = ibv_create_comp_channel(ctx);
		cq = ibv_create_cq(ctx, 1 + i % 300, NULL, i % 3 ? ch : NULL,
				   0);
		if (cq) {
			ibv_req_notify_cq(cq, i % 2);
			ibv_poll_cq(cq, 1, &wc);
			ibv_resize_cq(cq, 1 + i % 1000);
		}
		if (cq && i % 2)
			ibv_destroy_cq(cq);
		if (ch && i % 4 == 1)
			ibv_destroy_comp_channel(ch);
	}
}

TEST_F(cq, sigkill_at_random_points)
{
	struct rnic_link_info info;

	rnic_kill_at_random(_metadata, 100, 5000, cq_churn, NULL);
	ASSERT_COUNTS(0, 0);
	ASSERT_EQ(0, rnic_link_get(self->g, DEV, &info));
	EXPECT_EQ(2, info.contexts);
}

/* ---- polling while the CQ is resized, with CQEs arriving -------------- */

#define RACE_POLLERS	3
#define RACE_RESIZES	2000
#define RACE_MS		20000	/* or stop resizing then */
#define RACE_MAX_SENDS	(1UL << 20)
#define RACE_WINDOW	32	/* sends not polled yet: fit the smaller size */
#define RACE_SMALL	33	/* a 64-entry ring */
#define RACE_LARGE	300	/* a 512-entry ring */

/**
 * struct race - one UD QP sending to itself, its send CQ polled by
 *	RACE_POLLERS threads while one thread resizes it up and down
 * @cq: the CQ
 * @qp: the QP; its sends complete on @cq with wr_id 0, 1, 2, ...
 * @ah: towards the QP itself
 * @seen: one byte per wr_id, set by the thread that polled it
 * @posted: sends posted; final once @resizing is false
 * @polled: CQEs polled, all threads
 * @resizes: resizes done
 * @resizing: the resizer runs; then the poster stops
 * @drain: @posted is final: the pollers stop once they polled it all
 * @cpu: CPU of the next poller (round robin)
 * @fail: first failure (a source line), 0 if none
 * @end: deadline of the resizer, dp_now_ms()
 */
struct race {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	uint8_t *seen;
	unsigned long posted;
	unsigned long polled;
	unsigned long resizes;
	bool resizing;
	bool drain;
	int cpu;
	int fail;
	long end;
};

static void race_fail(struct race *r, int line)
{
	int none = 0;

	__atomic_compare_exchange_n(&r->fail, &none, line, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static bool race_failed(struct race *r)
{
	return __atomic_load_n(&r->fail, __ATOMIC_RELAXED);
}

/* Threads on both CPUs, several per CPU: a resize lands mid-poll. */
static void race_pin(int i)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(i % (ncpu > 0 ? ncpu : 1), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void race_check(struct race *r, const struct ibv_wc *wc,
		       uint64_t *next)
{
	/* This thread's CQEs come in the order of the sends. */
	if (wc->status != IBV_WC_SUCCESS || wc->wr_id >= RACE_MAX_SENDS ||
	    wc->wr_id < *next)
		race_fail(r, __LINE__);
	else if (__atomic_exchange_n(&r->seen[wc->wr_id], 1, __ATOMIC_RELAXED))
		race_fail(r, __LINE__);	/* polled twice */
	*next = wc->wr_id + 1;
}

static void *race_poller(void *arg)
{
	struct race *r = arg;
	struct ibv_wc wc[4];
	uint64_t next = 0;
	int n, i;

	race_pin(__atomic_fetch_add(&r->cpu, 1, __ATOMIC_RELAXED));
	while (!race_failed(r) &&
	       !(__atomic_load_n(&r->drain, __ATOMIC_ACQUIRE) &&
		 __atomic_load_n(&r->polled, __ATOMIC_RELAXED) == r->posted)) {
		n = ibv_poll_cq(r->cq, 4, wc);
		if (n < 0)
			race_fail(r, __LINE__);
		for (i = 0; i < n; i++)
			race_check(r, &wc[i], &next);
		if (n > 0)
			__atomic_add_fetch(&r->polled, n, __ATOMIC_RELAXED);
		else if (dp_now_ms() > r->end + DP_TIMEOUT_MS)
			race_fail(r, __LINE__);	/* CQEs missing */
	}
	return NULL;
}

static void *race_resizer(void *arg)
{
	struct race *r = arg;

	race_pin(0);
	while (r->resizes < RACE_RESIZES && !race_failed(r) &&
	       dp_now_ms() < r->end) {
		if (ibv_resize_cq(r->cq, r->resizes % 2 ? RACE_SMALL :
							   RACE_LARGE))
			race_fail(r, __LINE__);
		r->resizes++;
	}
	return NULL;
}

/* Post sends while the resizer runs, at most RACE_WINDOW unpolled. */
static void *race_poster(void *arg)
{
	struct race *r = arg;
	struct dp_wr w = { .op = IBV_WR_SEND, .ah = r->ah,
			   .rqpn = r->qp->qp_num, .qkey = DP_QKEY };
	unsigned long posted = 0;

	race_pin(1);
	while (__atomic_load_n(&r->resizing, __ATOMIC_RELAXED) &&
	       posted < RACE_MAX_SENDS && !race_failed(r)) {
		if (posted - __atomic_load_n(&r->polled, __ATOMIC_RELAXED) >=
		    RACE_WINDOW) {
			sched_yield();
			continue;
		}
		w.wr_id = posted;
		if (dp_post(r->qp, &w))
			race_fail(r, __LINE__);
		posted++;
	}
	return (void *)(uintptr_t)posted;
}

FIXTURE(cq_dp) {
	struct dp_env env;
};

FIXTURE_SETUP(cq_dp)
{
	dp_env_open(_metadata, &self->env, DEV, NULL);
}

FIXTURE_TEARDOWN(cq_dp)
{
	dp_env_close(_metadata, &self->env);
}

/*
 * ibv_poll_cq() reads the ring's indexes without the CQ's lock when the
 * CQ looks empty. Resizing replaces the ring: a poller must neither fault
 * on the old mapping nor lose or repeat a CQE.
 */
TEST_F_TIMEOUT(cq_dp, poll_while_resizing, 120)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	pthread_t poller[RACE_POLLERS], resizer, poster;
	struct race r = { .resizing = true };
	unsigned long i;
	void *posted;

	r.seen = calloc(RACE_MAX_SENDS, 1);
	ASSERT_NE(NULL, r.seen);
	r.cq = ibv_create_cq(self->env.ctx[0], RACE_SMALL, NULL, NULL, 0);
	ASSERT_NE(NULL, r.cq);
	r.qp = dp_qp_create(self->env.pd[0], r.cq, self->env.rcq[0], &o);
	ASSERT_NE(NULL, r.qp);
	ASSERT_EQ(0, dp_qp_init(r.qp, &o));
	ASSERT_EQ(0, dp_qp_rtr(r.qp, &o, 0, &self->env.gid,
			       self->env.gid_index, 0));
	ASSERT_EQ(0, dp_qp_rts(r.qp, &o, 0));
	r.ah = dp_ah(self->env.pd[0], &self->env.gid, self->env.gid_index);
	ASSERT_NE(NULL, r.ah);

	r.end = dp_now_ms() + RACE_MS;
	ASSERT_EQ(0, pthread_create(&poster, NULL, race_poster, &r));
	for (i = 0; i < RACE_POLLERS; i++)
		ASSERT_EQ(0, pthread_create(&poller[i], NULL, race_poller, &r));
	ASSERT_EQ(0, pthread_create(&resizer, NULL, race_resizer, &r));
	pthread_join(resizer, NULL);
	/* Stop posting; the pollers drain what was posted. */
	__atomic_store_n(&r.resizing, false, __ATOMIC_RELAXED);
	pthread_join(poster, &posted);
	r.posted = (uintptr_t)posted;
	__atomic_store_n(&r.drain, true, __ATOMIC_RELEASE);
	for (i = 0; i < RACE_POLLERS; i++)
		pthread_join(poller[i], NULL);

	TH_LOG("%lu resizes in %ld ms, %lu sends, %lu CQEs polled",
	       r.resizes, dp_now_ms() - (r.end - RACE_MS), r.posted, r.polled);
	EXPECT_EQ(0, r.fail) TH_LOG("failed at line %d", r.fail);
	ASSERT_EQ(r.posted, r.polled);
	for (i = 0; i < r.posted; i++)
		ASSERT_EQ(1, r.seen[i]) TH_LOG("wr_id %lu", i);
	EXPECT_LT(RACE_WINDOW, r.posted);
	EXPECT_LT(100, r.resizes);

	EXPECT_EQ(0, ibv_destroy_ah(r.ah));
	EXPECT_EQ(0, ibv_destroy_qp(r.qp));
	EXPECT_EQ(0, ibv_destroy_cq(r.cq));
	free(r.seen);
}

TEST_HARNESS_MAIN
