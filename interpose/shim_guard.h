// The boundary between the shim's own work and the program's call. The shim's work (its
// set-up, the trace's opening, checks, scans, dumps, locations, warnings) allocates, and an
// allocation can fail; nothing it throws may unwind into the program (a C caller has no
// handler for it, a C++ caller's would catch what is not its own), nor end the program through
// std::terminate. Every entry point catches it: the wrappers around their shim work
// (intercept.h, launch_hooks.cpp, ...), the cold functions they call around theirs, with
// shim_guarded. That ends the shim's work where it stands, puts the thread's bookkeeping back
// as it was, says so once on stderr, and lets the program's call go on.
//
// The one exception passed on is glibc's thread cancellation (abi::__forced_unwind): a
// pthread_cancel that reaches a cancellation point in the shim's work (a write, an open) must
// end the thread as it would anywhere else. Hence no noexcept on these paths, which would turn
// it into std::terminate. A try block costs nothing until something throws.
#pragma once

#include <cxxabi.h>

#include <utility>

#include "runtime.h"
#include "shim_log.h"

namespace cublasspy {

// Runs `work`; false when it threw.
template <typename Work>
[[gnu::always_inline]] inline bool shim_guarded(Work&& work) {
  ThreadState& ts = thread_state();
  const uint32_t internal = ts.internal, depth = ts.depth;
  format::RecordSlot* const current = ts.current;
  try {
    std::forward<Work>(work)();
    return true;
  } catch (const abi::__forced_unwind&) {
    ts.internal = internal;
    ts.depth = depth;
    ts.current = current;
    throw;
  } catch (...) {
    ts.internal = internal;
    ts.depth = depth;
    ts.current = current;
    note_shim_exception();
    return false;
  }
}

// Runs `work` and returns what it returns, or `otherwise` when it threw.
template <typename T, typename Work>
[[gnu::always_inline]] inline T shim_guarded_or(T otherwise, Work&& work) {
  T result = otherwise;
  if (!shim_guarded([&] { result = std::forward<Work>(work)(); })) return otherwise;
  return result;
}

}  // namespace cublasspy
