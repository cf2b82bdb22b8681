// For each failing GEMM of a trace, the C++ and Python reproducers `cublasspy replay --emit-cpp
// --emit-python` writes, made in-process by replay's emitters (replay/emitters.h). In the bundle
// the trace is `trace_member` ("traces/<name>.cbt") with its dumps beside it, so the Python
// script, run from the bundle's top folder, finds the captured operands.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace_reader.h"

namespace cublasspy::tools::bundle {

struct Reproducer {
  uint64_t seq = 0;
  std::string function;
  std::string outcome;         // the program's: "CUBLAS_STATUS_EXECUTION_FAILED (13)"
  std::string refusal;         // why there is none (the replay's words), else ""
  std::string cpp_name;        // "<trace name>.call<seq>.cpp"
  std::string cpp;
  std::string build_command;   // run in the folder that holds cpp_name
  std::string python_name;     // "<trace name>.call<seq>.py"
  std::string python;
};

// The failing (or in-flight) GEMMs of `trace`, the first `max` of them (a failure storm fails
// thousands alike); `more` gets how many there were beyond. Calls that are not GEMMs have none.
std::vector<Reproducer> reproducers_of(const TraceFile& trace, const std::string& trace_member, size_t max,
                                       size_t& more);

}  // namespace cublasspy::tools::bundle
