# The tools the kernel's own DT build uses (scripts/Makefile.lib, cmd_dtc):
# the C preprocessor and dtc. Their paths are baked into the binaries as
# defaults; a missing tool is a configure error, not a run-time surprise.
find_program(SCHED_HARNESS_CPP NAMES cpp REQUIRED
	DOC "C preprocessor used on .dts files as Kbuild does")
find_program(SCHED_HARNESS_DTC NAMES dtc REQUIRED
	DOC "Device-tree compiler (Debian package device-tree-compiler)")
