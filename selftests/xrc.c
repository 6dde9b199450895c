// SPDX-License-Identifier: GPL-2.0
/*
 * XRC: domains shared by file between contexts and processes (O_CREAT,
 * O_EXCL, EBADF; EBUSY while an SRQ uses one), XRC SRQ numbers, an
 * initiator (XRC_SEND) QP connected to a target (XRC_RECV) QP on one
 * device, SENDs that land in the XRC SRQ each names (its CQ, its
 * buffers), a SEND naming an SRQ of another domain (IBV_WC_REM_INV_REQ_ERR
 * at the sender), RDMA WRITE and READ through the target with a region of
 * the SRQ's PD, a target QP opened by number by a forked process after
 * its creator's context closed, the target delivering into the SRQ of
 * another process of the domain until that process is SIGKILLed (then
 * nothing of it is left), the reference documents' OFED 1.5 API end to
 * end, and every object gone at the end.
 *
 * Side 0 of the dp_env is the initiator; side 1 owns the domain, the
 * SRQs and the target QP.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "rnic_dp_test.h"

#define DEV "t_xrc"
#define BUF 8192
#define MSG 1000
#define NR_SRQ 2

/* A file whose inode names a domain; removed by xrc_file_close(). */
struct xrc_file {
	char path[64];
	int fd;
};

static int xrc_file_open(struct xrc_file *f)
{
	snprintf(f->path, sizeof(f->path), "/tmp/rnic-xrc-XXXXXX");
	f->fd = mkstemp(f->path);
	return f->fd < 0 ? -1 : 0;
}

static void xrc_file_close(struct xrc_file *f)
{
	if (f->fd >= 0) {
		close(f->fd);
		unlink(f->path);
	}
	f->fd = -1;
}

static struct ibv_xrcd *xrcd_open(struct ibv_context *ctx, int fd, int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflags,
	};

	return ibv_open_xrcd(ctx, &a);
}

static struct ibv_srq *xrc_srq_create(struct ibv_pd *pd, struct ibv_xrcd *xrcd,
				      struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.xrcd = xrcd,
		.cq = cq,
	};

	return ibv_create_srq_ex(pd->context, &a);
}

static struct ibv_qp *tgt_create(struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = xrcd,
	};

	return ibv_create_qp_ex(xrcd->context, &a);
}

static struct ibv_qp *tgt_open(struct ibv_xrcd *xrcd, uint32_t qp_num)
{
	struct ibv_qp_open_attr a = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = qp_num,
		.xrcd = xrcd,
		.qp_type = IBV_QPT_XRC_RECV,
	};

	return ibv_open_qp(xrcd->context, &a);
}

static struct ibv_qp *ini_create(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 16, .max_send_sge = 1 },
		.sq_sig_all = 1,
	};

	return ibv_create_qp(pd, &a);
}

/* The PSNs of the two directions. */
#define PSN_INI 0x1000
#define PSN_TGT 0x2000

/*
 * Connect @ini (stays in RTS) and @tgt (stays in RTR: it sends nothing
 * but responses), both on port 1 of one device over @env's GID.
 */
static int xrc_connect(struct dp_env *env, struct ibv_qp *ini,
		       struct ibv_qp *tgt)
{
	struct dp_qp_opts oi = dp_opts(IBV_QPT_XRC_SEND);
	struct dp_qp_opts ot = dp_opts(IBV_QPT_XRC_RECV);
	int ret;

	ret = dp_qp_connect(tgt, &ot, ini->qp_num, &env->gid, env->gid_index,
			    PSN_TGT, PSN_INI, true);
	if (!ret)
		ret = dp_qp_connect(ini, &oi, tgt->qp_num, &env->gid,
				    env->gid_index, PSN_INI, PSN_TGT, false);
	return ret;
}

/* Post one signaled work request on @qp towards XRC SRQ @srqn. */
static int post_xrc(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id,
		    uint32_t srqn, struct dp_buf *b, size_t off, uint32_t len,
		    uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)b->mem + off,
		.length = len,
		.lkey = b->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	wr.qp_type.xrc.remote_srqn = srqn;
	return ibv_post_send(qp, &wr, &bad);
}

/* Post one receive of @len bytes at @off of @b to @srq. */
static int post_srq(struct ibv_srq *srq, uint64_t wr_id, struct dp_buf *b,
		    size_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)b->mem + off,
		.length = len,
		.lkey = b->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

static uint64_t res_count(struct __test_metadata *_metadata,
			  struct dp_env *env, enum rnic_res_kind kind)
{
	EXPECT_EQ(0, rnic_res_get(env->g, DEV, env->res));
	return env->res->counts[kind];
}

