#!/usr/bin/env bash
# Measures what docs/BENCHMARKS.md reports, each against a baseline measured in the same run:
#   1. call_loop: whole-process, N null-handle Sgemm calls, 1 and 2 threads, with and without
#      the shim, on the real cuBLAS and on the stand-in (median of 5 runs each).
#   2. call_overhead_bench (Google Benchmark): direct vs. through the shim's wrapper.
#   3. reader_bench: records read per second.
#   4. scan_bench (if built): host-path scan throughput.
# usage: scripts/bench.sh [CALLS]      (build first: scripts/build.sh)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
calls="${1:-2000000}"
shim="$build/lib/libcublasspy.so"
loop="$build/test-programs/call_loop"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
per_call() {  # per_call LIBDIR THREADS PRELOAD ENV...
  local libdir=$1 threads=$2 preload=$3; shift 3
  for i in 1 2 3 4 5; do
    env LD_LIBRARY_PATH="$libdir" LD_PRELOAD="$preload" CUBLASSPY_TRACE="$tmp/t-%p.cbt" "$@" \
      "$loop" "$calls" "$threads" | sed 's/.*ns_per_call=\([0-9.]*\).*/\1/'
    rm -f "$tmp"/t-*.cbt
  done | median
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "calls per run: $calls; median of 5 runs; ns per call as one thread sees it"
printf '%-10s %-8s %12s %12s %12s %10s %10s\n' stack threads baseline trace check added ratio
for stack in real standin; do
  libdir=""
  [ "$stack" = standin ] && libdir="$build/standin"
  for threads in 1 2; do
    base=$(per_call "$libdir" "$threads" "")
    traced=$(per_call "$libdir" "$threads" "$shim")
    checked=$(per_call "$libdir" "$threads" "$shim" CUBLASSPY_CHECK=1)
    awk -v s=$stack -v t=$threads -v b=$base -v r=$traced -v c=$checked \
      'BEGIN {printf "%-10s %-8s %12.1f %12.1f %12.1f %10.1f %10.2f\n", s, t, b, r, c, r-b, r/b}'
  done
done
echo
CUBLASSPY_SHIM="$shim" CUBLASSPY_TRACE="$tmp/b-%p.cbt" "$build/test-programs/call_overhead_bench" \
  --benchmark_min_time=0.5 2>/dev/null
"$build/test-programs/reader_bench" 2>/dev/null
[ -x "$build/test-programs/scan_bench" ] && "$build/test-programs/scan_bench" 2>/dev/null || true
