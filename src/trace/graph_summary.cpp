#include "trace/graph_summary.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace cublasspy {

std::optional<format::GraphWords> graph_words(const LaunchView& l) {
  if (l.function == nullptr || static_cast<format::Family>(l.function->family) != format::Family::kGraph) {
    return std::nullopt;
  }
  format::GraphWords w;
  std::memcpy(&w, reinterpret_cast<const char*>(&l.entry) + offsetof(format::LaunchEntry, grid), sizeof w);
  return w;
}

std::string captured_operand_name(uint32_t role) {
  switch (static_cast<format::ArgRole>(role)) {
    case format::ArgRole::kA: return "A";
    case format::ArgRole::kB: return "B";
    case format::ArgRole::kC: return "C";
    case format::ArgRole::kD: return "D";
    case format::ArgRole::kWorkspace: return "workspace";
    default: return "operand with role " + std::to_string(role);
  }
}

bool runs_graph(const LaunchView& l) {
  if (l.function == nullptr || static_cast<format::Family>(l.function->family) != format::Family::kGraph) return false;
  for (uint16_t i = 0; i < l.function->arg_count && i < format::kMaxArgs; ++i) {
    if (static_cast<format::ArgRole>(l.function->args[i].role) == format::ArgRole::kGraphExec) return true;
  }
  return false;
}

namespace {

void add_unique(std::vector<uint64_t>& v, uint64_t x) {
  if (x != 0 && std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// The summary that `capture_id` or `graph` names, made if none does yet.
GraphSummary& summary_for(std::vector<GraphSummary>& all, uint64_t capture_id, uint64_t graph) {
  for (GraphSummary& g : all) {
    if ((capture_id != 0 && g.capture_id == capture_id) || (graph != 0 && g.graph == graph)) {
      if (g.capture_id == 0) g.capture_id = capture_id;
      if (g.graph == 0) g.graph = graph;
      return g;
    }
  }
  all.push_back(GraphSummary{capture_id, graph, {}, 0, {}});
  return all.back();
}

}  // namespace

std::vector<GraphSummary> graph_summaries(const TraceFile& trace) {
  std::vector<GraphSummary> all;
  // The highest launch number seen of each executable graph.
  std::vector<std::pair<uint64_t, uint64_t>> exec_launches;
  trace.for_each_launch([&](const LaunchView& l) {
    const std::optional<format::GraphWords> w = graph_words(l);
    if (!w) return;
    const uint64_t capture_id = l.entry.bytes == format::kCaptureIdUnknown ? 0 : l.entry.bytes;
    if (capture_id == 0 && w->graph == 0) return;  // a capture's beginning that failed, a launch of an unknown graph
    GraphSummary& g = summary_for(all, capture_id, w->graph);
    add_unique(g.execs, w->exec);
    if (w->exec != 0 && w->launch != 0) {
      auto it = std::find_if(exec_launches.begin(), exec_launches.end(), [&](const auto& e) { return e.first == w->exec; });
      if (it == exec_launches.end()) exec_launches.emplace_back(w->exec, w->launch);
      else it->second = std::max(it->second, w->launch);
    }
  });
  trace.for_each_call([&](const CallView& c) {
    const uint64_t capture_id = c.slot.capture_id;
    if (capture_id == 0 || capture_id == format::kCaptureIdUnknown) return;
    summary_for(all, capture_id, 0).captured_calls.push_back(c.seq);
  });
  for (GraphSummary& g : all) {
    for (const auto& [exec, launches] : exec_launches) {
      if (std::find(g.execs.begin(), g.execs.end(), exec) != g.execs.end()) g.launches += launches;
    }
  }
  return all;
}

std::optional<GraphSummary> graph_of(const TraceFile& trace, const LaunchView& l) {
  const std::optional<format::GraphWords> w = graph_words(l);
  if (!w) return std::nullopt;
  const uint64_t capture_id = l.entry.bytes == format::kCaptureIdUnknown ? 0 : l.entry.bytes;
  for (GraphSummary& g : graph_summaries(trace)) {
    if ((capture_id != 0 && g.capture_id == capture_id) || (w->graph != 0 && g.graph == w->graph) ||
        (w->exec != 0 && std::find(g.execs.begin(), g.execs.end(), w->exec) != g.execs.end())) {
      return g;
    }
  }
  return std::nullopt;
}

}  // namespace cublasspy
