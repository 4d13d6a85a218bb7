#!/usr/bin/env bash
# Measures what a newcomer sees the first time they type scripts/run.sh:
# a fresh clone on a fresh Debian machine of the kind this project is
# developed on, timed from scripts/run.sh to the harness's first result,
# with the packages it installs and where the time goes (apt-get,
# configure, compile, the run). The README's first-run figures come from
# here, so that they are measured rather than remembered. Needs root:
# it debootstraps the host's Debian release, chroots into it, clones the
# repository there and runs scripts/run.sh, then prints a markdown
# fragment on stdout.
#
#   scripts/first-run.sh [--write FILE] [REPO]
#   scripts/first-run.sh --base-only
#
# REPO (a path or URL) defaults to the checkout this script lives in.
# Its HEAD is cloned: uncommitted changes are NOT measured, commit first.
# --write FILE also replaces the lines between
#   <!-- first-run: begin -->  and  <!-- first-run: end -->
# in FILE with the fragment.
# --base-only makes the base system (below) if it is missing, and stops.
#
# The base system is made once and kept as $CACHE/first-run/base.tar
# (CACHE=${SCHED_HARNESS_CACHE:-$HOME/.cache/sched-harness}); delete it
# to make it again. It is a debootstrap --variant=minbase of the host's
# release from the host's own archive, with the host's Debian apt
# sources, plus what a new machine of this kind already carries
# (compilers, git, the debugging and lint tools). Each measurement unpacks
# it into a fresh folder next to it, removed (and unmounted) at exit; the
# run's log is kept as $CACHE/first-run/last-run.log.
#
# scripts/build.sh reports its phases on stderr as
# "build: <phase> <seconds> s" (packages, configure, compile); the run's
# own time is what remains of the total.
set -euo pipefail

die() {
	echo "first-run: $*" >&2
	exit 1
}
note() {
	echo "first-run: $*" >&2
}

base_only=
write_file=
repo=
while [ $# -gt 0 ]; do
	case $1 in
	--base-only) base_only=1 ;;
	--write)
		[ $# -ge 2 ] || die "--write needs a FILE"
		write_file=$2
		shift
		;;
	--write=*) write_file=${1#--write=} ;;
	-h | --help)
		sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
		exit 0
		;;
	-*) die "unknown option $1 (see --help)" ;;
	*)
		[ -z "$repo" ] || die "one REPO only (see --help)"
		repo=$1
		;;
	esac
	shift
done
[ -z "$base_only" ] || [ -z "$write_file" ] || die "--base-only measures nothing to --write"
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, mount and chroot need it)"

cache=${SCHED_HARNESS_CACHE:-$HOME/.cache/sched-harness}
mkdir -p "$cache/first-run"
# Canonical, so that the mount table and /proc/PID/root compare equal;
# no blanks, because the mount table escapes them and the check that
# nothing is still mounted before rm -rf must not miss a mount.
cache=$(realpath "$cache")
case $cache in *[[:space:]]*) die "the cache path '$cache' contains blanks; set SCHED_HARNESS_CACHE" ;; esac
first_run=$cache/first-run
base=$first_run/base.tar
script_dir=$(cd "$(dirname "$0")" && pwd)

begin_marker='<!-- first-run: begin -->'
end_marker='<!-- first-run: end -->'
# Exactly one of each, begin first: checked before the hour-long run,
# not after it.
check_markers() {
	[ -f "$1" ] || die "--write: no file $1"
	awk -v b="$begin_marker" -v e="$end_marker" '
		$0 == b { nb++; lb = NR }
		$0 == e { ne++; le = NR }
		END { exit !(nb == 1 && ne == 1 && lb < le) }' "$1" ||
		die "--write: $1 needs the lines '$begin_marker' and '$end_marker', once each and in that order"
}
[ -z "$write_file" ] || check_markers "$write_file"

# --- folders, mounts and their cleanup ---------------------------------

# What the chroot needs of the host: apt, dpkg's scripts, the compilers
# and the harness read /proc, /sys and /dev.
mounts=(proc sys dev dev/pts dev/shm)
work_dirs=()

