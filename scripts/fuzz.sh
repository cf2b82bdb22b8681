#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang into ${FUZZ_BUILD_DIR:-build-fuzz} and runs
# each for ${FUZZ_SECONDS:-60} seconds, starting from the committed seed corpus. New inputs the
# fuzzer finds go to <build>/corpus-<target> (never into the repository); a crash, a hang
# (-timeout) or an oversized allocation (-malloc_limit_mb / -rss_limit_mb) stops the run with
# the input saved as <build>/artifacts-<target>/crash-* (or timeout-*, oom-*), and this script
# fails. Replay one with: <build>/fuzz_<target> <file>.
#
#   scripts/fuzz.sh                      # both targets, 60 s each (.ci/run: FUZZ_SECONDS=45)
#   FUZZ_SECONDS=300 scripts/fuzz.sh     # the longer run docs/RELIABILITY.md records
#   scripts/fuzz.sh trace_reader         # one target
#
# The same build serves scripts/sanitize.sh address (the CLI and the corpus replay, ASan+UBSan).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$here/build-fuzz}"
seconds="${FUZZ_SECONDS:-60}"
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(trace_reader config)

cmake -S "$here/tests/fuzz" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"${JOBS:-2}" --target "${targets[@]/#/fuzz_}"

# Per target: the largest input it takes (a trace with a 16-record ring is ~250 KiB; with a
# launch ring and a 1 MiB side area, as two of the corpus traces have, ~1.6 MiB).
declare -A max_len=([trace_reader]=2097152 [config]=4096)
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}"
for target in "${targets[@]}"; do
  corpus="$build/corpus-$target"
  artifacts="$build/artifacts-$target/"
  mkdir -p "$corpus" "$artifacts"
  echo "== fuzz_$target: ${seconds}s from tests/fuzz/corpus/$target"
  log="$build/fuzz-$target.log"
  status=0
  "$build/fuzz_$target" "$corpus" "$here/tests/fuzz/corpus/$target" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
      -max_len="${max_len[$target]}" -artifact_prefix="$artifacts" -print_final_stats=1 \
      >"$log" 2>&1 || status=$?
  grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::|SUMMARY|ERROR" "$log" || true
  if [[ $status -ne 0 ]] || compgen -G "$artifacts*" >/dev/null; then
    echo "fuzz_$target failed (exit $status); the log is $log, the inputs:" >&2
    ls -la "$artifacts" >&2
    exit 1
  fi
done
