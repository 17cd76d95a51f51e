#!/bin/sh
# bench_html.sh [BUILD_DIR] - the HTML report of a 1-hour 120 FPS capture (432000 frames,
# 3 buffers, +-200 us jitter; bench_gen): the page's size (goal <= 2 MB) and how long
# frameanalyze takes to write it, then how long headless Chromium takes to load and render
# it (goal < 2 s; skipped without chromium). Baseline in the same run: the 5 s steady
# fixture's page, and the text report of the same capture (the replay's own cost).
set -eu
build=${1:-build}
fa=$build/bin/frameanalyze
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/bench_ana_gen" 432000 "$work/hour.frc" /dev/null 120
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.3f", $2 - $1 }'; }
t0=$(now)
"$fa" report "$work/hour.frc" >/dev/null
t1=$(now)
"$fa" report --html -o "$work/hour.html" "$work/hour.frc"
t2=$(now)
"$fa" report --html -o "$work/base.html" "$build/fixtures/steady_60hz_triple.frc"
echo "capture: 1 hour at 120 FPS, $(wc -c <"$work/hour.frc") bytes, 432000 frames"
echo "baseline: text report of the same capture: $(secs "$t0" "$t1") s"
echo "html report: $(secs "$t1" "$t2") s to write, $(wc -c <"$work/hour.html") bytes (goal <= 2000000)"
echo "baseline page (10 s steady fixture): $(wc -c <"$work/base.html") bytes"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "browser render: skipped (no chromium)"
	exit 0
fi
render() { # PAGE: seconds for headless Chromium to load, lay out and paint it
	a=$(now)
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/p" \
		--screenshot="$work/shot.png" --window-size=1280,2000 "file://$1" >/dev/null 2>&1
	b=$(now)
	secs "$a" "$b"
}
blank="$work/blank.html"
printf '<!DOCTYPE html><title>blank</title>\n' >"$blank"
render "$blank" >/dev/null # first start: profile creation
echo "browser render (load + layout + paint + screenshot, incl. browser start):"
echo "  blank page (the browser's own start-up, baseline): $(render "$blank") s"
echo "  1-hour page: $(render "$work/hour.html") s (goal < 2 s of page time over the blank)"
