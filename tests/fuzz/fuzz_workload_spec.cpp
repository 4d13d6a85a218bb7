// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer target: the built-in workloads' parameter parser. The first
// byte picks a built-in, the rest is its parameter list
// ("count=24,period=16ms,duty=10%"). Specs naming files are not made here
// (make_workload() would read them): rt-app files have their own target.
// workload::Error is the expected answer to bad input.
#include "harness/workload/workload.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	using namespace sh::workload;
	if (size < 1)
		return 0;
	const auto &gens = generators();
	const auto &gen = gens[data[0] % gens.size()];
	const std::string spec = gen.name + ":" + std::string(reinterpret_cast<const char *>(data + 1), size - 1);
	try {
		const auto w = make_workload(spec);
		(void)w;
	} catch (const Error &) {
	}
	return 0;
}
