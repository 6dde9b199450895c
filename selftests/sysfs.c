// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/class/rnic/NAME/ in the layout of the in-kernel stack's
 * /sys/class/infiniband/NAME/: every file says what the verbs say
 * (ibv_query_device, ibv_query_port, ibv_query_gid_ex, STAT_GET), a GID
 * of an address added to the netdev appears with its type and netdev and
 * goes with the address, a counter file follows its counter, and the
 * files go with the device, under an open file and under readers.
 */
#include <dirent.h>
#include <endian.h>
#include <net/if.h>
#include <sys/mman.h>
#include <time.h>

#include "rnic_verbs_test.h"

#define DEV	"t_sys"
#define DEVU	"t_sysu"
#define NETDEV	"t_sysdummy"
#define ZERO_GID "0000:0000:0000:0000:0000:0000:0000:0000"

FIXTURE(sysfs) {
	struct rnic_genl *g;
	struct ibv_context *ctx;
};

FIXTURE_SETUP(sysfs)
{
	self->ctx = NULL;
	rnic_fixture_setup(_metadata, &self->g, NULL, NULL, NULL);
	/* No IPv6: no link-local address appearing as a GID meanwhile. */
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
	ASSERT_EQ(0, rnic_sh("ip link add " NETDEV " type dummy"));
	ASSERT_EQ(0, rnic_sh("sysctl -qw net.ipv6.conf.%s.disable_ipv6=1",
			     NETDEV));
	do_link_add(self->g, DEV, NETDEV);
	self->ctx = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, self->ctx);
}

FIXTURE_TEARDOWN(sysfs)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	rnic_fixture_teardown(_metadata, self->g, NULL);
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
}

/* Read ports/1/@file of @dev; 0 or -errno, as rnic_sysfs_read(). */
static int port_read(const char *dev, const char *file, char *buf, size_t len)
{
	char attr[128];

	snprintf(attr, sizeof(attr), "ports/1/%s", file);
	return rnic_sysfs_read(dev, attr, buf, len);
}

/* ports/1/@file of @dev reads @want. */
#define ASSERT_PORT_FILE(dev, file, want) do {				\
	const char *_file = (file);					\
	char _buf[128];							\
									\
	ASSERT_EQ(0, port_read(dev, _file, _buf, sizeof(_buf)))		\
		TH_LOG("ports/1/%s", _file);				\
	ASSERT_STREQ(want, _buf) TH_LOG("ports/1/%s", _file);		\
} while (0)

/* Reading ports/1/@file of @dev fails with @err. */
#define ASSERT_PORT_ERR(dev, file, err) do {				\
	const char *_file = (file);					\
	char _buf[128];							\
									\
	ASSERT_EQ(-(err), port_read(dev, _file, _buf, sizeof(_buf)))	\
		TH_LOG("ports/1/%s", _file);				\
} while (0)

/* A GID as the in-kernel stack writes it: eight groups, uncompressed. */
static void gid_str(const unsigned char *raw, char *buf)
{
	int i;

	for (i = 0; i < 16; i += 2)
		buf += sprintf(buf, "%s%02x%02x", i ? ":" : "", raw[i],
			       raw[i + 1]);
}

/* Wait up to 2 s for port 1 to reach @state; the port's attributes. */
static int wait_port_state(struct ibv_context *ctx, enum ibv_port_state state,
			   struct ibv_port_attr *port)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (ibv_query_port(ctx, 1, port))
			return -errno;
		if (port->state == state)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

static const char *state_name(enum ibv_port_state state)
{
	return state == IBV_PORT_ACTIVE ? "ACTIVE" :
	       state == IBV_PORT_DOWN ? "DOWN" : "?";
}

