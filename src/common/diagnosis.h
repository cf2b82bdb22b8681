// Findings the report explains: each rests on evidence in a trace (or, for `doctor`, on the
// machine), names the process and call it rests on, and says what to do. Ids are the
// contract's (docs/CONTRACT.md, "Diagnoses") and never change.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cublasspy {

class TraceFile;

enum class Severity { kError, kWarning, kInfo };
const char* severity_name(Severity s);  // "error", "warning", "info"

struct Diagnosis {
  std::string id;          // "no-driver", "async-error", ...
  Severity severity = Severity::kError;
  std::string summary;     // one line: what went wrong
  std::string evidence;    // what was seen that says so (values, statuses, paths)
  std::string advice;      // what the user can do
  std::optional<int64_t> pid;
  std::optional<uint64_t> call;  // the call's seq
  std::optional<uint64_t> launch;  // a launch-ring entry's number (ticket + 1), when it names one
  // The library's own lines for the call (cuBLASLt's log, src/diagnose/cublaslt_log.h), and the
  // file they come from; empty when none were found.
  std::vector<std::string> library_log;
  std::string library_log_file;
};

// All findings for a set of traces (one per process or rank), most severe first, then by time.
// Implemented by the diagnosis rules (src/diagnose/); each rule is a small function.
std::vector<Diagnosis> diagnose(const std::vector<const TraceFile*>& traces);

}  // namespace cublasspy
