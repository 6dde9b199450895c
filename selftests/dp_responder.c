// SPDX-License-Identifier: GPL-2.0
/*
 * What a responder checks of what a sender computed, and what a sender
 * does when the MTU changes under it: a UD datagram longer than the
 * responder's MTU is dropped; a UD send queued while the MTU shrinks
 * fails with LOC_LEN_ERR instead of going out cut in pieces; more
 * atomics than the old history of 4, answered again after their answers
 * were lost, each executed once; a READ or a message longer than IB's
 * 2^31 bytes refused with LOC_LEN_ERR at the requester.
 *
 * The device is bound to a dummy netdev, so that the tests can change its
 * MTU (the active MTU follows it) and take an address (and so a GID) away.
 */
#include "rnic_dp_test.h"

#define DEV "t_dpresp"
#define NETDEV "t_resp0"
/*
 * Two addresses of the dummy, GIDs ::ffff:10.77.0.1 and ::ffff:10.78.0.1;
 * in two subnets, so that removing the first leaves the second.
 */
#define IP1 "10.77.0.1/24"
#define IP2 "10.78.0.1/24"

FIXTURE(resp) {
	struct dp_env env;
	struct dp_pair p;
	struct dp_buf lb, rb;
};

/*
 * Wait up to 5 s for the GID of 10.@net.0.1 to be in the table
 * (@present) or not; its index, or -1.
 */
static int ip_gid_index(struct ibv_context *ctx, uint8_t net, bool present)
{
	const uint8_t gid[16] = {
		[10] = 0xff, [11] = 0xff, 10, net, 0, 1
	};
	long end = dp_now_ms() + 5000;
	int i;

	for (;;) {
		i = dp_find_gid(ctx, gid);
		if ((i >= 0) == present || dp_now_ms() > end)
			return i;
		usleep(10000);
	}
}

FIXTURE_SETUP(resp)
{
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
	ASSERT_EQ(0, rnic_sh("ip link add " NETDEV " type dummy && "
			     "ip link set " NETDEV " mtu 4200 up && "
			     "ip addr add " IP1 " dev " NETDEV " && "
			     "ip addr add " IP2 " dev " NETDEV));
	dp_env_open(_metadata, &self->env, DEV, NETDEV);
	ASSERT_EQ(IBV_MTU_4096, self->env.port.active_mtu);
	do_buf_alloc(self->env.pd[0], 16384, DP_ACCESS_ALL, &self->lb);
	do_buf_alloc(self->env.pd[1], 16384, DP_ACCESS_ALL, &self->rb);
}

FIXTURE_TEARDOWN(resp)
{
	dp_env_close(_metadata, &self->env);
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
}

/* A UD QP's RTS -> RTS modify: it takes the port's active MTU again. */
static int ud_remodify(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .qkey = DP_QKEY };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_QKEY);
}

/*
 * The netdev's MTU shrinks to 1500 (active MTU 1024). The receiving QP,
 * modified since, has the new MTU; the sender, not modified, still the
 * old one (4096) and sends a datagram of 2048 bytes: the receiver drops
 * it, as a port whose MTU it exceeds would never have passed it up. A
 * datagram of 1024 bytes still lands.
 */
TEST_F(resp, ud_longer_than_responder_mtu_dropped)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct dp_sgl ls, rs;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 1, .sgl = &ls, .qkey = DP_QKEY };

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	w.ah = self->p.ah[0];
	w.rqpn = self->p.qp[1]->qp_num;
	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " mtu 1500"));
	ASSERT_EQ(0, ud_remodify(self->p.qp[1]));
	dp_sgl_one(&self->rb, 0, 4096 + DP_GRH, &rs);
	ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 10));

	dp_sgl_one(&self->lb, 0, 2048, &ls);
	dp_sgl_fill(&ls, 0x21, 0);
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_QUIET(self->env.rcq[1]);

	dp_sgl_one(&self->lb, 0, 1024, &ls);
	w.wr_id = 2;
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(self->env.rcq[1], &wc);
	ASSERT_WC(&wc, 10, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(1024 + DP_GRH, wc.byte_len);
	EXPECT_EQ(-1, dp_check(self->rb.mem + DP_GRH, 1024, 0x21, 0));
	dp_pair_close(_metadata, &self->p);
}

