#!/usr/bin/env bash
# Runs an rt-app file in a QEMU guest that boots Debian's kernel image of
# exactly the tree's version (the installed linux-source-SERIES for 6.1 and
# 6.12; for 7.3, the tree scripts/fetch-kernel.sh fetches, and the image of
# its version the same way: Debian serves no -unsigned image for 7.3, and
# the signed one holds the same kernel),
# and writes the guest's ftrace text trace (sched events, rt-app's markers,
# hrtimer starts and expiries; trace_clock=mono) for each repeat. All the
# repeats run one after the other in one boot (the trace cleared between
# them), which saves a boot a run; --boot-each boots the guest for each. The
# comparison with the harness (validate.py) reads these traces.
#
#   scripts/guest/run-in-guest.sh [--series 5.10|6.1|6.12|7.3] [--cpus N] [--sockets S] [--repeat N]
#                                 [--icount] [--boot-each] [--timeout S] --out DIR FILE.json
#   scripts/guest/run-in-guest.sh --series S --tree-version   (prints the tree's Debian version)
#
# Needs qemu-system-x86, busybox-static, rt-app, cpio and apt-get (to fetch
# the image without installing it). The image, its config and the guest's
# tools are cached in ${XDG_CACHE_HOME:-~/.cache}/sched-harness/guest/.
# Under TCG (no usable /dev/kvm here) the guest's time is not real: compare
# decisions, not timings (issue 37).
#
# --sockets S splits the CPUs into S sockets of CPUS/S cores each (QEMU's
# -smp sockets=S,cores=...): each socket its own LLC, so the kernel builds
# an MC domain per socket and a package-wide one above (validate.py mirrors
# them).
#
# --icount runs the guest on QEMU's instruction counter (-icount
# shift=auto,sleep=off): its clock advances with the instructions its vCPUs
# execute, all of them on one host thread, not with the host's clock, so a
# host that does not run a vCPU when its tick is due no longer loses the
# tick (the guest's distortion validate.py's tick line measures). Idle time
# is skipped. A fixed shift (0 and 3 tried, on 6.1) never gets past
# "Booting SMP configuration"; with shift=auto the secondary CPUs'
# delay-loop calibration takes minutes, so the loops per jiffy are given
# (lpj=, the counter's 1 GHz TSC over the image's HZ). Bringing up the
# second CPU still takes 2 to 13 s of the guest's time, and 15 to 45 s of
# the host's for the whole run here; on CI's machine one run took more
# than 120 s, so a run on the counter has 300 s unless --timeout says
# otherwise. The guest is told its TSCs are unstable (tsc=unstable): under
# the counter its own check marks them so anyway ("Marking TSC unstable due
# to TSCs unsynchronized"), after spinning on both CPUs to find it out.
#
# Exit status: 0 with DIR/run-K.trace (K = 1..N), DIR/config (the image's
# kernel config), DIR/version, DIR/topology (CPUS SOCKETS), DIR/clock
# ("host" or "icount") and DIR/domains
# (the guest's sched domains: "domain CPU LEVEL NAME FLAGS..." and "span
# CPU LEVEL MASK"); 2 for bad
# arguments or a missing tool; 3
# when the guest did not finish (its console log is in DIR).
set -euo pipefail

series=6.1
cpus=2
sockets=1
repeat=1
icount=
boot_each=0
timeout_s=
out=
workload=
print_version=0

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p' >&2
	exit 2
}

# die MESSAGE [STATUS]
die() {
	echo "run-in-guest: $1" >&2
	exit "${2:-2}"
}

while (($#)); do
	case $1 in
	--series) series=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--sockets) sockets=$2; shift 2 ;;
	--repeat) repeat=$2; shift 2 ;;
	--icount) icount=1; shift ;;
	--boot-each) boot_each=1; shift ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--tree-version) print_version=1; shift ;;
	-h|--help) usage ;;
	-*) die "unknown option $1" ;;
	*) [[ -z $workload ]] || die "one rt-app file, not '$workload' and '$1'"; workload=$1; shift ;;
	esac
