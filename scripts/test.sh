#!/usr/bin/env bash
# Builds (installing what is missing) and runs the whole test suite through
# CTest, against each supported kernel tree: Debian's linux-source-5.10 (in
# build-5.10/), linux-source-6.1 (in build/), linux-source-6.12 (in
# build-6.12/) and linux-source-7.3 (in build-7.3/); 5.10 and 7.3 are not
# in the machine's suites: scripts/fetch-kernel.sh fetches them into the
# cache. Extra arguments go to
# ctest, e.g. scripts/test.sh -R cli; the guest validation suite (some
# ten minutes of QEMU per tree) runs only when asked, scripts/test.sh -L
# guest-suite (docs/validation.md). Then, on a whole run, the fuzz
# targets for FUZZ_SECONDS each (default 60; scripts/fuzz.sh).
#   SH_KERNELS="6.1"           only these series (default: 5.10 6.1 6.12 7.3)
#   SH_SANITIZE_KERNELS="6.1"  these series' passes under ASan+UBSan, kernel
#                              code included (scripts/sanitize.sh, in
#                              build-asan/; a report fails the run). 6.1 by
#                              default, in place of its plain pass, whose
#                              build (build/, which scripts/run.sh makes)
#                              then runs only the tests labelled plain-build
#                              (figures of the plain build); "" for none
#   KERNEL_SRC=/path           only this tree (in $BUILD_DIR, default build/)
#   FUZZ_SECONDS=0             no fuzzing
#   SH_EXPERIMENTS=0           not the experiments' tables (a whole run checks
#                              docs/experiments.md on every tree)
set -euo pipefail
cd "$(dirname "$0")/.."

run() {	# build dir, then the rest of the environment for build.sh
	local dir=$1 start=$SECONDS
	shift
	env BUILD_DIR="$dir" "$@" scripts/build.sh
	echo "=== $dir built in $((SECONDS - start)) s"
	if ((${#ctest_args[@]})); then
		ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" "${ctest_args[@]}"
	else	# the guest validation suite only when asked: -L guest-suite
		ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" -LE guest-suite
	fi
}
phase_start=$SECONDS
# the disk the run takes, for the stage lines: its build directories and
# the cache the trees are extracted into share one file system on CI's
# machines, whose free space varies (a run once failed of a full disk)
used_kb() { df -Pk . | awk 'NR == 2 {print $3}'; }
free_gb() { df -Pk . | awk 'NR == 2 {printf "%.1f", $4 / 1048576}'; }
disk_start=$(used_kb)
done_in() {	# what was done, since phase_start
	echo "=== $1 in $((SECONDS - phase_start)) s (the whole run: $SECONDS s;" \
		"disk: $(awk -v a="$disk_start" -v b="$(used_kb)" 'BEGIN {printf "%.1f", (b - a) / 1048576}') GB more" \
		"than at the start, $(free_gb) GB free)"
	phase_start=$SECONDS
}
echo "=== disk: $(free_gb) GB free (docs/testing.md gives what a whole run took)"

ctest_args=("$@")
# the other series' kernel sides the image tests build (--kernel SERIES):
# one cache for every tree's suite, so each series compiles once a run
export SH_TEST_SERIES_CACHE=${SH_TEST_SERIES_CACHE:-$PWD/build/test-series-cache}
# the test programs, and what the tests use besides building and running
# (Slurm, trace-cmd, KernelShark's library, QEMU...: scripts/setup.sh --tests)
export SH_TESTS=1
scripts/setup.sh --tests
if [ -n "${KERNEL_SRC:-}" ]; then
	run "${BUILD_DIR:-build}" KERNEL_SRC="$KERNEL_SRC"
	exit 0
fi
for series in ${SH_KERNELS:-5.10 6.1 6.12 7.3}; do
	tarball=/usr/src/linux-source-$series.tar.xz
	# a series the machine's suites do not carry: from Debian's archive
	[ -f "$tarball" ] || tarball=$(scripts/fetch-kernel.sh "$series")
	if [[ " ${SH_SANITIZE_KERNELS-6.1} " == *" $series "* ]]; then
		dir=build-asan
		[ "$series" = 6.1 ] || dir=build-asan-$series
		echo "=== Linux $series under ASan+UBSan ($dir)"
		BUILD_DIR=$dir KERNEL_TARBALL=$tarball scripts/sanitize.sh "${ctest_args[@]}"
		done_in "Linux $series under ASan+UBSan, built and tested,"
		# the tests whose figures are the plain build's (label
		# plain-build), against the build scripts/run.sh makes
		if [ ${#ctest_args[@]} -eq 0 ]; then
			dir=build
			[ "$series" = 6.1 ] || dir=build-$series
			echo "=== Linux $series, the plain build's figures ($dir)"
			env BUILD_DIR="$dir" KERNEL_TARBALL="$tarball" scripts/build.sh
			ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" -L plain-build
			done_in "Linux $series plain, built, its plain-build tests run,"
		fi
		continue
	fi
	dir=build
	[ "$series" = 6.1 ] || dir=build-$series
	echo "=== Linux $series ($dir)"
	run "$dir" KERNEL_TARBALL="$tarball"
	done_in "Linux $series, built and tested,"
done
# docs/experiments.md's tables are what every tree's build prints now: a
# change that moves a published experiment's figure on any tree fails
# here until scripts/experiments/regenerate.sh writes the page again.
# They need all four trees' builds: a whole run only (SH_EXPERIMENTS=0:
# skip).
if [ ${#ctest_args[@]} -eq 0 ] && [ -z "${SH_KERNELS:-}" ] && [ "${SH_EXPERIMENTS:-1}" != 0 ]; then
	echo "=== the published experiments on every tree (docs/experiments.md)"
	scripts/experiments/regenerate.sh --check
	done_in "experiments re-run and compared"
fi
if [ ${#ctest_args[@]} -eq 0 ] && [ "${FUZZ_SECONDS:-60}" != 0 ]; then
	echo "=== fuzzing (build-fuzz, ${FUZZ_SECONDS:-60} s per target)"
	FUZZ_SECONDS=${FUZZ_SECONDS:-60} scripts/fuzz.sh
	done_in "fuzzing, built and run,"
fi
# Every system file the builds read belongs to a package setup.sh (or a
# caller here) installs: a package installed by hand must not hide a
# missing install step on a fresh machine.
if [ ${#ctest_args[@]} -eq 0 ]; then
	echo "=== the packages the builds read"
	mapfile -t built < <(ls -d build build-* 2>/dev/null)
	scripts/check-packages.sh "${built[@]}" -- clang libclang-rt-dev llvm
	done_in "packages checked"
fi
