/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 packets from userspace, for the tests of the udp link's receive
 * path (wire_bad) and the wire fuzzer (wire_fuzz): a packet builder
 * (Ethernet, IPv4 or IPv6, UDP to port 4791, BTH, the extended headers of
 * the opcode, payload, pad and ICRC), a raw AF_PACKET sender, and the two
 * hosts they run between.
 *
 * The hosts are two network namespaces joined by a veth pair, an rnic
 * device bound to each end (wire_hosts_setup()). Packets are written on
 * host 1's end and so arrive on host 0's, from host 1's addresses by
 * default: to the device on host 0 they look like its peer's.
 *
 * The ICRC is IBTA's (Annex A17), as rdma_rxe computes it: a CRC32 (the
 * Ethernet polynomial, reflected, initial and final inversion) over
 * eight bytes of ones standing for the LRH, the IP, UDP and BTH headers
 * with the fields a router may change set to ones (IPv4 TOS, TTL and
 * checksum; IPv6 traffic class, flow label and hop limit; the UDP
 * checksum; the BTH byte before the destination QP), then everything
 * after the BTH up to the ICRC, stored little-endian.
 */
#ifndef RNIC_WIRE_H
#define RNIC_WIRE_H

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rnic_dp_test.h"

#define RW_ROCE_PORT	4791
#define RW_ETH_LEN	14
#define RW_IP4_LEN	20
#define RW_IP6_LEN	40
#define RW_UDP_LEN	8
#define RW_BTH_LEN	12
#define RW_DETH_LEN	8
#define RW_RETH_LEN	16
#define RW_ATMETH_LEN	28
#define RW_AETH_LEN	4
#define RW_ATMACK_LEN	8
#define RW_IMM_LEN	4
#define RW_ICRC_LEN	4
/* The largest frame built: headers, a 4096-byte payload and some spare. */
#define RW_FRAME_MAX	8192

/* BTH opcodes: transport (top 3 bits) | operation */
#define RW_RC		0x00
#define RW_UC		0x20
#define RW_UD		0x60
#define RW_SEND_FIRST		0
#define RW_SEND_MIDDLE		1
#define RW_SEND_LAST		2
#define RW_SEND_LAST_IMM	3
#define RW_SEND_ONLY		4
#define RW_SEND_ONLY_IMM	5
#define RW_WRITE_FIRST		6
#define RW_WRITE_MIDDLE		7
#define RW_WRITE_LAST		8
#define RW_WRITE_LAST_IMM	9
#define RW_WRITE_ONLY		10
#define RW_WRITE_ONLY_IMM	11
#define RW_READ_REQ		12
#define RW_READ_RESP_FIRST	13
#define RW_READ_RESP_MIDDLE	14
#define RW_READ_RESP_LAST	15
#define RW_READ_RESP_ONLY	16
#define RW_ACK			17
#define RW_ATOMIC_ACK		18
#define RW_CMP_SWAP		19
#define RW_FETCH_ADD		20
#define RW_NOPERS		21

/* BTH flags byte */
#define RW_BTH_SE		0x80
#define RW_BTH_PAD_SHIFT	4
#define RW_BTH_TVER_MASK	0x0f
#define RW_PKEY_DEFAULT		0xffff
#define RW_PSN_MASK		0xffffff

/* Extended headers after the BTH, in wire order. */
#define RW_HDR_DETH	(1u << 0)
#define RW_HDR_RETH	(1u << 1)
#define RW_HDR_ATMETH	(1u << 2)
#define RW_HDR_AETH	(1u << 3)
#define RW_HDR_ATMACK	(1u << 4)
#define RW_HDR_IMM	(1u << 5)

