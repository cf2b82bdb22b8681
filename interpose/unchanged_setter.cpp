#include "unchanged_setter.h"

#include <cstring>

#include "call_frame.h"
#include "clock/call_clock.h"

namespace cublasspy {

namespace {

// Claims a record of the thread's unchanged setter (ThreadState::unchanged), made at nesting
// `depth` and started at `start_ns`, writes its arguments from the handle's state, which they
// equal (that made the setter unchanged), counts it and publishes it as in flight. `scratch`
// when the ring is full of calls in flight (claim()). Async-signal-safe.
format::RecordSlot* begin_unchanged_record(Runtime& rt, ThreadState& ts, const UnchangedSetter& setter,
                                           uint32_t depth, uint64_t start_ns, format::RecordSlot* scratch,
                                           uint64_t* seq) {
  format::RecordSlot* slot = rt.writer.claim(ts.claim, seq, scratch);
  start_record(slot, ts, setter.function_id, start_ns);
  format::Record& rec = slot->call;
  rec.depth = static_cast<uint16_t>(depth);
  rec.flags = (depth != 0 ? static_cast<uint32_t>(format::kFlagNested) : 0u) | format::kFlagStampedOnce |
              format::kFlagUnchangedSetter;
  const HandleState& st = *ts.unchanged.state;
  setter.args_from_state(st, rec.args);
  rec.handle = rec.args[0];
  rec.stream = st.stream.load(std::memory_order_relaxed);
  rec.pointer_mode = st.pointer_mode.load(std::memory_order_relaxed);
  rec.math_mode = st.math_mode.load(std::memory_order_relaxed);
  rt.writer.count_call(setter.function_id, ts.claim);
  TraceWriter::publish_in_flight(slot, *seq);
  return slot;
}

// The record of an unchanged setter that failed: as a recorded call that failed is finished
// (call_frame.h), its site from the wrapper's caller.
void record_failed_unchanged(Runtime& rt, ThreadState& ts, const UnchangedSetter& setter, int status,
                             const void* caller) {
  format::RecordSlot local;
  CallFrame frame;
  frame.rt = &rt;
  frame.start = call_clock::now();
  frame.slot = begin_unchanged_record(rt, ts, setter, ts.depth, frame.start.ns, &local, &frame.seq);
  frame.located = frame.inspecting = false;
  format::RecordSlot& slot = *frame.slot;
  slot.call.status = status;
  CallContext ctx{slot.call, slot.scan, caller};
  ctx.plane_offset = slot.plane_offset;
  ctx.handle_state = ts.unchanged.state;
  ctx.variant = ts.unchanged.state->variant.load(std::memory_order_relaxed);
  finish_inspected_call(frame, ctx, status);
}

}  // namespace

format::RecordSlot* record_unchanged_in_flight(ThreadState& ts) {
  UnchangedInFlight& call = ts.unchanged;
  const UnchangedSetter* setter = call.setter;
  // Inside the real setter, the thread's depth is one more than the setter's; an intercepted
  // call made from inside it is the innermost, and its own record is.
  if (setter == nullptr || call.slot != nullptr || ts.depth != call.depth + 1) return nullptr;
  Runtime* rt = runtime();
  if (rt == nullptr || !rt->writer.is_open()) return nullptr;
  // The thread is inside the real setter, not inside claim(): its cursor is not half-updated.
  // On the ring full of calls in flight claim() returns the scratch slot: then no record.
  format::RecordSlot scratch;
  uint64_t seq = 0;
  // clock_gettime, not the TSC clock, whose recalibration is no signal handler's business.
  format::RecordSlot* slot =
      begin_unchanged_record(*rt, ts, *setter, call.depth, call_clock::monotonic_ns(), &scratch, &seq);
  // Counted as unchanged before its call (call_if_unchanged), it is counted as a recorded call
  // now, even when the ring had no place for its record.
  rt->writer.uncount_unchanged(setter->function_id, ts.claim);
  if (slot == &scratch) return nullptr;
  call.seq = seq;
  call.slot = slot;
  return slot;
}

void finish_unusual_unchanged(ThreadState& ts, int status, const void* caller) {
  const UnchangedSetter& setter = *ts.unchanged.setter;
  ts.unchanged.setter = nullptr;
  if (format::RecordSlot* slot = ts.unchanged.slot) {
    // The fatal-signal handler recorded the call (and took it out of the count): completed now.
    ts.unchanged.slot = nullptr;
    Runtime* rt = runtime();
    if (rt == nullptr) return;
    slot->call.status = status;
    rt->writer.complete(slot, ts.unchanged.seq, status != 0, ts.claim);
    return;
  }
  // Counted before the call into this trace: the trace is still the one recording, or the
  // count went with the one that was (a fork's child starts its own trace on its next call).
  Runtime* rt = recording_runtime(ts);
  if (rt == nullptr) return;
  rt->writer.uncount_unchanged(setter.function_id, ts.claim);
  record_failed_unchanged(*rt, ts, setter, status, caller);
}

}  // namespace cublasspy