FIXTURE(xrc) {
	struct dp_env env;
	struct xrc_file file;
	struct ibv_xrcd *xrcd;		/* side 1's, by file */
	struct ibv_cq *srq_cq[NR_SRQ];
	struct ibv_srq *srq[NR_SRQ];
	uint32_t srqn[NR_SRQ];
	struct ibv_qp *ini;		/* side 0 */
	struct ibv_qp *tgt;		/* side 1 */
	struct dp_buf sb;		/* side 0's data */
	struct dp_buf rb;		/* side 1's, in the SRQs' PD */
};

FIXTURE_SETUP(xrc)
{
	int i;

	self->file.fd = -1;
	self->xrcd = NULL;
	dp_env_open(_metadata, &self->env, DEV, NULL);
	ASSERT_EQ(0, xrc_file_open(&self->file));
	self->xrcd = xrcd_open(self->env.ctx[1], self->file.fd, O_CREAT);
	ASSERT_NE(NULL, self->xrcd) TH_LOG("open_xrcd: %s", strerror(errno));
	for (i = 0; i < NR_SRQ; i++) {
		self->srq_cq[i] = do_ptr(ibv_create_cq(self->env.ctx[1],
						       DP_CQE, NULL, NULL, 0));
		self->srq[i] = xrc_srq_create(self->env.pd[1], self->xrcd,
					      self->srq_cq[i]);
		ASSERT_NE(NULL, self->srq[i]) TH_LOG("XRC SRQ: %s",
						     strerror(errno));
		ASSERT_EQ(0, ibv_get_srq_num(self->srq[i], &self->srqn[i]));
	}
	self->tgt = tgt_create(self->xrcd);
	ASSERT_NE(NULL, self->tgt) TH_LOG("TGT QP: %s", strerror(errno));
	self->ini = ini_create(self->env.pd[0], self->env.scq[0]);
	ASSERT_NE(NULL, self->ini) TH_LOG("INI QP: %s", strerror(errno));
	ASSERT_EQ(0, xrc_connect(&self->env, self->ini, self->tgt));
	do_buf_alloc(self->env.pd[0], BUF, DP_ACCESS_ALL, &self->sb);
	do_buf_alloc(self->env.pd[1], BUF, DP_ACCESS_ALL, &self->rb);
}

/*
 * Everything the test left goes in dependency order (target QP and SRQs
 * before the domain), then the contexts: the device must count nothing.
 */
FIXTURE_TEARDOWN(xrc)
{
	int i;

	if (self->ini)
		EXPECT_EQ(0, ibv_destroy_qp(self->ini));
	if (self->tgt)
		EXPECT_EQ(0, ibv_destroy_qp(self->tgt));
	for (i = 0; i < NR_SRQ; i++)
		if (self->srq[i])
			EXPECT_EQ(0, ibv_destroy_srq(self->srq[i]));
	if (self->xrcd)
		EXPECT_EQ(0, ibv_close_xrcd(self->xrcd));
	xrc_file_close(&self->file);
	/* the device's counts: the TGT QP and the domain went with them */
	EXPECT_EQ(0, res_count(_metadata, &self->env, RNIC_RES_QP));
	EXPECT_EQ(0, res_count(_metadata, &self->env, RNIC_RES_SRQ));
	EXPECT_EQ(0, res_count(_metadata, &self->env, RNIC_RES_XRCD));
	EXPECT_EQ(0, res_count(_metadata, &self->env, RNIC_RES_TGT_QP));
	for (i = 0; i < NR_SRQ; i++)
		if (self->srq_cq[i])
			EXPECT_EQ(0, ibv_destroy_cq(self->srq_cq[i]));
	EXPECT_EQ(0, dp_buf_free(&self->sb));
	EXPECT_EQ(0, dp_buf_free(&self->rb));
	dp_env_close(_metadata, &self->env);
}

TEST_F(xrc, device_says_xrc)
{
	EXPECT_EQ(IBV_DEVICE_XRC,
		  self->env.dattr.device_cap_flags & IBV_DEVICE_XRC);
}

