// SPDX-License-Identifier: GPL-2.0
/*
 * wire_fuzz: mutated RoCEv2 packets from a raw socket (rnic_wire.h) at
 * the QPs of host 0 while real traffic between host 0 and host 1 runs
 * and is checked.
 *
 * Host 0 has two QPs of each type (RC, UC, UD):
 *  - a live one, connected to host 1's (RC, UC), carrying real traffic;
 *    the fuzzer's packets to it come from an address that is not its
 *    peer's (RC, UC) or carry another Q_Key (UD), so the rules say it
 *    drops them all: its traffic must stay intact, byte for byte;
 *  - a target one, connected to an address of host 1 that no QP uses
 *    (the fuzzer's source), whose packets it takes as its peer's: they
 *    execute (SENDs, WRITEs and atomics into the target MR, READs,
 *    responses out of nowhere) and may legitimately take it to the error
 *    state.
 * Every packet starts valid (an opcode of the destination's type, fields
 * aimed at the target MR and near the PSNs in use) and gets 0 to 3
 * mutations: bit flips, bytes and words overwritten, words swapped, cut
 * or extended; then, most of the time, the IP and UDP lengths and the
 * ICRC are made right again so that the parser's deeper checks and the
 * transport see it.
 *
 * Pass: every packet sent, no kernel warning (tools/dev/vm/run), the live
 * traffic's data intact and its QPs in RTS, no byte written outside the
 * target MR (guard bytes around it), the drop counters show the packets
 * reached each stage, and no object left when the contexts are closed.
 *
 * Environment: RNIC_WIRE_FUZZ_PKTS, packets of the run, half with IPv4
 * and half with IPv6 addresses (default WF_DEFAULT_PKTS, the short pass
 * make check runs; make fuzz MODE=wire PKTS=N), RNIC_WIRE_FUZZ_SEED.
 * Packet i is a function of (seed, i) only.
 */
#include <stdatomic.h>

#include "rnic_wire.h"

#define WF_DEFAULT_PKTS		20000
#define WF_DEFAULT_SEED		0x3f17
/* host 1's addresses: the target QPs' peer, and a stranger */
#define WF_PEER4		"10.79.0.3"
#define WF_STRANGER4		"10.79.0.4"
#define WF_PEER6		"fd79::3"
#define WF_STRANGER6		"fd79::4"
/* The QP number the target QPs are connected to; host 1 has none such. */
#define WF_PEER_QPN		0xfffff0
/* The target MR, with as many guard bytes before and after it. */
#define WF_TBUF			(64 * 1024)
/* PSNs the target QPs start at and most packets carry. */
#define WF_PSN_SPAN		256
/* Bytes of the live messages. */
#define WF_LIVE_LEN		2000
/* Packets between two looks at the clock for the rate. */
#define WF_BATCH		64

enum { WF_RC, WF_UC, WF_UD, WF_NTYPES };

static const enum ibv_qp_type wf_type[WF_NTYPES] = {
	IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
};

/**
 * struct wf_inject - what the injector thread needs, and its result
 * @tx: the raw socket
 * @peer: addresses of the target QPs' peer (source) to host 0
 * @stranger: addresses of a source no QP is connected to
 * @real_peer: host 1's GID (the live QPs' peer), which the fuzzer's
 *	packets to a live RC or UC QP must never carry
 * @live_qpn, @target_qpn: host 0's QPs
 * @tva, @trkey: the target MR
 * @pkts: packets to send
 * @seed: the run's seed
 * @sent: packets sent so far
 * @err: the errno of a failed send, or 0
 * @done: the injector has finished
 */
struct wf_inject {
	struct rw_tx *tx;
	struct rw_addr peer;
	struct rw_addr stranger;
	uint8_t real_peer[16];
	uint32_t live_qpn[WF_NTYPES];
	uint32_t target_qpn[WF_NTYPES];
	uint64_t tva;
	uint32_t trkey;
	uint64_t pkts;
	uint32_t seed;
	_Atomic uint64_t sent;
	_Atomic int err;
	_Atomic bool done;
};

