// SPDX-License-Identifier: GPL-2.0
//
// /thermal-zones as drivers/thermal/thermal_of.c reads it: polling delays,
// sensors, trips and cooling maps. A zone the kernel would refuse to
// register (a trip without temperature, an unknown trip type, a dangling
// phandle) is an error here rather than a zone that silently is not there.
#include "dts/dt_view.h"
#include "dts/extract.h"
#include "dts/platform.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <map>

namespace sh::dts {

namespace {

constexpr std::uint32_t thermal_no_limit = 0xffffffffu;

TripType trip_type(const DtView &dt, int node)
{
	auto type = dt.string(node, "type");
	if (!type)
		throw dt.error(node, "trip has no type");
	// thermal_of_get_trip_type() compares with strcasecmp().
	auto is = [&](std::string_view name) {
		return std::ranges::equal(*type, name, [](char a, char b) {
			return std::tolower(static_cast<unsigned char>(a)) == b;
		});
	};
	if (is("active"))
		return TripType::active;
	if (is("passive"))
		return TripType::passive;
	if (is("hot"))
		return TripType::hot;
	if (is("critical"))
		return TripType::critical;
	throw dt.error(node, fmt::format("unknown trip type \"{}\" "
					 "(active, passive, hot or critical)", *type));
}

std::optional<std::uint32_t> state_limit(std::uint32_t cell)
{
	if (cell == thermal_no_limit)
		return std::nullopt;
	return cell;
}

ThermalZone read_zone(const DtView &dt, int zone_node, const std::map<std::string, unsigned> &cpu_by_path)
{
	ThermalZone zone;
	zone.name = dt.name(zone_node);
	zone.node_path = dt.path(zone_node);
	zone.polling_delay_ms = dt.u32(zone_node, "polling-delay").value_or(0);
	zone.polling_delay_passive_ms = dt.u32(zone_node, "polling-delay-passive").value_or(0);
	zone.sustainable_power_mw = dt.u32(zone_node, "sustainable-power");
	for (auto &sensor : dt.phandles_with_args(zone_node, "thermal-sensors", "#thermal-sensor-cells"))
		zone.sensors.push_back(ThermalSensor{dt.path(sensor.node), std::move(sensor.args)});

	std::vector<int> trip_nodes;
	if (auto trips = dt.child(zone_node, "trips")) {
		for (int node : dt.children(*trips)) {
			Trip trip;
			trip.name = dt.name(node);
			trip.node_path = dt.path(node);
			auto temperature = dt.s32(node, "temperature");
			if (!temperature)
				throw dt.error(node, "trip has no temperature");
			trip.temperature_mc = *temperature;
			// Required too: thermal_of_populate_trip() fails the zone
			// without it.
			auto hysteresis = dt.u32(node, "hysteresis");
			if (!hysteresis)
				throw dt.error(node, "trip has no hysteresis");
			trip.hysteresis_mc = *hysteresis;
			trip.type = trip_type(dt, node);
			zone.trips.push_back(std::move(trip));
			trip_nodes.push_back(node);
		}
	}

	if (auto maps = dt.child(zone_node, "cooling-maps")) {
		for (int node : dt.children(*maps)) {
			CoolingMap map;
			map.name = dt.name(node);
			map.contribution = dt.u32(node, "contribution");
			auto trip = dt.phandles(node, "trip");
			if (!trip.empty()) {
				auto at = std::find(trip_nodes.begin(), trip_nodes.end(), trip.front());
				if (at == trip_nodes.end())
					throw dt.error(node, fmt::format("trip points at {}, which is not a "
									 "trip of this zone",
									 dt.path(trip.front())));
				map.trip = static_cast<std::size_t>(at - trip_nodes.begin());
			}
			for (auto &dev : dt.phandles_with_args(node, "cooling-device", "#cooling-cells")) {
				CoolingDevice cooling;
				cooling.node_path = dt.path(dev.node);
				if (auto cpu = cpu_by_path.find(cooling.node_path); cpu != cpu_by_path.end())
					cooling.cpu = cpu->second;
				if (dev.args.size() >= 2) {
					cooling.min_state = state_limit(dev.args[0]);
					cooling.max_state = state_limit(dev.args[1]);
				}
				map.devices.push_back(std::move(cooling));
			}
			zone.cooling_maps.push_back(std::move(map));
		}
	}
	return zone;
}

} // namespace

void read_thermal_zones(const DtView &dt, Platform &platform)
{
	// thermal_of.c looks the container up by name, wherever it sits
	// (hi3660 has it under /soc).
	auto zones = dt.find_by_name("thermal-zones");
	if (!zones)
		return;
	std::map<std::string, unsigned> cpu_by_path;
	for (const auto &cpu : platform.cpus)
		cpu_by_path[cpu.node_path] = cpu.id;
	for (int node : dt.children(*zones)) {
		if (!dt.available(node))
			continue;
		platform.thermal_zones.push_back(read_zone(dt, node, cpu_by_path));
	}
}

} // namespace sh::dts
