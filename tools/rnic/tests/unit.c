// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host unit tests for the rnic tool and tools/lib: JSON writer, keyword
 * matching, formatting, LINK_GET and RES_GET reply parsing, device and
 * resource printing, and the generic netlink client against the kernel's
 * own "nlctrl" family.
 * TAP output; exit status 1 if any test failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <rdma/rnic-netlink.h>

#include "rnic.h"

static int n_tests, n_failed;

static void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	n_tests++;
	if (!cond)
		n_failed++;
	printf("%sok %d - ", cond ? "" : "not ", n_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Check a string result, showing both sides on failure. */
static void ok_str(const char *got, const char *want, const char *name)
{
	bool same = got && !strcmp(got, want);

	ok(same, "%s", name);
	if (!same) {
		diag("got:  '%s'", got ? got : "(null)");
		diag("want: '%s'", want);
	}
}

/* ---- JSON ---- */

struct membuf {
	FILE *f;
	char *buf;
	size_t len;
};

static void mb_open(struct membuf *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f) {
		perror("open_memstream");
		exit(1);
	}
}

/* Close the stream; the caller frees m->buf. */
static const char *mb_close(struct membuf *m)
{
	fclose(m->f);
	return m->buf;
}

static void check_escape(const char *in, const char *want, const char *name)
{
	struct membuf m;

	mb_open(&m);
	rnic_json_write_string(m.f, in);
	ok_str(mb_close(&m), want, name);
	free(m.buf);
}

static void test_json_escape(void)
{
	check_escape("rnic0", "\"rnic0\"", "json: plain string");
	check_escape("", "\"\"", "json: empty string");
	check_escape("a\"b\\c/d", "\"a\\\"b\\\\c/d\"", "json: quote and backslash");
	check_escape("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"", "json: short escapes");
	check_escape("\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\"",
		     "json: control characters as \\u00XX, DEL as is");
	check_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		     "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
		     "json: valid UTF-8 passes through");
	check_escape("a\xff" "b", "\"a\\ufffdb\"", "json: invalid byte");
	check_escape("\xc0\xaf", "\"\\ufffd\\ufffd\"", "json: overlong 2-byte");
	check_escape("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"",
		     "json: overlong 3-byte");
	check_escape("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"",
		     "json: UTF-16 surrogate");
	check_escape("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
		     "json: past U+10FFFF");
	check_escape("x\xe2\x82", "\"x\\ufffd\\ufffd\"",
		     "json: sequence cut by the end of the string");
}

static void write_sample(struct rnic_json *j)
{
	rnic_json_start_array(j);
	rnic_json_start_object(j);
	rnic_json_key(j, "a");
	rnic_json_uint(j, 18446744073709551615ull);
	rnic_json_key(j, "b");
	rnic_json_string(j, "x");
	rnic_json_key(j, "e");
	rnic_json_start_array(j);
	rnic_json_end_array(j);
	rnic_json_key(j, "l");
	rnic_json_start_array(j);
	rnic_json_int(j, -1);
	rnic_json_bool(j, true);
	rnic_json_null(j);
	rnic_json_end_array(j);
	rnic_json_end_object(j);
	rnic_json_start_object(j);
	rnic_json_end_object(j);
	rnic_json_end_array(j);
}

static void test_json_writer(void)
{
	struct rnic_json *j;
	struct membuf m;

	mb_open(&m);
	j = rnic_json_new(m.f, false);
	write_sample(j);
	ok(rnic_json_depth(j) == 0, "json: balanced");
	rnic_json_free(j);
	ok_str(mb_close(&m),
	       "[{\"a\":18446744073709551615,\"b\":\"x\",\"e\":[],"
	       "\"l\":[-1,true,null]},{}]\n",
	       "json: compact layout");
	free(m.buf);

	mb_open(&m);
	j = rnic_json_new(m.f, true);
	write_sample(j);
	rnic_json_free(j);
	ok_str(mb_close(&m),
	       "[\n"
	       "  {\n"
	       "    \"a\": 18446744073709551615,\n"
	       "    \"b\": \"x\",\n"
	       "    \"e\": [],\n"
	       "    \"l\": [\n"
	       "      -1,\n"
	       "      true,\n"
	       "      null\n"
	       "    ]\n"
	       "  },\n"
	       "  {}\n"
	       "]\n",
	       "json: pretty layout");
	free(m.buf);

	mb_open(&m);
	j = rnic_json_new(m.f, false);
	rnic_json_start_array(j);
	rnic_json_end_array(j);
	rnic_json_string(j, "top");
	rnic_json_end_array(j);	/* unbalanced: ignored */
	rnic_json_free(j);
	ok_str(mb_close(&m), "[]\n\"top\"\n",
	       "json: empty array, top-level scalar, stray end ignored");
	free(m.buf);
}

/* ---- keywords ---- */

static int fn_a(struct rnic *rd) { (void)rd; return 10; }
static int fn_b(struct rnic *rd) { (void)rd; return 11; }
static int fn_c(struct rnic *rd) { (void)rd; return 12; }

static const struct rnic_tool_cmd test_cmds[] = {
	{ "show", fn_a },
	{ "list", fn_a },
	{ "del", fn_b },
	{ "delete", fn_b },
	{ "dump", fn_c },
	{ "s", fn_c },
	{ NULL, NULL },
};

static void check_match(const char *word, int (*want)(struct rnic *),
			bool want_ambiguous)
{
	const struct rnic_tool_cmd *c;
	bool amb;

	c = rnic_cmd_match(test_cmds, word, &amb);
	ok((c ? c->fn : NULL) == want && amb == want_ambiguous,
	   "match: '%s' -> %s", word,
	   want_ambiguous ? "ambiguous" : want ? "found" : "none");
}

static void test_match(void)
{
	check_match("show", fn_a, false);
	check_match("sh", fn_a, false);
	check_match("s", fn_c, false);		/* exact beats prefix */
	check_match("l", fn_a, false);
	check_match("de", fn_b, false);		/* del/delete: one handler */
	check_match("dele", fn_b, false);
	check_match("d", NULL, true);		/* del vs dump */
	check_match("deletex", NULL, false);
	check_match("", NULL, false);
	check_match("x", NULL, false);

	ok(rnic_keyword("net", "netdev"), "keyword: prefix");
	ok(rnic_keyword("netdev", "netdev"), "keyword: exact");
	ok(!rnic_keyword("", "netdev"), "keyword: empty word");
	ok(!rnic_keyword("netdevx", "netdev"), "keyword: longer word");
}

