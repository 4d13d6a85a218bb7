// SPDX-License-Identifier: GPL-2.0
/*
 * Inter-processor interrupts and the work they carry (kernel/smp.c), and
 * the per-CPU stopper threads (kernel/stop_machine.c).
 *
 * An IPI is a pending bit per CPU; the harness's settle loop
 * (cpu.c) delivers it on the target CPU as the interrupt
 * would: the call-single queue is flushed there (remote wake-ups queued by
 * ttwu_queue_wakelist(), asynchronous function calls), then
 * scheduler_ipi(). Nothing runs on the target CPU before it is delivered.
 *
 * A stopper is a real task of stop_sched_class (sched_set_stop_task()), so
 * that active balancing preempts the task it wants to move, as on hardware.
 * Its body runs when the settle loop finds it current.
 */
#include <linux/cpu.h>
#include <linux/interrupt.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/idle.h>
#include <linux/sched/task.h>
#include <linux/smp.h>
#include <linux/stop_machine.h>

#include <linux/version.h>

#include "shim.h"

/* kernel/sched/smp.h: what core.c offers kernel/smp.c. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
extern bool call_function_single_prep_ipi(int cpu);	/* kernel/smpboot.h */
#else
extern void send_call_function_single_ipi(int cpu);
#endif
extern void sched_ttwu_pending(void *arg);

unsigned int setup_max_cpus = NR_CPUS;

/*
 * kernel/cpu.c's table behind cpumask_of(): row n + 1 has only bit n of its
 * first word set; get_cpu_mask() points into it, back by cpu / BITS_PER_LONG
 * words for a CPU past the first word, into the rows before.
 */
static_assert(BITS_PER_LONG == 64);
#define CPU_ROW(n)	[(n) + 1] = { 1UL << (n) }
#define CPU_ROWS4(n)	CPU_ROW(n), CPU_ROW((n) + 1), CPU_ROW((n) + 2), CPU_ROW((n) + 3)
#define CPU_ROWS16(n)	CPU_ROWS4(n), CPU_ROWS4((n) + 4), CPU_ROWS4((n) + 8), CPU_ROWS4((n) + 12)
const unsigned long cpu_bit_bitmap[BITS_PER_LONG + 1][BITS_TO_LONGS(NR_CPUS)] = {
	CPU_ROWS16(0), CPU_ROWS16(16), CPU_ROWS16(32), CPU_ROWS16(48),
};

/* kernel/cpu.c: no CPU is ever frozen for suspend. */
bool cpuhp_tasks_frozen;

static DEFINE_PER_CPU(struct llist_head, call_single_queue);
static unsigned long ipi_pending[BITS_TO_LONGS(NR_CPUS)];

static void raise_ipi(int cpu)
{
	set_bit(cpu, ipi_pending);
	kshim_settle_mark(cpu);
}

void arch_send_call_function_single_ipi(int cpu)
{
	raise_ipi(cpu);
}

