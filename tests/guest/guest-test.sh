#!/usr/bin/env bash
# guest-test.sh SOURCE_ROOT SERIES CASE: the cases of tests/guest/CMakeLists.txt.
set -euo pipefail
# validate.py's verdicts (docs/validation.md, "Verdicts"): which one a
# metric gets is a finding, that it gets one is this test's
verdict='\(agrees\|differs\|undecided\|too-few-events\)'
root=$1 series=$2 case=$3
script=$root/scripts/guest/run-in-guest.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect STATUS PATTERN COMMAND...: the command exits STATUS and its
# stderr matches PATTERN
expect() {
	local status=$1 pattern=$2 got=0
	shift 2
	"$@" 2> "$work/err" > /dev/null || got=$?
	[[ $got == "$status" ]] || fail "$* exited $got, not $status: $(cat "$work/err")"
	grep -q -- "$pattern" "$work/err" || fail "$*: no '$pattern' in: $(cat "$work/err")"
}

case $case in
bad-arguments)
	expect 2 "cannot read the rt-app file '$work/none.json'" "$script" --out "$work/o" "$work/none.json"
	echo '{}' > "$work/w.json"
	expect 2 "--series is 5.10, 6.1, 6.12 or 7.3, not '4.19'" "$script" --series 4.19 --out "$work/o" "$work/w.json"
	expect 2 "positive integers" "$script" --cpus 0 --out "$work/o" "$work/w.json"
	expect 2 "unknown option --bogus" "$script" --bogus --out "$work/o" "$work/w.json"
	expect 2 "one rt-app file" "$script" --out "$work/o" "$work/w.json" "$work/w.json"
	;;
validate-bad-input)
	validate=$root/scripts/guest/validate.py
	expect 2 "cannot read the rt-app file '$work/none.json'" "$validate" "$work/none.json"
	echo '{}' > "$work/w.json"
	expect 2 "the guest's spread needs two runs" "$validate" --repeat 1 "$work/w.json"
	expect 2 "no sched-harness in $work" "$validate" --build "$work" "$work/w.json"
	mkdir "$work/g" && echo "linux-image-6.1.0-1-amd64-unsigned 6.1.0-1" > "$work/g/version" &&
		touch "$work/g/config" "$work/g/run-1.trace" "$work/g/run-2.trace"
	expect 2 "no run-3.trace" "$validate" --series "$series" --build "$4" --repeat 3 --guest "$work/g" "$work/w.json"
	expect 2 "the image and the tree must match" "$validate" --series "$series" --build "$4" --repeat 2 --guest "$work/g" "$work/w.json"
	;;
boot | validate | suite)
	for tool in qemu-system-x86_64 cpio rt-app; do
		if ! command -v "$tool" > /dev/null; then
			echo "SKIPPED: $tool is not installed (apt-get install qemu-system-x86 busybox-static cpio rt-app)"
			exit 77
		fi
	done
	;;&
