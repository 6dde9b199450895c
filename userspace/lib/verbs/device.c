// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: device discovery (ibv_get_device_list() and friends).
 *
 * A device is a directory in rnic's own sysfs class, /sys/class/rnic/NAME,
 * with the attributes described in <rdma/rnic-abi.h>. Every attribute is
 * checked against that contract; a device that does not follow it (another
 * ABI version, a malformed attribute, one that vanished while we read it)
 * is skipped rather than half-described, and RNIC_DEBUG says why. So is a
 * device of another network namespace (net_ns), which could not be opened:
 * sysfs shows every namespace's devices, the list only the caller's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "internal.h"

void rnic_debug(const char *fmt, ...)
{
	va_list ap;

	if (!secure_getenv(RNIC_ENV_DEBUG))
		return;
	va_start(ap, fmt);
	fputs("librnic: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

const char *rnic_env_dir(const char *env, const char *def)
{
	const char *dir = secure_getenv(env);

	return dir && *dir ? dir : def;
}

void rnic_device_get(struct rnic_device *rdev)
{
	__atomic_add_fetch(&rdev->refcnt, 1, __ATOMIC_RELAXED);
}

void rnic_device_put(struct rnic_device *rdev)
{
	if (__atomic_sub_fetch(&rdev->refcnt, 1, __ATOMIC_ACQ_REL))
		return;
	free(rdev->node_path);
	free(rdev);
}

/*
 * Read the sysfs attribute NAME/ATTR below @dirfd into @buf, without the
 * trailing newline. A value that does not fit in @size - 1 bytes is an
 * error (EOVERFLOW): the contract has no attribute that long.
 * Returns 0 or -1 with errno set.
 */
static int read_attr(int dirfd, const char *name, const char *attr,
		     char *buf, size_t size)
{
	char path[2 * IBV_SYSFS_NAME_MAX];
	ssize_t len;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", name, attr) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len < 0)
		return -1;
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	else if ((size_t)len == size) {
		errno = EOVERFLOW;
		return -1;
	}
	buf[len] = '\0';
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Parse a GUID as the kernel prints it, exactly "xxxx:xxxx:xxxx:xxxx",
 * into network byte order. Returns 0 or -1 (malformed).
 */
static int parse_guid(const char *s, __be64 *guid)
{
	uint64_t val = 0;
	int i;

	if (strlen(s) != 19)
		return -1;
	for (i = 0; i < 19; i++) {
		int d = hexval(s[i]);

		if (i % 5 == 4) {
			if (s[i] != ':')
				return -1;
			continue;
		}
		if (d < 0)
			return -1;
		val = val << 4 | (uint64_t)d;
	}
	*guid = htobe64(val);
	return 0;
}

/* Parse a decimal number with nothing else around it. */
static int parse_uint(const char *s, unsigned long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*val = strtoul(s, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

/* Parse "major:minor" as the kernel prints a dev_t. */
static int parse_devt(const char *s, dev_t *devt)
{
	unsigned long major, minor;
	char buf[32];
	char *colon;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	if (parse_uint(buf, &major) || parse_uint(colon + 1, &minor))
		return -1;
	*devt = makedev(major, minor);
	return 0;
}

/* The node name comes from the kernel but ends up in a path: keep it tame. */
static int valid_node_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/*
 * The network namespace of the calling thread (its inode number), which
 * is the one open() of a device checks. Returns 0, or -1 if it cannot be
 * told (no /proc): then every device is listed, as before namespaces.
 */
static int own_net_ns(unsigned long *inum)
{
	struct stat st;

	if (stat("/proc/thread-self/ns/net", &st)) {
		rnic_debug("/proc/thread-self/ns/net: %s; listing devices of every network namespace",
			   strerror(errno));
		return -1;
	}
	*inum = st.st_ino;
	return 0;
}

/*
 * Whether device NAME belongs to the network namespace @net_ns (NULL:
 * any); only there can it be opened. Returns 0 (yes), -ENOMEM, or
 * -EPROTO (another namespace, or a malformed net_ns) with a debug line.
 */
static int check_net_ns(int dirfd, const char *name,
			const unsigned long *net_ns)
{
	unsigned long inum;
	char buf[32];

	if (!net_ns)
		return 0;
	if (read_attr(dirfd, name, "net_ns", buf, sizeof(buf))) {
		if (errno == ENOMEM)
			return -ENOMEM;
		/*
		 * A module older than the attribute: list the device, as
		 * librnic did then; open() still refuses a foreign one.
		 */
		if (errno == ENOENT)
			return 0;
		rnic_debug("skipping %s: net_ns: %s", name, strerror(errno));
		return -EPROTO;
	}
	if (parse_uint(buf, &inum)) {
		rnic_debug("skipping %s: malformed net_ns", name);
		return -EPROTO;
	}
	if (inum != *net_ns) {
		rnic_debug("skipping %s: in network namespace %lu, we are in %lu",
			   name, inum, *net_ns);
		return -EPROTO;
	}
	return 0;
}

/*
 * Build the device NAME of the class directory @dirfd (at @sysfs_dir), if
 * it belongs to the network namespace @net_ns (NULL: any).
 * Returns 0 and the device with one reference in *@out, -ENOMEM (fatal for
 * the whole list), or -EPROTO: the device does not follow the contract (or
 * vanished meanwhile), or is of another namespace, and is skipped.
 */
static int probe_device(int dirfd, const char *sysfs_dir, const char *dev_dir,
			const char *name, const unsigned long *net_ns,
			struct rnic_device **out)
{
	char abi[16], uverbs[IBV_SYSFS_NAME_MAX], guid[32], devt[32];
	const struct {
		const char *attr;
		char *buf;
		size_t size;
	} attrs[] = {
		{ "uverbs", uverbs, sizeof(uverbs) },
		{ "node_guid", guid, sizeof(guid) },
		{ "dev", devt, sizeof(devt) },
	};
	struct rnic_device *rdev;
	unsigned long abi_version;
	const char *why;
	size_t i;
	int err;

	if (strlen(name) >= IBV_SYSFS_NAME_MAX) {
		rnic_debug("skipping %s: name too long", name);
		return -EPROTO;
	}
	/* The ABI version first: another ABI may have other attributes. */
	if (read_attr(dirfd, name, "abi_version", abi, sizeof(abi))) {
		err = errno;
		rnic_debug("skipping %s: abi_version: %s", name, strerror(err));
		return err == ENOMEM ? -ENOMEM : -EPROTO;
	}
	if (parse_uint(abi, &abi_version) ||
	    abi_version != RNIC_ABI_VERSION) {
		rnic_debug("skipping %s: abi_version is '%s', librnic speaks %d",
			   name, abi, RNIC_ABI_VERSION);
		return -EPROTO;
	}
	err = check_net_ns(dirfd, name, net_ns);
	if (err)
		return err;
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		if (read_attr(dirfd, name, attrs[i].attr, attrs[i].buf,
			      attrs[i].size)) {
			err = errno;
			rnic_debug("skipping %s: %s: %s", name, attrs[i].attr,
				   strerror(err));
			return err == ENOMEM ? -ENOMEM : -EPROTO;
		}
	}

	rdev = calloc(1, sizeof(*rdev));
	if (!rdev)
		return -ENOMEM;
	if (!valid_node_name(uverbs)) {
		why = "malformed uverbs";
		goto skip;
	}
	if (parse_guid(guid, &rdev->node_guid)) {
		why = "malformed node_guid";
		goto skip;
	}
	if (parse_devt(devt, &rdev->devt)) {
		why = "malformed dev";
		goto skip;
	}
	if ((size_t)snprintf(rdev->ibdev.dev_path, IBV_SYSFS_PATH_MAX, "%s/%s",
			     sysfs_dir, name) >= IBV_SYSFS_PATH_MAX) {
		why = "sysfs path too long";
		goto skip;
	}
	if (asprintf(&rdev->node_path, "%s/%s", dev_dir, uverbs) < 0) {
		free(rdev);
		return -ENOMEM;
	}
	rdev->ibdev.node_type = IBV_NODE_CA;
	rdev->ibdev.transport_type = IBV_TRANSPORT_IB;
	strcpy(rdev->ibdev.name, name);
	strcpy(rdev->ibdev.dev_name, uverbs);
	strcpy(rdev->ibdev.ibdev_path, rdev->ibdev.dev_path);
	rdev->refcnt = 1;
	*out = rdev;
	return 0;

skip:
	rnic_debug("skipping %s: %s", name, why);
	free(rdev);
	return -EPROTO;
}

static int cmp_device(const void *a, const void *b)
{
	const struct ibv_device *da = *(struct ibv_device *const *)a;
	const struct ibv_device *db = *(struct ibv_device *const *)b;

	/* rnic2 before rnic10 */
	return strverscmp(da->name, db->name);
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	const char *sysfs_dir = rnic_env_dir(RNIC_ENV_SYSFS_DIR,
					     RNIC_SYSFS_DIR_DEFAULT);
	const char *dev_dir = rnic_env_dir(RNIC_ENV_DEV_DIR,
					   RNIC_DEV_DIR_DEFAULT);
	struct ibv_device **list = NULL, **bigger;
	unsigned long own_ns, *net_ns = NULL;
	size_t num = 0, cap = 0;
	struct dirent *de;
	DIR *dir;
	int err;

	if (!own_net_ns(&own_ns))
		net_ns = &own_ns;

	dir = opendir(sysfs_dir);
	if (!dir) {
		if (errno != ENOENT)
			return NULL;
		/* No class directory: the module is not loaded. */
		rnic_debug("%s: %s", sysfs_dir, strerror(errno));
	}

	while (dir) {
		struct rnic_device *rdev;
		int ret;

		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno)
				goto err;
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		ret = probe_device(dirfd(dir), sysfs_dir, dev_dir, de->d_name,
				   net_ns, &rdev);
		if (ret == -ENOMEM) {
			errno = ENOMEM;
			goto err;
		}
		if (ret)
			continue;
		/* Keep room for the device and the terminating NULL. */
		if (num + 2 > cap) {
			cap = cap ? 2 * cap : 8;
			bigger = reallocarray(list, cap, sizeof(*list));
			if (!bigger) {
				rnic_device_put(rdev);
				errno = ENOMEM;
				goto err;
			}
			list = bigger;
		}
		list[num++] = &rdev->ibdev;
	}
	if (dir)
		closedir(dir);

	if (!list) {
		list = calloc(1, sizeof(*list));
		if (!list)
			return NULL;
	}
	list[num] = NULL;
	qsort(list, num, sizeof(*list), cmp_device);
	if (num_devices)
		*num_devices = (int)num;
	return list;

err:
	err = errno;
	while (num)
		rnic_device_put(to_rdev(list[--num]));
	free(list);
	if (dir)
		closedir(dir);
	errno = err;
	return NULL;
}

void ibv_free_device_list(struct ibv_device **list)
{
	struct ibv_device **dev;

	if (!list)
		return;
	for (dev = list; *dev; dev++)
		rnic_device_put(to_rdev(*dev));
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	if (!device) {
		errno = EINVAL;
		return NULL;
	}
	return device->name;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	if (!device) {
		errno = EINVAL;
		return 0;
	}
	return to_rdev(device)->node_guid;
}

/*
 * rnic devices are not ib_core devices: they have no index in ib_core's
 * device table (what rdma-core answers with), so there is none to give.
 */
int ibv_get_device_index(struct ibv_device *device)
{
	(void)device;
	return -1;
}
