#!/bin/sh
# probe_cost.sh - what framerec's probe costs per Surface::queueBuffer call.
#
# Runs the stand-in game in --burst mode (it prints its own ns/call) three ways, in one
# run, alternating so that machine noise hits all three alike:
#   none      no probe: the bare call
#   empty     an empty BPF program on the same uprobe: the trap's floor (the baseline)
#   framerec  framerec recording the game (-- COMMAND mode)
# and prints the medians, the ratio framerec/empty (goal <= 1.25), and framerec's own
# CPU time (its own main thread's time on CPU, not the game's) per recorded frame (goal <= 2 us).
# That figure includes framerec's fixed start-up (BPF load and verification, symbol lookup),
# so it also runs framerec on a 10-call game and splits the figure into start-up (ms) and
# the cost of each further frame.
#
# Usage: bench/recorder/probe_cost.sh [BUILD_DIR]      (as root; default BUILD_DIR=build)
#   CALLS=N  calls per run (default 50000)     REPS=N  runs of each way (default 5)
# Example: CALLS=100000 REPS=7 bench/recorder/probe_cost.sh build
set -eu

build=${1:-build}
calls=${CALLS:-50000}
reps=${REPS:-5}
game=$build/bin/standin-game
lib=$build/standin/libgui.so
framerec=$build/bin/framerec
helper=$build/bin/probe-cost-helper
# The legacy Surface::queueBuffer(ANativeWindowBuffer*, int): the simplest probe variant.
variant=legacy
symbol=_ZN7android7Surface11queueBufferEP19ANativeWindowBufferi

for f in "$game" "$lib" "$framerec" "$helper"; do
	if [ ! -e "$f" ]; then
		echo "probe_cost: $f missing (build with -DFRC_RECORDER=ON first)" >&2
		exit 1
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "probe_cost: needs root (BPF uprobes)" >&2
	exit 1
fi

tmp=$(mktemp -d /tmp/probe_cost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

# The ns/call figure from the game's last line of output.
ns_per_call() {
	sed -n 's/.* \([0-9.]*\) ns\/call$/\1/p' "$1" | tail -n 1
}

# Median of the numbers in file $1 (one per line).
median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

run_game="$game --symbol $variant --burst --frames $calls"
: >"$tmp/none" ; : >"$tmp/empty" ; : >"$tmp/framerec" ; : >"$tmp/cpu_per_frame"
: >"$tmp/startup" ; : >"$tmp/cpu_ns"
frames_total=0
drops_total=0
i=1
while [ "$i" -le "$reps" ]; do
	$run_game >"$tmp/out"
	ns_per_call "$tmp/out" >>"$tmp/none"

	"$helper" empty "$lib" "$symbol" -- $run_game >"$tmp/out"
	ns_per_call "$tmp/out" >>"$tmp/empty"

	rm -f "$tmp/cap.frc"
	# A ring that holds the whole burst, so every call is a recorded frame (the cost of
	# recording, not of counting drops); --quiet: no live status line.
	"$helper" cpu -- "$framerec" --quiet -o "$tmp/cap.frc" --lib "$lib" --symbol "$symbol" \
		--ring-kib 16384 -- $run_game >"$tmp/out"
	ns_per_call "$tmp/out" >>"$tmp/framerec"
	cpu_ns=$(sed -n 's/^cpu_ns=//p' "$tmp/out")
	echo "$cpu_ns" >>"$tmp/cpu_ns"
	"$helper" frames "$tmp/cap.frc" >"$tmp/frames"
	frames=$(sed -n 's/^frames=\([0-9]*\) .*/\1/p' "$tmp/frames")
	drops=$(sed -n 's/.* drops=\([0-9]*\) .*/\1/p' "$tmp/frames")
	frames_total=$((frames_total + frames))
	drops_total=$((drops_total + drops))
	if [ "$frames" -gt 0 ]; then
		awk -v c="$cpu_ns" -v f="$frames" 'BEGIN { printf "%.4f\n", c / f / 1000 }' \
			>>"$tmp/cpu_per_frame"
	fi

	# Start-up alone: the same recording of a game that makes 10 calls.
	rm -f "$tmp/cap.frc"
	"$helper" cpu -- "$framerec" --quiet -o "$tmp/cap.frc" --lib "$lib" --symbol "$symbol" \
		--ring-kib 16384 -- $game --symbol $variant --burst --frames 10 >"$tmp/out"
	sed -n 's/^cpu_ns=//p' "$tmp/out" >>"$tmp/startup"
	i=$((i + 1))
done

none=$(median "$tmp/none")
empty=$(median "$tmp/empty")
rec=$(median "$tmp/framerec")
cpu=$(median "$tmp/cpu_per_frame")
startup=$(median "$tmp/startup")
cpu_ns=$(median "$tmp/cpu_ns")
echo "probe_cost: $calls calls of Surface::queueBuffer ($variant) per run, $reps runs each way, medians"
echo "  runs (ns/call)  none: $(tr '\n' ' ' <"$tmp/none")"
echo "                 empty: $(tr '\n' ' ' <"$tmp/empty")"
echo "              framerec: $(tr '\n' ' ' <"$tmp/framerec")"
awk -v n="$none" -v e="$empty" -v r="$rec" -v c="$cpu" -v ft="$frames_total" \
	-v dt="$drops_total" -v calls="$calls" -v reps="$reps" -v su="$startup" \
	-v cn="$cpu_ns" 'BEGIN {
	printf "  no probe               %10.1f ns/call\n", n
	printf "  empty uprobe (floor)   %10.1f ns/call   <- baseline\n", e
	printf "  framerec recording     %10.1f ns/call\n", r
	printf "  ratio framerec/empty   %10.3f          (goal <= 1.25): %s\n", r / e,
		(r / e <= 1.25) ? "met" : "NOT met"
	printf "  framerec CPU           %10.3f us per recorded frame (goal <= 2): %s\n", c,
		(c <= 2) ? "met" : "NOT met"
	printf "    of which start-up    %10.1f ms (a 10-call recording: BPF load and verify, symbols)\n",
		su / 1e6
	printf "    each further frame   %10.3f us ((CPU of a run - start-up) / %d frames)\n",
		(cn - su) / calls / 1000, calls
	printf "  frames recorded %d of %d calls, %d reservation failures\n", ft, calls * reps, dt
}'
