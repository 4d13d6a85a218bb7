#!/usr/bin/env bash
# The thermal pressure series' experiment, in its shape: HiKey960 with the
# kernel's thermal framework on the board's thermal model, the board warm
# (its zone starts at 74 C, just under the 75 C control trip) so that the
# runs are throttled throughout; sched_thermal_decay_shift 0..4 (how slowly
# the scheduler's rq->avg_thermal follows the cap); a hackbench (1 group,
# the series' 30000 loops) and a dhrystone-like fixed work (20 threads).
# Prints completion time and board energy, mean and sd over REPEAT seeds.
#
# The kernel is $HARNESS's own (default build/harness/sched-harness):
# sched_thermal_decay_shift came in 5.7 (no patch needed) and went in 6.9
# (the shift of the thermal clock removed: 6.9's fair.c warns that it
# ignores the option), so a tree from 6.9 on has nothing to sweep and
# stops saying so.
#
#   scripts/experiments/thermal-decay-shift.sh [REPEAT] [GOVERNOR]
set -euo pipefail
cd "$(dirname "$0")/../.."
harness=${HARNESS:-build/harness/sched-harness}
repeat=${1:-3}
governor=${2:-step_wise}
[ -x "$harness" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
. scripts/experiments/kernel-series.sh
echo "Kernel: $kernel_version ($harness)"
if [ "$(printf '%s\n' "$kernel_series" 6.9 | sort -V | head -1)" = 6.9 ]; then
	echo "$0: $kernel_version ignores sched_thermal_decay_shift= (deprecated in 6.9: setup_sched_thermal_decay_shift() in kernel/sched/fair.c warns and ignores it): nothing to sweep" >&2
	exit 2
fi

run() {	# shift workload seed -> "completion_s energy_j"
	"$harness" run --json --board hikey960 --workload "$2" --duration 600s --seed "$3" \
		--thermal-model initial=74 --thermal-governor "$governor" \
		--cmdline "sched_thermal_decay_shift=$1" |
		python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["completion_ns"] / 1e9, r["energy_j"])'
}

printf "HiKey960, thermal model from 74 C, %s, %s seeds each\n\n" "$governor" "$repeat"
printf "%-34s %5s  %20s  %20s\n" "workload" "shift" "completion s (sd)" "energy J (sd)"
for workload in hackbench:groups=1,loops=30000 fixed-work:threads=20,work=10s; do
	for shift in 0 1 2 3 4; do
		for ((seed = 1; seed <= repeat; seed++)); do
			run "$shift" "$workload" "$seed"
		done | python3 -c '
import statistics as st, sys
rows = [tuple(map(float, l.split())) for l in sys.stdin]
t = [r[0] for r in rows]; e = [r[1] for r in rows]
sd = lambda v: st.stdev(v) if len(v) > 1 else 0.0
print(f"{sys.argv[1]:<34} {sys.argv[2]:>5}  {st.mean(t):>12.3f} ({sd(t):.3f})  {st.mean(e):>12.2f} ({sd(e):.2f})")' "$workload" "$shift"
	done
done
