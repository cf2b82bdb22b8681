// A GEMM made while its stream is captured into a CUDA graph: its work is recorded into the
// graph, not run, and runs at every launch of the graph with the addresses it has now. Its
// record is marked with the capture (RecordSlot::capture_id), and the memory it names is kept
// for the check before each launch (graph_registry.h).
#pragma once

#include <cstdint>

#include "call_context.h"
#include "trace/trace_format.h"

namespace cublasspy {

// Called for GEMM-family calls while a capture may be underway (captures_underway()), once the
// arguments are read and before the real call.
void mark_if_captured(CallContext& ctx, format::RecordSlot& slot, uint64_t seq);

}  // namespace cublasspy
