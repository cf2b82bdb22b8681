// The macros and argument conversion behind the call adapters, shared by call_adapters.cpp (v2
// API, cuBLASLt, cublasXt) and call_adapters_legacy.cpp (the v1 API, whose cublas.h cannot meet
// cublas_v2.h in one translation unit). Include after the CUDA headers.
#pragma once

#include <cstring>
#include <deque>
#include <type_traits>
#include <vector>

#include <cuComplex.h>

#include "replay/runner/call_adapters.h"
#include "spec/foreach.h"
#include "replay/hook_signatures.h"

namespace cublasspy::replay::adapters {

// Host arrays made for one call (grouped GEMMs' per-group sizes), alive until it returns.
using CallStorage = std::deque<std::vector<unsigned char>>;

// The argument of C type T for the parameter the header calls `c_name`.
template <typename T>
T argument(const ArgValues& v, CallStorage& storage, const char* c_name) {
  const std::string name = slot_name(c_name);
  if constexpr (std::is_pointer_v<T>) {
    using Elem = std::remove_cv_t<std::remove_pointer_t<T>>;
    if constexpr (std::is_integral_v<Elem> || std::is_enum_v<Elem>) {
      // A per-group host array (m_array, transa_array, ...) of exactly the prototype's width.
      if (const std::vector<int64_t>* list = v.array(name)) {
        storage.emplace_back(list->size() * sizeof(Elem));
        Elem* out = reinterpret_cast<Elem*>(storage.back().data());
        for (size_t i = 0; i < list->size(); ++i) out[i] = static_cast<Elem>((*list)[i]);
        return out;
      }
    }
    return reinterpret_cast<T>(static_cast<uintptr_t>(v.address(name)));
  } else if constexpr (std::is_same_v<T, cuComplex>) {
    auto s = v.scalar(name);
    return make_cuComplex(static_cast<float>(s[0]), static_cast<float>(s[1]));
  } else if constexpr (std::is_same_v<T, cuDoubleComplex>) {
    auto s = v.scalar(name);
    return make_cuDoubleComplex(s[0], s[1]);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v.scalar(name)[0]);
  } else {
    static_assert(std::is_integral_v<T> || std::is_enum_v<T>, "an argument type the replay cannot build");
    return static_cast<T>(v.integer(name));
  }
}

template <typename Ret, typename Fn, typename... Args>
int call_with_status(Fn fn, Args... args) {
  if constexpr (std::is_void_v<Ret>) {
    fn(args...);
    return 0;
  } else {
    return static_cast<int>(fn(args...));
  }
}

}  // namespace cublasspy::replay::adapters

// One (type, name, tag) triple of the hook list, taken apart.
#define RA_TYPE(type, name, tag) type
#define RA_ARG(type, name, tag) ::cublasspy::replay::adapters::argument<type>(values, storage, #name)

// An adapter. The cast of &::fn_ inside sizeof checks the hook list's prototype against the
// header without referencing the symbol (the runner never links the CUDA libraries).
#define RA_ADAPTER(lib_, ret_, fn_, family_, ...)                                               \
  ::cublasspy::replay::CallAdapter{                                                             \
      #fn_, ::cublasspy::Family::family_, RA_LIBRARY_##lib_,                                    \
      [](void* fn, const ::cublasspy::replay::ArgValues& values) -> int {                       \
        using Real = ret_ (*)(CBS_MAP_COMMA(RA_TYPE, __VA_ARGS__));                             \
        static_assert(sizeof(static_cast<Real>(&::fn_)) != 0, "hook_list.h differs from the header: " #fn_); \
        ::cublasspy::replay::adapters::CallStorage storage;                                     \
        return ::cublasspy::replay::adapters::call_with_status<ret_>(                           \
            reinterpret_cast<Real>(fn), CBS_MAP_COMMA(RA_ARG, __VA_ARGS__));                    \
      }},

#define RA_LIBRARY_kCublas ::cublasspy::replay::AdapterLibrary::kCublas
#define RA_LIBRARY_kCublasLt ::cublasspy::replay::AdapterLibrary::kCublasLt
#define RA_LIBRARY_kCudart ::cublasspy::replay::AdapterLibrary::kOther
#define RA_LIBRARY_kCuda ::cublasspy::replay::AdapterLibrary::kOther
#define RA_LIBRARY_kSystem ::cublasspy::replay::AdapterLibrary::kOther

// Only the families a replay re-executes get an adapter. A family added to the hook list
// without a line here fails to compile, so nobody forgets to decide.
#define RA_ENTRY(lib_, ret_, fn_, fail_, family_, traits_, ...) RA_IF_##family_(RA_ADAPTER(lib_, ret_, fn_, family_, __VA_ARGS__))
#define RA_YES(...) __VA_ARGS__
#define RA_NO(...)
#define RA_IF_kGemm RA_YES
#define RA_IF_kGemmBatched RA_YES
#define RA_IF_kGemmStridedBatched RA_YES
#define RA_IF_kGemmGrouped RA_YES
#define RA_IF_kLtMatmul RA_YES
#define RA_IF_kLegacyGemm RA_YES
#define RA_IF_kOther RA_NO
#define RA_IF_kDevice RA_NO
#define RA_IF_kHandle RA_NO
#define RA_IF_kLtDescriptor RA_NO
#define RA_IF_kLibraryLoad RA_NO
#define RA_IF_kSync RA_NO
#define RA_IF_kMemory RA_NO
