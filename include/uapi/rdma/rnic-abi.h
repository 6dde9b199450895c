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
 * - EAGAIN: a limit of the caller's RDMA cgroup (rdma.max, by device
 *   name) is reached: hca_handle when opening the char device, hca_object
 *   when creating any object (DOC "rnic objects and handles"). It stays
 *   so until the cgroup's contexts or objects on the device go away.
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
 * - ``net_ns``: the device's network namespace, decimal: the inode number
 *   stat() gives for /proc/PID/ns/net of a process in it. Only processes
 *   of that namespace can open the device. Changes when the bound netdev
 *   moves to another namespace. Modules before it lack the attribute.
 * - ``dev``: major:minor of the char device.
 *
 * and, in the layout and format the in-kernel stack gives
 * /sys/class/infiniband/NAME/ (programs built for it read them through
 * ibv_device.ibdev_path, which points here):
 *
 * - ``node_type``: ``1: CA``; ``sys_image_guid``: as ``node_guid``.
 * - ``fw_ver``: the fw_ver of ibv_query_device(), RNIC_FW_VER_FMT of
 *   out_fw_ver.
 * - ``board_id``: ``rnic``.
 * - ``ports/1/state``: the port state as number and name (``4: ACTIVE``,
 *   ``1: DOWN``); ``ports/1/phys_state`` likewise (``5: LinkUp``,
 *   ``3: Disabled``).
 * - ``ports/1/rate``: active width times speed, as ``100 Gb/sec (4X EDR)``.
 * - ``ports/1/link_layer``: ``Ethernet``.
 * - ``ports/1/lid``, ``sm_lid`` (``0x0``), ``sm_sl``, ``lid_mask_count``
 *   (``0``): RoCE has no LIDs and no subnet manager; ``cap_mask``: the
 *   port_cap_flags of ibv_query_port(), ``0x%08x``.
 * - ``ports/1/pkeys/0``: the one P_Key, ``0xffff``.
 * - ``ports/1/gids/N`` for N from 0 to RNIC_GID_TABLE_LEN - 1: GID table
 *   entry N as eight groups of four hex digits, uncompressed; the zero GID
 *   for an empty entry.
 * - ``ports/1/gid_attrs/types/N``: ``RoCE v2`` for a valid entry;
 *   ``ports/1/gid_attrs/ndevs/N``: the name of the netdev the device is
 *   bound to. Reading either for an empty entry, or ndevs for an unbound
 *   device, fails with EINVAL.
 * - ``ports/1/hw_counters/NAME``: the device's counter NAME
 *   (RNIC_NL_COUNTER_NAMES in rnic-netlink.h), decimal.
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

/**
 * RNIC_VENDOR_ID - the vendor ID rnic devices report ("rnc").
 *
 * rnic has no IEEE OUI. 0x72 has the locally administered bit (0x02) of
 * the first octet set, so this value can never be an assigned OUI; it is
 * not 0 because programs (rdma-core's own tests among them) take a zero
 * vendor ID for a device that failed to answer.
 */
#define RNIC_VENDOR_ID 0x726e63

/**
 * RNIC_FW_VER - out_fw_ver of struct rnic_query_device for version
 *	@major.@minor.@patch
 * @major: up to 32 bits
 * @minor: up to 16 bits
 * @patch: up to 16 bits
 */
#define RNIC_FW_VER(major, minor, patch) \
	((__u64)(major) << 32 | (__u64)(minor) << 16 | (__u64)(patch))
/* The parts of an out_fw_ver */
#define RNIC_FW_VER_MAJOR(v) ((unsigned int)((v) >> 32))
#define RNIC_FW_VER_MINOR(v) ((unsigned int)((v) >> 16 & 0xffff))
#define RNIC_FW_VER_PATCH(v) ((unsigned int)((v) & 0xffff))
/**
 * RNIC_FW_VER_FMT - how an out_fw_ver reads as text (ibv_device_attr's
 *	fw_ver, sysfs fw_ver): printf() of its major, minor and patch
 */
#define RNIC_FW_VER_FMT "%u.%u.%u"

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
 * @RNIC_CMD_ALLOC_MW: &struct rnic_alloc_mw
 * @RNIC_CMD_DEALLOC_MW: &struct rnic_destroy
 * @RNIC_CMD_OPEN_XRCD: &struct rnic_open_xrcd
 * @RNIC_CMD_CLOSE_XRCD: &struct rnic_destroy
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
	RNIC_CMD_ALLOC_MW,
	RNIC_CMD_DEALLOC_MW,
	RNIC_CMD_OPEN_XRCD,
	RNIC_CMD_CLOSE_XRCD,

	/* completion queues, channels, async events */
	RNIC_CMD_CQ_BASE = RNIC_CMD_BASE + 0x10,
	RNIC_CMD_CREATE_ASYNC_FD = RNIC_CMD_CQ_BASE,	/* rnic_create_async_fd */
	RNIC_CMD_CREATE_COMP_CHANNEL = RNIC_CMD_CQ_BASE + 1, /* rnic_create_comp_channel */
	RNIC_CMD_DESTROY_COMP_CHANNEL = RNIC_CMD_CQ_BASE + 2, /* rnic_destroy */
	RNIC_CMD_CREATE_CQ = RNIC_CMD_CQ_BASE + 3,	/* rnic_create_cq */
	RNIC_CMD_RESIZE_CQ = RNIC_CMD_CQ_BASE + 4,	/* rnic_resize_cq */
	RNIC_CMD_DESTROY_CQ = RNIC_CMD_CQ_BASE + 5,	/* rnic_destroy_cq */

	/* queue pairs, multicast */
	RNIC_CMD_QP_BASE = RNIC_CMD_BASE + 0x20,
	RNIC_CMD_CREATE_QP = RNIC_CMD_QP_BASE,		/* rnic_create_qp */
	RNIC_CMD_MODIFY_QP = RNIC_CMD_QP_BASE + 1,	/* rnic_modify_qp */
	RNIC_CMD_QUERY_QP = RNIC_CMD_QP_BASE + 2,	/* rnic_query_qp */
	RNIC_CMD_DESTROY_QP = RNIC_CMD_QP_BASE + 3,	/* rnic_destroy_qp */
	RNIC_CMD_ATTACH_MCAST = RNIC_CMD_QP_BASE + 4,	/* rnic_attach_mcast */
	RNIC_CMD_DETACH_MCAST = RNIC_CMD_QP_BASE + 5,	/* rnic_attach_mcast */
	RNIC_CMD_KICK_SQ = RNIC_CMD_QP_BASE + 6,	/* rnic_kick_sq */
	RNIC_CMD_RING_SQ = RNIC_CMD_QP_BASE + 7,	/* none: a QP handle */
	RNIC_CMD_OPEN_QP = RNIC_CMD_QP_BASE + 8,	/* rnic_open_qp */

	/* shared receive queues, address handles */
	RNIC_CMD_SRQ_BASE = RNIC_CMD_BASE + 0x30,
	/** @RNIC_CMD_CREATE_SRQ: &struct rnic_create_srq */
	RNIC_CMD_CREATE_SRQ = RNIC_CMD_SRQ_BASE,
	/** @RNIC_CMD_MODIFY_SRQ: &struct rnic_modify_srq */
	RNIC_CMD_MODIFY_SRQ = RNIC_CMD_SRQ_BASE + 1,
	/** @RNIC_CMD_QUERY_SRQ: &struct rnic_query_srq */
	RNIC_CMD_QUERY_SRQ = RNIC_CMD_SRQ_BASE + 2,
	/** @RNIC_CMD_DESTROY_SRQ: &struct rnic_destroy_srq */
	RNIC_CMD_DESTROY_SRQ = RNIC_CMD_SRQ_BASE + 3,
	/** @RNIC_CMD_CREATE_AH: &struct rnic_create_ah */
	RNIC_CMD_CREATE_AH = RNIC_CMD_SRQ_BASE + 4,
	/** @RNIC_CMD_DESTROY_AH: &struct rnic_destroy */
	RNIC_CMD_DESTROY_AH = RNIC_CMD_SRQ_BASE + 5,
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
 * @out_fw_ver: firmware (module) version, RNIC_FW_VER()
 * @out_vendor_id: IEEE vendor OUI: %RNIC_VENDOR_ID
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
 * limit from RNIC_IOCTL_QUERY_DEVICE allows is ENOMEM. Every context
 * and every object is charged to the RDMA cgroup of the task that makes
 * it, one hca_handle per open file, one hca_object per object of any
 * kind, until it is closed or destroyed; beyond the cgroup's limit the
 * open or create is EAGAIN. Closing the file destroys everything the
 * context still owns.
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
 * struct rnic_destroy - destroy an object that reports no event counts:
 *	RNIC_IOCTL_DEALLOC_PD, RNIC_IOCTL_DEREG_MR, RNIC_IOCTL_DEALLOC_MW,
 *	RNIC_IOCTL_CLOSE_XRCD, RNIC_IOCTL_DESTROY_COMP_CHANNEL,
 *	RNIC_IOCTL_DESTROY_AH
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
 * DOC: rnic XRC domains
 *
 * An XRC domain groups XRC SRQs and XRC receive (TGT) QPs so that
 * several processes can share them. It is a device object of its own:
 * each context that opens it gets a handle, and the domain lives while
 * one handle is open. A domain opened with a file descriptor is found
 * again by the file's inode, by any context of the same device that
 * opens a descriptor of that file; one opened with fd -1 is the caller's
 * alone.
 *
 * A TGT QP belongs to the domain, not to the context that created it:
 * RNIC_IOCTL_OPEN_QP gives any context with a handle on the domain a
 * handle on it by number. Destroying the last handle on a TGT QP
 * destroys the QP; closing a context only drops that context's handles,
 * so its TGT QPs stay in the domain (and can be opened again by number)
 * until the domain itself goes away with its last handle.
 */

