// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - memory regions.
 *
 * Registering pins the pages of a user range with FOLL_LONGTERM for the
 * life of the region, charges them to the caller's mm->pinned_vm (checked
 * against RLIMIT_MEMLOCK unless CAP_IPC_LOCK) and enters the region in the
 * device's MR table, whose index is part of both keys (RNIC_MR_INDEX_MASK
 * in verbs.h: the key layout).
 */
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "verbs/verbs.h"

#define RNIC_ACCESS_SUPPORTED						\
	(RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |		\
	 RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC |		\
	 RNIC_ACCESS_MW_BIND | RNIC_ACCESS_RELAXED_ORDERING)

/* Pages pinned per pin_user_pages_fast() call, between resched points. */
#define RNIC_PIN_BATCH	(PAGE_SIZE / sizeof(struct page *))

static bool rnic_access_writable(u32 access)
{
	return access & (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
			 RNIC_ACCESS_REMOTE_ATOMIC);
}

/*
 * Is every page of [@start, @end) inside a VMA of the caller? Checked
 * before the page array is allocated, whose size follows the length
 * userspace asks for (up to RNIC_MAX_MR_SIZE).
 */
static bool rnic_range_mapped(unsigned long start, unsigned long end)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool mapped = true;

	mmap_read_lock(mm);
	while (start < end) {
		vma = find_vma(mm, start);
		if (!vma || vma->vm_start > start) {
			mapped = false;
			break;
		}
		start = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return mapped;
}

static int rnic_mr_pin(struct rnic_mr *mr, u64 addr)
{
	unsigned long start = addr & PAGE_MASK;
	unsigned int gup_flags = FOLL_LONGTERM;
	unsigned long done = 0;
	long ret;

	if (rnic_access_writable(mr->access))
		gup_flags |= FOLL_WRITE;
	mr->npages = (PAGE_ALIGN(addr + mr->length) - start) >> PAGE_SHIFT;
	mr->offset = addr & ~PAGE_MASK;
	if (!rnic_range_mapped(start, start + (mr->npages << PAGE_SHIFT)))
		return -EFAULT;

	mr->mm = rnic_charge_pinned(mr->npages);
	if (IS_ERR(mr->mm))
		return PTR_ERR(mr->mm);
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages),
			     GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!mr->pages) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	while (done < mr->npages) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err_unpin;
		}
		ret = pin_user_pages_fast(start + done * PAGE_SIZE,
					  min(mr->npages - done, RNIC_PIN_BATCH),
					  gup_flags, mr->pages + done);
		if (ret <= 0) {
			ret = ret ?: -EFAULT;
			goto err_unpin;
		}
		done += ret;
		cond_resched();
	}
	return 0;

err_unpin:
	unpin_user_pages(mr->pages, done);
	kvfree(mr->pages);
err_uncharge:
	rnic_uncharge_pinned(mr->mm, mr->npages);
	return ret;
}

static void rnic_mr_unpin(struct rnic_mr *mr)
{
	unpin_user_pages_dirty_lock(mr->pages, mr->npages,
				    rnic_access_writable(mr->access));
	kvfree(mr->pages);
	rnic_uncharge_pinned(mr->mm, mr->npages);
}

static void rnic_mr_account(struct rnic_mr *mr, int sign)
{
	s64 bytes = sign * ((s64)mr->npages << PAGE_SHIFT);

	atomic64_add(bytes, &mr->uobj.ctx->pinned);
	atomic64_add(bytes, &mr->uobj.ctx->dev->pinned);
}

static void rnic_mr_destroy(struct rnic_uobj *uobj)
{
	struct rnic_mr *mr = container_of(uobj, struct rnic_mr, uobj);
	struct rnic_dev *rdev = uobj->ctx->dev;

	xa_erase(&rdev->mrs, rnic_mr_key_index(mr->lkey));
	/* a packet may still be copying to or from the pages */
	rnic_dpref_kill(&mr->dp);
	rnic_mr_account(mr, -1);
	rnic_mr_unpin(mr);
	rnic_uobj_put(&mr->pd->uobj);
}

/**
 * rnic_key_make() - a new key for the MR or MW at @index
 * @index: its entry in the key table
 *
 * Return: the key, random but for the index field.
 */
u32 rnic_key_make(u32 index)
{
	return (get_random_u32() & ~RNIC_MR_INDEX_MASK) |
	       FIELD_PREP(RNIC_MR_INDEX_MASK, index);
}

/**
 * rnic_key_alloc() - reserve an entry in the device's key table
 * @rdev: the device
 * @index: set to the entry, which stays NULL (unfindable) until the
 *	caller stores its MR or MW there, or erases it
 *
 * Return: 0 or -ENOMEM (the table is full, or memory is short).
 */
