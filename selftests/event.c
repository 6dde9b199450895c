// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous events: the context's descriptor (one per context,
 * non-blocking, poll, EIO once the context is closed, lifetimes either way
 * round, a new one after the old was closed), IBV_EVENT_DEVICE_FATAL when the device is removed, port and GID
 * table events of a device bound to a dummy netdev, a full queue.
 */
#include <infiniband/verbs.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>

#include "rnic_verbs_test.h"

#define DEV "t_ev"
#define NETDEV "t_evdummy"

static int _create_async_fd(int fd)
{
	struct rnic_create_async_fd cmd = { .size = sizeof(cmd) };
	int ret;

	ret = _rnic_ioctl(fd, RNIC_IOCTL_CREATE_ASYNC_FD, &cmd);
	return ret ? ret : cmd.out_fd;
}

/* Is an event waiting on @fd within @ms milliseconds? */
static bool readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1 && (pfd.revents & POLLIN);
}

/*
 * Read (and acknowledge) events until one of @type comes, for at most
 * @ms milliseconds; 0 and the event in @ev, or -ETIMEDOUT.
 */
static int wait_event(struct ibv_context *ctx, enum ibv_event_type type,
		      int ms, struct ibv_async_event *ev)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 +
		    (now.tv_nsec - start.tv_nsec) / 1000000 > ms)
			return -ETIMEDOUT;
		if (!readable(ctx->async_fd, 10))
			continue;
		if (ibv_get_async_event(ctx, ev))
			return -errno;
		ibv_ack_async_event(ev);
		if (ev->event_type == type)
			return 0;
	}
}

FIXTURE(ev) {
	struct rnic_genl *g;
	struct ibv_context *ctx;
};

FIXTURE_SETUP(ev)
{
	self->ctx = NULL;
	rnic_fixture_setup(_metadata, &self->g, NULL, NULL, NULL);
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
	do_link_add(self->g, DEV, NULL);
	self->ctx = do_ptr(rnic_ibv_open(DEV));
}

FIXTURE_TEARDOWN(ev)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	rnic_fixture_teardown(_metadata, self->g, NULL);
	rnic_sh("ip link del " NETDEV " 2>/dev/null");
}

