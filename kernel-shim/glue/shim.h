/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the glue files: the C++ runtime's services (kshim/api.h) and
 * the few glue-internal helpers.
 */
#ifndef _KSHIM_GLUE_SHIM_H
#define _KSHIM_GLUE_SHIM_H

#include <linux/types.h>
#include <kshim/api.h>
#include <kshim/cost.h>

/* The harness's time (time.c's kshim_now()), read directly where it is
 * read most: cost.c's crediting marks. */
extern u64 kshim_now_ns;

/* The simulated CPU kernel code runs on (asm/smp.h) and its current task. */
extern int shim_cpu;
extern struct task_struct *shim_current;

/* libc's formatting, for the parts of printk without kernel extensions. */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list args);
/* printk's formatter: libc's plus the kernel's %p extensions we meet. */
int kshim_vformat(char *buf, size_t size, const char *fmt, va_list args);

struct device_node;
int kshim_of_path(const struct device_node *np, char *buf, int size);
void kshim_of_map_cpus(unsigned int nr_cpus);
void kshim_init_workqueues(void);
bool kshim_work_pending(void);
void kshim_rcu_free_deferred(void);
void kshim_init_cpu_devices(unsigned int nr_cpus);
bool kshim_platform_device_registered(const char *name);	/* device.c */

struct cpufreq_policy;
void kshim_opp_set_table(struct cpufreq_policy *policy, const struct kshim_opp *opps,
			 unsigned int nr);
int kshim_register_em(struct cpufreq_policy *policy);
void kshim_cpufreq_online(void);

/* The board below the frequency path (clk.c, regulator.c). */
struct cpumask;
void kshim_clock_reaches(const struct cpumask *cpus, unsigned long khz);
unsigned long long kshim_boot_clock(unsigned int cpu);
u64 kshim_supply_settled_at(struct device_node *consumer);

void kshim_setup_per_cpu_areas(unsigned int nr_cpus);
void kshim_init_cpumasks(unsigned int nr_cpus, unsigned int nr_up);
void kshim_run_initcalls(void);


/* A tracepoint hit for the C++ recorder (trace.c): the arguments as plain
 * numbers, up to two tasks' comms (TASK_COMM_LEN bytes each) and a thermal
 * zone's or cooling device's type; NULL for none. */
void kshim_trace_record(const char *name, int nr_args, const long long *args, const char *comm0,
			const char *comm1, const char *type);

/*
 * The kernel's record of an event for a trace.dat (trace.c): a probe of the
 * harness that names its event with KSHIM_RAW_EVENT() and adds it when it
 * registers (kshim_raw_event_add()) hands its tracepoint's arguments to the
 * event's class probe, trace_event_raw_event_<class>, whose TP_fast_assign
 * writes the record, while trace.dat records the event (kshim_record_raw()
 * in the probe, with the probe's own TP_PROTO arguments: the class probe
 * has the probe's type). Its blocks are not kernel time: ftrace's probe
 * runs only in a traced run, and a traced run is the run untraced.
 */
struct trace_event_file;
struct kshim_raw_event {
	const char *name;
	struct trace_event_file *file;	/* non-NULL while a trace.dat records the event */
	struct kshim_raw_event *next;
};
#define KSHIM_RAW_EVENT(ev) static struct kshim_raw_event raw_##ev = { .name = #ev }
void kshim_raw_event_add(struct kshim_raw_event *raw);
#define kshim_record_raw(ev, own_probe, ...)							\
	do {											\
		struct trace_event_file *__file = raw_##ev.file;				\
		if (unlikely(__file)) {								\
			int __kind = kshim_cost_begin(KSHIM_COST_NONE);				\
			((typeof(&own_probe))__file->event_call->class->probe)(__file, __VA_ARGS__);	\
			kshim_cost_end(__kind);							\
		}										\
	} while (0)

/* Tasks (task.c): the harness's pids, and copy_process()'s copy. */
struct task_struct;
struct task_struct *kshim_find_task(int pid);
struct task_struct *kshim_copy_task(const char *comm, bool kthread);

/* Interrupts, IPIs and stoppers (softirq.c, smp.c). */
void kshim_irq_enter(void);
void kshim_tick_sched_timer(void);	/* tick.c: the tick hit the idle loop */
void kshim_tick_set_idle_policy(int cpu, int policy);	/* tick.c */
/* cpu.c: WFI, a PSCI CPU_SUSPEND, with the hardware's entry and exit
 * latencies of the state */
void kshim_idle_wait(u64 entry_ns, u64 exit_ns);
void kshim_irq_exit(void);
bool kshim_softirq_pending(int cpu);
bool kshim_ipi_pending(int cpu);
bool kshim_deliver_ipi(void);
int kshim_take_unrelaxed_ipi(int cpu);	/* smp.c, for kshim_cpu_relax() */
/* smp.c, for kshim_take_due_interrupts(): IPIs with a call queue not yet
 * run that have reached their CPU by t, when each arrives, and taking one */
int kshim_ipi_queue_due(int cpu, unsigned long long t);
unsigned long long kshim_ipi_arrival(int cpu);
void kshim_take_ipi_queue(int cpu);
/* cpu.c: before the running CPU, holding no spinlock, takes one at t on
 * its clock, the other CPUs take the IPIs that reached them by then. */
void kshim_take_due_interrupts(unsigned long long t);
/* cpu.c: at the same point, a CPU whose entry runs concurrently with
 * others' (kshim_cpus_tick()) lets those of earlier clocks go first. */
void kshim_entry_interleave(void);
void kshim_stopper_create(int cpu);
bool kshim_run_stopper(void);
bool kshim_run_kthread(void);	/* kthread.c: a worker thread's next pass */
bool kshim_irq_work_pending(int cpu);	/* softirq.c */
bool kshim_deliver_irq_work(void);	/* softirq.c: the self-IPI taken */
/* Something was raised for cpu (an IPI, a softirq, irq_work) or the harness
 * entered it: kshim_settle() looks at it (cpu.c). */
void kshim_settle_mark(int cpu);
/* What the harness reads of cpu (its hrtimers) changed: kshim_take_touched_cpus(). */
void kshim_touch_cpu(int cpu);

/* The CPU driver (cpu.c), for the scheduler's entry points (sched/glue). */
/* Execute as cpu: smp_processor_id() and current become its own. */
void kshim_enter_cpu(int cpu);
/* Whether cpu can take an interrupt now (it is out of its idle state). */
bool kshim_cpu_interrupt_ready(int cpu);
/* The way back from an interrupt into do_idle()'s loop, on the current CPU. */
void kshim_cpu_interrupt_return(void);
/* Whether cpu waits for an interrupt at the bottom of its idle call. */
bool kshim_cpu_in_idle_wait(int cpu);
/* A struct cpumask's bits as the harness reads them (cpumask.c). */
struct kshim_cpuset;
void kshim_cpuset_from_mask(struct kshim_cpuset *out, const unsigned long *mask);

/* Time (time.c). */
void kshim_init_hrtimers(void);
void kshim_run_hrtimers(void);
unsigned long long kshim_next_hrtimer(int cpu);
void kshim_set_seed(unsigned long long seed);
#endif
