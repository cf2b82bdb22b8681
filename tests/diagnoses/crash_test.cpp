// crashed-in-call and killed-in-call: the stand-in crashes or hangs inside the GEMM; the test
// kills the hung process with SIGKILL, so nothing of the shim runs at the end.
#include <signal.h>

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

TracedRun crash_in_gemm(const char* signal_name) {
  return run_workload({{"STANDIN_CRASH", std::string("cublasSgemm_v2:1:") + signal_name}});
}

// True once the trace shows the GEMM in flight (the stand-in hangs inside it).
bool gemm_in_flight(const TraceFile& t) {
  bool found = false;
  t.for_each_call([&](const CallView& c) {
    found = found || (c.in_flight() && std::strcmp(c.function_name(), "cublasSgemm_v2") == 0);
  });
  return found;
}

TEST(CrashedInCall, SegfaultInsideTheGemm) {
  TracedRun run = crash_in_gemm("SIGSEGV");
  auto found = run.diagnose();
  EXPECT_EQ(run.signal, SIGSEGV) << explain(run, found);
  const Diagnosis& d = the_finding(found, "crashed-in-call");
  EXPECT_TRUE(contains(d.summary, "SIGSEGV")) << d.summary;
  EXPECT_TRUE(contains(d.summary, "cublasSgemm_v2")) << d.summary;
  EXPECT_TRUE(contains(d.evidence, "m=4 n=3 k=2")) << d.evidence;
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemm_v2");
  EXPECT_TRUE(contains(d.advice, "--check")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "replay")) << d.advice;
  EXPECT_FALSE(has_id(found, "killed-in-call")) << explain(run, found);
}

TEST(CrashedInCall, AbortPointsAtStderr) {
  TracedRun run = crash_in_gemm("SIGABRT");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "crashed-in-call");
  EXPECT_TRUE(contains(d.summary, "SIGABRT")) << explain(run, found);
  EXPECT_TRUE(contains(d.advice, "stderr")) << d.advice;
}

TEST(CrashedInCall, BusError) {
  TracedRun run = crash_in_gemm("SIGBUS");
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "crashed-in-call");
  EXPECT_TRUE(contains(d.summary, "SIGBUS")) << explain(run, found);
}

TEST(CrashedInCall, SignalOutsideAnyCallIsNotACrashInACall) {
  RunOptions o;
  o.args = {"--segv-after"};
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  EXPECT_EQ(run.signal, SIGSEGV) << explain(run, found);
  ASSERT_EQ(run.opened.size(), 1u);
  EXPECT_EQ(run.opened[0].header().end_state, static_cast<uint32_t>(format::EndState::kSignaled));
  EXPECT_FALSE(has_id(found, "crashed-in-call")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "killed-in-call")) << explain(run, found);
}

TEST(KilledInCall, HungGemmKilledWithSigkill) {
  RunOptions o;
  o.env["STANDIN_HANG"] = "cublasSgemm_v2:1";
  bool saw_hang = false;
  o.while_running = [&](pid_t pid, const std::string& dir) {
    saw_hang = wait_for_trace(dir, gemm_in_flight, 30);
    kill(pid, SIGKILL);
  };
  TracedRun run = run_traced(program_path("diag_workload"), o);
  auto found = run.diagnose();
  ASSERT_TRUE(saw_hang) << explain(run, found);
  EXPECT_EQ(run.signal, SIGKILL);
  const Diagnosis& d = the_finding(found, "killed-in-call");
  EXPECT_EQ(d.severity, Severity::kError);
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "cublasSgemm_v2");
  EXPECT_TRUE(contains(d.evidence, "no exit and no fatal signal")) << d.evidence;
  EXPECT_TRUE(contains(d.advice, "OOM")) << d.advice;
  EXPECT_FALSE(has_id(found, "crashed-in-call")) << explain(run, found);
}

TEST(KilledInCall, StillRunningProcessIsAHang) {
  RunOptions o;
  o.env["STANDIN_HANG"] = "cublasSgemm_v2:1";
  std::vector<Diagnosis> live;
  std::string live_trace_error;
  o.while_running = [&](pid_t pid, const std::string& dir) {
    if (wait_for_trace(dir, gemm_in_flight, 30)) {
      wait_for_trace(dir, [&](const TraceFile& t) {
        live = diagnose({&t});
        return true;
      }, 5);
    }
    kill(pid, SIGKILL);
  };
  TracedRun run = run_traced(program_path("diag_workload"), o);
  const Diagnosis& d = the_finding(live, "killed-in-call");
  EXPECT_EQ(d.severity, Severity::kWarning) << explain(run, live);
  EXPECT_TRUE(contains(d.summary, "still inside")) << d.summary;
  EXPECT_TRUE(contains(d.evidence, "is still running")) << d.evidence;
}

// Under `cublasspy run` the launcher sees the SIGKILL the process could not record (trace
// format 5): the finding says what killed it instead of guessing.
TEST(KilledInCall, SigkillSeenByTheLauncherIsNamed) {
  RunOptions o;
  o.preload_shim = false;  // `run` preloads it into the workload
  o.env["STANDIN_HANG"] = "cublasSgemm_v2:1";
  o.args = {"run", "--summary", "never", "--", program_path("diag_workload")};
  pid_t workload = 0;
  o.while_running = [&](pid_t, const std::string& dir) {
    wait_for_trace(dir, [&](const TraceFile& t) {
      if (!gemm_in_flight(t)) return false;
      workload = static_cast<pid_t>(std::stol(t.process().get("pid")));
      return true;
    }, 30);
    if (workload > 0) kill(workload, SIGKILL);
  };
  TracedRun run = run_traced(CUBLASSPY_TOOL, o);
  auto found = run.diagnose();
  ASSERT_GT(workload, 0) << explain(run, found);
  EXPECT_EQ(run.exit_code, 128 + SIGKILL) << explain(run, found);
  const Diagnosis& d = the_finding(found, "killed-in-call");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.summary, "was killed by SIGKILL (9) inside cublasSgemm_v2")) << d.summary;
  EXPECT_TRUE(contains(d.evidence, "cublasspy run saw it killed by SIGKILL")) << d.evidence;
}

TEST(KilledInCall, CleanExitIsFine) {
  TracedRun run = run_traced(program_path("diag_workload"), RunOptions{});
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "killed-in-call")) << explain(run, found);
  EXPECT_FALSE(has_id(found, "crashed-in-call")) << explain(run, found);
}

}  // namespace
}  // namespace cublasspy::test
