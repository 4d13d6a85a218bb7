# Compiling kernel code in user space (DESIGN.md, "How the shim compiles
# upstream code"): the tree's own headers behind a fake architecture,
# Kbuild's -include files, -nostdinc, -fPIC.
#
#   sh_kernel_objects(NAME FLAVOUR f SOURCES ...)   compile C files as kernel code
#   KERNEL_UPSTREAM_FILES                every file of the tree compiled in
#                                        (appended by sched/ and kernel-shim/)

set(KSHIM_ARCH ${SH_SOURCE_ROOT}/kernel-shim/arch)

# Flavours: a kernel build per architecture whose boards we boot, each
# configured from that architecture's defconfig in the tree (generate.sh
# runs the tree's own Kconfig on it). arm64 is the default flavour; the
# arm flavour boots arch/arm boards (exynos_defconfig unless
# SH_ARM_DEFCONFIG names another of arch/arm/configs).
set(SH_ARM64_DEFCONFIG defconfig CACHE STRING "arch/arm64/configs file the arm64 flavour is configured from")
set(SH_ARM_DEFCONFIG exynos_defconfig CACHE STRING "arch/arm/configs file the arm flavour is configured from")
set(SH_KERNEL_FLAVOURS arm64 arm)

# Kbuild's KBUILD_CFLAGS that matter in user space; -O2 always, since the
# kernel relies on optimisation (BUILD_BUG_ON through __compiletime_assert).
set(KERNEL_C_FLAGS
	-nostdinc -D__KERNEL__ ${SH_SERIES_C_DIALECT} ${SH_SERIES_C_FLAGS} -fPIC -O2
	-fno-strict-aliasing -fno-common -fshort-wchar -fno-delete-null-pointer-checks
	-fno-strict-overflow -fno-stack-protector
	# not Kbuild's: a kernel fault unwinds through kernel frames to the
	# harness, which reports it (kernel-shim/src/runtime.cpp)
	-fexceptions
	-Wall -Wundef -Wno-trigraphs -Werror=strict-prototypes
	-Werror=implicit-function-declaration -Werror=implicit-int -Werror=return-type
	-Wno-format-security -Wno-unused-but-set-variable -Wno-address-of-packed-member
	-Wno-pointer-sign -Wno-maybe-uninitialized
	# scripts/Makefile.extrawarn: only W=1 warns of truncated snprintf()s
	-Wno-format-truncation)
# Before 5.15 the kernel took <stdarg.h> from the compiler: its Makefile's
# NOSTDINC_FLAGS add -isystem $(CC -print-file-name=include) (series
# files: SH_SERIES_COMPILER_INCLUDES)
if(SH_SERIES_COMPILER_INCLUDES)
	execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=include
		OUTPUT_VARIABLE compiler_includes OUTPUT_STRIP_TRAILING_WHITESPACE)
	list(APPEND KERNEL_C_FLAGS -isystem ${compiler_includes})
endif()
if(SH_SANITIZE)
	# Less the alignment check, as the kernel's own CONFIG_UBSAN builds it
	# for both flavours' architectures, arm64 and ARMv7 (and for x86, where
	# this code runs): UBSAN_ALIGNMENT defaults to
	# !HAVE_EFFICIENT_UNALIGNED_ACCESS (lib/Kconfig.ubsan), since a
	# misaligned access is allowed there. Its checks also doubled the
	# compile of instrumented kernel code (fair.c 10.8 s against 5.8 s),
	# which every kernel image a test builds pays again.
	# Less the null and pointer-overflow checks too, which the kernel's
	# CONFIG_UBSAN has on no architecture (scripts/Makefile.ubsan): its
	# code takes container_of() of a NULL list end as a matter of course
	# (llist_for_each_entry_safe() in sched_ttwu_pending(), kernel/smp.c's
	# call-queue flush taking &csd_next->node.llist of the last entry).
	list(APPEND KERNEL_C_FLAGS ${SH_SANITIZE_FLAGS} -fno-sanitize=alignment,null,pointer-overflow)
endif()
# Kbuild's -include files, in order (cmake/series/<series>.cmake).
list(TRANSFORM SH_SERIES_PREINCLUDES PREPEND ${KERNEL_TREE}/ OUTPUT_VARIABLE KERNEL_C_PREINCLUDES)

