// SPDX-License-Identifier: GPL-2.0
//
// Numbers as a list of ranges, "0-3,6": the kernel's cpulist format
// (%*pbl), and what Slurm's --array takes for task ids.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace sh::support {

// In increasing order, whatever the order given; "" for none.
inline std::string range_list(std::span<const unsigned> numbers)
{
	std::vector<unsigned> sorted(numbers.begin(), numbers.end());
	std::sort(sorted.begin(), sorted.end());
	std::string out;
	for (std::size_t i = 0; i < sorted.size();) {
		std::size_t j = i;
		while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
			j++;
		if (!out.empty())
			out += ',';
		out += j == i ? fmt::format("{}", sorted[i]) : fmt::format("{}-{}", sorted[i], sorted[j]);
		i = j + 1;
	}
	return out;
}

} // namespace sh::support
