/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * rnic: software RDMA NIC - character device ABI.
 *
 * The only contract between rnic.ko and librnic for the verbs char device
 * (/dev/infiniband/uverbsN, N >= RNIC_UVERBS_BASE).
 */
#ifndef _UAPI_RDMA_RNIC_ABI_H
#define _UAPI_RDMA_RNIC_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>

/**
 * DOC: rnic ioctl contract
 *
 * Opening the char device of an rnic device creates a verbs context; every
 * ioctl below is issued on that file descriptor.
 *
 * Every ioctl argument is a struct whose first field is ``__u32 size``, the
 * number of bytes userspace passes, followed by ``__u32 flags``. The kernel
 * accepts a shorter struct from an older userspace (missing input fields
 * read as zero, missing output fields are not written) and a longer struct
 * from a newer userspace as long as the unknown tail is zero. Output fields
 * are prefixed ``out_``; every byte of the output fields the kernel knows is
 * written, even when unused. Fields called ``__reserved`` must be zero.
 *
 * Error contract (negative errno from ioctl(), errno in userspace):
 *
 * - ENOTTY: unknown ioctl number.
 * - E2BIG: the struct is longer than the kernel's and the tail is not zero.
 * - EINVAL: size smaller than the first version of the struct, unknown
 *   flags, non-zero reserved fields, or a bad value (port number, index).
 * - EFAULT: the argument pointer is not readable/writable.
 * - ENODATA: the requested table entry (a GID) is empty.
 * - ENODEV: the device was removed; the context is dead and only close()
 *   is useful.
 */

/**
 * DOC: rnic sysfs
 *
 * Every rnic device is a directory /sys/class/rnic/NAME/ with the read-only
 * attributes:
 *
 * - ``abi_version``: RNIC_ABI_VERSION of the module, decimal.
 * - ``uverbs``: name of the char device node in /dev/infiniband/.
 * - ``node_guid``: node GUID as four groups of four hex digits
 *   (``0200:00ff:fe00:0001``), as the in-kernel stack prints it.
 * - ``netdev``: name of the bound netdev, empty when unbound.
 * - ``dev``: major:minor of the char device.
 */

/** RNIC_ABI_VERSION - the ABI version the kernel exports in sysfs. */
#define RNIC_ABI_VERSION 1

/**
 * RNIC_UVERBS_BASE - number of the first rnic char device node.
 *
 * rnic devices appear as /dev/infiniband/uverbsN with N counting from this
 * base. The kernel's own ib_uverbs uses uverbs0 .. uverbs1023, so the two
 * stacks never collide. Userspace finds the node of a device through the
 * ``uverbs`` attribute in /sys/class/rnic/NAME/, never by guessing.
 */
#define RNIC_UVERBS_BASE 1024

/** RNIC_DEV_NAME_MAX - size of a device name buffer, including the NUL. */
#define RNIC_DEV_NAME_MAX 64

/** RNIC_GID_TABLE_LEN - GID table entries per port. */
#define RNIC_GID_TABLE_LEN 64

#define RNIC_IOCTL_MAGIC 0xE7

/**
 * enum rnic_cmd - ioctl command numbers, see the structs for each.
 * @RNIC_CMD_QUERY_DEVICE: &struct rnic_query_device
 * @RNIC_CMD_QUERY_PORT: &struct rnic_query_port
 * @RNIC_CMD_QUERY_GID: &struct rnic_query_gid
 * @RNIC_CMD_QUERY_PKEY: &struct rnic_query_pkey
 * @RNIC_CMD_ALLOC_PD: &struct rnic_alloc_pd
 * @RNIC_CMD_DEALLOC_PD: &struct rnic_destroy
 * @RNIC_CMD_REG_MR: &struct rnic_reg_mr
 * @RNIC_CMD_DEREG_MR: &struct rnic_destroy
 * @RNIC_CMD_CQ_BASE: first number of the CQ/channel/event family
 * @RNIC_CMD_QP_BASE: first number of the QP/multicast family
 * @RNIC_CMD_SRQ_BASE: first number of the SRQ/AH family
 */