/**
 * struct rnic_open_xrcd - RNIC_IOCTL_OPEN_XRCD
 * @size: sizeof(struct rnic_open_xrcd)
 * @flags: must be 0
 * @fd: a file descriptor of the caller whose inode names the domain, or
 *	-1 for a new domain of the caller's alone (@oflags ignored)
 * @oflags: O_CREAT: create the file's domain if it has none; O_EXCL with
 *	O_CREAT: only create it. Other bits are ignored, as by the
 *	kernel's ib_uverbs
 * @out_handle: handle of the domain in the calling context, for
 *	RNIC_IOCTL_CLOSE_XRCD (with struct rnic_destroy)
 * @__reserved: must be 0
 *
 * A bad @fd is EBADF; a file without a domain and no O_CREAT, or one
 * with a domain and O_CREAT | O_EXCL, is EINVAL. Closing a handle while
 * an SRQ or QP of the context uses it is EBUSY.
 */
struct rnic_open_xrcd {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 oflags;
	__u32 out_handle;
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
 * @RNIC_ACCESS_MW_BIND: memory windows may be bound to the region
 * @RNIC_ACCESS_ON_DEMAND: on-demand paging; not supported (-EOPNOTSUPP)
 * @RNIC_ACCESS_RELAXED_ORDERING: a hint; accepted and ignored
 */
enum rnic_access {
	RNIC_ACCESS_LOCAL_WRITE = 1 << 0,
	RNIC_ACCESS_REMOTE_WRITE = 1 << 1,
	RNIC_ACCESS_REMOTE_READ = 1 << 2,
	RNIC_ACCESS_REMOTE_ATOMIC = 1 << 3,
	RNIC_ACCESS_MW_BIND = 1 << 4,
	RNIC_ACCESS_ON_DEMAND = 1 << 6,
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
 * The low 8 bits of both keys are the key byte, which the IB
 * specification leaves to the consumer (ibv_inc_rkey()); a region's is
 * random and fixed. The other bits are opaque; the keys of a deregistered
 * region are not handed out again soon (Documentation/architecture.rst).
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
 * enum rnic_mw_type - memory window types, the values of enum ibv_mw_type
 * @RNIC_MW_TYPE_1: bound to its protection domain; bound and unbound
 *	(bound with length 0) by a bind work request that ibv_bind_mw()
 *	posts, every bind changing the key byte of its rkey
 * @RNIC_MW_TYPE_2: bound to the QP that binds it (type 2B: the QP and
 *	its protection domain); bound by a bind work request when not
 *	bound, unbound by IBV_WR_LOCAL_INV or a peer's SEND with invalidate
 */
enum rnic_mw_type {
	RNIC_MW_TYPE_1 = 1,
	RNIC_MW_TYPE_2 = 2,
};

/**
 * struct rnic_alloc_mw - RNIC_IOCTL_ALLOC_MW
 * @size: sizeof(struct rnic_alloc_mw)
 * @flags: must be 0
 * @pd_handle: protection domain of the window
 * @type: an enum rnic_mw_type value; others are EINVAL
 * @out_handle: handle of the new window, for bind work requests and
 *	RNIC_IOCTL_DEALLOC_MW (with struct rnic_destroy)
 * @out_rkey: its rkey, not bound to anything yet. Binds change its key
 *	byte (the low 8 bits) only; the other bits are opaque, and the
 *	rkeys of windows and regions never collide.
 *
 * Deallocating a bound window unbinds it first; deregistering a region
 * a window is bound to is EBUSY.
 */
struct rnic_alloc_mw {
	__u32 size;
	__u32 flags;
	__u32 pd_handle;
	__u32 type;
	__u32 out_handle;
	__u32 out_rkey;
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
 * ring. It reads the other side's index of a ring it consumes from (RQ,
 * SRQ) or produces into (CQ) only when the value it last read does not
 * let it go on: a line the other side writes is fetched once per batch.
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

/**
 * DOC: rnic events
 *
 * Completion channels and the asynchronous event queue of a context are
 * file descriptors (close-on-exec) of their own. read() returns one
 * struct rnic_event_desc per call (a buffer shorter than that is EINVAL),
 * blocks while the queue is empty, or fails with EAGAIN if the descriptor
 * is O_NONBLOCK; poll() and epoll report EPOLLIN while an event is queued.
 * Once the queue's owner is gone (the channel was destroyed, or the
 * context was closed) and the queue is empty, read() fails with EIO and
 * poll() reports EPOLLERR. Either side may go first: the descriptor stays
 * valid after the context is closed, and the context does not need it.
 *
 * A completion channel has at most one event per CQ queued: a CQ that
 * fires again before its event was read keeps the one event.
 *
 * The asynchronous event queue (RNIC_IOCTL_CREATE_ASYNC_FD, one per
 * context) holds at most RNIC_ASYNC_EVENTS_MAX events; events that find it
 * full are dropped and counted, and the next event read reports how many
 * were lost before it. IBV_EVENT_DEVICE_FATAL is never dropped.
 *
 * The destroy ioctl of an object with events (a CQ) drops its events not
 * read yet and returns how many were read, so that userspace can wait
 * until it has seen as many acknowledgements (rdma-core's
 * ibv_ack_cq_events() and ibv_ack_async_event() rule).
 */

/** RNIC_ASYNC_EVENTS_MAX - events an asynchronous event queue holds. */
#define RNIC_ASYNC_EVENTS_MAX 256

/**
 * enum rnic_event_type - asynchronous event types, the values of
 *	enum ibv_event_type
 * @RNIC_EVENT_CQ_ERR: a CQ overran; element: the CQ
 * @RNIC_EVENT_QP_FATAL: a QP went to the error state; element: the QP
 * @RNIC_EVENT_QP_REQ_ERR: invalid request on a QP; element: the QP
 * @RNIC_EVENT_QP_ACCESS_ERR: local access violation; element: the QP
 * @RNIC_EVENT_COMM_EST: a QP received its first packet in RTR
 * @RNIC_EVENT_SQ_DRAINED: a QP in SQD has no send outstanding any more
 * @RNIC_EVENT_PATH_MIG: a QP migrated to its alternate path
 * @RNIC_EVENT_PATH_MIG_ERR: a path migration failed
 * @RNIC_EVENT_DEVICE_FATAL: the device is gone; element: 0
 * @RNIC_EVENT_PORT_ACTIVE: a port became active; element: the port number
 * @RNIC_EVENT_PORT_ERR: a port went down; element: the port number
 * @RNIC_EVENT_LID_CHANGE: a port's LID changed
 * @RNIC_EVENT_PKEY_CHANGE: a port's P_Key table changed
 * @RNIC_EVENT_SM_CHANGE: a port's subnet manager changed
 * @RNIC_EVENT_SRQ_ERR: an SRQ failed; element: the SRQ
 * @RNIC_EVENT_SRQ_LIMIT_REACHED: an SRQ went below its limit
 * @RNIC_EVENT_QP_LAST_WQE_REACHED: last WQE of a QP on an SRQ
 * @RNIC_EVENT_CLIENT_REREGISTER: a port is asked to reregister
 * @RNIC_EVENT_GID_CHANGE: a port's GID table changed; element: the port
 * @RNIC_EVENT_WQ_FATAL: a work queue failed
 */
enum rnic_event_type {
	RNIC_EVENT_CQ_ERR,
	RNIC_EVENT_QP_FATAL,
	RNIC_EVENT_QP_REQ_ERR,
	RNIC_EVENT_QP_ACCESS_ERR,
	RNIC_EVENT_COMM_EST,
	RNIC_EVENT_SQ_DRAINED,
	RNIC_EVENT_PATH_MIG,
	RNIC_EVENT_PATH_MIG_ERR,
	RNIC_EVENT_DEVICE_FATAL,
	RNIC_EVENT_PORT_ACTIVE,
	RNIC_EVENT_PORT_ERR,
	RNIC_EVENT_LID_CHANGE,
	RNIC_EVENT_PKEY_CHANGE,
	RNIC_EVENT_SM_CHANGE,
	RNIC_EVENT_SRQ_ERR,
	RNIC_EVENT_SRQ_LIMIT_REACHED,
	RNIC_EVENT_QP_LAST_WQE_REACHED,
	RNIC_EVENT_CLIENT_REREGISTER,
	RNIC_EVENT_GID_CHANGE,
	RNIC_EVENT_WQ_FATAL,
};

/**
 * struct rnic_event_desc - what read() on an event descriptor returns
 * @element: completion channel: the user_handle of the CQ. Asynchronous
 *	queue: the user_handle of the object the event is about, the port
 *	number for a port event, 0 for IBV_EVENT_DEVICE_FATAL
 * @event_type: asynchronous queue: a value of enum rnic_event_type;
 *	completion channel: 0
 * @lost: asynchronous queue: events dropped since the previous one read,
 *	because the queue was full or memory was short; completion channel: 0
 */
struct rnic_event_desc {
	__aligned_u64 element;
	__u32 event_type;
	__u32 lost;
};

/**
 * struct rnic_create_async_fd - RNIC_IOCTL_CREATE_ASYNC_FD
 * @size: sizeof(struct rnic_create_async_fd)
 * @flags: must be 0
 * @out_fd: the context's asynchronous event descriptor (close-on-exec)
 * @__reserved: must be 0
 *
 * A context has one: a second call is EEXIST while the first descriptor
 * is open.
 */
struct rnic_create_async_fd {
	__u32 size;
	__u32 flags;
	__s32 out_fd;
	__u32 __reserved;
};

/**
 * struct rnic_create_comp_channel - RNIC_IOCTL_CREATE_COMP_CHANNEL
 * @size: sizeof(struct rnic_create_comp_channel)
 * @flags: must be 0
 * @out_handle: handle of the channel, for RNIC_IOCTL_CREATE_CQ and
 *	RNIC_IOCTL_DESTROY_COMP_CHANNEL (with struct rnic_destroy)
 * @out_fd: its event descriptor (close-on-exec)
 *
 * Destroying the channel is EBUSY while a CQ uses it; it does not close
 * the descriptor, which then reads EIO.
 */
struct rnic_create_comp_channel {
	__u32 size;
	__u32 flags;
	__u32 out_handle;
	__s32 out_fd;
};

/**
 * enum rnic_create_cq_flags - struct rnic_create_cq.flags
 * @RNIC_CREATE_CQ_CHANNEL: channel_handle names the CQ's completion channel
 */
enum rnic_create_cq_flags {
	RNIC_CREATE_CQ_CHANNEL = 1 << 0,
};

/**
 * DOC: rnic CQ notification
 *
 * A CQ is armed without a system call, through a __u32 arm word in its
 * mapped region (at out_arm_off, in the cache line of the consumer index)
 * that only userspace writes:
 *
 * - bit 0, RNIC_CQ_ARM_NEXT: an event for the next CQE of any kind;
 * - bit 1, RNIC_CQ_ARM_SOLICITED: an event for the next solicited or
 *   unsuccessful CQE (bit 0 wins if both are set);
 * - bits 31..2: a sequence number that userspace changes (+1 modulo 2^30)
 *   with every arming.
 *
 * Userspace arms by storing a value with a new sequence number, then
 * issues a full memory barrier before it polls the CQ again. After the
 * kernel publishes CQEs (store-release of the producer index) it issues a
 * full memory barrier and reads the arm word once; if the word asks for
 * the new CQEs and its sequence number is not the one the kernel last
 * acted on, it queues one completion event on the CQ's channel and keeps
 * the sequence number. So each arming fires at most once, and the kernel
 * never clears the word: an arming cannot be lost to a race with it.
 * Both barriers together guarantee that a CQE published while userspace
 * arms is seen by the poll that follows the arming, or fires the event,
 * or both. Whatever userspace writes, the worst outcome is a spurious or
 * a missing event for that CQ. RNIC_IOCTL_RESIZE_CQ carries the word over
 * to the new region.
 */
#define RNIC_CQ_ARM_NEXT	(1U << 0)
#define RNIC_CQ_ARM_SOLICITED	(1U << 1)
#define RNIC_CQ_ARM_SEQ_SHIFT	2

/**
 * struct rnic_cqe - a completion in a CQ ring, the fields of struct ibv_wc
 * @wr_id: the work request's wr_id
 * @status: a value of enum ibv_wc_status
 * @opcode: a value of enum ibv_wc_opcode
 * @vendor_err: rnic's detail for a failed completion, 0 otherwise
 * @byte_len: bytes transferred
 * @imm_data: immediate data, network byte order (IBV_WC_WITH_IMM)
 * @invalidated_rkey: the rkey invalidated (IBV_WC_WITH_INV)
 * @qp_num: the local QP number
 * @src_qp: receive: the sending QP's number. Verbs define it for UD
 *	only; rnic fills it for RC and UC too, with the connected peer's
 *	(as mlx5 passes on its CQE's; rxe leaves 0): not to be relied on
 * @wc_flags: enum ibv_wc_flags bits
 * @pkey_index: P_Key index (UD)
 * @slid: source LID (0 on Ethernet)
 * @sl: service level
 * @dlid_path_bits: destination LID path bits
 * @__reserved16: 0
 * @__reserved: 0
 *
 * The kernel writes every byte of an entry before it publishes it.
 */
struct rnic_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	union {
		__be32 imm_data;
		__u32 invalidated_rkey;
	};
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u16 __reserved16;
	__u32 __reserved[4];
};

/**
 * struct rnic_create_cq - RNIC_IOCTL_CREATE_CQ
 * @size: sizeof(struct rnic_create_cq)
 * @flags: enum rnic_create_cq_flags bits; others are EINVAL
 * @user_handle: returned as the element of the CQ's events
 * @cqe: entries wanted, 1 .. rnic_query_device.out_max_cqe
 * @comp_vector: below rnic_query_device.out_num_comp_vectors
 * @channel_handle: with RNIC_CREATE_CQ_CHANNEL, the completion channel
 *	(EINVAL if it names none); else must be 0
 * @out_handle: handle of the new CQ
 * @out_arm_off: offset of the arm word in the region (DOC "rnic CQ
 *	notification")
 * @__reserved: must be 0
 * @out_ring: the CQE ring: struct rnic_cqe entries, a power of two of
 *	them, at least @cqe; all of them usable (the CQ's cqe)
 *
 * A CQ with a channel holds it: destroying the channel is EBUSY until the
 * CQ is gone. A QP that uses the CQ makes destroying the CQ EBUSY.
 */
struct rnic_create_cq {
	__u32 size;
	__u32 flags;
	__aligned_u64 user_handle;
	__u32 cqe;
	__u32 comp_vector;
	__u32 channel_handle;
	__u32 out_handle;
	__u32 out_arm_off;
	__u32 __reserved;
	struct rnic_ring_info out_ring;
};

/**
 * struct rnic_resize_cq - RNIC_IOCTL_RESIZE_CQ
 * @size: sizeof(struct rnic_resize_cq)
 * @flags: must be 0
 * @handle: the CQ
 * @cqe: entries wanted, 1 .. rnic_query_device.out_max_cqe, and at least
 *	the CQEs not polled yet (EINVAL otherwise, also when the ring's
 *	consumer index is behind its producer by more than the ring holds)
 * @out_arm_off: offset of the arm word in the new region
 * @__reserved: must be 0
 * @out_ring: the new ring, to map in place of the old one
 *
 * The CQEs not polled yet move to the start of the new ring, in order;
 * the arm word moves along. The old region stays mapped, unused by the
 * kernel, until userspace unmaps it.
 */
struct rnic_resize_cq {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 cqe;
	__u32 out_arm_off;
	__u32 __reserved;
	struct rnic_ring_info out_ring;
};

/**
 * struct rnic_destroy_cq - RNIC_IOCTL_DESTROY_CQ
 * @size: sizeof(struct rnic_destroy_cq)
 * @flags: must be 0
 * @handle: the CQ
 * @__reserved: must be 0
 * @out_async_events_reported: asynchronous events of the CQ read from the
 *	context's queue
 * @out_comp_events_reported: completion events of the CQ read from its
 *	channel
 *
 * EBUSY while a QP uses the CQ, or while another destroy of it runs.
 * struct rnic_destroy_qp and struct rnic_destroy_srq are its first 20
 * bytes.
 */
struct rnic_destroy_cq {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
	__u32 out_async_events_reported;
	__u32 out_comp_events_reported;
};

/* queue pairs, multicast: structs */

/**
 * DOC: rnic queue pairs
 *
 * A QP is created in the RESET state with a send queue (SQ) and, unless it
 * takes its receives from an SRQ, a receive queue (RQ): two rnic rings
 * (see "rnic rings") that userspace maps and produces into, and the data
 * path consumes. A queue asked for 0 work requests has no ring (its
 * struct rnic_ring_info is all zero). RNIC_IOCTL_MODIFY_QP moves the QP
 * through the states of enum rnic_qp_state with the attributes of the IB
 * specification's QP state table (the kernel's ib_modify_qp_is_ok()): for
 * each QP type and transition some attributes are required and some
 * optional; a missing required one, any other one, or an invalid
 * transition is EINVAL and changes nothing. Moving to RESET clears every
 * attribute and sets both indexes of both rings back to 0: userspace
 * resets its own copies.
 *
 * QP numbers are 24 bits, never 0 or 1, unique among the live QPs of all
 * rnic devices, and allocated cyclically, so a number comes back only
 * after the whole space was used.
 */

/**
 * enum rnic_qp_type - QP transport types, the values of enum ibv_qp_type
 * @RNIC_QPT_RC: reliable connected
 * @RNIC_QPT_UC: unreliable connected
 * @RNIC_QPT_UD: unreliable datagram
 * @RNIC_QPT_XRC_SEND: XRC initiator (INI): reliable connected sends to
 *	the XRC SRQ each work request names (wr.remote_srqn); a send queue
 *	and no receive queue
 * @RNIC_QPT_XRC_RECV: XRC target (TGT): the responder of XRC INI QPs, in
 *	an XRC domain (see "rnic XRC domains"); no queues, no PD or CQs of
 *	its own: each request names the XRC SRQ of its domain that takes
 *	it, whose PD checks memory access and whose CQ gets completions
 *
 * The other types of enum ibv_qp_type (RAW_PACKET, DRIVER) are
 * EOPNOTSUPP; values outside enum ibv_qp_type are EINVAL.
 */
enum rnic_qp_type {
	RNIC_QPT_RC = 2,
	RNIC_QPT_UC = 3,
	RNIC_QPT_UD = 4,
	RNIC_QPT_XRC_SEND = 9,
	RNIC_QPT_XRC_RECV = 10,
};

/**
 * enum rnic_qp_state - QP states, the values of enum ibv_qp_state
 * @RNIC_QPS_RESET: created, or reset: nothing is processed
 * @RNIC_QPS_INIT: receives may be posted, nothing is processed
 * @RNIC_QPS_RTR: ready to receive
 * @RNIC_QPS_RTS: ready to send
 * @RNIC_QPS_SQD: send queue drained: sends posted are not started
 * @RNIC_QPS_SQE: send queue error (UC, UD): only the data path enters it
 * @RNIC_QPS_ERR: error: every work request completes with a flush error
 */
enum rnic_qp_state {
	RNIC_QPS_RESET,
	RNIC_QPS_INIT,
	RNIC_QPS_RTR,
	RNIC_QPS_RTS,
	RNIC_QPS_SQD,
	RNIC_QPS_SQE,
	RNIC_QPS_ERR,
};

/**
 * enum rnic_qp_attr_mask - which attributes RNIC_IOCTL_MODIFY_QP sets, the
 *	values of enum ibv_qp_attr_mask
 * @RNIC_QP_STATE: @qp_state: the state to move to (else the QP stays)
 * @RNIC_QP_CUR_STATE: @cur_qp_state: the state the caller believes the
 *	QP is in; only from RTR, RTS, SQD or SQE, EINVAL if the QP is in
 *	another state
 * @RNIC_QP_EN_SQD_ASYNC_NOTIFY: @en_sqd_async_notify (0 or 1): raise
 *	IBV_EVENT_SQ_DRAINED when the send queue is drained in SQD
 * @RNIC_QP_ACCESS_FLAGS: @qp_access_flags, enum rnic_access bits among
 *	LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC
 * @RNIC_QP_PKEY_INDEX: @pkey_index, 0 (the P_Key table has one entry)
 * @RNIC_QP_PORT: @port_num, 1
 * @RNIC_QP_QKEY: @qkey; a controlled Q_Key (bit 31 set) needs
 *	CAP_NET_RAW, else EPERM
 * @RNIC_QP_AV: @ah_attr, the primary path; the rules of struct
 *	rnic_create_ah, and a unicast destination GID
 * @RNIC_QP_PATH_MTU: @path_mtu, an enum ibv_mtu value up to the port's
 *	max_mtu (IBV_MTU_4096)
 * @RNIC_QP_TIMEOUT: @timeout, 0 .. 31 (4.096 us * 2^timeout, 0: infinite)
 * @RNIC_QP_RETRY_CNT: @retry_cnt, 0 .. 7
 * @RNIC_QP_RNR_RETRY: @rnr_retry, 0 .. 7 (7: infinite)
 * @RNIC_QP_RQ_PSN: @rq_psn, 24 bits
 * @RNIC_QP_MAX_QP_RD_ATOMIC: @max_rd_atomic, 0 .. the device's
 *	max_qp_init_rd_atom (64)
 * @RNIC_QP_ALT_PATH: alternate path (APM); RoCE has none: always EINVAL
 * @RNIC_QP_MIN_RNR_TIMER: @min_rnr_timer, 0 .. 31
 * @RNIC_QP_SQ_PSN: @sq_psn, 24 bits
 * @RNIC_QP_MAX_DEST_RD_ATOMIC: @max_dest_rd_atomic, 0 .. the device's
 *	max_qp_rd_atom (64)
 * @RNIC_QP_PATH_MIG_STATE: @path_mig_state, an enum ibv_mig_state value
 * @RNIC_QP_CAP: resizing the queues; not supported: always EINVAL
 * @RNIC_QP_DEST_QPN: @dest_qp_num, 24 bits
 * @RNIC_QP_RATE_LIMIT: packet pacing (raw packet QPs only): always EINVAL
 */
enum rnic_qp_attr_mask {
	RNIC_QP_STATE = 1 << 0,
	RNIC_QP_CUR_STATE = 1 << 1,
	RNIC_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	RNIC_QP_ACCESS_FLAGS = 1 << 3,
	RNIC_QP_PKEY_INDEX = 1 << 4,
	RNIC_QP_PORT = 1 << 5,
	RNIC_QP_QKEY = 1 << 6,
	RNIC_QP_AV = 1 << 7,
	RNIC_QP_PATH_MTU = 1 << 8,
	RNIC_QP_TIMEOUT = 1 << 9,
	RNIC_QP_RETRY_CNT = 1 << 10,
	RNIC_QP_RNR_RETRY = 1 << 11,
	RNIC_QP_RQ_PSN = 1 << 12,
	RNIC_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	RNIC_QP_ALT_PATH = 1 << 14,
	RNIC_QP_MIN_RNR_TIMER = 1 << 15,
	RNIC_QP_SQ_PSN = 1 << 16,
	RNIC_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	RNIC_QP_PATH_MIG_STATE = 1 << 18,
	RNIC_QP_CAP = 1 << 19,
	RNIC_QP_DEST_QPN = 1 << 20,
	RNIC_QP_RATE_LIMIT = 1 << 25,
};

/**
 * enum rnic_create_qp_flags - struct rnic_create_qp.flags bits
 * @RNIC_CREATE_QP_SRQ: @srq_handle names the SRQ the QP receives from
 *	(RC and UD only, EINVAL for UC); the QP has no RQ
 * @RNIC_CREATE_QP_SQ_SIG_ALL: every send work request completes with a
 *	CQE, whether it asks for one or not
 * @RNIC_CREATE_QP_SQ_POLL: the device's polling thread watches the send
 *	doorbell (DOC "rnic send doorbell"): no RNIC_IOCTL_KICK_SQ while
 *	the thread is awake. The thread is the kernel's, its CPU time is
 *	charged to no cgroup: the caller needs CAP_SYS_NICE (EPERM)
 */
enum rnic_create_qp_flags {
	RNIC_CREATE_QP_SRQ = 1 << 0,
	RNIC_CREATE_QP_SQ_SIG_ALL = 1 << 1,
	RNIC_CREATE_QP_SQ_POLL = 1 << 2,
};

/**
 * struct rnic_qp_cap - sizes of a QP's queues
 * @max_send_wr: send work requests, 0 .. rnic_query_device.out_max_qp_wr;
 *	granted: rounded up to a power of two, the SQ's ring entries
 * @max_recv_wr: receive work requests, likewise; ignored with an SRQ
 *	(granted 0)
 * @max_send_sge: scatter/gather entries per send work request, up to
 *	rnic_query_device.out_max_sge
 * @max_recv_sge: scatter/gather entries per receive work request, up to
 *	rnic_query_device.out_max_sge; ignored with an SRQ (granted 0)
 * @max_inline_data: bytes of inline data per send work request, up to
 *	RNIC_MAX_INLINE_DATA
 * @__reserved: must be 0
 *
 * A send ring entry has room for max(16 * @max_send_sge, @max_inline_data
 * rounded up to 16) bytes after its header; the granted @max_send_sge and
 * @max_inline_data are what fits there (within the limits above), at
 * least what was asked for.
 */
struct rnic_qp_cap {
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u32 __reserved;
};

/** RNIC_MAX_INLINE_DATA - largest struct rnic_qp_cap.max_inline_data */
#define RNIC_MAX_INLINE_DATA 512

/**
 * struct rnic_create_qp - RNIC_IOCTL_CREATE_QP
 * @size: sizeof(struct rnic_create_qp)
 * @flags: enum rnic_create_qp_flags bits; other bits are EINVAL
 * @user_handle: returned in the QP's asynchronous events
 * @pd_handle: protection domain of the QP; ignored for XRC_RECV
 * @send_cq_handle: CQ for send completions; ignored for XRC_RECV
 * @recv_cq_handle: CQ for receive completions, may be @send_cq_handle;
 *	ignored for XRC_SEND and XRC_RECV
 * @srq_handle: with RNIC_CREATE_QP_SRQ, the SRQ; else ignored
 * @qp_type: an enum rnic_qp_type value
 * @__reserved: must be 0
 * @cap: the queue sizes asked for; the receive sizes are ignored for
 *	XRC_SEND, all of them for XRC_RECV
 * @out_handle: handle of the new QP
 * @out_qp_num: its QP number (24 bits)
 * @out_cap: the queue sizes granted
 * @out_sq: the send ring; userspace produces struct rnic_send_wqe
 *	entries, the data path consumes them. All zero without an SQ.
 * @out_rq: the receive ring; userspace produces struct rnic_recv_wqe
 *	entries (+ @out_cap.max_recv_sge struct rnic_sge), the data path
 *	consumes them. All zero without an RQ.
 * @out_sq_flags_off: offset of the __u32 flags word (enum rnic_wq_flags)
 *	in the send ring's region; 0 without an SQ
 * @out_rq_flags_off: offset of the flags word in the receive ring's
 *	region; 0 without an RQ
 * @xrcd_handle: XRC_RECV: the XRC domain (struct rnic_open_xrcd) the QP
 *	is created in; else must be 0
 * @__reserved2: must be 0
 *
 * RNIC_CREATE_QP_SRQ is EINVAL for XRC_SEND and XRC_RECV, and so is
 * RNIC_CREATE_QP_SQ_POLL for XRC_RECV. @out_handle of an XRC_RECV QP is
 * a handle like those of RNIC_IOCTL_OPEN_QP (see "rnic XRC domains").
 *
 * The QP holds its PD, CQs and SRQ until it is destroyed (they are EBUSY
 * meanwhile). Sizes beyond the limits of struct rnic_qp_cap are EINVAL;
 * beyond the device's QP limit, ENOMEM. Its rings, the kernel's copy of
 * its send queue and its scratch space (a page, even without queues)
 * count against RLIMIT_MEMLOCK like a memory region's pages (ENOMEM).
 */
struct rnic_create_qp {
	__u32 size;
	__u32 flags;
	__aligned_u64 user_handle;
	__u32 pd_handle;
	__u32 send_cq_handle;
	__u32 recv_cq_handle;
	__u32 srq_handle;
	__u32 qp_type;
	__u32 __reserved;
	struct rnic_qp_cap cap;
	__u32 out_handle;
	__u32 out_qp_num;
	struct rnic_qp_cap out_cap;
	struct rnic_ring_info out_sq;
	struct rnic_ring_info out_rq;
	__u32 out_sq_flags_off;
	__u32 out_rq_flags_off;
	__u32 xrcd_handle;
	__u32 __reserved2;
};

/**
 * struct rnic_qp_attr - QP attributes, the fields of struct ibv_qp_attr
 *	rnic has (no alternate path, no rate limit)
 * @qp_state: enum rnic_qp_state
 * @cur_qp_state: enum rnic_qp_state (RNIC_QP_CUR_STATE)
 * @path_mtu: enum ibv_mtu
 * @path_mig_state: enum ibv_mig_state
 * @qkey: Q_Key (UD)
 * @rq_psn: first PSN expected (RC, UC), 24 bits
 * @sq_psn: first PSN sent, 24 bits
 * @dest_qp_num: remote QP number (RC, UC), 24 bits
 * @qp_access_flags: enum rnic_access bits (RC, UC)
 * @pkey_index: P_Key table index
 * @en_sqd_async_notify: 1: raise IBV_EVENT_SQ_DRAINED in SQD
 * @sq_draining: out only: the QP is in SQD and sends are still in
 *	flight; input ignored
 * @max_rd_atomic: RDMA READ/atomic requests in flight as initiator (RC)
 * @max_dest_rd_atomic: ... as responder (RC)
 * @min_rnr_timer: RNR NAK timer code (RC)
 * @port_num: port, 1
 * @timeout: local ACK timeout code (RC)
 * @retry_cnt: transport retries (RC)
 * @rnr_retry: RNR retries (RC)
 * @__reserved: must be 0
 * @ah_attr: primary path (RC, UC)
 *
 * Each field is read only when its enum rnic_qp_attr_mask bit is set.
 */
struct rnic_qp_attr {
	__u32 qp_state;
	__u32 cur_qp_state;
	__u32 path_mtu;
	__u32 path_mig_state;
	__u32 qkey;
	__u32 rq_psn;
	__u32 sq_psn;
	__u32 dest_qp_num;
	__u32 qp_access_flags;
	__u32 pkey_index;
	__u32 en_sqd_async_notify;
	__u32 sq_draining;
	__u32 max_rd_atomic;
	__u32 max_dest_rd_atomic;
	__u32 min_rnr_timer;
	__u32 port_num;
	__u32 timeout;
	__u32 retry_cnt;
	__u32 rnr_retry;
	__u32 __reserved;
	struct rnic_ah_attr ah_attr;
};

/**
 * struct rnic_modify_qp - RNIC_IOCTL_MODIFY_QP
 * @size: sizeof(struct rnic_modify_qp)
 * @flags: must be 0
 * @handle: the QP
 * @attr_mask: enum rnic_qp_attr_mask bits; other bits are EINVAL
 * @attr: the new values of the attributes @attr_mask names
 *
 * See "rnic queue pairs". On error nothing is changed; a primary path
 * (RNIC_QP_AV) that struct rnic_create_ah would refuse with ENETUNREACH
 * is refused likewise. Moving from RTS to
 * SQD with RNIC_QP_EN_SQD_ASYNC_NOTIFY and @attr.en_sqd_async_notify 1
 * raises IBV_EVENT_SQ_DRAINED (element: the QP's user_handle) once the
 * send queue is drained: when the sends in flight at the transition have
 * been answered, at once if none is.
 */
struct rnic_modify_qp {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 attr_mask;
	struct rnic_qp_attr attr;
};

/**
 * struct rnic_query_qp - RNIC_IOCTL_QUERY_QP
 * @size: sizeof(struct rnic_query_qp)
 * @flags: must be 0
 * @handle: the QP
 * @__reserved: must be 0
 * @out_attr: every attribute as last set (0 if never set since creation
 *	or the last move to RESET); @out_attr.cur_qp_state is the state too
 * @out_cap: the queue sizes granted at creation
 */
struct rnic_query_qp {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
	struct rnic_qp_attr out_attr;
	struct rnic_qp_cap out_cap;
};

/**
 * struct rnic_destroy_qp - RNIC_IOCTL_DESTROY_QP
 * @size: sizeof(struct rnic_destroy_qp)
 * @flags: must be 0
 * @handle: the QP
 * @__reserved: must be 0
 * @out_async_events_reported: asynchronous events of the QP read from
 *	the context's queue
 *
 * EBUSY while the QP is attached to a multicast group, or while another
 * destroy of it runs. Works on a removed device.
 */
struct rnic_destroy_qp {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
	__u32 out_async_events_reported;
};

/**
 * struct rnic_open_qp - RNIC_IOCTL_OPEN_QP: a handle on an XRC TGT QP
 * @size: sizeof(struct rnic_open_qp)
 * @flags: must be 0
 * @xrcd_handle: the XRC domain, opened by the calling context
 * @qp_num: the number of a TGT QP of that domain
 * @user_handle: returned in the QP's asynchronous events to this context
 * @out_handle: the new handle, for RNIC_IOCTL_MODIFY_QP,
 *	RNIC_IOCTL_QUERY_QP and RNIC_IOCTL_DESTROY_QP
 * @__reserved: must be 0
 *
 * A number that names no TGT QP of the domain is EINVAL.
 */
struct rnic_open_qp {
	__u32 size;
	__u32 flags;
	__u32 xrcd_handle;
	__u32 qp_num;
	__aligned_u64 user_handle;
	__u32 out_handle;
	__u32 __reserved;
};

/**
 * enum rnic_wr_opcode - send work request opcodes, the values of enum
 *	ibv_wr_opcode
 * @RNIC_WR_RDMA_WRITE: RDMA WRITE (RC, UC)
 * @RNIC_WR_RDMA_WRITE_WITH_IMM: RDMA WRITE with immediate data (RC, UC)
 * @RNIC_WR_SEND: SEND
 * @RNIC_WR_SEND_WITH_IMM: SEND with immediate data
 * @RNIC_WR_RDMA_READ: RDMA READ (RC)
 * @RNIC_WR_ATOMIC_CMP_AND_SWP: atomic compare and swap (RC)
 * @RNIC_WR_ATOMIC_FETCH_AND_ADD: atomic fetch and add (RC)
 * @RNIC_WR_LOCAL_INV: invalidate the rkey of a type 2 window of the QP's
 *	protection domain (RC, UC)
 * @RNIC_WR_BIND_MW: bind a memory window (RC, UC), wr.bind
 * @RNIC_WR_SEND_WITH_INV: SEND that invalidates a remote key (RC)
 */
enum rnic_wr_opcode {
	RNIC_WR_RDMA_WRITE = 0,
	RNIC_WR_RDMA_WRITE_WITH_IMM = 1,
	RNIC_WR_SEND = 2,
	RNIC_WR_SEND_WITH_IMM = 3,
	RNIC_WR_RDMA_READ = 4,
	RNIC_WR_ATOMIC_CMP_AND_SWP = 5,
	RNIC_WR_ATOMIC_FETCH_AND_ADD = 6,
	RNIC_WR_LOCAL_INV = 7,
	RNIC_WR_BIND_MW = 8,
	RNIC_WR_SEND_WITH_INV = 9,
};

/**
 * enum rnic_send_flags - struct rnic_send_wqe.send_flags bits, the values
 *	of enum ibv_send_flags
 * @RNIC_SEND_FENCE: wait for earlier RDMA READs and atomics
 * @RNIC_SEND_SIGNALED: complete with a CQE
 * @RNIC_SEND_SOLICITED: set the solicited event bit
 * @RNIC_SEND_INLINE: the data is in the entry, not in SGEs
 */
enum rnic_send_flags {
	RNIC_SEND_FENCE = 1 << 0,
	RNIC_SEND_SIGNALED = 1 << 1,
	RNIC_SEND_SOLICITED = 1 << 2,
	RNIC_SEND_INLINE = 1 << 3,
};

/**
 * struct rnic_send_wqe - a send work request in an SQ ring
 * @wr_id: returned in the completion
 * @opcode: an enum rnic_wr_opcode value
 * @send_flags: enum rnic_send_flags bits
 * @ex: opcode-dependent word
 * @ex.imm_data: immediate data, network byte order (*_WITH_IMM)
 * @ex.invalidate_rkey: the key to invalidate (SEND_WITH_INV, LOCAL_INV)
 * @num_sge: SGEs after the header, at most the QP's max_send_sge; 0 with
 *	RNIC_SEND_INLINE
 * @inline_len: with RNIC_SEND_INLINE, bytes of data after the header, at
 *	most the QP's max_inline_data; else 0
 * @remote_srqn: XRC_SEND QPs: the number of the XRC SRQ at the target
 *	that takes the request (24 bits); must be 0 for other types
 * @wr: per-opcode part
 * @wr.rdma: RDMA WRITE and READ
 * @wr.rdma.remote_addr: remote address
 * @wr.rdma.rkey: remote key
 * @wr.rdma.__reserved: must be 0
 * @wr.atomic: atomics; the local buffer is one 8-byte SGE
 * @wr.atomic.remote_addr: remote address, 8-byte aligned
 * @wr.atomic.compare_add: value to compare with, or to add
 * @wr.atomic.swap: value to swap in
 * @wr.atomic.rkey: remote key
 * @wr.atomic.__reserved: must be 0
 * @wr.ud: UD destination
 * @wr.ud.ah_handle: address handle, in the QP's context and PD
 * @wr.ud.remote_qpn: destination QP number
 * @wr.ud.remote_qkey: destination Q_Key (bit 31 set: use the QP's own)
 * @wr.ud.__reserved: must be 0
 * @wr.bind: memory window bind (num_sge 0, not inline); a bind that
 *	breaks a rule of the IB specification completes with
 *	IBV_WC_MW_BIND_ERR and takes the QP to the error state
 * @wr.bind.mw_handle: the window, in the QP's context and protection
 *	domain
 * @wr.bind.rkey: the window's rkey after the bind: its current one with
 *	the key byte (low 8 bits) the consumer chose
 * @wr.bind.mr_lkey: lkey of the region, which must have
 *	RNIC_ACCESS_MW_BIND and be in the QP's protection domain
 * @wr.bind.access: RNIC_ACCESS_REMOTE_{READ,WRITE,ATOMIC} the window
 *	grants (LOCAL_WRITE is accepted and means nothing for a window);
 *	write and atomic rights need a region with LOCAL_WRITE
 * @wr.bind.addr: first byte of the window, in the region's iova space
 * @wr.bind.length: bytes, inside the region; 0 unbinds a type 1 window
 *	and is an error for type 2
 *
 * The 64-byte header is followed by @num_sge struct rnic_sge or by
 * @inline_len bytes of data; the ring's entry_size has room for the QP's
 * max_send_sge and max_inline_data.
 */
struct rnic_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;
	union {
		__be32 imm_data;
		__u32 invalidate_rkey;
	} ex;
	__u32 num_sge;
	__u32 inline_len;
	__u32 remote_srqn;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 __reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 __reserved;
		} atomic;
		struct {
			__u32 ah_handle;
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 __reserved;
		} ud;
		struct rnic_bind_wr {
			__u32 mw_handle;
			__u32 rkey;
			__u32 mr_lkey;
			__u32 access;
			__aligned_u64 addr;
			__aligned_u64 length;
		} bind;
	} wr;
};

