// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection (RNIC_NL_CMD_LINK_SET, RNIC_NL_ATTR_FAULT) on the local
 * link: each fault does exactly what it says, and is counted. Packet
 * faults: dropping every packet ends an RC work request in
 * IBV_WC_RETRY_EXC_ERR after the QP's timeout and retry count, and loses
 * UD datagrams; dropping or damaging a fifth still delivers every byte
 * of an RC stream, in order (go-back-N); sending every packet twice
 * delivers every message, READ and atomic exactly once. Forced errors:
 * exactly N RNR NAKs, remote access NAKs or lost work requests, then
 * success. The settings are checked, set only with CAP_NET_ADMIN, and
 * with faults off no fault counter moves.
 */
#include <sys/wait.h>

#include "rnic_dp_test.h"

#define DEV		"t_fault"
#define MSG		65536		/* one local link burst */
#define NMSG		64		/* 4 MiB in all */
#define SMALL		100
#define UD_N		10
#define PPM_20		200000
#define PPM_ALL		RNIC_FAULT_PPM_MAX

#define BIT_OF(c)	(UINT64_C(1) << (c))

FIXTURE(fault) {
	struct dp_env env;
	struct dp_pair p;
	struct dp_buf lb, rb;
	struct rnic_stat_info *before, *after;
};

FIXTURE_SETUP(fault)
{
	self->before = calloc(1, sizeof(*self->before));
	self->after = calloc(1, sizeof(*self->after));
	ASSERT_NE(NULL, self->before);
	ASSERT_NE(NULL, self->after);
	dp_env_open(_metadata, &self->env, DEV, NULL);
	do_buf_alloc(self->env.pd[0], (size_t)MSG * NMSG, DP_ACCESS_ALL,
		     &self->lb);
	do_buf_alloc(self->env.pd[1], (size_t)MSG * NMSG, DP_ACCESS_ALL,
		     &self->rb);
}

FIXTURE_TEARDOWN(fault)
{
	if (self->p.qp[0])
		dp_pair_close(_metadata, &self->p);
	EXPECT_EQ(0, dp_buf_free(&self->lb));
	EXPECT_EQ(0, dp_buf_free(&self->rb));
	dp_env_close(_metadata, &self->env);
	free(self->before);
	free(self->after);
}

/* Set fault setting @setting of the device to @val; 0 or -errno. */
static int fault_set(FIXTURE_DATA(fault) *self, unsigned int setting,
		     uint32_t val)
{
	struct rnic_link_fault f = { .has = UINT32_C(1) << setting };

	f.val[setting] = val;
	return rnic_link_set_fault(self->env.g, DEV, &f);
}

#define do_fault_set(setting, val)					\
	ASSERT_EQ(0, fault_set(self, setting, val))			\
		TH_LOG("link set: %s", rnic_genl_errmsg(self->env.g))

/* Every setting back to 0. */
static void fault_clear(struct __test_metadata *_metadata,
			FIXTURE_DATA(fault) *self)
{
	struct rnic_link_fault f = { .has = ~UINT32_C(1) };

	f.has &= (UINT32_C(1) << (RNIC_NL_FAULT_MAX + 1)) - 1;
	ASSERT_EQ(0, rnic_link_set_fault(self->env.g, DEV, &f));
}

static void stat_read(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fault) *self, struct rnic_stat_info *info)
{
	ASSERT_EQ(0, rnic_stat_get(self->env.g, DEV, info));
}

/* How much counter @c grew between self->before and self->after. */
#define GREW(c) (self->after->counters[c] - self->before->counters[c])

#define ASSERT_GREW(c, n)						\
	ASSERT_EQ((uint64_t)(n), GREW(c))				\
		TH_LOG("%s grew by %llu", rnic_counter_name(c),		\
		       (unsigned long long)GREW(c))

/* Every counter but those in @mask stayed where it was. */
static void stat_others_still(struct __test_metadata *_metadata,
			      FIXTURE_DATA(fault) *self, uint64_t mask)
{
	unsigned int c;

	for (c = RNIC_NL_COUNTER_UNSPEC + 1; c <= RNIC_NL_COUNTER_MAX; c++)
		if (!(mask & BIT_OF(c)))
			EXPECT_EQ(self->before->counters[c],
				  self->after->counters[c])
				TH_LOG("%s moved", rnic_counter_name(c));
}

