#!/bin/sh
# refuse_32bit.sh - framerec refuses 32-bit targets clearly (issue 6: 32-bit apps, which map
# /system/lib/libgui.so, are out of scope) instead of attaching to the wrong library.
#
#   refuse_32bit.sh doctor FRAMEREC WORKDIR EMULATOR...   arm64 framerec under qemu
#   refuse_32bit.sh record FRAMEREC WORKDIR               native framerec (loads BPF)
#
# The 32-bit process is a tiny i386 program (assembled here with `as --32`, no libc) that
# sleeps; the 32-bit library is the same code linked -shared. x86-64 kernels run i386
# programs (IA32 emulation), as arm64 phones run arm32 apps. Exit 77 (SKIP) when this
# machine cannot build or run them, or (record) cannot load BPF.
#   doctor: `doctor --pid PID32` must FAIL the target line naming it 32-bit, and
#           `doctor --lib LIB32` must FAIL the symbols line naming a 32-bit library.
#   record: `framerec --pid PID32 -o F` must exit 1 with a 32-bit message, leaving no F.
# Owner: android.
set -u
mode=$1 framerec=$2 work=$3
shift 3
pid=

skip() {
	echo "SKIP: $*"
	exit 77
}
fail() {
	echo "FAIL: $*" >&2
	[ -f "$work/out" ] && cat "$work/out" >&2
	exit 1
}
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; }
trap cleanup EXIT

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
cat >"$work/sleep32.s" <<'ASM'
	.globl _start
	.text
_start:	movl $162, %eax		# nanosleep(&ts, NULL)
	leal ts, %ebx
	xorl %ecx, %ecx
	int $0x80
	movl $1, %eax		# exit(0)
	xorl %ebx, %ebx
	int $0x80
	.data
ts:	.long 60, 0
ASM
as --32 "$work/sleep32.s" -o "$work/sleep32.o" 2>/dev/null || skip "no i386 assembler (as --32)"
ld -m elf_i386 "$work/sleep32.o" -o "$work/sleep32" 2>/dev/null || skip "ld cannot link i386"
ld -m elf_i386 -shared "$work/sleep32.o" -o "$work/libgui32.so" 2>/dev/null ||
	skip "ld cannot link an i386 shared library"

"$work/sleep32" &
pid=$!
# Wait until the child has exec'd the i386 program (before that /proc/PID/exe is the shell).
i=0
while :; do
	class=$(od -An -tx1 -j4 -N1 "/proc/$pid/exe" 2>/dev/null | tr -d ' ')
	[ "$class" = 01 ] && break
	kill -0 "$pid" 2>/dev/null || skip "this kernel cannot run i386 programs"
	i=$((i + 1))
	[ $i -lt 100 ] || skip "the i386 program did not start"
	sleep 0.05
done

case $mode in
doctor)
	timeout 60 "$@" "$framerec" doctor --pid "$pid" >"$work/out" 2>&1
	rc=$?
	cat "$work/out"
	[ $rc -ne 0 ] && [ $rc -lt 124 ] || fail "doctor --pid exited $rc (want 1..123)"
	# doctor runs the recording's attach plan: the same words as a refused recording
	grep -E '^FAIL +target' "$work/out" | grep -q "PID $pid is a 32-bit process" ||
		fail "no FAIL target line naming PID $pid 32-bit"
	timeout 60 "$@" "$framerec" doctor --lib "$work/libgui32.so" >"$work/out" 2>&1
	rc=$?
	cat "$work/out"
	[ $rc -ne 0 ] && [ $rc -lt 124 ] || fail "doctor --lib exited $rc (want 1..123)"
	grep -E '^FAIL +symbols' "$work/out" | grep -q '32-bit library' ||
		fail "no FAIL symbols line naming a 32-bit library"
	;;
record)
	[ "$(id -u)" = 0 ] || skip "not root: framerec cannot load BPF"
	timeout 60 "$framerec" --pid "$pid" -d 1 -q -o "$work/x.frc" >"$work/out" 2>&1
	rc=$?
	cat "$work/out"
	if [ $rc -ne 0 ] && ! grep -q '32-bit' "$work/out" && grep -qi 'bpf' "$work/out"; then
		skip "BPF is refused here (the 32-bit check comes after loading the probe)"
	fi
	[ $rc -eq 1 ] || fail "framerec --pid (32-bit) exited $rc, want 1"
	grep -q "PID $pid is a 32-bit process" "$work/out" || fail "no 32-bit message"
	[ ! -e "$work/x.frc" ] || fail "a capture file was left behind"
	;;
*) fail "unknown mode $mode" ;;
esac
echo "32-bit target refused"
exit 0
