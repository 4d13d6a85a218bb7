# libfdt ships neither a CMake package nor a pkg-config file on Debian
# (package libfdt-dev), so look for the header and the library directly.
find_path(Libfdt_INCLUDE_DIR NAMES libfdt.h)
find_library(Libfdt_LIBRARY NAMES fdt)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libfdt
	REQUIRED_VARS Libfdt_LIBRARY Libfdt_INCLUDE_DIR
	REASON_FAILURE_MESSAGE "install Debian's libfdt-dev (scripts/setup.sh does it)")

if(Libfdt_FOUND AND NOT TARGET Libfdt::Libfdt)
	add_library(Libfdt::Libfdt UNKNOWN IMPORTED)
	set_target_properties(Libfdt::Libfdt PROPERTIES
		IMPORTED_LOCATION "${Libfdt_LIBRARY}"
		INTERFACE_INCLUDE_DIRECTORIES "${Libfdt_INCLUDE_DIR}")
endif()
mark_as_advanced(Libfdt_INCLUDE_DIR Libfdt_LIBRARY)
