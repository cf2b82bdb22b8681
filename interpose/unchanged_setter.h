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
};

// The fatal-signal handler's: when the thread is inside an unchanged setter's real call (and in
// no intercepted call made from it), claims and publishes a record of it as in flight and
// returns it; nullptr otherwise. Async-signal-safe: no allocation, no lock.
format::RecordSlot* record_unchanged_in_flight(ThreadState& ts);

// An unchanged setter recorded by the fatal-signal handler returned after all (the program
// handled the signal): its record completed with `status`, and the thread's note cleared.
[[gnu::cold]] void complete_signaled_unchanged(Runtime& rt, ThreadState& ts, int status);

template <typename Ret>
struct UnchangedOutcome {
  bool called = false;  // the real function was called: `ret` is its result
  bool done = false;    // and nothing more is to be done (counted, or completed)
  Ret ret{};
};

// For a setter's wrapper (kStampedOnce): when trace mode records calls and the setter's values
// equal the handle's, calls the real function, and counts the call if it succeeded. Otherwise
// nothing is called and the wrapper records the call as usual. `probe` fills an UnchangedProbe
// from the arguments (the tags' probe(); the handle first). While the real call runs, the
// thread names the setter, its handle's state and its depth (ThreadState::unchanged): three
// stores, where a copy of the call's description took a dozen.
template <uint16_t kId, typename Ret, typename Probe, typename Invoke>
[[gnu::always_inline]] inline UnchangedOutcome<Ret> call_if_unchanged(ThreadState& ts, const UnchangedSetter& setter,
                                                                     Probe&& probe, Invoke&& invoke) {
  UnchangedOutcome<Ret> out;
  Runtime* rt = recording_runtime(ts);
  if (rt == nullptr || rt->inspecting) [[unlikely]] return out;
  UnchangedProbe found;
  probe(found);
  if (!found.unchanged) return out;
  void* fn = resolved_real(kId, found.state->variant.load(std::memory_order_relaxed));
  if (fn == nullptr) [[unlikely]] {  // its first call: found now, as intercept() would
    fn = resolve_real(kHookLibraries[kId], kId, hook_name(kId), found.state->variant.load(std::memory_order_relaxed));
    if (fn == nullptr) return out;  // recorded as unresolved
  }
  // Named before the call, cleared after: a fatal signal in between records it.
  const uint32_t depth = ts.depth;
  ts.unchanged.state = found.state;
  ts.unchanged.depth = depth;
  ts.unchanged.setter = &setter;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  ts.depth = depth + 1;
  out.ret = invoke(fn);
  ts.depth = depth;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  ts.unchanged.setter = nullptr;
  out.called = true;
  const int status = static_cast<int>(out.ret);
  if (ts.unchanged.slot != nullptr) [[unlikely]] {
    complete_signaled_unchanged(*rt, ts, status);
    out.done = true;
  } else if (status == 0) [[likely]] {
    rt->writer.count_unchanged(kId, ts.claim);
    out.done = true;
  }
  return out;
}

}  // namespace cublasspy
