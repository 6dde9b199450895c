// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic_genl: client for the "rnic" generic netlink family (see
 * rnic_genl.h for the API contract).
 *
 * One request at a time: rnic_genl_request() sends a message with a fresh
 * sequence number and NLM_F_ACK, then reads until the request is finished
 * (NLMSG_ERROR for a plain request, NLMSG_DONE for a dump). Messages that
 * carry another sequence number are left-overs of an earlier, aborted
 * request and are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>

#include <rdma/rnic-netlink.h>

#include "rnic_genl.h"

/*
 * Initial receive buffer: big enough for any message the kernel puts in
 * one dump skb. A doit answer may be bigger (RES_GET of a device with
 * many contexts); the buffer then grows to fit it.
 */
#define RNIC_GENL_RECV_SIZE 32768u

struct rnic_genl {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
	uint16_t family;
	uint32_t version;
	uint32_t err_offset;
	uint32_t err_miss_type;
	char errmsg[RNIC_GENL_ERRMSG_SIZE];
	char sbuf[RNIC_GENL_SEND_SIZE];
	char *rbuf;
	size_t rsize;
};

/* State of the request being processed. */
struct genl_xfer {
	struct rnic_genl *g;
	mnl_cb_t cb;
	void *arg;
	bool done;	/* final ACK / error / NLMSG_DONE seen */
	bool stopped;	/* cb returned MNL_CB_STOP: ignore further data */
	bool intr;	/* NLM_F_DUMP_INTR seen */
	int err;	/* first error (negative errno) or 0 */
};

/*
 * Walk the attributes in [buf, buf + len). Return 0, the first non-zero
 * value of @fn, or -EPROTO if the area ends with a truncated attribute.
 */
static int walk_attrs(const void *buf, size_t len,
		      int (*fn)(const struct nlattr *attr, void *data),
		      void *data)
{
	const char *end = (const char *)buf + len;
	const struct nlattr *attr = buf;
	int ret;

	while (mnl_attr_ok(attr, end - (const char *)attr)) {
		ret = fn(attr, data);
		if (ret)
			return ret;
		attr = mnl_attr_next(attr);
	}
	/* At most alignment padding may remain. */
	if (end - (const char *)attr >= (long)sizeof(struct nlattr))
		return -EPROTO;
	return 0;
}

static int extack_attr(const struct nlattr *attr, void *data)
{
	struct rnic_genl *g = data;

	switch (mnl_attr_get_type(attr)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return 0;
		/* Copy, truncating if needed; the source is NUL-terminated. */
		snprintf(g->errmsg, sizeof(g->errmsg), "%s",
			 mnl_attr_get_str(attr));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return 0;
		g->err_offset = mnl_attr_get_u32(attr);
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return 0;
		g->err_miss_type = mnl_attr_get_u32(attr);
		break;
	default:
		break;
	}
	return 0;
}

/* Extended ACK TLVs of an NLMSG_ERROR or NLMSG_DONE message. */
static void parse_extack(struct rnic_genl *g, const struct nlmsghdr *nlh,
			 size_t tlv_off)
{
	size_t plen = mnl_nlmsg_get_payload_len(nlh);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || tlv_off > plen)
		return;
	/* A malformed TLV area only loses the message; ignore the verdict. */
	walk_attrs((const char *)mnl_nlmsg_get_payload(nlh) + tlv_off,
		   plen - tlv_off, extack_attr, g);
}

static void xfer_fail(struct genl_xfer *x, int err)
{
	if (!x->err)
		x->err = err;
}

static void handle_error(struct genl_xfer *x, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	x->done = true;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		xfer_fail(x, -EPROTO);
		return;
	}
	/* Without NLM_F_CAPPED the request follows its header. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
	    e->msg.nlmsg_len >= sizeof(struct nlmsghdr))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	parse_extack(x->g, nlh, off);
	if (e->error > 0 || e->error < -4095)
		xfer_fail(x, -EPROTO);
	else if (e->error)
		xfer_fail(x, e->error);
}

static void handle_done(struct genl_xfer *x, const struct nlmsghdr *nlh)
{
	int err;

	x->done = true;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(int))
		return;
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	parse_extack(x->g, nlh, sizeof(int));
	if (err > 0 || err < -4095)
		xfer_fail(x, -EPROTO);
	else if (err)
		xfer_fail(x, err);
}

static void handle_data(struct genl_xfer *x, const struct nlmsghdr *nlh)
{
	int ret;

	if (!x->cb || x->stopped || x->err)
		return;
	errno = 0;
	ret = x->cb(nlh, x->arg);
	if (ret == MNL_CB_STOP) {
		x->stopped = true;
	} else if (ret < MNL_CB_STOP) {
		xfer_fail(x, errno > 0 ? -errno : -EIO);
	}
}

/* Process one datagram; returns -EPROTO if it is not a netlink stream. */
static int handle_buf(struct genl_xfer *x, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int rem = len;

	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		if (nlh->nlmsg_seq != x->g->seq || nlh->nlmsg_pid != x->g->portid)
			continue;	/* not ours, or an earlier request's */
		if (x->done)
			continue;
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
			x->intr = true;
		switch (nlh->nlmsg_type) {
		case NLMSG_ERROR:
			handle_error(x, nlh);
			break;
		case NLMSG_DONE:
			handle_done(x, nlh);
			break;
		case NLMSG_NOOP:
		case NLMSG_OVERRUN:
			break;
		default:
			if (nlh->nlmsg_type >= NLMSG_MIN_TYPE)
				handle_data(x, nlh);
			break;
		}
	}
	return rem > 0 ? -EPROTO : 0;
}

