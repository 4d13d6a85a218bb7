// SPDX-License-Identifier: GPL-2.0
/*
 * Time: one simulated clock in nanoseconds, which each CPU reads ahead by
 * what its kernel code has taken so far (sched_clock(), ktime_get():
 * kshim/cost.h's kshim_cpu_clock()), jiffies derived from it at CONFIG_HZ as the
 * tick would advance them, and high-resolution timers (kernel/time/
 * hrtimer.c) kept per CPU in the tree's own timerqueue and fired by the
 * harness when simulated time reaches them.
 */
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/time64.h>
#include <linux/timerqueue.h>

#include <kshim/compat/hrtimer.h>
#include <kshim/cost.h>
#include <kshim/sched.h>
#include "shim.h"

/* The harness's time; cost.c reads it at every crediting mark. */
u64 kshim_now_ns __attribute__((visibility("hidden")));

u64 __cacheline_aligned_in_smp jiffies_64 = INITIAL_JIFFIES;
unsigned long volatile __cacheline_aligned_in_smp jiffies = INITIAL_JIFFIES;

unsigned long long kshim_now(void)
{
	return kshim_now_ns;
}

void kshim_set_now(unsigned long long ns)
{
	if (WARN_ONCE(ns < kshim_now_ns, "simulated time went backwards: %llu < %llu\n", ns, kshim_now_ns))
		return;
	kshim_now_ns = ns;
	jiffies_64 = INITIAL_JIFFIES + div_u64(kshim_now_ns, TICK_NSEC);
	jiffies = (unsigned long)jiffies_64;
}

/* The running CPU's clock: the harness's time, plus what the kernel code
 * the CPU is still running has taken (kshim/cost.h). */
unsigned long long notrace sched_clock(void)
{
	return kshim_cpu_clock(shim_cpu);
}

ktime_t ktime_get(void)
{
	return ns_to_ktime(kshim_cpu_clock(shim_cpu));
}

unsigned long __msecs_to_jiffies(const unsigned int m)
{
	if ((int)m < 0)
		return MAX_JIFFY_OFFSET;
	return _msecs_to_jiffies(m);
}

/* kernel/time/time.c, for the non-negative times used here. */
struct timespec64 ns_to_timespec64(s64 nsec)
{
	struct timespec64 ts = { 0, 0 };
	u32 rem;

	if (likely(nsec > 0)) {
		ts.tv_sec = div_u64_rem(nsec, NSEC_PER_SEC, &rem);
		ts.tv_nsec = rem;
	}
	return ts;
}

/* kernel/time/hrtimer.c */
ktime_t ktime_add_safe(const ktime_t lhs, const ktime_t rhs)
{
	ktime_t res = ktime_add_unsafe(lhs, rhs);

	if (res < 0 || res < lhs || res < rhs)
		res = ktime_set(KTIME_SEC_MAX, 0);
	return res;
}

#if !KSHIM_JIFFIES_TO_MSECS_INLINE
unsigned int jiffies_to_msecs(const unsigned long j)
{
	return (MSEC_PER_SEC / HZ) * j;
}
#endif

/* kernel/time/time.c: HZ divides NSEC_PER_SEC for every HZ here */
u64 jiffies64_to_nsecs(u64 j)
{
	return (NSEC_PER_SEC / HZ) * j;
}

void jiffies_to_timespec64(const unsigned long j, struct timespec64 *value)
{
	*value = ns_to_timespec64((u64)j * TICK_NSEC);
}

/* ----------------------------------------------------------------------- */

/* One clock base a CPU (its CPU is its place in the array), and its queue. */
static struct hrtimer_clock_base hrtimer_bases[NR_CPUS] = {
	[0 ... NR_CPUS - 1] = KSHIM_HRTIMER_CLOCK_BASE_INIT
};
static kshim_hrtimer_queue hrtimer_queues[NR_CPUS];

static int base_cpu(const struct hrtimer_clock_base *base)
{
	return base - hrtimer_bases;
}

void kshim_init_hrtimers(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		kshim_hrtimer_queue_init(&hrtimer_queues[cpu]);
}

void hrtimer_setup(struct hrtimer *timer, enum hrtimer_restart (*function)(struct hrtimer *),
		   clockid_t clock_id, enum hrtimer_mode mode)
{
	memset(timer, 0, sizeof(*timer));
	kshim_hrtimer_node_init(&timer->node);
	timer->base = &hrtimer_bases[smp_processor_id()];
	timer->is_hard = !!(mode & HRTIMER_MODE_HARD);
	timer->is_soft = !!(mode & HRTIMER_MODE_SOFT);
	ACCESS_PRIVATE(timer, function) = function;
}

/* the same, for a timer on the caller's stack (idle injection's) */
void hrtimer_setup_on_stack(struct hrtimer *timer, enum hrtimer_restart (*function)(struct hrtimer *),
			    clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_setup(timer, function, clock_id, mode);
}

#if !KSHIM_HAS_HRTIMER_SETUP
void hrtimer_init(struct hrtimer *timer, clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_setup(timer, NULL, clock_id, mode);
}
#endif

#if KSHIM_HRTIMER_CB_GET_TIME_OUT_OF_LINE
ktime_t hrtimer_cb_get_time(const struct hrtimer *timer)
{
	return ktime_get();
}
#endif

static void dequeue(struct hrtimer *timer)
{
	if (kshim_hrtimer_queued(timer)) {
		kshim_hrtimer_queue_del(&hrtimer_queues[base_cpu(timer->base)], &timer->node);
		kshim_touch_cpu(base_cpu(timer->base));
		kshim_hrtimer_set_queued(timer, false);
	}
}

