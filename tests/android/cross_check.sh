#!/bin/sh
# cross_check.sh - the arm64 build writes and replays captures exactly like the x86-64 one.
#
#   cross_check.sh capture|replay WORKDIR X86_64_PROG ARM64_PROG FRAMEANALYZE EMULATOR...
#
# X86_64_PROG and ARM64_PROG are the same android-replay source built natively and for
# arm64; ARM64_PROG runs under EMULATOR (qemu-aarch64-static ...). FRAMEANALYZE is the
# native frameanalyze (frameanalyze is not built for arm64).
#   capture: both write the generated recording; the two files must be byte-identical,
#            and `frameanalyze golden` of each must be the same text.
#   replay:  both replay the x86-64 capture, arm64 also its own; every printed delta and
#            reading (hex floats) must be identical, and the summary must say what the
#            generator put in (stated literally below).
# Owner: android.
set -u
mode=$1 work=$2 host=$3 arm=$4 analyze=$5
shift 5

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# run NAME CMD...: run with a time limit; a crash, hang or non-zero exit is a failure.
run() {
	what=$1
	shift
	timeout 120 "$@"
	rc=$?
	[ $rc -eq 0 ] || fail "$what exited with status $rc"
}

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
cd "$work" || exit 1

run "x86-64 write" "$host" write x86_64.frc >x86_64.write.txt
case $mode in
capture)
	run "arm64 write (qemu)" "$@" "$arm" write arm64.frc >arm64.write.txt
	cmp x86_64.frc arm64.frc || fail "the arm64 capture differs from the x86-64 one"
	cmp x86_64.write.txt arm64.write.txt || fail "write summaries differ"
	echo "identical captures: $(cat x86_64.write.txt)"
	run "frameanalyze golden (x86-64 capture)" "$analyze" golden x86_64.frc >x86_64.golden
	run "frameanalyze golden (arm64 capture)" "$analyze" golden arm64.frc >arm64.golden
	cmp x86_64.golden arm64.golden || fail "golden outputs differ"
	[ "$(head -n 1 x86_64.golden)" = "# frameanalyze golden 1" ] ||
		fail "golden output does not start with '# frameanalyze golden 1'"
	echo "identical golden output: $(wc -l <x86_64.golden) lines"
	;;
replay)
	run "x86-64 replay" "$host" replay x86_64.frc >x86_64.replay.txt
	run "arm64 replay (qemu)" "$@" "$arm" replay x86_64.frc >arm64.replay.txt
	cmp x86_64.replay.txt arm64.replay.txt || fail "arm64 replay output differs from x86-64"
	run "arm64 write (qemu)" "$@" "$arm" write arm64.frc >arm64.write.txt
	run "arm64 replay of its own capture (qemu)" "$@" "$arm" replay arm64.frc >arm64.own.txt
	cmp x86_64.replay.txt arm64.own.txt || fail "arm64 replay of its own capture differs"
	summary=$(tail -n 1 x86_64.replay.txt)
	echo "$summary"
	# What the generator wrote: 2 attach + 750 frames + 43 sysfs + 10 drops + 10 ticks +
	# 1 exit records; every tick's live result must be reproduced by the replay.
	for want in "status=complete" "records=816" "frames=750" "ticks=10" "compared=10" \
		"mismatches=0"; do
		case " $summary " in
		*" $want "*) ;;
		*) fail "summary lacks '$want'" ;;
		esac
	done
	n=$(grep -c '^delta ' x86_64.replay.txt)
	[ "$n" -gt 0 ] || fail "no tracker delta printed"
	echo "identical replay output: $(wc -l <x86_64.replay.txt) lines, $n deltas"
	;;
*) fail "unknown mode $mode" ;;
esac
exit 0
