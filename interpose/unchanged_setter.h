// A handle setter that sets the value the handle already holds: counted, not recorded.
//
// PyTorch calls cublasSetStream_v2, cublasSetWorkspace_v2 and cublasSetMathMode before every
// GEMM, almost always with the values the handle has; a record each was most of what trace mode
// added to a small torch.mm (docs/BENCHMARKS.md). Nothing is lost by leaving them out: the
// handle's state is in the shadow registry (handle_registry.h) and every GEMM's record carries
// it (stream, pointer mode, math mode; the workspace in RecordSlot::workspace). Such a call that
// succeeds is counted per function (FileHeader::unchanged_offset), not per handle: a handle's
// count would need a table keyed by handle and a locked increment wherever threads share one,
// and what the count is for, how many calls the program made and that they changed nothing, the
// per-function count says. A setter that changes a value, or fails, is recorded as before (the
// failing one after the call, flagged kFlagUnchangedSetter). A crash inside one is still
// attributed to it: the thread names the call in flight (ThreadState::unchanged) and the
// fatal-signal handler writes its record (record_unchanged_in_flight), its arguments read back
// from the handle's state, which they equal.
//
// Not when the shim inspects calls (checks, sync, scans, dumps), which want every call.
// Two threads setting one handle at once race in cuBLAS itself (a handle is not thread-safe
// to modify); the shadow state is then as uncertain as cuBLAS's.
#pragma once

#include <atomic>
#include <cstdint>

#include "handle_registry.h"
#include "hook_table.h"
#include "real_functions.h"
#include "runtime.h"
#include "trace/trace_format.h"

namespace cublasspy {

// What the fatal-signal handler needs of a setter, fixed per function (a constant of its
// wrapper): the record's function and how to write its arguments. An unchanged setter's
// arguments are the handle and the values the handle already holds, so they are read back from
// the handle's state (the tags' state_arg()) instead of being stored for every call.
struct UnchangedSetter {
  uint16_t function_id;
  int (*args_from_state)(const HandleState& state, uint64_t* args);  // writes them; their count
};

// What a setter's tags' probe() find: whether every value equals the handle's, and the handle's
// state. Local to the wrapper (kept in registers).
struct UnchangedProbe {
  bool unchanged = true;
  HandleState* state = nullptr;
  // The handle looked up in the thread's last look-up alone (find_last_handle): the wrapper's
  // inline case, which calls no function but the real one.
  bool inline_only = false;
};

// The fatal-signal handler's: when the thread is inside an unchanged setter's real call (and in
// no intercepted call made from it), claims and publishes a record of it as in flight, takes the
// call back out of the unchanged count, and returns the record; nullptr otherwise.
// Async-signal-safe: no allocation, no lock.
format::RecordSlot* record_unchanged_in_flight(ThreadState& ts);

// After an unchanged setter's real call (ThreadState::unchanged still names it), when it failed
// or the fatal-signal handler recorded it (the program handled the signal and the call
// returned): a failure is taken out of the unchanged count and recorded with its arguments read
// back from the handle's state, as any failing call is (its site from `caller`,
// CUBLASSPY_ON_ERROR); a record the handler made is completed with `status`. Clears the
// thread's note of the call. Cold.
[[gnu::cold, gnu::noinline]] void finish_unusual_unchanged(ThreadState& ts, int status, const void* caller);

// For a setter's wrapper (kStampedOnce): when trace mode records calls and the setter's values
// equal the handle's, calls the real function into `ret` and says true; the call is counted
// (before it: after the call the wrapper needs nothing but the thread's state, so no register
// keeps the arguments across it). Otherwise it calls nothing, says false, and the wrapper
// records the call as usual. `probe` fills an UnchangedProbe from the arguments (the tags'
// probe(); the handle first). While the real call runs, the thread names the setter, its
// handle's state and its depth (ThreadState::unchanged): three stores, where a copy of the
// call's description took a dozen.
// kInlineOnly: the wrapper's own case, which calls no function of the shim before the real one
// (so that its arguments need no register that outlives a call): it says false where the shim
// is not set up yet or not plain (plain_recording_runtime), the handle is not the thread's
// last, or the real function is not resolved yet, and the wrapper's out-of-line path asks again
// without the restriction.
template <uint16_t kId, typename Ret, bool kInlineOnly, typename Probe, typename Invoke>
[[gnu::always_inline]] inline bool call_if_unchanged(ThreadState& ts, const UnchangedSetter& setter, Probe&& probe,
                                                     Invoke&& invoke, const void* caller, Ret& ret) {
  // The inline case's runtime is plain, which does not inspect.
  Runtime* rt = kInlineOnly ? plain_recording_runtime(ts) : recording_runtime(ts);
  if (rt == nullptr || (!kInlineOnly && rt->inspecting)) [[unlikely]] return false;
  UnchangedProbe found;
  found.inline_only = kInlineOnly;
  probe(found);
  if (!found.unchanged) return false;
  void* fn = resolved_real(kId, found.state->variant.load(std::memory_order_relaxed));
  if (fn == nullptr) [[unlikely]] {  // its first call: found now, as intercept() would
    if constexpr (kInlineOnly) return false;
    fn = resolve_real(kHookLibraries[kId], kId, hook_name(kId), found.state->variant.load(std::memory_order_relaxed));
    if (fn == nullptr) return false;  // recorded as unresolved
  }
  if constexpr (kInlineOnly) {
    if (!rt->writer.count_unchanged_in_current(kId, ts.claim)) return false;
  } else {
    rt->writer.count_unchanged(kId, ts.claim);
  }
  // Named before the call, cleared after: a fatal signal in between records it.
  const uint32_t depth = ts.depth;
  ts.unchanged.state = found.state;
  ts.unchanged.depth = depth;
  ts.unchanged.setter = &setter;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  ts.depth = depth + 1;
  ret = invoke(fn);
  ts.depth--;  // as it was: the calls made inside the real one put it back
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (static_cast<int>(ret) != 0 || ts.unchanged.slot != nullptr) [[unlikely]] {
    // Inlined into the wrapper (always_inline), __builtin_return_address(0) is the wrapper's
    // caller, `caller` itself: read here, where it is needed, no register keeps it across the
    // real call.
    if constexpr (kInlineOnly) caller = __builtin_return_address(0);
    finish_unusual_unchanged(ts, static_cast<int>(ret), caller);
  } else {
    ts.unchanged.setter = nullptr;
  }
  return true;
}

}  // namespace cublasspy
