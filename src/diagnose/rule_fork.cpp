// fork-after-cuda-init: a forked child makes CUDA calls after its parent had initialized CUDA.
// A CUDA context does not survive fork(): the child's calls fail (initialization error) or
// hang, or, on a machine where they happen to work, they are undefined behaviour. The
// NOT_INITIALIZED field report's case (docs/DIAGNOSES.md): DataLoader workers (num_workers > 0)
// inheriting an incomplete CUDA context.
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace cublasspy::diagnoses {
namespace {

// The parent's trace, when it is part of the report.
const TraceFacts* parent_of(const RuleContext& ctx, const TraceFacts& child) {
  const int64_t parent_pid = static_cast<int64_t>(child.header().parent_pid_at_fork);
  for (const TraceFacts& f : ctx.traces()) {
    if (f.pid && *f.pid == parent_pid && &f != &child) return &f;
  }
  return nullptr;
}

// The parent's successful set-up call before the fork: the evidence that CUDA was initialized.
// `last_seq_before_fork`: the forking thread's last call's seq (FileHeader::parent_seq_at_fork).
const CallView* parent_setup(const TraceFacts& parent, uint64_t last_seq_before_fork) {
  for (const CallView& c : parent.handle_creates) {
    if (c.seq <= last_seq_before_fork && c.state == format::RecordState::kCompleted && c.rec().status == 0) return &c;
  }
  for (const CallView& c : parent.device_calls) {
    if (c.seq <= last_seq_before_fork && c.state == format::RecordState::kCompleted && c.rec().status == 0) return &c;
  }
  return nullptr;
}

}  // namespace

void rule_fork_after_cuda_init(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    const format::FileHeader& h = f.header();
    if (!h.forked_child || !h.parent_cuda_ready || !f.any_cuda_call) continue;

    const CallView* failure = f.first_failed_call();
    Diagnosis d = finding(ids::kForkAfterCudaInit, Severity::kError, f);
    d.summary = fmt::format("process {} is a fork of process {}, which had already initialized CUDA, and it makes CUDA calls of its own",
                            f.pid.value_or(-1), h.parent_pid_at_fork);
    const uint64_t parent_calls = f.trace->parent_calls_at_fork();
    d.evidence = fmt::format("The parent (pid {}) had made {} call{} and initialized CUDA before fork()",
                             h.parent_pid_at_fork, parent_calls, plural(parent_calls));
    if (const TraceFacts* parent = parent_of(ctx, f)) {
      if (const CallView* setup = parent_setup(*parent, h.parent_seq_at_fork)) {
        d.evidence += fmt::format(" ({} succeeded there)", call_name(*setup));
      }
    }
    d.evidence += ".";
    if (!f.device_calls.empty() || !f.handle_creates.empty()) {
      const CallView& first = !f.device_calls.empty() &&
                                      (f.handle_creates.empty() || began_before(f.device_calls.front(), f.handle_creates.front()))
                                  ? f.device_calls.front()
                                  : f.handle_creates.front();
      d.evidence += fmt::format(" The child then called {}", call_name(first));
      d.evidence += first.state == format::RecordState::kCompleted ? fmt::format(" -> {}.", status_text(first)) : " (never returned).";
      d.call = first.seq;
    }
    if (failure != nullptr) {
      d.call = failure->seq;  // the failure is the evidence that matters most
      d.evidence += fmt::format(" {} call{} failed in the child, the first {} with {}.", f.failed_total,
                                plural(f.failed_total), call_name(*failure), status_text(*failure));
    } else if (!f.in_flight.empty()) {
      d.call = f.in_flight.front().seq;
      d.evidence += fmt::format(" {} was still in flight when the child's trace ended.", call_name(f.in_flight.front()));
    } else {
      d.evidence += " Its calls returned success here, but a forked CUDA context is not supported "
                    "by the driver: on a GPU they fail with an initialization error or hang.";
    }
    d.advice = "Do not use CUDA in a forked child of a process that has initialized it. For "
               "PyTorch DataLoader workers (num_workers > 0): keep the Dataset and collate_fn on "
               "the CPU (return CPU tensors, use pin_memory=True and move batches to the GPU in the "
               "main process), or start workers with the 'spawn' or 'forkserver' method "
               "(DataLoader(..., multiprocessing_context='spawn') or "
               "torch.multiprocessing.set_start_method('spawn')). For your own multiprocessing, "
               "create the pool before the first CUDA call or use 'spawn'.";
    ctx.add(std::move(d));
  }
}

}  // namespace cublasspy::diagnoses
