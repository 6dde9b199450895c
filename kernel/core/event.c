// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - event queues: completion channels and the
 * asynchronous event queue of a context (DOC "rnic events" in rnic-abi.h).
 *
 * An event queue (struct rnic_evq) is what a file descriptor reads. It is
 * reference counted and points to nothing else, so the descriptor may
 * outlive its owner and the owner its descriptor:
 *
 * - a completion channel is an object of its context (RNIC_OBJ_CHANNEL)
 *   that holds one reference, its file the other. Its CQs queue their
 *   embedded completion event on it, at most once each.
 * - the asynchronous queue of a context is its rnic_ctx.async_evq and on
 *   its device's async_queues list (one reference) from its creation until
 *   the context closes, or until a new descriptor replaces it after its
 *   own was closed. Events are allocated when raised (GFP_ATOMIC: port
 *   events come from atomic notifiers), at most RNIC_ASYNC_EVENTS_MAX per
 *   queue; events that do not fit are counted as lost and reported with
 *   the next event read.
 *
 * Taking a queue off duty (its channel destroyed, its context or its
 * descriptor closed) "closes" it: its events are dropped, nothing is
 * queued any more, and readers get EIO once it is empty.
 *
 * Locks (no global one: the data path raises events): each queue has its
 * own lock. The lock of a context's asynchronous queue also protects the
 * struct rnic_evobj state of the context's objects, whose events it
 * holds. rnic_ctx.async_lock protects which queue that is, so raising an
 * event takes two locks of its context; rnic_dev.async_lock protects the
 * device's list of queues, walked by device events. Order:
 * rnic_port.lock -> rnic_dev.async_lock -> rnic_ctx.async_lock -> the
 * queue's lock; all are taken with interrupts off.
 *
 * read() copies the oldest event out without the lock held, then takes it
 * off the queue only if it is still the oldest (sequence numbers tell):
 * a fault leaves the event queued, and an event dropped meanwhile (its CQ
 * destroyed) is never reported as read.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>

#include "rnic.h"

static_assert(sizeof(struct rnic_event_desc) == 16);

/**
 * struct rnic_evq - an event queue behind a file descriptor
 * @ref: 1 for the owner (channel object, or its context while listed),
 *	1 for the file, 1 per creation in progress
 * @lock: protects @events, @closed, @next_seq, @nr_dynamic, @lost and
 *	@fatal; an asynchronous queue's lock also protects the rnic_evobj
 *	state of its context's objects (see the top of the file)
 * @wait: readers and pollers
 * @events: struct rnic_event.node, oldest first
 * @closed: the owner is gone: nothing is queued any more
 * @next_seq: sequence number of the next event queued
 * @async: the asynchronous event queue of a context
 * @node: asynchronous queue: entry in its device's async_queues, empty when
 *	off it; rnic_dev.async_lock
 * @nr_dynamic: asynchronous queue: allocated events queued
 * @lost: asynchronous queue: events dropped since the last one read
 * @fatal: asynchronous queue: its IBV_EVENT_DEVICE_FATAL event
 * @fatal_raised: asynchronous queue: @fatal was queued; it never is again
 */
struct rnic_evq {
	refcount_t ref;
	spinlock_t lock; /* see above */
	wait_queue_head_t wait;
	struct list_head events;
	bool closed;
	u64 next_seq;
	bool async;
	struct list_head node;
	u32 nr_dynamic;
	u32 lost;
	struct rnic_event fatal;
	bool fatal_raised;
};

/* An allocated asynchronous event; ev.dynamic is set. */
struct rnic_async_entry {
	struct rnic_event ev;
	struct rnic_evq *evq;
};

static void rnic_event_init(struct rnic_event *ev, u64 element, u32 type,
			    u32 *counter)
{
	INIT_LIST_HEAD(&ev->node);
	INIT_LIST_HEAD(&ev->obj_node);
	ev->counter = counter;
	ev->desc.element = element;
	ev->desc.event_type = type;
}

