#!/usr/bin/env bash
# The simulator's speed, measured in one run of this script (not a test):
# for each scenario, simulated seconds per CPU second, and the share of
# the executed instructions (callgrind, stable on a noisy machine) that are
# upstream kernel code, i.e. in files of the kernel tree.
#
# Boot (device tree, kernel boot) is measured by a run of the same scenario
# for 1 ns and subtracted, so both figures are about the simulation itself.
#
#   bench/bench.sh              # build/ (6.1); needs valgrind
#   BUILD_DIR=other bench/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_start

printf "sched-harness bench: %s\n\n" "$("$harness" kernel info | awk '/^Version/ { $1 = ""; print }' | sed 's/^ //')"
printf "%-58s %9s %9s %11s %11s %9s\n" "scenario" "simulated" "CPU" "sim s/CPU s" "x CPUs" "kernel"
for entry in "${bench_scenarios[@]}"; do
	name=${entry%%|*}
	read -r -a args <<<"${entry#*|}"
	json=$("$harness" "${args[@]}" --json)
	simulated_ns=$(echo "$json" | awk -F'[:,]' '/"simulated_ns"/ { gsub(" ", "", $2); print $2 }')
	cpus=$(echo "$json" | grep -cE '^            "cpu": [0-9]+,$')
	t_full=$(cpu_time "$harness" "${args[@]}")
	t_boot=$(cpu_time "$harness" "${args[@]}" --duration 1ns)
	t_sim=$(echo "$t_full - $t_boot" | bc -l)
	speed=$(echo "($simulated_ns / 1000000000) / $t_sim" | bc -l)
	read -r full_total full_kernel <<<"$(instructions "$harness" "${args[@]}")"
	read -r boot_total boot_kernel <<<"$(instructions "$harness" "${args[@]}" --duration 1ns)"
	share=$(echo "100 * ($full_kernel - $boot_kernel) / ($full_total - $boot_total)" | bc -l)
	printf "%-58s %8.3fs %8.3fs %10.0fx %10.0fx %8.1f%%\n" "$name" "$(echo "$simulated_ns / 1000000000" | bc -l)" \
		"$t_sim" "$speed" "$(echo "$speed * $cpus" | bc -l)" "$share"
	printf "%-58s %s\n" "" "(boot ${t_boot}s CPU; simulation $((full_total - boot_total)) instructions, $((full_kernel - boot_kernel)) in the kernel tree)"
done
printf "\nsim s/CPU s: simulated seconds per CPU second of the process, boot subtracted (best of 5);\n"
printf "x CPUs: the same times the board's CPUs (simulated CPU-seconds per CPU second)\n"
