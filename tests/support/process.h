// The one way the tests start a program: argv with an environment changed on top of this one
// (or on top of a clean one), its output captured to files, how it ended. The shim tests, the
// hardening tests, the tool tests and the replay tests all run their programs through it. Its
// timed wait is the product's (process::wait_for_end, src/process/child.h); it starts the child
// itself because a test acts on the child while it runs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cublasspy::test_support {

// Variables to set (a value) or remove (nullopt) for the child.
using Env = std::map<std::string, std::optional<std::string>>;
// b's entries win.
Env operator+(Env a, const Env& b);

struct ProcessResult {
  pid_t pid = 0;
  int exit_code = -1;      // when it exited
  int signal = 0;          // when a signal ended it
  bool timed_out = false;  // killed after ProcessOptions::limit
  std::string out;
  std::string err;
  bool exited_ok() const { return signal == 0 && exit_code == 0 && !timed_out; }
  int shell_status() const { return signal ? 128 + signal : exit_code; }
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

struct ProcessOptions {
  // Start from a clean environment: nothing of the test's own LD_PRELOAD, LD_LIBRARY_PATH,
  // CUBLASSPY_*, STANDIN_* or CUDA_VISIBLE_DEVICES leaks in. Otherwise the child inherits all.
  bool clean_environment = false;
  std::string cwd;          // "": the test's own
  std::string capture_dir;  // where stdout and stderr go; "": a fresh directory, removed after
  std::chrono::milliseconds limit{0};  // past it the child is killed (SIGKILL); 0: no limit
};

// The shim tests' way: the clean environment, the child running in `dir` (so a trace under the
// default name lands there too) with its output captured there, bounded by `limit`.
ProcessOptions isolated_in(const ScratchDir& dir, std::chrono::milliseconds limit = std::chrono::seconds(60));
// The child running in `cwd`, with the test's environment and the defaults otherwise.
ProcessOptions in_directory(const std::string& cwd);

// A child started and not yet waited for (tests that act on a program while it runs).
class RunningProcess {
 public:
  RunningProcess(pid_t pid, std::string out_path, std::string err_path, std::chrono::milliseconds limit,
                 std::shared_ptr<ScratchDir> capture);
  RunningProcess(RunningProcess&&) noexcept;
  RunningProcess(const RunningProcess&) = delete;
  ~RunningProcess();  // kills and reaps a child still running: no test leaves one behind
  pid_t pid() const { return pid_; }
  void kill(int sig) const;
  // Waits for the end, at most the options' limit (when it has one).
  ProcessResult wait();
  // Waits at most `limit`; past it the child is killed with SIGKILL and timed_out is set.
  ProcessResult wait(std::chrono::milliseconds limit);

 private:
  pid_t pid_;
  std::string out_path_, err_path_;
  std::chrono::milliseconds limit_;
  std::shared_ptr<ScratchDir> capture_;  // the fresh capture directory, when the options named none
  bool reaped_ = false;
};

// Starts argv[0] (a path, or a name searched in PATH) with `env` applied.
RunningProcess start_process(const std::vector<std::string>& argv, const Env& env = {},
                             const ProcessOptions& options = {});
// Runs it to completion.
ProcessResult run_process(const std::vector<std::string>& argv, const Env& env = {},
                          const ProcessOptions& options = {});

// Polls `condition` every few milliseconds until it holds or `limit` passes.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds limit);

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

}  // namespace cublasspy::test_support