/* The extended headers of an RC/UC operation (UD adds the DETH). */
static inline unsigned int rw_oper_hdrs(uint8_t oper)
{
	static const uint8_t hdrs[RW_NOPERS] = {
		[RW_SEND_LAST_IMM] = RW_HDR_IMM,
		[RW_SEND_ONLY_IMM] = RW_HDR_IMM,
		[RW_WRITE_FIRST] = RW_HDR_RETH,
		[RW_WRITE_LAST_IMM] = RW_HDR_IMM,
		[RW_WRITE_ONLY] = RW_HDR_RETH,
		[RW_WRITE_ONLY_IMM] = RW_HDR_RETH | RW_HDR_IMM,
		[RW_READ_REQ] = RW_HDR_RETH,
		[RW_READ_RESP_FIRST] = RW_HDR_AETH,
		[RW_READ_RESP_LAST] = RW_HDR_AETH,
		[RW_READ_RESP_ONLY] = RW_HDR_AETH,
		[RW_ACK] = RW_HDR_AETH,
		[RW_ATOMIC_ACK] = RW_HDR_AETH | RW_HDR_ATMACK,
		[RW_CMP_SWAP] = RW_HDR_ATMETH,
		[RW_FETCH_ADD] = RW_HDR_ATMETH,
	};

	return oper < RW_NOPERS ? hdrs[oper] : 0;
}

static inline unsigned int rw_opcode_hdrs(uint8_t opcode)
{
	unsigned int h = rw_oper_hdrs(opcode & 0x1f);

	return (opcode & 0xe0) == RW_UD ? h | RW_HDR_DETH : h;
}

/* Bytes of the extended headers @hdrs. */
static inline unsigned int rw_hdrs_len(unsigned int hdrs)
{
	return (hdrs & RW_HDR_DETH ? RW_DETH_LEN : 0) +
	       (hdrs & RW_HDR_RETH ? RW_RETH_LEN : 0) +
	       (hdrs & RW_HDR_ATMETH ? RW_ATMETH_LEN : 0) +
	       (hdrs & RW_HDR_AETH ? RW_AETH_LEN : 0) +
	       (hdrs & RW_HDR_ATMACK ? RW_ATMACK_LEN : 0) +
	       (hdrs & RW_HDR_IMM ? RW_IMM_LEN : 0);
}

/* ---- CRC32 (IEEE 802.3, reflected) --------------------------------- */

