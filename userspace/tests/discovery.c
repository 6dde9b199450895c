// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * Device discovery against a fake sysfs tree (RNIC_SYSFS_DIR, RNIC_DEV_DIR).
 *
 * Policy checked here: a device whose sysfs attributes do not follow the
 * contract of <rdma/rnic-abi.h> (other ABI version, missing or malformed
 * attribute) is skipped, never listed half-described; RNIC_DEBUG says why.
 * So is a device of another network namespace (net_ns).
 */
#include "fake-sysfs.h"

#include <endian.h>
#include <fcntl.h>

#include <infiniband/verbs.h>

#include "tap.h"

static struct fake fk;

/* List the devices; returns the number, -1 if the list failed. */
static int count_devices(void)
{
	struct ibv_device **list;
	int num = -1;

	list = ibv_get_device_list(&num);
	if (!list)
		return -1;
	ibv_free_device_list(list);
	return num;
}

/* The one device the list holds must be named @name. */
static void expect_only(const char *name, const char *what)
{
	struct ibv_device **list;
	int num = -1;

	list = ibv_get_device_list(&num);
	if (!ok(list && num == 1 && list[0] && !list[1] &&
		!strcmp(list[0]->name, name), "%s: only %s listed", what, name))
		diag("  list %p num %d first %s", (void *)list, num,
		     list && list[0] ? list[0]->name : "(none)");
	ibv_free_device_list(list);
}

static void test_no_class_dir(void)
{
	struct ibv_device **list;
	int num = -1;

	list = ibv_get_device_list(&num);
	ok(list != NULL, "missing class dir: list is not NULL");
	is_int(num, 0, "missing class dir: no device");
	ok(list && list[0] == NULL, "missing class dir: list is terminated");
	ibv_free_device_list(list);

	list = ibv_get_device_list(NULL);
	ok(list && !list[0], "ibv_get_device_list(NULL) works");
	ibv_free_device_list(list);
	ibv_free_device_list(NULL);
	ok(1, "ibv_free_device_list(NULL) is harmless");
}

static void test_class_not_dir(void)
{
	struct ibv_device **list;

	fake_write(fk.class_dir, "not a directory\n");
	errno = 0;
	list = ibv_get_device_list(NULL);
	ok(list == NULL, "class path is a file: list fails");
	is_int(errno, ENOTDIR, "class path is a file: ENOTDIR");
	ibv_free_device_list(list);
	unlink(fk.class_dir);
}

static void test_empty(void)
{
	fake_mkdir(fk.class_dir);
	is_int(count_devices(), 0, "empty class dir: no device");
	fake_clear(&fk);
}

static void test_two_devices(void)
{
	struct ibv_device **list;
	char path[400];
	uint8_t raw[8];
	__be64 guid;
	int num = -1;

	/* Created in reverse order: the list is sorted by name. */
	fake_add_ok(&fk, "rnic1", "uverbs1025", "0200:00ff:fe00:0002");
	fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");

	list = ibv_get_device_list(&num);
	if (!ok(list != NULL, "two devices: list"))
		return;
	is_int(num, 2, "two devices: num is 2");
	ok(list[0] && list[1] && !list[2], "two devices: terminated after 2");
	is_str(ibv_get_device_name(list[0]), "rnic0", "first is rnic0");
	is_str(ibv_get_device_name(list[1]), "rnic1", "second is rnic1");
	is_str(list[0]->dev_name, "uverbs1024", "rnic0 dev_name");
	is_str(list[1]->dev_name, "uverbs1025", "rnic1 dev_name");
	snprintf(path, sizeof(path), "%s/rnic0", fk.class_dir);
	is_str(list[0]->dev_path, path, "rnic0 dev_path is the sysfs dir");
	is_str(list[0]->ibdev_path, path, "rnic0 ibdev_path is the sysfs dir");
	is_int(list[0]->node_type, IBV_NODE_CA, "node_type is IBV_NODE_CA");
	is_int(list[0]->transport_type, IBV_TRANSPORT_IB,
	       "transport_type is IBV_TRANSPORT_IB");

	/* GUIDs are in network byte order: first byte in memory is 0x02. */
	guid = ibv_get_device_guid(list[0]);
	memcpy(raw, &guid, sizeof(raw));
	ok(raw[0] == 0x02 && raw[1] == 0x00 && raw[2] == 0x00 &&
	   raw[3] == 0xff && raw[4] == 0xfe && raw[5] == 0x00 &&
	   raw[6] == 0x00 && raw[7] == 0x01,
	   "rnic0 GUID bytes in network order");
	is_int(be64toh(guid) == 0x020000fffe000001ULL, 1,
	       "rnic0 GUID value 0x020000fffe000001");
	is_int(be64toh(ibv_get_device_guid(list[1])) == 0x020000fffe000002ULL,
	       1, "rnic1 GUID value 0x020000fffe000002");
	ibv_free_device_list(list);
	fake_clear(&fk);
}

