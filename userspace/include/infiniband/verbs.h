/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * rnic: software RDMA NIC - verbs API (librnic).
 *
 * Source and binary compatible with rdma-core's <infiniband/verbs.h>: the
 * types, field names, enum values and return conventions below are the
 * ones rdma-core documents, and every public struct has rdma-core's size
 * and field offsets (the ABI probe test compiles one program against both
 * headers and compares). A program written against libibverbs compiles
 * unmodified against librnic (pkg-config --cflags --libs rnic), and a
 * binary built against rdma-core's header finds what it expects in the
 * structs librnic hands it: struct ibv_context carries the ops table its
 * inline data-path calls jump through, with the extended ops (struct
 * verbs_context) in front of it.
 *
 * The layouts come from rdma-core 44 (Debian 12). Where a later rdma-core
 * grew a struct that is passed with its size (struct ibv_port_attr), the
 * newer layout is used and librnic writes only as many bytes as the
 * caller's build of the struct has.
 *
 * Documented differences from rdma-core:
 *
 * - ibv_post_send(), ibv_post_recv(), ibv_post_srq_recv(), ibv_poll_cq()
 *   and ibv_req_notify_cq() are exported functions here, not inline calls
 *   through context->ops (which points at the same functions).
 * - Verbs rnic cannot serve (device memory, flow steering, WQs,
 *   counters, thread and parent domains) are not declared;
 *   their slots in struct verbs_context and struct ibv_context_ops are
 *   NULL, so rdma-core's inline wrappers report EOPNOTSUPP to binaries
 *   built against its header. Their object types are declared only as far
 *   as the layouts of the structs that point at them need.
 * - The reference documents' OFED 1.5 XRC API (ibv_open_xrc_domain() and
 *   the rest, IBV_QPT_XRC) is here too, over rdma-core's XRC verbs. Its
 *   two fields are placed so that rdma-core's layouts stay: @xrc_domain
 *   is appended to struct ibv_qp_init_attr (read only for IBV_QPT_XRC,
 *   a type rdma-core programs never pass), and @xrc_remote_srq_num
 *   shares struct ibv_send_wr's storage with qp_type.xrc.remote_srqn.
 * - Only rnic devices are listed: devices of the kernel's own RDMA stack
 *   (ib_uverbs, e.g. rdma_rxe) are served by rdma-core, not by librnic.
 */
#ifndef RNIC_INFINIBAND_VERBS_H
#define RNIC_INFINIBAND_VERBS_H

#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include <pthread.h>
#include <linux/types.h>

#if defined(__GNUC__)
#define RNIC_ATTR_CONST __attribute__((const))
#else
#define RNIC_ATTR_CONST
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * union ibv_gid - a GID, network byte order
 * @raw: the 16 bytes
 * @global.subnet_prefix: upper 64 bits
 * @global.interface_id: lower 64 bits
 */
union ibv_gid {
	uint8_t raw[16];
	struct {
		__be64 subnet_prefix;
		__be64 interface_id;
	} global;
};

/* enum ibv_gid_type - what a GID table entry is; rnic's are RoCEv2 */
enum ibv_gid_type {
	IBV_GID_TYPE_IB,
	IBV_GID_TYPE_ROCE_V1,
	IBV_GID_TYPE_ROCE_V2,
};

/**
 * struct ibv_gid_entry - one GID table entry, see ibv_query_gid_ex()
 * @gid: the GID
 * @gid_index: its index in the table
 * @port_num: its port
 * @gid_type: enum ibv_gid_type
 * @ndev_ifindex: interface index of the netdev it comes from, 0 if none
 */
struct ibv_gid_entry {
	union ibv_gid gid;
	uint32_t gid_index;
	uint32_t port_num;
	uint32_t gid_type;
	uint32_t ndev_ifindex;
};

/*
 * The value of ibv_context.abi_compat that says a struct verbs_context
 * lies in front of the context (see verbs_get_ctx()).
 */
#ifdef __cplusplus
#define __VERBS_ABI_IS_EXTENDED ((void *)(~(uintptr_t)0))
#else
#define __VERBS_ABI_IS_EXTENDED ((void *)UINTPTR_MAX)
#endif

enum ibv_node_type {
	IBV_NODE_UNKNOWN = -1,
	IBV_NODE_CA = 1,
	IBV_NODE_SWITCH = 2,
	IBV_NODE_ROUTER = 3,
	IBV_NODE_RNIC = 4,
	IBV_NODE_USNIC = 5,
	IBV_NODE_USNIC_UDP = 6,
	IBV_NODE_UNSPECIFIED = 7,
};

enum ibv_transport_type {
	IBV_TRANSPORT_UNKNOWN = -1,
	IBV_TRANSPORT_IB = 0,
	IBV_TRANSPORT_IWARP = 1,
	IBV_TRANSPORT_USNIC = 2,
	IBV_TRANSPORT_USNIC_UDP = 3,
	IBV_TRANSPORT_UNSPECIFIED = 4,
};

enum ibv_device_cap_flags {
	IBV_DEVICE_RESIZE_MAX_WR = 1 << 0,
	IBV_DEVICE_BAD_PKEY_CNTR = 1 << 1,
	IBV_DEVICE_BAD_QKEY_CNTR = 1 << 2,
	IBV_DEVICE_RAW_MULTI = 1 << 3,
	IBV_DEVICE_AUTO_PATH_MIG = 1 << 4,
	IBV_DEVICE_CHANGE_PHY_PORT = 1 << 5,
	IBV_DEVICE_UD_AV_PORT_ENFORCE = 1 << 6,
	IBV_DEVICE_CURR_QP_STATE_MOD = 1 << 7,
	IBV_DEVICE_SHUTDOWN_PORT = 1 << 8,
	IBV_DEVICE_INIT_TYPE = 1 << 9,
	IBV_DEVICE_PORT_ACTIVE_EVENT = 1 << 10,
	IBV_DEVICE_SYS_IMAGE_GUID = 1 << 11,
	IBV_DEVICE_RC_RNR_NAK_GEN = 1 << 12,
	IBV_DEVICE_SRQ_RESIZE = 1 << 13,
	IBV_DEVICE_N_NOTIFY_CQ = 1 << 14,
	IBV_DEVICE_MEM_WINDOW = 1 << 17,
	IBV_DEVICE_UD_IP_CSUM = 1 << 18,
	IBV_DEVICE_XRC = 1 << 20,
	IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21,
	IBV_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23,
	IBV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24,
	IBV_DEVICE_RC_IP_CSUM = 1 << 25,
	IBV_DEVICE_RAW_IP_CSUM = 1 << 26,
	IBV_DEVICE_MANAGED_FLOW_STEERING = 1 << 29,
};

/* Device capability bits above 31: only in ibv_device_attr_ex. */
#define IBV_DEVICE_RAW_SCATTER_FCS (1ULL << 34)
#define IBV_DEVICE_PCI_WRITE_END_PADDING (1ULL << 36)

enum ibv_fork_status {
	IBV_FORK_DISABLED,
	IBV_FORK_ENABLED,
	IBV_FORK_UNNEEDED,
};

enum ibv_atomic_cap {
	IBV_ATOMIC_NONE,
	IBV_ATOMIC_HCA,
	IBV_ATOMIC_GLOB,
};

/**
 * struct ibv_device_attr - device limits and identity, see ibv_query_device()
 *
 * GUIDs are in network byte order; the max_ee*, max_rdd, max_raw_*,
 * max_fmr and max_map_per_fmr fields describe features rnic does not have
 * and are always 0.
 */
struct ibv_device_attr {
	char fw_ver[64];
	__be64 node_guid;
	__be64 sys_image_guid;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	int max_qp;
	int max_qp_wr;
	unsigned int device_cap_flags;
	int max_sge;
	int max_sge_rd;
	int max_cq;
	int max_cqe;
	int max_mr;
	int max_pd;
	int max_qp_rd_atom;
	int max_ee_rd_atom;
	int max_res_rd_atom;
	int max_qp_init_rd_atom;
	int max_ee_init_rd_atom;
	enum ibv_atomic_cap atomic_cap;
	int max_ee;
	int max_rdd;
	int max_mw;
	int max_raw_ipv6_qp;
	int max_raw_ethy_qp;
	int max_mcast_grp;
	int max_mcast_qp_attach;
	int max_total_mcast_qp_attach;
	int max_ah;
	int max_fmr;
	int max_map_per_fmr;
	int max_srq;
	int max_srq_wr;
	int max_srq_sge;
	uint16_t max_pkeys;
	uint8_t local_ca_ack_delay;
	uint8_t phys_port_cnt;
};

/* struct ibv_query_device_ex_input - comp_mask must be 0 */
struct ibv_query_device_ex_input {
	uint32_t comp_mask;
};

enum ibv_odp_transport_cap_bits {
	IBV_ODP_SUPPORT_SEND = 1 << 0,
	IBV_ODP_SUPPORT_RECV = 1 << 1,
	IBV_ODP_SUPPORT_WRITE = 1 << 2,
	IBV_ODP_SUPPORT_READ = 1 << 3,
	IBV_ODP_SUPPORT_ATOMIC = 1 << 4,
	IBV_ODP_SUPPORT_SRQ_RECV = 1 << 5,
};

/* struct ibv_odp_caps - on-demand paging: rnic has none, all 0 */
struct ibv_odp_caps {
	uint64_t general_caps;
	struct {
		uint32_t rc_odp_caps;
		uint32_t uc_odp_caps;
		uint32_t ud_odp_caps;
	} per_transport_caps;
};

enum ibv_odp_general_caps {
	IBV_ODP_SUPPORT = 1 << 0,
	IBV_ODP_SUPPORT_IMPLICIT = 1 << 1,
};

/* The capability blocks below describe features rnic lacks: all 0. */
struct ibv_tso_caps {
	uint32_t max_tso;
	uint32_t supported_qpts;
};

enum ibv_rx_hash_function_flags {
	IBV_RX_HASH_FUNC_TOEPLITZ = 1 << 0,
};

enum ibv_rx_hash_fields {
	IBV_RX_HASH_SRC_IPV4 = 1 << 0,
	IBV_RX_HASH_DST_IPV4 = 1 << 1,
	IBV_RX_HASH_SRC_IPV6 = 1 << 2,
	IBV_RX_HASH_DST_IPV6 = 1 << 3,
	IBV_RX_HASH_SRC_PORT_TCP = 1 << 4,
	IBV_RX_HASH_DST_PORT_TCP = 1 << 5,
	IBV_RX_HASH_SRC_PORT_UDP = 1 << 6,
	IBV_RX_HASH_DST_PORT_UDP = 1 << 7,
	IBV_RX_HASH_IPSEC_SPI = 1 << 8,
};

/* Beyond an int: a plain constant, so the header stays ISO C. */
#define IBV_RX_HASH_INNER (1UL << 31)

struct ibv_rss_caps {
	uint32_t supported_qpts;
	uint32_t max_rwq_indirection_tables;
	uint32_t max_rwq_indirection_table_size;
	uint64_t rx_hash_fields_mask;
	uint8_t rx_hash_function;
};

struct ibv_packet_pacing_caps {
	uint32_t qp_rate_limit_min;
	uint32_t qp_rate_limit_max;
	uint32_t supported_qpts;
};

enum ibv_raw_packet_caps {
	IBV_RAW_PACKET_CAP_CVLAN_STRIPPING = 1 << 0,
	IBV_RAW_PACKET_CAP_SCATTER_FCS = 1 << 1,
	IBV_RAW_PACKET_CAP_IP_CSUM = 1 << 2,
	IBV_RAW_PACKET_CAP_DELAY_DROP = 1 << 3,
};

enum ibv_tm_cap_flags {
	IBV_TM_CAP_RC = 1 << 0,
};

struct ibv_tm_caps {
	uint32_t max_rndv_hdr_size;
	uint32_t max_num_tags;
	uint32_t flags;
	uint32_t max_ops;
	uint32_t max_sge;
};

struct ibv_cq_moderation_caps {
	uint16_t max_cq_count;
	uint16_t max_cq_period;
};

enum ibv_pci_atomic_op_size {
	IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP = 1 << 0,
	IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP = 1 << 1,
	IBV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP = 1 << 2,
};

struct ibv_pci_atomic_caps {
	uint16_t fetch_add;
	uint16_t swap;
	uint16_t compare_swap;
};

/**
 * struct ibv_device_attr_ex - ibv_query_device_ex()'s answer
 * @orig_attr: what ibv_query_device() returns
 * @comp_mask: 0
 * @odp_caps: on-demand paging: none
 * @completion_timestamp_mask: 0: completions carry no timestamp
 * @hca_core_clock: 0: no device clock
 * @device_cap_flags_ex: orig_attr.device_cap_flags, and the bits above 31
 * @phys_port_cnt_ex: ports, as orig_attr.phys_port_cnt but not limited to
 *	255
 *
 * The other members describe features rnic does not have and are 0.
 */
struct ibv_device_attr_ex {
	struct ibv_device_attr orig_attr;
	uint32_t comp_mask;
	struct ibv_odp_caps odp_caps;
	uint64_t completion_timestamp_mask;
	uint64_t hca_core_clock;
	uint64_t device_cap_flags_ex;
	struct ibv_tso_caps tso_caps;
	struct ibv_rss_caps rss_caps;
	uint32_t max_wq_type_rq;
	struct ibv_packet_pacing_caps packet_pacing_caps;
	uint32_t raw_packet_caps;
	struct ibv_tm_caps tm_caps;
	struct ibv_cq_moderation_caps cq_mod_caps;
	uint64_t max_dm_size;
	struct ibv_pci_atomic_caps pci_atomic_caps;
	uint32_t xrc_odp_caps;
	uint32_t phys_port_cnt_ex;
};

enum ibv_mtu {
	IBV_MTU_256 = 1,
	IBV_MTU_512 = 2,
	IBV_MTU_1024 = 3,
	IBV_MTU_2048 = 4,
	IBV_MTU_4096 = 5,
};

enum ibv_port_state {
	IBV_PORT_NOP = 0,
	IBV_PORT_DOWN = 1,
	IBV_PORT_INIT = 2,
	IBV_PORT_ARMED = 3,
	IBV_PORT_ACTIVE = 4,
	IBV_PORT_ACTIVE_DEFER = 5,
};

enum {
	IBV_LINK_LAYER_UNSPECIFIED,
	IBV_LINK_LAYER_INFINIBAND,
	IBV_LINK_LAYER_ETHERNET,
};

enum ibv_port_cap_flags {
	IBV_PORT_SM = 1 << 1,
	IBV_PORT_NOTICE_SUP = 1 << 2,
	IBV_PORT_TRAP_SUP = 1 << 3,
	IBV_PORT_OPT_IPD_SUP = 1 << 4,
	IBV_PORT_AUTO_MIGR_SUP = 1 << 5,
	IBV_PORT_SL_MAP_SUP = 1 << 6,
	IBV_PORT_MKEY_NVRAM = 1 << 7,
	IBV_PORT_PKEY_NVRAM = 1 << 8,
	IBV_PORT_LED_INFO_SUP = 1 << 9,
	IBV_PORT_SYS_IMAGE_GUID_SUP = 1 << 11,
	IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP = 1 << 12,
	IBV_PORT_EXTENDED_SPEEDS_SUP = 1 << 14,
	IBV_PORT_CAP_MASK2_SUP = 1 << 15,
	IBV_PORT_CM_SUP = 1 << 16,
	IBV_PORT_SNMP_TUNNEL_SUP = 1 << 17,
	IBV_PORT_REINIT_SUP = 1 << 18,
	IBV_PORT_DEVICE_MGMT_SUP = 1 << 19,
	IBV_PORT_VENDOR_CLASS_SUP = 1 << 20,
	IBV_PORT_DR_NOTICE_SUP = 1 << 21,
	IBV_PORT_CAP_MASK_NOTICE_SUP = 1 << 22,
	IBV_PORT_BOOT_MGMT_SUP = 1 << 23,
	IBV_PORT_LINK_LATENCY_SUP = 1 << 24,
	IBV_PORT_CLIENT_REG_SUP = 1 << 25,
	IBV_PORT_IP_BASED_GIDS = 1 << 26,
};

enum ibv_port_cap_flags2 {
	IBV_PORT_SET_NODE_DESC_SUP = 1 << 0,
	IBV_PORT_INFO_EXT_SUP = 1 << 1,
	IBV_PORT_VIRT_SUP = 1 << 2,
	IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP = 1 << 3,
	IBV_PORT_LINK_WIDTH_2X_SUP = 1 << 4,
	IBV_PORT_LINK_SPEED_HDR_SUP = 1 << 5,
	IBV_PORT_LINK_SPEED_NDR_SUP = 1 << 10,
	IBV_PORT_LINK_SPEED_XDR_SUP = 1 << 12,
};

/**
 * struct ibv_port_attr - port attributes, see ibv_query_port()
 *
 * lid and sm_lid are in host byte order; on rnic's Ethernet link layer
 * they are 0. active_speed_ex, when not 0, supersedes active_speed.
 *
 * The struct grew over rdma-core's releases (port_cap_flags2, then
 * active_speed_ex): ibv_query_port() passes the size the caller was built
 * with, and only that many bytes are written.
 */
