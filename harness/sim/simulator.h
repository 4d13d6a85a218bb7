// SPDX-License-Identifier: GPL-2.0
//
// The simulator: a deterministic discrete-event simulation in which the
// booted kernel decides (placement, preemption, balancing, frequency) and
// the simulated board executes (work at capacity x cur_freq / max_freq,
// timers, frequency transitions, energy). One run per process: the kernel
// keeps global state.
#pragma once

#include "dts/platform.h"
#include "harness/sim/thermal_model.h"
#include "harness/sim/power_model.h"
#include "harness/sim/latency_histogram.h"
#include "harness/workload/workload.h"
#include "kernel-shim/kernel.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <string>
#include <vector>

struct kshim_trace_event;

namespace sh::sim {

enum class IdleTick { kernel, retain, stop };

// The --idle-tick names (inline: the CLI uses them on trees without the
// simulator too).
constexpr std::string_view to_string(IdleTick policy)
{
	switch (policy) {
	case IdleTick::retain:
		return "retain";
	case IdleTick::stop:
		return "stop";
	case IdleTick::kernel:
		break;
	}
	return "kernel";
}

// Options::kernel_cycles_per_block's default (docs/kernel-time.md).
inline constexpr double default_kernel_cycles_per_block = 6;

struct Options {
	std::int64_t duration_ns = 10'000'000'000;
	// Idle power per CPU of each frequency domain (µW), index as
	// Platform::frequency_domains; missing entries are 0.
	std::vector<std::uint64_t> idle_power_uw;
	// Attach the tracepoints only a trace file shows (PELT, util_est,
	// cpu_idle).
	bool trace_only_events = false;
	// The CPU the workload's launcher runs on: its threads are forked
	// there, and the kernel's fork balancing places them from it.
	unsigned fork_cpu = 0;
	// Whether an idle CPU stops its tick: the kernel's idle loop decides
	// (kernel: no cpuidle driver, so the first pass keeps it and a pass
	// after a tick arrived while idle stops it), or an experiment forces
	// it (retain, stop). Busy CPUs always tick.
	IdleTick idle_tick = IdleTick::kernel;
	// Run-to-run variation of the board and the workload, as repeated runs
	// on a board vary, drawn from `seed` (the same seed, the same run):
	// each activation's work varies (normal, sd 1 %), each thread starts
	// 0-200 us late (uniform: its launch), each timer interrupt arrives
	// late (exponential, mean 2 us). `jitter` scales all three; 0 is the
	// exact, jitter-free run.
	double jitter = 1.0;
	std::uint64_t seed = 0;
	// Count the wake-ups find_energy_efficient_cpu() placed by calling it
	// once more, on the same state, before each wake-up (6.1 has no
	// tracepoint that says): a quarter of an EAS run's instructions.
	bool count_eas_decisions = false;
	// Imposed frequency caps (--thermal-cap), in time order: from at_ns
	// after the start the CPUs' clocks run at most at khz (0: the cap is
	// lifted) — the board throttles as a SoC's limits-management hardware
	// does — and the kernel is told as such a cpufreq driver tells it
	// (qcom-cpufreq-hw: topology_update_thermal_pressure()).
	struct ThermalCap {
		std::vector<unsigned> cpus;
		unsigned khz = 0;
		std::int64_t at_ns = 0;
	};
	std::vector<ThermalCap> thermal_caps;
	// The board's thermal model (what the thermal zones' sensors read).
	thermal::ModelConfig thermal;
	// How often the report samples each zone's temperature.
	std::int64_t thermal_sample_ns = 1'000'000'000;
	// Sample Result::series every this often (0: no series). Sampling only
	// reads: a run decides the same with and without it.
	std::int64_t series_period_ns = 0;
	// The board's power model (--board-power); none: the energy model's
	// busy power and idle_power_uw.
	std::optional<PowerModel> power_model;
	// What a basic block of kernel code costs on the CPUs of the highest
	// per-MHz performance (the kernel's capacity / max frequency), in
	// cycles; the others take proportionally more (docs/kernel-time.md).
	double kernel_cycles_per_block = default_kernel_cycles_per_block;
	// An IPI's delivery from its sender's clock to its target's handler.
	std::int64_t ipi_latency_ns = 0;
	// An interrupt's entry (arrival to handler) and a CPU's wake-up from
	// WFI, the default idle state (docs/kernel-time.md).
	std::int64_t irq_entry_ns = 0;
	std::int64_t wfi_exit_ns = 0;
	// Profile the kernel code the run executes by function and report the
	// costliest this many (0: no profile; it costs the run time).
	std::size_t kernel_profile_functions = 0;
};

// The levels of Options::jitter at 1 (README, docs/architecture.md).
inline constexpr double jitter_run_sd = 0.01;
inline constexpr double jitter_start_max_ns = 200'000;
inline constexpr double jitter_timer_mean_ns = 2'000;

// Receives every tracepoint hit with the task then current on its CPU (the
// TASK-PID column of an ftrace line). Implemented by the trace writer.
class EventSink {
public:
	virtual ~EventSink() = default;
	virtual void event(const kshim_trace_event &ev, std::string_view current_comm, int current_pid) = 0;

