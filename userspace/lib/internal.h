/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * librnic private types and helpers; never installed.
 */
#ifndef RNIC_LIB_INTERNAL_H
#define RNIC_LIB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>
#include <rdma/rnic-abi.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Environment variables, read on every call that uses them. */
#define RNIC_ENV_SYSFS_DIR "RNIC_SYSFS_DIR" /* default /sys/class/rnic */
#define RNIC_ENV_DEV_DIR "RNIC_DEV_DIR"	    /* default /dev/infiniband */
#define RNIC_ENV_DEBUG "RNIC_DEBUG"	    /* set: say why a device is skipped */

#define RNIC_SYSFS_DIR_DEFAULT "/sys/class/rnic"
#define RNIC_DEV_DIR_DEFAULT "/dev/infiniband"

/**
 * struct rnic_device - librnic's side of a struct ibv_device
 * @ibdev: what the application sees
 * @node_guid: node GUID, network byte order
 * @devt: device number of the char device, from the sysfs ``dev`` file
 * @node_path: path of the char device node, malloc()ed
 * @refcnt: one reference for the list that created the device and one per
 *          open context; the last rnic_device_put() frees the device.
 *          Atomic, so lists and contexts may be released from any thread.
 */
struct rnic_device {
	struct ibv_device ibdev;
	__be64 node_guid;
	dev_t devt;
	char *node_path;
	unsigned int refcnt;
};

static inline struct rnic_device *to_rdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct rnic_device, ibdev);
}

void rnic_device_get(struct rnic_device *rdev);
void rnic_device_put(struct rnic_device *rdev);

/**
 * struct rnic_context - librnic's side of a struct ibv_context
 * @ibctx: what the application sees
 * @rdev: the device, referenced for the context's lifetime
 *
 * Later issues add the object tables and mapped rings here.
 */
struct rnic_context {
	struct ibv_context ibctx;
	struct rnic_device *rdev;
};

static inline struct rnic_context *to_rctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct rnic_context, ibctx);
}

/**
 * rnic_cmd() - issue an rnic ioctl on a context
 * @context: the context
 * @cmd: RNIC_IOCTL_*
 * @arg: its struct, size field set
 *
 * Return: 0 or the errno value of the failure (errno is set too).
 */
int rnic_cmd(struct ibv_context *context, unsigned long cmd, void *arg);

/**
 * rnic_destroy_obj() - destroy a kernel object with a struct rnic_destroy
 * @context: the context owning it
 * @cmd: RNIC_IOCTL_DEALLOC_PD, RNIC_IOCTL_DEREG_MR, ...
 * @handle: the object's handle
 *
 * Return: 0 or the errno value of the failure.
 */
int rnic_destroy_obj(struct ibv_context *context, unsigned long cmd,
		     uint32_t handle);

/* rnic_debug() - print to stderr when RNIC_DEBUG is set in the environment. */
void rnic_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* rnic_env_dir() - directory from @env, or @def if unset or empty. */
const char *rnic_env_dir(const char *env, const char *def);

#endif /* RNIC_LIB_INTERNAL_H */
