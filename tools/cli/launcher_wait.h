// `cublasspy run` knows how its command ended even when the command could not say so itself:
// a process that ends by _exit (the dynamic linker's "symbol lookup error" is _exit(127)) runs
// no exit handler, and one killed by SIGKILL runs nothing. After waitpid, run writes the
// command's wait status into every trace of the run (FileHeader::launcher_*, format version 5):
// as the process's own status in the command's trace, as the command's in its descendants'.
#pragma once

#include <string>
#include <sys/types.h>

namespace cublasspy::tools {

// Writes `wait_status` (waitpid's) of the command `command_pid` into the trace at `path`.
// Returns "" when written, else one line saying why not (not a trace this version can stamp).
std::string record_launcher_wait(const std::string& path, pid_t command_pid, int wait_status);

}  // namespace cublasspy::tools
