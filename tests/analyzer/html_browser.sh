#!/bin/sh
# html_browser.sh FRAMEANALYZE FIXTURES_BIN_DIR OUT_DIR
#
# The HTML report in a real browser (analyzer.report_html_browser): every fixture capture,
# and display/present_mailbox (the page with presents: its display charts), is rendered (a
# refusal fails) and headless Chromium loads the page from a file:// URL and
#   - logs no console message (the page has no script: any message is an error, e.g. an
#     invalid SVG attribute),
#   - has every chart's <svg> with drawn content: on a page with presents also the display
#     charts (presented and submitted per second, latency over time, dropped markers), on
#     a page without them none of those,
#   - shows in its cards exactly the numbers of `frameanalyze report --json`,
# and a PNG screenshot of each page is saved as OUT_DIR/NAME.png.
# Exit 77 (SKIPPED) when no Chromium is installed or it cannot start here.
set -u
fa=$1
fixtures=$2
out=$3
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "SKIP: no chromium (scripts/setup.sh installs Debian's chromium)"
	exit 77
fi
mkdir -p "$out" && out=$(cd "$out" && pwd)
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
run_browser() { # URL ARGS... : headless, no sandbox (root in a container), no GPU
	url=$1
	shift
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 "$@" "$url"
}
# Can it start at all? A page of one word must come back through --dump-dom.
printf '<!DOCTYPE html><title>t</title><p>alive</p>\n' >"$out/alive.html"
if ! run_browser "file://$out/alive.html" --dump-dom 2>"$out/alive.log" | grep -q alive; then
	echo "SKIP: chromium cannot start here: $(grep -v dbus "$out/alive.log" | tail -n 2)"
	exit 77
fi
fail=0
n=0
# display/present_mailbox: the hand-made capture with presents (its numbers worked out in
# its header), so that the display charts are drawn by a real browser too
for frc in "$fixtures"/*.frc "$fixtures"/display/present_mailbox.frc; do
	name=$(basename "$frc" .frc)
	case $frc in
	*/display/*) display=1 ;;
	*) display=0 ;;
	esac
	html=$out/$name.html
	rm -f "$html"
	if ! "$fa" report --html -o "$html" "$frc" 2>"$out/$name.err"; then
		echo "FAIL $name: report --html refused the fixture: $(cat "$out/$name.err")"
		fail=1
		continue
	fi
	"$fa" report --json "$frc" >"$out/$name.json" 2>/dev/null
	run_browser "file://$html" --dump-dom >"$out/$name.dom" 2>"$out/$name.log"
	run_browser "file://$html" --screenshot="$out/$name.png" --window-size=1280,2000 \
		>/dev/null 2>>"$out/$name.log"
	if grep -q 'CONSOLE' "$out/$name.log"; then
		echo "FAIL $name: console messages:"
		grep 'CONSOLE' "$out/$name.log" | head -n 5
		fail=1
	fi
	if [ ! -s "$out/$name.png" ]; then
		echo "FAIL $name: no screenshot"
		fail=1
	fi
	python3 - "$out/$name.dom" "$out/$name.json" "$name" "$display" <<'PY' || fail=1
import json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
# numbers as the JSON text has them ("60.000"), not as floats
rep = json.loads(open(sys.argv[2]).read(), parse_float=str, parse_int=str)
name, display, bad = sys.argv[3], sys.argv[4] == "1", 0
charts = ["chart-frametime", "chart-fps", "chart-histogram", "chart-cdf"]
shown = ["chart-presented", "chart-latency", "chart-dropped"]
for chart in charts + (shown if display else []):
    m = re.search(r'<svg id="%s"[^>]*>(.*?)</svg>' % chart, dom, re.S)
    if not m or not re.search(r"<(rect|path|line)\b", m.group(1)):
        print("FAIL %s: chart %s missing or empty" % (name, chart))
        bad = 1
# a drawn line, not only the plot's frame: the presented and latency charts' series
for chart in shown if display else []:
    m = re.search(r'<svg id="%s"[^>]*>(.*?)</svg>' % chart, dom, re.S)
    if m and not re.search(r'<path class="line" d="M[^"]+"|<g class="m-dropped"><rect', m.group(1)):
        print("FAIL %s: chart %s has no series drawn" % (name, chart))
        bad = 1
for chart in [] if display else shown:
    if re.search(r'<svg id="%s"' % chart, dom):
        print("FAIL %s: chart %s on a page without presents" % (name, chart))
        bad = 1
# the presented line read back through its y axis (ticks: value at y) shows the content
# layer's frame times per full window: its lowest and highest as the JSON report's
m = re.search(r'<svg id="chart-presented".*?</svg>', dom, re.S) if display else None
if m:
    ticks = [(float(y), float(v)) for y, v in re.findall(
        r'<line class="grid"[^>]*y1="([0-9.]+)"[^>]*></line><text class="tick"[^>]*>([0-9.]+)<',
        m.group(0))]
    line = re.search(r'<g class="s-pres"><path class="line" d="([^"]+)"', m.group(0))
    pres = rep["presented"]
    layer = pres.get("layer_%s" % pres["content_layer"], {})
    if len(ticks) < 2 or not line or "per_window_min" not in layer:
        print("FAIL %s: chart-presented has no axis, no line or no content layer" % name)
        bad = 1
    else:
        (y0, v0), (y1, v1) = ticks[0], ticks[-1]
        vals = [round(v0 + (float(y) - y0) * (v1 - v0) / (y1 - y0))
                for y in re.findall(r'[ML][0-9.]+ ([0-9.]+)', line.group(1))]
        want = (round(float(layer["per_window_min"])), round(float(layer["per_window_max"])))
        if not vals or (min(vals), max(vals)) != want:
            print("FAIL %s: chart-presented shows %s per window, the JSON report min/max %s"
                  % (name, vals, want))
            bad = 1
cards = re.findall(r'data-json="([a-z_.0-9]+)">([^<]*)<', dom)
if len(cards) < 10:
    print("FAIL %s: %d summary cards" % (name, len(cards)))
    bad = 1
for key, shown in cards:
    v = rep
    for part in key.split("."):
        v = v[part]
    want = "null" if v is None else str(v)
    if shown != want:
        print("FAIL %s: card %s shows %s, the JSON report says %s" % (name, key, shown, want))
        bad = 1
sys.exit(bad)
PY
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "FAIL: no fixture page was checked"; exit 1; }
[ "$fail" -eq 0 ] && echo "ok: $n pages, screenshots in $out"
exit "$fail"
