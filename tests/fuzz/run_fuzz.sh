#!/bin/sh
# Run a libFuzzer target for $1 seconds on a scratch copy of the seed corpus.
# Env: FUZZER (binary), CORPUS (committed seeds, never modified), WORK (scratch dir);
# optional SEEDS (files built by the build, e.g. libraries, added to the scratch corpus) and
# MAX_LEN (the longest input, 8192 unless set: a seed longer than it would be cut).
# Exits non-zero on any finding (crash, leak, sanitizer report, timeout).
set -eu
secs=${1:-60}
rm -rf "$WORK"
mkdir -p "$WORK/corpus" "$WORK/artifacts"
cp "$CORPUS"/* "$WORK/corpus/"
for seed in ${SEEDS:-}; do
	cp "$seed" "$WORK/corpus/"
done
exec "$FUZZER" -max_total_time="$secs" -max_len="${MAX_LEN:-8192}" -timeout=10 -rss_limit_mb=512 \
	-print_final_stats=1 -artifact_prefix="$WORK/artifacts/" "$WORK/corpus"