static struct rnic_evq *rnic_evq_alloc(bool async)
{
	struct rnic_evq *evq;

	evq = kzalloc(sizeof(*evq), GFP_KERNEL_ACCOUNT);
	if (!evq)
		return NULL;
	refcount_set(&evq->ref, 1);
	spin_lock_init(&evq->lock);
	init_waitqueue_head(&evq->wait);
	INIT_LIST_HEAD(&evq->events);
	evq->async = async;
	INIT_LIST_HEAD(&evq->node);
	rnic_event_init(&evq->fatal, 0, RNIC_EVENT_DEVICE_FATAL, NULL);
	return evq;
}

static void rnic_evq_put(struct rnic_evq *evq)
{
	if (refcount_dec_and_test(&evq->ref)) {
		WARN_ON(!list_empty(&evq->events));
		kfree(evq);
	}
}

static void rnic_evq_add(struct rnic_evq *evq, struct rnic_event *ev)
{
	lockdep_assert_held(&evq->lock);
	ev->seq = evq->next_seq++;
	list_add_tail(&ev->node, &evq->events);
	wake_up_interruptible(&evq->wait);
}

/* Take an event off its queue (and its object); the queue's lock held. */
static void rnic_event_unlink(struct rnic_event *ev)
{
	struct rnic_async_entry *entry;

	list_del_init(&ev->node);
	list_del_init(&ev->obj_node);
	if (ev->dynamic) {
		entry = container_of(ev, struct rnic_async_entry, ev);
		entry->evq->nr_dynamic--;
		kfree(entry);
	}
}

/* Drop every event and refuse new ones; the queue's lock held. */
static void rnic_evq_close_locked(struct rnic_evq *evq)
{
	struct rnic_event *ev, *next;

	lockdep_assert_held(&evq->lock);
	evq->closed = true;
	list_for_each_entry_safe(ev, next, &evq->events, node)
		rnic_event_unlink(ev);
	evq->lost = 0;
	wake_up_interruptible(&evq->wait);
}

/* Close @evq with its own lock. */
static void rnic_evq_close(struct rnic_evq *evq)
{
	unsigned long flags;

	spin_lock_irqsave(&evq->lock, flags);
	rnic_evq_close_locked(evq);
	spin_unlock_irqrestore(&evq->lock, flags);
}

static ssize_t rnic_evq_read(struct file *filp, char __user *buf,
			     size_t count, loff_t *pos)
{
	struct rnic_evq *evq = filp->private_data;
	struct rnic_event_desc desc;
	struct rnic_event *ev;
	ssize_t ret;
	u64 seq;

	if (count < sizeof(desc))
		return -EINVAL;
	for (;;) {
		spin_lock_irq(&evq->lock);
		if (list_empty(&evq->events) && !evq->closed &&
		    (filp->f_flags & O_NONBLOCK)) {
			ret = -EAGAIN;
			goto out_unlock;
		}
		ret = wait_event_interruptible_lock_irq(evq->wait,
							!list_empty(&evq->events) ||
							evq->closed,
							evq->lock);
		if (ret)
			goto out_unlock;
		ev = list_first_entry_or_null(&evq->events, struct rnic_event,
					      node);
		if (!ev) {
			ret = -EIO;	/* closed and drained */
			goto out_unlock;
		}
		desc = ev->desc;
		desc.lost = evq->lost;
		seq = ev->seq;
		spin_unlock_irq(&evq->lock);

		if (copy_to_user(buf, &desc, sizeof(desc)))
			return -EFAULT;

		spin_lock_irq(&evq->lock);
		ev = list_first_entry_or_null(&evq->events, struct rnic_event,
					      node);
		if (ev && ev->seq == seq) {
			if (ev->counter)
				(*ev->counter)++;
			evq->lost -= desc.lost;
			rnic_event_unlink(ev);
			ret = sizeof(desc);
			goto out_unlock;
		}
		/* Another reader took it, or its owner dropped it: again. */
		spin_unlock_irq(&evq->lock);
		if (signal_pending(current))
			return -ERESTARTSYS;
	}

out_unlock:
	spin_unlock_irq(&evq->lock);
	return ret;
}

