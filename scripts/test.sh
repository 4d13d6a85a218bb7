#!/usr/bin/env bash
# Builds (installing what is missing) and runs the whole test suite through
# CTest. Extra arguments go to ctest, e.g. scripts/test.sh -R cli
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build.sh
build_dir=${BUILD_DIR:-build}
exec ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" "$@"
