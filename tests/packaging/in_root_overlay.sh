#!/bin/sh
# Runs CMD (on the host) with CUBLASSPY_PYTORCH_ROOT naming a throwaway copy-on-write view of
# the cached PyTorch root: an overlay whose writable layer is a tmpfs, in a private mount
# namespace, so what CMD installs there (a .deb, a venv) vanishes with it and the cached root,
# which other tests use at the same time, is never written. CMD typically calls
# scripts/in-pytorch-root.sh, whose own namespace inherits the overlay.
# Usage: in_root_overlay.sh CMD [ARG...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pytorch/root_check.sh"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cublasspy-overlay.XXXXXX")
status=0
unshare --mount --propagation private -- /bin/sh -c '
  set -eu
  scratch=$1 lower=$2; shift 2
  mount -t tmpfs -o mode=0755 tmpfs "$scratch" || { echo "in_root_overlay: tmpfs mount failed" >&2; exit 125; }
  mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
  mount -t overlay overlay -o "lowerdir=$lower,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root" ||
    { echo "in_root_overlay: overlay mount failed (needs overlayfs)" >&2; exit 125; }
  CUBLASSPY_PYTORCH_ROOT=$scratch/root "$@"
' in_root_overlay "$scratch" "$root" "$@" || status=$?
rmdir "$scratch"
exit $status