static __poll_t rnic_evq_poll(struct file *filp, poll_table *wait)
{
	struct rnic_evq *evq = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &evq->wait, wait);
	spin_lock_irq(&evq->lock);
	if (!list_empty(&evq->events))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (evq->closed)
		mask = EPOLLERR;
	spin_unlock_irq(&evq->lock);
	return mask;
}

static int rnic_evq_release(struct inode *inode, struct file *filp)
{
	struct rnic_evq *evq = filp->private_data;

	/*
	 * Nobody can read the queue any more: stop filling it. An
	 * asynchronous queue stays its context's until the context closes
	 * or a new descriptor replaces it.
	 */
	if (evq->async)
		rnic_evq_close(evq);
	rnic_evq_put(evq);
	return 0;
}

static const struct file_operations rnic_evq_fops = {
	.owner = THIS_MODULE,
	.read = rnic_evq_read,
	.poll = rnic_evq_poll,
	.release = rnic_evq_release,
	.llseek = no_llseek,
};

/* A file reading @evq, with a reference of its own on it. */
static struct file *rnic_evq_file(struct rnic_evq *evq, const char *name)
{
	struct file *file;

	refcount_inc(&evq->ref);
	file = anon_inode_getfile(name, &rnic_evq_fops, evq, O_RDONLY);
	if (IS_ERR(file))
		rnic_evq_put(evq);
	return file;
}

/* Whether @evq is closed; interrupts off. */
static bool rnic_evq_closed(struct rnic_evq *evq)
{
	bool closed;

	spin_lock(&evq->lock);
	closed = evq->closed;
	spin_unlock(&evq->lock);
	return closed;
}

/*
 * Make @evq the queue of @ctx, with a reference; -EEXIST if it has an
 * open one. A closed one is taken off, its reference handed to *@old.
 */
static int rnic_async_list(struct rnic_evq *evq, struct rnic_ctx *ctx,
			   struct rnic_evq **old)
{
	struct rnic_dev *rdev = ctx->dev;
	unsigned long flags;
	int ret = 0;

	*old = NULL;
	spin_lock_irqsave(&rdev->async_lock, flags);
	spin_lock(&ctx->async_lock);
	if (ctx->async_evq && !rnic_evq_closed(ctx->async_evq)) {
		ret = -EEXIST;
	} else {
		*old = ctx->async_evq;
		if (*old)
			list_del_init(&(*old)->node);
		refcount_inc(&evq->ref);
		ctx->async_evq = evq;
		list_add_tail(&evq->node, &rdev->async_queues);
	}
	spin_unlock(&ctx->async_lock);
	spin_unlock_irqrestore(&rdev->async_lock, flags);
	return ret;
}

/*
 * Take the asynchronous queue of @ctx off duty if it is @evq (NULL:
 * whichever it is), and close it. Return: the queue taken off, whose
 * reference the caller puts, or NULL.
 */
static struct rnic_evq *rnic_async_unlist(struct rnic_ctx *ctx,
					  struct rnic_evq *evq)
{
	struct rnic_dev *rdev = ctx->dev;
	struct rnic_evq *cur;
	unsigned long flags;

	spin_lock_irqsave(&rdev->async_lock, flags);
	spin_lock(&ctx->async_lock);
	cur = ctx->async_evq;
	if (cur && (!evq || cur == evq)) {
		ctx->async_evq = NULL;
		list_del_init(&cur->node);
		spin_lock(&cur->lock);
		rnic_evq_close_locked(cur);
		spin_unlock(&cur->lock);
	} else {
		cur = NULL;
	}
	spin_unlock(&ctx->async_lock);
	spin_unlock_irqrestore(&rdev->async_lock, flags);
	return cur;
}

