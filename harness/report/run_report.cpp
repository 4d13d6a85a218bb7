// SPDX-License-Identifier: GPL-2.0
#include "harness/report/run_report.h"
#include "support/lists.h"

#include <algorithm>
#include <span>

#include <fmt/format.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace sh::report {

namespace {

// "-" for none: a column never left empty
std::string cpus_text(std::span<const unsigned> cpus)
{
	auto s = support::range_list(cpus);
	return s.empty() ? "-" : s;
}

std::string seconds(std::int64_t ns) { return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9); }
std::string ms(std::int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); }
std::string us(std::int64_t ns) { return fmt::format("{:.1f}", static_cast<double>(ns) / 1e3); }
std::string mhz(unsigned khz) { return fmt::format("{} MHz", khz / 1000); }

double percent(std::int64_t part, std::int64_t whole)
{
	return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string energy_unit(const sim::Result &r) { return r.power_in_microwatts ? "J" : "(abstract EM units)"; }

// `head` then `text`, broken at spaces into lines of at most `width`
// columns, the continuation lines indented under the text's start.
std::string wrapped(std::string_view head, std::string_view text, std::size_t width = 100)
{
	const auto first_newlines = head.find_first_not_of('\n');
	const std::size_t indent = head.size() - (first_newlines == std::string_view::npos ? 0 : first_newlines);
	std::string out(head);
	std::size_t column = indent;
	bool line_start = true;
	while (!text.empty()) {
		const auto space = text.find(' ');
		const auto word = text.substr(0, space);
		text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
		if (!line_start && column + 1 + word.size() > width) {
			out += '\n';
			out.append(indent, ' ');
			column = indent;
			line_start = true;
		}
		if (!line_start) {
			out += ' ';
			column++;
		}
		out += word;
		column += word.size();
		line_start = false;
	}
	return out + "\n";
}

// What ran where, with which scheduler settings: the report's heading.
void append_run_setup(std::string &s, const sim::Result &r)
{
	s += fmt::format("sched-harness run: {}{} on Linux {}'s scheduler{}\n", r.board,
			 r.board_model.empty() ? "" : fmt::format(" ({})", r.board_model), r.kernel,
			 r.kernel_image.empty() ? "" : ", " + r.kernel_image);
	s += fmt::format("Workload:   {}\n", r.workload);
	s += fmt::format("            run amounts are work on CPU{} (capacity {}) at its highest OPP; "
			 "threads forked from CPU{}\n",
			 r.calibration_cpu, r.calibration_capacity, r.fork_cpu);
	s += fmt::format("Simulated:  {}", seconds(r.simulated_ns));
	if (r.completion_ns)
		s += fmt::format(" — every task ended: completion time {}\n", seconds(*r.completion_ns));
	else if (r.finite)
		s += fmt::format(" — the duration ran out before every task ended (not completed)\n");
	else
		s += fmt::format(" (the workload runs until the duration ends)\n");
	s += fmt::format("EAS:        {}\n", r.eas ? "on" : fmt::format("off — {}", r.eas_reason));
}

void append_tick(std::string &s, const sim::Result &r)
{
	const auto hz = r.tick_ns ? 1'000'000'000ULL / r.tick_ns : 0;
	switch (r.idle_tick) {
	case sim::IdleTick::kernel:
		if (r.cpuidle_governor.empty())
			s += fmt::format("Tick:       {} Hz; idle CPUs stop it as the kernel's idle loop decides (no "
					 "cpuidle driver: kept on the first pass, stopped once a tick arrives while "
					 "idle; --idle-tick retain|stop to force)\n",
					 hz);
		else
			s += fmt::format("Tick:       {} Hz; idle CPUs stop it as the cpuidle governor ({}) decides with "
					 "the idle state it picks (--idle-tick retain|stop to force)\n",
					 hz, r.cpuidle_governor);
		break;
	case sim::IdleTick::stop:
		s += fmt::format("Tick:       {} Hz on busy CPUs; idle CPUs are tickless (--idle-tick stop: NO_HZ_IDLE's "
				 "nohz idle balance, kicked from busy CPUs' ticks, balances for them)\n",
				 hz);
		break;
	case sim::IdleTick::retain:
		s += fmt::format("Tick:       {} Hz on every CPU: idle CPUs keep their tick (--idle-tick retain)\n", hz);
		break;
	}
}

void append_seed(std::string &s, const sim::Result &r)
{
	s += fmt::format("Seed:       {}; {}\n", r.seed,
			 r.jitter > 0 ? fmt::format("jitter {} (work sd {:.1f}%, start 0-{:.0f} us, timer +{:.1f} us mean; "
						    "--jitter 0 for the exact run)",
						    r.jitter, 100 * r.jitter * sim::jitter_run_sd,
						    r.jitter * sim::jitter_start_max_ns / 1e3,
						    r.jitter * sim::jitter_timer_mean_ns / 1e3)
				      : "no jitter (the exact run)");
}

// One row per frequency domain, then the total.
void append_energy_domains(std::string &s, const sim::Result &r)
{
	if (!r.power_model_skipped.empty())
		s += wrapped("\nEnergy: busy-only: ", r.power_model_skipped + ":");
	s += r.power_model.empty()
		? fmt::format("{}Energy: busy-only (no board power model: no leakage, idle states or cluster power; "
			      "docs/power.md): per frequency domain, the power of the OPP in use (the kernel's energy "
			      "model) x busy time, plus --idle-power x idle time:\n",
			      r.power_model_skipped.empty() ? "\n" : "")
		: fmt::format("\nEnergy: per frequency domain, the board power model's: busy power at the OPP in use, "
			      "idle power in each idle state, the cluster's and its cores' leakage while powered, "
			      "the cluster's own power:\n");
	s += fmt::format("  {:<10} {:>12} {:>13} {:>12} {:>10}  {}\n", "domain", "energy", "idle power", "freq changes",
			 "latency", "OPP residency: share of the time (busy CPU-seconds)");
	for (std::size_t i = 0; i < r.domains.size(); i++) {
		const auto &d = r.domains[i];
		std::string res;
		for (const auto &o : d.residency) {
			if (!o.ns)
				continue;
			res += fmt::format("{}{} {:.1f}% ({:.3f})", res.empty() ? "" : ", ", mhz(o.khz),
					   percent(o.ns, r.simulated_ns), static_cast<double>(o.busy_ns) / 1e9);
		}
		s += fmt::format("  {:<10} {:>10.4f} {} {:>10} uW {:>12} {:>7} us  {}\n",
				 fmt::format("{}: {}", i, cpus_text(d.cpus)), d.energy_j,
				 r.power_in_microwatts ? "J" : "?", d.idle_power_uw, d.frequency_changes,
				 d.transition_latency_ns / 1000, d.has_energy_model ? res : res + " (no energy model)");
	}
	s += fmt::format("  {:<10} {:>10.4f} {}{}\n", "total", r.energy_j, energy_unit(r),
			 r.energy_complete ? "" : "  (some CPUs have no energy model: their energy is not counted)");
}

// Only with a board power model: where its figures come from, each
// domain's energy split, its package budget.
void append_power_model(std::string &s, const sim::Result &r)
{
	s += fmt::format("  board power model: {}{}\n", r.power_model_file.empty() ? "" : r.power_model_file + ": ",
			 r.power_model);
	if (r.power_unit_mw)
		s += fmt::format("  the file's units (a legacy sched-energy table's) converted through the energy model: "
				 "1 unit = {:.4f} mW\n",
				 *r.power_unit_mw);
	s += fmt::format("  {:<10} {:>12} {:>12} {:>12}  {}\n", "domain", "dynamic", "static", "idle",
			 "(dynamic: busy CPUs and the active cluster; static: leakage while powered; idle: idle "
			 "CPUs and the idle cluster)");
	for (std::size_t i = 0; i < r.domains.size(); i++) {
		const auto &d = r.domains[i];
		s += fmt::format("  {:<10} {:>10.4f} J {:>10.4f} J {:>10.4f} J  {}\n",
				 fmt::format("{}: {}", i, cpus_text(d.cpus)), d.dynamic_energy_j, d.static_energy_j,
				 d.idle_energy_j,
				 d.off_ns > 0 ? fmt::format("cluster powered off {:.1f}% of the time",
							    percent(d.off_ns, r.simulated_ns))
					      : std::string());
	}
	if (r.package_budget_mw) {
		std::string ceilings;
		for (const auto &o : r.package_ceiling)
			ceilings += fmt::format("{}{} {:.1f}%", ceilings.empty() ? "" : ", ", mhz(o.khz),
						percent(o.ns, r.simulated_ns));
		s += fmt::format("  package budget {:.0f} mW: the CPUs held at or below {}\n", *r.package_budget_mw,
				 ceilings);
	}
	if (r.smt_model)
		s += "  SMT threads of a core slow each other (the model's smt_speed)\n";
}

// Whether a CPU lost capacity to a cap: held by the board or limited by
// its policy, or under thermal pressure.
bool lost_capacity(const sim::CpuResult &c)
{
	return c.capped_ns > 0 || c.limited_ns > 0 || c.thermal_pressure_avg > 0;
}

// Busy time, and the capacity the CPUs lost to thermal and cpufreq
// pressure (those lines only when some CPU had any).
void append_cpu_load(std::string &s, const sim::Result &r)
{
	s += "  busy:   ";
	for (const auto &c : r.cpus)
		s += fmt::format(" cpu{} {:.1f}%", c.id, percent(c.busy_ns, r.simulated_ns));
	s += "\n";
	if (std::any_of(r.cpus.begin(), r.cpus.end(), lost_capacity)) {
		s += "  thermal pressure (capacity lost averaged, its PELT average averaged, time capped by the "
		     "board / limited by the policy):\n   ";
		for (const auto &c : r.cpus)
			if (lost_capacity(c))
				s += fmt::format(" cpu{} {:.1f} {:.1f} {:.1f}%/{:.1f}%", c.id, c.thermal_pressure_avg,
						 c.thermal_load_avg, percent(c.capped_ns, r.simulated_ns),
						 percent(c.limited_ns, r.simulated_ns));
		s += "\n";
	}
	if (std::any_of(r.cpus.begin(), r.cpus.end(), [](const auto &c) { return c.cpufreq_pressure_avg > 0; })) {
		s += "  cpufreq pressure (the capacity a limited policy max takes, averaged):";
		for (const auto &c : r.cpus)
			if (c.cpufreq_pressure_avg > 0)
				s += fmt::format(" cpu{} {:.1f}", c.id, c.cpufreq_pressure_avg);
		s += "\n";
	}
}

void append_energy(std::string &s, const sim::Result &r)
{
	append_energy_domains(s, r);
	if (!r.power_model.empty())
		append_power_model(s, r);
	s += fmt::format("  the energy model's estimate (busy time x its power, what EAS optimises): {:.4f} {}\n",
			 r.em_energy_j, energy_unit(r));
	append_cpu_load(s, r);
}

void append_thermal_zones(std::string &s, const sim::Result &r)
{
	s += fmt::format("\nThermal zones (the kernel's thermal framework on the board's {} model):\n",
			 r.thermal_model);
	s += fmt::format("  {:<16} {:<16} {:>7} {:>7} {:>7} {:>7}  {}\n", "zone", "governor", "min C", "mean C",
			 "max C", "end C", "time at or above each trip");
	for (const auto &z : r.thermal_zones) {
		std::string trips;
		for (const auto &t : z.trips)
			trips += fmt::format("{}{} {:.0f} C {} {:.1f}%", trips.empty() ? "" : ", ", t.type,
					     t.temperature_c, t.name, percent(t.above_ns, r.simulated_ns));
		s += fmt::format("  {:<16} {:<16} {:>7.1f} {:>7.1f} {:>7.1f} {:>7.1f}  {}\n", z.name, z.governor,
				 z.min_c, z.mean_c, z.max_c, z.end_c, trips.empty() ? "-" : trips);
	}
	for (const auto &c : r.cooling_devices) {
		std::string states;
		for (std::size_t i = 0; i < c.state_ns.size(); i++)
			if (c.state_ns[i])
				states += fmt::format("{}{} {:.1f}%", states.empty() ? "" : ", ", i,
						      percent(c.state_ns[i], r.simulated_ns));
		s += fmt::format("  cooling device {} (cpufreq, CPUs {}): states 0-{}, time in each: {} "
				 "({} updates)\n",
				 c.id, cpus_text(c.cpus), c.max_state, states, c.updates);
	}
}

void append_thermal(std::string &s, const sim::Result &r)
{
	if (!r.thermal_zones.empty())
		append_thermal_zones(s, r);
	else if (!r.thermal_model.empty() && !r.thermal_model.starts_with("none"))
		s += fmt::format("\nThermal model: {}\n", r.thermal_model);
}

void append_scheduler(std::string &s, const sim::Result &r)
{
	s += fmt::format("\nScheduler:\n");
	if (r.eas_decisions_counted)
		s += fmt::format("  wake-ups {}: EAS (find_energy_efficient_cpu() chose) {}, other {}, pinned {}{}\n",
				 r.wakeups, r.eas_wakeups, r.non_eas_wakeups, r.pinned_wakeups,
				 r.requeued_wakeups ? fmt::format(", still queued (delayed dequeue) {}", r.requeued_wakeups)
						    : "");
	else
		s += fmt::format("  wake-ups {} ({} pinned; --count-eas counts those EAS placed)\n", r.wakeups,
				 r.pinned_wakeups);
	s += fmt::format("  overutilized {:.1f}% of the time, {} context switches, {} migrations, {} ticks\n",
			 percent(r.overutilized_ns, r.simulated_ns), r.context_switches, r.migrations, r.ticks);
	const auto &l = r.wakeup_latency_ns;
	s += fmt::format("  wake-up latency (us, {} wake-ups): min {} p50 {} p90 {} p99 {} p99.9 {} max {}\n", l.count,
			 us(l.min), us(l.p50), us(l.p90), us(l.p99), us(l.p999), us(l.max));
	s += fmt::format("  throughput: {:.3f} x CPU{} at its highest OPP (work done per second)\n", r.throughput,
			 r.calibration_cpu);
}

void append_kernel_profile(std::string &s, const sim::Result &r);

struct KernelTotals {
	std::uint64_t blocks = 0;
	std::int64_t ns = 0;
};
// The kernel code's blocks and time, over every kind of entry.
KernelTotals kernel_totals(const sim::Result &r)
{
	KernelTotals t;
	for (const auto &k : r.kernel_cost) {
		t.blocks += k.blocks;
		t.ns += k.ns;
	}
	return t;
}

// A latency charged as 0 because no option gave it and the board file has
// no figure for it.
bool unsourced(std::int64_t charged_ns, const sim::HardwareLatency &given)
{
	return !charged_ns && !given.ns && !given.source.empty();
}

// "IPI 1.5 us", or "IPI unsourced (0)".
std::string latency_text(std::string_view what, std::int64_t charged_ns, const sim::HardwareLatency &given)
{
	if (unsourced(charged_ns, given))
		return fmt::format("{} unsourced (0)", what);
	return fmt::format("{} {:g} us", what, static_cast<double>(charged_ns) / 1e3);
}

// Where a latency came from, as --details and the JSON give it.
std::string latency_source(const sim::HardwareLatency &given)
{
	return given.ns ? given.source : "unsourced: " + given.source;
}

// What the kernel's code cost: basic blocks (deterministic, independent of
// the clocks) and their time at the clocks they ran at.
void append_kernel_time(std::string &s, const sim::Result &r)
{
	const auto [blocks, ns] = kernel_totals(r);
	s += fmt::format("\nKernel code (basic blocks of the tree's code executed; {}):\n",
			 r.kernel_cycles_per_block > 0
				 ? fmt::format("{:g} cycles per block on the fastest CPUs", r.kernel_cycles_per_block)
				 : std::string("untimed: --kernel-cycles-per-block 0"));
	const double cpu_ns = static_cast<double>(r.simulated_ns) * static_cast<double>(r.cpus.size());
	s += fmt::format("  {} blocks, {:.3f} ms on the CPUs ({:.3f}% of their time); spinning on locks {:.3f} ms\n",
			 blocks, static_cast<double>(ns) / 1e6,
			 cpu_ns > 0 ? 100.0 * static_cast<double>(ns) / cpu_ns : 0.0,
			 static_cast<double>(r.lock_spin_ns) / 1e6);
	s += fmt::format("  IPI delivery {} ns, interrupt entry {} ns, WFI exit {} ns; {} IPIs taken while another "
			 "CPU's code ran (at its lock acquisitions); concurrent entries switched {} times, "
			 "{} joined a group of an earlier instant\n",
			 r.ipi_latency_ns, r.irq_entry_ns, r.wfi_exit_ns, r.ipis_taken_at_locks, r.interleavings,
			 r.joined_interrupts);
	for (auto [what, given] : {std::pair{"IPI delivery", &r.latency_sources.ipi},
				   std::pair{"interrupt entry", &r.latency_sources.irq_entry},
				   std::pair{"WFI exit", &r.latency_sources.wfi_exit}})
		if (!given->source.empty())
			s += wrapped(fmt::format("  {}: ", what), latency_source(*given));
	std::string per;
	for (const auto &o : sim::kernel_overhead(r))
		if (o.blocks)
			per += fmt::format("{}{} {:.0f} ({:.2f} us)", per.empty() ? "" : ", ", o.what, *o.blocks,
					   *o.ns / 1e3);
	if (!per.empty())
		s += fmt::format("  per {}\n", per);
	std::string kinds;
	for (const auto &k : r.kernel_cost)
		if (k.blocks)
			kinds += fmt::format("{}{} {} ({:.3f} ms)", kinds.empty() ? "" : ", ", k.kind, k.blocks,
					     static_cast<double>(k.ns) / 1e6);
	if (!kinds.empty())
		s += fmt::format("  by kind: {}\n", kinds);
	append_kernel_profile(s, r);
}

// --kernel-profile's functions, when asked for.
void append_kernel_profile(std::string &s, const sim::Result &r)
{
	if (r.kernel_functions.empty())
		return;
	const auto blocks = kernel_totals(r).blocks;
	s += fmt::format("  the {} functions that ran most blocks, of the {} that ran any (code inlined into a "
			 "function counts as its own):\n",
			 r.kernel_functions.size(), r.kernel_functions_found);
	for (const auto &f : r.kernel_functions)
		s += fmt::format("    {:>12} {:6.2f}%  {}\n", f.blocks,
				 blocks ? 100.0 * static_cast<double>(f.blocks) / static_cast<double>(blocks) : 0.0,
				 f.function);
}

// Only on boards with a cpuidle driver.
void append_idle_states(std::string &s, const sim::Result &r)
{
	s += fmt::format("\nIdle states (cpuidle driver's, {} governor): entries, residency (above/below: "
			 "the kernel's count of sleeps too short for the state / long enough for a deeper "
			 "one):\n",
			 r.cpuidle_governor);
	for (const auto &c : r.cpus) {
		std::string row;
		for (const auto &st : c.idle_states)
			row += fmt::format("{}{} {}x {:.3f} s ({}/{})", row.empty() ? "" : ", ", st.name, st.entries,
					   static_cast<double>(st.residency_ns) / 1e9, st.above, st.below);
		s += fmt::format("  cpu{}: {}\n", c.id, row.empty() ? "-" : row);
	}
}

void append_tasks(std::string &s, const sim::Result &r)
{
	// a table for people: --json is where a large workload's tasks are
	constexpr std::size_t max_rows = 32;
	s += fmt::format("\nTasks ({}{}):\n", r.tasks.size(),
			 r.tasks.size() > max_rows ? fmt::format(", the first {}; --json has all", max_rows) : "");
	s += fmt::format("  {:<16} {:>10} {:>9} {:>24} {:>17} {:>6} {:>5}  {:<8} {}\n", "task", "cpu ms", "wait ms",
			 "latency us p50/p99/max", "slack ms min/mean", "missed", "migr", "CPUs", "end");
	for (std::size_t i = 0; i < r.tasks.size() && i < max_rows; i++) {
		const auto &t = r.tasks[i];
		const auto &w = t.wakeup_latency_ns;
		s += fmt::format("  {:<16} {:>10} {:>9} {:>24} {:>17} {:>6} {:>5}  {:<8} {}\n", t.name, ms(t.cpu_time_ns),
				 ms(t.runnable_wait_ns),
				 w.count ? fmt::format("{}/{}/{}", us(w.p50), us(w.p99), us(w.max)) : "-",
				 t.periods ? fmt::format("{}/{}", ms(t.slack_min_ns), ms(t.slack_mean_ns)) : "-",
				 t.periods ? fmt::format("{}", t.missed_periods) : "-", t.migrations,
				 cpus_text(t.cpus_used),
				 t.exit_ns ? fmt::format("exited at {}", seconds(*t.exit_ns)) : t.state);
	}
}

void append_fingerprint(std::string &s, const sim::Result &r)
{
	s += fmt::format("\nFingerprint: {:016x} ({} placements, switches, migrations and frequency changes)\n",
			 r.fingerprint, r.fingerprint_events);
	if (r.kernel_warnings)
		s += fmt::format("Kernel WARNINGs: {} (see stderr)\n", r.kernel_warnings);
}

} // namespace

