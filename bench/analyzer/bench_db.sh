#!/bin/sh
# bench_db.sh [BUILD_DIR] - `frameanalyze db` against the sqlite3 CLI importing the same
# frames from CSV, in the same run (issue 5's benchmark). Not a test.
#
# For 1 M and 10 M frames (60 Hz, 3 buffers, a tick every second; bench_gen writes the
# capture with the writer API and the same frames as CSV):
#   ours:     frameanalyze db capture.frc -o ours.db  (decode, replay through the pipeline,
#             store frames + tracker deltas + readings; 1 M frames -> 1.35 M rows)
#   baseline: sqlite3 base.db < "CREATE TABLE frames(...same 6 columns...); .import"
#             (just the frames, already decoded to text)
# Both get the same PRAGMAs (synchronous=NORMAL, cache_size=-16384, default DELETE
# journal). Each is run REPS times (default 3) on a fresh database; medians and the ratio
# ours/baseline are printed (goal <= 2.0), with peak RSS from rss_run (goal <= 64 MiB and
# independent of capture length). `frameanalyze report` on the same capture is timed once
# for its peak RSS (the 1 us histogram).
#
# env: REPS (3), SIZES ("1000000 10000000"), WORK (a temporary directory)
set -eu
build=${1:-build}
bin=$build/bin
reps=${REPS:-3}
sizes=${SIZES:-"1000000 10000000"}
work=${WORK:-$(mktemp -d /tmp/bench_analyzer.XXXXXX)}
for p in frameanalyze bench_ana_gen rss_run; do
	[ -x "$bin/$p" ] || { echo "bench_db.sh: $bin/$p missing: build first" >&2; exit 2; }
done
command -v sqlite3 >/dev/null || { echo "bench_db.sh: sqlite3 CLI missing" >&2; exit 2; }
fa=$(cd "$bin" && pwd)/frameanalyze
trap 'rm -rf "$work"' EXIT

# median of the numbers on stdin
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# run CMD..., print "SECONDS KIB" (from rss_run's stderr line)
measure() {
	"$bin/rss_run" "$@" 2>"$work/rss" >/dev/null || { cat "$work/rss" >&2; exit 1; }
	awk '/^rss_run:/ {print $2, $4}' "$work/rss"
}

echo "frameanalyze db vs sqlite3 CLI .import (same frames), $reps runs each; $(nproc) CPUs," \
	"sqlite3 $(sqlite3 --version | cut -d' ' -f1)"
printf '%-9s %-9s %-34s %-10s %-10s\n' frames tool "times (s)" "median s" "peak RSS"
for n in $sizes; do
	"$bin/bench_ana_gen" "$n" "$work/c.frc" "$work/c.csv"
	cat >"$work/base.sql" <<SQL
PRAGMA synchronous=NORMAL;
PRAGMA cache_size=-16384;
CREATE TABLE frames(capture_id INTEGER NOT NULL, seq INTEGER NOT NULL,
 ktime_ns INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
 buffer INTEGER NOT NULL);
.mode csv
.import $work/c.csv frames
SQL
	ours="" base="" ours_rss=0 base_rss=0
	for i in $(seq "$reps"); do
		rm -f "$work/ours.db" "$work/base.db"
		set -- $(measure "$fa" db "$work/c.frc" -o "$work/ours.db")
		ours="$ours $1"
		[ "$2" -gt "$ours_rss" ] && ours_rss=$2
		set -- $(measure sh -c "sqlite3 '$work/base.db' < '$work/base.sql'")
		base="$base $1"
		[ "$2" -gt "$base_rss" ] && base_rss=$2
	done
	om=$(echo $ours | tr ' ' '\n' | median)
	bm=$(echo $base | tr ' ' '\n' | median)
	rows=$(sqlite3 "$work/ours.db" "SELECT (SELECT count(*) FROM frames) + (SELECT count(*)
		FROM tracker_deltas) + (SELECT count(*) FROM fps_readings)")
	printf '%-9s %-9s %-34s %-10s %s MiB\n' "$n" ours "$ours" "$om" \
		"$(awk -v k="$ours_rss" 'BEGIN {printf "%.1f", k / 1024}')"
	printf '%-9s %-9s %-34s %-10s %s MiB\n' "$n" sqlite3 "$base" "$bm" \
		"$(awk -v k="$base_rss" 'BEGIN {printf "%.1f", k / 1024}')"
	printf '%-9s ratio ours/sqlite3 = %s (goal <= 2.0); ours stored %s rows, capture %s bytes\n' \
		"$n" "$(awk -v a="$om" -v b="$bm" 'BEGIN {printf "%.2f", a / b}')" "$rows" \
		"$(wc -c <"$work/c.frc")"
	set -- $(measure "$fa" report "$work/c.frc")
	printf '%-9s frameanalyze report (same capture, once): %s s, peak RSS %s MiB\n' "$n" \
		"$1" "$(awk -v k="$2" 'BEGIN {printf "%.1f", k / 1024}')"
	rm -f "$work/c.csv" "$work/c.frc" "$work/ours.db" "$work/base.db"
done
