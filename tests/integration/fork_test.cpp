// fork(): the child notices, opens its own trace and says whose child it is; the parent's trace
// never receives the child's calls (the mapping is shared memory after fork).
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

TEST(Fork, ChildWritesItsOwnTraceAndNeverTheParents) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  ProcessResult r = run_process({program("shim_fork_after_init")}, traced(dir) + on_standin(), isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(parent (\d+) child (\d+))"))) << r.out;
  const std::string parent_pid = m[1], child_pid = m[2];
  ASSERT_EQ(dir.files().size(), 2u) << "one trace per process";

  auto parent = open_trace(dir / ("t-" + parent_pid + ".cbt"));
  auto child = open_trace(dir / ("t-" + child_pid + ".cbt"));
  ASSERT_TRUE(parent && child);

  // The child's trace: marked as a fork of the traced parent, holding the child's calls only.
  const format::FileHeader& ch = child->header();
  EXPECT_EQ(ch.forked_child, 1u);
  EXPECT_EQ(ch.parent_pid_at_fork, std::stoull(parent_pid));
  EXPECT_EQ(ch.parent_cuda_ready, 1u) << "the parent had created a handle before forking";
  EXPECT_EQ(child->process().get("pid"), child_pid);
  auto parent_gemms = calls_of(*parent, "cublasSgemm_v2");
  ASSERT_EQ(parent_gemms.size(), 2u);
  EXPECT_EQ(ch.parent_seq_at_fork, parent_gemms[0].seq) << "the parent's last call before the fork";
  EXPECT_EQ(ch.parent_calls_at_fork, parent->total_calls() - 1) << "all but the GEMM after the fork";
  auto child_gemms = calls_of(*child, "cublasSgemm_v2");
  ASSERT_EQ(child_gemms.size(), 1u);
  EXPECT_EQ(child_gemms[0].arg("m"), 7u);
  EXPECT_EQ(calls_of(*child, "cudaGetDeviceCount").size(), 1u);
  EXPECT_EQ(calls_of(*child, "cublasCreate_v2").size(), 1u);

  // The parent's trace: its own calls, none of the child's.
  EXPECT_EQ(parent->header().forked_child, 0u);
  EXPECT_EQ(parent->process().get("pid"), parent_pid);
  for (const CallView& g : parent_gemms) EXPECT_EQ(g.arg("m"), 5u) << "a child's GEMM in the parent's trace";
  int count_id = function_id(*parent, "cudaGetDeviceCount");
  ASSERT_GE(count_id, 0);
  EXPECT_EQ(parent->counters(static_cast<uint16_t>(count_id)).calls, 0u) << "only the child enumerated devices";
  EXPECT_EQ(calls_of(*parent, "cublasCreate_v2").size(), 1u);
  int sgemm_id = function_id(*parent, "cublasSgemm_v2");
  EXPECT_EQ(parent->counters(static_cast<uint16_t>(sgemm_id)).calls, 2u);
  EXPECT_EQ(calls_of(*parent).size(), parent->total_calls()) << "every call recorded once";
}

}  // namespace
}  // namespace cublasspy::integration