/* state, phys_state, rate and link_layer say what @port says. */
static void check_port_files(struct __test_metadata *_metadata,
			     const struct ibv_port_attr *port)
{
	char want[64];

	snprintf(want, sizeof(want), "%d: %s", port->state,
		 state_name(port->state));
	ASSERT_PORT_FILE(DEV, "state", want);
	snprintf(want, sizeof(want), "%d: %s", port->phys_state,
		 port->phys_state == 5 ? "LinkUp" :
		 port->phys_state == 3 ? "Disabled" : "?");
	ASSERT_PORT_FILE(DEV, "phys_state", want);
	/* IB's codes of 4X (4 lanes) and EDR (25 Gb/s per lane) */
	ASSERT_EQ(2, port->active_width);
	ASSERT_EQ(32, port->active_speed);
	ASSERT_PORT_FILE(DEV, "rate", "100 Gb/sec (4X EDR)");
	ASSERT_EQ(IBV_LINK_LAYER_ETHERNET, port->link_layer);
	ASSERT_PORT_FILE(DEV, "link_layer", "Ethernet");
	/* ib_core's formats of the subnet fields */
	snprintf(want, sizeof(want), "0x%x", port->lid);
	ASSERT_PORT_FILE(DEV, "lid", want);
	snprintf(want, sizeof(want), "0x%x", port->sm_lid);
	ASSERT_PORT_FILE(DEV, "sm_lid", want);
	snprintf(want, sizeof(want), "%u", port->sm_sl);
	ASSERT_PORT_FILE(DEV, "sm_sl", want);
	snprintf(want, sizeof(want), "%u", port->lmc);
	ASSERT_PORT_FILE(DEV, "lid_mask_count", want);
	snprintf(want, sizeof(want), "0x%08x", port->port_cap_flags);
	ASSERT_PORT_FILE(DEV, "cap_mask", want);
}

/* gids/@i, gid_attrs/types/@i and gid_attrs/ndevs/@i of @dev say what
 * ibv_query_gid_ex() says of entry @i; true if the entry is valid.
 */
static bool check_gid_files(struct __test_metadata *_metadata,
			    struct ibv_context *ctx, const char *dev,
			    unsigned int i)
{
	char file[64], want[64], ifname[IF_NAMESIZE];
	struct ibv_gid_entry e;
	int ret;

	ret = ibv_query_gid_ex(ctx, 1, i, &e, 0);
	snprintf(file, sizeof(file), "gids/%u", i);
	if (ret) {
		EXPECT_EQ(ENODATA, ret) TH_LOG("GID %u", i);
		ASSERT_PORT_FILE(dev, file, ZERO_GID);
		snprintf(file, sizeof(file), "gid_attrs/types/%u", i);
		ASSERT_PORT_ERR(dev, file, EINVAL);
		snprintf(file, sizeof(file), "gid_attrs/ndevs/%u", i);
		ASSERT_PORT_ERR(dev, file, EINVAL);
		return false;
	}
	gid_str(e.gid.raw, want);
	ASSERT_PORT_FILE(dev, file, want);
	ASSERT_EQ(IBV_GID_TYPE_ROCE_V2, e.gid_type);
	snprintf(file, sizeof(file), "gid_attrs/types/%u", i);
	ASSERT_PORT_FILE(dev, file, "RoCE v2");
	snprintf(file, sizeof(file), "gid_attrs/ndevs/%u", i);
	if (!e.ndev_ifindex) {
		ASSERT_PORT_ERR(dev, file, EINVAL);
		return true;
	}
	ASSERT_NE(NULL, if_indextoname(e.ndev_ifindex, ifname));
	ASSERT_PORT_FILE(dev, file, ifname);
	return true;
}

