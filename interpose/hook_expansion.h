// The macros that turn one hook-list entry into an exported wrapper. Shared by hooks.cpp (the
// v2 API, cuBLASLt, CUDA) and hooks_legacy.cpp (the v1 API, which needs cublas.h instead of
// cublas_v2.h). Include after the CUDA headers of the translation unit.
#pragma once

#include <type_traits>

#include "arg_tags.h"
#include "launch_tags.h"
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
  ::cublasspy::tags::tag::before(ctx, cbs_slot, name), cbs_slot += ::cublasspy::tags::tag::kSlots
#define CBS_LATE(type, name, tag) \
  ::cublasspy::tags::tag::late(ctx, cbs_slot, name), cbs_slot += ::cublasspy::tags::tag::kSlots
#define CBS_AFTER(type, name, tag) \
  ::cublasspy::tags::tag::after(ctx, cbs_slot, name, status), cbs_slot += ::cublasspy::tags::tag::kSlots
#define CBS_PROBE(type, name, tag) ::cublasspy::tags::probe_arg<::cublasspy::tags::tag>(call, name)
#define CBS_SLOTS(type, name, tag) + ::cublasspy::tags::tag::kSlots
#define CBS_SETS_STATE(type, name, tag) || ::cublasspy::tags::kSetsHandleState<::cublasspy::tags::tag>
#define CBS_DERIVED(type, name, tag) + ::cublasspy::tags::tag::kDerived

// The real function's type, as the hook list spells it.
#define CBS_REAL_TYPE(ret_, ...) ret_ (*)(CBS_MAP_COMMA(CBS_TYPE, __VA_ARGS__))

// The recording every wrapper shares, as the statement that returns its result: hook fn_'s
// record is begun, its arguments written (before, then late), the real function called as
// call_(real, arguments...), the outcome written (after). Each phase walks the parameters' slots
// from 0 and the derived slots from kParams (LoadedFile's after() writes a derived text).
// Expanded inside a function whose parameters are the hook's and whose caller is the program:
// __builtin_return_address(0) is the call site the record keeps.
#define CBS_RECORD_CALL(ret_, fn_, fail_, call_, ...)                                          \
  constexpr int kParams = 0 CBS_MAP_SPACE(CBS_SLOTS, __VA_ARGS__);                              \
  constexpr int kDerivedSlots = 0 CBS_MAP_SEMI_PLUS(__VA_ARGS__);                               \
  static_assert(kParams + kDerivedSlots <= ::cublasspy::format::kMaxArgs);                      \
  constexpr bool kStampedOnce = false CBS_MAP_SPACE(CBS_SETS_STATE, __VA_ARGS__);               \
  return ::cublasspy::intercept<::cublasspy::FnId::k##fn_, ret_, kParams + kDerivedSlots,       \
                               kStampedOnce>(                                                   \
      fail_, __builtin_return_address(0),                                                       \
      [&](::cublasspy::CallContext& ctx) {                                                      \
        [[maybe_unused]] int cbs_slot = 0;  /* the next parameter's slot: a constant per tag */ \
        if constexpr (kDerivedSlots != 0) ctx.derived = kParams;                                \
        CBS_MAP_SEMI(CBS_BEFORE, __VA_ARGS__)                                                   \
      },                                                                                        \
      [&](::cublasspy::CallContext& ctx) {                                                      \
        [[maybe_unused]] int cbs_slot = 0;  /* the next parameter's slot: a constant per tag */ \
        if constexpr (kDerivedSlots != 0) ctx.derived = kParams;                                \
        CBS_MAP_SEMI(CBS_LATE, __VA_ARGS__)                                                     \
      },                                                                                        \
      [&](void* real) { return call_(real CBS_MAP_AFTER_COMMA(CBS_NAME, __VA_ARGS__)); },      \
      [&](::cublasspy::CallContext& ctx, [[maybe_unused]] int status) {                         \
        [[maybe_unused]] int cbs_slot = 0;  /* the next parameter's slot: a constant per tag */ \
        if constexpr (kDerivedSlots != 0) ctx.derived = kParams;                                \
        CBS_MAP_SEMI(CBS_AFTER, __VA_ARGS__)                                                    \
      },                                                                                        \
      /* generic: compiled only for the setters, whose tags have probe() */                     \
      [&](auto& call) { CBS_MAP_SEMI(CBS_PROBE, __VA_ARGS__) });

// The exported wrapper of a hook: the shared recording around a plain call of the real
// function. The cast of &::fn_ to the hook list's type selects the header's declaration of
// exactly that type, or fails to compile: the list cannot drift from the CUDA headers.
// (cublasGemmEx also has an inline C++ overload in cublas_api.h, hence a cast, not decltype.)
#define CBS_DEFINE_WRAPPER(lib_, ret_, fn_, fail_, family_, traits_, ...)                                \
  CUBLASSPY_EXPORT ret_ fn_(CBS_MAP_COMMA(CBS_PARAM, __VA_ARGS__)) {                            \
    using Real = CBS_REAL_TYPE(ret_, __VA_ARGS__);                                              \
    static_assert(sizeof(static_cast<Real>(&::fn_)) != 0,                                       \
                  "hook_list.h prototype differs from the CUDA header: " #fn_);                 \
    CBS_RECORD_CALL(ret_, fn_, fail_, ::cublasspy::call_real<Real>, __VA_ARGS__)                \
  }
// kParams + the derived slots of every tag must fit in a record.
#define CBS_MAP_SEMI_PLUS(...) CBS_MAP_SPACE(CBS_DERIVED, __VA_ARGS__)

// The address table entry of a hook (same cast as above).
#define CBS_HOOK_INFO(lib_, ret_, fn_, fail_, family_, traits_, ...) \
  {#fn_, ::cublasspy::Library::lib_,                        \
   reinterpret_cast<void*>(static_cast<CBS_REAL_TYPE(ret_, __VA_ARGS__)>(&::fn_))},

namespace cublasspy {
// A wrapper's real call: the real function, as found, called with the program's arguments.
template <typename Real, typename... Args>
decltype(auto) call_real(void* real, Args... args) {
  return reinterpret_cast<Real>(real)(args...);
}

struct HookInfo {
  const char* name;
  Library library;
  void* address;
};
}  // namespace cublasspy
