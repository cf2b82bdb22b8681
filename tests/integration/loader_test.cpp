// The shim exports dlopen and dlsym; both must keep glibc's caller-relative behaviour: a bare
// name is searched along the CALLER's RUNPATH (with $ORIGIN being the caller's directory), and
// dlsym(RTLD_NEXT) from another preloaded library finds what follows THAT library.
#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/shim_tests.h"

namespace cublasspy::integration {
namespace {

namespace fs = std::filesystem;

std::string loaded_path(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(R"(loaded (\S+))"))) return "";
  std::error_code ec;
  fs::path p = fs::canonical(m[1].str(), ec);
  return ec ? m[1].str() : p.string();
}

TEST(Loader, BareNameDlopenFollowsTheCallersRunpath) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  const std::string subject = program("shim_runpath_dlopen");
  // Precondition: the program's RUNPATH, not LD_LIBRARY_PATH, leads to the stand-in.
  ProcessResult elf = run_process({"readelf", "-d", subject}, {}, isolated_in(dir));
  ASSERT_NE(elf.out.find("RUNPATH"), std::string::npos) << elf.out;
  ASSERT_NE(elf.out.find("$ORIGIN/../standin"), std::string::npos) << elf.out;

  const std::string standin = fs::canonical(kStandinDir + "/libcublas.so.13").string();
  ProcessResult plain = run_process({subject}, {}, isolated_in(dir));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  ASSERT_EQ(loaded_path(plain.out), standin) << "glibc alone loads the stand-in";

  ProcessResult r = run_process({subject}, traced(dir), isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(loaded_path(r.out), standin) << "under the shim the same library must load\n" << r.out;

  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);
  bool found = false;
  for (const CallView& load : calls_of(*trace, "dlopen")) {
    if (text_arg(load, "filename") != "libcublas.so.13") continue;
    found = true;
    EXPECT_EQ(load.rec().status, 0);
    std::error_code ec;
    EXPECT_EQ(fs::canonical(text_arg(load, "result"), ec).string(), standin) << text_arg(load, "result");
  }
  EXPECT_TRUE(found) << "the program's dlopen was recorded";
}

// A load that fails must fail exactly as without the shim: NULL, dlerror()'s text for the
// program to read, and nothing loaded (no constructor run) behind its back.
TEST(Loader, FailedDlopenStaysFailedWithItsError) {
  ScratchDir dir;
  const std::vector<std::string> argv = {program("shim_failing_dlopen"),
                                         program("libcudnn_shim_test_unresolved.so")};
  ProcessResult plain = run_process(argv, {}, isolated_in(dir));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  ASSERT_NE(plain.out.find("dlopen failed\ndlerror "), std::string::npos) << plain.out;
  ASSERT_NE(plain.out.find("undefined symbol"), std::string::npos) << plain.out;

  ProcessResult r = run_process(argv, traced(dir), isolated_in(dir));
  ASSERT_TRUE(r.exited_ok()) << r.describe();
  EXPECT_EQ(r.out, plain.out) << "the shim changed what the program saw";
  EXPECT_EQ(r.out.find("constructor ran"), std::string::npos) << "the shim loaded the library anyway";

  auto trace = open_trace(trace_path(dir, r.pid));
  ASSERT_TRUE(trace);
  // The program's two calls: the failing load, then its RTLD_NOLOAD check (which finds nothing).
  auto loads = calls_of(*trace, "dlopen");
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].arg("flags"), uint64_t{RTLD_NOW});
  EXPECT_NE(loads[0].rec().status, 0);
  // The record keeps dlerror()'s text as far as its slots hold it (the library's path comes
  // first, so how much of the symbol's name fits depends on where the build is): a prefix of
  // what the program read, of at least 100 bytes or all of it.
  const size_t from = plain.out.find("dlerror ") + 8;
  const std::string said = plain.out.substr(from, plain.out.find('\n', from) - from);
  const std::string recorded = text_arg(loads[0], "result");
  EXPECT_GE(recorded.size(), std::min<size_t>(said.size(), 100)) << recorded;
  EXPECT_EQ(said.substr(0, recorded.size()), recorded) << said;
  EXPECT_NE(said.find("undefined symbol: shim_test_function_nobody_defines"), std::string::npos) << said;
  EXPECT_EQ(loads[1].arg("flags"), uint64_t{RTLD_NOW | RTLD_NOLOAD});
  EXPECT_NE(loads[1].rec().status, 0) << "nothing was loaded";
}

class RtldNext : public ::testing::TestWithParam<bool> {};

TEST_P(RtldNext, AnotherPreloadedLibraryStillFindsTheNextDefinition) {
  const bool shim_first = GetParam();
  const std::string wrapper = program("libshim_puts_wrapper.so");
  ScratchDir dir;
  ProcessResult plain = run_process({program("shim_say_hello")}, {{"LD_PRELOAD", wrapper}}, isolated_in(dir));
  ASSERT_TRUE(plain.exited_ok()) << plain.describe();
  ASSERT_EQ(plain.out, "[wrapped] hello\n");

  std::string preload = shim_first ? kShim + ":" + wrapper : wrapper + ":" + kShim;
  ProcessResult r = run_process({program("shim_say_hello")},
                                traced(dir) + Env{{"LD_PRELOAD", preload}}, isolated_in(dir, std::chrono::seconds(20)));
  EXPECT_TRUE(r.exited_ok()) << "LD_PRELOAD=" << preload << "\n" << r.describe();
  EXPECT_EQ(r.out, "[wrapped] hello\n") << "LD_PRELOAD=" << preload;
  EXPECT_TRUE(dir.files().empty()) << "no CUDA call, no trace";
}

INSTANTIATE_TEST_SUITE_P(BothOrders, RtldNext, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("ShimFirst") : std::string("ShimSecond");
                         });

}  // namespace
}  // namespace cublasspy::integration
