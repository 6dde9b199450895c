// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * libibverbs.so.1 compat build: rdma-core's private provider ABI, inert.
 *
 * perftest and pyverbs link libmlx5.so.1 and libefa.so.1, which bind
 * these names at the provider node of the rdma-core they were built with
 * (IBVERBS_PRIVATE_34 in rdma-core 34 to 56, then _57, _59, _64, _65):
 * without them the program does not even load. Loaded this way, a
 * provider library only registers itself from its constructor
 * (verbs_register_driver_N); rnic ignores the registration, so no
 * provider ever opens a device and nothing below is called to do work.
 * Should a program call one directly anyway, it fails: EOPNOTSUPP (errno
 * too) or NULL.
 *
 * Each stub is one function, rnic_pabi_NAME, exported as NAME in every
 * provider node (.symver; the version script hides rnic_pabi_NAME):
 * NAME@@IBVERBS_PRIVATE_34 if rdma-core 44 has it, and NAME@ each newer
 * node. A newer node holds the names of rdma-core 44's and those the
 * newest map file adds; a provider of any release in between imports a
 * subset of them. ibv_query_gid_type, the one real function of the
 * nodes, is lib/verbs/gid.c's, exported at IBVERBS_PRIVATE_34 by the
 * version script and at the newer nodes from here.
 */
#include <stdbool.h>

#include "internal.h"
#include "stub.h"

