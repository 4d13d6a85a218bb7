# Linux 5.10 (Debian's linux-source-5.10, from the archive's
# bullseye-security suite: scripts/fetch-kernel.sh 5.10), as its Makefiles
# build it.

# Makefile:520: KBUILD_CFLAGS += -std=gnu89
set(SH_SERIES_C_DIALECT -std=gnu89)
# Makefile:975-977: warnings of newer compilers the tree turns off
set(SH_SERIES_C_FLAGS -Wno-zero-length-bounds -Wno-array-bounds -Wno-stringop-overflow)
# Makefile:504 (USERINCLUDE: -include kconfig.h), scripts/Makefile.lib:201;
# no compiler-version.h before 5.12
set(SH_SERIES_PREINCLUDES
	include/linux/kconfig.h
	include/linux/compiler_types.h)
# Makefile:960: NOSTDINC_FLAGS += -nostdinc -isystem $(shell $(CC)
# -print-file-name=include): <stdarg.h> is the compiler's (5.15 moved it
# into the tree)
set(SH_SERIES_COMPILER_INCLUDES ON)
# kernel/sched/Makefile:25-37: one object per file (no build_policy.c or
# build_utility.c before 5.18), those with the harness's entries through
# their export units; CONFIG_SCHED_AUTOGROUP, SCHEDSTATS, CGROUP_CPUACCT,
# MEMBARRIER and PSI are off (kernel-shim/arch/kconfig)
set(sched_tree_units
	kernel/sched/loadavg.c
	kernel/sched/clock.c
	kernel/sched/cputime.c
	kernel/sched/rt.c
	kernel/sched/deadline.c
	kernel/sched/wait.c
	kernel/sched/wait_bit.c
	kernel/sched/swait.c
	kernel/sched/completion.c
	kernel/sched/cpupri.c
	kernel/sched/cpudeadline.c
	kernel/sched/topology.c
	kernel/sched/stop_task.c
	kernel/sched/pelt.c
	kernel/sched/cpufreq.c
	kernel/sched/isolation.c)
set(SH_SERIES_SCHED_UNITS
	export/core_export.c
	export/fair_export.c
	export/idle_export.c
	export/debug_export.c
	export/cpufreq_schedutil_export.c
	${sched_tree_units})
# include/asm-generic/vmlinux.lds.h:128-136: SCHED_DATA lowest first,
# between __begin_sched_classes and __end_sched_classes
set(SH_SERIES_SCHED_DATA __begin_sched_classes idle fair rt dl stop __end_sched_classes)
# what kernel info hashes: the files the units compile, and the headers
set(SH_SERIES_SCHED_FILES
	kernel/sched/core.c
	kernel/sched/fair.c
	kernel/sched/idle.c
	kernel/sched/debug.c
	kernel/sched/cpufreq_schedutil.c
	${sched_tree_units}
	${SH_SCHED_HEADERS_COMMON})
# drivers/thermal/Makefile:7-25: thermal_sys-y
set(SH_SERIES_THERMAL_FILES ${SH_THERMAL_FILES_COMMON})
set(SH_SERIES_LIB_FILES "")