/* The fault counters: none moves while faults are off. */
static const unsigned int fault_counters[] = {
	RNIC_NL_COUNTER_DROP_BAD_ICRC, RNIC_NL_COUNTER_FAULT_DROP,
	RNIC_NL_COUNTER_FAULT_DUPLICATE, RNIC_NL_COUNTER_FAULT_CORRUPT,
	RNIC_NL_COUNTER_FAULT_DELAY, RNIC_NL_COUNTER_FAULT_RNR,
	RNIC_NL_COUNTER_FAULT_REM_ACCESS, RNIC_NL_COUNTER_FAULT_RETRY_EXC,
};

static void fault_counters_still(struct __test_metadata *_metadata,
				 FIXTURE_DATA(fault) *self)
{
	unsigned int i;

	for (i = 0; i < sizeof(fault_counters) / sizeof(fault_counters[0]); i++)
		ASSERT_GREW(fault_counters[i], 0);
}

/* A new pair of type @type made with @o (its type is @o's). */
static void pair_new(struct __test_metadata *_metadata,
		     FIXTURE_DATA(fault) *self, const struct dp_qp_opts *o)
{
	if (self->p.qp[0])
		dp_pair_close(_metadata, &self->p);
	dp_pair_open(_metadata, &self->env, o, &self->p);
}

/* Post @n receives of @len bytes each, message i at rb + i * @len. */
static void post_recvs(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fault) *self, int n, size_t len)
{
	struct dp_sgl s;
	int i;

	for (i = 0; i < n; i++) {
		dp_sgl_one(&self->rb, (size_t)i * len, len, &s);
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &s, 1000 + i));
	}
}

/* Post @n SENDs of @len bytes, message i from lb + i * @len, seed i. */
static void post_sends(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fault) *self, int n, size_t len)
{
	struct dp_sgl s;
	int i;

	for (i = 0; i < n; i++) {
		struct dp_wr w = {
			.op = IBV_WR_SEND, .sgl = &s, .wr_id = i,
			.ah = self->p.ah[0], .rqpn = self->p.qp[1]->qp_num,
			.qkey = DP_QKEY,
		};

		dp_sgl_one(&self->lb, (size_t)i * len, len, &s);
		dp_fill(self->lb.mem + (size_t)i * len, len, i, 0);
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	}
}

/*
 * @n SENDs of @len bytes from side 0 arrive at side 1 in order, each
 * byte as sent, and complete in order on both sides; nothing else
 * completes.
 */
static void stream_check(struct __test_metadata *_metadata,
			 FIXTURE_DATA(fault) *self, int n, size_t len)
{
	struct ibv_wc wc;
	long bad;
	int i;

	for (i = 0; i < n; i++) {
		ASSERT_POLL1(self->env.rcq[1], &wc);
		ASSERT_WC(&wc, 1000 + i, IBV_WC_SUCCESS, IBV_WC_RECV);
		ASSERT_EQ(len, wc.byte_len);
		bad = dp_check(self->rb.mem + (size_t)i * len, len, i, 0);
		ASSERT_EQ(-1, bad) TH_LOG("message %d: byte %ld differs", i,
					  bad);
	}
	for (i = 0; i < n; i++) {
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_SEND);
	}
	ASSERT_QUIET_MS(self->env.rcq[1], 50);
	ASSERT_QUIET_MS(self->env.scq[0], 50);
}

/* ---- settings ----------------------------------------------------------- */

TEST_F(fault, new_device_has_none)
{
	struct rnic_link_info info;
	unsigned int i;

	ASSERT_EQ(0, rnic_link_get(self->env.g, DEV, &info));
	ASSERT_TRUE(info.attrs & (UINT64_C(1) << RNIC_NL_ATTR_FAULT));
	ASSERT_EQ((UINT32_C(1) << (RNIC_NL_FAULT_MAX + 1)) - 2,
		  info.fault.has);
	for (i = 1; i <= RNIC_NL_FAULT_MAX; i++)
		EXPECT_EQ(0, info.fault.val[i]) TH_LOG("%s", rnic_fault_name(i));
}

