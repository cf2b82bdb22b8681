#!/bin/sh
# Regenerates shared/cudart_error_list.inc and shared/cu_result_list.inc from the installed
# toolkit. The runtime's names and strings come from the real libcudart (cudaGetErrorName and
# cudaGetErrorString work without a driver); the driver's names come from the CUresult enum in
# cuda.h. Run it by hand after a toolkit upgrade; the build never runs it.
set -eu
cuda=${CUDA_HOME:-/usr/local/cuda}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/gen.cpp" <<'CPP'
#include <cuda_runtime_api.h>
#include <cstdio>
#include <cstring>
int main() {
  for (int c = 0; c < 20000; ++c) {
    const char* name = cudaGetErrorName(static_cast<cudaError_t>(c));
    if (std::strcmp(name, "unrecognized error code") == 0) continue;
    std::printf("STANDIN_CUDA_ERROR(%d, \"%s\", \"", c, name);
    for (const char* s = cudaGetErrorString(static_cast<cudaError_t>(c)); *s; ++s) {
      if (*s == '"' || *s == '\\') std::putchar('\\');
      std::putchar(*s);
    }
    std::printf("\")\n");
  }
}
CPP
g++ "$tmp/gen.cpp" -I"$cuda/include" -L"$cuda/lib64" -lcudart -o "$tmp/gen"
LD_LIBRARY_PATH="$cuda/lib64" "$tmp/gen" > "$here/shared/cudart_error_list.inc"
awk '/^typedef enum cudaError_enum/,/} CUresult;/' "$cuda/include/cuda.h" |
  grep -oE '^\s+CUDA_[A-Z0-9_]+\s*=\s*[0-9]+' |
  awk '{gsub(/ /, ""); split($0, a, "="); printf "STANDIN_CU_RESULT(%s, \"%s\")\n", a[2], a[1]}' \
  > "$here/shared/cu_result_list.inc"
