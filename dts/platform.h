// SPDX-License-Identifier: GPL-2.0
//
// A board, as its device tree describes it: the raw facts the kernel reads at
// boot to build CPU capacities, cpufreq policies, the energy model, idle
// states and thermal zones. Nothing here is computed the way the kernel
// would compute it (no capacity normalisation, no EM table): later stages
// hand these facts to the kernel's own code.
//
// The public surface of dts/ is this header:
//   load_platform()  .dts/.dtb (+ overlays) -> Platform
//   known_boards(), resolve_board()  short names -> files of the kernel tree
//   dts::Error  every bad input, naming the file and the DT node
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sh::dts {

// Bad input: the message is complete and names the file and node (or dtc's
// file:line), ready to print on one line.
class Error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// One entry of an OPP table, after the kernel's filtering (disabled entries
// and entries gated by opp-supported-hw are not here; see OppTable).
struct Opp {
	std::string node_path;
	std::uint64_t hz = 0;
	// opp-microvolt: one value, or <target min max>; empty when absent.
	std::vector<std::uint32_t> microvolt;
	// opp-microwatt, summed over the supplies (dev_pm_opp_get_power()): the
	// power the EM takes instead of dynamic-power-coefficient; 0 if absent.
	std::uint64_t microwatt = 0;
	bool turbo = false;	     // turbo-mode
	bool suspend = false;	     // opp-suspend
	std::optional<std::uint64_t> clock_latency_ns;

	std::optional<std::uint32_t> target_microvolt() const
	{
		if (microvolt.empty())
			return std::nullopt;
		return microvolt.front();
	}
};

enum class OppBinding {
	v2,	 // operating-points-v2 -> table node
	legacy,	 // operating-points = <kHz uV>... on the CPU node
};

struct OppTable {
	std::string node_path;	// the table node (legacy: the first CPU node using it)
	OppBinding binding = OppBinding::v2;
	bool shared = false;	// opp-shared: every CPU using it is in one frequency domain
	std::vector<Opp> opps;	// ascending frequency, as the OPP core keeps them
	unsigned skipped_disabled = 0;	      // status = "disabled"
	unsigned skipped_supported_hw = 0;    // opp-supported-hw: needs the SoC driver's version mask
	unsigned skipped_regulator = 0;	      // a voltage the CPU's regulator cannot supply
};

// An idle state node referenced by a CPU's cpu-idle-states.
struct IdleState {
	std::string node_path;
	std::string name;	// node name, as cpuidle-arm names its states
	std::vector<std::string> compatible;
	std::uint32_t entry_latency_us = 0;
	std::uint32_t exit_latency_us = 0;
	std::uint32_t min_residency_us = 0;
	std::optional<std::uint32_t> wakeup_latency_us;
	bool local_timer_stop = false;
};

// Where a CPU sits in /cpus/cpu-map: socketN / clusterN[/clusterM...] / coreN [/threadN].
struct CpuMapPosition {
	std::string node_path;		// the core or thread node that names the CPU
	std::optional<unsigned> socket;
	std::vector<unsigned> clusters; // outermost first; nested clusters give several
	unsigned core = 0;
	std::optional<unsigned> thread;
};

// A fact that the device tree does not hold because firmware or a driver
// provides it on the real board.
struct FirmwareProvider {
	std::string kind;	     // "qcom-cpufreq-hw", "scmi", "scpi"
	std::string provider_path;   // node the CPU points at
	std::uint32_t domain = 0;    // index in the provider
};

struct Cpu {
	unsigned id = 0;		// logical CPU number, as the kernel numbers it
	std::string node_path;
	std::vector<std::uint64_t> reg; // hardware id cells (MPIDR on arm/arm64)
	std::vector<std::string> compatible;
	std::optional<std::uint32_t> capacity_dmips_mhz;
	std::optional<std::uint32_t> dynamic_power_coefficient;
	std::optional<std::uint32_t> cooling_cells;
	std::optional<std::uint64_t> clock_frequency;
	std::optional<CpuMapPosition> cpu_map;
	std::optional<std::size_t> opp_table;	 // index into Platform::opp_tables
	std::vector<std::size_t> idle_states;	 // indices into Platform::idle_states
	std::optional<FirmwareProvider> firmware_dvfs;
};

// CPUs that change frequency together: one cpufreq policy on the board.
struct FrequencyDomain {
	std::vector<unsigned> cpus;
	std::optional<std::size_t> opp_table;
	std::string why;	// "opp-shared", "one CPU", "qcom-cpufreq-hw domain 0", ...
	// The cpufreq driver can switch from scheduler context (->fast_switch):
	// qcom-cpufreq-hw and scmi-cpufreq can; cpufreq-dt (every board whose
	// OPPs are in the DT) and scpi-cpufreq cannot, so schedutil switches
	// through its sugov kthread.
	bool fast_switch = false;
};

enum class TripType { active, passive, hot, critical };

struct Trip {
	std::string name;	// node name
	std::string node_path;
	std::int32_t temperature_mc = 0;	// millicelsius
	std::uint32_t hysteresis_mc = 0;
	TripType type = TripType::passive;
};

struct CoolingDevice {
	std::string node_path;
	std::optional<unsigned> cpu;	// when the device is a CPU node
	// Cooling state range; nullopt is THERMAL_NO_LIMIT.
	std::optional<std::uint32_t> min_state;
	std::optional<std::uint32_t> max_state;
};

struct CoolingMap {
	std::string name;
	std::optional<std::size_t> trip;	// index into ThermalZone::trips
	std::vector<CoolingDevice> devices;
	std::optional<std::uint32_t> contribution;
};

struct ThermalSensor {
	std::string node_path;
	std::vector<std::uint32_t> args;
};

struct ThermalZone {
	std::string name;
	std::string node_path;
	std::uint32_t polling_delay_ms = 0;
	std::uint32_t polling_delay_passive_ms = 0;
	std::vector<ThermalSensor> sensors;
	std::optional<std::uint32_t> sustainable_power_mw;
	std::vector<Trip> trips;
	std::vector<CoolingMap> cooling_maps;
};

// Something a later stage needs and this DT does not say, with where it
// comes from on the real board and how to supply it here.
struct MissingFact {
	std::vector<unsigned> cpus;
	std::string what;
	std::string where;
};

// The kernel architecture a board runs: it decides which kernel flavour
// boots it (32-bit arm's topology and defconfig differ from arm64's).
enum class Arch { arm64, arm };

struct Platform {
	std::string source;		// file the board was read from
	std::vector<std::string> overlays;
	Arch arch = Arch::arm64;
	std::string arch_reason;	// how arch was told: its folder in the tree, or its CPUs
	std::string model;
	std::vector<std::string> compatible;
	std::vector<Cpu> cpus;		// index == logical id
	std::vector<OppTable> opp_tables;
	std::vector<IdleState> idle_states;
	std::vector<FrequencyDomain> frequency_domains;
	std::vector<ThermalZone> thermal_zones;
	std::vector<MissingFact> missing;
	// The flattened tree the facts were read from, overlays applied: what
	// the kernel's of_* API sees when the board boots.
	std::vector<char> dtb;
};

std::string_view to_string(TripType type);
std::string_view to_string(OppBinding binding);
std::string_view to_string(Arch arch);

struct LoadOptions {
	// Tree whose include/ and scripts/dtc/include-prefixes a .dts may use.
	std::filesystem::path kernel_tree;
	// Applied in order with fdt_overlay_apply(); .dtso sources or .dtbo blobs.
	std::vector<std::filesystem::path> overlays;
};

// The architecture the folder of a board's source says (arch/arm/boot/dts
// or arch/arm64/boot/dts), or nullopt for a file elsewhere.
std::optional<Arch> arch_of_source(const std::filesystem::path &file);

// Reads a .dts (preprocessed and compiled as Kbuild does) or a .dtb,
// validates it, applies the overlays and extracts the Platform.
// Throws Error on any bad input.
Platform load_platform(const std::filesystem::path &file, const LoadOptions &options);

// Short names for boards of the kernel tree ("odroid-xu3", "hikey960", ...).
struct Board {
	std::string_view name;
	std::string_view description;
	// Paths relative to the tree, tried in order: the layout moved between
	// releases (arch/arm/boot/dts/samsung/ since 6.5).
	std::span<const std::string_view> candidates;
};

std::span<const Board> known_boards();

// Path of a known board's .dts in the tree, or nullopt when the tree has none.
std::optional<std::filesystem::path> board_path(const Board &board,
						const std::filesystem::path &kernel_tree);

// A short name, or a path to a .dts/.dtb. Throws Error for an unknown name.
std::filesystem::path resolve_board(std::string_view name_or_path,
				    const std::filesystem::path &kernel_tree);

} // namespace sh::dts
