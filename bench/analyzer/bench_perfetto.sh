#!/bin/sh
# bench_perfetto.sh [BUILD_DIR] - the size of `frameanalyze perfetto`'s trace for a 1 M-frame
# capture (60 Hz, 3 buffers, +-200 us jitter, a tick every second; bench_gen), in bytes per
# frame next to the capture's own bytes per frame (goal: the trace <= 40 bytes/frame), and
# how long the export takes. Baseline in the same run: the text report of the same capture
# (the replay's own cost, which the export pays too). Then, with python3, where the trace's
# bytes go (perfetto_budget.py: the compressed_packets bundles, then bytes per frame of the
# packets inside them by packet kind and field). Not a test.
#
# env: FRAMES (1000000), WORK (a temporary directory)
set -eu
build=${1:-build}
frames=${FRAMES:-1000000}
fa=$build/bin/frameanalyze
for p in "$fa" "$build/bin/bench_ana_gen"; do
	[ -x "$p" ] || { echo "bench_perfetto.sh: $p missing: build first" >&2; exit 2; }
done
work=${WORK:-$(mktemp -d /tmp/bench_perfetto.XXXXXX)}
trap 'rm -rf "$work"' EXIT
"$build/bin/bench_ana_gen" "$frames" "$work/cap.frc" /dev/null
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.3f", $2 - $1 }'; }
per() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
t0=$(now)
"$fa" report "$work/cap.frc" >/dev/null
t1=$(now)
"$fa" perfetto "$work/cap.frc" -o "$work/cap.pftrace"
t2=$(now)
cap=$(wc -c <"$work/cap.frc")
trace=$(wc -c <"$work/cap.pftrace")
echo "capture: $frames frames at 60 Hz, $cap bytes, $(per "$cap" "$frames") bytes/frame"
echo "trace:   $trace bytes, $(per "$trace" "$frames") bytes/frame (goal <= 40)," \
	"$(per "$trace" "$cap")x the capture"
echo "export:  $(secs "$t1" "$t2") s (baseline: text report of the same capture" \
	"$(secs "$t0" "$t1") s)"
if command -v python3 >/dev/null; then
	python3 "$(dirname "$0")/perfetto_budget.py" "$work/cap.pftrace" "$frames"
fi
