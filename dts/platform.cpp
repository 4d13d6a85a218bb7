// SPDX-License-Identifier: GPL-2.0
#include "dts/platform.h"

#include "dts/blob.h"
#include "dts/dt_view.h"
#include "dts/extract.h"

#include <fmt/format.h>

namespace sh::dts {

std::string_view to_string(TripType type)
{
	switch (type) {
	case TripType::active:
		return "active";
	case TripType::passive:
		return "passive";
	case TripType::hot:
		return "hot";
	case TripType::critical:
		return "critical";
	}
	return "?";
}

std::string_view to_string(OppBinding binding)
{
	return binding == OppBinding::v2 ? "operating-points-v2" : "operating-points";
}

std::string_view to_string(Arch arch)
{
	return arch == Arch::arm ? "arm" : "arm64";
}

namespace {

// The folder a board's source sits in says its architecture
// (arch/arm/boot/dts or arch/arm64/boot/dts); a file elsewhere is judged by
// its CPUs: cores that exist only as 32-bit ARMv7 (and older) are arm.
void decide_arch(Platform &platform)
{
	if (const auto arch = arch_of_source(platform.source)) {
		platform.arch = *arch;
		platform.arch_reason = fmt::format("its source is under arch/{}/", to_string(*arch));
		return;
	}
	static constexpr std::string_view armv7_cores[] = {
		"arm,cortex-a5", "arm,cortex-a7", "arm,cortex-a8", "arm,cortex-a9", "arm,cortex-a12",
		"arm,cortex-a15", "arm,cortex-a17", "arm,arm11mpcore", "marvell,pj4b", "qcom,krait",
		"qcom,scorpion", "brcm,brahma-b15"};
	bool all_armv7 = !platform.cpus.empty();
	for (const auto &cpu : platform.cpus) {
		bool v7 = false;
		for (const auto &c : cpu.compatible)
			for (auto core : armv7_cores)
				v7 = v7 || c == core;
		all_armv7 = all_armv7 && v7;
	}
	platform.arch = all_armv7 ? Arch::arm : Arch::arm64;
	platform.arch_reason = all_armv7 ? "its CPUs are 32-bit only (ARMv7)" : "its CPUs are not all 32-bit only";
}

} // namespace

std::optional<Arch> arch_of_source(const std::filesystem::path &file)
{
	const auto path = std::filesystem::absolute(file).lexically_normal().generic_string();
	if (path.find("/arch/arm/") != std::string::npos)
		return Arch::arm;
	if (path.find("/arch/arm64/") != std::string::npos)
		return Arch::arm64;
	return std::nullopt;
}

Platform load_platform(const std::filesystem::path &file, const LoadOptions &options)
{
	auto blob = FdtBlob::load(file, options.kernel_tree);
	for (const auto &overlay : options.overlays)
		blob.apply_overlay(FdtBlob::load(overlay, options.kernel_tree));
	Platform platform = extract_platform(blob, file.string());
	for (const auto &overlay : options.overlays)
		platform.overlays.push_back(overlay.string());
	return platform;
}

Platform extract_platform(const FdtBlob &blob, const std::string &source)
{
	Platform platform;
	platform.source = source;
	DtView dt(blob);
	platform.model = dt.string(dt.root(), "model").value_or("");
	platform.compatible = dt.strings(dt.root(), "compatible");
	read_cpus(dt, platform);
	read_thermal_zones(dt, platform);
	find_missing_facts(platform);
	decide_arch(platform);
	platform.dtb.assign(static_cast<const char *>(blob.data()),
			    static_cast<const char *>(blob.data()) + blob.size());
	return platform;
}

} // namespace sh::dts
