// The one version (project(cublasspy VERSION ...), cublasspy_version.h) is what `--version`
// prints and what the shim writes into each trace (format version 4, FileHeader::writer_version);
// the report says which cublasspy wrote a trace, older traces read as not recorded, and a
// header whose version is not one is refused in one escaped line.
#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include "cublasspy_version.h"
#include "support/tool_tests.h"
#include "trace/trace_format.h"

namespace cublasspy::tools::testing {
namespace {

class WriterVersion : public ::testing::Test {
 protected:
  void SetUp() override {
    good_ = trace_simple_gemm(dir_);
    ASSERT_FALSE(good_.empty());
  }
  // A copy of the trace with its writer_version bytes (and optionally its version) replaced.
  std::string with_writer_version(const std::string& name, const std::string& bytes,
                                  uint32_t format_version = format::kFormatVersion) {
    std::string trace = read_file(good_);
    char* field = &trace[offsetof(format::FileHeader, writer_version)];
    std::memset(field, 0, format::kWriterVersionBytes);
    std::memcpy(field, bytes.data(), std::min<size_t>(bytes.size(), format::kWriterVersionBytes));
    std::memcpy(&trace[offsetof(format::FileHeader, format_version)], &format_version, sizeof format_version);
    std::string path = dir_ / name;
    write_file(path, trace);
    return path;
  }
  ScratchDir dir_;
  std::string good_;
};

TEST_F(WriterVersion, VersionFlagPrintsTheProjectVersion) {
  ProcessResult r = run_process({kTool, "--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("cublasspy ") + CUBLASSPY_VERSION + "\n");
}

TEST_F(WriterVersion, TraceSaysWhichCublasspyWroteIt) {
  std::string trace = read_file(good_);
  EXPECT_STREQ(&trace[offsetof(format::FileHeader, writer_version)], CUBLASSPY_VERSION);

  ProcessResult text = run_process({kTool, "report", good_});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(std::string("  trace     written by cublasspy ") + CUBLASSPY_VERSION + "\n"),
            std::string::npos)
      << text.out;
  ProcessResult json = run_process({kTool, "report", "--json", good_});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto doc = nlohmann::ordered_json::parse(json.out);
  EXPECT_EQ(doc["traces"][0]["writer_version"], CUBLASSPY_VERSION);
  EXPECT_EQ(doc["traces"][0]["format_version"], format::kFormatVersion);
}

TEST_F(WriterVersion, OlderFormatHasNoWriterVersion) {
  // Version 3 had no such field: whatever its bytes hold is not read.
  std::string old = with_writer_version("v3.cbt", "junk\x01", 3);
  ProcessResult json = run_process({kTool, "report", "--json", old});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto doc = nlohmann::ordered_json::parse(json.out);
  EXPECT_TRUE(doc["traces"][0]["writer_version"].is_null()) << doc["traces"][0]["writer_version"];
  ProcessResult text = run_process({kTool, "report", old});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.find("written by"), std::string::npos) << text.out;
}

TEST_F(WriterVersion, CorruptWriterVersionIsRefusedInOneEscapedLine) {
  std::string unterminated = with_writer_version("nonul.cbt", std::string(format::kWriterVersionBytes, '7'));
  ProcessResult r = run_process({kTool, "report", unterminated});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(unterminated + ": corrupt header: writer version"), std::string::npos) << r.err;

  std::string hostile = with_writer_version("escape.cbt", "1.0\x1b[2J\nforged line");
  r = run_process({kTool, "report", hostile});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(hostile + ": corrupt header: writer version"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace cublasspy::tools::testing
