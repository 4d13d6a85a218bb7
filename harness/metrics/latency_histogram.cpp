// SPDX-License-Identifier: GPL-2.0
#include "harness/metrics/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace sh::metrics {

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

std::int64_t LatencyHistogram::percentile(double p) const
{
	if (!count_)
		return 0;
	// the nearest rank, as for a sorted list of the samples
	const auto rank = std::clamp<std::size_t>(
		static_cast<std::size_t>(std::ceil(p * static_cast<double>(count_) - 1e-9)), 1, count_);
	std::size_t seen = 0;
	for (auto &&bucket : boost::histogram::indexed(buckets_, boost::histogram::coverage::all)) {
		seen += static_cast<std::size_t>(*bucket);
		if (seen < rank)
			continue;
		if (bucket.index(0) < 0)
			return std::clamp<std::int64_t>(0, min_, max_);	// under 1 ns
		if (bucket.index(0) >= static_cast<int>(buckets_.axis(0).size()))
			return max_;
		const auto upper = static_cast<std::int64_t>(std::ceil(bucket.bin(0).upper()));
		return std::clamp(upper, min_, max_);
	}
	return max_;
}

Percentiles LatencyHistogram::summary() const
{
	return {count_, min_, percentile(0.50), percentile(0.90), percentile(0.99), percentile(0.999), max_};
}

} // namespace sh::metrics
