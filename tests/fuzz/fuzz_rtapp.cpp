// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer target: the rt-app reader (RapidJSON's SAX reader, the ordered
// tree, rt-app's grammar) on hostile text. workload::Error is the expected
// answer to bad input; anything else is a finding.
#include "harness/workload/workload.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	try {
		const auto w = sh::workload::parse_rtapp(std::string(reinterpret_cast<const char *>(data), size),
							 "fuzz.json");
		(void)w;
	} catch (const sh::workload::Error &) {
	}
	return 0;
}