mount_all() {
	local m
	for m in "${mounts[@]}"; do
		mkdir -p "$1/$m"
		mount --bind "/$m" "$1/$m"
	done
}
umount_all() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		if mountpoint -q "$1/${mounts[i]}"; then
			umount "$1/${mounts[i]}" 2>/dev/null || umount -l "$1/${mounts[i]}" || true
		fi
	done
}
# Anything mounted at or under $1 (debootstrap mounts its own /proc and
# /sys, and leaves them when it fails).
still_mounted() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo
}
# Processes of ours still running inside the chroot (a daemon a package
# started, a gpg-agent) would hold its mounts: end them, by pid.
end_processes_inside() {
	local p r pids=()
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		if [ "$r" = "$1" ] || [[ $r == "$1"/* ]]; then
			pids+=("${p#/proc/}")
		fi
	done
	[ ${#pids[@]} -gt 0 ] || return 0
	kill "${pids[@]}" 2>/dev/null || true
	sleep 2
	kill -KILL "${pids[@]}" 2>/dev/null || true
}
cleanup() {
	local d m
	for d in "${work_dirs[@]}"; do
		[ -d "$d" ] || continue
		end_processes_inside "$d"
		umount_all "$d"
		# /proc, /sys and /dev are bind mounts: never rm -rf through them.
		while still_mounted "$d"; do
			m=$(awk -v d="$d" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r | head -1)
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || break
		done
		if still_mounted "$d"; then
			note "$d still has mounts; left in place (unmount and remove it by hand)"
			continue
		fi
		rm -rf --one-file-system "$d"
	done
}
trap cleanup EXIT
# So that an interrupted run still unmounts and removes its folder.
trap 'exit 130' INT
trap 'exit 143' TERM

# Sets work_dir (not echoed: work_dirs must grow in this shell, not in a
# command substitution's). 755: it becomes the chroot's /, and mktemp's
# 700 would keep every user but root out of the whole system (_apt's
# downloads, su in a package's postinst).
new_work_dir() {
	work_dir=$(mktemp -d "$first_run/$1.XXXXXX")
	work_dirs+=("$work_dir")
	chmod 755 "$work_dir"
}

# Runs a command in the chroot $1 with a clean environment, as a login
# on a new machine would have it, and no terminal to ask questions on.
in_chroot() {
	local root=$1
	shift
	chroot "$root" env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@" </dev/null
}
copy_resolv_conf() {
	# rm first: a symlink left there would make cp write through it onto
	# the host's file.
	rm -f "$1/etc/resolv.conf"
	cp -L /etc/resolv.conf "$1/etc/resolv.conf"
}

# --- the host's Debian apt sources -------------------------------------

# shellcheck source=/dev/null
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release: not a Debian release?"

# Which apt source entries serve Debian itself, not a third party's
# repository (Docker's, NodeSource's): every URI ends in /debian or
# /debian-something (debian-security, debian-ports...), its components
# are Debian's, and it is signed by Debian's archive keyring if by a named
# key at all. A third party cannot sign with Debian's keys, so its entries
# name their own.
is_debian_awk='
function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
function is_debian(uris, comps, signed,   n, i, w, last) {
	n = split(trim(uris), w, /[ \t]+/)
	if (n == 0) return 0
	for (i = 1; i <= n; i++) {
		last = w[i]
		sub(/\/+$/, "", last)
		sub(/.*\//, "", last)
		if (last !~ /^debian(-[a-z]+)?$/) return 0
	}
	n = split(trim(comps), w, /[ \t]+/)
	for (i = 1; i <= n; i++)
		if (w[i] !~ /^(main|contrib|non-free|non-free-firmware)$/) return 0
	n = split(trim(signed), w, /[ \t]+/)
	for (i = 1; i <= n; i++)
		if (w[i] !~ /debian-archive/) return 0
	return 1
}
function has_word(list, word,   n, i, w) {
	n = split(trim(list), w, /[ \t]+/)
	for (i = 1; i <= n; i++) if (w[i] == word) return 1
	return 0
}'

# A deb822 file (*.sources). mode=uri: the first URI of the first Debian
# "deb" stanza whose Suites include the codename; mode=filter: the
# Debian stanzas, as written.
deb822_awk() {
	awk -v mode="$1" -v codename="$codename" "$is_debian_awk"'
	BEGIN { RS = ""; FS = "\n" }
	{
		split("", f)
		key = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^#/) continue
			if ($i ~ /^[ \t]/) { if (key != "") f[key] = f[key] " " $i; continue }
			p = index($i, ":")
			if (!p) continue
			key = tolower(trim(substr($i, 1, p - 1)))
			f[key] = substr($i, p + 1)
		}
		if (!("uris" in f) || tolower(trim(f["enabled"])) == "no") next
		if (!is_debian(f["uris"], f["components"], f["signed-by"])) next
		if (mode == "uri") {
			if (has_word(f["types"], "deb") && has_word(f["suites"], codename)) {
				split(trim(f["uris"]), u, /[ \t]+/)
				print u[1]
				exit
			}
			next
		}
		printf "%s%s\n", (kept++ ? "\n" : ""), $0
	}' "$2"
}
# A one-line-style file (sources.list, *.list): the same, for
# "deb [options] URI suite components" lines.
oneline_awk() {
	awk -v mode="$1" -v codename="$codename" "$is_debian_awk"'
	$1 == "deb" || $1 == "deb-src" {
		n = split(trim($0), w, /[ \t]+/)
		i = 2
		signed = ""
		if (w[i] ~ /^\[/) {
			for (; i <= n; i++) {
				o = w[i]
				gsub(/\[/, "", o)
				gsub(/\]/, "", o)
				if (o ~ /^signed-by=/) signed = signed " " substr(o, 11)
				if (w[i] ~ /\]$/) { i++; break }
			}
		}
		uri = w[i]
		suite = w[i + 1]
		comps = ""
		for (j = i + 2; j <= n && w[j] !~ /^#/; j++) comps = comps " " w[j]
		if (!is_debian(uri, comps, signed)) next
		if (mode == "uri") {
			if (w[1] == "deb" && suite == codename) { print uri; exit }
			next
		}
		print
	}' "$2"
}

# The host's enabled source files, deb822 ones first.
source_files() {
	local f
	for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		case ${f##*/} in *.disabled*) continue ;; esac
		echo "$f"
	done
}
sources_awk() {
	case $2 in
	*.sources) deb822_awk "$@" ;;
	*) oneline_awk "$@" ;;
	esac
}

