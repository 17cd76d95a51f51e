#!/bin/sh
# check.sh - judge on the host what one arm64 guest run recorded (tests/arm64vm).
#
#   check.sh CHECK NAME BOOTDIR RUNS.TXT FRAMEANALYZE BINDIR
#
# BOOTDIR is run.sh's WORKDIR/BOOT (the guest's /out in BOOTDIR/out). FRAMEANALYZE is the
# host (x86-64) build; BINDIR holds the guest's libraries as built (lib64*/libgui.so). CHECK:
#   frames      the run exited 0; the capture is complete; its frames equal the truth
#               file call for call: count, buffer, PID = TID = the attached PID, ktime
#               inside the call (see compare_frames); the attach is on the variant's
#               symbol; zero reservation
#               failures; `report` reproduces the live readings made on arm64, and the
#               capture's golden output equals its x86-64 twin's (the same records written
#               by the x86-64 writer: export, import)
#   accounting  complete; frames + final cumulative drops = calls (the truth's lines and
#               --frames) exactly, drops > 0 and never decreasing, PID = TID
#   killed      framerec died of SIGKILL; the capture reads back `truncated` with >= 1 chunk;
#               its frames are a prefix of the truth call for call, holding every call made
#               more than 1 s (10 flush periods) before the kill
#   identity    frames, and one surface value and one value per buffer in the capture
#   geometry    frames, and the buffer and connect records of the game's surfaces (see
#               check_geometry)
#   doctor      exit 0, every line PASS but `sysfs` (no display node in the guest: WARN),
#               `display` (no dumpsys in the guest: WARN) and the `lifetime` line of the
#               connect form the stand-in does not define (16's: WARN)
#   pac_bti     the guest CPU has PAC and BTI; each pac_* run's probed entry instruction
#               (its capture's symbol.offset in its LIBGUI) is paciasp or bti c; the game
#               mapped that library's code BTI-guarded (smaps VmFlags "bt")
#   transfer_damaged   run.sh extract refuses a cut, a non-base64 and a bit-flipped transfer
#   checks_catch_errors  the frames check fails a truth with one wrong buffer, ktime, call
#               or explicit timestamp
# Exit 0 pass, 1 fail (one line naming what), 77 SKIPPED (the boot could not run).
# Owner: arm64vm.
# shellcheck disable=SC2015,SC2046 # "a && b || fail": fail when either fails; set -- $(cmd) splits on purpose
set -u
# A recorded ktime must fall inside its call: after the game's timestamp taken right before
# it (truth line k), before the one taken before the next call (line k+1), and never more
# than MAX_SKEW_NS after line k. The window is exact causality, whatever the load: under
# TCG the probe usually lags its truth by under 4 ms, but a host that deschedules the
# emulator (two cores shared by several builds) stretches both the lag and the window; a
# fixed 10 ms bound failed there (10.9 ms measured at load 4.6). Lags over 10 ms are
# counted and printed.
MAX_SKEW_NS=50000000
NOTED_SKEW_NS=10000000

check=$1 name=$2 bootdir=$3 runs=$4 fa=$5 bindir=$6
out=$bootdir/out
work=$bootdir/check-$name
here=$(cd "$(dirname "$0")" && pwd)

fail() {
	echo "FAIL: $name: $*" >&2
	exit 1
}

if [ -f "$bootdir/skip.txt" ]; then
	echo "SKIPPED: $(cat "$bootdir/skip.txt")"
	exit 77
fi
[ -d "$out" ] || fail "no guest output in $out: arm64vm.boot_${bootdir##*/} failed (see its output)"
[ -x "$fa" ] || fail "no host frameanalyze at $fa"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"

