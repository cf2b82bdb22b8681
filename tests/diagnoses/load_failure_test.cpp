// A load that failed on a CUDA library's copy (src/diagnose/load_failure.h, the shim's dlerror
// record, src/machine/library_resolution.h): the loader's error read, the copies of a soname found
// in the loader's order in a fake tree and in this machine's ld.so cache, the finding's words,
// and a real run in which the real libcublas finds the stand-in's libcublasLt already loaded.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "diagnose/load_failure.h"
#include "support/diagnose_helpers.h"
#include "support/process.h"
#include "machine/library_resolution.h"

namespace cublasspy::test {
namespace {

namespace fs = std::filesystem;
using diagnoses::load_failure_finding;
using diagnoses::parse_load_error;
using test_support::ProcessResult;
using test_support::run_process;
using test_support::ScratchDir;

const char* const kFieldError =
    "/lib/x86_64-linux-gnu/libcublas.so.12: undefined symbol: cublasLtHHHMatmul, version libcublasLt.so.12";

TEST(LoadFailure, ReadsTheLoadersErrors) {
  auto e = parse_load_error(std::string("ImportError: ") + kFieldError);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->object, "/lib/x86_64-linux-gnu/libcublas.so.12");
  EXPECT_EQ(e->symbol, "cublasLtHHHMatmul");
  EXPECT_EQ(e->provider, "libcublasLt.so.12");
  // Without a version, libcublas's symbols are libcublasLt's.
  e = parse_load_error("/x/libcublas.so.13: undefined symbol: cublasLtMatmul");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->provider, "libcublasLt.so.13");
  e = parse_load_error("/x/libcublasLt.so.12: version `libcublasLt.so.12' not found (required by /y/libcublas.so.12)");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->object, "/y/libcublas.so.12");
  EXPECT_EQ(e->provider, "libcublasLt.so.12");
  EXPECT_EQ(e->provider_path, "/x/libcublasLt.so.12");
  EXPECT_EQ(e->symbol, "");
  // Not a CUDA library's symbol, or no symbol at all.
  EXPECT_FALSE(parse_load_error("/x/libfoo.so.1: undefined symbol: bar, version libbar.so.2"));
  EXPECT_FALSE(parse_load_error("libcudart.so.12: cannot open shared object file: No such file or directory"));
}

TEST(LoadFailure, NamesTheSonamesAndDirectoriesOfAnError) {
  EXPECT_EQ(cuda_sonames_in(kFieldError), (std::vector<std::string>{"libcublas.so.12", "libcublasLt.so.12"}));
  EXPECT_EQ(cuda_sonames_in("libcudart.so.13: cannot open shared object file"), std::vector<std::string>{"libcudart.so.13"});
  EXPECT_EQ(cuda_library_directories_in(kFieldError), std::vector<std::string>{"/lib/x86_64-linux-gnu"});
  EXPECT_TRUE(names_cuda_library(kFieldError));
  EXPECT_FALSE(names_cuda_library("/x/libfoo.so: undefined symbol: bar"));
}

// A fake tree: LD_LIBRARY_PATH's directory holds an old libcublasLt, the default directory the
// library's own release; the loader takes the first, and each says where it came from.
TEST(LoadFailure, FindsTheCopiesInTheLoadersOrder) {
  ScratchDir root;
  auto install = [&](const std::string& dir, const std::string& file) {
    fs::create_directories(root.path() + dir);
    std::ofstream(root.path() + dir + "/" + file) << "not an ELF file";
    fs::create_symlink(file, root.path() + dir + "/libcublasLt.so.12");
  };
  install("/opt/old", "libcublasLt.so.12.1.3.1");
  install("/usr/lib/x86_64-linux-gnu", "libcublasLt.so.12.4.5.8");
  ResolutionSource source;
  source.root = root.path();
  source.ld_library_path = "/nonexistent:/opt/old/";
  source.beside = {"/usr/lib/x86_64-linux-gnu"};
  const std::vector<LibraryCopy> copies = resolve_soname("libcublasLt.so.12", source);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].path, "/opt/old/libcublasLt.so.12");
  EXPECT_EQ(copies[0].version, "12.1.3.1");
  EXPECT_EQ(copies[0].via, "LD_LIBRARY_PATH");
  EXPECT_EQ(copies[0].origin, "system");  // under /opt
  EXPECT_EQ(copies[1].path, "/usr/lib/x86_64-linux-gnu/libcublasLt.so.12");
  EXPECT_EQ(copies[1].version, "12.4.5.8");
  EXPECT_EQ(copies[1].via, "default");  // found there before the look beside libcublas: once
  LibraryCopy back;
  ASSERT_TRUE(library_copy_from_entry(library_copy_entry(copies[0]), back));
  EXPECT_EQ(back.path, copies[0].path);
  EXPECT_EQ(back.via, "LD_LIBRARY_PATH");
}

