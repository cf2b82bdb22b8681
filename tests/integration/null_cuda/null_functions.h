// The "null" CUDA stack: one definition per hooked function, generated from the hook list, that
// returns success and touches nothing but its out-parameters (hook_tag_traits.h: kWritesBack), so
// the round-trip program can pass made-up addresses that must never be dereferenced.
// Included by null_functions.cpp (v2 API, cuBLASLt, CUDA) and null_legacy.cpp (the v1 API).
#pragma once

#include <cstdint>
#include <type_traits>

#include "spec/foreach.h"
#include "spec/hook_list.h"
#include "hook_tag_traits.h"

using ::cublasspy::ScalarType;  // the hook list names tags like Alpha<ScalarType::kF32>
using ::cublasspy::Role;        // and like Int<Role::kM>

namespace null_cuda {

// What the null functions write through an out-parameter: recognizable, and never what the
// program put there before the call (it zero-fills its buffers).
template <class T>
T written_value() {
  if constexpr (std::is_pointer_v<T>) return reinterpret_cast<T>(uintptr_t{0xC0DE0000});
  else if constexpr (std::is_enum_v<T>) return static_cast<T>(1);
  else return static_cast<T>(4242);
}

template <class Tag, class T>
void touch(T arg) {
  if constexpr (roundtrip::kWritesBack<Tag>) {
    if (arg != nullptr) *arg = written_value<std::remove_cv_t<std::remove_pointer_t<T>>>();
  }
}

// Success: status 0; a function that returns a value (cublasLtGetVersion) returns one the round
// trip recognizes in its record.
template <class R>
R success() {
  if constexpr (std::is_integral_v<R> && !std::is_same_v<R, bool>) return static_cast<R>(130942);
  else if constexpr (!std::is_void_v<R>) return static_cast<R>(0);
}

}  // namespace null_cuda

// Each library's translation unit defines NULL_CUDA_<LIB>; entries of other libraries expand
// to nothing there.
#if defined(NULL_CUDA_CUBLAS)
#define NULL_IF_kCublas(...) __VA_ARGS__
#else
#define NULL_IF_kCublas(...)
#endif
#if defined(NULL_CUDA_CUBLASLT)
#define NULL_IF_kCublasLt(...) __VA_ARGS__
#else
#define NULL_IF_kCublasLt(...)
#endif
#if defined(NULL_CUDA_CUDART)
#define NULL_IF_kCudart(...) __VA_ARGS__
#else
#define NULL_IF_kCudart(...)
#endif
#if defined(NULL_CUDA_DRIVER)
#define NULL_IF_kCuda(...) __VA_ARGS__
#else
#define NULL_IF_kCuda(...)
#endif

#define NULL_PARAM(type, name, tag) type name
#define NULL_TOUCH(type, name, tag) ::null_cuda::touch<::cublasspy::tags::tag>(name)
#define NULL_DEFINE(lib_, ret_, fn_, fail_, family_, traits_, ...)                                \
  NULL_IF_##lib_(extern "C" __attribute__((visibility("default"))) ret_ fn_(            \
      CBS_MAP_COMMA(NULL_PARAM, __VA_ARGS__)) {                                          \
    CBS_MAP_SEMI(NULL_TOUCH, __VA_ARGS__)                                                \
    return ::null_cuda::success<ret_>();                                                 \
  })