static void test_sort_and_hidden(void)
{
	struct ibv_device **list;
	int num = -1;

	fake_add_ok(&fk, "rnic10", "uverbs1034", "0000:0000:0000:000a");
	fake_add_ok(&fk, "rnic2", "uverbs1026", "0000:0000:0000:0002");
	fake_add_ok(&fk, ".hidden", "uverbs1027", "0000:0000:0000:0003");
	list = ibv_get_device_list(&num);
	is_int(num, 2, "dot entries are ignored");
	ok(list && num == 2 && !strcmp(list[0]->name, "rnic2") &&
	   !strcmp(list[1]->name, "rnic10"), "rnic2 sorts before rnic10");
	ibv_free_device_list(list);
	fake_clear(&fk);
}

static void test_uppercase_guid(void)
{
	struct ibv_device **list;

	fake_add_ok(&fk, "rnic0", "uverbs1024", "ABCD:EF01:2345:6789");
	list = ibv_get_device_list(NULL);
	ok(list && list[0] &&
	   be64toh(ibv_get_device_guid(list[0])) == 0xabcdef0123456789ULL,
	   "upper case hex GUID parses");
	ibv_free_device_list(list);
	fake_clear(&fk);
}

static void test_abi_mismatch(void)
{
	static const char *const bad_abi[] = { "2", "0", "", "1x", "01a",
					       " 1", "-1",
					       "99999999999999999999999" };
	size_t i;

	for (i = 0; i < sizeof(bad_abi) / sizeof(bad_abi[0]); i++) {
		fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
		fake_add(&fk, "rnic1", bad_abi[i], "uverbs1025",
			 "0200:00ff:fe00:0002", "231:1025");
		expect_only("rnic0", bad_abi[i]);
		fake_clear(&fk);
	}
	fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
	fake_add(&fk, "rnic1", NULL, "uverbs1025", "0200:00ff:fe00:0002",
		 "231:1025");
	expect_only("rnic0", "missing abi_version");
	fake_clear(&fk);
}

