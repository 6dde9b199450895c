// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading rnic.ko: with devices, bound devices and closed
 * contexts, 20 times over; and no unload while a context is open.
 *
 * Needs RNIC_KO (set by tools/dev/vm/run) and leaves the module loaded.
 */
#include <sys/syscall.h>

#include "rnic_test.h"

static int load(void)
{
	const char *ko = getenv("RNIC_KO");
	int fd, ret;

	if (!ko)
		return -ENOENT;
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int unload(void)
{
	return syscall(SYS_delete_module, "rnic", O_NONBLOCK) ? -errno : 0;
}

static bool loaded(void)
{
	return access("/sys/module/rnic", F_OK) == 0;
}

FIXTURE(mod) {
	int fd;
};

FIXTURE_SETUP(mod)
{
	self->fd = -1;
	if (!getenv("RNIC_KO"))
		SKIP(return, "RNIC_KO not set");
	if (!loaded())
		ASSERT_EQ(0, load());
}

FIXTURE_TEARDOWN(mod)
{
	if (self->fd >= 0)
		close(self->fd);
	if (getenv("RNIC_KO") && !loaded())
		EXPECT_EQ(0, load());
}

TEST_F_TIMEOUT(mod, load_unload_with_devices_20_times, 180)
{
	struct rnic_genl *g;
	int i, fd;

	/* Harness 6.1: SKIP() in the setup does not stop the body. */
	if (!getenv("RNIC_KO"))
		SKIP(return, "RNIC_KO not set");
	ASSERT_EQ(0, rnic_sh("ip link set lo up"));
	for (i = 0; i < 20; i++) {
		if (!loaded())
			ASSERT_EQ(0, load());
		g = rnic_genl_open();
		ASSERT_NE(NULL, g);
		do_link_add(g, "t_mod0", NULL);
		do_link_add(g, "t_mod1", "lo");
		fd = rnic_open("t_mod1");
		ASSERT_LE(0, fd);
		close(fd);
		rnic_genl_close(g);

		ASSERT_EQ(0, unload()) TH_LOG("round %d", i);
		ASSERT_FALSE(loaded());
		ASSERT_FALSE(rnic_sysfs_exists("t_mod0"));
		ASSERT_NE(0, access("/sys/class/rnic", F_OK));
		ASSERT_EQ(NULL, rnic_genl_open());
		ASSERT_EQ(ENOENT, errno);
	}
}

TEST_F(mod, no_unload_while_context_open)
{
	struct rnic_genl *g;

	if (!getenv("RNIC_KO"))
		SKIP(return, "RNIC_KO not set");
	g = rnic_genl_open();
	ASSERT_NE(NULL, g);
	do_link_add(g, "t_busy", NULL);
	rnic_genl_close(g);
	self->fd = rnic_open("t_busy");
	ASSERT_LE(0, self->fd);

	EXPECT_EQ(-EWOULDBLOCK, unload());
	EXPECT_TRUE(loaded());
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, unload());
	EXPECT_FALSE(loaded());
}

TEST_HARNESS_MAIN
