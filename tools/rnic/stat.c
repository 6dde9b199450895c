// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic stat: the counters of rnic devices (RNIC_NL_CMD_STAT_GET).
 */
#include <rdma/rnic-netlink.h>

#include "rnic.h"

void stat_usage(FILE *f)
{
	fprintf(f,
		"Usage: rnic stat[istic] [ { show | list } [ DEV ] ]\n"
		"       rnic stat[istic] help\n");
}

static void stat_help_text(FILE *f)
{
	const char *name;
	unsigned int i;

	stat_usage(f);
	fprintf(f,
		"\n"
		"  show  show the counters of every device, or of device DEV\n"
		"        (the default).\n"
		"\n"
		"Text output, one line per device:\n"
		"  INDEX: NAME: port 1 COUNTER N ...\n"
		"JSON output (-j): an array of objects with the members ifindex,\n"
		"ifname, port and one per counter.\n"
		"\n"
		"Counters (rnic(8) says what each counts):");
	for (i = 0; i <= RNIC_NL_COUNTER_MAX; i++) {
		name = rnic_counter_name(i);
		if (name)
			fprintf(f, "%s%s", i % 4 == 1 ? "\n  " : " ", name);
	}
	fputc('\n', f);
}

int stat_print(const void *stat, void *arg)
{
	const struct rnic_stat_info *info = stat;
	struct rnic *rd = arg;
	const char *name;
	unsigned int i;
	char fmt[48];

	out_start_object(rd, NULL);
	rd->text_line_start = true;
	if (info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_DEV_INDEX))
		out_uint(rd, "ifindex", "%s:", info->index);
	out_str(rd, "ifname", "%s:", info->name);
	if (info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_PORT_INDEX))
		out_uint(rd, "port", "port %s", info->port);
	for (i = 0; i <= RNIC_NL_COUNTER_MAX; i++) {
		name = rnic_counter_name(i);
		if (!name || !(info->has & (UINT64_C(1) << i)))
			continue;	/* a kernel that does not count it */
		snprintf(fmt, sizeof(fmt), "%s %%s", name);
		out_uint(rd, name, fmt, info->counters[i]);
	}
	out_newline(rd, -1);
	out_end_object(rd);
	return 0;
}

static int stat_show(struct rnic *rd)
{
	const char *name = NULL;

	if (!rd_no_arg(rd)) {
		name = rd_arg(rd);
		rd_next(rd);
	}
	if (!rd_no_arg(rd))
		return rnic_usage_error(stat_usage, "stat show: unexpected argument '%s'",
					rd_arg(rd));
	return rnic_show_one_or_all(rd, RNIC_NL_CMD_STAT_GET, name,
				    rnic_stat_parse,
				    sizeof(struct rnic_stat_info), stat_print);
}

static int stat_help(struct rnic *rd)
{
	if (!rd_no_arg(rd))
		return rnic_usage_error(stat_usage, "stat help: unexpected argument '%s'",
					rd_arg(rd));
	stat_help_text(stdout);
	return RNIC_EXIT_OK;
}

static const struct rnic_tool_cmd stat_cmds[] = {
	{ "show", stat_show },
	{ "list", stat_show },
	{ "help", stat_help },
	{ NULL, NULL },
};

int cmd_stat(struct rnic *rd)
{
	rd->object = "stat";
	return rnic_dispatch(rd, stat_cmds, stat_show, stat_usage);
}
