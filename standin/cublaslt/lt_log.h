// cuBLASLt's log, as the real library writes it when asked (cuBLAS documentation, "cuBLASLt
// Logging"): CUBLASLT_LOG_LEVEL (0 off, 1 errors, 2 trace, 3 hints, 4 info, 5 API trace; each
// level includes the ones below it) or CUBLASLT_LOG_MASK (1 errors, 2 trace, 4 hints, 8 info,
// 16 API trace, or'ed), to CUBLASLT_LOG_FILE with %i replaced by the process id, else stdout.
// One line per message, in the real library's shape:
//
//   [2024-05-20 14:52:29][cublasLt][3590223][Error][cublasLtMatmulAlgoGetHeuristic] Input matrices batch counts mismatch: ...
//
// The stand-in writes its own refusals only, at the Error level, so that the tools that read
// the log (`cublasspy run`, the report) are tested on a file in the library's format.
#pragma once

namespace standin {

// One Error line for `function`, when the environment asks for errors.
void lt_log_error(const char* function, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace standin