TEST_F(ev, async_fd_basics)
{
	struct rnic_event_desc desc;
	struct ibv_async_event ev;
	int fd = self->ctx->async_fd;
	char small[8];

	ASSERT_LE(0, fd);
	EXPECT_NE(self->ctx->cmd_fd, fd);
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_FALSE(readable(fd, 50));
	EXPECT_EQ(-1, read(fd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(fd, &desc, sizeof(desc)));
	EXPECT_EQ(EBADF, errno);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK));
	errno = 0;
	EXPECT_EQ(-1, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(ev, one_async_fd_per_context)
{
	struct rnic_create_async_fd cmd = { .size = sizeof(cmd) };
	int fd, afd, afd2;

	/* librnic's context has its descriptor already. */
	EXPECT_EQ(-EEXIST, _create_async_fd(self->ctx->cmd_fd));
	cmd.__reserved = 1;
	EXPECT_EQ(-EINVAL, _rnic_ioctl(self->ctx->cmd_fd,
				       RNIC_IOCTL_CREATE_ASYNC_FD, &cmd));

	fd = rnic_open(DEV);
	ASSERT_LE(0, fd);
	afd = _create_async_fd(fd);
	ASSERT_LE(0, afd);
	EXPECT_TRUE(fcntl(afd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(-EEXIST, _create_async_fd(fd));
	/* Closing it makes room for another. */
	close(afd);
	afd2 = _create_async_fd(fd);
	ASSERT_LE(0, afd2);
	close(afd2);
	close(fd);
}

TEST_F(ev, device_fatal)
{
	struct ibv_comp_channel *ch;
	struct ibv_async_event ev;
	struct ibv_context *ctx2;
	struct ibv_cq *cq;

	ctx2 = rnic_ibv_open(DEV);
	ASSERT_NE(NULL, ctx2);
	ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->ctx, 1, NULL, ch, 0);
	ASSERT_NE(NULL, cq);

	do_link_del(self->g, DEV);
	/* Every context of the device hears it, once. */
	ASSERT_TRUE(readable(self->ctx->async_fd, 1000));
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(IBV_EVENT_DEVICE_FATAL, ev.event_type);
	EXPECT_EQ(0, ev.element.port_num);
	ibv_ack_async_event(&ev);
	EXPECT_FALSE(readable(self->ctx->async_fd, 0));
	ASSERT_EQ(0, ibv_get_async_event(ctx2, &ev));
	EXPECT_EQ(IBV_EVENT_DEVICE_FATAL, ev.event_type);
	ibv_ack_async_event(&ev);

	/* The application can clean up. */
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
	EXPECT_EQ(0, ibv_close_device(ctx2));
}

struct waiter {
	struct ibv_context *ctx;
	struct ibv_async_event ev;
	int ret;
};

static void *wait_async(void *arg)
{
	struct waiter *w = arg;

	w->ret = ibv_get_async_event(w->ctx, &w->ev);
	return NULL;
}

TEST_F(ev, device_fatal_wakes_a_blocked_reader)
{
	struct waiter w = { .ctx = self->ctx, .ret = 1 };
	pthread_t thread;

	ASSERT_EQ(0, pthread_create(&thread, NULL, wait_async, &w));
	usleep(100000);
	EXPECT_EQ(1, w.ret);
	do_link_del(self->g, DEV);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(0, w.ret);
	EXPECT_EQ(IBV_EVENT_DEVICE_FATAL, w.ev.event_type);
	ibv_ack_async_event(&w.ev);
}

/* The descriptor reads EIO once its context is closed; not before. */
TEST_F(ev, async_fd_outlives_context)
{
	struct rnic_event_desc desc;
	struct rnic_link_info info;
	struct pollfd pfd;
	int fd, afd;

	fd = rnic_open(DEV);
	ASSERT_LE(0, fd);
	afd = _create_async_fd(fd);
	ASSERT_LE(0, afd);
	ASSERT_EQ(0, fcntl(afd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(afd, &desc, sizeof(desc)));
	EXPECT_EQ(EAGAIN, errno);
	close(fd);
	/* The context is gone although its descriptor is open. */
	ASSERT_EQ(0, rnic_link_get(self->g, DEV, &info));
	EXPECT_EQ(1, info.contexts);
	EXPECT_EQ(-1, read(afd, &desc, sizeof(desc)));
	EXPECT_EQ(EIO, errno);
	pfd.fd = afd;
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLERR, pfd.revents);
	/* Device events reach it no more, and nothing breaks. */
	do_link_del(self->g, DEV);
	EXPECT_EQ(-1, read(afd, &desc, sizeof(desc)));
	EXPECT_EQ(EIO, errno);
	close(afd);
}

/* A context whose descriptor was closed goes on, without events. */
TEST_F(ev, context_outlives_async_fd)
{
	struct rnic_query_device q = { .size = sizeof(q) };
	int fd, afd;

	fd = rnic_open(DEV);
	ASSERT_LE(0, fd);
	afd = _create_async_fd(fd);
	ASSERT_LE(0, afd);
	close(afd);
	do_link_del(self->g, DEV);
	EXPECT_EQ(-ENODEV, _rnic_ioctl(fd, RNIC_IOCTL_QUERY_DEVICE, &q));
	close(fd);
}

static int make_bound_device(struct rnic_genl *g)
{
	/* No IPv6: its link-local address would add GIDs of its own. */
	if (rnic_sh("ip link add " NETDEV " type dummy && "
		    "sysctl -qw net.ipv6.conf." NETDEV ".disable_ipv6=1"))
		return -1;
	return rnic_link_add(g, DEV "b", NETDEV);
}

TEST_F(ev, port_and_gid_events)
{
	struct ibv_async_event ev;
	struct ibv_port_attr port;
	struct ibv_context *ctx;

	ASSERT_EQ(0, make_bound_device(self->g));
	ctx = rnic_ibv_open(DEV "b");
	ASSERT_NE(NULL, ctx);
	ASSERT_EQ(0, ibv_query_port(ctx, 1, &port));
	EXPECT_EQ(IBV_PORT_DOWN, port.state);
	EXPECT_FALSE(readable(ctx->async_fd, 0));

	/* An address is a GID, even on a link that is down. */
	ASSERT_EQ(0, rnic_sh("ip addr add 10.77.0.1/24 dev " NETDEV));
	ASSERT_EQ(0, wait_event(ctx, IBV_EVENT_GID_CHANGE, 2000, &ev));
	EXPECT_EQ(1, ev.element.port_num);

	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " up"));
	ASSERT_EQ(0, wait_event(ctx, IBV_EVENT_PORT_ACTIVE, 2000, &ev));
	EXPECT_EQ(1, ev.element.port_num);
	ASSERT_EQ(0, ibv_query_port(ctx, 1, &port));
	EXPECT_EQ(IBV_PORT_ACTIVE, port.state);

	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " down"));
	ASSERT_EQ(0, wait_event(ctx, IBV_EVENT_PORT_ERR, 2000, &ev));
	EXPECT_EQ(1, ev.element.port_num);

	ASSERT_EQ(0, rnic_sh("ip addr del 10.77.0.1/24 dev " NETDEV));
	ASSERT_EQ(0, wait_event(ctx, IBV_EVENT_GID_CHANGE, 2000, &ev));
	/* That was all; the unbound device heard none of it. */
	EXPECT_FALSE(readable(ctx->async_fd, 100));
	EXPECT_FALSE(readable(self->ctx->async_fd, 0));

	/* An MTU change is no event. */
	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " mtu 9000"));
	EXPECT_FALSE(readable(ctx->async_fd, 100));

	/* Removing the netdev removes the device. */
	ASSERT_EQ(0, rnic_sh("ip link del " NETDEV));
	ASSERT_EQ(0, wait_event(ctx, IBV_EVENT_DEVICE_FATAL, 2000, &ev));
	EXPECT_EQ(0, ibv_close_device(ctx));
}