archive_uri() {
	local f uri
	while read -r f; do
		uri=$(sources_awk uri "$f")
		if [ -n "$uri" ]; then
			echo "$uri"
			return
		fi
	done < <(source_files)
	die "no Debian archive for $codename in the host's apt sources (/etc/apt/sources.list.d/*.sources, /etc/apt/sources.list)"
}

# The host's Debian entries into the chroot $1, in files of the same
# names, so that it sees the suites the host sees (updates, security)
# and not only the one debootstrap wrote.
copy_sources() {
	local f kept out n=0
	rm -f "$1/etc/apt/sources.list"
	while read -r f; do
		kept=$(sources_awk filter "$f")
		[ -n "$kept" ] || continue
		out=$1${f}
		mkdir -p "$(dirname "$out")"
		printf '%s\n' "$kept" >"$out"
		note "apt sources: $f"
		n=$((n + 1))
	done < <(source_files)
	[ "$n" -gt 0 ] || die "no Debian entries in the host's apt sources"
}

# --- step 1: the base system -------------------------------------------

# What a new machine of this kind already has: the toolchain and git a
# developer's image carries, and the debugging and lint tools it ships.
preinstalled=(g++ cmake git make python3 ca-certificates gdb valgrind clang-format clang-tidy cppcheck)

