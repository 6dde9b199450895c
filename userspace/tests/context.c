// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * Contexts and queries against a fake kernel: the device node is a symlink
 * to /dev/null (so that librnic's char device check passes with the `dev`
 * attribute set to /dev/null's numbers), and this program defines ioctl(),
 * which takes precedence over libc's for librnic's calls. The fake answers
 * the rnic ioctls on /dev/null descriptors and checks how librnic fills the
 * requests; everything else goes to the real system call.
 */
#include "fake-sysfs.h"

#include <endian.h>
#include <fcntl.h>
#include <limits.h>
#include <dirent.h>
#include <stdarg.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include <infiniband/verbs.h>
#include <rdma/rnic-abi.h>

#include "tap.h"

static struct fake fk;
static dev_t null_rdev;

/* Fake kernel state. */
static int fake_removed;	   /* answer ENODEV to everything */
static unsigned int fake_calls;	   /* rnic ioctls seen */
static unsigned int fake_bad_args; /* requests with a wrong size/flags */

/* The header of every request: full size, no flags, reserved zero. */
#define FAKE_CHECK(q, reserved_ok)                                   \
	do {                                                         \
		if ((q)->size != sizeof(*(q)) || (q)->flags || !(reserved_ok)) { \
			fake_bad_args++;                             \
			return EINVAL;                               \
		}                                                    \
	} while (0)

#define FAKE_GUID 0x020000fffe000001ULL
#define FAKE_GID2 5 /* the second GID table entry in use */

/* The asynchronous event descriptor: an eventfd stands in for it. */
static int fake_create_async_fd(struct rnic_create_async_fd *q)
{
	FAKE_CHECK(q, !q->__reserved);
	q->out_fd = eventfd(0, EFD_CLOEXEC);
	return q->out_fd < 0 ? errno : 0;
}

static int fake_query_device(struct rnic_query_device *q)
{
	FAKE_CHECK(q, !q->__reserved);
	q->out_node_guid = htobe64(FAKE_GUID);
	q->out_sys_image_guid = htobe64(FAKE_GUID + 0x100);
	q->out_max_mr_size = 1ULL << 40;
	q->out_page_size_cap = 0xfffff000ULL;
	/* bit 34 is a device_cap_flags_ex bit: must not leak into the int */
	q->out_device_cap_flags = (1ULL << 34) | IBV_DEVICE_RC_RNR_NAK_GEN |
				  IBV_DEVICE_PORT_ACTIVE_EVENT;
	q->out_fw_ver = (7ULL << 32) | (2ULL << 16) | 3;
	q->out_vendor_id = 0xffffff;
	q->out_vendor_part_id = 0x7e1c;
	q->out_hw_ver = 1;
	q->out_max_qp = 0x80000000u; /* saturates at INT_MAX */
	q->out_max_qp_wr = 16384;
	q->out_max_sge = 32;
	q->out_max_sge_rd = 31;
	q->out_max_cq = 65536;
	q->out_max_cqe = 1 << 20;
	q->out_max_mr = 1 << 18;
	q->out_max_pd = 1 << 16;
	q->out_max_qp_rd_atom = 64;
	q->out_max_qp_init_rd_atom = 63;
	q->out_max_res_rd_atom = 1 << 20;
	q->out_max_srq = 1024;
	q->out_max_srq_wr = 8192;
	q->out_max_srq_sge = 30;
	q->out_max_ah = 4096;
	q->out_max_mcast_grp = 512;
	q->out_max_mcast_qp_attach = 56;
	q->out_max_total_mcast_qp_attach = 28672;
	q->out_max_mw = 100;
	q->out_max_pkeys = 70000; /* saturates at 65535 */
	q->out_atomic_cap = IBV_ATOMIC_HCA;
	q->out_local_ca_ack_delay = 15;
	q->out_phys_port_cnt = 1;
	q->out_num_comp_vectors = 4;
	return 0;
}

static int fake_query_port(struct rnic_query_port *q)
{
	FAKE_CHECK(q, !q->__reserved);
	if (q->port_num != 1)
		return EINVAL;
	q->out_state = IBV_PORT_ACTIVE;
	q->out_max_mtu = IBV_MTU_4096;
	q->out_active_mtu = IBV_MTU_1024;
	q->out_gid_tbl_len = RNIC_GID_TABLE_LEN;
	q->out_port_cap_flags = IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS;
	q->out_max_msg_sz = 0x80000000u;
	q->out_bad_pkey_cntr = 5;
	q->out_qkey_viol_cntr = 6;
	q->out_pkey_tbl_len = 2;
	q->out_lid = 0;
	q->out_sm_lid = 0x12345; /* saturates at 0xffff */
	q->out_lmc = 0;
	q->out_max_vl_num = 1;
	q->out_sm_sl = 0;
	q->out_subnet_timeout = 18;
	q->out_init_type_reply = 0;
	q->out_active_width = 2;
	q->out_active_speed = 32;
	q->out_phys_state = 5;
	q->out_link_layer = IBV_LINK_LAYER_ETHERNET;
	q->out_port_flags = 1;
	q->out_port_cap_flags2 = IBV_PORT_LINK_WIDTH_2X_SUP;
	q->out_active_speed_ex = 0x100;
	return 0;
}

static int fake_query_gid(struct rnic_query_gid *q)
{
	static const __u8 gid0[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				       0x02, 0x00, 0x00, 0xff,
				       0xfe, 0x00, 0x00, 0x01 };

	FAKE_CHECK(q, 1);
	if (q->port_num != 1 || q->index >= RNIC_GID_TABLE_LEN)
		return EINVAL;
	if (q->index != 0 && q->index != FAKE_GID2)
		return ENODATA;
	memcpy(q->out_gid, gid0, sizeof(gid0));
	q->out_gid[15] += q->index;
	q->out_gid_type = RNIC_GID_TYPE_ROCE_V2;
	q->out_ifindex = 1 + q->index;
	return 0;
}

static int fake_query_pkey(struct rnic_query_pkey *q)
{
	FAKE_CHECK(q, !q->__reserved);
	if (q->port_num != 1 || q->index >= 2)
		return EINVAL;
	q->out_pkey = q->index ? 0x8001 : 0xffff;
	return 0;
}

int ioctl(int fd, unsigned long request, ...)
{
	struct stat st;
	va_list ap;
	void *arg;
	int err;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) || st.st_rdev != null_rdev ||
	    _IOC_TYPE(request) != RNIC_IOCTL_MAGIC)
		return (int)syscall(SYS_ioctl, fd, request, arg);

	fake_calls++;
	if (fake_removed) {
		err = ENODEV;
	} else if (request == RNIC_IOCTL_QUERY_DEVICE) {
		err = fake_query_device(arg);
	} else if (request == RNIC_IOCTL_QUERY_PORT) {
		err = fake_query_port(arg);
	} else if (request == RNIC_IOCTL_QUERY_GID) {
		err = fake_query_gid(arg);
	} else if (request == RNIC_IOCTL_QUERY_PKEY) {
		err = fake_query_pkey(arg);
	} else if (request == RNIC_IOCTL_CREATE_ASYNC_FD) {
		err = fake_create_async_fd(arg);
	} else {
		err = ENOTTY;
	}
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

