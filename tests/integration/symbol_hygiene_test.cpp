// The shim is safe to load into any process: glibc's libraries only, only the hooks exported
// and unversioned, no effect on a program that makes no CUDA call, and a pure pass-through when
// disabled.
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

TEST(SymbolHygiene, NeedsOnlyGlibcLibraries) {
  ScratchDir dir;
  ProcessResult r = run_process({"readelf", "-d", kShim}, {}, isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  const std::set<std::string> allowed = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0",
                                         "ld-linux-x86-64.so.2"};
  std::regex needed(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])");
  int count = 0;
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), needed), end; it != end; ++it) {
    ++count;
    EXPECT_TRUE(allowed.count((*it)[1])) << "NEEDED " << (*it)[1];
  }
  EXPECT_GT(count, 0) << r.out;
}

TEST(SymbolHygiene, ExportsOnlyTheHooksUnversioned) {
  ScratchDir dir;
  ProcessResult r = run_process({"readelf", "--dyn-syms", "-W", kShim}, {}, isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  std::istringstream lines(r.out);
  std::set<std::string> exported;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cols(line);
    std::string num, value, size, type, bind, vis, ndx, name;
    if (!(cols >> num >> value >> size >> type >> bind >> vis >> ndx >> name)) continue;
    if (num.back() != ':' || ndx == "UND" || (bind != "GLOBAL" && bind != "WEAK")) continue;
    EXPECT_EQ(name.find('@'), std::string::npos) << name << " carries a version";
    EXPECT_TRUE(std::regex_match(
        name, std::regex("cu.*|__cudaLaunchKernel(_ptsz)?|dlsym|dlopen|dlerror|exec(ve|v|vp|vpe|veat|l|le|lp)|fexecve")))
        << name << " is not a hook";
    exported.insert(name.substr(0, name.find('@')));
  }
  for (const char* hook : {"cublasSgemm_v2", "cublasLtMatmul", "cudaGetDeviceCount", "cuGetProcAddress_v2",
                           "cublasSgemm", "dlsym", "dlopen", "dlerror", "execve", "execl", "cudaGetErrorString"}) {
    EXPECT_TRUE(exported.count(hook)) << hook << " is not exported";
  }
}

TEST(SymbolHygiene, PreloadedIntoLsChangesNothing) {
  ScratchDir dir;
  const std::vector<std::string> ls = {"ls", "-l", "--color=never", kSourceDir + "/programs"};
  ProcessResult plain = run_process(ls, {}, isolated_in(dir));
  ProcessResult r = run_process(ls, {{"LD_PRELOAD", kShim}}, isolated_in(dir));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  EXPECT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain.out);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(dir.files().empty()) << "a trace appeared without any CUDA call";
}

TEST(SymbolHygiene, DisabledShimIsAPurePassThrough) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  ProcessResult plain = run_process({program("shim_sgemm_loop"), "3"}, on_standin(), isolated_in(dir));
  ProcessResult r = run_process({program("shim_sgemm_loop"), "3"},
                                traced(dir) + on_standin() + Env{{"CUBLASSPY_DISABLE", "1"}}, isolated_in(dir));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  EXPECT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain.out) << "the calls work";
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(dir.files().empty()) << "CUBLASSPY_DISABLE=1 writes no trace";
}

}  // namespace
}  // namespace cublasspy::integration
