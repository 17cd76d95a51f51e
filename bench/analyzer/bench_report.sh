#!/bin/sh
# bench_report.sh [BUILD_DIR [BASE_BUILD_DIR]] - `frameanalyze report` throughput on a 10 M-frame capture
# (bench_gen: 60 Hz, +-200 us jitter, 3 buffers, a tick every second), next to what bounds
# it, measured in the same run (issue 17, "work done once"; goal: report <= 1.5 s):
#   pipeline: the heuristics pipeline alone, records generated in memory (bench_heuristics,
#             its scenario "pipeline, 3 buffers, tick record every 1 s");
#   reader:   `frameanalyze info`, which reads the capture once and replays nothing;
#   report:   `frameanalyze report` (the text report: submissions, tracker, meter);
#   page:     `frameanalyze report --html` (the report, the charts and every tracker
#             variant's score).
# Each command runs REPS times (default 5); medians of the wall and the CPU time
# (user + system, from rss_run: on a shared machine the steadier figure). The bytes each
# command reads (rchar of /proc/PID/io, counted by the shell that waited for it) over what
# `info` reads say how many times it reads the capture. Not a test.
#
# With BASE_BUILD_DIR (say, main's build, for a change's before/after) every row is also
# run with that build's frameanalyze, alternating run by run with BUILD_DIR's on the same
# capture, so that both see the same load; the row after it gives the base's figures and
# the ratio of the CPU medians (base / this).
#
# env: FRAMES (10000000), REPS (5), WORK (a temporary directory)
set -eu
build=${1:-build}
bin=$build/bin
frames=${FRAMES:-10000000}
reps=${REPS:-5}
base=${2:-}
work=${WORK:-$(mktemp -d /tmp/bench_report.XXXXXX)}
for p in frameanalyze bench_ana_gen bench_heuristics rss_run; do
	[ -x "$bin/$p" ] || { echo "bench_report.sh: $bin/$p missing: build first" >&2; exit 2; }
done
if [ -n "$base" ] && [ ! -x "$base/bin/frameanalyze" ]; then
	echo "bench_report.sh: $base/bin/frameanalyze missing: build first" >&2
	exit 2
fi
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# FA ARGS...: REPS runs of FA ARGS (and, with a base, of the base's frameanalyze, each run
# right after this one's); "WALL CPU" medians (seconds) into $work/this (and $work/base)
timed() {
	fa=$1
	shift
	for f in w c bw bc; do : >"$work/$f"; done
	for i in $(seq "$reps"); do
		run1 w c "$fa" "$@"
		[ -z "$base" ] || run1 bw bc "$base/bin/frameanalyze" "$@"
	done
	echo "$(median <"$work/w") $(median <"$work/c")" >"$work/this"
	[ -z "$base" ] || echo "$(median <"$work/bw") $(median <"$work/bc")" >"$work/base"
}
# WALL CPU CMD...: one run of CMD; appends its wall and CPU seconds to $work/WALL, $work/CPU
run1() {
	wf=$work/$1 cf=$work/$2
	shift 2
	"$bin/rss_run" "$@" 2>"$work/rss" >/dev/null || { cat "$work/rss" >&2; exit 1; }
	awk -v wf="$wf" -v cf="$cf" '/^rss_run:/ {print $2 >> wf; print $8 >> cf}' "$work/rss"
}
# CMD...: bytes read by CMD (its rchar, which the shell that reaped it has added to its own)
bytes_read() {
	sh -c '"$@" >/dev/null; awk "/^rchar:/ {print \$2}" /proc/$$/io' sh "$@"
}
rate() { awk -v n="$frames" -v s="$1" 'BEGIN {printf "%.1f", n / s / 1e6}'; }

"$bin/bench_ana_gen" "$frames" "$work/c.frc" /dev/null
size=$(wc -c <"$work/c.frc")
echo "capture: $frames frames at 60 Hz, $size bytes; $reps runs each, medians; $(nproc) CPUs"
pipe=$("$bin/bench_heuristics" 2000000 "$reps" |
	awk '/^pipeline, 3 buffers, tick record every 1 s/ {for (i = 1; i < NF; i++)
		if ($(i + 1) == "M/s") print $i}')
echo "pipeline alone (bench_heuristics, 3 buffers, a tick record every 1 s): $pipe M frames/s"
once=$(bytes_read "$bin/frameanalyze" info "$work/c.frc") # one read of the capture
row() { # NAME ARGS...: one line of the table (and one for the base)
	name=$1
	shift
	timed "$bin/frameanalyze" "$@"
	set -- $(cat "$work/this") $(bytes_read "$bin/frameanalyze" "$@")
	printf '%-34s %7.3f s wall %7.3f s CPU  %6s M frames/s (CPU)  reads it %.2f times\n' \
		"$name" "$1" "$2" "$(rate "$2")" "$(awk -v b="$3" -v o="$once" 'BEGIN {print b / o}')"
	[ -z "$base" ] && return 0
	this_cpu=$2
	set -- $(cat "$work/base")
	printf '%-34s %7.3f s wall %7.3f s CPU  %6s M frames/s (CPU)  base/this CPU %.2fx\n' \
		"  base ($base)" "$1" "$2" "$(rate "$2")" \
		"$(awk -v a="$2" -v b="$this_cpu" 'BEGIN {print a / b}')"
}
row "reader alone (frameanalyze info)" info "$work/c.frc"
row "frameanalyze report" report "$work/c.frc"
row "frameanalyze report --html" report --html --force -o "$work/p.html" "$work/c.frc"
echo "goal: frameanalyze report <= 1.5 s for 10 M frames"
