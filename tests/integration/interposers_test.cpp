// Other interposers preloaded beside the shim, in either order: one that counts and forwards
// (programs/counting_interposer.c), one that provides the functions itself
// (programs/providing_interposer.c). The shim binds each real function as the dynamic linker
// would have without it, the next definition in the search order, so the other library sees
// every call it sees alone and the program's output is the same.
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

class Interposers : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }
  // The subject with `preload` as LD_PRELOAD (traced when it names the shim); the counter's
  // counts go to `counts`.
  ProcessResult run_with(const std::string& preload, const std::vector<std::string>& args,
                         const std::string& counts = "") {
    std::vector<std::string> argv = {program("shim_interposed_calls")};
    argv.insert(argv.end(), args.begin(), args.end());
    Env env = traced(dir_) + on_standin() + Env{{"LD_PRELOAD", preload}};
    if (!counts.empty()) env = env + Env{{"COUNTER_OUT", dir_ / counts}};
    ProcessResult r = run_process(argv, env, isolated_in(dir_));
    EXPECT_TRUE(r.exited_ok()) << preload << ": " << r.describe();
    return r;
  }
  // The one record of `function` in the trace of process `pid`, checked for status 0.
  void expect_recorded(pid_t pid, const std::string& function, size_t count) {
    auto trace = open_trace(trace_path(dir_, pid));
    ASSERT_TRUE(trace);
    auto calls = calls_of(*trace, function);
    EXPECT_EQ(calls.size(), count) << function;
    for (const CallView& c : calls) EXPECT_EQ(c.rec().status, 0) << function;
  }
  ScratchDir dir_;
};

TEST_F(Interposers, CountingInterposerSeesEveryCallInEitherOrder) {
  const std::string counter = program("libshim_counting_interposer.so");
  ProcessResult alone = run_with(counter, {}, "alone.txt");
  const std::string counts = read_file(dir_ / "alone.txt");
  ASSERT_EQ(counts, "cublasSgemm_v2 3 cudaMalloc 3 cudaDeviceSynchronize 1\n") << "the counter alone";
  EXPECT_NE(alone.out.find("gemms failed 0 synchronized 0 c[0] 12"), std::string::npos) << alone.out;

  for (const std::string& order : {kShim + ":" + counter, counter + ":" + kShim}) {
    SCOPED_TRACE(order);
    const std::string file = order.rfind(kShim, 0) == 0 ? "after.txt" : "before.txt";
    ProcessResult r = run_with(order, {}, file);
    EXPECT_EQ(r.out, alone.out) << "the shim changed the program's output";
    EXPECT_EQ(read_file(dir_ / file), counts) << "the counter missed calls beside the shim";
    expect_recorded(r.pid, "cublasSgemm_v2", 3);
    expect_recorded(r.pid, "cudaMalloc", 3);
  }
}

TEST_F(Interposers, ProvidingInterposerKeepsItsDefinitionsInEitherOrder) {
  const std::string provider = program("libshim_providing_interposer.so");
  ProcessResult alone = run_with(provider, {"events", "xt"});
  ASSERT_NE(alone.out.find("events created 0 recorded 0 synchronized 0 queried 0 timed 0 ms measured"),
            std::string::npos)
      << alone.out;
  ASSERT_NE(alone.out.find("xt created 0 sgemm 0 c 4 6 6 8"), std::string::npos) << alone.out;

  for (const std::string& order : {kShim + ":" + provider, provider + ":" + kShim}) {
    SCOPED_TRACE(order);
    ProcessResult r = run_with(order, {"events", "xt"});
    EXPECT_EQ(r.out, alone.out) << "the shim changed the program's output";
    // Preloaded first, the provider answers the program itself and forwards nothing: the shim
    // never sees that call. After the shim, the call passes through it to the provider.
    const bool shim_first = order.rfind(kShim, 0) == 0;
    expect_recorded(r.pid, "cublasXtSgemm", shim_first ? 1 : 0);
    expect_recorded(r.pid, "cublasSgemm_v2", 3);
  }
}

}  // namespace
}  // namespace cublasspy::integration