static void test_dispatch(void)
{
	char *argv[] = { "sh", "extra", NULL };
	struct rnic rd = { .argc = 2, .argv = argv, .object = "t" };
	int ret, saved, null;

	ret = rnic_dispatch(&rd, test_cmds, NULL, NULL);
	ok(ret == 10 && rd.argc == 1 && !strcmp(rd_arg(&rd), "extra"),
	   "dispatch: runs the handler with the rest of the words");

	rd.argc = 0;
	ok(rnic_dispatch(&rd, test_cmds, fn_b, NULL) == 11,
	   "dispatch: default when no word is left");

	/* The usage errors below print to stderr: hide them. */
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	ok(rnic_dispatch(&rd, test_cmds, NULL, NULL) == RNIC_EXIT_USAGE,
	   "dispatch: no word and no default is a usage error");
	argv[0] = "zzz";
	rd.argc = 1;
	rd.argv = argv;
	ok(rnic_dispatch(&rd, test_cmds, NULL, NULL) == RNIC_EXIT_USAGE,
	   "dispatch: unknown word is a usage error");
	argv[0] = "d";
	rd.argc = 1;
	rd.argv = argv;
	ret = rnic_dispatch(&rd, test_cmds, NULL, NULL);

	fflush(stderr);
	if (saved >= 0 && null >= 0)
		dup2(saved, STDERR_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
	ok(ret == RNIC_EXIT_USAGE, "dispatch: ambiguous word is a usage error");
}

/* ---- formatting ---- */

static void test_format(void)
{
	static const uint8_t ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					0x02, 0x00, 0x00, 0xff,
					0xfe, 0x00, 0x00, 0x00 };
	static const uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					0xff, 0xff, 127, 0, 0, 1 };
	static const uint8_t guid[8] = { 0x02, 0x00, 0x00, 0xff,
					 0xfe, 0x00, 0x00, 0x00 };
	char buf[RNIC_GID_STRLEN], gbuf[RNIC_GUID_STRLEN];
	char sbuf[RNIC_STATE_STRLEN];
	uint64_t be;

	ok_str(rnic_fmt_gid(ll, buf), "fe80::200:ff:fe00:0", "gid: link-local");
	ok_str(rnic_fmt_gid(v4, buf), "::ffff:127.0.0.1", "gid: IPv4-mapped");
	memcpy(&be, guid, sizeof(be));
	ok_str(rnic_fmt_guid(be, gbuf), "0200:00ff:fe00:0000",
	       "guid: network byte order");
	ok_str(rnic_port_state_str(1, sbuf), "DOWN", "state: DOWN");
	ok_str(rnic_port_state_str(4, sbuf), "ACTIVE", "state: ACTIVE");
	ok_str(rnic_port_state_str(5, sbuf), "ACTIVE_DEFER",
	       "state: ACTIVE_DEFER");
	ok_str(rnic_port_state_str(200, sbuf), "UNKNOWN(200)",
	       "state: out of range");
	ok_str(rnic_phys_state_str(5, sbuf), "LINK_UP", "phys_state: LINK_UP");
	ok_str(rnic_phys_state_str(3, sbuf), "DISABLED",
	       "phys_state: DISABLED");
	ok_str(rnic_phys_state_str(0, sbuf), "UNKNOWN(0)",
	       "phys_state: 0 has no name");
	ok_str(rnic_phys_state_str(8, sbuf), "UNKNOWN(8)",
	       "phys_state: out of range");
}

/* ---- LINK_GET parsing ---- */

static char msgbuf[16384] __attribute__((aligned(8)));

static struct nlmsghdr *msg_start(void)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;

	memset(msgbuf, 0, sizeof(msgbuf));
	nlh = mnl_nlmsg_put_header(msgbuf);
	nlh->nlmsg_type = 0x20;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = RNIC_NL_CMD_LINK_GET;
	genl->version = RNIC_GENL_VERSION;
	return nlh;
}

static void put_gid(struct nlmsghdr *nlh, uint32_t index, const uint8_t *gid,
		    size_t gid_len)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_GID_ENTRY);

	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_GID_INDEX, index);
	mnl_attr_put(nlh, 999, 3, "xyz");	/* unknown: skipped */
	mnl_attr_put(nlh, RNIC_NL_ATTR_GID, gid_len, gid);
	mnl_attr_nest_end(nlh, e);
}

static const uint8_t gid_ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				    0x02, 0x00, 0x00, 0xff,
				    0xfe, 0x00, 0x00, 0x00 };
static const uint8_t gid_v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				    0xff, 0xff, 127, 0, 0, 1 };
static const uint8_t guid_bytes[8] = { 0x02, 0x00, 0x00, 0xff,
				       0xfe, 0x00, 0x00, 0x00 };

/* A full reply for a bound device, as the kernel should send it. */
static struct nlmsghdr *full_msg(bool netdev)
{
	struct nlmsghdr *nlh = msg_start();
	struct nlattr *t;
	uint64_t guid;

	memcpy(&guid, guid_bytes, sizeof(guid));
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "rnic0");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_DEV_INDEX, 0);
	if (netdev) {
		mnl_attr_put_strz(nlh, RNIC_NL_ATTR_NETDEV, "lo");
		mnl_attr_put_u32(nlh, RNIC_NL_ATTR_NETDEV_INDEX, 1);
		mnl_attr_put_u32(nlh, RNIC_NL_ATTR_NETDEV_MTU, 65536);
		mnl_attr_put_u32(nlh, RNIC_NL_ATTR_MAX_BURST, 2048);
	}
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_UVERBS, "uverbs1024");
	mnl_attr_put(nlh, RNIC_NL_ATTR_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, RNIC_NL_ATTR_NODE_GUID, guid);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u8(nlh, RNIC_NL_ATTR_PORT_STATE, 4);
	/* the unbound device stands for a kernel without physical states */
	if (netdev)
		mnl_attr_put_u8(nlh, RNIC_NL_ATTR_PORT_PHYS_STATE, 5);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_ACTIVE_MTU, 4096);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CONTEXTS, 0);
	mnl_attr_put_u32(nlh, 200, 7);		/* unknown: skipped */
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_GID_TABLE);
	put_gid(nlh, 0, gid_ll, 16);
	if (netdev)
		put_gid(nlh, 1, gid_v4, 16);
	mnl_attr_nest_end(nlh, t);
	return nlh;
}

static void test_parse(void)
{
	struct rnic_link_info *info = malloc(sizeof(*info));
	struct nlmsghdr *nlh;
	struct nlattr *t;
	char name[100];
	unsigned int i;
	int ret;

	nlh = full_msg(true);
	ret = rnic_link_parse(nlh, info);
	ok(ret == 0, "parse: full reply");
	ok(!strcmp(info->name, "rnic0") && info->index == 0 &&
	   info->has_netdev && !strcmp(info->netdev, "lo") &&
	   info->netdev_index == 1 && info->netdev_mtu == 65536 &&
	   !strcmp(info->uverbs, "uverbs1024") && info->port == 1 &&
	   info->port_state == 4 && info->phys_state == 5 &&
	   info->active_mtu == 4096 && info->contexts == 0 &&
	   info->max_burst == 2048 &&
	   !memcmp(&info->node_guid_be, guid_bytes, 8),
	   "parse: scalar fields");
	ok(info->n_gids == 2 && info->gids[0].index == 0 &&
	   !memcmp(info->gids[0].gid, gid_ll, 16) && info->gids[1].index == 1 &&
	   !memcmp(info->gids[1].gid, gid_v4, 16) && !info->gids_truncated,
	   "parse: GID table, unknown attribute in an entry skipped");
	ok(!(info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_PAD)),
	   "parse: PAD not reported as present");

	nlh = full_msg(false);
	ok(rnic_link_parse(nlh, info) == 0 && !info->has_netdev &&
	   !info->netdev[0] && info->n_gids == 1 && !info->max_burst,
	   "parse: unbound device");

	nlh = msg_start();
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_DEV_INDEX, 3);
	ok(rnic_link_parse(nlh, info) == -EPROTO, "parse: no DEV_NAME");

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_PORT_PHYS_STATE, 5);
	ok(rnic_link_parse(nlh, info) == -EPROTO, "parse: u8 of 4 bytes");

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	mnl_attr_put_u16(nlh, RNIC_NL_ATTR_DEV_INDEX, 3);
	ok(rnic_link_parse(nlh, info) == -EPROTO, "parse: u32 of 2 bytes");

	nlh = msg_start();
	mnl_attr_put(nlh, RNIC_NL_ATTR_DEV_NAME, 3, "abc");
	ok(rnic_link_parse(nlh, info) == -EPROTO,
	   "parse: string without NUL");

	memset(name, 'a', sizeof(name));
	name[RNIC_LINK_NAME_SIZE - 1] = '\0';
	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, name);
	ok(rnic_link_parse(nlh, info) == 0 &&
	   strlen(info->name) == RNIC_LINK_NAME_SIZE - 1,
	   "parse: 63-byte name fits");
	name[RNIC_LINK_NAME_SIZE - 1] = 'a';
	name[RNIC_LINK_NAME_SIZE] = '\0';
	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, name);
	ok(rnic_link_parse(nlh, info) == -EPROTO, "parse: 64-byte name");

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_GID_TABLE);
	put_gid(nlh, 0, gid_ll, 15);
	mnl_attr_nest_end(nlh, t);
	ok(rnic_link_parse(nlh, info) == -EPROTO, "parse: 15-byte GID");

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_GID_TABLE);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_GID_INDEX, 0);	/* skipped */
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, RNIC_NL_ATTR_GID_ENTRY));
	mnl_attr_nest_end(nlh, t);
	ok(rnic_link_parse(nlh, info) == -EPROTO,
	   "parse: GID entry without index and GID");

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_GID_TABLE);
	for (i = 0; i < RNIC_LINK_MAX_GIDS + 3; i++)
		put_gid(nlh, i, gid_ll, 16);
	mnl_attr_nest_end(nlh, t);
	ok(rnic_link_parse(nlh, info) == 0 &&
	   info->n_gids == RNIC_LINK_MAX_GIDS && info->gids_truncated &&
	   info->gids[RNIC_LINK_MAX_GIDS - 1].index == RNIC_LINK_MAX_GIDS - 1,
	   "parse: GID table longer than the struct is truncated");

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CONTEXTS, 5);
	nlh->nlmsg_len -= 2;	/* cut the last attribute */
	ok(rnic_link_parse(nlh, info) == -EPROTO, "parse: truncated attribute");

	nlh = msg_start();
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 2;
	ok(rnic_link_parse(nlh, info) == -EPROTO, "parse: no genl header");

	free(info);
}