/**
 * DOC: rnic send doorbell
 *
 * The head of a QP's send ring region is its doorbell: the SQ producer
 * index (the SQ tail, at out_sq.producer_off), the consumer index the
 * kernel writes, and the SQ flags word (at out_sq_flags_off, in the
 * consumer's cache line, written by the kernel only); the entries follow.
 * Every index starts at 0. Posting is:
 *
 * 1. write the entries, then store-release the new producer index;
 * 2. without RNIC_CREATE_QP_SQ_POLL: RNIC_IOCTL_RING_SQ;
 * 3. with it: a full memory barrier, then read the flags word; only if
 *    RNIC_SQ_NEED_WAKEUP is set, RNIC_IOCTL_RING_SQ.
 *
 * RNIC_IOCTL_RING_SQ is the doorbell in one word: its argument is the QP
 * handle itself, not a pointer, so the kernel reads no memory to take it.
 * It does what RNIC_IOCTL_KICK_SQ with flags 0 does, with the same errors
 * (EINVAL for a handle that names no QP of the context, ENODEV after the
 * device is gone); KICK_SQ stays for its flags and for older libraries.
 *
 * The polling thread, before it sleeps, sets RNIC_SQ_NEED_WAKEUP, issues a
 * full memory barrier and reads every watched producer index once more:
 * if one moved it clears the flag and goes on. The two barriers make sure
 * that a post either is seen by the thread or sees the flag (io_uring's
 * SQPOLL rule), so no wake-up is lost. Kicking when not needed is
 * harmless.
 *
 * The kernel copies an entry once, when it fetches it (to start it, or
 * to flush it); it stores the consumer index (store-release) when the
 * work request is completed (a CQE written, or retired silently when
 * unsignaled), so a slot below the consumer index may be reused.
 * Userspace must not change entries between the consumer and producer
 * indexes: the kernel may have read them or not.
 */

