// SPDX-License-Identifier: GPL-2.0
//
// /cpus as the kernel reads it at boot: logical numbering (arm64's
// smp_init_cpus()), cpu-map (arch_topology.c's parse_socket/parse_cluster/
// parse_core), OPP tables (drivers/opp/of.c), idle states
// (drivers/cpuidle/dt_idle_states.c, cpuidle-psci-domain.c) and which CPUs
// share a frequency (dev_pm_opp_of_get_sharing_cpus(), cpufreq-dt,
// qcom-cpufreq-hw, scmi/scpi-cpufreq).
#include "dts/dt_view.h"
#include "dts/extract.h"
#include "dts/platform.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <map>

namespace sh::dts {

namespace {

class CpuReader {
public:
	CpuReader(const DtView &dt, Platform &platform) : dt_(dt), p_(platform) {}

	void run();

private:
	void read_cpu_nodes(int cpus_node);
	void check_cache_chain(int cpu_node) const;
	void read_cpu_map(int cpus_node);
	void read_map_cluster(int node, CpuMapPosition pos, int depth);
	void read_map_core(int node, CpuMapPosition pos);
	void place(int entry, const CpuMapPosition &pos);
	std::optional<std::size_t> read_opp_table(int cpu_node, const Cpu &cpu);
	std::size_t read_opp_v2(int table, int cpu_node);
	Opp read_opp(int opp_node);
	std::vector<std::size_t> read_idle_states(int cpu_node);
	std::size_t idle_state(int state_node);
	std::optional<FirmwareProvider> firmware_dvfs(int cpu_node);
	void group_frequency_domains();

