// SPDX-License-Identifier: GPL-2.0
//
// The simulated board's hardware, apart from the kernel that drives it and
// the workload that runs on it: each CPU's speed (capacity x f / f_max),
// the frequency it runs at (changed when a transition the kernel asked for
// completes), the power it draws busy (its energy model's, at that OPP) or
// idle, and what these add up to over a run: busy time and energy per CPU,
// time at each OPP per frequency domain. Everything is an exact integer sum
// of (rate x interval), accounted when a rate changes (a CPU turns busy or
// idle, a frequency transition completes) rather than at every step of the
// loop. The thermal and board power models join here.
#pragma once

#include "dts/platform.h"
#include "harness/sim/power_model.h"
#include "kernel-shim/kernel.h"

#include <kshim/sched.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace sh::sim {

struct Result;

// Work x f_max and power x time overflow 64 bits on long runs.
__extension__ typedef unsigned __int128 u128;

class Board {
public:
	struct Cpu {
		unsigned long capacity = 1024;
		unsigned max_khz = 0;
		unsigned khz = 0;			// the frequency it runs at now
		unsigned requested_khz = 0;		// the last one cpufreq set
		unsigned cap_khz = 0;			// an imposed cap (0: none)
		unsigned budget_khz = 0;		// the package budget's ceiling (0: none)
		std::uint32_t smt_scale = 1024;		// a busy thread's speed x 1024 (SMT model)
		int core = -1;				// index into cores_ (SMT model)
		std::vector<unsigned> freqs;		// the OPPs it can run at, ascending
		std::int64_t capped_ns = 0;		// time with a cap below max_khz
		std::int64_t transition_latency_ns = 0;
		int domain = -1;			// index into domains()
		std::vector<std::pair<unsigned, std::uint64_t>> power;	// the board's: kHz -> busy power
		std::vector<std::pair<unsigned, std::uint64_t>> em_power;	// the energy model's
		std::uint64_t busy_power = 0;		// at khz
		std::uint64_t idle_power = 0;		// idle, when no idle state has its own
		// The idle state it waits in (kshim_cpu_idle_state_now()) and
		// the power of each (index + 1: the default idle path first).
		int idle_state = KSHIM_NOT_IDLE;
		std::vector<std::uint64_t> state_power;
		std::uint64_t idle_now = 0;		// idle, in idle_state
		std::int64_t busy_ns = 0;
		u128 busy_energy = 0;			// power unit x ns: busy x the board's power
		u128 idle_energy = 0;			// idle x the board's power
		std::map<unsigned, std::int64_t> busy_at;	// kHz -> busy ns
		std::int64_t *busy_bucket = nullptr;	// busy_at[khz]
		bool busy = false;			// runs a task
		std::int64_t since = 0;			// accounted up to
	};
	struct Domain {
		std::vector<unsigned> cpus;
		std::map<unsigned, std::int64_t> residency;	// kHz of its first CPU -> ns
		std::int64_t *bucket = nullptr;		// residency[khz now]
		std::size_t changes = 0;
		bool has_energy_model = false;
		std::int64_t since = 0;			// accounted up to
		// The cluster's own power (power model), per kHz of its first
		// CPU: its leakage while powered (static_power, and each powered
		// core's, both x the temperature scale), its active power while
		// one of its CPUs is busy; and its idle power while all are idle,
		// by the shallowest of their idle states (index + 1). The idle
		// states (index + 1) that power it off once all its CPUs wait in
		// them, and those that power a core off.
		std::map<unsigned, std::uint64_t> static_power;
		std::map<unsigned, std::uint64_t> core_static_power;
		std::map<unsigned, std::uint64_t> active_power;
		std::vector<std::uint64_t> idle_state_power;
		std::vector<bool> off_state;
		std::vector<bool> core_off_state;
		std::vector<std::string> state_names;	// the idle states' (index + 1)
		std::vector<double> temperature_polynomial;	// empty: leakage fixed
		std::string temperature_zone;
		double temperature_scale = 1;
		bool tracked = false;			// it has a power of its own or idle states to follow
		bool powered = true;
		bool active = true;			// a CPU of it is busy or out of its idle states
		std::uint64_t static_now = 0;		// leakage now
		std::uint64_t cluster_now = 0;		// active or idle power now
		u128 static_energy = 0;
		u128 active_energy = 0;
		u128 idle_energy = 0;
		std::int64_t off_ns = 0;		// time powered off
	};