validate)
	build=$4
	cat > "$work/w.json" << 'JSON'
{
	"tasks" : { "worker" : { "instance" : 3, "loop" : -1, "runtime" : 4000, "sleep" : 12000 } },
	"global" : { "duration" : 2, "calibration" : 100, "ftrace" : true }
}
JSON
	status=0
	"$root/scripts/guest/validate.py" --series "$series" --build "$build" --repeat 2 --out "$work/v" "$work/w.json" \
		> "$work/table" 2> "$work/log" || status=$?
	if grep -q "apt-get download\|not known to apt" "$work/log"; then
		echo "SKIPPED: the image could not be fetched: $(cat "$work/log")"
		exit 77
	fi
	# its verdicts are findings (docs/validation.md), not this test's: 0
	# when all agree, 1 when some differ, and a table either way
	((status == 0 || status == 1)) ||
		fail "validate exited $status: $(cat "$work/log")$(tail -n 40 "$work"/v/guest/console-*.log 2>/dev/null)"
	# both harness columns (as written, fed the guest's timings) with a
	# verdict for every metric: each worker sleeps and was forked
	for metric in "switches per wake-up" "preempted % of switches" "migrations % of switches" \
		"woken on prev CPU %" "switches per CPU-second"; do
		grep -q "^  worker  *$metric  .* $verdict  *[0-9.]*  *$verdict\$" "$work/table" ||
			fail "no two verdicts for worker's $metric in: $(cat "$work/table")"
	done
	# forks and CPU time have a verdict as written; the fed file forks all
	# its threads at its start and gives each the guest's CPU time, so
	# none there
	for metric in "forked on parent's CPU %" "CPU time share %"; do
		grep -q "^  worker  *$metric  .* $verdict  *-  *n/a\$" "$work/table" ||
			fail "no verdict (as written) for worker's $metric in: $(cat "$work/table")"
	done
	# how late the guest's ticks came, from its hrtimer events, for each run
	[[ $(grep -c "^           run [12]: [0-9]* ticks, late by [0-9]* us (median)" "$work/table") == 2 ]] ||
		fail "no tick line for each guest run in: $(cat "$work/table")"
	# per decision: the fed harness's wake-ups met in the guest's state,
	# and the share chosen as the guest chose
	grep -q "^  per decision, fed: of the guest's [1-9][0-9]* wake-ups of the file's threads, [0-9]* met the same state" \
		"$work/table" || fail "no per-decision line in: $(cat "$work/table")"
	# the comparison again from the kept guest runs, without booting
	"$root/scripts/guest/validate.py" --series "$series" --build "$build" --repeat 2 --guest "$work/v/guest" \
		--out "$work/again" "$work/w.json" > "$work/again.table" 2> "$work/log" || status=$?
	((status == 0 || status == 1)) || fail "validate --guest exited $status: $(cat "$work/log")"
	cmp <(grep "^  worker " "$work/table") <(grep "^  worker " "$work/again.table") ||
		fail "the same guest runs compared again gave another table: $(cat "$work/again.table")"
	ls "$work/v/guest/run-2.trace" "$work/v/harness/run-2.trace" "$work/v/harness/fed-2.trace" > /dev/null ||
		fail "the traces are not kept"
	# both runs of the one boot, each in its own trace: three workers
	# forked and exited in each
	for k in 1 2; do
		[[ $(grep -c "sched_process_exit: comm=worker" "$work/v/guest/run-$k.trace") == 3 ]] ||
			fail "run $k's trace does not hold its three workers' exits"
	done
	# the fed file replays the guest's three workers, their wall-clock
	# runtime events by rt-app's markers' bounds
	[[ $(grep -c '"worker-[0-9]*": {' "$work/v/harness/fed-1.json") == 3 ]] ||
		fail "harness/fed-1.json does not hold the guest's three workers"
	grep -q "^           fed run 1: 3 threads of the file, .*, [1-9][0-9]* runtime events by rt-app's markers" \
		"$work/table" || fail "no runtime event fed by rt-app's markers: $(grep 'fed run' "$work/table")"
	grep -q '"runtime": [1-9]' "$work/v/harness/fed-1.json" || fail "harness/fed-1.json has no runtime event"
	# four CPUs in two sockets: the mirror board builds the guest's sched
	# domains (an MC per socket under one across both; 6.12's guest gives
	# their spans, not their names: neither debugfs nor its schedstat has
	# them)
	"$root/scripts/guest/validate.py" --series "$series" --build "$build" --cpus 4 --sockets 2 --repeat 2 \
		--out "$work/s2" "$work/w.json" > "$work/s2.table" 2> "$work/log" || status=$?
	((status == 0 || status == 1)) || fail "validate --sockets 2 exited $status: $(cat "$work/log")"
	grep -q "^           cpu0's sched domains: guest [A-Z?]* 0-1 > [A-Z?]* 0-3; harness MC 0-1 > [A-Z]* 0-3: the same spans\$" \
		"$work/s2.table" || fail "the two-socket guest's sched domains are not the mirror's: $(cat "$work/s2.table")"
	cat "$work/table"
	;;
