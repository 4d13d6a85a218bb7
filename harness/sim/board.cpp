// SPDX-License-Identifier: GPL-2.0
#include "harness/sim/board.h"

#include "harness/sim/simulator.h"

#include <kshim/cost.h>
#include <kshim/sched.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace sh::sim {

namespace {

// The power the CPU draws while busy at its current frequency, from a
// table of kHz -> power.
std::uint64_t busy_power_at(const Board::Cpu &cpu, const std::vector<std::pair<unsigned, std::uint64_t>> &table)
{
	for (const auto &[khz, uw] : table)
		if (khz == cpu.khz)
			return uw;
	if (!table.empty() && cpu.khz)
		throw kshim::KernelFault(
			fmt::format("the CPU runs at {} kHz, a frequency its energy model lacks", cpu.khz));
	return 0;
}

std::string cpus_text(const std::vector<unsigned> &cpus)
{
	std::string s;
	for (const auto c : cpus)
		s += fmt::format("{}{}", s.empty() ? "" : ",", c);
	return s;
}

} // namespace

Board::Board(const dts::Platform &platform, const kshim::Kernel &kernel, std::span<const std::uint64_t> idle_power_uw,
	     const PowerModel *model)
{
	const auto n = kernel.cpus.size();
	cpus_.resize(n);
	for (std::size_t c = 0; c < n; c++) {
		auto &cpu = cpus_[c];
		const int id = static_cast<int>(c);
		cpu.capacity = kernel.cpus[c].capacity;
		cpu.max_khz = kshim_cpufreq_max(id);
		cpu.khz = cpu.requested_khz = kshim_cpufreq_cur(id);
	}
	for (std::size_t d = 0; d < platform.frequency_domains.size(); d++) {
		Domain dom;
		dom.cpus = platform.frequency_domains[d].cpus;
		// The clock's own transition time, as the DT describes the
		// hardware: its OPPs' longest clock-latency-ns (what the kernel
		// reads as dev_pm_opp_get_max_clock_latency()); the supplies'
		// ramps come before it (glue/regulator.c).
		std::int64_t clock_latency_ns = 0;
		if (const auto &table = platform.frequency_domains[d].opp_table)
			for (const auto &opp : platform.opp_tables[*table].opps)
				clock_latency_ns = std::max(clock_latency_ns,
							    static_cast<std::int64_t>(opp.clock_latency_ns.value_or(0)));
		for (unsigned c : dom.cpus)
			if (c < n)
				cpus_[c].transition_latency_ns = clock_latency_ns;
		for (unsigned c : dom.cpus) {
			if (c >= n)
				continue;
			cpus_[c].domain = static_cast<int>(d);
			if (d < idle_power_uw.size())
				cpus_[c].idle_power = idle_power_uw[d];
		}
		domains_.push_back(std::move(dom));
	}
	for (const auto &pd : kernel.perf_domains) {
		if (!pd.in_watts())
			power_in_microwatts_ = false;
		for (unsigned c : pd.cpus) {
			if (c >= n)
				continue;
			// microwatts, or the driver's own scale
			for (const auto &s : pd.states)
				cpus_[c].em_power.emplace_back(static_cast<unsigned>(s.frequency_khz),
							       pd.in_watts() ? pd.microwatts(s) : s.power);
			cpus_[c].power = cpus_[c].em_power;
			if (cpus_[c].domain >= 0)
				domains_[static_cast<std::size_t>(cpus_[c].domain)].has_energy_model = true;
		}
	}
	for (std::size_t c = 0; c < n; c++) {
		auto &cpu = cpus_[c];
		// the OPPs: the energy model's, else the frequency domain's table
		for (const auto &[khz, power] : cpu.em_power)
			cpu.freqs.push_back(khz);
		if (cpu.freqs.empty() && cpu.domain >= 0) {
			const auto &dom = platform.frequency_domains[static_cast<std::size_t>(cpu.domain)];
			if (dom.opp_table)
				for (const auto &opp : platform.opp_tables[*dom.opp_table].opps)
					cpu.freqs.push_back(static_cast<unsigned>(opp.hz / 1000));
		}
		std::sort(cpu.freqs.begin(), cpu.freqs.end());
	}
	if (model)
		apply(*model, platform);
	for (std::size_t c = 0; c < n; c++) {
		auto &cpu = cpus_[c];
		if (cpu.power.empty())
			energy_complete_ = false;
		cpu.busy_power = busy_power_at(cpu, cpu.power);
		cpu.idle_now = idle_power_in(cpu);
		cpu.busy_bucket = &cpu.busy_at[cpu.khz];
	}
	if (model && (model->package_budget_mw || !model->smt_speed.empty()))
		build_speed_model(*model, kernel, platform);
	for (auto &dom : domains_)
		if (!dom.cpus.empty() && dom.cpus.front() < n)
			dom.bucket = &dom.residency[cpus_[dom.cpus.front()].khz];
}

