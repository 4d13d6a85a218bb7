// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/time/tick-sched.c, as far as the scheduler sees it (NO_HZ_IDLE):
 * an idle CPU stops its tick, which registers it for fair.c's nohz idle
 * balancing (nohz_balance_enter_idle()) and freezes its share of the load
 * average; the tick restarts when the CPU leaves idle. The idle-loop entry
 * points are idle.c's callers; kshim_cpu_idle() in sched/glue/drive.c calls
 * them in do_idle()'s order. There is no clockevent: the harness does not
 * interrupt a CPU whose tick is stopped.
 */
struct rq;	/* linux/sched/nohz.h names it without declaring it */

#include <linux/percpu.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/nohz.h>
#include <linux/smp.h>
#include <linux/tick.h>

#include <kshim/api.h>

struct tick_state {
	bool inidle;
	bool tick_stopped;
	bool got_idle_tick;
	unsigned long idle_calls;
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
	__this_cpu_write(tick_state.inidle, true);
}

/*
 * __tick_nohz_idle_stop_tick(). tick_nohz_next_event() keeps the tick when
 * a timer-wheel timer is due within one tick; with high-resolution timers
 * hrtimers program the clock event themselves and do not count, and the
 * compiled code arms no timer-wheel timer, so the next event is never
 * within a tick here.
 */
void tick_nohz_idle_stop_tick(void)
{
	struct tick_state *ts = this_cpu_ptr(&tick_state);
	int cpu = smp_processor_id();

	ts->idle_calls++;
	if (!ts->tick_stopped) {
		calc_load_nohz_start();
		ts->tick_stopped = true;
		/* only when the tick goes from running to stopped */
		nohz_balance_enter_idle(cpu);
	}
}

void tick_nohz_idle_retain_tick(void)
{
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

	ts->inidle = false;
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
