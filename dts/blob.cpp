// SPDX-License-Identifier: GPL-2.0
#include "dts/blob.h"

#include "dts/platform.h"
#include "dts/tools.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <libfdt.h>

#ifndef SCHED_HARNESS_CPP
#define SCHED_HARNESS_CPP "cpp"
#endif
#ifndef SCHED_HARNESS_DTC
#define SCHED_HARNESS_DTC "dtc"
#endif

namespace sh::dts {

namespace {

std::vector<char> read_file(const std::filesystem::path &file)
{
	std::error_code ec;
	if (!std::filesystem::exists(file, ec))
		throw Error(fmt::format("{}: no such file", file.string()));
	if (std::filesystem::is_directory(file, ec))
		throw Error(fmt::format("{}: is a directory, not a device tree", file.string()));
	std::ifstream in(file, std::ios::binary);
	if (!in)
		throw Error(fmt::format("{}: cannot be read", file.string()));
	return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool has_fdt_magic(const std::vector<char> &bytes)
{
	return bytes.size() >= sizeof(fdt32_t) &&
	       fdt_magic(bytes.data()) == FDT_MAGIC;
}

// The first line of a tool's diagnostics that says what went wrong: cpp
// prints "file:line:col: error: ...", dtc "Error: file:line.col-col ..." or
// "ERROR (check): ...". Warnings are not the reason for a failure.
std::string first_error_line(const std::string &diagnostics)
{
	std::string fallback;
	std::size_t pos = 0;
	while (pos < diagnostics.size()) {
		auto end = diagnostics.find('\n', pos);
		if (end == std::string::npos)
			end = diagnostics.size();
		std::string line = diagnostics.substr(pos, end - pos);
		pos = end + 1;
		if (line.empty())
			continue;
		if (fallback.empty())
			fallback = line;
		if (line.find("error") != std::string::npos ||
		    line.find("Error") != std::string::npos ||
		    line.find("ERROR") != std::string::npos)
			return line;
	}
	return fallback.empty() ? "failed without a message" : fallback;
}

// fdt_overlay_apply() only says FDT_ERR_NOTFOUND: name the label or
// target-path of the overlay that the base lacks, so that the message says
// which node is at fault. `overlay` must be the blob as it was before the
// failed apply, which damages it.
std::string missing_target(const void *base, const void *overlay)
{
	const int symbols = fdt_path_offset(base, "/__symbols__");
	const int fixups = fdt_path_offset(overlay, "/__fixups__");
	if (fixups >= 0) {
		int prop;
		fdt_for_each_property_offset(prop, overlay, fixups) {
			const char *label = nullptr;
			int len = 0;
			const auto *uses = static_cast<const char *>(
				fdt_getprop_by_offset(overlay, prop, &label, &len));
			if (!label || (symbols >= 0 && fdt_getprop(base, symbols, label, nullptr)))
				continue;
			// Each use is "node:property:offset"; the first one says where.
			std::string use = uses && len > 0 ? std::string(uses, strnlen(uses, len)) : "";
			use = use.substr(0, use.rfind(':'));
			if (auto colon = use.rfind(':'); colon != std::string::npos)
				use = fmt::format("{} ({})", use.substr(0, colon), use.substr(colon + 1));
			return fmt::format("label {}, used by {}, is not in the base tree", label, use);
		}
	}
	int fragment;
	fdt_for_each_subnode(fragment, overlay, 0) {
		const auto *path = static_cast<const char *>(fdt_getprop(overlay, fragment,
									  "target-path", nullptr));
		if (path && fdt_path_offset(base, path) < 0)
			return fmt::format("target-path {} of /{} is not in the base tree", path,
					   fdt_get_name(overlay, fragment, nullptr));
	}
	return "";
}

} // namespace

FdtBlob::FdtBlob(std::vector<char> bytes, std::string origin)
	: bytes_(std::move(bytes)), origin_(std::move(origin))
{
}

FdtBlob FdtBlob::load(const std::filesystem::path &file,
		      const std::filesystem::path &kernel_tree)
{
	auto bytes = read_file(file);
	if (!has_fdt_magic(bytes))
		return compile(file, kernel_tree);
	FdtBlob blob(std::move(bytes), file.string());
	blob.check();
	return blob;
}

void FdtBlob::check() const
{
	if (bytes_.size() < sizeof(struct fdt_header))
		throw Error(fmt::format("{}: not a device-tree blob: {} bytes is shorter than its header",
					origin_, bytes_.size()));
	int err = fdt_check_header(bytes_.data());
	if (err == 0 && fdt_totalsize(bytes_.data()) > bytes_.size())
		err = -FDT_ERR_TRUNCATED;
	if (err == 0)
		err = fdt_check_full(bytes_.data(), bytes_.size());
	if (err != 0)
		throw Error(fmt::format("{}: corrupt device-tree blob: {}", origin_,
					fdt_strerror(err)));
}

// Kbuild's cmd_dtc: "$(CPP) -nostdinc -I $(DTC_INCLUDE) -undef -D__DTS__
// -x assembler-with-cpp" then "$(DTC) -b 0 -i $(dir $<) -i $(DTC_INCLUDE)".
// dtc understands cpp's line markers, so its messages name the original
// file and line.
FdtBlob FdtBlob::compile(const std::filesystem::path &source,
			 const std::filesystem::path &kernel_tree)
{
	const auto dir = std::filesystem::absolute(source).parent_path().string();
	const auto prefixes = (kernel_tree / "scripts/dtc/include-prefixes").string();
	TempDir scratch;
	const auto preprocessed = (scratch.path() / "source.dts.tmp").string();
	const auto compiled = (scratch.path() / "blob.dtb").string();

	const std::array cpp{
		std::string(SCHED_HARNESS_CPP), std::string("-nostdinc"),
		"-I" + dir, "-I" + prefixes, "-I" + (kernel_tree / "include").string(),
		std::string("-undef"), std::string("-D__DTS__"),
		std::string("-x"), std::string("assembler-with-cpp"),
		std::string("-o"), preprocessed, source.string(),
	};
	auto pre = run_tool(cpp);
	if (!pre.ok())
		throw Error(fmt::format("{}: preprocessing failed: {}", source.string(),
					first_error_line(pre.err)));

	const std::array dtc{
		std::string(SCHED_HARNESS_DTC), std::string("-q"), std::string("-@"),
		std::string("-I"), std::string("dts"), std::string("-O"), std::string("dtb"),
		std::string("-b"), std::string("0"),
		std::string("-i"), dir, std::string("-i"), prefixes,
		std::string("-o"), compiled, preprocessed,
	};
	auto dtc_run = run_tool(dtc);
	if (!dtc_run.ok())
		throw Error(fmt::format("{}: dtc: {}", source.string(),
					first_error_line(dtc_run.err)));

	FdtBlob blob(read_file(compiled), source.string());
	blob.check();
	return blob;
}

void FdtBlob::apply_overlay(FdtBlob overlay)
{
	// fdt_overlay_apply() grows the base in place: give it room for
	// everything the overlay could add.
	std::vector<char> grown(bytes_.size() + overlay.size() + 4096);
	const std::vector<char> pristine = overlay.bytes_;
	int err = fdt_open_into(bytes_.data(), grown.data(), static_cast<int>(grown.size()));
	if (err == 0)
		err = fdt_overlay_apply(grown.data(), overlay.bytes_.data());
	if (err != 0) {
		std::string hint;
		if (err == -FDT_ERR_NOTFOUND) {
			auto what = missing_target(bytes_.data(), pristine.data());
			if (what.empty())
				what = "a target label or path of the overlay is not in the base tree";
			if (!what.starts_with("target-path"))
				what += "; a base .dtb must be built with dtc -@ for label targets";
			hint = fmt::format(" ({})", what);
		} else if (err == -FDT_ERR_BADOVERLAY) {
			hint = " (not an overlay: compile it with /plugin/)";
		}
		throw Error(fmt::format("{}: overlay does not apply to {}: {}{}", overlay.origin_,
					origin_, fdt_strerror(err), hint));
	}
	fdt_pack(grown.data());
	grown.resize(fdt_totalsize(grown.data()));
	bytes_ = std::move(grown);
}

} // namespace sh::dts
