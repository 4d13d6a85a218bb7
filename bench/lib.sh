# Shared by the bench scripts (sourced): callgrind instruction counts of a
# command, all and those in the kernel tree's own code.
#
# Kernel code is what callgrind attributes to a file of the tree, and the
# functions the tree puts in the scheduler's text section (__sched:
# __schedule(), schedule(), schedule_idle(), default_idle_call(), ...):
# the shim links that section apart (.kshim.sched.text), and callgrind
# cannot map its lines, so it shows them as "???:__schedule [???]".
# Not kernel code: the glue's functions (kernel-shim/glue, sched/glue,
# thermal/glue), though callgrind names the kernel header of the code they
# inlined ("include/linux/math64.h:kshim_cost_mark"); a name the tree's
# own objects define too stays the kernel's.

# bench_start: the build's harness (build/, or $BUILD_DIR), valgrind, a
# temporary directory removed on exit, then bench_init. Sets build_dir,
# harness, tmp, tree; bench_scenarios lists the scenarios the speed figures
# are measured on ("name|sched-harness arguments").
bench_start() {
	build_dir=${BUILD_DIR:-build}
	harness="$build_dir/harness/sched-harness"
	[ -x "$harness" ] || { echo "bench: build first (scripts/build.sh)" >&2; exit 1; }
	command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
		{ echo "bench: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	bench_init "$build_dir" "$tmp"
}
bench_scenarios=(
	"default (odroid-xu3, 24 x periodic 16 ms 10%, 10 s)|run"
	"hackbench on hikey960 (4 groups x 10 fds, 1000 loops)|run --board hikey960 --workload hackbench:groups=4,fds=10,loops=1000"
)

# bench_init BUILD_DIR TMPDIR: sets harness, tree, and the section's names.
bench_init() {
	bench_build=$1
	bench_tmp=$2
	harness="$bench_build/harness/sched-harness"
	tree=$("$harness" kernel info | awk '/^Kernel tree/ { print $3 }')
	: >"$bench_tmp/sched-text"
	for lib in "$bench_build"/kernel-shim/libksched*.so; do
		objdump -t "$lib" | awk '$4 == ".kshim.sched.text" { print $6 }' >>"$bench_tmp/sched-text"
	done
	local objects=("$bench_build"/kernel-shim/CMakeFiles/ksched*_kernel.dir)
	find "${objects[@]}" -path '*/glue/*.o' -exec nm --defined-only {} + |
		awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u >"$bench_tmp/glue-functions"
	find "${objects[@]}" -name '*.o' ! -path '*/glue/*' -exec nm --defined-only {} + |
		awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u >"$bench_tmp/tree-functions"
	comm -23 "$bench_tmp/glue-functions" "$bench_tmp/tree-functions" >"$bench_tmp/glue-only"
}

# instructions CMD...: prints "total kernel" for the process that simulated
# (the largest profile: arm boards run in sched-harness-arm, which
# sched-harness executes).
instructions() {
	shares "$@" | awk '$1 == "total" { total = $2 } $1 == "kernel" { kernel = $2 } END { print total, kernel }'
}

# cpu_time CMD...: the best of five CPU times (user + sys) of a command, in
# seconds: the machine is noisy, and CPU time does not count waiting for it
# (callgrind's instruction counts are the stable figure).
cpu_time() {
	local best= t TIMEFORMAT='%U %S'
	for _ in 1 2 3 4 5; do
		t=$({ time "$@" >/dev/null; } 2>&1 | awk '{ print $1 + $2 }')
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}

# shares CMD...: the instructions of the process that simulated (the
# largest profile: arm boards run in sched-harness-arm, which sched-harness
# executes), by whose code ran them, one "share count" per line and a
# "total" (callgrind's own function of each instruction: code inlined into
# a function counts as that function's):
#   kernel      the tree's code, as the header above says (with the block
#               counter's adds, which it inlines)
#   cost        the crediting behind kernel time (kernel-shim/glue/cost.c)
#   entries     the concurrent entries: their stacks, switches, the group's
#               runner, interleaving and settling (kernel-shim/src/
#               entry_stack.cpp, idle_stack.cpp, glue/cpu.c, Boost.Context)
#   glue        the rest of the shim (trace, smp, softirq, time, ...)
#   loop        the harness's simulator (harness/sim: events, executor,
#               board, thermal)
#   reports     metrics, reports and the trace writers (harness/report,
#               harness/metrics, harness/stats)
#   rest        libraries (libc's malloc and memcpy, libfdt, libstdc++) and
#               start-up
shares() {
	local out="$bench_tmp/cg.$RANDOM"
	valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$out.%p" "$@" >/dev/null 2>"$out.log"
	out=$(ls -S "$out".[0-9]* | head -1)
	callgrind_annotate --inclusive=no --threshold=100 --auto=no "$out" 2>/dev/null |
		awk -v tree="$(basename "$tree")/" -v names="$bench_tmp/sched-text" -v glue="$bench_tmp/glue-only" '
			BEGIN {
				while ((getline n < names) > 0) sched[n] = 1
				while ((getline n < glue) > 0) glued[n] = 1
				split("kernel cost entries glue loop reports rest", order, " ")
				for (i in order) s[order[i]] = 0
			}
			/PROGRAM TOTALS/ { gsub(",", "", $1); total = $1; next }
			/^ *[0-9,]+ \(/ {
				n = $1; gsub(",", "", n)
				fn = $0; sub(/^ *[0-9,]+ \( *[0-9.]+%\) +/, "", fn)
				obj = ""
				if (match(fn, / \[[^]]*\]$/)) obj = substr(fn, RSTART + 2, RLENGTH - 3)
				file = fn; sub(/:.*$/, "", file)
				name = fn; sub(/^[^:]*:/, "", name); sub(/ \[.*$/, "", name)
				if ((q = index(name, sprintf("%c", 39))))
					name = substr(name, 1, q - 1)
				if (index(fn, tree) && !(name in glued) || (fn ~ /^\?\?\?:/ && name in sched))
					share = "kernel"
				else if (file ~ /glue\/cost\.c$/ || name ~ /^(kshim_cost_|kshim_cpu_clock|kshim_lock_|kshim_cpu_spin_ns|kshim_block_site|site_profiled|profile_site)/)
					share = "cost"
				else if (file ~ /(entry_stack|idle_stack)\.cpp$|fiber_switch\.h$|glue\/cpu\.c$/ || obj ~ /libboost_context/ ||
					 name ~ /^(shim_entr|shim_idle|kshim_settle|settle_cpu|kshim_entry_|group_entry|kshim_take_due_interrupts)/)
					share = "entries"
				else if (obj ~ /libksched/ || file ~ /kernel-shim\/|\/glue\//)
					share = "glue"
				else if (name ~ /sh::(report|metrics|stats)::/ || file ~ /harness\/(report|metrics|stats)\//)
					share = "reports"
				else if (name ~ /sh::sim::/ || file ~ /harness\/sim\//)
					share = "loop"
				else
					share = "rest"
				s[share] += n
			}
			END {
				for (i = 1; i <= 7; i++) printf "%s %.0f\n", order[i], s[order[i]]
				printf "total %.0f\n", total
			}'
}
