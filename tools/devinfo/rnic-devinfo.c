// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * rnic-devinfo: print the attributes of rnic devices and their ports, in
 * the layout of rdma-core's ibv_devinfo (field names, value column, exit
 * codes), so that scripts reading one read the other. Written on
 * librnic's public verbs API only; the ibv_devinfo -v sections that need
 * ibv_query_device_ex() (ODP, TSO, RSS, ...) are not printed.
 *
 * Exit status, as ibv_devinfo: 255 when the device list cannot be read,
 * no device exists or the -d device is not found; otherwise the OR of the
 * per-device results (1: open failed, 2: query failed, 3: close failed,
 * 4: no such port, or the errno of a failed port or GID query).
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Value columns of ibv_devinfo's layout (tab stops of 8). */
#define COL_DEVICE 40
#define COL_PORT 48

static int verbose;

/*
 * Print "NAME:" indented by @indent tabs, then tabs up to column @col (at
 * least one), then the printf-formatted value and a newline.
 */
static void __attribute__((format(printf, 4, 5)))
field(int indent, int col, const char *name, const char *fmt, ...)
{
	int pos = indent * 8 + (int)strlen(name) + 1;
	va_list ap;
	int i;

	for (i = 0; i < indent; i++)
		putchar('\t');
	printf("%s:", name);
	do {
		putchar('\t');
		pos = (pos / 8 + 1) * 8;
	} while (pos < col);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#define dev_field(name, ...) field(1, COL_DEVICE, name, __VA_ARGS__)
#define port_field(name, ...) field(3, COL_PORT, name, __VA_ARGS__)

struct name_val {
	unsigned int val;
	const char *name;
};

/* Name of @val in @tbl, or @def. */
static const char *lookup(const struct name_val *tbl, size_t n,
			  unsigned int val, const char *def)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tbl[i].val == val)
			return tbl[i].name;
	return def;
}

#define LOOKUP(tbl, val, def) lookup(tbl, ARRAY_SIZE(tbl), val, def)

static const struct name_val transports[] = {
	{ IBV_TRANSPORT_IB, "InfiniBand" },
	{ IBV_TRANSPORT_IWARP, "iWARP" },
	{ IBV_TRANSPORT_USNIC, "usNIC" },
	{ IBV_TRANSPORT_USNIC_UDP, "usNIC UDP" },
};

static const struct name_val port_states[] = {
	{ IBV_PORT_DOWN, "PORT_DOWN" },
	{ IBV_PORT_INIT, "PORT_INIT" },
	{ IBV_PORT_ARMED, "PORT_ARMED" },
	{ IBV_PORT_ACTIVE, "PORT_ACTIVE" },
};

/* ibv_devinfo's spelling, kept for scripts that match on it. */
static const struct name_val phys_states[] = {
	{ 1, "SLEEP" },
	{ 2, "POLLING" },
	{ 3, "DISABLED" },
	{ 4, "PORT_CONFIGURATION TRAINNING" },
	{ 5, "LINK_UP" },
	{ 6, "LINK_ERROR_RECOVERY" },
	{ 7, "PHY TEST" },
};

static const struct name_val atomic_caps[] = {
	{ IBV_ATOMIC_NONE, "ATOMIC_NONE" },
	{ IBV_ATOMIC_HCA, "ATOMIC_HCA" },
	{ IBV_ATOMIC_GLOB, "ATOMIC_GLOB" },
};

static const struct name_val mtus[] = {
	{ IBV_MTU_256, "256" },
	{ IBV_MTU_512, "512" },
	{ IBV_MTU_1024, "1024" },
	{ IBV_MTU_2048, "2048" },
	{ IBV_MTU_4096, "4096" },
};

static const struct name_val widths[] = {
	{ 1, "1" }, { 2, "4" }, { 4, "8" }, { 8, "12" }, { 16, "2" },
};

