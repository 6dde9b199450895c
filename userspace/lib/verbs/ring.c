// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: every ring the kernel hands out (SQ, RQ, SRQ, CQ), checked and
 * mapped by one set of rules (DOC "rnic rings" in rnic-abi.h).
 *
 * The kernel's answer decides where librnic reads and writes, so every
 * offset is checked before the region is mapped: entries that do not fit
 * the region or are too small for what the queue was granted, or an index
 * or flags word outside the region, unaligned, inside an entry or on top
 * of another word, is EPROTO.
 */
#include <errno.h>
#include <sys/mman.h>

#include "internal.h"

/* A __u32 at @off: inside the region, aligned, on no entry. */
static bool word_ok(const struct rnic_ring_info *ri, uint32_t off,
		    uint64_t ents_end)
{
	return !(off % sizeof(uint32_t)) &&
	       (uint64_t)off + sizeof(uint32_t) <= ri->size &&
	       ((uint64_t)off + sizeof(uint32_t) <= ri->entries_off ||
		off >= ents_end);
}

int rnic_ring_check(const struct rnic_ring_info *ri, uint64_t room,
		    const uint32_t *word_off)
{
	uint64_t ents_end = ri->entries_off +
			    (uint64_t)ri->entries * ri->entry_size;

	if (!ri->entries || (ri->entries & (ri->entries - 1)))
		return EPROTO;
	/* Entries hold 64-bit fields: 8-byte aligned, big enough. */
	if (ri->entry_size < room || ri->entry_size % 8 ||
	    ri->entries_off % 8 || ents_end > ri->size)
		return EPROTO;
	if (!word_ok(ri, ri->producer_off, ents_end) ||
	    !word_ok(ri, ri->consumer_off, ents_end) ||
	    ri->producer_off == ri->consumer_off)
		return EPROTO;
	if (word_off &&
	    (!word_ok(ri, *word_off, ents_end) ||
	     *word_off == ri->producer_off || *word_off == ri->consumer_off))
		return EPROTO;
	return 0;
}

void *rnic_ring_mmap(void *at, int fd, const struct rnic_ring_info *ri)
{
	void *va;

	va = mmap(at, ri->size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | (at ? MAP_FIXED : 0), fd, (off_t)ri->offset);
	return va == MAP_FAILED ? NULL : va;
}

void rnic_ring_set(struct rnic_ring *r, void *va,
		   const struct rnic_ring_info *ri)
{
	char *base = va;

	/* Atomic stores: ibv_poll_cq()'s empty check reads them unlocked. */
	__atomic_store_n(&r->producer, (uint32_t *)(base + ri->producer_off),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&r->consumer, (uint32_t *)(base + ri->consumer_off),
			 __ATOMIC_RELAXED);
	r->entries = base + ri->entries_off;
	r->entry_size = ri->entry_size;
	r->mask = ri->entries - 1;
	r->size = ri->size;
}
