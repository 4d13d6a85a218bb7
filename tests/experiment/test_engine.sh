#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Plans run by another engine (harness/experiment/engine.h) print the table
# a local run prints, byte for byte; runs without a result are named, never
# left out of a table.
#
#   tests/experiment/test_engine.sh SCHED_HARNESS local   a local run kept in --engine-dir, resumed
#   tests/experiment/test_engine.sh SCHED_HARNESS list    a job list run by GNU parallel
#   tests/experiment/test_engine.sh SCHED_HARNESS slurm   a Slurm job array, on a cluster of
#                                                         this machine (slurm-cluster.sh)
set -euo pipefail
harness=$1
mode=$2
here=$(cd "$(dirname "$0")" && pwd)

if [ "$mode" = slurm ] && [ -z "${SLURM_CONF:-}" ]; then
	exec "$here/slurm-cluster.sh" "$0" "$@"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/sched-harness-engine.XXXXXX")
trap 'rm -rf "$work"' EXIT
export SCHED_HARNESS_CACHE=${SCHED_HARNESS_CACHE:-$work/cache}
. "$here/../support/expect.sh"

sweep=(sweep --param eas=1,0 --sysctl 'kernel.sched_energy_aware={eas}' --duration 200ms --repeat 2)
expect 0 "$harness" "${sweep[@]}"
cp "$work/out" "$work/sweep.local"

if [ "$mode" = local ]; then
	# --engine local (the default) with --engine-dir: the reports kept as
	# each run ends; the same command again runs only what is missing
	dir=$work/local
	expect 0 "$harness" "${sweep[@]}" --engine-dir "$dir"
	cmp -s "$work/out" "$work/sweep.local" || fail "the kept run's table differs: $(diff "$work/sweep.local" "$work/out")"
	[ "$(ls "$dir/reports" | grep -c '\.json$')" = 4 ] || fail "not 4 reports kept: $(ls "$dir/reports")"
	rm "$dir/reports/1.json" "$dir/reports/3.json"
	expect 0 "$harness" "${sweep[@]}" --engine-dir "$dir"
	contains "$work/err" "local: 2 of 4 runs have their result in $dir/reports already: running the other 2"
	cmp -s "$work/out" "$work/sweep.local" || fail "the resumed table differs: $(diff "$work/sweep.local" "$work/out")"
	expect 0 "$harness" "${sweep[@]}" --engine-dir "$dir"
	[ -s "$work/err" ] && fail "a run with every result ran again: $(cat "$work/err")"
	cmp -s "$work/out" "$work/sweep.local" || fail "the table from the kept reports differs"
	# stopped part-way (SIGTERM once the first report is there), then the same command
	long=(sweep --param eas=1,0 --sysctl 'kernel.sched_energy_aware={eas}' --duration 60s --repeat 3 --jobs 1)
	expect 0 "$harness" "${long[@]}"
	cp "$work/out" "$work/long.local"
	"$harness" "${long[@]}" --engine-dir "$work/long" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 600); do
		ls "$work/long/reports/"*.json >/dev/null 2>&1 && break
		sleep 0.1
	done
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	kept=$(ls "$work/long/reports" | grep -c '\.json$' || true)
	[ "$kept" -ge 1 ] || fail "no report kept when stopped"
	expect 0 "$harness" "${long[@]}" --engine-dir "$work/long"
	[ "$kept" = 6 ] || contains "$work/err" "local: $kept of 6 runs have their result in $work/long/reports already"
	cmp -s "$work/out" "$work/long.local" || fail "the table after stopping and resuming differs: $(diff "$work/long.local" "$work/out")"
	# another plan in the directory
	expect 2 "$harness" sweep --param eas=1,0 --sysctl 'kernel.sched_energy_aware={eas}' --duration 300ms \
		--repeat 2 --engine-dir "$dir"
	contains "$work/err" "holds another plan than this command's"
	echo "a local run kept in --engine-dir: resumed from 2 of 4 and from $kept of 6 reports, the same tables"
	exit 0
fi

