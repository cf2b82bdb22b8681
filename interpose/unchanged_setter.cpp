#include "unchanged_setter.h"

#include <cstring>

#include "call_frame.h"
#include "clock/call_clock.h"

namespace cublasspy {

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
  format::RecordSlot* slot = rt->writer.claim(ts.claim, &seq, &scratch);
  if (slot == &scratch) return nullptr;
  // clock_gettime, not the TSC clock, whose recalibration is no signal handler's business.
  start_record(slot, ts, setter->function_id, call_clock::monotonic_ns());
  format::Record& rec = slot->call;
  rec.depth = static_cast<uint16_t>(call.depth);
  rec.flags = (call.depth != 0 ? static_cast<uint32_t>(format::kFlagNested) : 0u) | format::kFlagStampedOnce |
              format::kFlagUnchangedSetter;
  // The values equal the handle's (that made the setter unchanged): read back from its state.
  const HandleState& st = *call.state;
  setter->args_from_state(st, rec.args);
  rec.handle = rec.args[0];
  rec.stream = st.stream.load(std::memory_order_relaxed);
  rec.pointer_mode = st.pointer_mode.load(std::memory_order_relaxed);
  rec.math_mode = st.math_mode.load(std::memory_order_relaxed);
  rt->writer.count_call(setter->function_id, ts.claim);
  TraceWriter::publish_in_flight(slot, seq);
  call.seq = seq;
  call.slot = slot;
  return slot;
}

void complete_signaled_unchanged(Runtime& rt, ThreadState& ts, int status) {
  format::RecordSlot* slot = ts.unchanged.slot;
  ts.unchanged.slot = nullptr;
  slot->call.status = status;
  rt.writer.complete(slot, ts.unchanged.seq, status != 0, ts.claim);
}

}  // namespace cublasspy
