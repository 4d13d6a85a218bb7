#!/usr/bin/env bash
# The boards of two kernel trees booted by each tree's own code: for every
# DTS of the first tree whose CPUs carry capacity-dmips-mhz and that the
# second tree has too (matched by file name: 6.5 moved arm's DTS files into
# vendor folders), `platform show --json` on both builds, and a line per
# board whose kernel-side facts differ: CPU capacities (cpu_scale), the
# energy model's power and cost per state, the states the EM marks
# inefficient, and the EAS verdict. Each build reads its own tree's DTS.
#
#   scripts/experiments/cross-version-boards.sh [BUILD_A [BUILD_B]]
# (default build/ and build-6.12/; needs python3 for the JSON)
set -euo pipefail
cd "$(dirname "$0")/../.."
a=${1:-build} b=${2:-build-6.12}
tree_of() {	# KERNEL_SRC, or the tarball extracted into the build
	local src
	src=$(sed -n 's/^KERNEL_SRC:PATH=//p' "$1/CMakeCache.txt" 2>/dev/null)
	if [ -n "$src" ]; then echo "$src"; else ls -d "$1"/kernel/linux-source-* 2>/dev/null | head -1; fi
}
tree_a=$(tree_of "$a") tree_b=$(tree_of "$b")
[ -n "$tree_a" ] && [ -n "$tree_b" ] || { echo "configure both builds first (scripts/test.sh)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
find "$tree_b"/arch/arm{,64}/boot/dts -name '*.dts' > "$work/b-files"
# the files that say capacity-dmips-mhz, then those including them, until
# no file is added; the boards are the .dts among them
grep -rl --include='*.dts' --include='*.dtsi' 'capacity-dmips-mhz' "$tree_a"/arch/arm{,64}/boot/dts |
	sort > "$work/with" || true
while :; do
	sed 's|.*/||' "$work/with" | sort -u > "$work/names-with"
	grep -rlF --include='*.dts' --include='*.dtsi' -f <(sed 's/.*/"&"/' "$work/names-with") \
		"$tree_a"/arch/arm{,64}/boot/dts | cat - "$work/with" | sort -u > "$work/more" || true
	cmp -s "$work/more" "$work/with" && break
	mv "$work/more" "$work/with"
done
grep '\.dts$' "$work/with" > "$work/a-files" || true

show() {	# build file -> json (or an error object)
	"$1/harness/sched-harness" platform show --json "$2" 2> "$work/err" ||
		printf '{"error": %s}' "$(python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()))' < "$work/err")"
}

while read -r fa; do
	name=$(basename "$fa")
	fb=$(grep "/$name\$" "$work/b-files" | head -1) || true
	[ -n "$fb" ] || continue
	show "$a" "$fa" > "$work/$name.a.json"
	show "$b" "$fb" > "$work/$name.b.json"
	echo "$name"
done < "$work/a-files" > "$work/names"

python3 - "$work" "$(basename "$tree_a")" "$(basename "$tree_b")" <<'EOF'
import json, sys
work, ta, tb = sys.argv[1:4]

def facts(path):
    d = json.load(open(path))
    if "error" in d:
        return {"error": d["error"].splitlines()[-1] if d["error"] else "failed"}
    k = d.get("kernel") or {}
    return {
        "capacity": [c["cpu_scale"] for c in k.get("cpus", [])],
        "em": {tuple(p["cpus"]): [(s["frequency"], s["power"], s["cost"], s["inefficient"])
                                  for s in p["states"]] for p in k.get("perf_domains", [])},
        "eas": k.get("eas"),
        # what the kernel is given: the CPUs' DT facts and their OPPs
        "dt": ([(c["capacity_dmips_mhz"], c["dynamic_power_coefficient"]) for c in d["cpus"]],
               [[(o["hz"], o["microvolt"], o.get("turbo")) for o in t["opps"]] for t in d["opp_tables"]]),
    }

rows, same = [], 0
for name in open(f"{work}/names").read().split():
    fa, fb = facts(f"{work}/{name}.a.json"), facts(f"{work}/{name}.b.json")
    if "error" in fa or "error" in fb:
        rows.append((name, "boot", f"{ta}: {fa.get('error', 'ok')}; {tb}: {fb.get('error', 'ok')}"))
        continue
    what = []
    if fa["capacity"] != fb["capacity"]:
        what.append(f"capacity {sorted(set(fa['capacity']))} -> {sorted(set(fb['capacity']))}")
    if fa["em"].keys() != fb["em"].keys():
        what.append(f"perf domains {list(fa['em'])} -> {list(fb['em'])}")
    else:
        for cpus, sa in fa["em"].items():
            sb = fb["em"][cpus]
            label = f"pd{cpus[0]}"
            if [s[0] for s in sa] != [s[0] for s in sb]:
                what.append(f"{label} states {len(sa)} -> {len(sb)}")
                continue
            if [s[1] for s in sa] != [s[1] for s in sb]:
                what.append(f"{label} power")
            if [s[2] for s in sa] != [s[2] for s in sb]:
                what.append(f"{label} cost")
            marks = [f"{s[0] // 1000}{'+' if t[3] else '-'}" for s, t in zip(sa, sb) if s[3] != t[3]]
            if marks:
                what.append(f"{label} inefficient MHz (+ now marked, - no longer): {' '.join(marks)}")
    if fa["eas"] != fb["eas"]:
        what.append(f"EAS {fa['eas']} -> {fb['eas']}")
    if what:
        inputs = "DTS differs" if fa["dt"] != fb["dt"] else "same DTS facts"
        rows.append((name, inputs, "; ".join(what)))
    else:
        same += 1

same_dts = sum(1 for r in rows if r[1] == "same DTS facts")
print(f"{len(rows) + same} boards in both trees, booted by {ta} and {tb}: "
      f"{same} identical kernel-side facts, {len(rows)} differ "
      f"({same_dts} of them from the same DTS facts: the kernel's code)\n")
for name, kind, text in sorted(rows, key=lambda r: (r[1] != "same DTS facts", r[0])):
    print(f"{name:40s} {kind:15s} {text}")
EOF
