#!/usr/bin/env bash
# Installs what is missing, configures and builds.
#   BUILD_DIR   build directory (default: build)
#   KERNEL_SRC  kernel tree to build against (default: Debian's linux-source-6.1)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
build_dir=${BUILD_DIR:-build}
args=()
[ -n "${KERNEL_SRC:-}" ] && args+=("-DKERNEL_SRC=$KERNEL_SRC")
cmake -S . -B "$build_dir" "${args[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
