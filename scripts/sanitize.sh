#!/usr/bin/env bash
# Builds the project with a sanitizer and runs the tests whose code it instruments:
#
#   scripts/sanitize.sh [address] [thread]      # default: both, one after the other
#
# address: AddressSanitizer + UndefinedBehaviorSanitizer into ${BUILD_DIR_ASAN:-build-asan};
# thread: ThreadSanitizer into ${BUILD_DIR_TSAN:-build-tsan} (-DCUBLASSPY_SANITIZE=address|thread).
#
# The shim is never sanitized (interpose/CMakeLists.txt builds it with -fno-sanitize=all: a
# preloaded library with no NEEDED entry cannot bring a sanitizer runtime), and neither are the
# programs the tests run under it. What is sanitized, and tested here, is everything else: the
# argument checks and the host scans (checks.*, scan.*), the trace writer's ring under threads
# and a live reader (hardening.WriterThreads.*), the reader, the report model and the CLI on
# damaged traces and on the fuzz corpus (hardening.ReportRejects.*, hardening.fuzz_corpus.*),
# and the CPU stand-in's self-test (standin.*). SANITIZE_TESTS (a ctest -R regex) and
# SANITIZE_TARGETS (build targets) override the selection.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
kinds=("$@")
[[ ${#kinds[@]} -gt 0 ]] || kinds=(address thread)

targets=(${SANITIZE_TARGETS:-checks_test checks_driver_test scan_test standin standin_selftest
         hardening_writer_test hardening_fuzz_trace_reader hardening_fuzz_config hardening_test
         cublasspy_cli})
tests="${SANITIZE_TESTS:-^(checks|scan|standin)\.|^hardening\.(WriterThreads|ReportRejects|fuzz_corpus)\.}"

for kind in "${kinds[@]}"; do
  case "$kind" in
    address) build="${BUILD_DIR_ASAN:-$here/build-asan}"
             # The stand-in's crash cases need the real signals; nothing else is relaxed.
             export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}"
             export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" ;;
    thread)  build="${BUILD_DIR_TSAN:-$here/build-tsan}"
             export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}" ;;
    *) echo "usage: scripts/sanitize.sh [address] [thread]" >&2; exit 2 ;;
  esac
  echo "== $kind sanitizer: $build"
  # No GPU scan kernel: nvcc's output is never instrumented, and it is the slowest step.
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUBLASSPY_SANITIZE="$kind" \
        -DCUBLASSPY_SCAN_KERNEL=OFF >/dev/null
  cmake --build "$build" -j"${JOBS:-2}" --target "${targets[@]}"
  ctest --test-dir "$build" -R "$tests" -j"${JOBS:-2}" --output-on-failure --timeout 600
done
