#!/usr/bin/env bash
# Configures sched-harness against a copy of TREE (a farm of symlinks) that
# lacks the file REL, and prints what CMake says.
# usage: missing-file-tree.sh SOURCE_DIR TREE REL WORKDIR
set -euo pipefail
src=$1 tree=$2 rel=$3 work=$4
rm -rf "$work" && mkdir -p "$work/tree"
mirror() {	# mirror DIR (relative, "" for the top), leaving out REL
	local dir=$1 prefix=${1:+$1/} entry name
	mkdir -p "$work/tree/$dir"
	for entry in "$tree/$prefix"* "$tree/$prefix".[!.]*; do
		[ -e "$entry" ] || continue
		name=$prefix$(basename "$entry")
		if [ "$name" = "$rel" ]; then
			continue
		elif [[ "$rel" == "$name"/* ]]; then
			mirror "$name"
		else
			ln -s "$entry" "$work/tree/$name"
		fi
	done
}
mirror ""
cmake -S "$src" -B "$work/build" -DKERNEL_SRC="$work/tree" 2>&1 || true
