// SPDX-License-Identifier: GPL-2.0
#include "harness/report/platform_report.h"
#include "support/lists.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iterator>
#include <span>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace sh::report {

using dts::Platform;

std::string cpu_list(std::span<const unsigned> cpus)
{
	return support::range_list(cpus);
}

namespace {

// The energy model's flags as debugfs names the unit (kshim_em_power_unit())
const char *power_unit_name(kshim::PowerUnit unit)
{
	switch (unit) {
	case kshim::PowerUnit::microwatts:
		return "microwatts";
	case kshim::PowerUnit::milliwatts:
		return "milliwatts";
	case kshim::PowerUnit::abstract:
		break;
	}
	return "abstract";
}

std::string or_dash(const std::optional<std::uint32_t> &v)
{
	return v ? fmt::format("{}", *v) : "-";
}

std::string mhz(std::uint64_t hz)
{
	if (hz % 1000000 == 0)
		return fmt::format("{}", hz / 1000000);
	return fmt::format("{:.3f}", static_cast<double>(hz) / 1e6);
}

// Millicelsius as degrees, exactly, with at least one decimal: 65.0, 72.5,
// -0.001 (a rounded "-0.0" would hide a trip the kernel treats otherwise).
std::string celsius(std::int64_t millicelsius)
{
	const auto magnitude = millicelsius < 0 ? 0 - static_cast<std::uint64_t>(millicelsius)
						: static_cast<std::uint64_t>(millicelsius);
	auto text = fmt::format("{}{}.{:03}", millicelsius < 0 ? "-" : "", magnitude / 1000, magnitude % 1000);
	while (text.back() == '0' && text[text.size() - 2] != '.')
		text.pop_back();
	return text;
}

std::string cpu_map_text(const dts::CpuMapPosition &pos)
{
	std::string out;
	if (pos.socket)
		out += fmt::format("socket{}/", *pos.socket);
	for (auto c : pos.clusters)
		out += fmt::format("cluster{}/", c);
	out += fmt::format("core{}", pos.core);
	if (pos.thread)
		out += fmt::format("/thread{}", *pos.thread);
	return out;
}

std::string state_text(const std::optional<std::uint32_t> &state)
{
	return state ? fmt::format("{}", *state) : "no-limit";
}

// Devices that share a state range print together: "cpus 0-3 states 3..8,
// cpus 4-7 states 3..14, /pwm-fan states 0..1".
std::string cooling_text(const dts::CoolingMap &map)
{
	struct Group {
		std::string range;
		std::vector<unsigned> cpus;
		std::vector<std::string> others;
	};
	std::vector<Group> groups;
	for (const auto &dev : map.devices) {
		auto range = fmt::format("{}..{}", state_text(dev.min_state), state_text(dev.max_state));
		auto it = std::find_if(groups.begin(), groups.end(),
				       [&](const Group &g) { return g.range == range; });
		if (it == groups.end())
			it = groups.insert(groups.end(), Group{range, {}, {}});
		if (dev.cpu)
			it->cpus.push_back(*dev.cpu);
		else
			it->others.push_back(dev.node_path);
	}
	std::vector<std::string> parts;
	for (const auto &g : groups) {
		std::vector<std::string> targets;
		if (!g.cpus.empty())
			targets.push_back("cpus " + cpu_list(g.cpus));
		targets.insert(targets.end(), g.others.begin(), g.others.end());
		parts.push_back(fmt::format("{} states {}", fmt::join(targets, ", "), g.range));
	}
	return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ", "));
}

void write_cpus(fmt::memory_buffer &out, const Platform &p)
{
	fmt::format_to(std::back_inserter(out), "\nCPUs ({})\n", p.cpus.size());
	fmt::format_to(std::back_inserter(out), "{:>4}  {:<16} {:<18} {:<16} {:>9} {:>10} {:>7} {:>5} {:>8} {:>8}  {}\n",
		       "cpu", "node", "compatible", "cpu-map", "dmips/MHz", "power-coef", "cooling",
		       "OPPs", "min MHz", "max MHz", "idle states");
	for (const auto &cpu : p.cpus) {
		const dts::OppTable *table = cpu.opp_table ? &p.opp_tables[*cpu.opp_table] : nullptr;
		const bool has_opps = table && !table->opps.empty();
		std::vector<std::string> idle;
		for (auto i : cpu.idle_states)
			idle.push_back(p.idle_states[i].name);
		fmt::format_to(std::back_inserter(out),
			       "{:>4}  {:<16} {:<18} {:<16} {:>9} {:>10} {:>7} {:>5} {:>8} {:>8}  {}\n",
			       cpu.id, cpu.node_path,
			       cpu.compatible.empty() ? "-" : cpu.compatible.front(),
			       cpu.cpu_map ? cpu_map_text(*cpu.cpu_map) : "-",
			       or_dash(cpu.capacity_dmips_mhz), or_dash(cpu.dynamic_power_coefficient),
			       or_dash(cpu.cooling_cells), table ? fmt::format("{}", table->opps.size()) : "-",
			       has_opps ? mhz(table->opps.front().hz) : "-",
			       has_opps ? mhz(table->opps.back().hz) : "-",
			       idle.empty() ? "-" : fmt::format("{}", fmt::join(idle, ", ")));
	}
}

