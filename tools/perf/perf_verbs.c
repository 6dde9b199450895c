// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-perf: the device, the queue pairs and the test loops.
 *
 * Roles, per message size, after a barrier on the TCP connection:
 *
 * - bandwidth tests: the client keeps up to TX depth work requests posted
 *   per QP, asks for a completion every CQ moderation ones, and times from
 *   the first post to the last completion. The server of write_bw and
 *   read_bw only waits; the server of send_bw keeps -r (rx_depth) receives
 *   posted per QP, reposting each one as it completes.
 * - write_lat: ping-pong. Each side writes its message into the other's
 *   buffer and waits until the last byte of its own buffer changes to the
 *   value of the current round; send_lat is the same with SEND and a
 *   receive completion. The sample is half the round trip.
 * - read_lat, atomic_lat: the client keeps one READ (fetch-and-add) in
 *   flight; the sample is the time to its completion. The server waits.
 *
 * The client then sends its row to the server, which is how a server
 * that only waits learns that the size is over (and in -D mode, a server
 * that answers pings); both sides print the client's row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "perf.h"

/* Busy loops look at the TCP connection and the clock this often. */
#define PERF_SPIN_CHECK		4096
#define PERF_WC_BATCH		16

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static bool is_send_test(const struct perf_test *t)
{
	return t->opcode == IBV_WR_SEND;
}

static bool needs_recv(const struct perf_ctx *c)
{
	/* send_bw: only the server receives; send_lat: both sides. */
	return is_send_test(c->o->test) &&
	       (c->o->test->pingpong || !c->o->host);
}

static uint8_t *target_area(const struct perf_qp *q)
{
	return q->buf;
}

static uint8_t *local_area(const struct perf_ctx *c, const struct perf_qp *q)
{
	return q->buf + c->o->max_size;
}

static int find_device(struct perf_ctx *c)
{
	struct ibv_device **list;
	int n, i, ret = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		ret = -errno;
		fprintf(stderr, "rnic-perf: no RDMA devices: %s\n",
			strerror(errno));
		return ret;
	}
	for (i = 0; i < n; i++)
		if (!c->o->dev ||
		    !strcmp(ibv_get_device_name(list[i]), c->o->dev))
			break;
	if (i == n) {
		fprintf(stderr, "rnic-perf: %s%s\n",
			c->o->dev ? "no such device: " : "no RDMA device",
			c->o->dev ? c->o->dev : "");
		ret = -ENODEV;
		goto out;
	}
	c->ctx = ibv_open_device(list[i]);
	if (!c->ctx) {
		ret = -errno;
		fprintf(stderr, "rnic-perf: cannot open %s: %s\n",
			ibv_get_device_name(list[i]), strerror(errno));
	}
out:
	ibv_free_device_list(list);
	return ret;
}

static bool gid_is_ipv4(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

static bool gid_is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;

	return !memcmp(gid, &zero, sizeof(zero));
}

/* -x, or the first IPv4-mapped GID of the port, or index 0. */
static int pick_gid(struct perf_ctx *c)
{
	int i;

	c->gid_index = c->o->gid_index;
	if (c->gid_index < 0) {
		c->gid_index = 0;
		for (i = 0; i < c->pattr.gid_tbl_len; i++) {
			if (!ibv_query_gid(c->ctx, c->o->ib_port, i, &c->gid) &&
			    gid_is_ipv4(&c->gid)) {
				c->gid_index = i;
				break;
			}
		}
	}
	if (ibv_query_gid(c->ctx, c->o->ib_port, c->gid_index, &c->gid) ||
	    gid_is_zero(&c->gid)) {
		fprintf(stderr, "rnic-perf: %s port %u has no GID at index %d\n",
			ibv_get_device_name(c->ctx->device), c->o->ib_port,
			c->gid_index);
		return -ENOENT;
	}
	return 0;
}

static struct ibv_cq *create_cq(struct perf_ctx *c, unsigned int cqe)
{
	struct ibv_cq *cq;

