// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The compat libraries' own entry points, called as a program linked
 * against rdma-core calls them (through libibverbs.so.1 and librdmacm.so.1
 * of build/lib/rnic): the sysfs and copy helpers do their job, what rnic
 * does not have fails with the errno rdma-core's callers expect (rsocket:
 * ENOSYS), and librdmacm.so.1's connection manager calls are librnic's
 * (no char device: ENODEV, as rdma-core's without the kernel's ucma). TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_sa.h>
#include <rdma/ib_user_verbs.h>

#include <infiniband/verbs.h>

/* Not in rnic's header: rdma-core declares them in its private headers. */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t handle);
int ibv_query_ece(struct ibv_qp *qp, void *ece);
int ibv_dontfork_range(void *base, size_t size);
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				const struct ib_uverbs_qp_attr *src);
void ibv_copy_path_rec_from_kern(void *dst, const struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst, const void *src);
void *rdma_create_event_channel(void);
int rdma_create_id(void *channel, void **id, void *context, int ps);
const char *rdma_event_str(int event);
long rrecv(int socket, void *buf, size_t len, int flags);

static int n, failed;

static void ok(int cond, const char *what)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, what);
}

/* Writes TEXT into DIR/NAME. */
static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void test_sysfs(void)
{
	char dir[] = "/tmp/rnic-compat-calls.XXXXXX";
	char buf[16], path[64];
	int len;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	ok(!strcmp(ibv_get_sysfs_path(), "/sys"), "ibv_get_sysfs_path: /sys");

	put(dir, "fw_ver", "0.1.0\n");
	memset(buf, 'x', sizeof(buf));
	len = ibv_read_sysfs_file(dir, "fw_ver", buf, sizeof(buf));
	ok(len == 5 && !strcmp(buf, "0.1.0"),
	   "ibv_read_sysfs_file: the value without its newline, its length");

	put(dir, "long", "0123456789abcdefXYZ\n");
	len = ibv_read_sysfs_file(dir, "long", buf, 8);
	ok(len == 7 && !strcmp(buf, "0123456"),
	   "ibv_read_sysfs_file: cut to the buffer, NUL-terminated");

	errno = 0;
	len = ibv_read_sysfs_file(dir, "nosuch", buf, sizeof(buf));
	ok(len == -1 && errno == ENOENT,
	   "ibv_read_sysfs_file: missing file is -1, ENOENT");

	snprintf(path, sizeof(path), "%s/fw_ver", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/long", dir);
	unlink(path);
	rmdir(dir);
}

static void test_copy(void)
{
	struct ib_uverbs_qp_attr kattr;
	struct ib_user_path_rec krec, back;
	struct ibv_qp_attr attr;
	/* rdma-core's struct ibv_sa_path_rec: 64 bytes, 4-aligned */
	uint32_t rec[32];
	size_t i;

	/* distinct values, each field's own */
	memset(&kattr, 0, sizeof(kattr));
	kattr.qp_state = IBV_QPS_RTS;
	kattr.path_mtu = IBV_MTU_4096;
	kattr.qkey = 0x11111111;
	kattr.rq_psn = 0x222222;
	kattr.sq_psn = 0x333333;
	kattr.dest_qp_num = 0x4444;
	kattr.max_send_wr = 55;
	kattr.max_inline_data = 66;
	kattr.ah_attr.grh.dgid[15] = 0x77;
	kattr.ah_attr.grh.flow_label = 0x88888;
	kattr.ah_attr.dlid = 0x9999;
	kattr.ah_attr.is_global = 1;
	kattr.alt_ah_attr.port_num = 2;
	kattr.max_dest_rd_atomic = 12;
	kattr.rnr_retry = 7;
	kattr.alt_timeout = 19;
	memset(&attr, 0xff, sizeof(attr));
	ibv_copy_qp_attr_from_kern(&attr, &kattr);
	ok(attr.qp_state == IBV_QPS_RTS && attr.path_mtu == IBV_MTU_4096 &&
	   attr.qkey == 0x11111111 && attr.rq_psn == 0x222222 &&
	   attr.sq_psn == 0x333333 && attr.dest_qp_num == 0x4444 &&
	   attr.cap.max_send_wr == 55 && attr.cap.max_inline_data == 66 &&
	   attr.ah_attr.grh.dgid.raw[15] == 0x77 &&
	   attr.ah_attr.grh.dgid.raw[0] == 0 &&
	   attr.ah_attr.grh.flow_label == 0x88888 &&
	   attr.ah_attr.dlid == 0x9999 && attr.ah_attr.is_global == 1 &&
	   attr.alt_ah_attr.port_num == 2 && attr.max_dest_rd_atomic == 12 &&
	   attr.rnr_retry == 7 && attr.alt_timeout == 19,
	   "ibv_copy_qp_attr_from_kern: every field where it belongs");

	for (i = 0; i < sizeof(krec); i++)
		((unsigned char *)&krec)[i] = (unsigned char)(i + 1);
	/* the kernel's 32-bit booleans hold 0 or 1 */
	krec.raw_traffic = 1;
	krec.reversible = 1;
	krec.mtu = IBV_MTU_2048;
	memset(rec, 0xee, sizeof(rec));
	ibv_copy_path_rec_from_kern(rec, &krec);
	ibv_copy_path_rec_to_kern(&back, rec);
	ok(!memcmp(&back, &krec, sizeof(back)),
	   "ibv_copy_path_rec_{from,to}_kern: a path record survives both");
}

static void test_unsupported(void)
{
	char page[64];
	void *id = page;

	errno = 0;
	ok(!ibv_import_pd(NULL, 1) && errno == EOPNOTSUPP,
	   "ibv_import_pd: NULL, EOPNOTSUPP");
	errno = 0;
	ok(ibv_query_ece(NULL, NULL) == EOPNOTSUPP && errno == EOPNOTSUPP,
	   "ibv_query_ece: EOPNOTSUPP");
	ok(ibv_dontfork_range(page, sizeof(page)) == 0,
	   "ibv_dontfork_range: nothing to do, 0");

	/* A device directory without rnic_cm: no connection manager. */
	setenv("RNIC_DEV_DIR", "/nonexistent", 1);
	errno = 0;
	ok(!rdma_create_event_channel() && errno == ENODEV,
	   "rdma_create_event_channel without the char device: NULL, ENODEV");
	errno = 0;
	ok(rdma_create_id(NULL, &id, NULL, 0x0106) == -1 && errno == ENODEV &&
	   id == page, "rdma_create_id: -1, ENODEV, id untouched");
	unsetenv("RNIC_DEV_DIR");
	errno = 0;
	ok(rrecv(0, page, sizeof(page), 0) == -1 && errno == ENOSYS,
	   "rrecv: -1, ENOSYS");
	ok(!strcmp(rdma_event_str(9), "RDMA_CM_EVENT_ESTABLISHED") &&
	   !strcmp(rdma_event_str(15), "RDMA_CM_EVENT_TIMEWAIT_EXIT") &&
	   !strcmp(rdma_event_str(16), "UNKNOWN EVENT"),
	   "rdma_event_str: the names of the events");
}

int main(void)
{
	test_sysfs();
	test_copy();
	test_unsupported();
	printf("1..%d\n", n);
	return failed != 0;
}
