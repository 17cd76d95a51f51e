#!/usr/bin/env bash
# demo.sh - the README's first command: set up, build, and run the main job.
#
# Records the stand-in "game" (a Linux libgui.so exporting Surface::queueBuffer) with
# framerec for a few seconds through the real uprobe, then replays the capture with
# frameanalyze (text report, HTML report with charts, Perfetto trace). Where BPF cannot
# be used (not root, no uprobes), it says so and analyzes the bundled fixture capture
# instead.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/setup.sh build

out=build/demo
mkdir -p "$out"
capture=$out/standin.frc
rm -f "$capture"

# The stand-in game runs the stand-in SurfaceFlinger too (--compositor); framerec asks it
# what it presented through standin-dumpsys, as it asks a device's dumpsys.
export STANDIN_SF_SOCKET=$top/$out/sf.sock
mailbox=$out/mailbox.frc
rm -f "$mailbox"
if build/bin/framerec doctor --lib build/standin/libgui.so >"$out/doctor.txt" 2>&1; then
	echo "== framerec: recording the stand-in game for 5 s (60 fps, 3 buffers, a jank every 2 s)"
	build/bin/framerec -d 5 -o "$capture" --lib build/standin/libgui.so \
		--dumpsys build/bin/standin-dumpsys -- \
		build/bin/standin-game --fps 60 --buffers 3 --jank-every 120 --jank-ms 70 \
		--compositor "$STANDIN_SF_SOCKET"
	echo
	echo "== framerec: a MAILBOX game (230 calls/s on a 120 Hz panel) for 3 s"
	build/bin/framerec -q -d 3 -o "$mailbox" --lib build/standin/libgui.so \
		--dumpsys build/bin/standin-dumpsys -- \
		build/bin/standin-game --fps 230 --compositor "$STANDIN_SF_SOCKET" --refresh 120 \
		--present-mode mailbox
	echo
	echo "== frameanalyze info $capture"
	build/bin/frameanalyze info "$capture"
	echo
	echo "== frameanalyze report $capture"
	build/bin/frameanalyze report "$capture"
else
	echo "== framerec doctor says a recording cannot work here:"
	cat "$out/doctor.txt"
	capture=build/fixtures/steady_60hz_triple.frc
	echo
	echo "== analyzing the bundled fixture capture instead: $capture"
	build/bin/frameanalyze info "$capture"
	echo
	build/bin/frameanalyze report "$capture"
fi

# The same report as a page with charts (open it in any browser; no network needed).
build/bin/frameanalyze report --html --force -o "$out/report.html" "$capture"
echo
echo "== in short: what was presented, what the app submitted, what the tracker estimates"
build/bin/frameanalyze report "$capture" | grep -E '^(presented|submissions|heuristics vs)|^  (window FPS|tracker [a-z-]+ )'
if [ -e "$mailbox" ]; then
	echo
	echo "== the MAILBOX game: presented and submitted differ"
	build/bin/frameanalyze report "$mailbox" | sed '/^heuristics/,$d' |
		grep -E '^(presented|submissions)|^  (window FPS|dropped)'
fi
build/bin/frameanalyze perfetto "$capture" --force -o "$out/trace.pftrace"
echo "== HTML report with charts: $top/$out/report.html"
echo "== Perfetto trace (open it at https://ui.perfetto.dev): $top/$out/trace.pftrace"
