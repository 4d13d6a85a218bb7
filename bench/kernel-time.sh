#!/usr/bin/env bash
# What timing kernel code costs the simulator, measured in one run of this
# script: for each scenario, the instructions (callgrind, stable on a noisy
# machine) and the CPU time (best of 5) of a run with kernel time (the
# default) over the same run with --kernel-time off, boot subtracted; and
# the share of the instructions spent counting basic blocks
# (__sanitizer_cov_trace_pc(), which both runs pay: the image is the same).
#
#   bench/kernel-time.sh              # build/ (6.1); needs valgrind
#   BUILD_DIR=other bench/kernel-time.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_start

# counting CMD...: instructions in the block counter, of the simulating process
counting() {
	local out="$tmp/cc.$RANDOM"
	valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$out.%p" "$@" >/dev/null 2>"$out.log"
	out=$(ls -S "$out".[0-9]* | head -1)
	callgrind_annotate --inclusive=no --threshold=100 --auto=no "$out" 2>/dev/null |
		awk '/__sanitizer_cov_trace_pc / && !/=>/ { n = $1; gsub(",", "", n); s += n } END { printf "%.0f\n", s }'
}

printf "%-56s %14s %14s %7s %7s %9s\n" "scenario" "instr timed" "instr off" "ratio" "CPU" "counting"
for entry in "${bench_scenarios[@]}"; do
	name=${entry%%|*}
	read -r -a args <<<"${entry#*|}"
	read -r on_total _ <<<"$(instructions "$harness" "${args[@]}")"
	read -r on_boot _ <<<"$(instructions "$harness" "${args[@]}" --duration 1ns)"
	read -r off_total _ <<<"$(instructions "$harness" "${args[@]}" --kernel-time off)"
	read -r off_boot _ <<<"$(instructions "$harness" "${args[@]}" --kernel-time off --duration 1ns)"
	count=$(counting "$harness" "${args[@]}")
	on=$((on_total - on_boot))
	off=$((off_total - off_boot))
	t_on=$(echo "$(cpu_time "$harness" "${args[@]}") - $(cpu_time "$harness" "${args[@]}" --duration 1ns)" | bc -l)
	t_off=$(echo "$(cpu_time "$harness" "${args[@]}" --kernel-time off) - \
		$(cpu_time "$harness" "${args[@]}" --kernel-time off --duration 1ns)" | bc -l)
	printf "%-56s %14d %14d %6.2fx %6.2fx %8.1f%%\n" "$name" "$on" "$off" "$(echo "$on / $off" | bc -l)" \
		"$(echo "$t_on / $t_off" | bc -l)" "$(echo "100 * $count / $on_total" | bc -l)"
done
printf "\nratio: instructions of the timed run over the untimed one (simulation only, boot subtracted);\n"
printf "CPU: the same for CPU time (best of 5); counting: share of the timed run's instructions\n"
printf "(boot included) spent in the basic-block counter. The issue's bound: at most 2x.\n"
