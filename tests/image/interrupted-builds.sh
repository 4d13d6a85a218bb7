#!/usr/bin/env bash
# A kernel build killed part-way (SIGKILL: no handler runs; SIGINT: the
# handlers do) at points through it (0.2 to 3 s of a build of some
# seconds) leaves nothing a later run takes for
# an image (issue 60): after each, a run of the same patch exits 0 and
# prints what a build never interrupted prints, and kernel prune then
# leaves no scratch of the killed builds.
#
# usage: interrupted-builds.sh SCHED_HARNESS KERNEL_TREE
set -euo pipefail
harness=$1 tree=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/comment-patch.sh"
comment_patch "$tree" "$work" "sched-harness: a build killed part-way"	# one object, seconds to compile
run() { "$harness" --arch arm64 --kernel "$work/patch" run --board hikey960 --duration 200ms; }
SCHED_HARNESS_CACHE=$work/reference run >"$work/expected" 2>"$work/err" || fail "the reference run: $(cat "$work/err")"
for signal in KILL INT; do
	delays="0.2 1 3"
	[ $signal = KILL ] || delays="0.5 2"
	for delay in $delays; do
		export SCHED_HARNESS_CACHE=$work/cache-$signal-$delay
		"$harness" --arch arm64 kernel build --patch "$work/patch" >/dev/null 2>&1 &
		pid=$!
		sleep "$delay"
		kill -s "$signal" "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		run >"$work/out" 2>"$work/err" || fail "after SIG$signal at $delay s, the run failed: $(cat "$work/err")"
		cmp -s "$work/expected" "$work/out" ||
			fail "after SIG$signal at $delay s, the run printed other bytes: $(diff "$work/expected" "$work/out" | head)"
		"$harness" kernel prune >/dev/null 2>&1 || fail "kernel prune after SIG$signal at $delay s"
		left=$(find "$SCHED_HARNESS_CACHE" -name '*tmp*' | head -3)
		[ -z "$left" ] || fail "after SIG$signal at $delay s and kernel prune, scratch is left: $left"
	done
done
echo "builds killed (SIGKILL, SIGINT) at 0.2 to 3 s: each next run as if never interrupted, no scratch after prune"