FIXTURE(wire_fuzz) {
	struct wire_hosts h;
	struct ibv_qp *live[WF_NTYPES][2];
	struct ibv_qp *target[WF_NTYPES];
	struct ibv_ah *ah;
	uint8_t *tmem;
	struct ibv_mr *tmr;
	struct wf_inject inj;
};

FIXTURE_VARIANT(wire_fuzz) {
	bool ipv6;
};

FIXTURE_VARIANT_ADD(wire_fuzz, v4) { .ipv6 = false };
FIXTURE_VARIANT_ADD(wire_fuzz, v6) { .ipv6 = true };

/* ---- the packets ---------------------------------------------------- */

static inline uint32_t wf_rand(uint64_t *st, uint32_t n)
{
	return n ? dp_rand(st) % n : 0;
}

/* The opcodes of each type's requests and (RC) responses. */
static uint8_t wf_opcode(uint64_t *st, int t)
{
	if (!wf_rand(st, 16))
		return dp_rand(st);
	switch (t) {
	case WF_RC:
		return RW_RC | wf_rand(st, RW_NOPERS);
	case WF_UC:
		return RW_UC | wf_rand(st, RW_WRITE_ONLY_IMM + 1);
	default:
		return RW_UD | (wf_rand(st, 2) ? RW_SEND_ONLY :
					   RW_SEND_ONLY_IMM);
	}
}

static uint32_t wf_len(uint64_t *st)
{
	static const uint32_t len[] = {
		0, 1, 3, 4, 8, 1023, 1024, 1025, 4096, 4097,
	};

	return wf_rand(st, 3) ? wf_rand(st, 1100) :
				len[wf_rand(st, ARRAY_SIZE(len))];
}

/*
 * A valid packet: to a target QP (from its peer), to a live QP (from the
 * stranger), to a QP number nobody has, or to QP 1.
 */
static void wf_template(const struct wf_inject *in, uint64_t *st,
			struct rw_frame *f)
{
	static uint8_t junk[4200];
	const struct rw_addr *a = &in->peer;
	struct rw_pkt p = {};
	uint32_t where = wf_rand(st, 8);
	int t = wf_rand(st, WF_NTYPES);
	uint32_t i;

	if (!junk[1])
		for (i = 0; i < sizeof(junk); i++)
			junk[i] = dp_pat(0x1234, i) | 1;
	if (where < 4) {
		p.dqpn = in->target_qpn[t];
	} else if (where < 6) {
		p.dqpn = in->live_qpn[t];
		a = &in->stranger;
	} else if (where < 7) {
		p.dqpn = dp_rand(st);
	} else {
		p.dqpn = 1;
	}
	p.opcode = wf_opcode(st, t);
	p.se = wf_rand(st, 2);
	p.ack_req = wf_rand(st, 2);
	p.psn = wf_rand(st, 2) ? wf_rand(st, WF_PSN_SPAN) : dp_rand(st);
	p.qkey = wf_rand(st, 4) ? DP_QKEY : dp_rand(st);
	p.sqpn = wf_rand(st, 2) ? WF_PEER_QPN : dp_rand(st);
	p.va = wf_rand(st, 4) ? in->tva + wf_rand(st, WF_TBUF + 512) - 256 :
				((uint64_t)dp_rand(st) << 32 | dp_rand(st));
	p.rkey = wf_rand(st, 8) ? in->trkey : in->trkey ^ (1u << wf_rand(st, 32));
	p.len = wf_len(st);
	p.dma_len = wf_rand(st, 3) ? p.len : wf_len(st) * wf_rand(st, 70);
	p.swap_add = (uint64_t)dp_rand(st) << 32 | dp_rand(st);
	p.compare = wf_rand(st, 2) ? 0 : p.swap_add;
	p.aeth = dp_rand(st);
	p.imm = dp_rand(st);
	p.payload = junk;
	if (!wf_rand(st, 10)) {
		p.pad_lie = true;
		p.pad = wf_rand(st, 4);
	}
	p.sport = 0xc000 | wf_rand(st, 0x4000);
	if (rw_build(f, a, &p))
		rw_build(f, a, &(struct rw_pkt){ .opcode = p.opcode,
						 .dqpn = p.dqpn });
}

