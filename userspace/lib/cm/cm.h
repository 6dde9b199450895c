/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * librnic's connection manager (lib/cm/): private types and helpers.
 *
 * The kernel (rnic.ko, /dev/infiniband/rnic_cm) runs the IB CM protocol;
 * this part of the library does what rdma-core's librdmacm does on top of
 * the kernel's ucma: it keeps the struct rdma_cm_id of each kernel id,
 * opens the verbs device an id is bound to, and moves the id's QP through
 * its states with the attributes the kernel computes.
 *
 * Only the public verbs API is used here (never lib/internal.h), so that
 * the same objects also make the compat librdmacm.so.1, which takes its
 * verbs from the compat libibverbs.so.1 (rnic-run).
 *
 * Locking: cm_lock (cm.c) protects the id table and the device list; each
 * id's @lock protects its event counters, and @cond is signalled when
 * @events_completed grows. cm_lock is never taken while holding an id's.
 */
#ifndef RNIC_LIB_CM_H
#define RNIC_LIB_CM_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rnic-cm-abi.h>

/*
 * The environment variable that moves the directory of the char device
 * (the same one librnic's verbs read), for tests.
 */
#define CM_ENV_DEV_DIR "RNIC_DEV_DIR"
#define CM_DEV_DIR_DEFAULT "/dev/infiniband"
#define CM_DEV_NAME "rnic_cm"

/* Default timeout of rdma_create_ep()'s resolutions, as rdma-core's. */
#define CM_EP_TIMEOUT_MS 2000

/**
 * struct cm_device - an rnic device the library opened for its ids
 * @verbs: the context, opened on first use and kept for the process
 * @pd: the PD of QPs created without one, allocated on first use
 * @next: the list (cm_devices)
 */
struct cm_device {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct cm_device *next;
};

/**
 * struct cm_mc - a multicast group an id joined
 * @addr: the group's address
 * @context: the application's pointer (the join event's private_data)
 * @mgid: the group's GID, from the join event
 * @attached: the id's QP is attached to @mgid
 * @sendonly: joined as a send-only member (the QP is not attached)
 * @next: the id's list
 */
struct cm_mc {
	struct sockaddr_storage addr;
	void *context;
	union ibv_gid mgid;
	bool attached;
	bool sendonly;
	struct cm_mc *next;
};

/**
 * struct cm_id - the library's side of a struct rdma_cm_id
 * @id: what the application sees
 * @handle: the kernel's handle, valid on @id.channel's file
 * @fd: that file (the table's key with @handle)
 * @sync: @id.channel is the id's private one: each call waits for its
 *	event (rdma_create_id() with a NULL channel, rdma_create_ep())
 * @dev: the device the id is bound to, or NULL
 * @path: @id.route.path_rec points here once the route is resolved
 * @lock: protects @events_completed
 * @cond: signalled when @events_completed grows
 * @events_completed: events of this id the application acknowledged
 * @own_cqs: the CQs and completion channels in @id are the library's
 * @qp_init_attr: rdma_create_ep() on a passive id: what the QPs of
 *	rdma_get_request()'s ids are made with (malloc()ed), else NULL
 * @mcs: the groups the id joined (protected by @lock)
 * @next: hash chain of the id table
 */
struct cm_id {
	struct rdma_cm_id id;
	uint32_t handle;
	int fd;
	bool sync;
	struct cm_device *dev;
	struct ibv_sa_path_rec path;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t events_completed;
	bool own_cqs;
	struct ibv_qp_init_attr *qp_init_attr;
	struct cm_mc *mcs;
	struct cm_id *next;
};

static inline struct cm_id *to_cm_id(struct rdma_cm_id *id)
{
	return (struct cm_id *)((char *)id - __builtin_offsetof(struct cm_id,
								 id));
}

/* An API argument as the library's id: NULL (errno EINVAL) if NULL. */
static inline struct cm_id *cm_id_arg(struct rdma_cm_id *id)
{
	if (!id) {
		errno = EINVAL;
		return NULL;
	}
	return to_cm_id(id);
}

/*
 * Starts the struct of a command on an id: zeroed (reserved fields must
 * be), its size, the id's handle.
 */
#define CM_CMD_INIT(cmd, cid)                  \
	do {                                   \
		memset(&(cmd), 0, sizeof(cmd)); \
		(cmd).size = sizeof(cmd);      \
		(cmd).id = (cid)->handle;      \
	} while (0)

/**
 * struct cm_event - the library's side of a struct rdma_cm_event
 * @ev: what the application sees
 * @private_data: what @ev.param points at
 */
struct cm_event {
	struct rdma_cm_event ev;
	uint8_t private_data[RNIC_CM_PRIVATE_DATA_MAX];
};

void cm_ud_from_kern(struct cm_event *evt, const struct rnic_cm_get_event *k);

/* cm.c: the char device, the id table, events */
int cm_ioctl(int fd, unsigned long cmd, void *arg);
struct cm_id *cm_id_new(struct rdma_event_channel *channel, void *context,
			enum rdma_port_space ps, enum ibv_qp_type qp_type);
void cm_id_free(struct cm_id *cid);
void cm_table_add(struct cm_id *cid);
void cm_table_del(struct cm_id *cid);
struct cm_id *cm_table_find(int fd, uint32_t handle);
void cm_complete_events(struct cm_id *cid, uint32_t count);
void cm_wait_events(struct cm_id *cid, uint32_t reported);
int cm_sync_wait(struct cm_id *cid, enum rdma_cm_event_type expected);
void cm_drop_sync_event(struct cm_id *cid);

/* id.c */
int cm_query(struct cm_id *cid);
int cm_migrate(struct cm_id *cid, struct rdma_event_channel *channel,
	       bool wait);

/* mc.c */
void cm_mc_event(struct cm_id *cid, struct cm_event *evt,
		 const struct rnic_cm_get_event *k);
void cm_mc_free_all(struct cm_id *cid);

/* conn.c */
int cm_modify_qp(struct cm_id *cid, enum ibv_qp_state state);
int cm_qp_to_err(struct cm_id *cid);
int cm_finish_connect(struct cm_id *cid);

/* qp.c */
struct cm_device *cm_device_get(const char *name);
struct ibv_pd *cm_device_pd(struct cm_device *dev);

/* conversions between the kernel's structs and the API's */
void cm_qp_attr_from_kern(struct ibv_qp_attr *attr,
			  const struct rnic_qp_attr *k);
void cm_ah_attr_from_kern(struct ibv_ah_attr *ah,
			  const struct rnic_ah_attr *k);
socklen_t cm_addr_len(const struct sockaddr *addr);

#endif /* RNIC_LIB_CM_H */
