// The macros that turn one hook-list entry into an exported wrapper. Shared by hooks.cpp (the
// v2 API, cuBLASLt, CUDA) and hooks_legacy.cpp (the v1 API, which needs cublas.h instead of
// cublas_v2.h). Include after the CUDA headers of the translation unit.
#pragma once

#include <type_traits>

#include "arg_tags.h"
#include "spec/foreach.h"
#include "spec/hook_list.h"
#include "hook_table.h"
#include "intercept.h"

// The hook list names scalar types and roles unqualified (Alpha<ScalarType::kF32>,
// Int<Role::kM>); the wrappers are at global scope.
using ::cublasspy::ScalarType;
using ::cublasspy::Role;

#define CUBLASSPY_EXPORT extern "C" __attribute__((visibility("default")))

// One (type, name, tag) triple, taken apart.
#define CBS_PARAM(type, name, tag) type name
#define CBS_TYPE(type, name, tag) type
#define CBS_NAME(type, name, tag) name
#define CBS_BEFORE(type, name, tag) \
  ::cublasspy::tags::tag::before(ctx, ctx.slot, name), ctx.slot += ::cublasspy::tags::tag::kSlots
#define CBS_LATE(type, name, tag) \
  ::cublasspy::tags::tag::late(ctx, ctx.slot, name), ctx.slot += ::cublasspy::tags::tag::kSlots
#define CBS_AFTER(type, name, tag) \
  ::cublasspy::tags::tag::after(ctx, ctx.slot, name, status), ctx.slot += ::cublasspy::tags::tag::kSlots
#define CBS_SLOTS(type, name, tag) + ::cublasspy::tags::tag::kSlots
#define CBS_DERIVED(type, name, tag) + ::cublasspy::tags::tag::kDerived

// The wrapper. The cast of &::fn_ to the hook list's type selects the header's declaration of
// exactly that type, or fails to compile: the list cannot drift from the CUDA headers.
// (cublasGemmEx also has an inline C++ overload in cublas_api.h, hence a cast, not decltype.)
#define CBS_DEFINE_WRAPPER(lib_, ret_, fn_, fail_, family_, ...)                                \
  CUBLASSPY_EXPORT ret_ fn_(CBS_MAP_COMMA(CBS_PARAM, __VA_ARGS__)) {                            \
    using Real = ret_ (*)(CBS_MAP_COMMA(CBS_TYPE, __VA_ARGS__));                                 \
    static_assert(sizeof(static_cast<Real>(&::fn_)) != 0,                                       \
                  "hook_list.h prototype differs from the CUDA header: " #fn_);                 \
    constexpr int kParams = 0 CBS_MAP_SPACE(CBS_SLOTS, __VA_ARGS__);                            \
    static_assert(kParams CBS_MAP_SEMI_PLUS(__VA_ARGS__) <= ::cublasspy::format::kMaxArgs);     \
    return ::cublasspy::intercept<::cublasspy::FnId::k##fn_, ret_>(                             \
        fail_, __builtin_return_address(0),                                                     \
        [&](::cublasspy::CallContext& ctx) {                                                    \
          ctx.slot = 0;                                                                         \
          ctx.derived = kParams;                                                                \
          CBS_MAP_SEMI(CBS_BEFORE, __VA_ARGS__)                                                 \
        },                                                                                      \
        [&](::cublasspy::CallContext& ctx) {                                                    \
          ctx.slot = 0;                                                                         \
          ctx.derived = kParams;                                                                \
          CBS_MAP_SEMI(CBS_LATE, __VA_ARGS__)                                                   \
        },                                                                                      \
        [&](void* fn) { return reinterpret_cast<Real>(fn)(CBS_MAP_COMMA(CBS_NAME, __VA_ARGS__)); }, \
        [&](::cublasspy::CallContext& ctx, [[maybe_unused]] int status) {                       \
          ctx.slot = 0;                                                                         \
          CBS_MAP_SEMI(CBS_AFTER, __VA_ARGS__)                                                  \
        });                                                                                     \
  }
// kParams + the derived slots of every tag must fit in a record.
#define CBS_MAP_SEMI_PLUS(...) CBS_MAP_SPACE(CBS_DERIVED, __VA_ARGS__)

// The address table entry of a hook (same cast as above).
#define CBS_HOOK_INFO(lib_, ret_, fn_, fail_, family_, ...) \
  {#fn_, ::cublasspy::Library::lib_,                        \
   reinterpret_cast<void*>(static_cast<ret_ (*)(CBS_MAP_COMMA(CBS_TYPE, __VA_ARGS__))>(&::fn_))},

namespace cublasspy {
struct HookInfo {
  const char* name;
  Library library;
  void* address;
};
}  // namespace cublasspy
