// Calls that never reach a preloaded definition and must be recorded anyway: dlopen(RTLD_LOCAL)
// + dlsym (ctypes, TensorFlow, JAX), Python ctypes itself, the static CUDA runtime (driver
// functions through cuGetProcAddress_v2), NVIDIA's own __nvcc_device_query; and a hook called
// before main from another library's constructor.
// And calls that reach it but must go on to one of two libraries: cuBLAS 12 and 13 in one process.
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

class PreloadRoutes : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  }
  // Runs argv on the stand-in with and without the shim; the outputs must match. Returns the
  // traced run.
  ProcessResult run_both(const std::vector<std::string>& argv, const Env& extra = {}) {
    ProcessResult plain = run_process(argv, on_standin() + extra, isolated_in(dir_));
    ProcessResult r = run_process(argv, traced(dir_) + on_standin() + extra, isolated_in(dir_));
    EXPECT_TRUE(plain.exited_ok()) << plain.describe();
    EXPECT_TRUE(r.exited_ok()) << r.describe();
    EXPECT_EQ(r.out, plain.out) << "the shim changed the program's output";
    return r;
  }
  ScratchDir dir_;
};

TEST_F(PreloadRoutes, DlopenLocalAndDlsymPointersAreRecorded) {
  ProcessResult r = run_both({program("shim_dlopen_local")});
  EXPECT_NE(r.out.find("cublasSgemm_v2 0 c 4 6 4 6"), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  auto create = calls_of(*trace, "cublasCreate_v2");
  auto gemm = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(create.size(), 1u);
  ASSERT_EQ(gemm.size(), 1u);
  EXPECT_EQ(create[0].rec().status, 0);
  EXPECT_EQ(gemm[0].rec().status, 0);
  EXPECT_EQ(gemm[0].arg("handle"), create[0].arg("handle"));
  EXPECT_EQ(gemm[0].arg("m"), 2u);
  EXPECT_EQ(gemm[0].rec().pointer_mode, 0) << "the handle created through dlsym is known";
  EXPECT_EQ(calls_of(*trace, "cudaMalloc").size(), 3u);
  EXPECT_EQ(calls_of(*trace, "cublasDestroy_v2").size(), 1u);
}

TEST_F(PreloadRoutes, PythonCtypesCallIsRecorded) {
  ASSERT_FALSE(kPython.empty()) << "no python3 was found at configure time (scripts/setup.sh installs it)";
  ProcessResult r = run_both({kPython, kSourceDir + "/programs/ctypes_device_count.py"},
                             {{"STANDIN_DEVICE_COUNT", "3"}});
  EXPECT_NE(r.out.find("cudaGetDeviceCount 0 count 3"), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  auto count = calls_of(*trace, "cudaGetDeviceCount");
  ASSERT_EQ(count.size(), 1u);
  EXPECT_EQ(count[0].rec().status, 0);
  EXPECT_EQ(count[0].arg("count"), 3u);
}

TEST_F(PreloadRoutes, StaticRuntimeReachesTheDriverThroughCuGetProcAddress) {
  std::string subject = program("shim_static_runtime_device_count");
  ASSERT_EQ(access(subject.c_str(), X_OK), 0) << subject << " was not built: the CUDA toolkit's libcudart_static.a is missing";
  // The stand-in cannot serve the static runtime's private export tables (cuGetExportTable
  // answers 801), so after cuInit the runtime gives up and cudaGetDeviceCount returns 801 there,
  // before any cuDeviceGetCount. What is tested is the way in: the runtime's dlopen of the
  // driver, and cuInit, which it can only have reached through cuGetProcAddress_v2.
  ProcessResult r = run_both({subject}, {{"STANDIN_DEVICE_COUNT", "2"}});
  EXPECT_NE(r.out.find("cudaGetDeviceCount "), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  bool loaded_driver = false;
  for (const CallView& load : calls_of(*trace, "dlopen")) {
    loaded_driver = loaded_driver || (text_arg(load, "filename") == "libcuda.so.1" && load.rec().status == 0);
  }
  EXPECT_TRUE(loaded_driver) << "the static runtime's dlopen(\"libcuda.so.1\") was recorded";
  auto init = calls_of(*trace, "cuInit");
  ASSERT_EQ(init.size(), 1u) << "cuInit was handed out by cuGetProcAddress_v2 as the shim's wrapper";
  EXPECT_EQ(init[0].rec().status, 0);
  EXPECT_EQ(init[0].arg("flags"), 0u);
  EXPECT_TRUE(calls_of(*trace, "cudaGetDeviceCount").empty()) << "the static runtime's own is invisible";
}

TEST_F(PreloadRoutes, NvidiasDeviceQueryIsRecordedAndUnchanged) {
  const std::string query = "/usr/local/cuda/bin/__nvcc_device_query";
  ASSERT_EQ(access(query.c_str(), X_OK), 0) << query << " was not built";
  ProcessResult r = run_both({query});
  EXPECT_FALSE(r.out.empty());
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  EXPECT_FALSE(calls_of(*trace, "cuInit").empty());
  auto count = calls_of(*trace, "cuDeviceGetCount");
  ASSERT_FALSE(count.empty());
  EXPECT_EQ(count.back().arg("count"), 1u) << "the stand-in's default: one device";
}

TEST_F(PreloadRoutes, HookCalledFromAnotherLibrarysConstructorBeforeMain) {
  ProcessResult r = run_both({program("shim_constructor_user")});
  EXPECT_NE(r.out.find("constructor cublasCreate_v2 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cublasSgemm_v2 0 c[0] 6"), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  auto create = calls_of(*trace, "cublasCreate_v2");
  auto gemm = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(create.size(), 1u);
  ASSERT_EQ(gemm.size(), 1u);
  EXPECT_EQ(create[0].rec().status, 0);
  EXPECT_LT(create[0].seq, gemm[0].seq);
  EXPECT_EQ(gemm[0].arg("handle"), create[0].arg("handle"));
  // The handle made before main was registered: its pointer mode, and so alpha, are known.
  EXPECT_EQ(gemm[0].rec().pointer_mode, 0);
  EXPECT_TRUE(gemm[0].rec().flags & format::kFlagAlphaKnown);
  EXPECT_EQ(gemm[0].rec().alpha[0], 3.0);
}

// cuBLAS 12 and 13 in one process (a library of the program links each, with its CUDA runtime):
// every call on a handle reaches the library that made it, whichever was made last, and every
// runtime call the runtime of the library that made it. The stand-ins tag their handles by
// major, so a cuBLAS call routed to the other library crashes there; an error made in one
// runtime and asked of the other (cudaGetLastError) is not found there.
constexpr const char* kEachRuntimeKeptItsError = "runtime errors kept: cuBLAS 12's runtime 10 cuBLAS 13's runtime 10";

TEST_F(PreloadRoutes, TwoCublasMajorsEachHandlesCallsReachItsLibrary) {
  ProcessResult r = run_both({program("shim_two_cublas_majors"), "3"});
  EXPECT_NE(r.out.find("round 2 cuBLAS 12 72 cuBLAS 13 72"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kEachRuntimeKeptItsError), std::string::npos) << r.out;
  auto trace = open_trace(trace_path(dir_, r.pid));
  ASSERT_TRUE(trace);
  auto create = calls_of(*trace, "cublasCreate_v2");
  auto gemm = calls_of(*trace, "cublasSgemm_v2");
  ASSERT_EQ(create.size(), 2u);
  ASSERT_EQ(gemm.size(), 6u);
  for (const CallView& g : gemm) EXPECT_EQ(g.rec().status, 0);
  EXPECT_NE(create[0].arg("handle"), create[1].arg("handle"));
  // Alternating: the first GEMM is on the handle made first, not on the last one made.
  EXPECT_EQ(gemm[0].arg("handle"), create[0].arg("handle"));
  EXPECT_EQ(gemm[1].arg("handle"), create[1].arg("handle"));
}

// The same program with the shim disabled: the pass-through routes each call as the recording does.
TEST_F(PreloadRoutes, TwoCublasMajorsUnderTheDisabledShim) {
  const std::vector<std::string> argv = {program("shim_two_cublas_majors"), "3"};
  ProcessResult plain = run_process(argv, on_standin(), isolated_in(dir_));
  ProcessResult r = run_process(argv, traced(dir_) + on_standin() + Env{{"CUBLASSPY_DISABLE", "1"}},
                                isolated_in(dir_));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  EXPECT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain.out);
  EXPECT_NE(r.out.find("round 2 cuBLAS 12 72 cuBLAS 13 72"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kEachRuntimeKeptItsError), std::string::npos) << r.out;
  EXPECT_TRUE(dir_.files().empty()) << "CUBLASSPY_DISABLE=1 writes no trace";
}

// A library using cuBLAS closed (cuBLAS and its runtime unloaded with it), then another, then
// the first again: each call reaches the library loaded now. The shim had kept the addresses it
// first found, and called them after their library was gone (signal 11 or 4, in every mode).
TEST_F(PreloadRoutes, CublasUnloadedAndLoadedAgain) {
  const std::vector<std::string> argv = {program("shim_reload_cublas")};
  ProcessResult plain = run_process(argv, on_standin(), isolated_in(dir_));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  // What makes the test: each runtime really unloaded with the library that used it.
  ASSERT_NE(plain.out.find("cuBLAS 13 24, its runtime unloaded with it 1"), std::string::npos) << plain.out;
  ASSERT_NE(plain.out.find("cuBLAS 12 48, its runtime unloaded with it 1"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("cuBLAS 13 again 72"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("runtime errors kept: 10 10 10"), std::string::npos) << plain.out;
  for (const Env& mode : {Env{}, Env{{"CUBLASSPY_CHECK", "1"}}, Env{{"CUBLASSPY_DISABLE", "1"}}}) {
    ProcessResult r = run_process(argv, traced(dir_) + on_standin() + mode, isolated_in(dir_));
    EXPECT_TRUE(r.exited_ok()) << r.describe();
    EXPECT_EQ(r.out, plain.out) << "the shim changed the program's output";
    if (!mode.empty()) continue;
    auto trace = open_trace(trace_path(dir_, r.pid));
    ASSERT_TRUE(trace);
    auto gemm = calls_of(*trace, "cublasSgemm_v2");
    ASSERT_EQ(gemm.size(), 3u);
    for (const CallView& g : gemm) EXPECT_EQ(g.rec().status, 0);
  }
}

// A second major loaded beside the first by a plug-in's own dlopen, which the shim does not
// follow. Looked up on its handle: seen at that look-up, before the plug-in's first runtime
// call (a function the first library called before, whose default binding was the first
// major's). Found by name alone: the first call of a runtime function nobody called before
// still reaches the caller's own runtime (the shim looked at the loaded libraries only after
// choosing where that call went, and sent it to the newer major).
TEST_F(PreloadRoutes, SecondMajorLoadedLateSeenAtItsLookUp) {
  ProcessResult r = run_both({program("shim_second_major_late"), "local"});
  EXPECT_NE(r.out.find("before 13 was loaded 10; cuBLAS 13's runtime first 10; then 11 and 11"), std::string::npos)
      << r.out;
}

TEST_F(PreloadRoutes, SecondMajorLoadedLateFirstCallReachesItsRuntime) {
  ProcessResult r = run_both({program("shim_second_major_late"), "global"});
  EXPECT_NE(r.out.find("before 13 was loaded 10; cuBLAS 13's runtime first 0; then 11 and 11"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace cublasspy::integration
