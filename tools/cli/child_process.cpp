#include "cli/child_process.h"

#include <cerrno>

#include "process/child.h"

namespace cublasspy::tools {

int ChildOutcome::shell_status() const {
  if (!started) return exec_errno == ENOENT ? 127 : 126;
  if (signaled) return 128 + signal;
  return exit_code;
}

ChildOutcome run_child(const std::vector<std::string>& argv, const std::vector<std::string>& environment) {
  process::Spawn spawn;
  spawn.argv = argv;
  spawn.search_path = true;
  spawn.environment = environment;
  spawn.forward_signals = true;  // stdin, stdout and stderr stay the tool's, as for a foreground job
  const process::Outcome ran = process::run(spawn);

  ChildOutcome outcome;
  outcome.exec_errno = ran.start_errno;
  if (!ran.started) return outcome;
  outcome.started = true;
  outcome.pid = ran.pid;
  outcome.wait_status = ran.wait_status;
  outcome.signaled = ran.signal != 0;
  outcome.signal = ran.signal;
  if (ran.exited) outcome.exit_code = ran.exit_code;
  return outcome;
}

}  // namespace cublasspy::tools
