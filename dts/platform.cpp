// SPDX-License-Identifier: GPL-2.0
#include "dts/platform.h"

#include "dts/blob.h"
#include "dts/dt_view.h"
#include "dts/extract.h"

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

Platform load_platform(const std::filesystem::path &file, const LoadOptions &options)
{
	auto blob = FdtBlob::load(file, options.kernel_tree);
	Platform platform;
	platform.source = file.string();
	for (const auto &overlay : options.overlays) {
		blob.apply_overlay(FdtBlob::load(overlay, options.kernel_tree));
		platform.overlays.push_back(overlay.string());
	}

	DtView dt(blob);
	platform.model = dt.string(dt.root(), "model").value_or("");
	platform.compatible = dt.strings(dt.root(), "compatible");
	read_cpus(dt, platform);
	read_thermal_zones(dt, platform);
	find_missing_facts(platform);
	platform.dtb.assign(static_cast<const char *>(blob.data()),
			    static_cast<const char *>(blob.data()) + blob.size());
	return platform;
}

} // namespace sh::dts
