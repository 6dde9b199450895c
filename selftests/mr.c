// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains and memory regions: creation, EBUSY, handles per
 * context, access rules, pinning and RLIMIT_MEMLOCK, limits, teardown on
 * close and on SIGKILL.
 */
#include <infiniband/verbs.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "rnic_verbs_test.h"

FIXTURE(mr) {
	struct rnic_genl *g;
	struct rnic_res_info *res;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char *buf;
};

#define BUF_SIZE (1 << 20)

FIXTURE_SETUP(mr)
{
	self->ctx = NULL;
	self->buf = MAP_FAILED;
	rnic_fixture_setup(_metadata, &self->g, &self->res, "t_mr", NULL);
	self->ctx = do_ptr(rnic_ibv_open("t_mr"));
	self->pd = do_ptr(ibv_alloc_pd(self->ctx));
	self->buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
}

FIXTURE_TEARDOWN(mr)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	if (self->buf != MAP_FAILED)
		munmap(self->buf, BUF_SIZE);
	EXPECT_EQ(0, vm_pin_kb());
	rnic_fixture_teardown(_metadata, self->g, self->res);
}

TEST_F(mr, pd_busy_while_mr_uses_it)
{
	struct ibv_mr *mr;

	mr = ibv_reg_mr(self->pd, self->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(self->pd, mr->pd);
	EXPECT_EQ(self->buf, mr->addr);
	EXPECT_EQ(4096, mr->length);
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	self->pd = NULL;
}

TEST_F(mr, handles_are_per_context_and_die_with_the_object)
{
	struct rnic_destroy d = { .size = sizeof(d) };
	struct ibv_context *other;
	struct ibv_pd *pd2;

	other = rnic_ibv_open("t_mr");
	ASSERT_NE(NULL, other);
	/* The handle of our PD means nothing in the other context. */
	d.handle = self->pd->handle;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(other->cmd_fd, RNIC_IOCTL_DEALLOC_PD, &d));
	/* Nor is a PD handle an MR handle. */
	EXPECT_EQ(-EINVAL, _rnic_ioctl(self->ctx->cmd_fd, RNIC_IOCTL_DEREG_MR, &d));
	/* A destroyed handle is gone, and its number is not a PD any more. */
	pd2 = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, pd2);
	d.handle = pd2->handle;
	EXPECT_EQ(0, ibv_dealloc_pd(pd2));
	EXPECT_EQ(-EINVAL, _rnic_ioctl(self->ctx->cmd_fd, RNIC_IOCTL_DEALLOC_PD, &d));
	d.handle = 0xffffffff;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(self->ctx->cmd_fd, RNIC_IOCTL_DEALLOC_PD, &d));
	/* Our PD still works. */
	EXPECT_EQ(0, ibv_close_device(other));
	EXPECT_NE(NULL, ibv_reg_mr(self->pd, self->buf, 1, 0));
}

TEST_F(mr, access_rules)
{
	static const int bad[] = {
		IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ZERO_BASED,
		IBV_ACCESS_HUGETLB,
		1 << 30,
	};
	static const int good[] = {
		0,
		IBV_ACCESS_LOCAL_WRITE,
		IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING,
		IBV_ACCESS_MW_BIND,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND,
	};
	/* A feature rnic lacks (ODP): EOPNOTSUPP. */
	static const int unsupported[] = {
		IBV_ACCESS_ON_DEMAND,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND,
	};
	struct ibv_mr *mr;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(NULL, ibv_reg_mr(self->pd, self->buf, 4096, bad[i]));
		EXPECT_EQ(EINVAL, errno) TH_LOG("access %#x", bad[i]);
	}
	for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		errno = 0;
		EXPECT_EQ(NULL, ibv_reg_mr(self->pd, self->buf, 4096,
					   unsupported[i]));
		EXPECT_EQ(EOPNOTSUPP, errno)
			TH_LOG("access %#x", unsupported[i]);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		mr = ibv_reg_mr(self->pd, self->buf, 4096, good[i]);
		ASSERT_NE(NULL, mr) TH_LOG("access %#x: %d", good[i], errno);
		EXPECT_EQ(0, ibv_dereg_mr(mr));
	}
}

