// Stream capture and CUDA graphs: the state, CUDA's rules, and the private interface through which
// the runtime and cuBLAS take part (standin_capture_*, standin_copy_range, standin_set_range).
//
// A capture records, instead of doing it, the work enqueued on its streams: each copy, memset,
// launch or GEMM becomes a node (a function and the arguments it copied when it was enqueued),
// appended in the order it was enqueued, which respects every dependency between the capture's
// streams. A graph is that list; an instantiated graph (CUgraphExec) a copy of it; a launch runs
// the nodes in order on the calling thread (all work is synchronous on the stand-in), stops at
// the first node that faults and leaves its error sticky, as a kernel fault does.
//
// Streams join a capture the way CUDA's do: the capture's origin stream records an event, another
// stream waits on it (a fork); the forked stream's work is captured too, and must be joined back
// (the origin waits on an event recorded after it) before the origin ends the capture. Each stream
// of a capture keeps a vector clock, how many nodes of each stream of the capture its next work
// depends on; an event recorded in a capture is a point (such a clock); a wait merges it.
//
// The rules (cudaStreamBeginCapture, cudaThreadExchangeStreamCaptureMode, the programming
// guide's "Prohibited and Unhandled Operations"), each enforced with CUDA's code:
// * a potentially unsafe call (allocation, freeing, synchronous copies, synchronizing or querying a
//   stream that is not capturing, event queries) is prohibited, by the calling thread's mode:
//   Global if this thread has a capture underway that was not begun Relaxed, or another thread
//   has a Global one; ThreadLocal if this thread has one not begun Relaxed; Relaxed never. A
//   prohibited call returns 900 and invalidates those captures;
// * synchronizing or querying a capturing stream, or the context of any capture, always conflicts:
//   900, invalidating the capture;
// * the legacy stream while a blocking stream is capturing: 906, invalidating that capture;
// * an event last recorded in a capture that is underway cannot be queried or synchronized: 907;
// * a capturing stream may not wait on an event recorded outside its capture (905, unless
//   cudaEventWaitExternal) nor join another capture (902);
// * work enqueued on a stream whose capture was invalidated: 901, until the capture ends;
//   cuStreamEndCapture then returns 901 and no graph, and 904 when a forked stream was not joined.
#include "capture.h"

#include <algorithm>
#include <cstring>

#include "capture_state.h"