/* ---- printing ---- */

/* link_print() of @info, with the counters @st (NULL: none) */
static const char *print_stats(struct membuf *m,
			       const struct rnic_link_info *info, bool json,
			       bool pretty, struct rnic_stat_info *st)
{
	struct rnic rd = { .stats = st, .n_stats = st ? 1 : 0 };

	mb_open(m);
	rd.out = m->f;
	if (json) {
		rd.jw = rnic_json_new(m->f, pretty);
		rnic_json_start_array(rd.jw);
	}
	link_print(info, &rd);
	if (json) {
		rnic_json_end_array(rd.jw);
		rnic_json_free(rd.jw);
	}
	return mb_close(m);
}

static const char *print_one(struct membuf *m, const struct rnic_link_info *info,
			     bool json, bool pretty)
{
	return print_stats(m, info, json, pretty, NULL);
}

static void test_print(void)
{
	struct rnic_link_info *info = malloc(sizeof(*info));
	struct membuf m;

	rnic_link_parse(full_msg(true), info);
	ok_str(print_one(&m, info, false, false),
	       "0: rnic0: uverbs1024 port 1 state ACTIVE physical_state LINK_UP active_mtu 4096 netdev lo netdev_mtu 65536 max_burst 2048 contexts 0\n"
	       "    node_guid 0200:00ff:fe00:0000\n"
	       "    gid 0 fe80::200:ff:fe00:0\n"
	       "    gid 1 ::ffff:127.0.0.1\n",
	       "print: text, bound device");
	free(m.buf);

	ok_str(print_one(&m, info, true, false),
	       "[{\"ifindex\":0,\"ifname\":\"rnic0\",\"uverbs\":\"uverbs1024\","
	       "\"port\":1,\"state\":\"ACTIVE\",\"physical_state\":\"LINK_UP\","
	       "\"active_mtu\":4096,\"netdev\":\"lo\","
	       "\"netdev_index\":1,\"netdev_mtu\":65536,\"max_burst\":2048,"
	       "\"contexts\":0,"
	       "\"node_guid\":\"0200:00ff:fe00:0000\",\"gids\":["
	       "{\"index\":0,\"gid\":\"fe80::200:ff:fe00:0\"},"
	       "{\"index\":1,\"gid\":\"::ffff:127.0.0.1\"}]}]\n",
	       "print: JSON, bound device");
	free(m.buf);

	rnic_link_parse(full_msg(false), info);
	ok_str(print_one(&m, info, false, false),
	       "0: rnic0: uverbs1024 port 1 state ACTIVE active_mtu 4096 contexts 0\n"
	       "    node_guid 0200:00ff:fe00:0000\n"
	       "    gid 0 fe80::200:ff:fe00:0\n",
	       "print: text, unbound device");
	free(m.buf);

	ok_str(print_one(&m, info, true, true),
	       "[\n"
	       "  {\n"
	       "    \"ifindex\": 0,\n"
	       "    \"ifname\": \"rnic0\",\n"
	       "    \"uverbs\": \"uverbs1024\",\n"
	       "    \"port\": 1,\n"
	       "    \"state\": \"ACTIVE\",\n"
	       "    \"active_mtu\": 4096,\n"
	       "    \"contexts\": 0,\n"
	       "    \"node_guid\": \"0200:00ff:fe00:0000\",\n"
	       "    \"gids\": [\n"
	       "      {\n"
	       "        \"index\": 0,\n"
	       "        \"gid\": \"fe80::200:ff:fe00:0\"\n"
	       "      }\n"
	       "    ]\n"
	       "  }\n"
	       "]\n",
	       "print: pretty JSON, unbound device");
	free(m.buf);

	memset(info, 0, sizeof(*info));
	strcpy(info->name, "bare\"1");
	info->attrs = UINT64_C(1) << RNIC_NL_ATTR_DEV_NAME;
	ok_str(print_one(&m, info, false, false), "bare\"1:\n",
	       "print: text, only a name");
	free(m.buf);
	ok_str(print_one(&m, info, true, false), "[{\"ifname\":\"bare\\\"1\"}]\n",
	       "print: JSON, only a name, escaped");
	free(m.buf);

	free(info);
}

/* ---- STAT_GET parsing and printing ---- */

/* A LINK_GET reply of device "r" with a FAULT nest of the given settings. */
static struct nlmsghdr *fault_msg(const uint32_t *val, uint32_t has)
{
	struct nlmsghdr *nlh = msg_start();
	struct nlattr *t;
	unsigned int i;

	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_FAULT);
	for (i = 0; i <= RNIC_NL_FAULT_MAX; i++)
		if (has & (UINT32_C(1) << i))
			mnl_attr_put_u32(nlh, i, val[i]);
	mnl_attr_put_u32(nlh, RNIC_NL_FAULT_MAX + 7, 1);	/* skipped */
	mnl_attr_nest_end(nlh, t);
	return nlh;
}

