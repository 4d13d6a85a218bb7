// SPDX-License-Identifier: GPL-2.0
/*
 * How the rest of a kernel drives the scheduler, for the harness: the
 * places where fork, the timer interrupt, IPIs, the idle loop and a task
 * that blocks or exits enter kernel/sched/. Every decision is taken by the
 * compiled core.c/fair.c/...; this file only enters them on the right CPU,
 * in the right context, in the order hardware and the kernel would.
 *
 * A CPU "executes" kernel code when smp_processor_id() and current are its
 * own: enter_cpu() sets both. There are no stacks: __switch_to() changes
 * what current is, and __schedule() returns to whoever called it, which is
 * what the code after switch_to() does on the next task's stack anyway.
 *
 * Simplified on purpose (and said where it matters):
 *  - the timer interrupt runs hrtimers and scheduler_tick(); the rest of
 *    update_process_times() (cputime accounting, timer wheel, RCU) has no
 *    scheduler-visible effect here and is left out;
 *  - the return to a task after an interrupt reschedules when
 *    need_resched() is set (exit_to_user_mode_loop(), and the idle loop's
 *    exit to schedule_idle() for the idle task);
 *  - NO_HZ_IDLE: an idle CPU stops its tick or keeps it as do_idle()
 *    decides (kshim_cpu_idle()); CPUs whose tick is stopped are not
 *    ticked, and fair.c's nohz idle balancing, kicked from busy CPUs'
 *    ticks by IPI, balances for them.
 */
#include "../export/build_policy_headers.h"

#include <linux/sched/init.h>
#include <linux/sched/task.h>
#include <linux/sched/signal.h>
#include <uapi/linux/sched/types.h>
#include <linux/tick.h>
#include <linux/cpuidle.h>
#include <trace/events/power.h>

#include <kshim/sched.h>
#include "../../kernel-shim/glue/shim.h"
#include "series.h"

/* On hardware __schedule() does not return to a dead task; core_export.c. */
void kshim_do_task_dead(void);

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

/* A struct cpumask as the harness reads it, and back. */
static void cpuset_from_mask(struct kshim_cpuset *out, const unsigned long *mask)
{
	BUILD_BUG_ON(NR_CPUS > KSHIM_MAX_CPUS);
	memset(out, 0, sizeof(*out));
	bitmap_to_arr64(out->bits, mask, nr_cpu_ids);
}

int kshim_take_touched_cpus(struct kshim_cpuset *out)
{
	if (!touched_any) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	cpuset_from_mask(out, touched_cpus);
	bitmap_zero(touched_cpus, NR_CPUS);
	touched_any = false;
	return 1;
}

