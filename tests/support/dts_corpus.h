// SPDX-License-Identifier: GPL-2.0
//
// The kernel tree's own boards as a corpus: the .dts files under
// arch/arm/boot/dts and arch/arm64/boot/dts that may carry CPU capacities
// (capacity-dmips-mhz), for the tests that load, boot or show each.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <vector>

namespace sh::test {

struct DtsCorpus {
	// Each .dts whose include closure mentions capacity-dmips-mhz, sorted:
	// a cheap textual pass, as compiling all ~2300 sources would take
	// minutes; the loaded board decides whether its CPUs really carry it.
	std::vector<std::filesystem::path> candidates;
	std::size_t all_sources = 0;	// every .dts of both architectures
};
DtsCorpus dts_corpus(const std::filesystem::path &tree);

// one(i) for each i below count, on every core.
void in_parallel(std::size_t count, const std::function<void(std::size_t)> &one);

} // namespace sh::test
