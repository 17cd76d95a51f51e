#!/bin/sh
# present_cost.sh - what display capture costs framerec: its CPU per second of recording
# with and without display capture, and each dumpsys run's wall time, at 120 Hz.
#
# The stand-in game renders 120 fps into the stand-in SurfaceFlinger at a 120 Hz refresh
# (--compositor); framerec records it for SECONDS s, alternately with display capture
# (polling standin-dumpsys, the default 500 ms period) and with --no-present (the
# baseline), REPS times each. The CPU is /usr/bin/time's user + sys of framerec and of the
# children it reaped: its dumpsys runs (display capture's cost) and the game (-- COMMAND,
# with its compositor in both ways alike), so the difference of the two is what display
# capture costs; it is quoted per second recorded. The dumpsys figures
# are the summary's (`display:` line: runs, mean and max wall time per run). standin-dumpsys
# is a small program talking to a socket: a device's dumpsys (binder into SurfaceFlinger,
# whose main thread formats the table on 15+) costs more per run; the run count and poll
# period are the same there.
#
# Usage: bench/recorder/present_cost.sh [BUILD_DIR]      (as root; default BUILD_DIR=build)
#   SECONDS_=N  seconds per recording (default 10)      REPS=N  runs each way (default 3)
set -eu

build=${1:-build}
secs=${SECONDS_:-10}
reps=${REPS:-3}
game=$build/bin/standin-game
lib=$build/standin/libgui.so
framerec=$build/bin/framerec
dumpsys=$build/bin/standin-dumpsys
for f in "$game" "$lib" "$framerec" "$dumpsys"; do
	[ -e "$f" ] || { echo "present_cost: $f missing (build first)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "present_cost: needs root (BPF uprobes)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export STANDIN_SF_SOCKET=$dir/sf.sock

# One recording; prints "CPU_S LOG_DISPLAY_LINE" (CPU of framerec itself, from /usr/bin/time).
run() {
	rm -f "$dir/c.frc"
	/usr/bin/time -f "%U %S" -o "$dir/time" "$framerec" --lib "$lib" -d "$secs" \
		-o "$dir/c.frc" "$@" -- "$game" --fps 120 --compositor "$STANDIN_SF_SOCKET" \
		--refresh 120 2>"$dir/log" >/dev/null || true
	awk '{ printf "%.3f", $1 + $2 }' "$dir/time"
}

[ -x /usr/bin/time ] || { echo "present_cost: /usr/bin/time missing (Debian package time)" >&2; exit 1; }
with="" without="" line=""
for i in $(seq "$reps"); do
	with="$with $(run --dumpsys "$dumpsys")"
	line=$(grep 'framerec: display:' "$dir/log" || true)
	without="$without $(run --no-present)"
done
median() { printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mw=$(median "$with") mo=$(median "$without")
echo "present_cost: 120 fps on 120 Hz, $secs s per recording, $reps runs each way (medians)"
echo "  framerec CPU (with its reaped children), --no-present (baseline)  $mo s  = $(echo "$mo $secs" | awk '{ printf "%.3f", 100 * $1 / $2 }') % of one core"
echo "  framerec CPU (with its reaped children), display capture  $mw s  = $(echo "$mw $secs" | awk '{ printf "%.3f", 100 * $1 / $2 }') % of one core"
echo "  display capture adds                    $(echo "$mw $mo $secs" | awk '{ printf "%.3f", 100 * ($1 - $2) / $3 }') % of one core (goal <= 1)"
echo "  runs with display capture:$with s; without:$without s"
echo "  last run's $line"