static int count_fds(void)
{
	struct dirent *de;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

static struct ibv_device **setup_device(void)
{
	char path[400], dev[32];

	snprintf(dev, sizeof(dev), "%u:%u", major(null_rdev),
		 minor(null_rdev));
	fake_add(&fk, "rnic0", "1", "uverbs1024", "0200:00ff:fe00:0001", dev);
	snprintf(path, sizeof(path), "%s/uverbs1024", fk.dev_dir);
	if (symlink("/dev/null", path) && errno != EEXIST)
		fake_die("cannot symlink", path);
	return ibv_get_device_list(NULL);
}

/*
 * What a binary built against rdma-core's header relies on: the data path
 * in ctx->ops, the extended operations in front of the context, the ones
 * rnic cannot serve NULL so that rdma-core's wrappers say EOPNOTSUPP.
 */
static void test_ops(struct ibv_context *ctx)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);

	ok(ctx->abi_compat == __VERBS_ABI_IS_EXTENDED,
	   "abi_compat says the context is extended");
	if (!ok(vctx != NULL, "verbs_get_ctx finds the verbs_context"))
		return;
	is_int(vctx->sz, sizeof(*vctx), "sz is the whole verbs_context");
	ok(ctx->ops.post_send == ibv_post_send &&
	   ctx->ops.post_recv == ibv_post_recv &&
	   ctx->ops.post_srq_recv == ibv_post_srq_recv &&
	   ctx->ops.poll_cq == ibv_poll_cq &&
	   ctx->ops.req_notify_cq == ibv_req_notify_cq,
	   "ops holds the data path");
	ok(ctx->ops.alloc_mw && ctx->ops.bind_mw && ctx->ops.dealloc_mw,
	   "memory window ops for rdma-core's inline functions");
	ok(verbs_get_ctx_op(ctx, query_port) &&
	   verbs_get_ctx_op(ctx, query_device_ex) &&
	   verbs_get_ctx_op(ctx, create_cq_ex) &&
	   verbs_get_ctx_op(ctx, create_qp_ex) &&
	   verbs_get_ctx_op(ctx, create_srq_ex),
	   "the extended verbs rnic has are served");
	ok(verbs_get_ctx_op(ctx, open_xrcd) &&
	   verbs_get_ctx_op(ctx, close_xrcd) &&
	   verbs_get_ctx_op(ctx, get_srq_num) &&
	   verbs_get_ctx_op(ctx, open_qp),
	   "XRC ops for rdma-core's inline functions");
	ok(!verbs_get_ctx_op(ctx, alloc_dm) &&
	   !verbs_get_ctx_op(ctx, ibv_create_flow) &&
	   !verbs_get_ctx_op(ctx, create_counters) &&
	   !verbs_get_ctx_op(ctx, alloc_td) &&
	   !verbs_get_ctx_op(ctx, alloc_parent_domain) &&
	   !verbs_get_ctx_op(ctx, create_wq) &&
	   !verbs_get_ctx_op(ctx, modify_cq),
	   "ops rnic cannot serve are NULL");

	/* An older library's struct does not reach the newest op. */
	vctx->sz = sizeof(*vctx) - offsetof(struct verbs_context, query_port) - 1;
	ok(!verbs_get_ctx_op(ctx, query_port) &&
	   verbs_get_ctx_op(ctx, query_device_ex),
	   "sz bounds what verbs_get_ctx_op finds");
	vctx->sz = sizeof(*vctx);
}

