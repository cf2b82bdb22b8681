// What a hook's prototype says about the function, for its entry in the trace's function table
// (hooks.cpp): the element type that the C type of its matrices fixes (cublasSgemm's const
// float*: CUDA_R_32F), and whether its sizes are 32-bit (cublasSgemm's int m, not
// cublasSgemm_64's int64_t). Derived from the types the wrappers are compiled with, so no list
// of names says it.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuComplex.h>
#include <cuda_fp16.h>
#include <library_types.h>

#include "trace/trace_format.h"

namespace cublasspy {

// The type a parameter holds or points at, and what an array of pointers points at
// (const float* const* Aarray: float).
template <class T>
using Pointee = std::remove_cv_t<std::remove_pointer_t<T>>;
template <class T>
using MatrixElement = Pointee<Pointee<T>>;

// The cudaDataType_t of elements of C type E, -1 for void (the call's type arguments say).
template <class E>
constexpr int element_type_of() {
  if constexpr (std::is_same_v<E, float>) return CUDA_R_32F;
  else if constexpr (std::is_same_v<E, double>) return CUDA_R_64F;
  else if constexpr (std::is_same_v<E, cuComplex>) return CUDA_C_32F;
  else if constexpr (std::is_same_v<E, cuDoubleComplex>) return CUDA_C_64F;
  else if constexpr (std::is_same_v<E, __half>) return CUDA_R_16F;
  else if constexpr (std::is_same_v<E, unsigned char>) return CUDA_R_8U;
  else return -1;
}

// Adds what parameter `Type` with tag `Tag` says to `entry`: A's element type, m's width.
template <class Type, class Tag>
void describe_prototype(format::FunctionEntry& entry) {
  if constexpr (Tag::role == format::ArgRole::kA && element_type_of<MatrixElement<Type>>() >= 0) {
    entry.element_type = static_cast<uint8_t>(element_type_of<MatrixElement<Type>>());
    entry.traits |= format::Trait::kFixedElementType;
  }
  if constexpr (Tag::role == format::ArgRole::kM || Tag::role == format::ArgRole::kMArray) {
    if constexpr (sizeof(Pointee<Type>) == 4) entry.traits |= format::Trait::kInt32Sizes;
  }
}

}  // namespace cublasspy