// This machine's /etc/ld.so.cache read as the loader reads it: what `ldconfig -p` says of libc.
TEST(LoadFailure, ReadsThisMachinesLdSoCache) {
  std::ifstream in("/etc/ld.so.cache", std::ios::binary);
  ASSERT_TRUE(in) << "no /etc/ld.so.cache";
  const std::string cache((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<std::string> paths = ld_cache_paths(cache, "libc.so.6");
  ASSERT_FALSE(paths.empty());
  const ProcessResult p = run_process({"/sbin/ldconfig", "-p"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_TRUE(contains(p.out, "libc.so.6 (libc6,x86-64) => " + paths.front())) << paths.front() << "\n" << p.out;
  EXPECT_TRUE(ld_cache_paths(cache, "libno-such-library.so.1").empty());
  EXPECT_TRUE(ld_cache_paths("not a cache", "libc.so.6").empty());
}

TEST(LoadFailure, TheFindingNamesBothCopiesTheSymbolAndTheSetting) {
  const std::vector<LibraryCopy> copies = {
      {"libcublas.so.12", "/lib/x86_64-linux-gnu/libcublas.so.12", "12.4.5.8", "system", "ld.so.cache"},
      {"libcublasLt.so.12", "/opt/old/libcublasLt.so.12", "12.1.3.1", "system", "LD_LIBRARY_PATH"},
      {"libcublasLt.so.12", "/lib/x86_64-linux-gnu/libcublasLt.so.12", "12.4.5.8", "system", "ld.so.cache"},
  };
  const auto d = load_failure_finding("import torch failed", kFieldError, copies, std::string("/opt/old"));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->id, "cublas-lt-mismatch");
  EXPECT_EQ(d->severity, Severity::kError);
  const std::string words = d->summary + " " + d->evidence;
  for (const char* w : {"/opt/old/libcublasLt.so.12", "12.1.3.1", "/lib/x86_64-linux-gnu/libcublasLt.so.12", "12.4.5.8",
                        "cublasLtHHHMatmul", "LD_LIBRARY_PATH=/opt/old", "import torch failed"}) {
    EXPECT_TRUE(contains(words, w)) << w << " not in: " << words;
  }
  EXPECT_TRUE(contains(d->advice, "take /opt/old out of LD_LIBRARY_PATH")) << d->advice;
  // Another CUDA library's missing symbol is mixed-cuda-libraries.
  const auto other = load_failure_finding("a dlopen failed", "/x/libcudnn.so.9: undefined symbol: cudaFoo, version libcudart.so.12",
                                          {}, std::nullopt);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->id, "mixed-cuda-libraries");
  EXPECT_FALSE(load_failure_finding("x", "/x/libfoo.so: undefined symbol: bar", copies, std::nullopt).has_value());
}

// The real libcublas dlopen'ed while the stand-in's libcublasLt is loaded: the load fails on a
// symbol the stand-in lacks, and the program reads the error with dlerror. The trace names the
// loaded copy as the one the loader took and the real one beside libcublas.
TEST(LoadFailure, RealLibcublasFindsTheLoadedStandinLt) {
  const fs::path real = fs::path(cuda_libdir()) / "libcublas.so.13";
  ASSERT_TRUE(fs::exists(real)) << "no " << real;
  RunOptions o;
  o.args = {real.string()};
  TracedRun run = run_traced(program_path("diag_second_cublas"), o);
  ASSERT_TRUE(contains(run.output, "undefined symbol")) << run.output;
  auto found = run.diagnose();
  const Diagnosis& d = the_finding(found, "cublas-lt-mismatch");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(contains(d.evidence, standin_dir() + "/libcublasLt.so.13")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, "an earlier load")) << d.evidence;
  EXPECT_TRUE(contains(d.evidence, cuda_libdir())) << d.evidence;
  ASSERT_TRUE(d.call && d.pid) << d.evidence;
  EXPECT_EQ(function_of_call(run, *d.pid, *d.call), "dlopen");
  // The program's own dlerror text is unchanged by the shim.
  EXPECT_TRUE(contains(run.output, "dlopen " + real.string() + ": " + real.string() + ": undefined symbol")) << run.output;
}

// A CUDA library the program dlopens that is not there: its dlopen record says so (no-driver
// and the others read it); the program's dlerror text is not recorded a second time.
TEST(LoadFailure, AMissingLibraryIsTheDlopenRecordsAlone) {
  const std::string missing = "/nonexistent/libcublas.so.13";
  RunOptions o;
  o.args = {missing};
  TracedRun run = run_traced(program_path("diag_second_cublas"), o);
  ASSERT_TRUE(contains(run.output, "dlopen " + missing + ": " + missing + ": cannot open shared object file")) << run.output;
  ASSERT_EQ(run.opened.size(), 1u);
  EXPECT_TRUE(run.opened[0].process().all("load.failed").empty());
  EXPECT_TRUE(run.opened[0].process().all("load.library").empty());
  // The real libcublas beside the loaded stand-in's libcublasLt is recorded (its finding needs
  // the copies), once, although the hook and the program both read the text.
  RunOptions real;
  real.args = {(fs::path(cuda_libdir()) / "libcublas.so.13").string()};
  TracedRun mismatch = run_traced(program_path("diag_second_cublas"), real);
  ASSERT_EQ(mismatch.opened.size(), 1u);
  EXPECT_EQ(mismatch.opened[0].process().all("load.failed").size(), 1u);
  EXPECT_FALSE(mismatch.opened[0].process().all("load.library").empty());
}

}  // namespace
}  // namespace cublasspy::test