	// The booted kernel's view of the board: capacities, the frequencies
	// cpufreq set, the energy model; idle power per frequency domain (µW);
	// the board power model, if any. Throws PowerModelError when the
	// model does not fit the board (a domain, an OPP, an idle state).
	Board(const dts::Platform &platform, const kshim::Kernel &kernel, std::span<const std::uint64_t> idle_power_uw,
	      const PowerModel *model = nullptr);
	Board(const Board &) = delete;
	Board &operator=(const Board &) = delete;

	// The cycles a basic block of kernel code takes on each CPU (kshim/
	// cost.h; empty: kernel code takes no time): the kernel is told the
	// time per block at each CPU's clock, now and at every change.
	void set_kernel_cycles_per_block(std::vector<double> cycles);

	std::size_t size() const { return cpus_.size(); }
	const Cpu &cpu(std::size_t c) const { return cpus_[c]; }
	bool power_in_microwatts() const { return power_in_microwatts_; }
	bool energy_complete() const { return energy_complete_; }

	// The board starts at time t; busy(c) says whether CPU c runs a task.
	template <typename Busy>
	void start(std::int64_t t, Busy busy)
	{
		for (std::size_t c = 0; c < cpus_.size(); c++) {
			cpus_[c].busy = busy(c);
			cpus_[c].since = t;
		}
		for (auto &dom : domains_) {
			dom.since = t;
			if (dom.tracked)
				refresh_domain(dom, t);
		}
		if (speed_model_)
			start_speed_model(t);
	}
	// Whether a CPU's speed depends on others' (SMT threads, a package
	// power budget): then the speed observer hears of every change.
	bool has_speed_model() const { return speed_model_; }
	// Told about each CPU whose speed is about to change (before = true)
	// and has changed (before = false) because another turned busy or
	// idle: the simulator accounts its task's work at the old speed.
	void set_speed_observer(std::function<void(std::size_t cpu, bool before)> observer)
	{
		speed_observer_ = std::move(observer);
	}
	// At time t the CPU starts or stops running a task.
	void set_busy(std::size_t c, bool busy, std::int64_t t)
	{
		if (cpus_[c].busy == busy)
			return;
		if (speed_model_) [[unlikely]] {
			set_busy_with_speed_model(c, busy, t);
			return;
		}
		account(c, t);
		cpus_[c].busy = busy;
		if (static_power_)
			update_domain_power(c, t);
		if (power_observer_)
			power_observer_(c, t);
	}
	// Whether the power model needs to know each CPU's idle state.
	bool tracks_idle_states() const { return tracks_idle_states_; }
	// At time t the CPU waits in idle state `state` (its cpuidle index,
	// KSHIM_DEFAULT_IDLE, or KSHIM_NOT_IDLE).
	void set_idle_state(std::size_t c, int state, std::int64_t t)
	{
		auto &cpu = cpus_[c];
		if (cpu.idle_state == state)
			return;
		account(c, t);
		cpu.idle_state = state;
		cpu.idle_now = idle_power_in(cpu);
		update_domain_power(c, t);
		if (power_observer_ && !cpu.busy)
			power_observer_(c, t);
	}
	// The power the CPU draws now (the energy model's unit: µW when
	// power_in_microwatts()), with its share of its cluster's own power:
	// what heats the thermal model.
	std::uint64_t power(std::size_t c) const
	{
		const auto &cpu = cpus_[c];
		std::uint64_t p = cpu.busy ? cpu.busy_power : cpu.idle_now;
		if (static_power_ && cpu.domain >= 0) [[unlikely]] {
			const auto &dom = domains_[static_cast<std::size_t>(cpu.domain)];
			if (!dom.cpus.empty())
				p += static_share(dom, c);
		}
		return p;
	}
	// The power model as applied, in mW (nullopt: none).
	std::optional<BoardPowerFigures> power_figures() const;
	// The domains whose leakage follows a thermal zone's temperature,
	// and the zone (the power model's temperature_scale).
	std::vector<std::pair<std::size_t, std::string>> temperature_zones() const;
	// From t, domain d's die is at `celsius`: its leakage follows.
	void set_temperature(std::size_t d, double celsius, std::int64_t t);
	// Told whenever a CPU's power changes (at t, after the change): the
	// thermal model.
	void set_power_observer(std::function<void(std::size_t cpu, std::int64_t t)> observer)
	{
		power_observer_ = std::move(observer);
	}
	// Everything accounted up to t (the end of the run).
	void finish(std::int64_t t);

