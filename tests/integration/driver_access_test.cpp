// How the shim reaches the driver for its own calls (src/cuda_driver/driver_api.h,
// interpose/driver_table.cpp): from the libcuda the program loaded, never loading one itself,
// and what the checks, scans and CUBLASSPY_SYNC do while there is none. The subject links only
// the null cuBLAS (no libcuda needed); LD_LIBRARY_PATH offers the stand-in's libcuda, so a shim
// that loaded one would find it.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "checks/check_ids.h"
#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

namespace fs = std::filesystem;

class DriverAccess : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is not built";
    // Only a libcuda on the library path: the stand-in's libcublas there would pull one in.
    fs::create_directory(dir_ / "lib");
    fs::create_symlink(kStandinDir + "/libcuda.so.1", dir_ / "lib/libcuda.so.1");
  }

  // Every mode that reaches the driver, traced.
  Env all_modes() const {
    return traced(dir_) + Env{{"LD_LIBRARY_PATH", dir_ / "lib"},
                              {"CUBLASSPY_CHECK", "1"},
                              {"CUBLASSPY_SCAN", "all"},
                              {"CUBLASSPY_SYNC", "1"}};
  }

  ScratchDir dir_;
};

TEST_F(DriverAccess, TheShimNeverLoadsLibcuda) {
  const std::string subject = program("shim_gemm_without_driver");
  // The controls: the program alone loads no libcuda, and one is there to be loaded.
  ProcessResult plain = run_process({subject}, {{"LD_LIBRARY_PATH", dir_ / "lib"}}, isolated_in(dir_));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  ASSERT_EQ(plain.out, "create 0 sgemm 0 0 libcuda absent\n");
  ProcessResult loads = run_process({subject, "load"}, {{"LD_LIBRARY_PATH", dir_ / "lib"}}, isolated_in(dir_));
  ASSERT_TRUE(loads.exited_ok()) << loads.describe();
  ASSERT_EQ(loads.out, "create 0 sgemm 0 0 libcuda mapped\n");

  ProcessResult r = run_process({subject}, all_modes(), isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain.out) << "the shim loaded a libcuda into the program";

  // What driver_api.h says happens without one: the checks of the arguments alone, no scan,
  // no synchronization, no versions.
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  auto gemms = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(gemms.size(), 2u);
  for (const CallView& gemm : gemms) {
    EXPECT_EQ(gemm.rec().check_bits, check_bit(CheckId::kInvalidLeadingDimension))
        << "only the argument checks run without a driver";
    EXPECT_EQ(gemm.rec().flags & format::kFlagSynced, 0u) << "nothing was synchronized";
    EXPECT_EQ(gemm.rec().flags & format::kFlagScanned, 0u);
  }
  EXPECT_EQ(trace->header().driver_version, -1);
  EXPECT_EQ(trace->header().runtime_version, -1);
  EXPECT_NE(r.err.find("libcuda's copy functions were not found"), std::string::npos) << r.err;
}

TEST_F(DriverAccess, ALibcudaLoadedLaterIsUsedFromTheNextCall) {
  ProcessResult r = run_process({program("shim_gemm_without_driver"), "load"}, all_modes(), isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, "create 0 sgemm 0 0 libcuda mapped\n");

  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  auto gemms = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(gemms.size(), 2u);
  EXPECT_EQ(gemms[0].rec().flags & format::kFlagSynced, 0u) << "no driver yet";
  EXPECT_NE(gemms[1].rec().flags & format::kFlagSynced, 0u)
      << "the program's dlopen of libcuda, recorded, made the shim look again";
}

}  // namespace
}  // namespace cublasspy::integration
