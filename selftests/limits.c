// SPDX-License-Identifier: GPL-2.0
/*
 * Limits that the other tests do not reach:
 * - max_mr: exactly max_mr MRs (one page each, all over the same page)
 *   register, the next one is ENOMEM, and deregistering them all leaves
 *   nothing (counts, pinned bytes, VmPin);
 * - max_mr_size: one page more is EINVAL (over a mapping that reserves
 *   nothing);
 * - a 1 GiB MR in the 2 GiB guest: registered, written with RDMA WRITE at
 *   its start, across its middle and at its end, read back with RDMA
 *   READ, every byte checked; VmPin back afterwards;
 * - kernel memory running out: a process in a memory cgroup (cgroup2
 *   memory.max a little above what it uses) creates QPs until one fails,
 *   then CQs, MRs and PDs likewise. The process is exempt from the OOM
 *   killer and has its pages charged (and locked) beforehand, so that
 *   the limit meets the kernel's allocations: every kind must end in
 *   ENOMEM, every destroy must work, and nothing is left on the device
 *   afterwards. Several margins make different allocations fail.
 * Which limits other tests cover is listed in Documentation/testing.rst.
 */
#include <malloc.h>
#include <sys/mount.h>

#include "rnic_dp_test.h"

#define DEV "t_lim"
#define CGROOT "/tmp/rnic-limits-cg"
#define CG CGROOT "/t"

FIXTURE(lim) {
	struct dp_env env;
};

FIXTURE_SETUP(lim)
{
	dp_env_open(_metadata, &self->env, DEV, NULL);
}

FIXTURE_TEARDOWN(lim)
{
	dp_env_close(_metadata, &self->env);
}

/* Wait (up to 10 s) until the device's counts equal @want. */
static bool counts_settle(struct dp_env *env, const uint64_t *want)
{
	long end = dp_now_ms() + 10000;

	for (;;) {
		if (rnic_res_get(env->g, env->dev, env->res))
			return false;
		if (!memcmp(want, env->res->counts, sizeof(env->res->counts)))
			return true;
		if (dp_now_ms() > end)
			return false;
		usleep(50000);
	}
}

TEST_F_TIMEOUT(lim, max_mr, 600)
{
	uint32_t max = self->env.dattr.max_mr, i;
	uint64_t base[RNIC_RES_NR_KINDS];
	long pin0 = vm_pin_kb();
	struct ibv_mr **mrs;
	void *page;

	ASSERT_EQ(131072, max);
	ASSERT_EQ(0, rnic_res_get(self->env.g, DEV, self->env.res));
	memcpy(base, self->env.res->counts, sizeof(base));
	mrs = calloc(max, sizeof(*mrs));
	ASSERT_NE(NULL, mrs);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	/* the MRs the environment has count too */
	for (i = base[RNIC_RES_MR]; i < max; i++) {
		mrs[i] = ibv_reg_mr(self->env.pd[i % 2], page, 4096,
				    IBV_ACCESS_LOCAL_WRITE);
		ASSERT_NE(NULL, mrs[i]) TH_LOG("MR %u: %s", i,
					       strerror(errno));
	}
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->env.pd[0], page, 4096, 0));
	EXPECT_EQ(ENOMEM, errno);
	ASSERT_EQ(0, rnic_res_get(self->env.g, DEV, self->env.res));
	EXPECT_EQ(max, self->env.res->counts[RNIC_RES_MR]);
	EXPECT_EQ(base[RNIC_RES_PINNED] + (uint64_t)(max - base[RNIC_RES_MR]) *
		  4096, self->env.res->counts[RNIC_RES_PINNED]);
	/* one goes, another comes, then all go */
	ASSERT_EQ(0, ibv_dereg_mr(mrs[max - 1]));
	mrs[max - 1] = ibv_reg_mr(self->env.pd[0], page, 4096, 0);
	ASSERT_NE(NULL, mrs[max - 1]);
	for (i = base[RNIC_RES_MR]; i < max; i++)
		ASSERT_EQ(0, ibv_dereg_mr(mrs[i]));
	EXPECT_TRUE(counts_settle(&self->env, base));
	EXPECT_EQ(pin0, vm_pin_kb());
	munmap(page, 4096);
	free(mrs);
}