make_base() {
	local uri root t0 t1 t2 t3
	if ! command -v debootstrap >/dev/null; then
		note "installing debootstrap"
		DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >&2
	fi
	uri=$(archive_uri)
	new_work_dir base
	root=$work_dir
	note "making $base: debootstrap --variant=minbase $codename from $uri"
	t0=$(date +%s.%N)
	if ! debootstrap --variant=minbase "$codename" "$root" "$uri" >&2; then
		# Kept: the folder it is in goes at exit.
		cp "$root/debootstrap/debootstrap.log" "$first_run/debootstrap.log" 2>/dev/null || true
		die "debootstrap failed (its log: $first_run/debootstrap.log)"
	fi
	t1=$(date +%s.%N)

	copy_sources "$root"
	# No daemon a package installs (munge, slurmd later on) starts inside
	# the chroot: it would outlive the chroot and hold its mounts. On a
	# real machine they start in the background of apt-get.
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	mount_all "$root"
	copy_resolv_conf "$root"
	in_chroot "$root" apt-get update -q >&2
	# Up to date, as a machine in use is: otherwise the measured apt-get
	# would also pay for the security updates its packages pull in.
	in_chroot "$root" apt-get upgrade -y -q >&2
	# With Recommends, as apt installs by default here and on the machine
	# this base stands for.
	in_chroot "$root" apt-get install -y -q "${preinstalled[@]}" >&2
	# No .debs, and no package lists: every measurement then downloads the
	# same (all the indexes), however old the base is.
	in_chroot "$root" apt-get clean
	find "$root/var/lib/apt/lists" -maxdepth 1 -type f -delete
	t2=$(date +%s.%N)

	end_processes_inside "$root"
	umount_all "$root"
	! still_mounted "$root" || die "$root still has mounts after unmounting; not archiving it"
	tar -C "$root" --numeric-owner --xattrs --xattrs-include='*' -cf "$base.part" .
	mv "$base.part" "$base"
	t3=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
		printf "first-run: debootstrap %.0f s, preinstall %.0f s, tar %.0f s\n", b - a, c - b, d - c }' >&2
	note "$base: $(du -h "$base" | cut -f1), $(count_packages "$root") packages"
}
count_packages() {
	dpkg-query --admindir="$1/var/lib/dpkg" -W -f='${Package}\n' | wc -l
}

if [ -f "$base" ]; then
	note "base system: $base (delete it to make it again)"
else
	rm -f "$base.part"
	make_base
fi
[ -z "$base_only" ] || exit 0

# --- step 2: a measurement ---------------------------------------------

# The repository, at its HEAD. safe.directory: reading a checkout some
# other user owns is what the caller asked for.
git_=(git -c safe.directory='*')
src=${repo:-$("${git_[@]}" -C "$script_dir" rev-parse --show-toplevel)}
head_commit=
if [ -d "$src" ]; then
	head_commit=$("${git_[@]}" -C "$src" rev-parse HEAD)
	dirty=$("${git_[@]}" -C "$src" status --porcelain --untracked-files=no | wc -l)
	if [ "$dirty" -gt 0 ]; then
		note "$dirty files of $src have uncommitted changes: they are not measured, its HEAD is"
	fi
fi

new_work_dir run
root=$work_dir
tar -C "$root" --numeric-owner --xattrs --xattrs-include='*' -xpf "$base"
# The archive's "." sets it again; a base made before it was 755 had 700.
chmod 755 "$root"
mount_all "$root"
copy_resolv_conf "$root"
# --no-hardlinks: the chroot gets its own objects, as a clone over the
# network would.
"${git_[@]}" clone -q --no-hardlinks "$src" "$root/root/sched-harness"
if [ -n "$head_commit" ] && [ "$("${git_[@]}" -C "$root/root/sched-harness" rev-parse HEAD)" != "$head_commit" ]; then
	# A detached HEAD: clone checked out the default branch instead.
	"${git_[@]}" -C "$root/root/sched-harness" checkout -q "$head_commit"
fi
note "measuring $src at $("${git_[@]}" -C "$root/root/sched-harness" rev-parse --short HEAD) (its HEAD, not its uncommitted changes)"

