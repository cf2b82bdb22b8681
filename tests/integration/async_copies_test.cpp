// The launch ring's 2D, 3D, peer, symbol, array and batched copies and memsets
// (CBS_ASYNC_COPY_HOOKS in hook_list.h): each call is one launch entry, under the function
// called, with the bytes it touches, its stream and the status it returned. The runtime's run
// against the real CUDA 13 runtime, driverless here, where each fails for real, its batches also
// with CUDA 12.8's prototypes against a libcudart.so.12 of those, and 2D and 3D copies that
// succeed against the stand-in; the driver's against the null stack's libcuda (there is no
// driver to fail), which answers success, and whose cuGetProcAddress hands out its own functions.
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/shim_tests.h"
#include "support/traced_run.h"

namespace cublasspy::integration {
namespace {

// One launch entry as "function bytes stream status".
struct Expected {
  std::string function;
  uint64_t bytes;
  uint64_t stream;
  std::string printed = {};  // what the program printed for the call, when not `function`
};

// "NAME STATUS" lines the program printed, in order.
std::vector<std::pair<std::string, int>> printed(const std::string& out) {
  std::vector<std::pair<std::string, int>> calls;
  std::istringstream in(out);
  std::string name;
  int status = 0;
  while (in >> name >> status) calls.emplace_back(name, status);
  return calls;
}

std::vector<std::string> launches(const TraceFile& t) {
  std::vector<std::string> out;
  t.for_each_launch([&](const LaunchView& l) {
    out.push_back(std::string(l.function_name()) + " " + std::to_string(l.entry.bytes) + " " +
                  std::to_string(l.entry.stream) + " " + std::to_string(l.entry.status));
  });
  return out;
}

// Runs `name` under the shim; the launch ring must hold exactly `expected`, one entry per call,
// each with the status the program printed for it. Returns those statuses.
std::vector<int> check_run(const std::string& name, const std::vector<Expected>& expected, const Env& env = {}) {
  ScratchDir dir;
  ProcessResult r = run_process({program(name)}, traced(dir) + env, isolated_in(dir));
  EXPECT_TRUE(r.exited_ok()) << r.describe();
  const auto calls = printed(r.out);
  EXPECT_EQ(calls.size(), expected.size()) << r.out;
  std::vector<std::string> want;
  std::vector<int> statuses;
  for (size_t i = 0; i < expected.size() && i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].first, expected[i].printed.empty() ? expected[i].function : expected[i].printed) << "call " << i;
    want.push_back(expected[i].function + " " + std::to_string(expected[i].bytes) + " " +
                   std::to_string(expected[i].stream) + " " + std::to_string(calls[i].second));
    statuses.push_back(calls[i].second);
  }
  auto trace = open_trace(trace_path(dir, r.pid));
  if (!trace) return statuses;
  EXPECT_EQ(launches(*trace), want) << r.describe();
  return statuses;
}

constexpr uint64_t kLegacy = 1, kPerThread = 2;  // cudaStreamLegacy, cudaStreamPerThread

TEST(LaunchRingCopies, RuntimeCopiesAndMemsetsFailForRealAndAreEachRecorded) {
  // As DriverlessRealCuda: with a driver the calls would not fail for real (scripts/test.sh
  // fails on this skip unless CUBLASSPY_ALLOW_SKIPS=1 on such a machine).
  if (test::driver_installed()) GTEST_SKIP() << "libcuda.so.1 loads on this machine: the driverless expectations do not apply";
  const std::vector<Expected> expected = {
      {"cudaMemcpy2DAsync", 48 * 3, kLegacy},
      {"cudaMemcpy2DAsync_ptsz", 48 * 3, kPerThread},
      {"cudaMemcpy3DAsync", 8 * 4 * 2, kLegacy},
      {"cudaMemcpy3DAsync_ptsz", 8 * 4 * 2, kPerThread},
      {"cudaMemcpy3DAsync", 0, kLegacy},  // a null cudaMemcpy3DParms
      {"cudaMemcpyPeerAsync", 100, kLegacy},
      {"cudaMemcpy3DPeerAsync", 16 * 3 * 5, kLegacy},
      {"cudaMemcpy3DPeerAsync_ptsz", 16 * 3 * 5, kPerThread},
      {"cudaMemcpy3DPeerAsync", 0, kLegacy},  // a null cudaMemcpy3DPeerParms
      {"cudaMemcpyToSymbolAsync", 24, kLegacy},
      {"cudaMemcpyToSymbolAsync_ptsz", 24, kPerThread},
      {"cudaMemcpyFromSymbolAsync", 12, kLegacy},
      {"cudaMemcpyFromSymbolAsync_ptsz", 12, kPerThread},
      {"cudaMemcpy2DToArrayAsync", 16 * 5, kLegacy},
      {"cudaMemcpy2DToArrayAsync_ptsz", 16 * 5, kPerThread},
      {"cudaMemcpy2DFromArrayAsync", 20 * 6, kLegacy},
      {"cudaMemcpy2DFromArrayAsync_ptsz", 20 * 6, kPerThread},
      {"cudaMemset2DAsync", 40 * 7, kLegacy},
      {"cudaMemset2DAsync_ptsz", 40 * 7, kPerThread},
      {"cudaMemset3DAsync", 16 * 4 * 3, kLegacy},
      {"cudaMemset3DAsync_ptsz", 16 * 4 * 3, kPerThread},
      {"cudaMemcpyBatchAsync", 40 + 24, kLegacy},
      {"cudaMemcpyBatchAsync_ptsz", 40, kPerThread},
      {"cudaMemcpy3DBatchAsync", 6 * 2 * 2 + 3 * 3 * 1, kLegacy},
      {"cudaMemcpy3DBatchAsync_ptsz", 6 * 2 * 2 + 3 * 3 * 1, kPerThread},
  };
  for (int status : check_run("shim_async_copies_runtime", expected)) {
    EXPECT_EQ(status, 35) << "cudaErrorInsufficientDriver: no driver here";
  }
}