TEST_F(mr, ranges)
{
	char *ro, *hole;
	struct ibv_mr *mr;

	/* Zero length and ranges that wrap. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, self->buf, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, (void *)-4096L, 8192, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr_iova(self->pd, self->buf, 4096, -1ULL, 0));
	EXPECT_EQ(EINVAL, errno);

	/* Unaligned start and end: fine, and every page is pinned. */
	mr = ibv_reg_mr(self->pd, self->buf + 100, 8000, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(8, vm_pin_kb());
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, vm_pin_kb());

	/* Not mapped, or only partly: EFAULT and nothing stays pinned. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, NULL, 4096, 0));
	EXPECT_EQ(EFAULT, errno);
	hole = self->buf + BUF_SIZE - 4096;
	ASSERT_EQ(0, munmap(hole, 4096));
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, hole - 8192, 12288,
				   IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, vm_pin_kb());
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, (void *)(1UL << 47), 4096, 0));
	EXPECT_EQ(EFAULT, errno);
	/*
	 * The largest length, mostly unmapped: EFAULT before the kernel
	 * allocates a page array for it (it used to try a 2 GB vmalloc,
	 * fail with ENOMEM and dump an allocation failure in the log).
	 */
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, self->buf, 1ULL << 40,
				   IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, vm_pin_kb());

	/* Read-only memory: readable MR yes, writable MR no. */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	mr = ibv_reg_mr(self->pd, ro, 4096, IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, ro, 4096, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);
	munmap(ro, 4096);
	EXPECT_EQ(0, vm_pin_kb());
}

TEST_F(mr, keys)
{
	struct ibv_mr *mrs[64];
	unsigned int i, j, same_hi = 0;

	for (i = 0; i < 64; i++) {
		mrs[i] = ibv_reg_mr(self->pd, self->buf + i, 1, 0);
		ASSERT_NE(NULL, mrs[i]);
	}
	for (i = 0; i < 64; i++) {
		/* Same index in both keys, distinct between regions. */
		EXPECT_EQ(KEY_INDEX(mrs[i]->lkey), KEY_INDEX(mrs[i]->rkey));
		for (j = 0; j < i; j++) {
			EXPECT_NE(mrs[i]->lkey, mrs[j]->lkey);
			EXPECT_NE(mrs[i]->rkey, mrs[j]->rkey);
			if ((mrs[i]->rkey & ~KEY_INDEX_MASK) ==
			    (mrs[j]->rkey & ~KEY_INDEX_MASK))
				same_hi++;
		}
	}
	/* 15 random bits: a few of 2016 pairs may collide, not most. */
	EXPECT_GT(100, same_hi);
	for (i = 0; i < 64; i++)
		EXPECT_EQ(0, ibv_dereg_mr(mrs[i]));
}

/*
 * The key layout as ibv_reg_mr() shows it: the index in bits 8-24, the
 * same in both keys, and the next region on a new device at the next
 * index: the first device's MR takes index 0, the ones after it count up.
 * The key byte and the 7 top bits are random: over 64 regions, each of
 * the 15 random bits is seen both set and clear.
 */