int rnic_create_async_fd(struct rnic_ucmd *ucmd)
{
	struct rnic_create_async_fd *cmd = ucmd->cmd;
	struct rnic_evq *evq, *old;
	struct file *file;
	int fd, ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;

	evq = rnic_evq_alloc(true);
	if (!evq)
		return -ENOMEM;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_put;
	}
	file = rnic_evq_file(evq, "[rnic_async_event]");
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto err_fd;
	}
	ret = rnic_async_list(evq, ucmd->ctx, &old);
	if (old)
		rnic_evq_put(old);
	if (ret)
		goto err_file;
	cmd->out_fd = fd;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_unlist;
	fd_install(fd, file);
	rnic_evq_put(evq);
	return 0;

err_unlist:
	if (rnic_async_unlist(ucmd->ctx, evq))
		rnic_evq_put(evq);
err_file:
	fput(file);
err_fd:
	put_unused_fd(fd);
err_put:
	rnic_evq_put(evq);
	return ret;
}

/**
 * rnic_async_ctx_close() - a context is being closed: close its
 *	asynchronous event queue, if it has one
 * @ctx: the context, its objects destroyed already
 *
 * The descriptor stays valid; it reads EIO once drained (it is, now).
 */
void rnic_async_ctx_close(struct rnic_ctx *ctx)
{
	struct rnic_evq *evq;

	evq = rnic_async_unlist(ctx, NULL);
	if (evq)
		rnic_evq_put(evq);
}

/* Queue an asynchronous event on @evq, unless closed; its lock held. */
static void rnic_async_add(struct rnic_evq *evq, u32 type, u64 element,
			   struct rnic_evobj *obj)
{
	struct rnic_async_entry *entry;

	lockdep_assert_held(&evq->lock);
	if (evq->closed)
		return;
	if (type == RNIC_EVENT_DEVICE_FATAL) {
		if (!evq->fatal_raised)
			rnic_evq_add(evq, &evq->fatal);
		evq->fatal_raised = true;
		return;
	}
	if (evq->nr_dynamic >= RNIC_ASYNC_EVENTS_MAX) {
		evq->lost++;
		return;
	}
	entry = kzalloc(sizeof(*entry), GFP_ATOMIC);
	if (!entry) {
		evq->lost++;
		return;
	}
	entry->evq = evq;
	rnic_event_init(&entry->ev, element, type,
			obj ? &obj->async_reported : NULL);
	entry->ev.dynamic = true;
	if (obj)
		list_add_tail(&entry->ev.obj_node, &obj->events);
	evq->nr_dynamic++;
	rnic_evq_add(evq, &entry->ev);
}

/**
 * rnic_async_event() - raise an asynchronous event in a context
 * @ctx: the context
 * @event_type: enum rnic_event_type
 * @obj: the object the event is about (its user_handle is the element;
 *	userspace's reads of the event are counted in it), or NULL
 * @port_num: the element when @obj is NULL: a port number, or 0
 *
 * Nothing happens if the context has no asynchronous event descriptor
 * open. The event is dropped, and counted as lost, if the queue is full
 * or memory is short.
 *
 * Takes the context's locks only (rnic_ctx.async_lock, then its queue's).
 *
 * Context: any but hard interrupt; does not sleep. @obj stays valid
 * during the call.
 */
void rnic_async_event(struct rnic_ctx *ctx, u32 event_type,
		      struct rnic_evobj *obj, u32 port_num)
{
	struct rnic_evq *evq;
	unsigned long flags;

	spin_lock_irqsave(&ctx->async_lock, flags);
	evq = ctx->async_evq;
	if (evq) {
		spin_lock(&evq->lock);
		rnic_async_add(evq, event_type,
			       obj ? obj->user_handle : port_num, obj);
		spin_unlock(&evq->lock);
	}
	spin_unlock_irqrestore(&ctx->async_lock, flags);
}

