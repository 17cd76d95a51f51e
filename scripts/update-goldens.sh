#!/usr/bin/env bash
# update-goldens.sh [BUILD_DIR] [CTEST_REGEX] - rewrite golden files from the current code.
#
# The one deliberate way to accept a change in heuristic output. It builds BUILD_DIR
# (default build), runs the golden tests matching CTEST_REGEX (default: every test that
# compares with a checked-in golden) with FRAMEANALYZE_UPDATE_GOLDEN=1, so each rewrites
# its golden and reports SKIPPED (a rewrite is not a check), then lists what changed.
# Review that diff: it IS the behaviour change. scripts/test.sh refuses to run with
# FRAMEANALYZE_UPDATE_GOLDEN set, so CI can never pass by rewriting its expectations.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
regex=${2:-'^(golden\.|analyzer\.perfetto_decode$|analyzer\.report_html_golden$)'}
cd "$top"
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
# -V: each test's "rewrote FILE" line; a test that failed instead shows its output too
FRAMEANALYZE_UPDATE_GOLDEN=1 ctest --test-dir "$build" -R "$regex" -E 'score_goals' -V |
	grep -E 'rewrote |\*\*\*Failed|tests passed' || true
echo "changed goldens (review with git diff, then commit):"
git status --short -- '*.golden' | sed 's/^/  /'