enum rnic_cmd {
	RNIC_CMD_BASE = 0x80,
	RNIC_CMD_QUERY_DEVICE = RNIC_CMD_BASE,
	RNIC_CMD_QUERY_PORT,
	RNIC_CMD_QUERY_GID,
	RNIC_CMD_QUERY_PKEY,
	RNIC_CMD_ALLOC_PD,
	RNIC_CMD_DEALLOC_PD,
	RNIC_CMD_REG_MR,
	RNIC_CMD_DEREG_MR,

	/* completion queues, channels, async events */
	RNIC_CMD_CQ_BASE = RNIC_CMD_BASE + 0x10,

	/* queue pairs, multicast */
	RNIC_CMD_QP_BASE = RNIC_CMD_BASE + 0x20,

	/* shared receive queues, address handles */
	RNIC_CMD_SRQ_BASE = RNIC_CMD_BASE + 0x30,
};

/**
 * struct rnic_query_device - RNIC_IOCTL_QUERY_DEVICE
 * @size: sizeof(struct rnic_query_device)
 * @flags: must be 0
 * @out_node_guid: node GUID, network byte order
 * @out_sys_image_guid: system image GUID, network byte order
 * @out_max_mr_size: largest memory region in bytes
 * @out_page_size_cap: supported page sizes (bit n set: 2^n bytes)
 * @out_device_cap_flags: capability bits, values of enum ibv_device_cap_flags
 * @out_fw_ver: firmware (module) version: major << 32 | minor << 16 | patch
 * @out_vendor_id: IEEE vendor OUI
 * @out_vendor_part_id: vendor part id
 * @out_hw_ver: hardware version
 * @out_max_qp: queue pairs per device
 * @out_max_qp_wr: work requests per send or receive queue
 * @out_max_sge: scatter/gather entries per send or receive work request
 * @out_max_sge_rd: scatter/gather entries per RDMA READ work request
 * @out_max_cq: completion queues per device
 * @out_max_cqe: entries per completion queue
 * @out_max_mr: memory regions per device
 * @out_max_pd: protection domains per device
 * @out_max_qp_rd_atom: outstanding RDMA READ/atomic per QP as responder
 * @out_max_qp_init_rd_atom: outstanding RDMA READ/atomic per QP as initiator
 * @out_max_res_rd_atom: responder resources per device
 * @out_max_srq: shared receive queues per device
 * @out_max_srq_wr: work requests per SRQ
 * @out_max_srq_sge: scatter/gather entries per SRQ work request
 * @out_max_ah: address handles per device
 * @out_max_mcast_grp: multicast groups per device
 * @out_max_mcast_qp_attach: QPs per multicast group
 * @out_max_total_mcast_qp_attach: QP attachments to groups per device
 * @out_max_mw: memory windows per device
 * @out_max_pkeys: partition keys per port
 * @out_atomic_cap: atomic guarantee, a value of enum ibv_atomic_cap
 * @out_local_ca_ack_delay: local CA ACK delay (4.096 us * 2^value)
 * @out_phys_port_cnt: number of ports
 * @out_num_comp_vectors: completion vectors
 * @__reserved: must be 0
 */
struct rnic_query_device {
	__u32 size;
	__u32 flags;
	__aligned_be64 out_node_guid;
	__aligned_be64 out_sys_image_guid;
	__aligned_u64 out_max_mr_size;
	__aligned_u64 out_page_size_cap;
	__aligned_u64 out_device_cap_flags;
	__aligned_u64 out_fw_ver;
	__u32 out_vendor_id;
	__u32 out_vendor_part_id;
	__u32 out_hw_ver;
	__u32 out_max_qp;
	__u32 out_max_qp_wr;
	__u32 out_max_sge;
	__u32 out_max_sge_rd;
	__u32 out_max_cq;
	__u32 out_max_cqe;
	__u32 out_max_mr;
	__u32 out_max_pd;
	__u32 out_max_qp_rd_atom;
	__u32 out_max_qp_init_rd_atom;
	__u32 out_max_res_rd_atom;
	__u32 out_max_srq;
	__u32 out_max_srq_wr;
	__u32 out_max_srq_sge;
	__u32 out_max_ah;
	__u32 out_max_mcast_grp;
	__u32 out_max_mcast_qp_attach;
	__u32 out_max_total_mcast_qp_attach;
	__u32 out_max_mw;
	__u32 out_max_pkeys;
	__u32 out_atomic_cap;
	__u32 out_local_ca_ack_delay;
	__u32 out_phys_port_cnt;
	__u32 out_num_comp_vectors;
	__u32 __reserved;
};