	// The kernel's own binary records of its ftrace events (a trace.dat):
	// the events the sink wants them for; each one the kernel can record
	// is announced with its format before its first record.
	virtual std::vector<std::string> recorded_events() const { return {}; }
	virtual void recording(const kshim::EventFormat &) {}
	virtual void record(int /*cpu*/, std::uint64_t /*time_ns*/, std::span<const std::byte> /*record*/) {}
	// A write to trace_marker (rt-app's markers) by the task current on cpu.
	virtual void marker(int /*cpu*/, std::uint64_t /*time_ns*/, int /*pid*/, std::string_view /*comm*/,
			    std::string_view /*text*/)
	{
	}
};

// Percentiles of a latency histogram: within 1 % above the exact value
// (harness/sim/latency_histogram.h); count, min and max exact.
using Distribution = Percentiles;

struct TaskResult {
	std::string name;
	int pid = 0;
	std::int64_t cpu_time_ns = 0;
	std::int64_t work_done = 0;		// capacity-ns
	std::int64_t runnable_wait_ns = 0;	// runnable, not running (woken or preempted)
	Distribution wakeup_latency_ns;		// sched_wakeup -> switched in
	// rt-app's slack: at each timer event, time left to the timer's next
	// expiry (negative: the period was missed).
	std::size_t periods = 0;
	std::size_t missed_periods = 0;
	std::int64_t slack_min_ns = 0, slack_mean_ns = 0;
	std::size_t migrations = 0;		// sched_migrate_task
	std::vector<unsigned> cpus_used;	// CPUs it was switched in on
	std::vector<std::int64_t> cpu_time_by_cpu_ns;	// index: CPU
	std::string state;			// "running", "exited", "blocked on ..."
	std::optional<std::int64_t> exit_ns;	// since the start
};

struct OppResidency {
	unsigned khz = 0;
	std::int64_t ns = 0;		// time the domain's clock ran at khz
	std::int64_t busy_ns = 0;	// summed over its CPUs: busy at khz
};

struct DomainResult {
	std::vector<unsigned> cpus;
	bool has_energy_model = false;
	std::uint64_t idle_power_uw = 0;
	double energy_j = 0;			// the board's: its CPUs' and the cluster's static
	double static_energy_j = 0;		// the cluster's and its cores' leakage while powered
	// energy_j split: the busy CPUs' and the active cluster's power, and
	// the idle CPUs' and the idle cluster's (with static_energy_j, the
	// whole); the cluster's own active and idle power (cluster_mw,
	// cluster_idle_mw) within them
	double dynamic_energy_j = 0;
	double idle_energy_j = 0;
	double cluster_active_energy_j = 0;
	double cluster_idle_energy_j = 0;
	std::int64_t off_ns = 0;		// time the cluster was powered off
	std::vector<OppResidency> residency;
	std::size_t frequency_changes = 0;
	unsigned transition_latency_ns = 0;
};

// An idle state of a CPU's cpuidle driver and how the kernel used it during
// the run (struct cpuidle_state_usage: above = the sleep was shorter than
// the state's target residency, below = a deeper state would have fitted).
struct IdleStateResult {
	std::string name;
	std::uint64_t exit_latency_ns = 0;
	std::uint64_t target_residency_ns = 0;
	std::uint64_t entries = 0;
	std::uint64_t residency_ns = 0;
	std::uint64_t above = 0, below = 0;
};

struct CpuResult {
	unsigned id = 0;
	std::int64_t busy_ns = 0;
	double energy_j = 0;		// busy and idle, the board's power
	double em_energy_j = 0;		// busy x the energy model's power
	// Thermal pressure (capacity units) the kernel held for the CPU
	// (arch_scale_thermal_pressure()), averaged over the run, and the time
	// its clock was capped below its highest frequency.
	double thermal_pressure_avg = 0;
	// The scheduler's PELT-averaged thermal pressure (rq->avg_thermal,
	// sampled at each tick), averaged over the run.
	double thermal_load_avg = 0;
	std::int64_t capped_ns = 0;
	// The time its policy's maximum (freq QoS: a cooling device's cap)
	// was below its highest frequency.
	std::int64_t limited_ns = 0;
	// 6.12's cpufreq pressure (the capacity its policy limit takes, which
	// the scheduler subtracts beside the PELT-averaged hardware pressure),
	// averaged over the run; 0 on 6.1, where the cooling device sets the
	// thermal pressure instead.
	double cpufreq_pressure_avg = 0;
	// At the end of the run: the capacity left to CFS (rq->cpu_capacity,
	// capacity_of(): the original less RT, DL, IRQ and the PELT-averaged
	// thermal pressure, as update_cpu_capacity() last set it) and that
	// average (rq->avg_thermal).
	unsigned long capacity_end = 0;
	unsigned long thermal_load_end = 0;
	unsigned long cpufreq_pressure_end = 0;	// 6.12's cpufreq_get_pressure() at the end
	std::vector<IdleStateResult> idle_states;	// empty: no cpuidle driver
	std::uint64_t kernel_blocks = 0;	// kernel code it executed (kshim/cost.h)
	std::int64_t kernel_ns = 0;
};

// A trip of a zone and the time the model's temperature spent at or above it.
struct TripResult {
	std::string name;
	std::string type;
	double temperature_c = 0;
	std::int64_t above_ns = 0;
};

// A thermal zone the kernel registered, and its temperature under the
// board's thermal model (harness/sim/thermal_model.h).
struct ThermalZoneResult {
	std::string name;		// the zone node's name (tz->type)
	std::string sensor;
	std::string governor;		// at the end of the run
	std::vector<unsigned> cpus;	// whose power heats it
	double resistance_k_per_w = 0, capacitance_j_per_k = 0, ambient_c = 0, initial_c = 0;
	double min_c = 0, mean_c = 0, max_c = 0, end_c = 0;
	double heat_j = 0;		// the energy it took in
	std::vector<TripResult> trips;
	std::int64_t sample_period_ns = 0;
	std::vector<double> temperature_c;	// every sample period from the start
	std::size_t kernel_reads = 0;		// thermal_temperature events
	std::size_t interrupts = 0;		// sensor alarms raised
};

// A cooling device (cpufreq_cooling.c's, of a policy) and the time in each
// of its states.
struct CoolingResult {
	int id = 0;
	std::vector<unsigned> cpus;
	unsigned long max_state = 0;
	std::vector<std::int64_t> state_ns;
	std::size_t updates = 0;	// cdev_update events
};

// The run over time, sampled every period from the start (Options::
// series_period_ns): each value is the one in force just before the sample
// time. For plots.
struct Series {
	std::int64_t period_ns = 0;
	std::vector<std::int64_t> time_ns;	// since the start
	struct Cpu {
		std::vector<unsigned> util;		// rq->cfs.avg.util_avg
		std::vector<unsigned> khz;		// the clock the board runs it at
		std::vector<unsigned> capacity;		// rq->cpu_capacity (capacity_of())
		std::vector<unsigned> thermal_pressure;	// arch_scale_thermal_pressure()
		std::vector<unsigned> thermal_avg;	// rq->avg_thermal.load_avg
		std::vector<unsigned> cpufreq_pressure;	// 6.12's cpufreq_get_pressure(); 0 on 6.1
	};
	std::vector<Cpu> cpus;
	std::vector<std::vector<double>> zone_temperature_c;	// as Result::thermal_zones
};

// Kernel code the run executed, of one kind (kshim/cost.h): how often the
// glue entered code of that kind (0 for the kinds the harness enters: see
// the event counts), its basic blocks and their time at the clocks of the
// moment.
struct KernelCost {
	std::string kind;
	std::uint64_t entries = 0;
	std::uint64_t blocks = 0;
	std::int64_t ns = 0;
};

// A function of the tree's code as compiled (code inlined into it counts
// as its own, as perf report shows it) and the kernel-time blocks it ran.
struct KernelFunctionCost {
	std::string function;
	std::uint64_t blocks = 0;
};

// Kernel code per event of its kind: per wake-up (try_to_wake_up() on the
// waker's CPU), per tick, per context switch (schedule() calls, newidle
// balancing included, over the switches), per load balance (SCHED_SOFTIRQ
// runs); nullopt when no such event happened.
struct KernelOverhead {
	const char *name;	// the metric's name (wakeup, tick, ...)
	const char *what;	// for a text report
	std::optional<double> blocks, ns;
};
struct Result;
std::vector<KernelOverhead> kernel_overhead(const Result &r);

struct Result {
	std::string board;		// as named on the command line (filled by the caller)
	std::string board_model;
	std::string kernel;		// kernel version (filled by the caller)
	std::string kernel_image;	// the image run, described; empty: the build's own kernel (filled by the caller)
	std::string workload;
	std::uint64_t seed = 0;
	double jitter = 0;
	std::int64_t duration_ns = 0;		// asked for
	std::int64_t simulated_ns = 0;		// done (less when a finite workload completed)
	bool finite = false;			// every task has a finite loop
	std::optional<std::int64_t> completion_ns;
	unsigned calibration_cpu = 0;
	unsigned long calibration_capacity = 0;
	unsigned fork_cpu = 0;
	bool eas = false;
	std::string eas_reason;
	bool power_in_microwatts = true;	// false: the EM's abstract scale
	bool energy_complete = true;		// every CPU has an energy model
	// The board's energy (its power model: busy power per OPP — the energy
	// model's unless a board power file says otherwise — idle states and
	// the clusters' static power) and the energy model's estimate (busy
	// time x its power: what EAS optimises).
	double energy_j = 0;
	double em_energy_j = 0;
	std::string power_model;		// the board power file's source; "" without one
	std::string power_model_file;		// its name (a shipped file's, or the path given)
	std::string power_model_skipped;	// the shipped file did not apply to the board: why
	std::optional<double> power_unit_mw;	// what one of its bogo units is worth
	// The power model's package budget (0: none) and the time the package
	// spent under each ceiling it imposed (busy_ns unused); whether
	// SMT threads slow each other.
	std::optional<double> package_budget_mw;
	std::vector<OppResidency> package_ceiling;
	bool smt_model = false;
	std::vector<DomainResult> domains;
	std::vector<CpuResult> cpus;
	std::vector<TaskResult> tasks;
	Distribution wakeup_latency_ns;		// every wake-up of every task
	// Work done (capacity-ns) per simulated second, in units of the
	// calibration CPU at its highest OPP: 1.0 = that CPU fully busy.
	double throughput = 0;
	std::int64_t overutilized_ns = 0;
	std::size_t wakeups = 0;		// try_to_wake_up() of workload tasks
	bool eas_decisions_counted = false;	// Options::count_eas_decisions
	std::size_t eas_wakeups = 0;		// find_energy_efficient_cpu() chose
	std::size_t non_eas_wakeups = 0;	// the rest of select_task_rq_fair()
	std::size_t pinned_wakeups = 0;		// one allowed CPU: no choice made
	std::size_t requeued_wakeups = 0;	// counted: still queued (6.12's delayed dequeue), none selected
	std::size_t context_switches = 0;
	std::size_t migrations = 0;
	std::size_t ticks = 0;
	std::string cpuidle_governor;		// "" without a cpuidle driver
	std::uint64_t fingerprint = 0;
	std::size_t fingerprint_events = 0;
	unsigned long long tick_ns = 0;
	IdleTick idle_tick = IdleTick::kernel;
	std::size_t kernel_warnings = 0;
	// The board's thermal model: "RC" when it ran, else why not.
	std::string thermal_model;
	std::vector<ThermalZoneResult> thermal_zones;
	std::vector<CoolingResult> cooling_devices;
	Series series;				// empty unless asked for
	// Kernel code executed, by kind, summed over the CPUs; the cycles a
	// block takes on the fastest CPUs (Options::kernel_cycles_per_block).
	std::vector<KernelCost> kernel_cost;
	double kernel_cycles_per_block = 0;
	std::int64_t ipi_latency_ns = 0;
	std::int64_t irq_entry_ns = 0;
	std::int64_t wfi_exit_ns = 0;
	// Where the three figures above came from (the caller fills it: the
	// board file's source, an option, or "unsourced").
	HardwareLatencies latency_sources;
	std::int64_t lock_spin_ns = 0;		// CPUs waiting for spinlocks others held
	std::uint64_t ipis_taken_at_locks = 0;	// call queues run at another CPU's lock acquisition
	// Times a CPU's entry, concurrent with others (the timer interrupts of
	// an instant, the CPUs settling after them), let one of an earlier
	// clock go first at a lock acquisition.
	std::uint64_t interleavings = 0;
	// Timer interrupts of a later instant that joined a group of timer
	// interrupts while its code still ran (kernel.h's set_entry_admission()).
	std::uint64_t joined_interrupts = 0;
	// With Options::kernel_profile_functions: the costliest functions,
	// most blocks first, and how many functions the profile found.
	std::vector<KernelFunctionCost> kernel_functions;
	std::size_t kernel_functions_found = 0;
};

// A board power model applied to the booted board (its frequency domains,
// OPPs, idle states, the energy model for bogo units), in mW; throws
// PowerModelError when it does not fit.
BoardPowerFigures board_power_figures(const dts::Platform &platform, const kshim::Kernel &kernel,
				      const PowerModel &model);

// The board power model for the booted board: --board-power's FILE
// (`option`; "none": none), which throws PowerModelError ("FILE: why")
// when it cannot be read or does not apply, or else the file shipped for
// the board. A shipped file is a
// default: when it does not apply to this board (bogo units the board has
// no energy model to convert, OPPs the board does not have) it is skipped,
// and `skipped` says why; a board is never refused for its default.
struct PowerModelChoice {
	std::optional<PowerModel> model;
	std::string file;	// the model's name, as the reports give it
	std::string skipped;	// a shipped file that did not apply: its name and why
	// The board's hardware latencies: the model's, else those of the file
	// shipped for the board (latencies do not depend on which power
	// model a run charges), else unsourced.
	HardwareLatencies latencies;
	std::string latencies_file;	// the file that gave them; empty: none did
};
PowerModelChoice choose_power_model(const std::optional<std::string> &option, const dts::Platform &platform,
				    const kshim::Kernel &kernel);

// Runs `workload` on the booted kernel for options.duration_ns, or until
// every task has ended. Throws workload::Error for a workload the board cannot run (a cpus list
// naming CPUs it lacks) and kshim::KernelFault when kernel code faults.
Result simulate(const dts::Platform &platform, const kshim::Kernel &kernel,
		const workload::Workload &workload, const Options &options, EventSink *sink = nullptr);

} // namespace sh::sim