void write_domains(fmt::memory_buffer &out, const Platform &p)
{
	fmt::format_to(std::back_inserter(out), "\nFrequency domains ({})\n", p.frequency_domains.size());
	for (const auto &d : p.frequency_domains) {
		std::string table = "no OPP table";
		if (d.opp_table) {
			const auto &t = p.opp_tables[*d.opp_table];
			table = t.opps.empty() ? fmt::format("{} (no OPP)", t.node_path)
					       : fmt::format("{} ({} OPPs, {}-{} MHz)", t.node_path, t.opps.size(),
							     mhz(t.opps.front().hz), mhz(t.opps.back().hz));
		}
		fmt::format_to(std::back_inserter(out), "  cpus {:<8} {}  [{}]\n", cpu_list(d.cpus), table, d.why);
	}
}

void write_opp_tables(fmt::memory_buffer &out, const Platform &p)
{
	for (const auto &t : p.opp_tables) {
		std::string skipped;
		if (t.skipped_disabled)
			skipped += fmt::format(", {} disabled skipped", t.skipped_disabled);
		if (t.skipped_supported_hw)
			skipped += fmt::format(", {} skipped (opp-supported-hw)", t.skipped_supported_hw);
		if (t.skipped_regulator)
			skipped += fmt::format(", {} unavailable (voltage outside the CPU regulator's range)",
					       t.skipped_regulator);
		fmt::format_to(std::back_inserter(out), "\nOPP table {} ({}{}{})\n", t.node_path,
			       dts::to_string(t.binding), t.shared ? ", opp-shared" : "", skipped);
		fmt::format_to(std::back_inserter(out), "  {:>12} {:>24}  {}\n", "kHz", "microvolt", "flags");
		for (const auto &opp : t.opps) {
			std::vector<std::string> flags;
			if (opp.turbo)
				flags.emplace_back("turbo-mode");
			if (opp.suspend)
				flags.emplace_back("opp-suspend");
			fmt::format_to(std::back_inserter(out), "  {:>12} {:>24}  {}\n", opp.hz / 1000,
				       opp.microvolt.empty() ? "-" : fmt::format("{}", fmt::join(opp.microvolt, " ")),
				       fmt::join(flags, " "));
		}
	}
}

void write_idle_states(fmt::memory_buffer &out, const Platform &p)
{
	if (p.idle_states.empty())
		return;
	fmt::format_to(std::back_inserter(out), "\nIdle states ({})\n", p.idle_states.size());
	fmt::format_to(std::back_inserter(out), "  {:<22} {:>10} {:>10} {:>13} {:>10}  {}\n", "name",
		       "entry us", "exit us", "residency us", "wakeup us", "");
	for (const auto &s : p.idle_states)
		fmt::format_to(std::back_inserter(out), "  {:<22} {:>10} {:>10} {:>13} {:>10}  {}\n", s.name,
			       s.entry_latency_us, s.exit_latency_us, s.min_residency_us,
			       or_dash(s.wakeup_latency_us), s.local_timer_stop ? "local-timer-stop" : "");
}

void write_thermal(fmt::memory_buffer &out, const Platform &p)
{
	fmt::format_to(std::back_inserter(out), "\nThermal zones ({})\n", p.thermal_zones.size());
	for (const auto &z : p.thermal_zones) {
		std::vector<std::string> sensors;
		for (const auto &s : z.sensors)
			sensors.push_back(s.args.empty() ? s.node_path
							 : fmt::format("{} {}", s.node_path, fmt::join(s.args, " ")));
		fmt::format_to(std::back_inserter(out),
			       "  {}: polling {} ms, passive {} ms, sustainable-power {}, sensors {}\n",
			       z.name, z.polling_delay_ms, z.polling_delay_passive_ms,
			       z.sustainable_power_mw ? fmt::format("{} mW", *z.sustainable_power_mw) : "-",
			       sensors.empty() ? "-" : fmt::format("{}", fmt::join(sensors, ", ")));
		for (const auto &t : z.trips)
			fmt::format_to(std::back_inserter(out), "    trip {:<20} {:>7} C  hysteresis {:>5} C  {}\n",
				       t.name, celsius(t.temperature_mc), celsius(t.hysteresis_mc),
				       dts::to_string(t.type));
		for (const auto &m : z.cooling_maps)
			fmt::format_to(std::back_inserter(out), "    map  {:<20} trip {} -> {}{}\n", m.name,
				       m.trip ? z.trips[*m.trip].name : "-", cooling_text(m),
				       m.contribution ? fmt::format(", contribution {}", *m.contribution) : "");
	}
}