/*
 * Receive one datagram into g->rbuf, first growing it to the datagram's
 * size. Return its length or a negative errno (ENOBUFS: overrun).
 */
static ssize_t genl_recv(struct rnic_genl *g)
{
	ssize_t n;
	char *p;

	n = recv(mnl_socket_get_fd(g->nl), NULL, 0, MSG_PEEK | MSG_TRUNC);
	if (n < 0)
		return -errno;
	if ((size_t)n > g->rsize) {
		p = realloc(g->rbuf, n);
		if (!p)
			return -ENOMEM;
		g->rbuf = p;
		g->rsize = n;
	}
	n = mnl_socket_recvfrom(g->nl, g->rbuf, g->rsize);
	/* ENOSPC (truncated) only if the datagram changed under us. */
	return n < 0 ? -errno : n;
}

static int genl_xfer(struct rnic_genl *g, uint16_t family, uint8_t cmd,
		     uint16_t nlm_flags,
		     int (*build)(struct nlmsghdr *nlh, void *arg),
		     mnl_cb_t cb, void *arg)
{
	struct genl_xfer x = { .g = g, .cb = cb, .arg = arg };
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	ssize_t n;
	int ret;

	g->errmsg[0] = '\0';
	g->err_offset = 0;
	g->err_miss_type = 0;

	memset(g->sbuf, 0, MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*genl)));
	nlh = mnl_nlmsg_put_header(g->sbuf);
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | nlm_flags;
	nlh->nlmsg_seq = ++g->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = RNIC_GENL_VERSION;

	if (build) {
		ret = build(nlh, arg);
		if (ret)
			return ret < 0 ? ret : -EINVAL;
	}

	if (mnl_socket_sendto(g->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;

	while (!x.done) {
		n = genl_recv(g);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return n;
		ret = handle_buf(&x, g->rbuf, n);
		if (ret)
			return ret;
	}
	if (!x.err && x.intr)
		x.err = -EINTR;
	return x.err;
}

int rnic_genl_request(struct rnic_genl *g, uint8_t cmd, uint16_t nlm_flags,
		      int (*build)(struct nlmsghdr *nlh, void *arg),
		      mnl_cb_t cb, void *arg)
{
	return genl_xfer(g, g->family, cmd, nlm_flags, build, cb, arg);
}

const char *rnic_genl_errmsg(const struct rnic_genl *g)
{
	return g->errmsg;
}

uint32_t rnic_genl_err_offset(const struct rnic_genl *g)
{
	return g->err_offset;
}

uint32_t rnic_genl_err_miss_type(const struct rnic_genl *g)
{
	return g->err_miss_type;
}

uint16_t rnic_genl_family_id(const struct rnic_genl *g)
{
	return g->family;
}

uint32_t rnic_genl_family_version(const struct rnic_genl *g)
{
	return g->version;
}

/* ---- family lookup ---------------------------------------------------- */

struct family_query {
	const char *name;
	bool have_id;
	uint16_t id;
	uint32_t version;
};

static int family_attr(const struct nlattr *attr, void *data)
{
	struct family_query *q = data;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
			return -EPROTO;
		q->id = mnl_attr_get_u16(attr);
		q->have_id = true;
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -EPROTO;
		q->version = mnl_attr_get_u32(attr);
		break;
	default:
		break;
	}
	return 0;
}