std::string run_details_text(const sim::Result &r)
{
	std::string s;
	append_run_setup(s, r);
	append_tick(s, r);
	append_seed(s, r);
	append_energy(s, r);
	append_thermal(s, r);
	append_scheduler(s, r);
	append_kernel_time(s, r);
	if (!r.cpuidle_governor.empty())
		append_idle_states(s, r);
	append_tasks(s, r);
	append_fingerprint(s, r);
	return s;
}

namespace {

// A domain's time at each frequency, in short, within `width` columns:
// the frequencies (MHz) that held it longest, in frequency order with
// rounded shares; the rest summed as "others".
std::string residency_in_short(const sim::DomainResult &d, std::int64_t simulated_ns, std::size_t width)
{
	struct Share {
		unsigned mhz;
		double percent;
	};
	std::vector<Share> kept;
	for (const auto &o : d.residency)
		if (o.ns)
			kept.push_back({o.khz / 1000, percent(o.ns, simulated_ns)});
	if (kept.size() == 1 && kept.front().mhz == 0)
		return "no OPPs: one fixed clock";
	double rest = 0;
	auto text = [&] {
		std::string out;
		for (const auto &k : kept)
			out += fmt::format("{}{} {:.0f}%", out.empty() ? "" : ", ", k.mhz, k.percent);
		if (rest >= 0.05)
			out += fmt::format("{}others {:.1f}%", out.empty() ? "" : ", ", rest);
		return out;
	};
	auto shortest = [&] {
		return std::min_element(kept.begin(), kept.end(),
					[](const Share &a, const Share &b) { return a.percent < b.percent; });
	};
	// under 1% is noise at this resolution; then as many as fit
	while (!kept.empty() && (shortest()->percent < 1.0 || text().size() > width)) {
		const auto drop = shortest();
		rest += drop->percent;
		kept.erase(drop);
	}
	const auto out = text();
	return out.empty() ? "-" : out;
}

void append_energy_in_short(std::string &s, const sim::Result &r)
{
	const auto unit = energy_unit(r);
	if (!r.power_model.empty()) {
		const auto built_in = r.power_model_file.find(" (built in");
		const auto file = r.power_model_file.empty()	  ? std::string("board power model")
				  : built_in == std::string::npos ? r.power_model_file
								  : r.power_model_file.substr(0, built_in) + ", built in";
		s += wrapped("Energy:     ", fmt::format("{:.4f} {} on the board ({}); {:.4f} {} the energy model's "
							 "estimate",
							 r.energy_j, unit, file, r.em_energy_j, unit));
	}
	else if (!r.power_model_skipped.empty())
		s += wrapped(fmt::format("Energy:     {:.4f} {} busy-only: ", r.energy_j, unit), r.power_model_skipped);
	else
		s += fmt::format("Energy:     {:.4f} {} busy-only (no board power model for this board: "
				 "docs/power.md)\n",
				 r.energy_j, unit);
	if (!r.energy_complete)
		s += "            some CPUs have no energy model: their energy is not counted\n";
	s += fmt::format("  {:<6} {:<8} {:>10} {:>6}  {}\n", "domain", "CPUs", "energy", "busy",
			 "time at each frequency (MHz share)");
	for (std::size_t i = 0; i < r.domains.size(); i++) {
		const auto &d = r.domains[i];
		std::int64_t busy = 0;
		for (unsigned c : d.cpus)
			if (c < r.cpus.size())
				busy += r.cpus[c].busy_ns;
		const auto busy_share = d.cpus.empty() ? 0.0 : percent(busy, r.simulated_ns) / d.cpus.size();
		s += fmt::format("  {:<6} {:<8} {:>8.4f} {} {:>5.1f}%  {}\n", i, cpus_text(d.cpus), d.energy_j,
				 r.power_in_microwatts ? "J" : "?", busy_share,
				 d.has_energy_model ? residency_in_short(d, r.simulated_ns, 62)
						    : residency_in_short(d, r.simulated_ns, 44) + " (no energy model)");
	}
}

void append_scheduler_in_short(std::string &s, const sim::Result &r)
{
	const auto &l = r.wakeup_latency_ns;
	if (l.count)
		s += fmt::format("Latency:    wake-up to running (us), {} wake-ups: p50 {}, p90 {}, p99 {}, max {}\n",
				 l.count, us(l.p50), us(l.p90), us(l.p99), us(l.max));
	else
		s += "Latency:    no wake-ups\n";
	s += fmt::format("Scheduler:  overutilized {:.1f}% of the time; {} context switches, {} migrations\n",
			 percent(r.overutilized_ns, r.simulated_ns), r.context_switches, r.migrations);
	std::size_t periods = 0, missed = 0, periodic = 0;
	for (const auto &t : r.tasks) {
		periods += t.periods;
		missed += t.missed_periods;
		periodic += t.periods > 0;
	}
	s += fmt::format("Tasks:      {}; throughput {:.3f} x CPU{} at its highest OPP{}\n", r.tasks.size(),
			 r.throughput, r.calibration_cpu,
			 periodic ? fmt::format("; {} of {} periods missed", missed, periods) : "");
}

void append_thermal_in_short(std::string &s, const sim::Result &r)
{
	if (r.thermal_zones.empty())
		return;
	const auto hottest = std::max_element(r.thermal_zones.begin(), r.thermal_zones.end(),
					      [](const auto &a, const auto &b) { return a.max_c < b.max_c; });
	std::string reached;
	std::size_t more = 0;
	for (const auto &z : r.thermal_zones)
		for (const auto &t : z.trips) {
			if (!t.above_ns)
				continue;
			if (reached.size() < 40)
				reached += fmt::format("{}{} {} {:.1f}%", reached.empty() ? "" : ", ", z.name, t.name,
						       percent(t.above_ns, r.simulated_ns));
			else
				more++;
		}
	s += fmt::format("Thermal:    hottest {} at {:.1f} C; {}{}\n", hottest->name, hottest->max_c,
			 reached.empty() ? "no trip reached" : "above trips: " + reached,
			 more ? fmt::format(" and {} more", more) : "");
	std::vector<unsigned> capped;
	for (const auto &c : r.cpus)
		if (lost_capacity(c))
			capped.push_back(c.id);
	if (!capped.empty())
		s += fmt::format("            CPUs {} lost capacity to thermal pressure (--details)\n", cpus_text(capped));
}

void append_latencies_in_short(std::string &s, const sim::Result &r)
{
	const auto &given = r.latency_sources;
	if (unsourced(r.ipi_latency_ns, given.ipi) && unsourced(r.irq_entry_ns, given.irq_entry) &&
	    unsourced(r.wfi_exit_ns, given.wfi_exit)) {
		s += "Hardware:   IPI, interrupt entry and WFI exit latencies unsourced: 0 (--details: why)\n";
		return;
	}
	s += fmt::format("Hardware:   {}, {}, {} (--details)\n", latency_text("IPI", r.ipi_latency_ns, given.ipi),
			 latency_text("interrupt entry", r.irq_entry_ns, given.irq_entry),
			 latency_text("WFI exit", r.wfi_exit_ns, given.wfi_exit));
}

void append_overhead_in_short(std::string &s, const sim::Result &r)
{
	const auto [blocks, ns] = kernel_totals(r);
	const double cpu_ns = static_cast<double>(r.simulated_ns) * static_cast<double>(r.cpus.size());
	std::string per_wakeup;
	for (const auto &o : sim::kernel_overhead(r))
		if (std::string_view(o.name) == "wakeup" && o.ns)
			per_wakeup = fmt::format(", {:.2f} us per wake-up", *o.ns / 1e3);
	if (r.kernel_cycles_per_block > 0)
		s += fmt::format("Overhead:   the kernel's code ran {:.3f} ms of CPU time ({:.3f}% of it){}\n",
				 static_cast<double>(ns) / 1e6, cpu_ns > 0 ? 100.0 * static_cast<double>(ns) / cpu_ns : 0.0,
				 per_wakeup);
	else
		s += fmt::format("Overhead:   the kernel's code ran {} basic blocks (untimed: "
				 "--kernel-cycles-per-block 0)\n",
				 blocks);
}

} // namespace

