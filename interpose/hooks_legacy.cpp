// The legacy v1 cuBLAS API (cublas.h: no handle, char transposes, scalars by value). Its
// declarations clash with cublas_v2.h's renames, so its wrappers get their own translation unit.
#include <cublas.h>

#include "hook_expansion.h"

CUBLASSPY_LEGACY_HOOKS(CBS_DEFINE_WRAPPER)

namespace cublasspy {
extern const HookInfo kLegacyHooks[] = {CUBLASSPY_LEGACY_HOOKS(CBS_HOOK_INFO)};
}  // namespace cublasspy
