#!/usr/bin/env bash
# setup.sh - install what is missing (Debian 12, as root), configure and build build/.
#
#   scripts/setup.sh [BUILD_DIR [extra cmake args...]]
#
# Idempotent: packages are installed only when `dpkg -s` says they are missing, and an
# existing build directory is reconfigured and rebuilt incrementally.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

PACKAGES=(cmake make gcc g++ pkg-config clang llvm bpftool
	libbpf-dev libelf-dev zlib1g-dev libzstd-dev libsqlite3-dev check
	zstd sqlite3 file binutils
	clang-format # tests/style: the sources follow .clang-format
	chromium protobuf-compiler python3) # the HTML report's browser test, the Perfetto trace's decode test

# A name without ":arch" means the native (or arch-independent) package. `dpkg -s NAME`
# cannot say: once the arm64 architecture is added (scripts/build-android.sh), it fails as
# "ambiguous" for a package installed for both amd64 and arm64. (Edit by android.)
missing_packages() {
	local p native st
	native=$(dpkg --print-architecture)
	for p in "$@"; do
		case $p in
		*:*) dpkg -s "$p" >/dev/null 2>&1 || printf '%s\n' "$p" ;;
		*)
			st=$(dpkg-query -W -f='${Architecture} ${db:Status-Status}\n' "$p" 2>/dev/null) ||
				true
			grep -Eq "^($native|all) installed$" <<<"$st" || printf '%s\n' "$p"
			;;
		esac
	done
}

install_packages() {
	local missing
	missing=$(missing_packages "$@")
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing Debian packages (run as root to install): $missing" >&2
		exit 1
	fi
	echo "setup: installing:" $missing >&2
	apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
}

# Sourced by the other scripts for install_packages; run directly to build.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	install_packages "${PACKAGES[@]}"
	build=${1:-build}
	shift || true
	jobs=$(nproc 2>/dev/null || echo 2)
	cmake -S "$top" -B "$top/$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
	cmake --build "$top/$build" -j "$jobs"
fi
