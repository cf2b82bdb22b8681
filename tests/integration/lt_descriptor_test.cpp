// cuBLASLt: the shim shadows descriptors from their Create/SetAttribute calls, so a matmul
// record shows the GEMM it describes. Layouts in ROW order keep their own rows and columns
// (ORDER only says how they lie in memory), TRANSA swaps A's, the batch comes from the layouts.
// Checked on the stand-in, which computes the matmul (so the shape it accepted is the one
// recorded), and on the real cuBLASLt, whose descriptor calls work without a driver.
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

// lt_matmul_row_major: m 4, n 3, k 2, TRANSA, A stored 2 x 4 (ld 4), B 2 x 3, D 4 x 3 (ld 3),
// all ROW order, batch 3 with strides 8 (A), 6 (B), 12 (D), fp32 with fp32 compute.
void expect_described_matmul(const CallView& matmul) {
  EXPECT_EQ(matmul.arg("m"), 4u);
  EXPECT_EQ(matmul.arg("n"), 3u);
  EXPECT_EQ(matmul.arg("k"), 2u);
  EXPECT_EQ(matmul.arg("transa"), 1u);  // CUBLAS_OP_T
  EXPECT_EQ(matmul.arg("transb"), 0u);
  EXPECT_EQ(matmul.arg("lda"), 4u);
  EXPECT_EQ(matmul.arg("ldb"), 3u);
  EXPECT_EQ(matmul.arg("ldd"), 3u);
  EXPECT_EQ(matmul.arg("a_order"), 1u);  // CUBLASLT_ORDER_ROW
  EXPECT_EQ(matmul.arg("d_order"), 1u);
  EXPECT_EQ(matmul.arg("batch_count"), 3u);
  EXPECT_EQ(matmul.arg("stride_a"), 8u);
  EXPECT_EQ(matmul.arg("stride_b"), 6u);
  EXPECT_EQ(matmul.arg("stride_d"), 12u);
  EXPECT_EQ(matmul.arg("a_type"), 0u);  // CUDA_R_32F
  EXPECT_EQ(matmul.arg("d_type"), 0u);
  EXPECT_EQ(matmul.arg("compute_type"), 68u);  // CUBLAS_COMPUTE_32F
  EXPECT_EQ(matmul.arg("scale_type"), 0u);
}

TEST(LtDescriptors, MatmulRecordDescribesTheGemmOnTheStandin) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  ProcessResult r = run_process({program("shim_lt_matmul_row_major")}, traced(dir) + on_standin(), isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  ASSERT_NE(r.out.find("cublasLtMatmul 0"), std::string::npos) << "the stand-in accepts the shape\n" << r.out;
  EXPECT_NE(r.out.find("d[0] 2 d[last] 2"), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);
  auto matmul = calls_of(*trace, "cublasLtMatmul");
  ASSERT_EQ(matmul.size(), 1u);
  EXPECT_EQ(matmul[0].rec().status, 0);
  expect_described_matmul(matmul[0]);
}

TEST(LtDescriptors, MatmulRecordDescribesTheGemmOnTheRealLibraryWithoutADriver) {
  ScratchDir dir;
  ProcessResult r = run_process({program("shim_lt_matmul_row_major")}, traced(dir), isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  ASSERT_NE(r.out.find("descriptor failures 0"), std::string::npos) << r.out;
  if (r.out.find("cublasLtCreate 0") != std::string::npos) {
    GTEST_SKIP() << "cuBLASLt works on this machine (a driver is present)";
  }
  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);
  auto matmul = calls_of(*trace, "cublasLtMatmul");
  ASSERT_EQ(matmul.size(), 1u);
  EXPECT_NE(matmul[0].rec().status, 0) << "no driver: the matmul itself fails";
  expect_described_matmul(matmul[0]);
}

}  // namespace
}  // namespace cublasspy::integration
