// The null stack's v2 cuBLAS, cuBLASLt, runtime and driver functions (null_functions.h); built
// once per library with NULL_CUDA_<LIB> set.
#include <cublasLt.h>
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "null_functions.h"

CUBLASSPY_HOOKS(NULL_DEFINE)
