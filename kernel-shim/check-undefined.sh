#!/usr/bin/env bash
# The exact list of kernel symbols the shim provides (LinSched's lesson: a
# newcomer can see everything that is faked, and nothing drifts silently).
#
# usage: check-undefined.sh LIST OBJECT...
#
# The list names the release it was recorded from ("# recorded from Linux
# 7.3.4"; UPDATE=1 writes it from $KERNEL_VERSION). Built from another tree
# of the series (a release candidate, a developer's checkout), a symbol
# the list has and the tree no longer needs is a note, not a stop: the
# glue provides one function too many. A symbol it lacks stops the build
# on every tree.
#
# Upstream objects are those not under /glue/. Their undefined symbols that
# no other upstream object defines must be exactly the symbols of LIST, and
# each must be defined by the glue object LIST names. On a mismatch the
# build stops and prints the difference; `UPDATE=1` rewrites LIST instead.
set -euo pipefail
list=$1; shift

upstream=() glue=()
for o in "$@"; do
	case $o in */glue/*) glue+=("$o") ;; *) upstream+=("$o") ;; esac
done

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Symbols the linker script defines (section bounds, as vmlinux.lds.h does).
# (KERNEL_LD: the build's kernel.ld, made from kernel.ld.in for its series)
sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\) = \.;.*/\1/p' "${KERNEL_LD:?names the build kernel-shim/kernel.ld}" | sort -u > "$tmp/ld"
# libc's own functions are fine to share (memcpy, strlen, snprintf, ...).
libc=$(${CC:-cc} -print-file-name=libc.so.6)
nm -D --defined-only "$libc" | awk '{print $3}' | sed 's/@.*//' | sort -u > "$tmp/libc"
# The compiler's runtime: C cleanups (__cleanup, 6.12's guards) unwound
# through by -fexceptions need its unwinder.
libgcc=$(${CC:-cc} -print-file-name=libgcc_s.so.1)
nm -D --defined-only "$libgcc" 2>/dev/null | awk '{print $3}' | sed 's/@.*//' | sort -u > "$tmp/libgcc"
# One nm over the upstream objects (each start of nm costs as much as
# reading several objects): their undefined symbols, and the global ones
# they define.
nm "${upstream[@]}" > "$tmp/upstream.nm"
awk 'NF==2 && $1=="U" {print $2}' "$tmp/upstream.nm" | sort -u > "$tmp/undef"
# A sanitizer build (SANITIZE=1): the instrumentation's calls into the ASan
# and UBSan runtimes (__asan_*, __ubsan_*, __sanitizer_*) and the unwinder
# its stack cleanups use (with -fexceptions) are not kernel symbols; they
# are left out on both sides, so the same list serves both builds.
instrumentation='^(__asan_|__ubsan_|__sanitizer_|__lsan_|_Unwind_Resume$|__gcc_personality_v0$)'
if [ "${SANITIZE:-0}" = 1 ]; then
	grep -Ev "$instrumentation" "$tmp/undef" > "$tmp/undef.kernel" || true
	mv "$tmp/undef.kernel" "$tmp/undef"
fi
# The block counter's callback (glue/cost.c) is the compiler's
# instrumentation too, and with the counter in a register
# (cmake/BlockCounter.cmake) no object calls it: left out of every build.
grep -v '^__sanitizer_cov_trace_pc$' "$tmp/undef" > "$tmp/undef.kernel" || true
mv "$tmp/undef.kernel" "$tmp/undef"
# Without the counter (UNCOUNTED=1, SH_BLOCK_COUNTER=none, a benchmark's
# baseline) the objects may need the unwinder less: each counter call is
# one that may throw, so a cleanup around it needs a landing pad. The
# unwinder's symbols are left out on both sides there.
unwinder='^(_Unwind_Resume|__gcc_personality_v0)$'
if [ "${UNCOUNTED:-0}" = 1 ]; then
	grep -Ev "$unwinder" "$tmp/undef" > "$tmp/undef.kernel" || true
	mv "$tmp/undef.kernel" "$tmp/undef"
fi
awk 'NF==3 && $2 ~ /[A-Z]/ && $2 != "U" {print $3}' "$tmp/upstream.nm" | sort -u > "$tmp/updef"
comm -23 "$tmp/undef" "$tmp/updef" | grep -v '^_GLOBAL_OFFSET_TABLE_$' > "$tmp/needed" || true

