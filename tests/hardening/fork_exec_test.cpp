// Processes made from a traced process: a storm of forked children (each writes its own trace,
// never the parent's, and dies of its own signal), and a program exec'ed from a traced one (a
// process of its own, traced from its first call).
#include <signal.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

uint64_t calls_to(const TraceFile& trace, const char* function) {
  int id = function_id(trace, function);
  return id < 0 ? 0 : trace.counters(static_cast<uint16_t>(id)).calls;
}

// fork_storm's "child I pid P gemms G" lines: pid -> expected GEMMs.
std::map<std::string, uint64_t> children_of(const std::string& out) {
  std::map<std::string, uint64_t> children;
  std::regex line(R"(child \d+ pid (\d+) gemms (\d+))");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it) {
    children[(*it)[1]] = std::stoull((*it)[2]);
  }
  return children;
}

std::string parent_pid_of(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex(R"(parent (\d+))")) ? std::string(m[1]) : "";
}

class ForkAndExec : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }
  ScratchDir dir_;
};

TEST_F(ForkAndExec, ForkStormEveryChildWritesItsOwnTraceAndNeverTheParents) {
  constexpr int kChildren = 24;
  ProcessResult r = run_process({program("hard_fork_storm"), std::to_string(kChildren)},
                                traced(dir_) + on_standin() + Env{{"CUBLASSPY_RING", "16"}}, isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  ASSERT_NE(r.out.find("children-ok " + std::to_string(kChildren)), std::string::npos) << r.out;
  auto children = children_of(r.out);
  ASSERT_EQ(children.size(), static_cast<size_t>(kChildren));
  const std::string parent_pid = parent_pid_of(r.out);
  ASSERT_EQ(dir_.files().size(), static_cast<size_t>(kChildren + 1)) << "one trace per process";

  auto parent = open_trace(dir_ / ("t-" + parent_pid + ".cbt"));
  ASSERT_TRUE(parent);
  EXPECT_EQ(parent->header().forked_child, 0u);
  EXPECT_EQ(calls_to(*parent, "cublasSgemm_v2"), uint64_t{kChildren} + 1) << "one before, one per fork";
  EXPECT_EQ(calls_to(*parent, "cudaGetDeviceCount"), 0u) << "only the children enumerate devices";
  EXPECT_EQ(calls_of(*parent).size(), std::min<uint64_t>(parent->total_calls(), 16))
      << "every call recorded once, the last 16 held";
  for (const CallView& g : calls_of(*parent, "cublasSgemm_v2")) {
    EXPECT_EQ(g.arg("m"), 1u) << "a child's GEMM in the parent's trace";
  }

  for (const auto& [pid, gemms] : children) {
    auto child = open_trace(dir_ / ("t-" + pid + ".cbt"));
    ASSERT_TRUE(child) << pid;
    const format::FileHeader& h = child->header();
    EXPECT_EQ(h.forked_child, 1u) << pid;
    EXPECT_EQ(std::to_string(h.parent_pid_at_fork), parent_pid);
    EXPECT_EQ(child->process().get("pid"), pid);
    EXPECT_EQ(calls_to(*child, "cublasSgemm_v2"), gemms) << pid;
    EXPECT_EQ(calls_to(*child, "cudaGetDeviceCount"), 1u) << pid;
    EXPECT_EQ(calls_of(*child).size(), std::min<uint64_t>(child->total_calls(), 16))
        << pid << ": every call recorded once, the last 16 held";
    EXPECT_EQ(child->torn_records(), 0u);
    for (const CallView& g : calls_of(*child, "cublasSgemm_v2")) EXPECT_EQ(g.arg("m"), 2u) << pid;
  }
}

TEST_F(ForkAndExec, ForkedChildThatAbortsDiesOfSigabrtAndSaysSo) {
  // The child opens its own trace and installs the fatal-signal handlers again over the ones it
  // inherited: chaining from them to themselves would recurse until the stack overflowed and
  // turn the child's SIGABRT into a SIGSEGV (the program counts children that died otherwise).
  constexpr int kChildren = 4;
  std::vector<std::string> argv = {program("hard_fork_storm"), std::to_string(kChildren), "abort"};
  ProcessResult plain = run_process(argv, on_standin(), isolated_in(dir_));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  ProcessResult r = run_process(argv, traced(dir_) + on_standin(), isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << "a child died of another signal than SIGABRT\n" << r.describe();
  for (const auto& [pid, gemms] : children_of(r.out)) {
    auto child = open_trace(dir_ / ("t-" + pid + ".cbt"));
    ASSERT_TRUE(child) << pid;
    EXPECT_EQ(child->header().end_state, static_cast<uint32_t>(format::EndState::kSignaled)) << pid;
    EXPECT_EQ(child->header().end_signal, SIGABRT) << pid;
    EXPECT_EQ(calls_to(*child, "cublasSgemm_v2"), gemms) << pid;
  }
}

TEST_F(ForkAndExec, ExecedProgramIsTracedAsAProcessOfItsOwn) {
  ProcessResult r = run_process({program("hard_exec_child"), program("shim_sgemm_loop"), "3"},
                                traced(dir_) + on_standin(), isolated_in(dir_));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(parent (\d+) child (\d+) exit 0)"))) << r.out;
  const std::string parent_pid = m[1], child_pid = m[2];
  ASSERT_EQ(dir_.files().size(), 2u);

  auto parent = open_trace(dir_ / ("t-" + parent_pid + ".cbt"));
  auto child = open_trace(dir_ / ("t-" + child_pid + ".cbt"));
  ASSERT_TRUE(parent && child);
  EXPECT_EQ(calls_to(*parent, "cublasSgemm_v2"), 2u);
  EXPECT_EQ(parent->header().end_state, static_cast<uint32_t>(format::EndState::kExited));
  // A new program, not a copy of the parent: not marked as a forked child.
  EXPECT_EQ(child->header().forked_child, 0u);
  EXPECT_EQ(child->process().get("pid"), child_pid);
  EXPECT_NE(child->process().get("exe").find("shim_sgemm_loop"), std::string::npos)
      << child->process().get("exe");
  EXPECT_EQ(calls_to(*child, "cublasSgemm_v2"), 3u);
  EXPECT_EQ(child->header().end_state, static_cast<uint32_t>(format::EndState::kExited));
}

TEST_F(ForkAndExec, ForksWhileAnotherThreadSetsUpNeverLeaveAChildWaiting) {
  // One thread forks 100 children while another makes the first CUDA call (the shim's set-up
  // and trace opening); each child then makes a call. A fork inside that window must wait for
  // it to finish, or the child inherits a lock no thread of its will ever release.
  ASSERT_TRUE(std::filesystem::exists(program("hard_fork_during_setup"))) << "the null CUDA stack's program was not built";
  ProcessResult r = run_process({program("hard_fork_during_setup"), "100"},
                                traced(dir_) + Env{{"CUBLASSPY_RING", "16"}}, isolated_in(dir_, std::chrono::seconds(90)));
  EXPECT_NE(r.out.find("hung 0"), std::string::npos) << r.describe();
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(dir_.files().size(), 101u) << "every process wrote its trace";
}

}  // namespace
}  // namespace cublasspy::integration
