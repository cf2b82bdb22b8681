// What the trace says about the process: identity, command line, the CUDA-related environment
// and the CUDA libraries loaded. Gathered once when the trace opens (never in a constructor).
#pragma once

#include <optional>
#include <string>
#include <string_view>
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

// Traces travel (bug reports, shared disks), so the process section holds no secrets
// (docs/CONTRACT.md, "What a trace holds").
inline constexpr const char kRedacted[] = "<redacted>";

// True for the variables a CUDA post-mortem needs: an allowlist of exact names and of prefixes
// that CUDA, the frameworks and the launchers own (CUDA_*, NCCL_*, TF_CPP_*, RANK, ...).
bool is_recorded_environment_name(std::string_view name);
// True for a name that may hold a credential (*TOKEN*, *KEY*, *SECRET*, *PASSWORD*, ...).
bool looks_like_credential_name(std::string_view name);
// `value` with the user:password part of every "scheme://user:password@host..." URL replaced
// with kRedacted; scheme and host stay.
std::string without_url_credentials(std::string_view value);
// The "NAME=value" entry as the trace records it, or nothing for a variable it leaves out. The
// value of a credential-like name is replaced with kRedacted, and so is the user:password part
// of a URL in any value.
std::optional<std::string> recorded_environment_entry(const char* name_eq_value);
// The command line with credential-like options' values ("--hf-token=X", "--api-key X",
// "TOKEN=X") and URL passwords replaced with kRedacted.
std::vector<std::string> redacted_command_line(const std::vector<std::string>& argv);

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
