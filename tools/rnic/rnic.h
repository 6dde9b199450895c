/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rnic management tool: shared declarations.
 *
 * Every command handler takes the tool state, consumes its arguments from
 * rd->argv and returns an exit status: RNIC_EXIT_OK, RNIC_EXIT_ERR
 * (the request failed; a message is already on stderr) or RNIC_EXIT_USAGE
 * (bad command line; a message and a usage line are already on stderr).
 */
#ifndef RNIC_TOOL_H
#define RNIC_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rnic_genl.h"
#include "rnic_json.h"

#define RNIC_TOOL_VERSION "0.1"

enum {
	RNIC_EXIT_OK = 0,
	RNIC_EXIT_ERR = 1,
	RNIC_EXIT_USAGE = 2,
};

struct rnic {
	int argc;		/* words left on the command line */
	char **argv;
	const char *object;	/* the OBJECT word being run, for messages */
	bool json;
	bool pretty;
	FILE *out;		/* stdout, or a buffer in unit tests */
	struct rnic_json *jw;	/* JSON writer on out, if json */
	bool text_line_start;	/* text output: nothing yet on this line */
	struct rnic_genl *nl;	/* opened by rnic_nl_open() */
	/* link show: every device's counters, for its fault line; or NULL */
	struct rnic_stat_info *stats;
	size_t n_stats;
};

/* One keyword of a command table; tables end with an entry without name. */
struct rnic_tool_cmd {
	const char *name;
	int (*fn)(struct rnic *rd);
};

/* ---- command line (utils.c) ---- */

static inline bool rd_no_arg(const struct rnic *rd)
{
	return rd->argc <= 0;
}

static inline const char *rd_arg(const struct rnic *rd)
{
	return rd->argc > 0 ? rd->argv[0] : NULL;
}

static inline void rd_next(struct rnic *rd)
{
	if (rd->argc > 0) {
		rd->argc--;
		rd->argv++;
	}
}

/*
 * rnic_cmd_match() - find @word in @cmds: an exact name, else the entries
 * that @word is a prefix of, provided they all share one handler (so an
 * alias and its command do not make a prefix ambiguous).
 * Return: the entry, or NULL with *ambiguous set when several handlers
 * match (false when none does).
 */
const struct rnic_tool_cmd *rnic_cmd_match(const struct rnic_tool_cmd *cmds,
				      const char *word, bool *ambiguous);

/* Is @word @keyword or an abbreviation of it? */
bool rnic_keyword(const char *word, const char *keyword);

/*
 * rnic_dispatch() - run the command named by the next word
 * @dflt: run when no word is left (NULL: that is a usage error)
 * @usage: prints the usage of this level to the given stream
 */
int rnic_dispatch(struct rnic *rd, const struct rnic_tool_cmd *cmds,
		  int (*dflt)(struct rnic *rd), void (*usage)(FILE *f));

/* Print "rnic: <message>" to stderr, then usage(stderr) if given. */
int rnic_usage_error(void (*usage)(FILE *f), const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "rnic: <message>" to stderr and return RNIC_EXIT_ERR. */
int rnic_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Report a failed request: the kernel's extack message, else strerror. */
int rnic_nl_error(struct rnic *rd, int err);

/* Open rd->nl if needed. Return: RNIC_EXIT_OK or RNIC_EXIT_ERR (printed). */
int rnic_nl_open(struct rnic *rd);

/*
 * rnic_show_all() - dump @cmd and print every reply with @print(info, arg),
 * inside one JSON array. @dev restricts the dump to one device (NULL: all).
 * @parse and @size as for rnic_genl_dump().
 * Return: an exit status; a failure is printed.
 */
int rnic_show_all(struct rnic *rd, uint8_t cmd, const char *dev,
		  rnic_genl_parse_t parse, size_t size,
		  rnic_genl_each_t print, void *arg);

/*
 * rnic_show_one_or_all() - "show [DEV]": a GET of device @dev, or a dump
 * of every device when @dev is NULL, printed as rnic_show_all() does with
 * @rd as @print's argument.
 */
int rnic_show_one_or_all(struct rnic *rd, uint8_t cmd, const char *dev,
			 rnic_genl_parse_t parse, size_t size,
			 rnic_genl_each_t print);

/* ---- output (utils.c): one call per attribute, text or JSON ---- */

/* JSON: "key": v. Text: printf(@fmt, v as a string), so @fmt holds one
 * %s; separated by a space from what precedes it on the line. */
void out_uint(struct rnic *rd, const char *key, const char *fmt,
	      uint64_t v);
void out_str(struct rnic *rd, const char *key, const char *fmt,
	     const char *s);
/* Text only: end the line, then indent the next one by @indent spaces.
 * With @indent < 0 nothing follows the newline. */
void out_newline(struct rnic *rd, int indent);
/* JSON only containers; @key NULL inside an array. */
void out_start_array(struct rnic *rd, const char *key);
void out_end_array(struct rnic *rd);
void out_start_object(struct rnic *rd, const char *key);
void out_end_object(struct rnic *rd);
/* Text only: a word, separated like the values. */
void out_label(struct rnic *rd, const char *text);

/* ---- formatting (utils.c) ---- */

#define RNIC_GID_STRLEN 46	/* INET6_ADDRSTRLEN */
#define RNIC_GUID_STRLEN 20	/* "xxxx:xxxx:xxxx:xxxx" */
#define RNIC_STATE_STRLEN 16
#define RNIC_PPM_STRLEN 24	/* "429496.7295%" and more */

/* GID as an IPv6 address (IPv4-mapped GIDs as ::ffff:a.b.c.d). */
const char *rnic_fmt_gid(const uint8_t gid[16], char buf[RNIC_GID_STRLEN]);
/* GUID bytes in network order as four groups of 16 bits. */
const char *rnic_fmt_guid(uint64_t guid_be, char buf[RNIC_GUID_STRLEN]);
/* enum ibv_port_state name ("ACTIVE"), or "UNKNOWN(n)". */
const char *rnic_port_state_str(uint8_t state, char buf[RNIC_STATE_STRLEN]);
/* ibv_port_attr.phys_state name ("LINK_UP"), or "UNKNOWN(n)". */
const char *rnic_phys_state_str(uint8_t state, char buf[RNIC_STATE_STRLEN]);

/* ---- objects ---- */

int cmd_link(struct rnic *rd);
void link_usage(FILE *f);
/* Print one device (text block or JSON object) on rd->out; returns 0. */
int link_print(const void *info, void *rd);

int cmd_stat(struct rnic *rd);
void stat_usage(FILE *f);
/* Print one device's counters (text line or JSON object); returns 0. */
int stat_print(const void *info, void *rd);

int cmd_res(struct rnic *rd);
void res_usage(FILE *f);
/* Print one device's resources (text lines or JSON object); returns 0. */
int res_print(const void *info, void *rd);
/* A listing of QPs or MRs: where, and its filters (UINT64_MAX: any). */
struct res_list {
	struct rnic *rd;
	struct {
		uint64_t lqpn, lkey, rkey, pid;
	} f;
};
/*
 * Print one QP, MR, PD, CQ or CM id (struct rnic_res_obj) if it passes the filters of
 * @list, a struct res_list; return 0.
 */
int res_qp_print(const void *obj, void *list);
int res_mr_print(const void *obj, void *list);
int res_pd_print(const void *obj, void *list);
int res_cq_print(const void *obj, void *list);
int res_cm_print(const void *obj, void *list);

#endif /* RNIC_TOOL_H */
