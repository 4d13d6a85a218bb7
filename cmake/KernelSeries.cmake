# What differs between the kernel series the harness builds, declared once
# per series in cmake/series/<major.minor>.cmake (each citing the tree's
# Makefiles): the C dialect and Kbuild's -include files, the generated
# offsets headers, and the tree's files compiled in. Nothing here looks at
# the tree to decide what to compile: a file a series declares and the
# tree lacks is an error naming it.
#
# Sets KERNEL_SERIES (6.1, 6.12, 7.3 ...), SH_SERIES_DECLARED (the series
# whose file is used: the tree's own, else the nearest), SH_SERIES_BROUGHT_UP
# (the series' whole scheduler boots and passes the suite, so it is
# compiled by default: sched/CMakeLists.txt) and the SH_SERIES_* lists below.
#
# The supported span runs from the oldest to the newest declared series. A
# tree outside it stops, naming docs/new-tree.md, unless
# -DSH_SERIES_BRINGUP=ON says it is being brought up.
set(SH_SERIES_DECLARED_LIST 5.10 6.1 6.12 7.3)
set(SH_SERIES_BROUGHT_UP_LIST 5.10 6.1 6.12 7.3)
set(SH_SERIES_BRINGUP OFF CACHE BOOL
	"configure a kernel series outside the supported span (docs/new-tree.md)")

string(REGEX MATCH "^[0-9]+\\.[0-9]+" KERNEL_SERIES "${KERNEL_VERSION}")

# series as a comparable number: 6.12 -> 6012
function(_sh_series_number series out)
	string(REPLACE "." ";" parts "${series}")
	list(GET parts 0 major)
	list(GET parts 1 minor)
	math(EXPR n "${major} * 1000 + ${minor}")
	set(${out} ${n} PARENT_SCOPE)
endfunction()

_sh_series_number(${KERNEL_SERIES} wanted)
list(GET SH_SERIES_DECLARED_LIST 0 oldest)
list(GET SH_SERIES_DECLARED_LIST -1 newest)
_sh_series_number(${oldest} oldest_n)
_sh_series_number(${newest} newest_n)
string(REPLACE ";" ", " brought_up_text "${SH_SERIES_BROUGHT_UP_LIST}")

if(KERNEL_SERIES IN_LIST SH_SERIES_BROUGHT_UP_LIST)
	set(SH_SERIES_BROUGHT_UP ON)
else()
	set(SH_SERIES_BROUGHT_UP OFF)
endif()
if(KERNEL_SERIES IN_LIST SH_SERIES_DECLARED_LIST)
	set(SH_SERIES_DECLARED ${KERNEL_SERIES})
else()
	# the declared series nearest in version; of two, the older
	set(best "")
	set(best_distance "")
	foreach(series IN LISTS SH_SERIES_DECLARED_LIST)
		_sh_series_number(${series} n)
		math(EXPR d "${n} - ${wanted}")
		if(d LESS 0)
			math(EXPR d "-${d}")
		endif()
		if(best STREQUAL "" OR d LESS best_distance)
			set(best ${series})
			set(best_distance ${d})
		endif()
	endforeach()
	set(SH_SERIES_DECLARED ${best})
	if((wanted LESS oldest_n OR wanted GREATER newest_n) AND NOT SH_SERIES_BRINGUP)
		message(FATAL_ERROR "Linux ${KERNEL_VERSION} (${KERNEL_TREE}) is outside the series "
			"sched-harness supports (${oldest} to ${newest}; brought up: ${brought_up_text}). "
			"To bring it up, follow docs/new-tree.md: configure with -DSH_SERIES_BRINGUP=ON, "
			"which starts from the declarations of Linux ${best}, the nearest declared tree "
			"(cmake/series/${best}.cmake)")
	endif()
	message(STATUS "Linux ${KERNEL_SERIES} is not brought up (brought up: ${brought_up_text}): "
		"it is built with the declarations of Linux ${best}, the nearest declared tree "
		"(cmake/series/${best}.cmake); docs/new-tree.md says how to bring it up")
endif()