static void switch_cpu(int cpu)
{
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

/* ----------------------------------------------------------------------- */

/*
 * cpu_startup_entry() (kernel/sched/idle.c) up to its endless do_idle()
 * loop, run as the CPU's idle task: PF_IDLE makes is_idle_task() true for
 * it (init_idle() does not set it in 6.1), so update_rq_clock_pelt() keeps
 * an idle CPU's clock_pelt in step with clock_task and
 * migrate_se_pelt_lag() sees idle CPUs. The loop itself is what
 * kshim_cpu_idle() does each time the CPU goes idle.
 */
static void idle_task_startup(int cpu, enum cpuhp_state state)
{
	struct task_struct *saved_current = shim_current;
	int saved_cpu = shim_cpu;

	shim_cpu = cpu;
	shim_current = idle_task(cpu);
	current->flags |= PF_IDLE;
	arch_cpu_idle_prepare();
	cpuhp_online_idle(state);
	shim_cpu = saved_cpu;
	shim_current = saved_current;
}

/*
 * smp_init() for one CPU: its idle task (fork_idle() -> init_idle(); the
 * boot CPU's is init_task, set up by sched_init()) and its stopper, then
 * the scheduler's hotplug steps as the CPU comes up.
 */
void kshim_sched_cpu_up(int cpu)
{
	if (cpu) {
		struct task_struct *idle = kshim_copy_task("swapper", true);
		int cpu_save = shim_cpu;

		BUG_ON(!idle);
		snprintf(idle->comm, sizeof(idle->comm), "swapper/%d", cpu);
		idle->pid = 0;
		init_idle(idle, cpu);
		shim_cpu = cpu_save;
		kshim_stopper_create(cpu);
	}
	enter_cpu(cpu);
	sched_cpu_starting(cpu);
	set_cpu_online(cpu, true);
	/* secondary_start_kernel() ends in cpu_startup_entry(); the boot CPU's
	 * idle task gets there at the end of rest_init(). */
	if (cpu)
		idle_task_startup(cpu, CPUHP_AP_ONLINE_IDLE);
	sched_cpu_activate(cpu);
}

void kshim_sched_init(void)
{
	shim_cpu = 0;
	shim_current = &init_task;
	sched_init();
}

static struct task_struct *init_process;

/*
 * rest_init(): the boot task forks init (pid 1, user_mode_thread(): no
 * PF_KTHREAD, no mm until it execs), binds it to the boot CPU, and
 * schedules, becoming CPU 0's idle task. The rest of boot runs as init.
 */
void kshim_sched_rest_init(void)
{
	struct kernel_clone_args args = { .exit_signal = SIGCHLD };
	struct task_struct *p = kshim_copy_task("init", true);

	BUG_ON(!p);
	p->flags &= ~PF_KTHREAD;
	BUG_ON(sched_fork(0, p));
	sched_cgroup_fork(p, &args);
	sched_post_fork(p);
	wake_up_new_task(p);
	p->flags |= PF_NO_SETAFFINITY;
	set_cpus_allowed_ptr(p, cpumask_of(0));
	init_process = p;
	schedule_idle();	/* schedule_preempt_disabled() from the idle task */
	BUG_ON(current != p);
	/* the boot task, now CPU 0's idle task, ends rest_init() there */
	idle_task_startup(0, CPUHP_ONLINE);
}

void kshim_sched_init_smp(void)
{
	enter_cpu(0);
	sched_init_smp();
}

/* Boot is over: init has "exec'd" userspace, which waits for the harness's
 * workload to be started. */
void kshim_sched_boot_done(void)
{
	enter_cpu(0);
	BUG_ON(current != init_process);
	set_current_state(TASK_INTERRUPTIBLE);
	schedule();
	kshim_settle();
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
	if (!need_resched())
		return;
	if (is_idle_task(current)) {
		flush_smp_call_function_queue();
		schedule_idle();
	} else {
		schedule();
	}
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

/* arm64's cpu_do_idle() (arch/arm64/kernel/idle.c): dsb, wfi. WFI wakes
 * within a few cycles: no latency is charged. */
void noinstr cpu_do_idle(void)
{
	kshim_idle_wait(0, 0);
}

static void idle_loop_pass(int cpu)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);

	unsigned long flags;

	if (need_resched())
		return;
	flags = arch_local_save_flags();
	local_irq_disable();
	arch_cpu_idle_enter();
	il->waiting = false;
	shim_idle_stack_call(cpu, idle_call, il);
	enter_cpu(cpu);
	/* the interrupt state is each stack's own */
	arch_local_irq_restore(flags);
}

unsigned long long kshim_cpu_interrupt_at(int cpu)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);
	u64 now = ktime_get_ns();

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

int kshim_cpu_idle_state_now(int cpu)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);
	struct cpuidle_state *state;
	struct cpuidle_driver *drv;

	if (!il->waiting)
		return KSHIM_NOT_IDLE;
	state = idle_get_state(cpu_rq(cpu));
	drv = cpuidle_get_cpu_driver(per_cpu(cpuidle_devices, cpu));
	if (!state || !drv || state < drv->states || state >= drv->states + drv->state_count)
		return KSHIM_DEFAULT_IDLE;
	return state - drv->states;
}

