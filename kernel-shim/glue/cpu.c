// SPDX-License-Identifier: GPL-2.0
/*
 * The fake machine's CPUs: how each takes interrupts (the tick, hrtimers,
 * IPIs, softirqs, irq_work), switches tasks, idles and wakes, as arch code
 * and the interrupt entry of a kernel do. Every decision is taken by the
 * compiled kernel (the tick, the idle loop's cpuidle governor, the
 * scheduler); this file only enters kernel code on the right CPU, in the
 * right context, in the order hardware would.
 *
 * A CPU "executes" kernel code when smp_processor_id() and current are its
 * own: enter_cpu() sets both. There are no stacks but the idle task's
 * (kernel-shim/src/idle_stack.cpp): __switch_to() changes what current is,
 * and __schedule() returns to whoever called it, which is what the code
 * after switch_to() does on the next task's stack anyway.
 *
 * Simplified on purpose (and said where it matters):
 *  - the timer interrupt runs hrtimers and the scheduler's tick; the rest
 *    of update_process_times() (cputime accounting, timer wheel, RCU) has
 *    no scheduler-visible effect here and is left out;
 *  - the return to a task after an interrupt reschedules when
 *    need_resched() is set (exit_to_user_mode_loop(), and the idle loop's
 *    exit to schedule_idle() for the idle task);
 *  - NO_HZ_IDLE: an idle CPU stops its tick or keeps it as do_idle()
 *    decides (kshim_cpu_idle()); CPUs whose tick is stopped are not
 *    ticked, and fair.c's nohz idle balancing, kicked from busy CPUs'
 *    ticks by IPI, balances for them.
 *
 * Like arch code it calls into the kernel's scheduler: it reads a CPU's
 * runqueue (its current task) through the tree's kernel/sched/sched.h, and
 * runs idle.c's cpuidle_idle_call() through the export unit that reaches
 * it (sched/export/policy_export.c), as arch code calls
 * cpu_startup_entry(). It calls no glue of sched/.
 */
#include <linux/sched/clock.h>
#include <linux/sched/cputime.h>
#include <linux/sched/hotplug.h>
#include <linux/sched/rt.h>
#include <linux/cpuidle.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
/* sched.h of 6.12 uses task_cpu_possible(); arm64's headers bring it in. */
#include <linux/mmu_context.h>
#include <uapi/linux/sched/types.h>
#include <linux/tick.h>
#include <linux/irq_work.h>
#include <linux/smp.h>
#include <linux/version.h>

/* the tree's kernel/sched/ headers: cpu_rq(), schedule_idle(), ... */
#include "sched.h"
#include "smp.h"

#include <kshim/cost.h>
#include <kshim/sched.h>
#include <kshim/compat/smp.h>
#include "shim.h"

/* the scheduler's tick, as update_process_times() calls it */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define kshim_sched_tick()	sched_tick()
#else
#define kshim_sched_tick()	scheduler_tick()
#endif

/*
 * The CPUs kshim_settle() looks at: those the harness entered and those
 * something was raised for since (an IPI, a softirq, irq_work). Any other
 * CPU has nothing to do, and visiting it, as a poll of every CPU would,
 * changes nothing: the cost of settling stays with the CPUs involved.
 */
static DECLARE_BITMAP(settle_cpus, NR_CPUS);
/* and for the harness, until it asks (kshim_take_touched_cpus()) */
static DECLARE_BITMAP(touched_cpus, NR_CPUS);
static bool touched_any;	/* most takes find none: no bitmap walk then */

void kshim_settle_mark(int cpu)
{
	__set_bit(cpu, settle_cpus);
	__set_bit(cpu, touched_cpus);
	touched_any = true;
}

void kshim_touch_cpu(int cpu)
{
	__set_bit(cpu, touched_cpus);
	touched_any = true;
}

int kshim_take_touched_cpus(struct kshim_cpuset *out)
{
	if (!touched_any) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	kshim_cpuset_from_mask(out, touched_cpus);
	bitmap_zero(touched_cpus, NR_CPUS);
	touched_any = false;
	return 1;
}

