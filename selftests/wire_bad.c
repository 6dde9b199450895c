// SPDX-License-Identifier: GPL-2.0
/*
 * The udp link's receive path against packets that lie: malformed RoCEv2
 * packets written from a raw socket on host 1's end of the veth pair
 * (rnic_wire.h) at the live RC, UC and UD QPs of host 0, which are
 * connected to host 1's.
 *
 * For each kind of bad packet: the drop counter that names it moves by
 * exactly the number sent and no other drop counter moves, nothing
 * completes, host 0's QPs stay in RTS, the bytes of the MR the packets
 * aim at are unchanged, and then a real SEND from host 1 on every QP
 * type still arrives (data checked).
 *
 * Variants: IPv4 and IPv6 addresses.
 */
#include "rnic_wire.h"

/* Bad packets of each kind sent per check. */
#define WB_N		5
/* How long a drop may take to be counted (veth delivers in softirq). */
#define WB_WAIT_MS	3000
/* Bytes of the payload of the injected packets. */
#define WB_LEN		64
/* The pattern host 0's dbuf holds while packets aim at it. */
#define WB_SEED		0x5eed
/* An IPv4 address and an IPv6 address of host 0 that are not rnic GIDs. */
#define WB_HOST4	"10.79.1.1"
#define WB_HOST6	"fd79:1::1"

enum { WB_RC, WB_UC, WB_UD, WB_NTYPES };

static const enum ibv_qp_type wb_type[WB_NTYPES] = {
	IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
};
static const uint8_t wb_transport[WB_NTYPES] = { RW_RC, RW_UC, RW_UD };

/* Every counter a packet from the wire can be dropped in. */
static const enum rnic_nl_counter wb_drops[] = {
	RNIC_NL_COUNTER_REQ_NOT_PEER,
	RNIC_NL_COUNTER_RESP_NOT_PEER,
	RNIC_NL_COUNTER_DUPLICATE_REQUEST,
	RNIC_NL_COUNTER_OUT_OF_SEQ_REQUEST,
	RNIC_NL_COUNTER_DROP_NO_QP,
	RNIC_NL_COUNTER_DROP_NOT_REACHED,
	RNIC_NL_COUNTER_DROP_BAD_OPCODE,
	RNIC_NL_COUNTER_DROP_QP_STATE,
	RNIC_NL_COUNTER_DROP_BAD_QKEY,
	RNIC_NL_COUNTER_DROP_BAD_PKEY,
	RNIC_NL_COUNTER_DROP_LENGTH,
	RNIC_NL_COUNTER_GSI_DROPPED,
	RNIC_NL_COUNTER_DROP_BAD_HEADER,
	RNIC_NL_COUNTER_DROP_BAD_ICRC,
};

FIXTURE(wire_bad) {
	struct wire_hosts h;
	struct ibv_qp *qp[WB_NTYPES][2];
	struct ibv_ah *ah[2];
	/* the next PSN host 0's RC and UC QPs expect from host 1 */
	uint32_t epsn[WB_NTYPES];
	uint64_t before[RNIC_NL_COUNTER_MAX + 1];
	uint8_t payload[WB_LEN];
};

FIXTURE_VARIANT(wire_bad) {
	bool ipv6;
};

FIXTURE_VARIANT_ADD(wire_bad, v4) { .ipv6 = false };
FIXTURE_VARIANT_ADD(wire_bad, v6) { .ipv6 = true };

/* A QP of each type on each host, connected to the other's (RC, UC). */
static void wb_qps(struct __test_metadata *_metadata,
		   FIXTURE_DATA(wire_bad) *self)
{
	struct wire_side *s = self->h.s;
	const uint32_t psn[2] = { 0x00a000, 0x7ffff0 };
	int t, i;

	for (t = 0; t < WB_NTYPES; t++) {
		struct dp_qp_opts o = dp_opts(wb_type[t]);

		for (i = 0; i < 2; i++)
			self->qp[t][i] = do_ptr(dp_qp_create(s[i].pd, s[i].scq,
							     s[i].rcq, &o));
		for (i = 0; i < 2; i++) {
			if (t != WB_UD) {
				ASSERT_EQ(0, dp_qp_connect(self->qp[t][i], &o,
							   self->qp[t][!i]->qp_num,
							   &s[!i].gid,
							   s[i].gid_index,
							   psn[i], psn[!i],
							   false));
				continue;
			}
			ASSERT_EQ(0, dp_qp_init(self->qp[t][i], &o));
			ASSERT_EQ(0, dp_qp_rtr(self->qp[t][i], &o, 0, &s[i].gid,
					       s[i].gid_index, 0));
			ASSERT_EQ(0, dp_qp_rts(self->qp[t][i], &o, psn[i]));
			self->ah[i] = do_ptr(dp_ah(s[i].pd, &s[!i].gid,
						   s[i].gid_index));
		}
		self->epsn[t] = psn[1];
	}
}

FIXTURE_SETUP(wire_bad)
{
	int t;

	for (t = 0; t < WB_NTYPES; t++)
		self->qp[t][0] = self->qp[t][1] = NULL;
	wire_hosts_setup(_metadata, &self->h, variant->ipv6);
	wb_qps(_metadata, self);
	dp_fill(self->h.s[0].dbuf.mem, WH_BUF, WB_SEED, 0);
	dp_fill(self->payload, WB_LEN, WB_SEED + 1, 0);
}