	// A frequency transition of the CPU completes at t: it runs at khz, or
	// at the highest OPP under its cap. Whether its clock changed. Throws
	// kshim::KernelFault for a frequency its energy model lacks.
	bool set_frequency(std::size_t c, unsigned khz, std::int64_t t);
	// From t the CPU's clock runs at most at khz (0: no cap): the highest
	// OPP not above it (the lowest if none is). Whether its clock changed.
	bool set_cap(std::size_t c, unsigned khz, std::int64_t t);

	// Work done (capacity-ns) in dt at the CPU's present speed, rounded
	// down: dt x capacity x f / f_max (x the SMT model's thread speed), in
	// 64 bits when it cannot overflow (capacity < 2^11, f < 2^23 kHz).
	// Inline: the loop asks every step.
	u128 work_in(std::size_t c, std::int64_t dt) const
	{
		const auto &cpu = cpus_[c];
		const bool scaled = cpu.max_khz && cpu.khz;
		if (dt < (1LL << 30) && cpu.capacity < 2048 && cpu.khz < (1U << 23) && cpu.smt_scale == 1024) {
			const std::uint64_t w = static_cast<std::uint64_t>(dt) * cpu.capacity;
			return scaled ? w * cpu.khz / cpu.max_khz : w;
		}
		u128 w = static_cast<u128>(dt) * cpu.capacity * cpu.smt_scale;
		if (scaled)
			w = w * cpu.khz / cpu.max_khz;
		return w / 1024;
	}
	// The time (ns, rounded up) the CPU takes for `work` at its present
	// speed; nullopt when never (capacity 0).
	std::optional<std::int64_t> time_for(std::size_t c, std::int64_t work) const;

