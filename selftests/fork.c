// SPDX-License-Identifier: GPL-2.0
/*
 * fork() and registered memory: the parent keeps the pages it registered,
 * whatever the parent or the child writes afterwards, with or without
 * ibv_fork_init() (rnic pins with FOLL_PIN, and the kernel gives the child
 * a copy of pinned anonymous pages at fork time).
 */
#include <infiniband/verbs.h>
#include <sys/mman.h>

#include "rnic_test.h"

/* Physical frame of the page at @addr, from /proc/self/pagemap (root). */
static uint64_t pfn_of(const void *addr)
{
	uint64_t entry = 0;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return 0;
	if (pread(fd, &entry, sizeof(entry),
		  (uintptr_t)addr / 4096 * sizeof(entry)) != sizeof(entry))
		entry = 0;
	close(fd);
	/* Bit 63: present; bits 0-54: the frame number. */
	return entry >> 63 ? entry & ((1ULL << 55) - 1) : 0;
}

FIXTURE(fork) {
	struct rnic_genl *g;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf;
};

FIXTURE_SETUP(fork)
{
	struct ibv_device **list;

	self->ctx = NULL;
	self->mr = NULL;
	rnic_fixture_setup(_metadata, &self->g, NULL, "t_fork", NULL);
	list = do_ptr(ibv_get_device_list(NULL));
	ASSERT_NE(NULL, list[0]);
	self->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	ASSERT_NE(NULL, self->ctx);
	self->pd = do_ptr(ibv_alloc_pd(self->ctx));
	self->buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	memset(self->buf, 'p', 4096);
}

FIXTURE_TEARDOWN(fork)
{
	if (self->mr)
		EXPECT_EQ(0, ibv_dereg_mr(self->mr));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	rnic_fixture_teardown(_metadata, self->g, NULL);
}

/*
 * Fork, write in the parent first (without pinning, that write would copy
 * the page away from under the registration), then in the child. Returns
 * whether the parent still has the page it had before fork().
 */
static bool parent_keeps_page(struct __test_metadata *_metadata, char *buf)
{
	uint64_t before = pfn_of(buf), after;
	int go[2], status;
	char c;
	pid_t pid;

	EXPECT_NE(0, before);
	EXPECT_EQ(0, pipe(go));
	pid = fork();
	EXPECT_LE(0, pid);
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		memset(buf, 'c', 4096);
		_exit(buf[1] == 'c' ? 0 : 1);
	}
	buf[1] = 'P';
	after = pfn_of(buf);
	EXPECT_EQ(1, write(go[1], "x", 1));
	EXPECT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The child's writes never reach the parent. */
	EXPECT_EQ('p', buf[0]);
	EXPECT_EQ('P', buf[1]);
	close(go[0]);
	close(go[1]);
	return after == before && pfn_of(buf) == before;
}

TEST_F(fork, control_unregistered_page_moves)
{
	/* Shows that the check can fail: plain COW gives the parent a copy. */
	EXPECT_FALSE(parent_keeps_page(_metadata, self->buf));
}

TEST_F(fork, parent_keeps_registered_pages)
{
	self->mr = ibv_reg_mr(self->pd, self->buf, 4096,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, self->mr);
	EXPECT_TRUE(parent_keeps_page(_metadata, self->buf));
}

TEST_F(fork, with_ibv_fork_init)
{
	EXPECT_EQ(0, ibv_fork_init());
	EXPECT_EQ(IBV_FORK_UNNEEDED, ibv_is_fork_initialized());
	self->mr = ibv_reg_mr(self->pd, self->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
	EXPECT_TRUE(parent_keeps_page(_metadata, self->buf));
}

TEST_HARNESS_MAIN
