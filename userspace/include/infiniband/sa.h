/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * rnic: software RDMA NIC - subnet administration records (librnic).
 *
 * The record types that <rdma/rdma_cma.h> hands to applications (an id's
 * path, RDMA_OPTION_IB_PATH), with rdma-core's names and layouts (rdma-core
 * 44, checked by the ABI probe). rnic has no subnet manager: on RoCE a
 * path is made by the connection manager from the addresses, and these
 * structs only carry it.
 */
#ifndef INFINIBAND_SA_H
#define INFINIBAND_SA_H

#include <linux/types.h>
#include <infiniband/verbs.h>

/*
 * A path as the connection manager reports it (struct rdma_route's
 * path_rec). Multi-byte fields marked __be are in network byte order;
 * mtu and rate are enum ibv_mtu and enum ibv_rate values.
 */
struct ibv_sa_path_rec {
	union ibv_gid dgid;
	union ibv_gid sgid;
	__be16 dlid;
	__be16 slid;
	int raw_traffic;
	__be32 flow_label;
	uint8_t hop_limit;
	uint8_t traffic_class;
	int reversible;
	uint8_t numb_path;
	__be16 pkey;
	uint8_t sl;
	uint8_t mtu_selector;
	uint8_t mtu;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t preference;
};

/* A multicast group's member record (no SA on RoCE: carried only). */
struct ibv_sa_mcmember_rec {
	union ibv_gid mgid;
	union ibv_gid port_gid;
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_selector;
	uint8_t mtu;
	uint8_t traffic_class;
	uint16_t pkey;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t sl;
	uint32_t flow_label;
	uint8_t hop_limit;
	uint8_t scope;
	uint8_t join_state;
	int proxy_join;
};

/* A service record (carried only). */
struct ibv_sa_service_rec {
	uint64_t id;
	union ibv_gid gid;
	uint16_t pkey;
	uint32_t lease;
	uint8_t key[16];
	uint8_t name[64];
	uint8_t data8[16];
	uint16_t data16[8];
	uint32_t data32[4];
	uint64_t data64[2];
};

/* reversible_numpath's top bit */
#define IBV_PATH_RECORD_REVERSIBLE 0x80

/*
 * A path record in its wire form (64 bytes, network byte order), as
 * RDMA_OPTION_IB_PATH takes it. Packed fields: flowlabel_hoplimit is
 * flow label << 8 | hop limit; reversible_numpath, qosclass_sl, mtu, rate
 * and packetlifetime keep a selector or flag in their top bits.
 */
struct ibv_path_record {
	__be64 service_id;
	union ibv_gid dgid;
	union ibv_gid sgid;
	__be16 dlid;
	__be16 slid;
	__be32 flowlabel_hoplimit;
	uint8_t tclass;
	uint8_t reversible_numpath;
	__be16 pkey;
	__be16 qosclass_sl;
	uint8_t mtu;
	uint8_t rate;
	uint8_t packetlifetime;
	uint8_t preference;
	uint8_t reserved[6];
};

/* struct ibv_path_data's flags: which use a path is for */
#define IBV_PATH_FLAG_GMP (1 << 0)
#define IBV_PATH_FLAG_PRIMARY (1 << 1)
#define IBV_PATH_FLAG_ALTERNATE (1 << 2)
#define IBV_PATH_FLAG_OUTBOUND (1 << 3)
#define IBV_PATH_FLAG_INBOUND (1 << 4)
#define IBV_PATH_FLAG_INBOUND_REVERSE (1 << 5)
#define IBV_PATH_FLAG_BIDIRECTIONAL \
	(IBV_PATH_FLAG_OUTBOUND | IBV_PATH_FLAG_INBOUND_REVERSE)

/* One path and its use, an element of RDMA_OPTION_IB_PATH's array. */
struct ibv_path_data {
	uint32_t flags;
	uint32_t reserved;
	struct ibv_path_record path;
};

#endif /* INFINIBAND_SA_H */
