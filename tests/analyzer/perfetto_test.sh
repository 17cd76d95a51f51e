#!/bin/sh
# perfetto_test.sh FRAMEANALYZE SRC_DIR FIXTURES_BIN_DIR WORK_DIR
#
# analyzer.perfetto: `frameanalyze perfetto` writes traces that protoc decodes against the
# .proto subset we wrote from Perfetto's field numbers (perfetto_subset.proto), once
# perfetto_inflate.py has opened their compressed_packets bundles as trace processor does
# (every packet of the file a bundle under 512 KB, one whole zlib stream each):
#   - every fixture is exported (a refusal fails) and its trace decodes; perfetto_check.py
#     (python3, no exporter code) rebuilds it as Perfetto reads it (sequence flags,
#     defaults, interned names, delta timestamps on the snapshot's incremental clock) and
#     compares it with the capture's records from `frameanalyze export`: one queueBuffer
#     instant per frame record at its ktime on its thread, the surface slices balanced and
#     exactly the submission intervals of REPORT.md (the last slice of each surface ends at
#     its last call), the main surface's frame time samples exactly its truth
#     series, the display layers' present slices and their flows from the linked calls;
#     the instants also number the frames `report --json` counts; the same for a
#     generated capture with more distinct buffers than the exporter keeps interned and
#     more packets than one bundle holds (it must have 3 bundles or more);
#   - the hand scenario with realtime.offset_ns decodes to exactly perfetto_hand.golden
#     (scripts/update-goldens.sh rewrites it), its clock snapshot puts REALTIME at
#     first ktime + offset;
#   - 50000 calls at 60 Hz with jitter take at most 40 bytes a call (issue 18's goal);
#   - a capture cut in half is exported with a warning naming the offset `info` gives as
#     the end of its valid data (a complete one warns of nothing), and checks as above;
#   - the same trace cut inside its last packet fails to decode;
#   - a capture under the content rule has a track of the content's changes, named by
#     surface and reason (id_splash_then_game's two); the hand scenario has none.
# Exit 77 (SKIPPED) without protoc (Debian's protobuf-compiler, installed by setup.sh) or
# python3.
set -u
fa=$1
src=$2
fixtures=$3
work=$4
proto="$src/perfetto_subset.proto"
command -v protoc >/dev/null || { echo "SKIP: no protoc (protobuf-compiler)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3 (perfetto_check.py)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
# decode < TRACE: its bundles opened (perfetto_inflate.py, which refuses a packet outside a
# bundle, a bundle of 512 KB or more and a cut or damaged stream), then protoc's text.
decode() {
	python3 "$src/perfetto_inflate.py" >"$work/.inflated" &&
		protoc --decode=perfetto.protos.Trace -I "$src" "$proto" <"$work/.inflated"
}
fail() { echo "FAIL: $*"; exit 1; }
# check NAME FRC: perfetto_check.py against the capture's own records (`export`), then its
# count of queueBuffer instants against the frames `report --json` counts.
check() {
	"$fa" export "$2" >"$work/$1.export" 2>/dev/null
	python3 "$src/perfetto_check.py" "$work/$1.txt" "$work/$1.export" >"$work/$1.check" ||
		fail "$1: $(cat "$work/$1.check")"
	calls=$(sed -n 's/^instants=\([0-9]*\) .*/\1/p' "$work/$1.check")
	frames=$("$fa" report --json "$2" 2>/dev/null | sed -n 's/^    "frames": \([0-9]*\),$/\1/p')
	[ -n "$calls" ] && [ "$calls" = "$frames" ] ||
		fail "$1: $calls queueBuffer instants, $frames frames"
}
n=0
for frc in "$fixtures"/*.frc "$fixtures"/display/*.frc; do
	name=$(basename "$frc" .frc)
	"$fa" perfetto "$frc" -o "$work/$name.pftrace" 2>"$work/$name.err" ||
		fail "$name: perfetto refused the fixture: $(cat "$work/$name.err")"
	decode <"$work/$name.pftrace" >"$work/$name.txt" || fail "$name: protoc cannot decode the trace"
	! grep -q truncated "$work/$name.err" ||
		fail "$name: a complete capture warned: $(cat "$work/$name.err")"
	check "$name" "$frc"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no fixture trace was checked"
# The display fixture (its header): 240 rows with a valid present time, each linked to the
# call it shows: 240 present slices, 240 flows from a call to its present.
grep -q ' presents=240 flows=240$' "$work/present_mailbox.check" ||
	fail "present_mailbox: $(cat "$work/present_mailbox.check"), want 240 presents and flows"
# More distinct buffers (12000) than the exporter remembers interned (1024), on 5 surfaces
# and 2 threads: every annotation must still name its own call's values; and more packets
# than one bundle holds (256 KiB of them), so the trace has several.
awk 'BEGIN { for (i = 0; i < 12000; i++)
	printf "frame %.0f 700 %d 0x%x 0x%x\n", 1000000000 + i * 16666667, 701 + i % 2,
		65536 + i * 4096, i % 5 * 4096 }' >"$work/many.txt" || fail "awk many.txt"
"$fa" import "$work/many.txt" -o "$work/many.frc" || fail "import many.txt"
"$fa" perfetto "$work/many.frc" -o "$work/many.pftrace" || fail "perfetto many"
decode <"$work/many.pftrace" >"$work/many_trace.txt" || fail "many: protoc cannot decode"
check many_trace "$work/many.frc"
bundles=$(python3 "$src/perfetto_inflate.py" --bundles <"$work/many.pftrace")
[ "$bundles" -ge 3 ] || fail "many: $bundles compressed_packets bundles, want 3 or more"
# The size goal (issue 18 point 10: <= 40 bytes a frame), on 50000 calls like
# bench_perfetto.sh's (60 Hz, +-200 us of jitter, 3 buffers, one thread and surface): the
# bundles, opened, are checked like every trace above.
awk 'BEGIN { srand(18); for (i = 0; i < 50000; i++)
	printf "frame %.0f 900 901 0x%x 0x7000\n",
		1000000000 + i * 16666667 + int(rand() * 400001) - 200000, 65536 + i % 3 * 4096 }' \
	>"$work/goal.txt" || fail "awk goal.txt"
"$fa" import "$work/goal.txt" -o "$work/goal.frc" || fail "import goal.txt"
"$fa" perfetto "$work/goal.frc" -o "$work/goal.pftrace" || fail "perfetto goal"
decode <"$work/goal.pftrace" >"$work/goal_trace.txt" || fail "goal: protoc cannot decode"
check goal_trace "$work/goal.frc"
grep -q '^instants=50000 ' "$work/goal_trace.check" || fail "goal: $(cat "$work/goal_trace.check")"
bytes=$(wc -c <"$work/goal.pftrace")
[ "$bytes" -le $((40 * 50000)) ] || fail "goal: $bytes bytes for 50000 calls, over 40 a call"
# A capture cut in half: exported up to the damage (exit 0) with a warning on stderr that
# names the offset where `info` says the valid data ends; the trace holds those records.
steady="$fixtures/steady_60hz_triple.frc"
head -c $(($(wc -c <"$steady") / 2)) "$steady" >"$work/half.frc"
"$fa" perfetto "$work/half.frc" -o "$work/half.pftrace" 2>"$work/half.err" ||
	fail "perfetto refused a truncated capture: $(cat "$work/half.err")"
end=$("$fa" info "$work/half.frc" 2>/dev/null |
	sed -n 's/.*truncated, valid data ends at byte \([0-9]*\).*/\1/p')
[ -n "$end" ] || fail "info does not see the cut capture as truncated"
grep -q "warning: .*half.frc: offset $end: truncated" "$work/half.err" ||
	fail "no truncation warning at offset $end on stderr: $(cat "$work/half.err")"
decode <"$work/half.pftrace" >"$work/half_trace.txt" || fail "half: protoc cannot decode"
check half_trace "$work/half.frc"
# The hand scenario, with a wall-clock offset: the golden decoded text.
{
	echo "meta realtime.offset_ns 1764547200000000000"
	cat "$src/hand.txt"
} >"$work/hand.txt"
"$fa" import "$work/hand.txt" -o "$work/hand.frc" || fail "import hand.txt"
"$fa" perfetto "$work/hand.frc" -o "$work/hand.pftrace" || fail "perfetto hand"
decode <"$work/hand.pftrace" >"$work/hand.decoded" || fail "hand: protoc cannot decode"
cp "$work/hand.decoded" "$work/hand_trace.txt"
check hand_trace "$work/hand.frc"
# the first record (attach) is at 999000000 ns: REALTIME = 999000000 + the offset
grep -A1 'clock_id: 1$' "$work/hand.decoded" | grep -q 'timestamp: 1764547200999000000$' ||
	fail "hand: no REALTIME clock at first ktime + realtime.offset_ns"
golden="$src/perfetto_hand.golden"
if [ "${FRAMEANALYZE_UPDATE_GOLDEN:-0}" = 1 ]; then
	cp "$work/hand.decoded" "$golden" && echo "perfetto: rewrote $golden (not checked)"
	exit 77
else
	diff -u "$golden" "$work/hand.decoded" || fail "hand: decoded trace differs from $golden"
fi
# The content the truth follows (identity scenario id_splash_then_game, the generator's:
# the splash on the app window until the game's first frame at 1.5 s, then the game):
# a track "content (what the truth follows)" with those two slices, in that order; a
# capture under the count rule (the hand scenario) has no such track.
splash="$fixtures/score/id_splash_then_game.frc"
"$fa" perfetto "$splash" -o "$work/splash.pftrace" || fail "perfetto $splash"
decode <"$work/splash.pftrace" >"$work/splash.txt" || fail "splash: protoc cannot decode"
names=$(grep -A3 'type: TYPE_SLICE_BEGIN' "$work/splash.txt" | sed -n 's/^ *name: "\(pid .*\)"$/\1/p' |
	tr '\n' '|')
[ "$names" = "pid 6400 surface 0xb4000078e29f0a10 (only surface)|pid 6400 surface 0xb4000078e2a45c10 (thread name)|" ] ||
	fail "splash: content slices are [$names]"
grep -q 'name: "content (what the truth follows)"' "$work/splash.txt" || fail "splash: no content track"
grep -q 'content (what the truth follows)' "$work/hand.decoded" && fail "hand: a content track"
# Cut inside the last packet: protoc must refuse it.
size=$(wc -c <"$work/hand.pftrace")
head -c $((size - 3)) "$work/hand.pftrace" >"$work/cut.pftrace"
if decode <"$work/cut.pftrace" >/dev/null 2>&1; then
	fail "a truncated trace decoded"
fi
echo "ok: $n fixture traces, the generated and the truncated capture decoded and checked," \
	"hand golden equal, a cut trace refused"
