#!/usr/bin/env bash
# Regenerates the seed corpus of the trace-reader fuzz target: real traces written by the real
# shim while the test programs ran on the CPU stand-in (and one on the real, driverless CUDA
# libraries), each with a 16-record ring so the files stay small (~250 KiB: the header, process
# section and function table are most of it), without a launch ring or side area but in the three
# traces that show those (launches_pending_error, located_failure, launch_pinned_located:
# ~1.3-1.6 MiB, since the side
# area is at least 1 MiB and the kernel table 256 KiB). Every trace shows a different way a
# process ends or a different kind of record.
#
#   tests/fuzz/make_corpus.sh BUILD_DIR
#
# BUILD_DIR is an ordinary build with the tests (the stand-in and the programs built). The
# files replace tests/fuzz/corpus/trace_reader/*.cbt, except v1-*.cbt to v10-*.cbt: traces of
# format versions 1 to 10, kept as they were written, since the reader goes on reading those
# versions (tests/hardening/reader_*_test.cpp read them; copy a few current traces to v11-*
# before regenerating for version 12).
set -euo pipefail
build="$(cd "${1:?usage: make_corpus.sh BUILD_DIR}" && pwd)"
out="$(cd "$(dirname "$0")" && pwd)/corpus/trace_reader"
programs="$build/test-programs"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
find "$out" -name '*.cbt' ! -name 'v1-*' ! -name 'v2-*' ! -name 'v3-*' ! -name 'v4-*' ! -name 'v5-*' ! -name 'v6-*' ! -name 'v7-*' ! -name 'v8-*' ! -name 'v9-*' ! -name 'v10-*' -delete

