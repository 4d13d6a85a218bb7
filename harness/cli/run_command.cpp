// SPDX-License-Identifier: GPL-2.0
//
// sched-harness run [--board B] [--workload W] [--duration T] [--json] [--trace FILE [--trace-events LIST]]
//                   [kernel options]
// sched-harness workloads
#include "harness/cli/cli.h"

#include "harness/image/image.h"

#include "dts/platform.h"
#include "harness/report/ftrace.h"
#include "harness/report/trace_dat.h"
#include "harness/report/platform_report.h"
#include "harness/report/plot.h"
#include "harness/report/run_report.h"
#include "harness/sim/simulator.h"
#include "harness/workload/workload.h"
#include "kernel-shim/kernel.h"

#include <boost/program_options.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

constexpr const char *default_workload = "periodic:count=24,period=16ms,duty=10%";
constexpr std::int64_t default_duration_ns = 10'000'000'000;

// "10s", "500ms"; a plain number is seconds, as rt-app's global duration.
// A time option's value: a plain number is seconds (--duration 10).
std::int64_t duration_option(const std::string &text, std::string_view option = "--duration")
{
	std::int64_t plain = 0;
	auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), plain);
	try {
		if (ec == std::errc() && ptr == text.data() + text.size()) {
			if (plain <= 0)
				throw UsageError{fmt::format("{} {}: must be positive", option, text)};
			return workload::checked_ns(plain, 1'000'000'000, fmt::format("{} {} s", option, text));
		}
		if (ec == std::errc::result_out_of_range)
			throw UsageError{fmt::format("{} {}: out of range", option, text)};
		return workload::parse_duration(text, std::string(option));
	} catch (const workload::Error &e) {
		throw UsageError{e.what()};
	}
}

// A hardware latency (--ipi-latency 2us): 0 (none) to 10 ms; 0 unless given.
std::int64_t latency_option(const boost::program_options::variables_map &vm, const char *name)
{
	if (!vm.count(name))
		return 0;
	const auto text = vm[name].as<std::string>();
	if (text == "0")
		return 0;
	const auto ns = duration_option(text, fmt::format("--{}", name));
	if (ns > 10'000'000)
		throw UsageError{fmt::format("--{} {}: at most 10ms", name, text)};
	return ns;
}

// "1=20000": idle power of frequency domain 1, µW per CPU.
void idle_power_option(const std::string &text, std::size_t domains, std::vector<std::uint64_t> &out)
{
	constexpr std::uint64_t most_uw = 100'000'000;	// 100 W: no CPU idles hotter
	const auto eq = text.find('=');
	std::size_t domain = 0;
	std::uint64_t uw = 0;
	if (eq == std::string::npos || !workload::whole_number(std::string_view(text).substr(0, eq), domain) ||
	    !workload::whole_number(std::string_view(text).substr(eq + 1), uw))
		throw UsageError{fmt::format("--idle-power {}: expected DOMAIN=MICROWATTS (e.g. 0=5000)", text)};
	if (uw > most_uw)
		throw UsageError{fmt::format("--idle-power {}: at most {} uW (100 W) per CPU", text, most_uw)};
	if (domain >= domains)
		throw UsageError{fmt::format("--idle-power {}: the board has frequency domains 0-{}", text,
					     domains ? domains - 1 : 0)};
	out.resize(domains, 0);
	out[domain] = uw;
}

} // namespace

