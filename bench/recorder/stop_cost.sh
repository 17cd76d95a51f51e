#!/bin/sh
# stop_cost.sh - what stopping framerec costs, the two ways it attaches (issue 18 point 11).
#
# Records 1 and then 4 stand-in games (the default plan: hook, the batch path, connect,
# disconnect and setBuffersTimestamp, five sites per target) and times the stop: SIGINT to framerec's exit (the
# links' release, the last drain, the footer, fsync). Each run is done both ways, alternated
# so that machine noise hits both alike:
#   perf   FRAMEREC_NO_UPROBE_MULTI=1: one perf-event uprobe per site (the baseline: how
#          every framerec stopped before, and how it stops on kernels before 6.6)
#   multi  the default: one uprobe_multi link per target, all released at once
# and prints the median stop of each and their ratio. framerec -v's "BPF:" line says which
# way each run took (a kernel without uprobe_multi runs the fallback both times).
#
# Usage: bench/recorder/stop_cost.sh [BUILD_DIR]      (as root; default BUILD_DIR=build)
#   REPS=N  runs of each way and target count (default 5)
set -eu

build=${1:-build}
reps=${REPS:-5}
game=$build/bin/standin-game
lib=$build/standin/libgui.so
framerec=$build/bin/framerec

for f in "$game" "$lib" "$framerec"; do
	if [ ! -e "$f" ]; then
		echo "stop_cost: $f missing (build with -DFRC_RECORDER=ON first)" >&2
		exit 1
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "stop_cost: needs root (BPF uprobes)" >&2
	exit 1
fi
work=$(mktemp -d)
games=""
cleanup() {
	for g in $games; do kill "$g" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

for _ in 1 2 3 4; do
	"$game" --fps 200 >/dev/null 2>&1 &
	games="$games $!"
done
sleep 0.5

# One stop, in ms: framerec on the first $1 games, way $2 (perf|multi).
stop_ms() {
	n=$1 way=$2 args="" i=0
	for g in $games; do
		[ "$i" -lt "$n" ] && args="$args --pid $g"
		i=$((i + 1))
	done
	if [ "$way" = perf ]; then
		# shellcheck disable=SC2086
		FRAMEREC_NO_UPROBE_MULTI=1 "$framerec" -q -v -f --lib "$lib" $args \
			-o "$work/cap.frc" 2>"$work/log" &
	else
		# shellcheck disable=SC2086
		"$framerec" -q -v -f --lib "$lib" $args -o "$work/cap.frc" 2>"$work/log" &
	fi
	rec=$!
	# Attached once every target's line is in the log; then record half a second.
	waited=0
	while [ "$(grep -c ': attached ' "$work/log" || true)" -lt "$n" ] && [ $waited -lt 100 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	sleep 0.5
	t0=$(date +%s%N)
	kill -INT "$rec"
	wait "$rec" || true
	t1=$(date +%s%N)
	grep -o 'BPF: [a-z_-]*' "$work/log" | head -n1 >"$work/way.$way"
	echo $(((t1 - t0) / 1000000))
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for n in 1 4; do
	: >"$work/perf.$n"
	: >"$work/multi.$n"
	r=0
	while [ $r -lt "$reps" ]; do
		stop_ms "$n" perf >>"$work/perf.$n"
		stop_ms "$n" multi >>"$work/multi.$n"
		r=$((r + 1))
	done
	p=$(median <"$work/perf.$n")
	m=$(median <"$work/multi.$n")
	echo "stop, $n target(s), medians of $reps: baseline perf-event uprobes $p ms" \
		"($(cat "$work/way.perf")), uprobe_multi $m ms ($(cat "$work/way.multi")):" \
		"$(awk -v p="$p" -v m="$m" 'BEGIN { printf "%.2f", m / p }') of the baseline"
	echo "  runs (ms): perf $(tr '\n' ' ' <"$work/perf.$n")| multi $(tr '\n' ' ' <"$work/multi.$n")"
done
