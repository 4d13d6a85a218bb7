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
#include "kernel-shim/kernel.h"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
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
		std::vector<unsigned> freqs;		// the OPPs it can run at, ascending
		std::int64_t capped_ns = 0;		// time with a cap below max_khz
		std::int64_t transition_latency_ns = 0;
		int domain = -1;			// index into domains()
		std::vector<std::pair<unsigned, std::uint64_t>> power;	// EM: kHz -> busy power
		std::uint64_t busy_power = 0;		// at khz
		std::uint64_t idle_power = 0;
		std::int64_t busy_ns = 0;
		u128 energy = 0;			// power unit x ns
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
	};

	// The booted kernel's view of the board: capacities, the frequencies
	// cpufreq set, the energy model; idle power per frequency domain (µW).
	Board(const dts::Platform &platform, const kshim::Kernel &kernel, std::span<const std::uint64_t> idle_power_uw);
	Board(const Board &) = delete;
	Board &operator=(const Board &) = delete;

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
		for (auto &dom : domains_)
			dom.since = t;
	}
	// At time t the CPU starts or stops running a task.
	void set_busy(std::size_t c, bool busy, std::int64_t t)
	{
		if (cpus_[c].busy == busy)
			return;
		account(c, t);
		cpus_[c].busy = busy;
		if (power_observer_)
			power_observer_(c, t);
	}
	// The power the CPU draws now (the energy model's unit: µW when
	// power_in_microwatts()).
	std::uint64_t power(std::size_t c) const
	{
		return cpus_[c].busy ? cpus_[c].busy_power : cpus_[c].idle_power;
	}
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
	// down: dt x capacity x f / f_max, in 64 bits when it cannot overflow
	// (capacity < 2^11, f < 2^23 kHz). Inline: the loop asks every step.
	u128 work_in(std::size_t c, std::int64_t dt) const
	{
		const auto &cpu = cpus_[c];
		const bool scaled = cpu.max_khz && cpu.khz;
		if (dt < (1LL << 30) && cpu.capacity < 2048 && cpu.khz < (1U << 23)) {
			const std::uint64_t w = static_cast<std::uint64_t>(dt) * cpu.capacity;
			return scaled ? w * cpu.khz / cpu.max_khz : w;
		}
		const u128 w = static_cast<u128>(dt) * cpu.capacity;
		return scaled ? w * cpu.khz / cpu.max_khz : w;
	}
	// The time (ns, rounded up) the CPU takes for `work` at its present
	// speed; nullopt when never (capacity 0).
	std::optional<std::int64_t> time_for(std::size_t c, std::int64_t work) const;

	// Busy time and energy per CPU, and per frequency domain with its OPP
	// residency, into the run's result (after finish()).
	void report(Result &r) const;

private:
	bool set_clock(std::size_t c, unsigned khz, std::int64_t t);
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
			cpu.energy += static_cast<u128>(cpu.busy_power) * static_cast<std::uint64_t>(dt);
		} else {
			cpu.energy += static_cast<u128>(cpu.idle_power) * static_cast<std::uint64_t>(dt);
		}
		cpu.since = t;
	}
	void account_domain(Domain &dom, std::int64_t t)
	{
		if (dom.bucket && t > dom.since)
			*dom.bucket += t - dom.since;
		dom.since = t;
	}

	std::vector<Cpu> cpus_;
	std::vector<Domain> domains_;
	bool power_in_microwatts_ = true;
	bool energy_complete_ = true;
	std::function<void(std::size_t, std::int64_t)> power_observer_;
};

} // namespace sh::sim