TEST_F(mr, key_layout)
{
	uint32_t set = 0, clear = 0;
	struct ibv_mr *mrs[64];
	unsigned int i;

	for (i = 0; i < 64; i++) {
		mrs[i] = ibv_reg_mr(self->pd, self->buf + i, 1, 0);
		ASSERT_NE(NULL, mrs[i]);
		EXPECT_EQ(i, KEY_INDEX(mrs[i]->lkey));
		EXPECT_EQ(i, KEY_INDEX(mrs[i]->rkey));
		set |= mrs[i]->lkey | mrs[i]->rkey;
		clear |= ~mrs[i]->lkey | ~mrs[i]->rkey;
	}
	EXPECT_EQ(~KEY_INDEX_MASK, set & ~KEY_INDEX_MASK);
	EXPECT_EQ(~KEY_INDEX_MASK, clear & ~KEY_INDEX_MASK);
	for (i = 0; i < 64; i++)
		EXPECT_EQ(0, ibv_dereg_mr(mrs[i]));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* No two of @n sorted keys are equal. */
static bool keys_distinct(uint32_t *keys, unsigned int n)
{
	unsigned int i;

	qsort(keys, n, sizeof(*keys), cmp_u32);
	for (i = 1; i < n; i++)
		if (keys[i - 1] == keys[i])
			return false;
	return true;
}

/*
 * Indexes are allocated cyclically: each registration after a
 * deregistration takes the next index, not the one just freed, so no key
 * comes back. RNIC_MR_CYCLES cycles (default 2000, at most 2^17 - 1: one
 * turn of the indexes) next to a region kept registered at index 0.
 */
TEST_F(mr, reg_dereg_cycles_never_reuse_a_key)
{
	const char *env = getenv("RNIC_MR_CYCLES");
	unsigned int i, n = env ? atoi(env) : 2000;
	uint32_t *lkeys, *rkeys;
	struct ibv_mr *keep, *mr;

	n = n < (1u << 17) ? n : (1u << 17) - 1;
	lkeys = calloc(n, sizeof(*lkeys));
	rkeys = calloc(n, sizeof(*rkeys));
	ASSERT_TRUE(lkeys && rkeys);
	keep = ibv_reg_mr(self->pd, self->buf, 1, 0);
	ASSERT_NE(NULL, keep);
	ASSERT_EQ(0, KEY_INDEX(keep->lkey));
	for (i = 0; i < n; i++) {
		mr = ibv_reg_mr(self->pd, self->buf, 1, 0);
		ASSERT_NE(NULL, mr);
		/* the index the last one freed is never taken again */
		ASSERT_EQ(i + 1, KEY_INDEX(mr->lkey));
		ASSERT_EQ(KEY_INDEX(mr->lkey), KEY_INDEX(mr->rkey));
		lkeys[i] = mr->lkey;
		rkeys[i] = mr->rkey;
		ASSERT_EQ(0, ibv_dereg_mr(mr));
	}
	EXPECT_TRUE(keys_distinct(lkeys, n));
	EXPECT_TRUE(keys_distinct(rkeys, n));
	EXPECT_EQ(0, ibv_dereg_mr(keep));
	free(lkeys);
	free(rkeys);
}

TEST_F(mr, pinned_memory_is_accounted)
{
	struct ibv_mr *a, *b;

	a = ibv_reg_mr(self->pd, self->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, a);
	EXPECT_EQ(BUF_SIZE / 1024, vm_pin_kb());
	/* Overlapping registrations pin (and count) twice, as in the kernel. */
	b = ibv_reg_mr(self->pd, self->buf, 4096, 0);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(BUF_SIZE / 1024 + 4, vm_pin_kb());
	EXPECT_EQ(0, ibv_dereg_mr(a));
	EXPECT_EQ(4, vm_pin_kb());
	EXPECT_EQ(0, ibv_dereg_mr(b));
	EXPECT_EQ(0, vm_pin_kb());
}

TEST_F(mr, memlock_limit_unprivileged)
{
	pid_t pid;
	int status;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rlimit rl = { 64 << 10, 64 << 10 };
		struct ibv_mr *a, *b;
		int ret = 0;

		/* Drop CAP_IPC_LOCK with root: the limit applies. */
		if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgid(65534) ||
		    setuid(65534))
			_exit(20);
		a = ibv_reg_mr(self->pd, self->buf, 48 << 10, 0);
		if (!a)
			ret |= 1;
		errno = 0;
		b = ibv_reg_mr(self->pd, self->buf, 32 << 10, 0);
		if (b || errno != ENOMEM)
			ret |= 2;
		if (vm_pin_kb() != 48)
			ret |= 4;
		/* Within the limit again once the first is gone. */
		if (!a || ibv_dereg_mr(a))
			ret |= 8;
		b = ibv_reg_mr(self->pd, self->buf, 64 << 10, 0);
		if (!b || ibv_dereg_mr(b))
			ret |= 16;
		if (vm_pin_kb() != 0)
			ret |= 32;
		_exit(ret);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(mr, close_frees_everything)
{
	struct rnic_link_info info;
	int i;

	for (i = 0; i < 16; i++) {
		struct ibv_pd *pd = ibv_alloc_pd(self->ctx);

		ASSERT_NE(NULL, pd);
		ASSERT_NE(NULL, ibv_reg_mr(pd, self->buf + i * 4096, 65536,
					   IBV_ACCESS_LOCAL_WRITE));
	}
	EXPECT_LT(0, vm_pin_kb());
	/* Objects and pages go with the file, whatever their order. */
	EXPECT_EQ(0, ibv_close_device(self->ctx));
	self->ctx = NULL;
	EXPECT_EQ(0, vm_pin_kb());
	ASSERT_EQ(0, rnic_link_get(self->g, "t_mr", &info));
	EXPECT_EQ(0, info.contexts);
}

TEST_F(mr, pd_limit)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx2;
	int i, n = 0;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	/* One PD exists; fill the device from two contexts. */
	ctx2 = rnic_ibv_open("t_mr");
	ASSERT_NE(NULL, ctx2);
	for (i = 1; i < attr.max_pd; i++) {
		if (!ibv_alloc_pd(i % 2 ? ctx2 : self->ctx))
			break;
		n++;
	}
	EXPECT_EQ(attr.max_pd - 1, n);
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_pd(self->ctx));
	EXPECT_EQ(ENOMEM, errno);
	/* Closing one context gives its PDs back to the device. */
	EXPECT_EQ(0, ibv_close_device(ctx2));
	EXPECT_NE(NULL, ibv_alloc_pd(self->ctx));
}

