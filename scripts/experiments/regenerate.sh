#!/usr/bin/env bash
# Re-runs every published experiment of docs/experiments.md on every
# tree's build (build-5.10/, build/, build-6.12/, build-7.3/: scripts/test.sh
# builds them) and writes the page's tables: each is the output of the
# command its marker names (<!-- example experiments: CMD -->), run with
# the seeds it gives (sweeps: seeds 1..REPEAT). --check runs them and
# exits 1 naming each table that is not what the builds print now; --only
# TEXT runs the tables whose command contains TEXT.
#
#   scripts/experiments/regenerate.sh [--check] [--only TEXT]
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=--update
if [ "${1:-}" = --check ]; then
	mode=--check
	shift
fi
exec python3 scripts/doc-examples.py "$mode" --experiments "$@" docs/experiments.md