struct ibv_port_attr {
	enum ibv_port_state state;
	enum ibv_mtu max_mtu;
	enum ibv_mtu active_mtu;
	int gid_tbl_len;
	uint32_t port_cap_flags;
	uint32_t max_msg_sz;
	uint32_t bad_pkey_cntr;
	uint32_t qkey_viol_cntr;
	uint16_t pkey_tbl_len;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t lmc;
	uint8_t max_vl_num;
	uint8_t sm_sl;
	uint8_t subnet_timeout;
	uint8_t init_type_reply;
	uint8_t active_width;
	uint8_t active_speed;
	uint8_t phys_state;
	uint8_t link_layer;
	uint8_t flags;
	uint16_t port_cap_flags2;
	uint32_t active_speed_ex;
};

enum ibv_event_type {
	IBV_EVENT_CQ_ERR,
	IBV_EVENT_QP_FATAL,
	IBV_EVENT_QP_REQ_ERR,
	IBV_EVENT_QP_ACCESS_ERR,
	IBV_EVENT_COMM_EST,
	IBV_EVENT_SQ_DRAINED,
	IBV_EVENT_PATH_MIG,
	IBV_EVENT_PATH_MIG_ERR,
	IBV_EVENT_DEVICE_FATAL,
	IBV_EVENT_PORT_ACTIVE,
	IBV_EVENT_PORT_ERR,
	IBV_EVENT_LID_CHANGE,
	IBV_EVENT_PKEY_CHANGE,
	IBV_EVENT_SM_CHANGE,
	IBV_EVENT_SRQ_ERR,
	IBV_EVENT_SRQ_LIMIT_REACHED,
	IBV_EVENT_QP_LAST_WQE_REACHED,
	IBV_EVENT_CLIENT_REREGISTER,
	IBV_EVENT_GID_CHANGE,
	IBV_EVENT_WQ_FATAL,
};

enum ibv_wc_status {
	IBV_WC_SUCCESS,
	IBV_WC_LOC_LEN_ERR,
	IBV_WC_LOC_QP_OP_ERR,
	IBV_WC_LOC_EEC_OP_ERR,
	IBV_WC_LOC_PROT_ERR,
	IBV_WC_WR_FLUSH_ERR,
	IBV_WC_MW_BIND_ERR,
	IBV_WC_BAD_RESP_ERR,
	IBV_WC_LOC_ACCESS_ERR,
	IBV_WC_REM_INV_REQ_ERR,
	IBV_WC_REM_ACCESS_ERR,
	IBV_WC_REM_OP_ERR,
	IBV_WC_RETRY_EXC_ERR,
	IBV_WC_RNR_RETRY_EXC_ERR,
	IBV_WC_LOC_RDD_VIOL_ERR,
	IBV_WC_REM_INV_RD_REQ_ERR,
	IBV_WC_REM_ABORT_ERR,
	IBV_WC_INV_EECN_ERR,
	IBV_WC_INV_EEC_STATE_ERR,
	IBV_WC_FATAL_ERR,
	IBV_WC_RESP_TIMEOUT_ERR,
	IBV_WC_GENERAL_ERR,
	IBV_WC_TM_ERR,
	IBV_WC_TM_RNDV_INCOMPLETE,
};

/* Static rate of a path. The numbering is historical, not ordered. */
enum ibv_rate {
	IBV_RATE_MAX = 0,
	IBV_RATE_2_5_GBPS = 2,
	IBV_RATE_5_GBPS = 5,
	IBV_RATE_10_GBPS = 3,
	IBV_RATE_20_GBPS = 6,
	IBV_RATE_30_GBPS = 4,
	IBV_RATE_40_GBPS = 7,
	IBV_RATE_60_GBPS = 8,
	IBV_RATE_80_GBPS = 9,
	IBV_RATE_120_GBPS = 10,
	IBV_RATE_14_GBPS = 11,
	IBV_RATE_56_GBPS = 12,
	IBV_RATE_112_GBPS = 13,
	IBV_RATE_168_GBPS = 14,
	IBV_RATE_25_GBPS = 15,
	IBV_RATE_100_GBPS = 16,
	IBV_RATE_200_GBPS = 17,
	IBV_RATE_300_GBPS = 18,
	IBV_RATE_28_GBPS = 19,
	IBV_RATE_50_GBPS = 20,
	IBV_RATE_400_GBPS = 21,
	IBV_RATE_600_GBPS = 22,
	IBV_RATE_800_GBPS = 23,
	IBV_RATE_1200_GBPS = 24,
};

enum {
	IBV_SYSFS_NAME_MAX = 64,
	IBV_SYSFS_PATH_MAX = 256,
};

struct ibv_context;
struct ibv_device;

/* struct _ibv_device_ops - obsolete and never used; kept for the layout */
struct _ibv_device_ops {
	struct ibv_context *(*_dummy1)(struct ibv_device *device, int cmd_fd);
	void (*_dummy2)(struct ibv_context *context);
};

/**
 * struct ibv_device - an rnic device found by ibv_get_device_list()
 * @_ops: obsolete, NULL
 * @node_type: always IBV_NODE_CA
 * @transport_type: always IBV_TRANSPORT_IB (RoCE is IB transport)
 * @name: device name, e.g. "rnic0"
 * @dev_name: name of the char device node, e.g. "uverbs1024"
 * @dev_path: sysfs directory of the device, /sys/class/rnic/NAME
 * @ibdev_path: the same directory (rnic has one sysfs class, not two)
 *
 * Owned by the library: valid until the list it came from is freed, or,
 * for a device that was opened, until its last context is closed.
 */
struct ibv_device {
	struct _ibv_device_ops _ops;
	enum ibv_node_type node_type;
	enum ibv_transport_type transport_type;
	char name[IBV_SYSFS_NAME_MAX];
	char dev_name[IBV_SYSFS_NAME_MAX];
	char dev_path[IBV_SYSFS_PATH_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
};

/* enum ibv_mw_type - memory window types (ibv_alloc_mw()) */
enum ibv_mw_type {
	IBV_MW_TYPE_1 = 1,
	IBV_MW_TYPE_2 = 2,
};

struct ibv_cq;
struct ibv_qp;
struct ibv_srq;
struct ibv_wc;
struct ibv_pd;
struct ibv_mw;
struct ibv_mw_bind;
struct ibv_send_wr;
struct ibv_recv_wr;
struct _compat_ibv_port_attr;

/**
 * struct ibv_context_ops - the data path of a context, as rdma-core's
 *	inline functions reach it
 * @poll_cq: ibv_poll_cq()
 * @req_notify_cq: ibv_req_notify_cq()
 * @post_srq_recv: ibv_post_srq_recv()
 * @post_send: ibv_post_send()
 * @post_recv: ibv_post_recv()
 * @alloc_mw: ibv_alloc_mw()
 * @bind_mw: ibv_bind_mw()
 * @dealloc_mw: ibv_dealloc_mw()
 *
 * The _compat_ slots are remnants of an older provider interface and are
 * NULL.
 */
struct ibv_context_ops {
	int (*_compat_query_device)(struct ibv_context *context,
				    struct ibv_device_attr *device_attr);
	int (*_compat_query_port)(struct ibv_context *context,
				  uint8_t port_num,
				  struct _compat_ibv_port_attr *port_attr);
	void *(*_compat_alloc_pd)(void);
	void *(*_compat_dealloc_pd)(void);
	void *(*_compat_reg_mr)(void);
	void *(*_compat_rereg_mr)(void);
	void *(*_compat_dereg_mr)(void);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*dealloc_mw)(struct ibv_mw *mw);
	void *(*_compat_create_cq)(void);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	void *(*_compat_cq_event)(void);
	void *(*_compat_resize_cq)(void);
	void *(*_compat_destroy_cq)(void);
	void *(*_compat_create_srq)(void);
	void *(*_compat_modify_srq)(void);
	void *(*_compat_query_srq)(void);
	void *(*_compat_destroy_srq)(void);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	void *(*_compat_create_qp)(void);
	void *(*_compat_query_qp)(void);
	void *(*_compat_modify_qp)(void);
	void *(*_compat_destroy_qp)(void);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	void *(*_compat_create_ah)(void);
	void *(*_compat_destroy_ah)(void);
	void *(*_compat_attach_mcast)(void);
	void *(*_compat_detach_mcast)(void);
	void *(*_compat_async_event)(void);
};

/**
 * struct ibv_context - an open device, see ibv_open_device()
 * @device: the device this context was opened from
 * @ops: the data-path functions, for binaries built against rdma-core
 * @cmd_fd: file descriptor of the char device; every verb of this context
 *          is an ioctl on it
 * @async_fd: file descriptor of the context's asynchronous events, read
 *            by ibv_get_async_event(); close-on-exec, pollable
 * @num_comp_vectors: completion vectors the device offers
 * @mutex: free for the application's use; librnic does not take it
 * @abi_compat: __VERBS_ABI_IS_EXTENDED: a struct verbs_context lies in
 *	front of this one
 */
struct ibv_context {
	struct ibv_device *device;
	struct ibv_context_ops ops;
	int cmd_fd;
	int async_fd;
	int num_comp_vectors;
	pthread_mutex_t mutex;
	void *abi_compat;
};

/**
 * struct ibv_pd - protection domain
 * @context: the context it belongs to
 * @handle: kernel handle, meaningful in @context only
 */
struct ibv_pd {
	struct ibv_context *context;
	uint32_t handle;
};

/**
 * enum ibv_access_flags - memory region access rights
 *
 * REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE. rnic supports the four
 * basic rights and MW_BIND, and accepts RELAXED_ORDERING as a hint;
 * on-demand paging is EOPNOTSUPP; zero-based and huge-page hints are
 * refused (EINVAL).
 */
enum ibv_access_flags {
	IBV_ACCESS_LOCAL_WRITE = 1,
	IBV_ACCESS_REMOTE_WRITE = (1 << 1),
	IBV_ACCESS_REMOTE_READ = (1 << 2),
	IBV_ACCESS_REMOTE_ATOMIC = (1 << 3),
	IBV_ACCESS_MW_BIND = (1 << 4),
	IBV_ACCESS_ZERO_BASED = (1 << 5),
	IBV_ACCESS_ON_DEMAND = (1 << 6),
	IBV_ACCESS_HUGETLB = (1 << 7),
	IBV_ACCESS_RELAXED_ORDERING = (1 << 20),
};

/*
 * Access bits from IBV_ACCESS_OPTIONAL_FIRST up are hints a device may
 * ignore (rdma-core routes them through ibv_reg_mr_iova2()).
 */
#define IBV_ACCESS_OPTIONAL_FIRST (1 << 20)
#define IBV_ACCESS_OPTIONAL_RANGE (((1 << 29) << 1) - IBV_ACCESS_OPTIONAL_FIRST)

/* enum ibv_advise_mr_advice - ibv_advise_mr() hints (no ODP: unused) */
enum ibv_advise_mr_advice {
	IBV_ADVISE_MR_ADVICE_PREFETCH,
	IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
	IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
};

/**
 * enum ibv_rereg_mr_flags - what ibv_rereg_mr() changes
 *
 * rnic cannot re-register a memory region: see ibv_rereg_mr().
 */
enum ibv_rereg_mr_flags {
	IBV_REREG_MR_CHANGE_TRANSLATION = (1 << 0),
	IBV_REREG_MR_CHANGE_PD = (1 << 1),
	IBV_REREG_MR_CHANGE_ACCESS = (1 << 2),
	IBV_REREG_MR_FLAGS_SUPPORTED = ((IBV_REREG_MR_CHANGE_ACCESS << 1) - 1),
};

/*
 * enum ibv_rereg_mr_err_code - ibv_rereg_mr()'s negative returns; the
 * first ones leave the old MR valid, from IBV_REREG_MR_ERR_CMD on it is not
 */
enum ibv_rereg_mr_err_code {
	IBV_REREG_MR_ERR_INPUT = -1,
	IBV_REREG_MR_ERR_DONT_FORK_NEW = -2,
	IBV_REREG_MR_ERR_DO_FORK_OLD = -3,
	IBV_REREG_MR_ERR_CMD = -4,
	IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW = -5,
};

/* Thread domains: rnic has none. */
struct ibv_mr;
struct ibv_td;

/* enum ibv_xrcd_init_attr_mask - struct ibv_xrcd_init_attr.comp_mask bits */
enum ibv_xrcd_init_attr_mask {
	IBV_XRCD_INIT_ATTR_FD = 1 << 0,
	IBV_XRCD_INIT_ATTR_OFLAGS = 1 << 1,
	IBV_XRCD_INIT_ATTR_RESERVED = 1 << 2,
};

/**
 * struct ibv_xrcd_init_attr - what ibv_open_xrcd() opens
 * @comp_mask: IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS, both
 *	required
 * @fd: a file whose inode names the domain, shared by every process of
 *	the host that opens it; -1 for a domain of this context alone
 * @oflags: O_CREAT creates the file's domain if it has none, O_CREAT |
 *	O_EXCL only creates it; ignored with @fd -1
 */
struct ibv_xrcd_init_attr {
	uint32_t comp_mask;
	int fd;
	int oflags;
};

/**
 * struct ibv_xrcd - an XRC domain, as opened by one context
 * @context: that context
 */
struct ibv_xrcd {
	struct ibv_context *context;
};

/*
 * struct ibv_xrc_domain - an XRC domain of the reference documents' OFED
 * API (ibv_open_xrc_domain()); opaque
 */
struct ibv_xrc_domain;

/**
 * struct ibv_mw - memory window
 * @context: the context it belongs to
 * @pd: its protection domain
 * @rkey: its remote key; ibv_bind_mw() changes it (a type 2 window's
 *	changes to the rkey its bind work request names once that is
 *	executed: the application keeps that one)
 * @handle: kernel handle, meaningful in @context only
 * @type: IBV_MW_TYPE_1 or IBV_MW_TYPE_2
 */
struct ibv_mw {
	struct ibv_context *context;
	struct ibv_pd *pd;
	uint32_t rkey;
	uint32_t handle;
	enum ibv_mw_type type;
};

struct ibv_mw_bind_info {
	struct ibv_mr *mr;
	uint64_t addr;
	uint64_t length;
	unsigned int mw_access_flags;
};

struct ibv_mw_bind {
	uint64_t wr_id;
	unsigned int send_flags;
	struct ibv_mw_bind_info bind_info;
};

/**
 * struct ibv_mr - memory region
 * @context: the context it belongs to
 * @pd: its protection domain
 * @addr: start of the region in the process
 * @length: bytes
 * @handle: kernel handle, meaningful in @context only
 * @lkey: local key, for scatter/gather entries
 * @rkey: remote key, for peers' RDMA READ/WRITE and atomics
 */
struct ibv_mr {
	struct ibv_context *context;
	struct ibv_pd *pd;
	void *addr;
	size_t length;
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
};

/**
 * enum ibv_wc_opcode - what a work completion completed; receive
 *	completions have IBV_WC_RECV set
 */
enum ibv_wc_opcode {
	IBV_WC_SEND,
	IBV_WC_RDMA_WRITE,
	IBV_WC_RDMA_READ,
	IBV_WC_COMP_SWAP,
	IBV_WC_FETCH_ADD,
	IBV_WC_BIND_MW,
	IBV_WC_LOCAL_INV,
	IBV_WC_TSO,
	IBV_WC_ATOMIC_WRITE = 9,
	IBV_WC_RECV = 1 << 7,
	IBV_WC_RECV_RDMA_WITH_IMM,
	IBV_WC_TM_ADD,
	IBV_WC_TM_DEL,
	IBV_WC_TM_SYNC,
	IBV_WC_TM_RECV,
	IBV_WC_TM_NO_TAG,
	IBV_WC_DRIVER1,
	IBV_WC_DRIVER2,
	IBV_WC_DRIVER3,
};

enum {
	IBV_WC_IP_CSUM_OK_SHIFT = 2,
};

/**
 * enum ibv_create_cq_wc_flags - what an extended CQ's completions can be
 *	read for (struct ibv_cq_init_attr_ex.wc_flags)
 *
 * rnic serves the IBV_WC_STANDARD_FLAGS; the others (timestamps, VLAN,
 * flow tag, tag matching) make ibv_create_cq_ex() fail with EOPNOTSUPP.
 */
enum ibv_create_cq_wc_flags {
	IBV_WC_EX_WITH_BYTE_LEN = 1 << 0,
	IBV_WC_EX_WITH_IMM = 1 << 1,
	IBV_WC_EX_WITH_QP_NUM = 1 << 2,
	IBV_WC_EX_WITH_SRC_QP = 1 << 3,
	IBV_WC_EX_WITH_SLID = 1 << 4,
	IBV_WC_EX_WITH_SL = 1 << 5,
	IBV_WC_EX_WITH_DLID_PATH_BITS = 1 << 6,
	IBV_WC_EX_WITH_COMPLETION_TIMESTAMP = 1 << 7,
	IBV_WC_EX_WITH_CVLAN = 1 << 8,
	IBV_WC_EX_WITH_FLOW_TAG = 1 << 9,
	IBV_WC_EX_WITH_TM_INFO = 1 << 10,
	IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK = 1 << 11,
};