void write_missing(fmt::memory_buffer &out, const Platform &p)
{
	if (p.missing.empty()) {
		fmt::format_to(std::back_inserter(out), "\nMissing facts: none\n");
		return;
	}
	fmt::format_to(std::back_inserter(out), "\nMissing facts ({})\n", p.missing.size());
	for (const auto &m : p.missing)
		fmt::format_to(std::back_inserter(out), "  cpus {}: {}\n    {}\n", cpu_list(m.cpus), m.what,
			       m.where);
}

// Each cpufreq policy: its driver, transition latency and its parts,
// schedutil's rate limit in use, its switching path and whether the
// governor's tunables are the policy's own.
void write_cpufreq_policies(fmt::memory_buffer &out, std::span<const kshim::CpufreqPolicy> policies)
{
	for (const auto &p : policies) {
		const auto latency = p.eternal ? std::string("CPUFREQ_ETERNAL (the driver knows none)")
					       : fmt::format("{} us", p.transition_latency_ns / 1000);
		fmt::format_to(std::back_inserter(out),
			       "  policy CPUs {}: {}, transition latency {} (OPPs: clock {} us + voltage ramp {} us), "
			       "schedutil rate limit {} us{}, {}, {}\n",
			       cpu_list(p.cpus), p.driver, latency, p.clock_latency_ns / 1000,
			       p.voltage_latency_ns / 1000, p.rate_limit_us,
			       p.rate_limit_us == p.policy_rate_limit_us
				       ? std::string()
				       : fmt::format(" (the first policy's tunables; its own would be {} us)",
						     p.policy_rate_limit_us),
			       p.fast_switch ? "fast switch" : "sugov kthread",
			       p.governor_per_policy ? "governor per policy" : "governor tunables shared by all policies");
	}
}

// The sched-domain hierarchy as /proc/sys/kernel/sched_domain and
// sched_domain_debug() show it: per CPU, each level's name, span, groups
// and SD_* flags; then the root domain's perf domains and the governors.
void write_scheduler(fmt::memory_buffer &out, const kshim::Kernel &k)
{
	auto groups_text = [](const kshim::SchedDomain &sd) {
		std::vector<std::string> groups;
		for (const auto &g : sd.groups)
			groups.push_back(fmt::format("{{{}}}", cpu_list(g)));
		return fmt::format("{}", fmt::join(groups, " "));
	};
	fmt::format_to(std::back_inserter(out), "\nSched domains (topology.c)\n");
	for (const auto &c : k.cpus) {
		if (c.domains.empty()) {
			fmt::format_to(std::back_inserter(out), "  cpu{}: none\n", c.id);
			continue;
		}
		for (const auto &sd : c.domains)
			fmt::format_to(std::back_inserter(out), "  cpu{} {:<4} span {:<6} groups {:<18} {}\n",
				       c.id, sd.name, cpu_list(sd.span), groups_text(sd), fmt::join(sd.flags, " "));
	}
	fmt::format_to(std::back_inserter(out), "\nPerf domains (root domain): ");
	if (k.root_perf_domains.empty())
		fmt::format_to(std::back_inserter(out), "none\n");
	else {
		std::vector<std::string> pds;
		for (const auto &pd : k.root_perf_domains)
			pds.push_back(fmt::format("pd{}:{{{}}}", pd.front(), cpu_list(pd)));
		fmt::format_to(std::back_inserter(out), "{}\n", fmt::join(pds, " "));
	}
	std::vector<std::string> policies;
	for (const auto &c : k.cpus)
		if (c.has_policy)
			policies.push_back(fmt::format("cpu{} {} {} kHz", c.id,
						       c.governor.empty() ? "no governor" : c.governor, c.cur_khz));
	// schedutil's path to the driver: fast (from scheduler context) or its
	// sugov kthread (cpufreq-dt has no ->fast_switch)
	std::vector<unsigned> fast, slow;
	for (const auto &c : k.cpus)
		if (c.has_policy && !c.governor.empty())
			(c.fast_switch ? fast : slow).push_back(c.id);
	std::vector<std::string> switching;
	if (!slow.empty())
		switching.push_back(fmt::format("CPUs {} through its sugov kthread (no fast switch)", cpu_list(slow)));
	if (!fast.empty())
		switching.push_back(fmt::format("CPUs {} fast, from scheduler context", cpu_list(fast)));
	if (!switching.empty())
		fmt::format_to(std::back_inserter(out), "schedutil switches: {}\n", fmt::join(switching, ", "));
	fmt::format_to(std::back_inserter(out), "cpufreq: {}\n",
		       policies.empty() ? "no policies" : fmt::format("{}", fmt::join(policies, ", ")));
	write_cpufreq_policies(out, k.cpufreq_policies);
	// cpuidle: CPUs with the same states listed once
	std::vector<std::pair<std::vector<unsigned>, std::string>> idle;
	for (const auto &c : k.cpus) {
		std::vector<std::string> states;
		for (const auto &st : c.idle_states)
			states.push_back(fmt::format("{} (exit {} us, residency {} us)", st.name,
						     st.exit_latency_ns / 1000, st.target_residency_ns / 1000));
		auto text = states.empty() ? std::string("none (idle.c's default path)")
					   : fmt::format("{}", fmt::join(states, ", "));
		if (!idle.empty() && idle.back().second == text)
			idle.back().first.push_back(c.id);
		else
			idle.push_back({{c.id}, std::move(text)});
	}
	std::vector<std::string> idle_rows;
	for (const auto &[cpus, text] : idle)
		idle_rows.push_back(fmt::format("CPUs {} {}", cpu_list(cpus), text));
	fmt::format_to(std::back_inserter(out), "cpuidle{}: {}\n",
		       k.cpuidle_governor.empty() ? "" : fmt::format(" ({} governor)", k.cpuidle_governor),
		       fmt::join(idle_rows, "; "));
	if (k.thermal_zones.empty())
		return;
	fmt::format_to(std::back_inserter(out), "\nThermal zones the kernel registered (thermal_of.c)\n");
	for (const auto &z : k.thermal_zones) {
		if (z.sensor < 0) {
			fmt::format_to(std::back_inserter(out), "  sensor {} {}: none ({})\n", z.sensor_path, z.sensor_id,
				       z.error);
			continue;
		}
		fmt::format_to(std::back_inserter(out),
			       "  {:<16} sensor {} {}: governor {}, polling {} ms, passive {} ms, {} trips{}, "
			       "{} cooling bindings\n",
			       z.zone, z.sensor_path, z.sensor_id, z.governor, z.polling_delay_ms, z.passive_delay_ms,
			       z.num_trips,
			       z.disabled_trips ? fmt::format(" ({} disabled by the thermal core)", z.disabled_trips)
						: "",
			       z.cooling_bindings);
	}
}

