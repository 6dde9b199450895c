// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic link: create, remove and show rnic devices.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rnic-netlink.h>

#include "rnic.h"

void link_usage(FILE *f)
{
	fprintf(f,
		"Usage: rnic link add NAME [ netdev IFNAME ] [ max_burst BYTES ]\n"
		"       rnic link { del | delete } NAME\n"
		"       rnic link set NAME [ clear ] [ { drop | duplicate | corrupt | delay } RATE ]\n"
		"                          [ delay_us USEC ] [ { rnr | rem_access | retry_exc } N ]\n"
		"       rnic link [ { show | list } [ NAME ] ]\n"
		"       rnic link help\n");
}

static void link_help_text(FILE *f)
{
	link_usage(f);
	fprintf(f,
		"\n"
		"  add   create device NAME (1 to 63 bytes, no '/', ':' or white\n"
		"        space); with netdev, bind it to network device IFNAME,\n"
		"        whose IP addresses fill its GID table; with max_burst,\n"
		"        a request carries at most BYTES of a SEND or WRITE\n"
		"        message, in whole packets (below the MTU: one packet per\n"
		"        request, as on a wire). Needs CAP_NET_ADMIN.\n"
		"  del   remove device NAME. Needs CAP_NET_ADMIN.\n"
		"  set   fault injection on device NAME; the settings given change,\n"
		"        the others stay (clear: all to 0 first). Needs CAP_NET_ADMIN.\n"
		"        drop, duplicate, corrupt, delay: that fraction of the packets\n"
		"          the device sends is dropped, sent twice, sent damaged (the\n"
		"          receiver drops it as a bad ICRC) or held back delay_us\n"
		"          microseconds (a wire link only: the local link cannot).\n"
		"          RATE is a percentage (20, 0.5%%, to 4 decimals) or parts\n"
		"          per million (5000ppm).\n"
		"        rnr, rem_access, retry_exc: the next N RC messages that need\n"
		"          a receive WQE get an RNR NAK; the next N RDMA WRITE, READ\n"
		"          and atomic requests a remote access error NAK; every\n"
		"          packet of the next N work requests sent is dropped, so that\n"
		"          they end in IBV_WC_RETRY_EXC_ERR.\n"
		"  show  show every device, or device NAME (the default).\n"
		"\n"
		"Text output, one block per device:\n"
		"  INDEX: NAME: UVERBS port 1 state STATE physical_state PHYS active_mtu N\n"
		"      [netdev IFNAME netdev_mtu N] [max_burst N] contexts N\n"
		"                                    (all on one line)\n"
		"      node_guid XXXX:XXXX:XXXX:XXXX\n"
		"      [fault drop RATE duplicate RATE corrupt RATE delay RATE delay_us N\n"
		"       rnr N rem_access N retry_exc N  (on one line; N: what is left\n"
		"                                    of the counts)\n"
		"      fault_drop N fault_duplicate N ... fault_retry_exc N]\n"
		"                                    (the faults applied; both lines if a\n"
		"                                    fault is set or was applied)\n"
		"      gid INDEX GID                 (one line per GID table entry)\n"
		"JSON output (-j): an array of objects with the members ifindex, ifname,\n"
		"uverbs, port, state, physical_state, active_mtu, netdev, netdev_index,\n"
		"netdev_mtu, max_burst, contexts, node_guid, fault ({\"drop\": PPM, ...,\n"
		"\"delay_us\": N, \"rnr\": N, ..., \"fault_drop\": N, ...}, rates in parts\n"
		"per million) and gids ([{\"index\": N, \"gid\": \"...\"}]); netdev members\n"
		"only for a bound device, max_burst only if it was set. Every counter is\n"
		"shown by 'rnic stat'.\n");
}

static bool has(const struct rnic_link_info *info, unsigned int attr)
{
	return info->attrs & (UINT64_C(1) << attr);
}

/* One printer per attribute, in output order. */

static void pr_index(struct rnic *rd, const struct rnic_link_info *info)
{
	if (has(info, RNIC_NL_ATTR_DEV_INDEX))
		out_uint(rd, "ifindex", "%s:", info->index);
}

static void pr_name(struct rnic *rd, const struct rnic_link_info *info)
{
	out_str(rd, "ifname", "%s:", info->name);
}

static void pr_uverbs(struct rnic *rd, const struct rnic_link_info *info)
{
	if (has(info, RNIC_NL_ATTR_UVERBS))
		out_str(rd, "uverbs", "%s", info->uverbs);
}

