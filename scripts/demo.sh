#!/usr/bin/env bash
# The README's demo: set up, build what the demo runs, then run a real program
# (examples/training_step.cpp, a PyTorch-like training step) under the shim three times and
# print each report:
#   1. on this machine's real CUDA libraries (without a GPU driver they fail for real; on a GPU
#      machine the step runs clean),
#   2. on the CPU stand-in with an asynchronous illegal-address fault injected into the fp16
#      GEMM, with --sync pinning it on the call that caused it,
#   3. on the stand-in with a NaN in an input, found by --scan inputs.
#
# usage: scripts/demo.sh [--pytorch]
#
# --pytorch runs real PyTorch instead, in the root that scripts/pytorch-root.sh builds (as root),
# on the CUDA 12 stand-in: an Embedding(10, 4) looked up with index 12, then a Linear; the
# lookup's kernel faults at its launch, and the report names that kernel, the Python line and
# the usual cause.
#
# The build goes to ${BUILD_DIR:-build-demo}, a folder of its own: only the demo's targets are
# built (the shim, the tool, a stand-in, the example), without the tests, at -O1 without debug
# information (half the compile time of scripts/build.sh's -O2 -g, which the demo does not need),
# and its output goes to a log in that folder, shown only when the build fails.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$here/build-demo}"
pytorch=0
case "${1:-}" in
  "") ;;
  --pytorch) pytorch=1 ;;
  *) echo "usage: scripts/demo.sh [--pytorch]" >&2; exit 2 ;;
esac

root="${CUBLASSPY_PYTORCH_ROOT:-/var/cache/cublasspy/pytorch-root}"
if ((pytorch)) && [ ! -f "$root/.cublasspy-root-complete" ]; then
  echo "demo: no PyTorch root at $root. Build it once (as root; about 5 minutes, 4.2 GB) with" >&2
  echo "      scripts/pytorch-root.sh, then run scripts/demo.sh --pytorch again." >&2
  exit 1
fi
if ((pytorch)) && [ "$(id -u)" -ne 0 ]; then
  echo "demo: --pytorch runs PyTorch in its root with chroot and mounts: run it as root." >&2
  exit 1
fi

"$here/scripts/setup.sh" || exit 1

# The shim and the tool (building the tool builds the shim), plus what this demo runs.
if ((pytorch)); then
  targets=(cublasspy_cli standin12)
  what="the shim, the CLI and the CUDA 12 stand-in"
else
  targets=(cublasspy_cli standin training_step)
  what="the shim, the CLI, the stand-in and the example"
fi
log="$build/demo-build.log"
mkdir -p "$build" || exit 1
echo "demo: building $what ... (log: $log)"
if ! { cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
         -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCUBLASSPY_BUILD_TESTS=OFF &&
       cmake --build "$build" -j"${JOBS:-2}" --target "${targets[@]}"; } >"$log" 2>&1; then
  echo "demo: the build failed; the end of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi

cublasspy="$build/bin/cublasspy"
out="$(mktemp -d "${TMPDIR:-/tmp}/cublasspy-demo.XXXXXX")"

# `run --summary never`: the report printed after each run says it all, once.
banner() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if ((pytorch)); then
  # The traces and the script live in $out, bound into the root at the same path, like the
  # repository and the build: every path means the same inside and out.
  cat >"$out/embedding.py" <<'EOF'
import torch

table, lin = torch.nn.Embedding(10, 4).cuda(), torch.nn.Linear(4, 3).cuda()
ids = torch.tensor([1, 12]).cuda()   # 12: past the table's 10 rows
h = table(ids)
print(lin(h).cpu().tolist())
EOF
  # The stand-in plays a working GPU: the machine the shim records is its healthy one (an NVIDIA
  # module loaded, its device files), not this driverless one, whose findings would come first.
  machine="$here/standin/healthy-machine"
  binds=(--bind "$here" --bind "$out")
  case "$build/" in "$here"/*) ;; *) binds+=(--bind "$build") ;; esac

  banner "PyTorch on the CUDA 12 stand-in: Embedding(10, 4) looked up with index 12, then a Linear"
  echo "(the stand-in makes the lookup's kernel fault at its launch, as a device-side assert would)"
  "$cublasspy" run --summary never -o "$out/torch-%p.cbt" -- \
    "$here/scripts/in-pytorch-root.sh" "${binds[@]}" \
      --env LD_LIBRARY_PATH="$build/standin-cuda12" --env CUBLASSPY_MACHINE_ROOT="$machine" \
      --env STANDIN_ASYNC_ERROR=cudaLaunchKernel:1:710 --cwd "$out" -- python3 "$out/embedding.py"
  "$cublasspy" report "$out"/torch-*.cbt
  echo
  echo "traces kept in $out"
  exit 0
fi

step="$build/bin/training_step"

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
echo
echo "Next, real PyTorch: scripts/demo.sh --pytorch (as root, once scripts/pytorch-root.sh has"
echo "built its root) shows an embedding index out of range found in PyTorch's own kernel."
