// SPDX-License-Identifier: GPL-2.0
/*
 * Workqueues: queued work runs later, in order, when the harness drains
 * the queue (kshim_run_pending_work(), after boot and between simulation
 * events) - process context that does not preempt the code that queued it,
 * as on a real kernel.
 */
#include <linux/workqueue.h>
#include <linux/list.h>

#include "shim.h"

static struct workqueue_struct *the_wq = (struct workqueue_struct *)1;
struct workqueue_struct *system_wq __read_mostly;
struct workqueue_struct *system_highpri_wq __read_mostly;
struct workqueue_struct *system_long_wq __read_mostly;
struct workqueue_struct *system_unbound_wq __read_mostly;
struct workqueue_struct *system_freezable_wq __read_mostly;
struct workqueue_struct *system_power_efficient_wq __read_mostly;

static LIST_HEAD(pending);

void kshim_init_workqueues(void)
{
	system_wq = system_highpri_wq = system_long_wq = the_wq;
	system_unbound_wq = system_freezable_wq = system_power_efficient_wq = the_wq;
}

bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work)
{
	if (test_and_set_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(work)))
		return false;
	list_add_tail(&work->entry, &pending);
	return true;
}

void kshim_run_pending_work(void)
{
	while (!list_empty(&pending)) {
		struct work_struct *work = list_first_entry(&pending, struct work_struct, entry);

		list_del_init(&work->entry);
		clear_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(work));
		work->func(work);
	}
}
