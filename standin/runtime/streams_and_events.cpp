// Streams beyond create/destroy/synchronize (priorities, queries, waits) and events. All work is
// synchronous on the stand-in, so a stream is always idle and an event is complete the moment it
// is recorded; what remains is the bookkeeping a program can observe: handles that must be valid,
// priorities read back, elapsed times between two records, flags that forbid timing, and the
// sticky error, which every query and wait reports. During a stream capture, an event recorded on
// a capturing stream is a point of the capture, and waiting on it forks another stream into the
// capture or joins one back; the rules (which queries conflict with a capture) are the driver's.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "runtime_state.h"

using namespace standin::runtime;

struct CUevent_st {
  unsigned int flags;
  bool recorded = false;  // outside any capture
  std::chrono::steady_clock::time_point when{};
  void* point = nullptr;  // its last record was in a capture: the capture's point (driver/capture.cpp)
};

namespace {

// Stream priorities as a Hopper GPU reports them: 0 is the lowest, -5 the highest.
constexpr int kLeastPriority = 0;
constexpr int kGreatestPriority = -5;

struct State {
  std::mutex mutex;
  std::unordered_map<cudaStream_t, int> priorities;  // streams created with a priority
  std::unordered_set<cudaEvent_t> events;
};

State& state() {
  static State* const s = new State;  // process lifetime: PyTorch destroys events at exit
  return *s;
}

// Runs `fn` on the event under the lock; false when the handle is not a live event.
template <class Fn>
bool with_event(cudaEvent_t event, Fn fn) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (event == nullptr || s.events.count(event) == 0) return false;
  fn(*event);
  return true;
}

cudaError_t sticky_or(cudaError_t e) {
  const int sticky = standin_sticky_error();
  return sticky ? static_cast<cudaError_t>(sticky) : e;
}

cudaError_t create_event(cudaEvent_t* event, unsigned int flags) {
  constexpr unsigned kKnown = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (event == nullptr || (flags & ~kKnown) != 0) return cudaErrorInvalidValue;
  // An interprocess event must not time (cudaEventCreateWithFlags' documented rule).
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)) return cudaErrorInvalidValue;
  auto* e = new CUevent_st{flags};
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.events.insert(e);
  *event = e;
  return cudaSuccess;
}

}  // namespace

void standin::runtime::forget_stream(cudaStream_t stream) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.priorities.erase(stream);
}

extern "C" {

// ---- streams -------------------------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaDeviceGetStreamPriorityRange");
  STANDIN_RUNTIME_CONTEXT();
  if (leastPriority) *leastPriority = kLeastPriority;
  if (greatestPriority) *greatestPriority = kGreatestPriority;
  return finish(cudaSuccess, fault);
}

// Priorities outside the range are clamped to it, as CUDA does.
STANDIN_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamCreateWithPriority");
  if (pStream == nullptr || (flags != cudaStreamDefault && flags != cudaStreamNonBlocking)) {
    return record(cudaErrorInvalidValue);
  }
  STANDIN_RUNTIME_CONTEXT();
  const CUresult r = drv->cuStreamCreate(pStream, flags);
  if (r != CUDA_SUCCESS) return record(from_driver(r));
  const int clamped = priority > kLeastPriority ? kLeastPriority : (priority < kGreatestPriority ? kGreatestPriority : priority);
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.priorities[*pStream] = clamped;
  return finish(cudaSuccess, fault);
}

STANDIN_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int* priority) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamGetPriority");
  if (priority == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(hStream)) return record(cudaErrorInvalidResourceHandle);
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.priorities.find(hStream);
  *priority = it == s.priorities.end() ? kLeastPriority : it->second;
  return finish(cudaSuccess, fault);
}

// Every stream is idle: its work ran when it was enqueued.
// Querying a capturing stream conflicts with its capture; another one is a potentially unsafe call.
STANDIN_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamQuery");
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  if (const int e = standin_capture_sync_stream(stream)) return record(static_cast<cudaError_t>(e));
  return finish(sticky_or(cudaSuccess), fault);
}

// The per-thread-default-stream form: as its base (stream 0 is the thread's own).
STANDIN_EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamQuery_ptsz");
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  if (const int e = standin_capture_sync_stream(stream != nullptr ? stream : cudaStreamPerThread)) {
    return record(static_cast<cudaError_t>(e));
  }
  return finish(sticky_or(cudaSuccess), fault);
}