namespace {

// A power model's figure in µW: mW x 1000, or the file's units x the
// µW one of them is worth.
std::uint64_t in_microwatts(double value, double unit_uw)
{
	const double uw = value * unit_uw;
	// a board draws less than a megawatt: beyond, the file's units are wrong
	if (!(uw >= 0 && uw <= 1e12))
		throw PowerModelError(fmt::format("board power model: {} units x {} uW per unit is not a power "
						  "from 0 to 1 MW (bogo_units.busy_cost against the energy model)",
						  value, unit_uw));
	return static_cast<std::uint64_t>(std::llround(uw));
}

} // namespace

// µW per unit of the file: 1000 (mW), or what the kernel's energy model
// says the reference CPU draws busy at the reference OPP, divided by the
// file's cost of it (bogo_units).
double Board::file_unit_uw(const PowerModel &model, const dts::Platform &platform)
{
	const auto &bogo = model.bogo_units;
	if (!bogo)
		return 1000;
	if (bogo->cpu >= cpus_.size())
		throw PowerModelError(fmt::format("board power model: bogo_units.cpu: {} has CPUs 0-{}", platform.model,
						  cpus_.size() - 1));
	const auto &ref = cpus_[bogo->cpu];
	if (ref.em_power.empty() || !power_in_microwatts_)
		throw PowerModelError(fmt::format("board power model: bogo_units: CPU{} of {} has no energy "
						  "model in microwatts to convert the file's units through",
						  bogo->cpu, platform.model));
	const auto it = bogo->khz ? std::ranges::find(ref.em_power, bogo->khz, &std::pair<unsigned, std::uint64_t>::first)
				  : std::ranges::max_element(ref.em_power);
	if (it == ref.em_power.end())
		throw PowerModelError(fmt::format("board power model: bogo_units.khz: {} kHz is not an OPP of "
						  "CPU{}'s energy model",
						  bogo->khz, bogo->cpu));
	const double unit_uw = static_cast<double>(it->second) / bogo->busy_cost;
	unit_mw_ = unit_uw / 1000;
	return unit_uw;
}

// The file's figures by idle state, and the states that power a core or
// the cluster off, over the names the CPUs' cpuidle driver registered.
void Board::apply_idle_states(Domain &dom, const PowerModel::Domain &m, double unit_uw)
{
	// the CPUs' idle states: the default idle path first ("WFI" on a
	// board without a cpuidle driver, "arch-idle" on any: the legacy
	// tables' first entry), then the driver's. Without any (no driver,
	// or cpuidle.off=1) the file's driver states are never entered:
	// their figures go unused.
	kshim_idle_state states[KSHIM_MAX_IDLE_STATES];
	const int n = std::max(kshim_cpu_idle_states(static_cast<int>(dom.cpus.front()), states,
						       KSHIM_MAX_IDLE_STATES),
			       0);
	std::vector<std::string> names{n ? std::string("arch-idle") : std::string("WFI")};
	for (int i = 0; i < n; i++)
		names.emplace_back(states[i].name);
	auto index = [&](const std::string &state, const char *what) -> std::optional<std::size_t> {
		if (state == "arch-idle")
			return 0;
		const auto it = std::find(names.begin(), names.end(), state);
		if (it != names.end())
			return static_cast<std::size_t>(it - names.begin());
		if (n == 0 && !state.empty())
			return std::nullopt;
		std::string known;
		for (const auto &k : names)
			known += fmt::format("{}{}", known.empty() ? "" : ", ", k);
		throw PowerModelError(fmt::format("board power model: CPUs {}: {} names idle state \"{}\"; "
						  "theirs are {}",
						  cpus_text(m.cpus), what, state, known));
	};
	if (!m.idle_mw.empty()) {
		for (const unsigned c : dom.cpus)
			cpus_[c].state_power.assign(names.size(), cpus_[c].idle_power);
		for (const auto &[state, mw] : m.idle_mw)
			if (const auto i = index(state, "idle_mw"))
				for (const unsigned c : dom.cpus)
					cpus_[c].state_power[*i] = in_microwatts(mw, unit_uw);
		tracks_idle_states_ = true;
	}
	if (!m.cluster_idle_mw.empty()) {
		dom.idle_state_power.assign(names.size(), 0);
		for (const auto &[state, mw] : m.cluster_idle_mw)
			if (const auto i = index(state, "cluster_idle_mw"))
				dom.idle_state_power[*i] = in_microwatts(mw, unit_uw);
		tracks_idle_states_ = true;
	}
	auto states_of = [&](const std::vector<std::string> &list, const char *what) {
		std::vector<bool> out;
		if (list.empty())
			return out;
		out.assign(names.size(), false);
		for (const auto &state : list)
			if (const auto i = index(state, what))
				out[*i] = true;
		tracks_idle_states_ = true;
		return out;
	};
	dom.off_state = states_of(m.cluster_off, "cluster_off");
	dom.core_off_state = states_of(m.core_off, "core_off");
	dom.state_names = std::move(names);
}