static void test_open_close(struct ibv_device *dev)
{
	struct ibv_context *ctx;
	int fd, afd, fds;

	fds = count_fds();
	ctx = ibv_open_device(dev);
	if (!ok(ctx != NULL, "open rnic0"))
		return;
	ok(ctx->device == dev, "context device is the device");
	ok(ctx->cmd_fd >= 0, "cmd_fd is open");
	ok(fcntl(ctx->cmd_fd, F_GETFD) & FD_CLOEXEC, "cmd_fd is close-on-exec");
	ok((fcntl(ctx->cmd_fd, F_GETFL) & O_ACCMODE) == O_RDWR,
	   "cmd_fd is read-write");
	ok(ctx->async_fd >= 0 && ctx->async_fd != ctx->cmd_fd,
	   "async_fd is a descriptor of its own");
	ok(fcntl(ctx->async_fd, F_GETFD) & FD_CLOEXEC,
	   "async_fd is close-on-exec");
	is_int(ctx->num_comp_vectors, 4, "num_comp_vectors from query_device");
	test_ops(ctx);
	is_int(pthread_mutex_lock(&ctx->mutex), 0, "context mutex usable");
	pthread_mutex_unlock(&ctx->mutex);

	fd = ctx->cmd_fd;
	afd = ctx->async_fd;
	is_int(ibv_close_device(ctx), 0, "close returns 0");
	ok(fcntl(fd, F_GETFD) == -1 && errno == EBADF, "close closed cmd_fd");
	ok(fcntl(afd, F_GETFD) == -1 && errno == EBADF, "close closed async_fd");
	is_int(count_fds(), fds, "no descriptor leaked");

	/* The query made at open time fails: nothing is left behind. */
	fake_removed = 1;
	errno = 0;
	ctx = ibv_open_device(dev);
	ok(ctx == NULL, "open of a removed device fails");
	is_int(errno, ENODEV, "open of a removed device: ENODEV");
	is_int(count_fds(), fds, "failed open leaks no descriptor");
	fake_removed = 0;
}

