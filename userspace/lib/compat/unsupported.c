// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * libibverbs.so.1 compat build: public verbs of rdma-core that rnic does
 * not have, each failing the way rdma-core fails for a provider without
 * the feature (EOPNOTSUPP; NULL with errno EOPNOTSUPP), so that programs
 * linked against rdma-core load and can probe for them.
 *
 * Not done by rnic: sharing objects across processes (import), enhanced
 * connection establishment (ECE), dma-buf and device memory, DMA handles,
 * provider-allocated buffers, completion counters; and resolving a GID's
 * Ethernet address in userspace, which rnic's kernel does itself when it
 * makes the AH.
 */
#include "stub.h"

/* IBVERBS_1.1 */
STUB_ERRNO(ibv_resolve_eth_l2_from_gid, EOPNOTSUPP)

/* IBVERBS_1.10: nothing is ever imported, so unimport has nothing to do */
STUB_NULL(ibv_import_device, EOPNOTSUPP)
STUB_NULL(ibv_import_pd, EOPNOTSUPP)
STUB_NULL(ibv_import_mr, EOPNOTSUPP)
STUB_VOID(ibv_unimport_pd)
STUB_VOID(ibv_unimport_mr)
STUB_ERRNO(ibv_query_ece, EOPNOTSUPP)
STUB_ERRNO(ibv_set_ece, EOPNOTSUPP)

/* IBVERBS_1.12, 1.13 */
STUB_NULL(ibv_reg_dmabuf_mr, EOPNOTSUPP)
STUB_NULL(ibv_import_dm, EOPNOTSUPP)
STUB_VOID(ibv_unimport_dm)

/* IBVERBS_1.15 to 1.17 */
STUB_NULL(ibv_alloc_dmah, EOPNOTSUPP)
STUB_ERRNO(ibv_dealloc_dmah, EOPNOTSUPP)
STUB_NULL(ibv_reg_mr_ex, EOPNOTSUPP)
STUB_MINUS1(ibv_dm_export_dmabuf_fd, EOPNOTSUPP)
STUB_ERRNO(ibv_query_port_speed, EOPNOTSUPP)
STUB_NULL(ibv_alloc_buf, EOPNOTSUPP)
STUB_VOID(ibv_free_buf)
STUB_NULL(ibv_reg_buf_mr, EOPNOTSUPP)

/* IBVERBS_1.18: completion counters */
STUB_ERRNO(_ibv_query_comp_cntr_caps, EOPNOTSUPP)
STUB_NULL(ibv_create_comp_cntr, EOPNOTSUPP)
STUB_ERRNO(ibv_destroy_comp_cntr, EOPNOTSUPP)
STUB_ERRNO(ibv_qp_attach_comp_cntr, EOPNOTSUPP)
STUB_ERRNO(ibv_inc_comp_cntr, EOPNOTSUPP)
STUB_ERRNO(ibv_inc_err_comp_cntr, EOPNOTSUPP)
STUB_ERRNO(ibv_set_comp_cntr, EOPNOTSUPP)
STUB_ERRNO(ibv_set_err_comp_cntr, EOPNOTSUPP)
STUB_ERRNO(ibv_read_comp_cntr, EOPNOTSUPP)
STUB_ERRNO(ibv_read_err_comp_cntr, EOPNOTSUPP)
STUB_MINUS1(ibv_export_buf_dmabuf_fd, EOPNOTSUPP)
