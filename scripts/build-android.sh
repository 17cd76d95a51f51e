#!/usr/bin/env bash
# build-android.sh - build framerec for Android devices: one statically linked arm64 file,
# build-android/bin/framerec, with the arm64 BPF object embedded (bpftool skeleton).
#
#   scripts/build-android.sh [--test] [--no-recorder] [--jobs N] [-- CMAKE_ARGS...]
#
#   --test          then run the arm64 tests under qemu-aarch64 (CTest's cross-compiling
#                   emulator): format + heuristics unit tests and tests/android
#   --no-recorder   build only the libraries and their tests (-DFRC_RECORDER=OFF)
#   --jobs N        parallel build jobs (default: nproc, at most 2)
#
# Examples:
#   scripts/build-android.sh                 # -> build-android/bin/framerec
#   scripts/build-android.sh --test          # build, then the qemu test run
#   adb push build-android/bin/framerec /data/local/tmp/
#
# On a fresh Debian 12 machine (as root) it first installs what is missing: the arm64
# foreign architecture, the cross compilers, the arm64 -dev packages (static libbpf, libelf,
# zlib, zstd, check), qemu-user-static. Each package is installed only when `dpkg -s` says
# it is missing, so a second run installs nothing. The build is incremental.
# For the arm64 kernel test stage (tests/arm64vm) it runs scripts/arm64vm-fetch.sh: installs
# qemu-system-arm and cpio, downloads (without installing) the current arm64 cloud kernel
# and busybox-static:arm64, ~38 MB in all; what cannot be had makes those tests SKIPPED.
#
# frameanalyze is not built for arm64 (-DFRC_ANALYZER=OFF): analysis runs on the PC.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build-android"

run_tests=0
recorder=ON
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -gt 2 ] && jobs=2
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--test) run_tests=1 ;;
	--no-recorder) recorder=OFF ;;
	--jobs)
		jobs=${2:?--jobs needs a number}
		shift
		;;
	--jobs=*) jobs=${1#--jobs=} ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	--)
		shift
		extra=("$@")
		break
		;;
	*)
		echo "build-android: unknown option '$1' (see --help)" >&2
		exit 2
		;;
	esac
	shift
done

# Build machine tools (host arch): compilers for the host-side test helpers (android-replay,
# frameanalyze for `golden`: tests/android/CMakeLists.txt), clang + bpftool
# for the BPF object and its skeleton, qemu for the tests, file for the final check.
HOST_PACKAGES=(cmake make gcc g++ pkg-config clang llvm bpftool libbpf-dev
	libzstd-dev libsqlite3-dev check file binutils qemu-user-static
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu)
# arm64 multiarch packages: static libraries and headers to link into framerec, and the
# arm64 UAPI headers (asm/ptrace.h) the BPF object is compiled against.
ARM64_PACKAGES=(libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libzstd-dev:arm64
	check:arm64 linux-libc-dev:arm64)

# install_packages (dpkg -s check, apt-get install of the missing ones, as root).
# shellcheck source=scripts/setup.sh
. "$top/scripts/setup.sh"

t_start=$SECONDS
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	if [ "$(id -u)" != 0 ]; then
		echo "build-android: the arm64 architecture is not enabled" \
			"(as root: dpkg --add-architecture arm64)" >&2
		exit 1
	fi
	echo "build-android: dpkg --add-architecture arm64" >&2
	dpkg --add-architecture arm64
fi
install_packages "${HOST_PACKAGES[@]}" "${ARM64_PACKAGES[@]}"
# The arm64 kernel test stage (tests/arm64vm): qemu-system-arm, an arm64 kernel, busybox.
# It never fails the build: what cannot be had makes those tests SKIPPED, saying why.
if [ "$recorder" = ON ]; then
	"$top/scripts/arm64vm-fetch.sh" "$build/arm64vm-kernel"
fi
t_deps=$SECONDS

# Release-like: the device binary is the product. Debug info stays (RelWithDebInfo) for
# crash reports; `aarch64-linux-gnu-strip` it if size matters.
cmake -S "$top" -B "$build" \
	-DCMAKE_TOOLCHAIN_FILE="$top/cmake/aarch64-linux-gnu.cmake" \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DFRC_STATIC=ON -DFRC_ANALYZER=OFF -DFRC_RECORDER="$recorder" \
	"${extra[@]}" >/dev/null
cmake --build "$build" -j "$jobs"
t_build=$SECONDS

if [ "$recorder" = ON ]; then
	# The contract: one static arm64 file that needs nothing on the device.
	desc=$(file -b "$build/bin/framerec")
	echo "build-android: build-android/bin/framerec: $desc"
	case $desc in
	*"ARM aarch64"*"statically linked"*) ;;
	*)
		echo "build-android: build-android/bin/framerec is not a static aarch64 program" >&2
		exit 1
		;;
	esac
fi

status=0
if [ "$run_tests" = 1 ]; then
	ctest --test-dir "$build" --output-on-failure -j "$jobs" || status=1
fi
t_end=$SECONDS
echo "build-android: packages $((t_deps - t_start)) s, configure+build $((t_build - t_deps)) s," \
	"tests $((t_end - t_build)) s"
exit $status