TEST_F(xrc, domain_by_file)
{
	struct xrc_file other = { .fd = -1 };
	struct ibv_xrcd_init_attr no_oflags = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD, .fd = self->file.fd,
	};
	struct ibv_xrcd *x0, *priv;
	struct ibv_qp *qp;
	int closed;

	/* Side 0 finds side 1's domain by the file, without O_CREAT. */
	x0 = xrcd_open(self->env.ctx[0], self->file.fd, 0);
	ASSERT_NE(NULL, x0) TH_LOG("open by file: %s", strerror(errno));
	qp = tgt_open(x0, self->tgt->qp_num);
	ASSERT_NE(NULL, qp) TH_LOG("open_qp through the shared domain: %s",
				   strerror(errno));
	EXPECT_EQ(self->tgt->qp_num, qp->qp_num);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	/* The creator's handle is still there: the QP lives. */
	EXPECT_EQ(IBV_QPS_RTR, dp_qp_state(self->tgt));
	EXPECT_EQ(0, ibv_close_xrcd(x0));

	/* It exists: O_CREAT | O_EXCL is EINVAL, O_CREAT alone finds it. */
	errno = 0;
	EXPECT_EQ(NULL, xrcd_open(self->env.ctx[0], self->file.fd,
				  O_CREAT | O_EXCL));
	EXPECT_EQ(EINVAL, errno);
	x0 = xrcd_open(self->env.ctx[0], self->file.fd, O_CREAT);
	ASSERT_NE(NULL, x0);
	EXPECT_EQ(0, ibv_close_xrcd(x0));

	/* A file without a domain and no O_CREAT: EINVAL. */
	ASSERT_EQ(0, xrc_file_open(&other));
	errno = 0;
	EXPECT_EQ(NULL, xrcd_open(self->env.ctx[0], other.fd, 0));
	EXPECT_EQ(EINVAL, errno);
	x0 = xrcd_open(self->env.ctx[0], other.fd, O_CREAT | O_EXCL);
	ASSERT_NE(NULL, x0) TH_LOG("O_CREAT | O_EXCL on a new file: %s",
				   strerror(errno));
	/* Another domain: the target QP is not in it. */
	errno = 0;
	EXPECT_EQ(NULL, tgt_open(x0, self->tgt->qp_num));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ibv_close_xrcd(x0));
	xrc_file_close(&other);

	/* A descriptor that is not open: EBADF. */
	closed = dup(self->file.fd);
	ASSERT_LE(0, closed);
	close(closed);
	errno = 0;
	EXPECT_EQ(NULL, xrcd_open(self->env.ctx[0], closed, O_CREAT));
	EXPECT_EQ(EBADF, errno);

	/* fd -1: a domain of its own, found by nobody. */
	priv = xrcd_open(self->env.ctx[1], -1, O_CREAT);
	ASSERT_NE(NULL, priv);
	errno = 0;
	EXPECT_EQ(NULL, tgt_open(priv, self->tgt->qp_num));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ibv_close_xrcd(priv));

	/* rdma-core's rule: FD and OFLAGS are both required. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_open_xrcd(self->env.ctx[0], &no_oflags));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(xrc, close_busy_while_used)
{
	int i;

	/* SRQs and the target QP of this context hold the domain. */
	EXPECT_EQ(EBUSY, ibv_close_xrcd(self->xrcd));
	for (i = 0; i < NR_SRQ; i++) {
		EXPECT_EQ(0, ibv_destroy_srq(self->srq[i]));
		self->srq[i] = NULL;
	}
	EXPECT_EQ(EBUSY, ibv_close_xrcd(self->xrcd));
	EXPECT_EQ(0, ibv_destroy_qp(self->tgt));
	self->tgt = NULL;
	EXPECT_EQ(0, ibv_close_xrcd(self->xrcd));
	self->xrcd = NULL;
}

TEST_F(xrc, srq_numbers)
{
	struct ibv_srq_init_attr basic = { .attr = { .max_wr = 4 } };
	struct ibv_xrcd *x0;
	struct ibv_srq *srq, *bsrq;
	uint32_t n = 0, keep;

	EXPECT_NE(self->srqn[0], self->srqn[1]);
	EXPECT_EQ(0, self->srqn[0] >> 24);
	EXPECT_EQ(0, self->srqn[1] >> 24);
	/* Unique on the device: another context's differs too. */
	x0 = xrcd_open(self->env.ctx[0], -1, O_CREAT);
	ASSERT_NE(NULL, x0);
	srq = xrc_srq_create(self->env.pd[0], x0, self->env.rcq[0]);
	ASSERT_NE(NULL, srq);
	ASSERT_EQ(0, ibv_get_srq_num(srq, &n));
	EXPECT_NE(self->srqn[0], n);
	EXPECT_NE(self->srqn[1], n);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_close_xrcd(x0));

	bsrq = ibv_create_srq(self->env.pd[1], &basic);
	ASSERT_NE(NULL, bsrq);
	keep = n;
	EXPECT_EQ(EINVAL, ibv_get_srq_num(bsrq, &n));
	EXPECT_EQ(keep, n);
	EXPECT_EQ(0, ibv_destroy_srq(bsrq));
}

