// SPDX-License-Identifier: GPL-2.0
//
// What the later stages (capacities, cpufreq, energy model) need from the
// DT and this board's DT does not carry, with where the real board gets it.
#include "dts/extract.h"
#include "dts/platform.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace sh::dts {

namespace {

std::string firmware_source(const FirmwareProvider &fw)
{
	if (fw.kind == "qcom-cpufreq-hw")
		return fmt::format("on the board, qcom-cpufreq-hw reads them from the hardware's "
				   "lookup table ({} domain {})", fw.provider_path, fw.domain);
	if (fw.kind == "scmi")
		return fmt::format("on the board, the SCMI performance protocol reports them from "
				   "firmware ({} domain {})", fw.provider_path, fw.domain);
	if (fw.kind == "scpi")
		return fmt::format("on the board, SCPI firmware reports them through the DVFS clock "
				   "({} index {})", fw.provider_path, fw.domain);
	return fmt::format("on the board, {} provides them", fw.kind);
}

constexpr std::string_view overlay_hint = "; give them with --overlay";

} // namespace

void find_missing_facts(Platform &p)
{
	auto cpus_where = [&](auto &&pred) {
		std::vector<unsigned> ids;
		for (const auto &cpu : p.cpus)
			if (pred(cpu))
				ids.push_back(cpu.id);
		return ids;
	};

	for (const auto &domain : p.frequency_domains) {
		const auto &first = p.cpus[domain.cpus.front()];
		if (!domain.opp_table) {
			std::string where = first.firmware_dvfs
						    ? firmware_source(*first.firmware_dvfs)
						    : std::string("the DT has no operating-points-v2 or "
								  "operating-points and no firmware provider");
			p.missing.push_back({domain.cpus, "CPU frequencies and voltages (no OPP table)",
					     where + std::string(overlay_hint)});
			continue;
		}
		const auto &table = p.opp_tables[*domain.opp_table];
		if (table.opps.empty()) {
			std::string where = table.skipped_supported_hw
						    ? fmt::format("every entry of {} is gated by opp-supported-hw, "
								  "which the SoC's cpufreq driver resolves from fuses",
								  table.node_path)
						    : fmt::format("{} has no enabled entry", table.node_path);
			p.missing.push_back({domain.cpus, "CPU frequencies (empty OPP table)",
					     where + std::string(overlay_hint)});
			continue;
		}
		const bool no_voltage = std::any_of(table.opps.begin(), table.opps.end(),
						    [](const Opp &o) { return o.microvolt.empty(); });
		if (no_voltage) {
			std::string where = first.firmware_dvfs
						    ? firmware_source(*first.firmware_dvfs)
						    : std::string("the DT gives no opp-microvolt (a regulator "
								  "driver sets the voltage)");
			p.missing.push_back({domain.cpus,
					     fmt::format("OPP voltages of {} (the energy model needs them)",
							 table.node_path),
					     where + std::string(overlay_hint)});
		}
	}

	auto no_capacity = cpus_where([](const Cpu &c) { return !c.capacity_dmips_mhz; });
	if (!no_capacity.empty() && no_capacity.size() != p.cpus.size())
		p.missing.push_back({no_capacity, "capacity-dmips-mhz",
				     "the kernel needs it on every CPU or it ignores it on all "
				     "(all capacities stay 1024)"});
	else if (!no_capacity.empty())
		p.missing.push_back({no_capacity, "capacity-dmips-mhz",
				     "absent: the kernel treats the CPUs as symmetric (capacity 1024)"});

	// The energy model of a policy is registered with the policy CPU's
	// device (dev_pm_opp_of_register_em() from cpufreq-dt), so only the
	// first CPU of each domain needs the coefficient -- unless its OPPs
	// carry opp-microwatt, which dev_pm_opp_of_register_em() prefers.
	std::vector<unsigned> no_power;
	for (const auto &domain : p.frequency_domains) {
		const bool microwatt = domain.opp_table && !p.opp_tables[*domain.opp_table].opps.empty() &&
				       p.opp_tables[*domain.opp_table].opps.front().microwatt;
		if (!p.cpus[domain.cpus.front()].dynamic_power_coefficient && !microwatt)
			no_power.insert(no_power.end(), domain.cpus.begin(), domain.cpus.end());
	}
	if (!no_power.empty()) {
		const bool firmware_em = std::all_of(no_power.begin(), no_power.end(), [&](unsigned id) {
			const auto &fw = p.cpus[id].firmware_dvfs;
			return fw && fw->kind == "scmi";
		});
		p.missing.push_back({no_power, "dynamic-power-coefficient (on the first CPU of the "
					       "frequency domain)",
				     firmware_em ? "the SCMI performance protocol reports power per OPP "
						   "on the board"
						 : "without it no energy model is registered from the DT "
						   "(EAS stays off)"});
	}

	auto no_map = cpus_where([](const Cpu &c) { return !c.cpu_map; });
	if (!no_map.empty() && no_map.size() != p.cpus.size())
		p.missing.push_back({no_map, "cpu-map position",
				     "CPUs absent from /cpus/cpu-map make the kernel drop the DT topology"});
}

} // namespace sh::dts
