// SPDX-License-Identifier: GPL-2.0
#include "harness/sim/latency_histogram.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace sh::sim {

namespace {

constexpr double lowest_ns = 1.0;
constexpr double highest_ns = 1e13;

unsigned bucket_count()
{
	return static_cast<unsigned>(
		std::ceil(std::log(highest_ns / lowest_ns) / std::log1p(LatencyHistogram::relative_error)));
}

} // namespace

LatencyHistogram::LatencyHistogram()
	: buckets_(boost::histogram::make_histogram_with(boost::histogram::unlimited_storage<>(),
							 Axis(bucket_count(), lowest_ns, highest_ns)))
{
}

void LatencyHistogram::add(std::int64_t ns)
{
	min_ = count_ ? std::min(min_, ns) : ns;
	max_ = count_ ? std::max(max_, ns) : ns;
	count_++;
	buckets_(static_cast<double>(ns));
}

LatencyHistogram &LatencyHistogram::operator+=(const LatencyHistogram &other)
{
	if (!other.count_)
		return *this;
	min_ = count_ ? std::min(min_, other.min_) : other.min_;
	max_ = count_ ? std::max(max_, other.max_) : other.max_;
	count_ += other.count_;
	buckets_ += other.buckets_;
	return *this;
}

namespace {

// The nearest rank of fraction p among n samples, as for a sorted list.
std::size_t rank_of(double p, std::size_t n)
{
	return std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(p * static_cast<double>(n) - 1e-9)), 1, n);
}

} // namespace

// The values at the ranks (ascending), in one walk over the buckets: the
// storage's cells in order (under 1 ns, the buckets, beyond the last),
// counts only, the axis asked for an edge at the ranks alone
// (histogram::indexed() cost ~40 instructions per bucket, ~1,600
// buckets to the p99.9 of a run, for each task's summary).
template <std::size_t N>
std::array<std::int64_t, N> LatencyHistogram::values_at(const std::array<std::size_t, N> &ranks) const
{
	std::array<std::int64_t, N> values{};
	values.fill(max_);
	const auto &axis = buckets_.axis(0);
	std::size_t seen = 0, next = 0;
	int index = -1;
	for (auto cell = buckets_.begin(); cell != buckets_.end() && next < N; ++cell, ++index) {
		seen += static_cast<std::size_t>(*cell);
		for (; next < N && seen >= ranks[next]; next++) {
			if (index < 0)
				values[next] = std::clamp<std::int64_t>(0, min_, max_);	// under 1 ns
			else if (index >= static_cast<int>(axis.size()))
				values[next] = max_;
			else
				values[next] = std::clamp(static_cast<std::int64_t>(std::ceil(axis.bin(index).upper())),
							  min_, max_);
		}
	}
	return values;
}

std::int64_t LatencyHistogram::percentile(double p) const
{
	if (!count_)
		return 0;
	return values_at(std::array<std::size_t, 1>{rank_of(p, count_)})[0];
}

Percentiles LatencyHistogram::summary() const
{
	if (!count_)
		return {};
	const auto v = values_at(std::array<std::size_t, 4>{rank_of(0.50, count_), rank_of(0.90, count_),
							      rank_of(0.99, count_), rank_of(0.999, count_)});
	return {count_, min_, v[0], v[1], v[2], v[3], max_};
}

} // namespace sh::sim
