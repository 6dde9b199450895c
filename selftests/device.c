// SPDX-License-Identifier: GPL-2.0
/*
 * Device lifecycle: contexts across removal, and a bound device following
 * its netdev (state, MTU, addresses, renames, removal).
 */
#include <endian.h>

#include "rnic_test.h"

FIXTURE(dev) {
	struct rnic_genl *g;
};

FIXTURE_SETUP(dev)
{
	rnic_fixture_setup(_metadata, &self->g, NULL, NULL, NULL);
	rnic_sh("ip link del t_dummy 2>/dev/null; ip link del t_renamed 2>/dev/null");
}

FIXTURE_TEARDOWN(dev)
{
	rnic_fixture_teardown(_metadata, self->g, NULL);
	rnic_sh("ip link del t_dummy 2>/dev/null; ip link del t_renamed 2>/dev/null");
}

static int query_device(int fd)
{
	struct rnic_query_device cmd = { .size = sizeof(cmd) };

	return _rnic_ioctl(fd, RNIC_IOCTL_QUERY_DEVICE, &cmd);
}

TEST_F(dev, contexts_are_counted)
{
	struct rnic_link_info info;
	int fd1, fd2;

	do_link_add(self->g, "t_ctx", NULL);
	fd1 = rnic_open("t_ctx");
	ASSERT_LE(0, fd1);
	fd2 = rnic_open("t_ctx");
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, rnic_link_get(self->g, "t_ctx", &info));
	EXPECT_EQ(2, info.contexts);
	close(fd1);
	ASSERT_EQ(0, rnic_link_get(self->g, "t_ctx", &info));
	EXPECT_EQ(1, info.contexts);
	close(fd2);
	ASSERT_EQ(0, rnic_link_get(self->g, "t_ctx", &info));
	EXPECT_EQ(0, info.contexts);
}

TEST_F(dev, del_with_open_context)
{
	struct rnic_query_port port;
	int fd;

	do_link_add(self->g, "t_gone", NULL);
	fd = rnic_open("t_gone");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, query_device(fd));

	do_link_del(self->g, "t_gone");
	EXPECT_FALSE(rnic_sysfs_exists("t_gone"));
	EXPECT_EQ(-ENODEV, query_device(fd));
	EXPECT_EQ(-ENODEV, _query_port(fd, 1, &port));
	/* The argument is still checked first: a bad ioctl stays ENOTTY. */
	EXPECT_EQ(-ENOTTY, _rnic_ioctl(fd, _IO(RNIC_IOCTL_MAGIC, 0x7f), &port));

	/* The name is free again while the old context is still open. */
	do_link_add(self->g, "t_gone", NULL);
	EXPECT_EQ(-ENODEV, query_device(fd));
	EXPECT_EQ(0, close(fd));

	fd = rnic_open("t_gone");
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, query_device(fd));
	close(fd);
}

TEST_F(dev, context_outlives_many_devices)
{
	int fds[8], i;
	char name[16];

	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "t_many%d", i);
		do_link_add(self->g, name, NULL);
		fds[i] = rnic_open(name);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(0, rnic_del_all(self->g));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(-ENODEV, query_device(fds[i]));
		close(fds[i]);
	}
}

/* GUID from the MAC as a modified EUI-64, as IPv6 does. */
static void eui64_from_mac(const char *mac, unsigned char *guid)
{
	unsigned int m[6];

	sscanf(mac, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
	       &m[5]);
	guid[0] = m[0] ^ 2;
	guid[1] = m[1];
	guid[2] = m[2];
	guid[3] = 0xff;
	guid[4] = 0xfe;
	guid[5] = m[3];
	guid[6] = m[4];
	guid[7] = m[5];
}