TEST_F(fault, settings_set_and_shown)
{
	struct rnic_link_fault f = { 0 };
	struct rnic_link_info info;
	unsigned int i;

	for (i = 1; i <= RNIC_NL_FAULT_MAX; i++) {
		f.has |= UINT32_C(1) << i;
		f.val[i] = 10 * i;
	}
	f.val[RNIC_NL_FAULT_DROP] = PPM_ALL;
	f.val[RNIC_NL_FAULT_DELAY_US] = RNIC_FAULT_DELAY_US_MAX;
	f.val[RNIC_NL_FAULT_RETRY_EXC] = INT32_MAX;
	ASSERT_EQ(0, rnic_link_set_fault(self->env.g, DEV, &f));
	ASSERT_EQ(0, rnic_link_get(self->env.g, DEV, &info));
	for (i = 1; i <= RNIC_NL_FAULT_MAX; i++)
		EXPECT_EQ(f.val[i], info.fault.val[i])
			TH_LOG("%s", rnic_fault_name(i));

	/* what a set does not hold stays */
	do_fault_set(RNIC_NL_FAULT_CORRUPT, 7);
	ASSERT_EQ(0, rnic_link_get(self->env.g, DEV, &info));
	f.val[RNIC_NL_FAULT_CORRUPT] = 7;
	for (i = 1; i <= RNIC_NL_FAULT_MAX; i++)
		EXPECT_EQ(f.val[i], info.fault.val[i])
			TH_LOG("%s", rnic_fault_name(i));

	fault_clear(_metadata, self);
	ASSERT_EQ(0, rnic_link_get(self->env.g, DEV, &info));
	for (i = 1; i <= RNIC_NL_FAULT_MAX; i++)
		EXPECT_EQ(0, info.fault.val[i]) TH_LOG("%s", rnic_fault_name(i));
}

TEST_F(fault, settings_validated)
{
	static const struct {
		unsigned int setting;
		uint32_t val;
		const char *msg;
	} bad[] = {
		{ RNIC_NL_FAULT_DROP, PPM_ALL + 1,
		  "fault rate above 1000000 ppm (100%)" },
		{ RNIC_NL_FAULT_DUPLICATE, UINT32_MAX,
		  "fault rate above 1000000 ppm (100%)" },
		{ RNIC_NL_FAULT_CORRUPT, PPM_ALL + 1,
		  "fault rate above 1000000 ppm (100%)" },
		{ RNIC_NL_FAULT_DELAY, PPM_ALL + 1,
		  "fault rate above 1000000 ppm (100%)" },
		{ RNIC_NL_FAULT_DELAY_US, RNIC_FAULT_DELAY_US_MAX + 1,
		  "fault delay above 1000000 us (1 s)" },
		{ RNIC_NL_FAULT_RNR, (uint32_t)INT32_MAX + 1,
		  "fault count above 2147483647" },
		{ RNIC_NL_FAULT_REM_ACCESS, UINT32_MAX,
		  "fault count above 2147483647" },
		{ RNIC_NL_FAULT_RETRY_EXC, (uint32_t)INT32_MAX + 1,
		  "fault count above 2147483647" },
	};
	struct rnic_link_fault f = { 0 };
	struct rnic_link_info info;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, fault_set(self, bad[i].setting, bad[i].val))
			TH_LOG("%s %u", rnic_fault_name(bad[i].setting),
			       bad[i].val);
		EXPECT_STREQ(bad[i].msg, rnic_genl_errmsg(self->env.g));
	}
	/* one bad value: nothing of the request is set */
	f.has = UINT32_C(1) << RNIC_NL_FAULT_DROP |
		UINT32_C(1) << RNIC_NL_FAULT_RNR;
	f.val[RNIC_NL_FAULT_DROP] = 5;
	f.val[RNIC_NL_FAULT_RNR] = UINT32_MAX;
	EXPECT_EQ(-EINVAL, rnic_link_set_fault(self->env.g, DEV, &f));
	f.has = 0;
	EXPECT_EQ(-EINVAL, rnic_link_set_fault(self->env.g, DEV, &f));
	EXPECT_STREQ("no fault setting given", rnic_genl_errmsg(self->env.g));
	f.has = UINT32_C(1) << RNIC_NL_FAULT_DROP;
	EXPECT_EQ(-ENODEV, rnic_link_set_fault(self->env.g, "t_nodev", &f));
	EXPECT_STREQ("no such rnic device", rnic_genl_errmsg(self->env.g));

	ASSERT_EQ(0, rnic_link_get(self->env.g, DEV, &info));
	for (i = 1; i <= RNIC_NL_FAULT_MAX; i++)
		EXPECT_EQ(0, info.fault.val[i]) TH_LOG("%s", rnic_fault_name(i));
}