// A frequency in kHz: a whole number of kHz, or a number with a unit
// (900000kHz, 900MHz, 1.2GHz) that comes to a whole number of kHz.
std::optional<std::uint64_t> frequency_khz(std::string_view text)
{
	std::size_t digits = 0;
	while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
		digits++;
	std::string_view whole = text.substr(0, digits), fraction;
	auto rest = text.substr(digits);
	if (!rest.empty() && rest.front() == '.') {
		std::size_t n = 1;
		while (n < rest.size() && std::isdigit(static_cast<unsigned char>(rest[n])))
			n++;
		fraction = rest.substr(1, n - 1);
		rest = rest.substr(n);
		if (fraction.empty())
			return std::nullopt;
	}
	if (whole.empty() || whole.size() > 12)
		return std::nullopt;
	int scale = 0;	// decimal digits from the unit to kHz
	if (rest == "kHz")
		scale = 0;
	else if (rest == "MHz")
		scale = 3;
	else if (rest == "GHz")
		scale = 6;
	else if (!rest.empty())
		return std::nullopt;
	if (rest.empty() && !fraction.empty())
		return std::nullopt;	// a plain number is whole kHz
	std::uint64_t khz = 0;
	for (const char c : whole)
		khz = khz * 10 + static_cast<unsigned>(c - '0');
	for (int i = 0; i < scale; i++) {
		khz *= 10;
		if (static_cast<std::size_t>(i) < fraction.size())
			khz += static_cast<unsigned>(fraction[static_cast<std::size_t>(i)] - '0');
	}
	for (std::size_t i = static_cast<std::size_t>(scale); i < fraction.size(); i++)
		if (fraction[i] != '0')
			return std::nullopt;	// finer than a kHz
	return khz;
}

// The lowest OPP a CPU can run at (its frequency domain's table, turbo
// OPPs left out as cpufreq leaves them out with boost off), in kHz; none
// when the device tree holds no OPPs for it (firmware's).
std::optional<std::uint64_t> lowest_opp_khz(const dts::Platform &platform, unsigned cpu)
{
	std::optional<std::size_t> table = platform.cpus[cpu].opp_table;
	for (const auto &d : platform.frequency_domains)
		if (d.opp_table && std::ranges::find(d.cpus, cpu) != d.cpus.end())
			table = d.opp_table;
	if (!table)
		return std::nullopt;
	std::optional<std::uint64_t> lowest;
	for (const auto &opp : platform.opp_tables[*table].opps)
		if (!opp.turbo && (!lowest || opp.hz / 1000 < *lowest))
			lowest = opp.hz / 1000;
	return lowest;
}

// --thermal-cap CPUS=FREQ@T: "4-7=1000000@2s", "4-7=1.2GHz@2s", "0=off@5s".
// A cap below the lowest OPP of a CPU it names is refused: the board
// would run at that OPP, not throttle further (MHz typed for kHz).
sim::Options::ThermalCap thermal_cap_option(const std::string &text, const dts::Platform &platform)
{
	const auto nr_cpus = platform.cpus.size();
	const auto eq = text.find('='), at = text.find('@');
	if (eq == std::string::npos || at == std::string::npos || at < eq)
		throw UsageError{fmt::format("--thermal-cap {}: expected CPUS=KHZ@TIME, e.g. 4-7=1000000@2s", text)};
	sim::Options::ThermalCap cap;
	try {
		for (const unsigned c : workload::parse_cpu_list(text.substr(0, eq), "--thermal-cap"))
			cap.cpus.push_back(c);
		cap.at_ns = workload::parse_duration(text.substr(at + 1), "--thermal-cap " + text);
	} catch (const workload::Error &e) {
		throw UsageError{e.what()};
	}
	const auto khz = text.substr(eq + 1, at - eq - 1);
	if (khz != "off") {
		const auto value = frequency_khz(khz);
		if (!value || *value == 0 || *value > 100'000'000)
			throw UsageError{fmt::format("--thermal-cap {}: \"{}\" is not a frequency in kHz (or with a unit: "
						     "900MHz, 1.2GHz; or off)",
						     text, khz)};
		cap.khz = static_cast<unsigned>(*value);
	}
	for (const unsigned c : cap.cpus)
		if (c >= nr_cpus)
			throw UsageError{fmt::format("--thermal-cap {}: the board has CPU0-{}", text, nr_cpus - 1)};
	if (!cap.khz)
		return cap;
	std::map<std::uint64_t, std::vector<unsigned>> below;	// the lowest OPP: the CPUs above the cap
	for (const unsigned c : cap.cpus)
		if (const auto lowest = lowest_opp_khz(platform, c); lowest && cap.khz < *lowest)
			below[*lowest].push_back(c);
	if (!below.empty()) {
		std::vector<std::string> opps;
		for (auto &[lowest, cpus] : below) {
			std::ranges::sort(cpus);
			opps.push_back(fmt::format("CPU{}'s lowest OPP, {} kHz", report::cpu_list(cpus), lowest));
		}
		// a plain number that would be a frequency in MHz
		const bool mhz = std::isdigit(static_cast<unsigned char>(khz.back())) && cap.khz <= 100'000;
		throw UsageError{fmt::format("--thermal-cap {}: {} kHz is below {}{}", text, cap.khz,
					     fmt::join(opps, ", and "),
					     mhz ? fmt::format("; a number without a unit is kHz ({}MHz for MHz)", khz)
						 : "")};
	}
	return cap;
}

