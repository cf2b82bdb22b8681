// graph-replay-freed-memory: a CUDA graph was launched whose captured GEMMs name device memory
// that has been freed since the capture. A graph keeps the addresses its work was captured
// with, not the allocations: a replay then reads or writes memory that is free or belongs to
// something else, and faults inside cuBLAS's own kernels (illegal address, EXECUTION_FAILED) or
// silently corrupts it. The field's form: a cuBLAS workspace or an operand freed after
// torch.cuda.graph captured a GEMM (PyTorch issues 192061 and 193402). CUBLASSPY_CHECK finds it
// before the launch runs (interpose/graph_registry.h).
#include <fmt/format.h>

#include "diagnose/rule.h"
#include "trace/graph_summary.h"

namespace cublasspy::diagnoses {

void rule_graph_replay(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    const format::FileHeader& h = f.header();
    if (h.stale_replay_launch == 0) continue;
    const TraceFile& trace = *f.trace;
    const std::string operand = captured_operand_name(h.stale_replay_role);
    Diagnosis d = finding(ids::kGraphReplayFreedMemory, Severity::kError, f);
    d.launch = h.stale_replay_launch;
    d.call = h.stale_replay_gemm;
    std::string graph = "a CUDA graph";
    if (const std::optional<LaunchView> l = trace.launch_at(h.stale_replay_launch - 1)) {
      if (const std::optional<format::GraphWords> w = graph_words(*l)) {
        graph = fmt::format("CUDA graph {:#x} (its launch {} through executable graph {:#x})", w->graph, w->launch,
                            w->exec);
      }
    }
    d.summary = fmt::format("{} was launched after memory its captured GEMM uses was freed", graph);
    std::string gemm = fmt::format("call #{}", h.stale_replay_gemm);
    trace.for_each_call([&](const CallView& c) {
      if (c.seq == h.stale_replay_gemm) gemm = call_with_shape(trace, c);
    });
    d.evidence = fmt::format(
        "{} was captured into the graph with its {} at {:#x}; before launch #{} ran, CUBLASSPY_CHECK found no "
        "allocation holding that address any more: it was freed after the capture. A graph replays its work with "
        "the addresses it was captured with, so the replay uses freed memory.",
        gemm, operand, h.stale_replay_address, h.stale_replay_launch);
    if (h.stale_replays > 1) {
      d.evidence += fmt::format(" {} graph launches were found so.", h.stale_replays);
    }
    d.advice = fmt::format(
        "Keep every tensor a captured graph uses, and the cuBLAS workspace it was captured with, alive and in "
        "place for as long as the graph may be replayed: hold references to the graph's input and output "
        "tensors, do not free or reassign them (a static input is filled with copy_(), never replaced), and do "
        "not release cached memory the graph's pool holds while it lives. If the memory must go, capture the "
        "graph again after it is reallocated. In PyTorch, a workspace freed after capture (clearing cuBLAS "
        "workspaces, changing CUBLAS_WORKSPACE_CONFIG, or a new stream) is the known cause; capture with "
        "the workspace settings the replays will run with.");
    ctx.add(std::move(d));
  }
}

}  // namespace cublasspy::diagnoses