/*
 * A UD send of 4096 bytes (the MTU when posted) waits in SQD; the MTU
 * shrinks to 1024 and the QP goes back to RTS. The datagram no longer
 * fits one packet: it fails with LOC_LEN_ERR (the QP in SQE), and
 * nothing, in particular no piece of it, reaches the peer.
 */
TEST_F(resp, ud_mtu_change_never_splits_a_queued_send)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_UD);
	struct dp_sgl ls, rs;
	struct ibv_wc wc;
	struct dp_wr w = { .op = IBV_WR_SEND, .flags = IBV_SEND_SIGNALED,
			   .wr_id = 1, .sgl = &ls, .qkey = DP_QKEY };
	int i;

	dp_pair_open(_metadata, &self->env, &o, &self->p);
	w.ah = self->p.ah[0];
	w.rqpn = self->p.qp[1]->qp_num;
	for (i = 0; i < 4; i++) {
		dp_sgl_one(&self->rb, 4096 * i, 4096, &rs);
		ASSERT_EQ(0, dp_post_recv(self->p.qp[1], &rs, 10 + i));
	}
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_SQD));
	dp_sgl_one(&self->lb, 0, 4096, &ls);
	ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	ASSERT_QUIET_MS(self->env.scq[0], 100);

	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " mtu 1500"));
	ASSERT_EQ(0, dp_qp_modify_state(self->p.qp[0], IBV_QPS_RTS));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 1, IBV_WC_LOC_LEN_ERR, 0);
	EXPECT_EQ(IBV_QPS_SQE, dp_qp_state(self->p.qp[0]));
	ASSERT_QUIET(self->env.rcq[1]);
	dp_pair_close(_metadata, &self->p);
}

/*
 * Sixteen fetch-and-adds (max_rd_atomic and max_dest_rd_atomic 16) whose
 * answers are lost: the responder's path back (the GID of the dummy's
 * first address, while the requester sends to the second's) is gone
 * while they are executed. Once the address is back, the transport timer
 * sends them again, and the responder answers each duplicate from its
 * history with the value it returned the first time: all sixteen
 * complete with the right original values, and the word was added to
 * once per atomic.
 */
TEST_F_TIMEOUT(resp, atomics_replayed_up_to_max_dest_rd_atomic, 60)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
	const uint64_t v0 = 0x1000000000ULL;
	uint64_t *word = (uint64_t *)self->rb.mem;
	uint64_t *orig = (uint64_t *)self->lb.mem;
	uint32_t psn0 = o.psn, psn1 = o.psn ^ 0x5a5a5a;
	union ibv_gid gid1, gid2;
	int i, n, index1, index2;
	struct ibv_wc wc[16];
	struct dp_sgl ls;
	uint64_t sum = 0;

	ASSERT_EQ(16, o.rd_atomic);
	o.timeout = 16;		/* 268 ms */
	o.retry_cnt = 7;
	*word = v0;
	for (i = 0; i < 2; i++) {
		self->p.qp[i] = dp_qp_create(self->env.pd[i],
					     self->env.scq[i],
					     self->env.rcq[i], &o);
		ASSERT_NE(NULL, self->p.qp[i]);
	}
	/* requests from GID 1 to GID 2, answers from GID 2 to GID 1 */
	index1 = ip_gid_index(self->env.ctx[0], 77, true);
	index2 = ip_gid_index(self->env.ctx[0], 78, true);
	ASSERT_LE(0, index1);
	ASSERT_LE(0, index2);
	ASSERT_EQ(0, ibv_query_gid(self->env.ctx[0], 1, index1, &gid1));
	ASSERT_EQ(0, ibv_query_gid(self->env.ctx[0], 1, index2, &gid2));
	ASSERT_EQ(0, dp_qp_connect(self->p.qp[0], &o, self->p.qp[1]->qp_num,
				   &gid2, index1, psn0, psn1, false));
	ASSERT_EQ(0, dp_qp_connect(self->p.qp[1], &o, self->p.qp[0]->qp_num,
				   &gid1, index2, psn1, psn0, false));

	ASSERT_EQ(0, rnic_sh("ip addr del " IP1 " dev " NETDEV));
	ASSERT_GT(0, ip_gid_index(self->env.ctx[0], 77, false));
	ASSERT_LE(0, ip_gid_index(self->env.ctx[0], 78, true));
	for (i = 0; i < 16; i++) {
		struct dp_wr w = { .op = IBV_WR_ATOMIC_FETCH_AND_ADD,
				   .flags = IBV_SEND_SIGNALED, .wr_id = 100 + i,
				   .sgl = &ls, .raddr = (uintptr_t)word,
				   .rkey = self->rb.mr->rkey,
				   .compare_add = i + 1 };

		dp_sgl_one(&self->lb, 8 * i, 8, &ls);
		ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
	}
	/* executed, every answer lost */
	EXPECT_EQ(v0 + 16 * 17 / 2, *(volatile uint64_t *)word);
	ASSERT_QUIET_MS(self->env.scq[0], 50);

	ASSERT_EQ(0, rnic_sh("ip addr add " IP1 " dev " NETDEV));
	n = dp_poll(self->env.scq[0], 16, wc, DP_TIMEOUT_MS);
	ASSERT_LE(1, n) TH_LOG("no completion");
	for (i = 0; i < n; i++) {
		ASSERT_WC(&wc[i], 100 + i, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD);
		EXPECT_EQ(v0 + sum, orig[i]) TH_LOG("atomic %d", i);
		sum += i + 1;
	}
	ASSERT_EQ(16, n);
	EXPECT_EQ(v0 + 16 * 17 / 2, *(volatile uint64_t *)word);
	EXPECT_EQ(IBV_QPS_RTS, dp_qp_state(self->p.qp[0]));
	EXPECT_EQ(IBV_QPS_RTS, dp_qp_state(self->p.qp[1]));
	dp_pair_close(_metadata, &self->p);
}