TEST_F(sysfs, device_files)
{
	struct ibv_device_attr attr;
	char buf[128], want[64];
	unsigned long long guid;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	ASSERT_EQ(0, rnic_sysfs_read(DEV, "fw_ver", buf, sizeof(buf)));
	EXPECT_STREQ(attr.fw_ver, buf);
	EXPECT_STRNE("", buf);
	guid = be64toh(attr.node_guid);
	snprintf(want, sizeof(want), "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48), (unsigned int)(guid >> 32 & 0xffff),
		 (unsigned int)(guid >> 16 & 0xffff),
		 (unsigned int)(guid & 0xffff));
	ASSERT_EQ(0, rnic_sysfs_read(DEV, "node_guid", buf, sizeof(buf)));
	EXPECT_STREQ(want, buf);
	ASSERT_EQ(IBV_NODE_CA, self->ctx->device->node_type);
	ASSERT_EQ(0, rnic_sysfs_read(DEV, "node_type", buf, sizeof(buf)));
	EXPECT_STREQ("1: CA", buf);
	snprintf(want, sizeof(want), "%04x:%04x:%04x:%04x",
		 (unsigned int)(be64toh(attr.sys_image_guid) >> 48),
		 (unsigned int)(be64toh(attr.sys_image_guid) >> 32 & 0xffff),
		 (unsigned int)(be64toh(attr.sys_image_guid) >> 16 & 0xffff),
		 (unsigned int)(be64toh(attr.sys_image_guid) & 0xffff));
	ASSERT_EQ(0, rnic_sysfs_read(DEV, "sys_image_guid", buf, sizeof(buf)));
	EXPECT_STREQ(want, buf);
	ASSERT_EQ(0, rnic_sysfs_read(DEV, "board_id", buf, sizeof(buf)));
	EXPECT_STREQ("rnic", buf);
	/* Where programs built for rdma-core look for them. */
	EXPECT_STREQ(RNIC_SYSFS "/" DEV, self->ctx->device->ibdev_path);
}

TEST_F(sysfs, port_files_follow_the_link)
{
	struct ibv_port_attr port;

	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &port));
	ASSERT_EQ(IBV_PORT_DOWN, port.state);
	check_port_files(_metadata, &port);
	ASSERT_PORT_FILE(DEV, "state", "1: DOWN");
	ASSERT_PORT_FILE(DEV, "phys_state", "3: Disabled");

	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " up"));
	ASSERT_EQ(0, wait_port_state(self->ctx, IBV_PORT_ACTIVE, &port));
	check_port_files(_metadata, &port);
	ASSERT_PORT_FILE(DEV, "state", "4: ACTIVE");
	ASSERT_PORT_FILE(DEV, "phys_state", "5: LinkUp");
}

TEST_F(sysfs, gid_table_is_the_verbs_one)
{
	unsigned int i, valid = 0;
	char file[32];

	for (i = 0; i < RNIC_GID_TABLE_LEN; i++)
		valid += check_gid_files(_metadata, self->ctx, DEV, i);
	/* The link-local GID of the MAC, and nothing else. */
	EXPECT_EQ(1, valid);
	ASSERT_PORT_FILE(DEV, "gid_attrs/ndevs/0", NETDEV);
	/* The table's files and no more. */
	snprintf(file, sizeof(file), "gids/%u", RNIC_GID_TABLE_LEN);
	ASSERT_PORT_ERR(DEV, file, ENOENT);
	snprintf(file, sizeof(file), "gid_attrs/types/%u",
		 RNIC_GID_TABLE_LEN);
	ASSERT_PORT_ERR(DEV, file, ENOENT);
}

/* pkeys/N is the P_Key table ibv_query_port() and ibv_query_pkey() give. */
TEST_F(sysfs, pkey_table_is_the_verbs_one)
{
	struct ibv_port_attr port;
	char file[32], want[16];
	__be16 pkey;
	int i;

	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &port));
	ASSERT_LE(1, port.pkey_tbl_len);
	for (i = 0; i < port.pkey_tbl_len; i++) {
		ASSERT_EQ(0, ibv_query_pkey(self->ctx, 1, i, &pkey));
		snprintf(file, sizeof(file), "pkeys/%d", i);
		snprintf(want, sizeof(want), "0x%04x", be16toh(pkey));
		ASSERT_PORT_FILE(DEV, file, want);
	}
	snprintf(file, sizeof(file), "pkeys/%d", i);
	ASSERT_PORT_ERR(DEV, file, ENOENT);
}

