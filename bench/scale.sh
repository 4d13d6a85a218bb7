#!/usr/bin/env bash
# The speed-and-scale targets, measured in one run of this script (not a
# test), each as a ratio of figures taken here:
#   boot          CPU time of a run of 1 ns (device tree from the cache, kernel boot)
#   per event     callgrind instructions per fingerprinted kernel event (boot
#                 subtracted), all and the kernel tree's own; their ratio, on
#                 the default scenario and on hackbench (message passing)
#   scale         instructions per event on synthetic 64- vs 8-CPU boards
#   trace         instructions with --trace vs without
#   trace.dat     what writing trace.dat costs vs the text trace of the same events
#   memory        peak RSS of a run 10x as long vs the short one
#
#   bench/scale.sh              # build/ (6.1); needs valgrind
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_start
bench/synthetic-board.sh 8 > "$tmp/synthetic-8.dts"
bench/synthetic-board.sh 64 > "$tmp/synthetic-64.dts"

events() { "$harness" "$@" --json | awk -F'[:,]' '/"fingerprint_events"/ { gsub(" ", "", $2); print $2 }'; }
# instructions per event of a run, boot subtracted: "all kernel"
per_event() {
	local n total kernel btotal bkernel
	n=$(events "$@")
	read -r total kernel <<<"$(instructions "$harness" "$@")"
	read -r btotal bkernel <<<"$(instructions "$harness" "$@" --duration 1ns)"
	echo "$(((total - btotal) / n)) $(((kernel - bkernel) / n))"
}
# CPU seconds (user + sys) of N runs of a command, per run
cpu_per_run() {
	local n=$1
	shift
	local TIMEFORMAT='%U %S'
	local t
	t=$({ time (for ((i = 0; i < n; i++)); do "$@" >/dev/null; done); } 2>&1)
	echo "$t" | awk -v n="$n" '{ printf "%.1f", ($1 + $2) * 1000 / n }'
}

printf "sched-harness scale bench: %s\n\n" "$("$harness" kernel info | awk '/^Version/ { $1 = ""; print }' | sed 's/^ //')"
"$harness" run --duration 1ns >/dev/null	# the device trees compiled once, into the cache
"$harness" run --board hikey960 --duration 1ns >/dev/null
printf "%-47s %12s  %s\n" "target" "measured" "how"
printf "%-47s %10s ms  %s\n" "boot <= 15 ms CPU: odroid-xu3" "$(cpu_per_run 20 "$harness" run --duration 1ns)" \
	"run --duration 1ns, mean of 20 (two processes: the arm flavour re-executes)"
printf "%-47s %10s ms  %s\n" "boot <= 15 ms CPU: hikey960" "$(cpu_per_run 20 "$harness" run --board hikey960 --duration 1ns)" \
	"run --board hikey960 --duration 1ns, mean of 20"

read -r all kernel <<<"$(per_event run)"
printf "%-47s %10.3fx  %s\n" "default: instructions/event <= 1.5x kernel's" "$(echo "$all / $kernel" | bc -l)" \
	"$all per event, $kernel of them in the kernel tree"
read -r all kernel <<<"$(per_event run --board hikey960 --workload hackbench:groups=4,fds=10,loops=1000)"
printf "%-47s %10.3fx  %s\n" "hackbench: instructions/event <= 1.5x kernel's" "$(echo "$all / $kernel" | bc -l)" \
	"hikey960, 4 groups x 10 fds x 1000 loops: $all per event, $kernel of them in the kernel tree"
read -r all8 _ <<<"$(per_event run --board "$tmp/synthetic-8.dts" --workload periodic:count=24,period=16ms,duty=10% --duration 1s)"
read -r all64 _ <<<"$(per_event run --board "$tmp/synthetic-64.dts" --workload periodic:count=192,period=16ms,duty=10% --duration 1s)"
printf "%-47s %10.3fx  %s\n" "64 vs 8 CPUs: instructions/event <= 2x" "$(echo "$all64 / $all8" | bc -l)" \
	"synthetic boards, 3 tasks of 10% per CPU: $all8 vs $all64 per event"

read -r boot _ <<<"$(instructions "$harness" run --duration 1ns)"
read -r plain _ <<<"$(instructions "$harness" run --duration 2s)"
read -r traced _ <<<"$(instructions "$harness" run --duration 2s --trace "$tmp/trace.txt")"
printf "%-47s %10.3fx  %s\n" "trace <= 1.5x the run without" "$(echo "($traced - $boot) / ($plain - $boot)" | bc -l)" \
	"default scenario 2 s, boot subtracted ($(echo "$traced / $plain" | bc -l | cut -c1-4)x with it); the trace adds the PELT tracepoints"

# the same events (all of them) written both ways: the cost of each writer
# over the untraced run
read -r dat _ <<<"$(instructions "$harness" run --duration 2s --trace "$tmp/trace.dat")"
printf "%-47s %10.3fx  %s\n" "trace.dat <= 1x the text trace's cost" "$(echo "($dat - $plain) / ($traced - $plain)" | bc -l)" \
	"default scenario 2 s, over the untraced run: $((dat - plain)) vs $((traced - plain)) instructions, every event"

if command -v /usr/bin/time >/dev/null; then
	short=$(/usr/bin/time -f %M "$harness" run --duration 10s 2>&1 >/dev/null | tail -1)
	long=$(/usr/bin/time -f %M "$harness" run --duration 100s 2>&1 >/dev/null | tail -1)
	printf "%-47s %10s KB  %s\n" "memory constant: 100 s minus 10 s" "$((long - short))" "peak RSS $short KB vs $long KB"
fi
