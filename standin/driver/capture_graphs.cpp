// The capture and graph API's bodies (driver_graphs.cpp and driver_legacy_names.cpp export them):
// beginning and ending a capture, its status, instantiating, launching, uploading and destroying
// graphs. The rules they keep are capture.cpp's.
#include "capture.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "capture_state.h"

namespace standin::driver {

CUresult begin_capture(CUstream stream, CUstreamCaptureMode mode) {
  if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
      mode != CU_STREAM_CAPTURE_MODE_RELAXED) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!stream_valid(stream)) return CUDA_ERROR_INVALID_HANDLE;
  if (is_legacy(stream)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;  // the legacy stream cannot be captured
  State& st = state();
  std::lock_guard lock(st.mutex);
  if (capture_of(st, stream) != nullptr) return CUDA_ERROR_ILLEGAL_STATE;  // already capturing
  auto c = std::make_shared<Capture>();
  c->id = st.next_id++;
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->origin = canonical(stream);
  c->device = device_of(stream);
  c->graph = new CUgraph_st;
  c->graph->capturing = true;
  st.graphs.insert(c->graph);
  c->members[c->origin].blocking = is_blocking(stream);
  st.by_stream[c->origin] = c;
  st.underway.push_back(c);
  captures_underway.fetch_add(1, std::memory_order_release);
  return CUDA_SUCCESS;
}

CUresult end_capture(CUstream stream, CUgraph* graph) {
  if (graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!stream_valid(stream)) return CUDA_ERROR_INVALID_HANDLE;
  State& st = state();
  std::lock_guard lock(st.mutex);
  auto c = capture_of(st, stream);
  if (c == nullptr) return CUDA_ERROR_ILLEGAL_STATE;  // not capturing
  if (c->origin != canonical(stream)) return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
  if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && c->thread != std::this_thread::get_id()) {
    return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
  }
  end(st, c);
  CUresult r = c->invalidated ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS;
  if (r == CUDA_SUCCESS) {
    const Clock& origin = c->members[c->origin].clock;
    for (const auto& [s, m] : c->members) {
      if (s == c->origin) continue;
      auto own = m.clock.find(s);
      auto seen = origin.find(s);
      if (own != m.clock.end() && own->second > (seen == origin.end() ? 0 : seen->second)) {
        r = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
        break;
      }
    }
  }
  *graph = nullptr;
  if (r != CUDA_SUCCESS) {
    st.graphs.erase(c->graph);
    delete c->graph;
  } else {
    c->graph->capturing = false;
    *graph = c->graph;
  }
  c->graph = nullptr;
  return r;
}

