// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/time/tick-sched.c, as far as the scheduler sees it (NO_HZ_IDLE):
 * an idle CPU stops its tick, which registers it for fair.c's nohz idle
 * balancing (nohz_balance_enter_idle()) and freezes its share of the load
 * average; the tick restarts when the CPU leaves idle. The idle-loop entry
 * points are idle.c's callers; kshim_cpu_idle() in cpu.c calls
 * them in do_idle()'s order. There is no clockevent: the harness does not
 * interrupt a CPU whose tick is stopped.
 */
struct rq;	/* linux/sched/nohz.h names it without declaring it */

#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/nohz.h>
#include <linux/smp.h>
#include <linux/tick.h>
#include <linux/timekeeping.h>

#include <kshim/api.h>
#include <kshim/sched.h>
#include <kshim/compat/cputime.h>
#include <kshim/compat/isolation.h>

struct tick_state {
	bool inidle;
	bool tick_stopped;
	bool got_idle_tick;
	int idle_policy;	/* KSHIM_IDLE_TICK_*: an experiment's override */
	unsigned long idle_calls;
	/* tick-sched.c's idle accounting (get_cpu_idle_time_us()) */
	bool idle_active;
	ktime_t idle_entrytime;
	ktime_t idle_sleeptime;
};

static DEFINE_PER_CPU(struct tick_state, tick_state);

bool tick_nohz_tick_stopped(void)
{
	return __this_cpu_read(tick_state.tick_stopped);
}

int kshim_tick_stopped(int cpu)
{
	return per_cpu(tick_state, cpu).tick_stopped;
}

void tick_nohz_idle_enter(void)
{
	struct tick_state *ts = this_cpu_ptr(&tick_state);

	ts->inidle = true;
	/* tick_nohz_start_idle() */
	ts->idle_entrytime = ktime_get();
	ts->idle_active = true;
}

/*
 * __tick_nohz_idle_stop_tick(). tick_nohz_next_event() keeps the tick when
 * a timer-wheel timer is due within one tick; with high-resolution timers
 * hrtimers program the clock event themselves and do not count, and the
 * compiled code arms no timer-wheel timer, so the next event is never
 * within a tick here.
 */
static void stop_tick(struct tick_state *ts, int cpu)
{
	ts->idle_calls++;
	if (!ts->tick_stopped) {
		calc_load_nohz_start();
		ts->tick_stopped = true;
		/* only when the tick goes from running to stopped */
		nohz_balance_enter_idle(cpu);
	}
}

void tick_nohz_idle_stop_tick(void)
{
	struct tick_state *ts = this_cpu_ptr(&tick_state);

	if (ts->idle_policy != KSHIM_IDLE_TICK_RETAIN)
		stop_tick(ts, smp_processor_id());
}

void tick_nohz_idle_retain_tick(void)
{
	struct tick_state *ts = this_cpu_ptr(&tick_state);

	if (ts->idle_policy == KSHIM_IDLE_TICK_STOP)
		stop_tick(ts, smp_processor_id());
}

/*
 * Overrides idle.c's and the governor's choice to stop or keep the tick,
 * for experiments (run --idle-tick): RETAIN keeps it, STOP stops it on
 * every pass; KERNEL leaves the choice to the kernel.
 */
void kshim_tick_set_idle_policy(int cpu, int policy)
{
	per_cpu(tick_state, cpu).idle_policy = policy;
}

/* The CPU's next timer event, KTIME_MAX if none: its hrtimers and the
 * harness's timers of user tasks armed on it. */
static ktime_t next_timer_event(int cpu)
{
	u64 hrtimer = kshim_next_hrtimer(cpu), user = shim_cpu_next_timer(cpu);
	u64 next = KTIME_MAX;

	if (hrtimer)
		next = min(next, hrtimer);
	if (user)
		next = min(next, user);
	return next;
}

/* The tick device's next event: the tick while it runs, or an earlier timer. */
static ktime_t next_clock_event(struct tick_state *ts, int cpu, ktime_t now)
{
	ktime_t next = next_timer_event(cpu);

	if (!ts->tick_stopped)
		next = min_t(ktime_t, next, (now / TICK_NSEC + 1) * TICK_NSEC);
	return next;
}

/* tick_nohz_get_next_hrtimer(): the tick device's next event. */
ktime_t tick_nohz_get_next_hrtimer(void)
{
	int cpu = smp_processor_id();

	return next_clock_event(this_cpu_ptr(&tick_state), cpu, ktime_get());
}

