#!/usr/bin/env bash
# The thermal pressure series (V2, Thara Gopinath, 2019; shared/seeds/000,
# 003), re-run: HiKey960 with the kernel's thermal framework on the board's
# thermal model, cooling on the big cluster only (as the series tested),
# warm (its zone starts at 74 C, just under the 75 C control trip) so that
# the big cluster is throttled throughout; the
# scheduler's view of the thermal pressure chosen by the series' options,
# brought back as a patch (thermal/patches/thermal-pressure-average.patch
# on 6.1, thermal/patches/5.10/ on 5.10: the series of $HARNESS's kernel;
# sched_thermal_avg=off|instant|pelt|N ms); each workload REPEAT times
# (seeds 1..REPEAT). Prints the published table beside ours: run time mean
# and spread, and the change from "no thermal pressure".
#
# Then the maintainer's request in that thread (Ingo Molnar): the
# averaging period swept from 50 to 1000 ms in 50 ms steps with repeats
# and a table — one sched-harness sweep command, printed before it runs.
#
#   scripts/experiments/thermal-pressure.sh [REPEAT] [PERIOD_REPEAT]
#   (default 10 and 5; plots go to $OUT, default build/experiments/thermal-pressure;
#   the harness binary is $HARNESS, default build/harness/sched-harness)
set -euo pipefail
cd "$(dirname "$0")/../.."
harness=${HARNESS:-build/harness/sched-harness}
repeat=${1:-10}
period_repeat=${2:-5}
out=${OUT:-build/experiments/thermal-pressure}
[ -x "$harness" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
mkdir -p "$out"
. scripts/experiments/kernel-series.sh
patch=$(series_patch thermal/patches/thermal-pressure-average.patch) || exit 2
echo "Kernel: $kernel_version ($harness) + $patch"

image=$("$harness" --arch arm64 kernel build --patch "$patch" 2>/dev/null)
# The series' set-up: "cpu cooling was disabled on little core", so that
# only the big cluster is capped: HiKey960's DT without the zone's map to
# the LITTLE CPUs (a wrapper of the tree's DTS; an overlay cannot delete).
tree=$("$harness" kernel info | awk '/^Kernel tree/ { print $3 }')
board="$out/hikey960-big-cooling-only.dts"
cat >"$board" <<EOT
#include "$tree/arch/arm64/boot/dts/hisilicon/hi3660-hikey960.dts"
/* cooling on the big cluster only, as the thermal pressure series tested */
&cls0 { cooling-maps { /delete-node/ map0; }; };
EOT
scenario=(--board "$board" --thermal-model initial=74 --duration 600s)

# name workload published...: the cover letter's run times (seconds) and
# standard deviations (% of the mean) for none, instantaneous, PELT, 500,
# 250, 125 ms
table() {
	local name=$1 workload=$2
	shift 2
	"$harness" sweep --json --kernel "$image" --param avg=off,instant,pelt,500,250,125 \
		--cmdline 'sched_thermal_avg={avg}' "${scenario[@]}" --workload "$workload" \
		--repeat "$repeat" --metric completion_s --plot "$out/$name.svg" |
		scripts/experiments/side_by_side.py "$name, completion time (s)" completion_s \
			"No thermal pressure=$1" "Instantaneous=$2" "PELT average=$3" "non-PELT 500 ms=$4" \
			"non-PELT 250 ms=$5" "non-PELT 125 ms=$6"
}

echo "Thermal pressure on HiKey960, cooling on the big cluster only (kernel image $image: $kernel_version + ${patch##*/})"
table hackbench hackbench:groups=1,loops=30000 \
	10.21:7.99 10.16:5.36 9.88:3.94 9.94:4.59 7.52:5.42 9.87:3.94
table aobench-like fixed-work:threads=8,work=60s \
	141.58:15.85 141.63:15.03 134.48:13.16 133.62:13.00 137.22:15.30 137.55:13.26
table dhrystone-like fixed-work:threads=20,work=500ms \
	1.14:10.04 1.15:9 1.19:11.60 1.09:7.51 1.012:7.02 1.12:9.02

cat <<EOT

The maintainer's request: the averaging period from 50 ms to 1000 ms in 50 ms steps,
with repeats and a table (hackbench); one command:

EOT
cmd=("$harness" sweep --kernel "$image" --param period=50..1000/50 --cmdline 'sched_thermal_avg={period}'
	"${scenario[@]}" --workload hackbench:groups=1,loops=30000 --repeat "$period_repeat"
	--metric completion_s --metric energy_j --plot "$out/period-sweep.svg")
for arg in "${cmd[@]}"; do	# as one would type it
	if [[ $arg =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then printf ' %s' "$arg"; else printf " '%s'" "$arg"; fi
done
printf '\n\n'
"${cmd[@]}"
echo "plots: $out/"
