#!/usr/bin/env bash
# The same scenarios on several builds, oldest tree first (default
# build-5.10/, build/ = Linux 6.1, build-6.12/ and build-7.3/, those that
# are built), seed 0, printed as the cross-version table of
# docs/cross-version.md and docs/guide-kernels.md: energy (the board's),
# completion time for finite workloads, wake-up latency p50/p99,
# migrations, time overutilized, EAS on/off, and each tree against the one
# before it (energy and migrations). Extra run options per scenario follow
# a '|' (a feature one tree lacks is a row saying so for that tree). Then,
# for the default scenario, each tree's time at each frequency per
# cluster (the OPPs schedutil chose).
#
#   scripts/experiments/cross-version-runs.sh [BUILD...]
# (needs python3 for the JSON)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/experiments/cross-version-builds.sh
scenarios=(
	"default (odroid-xu3, 24 x 10 %, 10 s)|"
	"same, DELAY_DEQUEUE off|--feature DELAY_DEQUEUE=off"
	"same, PLACE_LAG off|--feature PLACE_LAG=off"
	"odroid-xu3, 8 x 10 % (one task per CPU)|--workload periodic:count=8,period=16ms,duty=10%"
	"hackbench (hikey960, 4 groups, 200 loops)|--board hikey960 --workload hackbench:groups=4,fds=10,loops=200"
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| scenario | tree | EAS | energy | vs the tree before | completion | p50 / p99 wake-up latency | migrations | vs the tree before | overutilized |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
n=0
for scenario in "${scenarios[@]}"; do
	label=${scenario%%|*} first_label=$label
	read -r -a options <<< "${scenario#*|}"
	prev=""
	for b in "${builds[@]}"; do
		n=$((n + 1))
		if "$b/harness/sched-harness" run --json "${options[@]}" > "$work/$n.json" 2> /dev/null; then
			python3 -c '
import json, sys
r = json.load(open(sys.argv[2]))
p = json.load(open(sys.argv[3])) if sys.argv[3] else None
lat, done = r["wakeup_latency_ns"], r["completion_ns"]
completion = "%.1f ms" % (done / 1e6) if done else "-"
def delta(key):
    if not p or not p[key]:
        return ""
    return "%+.0f %% (%s)" % (100 * (r[key] / p[key] - 1), p["kernel"])
print("| %s | %s | %s | %.3f J | %s | %s | %.0f / %.0f us | %d | %s | %.1f %% |" % (
    sys.argv[1], r["kernel"], "on" if r["eas"] else "off", r["energy_j"], delta("energy_j"), completion,
    lat["p50"] / 1e3, lat["p99"] / 1e3, r["migrations"], delta("migrations"),
    100 * r["overutilized_ns"] / r["simulated_ns"]))' "$label" "$work/$n.json" "$prev"
			prev="$work/$n.json"
			[ "$first_label" = "${scenarios[0]%%|*}" ] && cp "$work/$n.json" "$work/default.$b.json"
		else
			echo "| $label | $(basename "$(ls -d "$b"/kernel/linux-source-* 2>/dev/null | head -1)"): option not in this tree | | | | | | | | |"
		fi
		label=""
	done
done

echo
echo "Default scenario: time at each frequency (MHz share of the run), busy share, frequency changes"
echo
echo "| tree | cluster | busy | frequency changes | time at each frequency |"
echo "| --- | --- | --- | --- | --- |"
for b in "${builds[@]}"; do
	[ -f "$work/default.$b.json" ] || continue
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for d in r["domains"]:
    cpus = d["cpus"]
    total = sum(o["ns"] for o in d["opp_residency"]) or 1
    busy = sum(c["busy_ns"] for c in r["cpus"] if c["cpu"] in cpus) / (len(cpus) * r["simulated_ns"])
    shares = sorted(d["opp_residency"], key=lambda o: -o["ns"])
    top = [o for o in shares if o["ns"] / total >= 0.01]
    rest = 1 - sum(o["ns"] for o in top) / total
    text = ", ".join("%d %.0f%%" % (o["khz"] // 1000, 100 * o["ns"] / total) for o in sorted(top, key=lambda o: o["khz"]))
    if rest > 0.0005:
        text += ", others %.1f%%" % (100 * rest)
    print("| %s | %d-%d | %.1f %% | %d | %s |" % (r["kernel"], cpus[0], cpus[-1], 100 * busy, d["frequency_changes"], text))' "$work/default.$b.json"
done
