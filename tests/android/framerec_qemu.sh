#!/bin/sh
# framerec_qemu.sh - the static arm64 framerec, checked on the build machine.
#
#   framerec_qemu.sh static  FRAMEREC           `file`: ARM aarch64, statically linked
#   framerec_qemu.sh version FRAMEREC EMULATOR...
#   framerec_qemu.sh help    FRAMEREC EMULATOR...
#   framerec_qemu.sh doctor  FRAMEREC EMULATOR...
#
# qemu-aarch64 does not emulate the bpf() syscall (ENOSYS), so `framerec doctor` must say
# the BPF layer FAILED and exit non-zero; a crash (signal) or a hang (60 s) is a failure.
# Owner: android.
set -u
mode=$1 framerec=$2
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT

fail() {
	echo "FAIL: $*" >&2
	echo "--- output:" >&2
	cat "$out" >&2
	exit 1
}
# verdict: judge the exit status rc of a run whose output is in $out.
verdict() {
	cat "$out"
	[ $rc -ne 124 ] || fail "hung (killed after 60 s)"
	[ $rc -lt 128 ] || fail "killed by signal $((rc - 128)) (crash)"
}
has() { grep -Eq -e "$1" "$out" || fail "output lacks /$1/"; }

# "$@" is the emulator command (empty for `static`).
case $mode in
static)
	file -b "$framerec" >"$out" 2>&1
	cat "$out"
	has 'ARM aarch64'
	has 'statically linked'
	;;
version)
	timeout 60 "$@" "$framerec" --version >"$out" 2>&1
	rc=$?
	verdict
	[ $rc -eq 0 ] || fail "--version exited $rc"
	has '^framerec [0-9]+\.[0-9]+\.[0-9]+'
	;;
help)
	timeout 60 "$@" "$framerec" --help >"$out" 2>&1
	rc=$?
	verdict
	[ $rc -eq 0 ] || fail "--help exited $rc"
	has '--package'
	has 'doctor'
	;;
doctor)
	timeout 60 "$@" "$framerec" doctor >"$out" 2>&1
	rc=$?
	verdict
	[ $rc -ne 0 ] || fail "doctor exited 0 although BPF cannot work under qemu"
	echo "doctor exit status: $rc"
	# A line for the BPF layer, marked FAIL.
	grep -Ei 'bpf' "$out" | grep -q 'FAIL' || fail "no FAIL line for the BPF layer"
	;;
*)
	fail "unknown mode $mode"
	;;
esac
exit 0
