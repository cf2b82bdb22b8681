// Which traces outlive their process (CUBLASSPY_KEEP; docs/CONTRACT.md, "Which traces are
// kept"): real programs under the real shim, on the CPU stand-in, with the shim's default policy
// (the other tests keep every trace), and `cublasspy report` reading what stays.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

const std::string kTool = CUBLASSPY_TOOL_PATH;
const std::string kTarget = "/bin/true";

class KeepPolicy : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }
  // The shim preloaded on the stand-in, under its own default: no CUBLASSPY_KEEP.
  Env by_default() const { return traced(dir_) + on_standin() + Env{{"CUBLASSPY_KEEP", std::nullopt}}; }
  // What the directory's files take on disk (blocks, not apparent sizes).
  uint64_t disk_bytes() const {
    uint64_t total = 0;
    DIR* d = opendir(dir_.path().c_str());
    if (d == nullptr) return 0;
    while (dirent* e = readdir(d)) {
      struct stat st;
      if (lstat((dir_ / e->d_name).c_str(), &st) == 0 && S_ISREG(st.st_mode)) total += uint64_t(st.st_blocks) * 512;
    }
    closedir(d);
    return total;
  }
  // `cublasspy report` reads the trace and says how its process ended.
  void expect_readable(const std::string& path, const std::string& ending) {
    ProcessResult r = run_process({kTool, "report", path}, {}, isolated_in(dir_));
    EXPECT_TRUE(r.exited_ok()) << r.describe();
    EXPECT_NE(r.out.find(ending), std::string::npos) << r.out;
  }
  ScratchDir dir_;
};