static void test_malformed(void)
{
	static const char *const bad_guid[] = {
		"", "0200:00ff:fe00", "0200:00ff:fe00:00011",
		"0200:00ff:fe00:001", "0200-00ff-fe00-0001",
		"zzzz:00ff:fe00:0001", "0200:00ff:fe00:0001:",
		"020000fffe000001", " 200:00ff:fe00:0001",
	};
	static const char *const bad_uverbs[] = {
		"", ".", "..", "../uverbs1024", "a/b",
		/* 64 characters: one more than ibv_device.dev_name holds */
		"uverbs-012345678901234567890123456789012345678901234567890123456",
	};
	static const char *const bad_dev[] = { "", "231", "231:", ":1",
					       "a:b", "231:1:2", "231 1" };
	size_t i;

	for (i = 0; i < sizeof(bad_guid) / sizeof(bad_guid[0]); i++) {
		fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
		fake_add_ok(&fk, "rnic1", "uverbs1025", bad_guid[i]);
		expect_only("rnic0", bad_guid[i]);
		fake_clear(&fk);
	}
	for (i = 0; i < sizeof(bad_uverbs) / sizeof(bad_uverbs[0]); i++) {
		fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
		fake_add_ok(&fk, "rnic1", bad_uverbs[i], "0200:00ff:fe00:0002");
		expect_only("rnic0", bad_uverbs[i]);
		fake_clear(&fk);
	}
	for (i = 0; i < sizeof(bad_dev) / sizeof(bad_dev[0]); i++) {
		fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
		fake_add(&fk, "rnic1", "1", "uverbs1025", "0200:00ff:fe00:0002",
			 bad_dev[i]);
		expect_only("rnic0", bad_dev[i]);
		fake_clear(&fk);
	}

	fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
	fake_add(&fk, "rnic1", "1", NULL, "0200:00ff:fe00:0002", "231:1025");
	expect_only("rnic0", "missing uverbs");
	fake_clear(&fk);
	fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
	fake_add(&fk, "rnic1", "1", "uverbs1025", NULL, "231:1025");
	expect_only("rnic0", "missing node_guid");
	fake_clear(&fk);
	fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
	fake_add(&fk, "rnic1", "1", "uverbs1025", "0200:00ff:fe00:0002", NULL);
	expect_only("rnic0", "missing dev");
	fake_clear(&fk);

	/* 63 characters still fit ibv_device.dev_name. */
	fake_add_ok(&fk, "rnic0", "uverbs-01234567890123456789012345678901234567890123456789012345",
		    "0200:00ff:fe00:0001");
	expect_only("rnic0", "63-character uverbs");
	fake_clear(&fk);

	/* A name that does not fit struct ibv_device. */
	fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
	fake_add_ok(&fk,
		    "rnic-with-a-name-of-sixty-four-characters-which-is-too-long-0000",
		    "uverbs1025", "0200:00ff:fe00:0002");
	expect_only("rnic0", "64-character name");
	fake_clear(&fk);
}

/* Run a device list with stderr going to a file; return what was printed. */
static char *list_stderr(char *buf, size_t size)
{
	char path[400];
	ssize_t len;
	int fd, saved;

	snprintf(path, sizeof(path), "%s/stderr", fk.root);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		fake_die("cannot create", path);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	count_devices();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	len = pread(fd, buf, size - 1, 0);
	close(fd);
	unlink(path);
	buf[len > 0 ? len : 0] = '\0';
	return buf;
}

static void test_debug(void)
{
	char out[1024];

	fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
	fake_add(&fk, "rnic7", "2", "uverbs1031", "0200:00ff:fe00:0007",
		 "231:1031");
	fake_add_ok(&fk, "rnic8", "uverbs1032", "bad");

	unsetenv("RNIC_DEBUG");
	list_stderr(out, sizeof(out));
	is_str(out, "", "without RNIC_DEBUG nothing is printed");

	setenv("RNIC_DEBUG", "1", 1);
	list_stderr(out, sizeof(out));
	ok(strstr(out, "rnic7") && strstr(out, "abi_version"),
	   "RNIC_DEBUG says rnic7 has another abi_version");
	ok(strstr(out, "rnic8") && strstr(out, "node_guid"),
	   "RNIC_DEBUG says rnic8 has a bad node_guid");
	ok(!strstr(out, "rnic0"), "RNIC_DEBUG is silent about good rnic0");
	unsetenv("RNIC_DEBUG");
	fake_clear(&fk);
}

/* Give device @name the attribute net_ns = @inum. */
static void fake_net_ns(const char *name, unsigned long inum)
{
	char path[1024], text[32];

	snprintf(path, sizeof(path), "%s/%s/net_ns", fk.class_dir, name);
	snprintf(text, sizeof(text), "%lu\n", inum);
	fake_write(path, text);
}

/*
 * Only devices of our network namespace are listed (those of others
 * cannot be opened); one without net_ns (an older module) is.
 */
