// SPDX-License-Identifier: GPL-2.0
//
// Booting the compiled kernel code on a board (kernel-shim/kernel.h).
#include "kernel-shim/kernel.h"

#include <kshim/api.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <libfdt.h>


namespace sh::kshim {

namespace {

bool booted = false;

// unflatten_device_tree(): one struct device_node per FDT node, children
// in DT order, every property copied.
void unflatten(const void *fdt, int offset, device_node *parent)
{
	const char *fdt_name = fdt_get_name(fdt, offset, nullptr);
	std::string full_name = parent ? fdt_name : "/";
	std::string name = parent ? full_name.substr(0, full_name.find('@')) : "";
	device_node *np = kshim_of_new_node(parent, name.c_str(), full_name.c_str());
	if (!parent)
		kshim_of_set_root(np);

	int prop;
	fdt_for_each_property_offset(prop, fdt, offset) {
		const char *prop_name = nullptr;
		int len = 0;
		const void *value = fdt_getprop_by_offset(fdt, prop, &prop_name, &len);
		kshim_of_add_property(np, prop_name, value, len);
	}
	int child;
	fdt_for_each_subnode(child, fdt, offset)
		unflatten(fdt, child, np);
}

std::string errno_name(int err)
{
	switch (-err) {
	case EINVAL:
		return "-EINVAL";
	case ENODEV:
		return "-ENODEV";
	case EEXIST:
		return "-EEXIST";
	case ENOMEM:
		return "-ENOMEM";
	default:
		return fmt::format("{}", err);
	}
}

// Whether EAS could be enabled, from what 6.1's build_perf_domains()
// checks that already exists at this stage: an energy model for every CPU
// and asymmetric CPU capacities. The reasons use the kernel's own words
// ("no EM found for CPU%d", "CPUs do not have asymmetric capacities").
void judge_eas(const dts::Platform &platform, Kernel &k)
{
	auto in_pd = [&](unsigned cpu) {
		return std::any_of(k.perf_domains.begin(), k.perf_domains.end(), [&](const PerfDomain &pd) {
			return std::find(pd.cpus.begin(), pd.cpus.end(), cpu) != pd.cpus.end();
		});
	};
	auto policy_cpu = [&](unsigned cpu) {
		for (const auto &d : platform.frequency_domains)
			if (std::find(d.cpus.begin(), d.cpus.end(), cpu) != d.cpus.end())
				return d.cpus.front();
		return cpu;
	};
	for (const auto &cpu : k.cpus) {
		if (in_pd(cpu.id))
			continue;
		std::string why;
		if (!cpu.has_policy)
			why = "no cpufreq policy: the DT gives this CPU no OPPs";
		else if (!platform.cpus[policy_cpu(cpu.id)].dynamic_power_coefficient)
			why = "dev_pm_opp_of_register_em() found no dynamic-power-coefficient";
		else
			why = fmt::format("dev_pm_opp_of_register_em() returned {}", errno_name(cpu.em_status));
		k.eas_reason = fmt::format("no EM found for CPU{} ({})", cpu.id, why);
		return;
	}
	const bool asymmetric = std::adjacent_find(k.cpus.begin(), k.cpus.end(),
						   [](const CpuState &a, const CpuState &b) {
							   return a.capacity != b.capacity;
						   }) != k.cpus.end();
	if (!asymmetric) {
		k.eas_reason = "CPUs do not have asymmetric capacities";
		return;
	}
	k.eas_possible = true;
}

} // namespace

Kernel snapshot()
{
	Kernel k;
	const unsigned nr = kshim_nr_cpus();
	for (unsigned cpu = 0; cpu < nr; cpu++) {
		CpuState s;
		s.id = cpu;
		s.capacity = kshim_cpu_capacity(cpu);
		s.freq_scale = kshim_cpu_freq_scale(cpu);
		s.thermal_pressure = kshim_cpu_thermal_pressure(cpu);
		struct kshim_cpu_topology topo{};
		kshim_cpu_topology(cpu, &topo);
		s.package_id = topo.package_id;
		s.cluster_id = topo.cluster_id;
		s.core_id = topo.core_id;
		s.thread_id = topo.thread_id;
		s.em_status = kshim_em_status(cpu);
		s.has_policy = s.em_status != -ENODEV;
		k.cpus.push_back(s);

		const int states = kshim_em_nr_states(cpu);
		const unsigned long span = kshim_em_cpus(cpu);
		if (!states || std::countr_zero(span) != static_cast<int>(cpu))
			continue;	// no EM, or not the domain's first CPU
		PerfDomain pd;
		for (unsigned c = 0; c < 64; c++)
			if (span & (1UL << c))
				pd.cpus.push_back(c);
		pd.microwatts = !kshim_em_is_milliwatts(cpu);
		for (int i = 0; i < states; i++) {
			struct kshim_em_state st{};
			kshim_em_state(cpu, i, &st);
			pd.states.push_back({st.frequency, st.power, st.cost, st.inefficient != 0});
		}
		k.perf_domains.push_back(std::move(pd));
	}
	for (const auto &line : kernel_log())
		if (line.level >= 0 && line.level <= 4)	// KERN_WARNING and worse
			k.messages.push_back(line.text);
	return k;
}

Kernel boot(const dts::Platform &platform)
{
	if (booted)
		throw KernelFault("the kernel is already booted in this process (one board per process)");
	booted = true;
	if (platform.dtb.empty())
		throw KernelFault("the platform carries no device-tree blob to boot from");

	unflatten(platform.dtb.data(), 0, nullptr);
	const auto nr_cpus = static_cast<unsigned>(platform.cpus.size());
	if (int err = kshim_boot_early(nr_cpus))
		throw KernelFault(fmt::format("kshim_boot_early({}) failed: {}", nr_cpus, err));

	for (const auto &domain : platform.frequency_domains) {
		if (!domain.opp_table)
			continue;
		const auto &table = platform.opp_tables[*domain.opp_table];
		if (table.opps.empty())
			continue;
		std::vector<kshim_opp> opps;
		for (const auto &opp : table.opps)
			opps.push_back({opp.hz, opp.target_microvolt().value_or(0)});
		if (int err = kshim_add_policy(domain.cpus.data(), static_cast<unsigned>(domain.cpus.size()),
					       opps.data(), static_cast<unsigned>(opps.size())))
			throw KernelFault(fmt::format("cpufreq policy for CPUs {} failed: {}",
						      fmt::join(domain.cpus, ","), err));
	}
	kshim_boot_late();

	Kernel k = snapshot();
	judge_eas(platform, k);
	return k;
}

void update_thermal_pressure(std::span<const unsigned> cpus, unsigned long capped_khz)
{
	unsigned long bits = 0;
	for (unsigned cpu : cpus)
		bits |= 1UL << cpu;
	kshim_update_thermal_pressure(bits, capped_khz);
}

} // namespace sh::kshim