static void pr_port(struct rnic *rd, const struct rnic_link_info *info)
{
	if (has(info, RNIC_NL_ATTR_PORT_INDEX))
		out_uint(rd, "port", "port %s", info->port);
}

static void pr_state(struct rnic *rd, const struct rnic_link_info *info)
{
	char buf[RNIC_STATE_STRLEN];

	if (has(info, RNIC_NL_ATTR_PORT_STATE))
		out_str(rd, "state", "state %s",
			rnic_port_state_str(info->port_state, buf));
}

static void pr_phys_state(struct rnic *rd, const struct rnic_link_info *info)
{
	char buf[RNIC_STATE_STRLEN];

	if (has(info, RNIC_NL_ATTR_PORT_PHYS_STATE))
		out_str(rd, "physical_state", "physical_state %s",
			rnic_phys_state_str(info->phys_state, buf));
}

static void pr_active_mtu(struct rnic *rd, const struct rnic_link_info *info)
{
	if (has(info, RNIC_NL_ATTR_ACTIVE_MTU))
		out_uint(rd, "active_mtu", "active_mtu %s", info->active_mtu);
}

static void pr_netdev(struct rnic *rd, const struct rnic_link_info *info)
{
	if (has(info, RNIC_NL_ATTR_NETDEV))
		out_str(rd, "netdev", "netdev %s", info->netdev);
}

static void pr_netdev_index(struct rnic *rd, const struct rnic_link_info *info)
{
	/* The name says enough in text output. */
	if (rd->jw && has(info, RNIC_NL_ATTR_NETDEV_INDEX))
		out_uint(rd, "netdev_index", "%s", info->netdev_index);
}

static void pr_netdev_mtu(struct rnic *rd, const struct rnic_link_info *info)
{
	if (has(info, RNIC_NL_ATTR_NETDEV_MTU))
		out_uint(rd, "netdev_mtu", "netdev_mtu %s", info->netdev_mtu);
}

static void pr_max_burst(struct rnic *rd, const struct rnic_link_info *info)
{
	if (has(info, RNIC_NL_ATTR_MAX_BURST))
		out_uint(rd, "max_burst", "max_burst %s", info->max_burst);
}

static void pr_contexts(struct rnic *rd, const struct rnic_link_info *info)
{
	if (has(info, RNIC_NL_ATTR_CONTEXTS))
		out_uint(rd, "contexts", "contexts %s", info->contexts);
}

static void pr_node_guid(struct rnic *rd, const struct rnic_link_info *info)
{
	char buf[RNIC_GUID_STRLEN];

	if (!has(info, RNIC_NL_ATTR_NODE_GUID))
		return;
	out_newline(rd, 4);
	out_str(rd, "node_guid", "node_guid %s",
		rnic_fmt_guid(info->node_guid_be, buf));
}

/* Is setting @i of enum rnic_nl_fault a rate (parts per million)? */
static bool fault_is_rate(unsigned int i)
{
	return i == RNIC_NL_FAULT_DROP || i == RNIC_NL_FAULT_DUPLICATE ||
	       i == RNIC_NL_FAULT_CORRUPT || i == RNIC_NL_FAULT_DELAY;
}

/* Parts per million as a percentage: "20%", "0.0005%". */
static const char *fmt_ppm(uint32_t ppm, char buf[RNIC_PPM_STRLEN])
{
	int n;

	n = snprintf(buf, RNIC_PPM_STRLEN, "%u.%04u", ppm / 10000,
		     ppm % 10000);
	while (buf[n - 1] == '0')
		n--;
	if (buf[n - 1] == '.')
		n--;
	snprintf(buf + n, RNIC_PPM_STRLEN - n, "%%");
	return buf;
}

/* The counters of the faults applied, shown with the settings. */
static const unsigned int fault_counters[] = {
	RNIC_NL_COUNTER_FAULT_DROP, RNIC_NL_COUNTER_FAULT_DUPLICATE,
	RNIC_NL_COUNTER_FAULT_CORRUPT, RNIC_NL_COUNTER_FAULT_DELAY,
	RNIC_NL_COUNTER_FAULT_RNR, RNIC_NL_COUNTER_FAULT_REM_ACCESS,
	RNIC_NL_COUNTER_FAULT_RETRY_EXC,
};
#define N_FAULT_COUNTERS (sizeof(fault_counters) / sizeof(fault_counters[0]))

