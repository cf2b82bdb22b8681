// How the process ended, in the trace and in the report's words: the status a program passes
// to exit() or returns from main (recorded by the shim's on_exit handler), and what only
// `cublasspy run` can see because the process ran no exit handler: an _exit, the dynamic
// linker's "symbol lookup error" (_exit(127)), a SIGKILL. Without the launcher those read as
// they always did: no recorded exit.
#include <csignal>
#include <string>

#include <gtest/gtest.h>

#include "support/tool_tests.h"

namespace cublasspy::tools::testing {
namespace {

const std::string kProgram = std::string(CBS_TEST_PROGRAMS_DIR) + "/process_end";
// The library version without ends_api_new_function, ahead of the stand-in.
const std::string kOldLibrary = std::string(CBS_TEST_PROGRAMS_DIR) + "/ends-api-old";

struct Ended {
  ProcessResult run;
  nlohmann::ordered_json end;  // the report's "end" of the one trace
  std::string text;            // the text report
};

// Runs process_end ARGS on the stand-in, under `cublasspy run` or with the shim preloaded.
Ended run_program(const std::vector<std::string>& args, bool launcher, const ScratchDir& dir,
                  const std::string& library_path = kStandinDir) {
  Ended e;
  std::vector<std::string> argv;
  Env env = {{"LD_LIBRARY_PATH", library_path}, {"NO_COLOR", "1"}};
  if (launcher) {
    argv = {kTool, "run", "--summary", "never", "--keep", "always", "-o", dir / "t-%p.cbt", "--", kProgram};
  } else {
    argv = {kProgram};
    env = traced_into(dir);
    env["LD_LIBRARY_PATH"] = library_path;
  }
  argv.insert(argv.end(), args.begin(), args.end());
  e.run = run_process(argv, env);
  std::vector<std::string> files = dir.files();
  EXPECT_EQ(files.size(), 1u) << e.run.describe();
  if (files.size() != 1) return e;
  e.end = report_json({files[0]})["traces"][0]["end"];
  e.text = run_process({kTool, "report", files[0]}, {{"NO_COLOR", "1"}}).out;
  return e;
}

class ProcessEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }
  ScratchDir dir_;
};

TEST_F(ProcessEnd, ExitStatusIsRecordedByTheProcess) {
  for (bool launcher : {false, true}) {
    ScratchDir dir;
    Ended e = run_program({"exit", "3"}, launcher, dir);
    EXPECT_EQ(e.run.exit_code, 3) << e.run.describe();
    EXPECT_EQ(e.end["state"], "exited") << e.end.dump();
    EXPECT_EQ(e.end["exit_status"], 3) << e.end.dump();
    EXPECT_EQ(e.end["recorded_by"], "process") << e.end.dump();
    EXPECT_NE(e.text.find("exited with status 3\n"), std::string::npos) << e.text;
  }
}

TEST_F(ProcessEnd, ReturnFromMainIsStatusZero) {
  Ended e = run_program({"return", "0"}, true, dir_);
  EXPECT_EQ(e.run.exit_code, 0) << e.run.describe();
  EXPECT_EQ(e.end["exit_status"], 0) << e.end.dump();
  EXPECT_EQ(e.end["recorded_by"], "process") << e.end.dump();
  EXPECT_NE(e.text.find("exited with status 0\n"), std::string::npos) << e.text;
}

TEST_F(ProcessEnd, SymbolLookupErrorIsStatus127FromTheLauncher) {
  Ended e = run_program({"lookup"}, true, dir_, kOldLibrary + ":" + kStandinDir);
  EXPECT_EQ(e.run.exit_code, 127) << e.run.describe();
  EXPECT_NE(e.run.err.find("symbol lookup error"), std::string::npos) << e.run.describe();
  EXPECT_EQ(e.end["state"], "exited") << e.end.dump();
  EXPECT_EQ(e.end["exit_status"], 127) << e.end.dump();
  EXPECT_EQ(e.end["recorded_by"], "launcher") << e.end.dump();
  EXPECT_NE(e.text.find("exited with status 127 without running its exit handlers"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find("symbol lookup error"), std::string::npos) << e.text;
  EXPECT_EQ(e.text.find("OOM"), std::string::npos) << e.text;
}

TEST_F(ProcessEnd, UnderscoreExitIsSeenByTheLauncher) {
  Ended e = run_program({"_exit", "4"}, true, dir_);
  EXPECT_EQ(e.run.exit_code, 4) << e.run.describe();
  EXPECT_EQ(e.end["exit_status"], 4) << e.end.dump();
  EXPECT_EQ(e.end["recorded_by"], "launcher") << e.end.dump();
  EXPECT_NE(e.text.find("exited with status 4 without running its exit handlers (_exit)"), std::string::npos) << e.text;
}

TEST_F(ProcessEnd, SigkillIsSeenByTheLauncher) {
  Ended e = run_program({"kill"}, true, dir_);
  EXPECT_EQ(e.run.exit_code, 128 + SIGKILL) << e.run.describe();
  EXPECT_EQ(e.end["state"], "signaled") << e.end.dump();
  EXPECT_EQ(e.end["signal"], SIGKILL) << e.end.dump();
  EXPECT_EQ(e.end["recorded_by"], "launcher") << e.end.dump();
  EXPECT_NE(e.text.find("killed by signal 9 (SIGKILL), seen by cublasspy run"), std::string::npos) << e.text;
}

TEST_F(ProcessEnd, WithoutTheLauncherAnUnrecordedEndStaysUnknown) {
  for (const std::vector<std::string>& how : {std::vector<std::string>{"_exit", "4"}, {"kill"}}) {
    ScratchDir dir;
    Ended e = run_program(how, false, dir);
    EXPECT_EQ(e.end["state"], "unknown") << e.end.dump();
    EXPECT_TRUE(e.end["recorded_by"].is_null()) << e.end.dump();
    EXPECT_NE(e.text.find("ended without a recorded exit (SIGKILL, the OOM killer, or still running)"),
              std::string::npos) << e.text;
  }
}

// A descendant of the command: its own exit is its own; the command's status comes with it.
TEST_F(ProcessEnd, DescendantsCarryTheCommandsStatus) {
  ProcessResult r = run_process({kTool, "run", "--summary", "never", "-o", dir_ / "t-%p.cbt", "--", "sh", "-c",
                                 "\"$0\" _exit 0; exit 5", kProgram},
                                on_standin());
  EXPECT_EQ(r.exit_code, 5) << r.describe();
  std::vector<std::string> files = dir_.files();
  ASSERT_EQ(files.size(), 1u) << r.describe();
  auto end = report_json({files[0]})["traces"][0]["end"];
  EXPECT_EQ(end["state"], "unknown") << end.dump();
  ASSERT_TRUE(end["command"].is_object()) << end.dump();
  EXPECT_EQ(end["command"]["state"], "exited") << end.dump();
  EXPECT_EQ(end["command"]["exit_status"], 5) << end.dump();
  std::string text = run_process({kTool, "report", files[0]}, {{"NO_COLOR", "1"}}).out;
  EXPECT_NE(text.find("the command cublasspy run started (process"), std::string::npos) << text;
  EXPECT_NE(text.find("exited with status 5"), std::string::npos) << text;
}

}  // namespace
}  // namespace cublasspy::tools::testing