	// Busy time and energy per CPU, and per frequency domain with its OPP
	// residency, into the run's result (after finish()).
	void report(Result &r) const;

private:
	bool set_clock(std::size_t c, unsigned khz, std::int64_t t);
	std::vector<double> kernel_cycles_;	// by CPU; empty: untimed
	void tell_kernel_rate(std::size_t c) const;
	// The OPP the CPU runs at when asked for khz: the highest not above
	// its cap and the package's ceiling (the lowest if none is).
	unsigned limited(const Cpu &cpu, unsigned khz) const;
	void build_speed_model(const PowerModel &model, const kshim::Kernel &kernel, const dts::Platform &platform);
	void start_speed_model(std::int64_t t);
	void set_busy_with_speed_model(std::size_t c, bool busy, std::int64_t t);
	std::uint32_t smt_scale_for(std::size_t busy_threads) const
	{
		if (smt_scales_.empty() || busy_threads == 0)
			return 1024;
		return smt_scales_[std::min(busy_threads, smt_scales_.size()) - 1];
	}
	// The package's ceiling with domain_busy_ as it is.
	unsigned budget_ceiling() const;
	// The power of an idle CPU in its idle state.
	static std::uint64_t idle_power_in(const Cpu &cpu)
	{
		const auto i = static_cast<std::size_t>(cpu.idle_state + 1);
		return cpu.idle_state >= KSHIM_DEFAULT_IDLE && i < cpu.state_power.size() ? cpu.state_power[i]
											: cpu.idle_power;
	}
	void apply(const PowerModel &model, const dts::Platform &platform);
	double file_unit_uw(const PowerModel &model, const dts::Platform &platform);
	void apply_idle_states(Domain &dom, const PowerModel::Domain &m, double unit_uw);
	static double temperature_scale_at(const Domain &dom, double celsius);
	// The CPU's cluster may have been powered on or off, turned active or
	// idle, or changed OPP.
	void update_domain_power(std::size_t c, std::int64_t t)
	{
		if (cpus_[c].domain < 0)
			return;
		auto &dom = domains_[static_cast<std::size_t>(cpus_[c].domain)];
		if (dom.tracked)
			refresh_domain(dom, t);
	}
	void refresh_domain(Domain &dom, std::int64_t t);
	// A CPU's share of its cluster's own power: equal shares, the
	// remainder to the first CPUs, so that the shares add up exactly.
	static std::uint64_t static_share(const Domain &dom, std::size_t c)
	{
		const auto n = dom.cpus.size();
		const auto own = dom.static_now + dom.cluster_now;
		const auto i = static_cast<std::size_t>(std::find(dom.cpus.begin(), dom.cpus.end(), c) - dom.cpus.begin());
		return own / n + (i < own % n ? 1 : 0);
	}
	void account(std::size_t c, std::int64_t t)
	{
		auto &cpu = cpus_[c];
		const std::int64_t dt = t - cpu.since;
		if (dt <= 0)
			return;
		if (cpu.cap_khz && cpu.cap_khz < cpu.max_khz)
			cpu.capped_ns += dt;
		if (cpu.busy) {
			cpu.busy_ns += dt;
			*cpu.busy_bucket += dt;
			cpu.busy_energy += static_cast<u128>(cpu.busy_power) * static_cast<std::uint64_t>(dt);
		} else {
			cpu.idle_energy += static_cast<u128>(cpu.idle_now) * static_cast<std::uint64_t>(dt);
		}
		cpu.since = t;
	}
	void account_domain(Domain &dom, std::int64_t t)
	{
		if (t > dom.since) {
			const auto dt = t - dom.since;
			if (dom.bucket)
				*dom.bucket += dt;
			if (!dom.powered)
				dom.off_ns += dt;
			dom.static_energy += static_cast<u128>(dom.static_now) * static_cast<std::uint64_t>(dt);
			(dom.active ? dom.active_energy : dom.idle_energy) +=
				static_cast<u128>(dom.cluster_now) * static_cast<std::uint64_t>(dt);
		}
		dom.since = t;
	}

	std::vector<Cpu> cpus_;
	std::vector<Domain> domains_;
	bool power_in_microwatts_ = true;
	bool energy_complete_ = true;
	bool tracks_idle_states_ = false;
	bool static_power_ = false;		// some cluster has a power of its own or off states
	std::string power_source_;
	std::optional<double> unit_mw_;		// what one of the file's bogo units is worth
	std::function<void(std::size_t, std::int64_t)> power_observer_;
	// SMT threads and the package budget (power model): cores_ lists each
	// core's threads; smt_scales_ a busy thread's speed x 1024 by busy
	// threads - 1; ceilings_ the frequencies the budget can hold the
	// package at (every OPP, ascending) and budget_power_[d][i] what domain
	// d draws active under ceilings_[i] (µW or the EM's unit).
	bool speed_model_ = false;
	std::vector<std::vector<unsigned>> cores_;
	std::vector<std::uint32_t> smt_scales_;
	std::optional<std::uint64_t> budget_;
	std::vector<unsigned> ceilings_;
	std::vector<std::vector<std::uint64_t>> budget_power_;
	std::vector<unsigned> domain_busy_;
	unsigned ceiling_khz_ = 0;
	std::vector<std::int64_t> ceiling_ns_;	// by ceilings_ index
	std::size_t ceiling_index_ = 0;
	std::int64_t ceiling_since_ = 0;
	std::function<void(std::size_t, bool)> speed_observer_;
};

} // namespace sh::sim