TEST_F(lim, mr_size_over_max)
{
	size_t len = self->env.dattr.max_mr_size + 4096;
	uint64_t base[RNIC_RES_NR_KINDS];
	void *p;

	ASSERT_EQ(1ull << 40, self->env.dattr.max_mr_size);
	ASSERT_EQ(0, rnic_res_get(self->env.g, DEV, self->env.res));
	memcpy(base, self->env.res->counts, sizeof(base));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->env.pd[0], p, len,
				   IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_TRUE(counts_settle(&self->env, base));
	munmap(p, len);
}

TEST_F_TIMEOUT(lim, one_gib_mr, 600)
{
	const size_t big = 1ul << 30, chunk = 8 << 20;
	const size_t offs[] = { 0, big / 2 - chunk / 2 + 17, big - chunk };
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	long pin0 = vm_pin_kb();
	struct dp_buf b, lb;
	struct dp_pair p;
	struct ibv_wc wc;
	unsigned int i;

	do_buf_alloc(self->env.pd[1], big, DP_ACCESS_ALL, &b);
	EXPECT_EQ(pin0 + (long)(big >> 10), vm_pin_kb());
	do_buf_alloc(self->env.pd[0], chunk, DP_ACCESS_ALL, &lb);
	dp_pair_open(_metadata, &self->env, &o, &p);
	for (i = 0; i < 3; i++) {
		struct dp_sgl s;
		struct dp_wr w = { .op = IBV_WR_RDMA_WRITE, .wr_id = i,
				   .sgl = &s, .rkey = b.mr->rkey,
				   .raddr = (uintptr_t)b.mem + offs[i] };

		dp_sgl_one(&lb, 0, chunk, &s);
		dp_sgl_fill(&s, 0x1618 + i, 0);
		ASSERT_EQ(0, dp_post(p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		ASSERT_EQ(-1, dp_check(b.mem + offs[i], chunk, 0x1618 + i, 0))
			TH_LOG("WRITE at %zu", offs[i]);
		/* and back: READ what is there into the local buffer */
		memset(lb.mem, 0, chunk);
		w.op = IBV_WR_RDMA_READ;
		ASSERT_EQ(0, dp_post(p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
		ASSERT_EQ(-1, dp_check(lb.mem, chunk, 0x1618 + i, 0))
			TH_LOG("READ at %zu", offs[i]);
	}
	/* untouched between the pieces */
	for (i = 0; i < 1024; i++)
		ASSERT_EQ(0, b.mem[offs[1] - 1 - i * 4096]);
	dp_pair_close(_metadata, &p);
	EXPECT_EQ(0, dp_buf_free(&lb));
	EXPECT_EQ(0, dp_buf_free(&b));
	EXPECT_EQ(pin0, vm_pin_kb());
}

static long get_long(const char *path, const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t k = key ? strlen(key) : 0;

		if (!key) {
			v = atol(line);
			break;
		}
		if (!strncmp(line, key, k) && line[k] == ' ') {
			v = atol(line + k + 1);
			break;
		}
	}
	fclose(f);
	return v;
}

#define NOBJ 4096

/* Fault in @kb KiB of stack. */
static void touch_stack(int kb)
{
	volatile char buf[1024];

	buf[0] = 0;
	if (kb > 1)
		touch_stack(kb - 1);
	buf[1023] = buf[0];
}

enum { K_QP, K_CQ, K_MR, K_PD, NKIND };

/*
 * In the cgroup, with @margin bytes above what this process uses: create
 * QPs until one fails, then CQs, MRs and PDs likewise, then destroy them
 * all. Exit status 0 if every kind ended in ENOMEM and every destroy
 * worked; how many of each kind fitted is printed.
 */
static void __attribute__((noreturn)) memcg_child(long margin)
{
	static void *obj[NKIND][NOBJ];
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	int n[NKIND], err[NKIND], k, bad = 0;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	char *page;

	/* keep what malloc gets: it is charged before the limit is set */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	/*
	 * The OOM killer may not pick this process, so a charge that does
	 * not fit fails; every page it will touch is charged beforehand, so
	 * that only the kernel's allocations meet the limit.
	 */
	if (rnic_put_file("/proc/self/oom_score_adj", "-1000") ||
	    rnic_put_file(CG "/cgroup.procs", "%d", getpid()))
		_exit(100);
	free(memset(malloc(4 << 20), 1, 4 << 20));
	touch_stack(64);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (page == MAP_FAILED || mlockall(MCL_CURRENT | MCL_FUTURE))
		_exit(100);
	ctx = rnic_ibv_open(DEV);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	if (!cq)
		_exit(101);
	if (rnic_put_file(CG "/memory.max", "%ld",
		     get_long(CG "/memory.current", NULL) + margin))
		_exit(102);
	for (k = 0; k < NKIND; k++) {
		for (n[k] = 0, err[k] = 0; n[k] < NOBJ; n[k]++) {
			void **p = &obj[k][n[k]];

			errno = 0;
			switch (k) {
			case K_QP:
				*p = dp_qp_create(pd, cq, cq, &o);
				break;
			case K_CQ:
				*p = ibv_create_cq(ctx, 64, NULL, NULL, 0);
				break;
			case K_MR:
				*p = ibv_reg_mr(pd, page, 4096, 0);
				break;
			default:
				*p = ibv_alloc_pd(ctx);
				break;
			}
			if (!*p) {
				err[k] = errno;
				break;
			}
		}
	}
	ksft_print_msg("margin %3ld KiB: %d QPs, %d CQs, %d MRs, %d PDs "
		       "fitted; errno then %d, %d, %d, %d\n", margin >> 10,
		       n[K_QP], n[K_CQ], n[K_MR], n[K_PD], err[K_QP],
		       err[K_CQ], err[K_MR], err[K_PD]);
	fflush(stdout);
	/* undo it all (with room again) */
	rnic_put_file(CG "/memory.max", "max");
	for (k = 0; k < NKIND; k++)
		while (n[k]--) {
			void *p = obj[k][n[k]];
			int ret = k == K_QP ? ibv_destroy_qp(p) :
				  k == K_CQ ? ibv_destroy_cq(p) :
				  k == K_MR ? ibv_dereg_mr(p) :
				  ibv_dealloc_pd(p);

			bad |= ret != 0;
		}
	bad |= ibv_destroy_cq(cq) || ibv_dealloc_pd(pd) ||
	       ibv_close_device(ctx);
	for (k = 0; k < NKIND; k++)
		bad |= err[k] != ENOMEM;
	_exit(bad);
}

TEST_F_TIMEOUT(lim, kernel_memory_runs_out, 600)
{
	static const long margins[] = { 16 << 10, 48 << 10, 96 << 10,
					160 << 10, 256 << 10, 512 << 10 };
	uint64_t base[RNIC_RES_NR_KINDS];
	int i;

	rnic_sh("umount " CGROOT " 2>/dev/null; rmdir " CGROOT " 2>/dev/null");
	ASSERT_EQ(0, mkdir(CGROOT, 0755));
	ASSERT_EQ(0, mount("none", CGROOT, "cgroup2", 0, NULL))
		TH_LOG("cgroup2: %s", strerror(errno));
	ASSERT_EQ(0, rnic_put_file(CGROOT "/cgroup.subtree_control", "+memory"));
	ASSERT_EQ(0, mkdir(CG, 0755));
	ASSERT_EQ(0, rnic_res_get(self->env.g, DEV, self->env.res));
	memcpy(base, self->env.res->counts, sizeof(base));
	for (i = 0; i < (int)(sizeof(margins) / sizeof(margins[0])); i++) {
		int status;
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0)
			memcg_child(margins[i]);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status))
			TH_LOG("margin %ld: status %d", margins[i],
			       WEXITSTATUS(status));
		EXPECT_TRUE(counts_settle(&self->env, base))
			TH_LOG("margin %ld: objects left", margins[i]);
	}
	EXPECT_EQ(0, rmdir(CG));
	EXPECT_EQ(0, umount(CGROOT));
	EXPECT_EQ(0, rmdir(CGROOT));
}

TEST_HARNESS_MAIN
