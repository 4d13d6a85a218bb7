// SPDX-License-Identifier: GPL-2.0
/*
 * Inter-processor interrupts and the work they carry (kernel/smp.c), and
 * the per-CPU stopper threads (kernel/stop_machine.c).
 *
 * kernel/smp.c is compiled; this is the architecture below it. An IPI is
 * a pending bit per CPU; the harness's settle loop (cpu.c) delivers it on
 * the target CPU as the interrupt would: the call-single queue is flushed
 * there (generic_smp_call_function_single_interrupt(): function calls,
 * irq_work queued from another CPU, remote wake-ups queued by
 * ttwu_queue_wakelist()), then scheduler_ipi(). Nothing runs on the target
 * CPU before it is delivered, unless a CPU spins waiting for it
 * (kshim_cpu_relax()).
 *
 * A stopper is a real task of stop_sched_class (sched_set_stop_task()), so
 * that active balancing preempts the task it wants to move, as on hardware.
 * Its body runs when the settle loop finds it current.
 */
#include <linux/completion.h>
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

#include <kshim/cost.h>
#include <kshim/sched.h>
#include <kshim/compat/sched.h>
#include <kshim/compat/stop_machine.h>
#include "shim.h"

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

static unsigned long ipi_pending[BITS_TO_LONGS(NR_CPUS)];

/* IPIs whose call-single queue no spinning CPU has run yet
 * (kshim_cpu_relax()); cpu_relax() is a plain barrier while there are none. */
static unsigned long ipi_unrelaxed[BITS_TO_LONGS(NR_CPUS)];
int kshim_unrelaxed_ipis;

/*
 * When each CPU's pending IPI reaches it: its sender's clock when sent,
 * plus the interconnect's delivery time (kshim_ipi_latency_ns, set by the
 * board). One handler runs everything queued for the CPU, so it starts no
 * earlier than the last of the IPIs it answers was sent.
 */
static u64 ipi_arrives_at[NR_CPUS];
unsigned long long kshim_ipi_latency_ns;

static void raise_ipi(int cpu)
{
	u64 at = kshim_cpu_clock(smp_processor_id()) + kshim_ipi_latency_ns;

	if (!test_bit(cpu, ipi_pending) || at > ipi_arrives_at[cpu])
		ipi_arrives_at[cpu] = at;
	set_bit(cpu, ipi_pending);
	if (!test_and_set_bit(cpu, ipi_unrelaxed))
		kshim_unrelaxed_ipis++;
	kshim_settle_mark(cpu);
}

/* The next CPU from cpu whose IPI, with a call queue no CPU has run yet,
 * reached it by t; -1 if none. Not taken: kshim_take_ipi_queue(). */
int kshim_ipi_queue_due(int cpu, unsigned long long t)
{
	for (cpu = find_next_bit(ipi_unrelaxed, nr_cpu_ids, cpu); cpu < nr_cpu_ids;
	     cpu = find_next_bit(ipi_unrelaxed, nr_cpu_ids, cpu + 1))
		if (ipi_arrives_at[cpu] <= t)
			return cpu;
	return -1;
}

unsigned long long kshim_ipi_arrival(int cpu)
{
	return ipi_arrives_at[cpu];
}

void kshim_take_ipi_queue(int cpu)
{
	if (test_and_clear_bit(cpu, ipi_unrelaxed))
		kshim_unrelaxed_ipis--;
}

