// Human-readable warnings from inside the host process (CUBLASSPY_LOG: stderr, off, or a file).
// Cold path only: never from a signal handler, never per call. Usable until the process is
// gone: from the program's exit handlers and destructors too.
#pragma once

#include <string>

namespace cublasspy {

void log_configure(const std::string& destination);
void log_warning(const std::string& message);
// Warns once per `key` (a static string), e.g. one line per unresolvable function.
void log_warning_once(const char* key, const std::string& message);

}  // namespace cublasspy
