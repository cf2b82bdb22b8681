// Where the trace goes when the requested place is bad: an unwritable location falls back to
// $TMPDIR with a warning, an existing file is never clobbered (a numbered suffix is added), a
// symlink at the path is never followed. The program notices nothing.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

class TracePlacement : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
    plain_ = run_process({program("shim_sgemm_loop"), "2"}, on_standin(), isolated_in(dir_));
    ASSERT_TRUE(plain_.exited_ok()) << plain_.describe();
  }
  // sgemm_loop under the shim with CUBLASSPY_TRACE=`trace` and TMPDIR=`tmpdir`; the program's
  // output and status must be those of the plain run.
  ProcessResult run_with(const std::string& trace, const std::string& tmpdir) {
    ProcessResult r = run_process({program("shim_sgemm_loop"), "2"},
                                  traced(dir_) + on_standin() + Env{{"CUBLASSPY_TRACE", trace}, {"TMPDIR", tmpdir}}, isolated_in(dir_));
    EXPECT_TRUE(r.exited_ok()) << r.describe();
    EXPECT_EQ(r.out, plain_.out);
    return r;
  }
  // `path` is a complete trace of process `pid` with both GEMMs.
  void expect_trace_of(const std::string& path, pid_t pid) {
    auto trace = open_trace(path);
    ASSERT_TRUE(trace) << path;
    EXPECT_EQ(trace->process().get("pid"), std::to_string(pid));
    EXPECT_EQ(calls_of(*trace, "cublasSgemm_v2").size(), 2u);
  }
  ScratchDir dir_;
  ProcessResult plain_;
};

TEST_F(TracePlacement, UnwritableDirectoryFallsBackToTmpdirWithAWarning) {
  std::string fallback = dir_ / "fallback";
  fs::create_directory(fallback);
  ProcessResult r = run_with("/proc/nope/t-%p.cbt", fallback);
  std::string expected = fallback + "/t-" + std::to_string(r.pid) + ".cbt";
  expect_trace_of(expected, r.pid);
  EXPECT_NE(r.err.find("/proc/nope/t-" + std::to_string(r.pid) + ".cbt"), std::string::npos)
      << "the warning names the path that failed:\n" << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << "and where the trace went:\n" << r.err;
}

TEST_F(TracePlacement, PathThroughARegularFileFallsBackToTmpdir) {
  write_text(dir_ / "not-a-dir", "x");
  std::string fallback = dir_ / "fallback";
  fs::create_directory(fallback);
  ProcessResult r = run_with(dir_ / "not-a-dir/t-%p.cbt", fallback);
  expect_trace_of(fallback + "/t-" + std::to_string(r.pid) + ".cbt", r.pid);
  EXPECT_NE(r.err.find("not-a-dir"), std::string::npos) << r.err;
}

TEST_F(TracePlacement, ReadOnlyDirectoryFallsBackToTmpdir) {
  std::string ro = dir_ / "read-only";
  fs::create_directory(ro);
  chmod(ro.c_str(), 0500);
  std::string fallback = dir_ / "fallback";
  fs::create_directory(fallback);
  // Root writes into read-only directories: there the program runs without the capabilities
  // that override file modes (setpriv drops them from the bounding set; the pid is the same).
  std::vector<std::string> command = {program("shim_sgemm_loop"), "2"};
  if (geteuid() == 0) {
    command.insert(command.begin(), {"/usr/bin/setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"});
  }
  ProcessResult r = run_process(command,
                                traced(dir_) + on_standin() +
                                    Env{{"CUBLASSPY_TRACE", ro + "/t-%p.cbt"}, {"TMPDIR", fallback}}, isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain_.out);
  expect_trace_of(fallback + "/t-" + std::to_string(r.pid) + ".cbt", r.pid);
  EXPECT_TRUE(fs::is_empty(ro));
}

TEST_F(TracePlacement, ExistingFileIsNeverClobbered) {
  std::string path = dir_ / "fixed.cbt";
  write_text(path, "precious");
  ProcessResult r = run_with(path, dir_.path());
  EXPECT_EQ(read_file(path), "precious");
  expect_trace_of(path + ".1", r.pid);
}

TEST_F(TracePlacement, SymlinkAtThePathIsNotFollowed) {
  std::string victim = dir_ / "victim";
  write_text(victim, "victim");
  std::string link = dir_ / "link.cbt";
  fs::create_symlink(victim, link);
  ProcessResult r = run_with(link, dir_.path());
  EXPECT_EQ(read_file(victim), "victim");
  EXPECT_TRUE(fs::is_symlink(link));
  expect_trace_of(link + ".1", r.pid);
}

TEST_F(TracePlacement, DanglingSymlinkIsNotFollowedEither) {
  std::string target = dir_ / "would-be-created";
  std::string link = dir_ / "dangling.cbt";
  fs::create_symlink(target, link);
  ProcessResult r = run_with(link, dir_.path());
  EXPECT_FALSE(fs::exists(target)) << "the shim created a file through the link";
  expect_trace_of(link + ".1", r.pid);
}

}  // namespace
}  // namespace cublasspy::integration