CUresult capture_status(CUstream stream, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* graph,
                        const CUgraphNode** dependencies, const CUgraphEdgeData** edge_data, size_t* count) {
  if (status == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!stream_valid(stream)) return CUDA_ERROR_INVALID_HANDLE;
  if (edge_data != nullptr) *edge_data = nullptr;
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (nothing_underway()) return CUDA_SUCCESS;
  State& st = state();
  std::lock_guard lock(st.mutex);
  auto c = capture_of(st, stream);
  if (c == nullptr) {
    // The legacy stream beside a blocking capture: its status is unspecified (not invalidating).
    if (is_legacy(stream) && !blocking_captures(st, device_of(stream)).empty()) {
      return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    }
    return CUDA_SUCCESS;
  }
  *status = c->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  if (id != nullptr) *id = c->id;
  if (graph != nullptr) *graph = c->graph;
  const Member& m = c->members[canonical(stream)];
  if (dependencies != nullptr) *dependencies = m.last != nullptr ? &m.last : nullptr;
  if (count != nullptr) *count = m.last != nullptr ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult exchange_capture_mode(CUstreamCaptureMode* mode) {
  if (mode == nullptr || (*mode != CU_STREAM_CAPTURE_MODE_GLOBAL && *mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
                          *mode != CU_STREAM_CAPTURE_MODE_RELAXED)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::swap(thread_mode, *mode);
  return CUDA_SUCCESS;
}

CUresult instantiate(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
  constexpr unsigned long long kKnown = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
                                        CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD | CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH |
                                        CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
  if (exec == nullptr || graph == nullptr || (flags & ~kKnown) != 0) return CUDA_ERROR_INVALID_VALUE;
  State& st = state();
  std::lock_guard lock(st.mutex);
  if (st.graphs.count(graph) == 0) return CUDA_ERROR_INVALID_HANDLE;
  auto* e = new CUgraphExec_st;
  e->nodes = graph->nodes;  // the nodes are immutable: an exec shares them
  e->flags = flags;
  st.execs.insert(e);
  *exec = e;
  return CUDA_SUCCESS;
}

CUresult graph_launch(CUgraphExec exec, CUstream stream) {
  if (exec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  NodeList nodes;
  {
    State& st = state();
    std::lock_guard lock(st.mutex);
    if (st.execs.count(exec) == 0) return CUDA_ERROR_INVALID_HANDLE;
    nodes = exec->nodes;
  }
  if (!stream_valid(stream)) return CUDA_ERROR_INVALID_HANDLE;
  bool record = false;
  if (CUresult r = capture_enqueue(stream, &record); r != CUDA_SUCCESS) return r;
  if (const int sticky = standin_sticky_error()) return static_cast<CUresult>(sticky);
  if (record) {  // a graph launched into a capture: its nodes, as one child-graph node
    auto* child = new NodeList(std::move(nodes));
    return capture_record(
        stream, "graph", [](void* d) { return run_nodes(*static_cast<NodeList*>(d)); }, child,
        [](void* d) { delete static_cast<NodeList*>(d); });
  }
  run_nodes(nodes);  // a fault is sticky, and reported by the next synchronizing call
  return CUDA_SUCCESS;
}

CUresult graph_upload(CUgraphExec exec, CUstream stream) {
  if (exec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  {
    State& st = state();
    std::lock_guard lock(st.mutex);
    if (st.execs.count(exec) == 0) return CUDA_ERROR_INVALID_HANDLE;
  }
  if (!stream_valid(stream)) return CUDA_ERROR_INVALID_HANDLE;
  return static_cast<CUresult>(standin_sticky_error());  // nothing to upload: "device" memory is host memory
}

CUresult graph_destroy(CUgraph graph) {
  if (graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  State& st = state();
  std::lock_guard lock(st.mutex);
  if (st.graphs.count(graph) == 0) return CUDA_ERROR_INVALID_HANDLE;
  if (graph->capturing) return CUDA_ERROR_INVALID_VALUE;  // a capture still records into it
  st.graphs.erase(graph);
  delete graph;
  return CUDA_SUCCESS;
}

CUresult graph_exec_destroy(CUgraphExec exec) {
  if (exec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  State& st = state();
  std::lock_guard lock(st.mutex);
  if (st.execs.erase(exec) == 0) return CUDA_ERROR_INVALID_HANDLE;
  delete exec;
  return CUDA_SUCCESS;
}

// Without `nodes`, the count; with it, up to *count handles (the rest of the array nulled) and
// *count the number written.
CUresult graph_nodes(CUgraph graph, CUgraphNode* nodes, size_t* count) {
  if (graph == nullptr || count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  State& st = state();
  std::lock_guard lock(st.mutex);
  if (st.graphs.count(graph) == 0) return CUDA_ERROR_INVALID_HANDLE;
  const size_t have = graph->nodes.size();
  if (nodes == nullptr) {
    *count = have;
    return CUDA_SUCCESS;
  }
  const size_t n = std::min(have, *count);
  for (size_t i = 0; i < *count; ++i) nodes[i] = i < n ? graph->nodes[i].get() : nullptr;
  *count = n;
  return CUDA_SUCCESS;
}

// The graph in DOT: its nodes in launch order, each depending on the one before.
CUresult graph_dot_print(CUgraph graph, const char* path) {
  if (graph == nullptr || path == nullptr) return CUDA_ERROR_INVALID_VALUE;
  State& st = state();
  std::lock_guard lock(st.mutex);
  if (st.graphs.count(graph) == 0) return CUDA_ERROR_INVALID_HANDLE;
  FILE* f = std::fopen(path, "w");
  if (f == nullptr) return CUDA_ERROR_OPERATING_SYSTEM;
  std::fprintf(f, "digraph dot {\n");
  for (size_t i = 0; i < graph->nodes.size(); ++i) {
    std::fprintf(f, "  node%zu [label=\"%zu: %s\"];\n", i, i, graph->nodes[i]->kind.c_str());
    if (i > 0) std::fprintf(f, "  node%zu -> node%zu;\n", i - 1, i);
  }
  std::fprintf(f, "}\n");
  return std::fclose(f) == 0 ? CUDA_SUCCESS : CUDA_ERROR_OPERATING_SYSTEM;
}

}  // namespace standin::driver
