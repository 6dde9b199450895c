// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - multicast groups of UD QPs.
 *
 * Groups belong to a device, not to a context: a datagram sent to a
 * group's GID reaches every UD QP attached to it, in whatever context.
 * Each device with at least one group has a struct rnic_mcast_dev (in
 * rnic_mcast_devs, by device index) with a small hash table of its
 * groups; each group a list of attachments, one per QP.
 *
 * Locking: every change (attach, detach, a QP's destruction) runs under
 * rnic_mcast_lock, a mutex: control path only. The data path delivers
 * without it: under rcu_read_lock() it loads the device's table from
 * rnic_mcast_devs, walks a bucket and a group's attachments with the
 * _rcu list helpers. Tables, groups and attachments are freed with
 * kfree_rcu(), QPs too (uobj.c), so a QP found in a group is valid memory
 * until rcu_read_unlock(); rnic_mcast_deliver() takes a data path
 * reference (struct rnic_dpref) on it before it delivers.
 *
 * Limits (ENOMEM beyond): RNIC_MAX_MCAST_GRP groups per device,
 * RNIC_MAX_MCAST_QP QPs per group. As in the kernel's uverbs, attaching a
 * QP twice to a group succeeds once, detaching a QP from a group it is not
 * in is EINVAL, and destroying an attached QP is EBUSY (qp.c).
 */
#include <linux/jhash.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "verbs/verbs.h"

#define RNIC_MCAST_HASH_BITS	8

/**
 * struct rnic_mcast_dev - the multicast groups of one device
 * @index: the device's index, its key in rnic_mcast_devs
 * @ngroups: groups in @buckets, at most RNIC_MAX_MCAST_GRP
 * @buckets: the groups (struct rnic_mcast_grp.node) by hash of their GID
 * @rcu: for kfree_rcu()
 *
 * Exists while the device has a group, so never after the device is
 * freed: its contexts, which detach everything, are closed first.
 */
struct rnic_mcast_dev {
	u32 index;
	u32 ngroups;
	struct hlist_head buckets[BIT(RNIC_MCAST_HASH_BITS)];
	struct rcu_head rcu;
};

/* Serialises every change to the tables below; never held by readers. */
static DEFINE_MUTEX(rnic_mcast_lock);
/* device index -> struct rnic_mcast_dev; rnic_mcast_lock, RCU readers */
static DEFINE_XARRAY(rnic_mcast_devs);

/**
 * rnic_gid_is_mcast() - is a GID a multicast address?
 * @gid: the GID, network byte order
 *
 * Return: true for ff00::/8 and for the IPv4-mapped 224.0.0.0/4, as the
 * kernel's rdma_is_multicast_addr().
 */
bool rnic_gid_is_mcast(const u8 *gid)
{
	if (gid[0] == 0xff)
		return true;
	return rnic_gid_is_v4mapped(gid) && (gid[12] & 0xf0) == 0xe0;
}

static struct hlist_head *rnic_mcast_bucket(struct rnic_mcast_dev *mdev,
					    const u8 *gid)
{
	u32 hash = jhash(gid, 16, 0);

	return &mdev->buckets[hash >> (32 - RNIC_MCAST_HASH_BITS)];
}

/* The device's table, a new one if it has none; ERR_PTR(-ENOMEM). */
static struct rnic_mcast_dev *rnic_mcast_dev_get(struct rnic_dev *rdev)
{
	struct rnic_mcast_dev *mdev;
	int ret;

	lockdep_assert_held(&rnic_mcast_lock);
	mdev = xa_load(&rnic_mcast_devs, rdev->index);
	if (mdev)
		return mdev;
	mdev = kzalloc(sizeof(*mdev), GFP_KERNEL_ACCOUNT);
	if (!mdev)
		return ERR_PTR(-ENOMEM);
	mdev->index = rdev->index;
	ret = xa_err(xa_store(&rnic_mcast_devs, rdev->index, mdev,
			      GFP_KERNEL_ACCOUNT));
	if (ret) {
		kfree(mdev);
		return ERR_PTR(ret);
	}
	return mdev;
}

/* Free the device's table once it has no group left. */
static void rnic_mcast_dev_put(struct rnic_mcast_dev *mdev)
{
	lockdep_assert_held(&rnic_mcast_lock);
	if (mdev->ngroups)
		return;
	xa_erase(&rnic_mcast_devs, mdev->index);
	kfree_rcu(mdev, rcu);
}

/*
 * The group of @gid with room for one more QP, a new one if the device has
 * none; ERR_PTR(-ENOMEM) when the group is full, the device has all the
 * groups it may have, or memory is short.
 */
static struct rnic_mcast_grp *rnic_mcast_grp_get(struct rnic_mcast_dev *mdev,
						 const u8 *gid)
{
	struct hlist_head *bucket = rnic_mcast_bucket(mdev, gid);
	struct rnic_mcast_grp *grp;

	lockdep_assert_held(&rnic_mcast_lock);
	hlist_for_each_entry(grp, bucket, node) {
		if (memcmp(grp->gid, gid, sizeof(grp->gid)))
			continue;
		if (grp->nqps >= RNIC_MAX_MCAST_QP)
			return ERR_PTR(-ENOMEM);
		return grp;
	}
	if (mdev->ngroups >= RNIC_MAX_MCAST_GRP)
		return ERR_PTR(-ENOMEM);
	grp = kzalloc(sizeof(*grp), GFP_KERNEL_ACCOUNT);
	if (!grp)
		return ERR_PTR(-ENOMEM);
	memcpy(grp->gid, gid, sizeof(grp->gid));
	INIT_LIST_HEAD(&grp->qps);
	hlist_add_head_rcu(&grp->node, bucket);
	mdev->ngroups++;
	return grp;
}

static struct rnic_mcast_attach *rnic_mcast_find(struct rnic_qp *qp,
						 const u8 *gid)
{
	struct rnic_mcast_attach *att;

	lockdep_assert_held(&rnic_mcast_lock);
	list_for_each_entry(att, &qp->mcast, qp_node)
		if (!memcmp(att->grp->gid, gid, sizeof(att->grp->gid)))
			return att;
	return NULL;
}

static int rnic_mcast_attach(struct rnic_dev *rdev, struct rnic_qp *qp,
			     const u8 *gid)
{
	struct rnic_mcast_attach *att;
	struct rnic_mcast_grp *grp;
	struct rnic_mcast_dev *mdev;
	int ret;

	lockdep_assert_held(&rnic_mcast_lock);
	if (rnic_mcast_find(qp, gid))
		return 0;
	att = kzalloc(sizeof(*att), GFP_KERNEL_ACCOUNT);
	if (!att)
		return -ENOMEM;
	mdev = rnic_mcast_dev_get(rdev);
	if (IS_ERR(mdev)) {
		ret = PTR_ERR(mdev);
		goto err_free_att;
	}
	grp = rnic_mcast_grp_get(mdev, gid);
	if (IS_ERR(grp)) {
		ret = PTR_ERR(grp);
		goto err_put_dev;
	}
	att->qp = qp;
	att->grp = grp;
	list_add_tail_rcu(&att->grp_node, &grp->qps);
	list_add_tail(&att->qp_node, &qp->mcast);
	grp->nqps++;
	return 0;

err_put_dev:
	rnic_mcast_dev_put(mdev);
err_free_att:
	kfree(att);
	return ret;
}

/* Detach, and free the group and the device's table if they are empty. */
static void rnic_mcast_unlink(struct rnic_dev *rdev,
			      struct rnic_mcast_attach *att)
{
	struct rnic_mcast_grp *grp = att->grp;
	struct rnic_mcast_dev *mdev;

	lockdep_assert_held(&rnic_mcast_lock);
	list_del_rcu(&att->grp_node);
	list_del(&att->qp_node);
	kfree_rcu(att, rcu);
	if (--grp->nqps)
		return;
	hlist_del_rcu(&grp->node);
	kfree_rcu(grp, rcu);
	mdev = xa_load(&rnic_mcast_devs, rdev->index);
	mdev->ngroups--;
	rnic_mcast_dev_put(mdev);
}

/* Validate the command and find its QP, a UD QP; the caller puts it. */
static struct rnic_uobj *rnic_mcast_qp_get(struct rnic_ucmd *ucmd)
{
	struct rnic_attach_mcast *cmd = ucmd->cmd;
	struct rnic_uobj *uobj;

	if (cmd->flags || cmd->__reserved || !rnic_gid_is_mcast(cmd->gid))
		return ERR_PTR(-EINVAL);
	uobj = rnic_uobj_get(ucmd->ctx, cmd->qp_handle, RNIC_OBJ_QP);
	if (IS_ERR(uobj))
		return uobj;
	if (to_rnic_qp(uobj)->type != RNIC_QPT_UD) {
		rnic_uobj_put(uobj);
		return ERR_PTR(-EINVAL);
	}
	return uobj;
}

int rnic_attach_mcast(struct rnic_ucmd *ucmd)
{
	struct rnic_attach_mcast *cmd = ucmd->cmd;
	struct rnic_uobj *uobj;
	int ret;

	uobj = rnic_mcast_qp_get(ucmd);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	mutex_lock(&rnic_mcast_lock);
	ret = rnic_mcast_attach(ucmd->ctx->dev, to_rnic_qp(uobj), cmd->gid);
	mutex_unlock(&rnic_mcast_lock);
	rnic_uobj_put(uobj);
	return ret;
}

int rnic_detach_mcast(struct rnic_ucmd *ucmd)
{
	struct rnic_attach_mcast *cmd = ucmd->cmd;
	struct rnic_mcast_attach *att;
	struct rnic_uobj *uobj;
	int ret = 0;

	uobj = rnic_mcast_qp_get(ucmd);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	mutex_lock(&rnic_mcast_lock);
	att = rnic_mcast_find(to_rnic_qp(uobj), cmd->gid);
	if (att)
		rnic_mcast_unlink(ucmd->ctx->dev, att);
	else
		ret = -EINVAL;
	mutex_unlock(&rnic_mcast_lock);
	rnic_uobj_put(uobj);
	return ret;
}

/**
 * rnic_mcast_attached() - is a QP attached to a group?
 * @qp: the QP, a reference held
 */
bool rnic_mcast_attached(struct rnic_qp *qp)
{
	bool attached;

	mutex_lock(&rnic_mcast_lock);
	attached = !list_empty(&qp->mcast);
	mutex_unlock(&rnic_mcast_lock);
	return attached;
}

/**
 * rnic_mcast_detach_all() - detach a QP being destroyed from its groups
 * @qp: the QP, out of its context's handle table: no ioctl reaches it
 *
 * A reader of a group may still hold the QP (with a data path
 * reference, which the QP's destruction waits for).
 *
 * Context: process; takes rnic_mcast_lock.
 */
void rnic_mcast_detach_all(struct rnic_qp *qp)
{
	struct rnic_mcast_attach *att, *tmp;

	/* Nothing can attach it any more: the list is stable. */
	if (list_empty(&qp->mcast))
		return;
	mutex_lock(&rnic_mcast_lock);
	list_for_each_entry_safe(att, tmp, &qp->mcast, qp_node)
		rnic_mcast_unlink(qp->uobj.ctx->dev, att);
	mutex_unlock(&rnic_mcast_lock);
}

/* The group of @rdev with @gid, or NULL. Context: rcu_read_lock(). */
static struct rnic_mcast_grp *rnic_mcast_grp_rcu(struct rnic_dev *rdev,
						 const u8 *gid)
{
	struct rnic_mcast_grp *grp;
	struct rnic_mcast_dev *mdev;

	mdev = xa_load(&rnic_mcast_devs, rdev->index);
	if (!mdev)
		return NULL;
	hlist_for_each_entry_rcu(grp, rnic_mcast_bucket(mdev, gid), node)
		if (!memcmp(grp->gid, gid, sizeof(grp->gid)))
			return grp;
	return NULL;
}

/**
 * rnic_mcast_joined() - does a device have a group?
 * @rdev: the device
 * @gid: the group's GID
 *
 * Context: any but hard interrupt.
 * Return: true if a QP of @rdev is attached to @gid now.
 */
bool rnic_mcast_joined(struct rnic_dev *rdev, const u8 *gid)
{
	bool joined;

	rcu_read_lock();
	joined = rnic_mcast_grp_rcu(rdev, gid);
	rcu_read_unlock();
	return joined;
}

/**
 * rnic_mcast_deliver() - hand a datagram to every QP attached to a group
 * @rdev: the device whose groups are looked at
 * @gid: the group's GID
 * @fn: called for each QP, with a data path reference held
 * @arg: passed to @fn
 *
 * Context: any but hard interrupt; @fn runs under rcu_read_lock().
 */
void rnic_mcast_deliver(struct rnic_dev *rdev, const u8 *gid,
			void (*fn)(struct rnic_qp *qp, void *arg), void *arg)
{
	struct rnic_mcast_attach *att;
	struct rnic_mcast_grp *grp;

	rcu_read_lock();
	grp = rnic_mcast_grp_rcu(rdev, gid);
	/* at most RNIC_MAX_MCAST_QP of them */
	if (grp) {
		list_for_each_entry_rcu(att, &grp->qps, grp_node) {
			if (!rnic_dpref_get(&att->qp->dp))
				continue;
			fn(att->qp, arg);
			rnic_qp_dp_put(att->qp);
		}
	}
	rcu_read_unlock();
}