static inline uint32_t rw_crc32(uint32_t crc, const uint8_t *p, size_t len)
{
	static uint32_t table[256];
	uint32_t c;
	int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- building ------------------------------------------------------ */

/**
 * struct rw_addr - where a packet goes and comes from
 * @ipv6: IPv6, else IPv4 (the GIDs are then ::ffff:a.b.c.d)
 * @dmac, @smac: Ethernet destination and source
 * @dgid, @sgid: IP destination and source, as GIDs
 */
struct rw_addr {
	bool ipv6;
	uint8_t dmac[6];
	uint8_t smac[6];
	uint8_t dgid[16];
	uint8_t sgid[16];
};

/**
 * struct rw_pkt - what a packet says; zero is a valid default for most
 * @opcode: BTH opcode (transport | operation)
 * @se: BTH solicited event
 * @tver: BTH transport header version (0)
 * @pkey: BTH P_Key; 0 means the default, 0xffff
 * @dqpn: destination QP
 * @ack_req: BTH AckReq
 * @psn: PSN
 * @qkey, @sqpn: DETH (UD)
 * @va, @rkey, @dma_len: RETH, and the AtomicETH's address and key
 * @swap_add, @compare: AtomicETH
 * @aeth: AETH (syndrome << 24 | MSN)
 * @orig: AtomicAckETH
 * @imm: ImmDt, host order
 * @payload: @len bytes, or NULL for zeroes
 * @len: payload bytes (before the pad)
 * @pad: with @pad_lie, the pad count the BTH says, and no pad byte is
 *	added; else the BTH says, and the frame has, the pad that rounds
 *	@len up to a multiple of 4
 * @pad_lie: see @pad
 * @sport: UDP source port; 0 means 0xc000
 */
struct rw_pkt {
	uint8_t opcode;
	bool se;
	uint8_t tver;
	uint16_t pkey;
	uint32_t dqpn;
	bool ack_req;
	uint32_t psn;
	uint32_t qkey;
	uint32_t sqpn;
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
	uint64_t swap_add;
	uint64_t compare;
	uint32_t aeth;
	uint64_t orig;
	uint32_t imm;
	const void *payload;
	uint32_t len;
	uint8_t pad;
	bool pad_lie;
	uint16_t sport;
};

/**
 * struct rw_frame - a built frame
 * @buf: its bytes
 * @len: the frame's length
 * @ip: offset of the IP header (after the Ethernet header)
 * @ip_len: bytes of the IP header
 * @udp: offset of the UDP header
 * @bth: offset of the BTH
 * @icrc: offset of the ICRC (the IP packet ends after it)
 * @ipv6: IPv6, else IPv4
 */
struct rw_frame {
	uint8_t buf[RW_FRAME_MAX];
	uint32_t len;
	uint32_t ip;
	uint32_t ip_len;
	uint32_t udp;
	uint32_t bth;
	uint32_t icrc;
	bool ipv6;
};

static inline void rw_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void rw_put32(uint8_t *p, uint32_t v)
{
	rw_put16(p, v >> 16);
	rw_put16(p + 2, v);
}

static inline void rw_put64(uint8_t *p, uint64_t v)
{
	rw_put32(p, v >> 32);
	rw_put32(p + 4, v);
}

/* The Internet checksum of @len bytes, added to @sum (not folded). */
static inline uint32_t rw_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static inline uint16_t rw_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* The ICRC of the IP packet of @f, up to @f->icrc. */
static inline uint32_t rw_icrc(const struct rw_frame *f)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint8_t ph[RW_IP6_LEN + RW_UDP_LEN + RW_BTH_LEN];
	uint32_t ph_len = f->ip_len + RW_UDP_LEN + RW_BTH_LEN;
	uint32_t crc;

	memcpy(ph, f->buf + f->ip, ph_len);
	if (!f->ipv6) {
		ph[1] = 0xff;			/* TOS */
		ph[8] = 0xff;			/* TTL */
		ph[10] = ph[11] = 0xff;		/* header checksum */
	} else {
		ph[0] |= 0x0f;			/* traffic class, flow label */
		ph[1] = ph[2] = ph[3] = 0xff;
		ph[7] = 0xff;			/* hop limit */
	}
	ph[f->ip_len + 6] = ph[f->ip_len + 7] = 0xff;	/* UDP checksum */
	ph[f->ip_len + RW_UDP_LEN + 4] = 0xff;	/* BTH byte before the QPN */
	crc = rw_crc32(0, lrh, sizeof(lrh));
	crc = rw_crc32(crc, ph, ph_len);
	return rw_crc32(crc, f->buf + f->bth + RW_BTH_LEN,
			f->icrc - f->bth - RW_BTH_LEN);
}

/* Write the ICRC of @f at @f->icrc. */
static inline void rw_set_icrc(struct rw_frame *f)
{
	uint32_t crc = rw_icrc(f);
	uint8_t *p = f->buf + f->icrc;

	p[0] = crc;
	p[1] = crc >> 8;
	p[2] = crc >> 16;
	p[3] = crc >> 24;
}

/*
 * Make the IP and UDP lengths say that the IP packet is @ip_bytes long
 * (from @f->ip), with the IPv4 header checksum right and the UDP checksum
 * 0 (none); the frame is not changed otherwise.
 */
static inline void rw_set_lengths(struct rw_frame *f, uint32_t ip_bytes)
{
	uint8_t *ip = f->buf + f->ip, *uh = f->buf + f->udp;

	if (!f->ipv6) {
		rw_put16(ip + 2, ip_bytes);
		rw_put16(ip + 10, 0);
		rw_put16(ip + 10, rw_csum_fold(rw_csum_add(0, ip, f->ip_len)));
	} else {
		rw_put16(ip + 4, ip_bytes - f->ip_len);
	}
	rw_put16(uh + 4, ip_bytes - f->ip_len);
	rw_put16(uh + 6, 0);
}

/*
 * The UDP checksum over the pseudo-header and the UDP length's bytes (the
 * ICRC among them: written after it, which masks the checksum).
 */
