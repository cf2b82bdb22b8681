// CUBLASSPY_STACKS: a failing call of a C++ program carries its native location, naming the
// program's functions that made it; none with CUBLASSPY_STACKS=none; under `all` a call that
// crashes has its location (taken before the call) and the faulting PC.
#include <signal.h>

#include <cstring>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "support/traced_run.h"
#include "trace/stack_codec.h"

namespace cublasspy::test {
namespace {

struct Located {
  std::optional<NativeStack> native;  // the call's own (not the fault's)
  std::optional<uint64_t> fault_pc;
  bool python = false;
  bool crashed = false;
  bool found = false;
};

Located sgemm_of(const TracedRun& run) {
  Located out;
  if (run.opened.size() != 1) return out;
  const TraceFile& t = run.opened[0];
  t.for_each_call([&](const CallView& c) {
    if (std::strcmp(c.function_name(), "cublasSgemm_v2") != 0) return;
    out.found = true;
    out.crashed = (c.rec().flags & format::kFlagCrashed) != 0;
    for (const SideEntryView& e : t.side_entries(c)) {
      if (e.kind == static_cast<uint32_t>(format::SideKind::kPythonStack)) out.python = true;
      if (e.kind != static_cast<uint32_t>(format::SideKind::kNativeStack)) continue;
      std::optional<NativeStack> s = decode_native_stack(e.bytes);
      if (!s) ADD_FAILURE() << "a native stack that does not decode";
      else if (s->at_signal) out.fault_pc = s->frames.at(0).address;
      else out.native = s;
    }
  });
  return out;
}

TracedRun run_located(std::map<std::string, std::string> env) {
  RunOptions o;
  o.env = std::move(env);
  return run_traced(program_path("diag_located"), o);
}

TEST(Locations, AFailingCallNamesTheProgramsFunctionsThatMadeIt) {
  TracedRun run = run_located({{"STANDIN_FAIL", "cublasSgemm_v2:1:13"}});
  ASSERT_EQ(run.exit_code, 1) << run.output;
  Located l = sgemm_of(run);
  ASSERT_TRUE(l.found) << run.output;
  ASSERT_TRUE(l.native) << "no native location on the failing Sgemm";
  EXPECT_FALSE(l.python);  // no CPython in this process
  const std::string text = native_stack_text(*l.native);
  ASSERT_GE(l.native->frames.size(), 3u) << text;
  EXPECT_EQ(l.native->frames[0].symbol, "multiply_in_layer") << text;
  EXPECT_EQ(l.native->frames[1].symbol, "run_model") << text;
  EXPECT_NE(text.find("multiply_in_layer <- run_model <- main"), std::string::npos) << text;
  EXPECT_NE(l.native->frames[0].module.find("diag_located"), std::string::npos) << l.native->frames[0].module;
  EXPECT_LT(l.native->frames[0].offset, l.native->frames[0].address);
}

TEST(Locations, NoneRecordsNothingAndASucceedingCallHasNoLocation) {
  Located none = sgemm_of(run_located({{"STANDIN_FAIL", "cublasSgemm_v2:1:13"}, {"CUBLASSPY_STACKS", "none"}}));
  ASSERT_TRUE(none.found);
  EXPECT_FALSE(none.native);
  Located fine = sgemm_of(run_located({}));
  ASSERT_TRUE(fine.found);
  EXPECT_FALSE(fine.native);
}

TEST(Locations, UnderAllACrashInTheCallHasItsLocationAndTheFaultingPc) {
  TracedRun run = run_located({{"STANDIN_CRASH", "cublasSgemm_v2:1:SIGSEGV"}, {"CUBLASSPY_STACKS", "all"}});
  EXPECT_EQ(run.signal, SIGSEGV) << run.output;
  Located l = sgemm_of(run);
  ASSERT_TRUE(l.found);
  EXPECT_TRUE(l.crashed);
  ASSERT_TRUE(l.native) << "no location taken before the call";
  EXPECT_NE(native_stack_text(*l.native).find("multiply_in_layer <- run_model"), std::string::npos);
  ASSERT_TRUE(l.fault_pc);
  EXPECT_NE(*l.fault_pc, 0u);
  // Without `all` the crash has only the PC: the location is taken after a call, which never
  // returned.
  Located failing = sgemm_of(run_located({{"STANDIN_CRASH", "cublasSgemm_v2:1:SIGSEGV"}}));
  ASSERT_TRUE(failing.found);
  EXPECT_FALSE(failing.native);
  EXPECT_TRUE(failing.fault_pc);
}

}  // namespace
}  // namespace cublasspy::test