// /sys/kernel/debug/energy_model/<pd>/ps:<freq>/{frequency,power,cost,inefficient}
void write_kernel(fmt::memory_buffer &out, const kshim::Kernel &k)
{
	auto info = kshim::build_info();
	fmt::format_to(std::back_inserter(out), "\nKernel (Linux {}: arch_topology.c, energy_model.c{})\n", info.version,
		       k.scheduler ? ", kernel/sched: core.c, fair.c, topology.c, cpufreq_schedutil.c, ..." : "");
	std::string config;
	for (const auto &option : info.from_defconfig)
		if (!option.ends_with("=n") && (option.starts_with("CONFIG_HZ=") || !option.starts_with("CONFIG_HZ_")))
			config += (config.empty() ? "" : " ") + option.substr(7);
	fmt::format_to(std::back_inserter(out), "flavour {}, configured from {}: {} (sched-harness kernel info)\n",
		       info.flavour, info.defconfig, config);
	fmt::format_to(std::back_inserter(out), "{:>4}  {:>9} {:>8} {:>8} {:>5} {:>7}\n", "cpu", "cpu_scale",
		       "package", "cluster", "core", "thread");
	for (const auto &c : k.cpus)
		fmt::format_to(std::back_inserter(out), "{:>4}  {:>9} {:>8} {:>8} {:>5} {:>7}\n", c.id, c.capacity,
			       c.package_id, c.cluster_id, c.core_id, c.thread_id);
	if (k.perf_domains.empty())
		fmt::format_to(std::back_inserter(out), "\nEnergy model: none registered\n");
	for (std::size_t i = 0; i < k.perf_domains.size(); i++) {
		const auto &pd = k.perf_domains[i];
		fmt::format_to(std::back_inserter(out), "\nenergy_model/cpu{}  cpus: {}  flags: {}\n", pd.cpus.front(),
			       cpu_list(pd.cpus), power_unit_name(pd.unit));
		fmt::format_to(std::back_inserter(out), "  {:<14} {:>10} {:>10} {:>10} {:>12}\n", "state",
			       "frequency", "power", "cost", "inefficient");
		for (const auto &ps : pd.states)
			fmt::format_to(std::back_inserter(out), "  ps:{:<11} {:>10} {:>10} {:>10} {:>12}\n",
				       ps.frequency_khz, ps.frequency_khz, ps.power, ps.cost, ps.inefficient ? 1 : 0);
	}
	std::vector<unsigned> zero;
	for (const auto &c : k.cpus)
		if (c.capacity == 0)
			zero.push_back(c.id);
	if (!zero.empty())
		fmt::format_to(std::back_inserter(out),
			       "\nNote: CPUs {} have cpu_scale 0: the kernel took capacity-dmips-mhz = 0 as it is "
			       "(topology_parse_cpu_capacity() does not reject it); the scheduler sees no capacity there.\n",
			       cpu_list(zero));
	if (!k.messages.empty()) {
		fmt::format_to(std::back_inserter(out), "\nKernel messages (warnings and errors)\n");
		for (const auto &m : k.messages)
			fmt::format_to(std::back_inserter(out), "  {}\n", m);
	}
	if (k.scheduler)
		write_scheduler(out, k);
	std::string eas = k.eas ? "on" : fmt::format("off — {}", k.eas_reason);
	if (k.eas && !k.scheduler)
		eas = "possible (energy model on every CPU, asymmetric capacities; the scheduler is not "
		      "compiled for this tree, so nothing decides at run time)";
	fmt::format_to(std::back_inserter(out), "\nEAS: {}\n", eas);
}

} // namespace

