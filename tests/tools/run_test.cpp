// `cublasspy run`: the command's exit status passes through (128+N for a signal, 127 not found),
// LD_PRELOAD starts with the shim and keeps what was there, the options become the CUBLASSPY_*
// variables (bad values are usage errors), signals sent to the tool reach the command, the
// traces of every process of the run (and only those) are found, and the summary goes to stderr
// when something failed.
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

#include "support/tool_tests.h"

namespace cublasspy::tools::testing {
namespace {

namespace fs = std::filesystem;
using test_support::in_directory;
using test_support::RunningProcess;
using test_support::start_process;

std::string canonical_shim() { return fs::canonical(kShim).string(); }

// The trace paths named by the summary's last line ("full report: cublasspy report --all P...").
std::vector<std::string> summary_traces(const std::string& err) {
  const std::string marker = "full report: cublasspy report --all ";
  auto at = err.find(marker);
  if (at == std::string::npos) return {};
  std::istringstream rest(err.substr(at + marker.size(), err.find('\n', at) - at - marker.size()));
  std::vector<std::string> out;
  for (std::string p; rest >> p;) out.push_back(p);
  return out;
}

TEST(Run, ExitStatusPassesThrough) {
  ProcessResult r = run_process({kTool, "run", "--", "sh", "-c", "exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;  // no trace, and the command's own failure: no summary
  EXPECT_EQ(run_process({kTool, "run", "--", "true"}).exit_code, 0);
}

TEST(Run, KilledBySignalIs128PlusN) {
  ProcessResult r = run_process({kTool, "run", "--", "sh", "-c", "kill -KILL $$"});
  EXPECT_EQ(r.signal, 0);  // the tool itself exits normally
  EXPECT_EQ(r.exit_code, 128 + SIGKILL);
  EXPECT_EQ(run_process({kTool, "run", "--", "sh", "-c", "kill -TERM $$"}).exit_code, 128 + SIGTERM);
}

TEST(Run, CommandNotFoundIs127) {
  ProcessResult r = run_process({kTool, "run", "--", "cublasspy-no-such-command"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cublasspy-no-such-command: command not found"), std::string::npos) << r.err;
}

TEST(Run, NotExecutableIs126) {
  ScratchDir dir;
  std::string script = dir / "not-executable";
  write_file(script, "#!/bin/sh\nexit 0\n");
  chmod(script.c_str(), 0644);
  ProcessResult r = run_process({kTool, "run", "--", script});
  EXPECT_EQ(r.exit_code, 126);
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
}

TEST(Run, PrependsTheShimAndKeepsLdPreload) {
  ProcessResult alone = run_process({kTool, "run", "--", "sh", "-c", "printf %s \"$LD_PRELOAD\""},
                                    {{"LD_PRELOAD", std::nullopt}});
  EXPECT_EQ(alone.out, canonical_shim());
  EXPECT_EQ(alone.out.front(), '/');  // absolute: the command may change directory

  ProcessResult kept = run_process({kTool, "run", "--", "sh", "-c", "printf %s \"$LD_PRELOAD\""},
                                   {{"LD_PRELOAD", kEmptyPreload}});
  EXPECT_EQ(kept.out, canonical_shim() + ":" + kEmptyPreload);
  EXPECT_EQ(kept.err.find("ld.so"), std::string::npos) << kept.err;  // the loader found both

  // Another copy of the shim would record every call twice: it is dropped.
  ProcessResult other = run_process({kTool, "run", "--", "sh", "-c", "printf %s \"$LD_PRELOAD\""},
                                    {{"LD_PRELOAD", "/elsewhere/libcublasspy.so " + kEmptyPreload}});
  EXPECT_EQ(other.out, canonical_shim() + ":" + kEmptyPreload);
}

TEST(Run, OptionsBecomeTheShimsVariables) {
  ScratchDir dir;
  ProcessResult r = run_process(
      {kTool, "run", "--check", "--sync", "--scan", "inputs", "--dump", "failing", "--stacks", "all", "--on-error",
       "abort", "--ring", "64", "--log", "off", "-o", "rank%r-%p.cbt", "--", "sh", "-c",
       "echo $CUBLASSPY_CHECK $CUBLASSPY_SYNC $CUBLASSPY_SCAN $CUBLASSPY_DUMP $CUBLASSPY_STACKS $CUBLASSPY_ON_ERROR "
       "$CUBLASSPY_RING $CUBLASSPY_LOG $CUBLASSPY_TRACE"},
      {}, in_directory(dir.path()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A relative template is made absolute against the directory `run` was started in.
  EXPECT_EQ(r.out, "1 1 inputs failing all abort 64 off " + dir.path() + "/rank%r-%p.cbt\n");

  // Without options the inherited settings stay; the default template lands in the cwd.
  ProcessResult plain = run_process({kTool, "run", "--", "sh", "-c", "echo $CUBLASSPY_SCAN $CUBLASSPY_TRACE"},
                                    {{"CUBLASSPY_SCAN", "all"}, {"CUBLASSPY_TRACE", std::nullopt}}, in_directory(dir.path()));
  EXPECT_EQ(plain.out, "all " + dir.path() + "/cublasspy-%p.cbt\n");
}

// cuBLASLt's log: errors and hints, beside the traces, named for each process; a user's own
// setting of any of the three variables stands untouched.
TEST(Run, AsksCublasLtForItsLogBesideTheTrace) {
  ScratchDir dir;
  const std::string echo = "echo $CUBLASLT_LOG_LEVEL/$CUBLASLT_LOG_MASK/$CUBLASLT_LOG_FILE";
  Env none = {{"CUBLASLT_LOG_LEVEL", std::nullopt}, {"CUBLASLT_LOG_MASK", std::nullopt},
              {"CUBLASLT_LOG_FILE", std::nullopt}, {"CUBLASSPY_TRACE", std::nullopt}};
  ProcessResult r = run_process({kTool, "run", "--", "sh", "-c", echo}, none, in_directory(dir.path()));
  EXPECT_EQ(r.out, "/5/" + dir.path() + "/cublaslt-%i.log\n");
  ProcessResult elsewhere =
      run_process({kTool, "run", "-o", "sub/t-%p.cbt", "--", "sh", "-c", echo}, none, in_directory(dir.path()));
  EXPECT_EQ(elsewhere.out, "/5/" + dir.path() + "/sub/cublaslt-%i.log\n");
  // cuBLASLt expands only %i: a directory with another placeholder gets no log.
  ProcessResult per_host =
      run_process({kTool, "run", "-o", "%h/t-%p.cbt", "--", "sh", "-c", echo}, none, in_directory(dir.path()));
  EXPECT_EQ(per_host.out, "//\n");
  for (const char* name : {"CUBLASLT_LOG_LEVEL", "CUBLASLT_LOG_MASK", "CUBLASLT_LOG_FILE"}) {
    Env mine = none;
    mine[name] = "3";
    ProcessResult kept = run_process({kTool, "run", "--", "sh", "-c", echo}, mine, in_directory(dir.path()));
    const std::string level = std::string(name) == "CUBLASLT_LOG_LEVEL" ? "3" : "";
    const std::string mask = std::string(name) == "CUBLASLT_LOG_MASK" ? "3" : "";
    const std::string file = std::string(name) == "CUBLASLT_LOG_FILE" ? "3" : "";
    EXPECT_EQ(kept.out, level + "/" + mask + "/" + file + "\n") << name;
  }
}

TEST(Run, BadOptionValuesAreUsageErrors) {
  ProcessResult scan = run_process({kTool, "run", "--scan", "sometimes", "--", "true"});
  EXPECT_EQ(scan.exit_code, 2);
  EXPECT_NE(scan.err.find("none, inputs, outputs, all"), std::string::npos) << scan.err;
  EXPECT_EQ(run_process({kTool, "run", "--dump", "some", "--", "true"}).exit_code, 2);
  ProcessResult stacks = run_process({kTool, "run", "--stacks", "some", "--", "true"});
  EXPECT_EQ(stacks.exit_code, 2);
  EXPECT_NE(stacks.err.find("none, failing, all"), std::string::npos) << stacks.err;
  EXPECT_EQ(run_process({kTool, "run", "--on-error", "explode", "--", "true"}).exit_code, 2);
  EXPECT_EQ(run_process({kTool, "run", "--ring", "3", "--", "true"}).exit_code, 2);
  EXPECT_EQ(run_process({kTool, "run", "--ring", "many", "--", "true"}).exit_code, 2);
  EXPECT_EQ(run_process({kTool, "run", "--no-such-option", "--", "true"}).exit_code, 2);
  EXPECT_EQ(run_process({kTool, "run"}).exit_code, 2);
  // After "--" the options are the command's.
  EXPECT_EQ(run_process({kTool, "run", "--", "sh", "-c", "exit 5", "--no-such-option"}).exit_code, 5);
}

TEST(Run, SummaryOnStderrWhenACallFailed) {
  ScratchDir dir;
  ProcessResult r = run_process({kTool, "run", "--", kSimpleGemm}, {{"NO_COLOR", "1"}}, in_directory(dir.path()));
  EXPECT_EQ(r.exit_code, 0) << r.err;                               // the program's own status
  EXPECT_NE(r.out.find("cublasSgemm_v2 1"), std::string::npos);     // its output, untouched
  EXPECT_NE(r.err.find("first failure"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(kSimpleGemm), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\033["), std::string::npos) << "no colour in a pipe";
  std::vector<std::string> traces = summary_traces(r.err);
  ASSERT_EQ(traces.size(), 1u) << r.err;
  EXPECT_EQ(traces, dir.files());

  ProcessResult quiet = run_process({kTool, "run", "--summary", "never", "--", kSimpleGemm}, {}, in_directory(dir.path()));
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_TRUE(quiet.err.empty()) << quiet.err;
}

TEST(Run, NoSummaryWhenNothingFailed) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  // A clean process keeps no trace (CUBLASSPY_KEEP=incident): `run` says so, and nothing else.
  Env by_default = on_standin();
  by_default["CUBLASSPY_KEEP"] = std::nullopt;
  ProcessResult r = run_process({kTool, "run", "--", kSimpleGemm}, by_default, in_directory(dir.path()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("sgemm c[0] 6.5"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "\ncublasspy run: no trace kept: the run was clean, or made no intercepted call (--keep always "
                   "keeps every trace)\n");
  EXPECT_TRUE(dir.files().empty());

  // Kept, it is named, without a summary.
  ProcessResult kept = run_process({kTool, "run", "--keep", "always", "--", kSimpleGemm}, on_standin(),
                                   in_directory(dir.path()));
  ASSERT_EQ(dir.files().size(), 1u);
  EXPECT_EQ(kept.err, "\ncublasspy run: trace kept: " + dir.files().front() + "\n");

  ProcessResult always = run_process({kTool, "run", "--keep", "always", "--summary", "always", "--", kSimpleGemm},
                                     on_standin(), in_directory(dir.path()));
  EXPECT_NE(always.err.find("0 failed"), std::string::npos) << always.err;
}

TEST(Run, FindsTheTracesOfEveryProcessOfTheRunAndNoOther) {
  ScratchDir dir;
  // A trace from before, with a name the default template also matches.
  ProcessResult before = run_process({kSimpleGemm}, {{"LD_PRELOAD", kShim}, {"CUBLASSPY_TRACE", std::nullopt}}, in_directory(dir.path()));
  ASSERT_EQ(before.exit_code, 0);
  std::vector<std::string> old = dir.files();
  ASSERT_EQ(old.size(), 1u);

  // Two CUDA processes below a shell that makes no CUDA call itself.
  ProcessResult r = run_process({kTool, "run", "--", "sh", "-c", "\"$0\" && \"$0\"", kSimpleGemm},
                                {{"CUBLASSPY_TRACE", std::nullopt}}, in_directory(dir.path()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> found = summary_traces(r.err);
  ASSERT_EQ(found.size(), 2u) << r.err;
  for (const std::string& f : found) EXPECT_NE(f, old.front());
  EXPECT_EQ(dir.files().size(), 3u);
  // Both processes are in the summary.
  for (const std::string& f : found) {
    auto doc = report_json({f}, false);
    std::string pid = std::to_string(doc["traces"][0]["process"]["pid"].get<int64_t>());
    EXPECT_NE(r.err.find("process " + pid + " "), std::string::npos) << r.err;
  }
}

TEST(Run, SignalsSentToTheToolReachTheCommand) {
  RunningProcess running = start_process({kTool, "run", "--", "sleep", "30"});
  const pid_t tool = running.pid();
  ASSERT_GT(tool, 0);
  // Signal only once the command runs: the tool has its handlers in place by then.
  std::string children = "/proc/" + std::to_string(tool) + "/task/" + std::to_string(tool) + "/children";
  for (int i = 0; i < 200 && read_file(children).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(read_file(children).empty()) << "the command did not start";
  auto sent = std::chrono::steady_clock::now();
  running.kill(SIGTERM);
  ProcessResult r = running.wait(std::chrono::seconds(60));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  ASSERT_EQ(r.signal, 0) << "the tool died instead of waiting for its command";
  ASSERT_FALSE(r.timed_out) << r.describe();
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);  // sleep died of the forwarded SIGTERM
  EXPECT_LT(seconds, 10.0);
}

}  // namespace
}  // namespace cublasspy::tools::testing