static const struct name_val speeds[] = {
	{ 1, "2.5 Gbps" },   { 2, "5.0 Gbps" },    { 4, "10.0 Gbps" },
	{ 8, "10.0 Gbps" },  { 16, "14.0 Gbps" },  { 32, "25.0 Gbps" },
	{ 64, "50.0 Gbps" }, { 128, "100.0 Gbps" }, { 256, "200.0 Gbps" },
};

static const struct name_val vls[] = {
	{ 1, "1" }, { 2, "2" }, { 3, "4" }, { 4, "8" }, { 5, "15" },
};

static const struct name_val link_layers[] = {
	{ IBV_LINK_LAYER_UNSPECIFIED, "InfiniBand" },
	{ IBV_LINK_LAYER_INFINIBAND, "InfiniBand" },
	{ IBV_LINK_LAYER_ETHERNET, "Ethernet" },
};

static const struct name_val dev_caps[] = {
	{ IBV_DEVICE_RESIZE_MAX_WR, "RESIZE_MAX_WR" },
	{ IBV_DEVICE_BAD_PKEY_CNTR, "BAD_PKEY_CNTR" },
	{ IBV_DEVICE_BAD_QKEY_CNTR, "BAD_QKEY_CNTR" },
	{ IBV_DEVICE_RAW_MULTI, "RAW_MULTI" },
	{ IBV_DEVICE_AUTO_PATH_MIG, "AUTO_PATH_MIG" },
	{ IBV_DEVICE_CHANGE_PHY_PORT, "CHANGE_PHY_PORT" },
	{ IBV_DEVICE_UD_AV_PORT_ENFORCE, "UD_AV_PORT_ENFORCE" },
	{ IBV_DEVICE_CURR_QP_STATE_MOD, "CURR_QP_STATE_MOD" },
	{ IBV_DEVICE_SHUTDOWN_PORT, "SHUTDOWN_PORT" },
	{ IBV_DEVICE_INIT_TYPE, "INIT_TYPE" },
	{ IBV_DEVICE_PORT_ACTIVE_EVENT, "PORT_ACTIVE_EVENT" },
	{ IBV_DEVICE_SYS_IMAGE_GUID, "SYS_IMAGE_GUID" },
	{ IBV_DEVICE_RC_RNR_NAK_GEN, "RC_RNR_NAK_GEN" },
	{ IBV_DEVICE_SRQ_RESIZE, "SRQ_RESIZE" },
	{ IBV_DEVICE_N_NOTIFY_CQ, "N_NOTIFY_CQ" },
	{ IBV_DEVICE_MEM_WINDOW, "MEM_WINDOW" },
	{ IBV_DEVICE_UD_IP_CSUM, "UD_IP_CSUM" },
	{ IBV_DEVICE_XRC, "XRC" },
	{ IBV_DEVICE_MEM_MGT_EXTENSIONS, "MEM_MGT_EXTENSIONS" },
	{ IBV_DEVICE_MEM_WINDOW_TYPE_2A, "MEM_WINDOW_TYPE_2A" },
	{ IBV_DEVICE_MEM_WINDOW_TYPE_2B, "MEM_WINDOW_TYPE_2B" },
	{ IBV_DEVICE_RC_IP_CSUM, "RC_IP_CSUM" },
	{ IBV_DEVICE_RAW_IP_CSUM, "RAW_IP_CSUM" },
	{ IBV_DEVICE_MANAGED_FLOW_STEERING, "MANAGED_FLOW_STEERING" },
};

static const char *guid_str(__be64 be, char *buf, size_t size)
{
	uint64_t guid = be64toh(be);

	snprintf(buf, size, "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
	return buf;
}

static void print_cap_flags(unsigned int flags)
{
	unsigned int known = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dev_caps); i++) {
		known |= dev_caps[i].val;
		if (flags & dev_caps[i].val)
			printf("\t\t\t\t\t%s\n", dev_caps[i].name);
	}
	if (flags & ~known)
		printf("\t\t\t\t\tUnknown flags: 0x%X\n", flags & ~known);
}