if [ "$mode" = list ]; then
	dir=$work/list
	expect 0 "$harness" "${sweep[@]}" --engine list --engine-dir "$dir"
	[ -s "$work/out" ] && fail "a job list printed a table: $(cat "$work/out")"
	contains "$work/err" "4 runs in 4 jobs, one command a line, in $dir/jobs.txt"
	[ "$(wc -l < "$dir/jobs.txt")" = 4 ] || fail "jobs.txt: $(cat "$dir/jobs.txt")"
	# before the jobs ran: nothing to collect
	expect 128 "$harness" "${sweep[@]}" --collect "$dir"
	contains "$work/err" "4 of 4 runs have no result in $dir/reports, so no table: point eas=1 seed 1, point eas=0 seed 1, point eas=1 seed 2, point eas=0 seed 2"
	parallel --jobs 2 --halt now,fail=1 < "$dir/jobs.txt" || fail "parallel < jobs.txt: exit $?"
	expect 0 "$harness" "${sweep[@]}" --collect "$dir"
	cmp -s "$work/out" "$work/sweep.local" || fail "the collected table differs: $(diff "$work/sweep.local" "$work/out")"
	# a run whose report went missing is named, and its job alone runs again
	rm "$dir/reports/2.json"
	expect 128 "$harness" "${sweep[@]}" --collect "$dir"
	contains "$work/err" "1 of 4 runs have no result in $dir/reports, so no table: point eas=1 seed 2 ("
	expect 0 "$harness" "${sweep[@]}" --engine list --engine-dir "$dir"
	contains "$work/err" "1 runs in 1 jobs"
	[ "$(wc -l < "$dir/jobs.txt")" = 1 ] || fail "jobs.txt lists the done jobs: $(cat "$dir/jobs.txt")"
	sh "$dir/jobs.txt" || fail "job 2 failed"
	expect 0 "$harness" "${sweep[@]}" --collect "$dir"
	cmp -s "$work/out" "$work/sweep.local" || fail "the table after the job ran again differs"
	# runs per job
	expect 0 "$harness" "${sweep[@]}" --engine list --engine-dir "$work/list2" --runs-per-task 3
	[ "$(wc -l < "$work/list2/jobs.txt")" = 2 ] || fail "4 runs at 3 a job are 2 jobs: $(cat "$work/list2/jobs.txt")"
	expect 2 "$harness" "${sweep[@]}" --engine list --engine-dir "$work/list2" --runs-per-task 2
	contains "$work/err" "--runs-per-task 2: $work/list2 was laid out at 3 runs a task"
	expect 2 "$harness" "${sweep[@]}" --engine list --engine-dir /proc/sched-harness
	contains "$work/err" "--engine-dir /proc/sched-harness: cannot make it: "
	# another plan in the directory
	expect 2 "$harness" sweep --param eas=1,0 --sysctl 'kernel.sched_energy_aware={eas}' --duration 300ms \
		--repeat 2 --engine list --engine-dir "$dir"
	contains "$work/err" "holds another plan than this command's"
	# a run that fails is reported as a local run reports it
	bad=(sweep --param eas=1,2x --sysctl 'kernel.sched_energy_aware={eas}' --duration 200ms --repeat 2)
	expect 2 "$harness" "${bad[@]}"
	local_err=$(cat "$work/err")
	expect 0 "$harness" "${bad[@]}" --engine list --engine-dir "$work/bad"
	sh "$work/bad/jobs.txt" 2>/dev/null || true
	expect 2 "$harness" "${bad[@]}" --collect "$work/bad"
	contains "$work/err" "${local_err%%: *}"
	contains "$work/err" "(on $(hostname))"
	# check: the KTAP of a local run
	suite=$here/../fixtures/suite/eas-small-task.json
	expect 0 "$harness" check "$suite"
	cp "$work/out" "$work/check.local"
	expect 0 "$harness" check "$suite" --engine list --engine-dir "$work/check"
	parallel < "$work/check/jobs.txt" || fail "parallel < the check's jobs.txt: exit $?"
	expect 0 "$harness" check "$suite" --collect "$work/check"
	cmp -s "$work/out" "$work/check.local" || fail "the collected KTAP differs: $(diff "$work/check.local" "$work/out")"
	# bisect's steps wait for their runs
	expect 2 "$harness" bisect --patch /dev/null --suite default --engine list --engine-dir "$dir"
	contains "$work/err" "bisect: each step waits for its runs"
	# options that need an engine
	expect 2 "$harness" "${sweep[@]}" --engine slurm
	contains "$work/err" "--engine slurm: give --engine-dir DIR"
	expect 2 "$harness" "${sweep[@]}" --engine list --engine-dir "$dir" --detach
	contains "$work/err" "--detach: for --engine slurm"
fi