static inline void rw_set_udp_csum(struct rw_frame *f)
{
	uint8_t *ip = f->buf + f->ip, *uh = f->buf + f->udp;
	uint32_t udp_len = uh[4] << 8 | uh[5], sum;

	rw_put16(uh + 6, 0);
	if (f->udp + udp_len > f->len)
		return;
	sum = f->ipv6 ? rw_csum_add(0, ip + 8, 32) : rw_csum_add(0, ip + 12, 8);
	sum += IPPROTO_UDP + udp_len;
	sum = rw_csum_add(sum, uh, udp_len);
	rw_put16(uh + 6, rw_csum_fold(sum) ?: 0xffff);
}

/* Write the extended headers @hdrs of @p at @q; the end. */
static inline uint8_t *rw_put_hdrs(uint8_t *q, const struct rw_pkt *p,
				   unsigned int hdrs)
{
	if (hdrs & RW_HDR_DETH) {
		rw_put32(q, p->qkey);
		rw_put32(q + 4, p->sqpn & RW_PSN_MASK);
		q += RW_DETH_LEN;
	}
	if (hdrs & RW_HDR_RETH) {
		rw_put64(q, p->va);
		rw_put32(q + 8, p->rkey);
		rw_put32(q + 12, p->dma_len);
		q += RW_RETH_LEN;
	}
	if (hdrs & RW_HDR_ATMETH) {
		rw_put64(q, p->va);
		rw_put32(q + 8, p->rkey);
		rw_put64(q + 12, p->swap_add);
		rw_put64(q + 20, p->compare);
		q += RW_ATMETH_LEN;
	}
	if (hdrs & RW_HDR_AETH) {
		rw_put32(q, p->aeth);
		q += RW_AETH_LEN;
	}
	if (hdrs & RW_HDR_ATMACK) {
		rw_put64(q, p->orig);
		q += RW_ATMACK_LEN;
	}
	if (hdrs & RW_HDR_IMM) {
		rw_put32(q, p->imm);
		q += RW_IMM_LEN;
	}
	return q;
}

/**
 * rw_build() - build a whole, valid-as-described RoCEv2 frame
 * @f: where
 * @a: the addresses
 * @p: the packet
 *
 * The extended headers are those of @p->opcode (none for an opcode
 * nobody knows); IP and UDP lengths and checksums and the ICRC are
 * right. To change a built frame: rw_set_lengths(), rw_set_icrc(),
 * rw_set_udp_csum(), in this order. Return: 0, or -1 if it does not fit in @f.
 */
static inline int rw_build(struct rw_frame *f, const struct rw_addr *a,
			   const struct rw_pkt *p)
{
	unsigned int hdrs = rw_opcode_hdrs(p->opcode);
	uint32_t pad = p->pad_lie ? 0 : -p->len & 3;
	uint8_t *q;

	memset(f, 0, offsetof(struct rw_frame, len));
	f->ipv6 = a->ipv6;
	f->ip = RW_ETH_LEN;
	f->ip_len = a->ipv6 ? RW_IP6_LEN : RW_IP4_LEN;
	f->udp = f->ip + f->ip_len;
	f->bth = f->udp + RW_UDP_LEN;
	f->icrc = f->bth + RW_BTH_LEN + rw_hdrs_len(hdrs) + p->len + pad;
	f->len = f->icrc + RW_ICRC_LEN;
	if (f->len > sizeof(f->buf))
		return -1;

	q = f->buf;
	memcpy(q, a->dmac, 6);
	memcpy(q + 6, a->smac, 6);
	rw_put16(q + 12, a->ipv6 ? ETH_P_IPV6 : ETH_P_IP);
	q = f->buf + f->ip;
	if (!a->ipv6) {
		q[0] = 0x45;
		rw_put16(q + 6, 0x4000);	/* DF */
		q[8] = 64;
		q[9] = IPPROTO_UDP;
		memcpy(q + 12, a->sgid + 12, 4);
		memcpy(q + 16, a->dgid + 12, 4);
	} else {
		q[0] = 0x60;
		q[6] = IPPROTO_UDP;
		q[7] = 64;
		memcpy(q + 8, a->sgid, 16);
		memcpy(q + 24, a->dgid, 16);
	}
	q = f->buf + f->udp;
	rw_put16(q, p->sport ?: 0xc000);
	rw_put16(q + 2, RW_ROCE_PORT);
	q = f->buf + f->bth;
	q[0] = p->opcode;
	q[1] = (p->se ? RW_BTH_SE : 0) |
	       (p->pad_lie ? p->pad & 3 : pad) << RW_BTH_PAD_SHIFT |
	       (p->tver & RW_BTH_TVER_MASK);
	rw_put16(q + 2, p->pkey ?: RW_PKEY_DEFAULT);
	rw_put32(q + 4, p->dqpn & RW_PSN_MASK);
	rw_put32(q + 8, (p->ack_req ? 1u << 31 : 0) | (p->psn & RW_PSN_MASK));
	q = rw_put_hdrs(q + RW_BTH_LEN, p, hdrs);
	if (p->payload)
		memcpy(q, p->payload, p->len);
	rw_set_lengths(f, f->len - f->ip);
	rw_set_icrc(f);
	rw_set_udp_csum(f);
	return 0;
}