/*
 * A READ (and a WRITE) whose SGEs add up to more than IB's largest
 * message (2^31 bytes; rnic's max_msg_sz is 2^30): the requester refuses
 * it with LOC_LEN_ERR, the status the IB specification gives a message
 * longer than the port's maximum, and sends nothing. Two SGEs of 2^31
 * bytes each would add up to 0 in 32 bits: the sum is not cut.
 */
TEST_F(resp, read_longer_than_ib_max_refused)
{
	static const uint32_t lens[][2] = {
		{ 0xfffffff0u, 0 },		/* near 2^32 */
		{ 0x80000000u, 0x80000000u },	/* 2^32: 0 in 32 bits */
		{ 0x80000000u, 0 },		/* 2^31 */
	};
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_READ, IBV_WR_RDMA_WRITE,
	};
	unsigned int i, k;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < 3; i++) {
			struct dp_qp_opts o = dp_opts(IBV_QPT_RC);
			struct dp_sgl ls;
			struct ibv_wc wc;
			struct dp_wr w = { .op = ops[k],
					   .flags = IBV_SEND_SIGNALED,
					   .wr_id = 1, .sgl = &ls,
					   .raddr = (uintptr_t)self->rb.mem,
					   .rkey = self->rb.mr->rkey };

			dp_pair_open(_metadata, &self->env, &o, &self->p);
			dp_sgl_one(&self->lb, 0, 8, &ls);
			ls.sge[0].length = lens[i][0];
			ls.n = 1;
			if (lens[i][1]) {
				ls.sge[1] = ls.sge[0];
				ls.sge[1].length = lens[i][1];
				ls.n = 2;
			}
			dp_buf_guard(&self->rb);
			ASSERT_EQ(0, dp_post(self->p.qp[0], &w));
			ASSERT_POLL1(self->env.scq[0], &wc);
			ASSERT_WC(&wc, 1, IBV_WC_LOC_LEN_ERR, 0);
			EXPECT_EQ(IBV_QPS_ERR, dp_qp_state(self->p.qp[0]));
			EXPECT_EQ(IBV_QPS_RTS, dp_qp_state(self->p.qp[1]));
			EXPECT_EQ(-1, dp_check(self->rb.mem, self->rb.size,
					       dp_guard_seed(&self->rb), 0));
			dp_pair_close(_metadata, &self->p);
		}
	}
}

TEST_HARNESS_MAIN
