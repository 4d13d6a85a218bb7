#!/usr/bin/env bash
# Installs what is missing, configures and builds.
#   BUILD_DIR       build directory (default: build)
#   SH_KERNEL       the kernel series to build against (default 6.1): Debian's
#                   linux-source-SERIES from /usr/src, or the one
#                   scripts/fetch-kernel.sh fetched into the cache
#   KERNEL_SRC      or a kernel tree, used as it is
#   KERNEL_TARBALL  or a kernel source tarball, extracted into the build directory
#   SH_TESTS=1      install what the tests use too (scripts/setup.sh --tests)
#                   and build the test programs; without it, what a build
#                   directory was configured with (none on a new one)
#   SH_TARGET       build only this target (scripts/run.sh: sched-harness)
# Prints the time of each stage on stderr: "build: packages|configure|compile N s".
set -euo pipefail
cd "$(dirname "$0")/.."

stage_start=$SECONDS
stage_done() {
	echo "build: $1 $((SECONDS - stage_start)) s" >&2
	stage_start=$SECONDS
}

if [ -n "${SH_TESTS:-}" ]; then
	scripts/setup.sh --tests
else
	scripts/setup.sh
fi
stage_done packages

build_dir=${BUILD_DIR:-build}
tarball=${KERNEL_TARBALL:-}
if [ -n "${SH_KERNEL:-}" ] && [ -n "${KERNEL_SRC:-}$tarball" ]; then
	echo "build: SH_KERNEL=$SH_KERNEL and KERNEL_SRC or KERNEL_TARBALL both name a tree: give one" >&2
	exit 2
fi
if [ -z "${KERNEL_SRC:-}" ] && [ -z "$tarball" ]; then
	series=${SH_KERNEL:-6.1}
	tarball=/usr/src/linux-source-$series.tar.xz
	if [ ! -f "$tarball" ]; then
		# fetched into the cache by scripts/fetch-kernel.sh, if at all: the
		# newest by Debian's version order (a release candidate, 7.3~rc7,
		# before its release)
		cache=${SCHED_HARNESS_CACHE:-$HOME/.cache/sched-harness}
		fetched="" newest=""
		for candidate in "$cache"/trees/linux-source-"$series"_*/usr/src/linux-source-"$series".tar.xz; do
			[ -f "$candidate" ] || continue
			version=${candidate#"$cache"/trees/linux-source-"$series"_}
			version=${version%%/*}
			if [ -z "$newest" ] || dpkg --compare-versions "$version" gt "$newest"; then
				fetched=$candidate newest=$version
			fi
		done
		if [ -z "$fetched" ]; then
			echo "build: no Linux $series tree on this machine: /usr/src/linux-source-$series.tar.xz is not" \
				"installed and scripts/fetch-kernel.sh has not fetched it; get it with" \
				"scripts/fetch-kernel.sh $series (or apt-get install linux-source-$series where the" \
				"machine's suites carry it)" >&2
			exit 2
		fi
		tarball=$fetched
	fi
fi
[ -n "$tarball" ] || tarball=/usr/src/linux-source-6.1.tar.xz
# Always passed, so that a build directory follows the environment rather
# than what an earlier configure cached.
args=("-DKERNEL_SRC=${KERNEL_SRC:-}" "-DKERNEL_TARBALL=$tarball")
if [ -n "${SH_TESTS:-}" ]; then
	args+=(-DBUILD_TESTING=ON)
elif [ ! -f "$build_dir/CMakeCache.txt" ]; then
	args+=(-DBUILD_TESTING=OFF)	# a new build directory: no test programs until asked
fi
cmake -S . -B "$build_dir" "${args[@]}" >/dev/null
stage_done configure
target=()
[ -z "${SH_TARGET:-}" ] || target=(--target "$SH_TARGET")
cmake --build "$build_dir" -j "$(nproc)" "${target[@]}"
stage_done compile
