// The scan kernel's contract, shared by the kernel (scan_kernel.cu), the launcher in the shim
// (src/scan/gemm_scan.cpp) and the tests: the parameter block, the kernel names, and the loop
// each GPU thread runs. The loop is host-compilable so the tests can run it on the CPU thread by
// thread and check the index arithmetic that no machine here can run on a GPU.
#pragma once

#include <cstdint>

#include "element_rules.h"

namespace cublasspy::scan {

// Passed by value as the kernel's only parameter (cuLaunchKernel copies it).
struct ScanKernelParams {
  uint64_t base;       // matrix 0; StridedBatched member b starts `b * stride` elements later
  uint64_t ptr_array;  // Batched forms: device array of `batch` matrix addresses; 0 otherwise
  uint64_t rows;       // as stored (column-major): rows <= ld
  uint64_t cols;
  uint64_t batch;      // >= 1
  uint64_t ld;         // elements between columns
  uint64_t stride;     // elements between batch members (no pointer array)
  uint64_t result;     // device address of the ScanTally this launch merges into
  // Set by prepare_launch: the launch's thread count and how far it moves each thread in
  // (row, column, batch), so no thread divides by 64-bit numbers inside the kernel.
  uint64_t threads;
  uint64_t step_row, step_col, step_batch;
};
static_assert(sizeof(ScanKernelParams) == 96);

inline constexpr unsigned kScanBlockThreads = 256;
// Enough resident threads to keep any current GPU's memory system busy; each thread loops.
inline constexpr unsigned kScanMaxBlocks = 2048;

// The kernels are extern "C" so the driver finds them by these plain names.
#define CBS_SCAN_KERNELS(X)                                      \
  X(f16, ElementFormat::kF16, false) X(bf16, ElementFormat::kBF16, false) \
  X(f32, ElementFormat::kF32, false) X(f64, ElementFormat::kF64, false)   \
  X(e4m3, ElementFormat::kE4M3, false) X(e5m2, ElementFormat::kE5M2, false) \
  X(c16f, ElementFormat::kF16, true) X(c16bf, ElementFormat::kBF16, true) \
  X(c32f, ElementFormat::kF32, true) X(c64f, ElementFormat::kF64, true)

inline constexpr int kScanKernelCount = 10;

// Index of the kernel for a format (-1: none, e.g. complex fp8) and its name.
inline int scan_kernel_index(ElementFormat f, bool complex) {
  int i = 0;
#define CBS_SCAN_INDEX(name_, format_, complex_) \
  if (f == format_ && complex == complex_) return i;  \
  ++i;
  CBS_SCAN_KERNELS(CBS_SCAN_INDEX)
#undef CBS_SCAN_INDEX
  return -1;
}

inline const char* scan_kernel_name(int index) {
  static constexpr const char* kNames[] = {
#define CBS_SCAN_NAME(name_, format_, complex_) "cublasspy_scan_" #name_,
      CBS_SCAN_KERNELS(CBS_SCAN_NAME)
#undef CBS_SCAN_NAME
  };
  return index >= 0 && index < kScanKernelCount ? kNames[index] : nullptr;
}

// Sets the launch's thread count and the per-thread steps it implies.
inline void set_launch_threads(ScanKernelParams& p, uint64_t threads) {
  p.threads = threads;
  p.step_row = p.rows ? threads % p.rows : 0;
  const uint64_t q = p.rows ? threads / p.rows : 0;
  p.step_col = p.cols ? q % p.cols : 0;
  p.step_batch = p.cols ? q / p.cols : 0;
}

// The launch geometry for rows * cols * batch elements: returns the block count and sets the
// thread count and steps in `p`. Host-side; the tests use it as the launcher does.
inline unsigned prepare_launch(ScanKernelParams& p) {
  const uint64_t total = p.rows * p.cols * p.batch;
  uint64_t blocks = (total + kScanBlockThreads - 1) / kScanBlockThreads;
  if (blocks > kScanMaxBlocks) blocks = kScanMaxBlocks;
  if (blocks == 0) blocks = 1;
  set_launch_threads(p, blocks * kScanBlockThreads);
  return static_cast<unsigned>(blocks);
}

// What thread `thread` of p.threads does: visit elements thread, thread + p.threads, ... of the
// (batch, column, row) numbering, so that each element of the operand is read exactly once
// across all threads, and tally them. Neighbouring threads read neighbouring rows of one column
// (coalesced). The row/column/batch of the next element are stepped with additions only.
template <ElementFormat F, bool kComplex>
CBS_SCAN_HD void scan_thread(const ScanKernelParams& p, uint64_t thread, ScanTally& t) {
  using Bits = typename FormatBits<F>::Bits;
  constexpr uint64_t kParts = kComplex ? 2 : 1;
  const uint64_t total = p.rows * p.cols * p.batch;
  if (thread >= total) return;
  // thread < p.threads < 2^32: a 32-bit division suffices wherever the divisor fits 32 bits.
  uint64_t row = thread, q = 0;
  if (p.rows <= 0xffffffffu) {
    row = static_cast<uint32_t>(thread) % static_cast<uint32_t>(p.rows);
    q = static_cast<uint32_t>(thread) / static_cast<uint32_t>(p.rows);
  }
  uint64_t col = q, b = 0;
  if (p.cols <= 0xffffffffu) {
    col = static_cast<uint32_t>(q) % static_cast<uint32_t>(p.cols);
    b = static_cast<uint32_t>(q) / static_cast<uint32_t>(p.cols);
  }
  const uint64_t step_row = p.step_row, step_col = p.step_col, step_b = p.step_batch;

  uint64_t matrix_b = ~0ull;  // the batch member `matrix` points at
  const Bits* matrix = nullptr;
  for (uint64_t key = thread; key < total; key += p.threads) {
    if (b != matrix_b) {
      matrix_b = b;
      uint64_t addr = p.ptr_array != 0 ? reinterpret_cast<const uint64_t*>(p.ptr_array)[b]
                                       : p.base + b * p.stride * kParts * sizeof(Bits);
      matrix = reinterpret_cast<const Bits*>(addr);
    }
    const Bits* e = matrix + (col * p.ld + row) * kParts;
    if constexpr (kComplex) tally_element<F, true>(t, e[0], e[1], key);
    else tally_element<F, false>(t, e[0], 0, key);
    row += step_row;
    uint64_t carry = row >= p.rows ? 1 : 0;
    row -= carry * p.rows;
    col += step_col + carry;
    carry = col >= p.cols ? 1 : 0;
    col -= carry * p.cols;
    b += step_b + carry;
  }
}

// The bytes one launch reads from memory: each element once, plus the pointer array and the
// result (for the benchmark's model of the kernel's traffic).
inline uint64_t scan_kernel_bytes(uint64_t element_bytes, uint64_t rows, uint64_t cols,
                                  uint64_t batch, bool pointer_array) {
  return element_bytes * rows * cols * batch + (pointer_array ? 8 * batch : 0) +
         sizeof(ScanTally);
}

}  // namespace cublasspy::scan