enum {
	IBV_WC_STANDARD_FLAGS = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
				IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
				IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
				IBV_WC_EX_WITH_DLID_PATH_BITS,
};

enum {
	IBV_CREATE_CQ_SUP_WC_FLAGS =
		IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
		IBV_WC_EX_WITH_CVLAN | IBV_WC_EX_WITH_FLOW_TAG |
		IBV_WC_EX_WITH_TM_INFO |
		IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
};

/** enum ibv_wc_flags - struct ibv_wc.wc_flags bits */
enum ibv_wc_flags {
	IBV_WC_GRH = 1 << 0,
	IBV_WC_WITH_IMM = 1 << 1,
	IBV_WC_IP_CSUM_OK = 1 << IBV_WC_IP_CSUM_OK_SHIFT,
	IBV_WC_WITH_INV = 1 << 3,
	IBV_WC_TM_SYNC_REQ = 1 << 4,
	IBV_WC_TM_MATCH = 1 << 5,
	IBV_WC_TM_DATA_VALID = 1 << 6,
};

/**
 * struct ibv_wc - a work completion
 * @wr_id: the work request's id
 * @status: IBV_WC_SUCCESS or why it failed
 * @opcode: what completed (valid for successful completions)
 * @vendor_err: provider-specific error detail
 * @byte_len: bytes received (receive completions)
 * @imm_data: immediate data, network byte order (IBV_WC_WITH_IMM)
 * @invalidated_rkey: the invalidated rkey (IBV_WC_WITH_INV)
 * @qp_num: the local QP
 * @src_qp: the remote QP (UD)
 * @wc_flags: enum ibv_wc_flags bits
 * @pkey_index: P_Key index (UD)
 * @slid: source LID (0 on Ethernet)
 * @sl: service level
 * @dlid_path_bits: destination LID path bits
 */
struct ibv_wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	union {
		__be32 imm_data;
		uint32_t invalidated_rkey;
	};
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

/* completion queues, channels, async events: types */

struct ibv_qp;
struct ibv_srq;
struct ibv_wq;

/**
 * struct ibv_comp_channel - completion event channel
 * @context: the context it belongs to
 * @fd: file descriptor that ibv_get_cq_event() reads; close-on-exec,
 *	pollable, may be made O_NONBLOCK
 * @refcnt: CQs using the channel
 */
struct ibv_comp_channel {
	struct ibv_context *context;
	int fd;
	int refcnt;
};

/**
 * struct ibv_cq - completion queue
 * @context: the context it belongs to
 * @channel: its completion channel, or NULL
 * @cq_context: the application's pointer, from ibv_create_cq()
 * @handle: kernel handle, meaningful in @context only
 * @cqe: entries: all of them can hold a completion
 * @mutex: protects the two counters below
 * @cond: signalled when an event is acknowledged
 * @comp_events_completed: completion events acknowledged
 * @async_events_completed: asynchronous events acknowledged
 */
struct ibv_cq {
	struct ibv_context *context;
	struct ibv_comp_channel *channel;
	void *cq_context;
	uint32_t handle;
	int cqe;

	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t comp_events_completed;
	uint32_t async_events_completed;
};

/* struct ibv_poll_cq_attr - ibv_start_poll()'s options: comp_mask 0 */
struct ibv_poll_cq_attr {
	uint32_t comp_mask;
};

/* struct ibv_wc_tm_info - tag matching details (rnic has none) */
struct ibv_wc_tm_info {
	uint64_t tag;
	uint32_t priv;
};

/**
 * struct ibv_cq_ex - extended completion queue, see ibv_create_cq_ex()
 *
 * Begins as struct ibv_cq (ibv_cq_ex_to_cq() converts). Between
 * ibv_start_poll() and ibv_end_poll(), @status and @wr_id describe the
 * current completion and the read_* functions read its other fields.
 * The readers of the IBV_WC_STANDARD_FLAGS fields, and read_opcode,
 * read_vendor_err and read_wc_flags, are always set; the others
 * (timestamps, VLAN, flow tag, tag matching) are NULL: rnic's completions
 * do not carry them.
 *
 * @comp_mask: 0
 * @status: status of the current completion
 * @wr_id: work request id of the current completion
 */
struct ibv_cq_ex {
	struct ibv_context *context;
	struct ibv_comp_channel *channel;
	void *cq_context;
	uint32_t handle;
	int cqe;

	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t comp_events_completed;
	uint32_t async_events_completed;

	uint32_t comp_mask;
	enum ibv_wc_status status;
	uint64_t wr_id;
	int (*start_poll)(struct ibv_cq_ex *current,
			  struct ibv_poll_cq_attr *attr);
	int (*next_poll)(struct ibv_cq_ex *current);
	void (*end_poll)(struct ibv_cq_ex *current);
	enum ibv_wc_opcode (*read_opcode)(struct ibv_cq_ex *current);
	uint32_t (*read_vendor_err)(struct ibv_cq_ex *current);
	uint32_t (*read_byte_len)(struct ibv_cq_ex *current);
	__be32 (*read_imm_data)(struct ibv_cq_ex *current);
	uint32_t (*read_qp_num)(struct ibv_cq_ex *current);
	uint32_t (*read_src_qp)(struct ibv_cq_ex *current);
	unsigned int (*read_wc_flags)(struct ibv_cq_ex *current);
	uint32_t (*read_slid)(struct ibv_cq_ex *current);
	uint8_t (*read_sl)(struct ibv_cq_ex *current);
	uint8_t (*read_dlid_path_bits)(struct ibv_cq_ex *current);
	uint64_t (*read_completion_ts)(struct ibv_cq_ex *current);
	uint16_t (*read_cvlan)(struct ibv_cq_ex *current);
	uint32_t (*read_flow_tag)(struct ibv_cq_ex *current);
	void (*read_tm_info)(struct ibv_cq_ex *current,
			     struct ibv_wc_tm_info *tm_info);
	uint64_t (*read_completion_wallclock_ns)(struct ibv_cq_ex *current);
};

/**
 * ibv_cq_ex_to_cq() - the struct ibv_cq an extended CQ begins with
 * @cq: the extended CQ
 *
 * RETURN: the CQ, for the verbs that take a struct ibv_cq.
 */
static inline struct ibv_cq *ibv_cq_ex_to_cq(struct ibv_cq_ex *cq)
{
	return (struct ibv_cq *)cq;
}

/**
 * ibv_start_poll() - begin reading an extended CQ
 * @cq: the CQ
 * @attr: comp_mask 0
 *
 * RETURN: 0: the oldest completion is current (@cq->status, @cq->wr_id and the
 *	ibv_wc_read_*() functions describe it); ENOENT: the CQ is empty (do
 *	not call ibv_end_poll() then); EINVAL for a non-zero comp_mask.
 */
static inline int ibv_start_poll(struct ibv_cq_ex *cq,
				 struct ibv_poll_cq_attr *attr)
{
	return cq->start_poll(cq, attr);
}

/**
 * ibv_next_poll() - move to the next completion
 * @cq: the CQ, after a successful ibv_start_poll()
 *
 * RETURN: 0: the next completion is current; ENOENT: there is none.
 */
static inline int ibv_next_poll(struct ibv_cq_ex *cq)
{
	return cq->next_poll(cq);
}

/**
 * ibv_end_poll() - hand the completions read back to the CQ
 * @cq: the CQ, after a successful ibv_start_poll()
 */
static inline void ibv_end_poll(struct ibv_cq_ex *cq)
{
	cq->end_poll(cq);
}

/**
 * ibv_wc_read_opcode() - what completed of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: an enum ibv_wc_opcode.
 */
static inline enum ibv_wc_opcode ibv_wc_read_opcode(struct ibv_cq_ex *cq)
{
	return cq->read_opcode(cq);
}

/**
 * ibv_wc_read_vendor_err() - provider error detail of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the vendor error, 0 on success.
 */
static inline uint32_t ibv_wc_read_vendor_err(struct ibv_cq_ex *cq)
{
	return cq->read_vendor_err(cq);
}

/**
 * ibv_wc_read_byte_len() - bytes received of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the byte count (receive completions).
 */
static inline uint32_t ibv_wc_read_byte_len(struct ibv_cq_ex *cq)
{
	return cq->read_byte_len(cq);
}

/**
 * ibv_wc_read_imm_data() - immediate data of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the immediate data, network byte order (IBV_WC_WITH_IMM).
 */
static inline __be32 ibv_wc_read_imm_data(struct ibv_cq_ex *cq)
{
	return cq->read_imm_data(cq);
}

/**
 * ibv_wc_read_invalidated_rkey() - rkey invalidated of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the rkey (IBV_WC_WITH_INV; it shares the immediate data's field).
 */
static inline uint32_t ibv_wc_read_invalidated_rkey(struct ibv_cq_ex *cq)
{
	return (uint32_t)cq->read_imm_data(cq);
}

/**
 * ibv_wc_read_qp_num() - local QP number of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the QP number.
 */
static inline uint32_t ibv_wc_read_qp_num(struct ibv_cq_ex *cq)
{
	return cq->read_qp_num(cq);
}

/**
 * ibv_wc_read_src_qp() - remote QP number of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the source QP number (UD).
 */
static inline uint32_t ibv_wc_read_src_qp(struct ibv_cq_ex *cq)
{
	return cq->read_src_qp(cq);
}

/**
 * ibv_wc_read_wc_flags() - flags of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: enum ibv_wc_flags bits.
 */
static inline unsigned int ibv_wc_read_wc_flags(struct ibv_cq_ex *cq)
{
	return cq->read_wc_flags(cq);
}

/**
 * ibv_wc_read_slid() - source LID of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the source LID (0 on Ethernet).
 */
static inline uint32_t ibv_wc_read_slid(struct ibv_cq_ex *cq)
{
	return cq->read_slid(cq);
}

/**
 * ibv_wc_read_sl() - service level of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the SL.
 */
static inline uint8_t ibv_wc_read_sl(struct ibv_cq_ex *cq)
{
	return cq->read_sl(cq);
}

/**
 * ibv_wc_read_dlid_path_bits() - destination LID path bits of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the path bits.
 */
static inline uint8_t ibv_wc_read_dlid_path_bits(struct ibv_cq_ex *cq)
{
	return cq->read_dlid_path_bits(cq);
}

/**
 * ibv_wc_read_completion_ts() - device timestamp of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the timestamp; rnic has none (the function is NULL).
 */
static inline uint64_t ibv_wc_read_completion_ts(struct ibv_cq_ex *cq)
{
	return cq->read_completion_ts(cq);
}

/**
 * ibv_wc_read_completion_wallclock_ns() - wall-clock timestamp of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: nanoseconds; rnic has none (the function is NULL).
 */
static inline uint64_t ibv_wc_read_completion_wallclock_ns(struct ibv_cq_ex *cq)
{
	return cq->read_completion_wallclock_ns(cq);
}

/**
 * ibv_wc_read_cvlan() - VLAN tag of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the tag; rnic has none (the function is NULL).
 */
static inline uint16_t ibv_wc_read_cvlan(struct ibv_cq_ex *cq)
{
	return cq->read_cvlan(cq);
}

/**
 * ibv_wc_read_flow_tag() - flow tag of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 *
 * RETURN: the tag; rnic has none (the function is NULL).
 */
static inline uint32_t ibv_wc_read_flow_tag(struct ibv_cq_ex *cq)
{
	return cq->read_flow_tag(cq);
}

/**
 * ibv_wc_read_tm_info() - tag matching details of the current completion
 * @cq: an extended CQ, between ibv_start_poll() and ibv_end_poll()
 * @tm_info: filled; rnic has no tag matching (the function is NULL)
 */
static inline void ibv_wc_read_tm_info(struct ibv_cq_ex *cq,
				       struct ibv_wc_tm_info *tm_info)
{
	cq->read_tm_info(cq, tm_info);
}

enum ibv_cq_init_attr_mask {
	IBV_CQ_INIT_ATTR_MASK_FLAGS = 1 << 0,
	IBV_CQ_INIT_ATTR_MASK_PD = 1 << 1,
};

enum ibv_create_cq_attr_flags {
	IBV_CREATE_CQ_ATTR_SINGLE_THREADED = 1 << 0,
	IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN = 1 << 1,
};

/**
 * struct ibv_cq_init_attr_ex - what ibv_create_cq_ex() asks for
 * @cqe: entries wanted, as ibv_create_cq()'s @cqe
 * @cq_context: the application's pointer
 * @channel: completion channel, or NULL
 * @comp_vector: as ibv_create_cq()'s
 * @wc_flags: enum ibv_create_cq_wc_flags: fields the read_* functions read
 * @comp_mask: enum ibv_cq_init_attr_mask: which of @flags and
 *	@parent_domain are set
 * @flags: enum ibv_create_cq_attr_flags; rnic accepts SINGLE_THREADED (a
 *	hint it does not need)
 * @parent_domain: not supported (IBV_CQ_INIT_ATTR_MASK_PD: EOPNOTSUPP)
 */
struct ibv_cq_init_attr_ex {
	uint32_t cqe;
	void *cq_context;
	struct ibv_comp_channel *channel;
	uint32_t comp_vector;
	uint64_t wc_flags;
	uint32_t comp_mask;
	uint32_t flags;
	struct ibv_pd *parent_domain;
};

enum ibv_cq_attr_mask {
	IBV_CQ_ATTR_MODERATE = 1 << 0,
	IBV_CQ_ATTR_RESERVED = 1 << 1,
};

struct ibv_moderate_cq {
	uint16_t cq_count;
	uint16_t cq_period;
};

/* struct ibv_modify_cq_attr - CQ moderation; rnic has none */
struct ibv_modify_cq_attr {
	uint32_t attr_mask;
	struct ibv_moderate_cq moderate;
};

/**
 * struct ibv_async_event - an asynchronous event
 * @element: what the event is about, by @event_type: @element.cq for
 *	IBV_EVENT_CQ_ERR; @element.qp for the QP events; @element.srq for
 *	the SRQ events; @element.wq for IBV_EVENT_WQ_FATAL;
 *	@element.port_num for the port events (0 for IBV_EVENT_DEVICE_FATAL)
 * @event_type: the event
 */
struct ibv_async_event {
	union {
		struct ibv_cq *cq;
		struct ibv_qp *qp;
		struct ibv_srq *srq;
		struct ibv_wq *wq;
		int port_num;
	} element;
	enum ibv_event_type event_type;
};

/* queue pairs, multicast: types */

struct ibv_cq;
struct ibv_srq;

/**
 * enum ibv_qp_type - QP transport types
 *
 * rnic implements RC, UC, UD, XRC_SEND (an XRC initiator: a send queue,
 * no receive queue) and XRC_RECV (an XRC target: no queues, in an XRC
 * domain; ibv_create_qp_ex() and ibv_open_qp() only); ibv_create_qp()
 * fails with EOPNOTSUPP for the others. IBV_QPT_XRC is the reference
 * documents' OFED 1.5 name of an XRC send QP (with @xrc_domain in struct
 * ibv_qp_init_attr); rdma-core has no type 5.
 */
enum ibv_qp_type {
	IBV_QPT_RC = 2,
	IBV_QPT_UC,
	IBV_QPT_UD,
	IBV_QPT_XRC = 5,
	IBV_QPT_RAW_PACKET = 8,
	IBV_QPT_XRC_SEND = 9,
	IBV_QPT_XRC_RECV,
	IBV_QPT_DRIVER = 0xff,
};

/**
 * struct ibv_qp_cap - sizes of a QP's queues
 * @max_send_wr: send work requests, 0 .. max_qp_wr
 * @max_recv_wr: receive work requests, 0 .. max_qp_wr (ignored with an SRQ)
 * @max_send_sge: scatter/gather entries per send work request, 0 .. max_sge
 * @max_recv_sge: scatter/gather entries per receive work request, 0 ..
 *	max_sge (ignored with an SRQ)
 * @max_inline_data: bytes of inline data per send work request, 0 .. 512
 */
struct ibv_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

/**
 * struct ibv_qp_init_attr - what ibv_create_qp() asks for
 * @qp_context: stored in ibv_qp.qp_context
 * @send_cq: CQ for send completions
 * @recv_cq: CQ for receive completions, may be @send_cq
 * @srq: SRQ the QP receives from (RC and UD), or NULL
 * @cap: sizes asked for, replaced by what was granted
 * @qp_type: IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_XRC_SEND (no
 *	@recv_cq, @srq or receive sizes) or the reference documents'
 *	IBV_QPT_XRC
 * @sq_sig_all: if not 0, every send work request completes with a CQE
 * @xrc_domain: IBV_QPT_XRC only (the reference documents' OFED API; see
 *	ibv_create_xrc_rcv_qp() too). Not in rdma-core's struct: librnic
 *	reads and writes it only for that type, so that a caller built with
 *	rdma-core's shorter struct is never touched past its end
 */
struct ibv_qp_init_attr {
	void *qp_context;
	struct ibv_cq *send_cq;
	struct ibv_cq *recv_cq;
	struct ibv_srq *srq;
	struct ibv_qp_cap cap;
	enum ibv_qp_type qp_type;
	int sq_sig_all;
	struct ibv_xrc_domain *xrc_domain;
};