static void switch_cpu(int cpu)
{
	kshim_cost_mark();
	shim_cpu = cpu;
	shim_current = cpu_rq(cpu)->curr;
}

static void enter_cpu(int cpu)
{
	switch_cpu(cpu);
	kshim_settle_mark(cpu);
}

/* arch: the stack switch. Only current changes. */
struct task_struct *__switch_to(struct task_struct *prev, struct task_struct *next)
{
	shim_current = next;
	return prev;
}

void kshim_enter_cpu(int cpu)
{
	enter_cpu(cpu);
}

/*
 * A CPU spinning until another has run something for it (csd_lock_wait()
 * of a synchronous smp_call_function*(), irq_work_sync(), ...), while
 * some CPU has an IPI no spinner has seen (the fake arch's cpu_relax()
 * calls this only then). On hardware the other CPU takes its IPI
 * meanwhile; here one CPU's code runs at a time, so the spinner has the
 * function calls queued on the others run there now, as nested interrupts
 * at the IPIs' arrival on the other CPUs' clocks (on a CPU in an idle state
 * too, which on hardware would first leave it). Their IPIs stay pending: the CPUs still take them
 * (scheduler_ipi()) when the machine settles. A spin nothing can end is
 * left to the watchdog, which names the spinning function.
 */
/* What the running CPU runs, kept while other code runs in its place:
 * others' IPIs nested in it, or other CPUs' entries while it waits
 * (kshim_entry_interleave()). cost_kind is the kind it was counted as. */
struct running_cpu {
	int cpu;
	struct task_struct *curr;
	unsigned long irq_flags;
	int cost_kind;
};

static struct running_cpu running_now(int cost_kind)
{
	return (struct running_cpu){ shim_cpu, shim_current, shim_irq_flags, cost_kind };
}

/* Back to it: what ran in its place is credited to the CPU that ran it,
 * and what follows to this CPU, as its kind. */
static void resume_running(const struct running_cpu *running)
{
	kshim_cost_mark();
	shim_cpu = running->cpu;
	shim_current = running->curr;
	shim_irq_flags = running->irq_flags;
	kshim_cost_end(running->cost_kind);
}

static struct running_cpu nest_interrupts(void)
{
	return running_now(kshim_cost_enter(KSHIM_COST_IPI));
}

/* cpu takes the call-function part of its IPI at `at` on its clock, nested
 * in what the running CPU runs (nest_interrupts()). */
static void run_call_queue_on(int cpu, unsigned long long at)
{
	switch_cpu(cpu);
	kshim_cpu_clock_raise(cpu, at);
	kshim_irq_enter();
	generic_smp_call_function_single_interrupt();
	__preempt_count_sub(HARDIRQ_OFFSET);
	kshim_settle_mark(cpu);
}

void kshim_cpu_relax(void)
{
	const struct running_cpu running = nest_interrupts();
	int cpu = 0;

	while ((cpu = kshim_take_unrelaxed_ipi(cpu)) >= 0) {
		if (cpu != running.cpu && cpu_online(cpu))
			run_call_queue_on(cpu, kshim_ipi_arrival(cpu));
		cpu++;
	}
	resume_running(&running);
}


/* ----------------------------------------------------------------------- */

static bool need_resched_on(int cpu)
{
	return test_tsk_need_resched(cpu_rq(cpu)->curr);
}

/*
 * The way back from an interrupt or a wake-up to the task the CPU runs:
 * a user task goes through exit_to_user_mode_loop(), the idle task leaves
 * do_idle()'s loop; both reschedule when asked to.
 */
static void resched_if_needed(void)
{
	int cost;

	if (!need_resched())
		return;
	cost = kshim_cost_enter(KSHIM_COST_SCHEDULE);
	if (is_idle_task(current)) {
		flush_smp_call_function_queue();
		schedule_idle();
	} else {
		schedule();
	}
	kshim_cost_leave(cost);
}

unsigned long long kshim_tick_nsec(void)
{
	return TICK_NSEC;
}

