# Linux 6.1 (Debian's linux-source-6.1), as its Makefiles build it.

# Makefile:583: KBUILD_CFLAGS += -std=gnu11
set(SH_SERIES_C_DIALECT -std=gnu11)
# Makefile:566-567 (LINUXINCLUDE... -include), scripts/Makefile.lib:231
set(SH_SERIES_PREINCLUDES
	include/linux/compiler-version.h
	include/linux/kconfig.h
	include/linux/compiler_types.h)
# kernel/sched/Makefile: core.o fair.o build_policy.o build_utility.o,
# and what build_policy.c and build_utility.c include
set(SH_SERIES_SCHED_UNITS ${SH_SCHED_UNITS_COMMON})
# include/asm-generic/vmlinux.lds.h: SCHED_DATA
set(SH_SERIES_SCHED_DATA ${SH_SCHED_DATA_COMMON})
set(SH_SERIES_SCHED_FILES ${SH_SCHED_FILES_COMMON})
# drivers/thermal/Makefile: thermal_sys-y
set(SH_SERIES_THERMAL_FILES ${SH_THERMAL_FILES_COMMON})
set(SH_SERIES_LIB_FILES "")
