// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - the SQ polling thread (RNIC_CREATE_QP_SQ_POLL,
 * DOC "rnic send doorbell" in rnic-abi.h).
 *
 * A device gets one kernel thread, "rnic-sqpoll/<index>", when its first
 * polled QP is created; it lives until the device is removed. It walks the
 * device's polled QPs and kicks the requester (rnic_req_run()) of every
 * QP whose SQ producer index moved since its last kick, so that posting
 * needs no system call. After rnic_sq_poll_idle_us without work it goes to
 * sleep, and a kick wakes it.
 *
 * One kick per move of the producer index is what RNIC_IOCTL_KICK_SQ gives
 * an unpolled QP, and enough: a requester that cannot fetch now (SQD, RNR
 * wait, a full window) is run again by whatever unblocks it (its state
 * change, its timer, an acknowledgment). So the thread does not ask
 * whether the SQ holds entries not fetched yet: that
 * stays true while the requester is blocked, and the thread would spin
 * instead of going idle, for as long as the QP stays in SQD, say.
 *
 * Going to sleep follows io_uring's SQPOLL rule. The thread:
 *
 * 1. queues itself on rnic_poller.wait in TASK_INTERRUPTIBLE;
 * 2. sets RNIC_SQ_NEED_WAKEUP in the SQ flags word of every watched QP;
 * 3. issues a full memory barrier;
 * 4. reads every watched producer index once more: if one moved, it
 *    clears the flags and polls on; otherwise it sleeps;
 * 5. once woken, it clears the flags and polls again.
 *
 * A poster stores its producer index, issues a full barrier and reads the
 * flags word. Whichever of the two barriers comes second, the side after
 * it sees the other's store: either step 4 sees the new producer index,
 * or the poster sees RNIC_SQ_NEED_WAKEUP and kicks, and since the thread
 * was on the wait queue before it set the flag, that kick's wake_up()
 * finds it. A poster that reads a flag left over from an earlier sleep
 * kicks a thread that is awake, which is harmless; the thread sets the
 * flag afresh (step 2) before every sleep, so the argument holds for each
 * sleep on its own. RNIC_SQ_NEED_WAKEUP is set in every watched QP's
 * flags word exactly while rnic_poller.sleeping is true: a QP added while
 * the thread sleeps gets it at once, so its first post kicks.
 *
 * This file is the only writer of the SQ flags words.
 *
 * A reset QP starts again from producer index 0 and could come back to
 * the index the thread last kicked for; rnic_req.gen, which the reset
 * increments, tells the two apart.
 */
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "engine/engine.h"

static unsigned int rnic_sq_poll_idle_us = 1000;
module_param_named(sq_poll_idle_us, rnic_sq_poll_idle_us, uint, 0644);
MODULE_PARM_DESC(sq_poll_idle_us,
		 "Microseconds the SQ polling thread of a device keeps polling without finding work before it sleeps (default 1000)");

/**
 * struct rnic_poller - the SQ polling thread of a device and what it
 *	watches
 * @lock: protects @qps, @nqps, @busy, @sleeping and the watched QPs'
 *	rnic_qp.poll_prod and poll_gen, and serialises the writes of their
 *	SQ flags words. Taken in process context only, without _bh; only
 *	wait queue locks are taken under it
 * @qps: the watched QPs (rnic_qp.poll_node); the thread rotates the list
 *	as it walks it, so a QP stays listed while the thread works on it
 * @nqps: entries in @qps
 * @busy: the QP the thread works on with @lock dropped, or NULL;
 *	rnic_poll_del() of that QP waits until it changes
 * @sleeping: the thread sleeps, or is about to: RNIC_SQ_NEED_WAKEUP is set
 *	in the flags word of every QP on @qps
 * @wait: the thread sleeps on it; rnic_poll_wake() wakes it
 * @busy_wait: rnic_poll_del() waits on it for @busy to change
 * @task: the thread; set before the poller is published, cleared when
 *	rnic_poll_dev_stop() stopped it
 *
 * Lifetime: allocated, with its thread, by the first rnic_poll_add() on
 * the device and published in rnic_dev.poller with cmpxchg(); the thread
 * stops when the device is removed (rnic_poll_dev_stop()) and the struct
 * goes in rnic_poll_dev_fini(), when the device is freed and therefore
 * has no QP left. The thread works on a QP only while it is on
 * @qps or, as @busy, with a data path reference (rnic_qp.dp) that it took
 * under @lock while the QP was listed.
 */
struct rnic_poller {
	spinlock_t lock; /* see above */
	struct list_head qps;
	unsigned int nqps;
	struct rnic_qp *busy;
	bool sleeping;
	wait_queue_head_t wait;
	wait_queue_head_t busy_wait;
	struct task_struct *task;
};

/* Set or clear RNIC_SQ_NEED_WAKEUP in every watched QP; p->lock held. */
static void rnic_poll_set_flags(struct rnic_poller *p, bool need_wakeup)
{
	struct rnic_qp *qp;

	lockdep_assert_held(&p->lock);
	list_for_each_entry(qp, &p->qps, poll_node)
		WRITE_ONCE(*qp->sq_flags,
			   need_wakeup ? RNIC_SQ_NEED_WAKEUP : 0);
}

