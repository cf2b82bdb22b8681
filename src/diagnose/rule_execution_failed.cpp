// execution-failed: calls that returned a failing status nothing above explains. Runs last:
// failures that follow a missing driver, a failed handle creation, a sticky asynchronous error
// or a flagged argument are those findings' consequences, not findings of their own; NaN/Inf in
// the operands is not (cuBLAS does not inspect values), and is noted beside the failure. One
// finding per function and status. As the EXECUTION_FAILED field report puts it (docs/DIAGNOSES.md),
// CUBLAS_STATUS_EXECUTION_FAILED "is a result, not a cause"; its checklist (data, arguments,
// sync, hardware) becomes the advice. Three cuBLAS statuses say what kind of mistake it was and
// get ids of their own: configuration-not-supported (NOT_SUPPORTED: the library refuses what
// the call asked for, shown from its record), invalid-value (INVALID_VALUE: an argument) and
// arch-mismatch (ARCH_MISMATCH: the GPU lacks the feature).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "checks/check_ids.h"
#include "diagnose/kernel_causes.h"
#include "diagnose/memory_at_failure.h"
#include "diagnose/requested_configuration.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {
namespace {

// A CUBLASSPY_CHECK error on the call: the check's finding names the argument that made it fail.
bool explained_by_checks(const CallView& c) { return check_bits_have_error(c.rec().check_bits); }

// The scan found NaN/Inf in an operand the call reads (A, B, or C). cuBLAS does not inspect
// values, so that never explains a failing status: the call keeps its own finding, and its
// evidence says that the two coincide.
bool inputs_held_nonfinite(const CallView& c) {
  if ((c.rec().flags & format::kFlagScanned) == 0) return false;
  for (int op = 0; op < 3; ++op) {
    const format::ScanSummary& s = c.slot.scan[op];
    if (s.max_abs_finite >= 0 && s.nan_count + s.pos_inf_count + s.neg_inf_count != 0) return true;
  }
  return false;
}

// `synced`: the run already had CUBLASSPY_SYNC on, so the advice never asks for it again (it
// found no earlier GPU fault, or a finding before this one would have explained the failure).
std::string cublas_advice(const CallView& c, int status, bool synced) {
  // The algorithm calls of cuBLASLt reject an algorithm, not a matrix.
  if (status == 7 && format::has_trait(c.function, format::Trait::kConfiguresAlgo)) {
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

constexpr int kInvalidValue = 7, kArchMismatch = 8, kNotSupported = 15;

// An EXECUTION_FAILED with work launched before it since the last clean synchronization.
const char* kEarlierFaultAdvice =
    "A kernel launched before the GEMM most likely faulted (a device-side assert: an index out of "
    "range) and poisoned the CUDA context, so the GEMM's own kernel could not run: the GEMM is "
    "where the error surfaced, not its cause. `cublasspy run --sync all -- ...` (CUBLASSPY_SYNC=all) "
    "pins the kernel that faulted with the line that launched it. ";

// The id of a cuBLAS/cuBLASLt status's finding: the statuses that say what was wrong have
// their own, the rest share execution-failed.
const char* cublas_finding_id(int status) {
  switch (status) {
    case kNotSupported: return ids::kConfigurationNotSupported;
    case kInvalidValue: return ids::kInvalidValue;
    case kArchMismatch: return ids::kArchMismatch;
    default: return ids::kExecutionFailed;
  }
}

// What to change when the library refused the configuration (NOT_SUPPORTED) or the GPU lacks it
// (ARCH_MISMATCH): first the unusual parts the record shows, then the general way to find a
// supported combination. `lt` is a cuBLASLt call.
std::string refused_configuration_advice(const CallView& c, const RequestedConfiguration& r, int status) {
  const bool lt = c.library() == format::Library::kCublasLt;
  std::string advice;
  auto add = [&](const std::string& s) { advice += (advice.empty() ? "" : " ") + s; };
  if (format::has_trait(c.function, format::Trait::kConfiguresAlgo)) {
    add("cuBLASLt refused the algorithm for these types: cublasLtMatmulAlgoInit takes only an id that "
        "cublasLtMatmulAlgoGetIds lists for the same compute, scale and A/B/C/D types (on this GPU and library "
        "version), and cublasLtMatmulAlgoCheck accepts only a configuration within what "
        "cublasLtMatmulAlgoCapGetAttribute reports; or let cublasLtMatmulAlgoGetHeuristic choose.");
  }
  if (status == kArchMismatch) {
    add("This GPU's architecture lacks what the call needs (e.g. fp8 before sm_89, TF32 or bf16 before sm_80, "
        "block-scaled fp4/fp8 before sm_100): compare `nvidia-smi --query-gpu=compute_cap --format=csv` with the "
        "cuBLAS documentation of the types, and use a type or compute type the GPU has.");
  }
  if (r.preset_algo) {
    add("The call passed a preset algorithm (" + r.algo + "): cuBLASLt runs an algorithm only for the problems, "
        "types and configurations it supports. Ask cublasLtMatmulAlgoGetHeuristic for this descriptor and these "
        "layouts instead (or pass algo NULL), or check the preset with cublasLtMatmulAlgoCheck before the matmul and "
        "keep its CUBLASLT_ALGO_CONFIG_* values (tile, stages, split-K, reduction scheme) within what "
        "cublasLtMatmulAlgoCapGetAttribute reports.");
  }
  if (r.planar) {
    add("Planar complex layouts (CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET) are supported for few type combinations "
        "(the planar rows of cublasLtMatmul's table): try the interleaved layout (plane offset 0).");
  }
  if (r.pointer_array) {
    add("Pointer-array batches (CUBLASLT_BATCH_MODE_POINTER_ARRAY, cuBLASLt 13) are supported for fewer "
        "combinations than strided ones: try CUBLASLT_BATCH_MODE_STRIDED.");
  }
  if (r.tiled_order) {
    add("The tiled orders (COL32, COL4_4R2_8C, COL32_2R_4R4) are for int8 matmuls only, with A and C in COL32 and "
        "B in COL4_4R2_8C or COL32_2R_4R4.");
  }
  if (r.epilogue) add("The epilogue is supported with fewer types than the default one: try without it.");
  if (r.scale_modes) {
    add("Block scale modes need A and B in the matching narrow type (VEC16_UE4M3 with fp4, VEC32_UE8M0 with fp8) "
        "and a GPU that has them (sm_100 or newer).");
  }
  if (r.emulated) {
    add("Emulated compute types (CUBLAS_COMPUTE_*_EMULATED_*) need cuBLAS 13 and are supported for their own type "
        "only (fp64 data for 64F_EMULATED_FIXEDPOINT, fp32 for 32F_EMULATED_16BFX9).");
  }
  if (lt) {
    add("Compare the whole combination (A/B/C/D types, compute and scale type, orders, epilogue) with "
        "cublasLtMatmul's table of supported types in the documentation of the cuBLASLt the process loaded, for "
        "this GPU's architecture; a newer cuBLASLt supports more combinations. "
        "cublasLtMatmulAlgoGetHeuristic returning no algorithm for the same descriptors confirms it.");
  } else {
    add("Use a combination of types, compute type, math mode and algorithm that cuBLAS supports (cublasGemmEx's "
        "table in the cuBLAS documentation), or let PyTorch choose (do not force TORCH_BLAS_PREFER_CUBLASLT / a "
        "compute type).");
  }
  return advice;
}

std::string cuda_advice(const CallView& c, int status, bool synced) {
  switch (status) {
    case 2:
      return fmt::format("The GPU ran out of memory{}. See what holds it in `nvidia-smi`, free "
                         "cached blocks (torch.cuda.empty_cache()), lower the batch size, and "
                         "against fragmentation set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
                         format::has_trait(c.function, format::Trait::kAllocatesDevice)
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
    if (ctx.found_for(f, ids::kSetupFailureIds)) continue;  // the root cause is already named
    uint64_t async_from = UINT64_MAX;                  // failures from here on are the sticky error's
    if (const Diagnosis* a = ctx.found_for(f, {ids::kAsyncError}); a && a->call) async_from = *a->call;
    if (f.header().first_async_seq != 0) async_from = std::min(async_from, f.header().first_async_seq);
    // device-out-of-memory names the failures the exhausted memory explains.
    const std::optional<OutOfMemory> oom =
        ctx.found_for(f, {ids::kDeviceOutOfMemory}) != nullptr ? out_of_memory(f) : std::nullopt;

    for (const auto& key : f.failure_order) {
      const FailureGroup& group = f.failures.at(key);
      const CallView& first = group.first;
      if (first.seq >= async_from || ctx.failure_explained(f, first.seq) || explained_by_checks(first)) continue;
      if (oom && explained_by_out_of_memory(*oom, first)) continue;
      const int status = first.rec().status;
      const bool cublas = is_cublas_call(first);
      Diagnosis d = finding(cublas ? cublas_finding_id(status) : ids::kExecutionFailed, Severity::kError, f);
      d.call = first.seq;
      d.summary = fmt::format("{} returned {}{}", first.function_name(), first.status_name(),
                              group.count > 1 ? fmt::format(" ({} calls)", group.count) : std::string());
      d.evidence = fmt::format("{} returned {}", call_with_shape(*f.trace, first), status_text(first));
      d.evidence += group.count > 1 ? fmt::format("; {} calls of {} failed the same way.", group.count, first.function_name())
                                    : ".";
      // A refusal names no argument: what the call asked for is the evidence.
      const bool refused = cublas && (status == kNotSupported || status == kArchMismatch);
      const RequestedConfiguration requested = refused ? requested_configuration(first) : RequestedConfiguration{};
      if (refused && !requested.text.empty()) d.evidence += " It asked for: " + requested.text + ".";
      if (inputs_held_nonfinite(first)) {
        d.evidence += " Its operands held NaN/Inf (non-finite-input), which coincides with the failure but "
                      "does not cause it: cuBLAS does not inspect the values it multiplies.";
      }
      if (f.successful_work > 0 && cublas) {
        d.evidence += fmt::format(" {} other GEMM call{} succeeded in this process.", f.successful_work, plural(f.successful_work));
      }
      // Work launched before the first EXECUTION_FAILED since the last clean synchronization: a
      // kernel of it that faulted left the context unable to run the GEMM's kernel. Not under
      // CUBLASSPY_SYNC, which waited before the GEMM and found no fault pending.
      const LaunchesBefore& before = f.before_failed_gemm;
      const bool earlier_work = before.seq == first.seq && status == 13 && before.any_kernel() && !f.sync_mode();
      if (earlier_work) {
        d.summary += before.total == 1 ? fmt::format(": an earlier kernel most likely faulted ({})",
                                                     launch_name(before.recent.front()))
                                       : ": an earlier kernel most likely faulted";
        if (before.total == 1) d.launch = before.recent.front().ticket + 1;  // the JSON names the suspect
        d.evidence += launches_before_text(before);
      }
      if (refused) {
        d.advice = refused_configuration_advice(first, requested, status);
      } else {
        d.advice = cublas ? cublas_advice(first, status, f.sync_mode()) : cuda_advice(first, status, f.sync_mode());
      }
      if (earlier_work) d.advice = kEarlierFaultAdvice + known_kernels_advice(before.recent) + d.advice;
      ctx.add(std::move(d));
    }
  }
}

}  // namespace cublasspy::diagnoses
