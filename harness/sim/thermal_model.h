// SPDX-License-Identifier: GPL-2.0
//
// The board's thermal model: what the sensors of the DT's thermal zones
// read. Not kernel code: the kernel's thermal framework (drivers/thermal,
// compiled unchanged) reads these temperatures and decides what to do.
//
// Each zone is a first-order RC network: the heat of the CPUs it covers
// flows into a thermal capacitance C (J/K) and out to ambient through a
// thermal resistance R (K/W),
//
//	C dT/dt = P(t) - (T - T_ambient) / R
//
// Between two changes of P the solution is exact,
//
//	T(t0 + dt) = T_ss + (T(t0) - T_ss) exp(-dt / RC),   T_ss = T_ambient + P R,
//
// so the temperature, its time integral (the mean) and the time spent above
// a trip are computed in closed form over each interval of constant power;
// nothing depends on a step size. Power changes whenever a covered CPU
// turns busy or idle or changes frequency (the board's power, which the
// energy report integrates).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sh::sim::thermal {

class Error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// One zone's parameters. The defaults (docs/thermal.md says why):
// R = 10 K/W, C = 2 J/K (a 20 s time constant), 25 C ambient, starting at
// ambient.
struct RcParams {
	double resistance_k_per_w = 10.0;
	double capacitance_j_per_k = 2.0;
	double ambient_c = 25.0;
	std::optional<double> initial_c;	// nullopt: ambient

	bool operator==(const RcParams &) const = default;
};

// Some of the parameters, as an option or a file gives them.
struct RcOverride {
	std::optional<double> resistance_k_per_w, capacitance_j_per_k, ambient_c, initial_c;
	void apply_to(RcParams &p) const;
	void merge(const RcOverride &later);	// later's values win
};

// What a run's model uses: off, or the defaults with overrides for every
// zone and for zones by name.
struct ModelConfig {
	bool enabled = true;
	RcOverride all;
	std::map<std::string, RcOverride, std::less<>> zones;

	RcParams params_for(std::string_view zone) const;
	// "off", "on", or "[ZONE:]r=10,c=2,ambient=25,initial=40" (a subset),
	// added to this configuration (throws Error naming the bad part).
	void add_option(std::string_view spec);
	// A board thermal file (JSON): {"r": .., "c": .., "ambient": ..,
	// "initial": .., "zones": {"NAME": {"r": .., ...}}}; throws Error
	// with the file and the bad member.
	void add_file(const std::filesystem::path &file);
};

struct TripLevel {
	std::string name;
	std::string type;	// active, passive, hot, critical
	double temperature_c = 0;
};

// A zone's temperature over a run and what it adds up to.
class Zone {
public:
	Zone(std::string name, std::vector<unsigned> cpus, RcParams params, std::vector<TripLevel> trips,
	     std::int64_t start_ns, std::int64_t sample_period_ns);

	const std::string &name() const { return name_; }
	const std::vector<unsigned> &cpus() const { return cpus_; }
	const RcParams &params() const { return params_; }
	const std::vector<TripLevel> &trips() const { return trips_; }

	// From t on, the covered CPUs draw this much (µW).
	void set_power(std::uint64_t microwatts, std::int64_t t);
	// The temperature at t (>= the last time given), the zone advanced to t.
	double temperature_at(std::int64_t t);
	// The same without advancing the zone (its sums and samples stay as
	// they are): for an observer that must not change the run.
	double peek(std::int64_t t) const;

	// Over [start, last time advanced to]:
	double min_c() const { return min_c_; }
	double max_c() const { return max_c_; }
	double mean_c() const;
	std::int64_t time_above_ns(std::size_t trip) const { return above_ns_[trip_level_[trip]]; }
	double energy_j() const { return energy_j_; }
	// The temperature every sample period from the start (the first
	// sample at start).
	const std::vector<double> &samples() const { return samples_; }
	std::int64_t sample_period_ns() const { return sample_period_ns_; }

private:
	void advance(std::int64_t t);
	double steady_state_c() const;

	std::string name_;
	std::vector<unsigned> cpus_;
	RcParams params_;
	std::vector<TripLevel> trips_;
	double tau_s_;
	double temperature_c_;
	std::uint64_t power_uw_ = 0;
	std::int64_t start_ns_, since_ns_;
	double min_c_, max_c_;
	double integral_c_s_ = 0;	// ∫ T dt, C·s
	double energy_j_ = 0;
	std::vector<double> levels_;		// the trips' distinct temperatures
	std::vector<std::size_t> trip_level_;	// by trip
	std::vector<std::int64_t> above_ns_;	// by level
	std::int64_t sample_period_ns_;
	std::int64_t next_sample_ns_;
	std::vector<double> samples_;
};

} // namespace sh::sim::thermal
