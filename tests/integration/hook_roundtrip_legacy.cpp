// The round trip of the legacy v1 API (cublas.h), which cannot share a translation unit with
// cublas_v2.h.
#include <cublas.h>

#include "hook_roundtrip_call.h"

CUBLASSPY_LEGACY_HOOKS(RT_DEFINE_CALL)

void call_legacy_hooks(::roundtrip::Recorder& recorder) { CUBLASSPY_LEGACY_HOOKS(RT_INVOKE) }