# The framerec options of NAME's runs.txt line (between LIBGUI and "|"), and the game's.
framerec_opts() { awk -v n="$name" '$2 == n { sub(/\|.*/, ""); $1 = $2 = $3 = $4 = ""; print }' "$runs"; }
game_opts() { awk -v n="$name" '$2 == n { sub(/.*\|/, ""); print }' "$runs"; }
# opt VALUE-OF: the word after $1 in the rest of the arguments.
opt() {
	o=$1
	shift
	while [ $# -gt 1 ]; do
		[ "$1" = "$o" ] && {
			echo "$2"
			return
		}
		shift
	done
}

# The mangled name of a variant (recorder/README.md, "Symbols").
mangled() {
	case $1 in
	hook) echo _ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi ;;
	internal) echo _ZN7android7Surface19queueBufferInternalEP13ANativeWindowP19ANativeWindowBufferi ;;
	deprecated) echo _ZN7android7Surface27hook_queueBuffer_DEPRECATEDEP13ANativeWindowP19ANativeWindowBuffer ;;
	legacy) echo _ZN7android7Surface11queueBufferEP19ANativeWindowBufferi ;;
	output) echo _ZN7android7Surface11queueBufferEP19ANativeWindowBufferiPNS_24SurfaceQueueBufferOutputE ;;
	sp) echo _ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPNS_24SurfaceQueueBufferOutputE ;;
	sp_input) echo _ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS_23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE ;;
	impl) echo _ZN7android7Surface15queueBufferImplERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPKNS_23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE ;;
	batch) echo _ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_9allocatorIS3_EEEEPNS2_INS_24SurfaceQueueBufferOutputENS4_IS9_EEEE ;;
	*) echo "$1" ;; # already mangled
	esac
}

# rc_is N: the guest's exit status of NAME's framerec.
rc_is() {
	[ -f "$out/$name.rc" ] || fail "the guest did not run $name (no $name.rc)"
	rc=$(cat "$out/$name.rc")
	[ "$rc" = "$1" ] || fail "framerec exited $rc, expected $1; its output: $(cat "$out/$name.log")"
}

# status_is STATUS: `frameanalyze info --json` of the capture says it.
status_is() {
	"$fa" info --json "$out/$name.frc" >"$work/info.json" 2>"$work/info.err" ||
		fail "frameanalyze info: $(cat "$work/info.err")"
	grep -q "\"status\": \"$1\"" "$work/info.json" ||
		fail "capture status is not $1: $(grep '"status"' "$work/info.json")"
	"$fa" export "$out/$name.frc" >"$work/export.txt" 2>"$work/export.err" ||
		fail "frameanalyze export: $(cat "$work/export.err")"
}

# compare_frames MODE: the capture's frames against the truth, call for call (awk on the
# text form). MODE all: as many frames as calls; prefix: the first N calls, N >= 1.
# Prints one summary line; fails naming the first wrong call.
compare_frames() {
	[ -s "$out/$name.truth" ] || fail "no truth file $name.truth: the game did not run ($(cat "$out/$name.log"))"
	awk -v mode="$1" -v tol=$MAX_SKEW_NS -v noted=$NOTED_SKEW_NS -v before="${2:-0}" '
	# Truth lines: MONOTONIC_NS 0xBUFFER 0xSURFACE TID [TIMESTAMP]; a frame must carry the
	# same explicit timestamp (its 7th field) or none. Each Surface is one stream (one
	# thread queues it): a frame is matched with the next call of its own Surface, so two
	# threads whose calls interleave differently in the ring and in the truth still compare.
	BEGIN { n = 0; m = 0; max = 0; late = 0 }
	FNR == NR { t[n] = $1; b[n] = $2; s[n] = $3; tid[n] = $4; ts[n] = $5; q[$3, cnt[$3]++] = n; n++; next }
	$1 == "attach" { apid = $3 }
	$1 == "frame" {
		sf = $6
		if (!(sf in cnt) || pos[sf] >= cnt[sf]) { print "frame " m ": surface " sf " has no call left in the truth"; bad = 1; exit }
		k = q[sf, pos[sf]++]
		if ($3 != apid || $4 != tid[k]) { print "call " k ": pid " $3 " tid " $4 ", attached pid " apid " truth tid " tid[k]; bad = 1; exit }
		if ($5 != b[k]) { print "call " k ": buffer " $5 ", truth " b[k]; bad = 1; exit }
		if ($7 != ts[k]) { print "call " k ": timestamp \"" $7 "\", truth \"" ts[k] "\""; bad = 1; exit }
		d = $2 - t[k]
		if (d < 0) { printf "call %d: ktime %.0f is %.0f ns before the truth %.0f (the call had not begun)\n", k, $2, -d, t[k]; bad = 1; exit }
		# the next call of this surface: a batch queues several buffers at one truth time
		for (j = pos[sf]; j < cnt[sf] && t[q[sf, j]] == t[k]; j++) ;
		if (j < cnt[sf] && $2 >= t[q[sf, j]]) { printf "call %d: ktime %.0f is not before the next call\047s truth %.0f on its surface\n", k, $2, t[q[sf, j]]; bad = 1; exit }
		if (d > tol) { printf "call %d: ktime %.0f is %.0f ns after the truth %.0f\n", k, $2, d, t[k]; bad = 1; exit }
		if (d > max) max = d
		if (d > noted) late++
		m++
	}
	END {
		if (bad) exit 1
		if (mode == "all" && m != n) { print m " frames recorded, " n " calls made"; exit 1 }
		if (m < 1) { print "no frame recorded"; exit 1 }
		must = 0; while (must < n && t[must] < before) must++
		if (mode == "prefix" && m < must) { print m " frames recorded, but " must " calls were made more than 1 s before the kill"; exit 1 }
		ns = 0; for (x in cnt) ns++
		printf "%d frames of %d calls on %d surface(s) equal the truth (buffer, surface, tid, pid %s, ktime inside the call); ktime - truth max %.0f us, %d over %.0f ms\n", m, n, ns, apid, max / 1000, late, noted / 1e6
	}' "$out/$name.truth" "$work/export.txt" >"$work/frames.txt"
	st=$?
	cat "$work/frames.txt"
	[ $st -eq 0 ] || fail "$(cat "$work/frames.txt")"
}