// The board power model over the kernel's view: each of its domains must be
// a frequency domain, its OPPs the domain's, its idle states the CPUs',
// its thermal zone the DT's.
void Board::apply(const PowerModel &model, const dts::Platform &platform)
{
	power_source_ = model.source.empty() ? "a board power file that names no source" : model.source;
	const double unit_uw = file_unit_uw(model, platform);
	for (const auto &m : model.domains) {
		auto d = std::find_if(domains_.begin(), domains_.end(), [&](const Domain &dom) { return dom.cpus == m.cpus; });
		if (d == domains_.end()) {
			std::string known;
			for (const auto &dom : domains_)
				known += fmt::format("{}{}", known.empty() ? "" : "; ", cpus_text(dom.cpus));
			throw PowerModelError(fmt::format("board power model: CPUs {} are not a frequency domain of {} ({})",
							  cpus_text(m.cpus), platform.model, known));
		}
		auto &dom = *d;
		const auto &first = cpus_[dom.cpus.front()];
		auto check_opps = [&](const std::map<unsigned, double> &table, const char *what) {
			for (const auto khz : first.freqs)
				if (!table.count(khz))
					throw PowerModelError(fmt::format("board power model: CPUs {}: {} has no value for "
									  "{} kHz, one of their OPPs",
									  cpus_text(m.cpus), what, khz));
			for (const auto &[khz, mw] : table)
				if (!std::binary_search(first.freqs.begin(), first.freqs.end(), khz))
					throw PowerModelError(fmt::format("board power model: CPUs {}: {} names {} kHz, "
									  "not one of their OPPs",
									  cpus_text(m.cpus), what, khz));
		};
		// the voltage of each OPP, from the domain's OPP table (the DT's
		// opp-microvolt, its target)
		const auto d_index = static_cast<std::size_t>(d - domains_.begin());
		auto volts_at = [&](unsigned khz, const char *what) {
			const auto &fd = platform.frequency_domains[d_index];
			if (fd.opp_table)
				for (const auto &opp : platform.opp_tables[*fd.opp_table].opps)
					if (opp.hz / 1000 == khz && opp.target_microvolt())
						return *opp.target_microvolt() / 1e6;
			throw PowerModelError(fmt::format("board power model: CPUs {}: {} is per_volt_cubed, but their "
							  "OPP of {} kHz has no voltage (opp-microvolt) in the device tree",
							  cpus_text(m.cpus), what, khz));
		};
		auto per_opp = [&](const OppFigure &f, const char *what) {
			std::map<unsigned, std::uint64_t> out;
			if (f.empty())
				return out;
			if (!f.per_khz_mw.empty())
				check_opps(f.per_khz_mw, what);
			for (const auto khz : first.freqs) {
				double v = 0;
				if (f.all_mw)
					v = *f.all_mw;
				else if (f.per_volt_cubed_mw)
					v = *f.per_volt_cubed_mw * std::pow(volts_at(khz, what), 3);
				else
					v = f.per_khz_mw.at(khz);
				if (const auto uw = in_microwatts(v, unit_uw))
					out[khz] = uw;
			}
			return out;
		};
		if (!m.dynamic_mw.empty()) {
			check_opps(m.dynamic_mw, "dynamic_mw");
			for (const unsigned c : dom.cpus) {
				cpus_[c].power.clear();
				for (const auto &[khz, mw] : m.dynamic_mw)
					cpus_[c].power.emplace_back(khz, in_microwatts(mw, unit_uw));
			}
		}
		dom.static_power = per_opp(m.static_mw, "static_mw");
		dom.core_static_power = per_opp(m.core_static_mw, "core_static_mw");
		dom.active_power = per_opp(m.cluster_mw, "cluster_mw");
		if (m.temperature) {
			const auto &zones = platform.thermal_zones;
			const auto &wanted = m.temperature->zones;
			const auto zone = std::ranges::find_if(wanted, [&](const std::string &name) {
				return std::ranges::find(zones, name, &dts::ThermalZone::name) != zones.end();
			});
			if (zone == wanted.end()) {
				std::string known;
				for (const auto &z : zones)
					known += fmt::format("{}{}", known.empty() ? "" : ", ", z.name);
				throw PowerModelError(fmt::format("board power model: CPUs {}: temperature_scale.zone: {} "
								  "has no thermal zone \"{}\" (its zones: {})",
								  cpus_text(m.cpus), platform.model,
								  fmt::join(wanted, "\" or \""), known.empty() ? "none" : known));
			}
			dom.temperature_polynomial = m.temperature->polynomial;
			dom.temperature_zone = *zone;
			dom.temperature_scale = temperature_scale_at(dom, kshim::room_temperature_mc / 1000.0);
			if (dom.temperature_scale > 1e6)
				throw PowerModelError(fmt::format("board power model: CPUs {}: temperature_scale gives "
								  "{:g} at 25 C: the polynomial does not hold there",
								  cpus_text(m.cpus), dom.temperature_scale));
		}
		apply_idle_states(dom, m, unit_uw);
		dom.tracked = !dom.static_power.empty() || !dom.core_static_power.empty() || !dom.active_power.empty() ||
			      !dom.idle_state_power.empty() || !dom.off_state.empty();
		static_power_ |= dom.tracked;
	}
}