TEST_F(fault, unprivileged_set)
{
	struct rnic_link_info info;
	pid_t pid;
	int status;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rnic_link_fault f = {
			.has = UINT32_C(1) << RNIC_NL_FAULT_DROP,
			.val[RNIC_NL_FAULT_DROP] = PPM_ALL,
		};
		struct rnic_genl *g;
		int ret = 0;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		g = rnic_genl_open();
		if (!g)
			_exit(11);
		if (rnic_link_set_fault(g, DEV, &f) != -EPERM)
			ret |= 1;
		/* reading the settings needs nothing */
		if (rnic_link_get(g, DEV, &info) ||
		    !(info.fault.has & f.has))
			ret |= 2;
		rnic_genl_close(g);
		_exit(ret);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, rnic_link_get(self->env.g, DEV, &info));
	EXPECT_EQ(0, info.fault.val[RNIC_NL_FAULT_DROP]);
}

/* ---- packet faults ------------------------------------------------------ */

/*
 * Every packet dropped: the RC SEND is sent retry_cnt + 1 times, one
 * local ACK timeout apart, then fails with IBV_WC_RETRY_EXC_ERR.
 */
TEST_F(fault, drop_all_rc_retry_exceeded)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct ibv_wc wc;
	long t0, ms, want;

	o.timeout = 14;		/* 4.096 us << 14: 67 ms */
	o.retry_cnt = 2;
	want = (long)(o.retry_cnt + 1) * 4096L * (1L << o.timeout) / 1000000;
	pair_new(_metadata, self, &o);
	post_recvs(_metadata, self, 1, SMALL);
	do_fault_set(RNIC_NL_FAULT_DROP, PPM_ALL);
	stat_read(_metadata, self, self->before);
	t0 = dp_now_ms();
	post_sends(_metadata, self, 1, SMALL);
	ASSERT_POLL1(self->env.scq[0], &wc);
	ms = dp_now_ms() - t0;
	ASSERT_WC(&wc, 0, IBV_WC_RETRY_EXC_ERR, IBV_WC_SEND);
	stat_read(_metadata, self, self->after);
	EXPECT_LE(want * 9 / 10, ms) TH_LOG("failed after %ld ms", ms);
	EXPECT_GE(want * 3, ms) TH_LOG("failed after %ld ms", ms);
	ASSERT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));
	ASSERT_QUIET_MS(self->env.rcq[1], 50);
	ASSERT_GREW(RNIC_NL_COUNTER_SENT_PKTS, o.retry_cnt + 1);
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_DROP, o.retry_cnt + 1);
	ASSERT_GREW(RNIC_NL_COUNTER_COMPLETER_RETRY_ERR, o.retry_cnt);
	ASSERT_GREW(RNIC_NL_COUNTER_RETRY_EXCEEDED_ERR, 1);
	stat_others_still(_metadata, self,
			  BIT_OF(RNIC_NL_COUNTER_SENT_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_FAULT_DROP) |
			  BIT_OF(RNIC_NL_COUNTER_COMPLETER_RETRY_ERR) |
			  BIT_OF(RNIC_NL_COUNTER_RETRY_EXCEEDED_ERR));
}

/* Every datagram dropped: the sends complete, nothing arrives. */
TEST_F(fault, drop_all_ud_lost)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct ibv_wc wc;
	int i;

	pair_new(_metadata, self, &o);
	post_recvs(_metadata, self, UD_N, SMALL + DP_GRH);
	do_fault_set(RNIC_NL_FAULT_DROP, PPM_ALL);
	stat_read(_metadata, self, self->before);
	post_sends(_metadata, self, UD_N, SMALL);
	for (i = 0; i < UD_N; i++) {
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_SEND);
	}
	ASSERT_QUIET(self->env.rcq[1]);
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_SENT_PKTS, UD_N);
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_DROP, UD_N);
	stat_others_still(_metadata, self,
			  BIT_OF(RNIC_NL_COUNTER_SENT_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_FAULT_DROP));
}

/*
 * An RC stream of 4 MiB with a fifth of the packets (@setting: dropped,
 * or damaged and dropped by the receiver) arrives whole and in order;
 * what was received is what was sent, less what the fault took.
 */
