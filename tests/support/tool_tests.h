// What the tool tests share: running a program with a changed environment and capturing what
// it printed, a scratch directory per test, and the paths of the things under test (given by
// tools.cmake as compile definitions).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cublasspy::tools::testing {

inline const std::string kTool = CUBLASSPY_TOOL;           // bin/cublasspy
inline const std::string kShim = CUBLASSPY_SHIM;           // lib/libcublasspy.so
inline const std::string kSimpleGemm = SIMPLE_GEMM;        // tests/programs/simple_gemm.cpp
inline const std::string kStandinDir = STANDIN_DIR;        // <build>/standin
inline const std::string kEmptyPreload = EMPTY_PRELOAD;    // a library that does nothing
inline const std::string kGoldenDir = GOLDEN_DIR;          // tests/tools/golden

struct ProcessResult {
  int exit_code = -1;   // when it exited
  int signal = 0;       // when a signal ended it
  std::string out;
  std::string err;
  int shell_status() const { return signal ? 128 + signal : exit_code; }
};

// Variables to set (a value) or remove (nullopt) for the child, on top of this environment.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

// Runs argv (searched in PATH) to completion, stdout and stderr captured apart.
ProcessResult run_process(const std::vector<std::string>& argv, const EnvChanges& env = {},
                          const std::string& cwd = "");

// A fresh directory, removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  // The files in the directory whose names end with `suffix`, sorted.
  std::vector<std::string> files(const std::string& suffix = ".cbt") const;

 private:
  std::string path_;
};

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

// The environment that sends simple_gemm to the CPU stand-in instead of the real libraries.
bool standin_available();
EnvChanges on_standin();
// The environment that records into `dir` with the shim preloaded (no `run`).
EnvChanges traced_into(const TempDir& dir);

// Runs simple_gemm under the shim (real libraries unless `env` says otherwise) and returns the
// one trace it wrote; fails the test (ADD_FAILURE) and returns "" if there is not exactly one.
std::string trace_simple_gemm(const TempDir& dir, EnvChanges env = {});

// `cublasspy report --json [--all] TRACE...`, parsed.
nlohmann::ordered_json report_json(const std::vector<std::string>& traces, bool all = true);

// The calls of `trace` (a report's trace object) made to `function`.
std::vector<nlohmann::ordered_json> calls_to(const nlohmann::ordered_json& trace, const std::string& function);

}  // namespace cublasspy::tools::testing
