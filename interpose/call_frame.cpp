#include "call_frame.h"

#include <atomic>

#include "shim_log.h"

namespace cublasspy {

void begin_unrecorded_call(CallFrame& frame, ThreadState& ts, uint16_t id, format::RecordSlot* local) {
  frame.rt = nullptr;
  frame.slot = local;
  frame.seq = 0;
  frame.start = call_clock::Stamp{};  // only a record in the ring is stamped
  start_record(local, ts, id, 0);
  frame.located = frame.inspecting = false;
}

void finish_inspected_call(CallFrame& frame, CallContext& ctx, int status) {
  Runtime& rt = *frame.rt;
  format::Record& rec = frame.slot->call;
  const uint16_t id = rec.function_id;
  bool failed = status != 0;
  PostCallOutcome outcome = after_real_call(rt, ctx, failed);
  failed = failed || outcome.async_failure;
  // A handle setter is stamped once (format::kFlagStampedOnce): no second clock read.
  if ((rec.flags & format::kFlagStampedOnce) == 0) rec.duration_ns = call_clock::elapsed_ns(frame.start);
  // A failure repeating its site's first takes no locations: the first's serve it (a program
  // failing a call on purpose in a loop pays a count, not a stack walk, each time).
  // Whether the call may take a Python and native location at all (CUBLASSPY_STACKS): asked
  // here, not by every call (the record keeps the call's depth).
  const bool locatable = may_take_locations(rt, id, rec.depth);
  bool locate = locatable && !frame.located && (failed || outcome.finding);
  FailureSiteCount site;
  frame.slot->failure_site = 0;
  if (failed) {
    site = count_failure_site(rt, frame.slot, ctx.caller, locatable);
    if (site.index >= 0 && !site.first) locate = false;
  }
  if (locate) take_locations(rt, frame.slot, frame.seq);
  if (site.first) rt.writer.failure_sites().keep_first(site.index, frame.slot, frame.seq);
  rt.writer.complete(frame.slot, frame.seq, failed, thread_state().claim);
  if (outcome.finding) rt.flagged.store(true, std::memory_order_relaxed);
  if (failed || outcome.finding) apply_error_policy(rt, id, rec);
}

void shim_work_threw(CallFrame& frame, ThreadState& ts) {
  if (frame.rt != nullptr) ts.internal = 0;
  note_shim_exception();
}

void finish_call_as_it_stands(CallFrame& frame, ThreadState& ts, int status) {
  if (frame.rt == nullptr) return;  // the wrapper's own slot: nothing in the ring
  format::RecordSlot* slot = frame.slot;
  // Still this call's and not completed: no other thread can claim it until it is. (Completed
  // already, it may be another call's by now, and is left alone.)
  const uint64_t word = std::atomic_ref<uint64_t>(slot->call.word).load(std::memory_order_relaxed);
  if (format::word_seq(word) != frame.seq) return;
  if (format::word_state(word) == format::RecordState::kCompleted) return;
  slot->call.status = status;
  frame.rt->writer.complete(slot, frame.seq, status != 0, ts.claim);
}

}  // namespace cublasspy
