// cuBLASLt's own words. Asked with CUBLASLT_LOG_LEVEL (0 off, 1 errors, 2 trace, 3 hints,
// 4 info, 5 API trace, each level with the ones below it) or CUBLASLT_LOG_MASK (1 errors, 2 trace,
// 4 hints, 8 info, 16 API trace, or'ed), the library writes why it refused a call to
// CUBLASLT_LOG_FILE (its %i replaced by the process id; stdout without it), one line a message:
//
//   [2024-05-20 14:52:29][cublasLt][3590223][Error][cublasLtMatmulAlgoGetHeuristic] Input matrices
//   batch counts mismatch: input B matrix batchCount (1) must be equal to all other matrices batch
//   counts, expected (2).
//
// (cuBLAS documentation, "cuBLASLt Logging"; the line is from NVIDIA's answer in
// github.com/NVIDIA/CUDALibrarySamples/issues/185.) `cublasspy run` asks for the errors and hints
// in a file beside the trace; the report reads the file the traced process's recorded environment
// names and quotes the lines of the failing call a finding rests on.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnosis.h"

namespace cublasspy::diagnoses {

inline constexpr const char* kCublasLtLogLevel = "CUBLASLT_LOG_LEVEL";
inline constexpr const char* kCublasLtLogMask = "CUBLASLT_LOG_MASK";
inline constexpr const char* kCublasLtLogFile = "CUBLASLT_LOG_FILE";
// What `cublasspy run` asks for: errors (1) and hints (4), nothing a clean call writes (trace,
// 2, logs every kernel-launching call), in this file name beside the trace.
inline constexpr const char* kRunLogMask = "5";
inline constexpr const char* kRunLogName = "cublaslt-%i.log";

struct CublasLtLogLine {
  std::string time;      // "2024-05-20 14:52:29", the library's local time
  std::string level;     // "Error", "Hints", "Trace", "Info", "Api"
  std::string function;  // "cublasLtMatmul"
  std::string message;
  std::string text;      // the whole line
};
// One line of the log; nothing for a line of another shape.
std::optional<CublasLtLogLine> parse_cublaslt_log_line(std::string_view line);

// CUBLASLT_LOG_FILE's value with each %i replaced by `pid`.
std::string cublaslt_log_path(std::string_view setting, int64_t pid);

// The log of one process, as its recorded environment asked for it.
struct CublasLtLog {
  enum class State {
    kNotAsked,    // none of the three variables: the library logged nothing
    kToStdout,    // a level or mask without a file: the lines went to the program's stdout
    kUnreadable,  // a file was named, and cannot be read here
    kRead,
  };
  State state = State::kNotAsked;
  std::string path;                   // the file, when one was named
  std::vector<CublasLtLogLine> errors;  // its Error lines, in order
};
// A relative CUBLASLT_LOG_FILE is looked for beside the trace, then in the current directory.
CublasLtLog read_cublaslt_log(const std::map<std::string, std::string>& env, int64_t pid,
                              const std::string& trace_path);

// The Error lines of `function`'s failure number `ordinal` (0: its first failing call): the
// library writes one line a refusal, so the ordinal-th line of that function is the call's.
std::vector<const CublasLtLogLine*> lines_for_failure(const CublasLtLog& log, const std::string& function,
                                                      uint32_t ordinal);

struct TraceFacts;
// After the rules: each finding that rests on a failing cuBLASLt call gets the library's lines
// for it (Diagnosis::library_log, quoted in its evidence); an invalid-value or
// configuration-not-supported finding without them says how to get them.
void quote_cublaslt_log(const std::vector<TraceFacts>& facts, std::vector<Diagnosis>& found);

}  // namespace cublasspy::diagnoses