static void print_device_limits(const struct ibv_device_attr *a)
{
	dev_field("max_mr_size", "0x%llx", (unsigned long long)a->max_mr_size);
	dev_field("page_size_cap", "0x%llx",
		  (unsigned long long)a->page_size_cap);
	dev_field("max_qp", "%d", a->max_qp);
	dev_field("max_qp_wr", "%d", a->max_qp_wr);
	dev_field("device_cap_flags", "0x%08x", a->device_cap_flags);
	print_cap_flags(a->device_cap_flags);
	dev_field("max_sge", "%d", a->max_sge);
	dev_field("max_sge_rd", "%d", a->max_sge_rd);
	dev_field("max_cq", "%d", a->max_cq);
	dev_field("max_cqe", "%d", a->max_cqe);
	dev_field("max_mr", "%d", a->max_mr);
	dev_field("max_pd", "%d", a->max_pd);
	dev_field("max_qp_rd_atom", "%d", a->max_qp_rd_atom);
	dev_field("max_ee_rd_atom", "%d", a->max_ee_rd_atom);
	dev_field("max_res_rd_atom", "%d", a->max_res_rd_atom);
	dev_field("max_qp_init_rd_atom", "%d", a->max_qp_init_rd_atom);
	dev_field("max_ee_init_rd_atom", "%d", a->max_ee_init_rd_atom);
	dev_field("atomic_cap", "%s (%d)",
		  LOOKUP(atomic_caps, a->atomic_cap,
			 "invalid atomic capability"),
		  a->atomic_cap);
	dev_field("max_ee", "%d", a->max_ee);
	dev_field("max_rdd", "%d", a->max_rdd);
	dev_field("max_mw", "%d", a->max_mw);
	dev_field("max_raw_ipv6_qp", "%d", a->max_raw_ipv6_qp);
	dev_field("max_raw_ethy_qp", "%d", a->max_raw_ethy_qp);
	dev_field("max_mcast_grp", "%d", a->max_mcast_grp);
	dev_field("max_mcast_qp_attach", "%d", a->max_mcast_qp_attach);
	dev_field("max_total_mcast_qp_attach", "%d",
		  a->max_total_mcast_qp_attach);
	dev_field("max_ah", "%d", a->max_ah);
	dev_field("max_fmr", "%d", a->max_fmr);
	if (a->max_fmr)
		dev_field("max_map_per_fmr", "%d", a->max_map_per_fmr);
	dev_field("max_srq", "%d", a->max_srq);
	if (a->max_srq) {
		dev_field("max_srq_wr", "%d", a->max_srq_wr);
		dev_field("max_srq_sge", "%d", a->max_srq_sge);
	}
	dev_field("max_pkeys", "%d", a->max_pkeys);
	dev_field("local_ca_ack_delay", "%d", a->local_ca_ack_delay);
}

/* Print the non-empty GID table entries; 0 or the failing query's errno. */
static int print_gids(struct ibv_context *ctx, uint8_t port, int len)
{
	static const uint8_t zero[8];
	union ibv_gid gid;
	char name[16];
	int i;

	for (i = 0; i < len; i++) {
		const uint8_t *g = gid.raw;

		if (ibv_query_gid(ctx, port, i, &gid)) {
			int err = errno;

			fprintf(stderr,
				"Failed to query gid to port %u, index %d\n",
				port, i);
			return err ? err : EIO;
		}
		/* An entry without interface id is empty. */
		if (!memcmp(gid.raw + 8, zero, sizeof(zero)))
			continue;
		snprintf(name, sizeof(name), "GID[%3d]", i);
		port_field(name,
			   "%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
			   "%02x%02x:%02x%02x:%02x%02x:%02x%02x",
			   g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7],
			   g[8], g[9], g[10], g[11], g[12], g[13], g[14],
			   g[15]);
	}
	return 0;
}