enum ibv_qp_init_attr_mask {
	IBV_QP_INIT_ATTR_PD = 1 << 0,
	IBV_QP_INIT_ATTR_XRCD = 1 << 1,
	IBV_QP_INIT_ATTR_CREATE_FLAGS = 1 << 2,
	IBV_QP_INIT_ATTR_MAX_TSO_HEADER = 1 << 3,
	IBV_QP_INIT_ATTR_IND_TABLE = 1 << 4,
	IBV_QP_INIT_ATTR_RX_HASH = 1 << 5,
	IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6,
};

enum ibv_qp_create_flags {
	IBV_QP_CREATE_BLOCK_SELF_MCAST_LB = 1 << 1,
	IBV_QP_CREATE_SCATTER_FCS = 1 << 8,
	IBV_QP_CREATE_CVLAN_STRIPPING = 1 << 9,
	IBV_QP_CREATE_SOURCE_QPN = 1 << 10,
	IBV_QP_CREATE_PCI_WRITE_END_PADDING = 1 << 11,
};

/*
 * enum ibv_qp_create_send_ops_flags - the ibv_wr_* opcodes an extended QP
 * is created for (one bit per enum ibv_wr_opcode value)
 */
enum ibv_qp_create_send_ops_flags {
	IBV_QP_EX_WITH_RDMA_WRITE = 1 << 0,
	IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM = 1 << 1,
	IBV_QP_EX_WITH_SEND = 1 << 2,
	IBV_QP_EX_WITH_SEND_WITH_IMM = 1 << 3,
	IBV_QP_EX_WITH_RDMA_READ = 1 << 4,
	IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP = 1 << 5,
	IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD = 1 << 6,
	IBV_QP_EX_WITH_LOCAL_INV = 1 << 7,
	IBV_QP_EX_WITH_BIND_MW = 1 << 8,
	IBV_QP_EX_WITH_SEND_WITH_INV = 1 << 9,
	IBV_QP_EX_WITH_TSO = 1 << 10,
	IBV_QP_EX_WITH_ATOMIC_WRITE = 1 << 12,
};

/* struct ibv_rx_hash_conf - receive-side scaling; rnic has none */
struct ibv_rx_hash_conf {
	uint8_t rx_hash_function;
	uint8_t rx_hash_key_len;
	uint8_t *rx_hash_key;
	uint64_t rx_hash_fields_mask;
};

struct ibv_rwq_ind_table;

/**
 * struct ibv_qp_init_attr_ex - what ibv_create_qp_ex() asks for
 *
 * Begins as struct ibv_qp_init_attr (up to @sq_sig_all: @comp_mask sits
 * where that struct's @xrc_domain does, which is read only for
 * IBV_QPT_XRC, a type ibv_create_qp_ex() refuses).
 * @comp_mask: enum ibv_qp_init_attr_mask: which fields below are set;
 *	rnic requires IBV_QP_INIT_ATTR_PD (IBV_QP_INIT_ATTR_XRCD instead
 *	for IBV_QPT_XRC_RECV), accepts IBV_QP_INIT_ATTR_SEND_OPS_FLAGS and
 *	IBV_QP_INIT_ATTR_CREATE_FLAGS with @create_flags 0; the others are
 *	EOPNOTSUPP
 * @pd: protection domain; not used by IBV_QPT_XRC_RECV
 * @xrcd: IBV_QPT_XRC_RECV: the XRC domain the target QP is created in
 *	(it belongs to the domain: see ibv_open_qp()); ignored otherwise
 * @send_ops_flags: enum ibv_qp_create_send_ops_flags: the ibv_wr_*
 *	opcodes the QP will be used with
 *
 * @create_flags, @max_tso_header, @rwq_ind_tbl, @rx_hash_conf and
 * @source_qpn belong to features rnic does not have.
 */
struct ibv_qp_init_attr_ex {
	void *qp_context;
	struct ibv_cq *send_cq;
	struct ibv_cq *recv_cq;
	struct ibv_srq *srq;
	struct ibv_qp_cap cap;
	enum ibv_qp_type qp_type;
	int sq_sig_all;

	uint32_t comp_mask;
	struct ibv_pd *pd;
	struct ibv_xrcd *xrcd;
	uint32_t create_flags;
	uint16_t max_tso_header;
	struct ibv_rwq_ind_table *rwq_ind_tbl;
	struct ibv_rx_hash_conf rx_hash_conf;
	uint32_t source_qpn;
	uint64_t send_ops_flags;
};

/* enum ibv_qp_open_attr_mask - struct ibv_qp_open_attr.comp_mask bits */
enum ibv_qp_open_attr_mask {
	IBV_QP_OPEN_ATTR_NUM = 1 << 0,
	IBV_QP_OPEN_ATTR_XRCD = 1 << 1,
	IBV_QP_OPEN_ATTR_CONTEXT = 1 << 2,
	IBV_QP_OPEN_ATTR_TYPE = 1 << 3,
	IBV_QP_OPEN_ATTR_RESERVED = 1 << 4,
};

/**
 * struct ibv_qp_open_attr - what ibv_open_qp() opens
 * @comp_mask: enum ibv_qp_open_attr_mask; NUM, XRCD and TYPE required
 * @qp_num: the number of an XRC target QP of @xrcd
 * @xrcd: the domain, opened by the calling context
 * @qp_context: with IBV_QP_OPEN_ATTR_CONTEXT, stored in ibv_qp.qp_context
 * @qp_type: IBV_QPT_XRC_RECV
 */
struct ibv_qp_open_attr {
	uint32_t comp_mask;
	uint32_t qp_num;
	struct ibv_xrcd *xrcd;
	void *qp_context;
	enum ibv_qp_type qp_type;
};

/**
 * enum ibv_qp_attr_mask - which attributes ibv_modify_qp() sets
 *
 * Each transition requires some attributes and allows others, per QP
 * type (see ibv_modify_qp()). IBV_QP_ALT_PATH (no APM on RoCE),
 * IBV_QP_CAP (no resizing) and IBV_QP_RATE_LIMIT are never accepted.
 */
enum ibv_qp_attr_mask {
	IBV_QP_STATE = 1 << 0,
	IBV_QP_CUR_STATE = 1 << 1,
	IBV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	IBV_QP_ACCESS_FLAGS = 1 << 3,
	IBV_QP_PKEY_INDEX = 1 << 4,
	IBV_QP_PORT = 1 << 5,
	IBV_QP_QKEY = 1 << 6,
	IBV_QP_AV = 1 << 7,
	IBV_QP_PATH_MTU = 1 << 8,
	IBV_QP_TIMEOUT = 1 << 9,
	IBV_QP_RETRY_CNT = 1 << 10,
	IBV_QP_RNR_RETRY = 1 << 11,
	IBV_QP_RQ_PSN = 1 << 12,
	IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	IBV_QP_ALT_PATH = 1 << 14,
	IBV_QP_MIN_RNR_TIMER = 1 << 15,
	IBV_QP_SQ_PSN = 1 << 16,
	IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	IBV_QP_PATH_MIG_STATE = 1 << 18,
	IBV_QP_CAP = 1 << 19,
	IBV_QP_DEST_QPN = 1 << 20,
	IBV_QP_RATE_LIMIT = 1 << 25,
};

/** enum ibv_qp_state - QP states */
enum ibv_qp_state {
	IBV_QPS_RESET,
	IBV_QPS_INIT,
	IBV_QPS_RTR,
	IBV_QPS_RTS,
	IBV_QPS_SQD,
	IBV_QPS_SQE,
	IBV_QPS_ERR,
	IBV_QPS_UNKNOWN,
};

/** enum ibv_mig_state - path migration states (APM; RoCE has none) */
enum ibv_mig_state {
	IBV_MIG_MIGRATED,
	IBV_MIG_REARM,
	IBV_MIG_ARMED,
};

/**
 * struct ibv_qp - queue pair
 * @context: the context it belongs to
 * @qp_context: the application's, from ibv_qp_init_attr
 * @pd: its protection domain
 * @send_cq: CQ of its send queue
 * @recv_cq: CQ of its receive queue
 * @srq: SRQ it receives from, or NULL
 * @handle: kernel handle, meaningful in @context only
 * @qp_num: QP number (24 bits) peers address it with
 * @state: the state as of the last successful ibv_modify_qp() or
 *	ibv_query_qp()
 * @qp_type: transport type
 * @mutex: with @cond and @events_completed, counts acknowledged
 *	asynchronous events of the QP
 * @cond: see @mutex
 * @events_completed: see @mutex
 */
struct ibv_qp {
	struct ibv_context *context;
	void *qp_context;
	struct ibv_pd *pd;
	struct ibv_cq *send_cq;
	struct ibv_cq *recv_cq;
	struct ibv_srq *srq;
	uint32_t handle;
	uint32_t qp_num;
	enum ibv_qp_state state;
	enum ibv_qp_type qp_type;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
};

/**
 * struct ibv_global_route - the GRH part of an address
 * @dgid: destination GID
 * @flow_label: IPv6 flow label
 * @sgid_index: source GID table index
 * @hop_limit: hop limit / TTL
 * @traffic_class: traffic class / DSCP+ECN
 */
struct ibv_global_route {
	union ibv_gid dgid;
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
};

/**
 * struct ibv_grh - global route header, as received in the first 40 bytes
 *	of a UD receive buffer
 * @version_tclass_flow: IP version, traffic class and flow label
 * @paylen: payload length
 * @next_hdr: next header
 * @hop_limit: hop limit
 * @sgid: source GID
 * @dgid: destination GID
 */
struct ibv_grh {
	__be32 version_tclass_flow;
	__be16 paylen;
	uint8_t next_hdr;
	uint8_t hop_limit;
	union ibv_gid sgid;
	union ibv_gid dgid;
};

/**
 * struct ibv_ah_attr - an address: where packets go
 * @grh: global route (RoCE: always, set @is_global)
 * @dlid: destination LID (0 on Ethernet)
 * @sl: service level
 * @src_path_bits: source path bits
 * @static_rate: enum ibv_rate limit
 * @is_global: @grh is valid
 * @port_num: local port, 1
 */
struct ibv_ah_attr {
	struct ibv_global_route grh;
	uint16_t dlid;
	uint8_t sl;
	uint8_t src_path_bits;
	uint8_t static_rate;
	uint8_t is_global;
	uint8_t port_num;
};

/* shared receive queues, address handles: types */

/**
 * enum ibv_srq_attr_mask - what ibv_modify_srq() changes
 * @IBV_SRQ_MAX_WR: resize; rnic does not resize SRQs (no
 *	IBV_DEVICE_SRQ_RESIZE): EINVAL
 * @IBV_SRQ_LIMIT: arm the limit
 */
enum ibv_srq_attr_mask {
	IBV_SRQ_MAX_WR = 1 << 0,
	IBV_SRQ_LIMIT = 1 << 1,
};

/**
 * struct ibv_srq_attr - SRQ sizes and limit
 * @max_wr: work requests the SRQ holds
 * @max_sge: scatter/gather entries per work request
 * @srq_limit: the armed limit, 0 when not armed
 */
struct ibv_srq_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
};

/**
 * struct ibv_srq_init_attr - what ibv_create_srq() asks for
 * @srq_context: stored in ibv_srq.srq_context
 * @attr: sizes asked for, replaced by what was granted; srq_limit arms
 *	the limit at once when not 0
 */
struct ibv_srq_init_attr {
	void *srq_context;
	struct ibv_srq_attr attr;
};

/* enum ibv_srq_type - SRQ kinds; rnic has BASIC and XRC, not TM */
enum ibv_srq_type {
	IBV_SRQT_BASIC,
	IBV_SRQT_XRC,
	IBV_SRQT_TM,
};

enum ibv_srq_init_attr_mask {
	IBV_SRQ_INIT_ATTR_TYPE = 1 << 0,
	IBV_SRQ_INIT_ATTR_PD = 1 << 1,
	IBV_SRQ_INIT_ATTR_XRCD = 1 << 2,
	IBV_SRQ_INIT_ATTR_CQ = 1 << 3,
	IBV_SRQ_INIT_ATTR_TM = 1 << 4,
	IBV_SRQ_INIT_ATTR_RESERVED = 1 << 5,
};

struct ibv_tm_cap {
	uint32_t max_num_tags;
	uint32_t max_ops;
};

/**
 * struct ibv_srq_init_attr_ex - what ibv_create_srq_ex() asks for
 * @srq_context: as in struct ibv_srq_init_attr
 * @attr: as in struct ibv_srq_init_attr
 * @comp_mask: enum ibv_srq_init_attr_mask: which fields below are set;
 *	IBV_SRQ_INIT_ATTR_PD is required, and for XRC IBV_SRQ_INIT_ATTR_XRCD
 *	and IBV_SRQ_INIT_ATTR_CQ
 * @srq_type: IBV_SRQT_BASIC (without IBV_SRQ_INIT_ATTR_TYPE too) or
 *	IBV_SRQT_XRC; IBV_SRQT_TM is EOPNOTSUPP
 * @pd: protection domain; an XRC SRQ's checks the memory accesses of the
 *	requests it takes
 * @xrcd: XRC: the domain whose target QPs deliver to the SRQ
 * @cq: XRC: the CQ of the SRQ's receive completions (wc.qp_num is the
 *	target QP's number)
 * @tm_cap: tag matching only
 */
struct ibv_srq_init_attr_ex {
	void *srq_context;
	struct ibv_srq_attr attr;

	uint32_t comp_mask;
	enum ibv_srq_type srq_type;
	struct ibv_pd *pd;
	struct ibv_xrcd *xrcd;
	struct ibv_cq *cq;
	struct ibv_tm_cap tm_cap;
};

/**
 * struct ibv_srq - shared receive queue
 * @context: the context it belongs to
 * @srq_context: the application's, from ibv_srq_init_attr
 * @pd: its protection domain
 * @handle: kernel handle, meaningful in @context only
 * @mutex: with @cond and @events_completed, counts acknowledged
 *	asynchronous events of the SRQ
 * @cond: see @mutex
 * @events_completed: see @mutex
 */
struct ibv_srq {
	struct ibv_context *context;
	void *srq_context;
	struct ibv_pd *pd;
	uint32_t handle;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
};

/**
 * struct ibv_ah - address handle, named by UD send work requests
 * @context: the context it belongs to
 * @pd: its protection domain
 * @handle: kernel handle, meaningful in @context only
 */
struct ibv_ah {
	struct ibv_context *context;
	struct ibv_pd *pd;
	uint32_t handle;
};

struct ibv_sge;
struct ibv_dm;
struct ibv_alloc_dm_attr;
struct ibv_counters;
struct ibv_counters_init_attr;
struct ibv_counter_attach_attr;
struct ibv_flow;
struct ibv_flow_attr;
struct ibv_flow_action;
struct ibv_flow_action_esp_attr;
struct ibv_qp_rate_limit_attr;
struct ibv_parent_domain_init_attr;
struct ibv_td_init_attr;
struct ibv_ops_wr;
struct ibv_rwq_ind_table_init_attr;
struct ibv_wq_init_attr;
struct ibv_wq_attr;
struct ibv_values_ex;
struct verbs_ex_private;

/**
 * struct verbs_context - the extended operations of a context, in front of
 *	its struct ibv_context
 * @query_port: ibv_query_port() with the caller's struct size
 * @create_cq_ex: ibv_create_cq_ex()
 * @priv: NULL
 * @query_device_ex: ibv_query_device_ex() with the caller's struct size
 * @create_qp_ex: ibv_create_qp_ex()
 * @create_srq_ex: ibv_create_srq_ex()
 * @open_qp: ibv_open_qp()
 * @get_srq_num: ibv_get_srq_num()
 * @open_xrcd: ibv_open_xrcd()
 * @close_xrcd: ibv_close_xrcd()
 * @sz: sizeof(struct verbs_context) as the library was built
 * @context: the context the application holds; last
 *
 * New operations are added at the front, so an operation sits at the same
 * distance before @context in every version, and an application can tell
 * from @sz whether the library's struct reaches back to it (see
 * verbs_get_ctx_op()). Operations rnic cannot do are NULL.
 */
struct verbs_context {
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr,
			  size_t port_attr_len);
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	int (*destroy_counters)(struct ibv_counters *counters);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	int (*free_dm)(struct ibv_dm *dm);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	int (*dealloc_td)(struct ibv_td *td);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct verbs_ex_private *priv;
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*ibv_destroy_flow)(struct ibv_flow *flow);
	void (*ABI_placeholder2)(void);
	struct ibv_flow *(*ibv_create_flow)(struct ibv_qp *qp,
					    struct ibv_flow_attr *flow_attr);
	void (*ABI_placeholder1)(void);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_qp *(*create_qp_ex)(
		struct ibv_context *context,
		struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_srq *(*create_srq_ex)(
		struct ibv_context *context,
		struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	uint64_t _ABI_placeholder3;
	size_t sz;
	struct ibv_context context;
};

/**
 * verbs_get_ctx() - the extended operations of a context
 * @ctx: the context
 *
 * RETURN: its struct verbs_context, or NULL when it has none.
 */
static inline struct verbs_context *verbs_get_ctx(struct ibv_context *ctx)
{
	if (ctx->abi_compat != __VERBS_ABI_IS_EXTENDED)
		return NULL;
	return (struct verbs_context *)((char *)ctx -
					offsetof(struct verbs_context,
						 context));
}

/**
 * verbs_ctx_reaches_() - the verbs_context of @ctx if it reaches back to a member
 * @ctx: the context
 * @off: the member's offset in this header's struct verbs_context
 *
 * RETURN: the struct verbs_context, or NULL when there is none or the
 *	library's (shorter, older) struct does not have the member.
 */
static inline struct verbs_context *verbs_ctx_reaches_(struct ibv_context *ctx,
						       size_t off)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);

	if (!vctx || vctx->sz < sizeof(*vctx) - off)
		return NULL;
	return vctx;
}

