// CUBLASSPY_SCAN in the live shim: turns an intercepted GEMM's record into a scan request
// (gemm_scan.h) and writes the per-operand summaries into the record (ctx.scan, kFlagScanned).
#pragma once

#include "call_context.h"
#include "runtime.h"

namespace cublasspy {

// Before the real call (modes inputs/all): scans A, B, and C when beta is not known to be 0.
// After it (modes outputs/all; the caller has synchronized the stream): scans D, and the inputs
// too when D holds NaN/Inf and they were not scanned before. Skips nested calls (the outer call
// covers the same operands), non-GEMM calls, and streams being captured into a CUDA graph.
// Returns true when a scanned operand holds NaN or Inf (a finding: CUBLASSPY_ON_ERROR applies).
bool scan_operands(Runtime& rt, CallContext& ctx, bool before_call);

// True for the function families whose records gemm_from_record understands.
bool is_gemm_family(uint16_t family);

}  // namespace cublasspy