// The runtime's batches as a program built with CUDA 12.8 calls them, with failIdx before the
// stream, on a libcudart.so.12 of that prototype (which answers with success): the shim's one
// wrapper of each name records the stream from 12.8's place for it, and hands every argument on
// in its place (the program exits 1 when the library saw another stream).
TEST(LaunchRingCopies, RuntimeBatchesOfCuda12_8AreRecordedWithTheirStream) {
  const std::vector<Expected> expected = {
      {"cudaMemcpyBatchAsync", 10 + 20 + 30, kLegacy},
      {"cudaMemcpyBatchAsync_ptsz", 20 + 30, kPerThread},
      {"cudaMemcpyBatchAsync", 0, 0x5500},  // a null sizes array
      {"cudaMemcpy3DBatchAsync", 4 * 3 * 2 + 5, kLegacy},
      {"cudaMemcpy3DBatchAsync_ptsz", 4 * 3 * 2, kPerThread},
      {"cudaMemcpy3DBatchAsync", 0, 0x5500},  // a null list
  };
  for (int status : check_run("shim_async_batches_12_8", expected)) EXPECT_EQ(status, 0);
}

// 2D and 3D copies that succeed, on the stand-in (which copies row by row): recorded with the
// bytes they moved, their stream and status 0, and the program's data is intact (it exits 1
// otherwise).
TEST(LaunchRingCopies, SuccessfulTwoAndThreeDimensionalCopiesOfRealMemoryAreRecorded) {
  const std::vector<Expected> expected = {
      {"cudaMemcpy2DAsync", 24 * 4, kLegacy},
      {"cudaMemcpy2DAsync_ptsz", 24 * 4, kPerThread},
      {"cudaMemcpy3DAsync", 24 * 4 * 3, kLegacy},
      {"cudaMemcpy3DAsync_ptsz", 24 * 4 * 3, kPerThread},
      {"cudaDeviceSynchronize", 0, 0},  // a wait: no bytes, no stream
  };
  for (int status : check_run("shim_async_copies_standin", expected, on_standin())) {
    EXPECT_EQ(status, 0) << "cudaSuccess on the stand-in";
  }
}

