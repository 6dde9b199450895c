// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * libibverbs.so.1 compat build: rdma-core's private provider ABI, inert.
 *
 * perftest and pyverbs link libmlx5.so.1 and libefa.so.1, which bind
 * these names at IBVERBS_PRIVATE_34 (ibverbs.map): without them the
 * program does not even load. Loaded this way, a provider library only
 * registers itself from its constructor; rnic ignores the registration,
 * so no provider ever opens a device and nothing below is called to do
 * work. Should a program call one directly anyway, it fails: EOPNOTSUPP
 * (errno too) or NULL.
 *
 * ibv_query_gid_type, the one real function of the node, is a verb of
 * lib/verbs/.
 */
#include <stdbool.h>

#include "stub.h"

/* A provider's constructor registers it here: rnic takes no providers. */
STUB_VOID(verbs_register_driver_34)

/* Read by providers that destroy objects of a disassociated device. */
bool verbs_allow_disassociate_destroy;

STUB_VOID(__verbs_log)
STUB_VOID(verbs_init_cq)
STUB_VOID(verbs_set_ops)
STUB_VOID(verbs_uninit_context)
STUB_NULL(_verbs_init_and_alloc_context, EOPNOTSUPP)
STUB_NULL(verbs_open_device, EOPNOTSUPP)
STUB_ERRNO(__ioctl_final_num_attrs, EOPNOTSUPP)
STUB_ERRNO(execute_ioctl, EOPNOTSUPP)
STUB_ERRNO(ibv_read_ibdev_sysfs_file, EOPNOTSUPP)

STUB_ERRNO(ibv_cmd_advise_mr, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_alloc_dm, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_alloc_mw, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_alloc_pd, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_attach_mcast, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_close_xrcd, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_ah, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_counters, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_cq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_cq_ex, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_flow, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_flow_action_esp, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_qp, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_qp_ex, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_qp_ex2, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_rwq_ind_table, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_srq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_srq_ex, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_create_wq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_dealloc_mw, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_dealloc_pd, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_dereg_mr, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_destroy_ah, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_destroy_counters, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_destroy_cq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_destroy_flow, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_destroy_flow_action, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_destroy_qp, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_destroy_rwq_ind_table, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_destroy_srq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_destroy_wq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_detach_mcast, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_free_dm, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_get_context, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_modify_cq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_modify_flow_action_esp, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_modify_qp, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_modify_qp_ex, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_modify_srq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_modify_wq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_open_qp, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_open_xrcd, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_poll_cq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_post_recv, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_post_send, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_post_srq_recv, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_query_context, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_query_device_any, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_query_mr, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_query_port, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_query_qp, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_query_srq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_read_counters, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_reg_dm_mr, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_reg_dmabuf_mr, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_reg_mr, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_req_notify_cq, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_rereg_mr, EOPNOTSUPP)
STUB_ERRNO(ibv_cmd_resize_cq, EOPNOTSUPP)
