// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: work queue rings (SQ, RQ, SRQ): mapping what the kernel
 * returned at creation (checked by ring.c's rules). Posting is in post.c.
 */
#include <errno.h>
#include <sys/mman.h>

#include "internal.h"

/* A queue has a ring exactly when it has work requests, @nr_wr of them. */
static int wq_check(const struct rnic_ring_info *ri,
		    const uint32_t *flags_off, uint32_t nr_wr, uint64_t room)
{
	if (!nr_wr)
		return ri->size || ri->entries ? EPROTO : 0;
	if (ri->entries != nr_wr)
		return EPROTO;
	return rnic_ring_check(ri, room, flags_off);
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

	map = rnic_ring_mmap(NULL, fd, ri);
	if (!map) {
		ret = errno;
		pthread_spin_destroy(&wq->lock);
		return ret;
	}
	wq->map = map;
	rnic_ring_set(&wq->ring, map, ri);
	wq->flags = flags_off ? (uint32_t *)(map + *flags_off) : NULL;
	wq->size = ri->entries;
	rnic_wq_sync(wq);
	return 0;
}

void rnic_wq_close(struct rnic_wq *wq)
{
	if (wq->map)
		munmap(wq->map, wq->ring.size);
	wq->map = NULL;
	pthread_spin_destroy(&wq->lock);
}

void rnic_wq_sync(struct rnic_wq *wq)
{
	if (!wq->map)
		return;
	pthread_spin_lock(&wq->lock);
	wq->head = __atomic_load_n(wq->ring.producer, __ATOMIC_RELAXED);
	wq->tail = __atomic_load_n(wq->ring.consumer, __ATOMIC_ACQUIRE);
	pthread_spin_unlock(&wq->lock);
}