std::string run_text(const sim::Result &r)
{
	std::string s;
	s += fmt::format("sched-harness run: {}{}, Linux {}'s scheduler{}\n", r.board,
			 r.board_model.empty() ? "" : fmt::format(" ({})", r.board_model), r.kernel,
			 r.kernel_image.empty() ? "" : ", " + r.kernel_image);
	s += fmt::format("Workload:   {}\n", r.workload);
	std::string simulated = seconds(r.simulated_ns);
	if (r.completion_ns)
		simulated += fmt::format(" (every task ended: completion time {})", seconds(*r.completion_ns));
	else if (r.finite)
		simulated += " (the duration ran out before every task ended)";
	s += fmt::format("Simulated:  {}; seed {}, {}\n", simulated, r.seed,
			 r.jitter > 0 ? fmt::format("jitter {}", r.jitter) : "no jitter");
	s += r.eas ? std::string("EAS:        on\n") : wrapped("EAS:        off: ", r.eas_reason);
	s += "\n";
	append_energy_in_short(s, r);
	s += "\n";
	append_scheduler_in_short(s, r);
	append_thermal_in_short(s, r);
	append_overhead_in_short(s, r);
	append_latencies_in_short(s, r);
	append_kernel_profile(s, r);
	append_fingerprint(s, r);
	s += "More:       --details (power model, thermal zones, idle states, kernel time, tasks), --json\n";
	return s;
}

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void key(Writer &w, std::string_view k) { w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); }
void str(Writer &w, std::string_view v) { w.String(v.data(), static_cast<rapidjson::SizeType>(v.size())); }