/**
 * enum rnic_wq_flags - bits of the flags words of a QP's rings, written
 *	by the kernel only
 * @RNIC_SQ_NEED_WAKEUP: SQ: the polling thread sleeps: kick it
 * @RNIC_WQ_ERR: RQ: the QP is in ERR; receives posted from now on are
 *	flushed (IBV_WC_WR_FLUSH_ERR) when userspace kicks with
 *	RNIC_KICK_RQ after a full memory barrier. The kernel sets the flag,
 *	issues a full barrier and then flushes what the producer index
 *	shows, so a receive is flushed by one side or the other.
 */
enum rnic_wq_flags {
	RNIC_SQ_NEED_WAKEUP = 1 << 0,
	RNIC_WQ_ERR = 1 << 1,
};

/**
 * enum rnic_kick_flags - struct rnic_kick_sq.flags
 * @RNIC_KICK_RQ: flush the receives posted to a QP in ERR
 */
enum rnic_kick_flags {
	RNIC_KICK_RQ = 1 << 0,
};

/**
 * struct rnic_kick_sq - RNIC_IOCTL_KICK_SQ: the send doorbell
 * @size: sizeof(struct rnic_kick_sq)
 * @flags: enum rnic_kick_flags bits; others are EINVAL
 * @qp_handle: the QP whose SQ producer index moved
 * @__reserved: must be 0
 *
 * Starts the work requests posted up to the producer index: inline in the
 * call while that is quick, on the device's workers otherwise. A QP that
 * is not in RTS, SQD, SQE or ERR ignores it (posting there is an error
 * that librnic reports).
 */