/**
 * rnic_dev_async_event() - raise an asynchronous event in every context of
 *	a device
 * @rdev: the device
 * @event_type: a port event (element: port 1) or RNIC_EVENT_DEVICE_FATAL
 *	(element 0, never dropped, queued once per queue however often it is
 *	raised)
 *
 * Takes rnic_dev.async_lock, then each queue's lock.
 *
 * Context: any but hard interrupt (the port lock may be held); does not
 * sleep.
 */
void rnic_dev_async_event(struct rnic_dev *rdev, u32 event_type)
{
	u32 element = event_type == RNIC_EVENT_DEVICE_FATAL ? 0 : 1;
	struct rnic_evq *evq;
	unsigned long flags;

	spin_lock_irqsave(&rdev->async_lock, flags);
	list_for_each_entry(evq, &rdev->async_queues, node) {
		spin_lock(&evq->lock);
		rnic_async_add(evq, event_type, element, NULL);
		spin_unlock(&evq->lock);
	}
	spin_unlock_irqrestore(&rdev->async_lock, flags);
}

/**
 * rnic_evobj_init() - set up the event state of a new object
 * @obj: embedded in the object
 * @user_handle: from the create ioctl
 */
void rnic_evobj_init(struct rnic_evobj *obj, u64 user_handle)
{
	obj->user_handle = user_handle;
	INIT_LIST_HEAD(&obj->events);
	obj->async_reported = 0;
	obj->counts = NULL;
}

/* Drop the events of @obj and report its count; its queue's lock held. */
static void rnic_evobj_drop(struct rnic_evobj *obj)
{
	struct rnic_event *ev, *next;

	list_for_each_entry_safe(ev, next, &obj->events, obj_node)
		rnic_event_unlink(ev);
	if (obj->counts)
		obj->counts->async = obj->async_reported;
}

/**
 * rnic_evobj_fini() - an object with events is being destroyed
 * @ctx: the object's context
 * @obj: its event state
 *
 * Drops the object's asynchronous events that were not read, and reports
 * how many were read into @obj->counts if a destroy ioctl asked for it.
 * Called from the object's destroy callback, after nothing can raise an
 * event about it any more.
 */
void rnic_evobj_fini(struct rnic_ctx *ctx, struct rnic_evobj *obj)
{
	struct rnic_evq *evq;
	unsigned long flags;

	/*
	 * The object's events are on its context's queue, if any: a queue
	 * closed or replaced took them off, under its lock, before.
	 */
	spin_lock_irqsave(&ctx->async_lock, flags);
	evq = ctx->async_evq;
	if (evq) {
		spin_lock(&evq->lock);
		rnic_evobj_drop(obj);
		spin_unlock(&evq->lock);
	} else {
		rnic_evobj_drop(obj);
	}
	spin_unlock_irqrestore(&ctx->async_lock, flags);
}

/**
 * rnic_evobj_destroy() - destroy an object with events by handle, and
 *	learn how many of its events userspace read
 * @ctx: the calling context
 * @handle: handle from userspace, untrusted
 * @et: the kind of object the ioctl destroys
 * @counts: filled in by the destroy callback (rnic_evobj_fini(), and the
 *	CQ's completion count)
 *
 * Every destroy by handle of such an object must go through here: while
 * one runs, @counts is parked in the object, and a second one is EBUSY.
 *
 * Return: 0, -EINVAL for a handle that names nothing of @et's type,
 * -EBUSY while anything else holds a reference on the object or @et's
 * busy() says so.
 */
int rnic_evobj_destroy(struct rnic_ctx *ctx, u32 handle,
		       const struct rnic_evobj_type *et,
		       struct rnic_event_counts *counts)
{
	struct rnic_uobj *uobj;
	struct rnic_evobj *obj;
	int ret;