FIXTURE_TEARDOWN(wire_bad)
{
	int t, i;

	for (i = 0; i < 2; i++)
		if (self->ah[i])
			EXPECT_EQ(0, ibv_destroy_ah(self->ah[i]));
	for (t = 0; t < WB_NTYPES; t++)
		for (i = 0; i < 2; i++)
			if (self->qp[t][i])
				EXPECT_EQ(0, ibv_destroy_qp(self->qp[t][i]));
	wire_hosts_teardown(_metadata, &self->h);
}

/*
 * A packet that would be accepted: to host 0's QP of @t, from host 1's,
 * at the PSN host 0 expects next. SEND ONLY of WB_LEN bytes unless the
 * caller changes the opcode.
 */
static struct rw_pkt wb_pkt(FIXTURE_DATA(wire_bad) *self, int t)
{
	struct rw_pkt p = {
		.opcode = wb_transport[t] | RW_SEND_ONLY,
		.dqpn = self->qp[t][0]->qp_num,
		.psn = self->epsn[t],
		.ack_req = t == WB_RC,
		.qkey = DP_QKEY,
		.sqpn = self->qp[t][1]->qp_num,
		.payload = self->payload,
		.len = WB_LEN,
	};

	return p;
}

/* A WRITE ONLY of WB_LEN bytes into host 0's dbuf at offset 4096. */
static struct rw_pkt wb_write(FIXTURE_DATA(wire_bad) *self, int t)
{
	struct rw_pkt p = wb_pkt(self, t);

	p.opcode = wb_transport[t] | RW_WRITE_ONLY;
	p.va = (uintptr_t)self->h.s[0].dbuf.mem + 4096;
	p.rkey = self->h.s[0].dbuf.mr->rkey;
	p.dma_len = WB_LEN;
	return p;
}

static void wb_build(struct __test_metadata *_metadata,
		     FIXTURE_DATA(wire_bad) *self, struct rw_frame *f,
		     const struct rw_pkt *p)
{
	ASSERT_EQ(0, rw_build(f, &self->h.addr, p));
}

/* Send the first @len bytes of @f WB_N times. */
static void wb_send_len(struct __test_metadata *_metadata,
			FIXTURE_DATA(wire_bad) *self,
			const struct rw_frame *f, uint32_t len)
{
	int i;

	for (i = 0; i < WB_N; i++)
		ASSERT_EQ(0, rw_send_len(&self->h.tx, f, len));
}

static void wb_send(struct __test_metadata *_metadata,
		    FIXTURE_DATA(wire_bad) *self, const struct rw_frame *f)
{
	wb_send_len(_metadata, self, f, f->len);
}

static void wb_mark(FIXTURE_DATA(wire_bad) *self)
{
	wh_counters(&self->h, 0, self->before);
}

/*
 * Since wb_mark(): wait for @counter of host 0 to have moved by @n, then
 * check that it moved by exactly @n, no other drop counter moved, and
 * rcvd_pkts moved by @rcvd (packets that reached a QP).
 */
static void wb_expect(struct __test_metadata *_metadata,
		      FIXTURE_DATA(wire_bad) *self,
		      enum rnic_nl_counter counter, uint64_t n, uint64_t rcvd)
{
	uint64_t now[RNIC_NL_COUNTER_MAX + 1];
	long end = dp_now_ms() + WB_WAIT_MS;
	unsigned int i;

	do {
		wh_counters(&self->h, 0, now);
		if ((!counter || now[counter] - self->before[counter] >= n) &&
		    now[RNIC_NL_COUNTER_RCVD_PKTS] -
		    self->before[RNIC_NL_COUNTER_RCVD_PKTS] >= rcvd)
			break;
		usleep(5000);
	} while (dp_now_ms() < end);
	/* anything more would arrive by now */
	usleep(50 * 1000);
	wh_counters(&self->h, 0, now);
	for (i = 0; i < ARRAY_SIZE(wb_drops); i++) {
		enum rnic_nl_counter c = wb_drops[i];

		EXPECT_EQ(c == counter ? n : 0, now[c] - self->before[c])
			TH_LOG("counter %s", rnic_counter_name(c));
	}
	EXPECT_EQ(rcvd, now[RNIC_NL_COUNTER_RCVD_PKTS] -
			self->before[RNIC_NL_COUNTER_RCVD_PKTS]);
	memcpy(self->before, now, sizeof(now));
}

/* Host 0's dbuf still holds its pattern; nothing completed on host 0. */
static void wb_untouched(struct __test_metadata *_metadata,
			 FIXTURE_DATA(wire_bad) *self)
{
	struct wire_side *s0 = &self->h.s[0];

	ASSERT_EQ(-1, dp_check(s0->dbuf.mem, WH_BUF, WB_SEED, 0));
	ASSERT_QUIET_MS(s0->rcq, 0);
	ASSERT_QUIET_MS(s0->scq, 0);
}

/* The receive a real SEND to host 0 lands in: host 0's sbuf at 8. */
static void wb_real_recv(struct __test_metadata *_metadata,
			 FIXTURE_DATA(wire_bad) *self, int t)
{
	size_t grh = t == WB_UD ? DP_GRH : 0;
	struct dp_sgl dsgl;

	dp_sgl_one(&self->h.s[0].sbuf, 8, grh + 300, &dsgl);
	ASSERT_EQ(0, dp_post_recv(self->qp[t][0], &dsgl, 12));
}

/*
 * A real SEND of one packet from host 1 to host 0 on the QP of @t, into
 * host 0's sbuf (@posted: the receive is already posted): the bytes
 * arrive, both sides complete.
 */
