// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic res: resources (protection domains, memory regions, ...) held on
 * rnic devices, per device and per open verbs context.
 *
 * The counts are driven by RNIC_RES_KINDS (rnic_genl.h): a kind added
 * there is parsed and printed here without further change.
 */
#include <rdma/rnic-netlink.h>

#include "rnic.h"

void res_usage(FILE *f)
{
	fprintf(f,
		"Usage: rnic res[ource] [ { show | list } [ DEV ] ]\n"
		"       rnic res[ource] help\n");
}

static void res_help_text(FILE *f)
{
	unsigned int k;

	res_usage(f);
	fprintf(f,
		"\n"
		"  show  show the resources of every device, or of device DEV\n"
		"        (the default).\n"
		"\n"
		"Counts:");
	for (k = 0; k < RNIC_RES_NR_KINDS; k++)
		fprintf(f, " %s", rnic_res_kinds[k].name);
	fprintf(f,
		" (pinned in bytes).\n"
		"\n"
		"Text output, one line per device, then one per open verbs context:\n"
		"  INDEX: NAME: COUNTS\n"
		"      ctx ID pid PID COUNTS comm COMM\n"
		"where COUNTS is 'KIND N' for every count above, zeros included, and\n"
		"COMM, the process name, is the rest of the line.\n"
		"JSON output (-j): an array of objects with the members ifindex, ifname,\n"
		"the counts and contexts ([{\"ctx\": ID, \"pid\": PID, COUNTS,\n"
		"\"comm\": \"...\"}]).\n");
}

static void pr_counts(struct rnic *rd, uint64_t attrs, const uint64_t *counts)
{
	char fmt[48];
	unsigned int k;

	for (k = 0; k < RNIC_RES_NR_KINDS; k++) {
		if (!rnic_res_has(attrs, k))
			continue;	/* a kernel that does not count it */
		snprintf(fmt, sizeof(fmt), "%s %%s", rnic_res_kinds[k].name);
		out_uint(rd, rnic_res_kinds[k].name, fmt, counts[k]);
	}
}

/* Text: a process name may hold anything; keep it on its line. */
static void pr_comm(struct rnic *rd, const char *comm)
{
	char buf[RNIC_RES_COMM_SIZE];
	size_t i;

	if (rd->jw) {
		out_str(rd, "comm", "%s", comm);
		return;
	}
	for (i = 0; comm[i] && i < sizeof(buf) - 1; i++)
		buf[i] = (unsigned char)comm[i] < 0x20 || comm[i] == 0x7f ?
			 '?' : comm[i];
	buf[i] = '\0';
	out_str(rd, "comm", "comm %s", buf);
}

static void pr_ctx(struct rnic *rd, const struct rnic_res_ctx *c)
{
	out_newline(rd, 4);
	out_start_object(rd, NULL);
	out_uint(rd, "ctx", "ctx %s", c->id);
	if (c->attrs & (UINT64_C(1) << RNIC_NL_ATTR_CTX_PID))
		out_uint(rd, "pid", "pid %s", c->pid);
	pr_counts(rd, c->attrs, c->counts);
	if (c->attrs & (UINT64_C(1) << RNIC_NL_ATTR_CTX_COMM))
		pr_comm(rd, c->comm);
	out_end_object(rd);
}

int res_print(const void *res, void *arg)
{
	const struct rnic_res_info *info = res;
	struct rnic *rd = arg;
	unsigned int i;

	out_start_object(rd, NULL);
	rd->text_line_start = true;
	if (info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_DEV_INDEX))
		out_uint(rd, "ifindex", "%s:", info->index);
	out_str(rd, "ifname", "%s:", info->name);
	pr_counts(rd, info->attrs, info->counts);
	if (info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_CTX_TABLE)) {
		out_start_array(rd, "contexts");
		for (i = 0; i < info->n_ctxs; i++)
			pr_ctx(rd, &info->ctxs[i]);
		out_end_array(rd);
	}
	out_newline(rd, -1);
	out_end_object(rd);
	if (info->ctxs_truncated)
		fprintf(stderr, "rnic: %s: only the first %u contexts are shown\n",
			info->name, info->n_ctxs);
	return 0;
}

static int res_show(struct rnic *rd)
{
	const char *name = NULL;

	if (!rd_no_arg(rd)) {
		name = rd_arg(rd);
		rd_next(rd);
	}
	if (!rd_no_arg(rd))
		return rnic_usage_error(res_usage, "res show: unexpected argument '%s'",
					rd_arg(rd));
	return rnic_show_one_or_all(rd, RNIC_NL_CMD_RES_GET, name,
				    rnic_res_parse,
				    sizeof(struct rnic_res_info), res_print);
}

static int res_help(struct rnic *rd)
{
	if (!rd_no_arg(rd))
		return rnic_usage_error(res_usage, "res help: unexpected argument '%s'",
					rd_arg(rd));
	res_help_text(stdout);
	return RNIC_EXIT_OK;
}

static const struct rnic_cmd res_cmds[] = {
	{ "show", res_show },
	{ "list", res_show },
	{ "help", res_help },
	{ NULL, NULL },
};

int cmd_res(struct rnic *rd)
{
	rd->object = "res";
	return rnic_dispatch(rd, res_cmds, res_show, res_usage);
}
