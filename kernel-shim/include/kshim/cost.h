/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel code costs: the basic blocks each CPU executes in the tree's
 * code, counted by the compiler's own instrumentation (GCC's
 * -fsanitize-coverage=trace-pc, as the kernel's KCOV builds it: a call to
 * __sanitizer_cov_trace_pc() at the head of every basic block), and the
 * time they take at the rate the board set for the CPU. Plain C types:
 * included by the glue and the harness.
 *
 * Counted are the files of the tree and the export units that include
 * them; the glue is not instrumented (it stands for kernel code whose cost
 * is not its own: hrtimer.c, tick-sched.c, the interrupt entry).
 */
#ifndef KSHIM_COST_H
#define KSHIM_COST_H

#ifdef __cplusplus
extern "C" {
#endif

/* What the blocks were executed for: the innermost kind set when they ran.
 * KSHIM_COST_NONE is the harness reading state (a report, --count-eas):
 * blocks executed then are not kernel time. */
enum kshim_cost_kind {
	KSHIM_COST_NONE,
	KSHIM_COST_OTHER,	/* fork, exit, nice, affinity, boot-time work */
	KSHIM_COST_WAKEUP,	/* try_to_wake_up() on the waker's CPU */
	KSHIM_COST_SCHEDULE,	/* schedule(), schedule_idle(): newidle balance included */
	KSHIM_COST_TICK,	/* the timer interrupt: hrtimers, the scheduler's tick */
	KSHIM_COST_IPI,		/* IPI and irq_work handlers: queued wake-ups, function calls */
	KSHIM_COST_BALANCE,	/* SCHED_SOFTIRQ: periodic and nohz idle load balancing */
	KSHIM_COST_SOFTIRQ,	/* the other softirqs */
	KSHIM_COST_IDLE,	/* the idle loop: cpuidle governor, nohz enter and exit */
	KSHIM_COST_KTHREAD,	/* kthreads and work items: sugov, stoppers, kworkers */
	KSHIM_COST_NR
};

struct kshim_cost_counts {
	unsigned long long entries[KSHIM_COST_NR];	/* times code of the kind was entered */
	unsigned long long blocks[KSHIM_COST_NR];
	unsigned long long ps[KSHIM_COST_NR];		/* picoseconds, at the rate of the moment */
};

/* The kind the code the caller runs next is counted as; returns the kind
 * before, for kshim_cost_leave(). Nothing is counted while the kind is
 * KSHIM_COST_NONE, except from the harness's kshim_cost_begin(). */
int kshim_cost_enter(int kind);
void kshim_cost_leave(int previous);
/* The harness enters the kernel (a fork, a wake-up, an interrupt, ...):
 * what runs until kshim_cost_end() is kernel time of that kind
 * (KSHIM_COST_NONE: a read for a report, not kernel time). Returns the
 * kind before, which kshim_cost_end() restores. */
int kshim_cost_begin(int kind);
void kshim_cost_end(int previous);

/* The time one basic block takes on cpu at its present clock, in ps (0:
 * kernel code takes no time). The board sets it at boot and at each
 * frequency change. */
void kshim_cost_set_rate(int cpu, unsigned long long ps_per_block);
/* Whether some CPU's kernel code takes time (a rate was set above 0). */
int kshim_cost_timed(void);
/* 0 in a build whose kernel objects count no blocks (SH_BLOCK_COUNTER=none) */
int kshim_cost_counts_blocks(void);
void kshim_cost_read(int cpu, struct kshim_cost_counts *out);
/* The glue changes the CPU kernel code runs on (shim_cpu): what ran
 * before is credited to the CPU it ran on. */
void kshim_cost_mark(void);
/* The CPU's clock: the harness's time, or later while the CPU is still
 * running kernel code it started before (what that code takes, at the
 * rate above). sched_clock() and ktime_get() read the running CPU's. */
unsigned long long kshim_cpu_clock(int cpu);
/* The CPU can go on no earlier than t (an IPI's arrival). */
void kshim_cpu_clock_raise(int cpu, unsigned long long t);
/* Spinlocks in simulated time (the fake arch's): the taker waits until the
 * holder's release (*free_at); the release records its time. */
void kshim_lock_wait(const unsigned long long *free_at);
void kshim_lock_release(unsigned long long *free_at);
/* The board's hardware latencies: an IPI from its sender to its target;
 * an interrupt's entry, from its arrival at a CPU to its handler (the
 * exception entry and the interrupt controller's acknowledge, whose code
 * the glue stands in for); a CPU's wake-up from WFI, the default idle
 * state (the DT's idle states have their own exit-latency-us). */
extern unsigned long long kshim_ipi_latency_ns;
extern unsigned long long kshim_irq_entry_ns;
extern unsigned long long kshim_wfi_exit_ns;
/* How many IPIs' call queues CPUs took at another CPU's lock acquisition
 * (kernel-shim/glue/cpu.c's kshim_take_due_interrupts()). */
unsigned long long kshim_ipis_taken_at_locks(void);
/* Time the CPU spent waiting for locks. */
unsigned long long kshim_cpu_spin_ns(int cpu);

/* The profile: kernel-time blocks (any kind but KSHIM_COST_NONE) by the
 * instrumented site that executed them, from kshim_cost_profile_start()
 * on. kshim_cost_profile_read() copies at most max sites, in no order,
 * and returns how many there are; *lost counts the blocks of sites the
 * table had no room for. */
struct kshim_cost_site {
	unsigned long pc;	/* the return address of the block's callback */
	unsigned long long blocks;
};
int kshim_cost_profile_start(void);	/* 0, or -errno: the callback could not be patched */
unsigned long kshim_cost_profile_read(struct kshim_cost_site *out, unsigned long max,
				     unsigned long long *lost);

#ifdef __cplusplus
}
#endif

#endif