/* 0 to 3 mutations of the frame's bytes after the Ethernet header. */
static void wf_mutate(uint64_t *st, struct rw_frame *f)
{
	static const uint32_t word[] = {
		0, 0xffffffff, 0x80000000, 0x7fffffff, 0x00ffffff, 1,
	};
	uint32_t n = wf_rand(st, 4), body, off, off2, v;
	uint8_t tmp[4];

	while (n--) {
		body = f->len - RW_ETH_LEN;
		off = RW_ETH_LEN + wf_rand(st, body);
		switch (wf_rand(st, 7)) {
		case 0:		/* a bit anywhere */
		case 1:
			f->buf[off] ^= 1 << wf_rand(st, 8);
			break;
		case 2:		/* a byte of the transport headers */
			off = f->bth + wf_rand(st, RW_BTH_LEN + 28);
			if (off < f->len)
				f->buf[off] = dp_rand(st);
			break;
		case 3:		/* a word */
			v = word[wf_rand(st, ARRAY_SIZE(word))];
			if (off + 4 <= f->len)
				rw_put32(f->buf + off, v);
			break;
		case 4:		/* two words swapped */
			off2 = RW_ETH_LEN + wf_rand(st, body);
			if (off + 4 <= f->len && off2 + 4 <= f->len) {
				memcpy(tmp, f->buf + off, 4);
				memcpy(f->buf + off, f->buf + off2, 4);
				memcpy(f->buf + off2, tmp, 4);
			}
			break;
		case 5:		/* cut */
			f->len = RW_ETH_LEN + 1 + wf_rand(st, body);
			break;
		default:	/* grown */
			v = 1 + wf_rand(st, 64);
			if (f->len + v <= RW_FRAME_MAX) {
				memset(f->buf + f->len, dp_rand(st), v);
				f->len += v;
			}
			break;
		}
	}
}

/*
 * Keep the live QPs' traffic out of reach: a packet for a live RC or UC
 * QP never comes from its peer, one for the live UD QP never has its
 * Q_Key. Looked at where the template put the fields.
 */
static void wf_spare_live(const struct wf_inject *in, struct rw_frame *f)
{
	uint8_t *src = f->buf + f->ip + (f->ipv6 ? 8 : 12);
	uint8_t *bth = f->buf + f->bth;
	uint32_t dqpn;

	if (f->bth + RW_BTH_LEN + RW_DETH_LEN > f->len)
		return;
	dqpn = (uint32_t)bth[5] << 16 | bth[6] << 8 | bth[7];
	if (dqpn == in->live_qpn[WF_RC] || dqpn == in->live_qpn[WF_UC]) {
		if (f->ipv6 ? !memcmp(src, in->real_peer, 16) :
			      !memcmp(src, in->real_peer + 12, 4))
			src[f->ipv6 ? 15 : 3] ^= 0x80;
	}
	if (dqpn == in->live_qpn[WF_UD] && (bth[0] & 0xe0) == RW_UD &&
	    bth[12] == (uint8_t)(DP_QKEY >> 24) &&
	    bth[13] == (uint8_t)(DP_QKEY >> 16) &&
	    bth[14] == (uint8_t)(DP_QKEY >> 8) &&
	    bth[15] == (uint8_t)DP_QKEY)
		bth[15] ^= 1;
}

/* Packet @i of the run: template, mutations, lengths and ICRC fixed. */
static void wf_packet(const struct wf_inject *in, uint64_t i,
		      struct rw_frame *f)
{
	uint64_t st = dp_mix((uint64_t)in->seed << 40 ^ i) | 1;

