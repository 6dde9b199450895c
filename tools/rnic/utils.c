// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic management tool: command dispatch, error reporting, output helpers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rnic-netlink.h>

#include "rnic.h"

bool rnic_keyword(const char *word, const char *keyword)
{
	size_t len = strlen(word);

	return len && !strncmp(word, keyword, len);
}

const struct rnic_tool_cmd *rnic_cmd_match(const struct rnic_tool_cmd *cmds,
				      const char *word, bool *ambiguous)
{
	const struct rnic_tool_cmd *c, *found = NULL;

	*ambiguous = false;
	for (c = cmds; c->name; c++)
		if (!strcmp(word, c->name))
			return c;
	for (c = cmds; c->name; c++) {
		if (!rnic_keyword(word, c->name))
			continue;
		if (found && found->fn != c->fn) {
			*ambiguous = true;
			return NULL;
		}
		if (!found)
			found = c;
	}
	return found;
}

static void vmsg(const char *fmt, va_list ap)
{
	fputs("rnic: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int rnic_usage_error(void (*usage)(FILE *f), const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	if (usage)
		usage(stderr);
	return RNIC_EXIT_USAGE;
}

int rnic_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	return RNIC_EXIT_ERR;
}

int rnic_dispatch(struct rnic *rd, const struct rnic_tool_cmd *cmds,
		  int (*dflt)(struct rnic *rd), void (*usage)(FILE *f))
{
	const struct rnic_tool_cmd *c;
	const char *word;
	bool ambiguous;

	if (rd_no_arg(rd)) {
		if (dflt)
			return dflt(rd);
		if (rd->object)
			return rnic_usage_error(usage, "%s: command expected",
						rd->object);
		return rnic_usage_error(usage, "object expected");
	}
	word = rd_arg(rd);
	c = rnic_cmd_match(cmds, word, &ambiguous);
	if (!c) {
		if (rd->object)
			return rnic_usage_error(usage, "%s: %s command '%s'",
						rd->object,
						ambiguous ? "ambiguous" :
							    "unknown",
						word);
		return rnic_usage_error(usage, "%s object '%s'",
					ambiguous ? "ambiguous" : "unknown",
					word);
	}
	rd_next(rd);
	return c->fn(rd);
}

int rnic_nl_error(struct rnic *rd, int err)
{
	const char *msg = rd->nl ? rnic_genl_errmsg(rd->nl) : "";

	if (err == -ENOENT && !rd->nl)
		return rnic_error("module not loaded (generic netlink family '%s' not found)",
				  RNIC_GENL_NAME);
	if (*msg)
		return rnic_error("%s", msg);
	return rnic_error("%s", strerror(-err));
}

int rnic_nl_open(struct rnic *rd)
{
	if (rd->nl)
		return RNIC_EXIT_OK;
	rd->nl = rnic_genl_open();
	if (!rd->nl) {
		if (errno == ENOENT)
			return rnic_nl_error(rd, -ENOENT);
		return rnic_error("cannot open generic netlink socket: %s",
				  strerror(errno));
	}
	return RNIC_EXIT_OK;
}

int rnic_show_all(struct rnic *rd, uint8_t cmd, const char *dev,
		  rnic_genl_parse_t parse, size_t size,
		  rnic_genl_each_t print, void *arg)
{
	int ret;

	ret = rnic_nl_open(rd);
	if (ret)
		return ret;
	out_start_array(rd, NULL);
	ret = rnic_genl_dump(rd->nl, cmd, dev, parse, size, print, arg);
	/* Keep the JSON valid even when the dump failed half way. */
	out_end_array(rd);
	return ret ? rnic_nl_error(rd, ret) : RNIC_EXIT_OK;
}

int rnic_show_one_or_all(struct rnic *rd, uint8_t cmd, const char *dev,
			 rnic_genl_parse_t parse, size_t size,
			 rnic_genl_each_t print)
{
	void *info;
	int ret;

	if (!dev)
		return rnic_show_all(rd, cmd, NULL, parse, size, print, rd);
	ret = rnic_nl_open(rd);
	if (ret)
		return ret;
	info = malloc(size);
	if (!info)
		return rnic_error("%s", "out of memory");
	ret = rnic_genl_get(rd->nl, cmd, dev, parse, info);
	if (ret) {
		free(info);
		return rnic_nl_error(rd, ret);
	}
	out_start_array(rd, NULL);
	print(info, rd);
	out_end_array(rd);
	free(info);
	return RNIC_EXIT_OK;
}