std::optional<BoardPowerFigures> Board::power_figures() const
{
	if (power_source_.empty())
		return std::nullopt;
	BoardPowerFigures f;
	f.source = power_source_;
	f.unit_mw = unit_mw_;
	auto mw = [](const std::map<unsigned, std::uint64_t> &table) {
		std::map<unsigned, double> out;
		for (const auto &[khz, uw] : table)
			out[khz] = static_cast<double>(uw) / 1000;
		return out;
	};
	// the domains the file names (apply() gave each its idle states' names)
	for (const auto &dom : domains_) {
		if (dom.state_names.empty())
			continue;
		auto &out = f.domains.emplace_back();
		out.cpus = dom.cpus;
		const auto &first = cpus_[dom.cpus.front()];
		if (first.power != first.em_power)
			for (const auto &[khz, uw] : first.power)
				out.dynamic_mw[khz] = static_cast<double>(uw) / 1000;
		out.static_mw = mw(dom.static_power);
		out.core_static_mw = mw(dom.core_static_power);
		out.cluster_mw = mw(dom.active_power);
		for (std::size_t i = 0; i < dom.state_names.size(); i++) {
			const auto &name = dom.state_names[i];
			if (i < first.state_power.size())
				out.idle_mw.emplace_back(name, static_cast<double>(first.state_power[i]) / 1000);
			if (i < dom.idle_state_power.size())
				out.cluster_idle_mw.emplace_back(name, static_cast<double>(dom.idle_state_power[i]) / 1000);
			if (i < dom.off_state.size() && dom.off_state[i])
				out.cluster_off.push_back(name);
			if (i < dom.core_off_state.size() && dom.core_off_state[i])
				out.core_off.push_back(name);
		}
		out.temperature_zone = dom.temperature_zone;
		out.temperature_polynomial = dom.temperature_polynomial;
	}
	return f;
}

double Board::temperature_scale_at(const Domain &dom, double celsius)
{
	double scale = 0, power = 1;
	for (const double a : dom.temperature_polynomial) {
		scale += a * power;
		power *= celsius;
	}
	// a polynomial fitted over a range may dip below 0 outside it: no
	// leakage is negative
	return std::isfinite(scale) ? std::max(scale, 0.0) : 0.0;
}

std::vector<std::pair<std::size_t, std::string>> Board::temperature_zones() const
{
	std::vector<std::pair<std::size_t, std::string>> out;
	for (std::size_t d = 0; d < domains_.size(); d++)
		if (!domains_[d].temperature_polynomial.empty())
			out.emplace_back(d, domains_[d].temperature_zone);
	return out;
}

void Board::set_temperature(std::size_t d, double celsius, std::int64_t t)
{
	auto &dom = domains_[d];
	const double scale = temperature_scale_at(dom, celsius);
	// leakage a million times its figure is a polynomial used far outside
	// the range it was fitted over, not a die
	if (scale > 1e6)
		throw PowerModelError(fmt::format("board power model: CPUs {}: temperature_scale gives {:g} at {:.1f} C "
						  "(zone {}): the polynomial does not hold at that temperature",
						  cpus_text(dom.cpus), scale, celsius, dom.temperature_zone));
	if (scale == dom.temperature_scale)
		return;
	dom.temperature_scale = scale;
	refresh_domain(dom, t);
}

