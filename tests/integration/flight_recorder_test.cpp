// The ring is a flight recorder: it keeps the most recent calls, and the first failing call
// survives however often the ring wraps after it.
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

TEST(FlightRecorder, FirstFailureSurvivesWrapAround) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  constexpr int kCalls = 200;
  ScratchDir dir;
  ProcessResult r = run_process(
      {program("shim_sgemm_loop"), std::to_string(kCalls)},
      traced(dir) + on_standin() +
          Env{{"CUBLASSPY_RING", "16"}, {"STANDIN_FAIL", "cublasSgemm_v2:5:13"}}, isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  ASSERT_NE(r.out.find("call 4 status 13"), std::string::npos) << "the 5th call failed\n" << r.out;
  ASSERT_NE(r.out.find("failed 1 "), std::string::npos) << r.out;

  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);
  int sgemm = function_id(*trace, "cublasSgemm_v2");
  ASSERT_GE(sgemm, 0);
  EXPECT_EQ(trace->counters(static_cast<uint16_t>(sgemm)).calls, uint64_t{kCalls});
  EXPECT_EQ(trace->counters(static_cast<uint16_t>(sgemm)).failed, 1u);

  // The GEMMs are consecutive calls: the 5th one's number follows from the last one's.
  auto held = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_FALSE(held.empty());
  const CallView& last = held.back();
  ASSERT_EQ(last.arg("ldc"), uint64_t{4 + kCalls - 1}) << "the last GEMM is held";
  const uint64_t fifth_seq = last.seq - (kCalls - 5);

  auto first = trace->first_failure();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->seq, fifth_seq);
  EXPECT_EQ(trace->header().first_failure_seq, fifth_seq);
  EXPECT_STREQ(first->function_name(), "cublasSgemm_v2");
  EXPECT_EQ(first->rec().status, 13);  // CUBLAS_STATUS_EXECUTION_FAILED
  EXPECT_EQ(first->arg("ldc"), 4u + 4u) << "ldc = 4 + index: the 5th call's";
  EXPECT_EQ(first->state, format::RecordState::kCompleted);
  for (const CallView& c : calls_of(*trace)) {
    EXPECT_NE(c.seq, fifth_seq) << "the ring has wrapped past the failure; only the copy keeps it";
  }
}

}  // namespace
}  // namespace cublasspy::integration
