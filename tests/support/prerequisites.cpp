#include "support/prerequisites.h"

#include <filesystem>

namespace cublasspy::test_support {

bool standin_built() { return std::filesystem::exists(CUBLASSPY_STANDIN_CUBLAS); }

}  // namespace cublasspy::test_support
