// A traced process that replaces itself by exec after using CUDA: its trace ends there, naming
// the target, neither "exited" nor "ended without a recorded exit"; an exec that fails leaves
// the image running and recorded; a vfork child's exec, which runs in the parent's memory, does
// not end the parent's trace. Real programs under the real shim, on the CPU stand-in.
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

const std::string kTool = CUBLASSPY_TOOL_PATH;
const std::string kTarget = "/bin/true";  // a program that makes no CUDA call: no trace of its own

std::string pid_of(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex(R"(pid (\d+))")) ? std::string(m[1]) : "";
}

class ExecEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
    ASSERT_EQ(access(kTarget.c_str(), X_OK), 0) << kTarget << " is needed as the exec's target";
  }
  // Runs exec_after_cuda MODE TARGET under the shim; returns its one trace's path.
  std::string run_subject(const std::string& mode, const std::string& target, ProcessResult* result = nullptr) {
    ProcessResult r = run_process({program("hard_exec_after_cuda"), mode, target}, traced(dir_) + on_standin(),
                                  isolated_in(dir_));
    if (result != nullptr) *result = r;
    EXPECT_TRUE(r.exited_ok()) << r.describe();
    const std::string pid = pid_of(r.out);
    EXPECT_FALSE(pid.empty()) << r.out;
    EXPECT_EQ(dir_.files().size(), 1u) << "one trace: the target makes no CUDA call";
    return dir_ / ("t-" + pid + ".cbt");
  }
  nlohmann::ordered_json report_json(const std::string& trace) {
    ProcessResult r = run_process({kTool, "report", "--json", trace}, {}, isolated_in(dir_));
    EXPECT_TRUE(r.exited_ok()) << r.describe();
    return nlohmann::ordered_json::parse(r.out);
  }
  ScratchDir dir_;
};

TEST_F(ExecEnd, ExeclAfterCudaEndsTheTraceWithTheTarget) {
  const std::string path = run_subject("execl", kTarget);
  auto trace = open_trace(path);
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kExecuted));
  // execl is recorded as the execv it builds, in flight: it never returned.
  std::vector<CallView> execs = calls_of(*trace, "execv");
  ASSERT_EQ(execs.size(), 1u);
  EXPECT_TRUE(execs[0].in_flight());
  EXPECT_EQ(execs[0].text_arg(format::ArgRole::kExecTarget), kTarget);

  nlohmann::ordered_json doc = report_json(path);
  const auto& end = doc["traces"][0]["end"];
  EXPECT_EQ(end["state"], "exec") << end.dump();
  EXPECT_EQ(end["exec"]["target"], kTarget) << end.dump();
  EXPECT_EQ(end["exec"]["function"], "execv") << end.dump();
  EXPECT_EQ(end["exec"]["call"], execs[0].seq) << end.dump();
  EXPECT_TRUE(doc["traces"][0]["in_flight"].empty()) << "the exec ended the image; it is no call cut short";
  for (const auto& d : doc["diagnoses"]) EXPECT_NE(d["severity"], "error") << d.dump();

  ProcessResult text = run_process({kTool, "report", path}, {}, isolated_in(dir_));
  ASSERT_TRUE(text.exited_ok()) << text.describe();
  EXPECT_NE(text.out.find("replaced itself by exec of " + kTarget), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("without a recorded exit"), std::string::npos) << text.out;
}

TEST_F(ExecEnd, ExecvpRecordsTheFileItSearchedFor) {
  const std::string path = run_subject("execvp", "true");
  auto trace = open_trace(path);
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kExecuted));
  std::vector<CallView> execs = calls_of(*trace, "execvp");
  ASSERT_EQ(execs.size(), 1u);
  EXPECT_EQ(execs[0].text_arg(format::ArgRole::kExecTarget), "true");
}

TEST_F(ExecEnd, FailedExecLeavesTheImageRunningAndRecordsTheFailure) {
  ProcessResult r;
  const std::string path = run_subject("failed", (dir_ / "no-such-program"), &r);
  EXPECT_NE(r.out.find("exec failed " + std::to_string(ENOENT)), std::string::npos)
      << "the program sees the exec's own errno\n" << r.out;
  auto trace = open_trace(path);
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kExited));
  EXPECT_EQ(trace->header().exit_status, 0);
  std::vector<CallView> execs = calls_of(*trace, "execv");
  ASSERT_EQ(execs.size(), 1u);
  EXPECT_FALSE(execs[0].in_flight());
  EXPECT_TRUE(execs[0].failed());
  EXPECT_EQ(execs[0].arg("errno"), static_cast<uint64_t>(ENOENT));
  EXPECT_EQ(calls_of(*trace, "cublasSgemm_v2").size(), 2u) << "the image went on after the failed exec";
  nlohmann::ordered_json doc = report_json(path);
  EXPECT_EQ(doc["traces"][0]["end"]["state"], "exited");
  EXPECT_EQ(doc["traces"][0]["first_failure"]["function"], "execv") << "a failure, the first";
  for (const auto& d : doc["diagnoses"]) EXPECT_NE(d["id"], "execution-failed") << "no GPU failure: " << d.dump();
}

TEST_F(ExecEnd, VforkChildsExecDoesNotEndTheParentsTrace) {
  ProcessResult r;
  const std::string path = run_subject("vfork", kTarget, &r);
  EXPECT_NE(r.out.find(" exit 0"), std::string::npos) << r.out;
  auto trace = open_trace(path);
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kExited));
  EXPECT_TRUE(calls_of(*trace, "execl").empty() && calls_of(*trace, "execv").empty())
      << "the child's exec is not the parent's call";
  EXPECT_EQ(calls_of(*trace, "cublasSgemm_v2").size(), 2u);
}

TEST_F(ExecEnd, RunSaysTheCommandReplacedItselfNotThatItSkippedItsExitHandlers) {
  ProcessResult r = run_process({kTool, "run", "--summary", "always", "-o", dir_ / "t-%p.cbt", "--",
                                 program("hard_exec_after_cuda"), "execl", kTarget},
                                on_standin(), isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_NE(r.err.find("replaced itself by exec of " + kTarget), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("without running its exit handlers"), std::string::npos) << r.err;

  // And with the summary left to `run`: an exec is no trouble, so no summary is printed; the
  // image's trace stays (it ran no exit handler), and `run` says where.
  ScratchDir quiet;
  ProcessResult q = run_process({kTool, "run", "-o", quiet / "t-%p.cbt", "--", program("hard_exec_after_cuda"),
                                 "execl", kTarget},
                                on_standin(), isolated_in(quiet));
  ASSERT_TRUE(q.exited_ok()) << q.describe();
  ASSERT_EQ(quiet.files().size(), 1u);
  EXPECT_EQ(q.err, "\ncublasspy run: trace kept: " + quiet.files().front() + "\n");
}

}  // namespace
}  // namespace cublasspy::integration