	wf_template(in, &st, f);
	wf_mutate(&st, f);
	wf_spare_live(in, f);
	if (wf_rand(&st, 4) && f->len >= f->udp + RW_UDP_LEN)
		rw_set_lengths(f, f->len - f->ip);
	if (wf_rand(&st, 8) && f->len >= f->bth + RW_BTH_LEN + RW_ICRC_LEN) {
		f->icrc = f->len - RW_ICRC_LEN;
		rw_set_icrc(f);
	}
	if (wf_rand(&st, 2) && f->len >= f->udp + RW_UDP_LEN)
		rw_set_udp_csum(f);
}

static void *wf_injector(void *arg)
{
	struct wf_inject *in = arg;
	static struct rw_frame f;
	uint64_t i;
	int ret;

	for (i = 0; i < in->pkts; i++) {
		wf_packet(in, i, &f);
		ret = rw_send(in->tx, &f);
		if (ret) {
			atomic_store(&in->err, -ret);
			break;
		}
		atomic_fetch_add(&in->sent, 1);
		if (i % WF_BATCH == WF_BATCH - 1)
			sched_yield();
	}
	atomic_store(&in->done, true);
	return NULL;
}

/* ---- the hosts and QPs ---------------------------------------------- */

static void wf_addrs(struct __test_metadata *_metadata,
		     FIXTURE_DATA(wire_fuzz) *self, bool ipv6)
{
	struct wf_inject *in = &self->inj;
	int af = ipv6 ? AF_INET6 : AF_INET;
	uint8_t *peer = in->peer.sgid + (ipv6 ? 0 : 12);
	uint8_t *stranger = in->stranger.sgid + (ipv6 ? 0 : 12);

	ASSERT_EQ(0, setns(self->h.s[1].nsfd, CLONE_NEWNET));
	ASSERT_EQ(0, rnic_sh("ip addr add %s/24 dev %s && ip addr add %s/24 dev %s && ip -6 addr add %s/64 dev %s nodad && ip -6 addr add %s/64 dev %s nodad",
			     WF_PEER4, wh_netdev[1], WF_STRANGER4, wh_netdev[1],
			     WF_PEER6, wh_netdev[1], WF_STRANGER6,
			     wh_netdev[1]));
	ASSERT_EQ(0, setns(self->h.init_ns, CLONE_NEWNET));
	in->peer = self->h.addr;
	in->stranger = self->h.addr;
	ASSERT_EQ(1, inet_pton(af, ipv6 ? WF_PEER6 : WF_PEER4, peer));
	ASSERT_EQ(1, inet_pton(af, ipv6 ? WF_STRANGER6 : WF_STRANGER4,
			       stranger));
	memcpy(in->real_peer, self->h.s[1].gid.raw, 16);
}

/* The live pairs, connected to each other (RC, UC), and the targets. */
static void wf_qps(struct __test_metadata *_metadata,
		   FIXTURE_DATA(wire_fuzz) *self)
{
	struct wire_side *s = self->h.s;
	union ibv_gid peer;
	int t, i;

	memcpy(peer.raw, self->inj.peer.sgid, 16);
	for (t = 0; t < WF_NTYPES; t++) {
		struct dp_qp_opts o = dp_opts(wf_type[t]);

		for (i = 0; i < 2; i++)
			self->live[t][i] = do_ptr(dp_qp_create(s[i].pd,
							       s[i].scq,
							       s[i].rcq, &o));
		self->target[t] = do_ptr(dp_qp_create(s[0].pd, s[0].scq,
						      s[0].rcq, &o));
		if (t == WF_UD) {
			for (i = 0; i < 2; i++) {
				ASSERT_EQ(0, dp_qp_init(self->live[t][i], &o));
				ASSERT_EQ(0, dp_qp_rtr(self->live[t][i], &o, 0,
						       &s[i].gid,
						       s[i].gid_index, 0));
				ASSERT_EQ(0, dp_qp_rts(self->live[t][i], &o,
						       0));
			}
			ASSERT_EQ(0, dp_qp_init(self->target[t], &o));
			ASSERT_EQ(0, dp_qp_rtr(self->target[t], &o, 0,
					       &s[0].gid, s[0].gid_index, 0));
			ASSERT_EQ(0, dp_qp_rts(self->target[t], &o, 0));
			self->ah = do_ptr(dp_ah(s[1].pd, &s[0].gid,
						s[1].gid_index));
		} else {
			for (i = 0; i < 2; i++)
				ASSERT_EQ(0, dp_qp_connect(self->live[t][i], &o,
							   self->live[t][!i]->qp_num,
							   &s[!i].gid,
							   s[i].gid_index,
							   0x100, 0x100,
							   false));
			ASSERT_EQ(0, dp_qp_connect(self->target[t], &o,
						   WF_PEER_QPN, &peer,
						   s[0].gid_index, 0, 0,
						   false));
		}
		self->inj.live_qpn[t] = self->live[t][0]->qp_num;
		self->inj.target_qpn[t] = self->target[t]->qp_num;
	}
}

