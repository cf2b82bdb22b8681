// Per-hook round trip: calls every hooked function of the hook list once, in list
// order, with distinctive arguments, against the null CUDA stack (null_cuda/), and writes what
// each record slot must hold to the file named by argv[1] (hook_roundtrip_call.h). Run under
// the shim; hook_roundtrip_test.cpp compares the trace with the file.
#include "spec/per_thread_runtime.h"  // first: the _ptsz/_ptds forms the hook list names

#include <cstdio>

#include <cublasLt.h>
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "hook_roundtrip_call.h"

CUBLASSPY_HOOKS(RT_DEFINE_CALL)

void call_legacy_hooks(::roundtrip::Recorder& recorder);  // hook_roundtrip_legacy.cpp

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: hook_roundtrip EXPECTATIONS_FILE\n");
    return 2;
  }
  FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr) return 2;
  std::setvbuf(out, nullptr, _IOLBF, 0);  // what was written survives a crash in a hook
  ::roundtrip::Recorder recorder(out);
  CUBLASSPY_HOOKS(RT_INVOKE)
  call_legacy_hooks(recorder);
  return std::fclose(out) == 0 ? 0 : 2;
}