static void lossy_stream(struct __test_metadata *_metadata,
			 FIXTURE_DATA(fault) *self, unsigned int setting,
			 unsigned int lost_counter)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	uint64_t sent, lost;

	o.timeout = 10;		/* 4 ms: a lost tail is resent soon */
	pair_new(_metadata, self, &o);
	post_recvs(_metadata, self, NMSG, MSG);
	do_fault_set(setting, PPM_20);
	stat_read(_metadata, self, self->before);
	post_sends(_metadata, self, NMSG, MSG);
	stream_check(_metadata, self, NMSG, MSG);
	stat_read(_metadata, self, self->after);
	sent = GREW(RNIC_NL_COUNTER_SENT_PKTS);
	lost = GREW(lost_counter);
	TH_LOG("%llu packets sent, %llu lost, %llu retries",
	       (unsigned long long)sent, (unsigned long long)lost,
	       (unsigned long long)GREW(RNIC_NL_COUNTER_COMPLETER_RETRY_ERR));
	ASSERT_LT(0, lost);
	ASSERT_LT(lost, sent);
	/* sender and receiver are one device */
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_PKTS, sent - lost);
	ASSERT_GREW(RNIC_NL_COUNTER_RETRY_EXCEEDED_ERR, 0);
}

TEST_F(fault, drop_some_rc_delivers_all)
{
	lossy_stream(_metadata, self, RNIC_NL_FAULT_DROP,
		     RNIC_NL_COUNTER_FAULT_DROP);
	ASSERT_GREW(RNIC_NL_COUNTER_DROP_BAD_ICRC, 0);
}

TEST_F(fault, corrupt_some_rc_recovered)
{
	lossy_stream(_metadata, self, RNIC_NL_FAULT_CORRUPT,
		     RNIC_NL_COUNTER_DROP_BAD_ICRC);
	/* each damaged packet was dropped by the receiver, as a bad ICRC */
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_CORRUPT,
		    GREW(RNIC_NL_COUNTER_DROP_BAD_ICRC));
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_DROP, 0);
}

/* Every datagram damaged: the receiving device drops each, counted. */
TEST_F(fault, corrupt_all_ud_dropped)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct ibv_wc wc;
	int i;

	pair_new(_metadata, self, &o);
	post_recvs(_metadata, self, UD_N, SMALL + DP_GRH);
	do_fault_set(RNIC_NL_FAULT_CORRUPT, PPM_ALL);
	stat_read(_metadata, self, self->before);
	post_sends(_metadata, self, UD_N, SMALL);
	for (i = 0; i < UD_N; i++) {
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_SEND);
	}
	ASSERT_QUIET(self->env.rcq[1]);
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_SENT_PKTS, UD_N);
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_CORRUPT, UD_N);
	ASSERT_GREW(RNIC_NL_COUNTER_DROP_BAD_ICRC, UD_N);
	stat_others_still(_metadata, self,
			  BIT_OF(RNIC_NL_COUNTER_SENT_PKTS) |
			  BIT_OF(RNIC_NL_COUNTER_FAULT_CORRUPT) |
			  BIT_OF(RNIC_NL_COUNTER_DROP_BAD_ICRC));
}

/*
 * Every multicast datagram damaged: dropped once per datagram on the
 * device (the group's), counted; undamaged, the same datagram arrives.
 */
TEST_F(fault, corrupt_all_ud_multicast_dropped)
{
	union ibv_gid mgid = { .raw = { 0xff, 0x0e, [15] = 1 } };
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct dp_sgl s;
	struct dp_wr w = {
		.op = IBV_WR_SEND, .sgl = &s, .rqpn = 0xffffff,
		.qkey = DP_QKEY,
	};
	int i;

	pair_new(_metadata, self, &o);
	ASSERT_EQ(0, ibv_attach_mcast(self->p.qp[1], &mgid, 0));
	ah = dp_ah(self->env.pd[0], &mgid, self->env.gid_index);
	ASSERT_NE(NULL, ah);
	w.ah = ah;
	dp_sgl_one(&self->lb, 0, SMALL, &s);
	dp_fill(self->lb.mem, SMALL, 3, 0);
	post_recvs(_metadata, self, UD_N + 1, SMALL + DP_GRH);
	do_fault_set(RNIC_NL_FAULT_CORRUPT, PPM_ALL);
	stat_read(_metadata, self, self->before);
	for (i = 0; i < UD_N; i++) {
		w.wr_id = i;
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_SEND);
	}
	ASSERT_QUIET(self->env.rcq[1]);
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_CORRUPT, UD_N);
	ASSERT_GREW(RNIC_NL_COUNTER_DROP_BAD_ICRC, UD_N);
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_PKTS, 0);

	do_fault_set(RNIC_NL_FAULT_CORRUPT, 0);
	w.wr_id = UD_N;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 1000, IBV_WC_SUCCESS, IBV_WC_RECV);
	ASSERT_EQ(-1, dp_check(self->rb.mem + DP_GRH, SMALL, 3, 0));
	ASSERT_EQ(0, ibv_detach_mcast(self->p.qp[1], &mgid, 0));
	ASSERT_EQ(0, ibv_destroy_ah(ah));
}

