// SPDX-License-Identifier: GPL-2.0
//
// A Platform as a person reads it (fmt::formatter, "{}") and as a program
// reads it (JSON). Both carry the same facts.
#pragma once

#include "dts/platform.h"
#include "harness/sim/power_model.h"
#include "kernel-shim/kernel.h"

#include <fmt/format.h>
#include <span>
#include <string>

namespace sh::report {

// "0-3,6" — the kernel's cpulist format (%*pbl).
std::string cpu_list(std::span<const unsigned> cpus);

// The board's DT facts and, when given, what the kernel built from them
// at boot (capacities, topology ids, energy model, EAS verdict) and the
// board power model applied to it (with the kernel: null says there is
// none, a run's energy busy-only; `power_skipped`, why the file shipped for
// the board did not apply).
std::string platform_text(const dts::Platform &platform, const kshim::Kernel *kernel = nullptr,
			  const sim::BoardPowerFigures *power = nullptr, std::string_view power_skipped = {});
std::string platform_json(const dts::Platform &platform, const kshim::Kernel *kernel = nullptr,
			  const sim::BoardPowerFigures *power = nullptr, std::string_view power_skipped = {});

} // namespace sh::report

template <>
struct fmt::formatter<sh::dts::Platform> : fmt::formatter<std::string_view> {
	template <typename FormatContext>
	auto format(const sh::dts::Platform &platform, FormatContext &ctx) const
	{
		return fmt::formatter<std::string_view>::format(sh::report::platform_text(platform), ctx);
	}
};
