// alpha and beta: their values are recorded when the pointer mode says host memory, and left
// unknown (the addresses only) in device pointer mode, where reading them would be wrong.
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

TEST(Scalars, HostPointerModeRecordsTheValues) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  ProcessResult r = run_process({program("shim_sgemm_loop"), "1", "host"}, traced(dir) + on_standin(), isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);
  auto gemm = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(gemm.size(), 1u);
  const format::Record& rec = gemm[0].rec();
  EXPECT_EQ(rec.pointer_mode, 0);
  ASSERT_TRUE(rec.flags & format::kFlagAlphaKnown);
  ASSERT_TRUE(rec.flags & format::kFlagBetaKnown);
  EXPECT_EQ(rec.alpha[0], 2.0);
  EXPECT_EQ(rec.beta[0], 0.5);
}

TEST(Scalars, DevicePointerModeLeavesThemUnknown) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  ProcessResult r = run_process({program("shim_sgemm_loop"), "1", "device"}, traced(dir) + on_standin(), isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  ASSERT_NE(r.out.find("failed 0"), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);
  auto gemm = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(gemm.size(), 1u);
  const format::Record& rec = gemm[0].rec();
  EXPECT_EQ(rec.pointer_mode, 1);
  EXPECT_FALSE(rec.flags & format::kFlagAlphaKnown);
  EXPECT_FALSE(rec.flags & format::kFlagBetaKnown);
  // The addresses are those of the 4th and 5th allocations (A, B, C, then alpha and beta).
  auto allocations = calls_of(*trace, "cudaMalloc");
  ASSERT_EQ(allocations.size(), 5u);
  EXPECT_EQ(gemm[0].arg("alpha"), allocations[3].arg("dev_ptr"));
  EXPECT_EQ(gemm[0].arg("beta"), allocations[4].arg("dev_ptr"));
}

}  // namespace
}  // namespace cublasspy::integration
