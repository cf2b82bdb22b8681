// execution-failed: failing statuses nothing else explains, one finding per function and status.
#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

TEST(ExecutionFailed, GemmExecutionFailed) {
  TracedRun run = run_workload({{"STANDIN_FAIL", "cublasSgemm_v2:1:13"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "execution-failed");
  EXPECT_TRUE(contains(d.summary, "CUBLAS_STATUS_EXECUTION_FAILED")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "m=4 n=3 k=2")) << d.evidence;
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemm_v2");
  for (const char* part : {"--sync", "--check", "--scan", "Xid"}) {
    EXPECT_TRUE(contains(d.advice, part)) << part << " missing from: " << d.advice;
  }
}

TEST(ExecutionFailed, RepeatedFailuresAreOneFinding) {
  TracedRun run = run_workload({{"STANDIN_FAIL", "cublasSgemm_v2:*:13"}}, {"--gemms", "3"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "execution-failed");
  EXPECT_TRUE(contains(d.summary, "(3 calls)")) << explain(run, found);
}

TEST(ExecutionFailed, InvalidValueHasItsOwnIdAndAdvisesCheck) {
  TracedRun run = run_workload({{"STANDIN_FAIL", "cublasSgemm_v2:1:7"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "invalid-value");
  EXPECT_TRUE(contains(d.summary, "CUBLAS_STATUS_INVALID_VALUE")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "m=4 n=3 k=2")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "--check")) << d.advice;
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

// ARCH_MISMATCH: the GPU lacks the feature; the finding shows what the call asked for.
TEST(ExecutionFailed, ArchMismatchHasItsOwnId) {
  TracedRun run = run_workload({{"STANDIN_FAIL", "cublasSgemm_v2:1:8"}});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "arch-mismatch");
  EXPECT_TRUE(contains(d.summary, "CUBLAS_STATUS_ARCH_MISMATCH")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "It asked for: ")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "transa=N")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "compute_cap")) << d.advice;
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

// NOT_SUPPORTED from cublasGemmEx (forced by the stand-in): the types and the compute type the
// call asked for, and cuBLAS's (not cuBLASLt's) advice.
TEST(ExecutionFailed, NotSupportedGemmExNamesItsTypes) {
  TracedRun run = run_workload({{"STANDIN_FAIL", "cublasGemmEx:1:15"}}, {"--half-overflow"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "configuration-not-supported");
  EXPECT_TRUE(contains(d.summary, "cublasGemmEx returned CUBLAS_STATUS_NOT_SUPPORTED")) << explain(run, found);
  for (const char* part : {"a_type=CUDA_R_16F", "c_type=CUDA_R_16F", "compute_type=CUBLAS_COMPUTE_32F", "algo=CUBLAS_GEMM_DEFAULT"}) {
    EXPECT_TRUE(contains(d.evidence, part)) << part << " missing from: " << d.evidence;
  }
  EXPECT_TRUE(contains(d.advice, "cublasGemmEx's table")) << d.advice;
  EXPECT_FALSE(contains(d.advice, "cublasLtMatmul")) << d.advice;
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

TEST(ExecutionFailed, SilentWhenARootCauseExplainsTheFailures) {
  TracedRun run = run_workload({{"STANDIN_NO_DRIVER", "1"}});
  auto found = run.diagnose();
  EXPECT_TRUE(has_id(found, "no-driver")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

}  // namespace
}  // namespace cublasspy::test
