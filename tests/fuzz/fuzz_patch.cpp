// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer target: the readers of a patch file that kernel build
// --patch, --b-kernel PATCH and bisect run before applying anything: its
// mail's Subject (headers, folded lines, the [PATCH] tag) and the files its
// diff touches. BadPatch is the expected answer to bad input; anything
// else (a crash, a sanitizer report, another exception) is a finding.
#include "harness/image/patch_file.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	using namespace sh::image;
	const std::string_view text(reinterpret_cast<const char *>(data), size);
	(void)patch_subject_of(text);
	try {
		(void)touched_files(text, "fuzz.patch");
	} catch (const BadPatch &) {
	}
	return 0;
}