namespace standin::driver {

State& state() {
  static State* const s = new State;  // process lifetime: graphs may be destroyed at exit
  return *s;
}

std::atomic<int> captures_underway{0};
thread_local CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
thread_local int exempt = 0;          // standin_capture_exempt
static thread_local char per_thread_stream;  // what CU_STREAM_PER_THREAD stands for on this thread

bool is_legacy(CUstream s) { return s == nullptr || s == CU_STREAM_LEGACY; }

// The stream a handle names: the per-thread stream is a different one on every thread.
CUstream canonical(CUstream s) {
  return s == CU_STREAM_PER_THREAD ? reinterpret_cast<CUstream>(&per_thread_stream) : s;
}

// Whether a (valid) stream synchronizes with the legacy stream: created without
// CU_STREAM_NON_BLOCKING, or the per-thread stream.
bool is_blocking(CUstream s) {
  if (s == CU_STREAM_PER_THREAD || is_legacy(s)) return true;
  return (s->flags & CU_STREAM_NON_BLOCKING) == 0;
}

int device_of(CUstream s) {
  if (s != CU_STREAM_PER_THREAD && !is_legacy(s)) return s->device;
  CUcontext ctx = current_context();
  return ctx != nullptr ? ctx->device : 0;
}

// ---- under the lock ----------------------------------------------------------------------------

std::shared_ptr<Capture> capture_of(State& st, CUstream s) {
  auto it = st.by_stream.find(canonical(s));
  return it == st.by_stream.end() ? nullptr : it->second;
}

// Captures of a blocking stream on `device`: the legacy stream would depend on their work.
std::vector<Capture*> blocking_captures(State& st, int device) {
  std::vector<Capture*> found;
  for (const auto& c : st.underway) {
    if (c->device != device) continue;
    for (const auto& [stream, member] : c->members)
      if (member.blocking) {
        found.push_back(c.get());
        break;
      }
  }
  return found;
}

// The captures whose presence prohibits a potentially unsafe call from this thread.
std::vector<Capture*> prohibiting(State& st) {
  std::vector<Capture*> found;
  if (thread_mode == CU_STREAM_CAPTURE_MODE_RELAXED) return found;
  const std::thread::id me = std::this_thread::get_id();
  for (const auto& c : st.underway) {
    const bool mine = c->thread == me;
    if ((mine && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED) ||
        (!mine && thread_mode == CU_STREAM_CAPTURE_MODE_GLOBAL && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
      found.push_back(c.get());
    }
  }
  return found;
}

CUresult invalidate_all(const std::vector<Capture*>& captures, CUresult code) {
  for (Capture* c : captures) c->invalidated = true;
  return code;
}

void end(State& st, const std::shared_ptr<Capture>& c) {
  c->ended = true;
  for (const auto& [stream, member] : c->members) st.by_stream.erase(stream);
  st.underway.erase(std::find(st.underway.begin(), st.underway.end(), c));
  captures_underway.fetch_sub(1, std::memory_order_release);
}

// A Point's capture, if it is still underway.
std::shared_ptr<Capture> live_capture(const void* point) {
  if (point == nullptr) return nullptr;
  const auto& c = static_cast<const Point*>(point)->capture;
  return c->ended ? nullptr : c;
}

bool nothing_underway() { return captures_underway.load(std::memory_order_acquire) == 0; }

bool range_ok(const void* p, size_t bytes, bool host_ok) {
  standin_allocation a{};
  if (!find(p, &a)) return host_ok;
  const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - static_cast<const char*>(a.base));
  return bytes <= a.size - offset;
}

int run_nodes(const NodeList& nodes) {
  for (const auto& n : nodes) {
    if (const int sticky = standin_sticky_error()) return sticky;  // the context is gone: nothing more runs
    if (const int r = n->run(n->data); r != 0) {
      standin_set_sticky_error(r);
      return r;
    }
  }
  return 0;
}

// ---- the rules -----------------------------------------------------------------------------------

CUresult capture_enqueue(CUstream stream, bool* record) {
  *record = false;
  if (nothing_underway()) return CUDA_SUCCESS;
  State& st = state();
  std::lock_guard lock(st.mutex);
  if (auto c = capture_of(st, stream)) {
    if (c->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    *record = true;
    return CUDA_SUCCESS;
  }
  if (is_legacy(stream)) {
    const auto found = blocking_captures(st, device_of(stream));
    if (!found.empty()) return invalidate_all(found, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  }
  return CUDA_SUCCESS;
}

CUresult capture_record(CUstream stream, const char* kind, int (*run)(void*), void* data, void (*destroy)(void*)) {
  auto node = std::make_shared<CUgraphNode_st>(kind, run, data, destroy);  // frees data on failure
  State& st = state();
  std::lock_guard lock(st.mutex);
  auto c = capture_of(st, stream);
  if (c == nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  if (c->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  Member& m = c->members[canonical(stream)];
  ++m.clock[canonical(stream)];
  m.last = node.get();
  c->graph->nodes.push_back(std::move(node));
  return CUDA_SUCCESS;
}

CUresult capture_unsafe_call() {
  if (exempt != 0 || nothing_underway()) return CUDA_SUCCESS;
  State& st = state();
  std::lock_guard lock(st.mutex);
  const auto found = prohibiting(st);
  return found.empty() ? CUDA_SUCCESS : invalidate_all(found, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
}

CUresult capture_sync_stream(CUstream stream) {
  if (exempt != 0 || nothing_underway()) return CUDA_SUCCESS;
  State& st = state();
  std::lock_guard lock(st.mutex);
  if (auto c = capture_of(st, stream)) return invalidate_all({c.get()}, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  if (is_legacy(stream)) {
    const auto found = blocking_captures(st, device_of(stream));
    if (!found.empty()) return invalidate_all(found, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  }
  const auto found = prohibiting(st);
  return found.empty() ? CUDA_SUCCESS : invalidate_all(found, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
}

CUresult capture_sync_context() {
  if (exempt != 0 || nothing_underway()) return CUDA_SUCCESS;
  State& st = state();
  std::lock_guard lock(st.mutex);
  const int device = device_of(nullptr);
  std::vector<Capture*> here;
  for (const auto& c : st.underway)
    if (c->device == device) here.push_back(c.get());
  if (!here.empty()) return invalidate_all(here, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  const auto found = prohibiting(st);
  return found.empty() ? CUDA_SUCCESS : invalidate_all(found, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
}

void capture_forget_stream(CUstream stream) {
  if (nothing_underway()) return;
  State& st = state();
  std::lock_guard lock(st.mutex);
  auto c = capture_of(st, stream);
  if (c == nullptr) return;
  c->invalidated = true;
  if (c->origin == stream) {  // nobody can end it any more
    end(st, c);
    st.graphs.erase(c->graph);
    delete c->graph;
    c->graph = nullptr;
    return;
  }
  c->members.erase(stream);
  st.by_stream.erase(stream);
}

bool in_table(const void* p) {
  standin_allocation a{};
  return find(p, &a);
}

bool copy_range(void* dst, bool dst_host_ok, const void* src, bool src_host_ok, size_t bytes, bool act) {
  if (bytes == 0) return true;
  if (!range_ok(dst, bytes, dst_host_ok) || !range_ok(src, bytes, src_host_ok)) return false;
  if (act) std::memmove(dst, src, bytes);
  return true;
}

bool set_range(void* dst, unsigned value, size_t width, size_t count, bool act) {
  if (count == 0) return true;
  if (count > SIZE_MAX / width || !range_ok(dst, count * width, false)) return false;
  if (act) {
    char* out = static_cast<char*>(dst);
    for (size_t i = 0; i < count; ++i) std::memcpy(out + i * width, &value, width);  // little-endian: the low bytes
  }
  return true;
}

}  // namespace standin::driver

// ---- the private interface -----------------------------------------------------------------------

using namespace standin::driver;

extern "C" {

STANDIN_EXPORT int standin_capture_enqueue(const void* stream) {
  bool record = false;
  const CUresult r = capture_enqueue(static_cast<CUstream>(const_cast<void*>(stream)), &record);
  if (r != CUDA_SUCCESS) return r;
  return record ? STANDIN_RECORD : STANDIN_RUN_NOW;
}

STANDIN_EXPORT int standin_capture_node(const void* stream, const char* kind, int (*run)(void*), void* data,
                                        void (*destroy)(void*)) {
  return capture_record(static_cast<CUstream>(const_cast<void*>(stream)), kind, run, data, destroy);
}

STANDIN_EXPORT int standin_capture_unsafe_call(void) { return capture_unsafe_call(); }

STANDIN_EXPORT int standin_capture_sync_stream(const void* stream) {
  return capture_sync_stream(static_cast<CUstream>(const_cast<void*>(stream)));
}

STANDIN_EXPORT void standin_capture_exempt(int on) { exempt += on ? 1 : -1; }

STANDIN_EXPORT int standin_capture_record_point(const void* stream, void** point) {
  *point = nullptr;
  const CUstream s = static_cast<CUstream>(const_cast<void*>(stream));
  if (nothing_underway()) return CUDA_SUCCESS;
  State& st = state();
  std::lock_guard lock(st.mutex);
  if (auto c = capture_of(st, s)) {
    if (c->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    *point = new Point{c, c->members[canonical(s)].clock};
    return CUDA_SUCCESS;
  }
  if (is_legacy(s)) {
    const auto found = blocking_captures(st, device_of(s));
    if (!found.empty()) return invalidate_all(found, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  }
  return CUDA_SUCCESS;
}

STANDIN_EXPORT int standin_capture_wait_point(const void* stream, const void* point, int recorded, int external) {
  const CUstream s = static_cast<CUstream>(const_cast<void*>(stream));
  if (nothing_underway()) return CUDA_SUCCESS;
  State& st = state();
  std::lock_guard lock(st.mutex);
  auto mine = capture_of(st, s);
  if (auto theirs = live_capture(point)) {
    const Clock& clock = static_cast<const Point*>(point)->clock;
    if (mine != nullptr && mine != theirs) {  // two captures would merge
      mine->invalidated = theirs->invalidated = true;
      return CUDA_ERROR_STREAM_CAPTURE_MERGE;
    }
    if (theirs->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    if (mine == nullptr) {  // a fork: the stream joins the capture
      if (is_legacy(s)) return invalidate_all({theirs.get()}, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
      Member& m = theirs->members[canonical(s)];
      m.clock = clock;
      m.blocking = is_blocking(s);
      st.by_stream[canonical(s)] = theirs;
      return CUDA_SUCCESS;
    }
    Member& m = mine->members[canonical(s)];  // a join: the point's dependencies become the stream's
    for (const auto& [other, count] : clock) m.clock[other] = std::max(m.clock[other], count);
    return CUDA_SUCCESS;
  }
  if (mine != nullptr) {
    if (mine->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    // Work outside the capture cannot be a dependency of its graph; an event never recorded is
    // no dependency at all.
    if ((recorded || point != nullptr) && !external) {
      return invalidate_all({mine.get()}, CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
    }
    return CUDA_SUCCESS;
  }
  if (is_legacy(s)) {
    const auto found = blocking_captures(st, device_of(s));
    if (!found.empty()) return invalidate_all(found, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  }
  return CUDA_SUCCESS;
}

STANDIN_EXPORT int standin_capture_event_use(const void* point) {
  if (nothing_underway()) return CUDA_SUCCESS;
  {
    State& st = state();
    std::lock_guard lock(st.mutex);
    if (auto c = live_capture(point)) return invalidate_all({c.get()}, CUDA_ERROR_CAPTURED_EVENT);
  }
  return capture_unsafe_call();
}

STANDIN_EXPORT void standin_capture_point_release(void* point) {
  if (point == nullptr) return;
  State& st = state();
  std::lock_guard lock(st.mutex);  // the point's capture may be ending on another thread
  delete static_cast<Point*>(point);
}

STANDIN_EXPORT int standin_copy_range(void* dst, int dst_host_ok, const void* src, int src_host_ok, size_t bytes,
                                      int act) {
  return copy_range(dst, dst_host_ok != 0, src, src_host_ok != 0, bytes, act != 0) ? 1 : 0;
}

STANDIN_EXPORT int standin_set_range(void* dst, unsigned value, size_t width, size_t count, int act) {
  return set_range(dst, value, width, count, act != 0) ? 1 : 0;
}

}  // extern "C"
