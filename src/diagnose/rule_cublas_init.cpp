// cublas-init-failed: cublasCreate (or cublasLtCreate) failed although the driver works, the
// failure PyTorch reports as "CUBLAS_STATUS_NOT_INITIALIZED when calling cublasCreate(handle)".
// The NOT_INITIALIZED field report (docs/DIAGNOSES.md): after the driver and version checks it
// comes down to GPU memory or the CUDA context (device selection, DataLoader workers, another
// library's context). The rule tells the two apart from the evidence: an ALLOC_FAILED status or
// an allocation that ran out of memory first says memory; otherwise it is the context.
//
// Unless a kernel faulted first, the field's commonest case by far: an index out of range in an
// embedding or a loss trips a device-side assert, the launch and its error check have returned
// success long before, and the poisoned context makes cuBLAS's allocation for its handle fail
// when the program's first GEMM creates it. Work launched since the last clean synchronization
// (the launch ring), or an asynchronous error the device reported, says so: that kernel is named.
#include <fmt/format.h>

#include "common/cuda_errors.h"
#include "diagnose/kernel_causes.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {
namespace {

constexpr int kNotInitialized = 1;  // CUBLAS_STATUS_NOT_INITIALIZED
constexpr int kAllocFailed = 3;     // CUBLAS_STATUS_ALLOC_FAILED
constexpr int kArchMismatch = 8;    // CUBLAS_STATUS_ARCH_MISMATCH
constexpr int kOutOfMemory = 2;     // cudaErrorMemoryAllocation

const char* kMemoryAdvice =
    "cuBLAS needs some GPU memory for its handle and workspace, and none was left. See what holds "
    "it with `nvidia-smi` (stop stale processes; `sudo fuser -v /dev/nvidia*` finds them), run the "
    "first matmul (which creates the handle) before allocating large buffers, release cached "
    "blocks (torch.cuda.empty_cache()), lower the batch size, and against fragmentation set "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.";

const char* kContextAdvice =
    "The driver works but cuBLAS could not set up on the current device's CUDA context. Select "
    "the device before the first GPU work (torch.cuda.set_device(i) / cudaSetDevice) and check that "
    "no other library resets or destroys the context (a reported case: OpenCV's CUDA module next "
    "to PyTorch). Make sure cuBLAS and the CUDA runtime come from one CUDA version: compare `conda "
    "list | grep -E 'cudatoolkit|cublas'`, `nvcc --version` and torch.version.cuda (a conda "
    "cudatoolkit mixed with the system CUDA is the classic case; rebuild the environment with one "
    "of them). A minimal run, `python -c \"import torch; a = torch.randn(8, 8, device='cuda'); "
    "print(a @ a)\"`, tells the environment apart from your program.";

const char* kKernelFaultAdvice =
    "An earlier kernel most likely faulted and poisoned the CUDA context: every later call that "
    "needs the device fails, and cuBLAS reports the allocation for its handle as NOT_INITIALIZED "
    "(or ALLOC_FAILED). The fault is that kernel's, not cuBLAS's. To pin it with the line that "
    "launched it, rerun with `cublasspy run --sync all -- ...` (CUBLASSPY_SYNC=all: the shim "
    "synchronizes after every launch it records), or with CUDA_LAUNCH_BLOCKING=1; "
    "`compute-sanitizer` names the faulting kernel and address. A device-side assert in PyTorch's "
    "own kernels is usually an index out of range: an embedding's indices at or above "
    "num_embeddings, a loss's targets outside [0, classes).";

const char* kArchAdvice =
    "This cuBLAS does not support the GPU's architecture (compute capability): use a CUDA / "
    "framework build that still supports this GPU, or run on a newer GPU.";

// Allocations that ran out of memory before the handle was created.
const CallView* oom_before(const TraceFacts& f, uint64_t seq) {
  for (const CallView& c : f.failed_memory) {
    if (c.seq < seq && c.rec().status == kOutOfMemory) return &c;
  }
  return nullptr;
}

// A successful enumeration: the evidence that the driver itself works.
const CallView* working_driver(const TraceFacts& f) {
  for (const CallView& c : f.device_calls) {
    if (c.state == format::RecordState::kCompleted && c.rec().status == 0) return &c;
  }
  return nullptr;
}

// " (2 devices)" when the enumeration call wrote back a device count, else "".
std::string device_count_text(const CallView& c) {
  const auto count = c.arg(format::ArgRole::kDeviceCount);
  if (!count || *count == format::kArgUnset) return "";
  return fmt::format(" ({} device{})", *count, plural(*count));
}

// The first asynchronous error the trace recorded (a call's, or a launch-ring entry's: a copy, a
// wait, a query), wherever it was: the device's own word that a kernel faulted. `before`: it was
// recorded before `create` (else it surfaced later, on the same poisoned context).
struct DeviceFault {
  int code = 0;
  std::string where;
  bool before = false;
};
DeviceFault device_fault(const TraceFacts& f, const CallView& create) {
  const format::FileHeader& h = f.header();
  if (h.first_async_seq != 0 && is_asynchronous_cuda_error(h.first_async_error)) {
    return {h.first_async_error,
            f.async_surfaced_at ? call_name(*f.async_surfaced_at) : fmt::format("call #{}", h.first_async_seq),
            h.first_async_seq < create.seq};
  }
  if (f.launch_error) {
    const format::LaunchEntry& e = f.launch_error->entry;
    const int code = is_asynchronous_cuda_error(e.status) ? e.status : e.async_status;
    if (is_asynchronous_cuda_error(code)) {
      return {code, launch_text(*f.launch_error), e.start_ns < create.rec().start_ns};
    }
  }
  return {};
}

// cuBLAS calls that failed with NOT_INITIALIZED after the create: its consequences.
uint64_t not_initialized_after(const TraceFacts& f, uint64_t seq) {
  uint64_t n = 0;
  for (const auto& [key, group] : f.failures) {
    if (key.second == kNotInitialized && is_cublas_call(group.first) && group.first.seq > seq) n += group.count;
  }
  return n;
}

}  // namespace

