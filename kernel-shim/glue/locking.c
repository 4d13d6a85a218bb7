// SPDX-License-Identifier: GPL-2.0
/*
 * Sleeping locks and RCU for a single host thread. Nothing can contend, so
 * a lock only checks its state: taking a mutex or rwsem that is already
 * held would sleep forever on a real kernel and is reported as a deadlock.
 * RCU readers never overlap a writer, so a grace period has already
 * elapsed whenever synchronize_rcu() is called.
 */
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/rcupdate.h>
#include <linux/srcu.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <kshim/compat/locking.h>
#include <kshim/kernel-version.h>

#include "shim.h"

/* kernel/locking/mutex.c: without lockdep, __mutex_init() is this */
void mutex_init_generic(struct mutex *lock)
{
	atomic_long_set(&lock->owner, 0);
}

#if !KSHIM_HAS_MUTEX_INIT_GENERIC
void __mutex_init(struct mutex *lock, const char *name, struct lock_class_key *key)
{
	mutex_init_generic(lock);
}
#endif

void mutex_lock(struct mutex *lock)
{
	if (atomic_long_read(&lock->owner))
		shim_fatal("mutex_lock() on a held mutex (deadlock)");
	atomic_long_set(&lock->owner, 1);
}

void mutex_unlock(struct mutex *lock)
{
	if (!atomic_long_read(&lock->owner))
		shim_fatal("mutex_unlock() on a mutex that is not held");
	atomic_long_set(&lock->owner, 0);
}

void __init_rwsem(struct rw_semaphore *sem, const char *name, struct lock_class_key *key)
{
	atomic_long_set(&sem->count, 0);
}

void down_read(struct rw_semaphore *sem)
{
	if (atomic_long_read(&sem->count) < 0)
		shim_fatal("down_read() on a write-held rw_semaphore (deadlock)");
	atomic_long_inc(&sem->count);
}

void up_read(struct rw_semaphore *sem)
{
	atomic_long_dec(&sem->count);
}

void down_write(struct rw_semaphore *sem)
{
	if (atomic_long_read(&sem->count) != 0)
		shim_fatal("down_write() on a held rw_semaphore (deadlock)");
	atomic_long_set(&sem->count, -1);
}

void up_write(struct rw_semaphore *sem)
{
	atomic_long_set(&sem->count, 0);
}

void synchronize_rcu(void)
{
}

#if KSHIM_KERNEL_LT(6, 1, 0)
/*
 * RCU's view of idle and interrupts before context tracking took it over
 * (ct_idle_enter(), ct_irq_enter_irqon(): in 6.1, not in 5.10.262;
 * bracketed): nothing to track where a grace period is any moment every
 * CPU is outside kernel code (above). rcu_read_unlock_strict() is
 * RCU_STRICT_GRACE_PERIOD's, off.
 */
void rcu_idle_enter(void)
{
}

void rcu_idle_exit(void)
{
}

void rcu_irq_enter_irqson(void)
{
}

void rcu_irq_exit_irqson(void)
{
}

void rcu_read_unlock_strict(void)
{
}
#endif

/* SRCU: the same reasoning as RCU, per srcu_struct. */
int init_srcu_struct_generic(struct srcu_struct *ssp)
{
	return 0;
}

#if !KSHIM_HAS_INIT_SRCU_STRUCT_GENERIC
int init_srcu_struct(struct srcu_struct *ssp)
{
	return init_srcu_struct_generic(ssp);
}
#endif

int __srcu_read_lock(struct srcu_struct *ssp)
{
	return 0;
}

void __srcu_read_unlock(struct srcu_struct *ssp, int idx)
{
}

void synchronize_srcu(struct srcu_struct *ssp)
{
}

/*
 * kfree_rcu(): the object may still be reachable from the caller's own
 * read-side section, so it is freed when the deferred work is drained
 * (kshim_run_pending_work()), i.e. after the grace period.
 */
static void *rcu_deferred_free[256];
static unsigned int nr_rcu_deferred;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
void kvfree_call_rcu(struct kshim_kvfree_rcu_head *head, void *ptr)
{
	if (nr_rcu_deferred == ARRAY_SIZE(rcu_deferred_free))
		kshim_rcu_free_deferred();
	rcu_deferred_free[nr_rcu_deferred++] = ptr;
}
#endif

/*
 * call_rcu(): the callback runs after the grace period, i.e. once every
 * CPU has left the kernel code it was in (kshim_rcu_free_deferred(), at the
 * end of boot and of every settle of the CPUs), in the order queued.
 */
static struct rcu_head *rcu_callbacks, **rcu_callbacks_tail = &rcu_callbacks;

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	head->func = func;
	head->next = NULL;
	*rcu_callbacks_tail = head;
	rcu_callbacks_tail = &head->next;
}

void kshim_rcu_free_deferred(void)
{
	while (rcu_callbacks) {
		struct rcu_head *head = rcu_callbacks;

		rcu_callbacks = head->next;
		if (!rcu_callbacks)
			rcu_callbacks_tail = &rcu_callbacks;
		head->func(head);
	}
	while (nr_rcu_deferred)
		kfree(rcu_deferred_free[--nr_rcu_deferred]);
}

/* Quiescent-state reports: grace periods end at kshim_rcu_free_deferred(). */
void rcu_note_context_switch(bool preempt)
{
}

void rcu_all_qs(void)
{
}

/* kernel/fork.c: nobody walks the task list concurrently here. */
DEFINE_RWLOCK(tasklist_lock);

/* No lock functions live in a separate text section. */
int in_lock_functions(unsigned long addr)
{
	return 0;
}

#ifndef KSHIM_SCHED_FULL
/* lib/refcount.c (compiled with the whole scheduler) */
void refcount_warn_saturate(refcount_t *r, enum refcount_saturation_type t)
{
	WARN(1, "refcount_t: saturated or underflowed (type %d)\n", t);
}
#endif

void shim_lock_bug(const char *what, const void *lock)
{
	shim_fatal(what);
}