/* An address of the netdev is a GID in sysfs, and goes with it. */
TEST_F(sysfs, address_gid_comes_and_goes)
{
	static const unsigned char v4[16] = {
		[10] = 0xff, 0xff, 10, 78, 0, 1,
	};
	char file[64];
	int i, index = -1;

	ASSERT_EQ(0, rnic_sh("ip addr add 10.78.0.1/24 dev " NETDEV));
	for (i = 0; i < RNIC_GID_TABLE_LEN; i++) {
		union ibv_gid gid;

		ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, i, &gid));
		if (!memcmp(gid.raw, v4, sizeof(v4)))
			index = i;
	}
	ASSERT_LT(0, index);
	EXPECT_TRUE(check_gid_files(_metadata, self->ctx, DEV, index));
	snprintf(file, sizeof(file), "gids/%d", index);
	ASSERT_PORT_FILE(DEV, file, "0000:0000:0000:0000:0000:ffff:0a4e:0001");
	snprintf(file, sizeof(file), "gid_attrs/types/%d", index);
	ASSERT_PORT_FILE(DEV, file, "RoCE v2");
	snprintf(file, sizeof(file), "gid_attrs/ndevs/%d", index);
	ASSERT_PORT_FILE(DEV, file, NETDEV);

	/* ndevs follows a rename. */
	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " name t_sysren"));
	ASSERT_PORT_FILE(DEV, file, "t_sysren");
	ASSERT_EQ(0, rnic_sh("ip link set t_sysren name " NETDEV));
	ASSERT_PORT_FILE(DEV, file, NETDEV);

	ASSERT_EQ(0, rnic_sh("ip addr del 10.78.0.1/24 dev " NETDEV));
	EXPECT_FALSE(check_gid_files(_metadata, self->ctx, DEV, index));
	snprintf(file, sizeof(file), "gids/%d", index);
	ASSERT_PORT_FILE(DEV, file, ZERO_GID);
}

/* An unbound device's GIDs have a type but no netdev. */
TEST_F(sysfs, unbound_device_has_no_ndevs)
{
	struct ibv_context *ctx;
	bool valid;

	do_link_add(self->g, DEVU, NULL);
	ctx = rnic_ibv_open(DEVU);
	ASSERT_NE(NULL, ctx);
	valid = check_gid_files(_metadata, ctx, DEVU, 0);
	EXPECT_EQ(0, ibv_close_device(ctx));
	ASSERT_TRUE(valid);
	ASSERT_PORT_FILE(DEVU, "gid_attrs/types/0", "RoCE v2");
	ASSERT_PORT_ERR(DEVU, "gid_attrs/ndevs/0", EINVAL);
}

/* hw_counters/ holds one file per counter of STAT_GET, with its value. */
static void check_counter_files(struct __test_metadata *_metadata,
				struct rnic_genl *g)
{
	struct rnic_stat_info *info = calloc(1, sizeof(*info));
	char want[32], file[96];
	unsigned int c;

	ASSERT_NE(NULL, info);
	ASSERT_EQ(0, rnic_stat_get(g, DEV, info));
	for (c = RNIC_NL_COUNTER_UNSPEC + 1; c <= RNIC_NL_COUNTER_MAX; c++) {
		snprintf(want, sizeof(want), "%llu",
			 (unsigned long long)info->counters[c]);
		snprintf(file, sizeof(file), "hw_counters/%s",
			 rnic_counter_name(c));
		ASSERT_PORT_FILE(DEV, file, want);
	}
	free(info);
}

