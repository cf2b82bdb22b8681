// `cublasspy run` asks cuBLASLt to explain its refusals (NOT_SUPPORTED, INVALID_VALUE): its
// errors and hints (CUBLASLT_LOG_MASK=5), in <trace directory>/cublaslt-<pid>.log (the
// library replaces CUBLASLT_LOG_FILE's %i with the process id), which the report quotes
// (src/diagnose/cublaslt_log.h). A clean run writes no line; the empty files the library
// creates are removed after the run.
//
// `run` asks, not the shim: the shim would have to set the variables inside the program, which
// it may not do in a constructor (no work there) and cannot do safely later (setenv races the
// program's threads, and cuBLASLt may already have read them). A plain LD_PRELOAD run asked
// for a trace only; the variables are documented for it instead.
#pragma once

#include <ctime>
#include <string>
#include <vector>

namespace cublasspy::tools {

// Sets CUBLASLT_LOG_MASK and CUBLASLT_LOG_FILE in `env` unless the user set any of the three
// cuBLASLt log variables (then theirs stand, and the report reads the file they named). Not
// when the trace template's directory holds a % placeholder, which cuBLASLt would not expand.
// Returns the file template set ("" when none was).
std::string request_cublaslt_log(std::vector<std::string>& env, const std::string& trace_template);

// Removes the empty log files `request_cublaslt_log` asked for, of processes that are gone,
// modified at or after `not_before` (the run's start). Found by the name, not through the
// traces: a process that exited cleanly leaves no trace (CUBLASSPY_KEEP).
void remove_empty_cublaslt_logs(const std::string& log_template, time_t not_before);

}  // namespace cublasspy::tools
