// What the tool and replay tests share: the paths of the things under test (compile definitions
// from tests/support/support.cmake), the environments that trace simple_gemm, and reading
// `cublasspy report --json`. Programs run through support/process.h with this environment
// inherited.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/prerequisites.h"
#include "support/process.h"

namespace cublasspy::tools::testing {

inline const std::string kTool = CUBLASSPY_TOOL;           // bin/cublasspy
inline const std::string kShim = CUBLASSPY_SHIM;           // lib/libcublasspy.so
inline const std::string kSimpleGemm = SIMPLE_GEMM;        // tests/programs/simple_gemm.cpp
inline const std::string kStandinDir = STANDIN_DIR;        // <build>/standin
inline const std::string kEmptyPreload = EMPTY_PRELOAD;    // a library that does nothing
inline const std::string kGoldenDir = GOLDEN_DIR;          // tests/tools/golden

// The process helpers (support/process.h), under the names these tests use.
using test_support::Env;
using test_support::ProcessResult;
using test_support::ScratchDir;
using test_support::read_file;
using test_support::run_process;
using test_support::write_file;

using test_support::standin_built;
// The environment that sends simple_gemm to the CPU stand-in instead of the real libraries.
Env on_standin();
// The environment that records into `dir` with the shim preloaded (no `run`).
Env traced_into(const ScratchDir& dir);

// Runs simple_gemm under the shim (real libraries unless `env` says otherwise) and returns the
// one trace it wrote; fails the test (ADD_FAILURE) and returns "" if there is not exactly one.
std::string trace_simple_gemm(const ScratchDir& dir, Env env = {});

// `cublasspy report --json [--all] TRACE...`, parsed.
nlohmann::ordered_json report_json(const std::vector<std::string>& traces, bool all = true);

// The calls of `trace` (a report's trace object) made to `function`.
std::vector<nlohmann::ordered_json> calls_to(const nlohmann::ordered_json& trace, const std::string& function);

}  // namespace cublasspy::tools::testing
