#!/usr/bin/env bash
# A CI rehearsal: .ci/run (scripts/test.sh) on a fresh clone of HEAD, with
# an image cache of its own, so that the other series' trees are fetched
# and every tarball extracted as on a fresh machine; then its stage lines
# ("=== ... in N s (the whole run: ...; disk: ...)") as the table of
# docs/testing.md between
#   <!-- ci-rehearsal: begin -->  and  <!-- ci-rehearsal: end -->
# so that the page's times are regenerated from a run, never hand-kept.
# The packages already on the machine stay (apt-get is quick for them);
# what else the machine runs meanwhile makes every time an upper bound.
#
#   scripts/ci-rehearsal.sh                   rehearse (about an hour on 2 cores), write the table
#   scripts/ci-rehearsal.sh --from-log LOG    the table from an earlier rehearsal's log
#   scripts/ci-rehearsal.sh --no-write ...    print the table only
#
# The clone and its cache are in $TMPDIR (some 15 GB), removed at the end;
# the log stays (its path is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
page=docs/testing.md
begin_marker='<!-- ci-rehearsal: begin -->'
end_marker='<!-- ci-rehearsal: end -->'
die() { echo "ci-rehearsal: $*" >&2; exit 2; }

log='' write=1
while [ $# -gt 0 ]; do
	case $1 in
	--from-log) [ $# -ge 2 ] || die "--from-log LOG"; log=$2; shift 2 ;;
	--no-write) write=0; shift ;;
	*) die "unknown argument '$1' (--from-log LOG, --no-write)" ;;
	esac
done
awk -v b="$begin_marker" -v e="$end_marker" '
	$0 == b { nb++; lb = NR }
	$0 == e { ne++; le = NR }
	END { exit !(nb == 1 && ne == 1 && lb < le) }' "$page" ||
	die "$page needs the lines '$begin_marker' and '$end_marker', once each and in that order"

if [ -z "$log" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/sched-harness-rehearsal.XXXXXX")
	log=$(mktemp "${TMPDIR:-/tmp}/sched-harness-rehearsal.XXXXXX.log")
	trap 'rm -rf "$work"' EXIT
	commit=$(git rev-parse --short HEAD)
	git clone -q . "$work/clone"
	# ../shared beside the clone, as CI has it
	[ -d ../shared ] && ln -s "$(cd ../shared && pwd)" "$work/shared"
	echo "=== rehearsal of $commit on $(nproc) cores: $log" | tee "$log"
	start=$SECONDS
	set +e
	(cd "$work/clone" && XDG_CACHE_HOME=$work/cache SCHED_HARNESS_CACHE= .ci/run) >>"$log" 2>&1
	status=$?
	set -e
	echo "=== rehearsal exit status $status after $((SECONDS - start)) s" | tee -a "$log"
fi
[ -r "$log" ] || die "--from-log $log: cannot read it"

table=$(awk '
	/^=== rehearsal of / { commit = $4; cores = $6 }
	/^=== rehearsal exit status / { status = $5; total = $7 }
	/^=== disk: / { free_at_start = $3 }
	# "=== build-5.10 built in 303 s": a part of the stage that follows
	/^=== [^ ]+ built in [0-9]+ s$/ { built = built (built ? ", " : "") "building " $2 " " $(NF - 1) " s"; next }
	/^=== .* in [0-9]+ s \(the whole run: [0-9]+ s; disk: / {
		line = $0
		sub(/^=== /, "", line)
		stage = line; sub(/ in [0-9]+ s \(the whole run:.*$/, "", stage); sub(/,$/, "", stage)
		secs = line; sub(/^.* in /, "", secs); sub(/ s \(the whole run:.*$/, "", secs)
		disk = line; sub(/^.*disk: /, "", disk); sub(/ GB more.*$/, "", disk)
		whole = line; sub(/^.*the whole run: /, "", whole); sub(/ s;.*$/, "", whole)
		if (built) stage = stage " (" built ")"
		built = ""
		rows = rows sprintf("| %s | %d | %s |\n", stage, secs, disk)
		last = whole
		if (disk + 0 > peak) peak = disk + 0
	}
	END {
		if (!rows) exit 1
		print "| stage | seconds | disk taken since the start, GB |"
		print "| --- | --- | --- |"
		printf "%s", rows
		if (total == "") total = last
		printf "| **the whole run%s** | **%d** (%.1f min) | %s |\n", status == "" ? "" : ", exit status " status,
			total, total / 60, peak
		print ""
		printf "Rehearsed on %s%s with `scripts/ci-rehearsal.sh`", commit ? "commit " commit : "a commit not recorded",
			cores ? " on " cores " cores" : ""
		if (free_at_start) printf ", %s GB free at the start", free_at_start
		print "; the disk column is what `df` says of the file system, and other work on the machine during the rehearsal makes every figure an upper bound."
	}' "$log") || die "$log has no stage lines of scripts/test.sh"
echo "$table"
echo "ci-rehearsal: the log: $log" >&2

if [ "$write" = 1 ]; then
	fragment=$(mktemp)
	echo "$table" >"$fragment"
	awk -v b="$begin_marker" -v e="$end_marker" -v frag="$fragment" '
		$0 == b { print; print ""; while ((getline line < frag) > 0) print line; print ""; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$page" >"$fragment.page"
	cat "$fragment.page" >"$page"
	rm -f "$fragment" "$fragment.page"
	echo "ci-rehearsal: wrote the table into $page" >&2
fi