/**
 * struct rnic_query_port - RNIC_IOCTL_QUERY_PORT
 * @size: sizeof(struct rnic_query_port)
 * @flags: must be 0
 * @port_num: port to query, 1-based
 * @out_state: logical port state, a value of enum ibv_port_state
 * @out_max_mtu: largest path MTU, a value of enum ibv_mtu
 * @out_active_mtu: current path MTU, a value of enum ibv_mtu
 * @out_gid_tbl_len: entries in the GID table
 * @out_port_cap_flags: values of enum ibv_port_cap_flags
 * @out_max_msg_sz: largest message in bytes
 * @out_bad_pkey_cntr: bad P_Key counter
 * @out_qkey_viol_cntr: Q_Key violation counter
 * @out_pkey_tbl_len: entries in the P_Key table
 * @out_lid: base LID (0: Ethernet link layer has none)
 * @out_sm_lid: subnet manager LID
 * @out_lmc: LID mask control
 * @out_max_vl_num: virtual lanes
 * @out_sm_sl: subnet manager service level
 * @out_subnet_timeout: subnet propagation delay
 * @out_init_type_reply: InitTypeReply value
 * @out_active_width: active link width as in ibv_port_attr (2: 4X)
 * @out_active_speed: active link speed as in ibv_port_attr
 * @out_phys_state: physical port state (5: LinkUp, 3: Disabled)
 * @out_link_layer: IBV_LINK_LAYER_* value
 * @out_port_flags: ibv_port_attr.flags
 * @out_port_cap_flags2: values of enum ibv_port_cap_flags2
 * @out_active_speed_ex: extended active speed
 * @__reserved: must be 0
 */
struct rnic_query_port {
	__u32 size;
	__u32 flags;
	__u32 port_num;
	__u32 out_state;
	__u32 out_max_mtu;
	__u32 out_active_mtu;
	__u32 out_gid_tbl_len;
	__u32 out_port_cap_flags;
	__u32 out_max_msg_sz;
	__u32 out_bad_pkey_cntr;
	__u32 out_qkey_viol_cntr;
	__u32 out_pkey_tbl_len;
	__u32 out_lid;
	__u32 out_sm_lid;
	__u32 out_lmc;
	__u32 out_max_vl_num;
	__u32 out_sm_sl;
	__u32 out_subnet_timeout;
	__u32 out_init_type_reply;
	__u32 out_active_width;
	__u32 out_active_speed;
	__u32 out_phys_state;
	__u32 out_link_layer;
	__u32 out_port_flags;
	__u32 out_port_cap_flags2;
	__u32 out_active_speed_ex;
	__u32 __reserved;
};

/**
 * enum rnic_gid_type - how a GID table entry is used on the wire
 * @RNIC_GID_TYPE_ROCE_V2: RoCEv2 (UDP/IP encapsulation)
 */
enum rnic_gid_type {
	RNIC_GID_TYPE_ROCE_V2 = 2,
};

/**
 * struct rnic_query_gid - RNIC_IOCTL_QUERY_GID
 * @size: sizeof(struct rnic_query_gid)
 * @flags: must be 0
 * @port_num: port, 1-based
 * @index: GID table index, below rnic_query_port.out_gid_tbl_len
 * @out_gid: the GID, network byte order
 * @out_gid_type: a value of enum rnic_gid_type
 * @out_ifindex: ifindex of the netdev the GID comes from, 0 if none
 *
 * An empty entry fails with ENODATA.
 */
struct rnic_query_gid {
	__u32 size;
	__u32 flags;
	__u32 port_num;
	__u32 index;
	__u8 out_gid[16];
	__u32 out_gid_type;
	__u32 out_ifindex;
};

