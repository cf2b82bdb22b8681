// Handle setters that set what the handle already holds: no record, a count per function, and
// nothing lost: the changes are recorded, each GEMM carries the handle's stream, workspace and
// modes, a failing one is recorded, and a crash inside one is attributed to it.
// The subject is programs/setter_loop.cpp (its header says which rounds change what).
#include <signal.h>

#include <cstdio>
#include <string>
#include <vector>

#include <cublas_api.h>
#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

constexpr int kRounds = 16;

struct Addresses {
  uint64_t s1 = 0, s2 = 0, ws = 0, bytes = 0;
};

Addresses addresses_from(const std::string& out) {
  Addresses a;
  unsigned long long s1 = 0, s2 = 0, ws = 0, bytes = 0;
  size_t at = out.find("s1 ");
  if (at != std::string::npos &&
      std::sscanf(out.c_str() + at, "s1 %llx s2 %llx ws %llx bytes %llu", &s1, &s2, &ws, &bytes) == 4) {
    a = {s1, s2, ws, bytes};
  }
  return a;
}

class UnchangedSetters : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }
  // setter_loop under the shim, and plainly: both end the same way.
  ProcessResult run(const Env& faults) {
    std::vector<std::string> argv = {program("shim_setter_loop"), std::to_string(kRounds)};
    ProcessResult plain = run_process(argv, on_standin() + faults, isolated_in(dir_));
    ProcessResult traced_run = run_process(argv, traced(dir_) + on_standin() + faults, isolated_in(dir_));
    EXPECT_EQ(traced_run.signal, plain.signal) << "the shim must not change how the program ends";
    EXPECT_EQ(traced_run.exit_code, plain.exit_code);
    return traced_run;
  }
  uint64_t unchanged(const TraceFile& trace, const char* function) {
    int id = function_id(trace, function);
    return id < 0 ? 0 : trace.unchanged(static_cast<uint16_t>(id));
  }
  uint64_t calls(const TraceFile& trace, const char* function) {
    int id = function_id(trace, function);
    return id < 0 ? 0 : trace.counters(static_cast<uint16_t>(id)).calls;
  }
  ScratchDir dir_;
};

TEST_F(UnchangedSetters, ChangesAreRecordedTheRestCounted) {
  ProcessResult r = run({});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  ASSERT_NE(r.out.find("failed 0"), std::string::npos) << r.out;
  const Addresses addr = addresses_from(r.out);
  ASSERT_NE(addr.s1, 0u) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);

  // The stream changes in rounds 0, 4, 8 and 12 (from the handle's default stream to s1 first).
  auto streams = calls_of(*trace, "cublasSetStream_v2");
  ASSERT_EQ(streams.size(), 4u);
  for (size_t i = 0; i < streams.size(); ++i) {
    EXPECT_EQ(streams[i].arg("stream"), i % 2 == 0 ? addr.s1 : addr.s2) << "change " << i;
    EXPECT_FALSE(streams[i].rec().flags & format::kFlagUnchangedSetter);
  }
  EXPECT_EQ(calls(*trace, "cublasSetStream_v2"), uint64_t{kRounds});
  EXPECT_EQ(unchanged(*trace, "cublasSetStream_v2"), uint64_t{kRounds - 4});
  // The workspace changes once; the math mode once (to TF32 at the half); the pointer mode never.
  auto workspaces = calls_of(*trace, "cublasSetWorkspace_v2");
  ASSERT_EQ(workspaces.size(), 1u);
  EXPECT_EQ(workspaces[0].arg("workspace"), addr.ws);
  EXPECT_EQ(unchanged(*trace, "cublasSetWorkspace_v2"), uint64_t{kRounds - 1});
  auto maths = calls_of(*trace, "cublasSetMathMode");
  ASSERT_EQ(maths.size(), 1u);
  EXPECT_EQ(maths[0].arg("mode"), uint64_t{CUBLAS_TF32_TENSOR_OP_MATH});
  EXPECT_EQ(unchanged(*trace, "cublasSetMathMode"), uint64_t{kRounds - 1});
  EXPECT_TRUE(calls_of(*trace, "cublasSetPointerMode_v2").empty());
  EXPECT_EQ(unchanged(*trace, "cublasSetPointerMode_v2"), uint64_t{kRounds});
  EXPECT_EQ(calls(*trace, "cublasSetPointerMode_v2"), uint64_t{kRounds});

  // Every GEMM carries the state the setters gave the handle.
  auto gemms = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(gemms.size(), size_t{kRounds});
  for (int i = 0; i < kRounds; ++i) {
    const CallView& g = gemms[static_cast<size_t>(i)];
    ASSERT_EQ(g.arg("ldc"), uint64_t(4 + i));
    EXPECT_EQ(g.rec().stream, (i / 4) % 2 == 0 ? addr.s1 : addr.s2) << "round " << i;
    EXPECT_EQ(g.rec().math_mode, i < kRounds / 2 ? CUBLAS_DEFAULT_MATH : CUBLAS_TF32_TENSOR_OP_MATH) << "round " << i;
    EXPECT_EQ(g.rec().pointer_mode, CUBLAS_POINTER_MODE_HOST);
    ASSERT_TRUE(g.rec().flags & format::kFlagWorkspaceKnown) << "round " << i;
    EXPECT_EQ(g.slot.workspace, addr.ws);
    EXPECT_EQ(g.slot.workspace_bytes, addr.bytes);
  }
}

