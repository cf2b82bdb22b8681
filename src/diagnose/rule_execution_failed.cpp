// execution-failed: calls that returned a failing status nothing above explains. Runs last:
// failures that follow a missing driver, a failed handle creation, a sticky asynchronous error
// or a flagged argument are those findings' consequences, not findings of their own. One finding
// per function and status. As the EXECUTION_FAILED field report puts it (docs/DIAGNOSES.md),
// CUBLAS_STATUS_EXECUTION_FAILED "is a result, not a cause"; its checklist (data, arguments,
// sync, hardware) becomes the advice.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "checks/check_ids.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {
namespace {

// A CUBLASSPY_CHECK error or a non-finite input on the call: other findings explain it.
bool explained_by_findings(const CallView& c) {
  if (check_bits_have_error(c.rec().check_bits)) return true;
  if (c.rec().flags & format::kFlagScanned) {
    for (int op = 0; op < 3; ++op) {
      const format::ScanSummary& s = c.slot.scan[op];
      if (s.max_abs_finite >= 0 && s.nan_count + s.pos_inf_count + s.neg_inf_count != 0) return true;
    }
  }
  return false;
}

// `synced`: the run already had CUBLASSPY_SYNC on, so the advice never asks for it again (it
// found no earlier GPU fault, or a finding before this one would have explained the failure).
std::string cublas_advice(const CallView& c, int status, bool synced) {
  // The algorithm calls of cuBLASLt reject an algorithm, not a matrix.
  if (status == 7 && std::strncmp(c.function_name(), "cublasLtMatmulAlgo", 18) == 0) {
    return "cuBLASLt rejected the algorithm: cublasLtMatmulAlgoInit takes only an id that "
           "cublasLtMatmulAlgoGetIds lists for the same compute, scale and A/B/C/D types (on this "
           "GPU and library version); cublasLtMatmulAlgoConfigSetAttribute only values within what "
           "cublasLtMatmulAlgoCapGetAttribute reports, in the attribute's exact size; and an "
           "algorithm must have been initialized before it is configured, checked or used. The "
           "calls' arguments are in the report (`cublasspy report --all`); or let "
           "cublasLtMatmulAlgoGetHeuristic choose.";
  }
  switch (status) {
    case 13:  // EXECUTION_FAILED
      if (synced) {
        return "EXECUTION_FAILED is a result, not a cause: the GPU could not run the call's kernel. "
               "CUBLASSPY_SYNC was on and found no earlier GPU fault pending before the call. Rerun "
               "with `cublasspy run --check --scan all ...`: --check validates pointers, lds and "
               "strides, --scan finds NaN/Inf in the operands. If that is clean, suspect the "
               "environment: a minimal matmul loop on the same GPU, `sudo dmesg | grep -i NVRM` for "
               "Xid errors, `nvidia-smi -q -d TEMPERATURE,POWER`, and a smaller batch size.";
      }
      return "EXECUTION_FAILED is a result, not a cause: the GPU could not run the call's kernel. "
             "Rerun with `cublasspy run --sync --check --scan all ...`: --sync pins a GPU fault to "
             "the call that caused it, --check validates pointers, lds and strides, --scan finds "
             "NaN/Inf in the operands (NaN/Inf from the data pipeline or fp16 overflow are the most "
             "common causes). If all of that is clean, suspect the environment: a minimal matmul "
             "loop on the same GPU, `sudo dmesg | grep -i NVRM` for Xid errors, "
             "`nvidia-smi -q -d TEMPERATURE,POWER`, and a smaller batch size.";
    case 7:  // INVALID_VALUE
      return "cuBLAS rejected an argument: a negative or zero-sized dimension where one is not "
             "allowed, an ld below the rows it spans, an unsupported enum or type combination. "
             "The call's arguments are in the report (`cublasspy report --all`); `cublasspy run "
             "--check` names the offending one.";
    case 8:   // ARCH_MISMATCH
    case 15:  // NOT_SUPPORTED
      return "This combination of data types, compute type, math mode or algorithm is not "
             "supported by this cuBLAS on this GPU (e.g. fp8 or TF32 on an older architecture). "
             "Use a supported combination (cublasGemmEx's table in the cuBLAS documentation), or "
             "let PyTorch choose (do not force TORCH_BLAS_PREFER_CUBLASLT / a compute type).";
    case 3:  // ALLOC_FAILED
      return "cuBLAS could not allocate GPU memory for its workspace. Free memory (other "
             "processes in `nvidia-smi`, torch.cuda.empty_cache()), lower the batch size, or give "
             "the handle a workspace of its own (cublasSetWorkspace).";
    case 14:  // INTERNAL_ERROR
      return std::string("An internal CUDA operation of cuBLAS failed, usually an allocation or a CUDA "
                         "error left by earlier work. ") +
             (synced ? "CUBLASSPY_SYNC found no earlier GPU fault pending; check free memory in `nvidia-smi`."
                     : "Rerun with `cublasspy run --sync` to see whether an earlier call's GPU work "
                       "failed, and check free memory in `nvidia-smi`.");
    case 1:  // NOT_INITIALIZED
      return "The handle passed to the call was never created successfully or was already "
             "destroyed. Check the status of cublasCreate and the order of cublasDestroy in the "
             "report's calls.";
    default:
      return std::string("The report's calls list (`cublasspy report --all TRACE`) shows the arguments of "
                         "the failing call; ") +
             (synced ? "rerun with `cublasspy run --check` to rule out argument errors."
                     : "rerun with `cublasspy run --sync --check` to rule out argument errors and "
                       "earlier GPU faults.");
  }
}

std::string cuda_advice(const CallView& c, int status, bool synced) {
  switch (status) {
    case 2:
      return fmt::format("The GPU ran out of memory{}. See what holds it in `nvidia-smi`, free "
                         "cached blocks (torch.cuda.empty_cache()), lower the batch size, and "
                         "against fragmentation set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
                         std::strcmp(c.function_name(), "cudaMalloc") == 0
                             ? fmt::format(" (the request was {} bytes)", c.arg(format::ArgRole::kByteCount).value_or(0))
                             : "");
    case 101:
      return "The device index is not among the GPUs this process sees: CUDA_VISIBLE_DEVICES "
             "renumbers them from 0. Compare with `nvidia-smi -L` and the count cudaGetDeviceCount "
             "returned.";
    case 400:
      return "A stream, event or handle passed to the call was already destroyed or belongs to "
             "another device or context.";
    default:
      return std::string("The report's calls list (`cublasspy report --all TRACE`) shows the failing call's "
                         "arguments") +
             (synced ? "." : "; rerun with `cublasspy run --sync` to rule out an earlier GPU fault.");
  }
}

}  // namespace