// The cluster's state from its CPUs': powered unless all wait in states
// that power it off, active while one is busy or out of its idle states
// (the idle task's code runs), its powered cores those not in a state that
// powers a core off.
void Board::refresh_domain(Domain &dom, std::int64_t t)
{
	bool powered = dom.off_state.empty(), active = false;
	std::size_t cores = 0, shallowest = SIZE_MAX;
	for (const unsigned k : dom.cpus) {
		const auto &cpu = cpus_[k];
		const auto i = static_cast<std::size_t>(cpu.idle_state + 1);
		const bool waits = !cpu.busy && cpu.idle_state >= KSHIM_DEFAULT_IDLE;
		active |= !waits;
		powered |= !waits || i >= dom.off_state.size() || !dom.off_state[i];
		cores += !waits || i >= dom.core_off_state.size() || !dom.core_off_state[i];
		if (waits)
			shallowest = std::min(shallowest, i);
	}
	const auto khz = cpus_[dom.cpus.front()].khz;
	auto at = [khz](const std::map<unsigned, std::uint64_t> &table) -> std::uint64_t {
		const auto it = table.find(khz);
		return it == table.end() ? 0 : it->second;
	};
	std::uint64_t leak = 0;
	if (powered) {
		const double raw = static_cast<double>(at(dom.static_power)) +
				   static_cast<double>(cores) * static_cast<double>(at(dom.core_static_power));
		const double scaled = raw * dom.temperature_scale;
		if (!(scaled <= 1e15))	// a gigawatt: the file's figures, not a die
			throw PowerModelError(fmt::format("board power model: CPUs {}: a leakage of {:g} uW",
							  cpus_text(dom.cpus), scaled));
		leak = static_cast<std::uint64_t>(std::llround(scaled));
	}
	std::uint64_t own = 0;
	if (active)
		own = at(dom.active_power);
	else if (shallowest < dom.idle_state_power.size())
		own = dom.idle_state_power[shallowest];
	if (powered == dom.powered && active == dom.active && leak == dom.static_now && own == dom.cluster_now)
		return;
	account_domain(dom, t);
	dom.powered = powered;
	dom.active = active;
	dom.static_now = leak;
	dom.cluster_now = own;
	if (power_observer_)
		for (const unsigned k : dom.cpus)
			power_observer_(k, t);
}

bool Board::set_frequency(std::size_t c, unsigned khz, std::int64_t t)
{
	cpus_[c].requested_khz = khz;
	return set_clock(c, khz, t);
}

bool Board::set_cap(std::size_t c, unsigned khz, std::int64_t t)
{
	account(c, t);
	cpus_[c].cap_khz = khz;
	return set_clock(c, cpus_[c].requested_khz, t);
}

unsigned Board::limited(const Cpu &cpu, unsigned khz) const
{
	unsigned limit = cpu.cap_khz;
	if (cpu.budget_khz && (!limit || cpu.budget_khz < limit))
		limit = cpu.budget_khz;
	if (!limit || khz <= limit)
		return khz;
	const auto above = std::upper_bound(cpu.freqs.begin(), cpu.freqs.end(), limit);
	return above == cpu.freqs.begin() ? (cpu.freqs.empty() ? limit : cpu.freqs.front()) : *(above - 1);
}

void Board::set_kernel_cycles_per_block(std::vector<double> cycles)
{
	kernel_cycles_ = std::move(cycles);
	for (std::size_t c = 0; c < cpus_.size(); c++)
		tell_kernel_rate(c);
}

// ps = cycles / (kHz x 10^3) s x 10^12; a CPU without a clock (no
// cpufreq) is taken to run at the highest rate it reports, or 1 GHz.
void Board::tell_kernel_rate(std::size_t c) const
{
	const auto &cpu = cpus_[c];
	const double cycles = c < kernel_cycles_.size() ? kernel_cycles_[c] : 0;
	const unsigned khz = cpu.khz ? cpu.khz : cpu.max_khz ? cpu.max_khz : 1'000'000;
	kshim_cost_set_rate(static_cast<int>(c),
			    static_cast<unsigned long long>(std::llround(cycles * 1e9 / static_cast<double>(khz))));
}

bool Board::set_clock(std::size_t c, unsigned khz, std::int64_t t)
{
	auto &cpu = cpus_[c];
	khz = limited(cpu, khz);
	if (cpu.khz == khz)
		return false;
	account(c, t);
	cpu.khz = khz;
	if (!kernel_cycles_.empty())
		tell_kernel_rate(c);
	cpu.busy_power = busy_power_at(cpu, cpu.power);
	cpu.busy_bucket = &cpu.busy_at[khz];
	if (power_observer_ && cpu.busy)
		power_observer_(c, t);
	if (cpu.domain < 0)
		return true;
	auto &dom = domains_[static_cast<std::size_t>(cpu.domain)];
	if (dom.cpus.front() == c) {
		account_domain(dom, t);
		dom.bucket = &dom.residency[khz];
		dom.changes++;
		if (static_power_)
			update_domain_power(c, t);	// its static power follows the OPP
	}
	return true;
}

