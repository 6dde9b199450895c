// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - kernel memory that userspace maps (rings,
 * doorbell pages).
 *
 * An object that shares memory with userspace allocates it here and hands
 * the offset back in its create ioctl; userspace maps exactly that region
 * with mmap(fd, offset, size, MAP_SHARED). The region is reference counted:
 * one reference for the object, one per VMA, so destroying the object while
 * userspace still has the region mapped leaves the memory valid until
 * munmap(); the kernel never touches it again after the object is gone.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rnic.h"

/**
 * rnic_charge_pinned() - charge pages to the caller's mm->pinned_vm
 * @npages: pages about to be pinned or allocated for userspace
 *
 * Checked against RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK, as
 * the kernel's RDMA stack does.
 *
 * Return: the mm charged, with a mmgrab() reference for
 * rnic_uncharge_pinned(), or ERR_PTR(-ENOMEM) beyond the limit.
 */
struct mm_struct *rnic_charge_pinned(unsigned long npages)
{
	struct mm_struct *mm = current->mm;
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 pinned;

	pinned = atomic64_add_return(npages, &mm->pinned_vm);
	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return ERR_PTR(-ENOMEM);
	}
	mmgrab(mm);
	return mm;
}

/**
 * rnic_uncharge_pinned() - undo rnic_charge_pinned()
 * @mm: the mm it returned
 * @npages: the pages it charged
 */
void rnic_uncharge_pinned(struct mm_struct *mm, unsigned long npages)
{
	atomic64_sub(npages, &mm->pinned_vm);
	mmdrop(mm);
}

static void rnic_mmap_put(struct rnic_mmap *m)
{
	if (refcount_dec_and_test(&m->ref)) {
		vfree(m->vaddr);
		rnic_uncharge_pinned(m->mm, m->size >> PAGE_SHIFT);
		kfree(m);
	}
}

/**
 * rnic_mmap_alloc() - allocate zeroed memory that a context may map
 * @ctx: the context
 * @size: bytes; rounded up to pages
 *
 * The memory is charged to the caller's pinned_vm like a memory region
 * (RLIMIT_MEMLOCK), until the last mapping of it is gone.
 *
 * Context: process.
 * Return: the region, one reference held by the caller, mappable at once
 * at rnic_mmap_offset(); or ERR_PTR(-ENOMEM).
 */