# dpkg-query's own ${Package}, not the shell's.
# shellcheck disable=SC2016
in_chroot "$root" dpkg-query -W -f='${Package}\n' | sort -u >"$root/.packages-before"

log=$first_run/last-run.log
note "running scripts/run.sh in the chroot (log: $log)"
start=$(date +%s.%N)
rc=0
chroot "$root" env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
	bash -c 'cd /root/sched-harness && time scripts/run.sh' </dev/null >"$log" 2>&1 || rc=$?
end=$(date +%s.%N)
total=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
if [ "$rc" -ne 0 ]; then
	note "scripts/run.sh failed (exit $rc) after $total s; the last 40 lines of $log:"
	tail -n 40 "$log" >&2
	exit 1
fi

# shellcheck disable=SC2016
in_chroot "$root" dpkg-query -W -f='${Package}\n' | sort -u >"$root/.packages-after"
mapfile -t installed < <(comm -13 "$root/.packages-before" "$root/.packages-after")
# Flagged: the big ones a newcomer notices, for what they bring
# (a Slurm cluster's daemons, a full-system emulator, a Qt GUI).
mapfile -t heavy < <(printf '%s\n' "${installed[@]}" |
	grep -E '^(slurm-wlm|slurmctld|slurmd|munge|qemu-system-x86|libqt5.*|qt.*)$' || true)

# The last "build: <phase> <seconds> s" line of each phase, if any.
phase() {
	awk -v p="$1" '$0 ~ ("^build: " p " [0-9]+([.][0-9]+)? s$") { v = $3 } END { if (v != "") print v }' "$log"
}
packages_s=$(phase packages)
configure_s=$(phase configure)
compile_s=$(phase compile)
run_s=
if [ -n "$packages_s" ] && [ -n "$configure_s" ] && [ -n "$compile_s" ]; then
	run_s=$(awk -v t="$total" -v a="$packages_s" -v b="$configure_s" -v c="$compile_s" 'BEGIN { printf "%.1f", t - a - b - c }')
fi
# Whole seconds, but a tenth under ten seconds.
secs() {
	if [ -z "$1" ]; then
		echo "not reported"
	else
		awk -v s="$1" 'BEGIN { if (s < 10) printf "%.1f\n", s; else printf "%.0f\n", s }'
	fi
}

fragment=$root/.fragment
{
	echo "| stage | seconds |"
	echo "| --- | --- |"
	echo "| packages (apt-get: ${#installed[@]} packages) | $(secs "$packages_s") |"
	echo "| configure (kernel tree extracted) | $(secs "$configure_s") |"
	echo "| compile | $(secs "$compile_s") |"
	echo "| the run | $(secs "$run_s") |"
	echo "| **from scripts/run.sh to the first result** | $(secs "$total") |"
	echo
	if [ ${#installed[@]} -gt 0 ]; then
		echo "Installed by scripts/run.sh (${#installed[@]}): $(printf '%s\n' "${installed[@]}" | paste -sd, - | sed 's/,/, /g')."
	else
		echo "Installed by scripts/run.sh: nothing."
	fi
	echo
	if [ ${#heavy[@]} -gt 0 ]; then
		echo "Among them: $(printf '%s\n' "${heavy[@]}" | paste -sd, - | sed 's/,/, /g')."
	else
		echo "None of slurm-wlm, slurmctld, slurmd, munge, qemu-system-x86 or Qt among them."
	fi
	echo
	echo "Measured with nproc = $(nproc)."
} >"$fragment"
cat "$fragment"
note "the run's output: $log"

if [ -n "$write_file" ]; then
	check_markers "$write_file"
	awk -v b="$begin_marker" -v e="$end_marker" -v frag="$fragment" '
		$0 == b { print; print ""; while ((getline line < frag) > 0) print line; print ""; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$write_file" >"$root/.written"
	# cat, not mv: FILE keeps its owner and mode.
	cat "$root/.written" >"$write_file"
	note "wrote the fragment into $write_file"
fi