static void wb_real_send(struct __test_metadata *_metadata,
			 FIXTURE_DATA(wire_bad) *self, int t, bool posted)
{
	struct wire_side *s0 = &self->h.s[0], *s1 = &self->h.s[1];
	uint32_t seed = dp_seed(t, self->epsn[t], 77);
	size_t grh = t == WB_UD ? DP_GRH : 0;
	struct dp_sgl ssgl;
	struct ibv_wc wc;
	struct dp_wr w = {
		.op = IBV_WR_SEND,
		.wr_id = 11,
		.sgl = &ssgl,
	};

	if (t == WB_UD) {
		w.ah = self->ah[1];
		w.rqpn = self->qp[t][0]->qp_num;
		w.qkey = DP_QKEY;
	}
	dp_sgl_one(&s1->sbuf, 0, 300, &ssgl);
	dp_sgl_fill(&ssgl, seed, 0);
	if (!posted)
		wb_real_recv(_metadata, self, t);
	ASSERT_EQ(0, dp_post(self->qp[t][1], &w));
	ASSERT_POLL1(s1->scq, &wc);
	ASSERT_WC(&wc, 11, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(s0->rcq, &wc);
	ASSERT_WC(&wc, 12, IBV_WC_SUCCESS, IBV_WC_RECV);
	ASSERT_EQ(grh + 300, wc.byte_len);
	ASSERT_EQ(-1, dp_check(s0->sbuf.mem + 8 + grh, 300, seed, 0));
	self->epsn[t] = (self->epsn[t] + 1) & RW_PSN_MASK;
}

/*
 * After bad packets: host 0 untouched, every QP in RTS, and a real SEND
 * on every QP type works. The counters move only by the real traffic.
 */
static void wb_after(struct __test_metadata *_metadata,
		     FIXTURE_DATA(wire_bad) *self)
{
	int t, i;

	wb_untouched(_metadata, self);
	for (t = 0; t < WB_NTYPES; t++)
		for (i = 0; i < 2; i++)
			ASSERT_EQ(IBV_QPS_RTS, dp_qp_state(self->qp[t][i]))
				TH_LOG("type %d host %d", t, i);
	for (t = 0; t < WB_NTYPES; t++)
		wb_real_send(_metadata, self, t, false);
	wb_mark(self);
}

/* Build @p, send it WB_N times, expect @counter (parser drops). */
static void wb_drop(struct __test_metadata *_metadata,
		    FIXTURE_DATA(wire_bad) *self, const struct rw_pkt *p,
		    enum rnic_nl_counter counter)
{
	struct rw_frame f;

	wb_build(_metadata, self, &f, p);
	wb_mark(self);
	wb_send(_metadata, self, &f);
	wb_expect(_metadata, self, counter, WB_N, 0);
}

/*
 * The positive control: the builder's packets are right. A UD SEND from
 * the raw socket lands in the receive queue with its bytes, immediate
 * and source QP; a UC WRITE writes.
 */
TEST_F(wire_bad, valid_packets_land)
{
	struct wire_side *s0 = &self->h.s[0];
	struct rw_pkt p = wb_pkt(self, WB_UD);
	struct rw_frame f;
	struct dp_sgl dsgl;
	struct ibv_wc wc;

	p.opcode = RW_UD | RW_SEND_ONLY_IMM;
	p.imm = 0xfeedf00d;
	p.sqpn = 0x123;
	p.len = WB_LEN - 1;	/* with a pad byte */
	dp_sgl_one(&s0->sbuf, 0, DP_GRH + WB_LEN, &dsgl);
	ASSERT_EQ(0, dp_post_recv(self->qp[WB_UD][0], &dsgl, 5));
	wb_build(_metadata, self, &f, &p);
	wb_mark(self);
	ASSERT_EQ(0, rw_send(&self->h.tx, &f));
	ASSERT_POLL1(s0->rcq, &wc);
	ASSERT_WC(&wc, 5, IBV_WC_SUCCESS, IBV_WC_RECV);
	ASSERT_EQ(DP_GRH + WB_LEN - 1, wc.byte_len);
	ASSERT_EQ(htonl(0xfeedf00d), wc.imm_data);
	ASSERT_EQ(0x123u, wc.src_qp);
	ASSERT_EQ(0, memcmp(s0->sbuf.mem + DP_GRH, self->payload, WB_LEN - 1));
	wb_expect(_metadata, self, 0, 0, 1);

	/*
	 * a UC WRITE one PSN behind: UC takes a new message at any PSN
	 * (a gap is no error for UC) and then expects the one after it,
	 * host 1's next
	 */
	p = wb_write(self, WB_UC);
	p.psn = (self->epsn[WB_UC] - 1) & RW_PSN_MASK;
	wb_build(_metadata, self, &f, &p);
	ASSERT_EQ(0, rw_send(&self->h.tx, &f));
	wb_expect(_metadata, self, 0, 0, 1);
	ASSERT_EQ(0, memcmp(s0->dbuf.mem + 4096, self->payload, WB_LEN));
	/* put the pattern back */
	dp_fill(s0->dbuf.mem, WH_BUF, WB_SEED, 0);
	wb_after(_metadata, self);
}

/* A flipped ICRC bit: dropped as bad_icrc, on every QP type, WRITEs too. */
TEST_F(wire_bad, bad_icrc)
{
	struct rw_frame f;
	struct rw_pkt p;
	int t;

	for (t = 0; t < WB_NTYPES; t++) {
		p = wb_pkt(self, t);
		wb_build(_metadata, self, &f, &p);
		f.buf[f.icrc + t] ^= 0x10;
		wb_mark(self);
		wb_send(_metadata, self, &f);
		wb_expect(_metadata, self, RNIC_NL_COUNTER_DROP_BAD_ICRC,
			  WB_N, 0);
		if (t == WB_UD)
			continue;
		/* a payload bit flipped after the ICRC was computed */
		p = wb_write(self, t);
		wb_build(_metadata, self, &f, &p);
		f.buf[f.icrc - 1] ^= 1;
		wb_send(_metadata, self, &f);
		wb_expect(_metadata, self, RNIC_NL_COUNTER_DROP_BAD_ICRC,
			  WB_N, 0);
	}
	wb_after(_metadata, self);
}

/*
 * A WRITE ONLY cut short at every header boundary, the IP and UDP
 * lengths made to match the cut: until the UDP header is whole the
 * packet is not known to be RoCEv2 (the host's); until the BTH, RETH and
 * an ICRC fit, bad_header; after that the last four bytes are taken for
 * the ICRC and are wrong, bad_icrc. Cut without fixing the lengths: an
 * IP length longer than the frame, bad_header.
 */
TEST_F(wire_bad, truncated)
{
	const struct {
		uint32_t after_udp;	/* bytes kept after the UDP header */
		enum rnic_nl_counter counter;
	} cut[] = {
		{ 0, RNIC_NL_COUNTER_DROP_BAD_HEADER },
		{ 6, RNIC_NL_COUNTER_DROP_BAD_HEADER },
		{ RW_BTH_LEN, RNIC_NL_COUNTER_DROP_BAD_HEADER },
		{ RW_BTH_LEN + 8, RNIC_NL_COUNTER_DROP_BAD_HEADER },
		{ RW_BTH_LEN + RW_RETH_LEN, RNIC_NL_COUNTER_DROP_BAD_HEADER },
		{ RW_BTH_LEN + RW_RETH_LEN + RW_ICRC_LEN - 1,
		  RNIC_NL_COUNTER_DROP_BAD_HEADER },
		{ RW_BTH_LEN + RW_RETH_LEN + RW_ICRC_LEN,
		  RNIC_NL_COUNTER_DROP_BAD_ICRC },
		{ RW_BTH_LEN + RW_RETH_LEN + WB_LEN,
		  RNIC_NL_COUNTER_DROP_BAD_ICRC },
	};
	struct rw_pkt p = wb_write(self, WB_RC);
	struct rw_frame f;
	uint32_t udp_end, len;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cut); i++) {
		wb_build(_metadata, self, &f, &p);
		udp_end = f.udp + RW_UDP_LEN;
		len = udp_end + cut[i].after_udp;
		f.len = len;
		rw_set_lengths(&f, len - f.ip);
		wb_mark(self);
		wb_send_len(_metadata, self, &f, len);
		wb_expect(_metadata, self, cut[i].counter, WB_N, 0);
		TH_LOG("cut %u: %u bytes after UDP", i, cut[i].after_udp);
	}
	/* cut in the IP or UDP header: not RoCEv2 as far as rnic can see */
	wb_build(_metadata, self, &f, &p);
	wb_mark(self);
	wb_send_len(_metadata, self, &f, f.udp + 4);
	wb_send_len(_metadata, self, &f, f.ip + 12);
	wb_expect(_metadata, self, 0, 0, 0);
	/* the IP header says more than the frame has */
	wb_send_len(_metadata, self, &f, f.len - 1);
	wb_send_len(_metadata, self, &f, f.bth + 4);
	wb_expect(_metadata, self, RNIC_NL_COUNTER_DROP_BAD_HEADER, 2 * WB_N,
		  0);
	wb_after(_metadata, self);
}

