// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: the extended GID and P_Key lookups (ibv_query_gid_ex(),
 * ibv_query_gid_table(), the provider interface's ibv_query_gid_type(),
 * ibv_get_pkey_index()), built on the one-entry queries of context.c.
 */
#include <errno.h>
#include <string.h>
#include <endian.h>

#include "internal.h"

_Static_assert((int)RNIC_GID_TYPE_ROCE_V2 == (int)IBV_GID_TYPE_ROCE_V2,
	       "the kernel's GID type values are rdma-core's");

static void fill_gid_entry(struct ibv_gid_entry *e, uint32_t port_num,
			   uint32_t index, const struct rnic_query_gid *q)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->gid.raw, q->out_gid, sizeof(e->gid.raw));
	e->gid_index = index;
	e->port_num = port_num;
	e->gid_type = q->out_gid_type;
	e->ndev_ifindex = q->out_ifindex;
}

/*
 * struct ibv_gid_entry has not changed since it was added; a caller's
 * size is either that or a mistake.
 */
static bool entry_size_ok(size_t entry_size)
{
	return entry_size >= sizeof(struct ibv_gid_entry);
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	struct rnic_query_gid q;
	int ret;

	if (!context || !entry || flags || !entry_size_ok(entry_size)) {
		errno = EINVAL;
		return EINVAL;
	}
	ret = rnic_query_gid(context, port_num, gid_index, &q);
	if (ret)
		return ret;
	fill_gid_entry(entry, port_num, gid_index, &q);
	return 0;
}

/* Append port @port_num's entries in use to @out; -errno on failure. */
static ssize_t port_gids(struct ibv_context *context, uint32_t port_num,
			 char *out, size_t room, size_t entry_size)
{
	struct ibv_port_attr pa;
	struct rnic_query_gid q;
	size_t n = 0;
	int i, ret;

	ret = rnic_query_port(context, (uint8_t)port_num, &pa, sizeof(pa));
	if (ret)
		return -ret;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		ret = rnic_query_gid(context, port_num, (uint32_t)i, &q);
		if (ret == ENODATA)
			continue;
		if (ret)
			return -ret;
		if (n == room)
			return -EINVAL;
		fill_gid_entry((struct ibv_gid_entry *)(out + n * entry_size),
			       port_num, (uint32_t)i, &q);
		n++;
	}
	return (ssize_t)n;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context,
			     struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags,
			     size_t entry_size)
{
	struct ibv_device_attr da;
	size_t n = 0;
	ssize_t got;
	uint32_t port;
	int ret;

	if (!context || (!entries && max_entries) || flags ||
	    !entry_size_ok(entry_size))
		return -EINVAL;
	ret = ibv_query_device(context, &da);
	if (ret)
		return -ret;
	for (port = 1; port <= da.phys_port_cnt; port++) {
		got = port_gids(context, port, (char *)entries + n * entry_size,
				max_entries - n, entry_size);
		if (got < 0)
			return got;
		n += (size_t)got;
	}
	return (ssize_t)n;
}

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum rnic_gid_type_sysfs *type)
{
	struct rnic_query_gid q;

	if (!context || !type) {
		errno = EINVAL;
		return -1;
	}
	if (rnic_query_gid(context, port_num, index, &q))
		return -1;
	if (q.out_gid_type != RNIC_GID_TYPE_ROCE_V2) {
		errno = EPROTO;
		return -1;
	}
	*type = RNIC_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}

int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
		       __be16 pkey)
{
	struct ibv_port_attr pa;
	__be16 entry;
	int i, ret;

	if (!context) {
		errno = EINVAL;
		return -1;
	}
	ret = rnic_query_port(context, port_num, &pa, sizeof(pa));
	if (ret)
		return -1;
	for (i = 0; i < pa.pkey_tbl_len; i++) {
		if (ibv_query_pkey(context, port_num, i, &entry))
			return -1;
		if (entry == pkey)
			return i;
	}
	errno = ENOENT;
	return -1;
}