struct rnic_kick_sq {
	__u32 size;
	__u32 flags;
	__u32 qp_handle;
	__u32 __reserved;
};

/**
 * DOC: rnic work request checks
 *
 * librnic checks every work request before it writes it to a ring (see
 * ibv_post_send(3)): an opcode the QP type does not have, more SGEs than
 * the queue's max_sge or more inline bytes than its max_inline_data is
 * EINVAL, a full ring ENOMEM. The kernel checks the same again on the copy
 * it takes, and more, because the ring is writable by userspace:
 *
 * - a send entry with an unknown opcode, an opcode the QP type does not
 *   have, non-zero reserved fields or flags, too many SGEs or inline
 *   bytes, or (UD) an address handle that is not an AH of the QP's PD,
 *   completes with IBV_WC_LOC_QP_OP_ERR and moves the QP to ERR (RC) or
 *   SQE (UC, UD); one longer than max_msg_sz (UD: the path MTU) does so
 *   with IBV_WC_LOC_LEN_ERR;
 * - a receive entry with too many SGEs or non-zero reserved fields
 *   completes with IBV_WC_LOC_QP_OP_ERR and moves the QP to ERR
 *   (IBV_EVENT_QP_FATAL);
 * - a producer index more than the ring size ahead of the consumer moves
 *   the QP to ERR (IBV_EVENT_QP_FATAL) without reading any entry; while
 *   flushing, it just ends the flush.
 *
 * Both ends of a connection must use the same path MTU, as in IB: it
 * decides how a READ's responses are counted.
 *
 * SGE addresses and lengths are checked against the MR of their lkey at
 * use: IBV_WC_LOC_PROT_ERR.
 */

