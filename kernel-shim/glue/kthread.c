// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/kthread.c as schedutil's slow path needs it: a kthread worker
 * (sugov:N, SCHED_DEADLINE) per cpufreq policy that cannot switch
 * frequency from scheduler context. The harness has no stacks, so a kernel
 * thread cannot sit in its function's loop: a thread made here runs its
 * function one pass at a time, each time the scheduler makes it current
 * (kshim_run_kthread(), from kshim_settle(), as the stoppers run). Only
 * kthread_worker_fn() is such a function; any other is a harness bug.
 * Threads are never stopped (policies are never torn down).
 */
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <uapi/linux/sched.h>

#include <kshim/cost.h>
#include <kshim/compat/sched.h>
#include <kshim/compat/isolation.h>
#include "shim.h"

#define KSHIM_NO_TEARDOWN() \
	shim_fatal("a kthread was asked to stop or flush: cpufreq policies are never torn down here")

struct kshim_kthread {
	struct task_struct *task;
	int (*threadfn)(void *data);
	void *data;
};

static struct kshim_kthread kthreads[NR_CPUS];
static unsigned int nr_kthreads;

/*
 * kthread_create_on_node(): kthreadd forks the thread, which runs kthread()
 * up to its first sleep and only calls threadfn once its creator wakes it.
 * Here the thread is made already asleep in that state (as
 * kshim_stopper_create() makes the stoppers), named, on the creating CPU.
 */
struct task_struct *kthread_create_on_node(int (*threadfn)(void *data), void *data,
					   int node, const char namefmt[], ...)
{
	struct kernel_clone_args args = { .exit_signal = 0 };
	struct task_struct *p;
	va_list ap;

	if (nr_kthreads >= ARRAY_SIZE(kthreads))
		return ERR_PTR(-ENOMEM);
	p = kshim_copy_task("kthread", true);
	if (!p || sched_fork(0, p))
		return ERR_PTR(-ENOMEM);
	va_start(ap, namefmt);
	vsnprintf(p->comm, sizeof(p->comm), namefmt, ap);
	va_end(ap);
	sched_cgroup_fork(p, &args);
	sched_post_fork(p);
	kshim_task_state(p) = TASK_UNINTERRUPTIBLE;
	kthreads[nr_kthreads++] = (struct kshim_kthread){ p, threadfn, data };
	return p;
}

#if KSHIM_HAS_HOUSEKEEPING_UPDATE
int kthreads_update_housekeeping(void)
{
	KSHIM_UNREACHABLE_HOUSEKEEPING(kthreads_update_housekeeping);
}
#endif

/* __kthread_bind_mask(): the thread is asleep, so no wait is needed. */
void kthread_bind_mask(struct task_struct *k, const struct cpumask *mask)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&k->pi_lock, flags);
	set_cpus_allowed_force(k, mask);
	k->flags |= PF_NO_SETAFFINITY;
	raw_spin_unlock_irqrestore(&k->pi_lock, flags);
}

int kthread_stop(struct task_struct *k)
{
	KSHIM_NO_TEARDOWN();
}

bool kthread_should_stop(void)
{
	return false;
}

/* Nothing stops or parks the workers: the kernel lives as long as the run. */
bool kthread_should_stop_or_park(void)
{
	return false;
}

void __kthread_init_worker(struct kthread_worker *worker, const char *name,
			   struct lock_class_key *key)
{
	memset(worker, 0, sizeof(*worker));
	raw_spin_lock_init(&worker->lock);
	INIT_LIST_HEAD(&worker->work_list);
	INIT_LIST_HEAD(&worker->delayed_work_list);
}

/* The thread function the worker threads are made with; its loop is
 * worker_pass(), run by kshim_run_kthread(). */
int kthread_worker_fn(void *worker_ptr)
{
	shim_fatal("kthread_worker_fn() called directly: its passes are kshim_run_kthread()'s");
}

/*
 * kthread_queue_work(): a work not already queued (or being cancelled)
 * joins the worker's list, and the worker is woken unless it is busy
 * with another work (it will find this one on its next pass).
 */
bool kthread_queue_work(struct kthread_worker *worker, struct kthread_work *work)
{
	unsigned long flags;
	bool queued = false;

	raw_spin_lock_irqsave(&worker->lock, flags);
	if (list_empty(&work->node) && !work->canceling) {
		WARN_ON_ONCE(work->worker && work->worker != worker);
		list_add_tail(&work->node, &worker->work_list);
		work->worker = worker;
		if (!worker->current_work && worker->task)
			wake_up_process(worker->task);
		queued = true;
	}
	raw_spin_unlock_irqrestore(&worker->lock, flags);
	return queued;
}

void kthread_flush_worker(struct kthread_worker *worker)
{
	KSHIM_NO_TEARDOWN();
}

bool kthread_cancel_work_sync(struct kthread_work *work)
{
	KSHIM_NO_TEARDOWN();
}

/*
 * One pass of kthread_worker_fn()'s loop, as the worker thread, current on
 * its CPU: the worker records its task, runs the works queued, one at a
 * time, then sleeps until kthread_queue_work() wakes it.
 */
static void worker_pass(struct kthread_worker *worker)
{
	WARN_ON_ONCE(worker->task && worker->task != current);
	worker->task = current;
	for (;;) {
		struct kthread_work *work = NULL;

		raw_spin_lock_irq(&worker->lock);
		if (!list_empty(&worker->work_list)) {
			work = list_first_entry(&worker->work_list, struct kthread_work, node);
			list_del_init(&work->node);
		}
		worker->current_work = work;
		raw_spin_unlock_irq(&worker->lock);
		if (!work)
			break;
		work->func(work);
	}
	set_current_state(TASK_INTERRUPTIBLE);
	schedule();
}

/* A kernel thread made here is current on this CPU: its function's next
 * pass. Returns whether one was. */
bool kshim_run_kthread(void)
{
	unsigned int i;

	if (!(current->flags & PF_KTHREAD))	/* most visits: a user task */
		return false;
	for (i = 0; i < nr_kthreads; i++) {
		if (kthreads[i].task != current)
			continue;
		if (kthreads[i].threadfn != kthread_worker_fn)
			shim_fatal("a kernel thread with a function the harness cannot run became current");
		int cost = kshim_cost_enter(KSHIM_COST_KTHREAD);

		worker_pass(kthreads[i].data);
		kshim_cost_leave(cost);
		return true;
	}
	return false;
}

/*
 * init_idle() marks the idle task per-CPU; the stoppers are bound to their
 * CPU too. "Bound to one CPU" stands for the KTHREAD_IS_PER_CPU flag; it
 * would also hold for a sugov thread of a one-CPU policy, which the kernel
 * does not flag, but core.c asks only about CPUs online and not active
 * (hotplug), which never happens here.
 */
void kthread_set_per_cpu(struct task_struct *k, int cpu)
{
	WARN_ON_ONCE(!(k->flags & PF_KTHREAD));
}

bool kthread_is_per_cpu(struct task_struct *p)
{
	return (p->flags & PF_KTHREAD) && p->nr_cpus_allowed == 1;
}

/* No task is a workqueue worker (PF_WQ_WORKER is never set). */
void wq_worker_running(struct task_struct *task)
{
}

void wq_worker_sleeping(struct task_struct *task)
{
}

void print_worker_info(const char *log_lvl, struct task_struct *task)
{
}
