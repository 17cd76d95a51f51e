# Dependencies, found with pkg-config (Debian packages: see scripts/setup.sh).
# FRC_STATIC (the Android build; edit by android): ask pkg-config for the private
# dependencies too (libbpf -> libelf -> zlib, zstd -> -pthread) and let find_library pick
# the .a archives, so -static links libbpf.a, libelf.a, libz.a and libzstd.a.
if(FRC_STATIC)
	set(PKG_CONFIG_ARGN --static)
	set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
endif()
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
if(FRC_RECORDER)
	pkg_check_modules(LIBBPF REQUIRED IMPORTED_TARGET libbpf)
endif()
# libelf: framerec's symbol scan, and its fuzz target (tests/fuzz, built without framerec).
if(FRC_RECORDER OR FRC_FUZZ)
	pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
endif()
if(FRC_ANALYZER)
	pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
endif()
if(FRC_TESTS)
	pkg_check_modules(CHECK REQUIRED IMPORTED_TARGET check)
endif()
find_library(MATH_LIB m REQUIRED)

# A version header for --version and the capture metadata.
configure_file(${CMAKE_SOURCE_DIR}/cmake/frc_version.h.in ${CMAKE_BINARY_DIR}/include/frc_version.h)
include_directories(${CMAKE_BINARY_DIR}/include)
