# The kernel tree is a build input, never a copy.
#
#   -DKERNEL_SRC=/path/to/linux   use that tree as it is
#   (default)                     extract Debian's linux-source-6.1 tarball
#                                 once into KERNEL_TREES_DIR, shared by
#                                 every build of this machine, and link it
#                                 from the build directory
#
# Sets KERNEL_TREE (absolute path) and KERNEL_VERSION (from its Makefile).

set(KERNEL_SRC "" CACHE PATH "Kernel source tree to build against (default: extract KERNEL_TARBALL)")
set(KERNEL_TARBALL "/usr/src/linux-source-6.1.tar.xz" CACHE FILEPATH
	"Kernel source tarball used when KERNEL_SRC is empty (Debian package linux-source-6.1)")

# Where the tarballs are extracted: the harness's cache (support::cache_dir()),
# so that the build directories of one machine (build/, build-asan/, the
# other trees', the series builds of the image cache) share one tree a
# tarball (1.2 to 1.9 GB each) instead of each extracting its own.
if(NOT "$ENV{SCHED_HARNESS_CACHE}" STREQUAL "")
	set(_sh_cache "$ENV{SCHED_HARNESS_CACHE}")
elseif(NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
	set(_sh_cache "$ENV{XDG_CACHE_HOME}/sched-harness")
elseif(NOT "$ENV{HOME}" STREQUAL "")
	set(_sh_cache "$ENV{HOME}/.cache/sched-harness")
else()
	set(_sh_cache "/tmp/sched-harness-cache")
endif()
set(KERNEL_TREES_DIR "${_sh_cache}/sources" CACHE PATH
	"Where kernel tarballs are extracted, once each, for every build directory to share")

# The tarball extracted into KERNEL_TREES_DIR/NAME-KEY, KEY standing for
# its path, size and modification time (a changed tarball is extracted
# anew). The tree is only read: nothing the build makes is written into
# it, which is what lets builds of other options share it. Two configures
# at once (the image cache builds series in parallel) each extract into a
# folder of their own and rename it into place; the second one's rename
# fails (rename(2) never replaces a folder that is not empty) and it takes
# the first's.
function(_kernel_tree_extract tarball out_tree)
	if(NOT EXISTS "${tarball}")
		message(FATAL_ERROR
			"kernel tarball ${tarball} does not exist: install Debian's "
			"linux-source-6.1 (scripts/setup.sh does it) or pass -DKERNEL_SRC=/path/to/linux")
	endif()
	get_filename_component(tarball "${tarball}" ABSOLUTE)
	get_filename_component(name "${tarball}" NAME)
	string(REGEX REPLACE "\\.tar(\\.[a-z0-9]+)?$" "" dir "${name}")
	file(SIZE "${tarball}" size)
	file(TIMESTAMP "${tarball}" mtime "%s" UTC)
	set(identity "${tarball}\n${size}@${mtime}\n")
	string(SHA1 key "${identity}")
	string(SUBSTRING "${key}" 0 16 key)
	set(shared "${KERNEL_TREES_DIR}/${dir}-${key}")
	set(complete "${shared}/.extracted")
	if(NOT EXISTS "${complete}")
		# this cmake's pid (the shell's parent): the harness's cache
		# pruning removes a .tmp.PID whose process is gone
		execute_process(COMMAND sh -c "echo $PPID" OUTPUT_VARIABLE pid OUTPUT_STRIP_TRAILING_WHITESPACE)
		set(work "${shared}.tmp.${pid}")
		message(STATUS "Extracting ${tarball} into ${shared} (once for every build)")
		file(REMOVE_RECURSE "${work}")
		file(MAKE_DIRECTORY "${work}")
		execute_process(
			COMMAND tar -xf "${tarball}" -C "${work}"
			RESULT_VARIABLE rc
			ERROR_VARIABLE err)
		if(NOT rc EQUAL 0)
			file(REMOVE_RECURSE "${work}")
			message(FATAL_ERROR "extracting ${tarball} into ${work} failed: ${err}")
		endif()
		if(NOT IS_DIRECTORY "${work}/${dir}")
			file(REMOVE_RECURSE "${work}")
			message(FATAL_ERROR "${tarball} did not contain the folder ${dir}/")
		endif()
		file(WRITE "${work}/.extracted" "${identity}")
		# rename(2) does not replace a folder that is not empty: the first
		# configure's tree stays (RENAME_NOREPLACE, NO_REPLACE, is not
		# on every file system)
		file(RENAME "${work}" "${shared}" RESULT renamed)
		if(NOT renamed EQUAL 0)
			file(REMOVE_RECURSE "${work}")
			if(NOT EXISTS "${complete}")
				message(FATAL_ERROR "could not move the tree extracted from ${tarball} to ${shared}: ${renamed}")
			endif()
		endif()
	endif()
	# the build directory's kernel/NAME, where it always was: a link
	set(tree "${CMAKE_BINARY_DIR}/kernel/${dir}")
	set(target "")
	if(IS_SYMLINK "${tree}")
		file(READ_SYMLINK "${tree}" target)
	endif()
	if(NOT target STREQUAL "${shared}/${dir}")
		if(IS_SYMLINK "${tree}")
			file(REMOVE "${tree}")
		else()
			# a build directory from before the trees were shared: its own copy goes
			file(REMOVE_RECURSE "${tree}" "${CMAKE_BINARY_DIR}/kernel/.${dir}.extracted")
		endif()
		file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/kernel")
		file(CREATE_LINK "${shared}/${dir}" "${tree}" RESULT linked SYMBOLIC)
		if(NOT linked EQUAL 0)
			message(FATAL_ERROR "could not link ${tree} to the extracted tree ${shared}/${dir}: ${linked}")
		endif()
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
