/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the rnic kselftests.
 *
 * Naming follows the iommufd selftests: _do_x() returns 0 or -errno,
 * do_x() asserts success, do_err_x(errno, ...) asserts that exact errno.
 * They are macros so that a failure is reported at the caller's line.
 */
#ifndef RNIC_TEST_H
#define RNIC_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

static inline int _rnic_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

#define do_ioctl(fd, cmd, arg) ASSERT_EQ(0, _rnic_ioctl(fd, cmd, arg))
#define do_err_ioctl(err, fd, cmd, arg) \
	ASSERT_EQ(-(err), _rnic_ioctl(fd, cmd, arg))

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

#endif /* RNIC_TEST_H */
