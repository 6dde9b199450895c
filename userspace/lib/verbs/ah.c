// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: address handles, and the address that answers a received UD
 * message.
 *
 * A UD receive buffer starts with 40 bytes for the GRH. For RoCEv2 over
 * IPv6 they hold the IPv6 header; over IPv4 the IPv4 header fills the last
 * 20 of them and the first 20 are undefined. Which one arrived is decided
 * as rdma-core decides it: not IPv6 version 6 but IPv4 version 4 at byte
 * 20 is IPv4; version 6 is IPv6 unless bytes 20..39 are an IPv4 header of
 * 5 words with a valid checksum.
 */
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The IPv4 header inside the 40-byte GRH buffer: offset and fields. */
#define GRH_IPV4_OFF		20
#define IPV4_HDR_LEN		20
#define IPV4_VER_IHL		0	/* version << 4 | header words */
#define IPV4_TOS		1
#define IPV4_TTL		8
#define IPV4_SADDR		12
#define IPV4_DADDR		16
#define IPV4_VER_IHL_ROCE	0x45	/* version 4, 5 words: no options */

/* IPv6 next header of RoCEv1 (an IB GRH); rnic's GIDs are all RoCEv2. */
#define IB_NEXT_HDR_ROCE_V1	0x1b

#define FLOW_LABEL_MASK		0xfffff

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct rnic_create_ah cmd = {
		.size = sizeof(cmd),
		.pd_handle = pd->handle,
		.attr = {
			.flow_label = attr->grh.flow_label,
			.sgid_index = attr->grh.sgid_index,
			.hop_limit = attr->grh.hop_limit,
			.traffic_class = attr->grh.traffic_class,
			.sl = attr->sl,
			.is_global = attr->is_global ? 1 : 0,
			.port_num = attr->port_num,
			.static_rate = attr->static_rate,
			.src_path_bits = attr->src_path_bits,
			.dlid = attr->dlid,
		},
	};
	struct ibv_ah *ah;
	int ret;

	memcpy(cmd.attr.dgid, attr->grh.dgid.raw, sizeof(cmd.attr.dgid));
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ret = rnic_cmd(pd->context, RNIC_IOCTL_CREATE_AH, &cmd);
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->context = pd->context;
	ah->pd = pd;
	ah->handle = cmd.out_handle;
	return ah;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	int ret;

	ret = rnic_destroy_obj(ah->context, RNIC_IOCTL_DESTROY_AH, ah->handle);
	if (ret)
		return ret;
	free(ah);
	return 0;
}

/* Is the 20-byte IPv4 header @h intact: ones' complement sum all ones? */
static int ipv4_csum_ok(const uint8_t *h)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < IPV4_HDR_LEN; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* 4 or 6: the IP version of what a GRH buffer holds; -1 if neither. */
static int grh_ip_version(const struct ibv_grh *grh)
{
	const uint8_t *ip4 = (const uint8_t *)grh + GRH_IPV4_OFF;

	if (be32toh(grh->version_tclass_flow) >> 28 != 6)
		return ip4[IPV4_VER_IHL] >> 4 == 4 ? 4 : -1;
	if (ip4[IPV4_VER_IHL] == IPV4_VER_IHL_ROCE && ipv4_csum_ok(ip4))
		return 4;
	return 6;
}

/*
 * The index of @gid in the GID table of @port_num, or -1 with errno set
 * (EINVAL when it is not there; an empty entry reads as the zero GID,
 * which is never ours).
 */
static int find_gid_index(struct ibv_context *context, uint8_t port_num,
			  const union ibv_gid *gid)
{
	static const union ibv_gid zero;
	struct ibv_port_attr port;
	union ibv_gid entry;
	int i, ret;

	ret = ibv_query_port(context, port_num, &port);
	if (ret) {
		errno = ret;
		return -1;
	}
	if (!memcmp(gid, &zero, sizeof(*gid))) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < port.gid_tbl_len; i++) {
		if (ibv_query_gid(context, port_num, i, &entry))
			return -1;
		if (!memcmp(&entry, gid, sizeof(entry)))
			return i;
	}
	errno = EINVAL;
	return -1;
}

/* ::ffff:a.b.c.d from an IPv4 address in network byte order at @addr. */
static void ipv4_to_gid(const uint8_t *addr, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], addr, 4);
}

static int ah_attr_from_ipv4(struct ibv_context *context, uint8_t port_num,
			     const uint8_t *ip4, struct ibv_ah_attr *ah_attr)
{
	union ibv_gid ours;
	int index;

	/* 224.0.0.0/4: a multicast address is never in the GID table. */
	if ((ip4[IPV4_DADDR] & 0xf0) == 0xe0) {
		errno = EINVAL;
		return -1;
	}
	ipv4_to_gid(&ip4[IPV4_DADDR], &ours);
	index = find_gid_index(context, port_num, &ours);
	if (index < 0)
		return -1;
	ipv4_to_gid(&ip4[IPV4_SADDR], &ah_attr->grh.dgid);
	ah_attr->grh.sgid_index = (uint8_t)index;
	ah_attr->grh.hop_limit = ip4[IPV4_TTL];
	ah_attr->grh.traffic_class = ip4[IPV4_TOS];
	/* IPv4 has no flow label: grh.flow_label stays 0. */
	return 0;
}

static int ah_attr_from_ipv6(struct ibv_context *context, uint8_t port_num,
			     const struct ibv_grh *grh,
			     struct ibv_ah_attr *ah_attr)
{
	uint32_t flow = be32toh(grh->version_tclass_flow);
	int index;

	/* ff00::/8: a multicast GID is never in the GID table. */
	if (grh->dgid.raw[0] == 0xff) {
		errno = EINVAL;
		return -1;
	}
	if (grh->next_hdr == IB_NEXT_HDR_ROCE_V1) {
		/* A RoCEv1 packet: sent to none of our (RoCEv2) GIDs. */
		errno = EINVAL;
		return -1;
	}
	if (grh->next_hdr != IPPROTO_UDP) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	index = find_gid_index(context, port_num, &grh->dgid);
	if (index < 0)
		return -1;
	ah_attr->grh.dgid = grh->sgid;
	ah_attr->grh.flow_label = flow & FLOW_LABEL_MASK;
	ah_attr->grh.sgid_index = (uint8_t)index;
	ah_attr->grh.hop_limit = grh->hop_limit;
	ah_attr->grh.traffic_class = (uint8_t)(flow >> 20);
	return 0;
}

int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
			struct ibv_wc *wc, struct ibv_grh *grh,
			struct ibv_ah_attr *ah_attr)
{
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;

	ah_attr->is_global = 1;
	switch (grh_ip_version(grh)) {
	case 4:
		return ah_attr_from_ipv4(context, port_num,
					 (const uint8_t *)grh + GRH_IPV4_OFF,
					 ah_attr);
	case 6:
		return ah_attr_from_ipv6(context, port_num, grh, ah_attr);
	default:
		errno = EPROTONOSUPPORT;
		return -1;
	}
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
				     struct ibv_grh *grh, uint8_t port_num)
{
	struct ibv_ah_attr ah_attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &ah_attr))
		return NULL;
	return ibv_create_ah(pd, &ah_attr);
}
