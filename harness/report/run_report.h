// SPDX-License-Identifier: GPL-2.0
//
// The result of a simulation, for people (a summary) and for tools (JSON
// with every metric).
#pragma once

#include "harness/sim/simulator.h"

#include <string>

namespace sh::report {

// One screen (at most 30 lines of 100 columns on the default scenario):
// board and kernel, energy and time at each frequency in short, wake-up
// latency, migrations and switches, the scheduler's overhead, the
// fingerprint.
std::string run_text(const sim::Result &result);
// Every table besides (run --details): the power model's split, thermal
// zones and cooling devices, idle states, kernel time, the tasks.
std::string run_details_text(const sim::Result &result);
std::string run_json(const sim::Result &result);

} // namespace sh::report
