#!/bin/sh
# Runs a Python script of tests/pytorch in the PyTorch root on the CUDA 12 stand-in: the stand-in
# directory is bound at /standin12 and named by LD_LIBRARY_PATH, tests/pytorch at
# /cublasspy-tests. Extra arguments go to scripts/in-pytorch-root.sh (--bind, --env) before the
# command. The host-built stand-in runs there: it needs glibc 2.36, the root has 2.41.
# Usage: run_in_root.sh <repository root> <stand-in dir> <script.py> [in-pytorch-root options]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/root_check.sh"
repo=$1
standin=$2
script=$3
shift 3
exec "$repo/scripts/in-pytorch-root.sh" --bind "$standin:/standin12" --bind "$here:/cublasspy-tests" \
  --env LD_LIBRARY_PATH=/standin12 "$@" -- python3 "/cublasspy-tests/$script"