/*
 * do_idle() (kernel/sched/idle.c), one pass of its loop at a time: the loop
 * itself cannot run here, because __schedule() at its end returns to the
 * harness rather than switching stacks. On entry nohz_run_idle_balance()
 * and tick_nohz_idle_enter(); each pass is arch_cpu_idle_enter() and
 * idle.c's own cpuidle_idle_call(got_tick), which picks the idle state
 * (the cpuidle governor where a driver is registered, else the default
 * path), stops or keeps the tick, and waits for an interrupt at its bottom
 * (arch_cpu_idle() or the driver's enter callback). The call runs on the
 * CPU's idle stack (kernel-shim/src/idle_stack.cpp): the wait returns to
 * the harness and the next interrupt resumes it, so that what the kernel
 * does after the wait (cpuidle_enter_state()'s residency, the governor's
 * reflect) runs at wake-up. Each interrupt that leaves the CPU without
 * need_resched() then reads got_tick = tick_nohz_idle_got_tick(), calls
 * arch_cpu_idle_exit() and runs the next pass.
 *
 * Leaving an idle state takes time (the hardware's, glue/psci.c): an
 * interrupt that arrives while the CPU waits in a state is handled once the
 * CPU has finished entering the state, if it had not, and left it.
 * Departure: the kernel enables interrupts inside cpuidle_enter_state(),
 * so the handler runs before the residency bookkeeping; here it runs after
 * the idle call returns. Nothing in between reads what the handler does.
 */
void kshim_cpuidle_idle_call(bool got_tick);	/* policy_export.c */

struct idle_loop {
	bool in_loop;		/* between do_idle()'s entry and its exit */
	bool got_tick;		/* do_idle()'s local of that name */
	bool waiting;		/* the idle call waits for an interrupt */
	bool tick_pending;	/* a tick arrived while it left its state */
	bool timers_pending;	/* an hrtimer interrupt did (kernel time only) */
	u64 entered_at;		/* when it is in the state it waits in */
	u64 exit_ns;		/* how long leaving that state takes */
	u64 awake_at;		/* when it is out of that state; 0: still in */
};
static DEFINE_PER_CPU(struct idle_loop, idle_loop);

static void idle_call(void *arg)
{
	struct idle_loop *il = arg;

	kshim_cpuidle_idle_call(il->got_tick);
}

/*
 * The wait for an interrupt at the bottom of the idle call: arm64's WFI
 * (cpu_do_idle(), arch/arm64/kernel/idle.c's arch_cpu_idle()) or a PSCI
 * CPU_SUSPEND (glue/psci.c), in a state the hardware takes entry_ns to
 * enter and exit_ns to leave. The idle task's stack returns to the harness
 * until an interrupt resumes it.
 */
void kshim_idle_wait(u64 entry_ns, u64 exit_ns)
{
	struct idle_loop *il = this_cpu_ptr(&idle_loop);
	int cpu = smp_processor_id();
	unsigned long flags = arch_local_save_flags();

	il->waiting = true;
	il->awake_at = 0;
	il->entered_at = ktime_get_ns() + entry_ns;
	il->exit_ns = exit_ns;
	shim_idle_stack_yield(cpu);
	/* back on this stack: the interrupt arrived, the CPU is out, its
	 * interrupts still masked as they were */
	il->waiting = false;
	enter_cpu(cpu);
	arch_local_irq_restore(flags);
}

void cpu_do_idle(void);	/* arm64's asm/proc-fns.h (arm: asm/proc-fns.h's macro) */

/* arch/arm64/kernel/idle.c (arch/arm/kernel/process.c without arm_pm_idle) */
void noinstr arch_cpu_idle(void)
{
	cpu_do_idle();
	raw_local_irq_enable();
}

/* arm64's cpu_do_idle() (arch/arm64/kernel/idle.c): dsb, wfi. Leaving it
 * takes the board's WFI exit latency (kshim/cost.h). */
unsigned long long kshim_wfi_exit_ns;

void noinstr cpu_do_idle(void)
{
	kshim_idle_wait(0, kshim_wfi_exit_ns);
}