# What each series file sets (lists of paths relative to the tree):
#   SH_SERIES_C_DIALECT      the Makefile's -std and dialect options
#   SH_SERIES_C_FLAGS        the Makefile's other flags that matter here (the
#                            warnings it turns off)
#   SH_SERIES_SCHED_DATA     vmlinux.lds.h's SCHED_DATA: the symbol before
#                            the scheduling classes' sections, the classes
#                            in their order, the symbol after
#   SH_SERIES_PREINCLUDES    Kbuild's -include files, in order
#   SH_SERIES_COMPILER_INCLUDES  ON: the compiler's own include directory
#                            after -nostdinc (<stdarg.h>, before 5.15)
#   SH_SERIES_OFFSETS        generated offsets headers beyond bounds.h
#   SH_SERIES_KCONFIG        options the series' Kconfig forces (a select of
#                            an option kernel-shim/arch/kconfig sets), beyond
#                            that fragment, as CONFIG_X=y items
#   SH_SERIES_SCHED_FILES    kernel/sched files of the whole scheduler (hashed
#                            by kernel info)
#   SH_SERIES_SCHED_UNITS    the units the whole scheduler compiles as: export
#                            units of sched/ (export/x_export.c, which
#                            include a file of the tree), and files of the
#                            tree compiled as they are (kernel/sched/x.c)
#   SH_SERIES_THERMAL_FILES  the thermal framework's files (thermal_sys-y)
#   SH_SERIES_BASE_FILES     files every build of the series compiles (PELT
#                            alone too) beyond the common ones
#   SH_SERIES_LIB_FILES      library files the whole scheduler's callers need
#                            beyond the common ones (kernel-shim/CMakeLists.txt)
# Common to every series brought up: the whole scheduler as the kernel
# builds it (kernel/sched/Makefile: core.o fair.o build_policy.o
# build_utility.o, and what the last two include), listed for the hashes
# `kernel info` prints and the test that checks them; the thermal framework
# (drivers/thermal/Makefile: thermal_sys-y with the OF, step_wise,
# power_allocator and cpufreq cooling options) and the freq QoS its CPU
# cooling caps policies through.
# the scheduler's own headers, which every series since 5.10 has
set(SH_SCHED_HEADERS_COMMON
	kernel/sched/sched.h
	kernel/sched/stats.h
	kernel/sched/features.h
	kernel/sched/autogroup.h
	kernel/sched/cpupri.h
	kernel/sched/cpudeadline.h
	kernel/sched/pelt.h
	kernel/sched/sched-pelt.h
	kernel/sched/smp.h)
set(SH_SCHED_FILES_COMMON
	kernel/sched/core.c
	kernel/sched/fair.c
	kernel/sched/build_policy.c
	kernel/sched/idle.c
	kernel/sched/rt.c
	kernel/sched/cpudeadline.c
	kernel/sched/pelt.c
	kernel/sched/cputime.c
	kernel/sched/deadline.c
	kernel/sched/build_utility.c
	kernel/sched/clock.c
	kernel/sched/cpufreq.c
	kernel/sched/cpufreq_schedutil.c
	kernel/sched/debug.c
	kernel/sched/loadavg.c
	kernel/sched/completion.c
	kernel/sched/swait.c
	kernel/sched/wait_bit.c
	kernel/sched/wait.c
	kernel/sched/cpupri.c
	kernel/sched/stop_task.c
	kernel/sched/topology.c
	kernel/sched/isolation.c
	${SH_SCHED_HEADERS_COMMON})
set(SH_THERMAL_FILES_COMMON
	drivers/thermal/thermal_core.c
	drivers/thermal/thermal_sysfs.c
	drivers/thermal/thermal_helpers.c
	drivers/thermal/thermal_of.c
	drivers/thermal/gov_step_wise.c
	drivers/thermal/gov_power_allocator.c
	drivers/thermal/cpufreq_cooling.c
	kernel/power/qos.c)
# include/asm-generic/vmlinux.lds.h's SCHED_DATA (kernel-shim/kernel.ld.in):
# the symbol before the scheduling classes, their order, the symbol after;
# core.c's for_each_class() walks them from the highest (since 5.18)
set(SH_SCHED_DATA_COMMON __sched_class_highest stop dl rt fair idle __sched_class_lowest)
# kernel/sched/Makefile since 5.18: core.o fair.o build_policy.o
# build_utility.o, each with its export unit
set(SH_SCHED_UNITS_COMMON
	export/core_export.c
	export/fair_export.c
	export/policy_export.c
	export/utility_export.c)
foreach(var C_DIALECT C_FLAGS SCHED_DATA PREINCLUDES COMPILER_INCLUDES OFFSETS KCONFIG SCHED_FILES SCHED_UNITS THERMAL_FILES BASE_FILES LIB_FILES)
	set(SH_SERIES_${var} "")
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/series/${SH_SERIES_DECLARED}.cmake)

# The files a series declares must be in the tree; a missing one names the
# declaring series file (for a tree not brought up: the nearest one's).
function(sh_series_check_files)
	foreach(rel IN LISTS ARGN)
		if(NOT EXISTS ${KERNEL_TREE}/${rel})
			message(FATAL_ERROR "the kernel tree ${KERNEL_TREE} (Linux ${KERNEL_VERSION}) lacks ${rel}, "
				"which cmake/series/${SH_SERIES_DECLARED}.cmake declares for Linux ${SH_SERIES_DECLARED}"
				"${_sh_series_hint}")
		endif()
	endforeach()
endfunction()
if(NOT SH_SERIES_BROUGHT_UP)
	set(_sh_series_hint ": Linux ${KERNEL_SERIES} is not brought up; docs/new-tree.md")
endif()
sh_series_check_files(${SH_SERIES_PREINCLUDES})
