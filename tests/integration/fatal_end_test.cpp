// How a process ended, and the call it was in: a crash or an abort inside a call (the call in
// flight, marked crashed), the program's own abort outside any call, CUBLASSPY_ON_ERROR=abort
// after a failing call, and SIGKILL while a call hangs (no handler runs: the mapped file alone
// must tell).
#include <signal.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

std::vector<CallView> in_flight(const TraceFile& trace) {
  std::vector<CallView> out;
  for (const CallView& c : calls_of(trace)) {
    if (c.in_flight()) out.push_back(c);
  }
  return out;
}

class FatalEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }
  // sgemm_loop with `faults` on the stand-in, once plainly and once under the shim; both must
  // end the same way. Returns the traced run.
  ProcessResult run_both(const std::vector<std::string>& args, const Env& faults) {
    std::vector<std::string> argv = {program("shim_sgemm_loop")};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult plain = run_process(argv, on_standin() + faults, isolated_in(dir_));
    ProcessResult traced_run = run_process(argv, traced(dir_) + on_standin() + faults, isolated_in(dir_));
    EXPECT_EQ(traced_run.signal, plain.signal) << "the shim must not change how the program ends";
    EXPECT_EQ(traced_run.exit_code, plain.exit_code);
    EXPECT_EQ(traced_run.out, plain.out);
    return traced_run;
  }
  ScratchDir dir_;
};

TEST_F(FatalEnd, SegfaultInsideACallLeavesItInFlightAndCrashed) {
  ProcessResult r = run_both({"5"}, {{"STANDIN_CRASH", "cublasSgemm_v2:3"}});
  ASSERT_EQ(r.signal, SIGSEGV) << r.describe();
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kSignaled));
  EXPECT_EQ(trace->header().end_signal, SIGSEGV);
  auto flying = in_flight(*trace);
  ASSERT_EQ(flying.size(), 1u);
  EXPECT_STREQ(flying[0].function_name(), "cublasSgemm_v2");
  EXPECT_EQ(flying[0].arg("ldc"), 4u + 2u) << "the third GEMM";
  EXPECT_TRUE(flying[0].rec().flags & format::kFlagCrashed);
  auto gemms = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(gemms.size(), 3u);
  EXPECT_EQ(gemms[0].state, format::RecordState::kCompleted);
  EXPECT_EQ(gemms[1].state, format::RecordState::kCompleted);
  EXPECT_FALSE(gemms[1].rec().flags & format::kFlagCrashed);
}

TEST_F(FatalEnd, AbortInsideACallLeavesItInFlightAndCrashed) {
  ProcessResult r = run_both({"5"}, {{"STANDIN_CRASH", "cublasSgemm_v2:2:SIGABRT"}});
  ASSERT_EQ(r.signal, SIGABRT) << r.describe();
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kSignaled));
  EXPECT_EQ(trace->header().end_signal, SIGABRT);
  auto flying = in_flight(*trace);
  ASSERT_EQ(flying.size(), 1u);
  EXPECT_STREQ(flying[0].function_name(), "cublasSgemm_v2");
  EXPECT_EQ(flying[0].arg("ldc"), 4u + 1u) << "the second GEMM";
  EXPECT_TRUE(flying[0].rec().flags & format::kFlagCrashed);
}

TEST_F(FatalEnd, ProgramsOwnAbortOutsideAnyCall) {
  ProcessResult r = run_both({"2", "host", "abort"}, {});
  ASSERT_EQ(r.signal, SIGABRT) << r.describe();
  EXPECT_NE(r.out.find("calls 2 failed 0"), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kSignaled));
  EXPECT_EQ(trace->header().end_signal, SIGABRT);
  EXPECT_TRUE(in_flight(*trace).empty()) << "no call was running when the program aborted";
  for (const CallView& c : calls_of(*trace)) EXPECT_FALSE(c.rec().flags & format::kFlagCrashed) << c.function_name();
  EXPECT_EQ(calls_of(*trace, "cublasSgemm_v2").size(), 2u);
}

// CUBLASSPY_ON_ERROR=abort: the shim aborts once the failing call's record is complete, and
// says which call failed with what, in the CUDA vocabulary's names.
TEST_F(FatalEnd, OnErrorAbortNamesTheFailingCallAndItsStatus) {
  ProcessResult r = run_process({program("shim_sgemm_loop"), "5"},
                                traced(dir_) + on_standin() +
                                    Env{{"STANDIN_FAIL", "cublasSgemm_v2:2:13"}, {"CUBLASSPY_ON_ERROR", "abort"}},
                                isolated_in(dir_));
  ASSERT_EQ(r.signal, SIGABRT) << r.describe();
  EXPECT_NE(r.err.find("CUBLASSPY_ON_ERROR=abort: cublasSgemm_v2 returned CUBLAS_STATUS_EXECUTION_FAILED (13); "
                       "aborting"),
            std::string::npos)
      << r.err;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  auto gemms = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(gemms.size(), 2u) << "the program stops at the failing call";
  EXPECT_EQ(gemms[1].state, format::RecordState::kCompleted);
  EXPECT_EQ(gemms[1].rec().status, 13);
  EXPECT_TRUE(in_flight(*trace).empty()) << "the abort comes after the call, not in it";
}

TEST_F(FatalEnd, SigkillDuringAHangLeavesTheHungCallInFlight) {
  ScratchDir& dir = dir_;
  RunningProcess running = start_process({program("shim_sgemm_loop"), "5"},
                                         traced(dir) + on_standin() + Env{{"STANDIN_HANG", "cublasSgemm_v2:3"}}, isolated_in(dir));
  const std::string path = trace_path(dir, running.pid());
  // The test acts only once the trace shows the hung call (bounded: a broken shim fails here).
  bool hung = wait_until(
      [&] {
        std::string error;
        auto t = TraceFile::open(path, error);
        if (!t) return false;
        // The third GEMM (ldc 6) is the one that hangs; the first two are in flight only
        // for a moment, and killing then would test nothing.
        for (const CallView& c : calls_of(*t, "cublasSgemm_v2")) {
          if (c.in_flight() && c.arg("ldc") == 4u + 2u) return true;
        }
        return false;
      },
      std::chrono::seconds(20));
  running.kill(SIGKILL);
  ProcessResult r = running.wait();
  ASSERT_TRUE(hung) << "the trace never showed a GEMM in flight\n" << r.describe();
  EXPECT_EQ(r.signal, SIGKILL);

  auto trace = open_trace(path);
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kRunning))
      << "SIGKILL runs no handler: the file still says running";
  auto flying = in_flight(*trace);
  ASSERT_EQ(flying.size(), 1u);
  EXPECT_STREQ(flying[0].function_name(), "cublasSgemm_v2");
  EXPECT_EQ(flying[0].arg("ldc"), 4u + 2u) << "the third GEMM hangs";
  EXPECT_FALSE(flying[0].rec().flags & format::kFlagCrashed);
  EXPECT_EQ(calls_of(*trace, "cublasSgemm_v2").size(), 3u);
}

}  // namespace
}  // namespace cublasspy::integration
