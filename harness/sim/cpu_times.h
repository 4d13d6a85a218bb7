// SPDX-License-Identifier: GPL-2.0
//
// A time per CPU (when its work runs out, when its next timer fires), kept
// so that the earliest one, and the CPUs at or before an instant in CPU
// order, are found without visiting every CPU: a tournament tree over the
// CPUs, updated in O(log CPUs). The loop's cost per event then follows the
// CPUs involved, not the board's size.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace sh::sim {

class CpuTimes {
public:
	static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();

	explicit CpuTimes(std::size_t cpus = 0)
	{
		while (leaves_ < cpus)
			leaves_ *= 2;
		nodes_.assign(2 * leaves_, none);
	}

	std::int64_t at(std::size_t cpu) const { return nodes_[leaves_ + cpu]; }

	void set(std::size_t cpu, std::int64_t time)
	{
		auto node = leaves_ + cpu;
		if (nodes_[node] == time)
			return;
		nodes_[node] = time;
		for (node /= 2; node; node /= 2) {
			const auto m = std::min(nodes_[2 * node], nodes_[2 * node + 1]);
			if (nodes_[node] == m)
				break;
			nodes_[node] = m;
		}
	}

	// The earliest time of any CPU (none: no CPU has one).
	std::int64_t earliest() const { return nodes_[1]; }

	// Calls f(cpu) for every CPU whose time is at or before t, in CPU order.
	template <typename F>
	void each_until(std::int64_t t, F &&f) const
	{
		if (nodes_[1] <= t)
			visit(1, t, f);
	}

private:
	template <typename F>
	void visit(std::size_t node, std::int64_t t, F &f) const
	{
		if (node >= leaves_) {
			f(node - leaves_);
			return;
		}
		if (nodes_[2 * node] <= t)
			visit(2 * node, t, f);
		if (nodes_[2 * node + 1] <= t)
			visit(2 * node + 1, t, f);
	}

	std::size_t leaves_ = 1;
	std::vector<std::int64_t> nodes_;
};

// A set of CPUs walked in CPU order while it changes: a CPU marked ahead of
// the walk is visited by it, one marked behind waits for the next walk.
class CpuMarks {
public:
	static constexpr std::size_t end = std::numeric_limits<std::size_t>::max();

	explicit CpuMarks(std::size_t cpus = 0) : words_((cpus + 63) / 64) {}

	void mark(std::size_t cpu) { words_[cpu / 64] |= std::uint64_t{1} << (cpu % 64); }
	void mark_all(std::size_t cpus)
	{
		for (std::size_t c = 0; c < cpus; c++)
			mark(c);
	}

	// The first marked CPU at or after `from`, unmarked (end: none).
	std::size_t take_from(std::size_t from)
	{
		auto *const words = words_.data();
		const auto n = words_.size();
		auto w = from / 64;
		if (w >= n)
			return end;
		auto bits = words[w] & (~std::uint64_t{0} << (from % 64));
		while (!bits) {
			if (++w == n)
				return end;
			bits = words[w];
		}
		const auto bit = static_cast<std::size_t>(std::countr_zero(bits));
		words[w] &= ~(std::uint64_t{1} << bit);
		return w * 64 + bit;
	}

private:
	std::vector<std::uint64_t> words_;
};

} // namespace sh::sim
