// Per-hook tests generated from the hook list: for every hooked function, each
// argument must arrive in the trace as the program passed it. The program (hook_roundtrip.cpp)
// runs once per test process under the shim against the null CUDA stack; each test looks at its
// function's one record.
//
// Slots not compared with the value passed, and why:
//  - out-parameters (cudaGetDeviceCount's count, cublasCreate's handle, Create's descriptor...):
//    the shim records what the callee wrote there, so they are compared with that instead;
//  - derived slots computed from shadow state (a cuBLASLt matmul's shape, types, orders from its
//    descriptors): made-up descriptors have no shadow, so those slots say nothing here; the
//    cuBLASLt descriptor tests check them (lt_descriptor_test.cpp). Derived slots that copy the
//    program's memory (a grouped GEMM's first m, an attribute's value) ARE compared.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "spec/foreach.h"
#include "spec/hook_list.h"
#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

#define RT_HOOK_NAME(lib_, ret_, fn_, ...) #fn_,
const char* const kHooks[] = {CUBLASSPY_HOOKS(RT_HOOK_NAME) CUBLASSPY_LEGACY_HOOKS(RT_HOOK_NAME)};
#undef RT_HOOK_NAME

// The parameter count of each hook, from the list itself.
#define RT_ONE(...) +1
#define RT_HOOK_ARITY(lib_, ret_, fn_, fail_, family_, traits_, ...) {#fn_, 0 CBS_MAP_SPACE(RT_ONE, __VA_ARGS__)},
const std::map<std::string, int> kArity = {CUBLASSPY_HOOKS(RT_HOOK_ARITY) CUBLASSPY_LEGACY_HOOKS(RT_HOOK_ARITY)};
#undef RT_HOOK_ARITY
#undef RT_ONE

struct Expectation {
  std::string what;  // arg, out, derived, alpha, beta, params
  int slot = 0;
  uint64_t raw = 0;
  double re = 0, im = 0;
};

class HookRoundTrip : public ::testing::TestWithParam<const char*> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir;
    std::string expectations = *dir_ / "expected.txt";
    // A small ring: ~200 calls fit, and the trace file stays small.
    result_ = new ProcessResult(run_process({program("shim_hook_roundtrip"), expectations},
                                            traced(*dir_) + Env{{"CUBLASSPY_RING", "1024"}}, isolated_in(*dir_)));
    std::ifstream in(expectations);
    for (std::string line; std::getline(in, line);) {
      std::istringstream s(line);
      std::string fn;
      Expectation e;
      s >> fn >> e.what;
      if (e.what == "alpha" || e.what == "beta") s >> e.re >> e.im;
      else if (e.what == "params") s >> e.slot;
      else s >> e.slot >> std::hex >> e.raw;
      expected_[fn].push_back(e);
    }
    std::string error;
    auto trace = TraceFile::open(trace_path(*dir_, result_->pid), error);
    if (trace) trace_ = new TraceFile(std::move(*trace));
    else trace_error_ = error;
  }
  static void TearDownTestSuite() {
    delete trace_;
    delete result_;
    delete dir_;
  }

  static ScratchDir* dir_;
  static ProcessResult* result_;
  static TraceFile* trace_;
  static std::string trace_error_;
  static std::map<std::string, std::vector<Expectation>> expected_;
};

ScratchDir* HookRoundTrip::dir_ = nullptr;
ProcessResult* HookRoundTrip::result_ = nullptr;
TraceFile* HookRoundTrip::trace_ = nullptr;
std::string HookRoundTrip::trace_error_;
std::map<std::string, std::vector<Expectation>> HookRoundTrip::expected_;

TEST_P(HookRoundTrip, EveryArgumentArrivesInTheRecord) {
  const std::string fn = GetParam();
  ASSERT_TRUE(result_->exited_ok()) << result_->describe();
  ASSERT_NE(trace_, nullptr) << trace_error_;

  std::vector<CallView> calls = calls_of(*trace_, fn);
  ASSERT_EQ(calls.size(), 1u) << fn << " was called once by the program";
  const CallView& call = calls.front();
  EXPECT_EQ(call.state, format::RecordState::kCompleted);
  EXPECT_EQ(call.rec().status, 0) << "the null stack returns success";
  EXPECT_EQ(call.rec().flags & format::kFlagUnresolved, 0u) << "the real (null) function was found";
  EXPECT_EQ(call.rec().depth, 0);

  const std::vector<Expectation>& expected = expected_[fn];
  ASSERT_FALSE(expected.empty()) << "the program wrote no expectations for " << fn;
  int params_seen = -1, compared = 0;
  std::vector<ArgView> args = call.args();
  for (const Expectation& e : expected) {
    if (e.what == "params") {
      params_seen = e.slot;
      continue;
    }
    if (e.what == "alpha" || e.what == "beta") {
      const double* value = e.what == "alpha" ? call.rec().alpha : call.rec().beta;
      uint32_t known = e.what == "alpha" ? format::kFlagAlphaKnown : format::kFlagBetaKnown;
      EXPECT_TRUE(call.rec().flags & known) << fn << ": " << e.what << " passed by value is known";
      EXPECT_DOUBLE_EQ(value[0], e.re) << fn << ": " << e.what << " (real part)";
      EXPECT_DOUBLE_EQ(value[1], e.im) << fn << ": " << e.what << " (imaginary part)";
      continue;
    }
    ASSERT_LT(static_cast<size_t>(e.slot), args.size()) << fn << ": the function table has no slot " << e.slot;
    EXPECT_EQ(args[e.slot].raw, e.raw) << fn << ": slot " << e.slot << " (" << args[e.slot].name << ", " << e.what
                                       << ") holds 0x" << std::hex << args[e.slot].raw << ", expected 0x" << e.raw;
    ++compared;
  }
  EXPECT_EQ(params_seen, kArity.at(fn)) << fn << ": the program passed every parameter of the list";
  EXPECT_GE(compared, kArity.at(fn)) << fn << ": every parameter's slot was compared";
}

std::string test_name(const ::testing::TestParamInfo<const char*>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(AllHooks, HookRoundTrip, ::testing::ValuesIn(kHooks), test_name);

}  // namespace
}  // namespace cublasspy::integration
