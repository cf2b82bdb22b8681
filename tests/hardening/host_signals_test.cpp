// A program with signal handlers of its own, installed before the shim's or after them, whose
// call crashes: it prints and ends exactly as without the shim (exit status, signal, output),
// and the trace says what happened as far as the shim could see it. Includes a second signal
// arriving while the first is being recorded (the program's handler aborts).
#include <signal.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

class HostSignals : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }
  // signal_host MODE with the GEMMs in `crashes` (1-based) segfaulting inside the stand-in,
  // plainly and under the shim: both must end the same way. Returns the traced run.
  ProcessResult run_both(const std::string& mode, const std::string& crashes = "cublasSgemm_v2:2") {
    std::vector<std::string> argv = {program("hard_signal_host"), mode, "4"};
    Env fault = {{"STANDIN_CRASH", crashes}};
    ProcessResult plain = run_process(argv, on_standin() + fault, isolated_in(dir_));
    ProcessResult traced_run = run_process(argv, traced(dir_) + on_standin() + fault, isolated_in(dir_));
    EXPECT_EQ(traced_run.signal, plain.signal) << traced_run.describe() << "\nplain: " << plain.describe();
    EXPECT_EQ(traced_run.exit_code, plain.exit_code);
    EXPECT_EQ(traced_run.out, plain.out);
    EXPECT_FALSE(traced_run.timed_out);
    return traced_run;
  }
  std::optional<TraceFile> trace_of(const ProcessResult& r) { return open_trace(trace_path(dir_, r.pid)); }
  static std::vector<CallView> in_flight_gemms(const TraceFile& t) {
    std::vector<CallView> out;
    for (const CallView& c : calls_of(t, "cublasSgemm_v2")) {
      if (c.in_flight()) out.push_back(c);
    }
    return out;
  }
  static void expect_end(const TraceFile& t, format::EndState state, int sig) {
    EXPECT_EQ(t.header().end_state, static_cast<uint32_t>(state));
    EXPECT_EQ(t.header().end_signal, sig);
  }
  ScratchDir dir_;
};

TEST_F(HostSignals, HandlerInstalledBeforeThatExits) {
  ProcessResult r = run_both("before-exit");
  EXPECT_EQ(r.exit_code, 7) << r.describe();
  EXPECT_NE(r.out.find("host handler"), std::string::npos);
  auto t = trace_of(r);
  ASSERT_TRUE(t);
  // The shim recorded the crash, then chained to the program's handler, which _exit()ed.
  expect_end(*t, format::EndState::kSignaled, SIGSEGV);
  auto flying = in_flight_gemms(*t);
  ASSERT_EQ(flying.size(), 1u);
  EXPECT_TRUE(flying[0].rec().flags & format::kFlagCrashed);
}

TEST_F(HostSignals, SecondSignalWhileTheFirstIsRecorded) {
  // The program's SIGSEGV handler calls abort(): SIGABRT arrives inside the shim's handler for
  // SIGSEGV. The program dies of SIGABRT as without the shim; the trace keeps the first signal.
  ProcessResult r = run_both("before-abort");
  EXPECT_EQ(r.signal, SIGABRT) << r.describe();
  auto t = trace_of(r);
  ASSERT_TRUE(t);
  expect_end(*t, format::EndState::kSignaled, SIGSEGV);
  auto flying = in_flight_gemms(*t);
  ASSERT_EQ(flying.size(), 1u);
  EXPECT_TRUE(flying[0].rec().flags & format::kFlagCrashed);
}

TEST_F(HostSignals, HandlerThatReraisesTheSignalWhileItIsBlocked) {
  // Without SA_NODEFER the signal is blocked while the program's handler runs, so its raise()
  // stays pending until the handler returns: the shim must call it with the same mask.
  ProcessResult r = run_both("before-reraise");
  EXPECT_EQ(r.signal, SIGSEGV) << r.describe();
  EXPECT_NE(r.out.find("reraise pending"), std::string::npos) << r.out;
  auto t = trace_of(r);
  ASSERT_TRUE(t);
  expect_end(*t, format::EndState::kSignaled, SIGSEGV);
}

TEST_F(HostSignals, HandlerThatRecoversWithSiglongjmp) {
  // Two crashes, both recovered from: the program goes on and exits 0. Each crashed call stays
  // in flight (it never returned) and is marked crashed, the second too (the first handler,
  // left by siglongjmp, must not make the second look like a signal inside it), and the trace
  // ends "exited".
  // (The second rule's count misses the call the first rule crashed: its 3rd is the 4th GEMM.)
  ProcessResult r = run_both("before-longjmp", "cublasSgemm_v2:2;cublasSgemm_v2:3");
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_NE(r.out.find("recovered at 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("recovered at 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("done"), std::string::npos) << r.out;
  auto t = trace_of(r);
  ASSERT_TRUE(t);
  expect_end(*t, format::EndState::kExited, 0);
  auto flying = in_flight_gemms(*t);
  ASSERT_EQ(flying.size(), 2u);
  for (const CallView& c : flying) EXPECT_TRUE(c.rec().flags & format::kFlagCrashed) << "seq " << c.seq;
  EXPECT_EQ(calls_of(*t, "cublasSgemm_v2").size(), 4u);
}

TEST_F(HostSignals, HandlerInstalledAfterReplacesTheShims) {
  // The program's handler replaced the shim's and exits: the shim never hears of the crash, and
  // the trace reads like one killed outright (running, the call in flight).
  ProcessResult r = run_both("after-exit");
  EXPECT_EQ(r.exit_code, 7) << r.describe();
  auto t = trace_of(r);
  ASSERT_TRUE(t);
  expect_end(*t, format::EndState::kRunning, 0);
  auto flying = in_flight_gemms(*t);
  ASSERT_EQ(flying.size(), 1u);
  EXPECT_FALSE(flying[0].rec().flags & format::kFlagCrashed);
}

TEST_F(HostSignals, HandlerInstalledAfterThatChainsToTheShims) {
  // Like Python's faulthandler: the program's handler calls the one it replaced (the shim's),
  // which records the crash and takes the default action, still inside the program's handler
  // with the signal blocked: the process dies when that handler returns.
  ProcessResult r = run_both("after-chain");
  EXPECT_EQ(r.signal, SIGSEGV) << r.describe();
  auto t = trace_of(r);
  ASSERT_TRUE(t);
  expect_end(*t, format::EndState::kSignaled, SIGSEGV);
  auto flying = in_flight_gemms(*t);
  ASSERT_EQ(flying.size(), 1u);
  EXPECT_TRUE(flying[0].rec().flags & format::kFlagCrashed);
}

}  // namespace
}  // namespace cublasspy::integration
