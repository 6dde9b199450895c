// SPDX-License-Identifier: GPL-2.0
/*
 * The "rnic" generic netlink family: link add, del and show, and every bad
 * input we can think of.
 */
#include <endian.h>

#include "rnic_test.h"

FIXTURE(link) {
	struct rnic_genl *g;
};

FIXTURE_SETUP(link)
{
	rnic_fixture_setup(_metadata, &self->g, NULL, NULL, NULL);
}

FIXTURE_TEARDOWN(link)
{
	rnic_fixture_teardown(_metadata, self->g, NULL);
}

TEST_F(link, add_show_del)
{
	struct rnic_link_info info;
	char uverbs[64], guid[64], node[PATH_MAX], want[64];
	const unsigned char *g0;
	struct stat st;
	__u64 be;
	int i;

	do_link_add(self->g, "t_add", NULL);
	ASSERT_TRUE(rnic_sysfs_exists("t_add"));
	ASSERT_EQ(0, rnic_link_get(self->g, "t_add", &info));
	EXPECT_STREQ("t_add", info.name);
	EXPECT_EQ(4, info.port_state);		/* IBV_PORT_ACTIVE */
	EXPECT_EQ(4096, info.active_mtu);
	EXPECT_FALSE(info.has_netdev);
	EXPECT_EQ(0, info.contexts);

	/* The char device is named in sysfs and netlink alike. */
	ASSERT_EQ(0, rnic_sysfs_read("t_add", "uverbs", uverbs, sizeof(uverbs)));
	EXPECT_STREQ(uverbs, info.uverbs);
	snprintf(want, sizeof(want), "uverbs%u", RNIC_UVERBS_BASE + info.index);
	EXPECT_STREQ(want, uverbs);
	snprintf(node, sizeof(node), "/dev/infiniband/%s", uverbs);
	ASSERT_EQ(0, stat(node, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0666, st.st_mode & 0777);

	/* node_guid in sysfs is the GUID netlink reports. */
	ASSERT_EQ(0, rnic_sysfs_read("t_add", "node_guid", guid, sizeof(guid)));
	be = be64toh(info.node_guid_be);
	snprintf(want, sizeof(want), "%04x:%04x:%04x:%04x",
		 (unsigned int)(be >> 48) & 0xffff,
		 (unsigned int)(be >> 32) & 0xffff,
		 (unsigned int)(be >> 16) & 0xffff, (unsigned int)be & 0xffff);
	EXPECT_STREQ(want, guid);
	EXPECT_NE(0, be);

	/* Unbound: exactly one GID, fe80::/64 + GUID, at index 0. */
	ASSERT_EQ(1, info.n_gids);
	EXPECT_EQ(0, info.gids[0].index);
	g0 = info.gids[0].gid;
	EXPECT_EQ(0xfe, g0[0]);
	EXPECT_EQ(0x80, g0[1]);
	for (i = 2; i < 8; i++)
		EXPECT_EQ(0, g0[i]);
	EXPECT_EQ(0, memcmp(&g0[8], &info.node_guid_be, 8));

	do_link_del(self->g, "t_add");
	EXPECT_FALSE(rnic_sysfs_exists("t_add"));
	EXPECT_NE(0, access(node, F_OK));
	EXPECT_EQ(-ENODEV, rnic_link_get(self->g, "t_add", &info));
	EXPECT_STREQ("no such rnic device", rnic_genl_errmsg(self->g));
}

static int count_devs(const void *dev, void *arg)
{
	const struct rnic_link_info *info = dev;
	unsigned int *mask = arg;

	if (!strncmp(info->name, "t_dump", 6) && info->name[6] >= '0' &&
	    info->name[6] <= '2')
		*mask |= 1u << (info->name[6] - '0');
	else
		*mask |= 1u << 31;
	return 0;
}

TEST_F(link, dump_lists_every_device)
{
	unsigned int mask = 0;

	do_link_add(self->g, "t_dump0", NULL);
	do_link_add(self->g, "t_dump1", NULL);
	do_link_add(self->g, "t_dump2", NULL);
	ASSERT_EQ(0, rnic_link_dump(self->g, count_devs, &mask));
	EXPECT_EQ(7, mask);
	do_link_del(self->g, "t_dump1");
	mask = 0;
	ASSERT_EQ(0, rnic_link_dump(self->g, count_devs, &mask));
	EXPECT_EQ(5, mask);
}

TEST_F(link, name_is_reusable_after_del)
{
	do_link_add(self->g, "t_reuse", NULL);
	do_link_del(self->g, "t_reuse");
	do_link_add(self->g, "t_reuse", NULL);
	EXPECT_TRUE(rnic_sysfs_exists("t_reuse"));
}

TEST_F(link, duplicate_name)
{
	do_link_add(self->g, "t_dup", NULL);
	do_err_link_add(EEXIST, self->g, "t_dup", NULL);
	EXPECT_STREQ("an rnic device of that name exists",
		     rnic_genl_errmsg(self->g));
	/* The first device is untouched. */
	EXPECT_TRUE(rnic_sysfs_exists("t_dup"));
}

TEST_F(link, name_length)
{
	char name[RNIC_DEV_NAME_MAX + 1];

	memset(name, 'n', sizeof(name));
	name[RNIC_DEV_NAME_MAX] = '\0';		/* 64 bytes: too long */
	do_err_link_add(EINVAL, self->g, name, NULL);
	EXPECT_STREQ("device name is longer than 63 bytes",
		     rnic_genl_errmsg(self->g));
	name[RNIC_DEV_NAME_MAX - 1] = '\0';	/* 63 bytes: fine */
	do_link_add(self->g, name, NULL);
	EXPECT_TRUE(rnic_sysfs_exists(name));
}

TEST_F(link, bad_names)
{
	static const char * const bad[] = {
		"", ".", "..", "a/b", "a:b", "a b", "tab\tname", "nl\n",
		"\x7f", "\xc3\xa9",
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, rnic_link_add(self->g, bad[i], NULL))
			TH_LOG("name #%u accepted", i);
		EXPECT_NE(0, strlen(rnic_genl_errmsg(self->g)));
	}
}

