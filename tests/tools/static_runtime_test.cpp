// A program linked with the static CUDA runtime: the report says its runtime calls are
// invisible because the runtime is inside the program (cuBLAS loaded, no libcudart.so ever
// mapped), not "runtime unknown". A program on the shared runtime says "shared".
#include <string>

#include <gtest/gtest.h>

#include "support/tool_tests.h"

namespace cublasspy::tools::testing {
namespace {

const std::string kStaticProgram = std::string(CBS_TEST_PROGRAMS_DIR) + "/static_runtime_gemm";

TEST(StaticRuntime, ReportSaysTheRuntimeIsLinkedStatically) {
  ScratchDir dir;
  // The real CUDA 13 libraries (no driver here: the calls fail for real).
  ProcessResult r = run_process({kStaticProgram}, traced_into(dir));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  ASSERT_NE(r.out.find("cublasCreate_v2"), std::string::npos) << r.describe();
  std::vector<std::string> files = dir.files();
  ASSERT_EQ(files.size(), 1u) << r.describe();
  auto doc = report_json({files[0]});
  const auto& env = doc["traces"][0]["environment"];
  EXPECT_EQ(env["cuda_runtime_linkage"], "static") << env.dump();
  bool cudart = false, cublas = false;
  for (const auto& lib : env["libraries"]) {
    const std::string path = lib["path"].get<std::string>();
    cudart = cudart || path.find("libcudart.so") != std::string::npos;
    cublas = cublas || path.find("libcublas.so") != std::string::npos;
  }
  EXPECT_FALSE(cudart) << env.dump();
  EXPECT_TRUE(cublas) << env.dump();
  // The runtime's calls never reached the shim; cuBLAS's did.
  EXPECT_EQ(doc["traces"][0]["totals"]["by_function"].value("cudaMalloc", 0), 0) << doc["traces"][0]["totals"].dump();
  EXPECT_EQ(doc["traces"][0]["totals"]["by_function"].value("cublasCreate_v2", 0), 1) << doc["traces"][0]["totals"].dump();

  std::string text = run_process({kTool, "report", files[0]}, {{"NO_COLOR", "1"}}).out;
  EXPECT_NE(text.find("runtime linked statically into the program (no libcudart.so loaded: its calls are "
                      "invisible to the shim)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("runtime unknown"), std::string::npos) << text;
}

TEST(StaticRuntime, SharedRuntimeIsShared) {
  ScratchDir dir;
  std::string trace = trace_simple_gemm(dir);
  ASSERT_FALSE(trace.empty());
  auto env = report_json({trace})["traces"][0]["environment"];
  EXPECT_EQ(env["cuda_runtime_linkage"], "shared") << env.dump();
}

}  // namespace
}  // namespace cublasspy::tools::testing
