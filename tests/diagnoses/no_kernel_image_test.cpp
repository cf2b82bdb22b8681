// no-kernel-image: a kernel of the program's own (programs/diag_kernel_image.cu, built by nvcc)
// launched on the stand-in, whose device is of compute capability 9.0 and which runs no device
// code: every launch returns 209, as on a GPU the build has no code for. Built for sm_80 with
// compute_100 PTX, the build has nothing a 9.0 GPU runs: the finding names the device, the
// program's SASS and PTX, and the build to install. Built for sm_80 with compute_90 PTX, it has
// code only as PTX the driver compiles: the finding says so, why that can fail, and the build
// with SASS. Built for sm_80 and sm_90, it has: the finding says so and names the other causes
// of 209.
#include <fstream>

#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

// A variant's run: it failed its launch and reported it, in one trace.
TracedRun run_kernel_image(const std::string& variant) {
  const std::string program = program_path("diag_kernel_image_" + variant);
  EXPECT_TRUE(std::ifstream(program).good()) << program << " was not built: it needs nvcc (CUBLASSPY_NVCC)";
  TracedRun run = run_traced(program, RunOptions{});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(contains(run.output, "launch: no kernel image is available for execution on the device")) << run.output;
  EXPECT_EQ(run.opened.size(), 1u);
  return run;
}

// What the shim recorded of the program's object at the launch: "PATH\tSTATE\tARCHS".
std::string image_object(const TracedRun& run) {
  return run.opened.empty() ? std::string() : run.opened[0].process().get("image.object");
}

TEST(NoKernelImage, ABuildWithoutCodeForTheGpuIsNamedWithWhatToInstall) {
  TracedRun run = run_kernel_image("lacks");
  ASSERT_EQ(run.opened.size(), 1u);
  EXPECT_EQ(run.opened[0].process().get("image.device"), "9.0");
  EXPECT_TRUE(contains(image_object(run), "/diag_kernel_image_lacks\tread\tsm_80 compute_100")) << image_object(run);

  auto found = run.diagnose();
  ASSERT_EQ(with_id(found, "no-kernel-image").size(), 1u) << explain(run, found);
  const Diagnosis& d = the_finding(found, "no-kernel-image");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_EQ(d.summary,
            "no kernel image for this GPU: compute capability 9.0, and diag_kernel_image_lacks carries only SASS "
            "for sm_80 and PTX for compute_100")
      << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "double_all(float*, int) (__cudaLaunchKernel, launch #")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "compute capability 9.0")) << d.evidence;
  EXPECT_TRUE(d.launch.has_value());
  EXPECT_TRUE(contains(d.advice, "Install a build with sm_90")) << d.advice;
  EXPECT_TRUE(contains(d.advice, "-gencode arch=compute_90,code=sm_90")) << d.advice;
  // The program reported it (cudaGetErrorString): said once, here.
  EXPECT_FALSE(has_id(found, "reported-error")) << explain(run, found);
}

TEST(NoKernelImage, ABuildWithOnlyPtxForTheGpuSaysTheDriverMustCompileIt) {
  TracedRun run = run_kernel_image("ptx");
  EXPECT_TRUE(contains(image_object(run), "/diag_kernel_image_ptx\tread\tsm_80 compute_90")) << image_object(run);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "no-kernel-image");
  EXPECT_EQ(d.summary,
            "no kernel image for this GPU: compute capability 9.0, and diag_kernel_image_ptx carries SASS for sm_80 "
            "and PTX for compute_90: for this GPU, only PTX (compute_90) that the driver must compile")
      << explain(run, found);
  for (const char* words : {"only as PTX", "PTX newer than the driver can compile", "Install a build with sm_90"}) {
    EXPECT_TRUE(contains(d.advice, words)) << d.advice;
  }
}

TEST(NoKernelImage, ABuildWithCodeForTheGpuSaysSoAndWhatElseGivesTheError) {
  TracedRun run = run_kernel_image("has");
  EXPECT_TRUE(contains(image_object(run), "/diag_kernel_image_has\tread\tsm_80 sm_90")) << image_object(run);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "no-kernel-image");
  EXPECT_EQ(d.summary,
            "no kernel image for double_all(float*, int) although diag_kernel_image_has carries code for this GPU "
            "(compute capability 9.0)")
      << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "SASS for sm_80 sm_90 and no PTX")) << d.evidence;
  for (const char* words : {"The build has code for this GPU", "the kernel in another library"}) {
    EXPECT_TRUE(contains(d.advice, words)) << d.advice;
  }
  EXPECT_FALSE(contains(d.advice, "Install a build")) << d.advice;
}

}  // namespace
}  // namespace cublasspy::test
