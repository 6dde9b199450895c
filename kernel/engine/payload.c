// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - memory access through memory regions and
 * windows: keys resolved to pieces of MRs, payloads (where a packet's
 * bytes are or go) and the copy between them.
 *
 * A payload holds a data path reference (struct rnic_dpref) on every MR
 * it names, so the pages stay pinned while it is used; see core/dpref.c.
 *
 * Two ways to copy: rnic_payload_copy() maps page after page of both
 * payloads and copies between them (the local link's one copy, in bursts
 * of up to 64 KiB, and inline sends); rnic_payload_iter_next() describes
 * a payload's pages as an iov_iter, so that bytes from elsewhere (a GRH,
 * an atomic's original value, a packet the udp link received, with
 * skb_copy_datagram_iter()) go through the kernel's own copy routines.
 * rnic_pkt_copy_payload() copies a received packet's payload from either
 * place; rnic_payload_copy_out() copies a payload into the skb the udp
 * link sends.
 */
#include <linux/highmem.h>
#include <linux/skbuff.h>
#include <linux/uio.h>

#include "engine/engine.h"

/*
 * Append bytes [@addr, @addr + @len) of @mr (its iova space; checked) to
 * @pl, which takes over the data path reference on @mr.
 */
static void rnic_payload_push(struct rnic_payload *pl, struct rnic_mr *mr,
			      u64 addr, u32 len)
{
	struct rnic_mseg *seg = &pl->segs[pl->nsegs++];

	seg->mr = mr;
	seg->off = addr - mr->iova;
	seg->len = len;
}

/*
 * Append a piece of @mr (NULL: the key named none) if @pd and @access
 * allow it and @mr covers it; else drop @mr's reference. 0 or -EACCES.
 */
static int rnic_payload_add_checked(struct rnic_payload *pl,
				    struct rnic_mr *mr, struct rnic_pd *pd,
				    u64 addr, u32 len, u32 access)
{
	if (!mr)
		return -EACCES;
	if (mr->pd != pd || (mr->access & access) != access ||
	    !rnic_in_range(mr->iova, mr->length, addr, len)) {
		rnic_mr_dp_put(mr);
		return -EACCES;
	}
	rnic_payload_push(pl, mr, addr, len);
	return 0;
}

/**
 * rnic_payload_add_rkey() - append the piece of memory a remote key
 *	names to a payload: a region's, or a window's
 * @pl: the payload; on failure unchanged
 * @qp: the responder's QP, whose device's key table @rkey indexes
 * @rkey: the request's rkey, untrusted
 * @addr: first byte, in the region's iova space
 * @len: bytes, not 0
 * @access: the enum rnic_access right the access needs
 *
 * Return: 0, or -EACCES if @rkey names no region or window of @qp's PD
 * with @access covering the range (and, for a type 2 window, bound to
 * @qp), -EINVAL if @pl is full.
 */
int rnic_payload_add_rkey(struct rnic_payload *pl, struct rnic_qp *qp,
			  u32 rkey, u64 addr, u32 len, u32 access)
{
	void *entry;
	struct rnic_mr *mr;

	if (pl->nsegs >= ARRAY_SIZE(pl->segs))
		return -EINVAL;
	entry = rnic_xa_load_rcu(&qp->rdev->mrs, rnic_mr_key_index(rkey));
	if (xa_pointer_tag(entry) != RNIC_KEY_TAG_MW)
		return rnic_payload_add_checked(pl,
						rnic_mr_from_entry(entry, rkey,
								   true),
						rnic_resp_rkey_pd(qp), addr, len,
						access);
	/* the window lies inside its region: checked when it was bound */
	mr = rnic_mw_resolve(xa_untag_pointer(entry), qp, rkey, addr, len,
			     access);
	if (!mr)
		return -EACCES;
	rnic_payload_push(pl, mr, addr, len);
	return 0;
}

/**
 * rnic_payload_from_sgl() - resolve bytes [@off, @off + @len) of a
 *	scatter/gather list into a payload
 * @pl: an empty payload; filled in, released by the caller on failure too
 * @rdev: the device
 * @pd: the protection domain of the list's MRs
 * @sge: the list, its total length at least @off + @len
 * @nsge: entries
 * @off: first byte of the message
 * @len: bytes
 * @access: enum rnic_access bits every MR must have
 *
 * Entries of length 0 are skipped without looking at their key.
 *
 * Return: 0 or -EACCES (a bad key, range or access right).
 */
int rnic_payload_from_sgl(struct rnic_payload *pl, struct rnic_dev *rdev,
			  struct rnic_pd *pd, const struct rnic_sge *sge,
			  u32 nsge, u32 off, u32 len, u32 access)
{
	u32 i, n;
	int ret;

	for (i = 0; i < nsge && len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(sge[i].length - off, len);
		if (pl->nsegs >= ARRAY_SIZE(pl->segs))
			return -EINVAL;
		ret = rnic_payload_add_checked(pl,
					       rnic_mr_get(rdev, sge[i].lkey,
							   false),
					       pd, sge[i].addr + off, n, access);
		if (ret)
			return ret;
		off = 0;
		len -= n;
	}
	return len ? -EACCES : 0;
}

