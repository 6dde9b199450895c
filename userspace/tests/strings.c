// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The ibv_*_str() helpers return rdma-core's strings for every enum value
 * and "unknown" outside the enum.
 */
#include <limits.h>

#include <infiniband/verbs.h>

#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct expect {
	int val;
	const char *str;
};

static const struct expect node_types[] = {
	{ IBV_NODE_CA, "InfiniBand channel adapter" },
	{ IBV_NODE_SWITCH, "InfiniBand switch" },
	{ IBV_NODE_ROUTER, "InfiniBand router" },
	{ IBV_NODE_RNIC, "iWARP NIC" },
	{ IBV_NODE_USNIC, "usNIC" },
	{ IBV_NODE_USNIC_UDP, "usNIC UDP" },
	{ IBV_NODE_UNSPECIFIED, "unspecified" },
	{ IBV_NODE_UNKNOWN, "unknown" },
	{ 0, "unknown" },
	{ 8, "unknown" },
	{ INT_MAX, "unknown" },
	{ INT_MIN, "unknown" },
};

static const struct expect port_states[] = {
	{ IBV_PORT_NOP, "no state change (NOP)" },
	{ IBV_PORT_DOWN, "down" },
	{ IBV_PORT_INIT, "init" },
	{ IBV_PORT_ARMED, "armed" },
	{ IBV_PORT_ACTIVE, "active" },
	{ IBV_PORT_ACTIVE_DEFER, "active defer" },
	{ 6, "unknown" },
	{ -1, "unknown" },
	{ INT_MAX, "unknown" },
};

static const struct expect events[] = {
	{ IBV_EVENT_CQ_ERR, "CQ error" },
	{ IBV_EVENT_QP_FATAL, "local work queue catastrophic error" },
	{ IBV_EVENT_QP_REQ_ERR, "invalid request local work queue error" },
	{ IBV_EVENT_QP_ACCESS_ERR, "local access violation work queue error" },
	{ IBV_EVENT_COMM_EST, "communication established" },
	{ IBV_EVENT_SQ_DRAINED, "send queue drained" },
	{ IBV_EVENT_PATH_MIG, "path migrated" },
	{ IBV_EVENT_PATH_MIG_ERR, "path migration request error" },
	{ IBV_EVENT_DEVICE_FATAL, "local catastrophic error" },
	{ IBV_EVENT_PORT_ACTIVE, "port active" },
	{ IBV_EVENT_PORT_ERR, "port error" },
	{ IBV_EVENT_LID_CHANGE, "LID change" },
	{ IBV_EVENT_PKEY_CHANGE, "P_Key change" },
	{ IBV_EVENT_SM_CHANGE, "SM change" },
	{ IBV_EVENT_SRQ_ERR, "SRQ catastrophic error" },
	{ IBV_EVENT_SRQ_LIMIT_REACHED, "SRQ limit reached" },
	{ IBV_EVENT_QP_LAST_WQE_REACHED, "last WQE reached" },
	{ IBV_EVENT_CLIENT_REREGISTER, "client reregistration" },
	{ IBV_EVENT_GID_CHANGE, "GID table change" },
	{ IBV_EVENT_WQ_FATAL, "WQ fatal" },
	{ IBV_EVENT_WQ_FATAL + 1, "unknown" },
	{ -1, "unknown" },
	{ INT_MIN, "unknown" },
};