namespace {

std::string khz_table(const std::map<unsigned, double> &table)
{
	std::string s;
	for (const auto &[khz, mw] : table)
		s += fmt::format("{}{} MHz {:.4g}", s.empty() ? "" : ", ", khz / 1000, mw);
	return s;
}

std::string state_table(const std::vector<std::pair<std::string, double>> &table)
{
	std::string s;
	for (const auto &[state, mw] : table)
		s += fmt::format("{}{} {:.4g}", s.empty() ? "" : ", ", state, mw);
	return s;
}

void write_board_power(fmt::memory_buffer &out, const sim::BoardPowerFigures *power, std::string_view skipped)
{
	auto line = [&](std::string_view what, const std::string &value) {
		if (!value.empty())
			fmt::format_to(std::back_inserter(out), "    {:<22} {}\n", what, value);
	};
	if (!power && !skipped.empty()) {
		fmt::format_to(std::back_inserter(out),
			       "\nBoard power model: none: a run's energy is busy-only (the energy model's power x busy "
			       "time): {}\n",
			       skipped);
		return;
	}
	if (!power) {
		fmt::format_to(std::back_inserter(out),
			       "\nBoard power model: none for this board: a run's energy is busy-only (the energy model's "
			       "power x busy time); --board-power FILE gives one (docs/power.md)\n");
		return;
	}
	fmt::format_to(std::back_inserter(out), "\nBoard power model: {}\n  {}\n", power->file, power->source);
	if (power->unit_mw)
		fmt::format_to(std::back_inserter(out),
			       "  the file's bogo units, through the energy model: 1 unit = {:.4f} mW\n", *power->unit_mw);
	for (const auto &d : power->domains) {
		fmt::format_to(std::back_inserter(out), "  cpus {} (mW):\n", cpu_list(d.cpus));
		const auto scale = d.temperature_zone.empty()
					   ? std::string()
					   : fmt::format(" (x the scale at zone {}'s temperature)", d.temperature_zone);
		line("busy CPU", khz_table(d.dynamic_mw));
		line("cluster leakage", d.static_mw.empty() ? "" : khz_table(d.static_mw) + scale);
		line("each core's leakage", d.core_static_mw.empty() ? "" : khz_table(d.core_static_mw) + scale);
		if (!d.temperature_polynomial.empty()) {
			std::string poly;
			for (std::size_t i = 0; i < d.temperature_polynomial.size(); i++)
				poly += fmt::format("{}{:g}{}", i ? " + " : "", d.temperature_polynomial[i],
						    i == 0 ? "" : i == 1 ? " T" : fmt::format(" T^{}", i));
			line("temperature scale", poly + " (T in C)");
		}
		line("cluster active", khz_table(d.cluster_mw));
		line("idle CPU, by state", state_table(d.idle_mw));
		line("idle cluster, by state", state_table(d.cluster_idle_mw));
		line("core off in", fmt::format("{}", fmt::join(d.core_off, ", ")));
		line("cluster off in", fmt::format("{}", fmt::join(d.cluster_off, ", ")));
	}
}

} // namespace

std::string platform_text(const Platform &p, const kshim::Kernel *kernel, const sim::BoardPowerFigures *power,
			  std::string_view power_skipped)
{
	fmt::memory_buffer out;
	fmt::format_to(std::back_inserter(out), "Board       {}\n", p.model.empty() ? "(no model)" : p.model);
	fmt::format_to(std::back_inserter(out), "Source      {}\n", p.source);
	for (const auto &o : p.overlays)
		fmt::format_to(std::back_inserter(out), "Overlay     {}\n", o);
	fmt::format_to(std::back_inserter(out), "Compatible  {}\n", fmt::join(p.compatible, ", "));
	write_cpus(out, p);
	write_domains(out, p);
	write_opp_tables(out, p);
	write_idle_states(out, p);
	write_thermal(out, p);
	write_missing(out, p);
	if (kernel) {
		write_kernel(out, *kernel);
		write_board_power(out, power, power_skipped);
	}
	return fmt::to_string(out);
}

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void key(Writer &w, std::string_view k)
{
	w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}