TEST_F(dev, follows_netdev)
{
	unsigned char v4a[16] = { [10] = 0xff, [11] = 0xff, 10, 1, 2, 3 };
	unsigned char v4b[16] = { [10] = 0xff, [11] = 0xff, 10, 9, 8, 7 };
	unsigned char v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x42 };
	struct rnic_link_info info;
	struct rnic_query_port port;
	unsigned char guid[8];
	char mac[32];
	int fd, ia, ib;
	FILE *f;

	ASSERT_EQ(0, rnic_sh("ip link add t_dummy type dummy"));
	do_link_add(self->g, "t_bound", "t_dummy");
	fd = rnic_open("t_bound");
	ASSERT_LE(0, fd);

	/* Down netdev: port DOWN, phys state Disabled. */
	ASSERT_EQ(0, rnic_link_get(self->g, "t_bound", &info));
	EXPECT_EQ(1, info.port_state);
	ASSERT_EQ(0, _query_port(fd, 1, &port));
	EXPECT_EQ(1, port.out_state);
	EXPECT_EQ(3, port.out_phys_state);

	/* The GUID is the EUI-64 of the MAC. */
	f = fopen("/sys/class/net/t_dummy/address", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(mac, sizeof(mac), f));
	fclose(f);
	eui64_from_mac(mac, guid);
	EXPECT_EQ(0, memcmp(guid, &info.node_guid_be, 8));

	ASSERT_EQ(0, rnic_sh("ip link set t_dummy up"));
	ASSERT_EQ(0, _query_port(fd, 1, &port));
	EXPECT_EQ(4, port.out_state);
	EXPECT_EQ(5, port.out_phys_state);
	EXPECT_EQ(3, port.out_active_mtu);	/* 1500 -> IBV_MTU_1024 */

	ASSERT_EQ(0, rnic_sh("ip link set t_dummy mtu 9000"));
	ASSERT_EQ(0, _query_port(fd, 1, &port));
	EXPECT_EQ(5, port.out_active_mtu);	/* IBV_MTU_4096 */
	/* 1024 bytes of payload need 84 more for the largest headers. */
	ASSERT_EQ(0, rnic_sh("ip link set t_dummy mtu 1107"));
	ASSERT_EQ(0, _query_port(fd, 1, &port));
	EXPECT_EQ(2, port.out_active_mtu);	/* IBV_MTU_512 */
	ASSERT_EQ(0, rnic_sh("ip link set t_dummy mtu 1108"));
	ASSERT_EQ(0, _query_port(fd, 1, &port));
	EXPECT_EQ(3, port.out_active_mtu);	/* IBV_MTU_1024 */
	ASSERT_EQ(0, rnic_sh("ip link set t_dummy mtu 300"));
	ASSERT_EQ(0, _query_port(fd, 1, &port));
	EXPECT_EQ(1, port.out_active_mtu);	/* IBV_MTU_256, the least */
	ASSERT_EQ(0, rnic_link_get(self->g, "t_bound", &info));
	EXPECT_EQ(300, info.netdev_mtu);
	EXPECT_EQ(256, info.active_mtu);
	/* IPv6 needs 1280. */
	ASSERT_EQ(0, rnic_sh("ip link set t_dummy mtu 1500"));

	/*
	 * Addresses come and go; other GIDs keep their index. (Separate
	 * subnets: deleting a primary address takes its secondaries along.)
	 */
	ASSERT_EQ(0, rnic_sh("ip addr add 10.1.2.3/24 dev t_dummy"));
	ASSERT_EQ(0, rnic_sh("ip addr add 10.9.8.7/24 dev t_dummy"));
	ASSERT_EQ(0, rnic_sh("ip -6 addr add 2001:db8::42/64 dev t_dummy nodad"));
	ASSERT_EQ(0, rnic_link_get(self->g, "t_bound", &info));
	ia = rnic_info_gid_index(&info, v4a);
	ib = rnic_info_gid_index(&info, v4b);
	EXPECT_LT(0, ia);
	EXPECT_LT(0, ib);
	EXPECT_LT(0, rnic_info_gid_index(&info, v6));

	ASSERT_EQ(0, rnic_sh("ip addr del 10.1.2.3/24 dev t_dummy"));
	ASSERT_EQ(0, rnic_sh("ip -6 addr del 2001:db8::42/64 dev t_dummy"));
	ASSERT_EQ(0, rnic_link_get(self->g, "t_bound", &info));
	EXPECT_EQ(-1, rnic_info_gid_index(&info, v4a));
	EXPECT_EQ(-1, rnic_info_gid_index(&info, v6));
	EXPECT_EQ(ib, rnic_info_gid_index(&info, v4b));

	/* Renames are followed. */
	ASSERT_EQ(0, rnic_sh("ip link set t_dummy down && ip link set t_dummy name t_renamed"));
	ASSERT_EQ(0, rnic_link_get(self->g, "t_bound", &info));
	EXPECT_STREQ("t_renamed", info.netdev);
	EXPECT_EQ(1, info.port_state);

	/* Removing the netdev removes the device; contexts see ENODEV. */
	ASSERT_EQ(0, rnic_sh("ip link del t_renamed"));
	EXPECT_FALSE(rnic_sysfs_exists("t_bound"));
	EXPECT_EQ(-ENODEV, rnic_link_get(self->g, "t_bound", &info));
	EXPECT_EQ(-ENODEV, query_device(fd));
	close(fd);
}

TEST_F(dev, netdev_gone_with_no_context)
{
	ASSERT_EQ(0, rnic_sh("ip link add t_dummy type dummy"));
	do_link_add(self->g, "t_bound", "t_dummy");
	do_link_add(self->g, "t_free", NULL);
	ASSERT_EQ(0, rnic_sh("ip link del t_dummy"));
	EXPECT_FALSE(rnic_sysfs_exists("t_bound"));
	EXPECT_TRUE(rnic_sysfs_exists("t_free"));
	/* The netdev name can be bound again once it is back. */
	ASSERT_EQ(0, rnic_sh("ip link add t_dummy type dummy"));
	do_link_add(self->g, "t_bound", "t_dummy");
}

TEST_HARNESS_MAIN
