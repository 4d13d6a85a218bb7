#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""docs/architecture.md's map, checked against the code, so it cannot go stale.

Two tables of its section "Folders, and who calls whom" are read:

- the layers (| layer | folders | what it is |): every #include "a/b..."
  and #include <kshim/...> of a source in a folder of layer N names a
  folder of layer N or below, every source folder is in some layer, and
  kernel-shim/ includes nothing of sched/ or thermal/ (the text below
  the table);
- the rooms (| folder | today |): every folder of the repository's code
  (the top-level folders, each folder of harness/) has a row, and every
  row names a folder that exists.

    scripts/check-architecture.py [--root DIR]   exit 1 naming each departure
"""
import argparse
import os
import re
import sys

SOURCES = (".c", ".h", ".cpp")
# the folders whose code is layered (tests, scripts, bench, cmake and docs
# use every layer, and are rooms of their own)
LAYERED_TOP = ("support", "dts", "kernel-shim", "sched", "thermal", "harness")


def table_rows(text, header):
    """The rows (lists of cells) of the markdown table whose header starts so."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(header):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip().strip("|").split("|")])
            return rows
    return None


def folders_of(cell):
    """The backquoted folders a cell names, without their trailing slash."""
    return [f.rstrip("/") for f in re.findall(r"`([a-z0-9_./-]+/?)`", cell)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()
    root = args.root
    doc_path = os.path.join(root, "docs", "architecture.md")
    with open(doc_path, encoding="utf-8") as f:
        doc = f.read()
    problems = []

    layers = table_rows(doc, "| layer | folders |")
    rooms = table_rows(doc, "| folder | today |")
    if layers is None or rooms is None:
        print(f"{doc_path}: the layer table or the room table is missing", file=sys.stderr)
        return 1

    layer_of = {}
    for row in layers:
        for folder in folders_of(row[1]):
            layer_of[folder] = int(row[0])

    def layer(path):
        """The layer of a repository path: its longest listed folder."""
        best = None
        for folder, n in layer_of.items():
            if path == folder or path.startswith(folder + "/"):
                if best is None or len(folder) > len(best[0]):
                    best = (folder, n)
        return best

    include = re.compile(r'^\s*#\s*include\s+(?:"((?:' + "|".join(LAYERED_TOP) + r')/[^"]+)"|<(kshim/[^>]+)>)')
    checked = 0
    for top in LAYERED_TOP:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
                own = layer(path)
                if own is None:
                    problems.append(f"{path}: its folder is in no layer of docs/architecture.md")
                    continue
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = include.match(line)
                        if not m:
                            continue
                        target = m.group(1) or "kernel-shim/include/" + m.group(2)
                        theirs = layer(target)
                        checked += 1
                        if theirs is None:
                            problems.append(f"{path}:{number}: includes {target}, in no layer")
                        elif path.startswith("kernel-shim/") and target.startswith(("sched/", "thermal/")):
                            # "kernel-shim/ calls kernel code only as an
                            # architecture does ... never the glue of sched/
                            # or thermal/"
                            problems.append(f"{path}:{number}: kernel-shim/ includes {target}, the glue of "
                                            f"a side it stands under")
                        elif theirs[1] > own[1]:
                            problems.append(f"{path}:{number}: layer {own[1]} ({own[0]}) includes {target}, "
                                            f"of layer {theirs[1]} ({theirs[0]})")

    named = set()
    for row in rooms:
        for folder in folders_of(row[0]):
            named.add(folder)
            if not os.path.isdir(os.path.join(root, folder)):
                problems.append(f"docs/architecture.md: the room `{folder}/` does not exist")
    on_disk = [d for d in sorted(os.listdir(root))
               if os.path.isdir(os.path.join(root, d)) and not d.startswith((".", "build"))]
    on_disk += ["harness/" + d for d in sorted(os.listdir(os.path.join(root, "harness")))
                if os.path.isdir(os.path.join(root, "harness", d))]
    for folder in on_disk:
        if folder not in named and folder != "harness":
            problems.append(f"docs/architecture.md: the folder {folder}/ has no row in the room table")

    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print(f"architecture: {checked} includes within their layers, {len(named)} rooms, all on disk")
    return 0


if __name__ == "__main__":
    sys.exit(main())
