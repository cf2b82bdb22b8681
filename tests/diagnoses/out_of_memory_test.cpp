// device-out-of-memory: the GPU's memory runs out mid-run. The stand-in's cuBLAS allocates its
// own workspace at a handle's first GEMM (STANDIN_CUBLAS_WORKSPACE), stream-ordered with
// cuMemAllocAsync, as cuBLAS 12.2 and later do, on a device scripted to have little memory
// (STANDIN_DEVICE_MEMORY); and the program's own cudaMalloc asks for more than the device has.
#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

constexpr const char* kDeviceBytes = "16777216";     // 16 MiB
constexpr const char* kWorkspaceBytes = "33554432";  // 32 MiB: more than the device has

std::vector<std::string> snapshots(const TracedRun& run) {
  std::vector<std::string> out;
  for (const TraceFile& t : run.opened) {
    for (const auto& [key, value] : t.process().entries) {
      if (key == "memory.at_failure") out.push_back(value);
    }
  }
  return out;
}

TracedRun workspace_runs_out() {
  return run_workload({{"STANDIN_DEVICE_MEMORY", kDeviceBytes}, {"STANDIN_CUBLAS_WORKSPACE", kWorkspaceBytes}});
}

TEST(OutOfMemory, CublasWorkspaceAllocationNamedWithTheMemoryAtTheFailure) {
  TracedRun run = workspace_runs_out();
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "device-out-of-memory");
  EXPECT_EQ(d.severity, Severity::kError);
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cuMemAllocAsync") << explain(run, found);
  for (const char* part : {"asked for 33554432 bytes", "CUDA_ERROR_OUT_OF_MEMORY", "from inside libcublas",
                           "during cublasSgemm_v2", "cuBLAS's own workspace", "CUBLAS_STATUS_ALLOC_FAILED",
                           "of 16777216 bytes)"}) {
    EXPECT_TRUE(contains(d.evidence, part)) << part << " missing from: " << d.evidence;
  }
  for (const char* part : {"smaller batch", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                           "CUBLAS_WORKSPACE_CONFIG=:4096:8", "torch.cuda.empty_cache()"}) {
    EXPECT_TRUE(contains(d.advice, part)) << part << " missing from: " << d.advice;
  }
  // The GEMM's ALLOC_FAILED is the out of memory's, not a finding of its own.
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
}

// The shim read the memory at the failed allocation and at the failing GEMM, once each: seq,
// free, total (as the stand-in's cuMemGetInfo reports them), and the caller's library.
TEST(OutOfMemory, MemoryRecordedAtTheAllocationAndTheFailingCall) {
  TracedRun run = workspace_runs_out();
  const std::vector<std::string> seen = snapshots(run);
  ASSERT_EQ(seen.size(), 2u) << explain(run, run.diagnose());
  for (const std::string& s : seen) {
    EXPECT_TRUE(contains(s, std::string("\t") + kDeviceBytes + "\t")) << s;
  }
  EXPECT_TRUE(contains(seen[0], "libcublas")) << "the allocation came from inside cuBLAS: " << seen[0];
}

TEST(OutOfMemory, ProgramsOwnAllocationNamesItsSizeAndCaller) {
  TracedRun run = run_workload({}, {"--oom-first"});
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "device-out-of-memory");
  EXPECT_TRUE(contains(d.summary, "cudaMalloc of 1099511627776 bytes failed")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "called from diag_workload")) << d.evidence;
  EXPECT_FALSE(contains(d.evidence, "cuBLAS's own")) << d.evidence;
  EXPECT_FALSE(has_id(found, "execution-failed")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "cublas-init-failed")) << explain(run, found);
}

// Nothing failed: no memory read, no finding.
TEST(OutOfMemory, CleanRunRecordsNoMemory) {
  TracedRun run = run_workload({{"STANDIN_CUBLAS_WORKSPACE", kWorkspaceBytes}});
  EXPECT_TRUE(snapshots(run).empty());
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "device-out-of-memory")) << explain(run, found);
}

}  // namespace
}  // namespace cublasspy::test
