// The real CUDA 13 libraries on a machine without a driver (this one): every call fails for
// real, and the trace must say exactly how, including a crash inside real cuBLAS.
#include <dlfcn.h>
#include <signal.h>

#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

class DriverlessRealCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    // These tests describe a machine without a driver; with one, the calls would succeed.
    if (void* driver = dlopen("libcuda.so.1", RTLD_NOW)) {
      dlclose(driver);
      GTEST_SKIP() << "libcuda.so.1 loads on this machine: the driverless expectations do not apply";
    }
    const char* error = dlerror();
    driver_error_ = error ? error : "";
  }
  std::string driver_error_;  // what dlopen("libcuda.so.1") says here
  ScratchDir dir_;
};

TEST_F(DriverlessRealCuda, EachFailureIsRecordedAsTheProgramSawIt) {
  ProcessResult r = run_process({program("shim_driverless_calls")}, traced(dir_), isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  ASSERT_NE(r.out.find("cudaGetDeviceCount 35 count -7"), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);

  auto count = calls_of(*trace, "cudaGetDeviceCount");
  ASSERT_EQ(count.size(), 1u);
  EXPECT_EQ(count[0].rec().status, 35);  // cudaErrorInsufficientDriver
  EXPECT_EQ(count[0].arg("count"), format::kArgUnset) << "the runtime did not write the count";

  auto create = calls_of(*trace, "cublasCreate_v2");
  ASSERT_EQ(create.size(), 1u);
  EXPECT_EQ(create[0].rec().status, 1);  // CUBLAS_STATUS_NOT_INITIALIZED

  auto gemm = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(gemm.size(), 1u);
  EXPECT_EQ(gemm[0].rec().status, 1);
  EXPECT_EQ(gemm[0].arg("handle"), 0u);
  EXPECT_EQ(gemm[0].arg("m"), 2u);

  const format::FileHeader& h = trace->header();
  EXPECT_TRUE(h.driver_version == 0 || h.driver_version == -1) << "driver version " << h.driver_version;
  EXPECT_EQ(h.runtime_version / 1000, 13) << "runtime version " << h.runtime_version;
  EXPECT_GE(trace->total_failed(), 3u);

  // The runtime's own dlopen of the driver failed; the record keeps dlerror()'s words.
  bool found = false;
  for (const CallView& load : calls_of(*trace, "dlopen")) {
    if (text_arg(load, "filename") != "libcuda.so.1") continue;
    found = true;
    EXPECT_NE(load.rec().status, 0) << "the load failed";
    EXPECT_EQ(text_arg(load, "result"), driver_error_);
  }
  EXPECT_TRUE(found) << "no dlopen(\"libcuda.so.1\") record";
}

TEST_F(DriverlessRealCuda, GarbageHandleCrashInsideCublasIsPinnedOnTheCall) {
  ProcessResult plain = run_process({program("shim_driverless_calls"), "garbage"}, {}, isolated_in(dir_));
  ASSERT_EQ(plain.signal, SIGSEGV) << "real cuBLAS dereferences the handle\n" << plain.describe();

  ProcessResult r = run_process({program("shim_driverless_calls"), "garbage"}, traced(dir_), isolated_in(dir_));
  EXPECT_EQ(r.signal, SIGSEGV) << "the shim must not change how the program ends\n" << r.describe();
  EXPECT_EQ(r.out, plain.out);
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kSignaled));
  EXPECT_EQ(trace->header().end_signal, SIGSEGV);

  std::vector<CallView> in_flight;
  for (const CallView& c : calls_of(*trace)) {
    if (c.in_flight()) in_flight.push_back(c);
  }
  ASSERT_EQ(in_flight.size(), 1u) << "exactly the crashing call is in flight";
  const CallView& crashed = in_flight[0];
  EXPECT_STREQ(crashed.function_name(), "cublasSgemm_v2");
  EXPECT_EQ(crashed.arg("handle"), 0x1234u);
  EXPECT_EQ(crashed.arg("m"), 3u);
  EXPECT_EQ(crashed.arg("n"), 5u);
  EXPECT_EQ(crashed.arg("k"), 7u);
  EXPECT_TRUE(crashed.rec().flags & format::kFlagCrashed);
}

}  // namespace
}  // namespace cublasspy::integration