/*
 * Whether cpu can take an interrupt now; if it waited in an idle state and
 * is out of it, its idle call resumes and returns first. The first call
 * for an interrupt starts the exit from the state.
 */
static bool idle_interrupt_ready(int cpu)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);
	unsigned long flags;

	if (!il->waiting)
		return true;
	if (kshim_cpu_interrupt_at(cpu) > ktime_get_ns())
		return false;
	enter_cpu(cpu);
	flags = arch_local_save_flags();
	if (shim_idle_stack_resume(cpu))
		shim_fatal("the idle call waited again before the interrupt that woke it");
	enter_cpu(cpu);
	arch_local_irq_restore(flags);
	return true;
}

/* Back from an interrupt into do_idle()'s loop: the next pass, unless the
 * CPU must reschedule (then the loop ends: resched_if_needed()). */
static void idle_loop_after_interrupt(void)
{
	struct idle_loop *il = this_cpu_ptr(&idle_loop);

	if (!il->in_loop || !is_idle_task(current))
		return;
	il->got_tick = tick_nohz_idle_got_tick();
	arch_cpu_idle_exit();
	idle_loop_pass(smp_processor_id());
}

void kshim_cpu_idle(int cpu, int entering, int tick_policy)
{
	struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);

	enter_cpu(cpu);
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
			il->awake_at = ktime_get_ns();
			idle_interrupt_ready(cpu);
		}
		il->in_loop = false;
		tick_nohz_idle_exit();
	}
}

/* ----------------------------------------------------------------------- */

/* tick_handle_periodic() / tick_sched_timer(), as the scheduler sees them */
static void tick_interrupt(void)
{
	kshim_tick_sched_timer();
	kshim_run_hrtimers();
	kshim_sched_tick();
	/* the user tasks' sleeps queue behind the tick's own hrtimer */
	shim_expire_user_sleeps(smp_processor_id());
}

void kshim_cpu_tick(int cpu)
{
	enter_cpu(cpu);
	if (!idle_interrupt_ready(cpu)) {
		this_cpu_ptr(&idle_loop)->tick_pending = true;
		return;
	}
	/* a tick still pending from the exit is this one: one timer interrupt */
	this_cpu_ptr(&idle_loop)->tick_pending = false;
	kshim_irq_enter();
	tick_interrupt();
	kshim_irq_exit();
	idle_loop_after_interrupt();
	resched_if_needed();
}

void kshim_cpu_timers(int cpu)
{
	enter_cpu(cpu);
	if (!idle_interrupt_ready(cpu))
		return;
	kshim_irq_enter();
	kshim_run_hrtimers();
	shim_expire_user_sleeps(cpu);
	kshim_irq_exit();
	idle_loop_after_interrupt();
	resched_if_needed();
}

/* Something for cpu to do that an idle CPU must wake up for. */
static bool interrupt_pending(int cpu)
{
	/* irq_work raises a self-IPI (arch_irq_work_raise()) */
	return kshim_ipi_pending(cpu) || kshim_softirq_pending(cpu) ||
	       kshim_irq_work_pending(cpu) || per_cpu_ptr(&idle_loop, cpu)->tick_pending;
}

/* A bound on rounds: a CPU that never stops rescheduling is a kernel hang. */
#define SETTLE_MAX_ROUNDS	100000

