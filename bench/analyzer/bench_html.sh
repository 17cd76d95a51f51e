#!/bin/sh
# bench_html.sh [BUILD_DIR [BASE_BUILD_DIR]] - the HTML report of a 1-hour 120 FPS capture
# (432000 frames, 3 buffers, +-200 us jitter; bench_gen): the page's size (goal <= 2 MB) and
# how long frameanalyze takes to write it next to the text report of the same capture (the
# replay's own cost; goal: the page <= 1.5x the text report), then how long headless
# Chromium takes to load and render it (goal < 2 s; skipped without chromium). Baseline in
# the same run: the steady fixture's page. Each command runs REPS times (default 5):
# medians of the wall and the CPU time (user + system, from rss_run: on a shared machine
# the steadier figure). With BASE_BUILD_DIR (a change's before), its frameanalyze runs too,
# each run right after this build's.
set -eu
build=${1:-build}
base=${2:-}
reps=${REPS:-5}
fa=$build/bin/frameanalyze
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/bench_ana_gen" 432000 "$work/hour.frc" /dev/null 120
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.3f", $2 - $1 }'; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# NAME CMD...: one run of CMD; appends its wall and CPU seconds to $work/NAME.w, NAME.c
run1() {
	name=$1
	shift
	"$build/bin/rss_run" "$@" 2>"$work/rss" >/dev/null || { cat "$work/rss" >&2; exit 1; }
	awk -v w="$work/$name.w" -v c="$work/$name.c" \
		'/^rss_run:/ {print $2 >> w; print $8 >> c}' "$work/rss"
}
# TAG FA: one run of the text report and of the page with FA, named TAG.text, TAG.html;
# and of `score` with the page table's meter, one tracker and all five (TAG.score1,
# TAG.score5): what the page's score table costs on its own, measured next to it
both() {
	run1 "$1.text" "$2" report "$work/hour.frc"
	run1 "$1.html" "$2" report --html --force -o "$work/$1.html" "$work/hour.frc"
	run1 "$1.score1" "$2" score --meter auriya-10fe7c6 --tracker kala "$work/hour.frc"
	run1 "$1.score5" "$2" score --meter auriya-10fe7c6 "$work/hour.frc"
}
for i in $(seq "$reps"); do
	both this "$fa"
	[ -z "$base" ] || both base "$base/bin/frameanalyze"
done
wall() { median <"$work/$1.w"; }
cpu() { median <"$work/$1.c"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
"$fa" report --html -o "$work/steady.html" "$build/fixtures/steady_60hz_triple.frc"
echo "capture: 1 hour at 120 FPS, $(wc -c <"$work/hour.frc") bytes, 432000 frames; $reps runs each, medians"
for tag in this ${base:+base}; do
	[ "$tag" = base ] && echo "base build ($base):"
	echo "baseline: text report of the same capture: $(wall "$tag.text") s wall, $(cpu "$tag.text") s CPU"
	echo "html report: $(wall "$tag.html") s wall, $(cpu "$tag.html") s CPU to write, $(wc -c <"$work/$tag.html") bytes (goal <= 2000000)"
	echo "html / text: $(ratio "$(wall "$tag.html")" "$(wall "$tag.text")")x wall, $(ratio "$(cpu "$tag.html")" "$(cpu "$tag.text")")x CPU (goal <= 1.5x)"
	echo "where it goes: score, 1 tracker: $(cpu "$tag.score1") s CPU; all 5 (the page's table): $(cpu "$tag.score5") s CPU ($(ratio "$(cpu "$tag.score5")" "$(cpu "$tag.text")")x the text report)"
done
echo "baseline page (10 s steady fixture): $(wc -c <"$work/steady.html") bytes"
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
echo "  1-hour page: $(render "$work/this.html") s (goal < 2 s of page time over the blank)"
