// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer target: the device-tree loader on hostile blobs. The input is
// a base blob and an optional overlay: the first four bytes (little
// endian) give the base's length, the rest after it is the overlay. Both
// go through the validation a .dtb/.dtbo file gets, fdt_overlay_apply()
// and every reader that builds a Platform. dts::Error is the expected
// answer to bad input; anything else (a crash, a sanitizer report, another
// exception) is a finding.
#include "dts/blob.h"
#include "dts/extract.h"
#include "dts/platform.h"

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	using namespace sh::dts;
	if (size < 4)
		return 0;
	std::uint32_t base_size = 0;
	std::memcpy(&base_size, data, sizeof(base_size));
	data += 4;
	size -= 4;
	base_size = static_cast<std::uint32_t>(std::min<std::size_t>(base_size, size));
	const auto *chars = reinterpret_cast<const char *>(data);
	try {
		auto blob = FdtBlob::from_bytes(std::vector<char>(chars, chars + base_size), "fuzz.dtb");
		if (base_size < size)
			blob.apply_overlay(FdtBlob::from_bytes(std::vector<char>(chars + base_size, chars + size),
							       "fuzz.dtbo"));
		const auto platform = extract_platform(blob, "fuzz.dtb");
		(void)platform;
	} catch (const Error &) {
	}
	return 0;
}
