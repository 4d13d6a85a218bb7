# The kernel tree is a build input, never a copy.
#
#   -DKERNEL_SRC=/path/to/linux   use that tree as it is
#   (default)                     extract Debian's linux-source-6.1 tarball
#                                 into the build directory, once
#
# Sets KERNEL_TREE (absolute path) and KERNEL_VERSION (from its Makefile).

set(KERNEL_SRC "" CACHE PATH "Kernel source tree to build against (default: extract KERNEL_TARBALL)")
set(KERNEL_TARBALL "/usr/src/linux-source-6.1.tar.xz" CACHE FILEPATH
	"Kernel source tarball used when KERNEL_SRC is empty (Debian package linux-source-6.1)")

function(_kernel_tree_extract tarball out_tree)
	if(NOT EXISTS "${tarball}")
		message(FATAL_ERROR
			"kernel tarball ${tarball} does not exist: install Debian's "
			"linux-source-6.1 (scripts/setup.sh does it) or pass -DKERNEL_SRC=/path/to/linux")
	endif()
	get_filename_component(name "${tarball}" NAME)
	string(REGEX REPLACE "\\.tar(\\.[a-z0-9]+)?$" "" dir "${name}")
	set(dest "${CMAKE_BINARY_DIR}/kernel")
	set(tree "${dest}/${dir}")
	file(TIMESTAMP "${tarball}" stamp_value "%Y%m%d%H%M%S" UTC)
	set(stamp "${dest}/.${dir}.extracted")
	set(have "")
	if(EXISTS "${stamp}")
		file(READ "${stamp}" have)
	endif()
	if(NOT have STREQUAL "${tarball}@${stamp_value}" OR NOT IS_DIRECTORY "${tree}")
		message(STATUS "Extracting ${tarball} into ${dest} (once)")
		file(REMOVE_RECURSE "${tree}")
		file(MAKE_DIRECTORY "${dest}")
		execute_process(
			COMMAND tar -xf "${tarball}" -C "${dest}"
			RESULT_VARIABLE rc
			ERROR_VARIABLE err)
		if(NOT rc EQUAL 0)
			message(FATAL_ERROR "extracting ${tarball} failed: ${err}")
		endif()
		if(NOT IS_DIRECTORY "${tree}")
			message(FATAL_ERROR "${tarball} did not contain the folder ${dir}/")
		endif()
		file(WRITE "${stamp}" "${tarball}@${stamp_value}")
	endif()
	set(${out_tree} "${tree}" PARENT_SCOPE)
endfunction()

# A tree is usable when it has what the build reads from it. Name the first
# thing missing, with its full path.
function(_kernel_tree_check tree)
	foreach(rel Makefile include/linux/sched.h include/dt-bindings
			scripts/dtc/include-prefixes arch/arm/boot/dts arch/arm64/boot/dts
			kernel/bounds.c kernel/time/timeconst.bc
			kernel/sched/pelt.c kernel/power/energy_model.c drivers/base/arch_topology.c)
		if(NOT EXISTS "${tree}/${rel}")
			message(FATAL_ERROR
				"KERNEL_SRC=${tree} is not a kernel tree: ${tree}/${rel} does not exist")
		endif()
	endforeach()
endfunction()

function(_kernel_tree_version tree out_version)
	file(STRINGS "${tree}/Makefile" head LIMIT_COUNT 10 REGEX "^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION) =")
	set(VERSION "")
	set(PATCHLEVEL "")
	set(SUBLEVEL "")
	set(EXTRAVERSION "")
	foreach(line IN LISTS head)
		if(line MATCHES "^([A-Z]+) = *(.*)$")
			set(${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
		endif()
	endforeach()
	if(VERSION STREQUAL "" OR PATCHLEVEL STREQUAL "")
		message(FATAL_ERROR "${tree}/Makefile does not define VERSION and PATCHLEVEL")
	endif()
	set(v "${VERSION}.${PATCHLEVEL}")
	if(NOT SUBLEVEL STREQUAL "")
		string(APPEND v ".${SUBLEVEL}")
	endif()
	set(${out_version} "${v}${EXTRAVERSION}" PARENT_SCOPE)
endfunction()

if(KERNEL_SRC)
	get_filename_component(KERNEL_TREE "${KERNEL_SRC}" ABSOLUTE)
	if(NOT IS_DIRECTORY "${KERNEL_TREE}")
		message(FATAL_ERROR "KERNEL_SRC=${KERNEL_TREE} is not a directory")
	endif()
else()
	_kernel_tree_extract("${KERNEL_TARBALL}" KERNEL_TREE)
endif()
_kernel_tree_check("${KERNEL_TREE}")
_kernel_tree_version("${KERNEL_TREE}" KERNEL_VERSION)
message(STATUS "Kernel tree: ${KERNEL_TREE} (Linux ${KERNEL_VERSION})")
