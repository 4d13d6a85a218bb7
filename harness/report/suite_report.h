// SPDX-License-Identifier: GPL-2.0
//
// A suite as text: each scenario's run options and expectations, so that
// what compare and check run is readable before they run it.
#pragma once

#include "harness/suite/suite.h"

#include <string>

namespace sh::report {

std::string suite_text(const suite::Suite &suite);

} // namespace sh::report
