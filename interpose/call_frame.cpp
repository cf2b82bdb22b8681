#include "call_frame.h"

#include "call_locations.h"
#include "hook_table.h"
#include "post_call.h"

namespace cublasspy {

void begin_call(CallFrame& frame, ThreadState& ts, uint16_t id, format::RecordSlot* local) {
  Runtime* rt = ts.internal ? nullptr : runtime();
  const bool recording = rt != nullptr && ensure_trace(*rt);
  frame.rt = recording ? rt : nullptr;
  format::RecordSlot* slot = recording ? rt->writer.claim(ts.claim, &frame.seq, local) : local;
  frame.slot = slot;
  format::Record& rec = slot->call;
  // Only a record in the ring is stamped: the clock is most of what a pass-through call costs
  // (two rdtsc, some 10 ns each on a KVM guest).
  frame.start = recording ? call_clock::now() : call_clock::Stamp{};
  rec.function_id = id;
  rec.depth = static_cast<uint16_t>(ts.depth);
  rec.flags = ts.depth != 0 ? static_cast<uint32_t>(format::kFlagNested) : 0u;
  rec.tid = current_tid(ts);
  rec.status = 0;
  rec.start_ns = frame.start.ns;
  rec.duration_ns = 0;
  rec.handle = 0;
  rec.stream = 0;
  rec.pointer_mode = -1;
  rec.math_mode = -1;
  rec.async_status = 0;
  rec.check_bits = 0;
  rec.alpha[0] = rec.alpha[1] = rec.beta[0] = rec.beta[1] = 0;
  rec.check_detail[0] = rec.check_detail[1] = 0;
  // A reused slot holds its last call's; only the families that use these fields clear them.
  const auto family = static_cast<uint16_t>(kHookFamilies[id]);
  if (format::has_pending_error(family)) slot->pending_error = 0;
  if (format::has_plane_offsets(family)) {
    for (int64_t& offset : slot->plane_offset) offset = 0;
  }
  frame.locatable = recording && may_take_locations(*rt, id, ts.depth);
  frame.located = false;
  frame.inspecting = recording && inspects_calls(rt->config);
}

void publish_call(CallFrame& frame, ThreadState& ts, uint16_t id) {
  if (frame.rt == nullptr) return;
  frame.rt->writer.count_call(id, ts.claim);
  TraceWriter::publish_in_flight(frame.slot, frame.seq);
  if (frame.locatable && frame.rt->config.stacks == StackMode::kAll &&
      format::is_gemm_family(static_cast<uint16_t>(kHookFamilies[id]))) {
    take_locations(*frame.rt, frame.slot, frame.seq);
    frame.located = true;
  }
}

void finish_call(CallFrame& frame, CallContext& ctx, int status) {
  Runtime* rt = frame.rt;
  format::Record& rec = frame.slot->call;
  const uint16_t id = rec.function_id;
  bool failed = status != 0;
  PostCallOutcome outcome{};
  if (rt != nullptr && (failed || frame.inspecting || is_setup_call(id))) outcome = after_real_call(*rt, ctx, failed);
  failed = failed || outcome.async_failure;
  // A handle setter is stamped once (format::kFlagStampedOnce): no second clock read.
  const bool timed = (rec.flags & format::kFlagStampedOnce) == 0;
  if (rt != nullptr && timed) rec.duration_ns = call_clock::elapsed_ns(frame.start);
  if (frame.locatable && !frame.located && (failed || outcome.finding)) take_locations(*rt, frame.slot, frame.seq);
  if (rt != nullptr) {
    rt->writer.complete(frame.slot, frame.seq, failed, thread_state().claim);
    if (failed || outcome.finding) apply_error_policy(*rt, id, rec);
  }
}

}  // namespace cublasspy
