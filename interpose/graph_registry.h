// CUDA graphs as the shim sees them (CBS_GRAPH_HOOKS in hook_list.h): which capture a stream is
// in, the graph each capture made, the executable graphs instantiated from it and how often
// each was launched, and the device memory the GEMMs captured into each graph named. A graph
// runs its captured GEMMs again at every launch, with the addresses they had at capture: the
// launch ring's graph entries (trace_format.h, GraphWords) tie a fault in a replay to them.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>


namespace cublasspy {

namespace detail {
extern constinit std::atomic<int64_t> g_captures_underway;  // begun and not yet ended, never < 0
}
// Whether a capture the shim saw begin may still be underway: only then does a GEMM ask the
// driver which capture its stream is in. Inline: every GEMM asks (one load).
inline bool captures_underway() { return detail::g_captures_underway.load(std::memory_order_relaxed) > 0; }

// The capture `stream` is in: its id; format::kCaptureIdUnknown when it is capturing under an id
// the driver does not give; 0 when not capturing. Asked as the shim's own driver call.
uint64_t capture_of(uint64_t stream);

// A capture began (its id, 0 if unknown), or ended: with the graph it made (0: none, the
// capture failed), whatever the status.
void capture_began();
void capture_ended(uint64_t capture_id, uint64_t graph);

// The capture a graph was made by (0: not seen, or built by hand).
uint64_t capture_of_graph(uint64_t graph);

// An executable graph was instantiated from `graph`.
void graph_instantiated(uint64_t graph, uint64_t exec);

// A launch of an executable graph: its graph and capture (0 where unknown), and its number
// among that executable graph's launches, from 1 (0 for one the shim never saw instantiated).
struct GraphLaunch {
  uint64_t graph = 0;
  uint64_t capture_id = 0;
  uint64_t number = 0;
};
GraphLaunch graph_launched(uint64_t exec);

// The device memory a GEMM captured under `capture_id` names: its operands and its workspace,
// each with its format::ArgRole (kA, kB, kC, kD, kWorkspace); 0 addresses are skipped.
struct CapturedOperand {
  uint64_t seq = 0;      // the GEMM's record
  uint64_t address = 0;
  uint32_t role = 0;
};
void note_captured_operand(uint64_t capture_id, const CapturedOperand& operand);

// CUBLASSPY_CHECK, before a graph launch: the first operand of a GEMM captured under
// `capture_id` that lies in no allocation now (freed since the capture). Asks the driver for
// each (the shim's own calls), outside any lock.
std::optional<CapturedOperand> find_freed_operand(uint64_t capture_id);

}  // namespace cublasspy