/**
 * enum rnic_wc_status - struct rnic_cqe.status, the values of enum
 *	ibv_wc_status that rnic produces
 * @RNIC_WC_SUCCESS: success
 * @RNIC_WC_LOC_LEN_ERR: local length error
 * @RNIC_WC_LOC_QP_OP_ERR: malformed work request
 * @RNIC_WC_LOC_PROT_ERR: local protection error (lkey, bounds, access)
 * @RNIC_WC_WR_FLUSH_ERR: flushed: the QP is in ERR (or SQE)
 * @RNIC_WC_MW_BIND_ERR: a memory window bind broke a rule
 * @RNIC_WC_REM_INV_REQ_ERR: the responder found the request invalid
 * @RNIC_WC_REM_ACCESS_ERR: remote access error (rkey, bounds, access, PD)
 * @RNIC_WC_REM_OP_ERR: the responder failed the operation
 * @RNIC_WC_RETRY_EXC_ERR: transport retries exhausted
 * @RNIC_WC_RNR_RETRY_EXC_ERR: RNR retries exhausted
 */
enum rnic_wc_status {
	RNIC_WC_SUCCESS = 0,
	RNIC_WC_LOC_LEN_ERR = 1,
	RNIC_WC_LOC_QP_OP_ERR = 2,
	RNIC_WC_LOC_PROT_ERR = 4,
	RNIC_WC_WR_FLUSH_ERR = 5,
	RNIC_WC_MW_BIND_ERR = 6,
	RNIC_WC_REM_INV_REQ_ERR = 9,
	RNIC_WC_REM_ACCESS_ERR = 10,
	RNIC_WC_REM_OP_ERR = 11,
	RNIC_WC_RETRY_EXC_ERR = 12,
	RNIC_WC_RNR_RETRY_EXC_ERR = 13,
};

