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
#   shares        where the default scenario's time goes: CPU time and
#                 instructions of a build without the block counter
#                 (SH_BLOCK_COUNTER=none, cmake/BlockCounter.cmake), of the
#                 build with kernel time off and on, and the instructions
#                 of each by whose code ran them (bench/lib.sh's shares)
#
#   bench/scale.sh              # build/ (6.1); needs valgrind
#   BASE_BUILD_DIR=dir          # the build without the counter (default:
#                               # build-uncounted, configured from build/'s
#                               # kernel tree and built here, minutes)
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
printf "%-47s %10s ms  %s\n" "boot <= 10 ms CPU: odroid-xu3" "$(cpu_per_run 20 "$harness" run --duration 1ns)" \
	"run --duration 1ns, mean of 20 (two processes: the arm flavour re-executes)"
printf "%-47s %10s ms  %s\n" "boot <= 10 ms CPU: hikey960" "$(cpu_per_run 20 "$harness" run --board hikey960 --duration 1ns)" \
	"run --board hikey960 --duration 1ns, mean of 20"

read -r all kernel <<<"$(per_event run)"
printf "%-47s %10.3fx  %s\n" "default: instructions/event <= 1.5x kernel's" "$(echo "$all / $kernel" | bc -l)" \
	"$all per event, $kernel of them in the kernel tree"
hackbench=(run --board hikey960 --workload hackbench:groups=4,fds=10,loops=1000)
read -r all kernel <<<"$(per_event "${hackbench[@]}")"
printf "%-47s %10.3fx  %s\n" "hackbench: instructions/event <= 6x kernel's" "$(echo "$all / $kernel" | bc -l)" \
	"hikey960, 4 groups x 10 fds x 1000 loops: $all per event, $kernel of them in the kernel tree"
read -r all kernel <<<"$(per_event "${hackbench[@]}" --jitter 0)"
printf "%-47s %10.3fx  %s\n" "hackbench --jitter 0: instr./event <= 3x kernel's" "$(echo "$all / $kernel" | bc -l)" \
	"the same without jitter: $all per event, $kernel of them in the kernel tree"
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

# Where the time goes. The build without the counter runs only with kernel
# time off; its output is the same as the counted build's with it off.
base_dir=${BASE_BUILD_DIR:-${build_dir}-uncounted}
if [ -z "${BASE_BUILD_DIR:-}" ]; then
	kernel_src=$(sed -n 's/^KERNEL_SRC:PATH=//p' "$build_dir/CMakeCache.txt")
	kernel_tarball=$(sed -n 's/^KERNEL_TARBALL:FILEPATH=//p' "$build_dir/CMakeCache.txt")
	echo "(building $base_dir without the block counter: minutes the first time)" >&2
	if ! { cmake -S . -B "$base_dir" -DKERNEL_SRC="$kernel_src" -DKERNEL_TARBALL="$kernel_tarball" \
		-DBUILD_TESTING=OFF -DSH_BLOCK_COUNTER=none &&
		cmake --build "$base_dir" -j "$(nproc)" --target sched-harness; } >"$tmp/base-build.log" 2>&1; then
		tail -20 "$tmp/base-build.log" >&2
		echo "bench: the build without the counter failed ($base_dir)" >&2
		exit 1
	fi
fi
base="$base_dir/harness/sched-harness"
[ -x "$base" ] || { echo "bench: $base: no build without the counter there" >&2; exit 1; }
if ! grep -q '^SH_BLOCK_COUNTER:STRING=none$' "$base_dir/CMakeCache.txt"; then
	echo "bench: $base_dir counts blocks (configure it with -DSH_BLOCK_COUNTER=none)" >&2
	exit 1
fi
# the same run but for the blocks it counted
fingerprint() { "$@" --json | grep -E '"fingerprint(_events)?"'; }
if ! cmp -s <(fingerprint "$base" run --kernel-time off) <(fingerprint "$harness" run --kernel-time off); then
	echo "bench: $base and $harness run differently with kernel time off: not the same tree or options" >&2
	exit 1
fi