/*
 * Every packet sent twice: each SEND, WRITE, READ and atomic takes
 * effect exactly once (the atomic's word says so), each duplicate
 * request is counted by the responder, and each packet arrives twice.
 */
TEST_F(fault, duplicate_all_rc_exactly_once)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	uint64_t *word = (uint64_t *)(self->rb.mem + MSG);
	uint64_t *orig = (uint64_t *)(self->lb.mem + 2 * MSG);
	struct dp_sgl ws, rs, as;
	struct ibv_wc wc;
	int i;

	pair_new(_metadata, self, &o);
	post_recvs(_metadata, self, 2 * NMSG / 8, SMALL);
	do_fault_set(RNIC_NL_FAULT_DUPLICATE, PPM_ALL);
	stat_read(_metadata, self, self->before);
	post_sends(_metadata, self, NMSG / 8, SMALL);
	stream_check(_metadata, self, NMSG / 8, SMALL);

	/* WRITE 4 KiB to rb + 2 MSG, READ it back to lb + 3 MSG */
	dp_fill(self->lb.mem + MSG, 4096, 77, 0);
	dp_sgl_one(&self->lb, MSG, 4096, &ws);
	dp_sgl_one(&self->lb, 3 * MSG, 4096, &rs);
	dp_sgl_one(&self->lb, 2 * MSG, 8, &as);
	*word = 40;
	{
		struct dp_wr w[] = {
			{ .op = IBV_WR_RDMA_WRITE, .sgl = &ws, .wr_id = 100,
			  .raddr = (uintptr_t)self->rb.mem + 2 * MSG,
			  .rkey = self->rb.mr->rkey },
			{ .op = IBV_WR_RDMA_READ, .sgl = &rs, .wr_id = 101,
			  .raddr = (uintptr_t)self->rb.mem + 2 * MSG,
			  .rkey = self->rb.mr->rkey },
			{ .op = IBV_WR_ATOMIC_FETCH_AND_ADD, .sgl = &as,
			  .wr_id = 102, .raddr = (uintptr_t)word,
			  .rkey = self->rb.mr->rkey, .compare_add = 2 },
		};
		static const int op[] = {
			IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_FETCH_ADD
		};

		for (i = 0; i < 3; i++)
			ASSERT_EQ(0, dp_post(self->p.qp[0], &w[i]));
		for (i = 0; i < 3; i++) {
			ASSERT_POLL1(self->env.scq[0], &wc);
			ASSERT_WC(&wc, 100 + i, IBV_WC_SUCCESS, op[i]);
		}
	}
	ASSERT_EQ(-1, dp_check(self->rb.mem + 2 * MSG, 4096, 77, 0));
	ASSERT_EQ(-1, dp_check(self->lb.mem + 3 * MSG, 4096, 77, 0));
	ASSERT_EQ(42, *word);
	ASSERT_EQ(40, *orig);
	ASSERT_QUIET_MS(self->env.rcq[1], 50);
	ASSERT_QUIET_MS(self->env.scq[0], 50);

	stat_read(_metadata, self, self->after);
	/* NMSG / 8 SENDs, a WRITE, a READ, an atomic: one packet each */
	ASSERT_GREW(RNIC_NL_COUNTER_DUPLICATE_REQUEST, NMSG / 8 + 3);
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_DUPLICATE,
		    GREW(RNIC_NL_COUNTER_SENT_PKTS));
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_PKTS,
		    2 * GREW(RNIC_NL_COUNTER_SENT_PKTS));
	ASSERT_GREW(RNIC_NL_COUNTER_COMPLETER_RETRY_ERR, 0);
}

/*
 * A delay needs a link that can hold a packet: the local link cannot, so
 * the setting is kept and shown, but nothing is delayed or counted.
 */