void rule_cublas_init(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    if (ctx.found_for(f, ids::kSetupFailuresThrough<ids::SetupStage::kDevices>) ||
        ctx.found_for(f, {ids::kOutOfMemoryAtInit})) {
      continue;  // the driver or the devices already explain it, or the memory the machine lacked
    }
    const CallView* create = nullptr;
    for (const CallView& c : f.handle_creates) {
      if (c.state == format::RecordState::kCompleted && c.rec().status != 0) {
        create = &c;
        break;
      }
    }
    if (create == nullptr) continue;

    const int status = create->rec().status;
    const CallView* oom = oom_before(f, create->seq);
    const DeviceFault fault = device_fault(f, *create);
    // A kernel's fault explains NOT_INITIALIZED and ALLOC_FAILED unless memory had run out first.
    const bool kernel_fault = (status == kNotInitialized || status == kAllocFailed) && oom == nullptr &&
                              (f.before_failed_create.any_kernel() || fault.before);
    const bool memory = !kernel_fault && (status == kAllocFailed || oom != nullptr);
    Diagnosis d = finding(ids::kCublasInitFailed, Severity::kError, f);
    d.call = create->seq;
    std::string cause = memory ? "GPU memory ran out" : status == kArchMismatch ? "the GPU is not supported"
                                                                               : "cuBLAS could not set up its CUDA context";
    if (kernel_fault) {
      const LaunchesBefore& before = f.before_failed_create;
      cause = "an earlier kernel most likely faulted";
      if (before.total == 1) {
        cause += " (" + launch_name(before.recent.front()) + ")";
        d.launch = before.recent.front().ticket + 1;  // the JSON names the suspect launch
      }
    }
    d.summary = fmt::format("{} failed with {} although the driver works: {}", create->function_name(),
                            create->status_name(), cause);
    d.evidence = fmt::format("{} returned {}.", call_name(*create), status_text(*create));
    if (const CallView* ok = working_driver(f)) {
      d.evidence += fmt::format(" {} had succeeded{}, so the driver works.", call_name(*ok),
                                device_count_text(*ok));
    }
    if (oom != nullptr) {
      d.evidence += fmt::format(" Before it, {} of {} bytes returned {}.", call_name(*oom),
                                oom->arg(format::ArgRole::kByteCount).value_or(0), status_text(*oom));
    } else if (status == kAllocFailed) {
      d.evidence += " ALLOC_FAILED: cuBLAS could not allocate its memory.";
    } else if (!f.failed_memory.empty()) {
      d.evidence += " No allocation had run out of memory before it.";
    }
    d.evidence += kernel_fault ? launches_before_text(f.before_failed_create) : "";
    if (kernel_fault && fault.code != 0) {
      d.evidence += fmt::format(" The device reported {} at {}: a kernel had faulted.",
                                name_and_number(NameSet::kCudaError, fault.code), fault.where);
    }
    if (uint64_t later = not_initialized_after(f, create->seq); later > 0) {
      d.evidence += fmt::format(" {} later cuBLAS call{} failed with NOT_INITIALIZED (no handle).", later, plural(later));
    }
    d.advice = kernel_fault ? kKernelFaultAdvice + known_kernels_advice(f.before_failed_create.recent) : memory ? kMemoryAdvice : status == kArchMismatch ? kArchAdvice
                                                                                                      : kContextAdvice;
    if (kernel_fault && status == kAllocFailed) d.advice += std::string(" If no kernel faulted: ") + kMemoryAdvice;
    ctx.add(std::move(d));
  }
}

}  // namespace cublasspy::diagnoses
