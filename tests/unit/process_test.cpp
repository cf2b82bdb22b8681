// process::run (src/process/child.h), the one way the tools and the doctor start a process:
// input fed, streams captured with their limits, the time limit's kill (of the group too), a
// failed exec, a function run in the child, and waits that a signal does not cut short.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "process/child.h"

namespace cublasspy::process {
namespace {

using namespace std::chrono_literals;

Spawn shell(const std::string& script) {
  Spawn s;
  s.argv = {"sh", "-c", script};
  s.search_path = true;
  return s;
}

TEST(Process, FeedsInputAndCapturesBothStreams) {
  Spawn s = shell("cat; echo to-stderr >&2; exit 3");
  s.input = "the plan\n";
  s.out.mode = s.err.mode = Output::Mode::kCapture;
  Outcome o = run(s);
  ASSERT_TRUE(o.started) << o.start_error;
  EXPECT_TRUE(o.exited);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.out, "the plan\n");
  EXPECT_EQ(o.err, "to-stderr\n");
}

TEST(Process, FeedsInputWithNothingCaptured) {
  Spawn s = shell("read line && [ \"$line\" = plan ]");
  s.input = "plan\n";
  s.limit = 10s;
  Outcome o = run(s);
  EXPECT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 0);
}

TEST(Process, KeepsTheFirstOrTheLastBytes) {
  Spawn s = shell("printf 0123456789; printf abcdefghij >&2");
  s.out = {Output::Mode::kCapture, 4, false};
  s.err = {Output::Mode::kCapture, 4, true};
  Outcome o = run(s);
  EXPECT_EQ(o.out, "0123");
  EXPECT_EQ(o.err, "ghij");
}

TEST(Process, EnvironmentIsTheOneGiven) {
  Spawn s = shell("echo \"$ONLY_THIS\"-\"$HOME\"");
  s.argv[0] = "/bin/sh";
  s.search_path = false;
  s.environment = std::vector<std::string>{"ONLY_THIS=yes"};
  s.out.mode = Output::Mode::kCapture;
  EXPECT_EQ(run(s).out, "yes-\n");
}

TEST(Process, AFailedExecSaysWhy) {
  Spawn s;
  s.argv = {"/nonexistent/program"};
  Outcome o = run(s);
  EXPECT_FALSE(o.started);
  EXPECT_EQ(o.failed_step, Outcome::Step::kExec);
  EXPECT_EQ(o.start_errno, ENOENT);
  EXPECT_EQ(o.start_error, "/nonexistent/program: " + std::string(std::strerror(ENOENT)));
}

TEST(Process, TheLimitKillsTheChild) {
  Spawn s = shell("echo started; exec sleep 30");
  s.out.mode = Output::Mode::kCapture;
  s.limit = 300ms;
  Outcome o = run(s);
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_EQ(o.out, "started\n");
  EXPECT_LT(o.wall_s, 10);
}

TEST(Process, TheLimitKillsTheWholeGroup) {
  // The grandchild holds stdout open: only killing the group ends the wait early.
  Spawn s = shell("sleep 30 & wait");
  s.out.mode = Output::Mode::kCapture;
  s.own_process_group = true;
  s.limit = 300ms;
  Outcome o = run(s);
  EXPECT_TRUE(o.timed_out);
  EXPECT_LT(o.wall_s, 10);
}

TEST(Process, TheLimitAppliesWithNothingCaptured) {
  Spawn s = shell("exec sleep 30");
  s.limit = 200ms;
  Outcome o = run(s);
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.signal, SIGKILL);
}

TEST(Process, AFunctionAnswersFromTheChild) {
  Spawn s;
  s.child_function = [] { return "pid " + std::to_string(getpid()); };
  Outcome o = run(s);
  ASSERT_TRUE(o.started);
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.answer, "pid " + std::to_string(o.pid));
}

TEST(Process, ACrashInTheFunctionIsItsSignal) {
  Spawn s;
  s.child_function = []() -> std::string { raise(SIGSEGV); return ""; };
  s.limit = 10s;
  Outcome o = run(s);
  EXPECT_FALSE(o.timed_out);
  EXPECT_EQ(o.signal, SIGSEGV);
}

// A signal handled while waiting (SA_RESTART off, as in a program that wants EINTR) does not
// end the wait early or lose the child.
void ignore_alarm(int) {}

TEST(Process, AWaitSurvivesInterruptions) {
  struct sigaction sa {}, previous {};
  sa.sa_handler = ignore_alarm;  // no SA_RESTART: the waits see EINTR
  sigaction(SIGALRM, &sa, &previous);
  ualarm(50000, 50000);
  Spawn s = shell("sleep 0.4; echo done");
  s.out.mode = Output::Mode::kCapture;
  Outcome o = run(s);
  Spawn quiet = shell("sleep 0.3; exit 4");
  Outcome q = run(quiet);
  ualarm(0, 0);
  sigaction(SIGALRM, &previous, nullptr);
  EXPECT_EQ(o.out, "done\n");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(q.exit_code, 4);
}

}  // namespace
}  // namespace cublasspy::process