void str(Writer &w, std::string_view s)
{
	w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

template <typename T>
void opt(Writer &w, std::string_view k, const std::optional<T> &v)
{
	key(w, k);
	if (!v)
		w.Null();
	else if constexpr (std::is_signed_v<T>)
		w.Int64(*v);
	else
		w.Uint64(*v);
}

template <typename Range, typename Fn>
void array(Writer &w, std::string_view k, const Range &range, Fn &&each)
{
	key(w, k);
	w.StartArray();
	for (const auto &item : range)
		each(item);
	w.EndArray();
}

void strings(Writer &w, std::string_view k, const std::vector<std::string> &v)
{
	array(w, k, v, [&](const std::string &s) { str(w, s); });
}

template <typename Int>
void numbers(Writer &w, std::string_view k, const std::vector<Int> &v)
{
	array(w, k, v, [&](Int n) { w.Uint64(n); });
}

void write_cpu(Writer &w, const dts::Cpu &cpu)
{
	w.StartObject();
	key(w, "id"), w.Uint(cpu.id);
	key(w, "node"), str(w, cpu.node_path);
	numbers(w, "reg", cpu.reg);
	strings(w, "compatible", cpu.compatible);
	opt(w, "capacity_dmips_mhz", cpu.capacity_dmips_mhz);
	opt(w, "dynamic_power_coefficient", cpu.dynamic_power_coefficient);
	opt(w, "cooling_cells", cpu.cooling_cells);
	opt(w, "clock_frequency", cpu.clock_frequency);
	key(w, "cpu_map");
	if (cpu.cpu_map) {
		w.StartObject();
		key(w, "node"), str(w, cpu.cpu_map->node_path);
		opt(w, "socket", cpu.cpu_map->socket);
		numbers(w, "clusters", cpu.cpu_map->clusters);
		key(w, "core"), w.Uint(cpu.cpu_map->core);
		opt(w, "thread", cpu.cpu_map->thread);
		w.EndObject();
	} else {
		w.Null();
	}
	key(w, "opp_table");
	if (cpu.opp_table)
		w.Uint64(*cpu.opp_table);
	else
		w.Null();
	numbers(w, "idle_states", cpu.idle_states);
	key(w, "firmware_dvfs");
	if (cpu.firmware_dvfs) {
		w.StartObject();
		key(w, "kind"), str(w, cpu.firmware_dvfs->kind);
		key(w, "provider"), str(w, cpu.firmware_dvfs->provider_path);
		key(w, "domain"), w.Uint(cpu.firmware_dvfs->domain);
		w.EndObject();
	} else {
		w.Null();
	}
	w.EndObject();
}

void write_opp_table(Writer &w, const dts::OppTable &t)
{
	w.StartObject();
	key(w, "node"), str(w, t.node_path);
	key(w, "binding"), str(w, dts::to_string(t.binding));
	key(w, "shared"), w.Bool(t.shared);
	key(w, "skipped_disabled"), w.Uint(t.skipped_disabled);
	key(w, "skipped_supported_hw"), w.Uint(t.skipped_supported_hw);
	key(w, "skipped_regulator"), w.Uint(t.skipped_regulator);
	array(w, "opps", t.opps, [&](const dts::Opp &o) {
		w.StartObject();
		key(w, "node"), str(w, o.node_path);
		key(w, "hz"), w.Uint64(o.hz);
		numbers(w, "microvolt", o.microvolt);
		key(w, "turbo"), w.Bool(o.turbo);
		key(w, "suspend"), w.Bool(o.suspend);
		opt(w, "clock_latency_ns", o.clock_latency_ns);
		w.EndObject();
	});
	w.EndObject();
}

void write_zone(Writer &w, const dts::ThermalZone &z)
{
	w.StartObject();
	key(w, "name"), str(w, z.name);
	key(w, "node"), str(w, z.node_path);
	key(w, "polling_delay_ms"), w.Uint(z.polling_delay_ms);
	key(w, "polling_delay_passive_ms"), w.Uint(z.polling_delay_passive_ms);
	opt(w, "sustainable_power_mw", z.sustainable_power_mw);
	array(w, "sensors", z.sensors, [&](const dts::ThermalSensor &s) {
		w.StartObject();
		key(w, "node"), str(w, s.node_path);
		numbers(w, "args", s.args);
		w.EndObject();
	});
	array(w, "trips", z.trips, [&](const dts::Trip &t) {
		w.StartObject();
		key(w, "name"), str(w, t.name);
		key(w, "node"), str(w, t.node_path);
		key(w, "temperature_mc"), w.Int(t.temperature_mc);
		key(w, "hysteresis_mc"), w.Uint(t.hysteresis_mc);
		key(w, "type"), str(w, dts::to_string(t.type));
		w.EndObject();
	});
	array(w, "cooling_maps", z.cooling_maps, [&](const dts::CoolingMap &m) {
		w.StartObject();
		key(w, "name"), str(w, m.name);
		key(w, "trip");
		if (m.trip)
			str(w, z.trips[*m.trip].name);
		else
			w.Null();
		opt(w, "contribution", m.contribution);
		array(w, "devices", m.devices, [&](const dts::CoolingDevice &d) {
			w.StartObject();
			key(w, "node"), str(w, d.node_path);
			opt(w, "cpu", d.cpu);
			opt(w, "min_state", d.min_state);
			opt(w, "max_state", d.max_state);
			w.EndObject();
		});
		w.EndObject();
	});
	w.EndObject();
}

// The policies of write_cpufreq_policies(), as JSON.
void write_cpufreq_policies_json(Writer &w, std::span<const kshim::CpufreqPolicy> policies)
{
	array(w, "cpufreq_policies", policies, [&](const kshim::CpufreqPolicy &p) {
		w.StartObject();
		numbers(w, "cpus", p.cpus);
		key(w, "driver"), str(w, p.driver);
		key(w, "transition_latency_ns"), w.Uint64(p.transition_latency_ns);
		key(w, "eternal"), w.Bool(p.eternal);
		key(w, "clock_latency_ns"), w.Uint64(p.clock_latency_ns);
		key(w, "voltage_latency_ns"), w.Uint64(p.voltage_latency_ns);
		key(w, "transition_delay_us"), w.Uint(p.transition_delay_us);
		key(w, "rate_limit_us"), w.Uint(p.rate_limit_us);
		key(w, "fast_switch"), w.Bool(p.fast_switch);
		key(w, "governor_per_policy"), w.Bool(p.governor_per_policy);
		w.EndObject();
	});
}

void write_kernel_json(Writer &w, const kshim::Kernel &k)
{
	key(w, "kernel");
	w.StartObject();
	key(w, "version"), str(w, kshim::build_info().version);
	array(w, "cpus", k.cpus, [&](const kshim::CpuState &c) {
		w.StartObject();
		key(w, "id"), w.Uint(c.id);
		key(w, "cpu_scale"), w.Uint64(c.capacity);
		key(w, "package_id"), w.Int(c.package_id);
		key(w, "cluster_id"), w.Int(c.cluster_id);
		key(w, "core_id"), w.Int(c.core_id);
		key(w, "thread_id"), w.Int(c.thread_id);
		key(w, "em_status"), w.Int(c.em_status);
		w.EndObject();
	});
	array(w, "perf_domains", k.perf_domains, [&](const kshim::PerfDomain &pd) {
		w.StartObject();
		numbers(w, "cpus", pd.cpus);
		key(w, "microwatts"), w.Bool(pd.unit == kshim::PowerUnit::microwatts);
		key(w, "power_unit"), w.String(power_unit_name(pd.unit));
		array(w, "states", pd.states, [&](const kshim::PerfState &ps) {
			w.StartObject();
			key(w, "frequency"), w.Uint64(ps.frequency_khz);
			key(w, "power"), w.Uint64(ps.power);
			key(w, "cost"), w.Uint64(ps.cost);
			key(w, "inefficient"), w.Bool(ps.inefficient);
			w.EndObject();
		});
		w.EndObject();
	});
	key(w, "scheduler"), w.Bool(k.scheduler);
	const auto info = kshim::build_info();
	key(w, "flavour"), str(w, info.flavour);
	key(w, "defconfig"), str(w, info.defconfig);
	strings(w, "config_from_defconfig", info.from_defconfig);
	if (k.scheduler) {
		std::vector<unsigned> sugov;
		for (const auto &c : k.cpus)
			if (c.has_policy && !c.governor.empty() && !c.fast_switch)
				sugov.push_back(c.id);
		// CPUs whose policy switches through schedutil's kthread
		numbers(w, "sugov_kthread_cpus", sugov);
		key(w, "cpuidle_governor"), str(w, k.cpuidle_governor);
		write_cpufreq_policies_json(w, k.cpufreq_policies);
		key(w, "idle_states");
		w.StartObject();
		for (const auto &c : k.cpus) {
			array(w, fmt::format("cpu{}", c.id).c_str(), c.idle_states, [&](const kshim::IdleState &st) {
				w.StartObject();
				key(w, "name"), str(w, st.name);
				key(w, "exit_latency_ns"), w.Uint64(st.exit_latency_ns);
				key(w, "target_residency_ns"), w.Uint64(st.target_residency_ns);
				w.EndObject();
			});
		}
		w.EndObject();
		key(w, "sched_domains");
		w.StartObject();
		for (const auto &c : k.cpus) {
			array(w, fmt::format("cpu{}", c.id).c_str(), c.domains, [&](const kshim::SchedDomain &sd) {
				w.StartObject();
				key(w, "name"), str(w, sd.name);
				key(w, "level"), w.Int(sd.level);
				numbers(w, "span", sd.span);
				strings(w, "flags", sd.flags);
				array(w, "groups", sd.groups, [&](const std::vector<unsigned> &g) {
					w.StartArray();
					for (unsigned cpu : g)
						w.Uint(cpu);
					w.EndArray();
				});
				w.EndObject();
			});
		}
		w.EndObject();
		array(w, "root_perf_domains", k.root_perf_domains, [&](const std::vector<unsigned> &pd) {
			w.StartArray();
			for (unsigned cpu : pd)
				w.Uint(cpu);
			w.EndArray();
		});
		array(w, "thermal_zones", k.thermal_zones, [&](const kshim::ThermalZoneState &z) {
			w.StartObject();
			key(w, "sensor"), str(w, z.sensor_path);
			key(w, "sensor_id"), w.Uint(z.sensor_id);
			key(w, "registered"), w.Bool(z.sensor >= 0);
			if (z.sensor < 0) {
				key(w, "error"), str(w, z.error);
			} else {
				key(w, "zone"), str(w, z.zone);
				key(w, "governor"), str(w, z.governor);
				key(w, "polling_delay_ms"), w.Uint(z.polling_delay_ms);
				key(w, "passive_delay_ms"), w.Uint(z.passive_delay_ms);
				key(w, "num_trips"), w.Int(z.num_trips);
				key(w, "disabled_trips"), w.Int(z.disabled_trips);
				key(w, "cooling_bindings"), w.Int(z.cooling_bindings);
			}
			w.EndObject();
		});
	}
	key(w, "eas"), w.Bool(k.eas);
	key(w, "eas_reason"), str(w, k.eas_reason);
	strings(w, "messages", k.messages);
	w.EndObject();
}

} // namespace

