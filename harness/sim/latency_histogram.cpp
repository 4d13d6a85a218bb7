// SPDX-License-Identifier: GPL-2.0
#include "harness/sim/latency_histogram.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace sh::sim {

namespace {

// The block count of a storage cell (the axis's index + 1: the negative
// values' cell first): where LatencyHistogram::block_counts_ keeps it.
std::size_t block_of_cell(std::size_t cell)
{
	if (cell == 0)
		return 0;
	return 1 + (cell - 1) / static_cast<std::size_t>(LatencyHistogram::Axis::block_size);
}

} // namespace

void LatencyHistogram::add(std::int64_t ns)
{
	if (!buckets_)
		buckets_.emplace(boost::histogram::make_histogram_with(boost::histogram::unlimited_storage<>(), Axis()));
	min_ = count_ ? std::min(min_, ns) : ns;
	max_ = count_ ? std::max(max_, ns) : ns;
	count_++;
	(*buckets_)(ns);
	block_counts_[block_of_cell(static_cast<std::size_t>(Axis::index(ns) + 1))]++;
}

LatencyHistogram &LatencyHistogram::operator+=(const LatencyHistogram &other)
{
	if (!other.count_)
		return *this;
	min_ = count_ ? std::min(min_, other.min_) : other.min_;
	max_ = count_ ? std::max(max_, other.max_) : other.max_;
	count_ += other.count_;
	if (buckets_)
		*buckets_ += *other.buckets_;
	else
		buckets_ = other.buckets_;
	for (std::size_t b = 0; b < block_counts_.size(); b++)
		block_counts_[b] += other.block_counts_[b];
	return *this;
}

namespace {

// The nearest rank of fraction p among n samples, as for a sorted list.
std::size_t rank_of(double p, std::size_t n)
{
	return std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(p * static_cast<double>(n) - 1e-9)), 1, n);
}

} // namespace

// The values at the ranks (ascending), in one walk: over the block counts
// to the block that holds the next rank, then over that block's storage
// cells, counts only (histogram::indexed() costs ~40 instructions per
// bucket). Each task's summary walks, and a run's p99.9 lies some 15,000
// buckets in: the blocks before it are stepped over at once.
template <std::size_t N>
std::array<std::int64_t, N> LatencyHistogram::values_at(const std::array<std::size_t, N> &ranks) const
{
	std::array<std::int64_t, N> values{};
	values.fill(max_);
	// (a rank asked for: count_ > 0, so there are buckets)
	const auto cells = buckets_->begin();	// the storage's, in order
	const auto cell_count = static_cast<std::size_t>(buckets_->end() - cells);
	const auto block = static_cast<std::size_t>(Axis::block_size);
	std::size_t seen = 0, next = 0;
	for (std::size_t b = 0; b < block_counts_.size() && next < N; b++) {
		if (seen + block_counts_[b] < ranks[next]) {
			seen += block_counts_[b];
			continue;
		}
		// the block's cells: [0] holds the negative values' one cell,
		// the last the one beyond the axis
		const std::size_t first = b == 0 ? 0 : 1 + (b - 1) * block;
		const std::size_t end = b == 0 ? 1 : std::min(first + block, cell_count);
		for (std::size_t cell = first; cell < end && next < N; cell++) {
			seen += static_cast<std::size_t>(cells[static_cast<std::ptrdiff_t>(cell)]);
			for (; next < N && seen >= ranks[next]; next++) {
				const auto index = static_cast<boost::histogram::axis::index_type>(cell) - 1;
				if (index < 0)
					values[next] = min_;	// negative (no latency is): the least there is
				else if (index >= Axis::size())
					values[next] = max_;
				else
					values[next] = std::clamp(Axis::highest(index), min_, max_);
			}
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
