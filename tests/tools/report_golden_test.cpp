// The text report against golden files: simple_gemm's calls as `report --all` lists them, on the
// real libraries (driverless: every call fails) and on the stand-in (every call succeeds, the
// scalars are read). What changes from run to run is made symbolic first: addresses become
// <A0>, <handle0>, <alpha0> (numbered per argument in order of appearance, 0x0 kept), and
// sequence numbers, times, thread ids and durations become placeholders. Only the program's own
// calls are compared, so hooks added later (cudaMalloc, dlopen) do not disturb the files.
//
// To accept a new output: CUBLASSPY_UPDATE_GOLDEN=1 ctest -R tools.ReportGolden
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "support/tool_tests.h"

namespace cublasspy::tools::testing {
namespace {

const char* const kProgramFunctions[] = {"cudaGetDeviceCount(", "cublasCreate_v2(", "cublasSetStream_v2(",
                                         "cublasSetPointerMode_v2(", "cublasSgemm_v2(", "cublasGemmEx(",
                                         "cublasDestroy_v2("};

// Addresses by argument: a -> <A0>, handle -> <handle0>; the same value keeps its name.
class AddressNames {
 public:
  std::string name(const std::string& arg, const std::string& value) {
    if (value == "0x0") return value;
    std::string label = arg.size() == 1 ? std::string(1, static_cast<char>(std::toupper(arg[0]))) : arg;
    auto& values = seen_[label];
    auto it = values.find(value);
    if (it == values.end()) it = values.emplace(value, values.size()).first;
    return "<" + label + std::to_string(it->second) + ">";
  }

 private:
  std::map<std::string, std::map<std::string, size_t>> seen_;
};

std::string symbolic(const std::string& report_text) {
  static const std::regex kSeq(R"(#\d+\s+)"), kTime(R"(\+\d+\.\d+ ms)"), kTid(R"(tid \d+)"),
      kDuration(R"(  \d+(\.\d+)? (ns|us|ms|s)$)"), kAddress(R"((\w+)=(@?)(0x[0-9a-f]+))");
  AddressNames names;
  std::istringstream in(report_text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    bool ours = false;
    for (const char* f : kProgramFunctions) ours = ours || line.find(std::string("  ") + f) != std::string::npos;
    if (!ours) continue;
    line = std::regex_replace(line, kSeq, "#<seq> ");
    line = std::regex_replace(line, kTime, "+<time>");
    line = std::regex_replace(line, kTid, "tid <tid>");
    line = std::regex_replace(line, kDuration, "  <duration>");
    std::string rewritten;
    auto begin = std::sregex_iterator(line.begin(), line.end(), kAddress);
    size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      rewritten += line.substr(last, m.position() - last);
      rewritten += m[1].str() + "=" + m[2].str() + names.name(m[1].str(), m[3].str());
      last = m.position() + m.length();
    }
    out += rewritten + line.substr(last) + "\n";
  }
  return out;
}

void expect_golden(const std::string& actual, const std::string& name) {
  std::string path = kGoldenDir + "/" + name;
  const char* update = std::getenv("CUBLASSPY_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    write_file(path, actual);
    GTEST_SKIP() << "wrote " << path;
  }
  std::string expected = read_file(path);
  EXPECT_EQ(actual, expected) << "golden file " << path
                              << " differs; rerun with CUBLASSPY_UPDATE_GOLDEN=1 to accept the output above";
}

std::string report_all_text(const std::string& trace) {
  ProcessResult r = run_process({kTool, "report", "--all", trace}, {{"NO_COLOR", "1"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(ReportGolden, SymbolicNamesAreStable) {
  // The normalization itself: one value keeps one name, 0x0 stays, others count up.
  std::string line = "  #12    +1.500 ms  tid 77  cublasSgemm_v2(handle=0x55aa, a=0x10, b=0x0, c=0x10, "
                     "alpha=@0x7ffd) -> CUBLAS_STATUS_SUCCESS (0)  3.1 us\n";
  EXPECT_EQ(symbolic(line),
            "  #<seq> +<time>  tid <tid>  cublasSgemm_v2(handle=<handle0>, a=<A0>, b=0x0, c=<C0>, "
            "alpha=@<alpha0>) -> CUBLAS_STATUS_SUCCESS (0)  <duration>\n");
}

TEST(ReportGolden, SimpleGemmOnTheRealLibraries) {
  ScratchDir dir;
  std::string trace = trace_simple_gemm(dir);
  ASSERT_FALSE(trace.empty());
  std::string text = symbolic(report_all_text(trace));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7) << text;
  expect_golden(text, "simple_gemm_real.txt");
}

TEST(ReportGolden, SimpleGemmOnTheStandin) {
  ASSERT_TRUE(standin_built()) << "the CPU stand-in is missing from " << kStandinDir << ": every test build makes it";
  ScratchDir dir;
  std::string trace = trace_simple_gemm(dir, on_standin());
  ASSERT_FALSE(trace.empty());
  std::string text = symbolic(report_all_text(trace));
  // Seven calls, less the pointer mode set to what the new handle holds (counted, not listed).
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6) << text;
  expect_golden(text, "simple_gemm_standin.txt");
}

}  // namespace
}  // namespace cublasspy::tools::testing