static void test_query_device(struct ibv_context *ctx)
{
	struct ibv_device_attr a;
	int ret;

	memset(&a, 0x5a, sizeof(a));
	ret = ibv_query_device(ctx, &a);
	is_int(ret, 0, "ibv_query_device returns 0");
	is_str(a.fw_ver, "7.2.3", "fw_ver is major.minor.patch");
	ok(be64toh(a.node_guid) == FAKE_GUID, "node_guid stays network order");
	ok(be64toh(a.sys_image_guid) == FAKE_GUID + 0x100, "sys_image_guid");
	ok(a.max_mr_size == 1ULL << 40, "max_mr_size");
	ok(a.page_size_cap == 0xfffff000ULL, "page_size_cap");
	is_int(a.device_cap_flags,
	       IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT,
	       "device_cap_flags keeps the low 32 bits");
	is_int(a.vendor_id, 0xffffff, "vendor_id");
	is_int(a.vendor_part_id, 0x7e1c, "vendor_part_id");
	is_int(a.hw_ver, 1, "hw_ver");
	is_int(a.max_qp, INT_MAX, "max_qp saturates at INT_MAX");
	is_int(a.max_qp_wr, 16384, "max_qp_wr");
	is_int(a.max_sge, 32, "max_sge");
	is_int(a.max_sge_rd, 31, "max_sge_rd");
	is_int(a.max_cq, 65536, "max_cq");
	is_int(a.max_cqe, 1 << 20, "max_cqe");
	is_int(a.max_mr, 1 << 18, "max_mr");
	is_int(a.max_pd, 1 << 16, "max_pd");
	is_int(a.max_qp_rd_atom, 64, "max_qp_rd_atom");
	is_int(a.max_qp_init_rd_atom, 63, "max_qp_init_rd_atom");
	is_int(a.max_res_rd_atom, 1 << 20, "max_res_rd_atom");
	is_int(a.max_srq, 1024, "max_srq");
	is_int(a.max_srq_wr, 8192, "max_srq_wr");
	is_int(a.max_srq_sge, 30, "max_srq_sge");
	is_int(a.max_ah, 4096, "max_ah");
	is_int(a.max_mcast_grp, 512, "max_mcast_grp");
	is_int(a.max_mcast_qp_attach, 56, "max_mcast_qp_attach");
	is_int(a.max_total_mcast_qp_attach, 28672, "max_total_mcast_qp_attach");
	is_int(a.max_mw, 100, "max_mw");
	is_int(a.max_pkeys, 65535, "max_pkeys saturates at 65535");
	is_int(a.atomic_cap, IBV_ATOMIC_HCA, "atomic_cap");
	is_int(a.local_ca_ack_delay, 15, "local_ca_ack_delay");
	is_int(a.phys_port_cnt, 1, "phys_port_cnt");
	ok(a.max_ee == 0 && a.max_rdd == 0 && a.max_ee_rd_atom == 0 &&
	   a.max_ee_init_rd_atom == 0 && a.max_raw_ipv6_qp == 0 &&
	   a.max_raw_ethy_qp == 0 && a.max_fmr == 0 && a.max_map_per_fmr == 0,
	   "fields rnic has no use for are 0");

	errno = 0;
	is_int(ibv_query_device(ctx, NULL), EINVAL,
	       "ibv_query_device(NULL attr) returns EINVAL");
	is_int(ibv_query_device(NULL, &a), EINVAL,
	       "ibv_query_device(NULL ctx) returns EINVAL");
	fake_removed = 1;
	errno = 0;
	is_int(ibv_query_device(ctx, &a), ENODEV,
	       "removed device: ibv_query_device returns ENODEV");
	is_int(errno, ENODEV, "removed device: errno ENODEV");
	fake_removed = 0;
}