TEST(LaunchRingCopies, DriverCopiesAndMemsetsAreEachRecorded) {
  const auto s = [](uint64_t i) { return uint64_t{0x5100} + i; };
  const auto r = [](uint64_t i) { return uint64_t{0x5200} + i; };
  std::vector<Expected> expected = {
      {"cuMemcpy2DAsync_v2", 96 * 5, s(1)},
      {"cuMemcpy2DAsync_v2_ptsz", 96 * 5, s(2)},
      {"cuMemcpy2DAsync_v2", 0, s(3)},  // a null CUDA_MEMCPY2D
      {"cuMemcpy3DAsync_v2", 40 * 3 * 7, s(4)},
      {"cuMemcpy3DAsync_v2_ptsz", 40 * 3 * 7, s(5)},
      {"cuMemcpy3DAsync_v2", 0, s(6)},  // a null CUDA_MEMCPY3D
      {"cuMemcpyPeerAsync", 333, s(7)},
      {"cuMemcpyPeerAsync_ptsz", 334, s(8)},
      {"cuMemsetD2D8Async", 50 * 3, s(9)},
      {"cuMemsetD2D8Async_ptsz", 50 * 3, s(10)},
      {"cuMemsetD2D16Async", 50 * 2 * 3, s(11)},
      {"cuMemsetD2D16Async_ptsz", 50 * 2 * 3, s(12)},
      {"cuMemsetD2D32Async", 50 * 4 * 3, s(13)},
      {"cuMemsetD2D32Async_ptsz", 50 * 4 * 3, s(14)},
      {"cuMemcpyBatchAsync_v2", 10 + 20 + 30, s(15)},
      {"cuMemcpyBatchAsync_v2_ptsz", 10 + 20, s(16)},  // a count of 2: the first two sizes
      {"cuMemcpyBatchAsync_v2", 0, s(17)},             // no sizes array
      {"cuMemcpy3DPeerAsync", 24 * 2 * 3, s(18)},
      {"cuMemcpy3DPeerAsync_ptsz", 24 * 2 * 3, s(19)},
      {"cuMemcpy3DPeerAsync", 0, s(20)},  // a null CUDA_MEMCPY3D_PEER
      {"cuMemcpy3DBatchAsync_v2", 8 * 2 * 1 + 4 * 3 * 2, s(21)},
      {"cuMemcpy3DBatchAsync_v2_ptsz", 8 * 2 * 1, s(22)},  // a count of 1: the first operation
      {"cuMemcpy3DBatchAsync_v2", 0, s(23)},                // no operations list
      // CUDA 12.8's, with failIdx before the stream: a wrapper that took them for the _v2's would
      // record the failIdx pointer as the stream.
      {"cuMemcpyBatchAsync", 10 + 20 + 30, s(24)},
      {"cuMemcpyBatchAsync_ptsz", 10, s(25)},
      {"cuMemcpy3DBatchAsync", 8 * 2 * 1 + 4 * 3 * 2, s(26)},
      {"cuMemcpy3DBatchAsync_ptsz", 8 * 2 * 1, s(27)},
  };
  // Through cuGetProcAddress: the per-thread flag's answers are the _ptsz hooks, the legacy
  // flag's the plain ones; the unversioned names are answered with the _v2 hooks. The program
  // asks for each name with the per-thread flag, then each with the legacy one.
  struct Lookup {
    const char* name;
    const char* hook;
    uint64_t bytes;
  };
  const Lookup lookups[] = {
      {"cuMemcpy2DAsync", "cuMemcpy2DAsync_v2", 96 * 5}, {"cuMemcpy3DAsync", "cuMemcpy3DAsync_v2", 40 * 3 * 7},
      {"cuMemcpyPeerAsync", "cuMemcpyPeerAsync", 77},     {"cuMemsetD2D8Async", "cuMemsetD2D8Async", 9 * 2},
      {"cuMemsetD2D16Async", "cuMemsetD2D16Async", 9 * 2 * 2},
      {"cuMemsetD2D32Async", "cuMemsetD2D32Async", 9 * 4 * 2},
      {"cuMemcpyBatchAsync", "cuMemcpyBatchAsync_v2", 5 + 6},
      {"cuMemcpy3DPeerAsync", "cuMemcpy3DPeerAsync", 24 * 2 * 3},
      {"cuMemcpy3DBatchAsync", "cuMemcpy3DBatchAsync_v2", 8 * 2 * 1 + 4 * 3 * 2},
  };
  for (const bool per_thread : {true, false}) {
    for (size_t i = 0; i < std::size(lookups); ++i) {
      expected.push_back({std::string(lookups[i].hook) + (per_thread ? "_ptsz" : ""), lookups[i].bytes, r(i + 1),
                          std::string(lookups[i].name) + (per_thread ? "/per-thread" : "/legacy")});
    }
  }
  // The batches' names asked for by CUDA 12.8: the hooks of CUDA 12.8's functions, so the same
  // name gets either ABI's hook, never the other's (a _v2 hook called with failIdx would take it
  // for the stream).
  const auto older = [](uint64_t i) { return uint64_t{0x5300} + i; };
  for (const bool per_thread : {true, false}) {
    const std::string suffix = per_thread ? "_ptsz" : "", tag = per_thread ? "/per-thread-12.8" : "/legacy-12.8";
    expected.push_back({"cuMemcpyBatchAsync" + suffix, 7 + 8, older(1), "cuMemcpyBatchAsync" + tag});
    expected.push_back({"cuMemcpy3DBatchAsync" + suffix, 8 * 2 * 1, older(2), "cuMemcpy3DBatchAsync" + tag});
  }
  for (int status : check_run("shim_async_copies_driver", expected)) {
    EXPECT_EQ(status, 0) << "the null driver answers CUDA_SUCCESS";
  }
}

}  // namespace
}  // namespace cublasspy::integration
