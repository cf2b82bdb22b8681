// Running a subject program for the integration tests: a clean environment (nothing of the
// test's own LD_PRELOAD, LD_LIBRARY_PATH, CUBLASSPY_* or STANDIN_* leaks in) plus the changes a
// test asks for, output captured, how it ended, and the traces it left. Paths of the things
// under test come from integration.cmake as compile definitions.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_reader.h"

namespace cublasspy::integration {

inline const std::string kShim = CUBLASSPY_SHIM_PATH;          // libcublasspy.so
inline const std::string kStandinDir = CUBLASSPY_STANDIN_PATH;  // the CPU stand-in's libraries
inline const std::string kProgramDir = CUBLASSPY_PROGRAM_DIR;   // the subject programs
inline const std::string kSourceDir = CUBLASSPY_INTEGRATION_SOURCE_DIR;  // tests/integration
inline const std::string kPython = CUBLASSPY_PYTHON_PATH;  // "" when there is none

// A subject program built by integration.cmake (<build>/test-programs/NAME).
std::string program(const std::string& name);

// Variables to set (a value) or remove (nullopt) on top of the clean environment.
using Env = std::map<std::string, std::optional<std::string>>;
// b's entries win.
Env operator+(Env a, const Env& b);

struct ProgramResult {
  pid_t pid = 0;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;  // killed by run_program after its time limit
  std::string out;
  std::string err;
  bool exited_ok() const { return signal == 0 && exit_code == 0 && !timed_out; }
  std::string describe() const;  // for failure messages: how it ended and what it printed
};

// A fresh directory for one test, removed with its contents (read-only subdirectories
// included) when the test ends.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  // Regular files directly in the directory whose names end with `suffix`, sorted.
  std::vector<std::string> files(const std::string& suffix = ".cbt") const;

 private:
  std::string path_;
};

// A child started and not yet waited for (tests that act on a program while it runs).
class RunningProgram {
 public:
  RunningProgram(pid_t pid, std::string out_path, std::string err_path);
  RunningProgram(RunningProgram&&) noexcept;
  RunningProgram(const RunningProgram&) = delete;
  ~RunningProgram();  // kills and reaps a child still running: no test leaves one behind
  pid_t pid() const { return pid_; }
  void kill(int sig) const;
  // Waits at most `limit`; past it the child is killed with SIGKILL and timed_out is set.
  ProgramResult wait(std::chrono::milliseconds limit = std::chrono::seconds(60));

 private:
  pid_t pid_;
  std::string out_path_, err_path_;
  bool reaped_ = false;
};

// Starts argv[0] (a path, or a name searched in PATH) with the clean environment plus `env`,
// in `capture_dir` (so a trace under the default name lands there too), stdout and stderr
// going to files in it.
RunningProgram start_program(const std::vector<std::string>& argv, const Env& env,
                             const ScratchDir& capture_dir);
// Runs it to completion (bounded by `limit`).
ProgramResult run_program(const std::vector<std::string>& argv, const Env& env,
                          const ScratchDir& capture_dir,
                          std::chrono::milliseconds limit = std::chrono::seconds(60));

// The shim preloaded, traces in `dir` named t-<pid>.cbt, $TMPDIR in `dir` too (the shim's
// fallback location must never be the shared /tmp).
Env traced(const ScratchDir& dir);
// The path traced() gives the process `pid`.
std::string trace_path(const ScratchDir& dir, pid_t pid);
// The CPU stand-in instead of the real CUDA libraries.
Env on_standin();
bool standin_built();

// Opens a trace; on failure the test fails with the reader's message and nullopt is returned.
std::optional<TraceFile> open_trace(const std::string& path);
// Every record still held, in sequence order; or only those of `function`.
std::vector<CallView> calls_of(const TraceFile& trace, const std::string& function = "");
// The id of `function` in the trace's function table, -1 if absent.
int function_id(const TraceFile& trace, const std::string& function);
// Text argument slots (dlopen's file name and result) as a string.
std::string text_arg(const CallView& call, const char* name);

// Polls `condition` every few milliseconds until it holds or `limit` passes.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds limit);

std::string read_file(const std::string& path);

}  // namespace cublasspy::integration
