// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/kthread.c and the workqueue worker hooks. The only kernel threads
 * are the idle tasks and the stoppers (glue/smp.c), made directly. The
 * kthread API the compiled files reference serves schedutil's slow path
 * (a sugov kthread per policy), which never runs here: every policy has
 * fast switching (glue/cpufreq.c). Reaching it is a bug in the harness.
 */
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "shim.h"

#define KSHIM_NO_KTHREADS() \
	shim_fatal("kthread API reached: only fast-switching cpufreq policies are modelled")

struct task_struct *kthread_create_on_node(int (*threadfn)(void *data), void *data,
					   int node, const char namefmt[], ...)
{
	KSHIM_NO_KTHREADS();
}

void kthread_bind_mask(struct task_struct *k, const struct cpumask *mask)
{
	KSHIM_NO_KTHREADS();
}

int kthread_stop(struct task_struct *k)
{
	KSHIM_NO_KTHREADS();
}

bool kthread_should_stop(void)
{
	KSHIM_NO_KTHREADS();
}

void __kthread_init_worker(struct kthread_worker *worker, const char *name,
			   struct lock_class_key *key)
{
	KSHIM_NO_KTHREADS();
}

int kthread_worker_fn(void *worker_ptr)
{
	KSHIM_NO_KTHREADS();
}

bool kthread_queue_work(struct kthread_worker *worker, struct kthread_work *work)
{
	KSHIM_NO_KTHREADS();
}

void kthread_flush_worker(struct kthread_worker *worker)
{
	KSHIM_NO_KTHREADS();
}

bool kthread_cancel_work_sync(struct kthread_work *work)
{
	KSHIM_NO_KTHREADS();
}

/*
 * init_idle() marks the idle task per-CPU; the stoppers are bound to their
 * CPU too. Exactly those kernel threads exist, so "bound to one CPU" is the
 * same test as the KTHREAD_IS_PER_CPU flag.
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