void distribution(Writer &w, const sim::Distribution &d)
{
	w.StartObject();
	key(w, "count");
	w.Uint64(d.count);
	for (auto [name, v] : {std::pair{"min", d.min}, {"p50", d.p50}, {"p90", d.p90}, {"p99", d.p99},
			       {"p99_9", d.p999}, {"max", d.max}}) {
		key(w, name);
		w.Int64(v);
	}
	w.EndObject();
}

void cpu_array(Writer &w, const std::vector<unsigned> &cpus)
{
	w.StartArray();
	for (unsigned c : cpus)
		w.Uint(c);
	w.EndArray();
}

// Each element through `one`, as a JSON array.
template <typename T, typename Fn>
void json_array(Writer &w, const std::vector<T> &items, Fn one)
{
	w.StartArray();
	for (const auto &item : items)
		one(w, item);
	w.EndArray();
}

// Time at each frequency: [{"khz", "ns"[, "busy_ns"]}, ...].
void residency_array(Writer &w, const std::vector<sim::OppResidency> &residency, bool with_busy)
{
	w.StartArray();
	for (const auto &o : residency) {
		w.StartObject();
		key(w, "khz");
		w.Uint(o.khz);
		key(w, "ns");
		w.Int64(o.ns);
		if (with_busy) {
			key(w, "busy_ns");
			w.Int64(o.busy_ns);
		}
		w.EndObject();
	}
	w.EndArray();
}

