#!/bin/sh
# Run a libFuzzer target for $1 seconds on a scratch copy of the seed corpus.
# Env: FUZZER (binary), CORPUS (committed seeds, never modified), WORK (scratch dir).
# Exits non-zero on any finding (crash, leak, sanitizer report, timeout).
set -eu
secs=${1:-60}
rm -rf "$WORK"
mkdir -p "$WORK/corpus" "$WORK/artifacts"
cp "$CORPUS"/* "$WORK/corpus/"
exec "$FUZZER" -max_total_time="$secs" -max_len=8192 -timeout=10 -rss_limit_mb=512 \
	-print_final_stats=1 -artifact_prefix="$WORK/artifacts/" "$WORK/corpus"
