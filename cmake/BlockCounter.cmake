# The basic-block counter behind kernel time (kshim/cost.h), chosen at
# configure time:
#   register  GCC's -fsanitize-coverage=trace-pc, each of its calls turned
#             into one add to %r15 by the project's GCC plugin
#             (kernel-shim/plugin/block_counter.cpp). %r15 is reserved in
#             every object of the project (-ffixed-r15); code outside it
#             (libc, Boost, libstdc++) saves and restores it as any
#             callee-saved register. x86-64 with GCC and its plugin headers
#             (Debian's gcc-N-plugin-dev).
#   call      the calls themselves, to a two-instruction callback
#             (kernel-shim/glue/cost.c): anywhere else.
#   none      no counter: the kernel objects compiled without
#             -fsanitize-coverage, so kernel code takes no time and `run`
#             refuses --kernel-time on. Only the baseline bench/scale.sh
#             measures the counter's cost against: an untimed run's
#             output is the same as an instrumented build's.
# Both count the same sites, and the same blocks: the plugin's add tells
# the compiler what the call did (it clobbers memory), so the code around
# it compiles as it did around the call, and a run's figures and
# fingerprint are the same with either (the docs' examples pass on both).
# The register runs the default scenario in about half the CPU time
# (docs/benchmarks.md).
#
#   -DSH_BLOCK_COUNTER=auto|register|call|none      (auto: register where it can)
set(SH_BLOCK_COUNTER auto CACHE STRING "the kernel-time block counter: auto, register, call or none")
set_property(CACHE SH_BLOCK_COUNTER PROPERTY STRINGS auto register call none)

set(SH_BLOCK_COUNTER_REGISTER OFF)
set(sh_block_counter_why "")
if(NOT SH_BLOCK_COUNTER MATCHES "^(auto|register|call|none)$")
	message(FATAL_ERROR "SH_BLOCK_COUNTER is '${SH_BLOCK_COUNTER}': auto, register, call or none")
endif()
set(SH_BLOCK_COUNTER_NONE OFF)
if(SH_BLOCK_COUNTER STREQUAL "none")
	set(SH_BLOCK_COUNTER_NONE ON)
elseif(NOT SH_BLOCK_COUNTER STREQUAL "call")
	execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=plugin
		OUTPUT_VARIABLE sh_gcc_plugin_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
	if(NOT CMAKE_SYSTEM_PROCESSOR STREQUAL "x86_64")
		set(sh_block_counter_why "the host is ${CMAKE_SYSTEM_PROCESSOR}, not x86_64")
	elseif(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU" OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
		set(sh_block_counter_why "the compilers are ${CMAKE_C_COMPILER_ID} and ${CMAKE_CXX_COMPILER_ID}, not GCC")
	elseif(NOT EXISTS "${sh_gcc_plugin_dir}/include/gcc-plugin.h")
		string(REGEX MATCH "^[0-9]+" sh_gcc_major "${CMAKE_C_COMPILER_VERSION}")
		set(sh_block_counter_why "GCC's plugin headers are missing (apt-get install gcc-${sh_gcc_major}-plugin-dev)")
	else()
		set(SH_BLOCK_COUNTER_REGISTER ON)
	endif()
	if(SH_BLOCK_COUNTER STREQUAL "register" AND NOT SH_BLOCK_COUNTER_REGISTER)
		message(FATAL_ERROR "SH_BLOCK_COUNTER=register: ${sh_block_counter_why}")
	endif()
endif()

if(SH_BLOCK_COUNTER_NONE)
	message(STATUS "Block counter: none (a baseline for bench/scale.sh; kernel time unavailable)")
	add_compile_definitions(KSHIM_BLOCK_COUNTER_NONE=1)
elseif(SH_BLOCK_COUNTER_REGISTER)
	message(STATUS "Block counter: %r15, GCC plugin (${sh_gcc_plugin_dir})")
	add_compile_options(-ffixed-r15)
	add_compile_definitions(KSHIM_BLOCK_COUNTER_REGISTER=1)
	# Compiled by hand, not as a target: the project's flags (sanitizers,
	# -ffixed-r15) are for code that runs in the harness, not in cc1.
	set(SH_BLOCK_COUNTER_PLUGIN ${CMAKE_BINARY_DIR}/kernel-shim/block_counter.so)
	add_custom_command(OUTPUT ${SH_BLOCK_COUNTER_PLUGIN}
		COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 -shared -fPIC -fno-rtti -O2 -Wall
			-I${sh_gcc_plugin_dir}/include
			${SH_SOURCE_ROOT}/kernel-shim/plugin/block_counter.cpp -o ${SH_BLOCK_COUNTER_PLUGIN}
		DEPENDS ${SH_SOURCE_ROOT}/kernel-shim/plugin/block_counter.cpp
		COMMENT "Building the block counter's GCC plugin"
		VERBATIM)
	add_custom_target(sh_block_counter_plugin DEPENDS ${SH_BLOCK_COUNTER_PLUGIN})
else()
	if(sh_block_counter_why)
		message(STATUS "Block counter: a call per block (${sh_block_counter_why})")
	else()
		message(STATUS "Block counter: a call per block (SH_BLOCK_COUNTER=call)")
	endif()
endif()
