#include "support/tool_tests.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

extern char** environ;

namespace cublasspy::tools::testing {

namespace fs = std::filesystem;


Env on_standin() { return {{"LD_LIBRARY_PATH", kStandinDir}}; }

Env traced_into(const ScratchDir& dir) {
  // CUBLASSPY_KEEP=always: the tests read the traces of clean runs too.
  return {{"LD_PRELOAD", kShim}, {"CUBLASSPY_TRACE", dir / "trace-%p.cbt"}, {"NO_COLOR", "1"}, {"CUBLASSPY_KEEP", "always"}};
}

std::string trace_simple_gemm(const ScratchDir& dir, Env env) {
  Env all = traced_into(dir);
  for (const auto& [k, v] : env) all[k] = v;
  ProcessResult r = run_process({kSimpleGemm}, all);
  EXPECT_EQ(r.shell_status(), 0) << r.out << r.err;
  std::vector<std::string> traces = dir.files();
  if (traces.size() != 1) {
    ADD_FAILURE() << "expected one trace in " << dir.path() << ", found " << traces.size() << "\n" << r.err;
    return "";
  }
  return traces.front();
}

nlohmann::ordered_json report_json(const std::vector<std::string>& traces, bool all) {
  std::vector<std::string> argv{kTool, "report", "--json"};
  if (all) argv.push_back("--all");
  argv.insert(argv.end(), traces.begin(), traces.end());
  ProcessResult r = run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  try {
    return nlohmann::ordered_json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "report --json printed no JSON: " << e.what() << "\n" << r.out << r.err;
    return nlohmann::ordered_json::object();
  }
}

std::vector<nlohmann::ordered_json> calls_to(const nlohmann::ordered_json& trace, const std::string& function) {
  std::vector<nlohmann::ordered_json> out;
  if (!trace.contains("calls")) return out;
  for (const auto& c : trace["calls"]) {
    if (c.value("function", "") == function) out.push_back(c);
  }
  return out;
}

}  // namespace cublasspy::tools::testing