static void idle_loop_pass(int cpu)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);
	unsigned long flags;
	int cost;

	if (need_resched())
		return;
	flags = arch_local_save_flags();
	cost = kshim_cost_enter(KSHIM_COST_IDLE);
	local_irq_disable();
	arch_cpu_idle_enter();
	il->waiting = false;
	shim_idle_stack_call(cpu, idle_call, il);
	kshim_cost_leave(cost);
	enter_cpu(cpu);
	/* the interrupt state is each stack's own */
	arch_local_irq_restore(flags);
}

unsigned long long kshim_cpu_interrupt_at(int cpu)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);
	u64 now = kshim_now();	/* the harness's: cpu's interrupt arrives now */

	if (!il->waiting)
		return now;
	if (!il->awake_at) {
		il->awake_at = max(now, il->entered_at) + il->exit_ns;
		kshim_touch_cpu(cpu);
	}
	return il->awake_at;
}

unsigned long long kshim_cpu_waking_at(int cpu)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);

	return il->waiting ? il->awake_at : 0;
}

bool kshim_cpu_in_idle_wait(int cpu)
{
	return per_cpu_ptr(&idle_loop, cpu)->waiting;
}

/*
 * Kernel code of two CPUs interleaved at lock acquisitions (kernel time,
 * docs/kernel-time.md): each CPU's entry runs to its end before another's,
 * but before a CPU that holds no spinlock takes one at time t on its
 * clock, the other CPUs whose IPIs reached them by t (and that are not
 * still running kernel code of their own past t, nor still leaving an
 * idle state) run their handler's call queue: the wake-ups queued on their
 * lists by ttwu_queue_wakelist(), the function calls. So a CPU waking
 * tasks one after another sees the earlier wakees on their runqueues once
 * their CPUs have taken them, as on hardware, rather than only after its
 * whole interrupt. Holding no spinlock, the running CPU cannot be in the
 * way of what the handlers lock. Their IPIs stay pending for the rest
 * (scheduler_ipi(), the reschedule), taken when the machine settles.
 */
static unsigned long long taken_at_locks;

unsigned long long kshim_ipis_taken_at_locks(void)
{
	return taken_at_locks;
}

void kshim_take_due_interrupts(unsigned long long t)
{
	static bool taking;
	struct running_cpu running;
	int cpu = 0;

	if (taking || !kshim_unrelaxed_ipis)
		return;
	taking = true;
	running = nest_interrupts();
	for (; (cpu = kshim_ipi_queue_due(cpu, t)) >= 0; cpu++) {
		struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);
		u64 at = max(kshim_ipi_arrival(cpu), kshim_cpu_clock(cpu));

		/* an entry of a concurrent group has its interrupts masked */
		if (cpu == running.cpu || !cpu_online(cpu) || shim_entry_suspended(cpu))
			continue;
		if (il->waiting)
			at = max(at, il->entered_at) + il->exit_ns;
		if (at > t)
			continue;
		kshim_take_ipi_queue(cpu);
		run_call_queue_on(cpu, at);
		taken_at_locks++;
	}
	resume_running(&running);
	taking = false;
}

/*
 * Whether cpu can take an interrupt now; if it waited in an idle state and
 * is out of it, its idle call resumes and returns first. The first call
 * for an interrupt starts the exit from the state.
 */
bool kshim_cpu_interrupt_ready(int cpu)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);
	unsigned long flags;
	int cost;

	if (!il->waiting)
		return true;
	if (kshim_cpu_interrupt_at(cpu) > kshim_now())
		return false;
	enter_cpu(cpu);
	flags = arch_local_save_flags();
	cost = kshim_cost_enter(KSHIM_COST_IDLE);
	if (shim_idle_stack_resume(cpu))
		shim_fatal("the idle call waited again before the interrupt that woke it");
	kshim_cost_leave(cost);
	enter_cpu(cpu);
	arch_local_irq_restore(flags);
	return true;
}

/* Back from an interrupt into do_idle()'s loop: the next pass, unless the
 * CPU must reschedule (then the loop ends: resched_if_needed()). */
