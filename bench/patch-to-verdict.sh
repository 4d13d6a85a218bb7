#!/usr/bin/env bash
# Patch in, verdict out, timed in one run of this script (not a test): a
# one-line fair.c patch (sysctl_sched_migration_cost) becomes a kernel
# image in an empty cache, then compare runs the default suite against the
# unpatched kernel; and a comment-only patch, which compiles nothing. The
# issue's target is 60 s from patch to verdict on two cores.
#
#   bench/patch-to-verdict.sh            # build/ (6.1), after scripts/build.sh
#   BUILD_DIR=other REPEAT=5 bench/patch-to-verdict.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
harness="$build_dir/harness/sched-harness"
[ -x "$harness" ] || { echo "bench: build first (scripts/build.sh)" >&2; exit 1; }
tree=$("$harness" kernel info | awk '/^Kernel tree/ { print $3 }')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SCHED_HARNESS_CACHE=$tmp/cache

# a one-line patch of fair.c, as git diff writes it
one_line() {	# sed-expression patch-file
	mkdir -p "$tmp/a/kernel/sched" "$tmp/b/kernel/sched"
	cp "$tree/kernel/sched/fair.c" "$tmp/a/kernel/sched/fair.c"
	sed "$1" "$tree/kernel/sched/fair.c" > "$tmp/b/kernel/sched/fair.c"
	(cd "$tmp" && diff -u a/kernel/sched/fair.c b/kernel/sched/fair.c || true) |
		sed -e 's|^--- a/kernel/sched/fair.c.*|--- a/kernel/sched/fair.c|' \
		    -e 's|^+++ b/kernel/sched/fair.c.*|+++ b/kernel/sched/fair.c|' > "$2"
}
one_line 's/^const_debug unsigned int sysctl_sched_migration_cost\t= 500000UL;/const_debug unsigned int sysctl_sched_migration_cost\t= 0UL;/' "$tmp/cost.patch"
one_line 's|^ \* CFS operations on generic schedulable entities:| * CFS operations on generic schedulable entities (comment):|' "$tmp/comment.patch"

seconds() { date +%s.%N; }
t0=$(seconds)
id=$("$harness" kernel build --patch "$tmp/cost.patch" 2> "$tmp/build.log")
t1=$(seconds)
"$harness" compare --suite default --repeat "${REPEAT:-3}" --b-kernel "$id" > "$tmp/verdict.txt"
t2=$(seconds)
"$harness" kernel build --patch "$tmp/comment.patch" 2> "$tmp/comment.log" > /dev/null
t3=$(seconds)

build=$(echo "$t1 - $t0" | bc) verdict=$(echo "$t2 - $t1" | bc) comment=$(echo "$t3 - $t2" | bc)
total=$(echo "$t2 - $t0" | bc)
printf 'patch to verdict (%s cores, default suite, %s seeds per variant)\n' "$(nproc)" "${REPEAT:-3}"
printf '  image of a one-line fair.c patch   %6.1f s  (%s)\n' "$build" "$(grep -o '[0-9]* objects\? compiled again' "$tmp/build.log")"
printf '  compare on the default suite       %6.1f s  (%s scenarios decide otherwise)\n' "$verdict" \
	"$(grep -c 'decisions (fingerprints): differ' "$tmp/verdict.txt" || true)"
printf '  total                              %6.1f s  = %.2f x the 60 s target\n' "$total" "$(echo "$total / 60" | bc -l)"
printf '  image of a comment-only patch      %6.1f s  (%s)\n' "$comment" "$(grep -o '[0-9]* objects\? compiled again' "$tmp/comment.log")"