TEST_F(xrc, send_to_two_srqs)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < NR_SRQ; i++) {
		dp_fill(self->sb.mem + i * MSG, MSG, 0x51 + i, 0);
		memset(self->rb.mem + i * 2 * MSG, 0, 2 * MSG);
		ASSERT_EQ(0, post_srq(self->srq[i], 0x700 + i, &self->rb,
				      i * 2 * MSG, 2 * MSG));
	}
	/* SRQ 1 first: each SEND goes where it names, not in order. */
	for (i = NR_SRQ - 1; i >= 0; i--)
		ASSERT_EQ(0, post_xrc(self->ini, IBV_WR_SEND, 0x100 + i,
				      self->srqn[i], &self->sb, i * MSG,
				      MSG - i, 0, 0));
	for (i = NR_SRQ - 1; i >= 0; i--) {
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, 0x100 + i, IBV_WC_SUCCESS, IBV_WC_SEND);
	}
	for (i = 0; i < NR_SRQ; i++) {
		ASSERT_POLL1(self->srq_cq[i], &wc);
		ASSERT_WC(&wc, 0x700 + i, IBV_WC_SUCCESS, IBV_WC_RECV);
		EXPECT_EQ(MSG - i, wc.byte_len);
		EXPECT_EQ(self->tgt->qp_num, wc.qp_num);
		EXPECT_EQ(-1, dp_check(self->rb.mem + i * 2 * MSG, MSG - i,
				      0x51 + i, 0));
		/* Nothing past the message. */
		EXPECT_EQ(0, self->rb.mem[i * 2 * MSG + MSG - i]);
		ASSERT_QUIET(self->srq_cq[i]);
	}
	ASSERT_QUIET(self->env.rcq[1]);
}

TEST_F(xrc, send_to_srq_of_another_domain)
{
	struct ibv_xrcd *other;
	struct ibv_cq *ocq;
	struct ibv_srq *osrq;
	uint32_t on;
	struct ibv_wc wc;

	other = xrcd_open(self->env.ctx[1], -1, O_CREAT);
	ASSERT_NE(NULL, other);
	ocq = do_ptr(ibv_create_cq(self->env.ctx[1], DP_CQE, NULL, NULL, 0));
	osrq = xrc_srq_create(self->env.pd[1], other, ocq);
	ASSERT_NE(NULL, osrq);
	ASSERT_EQ(0, ibv_get_srq_num(osrq, &on));
	ASSERT_EQ(0, post_srq(osrq, 0x900, &self->rb, 0, MSG));

	ASSERT_EQ(0, post_xrc(self->ini, IBV_WR_SEND, 0x901, on, &self->sb,
			      0, 64, 0, 0));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0x901, IBV_WC_REM_INV_REQ_ERR, IBV_WC_SEND);
	ASSERT_QUIET(ocq);
	ASSERT_QUIET(self->srq_cq[0]);
	ASSERT_QUIET(self->srq_cq[1]);

	EXPECT_EQ(0, ibv_destroy_srq(osrq));
	EXPECT_EQ(0, ibv_destroy_cq(ocq));
	EXPECT_EQ(0, ibv_close_xrcd(other));
}

/*
 * A SEND naming a number no SRQ has any more (one destroyed a moment
 * ago) is invalid too: the sender learns it, the target QP stops, and the
 * domain's other SRQ gets nothing.
 */
TEST_F(xrc, send_to_srq_number_gone)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	struct ibv_wc wc;
	uint32_t gone = self->srqn[0];

	ASSERT_EQ(0, ibv_destroy_srq(self->srq[0]));
	self->srq[0] = NULL;
	ASSERT_EQ(0, post_srq(self->srq[1], 0x910, &self->rb, 0, MSG));
	ASSERT_EQ(0, post_xrc(self->ini, IBV_WR_SEND, 0x911, gone, &self->sb,
			      0, 64, 0, 0));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0x911, IBV_WC_REM_INV_REQ_ERR, IBV_WC_SEND);
	ASSERT_QUIET(self->srq_cq[1]);
	ASSERT_EQ(0, ibv_query_qp(self->tgt, &attr, IBV_QP_STATE, &init));
	EXPECT_EQ(IBV_QPS_ERR, attr.qp_state);
}