static void test_fault(void)
{
	struct rnic_link_info *info = malloc(sizeof(*info));
	uint32_t val[RNIC_NL_FAULT_MAX + 1] = { 0 };
	uint32_t all = ((UINT32_C(1) << (RNIC_NL_FAULT_MAX + 1)) - 2);
	struct rnic_stat_info *st;
	unsigned int i, named = 0;
	struct nlmsghdr *nlh;
	struct membuf m;
	struct nlattr *t;

	for (i = 0; i <= RNIC_NL_FAULT_MAX; i++)
		named += !!rnic_fault_name(i);
	ok(named == RNIC_NL_FAULT_MAX && !rnic_fault_name(0) &&
	   !rnic_fault_name(RNIC_NL_FAULT_MAX + 1) &&
	   !strcmp(rnic_fault_name(RNIC_NL_FAULT_DELAY_US), "delay_us"),
	   "fault: every setting has a name");

	val[RNIC_NL_FAULT_DROP] = 200000;
	val[RNIC_NL_FAULT_CORRUPT] = 5;
	val[RNIC_NL_FAULT_DELAY_US] = 250;
	val[RNIC_NL_FAULT_RNR] = 3;
	nlh = fault_msg(val, all);
	ok(rnic_link_parse(nlh, info) == 0 && info->fault.has == all &&
	   !memcmp(info->fault.val, val, sizeof(val)) &&
	   (info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_FAULT)),
	   "fault: parsed, an unknown setting skipped");
	ok_str(print_one(&m, info, false, false),
	       "r:\n"
	       "    fault drop 20% duplicate 0% corrupt 0.0005% delay 0% delay_us 250 rnr 3 rem_access 0 retry_exc 0\n",
	       "fault: text line, rates as percentages");
	free(m.buf);
	ok_str(print_one(&m, info, true, false),
	       "[{\"ifname\":\"r\",\"fault\":{\"drop\":200000,\"duplicate\":0,"
	       "\"corrupt\":5,\"delay\":0,\"delay_us\":250,\"rnr\":3,"
	       "\"rem_access\":0,\"retry_exc\":0}}]\n",
	       "fault: JSON object, rates in ppm");
	free(m.buf);

	memset(val, 0, sizeof(val));
	rnic_link_parse(fault_msg(val, all), info);
	ok_str(print_one(&m, info, false, false), "r:\n",
	       "fault: no text line when none is set");
	free(m.buf);

	st = calloc(1, sizeof(*st));
	strcpy(st->name, "r");
	st->has = (UINT64_C(1) << (RNIC_NL_COUNTER_MAX + 1)) - 2;
	st->counters[RNIC_NL_COUNTER_FAULT_DROP] = 7;
	st->counters[RNIC_NL_COUNTER_FAULT_RETRY_EXC] = 2;
	st->counters[RNIC_NL_COUNTER_DROP_BAD_ICRC] = 9;	/* not shown */
	ok_str(print_stats(&m, info, false, false, st),
	       "r:\n"
	       "    fault drop 0% duplicate 0% corrupt 0% delay 0% delay_us 0 rnr 0 rem_access 0 retry_exc 0\n"
	       "    fault_drop 7 fault_duplicate 0 fault_corrupt 0 fault_delay 0 fault_rnr 0 fault_rem_access 0 fault_retry_exc 2\n",
	       "fault: lines when faults were applied, none set");
	free(m.buf);
	ok_str(print_stats(&m, info, true, false, st),
	       "[{\"ifname\":\"r\",\"fault\":{\"drop\":0,\"duplicate\":0,"
	       "\"corrupt\":0,\"delay\":0,\"delay_us\":0,\"rnr\":0,"
	       "\"rem_access\":0,\"retry_exc\":0,\"fault_drop\":7,"
	       "\"fault_duplicate\":0,\"fault_corrupt\":0,\"fault_delay\":0,"
	       "\"fault_rnr\":0,\"fault_rem_access\":0,\"fault_retry_exc\":2}}]\n",
	       "fault: JSON with the counters");
	free(m.buf);
	strcpy(st->name, "other");
	ok_str(print_stats(&m, info, false, false, st), "r:\n",
	       "fault: another device's counters are not this one's");
	free(m.buf);
	free(st);

	val[RNIC_NL_FAULT_RETRY_EXC] = 1;
	rnic_link_parse(fault_msg(val, UINT32_C(1) << RNIC_NL_FAULT_RETRY_EXC),
			info);
	ok_str(print_one(&m, info, false, false),
	       "r:\n    fault retry_exc 1\n",
	       "fault: only the settings the kernel sent");
	free(m.buf);

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_FAULT);
	mnl_attr_put_u16(nlh, RNIC_NL_FAULT_DROP, 1);
	mnl_attr_nest_end(nlh, t);
	ok(rnic_link_parse(nlh, info) == -EPROTO, "fault: u32 of 2 bytes");

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_FAULT, 1);
	ok(rnic_link_parse(nlh, info) == -EPROTO, "fault: not a nest");
	free(info);
}

static void test_counter_names(void)
{
	unsigned int i, j, named = 0, dup = 0;
	const char *a, *b;

	for (i = 0; i <= RNIC_NL_COUNTER_MAX; i++) {
		a = rnic_counter_name(i);
		named += !!a;
		for (j = 0; a && j < i; j++) {
			b = rnic_counter_name(j);
			dup += b && !strcmp(a, b);
		}
	}
	ok(named == RNIC_NL_COUNTER_MAX && !dup,
	   "counters: every counter has a name of its own");
	ok(!rnic_counter_name(RNIC_NL_COUNTER_UNSPEC) &&
	   !rnic_counter_name(RNIC_NL_COUNTER_MAX + 1),
	   "counters: UNSPEC and unknown ones have none");
	ok_str(rnic_counter_name(RNIC_NL_COUNTER_SENT_PKTS), "sent_pkts",
	       "counters: rxe's names");
	ok_str(rnic_counter_name(RNIC_NL_COUNTER_RETRY_RNR_EXCEEDED_ERR),
	       "retry_rnr_exceeded_err", "counters: rxe's names, long one");
}

/* A STAT_GET reply with three counters and an unknown one. */
static struct nlmsghdr *stat_msg(void)
{
	struct nlmsghdr *nlh = msg_start();
	struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct nlattr *t;

	genl->cmd = RNIC_NL_CMD_STAT_GET;
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "rnic0");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_DEV_INDEX, 2);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u32(nlh, 200, 7);		/* unknown: skipped */
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_COUNTERS);
	mnl_attr_put_u64(nlh, RNIC_NL_COUNTER_REQ_NOT_PEER, 5);
	mnl_attr_put_u64(nlh, RNIC_NL_COUNTER_SENT_PKTS, 1ull << 40);
	mnl_attr_put_u64(nlh, RNIC_NL_COUNTER_DROP_LENGTH, 0);
	mnl_attr_put_u64(nlh, 999, 7);		/* unknown: skipped */
	mnl_attr_nest_end(nlh, t);
	return nlh;
}

static const char *stat_print_one(struct membuf *m,
				  const struct rnic_stat_info *info, bool json)
{
	struct rnic rd = { 0 };

	mb_open(m);
	rd.out = m->f;
	if (json) {
		rd.jw = rnic_json_new(m->f, false);
		rnic_json_start_array(rd.jw);
	}
	stat_print(info, &rd);
	if (json) {
		rnic_json_end_array(rd.jw);
		rnic_json_free(rd.jw);
	}
	return mb_close(m);
}

static void test_stat(void)
{
	struct rnic_stat_info *info = malloc(sizeof(*info));
	struct nlmsghdr *nlh;
	struct nlattr *t;
	struct membuf m;

	ok(rnic_stat_parse(stat_msg(), info) == 0 &&
	   !strcmp(info->name, "rnic0") && info->index == 2 &&
	   info->port == 1 &&
	   info->counters[RNIC_NL_COUNTER_REQ_NOT_PEER] == 5 &&
	   info->counters[RNIC_NL_COUNTER_SENT_PKTS] == 1ull << 40 &&
	   info->has == ((UINT64_C(1) << RNIC_NL_COUNTER_REQ_NOT_PEER) |
			 (UINT64_C(1) << RNIC_NL_COUNTER_SENT_PKTS) |
			 (UINT64_C(1) << RNIC_NL_COUNTER_DROP_LENGTH)),
	   "stat parse: counters kept, unknown ones skipped");

	ok_str(stat_print_one(&m, info, false),
	       "2: rnic0: port 1 req_not_peer 5 sent_pkts 1099511627776 drop_length 0\n",
	       "stat print: text, only the counters sent");
	free(m.buf);
	ok_str(stat_print_one(&m, info, true),
	       "[{\"ifindex\":2,\"ifname\":\"rnic0\",\"port\":1,"
	       "\"req_not_peer\":5,\"sent_pkts\":1099511627776,"
	       "\"drop_length\":0}]\n",
	       "stat print: JSON");
	free(m.buf);

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_COUNTERS);
	mnl_attr_put_u32(nlh, RNIC_NL_COUNTER_REQ_NOT_PEER, 5);
	mnl_attr_nest_end(nlh, t);
	ok(rnic_stat_parse(nlh, info) == -EPROTO,
	   "stat parse: counter of 4 bytes");

	nlh = msg_start();
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_DEV_INDEX, 3);
	ok(rnic_stat_parse(nlh, info) == -EPROTO, "stat parse: no DEV_NAME");

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	mnl_attr_put_u8(nlh, RNIC_NL_ATTR_PORT_INDEX, 1);
	ok(rnic_stat_parse(nlh, info) == -EPROTO,
	   "stat parse: PORT_INDEX of 1 byte");
	free(info);
}

/* ---- object listings (RES_QP_GET, RES_MR_GET) ---- */

static struct nlmsghdr *obj_msg(bool qp, uint32_t id)
{
	struct nlmsghdr *nlh = msg_start();

	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "rnic0");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_DEV_INDEX, 2);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_ID, 7);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_PID, 1234);
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_CTX_COMM, "app");
	mnl_attr_put_u32(nlh, 200, 7);		/* unknown: skipped */
	if (qp) {
		mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_LQPN, id);
		mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_RQPN, id + 1);
		mnl_attr_put_u8(nlh, RNIC_NL_ATTR_RES_QP_TYPE, 2);
		mnl_attr_put_u8(nlh, RNIC_NL_ATTR_RES_QP_STATE, 3);
		mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_SQ_PSN, 0x123456);
		mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_RQ_PSN, 0x79);
	} else {
		mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_LKEY, id);
		mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_RKEY, id ^ 0xff00);
		mnl_attr_put(nlh, RNIC_NL_ATTR_PAD, 0, NULL);
		mnl_attr_put_u64(nlh, RNIC_NL_ATTR_RES_MRLEN, 1ull << 33);
	}
	return nlh;
}