/* PDs and MRs over @buf (BUF_SIZE bytes), some destroyed. */
static void mr_churn(void *buf)
{
	struct ibv_context *ctx = rnic_ibv_open("t_mr");
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	int i;

	for (i = 0; ctx; i++) {
		pd = ibv_alloc_pd(ctx);
		mr = pd ? ibv_reg_mr(pd, (char *)buf + (i % 64) * 4096,
				     8192 + i % 3 * 4096,
				     IBV_ACCESS_LOCAL_WRITE) : NULL;
		if (mr && i % 2)
			ibv_dereg_mr(mr);
		if (pd && i % 4 == 1)
			ibv_dealloc_pd(pd);
	}
}

TEST_F(mr, sigkill_at_random_points)
{
	struct rnic_link_info info;

	rnic_kill_at_random(_metadata, 200, 3000, mr_churn, self->buf);
	/* Only the fixture's context is left, with its one PD. */
	ASSERT_EQ(0, rnic_link_get(self->g, "t_mr", &info));
	EXPECT_EQ(1, info.contexts);
	ASSERT_EQ(0, rnic_res_get(self->g, "t_mr", self->res));
	EXPECT_EQ(1, self->res->counts[RNIC_RES_PD]);
	EXPECT_EQ(0, self->res->counts[RNIC_RES_MR]);
	EXPECT_EQ(0, self->res->counts[RNIC_RES_PINNED]);
	ASSERT_EQ(1, self->res->n_ctxs);
	EXPECT_EQ(getpid(), (pid_t)self->res->ctxs[0].pid);
}

TEST_F(mr, destroy_after_device_removal)
{
	struct ibv_mr *mr;

	mr = ibv_reg_mr(self->pd, self->buf, 65536, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	do_link_del(self->g, "t_mr");
	/* Nothing new on a dead device, but cleaning up works at once. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_pd(self->ctx));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, self->buf, 4096, 0));
	EXPECT_EQ(64, vm_pin_kb());
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, vm_pin_kb());
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
}

TEST_F(mr, resources_are_reported)
{
	struct ibv_mr *mr;

	mr = ibv_reg_mr(self->pd, self->buf + 1, 8192, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	ASSERT_EQ(0, rnic_res_get(self->g, "t_mr", self->res));
	EXPECT_EQ(1, self->res->counts[RNIC_RES_PD]);
	EXPECT_EQ(1, self->res->counts[RNIC_RES_MR]);
	EXPECT_EQ(12288, self->res->counts[RNIC_RES_PINNED]);
	EXPECT_EQ(0, self->res->counts[RNIC_RES_QP]);
	ASSERT_EQ(1, self->res->n_ctxs);
	EXPECT_EQ(1, self->res->ctxs[0].counts[RNIC_RES_MR]);
	EXPECT_EQ(12288, self->res->ctxs[0].counts[RNIC_RES_PINNED]);
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	ASSERT_EQ(0, rnic_res_get(self->g, "t_mr", self->res));
	EXPECT_EQ(0, self->res->counts[RNIC_RES_MR]);
	EXPECT_EQ(0, self->res->counts[RNIC_RES_PINNED]);
}

TEST_HARNESS_MAIN
