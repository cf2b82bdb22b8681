#!/usr/bin/env bash
# Measures what docs/BENCHMARKS.md reports, each against a baseline measured in the same run:
#   1. call_loop: whole-process, N null-handle Sgemm calls, 1 and 2 threads, with and without
#      the shim, on the real cuBLAS and on the stand-in (median of 5 runs each).
#   2. call_overhead_bench (Google Benchmark): direct vs. through the shim's wrapper.
#      (CUBLASSPY_SHIM_BASELINE=<another build>/lib/libcublasspy.so adds that shim beside it)
#   3. reader_bench: records read per second.
#   4. scan_bench (if built): host-path scan throughput.
#   5. With the PyTorch root: real PyTorch's torch.mm loop on the stand-in, whole processes
#      (bench_mm_loop.py) and in lockstep with a control (bench_mm_lockstep.py).
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
# per_call FIELD LIBDIR THREADS PRELOAD ENV...: the median of 5 runs of call_loop's FIELD
# (ns_per_call: wall time a thread sees per call; cpu_ns_per_call: CPU time per call).
per_call() {
  local field=$1 libdir=$2 threads=$3 preload=$4; shift 4
  for i in 1 2 3 4 5; do
    env LD_LIBRARY_PATH="$libdir" LD_PRELOAD="$preload" CUBLASSPY_TRACE="$tmp/t-%p.cbt" "$@" \
      "$loop" "$calls" "$threads" | tr ' ' '\n' | sed -n "s/^$field=//p"
    rm -f "$tmp"/t-*.cbt
  done | median
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "calls per run: $calls; median of 5 runs; ns per call as one thread sees it (wall, then CPU)"
printf '%-8s %-7s %-4s %10s %10s %10s %8s %8s\n' stack threads time baseline trace check added ratio
for stack in real standin; do
  libdir=""
  [ "$stack" = standin ] && libdir="$build/standin"
  for threads in 1 2; do
    for field in ns_per_call cpu_ns_per_call; do
      base=$(per_call $field "$libdir" "$threads" "")
      traced=$(per_call $field "$libdir" "$threads" "$shim")
      checked=$(per_call $field "$libdir" "$threads" "$shim" CUBLASSPY_CHECK=1)
      awk -v s=$stack -v t=$threads -v f=$([ $field = ns_per_call ] && echo wall || echo cpu) \
          -v b=$base -v r=$traced -v c=$checked \
        'BEGIN {printf "%-8s %-7s %-4s %10.1f %10.1f %10.1f %8.1f %8.2f\n", s, t, f, b, r, c, r-b, r/b}'
    done
  done
done
echo
# The *_Baseline benchmarks run another build's shim, CUBLASSPY_SHIM_BASELINE=<its libcublasspy.so>,
# when one is given. PyTorch's four calls per torch.mm need a handle that works: on the stand-in.
if [ -n "${CUBLASSPY_SHIM_BASELINE:-}" ]; then others=-TorchMmCalls; torch_calls=TorchMmCalls
else others='-TorchMmCalls|Baseline'; torch_calls='TorchMmCalls_(Direct|Shim)'; fi
CUBLASSPY_SHIM="$shim" CUBLASSPY_TRACE="$tmp/b-%p.cbt" "$build/test-programs/call_overhead_bench" \
  --benchmark_min_time=0.5 --benchmark_filter="$others" 2>/dev/null
LD_LIBRARY_PATH="$build/standin" CUBLASSPY_SHIM="$shim" CUBLASSPY_TRACE="$tmp/b-%p.cbt" \
  "$build/test-programs/call_overhead_bench" --benchmark_min_time=0.5 --benchmark_filter="$torch_calls" 2>/dev/null
"$build/test-programs/reader_bench" 2>/dev/null
[ -x "$build/test-programs/scan_bench" ] && "$build/test-programs/scan_bench" 2>/dev/null || true

# 5. Real PyTorch (needs the root, scripts/pytorch-root.sh, and the standin12 target): a loop
#    of small torch.mm on the CUDA 12 stand-in, with and without the shim. The lockstep run is
#    the one that resolves a 2% goal on a shared host (docs/BENCHMARKS.md, "2026-12-02, 1901a5c"),
#    to about 0.3% with its default 30 sets ("2026-12-07, 0971f00").
if [ -f "${CUBLASSPY_PYTORCH_ROOT:-/var/cache/cublasspy/pytorch-root}/.cublasspy-root-complete" ]; then
  python3 "$here/tests/pytorch/bench_mm_loop.py" "$here" "$build" 20000 5
  python3 "$here/tests/pytorch/bench_mm_lockstep.py" "$here" "$build" --control
fi
