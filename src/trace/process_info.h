// What the trace says about the process: identity, command line, the CUDA-related environment
// and the CUDA libraries loaded. Gathered once when the trace opens (never in a constructor).
#pragma once

#include <string>
#include <vector>

namespace cublasspy {

// "key\0value\0" pairs, the process section's encoding (docs/FORMAT.md). Keys may repeat:
// "argv" once per argument, "env" once per variable ("NAME=value"), "library" once per path.
class KeyValueBlob {
 public:
  void add(const std::string& key, const std::string& value);
  const std::string& bytes() const { return bytes_; }
 private:
  std::string bytes_;
};

// True for the variables a CUDA post-mortem needs (CUDA_*, LD_LIBRARY_PATH, LD_PRELOAD,
// PYTORCH_*, NCCL_*, RANK, ...). The shim's own CUBLASSPY_* are included too.
bool is_recorded_environment_variable(const char* name_eq_value);

// The loaded objects whose file name says they belong to the CUDA stack.
bool is_cuda_library_path(const std::string& path);
std::vector<std::string> loaded_cuda_libraries();

std::string host_name();
// The pid namespace of this process ("pid:[4026531836]"), "" if unknown: a pid in a trace means
// this host's process only when the namespaces match.
std::string pid_namespace();
std::string start_time_text();  // YYYYmmdd-HHMMSS, local time

KeyValueBlob collect_process_info(int rank, const std::string& start_time);

}  // namespace cublasspy