static int build_nothing(struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	return 0;
}

static int build_not_nul_terminated(struct nlmsghdr *nlh, void *arg)
{
	(void)arg;
	mnl_attr_put(nlh, RNIC_NL_ATTR_DEV_NAME, 4, "abcd");
	return 0;
}

static int build_output_attr(struct nlmsghdr *nlh, void *arg)
{
	(void)arg;
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "t_attr");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CONTEXTS, 1);
	return 0;
}

static int build_unknown_attr(struct nlmsghdr *nlh, void *arg)
{
	(void)arg;
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "t_attr");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_MAX + 1, 1);
	return 0;
}

TEST_F(link, missing_or_malformed_attributes)
{
	EXPECT_EQ(-EINVAL, rnic_genl_request(self->g, RNIC_NL_CMD_LINK_ADD, 0,
					     build_nothing, NULL, NULL));
	EXPECT_EQ(RNIC_NL_ATTR_DEV_NAME, rnic_genl_err_miss_type(self->g));
	EXPECT_EQ(-EINVAL, rnic_genl_request(self->g, RNIC_NL_CMD_LINK_DEL, 0,
					     build_nothing, NULL, NULL));
	EXPECT_EQ(-EINVAL, rnic_genl_request(self->g, RNIC_NL_CMD_LINK_GET, 0,
					     build_nothing, NULL, NULL));
	EXPECT_EQ(-EINVAL, rnic_genl_request(self->g, RNIC_NL_CMD_LINK_ADD, 0,
					     build_not_nul_terminated, NULL,
					     NULL));
	EXPECT_EQ(-EINVAL, rnic_genl_request(self->g, RNIC_NL_CMD_LINK_ADD, 0,
					     build_output_attr, NULL, NULL));
	EXPECT_EQ(-EINVAL, rnic_genl_request(self->g, RNIC_NL_CMD_LINK_ADD, 0,
					     build_unknown_attr, NULL, NULL));
	EXPECT_FALSE(rnic_sysfs_exists("t_attr"));
}

