#!/usr/bin/env bash
# The block counter's GCC plugin (kernel-shim/plugin/block_counter.cpp)
# counts what trace-pc's calls count: shapes.c compiled with the kernel's
# -O2 both ways, each of 66 calls must count the same blocks, and the
# plugin's build must have left no call to the callback.
#
#   block-counter-plugin.sh SOURCE_ROOT CC CXX
# Exit 77 (skipped) where the plugin cannot be built: not x86-64, not GCC,
# or no plugin headers (docs/kernel-time.md; cmake/BlockCounter.cmake).
set -euo pipefail
root=$1 cc=$2 cxx=$3
here=$root/tests/kernel/block-counter
fail() { echo "FAIL: $*"; exit 1; }
[[ $(uname -m) == x86_64 ]] || { echo "SKIPPED: the host is $(uname -m)"; exit 77; }
plugin_dir=$("$cc" -print-file-name=plugin)
[[ -f $plugin_dir/include/gcc-plugin.h ]] || { echo "SKIPPED: no GCC plugin headers in $plugin_dir"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cxx" -std=c++17 -shared -fPIC -fno-rtti -O2 -I"$plugin_dir/include" \
	"$root/kernel-shim/plugin/block_counter.cpp" -o "$work/block_counter.so"
flags=(-O2 -fno-strict-aliasing -fno-common -I"$here")
"$cc" "${flags[@]}" -fsanitize-coverage=trace-pc -c "$here/shapes.c" -o "$work/call.o"
"$cc" "${flags[@]}" -c "$here/driver.c" -o "$work/driver-call.o"
"$cc" "$work/call.o" "$work/driver-call.o" -o "$work/call"
"$cc" "${flags[@]}" -ffixed-r15 -mno-red-zone -fsanitize-coverage=trace-pc -fplugin="$work/block_counter.so" \
	-c "$here/shapes.c" -o "$work/register.o"
"$cc" "${flags[@]}" -ffixed-r15 -DCOUNT_REGISTER -c "$here/driver.c" -o "$work/driver-register.o"
"$cc" "$work/register.o" "$work/driver-register.o" -o "$work/register"
if nm "$work/register.o" | grep -q __sanitizer_cov_trace_pc; then
	fail "the plugin's object still calls __sanitizer_cov_trace_pc"
fi
sites=$(objdump -d "$work/register.o" | grep -c 'add    \$0x1,%r15') || true
size=$(objdump -h "$work/register.o" | awk '$2 == "sh_block_sites" { print $3 }')
entries=$((16#${size:-0} / 4))
((sites > 20 && sites == entries)) || fail "$sites adds to %r15 and $entries entries of sh_block_sites"
"$work/call" > "$work/call.txt"
"$work/register" > "$work/register.txt"
calls=$(grep -c blocks "$work/call.txt")
((calls >= 66)) || fail "only $calls calls counted"
grep -q ': 0 blocks' "$work/call.txt" && fail "a call counted no block: $(grep ': 0 blocks' "$work/call.txt" | head -1)"
diff -u "$work/call.txt" "$work/register.txt" > "$work/diff" ||
	fail "the plugin's adds count other blocks than trace-pc's calls: $(cat "$work/diff")"
echo "$calls calls, $sites sites, $(awk '{ s += $(NF - 1) } END { print s }' "$work/call.txt") blocks: the same with both counters"
