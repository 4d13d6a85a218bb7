#!/usr/bin/env bash
# The same scenarios on several builds (default build/ = Linux 6.1,
# build-6.12/ and build-7.3/, those that exist), seed 0, printed as the cross-version table of docs/guide-kernels.md:
# energy (the kernel's EM x busy time), completion time for finite
# workloads, wake-up latency p50/p99, migrations, time overutilized.
# Extra run options per scenario follow a '|' (a feature one tree lacks is
# shown as "-" for that tree).
#
#   scripts/experiments/cross-version-runs.sh [BUILD...]
# (needs python3 for the JSON)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -gt 0 ]; then
	builds=("$@")
else
	builds=()
	for b in build build-6.12 build-7.3; do
		[ -x "$b/harness/sched-harness" ] && builds+=("$b")
	done
fi
scenarios=(
	"default (odroid-xu3, 24 x 10 %, 10 s)|"
	"same, DELAY_DEQUEUE off|--feature DELAY_DEQUEUE=off"
	"same, PLACE_LAG off|--feature PLACE_LAG=off"
	"odroid-xu3, 8 x 10 % (one task per CPU)|--workload periodic:count=8,period=16ms,duty=10%"
	"hackbench (hikey960, 4 groups, 200 loops)|--board hikey960 --workload hackbench:groups=4,fds=10,loops=200"
)

echo "| scenario | tree | energy | completion | p50 / p99 wake-up latency | migrations | overutilized |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for scenario in "${scenarios[@]}"; do
	label=${scenario%%|*}
	read -r -a options <<< "${scenario#*|}"
	for b in "${builds[@]}"; do
		if json=$("$b/harness/sched-harness" run --json "${options[@]}" 2> /dev/null); then
			python3 -c '
import json, sys
r = json.loads(sys.argv[2])
lat, done = r["wakeup_latency_ns"], r["completion_ns"]
completion = "%.1f ms" % (done / 1e6) if done else "-"
print("| %s | %s | %.3f J | %s | %.0f / %.0f us | %d | %.1f %% |" % (
    sys.argv[1], r["kernel"], r["energy_j"], completion, lat["p50"] / 1e3, lat["p99"] / 1e3,
    r["migrations"], 100 * r["overutilized_ns"] / r["simulated_ns"]))' "$label" "$json"
		else
			echo "| $label | (option not in $b's tree) | | | | | |"
		fi
		label=""
	done
done
