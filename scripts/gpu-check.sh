#!/usr/bin/env bash
# GPU acceptance check: builds cublasspy, then runs real PyTorch workloads under the
# shim on one GPU and checks that each problem is found at the right call. Under 8 minutes on
# one GPU. Writes results.json (and each run's trace and report) under OUT_DIR; exits non-zero
# on any miss. Needs an NVIDIA GPU, its driver, the CUDA toolkit and PyTorch with CUDA.
#
# usage: scripts/gpu-check.sh OUT_DIR
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${1:?usage: gpu-check.sh OUT_DIR}" && cd "$1" && pwd)"
build="${BUILD_DIR:-$here/build}"

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU or driver here (nvidia-smi fails); this check needs one" >&2
  exit 2
fi
if ! python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  echo "gpu-check: PyTorch with CUDA is not importable (python3 -c 'import torch')" >&2
  exit 2
fi
start=$(date +%s)
# Tests are not needed here: build the shim, the tool and the demo only.
BUILD_TYPE=Release "$here/scripts/build.sh" -DCUBLASSPY_BUILD_TESTS=OFF >"$out/build.log" 2>&1 || {
  echo "gpu-check: build failed, see $out/build.log" >&2
  exit 2
}
PYTHONUNBUFFERED=1 python3 "$here/scripts/gpu/gpu_check.py" --cublasspy "$build/bin/cublasspy" --out "$out"
rc=$?
echo "gpu-check: $(( $(date +%s) - start )) s in all; results in $out/results.json"
exit $rc