	const DtView &dt_;
	Platform &p_;
	std::vector<int> cpu_nodes_;		 // logical id -> node offset
	std::map<int, std::size_t> opp_tables_;	 // table node -> index
	std::map<int, std::size_t> idle_states_; // state node -> index
};

void CpuReader::run()
{
	auto cpus = dt_.find("/cpus");
	if (!cpus)
		throw dt_.error(dt_.root(), "no /cpus node: the board describes no CPU");
	read_cpu_nodes(*cpus);
	if (p_.cpus.empty())
		throw dt_.error(*cpus, "no CPU node (device_type = \"cpu\")");
	read_cpu_map(*cpus);
	group_frequency_domains();
}

// of_get_next_cpu_node(): children of /cpus named "cpu" or of device_type
// "cpu", skipping status = "fail*". arm64's smp_init_cpus() gives the boot
// CPU logical id 0 and the others increasing ids in DT order; we boot on the
// first CPU node, so DT order is the logical order.
// cacheinfo's of_find_next_cache_node() follows l2-cache or
// next-level-cache from the CPU until a cache has neither; a chain that
// comes back to a node it passed would never end (the kernel's walk loops).
void CpuReader::check_cache_chain(int cpu_node) const
{
	std::set<int> seen{cpu_node};
	for (int node = cpu_node;;) {
		auto next = dt_.phandles(node, "l2-cache");
		if (next.empty())
			next = dt_.phandles(node, "next-level-cache");
		if (next.empty())
			return;
		if (!seen.insert(next.front()).second)
			throw dt_.error(node, fmt::format("next-level-cache leads back to {}: the cache chain of "
							  "{} is a cycle",
							  dt_.path(next.front()), dt_.path(cpu_node)));
		node = next.front();
	}
}

void CpuReader::read_cpu_nodes(int cpus_node)
{
	const unsigned addr_cells = dt_.u32(cpus_node, "#address-cells").value_or(2);
	for (int node : dt_.children(cpus_node)) {
		const bool is_cpu = dt_.base_name(node) == "cpu" ||
				    dt_.string(node, "device_type") == "cpu";
		if (!is_cpu || dt_.failed(node))
			continue;

		Cpu cpu;
		cpu.id = static_cast<unsigned>(p_.cpus.size());
		cpu.node_path = dt_.path(node);
		auto reg = dt_.u32_array(node, "reg");
		if (!reg || reg->empty())
			throw dt_.error(node, "CPU node has no reg (its hardware id)");
		if (addr_cells == 0 || reg->size() % addr_cells != 0)
			throw dt_.error(node, fmt::format("reg has {} cells, not a multiple of "
							  "#address-cells = {}", reg->size(), addr_cells));
		for (std::size_t i = 0; i < reg->size(); i += addr_cells) {
			std::uint64_t hwid = 0;
			for (std::size_t c = 0; c < addr_cells; c++)
				hwid = (hwid << 32) | (*reg)[i + c];
			cpu.reg.push_back(hwid);
		}
		for (const auto &other : p_.cpus)
			if (other.reg == cpu.reg)
				throw dt_.error(node, fmt::format("duplicate reg: {} has the same hardware id",
								  other.node_path));
		cpu.compatible = dt_.strings(node, "compatible");
		cpu.capacity_dmips_mhz = dt_.u32(node, "capacity-dmips-mhz");
		cpu.dynamic_power_coefficient = dt_.u32(node, "dynamic-power-coefficient");
		cpu.cooling_cells = dt_.u32(node, "#cooling-cells");
		cpu.clock_frequency = dt_.u32_or_u64(node, "clock-frequency");
		cpu.firmware_dvfs = firmware_dvfs(node);
		cpu.opp_table = read_opp_table(node, cpu);
		cpu.idle_states = read_idle_states(node);
		check_cache_chain(node);
		cpu_nodes_.push_back(node);
		p_.cpus.push_back(std::move(cpu));
	}
}

// parse_socket(): socketN children if any, else cpu-map itself is the one
// package. Like the kernel, indices are probed in sequence and the first
// missing one ends the walk.
void CpuReader::read_cpu_map(int cpus_node)
{
	auto map = dt_.child(cpus_node, "cpu-map");
	if (!map)
		return;
	bool has_socket = false;
	for (unsigned s = 0;; s++) {
		auto socket = dt_.child(*map, fmt::format("socket{}", s));
		if (!socket)
			break;
		has_socket = true;
		CpuMapPosition pos;
		pos.socket = s;
		read_map_cluster(*socket, pos, 0);
	}
	if (!has_socket)
		read_map_cluster(*map, CpuMapPosition{}, 0);
}

void CpuReader::read_map_cluster(int node, CpuMapPosition pos, int depth)
{
	bool leaf = true;
	for (unsigned i = 0;; i++) {
		auto cluster = dt_.child(node, fmt::format("cluster{}", i));
		if (!cluster)
			break;
		leaf = false;
		auto inner = pos;
		inner.clusters.push_back(i);
		read_map_cluster(*cluster, inner, depth + 1);
	}
	for (unsigned i = 0;; i++) {
		auto core = dt_.child(node, fmt::format("core{}", i));
		if (!core)
			break;
		if (depth == 0)
			throw dt_.error(*core, "cpu-map children should be clusters");
		if (!leaf)
			throw dt_.error(node, fmt::format("non-leaf cluster with core{}", i));
		auto at = pos;
		at.core = i;
		read_map_core(*core, at);
	}
}

void CpuReader::read_map_core(int node, CpuMapPosition pos)
{
	bool leaf = true;
	for (unsigned i = 0;; i++) {
		auto thread = dt_.child(node, fmt::format("thread{}", i));
		if (!thread)
			break;
		leaf = false;
		auto at = pos;
		at.thread = i;
		place(*thread, at);
	}
	if (dt_.has(node, "cpu")) {
		if (!leaf)
			throw dt_.error(node, "core has both threads and a cpu");
		place(node, pos);
	} else if (leaf) {
		throw dt_.error(node, "leaf core without a cpu phandle");
	}
}

void CpuReader::place(int entry, const CpuMapPosition &pos)
{
	auto targets = dt_.phandles(entry, "cpu");
	if (targets.size() != 1)
		throw dt_.error(entry, "cpu should be exactly one phandle");
	auto it = std::find(cpu_nodes_.begin(), cpu_nodes_.end(), targets.front());
	// A CPU whose status is "fail" is no possible CPU: arch_topology.c's
	// get_cpu_for_node() gets -ENODEV for it, and parse_core() leaves the
	// entry out (exynos2200-g0s.dts fails cpu2 and cpu3, 7.x).
	if (it == cpu_nodes_.end() && dt_.failed(targets.front()))
		return;
	if (it == cpu_nodes_.end())
		throw dt_.error(entry, fmt::format("cpu points at {}, which is not a CPU node",
						   dt_.path(targets.front())));
	auto &cpu = p_.cpus[static_cast<std::size_t>(it - cpu_nodes_.begin())];
	if (cpu.cpu_map)
		throw dt_.error(entry, fmt::format("{} is already placed at {}", cpu.node_path,
						   cpu.cpu_map->node_path));
	cpu.cpu_map = pos;
	cpu.cpu_map->node_path = dt_.path(entry);
}

std::optional<std::size_t> CpuReader::read_opp_table(int cpu_node, const Cpu &cpu)
{
	if (dt_.has(cpu_node, "operating-points-v2")) {
		// Only the first phandle matters to a CPU (index 0 in
		// dev_pm_opp_of_add_table()).
		auto tables = dt_.phandles(cpu_node, "operating-points-v2");
		if (tables.empty())
			throw dt_.error(cpu_node, "operating-points-v2 is empty");
		return read_opp_v2(tables.front(), cpu_node);
	}
	auto legacy = dt_.u32_array(cpu_node, "operating-points");
	if (!legacy)
		return std::nullopt;
	if (legacy->empty() || legacy->size() % 2 != 0)
		throw dt_.error(cpu_node, "operating-points should be <kHz uV> pairs");
	OppTable table;
	table.node_path = cpu.node_path;
	table.binding = OppBinding::legacy;
	for (std::size_t i = 0; i < legacy->size(); i += 2) {
		Opp opp;
		opp.node_path = cpu.node_path;
		opp.hz = std::uint64_t{(*legacy)[i]} * 1000;
		opp.microvolt = {(*legacy)[i + 1]};
		table.opps.push_back(opp);
	}
	std::stable_sort(table.opps.begin(), table.opps.end(),
			 [](const Opp &a, const Opp &b) { return a.hz < b.hz; });
	p_.opp_tables.push_back(std::move(table));
	return p_.opp_tables.size() - 1;
}

// _of_add_opp_table_v2(): every available child is an OPP; the OPP core
// keeps them sorted by rate and drops a duplicate rate. Without a driver
// that sets supported_hw, an entry with opp-supported-hw is not enabled
// (_opp_is_supported()).
namespace {

// The voltage range the CPU's regulator may be set to: cpufreq-dt asks the
// OPP core to use the supply named "cpu" ("cpu0" on an old cpu0 node), and
// the regulator core constrains it to regulator-min/max-microvolt.
struct SupplyRange {
	std::uint32_t min_uv, max_uv;
	bool continuous;	// a PWM regulator without a voltage table
};

std::optional<SupplyRange> cpu_supply(const DtView &dt, int cpu_node)
{
	for (const char *prop : {"cpu-supply", "cpu0-supply"}) {
		auto supply = dt.phandles(cpu_node, prop);
		if (supply.empty())
			continue;
		const int reg = supply.front();
		auto min = dt.u32(reg, "regulator-min-microvolt");
		auto max = dt.u32(reg, "regulator-max-microvolt");
		if (!min || !max)
			return std::nullopt;	// unconstrained: every voltage is asked of the hardware
		auto compatible = dt.strings(reg, "compatible");
		const bool pwm = std::find(compatible.begin(), compatible.end(), "pwm-regulator") != compatible.end();
		return SupplyRange{*min, *max, pwm && !dt.has(reg, "voltage-table")};
	}
	return std::nullopt;
}

// drivers/opp/core.c, _opp_supported_by_regulators() through
// regulator_is_supported_voltage(): a continuous-range regulator must
// contain the OPP's <min max> range; one with discrete voltages needs one
// of them inside it (their steps are not in the DT: any voltage within
// the constraints counts).
bool supported_by(const SupplyRange &supply, const Opp &opp)
{
	if (opp.microvolt.empty())
		return true;
	const auto target = opp.microvolt.front();
	const auto lo = opp.microvolt.size() >= 3 ? opp.microvolt[1] : target;
	const auto hi = opp.microvolt.size() >= 3 ? opp.microvolt[2] : target;
	if (supply.continuous)
		return lo >= supply.min_uv && hi <= supply.max_uv;
	return hi >= supply.min_uv && lo <= supply.max_uv;
}

} // namespace

std::size_t CpuReader::read_opp_v2(int table_node, int cpu_node)
{
	if (auto it = opp_tables_.find(table_node); it != opp_tables_.end())
		return it->second;

	// The table is added with the regulator of the first CPU that uses it
	// (the policy CPU): OPPs it cannot supply are added unavailable.
	const auto supply = cpu_supply(dt_, cpu_node);
	OppTable table;
	table.node_path = dt_.path(table_node);
	table.shared = dt_.has(table_node, "opp-shared");
	for (int node : dt_.children(table_node)) {
		if (!dt_.available(node)) {
			table.skipped_disabled++;
			continue;
		}
		if (dt_.has(node, "opp-supported-hw")) {
			table.skipped_supported_hw++;
			continue;
		}
		Opp opp = read_opp(node);
		if (supply && !supported_by(*supply, opp)) {
			table.skipped_regulator++;
			continue;
		}
		auto same = std::find_if(table.opps.begin(), table.opps.end(),
					 [&](const Opp &o) { return o.hz == opp.hz; });
		if (same == table.opps.end())
			table.opps.push_back(std::move(opp));
	}
	std::stable_sort(table.opps.begin(), table.opps.end(),
			 [](const Opp &a, const Opp &b) { return a.hz < b.hz; });
	p_.opp_tables.push_back(std::move(table));
	opp_tables_[table_node] = p_.opp_tables.size() - 1;
	return p_.opp_tables.size() - 1;
}

Opp CpuReader::read_opp(int node)
{
	Opp opp;
	opp.node_path = dt_.path(node);
	auto hz = dt_.u64_array(node, "opp-hz");
	if (!hz)
		throw dt_.error(node, "OPP has no opp-hz");
	opp.hz = hz->front();	// the first clock is the CPU's
	if (auto uv = dt_.u32_array(node, "opp-microvolt"))
		opp.microvolt = *uv;
	if (auto uw = dt_.u32_array(node, "opp-microwatt"))
		for (auto w : *uw)
			opp.microwatt += w;
	opp.turbo = dt_.has(node, "turbo-mode");
	opp.suspend = dt_.has(node, "opp-suspend");
	if (auto lat = dt_.u32_or_u64(node, "clock-latency-ns"))
		opp.clock_latency_ns = *lat;
	return opp;
}

// Flat cpu-idle-states, or PSCI's hierarchical form: the CPU's "psci"
// power domain lists its own domain-idle-states and its parent domain's
// (the cluster) follow.
std::vector<std::size_t> CpuReader::read_idle_states(int cpu_node)
{
	std::vector<std::size_t> out;
	for (int state : dt_.phandles(cpu_node, "cpu-idle-states"))
		out.push_back(idle_state(state));
	if (!out.empty())
		return out;

	auto names = dt_.strings(cpu_node, "power-domain-names");
	auto domains = dt_.phandles_with_args(cpu_node, "power-domains", "#power-domain-cells");
	auto psci = std::find(names.begin(), names.end(), "psci");
	if (psci == names.end() ||
	    static_cast<std::size_t>(psci - names.begin()) >= domains.size())
		return out;
	int domain = domains[static_cast<std::size_t>(psci - names.begin())].node;
	for (int depth = 0; depth < 8; depth++) {
		for (int state : dt_.phandles(domain, "domain-idle-states"))
			out.push_back(idle_state(state));
		auto parents = dt_.phandles_with_args(domain, "power-domains", "#power-domain-cells");
		if (parents.empty())
			break;
		domain = parents.front().node;
	}
	return out;
}

std::size_t CpuReader::idle_state(int node)
{
	if (auto it = idle_states_.find(node); it != idle_states_.end())
		return it->second;
	IdleState state;
	state.node_path = dt_.path(node);
	state.name = dt_.name(node);
	state.compatible = dt_.strings(node, "compatible");
	state.entry_latency_us = dt_.u32(node, "entry-latency-us").value_or(0);
	state.exit_latency_us = dt_.u32(node, "exit-latency-us").value_or(0);
	state.min_residency_us = dt_.u32(node, "min-residency-us").value_or(0);
	state.wakeup_latency_us = dt_.u32(node, "wakeup-latency-us");
	state.local_timer_stop = dt_.has(node, "local-timer-stop");
	p_.idle_states.push_back(std::move(state));
	idle_states_[node] = p_.idle_states.size() - 1;
	return p_.idle_states.size() - 1;
}

// Boards whose CPU frequencies come from firmware or hardware rather than
// from the DT: qcom-cpufreq-hw (qcom,freq-domain), SCMI performance
// protocol (protocol@13 as a clock or power-domain provider), SCPI DVFS
// clocks.
std::optional<FirmwareProvider> CpuReader::firmware_dvfs(int cpu_node)
{
	auto domain_of = [&](std::string_view prop, std::string_view cells)
		-> std::optional<PhandleArgs> {
		if (!dt_.has(cpu_node, prop))
			return std::nullopt;
		auto entries = dt_.phandles_with_args(cpu_node, prop, cells);
		if (entries.empty())
			return std::nullopt;
		return entries.front();
	};
	auto make = [&](std::string kind, const PhandleArgs &at) {
		return FirmwareProvider{std::move(kind), dt_.path(at.node),
					at.args.empty() ? 0u : at.args.front()};
	};
	auto is_scmi_perf = [&](int node) {
		auto reg = dt_.u32_array(node, "reg");
		if (!reg || reg->size() != 1 || reg->front() != 0x13u)
			return false;
		auto parent = dt_.parent(node);
		for (const auto &c : dt_.strings(parent, "compatible"))
			if (c.starts_with("arm,scmi"))
				return true;
		return false;
	};

	if (auto qcom = domain_of("qcom,freq-domain", "#freq-domain-cells"))
		return make("qcom-cpufreq-hw", *qcom);
	// Only the first clock matters, and only when its provider is
	// firmware: other clock providers are not our business, so their
	// cells are not parsed.
	if (auto clocks = dt_.u32_array(cpu_node, "clocks"); clocks && clocks->size() >= 2) {
		int provider = dt_.resolve(clocks->front(), cpu_node, "clocks");
		auto compat = dt_.strings(provider, "compatible");
		const bool scpi = std::find(compat.begin(), compat.end(), "arm,scpi-dvfs-clocks") !=
				  compat.end();
		if (scpi || is_scmi_perf(provider))
			return make(scpi ? "scpi" : "scmi", PhandleArgs{provider, {(*clocks)[1]}});
	}
	auto names = dt_.strings(cpu_node, "power-domain-names");
	auto perf = std::find(names.begin(), names.end(), "perf");
	if (perf != names.end()) {
		auto domains = dt_.phandles_with_args(cpu_node, "power-domains", "#power-domain-cells");
		auto idx = static_cast<std::size_t>(perf - names.begin());
		if (idx < domains.size() && is_scmi_perf(domains[idx].node))
			return make("scmi", domains[idx]);
	}
	return std::nullopt;
}

// Which CPUs share one cpufreq policy on the real board:
//  - a firmware domain groups the CPUs that name the same provider index;
//  - operating-points-v2 with opp-shared groups the CPUs of that table,
//    without it each CPU is its own policy (dev_pm_opp_of_get_sharing_cpus);
//  - legacy operating-points: cpufreq-dt falls back to "all CPUs share".
void CpuReader::group_frequency_domains()
{
	std::map<std::string, std::size_t> by_key;
	for (const auto &cpu : p_.cpus) {
		std::string key;
		std::string why;
		bool fast_switch = false;
		if (cpu.firmware_dvfs) {
			fast_switch = cpu.firmware_dvfs->kind != "scpi";
			key = fmt::format("fw:{}:{}", cpu.firmware_dvfs->provider_path,
					  cpu.firmware_dvfs->domain);
			why = fmt::format("{} domain {}", cpu.firmware_dvfs->kind,
					  cpu.firmware_dvfs->domain);
		} else if (!cpu.opp_table) {
			key = fmt::format("cpu:{}", cpu.id);
			why = "no OPP table";
		} else if (p_.opp_tables[*cpu.opp_table].binding == OppBinding::legacy) {
			key = "legacy";
			why = "legacy operating-points (cpufreq-dt: all CPUs share)";
		} else if (p_.opp_tables[*cpu.opp_table].shared) {
			key = fmt::format("opp:{}", *cpu.opp_table);
			why = "opp-shared";
		} else {
			key = fmt::format("cpu:{}", cpu.id);
			why = "one CPU (OPP table not opp-shared)";
		}
		auto [it, fresh] = by_key.try_emplace(key, p_.frequency_domains.size());
		if (fresh)
			p_.frequency_domains.push_back(FrequencyDomain{{}, cpu.opp_table, why, fast_switch});
		p_.frequency_domains[it->second].cpus.push_back(cpu.id);
	}
}

} // namespace

void read_cpus(const DtView &dt, Platform &platform)
{
	CpuReader(dt, platform).run();
}

} // namespace sh::dts
