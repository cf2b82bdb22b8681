// The TRACE arguments of `report` and `bundle`: a file stands for itself, a directory for the
// .cbt traces in it (a multi-rank job's output directory), sorted.
#pragma once

#include <string>
#include <vector>

namespace cublasspy::tools {

// A directory without a trace adds "<dir>: no .cbt trace in this directory" to `errors`.
std::vector<std::string> expand_directories(const std::vector<std::string>& paths, std::vector<std::string>& errors);

}  // namespace cublasspy::tools