	uobj = rnic_uobj_get(ctx, handle, et->type);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	obj = et->to_evobj(uobj);
	if ((et->busy && et->busy(uobj)) ||
	    cmpxchg(&obj->counts, NULL, counts)) {
		rnic_uobj_put(uobj);
		return -EBUSY;
	}
	rnic_uobj_put(uobj);
	/*
	 * Only a holder of obj->counts destroys the object by handle, and
	 * the file is open (closing it is the other way), so it is still
	 * there whatever the result.
	 */
	ret = rnic_uobj_destroy(ctx, handle, et->type);
	if (ret)
		WRITE_ONCE(obj->counts, NULL);
	return ret;
}

/**
 * rnic_channel_event() - queue a CQ's completion event on its channel
 * @channel: the channel, held by the CQ
 * @ev: the CQ's embedded event; nothing happens if it is queued already
 *
 * Context: any but hard interrupt; does not sleep.
 */
void rnic_channel_event(struct rnic_channel *channel, struct rnic_event *ev)
{
	struct rnic_evq *evq = channel->evq;
	unsigned long flags;

	spin_lock_irqsave(&evq->lock, flags);
	if (list_empty(&ev->node))
		rnic_evq_add(evq, ev);
	spin_unlock_irqrestore(&evq->lock, flags);
}

/**
 * rnic_channel_drop() - take a CQ's completion event off its channel
 * @channel: the channel
 * @ev: the CQ's embedded event, queued or not
 *
 * Return: how many times userspace read @ev (its counter), final once
 * nothing can queue @ev again.
 */
u32 rnic_channel_drop(struct rnic_channel *channel, struct rnic_event *ev)
{
	struct rnic_evq *evq = channel->evq;
	unsigned long flags;
	u32 reported;

	spin_lock_irqsave(&evq->lock, flags);
	rnic_event_unlink(ev);
	reported = *ev->counter;
	spin_unlock_irqrestore(&evq->lock, flags);
	return reported;
}

static void rnic_channel_destroy(struct rnic_uobj *uobj)
{
	struct rnic_channel *channel = container_of(uobj, struct rnic_channel,
						    uobj);
	struct rnic_evq *evq = channel->evq;

	/* No CQ uses the channel: only readers are left. */
	rnic_evq_close(evq);
	rnic_evq_put(evq);
}

int rnic_create_comp_channel(struct rnic_ucmd *ucmd)
{
	struct rnic_create_comp_channel *cmd = ucmd->cmd;
	struct rnic_channel *channel;
	struct file *file;
	int fd, ret;

	if (cmd->flags)
		return -EINVAL;

	channel = rnic_uobj_alloc(ucmd->ctx, RNIC_OBJ_CHANNEL, sizeof(*channel),
				  rnic_channel_destroy);
	if (IS_ERR(channel))
		return PTR_ERR(channel);
	channel->evq = rnic_evq_alloc(false);
	if (!channel->evq) {
		ret = -ENOMEM;
		goto err_abort;
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_evq;
	}
	file = rnic_evq_file(channel->evq, "[rnic_comp_channel]");
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto err_fd;
	}
	cmd->out_handle = channel->uobj.handle;
	cmd->out_fd = fd;
	ret = rnic_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_file;
	rnic_uobj_finalize(&channel->uobj);
	fd_install(fd, file);
	return 0;

err_file:
	fput(file);
err_fd:
	put_unused_fd(fd);
err_evq:
	rnic_evq_put(channel->evq);
err_abort:
	rnic_uobj_abort(&channel->uobj);
	return ret;
}

int rnic_destroy_comp_channel(struct rnic_ucmd *ucmd)
{
	struct rnic_destroy *cmd = ucmd->cmd;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	return rnic_uobj_destroy(ucmd->ctx, cmd->handle, RNIC_OBJ_CHANNEL);
}
