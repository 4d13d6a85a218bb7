// SPDX-License-Identifier: GPL-2.0
/*
 * Workqueues: queued work runs later, in order, when the harness drains
 * the queue (kshim_run_pending_work(), after boot and between simulation
 * events) - process context that does not preempt the code that queued it,
 * as on a real kernel.
 *
 * Delayed work waits for its timer: a timer_list armed for a jiffy fires
 * when the harness runs the timers of that jiffy (kshim_run_timers(), at
 * the tick boundary where jiffies reaches it), the stand-in for
 * kernel/time/timer.c's wheel. Departures: a timer fires at its exact
 * jiffy, where the wheel's coarser levels may fire one armed 64 or more
 * jiffies ahead up to 1/8 of its delay late; timers are not per CPU and
 * are never deferrable (no user here asks for either).
 */
#include <linux/workqueue.h>
#include <linux/list.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/smp.h>

#include <kshim/cost.h>
#include <kshim/compat/timer.h>
#include <kshim/compat/workqueue.h>
#include <kshim/compat/isolation.h>
#include "shim.h"
#ifdef KSHIM_SCHED_FULL
#include <kshim/sched.h>
#endif

static struct workqueue_struct *the_wq = (struct workqueue_struct *)1;
struct workqueue_struct *system_wq __read_mostly;
struct workqueue_struct *system_percpu_wq __read_mostly;

struct workqueue_struct *system_freezable_power_efficient_wq __read_mostly;

static LIST_HEAD(pending);

void kshim_init_workqueues(void)
{
	system_wq = system_percpu_wq = the_wq;
	system_freezable_power_efficient_wq = the_wq;
}

void timer_init_key(struct timer_list *timer, void (*func)(struct timer_list *), unsigned int flags,
		    const char *name, struct lock_class_key *key)
{
	timer->entry.pprev = NULL;
	timer->function = func;
	timer->flags = flags;
}

#ifdef KSHIM_SCHED_FULL
/* Armed timers, in order of expiry (then of arming): a short list. */
static HLIST_HEAD(armed_timers);

static void arm_timer(struct timer_list *timer, unsigned long expires)
{
	struct timer_list *t, *last = NULL;

	timer->expires = expires;
	hlist_for_each_entry(t, &armed_timers, entry) {
		if (time_after(t->expires, expires))
			break;
		last = t;
	}
	if (last)
		hlist_add_behind(&timer->entry, &last->entry);
	else
		hlist_add_head(&timer->entry, &armed_timers);
}

static bool disarm_timer(struct timer_list *timer)
{
	if (!timer_pending(timer))
		return false;
	hlist_del_init(&timer->entry);
	timer->entry.pprev = NULL;
	return true;
}

/* kernel/time/timer.c: (re)arms the timer; whether it was armed before */
int mod_timer(struct timer_list *timer, unsigned long expires)
{
	const bool was_armed = disarm_timer(timer);

	arm_timer(timer, expires);
	return was_armed;
}

/* kernel/time/timer.c: round_jiffies() of a relative delay. */
unsigned long round_jiffies_relative(unsigned long j)
{
	return round_jiffies(j + jiffies) - jiffies;
}

/* The timer softirq: every timer whose jiffy has come, in order. */
void kshim_run_timers(void)
{
	while (!hlist_empty(&armed_timers)) {
		struct timer_list *timer = hlist_entry(armed_timers.first, struct timer_list, entry);

		if (time_after(timer->expires, jiffies))
			break;
		disarm_timer(timer);
		timer->function(timer);
	}
}

/*
 * kernel/time/timer.c: a jiffy value rounded to a whole second, skewed by
 * 3 jiffies per CPU, rounded down when less than a quarter second over,
 * and only when the rounded value is still in the future (else the value
 * as given).
 */
unsigned long round_jiffies(unsigned long j)
{
	const unsigned long skew = raw_smp_processor_id() * 3;
	unsigned long rounded = j + skew;
	const unsigned long over = rounded % HZ;

	rounded -= over;
	if (over >= HZ / 4)
		rounded += HZ;
	rounded -= skew;
	return time_is_after_jiffies(rounded) ? rounded : j;
}
#else
/* Without the scheduler there is no simulated time: delayed work runs at
 * the next drain (the PELT-only builds queue none with a delay). */
