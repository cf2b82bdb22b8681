// The shim's process-wide state: settings, the trace, and the per-thread bookkeeping. Set up on
// the first intercepted CUDA call (never in a constructor), reset in a forked child.
#pragma once

#include <atomic>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstdint>
#include <string>
#include <vector>

#include "dump/gemm_dump.h"
#include "handle_registry.h"
#include "settings/config.h"
#include "trace/trace_format.h"
#include "trace/trace_writer.h"

namespace cublasspy {

struct UnchangedSetter;  // unchanged_setter.h

// An unchanged handle setter whose real call runs, unrecorded (unchanged_setter.h): what the
// fatal-signal handler needs to record it.
struct UnchangedInFlight {
  const UnchangedSetter* setter = nullptr;  // nullptr: none
  HandleState* state = nullptr;             // its handle's
  uint32_t depth = 0;                       // ThreadState::depth when it began
  // Written by the fatal-signal handler when it recorded the call: the wrapper completes the
  // record if the program handled the signal and the call returned.
  format::RecordSlot* slot = nullptr;
  uint64_t seq = 0;
};

struct ThreadState {
  uint32_t tid = 0;      // cached gettid(); 0 until first use, reset in a forked child
  uint32_t depth = 0;    // intercepted calls on this thread's stack (nesting)
  uint32_t internal = 0; // >0 while the shim itself calls CUDA: such calls pass straight through
  format::RecordSlot* current = nullptr;  // the innermost call in flight on this thread
  UnchangedInFlight unchanged;
  // The last cuBLAS handle this thread looked up, and its shadow entry (find_handle): a
  // program makes all its calls on one or two handles, and hashing the handle for every call
  // was a tenth of what the shim added to a GEMM.
  uint64_t last_handle = 0;
  HandleState* last_handle_state = nullptr;
  ClaimCursor claim;            // this thread's block of ring tickets
  LaunchCursor launch;          // and of launch tickets, with its launch count table
};

// initial-exec TLS: no allocation and no lock on first access, safe in signal handlers. Kept
// small (a few words): a dlopen'ed shim must fit in glibc's static TLS surplus. constinit:
// zero-initialized, so other files reach it without a TLS wrapper call.
namespace detail {
extern constinit __attribute__((tls_model("initial-exec"))) thread_local ThreadState t_state;
}
inline ThreadState& thread_state() { return detail::t_state; }

// The calling thread's id, asked of the kernel once per thread.
inline uint32_t current_tid(ThreadState& ts) {
  if (ts.tid == 0) [[unlikely]] ts.tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return ts.tid;
}

// The shadow entry of cuBLAS handle `h`, nullptr when the shim did not see it created. The
// thread's last look-up is kept only while its entry still holds `h`: a destroyed handle's entry
// holds a tombstone, and one reused for another handle holds that handle.
HandleState* find_handle_slow(ThreadState& ts, uint64_t h);
// The thread's last look-up alone: nullptr when it was of another handle.
inline HandleState* find_last_handle(ThreadState& ts, uint64_t h) {
  HandleState* st = ts.last_handle_state;
  if (ts.last_handle == h && st != nullptr && st->key.load(std::memory_order_relaxed) == h) [[likely]] return st;
  return nullptr;
}
inline HandleState* find_handle(ThreadState& ts, uint64_t h) {
  if (HandleState* st = find_last_handle(ts, h)) [[likely]] return st;
  return find_handle_slow(ts, h);
}

// Whether a setting asks for work around every call (checks, sync, scans, dumps). When none
// does, a call that succeeded and is not a set-up call needs none of post_call.h's functions:
// the wrapper tests Runtime::inspecting inline, and the usual call in trace mode makes no call
// into them.
inline bool inspects_calls(const Config& c) {
  return c.check || c.sync || c.scan != ScanMode::kNone || c.dump != DumpMode::kNone;
}

class Runtime {
 public:
  explicit Runtime(Config settings)
      : config(std::move(settings)), dump_budget(config.dump_max_mb << 20) {}
  const Config config;
  const bool inspecting = inspects_calls(config);  // read by every call
  // The usual trace mode: no work around a call, and no location taken before the real one.
  // A wrapper's inline copy records such calls; every other case is its out-of-line copy
  // (intercept.h, record_general_call).
  const bool plain = !inspecting && config.stacks != StackMode::kAll;
  DumpBudget dump_budget;  // CUBLASSPY_DUMP's bytes, shared by every thread
  TraceWriter writer;
  // True once the process has made a successful CUDA/cuBLAS initialization (for fork reports).
  std::atomic<bool> cuda_ready{false};
  // True once a check or scan flagged a call of this process (keep_policy.h keeps its trace).
  std::atomic<bool> flagged{false};
  // Libraries named in the trace so far (process section "library" entries).
  std::vector<std::string> libraries_recorded;
  std::string trace_path;  // "" when the trace is memory only (dumps go next to it)
};

// Bumped by a successful cudaMalloc or cudaFree, the only allocation calls the shim hooks
// (live_checks.h): the per-thread cache of pointer attributes compares it.
std::atomic<uint64_t>& allocation_generation();

// The state runtime() and ensure_trace() read, for their usual case inline (runtime.cpp).
namespace detail {
enum InitState : int { kUninitialized = 0, kReady = 2, kDisabled = 3 };
extern std::atomic<int> g_init;
extern Runtime* g_runtime;
extern std::atomic<int> g_trace_attempted;
// Nonzero while the process records into its open trace with nothing to report first: the
// set-up done, the trace opened, no detached mapping unreported. One load for the calls' usual
// case, where runtime() and ensure_trace() took five; cleared by a fork (in the child) and by a
// trace detached under a fault, set again by the slow path once it has done what they ask.
// kRecordingPlain when, besides, the runtime asks for no work around a call (Runtime::plain):
// the wrappers' inline case tests that one value, and reads no line of the Runtime for it.
enum RecordingState : int { kNotRecording = 0, kRecording = 1, kRecordingPlain = 2 };
extern std::atomic<int> g_recording;
// What g_recording says once `rt` records into its open trace.
inline RecordingState recording_state(const Runtime& rt) { return rt.plain ? kRecordingPlain : kRecording; }
}  // namespace detail
Runtime* runtime_slow();
bool ensure_trace_slow(Runtime& rt);

// The runtime, set up on first use; nullptr when the shim is disabled (CUBLASSPY_DISABLE=1) or
// could not set up. Safe from any thread; a thread arriving during set-up waits for it.
inline Runtime* runtime() {
  if (detail::g_init.load(std::memory_order_acquire) == detail::kReady) [[likely]] return detail::g_runtime;
  return runtime_slow();
}

// Whether the shim is a pure pass-through for good: CUBLASSPY_DISABLE=1, a set-user-ID program,
// or a set-up that could not be made (runtime_slow). Final once said, so a relaxed load: the
// wrappers ask it on their way past the recording path.
inline bool passes_through() { return detail::g_init.load(std::memory_order_relaxed) == detail::kDisabled; }

// Opens the trace if this process (or this forked child) has none yet; says whether there is
// one. Cold path, but for its check.
inline bool ensure_trace(Runtime& rt) {
  if (detail::g_trace_attempted.load(std::memory_order_acquire) != 0 && !rt.writer.detached_unreported()) [[likely]] {
    return rt.writer.is_open();
  }
  return ensure_trace_slow(rt);
}

// The runtime when this thread's call is to be recorded (the shim set up, the trace open, and
// not the shim's own CUDA call); nullptr otherwise.
Runtime* recording_runtime_slow(ThreadState& ts);
inline Runtime* recording_runtime(ThreadState& ts) {
  if (ts.internal == 0 && detail::g_recording.load(std::memory_order_acquire) != detail::kNotRecording) [[likely]] {
    return detail::g_runtime;
  }
  return recording_runtime_slow(ts);
}
// The wrappers' inline case: the runtime when the call is to be recorded and the runtime asks
// for no work around it (Runtime::plain); nullptr otherwise, where recording_runtime() may still
// give one.
inline Runtime* plain_recording_runtime(ThreadState& ts) {
  if (ts.internal == 0 && detail::g_recording.load(std::memory_order_acquire) == detail::kRecordingPlain) [[likely]] {
    Runtime* rt = detail::g_runtime;
    // Set before g_recording is first set, and never cleared: no test for it.
    if (rt == nullptr) __builtin_unreachable();
    return rt;
  }
  return nullptr;
}

// Whether an exec made now ends a trace of this process: the shim is set up and this process
// has its trace open, and the caller is that process itself, not the child of a vfork, which
// runs in its parent's memory (the parent's trace and the shim's state) until its exec. Reads
// no lock and allocates nothing: such a child may call it.
bool exec_ends_own_trace();

// Called after CUBLASSPY_ON_ERROR applies: abort or trap once the record of hook `id`'s call is
// complete (an abort names the call and its status first, in the words of the function's
// library, the function table's).
void apply_error_policy(const Runtime& rt, uint16_t id, const format::Record& rec);

}  // namespace cublasspy