/* Print @o through @print with the filters of @l; return the output. */
static const char *obj_print_one(struct membuf *m, rnic_genl_each_t print,
				 const struct rnic_res_obj *o,
				 struct res_list *l, bool json)
{
	struct rnic rd = { 0 };

	mb_open(m);
	rd.out = m->f;
	if (json) {
		rd.jw = rnic_json_new(m->f, false);
		rnic_json_start_array(rd.jw);
	}
	l->rd = &rd;
	print(o, l);
	if (json) {
		rnic_json_end_array(rd.jw);
		rnic_json_free(rd.jw);
	}
	return mb_close(m);
}

static void test_res_objs(void)
{
	struct rnic_res_obj o;
	struct res_list l;
	struct nlmsghdr *nlh;
	struct membuf m;

	memset(&l.f, 0xff, sizeof(l.f));
	ok(rnic_res_obj_parse(obj_msg(true, 5), &o) == 0 &&
	   !strcmp(o.name, "rnic0") && o.index == 2 && o.ctx == 7 &&
	   o.pid == 1234 && !strcmp(o.comm, "app") && o.lqpn == 5 &&
	   o.rqpn == 6 && o.qp_type == 2 && o.qp_state == 3 &&
	   o.sq_psn == 0x123456 && o.rq_psn == 0x79,
	   "obj parse: QP");
	ok_str(obj_print_one(&m, res_qp_print, &o, &l, false),
	       "2: rnic0: lqpn 5 rqpn 6 type RC state RTS sq-psn 1193046 rq-psn 121 ctx 7 pid 1234 comm app\n",
	       "obj print: QP, text");
	free(m.buf);
	ok_str(obj_print_one(&m, res_qp_print, &o, &l, true),
	       "[{\"ifindex\":2,\"ifname\":\"rnic0\",\"lqpn\":5,\"rqpn\":6,"
	       "\"type\":\"RC\",\"state\":\"RTS\",\"sq-psn\":1193046,"
	       "\"rq-psn\":121,\"ctx\":7,\"pid\":1234,\"comm\":\"app\"}]\n",
	       "obj print: QP, JSON");
	free(m.buf);
	l.f.lqpn = 6;
	ok_str(obj_print_one(&m, res_qp_print, &o, &l, false), "",
	       "obj print: lqpn filter excludes");
	free(m.buf);
	l.f.lqpn = 5;
	l.f.pid = 1;
	ok_str(obj_print_one(&m, res_qp_print, &o, &l, false), "",
	       "obj print: pid filter excludes");
	free(m.buf);
	l.f.pid = 1234;
	ok(*obj_print_one(&m, res_qp_print, &o, &l, false),
	   "obj print: matching filters print");
	free(m.buf);

	memset(&l.f, 0xff, sizeof(l.f));
	ok(rnic_res_obj_parse(obj_msg(false, 0x1234), &o) == 0 &&
	   o.lkey == 0x1234 && o.rkey == (0x1234 ^ 0xff00) &&
	   o.mrlen == 1ull << 33 &&
	   !(o.attrs & (UINT64_C(1) << RNIC_NL_ATTR_PAD)),
	   "obj parse: MR");
	ok_str(obj_print_one(&m, res_mr_print, &o, &l, false),
	       "2: rnic0: lkey 0x00001234 rkey 0x0000ed34 mrlen 8589934592 ctx 7 pid 1234 comm app\n",
	       "obj print: MR, text (keys in hex)");
	free(m.buf);
	ok_str(obj_print_one(&m, res_mr_print, &o, &l, true),
	       "[{\"ifindex\":2,\"ifname\":\"rnic0\",\"lkey\":4660,"
	       "\"rkey\":60724,\"mrlen\":8589934592,\"ctx\":7,\"pid\":1234,"
	       "\"comm\":\"app\"}]\n",
	       "obj print: MR, JSON (keys as numbers)");
	free(m.buf);
	l.f.rkey = 0x1234;
	ok_str(obj_print_one(&m, res_mr_print, &o, &l, false), "",
	       "obj print: rkey filter excludes");
	free(m.buf);

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "rnic0");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_PID, 9);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_HANDLE, 3);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_USERS, 2);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_CQE, 256);
	memset(&l.f, 0xff, sizeof(l.f));
	ok(rnic_res_obj_parse(nlh, &o) == 0 && o.handle == 3 && o.users == 2 &&
	   o.cqe == 256, "obj parse: handle, users, cqe");
	ok_str(obj_print_one(&m, res_cq_print, &o, &l, false),
	       "rnic0: cqn 3 cqe 256 users 2 pid 9\n", "obj print: CQ, text");
	free(m.buf);
	ok_str(obj_print_one(&m, res_pd_print, &o, &l, true),
	       "[{\"ifname\":\"rnic0\",\"pdn\":3,\"users\":2,\"pid\":9}]\n",
	       "obj print: PD, JSON");
	free(m.buf);
	l.f.pid = 8;
	ok_str(obj_print_one(&m, res_pd_print, &o, &l, false), "",
	       "obj print: PD, pid filter excludes");
	free(m.buf);

	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_MRLEN, 5);
	ok(rnic_res_obj_parse(nlh, &o) == -EPROTO, "obj parse: u64 of 4 bytes");
	nlh = msg_start();
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "r");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_QP_STATE, 3);
	ok(rnic_res_obj_parse(nlh, &o) == -EPROTO, "obj parse: u8 of 4 bytes");
	nlh = msg_start();
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_LQPN, 3);
	ok(rnic_res_obj_parse(nlh, &o) == -EPROTO, "obj parse: no DEV_NAME");
}

/* A CM id's message: its state, port space, type, owner, @src, @dst. */
static struct nlmsghdr *cm_msg(const struct rnic_cm_sockaddr *src,
			       const struct rnic_cm_sockaddr *dst)
{
	struct nlmsghdr *nlh = msg_start();

	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_PID, 42);
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_CTX_COMM, "srv");
	mnl_attr_put_u8(nlh, RNIC_NL_ATTR_RES_CM_STATE, RNIC_CM_LISTEN);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_CM_PS, RNIC_CM_PS_TCP);
	mnl_attr_put_u8(nlh, RNIC_NL_ATTR_RES_QP_TYPE, 2);
	if (src)
		mnl_attr_put(nlh, RNIC_NL_ATTR_RES_SRC_ADDR, sizeof(*src), src);
	if (dst)
		mnl_attr_put(nlh, RNIC_NL_ATTR_RES_DST_ADDR, sizeof(*dst), dst);
	return nlh;
}