static void test_query_port(struct ibv_context *ctx)
{
	struct ibv_port_attr a;

	memset(&a, 0x5a, sizeof(a));
	is_int(ibv_query_port(ctx, 1, &a), 0, "ibv_query_port(1) returns 0");
	is_int(a.state, IBV_PORT_ACTIVE, "state");
	is_int(a.max_mtu, IBV_MTU_4096, "max_mtu");
	is_int(a.active_mtu, IBV_MTU_1024, "active_mtu");
	is_int(a.gid_tbl_len, RNIC_GID_TABLE_LEN, "gid_tbl_len");
	is_int(a.port_cap_flags, IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS,
	       "port_cap_flags");
	is_int(a.max_msg_sz, 0x80000000u, "max_msg_sz");
	is_int(a.bad_pkey_cntr, 5, "bad_pkey_cntr");
	is_int(a.qkey_viol_cntr, 6, "qkey_viol_cntr");
	is_int(a.pkey_tbl_len, 2, "pkey_tbl_len");
	is_int(a.lid, 0, "lid");
	is_int(a.sm_lid, 0xffff, "sm_lid saturates at 0xffff");
	is_int(a.lmc, 0, "lmc");
	is_int(a.max_vl_num, 1, "max_vl_num");
	is_int(a.sm_sl, 0, "sm_sl");
	is_int(a.subnet_timeout, 18, "subnet_timeout");
	is_int(a.init_type_reply, 0, "init_type_reply");
	is_int(a.active_width, 2, "active_width");
	is_int(a.active_speed, 32, "active_speed");
	is_int(a.phys_state, 5, "phys_state");
	is_int(a.link_layer, IBV_LINK_LAYER_ETHERNET, "link_layer");
	is_int(a.flags, 1, "flags");
	is_int(a.port_cap_flags2, IBV_PORT_LINK_WIDTH_2X_SUP, "port_cap_flags2");
	is_int(a.active_speed_ex, 0x100, "active_speed_ex");

	errno = 0;
	is_int(ibv_query_port(ctx, 2, &a), EINVAL,
	       "ibv_query_port(2) returns EINVAL");
	is_int(errno, EINVAL, "ibv_query_port(2) sets errno");
	is_int(ibv_query_port(ctx, 0, &a), EINVAL,
	       "ibv_query_port(0) returns EINVAL");
	is_int(ibv_query_port(ctx, 1, NULL), EINVAL,
	       "ibv_query_port(NULL attr) returns EINVAL");
}

/* Bytes of @p from @from on that still hold the 0x5a fill. */
static int filled_from(const void *p, size_t from, size_t len)
{
	const unsigned char *c = p;

	while (from < len && c[from] == 0x5a)
		from++;
	return from == len;
}

/*
 * struct ibv_port_attr grew twice: each caller gets exactly the bytes of
 * the struct it was built with.
 */
static void test_query_port_sized(struct ibv_context *ctx)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);
	size_t with_flags2 = offsetof(struct ibv_port_attr, active_speed_ex);
	size_t compat = offsetof(struct ibv_port_attr, port_cap_flags2);
	struct ibv_port_attr a;

	memset(&a, 0x5a, sizeof(a));
	is_int((ibv_query_port)(ctx, 1, &a), 0,
	       "exported ibv_query_port returns 0");
	ok(a.state == IBV_PORT_ACTIVE && a.flags == 1,
	   "exported ibv_query_port fills up to flags");
	ok(filled_from(&a, compat, sizeof(a)),
	   "exported ibv_query_port writes nothing past flags");

	memset(&a, 0x5a, sizeof(a));
	is_int(vctx->query_port(ctx, 1, &a, with_flags2), 0,
	       "query_port with rdma-core 44's size returns 0");
	is_int(a.port_cap_flags2, IBV_PORT_LINK_WIDTH_2X_SUP,
	       "... fills port_cap_flags2");
	ok(filled_from(&a, with_flags2, sizeof(a)),
	   "... and writes nothing past its struct");
}