static int family_cb(const struct nlmsghdr *nlh, void *arg)
{
	size_t hdr = MNL_ALIGN(sizeof(struct genlmsghdr));
	int ret;

	if (mnl_nlmsg_get_payload_len(nlh) < hdr) {
		errno = EPROTO;
		return MNL_CB_ERROR;
	}
	ret = walk_attrs((const char *)mnl_nlmsg_get_payload(nlh) + hdr,
			 mnl_nlmsg_get_payload_len(nlh) - hdr, family_attr, arg);
	if (ret) {
		errno = -ret;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static int family_build(struct nlmsghdr *nlh, void *arg)
{
	const struct family_query *q = arg;

	if (!mnl_attr_put_strz_check(nlh, RNIC_GENL_SEND_SIZE,
				     CTRL_ATTR_FAMILY_NAME, q->name))
		return -EMSGSIZE;
	return 0;
}

struct rnic_genl *rnic_genl_open_family(const char *family)
{
	struct family_query q = { .name = family };
	struct rnic_genl *g;
	int one = 1;
	int ret;

	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->rsize = RNIC_GENL_RECV_SIZE;
	g->rbuf = malloc(g->rsize);
	if (!g->rbuf) {
		ret = -ENOMEM;
		goto err_free;
	}

	g->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!g->nl) {
		ret = -errno;
		goto err_free;
	}
	/* Old kernels lack these options: messages are then just missing. */
	if (mnl_socket_setsockopt(g->nl, NETLINK_EXT_ACK, &one, sizeof(one)) &&
	    errno != ENOPROTOOPT) {
		ret = -errno;
		goto err_close;
	}
	if (mnl_socket_setsockopt(g->nl, NETLINK_CAP_ACK, &one, sizeof(one)) &&
	    errno != ENOPROTOOPT) {
		ret = -errno;
		goto err_close;
	}
	if (mnl_socket_bind(g->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto err_close;
	}
	g->portid = mnl_socket_get_portid(g->nl);
	g->seq = (unsigned int)time(NULL);

	ret = genl_xfer(g, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0,
			family_build, family_cb, &q);
	if (!ret && !q.have_id)
		ret = -EPROTO;
	if (ret)
		goto err_close;
	g->family = q.id;
	g->version = q.version;
	return g;

err_close:
	mnl_socket_close(g->nl);
err_free:
	free(g->rbuf);
	free(g);
	errno = -ret;
	return NULL;
}

struct rnic_genl *rnic_genl_open(void)
{
	return rnic_genl_open_family(RNIC_GENL_NAME);
}

void rnic_genl_close(struct rnic_genl *g)
{
	if (!g)
		return;
	mnl_socket_close(g->nl);
	free(g->rbuf);
	free(g);
}

/* ---- one device or every device, for any GET command ----------------- */

struct get_req {
	const char *name;	/* DEV_NAME to send, or NULL */
	rnic_genl_parse_t parse;
	void *info;		/* what parse fills */
	rnic_genl_each_t each;	/* dump only */
	void *arg;
	bool got;		/* get only: a reply was parsed */
};

static int get_build(struct nlmsghdr *nlh, void *arg)
{
	const struct get_req *r = arg;

	if (r->name &&
	    !mnl_attr_put_strz_check(nlh, RNIC_GENL_SEND_SIZE,
				     RNIC_NL_ATTR_DEV_NAME, r->name))
		return -EMSGSIZE;
	return 0;
}

static int get_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct get_req *r = arg;
	int ret;

	if (r->got)
		return MNL_CB_OK;	/* one device asked, one kept */
	ret = r->parse(nlh, r->info);
	if (ret) {
		errno = -ret;
		return MNL_CB_ERROR;
	}
	r->got = true;
	return MNL_CB_OK;
}

int rnic_genl_get(struct rnic_genl *g, uint8_t cmd, const char *name,
		  rnic_genl_parse_t parse, void *info)
{
	struct get_req r = { .name = name, .parse = parse, .info = info };
	int ret;

	ret = rnic_genl_request(g, cmd, 0, get_build, get_cb, &r);
	if (!ret && !r.got)
		ret = -EPROTO;
	return ret;
}

static int dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct get_req *r = arg;
	int ret;

	ret = r->parse(nlh, r->info);
	if (!ret)
		ret = r->each(r->info, r->arg);
	if (ret) {
		errno = ret < 0 ? -ret : EINVAL;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int rnic_genl_dump(struct rnic_genl *g, uint8_t cmd, const char *name,
		   rnic_genl_parse_t parse, size_t size,
		   rnic_genl_each_t each, void *arg)
{
	struct get_req r = {
		.name = name, .parse = parse, .each = each, .arg = arg,
	};
	int ret;

	/* Replies are KiBs: keep them off small stacks. */
	r.info = malloc(size);
	if (!r.info)
		return -ENOMEM;
	ret = rnic_genl_request(g, cmd, NLM_F_DUMP, get_build, dump_cb, &r);
	free(r.info);
	return ret;
}

/* ---- links ------------------------------------------------------------ */

struct link_req {
	const char *name;
	const char *netdev;
	uint32_t max_burst;
};

static int link_build(struct nlmsghdr *nlh, void *arg)
{
	const struct link_req *req = arg;

	if (!mnl_attr_put_strz_check(nlh, RNIC_GENL_SEND_SIZE,
				     RNIC_NL_ATTR_DEV_NAME, req->name))
		return -EMSGSIZE;
	if (req->netdev &&
	    !mnl_attr_put_strz_check(nlh, RNIC_GENL_SEND_SIZE,
				     RNIC_NL_ATTR_NETDEV, req->netdev))
		return -EMSGSIZE;
	if (req->max_burst &&
	    !mnl_attr_put_u32_check(nlh, RNIC_GENL_SEND_SIZE,
				    RNIC_NL_ATTR_MAX_BURST, req->max_burst))
		return -EMSGSIZE;
	return 0;
}

int rnic_link_add_burst(struct rnic_genl *g, const char *name,
			const char *netdev, uint32_t max_burst)
{
	struct link_req req = {
		.name = name, .netdev = netdev, .max_burst = max_burst
	};

	return rnic_genl_request(g, RNIC_NL_CMD_LINK_ADD, 0, link_build, NULL,
				 &req);
}

int rnic_link_add(struct rnic_genl *g, const char *name, const char *netdev)
{
	return rnic_link_add_burst(g, name, netdev, 0);
}

int rnic_link_del(struct rnic_genl *g, const char *name)
{
	struct link_req req = { .name = name };

	return rnic_genl_request(g, RNIC_NL_CMD_LINK_DEL, 0, link_build, NULL,
				 &req);
}

/* The one table of fault setting names, indexed by enum rnic_nl_fault. */
static const char *const fault_names[] = {
	[RNIC_NL_FAULT_DROP] = "drop",
	[RNIC_NL_FAULT_DUPLICATE] = "duplicate",
	[RNIC_NL_FAULT_CORRUPT] = "corrupt",
	[RNIC_NL_FAULT_DELAY] = "delay",
	[RNIC_NL_FAULT_DELAY_US] = "delay_us",
	[RNIC_NL_FAULT_RNR] = "rnr",
	[RNIC_NL_FAULT_REM_ACCESS] = "rem_access",
	[RNIC_NL_FAULT_RETRY_EXC] = "retry_exc",
};
_Static_assert(sizeof(fault_names) / sizeof(fault_names[0]) ==
	       RNIC_NL_FAULT_MAX + 1, "a fault setting without a name");
/* Presence is kept in a 32-bit mask indexed by setting. */
_Static_assert(RNIC_NL_FAULT_MAX < 32, "rnic_link_fault.has is too small");

const char *rnic_fault_name(unsigned int setting)
{
	if (setting < sizeof(fault_names) / sizeof(fault_names[0]))
		return fault_names[setting];
	return NULL;
}

struct fault_req {
	const char *name;
	const struct rnic_link_fault *fault;
};

static int fault_build(struct nlmsghdr *nlh, void *arg)
{
	const struct fault_req *req = arg;
	struct nlattr *nest;
	unsigned int i;

	if (!mnl_attr_put_strz_check(nlh, RNIC_GENL_SEND_SIZE,
				     RNIC_NL_ATTR_DEV_NAME, req->name))
		return -EMSGSIZE;
	nest = mnl_attr_nest_start_check(nlh, RNIC_GENL_SEND_SIZE,
					 RNIC_NL_ATTR_FAULT);
	if (!nest)
		return -EMSGSIZE;
	for (i = RNIC_NL_FAULT_UNSPEC + 1; i <= RNIC_NL_FAULT_MAX; i++)
		if (req->fault->has & (UINT32_C(1) << i) &&
		    !mnl_attr_put_u32_check(nlh, RNIC_GENL_SEND_SIZE, i,
					    req->fault->val[i]))
			return -EMSGSIZE;
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

int rnic_link_set_fault(struct rnic_genl *g, const char *name,
			const struct rnic_link_fault *fault)
{
	struct fault_req req = { .name = name, .fault = fault };

	return rnic_genl_request(g, RNIC_NL_CMD_LINK_SET, 0, fault_build, NULL,
				 &req);
}

/* Copy a validated NUL-terminated string attribute into a field. */
static int copy_str(const struct nlattr *attr, char *dst, size_t size)
{
	const char *s = mnl_attr_get_str(attr);
	size_t len = strnlen(s, mnl_attr_get_payload_len(attr));

	if (len >= size)
		return -EPROTO;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

struct gid_entry {
	bool have_index, have_gid;
	uint32_t index;
	uint8_t gid[16];
};

static int gid_entry_attr(const struct nlattr *attr, void *data)
{
	struct gid_entry *e = data;

	switch (mnl_attr_get_type(attr)) {
	case RNIC_NL_ATTR_GID_INDEX:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -EPROTO;
		e->index = mnl_attr_get_u32(attr);
		e->have_index = true;
		break;
	case RNIC_NL_ATTR_GID:
		if (mnl_attr_get_payload_len(attr) != sizeof(e->gid))
			return -EPROTO;
		memcpy(e->gid, mnl_attr_get_payload(attr), sizeof(e->gid));
		e->have_gid = true;
		break;
	default:
		break;
	}
	return 0;
}

static int gid_table_attr(const struct nlattr *attr, void *data)
{
	struct rnic_link_info *info = data;
	struct gid_entry e = { 0 };
	int ret;

	if (mnl_attr_get_type(attr) != RNIC_NL_ATTR_GID_ENTRY)
		return 0;
	if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return -EPROTO;
	ret = walk_attrs(mnl_attr_get_payload(attr),
			 mnl_attr_get_payload_len(attr), gid_entry_attr, &e);
	if (ret)
		return ret;
	if (!e.have_index || !e.have_gid)
		return -EPROTO;
	if (info->n_gids >= RNIC_LINK_MAX_GIDS) {
		info->gids_truncated = true;
		return 0;
	}
	info->gids[info->n_gids].index = e.index;
	memcpy(info->gids[info->n_gids].gid, e.gid, sizeof(e.gid));
	info->n_gids++;
	return 0;
}

static int fault_attr(const struct nlattr *attr, void *data)
{
	struct rnic_link_fault *fault = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type == RNIC_NL_FAULT_UNSPEC || type > RNIC_NL_FAULT_MAX)
		return 0;	/* newer kernel: skip */
	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return -EPROTO;
	fault->val[type] = mnl_attr_get_u32(attr);
	fault->has |= UINT32_C(1) << type;
	return 0;
}

static int link_attr(const struct nlattr *attr, void *data)
{
	struct rnic_link_info *info = data;
	uint16_t type = mnl_attr_get_type(attr);
	int ret = 0;

	switch (type) {
	case RNIC_NL_ATTR_DEV_NAME:
	case RNIC_NL_ATTR_NETDEV:
	case RNIC_NL_ATTR_UVERBS:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return -EPROTO;
		if (type == RNIC_NL_ATTR_DEV_NAME)
			ret = copy_str(attr, info->name, sizeof(info->name));
		else if (type == RNIC_NL_ATTR_NETDEV)
			ret = copy_str(attr, info->netdev, sizeof(info->netdev));
		else
			ret = copy_str(attr, info->uverbs, sizeof(info->uverbs));
		break;
	case RNIC_NL_ATTR_DEV_INDEX:
	case RNIC_NL_ATTR_NETDEV_INDEX:
	case RNIC_NL_ATTR_PORT_INDEX:
	case RNIC_NL_ATTR_ACTIVE_MTU:
	case RNIC_NL_ATTR_NETDEV_MTU:
	case RNIC_NL_ATTR_MAX_BURST:
	case RNIC_NL_ATTR_CONTEXTS: {
		uint32_t v;

		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -EPROTO;
		v = mnl_attr_get_u32(attr);
		if (type == RNIC_NL_ATTR_DEV_INDEX)
			info->index = v;
		else if (type == RNIC_NL_ATTR_NETDEV_INDEX)
			info->netdev_index = v;
		else if (type == RNIC_NL_ATTR_PORT_INDEX)
			info->port = v;
		else if (type == RNIC_NL_ATTR_ACTIVE_MTU)
			info->active_mtu = v;
		else if (type == RNIC_NL_ATTR_NETDEV_MTU)
			info->netdev_mtu = v;
		else if (type == RNIC_NL_ATTR_MAX_BURST)
			info->max_burst = v;
		else
			info->contexts = v;
		break;
	}
	case RNIC_NL_ATTR_NODE_GUID:
		if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
			return -EPROTO;
		/* Keep the bytes as sent (network order). */
		memcpy(&info->node_guid_be, mnl_attr_get_payload(attr),
		       sizeof(info->node_guid_be));
		break;
	case RNIC_NL_ATTR_PORT_STATE:
	case RNIC_NL_ATTR_PORT_PHYS_STATE:
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			return -EPROTO;
		if (type == RNIC_NL_ATTR_PORT_STATE)
			info->port_state = mnl_attr_get_u8(attr);
		else
			info->phys_state = mnl_attr_get_u8(attr);
		break;
	case RNIC_NL_ATTR_GID_TABLE:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return -EPROTO;
		info->n_gids = 0;
		info->gids_truncated = false;
		ret = walk_attrs(mnl_attr_get_payload(attr),
				 mnl_attr_get_payload_len(attr),
				 gid_table_attr, info);
		break;
	case RNIC_NL_ATTR_FAULT:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return -EPROTO;
		memset(&info->fault, 0, sizeof(info->fault));
		ret = walk_attrs(mnl_attr_get_payload(attr),
				 mnl_attr_get_payload_len(attr),
				 fault_attr, &info->fault);
		break;
	default:
		return 0;	/* newer kernel: skip */
	}
	if (!ret && type < 64)
		info->attrs |= UINT64_C(1) << type;
	return ret;
}

/* Walk the attributes of a generic netlink message (after its header). */
static int walk_genl_attrs(const struct nlmsghdr *nlh,
			   int (*fn)(const struct nlattr *attr, void *data),
			   void *data)
{
	size_t hdr = MNL_ALIGN(sizeof(struct genlmsghdr));
	size_t plen;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN)
		return -EPROTO;
	plen = mnl_nlmsg_get_payload_len(nlh);
	if (plen < hdr)
		return -EPROTO;
	return walk_attrs((const char *)mnl_nlmsg_get_payload(nlh) + hdr,
			  plen - hdr, fn, data);
}

int rnic_link_parse(const struct nlmsghdr *nlh, void *out)
{
	struct rnic_link_info *info = out;
	int ret;

	memset(info, 0, sizeof(*info));
	ret = walk_genl_attrs(nlh, link_attr, info);
	if (ret)
		return ret;
	if (!(info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_DEV_NAME)))
		return -EPROTO;
	info->has_netdev = info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_NETDEV);
	return 0;
}