# drops_summary: "N LAST MONOTONIC" of the drops records (count, last cumulative, 1 if never decreasing).
drops_summary() {
	awk '$1 == "drops" { n++; if ($3 < last) dec = 1; last = $3 } END { print n + 0, last + 0, dec ? 0 : 1 }' "$work/export.txt"
}

check_frames() {
	rc_is 0
	status_is complete
	compare_frames all
	# Without --symbol, Kala's order attaches `hook` and the batch path in addition.
	forced=$(opt --symbol $(framerec_opts))
	for sym in $(mangled "${forced:-hook}") $([ -z "$forced" ] && mangled batch); do
		grep -q "^attach [0-9]* [0-9]* $sym\$" "$work/export.txt" || fail "no attach record on $sym"
	done
	set -- $(drops_summary)
	[ "$1" -ge 1 ] || fail "no drops record"
	[ "$2" -eq 0 ] || fail "$2 reservation failures at 60 fps, expected none"
	echo "0 reservation failures ($1 drops records)"
	# The live readings were computed on arm64; report replays them on x86-64 and exits 1
	# on any difference.
	"$fa" report "$out/$name.frc" >"$work/report.txt" 2>&1 ||
		fail "frameanalyze report: the x86-64 replay differs from the arm64 live readings: $(tail -n 5 "$work/report.txt")"
	"$fa" import "$work/export.txt" -o "$work/twin.frc" 2>"$work/import.err" ||
		fail "frameanalyze import of the export: $(cat "$work/import.err")"
	"$fa" golden "$out/$name.frc" >"$work/arm64.golden" || fail "frameanalyze golden $name.frc"
	"$fa" check "$work/twin.frc" "$work/arm64.golden" >"$work/check.txt" 2>&1 ||
		fail "the x86-64 twin's golden output differs: $(head -n 20 "$work/check.txt")"
	echo "live readings reproduced; golden output ($(wc -l <"$work/arm64.golden") lines) = the x86-64 twin's"
	# --meter NAME: the capture names it, so the replay above ran that meter (issue 21).
	meter=$(opt --meter $(framerec_opts))
	if [ -n "$meter" ]; then
		grep -q "^meta meter $meter\$" "$work/export.txt" || fail "the capture does not name meter $meter"
		echo "meter $meter: live = replay on x86-64"
	fi
}

check_accounting() {
	rc_is 0
	status_is complete
	calls=$(wc -l <"$out/$name.truth")
	want=$(opt --frames $(game_opts))
	[ "$calls" -eq "$want" ] || fail "the game made $calls calls, --frames $want"
	frames=$(grep -c '^frame ' "$work/export.txt")
	awk '$1 == "frame" && $3 != $4 { exit 1 }' "$work/export.txt" || fail "a frame with tid != pid"
	set -- $(drops_summary)
	[ "$1" -ge 1 ] || fail "no drops record"
	[ "$3" -eq 1 ] || fail "the cumulative drop count decreased"
	[ "$2" -gt 0 ] || fail "the 4 KiB ring never overflowed ($frames frames): the test is moot"
	[ $((frames + $2)) -eq "$calls" ] || fail "$frames frames + $2 drops != $calls calls"
	echo "$frames frames + $2 drops = $calls calls"
}

