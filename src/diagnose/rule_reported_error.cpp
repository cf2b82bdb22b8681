// reported-error: the program reported a CUDA or cuBLAS failure. A program that reports one asks
// for its text first (cudaGetErrorString, cuGetErrorString, cublasGetStatusString and their
// *Name forms: family kErrorText), whichever call returned it, so the question names the
// failure and where it was reported even when the failing call is one the shim does not record
// (cudaEventRecord, cudaStreamIsCapturing, any of the runtime's hundreds). Runs last: a failure
// another finding explains (the recorded call it names, a sticky asynchronous error, a set-up
// that failed) is not said twice. One finding per code. A program that reported the error and
// went on to exit with status 0 handled it (a capture tried and abandoned, a feature probed):
// then the finding is a warning.
#include <set>
#include <utility>

#include <fmt/format.h>

#include "common/cuda_errors.h"
#include "diagnose/rule.h"
#include "trace/process_end.h"
#include "trace/stack_codec.h"

namespace cublasspy::diagnoses {
namespace {

constexpr int kNotReady = 600;  // cudaErrorNotReady, CUDA_ERROR_NOT_READY: an answer, not a failure

// The code space of a library's statuses: the runtime's cudaError_t, the driver's CUresult,
// cuBLAS's and cuBLASLt's shared cublasStatus_t.
format::Library code_space(format::Library library) {
  return library == format::Library::kCublasLt ? format::Library::kCublas : library;
}

// "graph.py:12" (the innermost Python frame), else the innermost native symbol, else "".
std::string where_reported(const TraceFile& trace, const CallView& call) {
  std::string native;
  for (const SideEntryView& e : trace.side_entries(call)) {
    if (e.kind == static_cast<uint32_t>(format::SideKind::kPythonStack)) {
      const std::optional<PythonStack> stack = decode_python_stack(e.bytes);
      if (stack && !stack->frames.empty()) {
        const PythonFrame& top = stack->frames.front();
        return fmt::format("{}:{}", top.file.substr(top.file.rfind('/') + 1), top.line);
      }
    } else if (e.kind == static_cast<uint32_t>(format::SideKind::kNativeStack) && native.empty()) {
      const std::optional<NativeStack> stack = decode_native_stack(e.bytes);
      if (stack && !stack->at_signal) {
        for (const NativeFrame& f : stack->frames) {
          if (!f.symbol.empty()) {
            native = demangled(f.symbol);
            native = native.substr(0, native.find('('));
            break;
          }
        }
      }
    }
  }
  return native;
}

// The recorded call that returned `code` last before the report, if the shim recorded it.
const CallView* failing_call(const TraceFacts& f, format::Library space, int code, const CallView& report) {
  const CallView* found = nullptr;
  for (const auto& [key, group] : f.failures) {
    const CallView& c = group.first;
    if (c.rec().status != code || code_space(c.library()) != space || !began_before(c, report)) continue;
    if (found == nullptr || began_before(*found, c)) found = &c;
  }
  return found;
}

// The trace's first failed launch-ring entry (a capture, a launch, a wait), when it returned `code`.
std::optional<LaunchView> failing_launch(const TraceFacts& f, format::Library space, int code) {
  const std::optional<uint64_t> first = f.trace->first_failed_launch();
  if (!first) return std::nullopt;
  std::optional<LaunchView> l = f.trace->launch_at(*first);
  if (!l || l->entry.status != code || code_space(l->library()) != space) return std::nullopt;
  return l;
}

std::string advice_for(format::Library space, int code) {
  const bool cuda = space == format::Library::kCudart || space == format::Library::kCuda;
  if (cuda && (code == 209 || code == 200)) {  // no kernel image for the device / invalid image
    return "The program (or a library it loaded) carries no kernel built for this GPU's architecture. "
           "Compare `nvidia-smi --query-gpu=compute_cap --format=csv` with the architectures the "
           "build has (PyTorch: `torch.cuda.get_arch_list()`), and install a build for this GPU, or "
           "build with it (`TORCH_CUDA_ARCH_LIST`, nvcc's `-gencode`).";
  }
  if (cuda && code == 801) {  // not supported
    return "The driver or this GPU does not support the operation as the program asked for it (a "
           "stream capture mode, a graph operation, a kernel attribute, an allocation type). The "
           "line above is where the program reported it; the call just before it there is the one "
           "that failed. Compare the driver version (`nvidia-smi`) with what the operation needs.";
  }
  return "The line above is where the program reported the error; the failing call is the CUDA "
         "or cuBLAS call it made just before, there. When that call is not in the report, it is "
         "one cublasspy does not record: run with `CUDA_LAUNCH_BLOCKING=1` to make asynchronous "
         "errors surface at the call that caused them, and see the code's meaning in the CUDA "
         "documentation of that call.";
}

}  // namespace

void rule_reported_error(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    // Once CUDA could not work at all, every later error is that finding's consequence.
    if (ctx.found_for(f, ids::kSetupFailureIds) != nullptr) continue;
    std::set<std::pair<format::Library, int>> said;
    for (const CallView& report : f.reported_errors) {
      const std::optional<uint64_t> word = report.arg(format::ArgRole::kReportedStatus);
      if (!word) continue;
      const int code = static_cast<int>(static_cast<int64_t>(*word));
      const format::Library space = code_space(report.library());
      if (code == 0 || code == kNotReady || !said.insert({space, code}).second) continue;
      const bool cuda = space == format::Library::kCudart || space == format::Library::kCuda;
      if (cuda && is_asynchronous_cuda_error(code) && ctx.found_for(f, {ids::kAsyncError}) != nullptr) continue;
      if (cuda && code == 209 && ctx.found_for(f, {ids::kNoKernelImage}) != nullptr) continue;  // no kernel image
      const CallView* failing = failing_call(f, space, code, report);
      if (failing != nullptr && ctx.failure_explained(f, failing->seq)) continue;  // said already, of that call
      const std::optional<LaunchView> launch = failing == nullptr ? failing_launch(f, space, code) : std::nullopt;

      const std::optional<NameSet> names = status_set_of(report.library());
      const std::string what = names ? name_and_number(*names, code) : std::to_string(code);
      const std::string where = where_reported(*f.trace, report);
      const ProcessEnd end = process_end(f.header());
      const bool handled = end.how == ProcessEnd::How::kExited && end.exit_status == 0;
      Diagnosis d = finding(ids::kReportedError, handled ? Severity::kWarning : Severity::kError, f);
      d.call = failing != nullptr ? failing->seq : report.seq;
      if (launch) d.launch = launch->ticket + 1;
      d.summary = where.empty() ? fmt::format("the program reported {} ({})", what, call_name(report))
                                : fmt::format("the program reported {} at {}", what, where);
      d.evidence = fmt::format("It asked {} for the text of {}{}.", call_name(report), what,
                               where.empty() ? "" : " at " + where);
      if (failing != nullptr) {
        d.evidence += fmt::format(" The call that returned it: {}.", call_name(*failing));
      } else if (launch) {
        d.evidence += fmt::format(" The call that returned it: {} (launch #{}).", launch->function_name(),
                                  launch->ticket + 1);
      } else {
        d.evidence += " No call the shim records returned it before: the failing call is one it does not "
                      "hook, made just before the report.";
      }
      if (handled) d.evidence += " The process went on and exited with status 0: it handled the error.";
      d.advice = advice_for(space, code);
      ctx.add(std::move(d));
    }
  }
}

}  // namespace cublasspy::diagnoses