/* TVer other than 0: bad_header. */
TEST_F(wire_bad, bad_tver)
{
	struct rw_pkt p;
	int t;

	for (t = 0; t < WB_NTYPES; t++) {
		p = wb_pkt(self, t);
		p.tver = 1 + t;
		wb_drop(_metadata, self, &p, RNIC_NL_COUNTER_DROP_BAD_HEADER);
	}
	wb_after(_metadata, self);
}

/* A P_Key that is not the default partition's: bad_pkey. */
TEST_F(wire_bad, bad_pkey)
{
	static const uint16_t pkey[] = { 0x1234, 0x8001, 0xfffe };
	struct rw_pkt p;
	unsigned int i;
	int t;

	for (t = 0; t < WB_NTYPES; t++) {
		for (i = 0; i < ARRAY_SIZE(pkey); i++) {
			p = t == WB_UD ? wb_pkt(self, t) : wb_write(self, t);
			p.pkey = pkey[i];
			wb_drop(_metadata, self, &p,
				RNIC_NL_COUNTER_DROP_BAD_PKEY);
		}
	}
	wb_after(_metadata, self);
}

/*
 * A UD datagram with another Q_Key, a receive posted: it reaches the QP
 * and is dropped there (drop_bad_qkey); the receive stays for the real
 * SEND.
 */
TEST_F(wire_bad, bad_qkey)
{
	struct rw_pkt p = wb_pkt(self, WB_UD);
	struct rw_frame f;

	wb_real_recv(_metadata, self, WB_UD);
	p.qkey = DP_QKEY ^ 1;
	wb_build(_metadata, self, &f, &p);
	wb_mark(self);
	wb_send(_metadata, self, &f);
	wb_expect(_metadata, self, RNIC_NL_COUNTER_DROP_BAD_QKEY, WB_N, WB_N);
	p.qkey = 0x80000000u | DP_QKEY;
	wb_build(_metadata, self, &f, &p);
	wb_send(_metadata, self, &f);
	wb_expect(_metadata, self, RNIC_NL_COUNTER_DROP_BAD_QKEY, WB_N, WB_N);
	wb_untouched(_metadata, self);
	wb_real_send(_metadata, self, WB_UD, true);
	wb_after(_metadata, self);
}