TEST_F(UnchangedSetters, AFailingUnchangedSetterIsRecorded) {
  // The third cublasSetMathMode (round 2) sets the default again, and fails.
  ProcessResult r = run({{"STANDIN_FAIL", "cublasSetMathMode:3:7"}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  ASSERT_NE(r.out.find("failed 1"), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  auto maths = calls_of(*trace, "cublasSetMathMode");
  ASSERT_EQ(maths.size(), 2u) << "the failure and the change to TF32";
  EXPECT_EQ(maths[0].rec().status, 7);
  EXPECT_EQ(maths[0].arg("mode"), uint64_t{CUBLAS_DEFAULT_MATH});
  EXPECT_TRUE(maths[0].rec().flags & format::kFlagUnchangedSetter);
  EXPECT_FALSE(maths[1].rec().flags & format::kFlagUnchangedSetter);
  EXPECT_EQ(unchanged(*trace, "cublasSetMathMode"), uint64_t{kRounds - 2});
  EXPECT_EQ(calls(*trace, "cublasSetMathMode"), uint64_t{kRounds});
  EXPECT_EQ(trace->counters(static_cast<uint16_t>(function_id(*trace, "cublasSetMathMode"))).failed, 1u);
}

// A failing unchanged setter's record is made after its call, from the handle's state, by code
// out of line: its failure site is still its caller's. The unchanged failure (the third
// cublasSetMathMode) and a failing change (the first to TF32, at the half) come from the
// program's one call of it, so they share one site.
TEST_F(UnchangedSetters, AFailingUnchangedSetterHasItsCallersSite) {
  const int change = kRounds / 2 + 1;
  ProcessResult r = run({{"STANDIN_FAIL", "cublasSetMathMode:3:7;cublasSetMathMode:" + std::to_string(change) + ":7"}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  ASSERT_NE(r.out.find("failed 2"), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  auto maths = calls_of(*trace, "cublasSetMathMode");
  ASSERT_EQ(maths.size(), 3u) << "the two failures and the change that succeeded";
  EXPECT_TRUE(maths[0].rec().flags & format::kFlagUnchangedSetter);
  EXPECT_FALSE(maths[1].rec().flags & format::kFlagUnchangedSetter);
  EXPECT_EQ(maths[1].rec().status, 7);
  std::vector<FailureSiteView> sites;
  for (const FailureSiteView& site : trace->failure_sites()) {
    if (std::string(site.function_name()) == "cublasSetMathMode") sites.push_back(site);
  }
  ASSERT_EQ(sites.size(), 1u) << "one call site in the program";
  EXPECT_EQ(sites[0].count, 2u);
  EXPECT_NE(sites[0].return_address, 0u);
  ASSERT_TRUE(sites[0].first.has_value());
  EXPECT_TRUE(sites[0].first->rec().flags & format::kFlagUnchangedSetter) << "the first failure is the unchanged one";
  EXPECT_EQ(unchanged(*trace, "cublasSetMathMode"), uint64_t{kRounds - 3});
  EXPECT_EQ(calls(*trace, "cublasSetMathMode"), uint64_t{kRounds});
}

TEST_F(UnchangedSetters, ACrashInsideAnUnchangedSetterIsAttributedToIt) {
  // The third cublasSetStream_v2 (round 2) sets s1 again: no record until it crashes.
  ProcessResult r = run({{"STANDIN_CRASH", "cublasSetStream_v2:3:SIGSEGV"}});
  ASSERT_EQ(r.signal, SIGSEGV) << r.describe();
  const Addresses addr = addresses_from(r.out);
  ASSERT_NE(addr.s1, 0u) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().end_state, static_cast<uint32_t>(format::EndState::kSignaled));
  std::vector<CallView> flying;
  for (const CallView& c : calls_of(*trace)) {
    if (c.in_flight()) flying.push_back(c);
  }
  ASSERT_EQ(flying.size(), 1u);
  EXPECT_STREQ(flying[0].function_name(), "cublasSetStream_v2");
  EXPECT_TRUE(flying[0].rec().flags & format::kFlagCrashed);
  EXPECT_TRUE(flying[0].rec().flags & format::kFlagUnchangedSetter);
  EXPECT_EQ(flying[0].arg("stream"), addr.s1);
  EXPECT_EQ(flying[0].rec().stream, addr.s1);
  // Rounds 0 and 1 made their GEMMs; the crash came before round 2's.
  EXPECT_EQ(calls_of(*trace, "cublasSgemm_v2").size(), 2u);
  EXPECT_EQ(unchanged(*trace, "cublasSetStream_v2"), 1u) << "round 1's";
}

// The shim keeps each thread's last handle look-up: with two handles in turn, and a new handle
// after one was destroyed, every GEMM still carries its own handle's stream.
TEST_F(UnchangedSetters, EachGemmCarriesItsOwnHandlesState) {
  constexpr int kPairs = 4;
  std::vector<std::string> argv = {program("shim_handle_reuse"), std::to_string(kPairs)};
  ProcessResult r = run_process(argv, traced(dir_) + on_standin(), isolated_in(dir_));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  ASSERT_NE(r.out.find("gemms 9 failed 0"), std::string::npos) << r.out;
  unsigned long long a = 0, b = 0, c = 0, s1 = 0, s2 = 0;
  size_t at = r.out.find("a ");
  ASSERT_NE(at, std::string::npos) << r.out;
  ASSERT_EQ(std::sscanf(r.out.c_str() + at, "a %llx b %llx c %llx s1 %llx s2 %llx", &a, &b, &c, &s1, &s2), 5) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  auto gemms = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(gemms.size(), size_t{2 * kPairs + 1});
  for (int i = 0; i < 2 * kPairs; ++i) {
    const CallView& g = gemms[static_cast<size_t>(i)];
    ASSERT_EQ(g.arg("ldc"), uint64_t(4 + i));
    EXPECT_EQ(g.rec().handle, i % 2 == 0 ? a : b) << "GEMM " << i;
    EXPECT_EQ(g.rec().stream, i % 2 == 0 ? s1 : s2) << "GEMM " << i;
  }
  // Before each GEMM the program sets its handle's stream again, each time on the handle the
  // thread did not use last: none is recorded, all are counted.
  EXPECT_EQ(calls_of(*trace, "cublasSetStream_v2").size(), 2u) << "the two changes";
  EXPECT_EQ(unchanged(*trace, "cublasSetStream_v2"), uint64_t{2 * kPairs + 1});
  const CallView& last = gemms.back();
  EXPECT_EQ(last.rec().handle, c);
  EXPECT_EQ(last.rec().stream, 0u) << "the new handle's default stream";
  EXPECT_EQ(last.rec().pointer_mode, CUBLAS_POINTER_MODE_HOST);
  ASSERT_TRUE(last.rec().flags & format::kFlagWorkspaceKnown);
  EXPECT_EQ(last.slot.workspace, 0u);
}

}  // namespace
}  // namespace cublasspy::integration
