// SPDX-License-Identifier: GPL-2.0
//
// Statistics for comparing repeated runs: a metric measured once per seed
// under two variants (kernels or option sets), summarised as perf stat
// --repeat does (mean, standard deviation, RSD) and tested with Welch's t
// test (Boost.Math's Student's t distribution).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace sh::stats {

struct Summary {
	std::size_t n = 0;
	double mean = 0;
	double sd = 0;		// sample standard deviation (n - 1)
	double min = 0, max = 0;
	double rsd_percent() const;	// sd / |mean|, 0 when the mean is 0
	bool constant() const { return min == max; }
};

Summary summarize(std::span<const double> values);

// Two clusters or an outlier: Sarle's bimodality coefficient above 5/9 (a
// uniform distribution's; 10 values or more), or one gap between sorted
// values wider than half their range with two or more values on each side
// (an outlier: one side of one value, among 8 or more). Needs 5 values.
bool bimodal(std::span<const double> values);

enum class Verdict {
	identical,	// the same values: run for run (a[i] == b[i], the same seed) or all one value
	changed,	// the means differ beyond the noise (p < alpha), or every run differs
	no_evidence,	// the difference is within the noise
};

std::string_view to_string(Verdict v);

struct Comparison {
	Summary a, b;
	double delta = 0;			// mean b - mean a
	std::optional<double> delta_percent;	// 100 (mean b - mean a) / |mean a|; none when mean a is 0
	// Welch's two-sided p; none when both variants are constant (the
	// verdict is then identical or changed outright).
	std::optional<double> p;
	Verdict verdict = Verdict::no_evidence;
	bool a_bimodal = false, b_bimodal = false;
	// A bimodal side whose verdict rests on one run: without the run of
	// that seed (index), the verdict would be another. Welch's t test
	// assumes roughly normal values; only then is a bimodal side worth a
	// warning.
	struct Fragile {
		std::size_t index;
		double value;
		Verdict verdict_without;
	};
	std::optional<Fragile> a_fragile, b_fragile;
};

// a[i] and b[i] are runs with the same seed.
Comparison compare(std::span<const double> a, std::span<const double> b, double alpha);

} // namespace sh::stats
