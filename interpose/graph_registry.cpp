#include "graph_registry.h"

#include <atomic>
#include <map>
#include <mutex>
#include <vector>

#include "runtime.h"
#include "shadow_table.h"
#include "driver_table.h"
#include "trace/trace_format.h"

namespace cublasspy {

constinit std::atomic<int64_t> detail::g_captures_underway{0};
using detail::g_captures_underway;

namespace {

struct GraphState {
  std::atomic<uint64_t> key{0};  // the cudaGraph_t
  std::atomic<uint64_t> capture_id{0};
};
struct ExecState {
  std::atomic<uint64_t> key{0};  // the cudaGraphExec_t
  std::atomic<uint64_t> graph{0};
  std::atomic<uint64_t> capture_id{0};
  std::atomic<uint64_t> launches{0};
};
// Programs keep a few graphs per model and shape (PyTorch, vLLM: tens to hundreds).
constinit ShadowTable<GraphState, 4096, 0xc4ceb9fe1a85ec53ull> g_graphs;
constinit ShadowTable<ExecState, 4096, 0x9e3779b97f4a7c15ull> g_execs;

// The captured operands, by capture. Written while capturing, read before a checked launch;
// bounded, so that a program capturing in a loop cannot grow it without end.
constexpr size_t kMaxCapturedOperands = 1 << 16;
std::mutex g_operands_mutex;
std::map<uint64_t, std::vector<CapturedOperand>>* g_operands = nullptr;  // never destroyed
size_t g_operand_count = 0;

// The capture `s` is in, from the driver's tables (capture_of).
uint64_t capture_id_from(const DriverApi& api, CUstream s) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t id = 0;
  if (api.stream_get_capture_info != nullptr &&
      api.stream_get_capture_info(s, &status, &id, nullptr, nullptr, nullptr) == CUDA_SUCCESS) {
    if (status == CU_STREAM_CAPTURE_STATUS_NONE) return 0;
    return id != 0 ? id : format::kCaptureIdUnknown;
  }
  if (api.stream_is_capturing == nullptr || api.stream_is_capturing(s, &status) != CUDA_SUCCESS) return 0;
  return status == CU_STREAM_CAPTURE_STATUS_NONE ? 0 : format::kCaptureIdUnknown;
}

}  // namespace

uint64_t capture_of(uint64_t stream) {
  ThreadState& ts = thread_state();
  ts.internal++;
  DriverApi scratch;
  const uint64_t id = capture_id_from(driver_table(scratch), reinterpret_cast<CUstream>(stream));
  ts.internal--;
  return id;
}

void capture_began() { g_captures_underway.fetch_add(1, std::memory_order_relaxed); }

void capture_ended(uint64_t capture_id, uint64_t graph) {
  int64_t n = g_captures_underway.load(std::memory_order_relaxed);
  while (n > 0 && !g_captures_underway.compare_exchange_weak(n, n - 1, std::memory_order_relaxed)) {
  }
  if (graph == 0) return;
  if (GraphState* g = g_graphs.claim(graph)) g->capture_id.store(capture_id, std::memory_order_release);
}

uint64_t capture_of_graph(uint64_t graph) {
  const GraphState* g = g_graphs.find(graph);
  return g != nullptr ? g->capture_id.load(std::memory_order_acquire) : 0;
}

void graph_instantiated(uint64_t graph, uint64_t exec) {
  ExecState* e = g_execs.claim(exec);
  if (e == nullptr) return;
  e->graph.store(graph, std::memory_order_relaxed);
  e->capture_id.store(capture_of_graph(graph), std::memory_order_relaxed);
  e->launches.store(0, std::memory_order_release);
}

GraphLaunch graph_launched(uint64_t exec) {
  GraphLaunch out;
  ExecState* e = g_execs.find(exec);
  if (e == nullptr) return out;
  out.graph = e->graph.load(std::memory_order_relaxed);
  out.capture_id = e->capture_id.load(std::memory_order_relaxed);
  out.number = e->launches.fetch_add(1, std::memory_order_relaxed) + 1;
  return out;
}

void note_captured_operand(uint64_t capture_id, const CapturedOperand& operand) {
  if (capture_id == 0 || capture_id == format::kCaptureIdUnknown || operand.address == 0) return;
  std::lock_guard<std::mutex> lock(g_operands_mutex);
  if (g_operand_count >= kMaxCapturedOperands) return;
  if (g_operands == nullptr) g_operands = new std::map<uint64_t, std::vector<CapturedOperand>>();
  (*g_operands)[capture_id].push_back(operand);
  g_operand_count++;
}

std::optional<CapturedOperand> find_freed_operand(uint64_t capture_id) {
  if (capture_id == 0) return std::nullopt;
  std::vector<CapturedOperand> operands;
  {
    std::lock_guard<std::mutex> lock(g_operands_mutex);
    if (g_operands == nullptr) return std::nullopt;
    auto it = g_operands->find(capture_id);
    if (it == g_operands->end()) return std::nullopt;
    operands = it->second;
  }
  ThreadState& ts = thread_state();
  ts.internal++;
  DriverApi scratch;
  const auto address_range = driver_table(scratch).mem_get_address_range;
  std::optional<CapturedOperand> freed;
  for (const CapturedOperand& o : operands) {
    CUdeviceptr base = 0;
    size_t size = 0;
    if (address_range == nullptr) break;
    if (address_range(&base, &size, static_cast<CUdeviceptr>(o.address)) != CUDA_SUCCESS) {
      freed = o;
      break;
    }
  }
  ts.internal--;
  return freed;
}

}  // namespace cublasspy
