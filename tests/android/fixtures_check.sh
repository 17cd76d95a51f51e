#!/bin/sh
# fixtures_check.sh - the analyzer's scenario fixtures give the same captures and the same
# heuristics output on arm64 as on x86-64, and the arm64 captures match the golden files.
#
#   fixtures_check.sh WORKDIR FIXTURES_DIR X86_64_PROG ARM64_PROG FRAMEANALYZE EMULATOR...
#
# For every FIXTURES_DIR/NAME.txt with a NAME.golden (the analyzer's expectations, written
# out and reviewed, never computed here):
#   1. android-replay import on arm64 (under EMULATOR) and on x86-64: byte-identical .frc;
#   2. `frameanalyze check` of the arm64 capture against NAME.golden passes;
#   3. android-replay replay on arm64 and x86-64: identical output and exit status (every
#      delta, reading as a hex float, and the live-vs-replay comparison).
# For every recorded capture FIXTURES_DIR/real/*.frc, step 3.
# Owner: android.
set -u
work=$1 fixtures=$2 host=$3 arm=$4 analyze=$5
shift 5

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# run NAME CMD...: sets rc; a hang (timeout) or a signal is a failure, any exit status is not.
run() {
	what=$1
	shift
	timeout 120 "$@"
	rc=$?
	[ $rc -ne 124 ] || fail "$what hung"
	[ $rc -lt 128 ] || fail "$what killed by signal $((rc - 128))"
}
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
cd "$work" || exit 1
n=0
for txt in "$fixtures"/*.txt; do
	name=$(basename "$txt" .txt)
	golden=$fixtures/$name.golden
	[ -f "$golden" ] || continue
	run "$name: x86-64 import" "$host" import "$txt" "$name.x86_64.frc"
	[ $rc -eq 0 ] || fail "$name: x86-64 import exited $rc"
	run "$name: arm64 import (qemu)" "$@" "$arm" import "$txt" "$name.arm64.frc"
	[ $rc -eq 0 ] || fail "$name: arm64 import exited $rc"
	cmp "$name.x86_64.frc" "$name.arm64.frc" || fail "$name: arm64 capture differs"
	run "$name: frameanalyze check" "$analyze" check "$name.arm64.frc" "$golden" >"$name.check"
	[ $rc -eq 0 ] || {
		cat "$name.check" >&2
		fail "$name: the arm64 capture does not give $golden"
	}
	run "$name: x86-64 replay" "$host" replay "$name.x86_64.frc" >"$name.x86_64.replay"
	hrc=$rc
	run "$name: arm64 replay (qemu)" "$@" "$arm" replay "$name.arm64.frc" >"$name.arm64.replay"
	[ $rc -eq $hrc ] || fail "$name: replay exit status $rc on arm64, $hrc on x86-64"
	cmp "$name.x86_64.replay" "$name.arm64.replay" || fail "$name: replay output differs"
	echo "$name: same capture, golden ok, same replay ($(tail -n 1 "$name.x86_64.replay"))"
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no fixture NAME.txt with NAME.golden in $fixtures"
for frc in "$fixtures"/real/*.frc; do
	[ -f "$frc" ] || continue
	name=real.$(basename "$frc" .frc)
	run "$name: x86-64 replay" "$host" replay "$frc" >"$name.x86_64.replay"
	hrc=$rc
	run "$name: arm64 replay (qemu)" "$@" "$arm" replay "$frc" >"$name.arm64.replay"
	[ $rc -eq $hrc ] || fail "$name: replay exit status $rc on arm64, $hrc on x86-64"
	cmp "$name.x86_64.replay" "$name.arm64.replay" || fail "$name: replay output differs"
	echo "$name: same replay ($(tail -n 1 "$name.x86_64.replay"))"
done
echo "$n fixtures checked"
exit 0