TEST_F(xrc, write_and_read_through_target)
{
	uint64_t raddr = (uintptr_t)self->rb.mem + 3 * MSG;
	struct ibv_wc wc;

	dp_fill(self->sb.mem, MSG, 0x77, 0);
	memset(self->rb.mem, 0, BUF);
	ASSERT_EQ(0, post_xrc(self->ini, IBV_WR_RDMA_WRITE, 0x201,
			      self->srqn[1], &self->sb, 0, MSG, raddr,
			      self->rb.mr->rkey));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0x201, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	EXPECT_EQ(-1, dp_check(self->rb.mem + 3 * MSG, MSG, 0x77, 0));
	EXPECT_EQ(0, self->rb.mem[4 * MSG]);

	memset(self->sb.mem + 2 * MSG, 0, MSG);
	ASSERT_EQ(0, post_xrc(self->ini, IBV_WR_RDMA_READ, 0x202,
			      self->srqn[1], &self->sb, 2 * MSG, MSG, raddr,
			      self->rb.mr->rkey));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0x202, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	EXPECT_EQ(MSG, wc.byte_len);
	EXPECT_EQ(-1, dp_check(self->sb.mem + 2 * MSG, MSG, 0x77, 0));
	/* No receive was taken, no completion at the target's SRQs. */
	ASSERT_QUIET(self->srq_cq[1]);
}

TEST_F(xrc, write_with_region_of_another_pd)
{
	struct dp_buf ob;
	struct ibv_wc wc;

	/* Side 1's other PD is side 0's context's: use a second PD there. */
	struct ibv_pd *pd2 = do_ptr(ibv_alloc_pd(self->env.ctx[1]));

	do_buf_alloc(pd2, BUF, DP_ACCESS_ALL, &ob);
	memset(ob.mem, 0, BUF);
	ASSERT_EQ(0, post_xrc(self->ini, IBV_WR_RDMA_WRITE, 0x301,
			      self->srqn[0], &self->sb, 0, 64,
			      (uintptr_t)ob.mem, ob.mr->rkey));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0x301, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE);
	EXPECT_EQ(0, ob.mem[0]);
	EXPECT_EQ(0, dp_buf_free(&ob));
	EXPECT_EQ(0, ibv_dealloc_pd(pd2));
	/* The initiator is in error now: the teardown destroys it. */
}

/* What a forked process reports: CHILD_OK, or the step that failed. */
enum child_step {
	CHILD_OK,
	CHILD_OPEN_DEV,
	CHILD_OPEN_XRCD,
	CHILD_CREATE_QP,
	CHILD_MODIFY,
	CHILD_PIPE,
	CHILD_OPEN_QP,
	CHILD_QUERY,
	CHILD_DESTROY,
	CHILD_REOPEN,
	CHILD_CLOSE,
};

/* One number over a pipe, each way. */
static bool say(int fd, uint32_t v)
{
	return write(fd, &v, sizeof(v)) == sizeof(v);
}

static bool hear(int fd, uint32_t *v)
{
	return read(fd, v, sizeof(*v)) == sizeof(*v);
}

/*
 * The creator: a context of its own, the file's domain (made here), a
 * target QP moved to INIT; its number goes up. When told, it closes the
 * context without destroying anything, says so and exits.
 */
static int creator(int fd, int up, int down)
{
	struct dp_qp_opts o = dp_opts(IBV_QPT_XRC_RECV);
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *qp;
	uint32_t v;

	ctx = rnic_ibv_open(DEV);
	if (!ctx)
		return CHILD_OPEN_DEV;
	xrcd = xrcd_open(ctx, fd, O_CREAT | O_EXCL);
	if (!xrcd)
		return CHILD_OPEN_XRCD;
	qp = tgt_create(xrcd);
	if (!qp)
		return CHILD_CREATE_QP;
	if (dp_qp_init(qp, &o))
		return CHILD_MODIFY;
	if (!say(up, qp->qp_num) || !hear(down, &v))
		return CHILD_PIPE;
	if (ibv_close_device(ctx))
		return CHILD_CLOSE;
	return say(up, 0) ? CHILD_OK : CHILD_PIPE;
}

/*
 * The second process: the domain by file (it exists: no O_CREAT), held
 * open while the creator goes; then the QP by number, still in INIT;
 * dropping the last handle destroys it, and the number names nothing
 * afterwards.
 */
static int opener(int fd, int up, int down)
{
	struct ibv_qp_init_attr init;
	struct ibv_context *ctx;
	struct ibv_qp_attr attr;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *qp;
	uint32_t qpn;

	ctx = rnic_ibv_open(DEV);
	if (!ctx)
		return CHILD_OPEN_DEV;
	xrcd = xrcd_open(ctx, fd, 0);
	if (!xrcd)
		return CHILD_OPEN_XRCD;
	if (!say(up, 0) || !hear(down, &qpn))
		return CHILD_PIPE;
	qp = tgt_open(xrcd, qpn);
	if (!qp)
		return CHILD_OPEN_QP;
	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) ||
	    attr.qp_state != IBV_QPS_INIT || qp->qp_num != qpn)
		return CHILD_QUERY;
	if (ibv_destroy_qp(qp))
		return CHILD_DESTROY;
	if (tgt_open(xrcd, qpn) || errno != EINVAL)
		return CHILD_REOPEN;
	if (ibv_close_xrcd(xrcd) || ibv_close_device(ctx))
		return CHILD_CLOSE;
	return CHILD_OK;
}

