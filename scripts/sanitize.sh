#!/usr/bin/env bash
# The whole test suite on a build where everything — the harness and the
# kernel code, upstream files and glue — runs under AddressSanitizer and
# UndefinedBehaviorSanitizer (-DSH_SANITIZE=ON, in build-asan/), against
# Debian's linux-source-6.1. A sanitizer report fails the test that hit it.
# Reports that are not defects of ours are named, one by one, with the
# reason, in kernel-shim/sanitizers.supp (UBSan) and kernel-shim/lsan.supp
# (LeakSanitizer: a library's leaks only; the kernel's memory that the
# harness keeps is reachable from its globals, the per-CPU areas through
# kernel-shim/glue/percpu.c's list of them).
# Extra arguments go to ctest (scripts/sanitize.sh -R sched).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
dir=${BUILD_DIR:-build-asan}
cmake -S . -B "$dir" -DSH_SANITIZE=ON -DBUILD_TESTING=ON \
	"-DKERNEL_SRC=${KERNEL_SRC:-}" "-DKERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}" >/dev/null
cmake --build "$dir" -j "$(nproc)"
echo "=== $dir built in $SECONDS s"
# halt_on_error: any report not suppressed ends the process (exit 1, and
# the test that ran it fails). Reports go to files, not stderr, so that the
# tests that check a command's stderr word for word still can: ASan warns
# once per process that it does not fully support swapcontext() (the idle
# stacks tell it each switch: kernel-shim/src/idle_stack.cpp).
logs=$(cd "$dir" && pwd)/sanitizer-logs	# BUILD_DIR may be absolute
rm -rf "$logs"
mkdir -p "$logs"
export ASAN_OPTIONS="halt_on_error=1:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan:suppressions=$PWD/kernel-shim/sanitizers.supp"
export LSAN_OPTIONS="suppressions=$PWD/kernel-shim/lsan.supp"
status=0
# Less the tests labelled plain-build: their figures are the plain build's
# (kernel time counts the basic blocks of the code as compiled, and UBSan's
# checks split blocks); scripts/test.sh runs them against the plain build.
# Without arguments, less the guest validation suite too (label
# guest-suite: some ten minutes of QEMU; scripts/test.sh -L guest-suite).
# plain-build: figures of the plain build; engine-cluster: a Slurm
# cluster's latency, which the sanitizers do not make more thorough
exclude="plain-build|engine-cluster"
(($#)) || exclude="plain-build|engine-cluster|guest-suite"
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" -LE "$exclude" "$@" || status=$?
# every report, whichever process made it (the tests run sched-harness)
reports=$(grep -lE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$logs"/* 2>/dev/null || true)
if [ -n "$reports" ]; then
	echo "sanitize: reports in $(echo "$reports" | wc -l) processes:" >&2
	for r in $reports; do
		echo "--- $r" >&2
		grep -E -A12 "ERROR: (Address|Leak)Sanitizer|runtime error:" "$r" | head -30 >&2
	done
	status=1
fi
exit $status