// What ran where, with which scheduler settings.
void json_run_setup(Writer &w, const sim::Result &r)
{
	key(w, "board");
	str(w, r.board);
	key(w, "board_model");
	str(w, r.board_model);
	key(w, "kernel");
	str(w, r.kernel);
	if (!r.kernel_image.empty()) {	// only for an image: the build's own kernel's reports stay as they were
		key(w, "kernel_image");
		str(w, r.kernel_image);
	}
	key(w, "workload");
	str(w, r.workload);
	key(w, "seed");
	w.Uint64(r.seed);
	key(w, "calibration_cpu");
	w.Uint(r.calibration_cpu);
	key(w, "calibration_capacity");
	w.Uint64(r.calibration_capacity);
	key(w, "fork_cpu");
	w.Uint(r.fork_cpu);
	key(w, "duration_ns");
	w.Int64(r.duration_ns);
	key(w, "simulated_ns");
	w.Int64(r.simulated_ns);
	key(w, "finite");
	w.Bool(r.finite);
	key(w, "completion_ns");
	if (r.completion_ns)
		w.Int64(*r.completion_ns);
	else
		w.Null();
	key(w, "eas");
	w.Bool(r.eas);
	key(w, "eas_reason");
	str(w, r.eas_reason);
	key(w, "tick_ns");
	w.Uint64(r.tick_ns);
	key(w, "idle_tick");
	str(w, sim::to_string(r.idle_tick));
	key(w, "jitter");
	w.Double(r.jitter);
}