void kshim_settle(void)
{
	int rounds = 0;
	bool busy;

	/* CPUs in an idle state with an interrupt they cannot take yet */
	static DECLARE_BITMAP(exiting, NR_CPUS);

	do {
		int cpu;

		busy = false;
		/* in CPU order, as a poll would: a CPU marked while a lower one
		 * runs is seen in this round, one below it in the next */
		for (cpu = find_first_bit(settle_cpus, nr_cpu_ids); cpu < nr_cpu_ids;
		     cpu = find_next_bit(settle_cpus, nr_cpu_ids, cpu + 1)) {
			struct idle_loop *il = per_cpu_ptr(&idle_loop, cpu);
			bool ran = false;

			__clear_bit(cpu, settle_cpus);
			if (!cpu_online(cpu))
				continue;
			switch_cpu(cpu);
			/* a CPU in an idle state does nothing until it is out */
			if (il->waiting && (!interrupt_pending(cpu) || !idle_interrupt_ready(cpu))) {
				if (interrupt_pending(cpu))
					__set_bit(cpu, exiting);
				continue;
			}
			/* what arrived while it left its idle state, at once */
			if (interrupt_pending(cpu)) {
				kshim_irq_enter();
				if (il->tick_pending) {
					il->tick_pending = false;
					tick_interrupt();
				}
				kshim_deliver_ipi();
				kshim_irq_exit();
				idle_loop_after_interrupt();
				ran = true;
			}
			if (need_resched_on(cpu)) {
				resched_if_needed();
				ran = true;
			}
			if (kshim_run_stopper() || kshim_run_kthread())
				ran = true;
			if (ran) {
				busy = true;
				__set_bit(cpu, settle_cpus);	/* look again next round */
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

/* ----------------------------------------------------------------------- */

/* A set of CPUs as the harness passes it; NULL: every possible CPU. */
static void cpumask_from_set(struct cpumask *mask, const struct kshim_cpuset *cpus)
{
	if (!cpus) {
		cpumask_copy(mask, cpu_possible_mask);
		return;
	}
	cpumask_clear(mask);
	bitmap_from_arr64(cpumask_bits(mask), cpus->bits, nr_cpu_ids);
}

int kshim_task_fork(const char *comm, int cpu, const struct kshim_cpuset *cpus)
{
	struct kernel_clone_args args = { .exit_signal = SIGCHLD };
	struct task_struct *p;
	int ret;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	enter_cpu(cpu);
	p = kshim_copy_task(comm, false);
	if (!p)
		return -ENOMEM;
	cpumask_from_set(&p->cpus_mask, cpus);
	cpumask_and(&p->cpus_mask, &p->cpus_mask, cpu_possible_mask);
	if (cpumask_empty(&p->cpus_mask))
		return -EINVAL;
	p->nr_cpus_allowed = cpumask_weight(&p->cpus_mask);
	ret = sched_fork(0, p);
	if (ret)
		return ret;
	sched_cgroup_fork(p, &args);
	sched_post_fork(p);
	wake_up_new_task(p);
	return p->pid;
}

int kshim_task_set_nice(int pid, int nice)
{
	struct task_struct *p = kshim_find_task(pid);

	if (!p)
		return -ESRCH;
	if (nice < MIN_NICE || nice > MAX_NICE)
		return -EINVAL;
	set_user_nice(p, nice);
	return 0;
}

int kshim_task_set_affinity(int pid, const struct kshim_cpuset *cpus)
{
	struct task_struct *p = kshim_find_task(pid);
	struct cpumask mask;

	if (!p)
		return -ESRCH;
	cpumask_from_set(&mask, cpus);
	if (task_on_cpu(task_rq(p), p) && !cpumask_test_cpu(task_cpu(p), &mask))
		return -EBUSY;
	return set_cpus_allowed_ptr(p, &mask);
}

int kshim_task_setattr(int pid, int util_min, int util_max, unsigned int flags)
{
	struct task_struct *p = kshim_find_task(pid);
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_NORMAL,
		.sched_flags = SCHED_FLAG_KEEP_ALL | flags,
	};

	if (!p)
		return -ESRCH;
	attr.sched_nice = task_nice(p);
	if (util_min >= 0) {
		attr.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MIN;
		attr.sched_util_min = util_min;
	}
	if (util_max >= 0) {
		attr.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MAX;
		attr.sched_util_max = util_max;
	}
	return sched_setattr_nocheck(p, &attr);
}

int kshim_task_wake(int pid, int waker_cpu)
{
	struct task_struct *p = kshim_find_task(pid);
	int ret;

	if (!p)
		return -ESRCH;
	if (waker_cpu < 0 || waker_cpu >= nr_cpu_ids)
		return -EINVAL;
	enter_cpu(waker_cpu);
	if (!is_idle_task(current))
		return wake_up_process(p);
	/* an idle CPU wakes a task from an interrupt: the task's timer */
	if (!idle_interrupt_ready(waker_cpu))
		return -EAGAIN;
	kshim_irq_enter();
	ret = wake_up_process(p);
	kshim_irq_exit();
	idle_loop_after_interrupt();
	return ret;
}

static int enter_as(struct task_struct *p)
{
	if (!p)
		return -ESRCH;
	enter_cpu(task_cpu(p));
	if (current != p)
		return -EBUSY;	/* only the running task can block or exit */
	return 0;
}

int kshim_task_sleep(int pid)
{
	struct task_struct *p = kshim_find_task(pid);
	int ret = enter_as(p);

	if (ret)
		return ret;
	set_current_state(TASK_INTERRUPTIBLE);
	schedule();
	return 0;
}

int kshim_task_yield(int pid)
{
	struct task_struct *p = kshim_find_task(pid);
	int ret = enter_as(p);

	if (ret)
		return ret;
	yield();
	return 0;
}

int kshim_task_exit(int pid)
{
	struct task_struct *p = kshim_find_task(pid);
	int ret = enter_as(p);

	if (ret)
		return ret;
	kshim_do_task_dead();
	return 0;
}

static int class_index(const struct sched_class *class)
{
	if (class == &stop_sched_class)
		return 0;
	if (class == &dl_sched_class)
		return 1;
	if (class == &rt_sched_class)
		return 2;
	if (class == &fair_sched_class)
		return 3;
	return 4;
}

/* hrtimer_wakeup(): the sleep's timer expired in the interrupt this CPU
 * handles (from shim_expire_user_sleeps()). */
int kshim_task_wake_in_irq(int pid)
{
	struct task_struct *p = kshim_find_task(pid);

	if (!p)
		return -ESRCH;
	if (WARN_ON_ONCE(!in_hardirq()))
		return -EINVAL;
	return wake_up_process(p);
}

/*
 * The slack hrtimer_nanosleep() gives a sleep of the task's: its
 * timer_slack_ns, 50 us from init_task, 0 once __setscheduler_params()
 * made it RT or DL.
 */
long long kshim_task_timer_slack(int pid)
{
	struct task_struct *p = kshim_find_task(pid);

	if (!p)
		return -ESRCH;
	return p->timer_slack_ns;
}

int kshim_task_info(int pid, struct kshim_task_info *out)
{
	struct task_struct *p = kshim_find_task(pid);

	if (!p)
		return -ESRCH;
	memset(out, 0, sizeof(*out));
	out->pid = p->pid;
	out->cpu = task_cpu(p);
	out->on_rq = p->on_rq;
	out->running = task_current(task_rq(p), p);
	out->nice = task_nice(p);
	out->sched_class = class_index(p->sched_class);
	out->util_avg = READ_ONCE(p->se.avg.util_avg);
	out->util_est = kshim_util_est(&p->se.avg);
	out->load_avg = READ_ONCE(p->se.avg.load_avg);
	out->runnable_avg = READ_ONCE(p->se.avg.runnable_avg);
	out->sum_exec_runtime = p->se.sum_exec_runtime;
	out->nr_migrations = p->se.nr_migrations;
	strscpy(out->comm, p->comm, sizeof(out->comm));
	return 0;
}

/* fair_export.c */
int kshim_fair_set_util(struct task_struct *p, unsigned long util);
int kshim_fair_find_energy_efficient_cpu(struct task_struct *p, int prev_cpu);
int kshim_fair_select_task_rq(struct task_struct *p, int prev_cpu, int wake_flags);

int kshim_feec(int pid, int prev_cpu, int this_cpu)
{
	struct task_struct *p = kshim_find_task(pid);

	if (!p)
		return -ESRCH;
	enter_cpu(this_cpu);
	return kshim_fair_find_energy_efficient_cpu(p, prev_cpu);
}

int kshim_select_task_rq_fair(int pid, int prev_cpu, int this_cpu)
{
	struct task_struct *p = kshim_find_task(pid);

	if (!p)
		return -ESRCH;
	enter_cpu(this_cpu);
	return kshim_fair_select_task_rq(p, prev_cpu, WF_TTWU);
}

int kshim_task_set_util(int pid, unsigned long util)
{
	struct task_struct *p = kshim_find_task(pid);

	return p ? kshim_fair_set_util(p, util) : -ESRCH;
}

void kshim_cpu_info(int cpu, struct kshim_cpu_info *out)
{
	struct rq *rq = cpu_rq(cpu);

	memset(out, 0, sizeof(*out));
	out->curr_pid = rq->curr->pid;
	out->nr_running = rq->nr_running;
	out->cfs_nr_running = kshim_cfs_h_nr(&rq->cfs);
	out->cpu_capacity = rq->cpu_capacity;
	out->cpu_capacity_orig = kshim_capacity_orig(rq);
	out->cfs_util_avg = READ_ONCE(rq->cfs.avg.util_avg);
	out->cfs_util_est = kshim_util_est(&rq->cfs.avg);
	out->clock = rq->clock;
	out->clock_task = rq->clock_task;
	out->clock_pelt = rq->clock_pelt;
	out->cfs_last_update = READ_ONCE(rq->cfs.avg.last_update_time);
	out->thermal_load_avg = READ_ONCE(kshim_rq_pressure_avg(rq)->load_avg);
	out->need_resched = test_tsk_need_resched(rq->curr);
}

/* ----------------------------------------------------------------------- */

int kshim_sched_energy_enabled(void)
{
	return sched_energy_enabled();
}

unsigned long kshim_cpu_thermal_load_avg(int cpu)
{
	return READ_ONCE(kshim_rq_pressure_avg(cpu_rq(cpu))->load_avg);
}

int kshim_rd_overutilized(int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->rd->overutilized);
}

int kshim_rd_has_perf_domains(int cpu)
{
	return rcu_access_pointer(cpu_rq(cpu)->rd->pd) != NULL;
}


int kshim_sched_domains(int cpu, struct kshim_sched_domain *out, int max)
{
	struct sched_domain *sd;
	int n = 0;

	for (sd = rcu_dereference_check_sched_domain(cpu_rq(cpu)->sd); sd && n < max;
	     sd = sd->parent, n++) {
		struct sched_group *sg = sd->groups;
		struct kshim_sched_domain *d = &out[n];

		memset(d, 0, sizeof(*d));
		strscpy(d->name, sd->name ?: "?", sizeof(d->name));
		cpuset_from_mask(&d->span, cpumask_bits(sched_domain_span(sd)));
		d->flags = sd->flags;
		d->level = sd->level;
		do {
			if (d->nr_groups < (int)ARRAY_SIZE(d->groups))
				cpuset_from_mask(&d->groups[d->nr_groups++], cpumask_bits(sched_group_span(sg)));
			sg = sg->next;
		} while (sg != sd->groups);
	}
	return n;
}

const char *kshim_sd_flag_name(int bit)
{
	return bit >= 0 && bit < __SD_FLAG_CNT ? sd_flag_debug[bit].name : NULL;
}

int kshim_perf_domains(int cpu, struct kshim_cpuset *spans, int max)
{
	struct perf_domain *pd = rcu_dereference_sched(cpu_rq(cpu)->rd->pd);
	int n = 0;

	for (; pd && n < max; pd = pd->next)
		cpuset_from_mask(&spans[n++], cpumask_bits(perf_domain_span(pd)));
	return n;
}
