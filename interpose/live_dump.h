// CUBLASSPY_DUMP in the live shim: after a GEMM, saves its operands as .npy files next to the
// trace (`<trace path>.call<seq>.<a|b|c|d>.npy` and `.json`), within CUBLASSPY_DUMP_MAX_MB.
#pragma once

#include "call_context.h"
#include "runtime.h"

namespace cublasspy {

// Mode `all` dumps every GEMM, `failing` only those that failed or were flagged by a check or a
// scan (`failed_or_flagged`). Nested calls are skipped (the outer call dumps the same data).
void dump_operands(Runtime& rt, CallContext& ctx, bool failed_or_flagged);

}  // namespace cublasspy
