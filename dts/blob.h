// SPDX-License-Identifier: GPL-2.0
//
// A validated flattened device tree in memory, obtained the way the kernel's
// build obtains one: a .dts goes through the C preprocessor and dtc
// (scripts/Makefile.lib, cmd_dtc); a .dtb is read and checked with
// fdt_check_full() before anything reads it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace sh::dts {

class FdtBlob {
public:
	// .dtb/.dtbo (recognised by the FDT magic) or a DT source. Sources are
	// compiled with __symbols__ (-@) so that overlays can target labels.
	static FdtBlob load(const std::filesystem::path &file,
			    const std::filesystem::path &kernel_tree);
	// A blob already in memory (validated as load() validates a .dtb);
	// `origin` names it in messages.
	static FdtBlob from_bytes(std::vector<char> bytes, std::string origin);

	// Applies an overlay with fdt_overlay_apply(); `overlay` is consumed.
	void apply_overlay(FdtBlob overlay);

	const void *data() const { return bytes_.data(); }
	std::size_t size() const { return bytes_.size(); }
	// The file this blob came from, used to name it in every message.
	const std::string &origin() const { return origin_; }

private:
	FdtBlob(std::vector<char> bytes, std::string origin);
	static FdtBlob compile(const std::filesystem::path &source,
			       const std::filesystem::path &kernel_tree);
	void check() const;

	std::vector<char> bytes_;
	std::string origin_;
};

} // namespace sh::dts