/*
 * Pad counts that lie: more pad than there are bytes after the headers,
 * pad on an opcode that has no payload (READ request), a payload on one,
 * and payload bytes that are no multiple of 4 (every header and the
 * ICRC are whole words, and the pad makes the payload one). bad_header.
 */
TEST_F(wire_bad, pad_lies)
{
	const struct {
		uint32_t len;	/* payload bytes in the frame */
		uint8_t pad;	/* the pad count the BTH says */
	} c[] = {
		{ 0, 3 }, { 1, 3 }, { 2, 3 }, { 2, 0 }, { 63, 0 }, { 61, 2 },
	};
	struct rw_pkt p;
	unsigned int i;
	int t;

	for (t = 0; t < WB_NTYPES; t++) {
		for (i = 0; i < ARRAY_SIZE(c); i++) {
			p = wb_pkt(self, t);
			p.len = c[i].len;
			p.pad = c[i].pad;
			p.pad_lie = true;
			wb_drop(_metadata, self, &p,
				RNIC_NL_COUNTER_DROP_BAD_HEADER);
			TH_LOG("type %d: %u bytes, pad count %u", t, c[i].len,
			       c[i].pad);
		}
	}
	p = wb_write(self, WB_RC);
	p.opcode = RW_RC | RW_READ_REQ;
	p.len = 0;
	p.pad = 2;
	p.pad_lie = true;
	wb_drop(_metadata, self, &p, RNIC_NL_COUNTER_DROP_BAD_HEADER);
	/* a READ request with payload bytes */
	p.pad = 0;
	p.pad_lie = false;
	p.len = 8;
	wb_drop(_metadata, self, &p, RNIC_NL_COUNTER_DROP_BAD_HEADER);
	wb_after(_metadata, self);
}

/*
 * A payload longer than the port's active MTU (4096 on a 9000-byte
 * netdev): bad_header, whatever the QP type.
 */
TEST_F(wire_bad, oversized)
{
	static uint8_t big[4096 + 8];
	struct rw_pkt p;
	int t;

	for (t = 0; t < WB_NTYPES; t++) {
		p = t == WB_UD ? wb_pkt(self, t) : wb_write(self, t);
		p.payload = big;
		p.len = sizeof(big);
		p.dma_len = p.len;
		wb_drop(_metadata, self, &p, RNIC_NL_COUNTER_DROP_BAD_HEADER);
	}
	wb_after(_metadata, self);
}

/*
 * Opcodes the QP's transport does not have: a UD SEND to the RC QP, an
 * RC READ and an RC SEND to the UD QP, a UC WRITE to the RC QP are
 * drop_bad_opcode at the QP; opcodes nobody defines (UC READ, RC 0x1f,
 * transport 0x40) are bad_header in the parser.
 */
TEST_F(wire_bad, wrong_opcode)
{
	const struct {
		int to;
		uint8_t opcode;
		enum rnic_nl_counter counter;
	} c[] = {
		{ WB_RC, RW_UD | RW_SEND_ONLY, RNIC_NL_COUNTER_DROP_BAD_OPCODE },
		{ WB_UD, RW_RC | RW_READ_REQ, RNIC_NL_COUNTER_DROP_BAD_OPCODE },
		{ WB_UD, RW_RC | RW_SEND_ONLY, RNIC_NL_COUNTER_DROP_BAD_OPCODE },
		{ WB_RC, RW_UC | RW_WRITE_ONLY, RNIC_NL_COUNTER_DROP_BAD_OPCODE },
		{ WB_UC, RW_RC | RW_WRITE_ONLY, RNIC_NL_COUNTER_DROP_BAD_OPCODE },
		{ WB_UC, RW_UC | RW_READ_REQ, RNIC_NL_COUNTER_DROP_BAD_HEADER },
		{ WB_RC, RW_RC | 0x1f, RNIC_NL_COUNTER_DROP_BAD_HEADER },
		{ WB_RC, 0x40 | RW_SEND_ONLY, RNIC_NL_COUNTER_DROP_BAD_HEADER },
		{ WB_UD, RW_UD | RW_WRITE_ONLY, RNIC_NL_COUNTER_DROP_BAD_HEADER },
	};
	struct rw_frame f;
	struct rw_pkt p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		p = wb_write(self, c[i].to);
		p.opcode = c[i].opcode;
		if ((c[i].opcode & 0x1f) == RW_READ_REQ)
			p.len = 0;
		wb_build(_metadata, self, &f, &p);
		wb_mark(self);
		wb_send(_metadata, self, &f);
		wb_expect(_metadata, self, c[i].counter, WB_N,
			  c[i].counter == RNIC_NL_COUNTER_DROP_BAD_OPCODE ?
			  WB_N : 0);
		TH_LOG("case %u: opcode 0x%02x", i, c[i].opcode);
	}
	wb_after(_metadata, self);
}

/*
 * RC PSNs far from the expected one: half the PSN space behind is a
 * duplicate (counted each, re-acknowledged, not executed: the WRITE does
 * not write); ahead is a gap, NAKed and counted once per gap.
 */