# trace NAME [VAR=VALUE...] -- PROGRAM ARGS...: runs PROGRAM under the shim, keeps its trace.
trace() {
  local name="$1"
  shift
  local vars=()
  while [[ "$1" != "--" ]]; do vars+=("$1"); shift; done
  shift
  rm -f "$work"/*.cbt
  (cd "$work" && env LD_PRELOAD="$build/lib/libcublasspy.so" \
      LD_LIBRARY_PATH="$build/standin" CUBLASSPY_RING=16 CUBLASSPY_LAUNCH_RING=0 CUBLASSPY_SIDE_MB=0 \
      CUBLASSPY_TRACE="$work/t-%p.cbt" "${vars[@]}" "$@" >/dev/null 2>&1) 2>/dev/null || true  # some of them crash on purpose
  local made=("$work"/t-*.cbt)
  cp "${made[0]}" "$out/$name.cbt"
}

trace sgemm_loop_exited -- "$programs/shim_sgemm_loop" 3
trace sgemm_segfault_in_call STANDIN_CRASH=cublasSgemm_v2:2 -- "$programs/shim_sgemm_loop" 4
trace first_failure_wrapped STANDIN_FAIL=cublasSgemm_v2:5:13 -- "$programs/shim_sgemm_loop" 40
trace async_error_synced CUBLASSPY_SYNC=1 STANDIN_ASYNC_ERROR=cublasSgemm_v2:2:700 -- "$programs/shim_sgemm_loop" 3
trace threads_checks_scans CUBLASSPY_CHECK=1 CUBLASSPY_SCAN=all -- "$programs/shim_sgemm_threads" 4 20
trace gemm_ex_half_nested -- "$programs/shim_gemm_ex_half"
trace lt_matmul_row_major -- "$programs/shim_lt_matmul_row_major"
trace dlopen_text_arguments -- "$programs/shim_dlopen_local"
trace no_driver STANDIN_NO_DRIVER=1 -- "$programs/shim_driverless_calls"
# A ring of 128: threads claim slots two at a time (format version 2's blocks).
trace threads_claim_blocks CUBLASSPY_RING=128 -- "$programs/shim_sgemm_threads" 4 100
# Version 4's sections: a faulting memset, recorded in the launch ring, found pending before the
# GEMM under CUBLASSPY_SYNC; and a failing Sgemm with its native location in the side area.
trace launches_pending_error CUBLASSPY_LAUNCH_RING=16 CUBLASSPY_SIDE_MB=1 CUBLASSPY_SYNC=1 \
    STANDIN_ASYNC_ERROR=cudaMemsetAsync:1:700 -- "$programs/diag_workload" --memset-first --gemms 2
trace located_failure CUBLASSPY_SIDE_MB=1 STANDIN_FAIL=cublasSgemm_v2:1:13 -- "$programs/diag_located"
# Version 6: the memset pinned under CUBLASSPY_SYNC=all is the first failed launch, with its
# native location in the side area (FileHeader::first_failed_launch, first_failed_launch_side).
trace launch_pinned_located CUBLASSPY_LAUNCH_RING=16 CUBLASSPY_SIDE_MB=1 CUBLASSPY_SYNC=all \
    STANDIN_ASYNC_ERROR=cudaMemsetAsync:1:700 -- "$programs/diag_workload" --memset-first --gemms 2

# Version 8: a GEMM captured into a CUDA graph, the graph's capture, instantiation and launches in
# the launch ring, and the first launch on memory freed since the capture (CUBLASSPY_CHECK).
trace graph_replay_freed CUBLASSPY_LAUNCH_RING=64 CUBLASSPY_CHECK=1 -- "$programs/diag_graph" --free-b --launches 2

# Version 9: a call failed 200 times from one place, then once from another: two failure sites,
# each with its first failure and its native location, the later failures counted.
trace failure_sites_storm CUBLASSPY_SIDE_MB=1 STANDIN_FAIL=cublasSgemm_v2:*:13 -- "$programs/diag_failure_storm" 200

# A kernel launch without a kernel image (209), with what the shim records of it: the device's
# compute capability and the architectures of the program's .nv_fatbin (image.* entries).
trace no_kernel_image CUBLASSPY_LAUNCH_RING=16 -- "$programs/diag_kernel_image_lacks"

# A hang killed by SIGKILL: the call stays in flight, the file says "running".
rm -f "$work"/*.cbt
(cd "$work" && LD_PRELOAD="$build/lib/libcublasspy.so" LD_LIBRARY_PATH="$build/standin" \
   CUBLASSPY_RING=16 CUBLASSPY_LAUNCH_RING=0 CUBLASSPY_SIDE_MB=0 CUBLASSPY_TRACE="$work/t-%p.cbt" STANDIN_HANG=cublasSgemm_v2:2 \
   exec "$programs/shim_sgemm_loop" 3 >/dev/null 2>&1) &
hung=$!
sleep 2
kill -KILL "$hung" 2>/dev/null || true
wait "$hung" 2>/dev/null || true
cp "$work"/t-*.cbt "$out/hang_killed.cbt"

# The child of a fork: marked as such, with the parent's numbers.
rm -f "$work"/*.cbt
(cd "$work" && LD_PRELOAD="$build/lib/libcublasspy.so" LD_LIBRARY_PATH="$build/standin" \
   CUBLASSPY_RING=16 CUBLASSPY_LAUNCH_RING=0 CUBLASSPY_SIDE_MB=0 CUBLASSPY_TRACE="$work/t-%p.cbt" \
   "$programs/shim_fork_after_init" >"$work/out" 2>&1)
child="$(sed -n 's/.*child \([0-9]*\).*/\1/p' "$work/out")"
cp "$work/t-$child.cbt" "$out/forked_child.cbt"

# Version 5: an _exit, which no exit handler sees, under `cublasspy run`, which writes the wait
# status it saw into the trace (launcher_wait, launcher_status, launcher_pid).
rm -f "$work"/*.cbt
(cd "$work" && LD_LIBRARY_PATH="$build/standin" CUBLASSPY_RING=16 CUBLASSPY_LAUNCH_RING=0 CUBLASSPY_SIDE_MB=0 \
   "$build/bin/cublasspy" run --summary never -o "$work/t-%p.cbt" -- "$programs/process_end" _exit 3 \
   >/dev/null 2>&1) || true
cp "$work"/t-*.cbt "$out/launcher_underscore_exit.cbt"

ls -la "$out"
du -sh "$out"