int rnic_key_alloc(struct rnic_dev *rdev, u32 *index)
{
	int ret;

	ret = xa_alloc_cyclic(&rdev->mrs, index, NULL,
			      XA_LIMIT(0, RNIC_MAX_MR - 1), &rdev->mr_next,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		return ret == -EBUSY ? -ENOMEM : ret;
	return 0;
}

static int rnic_reg_mr_check(const struct rnic_reg_mr *cmd)
{
	u64 end;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	/* A feature rnic does not have, as ib_core answers it. */
	if (cmd->access & RNIC_ACCESS_ON_DEMAND)
		return -EOPNOTSUPP;
	if (cmd->access & ~RNIC_ACCESS_SUPPORTED)
		return -EINVAL;
	/* Remote writes and atomics land in memory: the HCA must write it. */
	if ((cmd->access & (RNIC_ACCESS_REMOTE_WRITE |
			    RNIC_ACCESS_REMOTE_ATOMIC)) &&
	    !(cmd->access & RNIC_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (!cmd->length || cmd->length > RNIC_MAX_MR_SIZE)
		return -EINVAL;
	if (check_add_overflow(cmd->addr, cmd->length, &end) ||
	    PAGE_ALIGN(end) < end ||
	    check_add_overflow(cmd->iova, cmd->length, &end))
		return -EINVAL;
	return 0;
}

int rnic_reg_mr(struct rnic_ucmd *ucmd)
{
	struct rnic_reg_mr *cmd = ucmd->cmd;
	struct rnic_dev *rdev = ucmd->ctx->dev;
	struct rnic_pd *pd;
	struct rnic_mr *mr;
	u32 index;
	int ret;

	ret = rnic_reg_mr_check(cmd);
	if (ret)
		return ret;
	pd = rnic_pd_get(ucmd->ctx, cmd->pd_handle);
	if (IS_ERR(pd))
		return PTR_ERR(pd);

	mr = rnic_uobj_alloc(ucmd->ctx, RNIC_OBJ_MR, sizeof(*mr),
			     rnic_mr_destroy);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto err_put_pd;
	}
	mr->pd = pd;
	mr->iova = cmd->iova;
	mr->length = cmd->length;
	mr->access = cmd->access;

	ret = rnic_mr_pin(mr, cmd->addr);
	if (ret)
		goto err_abort;
	ret = rnic_key_alloc(rdev, &index);
	if (ret)
		goto err_unpin;
	mr->lkey = rnic_key_make(index);
	mr->rkey = rnic_key_make(index);

	cmd->out_handle = mr->uobj.handle;
	cmd->out_lkey = mr->lkey;
	cmd->out_rkey = mr->rkey;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_erase;

	rnic_mr_account(mr, 1);
	rnic_dpref_init(&mr->dp);
	xa_store(&rdev->mrs, index, mr, GFP_KERNEL);
	rnic_uobj_finalize(&mr->uobj);
	return 0;

err_erase:
	xa_erase(&rdev->mrs, index);
err_unpin:
	rnic_mr_unpin(mr);
err_abort:
	rnic_uobj_abort(&mr->uobj);
err_put_pd:
	rnic_uobj_put(&pd->uobj);
	return ret;
}

int rnic_dereg_mr(struct rnic_ucmd *ucmd)
{
	struct rnic_destroy *cmd = ucmd->cmd;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	return rnic_uobj_destroy(ucmd->ctx, cmd->handle, RNIC_OBJ_MR);
}

/**
 * rnic_mr_from_entry() - the MR a key table entry holds, if @key is its
 *	key, with a data path reference
 * @entry: the entry at @key's index (rnic_mr_key_index()), loaded under
 *	RCU; NULL, or a window (tagged), names no MR
 * @key: an lkey or rkey, untrusted
 * @remote: @key is an rkey
 *
 * Context: in an RCU read-side critical section (the data path's).
 * Return: the MR, to be released with rnic_mr_dp_put(), or NULL.
 */
struct rnic_mr *rnic_mr_from_entry(void *entry, u32 key, bool remote)
{
	struct rnic_mr *mr = entry;

	if (!mr || xa_pointer_tag(entry) ||
	    (remote ? mr->rkey : mr->lkey) != key || !rnic_dpref_get(&mr->dp))
		return NULL;
	return mr;
}

/**
 * rnic_mr_get() - find a memory region by key, with a data path reference
 * @rdev: the device
 * @key: an lkey or rkey, untrusted
 * @remote: @key is an rkey
 *
 * Context: in an RCU read-side critical section (the data path's).
 * Return: the MR, to be released with rnic_mr_dp_put(), or NULL.
 */
struct rnic_mr *rnic_mr_get(struct rnic_dev *rdev, u32 key, bool remote)
{
	return rnic_mr_from_entry(rnic_xa_load_rcu(&rdev->mrs,
						   rnic_mr_key_index(key)),
				  key, remote);
}

/*
 * See rnic.h; an MR's keys and length never change. The keys are the
 * MR's secret (their random part is what stops a guess): only an
 * administrator reads them, as with the kernel's rdma tool.
 */
int rnic_mr_nl_fill(struct sk_buff *msg, struct rnic_uobj *uobj, bool keys)
{
	struct rnic_mr *mr = container_of(uobj, struct rnic_mr, uobj);

	if (keys &&
	    (nla_put_u32(msg, RNIC_NL_ATTR_RES_LKEY, mr->lkey) ||
	     nla_put_u32(msg, RNIC_NL_ATTR_RES_RKEY, mr->rkey)))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, RNIC_NL_ATTR_RES_MRLEN, mr->length,
			      RNIC_NL_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}
