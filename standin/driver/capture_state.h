// The state of stream capture, shared by CUDA's rules (capture.cpp) and the capture and graph
// API (capture_graphs.cpp); capture.cpp says how captures work. Internal to the driver: the
// functions marked "under the lock" need State::mutex held.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "driver_state.h"

struct CUgraphNode_st {
  std::string kind;
  int (*run)(void*);
  void* data;
  void (*destroy)(void*);
  CUgraphNode_st(const char* k, int (*r)(void*), void* d, void (*f)(void*))
      : kind(k ? k : "work"), run(r), data(d), destroy(f) {}
  CUgraphNode_st(const CUgraphNode_st&) = delete;
  CUgraphNode_st& operator=(const CUgraphNode_st&) = delete;
  ~CUgraphNode_st() {
    if (destroy != nullptr) destroy(data);
  }
};

using NodeList = std::vector<std::shared_ptr<CUgraphNode_st>>;

struct CUgraph_st {
  NodeList nodes;
  bool capturing = false;  // a capture still records into it: it may not be destroyed
};

struct CUgraphExec_st {
  NodeList nodes;
  unsigned long long flags = 0;
};

namespace standin::driver {

// How many nodes of each stream of a capture a stream's next work depends on.
using Clock = std::unordered_map<CUstream, uint64_t>;

struct Member {
  Clock clock;                 // clock[own stream]: the nodes this stream recorded
  bool blocking = true;        // synchronizes with the legacy stream
  CUgraphNode last = nullptr;  // its last node (cuStreamGetCaptureInfo's dependency)
};

struct Capture {
  unsigned long long id = 0;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  std::thread::id thread;
  CUstream origin = nullptr;
  int device = 0;
  bool invalidated = false;
  bool ended = false;
  CUgraph graph = nullptr;
  std::unordered_map<CUstream, Member> members;
};

struct Point {
  std::shared_ptr<Capture> capture;
  Clock clock;
};

struct State {
  std::mutex mutex;
  std::unordered_map<CUstream, std::shared_ptr<Capture>> by_stream;  // capturing streams
  std::vector<std::shared_ptr<Capture>> underway;                    // begun, not ended
  std::unordered_set<CUgraph> graphs;                                // live graph handles
  std::unordered_set<CUgraphExec> execs;
  unsigned long long next_id = 1;
};

State& state();

extern std::atomic<int> captures_underway;  // state().underway.size(), for the fast paths
extern thread_local CUstreamCaptureMode thread_mode;
extern thread_local int exempt;  // standin_capture_exempt

bool is_legacy(CUstream s);
// The stream a handle names: the per-thread stream is a different one on every thread.
CUstream canonical(CUstream s);
// Whether a (valid) stream synchronizes with the legacy stream: created without
// CU_STREAM_NON_BLOCKING, or the per-thread stream.
bool is_blocking(CUstream s);
int device_of(CUstream s);

// ---- under the lock ----
std::shared_ptr<Capture> capture_of(State& st, CUstream s);
// Captures of a blocking stream on `device`: the legacy stream would depend on their work.
std::vector<Capture*> blocking_captures(State& st, int device);
// The captures whose presence prohibits a potentially unsafe call from this thread.
std::vector<Capture*> prohibiting(State& st);
CUresult invalidate_all(const std::vector<Capture*>& captures, CUresult code);
void end(State& st, const std::shared_ptr<Capture>& c);
// A Point's capture, if it is still underway.
std::shared_ptr<Capture> live_capture(const void* point);

// ---- without the lock ----
bool nothing_underway();
bool range_ok(const void* p, size_t bytes, bool host_ok);
// Runs a graph's nodes in order; the first fault stops them and stays sticky.
int run_nodes(const NodeList& nodes);

}  // namespace standin::driver
