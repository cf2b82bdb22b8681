// Human-readable warnings from inside the host process (CUBLASSPY_LOG: stderr, off, or a file).
// Cold path only: never from a signal handler, never per call. Usable until the process is
// gone: from the program's exit handlers and destructors too. They throw nothing of their own.
#pragma once

#include <string>

namespace cublasspy {

void log_configure(const std::string& destination);
void log_warning(const std::string& message);
// Warns once per `key` (a static string), e.g. one line per unresolvable function.
void log_warning_once(const char* key, const std::string& message);
// One line, once per process, when the shim's own work threw (shim_guard.h), to the log's
// destination (stderr before the set-up); it allocates nothing, so it works when an
// allocation is what failed.
void note_shim_exception();

}  // namespace cublasspy
