#!/usr/bin/env bash
# test.sh - set up and run the whole test suite (the README's test command; .ci/run calls it).
#
#   1. build/          the normal -Werror build: every test (unit, golden, end-to-end BPF);
#                      scripts/build-matrix.sh then compiles its sources with GCC and clang
#                      at every build type's flags (a warning fails the run)
#   2. build-asan/     the same sources under ASan + UBSan: all but the BPF end-to-end tests
#                      (recorder.*; framerec's recorder_cli.* tests, which need no probe, run)
#   3. build-fuzz/     libFuzzer + ASan/UBSan: the capture reader fuzzed for 60 s, the writer,
#                      the text form, the analyzer (replays, renderers) and framerec's ELF
#                      symbol scan (built in, without framerec) and the dumpsys text parser
#                      (display/) 20 s each
#   4. build-android/  the static arm64 build; its unit tests under qemu-aarch64
#   5. build-android/  arm64vm: framerec on a real arm64 kernel under qemu-system-aarch64
#                      (tests/arm64vm; SKIPPED, saying why, when qemu or the kernel is missing)
#
# Each stage prints CTest's summary; the last line totals them. Exit 0 only if all pass.
set -uo pipefail
# A golden test run with this set rewrites its expectation instead of checking it: a test
# run that cannot fail. Rewriting is scripts/update-goldens.sh's job, never this one's.
if [ -n "${FRAMEANALYZE_UPDATE_GOLDEN+set}" ]; then
	echo "test.sh: FRAMEANALYZE_UPDATE_GOLDEN is set: golden tests would rewrite their" >&2
	echo "  expectations instead of checking them. Unset it; to accept a heuristic change" >&2
	echo "  run scripts/update-goldens.sh and review the diff." >&2
	exit 2
fi
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
status=0

stage() { printf '\n==== %s\n' "$*"; }

# run_ctest NAME BUILD_DIR [ctest args...]: run CTest, keep its JUnit report for the total.
run_ctest() {
	local name=$1 dir=$2
	shift 2
	ctest --test-dir "$dir" --output-on-failure --output-junit "$results/$name.xml" "$@" ||
		status=1
}

stage "build (normal, -Werror)"
scripts/setup.sh build || exit 1

# Every compiler, every build type: a Release or clang build must not break for users.
stage "build matrix (GCC and clang x Debug, Release, RelWithDebInfo, MinSizeRel; warnings fail)"
scripts/build-matrix.sh build || status=1

stage "build-asan (AddressSanitizer + UndefinedBehaviorSanitizer)"
scripts/setup.sh build-asan -DFRC_SANITIZE=ON || exit 1

stage "build-fuzz (libFuzzer)"
scripts/setup.sh build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	-DFRC_FUZZ=ON -DFRC_RECORDER=OFF -DFRC_ANALYZER=ON || exit 1

stage "build-android (static arm64)"
scripts/build-android.sh || exit 1

stage "tests: build-android under qemu-aarch64"
run_ctest android build-android -j "$jobs" -LE arm64vm

stage "tests: build-android on an arm64 kernel (qemu-system-aarch64)"
t_vm=$SECONDS
run_ctest arm64vm build-android -j "$jobs" -L arm64vm
echo "arm64vm stage: $((SECONDS - t_vm)) s"

stage "tests: build-fuzz (reader 60 s; roundtrip, text, analyze, symbols, dumpsys 20 s each)"
run_ctest fuzz build-fuzz -R '^fuzz\.'

stage "tests: build-asan (all but the BPF end-to-end tests)"
# recorder.* needs the probe (RUN_SERIAL, minutes); recorder_cli.* (framerec's command line,
# refusals, --sysfs-only) needs none and is not excluded: '^recorder\.' does not match it.
run_ctest asan build-asan -j "$jobs" -E '^(recorder|bench)\.'

stage "tests: build (everything)"
run_ctest main build -j "$jobs"

# One total over the five runs, from CTest's JUnit reports.
passed=0 failed=0 skipped=0
for xml in "$results"/*.xml; do
	[ -f "$xml" ] || continue
	# The <testsuite> attributes come first, one per line.
	t=$(grep -m1 -oE '\btests="[0-9]+"' "$xml" | tr -dc 0-9)
	f=$(grep -m1 -oE '\bfailures="[0-9]+"' "$xml" | tr -dc 0-9)
	s=$(grep -m1 -oE '\bskipped="[0-9]+"' "$xml" | tr -dc 0-9)
	passed=$((passed + ${t:-0} - ${f:-0} - ${s:-0}))
	failed=$((failed + ${f:-0}))
	skipped=$((skipped + ${s:-0}))
done
[ "$failed" -eq 0 ] || status=1
printf '\ntotal: %d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
exit $status
