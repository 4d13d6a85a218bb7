// SPDX-License-Identifier: GPL-2.0
//
// A distribution of latencies in constant memory: HdrHistogram's buckets
// for three significant digits on Boost.Histogram, with the count, minimum
// and maximum kept exactly. Below 2,048 ns a bucket is 1 ns wide (exact);
// above, each power of two [2^k, 2^(k+1)) is cut into 1,024 linear buckets
// 2^(k-10) ns wide, up to 2^44 ns (4.9 hours; beyond reads as the maximum).
// A bucket is thus at most 1/1,024 of the values it holds wide: a
// percentile resolves three significant digits.
//
// A percentile is the highest value of the bucket holding the nearest-rank
// sample (HdrHistogram's "highest equivalent value"), capped at the
// maximum: never below the exact value, and less than 0.1 % (1/1,024)
// above it. The upper end rather than the middle, which would halve the
// error: a latency reported is a bound the exact one does not exceed, as
// the 1 % buckets before gave, and the same number HdrHistogram reports.
//
// Memory, none until the first sample, then bounded whatever the number
// of samples: 35,842 counters (the 35,840 buckets, and one each for
// negative values and values beyond 2^44 ns), all as wide as the largest
// count needs (Boost's unlimited_storage): 35 KiB per histogram while no
// bucket holds more than 255 samples, 70 KiB to 65,535, 140 KiB to
// 2^32 - 1, 280 KiB beyond; plus 37 block counts (296 bytes) that a
// percentile's walk skips by.
//
// Debian packages HdrHistogram only for Go and Java; Boost.Histogram with
// this axis gives its buckets.
#pragma once

#include <boost/histogram.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace sh::sim {

struct Percentiles {
	std::size_t count = 0;
	std::int64_t min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
};

// HdrHistogram's buckets as a Boost.Histogram axis: bucket i's values
// are lowest(i) .. highest(i). In blocks of 1,024 buckets: block 0
// holds 0 .. 1,023 ns, block b >= 1 the power of two [2^(b+9),
// 2^(b+10)) in buckets 2^(b-1) ns wide. The index is a shift and a
// count of leading zeros, no logarithm. At namespace scope: a class nested
// in LatencyHistogram would not be complete where the histogram's type
// asks for options(), and Boost would take it for an axis without the
// negative and beyond-the-end buckets.
class LatencyAxis {
public:
	static constexpr int block_bits = 10;
	static constexpr std::int64_t block_size = std::int64_t{1} << block_bits;
	static constexpr int blocks = 35;	// to 2^44 ns
	static constexpr std::int64_t limit = block_size << (blocks - 1);

	static constexpr unsigned options() noexcept
	{
		return boost::histogram::axis::option::underflow_t::value |
		       boost::histogram::axis::option::overflow_t::value;
	}
	static constexpr boost::histogram::axis::index_type size() noexcept
	{
		return static_cast<boost::histogram::axis::index_type>(blocks * block_size);
	}
	static constexpr boost::histogram::axis::index_type index(std::int64_t ns) noexcept
	{
		if (ns < 0)
			return -1;
		if (ns >= limit)
			return size();
		if (ns < block_size)
			return static_cast<boost::histogram::axis::index_type>(ns);
		const int octave = std::bit_width(static_cast<std::uint64_t>(ns)) - 1;	// >= block_bits
		const int shift = octave - block_bits;
		return static_cast<boost::histogram::axis::index_type>(
			(shift + 1) * block_size + ((ns >> shift) - block_size));
	}
	static constexpr std::int64_t lowest(boost::histogram::axis::index_type i) noexcept
	{
		const int block = i >> block_bits;
		const std::int64_t within = i & (block_size - 1);
		return block == 0 ? within : (block_size + within) << (block - 1);
	}
	static constexpr std::int64_t highest(boost::histogram::axis::index_type i) noexcept
	{
		const int block = i >> block_bits;
		return lowest(i) + (block == 0 ? 0 : (std::int64_t{1} << (block - 1)) - 1);
	}
	// Boost's value of an index, the lowest of the bucket (merging
	// histograms maps an index through it)
	static constexpr std::int64_t value(boost::histogram::axis::index_type i) noexcept
	{
		return i < 0 ? -1 : i >= size() ? limit : lowest(i);
	}
	bool operator==(const LatencyAxis &) const noexcept = default;
};
static_assert(boost::histogram::axis::traits::get_options<LatencyAxis>::value == LatencyAxis::options(),
	      "Boost.Histogram must see the axis's negative and beyond-the-end buckets");

class LatencyHistogram {
public:
	using Axis = LatencyAxis;

	// The relative width of a bucket (its width over the lowest value it
	// holds, at most): the error bound of a percentile.
	static constexpr double relative_error = 1.0 / 1024;

	LatencyHistogram() = default;
	LatencyHistogram(const LatencyHistogram &) = default;
	LatencyHistogram &operator=(const LatencyHistogram &) = default;
	// noexcept, which Boost's histogram is not only because its empty
	// mutex base (a histogram without threads) copies without saying so;
	// the rest moves the storage's pointer and the axis. A vector of
	// tasks' metrics then moves them as it grows, where it copied each
	// one's 35 KiB of counters, cell by cell.
	LatencyHistogram(LatencyHistogram &&) noexcept = default;
	LatencyHistogram &operator=(LatencyHistogram &&) noexcept = default;

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

	using Buckets = boost::histogram::histogram<std::tuple<Axis>, boost::histogram::unlimited_storage<>>;
	// Made at the first sample: a task's 35 KiB of counters are zeroed
	// when made, a page fault per page, and a run makes them for every
	// task before any runs (a quarter of a 1 ns run's page faults).
	std::optional<Buckets> buckets_;
	// the samples in each block of the axis, so that a percentile's walk
	// steps over a block (1,024 buckets) at once: [0] the negative ones,
	// [1 + b] block b's, [1 + blocks] those beyond the last
	std::array<std::size_t, Axis::blocks + 2> block_counts_{};
	std::size_t count_ = 0;
	std::int64_t min_ = 0, max_ = 0;
};

} // namespace sh::sim
