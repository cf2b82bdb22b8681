// Bad settings: one clear line on stderr per variable, naming it; the default is used and the
// program's output and exit status do not change.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

TEST(BadSettings, OneLineEachNamingTheVariableAndTheProgramCarriesOn) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  const Env bad = {{"CUBLASSPY_RING", "abc"},        {"CUBLASSPY_SCAN", "bogus"},
                   {"CUBLASSPY_CHECK", "2"},         {"CUBLASSPY_SYNC", "yes"},
                   {"CUBLASSPY_ON_ERROR", "explode"}, {"CUBLASSPY_DUMP", "everything"},
                   {"CUBLASSPY_DISABLE", "maybe"}};
  ScratchDir dir;
  ProcessResult plain = run_process({program("shim_sgemm_loop"), "3"}, on_standin(), isolated_in(dir));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  ProcessResult r = run_process({program("shim_sgemm_loop"), "3"}, traced(dir) + on_standin() + bad, isolated_in(dir));
  EXPECT_EQ(r.exit_code, plain.exit_code);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.out, plain.out);

  std::vector<std::string> err = lines(r.err);
  for (const auto& [name, value] : bad) {
    int naming = 0;
    for (const std::string& line : err) naming += line.find(name + "=") != std::string::npos;
    EXPECT_EQ(naming, 1) << name << " is named on exactly one line:\n" << r.err;
  }
  EXPECT_EQ(err.size(), bad.size()) << "nothing else on stderr:\n" << r.err;

  // The defaults were used: the trace exists (not disabled) with the default ring.
  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().ring_capacity, 8192u);
  EXPECT_EQ(calls_of(*trace, "cublasSgemm_v2").size(), 3u);
}

TEST(BadSettings, RingOutsideItsRangeIsRefusedToo) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  ProcessResult r = run_process({program("shim_sgemm_loop"), "1"},
                                traced(dir) + on_standin() + Env{{"CUBLASSPY_RING", "3"}}, isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  std::vector<std::string> err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_NE(err[0].find("CUBLASSPY_RING"), std::string::npos) << err[0];
  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().ring_capacity, 8192u);
}

}  // namespace
}  // namespace cublasspy::integration
