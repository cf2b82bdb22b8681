#include "cli/shim_location.h"

#include <climits>
#include <cstdlib>
#include <unistd.h>

namespace cublasspy::tools {
namespace {

constexpr const char* kShimName = "libcublasspy.so";

// The install's library directory relative to the prefix, as configured (tools/CMakeLists.txt).
#ifndef CUBLASSPY_INSTALL_LIBDIR
#define CUBLASSPY_INSTALL_LIBDIR "lib"
#endif

}  // namespace

std::string executable_directory() {
  char buf[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string exe(buf, static_cast<size_t>(n));
  auto slash = exe.rfind('/');
  return slash == std::string::npos ? "" : exe.substr(0, slash);
}

std::vector<std::string> shim_candidates(const std::string& exe_dir) {
  std::vector<std::string> out{exe_dir + "/../lib/" + kShimName};
  std::string libdir = CUBLASSPY_INSTALL_LIBDIR;
  if (libdir != "lib" && !libdir.empty()) {
    out.push_back(libdir.front() == '/' ? libdir + "/" + kShimName
                                        : exe_dir + "/../" + libdir + "/" + kShimName);
  }
  return out;
}

std::optional<std::string> find_shim() {
  std::string dir = executable_directory();
  if (dir.empty()) return std::nullopt;
  for (const std::string& candidate : shim_candidates(dir)) {
    // The dynamic loader resolves LD_PRELOAD entries relative to the child's working
    // directory, so only a canonical absolute path is safe to hand on.
    char real[PATH_MAX];
    if (realpath(candidate.c_str(), real) != nullptr && access(real, R_OK) == 0) return std::string(real);
  }
  return std::nullopt;
}

}  // namespace cublasspy::tools