TEST_F(wire_bad, psn_out_of_window)
{
	struct rw_frame f;
	struct rw_pkt p;

	p = wb_write(self, WB_RC);
	p.psn = (self->epsn[WB_RC] - 0x400000) & RW_PSN_MASK;
	wb_build(_metadata, self, &f, &p);
	wb_mark(self);
	wb_send(_metadata, self, &f);
	wb_expect(_metadata, self, RNIC_NL_COUNTER_DUPLICATE_REQUEST, WB_N,
		  WB_N);
	p.psn = (self->epsn[WB_RC] + 0x400000) & RW_PSN_MASK;
	wb_build(_metadata, self, &f, &p);
	wb_send(_metadata, self, &f);
	wb_expect(_metadata, self, RNIC_NL_COUNTER_OUT_OF_SEQ_REQUEST, 1,
		  WB_N);
	wb_after(_metadata, self);
}

/* Send @p once; it reaches a QP and is taken for nothing. */
static void wb_send_once(struct __test_metadata *_metadata,
			 FIXTURE_DATA(wire_bad) *self, const struct rw_pkt *p)
{
	struct rw_frame f;

	wb_build(_metadata, self, &f, p);
	wb_mark(self);
	ASSERT_EQ(0, rw_send(&self->h.tx, &f));
	wb_expect(_metadata, self, 0, 0, 1);
}

/*
 * @p, to the RC QP, is an invalid request: NAKed, host 0's QP goes to
 * the error state with IBV_EVENT_QP_REQ_ERR (IBTA), no byte written.
 * Host 1's QP ignores the NAK of a PSN it never sent.
 */
static void wb_rc_invalid(struct __test_metadata *_metadata,
			  FIXTURE_DATA(wire_bad) *self, const struct rw_pkt *p)
{
	struct wire_side *s0 = &self->h.s[0];
	struct ibv_async_event ev;

	wb_send_once(_metadata, self, p);
	ASSERT_EQ(0, dp_wait_async(s0->ctx, IBV_EVENT_QP_REQ_ERR,
				   DP_TIMEOUT_MS, &ev));
	ASSERT_EQ(self->qp[WB_RC][0], ev.element.qp);
	ASSERT_EQ(IBV_QPS_ERR, dp_qp_state(self->qp[WB_RC][0]));
	ASSERT_EQ(-1, dp_check(s0->dbuf.mem, WH_BUF, WB_SEED, 0));
	usleep(100 * 1000);
	ASSERT_EQ(IBV_QPS_RTS, dp_qp_state(self->qp[WB_RC][1]));
	ASSERT_QUIET_MS(self->h.s[1].scq, 0);
	wb_real_send(_metadata, self, WB_UD, false);
}

/*
 * A WRITE whose RETH length is not the payload's: on UC the message is
 * dropped (no byte written, the QP stays); on RC it is an invalid
 * request.
 */
TEST_F(wire_bad, reth_length_lies)
{
	const uint32_t lie[] = { WB_LEN + 1, WB_LEN - 1, 0, 0x80000000u };
	struct rw_pkt p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lie); i++) {
		p = wb_write(self, WB_UC);
		p.dma_len = lie[i];
		wb_send_once(_metadata, self, &p);
	}
	wb_untouched(_metadata, self);
	wb_real_send(_metadata, self, WB_UC, false);

	p = wb_write(self, WB_RC);
	p.dma_len = WB_LEN + 4096;
	wb_rc_invalid(_metadata, self, &p);
}

/*
 * A FIRST packet that is not one path MTU long (1024 here; IBTA: FIRST
 * and MIDDLE carry the MTU exactly): on UC the message is dropped (no
 * byte written, the QP stays); on RC it is an invalid request.
 */
TEST_F(wire_bad, segment_length_lies)
{
	struct rw_pkt p;

	p = wb_write(self, WB_UC);
	p.opcode = RW_UC | RW_WRITE_FIRST;
	p.dma_len = 2 * 1024;
	wb_send_once(_metadata, self, &p);
	wb_untouched(_metadata, self);
	wb_real_send(_metadata, self, WB_UC, false);

	p = wb_write(self, WB_RC);
	p.opcode = RW_RC | RW_WRITE_FIRST;
	p.dma_len = 2 * 1024;
	wb_rc_invalid(_metadata, self, &p);
}

/* A destination QP number the device does not have: drop_no_qp. */
TEST_F(wire_bad, no_such_qp)
{
	struct rw_pkt p = wb_pkt(self, WB_RC);

	p.dqpn = 0xabcdef;
	wb_drop(_metadata, self, &p, RNIC_NL_COUNTER_DROP_NO_QP);
	p = wb_pkt(self, WB_UD);
	p.dqpn = 0xfffffe;
	wb_drop(_metadata, self, &p, RNIC_NL_COUNTER_DROP_NO_QP);
	wb_after(_metadata, self);
}

/*
 * RoCEv2 to an address of host 0 that is no GID of the device (it is on
 * lo, not on the bound netdev): the host's. A UDP socket of host 0 on
 * port 4791 receives it, whole; rnic counts nothing.
 */
