// Running a real program under the real shim and reading what it left, for the diagnosis
// tests: every trace they judge is one a real run wrote (the stand-in's faults, or the real CUDA
// libraries on a machine without a driver), never a hand-made file.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/diagnosis.h"
#include "trace/trace_reader.h"

namespace cublasspy::test {

// Paths the build passes in (tests/support/support.cmake).
std::string shim_path();
std::string standin_dir();
std::string program_path(const std::string& name);  // <build>/test-programs/<name>
std::string cuda_libdir();                           // the real toolkit's libraries

// Which CUDA libraries the program gets.
enum class Stack { kStandin, kRealLibraries };

struct RunOptions {
  Stack stack = Stack::kStandin;
  std::map<std::string, std::string> env;  // added to a clean environment (no CUBLASSPY_/STANDIN_/CUDA_ vars)
  std::vector<std::string> args;
  bool preload_shim = true;
  // The machine whose evidence the shim records (CUBLASSPY_MACHINE_ROOT). On the stand-in, ""
  // means a fake healthy GPU machine (write_healthy_machine) made for the run, since the
  // stand-in plays a working driver; with the real libraries, "" means this machine.
  std::string machine_root;
  int timeout_s = 60;
  // Called while the program runs (for tests that act on a live process); the run then waits.
  std::function<void(pid_t pid, const std::string& trace_dir)> while_running;
};

struct TracedRun {
  std::string dir;                  // a fresh directory holding the traces (t-<pid>.cbt)
  pid_t pid = -1;
  int exit_code = -1;               // when it exited
  int signal = 0;                   // when a signal ended it
  std::string output;               // stdout and stderr
  std::vector<std::string> traces;  // every .cbt in dir, sorted
  std::vector<TraceFile> opened;    // the traces, read
  std::vector<std::string> errors;  // traces that could not be read
  std::shared_ptr<void> cleanup;    // removes `dir` with the last copy

  std::vector<const TraceFile*> pointers() const;
  std::vector<Diagnosis> diagnose() const;
};

TracedRun run_traced(const std::string& program, const RunOptions& options);
// Copies under `root` the stand-in's healthy machine (standin/healthy-machine), a machine as a
// working driver shows it: /proc/driver/nvidia/version (550.163.01), /proc/modules with nvidia
// and nvidia_uvm, /dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidia0 (plain files, made mode
// 0666). Returns `root`.
std::string write_healthy_machine(const std::string& root);
// The usual case: diag_workload on the stand-in under the shim, with these variables and args.
TracedRun run_workload(std::map<std::string, std::string> env, std::vector<std::string> args = {});

// The findings with this id ("" when none).
std::vector<const Diagnosis*> with_id(const std::vector<Diagnosis>& found, const std::string& id);
bool has_id(const std::vector<Diagnosis>& found, const std::string& id);
// "no-driver, execution-failed" for failure messages.
std::string ids_of(const std::vector<Diagnosis>& found);
// Whether this machine has a working NVIDIA driver library (the real-library tests expect none).
bool driver_installed();

// Waits until `predicate` holds for a trace in `dir` (polling), up to `seconds`.
bool wait_for_trace(const std::string& dir, const std::function<bool(const TraceFile&)>& predicate, int seconds);

}  // namespace cublasspy::test
