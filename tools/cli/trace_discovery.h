// Which trace files one `cublasspy run` produced. The command may fork, exec a shell, start
// ranks: every process that makes a CUDA call writes its own trace, named by the template.
// `run` gives the command's environment a unique CUBLASSPY_RUN_ID; the shim records every
// CUBLASSPY_* variable in the trace's process section, and descendants inherit it, so a trace
// belongs to this run exactly when its process section carries this id. Candidates are the
// files the template can expand to (any pid, host, rank or time), with the writer's ".N"
// suffix for a taken name and its $TMPDIR fallback for an unwritable directory.
#pragma once

#include <ctime>
#include <string>
#include <vector>

namespace cublasspy::tools {

inline constexpr const char* kRunIdVariable = "CUBLASSPY_RUN_ID";

// A new id: this process's pid and the current time in nanoseconds.
std::string make_run_id();

// The template as the child will see it: relative templates are resolved against `cwd`, so
// the trace lands where `run` will look even if the command changes directory.
std::string absolute_template(const std::string& tmpl, const std::string& cwd);

// Glob patterns for every path `tmpl` (absolute) can expand to, suffixes and fallback included.
std::vector<std::string> trace_globs(const std::string& tmpl);

// The files matching `tmpl` whose process section carries CUBLASSPY_RUN_ID=`run_id`, modified
// at or after `not_before`, sorted. Files too damaged to read whole are included when the id
// is found, so `report` can say what is wrong with them.
std::vector<std::string> find_run_traces(const std::string& tmpl, const std::string& run_id, time_t not_before);

}  // namespace cublasspy::tools
