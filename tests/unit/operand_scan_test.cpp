// The scan and dump engines (src/scan/gemm_scan, gemm_dump, device_reader) against a fake CUDA
// driver whose "device" memory is host memory, like the stand-in's. The fake can refuse the
// kernel (the stand-in's CUDA_ERROR_NO_BINARY_FOR_GPU: the host path) or accept it, in which case
// cuLaunchKernel runs the kernel's per-thread loop on the CPU, thread by thread: the launcher's
// parameters, result slots and read-back are then checked end to end without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <atomic>
#include <map>
#include <thread>
#include <unistd.h>
#include <string>
#include <vector>

#include "settings/config.h"
#include "dump/gemm_dump.h"
#include "scan/gemm_scan.h"
#include "dump/npy_writer.h"
#include "scan/host_scan.h"
#include "scan/scan_kernel_body.h"
#include "scan/device_reader.h"

namespace cublasspy {
namespace {

using scan::ElementFormat;

// ---- the fake driver -------------------------------------------------------------------------

struct FakeDriver {
  std::map<uint64_t, size_t> allocations;  // base -> bytes: what the "GPU" can reach
  std::vector<std::vector<unsigned char>> owned;
  bool capturing = false;
  CUresult module_result = CUDA_ERROR_NO_BINARY_FOR_GPU;  // what the stand-in answers
  CUresult sync_result = CUDA_SUCCESS;
  int copies = 0, launches = 0, syncs = 0, module_loads = 0;

