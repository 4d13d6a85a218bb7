// SPDX-License-Identifier: GPL-2.0
/*
 * Where the harness enters kernel/sched/: the scheduler's part of boot
 * (sched_init() to the end of rest_init(), each CPU's idle task), the
 * system calls of the workload's tasks (fork, nice, affinity, sched_setattr,
 * wake-ups, blocking, yield, exit), and what the harness reads of the
 * scheduler's state (runqueues, domains, perf domains, find_energy_
 * efficient_cpu()). Every decision is taken by the compiled
 * core.c/fair.c/...; this file enters them on the right CPU, in the right
 * context, through the CPU driver (kernel-shim/glue/cpu.c).
 */
#include "internal.h"

#include <linux/sched/init.h>
#include <linux/sched/task.h>
#include <linux/sched/signal.h>
#include <uapi/linux/sched/types.h>
#include <linux/cpuidle.h>

#include <kshim/sched.h>
#include <kshim/compat/bitmap.h>
#include <kshim/compat/preempt.h>
#include <kshim/compat/sched.h>
#include "../../kernel-shim/glue/shim.h"
#include "series.h"

/* On hardware __schedule() does not return to a dead task; core_export.c. */
void kshim_do_task_dead(void);

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
	kshim_enter_cpu(cpu);
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
	kshim_enter_cpu(0);
	sched_init_smp();
}

/* Boot is over: init has "exec'd" userspace, which waits for the harness's
 * workload to be started. */
void kshim_sched_boot_done(void)
{
	/* on CPU 0, unless sched_init_smp() moved it off an isolated CPU 0 */
	kshim_enter_cpu(task_cpu(init_process));
	BUG_ON(current != init_process);
	set_current_state(TASK_INTERRUPTIBLE);
	schedule();
	kshim_settle();
}

/* ----------------------------------------------------------------------- */

/* The idle state a CPU waits in, as the scheduler sees it (idle_get_state()). */
int kshim_cpu_idle_state_now(int cpu)
{
	struct cpuidle_state *state;
	struct cpuidle_driver *drv;

	if (!kshim_cpu_in_idle_wait(cpu))
		return KSHIM_NOT_IDLE;
	state = idle_get_state(cpu_rq(cpu));
	drv = cpuidle_get_cpu_driver(per_cpu(cpuidle_devices, cpu));
	if (!state || !drv || state < drv->states || state >= drv->states + drv->state_count)
		return KSHIM_DEFAULT_IDLE;
	return state - drv->states;
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
	kshim_enter_cpu(cpu);
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
	kshim_enter_cpu(waker_cpu);
	if (!is_idle_task(current))
		return wake_up_process(p);
	/* an idle CPU wakes a task from an interrupt: the task's timer */
	if (!kshim_cpu_interrupt_ready(waker_cpu))
		return -EAGAIN;
	kshim_irq_enter();
	ret = wake_up_process(p);
	kshim_irq_exit();
	kshim_cpu_interrupt_return();
	return ret;
}

static int enter_as(struct task_struct *p)
{
	if (!p)
		return -ESRCH;
	kshim_enter_cpu(task_cpu(p));
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
	struct sched_avg synced_from;
	int cpu;

	if (!p)
		return -ESRCH;
	kshim_enter_cpu(this_cpu);
	/*
	 * The call syncs the task's PELT signal (sync_entity_load_avg()),
	 * which select_task_rq_fair() then does again: undone, so that the
	 * kernel's own sync does the same work, and takes the same time,
	 * whether the harness asked or not.
	 */
	synced_from = p->se.avg;
	cpu = kshim_fair_find_energy_efficient_cpu(p, prev_cpu);
	p->se.avg = synced_from;
	return cpu;
}

int kshim_select_task_rq_fair(int pid, int prev_cpu, int this_cpu)
{
	struct task_struct *p = kshim_find_task(pid);

	if (!p)
		return -ESRCH;
	kshim_enter_cpu(this_cpu);
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

	for (sd = rcu_dereference_sched_domain(cpu_rq(cpu)->sd); sd && n < max;
	     sd = sd->parent, n++) {
		struct sched_group *sg = sd->groups;
		struct kshim_sched_domain *d = &out[n];

		memset(d, 0, sizeof(*d));
		strscpy(d->name, sd->name ?: "?", sizeof(d->name));
		kshim_cpuset_from_mask(&d->span, cpumask_bits(sched_domain_span(sd)));
		d->flags = sd->flags;
		d->level = sd->level;
		do {
			if (d->nr_groups < (int)ARRAY_SIZE(d->groups))
				kshim_cpuset_from_mask(&d->groups[d->nr_groups++], cpumask_bits(sched_group_span(sg)));
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
		kshim_cpuset_from_mask(&spans[n++], cpumask_bits(perf_domain_span(pd)));
	return n;
}
