#!/usr/bin/env bash
# "TurboSched: A scheduler for sustaining Turbo Frequencies for longer
# durations" (Parth Shah, RFC v4, 2019; shared/seeds/002), re-run on a
# synthetic SMT server: 8 cores x SMT4 (turbosched/server-board.sh), a 10 W
# package budget that holds 3.8 GHz with at most 4 active cores and 2.4 GHz
# with all 8, SMT threads that slow each other (turbosched/server-power.json:
# assumed figures, see there). The kernel is $HARNESS's (default
# build/harness/sched-harness) with the series' idea ported: 6.1 with
# sched/patches/turbosched.patch, 5.10 with sched/patches/5.10/turbosched.patch;
# "off" is the same image with sched_feat TURBO_SCHED off, i.e. the
# tree's own wake-up path.
#
# The workload is the turbo-jitter built-in (turbo_bench's shape: BUSY
# CPU-bound tasks and JITTER periodic ones, jitter_run every 16 ms, woken
# together), its jitter tasks classified through sched_setattr()
# (jitter_flags=128: SCHED_FLAG_TASK_PACKING). For N = 2, 4, 6, 8 busy and
# N jitter tasks, REPEAT seeds each: the CPU-bound tasks' throughput with
# and without packing (published: up to +13%), with the built-in's 200 us
# jitter and with 2 ms (12.5%: the thread's "10-20% utilization" jitter),
# and again with SMT threads that do not slow each other (the model's
# sensitivity); then the jitter tasks' wake-up latency percentiles with 8
# busy + 8 and + 40 jitter tasks (the thread's Test-2 and Test-1).
#
#   scripts/experiments/turbosched.sh [REPEAT]   (default 10 runs of 10 s per point; ~1 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
harness=${HARNESS:-build/harness/sched-harness}
repeat=${1:-10}
duration=${DURATION:-10s}
[ -x "$harness" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
. scripts/experiments/kernel-series.sh
patch=$(series_patch sched/patches/turbosched.patch) || exit 2
echo "Kernel: $kernel_version ($harness) + $patch"
here=scripts/experiments/turbosched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

image=$("$harness" --arch arm64 kernel build --patch "$patch" 2>/dev/null)
# A tree whose arch_topology.c knows no socket nodes (5.10) gets the cpu-map
# without one, else it would drop the map and with it the SMT threads.
tree=$("$harness" kernel info | awk '/^Kernel tree/ { print $3 }')
socket=1
grep -q '"socket%d"' "$tree/drivers/base/arch_topology.c" || socket=0
SOCKET=$socket "$here/server-board.sh" 8 4 >"$tmp/server.dts"
cp "$here/server-power.json" "$tmp/smt.json"
sed 's/"smt_speed": \[[^]]*\]/"smt_speed": [1]/' "$here/server-power.json" >"$tmp/nosmt.json"

mkdir -p "$tmp/runs"
points=()
for n in 2 4 6 8; do
	for run in 200 2000; do
		for smt in smt nosmt; do points+=("$smt $n $n $run"); done
	done
done
points+=("smt 8 40 200")
for point in "${points[@]}"; do
	for variant in off on; do
		for ((seed = 1; seed <= repeat; seed++)); do
			echo "$point $variant $seed"
		done
	done
done | xargs -P "$(nproc)" -L 1 bash -c '
	harness=$0 image=$1 tmp=$2 duration=$3 smt=$4 busy=$5 jitter=$6 run=$7 variant=$8 seed=$9
	"$harness" run --json --kernel "$image" --board "$tmp/server.dts" --board-power "$tmp/$smt.json" \
		--workload "turbo-jitter:busy=$busy,jitter=$jitter,jitter_run=${run}us,jitter_flags=128" \
		--duration "$duration" --seed "$seed" --feature TURBO_SCHED="$variant" \
		>"$tmp/runs/$smt-$busy-$jitter-$run-$variant-$seed.json"' \
	"$harness" "$image" "$tmp" "$duration"

echo "TurboSched on a synthetic 8-core SMT4 server with a 10 W package budget ($repeat runs of $duration per point)"
"$here/summarize.py" "$tmp/runs" "$kernel_series"
