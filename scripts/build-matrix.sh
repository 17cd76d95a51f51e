#!/usr/bin/env bash
# build-matrix.sh - compile every project source with GCC and clang at every CMake build
# type's optimization level, and fail on any warning (issue 11: a Release or clang build
# must not break for users).
#
#   scripts/build-matrix.sh [BUILD_DIR]     (default build/, configured by setup.sh)
#
# Why compile-only from BUILD_DIR/compile_commands.json instead of eight CMake builds: the
# warnings that differ between build types come from the optimizer (GCC's
# -Wmaybe-uninitialized at -O2/-O3/-Os) and between compilers from their front ends;
# linking and the BPF object add none. Eight full builds cost minutes, this costs ~40 s.
# The flags are CMake's defaults for each type; -g is left out (it changes no warning).
# clang's warnings all come from its front end, so clang only parses (-fsyntax-only);
# -DNDEBUG still matters there (assert() bodies).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/${1:-build}
db=$build/compile_commands.json
[ -f "$db" ] || { echo "build-matrix: $db missing (run scripts/setup.sh first)" >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -le 2 ] || jobs=2
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# One line per source: the compile command, JSON-unescaped, without its compiler and
# without CMake's optimization flags.
# (CMake writes one "command" per line; JSON escapes there are only \" and \\.)
sed -nE 's/^ *"command": "(.*)",?$/\1/p' "$db" | sed -E 's/\\(["\\])/\1/g' |
	sed -E 's/ -O[0-3s]( -g)?( -DNDEBUG)?//; s/ -o [^ ]+ -c / -c /' >"$log/commands"

# compile CC CXX TYPE FLAGS: every command with this compiler and these flags.
compile() {
	local cc=$1 cxx=$2 type=$3 flags=$4 n=0
	while read -r compiler rest; do
		n=$((n + 1))
		case $compiler in
		*++) printf '%s %s %s -o /dev/null\n' "$cxx" "$flags" "$rest" ;;
		*) printf '%s %s %s -o /dev/null\n' "$cc" "$flags" "$rest" ;;
		esac
	done <"$log/commands" >"$log/$cc-$type.sh"
	# shellcheck disable=SC2016
	if ! tr '\n' '\0' <"$log/$cc-$type.sh" |
		xargs -0 -P "$jobs" -I{} sh -c '{} 2>&1' >"$log/$cc-$type.out" ||
		[ -s "$log/$cc-$type.out" ]; then
		echo "build-matrix: $cc $type ($flags): FAILED" >&2
		cat "$log/$cc-$type.out" >&2
		return 1
	fi
	echo "build-matrix: $cc $type ($flags): $n sources, no warning"
}

status=0
for pair in gcc:g++ clang:clang++; do
	cc=${pair%%:*} cxx=${pair##*:}
	only=
	[ "$cc" = gcc ] || only=-fsyntax-only
	compile "$cc" "$cxx" Debug "-O0${only:+ $only}" || status=1
	compile "$cc" "$cxx" Release "-O3 -DNDEBUG${only:+ $only}" || status=1
	compile "$cc" "$cxx" RelWithDebInfo "-O2 -DNDEBUG${only:+ $only}" || status=1
	compile "$cc" "$cxx" MinSizeRel "-Os -DNDEBUG${only:+ $only}" || status=1
done
exit $status