static void rnic_cursor_init(struct rnic_cursor *cur,
			     const struct rnic_payload *pl, u32 off)
{
	cur->pl = pl;
	cur->seg = 0;
	cur->off = off;
	if (pl->inline_data)
		return;
	while (cur->seg < pl->nsegs && cur->off >= pl->segs[cur->seg].len) {
		cur->off -= pl->segs[cur->seg].len;
		cur->seg++;
	}
}

/*
 * The page of the byte at the cursor, in an MR piece: *@in_page is the
 * byte's offset in it, *@avail how many bytes follow in the page and in
 * the piece.
 */
static inline struct page *rnic_cursor_page(const struct rnic_cursor *cur,
					    u32 *in_page, u32 *avail)
{
	const struct rnic_mseg *seg = &cur->pl->segs[cur->seg];
	u64 pos = seg->mr->offset + seg->off + cur->off;

	*in_page = pos & ~PAGE_MASK;
	*avail = min_t(u64, PAGE_SIZE - *in_page, seg->len - cur->off);
	return seg->mr->pages[pos >> PAGE_SHIFT];
}

static void rnic_cursor_advance(struct rnic_cursor *cur, u32 n)
{
	cur->off += n;
	if (!cur->pl->inline_data && cur->off == cur->pl->segs[cur->seg].len) {
		cur->seg++;
		cur->off = 0;
	}
}

/*
 * Map the bytes at the cursor, at most to the end of their page and of
 * their piece: *@avail is how many. Unmap with rnic_cursor_unmap().
 */
static inline u8 *rnic_cursor_map(const struct rnic_cursor *cur, u32 *avail)
{
	struct page *page;
	u32 in_page;

	if (cur->pl->inline_data) {
		*avail = U32_MAX;
		return (u8 *)cur->pl->inline_data + cur->off;
	}
	page = rnic_cursor_page(cur, &in_page, avail);
	return (u8 *)kmap_local_page(page) + in_page;
}

static void rnic_cursor_unmap(const struct rnic_cursor *cur, u8 *p)
{
	if (!cur->pl->inline_data)
		kunmap_local(p);
}

/**
 * rnic_payload_iter_init() - start an iov_iter over a payload's pages
 * @it: the iterator's state
 * @pl: a payload of memory region pieces (not inline data), which keeps
 *	its pages pinned while @it is used
 * @off: first byte of @pl
 */
void rnic_payload_iter_init(struct rnic_payload_iter *it,
			    const struct rnic_payload *pl, u32 off)
{
	rnic_cursor_init(&it->cur, pl, off);
}

/**
 * rnic_payload_iter_next() - the next run of a payload's pages as an
 *	iov_iter
 * @it: started with rnic_payload_iter_init()
 * @len: bytes wanted; the payload has that many left
 * @dir: ITER_DEST to copy into the payload (a received packet's data),
 *	ITER_SOURCE to copy out of it
 *
 * Sets @it->iter to an ITER_BVEC over the next RNIC_PAYLOAD_ITER_BVECS
 * page pieces at most, for copy_to_iter(), copy_from_iter() or
 * skb_copy_datagram_iter(), and moves @it past them.
 *
 * Return: bytes @it->iter covers, between 1 and @len (0 if @len is 0).
 */
u32 rnic_payload_iter_next(struct rnic_payload_iter *it, u32 len,
			   unsigned int dir)
{
	struct bio_vec *bv = it->bvec;
	u32 n = 0, in_page, avail;

	while (n < len && bv < it->bvec + ARRAY_SIZE(it->bvec)) {
		bv->bv_page = rnic_cursor_page(&it->cur, &in_page, &avail);
		bv->bv_offset = in_page;
		bv->bv_len = min(len - n, avail);
		rnic_cursor_advance(&it->cur, bv->bv_len);
		n += bv->bv_len;
		bv++;
	}
	iov_iter_bvec(&it->iter, dir, it->bvec, bv - it->bvec, n);
	return n;
}

/**
 * rnic_payload_copy_in() - copy a kernel buffer into a payload through
 *	an iov_iter, as a wire link's receive path does with a packet
 * @dst: where the bytes go; memory regions only
 * @dst_off: first byte of @dst to write
 * @buf: the bytes: a small buffer on the stack or in a slab (a GRH, an
 *	atomic's original value). copy_to_iter() checks it as
 *	CONFIG_HARDENED_USERCOPY wants, and for vmalloc memory that takes
 *	a global lock: inline sends, whose bytes are in the QP's
 *	kvmalloc'd WQE copies, use rnic_payload_copy().
 * @len: how many; @dst has that many from @dst_off
 *
 * Context: any; does not sleep.
 */