static void enqueue(struct hrtimer *timer, int cpu)
{
	kshim_hrtimer_set_queued(timer, true);
	kshim_hrtimer_queue_add(&hrtimer_queues[cpu], &timer->node);
}

/* Queued on the CPU that starts it, as hrtimer's switch_hrtimer_base()
 * does for a timer not pinned elsewhere. */
void hrtimer_start_range_ns(struct hrtimer *timer, ktime_t tim, u64 delta_ns,
			    const enum hrtimer_mode mode)
{
	dequeue(timer);
	if (mode & HRTIMER_MODE_REL)
		tim = ktime_add_safe(tim, ktime_get());
	hrtimer_set_expires_range_ns(timer, tim, delta_ns);
	timer->base = &hrtimer_bases[smp_processor_id()];
	enqueue(timer, base_cpu(timer->base));
	kshim_touch_cpu(base_cpu(timer->base));
}

int hrtimer_try_to_cancel(struct hrtimer *timer)
{
	if (timer->base && timer->base->running == timer)
		return -1;
	if (!kshim_hrtimer_queued(timer))
		return 0;
	dequeue(timer);
	return 1;
}

int hrtimer_cancel(struct hrtimer *timer)
{
	int ret = hrtimer_try_to_cancel(timer);

	BUG_ON(ret < 0);	/* a callback cancelling itself would spin forever */
	return ret;
}

bool hrtimer_active(const struct hrtimer *timer)
{
	return kshim_hrtimer_queued(timer) || (timer->base && timer->base->running == timer);
}

u64 hrtimer_forward(struct hrtimer *timer, ktime_t now, ktime_t interval)
{
	ktime_t delta = ktime_sub(now, hrtimer_get_expires(timer));
	u64 orun = 1;

	if (delta < 0)
		return 0;
	if (WARN_ON(kshim_hrtimer_queued(timer)))
		return 0;
	if (interval < hrtimer_resolution)
		interval = hrtimer_resolution;
	if (unlikely(delta >= interval)) {
		orun = ktime_divns(delta, interval);
		hrtimer_add_expires_ns(timer, interval * orun);
		if (hrtimer_get_expires(timer) > now)
			return orun;
		orun++;
	}
	hrtimer_add_expires(timer, interval);
	return orun;
}

/* The earliest expiry queued on cpu, or 0 when none is. */
unsigned long long kshim_next_hrtimer(int cpu)
{
	kshim_hrtimer_node *next = kshim_hrtimer_queue_first(&hrtimer_queues[cpu]);

	return next ? (unsigned long long)next->expires : 0;
}

/* __hrtimer_run_queues() for this CPU: every timer expired by now. */
void kshim_run_hrtimers(void)
{
	int cpu = smp_processor_id();
	struct hrtimer_clock_base *base = &hrtimer_bases[cpu];
	kshim_hrtimer_node *node;

	while ((node = kshim_hrtimer_queue_first(&hrtimer_queues[cpu])) &&
	       node->expires <= ktime_get()) {
		struct hrtimer *timer = container_of(node, struct hrtimer, node);
		enum hrtimer_restart restart;

		dequeue(timer);
		base->running = timer;
		restart = ACCESS_PRIVATE(timer, function)(timer);
		base->running = NULL;
		if (restart == HRTIMER_RESTART && !kshim_hrtimer_queued(timer))
			enqueue(timer, cpu);
	}
}

/*
 * kernel/time/timer.c's schedule_timeout(): the caller, its state set,
 * sleeps until the kernel wakes it (a completion's complete(), a stopper's
 * migration). Kernel code has one host stack here, so the sleep cannot be
 * left for later: the caller schedules, and the CPUs settle, nested in
 * its entry, until the scheduler makes the sleeper current again, on
 * whichever CPU it chose; the caller's code goes on there. This ends the
 * waits that the CPUs' own kernel work ends at this instant (a task moving
 * itself off an isolated CPU: affine_move_task()'s wait for the stopper).
 * A wait that only time or a workload event could end, and a timed sleep
 * (a task sleeping for a time is the harness's business, a workload
 * event), are kernel faults naming the sleeper.
 */
long schedule_timeout(long timeout)
{
	struct task_struct *sleeper = current;
	char text[256];

	if (timeout != MAX_SCHEDULE_TIMEOUT) {
		snprintf(text, sizeof(text), "schedule_timeout(%ld jiffies) reached: %s/%d sleeps for a "
			 "time in kernel code, which the harness cannot suspend", timeout, sleeper->comm,
			 task_pid_nr(sleeper));
		shim_fatal(text);
	}
	kshim_settle_mark(smp_processor_id());
	schedule();
	kshim_settle();
	if (!task_curr(sleeper)) {
		snprintf(text, sizeof(text), "%s/%d waits in kernel code (schedule_timeout()) for what "
			 "none of the CPUs' kernel work ends: only a later event could wake it, and the "
			 "harness cannot suspend kernel code mid-function", sleeper->comm,
			 task_pid_nr(sleeper));
		shim_fatal(text);
	}
	kshim_enter_cpu(task_cpu(sleeper));
	return timeout;
}

int schedule_hrtimeout(ktime_t *expires, const enum hrtimer_mode mode)
{
	shim_fatal("schedule_hrtimeout() reached: timed kernel sleeps are not modelled");
}