TEST_F(wire_bad, foreign_gid_left_to_host)
{
	struct rw_pkt p = wb_pkt(self, WB_RC);
	uint8_t buf[256];
	struct rw_frame f;
	struct rw_addr a = self->h.addr;
	int fd, i;
	ssize_t n;

	ASSERT_EQ(0, setns(self->h.s[0].nsfd, CLONE_NEWNET));
	if (variant->ipv6) {
		ASSERT_EQ(0, rnic_sh("ip -6 addr add %s/128 dev lo nodad",
				     WB_HOST6));
		ASSERT_EQ(1, inet_pton(AF_INET6, WB_HOST6, a.dgid));
		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, bind(fd, (struct sockaddr *)&(struct sockaddr_in6){
				.sin6_family = AF_INET6,
				.sin6_port = htons(RW_ROCE_PORT) },
				sizeof(struct sockaddr_in6)));
	} else {
		ASSERT_EQ(0, rnic_sh("ip addr add %s/32 dev lo", WB_HOST4));
		ASSERT_EQ(1, inet_pton(AF_INET, WB_HOST4, a.dgid + 12));
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, bind(fd, (struct sockaddr *)&(struct sockaddr_in){
				.sin_family = AF_INET,
				.sin_port = htons(RW_ROCE_PORT) },
				sizeof(struct sockaddr_in)));
	}
	ASSERT_EQ(0, setns(self->h.init_ns, CLONE_NEWNET));
	ASSERT_EQ(0, rw_build(&f, &a, &p));
	wb_mark(self);
	wb_send(_metadata, self, &f);
	for (i = 0; i < WB_N; i++) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		ASSERT_EQ(1, poll(&pfd, 1, WB_WAIT_MS));
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		ASSERT_EQ((ssize_t)(f.len - f.bth), n);
		ASSERT_EQ(0, memcmp(buf, f.buf + f.bth, n));
	}
	close(fd);
	wb_expect(_metadata, self, 0, 0, 0);
	wb_after(_metadata, self);
}

/*
 * IPv4 headers RoCEv2 never has: options (ihl 6), a first fragment (MF)
 * and a bad header checksum are bad_header; a later fragment has no UDP
 * header to say it is RoCEv2 and is the host's.
 */
TEST_F(wire_bad, ipv4_options_fragments)
{
	struct rw_pkt p = wb_pkt(self, WB_RC);
	struct rw_frame f, g;
	uint8_t *ip;

	if (variant->ipv6)
		SKIP(return, "IPv4 only");
	/* options: four NOPs between the IP and UDP headers */
	wb_build(_metadata, self, &f, &p);
	memcpy(&g, &f, sizeof(f));
	memcpy(g.buf + f.udp + 4, f.buf + f.udp, f.len - f.udp);
	memset(g.buf + f.udp, 1, 4);
	g.len += 4;
	g.ip_len += 4;
	g.udp += 4;
	g.bth += 4;
	g.icrc += 4;
	g.buf[g.ip] = 0x46;
	rw_set_lengths(&g, g.len - g.ip);
	rw_set_icrc(&g);
	wb_mark(self);
	wb_send(_metadata, self, &g);
	wb_expect(_metadata, self, RNIC_NL_COUNTER_DROP_BAD_HEADER, WB_N, 0);

	/* the first fragment of two */
	memcpy(&g, &f, sizeof(f));
	ip = g.buf + g.ip;
	ip[6] = 0x20;	/* MF */
	rw_set_lengths(&g, g.len - g.ip);
	wb_send(_metadata, self, &g);
	wb_expect(_metadata, self, RNIC_NL_COUNTER_DROP_BAD_HEADER, WB_N, 0);

	/* a bad header checksum */
	memcpy(&g, &f, sizeof(f));
	g.buf[g.ip + 11] ^= 0x40;
	wb_send(_metadata, self, &g);
	wb_expect(_metadata, self, RNIC_NL_COUNTER_DROP_BAD_HEADER, WB_N, 0);

	/* a later fragment: the host's */
	memcpy(&g, &f, sizeof(f));
	ip = g.buf + g.ip;
	ip[6] = 0x00;
	ip[7] = 0x10;	/* offset 128 bytes */
	rw_set_lengths(&g, g.len - g.ip);
	wb_send(_metadata, self, &g);
	wb_expect(_metadata, self, 0, 0, 0);
	wb_after(_metadata, self);
}

/* A UDP length other than the IP payload's: bad_header. */
TEST_F(wire_bad, udp_length_mismatch)
{
	const int delta[] = { -4, -1, 1, 4 };
	struct rw_pkt p = wb_pkt(self, WB_RC);
	struct rw_frame f;
	uint8_t *uh;
	unsigned int i;
	uint16_t ulen;

	for (i = 0; i < ARRAY_SIZE(delta); i++) {
		wb_build(_metadata, self, &f, &p);
		uh = f.buf + f.udp;
		ulen = (uh[4] << 8 | uh[5]) + delta[i];
		rw_put16(uh + 4, ulen);
		wb_mark(self);
		wb_send(_metadata, self, &f);
		wb_expect(_metadata, self, RNIC_NL_COUNTER_DROP_BAD_HEADER,
			  WB_N, 0);
	}
	wb_after(_metadata, self);
}

/*
 * Open a socket that sees every frame on host 0's end of the veth. Host 0
 * sends are seen there in the order they were sent, inside the send; at
 * host 1's end, frames sent on one CPU can arrive after later ones sent
 * on another (each CPU has its own backlog).
 */
static int wb_capture_open(struct __test_metadata *_metadata,
			   FIXTURE_DATA(wire_bad) *self)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
	};
	int rcvbuf = 16 << 20, fd;

	if (setns(self->h.s[0].nsfd, CLONE_NEWNET))
		return -1;
	sll.sll_ifindex = if_nametoindex(wh_netdev[0]);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
			   sizeof(rcvbuf));
		if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
			close(fd);
			fd = -1;
		}
	}
	EXPECT_EQ(0, setns(self->h.init_ns, CLONE_NEWNET));
	return fd;
}

/*
 * The next RoCEv2 packet host 0 sent to host 1's QP @dqpn into @f, within
 * @end (ms); its ICRC checked. Return: its BTH opcode, or -1.
 */
