// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - objects owned by a context, and their handles.
 *
 * Life of an object:
 *
 * 1. rnic_uobj_alloc() checks the device limit, charges the caller's RDMA
 *    cgroup, allocates the struct and reserves a handle whose table entry
 *    stays NULL: nothing can find it.
 * 2. The family's create code builds the object. On failure it undoes its
 *    own steps and calls rnic_uobj_abort().
 * 3. rnic_uobj_finalize() stores the object in the table: findable.
 * 4. rnic_uobj_get() finds an object of the expected type (lockless, under
 *    RCU: structs are freed after a grace period) and takes a reference
 *    on ->users; rnic_uobj_put() drops it. An object that
 *    depends on another (an MR on its PD) keeps such a reference for its
 *    whole life.
 * 5. rnic_uobj_destroy() removes the object from the table only if the
 *    table's reference is the last one (EBUSY otherwise), then destroys
 *    it; so an object is never freed under a user.
 *
 * Closing the file destroys what is left, the kinds that depend on others
 * first (enum rnic_obj_type order, backwards).
 *
 * Every object is charged one hca_object, and every context one
 * hca_handle, to the RDMA cgroup of the task that creates it, as
 * ib_uverbs charges its objects: rdma.max of a cgroup limits rnic devices
 * by their names as it limits hardware ones. A charge beyond the limit is
 * EAGAIN. The device is registered with the controller while it is live;
 * charges still held when it is removed are then returned to their
 * cgroups without the controller's counts, which went with the device.
 */
#include <linux/slab.h>
#include <net/netlink.h>

#include "rnic.h"

#if IS_ENABLED(CONFIG_CGROUP_RDMA)
/**
 * rnic_cg_register() - let the RDMA cgroup controller account a device
 * @rdev: a new device, named, before its char device appears
 */
void rnic_cg_register(struct rnic_dev *rdev)
{
	init_rwsem(&rdev->cg_rwsem);
	rdev->cg_dev.name = (char *)rnic_dev_name(rdev);
	rdmacg_register_device(&rdev->cg_dev);
	rdev->cg_registered = true;
}

/**
 * rnic_cg_unregister() - take a device out of the RDMA cgroup controller
 * @rdev: a device rnic_cg_register() registered, being removed; no charge
 *	is made afterwards, the uncharges that follow release only the
 *	cgroups (rnic_cg_uncharge())
 *
 * Context: process; may be called under rtnl_lock and rnic_devs_lock.
 */
void rnic_cg_unregister(struct rnic_dev *rdev)
{
	down_write(&rdev->cg_rwsem);
	if (rdev->cg_registered)
		rdmacg_unregister_device(&rdev->cg_dev);
	rdev->cg_registered = false;
	up_write(&rdev->cg_rwsem);
}

/**
 * rnic_cg_charge() - charge one resource to the caller's RDMA cgroup
 * @rdev: the device
 * @cg: set to the cgroup charged, for rnic_cg_uncharge()
 * @type: RDMACG_RESOURCE_HCA_HANDLE or RDMACG_RESOURCE_HCA_OBJECT
 *
 * Context: process.
 * Return: 0; -EAGAIN beyond the rdma.max of the cgroup or an ancestor,
 * -ENOMEM, or -ENODEV once the device was removed.
 */
int rnic_cg_charge(struct rnic_dev *rdev, struct rdma_cgroup **cg,
		   enum rdmacg_resource_type type)
{
	int ret = -ENODEV;

	down_read(&rdev->cg_rwsem);
	if (rdev->cg_registered)
		ret = rdmacg_try_charge(cg, &rdev->cg_dev, type);
	up_read(&rdev->cg_rwsem);
	return ret;
}

/**
 * rnic_cg_uncharge() - undo rnic_cg_charge(), exactly once
 * @rdev: the device
 * @cg: the cgroup it charged
 * @type: the resource it charged
 *
 * After removal the controller has forgotten the device and its counts,
 * but the charge still holds a reference on the cgroup (rdmacg_try_charge()
 * takes one): that is dropped instead.
 *
 * Context: process.
 */
void rnic_cg_uncharge(struct rnic_dev *rdev, struct rdma_cgroup *cg,
		      enum rdmacg_resource_type type)
{
	down_read(&rdev->cg_rwsem);
	if (rdev->cg_registered)
		rdmacg_uncharge(cg, &rdev->cg_dev, type);
	else
		css_put(&cg->css);
	up_read(&rdev->cg_rwsem);
}
#else
void rnic_cg_register(struct rnic_dev *rdev)
{
}

