#!/usr/bin/env bash
# Fails when a build read a system file that scripts/setup.sh does not
# install: a package installed by hand on one machine must not hide a
# missing install step from CI (issue 54: libtraceevent-dev, which
# libkshark's .pc requires, was on the developers' machines only).
#
# usage: check-packages.sh BUILD_DIR... [-- EXTRA_PACKAGE...]
#   EXTRA_PACKAGEs are installed by a caller (scripts/test.sh's guest tools,
#   scripts/fuzz.sh's clang) and count as installed by setup.sh.
#
# The files a build read: every header in the compilers' dependency files,
# every shared library the built programs and objects load, every .pc file
# the pkg-config modules the build asked for read (with what they
# require), and every program the configure step found. Each is mapped to
# its Debian package with dpkg -S; a package that is neither in the
# closure of setup.sh's packages (their Depends and Pre-Depends, recursive)
# nor essential or required (on every Debian system) is named, with a file
# of it, and the check fails.
set -euo pipefail
cd "$(dirname "$0")/.."

dirs=() extra=()
while [ $# -gt 0 ]; do
	if [ "$1" = -- ]; then shift; extra=("$@"); break; fi
	dirs+=("$(cd "$1" && pwd)"); shift
done
[ ${#dirs[@]} -gt 0 ] || { echo "usage: check-packages.sh BUILD_DIR... [-- EXTRA_PACKAGE...]" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# a step of the check that fails says so (set -e would stop it silently)
trap 'echo "check-packages: failed at line $LINENO" >&2' ERR

# --- the files ------------------------------------------------------------
for dir in "${dirs[@]}"; do
	# headers: make's .d files and CMake's compiler_depend.make
	find "$dir" \( -name '*.d' -o -name compiler_depend.make \) -type f -print0 |
		xargs -0 -r cat | tr ' \\:' '\n\n\n' | grep -E '^/(usr|lib|etc|opt)/' || true
	# shared libraries of the programs and objects built
	find "$dir" -type f \( -perm -u+x -o -name '*.so' \) -print0 |
		xargs -0 -r file -N -0 2>/dev/null | tr '\0' '\t' |
		awk -F'\t' '$2 ~ /ELF .*(executable|shared object)/ {print $1}' |
		while read -r elf; do ldd "$elf" 2>/dev/null || true; done |
		sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p' | grep -E '^/(usr|lib|etc|opt)/' || true
	# pkg-config modules the configure step asked for, with their requires
	# (a build that asked for none, as the fuzzers' does, has none)
	{ sed -n 's/^__pkg_config_arguments_[A-Za-z0-9_]*:INTERNAL=//p' "$dir/CMakeCache.txt" |
		tr ';' '\n' | grep -vE '^(REQUIRED|QUIET|IMPORTED_TARGET|GLOBAL|NO_CMAKE_PATH|NO_CMAKE_ENVIRONMENT_PATH)?$' ||
		true; } |
		while read -r module; do
			pkg-config --path "$module" 2>/dev/null || true
			pkg-config --print-requires --print-requires-private "$module" 2>/dev/null |
				awk '{print $1}' | while read -r req; do pkg-config --path "$req" 2>/dev/null || true; done
		done
	# programs the configure step found, but those nothing runs: CTest's
	# optional memory checker (include(CTest) looks for it), and the
	# binutils CMake records beside the compiler while the compiler driver
	# links (the linker, addr2line, objcopy...); the archiver and ranlib
	# it does run
	grep -vE '^(MEMORYCHECK_COMMAND|CMAKE_(LINKER|ADDR2LINE|DLLTOOL|OBJCOPY|OBJDUMP|READELF|STRIP|NM|MT|TAPI)):' \
		"$dir/CMakeCache.txt" |
		sed -n 's/^[A-Za-z0-9_]*:FILEPATH=\(\/.*\)$/\1/p' |
		grep -vF "$dir" | grep -E '^/(usr|bin|sbin|lib)/' || true
done | sort -u > "$work/files"

# resolved, and in both spellings of a merged /usr (dpkg records either)
while read -r f; do
	[ -e "$f" ] || continue
	real=$(realpath "$f")
	for p in "$f" "$real"; do
		echo "$p"
		case $p in
		/usr/lib/* | /usr/bin/* | /usr/sbin/*) echo "${p#/usr}" ;;
		/lib/* | /bin/* | /sbin/*) echo "/usr$p" ;;
		esac
	done
done < "$work/files" | sort -u > "$work/paths"

# --- their packages -------------------------------------------------------
# (dpkg -S exits 1 when a path belongs to no package: a generated file)
{ xargs -r -d '\n' dpkg -S < "$work/paths" 2>/dev/null || true; } |
	awk -F': ' '{n = split($1, pkgs, ", "); for (i = 1; i <= n; i++) print pkgs[i] "\t" $2}' |
	sed 's/:amd64\t/\t/; s/:all\t/\t/' | sort -u -k1,1 > "$work/owners"

# --- what setup.sh installs, and what every Debian system has -------------
mapfile -t wanted < <(SETUP_LIST=1 scripts/setup.sh --tests)
wanted+=("${extra[@]}")
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
	--no-replaces --no-enhances "${wanted[@]}" 2>/dev/null |
	sed -n 's/^\([^ <][^ ]*\)$/\1/p; s/^ *\(Pre\)\?Depends: \([^<][^ ]*\)$/\2/p' |
	sed 's/:any$//; s/:amd64$//' > "$work/closure"
printf '%s\n' "${wanted[@]}" >> "$work/closure"
dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' |
	awk '$2 == "yes" || $3 == "required" {print $1}' >> "$work/closure"
# alternatives' providers: a virtual package's real ones, as installed
dpkg-query -W -f='${Package}\t${Provides}\n' | while IFS=$'\t' read -r pkg provides; do
	[ -n "$provides" ] || continue
	tr ',' '\n' <<<"$provides" | sed 's/^ *//; s/ .*//' | while read -r virtual; do
		grep -qxF "$virtual" "$work/closure" && echo "$pkg"
	done
done >> "$work/closure" || true
sort -u -o "$work/closure" "$work/closure"

missing=$(awk -F'\t' 'NR == FNR {have[$1] = 1; next} !($1 in have) {print "  " $1 " (" $2 ")"}' \
	"$work/closure" "$work/owners")
count=$(wc -l < "$work/owners")
if [ -n "$missing" ]; then
	echo "check-packages: the build read files of packages that scripts/setup.sh does not install:" >&2
	echo "$missing" >&2
	echo "check-packages: add them to scripts/setup.sh (or to a caller's extra packages)" >&2
	exit 1
fi
echo "check-packages: the $count packages whose files ${dirs[*]} read are all installed by scripts/setup.sh"
