// SPDX-License-Identifier: GPL-2.0
//
// Helpers over what a booted kernel reports (kshim::Kernel), for the
// suites that link a kernel flavour.
#pragma once

#include "kernel-shim/kernel.h"

#include <boost/test/unit_test.hpp>
#include <algorithm>

namespace sh::test {

// The energy model's perf domain holding `cpu` (em_cpu_get()).
inline const kshim::PerfDomain &perf_domain_of(const kshim::Kernel &kernel, unsigned cpu)
{
	for (const auto &pd : kernel.perf_domains)
		if (std::find(pd.cpus.begin(), pd.cpus.end(), cpu) != pd.cpus.end())
			return pd;
	BOOST_FAIL("no perf domain holds CPU" << cpu);
	throw;
}

} // namespace sh::test
