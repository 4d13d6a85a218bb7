// SPDX-License-Identifier: GPL-2.0
//
// The readers that turn a validated tree into a Platform, one per binding
// family, in the order load_platform() runs them.
#pragma once

#include <string>

namespace sh::dts {

class DtView;
class FdtBlob;
struct Platform;

// Every reader below over a validated blob (overlays applied) that came
// from `source` (whose folder may decide the architecture): what
// load_platform() returns but for the overlays' names. Throws Error.
Platform extract_platform(const FdtBlob &blob, const std::string &source);

// /cpus: CPU nodes, cpu-map, OPP tables, idle states, frequency domains.
void read_cpus(const DtView &dt, Platform &platform);
// /thermal-zones: sensors, trips, cooling maps. Needs the CPUs read first.
void read_thermal_zones(const DtView &dt, Platform &platform);
// Facts the later stages need that the tree lacks. Runs last.
void find_missing_facts(Platform &platform);

} // namespace sh::dts
