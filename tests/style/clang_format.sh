#!/bin/sh
# clang_format.sh - every tracked C/C++ source is formatted with the committed .clang-format.
#
#   tests/style/clang_format.sh SOURCE_DIR
#
# Exit 0 formatted, 1 not (the first offending lines are printed: run
# `clang-format -i FILE` on the files named), 77 SKIPPED (no clang-format, or SOURCE_DIR is
# not a git checkout, so the tracked files cannot be listed).
set -u
top=${1:?usage: clang_format.sh SOURCE_DIR}

if ! command -v clang-format >/dev/null 2>&1; then
	echo "SKIPPED: clang-format not installed (scripts/setup.sh installs it)"
	exit 77
fi
if ! files=$(git -C "$top" ls-files '*.c' '*.h' '*.cpp' 2>/dev/null) || [ -z "$files" ]; then
	echo "SKIPPED: $top is not a git checkout: cannot list the tracked sources"
	exit 77
fi
cd "$top" || exit 1
# shellcheck disable=SC2086 # one file name per word: tracked names have no spaces
if ! out=$(clang-format --dry-run -Werror $files 2>&1); then
	printf '%s\n' "$out" | head -n 20
	echo "FAIL: sources not formatted (clang-format -i FILE fixes them)"
	exit 1
fi
echo "$(printf '%s\n' "$files" | wc -l) sources formatted"