if [ "$mode" = slurm ]; then
	dir=$work/slurm
	expect 0 "$harness" "${sweep[@]}" --engine slurm --engine-dir "$dir" --jobs 2
	cmp -s "$work/out" "$work/sweep.local" || fail "the Slurm table differs: $(diff "$work/sweep.local" "$work/out")"
	contains "$work/err" "runs in 4 array tasks, at most 2 at once; waiting for it to end"
	# compare, two runs a task
	compare=(compare --repeat 2 --duration 200ms --b-sysctl kernel.sched_energy_aware=0)
	expect 0 "$harness" "${compare[@]}"
	cp "$work/out" "$work/compare.local"
	expect 0 "$harness" "${compare[@]}" --engine slurm --engine-dir "$work/compare" --runs-per-task 2
	cmp -s "$work/out" "$work/compare.local" || fail "the Slurm comparison differs: $(diff "$work/compare.local" "$work/out")"
	contains "$work/err" "4 runs in 2 array tasks"
	# detached, then collected
	expect 0 "$harness" "${sweep[@]}" --engine slurm --engine-dir "$work/detached" --detach
	contains "$work/err" "run this command again with --collect $work/detached"
	for _ in $(seq 600); do
		[ -z "$(squeue --noheader 2>/dev/null)" ] && break
		sleep 0.1
	done
	expect 0 "$harness" "${sweep[@]}" --collect "$work/detached"
	cmp -s "$work/out" "$work/sweep.local" || fail "the detached job's table differs"
	# tasks that fail before they run (here: their log cannot be opened, as
	# on a node that lost the shared file system) are retried, then their
	# runs named
	expect 128 "$harness" "${sweep[@]}" --engine slurm --engine-dir "$work/lost" --retries 1 \
		--sbatch-option=--output=/nonexistent/node-lost/%a.out
	contains "$work/err" "slurm: 4 tasks left runs without a result (failed, timed out or lost their node): tasks 0-3; submitting them again (retry 1 of 1)"
	contains "$work/err" "4 of 4 runs have no result in $work/lost/reports, so no table"
	[ -s "$work/out" ] && fail "a table from no results: $(cat "$work/out")"
	# bisect --suite: each step's comparison a job array of its own
	tree=$("$harness" kernel info | awk '/^Kernel tree/ { print $3 }')
	mkdir -p "$work/a/kernel/sched" "$work/b/kernel/sched"
	cp "$tree/kernel/sched/fair.c" "$work/a/kernel/sched/fair.c"
	sed 's/^ \* CFS operations on generic schedulable entities:$/ * CFS operations on generic schedulable entities (1):/' \
		"$work/a/kernel/sched/fair.c" > "$work/b/kernel/sched/fair.c"
	(cd "$work" && diff -u a/kernel/sched/fair.c b/kernel/sched/fair.c > 1-comment.patch || true)
	cp "$work/b/kernel/sched/fair.c" "$work/a/kernel/sched/fair.c"
	# the definition as the tree spells it (const_debug up to 6.14, __read_mostly after)
	sed 's/^\(.*unsigned int sysctl_sched_migration_cost\t= \)500000UL;$/\10UL;/' \
		"$work/a/kernel/sched/fair.c" > "$work/b/kernel/sched/fair.c"
	(cd "$work" && diff -u a/kernel/sched/fair.c b/kernel/sched/fair.c > 2-migration-cost.patch || true)
	[ -s "$work/1-comment.patch" ] && [ -s "$work/2-migration-cost.patch" ] || fail "the series was not made"
	echo '{"name": "lb", "scenarios": [{"name": "hikey-overloaded", "board": "hikey",
		"workload": "periodic:count=12,period=16ms,duty=60%", "duration": "500ms"}]}' > "$work/lb.json"
	bisect=(bisect --patch "$work/1-comment.patch" --patch "$work/2-migration-cost.patch" --suite "$work/lb.json"
		--decisions --repeat 2)
	expect 0 "$harness" "${bisect[@]}"
	cp "$work/out" "$work/bisect.local"
	contains "$work/out" "first bad patch: 2-migration-cost.patch (2 of 2)"
	expect 0 "$harness" "${bisect[@]}" --engine slurm --engine-dir "$work/bisect"
	cmp -s "$work/out" "$work/bisect.local" || fail "the Slurm bisection differs: $(diff "$work/bisect.local" "$work/out")"
	ls -d "$work"/bisect/compare-* > /dev/null 2>&1 || fail "no step ran through Slurm: $(ls "$work/bisect")"
	# the runs left: submitted again alone, the table complete
	rm "$dir/reports/1.json" "$dir/reports/3.json"
	expect 0 "$harness" "${sweep[@]}" --engine slurm --engine-dir "$dir"
	contains "$work/err" "2 runs in 2 array tasks"
	cmp -s "$work/out" "$work/sweep.local" || fail "the table after resubmitting differs"
fi

if ((failures)); then
	echo "test_engine $mode: $failures failures" >&2
	exit 1
fi
echo "test_engine $mode: passed"