/*
 * verbs_get_ctx_op() - @ctx's struct verbs_context if it has operation
 * @op (the library's struct reaches it and it is not NULL), else NULL.
 */
#define verbs_get_ctx_op(ctx, op)                                            \
	(verbs_ctx_reaches_(ctx, offsetof(struct verbs_context, op)) &&      \
			 verbs_get_ctx(ctx)->op ?                            \
		 verbs_get_ctx(ctx) :                                        \
		 NULL)

/**
 * ibv_get_device_list() - list the rnic devices present now
 * @num_devices: if not NULL, set to the number of devices in the list
 *
 * Devices are found in /sys/class/rnic/ (RNIC_SYSFS_DIR overrides, for
 * tests); devices exported by a module with another ABI version are
 * skipped, and so are devices of another network namespace than the
 * calling thread's, which it could not open (RNIC_DEBUG set in the
 * environment says why on stderr). The devices are sorted by name.
 *
 * RETURN: a NULL-terminated array to release with ibv_free_device_list(),
 * empty (not NULL) when there is no device or the rnic module is not
 * loaded. NULL with errno set on failure (ENOMEM, or the errno of reading
 * the sysfs class directory).
 */
struct ibv_device **ibv_get_device_list(int *num_devices);

/**
 * ibv_free_device_list() - release a list from ibv_get_device_list()
 * @list: the list; NULL is ignored
 *
 * Devices that were not opened are invalid afterwards; opened devices stay
 * valid until their last context is closed.
 */
void ibv_free_device_list(struct ibv_device **list);

/**
 * ibv_get_device_name() - name of a device
 * @device: the device
 *
 * RETURN: the name ("rnic0"), owned by @device; NULL with errno EINVAL if
 * @device is NULL.
 */
const char *ibv_get_device_name(struct ibv_device *device);

/**
 * ibv_get_device_guid() - node GUID of a device
 * @device: the device
 *
 * RETURN: the node GUID in network byte order, as read from sysfs when the
 * list was made; 0 with errno EINVAL if @device is NULL.
 */
__be64 ibv_get_device_guid(struct ibv_device *device);

/**
 * ibv_open_device() - open a device and create a verbs context
 * @device: a device from ibv_get_device_list()
 *
 * Opens /dev/infiniband/<dev_name> (RNIC_DEV_DIR overrides the directory,
 * for tests).
 *
 * RETURN: the new context, or NULL with errno set (ENOENT: the device
 * node does not exist, ENODEV: the node is not this device's char device
 * or the device was removed, EACCES, ENOMEM, EINVAL for a NULL @device).
 */
struct ibv_context *ibv_open_device(struct ibv_device *device);

/**
 * ibv_close_device() - close a context from ibv_open_device()
 * @context: the context; it is freed even when this fails
 *
 * RETURN: 0, or -1 with errno set (EINVAL for a NULL @context, or the
 * error of close(2)).
 */
int ibv_close_device(struct ibv_context *context);

/**
 * ibv_query_device() - query the device's identity and limits
 * @context: an open context
 * @device_attr: filled on success
 *
 * fw_ver is "major.minor.patch" of the rnic module.
 *
 * RETURN: 0, or an errno value (also stored in errno): EINVAL for NULL
 * arguments, ENODEV when the device was removed.
 */
int ibv_query_device(struct ibv_context *context,
		     struct ibv_device_attr *device_attr);

/**
 * ibv_query_port() - query a port's attributes
 * @context: an open context
 * @port_num: port number, from 1 to phys_port_cnt
 * @port_attr: filled on success, as far as the caller's struct reaches
 *
 * A macro, as in rdma-core: it passes the size of the caller's struct to
 * the context's verbs_context.query_port, so that the library writes no
 * more than the struct the program was built with. The exported function of the same
 * name is the entry point of binaries built before the struct grew: it
 * writes the fields up to and including ``flags`` only.
 *
 * RETURN: 0, or an errno value (also stored in errno): EINVAL for a bad
 * port number or NULL arguments, ENODEV when the device was removed.
 */
int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct ibv_port_attr *port_attr);

/**
 * ibv_query_port_sized_() - what the ibv_query_port() macro calls
 * @context: an open context
 * @port_num: port number
 * @port_attr: filled on success
 *
 * RETURN: as ibv_query_port().
 */
static inline int ibv_query_port_sized_(struct ibv_context *context,
					uint8_t port_num,
					struct ibv_port_attr *port_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, query_port);

	if (!vctx) {
		memset(port_attr, 0, sizeof(*port_attr));
		return ibv_query_port(context, port_num, port_attr);
	}
	return vctx->query_port(context, port_num, port_attr,
				sizeof(*port_attr));
}

#define ibv_query_port(context, port_num, port_attr) \
	ibv_query_port_sized_(context, port_num, port_attr)

/**
 * ibv_query_gid() - read one GID table entry
 * @context: an open context
 * @port_num: port number, from 1
 * @index: entry, from 0 to gid_tbl_len - 1
 * @gid: filled on success; all zeros for an empty entry
 *
 * RETURN: 0, or -1 with errno set (EINVAL for a bad port or index or NULL
 * arguments, ENODEV when the device was removed).
 */
int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
		  union ibv_gid *gid);

/**
 * ibv_query_pkey() - read one P_Key table entry
 * @context: an open context
 * @port_num: port number, from 1
 * @index: entry, from 0 to pkey_tbl_len - 1
 * @pkey: filled on success, network byte order
 *
 * RETURN: 0, or -1 with errno set (EINVAL for a bad port or index or NULL
 * arguments, ENODEV when the device was removed).
 */
int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
		   __be16 *pkey);

/**
 * ibv_alloc_pd() - allocate a protection domain
 * @context: the device context
 *
 * RETURN: the PD, or NULL with errno set (ENOMEM beyond the device's
 * max_pd, ENODEV if the device was removed).
 */
struct ibv_pd *ibv_alloc_pd(struct ibv_context *context);

/**
 * ibv_dealloc_pd() - free a protection domain
 * @pd: the PD; stays valid if this fails
 *
 * RETURN: 0, or an errno value: EBUSY while a memory region or another
 * object uses the PD.
 */
int ibv_dealloc_pd(struct ibv_pd *pd);

/**
 * ibv_reg_mr() - register a memory region
 * @pd: its protection domain
 * @addr: start, any alignment
 * @length: bytes, at least 1
 * @access: enum ibv_access_flags bits
 *
 * Pins the pages of the range until ibv_dereg_mr(). Unless the process
 * has CAP_IPC_LOCK they count against its RLIMIT_MEMLOCK.
 *
 * RETURN: the MR, or NULL with errno set: EINVAL for zero length, a range
 * that wraps, bad access bits (REMOTE_WRITE or REMOTE_ATOMIC without
 * LOCAL_WRITE) or a PD of another context; EFAULT for a range that is
 * not mapped (or not writable when LOCAL_WRITE asks for it); ENOMEM
 * beyond RLIMIT_MEMLOCK or the device's max_mr.
 */
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access);

/**
 * ibv_reg_mr_iova() - register a memory region at a chosen I/O address
 * @pd: its protection domain
 * @addr: start, any alignment
 * @length: bytes, at least 1
 * @iova: address of @addr in work requests and remote accesses
 * @access: enum ibv_access_flags bits
 *
 * RETURN: as ibv_reg_mr().
 */
struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access);

/**
 * ibv_dereg_mr() - deregister a memory region and unpin its pages
 * @mr: the MR; stays valid if this fails
 *
 * RETURN: 0, or an errno value.
 */
int ibv_dereg_mr(struct ibv_mr *mr);

/**
 * ibv_alloc_mw() - allocate a memory window, not bound to anything yet
 * @pd: its protection domain
 * @type: IBV_MW_TYPE_1 or IBV_MW_TYPE_2 (another is EINVAL)
 *
 * RETURN: the window, or NULL with errno set.
 */
static inline struct ibv_mw *ibv_alloc_mw(struct ibv_pd *pd,
					  enum ibv_mw_type type)
{
	if (!pd->context->ops.alloc_mw) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return pd->context->ops.alloc_mw(pd, type);
}

/**
 * ibv_dealloc_mw() - free a memory window, unbinding it if bound
 * @mw: the window
 *
 * RETURN: 0, or an errno value.
 */
static inline int ibv_dealloc_mw(struct ibv_mw *mw)
{
	return mw->context->ops.dealloc_mw(mw);
}

/**
 * ibv_inc_rkey() - the rkey with the next key byte (its low 8 bits, which
 *	belong to the consumer), for a type 2 window's next bind
 * @rkey: the current rkey
 *
 * RETURN: @rkey with its key byte incremented (255 wraps to 0).
 */
static inline uint32_t ibv_inc_rkey(uint32_t rkey)
{
	return (rkey & ~(uint32_t)0xff) | ((rkey + 1) & 0xff);
}

/**
 * ibv_bind_mw() - bind a type 1 memory window, or unbind it (length 0)
 * @qp: an RC or UC QP of the window's PD; the bind is a work request in
 *	its send queue, completed (IBV_WC_BIND_MW) as @mw_bind's send_flags
 *	say, and executed after the work requests posted before it
 * @mw: the window; its rkey changes at once to the one the bind gives it
 * @mw_bind: wr_id, send_flags and what to bind: the region (with
 *	IBV_ACCESS_MW_BIND, in the window's PD), the range inside it and the
 *	remote rights
 *
 * RETURN: 0, or an errno value: EINVAL for a type 2 window or a range
 * without a region, EPERM for a region of another PD; a bind the HCA
 * refuses completes with IBV_WC_MW_BIND_ERR.
 */
static inline int ibv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			      struct ibv_mw_bind *mw_bind)
{
	const struct ibv_mw_bind_info *info = &mw_bind->bind_info;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	if (!info->mr && (info->addr || info->length))
		return EINVAL;
	if (info->mr && info->mr->pd != mw->pd)
		return EPERM;
	return mw->context->ops.bind_mw(qp, mw, mw_bind);
}

/* completion queues, channels, async events: functions */

/**
 * ibv_create_comp_channel() - create a completion event channel
 * @context: the context
 *
 * RETURN: the channel, or NULL with errno set (ENOMEM beyond the device's
 * channel limit, EMFILE without a free descriptor, ENODEV if the device
 * was removed).
 */
struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context);

/**
 * ibv_destroy_comp_channel() - destroy a completion event channel and close
 *	its descriptor
 * @channel: the channel; stays valid if this fails
 *
 * RETURN: 0, or an errno value: EBUSY while a CQ uses the channel.
 */
int ibv_destroy_comp_channel(struct ibv_comp_channel *channel);

/**
 * ibv_create_cq() - create a completion queue
 * @context: the context
 * @cqe: entries wanted, 1 to max_cqe; the CQ gets the next power of two,
 *	in cq->cqe
 * @cq_context: the application's pointer, returned by ibv_get_cq_event()
 * @channel: the channel for completion events, or NULL
 * @comp_vector: 0 to context->num_comp_vectors - 1
 *
 * RETURN: the CQ, or NULL with errno set: EINVAL for a bad @cqe or
 * @comp_vector or a channel of another context, ENOMEM beyond the
 * device's max_cq or when memory is short.
 */
struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
			     void *cq_context,
			     struct ibv_comp_channel *channel,
			     int comp_vector);

/**
 * ibv_resize_cq() - change the number of entries of a CQ
 * @cq: the CQ
 * @cqe: entries wanted, 1 to max_cqe and at least the completions not
 *	polled yet, which are kept; cq->cqe is set to the new size (the next
 *	power of two)
 *
 * Safe against ibv_poll_cq() and ibv_req_notify_cq() in other threads.
 *
 * RETURN: 0, or an errno value (EINVAL for a bad @cqe, ENOMEM).
 */
int ibv_resize_cq(struct ibv_cq *cq, int cqe);

/**
 * ibv_destroy_cq() - destroy a completion queue
 * @cq: the CQ; stays valid if this fails
 *
 * Waits until every event of @cq returned by ibv_get_cq_event() and
 * ibv_get_async_event() has been acknowledged.
 *
 * RETURN: 0, or an errno value: EBUSY while a QP uses the CQ.
 */
int ibv_destroy_cq(struct ibv_cq *cq);

/**
 * ibv_poll_cq() - take completions off a CQ
 * @cq: the CQ
 * @num_entries: room in @wc
 * @wc: filled with the oldest completions
 *
 * No system call. Safe against other threads polling or arming @cq.
 *
 * RETURN: the number of completions taken, 0 if there is none (or if
 * @num_entries is not positive).
 */
int ibv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);

/**
 * ibv_req_notify_cq() - ask for one completion event on the CQ's channel
 * @cq: the CQ
 * @solicited_only: 0: for the next completion; else only for the next
 *	solicited or unsuccessful completion
 *
 * No system call: it writes the CQ's arm word in the mapped ring. Poll
 * the CQ after arming, a completion may have come in before.
 *
 * RETURN: 0.
 */
int ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/**
 * ibv_get_cq_event() - wait for the next completion event of a channel
 * @channel: the channel; O_NONBLOCK on its fd makes this fail with EAGAIN
 *	instead of waiting
 * @cq: set to the CQ that had the event
 * @cq_context: set to its cq_context
 *
 * A CQ has at most one event waiting in its channel at a time. Every event
 * returned must be acknowledged with ibv_ack_cq_events().
 *
 * RETURN: 0, or -1 with errno set (EAGAIN, EINTR, EIO once the channel's
 * context is closed).
 */
int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		     void **cq_context);

/**
 * ibv_ack_cq_events() - acknowledge completion events
 * @cq: the CQ
 * @nevents: how many of its events, returned by ibv_get_cq_event()
 */
void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents);

/**
 * ibv_get_async_event() - wait for the next asynchronous event of a context
 * @context: the context; O_NONBLOCK on its async_fd makes this fail with
 *	EAGAIN instead of waiting
 * @event: filled with the event
 *
 * Every event returned must be acknowledged with ibv_ack_async_event().
 * Events that find the context's queue full are dropped (RNIC_DEBUG set in
 * the environment makes librnic report it on stderr).
 *
 * RETURN: 0, or -1 with errno set (EAGAIN, EINTR, EIO once the context is
 * closed).
 */
int ibv_get_async_event(struct ibv_context *context,
			struct ibv_async_event *event);

/**
 * ibv_ack_async_event() - acknowledge an asynchronous event
 * @event: an event from ibv_get_async_event()
 */
void ibv_ack_async_event(struct ibv_async_event *event);

/* queue pairs, multicast: functions */

/**
 * struct ibv_qp_attr - QP attributes, for ibv_modify_qp() and
 *	ibv_query_qp()
 * @qp_state: state to move to
 * @cur_qp_state: state the caller believes the QP is in
 * @path_mtu: path MTU, up to the port's max_mtu
 * @path_mig_state: path migration state
 * @qkey: Q_Key (UD); with bit 31 set, only for CAP_NET_RAW
 * @rq_psn: first PSN expected, 24 bits (RC, UC)
 * @sq_psn: first PSN sent, 24 bits
 * @dest_qp_num: remote QP number, 24 bits (RC, UC)
 * @qp_access_flags: IBV_ACCESS_LOCAL_WRITE, _REMOTE_WRITE, _REMOTE_READ,
 *	_REMOTE_ATOMIC (RC, UC)
 * @cap: queue sizes (ibv_query_qp() only)
 * @ah_attr: primary path (RC, UC): global, port 1, a GID table entry in
 *	use, a unicast destination
 * @alt_ah_attr: alternate path: not supported, reads 0
 * @pkey_index: P_Key table index, 0
 * @alt_pkey_index: not supported, reads 0
 * @en_sqd_async_notify: 1: IBV_EVENT_SQ_DRAINED when drained in SQD
 * @sq_draining: the send queue is draining in SQD
 * @max_rd_atomic: RDMA READs/atomics in flight as initiator, up to
 *	max_qp_init_rd_atom (RC)
 * @max_dest_rd_atomic: ... as responder, up to max_qp_rd_atom (RC)
 * @min_rnr_timer: RNR NAK timer code, 0 .. 31 (RC)
 * @port_num: port, 1
 * @timeout: local ACK timeout code, 0 .. 31 (RC)
 * @retry_cnt: transport retries, 0 .. 7 (RC)
 * @rnr_retry: RNR retries, 0 .. 7, 7 is infinite (RC)
 * @alt_port_num: not supported, reads 0
 * @alt_timeout: not supported, reads 0
 * @rate_limit: not supported, reads 0
 *
 * Defined here rather than with the other QP types: it embeds struct
 * ibv_ah_attr.
 */