// The SMT threads of each core as the kernel's topology has them (the DT's
// cpu-map thread nodes: cpu_topology[].thread_id), and the package budget's
// power per domain at each ceiling, from the CPUs' busy power tables (the
// energy model's or the file's) and the domains' static power.
void Board::build_speed_model(const PowerModel &model, const kshim::Kernel &kernel, const dts::Platform &platform)
{
	speed_model_ = true;
	if (!model.smt_speed.empty()) {
		std::map<std::tuple<int, int, int>, std::size_t> index;
		for (std::size_t c = 0; c < cpus_.size(); c++) {
			const auto &k = kernel.cpus[c];
			if (k.thread_id < 0)
				continue;
			const auto [it, added] = index.try_emplace({k.package_id, k.cluster_id, k.core_id}, cores_.size());
			if (added)
				cores_.emplace_back();
			cores_[it->second].push_back(static_cast<unsigned>(c));
			cpus_[c].core = static_cast<int>(it->second);
		}
		if (cores_.empty())
			throw PowerModelError(fmt::format("board power model: smt_speed, but {} has no SMT threads "
							  "(thread nodes in /cpus/cpu-map)",
							  platform.model));
		for (const double s : model.smt_speed)
			smt_scales_.push_back(static_cast<std::uint32_t>(std::lround(s * 1024)));
	}
	if (model.package_budget_mw) {
		budget_ = in_microwatts(*model.package_budget_mw, 1000);
		for (const auto &cpu : cpus_) {
			if (cpu.power.empty() || (cpu.power == cpu.em_power && !power_in_microwatts_))
				throw PowerModelError(fmt::format("board power model: package_budget_mw, but a CPU of {} has "
								  "no busy power in milliwatts (no energy model, or one "
								  "in an abstract scale: give dynamic_mw)",
								  platform.model));
			ceilings_.insert(ceilings_.end(), cpu.freqs.begin(), cpu.freqs.end());
		}
		std::sort(ceilings_.begin(), ceilings_.end());
		ceilings_.erase(std::unique(ceilings_.begin(), ceilings_.end()), ceilings_.end());
		for (const auto &dom : domains_) {
			auto &power = budget_power_.emplace_back();
			if (dom.cpus.empty() || dom.cpus.front() >= cpus_.size())
				continue;
			Cpu probe = cpus_[dom.cpus.front()];
			for (const unsigned ceiling : ceilings_) {
				probe.budget_khz = ceiling;
				probe.cap_khz = 0;
				probe.khz = limited(probe, probe.max_khz ? probe.max_khz : ceilings_.back());
				const auto it = dom.static_power.find(probe.khz);
				power.push_back(busy_power_at(probe, probe.power) +
						(it == dom.static_power.end() ? 0 : it->second));
			}
		}
		domain_busy_.assign(domains_.size(), 0);
		ceiling_ns_.assign(ceilings_.size(), 0);
	}
}

unsigned Board::budget_ceiling() const
{
	std::size_t best = 0;
	for (std::size_t i = 0; i < ceilings_.size(); i++) {
		std::uint64_t total = 0;
		for (std::size_t d = 0; d < domains_.size(); d++)
			if (domain_busy_[d] && !budget_power_[d].empty())
				total += budget_power_[d][i];
		if (total > *budget_)
			break;
		best = i;
	}
	return ceilings_.empty() ? 0 : ceilings_[best];
}

void Board::start_speed_model(std::int64_t t)
{
	for (const auto &core : cores_) {
		const auto busy = static_cast<std::size_t>(
			std::count_if(core.begin(), core.end(), [&](unsigned k) { return cpus_[k].busy; }));
		for (const unsigned k : core)
			cpus_[k].smt_scale = smt_scale_for(busy);
	}
	if (budget_) {
		for (std::size_t c = 0; c < cpus_.size(); c++)
			if (cpus_[c].busy && cpus_[c].domain >= 0)
				domain_busy_[static_cast<std::size_t>(cpus_[c].domain)]++;
		ceiling_khz_ = budget_ceiling();
		ceiling_index_ = static_cast<std::size_t>(
			std::lower_bound(ceilings_.begin(), ceilings_.end(), ceiling_khz_) - ceilings_.begin());
		ceiling_since_ = t;
		for (std::size_t c = 0; c < cpus_.size(); c++) {
			cpus_[c].budget_khz = ceiling_khz_;
			set_clock(c, cpus_[c].requested_khz, t);
		}
	}
}