  bool inside(uint64_t p, uint64_t n) const {
    auto it = allocations.upper_bound(p);
    if (it == allocations.begin()) return false;
    --it;
    return p - it->first <= it->second && n <= it->second - (p - it->first);
  }
  template <typename T>
  uint64_t add(std::vector<T>& v) {
    auto p = reinterpret_cast<uint64_t>(v.data());
    allocations[p] = v.size() * sizeof(T);
    return p;
  }
};
FakeDriver* g_fake = nullptr;

CUresult fake_ctx(CUcontext* c) {
  *c = reinterpret_cast<CUcontext>(0x1000);
  return CUDA_SUCCESS;
}
CUresult fake_sync(CUstream) {
  g_fake->syncs++;
  return g_fake->sync_result;
}
CUresult fake_copy(void* dst, CUdeviceptr src, size_t n) {
  if (!g_fake->inside(src, n)) return CUDA_ERROR_INVALID_VALUE;
  g_fake->copies++;
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  return CUDA_SUCCESS;
}
CUresult fake_copy_async(void* dst, CUdeviceptr src, size_t n, CUstream) { return fake_copy(dst, src, n); }
CUresult fake_capturing(CUstream, CUstreamCaptureStatus* s) {
  *s = g_fake->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
CUresult fake_range(CUdeviceptr* base, size_t* size, CUdeviceptr p) {
  auto it = g_fake->allocations.upper_bound(p);
  if (it == g_fake->allocations.begin()) return CUDA_ERROR_NOT_FOUND;
  --it;
  if (p - it->first >= it->second) return CUDA_ERROR_NOT_FOUND;
  *base = it->first;
  *size = it->second;
  return CUDA_SUCCESS;
}
CUresult fake_load(CUmodule* m, const void*) {
  g_fake->module_loads++;
  *m = g_fake->module_result == CUDA_SUCCESS ? reinterpret_cast<CUmodule>(0x2000) : nullptr;
  return g_fake->module_result;
}
CUresult fake_function(CUfunction* f, CUmodule, const char* name) {
  for (int i = 0; i < scan::kScanKernelCount; ++i) {
    if (std::strcmp(name, scan::scan_kernel_name(i)) == 0) {
      *f = reinterpret_cast<CUfunction>(static_cast<uintptr_t>(i + 1));
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}
CUresult fake_alloc(CUdeviceptr* p, size_t n) {
  g_fake->owned.emplace_back(n, 0xab);
  *p = g_fake->add(g_fake->owned.back());
  return CUDA_SUCCESS;
}
CUresult fake_memset(CUdeviceptr p, unsigned char v, size_t n, CUstream) {
  if (!g_fake->inside(p, n)) return CUDA_ERROR_INVALID_VALUE;
  std::memset(reinterpret_cast<void*>(p), v, n);
  return CUDA_SUCCESS;
}

// The kernels, as the CPU runs them: one function per CBS_SCAN_KERNELS entry, in order.
using ThreadFn = void (*)(const scan::ScanKernelParams&, uint64_t, scan::ScanTally&);
constexpr ThreadFn kThreadFns[] = {
#define CBS_FAKE_KERNEL(name_, format_, complex_) &scan::scan_thread<format_, complex_>,
    CBS_SCAN_KERNELS(CBS_FAKE_KERNEL)
#undef CBS_FAKE_KERNEL
};

CUresult fake_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                     unsigned bz, unsigned, CUstream, void** args, void**) {
  auto index = reinterpret_cast<uintptr_t>(f) - 1;
  if (index >= std::size(kThreadFns) || gy != 1 || gz != 1 || by != 1 || bz != 1 ||
      bx != scan::kScanBlockThreads) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const auto& p = *static_cast<const scan::ScanKernelParams*>(args[0]);
  if (p.threads != uint64_t{gx} * bx || !g_fake->inside(p.result, sizeof(scan::ScanTally))) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  g_fake->launches++;
  auto* result = reinterpret_cast<scan::ScanTally*>(p.result);
  for (uint64_t t = 0; t < p.threads; ++t) {
    scan::ScanTally mine{};
    kThreadFns[index](p, t, mine);
    scan::merge_tally(*result, mine);
  }
  return CUDA_SUCCESS;
}

DriverApi fake_api() {
  DriverApi api;
  api.ctx_get_current = fake_ctx;
  api.stream_synchronize = fake_sync;
  api.memcpy_dtoh = fake_copy;
  api.stream_is_capturing = fake_capturing;
  api.mem_get_address_range = fake_range;
  api.module_load_data = fake_load;
  api.module_get_function = fake_function;
  api.launch_kernel = fake_launch;
  api.mem_alloc = fake_alloc;
  api.memset_d8_async = fake_memset;
  api.memcpy_dtoh_async = fake_copy_async;
  return api;
}

constexpr unsigned char kImage[16] = {1};

// ---- helpers ---------------------------------------------------------------------------------

Matrix matrix(uint64_t ptr, DataType type, int64_t rows, int64_t cols, int64_t ld, int64_t stride = 0) {
  Matrix m;
  m.ptr = ptr;
  m.type = type;
  m.rows = rows;
  m.cols = cols;
  m.ld = ld;
  m.stride = stride;
  m.present = true;
  return m;
}

// C = A * B with A m x k, B k x n, C m x n (no transposes), D = C.
GemmCall gemm(const Matrix& a, const Matrix& b, const Matrix& c, int64_t batch = 1) {
  GemmCall g;
  g.valid = true;
  g.m = a.rows, g.k = a.cols, g.n = b.cols;
  g.batch_count = batch;
  g.op[0] = a, g.op[1] = b, g.op[2] = c, g.op[3] = c;
  g.output_is_c = true;
  return g;
}

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_fake = &fake_;
    api_ = fake_api();
    for (auto& s : summaries_) s = unscanned_summary();
  }
  void TearDown() override { g_fake = nullptr; }

  GemmScanResult scan(const GemmCall& g, bool before, ScanMode mode, KernelCache* kernels = nullptr,
                      uint64_t chunk = kDefaultChunkBytes) {
    GemmScanRequest r;
    r.before_call = before;
    r.mode = mode;
    r.chunk_bytes = chunk;
    r.alpha_zero = alpha_zero_;
    r.beta_zero = beta_zero_;
    r.summaries_ready = ready_;
    GemmScanResult result = scan_gemm(api_, kernels, g, r, summaries_);
    ready_ = ready_ || result.scanned;
    return result;
  }

  FakeDriver fake_;
  DriverApi api_;
  format::ScanSummary summaries_[4];
  bool alpha_zero_ = false, beta_zero_ = false, ready_ = false;
};

// Three fp32 operands, 4 x 3 in a 6-row buffer, A with a NaN at (1, 2).
struct Operands {
  std::vector<float> a = std::vector<float>(18, 1.0f), b = std::vector<float>(18, 2.0f),
                     c = std::vector<float>(18, 0.0f);
  GemmCall call(FakeDriver& fake, DataType type = DataType::kR32F) {
    return gemm(matrix(fake.add(a), type, 4, 3, 6), matrix(fake.add(b), type, 3, 3, 6),
                matrix(fake.add(c), type, 4, 3, 6));
  }
};

// ---- scans on the host path (the stand-in refuses the kernel) ----------------------------------

TEST_F(EngineTest, InputsScannedOnTheHostWhenTheKernelIsRefused) {
  Operands ops;
  ops.a[2 * 6 + 1] = NAN;
  ops.a[4] = NAN;  // row 4 lies in the gap below the 4 rows: not part of A
  KernelCache cache(kImage);
  GemmScanResult r = scan(ops.call(fake_), true, ScanMode::kInputs, &cache);
  EXPECT_TRUE(r.finding);
  EXPECT_TRUE(r.scanned);
  EXPECT_EQ(r.host_operands, 3);
  EXPECT_EQ(r.kernel_operands, 0);
  EXPECT_EQ(r.kernel_error, CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_STREQ(r.kernel_reason, "the driver did not load it");
  EXPECT_EQ(summaries_[0].nan_count, 1u);
  EXPECT_EQ(summaries_[0].first_row, 1u);
  EXPECT_EQ(summaries_[0].first_col, 2u);
  EXPECT_EQ(summaries_[1].max_abs_finite, 2.0);
  EXPECT_TRUE(was_scanned(summaries_[2]));   // beta unknown: C is an input
  EXPECT_FALSE(was_scanned(summaries_[3]));  // outputs are not scanned before the call
  // The module is loaded once per context, not once per call.
  scan(ops.call(fake_), true, ScanMode::kInputs, &cache);
  EXPECT_EQ(fake_.module_loads, 1);
}

TEST_F(EngineTest, HostPathSaysWhyWithoutAKernel) {
  Operands ops;
  GemmScanResult r = scan(ops.call(fake_), true, ScanMode::kInputs, nullptr);
  EXPECT_EQ(r.host_operands, 3);
  EXPECT_NE(std::string(r.kernel_reason).find("no nvcc"), std::string::npos);
  api_.launch_kernel = nullptr;  // a driver without the launch entry point
  KernelCache cache(kImage);
  ready_ = false;
  r = scan(ops.call(fake_), true, ScanMode::kInputs, &cache);
  EXPECT_EQ(r.host_operands, 3);
  EXPECT_EQ(fake_.module_loads, 0);
  EXPECT_NE(std::string(r.kernel_reason).find("entry points"), std::string::npos);
}

TEST_F(EngineTest, BetaZeroLeavesCAndAlphaZeroLeavesAAndB) {
  Operands ops;
  beta_zero_ = true;
  scan(ops.call(fake_), true, ScanMode::kAll);
  EXPECT_TRUE(was_scanned(summaries_[0]));
  EXPECT_FALSE(was_scanned(summaries_[2]));
  alpha_zero_ = true, beta_zero_ = false, ready_ = false;
  for (auto& s : summaries_) s = unscanned_summary();
  scan(ops.call(fake_), true, ScanMode::kAll);
  EXPECT_FALSE(was_scanned(summaries_[0]));
  EXPECT_FALSE(was_scanned(summaries_[1]));
  EXPECT_TRUE(was_scanned(summaries_[2]));
}

TEST_F(EngineTest, ModeDecidesThePhase) {
  Operands ops;
  EXPECT_FALSE(scan(ops.call(fake_), true, ScanMode::kOutputs).scanned);
  EXPECT_FALSE(scan(ops.call(fake_), false, ScanMode::kInputs).scanned);
  EXPECT_FALSE(scan(ops.call(fake_), true, ScanMode::kNone).scanned);
  EXPECT_EQ(fake_.copies, 0);
}

TEST_F(EngineTest, HalfOverflowNeedsFiniteInputs) {
  std::vector<uint16_t> a(12, 0x3c00), b(9, 0x3c00), c(12, 0x3c00);
  c[5] = 0x7c00;  // +Inf in the result at (1, 1)
  GemmCall g = gemm(matrix(fake_.add(a), DataType::kR16F, 4, 3, 4),
                    matrix(fake_.add(b), DataType::kR16F, 3, 3, 3),
                    matrix(fake_.add(c), DataType::kR16F, 4, 3, 4));
  beta_zero_ = true;  // C is not read: the inputs are A and B
  GemmScanResult r = scan(g, false, ScanMode::kOutputs);
  EXPECT_TRUE(r.finding);
  EXPECT_EQ(summaries_[3].pos_inf_count, 1u);
  EXPECT_EQ(summaries_[3].first_row, 1u);
  EXPECT_EQ(summaries_[3].first_col, 1u);
  EXPECT_EQ(summaries_[3].overflow, 1u);
  // The inputs were scanned after the fact, to tell a bad input from an overflow.
  EXPECT_TRUE(was_scanned(summaries_[0]));
  EXPECT_TRUE(was_scanned(summaries_[1]));
  EXPECT_EQ(summaries_[0].overflow, 0u);

  a[3] = 0x7e00;  // a NaN in A: the Inf is no longer an overflow
  ready_ = false;
  scan(g, false, ScanMode::kOutputs);
  EXPECT_EQ(summaries_[0].nan_count, 1u);
  EXPECT_EQ(summaries_[3].overflow, 0u);
}

TEST_F(EngineTest, OverflowUnknownWhenTheOverwrittenCWasAnInput) {
  std::vector<uint16_t> a(4, 0x3f80), b(4, 0x3f80), c(4, 0xff80);  // bf16 1, 1, -Inf
  GemmCall g = gemm(matrix(fake_.add(a), DataType::kR16BF, 2, 2, 2),
                    matrix(fake_.add(b), DataType::kR16BF, 2, 2, 2),
                    matrix(fake_.add(c), DataType::kR16BF, 2, 2, 2));
  scan(g, false, ScanMode::kOutputs);  // beta unknown, C overwritten: its input is gone
  EXPECT_EQ(summaries_[3].neg_inf_count, 4u);
  EXPECT_FALSE(was_scanned(summaries_[2]));
  EXPECT_EQ(summaries_[3].overflow, 0u);
}

TEST_F(EngineTest, BothPhasesFillTheirOwnSlots) {
  Operands ops;
  GemmCall g = ops.call(fake_);
  scan(g, true, ScanMode::kAll);
  ops.c[0] = INFINITY;  // the "call" wrote an Inf
  scan(g, false, ScanMode::kAll);
  EXPECT_EQ(nonfinite_count(summaries_[2]), 0u);  // C as it was before the call
  EXPECT_EQ(summaries_[3].pos_inf_count, 1u);     // D after it
  EXPECT_EQ(summaries_[3].overflow, 0u);          // fp32: no overflow flag
}

TEST_F(EngineTest, CapturedStreamIsNotTouched) {
  Operands ops;
  fake_.capturing = true;
  GemmScanResult r = scan(ops.call(fake_), true, ScanMode::kAll);
  EXPECT_TRUE(r.skipped_capture);
  EXPECT_FALSE(r.scanned);
  EXPECT_EQ(fake_.copies + fake_.syncs + fake_.launches, 0);
}

TEST_F(EngineTest, UnreadableOperandIsReportedNotScanned) {
  Operands ops;
  GemmCall g = ops.call(fake_);
  g.op[1].ptr = 0xdead0000;  // not device memory
  GemmScanResult r = scan(g, true, ScanMode::kInputs);
  EXPECT_EQ(r.failed_operands, 1);
  EXPECT_EQ(r.copy_error, CUDA_ERROR_INVALID_VALUE);
  EXPECT_FALSE(was_scanned(summaries_[1]));
  EXPECT_TRUE(was_scanned(summaries_[0]));
}

TEST_F(EngineTest, SmallChunksGiveTheSameSummaries) {
  Operands ops;
  ops.b[2 * 6 + 2] = -INFINITY;
  GemmCall g = ops.call(fake_);
  scan(g, true, ScanMode::kInputs, nullptr, 1 << 20);
  format::ScanSummary whole[4];
  std::memcpy(whole, summaries_, sizeof whole);
  int copies = fake_.copies;
  ready_ = false;
  scan(g, true, ScanMode::kInputs, nullptr, 8);  // two floats per copy
  EXPECT_EQ(std::memcmp(whole, summaries_, sizeof whole), 0);
  EXPECT_GT(fake_.copies - copies, 3 * copies);
}

TEST_F(EngineTest, PointerArraysAndStridedBatches) {
  std::vector<std::vector<double>> members(3, std::vector<double>(4, 1.0));
  members[2][3] = NAN;  // member 2, (1, 1)
  std::vector<uint64_t> pointers;
  for (auto& m : members) pointers.push_back(fake_.add(m));
  std::vector<double> b(4 * 3, 1.0);
  b[2 * 4 + 1] = INFINITY;  // member 2 of the strided B at (1, 0)
  Matrix a = matrix(0, DataType::kR64F, 2, 2, 2);
  a.array_ptr = fake_.add(pointers);
  GemmCall g = gemm(a, matrix(fake_.add(b), DataType::kR64F, 2, 2, 2, 4), matrix(0, DataType::kR64F, 2, 2, 2), 3);
  g.pointer_arrays = true;
  g.op[1].array_ptr = fake_.add(pointers);  // B read through the same pointers here
  g.op[1].ptr = 0;
  beta_zero_ = true;
  scan(g, true, ScanMode::kInputs);
  EXPECT_EQ(summaries_[0].nan_count, 1u);
  EXPECT_EQ(summaries_[0].first_batch, 2u);
  EXPECT_EQ(summaries_[0].first_row, 1u);
  EXPECT_EQ(summaries_[0].first_col, 1u);

  GemmCall strided = gemm(matrix(fake_.add(b), DataType::kR64F, 2, 2, 2, 4),
                          matrix(fake_.add(b), DataType::kR64F, 2, 2, 2, 4),
                          matrix(fake_.add(b), DataType::kR64F, 2, 2, 2, 4), 3);
  ready_ = false;
  scan(strided, true, ScanMode::kInputs);
  EXPECT_EQ(summaries_[0].pos_inf_count, 1u);
  EXPECT_EQ(summaries_[0].first_batch, 2u);
  EXPECT_EQ(summaries_[0].first_row, 1u);
}

// ---- the kernel path, with the kernel's loop run by the fake cuLaunchKernel --------------------

// cuBLASLt planar complex: a complex fp32 operand as two real planes, the imaginary plane first
// (a negative offset), a strided batch of 2 whose stride counts real sub-elements. Each plane is
// 3 x 2 in ld 4; member b's planes: imaginary at 16 b, real at 16 b + 8 (floats).
struct PlanarOperand {
  std::vector<float> memory = std::vector<float>(32, 0.0f);
  PlanarOperand() {
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 8; ++i) {
        memory[16 * b + 8 + i] = 1.0f + b;   // real parts: 1, then 2
        memory[16 * b + i] = -3.0f - b;      // imaginary parts: -3, then -4
      }
  }
  Matrix matrix(FakeDriver& fake) {
    Matrix m = cublasspy::matrix(fake.add(memory) + 8 * sizeof(float), DataType::kC32F, 3, 2, 4, 16);
    m.plane_offset = -8 * static_cast<int64_t>(sizeof(float));
    return m;
  }
};

TEST_F(EngineTest, PlanarComplexIsScannedThroughBothPlanes) {
  PlanarOperand op;
  op.memory[16 + 1 * 4 + 2] = NAN;  // member 1, imaginary plane, element (2, 1)
  op.memory[16 + 8 + 3] = NAN;      // member 1, real plane, row 3: in the gap below the 3 rows
  const Matrix a = op.matrix(fake_);
  GemmCall g = gemm(a, a, a, 2);
  KernelCache cache(kImage);
  fake_.module_result = CUDA_SUCCESS;  // a kernel is there: planar operands still go to the host
  GemmScanResult r = scan(g, true, ScanMode::kInputs, &cache);
  EXPECT_TRUE(r.finding);
  EXPECT_EQ(r.host_operands, 3);
  EXPECT_EQ(r.kernel_operands, 0);
  EXPECT_EQ(summaries_[0].nan_count, 1u);
  EXPECT_EQ(summaries_[0].first_row, 2u);
  EXPECT_EQ(summaries_[0].first_col, 1u);
  EXPECT_EQ(summaries_[0].first_batch, 1u);
  EXPECT_EQ(summaries_[0].max_abs_finite, 4.0);  // member 1's imaginary parts
  // Without the NaN: clean, and the same through small chunks (a plane read in pieces).
  op.memory[16 + 1 * 4 + 2] = -4.0f;
  ready_ = false;
  r = scan(g, true, ScanMode::kInputs, nullptr, 3 * sizeof(float) * 2);
  EXPECT_FALSE(r.finding);
  EXPECT_EQ(nonfinite_count(summaries_[0]), 0u);
  EXPECT_EQ(summaries_[0].max_abs_finite, 4.0);
  // A plane outside any allocation is an unreadable operand, never read past its memory.
  Matrix bad = a;
  bad.plane_offset = -1 << 20;
  ready_ = false;
  r = scan(gemm(bad, a, a, 2), true, ScanMode::kInputs, nullptr);
  EXPECT_EQ(r.failed_operands, 1);
  EXPECT_FALSE(was_scanned(summaries_[0]));
}

TEST_F(EngineTest, KernelPathMatchesTheHostPath) {
  fake_.module_result = CUDA_SUCCESS;
  std::vector<uint16_t> a(40, 0x3c00), b(40, 0x4000), c(40, 0x0001);
  a[1 * 10 + 3] = 0x7e00;       // NaN at (3, 1)
  b[3 * 10 + 0] = 0xfc00;       // -Inf at (0, 3)
  c[2 * 10 + 9] = 0x7c00;       // in C's gap (rows 8, 9): ignored
  GemmCall g = gemm(matrix(fake_.add(a), DataType::kR16F, 8, 4, 10),
                    matrix(fake_.add(b), DataType::kR16F, 4, 4, 10),
                    matrix(fake_.add(c), DataType::kR16F, 8, 4, 10));
  KernelCache cache(kImage);
  GemmScanResult r = scan(g, true, ScanMode::kInputs, &cache);
  EXPECT_EQ(r.kernel_operands, 3);
  EXPECT_EQ(r.host_operands, 0);
  EXPECT_EQ(fake_.launches, 3);
  format::ScanSummary gpu[4];
  std::memcpy(gpu, summaries_, sizeof gpu);
  ready_ = false;
  scan(g, true, ScanMode::kInputs, nullptr);  // host path
  EXPECT_EQ(std::memcmp(gpu, summaries_, sizeof gpu), 0);
  EXPECT_EQ(gpu[0].nan_count, 1u);
  EXPECT_EQ(gpu[0].first_row, 3u);
  EXPECT_EQ(gpu[1].first_col, 3u);
  EXPECT_EQ(gpu[2].max_abs_finite, std::ldexp(1.0, -24));
  EXPECT_EQ(nonfinite_count(gpu[2]), 0u);
}

TEST_F(EngineTest, KernelNeverLaunchedOnARangeOutsideAnAllocation) {
  fake_.module_result = CUDA_SUCCESS;
  Operands ops;
  GemmCall g = ops.call(fake_);
  g.op[0].cols = 4;  // A's extent now runs past its allocation
  KernelCache cache(kImage);
  GemmScanResult r = scan(g, true, ScanMode::kInputs, &cache);
  EXPECT_EQ(fake_.launches, 2);  // B and C only
  EXPECT_EQ(r.failed_operands, 1);  // the host copy of A fails too: reported, not read
  EXPECT_FALSE(was_scanned(summaries_[0]));
}

TEST_F(EngineTest, MisalignedOperandGoesToTheHostPath) {
  fake_.module_result = CUDA_SUCCESS;
  std::vector<float> raw(20, 1.0f);
  raw[10] = NAN;
  uint64_t base = fake_.add(raw) + 2;  // a float operand two bytes off its alignment
  GemmCall g = gemm(matrix(base, DataType::kR32F, 4, 4, 4), matrix(base, DataType::kR32F, 4, 4, 4),
                    matrix(base, DataType::kR32F, 4, 4, 4));
  beta_zero_ = true;
  KernelCache cache(kImage);
  GemmScanResult r = scan(g, true, ScanMode::kInputs, &cache);
  EXPECT_EQ(fake_.launches, 0);
  EXPECT_EQ(r.host_operands, 2);
  EXPECT_TRUE(was_scanned(summaries_[0]));
}

TEST_F(EngineTest, OverflowingSizesNeverReachTheKernel) {
  fake_.module_result = CUDA_SUCCESS;
  std::vector<float> raw(64, 1.0f);
  // (batch - 1) * stride wraps around 2^64 to a small number: a naive range check would pass.
  Matrix a = matrix(fake_.add(raw), DataType::kR32F, 2, 2, 2, int64_t{1} << 62);
  GemmCall g = gemm(a, a, a, 5);
  beta_zero_ = true;
  KernelCache cache(kImage);
  GemmScanResult r = scan(g, true, ScanMode::kInputs, &cache);
  EXPECT_EQ(fake_.launches, 0);
  EXPECT_EQ(r.kernel_operands, 0);
  EXPECT_EQ(r.host_operands + r.failed_operands, 2);  // the driver's copies: safe whatever they read
  DumpBudget budget(1 << 20);
  GemmDumpRequest request;
  request.prefix = "/nonexistent-dir/x";
  GemmDumpResult d = dump_gemm(api_, g, request, budget);
  EXPECT_EQ(d.written, 0);
  EXPECT_EQ(budget.used(), 0u);
}

TEST_F(EngineTest, KernelPointerArrayWithABadMemberFallsBack) {
  fake_.module_result = CUDA_SUCCESS;
  std::vector<float> m0(4, 1.0f);
  std::vector<uint64_t> pointers = {fake_.add(m0), 0xbad000};
  Matrix a = matrix(0, DataType::kR32F, 2, 2, 2);
  a.array_ptr = fake_.add(pointers);
  GemmCall g = gemm(a, a, a, 2);
  g.pointer_arrays = true;
  beta_zero_ = true;
  KernelCache cache(kImage);
  GemmScanResult r = scan(g, true, ScanMode::kInputs, &cache);
  EXPECT_EQ(fake_.launches, 0);
  EXPECT_EQ(r.failed_operands, 2);
}

TEST_F(EngineTest, ContextErrorAfterTheKernelMeansNotScanned) {
  fake_.module_result = CUDA_SUCCESS;
  fake_.sync_result = CUDA_ERROR_ILLEGAL_ADDRESS;
  Operands ops;
  KernelCache cache(kImage);
  GemmScanResult r = scan(ops.call(fake_), true, ScanMode::kInputs, &cache);
  EXPECT_EQ(r.kernel_error, CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_FALSE(r.finding);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(was_scanned(summaries_[i])) << i;
}

// ---- dumps ---------------------------------------------------------------------------------

class DumpTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    char templ[] = "/tmp/cublasspy-dump-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    (void)system(("rm -rf '" + dir_ + "'").c_str());
    EngineTest::TearDown();
  }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  GemmDumpRequest request() {
    GemmDumpRequest r;
    r.prefix = dir_ + "/trace.cbt.call7";
    r.function = "cublasSgemmStridedBatched";
    r.seq = 7;
    return r;
  }
  std::string dir_;
};

TEST_F(DumpTest, WritesTheExactStridedExtentAndItsDescription) {
  // A: 3 x 2 in ld 4, 2 members 10 apart: extent = 10 + (1*4 + 3) = 17 elements, gaps included.
  std::vector<float> a(20);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  std::vector<float> b(4, 1.0f), c(6, 0.0f);
  GemmCall g = gemm(matrix(fake_.add(a), DataType::kR32F, 3, 2, 4, 10),
                    matrix(fake_.add(b), DataType::kR32F, 2, 2, 2, 0),
                    matrix(fake_.add(c), DataType::kR32F, 3, 2, 3, 0), 2);
  DumpBudget budget(1 << 20);
  GemmDumpResult r = dump_gemm(api_, g, request(), budget);
  EXPECT_EQ(r.written, 3) << r.error;
  std::string error;
  auto info = read_npy_header(dir_ + "/trace.cbt.call7.a.npy", &error);
  ASSERT_TRUE(info) << error;
  EXPECT_EQ(info->descr, "<f4");
  EXPECT_EQ(info->shape, std::vector<uint64_t>{17});
  std::string bytes = slurp(dir_ + "/trace.cbt.call7.a.npy");
  ASSERT_EQ(bytes.size(), info->data_offset + 17 * 4);
  EXPECT_EQ(std::memcmp(bytes.data() + info->data_offset, a.data(), 17 * 4), 0);
  std::string json = slurp(dir_ + "/trace.cbt.call7.a.json");
  EXPECT_NE(json.find("\"ld\": 4"), std::string::npos) << json;
  EXPECT_NE(json.find("\"stride\": 10"), std::string::npos);
  EXPECT_NE(json.find("\"rows\": 3"), std::string::npos);
  EXPECT_NE(json.find("\"batch\": 2"), std::string::npos);
  EXPECT_NE(json.find("\"type\": \"CUDA_R_32F\""), std::string::npos);
  EXPECT_NE(json.find("\"seq\": 7"), std::string::npos);
  // B broadcasts one matrix (stride 0): one member's extent.
  EXPECT_EQ(read_npy_header(dir_ + "/trace.cbt.call7.b.npy", &error)->shape, std::vector<uint64_t>{4});
  // D is C: no separate file, and C's JSON says it holds the result.
  EXPECT_NE(access((dir_ + "/trace.cbt.call7.d.npy").c_str(), F_OK), 0);
  EXPECT_NE(slurp(dir_ + "/trace.cbt.call7.c.json").find("\"is_output\": true"), std::string::npos);
  EXPECT_EQ(budget.used(), (17 + 4 + 6) * 4u);
}

TEST_F(DumpTest, RawTypesAndPointerArrays) {
  std::vector<uint16_t> m0 = {1, 2, 3, 4}, m1 = {5, 6, 7, 8};
  std::vector<uint64_t> pointers = {fake_.add(m0), fake_.add(m1)};
  Matrix a = matrix(0, DataType::kR16BF, 2, 2, 2);
  a.array_ptr = fake_.add(pointers);
  GemmCall g = gemm(a, a, a, 2);
  g.pointer_arrays = true;
  DumpBudget budget(1 << 20);
  EXPECT_EQ(dump_gemm(api_, g, request(), budget).written, 3);
  std::string error;
  auto info = read_npy_header(dir_ + "/trace.cbt.call7.a.npy", &error);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->descr, "<u2");  // bf16 as raw bits; the JSON names the type
  EXPECT_EQ(info->shape, std::vector<uint64_t>{8});
  std::string bytes = slurp(dir_ + "/trace.cbt.call7.a.npy");
  const uint16_t want[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(std::memcmp(bytes.data() + info->data_offset, want, sizeof want), 0);
  std::string json = slurp(dir_ + "/trace.cbt.call7.a.json");
  EXPECT_NE(json.find("\"type\": \"CUDA_R_16BF\""), std::string::npos);
  EXPECT_NE(json.find("\"raw_bits\": true"), std::string::npos);
  EXPECT_NE(json.find("\"pointer_array\": true"), std::string::npos);
}

TEST_F(DumpTest, PlanarComplexIsWrittenAsPairs) {
  PlanarOperand op;
  const Matrix a = op.matrix(fake_);
  GemmCall g = gemm(a, a, a, 2);
  DumpBudget budget(1 << 20);
  GemmDumpResult r = dump_gemm(api_, g, request(), budget);
  EXPECT_EQ(r.written, 3) << r.error;
  std::string error;
  auto info = read_npy_header(dir_ + "/trace.cbt.call7.a.npy", &error);
  ASSERT_TRUE(info) << error;
  EXPECT_EQ(info->descr, "<c8");
  // The strided extent: member 1 starts 16 elements on; 16 + (1 * 4 + 3) = 23 elements.
  EXPECT_EQ(info->shape, std::vector<uint64_t>{23});
  std::string bytes = slurp(dir_ + "/trace.cbt.call7.a.npy");
  ASSERT_EQ(bytes.size(), info->data_offset + 23 * 8);
  std::vector<float> pairs(46);
  std::memcpy(pairs.data(), bytes.data() + info->data_offset, 23 * 8);
  // Element (r, c) of member b is flat[b*16 + c*4 + r]: (1, -3) in member 0, (2, -4) in member 1.
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < 2; ++c)
      for (int row = 0; row < 3; ++row) {
        const size_t at = 2 * static_cast<size_t>(b * 16 + c * 4 + row);
        EXPECT_EQ(pairs[at], 1.0f + b) << b << c << row;
        EXPECT_EQ(pairs[at + 1], -3.0f - b) << b << c << row;
      }
  std::string json = slurp(dir_ + "/trace.cbt.call7.a.json");
  EXPECT_NE(json.find("\"plane_offset\": -32"), std::string::npos) << json;
  EXPECT_NE(json.find("\"stride\": 16"), std::string::npos) << json;
}

