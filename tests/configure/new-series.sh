#!/usr/bin/env bash
# The first steps of docs/new-tree.md on a "6.99": a farm of links to TREE
# whose Makefile says PATCHLEVEL = 99. Configures sched-harness against it
# with the remaining arguments, builds TARGET when one is given, and prints
# what CMake and the build say.
# With --empty-lists the symbol lists come from WORKDIR/lists, created
# empty, as docs/new-tree.md says to start.
# usage: new-series.sh SOURCE_DIR TREE WORKDIR [--empty-lists] [--build TARGET] [CMAKE_ARG...]
# SERIES=7.9 makes another series than 6.99 (VERSION and PATCHLEVEL).
set -euo pipefail
src=$1 tree=$2 work=$3
shift 3
rm -rf "$work" && mkdir -p "$work/tree"
lists=() target=
if [ "${1:-}" = --empty-lists ]; then
	mkdir "$work/lists"
	touch "$work/lists/undefined-${SERIES:-6.99}"{,-pelt}{,-arm}.txt
	lists=(-DSH_SYMBOL_LISTS="$work/lists")
	shift
fi
if [ "${1:-}" = --build ]; then
	target=$2
	shift 2
fi
for entry in "$tree"/* "$tree"/.[!.]*; do
	[ -e "$entry" ] || continue
	[ "$(basename "$entry")" = Makefile ] || ln -s "$entry" "$work/tree/"
done
series=${SERIES:-6.99}
sed "s/^VERSION = .*/VERSION = ${series%%.*}/; s/^PATCHLEVEL = .*/PATCHLEVEL = ${series#*.}/; s/^SUBLEVEL = .*/SUBLEVEL = 0/" \
	"$tree/Makefile" > "$work/tree/Makefile"
cmake -S "$src" -B "$work/build" -DKERNEL_SRC="$work/tree" "${lists[@]}" "$@" 2>&1 || exit 0
[ -z "$target" ] || cmake --build "$work/build" --target "$target" -j "$(nproc)" 2>&1 || true