/* The counters of device @name in rd->stats, or NULL. */
static const struct rnic_stat_info *find_stats(const struct rnic *rd,
					       const char *name)
{
	size_t i;

	for (i = 0; i < rd->n_stats; i++)
		if (!strcmp(rd->stats[i].name, name))
			return &rd->stats[i];
	return NULL;
}

/* Did a fault counter of @st count anything? */
static bool faults_counted(const struct rnic_stat_info *st)
{
	size_t i;

	for (i = 0; st && i < N_FAULT_COUNTERS; i++)
		if (st->counters[fault_counters[i]])
			return true;
	return false;
}

static void pr_fault_counters(struct rnic *rd, const struct rnic_stat_info *st)
{
	char fmt[48];
	size_t i;

	if (!st)
		return;
	out_newline(rd, 4);
	for (i = 0; i < N_FAULT_COUNTERS; i++) {
		const char *name = rnic_counter_name(fault_counters[i]);

		if (!name || !(st->has & (UINT64_C(1) << fault_counters[i])))
			continue;	/* a kernel without it */
		snprintf(fmt, sizeof(fmt), "%s %%s", name);
		out_uint(rd, name, fmt, st->counters[fault_counters[i]]);
	}
}

static void pr_fault(struct rnic *rd, const struct rnic_link_info *info)
{
	const struct rnic_stat_info *st = find_stats(rd, info->name);
	const struct rnic_link_fault *f = &info->fault;
	char fmt[32], buf[RNIC_PPM_STRLEN];
	bool set = faults_counted(st);
	unsigned int i;

	if (!has(info, RNIC_NL_ATTR_FAULT))
		return;
	for (i = 0; i <= RNIC_NL_FAULT_MAX; i++)
		set = set || f->val[i];
	/* text: only when a fault is on or was applied; JSON: always */
	if (!rd->jw && !set)
		return;
	out_newline(rd, 4);
	out_start_object(rd, "fault");
	out_label(rd, "fault");
	for (i = 0; i <= RNIC_NL_FAULT_MAX; i++) {
		const char *name = rnic_fault_name(i);

		if (!name || !(f->has & (UINT32_C(1) << i)))
			continue;	/* a kernel without it */
		snprintf(fmt, sizeof(fmt), "%s %%s", name);
		if (fault_is_rate(i) && !rd->jw)
			out_str(rd, name, fmt, fmt_ppm(f->val[i], buf));
		else
			out_uint(rd, name, fmt, f->val[i]);
	}
	pr_fault_counters(rd, st);
	out_end_object(rd);
}

static void pr_gids(struct rnic *rd, const struct rnic_link_info *info)
{
	char buf[RNIC_GID_STRLEN];
	unsigned int i;

	if (!has(info, RNIC_NL_ATTR_GID_TABLE))
		return;
	out_start_array(rd, "gids");
	for (i = 0; i < info->n_gids; i++) {
		out_newline(rd, 4);
		out_start_object(rd, NULL);
		out_uint(rd, "index", "gid %s", info->gids[i].index);
		out_str(rd, "gid", "%s", rnic_fmt_gid(info->gids[i].gid, buf));
		out_end_object(rd);
	}
	out_end_array(rd);
	if (info->gids_truncated)
		fprintf(stderr, "rnic: %s: only the first %u GIDs are shown\n",
			info->name, RNIC_LINK_MAX_GIDS);
}

int link_print(const void *dev, void *arg)
{
	const struct rnic_link_info *info = dev;
	struct rnic *rd = arg;

	out_start_object(rd, NULL);
	rd->text_line_start = true;
	pr_index(rd, info);
	pr_name(rd, info);
	pr_uverbs(rd, info);
	pr_port(rd, info);
	pr_state(rd, info);
	pr_phys_state(rd, info);
	pr_active_mtu(rd, info);
	pr_netdev(rd, info);
	pr_netdev_index(rd, info);
	pr_netdev_mtu(rd, info);
	pr_max_burst(rd, info);
	pr_contexts(rd, info);
	pr_node_guid(rd, info);
	pr_fault(rd, info);
	pr_gids(rd, info);
	out_newline(rd, -1);
	out_end_object(rd);
	return 0;
}

