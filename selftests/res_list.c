// SPDX-License-Identifier: GPL-2.0
/*
 * The object listings of RNIC_NL_CMD_RES_QP_GET and _MR_GET: the test's own
 * QPs and MRs are listed with their numbers, peers, states, PSNs, keys and
 * lengths, and with the test's context and pid; a dump restricted to another
 * device lists none of them; a dump longer than one message buffer resumes
 * where it stopped and lists every object once; and a process in another
 * pid namespace, which does not see the test, lists none of them.
 */
#include <sched.h>
#include <sys/wait.h>

#include "rnic_dp_test.h"

#define DEV		"t_reslist"
#define DEV2		"t_reslist2"
/* MRs of the long dump: several dump skbs' worth of messages */
#define RES_MANY	300

FIXTURE(res_list) {
	struct dp_env env;
	struct dp_pair p;
	struct dp_buf b;
};

FIXTURE_SETUP(res_list)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);

	dp_env_open(_metadata, &self->env, DEV, NULL);
	dp_pair_open(_metadata, &self->env, &o, &self->p);
	do_buf_alloc(self->env.pd[0], 3 * 4096, DP_ACCESS_ALL, &self->b);
}

FIXTURE_TEARDOWN(res_list)
{
	EXPECT_EQ(0, dp_buf_free(&self->b));
	dp_pair_close(_metadata, &self->p);
	dp_env_close(_metadata, &self->env);
}

/* What a dump collected: every object, in order. */
struct res_objs {
	unsigned int n;
	struct rnic_res_obj o[RES_MANY + 16];
};

static int res_collect(const void *obj, void *arg)
{
	struct res_objs *c = arg;

	if (c->n >= sizeof(c->o) / sizeof(c->o[0]))
		return -ENOSPC;
	c->o[c->n++] = *(const struct rnic_res_obj *)obj;
	return 0;
}

static int res_dump(struct rnic_genl *g, uint8_t cmd, const char *dev,
		    struct res_objs *c)
{
	memset(c, 0, sizeof(*c));
	return rnic_genl_dump(g, cmd, dev, rnic_res_obj_parse,
			      sizeof(struct rnic_res_obj), res_collect, c);
}

static const struct rnic_res_obj *res_find_qp(const struct res_objs *c,
					      uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (c->o[i].lqpn == qpn)
			return &c->o[i];
	return NULL;
}

TEST_F(res_list, own_qps_listed)
{
	struct res_objs *c = malloc(sizeof(*c));
	uint32_t psn0 = self->p.o.psn & 0xffffff;
	uint32_t psn1 = (self->p.o.psn ^ 0x5a5a5a) & 0xffffff;
	const struct rnic_res_obj *q;
	int i;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, res_dump(self->env.g, RNIC_NL_CMD_RES_QP_GET, DEV, c));
	ASSERT_EQ(2, c->n);
	for (i = 0; i < 2; i++) {
		q = res_find_qp(c, self->p.qp[i]->qp_num);
		ASSERT_NE(NULL, q) TH_LOG("QP %u not listed",
					  self->p.qp[i]->qp_num);
		EXPECT_STREQ(DEV, q->name);
		EXPECT_EQ(self->p.qp[!i]->qp_num, q->rqpn);
		EXPECT_EQ(IBV_QPT_RC, q->qp_type);
		EXPECT_EQ(IBV_QPS_RTS, q->qp_state);
		EXPECT_EQ(i ? psn1 : psn0, q->sq_psn);
		EXPECT_EQ(i ? psn0 : psn1, q->rq_psn);
		EXPECT_EQ((uint32_t)getpid(), q->pid);
		EXPECT_TRUE(q->attrs & (UINT64_C(1) << RNIC_NL_ATTR_CTX_ID));
	}
	/* a state change shows */
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_ERR));
	ASSERT_EQ(0, res_dump(self->env.g, RNIC_NL_CMD_RES_QP_GET, DEV, c));
	q = res_find_qp(c, self->p.qp[0]->qp_num);
	ASSERT_NE(NULL, q);
	EXPECT_EQ(IBV_QPS_ERR, q->qp_state);
	free(c);
}

TEST_F(res_list, own_mr_listed)
{
	struct res_objs *c = malloc(sizeof(*c));
	unsigned int i, found = 0;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, res_dump(self->env.g, RNIC_NL_CMD_RES_MR_GET, DEV, c));
	for (i = 0; i < c->n; i++) {
		if (c->o[i].lkey != self->b.mr->lkey)
			continue;
		found++;
		EXPECT_EQ(self->b.mr->rkey, c->o[i].rkey);
		EXPECT_EQ(3 * 4096, c->o[i].mrlen);
		EXPECT_EQ((uint32_t)getpid(), c->o[i].pid);
		EXPECT_STREQ(DEV, c->o[i].name);
	}
	EXPECT_EQ(1, found);
	free(c);
}