TEST_F(sysfs, counter_files_are_the_counters)
{
	char path[PATH_MAX], before[32], after[32];
	struct ibv_port_attr port;
	unsigned int files = 0;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), RNIC_SYSFS "/" DEV "/ports/1/hw_counters");
	dir = opendir(path);
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir)))
		files += d->d_name[0] != '.';
	closedir(dir);
	ASSERT_EQ(RNIC_NL_COUNTER_MAX, files);
	check_counter_files(_metadata, self->g);

	/* link_downed counts a fall from ACTIVE to DOWN. */
	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " up"));
	ASSERT_EQ(0, wait_port_state(self->ctx, IBV_PORT_ACTIVE, &port));
	ASSERT_EQ(0, port_read(DEV, "hw_counters/link_downed", before,
			       sizeof(before)));
	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " down"));
	ASSERT_EQ(0, wait_port_state(self->ctx, IBV_PORT_DOWN, &port));
	ASSERT_EQ(0, port_read(DEV, "hw_counters/link_downed", after,
			       sizeof(after)));
	EXPECT_EQ(strtoull(before, NULL, 10) + 1, strtoull(after, NULL, 10));
	check_counter_files(_metadata, self->g);
}

/* A file open when its device goes reads ENODEV, and nothing breaks. */
TEST_F(sysfs, files_go_with_the_device)
{
	static const char * const files[] = {
		"state", "gids/0", "gid_attrs/types/0", "gid_attrs/ndevs/0",
		"hw_counters/sent_pkts",
	};
	int fds[ARRAY_SIZE(files)];
	char path[PATH_MAX], buf[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), RNIC_SYSFS "/" DEV "/ports/1/%s",
			 files[i]);
		fds[i] = open(path, O_RDONLY);
		ASSERT_LE(0, fds[i]) TH_LOG("%s", path);
		ASSERT_LT(0, pread(fds[i], buf, sizeof(buf), 0));
	}
	EXPECT_EQ(0, ibv_close_device(self->ctx));
	self->ctx = NULL;
	do_link_del(self->g, DEV);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		EXPECT_EQ(-1, pread(fds[i], buf, sizeof(buf), 0));
		EXPECT_EQ(ENODEV, errno) TH_LOG("%s", files[i]);
		close(fds[i]);
	}
	EXPECT_FALSE(rnic_sysfs_exists(DEV));
}

/*
 * Removals under a reader of every kind of file of ports/1/: each read
 * gives the file or fails because the device is gone (ENOENT, or ENODEV
 * for a file open across the removal); the kernel log (the VM harness)
 * shows no warning.
 */
TEST_F(sysfs, removal_under_readers)
{
	static const char * const files[] = {
		"state", "gids/0", "gid_attrs/types/0", "gid_attrs/ndevs/0",
		"hw_counters/rcvd_pkts",
	};
	/* [0]: reads that gave the file, [1]: reads that failed otherwise */
	unsigned long *count;
	pid_t pid;
	int round;

	count = mmap(NULL, 2 * sizeof(*count), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, count);
	EXPECT_EQ(0, ibv_close_device(self->ctx));
	self->ctx = NULL;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char buf[64];
		unsigned int i;
		int ret;

		for (i = 0;; i++) {
			ret = port_read(DEVU, files[i % ARRAY_SIZE(files)], buf,
					sizeof(buf));
			if (!ret)
				__atomic_add_fetch(&count[0], 1, __ATOMIC_RELAXED);
			else if (ret != -ENOENT && ret != -ENODEV)
				__atomic_add_fetch(&count[1], 1, __ATOMIC_RELAXED);
		}
	}
	for (round = 0; round < 10; round++) {
		do_link_add(self->g, DEVU, "lo");
		usleep(round * 1000);
		do_link_del(self->g, DEVU);
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	EXPECT_LT(0, count[0]);
	EXPECT_EQ(0, count[1]);
	munmap(count, 2 * sizeof(*count));
}

TEST_HARNESS_MAIN
