#!/usr/bin/env bash
# Builds the project's tests with a sanitizer and runs those whose code it instruments:
#
#   scripts/sanitize.sh [address] [thread]      # default: both, one after the other
#
# address: AddressSanitizer + UndefinedBehaviorSanitizer (gcc) into ${BUILD_DIR_ASAN:-build-asan};
# thread: ThreadSanitizer (gcc) into ${BUILD_DIR_TSAN:-build-tsan} (-DCUBLASSPY_SANITIZE=...).
#
# The shim is never sanitized (interpose/CMakeLists.txt builds it with -fno-sanitize=all: a
# preloaded library with no NEEDED entry cannot bring a sanitizer runtime, which must come
# first in the library list), and neither are the programs the integration tests run under it:
# under a sanitizer shim.*, tools.* and most of hardening.* would test the uninstrumented shim
# in uninstrumented programs, so they are not run here. What is sanitized and run:
#
#   both kinds  checks.*, scan.*            the argument checks, the host scans and the shim's
#                                           scan/dump/driver-check code, linked into the tests
#               hardening.Rings/WriterThreads.*   the trace writer's ring under 16 threads with
#                                           a live reader (the shim's writer, in-process)
#               hardening.ReaderAccess.*, ReaderVersions.*   the reader's copy and mapping
#                                           paths, format version 1
#               hardening.fuzz_corpus.config  the settings parser on the committed corpus
#   address     hardening.ReportRejects.*   `cublasspy report` on damaged traces, and
#               fuzz_trace_reader -runs=0   the committed trace corpus through the reader, the
#                                           report model, the diagnoses and the exports.
#
# The last two use the clang ASan+UBSan build of scripts/fuzz.sh (${FUZZ_BUILD_DIR:-build-fuzz},
# built here if it is not there yet: the CLI as fuzz_cli, and fuzz_trace_reader), so that the
# reader, the diagnoses and the tools -- most of the project's compile time -- are compiled with
# ASan+UBSan once for both steps. Under TSan they are left out: they run on one thread.
# The CPU stand-in's self-test (standin.*) is test scaffolding and is left out too.
#
# SANITIZE_TESTS (a ctest -R regex) and SANITIZE_TARGETS (build targets) override the gcc
# build's selection for every kind given.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
kinds=("$@")
[[ ${#kinds[@]} -gt 0 ]] || kinds=(address thread)
jobs="${JOBS:-2}"

common_targets="checks_test checks_driver_test scan_test hardening_writer_test hardening_fuzz_config"
common_tests='^(checks|scan)\.|^hardening\.(Rings/WriterThreads\.|ReaderAccess\.|ReaderVersions\.|fuzz_corpus\.config$)'

for kind in "${kinds[@]}"; do
  case "$kind" in
    address) build="${BUILD_DIR_ASAN:-$here/build-asan}"
             targets="${SANITIZE_TARGETS:-$common_targets hardening_rejects_test}"
             tests="${SANITIZE_TESTS:-$common_tests}"
             export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}"
             export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" ;;
    thread)  build="${BUILD_DIR_TSAN:-$here/build-tsan}"
             targets="${SANITIZE_TARGETS:-$common_targets}"
             tests="${SANITIZE_TESTS:-$common_tests}"
             export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}" ;;
    *) echo "usage: scripts/sanitize.sh [address] [thread]" >&2; exit 2 ;;
  esac
  echo "== $kind sanitizer: $build"
  # No GPU scan kernel: nvcc's output is never instrumented, and it is the slowest step.
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUBLASSPY_SANITIZE="$kind" \
        -DCUBLASSPY_SCAN_KERNEL=OFF >/dev/null
  # shellcheck disable=SC2086
  cmake --build "$build" -j"$jobs" --target $targets
  ctest --test-dir "$build" -R "$tests" -j"$jobs" --output-on-failure --timeout 600

  if [[ "$kind" == address && -z "${SANITIZE_TESTS:-}" ]]; then
    fuzz="${FUZZ_BUILD_DIR:-$here/build-fuzz}"
    echo "== address sanitizer, clang: the trace corpus and the CLI from $fuzz"
    cmake -S "$here/tests/fuzz" -B "$fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
          -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$fuzz" -j"$jobs" --target fuzz_trace_reader fuzz_cli
    # Every committed trace once through the reader, the report model, the diagnoses, the text,
    # JSON and Perfetto output (what hardening.fuzz_corpus.trace_reader does under gcc).
    log="$fuzz/replay-trace-corpus.log"
    if ! "$fuzz/fuzz_trace_reader" -runs=0 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
           "$here/tests/fuzz/corpus/trace_reader" >"$log" 2>&1; then
      cat "$log" >&2
      echo "fuzz_trace_reader failed on the committed corpus (log: $log)" >&2
      exit 1
    fi
    grep -E "INITED|DONE" "$log" || true
    CUBLASSPY_REJECTS_TOOL="$fuzz/cli/cublasspy" \
      ctest --test-dir "$build" -R '^hardening\.ReportRejects\.' -j"$jobs" --output-on-failure --timeout 600
  fi
done
