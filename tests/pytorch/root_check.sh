# Sourced by the tests that need the PyTorch root: sets $root, or fails the test loudly (a
# missing root is a failure, never a skip).
root="${CUBLASSPY_PYTORCH_ROOT:-/var/cache/cublasspy/pytorch-root}"
if [ ! -f "$root/.cublasspy-root-complete" ]; then
  echo "FAIL: no complete PyTorch root at $root: build it with scripts/pytorch-root.sh (as root)" >&2
  exit 1
fi