void kshim_cpu_interrupt_return(void)
{
	struct idle_loop *il = this_cpu_ptr(&idle_loop);

	int cost;

	if (!il->in_loop || !is_idle_task(current))
		return;
	cost = kshim_cost_enter(KSHIM_COST_IDLE);
	il->got_tick = tick_nohz_idle_got_tick();
	arch_cpu_idle_exit();
	idle_loop_pass(smp_processor_id());
	kshim_cost_leave(cost);
}

void kshim_cpu_idle(int cpu, int entering, int tick_policy)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);
	int cost;

	enter_cpu(cpu);
	cost = kshim_cost_enter(KSHIM_COST_IDLE);
	if (entering) {
		/* its last idle call ended with the interrupt that woke it */
		WARN_ON_ONCE(il->waiting);
		kshim_tick_set_idle_policy(cpu, tick_policy);
		nohz_run_idle_balance(cpu);
		tick_nohz_idle_enter();
		il->in_loop = true;
		il->got_tick = false;
		idle_loop_pass(cpu);
	} else {
		/* leaving the loop ends the wait it was in, as an interrupt does */
		if (il->waiting) {
			il->awake_at = kshim_now();
			kshim_cpu_interrupt_ready(cpu);
		}
		il->in_loop = false;
		tick_nohz_idle_exit();
	}
	kshim_cost_leave(cost);
}

/* ----------------------------------------------------------------------- */

/* hrtimer_interrupt() between ticks: the kernel's expired hrtimers, then
 * the user tasks' sleeps */
static void run_timers_interrupt(int cpu)
{
	kshim_run_hrtimers();
	shim_expire_user_sleeps(cpu);
}

/* tick_handle_periodic() / tick_sched_timer(), as the scheduler sees them */
static void tick_interrupt(void)
{
	int cost = kshim_cost_enter(KSHIM_COST_TICK);

	kshim_tick_sched_timer();
	kshim_run_hrtimers();
	/* update_process_times(): the lazy irq_work, then the scheduler */
	irq_work_tick();
	kshim_sched_tick();
	/* the user tasks' sleeps queue behind the tick's own hrtimer */
	shim_expire_user_sleeps(smp_processor_id());
	kshim_cost_leave(cost);
}

void kshim_cpu_tick(int cpu)
{
	enter_cpu(cpu);
	if (!kshim_cpu_interrupt_ready(cpu)) {
		this_cpu_ptr(&idle_loop)->tick_pending = true;
		return;
	}
	/* a tick still pending from the exit is this one: one timer
	 * interrupt, which expires the hrtimers too */
	this_cpu_ptr(&idle_loop)->tick_pending = false;
	this_cpu_ptr(&idle_loop)->timers_pending = false;
	kshim_irq_enter();
	tick_interrupt();
	kshim_irq_exit();
	kshim_cpu_interrupt_return();
	resched_if_needed();
}

/*
 * Entries of several CPUs at one instant, concurrent in simulated time
 * (src/entry_stack.cpp): each starts with the kind of code and the
 * interrupt state the harness's entry had, and at each outermost spinlock
 * acquisition the one of the earliest clock goes on. The hrtimer
 * interrupts of later instants that the harness admits join the group
 * the same way (kshim_cpu_timers_admit()). Only with kernel time: without
 * it, every clock is the harness's and the entries run one after another
 * in CPU order, as before.
 */
static void (*group_fn)(int cpu);
static int group_cost_kind;
static unsigned long group_irq_flags;

static void run_entry(int cpu, void (*fn)(int cpu))
{
	shim_irq_flags = group_irq_flags;
	kshim_cost_end(group_cost_kind);
	fn(cpu);
	kshim_cost_begin(KSHIM_COST_NONE);
	/* the harness reads where its clock ended, as for any entry */
	kshim_touch_cpu(cpu);
}

static void group_entry(int cpu)
{
	run_entry(cpu, group_fn);
}

static void admitted_timers(int cpu)
{
	run_entry(cpu, kshim_cpu_timers);
}

void kshim_cpu_timers_admit(int cpu)
{
	shim_entries_add(cpu, admitted_timers);
}