static void print_port_details(const struct ibv_device *dev,
			       const struct ibv_port_attr *p)
{
	unsigned int speed = p->active_speed_ex ? p->active_speed_ex :
						  p->active_speed;

	port_field("max_msg_sz", "0x%x", p->max_msg_sz);
	port_field("port_cap_flags", "0x%08x", p->port_cap_flags);
	port_field("port_cap_flags2", "0x%04x", p->port_cap_flags2);
	port_field("max_vl_num", "%s (%d)",
		   LOOKUP(vls, p->max_vl_num, "invalid value"), p->max_vl_num);
	port_field("bad_pkey_cntr", "0x%x", p->bad_pkey_cntr);
	port_field("qkey_viol_cntr", "0x%x", p->qkey_viol_cntr);
	port_field("sm_sl", "%d", p->sm_sl);
	port_field("pkey_tbl_len", "%d", p->pkey_tbl_len);
	port_field("gid_tbl_len", "%d", p->gid_tbl_len);
	port_field("subnet_timeout", "%d", p->subnet_timeout);
	port_field("init_type_reply", "%d", p->init_type_reply);
	port_field("active_width", "%sX (%d)",
		   LOOKUP(widths, p->active_width, "invalid width"),
		   p->active_width);
	port_field("active_speed", "%s (%u)",
		   LOOKUP(speeds, speed, "invalid speed"), speed);
	if (dev->transport_type == IBV_TRANSPORT_IB)
		port_field("phys_state", "%s (%d)",
			   LOOKUP(phys_states, p->phys_state,
				  "invalid physical state"),
			   p->phys_state);
}

/* Print port @port; 0 or the errno of the failed query. */
static int print_port(struct ibv_device *dev, struct ibv_context *ctx,
		      uint8_t port)
{
	struct ibv_port_attr p;
	int ret;

	ret = ibv_query_port(ctx, port, &p);
	if (ret) {
		fprintf(stderr, "Failed to query port %u props\n", port);
		return ret;
	}
	field(2, 24, "port", "%u", port);
	port_field("state", "%s (%d)",
		   LOOKUP(port_states, p.state, "invalid state"), p.state);
	port_field("max_mtu", "%s (%d)",
		   LOOKUP(mtus, p.max_mtu, "invalid MTU"), p.max_mtu);
	port_field("active_mtu", "%s (%d)",
		   LOOKUP(mtus, p.active_mtu, "invalid MTU"), p.active_mtu);
	port_field("sm_lid", "%d", p.sm_lid);
	port_field("port_lid", "%d", p.lid);
	port_field("port_lmc", "0x%02x", p.lmc);
	port_field("link_layer", "%s",
		   LOOKUP(link_layers, p.link_layer, "Unknown"));
	if (verbose) {
		print_port_details(dev, &p);
		ret = print_gids(ctx, port, p.gid_tbl_len);
		if (ret)
			return ret;
	}
	putchar('\n');
	return 0;
}

/*
 * The board_id file of the device's sysfs directory (ibdev_path), as
 * ibv_devinfo reads it: without its newline, and only if not empty.
 */