void rnic_cg_unregister(struct rnic_dev *rdev)
{
}

int rnic_cg_charge(struct rnic_dev *rdev, struct rdma_cgroup **cg,
		   enum rdmacg_resource_type type)
{
	*cg = NULL;
	return 0;
}

void rnic_cg_uncharge(struct rnic_dev *rdev, struct rdma_cgroup *cg,
		      enum rdmacg_resource_type type)
{
}
#endif

static const u32 rnic_obj_limit[RNIC_OBJ_MAX] = {
	[RNIC_OBJ_PD] = RNIC_MAX_PD,
	[RNIC_OBJ_MR] = RNIC_MAX_MR,
	[RNIC_OBJ_CHANNEL] = RNIC_MAX_CHANNEL,
	[RNIC_OBJ_CQ] = RNIC_MAX_CQ,
	[RNIC_OBJ_SRQ] = RNIC_MAX_SRQ,
	[RNIC_OBJ_QP] = RNIC_MAX_QP,
	[RNIC_OBJ_AH] = RNIC_MAX_AH,
	[RNIC_OBJ_MW] = RNIC_MAX_MW,
	[RNIC_OBJ_XRCD] = RNIC_MAX_XRCD,
	[RNIC_OBJ_TGT_QP] = RNIC_MAX_QP,
};

/**
 * rnic_uobj_alloc() - allocate an object and reserve its handle
 * @ctx: owning context
 * @type: kind of object, at least RNIC_UOBJ_FIRST
 * @size: size of the family's struct, which starts with struct rnic_uobj
 * @destroy: frees what the object holds (not the struct itself), or NULL
 *
 * Return: the zeroed struct with ->uobj set up, not findable yet, or
 * ERR_PTR(-ENOMEM) when the device limit for @type is reached or memory
 * is short, ERR_PTR(-EAGAIN) beyond the hca_object limit of the caller's
 * RDMA cgroup.
 */
void *rnic_uobj_alloc(struct rnic_ctx *ctx, enum rnic_obj_type type,
		      size_t size, void (*destroy)(struct rnic_uobj *uobj))
{
	struct rnic_dev *rdev = ctx->dev;
	struct rnic_uobj *uobj;
	struct rdma_cgroup *cg;
	int ret;

	if (atomic_inc_return(&rdev->nobjs[type]) > rnic_obj_limit[type]) {
		ret = -ENOMEM;
		goto err_dec;
	}
	ret = rnic_cg_charge(rdev, &cg, RDMACG_RESOURCE_HCA_OBJECT);
	if (ret)
		goto err_dec;
	uobj = kzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!uobj) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	refcount_set(&uobj->users, 1);
	uobj->type = type;
	uobj->ctx = ctx;
	uobj->destroy = destroy;
	uobj->cg = cg;
	ret = xa_alloc(&ctx->objs, &uobj->handle, NULL, xa_limit_31b,
		       GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_free;
	atomic_inc(&ctx->nobjs[type]);
	rnic_obj_account(type, 1);
	return uobj;

err_free:
	kfree(uobj);
err_uncharge:
	rnic_cg_uncharge(rdev, cg, RDMACG_RESOURCE_HCA_OBJECT);
err_dec:
	atomic_dec(&rdev->nobjs[type]);
	return ERR_PTR(ret == -EBUSY ? -ENOMEM : ret);
}

/* Undo rnic_uobj_alloc(): the handle is already out of the table. */
static void rnic_uobj_free(struct rnic_uobj *uobj)
{
	struct rnic_ctx *ctx = uobj->ctx;

	rnic_cg_uncharge(ctx->dev, uobj->cg, RDMACG_RESOURCE_HCA_OBJECT);
	atomic_dec(&ctx->nobjs[uobj->type]);
	atomic_dec(&ctx->dev->nobjs[uobj->type]);
	rnic_obj_account(uobj->type, -1);
	kfree_rcu(uobj, rcu);
}

/* Destroy an object removed from the table, its last reference gone. */
static void rnic_uobj_release(struct rnic_uobj *uobj)
{
	if (uobj->destroy)
		uobj->destroy(uobj);
	rnic_uobj_free(uobj);
}

/**
 * rnic_uobj_finalize() - make a fully built object findable by its handle
 * @uobj: from rnic_uobj_alloc()
 */
void rnic_uobj_finalize(struct rnic_uobj *uobj)
{
	/* The slot is reserved, so storing cannot fail or allocate. */
	xa_store(&uobj->ctx->objs, uobj->handle, uobj, GFP_KERNEL);
}