/* ---- output ---- */

static void text_sep(struct rnic *rd)
{
	if (!rd->text_line_start)
		fputc(' ', rd->out);
	rd->text_line_start = false;
}

void out_uint(struct rnic *rd, const char *key, const char *fmt, uint64_t v)
{
	char num[24];

	if (rd->jw) {
		rnic_json_key(rd->jw, key);
		rnic_json_uint(rd->jw, v);
		return;
	}
	snprintf(num, sizeof(num), "%" PRIu64, v);
	text_sep(rd);
	fprintf(rd->out, fmt, num);
}

void out_str(struct rnic *rd, const char *key, const char *fmt,
	     const char *s)
{
	if (rd->jw) {
		rnic_json_key(rd->jw, key);
		rnic_json_string(rd->jw, s);
		return;
	}
	text_sep(rd);
	fprintf(rd->out, fmt, s);
}

void out_newline(struct rnic *rd, int indent)
{
	if (rd->jw)
		return;
	fputc('\n', rd->out);
	if (indent > 0)
		fprintf(rd->out, "%*s", indent, "");
	rd->text_line_start = true;
}

void out_start_array(struct rnic *rd, const char *key)
{
	if (!rd->jw)
		return;
	if (key)
		rnic_json_key(rd->jw, key);
	rnic_json_start_array(rd->jw);
}

void out_end_array(struct rnic *rd)
{
	if (rd->jw)
		rnic_json_end_array(rd->jw);
}

void out_start_object(struct rnic *rd, const char *key)
{
	if (!rd->jw)
		return;
	if (key)
		rnic_json_key(rd->jw, key);
	rnic_json_start_object(rd->jw);
}

void out_end_object(struct rnic *rd)
{
	if (rd->jw)
		rnic_json_end_object(rd->jw);
}

void out_label(struct rnic *rd, const char *text)
{
	if (rd->jw)
		return;
	text_sep(rd);
	fputs(text, rd->out);
}

/* ---- formatting ---- */

const char *rnic_fmt_gid(const uint8_t gid[16], char buf[RNIC_GID_STRLEN])
{
	if (!inet_ntop(AF_INET6, gid, buf, RNIC_GID_STRLEN))
		snprintf(buf, RNIC_GID_STRLEN, "?");
	return buf;
}

const char *rnic_fmt_guid(uint64_t guid_be, char buf[RNIC_GUID_STRLEN])
{
	uint8_t b[8];

	memcpy(b, &guid_be, sizeof(b));
	snprintf(buf, RNIC_GUID_STRLEN, "%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
	return buf;
}

const char *rnic_port_state_str(uint8_t state, char buf[RNIC_STATE_STRLEN])
{
	/* enum ibv_port_state */
	static const char *const names[] = {
		[0] = "NOP",
		[1] = "DOWN",
		[2] = "INIT",
		[3] = "ARMED",
		[4] = "ACTIVE",
		[5] = "ACTIVE_DEFER",
	};

	if (state < sizeof(names) / sizeof(names[0]))
		return names[state];
	snprintf(buf, RNIC_STATE_STRLEN, "UNKNOWN(%u)", state);
	return buf;
}

const char *rnic_phys_state_str(uint8_t state, char buf[RNIC_STATE_STRLEN])
{
	/* IB physical port states, as rdma(8) spells them */
	static const char *const names[] = {
		[1] = "SLEEP",
		[2] = "POLLING",
		[3] = "DISABLED",
		[4] = "CONFIG_TRAINING",
		[5] = "LINK_UP",
		[6] = "LINK_ERROR_RECOVERY",
		[7] = "PHY_TEST",
	};

	if (state < sizeof(names) / sizeof(names[0]) && names[state])
		return names[state];
	snprintf(buf, RNIC_STATE_STRLEN, "UNKNOWN(%u)", state);
	return buf;
}
