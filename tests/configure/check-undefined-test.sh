#!/usr/bin/env bash
# kernel-shim/check-undefined.sh against a list recorded from another
# release of the series (a tree in development): a symbol the list has and
# the objects no longer need is a note, exit 0; on the release the list was
# recorded from it is a difference, exit 1; a symbol the list lacks stops
# the build on any tree.
# usage: check-undefined-test.sh SOURCE_ROOT
set -euo pipefail
check=$1/kernel-shim/check-undefined.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work/glue" "$work/upstream"
echo 'extern int kshim_test_needed(void); int user(void) { return kshim_test_needed(); }' > "$work/upstream/u.c"
echo 'int kshim_test_needed(void) { return 1; } int kshim_test_dropped(void) { return 2; }' > "$work/glue/g.c"
cc -c -o "$work/upstream/u.o" "$work/upstream/u.c"
cc -c -o "$work/glue/g.o" "$work/glue/g.c"
list() {	# symbols...
	echo "# recorded from Linux 7.3.4"
	for s in "$@"; do printf '%-40s %s\n' "$s" kernel-shim/glue/g; done
}
# the build's linker script, which defines section bounds (none needed here)
printf 'SECTIONS { }\n' > "$work/kernel.ld"
export KERNEL_LD=$work/kernel.ld
list kshim_test_dropped kshim_test_needed > "$work/stale.txt"
list > "$work/short.txt"

KERNEL_VERSION=7.3.0-rc7 "$check" "$work/stale.txt" "$work/upstream/u.o" "$work/glue/g.o" 2> "$work/err" ||
	fail "a symbol no longer needed stopped a 7.3-rc build: $(cat "$work/err")"
grep -q "note: Linux 7.3.0-rc7 no longer needs what the glue provides for Linux 7.3.4.*kshim_test_dropped" "$work/err" ||
	fail "no note naming the dropped symbol: $(cat "$work/err")"
if KERNEL_VERSION=7.3.4 "$check" "$work/stale.txt" "$work/upstream/u.o" "$work/glue/g.o" 2> "$work/err"; then
	fail "the release the list was recorded from passed with a stale list"
fi
grep -q "^-kshim_test_dropped" "$work/err" || fail "the stale symbol is not named: $(cat "$work/err")"
if KERNEL_VERSION=7.3.0-rc7 "$check" "$work/short.txt" "$work/upstream/u.o" "$work/glue/g.o" 2> "$work/err"; then
	fail "a symbol missing from the list passed on a tree in development"
fi
grep -q "^+kshim_test_needed" "$work/err" || fail "the new symbol is not named: $(cat "$work/err")"
echo "ok"
