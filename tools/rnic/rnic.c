// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic: management tool for rnic software RDMA devices.
 *
 * rnic [OPTIONS] OBJECT [COMMAND [ARGS]]: global options, then one
 * command table per object (one file per object), walked by
 * rnic_dispatch().
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include <rdma/rnic-netlink.h>

#include "rnic.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rnic [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       rnic [ -j[son] ] [ -p[retty] ] link [ show [ NAME ] ]\n"
		"       rnic [ -j[son] ] [ -p[retty] ] res[ource] [ show [ DEV ] ]\n"
		"       rnic [ -j[son] ] [ -p[retty] ] stat[istic] [ show [ DEV ] ]\n"
		"       rnic { -V[ersion] | -h[elp] | help }\n"
		"where  OBJECT := { link | res[ource] | stat[istic] | help }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -V[ersion] | -h[elp] }\n");
}

static void help_text(FILE *f)
{
	usage(f);
	fprintf(f,
		"\n"
		"Manage rnic software RDMA devices (generic netlink family '%s').\n"
		"\n"
		"Options (before OBJECT):\n"
		"  -j, --json     JSON output: an array with one object per device\n"
		"  -p, --pretty   indented JSON output (implies --json)\n"
		"  -V, --version  print the version and exit\n"
		"  -h, --help     print this help and exit\n"
		"\n",
		RNIC_GENL_NAME);
	link_usage(f);
	fputc('\n', f);
	res_usage(f);
	fputc('\n', f);
	stat_usage(f);
	fprintf(f,
		"\n"
		"'rnic link help', 'rnic res help' and 'rnic stat help' describe the\n"
		"commands and their output.\n"
		"Keywords may be shortened to any unambiguous prefix: 'rnic l s'.\n"
		"\n"
		"Exit status: 0 on success, 1 if a request failed (the kernel's\n"
		"message, or the system error, is printed), 2 on a usage error.\n");
}

static int cmd_help(struct rnic *rd)
{
	if (!rd_no_arg(rd))
		return rnic_usage_error(usage, "help: unexpected argument '%s'",
					rd_arg(rd));
	help_text(stdout);
	return RNIC_EXIT_OK;
}

static const struct rnic_tool_cmd objects[] = {
	{ "link", cmd_link },
	{ "res", cmd_res },
	{ "resource", cmd_res },
	{ "stat", cmd_stat },
	{ "statistic", cmd_stat },
	{ "help", cmd_help },
	{ NULL, NULL },
};

static const struct option long_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	struct rnic rd = { 0 };
	int opt, ret;

	opterr = 0;	/* report unknown options ourselves */
	while ((opt = getopt_long(argc, argv, "+jpVh", long_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			rd.json = true;
			break;
		case 'p':
			rd.json = true;
			rd.pretty = true;
			break;
		case 'V':
			printf("rnic utility, version %s (netlink family %s, version %u)\n",
			       RNIC_TOOL_VERSION, RNIC_GENL_NAME,
			       RNIC_GENL_VERSION);
			return RNIC_EXIT_OK;
		case 'h':
			help_text(stdout);
			return RNIC_EXIT_OK;
		default:
			if (optopt)
				return rnic_usage_error(usage, "unknown option '-%c'",
							optopt);
			return rnic_usage_error(usage, "unknown option '%s'",
						argv[optind - 1]);
		}
	}
	rd.out = stdout;
	rd.argc = argc - optind;
	rd.argv = argv + optind;

	if (rd.json) {
		rd.jw = rnic_json_new(stdout, rd.pretty);
		if (!rd.jw)
			return rnic_error("%s", strerror(errno));
	}

	ret = rnic_dispatch(&rd, objects, NULL, usage);

	rnic_json_free(rd.jw);
	rnic_genl_close(rd.nl);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "rnic: write error: %s\n", strerror(errno));
		if (!ret)
			ret = RNIC_EXIT_ERR;
	}
	return ret;
}
