# Linux 6.12 (Debian's linux-source-6.12), as its Makefiles build it.

# Makefile:572: KBUILD_CFLAGS += -std=gnu11
set(SH_SERIES_C_DIALECT -std=gnu11)
# Makefile:557-558, scripts/Makefile.lib:226
set(SH_SERIES_PREINCLUDES
	include/linux/compiler-version.h
	include/linux/kconfig.h
	include/linux/compiler_types.h)
# kernel/sched/Makefile; build_policy.c includes syscalls.c (6.10), sched.h
# ext.h (6.12; SCHED_CLASS_EXT off)
set(SH_SERIES_SCHED_UNITS ${SH_SCHED_UNITS_COMMON})
# include/asm-generic/vmlinux.lds.h: SCHED_DATA
set(SH_SERIES_SCHED_DATA ${SH_SCHED_DATA_COMMON})
set(SH_SERIES_SCHED_FILES ${SH_SCHED_FILES_COMMON}
	kernel/sched/syscalls.c
	kernel/sched/ext.h)
# drivers/thermal/Makefile:7-8: thermal_sys-y gained thermal_trip.o (6.6)
set(SH_SERIES_THERMAL_FILES ${SH_THERMAL_FILES_COMMON}
	drivers/thermal/thermal_trip.c)
# the thermal core sorts trip crossings (list_sort(), 6.12); bitmap
# parsing (isolation.c's bitmap_parselist()) left bitmap.c for
# bitmap-str.c in 6.3
set(SH_SERIES_LIB_FILES lib/bitmap-str.c lib/list_sort.c)