void rule_execution_failed(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    if (ctx.found_for(f, kSetupFailureIds)) continue;  // the root cause is already named
    uint64_t async_from = UINT64_MAX;                  // failures from here on are the sticky error's
    if (const Diagnosis* a = ctx.found_for(f, {"async-error"}); a && a->call) async_from = *a->call;
    if (f.header().first_async_seq != 0) async_from = std::min(async_from, f.header().first_async_seq);

    for (const auto& key : f.failure_order) {
      const FailureGroup& group = f.failures.at(key);
      const CallView& first = group.first;
      if (first.seq >= async_from || ctx.call_named(f, first.seq) || explained_by_findings(first)) continue;
      const int status = first.rec().status;
      Diagnosis d = finding("execution-failed", Severity::kError, f);
      d.call = first.seq;
      d.summary = fmt::format("{} returned {}{}", first.function_name(), first.status_name(),
                              group.count > 1 ? fmt::format(" ({} calls)", group.count) : std::string());
      d.evidence = fmt::format("{} returned {}", call_with_shape(*f.trace, first), status_text(first));
      d.evidence += group.count > 1 ? fmt::format("; {} calls of {} failed the same way.", group.count, first.function_name())
                                    : ".";
      if (f.successful_work > 0 && is_cublas_call(first)) {
        d.evidence += fmt::format(" {} other GEMM call{} succeeded in this process.", f.successful_work, plural(f.successful_work));
      }
      d.advice = is_cublas_call(first) ? cublas_advice(first, status, f.sync_mode()) : cuda_advice(first, status, f.sync_mode());
      ctx.add(std::move(d));
    }
  }
}

}  // namespace cublasspy::diagnoses
