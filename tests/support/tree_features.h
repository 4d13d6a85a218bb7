// SPDX-License-Identifier: GPL-2.0
//
// What differs between the trees the suite runs on (5.10, 6.1, 6.12, 7.3),
// each named once with the release that brought it (DESIGN.md, "Four
// trees, one glue, legible"): a test reads the feature, never a series
// number, so a fifth tree needs no test edited, only a boundary checked.
#pragma once

namespace sh::test {

// The build's tree is release major.minor or later.
bool tree_at_least(int major, int minor);

// The energy model's power is in microwatts (5.19: "PM: EM: convert
// power field to micro-Watts precision"), in milliwatts before.
inline bool em_in_microwatts() { return tree_at_least(5, 19); }
// Inefficient OPPs are marked and skipped (5.16, EM_PERF_STATE_INEFFICIENT).
inline bool em_inefficient_opps() { return tree_at_least(5, 16); }

} // namespace sh::test
