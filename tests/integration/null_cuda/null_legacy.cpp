// The null stack's legacy v1 cuBLAS functions: cublas.h cannot share a translation unit with
// cublas_v2.h, which renames cublasSgemm to cublasSgemm_v2.
#include <cublas.h>

#include "null_functions.h"

CUBLASSPY_LEGACY_HOOKS(NULL_DEFINE)