FIXTURE_SETUP(wire_fuzz)
{
	size_t len = 3 * WF_TBUF;

	memset(&self->inj, 0, sizeof(self->inj));
	wire_hosts_setup(_metadata, &self->h, variant->ipv6);
	wf_addrs(_metadata, self, variant->ipv6);
	wf_qps(_metadata, self);
	self->tmem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->tmem);
	dp_fill(self->tmem, len, 0x9a4d, 0);
	self->tmr = do_ptr(ibv_reg_mr(self->h.s[0].pd, self->tmem + WF_TBUF,
				      WF_TBUF, DP_ACCESS_ALL));
	self->inj.tx = &self->h.tx;
	self->inj.tva = (uintptr_t)self->tmem + WF_TBUF;
	self->inj.trkey = self->tmr->rkey;
	self->inj.seed = dp_env_int("RNIC_WIRE_FUZZ_SEED", WF_DEFAULT_SEED);
	/* half of the run with each address family */
	self->inj.pkts = dp_env_int("RNIC_WIRE_FUZZ_PKTS", WF_DEFAULT_PKTS) / 2;
}

FIXTURE_TEARDOWN(wire_fuzz)
{
	int t, i;

	if (self->ah)
		EXPECT_EQ(0, ibv_destroy_ah(self->ah));
	for (t = 0; t < WF_NTYPES; t++) {
		for (i = 0; i < 2; i++)
			if (self->live[t][i])
				EXPECT_EQ(0, ibv_destroy_qp(self->live[t][i]));
		if (self->target[t])
			EXPECT_EQ(0, ibv_destroy_qp(self->target[t]));
	}
	if (self->tmr)
		EXPECT_EQ(0, ibv_dereg_mr(self->tmr));
	if (self->tmem)
		munmap(self->tmem, 3 * WF_TBUF);
	wire_hosts_teardown(_metadata, &self->h);
}

/* ---- the live traffic ----------------------------------------------- */

/*
 * A SEND from host 1 to host 0 on the live QP of @t, WF_LIVE_LEN bytes
 * (UD: 300): true if it arrived, with the right bytes. RC must arrive;
 * UC and UD may be lost only while @lossy (a flood may overflow the
 * veth's backlog), never changed.
 */