STANDIN_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaStreamWaitEvent");
  STANDIN_RUNTIME_CONTEXT();
  if (flags & ~static_cast<unsigned>(cudaEventWaitExternal)) return record(cudaErrorInvalidValue);
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  int joined = 0;  // a fork or join of a capture, or the capture rules' error
  if (!with_event(event, [&](CUevent_st& e) {
        joined = standin_capture_wait_point(stream, e.point, e.recorded, (flags & cudaEventWaitExternal) != 0);
      })) {
    return record(cudaErrorInvalidResourceHandle);
  }
  if (joined != 0) return record(static_cast<cudaError_t>(joined));
  return finish(sticky_or(cudaSuccess), fault);
}

// ---- events --------------------------------------------------------------------------------

STANDIN_EXPORT cudaError_t cudaEventCreate(cudaEvent_t* event) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaEventCreate");
  STANDIN_RUNTIME_CONTEXT();
  return finish(create_event(event, cudaEventDefault), fault);
}

STANDIN_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaEventCreateWithFlags");
  STANDIN_RUNTIME_CONTEXT();
  return finish(create_event(event, flags), fault);
}

STANDIN_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaEventDestroy");
  STANDIN_RUNTIME_CONTEXT();
  State& s = state();
  {
    std::lock_guard lock(s.mutex);
    if (event == nullptr || s.events.erase(event) == 0) return record(cudaErrorInvalidResourceHandle);
  }
  standin_capture_point_release(event->point);
  delete event;
  return finish(cudaSuccess, fault);
}

// The work before the event is done by now: the event completes at once. On a capturing stream
// the event becomes a point of the capture instead (what cudaStreamWaitEvent forks and joins by).
STANDIN_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaEventRecord");
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  if (const int sticky = standin_sticky_error()) return record(static_cast<cudaError_t>(sticky));
  void* point = nullptr;
  if (const int e = standin_capture_record_point(stream, &point)) return record(static_cast<cudaError_t>(e));
  const auto now = std::chrono::steady_clock::now();
  void* previous = nullptr;
  if (!with_event(event, [&](CUevent_st& e) {
        previous = e.point;
        e.point = point;
        if (point == nullptr) e.recorded = true, e.when = now;
      })) {
    standin_capture_point_release(point);
    return record(cudaErrorInvalidResourceHandle);
  }
  standin_capture_point_release(previous);
  return finish(cudaSuccess, fault);
}

// An event never recorded counts as complete, as in CUDA. During a capture, an event last
// recorded in it cannot be queried (cudaErrorCapturedEvent), and a query is a potentially unsafe
// call (cudaErrorStreamCaptureUnsupported where the thread's capture mode prohibits it).
static cudaError_t event_wait_named(const standin_fault_action& fault, cudaEvent_t event) {
  int rules = 0;
  if (!with_event(event, [&](CUevent_st& e) { rules = standin_capture_event_use(e.point); })) {
    return record(cudaErrorInvalidResourceHandle);
  }
  if (rules != 0) return record(static_cast<cudaError_t>(rules));
  return finish(sticky_or(cudaSuccess), fault);
}

STANDIN_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaEventQuery");
  STANDIN_RUNTIME_CONTEXT();
  return event_wait_named(fault, event);
}

STANDIN_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaEventSynchronize");
  STANDIN_RUNTIME_CONTEXT();
  return event_wait_named(fault, event);
}

// Both events must have been recorded and may not have been created with cudaEventDisableTiming.
STANDIN_EXPORT cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaEventElapsedTime");
  if (ms == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  CUevent_st a{}, b{};
  if (!with_event(start, [&](CUevent_st& e) { a = e; }) || !with_event(end, [&](CUevent_st& e) { b = e; })) {
    return record(cudaErrorInvalidResourceHandle);
  }
  if (!a.recorded || !b.recorded || ((a.flags | b.flags) & cudaEventDisableTiming)) {
    return record(cudaErrorInvalidResourceHandle);
  }
  if (const int sticky = standin_sticky_error()) return record(static_cast<cudaError_t>(sticky));
  *ms = std::chrono::duration<float, std::milli>(b.when - a.when).count();
  return finish(cudaSuccess, fault);
}

}  // extern "C"
