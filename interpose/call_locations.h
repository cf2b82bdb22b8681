// CUBLASSPY_STACKS: the Python and native locations of a call, attached to its record in the
// trace's side area. Taken for the program's own calls (depth 0) to cuBLAS and CUDA, never for
// dlopen and the like (the loader's lock: python_stack.cpp), never in a signal handler.
#pragma once

#include <cstdint>

#include "runtime.h"

namespace cublasspy {

// Whether a call of function `id` at nesting `depth` may be given a location at all.
bool may_take_locations(const Runtime& rt, uint16_t id, uint32_t depth);
// Attaches the calling thread's Python stack (when the process hosts CPython) and native stack
// to the record. Costs microseconds: only for failing or flagged calls, or every GEMM under
// CUBLASSPY_STACKS=all.
void take_locations(Runtime& rt, format::RecordSlot* slot, uint64_t seq);

}  // namespace cublasspy