/* fork() @fn(@fd, pipe to the parent, pipe from it): its pid, or -1. */
static pid_t spawn(int (*fn)(int, int, int), int fd, int up[2], int down[2])
{
	pid_t pid;

	if (pipe(up) || pipe(down))
		return -1;
	pid = fork();
	if (!pid)
		_exit(fn(fd, up[1], down[0]));
	return pid;
}

static int reaped(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(xrc, open_qp_in_fork_after_creator_closed)
{
	struct xrc_file f = { .fd = -1 };
	int cup[2], cdown[2], oup[2], odown[2];
	struct ibv_xrcd *px;
	pid_t cpid, opid;
	uint32_t qpn, v;

	ASSERT_EQ(0, xrc_file_open(&f));
	cpid = spawn(creator, f.fd, cup, cdown);
	ASSERT_LT(0, cpid);
	ASSERT_TRUE(hear(cup[0], &qpn)) TH_LOG("creator: %d", reaped(cpid));
	/* a third process: the creator's domain, found by the file */
	px = xrcd_open(self->env.ctx[0], f.fd, 0);
	ASSERT_NE(NULL, px) TH_LOG("open_xrcd: %s", strerror(errno));
	opid = spawn(opener, f.fd, oup, odown);
	ASSERT_LT(0, opid);
	ASSERT_TRUE(hear(oup[0], &v)) TH_LOG("opener: %d", reaped(opid));
	EXPECT_EQ(3, res_count(_metadata, &self->env, RNIC_RES_QP));

	/* The creator's context goes; the QP stays in the open domain. */
	ASSERT_TRUE(say(cdown[1], 0));
	ASSERT_TRUE(hear(cup[0], &v));
	EXPECT_EQ(CHILD_OK, reaped(cpid));
	EXPECT_EQ(3, res_count(_metadata, &self->env, RNIC_RES_QP));

	ASSERT_TRUE(say(odown[1], qpn));
	EXPECT_EQ(CHILD_OK, reaped(opid));
	/* The last handle went with the opener: the fixture's two remain. */
	EXPECT_EQ(2, res_count(_metadata, &self->env, RNIC_RES_QP));
	/* gone for the third process too */
	EXPECT_EQ(NULL, tgt_open(px, qpn));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ibv_close_xrcd(px));
	close(cup[0]);
	close(cup[1]);
	close(cdown[0]);
	close(cdown[1]);
	close(oup[0]);
	close(oup[1]);
	close(odown[0]);
	close(odown[1]);
	xrc_file_close(&f);
}

#define KILL_MSGS 8

/*
 * A process that shares the fixture's domain: an XRC SRQ of its own in
 * it (its own context, PD and CQ), whose number goes up the pipe; then a
 * byte per message received, 1 if its data is right. It runs until it
 * is killed, or DP_TIMEOUT_MS without a message.
 */
static int sharer(int fd, int up, int down)
{
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct dp_buf b;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	uint32_t srqn;
	uint8_t ok;
	int i;

	(void)down;
	ctx = rnic_ibv_open(DEV);
	if (!ctx)
		return CHILD_OPEN_DEV;
	xrcd = xrcd_open(ctx, fd, 0);
	if (!xrcd)
		return CHILD_OPEN_XRCD;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, DP_CQE, NULL, NULL, 0);
	if (!pd || !cq || dp_buf_alloc(pd, 2 * KILL_MSGS * MSG,
				       IBV_ACCESS_LOCAL_WRITE, &b))
		return CHILD_CREATE_QP;
	srq = xrc_srq_create(pd, xrcd, cq);
	if (!srq || ibv_get_srq_num(srq, &srqn))
		return CHILD_CREATE_QP;
	for (i = 0; i < 2 * KILL_MSGS; i++)
		if (post_srq(srq, i, &b, (size_t)i * MSG, MSG))
			return CHILD_CREATE_QP;
	if (!say(up, srqn))
		return CHILD_PIPE;
	for (;;) {
		/* Orphaned (the test failed before the kill): go. */
		if (dp_poll(cq, 1, &wc, DP_TIMEOUT_MS) != 1)
			return CHILD_QUERY;
		ok = wc.status == IBV_WC_SUCCESS && wc.byte_len == MSG &&
		     dp_check(b.mem + wc.wr_id * MSG, MSG,
			      0x40 + (uint32_t)wc.wr_id, 0) == -1;
		if (write(up, &ok, 1) != 1)
			return CHILD_PIPE;
	}
}

