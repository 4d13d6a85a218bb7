#!/usr/bin/env bash
# generate.sh for each flavour side by side: each runs the tree's own
# Kconfig on its defconfig (make defconfig, ~10-15 s, mostly one core), so
# one after the other they made every configure wait for both.
# usage: generate-flavours.sh TREE CC FLAVOUR OUT DEFCONFIG [FLAVOUR OUT DEFCONFIG]...
# Exits non-zero when one fails, with its messages after its flavour's name.
set -uo pipefail
tree=$1 cc=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
flavours=() outs=() pids=()
while [ $# -ge 3 ]; do
	mkdir -p "$2"
	"$here/generate.sh" "$tree" "$2" "$cc" "$1" "$3" 2>"$2/generate.err" &
	flavours+=("$1") outs+=("$2") pids+=($!)
	shift 3
done
status=0
for i in "${!pids[@]}"; do
	if ! wait "${pids[$i]}"; then
		status=1
		echo "the ${flavours[$i]} flavour:" >&2
		cat "${outs[$i]}/generate.err" >&2
	fi
done
exit $status