static void print_board_id(const struct ibv_device *dev)
{
	char path[IBV_SYSFS_PATH_MAX + sizeof("/board_id")], buf[256];
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/board_id", dev->ibdev_path);
	f = fopen(path, "re");
	if (!f)
		return;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (len && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	if (len)
		dev_field("board_id", "%s", buf);
}

/* Print device @dev (all ports, or only @port if not 0). */
static int print_device(struct ibv_device *dev, unsigned int port)
{
	struct ibv_device_attr a;
	struct ibv_context *ctx;
	char buf[32];
	unsigned int p;
	int ret = 0;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		fprintf(stderr, "Failed to open device\n");
		return 1;
	}
	if (ibv_query_device(ctx, &a)) {
		fprintf(stderr, "Failed to query device props\n");
		ret = 2;
		goto out;
	}
	if (port > a.phys_port_cnt) {
		fprintf(stderr, "Invalid port requested for device\n");
		ret = 4;
		goto out;
	}

	field(0, 8, "hca_id", "%s", ibv_get_device_name(dev));
	dev_field("transport", "%s (%d)",
		  LOOKUP(transports, (unsigned int)dev->transport_type,
			 "invalid transport"),
		  dev->transport_type);
	if (a.fw_ver[0])
		dev_field("fw_ver", "%s", a.fw_ver);
	dev_field("node_guid", "%s", guid_str(a.node_guid, buf, sizeof(buf)));
	dev_field("sys_image_guid", "%s",
		  guid_str(a.sys_image_guid, buf, sizeof(buf)));
	dev_field("vendor_id", "0x%04x", a.vendor_id);
	dev_field("vendor_part_id", "%u", a.vendor_part_id);
	dev_field("hw_ver", "0x%X", a.hw_ver);
	print_board_id(dev);
	dev_field("phys_port_cnt", "%d", a.phys_port_cnt);
	if (verbose) {
		print_device_limits(&a);
		dev_field("num_comp_vectors", "%d", ctx->num_comp_vectors);
	}

	for (p = 1; p <= a.phys_port_cnt; p++) {
		if (port && p != port)
			continue;
		ret = print_port(dev, ctx, (uint8_t)p);
		if (ret)
			break;
	}
out:
	if (ibv_close_device(ctx)) {
		fprintf(stderr, "Failed to close device\n");
		ret = 3;
	}
	return ret;
}

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"Usage: %s             print the ca attributes\n"
		"\n"
		"Options:\n"
		"  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n"
		"  -i, --ib-port=<port>   use port <port> of IB device (default all ports)\n"
		"  -l, --list             print only the IB devices names\n"
		"  -v, --verbose          print all the attributes of the IB device(s)\n"
		"  -h, --help             print this help\n",
		argv0);
}

static int list_devices(void)
{
	struct ibv_device **list;
	int num, i;

	list = ibv_get_device_list(&num);
	if (!list) {
		perror("Failed to get IB devices list");
		return 255;
	}
	printf("%d HCA%s found:\n", num, num != 1 ? "s" : "");
	for (i = 0; i < num; i++)
		printf("\t%s\n", ibv_get_device_name(list[i]));
	putchar('\n');
	ibv_free_device_list(list);
	return 0;
}

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ .name = "ib-dev", .has_arg = 1, .val = 'd' },
		{ .name = "ib-port", .has_arg = 1, .val = 'i' },
		{ .name = "list", .has_arg = 0, .val = 'l' },
		{ .name = "verbose", .has_arg = 0, .val = 'v' },
		{ .name = "help", .has_arg = 0, .val = 'h' },
		{ 0 }
	};
	struct ibv_device **list, **dev;
	const char *devname = NULL;
	unsigned long port = 0;
	int list_only = 0;
	int ret = 0;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "d:i:lvh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			devname = optarg;
			break;
		case 'i':
			errno = 0;
			port = strtoul(optarg, &end, 0);
			if (errno || *end || !*optarg || port < 1 ||
			    port > 255) {
				usage(stderr, argv[0]);
				return 1;
			}
			break;
		case 'l':
			list_only = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 255;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0],
			argv[optind]);
		usage(stderr, argv[0]);
		return 255;
	}
	if (list_only)
		return list_devices();

	list = ibv_get_device_list(NULL);
	if (!list) {
		perror("Failed to get IB devices list");
		return 255;
	}
	if (devname) {
		for (dev = list; *dev; dev++)
			if (!strcmp(ibv_get_device_name(*dev), devname))
				break;
		if (!*dev) {
			fprintf(stderr, "IB device '%s' wasn't found\n",
				devname);
			ret = 255;
		} else {
			ret = print_device(*dev, (unsigned int)port);
		}
	} else if (!list[0]) {
		fprintf(stderr, "No IB devices found\n");
		ret = 255;
	} else {
		for (dev = list; *dev; dev++)
			ret |= print_device(*dev, (unsigned int)port);
	}
	ibv_free_device_list(list);
	return ret;
}