static bool wf_live_send(struct __test_metadata *_metadata,
			 FIXTURE_DATA(wire_fuzz) *self, int t, uint32_t round,
			 bool lossy)
{
	struct wire_side *s0 = &self->h.s[0], *s1 = &self->h.s[1];
	uint32_t len = t == WF_UD ? 300 : WF_LIVE_LEN;
	size_t grh = t == WF_UD ? DP_GRH : 0;
	uint32_t seed = dp_seed(t, round, 0x11fe);
	struct dp_sgl ssgl, dsgl;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = IBV_WR_SEND,
		.wr_id = round,
		.sgl = &ssgl,
	};
	int n;

	if (t == WF_UD) {
		w.ah = self->ah;
		w.rqpn = self->live[t][0]->qp_num;
		w.qkey = DP_QKEY;
	}
	dp_sgl_one(&s1->sbuf, 0, len, &ssgl);
	dp_sgl_fill(&ssgl, seed, 0);
	dp_sgl_one(&s0->dbuf, 4096 * t, grh + len, &dsgl);
	memset(s0->dbuf.mem + 4096 * t, 0, grh + len);
	EXPECT_EQ(0, dp_post_recv(self->live[t][0], &dsgl, round));
	EXPECT_EQ(0, dp_post(self->live[t][1], &w));
	EXPECT_EQ(1, dp_poll(s1->scq, 1, &wc, DP_TIMEOUT_MS));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status) TH_LOG("type %d: " DP_WC_FMT, t,
						     DP_WC_ARGS(&wc));
	n = dp_poll(s0->rcq, 1, &wc, t == WF_RC || !lossy ? DP_TIMEOUT_MS :
							    1000);
	if (n != 1) {
		EXPECT_TRUE(lossy && t != WF_RC) TH_LOG("type %d lost", t);
		/* the receive stays posted: take it back with a reset */
		EXPECT_EQ(0, dp_qp_modify_state(self->live[t][0],
						IBV_QPS_ERR));
		EXPECT_EQ(1, dp_poll(s0->rcq, 1, &wc, DP_TIMEOUT_MS));
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc.status);
		return false;
	}
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(round, wc.wr_id);
	EXPECT_EQ(grh + len, wc.byte_len);
	EXPECT_EQ(-1, dp_check(s0->dbuf.mem + 4096 * t + grh, len, seed, 0))
		TH_LOG("type %d round %u: the bytes changed", t, round);
	return true;
}

/* Bring a live UC or UD QP of host 0 back after a loss (RESET to RTS). */
static void wf_live_revive(struct __test_metadata *_metadata,
			   FIXTURE_DATA(wire_fuzz) *self, int t)
{
	struct dp_qp_opts o = dp_opts(wf_type[t]);
	struct wire_side *s0 = &self->h.s[0];
	struct ibv_qp *qp = self->live[t][0];

	ASSERT_EQ(0, dp_qp_modify_state(qp, IBV_QPS_RESET));
	if (t == WF_UD) {
		ASSERT_EQ(0, dp_qp_init(qp, &o));
		ASSERT_EQ(0, dp_qp_rtr(qp, &o, 0, &s0->gid, s0->gid_index, 0));
		ASSERT_EQ(0, dp_qp_rts(qp, &o, 0));
		return;
	}
	/* UC takes the next message at whatever PSN host 1 is at */
	ASSERT_EQ(0, dp_qp_connect(qp, &o, self->live[t][1]->qp_num,
				   &self->h.s[1].gid, s0->gid_index, 0x100,
				   0x100, false));
}

/* A READ by host 0 of host 1's sbuf on the live RC QP: the bytes. */
static void wf_live_read(struct __test_metadata *_metadata,
			 FIXTURE_DATA(wire_fuzz) *self, uint32_t round)
{
	struct wire_side *s0 = &self->h.s[0], *s1 = &self->h.s[1];
	uint32_t seed = dp_seed(round, 3, 0x4ead);
	struct dp_sgl dsgl;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = IBV_WR_RDMA_READ,
		.wr_id = round,
		.sgl = &dsgl,
		.raddr = (uintptr_t)s1->sbuf.mem + 8192,
		.rkey = s1->sbuf.mr->rkey,
	};

	dp_fill(s1->sbuf.mem + 8192, WF_LIVE_LEN, seed, 0);
	dp_sgl_one(&s0->sbuf, 8192, WF_LIVE_LEN, &dsgl);
	memset(s0->sbuf.mem + 8192, 0, WF_LIVE_LEN);
	EXPECT_EQ(0, dp_post(self->live[WF_RC][0], &w));
	EXPECT_EQ(1, dp_poll(s0->scq, 1, &wc, DP_TIMEOUT_MS));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status) TH_LOG(DP_WC_FMT,
						    DP_WC_ARGS(&wc));
	EXPECT_EQ(-1, dp_check(s0->sbuf.mem + 8192, WF_LIVE_LEN, seed, 0));
}