check_killed() {
	rc_is 137
	status_is truncated
	chunks=$(sed -n 's/.*"chunks": \([0-9]*\).*/\1/p' "$work/info.json")
	[ "${chunks:-0}" -ge 1 ] || fail "no complete chunk in the truncated capture"
	killed=$(cat "$out/$name.killed_at")
	compare_frames prefix $((killed - 1000000000))
	echo "truncated, $chunks chunks"
}

check_doctor() {
	[ -f "$out/doctor.rc" ] || fail "the guest did not run doctor"
	cat "$out/doctor.txt"
	[ "$(cat "$out/doctor.rc")" = 0 ] || fail "framerec doctor exited $(cat "$out/doctor.rc")"
	for layer in kernel btf uprobe bpf ringbuf capabilities library symbols attach; do
		grep -q "^PASS  $layer " "$out/doctor.txt" || fail "doctor: no PASS line for $layer"
	done
	grep -q '^PASS  kernel .* aarch64 ' "$out/doctor.txt" || fail "doctor: the kernel is not aarch64"
	grep -q '^WARN  sysfs ' "$out/doctor.txt" || fail "doctor: expected WARN for the absent sysfs node"
	grep -q '^WARN  display ' "$out/doctor.txt" || fail "doctor: expected WARN for the absent dumpsys"
	grep -q '^PASS  lifetime  *surface lifetime recorded' "$out/doctor.txt" ||
		fail "doctor: Surface::connect/disconnect not found"
	# The stand-in defines 11-15's connect, not 16's (a library has one of the two).
	other=$(grep -Ev '^(PASS|WARN  sysfs |WARN  display |WARN  lifetime  *_ZN7android7Surface7connectEiRKNS_2spINS_15SurfaceListenerEEEb: |doctor: )' "$out/doctor.txt")
	[ -z "$other" ] || fail "doctor: unexpected line(s): $other"
}

check_pac_bti() {
	features=$(grep -m1 '^Features' "$out/cpuinfo")
	for f in paca pacg bti; do
		echo "$features" | grep -qw $f || fail "the guest CPU lacks $f: $features"
	done
	for rcfile in "$out"/pac_*.rc; do
		[ -f "$rcfile" ] || fail "no pac_* run in the guest output"
		run=$(basename "$rcfile" .rc)
		# The run's LIBGUI in the guest, and the same file in BINDIR.
		guest_lib=$(awk -v n="$run" '$2 == n { print $4 }' "$runs")
		lib=$bindir/$(basename "$(dirname "$guest_lib")")/libgui.so
		[ -f "$lib" ] || fail "$run: no $lib (LIBGUI $guest_lib)"
		off=$("$fa" info --json "$out/$run.frc" | sed -n 's/.*"symbol.offset": "\(0x[0-9a-f]*\)".*/\1/p')
		[ -n "$off" ] || fail "$run.frc has no symbol.offset"
		insn=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn --start-address="$off" \
			--stop-address=$((off + 4)) "$lib" |
			awk '/^ *[0-9a-f]+:/ { sub(/^[^\t]*\t/, ""); gsub(/[ \t]+/, " "); print; exit }')
		case $insn in
		paciasp | "bti c") ;;
		*) fail "$run: the probed entry at $off of $lib is '$insn', not paciasp / bti c" ;;
		esac
		[ -s "$out/$run.smaps" ] || fail "$run: no smaps snapshot of the game (it never mapped $guest_lib?)"
		# smaps: the library's executable mapping, then its VmFlags line.
		flags=$(awk -v lib="$guest_lib" '$2 == "r-xp" && $NF == lib { m = 1 } m && /^VmFlags:/ { print; exit }' \
			"$out/$run.smaps")
		echo "$flags" | grep -qw bt || fail "$run: $guest_lib's code was not mapped BTI-guarded: '$flags'"
		echo "$run: $guest_lib: probed entry $off: $insn; code mapped with VmFlags 'bt'"
	done
	echo "$features"
}