static void test_cm_ids(void)
{
	struct res_list l;
	struct rnic_cm_sockaddr a4 = { { 0 } }, a6 = { { 0 } }, bad = { { 0 } };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rnic_res_obj o;
	struct nlmsghdr *nlh;
	struct membuf m;

	sin.sin_port = htons(7471);
	inet_pton(AF_INET, "10.0.0.1", &sin.sin_addr);
	memcpy(&a4, &sin, sizeof(sin));
	sin6.sin6_port = htons(40000);
	inet_pton(AF_INET6, "fd00::2", &sin6.sin6_addr);
	memcpy(&a6, &sin6, sizeof(sin6));
	memset(&l.f, 0xff, sizeof(l.f));

	ok(rnic_res_cm_parse(cm_msg(NULL, NULL), &o) == 0 &&
	   o.cm_state == RNIC_CM_LISTEN && o.cm_ps == RNIC_CM_PS_TCP &&
	   o.pid == 42 && !(o.attrs & (UINT64_C(1) << RNIC_NL_ATTR_DEV_NAME)),
	   "cm parse: an id on no device");
	ok_str(obj_print_one(&m, res_cm_print, &o, &l, false),
	       "state LISTEN ps TCP type RC pid 42 comm srv\n",
	       "cm print: no device, no address");
	free(m.buf);
	ok(rnic_res_obj_parse(cm_msg(NULL, NULL), &o) == -EPROTO,
	   "obj parse: a CM id on no device is no object of a device");

	nlh = cm_msg(&a4, &a6);
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, "rnic0");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_DEV_INDEX, 3);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_LQPN, 17);
	ok(rnic_res_cm_parse(nlh, &o) == 0, "cm parse: addresses and QP");
	ok_str(obj_print_one(&m, res_cm_print, &o, &l, false),
	       "3: rnic0: state LISTEN ps TCP type RC src-addr 10.0.0.1:7471 dst-addr [fd00::2]:40000 lqpn 17 pid 42 comm srv\n",
	       "cm print: text");
	free(m.buf);
	ok_str(obj_print_one(&m, res_cm_print, &o, &l, true),
	       "[{\"ifindex\":3,\"ifname\":\"rnic0\",\"state\":\"LISTEN\","
	       "\"ps\":\"TCP\",\"type\":\"RC\",\"src-addr\":\"10.0.0.1:7471\","
	       "\"dst-addr\":\"[fd00::2]:40000\",\"lqpn\":17,\"pid\":42,"
	       "\"comm\":\"srv\"}]\n",
	       "cm print: JSON");
	free(m.buf);
	l.f.lqpn = 18;
	ok_str(obj_print_one(&m, res_cm_print, &o, &l, false), "",
	       "cm print: lqpn filter excludes");
	free(m.buf);

	bad.data[0] = AF_UNIX;
	ok(rnic_res_cm_parse(cm_msg(&bad, NULL), &o) == -EPROTO,
	   "cm parse: an address of another family");
	nlh = cm_msg(NULL, NULL);
	mnl_attr_put(nlh, RNIC_NL_ATTR_RES_SRC_ADDR, sizeof(sin), &sin);
	ok(rnic_res_cm_parse(nlh, &o) == -EPROTO,
	   "cm parse: an address of another size");
	nlh = msg_start();
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_PID, 42);
	ok(rnic_res_cm_parse(nlh, &o) == -EPROTO, "cm parse: no state");
}

/* ---- RES_GET parsing and printing ---- */

static struct nlmsghdr *res_msg_start(const char *name)
{
	struct nlmsghdr *nlh = msg_start();
	struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);

	genl->cmd = RNIC_NL_CMD_RES_GET;
	if (name)
		mnl_attr_put_strz(nlh, RNIC_NL_ATTR_DEV_NAME, name);
	return nlh;
}

/* The counts as the kernel sends them: u32, u32, padded u64. */
static void put_counts(struct nlmsghdr *nlh, uint32_t pd, uint32_t mr,
		       uint64_t pinned)
{
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_PD, pd);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_MR, mr);
	mnl_attr_put(nlh, RNIC_NL_ATTR_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, RNIC_NL_ATTR_RES_PINNED, pinned);
}

static void put_ctx(struct nlmsghdr *nlh, uint32_t id, uint32_t pid,
		    const char *comm, uint32_t pd, uint32_t mr, uint64_t pinned)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_ENTRY);

	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_ID, id);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_PID, pid);
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_CTX_COMM, comm);
	/* A resource kind of a newer kernel: skipped. */
	mnl_attr_put_u32(nlh, __RNIC_NL_ATTR_MAX, 9);
	put_counts(nlh, pd, mr, pinned);
	mnl_attr_put(nlh, 999, 3, "xyz");	/* unknown: skipped */
	mnl_attr_nest_end(nlh, e);
}

/* A reply with two contexts and unknown attributes at every level. */
static struct nlmsghdr *res_full_msg(bool contexts)
{
	struct nlmsghdr *nlh = res_msg_start("rnic0");
	struct nlattr *t, *u;

	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_DEV_INDEX, 0);
	put_counts(nlh, contexts ? 2 : 0, contexts ? 3 : 0,
		   contexts ? 12288 : 0);
	mnl_attr_put_u64(nlh, __RNIC_NL_ATTR_MAX + 1, 5);	/* skipped */
	u = mnl_attr_nest_start(nlh, 201);			/* skipped */
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_ID, 5);
	mnl_attr_nest_end(nlh, u);
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	if (contexts) {
		put_ctx(nlh, 1, 123, "ibv_test", 2, 3, 12288);
		mnl_attr_put_u32(nlh, RNIC_NL_ATTR_GID_INDEX, 1); /* skipped */
		put_ctx(nlh, 7, 456, "a b\n\x7f\"", 0, 0, 0);
	}
	mnl_attr_nest_end(nlh, t);
	return nlh;
}

static void test_res_kinds(void)
{
	unsigned int k, l;
	bool unique = true;

	ok(RNIC_RES_NR_KINDS == 11 &&
	   rnic_res_kinds[RNIC_RES_MW].attr == RNIC_NL_ATTR_RES_MW &&
	   !strcmp(rnic_res_kinds[RNIC_RES_MW].name, "mw") &&
	   rnic_res_kinds[RNIC_RES_CQ].attr == RNIC_NL_ATTR_RES_CQ &&
	   !strcmp(rnic_res_kinds[RNIC_RES_QP].name, "qp") &&
	   rnic_res_kinds[RNIC_RES_PD].attr == RNIC_NL_ATTR_RES_PD &&
	   !strcmp(rnic_res_kinds[RNIC_RES_PD].name, "pd") &&
	   rnic_res_kinds[RNIC_RES_PD].width == 4 &&
	   rnic_res_kinds[RNIC_RES_MR].attr == RNIC_NL_ATTR_RES_MR &&
	   rnic_res_kinds[RNIC_RES_MR].width == 4 &&
	   rnic_res_kinds[RNIC_RES_PINNED].attr == RNIC_NL_ATTR_RES_PINNED &&
	   !strcmp(rnic_res_kinds[RNIC_RES_PINNED].name, "pinned") &&
	   rnic_res_kinds[RNIC_RES_PINNED].width == 8,
	   "res: kinds table matches the enum");
	for (k = 0; k < RNIC_RES_NR_KINDS; k++)
		for (l = k + 1; l < RNIC_RES_NR_KINDS; l++)
			if (rnic_res_kinds[k].attr == rnic_res_kinds[l].attr ||
			    !strcmp(rnic_res_kinds[k].name,
				    rnic_res_kinds[l].name))
				unique = false;
	ok(unique, "res: kinds have distinct attributes and names");
}