static void test_net_ns(void)
{
	char out[1024], path[1024];
	unsigned long own;
	struct stat st;

	if (stat("/proc/thread-self/ns/net", &st))
		fake_die("cannot stat", "/proc/thread-self/ns/net");
	own = st.st_ino;
	fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
	fake_net_ns("rnic0", own);
	fake_add_ok(&fk, "rnic1", "uverbs1025", "0200:00ff:fe00:0002");
	fake_net_ns("rnic1", own + 1);
	expect_only("rnic0", "device of another namespace");

	setenv("RNIC_DEBUG", "1", 1);
	list_stderr(out, sizeof(out));
	ok(strstr(out, "rnic1") && strstr(out, "network namespace"),
	   "RNIC_DEBUG says rnic1 is of another network namespace");
	ok(!strstr(out, "rnic0"), "RNIC_DEBUG is silent about rnic0");
	unsetenv("RNIC_DEBUG");

	snprintf(path, sizeof(path), "%s/rnic0/net_ns", fk.class_dir);
	if (unlink(path))
		fake_die("cannot remove", path);
	expect_only("rnic0", "device without net_ns");

	fake_write(path, "12x\n");
	is_int(count_devices(), 0, "device with a malformed net_ns skipped");
	fake_clear(&fk);
}

static void test_names_null(void)
{
	errno = 0;
	ok(ibv_get_device_name(NULL) == NULL && errno == EINVAL,
	   "ibv_get_device_name(NULL): NULL, EINVAL");
	errno = 0;
	ok(ibv_get_device_guid(NULL) == 0 && errno == EINVAL,
	   "ibv_get_device_guid(NULL): 0, EINVAL");
}

static void test_open_errors(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	char path[400];

	errno = 0;
	ok(ibv_open_device(NULL) == NULL && errno == EINVAL,
	   "ibv_open_device(NULL): NULL, EINVAL");

	fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
	list = ibv_get_device_list(NULL);
	if (!ok(list && list[0], "device to open"))
		goto out;

	errno = 0;
	ctx = ibv_open_device(list[0]);
	ok(ctx == NULL, "open without a device node fails");
	is_int(errno, ENOENT, "open without a device node: ENOENT");

	/* A node that is not the char device sysfs names. */
	snprintf(path, sizeof(path), "%s/uverbs1024", fk.dev_dir);
	fake_write(path, "");
	errno = 0;
	ctx = ibv_open_device(list[0]);
	ok(ctx == NULL, "open of a regular file fails");
	is_int(errno, ENODEV, "open of a regular file: ENODEV");
	unlink(path);

	if (symlink("/dev/null", path))
		fake_die("cannot symlink", path);
	errno = 0;
	ctx = ibv_open_device(list[0]);
	ok(ctx == NULL, "open of another char device fails");
	is_int(errno, ENODEV, "open of another char device: ENODEV");
	unlink(path);
	if (ctx)
		ibv_close_device(ctx);

	errno = 0;
	ok(ibv_close_device(NULL) == -1 && errno == EINVAL,
	   "ibv_close_device(NULL): -1, EINVAL");
out:
	ibv_free_device_list(list);
	fake_clear(&fk);
}

static void test_repeat(void)
{
	int i, bad = 0;

	fake_add_ok(&fk, "rnic0", "uverbs1024", "0200:00ff:fe00:0001");
	fake_add_ok(&fk, "rnic1", "uverbs1025", "0200:00ff:fe00:0002");
	for (i = 0; i < 50; i++)
		if (count_devices() != 2)
			bad++;
	is_int(bad, 0, "50 list/free rounds each see 2 devices");
	fake_clear(&fk);
}

int main(void)
{
	unsetenv("RNIC_DEBUG");
	fake_init(&fk);

	test_no_class_dir();
	test_class_not_dir();
	test_empty();
	test_two_devices();
	test_sort_and_hidden();
	test_uppercase_guid();
	test_abi_mismatch();
	test_malformed();
	test_debug();
	test_net_ns();
	test_names_null();
	test_open_errors();
	test_repeat();

	fake_fini(&fk);
	return tap_done();
}