/* One round of live traffic; the number of UC and UD messages lost. */
static int wf_live_round(struct __test_metadata *_metadata,
			 FIXTURE_DATA(wire_fuzz) *self, uint32_t round,
			 bool lossy)
{
	int t, lost = 0;

	for (t = 0; t < WF_NTYPES; t++) {
		if (wf_live_send(_metadata, self, t, round, lossy))
			continue;
		lost++;
		wf_live_revive(_metadata, self, t);
	}
	wf_live_read(_metadata, self, round);
	return lost;
}

/* ---- the run -------------------------------------------------------- */

/* Counters of host 0 that show how far the packets got. */
static const enum rnic_nl_counter wf_stages[] = {
	RNIC_NL_COUNTER_DROP_BAD_HEADER,
	RNIC_NL_COUNTER_DROP_BAD_ICRC,
	RNIC_NL_COUNTER_DROP_BAD_PKEY,
	RNIC_NL_COUNTER_DROP_NO_QP,
	RNIC_NL_COUNTER_GSI_DROPPED,
	RNIC_NL_COUNTER_REQ_NOT_PEER,
	RNIC_NL_COUNTER_RCVD_PKTS,
};

TEST_F_TIMEOUT(wire_fuzz, mutated_packets, 7200)
{
	uint64_t c[RNIC_NL_COUNTER_MAX + 1];
	struct wf_inject *in = &self->inj;
	uint32_t round = 0;
	unsigned int i, lost = 0;
	pthread_t thr;
	long t0, ms;

	t0 = dp_now_ms();
	ASSERT_EQ(0, pthread_create(&thr, NULL, wf_injector, in));
	while (!atomic_load(&in->done) && _metadata->passed)
		lost += wf_live_round(_metadata, self, round++, true);
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ms = dp_now_ms() - t0;
	ASSERT_EQ(0, atomic_load(&in->err)) TH_LOG("send: %s",
						   strerror(in->err));
	ASSERT_EQ(in->pkts, atomic_load(&in->sent));
	TH_LOG("%llu packets in %ld ms: %llu packets/s; %u live rounds, %u UC/UD messages lost",
	       (unsigned long long)in->pkts, ms,
	       (unsigned long long)(in->pkts * 1000 / (ms ? ms : 1)), round,
	       lost);

	/* once the flood is over, nothing is lost */
	usleep(200 * 1000);
	ASSERT_EQ(0, wf_live_round(_metadata, self, round++, false));
	for (i = 0; i < WF_NTYPES; i++)
		ASSERT_EQ(IBV_QPS_RTS, dp_qp_state(self->live[i][0]));
	for (i = 0; i < WF_NTYPES; i++)
		ASSERT_EQ(IBV_QPS_RTS, dp_qp_state(self->live[i][1]));
	/* nothing outside the target MR was written */
	ASSERT_EQ(-1, dp_check(self->tmem, WF_TBUF, 0x9a4d, 0));
	ASSERT_EQ(-1, dp_check(self->tmem + 2 * WF_TBUF, WF_TBUF, 0x9a4d,
			       2 * WF_TBUF));

	wh_counters(&self->h, 0, c);
	for (i = 1; i <= RNIC_NL_COUNTER_MAX; i++)
		if (c[i])
			TH_LOG("host 0 %s %llu", rnic_counter_name(i),
			       (unsigned long long)c[i]);
	/* a short pass reaches every stage of the checks */
	for (i = 0; i < ARRAY_SIZE(wf_stages) &&
		    2 * in->pkts >= WF_DEFAULT_PKTS; i++) {
		enum rnic_nl_counter stage = wf_stages[i];

		EXPECT_LT(0, c[stage]) TH_LOG("%s", rnic_counter_name(stage));
	}
}

TEST_HARNESS_MAIN