/*
 * Has @qp's producer index moved since the thread last kicked it? Its
 * value in *@prod and the requester's generation in *@gen. p->lock held.
 */
static bool rnic_poll_moved(struct rnic_qp *qp, u32 *prod, u32 *gen)
{
	/*
	 * The index first: if it was posted after a reset, the modify that
	 * reset the QP returned before, so the new generation is visible.
	 */
	*prod = smp_load_acquire(qp->sq.producer);
	*gen = READ_ONCE(qp->req.gen);
	return *prod != qp->poll_prod || *gen != qp->poll_gen;
}

/* Has a watched QP's producer index moved? p->lock held. */
static bool rnic_poll_any_moved(struct rnic_poller *p)
{
	struct rnic_qp *qp;
	u32 prod, gen;

	lockdep_assert_held(&p->lock);
	list_for_each_entry(qp, &p->qps, poll_node)
		if (rnic_poll_moved(qp, &prod, &gen))
			return true;
	return false;
}

/**
 * rnic_poll_pass() - visit every watched QP once and kick those whose
 *	producer index moved
 * @p: the poller
 *
 * Each QP is taken off the head of the list and put back at its tail
 * under @p->lock, so the list itself is the cursor and the lock may be
 * dropped between QPs. The index is recorded before the kick, which reads
 * it again: a move after that is seen by the next pass. The kick runs
 * with the lock dropped, the QP marked as @p->busy and held by a data path
 * reference, so that neither its removal nor its destruction can complete
 * meanwhile; a QP whose data path is already stopping is not kicked.
 *
 * Return: whether a QP had work.
 */
static bool rnic_poll_pass(struct rnic_poller *p)
{
	struct rnic_qp *qp;
	bool work = false;
	unsigned int left;
	u32 prod, gen;

	spin_lock(&p->lock);
	for (left = p->nqps; left; left--) {
		qp = list_first_entry_or_null(&p->qps, struct rnic_qp,
					      poll_node);
		if (!qp)
			break;
		list_rotate_left(&p->qps);
		if (!rnic_poll_moved(qp, &prod, &gen)) {
			/* The rotation is the cursor: dropping the lock is fine. */
			cond_resched_lock(&p->lock);
			continue;
		}
		qp->poll_prod = prod;
		qp->poll_gen = gen;
		if (!refcount_inc_not_zero(&qp->dp.ref))
			continue;
		p->busy = qp;
		spin_unlock(&p->lock);

		rnic_req_run(qp);
		rnic_qp_dp_put(qp);
		work = true;

		spin_lock(&p->lock);
		p->busy = NULL;
		/* rnic_poll_del() queues itself under p->lock. */
		if (waitqueue_active(&p->busy_wait))
			wake_up_all(&p->busy_wait);
		spin_unlock(&p->lock);
		cond_resched();
		spin_lock(&p->lock);
	}
	spin_unlock(&p->lock);
	return work;
}

/**
 * rnic_poll_sleep() - tell userspace to kick, and sleep unless a post
 *	slipped in
 * @p: the poller
 *
 * Steps 1 to 5 of the protocol at the top of this file. Returns when the
 * thread was woken (a kick, kthread_stop()) or found work without
 * sleeping; the flags are clear again either way.
 */
static void rnic_poll_sleep(struct rnic_poller *p)
{
	DEFINE_WAIT(wait);
	bool pending;

	/* Queued before any flag is visible, so a kick's wake_up() finds it. */
	prepare_to_wait(&p->wait, &wait, TASK_INTERRUPTIBLE);
	spin_lock(&p->lock);
	p->sleeping = true;
	rnic_poll_set_flags(p, true);
	/*
	 * Flags before producer indexes; pairs with the full barrier
	 * userspace issues between its producer index and the flags word.
	 */
	smp_mb();
	pending = rnic_poll_any_moved(p);
	spin_unlock(&p->lock);

	if (!pending && !kthread_should_stop())
		schedule();
	finish_wait(&p->wait, &wait);

	spin_lock(&p->lock);
	p->sleeping = false;
	rnic_poll_set_flags(p, false);
	spin_unlock(&p->lock);
}

static int rnic_poll_thread(void *data)
{
	struct rnic_poller *p = data;
	bool idle = false;
	u64 idle_since = 0;
	u64 idle_ns;

	while (!kthread_should_stop()) {
		if (rnic_poll_pass(p)) {
			idle = false;
		} else if (!idle) {
			idle = true;
			idle_since = local_clock();
		} else {
			idle_ns = (u64)READ_ONCE(rnic_sq_poll_idle_us) *
				  NSEC_PER_USEC;
			/* local_clock() may step back after a migration. */
			if ((s64)(local_clock() - idle_since) >= (s64)idle_ns) {
				rnic_poll_sleep(p);
				idle = false;
			} else {
				cpu_relax();
			}
		}
		cond_resched();
	}
	return 0;
}

/*
 * The device's poller, created with its thread by the first caller. Two
 * first callers race with cmpxchg(); the loser stops the thread it
 * created. The thread runs before the poller is published, so that
 * whoever finds the poller may stop its thread (rnic_poll_dev_stop()).
 */
