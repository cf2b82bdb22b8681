// The CUBLASSPY_SCAN kernel: counts NaN/+Inf/-Inf in one GEMM operand, finds the first
// non-finite element and the largest finite magnitude. Built by nvcc into a fatbin that is
// embedded in the shim and loaded through the driver API on first use (src/scan/CMakeLists.txt);
// the shim never links the CUDA runtime. One template, instantiated once per element type.
//
// Each thread tallies its elements (scan_kernel_body.h, shared with the host tests), the block
// combines its threads' tallies, and one thread merges the block's tally into the result with
// 64-bit atomics (add for the counts, max for the rest: see ScanTally).
#include "scan_kernel_body.h"

namespace cublasspy::scan {
namespace {

__device__ __forceinline__ void warp_merge(ScanTally& t) {
  for (int offset = 16; offset > 0; offset /= 2) {
    ScanTally o;
    o.nan_count = __shfl_down_sync(0xffffffffu, t.nan_count, offset);
    o.pos_inf_count = __shfl_down_sync(0xffffffffu, t.pos_inf_count, offset);
    o.neg_inf_count = __shfl_down_sync(0xffffffffu, t.neg_inf_count, offset);
    o.first_key_inverted = __shfl_down_sync(0xffffffffu, t.first_key_inverted, offset);
    o.max_magnitude_bits = __shfl_down_sync(0xffffffffu, t.max_magnitude_bits, offset);
    merge_tally(t, o);
  }
}

template <ElementFormat F, bool kComplex>
__device__ __forceinline__ void scan_block(const ScanKernelParams& p) {
  ScanTally t = {};
  const uint64_t thread = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  scan_thread<F, kComplex>(p, thread, t);

  constexpr int kWarps = kScanBlockThreads / 32;
  __shared__ ScanTally warp_tally[kWarps];
  warp_merge(t);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_tally[warp] = t;
  __syncthreads();
  if (warp != 0) return;
  t = lane < kWarps ? warp_tally[lane] : ScanTally{};
  warp_merge(t);
  if (lane != 0) return;

  // Most blocks see only finite values: skip the atomics that would add nothing.
  auto* r = reinterpret_cast<ScanTally*>(p.result);
  auto at = [](uint64_t& field) { return reinterpret_cast<unsigned long long*>(&field); };
  if (t.nan_count) atomicAdd(at(r->nan_count), t.nan_count);
  if (t.pos_inf_count) atomicAdd(at(r->pos_inf_count), t.pos_inf_count);
  if (t.neg_inf_count) atomicAdd(at(r->neg_inf_count), t.neg_inf_count);
  if (t.first_key_inverted) atomicMax(at(r->first_key_inverted), t.first_key_inverted);
  if (t.max_magnitude_bits) atomicMax(at(r->max_magnitude_bits), t.max_magnitude_bits);
}

}  // namespace
}  // namespace cublasspy::scan

#define CBS_SCAN_DEFINE(name_, format_, complex_)                                  \
  extern "C" __global__ void __launch_bounds__(cublasspy::scan::kScanBlockThreads) \
      cublasspy_scan_##name_(cublasspy::scan::ScanKernelParams p) {                 \
    using namespace cublasspy::scan;                                               \
    scan_block<format_, complex_>(p);                                              \
  }
CBS_SCAN_KERNELS(CBS_SCAN_DEFINE)
#undef CBS_SCAN_DEFINE