/* Every resource count of the device. */
static void res_all(struct __test_metadata *_metadata, struct dp_env *env,
		    uint64_t counts[RNIC_RES_NR_KINDS])
{
	ASSERT_EQ(0, rnic_res_get(env->g, DEV, env->res));
	memcpy(counts, env->res->counts, sizeof(env->res->counts));
}

/*
 * The fixture's target QP delivers into an SRQ of another process that
 * opened the domain by file; that process is SIGKILLed while messages
 * keep coming, and everything it had goes: the device counts what it
 * counted before the fork.
 */
TEST_F(xrc, srq_of_another_process_and_sigkill)
{
	uint64_t before[RNIC_RES_NR_KINDS], after[RNIC_RES_NR_KINDS];
	int up[2], down[2], i, k;
	struct ibv_wc wc;
	uint32_t srqn;
	pid_t pid;
	uint8_t ok;

	res_all(_metadata, &self->env, before);
	pid = spawn(sharer, self->file.fd, up, down);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(hear(up[0], &srqn)) TH_LOG("sharer: %d", reaped(pid));
	EXPECT_EQ(before[RNIC_RES_SRQ] + 1,
		  res_count(_metadata, &self->env, RNIC_RES_SRQ));

	for (i = 0; i < KILL_MSGS; i++) {
		dp_fill(self->sb.mem + i * MSG, MSG, 0x40 + i, 0);
		ASSERT_EQ(0, post_xrc(self->ini, IBV_WR_SEND, i, srqn,
				      &self->sb, i * MSG, MSG, 0, 0));
	}
	for (i = 0; i < KILL_MSGS; i++) {
		ASSERT_POLL1(self->env.scq[0], &wc);
		ASSERT_WC(&wc, i, IBV_WC_SUCCESS, IBV_WC_SEND);
		ASSERT_EQ(1, read(up[0], &ok, 1));
		EXPECT_EQ(1, ok) TH_LOG("message %d reached the sharer bad", i);
	}
	/* Nothing of it went to the fixture's own SRQs. */
	ASSERT_QUIET_MS(self->srq_cq[0], 0);
	ASSERT_QUIET_MS(self->srq_cq[1], 0);

	/* More messages, and the sharer dies among them. */
	for (i = 0; i < KILL_MSGS; i++)
		ASSERT_EQ(0, post_xrc(self->ini, IBV_WR_SEND, 0x100 + i, srqn,
				      &self->sb, 0, MSG, 0, 0));
	kill(pid, SIGKILL);
	EXPECT_EQ(-1, reaped(pid));
	/* Each completes: delivered before, refused or flushed after. */
	for (i = 0, k = 0; i < KILL_MSGS; i++) {
		ASSERT_POLL1(self->env.scq[0], &wc);
		EXPECT_EQ(0x100 + i, wc.wr_id);
		if (wc.status != IBV_WC_SUCCESS)
			k++;
		else
			EXPECT_EQ(0, k) TH_LOG("a success after an error");
	}
	res_all(_metadata, &self->env, after);
	for (k = 0; k < RNIC_RES_NR_KINDS; k++) {
		const char *kind = rnic_res_kinds[k].name;

		EXPECT_EQ(before[k], after[k]) TH_LOG("%s", kind);
	}
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

/* The reference documents' OFED 1.5 API, end to end. */
TEST_F(xrc, ofed_api)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp_init_attr rcv = { 0 }, qinit;
	struct ibv_qp_init_attr ini = {
		.send_cq = self->env.scq[0],
		.qp_type = IBV_QPT_XRC,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.sq_sig_all = 1,
	};
	struct dp_qp_opts o = dp_opts(IBV_QPT_XRC_RECV);
	struct xrc_file f = { .fd = -1 };
	struct ibv_xrc_domain *d1, *d0;
	struct ibv_qp_attr attr;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	uint32_t qpn, srqn;

	/* A domain of its own, so that only this test's objects use it. */
	ASSERT_EQ(0, xrc_file_open(&f));
	d1 = ibv_open_xrc_domain(self->env.ctx[1], f.fd, O_CREAT);
	ASSERT_NE(NULL, d1) TH_LOG("open_xrc_domain: %s", strerror(errno));
	d0 = ibv_open_xrc_domain(self->env.ctx[0], f.fd, 0);
	ASSERT_NE(NULL, d0);
	cq = do_ptr(ibv_create_cq(self->env.ctx[1], DP_CQE, NULL, NULL, 0));
	srq = ibv_create_xrc_srq(self->env.pd[1], d1, cq, &sa);
	ASSERT_NE(NULL, srq);
	ASSERT_EQ(0, ibv_get_srq_num(srq, &srqn));

	rcv.xrc_domain = d1;
	ASSERT_EQ(0, ibv_create_xrc_rcv_qp(&rcv, &qpn));
	ini.xrc_domain = d0;
	qp = ibv_create_qp(self->env.pd[0], &ini);
	ASSERT_NE(NULL, qp);

	/* The receive QP through its number, RESET -> INIT -> RTR. */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = DP_ACCESS_ALL;
	ASSERT_EQ(0, ibv_modify_xrc_rcv_qp(d1, qpn, &attr, IBV_QP_STATE |
					   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					   IBV_QP_ACCESS_FLAGS));
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = o.mtu;
	attr.dest_qp_num = qp->qp_num;
	attr.rq_psn = PSN_INI;
	attr.max_dest_rd_atomic = o.rd_atomic;
	attr.min_rnr_timer = o.min_rnr_timer;
	attr.ah_attr.grh.dgid = self->env.gid;
	attr.ah_attr.grh.sgid_index = self->env.gid_index;
	attr.ah_attr.grh.hop_limit = 64;
	attr.ah_attr.is_global = 1;
	attr.ah_attr.port_num = 1;
	ASSERT_EQ(0, ibv_modify_xrc_rcv_qp(d1, qpn, &attr, IBV_QP_STATE |
					   IBV_QP_AV | IBV_QP_PATH_MTU |
					   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					   IBV_QP_MAX_DEST_RD_ATOMIC |
					   IBV_QP_MIN_RNR_TIMER));
	memset(&qinit, 0, sizeof(qinit));
	ASSERT_EQ(0, ibv_query_xrc_rcv_qp(d1, qpn, &attr, IBV_QP_STATE,
					  &qinit));
	EXPECT_EQ(IBV_QPS_RTR, attr.qp_state);
	EXPECT_EQ(d1, qinit.xrc_domain);

	o.type = IBV_QPT_XRC_SEND;
	ASSERT_EQ(0, dp_qp_connect(qp, &o, qpn, &self->env.gid,
				   self->env.gid_index, PSN_INI, PSN_TGT,
				   false));

	dp_fill(self->sb.mem, MSG, 0x99, 0);
	memset(self->rb.mem, 0, BUF);
	ASSERT_EQ(0, post_srq(srq, 0x600, &self->rb, 0, MSG));
	sge = (struct ibv_sge){ .addr = (uintptr_t)self->sb.mem,
				.length = MSG, .lkey = self->sb.mr->lkey };
	wr.wr_id = 0x601;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.xrc_remote_srq_num = srqn;
	ASSERT_EQ(0, ibv_post_send(qp, &wr, &bad));
	ASSERT_POLL1(self->env.scq[0], &wc);
	ASSERT_WC(&wc, 0x601, IBV_WC_SUCCESS, IBV_WC_SEND);
	ASSERT_POLL1(cq, &wc);
	ASSERT_WC(&wc, 0x600, IBV_WC_SUCCESS, IBV_WC_RECV);
	EXPECT_EQ(MSG, wc.byte_len);
	EXPECT_EQ(qpn, wc.qp_num);
	EXPECT_EQ(-1, dp_check(self->rb.mem, MSG, 0x99, 0));

	/* A second registration (another process would do the same). */
	EXPECT_EQ(0, ibv_reg_xrc_rcv_qp(d0, qpn));
	EXPECT_EQ(EBUSY, ibv_close_xrc_domain(d0));
	EXPECT_EQ(0, ibv_unreg_xrc_rcv_qp(d1, qpn));
	/* d0's registration keeps the QP: it still answers. */
	memset(&qinit, 0, sizeof(qinit));
	EXPECT_EQ(0, ibv_query_xrc_rcv_qp(d0, qpn, &attr, IBV_QP_STATE,
					  &qinit));
	EXPECT_EQ(IBV_QPS_RTR, attr.qp_state);
	EXPECT_EQ(0, ibv_unreg_xrc_rcv_qp(d0, qpn));
	EXPECT_EQ(EINVAL, ibv_reg_xrc_rcv_qp(d0, qpn));

	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_close_xrc_domain(d0));
	EXPECT_EQ(0, ibv_close_xrc_domain(d1));
	xrc_file_close(&f);
}

TEST_HARNESS_MAIN
