// The one body every wrapper shares (apitrace's shape): claim a record, write the arguments,
// publish it as in flight, call the real function (never under a lock), write the outcome,
// complete the record. The wrappers in hooks.cpp differ only in the lambdas they pass; what
// does not depend on them is one out-of-line copy (call_frame.h).
#pragma once

#include <cxxabi.h>

#include <string>
#include <type_traits>

#include "clock/call_clock.h"
#include "call_context.h"
#include "call_frame.h"
#include "call_locations.h"
#include "captured_gemm.h"
#include "graph_registry.h"
#include "group_recording.h"
#include "hook_table.h"
#include "post_call.h"
#include "runtime.h"
#include "shim_log.h"
#include "unchanged_setter.h"

namespace cublasspy {

// The status a record keeps: the returned code, or for a handle-returning call (dlopen) 1 when
// it returned null.
template <typename Ret>
int status_of(Ret r) {
  if constexpr (std::is_void_v<Ret>) return 0;
  else if constexpr (std::is_pointer_v<Ret>) return r == nullptr ? 1 : 0;
  else return static_cast<int>(r);
}

// Says once that hook `id` has no real function to call; throws nothing (shim_guard.h).
void warn_unresolved(uint16_t id);

// A function that returns a value, not a status (cublasLtGetVersion's size_t; the statuses are
// enums): its record's status is 0 and the value is a derived slot, `returned`, after every
// argument's (hooks.cpp names it in the function table).
template <typename Ret>
inline constexpr bool kReturnsValue = std::is_integral_v<Ret> && !std::is_same_v<Ret, bool>;

// The recorded call (the rest of intercept() below): `called` says an unchanged setter's real
// function was called already and returned `outcome`, a failure (recorded after its call).
// Inlined into the wrapper, with call_frame.h's usual path: a recorded call in trace mode is
// one function per hook, whose tests on the hook fold at compile time.
template <FnId kId, typename Ret, int kValueSlot, bool kStampedOnce, typename Fail, typename Before, typename Late,
          typename Invoke, typename After>
[[gnu::always_inline]] inline Ret record_call(ThreadState& ts, [[maybe_unused]] bool called,
                                              [[maybe_unused]] std::conditional_t<std::is_void_v<Ret>, int, Ret> outcome,
                                              Fail fail_value, const void* caller, Before& before, Late& late,
                                              Invoke& invoke, After& after) {
  constexpr uint16_t id = static_cast<uint16_t>(kId);
  // Not recorded (disabled, the shim's own calls) or a ring full of calls in flight: the call
  // is still described, on this stack frame, so checks and routing work the same.
  format::RecordSlot local;
  CallFrame frame;
  begin_call<id>(frame, ts, &local);
  format::RecordSlot* slot = frame.slot;
  format::Record& rec = slot->call;
  if constexpr (kStampedOnce) rec.flags |= format::kFlagStampedOnce;  // for the reader, and finish_inspected_call
  Runtime* rt = frame.rt;
  CallContext ctx{rec, slot->scan, caller};
  // Only the grouped GEMMs carry a group table (a few KiB of stack), and only while they run.
  struct NoGroups {};
  [[maybe_unused]] std::conditional_t<is_grouped_hook(kId), GroupArgs, NoGroups> groups;
  if constexpr (is_grouped_hook(kId)) ctx.groups = &groups;
  ctx.plane_offset = slot->plane_offset;
  if constexpr (kHookLibraries[id] == Library::kCublasLt) ctx.lt.emplace();
  // The shim's work around the real call may throw (an allocation that failed): it is caught
  // here, never reaching the program, and the program's call is made all the same; the record
  // is then completed as it stands (call_frame.h, shim_work_threw). The real call itself is
  // outside every try block: what it throws (a thread's cancellation) passes through as it
  // would without the shim. A try block costs the usual call nothing.
  bool in_full = true;
  try {
    before(ctx);
    // The handle's workspace, which no GEMM argument names (RecordSlot::workspace).
    if constexpr (format::is_gemm_family(static_cast<uint16_t>(kHookFamilies[id])) &&
                  kHookLibraries[id] == Library::kCublas) {
      if (const HandleState* st = ctx.handle_state) {
        slot->workspace = st->workspace.load(std::memory_order_relaxed);
        slot->workspace_bytes = st->workspace_bytes.load(std::memory_order_relaxed);
        rec.flags |= format::kFlagWorkspaceKnown;
      }
    }
    publish_call<id>(frame, ts);
    // Checks first: a device alpha under host pointer mode is flagged before late() would read it.
    if (frame.inspecting) [[unlikely]] before_real_call(*rt, ctx);
    late(ctx);
    // A GEMM made during a CUDA graph capture runs at the graph's launches: marked with its
    // capture.
    if constexpr (format::is_gemm_family(static_cast<uint16_t>(kHookFamilies[id]))) {
      if (captures_underway()) [[unlikely]] mark_if_captured(ctx, *slot, frame.seq);
    }
    // Every group, read from the arrays late() gathered; before the input scans, which use them.
    if constexpr (is_grouped_hook(kId)) {
      if (rt != nullptr) record_groups(ctx, rt, slot, frame.seq);
    }
    // Input scans need beta's value (C is read only when beta != 0): after late().
    if (frame.inspecting) [[unlikely]] after_scalars_read(*rt, ctx);
  } catch (const abi::__forced_unwind&) {
    throw;  // the thread is being cancelled at a cancellation point the shim's work reached
  } catch (...) {
    in_full = false;
    shim_work_threw(frame, ts);
  }

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
  } else {
    Ret ret = static_cast<Ret>(fail_value);
    if (called) [[unlikely]] {
      ret = outcome;  // an unchanged setter that failed: recorded after its call
      rec.flags |= format::kFlagUnchangedSetter;
    } else if (fn != nullptr) {
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
    result = ret;
  }
  if (in_full) [[likely]] {
    try {
      after(ctx, status);
      ts.current = outer;
      finish_call<id, kStampedOnce>(frame, ctx, ts, status);
    } catch (const abi::__forced_unwind&) {
      ts.current = outer;
      throw;
    } catch (...) {
      ts.current = outer;
      in_full = false;
      shim_work_threw(frame, ts);
    }
  } else {
    ts.current = outer;
  }
  if (!in_full) [[unlikely]] finish_call_as_it_stands(frame, ts, status);
  if constexpr (!std::is_void_v<Ret>) return result;
}

// A handle setter's recorded call (one that changes a value, or failed): out of line, so that
// the wrapper's usual case, the unchanged setter, saves no registers for it and keeps a small
// frame.
template <FnId kId, typename Ret, int kValueSlot, typename Fail, typename Before, typename Late, typename Invoke,
          typename After>
[[gnu::noinline]] Ret record_setter_call(bool called, Ret outcome, Fail fail_value, const void* caller, Before before,
                                         Late late, Invoke invoke, After after) {
  return record_call<kId, Ret, kValueSlot, true>(thread_state(), called, outcome, fail_value, caller, before, late,
                                                  invoke, after);
}

// kValueSlot: where a value-returning function's result goes (CBS_RECORD_CALL passes the slot
// after the parameters' and the derived ones).
// kStampedOnce: a handle setter, whose record keeps its start and no duration, and which has no
// record at all when it sets what the handle already holds (unchanged_setter.h; `probe` reads
// its arguments for that, `state_args` writes them back from the handle's state for the
// fatal-signal handler).
template <FnId kId, typename Ret, int kValueSlot = -1, bool kStampedOnce = false, typename Fail, typename Before,
          typename Late, typename Invoke, typename After, typename Probe, typename StateArgs>
[[gnu::always_inline]] inline Ret intercept(Fail fail_value, const void* caller, Before&& before, Late&& late,
                                            Invoke&& invoke, After&& after, [[maybe_unused]] Probe&& probe,
                                            [[maybe_unused]] StateArgs&& state_args) {
  constexpr uint16_t id = static_cast<uint16_t>(kId);
  ThreadState& ts = thread_state();
  if constexpr (kStampedOnce && !std::is_void_v<Ret>) {
    // A setter that changes nothing and succeeds is counted and returns here; one that failed is
    // recorded with the outcome it already has.
    static constexpr UnchangedSetter kSetter{
        id, static_cast<int (*)(const HandleState&, uint64_t*)>(std::remove_reference_t<StateArgs>{})};
    UnchangedOutcome<Ret> u = call_if_unchanged<id, Ret>(ts, kSetter, probe, invoke);
    if (u.done) [[likely]] return u.ret;
    return record_setter_call<kId, Ret, kValueSlot>(u.called, u.ret, fail_value, caller, before, late, invoke, after);
  } else {
    return record_call<kId, Ret, kValueSlot, kStampedOnce>(ts, false, {}, fail_value, caller, before, late, invoke,
                                                           after);
  }
}

}  // namespace cublasspy
