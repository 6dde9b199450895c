// SPDX-License-Identifier: GPL-2.0
/*
 * rnic beside the kernel's own RDMA stack (ib_uverbs + rdma_rxe): no name
 * collision, and each stack lists and opens only its own devices.
 */
#include "rnic_test.h"

/* Run a command; its whole output (stdout + stderr) in @out. */
static int run(char *out, size_t len, const char *cmd)
{
	size_t n = 0;
	FILE *p;
	int status;

	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (n < len - 1 && fgets(out + n, len - n, p))
		n += strlen(out + n);
	out[n] = '\0';
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

FIXTURE(rxe) {
	struct rnic_genl *g;
	bool have_rxe;
};

FIXTURE_SETUP(rxe)
{
	rnic_fixture_setup(_metadata, &self->g, NULL, NULL, NULL);
	self->have_rxe = rnic_sh("modprobe rdma_rxe 2>/dev/null") == 0 &&
			 rnic_sh("command -v rdma >/dev/null && command -v ibv_devices >/dev/null") == 0;
	if (!self->have_rxe)
		return;
	ASSERT_EQ(0, rnic_sh("ip link add t_veth0 type veth peer name t_veth1 && "
			     "ip link set t_veth0 up && ip link set t_veth1 up"));
	ASSERT_EQ(0, rnic_sh("rdma link add t_rxe0 type rxe netdev t_veth0"));
}

FIXTURE_TEARDOWN(rxe)
{
	rnic_fixture_teardown(_metadata, self->g, NULL);
	if (self->have_rxe) {
		rnic_sh("rdma link del t_rxe0 2>/dev/null");
		rnic_sh("ip link del t_veth0 2>/dev/null");
		rnic_sh("modprobe -r rdma_rxe ib_uverbs 2>/dev/null");
	}
}

TEST_F(rxe, side_by_side)
{
	char out[8192], uverbs[64];
	int fd;

	if (!self->have_rxe)
		SKIP(return, "rdma_rxe or rdma-core tools not available");

	do_link_add(self->g, "t_rnic0", "t_veth1");
	do_link_add(self->g, "t_rnic1", NULL);

	/* rdma-core sees rxe only. */
	ASSERT_EQ(0, run(out, sizeof(out), "ibv_devices 2>&1"));
	EXPECT_NE(NULL, strstr(out, "t_rxe0")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "t_rnic")) TH_LOG("%s", out);
	ASSERT_EQ(0, run(out, sizeof(out), "ibv_devinfo -d t_rxe0 2>&1"));
	EXPECT_NE(NULL, strstr(out, "PORT_ACTIVE")) TH_LOG("%s", out);

	/* rnic's tools see rnic only. */
	ASSERT_EQ(0, run(out, sizeof(out), "rnic-devices 2>&1"));
	EXPECT_NE(NULL, strstr(out, "t_rnic0")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "t_rnic1")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "t_rxe0")) TH_LOG("%s", out);
	ASSERT_EQ(0, run(out, sizeof(out), "rnic-devinfo -d t_rnic0 2>&1"));
	EXPECT_NE(NULL, strstr(out, "PORT_ACTIVE")) TH_LOG("%s", out);
	EXPECT_NE(0, run(out, sizeof(out), "rnic-devinfo -d t_rxe0 2>&1"));

	/* Both char devices exist, distinct; ib_uverbs keeps its numbers. */
	ASSERT_EQ(0, access("/sys/class/infiniband_verbs/uverbs0", F_OK));
	ASSERT_EQ(0, run(out, sizeof(out),
			 "cat /sys/class/infiniband_verbs/uverbs0/ibdev"));
	EXPECT_STREQ("t_rxe0\n", out);
	ASSERT_EQ(0, rnic_sysfs_read("t_rnic0", "uverbs", uverbs, sizeof(uverbs)));
	EXPECT_STRNE("uverbs0", uverbs);
	fd = rnic_open("t_rnic0");
	ASSERT_LE(0, fd);
	close(fd);
	fd = open("/dev/infiniband/uverbs0", O_RDWR);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
}

TEST_HARNESS_MAIN