/*
 * tick_nohz_get_sleep_length(): how long the CPU may sleep if it stops its
 * tick (until its next timer), and in *delta_next until the tick device's
 * next event (the tick, or an earlier timer). The cpuidle governor's
 * prediction starts from them. Differs from kernel/time/tick-sched.c:
 * "now" is the CPU's clock (kshim/cost.h) rather than the idle entry time; the do_timer CPU's timekeeping max deferment (an hour
 * or more with the arch timer) is not applied; there is no timer wheel
 * (hrtimers are high-resolution, and the compiled code arms no wheel timer).
 */
ktime_t tick_nohz_get_sleep_length(ktime_t *delta_next)
{
	struct tick_state *ts = this_cpu_ptr(&tick_state);
	int cpu = smp_processor_id();
	ktime_t now = ktime_get();

	WARN_ON_ONCE(!ts->inidle);
	*delta_next = next_clock_event(ts, cpu, now) - now;
	/* can_stop_idle_tick() */
	if (need_resched())
		return *delta_next;
	return next_timer_event(cpu) - now;
}

static void restart_tick(struct tick_state *ts)
{
	if (!ts->tick_stopped)
		return;
	calc_load_nohz_stop();
	ts->tick_stopped = false;
}

void tick_nohz_idle_restart_tick(void)
{
	restart_tick(this_cpu_ptr(&tick_state));
}

void tick_nohz_idle_exit(void)
{
	struct tick_state *ts = this_cpu_ptr(&tick_state);
	ktime_t now = ktime_get();

	ts->inidle = false;
	/* tick_nohz_stop_idle() */
	if (ts->idle_active && now > ts->idle_entrytime)
		ts->idle_sleeptime += now - ts->idle_entrytime;
	ts->idle_active = false;
	restart_tick(ts);
}

/* tick_sched_do_timer(): the tick notes that it interrupted the idle loop. */
void kshim_tick_sched_timer(void)
{
	struct tick_state *ts = this_cpu_ptr(&tick_state);

	if (ts->inidle)
		ts->got_idle_tick = true;
}

/* Whether the interrupt that woke the idle loop was the tick (cleared). */
bool tick_nohz_idle_got_tick(void)
{
	struct tick_state *ts = this_cpu_ptr(&tick_state);

	if (ts->got_idle_tick) {
		ts->got_idle_tick = false;
		return true;
	}
	return false;
}

unsigned long tick_nohz_get_idle_calls_cpu(int cpu)
{
	return per_cpu(tick_state, cpu).idle_calls;
}

/*
 * kernel/time/tick-sched.c: the idle time NO_HZ accounts, from the idle
 * loop's entry (tick_nohz_idle_enter()) to its exit, and the current
 * stretch of a CPU idle now, in microseconds at now. cpufreq.c's
 * get_cpu_idle_time() reads it for 5.10's cpufreq_cooling.c (the power
 * allocator's load of each CPU; 6.1 reads sched_cpu_util() instead) and
 * for the ondemand and conservative governors. Differs from tick-sched.c:
 * interrupts taken in the idle loop count as idle (tick_nohz_irq_enter()
 * stops the idle stretch for them), and "now" is the reading CPU's clock.
 * No task waits for I/O here: the iowait time is 0.
 */
#if !KSHIM_CPU_IDLE_TIME_IN_SCHED
u64 get_cpu_idle_time_us(int cpu, u64 *last_update_time)
{
	struct tick_state *ts = &per_cpu(tick_state, cpu);
	ktime_t now = ktime_get(), idle = ts->idle_sleeptime;

	if (last_update_time)
		*last_update_time = ktime_to_us(now);
	if (ts->idle_active && now > ts->idle_entrytime)
		idle += now - ts->idle_entrytime;
	return ktime_to_us(idle);
}

u64 get_cpu_iowait_time_us(int cpu, u64 *last_update_time)
{
	if (last_update_time)
		*last_update_time = ktime_to_us(ktime_get());
	return 0;
}
#endif

#if KSHIM_HAS_HOUSEKEEPING_UPDATE
/* kernel/time/timer_migration.c */
int tmigr_isolated_exclude_cpumask(struct cpumask *exclude_cpumask)
{
	KSHIM_UNREACHABLE_HOUSEKEEPING(tmigr_isolated_exclude_cpumask);
}
#endif
