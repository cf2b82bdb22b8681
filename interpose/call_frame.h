// The parts of a recorded call that are the same for every hook: claiming and starting the
// record, publishing it as in flight, and finishing it after the real call.
//
// The usual case, a call recorded in trace mode that succeeds, is inline in each wrapper and
// specialized for its hook (kId): the hook's family, library and kind are known at compile time,
// so their tests fold away, and nothing is spilled to a frame to cross a call. In a program
// that makes a few short calls per operation (PyTorch: three handle setters and a GEMM per
// torch.mm) the shim's cost follows the instructions it runs, not its cache misses
// (docs/BENCHMARKS.md, "2026-12-03, 4a29a53" and "2026-12-03, b7f68e4"). Everything else, the
// call that is not recorded, fails, is inspected or is a set-up call, is one out-of-line copy
// (call_frame.cpp).
#pragma once

#include <cstdint>

#include "clock/call_clock.h"
#include "call_context.h"
#include "call_locations.h"
#include "hook_table.h"
#include "post_call.h"
#include "runtime.h"

namespace cublasspy {

// Filled in by begin_call() or begin_unrecorded_call(), every field: no initializers, which the
// wrapper would store first (begin_unrecorded_call is out of line) and begin_call store again.
struct CallFrame {
  Runtime* rt;  // the runtime when the call is recorded, else nullptr
  format::RecordSlot* slot;  // the ring's slot, or the wrapper's own when not recorded
  uint64_t seq;
  call_clock::Stamp start;
  bool located;     // took its location before the real call (CUBLASSPY_STACKS=all)
  bool inspecting;  // checks, sync, scans or dumps run around the call
};

// The fields every record has, written for a call whether it is recorded or not
// (TraceWriter::start_record). Inline, and with a constant `id` in the wrappers, where the
// family's tests fold away.
[[gnu::always_inline]] inline void start_record(format::RecordSlot* slot, ThreadState& ts, uint16_t id,
                                                uint64_t start_ns) {
  TraceWriter::start_record(slot, id, static_cast<uint16_t>(kHookFamilies[id]), ts.depth, current_tid(ts),
                            start_ns);
}

// A call that is not recorded (the shim disabled or without a trace, or its own CUDA calls):
// described on the wrapper's stack frame, `local`, so checks and routing work the same.
void begin_unrecorded_call(CallFrame& frame, ThreadState& ts, uint16_t id, format::RecordSlot* local);

// Claims the call's record (or uses `local`, when the call is not recorded or the ring is full
// of calls in flight) and writes the fields every record has. The shim's own CUDA calls (sync,
// scans) are not recorded.
// kPlain: the wrapper's usual case, `plain_rt` (Runtime::plain) recording it; else the runtime
// is asked here.
template <uint16_t kId, bool kPlain>
[[gnu::always_inline]] inline void begin_call(CallFrame& frame, ThreadState& ts, [[maybe_unused]] Runtime* plain_rt,
                                              format::RecordSlot* local) {
  Runtime* rt;
  if constexpr (kPlain) {
    rt = plain_rt;
  } else {
    rt = recording_runtime(ts);
    if (rt == nullptr) [[unlikely]] {
      begin_unrecorded_call(frame, ts, kId, local);
      return;
    }
  }
  frame.rt = rt;
  format::RecordSlot* slot = rt->writer.claim(ts.claim, &frame.seq, local);
  frame.slot = slot;
  frame.start = call_clock::now();
  start_record(slot, ts, kId, frame.start.ns);
  frame.located = false;
  frame.inspecting = kPlain ? false : rt->inspecting;
}

// Once the arguments are written: counts the call and makes the record visible as in flight;
// under CUBLASSPY_STACKS=all a GEMM takes its location now, so a crash or hang in the call has it.
template <uint16_t kId, bool kPlain>
[[gnu::always_inline]] inline void publish_call(CallFrame& frame, ThreadState& ts) {
  if (!kPlain && frame.rt == nullptr) [[unlikely]] return;
  frame.rt->writer.count_call(kId, ts.claim);
  TraceWriter::publish_in_flight(frame.slot, frame.seq);
  if constexpr (!kPlain && format::is_gemm_family(static_cast<uint16_t>(kHookFamilies[kId]))) {
    if (frame.rt->config.stacks == StackMode::kAll && may_take_locations(*frame.rt, kId, ts.depth)) [[unlikely]] {
      take_locations(*frame.rt, frame.slot, frame.seq);
      frame.located = true;
    }
  }
}

// finish_call's for a recorded call that failed, is inspected or is a set-up call: the
// post-call work the settings ask for, the duration, a failing or flagged call's location, the
// record completed, and CUBLASSPY_ON_ERROR.
void finish_inspected_call(CallFrame& frame, CallContext& ctx, int status);

// After the real call returned `status` (its outcome written). kStampedOnce: a handle setter,
// whose record keeps its start and no duration (format::kFlagStampedOnce).
template <uint16_t kId, bool kStampedOnce, bool kPlain>
[[gnu::always_inline]] inline void finish_call(CallFrame& frame, CallContext& ctx, ThreadState& ts, int status) {
  Runtime* rt = frame.rt;
  if (!kPlain && rt == nullptr) [[unlikely]] return;  // not recorded: nothing to complete
  if (status != 0 || (!kPlain && frame.inspecting) || is_setup_call(kId)) [[unlikely]] {
    finish_inspected_call(frame, ctx, status);
    return;
  }
  if constexpr (!kStampedOnce) frame.slot->call.duration_ns = call_clock::elapsed_ns(frame.start);
  rt->writer.complete(frame.slot, frame.seq, false, ts.claim);
}

// The shim's own work for the call threw (intercept.h catches it): the thread's bookkeeping is
// put back (a recorded call is the program's, made with internal == 0) and the failure noted
// once on stderr (shim_log.h). Cold.
[[gnu::cold]] void shim_work_threw(CallFrame& frame, ThreadState& ts);

// After the real call returned `status`, for a call whose shim work threw: its record, when it
// is in the ring and not completed yet, is completed as it stands, so that no claimed slot is
// left in flight. Cold.
[[gnu::cold]] void finish_call_as_it_stands(CallFrame& frame, ThreadState& ts, int status);

}  // namespace cublasspy
