#!/usr/bin/env bash
# Runs scripts/guest/validate.py on every rt-app file of the validation
# suite (scripts/guest/suite/, docs/validation.md says what each checks),
# each on the CPUs suite/topologies gives it (two in one socket otherwise)
# and prints, per file, how many metrics agree, differ, are undecided and
# have too few events in each harness column (validate.py's verdicts),
# then the tables themselves.
#
#   scripts/guest/validate-suite.sh [--series 5.10|6.1|6.12|7.3] [--build DIR] [--repeat N] [--icount] [--boot-each] [--out DIR]
#                                   [--again DIR] [FILE.json...]
#
# --again DIR compares once more the guest runs an earlier suite kept in
# DIR (its --out), without booting the guest.
#
# Exit status: 0 when every metric of every file agrees, 1 when some
# differ, 2 for bad arguments, 3 when a run failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=
again=
args=()
files=()
while (($#)); do
	case $1 in
	--icount | --boot-each) args+=("$1"); shift ;;
	--series | --build | --repeat) args+=("$1" "$2"); shift 2 ;;
	--out) out=$2; shift 2 ;;
	--again) again=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p' >&2; exit 2 ;;
	-*) echo "validate-suite: unknown option $1" >&2; exit 2 ;;
	*) files+=("$1"); shift ;;
	esac
done
((${#files[@]})) || files=("$here"/suite/*.json)
out=${out:-$(mktemp -d -t sched-harness-suite.XXXXXX)}
mkdir -p "$out"

# count TABLE COLUMN VERDICT: a metric's line ends with its as-written
# verdict, the fed value and the fed verdict (COLUMN 2 and 0 from the end)
count() {
	awk -v col="$2" -v v="$3" '$NF ~ /^(agrees|differs|undecided|too-few-events|n\/a)$/ { n += ($(NF - col) == v) }
		END { print n + 0 }' "$1"
}

worst=0
summary=
for file in "${files[@]}"; do
	name=$(basename "$file" .json)
	status=0
	reuse=()
	if [[ -n $again ]]; then
		[[ -d $again/$name/guest ]] || { echo "validate-suite: --again $again: no $name/guest" >&2; exit 2; }
		reuse=(--guest "$again/$name/guest")
	fi
	# the file's CPUs (suite/topologies), unless --cpus says
	topology=()
	if [[ " ${args[*]} " != *" --cpus "* ]]; then
		read -r _ file_cpus file_sockets < <(grep "^$name.json " "$here/suite/topologies" 2> /dev/null) || true
		[[ -z ${file_cpus:-} ]] || topology=(--cpus "$file_cpus" --sockets "$file_sockets")
	fi
	"$here/validate.py" "${args[@]}" "${topology[@]}" "${reuse[@]}" --out "$out/$name" "$file" \
		> "$out/$name.table" 2> "$out/$name.log" || status=$?
	if ((status > 1)); then
		echo "validate-suite: $file: validate.py exited $status: $(tail -3 "$out/$name.log")" >&2
		exit "$status"
	fi
	((status > worst)) && worst=$status
	line=$(printf '  %-24s' "$name")
	for col in 2 0; do
		for v in agrees differs undecided too-few-events; do
			line+=$(printf ' %9s' "$(count "$out/$name.table" "$col" "$v")")
		done
	done
	summary+=$line$'\n'
done
echo "validate-suite: ${#files[@]} files, tables and traces in $out"
printf '  %-24s %39s %39s\n' "" "as written" "fed"
printf '  %-24s' "file"
printf ' %9s %9s %9s %9s' agree differ undecided "few evts" agree differ undecided "few evts"
printf '\n' 
printf '%s' "$summary"
for file in "${files[@]}"; do
	echo
	cat "$out/$(basename "$file" .json).table"
done
exit "$worst"
