// The shim's own safety inside the host process: its warnings still work from a call made after
// every static destructor of the shim's has run (the logger is never destroyed), and nothing the
// shim's work throws (every allocation of its own failing) reaches the program or ends it.
// Real programs under the real shim, on the CPU stand-in.
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class ShimSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }
  ScratchDir dir_;
};

const std::string kLateWarning = "cublasspy: cannot find the real cublasXtDgemm";

TEST_F(ShimSafety, AWarningFromACallAfterTheShimsDestructorsIsWritten) {
  // To a file: the line lands there, and the program ends as it would.
  const std::string log = dir_ / "log.txt";
  ProcessResult r = run_process({program("hard_exit_warning")},
                                traced(dir_) + on_standin() + Env{{"CUBLASSPY_LOG", log}}, isolated_in(dir_));
  EXPECT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, "main done\nlate call done\n");
  const std::string text = read_file(log);
  EXPECT_TRUE(contains(text, "cublasspy: cannot find the real cublasXtSgemm")) << text;
  EXPECT_TRUE(contains(text, kLateWarning)) << text;

  // To stderr, the default.
  r = run_process({program("hard_exit_warning")}, traced(dir_) + on_standin() + Env{{"CUBLASSPY_LOG", "stderr"}},
                  isolated_in(dir_));
  EXPECT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, "main done\nlate call done\n");
  EXPECT_TRUE(contains(r.err, kLateWarning)) << r.describe();
}

// Every allocation the shim makes fails (shim_alloc_faults.cpp), from its set-up on or after it,
// with every setting that makes the shim work around the calls: the program prints and ends
// exactly as it does without the shim, and the shim says once that its work failed.
TEST_F(ShimSafety, NoExceptionOfTheShimsReachesTheProgram) {
  const Env busy = {{"CUBLASSPY_CHECK", "1"}, {"CUBLASSPY_SYNC", "1"},     {"CUBLASSPY_SCAN", "all"},
                    {"CUBLASSPY_STACKS", "all"}, {"CUBLASSPY_DUMP", "failing"}};
  for (const char* mode : {"from-start", "after-setup"}) {
    SCOPED_TRACE(mode);
    ProcessResult plain = run_process({program("hard_shim_alloc_faults"), mode}, on_standin(), isolated_in(dir_));
    ASSERT_TRUE(plain.exited_ok()) << plain.describe();
    EXPECT_TRUE(contains(plain.err, "refused 0\n")) << plain.describe();
    for (const Env& settings : {Env{}, busy}) {
      ProcessResult r = run_process({program("hard_shim_alloc_faults"), mode}, traced(dir_) + on_standin() + settings,
                                    isolated_in(dir_));
      EXPECT_TRUE(r.exited_ok()) << r.describe();
      EXPECT_EQ(r.out, plain.out) << r.describe();
      EXPECT_FALSE(contains(r.err, "refused 0\n")) << "no allocation of the shim's was refused: " << r.describe();
      EXPECT_TRUE(contains(r.err, "cublasspy: the shim's own work failed")) << r.describe();
    }
  }
}

}  // namespace
}  // namespace cublasspy::integration
