#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a newcomer lacks is named: scripts/run.sh installs only what building
# and running need (scripts/setup.sh), so a command that needs more — a
# plot without gnuplot, --engine slurm without Slurm's sbatch, a kernel
# tree not fetched — says which package or command gets it, exit 2.
#
#   tests/cli/test_missing_tools.sh SCHED_HARNESS
set -euo pipefail
harness=$1
root=$(cd "$(dirname "$0")/../.." && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/sched-harness-missing.XXXXXX")
trap 'rm -rf "$work"' EXIT
export SCHED_HARNESS_CACHE=$work/cache
. "$(dirname "$0")/../support/expect.sh"

# A PATH of what a board needs (the C preprocessor and dtc compile its
# DTS, under util-linux's prlimit), without gnuplot or sbatch, whatever
# this machine has.
mkdir "$work/bin"
for tool in cpp dtc prlimit; do
	ln -s "$(command -v "$tool")" "$work/bin/$tool"
done
bare=(env "PATH=$work/bin")

expect 2 "${bare[@]}" "$harness" run --duration 100ms --plot "$work/run.svg"
contains "$work/err" "apt-get install gnuplot-nox"
[ ! -e "$work/run.svg" ] || fail "a plot was written without gnuplot"

expect 2 "${bare[@]}" "$harness" sweep --param eas=1,0 --sysctl 'kernel.sched_energy_aware={eas}' \
	--duration 100ms --engine slurm --engine-dir "$work/slurm"
contains "$work/err" "sbatch, which is not on PATH"
contains "$work/err" "slurm-wlm"

# a series no Debian archive serves: no tarball in /usr/src, none fetched
# (the tree the calling build uses, if its environment names one, left out)
expect 2 env -u KERNEL_SRC -u KERNEL_TARBALL SH_KERNEL=0.1 BUILD_DIR="$work/build" "$root/scripts/build.sh"
contains "$work/err" "scripts/fetch-kernel.sh 0.1"
[ ! -e "$work/build" ] || fail "build.sh configured a build without a tree"
expect 2 env KERNEL_TARBALL=/usr/src/linux-source-6.1.tar.xz SH_KERNEL=6.12 BUILD_DIR="$work/build" \
	"$root/scripts/build.sh"
contains "$work/err" "give one"
[ ! -e "$work/build" ] || fail "build.sh configured a build with two trees named"

if [ "$failures" -ne 0 ]; then
	echo "$failures failure(s)" >&2
	exit 1
fi
echo "missing tools named: gnuplot-nox, slurm-wlm, scripts/fetch-kernel.sh"