/* ---- counters --------------------------------------------------------- */

/* Indexed by enum rnic_nl_counter; the kernel names its sysfs files so. */
static const char *const counter_names[] = RNIC_NL_COUNTER_NAMES;
_Static_assert(sizeof(counter_names) / sizeof(counter_names[0]) ==
	       RNIC_NL_COUNTER_MAX + 1, "a counter without a name");
/* Presence is kept in a 64-bit mask indexed by counter. */
_Static_assert(RNIC_NL_COUNTER_MAX < 64, "rnic_stat_info.has is too small");

const char *rnic_counter_name(unsigned int counter)
{
	if (counter < sizeof(counter_names) / sizeof(counter_names[0]))
		return counter_names[counter];
	return NULL;
}

static int counter_attr(const struct nlattr *attr, void *data)
{
	struct rnic_stat_info *info = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type == RNIC_NL_COUNTER_UNSPEC || type > RNIC_NL_COUNTER_MAX)
		return 0;	/* newer kernel: skip */
	if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
		return -EPROTO;
	info->counters[type] = mnl_attr_get_u64(attr);
	info->has |= UINT64_C(1) << type;
	return 0;
}

static int stat_attr(const struct nlattr *attr, void *data)
{
	struct rnic_stat_info *info = data;
	uint16_t type = mnl_attr_get_type(attr);
	int ret = 0;

	switch (type) {
	case RNIC_NL_ATTR_DEV_NAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return -EPROTO;
		ret = copy_str(attr, info->name, sizeof(info->name));
		break;
	case RNIC_NL_ATTR_DEV_INDEX:
	case RNIC_NL_ATTR_PORT_INDEX:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -EPROTO;
		if (type == RNIC_NL_ATTR_DEV_INDEX)
			info->index = mnl_attr_get_u32(attr);
		else
			info->port = mnl_attr_get_u32(attr);
		break;
	case RNIC_NL_ATTR_COUNTERS:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return -EPROTO;
		ret = walk_attrs(mnl_attr_get_payload(attr),
				 mnl_attr_get_payload_len(attr),
				 counter_attr, info);
		break;
	default:
		return 0;	/* newer kernel: skip */
	}
	if (!ret && type < 64)
		info->attrs |= UINT64_C(1) << type;
	return ret;
}