/* rnic_genl_each_t: keep one device's counters in rd->stats. */
static int keep_stats(const void *info, void *arg)
{
	struct rnic *rd = arg;
	struct rnic_stat_info *more;

	more = realloc(rd->stats, (rd->n_stats + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	rd->stats = more;
	memcpy(&rd->stats[rd->n_stats++], info, sizeof(*more));
	return 0;
}

static int link_show(struct rnic *rd)
{
	const char *name = NULL;
	int ret;

	if (!rd_no_arg(rd)) {
		name = rd_arg(rd);
		rd_next(rd);
	}
	if (!rd_no_arg(rd))
		return rnic_usage_error(link_usage, "link show: unexpected argument '%s'",
					rd_arg(rd));
	ret = rnic_nl_open(rd);
	if (ret)
		return ret;
	/*
	 * The fault counters shown with the settings. Without them (no
	 * such device: the GET below says so) the line has the settings.
	 */
	if (rnic_genl_dump(rd->nl, RNIC_NL_CMD_STAT_GET, name, rnic_stat_parse,
			   sizeof(struct rnic_stat_info), keep_stats, rd))
		rd->n_stats = 0;
	ret = rnic_show_one_or_all(rd, RNIC_NL_CMD_LINK_GET, name,
				   rnic_link_parse,
				   sizeof(struct rnic_link_info), link_print);
	free(rd->stats);
	rd->stats = NULL;
	rd->n_stats = 0;
	return ret;
}

/* BYTES of max_burst: a decimal number from 1 to UINT32_MAX. */
static bool parse_bytes(const char *s, uint32_t *v)
{
	unsigned long n;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || !n || n > UINT32_MAX)
		return false;
	*v = n;
	return true;
}

static int link_add(struct rnic *rd)
{
	const char *name, *netdev = NULL;
	uint32_t max_burst = 0;
	int ret;

	if (rd_no_arg(rd))
		return rnic_usage_error(link_usage, "link add: device name expected");
	name = rd_arg(rd);
	rd_next(rd);

	while (!rd_no_arg(rd)) {
		const char *kw = rd_arg(rd);

		rd_next(rd);
		if (rnic_keyword(kw, "netdev")) {
			if (netdev)
				return rnic_usage_error(link_usage, "link add: netdev given twice");
			if (rd_no_arg(rd))
				return rnic_usage_error(link_usage, "link add: netdev: interface name expected");
			netdev = rd_arg(rd);
		} else if (rnic_keyword(kw, "max_burst")) {
			if (max_burst)
				return rnic_usage_error(link_usage, "link add: max_burst given twice");
			if (rd_no_arg(rd) || !parse_bytes(rd_arg(rd), &max_burst))
				return rnic_usage_error(link_usage, "link add: max_burst: a number of bytes from 1 expected");
		} else {
			return rnic_usage_error(link_usage, "link add: unknown option '%s'",
						kw);
		}
		rd_next(rd);
	}

	ret = rnic_nl_open(rd);
	if (ret)
		return ret;
	ret = rnic_link_add_burst(rd->nl, name, netdev, max_burst);
	return ret ? rnic_nl_error(rd, ret) : RNIC_EXIT_OK;
}

/*
 * A fault RATE: a percentage with at most 4 decimals and an optional '%'
 * ("20", "0.5%"), or parts per million with "ppm" ("5000ppm"). Values
 * above 100% parse; the kernel refuses them with its message.
 */
static bool parse_rate(const char *s, uint32_t *ppm)
{
	unsigned long whole, frac = 0, scale = 10000;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	whole = strtoul(s, &end, 10);
	if (errno)
		return false;
	if (!strcmp(end, "ppm")) {
		if (whole > UINT32_MAX)
			return false;
		*ppm = whole;
		return true;
	}
	if (*end == '.') {
		for (end++; *end >= '0' && *end <= '9'; end++) {
			if (scale == 1)
				return false;	/* a fifth decimal */
			scale /= 10;
			frac += (unsigned long)(*end - '0') * scale;
		}
		if (scale == 10000)
			return false;		/* "5." */
	}
	if (*end == '%')
		end++;
	if (*end || whole > UINT32_MAX / 10000 - 1)
		return false;
	*ppm = whole * 10000 + frac;
	return true;
}

/* A decimal number from 0 to UINT32_MAX (fault counts, delay_us). */
static bool parse_u32(const char *s, uint32_t *v)
{
	unsigned long n;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n > UINT32_MAX)
		return false;
	*v = n;
	return true;
}

