// no-driver and driver-too-old, from real runs: the real CUDA libraries on this driverless
// machine, the toolkit's own stub libcuda put in the driver's place, and the stand-in acting out
// a missing or old driver.
#include <filesystem>

#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

namespace fs = std::filesystem;

TEST(NoDriver, RealLibrariesWithoutDriverNameTheFailedLibcudaLoad) {
  if (driver_installed()) GTEST_SKIP() << "this machine has an NVIDIA driver";
  RunOptions o;
  o.stack = Stack::kRealLibraries;
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  ASSERT_EQ(run.opened.size(), 1u) << explain(run, found);
  const Diagnosis& d = the_finding(found, "no-driver");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.evidence, "dlopen(\"libcuda.so.1\")")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "cannot open shared object file")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "cudaErrorInsufficientDriver (35)")) << d.evidence;
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "dlopen");
  EXPECT_TRUE(contains(d.advice, "nvidia-smi")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "--gpus all")) << d.advice;
  // cublasCreate's NOT_INITIALIZED and the failed GEMMs are consequences, not findings.
  EXPECT_FALSE(has_id(found, "cublas-init-failed")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "driver-too-old")) << explain(run, found);
}

TEST(NoDriver, ToolkitStubInPlaceOfTheDriverIsNamed) {
  const fs::path stub = fs::path(cuda_libdir()) / "stubs" / "libcuda.so";
  ASSERT_TRUE(fs::exists(stub)) << "no stub libcuda.so in " << cuda_libdir() << " (the CUDA toolkit ships one)";
  // The classic mistake: the toolkit's stubs directory on LD_LIBRARY_PATH, its libcuda.so
  // reachable under the driver's name.
  fs::path dir = fs::temp_directory_path() / ("cbs-stub-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(stub, dir / "libcuda.so.1", fs::copy_options::overwrite_existing);
  RunOptions o;
  o.stack = Stack::kRealLibraries;
  o.env["LD_LIBRARY_PATH"] = dir.string();
  TracedRun run = run_traced(program_path("diag_workload"), o);
  fs::remove_all(dir);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "no-driver");
  EXPECT_TRUE(contains(d.summary, "stub")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "cudaErrorStubLibrary (34)")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "stubs")) << d.advice;
  EXPECT_FALSE(has_id(found, "cublas-init-failed")) << explain(run, found);
}

TEST(NoDriver, StandinWithoutDriver) {
  RunOptions o;
  o.env["STANDIN_NO_DRIVER"] = "1";
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "no-driver");
  EXPECT_TRUE(contains(d.evidence, "cudaGetDeviceCount")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "No driver version could be read")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "other calls failed as a consequence")) << d.evidence;
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

TEST(NoDriver, HealthyRunHasNoFindingAtAll) {
  TracedRun run = run_traced(program_path("diag_workload"), RunOptions{});
  auto found = run.diagnose();
  ASSERT_EQ(run.exit_code, 0) << explain(run, found);
  ASSERT_EQ(run.opened.size(), 1u) << explain(run, found);
  EXPECT_TRUE(found.empty()) << explain(run, found);
}

TEST(DriverTooOld, OlderDriverThanRuntime) {
  RunOptions o;
  o.env["STANDIN_DRIVER_VERSION"] = "12080";
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "driver-too-old");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.summary, "12.8")) << d.summary;
  EXPECT_TRUE(contains(d.summary, "13.0")) << d.summary;
  EXPECT_TRUE(contains(d.evidence, "cudaErrorInsufficientDriver (35)")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "CUDA 13.0")) << d.advice;
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cudaGetDeviceCount");
  EXPECT_FALSE(has_id(found, "no-driver")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "cublas-init-failed")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

TEST(DriverTooOld, NewerDriverIsFine) {
  RunOptions o;
  o.env["STANDIN_DRIVER_VERSION"] = "13020";
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  ASSERT_EQ(run.opened.size(), 1u);
  EXPECT_EQ(run.opened[0].header().driver_version, 13020) << explain(run, found);
  EXPECT_FALSE(has_id(found, "driver-too-old")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "no-driver")) << explain(run, found);
}

}  // namespace
}  // namespace cublasspy::test
