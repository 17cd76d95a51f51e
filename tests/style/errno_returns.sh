#!/bin/sh
# errno_returns.sh - inside framerec's modules a failure is 0 or -errno, never -1
# (README.md, "Errors follow one convention"): a -1 reads as -EPERM to frc_strerror and to
# a caller that passes it on. framerec.c is the command layer: its parse functions return
# "-1 to go on, else the exit code", which is not an error code.
#
#   tests/style/errno_returns.sh SOURCE_DIR
#
# Exit 0 clean, 1 a `return -1` was found (the lines are printed).
set -u
top=${1:?usage: errno_returns.sh SOURCE_DIR}
cd "$top/recorder" || exit 1
if out=$(grep -n 'return -1;' -- *.c | grep -v '^framerec\.c:'); then
	printf '%s\n' "$out"
	echo "FAIL: return -1 in a recorder module: return -errno (and update the callers)"
	exit 1
fi
echo "no return -1 in recorder/ modules"
