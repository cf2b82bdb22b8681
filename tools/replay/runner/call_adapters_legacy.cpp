// The call adapters of the legacy v1 API (cublas.h: no handle, char transposes, scalars by
// value), which cannot share a translation unit with cublas_v2.h.
#include <cublas.h>

#include "replay/runner/adapter_expansion.h"

namespace cublasspy::replay {

extern const std::vector<CallAdapter> kLegacyAdapters;
const std::vector<CallAdapter> kLegacyAdapters = {CUBLASSPY_LEGACY_HOOKS(RA_ENTRY)};

}  // namespace cublasspy::replay