// A CPU turns busy or idle: its core's threads change speed under the SMT
// model, and every CPU's ceiling may move under the package budget. The
// observer hears of each CPU affected before and after, so that the work
// its task did is counted at the speed it ran at.
void Board::set_busy_with_speed_model(std::size_t c, bool busy, std::int64_t t)
{
	auto &cpu = cpus_[c];
	std::vector<unsigned> changed;
	std::uint32_t scale = cpu.smt_scale;
	if (cpu.core >= 0) {
		const auto &core = cores_[static_cast<std::size_t>(cpu.core)];
		std::size_t now_busy = 0;
		for (const unsigned k : core)
			now_busy += k == c ? busy : cpus_[k].busy;
		scale = smt_scale_for(now_busy);
		for (const unsigned k : core)
			if (cpus_[k].smt_scale != scale)
				changed.push_back(k);
	}
	unsigned ceiling = ceiling_khz_;
	if (budget_ && cpu.domain >= 0) {
		auto &count = domain_busy_[static_cast<std::size_t>(cpu.domain)];
		count = busy ? count + 1 : count - 1;
		ceiling = budget_ceiling();
		if (ceiling != ceiling_khz_) {
			changed.resize(cpus_.size());
			std::iota(changed.begin(), changed.end(), 0U);
		}
	}
	if (speed_observer_)
		for (const unsigned k : changed)
			speed_observer_(k, true);

	account(c, t);
	cpu.busy = busy;
	if (cpu.core >= 0)
		for (const unsigned k : cores_[static_cast<std::size_t>(cpu.core)])
			cpus_[k].smt_scale = scale;
	if (ceiling != ceiling_khz_) {
		if (t > ceiling_since_)
			ceiling_ns_[ceiling_index_] += t - ceiling_since_;
		ceiling_since_ = t;
		ceiling_khz_ = ceiling;
		ceiling_index_ = static_cast<std::size_t>(
			std::lower_bound(ceilings_.begin(), ceilings_.end(), ceiling) - ceilings_.begin());
		for (std::size_t k = 0; k < cpus_.size(); k++) {
			cpus_[k].budget_khz = ceiling;
			set_clock(k, cpus_[k].requested_khz, t);
		}
	}
	if (static_power_)
		update_domain_power(c, t);
	if (power_observer_)
		power_observer_(c, t);

	if (speed_observer_)
		for (const unsigned k : changed)
			speed_observer_(k, false);
}

void Board::finish(std::int64_t t)
{
	if (budget_ && t > ceiling_since_) {
		ceiling_ns_[ceiling_index_] += t - ceiling_since_;
		ceiling_since_ = t;
	}
	for (std::size_t c = 0; c < cpus_.size(); c++)
		account(c, t);
	for (auto &dom : domains_)
		account_domain(dom, t);
}

namespace {

// ceil(num x f_max / (den x f)) in T, or never (den 0)
template <typename T>
std::optional<std::int64_t> ceil_time(T num, T den, const Board::Cpu &cpu)
{
	if (cpu.max_khz && cpu.khz) {
		num *= cpu.max_khz;
		den *= cpu.khz;
	}
	if (!den)
		return std::nullopt;
	return static_cast<std::int64_t>((num + den - 1) / den);
}

} // namespace

// ceil(work x f_max / (capacity x smt speed x f))
std::optional<std::int64_t> Board::time_for(std::size_t c, std::int64_t work) const
{
	const auto &cpu = cpus_[c];
	// in 64 bits when it cannot overflow (work < 2^40, f < 2^23 kHz,
	// capacity < 2^11): the same quotient without a 128-bit division
	if (cpu.smt_scale == 1024 && work >= 0 && work < (1LL << 40) && cpu.max_khz < (1U << 23) &&
	    cpu.capacity < 2048)
		return ceil_time<std::uint64_t>(static_cast<std::uint64_t>(work), cpu.capacity, cpu);
	return ceil_time<u128>(static_cast<u128>(work) * 1024, static_cast<u128>(cpu.capacity) * cpu.smt_scale, cpu);
}

