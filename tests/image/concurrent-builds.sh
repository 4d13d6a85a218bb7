#!/usr/bin/env bash
# Eight processes asking at once for the image of one patch, in an empty
# cache (issue 60: Slurm tasks on many nodes read one cache, sweeps run
# --jobs N): one of them compiles it, all eight run on it and print the
# same bytes, and the cache holds one image and no scratch.
#
# usage: concurrent-builds.sh SCHED_HARNESS KERNEL_TREE
set -euo pipefail
harness=$1 tree=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export SCHED_HARNESS_CACHE=$work/cache
. "$(dirname "$0")/comment-patch.sh"
comment_patch "$tree" "$work" "sched-harness: eight builds at once"	# one object, seconds to compile
pids=()
for i in 1 2 3 4 5 6 7 8; do
	"$harness" --arch arm64 --kernel "$work/patch" run --board hikey960 --duration 200ms \
		>"$work/out.$i" 2>"$work/err.$i" &
	pids+=($!)
done
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || fail "process $((i + 1)) exit $?: $(cat "$work/err.$((i + 1))")"
done
for i in 2 3 4 5 6 7 8; do
	cmp -s "$work/out.1" "$work/out.$i" || fail "process $i printed other bytes than process 1: $(diff "$work/out.1" "$work/out.$i" | head)"
done
images=$(find "$SCHED_HARNESS_CACHE/images" -mindepth 1 -maxdepth 1 -type d | sed 's|.*/||')
[ "$(grep -cE '^[0-9a-f]{16}$' <<<"$images")" = 1 ] || fail "not one image in the cache: $images"
! grep -qv -E '^[0-9a-f]{16}$' <<<"$images" || fail "scratch left in the cache: $images"
compiled=$(grep -l "compiled again" "$work"/err.* | wc -l)
[ "$compiled" = 1 ] || fail "$compiled processes compiled the image, not one: $(grep -h "compiled again" "$work"/err.*)"
echo "eight processes at once: one compiled the image, all eight printed the same bytes"