TEST_F(DumpTest, BudgetSkipsWholeOperandsAndExistingFilesAreKept) {
  std::vector<double> a(100, 1.0), b(4, 1.0), c(4, 1.0);
  GemmCall g = gemm(matrix(fake_.add(a), DataType::kR64F, 10, 10, 10),
                    matrix(fake_.add(b), DataType::kR64F, 2, 2, 2),
                    matrix(fake_.add(c), DataType::kR64F, 2, 2, 2));
  DumpBudget budget(100);  // room for B (32 bytes) and C (32), not A (800)
  GemmDumpResult r = dump_gemm(api_, g, request(), budget);
  EXPECT_EQ(r.over_budget, 1);
  EXPECT_EQ(r.written, 2);
  EXPECT_NE(access((dir_ + "/trace.cbt.call7.a.npy").c_str(), F_OK), 0);
  DumpBudget more(1 << 20);
  r = dump_gemm(api_, g, request(), more);  // same names again: never overwritten
  EXPECT_EQ(r.failed, 2);
  EXPECT_EQ(r.written, 1);  // A, which was not there
  EXPECT_EQ(more.used(), 800u);
}

TEST_F(DumpTest, UnreadableOperandLeavesNoFile) {
  std::vector<float> b(4, 1.0f), c(4, 1.0f);
  GemmCall g = gemm(matrix(0xdead000, DataType::kR32F, 2, 2, 2),
                    matrix(fake_.add(b), DataType::kR32F, 2, 2, 2),
                    matrix(fake_.add(c), DataType::kR32F, 2, 2, 2));
  DumpBudget budget(1 << 20);
  GemmDumpResult r = dump_gemm(api_, g, request(), budget);
  EXPECT_EQ(r.failed, 1);
  EXPECT_NE(r.error.find("copy failed"), std::string::npos) << r.error;
  EXPECT_NE(access((dir_ + "/trace.cbt.call7.a.npy").c_str(), F_OK), 0);
  EXPECT_EQ(budget.used(), 16u + 16u);  // B and C; A's reservation was given back
}

