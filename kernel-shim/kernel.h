// SPDX-License-Identifier: GPL-2.0
//
// The kernel, booted on a board: what C++ sees of the upstream code running
// in this process. Kernel code keeps global state, so a process boots one
// board once (boot() refuses a second time); sweeps and variants run as
// separate processes.
#pragma once

#include "dts/platform.h"

#include <kshim/api.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct kshim_trace_event;

namespace sh::kshim {

// A set of CPUs across the kernel side's C API (struct kshim_cpuset), and back.
inline std::vector<unsigned> cpus_of(const kshim_cpuset &set)
{
	std::vector<unsigned> cpus;
	for (unsigned c = 0; c < KSHIM_MAX_CPUS; c++)
		if (set.bits[c / 64] & (1ULL << (c % 64)))
			cpus.push_back(c);
	return cpus;
}

inline kshim_cpuset cpuset_of(std::span<const unsigned> cpus)
{
	kshim_cpuset set{};
	for (const unsigned c : cpus)
		if (c < KSHIM_MAX_CPUS)
			set.bits[c / 64] |= 1ULL << (c % 64);
	return set;
}

struct LogLine {
	int level = -1;		// KERN_ level 0-7, -1 when the message had none
	std::string text;
};

struct KernelWarning {
	std::string file;
	int line = 0;
	std::string function;
	std::string text;
};

// BUG(), panic(), a deadlock: kernel code cannot continue.
class KernelFault : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// A tracepoint hit, as the harness's probe recorded it (arguments in
// TP_PROTO order).
struct TraceEvent {
	std::string name;
	int cpu = 0;
	std::uint64_t time_ns = 0;
	std::vector<long long> args;
};

// Every tracepoint hit since boot, in order, while no sink is set.
const std::vector<TraceEvent> &trace_events();

// Sends each tracepoint hit to `sink` as it happens instead of keeping it
// (long simulations stream them to a trace file and a fingerprint); an
// empty function goes back to keeping them.
using TraceSink = std::function<void(const kshim_trace_event &)>;
void set_trace_sink(TraceSink sink);

// trace.dat: the kernel's own binary records of its ftrace events (what
// TP_fast_assign writes into the ring buffer), for the events a trace.dat
// records. An event's format, as tracefs shows events/SYSTEM/NAME/format.
struct EventFormat {
	std::string system;
	std::string name;
	int id = 0;
	std::string format;
	std::string kallsyms;	// /proc/kallsyms lines for the addresses its records hold
};
// Records `event` from now on, each record going to the record sink, and
// returns its format; nothing when the kernel has no ftrace event of that
// name or the harness no probe on its tracepoint (PELT's bare tracepoints).
std::optional<EventFormat> record_event(const std::string &event);
// Stops recording every event.
void stop_recording();
// A write to trace_marker: ftrace's print entry (system "ftrace"), and the
// record a write of `text` by `pid` makes.
EventFormat marker_format();
std::vector<std::byte> marker_record(int pid, std::string_view text);
using RecordSink = std::function<void(int cpu, std::uint64_t time_ns, std::span<const std::byte> record)>;
void set_record_sink(RecordSink sink);

// The timers the harness keeps for user tasks (rt-app's sleeps and timers,
// which are hrtimers on the sleeping CPU on a board): `source(cpu)` gives
// the earliest one armed on a CPU (simulated ns, 0 if none). The idle
// governor's sleep-length prediction (tick_nohz_get_sleep_length()) counts
// them with the kernel's own hrtimers. Empty: there are none.
using TimerSource = std::function<std::uint64_t(int cpu)>;
void set_timer_source(TimerSource source);
// Those timers expiring: every hrtimer interrupt a CPU takes (the tick's,
// the kernel's hrtimers', theirs) calls `expiry(cpu)` in interrupt context,
// after the kernel's own expired hrtimers, so that the sleeps whose range
// has begun end in that interrupt as __hrtimer_run_queues() ends them:
// kshim_task_wake_in_irq() for each. Empty: none expire.
using SleepExpiry = std::function<void(int cpu)>;
void set_sleep_expiry(SleepExpiry expiry);
// Timer interrupts of later instants joining a group of concurrent ones
// (kshim_cpus_tick(), kshim_cpus_timers()): each time the group's entries
// all wait at clocks of at least `before`, `admit(before)` may start the
// interrupt due first, if it is due by `before`, with
// kshim_cpu_timers_admit() once the harness's time is its instant. It
// returns the clock from which a running entry must let it try again
// (the next one's instant; ~0: none can join this group). Empty: groups
// run only the entries they start with, and a group of one runs directly.
using EntryAdmission = std::function<std::uint64_t(std::uint64_t before)>;
void set_entry_admission(EntryAdmission admit);

// The temperature (millicelsius) thermal sensor `sensor` reads now
// (kshim_thermal_add_sensor()'s index): the simulation's thermal model.
// Without one, sensors read room temperature.
inline constexpr int room_temperature_mc = 25000;
using SensorSource = std::function<int(int sensor)>;
void set_sensor_source(SensorSource source);

// The board's clock for `cpus` was set to `khz` (a clock provider's
// set_rate, or a firmware's level): the transition starts at `ready_ns`,
// when the supplies programmed before it have settled (glue/clk.c). The
// simulation's board model; without one, changes reach no hardware.
using ClockSink = std::function<void(const kshim_cpuset &cpus, unsigned long khz, unsigned long long ready_ns)>;
void set_clock_sink(ClockSink sink);

// Turns an oops in kernel code (divide by zero, bad pointer) into a message
// naming the kernel function and exit status 3 instead of a bare crash.
// The sched-harness command installs it; Boost.Test programs keep Boost's
// own signal reporting.
void install_oops_handlers();

// A watchdog for kernel code that does not return: armed around boot and
// the simulation, it checks every `seconds` of wall time that the
// simulator beat since the last check; if not, it names the function the
// CPU is in (and its callers) — "kernel hang in FUNCTION ..." — and exits
// with status 3, like an oops. 0 seconds: off. One per process.
void arm_watchdog(unsigned seconds);
void disarm_watchdog();
// The simulator's progress: one call per event, with the simulated time.
void watchdog_beat(std::int64_t now_ns) noexcept;

// Everything printk'd and every WARN hit since the process started.
const std::vector<LogLine> &kernel_log();
const std::vector<KernelWarning> &kernel_warnings();

struct PerfState {
	unsigned long frequency_khz = 0;
	unsigned long power = 0;	// the kernel's value, in PerfDomain::unit
	unsigned long cost = 0;
	bool inefficient = false;
};

// The unit of an energy model's power values (kshim_em_power_unit()).
enum class PowerUnit { microwatts, milliwatts, abstract };

// One perf domain of the kernel's energy model (struct em_perf_domain).
struct PerfDomain {
	std::vector<unsigned> cpus;
	PowerUnit unit = PowerUnit::microwatts;
	std::vector<PerfState> states;

