# Linux 7.3 (Debian's linux-source-7.3), as its Makefiles build it.

# Makefile:824-826: CC_FLAGS_DIALECT := -std=gnu11 $(CONFIG_CC_MS_EXTENSIONS),
# which init/Kconfig:988 makes -fms-extensions for a GCC without
# -fms-anonymous-structs (GCC 12)
set(SH_SERIES_C_DIALECT -std=gnu11 -fms-extensions)
# Makefile:602-603, scripts/Makefile.lib:171
set(SH_SERIES_PREINCLUDES
	include/linux/compiler-version.h
	include/linux/kconfig.h
	include/linux/compiler_types.h)
# Kbuild:37-46: include/generated/rq-offsets.h from kernel/sched/rq-offsets.c,
# which include/linux/sched.h:55 includes (6.18)
set(SH_SERIES_OFFSETS rq-offsets.h)
# init/Kconfig:2301-2303: TRACEPOINTS selects TASKS_TRACE_RCU (6.x), which
# tracepoint.h's tracepoint_synchronize_unregister() needs
set(SH_SERIES_KCONFIG CONFIG_TASKS_TRACE_RCU=y)
# kernel/sched/Makefile; build_policy.c includes syscalls.c, and sched_ext
# from kernel/sched/ext/ (7.2; SCHED_CLASS_EXT off: its headers only)
set(SH_SERIES_SCHED_UNITS ${SH_SCHED_UNITS_COMMON})
# include/asm-generic/vmlinux.lds.h: SCHED_DATA
set(SH_SERIES_SCHED_DATA ${SH_SCHED_DATA_COMMON})
set(SH_SERIES_SCHED_FILES ${SH_SCHED_FILES_COMMON}
	kernel/sched/syscalls.c
	kernel/sched/rq-offsets.c
	kernel/sched/ext/ext.h)
# drivers/thermal/Makefile:7-9: thermal_trip.o, and thermal_thresholds.o (6.13)
set(SH_SERIES_THERMAL_FILES ${SH_THERMAL_FILES_COMMON}
	drivers/thermal/thermal_trip.c
	drivers/thermal/thermal_thresholds.c)
set(SH_SERIES_LIB_FILES lib/bitmap-str.c lib/list_sort.c)
# drivers/base/Makefile: topology.o holds cpu_scale and
# topology_set_cpu_scale(), which left arch_topology.c (in 7.2.13, not in
# 6.12.118); lib/math/Makefile: int_pow.o, which the energy model's
# callers need
set(SH_SERIES_BASE_FILES drivers/base/topology.c lib/math/int_pow.c)