/* The PD of side 0 is used by its QP and by the MR. */
TEST_F(res_list, own_pd_and_cq_listed)
{
	struct res_objs *c = malloc(sizeof(*c));
	unsigned int i, pds = 0, cqs = 0;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, res_dump(self->env.g, RNIC_NL_CMD_RES_PD_GET, DEV, c));
	EXPECT_EQ(2, c->n);
	for (i = 0; i < c->n; i++) {
		/* handles are per context; side 0's is listed first */
		if (c->o[i].handle != self->env.pd[0]->handle ||
		    c->o[i].ctx != c->o[0].ctx)
			continue;
		pds++;
		EXPECT_EQ(2, c->o[i].users);
	}
	EXPECT_EQ(1, pds);
	ASSERT_EQ(0, res_dump(self->env.g, RNIC_NL_CMD_RES_CQ_GET, DEV, c));
	EXPECT_EQ(4, c->n);
	for (i = 0; i < c->n; i++) {
		if (c->o[i].handle != self->env.scq[0]->handle)
			continue;
		cqs++;
		EXPECT_LE((uint32_t)self->env.scq[0]->cqe, c->o[i].cqe);
		EXPECT_EQ(1, c->o[i].users);
		EXPECT_EQ((uint32_t)getpid(), c->o[i].pid);
	}
	/* the handle is per context: one in each may have it */
	EXPECT_LE(1, cqs);
	free(c);
}

/*
 * Without CAP_NET_ADMIN the MR is listed without its keys, whose random
 * part is its protection; the length is still there.
 */
TEST_F(res_list, mr_keys_for_admin_only)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct res_objs *c = malloc(sizeof(*c));
		struct rnic_genl *g;
		unsigned int i;

		if (!c || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(1);
		g = rnic_genl_open();
		if (!g || res_dump(g, RNIC_NL_CMD_RES_MR_GET, DEV, c) ||
		    !c->n)
			_exit(2);
		for (i = 0; i < c->n; i++)
			if (c->o[i].attrs &
			    ((UINT64_C(1) << RNIC_NL_ATTR_RES_LKEY) |
			     (UINT64_C(1) << RNIC_NL_ATTR_RES_RKEY)) ||
			    !c->o[i].mrlen)
				_exit(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/* A dump of another device, or of none, lists none of the test's QPs. */
TEST_F(res_list, other_device_excluded)
{
	struct res_objs *c = malloc(sizeof(*c));

	ASSERT_NE(NULL, c);
	do_link_add(self->env.g, DEV2, NULL);
	ASSERT_EQ(0, res_dump(self->env.g, RNIC_NL_CMD_RES_QP_GET, DEV2, c));
	EXPECT_EQ(0, c->n);
	ASSERT_EQ(0, res_dump(self->env.g, RNIC_NL_CMD_RES_QP_GET, NULL, c));
	EXPECT_EQ(2, c->n);
	do_link_del(self->env.g, DEV2);
	free(c);
}

/* Hundreds of MRs: the dump spans skbs and lists each exactly once. */
TEST_F(res_list, long_dump_resumes)
{
	struct res_objs *c = malloc(sizeof(*c));
	struct ibv_mr *mr[RES_MANY];
	unsigned int i, j, n;

	ASSERT_NE(NULL, c);
	for (i = 0; i < RES_MANY; i++) {
		mr[i] = ibv_reg_mr(self->env.pd[1], self->b.mem, 4096,
				   IBV_ACCESS_LOCAL_WRITE);
		ASSERT_NE(NULL, mr[i]);
	}
	ASSERT_EQ(0, res_dump(self->env.g, RNIC_NL_CMD_RES_MR_GET, DEV, c));
	ASSERT_EQ(RES_MANY + 1, c->n);
	for (i = 0; i < RES_MANY; i++) {
		for (n = 0, j = 0; j < c->n; j++)
			n += c->o[j].lkey == mr[i]->lkey &&
			     c->o[j].mrlen == 4096;
		EXPECT_EQ(1, n) TH_LOG("MR %u listed %u times", i, n);
	}
	for (i = 0; i < RES_MANY; i++)
		ASSERT_EQ(0, ibv_dereg_mr(mr[i]));
	free(c);
}

/* How many QPs a process in a new pid namespace lists, or -1. */
static int res_count_in_new_pidns(void)
{
	struct res_objs *c;
	struct rnic_genl *g;
	int status, n;
	pid_t pid;

	if (unshare(CLONE_NEWPID))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		c = malloc(sizeof(*c));
		g = rnic_genl_open();
		if (!c || !g || res_dump(g, RNIC_NL_CMD_RES_QP_GET, DEV, c))
			_exit(255);
		n = c->n;
		_exit(n);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(res_list, other_pid_namespace_sees_nothing)
{
	int status;
	pid_t pid;

	/* in a child, so that this process stays in its pid namespace */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(res_count_in_new_pidns());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
