/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the rnic kselftests.
 *
 * Naming follows the iommufd selftests: _x() returns 0 or -errno,
 * do_x() asserts success, do_err_x(errno, ...) asserts that exact errno.
 * The do_ forms are macros so that a failure is reported at the caller's
 * line. Functions that take _metadata assert at their own line instead,
 * and must run in the test's main thread.
 */
#ifndef RNIC_TEST_H
#define RNIC_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rnic-abi.h>
#include <rdma/rnic-netlink.h>

#include "kselftest_harness.h"
#include "rnic_genl.h"

#define RNIC_SYSFS "/sys/class/rnic"

/* Read a sysfs attribute of a device, without the trailing newline. */
static inline int rnic_sysfs_read(const char *dev, const char *attr,
				  char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), RNIC_SYSFS "/%s/%s", dev, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static inline bool rnic_sysfs_exists(const char *dev)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), RNIC_SYSFS "/%s", dev);
	return access(path, F_OK) == 0;
}

/* Open the char device of a device: a new verbs context; fd or -errno. */
static inline int rnic_open(const char *dev)
{
	char uverbs[64], path[PATH_MAX];
	int ret, fd;

	ret = rnic_sysfs_read(dev, "uverbs", uverbs, sizeof(uverbs));
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/dev/infiniband/%s", uverbs);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Run a shell command quietly; its exit status. */
static inline int rnic_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ret = system(cmd);
	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

/* After a failure: the caller's namespace's neighbours, addresses and
 * non-zero network counters, as TAP comments.
 */
static inline void rnic_net_log(void)
{
	rnic_sh("{ ip neigh; ip -o addr; nstat -asz | grep -v ' 0 '; } 2>&1 | sed 's/^/# /'");
}

/* Write a formatted line into a file (sysfs, cgroupfs); 0 or -errno. */
static inline int rnic_put_file(const char *path, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

/*
 * do_ptr(call): the value of @call, which returns a pointer, or NULL and
 * sets errno (the verbs' and libc's way); asserts that it is not NULL,
 * naming the call and errno if it is. E.g. pd = do_ptr(ibv_alloc_pd(ctx)).
 */
#define do_ptr(call) ({							\
	__typeof__(call) __ptr = (call);				\
									\
	ASSERT_NE(NULL, __ptr)						\
		TH_LOG("%s: %s", #call, strerror(errno));		\
	__ptr;								\
})

static inline int _rnic_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

#define do_ioctl(fd, cmd, arg) ASSERT_EQ(0, _rnic_ioctl(fd, cmd, arg))
#define do_err_ioctl(err, fd, cmd, arg) \
	ASSERT_EQ(-(err), _rnic_ioctl(fd, cmd, arg))

/*
 * Objects on a raw context (an fd from rnic_open(), no librnic): for the
 * tests that send what librnic never would, and those that must not map
 * rings. _x() returns 0 or -errno, do_x() asserts 0.
 */

/* A PD; its handle in *handle. */
static inline int _alloc_pd(int fd, __u32 *handle)
{
	struct rnic_alloc_pd cmd = { .size = sizeof(cmd) };
	int ret;

	ret = _rnic_ioctl(fd, RNIC_IOCTL_ALLOC_PD, &cmd);
	*handle = cmd.out_handle;
	return ret;
}

#define do_alloc_pd(fd, handle) ASSERT_EQ(0, _alloc_pd(fd, handle))

/*
 * A CQ of @cqe entries; @channel is its completion channel with
 * RNIC_CREATE_CQ_CHANNEL in @flags, else 0. The answer in *cmd.
 */
static inline int _create_cq(int fd, __u32 cqe, __u32 flags, __u32 channel,
			     struct rnic_create_cq *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->flags = flags;
	cmd->user_handle = 0x1234567890abcdefULL;
	cmd->cqe = cqe;
	cmd->channel_handle = channel;
	return _rnic_ioctl(fd, RNIC_IOCTL_CREATE_CQ, cmd);
}

#define do_create_cq(fd, cqe, flags, channel, cmd) \
	ASSERT_EQ(0, _create_cq(fd, cqe, flags, channel, cmd))

/* A PD and a CQ of 4 entries, what a QP needs: handles in *pd and *cq. */
static inline int _pd_and_cq(int fd, __u32 *pd, __u32 *cq)
{
	struct rnic_create_cq cmd;
	int ret;

	ret = _alloc_pd(fd, pd);
	if (ret)
		return ret;
	ret = _create_cq(fd, 4, 0, 0, &cmd);
	*cq = cmd.out_handle;
	return ret;
}

#define do_pd_and_cq(fd, pd, cq) ASSERT_EQ(0, _pd_and_cq(fd, pd, cq))

/*
 * Destroy @handle with @cmd, one of the destroy ioctls that take a bare
 * struct rnic_destroy (PD, MR, AH, channel; not CQ, QP, SRQ).
 */
static inline int _destroy(int fd, unsigned long cmd, __u32 handle)
{
	struct rnic_destroy arg = { .size = sizeof(arg), .handle = handle };

	return _rnic_ioctl(fd, cmd, &arg);
}

#define do_destroy(fd, cmd, handle) ASSERT_EQ(0, _destroy(fd, cmd, handle))

static inline int _destroy_qp(int fd, __u32 handle)
{
	struct rnic_destroy_qp cmd = { .size = sizeof(cmd), .handle = handle };

	return _rnic_ioctl(fd, RNIC_IOCTL_DESTROY_QP, &cmd);
}

#define do_destroy_qp(fd, handle) ASSERT_EQ(0, _destroy_qp(fd, handle))

static inline int _query_port(int fd, __u32 port, struct rnic_query_port *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->port_num = port;
	return _rnic_ioctl(fd, RNIC_IOCTL_QUERY_PORT, out);
}

static inline int _query_gid(int fd, __u32 index, struct rnic_query_gid *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->port_num = 1;
	out->index = index;
	return _rnic_ioctl(fd, RNIC_IOCTL_QUERY_GID, out);
}

#define do_link_add(g, name, netdev) \
	ASSERT_EQ(0, rnic_link_add(g, name, netdev)) \
		TH_LOG("link add %s: %s", name, rnic_genl_errmsg(g))
#define do_err_link_add(err, g, name, netdev) \
	ASSERT_EQ(-(err), rnic_link_add(g, name, netdev))
#define do_link_del(g, name) \
	ASSERT_EQ(0, rnic_link_del(g, name)) \
		TH_LOG("link del %s: %s", name, rnic_genl_errmsg(g))

/* Does the GID table of @info hold @gid (16 bytes)? Its index or -1. */
static inline int rnic_info_gid_index(const struct rnic_link_info *info,
				      const unsigned char *gid)
{
	unsigned int i;

	for (i = 0; i < info->n_gids; i++)
		if (!memcmp(info->gids[i].gid, gid, 16))
			return info->gids[i].index;
	return -1;
}

static inline int rnic_collect_name(const void *dev, void *arg)
{
	const struct rnic_link_info *info = dev;
	char (*names)[RNIC_LINK_NAME_SIZE] = arg;
	int i;

	for (i = 0; i < RNIC_MAX_DEVICES; i++) {
		if (!names[i][0]) {
			strcpy(names[i], info->name);
			return 0;
		}
	}
	return -ENOSPC;
}

/* Remove every rnic device, so that each test starts from none. */
static inline int rnic_del_all(struct rnic_genl *g)
{
	char (*names)[RNIC_LINK_NAME_SIZE];
	int i, ret;

	names = calloc(RNIC_MAX_DEVICES + 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	ret = rnic_link_dump(g, rnic_collect_name, names);
	for (i = 0; !ret && names[i][0]; i++)
		ret = rnic_link_del(g, names[i]);
	free(names);
	return ret;
}

/**
 * rnic_kill_at_random() - kill processes wherever they happen to be
 * @rounds: how many children
 * @max_us: each is killed less than this many microseconds after its fork
 * @churn: what each child does, until it is killed (if it returns, the
 *	child exits)
 * @arg: its argument
 *
 * The children are forked and reaped one at a time, with SIGKILL, so that
 * the kernel has to clean up after a process stopped at any point of
 * @churn. The pauses are rand() % @max_us, seeded with our pid.
 */
static inline void rnic_kill_at_random(struct __test_metadata *_metadata,
				       int rounds, int max_us,
				       void (*churn)(void *arg), void *arg)
{
	int round;

	srand(getpid());
	for (round = 0; round < rounds; round++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0) {
			churn(arg);
			_exit(1);
		}
		usleep(rand() % max_us);
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	}
}

/**
 * rnic_fixture_setup() - what every device test starts with
 * @g: the netlink handle, opened here
 * @res: a zeroed buffer for rnic_res_get(), allocated here; NULL for none
 * @dev: the device added once every rnic device is gone; NULL adds none
 * @netdev: the netdev @dev is bound to; NULL for none
 *
 * Asserts (a failure is reported at the line here, the device named).
 * Undone by rnic_fixture_teardown().
 */
static inline void rnic_fixture_setup(struct __test_metadata *_metadata,
				      struct rnic_genl **g,
				      struct rnic_res_info **res,
				      const char *dev, const char *netdev)
{
	if (res) {
		*res = calloc(1, sizeof(**res));
		ASSERT_NE(NULL, *res);
	}
	*g = rnic_genl_open();
	ASSERT_NE(NULL, *g);
	ASSERT_EQ(0, rnic_del_all(*g));
	if (dev)
		do_link_add(*g, dev, netdev);
}

/* Remove every rnic device, close @g and free @res (either may be NULL). */
static inline void rnic_fixture_teardown(struct __test_metadata *_metadata,
					 struct rnic_genl *g,
					 struct rnic_res_info *res)
{
	if (g) {
		EXPECT_EQ(0, rnic_del_all(g));
		rnic_genl_close(g);
	}
	free(res);
}

/*
 * MR keys (Documentation/architecture.rst): from the top, 7 random bits,
 * the index in the device's MR table (bits 8-24) and the key byte (bits
 * 0-7, random for an MR).
 */
#define KEY_INDEX_SHIFT	8
#define KEY_INDEX_MASK	(0x1ffffu << KEY_INDEX_SHIFT)
#define KEY_INDEX(key)	(((key) & KEY_INDEX_MASK) >> KEY_INDEX_SHIFT)
/* @key's random parts with index @idx (taken modulo the field) */
#define KEY_WITH_INDEX(key, idx)					\
	(((key) & ~KEY_INDEX_MASK) |					\
	 (((uint32_t)(idx) << KEY_INDEX_SHIFT) & KEY_INDEX_MASK))
/* A random bit: flipped, a key names its MR's index but is wrong. */
#define KEY_RANDOM_BIT	(1u << 28)

#endif /* RNIC_TEST_H */