TEST_F(link, unknown_command)
{
	EXPECT_EQ(-EOPNOTSUPP, rnic_genl_request(self->g, RNIC_NL_CMD_MAX + 1,
						 0, build_nothing, NULL, NULL));
	EXPECT_EQ(-EOPNOTSUPP, rnic_genl_request(self->g, RNIC_NL_CMD_UNSPEC,
						 0, build_nothing, NULL, NULL));
}

TEST_F(link, del_and_get_unknown)
{
	struct rnic_link_info info;

	EXPECT_EQ(-ENODEV, rnic_link_del(self->g, "t_nosuch"));
	EXPECT_STREQ("no such rnic device", rnic_genl_errmsg(self->g));
	EXPECT_EQ(-ENODEV, rnic_link_get(self->g, "t_nosuch", &info));
}

TEST_F(link, unknown_netdev)
{
	do_err_link_add(ENODEV, self->g, "t_nd", "nosuchnetdev0");
	EXPECT_STREQ("no such netdev", rnic_genl_errmsg(self->g));
	do_err_link_add(EINVAL, self->g, "t_nd", "a_netdev_name_too_long");
	do_err_link_add(EINVAL, self->g, "t_nd", "");
	EXPECT_FALSE(rnic_sysfs_exists("t_nd"));
}

TEST_F(link, bind_lo)
{
	unsigned char v4[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };
	unsigned char v6[16] = { [15] = 1 };
	struct rnic_link_info info;
	char netdev[32];

	ASSERT_EQ(0, rnic_sh("ip link set lo up"));
	do_link_add(self->g, "t_lo", "lo");
	ASSERT_EQ(0, rnic_link_get(self->g, "t_lo", &info));
	EXPECT_TRUE(info.has_netdev);
	EXPECT_STREQ("lo", info.netdev);
	EXPECT_EQ(1, info.netdev_index);
	EXPECT_EQ(65536, info.netdev_mtu);
	EXPECT_EQ(4096, info.active_mtu);
	EXPECT_EQ(4, info.port_state);
	EXPECT_LT(0, rnic_info_gid_index(&info, v4));
	EXPECT_LT(0, rnic_info_gid_index(&info, v6));
	ASSERT_EQ(0, rnic_sysfs_read("t_lo", "netdev", netdev, sizeof(netdev)));
	EXPECT_STREQ("lo", netdev);

	/* One rnic device per netdev. */
	do_err_link_add(EEXIST, self->g, "t_lo2", "lo");
	EXPECT_STREQ("the netdev is bound to another rnic device",
		     rnic_genl_errmsg(self->g));
	EXPECT_FALSE(rnic_sysfs_exists("t_lo2"));
}

TEST_F(link, unprivileged)
{
	struct rnic_link_info info;
	pid_t pid;
	int status;

	do_link_add(self->g, "t_priv", NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rnic_genl *g;
		int ret = 0;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		g = rnic_genl_open();
		if (!g)
			_exit(11);
		if (rnic_link_add(g, "t_priv2", NULL) != -EPERM)
			ret |= 1;
		if (rnic_link_del(g, "t_priv") != -EPERM)
			ret |= 2;
		if (rnic_link_get(g, "t_priv", &info) != 0)
			ret |= 4;
		rnic_genl_close(g);
		_exit(ret);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_TRUE(rnic_sysfs_exists("t_priv"));
	EXPECT_FALSE(rnic_sysfs_exists("t_priv2"));
}

TEST_F(link, device_slots_run_out)
{
	char name[32];
	int i;

	for (i = 0; i < RNIC_MAX_DEVICES; i++) {
		snprintf(name, sizeof(name), "t_many%d", i);
		do_link_add(self->g, name, NULL);
	}
	do_err_link_add(ENOSPC, self->g, "t_one_more", NULL);
	EXPECT_STREQ("all rnic device slots are in use",
		     rnic_genl_errmsg(self->g));
	/* A freed slot is usable again, and the dump sees all 256. */
	do_link_del(self->g, "t_many17");
	do_link_add(self->g, "t_one_more", NULL);
}

TEST_HARNESS_MAIN