struct rnic_mmap *rnic_mmap_alloc(struct rnic_ctx *ctx, size_t size)
{
	struct rnic_mmap *m;
	u32 key;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->size = PAGE_ALIGN(size);
	m->mm = rnic_charge_pinned(m->size >> PAGE_SHIFT);
	if (IS_ERR(m->mm)) {
		ret = PTR_ERR(m->mm);
		goto err_free;
	}
	m->vaddr = vmalloc_user(m->size);
	if (!m->vaddr) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	refcount_set(&m->ref, 1);
	m->ctx = ctx;
	ret = xa_alloc(&ctx->mmaps, &key, m, XA_LIMIT(1, U32_MAX >> 1),
		       GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_vfree;
	m->key = key;
	return m;

err_vfree:
	vfree(m->vaddr);
err_uncharge:
	rnic_uncharge_pinned(m->mm, m->size >> PAGE_SHIFT);
err_free:
	kfree(m);
	return ERR_PTR(ret == -EBUSY ? -ENOMEM : ret);
}

/**
 * rnic_mmap_offset() - the mmap() offset of a region
 * @m: the region
 */
u64 rnic_mmap_offset(const struct rnic_mmap *m)
{
	return (u64)m->key << PAGE_SHIFT;
}

/**
 * rnic_mmap_remove() - the owner lets go of a region
 * @m: the region; no new mapping can be made, existing ones stay valid
 */
void rnic_mmap_remove(struct rnic_mmap *m)
{
	xa_erase(&m->ctx->mmaps, m->key);
	rnic_mmap_put(m);
}

static void rnic_vma_open(struct vm_area_struct *vma)
{
	struct rnic_mmap *m = vma->vm_private_data;

	refcount_inc(&m->ref);
}

static void rnic_vma_close(struct vm_area_struct *vma)
{
	rnic_mmap_put(vma->vm_private_data);
}

static const struct vm_operations_struct rnic_vm_ops = {
	.open = rnic_vma_open,
	.close = rnic_vma_close,
};

/**
 * rnic_mmap() - map a region of a context
 * @ctx: the context
 * @vma: the mapping: MAP_SHARED, the region's offset and exact size
 *
 * Return: 0, -EINVAL for an offset that names no region, a size that is
 * not the region's or a private mapping.
 */
int rnic_mmap(struct rnic_ctx *ctx, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	struct rnic_mmap *m;
	int ret;

	if (!(vma->vm_flags & VM_SHARED) || vma->vm_pgoff > U32_MAX)
		return -EINVAL;
	xa_lock(&ctx->mmaps);
	m = xa_load(&ctx->mmaps, vma->vm_pgoff);
	if (m && !refcount_inc_not_zero(&m->ref))
		m = NULL;
	xa_unlock(&ctx->mmaps);
	if (!m)
		return -EINVAL;
	if (size != m->size) {
		ret = -EINVAL;
		goto err_put;
	}
	/* Offsets are keys: the whole region is mapped from its start. */
	ret = remap_vmalloc_range(vma, m->vaddr, 0);
	if (ret)
		goto err_put;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_private_data = m;
	vma->vm_ops = &rnic_vm_ops;
	return 0;

err_put:
	rnic_mmap_put(m);
	return ret;
}

/* Each index in a cache line of its own, the entries after them. */
#define RNIC_RING_PRODUCER_OFF	0
#define RNIC_RING_CONSUMER_OFF	SMP_CACHE_BYTES
#define RNIC_RING_ENTRIES_OFF	(2 * SMP_CACHE_BYTES)

/**
 * rnic_ring_alloc() - allocate a ring userspace can map
 * @ctx: the context
 * @ring: filled in
 * @entries: number of entries, a power of two (the caller rounds up and
 *	checks its limit)
 * @entry_size: bytes per entry
 * @info: filled in for the create ioctl's answer
 *
 * Return: 0 or -ENOMEM.
 */
int rnic_ring_alloc(struct rnic_ctx *ctx, struct rnic_ring *ring,
		    u32 entries, u32 entry_size, struct rnic_ring_info *info)
{
	size_t size = RNIC_RING_ENTRIES_OFF + (size_t)entries * entry_size;
	struct rnic_mmap *m;

	if (WARN_ON(!is_power_of_2(entries)))
		return -EINVAL;
	m = rnic_mmap_alloc(ctx, size);
	if (IS_ERR(m))
		return PTR_ERR(m);
	ring->region = m;
	ring->mask = entries - 1;
	ring->entry_size = entry_size;
	ring->producer = m->vaddr + RNIC_RING_PRODUCER_OFF;
	ring->consumer = m->vaddr + RNIC_RING_CONSUMER_OFF;
	ring->slots = m->vaddr + RNIC_RING_ENTRIES_OFF;

	info->offset = rnic_mmap_offset(m);
	info->size = m->size;
	info->entries = entries;
	info->entry_size = entry_size;
	info->producer_off = RNIC_RING_PRODUCER_OFF;
	info->consumer_off = RNIC_RING_CONSUMER_OFF;
	info->entries_off = RNIC_RING_ENTRIES_OFF;
	return 0;
}

/**
 * rnic_ring_free() - the ring's owner lets go of it
 * @ring: the ring; its memory lives on while userspace has it mapped
 */
void rnic_ring_free(struct rnic_ring *ring)
{
	rnic_mmap_remove(ring->region);
	ring->region = NULL;
}
