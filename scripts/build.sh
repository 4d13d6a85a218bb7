#!/usr/bin/env bash
# Installs what is missing, configures and builds.
#   BUILD_DIR   build directory (default: build)
#   KERNEL_SRC      kernel tree to build against (default: Debian's linux-source-6.1)
#   KERNEL_TARBALL  or a kernel source tarball, extracted into the build directory
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
build_dir=${BUILD_DIR:-build}
# Always passed, so that a build directory follows the environment rather
# than what an earlier configure cached.
args=("-DKERNEL_SRC=${KERNEL_SRC:-}" "-DKERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}")
cmake -S . -B "$build_dir" "${args[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