static void run_concurrently(const int *cpus, int n, void (*fn)(int cpu), bool admit)
{
	/* alone, and with none to join it later, an entry has no one to let
	 * go first: no stack to switch to */
	if (n == 1 && !(admit && shim_entries_admitting())) {
		fn(cpus[0]);
		return;
	}
	group_fn = fn;
	group_irq_flags = shim_irq_flags;
	group_cost_kind = kshim_cost_begin(KSHIM_COST_NONE);
	shim_entries_run(cpus, n, group_entry, admit);
	shim_irq_flags = group_irq_flags;
	kshim_cost_end(group_cost_kind);
}

/* Before the running CPU takes a spinlock, holding none (cost.c). */
void kshim_entry_interleave(void)
{
	struct running_cpu saved;
	unsigned long long clock;
	int cpu = shim_cpu;

	/* not from an idle call's stack, nor another CPU's nested interrupt */
	if (!shim_entry_running_on(cpu) || shim_idle_stack_running())
		return;
	clock = kshim_cpu_clock(cpu);
	if (!shim_entry_should_yield(clock))
		return;
	saved = running_now(kshim_cost_begin(KSHIM_COST_NONE));
	shim_entry_yield(clock);
	resume_running(&saved);
}

void kshim_cpus_tick(const int *cpus, int n)
{
	run_concurrently(cpus, n, kshim_cpu_tick, true);
}

void kshim_cpus_timers(const int *cpus, int n)
{
	run_concurrently(cpus, n, kshim_cpu_timers, true);
}

void kshim_cpu_timers(int cpu)
{
	int cost;

	enter_cpu(cpu);
	/*
	 * With kernel time, a CPU can go back to an idle state, on its clock,
	 * after the harness found it ready for this interrupt (a group's
	 * earlier entries, or its settling, ran past that instant): the
	 * interrupt is then taken once the CPU is out (run_pending_timers()),
	 * rather than lost. Untimed, the harness calls this only on a CPU it
	 * found ready, or again while an hrtimer stays due.
	 */
	if (!kshim_cpu_interrupt_ready(cpu)) {
		if (kshim_cost_timed())
			this_cpu_ptr(&idle_loop)->timers_pending = true;
		return;
	}
	this_cpu_ptr(&idle_loop)->timers_pending = false;
	cost = kshim_cost_enter(KSHIM_COST_TICK);
	kshim_irq_enter();
	run_timers_interrupt(cpu);
	kshim_irq_exit();
	kshim_cost_leave(cost);
	kshim_cpu_interrupt_return();
	resched_if_needed();
}

/* Something for cpu to do that an idle CPU must wake up for. */
static bool interrupt_pending(int cpu)
{
	/* irq_work raises a self-IPI (arch_irq_work_raise()) */
	return kshim_ipi_pending(cpu) || kshim_softirq_pending(cpu) ||
	       kshim_irq_work_pending(cpu) || per_cpu_ptr(&idle_loop, cpu)->tick_pending ||
	       per_cpu_ptr(&idle_loop, cpu)->timers_pending;
}

/*
 * Whether a CPU outside the running group has something that only
 * kshim_settle() does for it (an IPI's reschedule, a softirq, a kthread,
 * the start of an idle exit) or work is queued: the loop runs that after
 * the group, at its time then, so no later interrupt may join the group
 * while it is pending (kernel.h's set_entry_admission()). A CPU already
 * leaving an idle state does nothing before it is out, an instant the
 * harness waits for.
 */
int kshim_settle_pending_outside_group(void)
{
	int cpu;

	if (kshim_work_pending())
		return 1;
	for_each_set_bit(cpu, settle_cpus, nr_cpu_ids) {
		struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);

		if (shim_entry_in_group(cpu) || !cpu_online(cpu))
			continue;
		if (il->waiting && (!interrupt_pending(cpu) || il->awake_at))
			continue;
		return 1;
	}
	return 0;
}

/* CPUs in an idle state with an interrupt they cannot take yet */
static DECLARE_BITMAP(exiting, NR_CPUS);

