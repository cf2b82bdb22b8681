// The CUDA graphs a trace recorded (format version 8): from the launch ring's graph entries
// (Family::kGraph, GraphWords) and the GEMM records made during a capture
// (RecordSlot::capture_id), one summary per graph: which capture made it, the GEMMs captured
// into it, the executable graphs made from it and how often they were launched.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_reader.h"

namespace cublasspy {

// A graph entry's words; nullopt for any other entry.
std::optional<format::GraphWords> graph_words(const LaunchView& l);

// Whether a launch-ring entry is a graph's launch (its function takes an ArgRole::kGraphExec):
// work put on a stream, unlike a capture's beginning or end or an instantiation.
bool runs_graph(const LaunchView& l);

struct GraphSummary {
  uint64_t capture_id = 0;        // 0: unknown (a graph the shim did not see captured)
  uint64_t graph = 0;             // 0: unknown (its capture's end is no longer in the ring)
  std::vector<uint64_t> execs;    // executable graphs made from it, as seen
  uint64_t launches = 0;          // its executable graphs' launches, each's highest number seen
  std::vector<uint64_t> captured_calls;  // seqs of the GEMM records made during its capture
};

// The operand a captured GEMM's ArgRole names (FileHeader::stale_replay_role): "A", "B", "C",
// "D", "workspace", or the role's number.
std::string captured_operand_name(uint32_t role);

// Every graph the trace shows, in the order their first entry or record was made.
std::vector<GraphSummary> graph_summaries(const TraceFile& trace);

// The summary of the graph a launch-ring graph entry belongs to, if any.
std::optional<GraphSummary> graph_of(const TraceFile& trace, const LaunchView& l);

}  // namespace cublasspy
