#!/bin/sh
# internal_private.sh - frc_internal.h is out of reach of the programs (format.internal_private).
#
#   internal_private.sh WORK CC -I... [-I...] -- -I... -D...
#
# The flags before -- are the include directories and definitions a program linking
# frc_format (and the heuristics, the analyzer, the recorder) compiles with; those after -- are what
# frc_format_internal adds for tests. With the programs' flags the public headers compile
# and frc_internal.h does not: its name is not found (internal/ is no include directory of
# theirs) and internal/frc_internal.h stops at its #error (format/ is one); with the tests' flags it compiles, so the failures above are
# the header being private, not a broken command line.
set -u
work=${1:?usage: internal_private.sh WORK CC FLAGS... -- TEST_FLAGS...}
cc=${2:?}
shift 2
pub=
# A bare -I or -D is an empty list from CMake: dropped.
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case $1 in -I | -D) ;; *) pub="$pub $1" ;; esac
	shift
done
[ $# -gt 0 ] && shift
tst=
for a in "$@"; do
	case $a in -I | -D) ;; *) tst="$tst $a" ;; esac
done
mkdir -p "$work" || exit 1
status=0

# try NAME EXPECT(ok|fail) PATTERN FLAGS SOURCE_LINE
try() {
	printf '%s\n' "$5" >"$work/$1.c"
	# shellcheck disable=SC2086 # the flags are words
	if $cc -fsyntax-only $4 "$work/$1.c" >"$work/$1.log" 2>&1; then got=ok; else got=fail; fi
	if [ "$got" != "$2" ] || { [ -n "$3" ] && ! grep -Eq "$3" "$work/$1.log"; }; then
		echo "FAIL: $1: expected $2${3:+ with '$3'}, got $got:"
		cat "$work/$1.log"
		status=1
	else
		echo "ok: $1 ($2)"
	fi
}

try public ok '' "$pub" '#include "frc.h"
#include "frc_error.h"
#include "frc_escape.h"
#include "frc_record.h"
#include "frc_text.h"'
try by_name fail 'No such file|not found' "$pub" '#include "frc_internal.h"'
try by_path fail 'private to libfrc_format' "$pub" '#include "internal/frc_internal.h"'
try for_tests ok '' "$pub $tst" '#include "frc_internal.h"'
exit $status
