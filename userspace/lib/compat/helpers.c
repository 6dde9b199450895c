// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * libibverbs.so.1 compat build: the old helpers rdma-core still exports
 * (IBVERBS_1.0, 1.1) and other small entry points that are not verbs of
 * librnic but that binaries linked against rdma-core bind to.
 *
 * The ibv_copy_*_kern() functions convert between the verbs structs and
 * the kernel's uverbs ones (<rdma/ib_user_verbs.h>, <rdma/ib_user_sa.h>):
 * rdma-core's own librdmacm calls them.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_sa.h>
#include <rdma/ib_user_verbs.h>

#include <infiniband/sa.h>
#include <infiniband/verbs.h>

const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				const struct ib_uverbs_ah_attr *src);
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				const struct ib_uverbs_qp_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 const struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       const struct ibv_sa_path_rec *src);
void ibv_register_driver(const char *name, void *init);
int ibv_dofork_range(void *base, size_t size);
int ibv_dontfork_range(void *base, size_t size);
int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
			       uint32_t flags);

/* Where sysfs is mounted; rnic's devices live in it (ibdev_path). */
const char *ibv_get_sysfs_path(void)
{
	return "/sys";
}

/*
 * Read DIR/FILE into @buf as a string of at most @size - 1 bytes, without
 * its trailing newline. Returns the string's length, or -1 with errno set.
 */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size)
{
	int dirfd, fd;
	ssize_t len;

	if (!size) {
		errno = EINVAL;
		return -1;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	close(dirfd);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len < 0)
		return -1;
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return (int)len;
}

void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				const struct ib_uverbs_ah_attr *src)
{
	memcpy(dst->grh.dgid.raw, src->grh.dgid, sizeof(dst->grh.dgid));
	dst->grh.flow_label = src->grh.flow_label;
	dst->grh.sgid_index = src->grh.sgid_index;
	dst->grh.hop_limit = src->grh.hop_limit;
	dst->grh.traffic_class = src->grh.traffic_class;
	dst->dlid = src->dlid;
	dst->sl = src->sl;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->is_global = src->is_global;
	dst->port_num = src->port_num;
}

void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				const struct ib_uverbs_qp_attr *src)
{
	dst->qp_state = src->qp_state;
	dst->cur_qp_state = src->cur_qp_state;
	dst->path_mtu = src->path_mtu;
	dst->path_mig_state = src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = src->qp_access_flags;
	dst->cap.max_send_wr = src->max_send_wr;
	dst->cap.max_recv_wr = src->max_recv_wr;
	dst->cap.max_send_sge = src->max_send_sge;
	dst->cap.max_recv_sge = src->max_recv_sge;
	dst->cap.max_inline_data = src->max_inline_data;
	ibv_copy_ah_attr_from_kern(&dst->ah_attr, &src->ah_attr);
	ibv_copy_ah_attr_from_kern(&dst->alt_ah_attr, &src->alt_ah_attr);
	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
}


/*
 * The fields a path record has under the same name in both layouts (the
 * GIDs are arrays in one, unions in the other): one list for both ways.
 */
#define PATH_REC_COPY_FIELDS(dst, src)					\
	do {								\
		(dst)->dlid = (src)->dlid;				\
		(dst)->slid = (src)->slid;				\
		(dst)->raw_traffic = (src)->raw_traffic;		\
		(dst)->flow_label = (src)->flow_label;			\
		(dst)->hop_limit = (src)->hop_limit;			\
		(dst)->traffic_class = (src)->traffic_class;		\
		(dst)->reversible = (src)->reversible;			\
		(dst)->numb_path = (src)->numb_path;			\
		(dst)->pkey = (src)->pkey;				\
		(dst)->sl = (src)->sl;					\
		(dst)->mtu_selector = (src)->mtu_selector;		\
		(dst)->mtu = (src)->mtu;				\
		(dst)->rate_selector = (src)->rate_selector;		\
		(dst)->rate = (src)->rate;				\
		(dst)->packet_life_time_selector =			\
			(src)->packet_life_time_selector;		\
		(dst)->packet_life_time = (src)->packet_life_time;	\
		(dst)->preference = (src)->preference;			\
	} while (0)

void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 const struct ib_user_path_rec *src)
{
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid));
	PATH_REC_COPY_FIELDS(dst, src);
}

void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       const struct ibv_sa_path_rec *src)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	PATH_REC_COPY_FIELDS(dst, src);
}

/*
 * Old-style (pre-2017) providers register through this; rnic takes no
 * providers, and the function has no way to refuse.
 */
void ibv_register_driver(const char *name, void *init)
{
	(void)name;
	(void)init;
}

/*
 * Nothing to mark, for the reason ibv_is_fork_initialized() answers
 * IBV_FORK_UNNEEDED (lib/verbs/fork.c): rdma-core succeeds the same way
 * when fork support is not needed.
 */
int ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

int ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

/*
 * rnic makes no promise that a work request's data lands in address order
 * before its completion; 0 says so, as rdma-core does for providers that
 * make none.
 */
int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
			       uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;
}