/**
 * struct rnic_query_pkey - RNIC_IOCTL_QUERY_PKEY
 * @size: sizeof(struct rnic_query_pkey)
 * @flags: must be 0
 * @port_num: port, 1-based
 * @index: P_Key table index, below rnic_query_port.out_pkey_tbl_len
 * @out_pkey: the P_Key, host byte order
 * @__reserved: must be 0
 */
struct rnic_query_pkey {
	__u32 size;
	__u32 flags;
	__u32 port_num;
	__u32 index;
	__u32 out_pkey;
	__u32 __reserved;
};

/**
 * DOC: rnic objects and handles
 *
 * Every object (PD, MR, ...) belongs to the context that created it and is
 * named by a handle that means something only in that context. A handle of
 * another context, of a destroyed object or of an object of another type
 * is EINVAL. Destroying an object that another object still uses (a PD
 * with an MR) is EBUSY. Creating more objects of a type than the device
 * limit from RNIC_IOCTL_QUERY_DEVICE allows is ENOMEM. Closing the file
 * destroys everything the context still owns.
 *
 * Memory shared with the kernel (rings) is mapped with
 * mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset) with the
 * offset and size a create ioctl returned: exactly that size, always
 * shared (EINVAL otherwise). A mapping stays valid after its object is
 * destroyed, until munmap(); the kernel no longer uses it.
 */

/**
 * struct rnic_alloc_pd - RNIC_IOCTL_ALLOC_PD
 * @size: sizeof(struct rnic_alloc_pd)
 * @flags: must be 0
 * @out_handle: handle of the new protection domain
 * @__reserved: must be 0
 */
struct rnic_alloc_pd {
	__u32 size;
	__u32 flags;
	__u32 out_handle;
	__u32 __reserved;
};

/**
 * struct rnic_destroy - destroy an object: RNIC_IOCTL_DEALLOC_PD,
 *	RNIC_IOCTL_DEREG_MR
 * @size: sizeof(struct rnic_destroy)
 * @flags: must be 0
 * @handle: the object, of the type the ioctl names
 * @__reserved: must be 0
 */
struct rnic_destroy {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
};

/**
 * enum rnic_access - memory region access rights, the values of
 *	enum ibv_access_flags
 * @RNIC_ACCESS_LOCAL_WRITE: the local HCA may write (receives, READ
 *	responses, atomic results)
 * @RNIC_ACCESS_REMOTE_WRITE: peers may RDMA WRITE; needs LOCAL_WRITE
 * @RNIC_ACCESS_REMOTE_READ: peers may RDMA READ
 * @RNIC_ACCESS_REMOTE_ATOMIC: peers may do atomics; needs LOCAL_WRITE
 * @RNIC_ACCESS_RELAXED_ORDERING: a hint; accepted and ignored
 */
enum rnic_access {
	RNIC_ACCESS_LOCAL_WRITE = 1 << 0,
	RNIC_ACCESS_REMOTE_WRITE = 1 << 1,
	RNIC_ACCESS_REMOTE_READ = 1 << 2,
	RNIC_ACCESS_REMOTE_ATOMIC = 1 << 3,
	RNIC_ACCESS_RELAXED_ORDERING = 1 << 20,
};

/**
 * struct rnic_reg_mr - RNIC_IOCTL_REG_MR
 * @size: sizeof(struct rnic_reg_mr)
 * @flags: must be 0
 * @pd_handle: protection domain of the region
 * @access: enum rnic_access bits; other bits are EINVAL
 * @addr: start of the region in the caller's address space
 * @length: bytes, 1 .. rnic_query_device.out_max_mr_size
 * @iova: address the region has in work requests and remote accesses
 * @out_handle: handle of the new memory region
 * @out_lkey: local key
 * @out_rkey: remote key
 * @__reserved: must be 0
 *
 * The pages are pinned until the region is deregistered. Unless the caller
 * has CAP_IPC_LOCK they count against RLIMIT_MEMLOCK of its process
 * (ENOMEM beyond it). A range that is not mapped is EFAULT; zero length,
 * a range that wraps or bad access bits are EINVAL.
 */