TEST_F(KeepPolicy, ACleanRunLeavesNoTrace) {
  ProcessResult r = run_process({program("shim_sgemm_loop"), "200"}, by_default(), isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_TRUE(dir_.files().empty()) << "a clean exit removes the trace";
  EXPECT_LE(disk_bytes(), 1u << 20) << "a clean run leaves at most 1 MiB behind";
}

TEST_F(KeepPolicy, AFailedLoadTheProgramShruggedOffIsNoIncident) {
  ProcessResult r =
      run_process({program("shim_failing_dlopen"), dir_ / "libcublas.so.404"}, by_default(), isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  ASSERT_NE(r.out.find("dlopen failed"), std::string::npos) << r.out;
  EXPECT_TRUE(dir_.files().empty()) << "a probe for a library the program went on without is kept by nobody";
}

TEST_F(KeepPolicy, AFailedCallKeepsTheTrace) {
  ProcessResult r = run_process({program("shim_sgemm_loop"), "3"},
                                by_default() + Env{{"STANDIN_FAIL", "cublasSgemm_v2:2:13"}}, isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe() << "\nthe program goes on after the failed call and exits 0";
  ASSERT_EQ(dir_.files().size(), 1u);
  expect_readable(trace_path(dir_, r.pid), "CUBLAS_STATUS_EXECUTION_FAILED");
}

TEST_F(KeepPolicy, AnAsynchronousErrorKeepsTheTrace) {
  ProcessResult r = run_process({program("shim_sgemm_loop"), "3"},
                                by_default() + Env{{"STANDIN_ASYNC_ERROR", "cublasSgemm_v2:3:700"}}, isolated_in(dir_));
  ASSERT_TRUE(r.pid > 0) << r.describe();
  EXPECT_EQ(dir_.files().size(), 1u) << r.describe();
}

TEST_F(KeepPolicy, AKilledRunKeepsAReadableTrace) {
  RunningProcess running = start_process({program("shim_sgemm_loop"), "5"},
                                         by_default() + Env{{"STANDIN_HANG", "cublasSgemm_v2:3"}}, isolated_in(dir_));
  const std::string path = trace_path(dir_, running.pid());
  const bool hung = wait_until(
      [&] {
        std::string error;
        auto t = TraceFile::open(path, error);
        return t && calls_of(*t, "cublasSgemm_v2").size() >= 3;
      },
      std::chrono::seconds(20));
  running.kill(SIGKILL);
  ProcessResult r = running.wait();
  ASSERT_TRUE(hung) << r.describe();
  ASSERT_EQ(r.signal, SIGKILL);
  ASSERT_EQ(dir_.files().size(), 1u) << "no exit handler ran: the file stays";
  expect_readable(path, "cublasSgemm_v2");
}

TEST_F(KeepPolicy, AnImageThatExecsKeepsAReadableTrace) {
  ProcessResult r = run_process({program("hard_exec_after_cuda"), "execl", kTarget}, by_default(), isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  ASSERT_EQ(dir_.files().size(), 1u) << "the exec ran no exit handler: the file stays";
  expect_readable(dir_.files().front(), "replaced itself by exec of " + kTarget);
}

TEST_F(KeepPolicy, AFailedExecIsAFailedCall) {
  // The exec returned: the image goes on and exits 0, and its trace reads "exited"; the exec's
  // failure is a failed call like any other, so the trace stays.
  ProcessResult r = run_process({program("hard_exec_after_cuda"), "failed", dir_ / "no-such-program"}, by_default(),
                                isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  ASSERT_EQ(dir_.files().size(), 1u);
  expect_readable(dir_.files().front(), "exited with status 0");
}

TEST_F(KeepPolicy, AForkedChildFollowsThePolicyOnItsOwn) {
  // The child of fork_after_init makes calls of its own and exits cleanly, as its parent does.
  ProcessResult r = run_process({program("shim_fork_after_init"), "exit", "0"}, by_default(), isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_TRUE(dir_.files().empty()) << r.out;

  // A child whose calls all succeeded but that exits with status 3 keeps its own trace; its
  // parent's clean exit removes the parent's.
  ScratchDir other;
  ProcessResult failing = run_process({program("shim_fork_after_init"), "exit", "3"},
                                      traced(other) + on_standin() + Env{{"CUBLASSPY_KEEP", std::nullopt}},
                                      isolated_in(other));
  ASSERT_TRUE(failing.exited_ok()) << failing.describe();
  ASSERT_EQ(other.files().size(), 1u) << failing.out;
  auto trace = open_trace(other.files().front());
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().forked_child, 1u);
  EXPECT_EQ(trace->header().exit_status, 3);

  // A child that ends by _exit runs no exit handler: its trace stays, whatever it did.
  ScratchDir underscore;
  ProcessResult quick = run_process({program("shim_fork_after_init")},
                                    traced(underscore) + on_standin() + Env{{"CUBLASSPY_KEEP", std::nullopt}},
                                    isolated_in(underscore));
  ASSERT_TRUE(quick.exited_ok()) << quick.describe();
  EXPECT_EQ(underscore.files().size(), 1u) << quick.out;
}

TEST_F(KeepPolicy, KeepAlwaysKeepsEveryTrace) {
  ProcessResult r = run_process({program("shim_sgemm_loop"), "3"}, by_default() + Env{{"CUBLASSPY_KEEP", "always"}},
                                isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  ASSERT_EQ(dir_.files().size(), 1u);
  expect_readable(trace_path(dir_, r.pid), "exited with status 0");
}

TEST_F(KeepPolicy, ABadValueIsNamedAndTheDefaultKept) {
  ProcessResult r = run_process({program("shim_sgemm_loop"), "3"}, by_default() + Env{{"CUBLASSPY_KEEP", "sometimes"}},
                                isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_NE(r.err.find("cublasspy: ignoring CUBLASSPY_KEEP='sometimes': accepted values are incident, always; "
                       "using the default"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(dir_.files().empty()) << "the default, incident, applies";
}

TEST_F(KeepPolicy, RunSaysWhereTheKeptTracesAreOrThatNoneWasKept) {
  ProcessResult clean = run_process({kTool, "run", "-o", dir_ / "t-%p.cbt", "--", program("shim_sgemm_loop"), "3"},
                                    on_standin(), isolated_in(dir_));
  ASSERT_TRUE(clean.exited_ok()) << clean.describe();
  EXPECT_TRUE(dir_.files().empty());
  EXPECT_NE(clean.err.find("cublasspy run: no trace kept: the run was clean"), std::string::npos) << clean.err;

  ProcessResult failing =
      run_process({kTool, "run", "-o", dir_ / "t-%p.cbt", "--", program("shim_sgemm_loop"), "3"},
                  on_standin() + Env{{"STANDIN_FAIL", "cublasSgemm_v2:2:13"}}, isolated_in(dir_));
  ASSERT_EQ(dir_.files().size(), 1u) << failing.describe();
  EXPECT_NE(failing.err.find("full report: cublasspy report --all " + dir_.files().front()), std::string::npos)
      << failing.err;

  ScratchDir all;
  ProcessResult kept = run_process({kTool, "run", "--keep", "always", "-o", all / "t-%p.cbt", "--",
                                    program("shim_sgemm_loop"), "3"},
                                   on_standin(), isolated_in(all));
  ASSERT_TRUE(kept.exited_ok()) << kept.describe();
  ASSERT_EQ(all.files().size(), 1u) << kept.describe();
  EXPECT_NE(kept.err.find("cublasspy run: trace kept: " + all.files().front()), std::string::npos) << kept.err;
}

}  // namespace
}  // namespace cublasspy::integration