/*
 * A context whose descriptor was closed queues nothing; a new descriptor
 * gets the events raised from then on, nothing older.
 */
TEST_F(ev, new_async_fd_gets_later_events_only)
{
	struct rnic_event_desc desc;
	int fd, afd;

	ASSERT_EQ(0, make_bound_device(self->g));
	fd = rnic_open(DEV "b");
	ASSERT_LE(0, fd);
	afd = _create_async_fd(fd);
	ASSERT_LE(0, afd);
	ASSERT_EQ(0, rnic_sh("ip addr add 10.77.0.1/24 dev " NETDEV));
	EXPECT_TRUE(readable(afd, 2000));
	close(afd);
	/* Raised while the context has no open descriptor: dropped. */
	ASSERT_EQ(0, rnic_sh("ip addr del 10.77.0.1/24 dev " NETDEV));
	afd = _create_async_fd(fd);
	ASSERT_LE(0, afd);
	EXPECT_EQ(-EEXIST, _create_async_fd(fd));
	EXPECT_FALSE(readable(afd, 100));
	ASSERT_EQ(0, rnic_sh("ip link set " NETDEV " up"));
	ASSERT_TRUE(readable(afd, 2000));
	ASSERT_EQ(sizeof(desc), read(afd, &desc, sizeof(desc)));
	EXPECT_EQ(IBV_EVENT_PORT_ACTIVE, desc.event_type);
	EXPECT_EQ(0, desc.lost);
	do_link_del(self->g, DEV "b");
	ASSERT_EQ(sizeof(desc), read(afd, &desc, sizeof(desc)));
	EXPECT_EQ(IBV_EVENT_DEVICE_FATAL, desc.event_type);
	close(afd);
	close(fd);
}

/*
 * More events than the queue holds: the excess is counted and reported
 * with the next event read; IBV_EVENT_DEVICE_FATAL still gets in.
 */
TEST_F(ev, full_queue_counts_lost_events)
{
	const int toggles = 150;	/* PORT_ACTIVE + PORT_ERR each */
	struct rnic_event_desc desc;
	int fd, afd, n = 0, lost = 0;
	bool fatal = false;

	ASSERT_EQ(0, make_bound_device(self->g));
	fd = rnic_open(DEV "b");
	ASSERT_LE(0, fd);
	afd = _create_async_fd(fd);
	ASSERT_LE(0, afd);
	/* One ip process for all of them: a fork per change is slow. */
	ASSERT_EQ(0, rnic_sh("for i in $(seq %d); do echo 'link set " NETDEV
			     " up'; echo 'link set " NETDEV " down'; done | "
			     "ip -batch -", toggles));
	do_link_del(self->g, DEV "b");

	ASSERT_EQ(0, fcntl(afd, F_SETFL, O_NONBLOCK));
	while (read(afd, &desc, sizeof(desc)) == sizeof(desc)) {
		if (desc.event_type == IBV_EVENT_DEVICE_FATAL) {
			fatal = true;
			continue;
		}
		EXPECT_EQ(n % 2 ? IBV_EVENT_PORT_ERR : IBV_EVENT_PORT_ACTIVE,
			  desc.event_type);
		EXPECT_EQ(1, desc.element);
		if (n)
			EXPECT_EQ(0, desc.lost);
		lost += desc.lost;
		n++;
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_TRUE(fatal);
	EXPECT_EQ(RNIC_ASYNC_EVENTS_MAX, n);
	EXPECT_EQ(2 * toggles - RNIC_ASYNC_EVENTS_MAX, lost);
	close(afd);
	close(fd);
}

TEST_HARNESS_MAIN