static void test_res_parse(void)
{
	struct rnic_res_info *info = malloc(sizeof(*info));
	const struct rnic_res_ctx *c;
	struct nlmsghdr *nlh;
	struct nlattr *t, *e;
	char comm[RNIC_RES_COMM_SIZE + 1];
	unsigned int i, k;
	bool all;
	int ret;

	ret = rnic_res_parse(res_full_msg(true), info);
	ok(ret == 0, "res parse: full reply (%d)", ret);
	ok(!strcmp(info->name, "rnic0") && info->index == 0 &&
	   info->counts[RNIC_RES_PD] == 2 && info->counts[RNIC_RES_MR] == 3 &&
	   info->counts[RNIC_RES_PINNED] == 12288,
	   "res parse: device totals");
	/* The message carries pd, mr and pinned only. */
	all = true;
	for (k = 0; k < RNIC_RES_NR_KINDS; k++)
		all = all && rnic_res_has(info->attrs, k) ==
			(k == RNIC_RES_PD || k == RNIC_RES_MR ||
			 k == RNIC_RES_PINNED);
	ok(all && (info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_CTX_TABLE)) &&
	   !(info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_PAD)),
	   "res parse: presence bits");
	c = info->ctxs;
	ok(info->n_ctxs == 2 && !info->ctxs_truncated &&
	   c[0].id == 1 && c[0].pid == 123 && !strcmp(c[0].comm, "ibv_test") &&
	   c[0].counts[RNIC_RES_PD] == 2 && c[0].counts[RNIC_RES_MR] == 3 &&
	   c[0].counts[RNIC_RES_PINNED] == 12288 &&
	   rnic_res_has(c[0].attrs, RNIC_RES_PINNED) &&
	   c[1].id == 7 && c[1].pid == 456 &&
	   !strcmp(c[1].comm, "a b\n\x7f\"") &&
	   rnic_res_has(c[1].attrs, RNIC_RES_PD) &&
	   c[1].counts[RNIC_RES_PD] == 0,
	   "res parse: contexts, unknown attributes skipped at every level");

	ok(rnic_res_parse(res_full_msg(false), info) == 0 &&
	   info->n_ctxs == 0 && info->counts[RNIC_RES_PINNED] == 0 &&
	   rnic_res_has(info->attrs, RNIC_RES_PINNED) &&
	   (info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_CTX_TABLE)),
	   "res parse: idle device, empty context table");

	nlh = res_msg_start("r");
	ok(rnic_res_parse(nlh, info) == 0 && info->attrs ==
	   (UINT64_C(1) << RNIC_NL_ATTR_DEV_NAME) && !info->n_ctxs,
	   "res parse: only a name (counts absent, not zero)");

	nlh = res_msg_start(NULL);
	put_counts(nlh, 1, 1, 1);
	ok(rnic_res_parse(nlh, info) == -EPROTO, "res parse: no DEV_NAME");

	nlh = res_msg_start("r");
	mnl_attr_put_u64(nlh, RNIC_NL_ATTR_RES_PD, 1);
	ok(rnic_res_parse(nlh, info) == -EPROTO, "res parse: u32 count of 8 bytes");

	nlh = res_msg_start("r");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_RES_PINNED, 1);
	ok(rnic_res_parse(nlh, info) == -EPROTO, "res parse: u64 count of 4 bytes");

	nlh = res_msg_start("r");
	mnl_attr_put_u16(nlh, RNIC_NL_ATTR_DEV_INDEX, 1);
	ok(rnic_res_parse(nlh, info) == -EPROTO, "res parse: DEV_INDEX of 2 bytes");

	nlh = res_msg_start("r");
	mnl_attr_put(nlh, RNIC_NL_ATTR_CTX_TABLE, 2, "ab");
	ok(rnic_res_parse(nlh, info) == -EPROTO,
	   "res parse: context table that is not a nest");

	nlh = res_msg_start("r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	e = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_ENTRY);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_PID, 1);
	mnl_attr_put_strz(nlh, RNIC_NL_ATTR_CTX_COMM, "x");
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, t);
	ok(rnic_res_parse(nlh, info) == -EPROTO,
	   "res parse: context entry without CTX_ID");

	nlh = res_msg_start("r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	e = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_ENTRY);
	mnl_attr_put_u16(nlh, RNIC_NL_ATTR_CTX_ID, 1);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, t);
	ok(rnic_res_parse(nlh, info) == -EPROTO, "res parse: CTX_ID of 2 bytes");

	nlh = res_msg_start("r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	e = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_ENTRY);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_ID, 1);
	mnl_attr_put_u64(nlh, RNIC_NL_ATTR_RES_MR, 1);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, t);
	ok(rnic_res_parse(nlh, info) == -EPROTO,
	   "res parse: context count of the wrong width");

	nlh = res_msg_start("r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	e = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_ENTRY);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_ID, 1);
	mnl_attr_put(nlh, RNIC_NL_ATTR_CTX_COMM, 3, "abc");
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, t);
	ok(rnic_res_parse(nlh, info) == -EPROTO, "res parse: comm without NUL");

	memset(comm, 'c', sizeof(comm));
	comm[RNIC_RES_COMM_SIZE - 1] = '\0';
	nlh = res_msg_start("r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	put_ctx(nlh, 1, 2, comm, 0, 0, 0);
	mnl_attr_nest_end(nlh, t);
	ok(rnic_res_parse(nlh, info) == 0 &&
	   strlen(info->ctxs[0].comm) == RNIC_RES_COMM_SIZE - 1,
	   "res parse: longest comm fits");
	comm[RNIC_RES_COMM_SIZE - 1] = 'c';
	comm[RNIC_RES_COMM_SIZE] = '\0';
	nlh = res_msg_start("r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	put_ctx(nlh, 1, 2, comm, 0, 0, 0);
	mnl_attr_nest_end(nlh, t);
	ok(rnic_res_parse(nlh, info) == -EPROTO, "res parse: comm too long");

	/* An entry whose last attribute runs past the end of the nest. */
	nlh = res_msg_start("r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	e = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_ENTRY);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_ID, 1);
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_CTX_PID, 1);
	mnl_attr_nest_end(nlh, e);
	e->nla_len -= 2;
	mnl_attr_nest_end(nlh, t);
	ok(rnic_res_parse(nlh, info) == -EPROTO,
	   "res parse: truncated attribute inside a context entry");

	nlh = res_msg_start("r");
	put_counts(nlh, 1, 1, 1);
	nlh->nlmsg_len -= 4;	/* cut the last attribute */
	ok(rnic_res_parse(nlh, info) == -EPROTO, "res parse: truncated message");

	nlh = res_msg_start("r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	for (i = 0; i < RNIC_RES_MAX_CTXS + 6; i++)
		put_ctx(nlh, i, 100 + i, "p", i, 0, 0);
	mnl_attr_nest_end(nlh, t);
	ret = rnic_res_parse(nlh, info);
	ok(ret == 0 && info->n_ctxs == RNIC_RES_MAX_CTXS &&
	   info->ctxs_truncated &&
	   info->ctxs[RNIC_RES_MAX_CTXS - 1].id == RNIC_RES_MAX_CTXS - 1 &&
	   info->ctxs[RNIC_RES_MAX_CTXS - 1].counts[RNIC_RES_PD] ==
		RNIC_RES_MAX_CTXS - 1,
	   "res parse: more contexts than the struct holds are truncated");

	/* Contexts beyond the limit are still validated. */
	nlh = res_msg_start("r");
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	for (i = 0; i < RNIC_RES_MAX_CTXS; i++)
		put_ctx(nlh, i, 100 + i, "p", 0, 0, 0);
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_ENTRY));
	mnl_attr_nest_end(nlh, t);
	ok(rnic_res_parse(nlh, info) == -EPROTO,
	   "res parse: malformed context past the limit");

	nlh = res_msg_start("r");
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 2;
	ok(rnic_res_parse(nlh, info) == -EPROTO, "res parse: no genl header");

	free(info);
}

static const char *res_print_one(struct membuf *m,
				 const struct rnic_res_info *info, bool json,
				 bool pretty)
{
	struct rnic rd = { 0 };

	mb_open(m);
	rd.out = m->f;
	if (json) {
		rd.jw = rnic_json_new(m->f, pretty);
		rnic_json_start_array(rd.jw);
	}
	res_print(info, &rd);
	if (json) {
		rnic_json_end_array(rd.jw);
		rnic_json_free(rd.jw);
	}
	return mb_close(m);
}

/* Run res_print() with stderr sent to a file; return what it wrote. */
static char *res_print_stderr(const struct rnic_res_info *info)
{
	static char err[256];
	struct membuf m;
	FILE *tmp = tmpfile();
	int saved;
	size_t n;

	err[0] = '\0';
	if (!tmp)
		return err;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(tmp), STDERR_FILENO);
	res_print_one(&m, info, false, false);
	free(m.buf);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, sizeof(err) - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	return err;
}