	// Whether its power is in watts at all (not a driver's own scale).
	bool in_watts() const { return unit != PowerUnit::abstract; }
	// A state's power in microwatts; only when in_watts().
	std::uint64_t microwatts(const PerfState &s) const
	{
		return unit == PowerUnit::milliwatts ? std::uint64_t{s.power} * 1000 : s.power;
	}
};

// One level of a CPU's sched-domain hierarchy as topology.c built it.
struct SchedDomain {
	std::string name;		// SMT, CLS, MC, DIE
	int level = 0;
	std::vector<unsigned> span;
	std::vector<std::string> flags;	// SD_* names, as sd_flags.h spells them
	std::vector<std::vector<unsigned>> groups;
};

// A state of a CPU's cpuidle driver, as the driver registered it.
struct IdleState {
	std::string name;
	std::uint64_t exit_latency_ns = 0;	// the kernel's: DT entry + exit latency
	std::uint64_t target_residency_ns = 0;
};

struct CpuState {
	unsigned id = 0;
	unsigned long capacity = 0;		// arch_scale_cpu_capacity()
	unsigned long freq_scale = 0;		// arch_scale_freq_capacity()
	unsigned long thermal_pressure = 0;	// arch_scale_thermal_pressure()
	int package_id = -1, cluster_id = -1, core_id = -1, thread_id = -1;
	int em_status = 0;	// dev_pm_opp_of_register_em() for its policy; 0: EM built
	bool has_policy = false;
	std::string governor;			// the policy's governor, "" if none
	bool fast_switch = false;		// schedutil switches from scheduler context (else: sugov kthread)
	unsigned cur_khz = 0;			// policy->cur
	std::vector<SchedDomain> domains;	// lowest level first; empty: none
	std::vector<IdleState> idle_states;	// empty: no cpuidle driver
};

// A thermal sensor the DT's zones read, registered as its driver would
// (thermal_of_zone_register()), and the zone the kernel made of it.
struct ThermalZoneState {
	std::string sensor_path;	// the sensor's node
	unsigned sensor_id = 0;		// its #thermal-sensor-cells argument
	int sensor = -1;		// kshim_thermal_add_sensor()'s index; -1: not registered
	std::string error;		// why not (a disabled sensor, thermal_of.c's refusal)
	std::string zone;		// tz->type: the zone node's name
	std::string governor;
	unsigned polling_delay_ms = 0, passive_delay_ms = 0;
	int num_trips = 0;
	int disabled_trips = 0;		// of those, ignored by the thermal core
	int cooling_bindings = 0;	// thermal instances bound from its cooling maps
};

// A cpufreq policy as its driver and the core set it up (scheduler builds).
struct CpufreqPolicy {
	std::vector<unsigned> cpus;		// related_cpus
	std::string driver;			// the registered cpufreq driver
	std::uint64_t transition_latency_ns = 0;	// cpuinfo's, as the driver set it
	bool eternal = false;			// CPUFREQ_ETERNAL: the driver does not know
	std::uint64_t clock_latency_ns = 0;	// the OPPs' clock-latency-ns (OPP library)
	std::uint64_t voltage_latency_ns = 0;	// the supplies' ramp over the OPPs' voltages
	unsigned transition_delay_us = 0;	// the driver's own, 0: none
	unsigned rate_limit_us = 0;		// schedutil's rate_limit_us in use
	unsigned policy_rate_limit_us = 0;	// cpufreq_policy_transition_delay_us() for it
	bool fast_switch = false;
	bool governor_per_policy = false;
};

struct Kernel {
	std::vector<CpuState> cpus;
	std::vector<CpufreqPolicy> cpufreq_policies;
	std::vector<PerfDomain> perf_domains;
	// Whether the scheduler itself (core.c, fair.c, topology.c, schedutil)
	// is compiled in for this tree; without it, only capacities and the EM.
	bool scheduler = false;
	// With the scheduler: whether sched_energy_enabled() is true, and the
	// kernel's reason when not. Without: whether EAS could run.
	bool eas = false;
	std::string eas_reason;
	// The cpuidle governor in use, "" when no CPU has a cpuidle driver.
	std::string cpuidle_governor;
	// The root domain's perf domains (rd->pd), in list order.
	std::vector<std::vector<unsigned>> root_perf_domains;
	// What the kernel printed at KERN_WARNING or worse.
	std::vector<std::string> messages;
	// One per distinct sensor the DT's thermal zones read (scheduler builds).
	std::vector<ThermalZoneState> thermal_zones;
};

// The kernel tree this build compiled, and each of its files that went in,
// with the sha256 of the bytes compiled.
struct UpstreamFile {
	std::string path;	// relative to the tree
	std::string sha256;
};
// An option where the harness's configuration differs from the
// flavour's defconfig (docs/architecture.md says why, for each).
struct ConfigDeparture {
	std::string option;
	std::string defconfig;	// the defconfig's value ("n": not set)
	std::string harness;
};

struct BuildInfo {
	std::string tree;
	std::string version;
	std::string flavour;	// "arm64" or "arm": the boards this build boots
	std::string defconfig;	// arch/<flavour>/configs/<file> it is configured from
	std::vector<std::string> from_defconfig;	// "CONFIG_HZ=100", ...
	std::vector<ConfigDeparture> departures;
	std::vector<UpstreamFile> files;
};
BuildInfo build_info();

// A board of another architecture than this build's flavour (32-bit arm
// boards boot the arm flavour, the others arm64): `needed` names the
// flavour that boots it.
class WrongFlavour : public std::runtime_error {
public:
	WrongFlavour(std::string needed_flavour, const std::string &what)
		: std::runtime_error(what), needed(std::move(needed_flavour))
	{
	}
	std::string needed;
};

// The command runs an image's kernel (--kernel; $SCHED_HARNESS_IMAGE names
// its directory) but the dynamic loader found no library of this flavour
// there and took the build's own: the image's flavours are built when a
// board first needs them. main() builds it and runs the command again.
class ImageLacksFlavour : public std::runtime_error {
public:
	ImageLacksFlavour(std::string flavour_, std::string image_, const std::string &what)
		: std::runtime_error(what), flavour(std::move(flavour_)), image(std::move(image_))
	{
	}
	std::string flavour;
	std::string image;
};

// Throws ImageLacksFlavour when the kernel loaded is not the image's;
// boot() and whatever reports the kernel (kernel info) call it first.
void require_image_kernel();

// A kernel parameter, sysctl or scheduler feature the kernel does not have
// (or rejects): bad input, with the valid names in the message.
class BadParameter : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// What the simulated clock (sched_clock(), ktime_get()) reads when the
// kernel boots; boot itself takes no simulated time.
inline constexpr std::uint64_t boot_clock_ns = 1'000'000;

struct BootOptions {
	// Kernel command line, through the kernel's __setup()/early_param()
	// handlers. "sched_verbose" ("sched_debug" before 5.13) is always given
	// first, so that the kernel
	// prints its sched domains and says why EAS is off.
	std::string cmdline;
	// "kernel.sched_energy_aware=0": written after boot, through the
	// sysctl's own proc_handler, as /etc/sysctl.conf would be.
	std::vector<std::string> sysctls;
	// "UTIL_EST=off", "NO_UTIL_EST", "TTWU_QUEUE=on": debug.c's
	// sched_feat_set(), after boot.
	std::vector<std::string> features;
	// Seeds get_random_bytes() (and so every prandom state).
	std::uint64_t seed = 0;
	// Every thermal zone's governor ("power_allocator"), as written to its
	// sysfs policy file after boot; empty: the kernel's default.
	std::string thermal_governor;
};

// Boots the compiled kernel code on the board: of_* tree from its blob,
// per-CPU areas, topology and capacities (arch_topology.c), one cpufreq
// policy per frequency domain with OPPs, the energy model (energy_model.c),
// and with the scheduler compiled in: run queues, idle tasks, sched domains
// and perf domains (topology.c), schedutil on every policy.
// Throws KernelFault if kernel code faults during boot, BadParameter for
// an unknown or rejected option.
Kernel boot(const dts::Platform &platform, const BootOptions &options = {});

// What the kernel accepts, for messages and `sched-harness kernel info`.
std::vector<std::string> kernel_parameters();	// __setup()/early_param() names
std::vector<std::string> sysctl_names();	// "kernel.sched_..."
std::vector<std::string> sched_features();	// features.h names

// The kernel's current view (after boot, after thermal pressure changes...).
Kernel snapshot();

// topology_update_thermal_pressure(cpus, capped_freq): frequency capping by
// a cooling device, as the thermal framework reports it.
void update_thermal_pressure(std::span<const unsigned> cpus, unsigned long capped_khz);

} // namespace sh::kshim