namespace {

// The trace's subsystems, in the writer's order: "sched, power, ...".
std::string trace_subsystems()
{
	std::vector<std::string_view> subsystems;
	for (const auto &e : report::trace_events())
		if (std::ranges::find(subsystems, e.subsystem) == subsystems.end())
			subsystems.push_back(e.subsystem);
	return fmt::format("{}", fmt::join(subsystems, ", "));
}

po::options_description run_options()
{
	po::options_description options("run options");
	options.add_options()
		("help,h", "show this help")
		("board", po::value<std::string>()->default_value(default_board),
		 "a board name from 'platform list', or a .dts/.dtb path")
		("overlay", po::value<std::vector<std::string>>()->value_name("FILE")->composing(),
		 "device-tree overlay applied to the board; repeatable")
		("workload", po::value<std::string>()->default_value(default_workload),
		 "a built-in NAME:key=value,... (see 'sched-harness workloads') or an rt-app .json file")
		("duration", po::value<std::string>()->value_name("T"),
		 "simulated time (10s, 500ms; a plain number is seconds); default: the rt-app file's "
		 "global duration, else 10s. Finite workloads stop when every task has ended")
		("idle-power", po::value<std::vector<std::string>>()->value_name("DOMAIN=UW")->composing(),
		 "power of an idle CPU of frequency domain DOMAIN (as numbered in the report), in µW; "
		 "default 0; repeatable")
		("fork-cpu", po::value<Unsigned>()->default_value(Unsigned{0}, "0")->value_name("CPU"),
		 "the CPU the workload's threads are forked from (where its launcher runs); the "
		 "kernel's fork balancing places them from there")
		("idle-tick", po::value<std::string>()->default_value("kernel")->value_name("kernel|retain|stop"),
		 "what an idle CPU does with its tick: what the kernel's idle loop decides (the default: "
		 "kept on the first pass, stopped once a tick arrives while idle), or, for an experiment, "
		 "always keep it or always stop it (tickless idle)")
		("jitter", po::value<double>()->default_value(1.0)->value_name("X"),
		 "run-to-run variation, drawn from --seed: each activation's work varies (sd 1%), threads "
		 "start 0-200 us late, timer interrupts arrive late (mean 2 us); X scales all three, 0 "
		 "gives the exact run")
		("kernel-time", po::value<std::string>()->default_value("on")->value_name("on|off"),
		 "kernel code takes simulated time on the CPU that runs it (on: the default), or none "
		 "(off: --kernel-cycles-per-block 0 --ipi-latency 0, the model before kernel time)")
		("ipi-latency", po::value<std::string>()->value_name("T"),
		 "an IPI's delivery from the sender's clock to the target's handler (default 0: no sourced "
		 "figure; the handler's own code takes its time)")
		("irq-entry-latency", po::value<std::string>()->value_name("T"),
		 "an interrupt's entry, from its arrival at a CPU to its handler (default 0: no sourced "
		 "figure; docs/kernel-time.md)")
		("wfi-exit-latency", po::value<std::string>()->value_name("T"),
		 "a CPU's wake-up from WFI, the default idle state (default 0: no measured figure; the "
		 "kernel's cpuidle drivers declare 1us for it; docs/kernel-time.md)")
		("kernel-profile", po::value<Unsigned>()->implicit_value(Unsigned{10}, "10")->value_name("N"),
		 "profile the kernel code the run executes and print the N functions (default 10) that "
		 "ran most basic blocks, as compiled: code inlined into a function counts as its own "
		 "(docs/kernel-time.md); the profile makes the run slower, not different")
		("kernel-cycles-per-block", po::value<double>()->value_name("X"),
		 "what a basic block of the tree's code costs, in cycles, on the CPUs of the highest "
		 "per-MHz performance (others in proportion to their capacity-dmips-mhz); 0: kernel code "
		 "takes no time (docs/kernel-time.md)")
		("thermal-cap", po::value<std::vector<std::string>>()->value_name("CPUS=KHZ@T")->composing(),
		 "from time T the CPUs' clocks run at most at KHZ (the highest OPP not above it; 'off' lifts "
		 "the cap), as a SoC's hardware throttles, and the kernel's thermal pressure follows "
		 "(topology_update_thermal_pressure(), as qcom-cpufreq-hw reports it); e.g. 4-7=1000000@2s. "
		 "A plain number is kHz; 1000MHz, 1GHz, 1000000kHz give the unit. A cap below the CPUs' "
		 "lowest OPP is refused. Repeatable")
		("thermal-model", po::value<std::vector<std::string>>()->value_name("SPEC")->composing(),
		 "the board's thermal model (what the thermal zones' sensors read): 'off', or RC "
		 "parameters for every zone or one, [ZONE:]r=K/W,c=J/K,ambient=C,initial=C (default "
		 "r=10,c=2,ambient=25, starting at ambient); repeatable, later ones win")
		("thermal-file", po::value<std::string>()->value_name("FILE"),
		 "the thermal model's parameters from a JSON file: {\"r\":..,\"c\":..,\"ambient\":..,"
		 "\"zones\":{\"NAME\":{...}}}; --thermal-model options apply on top")
		("watchdog", po::value<Unsigned>()->default_value(Unsigned{10}, "10"),
		 "seconds of wall time kernel code may run without returning to the simulator before the "
		 "run is stopped as a kernel hang (exit 3, the function named); 0: never")
		("count-eas", po::bool_switch(),
		 "count the wake-ups find_energy_efficient_cpu() placed: asks it once more before each "
		 "wake-up, on the same state (it has no tracepoint in this kernel); costs about a quarter "
		 "of the run's instructions on an EAS board")
		("json", po::bool_switch(), "print every metric as JSON")
		("details", po::bool_switch(),
		 "print every table after the summary: the board power model's split, thermal zones and cooling "
		 "devices, idle states, kernel time, the tasks")
		("trace", po::value<std::string>()->value_name("FILE"),
		 "write the kernel's tracepoints (sched_switch, sched_waking, sched_wakeup(_new), "
		 "sched_migrate_task, cpu_frequency, cpu_frequency_limits, cpu_idle, sched_overutilized, PELT, "
		 "thermal_temperature, thermal_zone_trip, cdev_update, thermal_power_allocator, "
		 "thermal_pressure_update) to FILE in ftrace's text format, or, for FILE.dat, in trace-cmd's "
		 "trace.dat (the kernel's own records of its ftrace events, and the harness's events for "
		 "the bare tracepoints: PELT, util_est, sched_overutilized); all of them, unless "
		 "--trace-events chooses")
		("trace-events", po::value<std::vector<std::string>>()->value_name("LIST")->composing(),
		 fmt::format("the events --trace writes, chosen as trace-cmd record -e chooses them: a "
			     "comma-separated list of events (sched_switch), subsystems (all their events: {}), "
			     "SUBSYSTEM:EVENT, shell globs (sched_pelt_*) or all; repeatable. Default: all. An "
			     "unknown name is refused with the list of events",
			     trace_subsystems())
			 .c_str())
		("trace-stacktrace", po::bool_switch(),
		 "after each event --trace writes, the kernel functions it fired in (innermost first, down to "
		 "where the CPU entered the kernel), as ftrace's stacktrace option writes them")
		("plot", po::value<std::string>()->value_name("FILE"),
		 "draw the run over time as SVG (FILE.svg) or PNG (FILE.png) with gnuplot: utilisation per "
		 "CPU, each frequency domain's clock, the thermal zones' temperatures, the thermal pressure")
		("series", po::value<std::string>()->value_name("FILE"),
		 "write the same samples as CSV: per CPU util_avg, clock, capacity_of(), thermal pressure "
		 "(instantaneous, PELT average, 6.12's cpufreq pressure); per zone the temperature")
		("board-power", po::value<std::string>()->value_name("FILE|none"),
		 "the board's power model (JSON; docs/power.md): per frequency domain the busy power at each "
		 "OPP (default: the energy model's), the cluster's and its cores' leakage while powered (by "
		 "voltage and temperature), the cluster's own power active and idle, each idle state's power, "
		 "the idle states that power a core or the cluster off. The report's energy is the board's; "
		 "the energy model's estimate is shown beside it. Default: the file shipped for the board "
		 "(odroid-xu3/xu4, hikey960, rk3399, juno, juno-r2), if any; 'none': busy power only")
		("sample-period", po::value<std::string>()->value_name("T"),
		 "time between samples for --plot and --series (default: the duration / 1000, at least 1ms)");
	options.add(kernel_boot_options());
	return options;
}

std::optional<sim::IdleTick> idle_tick_option(const std::string &text)
{
	for (auto p : {sim::IdleTick::kernel, sim::IdleTick::retain, sim::IdleTick::stop})
		if (sim::to_string(p) == text)
			return p;
	return std::nullopt;
}

// --thermal-file, then --thermal-model on top: zones the board has.
void read_thermal_model(const po::variables_map &vm, const dts::Platform &platform, sim::Options &options)
{
	try {
		if (vm.count("thermal-file"))
			options.thermal.add_file(vm["thermal-file"].as<std::string>());
	} catch (const sim::thermal::Error &e) {
		throw UsageError{fmt::format("--thermal-file: {}", e.what())};
	}
	try {
		if (vm.count("thermal-model"))
			for (const auto &spec : vm["thermal-model"].as<std::vector<std::string>>())
				options.thermal.add_option(spec);
	} catch (const sim::thermal::Error &e) {
		throw UsageError{e.what()};
	}
	for (const auto &[name, params] : options.thermal.zones)
		if (std::ranges::none_of(platform.thermal_zones, [&](const auto &z) { return z.name == name; }))
			throw UsageError{fmt::format("--thermal-model/--thermal-file: the board has no thermal zone "
						     "'{}'", name)};
}

// --sample-period for --plot and --series, and --plot's file type.
void read_sampling(const po::variables_map &vm, sim::Options &options)
{
	if (vm.count("sample-period") && !vm.count("plot") && !vm.count("series"))
		throw UsageError{"--sample-period: for --plot or --series"};
	if (!vm.count("plot") && !vm.count("series"))
		return;
	if (vm.count("sample-period")) {
		options.series_period_ns = duration_option(vm["sample-period"].as<std::string>(), "--sample-period");
		if (options.series_period_ns < 1'000)
			throw UsageError{fmt::format("--sample-period {}: at least 1us", vm["sample-period"].as<std::string>())};
	} else {
		options.series_period_ns = std::max<std::int64_t>(options.duration_ns / 1000, 1'000'000);
	}
	if (options.duration_ns / options.series_period_ns > 10'000'000)
		throw UsageError{fmt::format("--sample-period: {} samples; at most 10000000",
					     options.duration_ns / options.series_period_ns)};
	if (vm.count("plot")) {
		try {
			report::gnuplot_terminal(vm["plot"].as<std::string>(), 1, 1);	// the extension
		} catch (const report::PlotError &e) {
			throw UsageError{e.what()};
		}
	}
}

// The simulation's options but the kernel's (the seed) and the trace's.
sim::Options simulation_options(const po::variables_map &vm, const dts::Platform &platform,
				const workload::Workload &workload, std::optional<std::int64_t> duration)
{
	sim::Options options;
	const auto idle_tick = vm["idle-tick"].as<std::string>();
	const auto policy = idle_tick_option(idle_tick);
	if (!policy)
		throw UsageError{fmt::format("--idle-tick {}: say kernel, retain or stop", idle_tick)};
	options.idle_tick = *policy;
	options.fork_cpu = bounded_option(vm, "fork-cpu", workload::max_cpu_number);
	if (options.fork_cpu >= platform.cpus.size())
		throw UsageError{fmt::format("--fork-cpu {}: the board has CPU0-{}", options.fork_cpu,
					     platform.cpus.size() - 1)};
	options.duration_ns = duration.value_or(workload.duration_ns.value_or(default_duration_ns));
	options.count_eas_decisions = vm["count-eas"].as<bool>();
	if (vm.count("kernel-profile")) {
		options.kernel_profile_functions = bounded_option(vm, "kernel-profile", 100000);
		if (!options.kernel_profile_functions)
			throw UsageError{"--kernel-profile 0: say how many functions to print, at least 1"};
	}
	options.jitter = vm["jitter"].as<double>();
	if (!(options.jitter >= 0 && options.jitter <= 100))
		throw UsageError{fmt::format("--jitter {}: a scale from 0 (none) to 100", options.jitter)};
	const auto kernel_time = vm["kernel-time"].as<std::string>();
	if (kernel_time != "on" && kernel_time != "off")
		throw UsageError{fmt::format("--kernel-time {}: say on or off", kernel_time)};
	// checked here; the board's figures fill those not given (simulate())
	options.ipi_latency_ns = latency_option(vm, "ipi-latency");
	options.irq_entry_ns = latency_option(vm, "irq-entry-latency");
	options.wfi_exit_ns = latency_option(vm, "wfi-exit-latency");
	if (kernel_time == "off") {
		for (const char *name : {"kernel-cycles-per-block", "ipi-latency", "irq-entry-latency", "wfi-exit-latency"})
			if (vm.count(name))
				throw UsageError{fmt::format("--kernel-time off with --{}: off means kernel code and "
							     "the hardware's latencies take no time",
							     name)};
		options.kernel_cycles_per_block = 0;
		options.ipi_latency_ns = 0;
		options.irq_entry_ns = 0;
		options.wfi_exit_ns = 0;
	}
	if (vm.count("kernel-cycles-per-block")) {
		options.kernel_cycles_per_block = vm["kernel-cycles-per-block"].as<double>();
		if (!(options.kernel_cycles_per_block >= 0 && options.kernel_cycles_per_block <= 1000))
			throw UsageError{fmt::format("--kernel-cycles-per-block {}: from 0 (untimed) to 1000",
						     options.kernel_cycles_per_block)};
	}
	if (vm.count("idle-power"))
		for (const auto &p : vm["idle-power"].as<std::vector<std::string>>())
			idle_power_option(p, platform.frequency_domains.size(), options.idle_power_uw);
	if (vm.count("thermal-cap"))
		for (const auto &c : vm["thermal-cap"].as<std::vector<std::string>>())
			options.thermal_caps.push_back(thermal_cap_option(c, platform));
	std::ranges::stable_sort(options.thermal_caps, {}, &sim::Options::ThermalCap::at_ns);
	read_thermal_model(vm, platform, options);
	read_sampling(vm, options);
	return options;
}

// What a run is given, all of it checked before the kernel boots.
struct RunSettings {
	std::string board;
	dts::Platform platform;
	workload::Workload workload;
	sim::Options options;
	std::optional<std::ofstream> series_file;	// --series, opened (a path that cannot be written is bad input)
	report::TraceEvents trace_events;	// --trace-events
};

// --trace-events: for --trace, each item a known event or subsystem.
report::TraceEvents trace_events_option(const po::variables_map &vm)
{
	if (vm["trace-stacktrace"].as<bool>() && !vm.count("trace"))
		throw UsageError{"--trace-stacktrace: for --trace (it adds stacks to the trace file)"};
	if (!vm.count("trace-events"))
		return {};
	if (!vm.count("trace"))
		throw UsageError{"--trace-events: for --trace (it chooses the events the trace file holds)"};
	try {
		return report::TraceEvents::parse(vm["trace-events"].as<std::vector<std::string>>());
	} catch (const report::TraceEventsError &e) {
		throw UsageError{fmt::format("--trace-events {}", e.what())};
	}
}

RunSettings settings_of(const Context &ctx, const po::variables_map &vm)
{
	// The board first: one of the other flavour re-runs this command line
	// in the other binary, which must find the workload still unread (a
	// pipe as /dev/stdin is read once).
	std::optional<std::int64_t> duration;
	if (vm.count("duration"))
		duration = duration_option(vm["duration"].as<std::string>());
	auto trace_events = trace_events_option(vm);
	const auto board = vm["board"].as<std::string>();
	auto platform = load_board(ctx, board, vm);
	auto workload = workload::make_workload(vm["workload"].as<std::string>());
	auto options = simulation_options(vm, platform, workload, duration);
	RunSettings settings{board, std::move(platform), std::move(workload), std::move(options), {},
			     std::move(trace_events)};
	if (vm.count("series")) {
		settings.series_file.emplace(vm["series"].as<std::string>());
		if (!*settings.series_file)
			throw UsageError{fmt::format("--series {}: cannot write it: {}", vm["series"].as<std::string>(),
						     std::strerror(errno))};
	}
	return settings;
}

#if SH_KERNEL_SCHEDULER
// --trace's writer: events only, so the run is traced rather than sampled.
// FILE.dat is trace-cmd's format, any other name ftrace's text.
struct TraceFile {
	std::optional<report::FtraceWriter> text;
	std::optional<report::TraceDatWriter> dat;

	sim::EventSink *sink() { return text ? static_cast<sim::EventSink *>(&*text) : dat ? &*dat : nullptr; }
	void close()
	{
		if (text)
			text->close();
		if (dat)
			dat->close();
	}
};

TraceFile open_trace(const po::variables_map &vm, RunSettings &settings)
{
	TraceFile trace;
	if (!vm.count("trace"))
		return trace;
	const std::filesystem::path path = vm["trace"].as<std::string>();
	const auto nr_cpus = static_cast<unsigned>(settings.platform.cpus.size());
	const bool dat = path.extension() == ".dat";
	if (dat && vm["trace-stacktrace"].as<bool>())
		throw UsageError{"--trace-stacktrace: for a text trace (a .dat file holds the kernel's records only)"};
	try {
		if (dat)
			trace.dat.emplace(path, nr_cpus, settings.trace_events);
		else
			trace.text.emplace(path, nr_cpus, settings.trace_events);
	} catch (const std::runtime_error &e) {
		throw UsageError{e.what()};	// a path that cannot be written: bad input
	}
	if (trace.text)
		trace.text->stacktrace(vm["trace-stacktrace"].as<bool>());
	settings.options.trace_only_events = true;
	return trace;
}

// The hardware latencies a run charges: each option given, else the
// board file's figure (0 where it has none), and where each came from;
// --kernel-time off charges none.
sim::HardwareLatencies hardware_latencies(const po::variables_map &vm, const sim::PowerModelChoice &power,
					  sim::Options &options)
{
	sim::HardwareLatencies out;
	const bool timed = vm["kernel-time"].as<std::string>() == "on";
	for (auto [name, board, charged, source] :
	     {std::tuple{"ipi-latency", &power.latencies.ipi, &options.ipi_latency_ns, &out.ipi},
	      std::tuple{"irq-entry-latency", &power.latencies.irq_entry, &options.irq_entry_ns, &out.irq_entry},
	      std::tuple{"wfi-exit-latency", &power.latencies.wfi_exit, &options.wfi_exit_ns, &out.wfi_exit}}) {
		if (!timed) {
			*source = {0, "--kernel-time off"};
		} else if (vm.count(name)) {
			*source = {*charged, fmt::format("--{}", name)};
		} else {
			*charged = board->ns.value_or(0);
			*source = {board->ns, power.latencies_file.empty()
						      ? board->source
						      : fmt::format("{}: {}", power.latencies_file, board->source)};
		}
	}
	return out;
}

// Boots the kernel and runs the workload on it.
sim::Result simulate(const po::variables_map &vm, RunSettings &settings)
{
	auto trace = open_trace(vm, settings);
	const auto boot = boot_options(vm);
	settings.options.seed = boot.seed;
	kshim::arm_watchdog(bounded_option(vm, "watchdog", 86400));
	const auto kernel = kshim::boot(settings.platform, boot);
	sim::PowerModelChoice power;
	try {
		power = sim::choose_power_model(
			vm.count("board-power") ? std::optional(vm["board-power"].as<std::string>()) : std::nullopt,
			settings.platform, kernel);
	} catch (const sim::PowerModelError &e) {
		throw UsageError{fmt::format("--board-power {}", e.what())};	// "FILE: why"
	}
	settings.options.power_model = std::move(power.model);
	const auto latencies = hardware_latencies(vm, power, settings.options);
	sim::Result result;
	try {
		result = sim::simulate(settings.platform, kernel, settings.workload, settings.options,
				       trace.sink());
	} catch (const sim::PowerModelError &e) {
		throw UsageError{fmt::format("--board-power {}: {}", power.file, e.what())};
	}
	result.latency_sources = latencies;
	if (settings.options.power_model)
		result.power_model_file = power.file;
	result.power_model_skipped = power.skipped;
	kshim::disarm_watchdog();
	trace.close();
	result.board = settings.board;
	result.board_model = settings.platform.model;
	result.kernel = kshim::build_info().version;
	if (const auto image = image::image_in_use())
		result.kernel_image = image::describe(image->manifest);
	result.seed = boot.seed;
	return result;
}

// --series, --plot, then the report on stdout.
void write_reports(const Context &ctx, const po::variables_map &vm, const sim::Result &result, RunSettings &settings)
{
	if (settings.series_file) {
		*settings.series_file << report::series_csv(result);
		if (!settings.series_file->flush())
			throw report::WriteError(fmt::format("--series {}: writing it failed: {}",
							     vm["series"].as<std::string>(), std::strerror(errno)));
	}
	if (vm.count("plot")) {
		try {
			report::draw_run(result, vm["plot"].as<std::string>());
		} catch (const report::PlotError &e) {
			throw UsageError{e.what()};
		}
	}
	if (vm["json"].as<bool>())
		ctx.out << report::run_json(result);
	else
		ctx.out << (vm["details"].as<bool>() ? report::run_details_text(result) : report::run_text(result));
}
#endif

} // namespace

int run_command(const Context &ctx, const std::vector<std::string> &args)
{
	const auto options = run_options();
	po::options_description hidden;
	po::positional_options_description positional;
	auto parsed = parse_subcommand(ctx, args, options, hidden, positional,
				       "usage: sched-harness run [--board B] [--workload W] [--duration T] [--json] "
				       "[--trace FILE [--trace-events LIST]]\n"
				       "              [--cmdline ARGS] [--sysctl NAME=VALUE]... [--feature NAME=on|off]... "
				       "[--seed N]\n\n"
				       "Runs a workload on the board through the kernel's scheduler and prints energy,\n"
				       "completion time or throughput, latencies, OPP residency, migrations and the\n"
				       "behaviour fingerprint. Default: 24 periodic tasks (16 ms, 10%) on the Odroid-XU3\n"
				       "for 10 simulated seconds.\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	auto settings = settings_of(ctx, vm);
#if SH_KERNEL_SCHEDULER
	const auto result = simulate(vm, settings);
	if (ctx.verbose)
		for (const auto &line : kshim::kernel_log())
			ctx.err << "kernel: " << line.text << "\n";
	write_reports(ctx, vm, result, settings);
	return kernel_warnings_status(ctx);
#else
	throw UsageError{fmt::format("run needs the scheduler compiled in; this build's tree {} ({}) has only "
				     "PELT, the energy model and arch_topology so far",
				     ctx.kernel_tree.string(), kshim::build_info().version)};
#endif
}

int workloads_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description options("workloads options");
	options.add_options()("help,h", "show this help");
	po::options_description hidden;
	po::positional_options_description positional;
	if (!parse_subcommand(ctx, args, options, hidden, positional,
			      "usage: sched-harness workloads\n\nLists the built-in workloads and their parameters.\n"))
		return exit_ok;
	std::string text = "Built-in workloads (--workload NAME:key=value,...; durations as 16ms, 500us, 2s):\n";
	for (const auto &gen : workload::generators()) {
		text += fmt::format("\n  {}\n", gen.name);
		text += fmt::format("    {}\n", gen.summary);
		for (const auto &p : gen.parameters)
			text += fmt::format("    {:<14} {:<8} {}\n", p.name, p.default_value, p.help);
	}
	text += "\nOr an rt-app JSON file: --workload path/to/file.json (rt-app's grammar: global, tasks,\n"
		"phases, run, runtime, sleep, timer, suspend/resume, lock/unlock, wait/signal/broad/sync,\n"
		"barrier, yield; SCHED_OTHER tasks only for now).\n";
	ctx.out << text;
	return exit_ok;
}

} // namespace sh::cli