# The frames check is not vacuous: hook's real capture against its truth with one buffer
# changed, one call's timestamp 20 ms later, or one call missing must fail, naming that call;
# so must one call of the explicit-timestamp run (ahead) with its timestamp 1 ns off.
check_checks_catch_errors() {
	for kind in buffer ktime missing stamp; do
		run=hook
		[ $kind = stamp ] && run=ahead
		fake=$work/$kind
		mkdir -p "$fake/out" && cp "$out/$run.frc" "$out/$run.log" "$out/$run.rc" "$fake/out/" ||
			fail "cannot copy the $run run to $fake"
		case $kind in
		buffer) awk 'NR == 10 { $2 = "0x1" } { print }' "$out/hook.truth" ;;
		ktime) awk 'NR == 10 { $1 = sprintf("%.0f", $1 + 20000000) } { print }' "$out/hook.truth" ;;
		missing) awk 'NR != 10' "$out/hook.truth" ;;
		stamp) awk 'NR == 10 { $5 = sprintf("%.0f", $5 + 1) } { print }' "$out/ahead.truth" ;;
		esac >"$fake/out/$run.truth"
		if sh "$here/check.sh" frames $run "$fake" "$runs" "$fa" "$bindir" >"$work/$kind.out" 2>&1; then
			fail "the frames check passed a truth with a wrong $kind"
		fi
		case $kind in
		buffer) expect='call 9: buffer' ;;
		ktime) expect='call 9: ktime' ;;
		missing) expect='call 9: buffer' ;;
		stamp) expect='call 9: timestamp' ;;
		esac
		grep -q "$expect" "$work/$kind.out" || fail "wrong $kind: not '$expect': $(cat "$work/$kind.out")"
		echo "wrong $kind caught: $(tail -n 1 "$work/$kind.out")"
	done
}

# A damaged transfer must fail: cut, not base64, one character changed (size kept).
check_transfer_damaged() {
	log=$bootdir/console.log
	[ -f "$log" ] || fail "no console log $log"
	sh "$here/run.sh" extract "$log" "$work" >/dev/null || fail "the intact transfer fails"
	grep -v '^FRC-ARM64VM-END' "$log" >"$work/cut.log"
	# The 10th line of base64 after the BEGIN line: one character replaced.
	awk '/^FRC-ARM64VM-BEGIN/ { b = NR } b && NR == b + 10 { $0 = "#" substr($0, 2) } { print }' \
		"$log" >"$work/garbage.log"
	awk '/^FRC-ARM64VM-BEGIN/ { b = NR } b && NR == b + 10 { c = substr($0, 1, 1); $0 = (c == "A" ? "B" : "A") substr($0, 2) } { print }' \
		"$log" >"$work/flip.log"
	for kind in cut garbage flip; do
		if sh "$here/run.sh" extract "$work/$kind.log" "$work" >"$work/$kind.out" 2>&1; then
			fail "a $kind transfer was accepted"
		fi
		echo "$kind transfer refused: $(cat "$work/$kind.out")"
	done
}