static void test_query_device_ex(struct ibv_context *ctx)
{
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	struct verbs_context *vctx = verbs_get_ctx(ctx);
	struct ibv_device_attr_ex a;
	size_t part = offsetof(struct ibv_device_attr_ex, hca_core_clock);

	memset(&a, 0x5a, sizeof(a));
	is_int(ibv_query_device_ex(ctx, NULL, &a), 0,
	       "ibv_query_device_ex returns 0");
	is_str(a.orig_attr.fw_ver, "7.2.3", "orig_attr is ibv_query_device's");
	is_int(a.orig_attr.max_qp, INT_MAX, "orig_attr.max_qp");
	ok(a.device_cap_flags_ex == ((1ULL << 34) | IBV_DEVICE_RC_RNR_NAK_GEN |
				     IBV_DEVICE_PORT_ACTIVE_EVENT),
	   "device_cap_flags_ex keeps all 64 bits");
	is_int(a.phys_port_cnt_ex, 1, "phys_port_cnt_ex");
	ok(a.comp_mask == 0 && a.odp_caps.general_caps == 0 &&
	   a.completion_timestamp_mask == 0 && a.hca_core_clock == 0 &&
	   a.tso_caps.max_tso == 0 && a.max_dm_size == 0 &&
	   a.tm_caps.max_num_tags == 0 && a.xrc_odp_caps == 0,
	   "capabilities rnic lacks are 0");
	is_int(ibv_query_device_ex(ctx, &in, &a), EINVAL,
	       "input comp_mask 1 is EINVAL");

	memset(&a, 0x5a, sizeof(a));
	is_int(vctx->query_device_ex(ctx, NULL, &a, part), 0,
	       "query_device_ex with a short struct returns 0");
	ok(filled_from(&a, part, sizeof(a)),
	   "... and writes nothing past it");
	is_int(vctx->query_device_ex(ctx, NULL, &a, sizeof(a.orig_attr) - 1),
	       EINVAL, "a struct shorter than orig_attr is EINVAL");
}

static void test_query_gid(struct ibv_context *ctx)
{
	static const uint8_t want[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					  0x02, 0x00, 0x00, 0xff,
					  0xfe, 0x00, 0x00, 0x01 };
	static const uint8_t zero[16];
	union ibv_gid gid;

	memset(&gid, 0x5a, sizeof(gid));
	is_int(ibv_query_gid(ctx, 1, 0, &gid), 0, "ibv_query_gid(0) returns 0");
	ok(!memcmp(gid.raw, want, 16), "GID[0] is fe80::200:ff:fe00:1");
	ok(be64toh(gid.global.subnet_prefix) == 0xfe80000000000000ULL &&
	   be64toh(gid.global.interface_id) == FAKE_GUID,
	   "GID[0] subnet_prefix and interface_id");

	memset(&gid, 0x5a, sizeof(gid));
	is_int(ibv_query_gid(ctx, 1, 1, &gid), 0,
	       "empty entry (ENODATA) returns 0");
	ok(!memcmp(gid.raw, zero, 16), "empty entry reads as the zero GID");

	errno = 0;
	is_int(ibv_query_gid(ctx, 1, RNIC_GID_TABLE_LEN, &gid), -1,
	       "index past the table returns -1");
	is_int(errno, EINVAL, "index past the table: EINVAL");
	errno = 0;
	is_int(ibv_query_gid(ctx, 1, -1, &gid), -1, "index -1 returns -1");
	is_int(errno, EINVAL, "index -1: EINVAL");
	errno = 0;
	is_int(ibv_query_gid(ctx, 2, 0, &gid), -1, "port 2 returns -1");
	is_int(errno, EINVAL, "port 2: EINVAL");
	errno = 0;
	is_int(ibv_query_gid(ctx, 1, 0, NULL), -1, "NULL gid returns -1");
	is_int(errno, EINVAL, "NULL gid: EINVAL");
	fake_removed = 1;
	errno = 0;
	is_int(ibv_query_gid(ctx, 1, 0, &gid), -1, "removed device: -1");
	is_int(errno, ENODEV, "removed device: ENODEV");
	fake_removed = 0;
}

