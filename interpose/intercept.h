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

// The recorded call (the rest of intercept() below), with call_frame.h's usual path: a recorded
// call in trace mode is one function per hook, whose tests on the hook fold at compile time.
// kPlain: the wrapper's usual case, inline in it: `plain_rt` records it and asks for no work
// around it (Runtime::plain), so none of the tests for that work is made. Every other case (not
// set up yet, not recorded, checks, scans, CUBLASSPY_STACKS=all) is the hook's other copy, out
// of line (record_general_call).
template <FnId kId, typename Ret, int kValueSlot, bool kStampedOnce, bool kPlain, typename Fail, typename Before,
          typename Late, typename Invoke, typename After>
[[gnu::always_inline]] inline Ret record_call(ThreadState& ts, [[maybe_unused]] Runtime* plain_rt, Fail fail_value,
                                              const void* caller, Before& before, Late& late, Invoke& invoke,
                                              After& after) {
  constexpr uint16_t id = static_cast<uint16_t>(kId);
  // Not recorded (disabled, the shim's own calls) or a ring full of calls in flight: the call
  // is still described, on this stack frame, so checks and routing work the same.
  format::RecordSlot local;
  CallFrame frame;
  begin_call<id, kPlain>(frame, ts, plain_rt, &local);
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
  // The real call, made on either path below (the shim's work done, or thrown): the program's
  // result, its status written into the record.
  using Result = std::conditional_t<std::is_void_v<Ret>, int, Ret>;
  [[maybe_unused]] Result result{};
  int status = 0;
  format::RecordSlot* outer = nullptr;
  auto real_call = [&]() __attribute__((always_inline)) {
    outer = ts.current;
    ts.current = slot;
    void* fn = resolved_real(id, ctx.variant);
    if (fn == nullptr) [[unlikely]] {
      // Inlined into the wrapper (kPlain), __builtin_return_address(0) is `caller` itself: read
      // here, no register keeps it for this cold case (as in call_if_unchanged).
      fn = resolve_real_for(kHookLibraries[id], id, hook_name(id), ctx.variant,
                            kPlain ? __builtin_return_address(0) : caller);
    }
    if constexpr (std::is_void_v<Ret>) {
      if (fn != nullptr) {
        ts.depth++;
        invoke(fn);
        ts.depth--;
      } else {
        rec.flags |= format::kFlagUnresolved;
        warn_unresolved(id);
      }
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
        rec.args[kValueSlot] = static_cast<uint64_t>(ret);
      } else {
        status = status_of(ret);
      }
      rec.status = status;
      result = ret;
    }
  };
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
    publish_call<id, kPlain>(frame, ts);
    // Checks first: a device alpha under host pointer mode is flagged before late() would read it.
    if (!kPlain && frame.inspecting) [[unlikely]] before_real_call(*rt, ctx);
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
    if (!kPlain && frame.inspecting) [[unlikely]] after_scalars_read(*rt, ctx);
  } catch (const abi::__forced_unwind&) {
    throw;  // the thread is being cancelled at a cancellation point the shim's work reached
  } catch (...) {
    shim_work_threw(frame, ts);
    goto threw;
  }
  real_call();
  try {
    after(ctx, status);
    ts.current = outer;
    finish_call<id, kStampedOnce, kPlain>(frame, ctx, ts, status);
  } catch (const abi::__forced_unwind&) {
    ts.current = outer;
    throw;
  } catch (...) {
    ts.current = outer;
    shim_work_threw(frame, ts);
    finish_call_as_it_stands(frame, ts, status);
  }
  if constexpr (!std::is_void_v<Ret>) return result;
  else return;

threw:
  // The shim's work before the call threw: the program's call is made all the same, and its
  // record completed as it stands.
  real_call();
  ts.current = outer;
  finish_call_as_it_stands(frame, ts, status);
  if constexpr (!std::is_void_v<Ret>) return result;
}

// The shim passing calls through (passes_through(): CUBLASSPY_DISABLE=1): the program's call
// routed as the recording path routes it, to the library that created its handle (route(), the
// tags' route_arg), and made. Nothing else: no record, no description of the call, no shadow
// state (a handle's creation and destruction, which routing reads, take the whole path:
// tags::kKeepsRouting). At the start of the wrapper's out-of-line copy (record_general_call,
// record_setter_call), not in the wrapper: a second out-of-line call there made the wrappers
// keep their arguments in saved registers and frame slots for their usual case too.
template <FnId kId, typename Ret, typename Fail, typename MakeMoments, typename... Args>
[[gnu::always_inline]] inline Ret pass_through(Fail fail_value, const void* caller, MakeMoments& make_moments,
                                               Args... args) {
  constexpr uint16_t id = static_cast<uint16_t>(kId);
  return make_moments(
      [&](auto&&, auto&&, auto&& invoke, auto&&, auto&&, auto&& route) __attribute__((always_inline)) -> Ret {
        int variant = kDefaultVariant;
        route(variant);
        void* fn = resolved_real(id, variant);
        if (fn == nullptr) [[unlikely]] fn = resolve_real_for(kHookLibraries[id], id, hook_name(id), variant, caller);
        if (fn == nullptr) [[unlikely]] {
          warn_unresolved(id);
          if constexpr (std::is_void_v<Ret>) return;
          else return static_cast<Ret>(fail_value);
        }
        return invoke(fn);
      },
      args...);
}