# identity: a frames check, and the capture names the one Surface by one value (the truth's
# ANativeWindow*) and each buffer by one value (as many as the game's --buffers): the entry
# points it went through (a static hook, members, sp overloads, the batch path) record the
# canonical pointers on arm64 too (recorder/README.md, "Canonical identities").
check_identity() {
	check_frames
	want=$(opt --buffers $(game_opts))
	set -- $(awk '$1 == "frame" { if (!($6 in s)) ns++; s[$6] = 1; if (!($5 in b)) nb++; b[$5] = 1 }
		END { print ns + 0, nb + 0 }' "$work/export.txt")
	[ "$1" -eq 1 ] || fail "$1 surface values in the capture: one Surface was queued"
	[ "$2" -eq "${want:-3}" ] || fail "$2 buffer values in the capture, the game rotates ${want:-3}"
	echo "one surface value, $2 buffer values, whatever the entry point"
}

# presents: a frames check, and the capture's present rows (DESIRED ACTUAL) are the stand-in
# compositor's presented buffers, in order from its first, at least 60 of its 120 (the
# game's last frames are presented after framerec's last poll: the game, and its
# compositor, exit with them), none pending (INT64_MAX), with the 60 Hz vsync period.
check_presents() {
	check_frames
	awk '$1 == "present" { print $4, $5 }' "$work/export.txt" >"$work/rows.txt"
	awk '$1 == "present" { print $2, $3 }' "$out/$name.present" >"$work/want.txt"
	n=$(wc -l <"$work/rows.txt")
	[ "$n" -ge 60 ] || fail "$n present rows recorded, expected at least 60 of 120"
	head -n "$n" "$work/want.txt" | cmp -s - "$work/rows.txt" ||
		fail "the present rows differ from the compositor's: $(head -n "$n" "$work/want.txt" | diff - "$work/rows.txt" | head -n 4)"
	grep -q '^vsync [0-9]* 16666666$' "$work/export.txt" || fail "no vsync record of 16666666 ns"
	! grep -q ' 9223372036854775807 ' "$work/rows.txt" || fail "a pending row was recorded"
	echo "$n present rows = the compositor's first $n, row for row"
}

# geometry: a frames check, and what the probe read from each buffer's ANativeWindowBuffer
# and each Surface::connect / disconnect on arm64 (recorder/README.md, "Buffer geometry",
# "Surface lifetime"): exactly one buffer record per buffer of the truth, before its first
# frame, with the game's --size (main surface: the one with the most truth lines) or --overlay-size, the
# stand-in's stride (width rounded up to 64), RGBA_8888 (1) and usage 0xb00; per surface a
# connect with api 1 before its first frame and a disconnect with api 1 after its last, by
# the thread that queues it; no bad buffer in the drops records.
check_geometry() {
	check_frames
	size=$(opt --size $(game_opts)) osize=$(opt --overlay-size $(game_opts))
	awk -v size="${size:-1080x2400}" -v osize="${osize:-540x1200}" '
	function want(sz, k,  a) { split(sz, a, "x"); return a[k] }
	function stride(w) { return int((w + 63) / 64) * 64 }
	# the main surface: the one with the most truth lines (--frames at --fps; the overlay
	# queues at its lower rate until they end). Not the first line: the overlay thread may
	# queue first.
	FNR == NR { if (!($3 in sf)) sf[$3] = ++ns
		if (++calls[$3] > calls[main]) main = $3
		if (!($2 in tb)) { tb[$2] = 1; nb++ } next }
	$1 == "buffer" { if ($5 in rec) { print "buffer " $5 ": two buffer records"; bad = 1; exit }
		rec[$5] = NR; sz = $4 == main ? size : osize
		if ($6 != want(sz, 1) || $7 != want(sz, 2) || $8 != stride(want(sz, 1)) || $9 != 1 || $10 != "0xb00") {
			print "buffer " $5 " of " $4 ": " $6 "x" $7 " stride " $8 " format " $9 " usage " $10 ", expected " sz " stride " stride(want(sz, 1)) " format 1 usage 0xb00"; bad = 1; exit }
		nrec++ }
	$1 == "frame" { if (!($5 in first)) { first[$5] = NR; if (!($5 in rec)) { print "buffer " $5 ": a frame before its buffer record"; bad = 1; exit } }
		if (!($6 in ff)) { ff[$6] = NR; ftid[$6] = $4 } lf[$6] = NR }
	$1 == "connect" || $1 == "disconnect" { if ($6 != 1) { print $1 " of " $5 ": api " $6 ", expected 1 (EGL)"; bad = 1; exit }
		if ($1 == "connect") { con[$5]++; cat[$5] = NR; ctid[$5] = $4 } else { dis[$5]++; dat[$5] = NR; dtid[$5] = $4 } }
	$1 == "drops" && NF >= 5 && $5 != 0 { print "drops: " $5 " bad buffers"; bad = 1; exit }
	END {
		if (bad) exit 1
		if (nrec != nb) { print nrec " buffer records, " nb " buffers in the truth"; exit 1 }
		for (s in sf) {
			if (con[s] != 1 || dis[s] != 1) { print "surface " s ": " con[s] + 0 " connects, " dis[s] + 0 " disconnects"; exit 1 }
			if (!(cat[s] < ff[s] && dat[s] > lf[s])) { print "surface " s ": connect/disconnect not around its frames"; exit 1 }
			if (ctid[s] != ftid[s] || dtid[s] != ftid[s]) { print "surface " s ": connected by tid " ctid[s] ", queued by " ftid[s]; exit 1 }
		}
		printf "%d buffer records (one per buffer, geometry as the game set it), %d surfaces connected as EGL around their frames\n", nrec, ns
	}' "$out/$name.truth" "$work/export.txt" >"$work/geometry.txt"
	st=$?
	cat "$work/geometry.txt"
	[ $st -eq 0 ] || fail "$(cat "$work/geometry.txt")"
}

case $check in
frames | accounting | killed | identity | presents | geometry | doctor | pac_bti | transfer_damaged | checks_catch_errors) "check_$check" ;;
*) fail "unknown check '$check'" ;;
esac