/**
 * enum rnic_wc_opcode - struct rnic_cqe.opcode, the values of enum
 *	ibv_wc_opcode
 * @RNIC_WC_SEND: SEND, SEND_WITH_IMM
 * @RNIC_WC_RDMA_WRITE: RDMA WRITE, RDMA WRITE with immediate
 * @RNIC_WC_RDMA_READ: RDMA READ
 * @RNIC_WC_COMP_SWAP: compare and swap
 * @RNIC_WC_FETCH_ADD: fetch and add
 * @RNIC_WC_BIND_MW: memory window bind
 * @RNIC_WC_LOCAL_INV: local invalidate
 * @RNIC_WC_RECV: a receive (SEND, SEND_WITH_IMM, SEND_WITH_INV)
 * @RNIC_WC_RECV_RDMA_WITH_IMM: a receive consumed by RDMA WRITE with
 *	immediate
 */
enum rnic_wc_opcode {
	RNIC_WC_SEND = 0,
	RNIC_WC_RDMA_WRITE = 1,
	RNIC_WC_RDMA_READ = 2,
	RNIC_WC_COMP_SWAP = 3,
	RNIC_WC_FETCH_ADD = 4,
	RNIC_WC_BIND_MW = 5,
	RNIC_WC_LOCAL_INV = 6,
	RNIC_WC_RECV = 1 << 7,
	RNIC_WC_RECV_RDMA_WITH_IMM = (1 << 7) + 1,
};

/**
 * enum rnic_wc_flags - struct rnic_cqe.wc_flags bits, the values of enum
 *	ibv_wc_flags
 * @RNIC_WC_GRH: the receive buffer starts with 40 bytes of GRH (UD)
 * @RNIC_WC_WITH_IMM: imm_data is valid
 * @RNIC_WC_WITH_INV: the SEND invalidated invalidated_rkey
 */
enum rnic_wc_flags {
	RNIC_WC_GRH = 1 << 0,
	RNIC_WC_WITH_IMM = 1 << 1,
	RNIC_WC_WITH_INV = 1 << 3,
};

/**
 * struct rnic_attach_mcast - RNIC_IOCTL_ATTACH_MCAST, RNIC_IOCTL_DETACH_MCAST
 * @size: sizeof(struct rnic_attach_mcast)
 * @flags: must be 0
 * @qp_handle: the QP, of type UD (EINVAL otherwise)
 * @mlid: multicast LID; RoCE has no LIDs: ignored
 * @__reserved: must be 0
 * @gid: the group's multicast GID: ff00::/8, or IPv4-mapped 224.0.0.0/4
 *	(RoCEv2 over IPv4); EINVAL otherwise
 *
 * Groups are per device: UD QPs of every context of the device attached
 * to a group receive what is sent to its GID. Attaching a QP to a group
 * it is in already succeeds and changes nothing; detaching it from a
 * group it is not in is EINVAL. More than rnic_query_device.out_max_mcast_grp
 * groups, or out_max_mcast_qp_attach QPs in a group, is ENOMEM. A QP
 * attached to a group cannot be destroyed (EBUSY); closing the file
 * detaches its QPs. Detaching works on a removed device.
 */
struct rnic_attach_mcast {
	__u32 size;
	__u32 flags;
	__u32 qp_handle;
	__u16 mlid;
	__u16 __reserved;
	__u8 gid[16];
};

/* shared receive queues, address handles: structs */

/**
 * enum rnic_create_srq_flags - struct rnic_create_srq.flags bits
 * @RNIC_CREATE_SRQ_XRC: an XRC SRQ, in the XRC domain @xrcd_handle, its
 *	receive completions on @cq_handle; it has a number (@out_srq_num)
 *	that XRC senders name
 */
enum rnic_create_srq_flags {
	RNIC_CREATE_SRQ_XRC = 1 << 0,
};

