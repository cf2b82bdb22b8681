#!/usr/bin/env bash
# The README's demo: set up, build, then run a real program (examples/training_step.cpp, a
# PyTorch-like training step) under the shim three times and print each report:
#   1. on this machine's real CUDA libraries (without a GPU driver they fail for real; on a GPU
#      machine the step runs clean),
#   2. on the CPU stand-in with an asynchronous illegal-address fault injected into the fp16
#      GEMM, with --sync pinning it on the call that caused it,
#   3. on the stand-in with a NaN in an input, found by --scan inputs.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
"$here/scripts/setup.sh" || exit 1
"$here/scripts/build.sh" >/dev/null || exit 1
cublasspy="$build/bin/cublasspy"
step="$build/bin/training_step"
out="$(mktemp -d "${TMPDIR:-/tmp}/cublasspy-demo.XXXXXX")"

# `run --summary never`: the report printed after each run says it all, once.
banner() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

banner "1. the real CUDA libraries of this machine"
"$cublasspy" run --summary never -o "$out/real-%p.cbt" -- "$step"
"$cublasspy" report "$out"/real-*.cbt

banner "2. CPU stand-in: an illegal address inside cublasGemmEx, pinned with --sync"
LD_LIBRARY_PATH="$build/standin" STANDIN_ASYNC_ERROR=cublasGemmEx:1:700 \
  "$cublasspy" run --summary never --sync -o "$out/async-%p.cbt" -- "$step"
"$cublasspy" report "$out"/async-*.cbt

banner "3. CPU stand-in: a NaN in the Linear layer's input, found by --scan inputs"
LD_LIBRARY_PATH="$build/standin" "$cublasspy" run --summary never --scan inputs -o "$out/nan-%p.cbt" -- "$step" --nan
"$cublasspy" report "$out"/nan-*.cbt

echo
echo "traces kept in $out"