static void test_res_print(void)
{
	struct rnic_res_info *info = malloc(sizeof(*info));
	struct nlmsghdr *nlh;
	struct nlattr *t;
	struct membuf m;
	unsigned int i;

	rnic_res_parse(res_full_msg(true), info);
	ok_str(res_print_one(&m, info, false, false),
	       "0: rnic0: pd 2 mr 3 pinned 12288\n"
	       "    ctx 1 pid 123 pd 2 mr 3 pinned 12288 comm ibv_test\n"
	       "    ctx 7 pid 456 pd 0 mr 0 pinned 0 comm a b??\"\n",
	       "res print: text, contexts, control bytes of comm replaced");
	free(m.buf);

	ok_str(res_print_one(&m, info, true, false),
	       "[{\"ifindex\":0,\"ifname\":\"rnic0\",\"pd\":2,\"mr\":3,"
	       "\"pinned\":12288,\"contexts\":["
	       "{\"ctx\":1,\"pid\":123,\"pd\":2,\"mr\":3,\"pinned\":12288,"
	       "\"comm\":\"ibv_test\"},"
	       "{\"ctx\":7,\"pid\":456,\"pd\":0,\"mr\":0,\"pinned\":0,"
	       "\"comm\":\"a b\\n\x7f\\\"\"}]}]\n",
	       "res print: JSON, contexts, comm escaped");
	free(m.buf);

	rnic_res_parse(res_full_msg(false), info);
	ok_str(res_print_one(&m, info, false, false),
	       "0: rnic0: pd 0 mr 0 pinned 0\n",
	       "res print: text, idle device, zeros printed");
	free(m.buf);

	ok_str(res_print_one(&m, info, true, false),
	       "[{\"ifindex\":0,\"ifname\":\"rnic0\",\"pd\":0,\"mr\":0,"
	       "\"pinned\":0,\"contexts\":[]}]\n",
	       "res print: JSON, idle device");
	free(m.buf);

	rnic_res_parse(res_full_msg(true), info);
	info->n_ctxs = 1;
	ok_str(res_print_one(&m, info, true, true),
	       "[\n"
	       "  {\n"
	       "    \"ifindex\": 0,\n"
	       "    \"ifname\": \"rnic0\",\n"
	       "    \"pd\": 2,\n"
	       "    \"mr\": 3,\n"
	       "    \"pinned\": 12288,\n"
	       "    \"contexts\": [\n"
	       "      {\n"
	       "        \"ctx\": 1,\n"
	       "        \"pid\": 123,\n"
	       "        \"pd\": 2,\n"
	       "        \"mr\": 3,\n"
	       "        \"pinned\": 12288,\n"
	       "        \"comm\": \"ibv_test\"\n"
	       "      }\n"
	       "    ]\n"
	       "  }\n"
	       "]\n",
	       "res print: pretty JSON");
	free(m.buf);

	rnic_res_parse(res_msg_start("bare"), info);
	ok_str(res_print_one(&m, info, false, false), "bare:\n",
	       "res print: text, absent counts are not printed");
	free(m.buf);
	ok_str(res_print_one(&m, info, true, false), "[{\"ifname\":\"bare\"}]\n",
	       "res print: JSON, only a name");
	free(m.buf);

	nlh = res_msg_start("big");
	mnl_attr_put_u32(nlh, RNIC_NL_ATTR_DEV_INDEX, 3);
	put_counts(nlh, 0, 0, UINT64_C(1) << 40);
	t = mnl_attr_nest_start(nlh, RNIC_NL_ATTR_CTX_TABLE);
	for (i = 0; i < RNIC_RES_MAX_CTXS + 1; i++)
		put_ctx(nlh, i, 1, "p", 0, 0, 0);
	mnl_attr_nest_end(nlh, t);
	rnic_res_parse(nlh, info);
	ok_str(res_print_stderr(info),
	       "rnic: big: only the first 64 contexts are shown\n",
	       "res print: truncation warned on stderr");
	info->ctxs_truncated = false;	/* the warning is tested: hush it */
	ok(strstr(res_print_one(&m, info, false, false),
		  "3: big: pd 0 mr 0 pinned 1099511627776\n    ctx 0 pid 1 ") ==
	   m.buf, "res print: u64 count");
	free(m.buf);

	free(info);
}

/* ---- generic netlink client, against nlctrl ---- */

struct fam_dump {
	int families;
	bool saw_nlctrl;
};

static int fam_dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct fam_dump *d = arg;
	const struct nlattr *a;

	d->families++;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_NAME &&
		    !strcmp(mnl_attr_get_str(a), "nlctrl"))
			d->saw_nlctrl = true;
	return MNL_CB_OK;
}

static int stop_cb(const struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	++*(int *)arg;
	return MNL_CB_STOP;
}

static int fail_cb(const struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

static int build_name(struct nlmsghdr *nlh, void *arg)
{
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, arg);
	return 0;
}

static int build_bad_id(struct nlmsghdr *nlh, void *arg)
{
	(void)arg;
	mnl_attr_put_u8(nlh, CTRL_ATTR_FAMILY_ID, 1);	/* policy: u16 */
	return 0;
}

static int build_fail(struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	return -E2BIG;
}

static void test_genl(void)
{
	struct rnic_genl *g, *h;
	struct fam_dump d = { 0 };
	int ret, n = 0;

	g = rnic_genl_open_family("nlctrl");
	if (!g) {
		/* No generic netlink at all (a restricted sandbox). */
		ok(true, "genl # SKIP cannot open nlctrl: %s", strerror(errno));
		return;
	}
	ok(rnic_genl_family_id(g) == GENL_ID_CTRL &&
	   rnic_genl_family_version(g) >= 1, "genl: nlctrl resolved");

	errno = 0;
	h = rnic_genl_open();
	if (access("/sys/module/rnic", F_OK) == 0)
		ok(h != NULL, "genl: rnic family found (module loaded)");
	else
		ok(!h && errno == ENOENT,
		   "genl: missing family gives ENOENT (errno %d)", errno);
	rnic_genl_close(h);

	ret = rnic_genl_request(g, CTRL_CMD_GETFAMILY, NLM_F_DUMP, NULL,
				fam_dump_cb, &d);
	ok(ret == 0 && d.families > 1 && d.saw_nlctrl,
	   "genl: dump of families (%d)", d.families);

	ret = rnic_genl_request(g, CTRL_CMD_GETFAMILY, 0, build_name,
				fam_dump_cb, "nosuchfamily");
	ok(ret == -ENOENT, "genl: doit error code (%d)", ret);

	ret = rnic_genl_request(g, CTRL_CMD_GETFAMILY, 0, build_bad_id, NULL,
				NULL);
	/* EINVAL or ERANGE, depending on the kernel */
	ok((ret == -EINVAL || ret == -ERANGE) && rnic_genl_errmsg(g)[0] &&
	   rnic_genl_err_offset(g) == MNL_NLMSG_HDRLEN + GENL_HDRLEN,
	   "genl: policy error %d with extack '%s' at offset %u", ret,
	   rnic_genl_errmsg(g), rnic_genl_err_offset(g));

	ret = rnic_genl_request(g, CTRL_CMD_GETFAMILY, 0, build_name, NULL,
				"nlctrl");
	ok(ret == 0 && !rnic_genl_errmsg(g)[0] && !rnic_genl_err_offset(g),
	   "genl: success clears the extack message");

	ret = rnic_genl_request(g, CTRL_CMD_GETFAMILY, NLM_F_DUMP, NULL,
				stop_cb, &n);
	ok(ret == 0 && n == 1, "genl: MNL_CB_STOP ignores the rest of a dump");
	ret = rnic_genl_request(g, CTRL_CMD_GETFAMILY, NLM_F_DUMP, NULL,
				fail_cb, NULL);
	ok(ret == -EBADMSG, "genl: callback error is returned (%d)", ret);
	ret = rnic_genl_request(g, CTRL_CMD_GETFAMILY, 0, build_name, NULL,
				"nlctrl");
	ok(ret == 0, "genl: socket usable after an aborted dump");

	ret = rnic_genl_request(g, CTRL_CMD_GETFAMILY, 0, build_fail, NULL,
				NULL);
	ok(ret == -E2BIG, "genl: build error aborts the request");

	rnic_genl_close(g);
	rnic_genl_close(NULL);
}

int main(void)
{
	test_json_escape();
	test_json_writer();
	test_match();
	test_dispatch();
	test_format();
	test_parse();
	test_print();
	test_fault();
	test_counter_names();
	test_stat();
	test_res_objs();
	test_cm_ids();
	test_res_kinds();
	test_res_parse();
	test_res_print();
	test_genl();

	printf("1..%d\n", n_tests);
	printf("# %d passed, %d failed\n", n_tests - n_failed, n_failed);
	return n_failed ? 1 : 0;
}
