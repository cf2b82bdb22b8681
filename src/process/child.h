// The one way cublasspy starts a process: fork, then exec a program (or run a function) in the
// child; feed its stdin, capture, discard or pass through its stdout and stderr, kill it past a
// time limit, and wait for it; every wait survives EINTR. `cublasspy run`, replay's runner and
// the doctor's probes all start their children here. The shim never does (it does not link
// this library): it runs inside other people's processes and starts none.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cublasspy::process {

// Where one of the child's output streams goes.
struct Output {
  enum class Mode { kInherit, kCapture, kDiscard };
  Mode mode = Mode::kInherit;
  std::size_t limit = 0;   // kCapture: at most this many bytes kept (0: all of it)
  bool keep_last = false;  // with a limit: the last bytes rather than the first
};

struct Spawn {
  // argv[0] is a path, or with search_path a name looked up in PATH as a shell would.
  std::vector<std::string> argv;
  bool search_path = false;
  // "NAME=value" entries; nullopt: this process's environment.
  std::optional<std::vector<std::string>> environment;
  // Instead of an exec: run this in the forked child (after this process's stdio buffers are
  // flushed, so the child cannot write them twice); what it returns comes back as
  // Outcome::answer, and the child ends with _exit(0).
  std::function<std::string()> child_function;
  // Written to the child's stdin (a pipe, closed once written); nullopt: stdin is inherited.
  std::optional<std::string> input;
  Output out, err;
  // The child leads a process group of its own, and the time limit kills the whole group
  // (whatever the child started goes too). Otherwise it stays in this process's group, so that
  // Ctrl-C at the terminal reaches both.
  bool own_process_group = false;
  // SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to this process by another one (kill) are passed on
  // to the child while it runs; from the terminal they already reach it through the foreground
  // process group, so they are not sent twice.
  bool forward_signals = false;
  // Past it the child (or its group) is killed with SIGKILL; 0: no limit.
  std::chrono::milliseconds limit{0};
};

struct Outcome {
  enum class Step { kNone, kPipe, kFork, kExec };
  bool started = false;     // the exec succeeded (or the function's child was forked)
  Step failed_step = Step::kNone;  // where it did not
  int start_errno = 0;      // why
  std::string start_error;  // the same in words: "pipe: ...", "fork: ...", "<argv[0]>: ..."
  pid_t pid = 0;            // the child, once started
  int wait_status = 0;      // waitpid's status
  bool exited = false;
  int exit_code = -1;       // when it exited
  int signal = 0;           // when a signal ended it (the time limit's SIGKILL included)
  bool timed_out = false;
  double wall_s = 0;        // from the fork to the end of the wait
  std::string out, err;     // the captured streams
  std::string answer;       // what child_function returned
};

// Starts the child, drains its captured streams (and feeds its input) until they close or the
// limit passes, then waits for it.
Outcome run(const Spawn& spawn);

// Waits for the child `pid` to end, at most until `deadline` when there is one: past it SIGKILL
// goes to `kill_target` (the child, or -pgid for its group) and the wait goes on until the child
// is reaped. Its status goes to *status. Returns whether the deadline passed. (run() waits with
// it; a caller that started a child some other way, as the tests do, can too.)
bool wait_for_end(pid_t pid, std::optional<std::chrono::steady_clock::time_point> deadline, pid_t kill_target,
                  int* status);

}  // namespace cublasspy::process