TEST_F(fault, delay_not_on_local_link)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct rnic_link_info info;

	pair_new(_metadata, self, &o);
	post_recvs(_metadata, self, 4, SMALL);
	do_fault_set(RNIC_NL_FAULT_DELAY, PPM_ALL);
	do_fault_set(RNIC_NL_FAULT_DELAY_US, 500000);
	ASSERT_EQ(0, rnic_link_get(self->env.g, DEV, &info));
	ASSERT_EQ(PPM_ALL, info.fault.val[RNIC_NL_FAULT_DELAY]);
	ASSERT_EQ(500000, info.fault.val[RNIC_NL_FAULT_DELAY_US]);
	stat_read(_metadata, self, self->before);
	post_sends(_metadata, self, 4, SMALL);
	stream_check(_metadata, self, 4, SMALL);
	stat_read(_metadata, self, self->after);
	fault_counters_still(_metadata, self);
}

/* ---- forced errors ------------------------------------------------------ */

/* One signalled SEND of SMALL bytes on a new RC pair made with @o. */
static void rc_send_one(struct __test_metadata *_metadata,
			FIXTURE_DATA(fault) *self,
			const struct dp_qp_opts *o, enum ibv_wc_status want)
{
	struct ibv_wc wc;

	pair_new(_metadata, self, o);
	post_recvs(_metadata, self, 1, SMALL);
	post_sends(_metadata, self, 1, SMALL);
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0, want, IBV_WC_SEND);
	if (want == IBV_WC_SUCCESS) {
		ASSERT_POLL1(self->env.rcq[1], &wc);
		ASSERT_WC(&wc, 1000, IBV_WC_SUCCESS, IBV_WC_RECV);
		ASSERT_EQ(-1, dp_check(self->rb.mem, SMALL, 0, 0));
	} else {
		ASSERT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));
		ASSERT_QUIET_MS(self->env.rcq[1], 50);
	}
}

/* What is left of fault count @setting. */
static uint32_t fault_left(FIXTURE_DATA(fault) *self, unsigned int setting)
{
	struct rnic_link_info info;

	if (rnic_link_get(self->env.g, DEV, &info))
		return UINT32_MAX;
	return info.fault.val[setting];
}

/* rnr 2 with rnr_retry 0: two SENDs fail, on two QPs; the third works. */
TEST_F(fault, rnr_n_then_success)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);

	o.rnr_retry = 0;
	do_fault_set(RNIC_NL_FAULT_RNR, 2);
	stat_read(_metadata, self, self->before);
	rc_send_one(_metadata, self, &o, IBV_WC_RNR_RETRY_EXC_ERR);
	ASSERT_EQ(1, fault_left(self, RNIC_NL_FAULT_RNR));
	rc_send_one(_metadata, self, &o, IBV_WC_RNR_RETRY_EXC_ERR);
	ASSERT_EQ(0, fault_left(self, RNIC_NL_FAULT_RNR));
	rc_send_one(_metadata, self, &o, IBV_WC_SUCCESS);
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_RNR, 2);
	ASSERT_GREW(RNIC_NL_COUNTER_SEND_RNR_ERR, 2);
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_RNR_ERR, 2);
	ASSERT_GREW(RNIC_NL_COUNTER_RETRY_RNR_EXCEEDED_ERR, 2);
}

/* rnr 3 with RNR retries left: the SEND is NAKed 3 times, then lands. */
TEST_F(fault, rnr_retried)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);

	o.rnr_retry = 6;
	do_fault_set(RNIC_NL_FAULT_RNR, 3);
	stat_read(_metadata, self, self->before);
	rc_send_one(_metadata, self, &o, IBV_WC_SUCCESS);
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_RNR, 3);
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_RNR_ERR, 3);
	ASSERT_GREW(RNIC_NL_COUNTER_RETRY_RNR_EXCEEDED_ERR, 0);
}

/*
 * rem_access 2: SENDs pass; a WRITE and then (on a new QP) a READ fail
 * with IBV_WC_REM_ACCESS_ERR; on a third QP an atomic and a WRITE work.
 */