/* The fault setting named @kw: its exact name, or one it abbreviates. */
static int fault_setting(const char *kw, bool *ambiguous)
{
	int i, found = -1;

	*ambiguous = false;
	for (i = 0; i <= RNIC_NL_FAULT_MAX; i++)
		if (rnic_fault_name(i) && !strcmp(kw, rnic_fault_name(i)))
			return i;
	for (i = 0; i <= RNIC_NL_FAULT_MAX; i++) {
		if (!rnic_fault_name(i) || !rnic_keyword(kw, rnic_fault_name(i)))
			continue;
		if (found >= 0) {
			*ambiguous = true;
			return -1;
		}
		found = i;
	}
	return found;
}

/* One "SETTING VALUE" of link set into @f. */
static int link_set_one(struct rnic *rd, const char *kw,
			struct rnic_link_fault *f)
{
	bool ambiguous;
	int i = fault_setting(kw, &ambiguous);
	const char *v;

	if (ambiguous)
		return rnic_usage_error(link_usage, "link set: '%s' is ambiguous",
					kw);
	if (i < 0)
		return rnic_usage_error(link_usage, "link set: unknown option '%s'",
					kw);
	if (f->has & (UINT32_C(1) << i))
		return rnic_usage_error(link_usage, "link set: %s given twice",
					rnic_fault_name(i));
	v = rd_no_arg(rd) ? "" : rd_arg(rd);
	if (fault_is_rate(i) ? !parse_rate(v, &f->val[i]) :
			       !parse_u32(v, &f->val[i]))
		return rnic_usage_error(link_usage, "link set: %s: %s expected",
					rnic_fault_name(i),
					fault_is_rate(i) ? "a rate (20, 0.5%, 5000ppm)" :
					"a number from 0");
	f->has |= UINT32_C(1) << i;
	rd_next(rd);
	return RNIC_EXIT_OK;
}

static int link_set(struct rnic *rd)
{
	struct rnic_link_fault f = { 0 };
	bool clear = false;
	const char *name;
	unsigned int i;
	int ret;

	if (rd_no_arg(rd))
		return rnic_usage_error(link_usage, "link set: device name expected");
	name = rd_arg(rd);
	rd_next(rd);
	if (!rd_no_arg(rd) && !strcmp(rd_arg(rd), "clear")) {
		clear = true;
		rd_next(rd);
	}
	while (!rd_no_arg(rd)) {
		const char *kw = rd_arg(rd);

		rd_next(rd);
		ret = link_set_one(rd, kw, &f);
		if (ret)
			return ret;
	}
	/* clear: what was not given is set to 0 */
	for (i = 0; clear && i <= RNIC_NL_FAULT_MAX; i++)
		if (rnic_fault_name(i))
			f.has |= UINT32_C(1) << i;
	if (!f.has)
		return rnic_usage_error(link_usage, "link set: nothing to set");

	ret = rnic_nl_open(rd);
	if (ret)
		return ret;
	ret = rnic_link_set_fault(rd->nl, name, &f);
	return ret ? rnic_nl_error(rd, ret) : RNIC_EXIT_OK;
}

static int link_del(struct rnic *rd)
{
	const char *name;
	int ret;

	if (rd_no_arg(rd))
		return rnic_usage_error(link_usage, "link del: device name expected");
	name = rd_arg(rd);
	rd_next(rd);
	if (!rd_no_arg(rd))
		return rnic_usage_error(link_usage, "link del: unexpected argument '%s'",
					rd_arg(rd));

	ret = rnic_nl_open(rd);
	if (ret)
		return ret;
	ret = rnic_link_del(rd->nl, name);
	return ret ? rnic_nl_error(rd, ret) : RNIC_EXIT_OK;
}

static int link_help(struct rnic *rd)
{
	if (!rd_no_arg(rd))
		return rnic_usage_error(link_usage, "link help: unexpected argument '%s'",
					rd_arg(rd));
	link_help_text(stdout);
	return RNIC_EXIT_OK;
}

static const struct rnic_tool_cmd link_cmds[] = {
	{ "show", link_show },
	{ "s", link_show },	/* as before set existed: not ambiguous */
	{ "list", link_show },
	{ "add", link_add },
	{ "set", link_set },
	{ "del", link_del },
	{ "delete", link_del },
	{ "help", link_help },
	{ NULL, NULL },
};

int cmd_link(struct rnic *rd)
{
	rd->object = "link";
	return rnic_dispatch(rd, link_cmds, link_show, link_usage);
}