void json_energy(Writer &w, const sim::Result &r)
{
	key(w, "energy_unit");
	str(w, r.power_in_microwatts ? "J" : "abstract");
	key(w, "energy_complete");
	w.Bool(r.energy_complete);
	key(w, "energy_j");
	w.Double(r.energy_j);
	key(w, "em_energy_j");
	w.Double(r.em_energy_j);
	key(w, "power_model");
	if (r.power_model.empty())
		w.Null();
	else
		str(w, r.power_model);
	key(w, "power_model_file");
	if (r.power_model_file.empty())
		w.Null();
	else
		str(w, r.power_model_file);
	key(w, "power_model_skipped");
	if (r.power_model_skipped.empty())
		w.Null();
	else
		str(w, r.power_model_skipped);
	if (r.power_unit_mw) {
		key(w, "power_unit_mw");
		w.Double(*r.power_unit_mw);
	}
	if (r.package_budget_mw) {
		key(w, "package_budget_mw");
		w.Double(*r.package_budget_mw);
		key(w, "package_ceiling");
		residency_array(w, r.package_ceiling, false);
	}
	key(w, "smt_model");
	w.Bool(r.smt_model);
}

void json_domain(Writer &w, const sim::DomainResult &d)
{
	w.StartObject();
	key(w, "cpus");
	cpu_array(w, d.cpus);
	key(w, "energy_model");
	w.Bool(d.has_energy_model);
	key(w, "energy_j");
	w.Double(d.energy_j);
	key(w, "static_energy_j");
	w.Double(d.static_energy_j);
	key(w, "dynamic_energy_j");
	w.Double(d.dynamic_energy_j);
	key(w, "idle_energy_j");
	w.Double(d.idle_energy_j);
	key(w, "cluster_active_energy_j");
	w.Double(d.cluster_active_energy_j);
	key(w, "cluster_idle_energy_j");
	w.Double(d.cluster_idle_energy_j);
	key(w, "powered_off_ns");
	w.Int64(d.off_ns);
	key(w, "idle_power_uw");
	w.Uint64(d.idle_power_uw);
	key(w, "frequency_changes");
	w.Uint64(d.frequency_changes);
	key(w, "transition_latency_ns");
	w.Uint(d.transition_latency_ns);
	key(w, "opp_residency");
	residency_array(w, d.residency, true);
	w.EndObject();
}

