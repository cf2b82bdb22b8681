// CUBLASSPY_STACKS: the Python and native locations of a call, attached to its record in the
// trace's side area. Taken for the program's own calls (depth 0) to cuBLAS and CUDA, never for
// dlopen and the like (the loader's lock: python_stack.cpp), never in a signal handler.
#pragma once

#include <cstdint>

#include "hook_table.h"
#include "runtime.h"

namespace cublasspy {

// Whether a call of function `id` at nesting `depth` may be given a location at all. Inline:
// every recorded call asks. Nested calls run inside a library that may hold its locks: the GIL
// must not be waited for there. The system family (dlopen) runs under the loader's lock.
inline bool may_take_locations(const Runtime& rt, uint16_t id, uint32_t depth) {
  return rt.config.stacks != StackMode::kNone && depth == 0 && hook_library(id) != Library::kSystem;
}
// Attaches the calling thread's Python stack (when the process hosts CPython) and native stack
// to the record. Costs microseconds: only for failing or flagged calls, or every GEMM under
// CUBLASSPY_STACKS=all.
void take_locations(Runtime& rt, format::RecordSlot* slot, uint64_t seq);
// Counts a failed call at its site (format::FailureSite) and names the site in its record
// (RecordSlot::failure_site). Only a site's first failure should take locations (first); the
// later ones refer to it. `python`: the call may be given a Python location (may_take_locations),
// so the site includes its innermost Python frame; else its native return address alone.
FailureSiteCount count_failure_site(Runtime& rt, format::RecordSlot* slot, const void* caller, bool python);
// A launch-ring entry that failed (the launch or its CUBLASSPY_SYNC=all synchronization returned
// an error, or a wait or query returned an asynchronous one), at depth 0, after the entry is
// complete: if it is the trace's first (FileHeader::first_failed_launch), its locations go
// with it, as a failing call's do. The first only: after a sticky error every later launch
// fails too, and the first is the one that faulted (under --sync all, the pinned kernel).
void take_launch_locations(Runtime& rt, uint16_t id, uint64_t ticket);

}  // namespace cublasspy
