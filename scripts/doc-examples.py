#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The example outputs of the docs, made by the binary they describe.

A fenced block right after a marker line

    <!-- example: sched-harness compare --duration 2s -->
    ```
    ...
    ```

holds what the command printed: the marker's command (a shell command line,
run from the repository's root with `sched-harness` on PATH; pipes allowed)
on a first line after "$ ", then its standard output and error. Markers:

    <!-- example: CMD -->          checked: the build's kernel series (6.1)
    <!-- example 6.12: CMD -->     checked against the 6.12 tree only
    <!-- example varies: CMD -->   written by --update, never compared (the
                                   text beside it says why it varies)
    <!-- example experiments: CMD -->  a published experiment re-run on the
                                   trees' builds the command names (minutes
                                   each): only with --experiments, which
                                   runs these alone (scripts/experiments/
                                   regenerate.sh)

    scripts/doc-examples.py --update [--binary B] [--experiments] [--only TEXT] [FILE...]
                                                              write the outputs
    scripts/doc-examples.py --check [--binary B] [--experiments] [--only TEXT] [FILE...]
                                                              exit 1 naming each
                                                              example that differs

FILEs default to README.md and docs/*.md. Paths of the checkout, of its
build folders and of the image cache are written as `build/` and
`~/.cache/sched-harness/`, so that the outputs do not depend on where the
repository lies (and temporary folders as `$tmp`), and an image's id (which hashes the build's own kernel
libraries, so differs between builds) as IMAGE. Every run uses a cache of its own (images built for one
example are reused by the next, as a user's would be).
"""
import argparse
import difflib
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^<!-- example(?: (?P<kind>[0-9]+\.[0-9]+|varies|experiments))?: (?P<command>.*) -->$")
FENCE = re.compile(r"^```")


class Example:
    def __init__(self, path, line, kind, command, first, last, text):
        self.path, self.line, self.kind, self.command = path, line, kind, command
        self.first, self.last = first, last  # the block's content lines [first, last)
        self.text = text

    def where(self):
        return f"{os.path.relpath(self.path, ROOT)}:{self.line}"


def examples_of(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = []
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        if i + 1 >= len(lines) or not FENCE.match(lines[i + 1]):
            sys.exit(f"{os.path.relpath(path, ROOT)}:{i + 1}: an example marker must be followed by a fenced block")
        end = i + 2
        while end < len(lines) and lines[end] != "```":
            end += 1
        if end == len(lines):
            sys.exit(f"{os.path.relpath(path, ROOT)}:{i + 2}: the example's block is not closed")
        found.append(Example(path, i + 1, m.group("kind"), m.group("command"), i + 2, end,
                             "\n".join(lines[i + 2:end])))
    return lines, found


def series_of(binary):
    out = subprocess.run([binary, "kernel", "info"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"^Version\s+Linux\s+([0-9]+\.[0-9]+)", out, re.M)
    if not m:
        sys.exit(f"{binary} kernel info names no Version")
    return m.group(1)


def normalise(text, cache):
    # an image's id hashes the build's own kernel libraries too: it differs
    # between builds (a sanitized one, another compiler), so it is named
    for image in sorted(glob.glob(os.path.join(cache, "images", "[0-9a-f]" * 16))):
        text = text.replace(os.path.basename(image), "IMAGE")
    text = text.replace(cache, "~/.cache/sched-harness")
    text = re.sub(re.escape(ROOT) + r"/build[A-Za-z0-9_.-]*/", "build/", text)
    text = text.replace(ROOT + "/", "")
    # mktemp's and Python's temporary folders
    text = re.sub(r"/tmp/tmp[.A-Za-z0-9_]+", "$tmp", text)
    return text


def run(example, binary, cache):
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(binary)) + os.pathsep + env["PATH"]
    env["SCHED_HARNESS_CACHE"] = cache
    env.pop("SCHED_HARNESS_KERNEL_SRC", None)
    r = subprocess.run(["bash", "-c", example.command], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    out = normalise(r.stdout + r.stderr, cache).rstrip("\n")
    # the status is part of what the example shows when it is not 0
    status = f"\n(exit status {r.returncode})" if r.returncode else ""
    return f"$ {example.command}\n{out}{status}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "harness", "sched-harness"))
    parser.add_argument("--experiments", action="store_true",
                        help="run the experiments' examples, and only them")
    parser.add_argument("--only", help="run only the examples whose command contains TEXT")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = [os.path.abspath(f) for f in args.files] or \
        [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    series = series_of(args.binary)
    stale = checked = 0
    with tempfile.TemporaryDirectory(prefix="sh-doc-examples-") as cache:
        for path in files:
            lines, examples = examples_of(path)
            for ex in reversed(examples):	# replacing from the end keeps earlier indices
                wanted = ex.kind or "6.1"
                if args.only and args.only not in ex.command:
                    continue
                if (ex.kind == "experiments") != args.experiments:
                    continue
                if ex.kind == "experiments":
                    pass
                elif ex.kind == "varies":
                    if not args.update:
                        continue
                elif wanted != series:
                    continue
                made = run(ex, args.binary, cache)
                checked += 1
                if args.update:
                    lines[ex.first:ex.last] = made.split("\n")
                elif made != ex.text:
                    stale += 1
                    print(f"{ex.where()}: the example of `{ex.command}` is not what the binary prints:")
                    sys.stdout.writelines(difflib.unified_diff(
                        (ex.text + "\n").splitlines(True), (made + "\n").splitlines(True),
                        "committed", "printed now"))
            if args.update:
                with open(path, "w", encoding="utf-8") as f:
                    f.write("\n".join(lines))
    verb = "written" if args.update else "checked"
    against = "on the builds their commands name" if args.experiments else f"against Linux {series}"
    print(f"doc examples: {checked} {verb} {against}, {stale} stale")
    if stale:
        print("  (scripts/doc-examples.py --update writes them; commit the result if the change is meant)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
