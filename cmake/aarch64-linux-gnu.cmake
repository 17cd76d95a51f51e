# Toolchain file: cross-compile for 64-bit ARM Linux (what Android phones run) with Debian's
# gcc-aarch64-linux-gnu and the arm64 multiarch -dev packages (libbpf-dev:arm64 ...).
# scripts/build-android.sh installs those packages and uses this file:
#   cmake -S . -B build-android -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DFRC_STATIC=ON
# Owner: android.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Debian's cross toolchain keeps the arm64 libc in /usr/aarch64-linux-gnu; the multiarch
# -dev packages (libbpf, libelf, zlib, zstd, check) live in /usr/{lib,include}/aarch64-linux-gnu,
# which the cross gcc already searches. Libraries and headers are looked up in the arm64
# root first, then in the multiarch dirs (the host prefixes, where CMake only looks under
# lib/aarch64-linux-gnu because CMAKE_LIBRARY_ARCHITECTURE is aarch64-linux-gnu); programs
# (pkg-config, clang, bpftool, qemu) always come from the build machine.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config must see only the arm64 .pc files (and the arch-independent ones), never the
# host's: otherwise -L/usr/lib/x86_64-linux-gnu would end up on the arm64 link line.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# CTest runs the arm64 test programs under user-mode qemu. -L: where a dynamically linked
# program's loader and libs are (the static Android build does not need it; harmless).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
