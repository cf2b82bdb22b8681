// The one body every wrapper shares (apitrace's shape): claim a record, write the arguments,
// publish it as in flight, call the real function (never under a lock), write the outcome,
// complete the record. The wrappers in hooks.cpp differ only in the lambdas they pass.
#pragma once

#include <string>
#include <sys/syscall.h>
#include <type_traits>
#include <unistd.h>

#include "trace/call_clock.h"
#include "call_context.h"
#include "call_locations.h"
#include "gemm_groups.h"
#include "hook_table.h"
#include "post_call.h"
#include "runtime.h"
#include "shim_log.h"

namespace cublasspy {

inline uint32_t current_tid(ThreadState& ts) {
  if (ts.tid == 0) ts.tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return ts.tid;
}

// The status a record keeps: the returned code, or for a handle-returning call (dlopen) 1 when
// it returned null.
template <typename Ret>
int status_of(Ret r) {
  if constexpr (std::is_void_v<Ret>) return 0;
  else if constexpr (std::is_pointer_v<Ret>) return r == nullptr ? 1 : 0;
  else return static_cast<int>(r);
}

void warn_unresolved(uint16_t id);

// A function that returns a value, not a status (cublasLtGetVersion's size_t; the statuses are
// enums): its record's status is 0 and the value is a derived slot, `returned`, after every
// argument's (hooks.cpp names it in the function table).
template <typename Ret>
inline constexpr bool kReturnsValue = std::is_integral_v<Ret> && !std::is_same_v<Ret, bool>;

// kValueSlot: where a value-returning function's result goes (CBS_RECORD_CALL passes the slot
// after the parameters' and the derived ones).
template <FnId kId, typename Ret, int kValueSlot = -1, typename Fail, typename Before, typename Late, typename Invoke,
          typename After>
Ret intercept(Fail fail_value, const void* caller, Before&& before, Late&& late, Invoke&& invoke,
              After&& after) {
  constexpr uint16_t id = static_cast<uint16_t>(kId);
  ThreadState& ts = thread_state();
  // The shim's own CUDA calls (sync, scans) pass straight through, unrecorded.
  Runtime* rt = ts.internal ? nullptr : runtime();
  bool recording = rt != nullptr && ensure_trace(*rt);
  uint64_t seq = 0;
  // Not recording (disabled, the shim's own calls) or a ring full of calls in flight: the call
  // is still described, on this stack frame, so checks and routing work the same.
  format::RecordSlot local;
  format::RecordSlot* slot = recording ? rt->writer.claim(ts.claim, &seq, &local) : &local;
  format::Record& rec = slot->call;
  const call_clock::Stamp start = call_clock::now();
  rec.function_id = id;
  rec.depth = static_cast<uint16_t>(ts.depth);
  rec.flags = ts.depth != 0 ? static_cast<uint32_t>(format::kFlagNested) : 0u;
  rec.tid = current_tid(ts);
  rec.status = 0;
  rec.start_ns = start.ns;
  rec.duration_ns = 0;
  rec.handle = 0;
  rec.stream = 0;
  rec.pointer_mode = -1;
  rec.math_mode = -1;
  rec.async_status = 0;
  slot->pending_error = 0;
  rec.check_bits = 0;
  rec.alpha[0] = rec.alpha[1] = rec.beta[0] = rec.beta[1] = 0;
  rec.check_detail[0] = rec.check_detail[1] = 0;
  CallContext ctx{rec, slot->scan, caller};
  // Only the grouped GEMMs carry a group table (a few KiB of stack), and only while they run.
  struct NoGroups {};
  [[maybe_unused]] std::conditional_t<is_grouped_hook(kId), GroupArgs, NoGroups> groups;
  if constexpr (is_grouped_hook(kId)) ctx.groups = &groups;
  for (int64_t& offset : slot->plane_offset) offset = 0;  // a reused slot holds its last call's
  ctx.plane_offset = slot->plane_offset;
  before(ctx);
  // Whether this call may get a Python and native location (CUBLASSPY_STACKS), and whether it
  // has one: under `all` every GEMM takes it before the real call, so a crash or hang in the
  // call still has it.
  const bool locatable = recording && may_take_locations(*rt, id, ts.depth);
  bool located = false;
  if (recording) {
    rt->writer.count_call(id, ts.claim);
    TraceWriter::publish_in_flight(slot, seq);
    if (locatable && rt->config.stacks == StackMode::kAll && format::is_gemm_family(static_cast<uint16_t>(kHookFamilies[id]))) {
      take_locations(*rt, slot, seq);
      located = true;
    }
  }
  // Checks first: a device alpha under host pointer mode is flagged before late() would read it.
  const bool inspecting = recording && inspects_calls(rt->config);
  if (inspecting) before_real_call(*rt, ctx);
  late(ctx);
  // Every group, read from the arrays late() gathered; before the input scans, which use them.
  if constexpr (is_grouped_hook(kId)) {
    if (recording) record_groups(ctx, rt, slot, seq);
  }
  // Input scans need beta's value (C is read only when beta != 0): after late().
  if (inspecting) after_scalars_read(*rt, ctx);

  [[maybe_unused]] std::conditional_t<std::is_void_v<Ret>, int, Ret> result{};
  format::RecordSlot* outer = ts.current;
  ts.current = slot;
  void* fn = resolved_real(id, ctx.variant);
  if (fn == nullptr) [[unlikely]] fn = resolve_real(kHookLibraries[id], id, hook_name(id), ctx.variant);
  int status;
  if constexpr (std::is_void_v<Ret>) {
    if (fn != nullptr) {
      ts.depth++;
      invoke(fn);
      ts.depth--;
    } else {
      rec.flags |= format::kFlagUnresolved;
      warn_unresolved(id);
    }
    status = 0;
    after(ctx, 0);
  } else {
    Ret ret = static_cast<Ret>(fail_value);
    if (fn != nullptr) {
      ts.depth++;
      ret = invoke(fn);
      ts.depth--;
    } else {
      rec.flags |= format::kFlagUnresolved;
      warn_unresolved(id);
    }
    if constexpr (kReturnsValue<Ret>) {
      static_assert(kValueSlot >= 0 && kValueSlot < format::kMaxArgs, "no slot for the returned value");
      status = 0;
      rec.args[kValueSlot] = static_cast<uint64_t>(ret);
    } else {
      status = status_of(ret);
    }
    rec.status = status;
    after(ctx, status);
    result = ret;
  }
  ts.current = outer;
  bool failed = status != 0;
  PostCallOutcome outcome{};
  if (recording && (failed || inspecting || is_setup_call(id))) outcome = after_real_call(*rt, ctx, failed);
  failed = failed || outcome.async_failure;
  rec.duration_ns = call_clock::elapsed_ns(start);
  if (locatable && !located && (failed || outcome.finding)) take_locations(*rt, slot, seq);
  if (recording) {
    rt->writer.complete(slot, seq, failed, ts.claim);
    if (failed || outcome.finding) apply_error_policy(*rt, id, rec);
  }
  if constexpr (!std::is_void_v<Ret>) return result;
}

}  // namespace cublasspy
