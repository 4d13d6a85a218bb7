// SPDX-License-Identifier: GPL-2.0
//
// A distribution of latencies in constant memory: an HDR-style histogram
// (log-spaced buckets, each 1 % wide, from 1 ns to about 2.8 hours) on
// Boost.Histogram, with the count, minimum and maximum kept exactly. A
// percentile is the upper edge of the bucket holding the nearest-rank
// sample, capped at the maximum: within 1 % of the exact value, never
// below it. Latencies under 1 ns (zero: a task that ran at once) have a
// bucket of their own and read as 0.
//
// Debian packages HdrHistogram only for Go and Java; Boost.Histogram's
// log-transformed axis gives the same bounded relative error.
#pragma once

#include <boost/histogram.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace sh::sim {

struct Percentiles {
	std::size_t count = 0;
	std::int64_t min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
};

class LatencyHistogram {
public:
	// The relative width of a bucket: the error bound of a percentile.
	static constexpr double relative_error = 0.01;

	LatencyHistogram();

	void add(std::int64_t ns);
	LatencyHistogram &operator+=(const LatencyHistogram &other);

	std::size_t count() const { return count_; }
	// The value at or below which a fraction p (0 < p <= 1) of the
	// samples lie (nearest rank), within relative_error above.
	std::int64_t percentile(double p) const;
	Percentiles summary() const;

private:
	template <std::size_t N>
	std::array<std::int64_t, N> values_at(const std::array<std::size_t, N> &ranks) const;

	using Axis = boost::histogram::axis::regular<double, boost::histogram::axis::transform::log>;
	boost::histogram::histogram<std::tuple<Axis>, boost::histogram::unlimited_storage<>> buckets_;
	std::size_t count_ = 0;
	std::int64_t min_ = 0, max_ = 0;
};

} // namespace sh::sim