/* The next CPU from cpu on whose IPI a spinning CPU may run, -1 if none. */
int kshim_take_unrelaxed_ipi(int cpu)
{
	cpu = find_next_bit(ipi_unrelaxed, nr_cpu_ids, cpu);
	if (cpu >= nr_cpu_ids)
		return -1;
	__clear_bit(cpu, ipi_unrelaxed);
	kshim_unrelaxed_ipis--;
	return cpu;
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

/* Delivers this CPU's IPI, if one is pending; returns whether it was. */
bool kshim_deliver_ipi(void)
{
	int cost;

	if (!test_and_clear_bit(smp_processor_id(), ipi_pending))
		return false;
	kshim_cpu_clock_raise(smp_processor_id(), ipi_arrives_at[smp_processor_id()]);
	if (test_and_clear_bit(smp_processor_id(), ipi_unrelaxed))
		kshim_unrelaxed_ipis--;
	/* arm64's handle_IPI(): IPI_CALL_FUNC, then IPI_RESCHEDULE (one
	 * pending bit carries both) */
	cost = kshim_cost_enter(KSHIM_COST_IPI);
	generic_smp_call_function_single_interrupt();
	scheduler_ipi();
	kshim_cost_leave(cost);
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
	kshim_task_state(p) = TASK_INTERRUPTIBLE;
	cpumask_copy(&p->cpus_mask, cpumask_of(cpu));
	p->nr_cpus_allowed = 1;
	p->thread_info.cpu = cpu;
	p->wake_cpu = cpu;
	sched_set_stop_task(cpu, p);
}

kshim_stop_one_cpu_nowait_t stop_one_cpu_nowait(unsigned int cpu, cpu_stop_fn_t fn, void *arg,
						 struct cpu_stop_work *work_buf)
{
	*work_buf = (struct cpu_stop_work){ .fn = fn, .arg = arg };
	kshim_cpu_stop_work_set_caller(work_buf, _RET_IP_);
	list_add_tail(&work_buf->list, &stoppers[cpu].works);
	wake_up_process(stoppers[cpu].thread);
	return KSHIM_STOP_ONE_CPU_NOWAIT_QUEUED;
}

/*
 * stop_one_cpu(): fn on cpu's stopper while the caller waits for it, as
 * kernel/stop_machine.c's does (its cpu_stop_done in the completion and
 * fn's return below). 5.10's __set_cpus_allowed_ptr() moves a running task
 * with it (sched_init_smp() moving init off isolcpus=); later trees queue
 * without waiting there (affine_move_task()).
 */
struct sync_stop {
	cpu_stop_fn_t fn;
	void *arg;
	int ret;
	struct completion done;
};

static int sync_stop_fn(void *data)
{
	struct sync_stop *stop = data;

	stop->ret = stop->fn(stop->arg);
	complete(&stop->done);
	return 0;
}

int stop_one_cpu(unsigned int cpu, cpu_stop_fn_t fn, void *arg)
{
	struct sync_stop stop = { .fn = fn, .arg = arg };
	struct cpu_stop_work work;

	init_completion(&stop.done);
	stop_one_cpu_nowait(cpu, sync_stop_fn, &stop, &work);
	wait_for_completion(&stop.done);
	return stop.ret;
}

void print_stop_info(const char *log_lvl, struct task_struct *task)
{
}

/* cpu_stopper_thread(): runs the queued works, then sleeps. Called when
 * the stopper is current on this CPU; returns whether it was. */
bool kshim_run_stopper(void)
{
	struct cpu_stopper *stopper = &stoppers[smp_processor_id()];

	int cost;

	if (current != stopper->thread)
		return false;
	cost = kshim_cost_enter(KSHIM_COST_KTHREAD);
	while (!list_empty(&stopper->works)) {
		struct cpu_stop_work *work =
			list_first_entry(&stopper->works, struct cpu_stop_work, list);

		list_del_init(&work->list);
		work->fn(work->arg);
	}
	set_current_state(TASK_INTERRUPTIBLE);
	kshim_cost_enter(KSHIM_COST_SCHEDULE);
	schedule();
	kshim_cost_leave(cost);
	return true;
}

/*
 * smp_init() (kernel/smp.c) is not run: glue/boot.c brings the CPUs up as
 * the architecture's SMP boot does. What it would call is unreachable.
 */
void bringup_nonboot_cpus(unsigned int setup_max_cpus)
{
	BUG();
}

void __init smp_cpus_done(unsigned int max_cpus)
{
	BUG();
}

void __init cpuhp_threads_init(void)
{
	BUG();
}