void json_idle_state(Writer &w, const sim::IdleStateResult &st)
{
	w.StartObject();
	key(w, "name");
	str(w, st.name);
	key(w, "exit_latency_ns");
	w.Uint64(st.exit_latency_ns);
	key(w, "target_residency_ns");
	w.Uint64(st.target_residency_ns);
	key(w, "entries");
	w.Uint64(st.entries);
	key(w, "residency_ns");
	w.Uint64(st.residency_ns);
	key(w, "above");
	w.Uint64(st.above);
	key(w, "below");
	w.Uint64(st.below);
	w.EndObject();
}

void json_cpu(Writer &w, const sim::CpuResult &c)
{
	w.StartObject();
	key(w, "cpu");
	w.Uint(c.id);
	key(w, "busy_ns");
	w.Int64(c.busy_ns);
	key(w, "energy_j");
	w.Double(c.energy_j);
	key(w, "em_energy_j");
	w.Double(c.em_energy_j);
	key(w, "thermal_pressure_avg");
	w.Double(c.thermal_pressure_avg);
	key(w, "thermal_load_avg");
	w.Double(c.thermal_load_avg);
	key(w, "capped_ns");
	w.Int64(c.capped_ns);
	key(w, "limited_ns");
	w.Int64(c.limited_ns);
	key(w, "cpufreq_pressure_avg");
	w.Double(c.cpufreq_pressure_avg);
	key(w, "capacity_end");
	w.Uint64(c.capacity_end);
	key(w, "thermal_load_end");
	w.Uint64(c.thermal_load_end);
	key(w, "cpufreq_pressure_end");
	w.Uint64(c.cpufreq_pressure_end);
	key(w, "idle_states");
	json_array(w, c.idle_states, json_idle_state);
	key(w, "kernel_blocks");
	w.Uint64(c.kernel_blocks);
	key(w, "kernel_ns");
	w.Int64(c.kernel_ns);
	w.EndObject();
}

void optional_number(Writer &w, const std::optional<double> &v)
{
	v ? w.Double(*v) : w.Null();
}

void json_kernel_cost(Writer &w, const sim::KernelCost &k)
{
	w.StartObject();
	key(w, "kind");
	str(w, k.kind);
	key(w, "entries");
	w.Uint64(k.entries);
	key(w, "blocks");
	w.Uint64(k.blocks);
	key(w, "ns");
	w.Int64(k.ns);
	w.EndObject();
}

void json_kernel_time(Writer &w, const sim::Result &r)
{
	key(w, "kernel_time");
	w.StartObject();
	key(w, "cycles_per_block");
	w.Double(r.kernel_cycles_per_block);
	const auto [blocks, ns] = kernel_totals(r);
	key(w, "blocks");
	w.Uint64(blocks);
	key(w, "ns");
	w.Int64(ns);
	key(w, "lock_spin_ns");
	w.Int64(r.lock_spin_ns);
	key(w, "ipi_latency_ns");
	w.Int64(r.ipi_latency_ns);
	key(w, "irq_entry_ns");
	w.Int64(r.irq_entry_ns);
	key(w, "wfi_exit_ns");
	w.Int64(r.wfi_exit_ns);
	key(w, "latency_sources");
	w.StartObject();
	for (auto [name, given] : {std::pair{"ipi", &r.latency_sources.ipi},
				   std::pair{"irq_entry", &r.latency_sources.irq_entry},
				   std::pair{"wfi_exit", &r.latency_sources.wfi_exit}}) {
		key(w, name);
		if (given->source.empty())
			w.Null();
		else
			w.String(latency_source(*given).c_str());
	}
	w.EndObject();
	key(w, "ipis_taken_at_locks");
	w.Uint64(r.ipis_taken_at_locks);
	key(w, "interleavings");
	w.Uint64(r.interleavings);
	key(w, "joined_interrupts");
	w.Uint64(r.joined_interrupts);
	key(w, "per_event");
	w.StartObject();
	for (const auto &o : sim::kernel_overhead(r)) {
		key(w, o.name);
		w.StartObject();
		key(w, "blocks");
		optional_number(w, o.blocks);
		key(w, "ns");
		optional_number(w, o.ns);
		w.EndObject();
	}
	w.EndObject();
	key(w, "kinds");
	json_array(w, r.kernel_cost, json_kernel_cost);
	if (!r.kernel_functions.empty()) {
		key(w, "functions_found");
		w.Uint64(r.kernel_functions_found);
		key(w, "functions");
		json_array(w, r.kernel_functions, [](Writer &w, const sim::KernelFunctionCost &f) {
			w.StartObject();
			key(w, "function");
			str(w, f.function);
			key(w, "blocks");
			w.Uint64(f.blocks);
			w.EndObject();
		});
	}
	w.EndObject();
}

