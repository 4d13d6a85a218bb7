#!/usr/bin/env bash
# "feec() energy margin removal" (Vincent Donnefort, v10, 2022; shared/seeds/
# 001, 002), re-run: 6.1 contains the removal; the "before" kernel is 6.1
# with the 6% margin put back (sched/patches/feec-energy-margin.patch, an
# image). The cover letter reports LISA's eas_behaviour at 100% on
# HiKey960, DB-845C and RB5 and PCMark2 energy -0.4 ... -5.6% on a Pixel 4.
# Here: the eas_behaviour-shaped suite (scripts/experiments/eas-behaviour/)
# through `check` under both kernels, and energy, migrations and wake-up
# latency of many small tasks (the series' motivating case: the default
# 24 x 10% scenario) and of LISA's two-big-three-small on the EAS boards,
# REPEAT seeds each, before beside after.
#
# The kernel is $HARNESS's (default build/harness/sched-harness). On 5.10,
# which still has the margin, before is 5.10 as released and after is 5.10
# with the removal's rule in place of the margin (scripts/experiments/
# cross-version-5.10-no-margin.patch: v6.0's "best_delta < prev_delta",
# nothing else of the series); other trees have no such pair and stop.
#
#   scripts/experiments/feec-energy-margin.sh [REPEAT]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
harness=${HARNESS:-build/harness/sched-harness}
repeat=${1:-10}
[ -x "$harness" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
. scripts/experiments/kernel-series.sh

# The two kernels, "default" being the build's own.
case $kernel_series in
6.1)
	patch=sched/patches/feec-energy-margin.patch
	echo "Kernel: $kernel_version ($harness) + $patch (before) and as released (after)"
	before=$("$harness" kernel build --patch "$patch" 2>/dev/null)
	after=default
	title="before = $kernel_version + the margin (image $before), after = $kernel_version as released" ;;
5.10)
	patch=scripts/experiments/cross-version-5.10-no-margin.patch
	echo "Kernel: $kernel_version ($harness) as released (before) and + $patch (after)"
	before=default
	after=$("$harness" kernel build --patch "$patch" 2>/dev/null)
	title="before = $kernel_version as released (its 6% margin), after = $kernel_version + the removal's rule (image $after)" ;;
*)
	echo "$0: $harness runs $kernel_version: the experiment is defined on 6.1 (which removed the margin) and on 5.10 (which has it); no margin patch for $kernel_series" >&2
	exit 2 ;;
esac
suite=scripts/experiments/eas-behaviour/suite.json
echo "feec() energy margin: $title"

passes() {	# [--kernel ID]: "passed/total" scenarios of the suite
	local out
	out=$("$harness" "$@" check "$suite" 2>&1 || true)
	echo "$(grep -c '^ok ' <<<"$out")/$(grep -cE '^(not )?ok ' <<<"$out") $(grep '^not ok ' <<<"$out" | sed 's/^not ok [0-9]* //' | tr '\n' ' ')"
}
read -r b_pass b_failed <<<"$(passes --kernel "$before")"
read -r a_pass a_failed <<<"$(passes --kernel "$after")"
printf '\nLISA eas_behaviour (published: 100%% passed after the removal on HiKey960, DB-845C, RB5)\n'
printf '  %-8s %s scenarios passed%s\n' before "$b_pass" "${b_failed:+; failed: $b_failed}"
printf '  %-8s %s scenarios passed%s\n' after "$a_pass" "${a_failed:+; failed: $a_failed}"

printf '\nEnergy (published: PCMark2 on a Pixel 4, the Energy Model'"'"'s estimate: Web2 -1.8%%, Video2 -5.6%%,\n'
printf 'Photo2 -1%%, Writing2 -1%%, Data2 -0.43%%; performance 0 ... -3.8%%), after against before:\n'
# the sign ours is compared with (trees.py): the mean of the five PCMark2
# figures of the energy model's estimate, another workload than ours
published_em=-1.97
printf '  %-50s %-17s %20s %20s %9s %7s\n' scenario metric "before mean (RSD)" "after mean (RSD)" delta p
for board in odroid-xu3 hikey960; do
	for workload in periodic:count=24,period=16ms,duty=10% scripts/experiments/eas-behaviour/two-big-three-small.json; do
		"$harness" sweep --json --param "k=$before,$after" --kernel '{k}' --board "$board" --workload "$workload" \
			--duration 5s --repeat "$repeat" --metric energy_j --metric em_energy_j --metric migrations \
			--metric latency_p99_us |
			scripts/experiments/before_after.py "$board: ${workload##*/}" "em_energy_j=$published_em"
	done
done
