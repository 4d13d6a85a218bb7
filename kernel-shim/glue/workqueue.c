// SPDX-License-Identifier: GPL-2.0
/*
 * Workqueues: queued work runs later, in order, when the harness drains
 * the queue (kshim_run_pending_work(), after boot and between simulation
 * events) - process context that does not preempt the code that queued it,
 * as on a real kernel.
 */
#include <linux/workqueue.h>
#include <linux/list.h>
#include <linux/timer.h>

#include "shim.h"

static struct workqueue_struct *the_wq = (struct workqueue_struct *)1;
struct workqueue_struct *system_wq __read_mostly;
struct workqueue_struct *system_percpu_wq __read_mostly;

static LIST_HEAD(pending);

void kshim_init_workqueues(void)
{
	system_wq = system_percpu_wq = the_wq;
}

bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work)
{
	if (test_and_set_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(work)))
		return false;
	list_add_tail(&work->entry, &pending);
	return true;
}

/*
 * Delayed work runs at the next drain: there is no simulated timer wheel
 * yet, so the delay is not honoured (the work still runs after its caller,
 * in order).
 */
bool queue_delayed_work_on(int cpu, struct workqueue_struct *wq, struct delayed_work *dwork,
			   unsigned long delay)
{
	return queue_work_on(cpu, wq, &dwork->work);
}

void delayed_work_timer_fn(struct timer_list *t)
{
	struct delayed_work *dwork = from_timer(dwork, t, timer);

	queue_work_on(dwork->cpu, dwork->wq, &dwork->work);
}

bool kshim_work_pending(void)
{
	return !list_empty(&pending);
}

void kshim_run_pending_work(void)
{
	while (!list_empty(&pending)) {
		struct work_struct *work = list_first_entry(&pending, struct work_struct, entry);

		list_del_init(&work->entry);
		clear_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(work));
		work->func(work);
	}
	kshim_rcu_free_deferred();
}
