// Standalone reproducers of a replay plan, for bug reports and for machines without cublasspy:
//
// - emit_cpp: one self-contained C++ file that makes exactly the captured call (same entry point,
//   same arguments, handle state and cuBLASLt descriptors) on operands filled with the replay's
//   seeded values, checks every status and says what happened. Builds with one command
//   (cpp_build_command) against the CUDA toolkit; its exit status is 0 when the call succeeded.
// - emit_python: a PyTorch script that computes the same GEMM with tensors of the same shapes,
//   strides and dtypes (as_strided views over the whole strided extent), the same TF32 and
//   reduced-precision settings, and the captured .npy dumps where there are some.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replay/replay_plan.h"

namespace cublasspy::replay {

struct EmitContext {
  std::string trace_path;
  uint64_t seq = 0;
  std::string original_outcome;               // "CUBLAS_STATUS_EXECUTION_FAILED (13)", "success"
  std::vector<std::string> dumped_operands;   // operands with a usable dump next to the trace
  std::vector<std::string> notes;             // what the replay does differently (plan_builder)
  std::string cpp_file_name = "repro.cpp";    // the C++ file's name, for the build line inside it
};

std::string emit_cpp(const ReplayPlan& plan, const EmitContext& context);
std::string emit_python(const ReplayPlan& plan, const EmitContext& context);

// The one command that builds the emitted C++ (g++, or nvcc when g++ is not there) against the
// toolkit in $CUDA_HOME (default /usr/local/cuda), with a RUNPATH to its libraries.
std::string cpp_build_command(const std::string& source_path);

}  // namespace cublasspy::replay
