// The call adapters of the v2 API, cuBLASLt and cublasXt, expanded from the hook list.
#include <cublasLt.h>
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "replay/runner/adapter_expansion.h"

namespace cublasspy::replay {

extern const std::vector<CallAdapter> kLegacyAdapters;  // call_adapters_legacy.cpp

namespace {
const std::vector<CallAdapter> kAdapters = {CUBLASSPY_HOOKS(RA_ENTRY)};
}  // namespace

const CallAdapter* find_adapter(const std::string& name) {
  for (const auto* table : {&kAdapters, &kLegacyAdapters}) {
    for (const CallAdapter& a : *table) {
      if (name == a.name) return &a;
    }
  }
  return nullptr;
}

std::vector<const CallAdapter*> all_adapters() {
  std::vector<const CallAdapter*> out;
  for (const auto* table : {&kAdapters, &kLegacyAdapters}) {
    for (const CallAdapter& a : *table) out.push_back(&a);
  }
  return out;
}

}  // namespace cublasspy::replay
