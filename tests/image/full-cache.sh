#!/usr/bin/env bash
# A full disk during a kernel build (issue 60): exit 2 naming the cache,
# nothing kept as the image's failure, and the same build succeeds once
# there is room. The cache is a 4 MB tmpfs in a mount namespace of the
# test's own (unshare -rm: no root needed, nothing of the machine's
# mounted); where the machine allows none, the test is skipped (77).
#
# usage: full-cache.sh SCHED_HARNESS KERNEL_TREE
set -euo pipefail
harness=$1 tree=$2
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
if ! unshare -rm sh -c "mount -t tmpfs -o size=1m tmpfs '$cache'" 2>/dev/null; then
	echo "skipped: no mount namespace with a tmpfs on this machine (unshare -rm)"
	exit 77
fi
unshare -rm bash -s "$harness" "$tree" "$cache" <<'TEST'
set -u
harness=$1 tree=$2 cache=$3
fail() { echo "FAIL: $*"; exit 1; }
mount -t tmpfs -o size=4m tmpfs "$cache"
export SCHED_HARNESS_CACHE=$cache
# an image of the build's own tree: its arm64 library (8 MB) does not fit
out=$("$harness" --arch arm64 kernel build --tree "$tree" 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "kernel build into a full cache: exit $rc, not 2: $out"
grep -q "error: kernel build: out of space (.*No space left on device; the image cache $cache has [0-9]* MB free now)" <<<"$out" ||
	fail "the message does not name the cache and the error: $out"
out=$("$harness" --kernel "$tree" run --board hikey960 --duration 50ms 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "a run building its image into a full cache: exit $rc, not 2: $out"
! ls "$cache"/images/*/failed-* >/dev/null 2>&1 || fail "the full disk was recorded as the image's failure"
mount -o remount,size=64m "$cache"
out=$("$harness" --kernel "$tree" run --board hikey960 --duration 50ms 2>&1) ||
	fail "with room again, the run failed: $out"
list=$("$harness" kernel list)
# its arm64 flavour built (the arm one waits for an arm board), nothing failed
grep -qE "^[0-9a-f]{16}  incomplete .*  arm64  " <<<"$list" && ! grep -q failed <<<"$list" ||
	fail "with room again, the image is not whole: $list"
echo "a full cache: exit 2 naming it; with room again, the same image built and run"
TEST