static int wb_capture_next(struct __test_metadata *_metadata, int fd,
			   struct rw_frame *f, bool ipv6, uint32_t dqpn,
			   long end)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	const uint8_t *b = f->buf;
	struct sockaddr_ll from;
	socklen_t from_len;
	ssize_t n;

	while (dp_now_ms() < end) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		from_len = sizeof(from);
		n = recvfrom(fd, f->buf, sizeof(f->buf), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &from_len);
		/* what host 1 sends arrives here too */
		if (n < 0 || from.sll_pkttype != PACKET_OUTGOING)
			continue;
		f->ipv6 = ipv6;
		f->ip = RW_ETH_LEN;
		f->ip_len = ipv6 ? RW_IP6_LEN : RW_IP4_LEN;
		f->udp = f->ip + f->ip_len;
		f->bth = f->udp + RW_UDP_LEN;
		if (n < (ssize_t)(f->bth + RW_BTH_LEN + RW_ICRC_LEN) ||
		    (b[12] << 8 | b[13]) != (ipv6 ? ETH_P_IPV6 : ETH_P_IP) ||
		    (b[f->udp + 2] << 8 | b[f->udp + 3]) != RW_ROCE_PORT ||
		    (b[f->bth + 5] << 16 | b[f->bth + 6] << 8 |
		     b[f->bth + 7]) != (int)dqpn)
			continue;
		/* the IP packet's length, not the frame's */
		f->len = f->ip + (ipv6 ? RW_IP6_LEN + (b[f->ip + 4] << 8 |
						       b[f->ip + 5]) :
				  (b[f->ip + 2] << 8 | b[f->ip + 3]));
		if ((ssize_t)f->len > n ||
		    f->len < f->bth + RW_BTH_LEN + RW_ICRC_LEN)
			continue;
		f->icrc = f->len - RW_ICRC_LEN;
		EXPECT_EQ(rw_icrc(f), (uint32_t)(b[f->icrc] | b[f->icrc + 1] << 8 |
						 b[f->icrc + 2] << 16 |
						 (uint32_t)b[f->icrc + 3] << 24));
		return b[f->bth];
	}
	return -1;
}

/*
 * rdma_rxe's requester asks for a whole message in one READ; rnic's cuts
 * it into chunks of 64 responses. A READ of 256 KiB from the raw socket
 * (256 responses at path MTU 1024) is sent in full, in order, with the
 * right opcodes, PSNs, bytes and ICRCs, and the connection goes on.
 */
TEST_F(wire_bad, read_whole_message)
{
	struct wire_side *s0 = &self->h.s[0];
	const uint32_t mtu = 1024, npkts = WH_BUF / mtu;
	struct rw_pkt p = wb_pkt(self, WB_RC);
	uint32_t i, psn, hdr, len;
	struct rw_frame f;
	struct ibv_wc wc;
	long end;
	int fd, op;

	p.opcode = RW_RC | RW_READ_REQ;
	p.va = (uintptr_t)s0->dbuf.mem;
	p.rkey = s0->dbuf.mr->rkey;
	p.dma_len = WH_BUF;
	p.payload = NULL;
	p.len = 0;
	fd = wb_capture_open(_metadata, self);
	ASSERT_LE(0, fd);
	wb_build(_metadata, self, &f, &p);
	wb_mark(self);
	ASSERT_EQ(0, rw_send(&self->h.tx, &f));
	end = dp_now_ms() + 20 * 1000;
	for (i = 0; i < npkts; i++) {
		op = wb_capture_next(_metadata, fd, &f, variant->ipv6,
				     self->qp[WB_RC][1]->qp_num, end);
		ASSERT_EQ(RW_RC | (i == 0 ? RW_READ_RESP_FIRST :
				   i == npkts - 1 ? RW_READ_RESP_LAST :
				   RW_READ_RESP_MIDDLE), op)
			TH_LOG("response %u of %u", i, npkts);
		psn = f.buf[f.bth + 9] << 16 | f.buf[f.bth + 10] << 8 |
		      f.buf[f.bth + 11];
		ASSERT_EQ((self->epsn[WB_RC] + i) & RW_PSN_MASK, psn);
		hdr = f.bth + RW_BTH_LEN +
		      (i == 0 || i == npkts - 1 ? RW_AETH_LEN : 0);
		len = f.icrc - hdr - (f.buf[f.bth + 1] >> RW_BTH_PAD_SHIFT & 3);
		ASSERT_EQ(mtu, len);
		ASSERT_EQ(0, memcmp(f.buf + hdr, s0->dbuf.mem + i * mtu, mtu))
			TH_LOG("response %u", i);
	}
	close(fd);
	wb_expect(_metadata, self, 0, 0, 1);
	wb_untouched(_metadata, self);
	ASSERT_EQ(IBV_QPS_RTS, dp_qp_state(self->qp[WB_RC][0]));

	/*
	 * It goes on at the PSN after the READ's responses. (Host 1's real
	 * QP is now behind the PSNs the raw socket used: not used again.)
	 */
	p = wb_pkt(self, WB_RC);
	p.psn = (self->epsn[WB_RC] + npkts) & RW_PSN_MASK;
	wb_real_recv(_metadata, self, WB_RC);
	wb_build(_metadata, self, &f, &p);
	ASSERT_EQ(0, rw_send(&self->h.tx, &f));
	ASSERT_POLL1(s0->rcq, &wc);
	ASSERT_WC(&wc, 12, IBV_WC_SUCCESS, IBV_WC_RECV);
	ASSERT_EQ(WB_LEN, wc.byte_len);
	ASSERT_EQ(0, memcmp(s0->sbuf.mem + 8, self->payload, WB_LEN));
}

TEST_HARNESS_MAIN