namespace {

void khz_object(Writer &w, std::string_view name, const std::map<unsigned, double> &table)
{
	key(w, name);
	w.StartObject();
	for (const auto &[khz, mw] : table) {
		const auto k = std::to_string(khz);
		key(w, k);
		w.Double(mw);
	}
	w.EndObject();
}

void state_object(Writer &w, std::string_view name, const std::vector<std::pair<std::string, double>> &table)
{
	key(w, name);
	w.StartObject();
	for (const auto &[state, mw] : table) {
		key(w, state);
		w.Double(mw);
	}
	w.EndObject();
}

void write_board_power_json(Writer &w, const sim::BoardPowerFigures *power)
{
	key(w, "board_power");
	if (!power) {
		w.Null();
		return;
	}
	w.StartObject();
	key(w, "file"), str(w, power->file);
	key(w, "source"), str(w, power->source);
	key(w, "unit_mw");
	if (power->unit_mw)
		w.Double(*power->unit_mw);
	else
		w.Null();
	array(w, "domains", power->domains, [&](const sim::BoardPowerFigures::Domain &d) {
		w.StartObject();
		numbers(w, "cpus", d.cpus);
		khz_object(w, "dynamic_mw", d.dynamic_mw);
		khz_object(w, "static_mw", d.static_mw);
		khz_object(w, "core_static_mw", d.core_static_mw);
		khz_object(w, "cluster_mw", d.cluster_mw);
		state_object(w, "idle_mw", d.idle_mw);
		state_object(w, "cluster_idle_mw", d.cluster_idle_mw);
		strings(w, "cluster_off", d.cluster_off);
		strings(w, "core_off", d.core_off);
		key(w, "temperature_zone");
		if (d.temperature_zone.empty())
			w.Null();
		else
			str(w, d.temperature_zone);
		key(w, "temperature_polynomial");
		w.StartArray();
		for (const double a : d.temperature_polynomial)
			w.Double(a);
		w.EndArray();
		w.EndObject();
	});
	w.EndObject();
}

} // namespace