void json_scheduler(Writer &w, const sim::Result &r)
{
	key(w, "cpuidle_governor");
	str(w, r.cpuidle_governor);
	key(w, "wakeups");
	w.Uint64(r.wakeups);
	key(w, "eas_decisions_counted");
	w.Bool(r.eas_decisions_counted);
	key(w, "eas_wakeups");	// null unless counted (--count-eas)
	r.eas_decisions_counted ? w.Uint64(r.eas_wakeups) : w.Null();
	key(w, "non_eas_wakeups");
	r.eas_decisions_counted ? w.Uint64(r.non_eas_wakeups) : w.Null();
	key(w, "pinned_wakeups");
	w.Uint64(r.pinned_wakeups);
	key(w, "requeued_wakeups");	// null unless counted (--count-eas)
	r.eas_decisions_counted ? w.Uint64(r.requeued_wakeups) : w.Null();
	key(w, "overutilized_ns");
	w.Int64(r.overutilized_ns);
	key(w, "context_switches");
	w.Uint64(r.context_switches);
	key(w, "migrations");
	w.Uint64(r.migrations);
	key(w, "ticks");
	w.Uint64(r.ticks);
	key(w, "throughput");
	w.Double(r.throughput);
	key(w, "wakeup_latency_ns");
	distribution(w, r.wakeup_latency_ns);
	json_kernel_time(w, r);
}

void json_task(Writer &w, const sim::TaskResult &t)
{
	w.StartObject();
	key(w, "name");
	str(w, t.name);
	key(w, "pid");
	w.Int(t.pid);
	key(w, "cpu_time_ns");
	w.Int64(t.cpu_time_ns);
	key(w, "work_done");
	w.Int64(t.work_done);
	key(w, "runnable_wait_ns");
	w.Int64(t.runnable_wait_ns);
	key(w, "wakeup_latency_ns");
	distribution(w, t.wakeup_latency_ns);
	key(w, "periods");
	w.Uint64(t.periods);
	key(w, "missed_periods");
	w.Uint64(t.missed_periods);
	key(w, "slack_min_ns");
	w.Int64(t.slack_min_ns);
	key(w, "slack_mean_ns");
	w.Int64(t.slack_mean_ns);
	key(w, "migrations");
	w.Uint64(t.migrations);
	key(w, "cpus_used");
	cpu_array(w, t.cpus_used);
	key(w, "cpu_time_by_cpu_ns");
	w.StartArray();
	for (auto ns : t.cpu_time_by_cpu_ns)
		w.Int64(ns);
	w.EndArray();
	key(w, "state");
	str(w, t.state);
	key(w, "exit_ns");
	if (t.exit_ns)
		w.Int64(*t.exit_ns);
	else
		w.Null();
	w.EndObject();
}

// The RC network a zone's temperature follows.
void json_zone_model(Writer &w, const sim::ThermalZoneResult &z)
{
	w.StartObject();
	key(w, "resistance_k_per_w");
	w.Double(z.resistance_k_per_w);
	key(w, "capacitance_j_per_k");
	w.Double(z.capacitance_j_per_k);
	key(w, "ambient_c");
	w.Double(z.ambient_c);
	key(w, "initial_c");
	w.Double(z.initial_c);
	w.EndObject();
}

void json_trip(Writer &w, const sim::TripResult &t)
{
	w.StartObject();
	key(w, "name");
	str(w, t.name);
	key(w, "type");
	str(w, t.type);
	key(w, "temperature_c");
	w.Double(t.temperature_c);
	key(w, "above_ns");
	w.Int64(t.above_ns);
	w.EndObject();
}

void json_zone(Writer &w, const sim::ThermalZoneResult &z)
{
	w.StartObject();
	key(w, "name");
	str(w, z.name);
	key(w, "sensor");
	str(w, z.sensor);
	key(w, "governor");
	str(w, z.governor);
	key(w, "cpus");
	cpu_array(w, z.cpus);
	key(w, "model");
	json_zone_model(w, z);
	key(w, "min_c");
	w.Double(z.min_c);
	key(w, "mean_c");
	w.Double(z.mean_c);
	key(w, "max_c");
	w.Double(z.max_c);
	key(w, "end_c");
	w.Double(z.end_c);
	key(w, "heat_j");
	w.Double(z.heat_j);
	key(w, "trips");
	json_array(w, z.trips, json_trip);
	key(w, "sample_period_ns");
	w.Int64(z.sample_period_ns);
	key(w, "temperature_c");
	w.StartArray();
	for (const double t : z.temperature_c)
		w.Double(t);
	w.EndArray();
	key(w, "kernel_reads");
	w.Uint64(z.kernel_reads);
	key(w, "interrupts");
	w.Uint64(z.interrupts);
	w.EndObject();
}

void json_cooling_device(Writer &w, const sim::CoolingResult &c)
{
	w.StartObject();
	key(w, "id");
	w.Int(c.id);
	key(w, "cpus");
	cpu_array(w, c.cpus);
	key(w, "max_state");
	w.Uint64(c.max_state);
	key(w, "state_ns");
	w.StartArray();
	for (const auto ns : c.state_ns)
		w.Int64(ns);
	w.EndArray();
	key(w, "updates");
	w.Uint64(c.updates);
	w.EndObject();
}

void json_thermal(Writer &w, const sim::Result &r)
{
	key(w, "thermal_model");
	str(w, r.thermal_model);
	key(w, "thermal_zones");
	json_array(w, r.thermal_zones, json_zone);
	key(w, "cooling_devices");
	json_array(w, r.cooling_devices, json_cooling_device);
}

void json_fingerprint(Writer &w, const sim::Result &r)
{
	key(w, "fingerprint");
	str(w, fmt::format("{:016x}", r.fingerprint));
	key(w, "fingerprint_events");
	w.Uint64(r.fingerprint_events);
	key(w, "kernel_warnings");
	w.Uint64(r.kernel_warnings);
}

} // namespace

std::string run_json(const sim::Result &r)
{
	rapidjson::StringBuffer buf;
	Writer w(buf);
	w.StartObject();
	json_run_setup(w, r);
	json_energy(w, r);
	key(w, "domains");
	json_array(w, r.domains, json_domain);
	key(w, "cpus");
	json_array(w, r.cpus, json_cpu);
	json_scheduler(w, r);
	key(w, "tasks");
	json_array(w, r.tasks, json_task);
	json_thermal(w, r);
	json_fingerprint(w, r);
	w.EndObject();
	return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

} // namespace sh::report
