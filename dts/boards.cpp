// SPDX-License-Identifier: GPL-2.0
//
// Short names for the boards scheduler developers test on, resolved to
// files of the kernel tree the build uses. Paths are listed for each tree
// layout: 32-bit ARM device trees moved into vendor folders in 6.5.
#include "dts/platform.h"

#include <array>
#include <fmt/format.h>

namespace sh::dts {

namespace {

using namespace std::string_view_literals;

constexpr std::array odroid_xu3{"arch/arm/boot/dts/exynos5422-odroidxu3.dts"sv,
				"arch/arm/boot/dts/samsung/exynos5422-odroidxu3.dts"sv};
constexpr std::array odroid_xu4{"arch/arm/boot/dts/exynos5422-odroidxu4.dts"sv,
				"arch/arm/boot/dts/samsung/exynos5422-odroidxu4.dts"sv};
constexpr std::array hikey960{"arch/arm64/boot/dts/hisilicon/hi3660-hikey960.dts"sv};
constexpr std::array hikey970{"arch/arm64/boot/dts/hisilicon/hi3670-hikey970.dts"sv};
constexpr std::array hikey{"arch/arm64/boot/dts/hisilicon/hi6220-hikey.dts"sv};
constexpr std::array juno{"arch/arm64/boot/dts/arm/juno.dts"sv};
constexpr std::array juno_r2{"arch/arm64/boot/dts/arm/juno-r2.dts"sv};
constexpr std::array juno_r2_scmi{"arch/arm64/boot/dts/arm/juno-r2-scmi.dts"sv};
constexpr std::array rk3399{"arch/arm64/boot/dts/rockchip/rk3399-firefly.dts"sv};
constexpr std::array db845c{"arch/arm64/boot/dts/qcom/sdm845-db845c.dts"sv};
constexpr std::array rb5{"arch/arm64/boot/dts/qcom/qrb5165-rb5.dts"sv};
constexpr std::array mt8183{"arch/arm64/boot/dts/mediatek/mt8183-evb.dts"sv};

constexpr std::array boards{
	Board{"odroid-xu3", "Hardkernel Odroid-XU3, Exynos5422: 4x Cortex-A7 + 4x Cortex-A15", odroid_xu3},
	Board{"odroid-xu4", "Hardkernel Odroid-XU4, Exynos5422: 4x Cortex-A7 + 4x Cortex-A15", odroid_xu4},
	Board{"hikey960", "HiKey960, Kirin 960 (hi3660): 4x Cortex-A53 + 4x Cortex-A73", hikey960},
	Board{"hikey970", "HiKey970, Kirin 970 (hi3670): 4x Cortex-A53 + 4x Cortex-A73", hikey970},
	Board{"hikey", "HiKey, Kirin 620 (hi6220): 8x Cortex-A53", hikey},
	Board{"juno", "Arm Juno r0: 4x Cortex-A53 + 2x Cortex-A57, DVFS by SCPI firmware", juno},
	Board{"juno-r2", "Arm Juno r2: 4x Cortex-A53 + 2x Cortex-A72, DVFS by SCPI firmware", juno_r2},
	Board{"juno-r2-scmi", "Arm Juno r2 with SCMI firmware: DVFS by the SCMI perf protocol", juno_r2_scmi},
	Board{"rk3399", "Firefly-RK3399: 4x Cortex-A53 + 2x Cortex-A72", rk3399},
	Board{"db845c", "Qualcomm Dragonboard 845c, SDM845: 4x Kryo 385 Silver + 4x Gold, qcom-cpufreq-hw", db845c},
	Board{"rb5", "Qualcomm Robotics RB5, QRB5165: 4x Kryo 585 Silver + 3x Gold + 1x Prime, qcom-cpufreq-hw", rb5},
	Board{"mt8183", "MediaTek MT8183 EVB: 4x Cortex-A53 + 4x Cortex-A73", mt8183},
};

} // namespace

std::span<const Board> known_boards()
{
	return boards;
}

std::optional<std::filesystem::path> board_path(const Board &board,
						const std::filesystem::path &kernel_tree)
{
	for (auto rel : board.candidates) {
		auto path = kernel_tree / rel;
		std::error_code ec;
		if (std::filesystem::is_regular_file(path, ec))
			return path;
	}
	return std::nullopt;
}

std::filesystem::path resolve_board(std::string_view name_or_path,
				    const std::filesystem::path &kernel_tree)
{
	for (const auto &board : boards) {
		if (board.name != name_or_path)
			continue;
		if (auto path = board_path(board, kernel_tree))
			return *path;
		throw Error(fmt::format("board {}: the kernel tree {} has none of its files ({})",
					board.name, kernel_tree.string(),
					fmt::join(board.candidates, ", ")));
	}
	std::filesystem::path path(name_or_path);
	std::error_code ec;
	if (std::filesystem::exists(path, ec) || path.has_parent_path() ||
	    path.has_extension())
		return path;
	std::vector<std::string_view> names;
	for (const auto &board : boards)
		names.push_back(board.name);
	throw Error(fmt::format("{}: no such file, and not a known board ({})", name_or_path,
				fmt::join(names, ", ")));
}

} // namespace sh::dts
