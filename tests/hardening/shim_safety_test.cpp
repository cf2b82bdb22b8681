// The shim's own safety inside the host process: its warnings still work from a call made after
// every static destructor of the shim's has run (the logger is never destroyed).
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

}  // namespace
}  // namespace cublasspy::integration