void Board::report(Result &r) const
{
	r.power_in_microwatts = power_in_microwatts_;
	r.energy_complete = energy_complete_;
	r.power_model = power_source_;
	r.power_unit_mw = unit_mw_;
	// energy: power (µW) x ns = 1e-15 J
	constexpr double fj = 1e-15;
	r.cpus.clear();
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		CpuResult cpu;
		cpu.id = static_cast<unsigned>(c);
		cpu.busy_ns = cpus_[c].busy_ns;
		const auto &b = cpus_[c];
		cpu.energy_j = static_cast<double>(b.busy_energy + b.idle_energy) * fj;
		// the energy model's estimate: its power at each OPP x the time
		// busy there (exact, and no cost while the run goes)
		u128 em = 0;
		for (const auto &[khz, ns] : b.busy_at)
			for (const auto &[f, power] : b.em_power)
				if (f == khz)
					em += static_cast<u128>(power) * static_cast<std::uint64_t>(ns);
		cpu.em_energy_j = static_cast<double>(em) * fj;
		cpu.capped_ns = cpus_[c].capped_ns;
		r.cpus.push_back(std::move(cpu));
		r.energy_j += r.cpus.back().energy_j;
		r.em_energy_j += r.cpus.back().em_energy_j;
	}
	for (const auto &dom : domains_) {
		DomainResult d;
		d.cpus = dom.cpus;
		d.has_energy_model = dom.has_energy_model;
		d.frequency_changes = dom.changes;
		if (!dom.cpus.empty() && dom.cpus.front() < cpus_.size()) {
			const auto &first = cpus_[dom.cpus.front()];
			d.idle_power_uw = first.idle_power;
			d.transition_latency_ns = static_cast<unsigned>(first.transition_latency_ns);
		}
		for (const auto &[khz, ns] : dom.residency) {
			OppResidency o{khz, ns, 0};
			for (unsigned c : dom.cpus)
				if (c < cpus_.size())
					if (auto it = cpus_[c].busy_at.find(khz); it != cpus_[c].busy_at.end())
						o.busy_ns += it->second;
			d.residency.push_back(o);
		}
		for (unsigned c : dom.cpus)
			if (c < cpus_.size()) {
				d.energy_j += r.cpus[c].energy_j;
				d.dynamic_energy_j += static_cast<double>(cpus_[c].busy_energy) * fj;
				d.idle_energy_j += static_cast<double>(cpus_[c].idle_energy) * fj;
			}
		d.static_energy_j = static_cast<double>(dom.static_energy) * fj;
		d.cluster_active_energy_j = static_cast<double>(dom.active_energy) * fj;
		d.cluster_idle_energy_j = static_cast<double>(dom.idle_energy) * fj;
		d.dynamic_energy_j += d.cluster_active_energy_j;
		d.idle_energy_j += d.cluster_idle_energy_j;
		d.off_ns = dom.off_ns;
		const double own = d.static_energy_j + d.cluster_active_energy_j + d.cluster_idle_energy_j;
		d.energy_j += own;
		r.energy_j += own;
		r.domains.push_back(std::move(d));
	}
	if (budget_) {
		r.package_budget_mw = static_cast<double>(*budget_) / 1000;
		for (std::size_t i = 0; i < ceilings_.size(); i++)
			if (ceiling_ns_[i])
				r.package_ceiling.push_back({ceilings_[i], ceiling_ns_[i], 0});
	}
	r.smt_model = !smt_scales_.empty();
}

BoardPowerFigures board_power_figures(const dts::Platform &platform, const kshim::Kernel &kernel,
				      const PowerModel &model)
{
	const Board board(platform, kernel, {}, &model);
	return *board.power_figures();
}

namespace {

// The latencies of the file a run charges, else of the file shipped for
// the board, else none.
void choose_latencies(PowerModelChoice &choice, const dts::Platform &platform, const std::string &model_file)
{
	if (choice.model && choice.model->latencies) {
		choice.latencies = *choice.model->latencies;
		choice.latencies_file = model_file;
		return;
	}
	if (const auto shipped = shipped_power_model_for(platform.compatible); shipped && shipped->second.latencies) {
		choice.latencies = *shipped->second.latencies;
		choice.latencies_file = shipped->first;
		return;
	}
	const std::string none = "no board file gives this board's figures (docs/power.md, \"Hardware latencies\")";
	choice.latencies = {{std::nullopt, none}, {std::nullopt, none}, {std::nullopt, none}};
}

PowerModelChoice choose_model(const std::optional<std::string> &option, const dts::Platform &platform,
			      const kshim::Kernel &kernel)
{
	PowerModelChoice choice;
	if (option) {
		if (*option == "none")
			return choice;
		choice.model = load_power_model(*option);	// its errors name the file
		choice.file = *option;
		try {
			board_power_figures(platform, kernel, *choice.model);
		} catch (const PowerModelError &e) {
			throw PowerModelError(fmt::format("{}: {}", *option, e.what()));
		}
		return choice;
	}
	auto shipped = shipped_power_model_for(platform.compatible);
	if (!shipped)
		return choice;
	try {
		board_power_figures(platform, kernel, shipped->second);
	} catch (const PowerModelError &e) {
		choice.skipped = fmt::format("the file shipped for this board, {}, does not apply to it ({}); "
					     "--board-power FILE gives one that does",
					     shipped->first, e.what());
		return choice;
	}
	choice.model = std::move(shipped->second);
	choice.file = fmt::format("{} (built in; --board-power none for busy power only)", shipped->first);
	return choice;
}

} // namespace

PowerModelChoice choose_power_model(const std::optional<std::string> &option, const dts::Platform &platform,
				    const kshim::Kernel &kernel)
{
	auto choice = choose_model(option, platform, kernel);
	choose_latencies(choice, platform,
			 option ? std::filesystem::path(*option).filename().string()
				: choice.file.substr(0, choice.file.find(" (built in")));
	return choice;
}

} // namespace sh::sim
