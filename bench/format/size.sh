#!/bin/sh
# Compactness benchmark of the .frc format (not a test).
#
# Writes the issue's stream - N frames (default 100000) of one PID at 60 Hz, uniform
# +-200 us jitter on every timestamp, 3 buffers in rotation, fixed-seed PRNG - as .frc
# captures with several chunk durations, and as raw 24-byte records compressed with the
# real `zstd -19` CLI (the baseline), and prints bytes/frame side by side.
#
# Then the cost of recording the Surface (issue 10): the same stream with its one Surface
# recorded, and a stream where every 6th frame is a 10 fps overlay surface's, without and
# with its two Surfaces recorded; each row's "vs no surface" is the bytes/frame it adds.
#
# usage: bench/format/size.sh [BUILD_DIR] [FRAMES]
#   e.g. bench/format/size.sh build-format 100000
set -eu
build=${1:-build}
frames=${2:-100000}
gen=$build/bin/frc_bench_gen
if [ ! -x "$gen" ]; then
	echo "size.sh: $gen not found; build first (cmake --build $build --target frc_bench_gen)" >&2
	exit 2
fi
command -v zstd >/dev/null || { echo "size.sh: the zstd CLI is needed for the baseline" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gen" "$frames" 1000 "$tmp/f1000.frc" "$tmp/raw.bin"
zstd -q -19 -f "$tmp/raw.bin" -o "$tmp/raw.zst"
for ms in 3000 10000 60000 4000000000; do
	"$gen" "$frames" "$ms" "$tmp/f$ms.frc"
done
zstd -q -t "$tmp/f1000.frc" # the capture is a valid zstd stream

size() { stat -c %s "$1"; }
base=$(size "$tmp/raw.zst")
echo "frc size benchmark: $frames frames, 1 PID, 60 Hz, uniform +-200 us jitter, 3 buffers in rotation"
echo "entropy bound: log2(400001)/8 = 2.330 bytes/frame; target <= 3.000"
printf '%-44s %10s %12s %12s\n' "encoding" "bytes" "bytes/frame" "vs zstd -19"
row() {
	awk -v n="$2" -v f="$frames" -v b="$base" -v l="$1" \
		'BEGIN { printf "%-44s %10d %12.3f %12.3f\n", l, n, n / f, n / b }'
}
row "raw 24-byte records" "$(size "$tmp/raw.bin")"
row "baseline: zstd -19 of raw records" "$base"
row ".frc flush_ms=1000 (default, 1 s chunks)" "$(size "$tmp/f1000.frc")"
row ".frc flush_ms=3000 (3 s chunks)" "$(size "$tmp/f3000.frc")"
row ".frc flush_ms=10000 (10 s chunks)" "$(size "$tmp/f10000.frc")"
row ".frc flush_ms=60000 (1 min chunks)" "$(size "$tmp/f60000.frc")"
row ".frc chunks by size only (1 MiB bodies)" "$(size "$tmp/f4000000000.frc")"

# The Surface column (FORMAT.md 4.5): bytes/frame added against the same frames without it.
for ms in 1000 4000000000; do
	"$gen" --surface "$frames" "$ms" "$tmp/s$ms.frc"
	"$gen" --overlay "$frames" "$ms" "$tmp/o$ms.frc"
	"$gen" --overlay --surface "$frames" "$ms" "$tmp/os$ms.frc"
done
echo
printf '%-52s %10s %12s %14s\n' "with surfaces" "bytes" "bytes/frame" "vs no surface"
srow() {
	awk -v n="$2" -v f="$frames" -v b="$3" -v l="$1" \
		'BEGIN { printf "%-52s %10d %12.3f %+14.3f\n", l, n, n / f, (n - b) / f }'
}
srow "one surface, 1 s chunks" "$(size "$tmp/s1000.frc")" "$(size "$tmp/f1000.frc")"
srow "one surface, 1 MiB chunks" "$(size "$tmp/s4000000000.frc")" \
	"$(size "$tmp/f4000000000.frc")"
srow "main + 10 fps overlay, no surface, 1 s chunks" "$(size "$tmp/o1000.frc")" \
	"$(size "$tmp/o1000.frc")"
srow "main + 10 fps overlay, two surfaces, 1 s chunks" "$(size "$tmp/os1000.frc")" \
	"$(size "$tmp/o1000.frc")"
srow "main + 10 fps overlay, two surfaces, 1 MiB chunks" "$(size "$tmp/os4000000000.frc")" \
	"$(size "$tmp/o4000000000.frc")"