	cqe = min_u32(cqe, c->dattr.max_cqe);
	cq = ibv_create_cq(c->ctx, cqe, NULL, c->channel, 0);
	if (!cq) {
		fprintf(stderr, "rnic-perf: cannot create a CQ of %u entries: %s\n",
			cqe, strerror(errno));
		return NULL;
	}
	/* Armed from the start: see wait_cq(). */
	if (c->channel && ibv_req_notify_cq(cq, 0)) {
		fprintf(stderr, "rnic-perf: cannot arm a CQ: %s\n",
			strerror(errno));
		ibv_destroy_cq(cq);
		return NULL;
	}
	return cq;
}

static int post_recv(struct perf_ctx *c, unsigned int i)
{
	struct perf_qp *q = &c->qps[i];
	struct ibv_sge sge = {
		.addr = (uintptr_t)target_area(q),
		.length = c->o->max_size,
		.lkey = q->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = i,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;
	int ret;

	ret = ibv_post_recv(q->qp, &wr, &bad);
	if (ret)
		fprintf(stderr, "rnic-perf: ibv_post_recv: %s\n", strerror(ret));
	return -ret;
}

static int create_qp(struct perf_ctx *c, unsigned int i)
{
	const struct perf_opts *o = c->o;
	struct perf_qp *q = &c->qps[i];
	size_t len = 2 * (size_t)o->max_size;
	struct ibv_qp_init_attr init = {
		.send_cq = c->scq,
		.recv_cq = c->rcq,
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
		.cap = {
			.max_send_wr = o->test->bw ? o->tx_depth : 16,
			.max_recv_wr = needs_recv(c) ? o->rx_depth : 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = o->inline_size,
		},
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = o->ib_port,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (posix_memalign((void **)&q->buf, 4096, len)) {
		fprintf(stderr, "rnic-perf: out of memory for %zu bytes\n", len);
		return -ENOMEM;
	}
	memset(q->buf, 0, len);
	q->mr = ibv_reg_mr(c->pd, q->buf, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	if (!q->mr) {
		fprintf(stderr, "rnic-perf: cannot register %zu bytes: %s\n",
			len, strerror(errno));
		return -errno;
	}
	q->qp = ibv_create_qp(c->pd, &init);
	if (!q->qp) {
		fprintf(stderr, "rnic-perf: cannot create a QP: %s\n",
			strerror(errno));
		return -errno;
	}
	if (ibv_modify_qp(q->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		fprintf(stderr, "rnic-perf: QP to INIT: %s\n", strerror(errno));
		return -errno;
	}
	q->local.qpn = q->qp->qp_num;
	q->local.psn = lrand48() & 0xffffff;
	q->local.rkey = q->mr->rkey;
	q->local.addr = (uintptr_t)target_area(q);
	q->local.rd_atom = min_u32(c->dattr.max_qp_rd_atom, 255);
	q->local.gid = c->gid;
	return 0;
}

/**
 * perf_open() - open the device, create CQs, buffers and QPs (in INIT)
 * @c: the run, zeroed but for @o; perf_close() undoes what was done,
 *     also after a failure
 *
 * Return: 0 or a negative errno (said on stderr).
 */
int perf_open(struct perf_ctx *c)
{
	const struct perf_opts *o = c->o;
	unsigned int i;
	int ret;

	c->sock = -1;
	ret = find_device(c);
	if (ret)
		return ret;
	ret = ibv_query_device(c->ctx, &c->dattr);
	if (!ret)
		ret = ibv_query_port(c->ctx, o->ib_port, &c->pattr);
	if (ret) {
		fprintf(stderr, "rnic-perf: cannot query %s: %s\n",
			ibv_get_device_name(c->ctx->device), strerror(ret));
		return -ret;
	}
	if (o->max_size > c->pattr.max_msg_sz) {
		fprintf(stderr, "rnic-perf: %s takes messages up to %u bytes\n",
			ibv_get_device_name(c->ctx->device),
			c->pattr.max_msg_sz);
		return -EINVAL;
	}
	ret = pick_gid(c);
	if (ret)
		return ret;
	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd) {
		fprintf(stderr, "rnic-perf: ibv_alloc_pd: %s\n", strerror(errno));
		return -errno;
	}
	if (o->events) {
		c->channel = ibv_create_comp_channel(c->ctx);
		if (!c->channel) {
			fprintf(stderr, "rnic-perf: ibv_create_comp_channel: %s\n",
				strerror(errno));
			return -errno;
		}
	}
	c->scq = create_cq(c, o->qps * (o->test->bw ? o->tx_depth : 16));
	if (!c->scq)
		return -errno;
	c->rcq = create_cq(c, o->qps * (needs_recv(c) ? o->rx_depth : 1));
	if (!c->rcq)
		return -errno;
	c->qps = calloc(o->qps, sizeof(*c->qps));
	if (!c->qps)
		return -ENOMEM;
	srand48(getpid() ^ (long)perf_now_us());
	for (i = 0; i < o->qps; i++) {
		ret = create_qp(c, i);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * perf_connect_qps() - move the QPs to RTS towards the peer's, post the
 * receives of the send tests
 * @c: the run, after perf_net_exchange_qps()
 *
 * Return: 0 or a negative errno (said on stderr).
 */
int perf_connect_qps(struct perf_ctx *c)
{
	const struct perf_opts *o = c->o;
	struct ibv_qp_attr attr;
	struct perf_qp *q;
	unsigned int i, j;
	int ret;

	for (i = 0; i < o->qps; i++) {
		q = &c->qps[i];
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_RTR;
		attr.path_mtu = c->pattr.active_mtu;
		attr.dest_qp_num = q->remote.qpn;
		attr.rq_psn = q->remote.psn;
		attr.max_dest_rd_atomic = q->local.rd_atom;
		attr.min_rnr_timer = 12;
		attr.ah_attr.is_global = 1;
		attr.ah_attr.grh.dgid = q->remote.gid;
		attr.ah_attr.grh.sgid_index = c->gid_index;
		attr.ah_attr.grh.hop_limit = 64;
		attr.ah_attr.port_num = o->ib_port;
		ret = ibv_modify_qp(q->qp, &attr, IBV_QP_STATE | IBV_QP_AV |
				    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
		if (ret) {
			fprintf(stderr, "rnic-perf: QP to RTR: %s\n",
				strerror(ret));
			return -ret;
		}
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_RTS;
		attr.sq_psn = q->local.psn;
		attr.timeout = o->qp_timeout;
		attr.retry_cnt = 7;
		attr.rnr_retry = 7;
		attr.max_rd_atomic = min_u32(c->dattr.max_qp_init_rd_atom,
					     q->remote.rd_atom);
		ret = ibv_modify_qp(q->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN |
				    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
		if (ret) {
			fprintf(stderr, "rnic-perf: QP to RTS: %s\n",
				strerror(ret));
			return -ret;
		}
		for (j = 0; needs_recv(c) && j < o->rx_depth; j++) {
			ret = post_recv(c, i);
			if (ret)
				return ret;
		}
	}
	return 0;
}

void perf_close(struct perf_ctx *c)
{
	unsigned int i;

	for (i = 0; c->qps && i < c->o->qps; i++) {
		if (c->qps[i].qp)
			ibv_destroy_qp(c->qps[i].qp);
		if (c->qps[i].mr)
			ibv_dereg_mr(c->qps[i].mr);
		free(c->qps[i].buf);
	}
	free(c->qps);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->channel)
		ibv_destroy_comp_channel(c->channel);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->ctx)
		ibv_close_device(c->ctx);
	if (c->sock >= 0)
		close(c->sock);
}

/* ---- completions ------------------------------------------------------ */

static int wc_error(const struct ibv_wc *wc)
{
	fprintf(stderr, "rnic-perf: work completion of QP %#x: %s (%d)\n",
		wc->qp_num, ibv_wc_status_str(wc->status), wc->status);
	return -EIO;
}

/**
 * perf_cq_mod() - every how many sends of @size a completion is asked for
 * @o: the options
 * @size: message size
 */
unsigned int perf_cq_mod(const struct perf_opts *o, uint32_t size)
{
	if (size > PERF_CQ_MOD_LIMIT && !o->all_sizes)
		return 1;
	return min_u32(o->tx_depth, PERF_CQ_MOD);
}

/*
 * Block until the channel has an event (acknowledged, its CQ re-armed:
 * return 1) or, with @watch_sock, the peer sent a line (return 2), for at
 * most PERF_STALL_MS (-ETIMEDOUT).
 */
static int wait_event(struct perf_ctx *c, bool watch_sock)
{
	struct pollfd p[2] = {
		{ .fd = c->channel->fd, .events = POLLIN },
		{ .fd = c->sock, .events = POLLIN },
	};
	struct ibv_cq *cq;
	void *cq_ctx;
	int ret;

	if (watch_sock) {
		ret = perf_net_peek(c);
		if (ret)
			return ret < 0 ? ret : 2;
	}
	ret = poll(p, watch_sock ? 2 : 1, PERF_STALL_MS);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (!ret)
		return -ETIMEDOUT;
	if (watch_sock && p[1].revents) {
		ret = perf_net_peek(c);
		if (ret)
			return ret < 0 ? ret : 2;
	}
	if (!(p[0].revents & POLLIN))
		return 0;
	if (ibv_get_cq_event(c->channel, &cq, &cq_ctx))
		return -errno;
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(cq, 0))
		return -errno;
	return 1;
}

/*
 * Poll up to @n completions of @cq. If there are none and @wait, wait
 * for some: on the channel with -e, else spinning; with @watch_sock a
 * line from the peer ends the wait too (return 0). A failed completion
 * is an error; so is PERF_STALL_MS without one.
 */
static int wait_cq(struct perf_ctx *c, struct ibv_cq *cq, struct ibv_wc *wc,
		   int n, bool wait, bool watch_sock)
{
	double stall = 0;
	unsigned int spins = 0;
	int got, i, ret;

	for (;;) {
		got = ibv_poll_cq(cq, n, wc);
		if (got < 0) {
			fprintf(stderr, "rnic-perf: ibv_poll_cq failed\n");
			return -EIO;
		}
		for (i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				return wc_error(&wc[i]);
		if (got || !wait)
			return got;
		if (c->channel) {
			ret = wait_event(c, watch_sock);
			if (ret == 2 || ret < 0)
				goto out;
			continue;
		}
		if (++spins % PERF_SPIN_CHECK)
			continue;
		if (watch_sock) {
			ret = perf_net_peek(c);
			if (ret)
				goto out;
		}
		if (!stall)
			stall = perf_now_us() + PERF_STALL_MS * 1000.0;
		else if (perf_now_us() > stall)
			break;
	}
	ret = -ETIMEDOUT;
out:
	if (ret == -ETIMEDOUT)
		fprintf(stderr, "rnic-perf: no completion for %d s\n",
			PERF_STALL_MS / 1000);
	else if (ret == -ECONNRESET)
		fprintf(stderr, "rnic-perf: the peer went away\n");
	else if (ret < 0)
		fprintf(stderr, "rnic-perf: waiting for a completion: %s\n",
			strerror(-ret));
	return ret < 0 ? ret : 0;
}

static int post_send(struct perf_ctx *c, unsigned int i, uint32_t size,
		     uint64_t wr_id, bool signaled)
{
	struct perf_qp *q = &c->qps[i];
	struct ibv_sge sge = {
		.addr = (uintptr_t)local_area(c, q),
		.length = size,
		.lkey = q->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = c->o->test->opcode,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
	}, *bad;
	int ret;

	if (size <= c->o->inline_size)
		wr.send_flags |= IBV_SEND_INLINE;
	if (wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = q->remote.addr;
		wr.wr.atomic.rkey = q->remote.rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = q->remote.addr;
		wr.wr.rdma.rkey = q->remote.rkey;
	}
	ret = ibv_post_send(q->qp, &wr, &bad);
	if (ret)
		fprintf(stderr, "rnic-perf: ibv_post_send: %s\n", strerror(ret));
	return -ret;
}

/* ---- bandwidth -------------------------------------------------------- */

/*
 * A batch: consecutive work requests of one QP of which the last asks
 * for a completion. Kept for the peak bandwidth.
 */
struct batches {
	double *start;
	double *end;
	uint32_t *ops;
	size_t n;
	size_t cap;
};

static int batch_open(struct batches *b, double now)
{
	size_t cap = b->cap ? 2 * b->cap : 1024;
	void *p;

	if (b->n == b->cap) {
		p = realloc(b->start, cap * sizeof(*b->start));
		if (!p)
			return -ENOMEM;
		b->start = p;
		p = realloc(b->end, cap * sizeof(*b->end));
		if (!p)
			return -ENOMEM;
		b->end = p;
		p = realloc(b->ops, cap * sizeof(*b->ops));
		if (!p)
			return -ENOMEM;
		b->ops = p;
		b->cap = cap;
	}
	b->start[b->n] = now;
	b->end[b->n] = 0;
	b->ops[b->n] = 0;
	return b->n++;
}

static void batches_free(struct batches *b)
{
	free(b->start);
	free(b->end);
	free(b->ops);
}

/*
 * Post the next work request of QP @i if there is room. Returns 1 if
 * one was posted, 0 if not, or a negative errno. @done is set when the
 * QP has posted its last one. The clock is read once per batch (cq_mod
 * sends), not per send: a run with -D ends with the first batch that
 * would open after the deadline.
 */
static int bw_post_one(struct perf_ctx *c, unsigned int i, uint32_t size,
		       unsigned int cq_mod, double deadline,
		       struct batches *b, size_t *open, bool *done)
{
	const struct perf_opts *o = c->o;
	struct perf_qp *q = &c->qps[i];
	bool last, signaled;
	double now;
	int ret;

	if (q->posted - q->completed >= o->tx_depth)
		return 0;
	if (!q->unsignaled) {
		now = perf_now_us();
		if (deadline && now >= deadline) {
			*done = true;
			return 0;
		}
		ret = batch_open(b, now);
		if (ret < 0)
			return ret;
		*open = ret;
	}
	last = !deadline && q->posted + 1 == o->iters;
	q->unsignaled++;
	signaled = last || q->unsignaled == cq_mod;
	ret = post_send(c, i, size, *open * PERF_MAX_QPS + i, signaled);
	if (ret)
		return ret;
	q->posted++;
	if (signaled) {
		b->ops[*open] = q->unsignaled;
		q->unsignaled = 0;
	}
	*done = last;
	return 1;
}

static int bw_client(struct perf_ctx *c, uint32_t size, struct perf_result *r)
{
	const struct perf_opts *o = c->o;
	unsigned int cq_mod = perf_cq_mod(o, size);
	struct ibv_wc wc[PERF_WC_BATCH];
	struct batches b = { 0 };
	size_t *open = NULL;
	bool *done = NULL;
	double first, last = 0, deadline = 0, secs;
	uint64_t total = 0, completed = 0;
	unsigned int i, posting = o->qps;
	bool progress;
	int n, ret = -ENOMEM;

	open = calloc(o->qps, sizeof(*open));
	done = calloc(o->qps, sizeof(*done));
	if (!open || !done)
		goto out;
	for (i = 0; i < o->qps; i++) {
		c->qps[i].posted = 0;
		c->qps[i].completed = 0;
		c->qps[i].unsignaled = 0;
	}
	first = perf_now_us();
	if (o->duration)
		deadline = first + o->duration * 1e6;
	while (posting || completed < total) {
		progress = false;
		for (i = 0; i < o->qps; i++) {
			if (done[i])
				continue;
			ret = bw_post_one(c, i, size, cq_mod, deadline, &b,
					  &open[i], &done[i]);
			if (ret < 0)
				goto out;
			total += ret;
			progress |= ret;
			posting -= done[i];
		}
		/* Wait only with nothing to post and something in flight. */
		n = wait_cq(c, c->scq, wc, PERF_WC_BATCH,
			    !progress && completed < total, false);
		if (n < 0) {
			ret = n;
			goto out;
		}
		if (n)
			last = perf_now_us();
		while (n--) {
			size_t k = wc[n].wr_id / PERF_MAX_QPS;

			b.end[k] = last;
			c->qps[wc[n].wr_id % PERF_MAX_QPS].completed += b.ops[k];
			completed += b.ops[k];
		}
	}
	secs = (last - first) / 1e6;
	r->size = size;
	r->iters = total / o->qps;
	r->bw_avg = secs > 0 ? total * (double)size / secs / 1048576.0 : 0;
	r->msg_rate = secs > 0 ? total / secs / 1e6 : 0;
	r->bw_peak = perf_peak_bw(b.start, b.end, b.ops, b.n, size);
	ret = 0;
out:
	batches_free(&b);
	free(open);
	free(done);
	return ret;
}

/* send_bw's server: repost receives until the client's row arrives. */
static int bw_recv_server(struct perf_ctx *c)
{
	struct ibv_wc wc[PERF_WC_BATCH];
	int n, i, ret;

	for (;;) {
		n = wait_cq(c, c->rcq, wc, PERF_WC_BATCH, true, true);
		if (n < 0)
			return n;
		if (!n)
			return 0;
		for (i = 0; i < n; i++) {
			ret = post_recv(c, wc[i].wr_id);
			if (ret)
				return ret;
		}
	}
}

/* ---- latency ---------------------------------------------------------- */

struct samples {
	double *v;
	uint64_t n;
	uint64_t cap;
};

static int sample_add(struct samples *s, double us)
{
	uint64_t cap = s->cap ? 2 * s->cap : 1024;
	void *p;

	if (s->n == s->cap) {
		p = realloc(s->v, cap * sizeof(*s->v));
		if (!p)
			return -ENOMEM;
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = us;
	return 0;
}

/* The value the last byte carries in round @i: never 0, never repeated. */
static uint8_t round_mark(uint64_t i)
{
	return i % 255 + 1;
}

/*
 * Spin until the last byte of QP 0's target area is @mark. With
 * @watch_sock a line from the peer ends the wait (return 1).
 */
static int wait_mark(struct perf_ctx *c, uint32_t size, uint8_t mark,
		     bool watch_sock)
{
	const uint8_t *p = target_area(&c->qps[0]) + size - 1;
	unsigned int spins = 0;
	double stall = 0;
	int ret;

	/* The peer's WRITE changes the byte behind the compiler's back. */
	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != mark) {
		if (++spins % PERF_SPIN_CHECK)
			continue;
		ret = perf_net_peek(c);
		if (ret < 0) {
			fprintf(stderr, "rnic-perf: the peer went away\n");
			return ret;
		}
		if (ret && watch_sock)
			return 1;
		if (!stall) {
			stall = perf_now_us() + PERF_STALL_MS * 1000.0;
		} else if (perf_now_us() > stall) {
			fprintf(stderr, "rnic-perf: no message for %d s\n",
				PERF_STALL_MS / 1000);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/*
 * Wait for the next receive completion of QP 0 and post a new receive.
 * Returns 0, 1 if a line from the peer came first (@watch_sock), or a
 * negative errno.
 */
static int wait_recv(struct perf_ctx *c, bool watch_sock)
{
	struct ibv_wc wc;
	int n;

	n = wait_cq(c, c->rcq, &wc, 1, true, watch_sock);
	if (n < 0)
		return n;
	if (!n)
		return 1;
	return post_recv(c, 0);
}

static int wait_send(struct perf_ctx *c)
{
	struct ibv_wc wc;
	int n;

	n = wait_cq(c, c->scq, &wc, 1, true, false);
	return n < 0 ? n : 0;
}

/* One round of the ping-pong tests from the side that sends @mark. */
static int pingpong_send(struct perf_ctx *c, uint32_t size, uint8_t mark)
{
	local_area(c, &c->qps[0])[size - 1] = mark;
	return post_send(c, 0, size, 0, true);
}

/* Wait for the peer's round @mark (ping-pong tests). */
static int pingpong_wait(struct perf_ctx *c, uint32_t size, uint8_t mark,
			 bool watch_sock)
{
	if (c->o->test->opcode == IBV_WR_RDMA_WRITE)
		return wait_mark(c, size, mark, watch_sock);
	return wait_recv(c, watch_sock);
}

static int lat_client(struct perf_ctx *c, uint32_t size, struct perf_result *r)
{
	const struct perf_opts *o = c->o;
	bool pingpong = o->test->pingpong;
	struct samples s = { 0 };
	double t0, t1, deadline = 0;
	uint64_t i;
	int ret = 0;

	if (o->duration)
		deadline = perf_now_us() + o->duration * 1e6;
	for (i = 0; deadline ? perf_now_us() < deadline : i < o->iters; i++) {
		t0 = perf_now_us();
		ret = pingpong ? pingpong_send(c, size, round_mark(i)) :
				 post_send(c, 0, size, 0, true);
		if (ret)
			goto out;
		if (pingpong)
			ret = pingpong_wait(c, size, round_mark(i), false);
		else
			ret = wait_send(c);
		if (ret)
			goto out;
		t1 = perf_now_us();
		if (pingpong)
			ret = wait_send(c);
		if (!ret)
			ret = sample_add(&s, pingpong ? (t1 - t0) / 2 : t1 - t0);
		if (ret)
			goto out;
	}
	r->size = size;
	r->iters = s.n;
	if (s.n)
		perf_lat_stats(s.v, s.n, r);
out:
	free(s.v);
	return ret;
}

/* The answering side of write_lat and send_lat, until the client's row. */
static int pingpong_server(struct perf_ctx *c, uint32_t size)
{
	uint64_t i;
	int ret;

	for (i = 0;; i++) {
		ret = pingpong_wait(c, size, round_mark(i), true);
		if (ret)
			return ret < 0 ? ret : 0;
		ret = pingpong_send(c, size, round_mark(i));
		if (!ret)
			ret = wait_send(c);
		if (ret)
			return ret;
	}
}

/*
 * --start-at: sleep until @at (CLOCK_REALTIME seconds). A client that is
 * ready only after it starts at once and says by how much it is late; one
 * that would wait longer than a server waits for a silent peer fails.
 */
static int wait_until(double at)
{
	struct timespec ts, now;
	double ahead;

	clock_gettime(CLOCK_REALTIME, &now);
	ahead = at - (now.tv_sec + now.tv_nsec / 1e9);
	if (ahead < 0) {
		fprintf(stderr, "rnic-perf: ready %.3f s after --start-at\n",
			-ahead);
		return 0;
	}
	if (ahead * 1000 > PERF_STALL_MS) {
		fprintf(stderr,
			"rnic-perf: --start-at is %.1f s ahead, more than the %d s a server waits\n",
			ahead, PERF_STALL_MS / 1000);
		return -EINVAL;
	}
	ts.tv_sec = (time_t)at;
	ts.tv_nsec = (long)((at - ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return 0;
}

/**
 * perf_run_size() - run the test for one message size
 * @c: the run, connected
 * @size: message size
 * @r: the client's row (on the server, as the client sent it)
 *
 * Return: 0 or a negative errno (said on stderr).
 */
int perf_run_size(struct perf_ctx *c, uint32_t size, struct perf_result *r)
{
	const struct perf_test *t = c->o->test;
	int ret;

	memset(r, 0, sizeof(*r));
	/* The peer writes only after the barrier: no write is in flight. */
	memset(target_area(&c->qps[0]), 0, size);
	ret = perf_net_sync(c);
	if (ret)
		return ret;
	if (c->o->host) {
		if (c->o->start_at && size == c->o->min_size)
			ret = wait_until(c->o->start_at);
		if (ret)
			return ret;
		ret = t->bw ? bw_client(c, size, r) : lat_client(c, size, r);
		if (!ret)
			ret = perf_net_send_result(c, r);
		return ret;
	}
	if (t->pingpong)
		ret = pingpong_server(c, size);
	else if (t->bw && is_send_test(t))
		ret = bw_recv_server(c);
	if (!ret)
		ret = perf_net_recv_result(c, r);
	return ret;
}