/* cpu's turn in a round of kshim_settle(): whether it ran anything. */
static bool settle_cpu(int cpu)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);
	bool ran = false;

	switch_cpu(cpu);
	/* a CPU in an idle state does nothing until it is out */
	if (il->waiting && (!interrupt_pending(cpu) || !kshim_cpu_interrupt_ready(cpu))) {
		if (interrupt_pending(cpu))
			__set_bit(cpu, exiting);
		return false;
	}
	/* what arrived while it left its idle state, at once */
	if (interrupt_pending(cpu)) {
		kshim_irq_enter();
		if (il->tick_pending) {
			/* the tick's interrupt expires the hrtimers too */
			il->tick_pending = false;
			il->timers_pending = false;
			tick_interrupt();
		} else if (il->timers_pending) {
			int cost = kshim_cost_enter(KSHIM_COST_TICK);

			il->timers_pending = false;
			run_timers_interrupt(cpu);
			kshim_cost_leave(cost);
		}
		kshim_deliver_ipi();
		kshim_deliver_irq_work();
		kshim_irq_exit();
		kshim_cpu_interrupt_return();
		ran = true;
	}
	if (need_resched_on(cpu)) {
		resched_if_needed();
		ran = true;
	}
	if (kshim_run_stopper() || kshim_run_kthread())
		ran = true;
	return ran;
}

/*
 * With kernel time, the CPUs of a round settle concurrently, as a group
 * of entries (src/entry_stack.cpp): their IPI handlers, their schedule()
 * and newidle balancing, their kthreads interleave in clock order at
 * their outermost lock acquisitions, so that two CPUs pulling from one
 * runqueue race by their clocks, not by their numbers. A CPU marked while
 * the round runs is seen in the next.
 */
static DECLARE_BITMAP(settle_ran, NR_CPUS);
static int settle_round_cpus[NR_CPUS];

static void settle_entry(int cpu)
{
	if (settle_cpu(cpu))
		__set_bit(cpu, settle_ran);
}

static bool settle_round_concurrently(void)
{
	int cpu, n = 0;
	bool ran;

	for_each_set_bit(cpu, settle_cpus, nr_cpu_ids) {
		__clear_bit(cpu, settle_cpus);
		if (cpu_online(cpu))
			settle_round_cpus[n++] = cpu;
	}
	if (!n)
		return false;
	run_concurrently(settle_round_cpus, n, settle_entry, false);
	ran = !bitmap_empty(settle_ran, nr_cpu_ids);
	bitmap_or(settle_cpus, settle_cpus, settle_ran, nr_cpu_ids);	/* look again */
	bitmap_zero(settle_ran, nr_cpu_ids);
	return ran;
}

/* A bound on rounds: a CPU that never stops rescheduling is a kernel hang. */
#define SETTLE_MAX_ROUNDS	100000

void kshim_settle(void)
{
	int rounds = 0;
	bool busy;

	do {
		int cpu;

		busy = false;
		if (kshim_cost_timed() && !shim_entries_active()) {
			busy = settle_round_concurrently();
		} else {
			/* in CPU order, as a poll would: a CPU marked while a
			 * lower one runs is seen in this round, one below it in
			 * the next */
			for (cpu = find_first_bit(settle_cpus, nr_cpu_ids); cpu < nr_cpu_ids;
			     cpu = find_next_bit(settle_cpus, nr_cpu_ids, cpu + 1)) {
				__clear_bit(cpu, settle_cpus);
				if (cpu_online(cpu) && settle_cpu(cpu)) {
					busy = true;
					__set_bit(cpu, settle_cpus);	/* look again next round */
				}
			}
		}
		if (++rounds > SETTLE_MAX_ROUNDS)
			shim_fatal("kernel hang: the CPUs kept rescheduling or interrupting each other");
		/* Process context last: queued work (kworkers), then the end of
		 * the grace period every CPU has now passed. */
		if (!busy && kshim_work_pending()) {
			enter_cpu(0);
			kshim_run_pending_work();
			busy = true;
		}
	} while (busy);
	bitmap_or(settle_cpus, settle_cpus, exiting, nr_cpu_ids);
	bitmap_zero(exiting, nr_cpu_ids);
	kshim_rcu_free_deferred();
}
