// The GEMM a live call makes, in the normalized shape the checks, scans and dumps reason about
// (gemm/gemm_call.h). Built at most once per call, from the record, through the slots its
// function's roles name (found once per function and kept), and handed to all three.
#pragma once

#include "call_context.h"
#include "gemm/gemm_call.h"

namespace cublasspy {

// The call's GEMM, or nullptr when it is no GEMM (not of a GEMM family) or its record does not
// say enough yet: a grouped GEMM's first group is read from host memory late (cublas_tags.h), and
// a cuBLASLt matmul's descriptors may be unknown to the shim. A view found valid is kept in
// `ctx` and returned by the later calls; an invalid one is built again (it may have become
// valid since). Nested calls get theirs too: each consumer decides whether it looks at them.
const GemmCall* gemm_view(CallContext& ctx);

}  // namespace cublasspy
