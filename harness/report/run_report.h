// SPDX-License-Identifier: GPL-2.0
//
// The result of a simulation, for people (a summary) and for tools (JSON
// with every metric).
#pragma once

#include "harness/sim/simulator.h"

#include <string>

namespace sh::report {

std::string run_text(const sim::Result &result);
std::string run_json(const sim::Result &result);

} // namespace sh::report