#define NEWER_NODES(name, impl)                                          \
	__asm__(".symver " #impl ", " #name "@IBVERBS_PRIVATE_57\n\t"      \
		".symver " #impl ", " #name "@IBVERBS_PRIVATE_59\n\t"      \
		".symver " #impl ", " #name "@IBVERBS_PRIVATE_64\n\t"      \
		".symver " #impl ", " #name "@IBVERBS_PRIVATE_65");

/* NAME in every node, the default version the one of rdma-core 44 */
#define EVERY_NODE(name, impl)                                           \
	__asm__(".symver " #impl ", " #name "@@IBVERBS_PRIVATE_34");         \
	NEWER_NODES(name, impl)

#define PABI_ERRNO(name)                                                 \
	STUB_ERRNO(rnic_pabi_##name, EOPNOTSUPP)                         \
	EVERY_NODE(name, rnic_pabi_##name)
#define PABI_NULL(name)                                                  \
	STUB_NULL(rnic_pabi_##name, EOPNOTSUPP)                          \
	EVERY_NODE(name, rnic_pabi_##name)
#define PABI_VOID(name)                                                  \
	STUB_VOID(rnic_pabi_##name)                                      \
	EVERY_NODE(name, rnic_pabi_##name)
/* names rdma-core 44 does not have */
#define PABI_NEW_ERRNO(name)                                             \
	STUB_ERRNO(rnic_pabi_##name, EOPNOTSUPP)                         \
	NEWER_NODES(name, rnic_pabi_##name)
#define PABI_NEW_NULL(name)                                              \
	STUB_NULL(rnic_pabi_##name, EOPNOTSUPP)                          \
	NEWER_NODES(name, rnic_pabi_##name)

/*
 * A provider's constructor registers it with the function of its node
 * (ibverbs.map): rnic takes no providers.
 */
STUB_VOID(verbs_register_driver_34)
STUB_VOID(verbs_register_driver_57)
STUB_VOID(verbs_register_driver_59)
STUB_VOID(verbs_register_driver_64)
STUB_VOID(verbs_register_driver_65)

int rnic_pabi_ibv_query_gid_type(struct ibv_context *context,
				 uint8_t port_num, unsigned int index,
				 enum rnic_gid_type_sysfs *type);
int rnic_pabi_ibv_query_gid_type(struct ibv_context *context,
				 uint8_t port_num, unsigned int index,
				 enum rnic_gid_type_sysfs *type)
{
	return ibv_query_gid_type(context, port_num, index, type);
}
NEWER_NODES(ibv_query_gid_type, rnic_pabi_ibv_query_gid_type)

/* Read by providers that destroy objects of a disassociated device. */
bool rnic_pabi_verbs_allow_disassociate_destroy;
EVERY_NODE(verbs_allow_disassociate_destroy,
	   rnic_pabi_verbs_allow_disassociate_destroy)

PABI_VOID(__verbs_log)
PABI_VOID(verbs_init_cq)
PABI_VOID(verbs_set_ops)
PABI_VOID(verbs_uninit_context)
PABI_NULL(_verbs_init_and_alloc_context)
PABI_NULL(verbs_open_device)
PABI_ERRNO(__ioctl_final_num_attrs)
PABI_ERRNO(execute_ioctl)
PABI_ERRNO(ibv_read_ibdev_sysfs_file)

PABI_ERRNO(ibv_cmd_advise_mr)
PABI_ERRNO(ibv_cmd_alloc_dm)
PABI_ERRNO(ibv_cmd_alloc_mw)
PABI_ERRNO(ibv_cmd_alloc_pd)
PABI_ERRNO(ibv_cmd_attach_mcast)
PABI_ERRNO(ibv_cmd_close_xrcd)
PABI_ERRNO(ibv_cmd_create_ah)
PABI_ERRNO(ibv_cmd_create_counters)
PABI_ERRNO(ibv_cmd_create_cq)
PABI_ERRNO(ibv_cmd_create_cq_ex)
PABI_ERRNO(ibv_cmd_create_flow)
PABI_ERRNO(ibv_cmd_create_flow_action_esp)
PABI_ERRNO(ibv_cmd_create_qp)
PABI_ERRNO(ibv_cmd_create_qp_ex)
PABI_ERRNO(ibv_cmd_create_qp_ex2)
PABI_ERRNO(ibv_cmd_create_rwq_ind_table)
PABI_ERRNO(ibv_cmd_create_srq)
PABI_ERRNO(ibv_cmd_create_srq_ex)
PABI_ERRNO(ibv_cmd_create_wq)
PABI_ERRNO(ibv_cmd_dealloc_mw)
PABI_ERRNO(ibv_cmd_dealloc_pd)
PABI_ERRNO(ibv_cmd_dereg_mr)
PABI_ERRNO(ibv_cmd_destroy_ah)
PABI_ERRNO(ibv_cmd_destroy_counters)
PABI_ERRNO(ibv_cmd_destroy_cq)
PABI_ERRNO(ibv_cmd_destroy_flow)
PABI_ERRNO(ibv_cmd_destroy_flow_action)
PABI_ERRNO(ibv_cmd_destroy_qp)
PABI_ERRNO(ibv_cmd_destroy_rwq_ind_table)
PABI_ERRNO(ibv_cmd_destroy_srq)
PABI_ERRNO(ibv_cmd_destroy_wq)
PABI_ERRNO(ibv_cmd_detach_mcast)
PABI_ERRNO(ibv_cmd_free_dm)
PABI_ERRNO(ibv_cmd_get_context)
PABI_ERRNO(ibv_cmd_modify_cq)
PABI_ERRNO(ibv_cmd_modify_flow_action_esp)
PABI_ERRNO(ibv_cmd_modify_qp)
PABI_ERRNO(ibv_cmd_modify_qp_ex)
PABI_ERRNO(ibv_cmd_modify_srq)
PABI_ERRNO(ibv_cmd_modify_wq)
PABI_ERRNO(ibv_cmd_open_qp)
PABI_ERRNO(ibv_cmd_open_xrcd)
PABI_ERRNO(ibv_cmd_poll_cq)
PABI_ERRNO(ibv_cmd_post_recv)
PABI_ERRNO(ibv_cmd_post_send)
PABI_ERRNO(ibv_cmd_post_srq_recv)
PABI_ERRNO(ibv_cmd_query_context)
PABI_ERRNO(ibv_cmd_query_device_any)
PABI_ERRNO(ibv_cmd_query_mr)
PABI_ERRNO(ibv_cmd_query_port)
PABI_ERRNO(ibv_cmd_query_qp)
PABI_ERRNO(ibv_cmd_query_srq)
PABI_ERRNO(ibv_cmd_read_counters)
PABI_ERRNO(ibv_cmd_reg_dm_mr)
PABI_ERRNO(ibv_cmd_reg_dmabuf_mr)
PABI_ERRNO(ibv_cmd_reg_mr)
PABI_ERRNO(ibv_cmd_req_notify_cq)
PABI_ERRNO(ibv_cmd_rereg_mr)
PABI_ERRNO(ibv_cmd_resize_cq)

/* added after rdma-core 44 */
PABI_NEW_ERRNO(ibv_cmd_alloc_dmah)
PABI_NEW_ERRNO(ibv_cmd_create_comp_cntr)
PABI_NEW_ERRNO(ibv_cmd_create_cq_ex2)
PABI_NEW_ERRNO(ibv_cmd_destroy_comp_cntr)
PABI_NEW_ERRNO(ibv_cmd_export_dmabuf_fd)
PABI_NEW_ERRNO(ibv_cmd_free_dmah)
PABI_NEW_ERRNO(ibv_cmd_inc_comp_cntr)
PABI_NEW_ERRNO(ibv_cmd_inc_err_comp_cntr)
PABI_NEW_ERRNO(ibv_cmd_qp_attach_comp_cntr)
PABI_NEW_ERRNO(ibv_cmd_query_comp_cntr_caps)
PABI_NEW_ERRNO(ibv_cmd_query_port_speed)
PABI_NEW_ERRNO(ibv_cmd_read_comp_cntr)
PABI_NEW_ERRNO(ibv_cmd_read_err_comp_cntr)
PABI_NEW_ERRNO(ibv_cmd_reg_mr_ex)
PABI_NEW_ERRNO(ibv_cmd_set_comp_cntr)
PABI_NEW_ERRNO(ibv_cmd_set_err_comp_cntr)
PABI_NEW_NULL(ibv_dmabuf_heap_alloc)
PABI_NEW_ERRNO(ibv_dmabuf_heap_cc_shared_init)
PABI_NEW_ERRNO(ibv_dmabuf_heap_destroy)
PABI_NEW_ERRNO(ibv_dmabuf_heap_free)
PABI_NEW_NULL(ibv_wr_opcode_str)