static struct rnic_poller *rnic_poller_get(struct rnic_dev *rdev)
{
	struct rnic_poller *p, *old;
	struct task_struct *task;

	/* Pairs with the cmpxchg() below: *p is initialised. */
	p = smp_load_acquire(&rdev->poller);
	if (p)
		return p;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->qps);
	init_waitqueue_head(&p->wait);
	init_waitqueue_head(&p->busy_wait);
	task = kthread_create(rnic_poll_thread, p, "rnic-sqpoll/%u",
			      rdev->index);
	if (IS_ERR(task)) {
		kfree(p);
		return ERR_CAST(task);
	}
	p->task = task;
	wake_up_process(task);

	old = cmpxchg(&rdev->poller, NULL, p);
	if (old) {
		kthread_stop(task);
		kfree(p);
		return old;
	}
	return p;
}

/**
 * rnic_poll_add() - let the device's polling thread watch a QP's SQ
 *	producer index (RNIC_CREATE_QP_SQ_POLL); starts the thread if needed
 * @qp: the QP, with an SQ, not findable yet; process context
 *
 * The QP must keep its SQ ring and requester state until rnic_poll_del().
 * Nothing is posted yet: the thread starts from its current index.
 *
 * Return: 0, -ENOMEM, or -EINTR if the caller was killed while the thread
 * was being created.
 */
int rnic_poll_add(struct rnic_qp *qp)
{
	struct rnic_poller *p;

	if (WARN_ON_ONCE(!qp->sq_flags))
		return -EINVAL;
	p = rnic_poller_get(qp->rdev);
	if (IS_ERR(p))
		return PTR_ERR(p);

	spin_lock(&p->lock);
	qp->poll_prod = READ_ONCE(*qp->sq.producer);
	qp->poll_gen = READ_ONCE(qp->req.gen);
	list_add_tail(&qp->poll_node, &p->qps);
	p->nqps++;
	/* The sleeping thread would not see its first post: kick. */
	WRITE_ONCE(*qp->sq_flags, p->sleeping ? RNIC_SQ_NEED_WAKEUP : 0);
	spin_unlock(&p->lock);
	return 0;
}

/**
 * rnic_poll_del() - stop watching a QP; when it returns, the thread no
 *	longer touches @qp
 * @qp: a QP rnic_poll_add() accepted; process context
 *
 * Waits while the thread kicks @qp (at most one bounded rnic_req_run()),
 * so the caller must not hold anything rnic_req_run() takes. Call it
 * before the SQ ring and the requester state are freed.
 */
void rnic_poll_del(struct rnic_qp *qp)
{
	struct rnic_poller *p = qp->rdev->poller;
	DEFINE_WAIT(wait);

	spin_lock(&p->lock);
	list_del_init(&qp->poll_node);
	p->nqps--;
	/* Not listed any more: the thread cannot pick it up again. */
	while (p->busy == qp) {
		prepare_to_wait(&p->busy_wait, &wait, TASK_UNINTERRUPTIBLE);
		spin_unlock(&p->lock);
		schedule();
		finish_wait(&p->busy_wait, &wait);
		spin_lock(&p->lock);
	}
	spin_unlock(&p->lock);
}

/**
 * rnic_poll_wake() - wake the polling thread for a kick on a polled QP
 * @qp: a polled QP; any context
 *
 * Kicks come from userspace that saw RNIC_SQ_NEED_WAKEUP, or read it
 * stale: waking a thread that is awake does nothing.
 */
void rnic_poll_wake(struct rnic_qp *qp)
{
	struct rnic_poller *p = READ_ONCE(qp->rdev->poller);

	if (WARN_ON_ONCE(!p))
		return;
	wake_up(&p->wait);
}

/**
 * rnic_poll_dev_stop() - stop the polling thread of a device being
 *	removed, if it has one
 * @rdev: the device
 *
 * The poller stays, with its QPs listed, until the device is freed:
 * rnic_poll_add(), rnic_poll_del() and rnic_poll_wake() go on working,
 * but nothing kicks a QP any more. A QP created by an ioctl that was
 * running meanwhile may start a new thread: removal calls this again
 * once no ioctl runs.
 *
 * Context: process; the device's removal, which serialises the calls.
 */
void rnic_poll_dev_stop(struct rnic_dev *rdev)
{
	/* Pairs with the cmpxchg() in rnic_poller_get(). */
	struct rnic_poller *p = smp_load_acquire(&rdev->poller);

	if (!p || !p->task)
		return;
	kthread_stop(p->task);
	p->task = NULL;
}

/**
 * rnic_poll_dev_fini() - stop the device's polling thread, if any; no QP
 *	is watched any more
 * @rdev: the device being freed
 */
void rnic_poll_dev_fini(struct rnic_dev *rdev)
{
	struct rnic_poller *p = rdev->poller;

	if (!p)
		return;
	WARN_ON(!list_empty(&p->qps));
	if (p->task)
		kthread_stop(p->task);
	rdev->poller = NULL;
	kfree(p);
}
