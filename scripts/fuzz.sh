#!/usr/bin/env bash
# The libFuzzer targets of the parsers that read hostile input (tests/fuzz:
# the device-tree loader with overlays, overlays alone on a good board, the
# rt-app reader, the built-in workloads' parameters, a patch file's
# Subject and diff headers), built with clang under ASan and UBSan in
# build-fuzz/, seeded from the kernel tree's board device trees (compiled
# as Kbuild does), the tests' overlays, Debian's rt-app examples and the
# tests' rt-app files, the experiments' patches and a mail, and each run
# for FUZZ_SECONDS (default 60).
# The targets run side by side, one per core. Prints each target's
# executions and coverage; exits non-zero on a finding, whose input
# libFuzzer leaves in build-fuzz/findings/.
#
#   scripts/fuzz.sh                      # 60 s per target (CI)
#   FUZZ_SECONDS=3600 scripts/fuzz.sh    # the long run
#   scripts/fuzz.sh fuzz_rtapp           # one target
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
dir=build-fuzz
# llvm: beside clang, CMake archives with llvm-ar where it is installed
# (this machine image has it), so the fuzz build reads it
scripts/setup.sh clang libclang-rt-dev llvm
CC=clang CXX=clang++ cmake -S . -B "$dir" -DSH_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$dir" -j "$(nproc)" >/dev/null

# the seeds (rebuilt each time: small)
tree=$(ls -d build/kernel/linux-source-* 2>/dev/null | head -1 || true)
if [ -z "$tree" ]; then
	mkdir -p "$dir/kernel"
	tar -xf /usr/src/linux-source-6.1.tar.xz -C "$dir/kernel" --wildcards '*/arch/arm*/boot/dts' '*/include/dt-bindings' '*/scripts/dtc/include-prefixes'
	tree=$(ls -d "$dir"/kernel/linux-source-* | head -1)
fi
seeds=$dir/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{fuzz_device_tree,fuzz_overlay,fuzz_rtapp,fuzz_workload_spec,fuzz_patch} "$dir/findings"
dtb() {	# source.dts -> blob on stdout, as scripts/Makefile.lib's cmd_dtc
	cpp -nostdinc -I "$tree/include" -I "$tree/scripts/dtc/include-prefixes" -I "$(dirname "$1")" \
		-undef -D__DTS__ -x assembler-with-cpp "$1" 2>/dev/null | dtc -q -@ -I dts -O dtb - 2>/dev/null
}
le32() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))\\x$(printf %02x $(($1 >> 16 & 255)))\\x$(printf %02x $(($1 >> 24 & 255)))"; }
boards=(
	arch/arm/boot/dts/exynos5422-odroidxu3.dts arch/arm/boot/dts/samsung/exynos5422-odroidxu3.dts
	arch/arm64/boot/dts/hisilicon/hi3660-hikey960.dts arch/arm64/boot/dts/hisilicon/hi6220-hikey.dts
	arch/arm64/boot/dts/arm/juno.dts arch/arm64/boot/dts/rockchip/rk3399-firefly.dts
	arch/arm64/boot/dts/qcom/sdm845-db845c.dts arch/arm64/boot/dts/mediatek/mt8183-evb.dts
)
n=0
for b in "${boards[@]}"; do
	[ -f "$tree/$b" ] || continue
	dtb "$tree/$b" >"$seeds/board.dtb" || continue
	size=$(stat -c %s "$seeds/board.dtb")
	{ le32 "$size"; cat "$seeds/board.dtb"; } >"$seeds/fuzz_device_tree/$(basename "$b" .dts)"
	for o in tests/fixtures/cli/*.dtso; do	# the base with an overlay
		dtc -q -@ -I dts -O dtb "$o" >"$seeds/overlay.dtbo" 2>/dev/null || continue
		{ le32 "$size"; cat "$seeds/board.dtb" "$seeds/overlay.dtbo"; } \
			>"$seeds/fuzz_device_tree/$(basename "$b" .dts)+$(basename "$o" .dtso)"
	done
	n=$((n + 1))
done
rm -f "$seeds/board.dtb" "$seeds/overlay.dtbo"
[ "$n" -gt 0 ] || { echo "fuzz: no board of the tree compiled ($tree)" >&2; exit 1; }
# fuzz_overlay: the overlays alone, on HiKey960 (its labels: -@)
export SH_FUZZ_BASE_DTB=$dir/overlay-base.dtb
dtb "$tree/arch/arm64/boot/dts/hisilicon/hi3660-hikey960.dts" >"$SH_FUZZ_BASE_DTB" ||
	{ echo "fuzz: hi3660-hikey960.dts of $tree did not compile" >&2; exit 1; }
for o in tests/fixtures/*/*.dtso; do
	dtc -q -@ -I dts -O dtb "$o" >"$seeds/fuzz_overlay/$(basename "$(dirname "$o")")-$(basename "$o" .dtso)" 2>/dev/null ||
		rm -f "$seeds/fuzz_overlay/$(basename "$(dirname "$o")")-$(basename "$o" .dtso)"