std::string platform_json(const Platform &p, const kshim::Kernel *kernel, const sim::BoardPowerFigures *power,
			  std::string_view power_skipped)
{
	rapidjson::StringBuffer buffer;
	Writer w(buffer);
	w.SetIndent(' ', 2);
	w.StartObject();
	key(w, "source"), str(w, p.source);
	strings(w, "overlays", p.overlays);
	key(w, "model"), str(w, p.model);
	strings(w, "compatible", p.compatible);
	array(w, "cpus", p.cpus, [&](const dts::Cpu &c) { write_cpu(w, c); });
	array(w, "frequency_domains", p.frequency_domains, [&](const dts::FrequencyDomain &d) {
		w.StartObject();
		numbers(w, "cpus", d.cpus);
		key(w, "opp_table");
		if (d.opp_table)
			w.Uint64(*d.opp_table);
		else
			w.Null();
		key(w, "why"), str(w, d.why);
		w.EndObject();
	});
	array(w, "opp_tables", p.opp_tables, [&](const dts::OppTable &t) { write_opp_table(w, t); });
	array(w, "idle_states", p.idle_states, [&](const dts::IdleState &s) {
		w.StartObject();
		key(w, "node"), str(w, s.node_path);
		key(w, "name"), str(w, s.name);
		strings(w, "compatible", s.compatible);
		key(w, "entry_latency_us"), w.Uint(s.entry_latency_us);
		key(w, "exit_latency_us"), w.Uint(s.exit_latency_us);
		key(w, "min_residency_us"), w.Uint(s.min_residency_us);
		opt(w, "wakeup_latency_us", s.wakeup_latency_us);
		key(w, "local_timer_stop"), w.Bool(s.local_timer_stop);
		w.EndObject();
	});
	array(w, "thermal_zones", p.thermal_zones, [&](const dts::ThermalZone &z) { write_zone(w, z); });
	array(w, "missing", p.missing, [&](const dts::MissingFact &m) {
		w.StartObject();
		numbers(w, "cpus", m.cpus);
		key(w, "what"), str(w, m.what);
		key(w, "where"), str(w, m.where);
		w.EndObject();
	});
	if (kernel) {
		write_kernel_json(w, *kernel);
		write_board_power_json(w, power);
		key(w, "board_power_skipped");
		if (power_skipped.empty())
			w.Null();
		else
			str(w, power_skipped);
	}
	w.EndObject();
	return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

} // namespace sh::report
