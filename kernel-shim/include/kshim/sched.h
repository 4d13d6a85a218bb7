/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler as the harness drives it: the entry points the rest of a
 * kernel (fork, the timer interrupt, IPIs, a task blocking) uses, and read
 * access to what the scheduler decided. Plain C types only, like api.h.
 *
 * Everything here runs "on" a CPU: the glue sets smp_processor_id() and
 * current to that CPU's before entering kernel code, the way an interrupt or
 * a system call enters it on real hardware. Implemented in sched/glue/entry.c
 * (tasks, boot, queries), kernel-shim/glue/cpu.c (interrupts, idle, settle)
 * and the export units.
 */
#ifndef KSHIM_SCHED_H
#define KSHIM_SCHED_H

#include <kshim/api.h>	/* struct kshim_cpuset */

#ifdef __cplusplus
extern "C" {
#endif

/* --- boot (called by glue/boot.c in init/main.c's order) --------------- */
void kshim_sched_init(void);		/* sched_init() */
void kshim_sched_rest_init(void);	/* init (pid 1) forked, boot task goes idle */
void kshim_sched_cpu_up(int cpu);	/* idle task, sched_cpu_starting/activate */
void kshim_sched_init_smp(void);	/* sched_init_smp(): first sched domains */
void kshim_sched_boot_done(void);	/* init leaves the CPU to the workload */

/* Attaches the harness's probes to the scheduler's and cpufreq's
 * tracepoints (sched/glue/trace_probes.c); events reach shim_trace(). */
int kshim_sched_trace_attach(void);
/* The tracepoints only a trace file shows: PELT and util_est (they fire
 * at every load update) and cpu_idle (every idle entry and exit). Their
 * events are recorded only if record_events: with kernel time they are
 * attached either way, since their dispatch takes time. */
int kshim_sched_trace_attach_trace_only(int record_events);

/* --- time: the clock every CPU reads (sched_clock(), ktime_get()) ------- */
unsigned long long kshim_now(void);
/* Advances time to now_ns (never backwards) and jiffies with it. */
void kshim_set_now(unsigned long long now_ns);

/* --- tasks ------------------------------------------------------------- */
/* fork() by a parent running on `cpu` whose CPU affinity is `cpus` (the
 * child inherits it, as from a taskset'd launcher): copy_process()'s
 * scheduler steps (sched_fork, sched_cgroup_fork, sched_post_fork), then
 * wake_up_new_task(). Returns the pid (> 0) or a negative errno. */
int kshim_task_fork(const char *comm, int cpu, const struct kshim_cpuset *cpus);
/* setpriority(): set_user_nice(). */
int kshim_task_set_nice(int pid, int nice);
/* sched_setaffinity(): set_cpus_allowed_ptr() with a mask of CPUs.
 * -EBUSY when the task is running on a CPU the mask leaves out: the kernel
 * would then block the caller in wait_for_completion() until the stopper
 * has moved the task, and kernel code cannot be suspended mid-function
 * here. Narrow the affinity at fork or while the task sleeps. */
int kshim_task_set_affinity(int pid, const struct kshim_cpuset *cpus);
/* sched_setattr() keeping policy and nice, with SCHED_FLAG_UTIL_CLAMP_MIN|MAX
 * (-1: leave as is) and any other flags (a patch's own). */
int kshim_task_setattr(int pid, int util_min, int util_max, unsigned int flags);
/* try_to_wake_up() issued on waker_cpu (an interrupt or another task
 * there). Returns 1 if the task was woken, 0 if it was not sleeping. */
int kshim_task_wake(int pid, int waker_cpu);
/* try_to_wake_up() by the expiry of the task's sleep in the hrtimer
 * interrupt the CPU handles (hrtimer_wakeup()): only from the harness's
 * sleep expiry (kernel.h's set_sleep_expiry()). */
int kshim_task_wake_in_irq(int pid);
/* The task, current on its CPU, blocks: TASK_INTERRUPTIBLE, schedule(). */
int kshim_task_sleep(int pid);
/* The task, current on its CPU, calls sched_yield(): yield(). */
int kshim_task_yield(int pid);
/* The task, current on its CPU, exits: do_task_dead(). */
int kshim_task_exit(int pid);
/* The range a sleep of the task's gets (hrtimer_nanosleep()): its
 * timer_slack_ns, in ns, or a negative errno. */
long long kshim_task_timer_slack(int pid);

/* fair.c's static decisions, reached through its export unit and run on
 * this_cpu as the waker: find_energy_efficient_cpu() (-1 when EAS does not
 * decide) and select_task_rq_fair() for a plain wake-up (WF_TTWU). Nothing
 * is moved. */
int kshim_feec(int pid, int prev_cpu, int this_cpu);
int kshim_select_task_rq_fair(int pid, int prev_cpu, int this_cpu);

struct kshim_task_info {
	int pid;
	int cpu;			/* task_cpu() */
	int on_rq;
	int running;			/* current on its CPU */
	int nice;
	int sched_class;		/* 0 stop, 1 dl, 2 rt, 3 fair, 4 idle */
	unsigned long util_avg;		/* se.avg.util_avg */
	unsigned long util_est;		/* se.avg.util_est.enqueued */
	unsigned long load_avg;
	unsigned long runnable_avg;
	unsigned long long sum_exec_runtime;
	unsigned long long nr_migrations;
	char comm[16];
};
int kshim_task_info(int pid, struct kshim_task_info *out);
/* Sets a sleeping task's PELT utilization as if it had run that much
 * (util_avg, runnable_avg, util_est; sums rebuilt; its cfs_rq's blocked
 * utilization adjusted by fair.c's own detach/attach), for tests that start
 * from a known signal. -EBUSY while the task is queued. */
int kshim_task_set_util(int pid, unsigned long util);

/* --- CPUs -------------------------------------------------------------- */
/* TICK_NSEC: the period of the timer interrupt (CONFIG_HZ). */
unsigned long long kshim_tick_nsec(void);
/* The timer interrupt on cpu: scheduler_tick(), then the softirqs it
 * raised (SCHED_SOFTIRQ: fair.c's run_rebalance_domains()), then the
 * return to the interrupted task (schedule() if it must reschedule). */
void kshim_cpu_tick(int cpu);
/* The timer interrupts of cpus (in CPU order), all at this instant: with
 * kernel time, concurrently, interleaved in clock order at their outermost
 * spinlock acquisitions (docs/kernel-time.md); without, one after another
 * as kshim_cpu_tick() each. */
void kshim_cpus_tick(const int *cpus, int n);
/* An hrtimer interrupt on cpu between ticks: the expired hrtimers (the
 * kernel's, then the user tasks' sleeps: shim_expire_user_sleeps()), then
 * the return to the interrupted task. */
void kshim_cpu_timers(int cpu);
/* The hrtimer interrupts of cpus (in CPU order) at this instant, as
 * kshim_cpus_tick() runs ticks. */
void kshim_cpus_timers(const int *cpus, int n);
/* From the harness's admission (kernel.h's set_entry_admission()):
 * kshim_cpu_timers(cpu) joins the running group, at this instant. */
void kshim_cpu_timers_admit(int cpu);
/* Whether a CPU outside the running group has work pending that only
 * kshim_settle() does, or work is queued: then no interrupt may join. */
int kshim_settle_pending_outside_group(void);
/* The idle task on cpu enters (1) or leaves (0) do_idle()'s loop: nohz
 * idle balance, tick_nohz_idle_enter(), then a pass of the loop up to the
 * wait for an interrupt, in which the kernel decides whether to stop the
 * tick; every interrupt that leaves the CPU idle runs the next pass. On
 * leaving, the tick restarts. tick_policy: KSHIM_IDLE_TICK_KERNEL (the
 * kernel decides), or RETAIN/STOP to override it for an experiment.
 * Call kshim_settle() after entering. */
#define KSHIM_IDLE_TICK_KERNEL	0
#define KSHIM_IDLE_TICK_RETAIN	1
#define KSHIM_IDLE_TICK_STOP	2
void kshim_cpu_idle(int cpu, int entering, int tick_policy);
/* When cpu can handle an interrupt that arrives now (ns): now, unless it
 * waits in an idle state, then once the state's exit latency has passed;
 * the first call for an interrupt starts that exit. */
unsigned long long kshim_cpu_interrupt_at(int cpu);
/* When a CPU leaving an idle state is out of it (ns), 0 if none is. */
unsigned long long kshim_cpu_waking_at(int cpu);
/* The CPUs (bit n: CPU n) whose kernel state may have changed since the
 * last call: those entered, interrupted or raised an IPI, softirq or
 * irq_work for, and those kshim_cpu_interrupt_at() started waking. What
 * the harness reads of a CPU (its idle state, hrtimers) can change only
 * for these; the call clears the set. */
int kshim_take_touched_cpus(struct kshim_cpuset *out);
/* The CPU's cpuidle states as its driver registered them, and how the
 * kernel counted their use (struct cpuidle_state_usage); 0 states when no
 * cpuidle driver is registered (the default idle path). */
#define KSHIM_MAX_IDLE_STATES	10
struct kshim_idle_state {
	char name[16];
	unsigned long long exit_latency_ns;
	unsigned long long target_residency_ns;
	unsigned long long usage;	/* entries */
	unsigned long long time_ns;	/* residency */
	unsigned long long above;	/* too deep: woken before its target residency */
	unsigned long long below;	/* too shallow: a deeper state would have fitted */
	unsigned long long rejected;
};
int kshim_cpu_idle_states(int cpu, struct kshim_idle_state *states, int max);
/* The idle state cpu waits in now, as the scheduler sees it
 * (idle_get_state(): rq->idle_state, which cpuidle_enter_state() sets
 * around the driver's enter callback): its index among the driver's
 * states; KSHIM_DEFAULT_IDLE when it waits on the default idle path
 * (arch_cpu_idle(), no cpuidle state); KSHIM_NOT_IDLE when it does not
 * wait. For the board's power model, which follows it. */
#define KSHIM_DEFAULT_IDLE	(-1)
#define KSHIM_NOT_IDLE		(-2)
int kshim_cpu_idle_state_now(int cpu);
/* The cpuidle governor in use ("" without cpuidle). */
const char *kshim_cpuidle_governor(void);
/* Whether cpu's tick is stopped (it is idle): the harness does not tick it. */
int kshim_tick_stopped(int cpu);
/* The earliest hrtimer expiry queued on cpu (ns), 0 if none. */
unsigned long long kshim_next_hrtimer(int cpu);
/* Runs every CPU's pending IPIs, softirqs, stopper work and reschedules
 * until nothing is pending. Call after every entry into the kernel. */
void kshim_settle(void);

struct kshim_cpu_info {
	int curr_pid;			/* 0: the idle task */
	unsigned int nr_running;	/* rq->nr_running */
	unsigned int cfs_nr_running;
	unsigned long cpu_capacity;	/* rq->cpu_capacity */
	unsigned long cpu_capacity_orig;
	unsigned long cfs_util_avg;	/* rq->cfs.avg.util_avg */
	unsigned long cfs_util_est;
	unsigned long long clock;	/* rq->clock */
	unsigned long long clock_task;
	unsigned long long clock_pelt;
	unsigned long long cfs_last_update;	/* rq->cfs.avg.last_update_time (PELT clock) */
	unsigned long thermal_load_avg;	/* rq->avg_thermal.load_avg */
	int need_resched;
};
void kshim_cpu_info(int cpu, struct kshim_cpu_info *out);

/* --- timers and the thermal framework ---------------------------------- */
/* Runs the timer_lists (delayed work) whose jiffy has come, their work
 * then queued (kernel-shim/glue/workqueue.c); the loop calls it at each
 * tick boundary, where jiffies moves. */
void kshim_run_timers(void);

/* Registers the thermal sensor (node path, sensor id) as its driver would:
 * thermal_of_zone_register() for the zone that reads it. The sensor's
 * index, or -ENODEV (disabled node), -ENODEV/-EINVAL from thermal_of.c
 * (thermal/glue/thermal.c). */
int kshim_thermal_add_sensor(const char *path, int id);
/* The window of its last ->set_trips(): an interrupt when the temperature
 * reaches low or high (-INT_MAX/INT_MAX: none). */
int kshim_thermal_sensor_window(int sensor, int *low, int *high);
/* The sensor's alarm interrupt: thermal_zone_device_update() of its zone. */
void kshim_thermal_sensor_interrupt(int sensor);
struct kshim_thermal_zone {
	char type[20];		/* THERMAL_NAME_LENGTH: the zone node's name */
	char governor[20];
	int id;
	int temperature;	/* tz->temperature, mC, as last read */
	int num_trips;
	/* trips the core ignores: 6.1's trips_disabled (a trip at 0 mC), 6.12's
	 * at THERMAL_TEMP_INVALID */
	int nr_disabled_trips;
	unsigned int passive_delay_ms, polling_delay_ms;
	int enabled;
	int nr_instances;	/* cooling device bindings (thermal_instance) */
};
int kshim_thermal_zone(int sensor, struct kshim_thermal_zone *out);
/* The zone's governor, as a write to its sysfs policy file. */
int kshim_thermal_set_governor(int sensor, const char *name);
/* The thermal and cpufreq-limits tracepoints' probes (thermal/glue/thermal.c). */
int kshim_thermal_trace_attach(void);
/* The cooling device of cpu's policy (cpufreq_cooling.c), if it has one:
 * its thermal_cooling_device id, max state and present state. */
int kshim_cpufreq_cooling(int cpu, int *cdev_id, unsigned long *max_state, unsigned long *cur_state);
/* The capacity cpu's policy limit takes (6.12's cpufreq_get_pressure(), set
 * when the limits change: a cooling device's cap); 0 on 6.1, whose cooling
 * devices set the thermal pressure instead. */
unsigned long kshim_cpu_cpufreq_pressure(int cpu);

/* --- root domain, sched domains, perf domains, EAS --------------------- */
int kshim_sched_energy_enabled(void);	/* sched_energy_enabled() */
int kshim_rd_overutilized(int cpu);	/* READ_ONCE(rq->rd->overutilized) */
/* The scheduler's PELT average of the CPU's thermal pressure
 * (rq->avg_thermal.load_avg, updated by update_thermal_load_avg()). */
unsigned long kshim_cpu_thermal_load_avg(int cpu);
int kshim_rd_has_perf_domains(int cpu);

struct kshim_sched_domain {
	char name[16];			/* sd->name: SMT, CLS, MC, DIE */
	struct kshim_cpuset span;	/* sched_domain_span() */
	int flags;			/* SD_* */
	int level;
	struct kshim_cpuset groups[KSHIM_MAX_CPUS];	/* each group's span, in order */
	int nr_groups;
};
/* The domains of cpu from the lowest level up; returns how many. */
int kshim_sched_domains(int cpu, struct kshim_sched_domain *out, int max);
/* SD_* flag names, as include/linux/sched/sd_flags.h lists them. */
const char *kshim_sd_flag_name(int bit);

/* The root domain's perf domains (rd->pd): the CPU masks, in list order. */
int kshim_perf_domains(int cpu, struct kshim_cpuset *spans, int max);

/* --- the kernel's own configuration interfaces ------------------------- */
/* The command line: kshim_parse_cmdline() in api.h. */
/* sysctl write "kernel.name=value" through the registered ctl_table's
 * proc_handler. -ENOENT: no such sysctl; other negative: the handler's. */
int kshim_sysctl_write(const char *name, const char *value);
int kshim_sysctl_read(const char *name, char *buf, int size);
/* Names of the registered sysctls ("kernel.sched_energy_aware"), one by one. */
const char *kshim_sysctl_name(int index);
/* debug.c's sched_feat_set(): "UTIL_EST" or "NO_UTIL_EST". */
int kshim_sched_feat_set(const char *name, int enable);
int kshim_sched_feat_get(const char *name);	/* 1, 0, or -ENOENT */
const char *kshim_sched_feat_name(int index);

/* --- frequency --------------------------------------------------------- */
/* policy->cur of the policy the CPU belongs to (kHz), 0 if none. */
unsigned int kshim_cpufreq_cur(int cpu);
/* cpuinfo.max_freq of the CPU's policy (kHz), 0 if none. */
unsigned int kshim_cpufreq_max(int cpu);
/* Clock changes the driver's fast switch made (firmware domains). */
unsigned long long kshim_cpufreq_fast_switches(int cpu);
/* The other clock changes: the driver's ->target_index(), from schedutil's
 * sugov kthread (the slow path) or boot's initial frequency check. */
unsigned long long kshim_cpufreq_slow_switches(int cpu);
int kshim_cpufreq_fast_switch_enabled(int cpu);
const char *kshim_cpufreq_governor(int cpu);
/* A CPU's policy as platform show reports it (glue/cpufreq.c). */
struct kshim_cpufreq_policy {
	const char *driver;			/* the registered cpufreq driver */
	unsigned int policy_cpu;
	struct kshim_cpuset related_cpus;
	unsigned int transition_latency_ns;	/* cpuinfo's, as the driver set it */
	int eternal;				/* it is CPUFREQ_ETERNAL */
	unsigned long clock_latency_ns;		/* dev_pm_opp_get_max_clock_latency() */
	unsigned long voltage_latency_ns;	/* dev_pm_opp_get_max_volt_latency() */
	unsigned int transition_delay_us;	/* the driver's, 0: none */
	unsigned int rate_limit_us;		/* cpufreq_policy_transition_delay_us() */
	int fast_switch;			/* fast_switch_enabled */
	int governor_per_policy;		/* have_governor_per_policy() */
	unsigned int min_khz, max_khz;
};
int kshim_cpufreq_policy(int cpu, struct kshim_cpufreq_policy *out);	/* -ENODEV: none */
/* schedutil's rate_limit_us tunable for the CPU's policy; 0 if not schedutil. */
unsigned int kshim_sugov_rate_limit_us(int cpu);
/* How many times the hardware was asked to change the CPU's clock. */
unsigned long long kshim_clock_changes(int cpu);

#ifdef __cplusplus
}
#endif

#endif
