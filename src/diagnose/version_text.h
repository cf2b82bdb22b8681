// CUDA version numbers as the driver and runtime report them (1000 * major + 10 * minor:
// 13000 is 13.0, 12080 is 12.8), for people.
#pragma once

#include <string>

namespace cublasspy::diagnoses {

inline int major_of(int cuda_version) { return cuda_version / 1000; }
inline int minor_of(int cuda_version) { return (cuda_version % 1000) / 10; }
inline std::string cuda_version_text(int cuda_version) {
  return std::to_string(major_of(cuda_version)) + "." + std::to_string(minor_of(cuda_version));
}

}  // namespace cublasspy::diagnoses
