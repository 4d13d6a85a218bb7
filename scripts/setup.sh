#!/usr/bin/env bash
# Installs the Debian packages sched-harness needs, when some are missing,
# and those named as arguments:
#   scripts/setup.sh [PACKAGE...]          building and running (scripts/run.sh)
#   scripts/setup.sh --tests [PACKAGE...]  and what the tests use besides
#                                          (scripts/test.sh)
# scripts/check-packages.sh, which CI runs, fails when a build reads a file
# of a package that is not in these lists.
# Runs apt-get update first, as apt-get wants on a fresh machine.
set -euo pipefail
args=("$@")

# What building sched-harness and running it need.
packages=(
	g++ make cmake tar xz-utils bc
	# the tree's Kconfig (scripts/kconfig), run on each flavour's defconfig
	flex bison
	device-tree-compiler libfdt-dev
	libboost-program-options-dev
	# Boost.Context: the idle task's stack switches (kernel-shim/src/idle_stack.cpp)
	libboost-context-dev
	# Boost's headers (Math's distributions, for compare's t test)
	libboost-dev
	libfmt-dev rapidjson-dev
	# rt-app's example workloads (run --workload FILE)
	rt-app
	# kernel build --patch applies patches with GNU patch; bisect --tree
	# reads commits with git archive
	patch git
	# sweep --plot and run --plot draw with gnuplot
	gnuplot-nox
	# valgrind's client request, with which a profile's code patches tell
	# it (kernel-shim/src/text_patch.cpp); bench/ runs callgrind
	valgrind
	# the kernel tree the build compiles (scripts/build.sh's default)
	linux-source-6.1
)
# What the tests use besides.
test_packages=(
	libboost-test-dev
	# run --trace FILE.dat is read back by trace-cmd report, and loaded by
	# KernelShark's library (libkshark-dev and the .pc files it requires)
	trace-cmd libkshark-dev libtracecmd-dev libtracefs-dev libtraceevent-dev libjson-c-dev pkg-config
	# --engine list's job list is run by GNU parallel, and --engine slurm
	# on a Slurm cluster of this machine (munged, slurmctld, slurmd)
	# (tests/experiment/slurm-cluster.sh)
	parallel slurm-wlm munge
	# the docs' example outputs are checked against the binary
	# (scripts/doc-examples.py, CTest docs.examples); the experiments'
	# statistics (scripts/experiments/factors.py: Student's t)
	python3 python3-scipy
	# what the guest tests boot (tests/guest, docs/validation.md)
	qemu-system-x86 busybox-static cpio
	# the second tree of the machine's suites (7.3 comes from
	# scripts/fetch-kernel.sh)
	linux-source-6.12
)
# GCC's plugin headers, of the GCC that g++ is: the block counter in a
# register (cmake/BlockCounter.cmake; without them kernel time counts with
# a call per block). Named once gcc is there: a fresh machine gets it on
# a second pass, below.
if command -v gcc > /dev/null; then
	packages+=("gcc-$(gcc -dumpversion | cut -d. -f1)-plugin-dev")
fi
if [ "${1:-}" = --tests ]; then
	shift
	packages+=("${test_packages[@]}")
fi
# and what a caller needs beyond these (scripts/fuzz.sh: clang, libFuzzer)
packages+=("$@")
# SETUP_LIST=1: print them, one a line, and install nothing
# (scripts/check-packages.sh compares them with what a build read)
if [ -n "${SETUP_LIST:-}" ]; then
	printf '%s\n' "${packages[@]}"
	exit 0
fi

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
	sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
# gcc came with this pass: its plugin headers with the next
if [ -z "${SETUP_AGAIN:-}" ] && [[ " ${missing[*]} " == *" g++ "* ]]; then
	SETUP_AGAIN=1 exec "$0" "${args[@]}"
fi