/**
 * struct rnic_create_srq - RNIC_IOCTL_CREATE_SRQ
 * @size: sizeof(struct rnic_create_srq)
 * @flags: enum rnic_create_srq_flags bits; other bits are EINVAL
 * @pd_handle: protection domain of the SRQ
 * @max_wr: work requests, 1 .. rnic_query_device.out_max_srq_wr; rounded
 *	up to a power of two
 * @max_sge: scatter/gather entries per work request, at most
 *	rnic_query_device.out_max_srq_sge (0 is allowed: zero-byte receives)
 * @srq_limit: limit armed at creation, at most the granted @out_max_wr;
 *	0 leaves the SRQ unarmed (see struct rnic_modify_srq)
 * @user_handle: returned in the SRQ's asynchronous events
 * @out_handle: handle of the new SRQ
 * @out_max_wr: work requests granted, the number of ring entries
 * @out_max_sge: scatter/gather entries granted per work request
 * @__reserved: must be 0
 * @out_ring: the receive ring (see "rnic rings"); userspace is the
 *	producer, the kernel the consumer. An entry is a struct
 *	rnic_recv_wqe followed by @out_max_sge struct rnic_sge.
 * @xrcd_handle: with RNIC_CREATE_SRQ_XRC, the XRC domain; else must be 0
 * @cq_handle: with RNIC_CREATE_SRQ_XRC, the CQ of its receive
 *	completions; else must be 0
 * @out_srq_num: with RNIC_CREATE_SRQ_XRC, its number (24 bits, unique
 *	among the live XRC SRQs of the device); else 0
 * @__reserved2: must be 0
 *
 * The SRQ holds its PD, and its domain and CQ, until it is destroyed.
 * A bad @max_wr, @max_sge or @srq_limit is EINVAL; beyond the device's
 * SRQ limit, ENOMEM.
 */
struct rnic_create_srq {
	__u32 size;
	__u32 flags;
	__u32 pd_handle;
	__u32 max_wr;
	__u32 max_sge;
	__u32 srq_limit;
	__aligned_u64 user_handle;
	__u32 out_handle;
	__u32 out_max_wr;
	__u32 out_max_sge;
	__u32 __reserved;
	struct rnic_ring_info out_ring;
	__u32 xrcd_handle;
	__u32 cq_handle;
	__u32 out_srq_num;
	__u32 __reserved2;
};

/**
 * enum rnic_srq_attr_mask - what RNIC_IOCTL_MODIFY_SRQ changes, the values
 *	of enum ibv_srq_attr_mask
 * @RNIC_SRQ_MAX_WR: resize; rnic does not resize SRQs (no
 *	IBV_DEVICE_SRQ_RESIZE), so this bit is always EINVAL
 * @RNIC_SRQ_LIMIT: arm the SRQ limit
 */
enum rnic_srq_attr_mask {
	RNIC_SRQ_MAX_WR = 1 << 0,
	RNIC_SRQ_LIMIT = 1 << 1,
};

/**
 * struct rnic_modify_srq - RNIC_IOCTL_MODIFY_SRQ
 * @size: sizeof(struct rnic_modify_srq)
 * @flags: must be 0
 * @handle: the SRQ
 * @attr_mask: enum rnic_srq_attr_mask bits; other bits are EINVAL
 * @max_wr: ignored: RNIC_SRQ_MAX_WR is EINVAL
 * @srq_limit: with RNIC_SRQ_LIMIT, the new limit, at most the SRQ's
 *	max_wr (EINVAL otherwise); 0 disarms
 *
 * An armed SRQ raises IBV_EVENT_SRQ_LIMIT_REACHED once, when taking a
 * work request leaves fewer than @srq_limit in the ring, and is disarmed
 * (its limit reads 0) from then on. On error nothing is changed.
 */
struct rnic_modify_srq {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 attr_mask;
	__u32 max_wr;
	__u32 srq_limit;
};

/**
 * struct rnic_query_srq - RNIC_IOCTL_QUERY_SRQ
 * @size: sizeof(struct rnic_query_srq)
 * @flags: must be 0
 * @handle: the SRQ
 * @out_max_wr: work requests, as granted at creation
 * @out_max_sge: scatter/gather entries per work request
 * @out_srq_limit: the armed limit, 0 when not (or no longer) armed
 */
struct rnic_query_srq {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 out_max_wr;
	__u32 out_max_sge;
	__u32 out_srq_limit;
};

/**
 * struct rnic_destroy_srq - RNIC_IOCTL_DESTROY_SRQ
 * @size: sizeof(struct rnic_destroy_srq)
 * @flags: must be 0
 * @handle: the SRQ
 * @__reserved: must be 0
 * @out_async_events_reported: asynchronous events of the SRQ read from
 *	the context's queue
 *
 * EBUSY while a QP uses the SRQ, or while another destroy of it runs.
 */
struct rnic_destroy_srq {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
	__u32 out_async_events_reported;
};

/**
 * struct rnic_create_ah - RNIC_IOCTL_CREATE_AH
 * @size: sizeof(struct rnic_create_ah)
 * @flags: must be 0
 * @pd_handle: protection domain of the address handle
 * @out_handle: handle of the new address handle; UD send work requests
 *	name it
 * @attr: the address. EINVAL unless: @attr.port_num is 1, @attr.is_global
 *	is 1 (RoCE has no LIDs), @attr.sgid_index names a GID table entry in
 *	use, @attr.dlid and @attr.src_path_bits are 0, @attr.sl is below 16,
 *	@attr.flow_label fits 20 bits, @attr.static_rate is a value of
 *	enum ibv_rate, @attr.__reserved is 0, and the source GID and
 *	@attr.dgid are either both IPv4-mapped (::ffff:a.b.c.d, RoCEv2 over
 *	IPv4) or both not.
 *
 * The source GID is read from the table once, at creation: the address
 * handle keeps it if the entry changes later. ENETUNREACH: @attr.dgid is
 * a unicast GID that no rnic device of the device's network namespace
 * owns, and the device is not bound or the kernel's route to it does not
 * leave through its netdev (RoCEv2). The route is chosen at creation too.
 */
struct rnic_create_ah {
	__u32 size;
	__u32 flags;
	__u32 pd_handle;
	__u32 out_handle;
	struct rnic_ah_attr attr;
};

#define RNIC_IOCTL_QUERY_DEVICE _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_QUERY_DEVICE)
#define RNIC_IOCTL_QUERY_PORT _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_QUERY_PORT)
#define RNIC_IOCTL_QUERY_GID _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_QUERY_GID)
#define RNIC_IOCTL_QUERY_PKEY _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_QUERY_PKEY)
#define RNIC_IOCTL_ALLOC_PD _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_ALLOC_PD)
#define RNIC_IOCTL_DEALLOC_PD _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DEALLOC_PD)
#define RNIC_IOCTL_REG_MR _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_REG_MR)
#define RNIC_IOCTL_DEREG_MR _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DEREG_MR)
#define RNIC_IOCTL_ALLOC_MW _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_ALLOC_MW)
#define RNIC_IOCTL_DEALLOC_MW _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DEALLOC_MW)
#define RNIC_IOCTL_OPEN_XRCD _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_OPEN_XRCD)
#define RNIC_IOCTL_CLOSE_XRCD _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_CLOSE_XRCD)

/* completion queues, channels, async events: ioctls */
#define RNIC_IOCTL_CREATE_ASYNC_FD \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CMD_CREATE_ASYNC_FD)
#define RNIC_IOCTL_CREATE_COMP_CHANNEL \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CMD_CREATE_COMP_CHANNEL)
#define RNIC_IOCTL_DESTROY_COMP_CHANNEL \
	_IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DESTROY_COMP_CHANNEL)
#define RNIC_IOCTL_CREATE_CQ _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_CREATE_CQ)
#define RNIC_IOCTL_RESIZE_CQ _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_RESIZE_CQ)
#define RNIC_IOCTL_DESTROY_CQ _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DESTROY_CQ)

/* queue pairs, multicast: ioctls */
#define RNIC_IOCTL_CREATE_QP _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_CREATE_QP)
#define RNIC_IOCTL_MODIFY_QP _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_MODIFY_QP)
#define RNIC_IOCTL_QUERY_QP _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_QUERY_QP)
#define RNIC_IOCTL_DESTROY_QP _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DESTROY_QP)
#define RNIC_IOCTL_ATTACH_MCAST _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_ATTACH_MCAST)
#define RNIC_IOCTL_DETACH_MCAST _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DETACH_MCAST)
#define RNIC_IOCTL_KICK_SQ _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_KICK_SQ)
#define RNIC_IOCTL_RING_SQ _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_RING_SQ)
#define RNIC_IOCTL_OPEN_QP _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_OPEN_QP)

/* shared receive queues, address handles: ioctls */
#define RNIC_IOCTL_CREATE_SRQ _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_CREATE_SRQ)
#define RNIC_IOCTL_MODIFY_SRQ _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_MODIFY_SRQ)
#define RNIC_IOCTL_QUERY_SRQ _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_QUERY_SRQ)
#define RNIC_IOCTL_DESTROY_SRQ _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DESTROY_SRQ)
#define RNIC_IOCTL_CREATE_AH _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_CREATE_AH)
#define RNIC_IOCTL_DESTROY_AH _IO(RNIC_IOCTL_MAGIC, RNIC_CMD_DESTROY_AH)

#endif /* _UAPI_RDMA_RNIC_ABI_H */