int rnic_stat_parse(const struct nlmsghdr *nlh, void *out)
{
	struct rnic_stat_info *info = out;
	int ret;

	memset(info, 0, sizeof(*info));
	ret = walk_genl_attrs(nlh, stat_attr, info);
	if (ret)
		return ret;
	if (!(info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_DEV_NAME)))
		return -EPROTO;
	return 0;
}

/* ---- resources -------------------------------------------------------- */

#define RNIC_RES_KIND_DESC(kind, a, n, w)				\
	[RNIC_RES_##kind] = { .attr = a, .name = n, .width = w },
const struct rnic_res_kind_desc rnic_res_kinds[RNIC_RES_NR_KINDS] = {
	RNIC_RES_KINDS(RNIC_RES_KIND_DESC)
};
#undef RNIC_RES_KIND_DESC

/* Presence is kept in a 64-bit mask indexed by attribute type. */
#define RNIC_RES_KIND_CHECK(kind, a, n, w)				\
	_Static_assert((a) < 64 && ((w) == 4 || (w) == 8),		\
		       "RNIC_RES_KINDS: bad attribute or width for " #kind);
RNIC_RES_KINDS(RNIC_RES_KIND_CHECK)
#undef RNIC_RES_KIND_CHECK

/*
 * If @attr is a resource count, store it in @counts and return 1;
 * return 0 if it is not one, -EPROTO if it has the wrong width.
 */
static int res_count_attr(const struct nlattr *attr, uint64_t *counts)
{
	uint16_t type = mnl_attr_get_type(attr);
	unsigned int k;

	for (k = 0; k < RNIC_RES_NR_KINDS; k++) {
		if (rnic_res_kinds[k].attr != type)
			continue;
		if (mnl_attr_get_payload_len(attr) != rnic_res_kinds[k].width)
			return -EPROTO;
		counts[k] = rnic_res_kinds[k].width == 8 ?
			    mnl_attr_get_u64(attr) : mnl_attr_get_u32(attr);
		return 1;
	}
	return 0;
}

static int ctx_entry_attr(const struct nlattr *attr, void *data)
{
	struct rnic_res_ctx *c = data;
	uint16_t type = mnl_attr_get_type(attr);
	int ret = 0;

	switch (type) {
	case RNIC_NL_ATTR_CTX_ID:
	case RNIC_NL_ATTR_CTX_PID:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -EPROTO;
		if (type == RNIC_NL_ATTR_CTX_ID)
			c->id = mnl_attr_get_u32(attr);
		else
			c->pid = mnl_attr_get_u32(attr);
		break;
	case RNIC_NL_ATTR_CTX_COMM:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return -EPROTO;
		ret = copy_str(attr, c->comm, sizeof(c->comm));
		break;
	default:
		ret = res_count_attr(attr, c->counts);
		if (ret <= 0)
			return ret;	/* error, or unknown: skip */
		ret = 0;
		break;
	}
	if (!ret && type < 64)
		c->attrs |= UINT64_C(1) << type;
	return ret;
}

static int ctx_table_attr(const struct nlattr *attr, void *data)
{
	struct rnic_res_info *info = data;
	struct rnic_res_ctx c = { 0 };
	int ret;

	if (mnl_attr_get_type(attr) != RNIC_NL_ATTR_CTX_ENTRY)
		return 0;
	if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return -EPROTO;
	ret = walk_attrs(mnl_attr_get_payload(attr),
			 mnl_attr_get_payload_len(attr), ctx_entry_attr, &c);
	if (ret)
		return ret;
	if (!(c.attrs & (UINT64_C(1) << RNIC_NL_ATTR_CTX_ID)))
		return -EPROTO;
	if (info->n_ctxs >= RNIC_RES_MAX_CTXS) {
		info->ctxs_truncated = true;
		return 0;
	}
	info->ctxs[info->n_ctxs++] = c;
	return 0;
}

static int res_attr(const struct nlattr *attr, void *data)
{
	struct rnic_res_info *info = data;
	uint16_t type = mnl_attr_get_type(attr);
	int ret = 0;

	switch (type) {
	case RNIC_NL_ATTR_DEV_NAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return -EPROTO;
		ret = copy_str(attr, info->name, sizeof(info->name));
		break;
	case RNIC_NL_ATTR_DEV_INDEX:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -EPROTO;
		info->index = mnl_attr_get_u32(attr);
		break;
	case RNIC_NL_ATTR_CTX_TRUNCATED:
		/* The kernel could not fit every context in the message. */
		if (mnl_attr_validate(attr, MNL_TYPE_FLAG) < 0)
			return -EPROTO;
		info->ctxs_truncated = true;
		break;
	case RNIC_NL_ATTR_CTX_TABLE:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return -EPROTO;
		info->n_ctxs = 0;
		ret = walk_attrs(mnl_attr_get_payload(attr),
				 mnl_attr_get_payload_len(attr),
				 ctx_table_attr, info);
		break;
	default:
		ret = res_count_attr(attr, info->counts);
		if (ret <= 0)
			return ret;	/* error, or unknown: skip */
		ret = 0;
		break;
	}
	if (!ret && type < 64)
		info->attrs |= UINT64_C(1) << type;
	return ret;
}

int rnic_res_parse(const struct nlmsghdr *nlh, void *out)
{
	struct rnic_res_info *info = out;
	int ret;

	memset(info, 0, sizeof(*info));
	ret = walk_genl_attrs(nlh, res_attr, info);
	if (ret)
		return ret;
	if (!(info->attrs & (UINT64_C(1) << RNIC_NL_ATTR_DEV_NAME)))
		return -EPROTO;
	return 0;
}

/* ---- objects ---------------------------------------------------------- */

/* Where each u32 attribute of an object message goes. */
static uint32_t *obj_u32(struct rnic_res_obj *o, uint16_t type)
{
	switch (type) {
	case RNIC_NL_ATTR_DEV_INDEX:
		return &o->index;
	case RNIC_NL_ATTR_CTX_ID:
		return &o->ctx;
	case RNIC_NL_ATTR_CTX_PID:
		return &o->pid;
	case RNIC_NL_ATTR_RES_LQPN:
		return &o->lqpn;
	case RNIC_NL_ATTR_RES_RQPN:
		return &o->rqpn;
	case RNIC_NL_ATTR_RES_SQ_PSN:
		return &o->sq_psn;
	case RNIC_NL_ATTR_RES_RQ_PSN:
		return &o->rq_psn;
	case RNIC_NL_ATTR_RES_LKEY:
		return &o->lkey;
	case RNIC_NL_ATTR_RES_RKEY:
		return &o->rkey;
	case RNIC_NL_ATTR_RES_HANDLE:
		return &o->handle;
	case RNIC_NL_ATTR_RES_USERS:
		return &o->users;
	case RNIC_NL_ATTR_RES_CQE:
		return &o->cqe;
	case RNIC_NL_ATTR_RES_CM_PS:
		return &o->cm_ps;
	default:
		return NULL;
	}
}

_Static_assert(RNIC_NL_ATTR_MAX < 64, "rnic_res_obj.attrs is too small");

/* A CM id's address: a struct rnic_cm_sockaddr of AF_INET or AF_INET6 */
static int copy_addr(const struct nlattr *attr, struct rnic_cm_sockaddr *a)
{
	sa_family_t family;

	if (mnl_attr_get_payload_len(attr) != sizeof(*a))
		return -EPROTO;
	memcpy(a, mnl_attr_get_payload(attr), sizeof(*a));
	memcpy(&family, a, sizeof(family));
	return family == AF_INET || family == AF_INET6 ? 0 : -EPROTO;
}

static int obj_attr(const struct nlattr *attr, void *data)
{
	struct rnic_res_obj *o = data;
	uint16_t type = mnl_attr_get_type(attr);
	uint32_t *u32 = obj_u32(o, type);
	int ret = 0;

	if (u32) {
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -EPROTO;
		*u32 = mnl_attr_get_u32(attr);
	} else if (type == RNIC_NL_ATTR_DEV_NAME ||
		   type == RNIC_NL_ATTR_CTX_COMM) {
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return -EPROTO;
		if (type == RNIC_NL_ATTR_DEV_NAME)
			ret = copy_str(attr, o->name, sizeof(o->name));
		else
			ret = copy_str(attr, o->comm, sizeof(o->comm));
	} else if (type == RNIC_NL_ATTR_RES_QP_TYPE ||
		   type == RNIC_NL_ATTR_RES_QP_STATE ||
		   type == RNIC_NL_ATTR_RES_CM_STATE) {
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			return -EPROTO;
		if (type == RNIC_NL_ATTR_RES_QP_TYPE)
			o->qp_type = mnl_attr_get_u8(attr);
		else if (type == RNIC_NL_ATTR_RES_QP_STATE)
			o->qp_state = mnl_attr_get_u8(attr);
		else
			o->cm_state = mnl_attr_get_u8(attr);
	} else if (type == RNIC_NL_ATTR_RES_SRC_ADDR ||
		   type == RNIC_NL_ATTR_RES_DST_ADDR) {
		ret = copy_addr(attr, type == RNIC_NL_ATTR_RES_SRC_ADDR ?
				&o->src : &o->dst);
	} else if (type == RNIC_NL_ATTR_RES_MRLEN) {
		if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
			return -EPROTO;
		o->mrlen = mnl_attr_get_u64(attr);
	} else {
		return 0;	/* newer kernel, or PAD: skip */
	}
	if (!ret && type < 64)
		o->attrs |= UINT64_C(1) << type;
	return ret;
}

/* An object message, which must have attribute @must. */
static int obj_parse(const struct nlmsghdr *nlh, struct rnic_res_obj *o,
		     unsigned int must)
{
	int ret;

	memset(o, 0, sizeof(*o));
	ret = walk_genl_attrs(nlh, obj_attr, o);
	if (ret)
		return ret;
	if (!(o->attrs & (UINT64_C(1) << must)))
		return -EPROTO;
	return 0;
}

int rnic_res_obj_parse(const struct nlmsghdr *nlh, void *out)
{
	return obj_parse(nlh, out, RNIC_NL_ATTR_DEV_NAME);
}

int rnic_res_cm_parse(const struct nlmsghdr *nlh, void *out)
{
	return obj_parse(nlh, out, RNIC_NL_ATTR_RES_CM_STATE);
}
