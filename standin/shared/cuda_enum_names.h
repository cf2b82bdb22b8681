// The names the stand-in answers with for cudaError_t, CUresult and cublasStatus_t: its own
// list of the headers' enumerators (cuda_enum_names.inc, from tools/gen_enum_names.sh), not
// cublasspy's vocabulary, so that a name a program reads back comes from CUDA and not from the
// code under test. nullptr for a value the enum does not have.
#pragma once

#include <cstddef>

#include <cublas_api.h>
#include <cuda.h>
#include <driver_types.h>

namespace standin {

namespace enum_names {

struct EnumName {
  int value;
  const char* name;
};

template <std::size_t N>
constexpr const char* find(const EnumName (&names)[N], int value) {
  for (const EnumName& n : names)
    if (n.value == value) return n.name;  // the first spelling of a value, in header order
  return nullptr;
}

#define STANDIN_ENUM_NAME(e) {static_cast<int>(e), #e},
#define STANDIN_SKIP(e)

inline constexpr EnumName kCudaErrors[] = {
#define STANDIN_CUDA_ERROR STANDIN_ENUM_NAME
#define STANDIN_CU_RESULT STANDIN_SKIP
#define STANDIN_BLAS_STATUS STANDIN_SKIP
#include "cuda_enum_names.inc"
#undef STANDIN_CUDA_ERROR
#undef STANDIN_CU_RESULT
#undef STANDIN_BLAS_STATUS
};

inline constexpr EnumName kCuResults[] = {
#define STANDIN_CUDA_ERROR STANDIN_SKIP
#define STANDIN_CU_RESULT STANDIN_ENUM_NAME
#define STANDIN_BLAS_STATUS STANDIN_SKIP
#include "cuda_enum_names.inc"
#undef STANDIN_CUDA_ERROR
#undef STANDIN_CU_RESULT
#undef STANDIN_BLAS_STATUS
};

inline constexpr EnumName kBlasStatuses[] = {
#define STANDIN_CUDA_ERROR STANDIN_SKIP
#define STANDIN_CU_RESULT STANDIN_SKIP
#define STANDIN_BLAS_STATUS STANDIN_ENUM_NAME
#include "cuda_enum_names.inc"
#undef STANDIN_CUDA_ERROR
#undef STANDIN_CU_RESULT
#undef STANDIN_BLAS_STATUS
};

#undef STANDIN_ENUM_NAME
#undef STANDIN_SKIP

}  // namespace enum_names

// cudaError_t (driver_types.h): "cudaErrorInvalidValue".
inline const char* runtime_error_name(int code) { return enum_names::find(enum_names::kCudaErrors, code); }

// CUresult (cuda.h): "CUDA_ERROR_INVALID_VALUE".
inline const char* driver_error_name(int code) { return enum_names::find(enum_names::kCuResults, code); }

// cublasStatus_t (cublas_api.h), cuBLAS's and cuBLASLt's: "CUBLAS_STATUS_NOT_SUPPORTED".
inline const char* blas_status_enum_name(int status) { return enum_names::find(enum_names::kBlasStatuses, status); }

}  // namespace standin
