// CUBLASSPY_SCAN for one GEMM: which operands are scanned when, on the GPU (the embedded kernel,
// launched on the call's stream) or on the host (operand copied out, host_scan.h), and how the
// summaries are filled. Knows nothing of the shim's runtime: live_scan.cpp feeds it from a
// live call, the tests from a fake driver.
#pragma once

#include <atomic>
#include <cstdint>

#include "settings/config.h"
#include "gemm/gemm_call.h"
#include "scan/scan_kernel_body.h"
#include "scan/device_reader.h"
#include "trace/trace_format.h"

namespace cublasspy {

// The scan kernels of one CUDA context: module, functions and a small device buffer of result
// slots. Entries are claimed once per context and never freed (contexts are few and long-lived).
struct ContextKernels {
  enum State : int { kLoading = 0, kReady = 1, kUnavailable = 2 };
  static constexpr int kSlots = 32;  // concurrent scans per context (one per thread at a time)
  static constexpr uint64_t kSlotBytes = 4 * sizeof(scan::ScanTally);  // A, B, C, D

  std::atomic<uintptr_t> context{0};  // CUcontext; 0: entry free
  std::atomic<int> state{kLoading};
  CUmodule module = nullptr;
  CUfunction functions[scan::kScanKernelCount] = {};
  CUdeviceptr results = 0;
  std::atomic<uint32_t> busy{0};  // one bit per result slot
  CUresult error = CUDA_SUCCESS;  // why the kernels are unavailable
};

// The kernels, per context, loaded from `image` (the embedded fatbin) on first use. Plain data
// with a constexpr constructor: the shim keeps one as a constinit global.
class KernelCache {
 public:
  static constexpr int kContexts = 16;
  constexpr explicit KernelCache(const void* image) : image_(image) {}

  // The ready kernels of `context`, loading them if this is the first request; nullptr when
  // they cannot be used (no image, the driver refused it, another thread is loading them).
  // `*error` says why when this call found them unavailable.
  ContextKernels* get(const DriverApi& api, CUcontext context, CUresult* error);
  bool full() const;  // every entry holds a context

 private:
  void load(const DriverApi& api, ContextKernels& entry);
  const void* image_;
  ContextKernels entries_[kContexts];
};

struct GemmScanRequest {
  bool before_call = true;   // true: the inputs, before the real call; false: the output after
  ScanMode mode = ScanMode::kNone;
  uint64_t stream = 0;       // the call's stream (CUstream)
  bool alpha_zero = false;   // alpha known to be 0: cuBLAS reads neither A nor B
  bool beta_zero = false;    // beta known to be 0: cuBLAS does not read C
  bool summaries_ready = false;  // the four summaries were set by this call's earlier phase
  uint64_t chunk_bytes = kDefaultChunkBytes;
};

struct GemmScanResult {
  bool finding = false;          // a scanned operand holds NaN or Inf
  bool scanned = false;          // the summaries were initialized (set kFlagScanned)
  bool skipped_capture = false;  // the stream is being captured into a graph: nothing touched
  int kernel_operands = 0;       // operands scanned by the GPU kernel
  int host_operands = 0;         // operands scanned on the host
  int failed_operands = 0;       // operands that could not be read (left "not scanned")
  const char* kernel_reason = nullptr;   // why the kernel was not used, when it was not
  CUresult kernel_error = CUDA_SUCCESS;  // the driver's error behind kernel_reason, if any
  CUresult copy_error = CUDA_SUCCESS;    // the first failing copy of the host path
};

// Runs one phase of the scan of `g` into `summaries` (A, B, C input, D output). The before-call
// phase (modes inputs/all) scans A and B (unless alpha is 0) and C (unless beta is 0). The
// after-call phase (modes outputs/all) scans D; when D holds NaN/Inf and the inputs were not
// scanned before the call, it scans A and B (and a C distinct from D) too, so the report can
// tell a bad input from a bad result. D's `overflow` is kept only when the inputs that feed it
// are known to be finite. Operands never scanned keep unscanned_summary().
GemmScanResult scan_gemm(const DriverApi& api, KernelCache* kernels, const GemmCall& g,
                         const GemmScanRequest& request, format::ScanSummary summaries[4]);

}  // namespace cublasspy
