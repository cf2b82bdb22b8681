// mixed-cuda-libraries from real loads: a second copy of libcublas dlopen'ed by path, NVIDIA's
// real libcublas loaded next to the stand-in's libcublasLt (the load fails on a missing symbol:
// two builds that do not fit), and a binary whose RPATH outranks LD_LIBRARY_PATH.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "support/diagnose_helpers.h"

namespace cublasspy::test {
namespace {

namespace fs = std::filesystem;

// A copy of the stand-in's libcublas in a directory of its own (removed with the object).
struct CopiedLibrary {
  fs::path dir;
  fs::path file;
  CopiedLibrary() {
    dir = fs::temp_directory_path() / ("cbs-copy-" + std::to_string(getpid()));
    fs::create_directories(dir);
    file = dir / "libcublas.so.13";
    fs::copy_file(fs::path(standin_dir()) / "libcublas.so.13", file, fs::copy_options::overwrite_existing);
  }
  ~CopiedLibrary() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

TEST(MixedCudaLibraries, TwoCopiesOfLibcublas) {
  CopiedLibrary copy;
  RunOptions o;
  o.args = {copy.file.string()};
  TracedRun run = run_traced(program_path("diag_second_cublas"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "mixed-cuda-libraries");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.evidence, "2 copies of libcublas")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, copy.file.string())) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, standin_dir() + "/libcublas.so.13")) << d.evidence;
  ASSERT_TRUE(d.call && d.pid);
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "dlopen") << "the load that brought the copy";
  EXPECT_TRUE(contains(d.advice, "LD_LIBRARY_PATH")) << d.advice;
}

TEST(MixedCudaLibraries, RealLibcublasNextToAnotherLibcublasLt) {
  const fs::path real = fs::path(cuda_libdir()) / "libcublas.so.13";
  ASSERT_TRUE(fs::exists(real)) << "no " << real << " (a toolkit of another major? this test names the library)";
  RunOptions o;
  o.args = {real.string()};
  TracedRun run = run_traced(program_path("diag_second_cublas"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "mixed-cuda-libraries");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.evidence, "built for another version")) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "undefined symbol")) << d.evidence;
}

TEST(MixedCudaLibraries, RpathOutranksLdLibraryPath) {
  // The binary's DT_RPATH names the stand-in; LD_LIBRARY_PATH names the real toolkit, which
  // holds the same file names: the process gets the stand-in's.
  RunOptions o;
  o.stack = Stack::kRealLibraries;
  o.env["LD_LIBRARY_PATH"] = cuda_libdir();
  TracedRun run = run_traced(program_path("diag_second_cublas_rpath"), o);
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "mixed-cuda-libraries");
  EXPECT_EQ(d.severity, Severity::kWarning) << explain(run, found);
  EXPECT_TRUE(contains(d.evidence, "although LD_LIBRARY_PATH lists " + cuda_libdir())) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "was loaded from " + standin_dir())) << d.evidence;
}

TEST(MixedCudaLibraries, OneCopyIsFine) {
  TracedRun run = run_traced(program_path("diag_second_cublas"), RunOptions{});
  auto found = run.diagnose();
  ASSERT_EQ(run.opened.size(), 1u);
  // The shim's own "is libcublas.so.12 loaded?" probes fail in every run: they are no evidence.
  EXPECT_FALSE(has_id(found, "mixed-cuda-libraries")) << explain(run, found);
}

TEST(MixedCudaLibraries, RealLibrariesAloneAreFine) {
  RunOptions o;
  o.stack = Stack::kRealLibraries;
  TracedRun run = run_traced(program_path("diag_second_cublas"), o);
  auto found = run.diagnose();
  EXPECT_FALSE(has_id(found, "mixed-cuda-libraries")) << explain(run, found);
}

}  // namespace
}  // namespace cublasspy::test