struct ibv_qp_attr {
	enum ibv_qp_state qp_state;
	enum ibv_qp_state cur_qp_state;
	enum ibv_mtu path_mtu;
	enum ibv_mig_state path_mig_state;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	unsigned int qp_access_flags;
	struct ibv_qp_cap cap;
	struct ibv_ah_attr ah_attr;
	struct ibv_ah_attr alt_ah_attr;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t en_sqd_async_notify;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t alt_port_num;
	uint8_t alt_timeout;
	uint32_t rate_limit;
};

/**
 * ibv_create_qp() - create a queue pair, in the RESET state
 * @pd: its protection domain
 * @qp_init_attr: what to create; @qp_init_attr->cap is replaced by the
 *	sizes granted: work requests rounded up to a power of two, and as
 *	many SGEs and inline bytes as a send entry has room for
 *
 * The QP's rings are mapped into the process until ibv_destroy_qp().
 * With RNIC_SQ_POLL=1 in the environment (ignored in set-uid programs), a
 * QP with a send queue is created in polling mode: a kernel thread watches
 * its send queue, so that ibv_post_send() makes no system call while that
 * thread is awake.
 *
 * RETURN: the QP, or NULL with errno set: EINVAL for a missing or foreign
 * PD or CQ, sizes beyond the device's limits, an SRQ with a UC QP;
 * EOPNOTSUPP for a QP type rnic does not implement; ENOMEM beyond the
 * device's max_qp; EPROTO if the kernel described rings librnic cannot
 * use (a kernel and librnic that disagree on the ABI).
 */
struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr);

/**
 * ibv_modify_qp() - change a QP's state and attributes
 * @qp: the QP
 * @attr: the values
 * @attr_mask: enum ibv_qp_attr_mask bits: which values to set
 *
 * Follows the QP state table of the IB specification: RESET -> INIT ->
 * RTR -> RTS <-> SQD, SQE -> RTS, INIT -> INIT, RTS -> RTS, SQD -> SQD,
 * any state to RESET, any state but RESET to ERR; each transition
 * requires some attributes and allows a few others, per QP type. Moving
 * to RESET forgets every attribute and empties the queues. On failure
 * nothing changes.
 *
 * RETURN: 0, or an errno value: EINVAL for a transition that does not
 * exist, a required attribute missing, an attribute not allowed, a bad
 * value, or IBV_QP_CUR_STATE not naming the QP's state; EPERM for a
 * controlled Q_Key without CAP_NET_RAW.
 */
int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);

/**
 * ibv_query_qp() - read a QP's attributes
 * @qp: the QP
 * @attr: filled with every attribute, as last set (0 when never set since
 *	creation or the last move to RESET)
 * @attr_mask: with IBV_QP_STATE, @qp->state is refreshed too; every
 *	attribute is returned whatever the mask
 * @init_attr: filled with what the QP was created with, @cap as granted
 *
 * RETURN: 0, or an errno value.
 */
int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr);

/**
 * ibv_destroy_qp() - destroy a QP and unmap its rings
 * @qp: the QP; stays valid if this fails
 *
 * Waits until every asynchronous event about the QP that was returned by
 * ibv_get_async_event() is acknowledged. Its PD, CQs and SRQ can be
 * destroyed afterwards.
 *
 * An XRC target QP (IBV_QPT_XRC_RECV) is the domain's: this drops the
 * calling context's handle on it (from ibv_create_qp_ex() or
 * ibv_open_qp()), and the QP goes away with its last handle.
 *
 * RETURN: 0, or an errno value: EBUSY while the QP is attached to a
 * multicast group.
 */
int ibv_destroy_qp(struct ibv_qp *qp);

/**
 * ibv_attach_mcast() - attach a UD QP to a multicast group
 * @qp: the QP
 * @gid: the group: ff00::/8, or IPv4-mapped 224.0.0.0/4
 * @lid: multicast LID; RoCE has none: ignored
 *
 * Groups are per device and shared by all its contexts. Attaching a QP
 * to a group it is in already succeeds.
 *
 * RETURN: 0, or an errno value: EINVAL for a QP that is not UD or a GID
 * that is not multicast; ENOMEM beyond the device's max_mcast_grp groups
 * or max_mcast_qp_attach QPs in the group.
 */
int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid);

/**
 * ibv_detach_mcast() - detach a UD QP from a multicast group
 * @qp: the QP
 * @gid: the group
 * @lid: ignored
 *
 * RETURN: 0, or an errno value: EINVAL if the QP is not in the group.
 */
int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid);

/* data path: work requests */

/**
 * struct ibv_sge - one scatter/gather entry
 * @addr: start, in the iova space of the MR of @lkey
 * @length: bytes
 * @lkey: the MR's local key
 */
struct ibv_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/**
 * enum ibv_wr_opcode - what a send work request does
 *
 * IBV_WR_BIND_MW binds a type 2 window (RC, UC); IBV_WR_LOCAL_INV unbinds
 * one (RC, UC); IBV_WR_SEND_WITH_INV (RC) unbinds one at the peer.
 * IBV_WR_TSO, IBV_WR_DRIVER1 and IBV_WR_ATOMIC_WRITE are EINVAL.
 */
enum ibv_wr_opcode {
	IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM,
	IBV_WR_SEND,
	IBV_WR_SEND_WITH_IMM,
	IBV_WR_RDMA_READ,
	IBV_WR_ATOMIC_CMP_AND_SWP,
	IBV_WR_ATOMIC_FETCH_AND_ADD,
	IBV_WR_LOCAL_INV,
	IBV_WR_BIND_MW,
	IBV_WR_SEND_WITH_INV,
	IBV_WR_TSO,
	IBV_WR_DRIVER1,
	IBV_WR_ATOMIC_WRITE = 15,
};

/**
 * enum ibv_send_flags - struct ibv_send_wr.send_flags bits
 * @IBV_SEND_FENCE: start only after earlier RDMA READs and atomics
 *	completed
 * @IBV_SEND_SIGNALED: complete with a work completion
 * @IBV_SEND_SOLICITED: set the solicited event bit
 * @IBV_SEND_INLINE: copy the data into the work request at post time
 * @IBV_SEND_IP_CSUM: raw packet QPs only; EINVAL on rnic
 */
enum ibv_send_flags {
	IBV_SEND_FENCE = 1 << 0,
	IBV_SEND_SIGNALED = 1 << 1,
	IBV_SEND_SOLICITED = 1 << 2,
	IBV_SEND_INLINE = 1 << 3,
	IBV_SEND_IP_CSUM = 1 << 4,
};

/**
 * struct ibv_send_wr - a send work request
 * @wr_id: returned in its work completion
 * @next: the next work request of the list, or NULL
 * @sg_list: @num_sge entries
 * @num_sge: scatter/gather entries, up to the QP's max_send_sge (with
 *	IBV_SEND_INLINE: any number, their bytes up to max_inline_data)
 * @opcode: what to do
 * @send_flags: enum ibv_send_flags bits
 * @imm_data: immediate data, network byte order (the WITH_IMM opcodes)
 * @invalidate_rkey: the rkey IBV_WR_LOCAL_INV and IBV_WR_SEND_WITH_INV
 *	unbind
 * @wr: per-opcode part: @wr.rdma (RDMA WRITE, READ), @wr.atomic,
 *	@wr.ud (UD: address handle, remote QP number and Q_Key; a Q_Key
 *	with bit 31 set means the QP's own)
 * @qp_type: XRC part: @qp_type.xrc.remote_srqn, the number of the XRC SRQ
 *	(ibv_get_srq_num()) at the target that takes the request, for
 *	IBV_QPT_XRC_SEND QPs (24 bits); @xrc_remote_srq_num is the same
 *	storage under the reference documents' OFED name
 * @bind_mw: IBV_WR_BIND_MW: the type 2 window, its rkey after the bind
 *	(ibv_inc_rkey() of its current one) and what to bind it to
 * @tso: TCP segmentation offload (raw packet QPs), not used by rnic
 */
struct ibv_send_wr {
	uint64_t wr_id;
	struct ibv_send_wr *next;
	struct ibv_sge *sg_list;
	int num_sge;
	enum ibv_wr_opcode opcode;
	unsigned int send_flags;
	union {
		__be32 imm_data;
		uint32_t invalidate_rkey;
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct ibv_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
	union {
		union {
			struct {
				uint32_t remote_srqn;
			} xrc;
		} qp_type;
		/* the reference documents' name of qp_type.xrc.remote_srqn */
		uint32_t xrc_remote_srq_num;
	};
	union {
		struct {
			struct ibv_mw *mw;
			uint32_t rkey;
			struct ibv_mw_bind_info bind_info;
		} bind_mw;
		struct {
			void *hdr;
			uint16_t hdr_sz;
			uint16_t mss;
		} tso;
	};
};

/**
 * struct ibv_recv_wr - a receive work request
 * @wr_id: returned in its work completion
 * @next: the next work request of the list, or NULL
 * @sg_list: @num_sge entries, where the message is scattered
 * @num_sge: up to the queue's max_recv_sge (max_sge of an SRQ)
 */
struct ibv_recv_wr {
	uint64_t wr_id;
	struct ibv_recv_wr *next;
	struct ibv_sge *sg_list;
	int num_sge;
};

/* struct ibv_data_buf - inline data for ibv_wr_set_inline_data_list() */
struct ibv_data_buf {
	void *addr;
	size_t length;
};

/**
 * struct ibv_qp_ex - a QP's work request builder, see ibv_qp_to_qp_ex()
 * @qp_base: the QP
 * @comp_mask: 0
 * @wr_id: id of the next work request built
 * @wr_flags: enum ibv_send_flags of the next work request built
 *
 * Between ibv_wr_start() and ibv_wr_complete() (or ibv_wr_abort()), each
 * opcode function (ibv_wr_send(), ibv_wr_rdma_write(), ...) begins a work
 * request with the current @wr_id and @wr_flags, and the ibv_wr_set_*()
 * functions give it its data and (UD) its address. ibv_wr_complete() posts
 * the work requests built, as one ibv_post_send() list; ibv_wr_abort()
 * drops them. Functions for opcodes the QP was not created with (and for
 * those rnic does not have: TSO, atomic write) are NULL, and so is
 * ibv_wr_set_xrc_srqn() but for IBV_QPT_XRC_SEND QPs.
 */
struct ibv_qp_ex {
	struct ibv_qp qp_base;
	uint64_t comp_mask;

	uint64_t wr_id;
	unsigned int wr_flags;

	void (*wr_atomic_cmp_swp)(struct ibv_qp_ex *qp, uint32_t rkey,
				  uint64_t remote_addr, uint64_t compare,
				  uint64_t swap);
	void (*wr_atomic_fetch_add)(struct ibv_qp_ex *qp, uint32_t rkey,
				    uint64_t remote_addr, uint64_t add);
	void (*wr_bind_mw)(struct ibv_qp_ex *qp, struct ibv_mw *mw,
			   uint32_t rkey,
			   const struct ibv_mw_bind_info *bind_info);
	void (*wr_local_inv)(struct ibv_qp_ex *qp, uint32_t invalidate_rkey);
	void (*wr_rdma_read)(struct ibv_qp_ex *qp, uint32_t rkey,
			     uint64_t remote_addr);
	void (*wr_rdma_write)(struct ibv_qp_ex *qp, uint32_t rkey,
			      uint64_t remote_addr);
	void (*wr_rdma_write_imm)(struct ibv_qp_ex *qp, uint32_t rkey,
				  uint64_t remote_addr, __be32 imm_data);

	void (*wr_send)(struct ibv_qp_ex *qp);
	void (*wr_send_imm)(struct ibv_qp_ex *qp, __be32 imm_data);
	void (*wr_send_inv)(struct ibv_qp_ex *qp, uint32_t invalidate_rkey);
	void (*wr_send_tso)(struct ibv_qp_ex *qp, void *hdr, uint16_t hdr_sz,
			    uint16_t mss);

	void (*wr_set_ud_addr)(struct ibv_qp_ex *qp, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey);
	void (*wr_set_xrc_srqn)(struct ibv_qp_ex *qp, uint32_t remote_srqn);

	void (*wr_set_inline_data)(struct ibv_qp_ex *qp, void *addr,
				   size_t length);
	void (*wr_set_inline_data_list)(struct ibv_qp_ex *qp, size_t num_buf,
					const struct ibv_data_buf *buf_list);
	void (*wr_set_sge)(struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr,
			   uint32_t length);
	void (*wr_set_sge_list)(struct ibv_qp_ex *qp, size_t num_sge,
				const struct ibv_sge *sg_list);

	void (*wr_start)(struct ibv_qp_ex *qp);
	int (*wr_complete)(struct ibv_qp_ex *qp);
	void (*wr_abort)(struct ibv_qp_ex *qp);

	void (*wr_atomic_write)(struct ibv_qp_ex *qp, uint32_t rkey,
				uint64_t remote_addr, const void *atomic_wr);
};

/**
 * ibv_qp_to_qp_ex() - the builder of a QP
 * @qp: a QP made by ibv_create_qp_ex() with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS
 *
 * RETURN: its struct ibv_qp_ex, or NULL for a QP created without
 * send_ops_flags.
 */
struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp);

/**
 * ibv_wr_atomic_cmp_swp() - begin an atomic compare and swap
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @rkey: remote key
 * @remote_addr: remote address, 8-byte aligned
 * @compare: the value expected
 * @swap: the value written if it is there
 */
static inline void ibv_wr_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey,
					 uint64_t remote_addr,
					 uint64_t compare, uint64_t swap)
{
	qp->wr_atomic_cmp_swp(qp, rkey, remote_addr, compare, swap);
}

/**
 * ibv_wr_atomic_fetch_add() - begin an atomic fetch and add
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @rkey: remote key
 * @remote_addr: remote address, 8-byte aligned
 * @add: the addend
 */
static inline void ibv_wr_atomic_fetch_add(struct ibv_qp_ex *qp,
					   uint32_t rkey,
					   uint64_t remote_addr, uint64_t add)
{
	qp->wr_atomic_fetch_add(qp, rkey, remote_addr, add);
}

/**
 * ibv_wr_bind_mw() - begin a type 2 memory window bind
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @mw: the window
 * @rkey: its new rkey
 * @bind_info: what to bind
 */
static inline void ibv_wr_bind_mw(struct ibv_qp_ex *qp, struct ibv_mw *mw,
				  uint32_t rkey,
				  const struct ibv_mw_bind_info *bind_info)
{
	qp->wr_bind_mw(qp, mw, rkey, bind_info);
}

/**
 * ibv_wr_local_inv() - begin a local invalidate of a type 2 window
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @invalidate_rkey: the rkey
 */
static inline void ibv_wr_local_inv(struct ibv_qp_ex *qp,
				    uint32_t invalidate_rkey)
{
	qp->wr_local_inv(qp, invalidate_rkey);
}

/**
 * ibv_wr_rdma_read() - begin an RDMA READ
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @rkey: remote key
 * @remote_addr: remote address
 */
static inline void ibv_wr_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey,
				    uint64_t remote_addr)
{
	qp->wr_rdma_read(qp, rkey, remote_addr);
}

/**
 * ibv_wr_rdma_write() - begin an RDMA WRITE
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @rkey: remote key
 * @remote_addr: remote address
 */
static inline void ibv_wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey,
				     uint64_t remote_addr)
{
	qp->wr_rdma_write(qp, rkey, remote_addr);
}

/**
 * ibv_wr_rdma_write_imm() - begin an RDMA WRITE with immediate data
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @rkey: remote key
 * @remote_addr: remote address
 * @imm_data: immediate data, network byte order
 */
static inline void ibv_wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey,
					 uint64_t remote_addr,
					 __be32 imm_data)
{
	qp->wr_rdma_write_imm(qp, rkey, remote_addr, imm_data);
}

/**
 * ibv_wr_send() - begin a SEND
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 */
static inline void ibv_wr_send(struct ibv_qp_ex *qp)
{
	qp->wr_send(qp);
}

/**
 * ibv_wr_send_imm() - begin a SEND with immediate data
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @imm_data: immediate data, network byte order
 */
static inline void ibv_wr_send_imm(struct ibv_qp_ex *qp, __be32 imm_data)
{
	qp->wr_send_imm(qp, imm_data);
}

/**
 * ibv_wr_send_inv() - begin a SEND that invalidates a peer's window
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @invalidate_rkey: the rkey
 */
static inline void ibv_wr_send_inv(struct ibv_qp_ex *qp,
				   uint32_t invalidate_rkey)
{
	qp->wr_send_inv(qp, invalidate_rkey);
}

/**
 * ibv_wr_send_tso() - TSO send (raw packet QPs): rnic has none (NULL)
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @hdr: header
 * @hdr_sz: its size
 * @mss: segment size
 */
static inline void ibv_wr_send_tso(struct ibv_qp_ex *qp, void *hdr,
				   uint16_t hdr_sz, uint16_t mss)
{
	qp->wr_send_tso(qp, hdr, hdr_sz, mss);
}

