// SPDX-License-Identifier: GPL-2.0
//
// The kernel, booted on a board: what C++ sees of the upstream code running
// in this process. Kernel code keeps global state, so a process boots one
// board once (boot() refuses a second time); sweeps and variants run as
// separate processes.
#pragma once

#include "dts/platform.h"

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace sh::kshim {

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
	std::vector<long long> args;
};

// Every tracepoint hit since boot, in order.
const std::vector<TraceEvent> &trace_events();

// Turns an oops in kernel code (divide by zero, bad pointer) into a message
// naming the kernel function and exit status 3 instead of a bare crash.
// The sched-harness command installs it; Boost.Test programs keep Boost's
// own signal reporting.
void install_oops_handlers();

// Everything printk'd and every WARN hit since the process started.
const std::vector<LogLine> &kernel_log();
const std::vector<KernelWarning> &kernel_warnings();

struct PerfState {
	unsigned long frequency_khz = 0;
	unsigned long power = 0;	// uW when PerfDomain::microwatts
	unsigned long cost = 0;
	bool inefficient = false;
};

// One perf domain of the kernel's energy model (struct em_perf_domain).
struct PerfDomain {
	std::vector<unsigned> cpus;
	bool microwatts = true;
	std::vector<PerfState> states;
};

struct CpuState {
	unsigned id = 0;
	unsigned long capacity = 0;		// arch_scale_cpu_capacity()
	unsigned long freq_scale = 0;		// arch_scale_freq_capacity()
	unsigned long thermal_pressure = 0;	// arch_scale_thermal_pressure()
	int package_id = -1, cluster_id = -1, core_id = -1, thread_id = -1;
	int em_status = 0;	// dev_pm_opp_of_register_em() for its policy; 0: EM built
	bool has_policy = false;
};

struct Kernel {
	std::vector<CpuState> cpus;
	std::vector<PerfDomain> perf_domains;
	// Whether EAS could run, and the kernel's reason when it cannot.
	bool eas_possible = false;
	std::string eas_reason;
	// What the kernel printed at KERN_WARNING or worse.
	std::vector<std::string> messages;
};

// The kernel tree this build compiled, and each of its files that went in,
// with the sha256 of the bytes compiled.
struct UpstreamFile {
	std::string path;	// relative to the tree
	std::string sha256;
};
struct BuildInfo {
	std::string tree;
	std::string version;
	std::vector<UpstreamFile> files;
};
BuildInfo build_info();

// Boots the compiled kernel code on the board: of_* tree from its blob,
// per-CPU areas, topology and capacities (arch_topology.c), one cpufreq
// policy per frequency domain with OPPs, the energy model (energy_model.c).
// Throws KernelFault if kernel code faults during boot.
Kernel boot(const dts::Platform &platform);

// The kernel's current view (after boot, after thermal pressure changes...).
Kernel snapshot();

// topology_update_thermal_pressure(cpus, capped_freq): frequency capping by
// a cooling device, as the thermal framework reports it.
void update_thermal_pressure(std::span<const unsigned> cpus, unsigned long capped_khz);

} // namespace sh::kshim