/* ---- sending ------------------------------------------------------- */

/**
 * struct rw_tx - a raw socket on a netdev
 * @fd: the AF_PACKET socket
 * @sll: its address (the netdev's index)
 */
struct rw_tx {
	int fd;
	struct sockaddr_ll sll;
};

/* Open @tx on @ifname of the caller's namespace; 0 or -errno. */
static inline int rw_tx_open(struct rw_tx *tx, const char *ifname)
{
	int sndbuf = 4 << 20;

	memset(&tx->sll, 0, sizeof(tx->sll));
	tx->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (tx->fd < 0)
		return -errno;
	setsockopt(tx->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	tx->sll.sll_family = AF_PACKET;
	tx->sll.sll_ifindex = if_nametoindex(ifname);
	tx->sll.sll_halen = 6;
	if (!tx->sll.sll_ifindex) {
		close(tx->fd);
		tx->fd = -1;
		return -ENODEV;
	}
	return 0;
}

static inline void rw_tx_close(struct rw_tx *tx)
{
	if (tx->fd >= 0)
		close(tx->fd);
	tx->fd = -1;
}

/* Send the first @len bytes of @f; 0 or -errno. */
static inline int rw_send_len(struct rw_tx *tx, const struct rw_frame *f,
			      uint32_t len)
{
	ssize_t n;

	do {
		n = sendto(tx->fd, f->buf, len, 0,
			   (const struct sockaddr *)&tx->sll, sizeof(tx->sll));
	} while (n < 0 && errno == ENOBUFS);
	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

static inline int rw_send(struct rw_tx *tx, const struct rw_frame *f)
{
	return rw_send_len(tx, f, f->len);
}

/* The MAC address of @ifname in the caller's namespace; 0 or -errno. */
static inline int rw_mac(const char *ifname, uint8_t *mac)
{
	struct ifreq ifr = {};
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		ret = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return ret;
}

/* ---- two hosts ----------------------------------------------------- */

#define WH_MTU		9000
#define WH_WAIT_MS	10000
#define WH_BUF		(256 * 1024)

static const char *const wh_netdev[2] = { "t_wb0", "t_wb1" };
static const char *const wh_addr4[2] = { "10.79.0.1", "10.79.0.2" };
static const char *const wh_addr6[2] = { "fd79::1", "fd79::2" };
static const char *const wh_mac[2] = { "02:79:00:00:00:01", "02:79:00:00:00:02" };
static const uint8_t wh_gid4[2][16] = {
	{ [10] = 0xff, [11] = 0xff, 10, 79, 0, 1 },
	{ [10] = 0xff, [11] = 0xff, 10, 79, 0, 2 },
};
static const uint8_t wh_gid6[2][16] = {
	{ 0xfd, 0x79, [15] = 1 },
	{ 0xfd, 0x79, [15] = 2 },
};

/**
 * struct wire_side - one host
 * @nsfd: its network namespace
 * @g: a netlink socket of that namespace
 * @dev: the rnic device bound to its end of the veth pair
 * @mac: that end's MAC address
 * @ctx, @pd, @scq, @rcq: a context opened inside the namespace
 * @gid: its GID of the hosts' family
 * @gid_index: its index
 * @sbuf: where messages come from
 * @dbuf: where they go (and injected packets aim)
 */
struct wire_side {
	int nsfd;
	struct rnic_genl *g;
	char dev[RNIC_LINK_NAME_SIZE];
	uint8_t mac[6];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	union ibv_gid gid;
	int gid_index;
	struct dp_buf sbuf;
	struct dp_buf dbuf;
};

/**
 * struct wire_hosts - two hosts and a raw sender on host 1's end
 * @init_ns: the namespace the test runs in between steps
 * @ipv6: the GIDs are IPv6, else IPv4-mapped
 * @s: host 0 (where packets are injected) and host 1 (its peer)
 * @tx: a raw socket on host 1's end of the veth pair
 * @addr: from host 1 to host 0, for rw_build()
 */
struct wire_hosts {
	int init_ns;
	bool ipv6;
	struct wire_side s[2];
	struct rw_tx tx;
	struct rw_addr addr;
};

static inline int wh_self_ns(void)
{
	return open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
}

/* Wait for @gid in @ctx's GID table; its index or -1. */
static inline int wh_wait_gid(struct ibv_context *ctx, const uint8_t *gid)
{
	long end = dp_now_ms() + WH_WAIT_MS;
	int index;

	while ((index = dp_find_gid(ctx, gid)) < 0 && dp_now_ms() < end)
		usleep(10000);
	return index;
}

static inline void wh_side_setup(struct __test_metadata *_metadata,
				 struct wire_hosts *h, int i)
{
	struct wire_side *s = &h->s[i];
	const uint8_t *gid = h->ipv6 ? wh_gid6[i] : wh_gid4[i];

	ASSERT_EQ(0, setns(s->nsfd, CLONE_NEWNET));
	ASSERT_EQ(0, rnic_sh("ip link set lo up && ip addr add %s/24 dev %s && ip -6 addr add %s/64 dev %s nodad && ip link set %s up",
			     wh_addr4[i], wh_netdev[i], wh_addr6[i],
			     wh_netdev[i], wh_netdev[i]));
	ASSERT_EQ(0, rnic_sh("ip neigh add %s lladdr %s dev %s nud permanent && ip neigh add %s lladdr %s dev %s nud permanent",
			     wh_addr4[!i], wh_mac[!i], wh_netdev[i],
			     wh_addr6[!i], wh_mac[!i], wh_netdev[i]));
	ASSERT_EQ(0, rw_mac(wh_netdev[i], s->mac));
	s->g = do_ptr(rnic_genl_open());
	snprintf(s->dev, sizeof(s->dev), "t_wb%c%d", 'a' + i, getpid());
	do_link_add(s->g, s->dev, wh_netdev[i]);
	s->ctx = do_ptr(rnic_ibv_open(s->dev));
	s->pd = do_ptr(ibv_alloc_pd(s->ctx));
	s->scq = do_ptr(ibv_create_cq(s->ctx, DP_CQE, NULL, NULL, 0));
	s->rcq = do_ptr(ibv_create_cq(s->ctx, DP_CQE, NULL, NULL, 0));
	s->gid_index = wh_wait_gid(s->ctx, gid);
	ASSERT_LE(0, s->gid_index) TH_LOG("%s has no GID", s->dev);
	memcpy(s->gid.raw, gid, 16);
	do_buf_alloc(s->pd, WH_BUF, DP_ACCESS_ALL, &s->sbuf);
	do_buf_alloc(s->pd, WH_BUF, DP_ACCESS_ALL, &s->dbuf);
}

/*
 * Two namespaces joined by a veth pair, addresses and permanent
 * neighbours on both ends (why: wire.c), a device
 * bound to each with a context on it, and the raw sender on host 1's
 * end. Leaves the caller in @h->init_ns.
 */
static inline void wire_hosts_setup(struct __test_metadata *_metadata,
				    struct wire_hosts *h, bool ipv6)
{
	int i;

	memset(h, 0, sizeof(*h));
	h->ipv6 = ipv6;
	h->tx.fd = -1;
	for (i = 0; i < 2; i++)
		h->s[i].nsfd = -1;
	h->init_ns = wh_self_ns();
	ASSERT_LE(0, h->init_ns);
	for (i = 1; i >= 0; i--) {
		ASSERT_EQ(0, setns(h->init_ns, CLONE_NEWNET));
		ASSERT_EQ(0, unshare(CLONE_NEWNET));
		h->s[i].nsfd = wh_self_ns();
		ASSERT_LE(0, h->s[i].nsfd);
	}
	/* in host 0's namespace now */
	ASSERT_EQ(0, rnic_sh("ip link add %s mtu %d address %s type veth peer name %s mtu %d address %s netns /proc/%d/fd/%d",
			     wh_netdev[0], WH_MTU, wh_mac[0], wh_netdev[1],
			     WH_MTU, wh_mac[1], getpid(), h->s[1].nsfd));
	for (i = 0; i < 2; i++)
		wh_side_setup(_metadata, h, i);
	/* in host 1's namespace */
	ASSERT_EQ(0, rw_tx_open(&h->tx, wh_netdev[1]));
	ASSERT_EQ(0, setns(h->init_ns, CLONE_NEWNET));
	h->addr.ipv6 = ipv6;
	memcpy(h->addr.dmac, h->s[0].mac, 6);
	memcpy(h->addr.smac, h->s[1].mac, 6);
	memcpy(h->addr.dgid, h->s[0].gid.raw, 16);
	memcpy(h->addr.sgid, h->s[1].gid.raw, 16);
	memcpy(h->tx.sll.sll_addr, h->s[0].mac, 6);
}

/*
 * Close everything of both hosts; each device must then account no
 * object (netlink RES_GET) before it is removed.
 */
static inline void wire_hosts_teardown(struct __test_metadata *_metadata,
				       struct wire_hosts *h)
{
	struct rnic_res_info *res = calloc(1, sizeof(*res));
	int i;

	rw_tx_close(&h->tx);
	if (h->init_ns >= 0)
		EXPECT_EQ(0, setns(h->init_ns, CLONE_NEWNET));
	for (i = 0; i < 2; i++) {
		struct wire_side *s = &h->s[i];

		EXPECT_EQ(0, dp_buf_free(&s->sbuf));
		EXPECT_EQ(0, dp_buf_free(&s->dbuf));
		if (s->scq)
			EXPECT_EQ(0, ibv_destroy_cq(s->scq));
		if (s->rcq)
			EXPECT_EQ(0, ibv_destroy_cq(s->rcq));
		if (s->pd)
			EXPECT_EQ(0, ibv_dealloc_pd(s->pd));
		if (s->ctx)
			EXPECT_EQ(0, ibv_close_device(s->ctx));
		if (s->g && res) {
			EXPECT_EQ(0, rnic_res_get(s->g, s->dev, res));
			EXPECT_TRUE(dp_res_empty(res)) TH_LOG("%s", s->dev);
		}
		if (s->g) {
			EXPECT_EQ(0, rnic_link_del(s->g, s->dev));
			rnic_genl_close(s->g);
		}
	}
	/* a namespace that goes takes its end of the veth, and the other */
	for (i = 0; i < 2; i++)
		if (h->s[i].nsfd >= 0)
			close(h->s[i].nsfd);
	if (h->init_ns >= 0)
		close(h->init_ns);
	free(res);
}

/* All counters of host @i's device, or zeroes on failure. */
static inline void wh_counters(struct wire_hosts *h, int i, uint64_t *c)
{
	struct rnic_stat_info info;

	memset(c, 0, sizeof(info.counters));
	if (!rnic_stat_get(h->s[i].g, h->s[i].dev, &info))
		memcpy(c, info.counters, sizeof(info.counters));
}

#endif /* RNIC_WIRE_H */
