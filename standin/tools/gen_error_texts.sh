#!/bin/sh
# Regenerates shared/cudart_error_texts.inc from the installed toolkit: what the real libcudart's
# cudaGetErrorString says for each code it knows (it works without a driver). The headers do
# not hold these texts; the names of the codes come from the headers (tools/gen_enum_names.sh).
# Run it by hand after a toolkit upgrade; the build never runs it.
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
    std::printf("STANDIN_CUDA_ERROR_TEXT(%d, \"", c);
    for (const char* s = cudaGetErrorString(static_cast<cudaError_t>(c)); *s; ++s) {
      if (*s == '"' || *s == '\\') std::putchar('\\');
      std::putchar(*s);
    }
    std::printf("\")\n");
  }
}
CPP
g++ "$tmp/gen.cpp" -I"$cuda/include" -L"$cuda/lib64" -lcudart -o "$tmp/gen"
LD_LIBRARY_PATH="$cuda/lib64" "$tmp/gen" > "$here/shared/cudart_error_texts.inc"