static void test_query_gid_ex(struct ibv_context *ctx)
{
	struct ibv_gid_entry e[3];
	union ibv_gid gid;

	memset(e, 0x5a, sizeof(e));
	is_int(ibv_query_gid_ex(ctx, 1, FAKE_GID2, &e[0], 0), 0,
	       "ibv_query_gid_ex returns 0");
	is_int(ibv_query_gid(ctx, 1, FAKE_GID2, &gid), 0, "ibv_query_gid too");
	ok(!memcmp(e[0].gid.raw, gid.raw, 16), "the entry has the GID");
	ok(e[0].gid_index == FAKE_GID2 && e[0].port_num == 1 &&
	   e[0].gid_type == IBV_GID_TYPE_ROCE_V2 &&
	   e[0].ndev_ifindex == 1 + FAKE_GID2,
	   "index, port, RoCEv2 type and netdev");
	is_int(ibv_query_gid_ex(ctx, 1, 1, &e[0], 0), ENODATA,
	       "an empty entry is ENODATA");
	is_int(ibv_query_gid_ex(ctx, 1, 0, &e[0], 1), EINVAL,
	       "flags 1 is EINVAL");
	is_int(_ibv_query_gid_ex(ctx, 1, 0, &e[0], 0, sizeof(e[0]) - 1),
	       EINVAL, "a short entry size is EINVAL");

	memset(e, 0x5a, sizeof(e));
	is_int(ibv_query_gid_table(ctx, e, 3, 0), 2,
	       "ibv_query_gid_table finds the 2 entries in use");
	ok(e[0].gid_index == 0 && e[1].gid_index == FAKE_GID2 &&
	   e[1].ndev_ifindex == 1 + FAKE_GID2 && e[1].port_num == 1,
	   "in table order, described");
	ok(e[2].gid_index == 0x5a5a5a5a, "the entry past them is untouched");
	is_int(ibv_query_gid_table(ctx, e, 1, 0), -EINVAL,
	       "room for 1 of 2 is -EINVAL");
	is_int(ibv_query_gid_table(ctx, e, 3, 1), -EINVAL, "flags 1 is -EINVAL");
}

static void test_query_pkey(struct ibv_context *ctx)
{
	uint8_t raw[2];
	__be16 pkey;

	is_int(ibv_query_pkey(ctx, 1, 0, &pkey), 0, "ibv_query_pkey(0)");
	is_int(be16toh(pkey), 0xffff, "P_Key[0] is 0xffff");
	is_int(ibv_query_pkey(ctx, 1, 1, &pkey), 0, "ibv_query_pkey(1)");
	memcpy(raw, &pkey, sizeof(raw));
	ok(raw[0] == 0x80 && raw[1] == 0x01, "P_Key[1] 0x8001 in network order");

	errno = 0;
	is_int(ibv_query_pkey(ctx, 1, 2, &pkey), -1, "index 2 returns -1");
	is_int(errno, EINVAL, "index 2: EINVAL");
	errno = 0;
	is_int(ibv_query_pkey(ctx, 1, -5, &pkey), -1, "index -5 returns -1");
	is_int(errno, EINVAL, "index -5: EINVAL");
	errno = 0;
	is_int(ibv_query_pkey(NULL, 1, 0, &pkey), -1, "NULL context: -1");
	is_int(errno, EINVAL, "NULL context: EINVAL");
}

