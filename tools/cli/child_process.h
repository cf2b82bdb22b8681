// Running the command of `cublasspy run` the way a shell runs a foreground job: same stdin,
// stdout, stderr and process group, an environment of our choosing, and the exit status a
// shell would report (128+N when it died of signal N, 127 when not found, 126 when not
// executable).
#pragma once

#include <string>
#include <vector>

namespace cublasspy::tools {

struct ChildOutcome {
  bool started = false;   // exec succeeded
  int exec_errno = 0;     // why it did not
  bool signaled = false;
  int signal = 0;
  int exit_code = 0;
  int pid = 0;            // the command's process id, once started
  int wait_status = 0;    // waitpid's status, once it ended
  // The status a shell reports: exit code, 128+signal, 127 (not found) or 126 (not executable).
  int shell_status() const;
};

// Runs argv[0] (searched in PATH) with `environment` ("NAME=value" entries) and waits for it.
// SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to this process by another one (kill) are passed on
// to the child; the same signals from the terminal already reach the child through the
// foreground process group, so they are not sent twice.
ChildOutcome run_child(const std::vector<std::string>& argv, const std::vector<std::string>& environment);

}  // namespace cublasspy::tools
