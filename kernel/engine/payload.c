// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - memory access through memory regions: MR
 * lookup by key, payloads (where a packet's bytes are or go) and the copy
 * between them.
 *
 * A payload holds a data path reference (struct rnic_dpref) on every MR
 * it names, so the pages stay pinned while it is used; see core/dpref.c.
 */
#include <linux/highmem.h>

#include "engine/engine.h"

/**
 * rnic_mr_get() - find a memory region by key, with a data path reference
 * @rdev: the device
 * @key: an lkey or rkey, untrusted
 * @remote: @key is an rkey
 *
 * Context: in an RCU read-side critical section (the engine's).
 * Return: the MR, to be released with rnic_mr_dp_put(), or NULL.
 */
struct rnic_mr *rnic_mr_get(struct rnic_dev *rdev, u32 key, bool remote)
{
	struct rnic_mr *mr;

	mr = rnic_xa_load_rcu(&rdev->mrs, key & (BIT(RNIC_MR_INDEX_BITS) - 1));
	if (mr && ((remote ? mr->rkey : mr->lkey) != key ||
		   !rnic_dpref_get(&mr->dp)))
		mr = NULL;
	return mr;
}

/**
 * rnic_payload_add_mr() - append a checked piece of an MR to a payload
 * @pl: the payload; on failure unchanged
 * @rdev: the device whose MR table @key indexes
 * @pd: the protection domain the MR must be in
 * @key: lkey or rkey
 * @remote: @key is an rkey
 * @addr: first byte, in the MR's iova space
 * @len: bytes, not 0
 * @access: enum rnic_access bits the MR must have
 *
 * Return: 0, or -EACCES if no MR of @pd has @key with @access covering
 * the range, -EINVAL if @pl is full.
 */
int rnic_payload_add_mr(struct rnic_payload *pl, struct rnic_dev *rdev,
			struct rnic_pd *pd, u32 key, bool remote, u64 addr,
			u32 len, u32 access)
{
	struct rnic_mseg *seg;
	struct rnic_mr *mr;

	if (pl->nsegs >= ARRAY_SIZE(pl->segs))
		return -EINVAL;
	mr = rnic_mr_get(rdev, key, remote);
	if (!mr)
		return -EACCES;
	if (mr->pd != pd || (mr->access & access) != access ||
	    addr < mr->iova || len > mr->length ||
	    addr - mr->iova > mr->length - len) {
		rnic_mr_dp_put(mr);
		return -EACCES;
	}
	seg = &pl->segs[pl->nsegs++];
	seg->mr = mr;
	seg->off = addr - mr->iova;
	seg->len = len;
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
		ret = rnic_payload_add_mr(pl, rdev, pd, sge[i].lkey, false,
					  sge[i].addr + off, n, access);
		if (ret)
			return ret;
		off = 0;
		len -= n;
	}
	return len ? -EACCES : 0;
}

/**
 * struct rnic_cursor - a position in a payload, for copying
 * @pl: the payload
 * @seg: current segment
 * @off: bytes into it (into @pl->inline_data for inline payloads)
 */
struct rnic_cursor {
	const struct rnic_payload *pl;
	u32 seg;
	u64 off;
};

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
 * Map the bytes at the cursor, at most to the end of their page and of
 * their segment: *@avail is how many. Unmap with rnic_cursor_unmap().
 */
static inline u8 *rnic_cursor_map(const struct rnic_cursor *cur, u32 *avail)
{
	const struct rnic_mseg *seg;
	u64 pos;
	u32 in_page;

	if (cur->pl->inline_data) {
		*avail = U32_MAX;
		return (u8 *)cur->pl->inline_data + cur->off;
	}
	seg = &cur->pl->segs[cur->seg];
	pos = seg->mr->offset + seg->off + cur->off;
	in_page = pos & ~PAGE_MASK;
	*avail = min_t(u64, PAGE_SIZE - in_page, seg->len - cur->off);
	return (u8 *)kmap_local_page(seg->mr->pages[pos >> PAGE_SHIFT]) +
	       in_page;
}

static void rnic_cursor_unmap(const struct rnic_cursor *cur, u8 *p)
{
	if (!cur->pl->inline_data)
		kunmap_local(p);
}

static void rnic_cursor_advance(struct rnic_cursor *cur, u32 n)
{
	cur->off += n;
	if (!cur->pl->inline_data && cur->off == cur->pl->segs[cur->seg].len) {
		cur->seg++;
		cur->off = 0;
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