TEST_F(fault, rem_access_n_then_success)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	uint64_t *word = (uint64_t *)(self->rb.mem + MSG);
	struct dp_sgl s, as;
	struct ibv_wc wc;
	struct dp_wr w = {
		.sgl = &s, .raddr = (uintptr_t)self->rb.mem + 2 * MSG,
		.rkey = self->rb.mr->rkey,
	};
	struct dp_wr a = {
		.op = IBV_WR_ATOMIC_FETCH_AND_ADD, .sgl = &as, .wr_id = 7,
		.raddr = (uintptr_t)word, .rkey = self->rb.mr->rkey,
		.compare_add = 1,
	};

	dp_sgl_one(&self->lb, MSG, SMALL, &s);
	dp_sgl_one(&self->lb, 2 * MSG, 8, &as);
	dp_fill(self->lb.mem + MSG, SMALL, 5, 0);
	do_fault_set(RNIC_NL_FAULT_REM_ACCESS, 2);
	stat_read(_metadata, self, self->before);

	rc_send_one(_metadata, self, &o, IBV_WC_SUCCESS);
	ASSERT_EQ(2, fault_left(self, RNIC_NL_FAULT_REM_ACCESS));
	w.op = IBV_WR_RDMA_WRITE;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0, IBV_WC_REM_ACCESS_ERR, 0);
	ASSERT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));

	pair_new(_metadata, self, &o);
	w.op = IBV_WR_RDMA_READ;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0, IBV_WC_REM_ACCESS_ERR, 0);
	ASSERT_EQ(0, fault_left(self, RNIC_NL_FAULT_REM_ACCESS));

	pair_new(_metadata, self, &o);
	*word = 9;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &a));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 7, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD);
	ASSERT_EQ(10, *word);
	w.op = IBV_WR_RDMA_WRITE;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	ASSERT_EQ(-1, dp_check(self->rb.mem + 2 * MSG, SMALL, 5, 0));

	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_REM_ACCESS, 2);
}

/*
 * retry_exc 1: the first SEND's packets are all dropped, and it fails
 * with IBV_WC_RETRY_EXC_ERR once the QP's retries are used up; the SEND
 * on the next QP works.
 */
TEST_F(fault, retry_exc_n_then_success)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	long t0, ms, want;

	o.timeout = 12;		/* 4.096 us << 12: 17 ms */
	o.retry_cnt = 3;
	want = (long)(o.retry_cnt + 1) * 4096L * (1L << o.timeout) / 1000000;
	do_fault_set(RNIC_NL_FAULT_RETRY_EXC, 1);
	stat_read(_metadata, self, self->before);
	t0 = dp_now_ms();
	rc_send_one(_metadata, self, &o, IBV_WC_RETRY_EXC_ERR);
	ms = dp_now_ms() - t0;
	EXPECT_LE(want * 9 / 10, ms) TH_LOG("failed after %ld ms", ms);
	ASSERT_EQ(0, fault_left(self, RNIC_NL_FAULT_RETRY_EXC));
	rc_send_one(_metadata, self, &o, IBV_WC_SUCCESS);
	stat_read(_metadata, self, self->after);
	ASSERT_GREW(RNIC_NL_COUNTER_FAULT_RETRY_EXC, 1);
	ASSERT_GREW(RNIC_NL_COUNTER_RETRY_EXCEEDED_ERR, 1);
	ASSERT_GREW(RNIC_NL_COUNTER_COMPLETER_RETRY_ERR, o.retry_cnt);
	/* the lost SEND never reached the link; the good one and its ACK */
	ASSERT_GREW(RNIC_NL_COUNTER_SENT_PKTS, 2);
}

/* Faults set and cleared again: traffic moves no fault counter. */
TEST_F(fault, off_counters_still)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	struct rnic_link_fault f = { 0 };
	unsigned int i;

	for (i = 1; i <= RNIC_NL_FAULT_MAX; i++) {
		f.has |= UINT32_C(1) << i;
		f.val[i] = 1000;
	}
	ASSERT_EQ(0, rnic_link_set_fault(self->env.g, DEV, &f));
	fault_clear(_metadata, self);
	pair_new(_metadata, self, &o);
	post_recvs(_metadata, self, NMSG / 4, MSG);
	stat_read(_metadata, self, self->before);
	post_sends(_metadata, self, NMSG / 4, MSG);
	stream_check(_metadata, self, NMSG / 4, MSG);
	stat_read(_metadata, self, self->after);
	fault_counters_still(_metadata, self);
	ASSERT_GREW(RNIC_NL_COUNTER_RCVD_PKTS,
		    GREW(RNIC_NL_COUNTER_SENT_PKTS));
}

TEST_HARNESS_MAIN