# CPU seconds of 60 s simulated, boot subtracted, of each command line
# given: the best of 10 rounds, each running every command once in turn,
# so that this machine's slow minutes fall on all of them alike (best of
# five of one, then of the next, put one build 20 % ahead and then behind)
interleaved_cpu() {
	local -a best=() cmd
	local round i t full boot TIMEFORMAT='%U %S'
	for ((round = 0; round < 10; round++)); do
		for ((i = 1; i <= $#; i++)); do
			read -r -a cmd <<<"${!i}"
			full=$({ time "${cmd[@]}" --duration 60s >/dev/null; } 2>&1 | awk '{ print $1 + $2 }')
			boot=$({ time "${cmd[@]}" --duration 1ns >/dev/null; } 2>&1 | awk '{ print $1 + $2 }')
			t=$(echo "$full - $boot" | bc -l)
			if [ -z "${best[$i]:-}" ] || [ "$(echo "$t < ${best[$i]}" | bc -l)" = 1 ]; then best[$i]=$t; fi
		done
	done
	for ((i = 1; i <= $#; i++)); do echo "${best[$i]}"; done
}
# instructions of 10 s simulated, boot subtracted
sim_shares() {
	join <(shares "$@" --duration 10s | sort) <(shares "$@" --duration 1ns | sort) |
		awk '{ printf "%s %.0f\n", $1, $2 - $3 }'
}
labels=("no counter (SH_BLOCK_COUNTER=none), kernel time off" "counter, kernel time off" "counter, kernel time on")
commands=("$base run --kernel-time off" "$harness run --kernel-time off" "$harness run")
declare -a cpu instr
mapfile -t cpu < <(interleaved_cpu "${commands[@]}")
printf "\nwhere the default scenario's time goes (odroid-xu3, 24 x periodic; boot subtracted)\n"
printf "%-52s %8s %7s %9s %9s %9s %9s %9s %9s %9s %9s\n" "build" "CPU s/60s" "speed" \
	"M instr" "kernel" "cost" "entries" "glue" "loop" "reports" "rest"
for i in 0 1 2; do
	read -r -a cmd <<<"${commands[$i]}"
	declare -A share=()
	while read -r k v; do share[$k]=$v; done < <(sim_shares "${cmd[@]}")
	instr[$i]=${share[total]}
	m() { echo "${share[$1]} / 1000000" | bc -l; }
	printf "%-52s %8.3f %6.0fx %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n" "${labels[$i]}" "${cpu[$i]}" \
		"$(echo "60 / ${cpu[$i]}" | bc -l)" "$(m total)" "$(m kernel)" "$(m cost)" "$(m entries)" "$(m glue)" \
		"$(m loop)" "$(m reports)" "$(m rest)"
	unset share
done
printf "(CPU: 60 s simulated, best of 10 interleaved rounds; instructions, millions: 10 s simulated, callgrind, by whose code ran them)\n\n"
printf "%-47s %10.3fx  %s\n" "counter, kernel time off <= 1.2x no counter" "$(echo "${cpu[1]} / ${cpu[0]}" | bc -l)" \
	"CPU time; $(echo "${instr[1]} / ${instr[0]}" | bc -l | cut -c1-5)x the instructions"
printf "%-47s %10.3fx  %s\n" "counter, kernel time on <= 1.5x no counter" "$(echo "${cpu[2]} / ${cpu[0]}" | bc -l)" \
	"CPU time; $(echo "${instr[2]} / ${instr[0]}" | bc -l | cut -c1-5)x the instructions"
printf "%-47s %10.0fx  %s\n" "default, kernel time on: >= 200x real time" "$(echo "60 / ${cpu[2]}" | bc -l)" \
	"simulated seconds per CPU second"
# hackbench runs to its end: --duration 60s is longer than it takes
{ read -r hb_base; read -r hb_off; read -r hb_on; } < <(interleaved_cpu "$base ${hackbench[*]} --kernel-time off" \
	"$harness ${hackbench[*]} --kernel-time off" "$harness ${hackbench[*]}")
printf "%-47s %10.3fx  %s\n" "hackbench: counter, kernel time on vs none" "$(echo "$hb_on / $hb_base" | bc -l)" \
	"CPU s, boot subtracted: no counter $(printf %.3f "$hb_base"), kernel time off $(printf %.3f "$hb_off"), on $(printf %.3f "$hb_on")"