/**
 * rnic_uobj_abort() - free an object that was never finalized
 * @uobj: from rnic_uobj_alloc(); ->destroy is not called
 */
void rnic_uobj_abort(struct rnic_uobj *uobj)
{
	xa_erase(&uobj->ctx->objs, uobj->handle);
	rnic_uobj_free(uobj);
}

/**
 * rnic_uobj_get() - find an object by handle and take a reference
 * @ctx: the calling context
 * @handle: handle from userspace, untrusted
 * @type: the kind of object the caller expects
 *
 * Return: the object, to be released with rnic_uobj_put(), or
 * ERR_PTR(-EINVAL) when @handle names nothing of @type in @ctx.
 */
struct rnic_uobj *rnic_uobj_get(struct rnic_ctx *ctx, u32 handle,
				enum rnic_obj_type type)
{
	struct rnic_uobj *uobj;

	/*
	 * Lockless: objects are freed after a grace period, and destroy
	 * takes the table's reference with refcount_dec_if_one(), so a
	 * lookup racing with it either wins (destroy says EBUSY) or finds
	 * no reference to take.
	 */
	rcu_read_lock();
	uobj = rnic_xa_load_rcu(&ctx->objs, handle);
	if (!uobj || uobj->type != type || !refcount_inc_not_zero(&uobj->users))
		uobj = ERR_PTR(-EINVAL);
	rcu_read_unlock();
	return uobj;
}

/**
 * rnic_uobj_destroy() - destroy an object by handle
 * @ctx: the calling context
 * @handle: handle from userspace, untrusted
 * @type: the kind of object the ioctl destroys
 *
 * Return: 0, -EINVAL for a handle that names nothing of @type, -EBUSY
 * while anything else holds a reference on the object.
 */
int rnic_uobj_destroy(struct rnic_ctx *ctx, u32 handle,
		      enum rnic_obj_type type)
{
	struct rnic_uobj *uobj;

	xa_lock(&ctx->objs);
	uobj = xa_load(&ctx->objs, handle);
	if (!uobj || uobj->type != type) {
		xa_unlock(&ctx->objs);
		return -EINVAL;
	}
	if (!refcount_dec_if_one(&uobj->users)) {
		xa_unlock(&ctx->objs);
		return -EBUSY;
	}
	__xa_erase(&ctx->objs, handle);
	xa_unlock(&ctx->objs);

	rnic_uobj_release(uobj);
	return 0;
}

/**
 * rnic_uobj_destroy_all() - destroy every object of a context being closed
 * @ctx: the context; no ioctl can run on it any more
 *
 * Destroys every object that nothing but the table holds, then again
 * while that freed others, so dependents go before what they hold
 * whatever their kinds. Within a pass the kinds go from the last to the
 * first, which for today's kinds empties the context in one pass and
 * stops QPs before the memory regions they use. An object still held
 * after a pass that destroyed nothing is a leaked reference: it stays
 * (and warns) rather than being freed under its holder.
 */
void rnic_uobj_destroy_all(struct rnic_ctx *ctx)
{
	struct rnic_uobj *uobj;
	unsigned long handle;
	bool progress;
	int type;

	do {
		progress = false;
		for (type = RNIC_OBJ_MAX - 1; type >= RNIC_UOBJ_FIRST; type--)
			xa_for_each(&ctx->objs, handle, uobj)
				if (uobj->type == type &&
				    !rnic_uobj_destroy(ctx, handle, type))
					progress = true;
	} while (progress);
	WARN_ON(!xa_empty(&ctx->objs));
}

/**
 * rnic_uobj_nl_fill() - an object's handle and users for the resource
 *	listings (RNIC_NL_ATTR_RES_HANDLE, RNIC_NL_ATTR_RES_USERS)
 * @msg: the message being built
 * @uobj: an object found in its context's table, under rcu_read_lock()
 *
 * Return: 0 or -EMSGSIZE.
 */
int rnic_uobj_nl_fill(struct sk_buff *msg, struct rnic_uobj *uobj)
{
	/* the table's own reference is not a user (0 once being destroyed) */
	u32 users = refcount_read(&uobj->users);

	if (nla_put_u32(msg, RNIC_NL_ATTR_RES_HANDLE, uobj->handle) ||
	    nla_put_u32(msg, RNIC_NL_ATTR_RES_USERS, users ? users - 1 : 0))
		return -EMSGSIZE;
	return 0;
}
