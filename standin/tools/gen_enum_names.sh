#!/bin/sh
# Writes shared/cuda_enum_names.inc: the enumerators of the three enums whose names the
# stand-in answers with (cudaGetErrorName, cuGetErrorName, cublasGetStatusName and
# cublasLtGetStatusName), in header order, read from the toolkit's headers the stand-in mimics:
#   cudaError_t    driver_types.h  (enum cudaError)        STANDIN_CUDA_ERROR(name)
#   CUresult       cuda.h          (enum cudaError_enum)   STANDIN_CU_RESULT(name)
#   cublasStatus_t cublas_api.h    (typedef enum {...})    STANDIN_BLAS_STATUS(name)
# Only the names are listed; the compiler takes their values from the same headers, so a name
# the headers lack does not compile. The stand-in keeps its own list rather than cublasspy's
# vocabulary (src/common/cuda_names), so that its answers do not come from the code under test.
# Usage: gen_enum_names.sh [<CUDA include dir>]            rewrites the file
#        gen_enum_names.sh --check [<CUDA include dir>]    fails if the file is not what it would write
# (ctest standin.enum_names_current runs the check).
set -eu
check=0
if [ "${1:-}" = --check ]; then
  check=1
  shift
fi
include=${1:-${CUDA_HOME:-/usr/local/cuda}/include}
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/shared/cuda_enum_names.inc"

# enumerators <file> <first line's pattern> <last line's pattern> <macro>: each enumerator
# (a line that starts with a name followed by '=', or with ", name =" as driver_types.h's last
# one does) between the two lines, as <macro>(name).
enumerators() {
  awk -v first="$2" -v last="$3" -v macro="$4" '
    $0 ~ first { inside = 1; next }
    inside && $0 ~ last { exit }
    inside && match($0, /^[ \t]*,?[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*=/) {
      name = $0
      sub(/^[ \t]*,?[ \t]*/, "", name)
      sub(/[ \t]*=.*/, "", name)
      print macro "(" name ")"
    }' "$1"
}

generate() {
  echo "// The enumerators of cudaError_t, CUresult and cublasStatus_t, in header order."
  echo "// Generated from the CUDA headers by tools/gen_enum_names.sh; do not edit."
  enumerators "$include/driver_types.h" '^enum __device_builtin__ cudaError$' '^};' STANDIN_CUDA_ERROR
  enumerators "$include/cuda.h" '^typedef enum cudaError_enum \{' '^\} CUresult;' STANDIN_CU_RESULT
  # cublasStatus_t is an anonymous enum: the block that ends with its name.
  awk '/^typedef enum \{/ { block = "" } { block = block $0 "\n" }
       /^\} cublasStatus_t;/ { printf "%s", block; exit }' "$include/cublas_api.h" > "$tmp/status.h"
  enumerators "$tmp/status.h" '^typedef enum \{' '^\} cublasStatus_t;' STANDIN_BLAS_STATUS
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
generate > "$tmp/names.inc"
for set in STANDIN_CUDA_ERROR STANDIN_CU_RESULT STANDIN_BLAS_STATUS; do
  grep -q "^$set(" "$tmp/names.inc" || { echo "gen_enum_names.sh: no $set found in $include" >&2; exit 1; }
done
if [ "$check" = 1 ]; then
  diff -u "$out" "$tmp/names.inc" || { echo "gen_enum_names.sh: $out is stale; rerun the script" >&2; exit 1; }
else
  cp "$tmp/names.inc" "$out"
fi