# The glue objects' defined symbols, in one nm naming each object (the
# first object in the order given provides a symbol), then one pass over
# the needed ones.
nm -A --defined-only "${glue[@]}" 2>/dev/null | awk '
	{
		colon = index($0, ":")
		object = substr($0, 1, colon - 1)
		n = split(substr($0, colon + 1), f, " ")
		if (n != 3 || f[2] !~ /[A-Z]/)
			next
		name = object
		sub(/.*\//, "", name)
		sub(/\.o$/, "", name)
		print f[3], (object ~ /\/sched\/glue\// ? "sched/glue/" : "kernel-shim/glue/") name
	}' > "$tmp/provided"
awk -v provided="$tmp/provided" -v ld="$tmp/ld" -v libc="$tmp/libc" -v libgcc="$tmp/libgcc" '
	BEGIN {
		while ((getline line < provided) > 0) {
			split(line, f, " ")
			if (!(f[1] in by)) by[f[1]] = f[2]
		}
		while ((getline s < ld) > 0) in_ld[s] = 1
		while ((getline s < libc) > 0) in_libc[s] = 1
		while ((getline s < libgcc) > 0) in_libgcc[s] = 1
	}
	{
		p = "-"
		if ($1 in by) p = by[$1]
		else if ($1 in in_ld) p = "kernel-shim/kernel.ld"
		else if ($1 in in_libc) p = "libc"
		else if ($1 in in_libgcc) p = "libgcc"
		printf "%-40s %s\n", $1, p
	}' "$tmp/needed" > "$tmp/actual"

if [ "${UPDATE:-0}" = 1 ]; then
	if [ "${UNCOUNTED:-0}" = 1 ]; then
		echo "error: UPDATE=1 in a build without the block counter: record $list from a counted build" >&2
		exit 1
	fi
	# lines marked sanitize-only (below) are kept, in the symbols' order
	grep 'sanitize-only$' "$list" 2>/dev/null > "$tmp/marked" || true
	{ awk '{print $1}' "$tmp/actual" "$tmp/marked"; } | sort -u > "$tmp/symbols"
	{
		sed -n '/^#/p' "$list" 2>/dev/null | grep -v '^# recorded from Linux ' || true
		[ -z "${KERNEL_VERSION:-}" ] || echo "# recorded from Linux $KERNEL_VERSION"
		awk -v marked="$tmp/marked" -v actual="$tmp/actual" '
			BEGIN {
				while ((getline l < marked) > 0) { split(l, f, " "); m[f[1]] = l }
				while ((getline l < actual) > 0) { split(l, f, " "); a[f[1]] = l }
			}
			{ print ($1 in m) ? m[$1] : a[$1] }' "$tmp/symbols"
	} > "$tmp/new"
	mv "$tmp/new" "$list"
	exit 0
fi
if grep -q ' -$' "$tmp/actual"; then
	echo "error: kernel symbols that nothing provides:" >&2
	grep ' -$' "$tmp/actual" | sed 's/ *-$//; s/^/  /' >&2
	echo "implement them in kernel-shim/glue (a file per kernel subsystem)" >&2
	exit 1
fi
# A line ending in "sanitize-only" names a symbol only the sanitizer build
# needs: its instrumentation keeps alive a load the plain build's -O2 drops
# as dead (smp.c's early_boot_irqs_disabled, read only for a lockdep
# assertion that is empty without LOCKDEP). UPDATE=1 keeps the marked
# lines; add the marker by hand.
expected() {
	if [ "${SANITIZE:-0}" = 1 ]; then
		# the list's lines go on after the symbol: match it as the first field
		grep -v '^#' "$list" | awk -v re="$instrumentation" '$1 !~ re' | sed 's/ *sanitize-only$//' || true
	elif [ "${UNCOUNTED:-0}" = 1 ]; then
		grep -v '^#' "$list" | grep -v 'sanitize-only$' | awk -v re="$unwinder" '$1 !~ re'
	else
		grep -v '^#' "$list" | grep -v 'sanitize-only$'
	fi
}
recorded=$(sed -n 's/^# recorded from Linux //p' "$list" | head -1)
if ! diff -u <(expected) "$tmp/actual" > "$tmp/diff"; then
	if [ -n "$recorded" ] && [ -n "${KERNEL_VERSION:-}" ] && [ "$recorded" != "$KERNEL_VERSION" ] &&
		! grep -q '^+[^+]' "$tmp/diff"; then
		echo "note: Linux $KERNEL_VERSION no longer needs what the glue provides for Linux $recorded ($list):" \
			"$(grep '^-[^-]' "$tmp/diff" | awk '{print $1}' | sed 's/^-//' | tr '\n' ' ')" >&2
		exit 0
	fi
	echo "error: the kernel symbols the upstream objects need changed ($list):" >&2
	cat "$tmp/diff" >&2
	echo "A '+' line is a new undefined symbol: implement it in kernel-shim/glue (a file per" >&2
	echo "kernel subsystem), then run UPDATE=1 on this script to record it." >&2
	exit 1
fi
