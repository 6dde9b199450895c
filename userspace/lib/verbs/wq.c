// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: work queue rings (SQ, RQ, SRQ): checking and mapping what the
 * kernel returned at creation. Posting is in post.c.
 *
 * The kernel's answer decides where librnic writes, so every offset is
 * checked before the first store: a ring that does not fit its region,
 * entries too small for what the queue was granted, or an index word
 * outside the region or on top of another is EPROTO.
 */
#include <errno.h>
#include <sys/mman.h>

#include "internal.h"

/* A __u32 at @off of a region of @size bytes: inside, aligned, no entry. */
static bool word_ok(uint32_t off, const struct rnic_ring_info *ri,
		    uint64_t ents_end)
{
	return !(off % sizeof(uint32_t)) &&
	       (uint64_t)off + sizeof(uint32_t) <= ri->size &&
	       ((uint64_t)off + sizeof(uint32_t) <= ri->entries_off ||
		off >= ents_end);
}

static int wq_check(const struct rnic_ring_info *ri,
		    const uint32_t *flags_off, uint32_t nr_wr, uint64_t room)
{
	uint64_t ents_end = ri->entries_off +
			    (uint64_t)ri->entries * ri->entry_size;

	/* A queue has a ring exactly when it has work requests. */
	if (!nr_wr)
		return ri->size || ri->entries ? EPROTO : 0;
	if (ri->entries != nr_wr || (nr_wr & (nr_wr - 1)))
		return EPROTO;
	/* Entries hold 64-bit fields: 8-byte aligned, big enough. */
	if (ri->entry_size < room || ri->entry_size % 8 ||
	    ri->entries_off % 8 || ents_end > ri->size)
		return EPROTO;
	if (!word_ok(ri->producer_off, ri, ents_end) ||
	    !word_ok(ri->consumer_off, ri, ents_end) ||
	    ri->producer_off == ri->consumer_off)
		return EPROTO;
	if (flags_off &&
	    (!word_ok(*flags_off, ri, ents_end) ||
	     *flags_off == ri->producer_off ||
	     *flags_off == ri->consumer_off))
		return EPROTO;
	return 0;
}

int rnic_wq_open(struct rnic_wq *wq, int fd, const struct rnic_ring_info *ri,
		 const uint32_t *flags_off, uint32_t nr_wr, uint64_t room)
{
	char *map;
	int ret;

	ret = wq_check(ri, flags_off, nr_wr, room);
	if (ret)
		return ret;
	ret = pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		return ret;
	if (!nr_wr)
		return 0;

	map = mmap(NULL, ri->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)ri->offset);
	if (map == MAP_FAILED) {
		ret = errno;
		pthread_spin_destroy(&wq->lock);
		return ret;
	}
	wq->map = map;
	wq->map_size = ri->size;
	wq->producer = (uint32_t *)(map + ri->producer_off);
	wq->consumer = (uint32_t *)(map + ri->consumer_off);
	wq->flags = flags_off ? (uint32_t *)(map + *flags_off) : NULL;
	wq->slots = map + ri->entries_off;
	wq->entry_size = ri->entry_size;
	wq->size = ri->entries;
	wq->mask = ri->entries - 1;
	rnic_wq_sync(wq);
	return 0;
}

void rnic_wq_close(struct rnic_wq *wq)
{
	if (wq->map)
		munmap(wq->map, wq->map_size);
	wq->map = NULL;
	pthread_spin_destroy(&wq->lock);
}

void rnic_wq_sync(struct rnic_wq *wq)
{
	if (!wq->map)
		return;
	pthread_spin_lock(&wq->lock);
	wq->head = __atomic_load_n(wq->producer, __ATOMIC_RELAXED);
	wq->tail = __atomic_load_n(wq->consumer, __ATOMIC_ACQUIRE);
	pthread_spin_unlock(&wq->lock);
}
