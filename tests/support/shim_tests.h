// What the shim's integration and hardening tests share: the paths of the things under test
// (compile definitions from tests/support/support.cmake), the environments that preload the shim
// and pick the stand-in, and reading the traces a run left. Programs run through
// support/process.h, with isolated_in(dir): a clean environment, in and captured to `dir`.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/prerequisites.h"
#include "support/process.h"
#include "trace/trace_reader.h"

namespace cublasspy::integration {

inline const std::string kShim = CUBLASSPY_SHIM_PATH;          // libcublasspy.so
inline const std::string kStandinDir = CUBLASSPY_STANDIN_PATH;  // the CPU stand-in's libraries
inline const std::string kProgramDir = CUBLASSPY_PROGRAM_DIR;   // the subject programs
inline const std::string kSourceDir = CUBLASSPY_INTEGRATION_SOURCE_DIR;  // tests/integration
inline const std::string kPython = CUBLASSPY_PYTHON_PATH;  // "" when there is none

// A subject program built by integration.cmake (<build>/test-programs/NAME).
std::string program(const std::string& name);

// The process helpers (support/process.h), under the names these tests use.
using test_support::Env;
using test_support::ProcessResult;
using test_support::RunningProcess;
using test_support::ScratchDir;
using test_support::isolated_in;
using test_support::read_file;
using test_support::run_process;
using test_support::start_process;
using test_support::wait_until;
using test_support::operator+;

// The shim preloaded, traces in `dir` named t-<pid>.cbt, $TMPDIR in `dir` too (the shim's
// fallback location must never be the shared /tmp).
Env traced(const ScratchDir& dir);
// The path traced() gives the process `pid`.
std::string trace_path(const ScratchDir& dir, pid_t pid);
// The CPU stand-in instead of the real CUDA libraries.
Env on_standin();
using test_support::standin_built;

// Opens a trace; on failure the test fails with the reader's message and nullopt is returned.
std::optional<TraceFile> open_trace(const std::string& path);
// Every record still held, in sequence order; or only those of `function`.
std::vector<CallView> calls_of(const TraceFile& trace, const std::string& function = "");
// The id of `function` in the trace's function table, -1 if absent.
int function_id(const TraceFile& trace, const std::string& function);
// Text argument slots (dlopen's file name and result) as a string.
std::string text_arg(const CallView& call, const char* name);

}  // namespace cublasspy::integration