TEST(DumpBudgetSetting, ParsesWholeMegabytes) {
  uint64_t mb = 0;
  EXPECT_TRUE(parse_dump_max_mb("512", mb));
  EXPECT_EQ(mb, 512u);
  EXPECT_TRUE(parse_dump_max_mb("0", mb));
  EXPECT_FALSE(parse_dump_max_mb("", mb));
  EXPECT_FALSE(parse_dump_max_mb("1.5", mb));
  EXPECT_FALSE(parse_dump_max_mb("-1", mb));
  EXPECT_FALSE(parse_dump_max_mb("99999999999999999999", mb));
}

TEST(DumpBudgetSetting, IsPartOfTheConfigWithAMessageForABadValue) {
  static const char* value = nullptr;
  auto env = [](const char* name) -> const char* {
    return std::string(name) == "CUBLASSPY_DUMP_MAX_MB" ? value : nullptr;
  };
  std::vector<std::string> errors;
  EXPECT_EQ(parse_config(env, errors).dump_max_mb, kDefaultDumpMaxMb);
  value = "64";
  EXPECT_EQ(parse_config(env, errors).dump_max_mb, 64u);
  EXPECT_TRUE(errors.empty());
  value = "lots";
  EXPECT_EQ(parse_config(env, errors).dump_max_mb, kDefaultDumpMaxMb);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("CUBLASSPY_DUMP_MAX_MB='lots'"), std::string::npos) << errors[0];
}

TEST(DumpBudgetSetting, ThreadsReservingAtOnceNeverExceedTheLimit) {
  // Eight threads take and give back 1 KiB pieces of a 16 KiB budget: no moment holds more than
  // the limit, every reservation that fit is accounted, and all of it comes back.
  constexpr uint64_t kPiece = 1024, kLimit = 16 * kPiece;
  DumpBudget budget(kLimit);
  std::atomic<uint64_t> most{0}, granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        if (!budget.reserve(kPiece)) continue;
        granted.fetch_add(1, std::memory_order_relaxed);
        uint64_t now = budget.used(), seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        budget.give_back(kPiece);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_LE(most.load(), kLimit);
  EXPECT_GT(granted.load(), 0u);
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_FALSE(DumpBudget(kPiece - 1).reserve(kPiece)) << "a piece larger than the whole limit";
}

}  // namespace
}  // namespace cublasspy