# The generated half of a flavour's fake architecture, made at configure
# time from the tree (and remade when the kconfig fragments or the script
# change). Sets KERNEL_INCLUDE_DIRS_<flavour> and KSHIM_GEN_<flavour>.
function(sh_kernel_flavour_generate flavour)
	set(gen ${CMAKE_BINARY_DIR}/kernel-shim/arch-${flavour})
	set(dirs ${KSHIM_ARCH}/${flavour}/include)
	list(APPEND dirs
		${KSHIM_ARCH}/include
		${gen}/include
		${KERNEL_TREE}/include
		${KSHIM_ARCH}/include/uapi
		${gen}/include/uapi
		${KERNEL_TREE}/include/uapi
		${gen}/include/generated/uapi)
	file(MAKE_DIRECTORY ${gen})
	set(kflags "")
	foreach(flag IN LISTS KERNEL_C_FLAGS)
		string(APPEND kflags "${flag} ")
	endforeach()
	foreach(file IN LISTS KERNEL_C_PREINCLUDES)
		string(APPEND kflags "-include ${file} ")
	endforeach()
	foreach(dir IN LISTS dirs)
		string(APPEND kflags "-I${dir} ")
	endforeach()
	file(WRITE ${gen}/kflags "${kflags}\n")
	if(flavour STREQUAL "arm")
		set(defconfig ${SH_ARM_DEFCONFIG})
	else()
		set(defconfig ${SH_ARM64_DEFCONFIG})
	endif()
	set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
		${KSHIM_ARCH}/kconfig ${KSHIM_ARCH}/${flavour}/kconfig ${KSHIM_ARCH}/defconfig-options
		${KSHIM_ARCH}/generate.sh ${KSHIM_ARCH}/generate-flavours.sh
		${CMAKE_SOURCE_DIR}/cmake/series/${SH_SERIES_DECLARED}.cmake)
	set(KERNEL_INCLUDE_DIRS_${flavour} ${dirs} PARENT_SCOPE)
	set(KSHIM_GEN_${flavour} ${gen} PARENT_SCOPE)
	set(KSHIM_GENERATE_${flavour} ${flavour} ${gen} ${defconfig} PARENT_SCOPE)
endfunction()

set(generate_args "")
foreach(flavour IN LISTS SH_KERNEL_FLAVOURS)
	sh_kernel_flavour_generate(${flavour})
	list(APPEND generate_args ${KSHIM_GENERATE_${flavour}})
endforeach()
# the flavours side by side (each runs the tree's Kconfig)
execute_process(
	COMMAND ${CMAKE_COMMAND} -E env "SH_SERIES_OFFSETS=${SH_SERIES_OFFSETS}" "SH_SERIES_KCONFIG=${SH_SERIES_KCONFIG}"
		${KSHIM_ARCH}/generate-flavours.sh ${KERNEL_TREE} ${CMAKE_C_COMPILER} ${generate_args}
	RESULT_VARIABLE rc
	ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "kernel-shim/arch/generate.sh failed on ${KERNEL_TREE}, for ${err}")
endif()
# The default flavour's, for kernel-side test code that boots no board.
set(KSHIM_GEN ${KSHIM_GEN_arm64})
set(KERNEL_INCLUDE_DIRS ${KERNEL_INCLUDE_DIRS_arm64})

# An object library of kernel C for one flavour: the kernel's flags and
# the flavour's include order, then INCLUDES (kernel/sched, ...).
#   sh_kernel_objects(NAME FLAVOUR f SOURCES src... [INCLUDES dir...])
function(sh_kernel_objects name)
	cmake_parse_arguments(K "" "FLAVOUR" "SOURCES;INCLUDES" ${ARGN})
	add_library(${name} OBJECT ${K_SOURCES})
	target_compile_options(${name} PRIVATE ${KERNEL_C_FLAGS})
	foreach(file IN LISTS KERNEL_C_PREINCLUDES)
		# SHELL: keeps the pairs (options are otherwise de-duplicated)
		target_compile_options(${name} PRIVATE "SHELL:-include ${file}")
	endforeach()
	target_include_directories(${name} PRIVATE ${KERNEL_INCLUDE_DIRS_${K_FLAVOUR}} ${K_INCLUDES})
endfunction()

set(KERNEL_UPSTREAM_FILES "" CACHE INTERNAL "files of the tree compiled into libksched")
function(sh_kernel_upstream_files)
	set(files ${KERNEL_UPSTREAM_FILES})
	# each must be in the tree (cmake/KernelSeries.cmake)
	sh_series_check_files(${ARGN})
	foreach(rel IN LISTS ARGN)
		list(APPEND files ${rel})
	endforeach()
	list(REMOVE_DUPLICATES files)
	set(KERNEL_UPSTREAM_FILES "${files}" CACHE INTERNAL "files of the tree compiled into libksched")
endfunction()