// A handle setter's recorded call (one that changes a value, or failed): out of line, so that
// the wrapper's usual case, the unchanged setter, saves no registers for it and keeps a small
// frame. Asks first, as the wrapper did but with every slow path, whether the setter changes
// nothing. Or only passes the call through, when the shim does.
template <FnId kId, typename Ret, int kValueSlot, bool kPassesThrough, typename Fail, typename MakeMoments,
          typename... Args>
[[gnu::noinline]] Ret record_setter_call(const UnchangedSetter& setter, Fail fail_value, const void* caller,
                                         MakeMoments make_moments, Args... args) {
  if constexpr (kPassesThrough) {
    if (passes_through()) return pass_through<kId, Ret>(fail_value, caller, make_moments, args...);
  }
  ThreadState& ts = thread_state();
  return make_moments(
      [&](auto&& before, auto&& late, auto&& invoke, auto&& after, auto&& probe, auto&&) __attribute__((always_inline)) {
        Ret ret;
        if (call_if_unchanged<static_cast<uint16_t>(kId), Ret, false>(ts, setter, probe, invoke, caller, ret)) {
          return ret;
        }
        return record_call<kId, Ret, kValueSlot, true, false>(ts, nullptr, fail_value, caller, before, late, invoke,
                                                              after);
      },
      args...);
}

// Every call but the usual one (record_call, kPlain): out of line, a copy per hook, given the
// wrapper's arguments. Or only the call passed through, when the shim passes calls through.
template <FnId kId, typename Ret, int kValueSlot, bool kStampedOnce, bool kPassesThrough, typename Fail,
          typename MakeMoments, typename... Args>
[[gnu::noinline]] Ret record_general_call(Fail fail_value, const void* caller, MakeMoments make_moments,
                                          Args... args) {
  if constexpr (kPassesThrough) {
    if (passes_through()) return pass_through<kId, Ret>(fail_value, caller, make_moments, args...);
  }
  return make_moments(
      [&](auto&& before, auto&& late, auto&& invoke, auto&& after, auto&&, auto&&) __attribute__((always_inline)) {
        return record_call<kId, Ret, kValueSlot, kStampedOnce, false>(thread_state(), nullptr, fail_value, caller,
                                                                       before, late, invoke, after);
      },
      args...);
}

// kValueSlot: where a value-returning function's result goes (CBS_RECORD_CALL passes the slot
// after the parameters' and the derived ones).
// kStampedOnce: a handle setter, whose record keeps its start and no duration, and which has no
// record at all when it sets what the handle already holds (unchanged_setter.h; the moments'
// probe reads its arguments for that, `state_args` writes them back from the handle's state for
// the fatal-signal handler).
// kPassesThrough: the hook may only pass its call through when the shim does (pass_through).
// make_moments(use, args...) makes the hook's moments, the lambdas its recording is made of, and
// returns use(before, late, invoke, after, probe, route): before() and late() write the
// arguments, invoke(real) makes the real call, after(status) writes the outcome, probe() (a
// setter's) compares its values with the handle's, and route(variant) says which loaded
// library the call goes to.
template <FnId kId, typename Ret, int kValueSlot = -1, bool kStampedOnce = false, bool kPassesThrough = false,
          typename Fail, typename MakeMoments,
          typename StateArgs, typename... Args>
[[gnu::always_inline]] inline Ret intercept(Fail fail_value, const void* caller, MakeMoments&& make_moments,
                                            [[maybe_unused]] StateArgs&& state_args, Args... args) {
  constexpr uint16_t id = static_cast<uint16_t>(kId);
  ThreadState& ts = thread_state();
  if constexpr (kStampedOnce && !std::is_void_v<Ret>) {
    // A setter that changes nothing returns here, counted (or, when it failed, recorded from
    // the handle's state).
    static constexpr UnchangedSetter kSetter{
        id, static_cast<int (*)(const HandleState&, uint64_t*)>(std::remove_reference_t<StateArgs>{})};
    Ret ret;
    const bool unchanged = make_moments(
        [&](auto&&, auto&&, auto&& invoke, auto&&, auto&& probe, auto&&) __attribute__((always_inline)) {
          return call_if_unchanged<id, Ret, true>(ts, kSetter, probe, invoke, caller, ret);
        },
        args...);
    if (unchanged) [[likely]] return ret;
    return record_setter_call<kId, Ret, kValueSlot, kPassesThrough>(kSetter, fail_value, caller, make_moments, args...);
  } else {
    if (Runtime* rt = plain_recording_runtime(ts)) [[likely]] {
      return make_moments(
          [&](auto&& before, auto&& late, auto&& invoke, auto&& after, auto&&, auto&&) __attribute__((always_inline)) {
            return record_call<kId, Ret, kValueSlot, kStampedOnce, true>(ts, rt, fail_value, caller, before, late,
                                                                         invoke, after);
          },
          args...);
    }
    return record_general_call<kId, Ret, kValueSlot, kStampedOnce, kPassesThrough>(fail_value, caller, make_moments, args...);
  }
}

}  // namespace cublasspy
