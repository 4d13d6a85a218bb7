#!/usr/bin/env bash
# The boards of several kernel trees booted by each tree's own code, each
# tree against the one before it (5.10 -> 6.1 -> 6.12 -> 7.3): for every
# DTS of the older tree whose CPUs carry capacity-dmips-mhz and that the
# newer tree has too (matched by file name: 6.5 moved arm's DTS files into
# vendor folders), `platform show --json` on both builds, and a line per
# board whose kernel-side facts differ: CPU capacities (cpu_scale), the
# energy model's power unit, power and cost per state, the states the EM
# marks inefficient, the EAS verdict, and the sched domains (levels' names
# and spans, as CPU 0 sees them). Each build reads its own tree's DTS.
# "same DTS facts" compares what the EM and capacities are made of
# (capacity-dmips-mhz, dynamic-power-coefficient, OPPs) and the cpu-map,
# not the cache nodes: MC's span follows the last-level cache read from
# next-level-cache, so a domain change there may be the DTS's caches.
#
#   scripts/experiments/cross-version-boards.sh [BUILD...]
# (default: those of build-5.10/, build/, build-6.12/, build-7.3/ that are
# built, oldest first; needs python3 for the JSON)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/experiments/cross-version-builds.sh
[ ${#builds[@]} -ge 2 ] || { echo "give two builds or more (scripts/test.sh makes them)" >&2; exit 1; }
tree_of() {	# KERNEL_SRC, or the tarball extracted into the build
	local src
	src=$(sed -n 's/^KERNEL_SRC:PATH=//p' "$1/CMakeCache.txt" 2>/dev/null)
	if [ -n "$src" ]; then echo "$src"; else ls -d "$1"/kernel/linux-source-* 2>/dev/null | head -1; fi
}
trees=()
for b in "${builds[@]}"; do
	t=$(tree_of "$b")
	[ -n "$t" ] || { echo "$b: configure it first (scripts/test.sh)" >&2; exit 1; }
	trees+=("$t")
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

boards_of() {	# tree -> its .dts whose CPUs carry capacity-dmips-mhz, one a line
	local tree=$1 with="$work/with" more="$work/more"
	# the files that say capacity-dmips-mhz, then those including them,
	# until no file is added; the boards are the .dts among them
	grep -rl --include='*.dts' --include='*.dtsi' 'capacity-dmips-mhz' "$tree"/arch/arm{,64}/boot/dts |
		sort > "$with" || true
	while :; do
		sed 's|.*/||' "$with" | sort -u > "$work/names-with"
		grep -rlF --include='*.dts' --include='*.dtsi' -f <(sed 's/.*/"&"/' "$work/names-with") \
			"$tree"/arch/arm{,64}/boot/dts | cat - "$with" | sort -u > "$more" || true
		cmp -s "$more" "$with" && break
		mv "$more" "$with"
	done
	grep '\.dts$' "$with" || true
}

show() {	# index file name -> $work/NAME.INDEX.json (once; or an error object)
	local out="$work/$3.$1.json"
	[ -s "$out" ] && return 0
	"${builds[$1]}/harness/sched-harness" platform show --json "$2" > "$out" 2> "$work/err" ||
		printf '{"error": %s}' "$(python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()))' < "$work/err")" > "$out"
}

for ((i = 1; i < ${#builds[@]}; i++)); do
	boards_of "${trees[i-1]}" > "$work/a-files"
	find "${trees[i]}"/arch/arm{,64}/boot/dts -name '*.dts' > "$work/b-files"
	while read -r fa; do
		name=$(basename "$fa")
		fb=$(grep "/$name\$" "$work/b-files" | head -1) || true
		[ -n "$fb" ] || continue
		show $((i - 1)) "$fa" "$name"
		show "$i" "$fb" "$name"
		echo "$name"
	done < "$work/a-files" > "$work/names.$i"
	[ $i -gt 1 ] && echo
	python3 - "$work" $((i - 1)) "$i" "$(basename "${trees[i-1]}")" "$(basename "${trees[i]}")" <<'EOF'
import json, sys
work, ia, ib, ta, tb = sys.argv[1:6]

def facts(path):
    d = json.load(open(path))
    if "error" in d:
        return {"error": d["error"].splitlines()[-1] if d["error"] else "failed"}
    k = d.get("kernel") or {}
    pds = k.get("perf_domains", [])
    doms = (k.get("sched_domains") or {}).get("cpu0", [])
    return {
        "version": k.get("version"),
        "capacity": [c["cpu_scale"] for c in k.get("cpus", [])],
        "unit": sorted({p.get("power_unit", "microwatts" if p.get("microwatts") else "milliwatts")
                        for p in pds}),
        "em": {tuple(p["cpus"]): [(s["frequency"], s["power"], s["cost"], s["inefficient"])
                                  for s in p["states"]] for p in pds},
        "eas": k.get("eas"),
        "domains": [(s["name"], tuple(s["span"])) for s in doms],
        # what the kernel is given: the CPUs' DT facts, their OPPs and cpu-map
        "dt": ([(c["capacity_dmips_mhz"], c["dynamic_power_coefficient"],
                 json.dumps(c.get("cpu_map"))) for c in d["cpus"]],
               [[(o["hz"], o["microvolt"], o.get("turbo")) for o in t["opps"]] for t in d["opp_tables"]]),
    }

def span(cpus):
    cpus = sorted(cpus)
    if cpus == list(range(cpus[0], cpus[-1] + 1)):
        return f"{cpus[0]}-{cpus[-1]}" if len(cpus) > 1 else f"{cpus[0]}"
    return ",".join(map(str, cpus))

def domains(ds):
    return " ".join(f"{n}:{span(s)}" for n, s in ds) or "none"

unit_short = {"milliwatts": "mW", "microwatts": "uW"}
rows, same, versions = [], 0, set()
for name in open(f"{work}/names.{ib}").read().split():
    fa, fb = facts(f"{work}/{name}.{ia}.json"), facts(f"{work}/{name}.{ib}.json")
    if "error" in fa or "error" in fb:
        rows.append((name, "boot", f"{ta}: {fa.get('error', 'ok')}; {tb}: {fb.get('error', 'ok')}"))
        continue
    versions.add((fa["version"], fb["version"]))
    what = []
    if fa["capacity"] != fb["capacity"]:
        what.append(f"capacity {sorted(set(fa['capacity']))} -> {sorted(set(fb['capacity']))}")
    scale = 1
    if fa["unit"] != fb["unit"]:
        what.append("EM unit " + ",".join(unit_short.get(u, u) for u in fa["unit"]) + " -> "
                    + ",".join(unit_short.get(u, u) for u in fb["unit"]))
        if fa["unit"] == ["milliwatts"] and fb["unit"] == ["microwatts"]:
            scale = 1000
    if fa["em"].keys() != fb["em"].keys():
        what.append(f"perf domains {[span(c) for c in fa['em']]} -> {[span(c) for c in fb['em']]}")
    else:
        for cpus, sa in fa["em"].items():
            sb = fb["em"][cpus]
            label = f"pd{cpus[0]}"
            if [s[0] for s in sa] != [s[0] for s in sb]:
                what.append(f"{label} states {len(sa)} -> {len(sb)}")
                continue
            # power in the newer unit; within 1 uW per mW of rounding counts as the same
            if any(abs(s[1] * scale - t[1]) > (scale if scale > 1 else 0) for s, t in zip(sa, sb)):
                what.append(f"{label} power" + (" (beyond x1000)" if scale > 1 else ""))
            if [s[2] for s in sa] != [s[2] for s in sb]:
                what.append(f"{label} cost")
            marks = [f"{s[0] // 1000}{'+' if t[3] else '-'}" for s, t in zip(sa, sb) if s[3] != t[3]]
            if marks:
                what.append(f"{label} inefficient MHz (+ now marked, - no longer): {' '.join(marks)}")
    if fa["eas"] != fb["eas"]:
        what.append(f"EAS {fa['eas']} -> {fb['eas']}")
    if fa["domains"] != fb["domains"]:
        what.append(f"domains {domains(fa['domains'])} -> {domains(fb['domains'])}")
    if what:
        inputs = "DTS differs" if fa["dt"] != fb["dt"] else "same DTS facts"
        rows.append((name, inputs, "; ".join(what)))
    else:
        same += 1

same_dts = sum(1 for r in rows if r[1] == "same DTS facts")
vs = ", ".join(f"{a} -> {b}" for a, b in sorted(versions))
print(f"## {ta} -> {tb} ({vs})\n")
print(f"{len(rows) + same} boards in both trees, booted by {ta} and {tb}: "
      f"{same} identical kernel-side facts, {len(rows)} differ "
      f"({same_dts} of them from the same DTS facts: the kernel's code)\n")
for name, kind, text in sorted(rows, key=lambda r: (r[1] != "same DTS facts", r[0])):
    print(f"{name:40s} {kind:15s} {text}")
EOF
done
