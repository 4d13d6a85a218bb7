// SPDX-License-Identifier: GPL-2.0
//
// Booting the compiled kernel code on a board (kernel-shim/kernel.h).
#include "kernel-shim/kernel.h"

#include <kshim/api.h>
#if SH_KERNEL_SCHEDULER
#include <kshim/sched.h>
#endif

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <deque>
#include <string_view>
#include <vector>
#include <fmt/format.h>
#include <libfdt.h>


namespace sh::kshim {

namespace {

bool booted = false;

// unflatten_device_tree(): one struct device_node per FDT node, children
// in DT order, its names and properties pointing into a copy of the blob
// kept for the kernel's life, as the kernel keeps initial_boot_params (a
// copy of each property was two allocations, and odroid-xu3's tree has
// thousands). One pass over the structure block's tags, as the kernel's
// unflatten_dt_nodes() makes it (a node's properties come before its
// children there); a walk by subnode would pass over each subtree once per
// ancestor.
void unflatten(const void *blob)
{
	static std::deque<std::vector<char>> kept;	// never freed: the kernel points into them
	const auto *bytes = static_cast<const char *>(blob);
	const void *fdt = kept.emplace_back(bytes, bytes + fdt_totalsize(blob)).data();
	std::vector<device_node *> open;	// the node being filled and its ancestors
	for (int offset = 0, next = 0;; offset = next) {
		switch (fdt_next_tag(fdt, offset, &next)) {
		case FDT_BEGIN_NODE: {
			device_node *parent = open.empty() ? nullptr : open.back();
			const char *full_name = parent ? fdt_get_name(fdt, offset, nullptr) : "/";
			const std::string_view full(full_name);
			const std::string name(parent ? full.substr(0, full.find('@')) : "");
			device_node *np = kshim_of_new_node(parent, name.c_str(), full_name);
			if (!parent)
				kshim_of_set_root(np);
			open.push_back(np);
			break;
		}
		case FDT_PROP: {
			const char *prop_name = nullptr;
			int len = 0;
			const void *value = fdt_getprop_by_offset(fdt, offset, &prop_name, &len);
			if (!open.empty())
				kshim_of_add_property(open.back(), prop_name, value, len);
			break;
		}
		case FDT_END_NODE:
			if (!open.empty())
				open.pop_back();
			if (open.empty())
				return;
			break;
		case FDT_NOP:
			break;
		default:	// FDT_END, or a bad tag (the blob was checked: not reached)
			return;
		}
	}
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

// Names from an index-walking C accessor.
template <typename F>
std::vector<std::string> names_of(F accessor)
{
	std::vector<std::string> names;
	for (int i = 0; const char *name = accessor(i); i++)
		names.emplace_back(name);
	return names;
}

#if SH_KERNEL_SCHEDULER
void read_scheduler(Kernel &k)
{
	k.scheduler = true;
	for (auto &cpu : k.cpus) {
		std::vector<kshim_sched_domain> domains(8);
		const int n = kshim_sched_domains(static_cast<int>(cpu.id), domains.data(),
						  static_cast<int>(domains.size()));
		for (int i = 0; i < n; i++) {
			const auto &d = domains[i];
			SchedDomain sd;
			sd.name = d.name;
			sd.level = d.level;
			sd.span = cpus_of(d.span);
			for (int bit = 0; const char *flag = kshim_sd_flag_name(bit); bit++)
				if (d.flags & (1 << bit))
					sd.flags.emplace_back(flag);
			for (int g = 0; g < d.nr_groups; g++)
				sd.groups.push_back(cpus_of(d.groups[g]));
			cpu.domains.push_back(std::move(sd));
		}
		if (const char *gov = kshim_cpufreq_governor(static_cast<int>(cpu.id)))
			cpu.governor = gov;
		cpu.fast_switch = kshim_cpufreq_fast_switch_enabled(static_cast<int>(cpu.id));
		cpu.cur_khz = kshim_cpufreq_cur(static_cast<int>(cpu.id));
		std::vector<kshim_idle_state> states(KSHIM_MAX_IDLE_STATES);
		const int nr = kshim_cpu_idle_states(static_cast<int>(cpu.id), states.data(),
						     static_cast<int>(states.size()));
		for (int i = 0; i < nr; i++)
			cpu.idle_states.push_back({states[i].name, states[i].exit_latency_ns,
						   states[i].target_residency_ns});
		if (nr > 0)
			k.cpuidle_governor = kshim_cpuidle_governor();
	}
	for (const auto &cpu : k.cpus) {
		struct kshim_cpufreq_policy p{};
		const int id = static_cast<int>(cpu.id);
		if (kshim_cpufreq_policy(id, &p) != 0 || p.policy_cpu != cpu.id)
			continue;
		CpufreqPolicy policy;
		policy.cpus = cpus_of(p.related_cpus);
		policy.driver = p.driver ? p.driver : "";
		policy.transition_latency_ns = p.eternal ? 0 : p.transition_latency_ns;
		policy.eternal = p.eternal != 0;
		policy.clock_latency_ns = p.clock_latency_ns;
		policy.voltage_latency_ns = p.voltage_latency_ns;
		policy.transition_delay_us = p.transition_delay_us;
		policy.rate_limit_us = kshim_sugov_rate_limit_us(id);
		policy.policy_rate_limit_us = p.rate_limit_us;
		policy.fast_switch = p.fast_switch != 0;
		policy.governor_per_policy = p.governor_per_policy != 0;
		k.cpufreq_policies.push_back(std::move(policy));
	}
	std::vector<kshim_cpuset> spans(KSHIM_MAX_CPUS);
	const int n = kshim_perf_domains(0, spans.data(), static_cast<int>(spans.size()));
	for (int i = 0; i < n; i++)
		k.root_perf_domains.push_back(cpus_of(spans[i]));
	k.eas = kshim_sched_energy_enabled() != 0;
}

// Why build_perf_domains() left EAS off, in the kernel's words: the last
// thing it printed about it (it prints with sched_verbose, which boot
// always passes), or the sysctl that switched it off.
std::string eas_off_reason(const Kernel &k)
{
	char value[32] = "";
	if (kshim_sysctl_read("kernel.sched_energy_aware", value, sizeof(value)) == 0 &&
	    std::string_view(value).starts_with("0"))
		return "kernel.sched_energy_aware = 0";
	const std::string_view markers[] = {"asymmetric capacities", "EAS", "no EM found"};
	const auto &log = kernel_log();
	for (auto it = log.rbegin(); it != log.rend(); ++it)
		for (auto marker : markers)
			if (it->text.find(marker) != std::string::npos) {
				std::string text = it->text;
				while (!text.empty() && text.back() == '\n')
					text.pop_back();
				return text;
			}
	// build_perf_domains() leaves silently when a CPU has no cpufreq policy.
	for (const auto &cpu : k.cpus)
		if (!cpu.has_policy)
			return fmt::format("CPU{} has no cpufreq policy, so no schedutil (the DT gives it no OPPs)",
					   cpu.id);
	return "build_perf_domains() gave no reason";
}
#endif

// Whether EAS could be enabled, from what 6.1's build_perf_domains()
// checks that already exists at this stage: an energy model for every CPU
// and asymmetric CPU capacities. The reasons use the kernel's own words
// ("no EM found for CPU%d", "CPUs do not have asymmetric capacities").
// Why a CPU has no energy model, from the board: what the kernel cannot
// say (it only knows registration did not happen).
std::string why_no_em(const dts::Platform &platform, const CpuState &cpu)
{
	auto policy_cpu = [&](unsigned id) {
		for (const auto &d : platform.frequency_domains)
			if (std::find(d.cpus.begin(), d.cpus.end(), id) != d.cpus.end())
				return d.cpus.front();
		return id;
	};
	if (!cpu.has_policy)
		return "no cpufreq policy: the DT gives this CPU no OPPs";
	if (!platform.cpus[policy_cpu(cpu.id)].dynamic_power_coefficient)
		return "dev_pm_opp_of_register_em() found no dynamic-power-coefficient";
	return fmt::format("dev_pm_opp_of_register_em() returned {}", errno_name(cpu.em_status));
}

[[maybe_unused]] void judge_eas(const dts::Platform &platform, Kernel &k)
{
	auto in_pd = [&](unsigned cpu) {
		return std::any_of(k.perf_domains.begin(), k.perf_domains.end(), [&](const PerfDomain &pd) {
			return std::find(pd.cpus.begin(), pd.cpus.end(), cpu) != pd.cpus.end();
		});
	};
	for (const auto &cpu : k.cpus) {
		if (in_pd(cpu.id))
			continue;
		k.eas_reason = fmt::format("no EM found for CPU{} ({})", cpu.id, why_no_em(platform, cpu));
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
	k.eas = true;
}

// An OPP table the kernel's cpufreq refuses (cpufreq_table_validate_and_sort():
// -EINVAL) is bad input: duplicate is the kernel's message about two OPPs
// with one frequency in kHz, empty when no frequency is left once the
// boost ones are left out.
BadParameter refused_opp_table(const dts::Platform &platform, const dts::OppTable &table,
			       std::span<const unsigned> cpus, std::string_view duplicate)
{
	return BadParameter(fmt::format(
		"{}: {}: the kernel's cpufreq refuses this OPP table for CPUs {} "
		"(cpufreq_table_validate_and_sort(): -EINVAL): {}",
		platform.source, table.node_path, fmt::join(cpus, ","),
		duplicate.empty() ? std::string("no frequency is left once the turbo-mode OPPs are left out "
						"(boost is off)")
				  : fmt::format("the kernel says \"{}\" (two OPPs with one frequency in kHz)", duplicate)));
}

std::string trimmed(std::string_view text)
{
	return std::string(text.substr(0, text.find_last_not_of(" \n") + 1));
}

#if SH_KERNEL_SCHEDULER
// The board below the kernel's frequency path, before boot: the rate each
// CPU's clock was left at by the boot loader (the highest OPP of its table
// that is not a boost frequency, for want of a boot loader), which
// arch_topology.c reads for the early capacities.
void set_boot_clocks(const dts::Platform &platform)
{
	for (const auto &domain : platform.frequency_domains) {
		std::uint64_t boot_hz = 0;
		if (domain.opp_table)
			for (const auto &opp : platform.opp_tables[*domain.opp_table].opps)
				if (!opp.turbo)
					boot_hz = std::max(boot_hz, opp.hz);
		for (unsigned cpu : domain.cpus)
			kshim_set_boot_clock(cpu, boot_hz);
	}
}

// The firmware frequency domains the SoC's driver finds (glue/cpufreq_soc.c),
// before the drivers probe.
void add_firmware_domains(const dts::Platform &platform)
{
	for (const auto &domain : platform.frequency_domains) {
		const auto &fw = platform.cpus[domain.cpus.front()].firmware_dvfs;
		if (!fw || !domain.opp_table)
			continue;
		if (int err = kshim_add_firmware_domain(fw->kind.c_str(), domain.cpus.data(),
							static_cast<unsigned>(domain.cpus.size())))
			throw KernelFault(fmt::format("{} domain for CPUs {}: {}", fw->kind,
						      fmt::join(domain.cpus, ","), errno_name(err)));
	}
}

// A frequency domain with OPPs whose CPUs got no policy because
// cpufreq_online() found the table the DT gives unusable
// (cpufreq_table_validate_and_sort(): -EINVAL) is bad input, named with
// the kernel's reason. A driver that does not probe (no clock, no
// supply) is the kernel's verdict on the board, not an error.
void check_policies(const dts::Platform &platform)
{
	for (const auto &domain : platform.frequency_domains) {
		if (!domain.opp_table || platform.opp_tables[*domain.opp_table].opps.empty())
			continue;
		struct kshim_cpufreq_policy policy{};
		if (kshim_cpufreq_policy(static_cast<int>(domain.cpus.front()), &policy) == 0)
			continue;
		const auto &table = platform.opp_tables[*domain.opp_table];
		std::string duplicate;
		for (const auto &line : kernel_log())
			if (line.text.find("Duplicate freq-table entries") != std::string::npos)
				duplicate = trimmed(line.text);
		const bool turbo_only = std::all_of(table.opps.begin(), table.opps.end(),
						    [](const dts::Opp &opp) { return opp.turbo; });
		if (!duplicate.empty() || turbo_only)
			throw refused_opp_table(platform, table, domain.cpus, duplicate);
	}
}
#endif

#if !SH_KERNEL_SCHEDULER
// The PELT-only bring-up build has no cpufreq core: one policy per
// frequency domain through glue/bringup/cpufreq.c's stand-in.
void add_policies(const dts::Platform &platform)
{
	for (const auto &domain : platform.frequency_domains) {
		if (!domain.opp_table)
			continue;
		const auto &table = platform.opp_tables[*domain.opp_table];
		if (table.opps.empty())
			continue;
		std::vector<kshim_opp> opps;
		std::uint64_t latency_ns = 0;	// dev_pm_opp_get_max_clock_latency()
		for (const auto &opp : table.opps) {
			opps.push_back({opp.hz, opp.target_microvolt().value_or(0), opp.turbo,
					static_cast<unsigned long>(opp.microwatt)});
			latency_ns = std::max(latency_ns, opp.clock_latency_ns.value_or(0));
		}
		const int err = kshim_add_policy(domain.cpus.data(), static_cast<unsigned>(domain.cpus.size()),
						 opps.data(), static_cast<unsigned>(opps.size()), latency_ns,
						 domain.fast_switch ? 1 : 0);
		if (err == -EINVAL) {
			// cpufreq_table_validate_and_sort() refused the table the
			// DT gives: bad input, with the kernel's reason when it
			// printed one
			const auto &log = kernel_log();
			const bool duplicate = !log.empty() &&
					       log.back().text.find("Duplicate freq-table entries") != std::string::npos;
			throw refused_opp_table(platform, table, domain.cpus, duplicate ? trimmed(log.back().text) : "");
		}
		if (err)
			throw KernelFault(fmt::format("cpufreq policy for CPUs {} failed: {}",
						      fmt::join(domain.cpus, ","), err));
	}
}
#endif

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
		kshim_cpuset span{};
		kshim_em_cpus(cpu, &span);
		PerfDomain pd;
		pd.cpus = cpus_of(span);
		if (!states || pd.cpus.empty() || pd.cpus.front() != cpu)
			continue;	// no EM, or not the domain's first CPU
		switch (kshim_em_power_unit(cpu)) {
		case KSHIM_EM_MILLIWATTS:
			pd.unit = PowerUnit::milliwatts;
			break;
		case KSHIM_EM_ABSTRACT:
			pd.unit = PowerUnit::abstract;
			break;
		default:
			pd.unit = PowerUnit::microwatts;
			break;
		}
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
#if SH_KERNEL_SCHEDULER
	read_scheduler(k);
	if (!k.eas)
		k.eas_reason = eas_off_reason(k);
#endif
	return k;
}

std::vector<std::string> kernel_parameters()
{
	return names_of(kshim_setup_name);
}

std::vector<std::string> sysctl_names()
{
#if SH_KERNEL_SCHEDULER
	return names_of(kshim_sysctl_name);
#else
	return {};
#endif
}

std::vector<std::string> sched_features()
{
#if SH_KERNEL_SCHEDULER
	return names_of(kshim_sched_feat_name);
#else
	return {};
#endif
}

namespace {

std::string listing(const std::vector<std::string> &names)
{
	return fmt::format("{}", fmt::join(names, ", "));
}

#if SH_KERNEL_SCHEDULER
void apply_sysctl(const std::string &assignment)
{
	const auto eq = assignment.find('=');
	if (eq == std::string::npos || eq == 0)
		throw BadParameter(fmt::format("--sysctl '{}': expected name=value", assignment));
	std::string name = assignment.substr(0, eq), value = assignment.substr(eq + 1);
	const int err = kshim_sysctl_write(name.c_str(), value.c_str());
	if (err == -ENOENT)
		throw BadParameter(fmt::format("--sysctl {}: no such sysctl; the kernel registered: {}", name,
					       listing(sysctl_names())));
	if (err)
		throw BadParameter(fmt::format("--sysctl {}={}: the kernel's handler rejected it ({})", name,
					       value, errno_name(err)));
	kshim_settle();
}

void apply_feature(const std::string &spec)
{
	std::string name = spec;
	bool enable = true;
	if (const auto eq = spec.find('='); eq != std::string::npos) {
		name = spec.substr(0, eq);
		const std::string value = spec.substr(eq + 1);
		if (value == "on" || value == "1" || value == "true")
			enable = true;
		else if (value == "off" || value == "0" || value == "false")
			enable = false;
		else
			throw BadParameter(fmt::format("--feature {}: expected on or off, not '{}'", name, value));
	} else if (name.starts_with("NO_")) {
		name = name.substr(3);
		enable = false;
	}
	if (kshim_sched_feat_set(name.c_str(), enable ? 1 : 0) < 0)
		throw BadParameter(fmt::format("--feature {}: no such scheduler feature; features.h has: {}",
					       name, listing(sched_features())));
}
#endif

#if SH_KERNEL_SCHEDULER
// The sensor drivers' probes: each distinct (sensor node, id) the zones
// read, in DT order, registered with thermal_of.c (which finds its zone,
// trips and cooling maps itself); then the governor asked for, if any.
std::vector<ThermalZoneState> register_thermal_sensors(const dts::Platform &platform, const std::string &governor)
{
	std::vector<ThermalZoneState> zones;
	for (const auto &zone : platform.thermal_zones) {
		for (const auto &sensor : zone.sensors) {
			const unsigned id = sensor.args.empty() ? 0 : sensor.args.front();
			if (std::ranges::any_of(zones, [&](const auto &z) {
				    return z.sensor_path == sensor.node_path && z.sensor_id == id;
			    }))
				continue;
			ThermalZoneState z;
			z.sensor_path = sensor.node_path;
			z.sensor_id = id;
			z.sensor = kshim_thermal_add_sensor(sensor.node_path.c_str(), static_cast<int>(id));
			if (z.sensor == -ENODEV)
				z.error = "the sensor node is disabled: its driver does not probe";
			else if (z.sensor < 0)
				z.error = fmt::format("thermal_of_zone_register() failed: {}", z.sensor);
			zones.push_back(std::move(z));
		}
	}
	for (auto &z : zones) {
		if (z.sensor < 0)
			continue;
		if (!governor.empty() && kshim_thermal_set_governor(z.sensor, governor.c_str()))
			throw BadParameter(fmt::format("--thermal-governor {}: no such thermal governor "
						       "(the compiled ones: step_wise, power_allocator)",
						       governor));
		struct kshim_thermal_zone info {};
		kshim_thermal_zone(z.sensor, &info);
		z.zone = info.type;
		z.governor = info.governor;
		z.polling_delay_ms = info.polling_delay_ms;
		z.passive_delay_ms = info.passive_delay_ms;
		z.num_trips = info.num_trips;
		z.disabled_trips = info.nr_disabled_trips;
		z.cooling_bindings = info.nr_instances;
	}
	return zones;
}
#endif

} // namespace

Kernel boot(const dts::Platform &platform, const BootOptions &options)
{
	if (dts::to_string(platform.arch) != SH_KERNEL_FLAVOUR)
		throw WrongFlavour(std::string(dts::to_string(platform.arch)),
				   fmt::format("{} is an {} board ({}); this kernel build is the {} flavour",
					       platform.source, dts::to_string(platform.arch), platform.arch_reason,
					       SH_KERNEL_FLAVOUR));
	require_image_kernel();
	if (booted)
		throw KernelFault("the kernel is already booted in this process (one board per process)");
	booted = true;
	if (platform.dtb.empty())
		throw KernelFault("the platform carries no device-tree blob to boot from");

	if (platform.cpus.size() > kshim_nr_cpus_max())
		throw BadParameter(fmt::format("{}: the board has {} CPUs; this build's {} flavour supports {} "
					       "(NR_CPUS)",
					       platform.source, platform.cpus.size(), SH_KERNEL_FLAVOUR,
					       kshim_nr_cpus_max()));
	unflatten(platform.dtb.data());
	const auto nr_cpus = static_cast<unsigned>(platform.cpus.size());
	// The handlers may keep pointers into the command line: it lives as
	// long as the kernel does.
	static std::string cmdline;
	const std::string verbose = SH_KERNEL_SCHEDULER ? fmt::format("{} ", kshim_sched_verbose_param()) : "";
	cmdline = verbose + options.cmdline;
	if (cmdline.size() >= kshim_cmdline_size())
		throw BadParameter(fmt::format("--cmdline: {} bytes{}; the kernel's command line holds {} "
					       "(COMMAND_LINE_SIZE, its NUL included)",
					       cmdline.size(),
					       verbose.empty() ? "" : fmt::format(" with the harness's '{}'", verbose),
					       kshim_cmdline_size()));
	const char *unknown = nullptr;
	kshim_set_seed(options.seed);
#if SH_KERNEL_SCHEDULER
	// Boot does not happen at clock 0: on hardware sched_clock() has run for
	// a while before start_kernel(), and PELT reads last_update_time == 0 as
	// "not attached yet", so an entity attached at 0 would be attached again.
	kshim_set_now(boot_clock_ns);
#endif
#if SH_KERNEL_SCHEDULER
	set_boot_clocks(platform);
#endif
	if (int err = kshim_boot_early(nr_cpus, cmdline.data(), &unknown)) {
		if (err == -ENOENT && unknown)
			throw BadParameter(fmt::format("--cmdline: no kernel parameter handler takes '{}'; "
						       "the compiled files have: {}",
						       unknown, listing(kernel_parameters())));
		// parse_args() names a value its parameter refuses
		const auto &log = kernel_log();
		if (!log.empty() && (log.back().text.find("invalid for parameter") != std::string::npos ||
				     log.back().text.find("too large for parameter") != std::string::npos))
			throw BadParameter(fmt::format("--cmdline: {}", log.back().text));
		throw KernelFault(fmt::format("kshim_boot_early({}) failed: {}", nr_cpus, err));
	}

#if SH_KERNEL_SCHEDULER
	add_firmware_domains(platform);
	kshim_boot_late();
	check_policies(platform);
#else
	add_policies(platform);
	kshim_boot_late();
#endif

#if SH_KERNEL_SCHEDULER
	auto zones = register_thermal_sensors(platform, options.thermal_governor);
	for (const auto &s : options.sysctls)
		apply_sysctl(s);
	for (const auto &f : options.features)
		apply_feature(f);
	Kernel k = snapshot();
	k.thermal_zones = std::move(zones);
	// pd_init()'s "no EM found for CPU%d": add what the board says about it.
	for (const auto &cpu : k.cpus)
		if (!k.eas && k.eas_reason.ends_with(fmt::format("no EM found for CPU{}", cpu.id)))
			k.eas_reason += fmt::format(" ({})", why_no_em(platform, cpu));
	return k;
#else
	if (!options.sysctls.empty() || !options.features.empty())
		throw BadParameter(fmt::format("--sysctl and --feature need the scheduler, which this build "
					       "does not compile for Linux {}", SCHED_HARNESS_KERNEL_VERSION));
	Kernel k = snapshot();
	judge_eas(platform, k);
	return k;
#endif
}

void update_thermal_pressure(std::span<const unsigned> cpus, unsigned long capped_khz)
{
	const auto set = cpuset_of(cpus);
	kshim_update_thermal_pressure(&set, capped_khz);
}

} // namespace sh::kshim