/**
 * ibv_wr_set_ud_addr() - address the current work request (UD)
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @ah: address handle
 * @remote_qpn: remote QP number
 * @remote_qkey: Q_Key; with bit 31 set, the QP's own
 */
static inline void ibv_wr_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah,
				      uint32_t remote_qpn,
				      uint32_t remote_qkey)
{
	qp->wr_set_ud_addr(qp, ah, remote_qpn, remote_qkey);
}

/**
 * ibv_wr_set_xrc_srqn() - the XRC SRQ the work request goes to
 * @qp: the builder of an IBV_QPT_XRC_SEND QP (NULL for other types),
 *	between ibv_wr_start() and ibv_wr_complete()
 * @remote_srqn: its number, as ibv_get_srq_num() gave it at the target
 */
static inline void ibv_wr_set_xrc_srqn(struct ibv_qp_ex *qp,
				       uint32_t remote_srqn)
{
	qp->wr_set_xrc_srqn(qp, remote_srqn);
}

/**
 * ibv_wr_set_inline_data() - give the current work request inline data
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @addr: the bytes, copied before the call returns
 * @length: their number
 */
static inline void ibv_wr_set_inline_data(struct ibv_qp_ex *qp, void *addr,
					  size_t length)
{
	qp->wr_set_inline_data(qp, addr, length);
}

/**
 * ibv_wr_set_inline_data_list() - inline data from several buffers
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @num_buf: entries of @buf_list
 * @buf_list: the buffers, copied in order
 */
static inline void
ibv_wr_set_inline_data_list(struct ibv_qp_ex *qp, size_t num_buf,
			    const struct ibv_data_buf *buf_list)
{
	qp->wr_set_inline_data_list(qp, num_buf, buf_list);
}

/**
 * ibv_wr_set_sge() - give the current work request one SGE
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @lkey: local key
 * @addr: address
 * @length: bytes
 */
static inline void ibv_wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey,
				  uint64_t addr, uint32_t length)
{
	qp->wr_set_sge(qp, lkey, addr, length);
}

/**
 * ibv_wr_set_sge_list() - give the current work request SGEs
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @num_sge: entries of @sg_list
 * @sg_list: the SGEs, copied
 */
static inline void ibv_wr_set_sge_list(struct ibv_qp_ex *qp, size_t num_sge,
				       const struct ibv_sge *sg_list)
{
	qp->wr_set_sge_list(qp, num_sge, sg_list);
}

/**
 * ibv_wr_start() - begin building a list of work requests
 * @qp: the builder
 */
static inline void ibv_wr_start(struct ibv_qp_ex *qp)
{
	qp->wr_start(qp);
}

/**
 * ibv_wr_complete() - post the work requests built
 * @qp: the builder
 *
 * RETURN: 0, or an errno value: the first error of the building (EINVAL for an
 *	opcode or data the QP cannot take, ENOMEM when the list outgrew the
 *	send queue), or ibv_post_send()'s; nothing is posted then.
 */
static inline int ibv_wr_complete(struct ibv_qp_ex *qp)
{
	return qp->wr_complete(qp);
}

/**
 * ibv_wr_abort() - drop the work requests built
 * @qp: the builder
 */
static inline void ibv_wr_abort(struct ibv_qp_ex *qp)
{
	qp->wr_abort(qp);
}

/**
 * ibv_wr_atomic_write() - atomic write: rnic has none (NULL)
 * @qp: the builder, between ibv_wr_start() and ibv_wr_complete()
 * @rkey: remote key
 * @remote_addr: remote address
 * @atomic_wr: the 8 bytes
 */
static inline void ibv_wr_atomic_write(struct ibv_qp_ex *qp, uint32_t rkey,
				       uint64_t remote_addr,
				       const void *atomic_wr)
{
	qp->wr_atomic_write(qp, rkey, remote_addr, atomic_wr);
}

/**
 * ibv_post_send() - post a list of send work requests
 * @qp: the QP, in RTS, SQD or SQE (or ERR: the requests complete with
 *	IBV_WC_WR_FLUSH_ERR)
 * @wr: the first work request
 * @bad_wr: on failure, set to the first work request that was not posted;
 *	untouched on success
 *
 * Each work request is checked, in this order, and the first bad one
 * stops the list: the QP's state (as of the last ibv_modify_qp() or
 * ibv_query_qp() with IBV_QP_STATE) must be RTS, SQD, SQE or ERR; the
 * opcode must be one the QP type has (RC: RDMA WRITE with or without
 * immediate, SEND with or without immediate, RDMA READ, both atomics;
 * UC: the WRITEs and SENDs; UD: the SENDs; XRC_SEND: RC's, to the XRC
 * SRQ qp_type.xrc.remote_srqn names); @send_flags may have only
 * IBV_SEND_FENCE, IBV_SEND_SIGNALED, IBV_SEND_SOLICITED and
 * IBV_SEND_INLINE; num_sge must be 0 .. max_send_sge, or with
 * IBV_SEND_INLINE (WRITEs and SENDs only) any number of SGEs whose lengths
 * add up to at most max_inline_data; an atomic needs exactly one 8-byte
 * SGE; a UD work request needs wr.ud.ah. Then the send queue must have a
 * free entry. A QP created with 0 send work requests has none.
 *
 * With IBV_SEND_INLINE the bytes the SGEs point to (virtual addresses;
 * lkeys are ignored) are copied into the send queue before the call
 * returns, so the buffers may be reused at once and need no MR. The kernel
 * checks the rest (SGEs against their MRs, remote keys, an atomic's
 * 8-byte alignment, the AH's PD) when it executes the work request, and
 * reports a failure in its work completion.
 *
 * The work requests before the bad one are posted: written to the QP's
 * mapped send queue and published together. Then one doorbell
 * (RNIC_IOCTL_RING_SQ) starts them. If the environment had RNIC_SQ_POLL=1
 * when the QP was created (ignored in set-uid programs), a kernel thread
 * polls its send queue and the doorbell is rung only when that thread has
 * gone to sleep; otherwise ibv_post_send() always makes that one system
 * call. A failed doorbell does not fail the call: the work requests are
 * posted and start with the next doorbell; with RNIC_DEBUG set the
 * failure is reported on stderr (it is not expected but once the device
 * is gone, which IBV_EVENT_DEVICE_FATAL reports).
 *
 * Threads may post to the same QP at once; posting to different QPs
 * shares no lock.
 *
 * RETURN: 0, or an errno value (errno is set too): EINVAL for a QP in
 * RESET, INIT or RTR, an opcode the QP type does not have, a bad flag,
 * too many SGEs, too much inline data, inline data with RDMA READ or an
 * atomic, an atomic without exactly one 8-byte SGE, a UD work request
 * without an address handle; ENOMEM when the send queue is full.
 */
int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);

/**
 * ibv_post_recv() - post a list of receive work requests; no system call
 *	but to flush
 * @qp: the QP, in INIT or a later state, without an SRQ
 * @wr: the first work request
 * @bad_wr: on failure, set to the first work request that was not posted;
 *	untouched on success
 *
 * The work requests before the first bad one (num_sge not 0 ..
 * max_recv_sge) or the first that finds the receive queue full are
 * written to the QP's mapped receive queue and published together. On a
 * QP the kernel has moved to ERR, one RNIC_IOCTL_KICK_SQ asks it to flush
 * them (each completes with IBV_WC_WR_FLUSH_ERR); otherwise no system call
 * is made. Threads may post to the same QP at once.
 *
 * RETURN: 0, or an errno value (errno is set too): EINVAL for a QP in
 * RESET, a QP with an SRQ, an XRC QP (it has no receive queue: an XRC
 * target delivers to the XRC SRQs of its domain) or too many SGEs; ENOMEM
 * when the receive queue is full (always, for a QP created with 0
 * receive work requests).
 */
int ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);

/**
 * ibv_post_srq_recv() - post a list of receive work requests to an SRQ;
 *	no system call
 * @srq: the SRQ
 * @recv_wr: the first work request
 * @bad_recv_wr: on failure, set to the first work request that was not
 *	posted; untouched on success
 *
 * As ibv_post_recv(), with the SRQ's max_sge. Threads may post to the same
 * SRQ at once.
 *
 * RETURN: 0, or an errno value (errno is set too): EINVAL for too many
 * SGEs; ENOMEM when the SRQ is full.
 */
int ibv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
		      struct ibv_recv_wr **bad_recv_wr);

/* shared receive queues, address handles: functions */

/**
 * ibv_create_srq() - create a shared receive queue
 * @pd: its protection domain
 * @srq_init_attr: max_wr from 1 to max_srq_wr (rounded up to a power of
 *	two), max_sge up to max_srq_sge, srq_limit up to the granted max_wr
 *	(0: not armed); max_wr and max_sge are replaced by what was granted
 *
 * RETURN: the SRQ, or NULL with errno set: EINVAL for a bad size or
 * limit or a PD of another context, ENOMEM beyond the device's max_srq,
 * ENODEV if the device was removed, EPROTO if the kernel described a ring
 * librnic cannot use.
 */
struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *srq_init_attr);

/**
 * ibv_modify_srq() - arm the limit of a shared receive queue
 * @srq: the SRQ
 * @srq_attr: srq_limit is read with IBV_SRQ_LIMIT
 * @srq_attr_mask: IBV_SRQ_LIMIT, or 0 (nothing changes)
 *
 * An armed SRQ raises IBV_EVENT_SRQ_LIMIT_REACHED once, when fewer than
 * srq_limit work requests are left in it; the limit then reads 0 until
 * armed again. srq_limit 0 disarms.
 *
 * RETURN: 0, or an errno value: EINVAL for IBV_SRQ_MAX_WR (rnic does not
 * resize SRQs), unknown mask bits or srq_limit above max_wr; nothing is
 * changed then.
 */
int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		   int srq_attr_mask);

/**
 * ibv_query_srq() - read the sizes and the armed limit of an SRQ
 * @srq: the SRQ
 * @srq_attr: filled on success; srq_limit 0 means not (or no longer) armed
 *
 * RETURN: 0, or an errno value.
 */
int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);

/**
 * ibv_destroy_srq() - destroy a shared receive queue
 * @srq: the SRQ; stays valid if this fails
 *
 * Waits until every asynchronous event about the SRQ that was returned
 * by ibv_get_async_event() has been acknowledged with
 * ibv_ack_async_event(), then unmaps the ring and frees @srq.
 *
 * RETURN: 0, or an errno value: EBUSY while a QP uses the SRQ.
 */
int ibv_destroy_srq(struct ibv_srq *srq);

/**
 * ibv_create_ah() - create an address handle for UD sends
 * @pd: its protection domain
 * @attr: the address: port_num 1, is_global set (RoCE has no LIDs),
 *	grh.sgid_index naming a GID in use, dlid and src_path_bits 0, sl
 *	below 16, a 20-bit flow label, a valid enum ibv_rate; the source GID
 *	and grh.dgid both IPv4-mapped or both not
 *
 * The source GID is read once: the AH keeps it if the table changes.
 *
 * RETURN: the AH, or NULL with errno set: EINVAL for an address breaking
 * a rule above or a PD of another context, ENOMEM beyond the device's
 * max_ah, ENODEV if the device was removed.
 */
struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);

/**
 * ibv_destroy_ah() - destroy an address handle
 * @ah: the AH; stays valid if this fails
 *
 * RETURN: 0, or an errno value.
 */
int ibv_destroy_ah(struct ibv_ah *ah);

/**
 * ibv_init_ah_from_wc() - the address that answers a received UD message
 * @context: the context the message arrived on
 * @port_num: the port it arrived on
 * @wc: its work completion
 * @grh: the 40 bytes in front of its payload; read only when wc_flags has
 *	IBV_WC_GRH
 * @ah_attr: filled on success
 *
 * port_num is @port_num; dlid, sl and src_path_bits come from @wc (slid,
 * sl, dlid_path_bits). Without IBV_WC_GRH that is all (is_global 0).
 * With it the address is global, and the GRH buffer holds, decided as
 * rdma-core decides:
 *
 * - an IPv6 header (RoCEv2 over IPv6, next header UDP): dgid is its
 *   source GID, flow_label, traffic_class and hop_limit are its own;
 * - an IPv4 header in its last 20 bytes (RoCEv2 over IPv4; the first 20
 *   are undefined): dgid is the IPv4-mapped source address, hop_limit the
 *   TTL, traffic_class the TOS byte, flow_label 0.
 *
 * sgid_index is the index of the GID of ours the peer sent to.
 *
 * RETURN: 0, or -1 with errno set: EINVAL for a bad port, a message sent
 * to a multicast address or to no GID of the port (a RoCEv1 header
 * included: rnic's GIDs are RoCEv2), EPROTONOSUPPORT when the buffer holds
 * neither an IPv6 header with next header UDP nor an IPv4 header.
 */
int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
			struct ibv_wc *wc, struct ibv_grh *grh,
			struct ibv_ah_attr *ah_attr);

/**
 * ibv_create_ah_from_wc() - create the address handle answering a UD
 *	message: ibv_init_ah_from_wc(), then ibv_create_ah()
 * @pd: protection domain of the new AH
 * @wc: work completion of the message
 * @grh: the 40 bytes in front of its payload
 * @port_num: the port it arrived on
 *
 * RETURN: the AH, or NULL with errno set by either step.
 */
struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
				     struct ibv_grh *grh, uint8_t port_num);

/**
 * ibv_fork_init() - prepare for fork()
 *
 * Nothing to do with rnic: memory registrations pin pages with
 * FOLL_PIN | FOLL_LONGTERM, and the kernels rnic supports give the child a
 * copy of pinned anonymous pages at fork(), so the parent keeps the
 * registered ones (what rdma-core calls copy-on-fork support, reported as
 * IBV_FORK_UNNEEDED). The child must not use inherited verbs objects.
 *
 * RETURN: 0.
 */
int ibv_fork_init(void);

/**
 * ibv_is_fork_initialized() - is fork() safe?
 *
 * RETURN: IBV_FORK_UNNEEDED, whether ibv_fork_init() was called or not.
 */
enum ibv_fork_status ibv_is_fork_initialized(void);

/**
 * ibv_node_type_str() - describe a node type
 * @node_type: the value
 *
 * RETURN: a constant string, "unknown" for a value outside the enum.
 */
const char *ibv_node_type_str(enum ibv_node_type node_type);

/**
 * ibv_port_state_str() - describe a port state
 * @port_state: the value
 *
 * RETURN: a constant string, "unknown" for a value outside the enum.
 */
const char *ibv_port_state_str(enum ibv_port_state port_state);

/**
 * ibv_event_type_str() - describe an asynchronous event type
 * @event: the value
 *
 * RETURN: a constant string, "unknown" for a value outside the enum.
 */
const char *ibv_event_type_str(enum ibv_event_type event);

/**
 * ibv_wc_status_str() - describe a work completion status
 * @status: the value
 *
 * RETURN: a constant string, "unknown" for a value outside the enum.
 */
const char *ibv_wc_status_str(enum ibv_wc_status status);

/**
 * ibv_rate_to_mult() - rate as a multiple of 2.5 Gbit/s
 * @rate: the rate (IBV_RATE_5_GBPS gives 2)
 *
 * RETURN: the multiple, or -1 for IBV_RATE_MAX, an unknown value, or a
 * rate that is not a multiple of 2.5 Gbit/s (e.g. IBV_RATE_14_GBPS).
 */
int ibv_rate_to_mult(enum ibv_rate rate) RNIC_ATTR_CONST;

/**
 * mult_to_ibv_rate() - rate from a multiple of 2.5 Gbit/s
 * @mult: the multiple (2 gives IBV_RATE_5_GBPS)
 *
 * RETURN: the rate, or IBV_RATE_MAX when no rate has that multiple.
 */
enum ibv_rate mult_to_ibv_rate(int mult) RNIC_ATTR_CONST;

/**
 * ibv_rate_to_mbps() - rate in Mbit/s
 * @rate: the rate (IBV_RATE_5_GBPS gives 5000)
 *
 * The value is the data rate of the link, e.g. 14062 for IBV_RATE_14_GBPS.
 *
 * RETURN: Mbit/s, or -1 for IBV_RATE_MAX or an unknown value.
 */
int ibv_rate_to_mbps(enum ibv_rate rate) RNIC_ATTR_CONST;

/**
 * mbps_to_ibv_rate() - rate from Mbit/s
 * @mbps: exactly a value ibv_rate_to_mbps() returns
 *
 * RETURN: the rate, or IBV_RATE_MAX when no rate has that value.
 */
enum ibv_rate mbps_to_ibv_rate(int mbps) RNIC_ATTR_CONST;

/* extended verbs */

/**
 * ibv_query_device_ex() - query the device, extended attributes included
 * @context: an open context
 * @input: NULL, or comp_mask 0
 * @attr: filled on success (orig_attr as ibv_query_device(); the rest
 *	as documented at struct ibv_device_attr_ex)
 *
 * RETURN: 0, or an errno value: EINVAL for a non-zero input comp_mask,
 * otherwise as ibv_query_device().
 */