struct rnic_reg_mr {
	__u32 size;
	__u32 flags;
	__u32 pd_handle;
	__u32 access;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 iova;
	__u32 out_handle;
	__u32 out_lkey;
	__u32 out_rkey;
	__u32 __reserved;
};

/**
 * DOC: rnic rings
 *
 * Work queues and completion queues are rings in kernel memory that
 * userspace maps (see "rnic objects and handles"). A ring has a power of
 * two number of fixed-size entries and two free-running __u32 indexes, a
 * producer and a consumer, each in its own cache line; entry i lives at
 * entries_off + (i & (entries - 1)) * entry_size. All entries are usable:
 * the ring is full when producer - consumer == entries. The producer
 * writes an entry, then publishes it with a store-release of the producer
 * index; the consumer reads the producer index with a load-acquire, reads
 * the entries, then frees them with a store-release of the consumer index.
 * The kernel reads every index and entry that userspace can write once
 * and validates it: a lying index never makes it touch memory outside the
 * ring.
 */

/**
 * struct rnic_ring_info - where a ring lives in the mapping its create
 *	ioctl returns
 * @offset: mmap() offset of the region
 * @size: bytes to map
 * @entries: number of entries, a power of two
 * @entry_size: bytes per entry
 * @producer_off: offset of the __u32 producer index in the region
 * @consumer_off: offset of the __u32 consumer index in the region
 * @entries_off: offset of entry 0 in the region
 */
struct rnic_ring_info {
	__aligned_u64 offset;
	__u32 size;
	__u32 entries;
	__u32 entry_size;
	__u32 producer_off;
	__u32 consumer_off;
	__u32 entries_off;
};

/**
 * struct rnic_sge - one scatter/gather entry of a work request
 * @addr: address (an MR's iova space)
 * @length: bytes
 * @lkey: the MR's local key
 */
struct rnic_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/**
 * struct rnic_recv_wqe - a receive work request in an RQ or SRQ ring
 * @wr_id: returned in the completion
 * @num_sge: entries used in @sge, at most the queue's max_sge
 * @__reserved: must be 0
 *
 * The header is followed by @num_sge struct rnic_sge; the ring's
 * entry_size leaves room for the queue's max_sge.
 */
struct rnic_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 __reserved;
};

/**
 * struct rnic_ah_attr - an address, for address handles and connected QPs
 * @dgid: destination GID, network byte order
 * @flow_label: IPv6 flow label (20 bits)
 * @sgid_index: source GID table index
 * @hop_limit: hop limit / TTL
 * @traffic_class: traffic class
 * @sl: service level
 * @is_global: the GRH fields are valid (required: RoCE has no LIDs)
 * @port_num: local port, 1
 * @static_rate: enum ibv_rate value
 * @src_path_bits: source path bits
 * @dlid: destination LID, must be 0
 * @__reserved: must be 0
 */
struct rnic_ah_attr {
	__u8 dgid[16];
	__u32 flow_label;
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 sl;
	__u8 is_global;
	__u8 port_num;
	__u8 static_rate;
	__u8 src_path_bits;
	__u16 dlid;
	__u16 __reserved;
};

/* completion queues, channels, async events: structs */

/* queue pairs, multicast: structs */

/* shared receive queues, address handles: structs */

#define RNIC_IOCTL_QUERY_DEVICE _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_QUERY_DEVICE)
#define RNIC_IOCTL_QUERY_PORT _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_QUERY_PORT)
#define RNIC_IOCTL_QUERY_GID _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_QUERY_GID)
#define RNIC_IOCTL_QUERY_PKEY _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_QUERY_PKEY)
#define RNIC_IOCTL_ALLOC_PD _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_ALLOC_PD)
#define RNIC_IOCTL_DEALLOC_PD _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DEALLOC_PD)
#define RNIC_IOCTL_REG_MR _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_REG_MR)
#define RNIC_IOCTL_DEREG_MR _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DEREG_MR)

/* completion queues, channels, async events: ioctls */

/* queue pairs, multicast: ioctls */

/* shared receive queues, address handles: ioctls */

#endif /* _UAPI_RDMA_RNIC_ABI_H */
