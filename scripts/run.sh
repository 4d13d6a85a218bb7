#!/usr/bin/env bash
# The main job on the embedded default: builds (installing what is missing)
# and shows the Odroid-XU3 as sched-harness reads it from the kernel tree.
# Extra arguments replace the default command, e.g.
#   scripts/run.sh platform show hikey960 --json
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build.sh >&2
build_dir=${BUILD_DIR:-build}
if [ $# -eq 0 ]; then
	set -- platform show odroid-xu3
fi
exec "$build_dir/harness/sched-harness" "$@"