done
# fuzz_patch: the experiments' patches, and a mail with a folded Subject,
# a rename and a new file
cp scripts/experiments/*.patch "$seeds/fuzz_patch/"
printf '%s\n' "From 0 Mon Sep 17 00:00:00 2001" "From: A <a@example.org>" \
	"Subject: [RFC PATCH v2 1/2] sched/fair: a subject" "  folded over two lines" "" "body" "---" \
	"diff --git a/kernel/sched/a.c b/kernel/sched/b.c" "similarity index 90%" \
	"rename from kernel/sched/a.c" "rename to kernel/sched/b.c" "--- a/kernel/sched/a.c" \
	"+++ b/kernel/sched/b.c" "@@ -1 +1 @@" "-old" "+new" "--- /dev/null" "+++ b/kernel/sched/new.h" \
	"@@ -0,0 +1 @@" "+new" >"$seeds/fuzz_patch/mail"
cp /usr/share/doc/rt-app/examples/*.json tests/fixtures/workload/*.json "$seeds/fuzz_rtapp/" 2>/dev/null || true
i=0
for spec in "count=24,period=16ms,duty=10%" "groups=4,fds=10,loops=100,work=10us" "threads=8,work=200ms" \
	"busy=4,jitter=8,jitter_run=200us,jitter_period=16ms" "count=2,cpus=0-3,period=1ms,duty=50%,calibration=4"; do
	printf "\\x$(printf %02x $i)%s" "$spec" >"$seeds/fuzz_workload_spec/seed-$i"
	i=$((i + 1))
done

# UBSan's reports stop the run (a finding) but for the named suppressions
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$PWD/kernel-shim/sanitizers.supp"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_device_tree fuzz_overlay fuzz_rtapp fuzz_workload_spec fuzz_patch)
# the targets side by side, one per core (each is single-threaded)
fuzz() {	# target: runs it, leaves $dir/$t.log and, on a finding, $dir/$t.found
	local t=$1 corpus=$dir/corpus/$1 log=$dir/$1.log
	mkdir -p "$corpus"
	rm -f "$dir/$t.found"
	# -rss_limit_mb: a reader that allocates without bound is a finding
	"$dir/tests/fuzz/$t" "$corpus" "$seeds/$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
		-timeout=10 -max_len=262144 -print_final_stats=1 -artifact_prefix="$dir/findings/$t-" \
		>"$log" 2>&1 || touch "$dir/$t.found"
}
for t in "${targets[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
	fuzz "$t" &
done
wait
status=0
for t in "${targets[@]}"; do
	log=$dir/$t.log
	if [ -e "$dir/$t.found" ]; then
		status=1
		echo "fuzz: $t: a finding (input in $dir/findings/, log $log):" >&2
		grep -E "ERROR|runtime error|==[0-9]+==|SUMMARY" "$log" | head -5 >&2
	fi
	execs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log")
	cov=$(grep -oE "cov: [0-9]+ ft: [0-9]+" "$log" | tail -1)
	printf "fuzz: %-20s %10s executions in %s s, %s, corpus %s inputs\n" "$t" "${execs:-?}" "$seconds" \
		"${cov:-cov: ?}" "$(ls "$dir/corpus/$t" | wc -l)"
done
exit $status
