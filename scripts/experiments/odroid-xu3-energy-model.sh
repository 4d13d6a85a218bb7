#!/usr/bin/env bash
# "Enable Odroid-XU3/4 to use Energy Model and Energy Aware Scheduler"
# (Lukasz Luba, v2, 2020; shared/seeds/004), re-run: "without" is the
# Odroid-XU3 without dynamic-power-coefficient (no energy model, so no EAS)
# on a kernel without SCHED_MC; "with" has both (the exynos5422 DT and
# exynos_defconfig of 5.10 and 6.1 carry the series). The published
# energy is the board's (hwmon rails): here the board's energy comes from
# a board power model whose busy power at each OPP is the energy model the
# DT's coefficients give (the same silicon with and without the property),
# so that "without" is charged for its work too. Prints the published tables beside ours:
# 24 rt-app tasks (16 ms, 10%) energy, and hackbench -l 500 -s 4096
# completion time, REPEAT seeds each.
#
# The kernels are $HARNESS's tree (default build/harness/sched-harness),
# with and without SCHED_MC; no patch.
#
#   scripts/experiments/odroid-xu3-energy-model.sh [REPEAT]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
harness=${HARNESS:-build/harness/sched-harness}
repeat=${1:-10}
[ -x "$harness" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
. scripts/experiments/kernel-series.sh
echo "Kernel: $kernel_version ($harness), SCHED_MC=n and =y"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The two kernels as image directories, so that one sweep parameter names
# each side's kernel and board: SCHED_MC=n, and =y (the build's own config).
image_dir() {	# ID -> its directory, as kernel info names it
	"$harness" --kernel "$1" kernel info | sed -n 's/^Image *[0-9a-f]* (\(.*\)):.*/\1/p'
}
mkdir -p "$tmp/with" "$tmp/without"
ln -s "$(image_dir "$("$harness" --arch arm kernel build --config SCHED_MC=y 2>/dev/null)")" "$tmp/with/image"
ln -s "$(image_dir "$("$harness" --arch arm kernel build --config SCHED_MC=n 2>/dev/null)")" "$tmp/without/image"

# The boards, with and without the coefficient, and the power both are
# charged (odroid_boards.py says how; BOARD_POWER=none: busy power only).
scripts/experiments/odroid_boards.py "$harness" "$tmp"

sweep() {	# workload metric title published-without published-with
	"$harness" sweep --json --param v=without,with --kernel "$tmp/{v}/image" --board "$tmp/{v}/board.dts" \
		--board-power "$tmp/power.json" --workload "$1" --repeat "$repeat" --metric "$2" |
		scripts/experiments/side_by_side.py "$3" "$2" "without=$4" "with=$5"
}

echo "Odroid-XU3: without = no dynamic-power-coefficient, SCHED_MC=n; with = both (EAS on)"
sweep periodic:count=24,period=16ms,duty=10% energy_j "24 rt-app tasks (16 ms, 10%), energy (J)" 21.56:1.37 19.85:0.92
sweep hackbench:groups=10,fds=20,loops=500 completion_s "hackbench -l 500 -s 4096, completion time (s)" \
	8.15:2.86 7.95:0.60
