#!/usr/bin/env bash
# The main job on the embedded default: builds the sched-harness binary
# (installing what building and running need, and nothing the tests alone
# use) and runs the energy test case of the Odroid-XU3/4 energy-model
# thread on the Odroid-XU3 (24 periodic tasks, 16 ms, 10% duty, 10
# simulated seconds, EAS on) through the kernel's scheduler, printing its
# summary (run --details: every table).
# Extra arguments replace the default command, e.g.
#   scripts/run.sh platform show hikey960 --json
#   scripts/run.sh run --board hikey960 --workload hackbench
#   SH_KERNEL=6.12 BUILD_DIR=build-6.12 scripts/run.sh    another tree
set -euo pipefail
cd "$(dirname "$0")/.."

SH_TARGET=sched-harness scripts/build.sh >&2
build_dir=${BUILD_DIR:-build}
if [ $# -eq 0 ]; then
	set -- run
fi
exec "$build_dir/harness/sched-harness" "$@"