static const struct expect wc_statuses[] = {
	{ IBV_WC_SUCCESS, "success" },
	{ IBV_WC_LOC_LEN_ERR, "local length error" },
	{ IBV_WC_LOC_QP_OP_ERR, "local QP operation error" },
	{ IBV_WC_LOC_EEC_OP_ERR, "local EE context operation error" },
	{ IBV_WC_LOC_PROT_ERR, "local protection error" },
	{ IBV_WC_WR_FLUSH_ERR, "Work Request Flushed Error" },
	{ IBV_WC_MW_BIND_ERR, "memory management operation error" },
	{ IBV_WC_BAD_RESP_ERR, "bad response error" },
	{ IBV_WC_LOC_ACCESS_ERR, "local access error" },
	{ IBV_WC_REM_INV_REQ_ERR, "remote invalid request error" },
	{ IBV_WC_REM_ACCESS_ERR, "remote access error" },
	{ IBV_WC_REM_OP_ERR, "remote operation error" },
	{ IBV_WC_RETRY_EXC_ERR, "transport retry counter exceeded" },
	{ IBV_WC_RNR_RETRY_EXC_ERR, "RNR retry counter exceeded" },
	{ IBV_WC_LOC_RDD_VIOL_ERR, "local RDD violation error" },
	{ IBV_WC_REM_INV_RD_REQ_ERR, "remote invalid RD request" },
	{ IBV_WC_REM_ABORT_ERR, "aborted error" },
	{ IBV_WC_INV_EECN_ERR, "invalid EE context number" },
	{ IBV_WC_INV_EEC_STATE_ERR, "invalid EE context state" },
	{ IBV_WC_FATAL_ERR, "fatal error" },
	{ IBV_WC_RESP_TIMEOUT_ERR, "response timeout error" },
	{ IBV_WC_GENERAL_ERR, "general error" },
	{ IBV_WC_TM_ERR, "TM error" },
	{ IBV_WC_TM_RNDV_INCOMPLETE, "TM software rendezvous" },
	{ IBV_WC_TM_RNDV_INCOMPLETE + 1, "unknown" },
	{ -1, "unknown" },
	{ INT_MAX, "unknown" },
};

int main(void)
{
	size_t i;

	/* Values the header must carry, as rdma-core numbers them. */
	is_int(IBV_NODE_CA, 1, "IBV_NODE_CA is 1");
	is_int(IBV_PORT_ACTIVE, 4, "IBV_PORT_ACTIVE is 4");
	is_int(IBV_EVENT_WQ_FATAL, 19, "IBV_EVENT_WQ_FATAL is 19");
	is_int(IBV_WC_TM_RNDV_INCOMPLETE, 23, "IBV_WC_TM_RNDV_INCOMPLETE is 23");
	is_int(IBV_LINK_LAYER_ETHERNET, 2, "IBV_LINK_LAYER_ETHERNET is 2");
	is_int(IBV_MTU_4096, 5, "IBV_MTU_4096 is 5");
	is_int(IBV_PORT_IP_BASED_GIDS, 1 << 26, "IBV_PORT_IP_BASED_GIDS");
	is_int(IBV_PORT_LINK_SPEED_NDR_SUP, 1 << 10,
	       "IBV_PORT_LINK_SPEED_NDR_SUP");
	is_int(IBV_DEVICE_MANAGED_FLOW_STEERING, 1 << 29,
	       "IBV_DEVICE_MANAGED_FLOW_STEERING");
	is_int(IBV_FORK_UNNEEDED, 2, "IBV_FORK_UNNEEDED is 2");

	for (i = 0; i < ARRAY_SIZE(node_types); i++)
		is_str(ibv_node_type_str((enum ibv_node_type)node_types[i].val),
		       node_types[i].str, "ibv_node_type_str(%d)",
		       node_types[i].val);
	for (i = 0; i < ARRAY_SIZE(port_states); i++)
		is_str(ibv_port_state_str((enum ibv_port_state)port_states[i].val),
		       port_states[i].str, "ibv_port_state_str(%d)",
		       port_states[i].val);
	for (i = 0; i < ARRAY_SIZE(events); i++)
		is_str(ibv_event_type_str((enum ibv_event_type)events[i].val),
		       events[i].str, "ibv_event_type_str(%d)", events[i].val);
	for (i = 0; i < ARRAY_SIZE(wc_statuses); i++)
		is_str(ibv_wc_status_str((enum ibv_wc_status)wc_statuses[i].val),
		       wc_statuses[i].str, "ibv_wc_status_str(%d)",
		       wc_statuses[i].val);

	/* Fork: nothing to prepare, before or after ibv_fork_init(). */
	is_int(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED,
	       "fork unneeded before ibv_fork_init");
	is_int(ibv_fork_init(), 0, "ibv_fork_init succeeds");
	is_int(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED,
	       "fork unneeded after ibv_fork_init");

	return tap_done();
}
