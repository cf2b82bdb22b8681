// How a traced process ended, from what the process recorded itself (end_state, end_signal,
// exit_status) and, in format version 5, what `cublasspy run` saw (launcher_*): one reading
// that the report's words and the diagnoses share. The process's own record wins; the
// launcher's fills in what a process cannot record (an _exit, which runs no exit handler, as
// the dynamic linker's "symbol lookup error" does with status 127; a SIGKILL).
#pragma once

#include <sys/wait.h>

#include <optional>

#include "trace/trace_format.h"

namespace cublasspy {

struct ProcessEnd {
  // kExecuted (format version 9): the image replaced itself by exec; its exec's record, left
  // in flight, names the target.
  enum class How { kUnknown, kExited, kSignaled, kExecuted };
  How how = How::kUnknown;
  int exit_status = -1;  // kExited: the status when known, else -1
  int signal = 0;        // kSignaled
  // True when only the launcher knows: the process itself recorded no end (no exit handler
  // ran, or nothing ran at all).
  bool from_launcher = false;
  // The launcher's record of the command, when this process is one of its descendants.
  std::optional<ProcessEnd::How> command_how;
  int command_status = 0;  // the command's exit status or signal
  uint64_t command_pid = 0;
};

inline ProcessEnd process_end(const format::FileHeader& h) {
  ProcessEnd e;
  const auto state = static_cast<format::EndState>(h.end_state);
  const auto launcher = static_cast<format::LauncherWait>(h.launcher_wait);
  const int ws = h.launcher_status;
  if (state == format::EndState::kExited) {
    e.how = ProcessEnd::How::kExited;
    e.exit_status = h.exit_status >= 0 ? h.exit_status : -1;
  } else if (state == format::EndState::kSignaled) {
    e.how = ProcessEnd::How::kSignaled;
    e.signal = h.end_signal;
  } else if (state == format::EndState::kExecuted) {
    // The launcher's status, if any, is the new image's: not this one's end.
    e.how = ProcessEnd::How::kExecuted;
  } else if (launcher == format::LauncherWait::kOwn) {
    e.from_launcher = true;
    if (WIFEXITED(ws)) {
      e.how = ProcessEnd::How::kExited;
      e.exit_status = WEXITSTATUS(ws);
    } else if (WIFSIGNALED(ws)) {
      e.how = ProcessEnd::How::kSignaled;
      e.signal = WTERMSIG(ws);
    }
  }
  if (launcher == format::LauncherWait::kCommand && (WIFEXITED(ws) || WIFSIGNALED(ws))) {
    e.command_how = WIFEXITED(ws) ? ProcessEnd::How::kExited : ProcessEnd::How::kSignaled;
    e.command_status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws);
    e.command_pid = h.launcher_pid;
  }
  return e;
}

}  // namespace cublasspy