void rnic_payload_copy_in(const struct rnic_payload *dst, u32 dst_off,
			  const void *buf, u32 len)
{
	struct rnic_payload_iter it;
	size_t copied;
	u32 n;

	rnic_payload_iter_init(&it, dst, dst_off);
	while (len) {
		n = rnic_payload_iter_next(&it, len, ITER_DEST);
		copied = copy_to_iter(buf, n, &it.iter);
		/* into pinned pages nothing stops a copy short */
		if (WARN_ON_ONCE(copied != n))
			return;
		buf += n;
		len -= n;
	}
}

/**
 * rnic_payload_copy() - the one copy of the data path
 * @dst: where the bytes go; memory regions only
 * @dst_off: first byte of @dst to write
 * @src: where they come from
 * @len: bytes; both payloads have that many from their start offsets
 *
 * Context: any; does not sleep (pages are mapped with kmap_local_page()).
 */
void rnic_payload_copy(const struct rnic_payload *dst, u32 dst_off,
		       const struct rnic_payload *src, u32 len)
{
	struct rnic_cursor d, s;
	u32 davail, savail, n;
	u8 *dp, *sp;

	rnic_cursor_init(&d, dst, dst_off);
	rnic_cursor_init(&s, src, 0);
	while (len) {
		sp = rnic_cursor_map(&s, &savail);
		dp = rnic_cursor_map(&d, &davail);
		n = min3(len, savail, davail);
		memcpy(dp, sp, n);
		/* kmap_local: unmap in the reverse order of mapping */
		rnic_cursor_unmap(&d, dp);
		rnic_cursor_unmap(&s, sp);
		rnic_cursor_advance(&s, n);
		rnic_cursor_advance(&d, n);
		len -= n;
	}
}

/**
 * rnic_payload_copy_out() - copy a payload's bytes into a kernel buffer,
 *	as the udp link does to build a packet
 * @buf: where they go
 * @src: the payload: memory regions or inline data
 * @len: bytes; @src has that many
 *
 * Context: any; does not sleep.
 */
void rnic_payload_copy_out(void *buf, const struct rnic_payload *src, u32 len)
{
	struct rnic_cursor s;
	u32 avail, n;
	u8 *sp;

	rnic_cursor_init(&s, src, 0);
	while (len) {
		sp = rnic_cursor_map(&s, &avail);
		n = min(len, avail);
		memcpy(buf, sp, n);
		rnic_cursor_unmap(&s, sp);
		rnic_cursor_advance(&s, n);
		buf += n;
		len -= n;
	}
}

/* Copy @len bytes of @skb from @off into @dst from @dst_off. */
static void rnic_payload_copy_skb(const struct rnic_payload *dst, u32 dst_off,
				  const struct sk_buff *skb, u32 off, u32 len)
{
	struct rnic_payload_iter it;
	u32 n;

	rnic_payload_iter_init(&it, dst, dst_off);
	while (len) {
		n = rnic_payload_iter_next(&it, len, ITER_DEST);
		/* the receive path checked the skb has the bytes */
		if (WARN_ON_ONCE(skb_copy_datagram_iter(skb, off, &it.iter, n)))
			return;
		off += n;
		len -= n;
	}
}

/**
 * rnic_pkt_copy_payload() - copy a received packet's payload into a
 *	payload, the one copy of a received packet
 * @dst: where the bytes go; memory regions only, @pkt->len bytes from
 *	@dst_off
 * @dst_off: first byte of @dst to write
 * @pkt: the packet: its payload is in the sender's memory (the local
 *	link, @pkt->payload) or in an skb (the udp link, @pkt->skb)
 *
 * Context: any; does not sleep.
 */
void rnic_pkt_copy_payload(const struct rnic_payload *dst, u32 dst_off,
			   const struct rnic_pkt *pkt)
{
	if (!pkt->len)
		return;
	if (pkt->skb)
		rnic_payload_copy_skb(dst, dst_off, pkt->skb, pkt->skb_off,
				      pkt->len);
	else
		rnic_payload_copy(dst, dst_off, pkt->payload, pkt->len);
}

/**
 * rnic_payload_map_u64() - map the 8-byte aligned word a payload of one
 *	segment starts with, for atomics
 * @pl: the payload: one MR segment of 8 bytes at an 8-byte aligned iova
 *
 * The word never crosses a page: pages are aligned, and so is the MR's
 * start relative to them when the iova is (the caller checks it).
 * Unmap with kunmap_local().
 */
u64 *rnic_payload_map_u64(const struct rnic_payload *pl)
{
	const struct rnic_mseg *seg = &pl->segs[0];
	u64 pos = seg->mr->offset + seg->off;

	return kmap_local_page(seg->mr->pages[pos >> PAGE_SHIFT]) +
	       (pos & ~PAGE_MASK);
}
