#!/bin/sh
# html_golden.sh FRAMEANALYZE SRC_DIR WORK_DIR
#
# analyzer.report_html_golden: the HTML report of the hand scenario (tests/analyzer/hand.txt,
# numbers worked out in its comments) is byte-identical to report_hand.html.golden: the page
# is deterministic, so any change to it shows in review. scripts/update-goldens.sh
# rewrites the golden (and the test exits 77: SKIPPED).
set -u
fa=$1
src=$2
work=$3
rm -rf "$work" && mkdir -p "$work"
"$fa" import "$src/hand.txt" -o "$work/hand.frc" || exit 1
"$fa" report --html -o "$work/hand.html" "$work/hand.frc" || exit 1
golden="$src/report_hand.html.golden"
if [ "${FRAMEANALYZE_UPDATE_GOLDEN:-0}" = 1 ]; then
	cp "$work/hand.html" "$golden" && echo "html: rewrote $golden (not checked)"
	exit 77
fi
diff -u "$golden" "$work/hand.html" || { echo "FAIL: the hand page differs from $golden"; exit 1; }
echo "ok: the hand page equals $golden"
