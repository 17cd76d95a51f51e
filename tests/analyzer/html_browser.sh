#!/bin/sh
# html_browser.sh FRAMEANALYZE FIXTURES_BIN_DIR OUT_DIR
#
# The HTML report in a real browser (analyzer.report_html_browser): every fixture capture
# is rendered (a refusal fails) and headless Chromium loads the page from a file:// URL and
#   - logs no console message (the page has no script: any message is an error, e.g. an
#     invalid SVG attribute),
#   - has every chart's <svg> with drawn content,
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
for frc in "$fixtures"/*.frc; do
	name=$(basename "$frc" .frc)
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
	python3 - "$out/$name.dom" "$out/$name.json" "$name" <<'PY' || fail=1
import json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
# numbers as the JSON text has them ("60.000"), not as floats
rep = json.loads(open(sys.argv[2]).read(), parse_float=str, parse_int=str)
name, bad = sys.argv[3], 0
for chart in ("chart-frametime", "chart-fps", "chart-histogram", "chart-cdf"):
    m = re.search(r'<svg id="%s"[^>]*>(.*?)</svg>' % chart, dom, re.S)
    if not m or not re.search(r"<(rect|path|line)\b", m.group(1)):
        print("FAIL %s: chart %s missing or empty" % (name, chart))
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
