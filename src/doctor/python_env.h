// `cublasspy doctor --python [PYTHON]`: the collect_env maintainers ask every reporter for, done
// by a program. The interpreter runs in a child of its own process group, killed when it does
// not answer in time; it imports torch and says what that mapped.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cublasspy::doctor {

struct PythonLibrary {
  std::string path;
  std::string version;  // as the library reports itself ("12.4.5"), "" when not asked
};

struct PythonEnv {
  bool ran = false;
  bool timed_out = false;
  std::string error;         // why there is no answer, one line
  std::string python_version;
  std::string torch_version; // "" when torch did not import
  std::string torch_cuda;    // torch.version.cuda ("12.4"), "" for a CPU build
  std::string torch_error;   // the import's exception
  // torch.cuda.get_arch_list(): the architectures torch was built for ("sm_80", "sm_90",
  // "compute_90"), asked without initializing CUDA; empty for a CPU build
  std::vector<std::string> torch_arch_list;
  std::vector<PythonLibrary> libraries;  // the CUDA libraries mapped after `import torch`
  std::map<std::string, std::string> wheels;  // nvidia-* distributions and versions
};

PythonEnv probe_python(const std::string& python, int seconds);
// The answer's JSON (what the child prints) read back; error set when it is not that.
PythonEnv python_env_from_json(const std::string& text);

}  // namespace cublasspy::doctor