done
[[ $series == 5.10 || $series == 6.1 || $series == 6.12 || $series == 7.3 ]] || die "--series is 5.10, 6.1, 6.12 or 7.3, not '$series'"
here=$(cd "$(dirname "$0")" && pwd)
# The tree's Debian version: the installed package's, or the fetched one's
# (its folder in the cache is linux-source-SERIES_VERSION).
tree_version() {
	if dpkg-query -W -f='${Status}' "linux-source-$series" 2>/dev/null | grep -q "install ok installed"; then
		dpkg-query -W -f='${Version}' "linux-source-$series"
	else
		local tarball
		tarball=$("$here/../fetch-kernel.sh" "$series") || die "fetching linux-source-$series failed"
		tarball=${tarball%/usr/src/*}
		echo "${tarball##*_}"
	fi
}
if ((print_version)); then
	tree_version
	exit 0
fi
[[ -n $workload && -n $out ]] || usage
[[ -r $workload ]] || die "cannot read the rt-app file '$workload'"
if [[ -z $timeout_s ]]; then
	if [[ -n $icount ]]; then timeout_s=300; else timeout_s=120; fi
fi
[[ $cpus =~ ^[1-9][0-9]*$ && $sockets =~ ^[1-9][0-9]*$ && $repeat =~ ^[1-9][0-9]*$ && $timeout_s =~ ^[1-9][0-9]*$ ]] ||
	die "--cpus, --sockets, --repeat and --timeout take positive integers"
((cpus % sockets == 0)) || die "--sockets $sockets does not divide --cpus $cpus (each socket has the same cores)"
for tool in qemu-system-x86_64 apt-get dpkg-deb dpkg-query cpio gzip base64 rt-app; do
	command -v "$tool" > /dev/null || die "$tool is missing (apt-get install qemu-system-x86 busybox-static cpio rt-app)"
done
# busybox writes its list one name at a time: read all of it before
# grepping, or grep -q's early exit kills it with SIGPIPE and pipefail
# fails the check on a busy machine.
applets=$([[ -x /bin/busybox ]] && /bin/busybox --list 2>/dev/null) || applets=
grep -qx poweroff <<< "$applets" ||
	die "busybox-static is missing (/bin/busybox with poweroff)"

# The image of exactly the installed tree's version: a mismatch would
# compare two different kernels.
version=$(tree_version)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/sched-harness/guest
image_dir=$cache/linux-$version
if [[ ! -s $image_dir/vmlinuz ]] && ! dpkg-query -W -f='${Status}' "linux-source-$series" 2>/dev/null |
	grep -q "install ok installed"; then
	# a fetched tree: its image from the archive, fetched the same way
	fetched=$("$here/../fetch-kernel.sh" --guest "$series=$version") ||
		die "fetching the guest image of linux $version failed"
	mkdir -p "$image_dir"
	kernel=$(find "$fetched" \( -path '*/boot/vmlinuz-*' -o -path '*/usr/lib/modules/*/vmlinuz' \) | head -1)
	config=$(find "$fetched" \( -path '*/boot/config-*' -o -path '*/usr/lib/modules/*/config' \) | head -1)
	[[ -n $kernel && -n $config ]] || die "the fetched image $fetched has no kernel or no config"
	cp "$kernel" "$image_dir/vmlinuz"
	cp "$config" "$image_dir/config"
	echo "$(basename "${fetched%_*}") $version" > "$image_dir/package"
fi
if [[ ! -s $image_dir/vmlinuz ]]; then
	mapfile -t candidates < <(apt-cache search --names-only "^linux-image-${series//./\\.}[.0-9+a-z-]*-amd64-unsigned\$" |
		cut -d' ' -f1 | grep -v -e '-rt-' -e '-cloud-')
	((${#candidates[@]})) || die "no linux-image-$series*-amd64-unsigned package is known to apt (apt-get update?)"
	# awk reads all of madison's output: exiting at the first match closed
	# the pipe under it, and pipefail made its SIGPIPE the script's status
	# (141) once the list outgrew the pipe's buffer
	package=$(apt-cache madison "${candidates[@]}" | awk -F' *[|] *' -v v="$version" '$2 == v && !p { p = $1 } END { print p }')
	[[ -n $package ]] || die "no linux-image-*-amd64-unsigned package of version $version (linux-source-$series's): the image and the tree must match"
	work=$(mktemp -d)
	chmod 755 "$work"	# apt-get download drops to its _apt user
	trap 'rm -rf "$work"' EXIT
	(cd "$work" && apt-get download "$package=$version" > /dev/null) ||
		die "apt-get download $package=$version failed"
	dpkg-deb -x "$work"/*.deb "$work/x"
	mkdir -p "$image_dir"
	cp "$work"/x/boot/vmlinuz-* "$image_dir/vmlinuz"
	cp "$work"/x/boot/config-* "$image_dir/config"
	echo "$package $version" > "$image_dir/package"
	rm -rf "$work"
	trap - EXIT
fi

# The guest's tools: busybox, rt-app and the libraries it loads (glibc
# loads libgcc_s.so.1 at thread exit, which ldd does not list).
tools=$cache/tools.cpio.gz
if [[ ! -s $tools || /usr/bin/rt-app -nt $tools || /bin/busybox -nt $tools ]]; then
	root=$(mktemp -d)
	mkdir -p "$root"/{bin,proc,sys,dev,tmp}
	cp /bin/busybox "$root/bin/"
	cp /usr/bin/rt-app "$root/bin/"
	libs=$(ldd /usr/bin/rt-app | awk '/=>/ { print $3 } /^\t\/.*ld-linux/ { print $1 }')
	libgcc=$(ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ && !p { p = $NF } END { print p }')
	[[ -n $libgcc ]] || die "libgcc_s.so.1 is missing (rt-app's threads need it at exit)"
	for lib in $libs $libgcc; do
		mkdir -p "$root/$(dirname "$lib")"
		cp -L "$lib" "$root/$lib"
	done
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) > "$tools.tmp"
	mv "$tools.tmp" "$tools"
	rm -rf "$root"
fi

mkdir -p "$out"
cp "$image_dir/config" "$out/config"
echo "$(cat "$image_dir/package")" > "$out/version"

run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
cp "$workload" "$run/workload.json"
cat > "$run/init" << 'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2> /dev/null
t=/sys/kernel/tracing
[ -d $t/events ] || t=/sys/kernel/debug/tracing
echo mono > $t/trace_clock
echo 16384 > $t/buffer_size_kb
for e in sched_switch sched_wakeup sched_wakeup_new sched_waking sched_migrate_task \
	sched_process_fork sched_process_exit; do
	[ -e $t/events/sched/$e/enable ] && echo 1 > $t/events/sched/$e/enable
done
# the timers' expiry times and when they ran: how late TCG delivers the
# ticks (validate.py's tick line)
for e in hrtimer_start hrtimer_expire_entry; do
	echo 1 > $t/events/timer/$e/enable
done
# the runs of this boot, one after the other, each its own trace
runs=$(cat /runs)
cd /tmp
k=0
while [ $k -lt $runs ]; do
	k=$((k + 1))
	echo > $t/trace
	echo 1 > $t/tracing_on
	rt-app /workload.json > /tmp/rt-app.log 2>&1
	status=$?
	echo 0 > $t/tracing_on
	{
		echo "rt-app exit $status"
		cat $t/trace | gzip | base64
		echo "end of trace"
	} > /dev/ttyS1
	[ $status -eq 0 ] || break
done
{
	# the sched domains the kernel built (validate.py compares the mirror
	# board's): each CPU's levels, their names and spans
	for d in /sys/kernel/debug/sched/domains/cpu*/domain* /proc/sys/kernel/sched_domain/cpu*/domain*; do
		[ -e "$d/name" ] || continue
		cpu=${d%/domain*}
		echo "domain ${cpu##*/cpu} ${d##*/domain} $(cat "$d/name") $(cat "$d/flags" 2> /dev/null)"
	done
	# their spans, as /proc/schedstat's masks ("domainN [NAME] MASK ...")
	# (names there from schedstat version 17, 6.10's, where debugfs may not
	# have them)
	awk '/^cpu/ { c = substr($1, 4) }
		/^domain/ { named = $2 !~ /^[0-9a-f,]+$/; print "span", c, substr($1, 7), (named ? $3 : $2)
			if (named) print "domainname", c, substr($1, 7), $2 }' /proc/schedstat
	echo "end of domains"
} > /dev/ttyS1
poweroff -f
EOF
chmod +x "$run/init"

# A boot can die of TCG itself: with a thread per vCPU, a CPU can run the
# int3 another CPU's text patching (a static key flipped, such as
# sched_clock's "Marking stable" at boot) leaves for an instant, and the
# kernel oopses "int3" and panics (seen on 7.3, about one boot in 15 on a
# 2-core host). Such a boot is made again, at most twice, saying so; any
# other death of the guest is an error.
# The guest's clock: the host's, with a host thread per vCPU; or the
# instruction counter, which runs them all on one (TCG cannot do both)
append="console=ttyS0 quiet panic=-1 rdinit=/init"
if [[ -n $icount ]]; then
	clock=(-accel tcg,thread=single -icount shift=auto,sleep=off)
	hz=$(sed -n 's/^CONFIG_HZ=//p' "$image_dir/config")
	[[ $hz =~ ^[1-9][0-9]*$ ]] || die "no CONFIG_HZ in $image_dir/config"
	append+=" lpj=$((1000000000 / hz)) tsc=unstable"
else
	clock=(-accel tcg,thread=multi)
fi
# An initrd for a boot of RUNS runs
initrd() {
	echo "$1" > "$run/runs"
	(cd "$run" && printf '%s\n' init workload.json runs | cpio -o -H newc --quiet | gzip) > "$run/run.cpio.gz"
	cat "$tools" "$run/run.cpio.gz" > "$run/initrd"
}
per_boot=$((boot_each ? 1 : repeat))
boots_left=3
for ((first = 1; first <= repeat; first += per_boot)); do
	runs=$((repeat - first + 1 < per_boot ? repeat - first + 1 : per_boot))
	last=$((first + runs - 1))
	what="run $first"
	((runs == 1)) || what="runs $first-$last"
	initrd "$runs"
	rm -f "$run/serial1" "$run/sent" "$run/console"
	if ! timeout "$((timeout_s * runs))" qemu-system-x86_64 "${clock[@]}" -cpu max \
		-smp "cpus=$cpus,sockets=$sockets,cores=$((cpus / sockets)),threads=1" -m 512M \
		-kernel "$image_dir/vmlinuz" -initrd "$run/initrd" \
		-append "$append" \
		-display none -no-reboot -serial "file:$run/console" -serial "file:$run/serial1" \
		< /dev/null > /dev/null 2>&1; then
		cp "$run/console" "$out/console-$first.log" 2> /dev/null || true
		die "the guest did not finish within $((timeout_s * runs))s ($what; console log: $out/console-$first.log)" 3
	fi
	# what the guest sent on its second serial port, as lines
	tr -d '\r' 2> /dev/null < "$run/serial1" > "$run/sent" || : > "$run/sent"
	# every run's trace came (the domains after them may be cut short:
	# poweroff -f does not wait for the serial port to drain)
	sent=$(grep -c '^end of trace' "$run/sent") || true
	# the guest stops at the first run whose rt-app fails
	failed=$(grep '^rt-app exit' "$run/sent" | grep -vnx 'rt-app exit 0' | head -1) || true
	[[ -z $failed ]] || die "rt-app failed in the guest: ${failed#*:} (run $((first - 1 + ${failed%%:*})))" 3
	if ((sent < runs)); then
		cp "$run/console" "$out/console-$first.log" 2> /dev/null || true
		if ((sent == 0)) && grep -q '^\[ *[0-9.]*\] Oops: int3' "$run/console" 2> /dev/null && ((--boots_left > 0)); then
			echo "run-in-guest: $what: the guest's kernel oopsed on an int3 of its own text patching" \
				"(TCG's vCPU threads; console log: $out/console-$first.log): booting it again" >&2
			((first -= per_boot))
			continue
		fi
		die "the guest sent $sent complete trace(s) of $runs ($what; console log: $out/console-$first.log)" 3
	fi
	# the boot's traces, one a run: "rt-app exit 0", base64 of the gzipped
	# trace, "end of trace"
	awk -v dir="$run" '
		/^rt-app exit / { n++; body = 1; next }
		/^end of trace/ { body = 0; next }
		body { print > (dir "/trace-" n ".b64") }' "$run/sent"
	for ((i = 1; i <= runs; i++)); do
		base64 -d < "$run/trace-$i.b64" | gunzip > "$out/run-$((first + i - 1)).trace" ||
			die "the guest's trace of run $((first + i - 1)) does not decode" 3
		rm -f "$run/trace-$i.b64"
	done
	# the sched domains, from the last boot that sent them
	sed -n '/^end of trace/,/^end of domains/p' "$run/sent" |
		grep '^\(domain\|domainname\|span\) ' > "$run/domains" || true
	[[ ! -s $run/domains ]] || mv "$run/domains" "$out/domains"
done
touch "$out/domains"
echo "$cpus $sockets" > "$out/topology"
if [[ -n $icount ]]; then echo icount; else echo host; fi > "$out/clock"
echo "run-in-guest: $repeat run(s) of $workload on $(cat "$out/version"), $cpus CPUs in $sockets socket(s):" \
	"$out/run-*.trace"
