// SPDX-License-Identifier: GPL-2.0
#include "harness/sim/board.h"

#include "harness/sim/simulator.h"

#include <kshim/sched.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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

std::uint64_t microwatts(double mw)
{
	return static_cast<std::uint64_t>(std::llround(mw * 1000));
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
		cpu.transition_latency_ns = static_cast<std::int64_t>(kshim_cpufreq_transition_latency(id));
	}
	for (std::size_t d = 0; d < platform.frequency_domains.size(); d++) {
		Domain dom;
		dom.cpus = platform.frequency_domains[d].cpus;
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
		if (!pd.microwatts)
			power_in_microwatts_ = false;
		for (unsigned c : pd.cpus) {
			if (c >= n)
				continue;
			for (const auto &s : pd.states)
				cpus_[c].em_power.emplace_back(static_cast<unsigned>(s.frequency_khz), s.power);
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
	for (auto &dom : domains_) {
		if (!dom.cpus.empty() && dom.cpus.front() < n) {
			dom.bucket = &dom.residency[cpus_[dom.cpus.front()].khz];
			const auto it = dom.static_power.find(cpus_[dom.cpus.front()].khz);
			dom.static_now = it == dom.static_power.end() ? 0 : it->second;
		}
	}
}

// The board power model over the kernel's view: each of its domains must be
// a frequency domain, its OPPs the domain's, its idle states the CPUs'.
void Board::apply(const PowerModel &model, const dts::Platform &platform)
{
	power_source_ = model.source;
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
		if (!m.dynamic_mw.empty()) {
			check_opps(m.dynamic_mw, "dynamic_mw");
			for (const unsigned c : dom.cpus) {
				cpus_[c].power.clear();
				for (const auto &[khz, mw] : m.dynamic_mw)
					cpus_[c].power.emplace_back(khz, microwatts(mw));
			}
		}
		if (!m.static_mw.empty())
			check_opps(m.static_mw, "static_mw");
		for (const auto khz : first.freqs) {
			const double mw = m.static_all_mw ? *m.static_all_mw : m.static_mw.count(khz) ? m.static_mw.at(khz) : 0;
			if (mw > 0)
				dom.static_power[khz] = microwatts(mw);
		}
		// the CPUs' idle states: the default idle path ("WFI") first
		kshim_idle_state states[KSHIM_MAX_IDLE_STATES];
		const int n = std::max(kshim_cpu_idle_states(static_cast<int>(dom.cpus.front()), states,
							       KSHIM_MAX_IDLE_STATES),
				       0);
		std::vector<std::string> names{n ? std::string() : std::string("WFI")};
		for (int i = 0; i < n; i++)
			names.emplace_back(states[i].name);
		auto index = [&](const std::string &state, const char *what) {
			const auto it = std::find(names.begin(), names.end(), state);
			if (state.empty() || it == names.end()) {
				std::string known;
				for (const auto &k : names)
					if (!k.empty())
						known += fmt::format("{}{}", known.empty() ? "" : ", ", k);
				throw PowerModelError(fmt::format("board power model: CPUs {}: {} names idle state \"{}\"; "
								  "theirs are {}",
								  cpus_text(m.cpus), what, state, known));
			}
			return static_cast<std::size_t>(it - names.begin());
		};
		if (!m.idle_mw.empty()) {
			for (const unsigned c : dom.cpus)
				cpus_[c].state_power.assign(names.size(), cpus_[c].idle_power);
			for (const auto &[state, mw] : m.idle_mw) {
				const auto i = index(state, "idle_mw");
				for (const unsigned c : dom.cpus)
					cpus_[c].state_power[i] = microwatts(mw);
			}
			tracks_idle_states_ = true;
		}
		if (!m.cluster_off.empty()) {
			dom.off_state.assign(names.size(), false);
			for (const auto &state : m.cluster_off)
				dom.off_state[index(state, "cluster_off")] = true;
			tracks_idle_states_ = true;
		}
		dom.tracked = !dom.static_power.empty() || !dom.off_state.empty();
		static_power_ |= dom.tracked;
	}
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

bool Board::set_clock(std::size_t c, unsigned khz, std::int64_t t)
{
	auto &cpu = cpus_[c];
	if (cpu.cap_khz && khz > cpu.cap_khz) {
		const auto above = std::upper_bound(cpu.freqs.begin(), cpu.freqs.end(), cpu.cap_khz);
		khz = above == cpu.freqs.begin() ? (cpu.freqs.empty() ? cpu.cap_khz : cpu.freqs.front()) : *(above - 1);
	}
	if (cpu.khz == khz)
		return false;
	account(c, t);
	cpu.khz = khz;
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

void Board::finish(std::int64_t t)
{
	for (std::size_t c = 0; c < cpus_.size(); c++)
		account(c, t);
	for (auto &dom : domains_)
		account_domain(dom, t);
}

// ceil(work x f_max / (capacity x f))
std::optional<std::int64_t> Board::time_for(std::size_t c, std::int64_t work) const
{
	const auto &cpu = cpus_[c];
	u128 num = static_cast<u128>(work);
	u128 den = cpu.capacity;
	if (cpu.max_khz && cpu.khz) {
		num *= cpu.max_khz;
		den *= cpu.khz;
	}
	if (!den)
		return std::nullopt;
	return static_cast<std::int64_t>((num + den - 1) / den);
}

void Board::report(Result &r) const
{
	r.power_in_microwatts = power_in_microwatts_;
	r.energy_complete = energy_complete_;
	r.power_model = power_source_;
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
			if (c < cpus_.size())
				d.energy_j += r.cpus[c].energy_j;
		d.static_energy_j = static_cast<double>(dom.static_energy) * fj;
		d.off_ns = dom.off_ns;
		d.energy_j += d.static_energy_j;
		r.energy_j += d.static_energy_j;
		r.domains.push_back(std::move(d));
	}
}

} // namespace sh::sim
