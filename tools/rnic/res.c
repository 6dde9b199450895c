// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic res: resources (protection domains, memory regions, ...) held on
 * rnic devices, per device and per open verbs context.
 *
 * The counts are driven by RNIC_RES_KINDS (rnic_genl.h): a kind added
 * there is parsed and printed here without further change.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rdma/rnic-netlink.h>

#include "rnic.h"

void res_usage(FILE *f)
{
	fprintf(f,
		"Usage: rnic res[ource] [ { show | list } [ DEV ] ]\n"
		"       rnic res[ource] { show | list } qp [ DEV ] [ lqpn N ] [ pid N ]\n"
		"       rnic res[ource] { show | list } mr [ DEV ] [ lkey N ] [ rkey N ] [ pid N ]\n"
		"       rnic res[ource] { show | list } { pd | cq } [ DEV ] [ pid N ]\n"
		"       rnic res[ource] { show | list } cm_id [ DEV ] [ lqpn N ] [ pid N ]\n"
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
		"\"comm\": \"...\"}]).\n"
		"\n"
		"  show qp, mr, pd, cq  list every QP, MR, PD or CQ of every device, or of DEV,\n"
		"        that passes the filters (numbers in decimal or 0x hex), one\n"
		"        line each, with the field names of rdma(8) 'rdma resource':\n"
		"  INDEX: NAME: lqpn N [rqpn N] type T state S sq-psn N [rq-psn N] ctx ID pid PID comm COMM\n"
		"  INDEX: NAME: [lkey 0xK rkey 0xK] mrlen N ctx ID pid PID comm COMM\n"
		"  INDEX: NAME: pdn H users N ctx ID pid PID comm COMM\n"
		"  INDEX: NAME: cqn H cqe N users N ctx ID pid PID comm COMM\n"
		"where pdn and cqn are the handles in the context, and users counts\n"
		"the objects using it. MR keys are shown to CAP_NET_ADMIN only.\n"
		"\n"
		"  show cm_id  list the connection manager ids (rdma_cm_id, made on\n"
		"        /dev/infiniband/rnic_cm) of every process, or those on device DEV:\n"
		"  [INDEX: NAME:] state S ps P type T [src-addr A] [dst-addr A] [lqpn N] pid PID comm COMM\n"
		"where INDEX: NAME: is the device once the id is on one, S its state\n"
		"(IDLE ADDR_RESOLVED ROUTE_RESOLVED LISTEN REQ_SENT REP_RCVD REQ_RCVD\n"
		"REP_SENT ESTABLISHED DREQ_SENT DREQ_RCVD TIMEWAIT DONE), P its port\n"
		"space (TCP UDP IB IPOIB), A ADDRESS:PORT ([ADDRESS]:PORT for IPv6),\n"
		"and PID and COMM the process that opened the event channel.\n"
		"JSON output (-j): an array of objects with the same members (keys and\n"
		"PSNs as numbers).\n");
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

/* ---- object listings ---- */

static bool res_match(uint64_t want, uint32_t v)
{
	return want == UINT64_MAX || want == v;
}

static const char *qp_type_str(uint8_t type, char buf[RNIC_STATE_STRLEN])
{
	/* rdma resource show's names */
	static const char *const names[] = {
		[2] = "RC", [3] = "UC", [4] = "UD", [9] = "XRC_INI",
		[10] = "XRC_TGT",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	snprintf(buf, RNIC_STATE_STRLEN, "UNKNOWN(%u)", type);
	return buf;
}

static const char *qp_state_str(uint8_t state, char buf[RNIC_STATE_STRLEN])
{
	/* enum ibv_qp_state */
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	if (state < sizeof(names) / sizeof(names[0]))
		return names[state];
	snprintf(buf, RNIC_STATE_STRLEN, "UNKNOWN(%u)", state);
	return buf;
}

static bool obj_has(const struct rnic_res_obj *o, unsigned int attr)
{
	return o->attrs & (UINT64_C(1) << attr);
}

/* A key: hexadecimal in text, a number in JSON. */
static void pr_key(struct rnic *rd, const char *key, uint32_t v)
{
	char buf[24];

	if (rd->jw) {
		out_uint(rd, key, "%s", v);
		return;
	}
	snprintf(buf, sizeof(buf), "%s 0x%08x", key, v);
	out_label(rd, buf);
}

/* The owner of an object: its context and process. */
static void pr_owner(struct rnic *rd, const struct rnic_res_obj *o)
{
	if (obj_has(o, RNIC_NL_ATTR_CTX_ID))
		out_uint(rd, "ctx", "ctx %s", o->ctx);
	if (obj_has(o, RNIC_NL_ATTR_CTX_PID))
		out_uint(rd, "pid", "pid %s", o->pid);
	if (obj_has(o, RNIC_NL_ATTR_CTX_COMM))
		pr_comm(rd, o->comm);
}

/* An object's line starts with its device (a CM id may be on none). */
static void pr_obj_start(struct rnic *rd, const struct rnic_res_obj *o)
{
	out_start_object(rd, NULL);
	rd->text_line_start = true;
	if (obj_has(o, RNIC_NL_ATTR_DEV_INDEX))
		out_uint(rd, "ifindex", "%s:", o->index);
	if (obj_has(o, RNIC_NL_ATTR_DEV_NAME))
		out_str(rd, "ifname", "%s:", o->name);
}

static void pr_obj_end(struct rnic *rd)
{
	out_newline(rd, -1);
	out_end_object(rd);
}

/* Print one QP that passes the filters (rnic_genl_each_t). */
int res_qp_print(const void *obj, void *arg)
{
	const struct rnic_res_obj *o = obj;
	struct res_list *l = arg;
	struct rnic *rd = l->rd;
	char buf[RNIC_STATE_STRLEN];

	if (!res_match(l->f.lqpn, o->lqpn) || !res_match(l->f.pid, o->pid))
		return 0;
	pr_obj_start(rd, o);
	out_uint(rd, "lqpn", "lqpn %s", o->lqpn);
	if (obj_has(o, RNIC_NL_ATTR_RES_RQPN))
		out_uint(rd, "rqpn", "rqpn %s", o->rqpn);
	out_str(rd, "type", "type %s", qp_type_str(o->qp_type, buf));
	out_str(rd, "state", "state %s", qp_state_str(o->qp_state, buf));
	out_uint(rd, "sq-psn", "sq-psn %s", o->sq_psn);
	if (obj_has(o, RNIC_NL_ATTR_RES_RQ_PSN))
		out_uint(rd, "rq-psn", "rq-psn %s", o->rq_psn);
	pr_owner(rd, o);
	pr_obj_end(rd);
	return 0;
}

/* Print one MR that passes the filters (rnic_genl_each_t). */
int res_mr_print(const void *obj, void *arg)
{
	const struct rnic_res_obj *o = obj;
	struct res_list *l = arg;
	struct rnic *rd = l->rd;

	if (!res_match(l->f.lkey, o->lkey) || !res_match(l->f.rkey, o->rkey) ||
	    !res_match(l->f.pid, o->pid))
		return 0;
	pr_obj_start(rd, o);
	/* the kernel tells the keys to CAP_NET_ADMIN only */
	if (obj_has(o, RNIC_NL_ATTR_RES_LKEY))
		pr_key(rd, "lkey", o->lkey);
	if (obj_has(o, RNIC_NL_ATTR_RES_RKEY))
		pr_key(rd, "rkey", o->rkey);
	out_uint(rd, "mrlen", "mrlen %s", o->mrlen);
	pr_owner(rd, o);
	pr_obj_end(rd);
	return 0;
}

/* Print one PD that passes the filters (rnic_genl_each_t). */
int res_pd_print(const void *obj, void *arg)
{
	const struct rnic_res_obj *o = obj;
	struct res_list *l = arg;
	struct rnic *rd = l->rd;

	if (!res_match(l->f.pid, o->pid))
		return 0;
	pr_obj_start(rd, o);
	out_uint(rd, "pdn", "pdn %s", o->handle);
	out_uint(rd, "users", "users %s", o->users);
	pr_owner(rd, o);
	pr_obj_end(rd);
	return 0;
}

/* Print one CQ that passes the filters (rnic_genl_each_t). */
int res_cq_print(const void *obj, void *arg)
{
	const struct rnic_res_obj *o = obj;
	struct res_list *l = arg;
	struct rnic *rd = l->rd;

	if (!res_match(l->f.pid, o->pid))
		return 0;
	pr_obj_start(rd, o);
	out_uint(rd, "cqn", "cqn %s", o->handle);
	out_uint(rd, "cqe", "cqe %s", o->cqe);
	out_uint(rd, "users", "users %s", o->users);
	pr_owner(rd, o);
	pr_obj_end(rd);
	return 0;
}

static const char *cm_state_str(uint8_t state, char buf[RNIC_STATE_STRLEN])
{
	/* enum rnic_cm_state */
	static const char *const names[] = {
		[RNIC_CM_IDLE] = "IDLE",
		[RNIC_CM_ADDR_RESOLVED] = "ADDR_RESOLVED",
		[RNIC_CM_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
		[RNIC_CM_LISTEN] = "LISTEN",
		[RNIC_CM_REQ_SENT] = "REQ_SENT",
		[RNIC_CM_REP_RCVD] = "REP_RCVD",
		[RNIC_CM_REQ_RCVD] = "REQ_RCVD",
		[RNIC_CM_REP_SENT] = "REP_SENT",
		[RNIC_CM_ESTABLISHED] = "ESTABLISHED",
		[RNIC_CM_DREQ_SENT] = "DREQ_SENT",
		[RNIC_CM_DREQ_RCVD] = "DREQ_RCVD",
		[RNIC_CM_TIMEWAIT] = "TIMEWAIT",
		[RNIC_CM_DONE] = "DONE",
	};

	if (state < sizeof(names) / sizeof(names[0]) && names[state])
		return names[state];
	snprintf(buf, RNIC_STATE_STRLEN, "UNKNOWN(%u)", state);
	return buf;
}

static const char *cm_ps_str(uint32_t ps, char buf[RNIC_STATE_STRLEN])
{
	switch (ps) {
	case RNIC_CM_PS_TCP:
		return "TCP";
	case RNIC_CM_PS_UDP:
		return "UDP";
	case RNIC_CM_PS_IB:
		return "IB";
	case RNIC_CM_PS_IPOIB:
		return "IPOIB";
	}
	snprintf(buf, RNIC_STATE_STRLEN, "UNKNOWN(0x%x)", ps);
	return buf;
}

/* ADDRESS:PORT, [ADDRESS]:PORT for IPv6 */
static void pr_addr(struct rnic *rd, const char *key,
		    const struct rnic_cm_sockaddr *a)
{
	char ip[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN + 10], fmt[24];
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;

	memcpy(&sin, a, sizeof(sin));
	if (sin.sin_family == AF_INET) {
		inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof(ip));
		snprintf(buf, sizeof(buf), "%s:%u", ip, ntohs(sin.sin_port));
	} else {
		memcpy(&sin6, a, sizeof(sin6));
		inet_ntop(AF_INET6, &sin6.sin6_addr, ip, sizeof(ip));
		snprintf(buf, sizeof(buf), "[%s]:%u", ip,
			 ntohs(sin6.sin6_port));
	}
	snprintf(fmt, sizeof(fmt), "%s %%s", key);
	out_str(rd, key, fmt, buf);
}

/* Print one CM id that passes the filters (rnic_genl_each_t). */
int res_cm_print(const void *obj, void *arg)
{
	const struct rnic_res_obj *o = obj;
	struct res_list *l = arg;
	struct rnic *rd = l->rd;
	char buf[RNIC_STATE_STRLEN];

	if (!res_match(l->f.lqpn, o->lqpn) || !res_match(l->f.pid, o->pid))
		return 0;
	pr_obj_start(rd, o);
	out_str(rd, "state", "state %s", cm_state_str(o->cm_state, buf));
	out_str(rd, "ps", "ps %s", cm_ps_str(o->cm_ps, buf));
	out_str(rd, "type", "type %s", qp_type_str(o->qp_type, buf));
	if (obj_has(o, RNIC_NL_ATTR_RES_SRC_ADDR))
		pr_addr(rd, "src-addr", &o->src);
	if (obj_has(o, RNIC_NL_ATTR_RES_DST_ADDR))
		pr_addr(rd, "dst-addr", &o->dst);
	if (obj_has(o, RNIC_NL_ATTR_RES_LQPN))
		out_uint(rd, "lqpn", "lqpn %s", o->lqpn);
	pr_owner(rd, o);
	pr_obj_end(rd);
	return 0;
}

/* A filter's value: a 32-bit number, decimal or 0x hexadecimal. */
static int res_number(const char *word, uint64_t *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(word, &end, 0);
	if (errno || end == word || *end || *word == '-' || n > UINT32_MAX)
		return -1;
	*v = n;
	return 0;
}

/* "show KIND [DEV] [KEY N]...": @keys are the filters @kind knows. */
static int res_list(struct rnic *rd, const char *kind, uint8_t cmd,
		    const char *const *keys, rnic_genl_parse_t parse,
		    rnic_genl_each_t print)
{
	struct res_list l = { .rd = rd };
	uint64_t *slot[] = { &l.f.lqpn, &l.f.lkey, &l.f.rkey, &l.f.pid };
	static const char *const all[] = { "lqpn", "lkey", "rkey", "pid" };
	const char *dev = NULL, *word;
	unsigned int i, k;

	l.f.lqpn = l.f.lkey = l.f.rkey = l.f.pid = UINT64_MAX;
	while (!rd_no_arg(rd)) {
		word = rd_arg(rd);
		rd_next(rd);
		for (k = 0; keys[k] && strcmp(word, keys[k]); k++)
			;
		if (!keys[k]) {
			if (dev)
				return rnic_usage_error(res_usage, "res show %s: unexpected argument '%s'",
							kind, word);
			dev = word;
			continue;
		}
		for (i = 0; strcmp(all[i], word); i++)
			;
		if (rd_no_arg(rd) || res_number(rd_arg(rd), slot[i]))
			return rnic_usage_error(res_usage, "res show %s: %s: a number expected",
						kind, word);
		rd_next(rd);
	}
	return rnic_show_all(rd, cmd, dev, parse, sizeof(struct rnic_res_obj),
			     print, &l);
}

static int res_show(struct rnic *rd)
{
	static const char *const qp_keys[] = { "lqpn", "pid", NULL };
	static const char *const mr_keys[] = { "lkey", "rkey", "pid", NULL };
	static const char *const pid_key[] = { "pid", NULL };
	const char *name = NULL;

	if (!rd_no_arg(rd)) {
		name = rd_arg(rd);
		rd_next(rd);
	}
	if (name && !strcmp(name, "qp"))
		return res_list(rd, name, RNIC_NL_CMD_RES_QP_GET, qp_keys,
				rnic_res_obj_parse, res_qp_print);
	if (name && !strcmp(name, "mr"))
		return res_list(rd, name, RNIC_NL_CMD_RES_MR_GET, mr_keys,
				rnic_res_obj_parse, res_mr_print);
	if (name && !strcmp(name, "pd"))
		return res_list(rd, name, RNIC_NL_CMD_RES_PD_GET, pid_key,
				rnic_res_obj_parse, res_pd_print);
	if (name && !strcmp(name, "cq"))
		return res_list(rd, name, RNIC_NL_CMD_RES_CQ_GET, pid_key,
				rnic_res_obj_parse, res_cq_print);
	if (name && !strcmp(name, "cm_id"))
		return res_list(rd, name, RNIC_NL_CMD_RES_CM_ID_GET, qp_keys,
				rnic_res_cm_parse, res_cm_print);
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

static const struct rnic_tool_cmd res_cmds[] = {
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
