// Where the preload shim is: next to the tool, at <dir of the executable>/../lib. The build tree
// puts bin/ and lib/ side by side under the build directory, like an install tree, so one rule
// serves both.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cublasspy::tools {

// The directory holding the running executable (from /proc/self/exe), "" if unknown.
std::string executable_directory();

// The places looked at, in order: ../lib, then ../<install libdir> when the install uses
// another name (lib64, lib/x86_64-linux-gnu).
std::vector<std::string> shim_candidates(const std::string& exe_dir);

// The shim's absolute, canonical path, or nullopt when no candidate exists.
std::optional<std::string> find_shim();

}  // namespace cublasspy::tools
