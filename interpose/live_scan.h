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

// True when this call's summaries (either phase) show NaN or Inf in an operand: lets the caller
// turn a finding of the before-call scan into PostCallOutcome::finding after the call.
bool scan_found_nonfinite(const CallContext& ctx);

// The call's GEMM (gemm_view.h) when its operands live in device memory and the program made it
// (not nested in another intercepted call), else nullptr. cublasXt's GEMMs take host memory
// and are left alone.
const GemmCall* device_gemm(CallContext& ctx);

}  // namespace cublasspy
