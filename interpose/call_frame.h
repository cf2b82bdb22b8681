// The parts of a recorded call that are the same for every hook, out of line: claiming and
// starting the record, publishing it as in flight, and finishing it after the real call.
//
// Why out of line: inlined into each wrapper they made every wrapper about 2 KiB of code; as
// one shared copy a setter's wrapper is 0.9 KiB, and a call that is not recorded can skip the
// clock in one place. (The PyTorch loop, four recorded calls per torch.mm, was measured before
// and after: the difference was within the host's noise, docs/BENCHMARKS.md "Session 9".) What
// is left inline in a wrapper is what depends on the hook: its arguments' slots and the real
// call (intercept.h).
#pragma once

#include <cstdint>

#include "trace/call_clock.h"
#include "call_context.h"
#include "runtime.h"

namespace cublasspy {

struct CallFrame {
  Runtime* rt = nullptr;  // the runtime when the call is recorded, else nullptr
  format::RecordSlot* slot = nullptr;  // the ring's slot, or the wrapper's own when not recorded
  uint64_t seq = 0;
  call_clock::Stamp start{};
  bool locatable = false;   // may take a Python and native location (CUBLASSPY_STACKS)
  bool located = false;     // took it before the real call (CUBLASSPY_STACKS=all)
  bool inspecting = false;  // checks, sync, scans or dumps run around the call
};

// Claims the call's record (or uses `local`, when the call is not recorded or the ring is full
// of calls in flight) and writes the fields every record has. The shim's own CUDA calls (sync,
// scans) are not recorded.
void begin_call(CallFrame& frame, ThreadState& ts, uint16_t id, format::RecordSlot* local);
// Once the arguments are written: counts the call and makes the record visible as in flight;
// under CUBLASSPY_STACKS=all a GEMM takes its location now, so a crash or hang in the call has it.
void publish_call(CallFrame& frame, ThreadState& ts, uint16_t id);
// After the real call returned `status` (its outcome written): the post-call work the settings
// ask for, the duration, a failing or flagged call's location, and the record completed.
void finish_call(CallFrame& frame, CallContext& ctx, int status);

}  // namespace cublasspy
