#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/experiments/trees.py's table from a stand-in experiment.

usage: test_trees.py BUILD_DIR

The stand-in script (written here) leaves three summary lines per tree:
a change of the published sign at p < 0.01, one of the other sign, and
one at p = 0.2; on the build's tree it runs, on a folder without a
binary it is "not built". trees.py must call them agrees, opposite and
no evidence, give both sides' mean ± sd, name the publication's tree,
print its whole output, and say why a tree that exits 2 did not run.
Exit 1 naming what differs.
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STAND_IN = r'''#!/usr/bin/env bash
set -euo pipefail
series=$("$HARNESS" kernel info | sed -n 's/^Version *Linux \([0-9]*\.[0-9]*\).*/\1/p')
if [ "${FAIL_ON:-}" = "$series" ]; then echo "$0: no port to $series" >&2; exit 2; fi
echo "stand-in on $series"
python3 - <<'PY'
import sys
sys.path.insert(0, "scripts/experiments")
from summary import summarise
summarise("energy", "with against without", -5.0, 0.0005, -7.9, (10.0, 0.1), (9.5, 0.1))
summarise("energy", "other sign", 4.0, 0.0001, -7.9, (10.0, 0.1), (10.4, 0.1))
summarise("time", "within noise", 1.0, 0.2, -2.5, (2.0, 0.05), (2.02, 0.05))
PY
'''


def main():
    build = os.path.abspath(sys.argv[1])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "stand-in.sh")
        with open(script, "w") as f:
            f.write(STAND_IN)
        os.chmod(script, 0o755)
        series = subprocess.run([os.path.join(build, "harness", "sched-harness"), "kernel", "info"],
                                capture_output=True, text=True, check=True).stdout
        series = next(line.split()[2] for line in series.splitlines() if line.startswith("Version"))
        series = ".".join(series.split(".")[:2])
        missing = os.path.join(tmp, "no-build")
        trees = os.path.join(ROOT, "scripts", "experiments", "trees.py")
        r = subprocess.run([sys.executable, trees, "--builds", build, missing, "--publication", series, script],
                           cwd=ROOT, capture_output=True, text=True)
        out = r.stdout
        wanted = [
            f"(not built, so not run: {missing})",
            "energy: with against without; published -7.9%",
            f"Linux {series} (publication)  10 ± 0.1 -> 9.5 ± 0.1: -5.0% p<0.001 agrees",
            "+4.0% p<0.001 opposite",
            "time: within noise; published -2.5%",
            "+1.0% p=0.200 no evidence",
            f"stand-in on {series}",
        ]
        if r.returncode != 0:
            failures.append(f"trees.py exited {r.returncode}: {r.stderr}")
        failures += [f"not in the output: {w!r}" for w in wanted if w not in out]
        r = subprocess.run([sys.executable, trees, "--builds", build, "--publication", series, script],
                           cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, FAIL_ON=series))
        why = "not run: no port to " + series
        if why not in r.stdout:
            failures.append(f"a tree that exits 2 does not say why ({why!r}):\n{r.stdout}{r.stderr}")
    for f in failures:
        print(f"test_trees.py: {f}")
    if failures:
        print(out)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
