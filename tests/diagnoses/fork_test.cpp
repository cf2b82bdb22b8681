// fork-after-cuda-init: a forked child (a DataLoader worker) using CUDA its parent initialized.
// The program forks for real; each process writes its own trace.
#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

TracedRun run_fork(const char* mode) {
  RunOptions o;
  o.args = {mode};
  return run_traced(program_path("diag_fork"), o);
}

const TraceFile* child_trace(const TracedRun& run) {
  for (const TraceFile& t : run.opened) {
    if (t.header().forked_child) return &t;
  }
  return nullptr;
}

TEST(ForkAfterCudaInit, ChildOfAnInitializedParent) {
  TracedRun run = run_fork("after-init");
  auto found = run.diagnose();
  ASSERT_EQ(run.opened.size(), 2u) << explain(run, found);
  const TraceFile* child = child_trace(run);
  ASSERT_NE(child, nullptr) << explain(run, found);
  const Diagnosis& d = the_finding(found, "fork-after-cuda-init");
  ASSERT_TRUE(d.pid);
  EXPECT_EQ(std::to_string(*d.pid), child->process().get("pid")) << "the finding is about the child";
  const std::string parent_pid = std::to_string(child->header().parent_pid_at_fork);
  EXPECT_TRUE(contains(d.summary, parent_pid)) << d.summary;
  // The parent's trace is in the report: the evidence names its set-up call.
  EXPECT_TRUE(contains(d.evidence, "cublasCreate_v2")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "succeeded there")) << d.evidence;
  ASSERT_TRUE(d.call);
  EXPECT_FALSE(function_of_call(run, *d.pid, *d.call).empty());
  EXPECT_TRUE(contains(d.advice, "spawn")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "DataLoader")) << d.advice;
  // Only the child is diagnosed.
  EXPECT_EQ(with_id(found, "fork-after-cuda-init").size(), 1u) << explain(run, found);
}

TEST(ForkAfterCudaInit, ChildTraceAloneStillTellsTheStory) {
  TracedRun run = run_fork("after-init");
  const TraceFile* child = child_trace(run);
  ASSERT_NE(child, nullptr);
  auto found = diagnose({child});
  const Diagnosis& d = the_finding(found, "fork-after-cuda-init");
  EXPECT_TRUE(contains(d.evidence, "initialized CUDA before fork()")) << d.evidence;
}

TEST(ForkAfterCudaInit, ForkBeforeAnyCudaIsFine) {
  TracedRun run = run_fork("before-init");
  auto found = run.diagnose();
  ASSERT_EQ(run.opened.size(), 2u) << explain(run, found);
  EXPECT_FALSE(has_id(found, "fork-after-cuda-init")) << explain(run, found);
  EXPECT_TRUE(found.empty()) << explain(run, found);
}

TEST(ForkAfterCudaInit, ParentThatOnlyLoadedTheLibrariesIsFine) {
  // The parent's trace exists (it recorded the load) and the child is marked as its fork, but
  // CUDA was never initialized before fork(): that is the safe pattern.
  TracedRun run = run_fork("loaded-only");
  auto found = run.diagnose();
  const TraceFile* child = child_trace(run);
  ASSERT_NE(child, nullptr) << explain(run, found);
  EXPECT_EQ(child->header().parent_cuda_ready, 0u) << explain(run, found);
  EXPECT_FALSE(has_id(found, "fork-after-cuda-init")) << explain(run, found);
}

}  // namespace
}  // namespace cublasspy::test