static void arm_timer(struct timer_list *timer, unsigned long expires)
{
	struct delayed_work *dwork = timer_container_of(dwork, timer, timer);

	list_add_tail(&dwork->work.entry, &pending);
}

static bool disarm_timer(struct timer_list *timer)
{
	return false;
}
#endif

bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work)
{
	if (test_and_set_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(work)))
		return false;
	list_add_tail(&work->entry, &pending);
	return true;
}

static void queue_delayed(int cpu, struct workqueue_struct *wq, struct delayed_work *dwork,
			  unsigned long delay)
{
	if (!delay) {
		list_add_tail(&dwork->work.entry, &pending);
		return;
	}
	dwork->wq = wq;
	dwork->cpu = cpu;
#ifdef KSHIM_SCHED_FULL
	arm_timer(&dwork->timer, jiffies + delay);
#else
	arm_timer(&dwork->timer, delay);
#endif
}

bool queue_delayed_work_on(int cpu, struct workqueue_struct *wq, struct delayed_work *dwork,
			   unsigned long delay)
{
	if (test_and_set_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(&dwork->work)))
		return false;
	queue_delayed(cpu, wq, dwork, delay);
	return true;
}

/* Takes a delayed work off its timer or the queue; whether it was pending. */
static bool grab_pending(struct delayed_work *dwork)
{
	if (!test_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(&dwork->work)))
		return false;
	if (!disarm_timer(&dwork->timer))
		list_del_init(&dwork->work.entry);
	return true;
}

bool mod_delayed_work_on(int cpu, struct workqueue_struct *wq, struct delayed_work *dwork,
			 unsigned long delay)
{
	const bool was_pending = grab_pending(dwork);

	set_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(&dwork->work));
	queue_delayed(cpu, wq, dwork, delay);
	return was_pending;
}

bool cancel_delayed_work(struct delayed_work *dwork)
{
	const bool was_pending = grab_pending(dwork);

	clear_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(&dwork->work));
	return was_pending;
}

/* Work never runs concurrently with its canceller here: nothing to wait
 * for, only the queue to leave. */
bool cancel_work_sync(struct work_struct *work)
{
	if (!test_and_clear_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(work)))
		return false;
	list_del_init(&work->entry);
	return true;
}

bool cancel_delayed_work_sync(struct delayed_work *dwork)
{
	return cancel_delayed_work(dwork);
}

/* The timer of a delayed work: the work, still pending, joins the queue
 * (kernel/workqueue.c's __queue_work()). */
void delayed_work_timer_fn(struct timer_list *t)
{
	struct delayed_work *dwork = timer_container_of(dwork, t, timer);

	list_add_tail(&dwork->work.entry, &pending);
}

/* One queue serves every workqueue: the order of queued work is kept. */
struct workqueue_struct *alloc_workqueue_noprof(const char *fmt, unsigned int flags, int max_active, ...)
{
	return the_wq;
}

void destroy_workqueue(struct workqueue_struct *wq)
{
}

/* kernel/workqueue.c: flush_workqueue() waits for the work queued so far.
 * Work runs at the next drain of the CPUs' kernel work here, after the
 * caller's entry; only the thermal core's suspend path flushes (7.x),
 * which the harness never takes, so a flush with work pending stops the
 * run rather than returning early. */
void __flush_workqueue(struct workqueue_struct *wq)
{
	if (kshim_work_pending())
		shim_fatal("flush_workqueue() with work pending: the harness runs work at the next drain, not inside the caller");
}

#if KSHIM_HAS_HOUSEKEEPING_UPDATE
int workqueue_unbound_housekeeping_update(const struct cpumask *hk)
{
	KSHIM_UNREACHABLE_HOUSEKEEPING(workqueue_unbound_housekeeping_update);
}
#endif

/* kernel/workqueue.c: the tick's check for CPU-hogging work items; no
 * kworker runs as a task here. */
void wq_worker_tick(struct task_struct *task)
{
}

bool kshim_work_pending(void)
{
	return !list_empty(&pending);
}

void kshim_run_pending_work(void)
{
	int cost = kshim_cost_enter(KSHIM_COST_KTHREAD);

	while (!list_empty(&pending)) {
		struct work_struct *work = list_first_entry(&pending, struct work_struct, entry);

		list_del_init(&work->entry);
		clear_bit(WORK_STRUCT_PENDING_BIT, work_data_bits(work));
		work->func(work);
	}
	kshim_rcu_free_deferred();
	kshim_cost_leave(cost);
}