static inline int
ibv_query_device_ex(struct ibv_context *context,
		    const struct ibv_query_device_ex_input *input,
		    struct ibv_device_attr_ex *attr)
{
	struct verbs_context *vctx;
	int ret;

	if (input && input->comp_mask)
		return EINVAL;
	vctx = verbs_get_ctx_op(context, query_device_ex);
	if (vctx) {
		ret = vctx->query_device_ex(context, input, attr,
					    sizeof(*attr));
		if (ret != EOPNOTSUPP && ret != ENOSYS)
			return ret;
	}
	memset(attr, 0, sizeof(*attr));
	return ibv_query_device(context, &attr->orig_attr);
}

/**
 * _ibv_query_gid_ex() - what ibv_query_gid_ex() calls
 * @context: an open context
 * @port_num: port number
 * @gid_index: entry
 * @entry: filled on success
 * @flags: 0
 * @entry_size: sizeof(struct ibv_gid_entry) as the caller was built
 *
 * RETURN: as ibv_query_gid_ex().
 */
int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size);
/**
 * _ibv_query_gid_table() - what ibv_query_gid_table() calls
 * @context: an open context
 * @entries: room for @max_entries
 * @max_entries: size of @entries
 * @flags: 0
 * @entry_size: sizeof(struct ibv_gid_entry) as the caller was built
 *
 * RETURN: as ibv_query_gid_table().
 */
ssize_t _ibv_query_gid_table(struct ibv_context *context,
			     struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags,
			     size_t entry_size);

/**
 * ibv_query_gid_ex() - read one GID table entry with its type and netdev
 * @context: an open context
 * @port_num: port number, from 1
 * @gid_index: entry, from 0 to gid_tbl_len - 1
 * @entry: filled on success
 * @flags: 0
 *
 * RETURN: 0, or an errno value: EINVAL for a bad port, index or flags,
 * ENODATA for an empty entry, ENODEV when the device was removed.
 */
static inline int ibv_query_gid_ex(struct ibv_context *context,
				   uint32_t port_num, uint32_t gid_index,
				   struct ibv_gid_entry *entry, uint32_t flags)
{
	return _ibv_query_gid_ex(context, port_num, gid_index, entry, flags,
				 sizeof(*entry));
}

/**
 * ibv_query_gid_table() - read every GID table entry in use, all ports
 * @context: an open context
 * @entries: room for @max_entries
 * @max_entries: size of @entries
 * @flags: 0
 *
 * RETURN: the number of entries written, or a negative errno value:
 * -EINVAL for bad flags or too small an @entries, -ENODEV.
 */
static inline ssize_t ibv_query_gid_table(struct ibv_context *context,
					  struct ibv_gid_entry *entries,
					  size_t max_entries, uint32_t flags)
{
	return _ibv_query_gid_table(context, entries, max_entries, flags,
				    sizeof(*entries));
}

/**
 * ibv_get_pkey_index() - the P_Key table index of a P_Key
 * @context: an open context
 * @port_num: port number, from 1
 * @pkey: the P_Key, network byte order
 *
 * RETURN: the index, or -1 with errno set (ENOENT: not in the table).
 */
int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
		       __be16 pkey);

/**
 * ibv_get_device_index() - the kernel's index of a device
 * @device: the device
 *
 * rnic devices are not ib_core devices and have no ib_core index.
 *
 * RETURN: -1: none (as rdma-core answers for a device without one).
 */
int ibv_get_device_index(struct ibv_device *device);

/**
 * ibv_reg_mr_iova2() - ibv_reg_mr_iova() with unsigned access bits
 * @pd: protection domain
 * @addr: start
 * @length: bytes
 * @iova: address of @addr in work requests and remote accesses
 * @access: enum ibv_access_flags bits; optional ones rnic does not have
 *	(from IBV_ACCESS_OPTIONAL_FIRST up, but RELAXED_ORDERING) are ignored
 *
 * RETURN: as ibv_reg_mr().
 */
struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access);

/**
 * ibv_rereg_mr() - change a memory region in place
 * @mr: the MR
 * @flags: enum ibv_rereg_mr_flags
 * @pd: new PD (IBV_REREG_MR_CHANGE_PD)
 * @addr: new start (IBV_REREG_MR_CHANGE_TRANSLATION)
 * @length: new length (IBV_REREG_MR_CHANGE_TRANSLATION)
 * @access: new access bits (IBV_REREG_MR_CHANGE_ACCESS)
 *
 * rnic's kernel cannot re-register; deregister and register instead.
 *
 * RETURN: IBV_REREG_MR_ERR_INPUT with errno EINVAL for flags outside
 * IBV_REREG_MR_FLAGS_SUPPORTED or none; otherwise IBV_REREG_MR_ERR_INPUT
 * with errno EOPNOTSUPP. @mr is valid and unchanged in both cases.
 */
int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		 size_t length, int access);

/**
 * ibv_create_cq_ex() - create an extended completion queue
 * @context: the context
 * @cq_attr: what to create: see struct ibv_cq_init_attr_ex
 *
 * The CQ is read with ibv_start_poll(), ibv_next_poll(), ibv_end_poll()
 * and the ibv_wc_read_*() functions of the fields @cq_attr->wc_flags
 * asks for, and takes every other CQ verb through ibv_cq_ex_to_cq()
 * (ibv_poll_cq() included). None of them makes a system call.
 *
 * RETURN: the CQ, or NULL with errno set: EOPNOTSUPP for wc_flags outside
 * IBV_WC_STANDARD_FLAGS, a parent domain or a flag other than
 * IBV_CREATE_CQ_ATTR_SINGLE_THREADED; EINVAL for an unknown comp_mask
 * bit; otherwise as ibv_create_cq().
 */
static inline struct ibv_cq_ex *
ibv_create_cq_ex(struct ibv_context *context,
		 struct ibv_cq_init_attr_ex *cq_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, create_cq_ex);

	if (!vctx) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return vctx->create_cq_ex(context, cq_attr);
}

/**
 * ibv_create_qp_ex() - create a queue pair with extended attributes
 * @context: the context
 * @qp_init_attr_ex: what to create: see struct ibv_qp_init_attr_ex;
 *	cap is replaced by the sizes granted
 *
 * With IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, ibv_qp_to_qp_ex() gives the QP's
 * work request builder, with the opcodes asked for. An IBV_QPT_XRC_RECV
 * QP is made in @qp_init_attr_ex->xrcd (IBV_QP_INIT_ATTR_XRCD), and
 * needs no PD, CQ or queue sizes; it belongs to the domain (see
 * ibv_open_qp(), ibv_destroy_qp()).
 *
 * RETURN: the QP, or NULL with errno set: EOPNOTSUPP for a comp_mask bit
 * other than PD, XRCD, SEND_OPS_FLAGS and CREATE_FLAGS, a create flag, or
 * send_ops_flags naming an opcode rnic or the QP type does not have;
 * EINVAL without a PD (without a domain for XRC_RECV) or for the
 * reference documents' IBV_QPT_XRC (ibv_create_qp() takes it); otherwise
 * as ibv_create_qp().
 */
static inline struct ibv_qp *
ibv_create_qp_ex(struct ibv_context *context,
		 struct ibv_qp_init_attr_ex *qp_init_attr_ex)
{
	struct verbs_context *vctx;

	if (qp_init_attr_ex->comp_mask == IBV_QP_INIT_ATTR_PD)
		return ibv_create_qp(qp_init_attr_ex->pd,
				     (struct ibv_qp_init_attr *)qp_init_attr_ex);
	vctx = verbs_get_ctx_op(context, create_qp_ex);
	if (!vctx) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return vctx->create_qp_ex(context, qp_init_attr_ex);
}

/**
 * ibv_create_srq_ex() - create a shared receive queue, extended form
 * @context: the context
 * @srq_init_attr_ex: what to create: see struct ibv_srq_init_attr_ex
 *
 * RETURN: the SRQ, or NULL with errno set: EOPNOTSUPP for tag matching
 * or a comp_mask bit from IBV_SRQ_INIT_ATTR_RESERVED up; EINVAL without
 * a PD, for an XRC SRQ without its domain or CQ (or with objects of
 * another context) and for an unknown type; otherwise as
 * ibv_create_srq().
 */
static inline struct ibv_srq *
ibv_create_srq_ex(struct ibv_context *context,
		  struct ibv_srq_init_attr_ex *srq_init_attr_ex)
{
	struct verbs_context *vctx;
	uint32_t mask = srq_init_attr_ex->comp_mask;
	uint32_t basic = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;

	if (!(mask & ~basic) && (mask & IBV_SRQ_INIT_ATTR_PD) &&
	    (!(mask & IBV_SRQ_INIT_ATTR_TYPE) ||
	     srq_init_attr_ex->srq_type == IBV_SRQT_BASIC))
		return ibv_create_srq(srq_init_attr_ex->pd,
				      (struct ibv_srq_init_attr *)srq_init_attr_ex);
	vctx = verbs_get_ctx_op(context, create_srq_ex);
	if (!vctx) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return vctx->create_srq_ex(context, srq_init_attr_ex);
}

/**
 * ibv_get_srq_num() - the number of an XRC SRQ, which XRC senders name
 *	(qp_type.xrc.remote_srqn)
 * @srq: an SRQ of type IBV_SRQT_XRC
 * @srq_num: set to its number (24 bits, unique among the device's live
 *	XRC SRQs)
 *
 * RETURN: 0, or an errno value: EINVAL for an SRQ that is not an XRC
 * one (rnic numbers only those).
 */
static inline int ibv_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	struct verbs_context *vctx = verbs_get_ctx_op(srq->context,
						      get_srq_num);

	if (!vctx)
		return EOPNOTSUPP;
	return vctx->get_srq_num(srq, srq_num);
}

/**
 * ibv_open_xrcd() - open an XRC domain
 * @context: the context
 * @xrcd_init_attr: which domain: see struct ibv_xrcd_init_attr
 *
 * A domain opened by a file is shared by every context of the device
 * that opens the same file (in any process); it lives while one of them
 * has it open. XRC SRQs and XRC target QPs are created in it.
 *
 * RETURN: the domain, or NULL with errno set: EOPNOTSUPP for a comp_mask
 * bit from IBV_XRCD_INIT_ATTR_RESERVED up; EINVAL without FD or OFLAGS,
 * for a file without a domain and no O_CREAT, or one with a domain and
 * O_CREAT | O_EXCL; EBADF for a bad @fd.
 */
static inline struct ibv_xrcd *
ibv_open_xrcd(struct ibv_context *context,
	      struct ibv_xrcd_init_attr *xrcd_init_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, open_xrcd);

	if (!vctx) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return vctx->open_xrcd(context, xrcd_init_attr);
}

/**
 * ibv_close_xrcd() - close this context's opening of an XRC domain
 * @xrcd: the domain; stays valid if this fails
 *
 * RETURN: 0, or an errno value: EBUSY while an SRQ or QP of the context
 * uses it.
 */
static inline int ibv_close_xrcd(struct ibv_xrcd *xrcd)
{
	struct verbs_context *vctx = verbs_get_ctx(xrcd->context);

	return vctx->close_xrcd(xrcd);
}

/**
 * ibv_open_qp() - a handle on an XRC target QP of a domain, by number
 * @context: the context
 * @qp_open_attr: the domain (opened by @context), the number and
 *	IBV_QPT_XRC_RECV: see struct ibv_qp_open_attr
 *
 * The QP may have been created by another process, even one that has
 * exited since (the QP stays in its domain). The handle is modified,
 * queried and destroyed with the usual verbs; the QP goes away with its
 * last handle.
 *
 * RETURN: the QP, or NULL with errno set: EOPNOTSUPP for a comp_mask bit
 * from IBV_QP_OPEN_ATTR_RESERVED up; EINVAL without NUM, XRCD or TYPE,
 * for another type, or a number that is no target QP of the domain.
 */
static inline struct ibv_qp *
ibv_open_qp(struct ibv_context *context, struct ibv_qp_open_attr *qp_open_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, open_qp);

	if (!vctx) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return vctx->open_qp(context, qp_open_attr);
}

/*
 * The reference documents' OFED 1.5 XRC API, over the verbs above: a
 * struct ibv_xrc_domain is one ibv_open_xrcd() of the context, and keeps
 * the receive QPs the process registered with.
 */

/**
 * ibv_open_xrc_domain() - open an XRC domain (OFED 1.5)
 * @context: the context
 * @fd: a file whose inode names the domain, or -1 (a domain of this
 *	context alone)
 * @oflag: 0, O_CREAT or O_CREAT | O_EXCL, as for ibv_open_xrcd()
 *
 * RETURN: the domain, or NULL with errno set as ibv_open_xrcd() sets it.
 */
struct ibv_xrc_domain *ibv_open_xrc_domain(struct ibv_context *context,
					   int fd, int oflag);

/**
 * ibv_close_xrc_domain() - close an XRC domain (OFED 1.5)
 * @d: the domain; stays valid if this fails
 *
 * RETURN: 0, or an errno value: EBUSY while the process is registered
 * with a receive QP of @d (ibv_unreg_xrc_rcv_qp() first) or an SRQ of
 * the context uses it.
 */
int ibv_close_xrc_domain(struct ibv_xrc_domain *d);

/**
 * ibv_create_xrc_srq() - create an XRC SRQ (OFED 1.5)
 * @pd: its protection domain
 * @xrc_domain: its XRC domain
 * @xrc_cq: the CQ of its receive completions
 * @srq_init_attr: as for ibv_create_srq()
 *
 * Its number, for senders' xrc_remote_srq_num, is ibv_get_srq_num()'s
 * (rnic's struct ibv_srq is rdma-core's: it has no xrc_srq_num).
 *
 * RETURN: the SRQ, or NULL with errno set, as ibv_create_srq_ex().
 */
struct ibv_srq *ibv_create_xrc_srq(struct ibv_pd *pd,
				   struct ibv_xrc_domain *xrc_domain,
				   struct ibv_cq *xrc_cq,
				   struct ibv_srq_init_attr *srq_init_attr);

/**
 * ibv_create_xrc_rcv_qp() - create an XRC receive (target) QP (OFED 1.5)
 * @init_attr: only @init_attr->xrc_domain is read
 * @xrc_rcv_qpn: set to the QP's number
 *
 * The process is registered with the new QP (see ibv_reg_xrc_rcv_qp()).
 *
 * RETURN: 0, or an errno value (EINVAL without a domain).
 */
int ibv_create_xrc_rcv_qp(struct ibv_qp_init_attr *init_attr,
			  uint32_t *xrc_rcv_qpn);

/**
 * ibv_modify_xrc_rcv_qp() - ibv_modify_qp() of an XRC receive QP (OFED 1.5)
 * @xrc_domain: its domain
 * @xrc_qp_num: its number; the process must be registered with it
 * @attr: as for ibv_modify_qp()
 * @attr_mask: as for ibv_modify_qp()
 *
 * RETURN: 0, or an errno value: EINVAL for a QP the process is not
 * registered with through @xrc_domain; else as ibv_modify_qp().
 */
int ibv_modify_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
			  uint32_t xrc_qp_num, struct ibv_qp_attr *attr,
			  int attr_mask);

/**
 * ibv_query_xrc_rcv_qp() - ibv_query_qp() of an XRC receive QP (OFED 1.5)
 * @xrc_domain: its domain
 * @xrc_qp_num: its number; the process must be registered with it
 * @attr: as for ibv_query_qp()
 * @attr_mask: as for ibv_query_qp()
 * @init_attr: as for ibv_query_qp(), with xrc_domain set to @xrc_domain
 *
 * RETURN: as ibv_modify_xrc_rcv_qp().
 */
int ibv_query_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
			 uint32_t xrc_qp_num, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_qp_init_attr *init_attr);

/**
 * ibv_reg_xrc_rcv_qp() - register the process with an XRC receive QP
 *	(OFED 1.5), which then lives at least until it unregisters
 * @xrc_domain: the QP's domain
 * @xrc_qp_num: its number
 *
 * Registering again counts: each registration needs its
 * ibv_unreg_xrc_rcv_qp().
 *
 * RETURN: 0, or an errno value: EINVAL for a number that is no receive
 * QP of the domain; ENOMEM.
 */
int ibv_reg_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain, uint32_t xrc_qp_num);

/**
 * ibv_unreg_xrc_rcv_qp() - drop a registration with an XRC receive QP
 *	(OFED 1.5); the QP is destroyed when no process is registered
 * @xrc_domain: the QP's domain
 * @xrc_qp_num: its number
 *
 * RETURN: 0, or an errno value: EINVAL for a QP the process is not
 * registered with through @xrc_domain.
 */
int ibv_unreg_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
			 uint32_t xrc_qp_num);

/**
 * ibv_is_qpt_supported() - does a capability mask have a QP type?
 * @caps: a mask of QP types, e.g. a supported_qpts field
 * @qpt: the type
 *
 * RETURN: 1 if bit @qpt of @caps is set, else 0.
 */
static inline int ibv_is_qpt_supported(uint32_t caps, enum ibv_qp_type qpt)
{
	return !!(caps & (1U << qpt));
}

#ifdef __cplusplus
}
#endif

#endif /* RNIC_INFINIBAND_VERBS_H */
