// `cublasspy report` on traces it cannot read: exit 2 and one message naming the file and the
// problem (missing, truncated, corrupt, unknown version), while the readable traces given with
// them are still reported.
#include <cstdint>
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include "support/tool_tests.h"
#include "trace/trace_format.h"

namespace cublasspy::tools::testing {
namespace {

// A trace to damage, made once for the suite.
class ReportErrors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir;
    good_ = trace_simple_gemm(*dir_);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override { ASSERT_FALSE(good_.empty()); }

  // A copy of the good trace with `change` applied to its bytes.
  std::string damaged(const std::string& name, void (*change)(std::string&)) {
    std::string bytes = read_file(good_);
    change(bytes);
    std::string path = scratch_ / name;
    write_file(path, bytes);
    return path;
  }

  static ScratchDir* dir_;
  static std::string good_;
  ScratchDir scratch_;
};
ScratchDir* ReportErrors::dir_ = nullptr;
std::string ReportErrors::good_;

void expect_refused(const ProcessResult& r, const std::string& path, const std::string& problem) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(path + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << r.err;
}

TEST_F(ReportErrors, GoodTraceExitsZero) {
  ProcessResult r = run_process({kTool, "report", good_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find(kSimpleGemm), std::string::npos) << r.out;
}

TEST_F(ReportErrors, MissingFile) {
  std::string missing = scratch_ / "no-such-trace.cbt";
  expect_refused(run_process({kTool, "report", missing}), missing, "cannot open: No such file or directory");
  expect_refused(run_process({kTool, "report", "--json", missing}), missing, "cannot open");
}

TEST_F(ReportErrors, TruncatedCopy) {
  std::string half = damaged("half.cbt", [](std::string& b) { b.resize(b.size() / 2); });
  expect_refused(run_process({kTool, "report", half}), half, "truncated");
  std::string tiny = damaged("tiny.cbt", [](std::string& b) { b.resize(100); });
  expect_refused(run_process({kTool, "report", tiny}), tiny, "truncated");
}

TEST_F(ReportErrors, CorruptMagic) {
  std::string bad = damaged("magic.cbt", [](std::string& b) { b[0] ^= 0x20; });
  expect_refused(run_process({kTool, "report", bad}), bad, "not a cublasspy trace (bad magic)");
}

TEST_F(ReportErrors, FutureFormatVersion) {
  std::string future = damaged("future.cbt", [](std::string& b) {
    uint32_t version = format::kFormatVersion + 1;
    std::memcpy(&b[offsetof(format::FileHeader, format_version)], &version, sizeof version);
  });
  expect_refused(run_process({kTool, "report", future}), future,
                 "unknown format version " + std::to_string(format::kFormatVersion + 1));
}

TEST_F(ReportErrors, ReadableTracesAreStillReported) {
  std::string missing = scratch_ / "gone.cbt";
  ProcessResult r = run_process({kTool, "report", "--json", good_, missing});
  expect_refused(r, missing, "cannot open");
  auto doc = nlohmann::ordered_json::parse(r.out);
  ASSERT_EQ(doc["traces"].size(), 1u);
  EXPECT_EQ(doc["traces"][0]["path"], good_);
  ASSERT_EQ(doc["unreadable"].size(), 1u);
  EXPECT_NE(doc["unreadable"][0].get<std::string>().find(missing), std::string::npos);
}

TEST_F(ReportErrors, DirectoryStandsForItsTraces) {
  ProcessResult r = run_process({kTool, "report", "--json", dir_->path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::ordered_json::parse(r.out);
  ASSERT_EQ(doc["traces"].size(), 1u);
  EXPECT_EQ(doc["traces"][0]["path"], good_);
  expect_refused(run_process({kTool, "report", scratch_.path()}), scratch_.path(), "no .cbt trace");
}

TEST_F(ReportErrors, UsageErrorsExitTwo) {
  EXPECT_EQ(run_process({kTool, "report"}).exit_code, 2);
  EXPECT_EQ(run_process({kTool, "report", "--no-such-option", good_}).exit_code, 2);
  EXPECT_EQ(run_process({kTool, "report", "--color", "sometimes", good_}).exit_code, 2);
  EXPECT_EQ(run_process({kTool, "no-such-subcommand"}).exit_code, 2);
  EXPECT_EQ(run_process({kTool}).exit_code, 2);
}

TEST_F(ReportErrors, EverySubcommandHasHelp) {
  for (const char* sub : {"run", "report"}) {
    ProcessResult r = run_process({kTool, sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub << r.out;
  }
  ProcessResult top = run_process({kTool, "--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("report"), std::string::npos);
}

}  // namespace
}  // namespace cublasspy::tools::testing
