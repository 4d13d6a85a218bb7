// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer target: overlays applied to a good board. fuzz_device_tree
// fuzzes the base and the overlay together, so most of its inputs fail at
// the base; here the base is a board blob compiled with -@ (its labels for
// the overlay's __fixups__), read once from $SH_FUZZ_BASE_DTB
// (scripts/fuzz.sh: HiKey960's), and the input is the overlay alone: its
// fragments, targets, __fixups__ and __local_fixups__ go through the
// checks a .dtbo gets, fdt_overlay_apply() and every reader that builds a
// Platform. dts::Error is the expected answer to bad input; anything else
// is a finding.
#include "dts/blob.h"
#include "dts/extract.h"
#include "dts/platform.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

namespace {

std::vector<char> base;

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	const char *path = std::getenv("SH_FUZZ_BASE_DTB");
	std::ifstream in(path ? path : "", std::ios::binary);
	base.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
	if (base.empty()) {
		std::fprintf(stderr, "fuzz_overlay: $SH_FUZZ_BASE_DTB must name a board's .dtb (scripts/fuzz.sh sets it)\n");
		std::exit(2);
	}
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	using namespace sh::dts;
	const auto *chars = reinterpret_cast<const char *>(data);
	try {
		auto blob = FdtBlob::from_bytes(base, "base.dtb");
		blob.apply_overlay(FdtBlob::from_bytes(std::vector<char>(chars, chars + size), "fuzz.dtbo"));
		const auto platform = extract_platform(blob, "base.dtb");
		(void)platform;
	} catch (const Error &) {
	}
	return 0;
}