/* Opened devices outlive the list; valgrind checks the memory side. */
static void test_refcount(void)
{
	struct ibv_context *c1, *c2;
	struct ibv_device **list;

	list = setup_device();
	if (!ok(list && list[0], "list for the refcount test")) {
		ibv_free_device_list(list);
		return;
	}
	c1 = ibv_open_device(list[0]);
	c2 = ibv_open_device(list[0]);
	ok(c1 && c2 && c1 != c2 && c1->cmd_fd != c2->cmd_fd,
	   "two contexts on one device");
	ibv_free_device_list(list);
	if (!c1 || !c2)
		return;
	is_str(ibv_get_device_name(c1->device), "rnic0",
	       "device valid after the list is freed");
	ok(be64toh(ibv_get_device_guid(c1->device)) == FAKE_GUID,
	   "device GUID valid after the list is freed");
	is_int(ibv_close_device(c1), 0, "close the first context");
	is_str(c2->device->name, "rnic0",
	       "device valid while the second context is open");
	is_int(ibv_query_port(c2, 1, &(struct ibv_port_attr){ 0 }), 0,
	       "second context still answers");
	is_int(ibv_close_device(c2), 0, "close the second context");
}

static void test_misc_ex(struct ibv_context *ctx)
{
	struct ibv_mr mr = { .context = ctx };

	is_int(ibv_get_pkey_index(ctx, 1, htobe16(0x8001)), 1,
	       "ibv_get_pkey_index finds 0x8001 at 1");
	is_int(ibv_get_pkey_index(ctx, 1, htobe16(0xffff)), 0,
	       "... and 0xffff at 0");
	errno = 0;
	is_int(ibv_get_pkey_index(ctx, 1, htobe16(0x1234)), -1,
	       "an absent P_Key is -1");
	is_int(errno, ENOENT, "... with ENOENT");

	is_int(ibv_get_device_index(ctx->device), -1,
	       "no ib_core device index");

	errno = 0;
	is_int(ibv_rereg_mr(&mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			    IBV_ACCESS_LOCAL_WRITE),
	       IBV_REREG_MR_ERR_INPUT, "ibv_rereg_mr keeps the MR");
	is_int(errno, EOPNOTSUPP, "... and says EOPNOTSUPP");
	errno = 0;
	is_int(ibv_rereg_mr(&mr, 0, NULL, NULL, 0, 0), IBV_REREG_MR_ERR_INPUT,
	       "ibv_rereg_mr without flags");
	is_int(errno, EINVAL, "... is EINVAL");
	errno = 0;
	is_int(ibv_rereg_mr(&mr, IBV_REREG_MR_FLAGS_SUPPORTED + 1, NULL, NULL,
			    0, 0),
	       IBV_REREG_MR_ERR_INPUT, "ibv_rereg_mr with an unknown flag");
	is_int(errno, EINVAL, "... is EINVAL");

	ok(ibv_is_qpt_supported(1u << IBV_QPT_UD, IBV_QPT_UD) == 1 &&
	   ibv_is_qpt_supported(1u << IBV_QPT_UD, IBV_QPT_RC) == 0,
	   "ibv_is_qpt_supported reads the QP type's bit");
}

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct stat st;

	if (stat("/dev/null", &st) || !S_ISCHR(st.st_mode)) {
		printf("1..0 # SKIP /dev/null is not a char device\n");
		return 0;
	}
	null_rdev = st.st_rdev;
	unsetenv("RNIC_DEBUG");
	fake_init(&fk);

	list = setup_device();
	if (!ok(list && list[0], "fake rnic0 is listed"))
		goto out;
	test_open_close(list[0]);
	ctx = ibv_open_device(list[0]);
	if (!ok(ctx != NULL, "open rnic0 for the queries"))
		goto out;
	test_query_device(ctx);
	test_query_port(ctx);
	test_query_port_sized(ctx);
	test_query_device_ex(ctx);
	test_query_gid(ctx);
	test_query_pkey(ctx);
	test_query_gid_ex(ctx);
	test_misc_ex(ctx);
	is_int(ibv_close_device(ctx), 0, "close after the queries");
	ibv_free_device_list(list);
	list = NULL;

	test_refcount();

	ok(fake_calls > 0, "the fake kernel was reached (%u ioctls)",
	   fake_calls);
	is_int(fake_bad_args, 0,
	       "every request had the right size, no flags, zero reserved");
out:
	ibv_free_device_list(list);
	fake_fini(&fk);
	return tap_done();
}
