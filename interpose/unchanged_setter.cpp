#include "unchanged_setter.h"

#include <cstring>

#include "call_frame.h"
#include "clock/call_clock.h"

namespace cublasspy {

format::RecordSlot* record_unchanged_in_flight(ThreadState& ts) {
  UnchangedCall* call = ts.unchanged_call;
  // An intercepted call made from inside the setter is the innermost: its own record is.
  if (call == nullptr || call->slot != nullptr || ts.current != call->outer) return nullptr;
  Runtime* rt = runtime();
  if (rt == nullptr || !rt->writer.is_open()) return nullptr;
  // The thread is inside the real setter, not inside claim(): its cursor is not half-updated.
  // On the ring full of calls in flight claim() returns the scratch slot: then no record.
  format::RecordSlot scratch;
  uint64_t seq = 0;
  format::RecordSlot* slot = rt->writer.claim(ts.claim, &seq, &scratch);
  if (slot == &scratch) return nullptr;
  // clock_gettime, not the TSC clock, whose recalibration is no signal handler's business.
  start_record(slot, ts, call->function_id, call_clock::monotonic_ns());
  format::Record& rec = slot->call;
  rec.depth = static_cast<uint16_t>(call->depth);
  rec.flags = (call->depth != 0 ? static_cast<uint32_t>(format::kFlagNested) : 0u) | format::kFlagStampedOnce |
              format::kFlagUnchangedSetter;
  for (int i = 0; i < call->arg_count; ++i) rec.args[i] = call->args[i];
  rec.handle = call->args[0];
  if (HandleState* st = call->state) {
    rec.stream = st->stream.load(std::memory_order_relaxed);
    rec.pointer_mode = st->pointer_mode.load(std::memory_order_relaxed);
    rec.math_mode = st->math_mode.load(std::memory_order_relaxed);
  }
  rt->writer.count_call(call->function_id, ts.claim);
  TraceWriter::publish_in_flight(slot, seq);
  call->slot = slot;
  call->seq = seq;
  return slot;
}

void complete_signaled_unchanged(Runtime& rt, ThreadState& ts, UnchangedCall& call, int status) {
  call.slot->call.status = status;
  rt.writer.complete(call.slot, call.seq, status != 0, ts.claim);
}

}  // namespace cublasspy