void arch_send_call_function_ipi_mask(const struct cpumask *mask)
{
	unsigned int cpu;

	for_each_cpu(cpu, mask)
		raise_ipi(cpu);
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
/* smp_send_reschedule() is a macro over it (with its tracepoint) */
void arch_smp_send_reschedule(int cpu)
#else
void smp_send_reschedule(int cpu)
#endif
{
	raise_ipi(cpu);
}

/* kernel/smp.c: queue, and interrupt the CPU if the queue was empty. */
void __smp_call_single_queue(int cpu, struct llist_node *node)
{
	if (!llist_add(node, &per_cpu(call_single_queue, cpu)))
		return;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	/* 6.12's send_call_function_single_ipi() is an inline of kernel/smp.c
	 * over core.c's: no IPI to a polling idle CPU */
	if (call_function_single_prep_ipi(cpu))
		arch_send_call_function_single_ipi(cpu);
#else
	send_call_function_single_ipi(cpu);
#endif
}

/* kernel/smp.c: run func on cpu, asynchronously (csd stays locked until
 * the target has run it). */
int smp_call_function_single_async(int cpu, struct __call_single_data *csd)
{
	if (csd->node.u_flags & CSD_FLAG_LOCK)
		return -EBUSY;
	csd->node.u_flags = CSD_FLAG_LOCK;
	if (cpu == smp_processor_id()) {
		smp_call_func_t func = csd->func;
		void *info = csd->info;

		smp_store_release(&csd->node.u_flags, 0);
		func(info);
		return 0;
	}
	__smp_call_single_queue(cpu, &csd->node.llist);
	return 0;
}

/*
 * kernel/smp.c's __flush_smp_call_function_queue(): function calls first,
 * then the remote wake-ups, handed to sched_ttwu_pending() as one list.
 */
void flush_smp_call_function_queue(void)
{
	struct llist_node *entry, *next, *ttwu = NULL, **ttwu_tail = &ttwu;
	struct llist_head *head = this_cpu_ptr(&call_single_queue);

	entry = llist_reverse_order(llist_del_all(head));
	for (; entry; entry = next) {
		struct __call_single_node *node =
			container_of(entry, struct __call_single_node, llist);
		unsigned int type = node->u_flags & CSD_FLAG_TYPE_MASK;

		next = entry->next;
		if (type == CSD_TYPE_TTWU) {
			entry->next = NULL;
			*ttwu_tail = entry;
			ttwu_tail = &entry->next;
		} else if (type == CSD_TYPE_SYNC || type == CSD_TYPE_ASYNC) {
			struct __call_single_data *csd = (struct __call_single_data *)node;
			smp_call_func_t func = csd->func;
			void *info = csd->info;

			smp_store_release(&csd->node.u_flags, 0);	/* csd_unlock() */
			func(info);
		} else {
			WARN(1, "IPI work of type %#x is not modelled\n", type);
		}
	}
	if (ttwu)
		sched_ttwu_pending(ttwu);
}

/* Delivers this CPU's IPI, if one is pending; returns whether it was. */
bool kshim_deliver_ipi(void)
{
	if (!test_and_clear_bit(smp_processor_id(), ipi_pending))
		return false;
	flush_smp_call_function_queue();
	scheduler_ipi();
	return true;
}

bool kshim_ipi_pending(int cpu)
{
	return test_bit(cpu, ipi_pending);
}

/* ----------------------------------------------------------------------- */

struct cpu_stopper {
	struct task_struct *thread;
	struct list_head works;
};
static struct cpu_stopper stoppers[NR_CPUS];

/*
 * smpboot's CPUHP_CREATE_THREADS step for cpu_stop_init()'s threads: the
 * CPU's stopper, bound to it, of the stop class. Forked as kthreadd would,
 * and left asleep as the thread leaves itself once it has started and
 * found no work.
 */
void kshim_stopper_create(int cpu)
{
	struct task_struct *p = kshim_copy_task("migration", true);

	BUG_ON(!p || sched_fork(0, p));
	snprintf(p->comm, sizeof(p->comm), "migration/%d", cpu);
	INIT_LIST_HEAD(&stoppers[cpu].works);
	stoppers[cpu].thread = p;
	p->__state = TASK_INTERRUPTIBLE;
	cpumask_copy(&p->cpus_mask, cpumask_of(cpu));
	p->nr_cpus_allowed = 1;
	p->thread_info.cpu = cpu;
	p->wake_cpu = cpu;
	sched_set_stop_task(cpu, p);
}

bool stop_one_cpu_nowait(unsigned int cpu, cpu_stop_fn_t fn, void *arg,
			 struct cpu_stop_work *work_buf)
{
	*work_buf = (struct cpu_stop_work){ .fn = fn, .arg = arg,
					    .caller = _RET_IP_ };
	list_add_tail(&work_buf->list, &stoppers[cpu].works);
	wake_up_process(stoppers[cpu].thread);
	return true;
}

/* Only reached through sched_setaffinity() of a running task and
 * migrate_swap(), neither of which the harness does. */
int stop_one_cpu(unsigned int cpu, cpu_stop_fn_t fn, void *arg)
{
	BUG();
}

void print_stop_info(const char *log_lvl, struct task_struct *task)
{
}

/* cpu_stopper_thread(): runs the queued works, then sleeps. Called when
 * the stopper is current on this CPU; returns whether it was. */
bool kshim_run_stopper(void)
{
	struct cpu_stopper *stopper = &stoppers[smp_processor_id()];

	if (current != stopper->thread)
		return false;
	while (!list_empty(&stopper->works)) {
		struct cpu_stop_work *work =
			list_first_entry(&stopper->works, struct cpu_stop_work, list);

		list_del_init(&work->list);
		work->fn(work->arg);
	}
	set_current_state(TASK_INTERRUPTIBLE);
	schedule();
	return true;
}

/*
 * kernel/smp.c: func on each CPU of mask for which cond says so, at once
 * (the callers, cpuidle's broadcast-timer setup, wait for it), with
 * smp_processor_id() that CPU's; current stays the caller's, as nothing
 * the callers run reads it.
 */
void on_each_cpu_cond_mask(smp_cond_func_t cond_func, smp_call_func_t func,
			   void *info, bool wait, const struct cpumask *mask)
{
	int this_cpu = shim_cpu, cpu;

	for_each_cpu_and(cpu, mask, cpu_online_mask) {
		if (cond_func && !cond_func(cpu, info))
			continue;
		shim_cpu = cpu;
		func(info);
	}
	shim_cpu = this_cpu;
}

void wake_up_all_idle_cpus(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		preempt_disable();
		if (cpu != smp_processor_id() && cpu_online(cpu))
			wake_up_if_idle(cpu);
		preempt_enable();
	}
}
