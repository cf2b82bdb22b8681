// cublas-init-failed: cublasCreate fails while the driver works. The rule separates memory
// (ALLOC_FAILED, or an allocation that ran out first) from context trouble, and stays silent when
// the driver itself is the cause.
#include <gtest/gtest.h>

#include <fstream>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

TEST(CublasInitFailed, AllocFailedIsMemory) {
  RunOptions o;
  o.env["STANDIN_FAIL"] = "cublasCreate_v2:1:3";
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "cublas-init-failed");
  EXPECT_TRUE(contains(d.summary, "memory")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "CUBLAS_STATUS_ALLOC_FAILED (3)")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "so the driver works")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "nvidia-smi")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "empty_cache")) << d.advice;
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasCreate_v2");
  // The GEMM and the rest failing with NOT_INITIALIZED afterwards are its consequences.
  EXPECT_TRUE(contains(d.evidence, "later cuBLAS call")) << d.evidence;
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

TEST(CublasInitFailed, OutOfMemoryBeforeTheCreateIsMemory) {
  RunOptions o;
  o.env["STANDIN_FAIL"] = "cublasCreate_v2:1:1";
  o.args = {"--oom-first"};
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "cublas-init-failed");
  EXPECT_TRUE(contains(d.summary, "memory")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "cudaMalloc")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "1099511627776 bytes")) << d.evidence;
}

TEST(CublasInitFailed, NotInitializedWithMemoryFineIsTheContext) {
  RunOptions o;
  o.env["STANDIN_FAIL"] = "cublasCreate_v2:1:1";
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "cublas-init-failed");
  EXPECT_TRUE(contains(d.summary, "context")) << explain(run, found);
  EXPECT_FALSE(contains(d.summary, "memory")) << d.summary;
  EXPECT_TRUE(contains(d.advice, "set_device")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "cudatoolkit")) << d.advice;
}

// The field's commonest case: a kernel faults (a device-side assert, an index out of range), its
// launch and the check after it succeed, and the program's first GEMM creates the handle on the
// poisoned context (diag_kernel_fault --late-handle; STANDIN_DELAYED_ERROR, the GPU's timing).
TEST(CublasInitFailed, AfterAKernelFaultNamesTheKernel) {
  RunOptions o;
  o.env["STANDIN_DELAYED_ERROR"] = "cudaLaunchKernel:1:710";
  o.args = {"--late-handle"};
  const std::string program = program_path("diag_kernel_fault");
  ASSERT_TRUE(std::ifstream(program).good()) << program << " was not built: it needs nvcc (CUBLASSPY_NVCC)";
  TracedRun run = run_traced(program, o);
  EXPECT_TRUE(contains(run.output, "cudaLaunchKernel gather_rows 0")) << run.output;
  EXPECT_TRUE(contains(run.output, "cublasCreate_v2 1")) << run.output;
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "cublas-init-failed");
  EXPECT_TRUE(contains(d.summary, "an earlier kernel most likely faulted (gather_rows(float const*, int const*, float*, int))"))
      << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "Since the last clean synchronization, 1 launch put work on the device before it: "
                                   "gather_rows(float const*, int const*, float*, int) (cudaLaunchKernel, grid 1x1x1"))
      << d.evidence;
  EXPECT_TRUE(contains(d.advice, "--sync all")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "set_device")) << d.advice;  // not the context's advice
  ASSERT_TRUE(d.call && d.pid && d.launch) << explain(run, found);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasCreate_v2");
  // The later GEMM's NOT_INITIALIZED (no handle) is its consequence.
  EXPECT_TRUE(contains(d.evidence, "later cuBLAS call")) << d.evidence;
  // The sticky error surfaces again at the program's last wait: the device's own word.
  EXPECT_TRUE(contains(d.evidence, "The device reported cudaErrorAssert (710) at cudaStreamSynchronize")) << d.evidence;
}

TEST(CublasInitFailed, SilentWhenTheDriverIsMissing) {
  if (driver_installed()) GTEST_SKIP() << "this machine has an NVIDIA driver";
  RunOptions o;
  o.stack = Stack::kRealLibraries;
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  // cublasCreate did fail (status 1) in this run; the driver explains it.
  EXPECT_TRUE(contains(run.output, "cublasCreate_v2 1")) << run.output;
  EXPECT_FALSE(has_id(found, "cublas-init-failed")) << explain(run, found);
  EXPECT_TRUE(has_id(found, "no-driver")) << explain(run, found);
}

TEST(CublasInitFailed, SilentWhenTheCreateWorks) {
  TracedRun run = run_traced(program_path("diag_workload"), RunOptions{});
  auto found = run.diagnose();
  EXPECT_TRUE(contains(run.output, "cublasCreate_v2 0")) << run.output;
  EXPECT_FALSE(has_id(found, "cublas-init-failed")) << explain(run, found);
}

}  // namespace
}  // namespace cublasspy::test
