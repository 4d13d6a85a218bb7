/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The boundary between kernel-side C (upstream files, export units, glue)
 * and the C++ runtime and harness. C++ cannot include kernel headers, so
 * this header uses plain C types only and is included by both sides.
 *
 *   shim_*   implemented in C++ (kernel-shim/src), called by the glue
 *   kshim_*  implemented in kernel-style C (kernel-shim/glue), called by C++
 */
#ifndef KSHIM_API_H
#define KSHIM_API_H

#ifdef __cplusplus
extern "C" {
#endif

/* A set of CPUs across the harness/kernel boundary: CPU n is bit n % 64 of
 * bits[n / 64]. Boards have at most KSHIM_MAX_CPUS CPUs. */
#define KSHIM_MAX_CPUS		256
struct kshim_cpuset {
	unsigned long long bits[KSHIM_MAX_CPUS / 64];
};


/* --- C++ runtime services the glue calls ------------------------------ */

void *shim_alloc(unsigned long size, int zero);
void shim_free(const void *ptr);

/* printk, after formatting; level is the KERN_ digit (0-7), -1 if none,
 * KSHIM_LOG_CONT for KERN_CONT (pr_cont()): joined to the line before while
 * that one has not ended with a newline, as printk joins them. */
#define KSHIM_LOG_CONT	(-2)
void shim_log(int level, const char *text);
/* WARN*(): the kernel code continues, the run is marked failed. */
void shim_warn(const char *file, int line, void *caller, const char *text);
/* BUG(), panic(), deadlocks: the kernel code cannot continue. */
void shim_fatal(const char *what) __attribute__((noreturn));

/* The earliest timer of a user task armed on cpu (ns), 0 if none
 * (kernel.h's set_timer_source()). */
unsigned long long shim_cpu_next_timer(int cpu);
/* The hrtimer interrupt cpu is handling expires those timers whose range
 * has begun (kernel.h's set_sleep_expiry()). */
void shim_expire_user_sleeps(int cpu);
/* The temperature (millicelsius) a thermal sensor reads now: the board's
 * thermal model (kernel.h's set_sensor_source()); 25 C without one. */
int shim_sensor_temp(int sensor);

/* A CPU's idle call on the CPU's own stack (src/idle_stack.cpp): call runs
 * fn(arg) there and returns 1 when it waits (it called yield), 0 when it
 * returned; resume continues a waiting call after its yield, same result. */
int shim_idle_stack_call(int cpu, void (*fn)(void *), void *arg);
int shim_idle_stack_resume(int cpu);
void shim_idle_stack_yield(int cpu);
/* Whether code runs on an idle call's stack now. */
int shim_idle_stack_running(void);

/* Writes len bytes over the code at addr (src/text_patch.cpp), as the
 * kernel's text_poke() does: addr lies in a region of `region` bytes,
 * aligned to its size, that holds no other code. 0, or -errno. */
int shim_text_patch(void *addr, unsigned long region, const void *bytes, unsigned long len);
/* The same over code whose pages hold other code, running code included
 * (the block counter's sites, spread through the kernel's text): the
 * pages stay executable while written, and valgrind is told. */
int shim_text_patch_live(void *addr, const void *bytes, unsigned long len);

/* CPUs entering the kernel at one instant, concurrently in simulated time
 * (src/entry_stack.cpp): run fn(cpu) for each of cpus (in CPU order) on
 * a stack of its own; the entries switch, at the points glue/cpu.c's
 * kshim_entry_interleave() chooses, to the one whose clock is earliest.
 * A kernel fault raised in an entry is rethrown at once; the others are
 * left unfinished. With admit, entries of later instants may join it
 * (shim_entries_add()). */
void shim_entries_run(const int *cpus, int n, void (*fn)(int cpu), int admit);
/* From the harness's admission only (kernel.h's set_entry_admission()):
 * cpu's entry fn(cpu) joins the running group. */
void shim_entries_add(int cpu, void (*fn)(int cpu));
/* Whether the harness admits later entries into a group: then even a
 * group of one runs on a stack of its own. */
int shim_entries_admitting(void);
/* Whether a group runs now (groups do not nest). */
int shim_entries_active(void);
/* Whether cpu's entry of the group is the one running, or one started or
 * waiting to start and not ended. */
int shim_entry_running_on(int cpu);
int shim_entry_suspended(int cpu);
/* Whether cpu has an entry in the running group, ended or not. */
int shim_entry_in_group(int cpu);
/* Whether the running entry, at clock, must let an earlier one go first;
 * yield switches to the runner until it is the earliest again. */
int shim_entry_should_yield(unsigned long long clock);
void shim_entry_yield(unsigned long long clock);
/* How many times an entry let another go first, since the process began. */
unsigned long long shim_entry_yields(void);
/* How many entries joined a running group (shim_entries_add()), since the
 * process began. */
unsigned long long shim_entries_joined(void);

/* A tracepoint hit: the CPU it fired on, the simulated time (ns), and its
 * arguments as plain numbers (TP_PROTO order; tasks as pid and prio), with
 * the comm of up to two tasks it names (sched_switch: prev, next). */
struct kshim_trace_event {
	const char *name;
	int cpu;
	unsigned long long time_ns;
	int nr_args;
	long long args[6];
	char comm[2][16];
	char type[20];	/* a thermal zone's or cooling device's type (THERMAL_NAME_LENGTH) */
};
void shim_trace(const struct kshim_trace_event *event);
/*
 * trace.dat: the kernel's own records of its ftrace events (glue/trace.c).
 * kshim_trace_raw_enable() records the event named from now on (0), or
 * returns -ENOENT when the kernel has no such event or the harness no probe
 * on its tracepoint; each record reaches shim_trace_raw() with the CPU and
 * sched_clock() it was written at. kshim_trace_raw_format() writes the
 * event's format file as tracefs shows it into buf (snprintf's contract:
 * returns the length it needs), with its system and id.
 */
int kshim_trace_raw_enable(const char *name);
void kshim_trace_raw_disable_all(void);
int kshim_trace_raw_format(const char *name, char *buf, unsigned long size, const char **system, int *id);
void shim_trace_raw(int cpu, unsigned long long time_ns, const void *record, unsigned long len);
/* A write to trace_marker: ftrace's print entry's format (its id and the
 * ip its records carry) and the record a write of text by pid makes
 * (tracing_mark_write()'s; returns its length, 0 if size is too small). */
int kshim_trace_marker_format(char *buf, unsigned long size, int *id, unsigned long *ip);
unsigned long kshim_trace_marker_record(void *out, unsigned long size, int pid, const char *text,
					unsigned long len);
/* sched_switch's prev_state when the task was preempted (TASK_REPORT_MAX,
 * as TP_fast_assign stores it; sched/glue/trace_probes.c). */
#define KSHIM_SWITCH_PREEMPTED 0x100

/* The board's clock for cpus changes to khz: the transition starts once
 * the supplies programmed before it settle, at ready_ns (glue/clk.c;
 * kernel.h's set_clock_sink()). */
void shim_clock_changed(const struct kshim_cpuset *cpus, unsigned long khz,
			unsigned long long ready_ns);

/* --- device tree: the C++ loader builds the kernel's struct device_node
 * tree from the blob through these (kernel-shim/glue/of.c). As
 * unflatten_dt_nodes() does, a node's full name and a property's name and
 * value are the blob's own bytes, kept for the kernel's life: the strings
 * and values given here must outlive it ------------------------------------ */

struct device_node;
struct device_node *kshim_of_new_node(struct device_node *parent, const char *name,
				      const char *full_name);
void kshim_of_add_property(struct device_node *node, const char *name,
			   const void *value, int length);
void kshim_of_set_root(struct device_node *root);

/* --- boot (kernel-shim/glue/boot.c) ------------------------------------ */

/* Per-CPU areas, cpumasks, the command line (kshim_parse_cmdline()) and
 * the first half of boot, for nr_cpus CPUs. -ENOENT: *unknown_param is a
 * command-line parameter no kernel handler took. */
int kshim_boot_early(unsigned int nr_cpus, char *cmdline, const char **unknown_param);
/* The flavour's NR_CPUS: the most CPUs a board may have. */
unsigned int kshim_nr_cpus_max(void);
/* COMMAND_LINE_SIZE: the command line's size, its final NUL included. */
unsigned int kshim_cmdline_size(void);
/* The boot parameter that makes the scheduler tell what it builds:
 * "sched_verbose", or the tree's older name. */
const char *kshim_sched_verbose_param(void);

/* One cpufreq policy: the CPUs of a frequency domain, its OPPs and the
 * OPP table's clock-latency-ns (0: none given). -EINVAL: the kernel's
 * cpufreq_table_validate_and_sort() refused the table; -ERANGE: no CPU,
 * no OPP, a CPU beyond nr_cpu_ids or too many policies. */
struct kshim_opp {
	unsigned long long hz;
	unsigned long microvolt;	/* 0: unknown */
	int turbo;			/* turbo-mode: a boost frequency */
	unsigned long microwatt;	/* opp-microwatt (0: none) */
};
int kshim_add_policy(const unsigned int *cpus, unsigned int nr_cpus,
		     const struct kshim_opp *opps, unsigned int nr_opps,
		     unsigned long long transition_latency_ns, int fast_switch);

/* The board below the frequency path, before kshim_boot_late(): the rate
 * the boot loader left cpu's clock at (glue/clk.c), and a firmware
 * frequency domain ("qcom-cpufreq-hw", "scmi", "scpi") for the SoC's
 * driver (glue/cpufreq_soc.c). */
void kshim_set_boot_clock(unsigned int cpu, unsigned long long hz);
int kshim_add_firmware_domain(const char *kind, const unsigned int *cpus, unsigned int nr_cpus);

/* The rest of boot, once every policy is added: initcalls, cpufreq driver
 * probe (policy notifiers, energy model), deferred work. */
int kshim_boot_late(void);

/* Seeds get_random_bytes() (glue/random.c). */
void kshim_set_seed(unsigned long long seed);

/* Runs the __setup()/early_param() handlers for a command line (glue/params.c).
 * -ENOENT: *unknown is a parameter no handler took. */
int kshim_parse_cmdline(char *cmdline, const char **unknown);
/* Names of the registered __setup()/early_param() entries, one by one. */
const char *kshim_setup_name(int index);

/* Attaches the harness's probes to the tracepoints of the compiled files. */
int kshim_trace_attach(void);

/* Runs what the kernel deferred to process context (workqueues). */
void kshim_run_pending_work(void);

/* --- what the kernel computed, read back for reports ------------------- */

unsigned int kshim_nr_cpus(void);				/* nr_cpu_ids */
/* How often kernel code asked to rebuild sched domains (sched/glue/no_domains.c). */
unsigned int kshim_sched_domain_rebuilds(void);
/* topology_update_thermal_pressure() for the CPUs in cpu_bits. */
void kshim_update_thermal_pressure(const struct kshim_cpuset *cpus, unsigned long capped_khz);

unsigned long kshim_cpu_capacity(unsigned int cpu);		/* arch_scale_cpu_capacity() */
unsigned long kshim_cpu_freq_scale(unsigned int cpu);		/* arch_scale_freq_capacity() */
unsigned long kshim_cpu_thermal_pressure(unsigned int cpu);	/* arch_scale_thermal_pressure() */

struct kshim_cpu_topology {
	int thread_id, core_id, cluster_id, package_id;
};
void kshim_cpu_topology(unsigned int cpu, struct kshim_cpu_topology *out);

struct kshim_em_state {
	unsigned long frequency;	/* kHz */
	unsigned long power;		/* mW (or abstract scale) */
	unsigned long cost;
	int inefficient;
};
/* The perf domain of a CPU as the kernel's energy model holds it. */
int kshim_em_nr_states(unsigned int cpu);	/* 0: no EM for this CPU */
void kshim_em_state(unsigned int cpu, int index, struct kshim_em_state *out);
void kshim_em_cpus(unsigned int cpu, struct kshim_cpuset *out);	/* the perf domain's CPUs */
/* The unit of the perf domain's power values (0: no EM for this CPU). */
enum kshim_em_power_unit {
	KSHIM_EM_MICROWATTS = 1,	/* 5.19's EM_PERF_DOMAIN_MICROWATTS */
	KSHIM_EM_MILLIWATTS,		/* 5.11's milliwatts flag; every EM before 5.11 */
	KSHIM_EM_ABSTRACT,		/* a scale of the driver's own */
};
int kshim_em_power_unit(unsigned int cpu);
/* dev_pm_opp_of_register_em()'s result for the CPU's policy (0: EM built). */
int kshim_em_status(unsigned int cpu);

#ifdef __cplusplus
}
#endif

#endif
