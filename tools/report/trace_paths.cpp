#include "report/trace_paths.h"

#include <algorithm>
#include <filesystem>

namespace cublasspy::tools {

std::vector<std::string> expand_directories(const std::vector<std::string>& paths, std::vector<std::string>& errors) {
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      out.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      if (entry.path().extension() == ".cbt") found.push_back(entry.path().string());
    }
    if (found.empty()) errors.push_back(path + ": no .cbt trace in this directory");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

}  // namespace cublasspy::tools