suite)
	status=0
	"$root/scripts/guest/validate-suite.sh" --series "$series" --build "$4" --repeat 3 --out "$work/s" \
		> "$work/table" 2> "$work/log" || status=$?
	if grep -q "apt-get download\|not known to apt" "$work/log"; then
		echo "SKIPPED: the image could not be fetched: $(cat "$work/log")"
		exit 77
	fi
	((status == 0 || status == 1)) || fail "validate-suite exited $status: $(cat "$work/log")"
	# every file of the suite compared: verdicts in both columns
	for file in "$root"/scripts/guest/suite/*.json; do
		name=$(basename "$file" .json)
		grep -q "^  $name\( *[0-9][0-9]*\)\{8\}$" "$work/table" || fail "no summary line for $name"
		verdicts=$(grep -c " $verdict  *[0-9.]*  *$verdict\$" "$work/s/$name.table" || true)
		((verdicts >= 3)) || fail "$name: $verdicts metrics with two verdicts: $(cat "$work/s/$name.table")"
	done
	cat "$work/table"
	;;
boot)
	# three threads of 4 ms in every 16 ms on two CPUs, rt-app's wall-clock
	# runtime (TCG's time is not real), its markers in the trace
	cat > "$work/w.json" << 'JSON'
{
	"tasks" : { "worker" : { "instance" : 3, "loop" : 10, "runtime" : 4000, "sleep" : 12000 } },
	"global" : { "duration" : 2, "calibration" : 100, "ftrace" : true, "logdir" : "/tmp" }
}
JSON
	status=0
	# two runs, a boot each (--boot-each; the validate case has two runs
	# in one boot)
	"$script" --series "$series" --repeat 2 --boot-each --out "$work/out" "$work/w.json" > "$work/log" 2>&1 ||
		status=$?
	if ((status == 2)) && grep -q "apt-get download\|not known to apt" "$work/log"; then
		echo "SKIPPED: the image could not be fetched: $(cat "$work/log")"
		exit 77
	fi
	((status == 0)) || fail "run-in-guest exited $status: $(cat "$work/log")"
	trace=$work/out/run-1.trace
	grep -q "^# tracer: nop" "$trace" || fail "no ftrace header in the guest's trace"
	# the version booted is the tree's
	grep -q " $("$script" --series "$series" --tree-version)\$" "$work/out/version" ||
		fail "the guest booted $(cat "$work/out/version"), not linux-source-$series's version"
	grep -q "^CONFIG_HZ=" "$work/out/config" || fail "no kernel config beside the trace"
	# every worker forked, was switched in and exited; rt-app's markers came
	forks=$(grep -c "sched_process_fork: comm=rt-app" "$trace" || true)
	exits=$(grep -c "sched_process_exit: comm=worker" "$trace" || true)
	((forks >= 3)) || fail "$forks rt-app forks in the guest's trace, not 3"
	((exits == 3)) || fail "$exits worker exits in the guest's trace, not 3"
	grep -q "tracing_mark_write: \[0\] starts" "$trace" || fail "no rt-app marker in the guest's trace"
	switches=$(grep -c "sched_switch: .*next_comm=worker" "$trace" || true)
	((switches >= 30)) || fail "$switches switches to the workers: each of 3 runs 10 loops"
	grep -q "sched_process_exit: comm=worker" "$work/out/run-2.trace" || fail "no worker exit in the second boot's trace"
	echo "guest $(cat "$work/out/version"): $forks forks, $exits exits, $switches switches to the workers"
	# the same on QEMU's instruction counter (--icount, docs/validation.md):
	# it boots both CPUs and says which clock the guest ran on
	"$script" --series "$series" --icount --out "$work/icount" "$work/w.json" > "$work/log" 2>&1 ||
		fail "run-in-guest --icount exited $?: $(cat "$work/log")"
	[[ $(cat "$work/icount/clock") == icount && $(cat "$work/out/clock") == host ]] ||
		fail "clock files say '$(cat "$work/icount/clock")' and '$(cat "$work/out/clock")', not icount and host"
	exits=$(grep -c "sched_process_exit: comm=worker" "$work/icount/run-1.trace" || true)
	((exits == 3)) || fail "$exits worker exits in the --icount guest's trace, not 3"
	grep -q "^ *worker-[0-9]* *\[001\]" "$work/icount/run-1.trace" || fail "no worker ran on the --icount guest's CPU 1"
	echo "and on its instruction counter: $exits exits"
	;;
*)
	fail "unknown case $case"
	;;
esac
