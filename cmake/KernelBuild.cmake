# Compiling kernel code in user space (DESIGN.md, "How the shim compiles
# upstream code"): the tree's own headers behind a fake architecture,
# Kbuild's -include files, -nostdinc, -fPIC.
#
#   sh_kernel_c_sources(TARGET src...)   compile these C files as kernel code
#   KERNEL_UPSTREAM_FILES                every file of the tree compiled in
#                                        (appended by sched/ and kernel-shim/)

set(KSHIM_ARCH ${SH_SOURCE_ROOT}/kernel-shim/arch)
set(KSHIM_GEN ${CMAKE_BINARY_DIR}/kernel-shim/arch)

set(KERNEL_INCLUDE_DIRS
	${KSHIM_ARCH}/include
	${KSHIM_GEN}/include
	${KERNEL_TREE}/include
	${KSHIM_ARCH}/include/uapi
	${KSHIM_GEN}/include/uapi
	${KERNEL_TREE}/include/uapi
	${KSHIM_GEN}/include/generated/uapi)

# Kbuild's KBUILD_CFLAGS that matter in user space; -O2 always, since the
# kernel relies on optimisation (BUILD_BUG_ON through __compiletime_assert).
set(KERNEL_C_FLAGS
	-nostdinc -D__KERNEL__ -std=gnu11 -fPIC -O2
	-fno-strict-aliasing -fno-common -fshort-wchar -fno-delete-null-pointer-checks
	-fno-strict-overflow -fno-stack-protector
	# not Kbuild's: a kernel fault unwinds through kernel frames to the
	# harness, which reports it (kernel-shim/src/runtime.cpp)
	-fexceptions
	-Wall -Wundef -Wno-trigraphs -Werror=strict-prototypes
	-Werror=implicit-function-declaration -Werror=implicit-int -Werror=return-type
	-Wno-format-security -Wno-unused-but-set-variable -Wno-address-of-packed-member
	-Wno-pointer-sign -Wno-maybe-uninitialized
	-include ${KERNEL_TREE}/include/linux/compiler-version.h
	-include ${KERNEL_TREE}/include/linux/kconfig.h
	-include ${KERNEL_TREE}/include/linux/compiler_types.h)

# The generated half of the fake architecture, made at configure time from
# the tree (and remade when the kconfig fragment or the script changes).
file(MAKE_DIRECTORY ${KSHIM_GEN})
set(_kflags "")
foreach(flag IN LISTS KERNEL_C_FLAGS)
	string(APPEND _kflags "${flag} ")
endforeach()
foreach(dir IN LISTS KERNEL_INCLUDE_DIRS)
	string(APPEND _kflags "-I${dir} ")
endforeach()
file(WRITE ${KSHIM_GEN}/kflags "${_kflags}\n")
execute_process(
	COMMAND ${KSHIM_ARCH}/generate.sh ${KERNEL_TREE} ${KSHIM_GEN} ${CMAKE_C_COMPILER} ${KSHIM_ARCH}/kconfig
	RESULT_VARIABLE _gen_rc
	ERROR_VARIABLE _gen_err)
if(NOT _gen_rc EQUAL 0)
	message(FATAL_ERROR "kernel-shim/arch/generate.sh failed for ${KERNEL_TREE}:\n${_gen_err}")
endif()
set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
	${KSHIM_ARCH}/kconfig ${KSHIM_ARCH}/generate.sh)

function(sh_kernel_c_sources target)
	target_sources(${target} PRIVATE ${ARGN})
	set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES
		COMPILE_OPTIONS "${KERNEL_C_FLAGS}"
		INCLUDE_DIRECTORIES "${KERNEL_INCLUDE_DIRS}")
endfunction()

set(KERNEL_UPSTREAM_FILES "" CACHE INTERNAL "files of the tree compiled into libksched")
function(sh_kernel_upstream_files)
	set(files ${KERNEL_UPSTREAM_FILES})
	foreach(rel IN LISTS ARGN)
		if(NOT EXISTS ${KERNEL_TREE}/${rel})
			message(FATAL_ERROR "the kernel tree ${KERNEL_TREE} lacks ${rel}, which sched-harness compiles")
		endif()
		list(APPEND files ${rel})
	endforeach()
	list(REMOVE_DUPLICATES files)
	set(KERNEL_UPSTREAM_FILES "${files}" CACHE INTERNAL "files of the tree compiled into libksched")
endfunction()
