// The macros that turn one hook-list entry into an exported wrapper. Shared by hooks.cpp (the
// v2 API, cuBLASLt, CUDA) and hooks_legacy.cpp (the v1 API, which needs cublas.h instead of
// cublas_v2.h). Include after the CUDA headers of the translation unit.
#pragma once

#include <type_traits>

#include "arg_tags.h"
#include "cublas_tags.h"
#include "cuda_tags.h"
#include "launch_tags.h"
#include "lt_tags.h"
#include "process_tags.h"
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
#define CBS_BEFORE(type, name, tag) ::cublasspy::tags::apply_before<::cublasspy::tags::tag>(ctx, cbs_at, name)
#define CBS_LATE(type, name, tag) ::cublasspy::tags::apply_late<::cublasspy::tags::tag>(ctx, cbs_at, name)
#define CBS_AFTER(type, name, tag) ::cublasspy::tags::apply_after<::cublasspy::tags::tag>(ctx, cbs_at, name, status)
#define CBS_PROBE(type, name, tag) ::cublasspy::tags::probe_arg<::cublasspy::tags::tag>(call, name)
#define CBS_STATE_ARG(type, name, tag) args[i++] = ::cublasspy::tags::state_arg<::cublasspy::tags::tag, type>(state)
#define CBS_SLOTS(type, name, tag) + ::cublasspy::tags::tag::kSlots
#define CBS_SETS_STATE(type, name, tag) || ::cublasspy::tags::kSetsHandleState<::cublasspy::tags::tag>
#define CBS_DERIVED(type, name, tag) + ::cublasspy::tags::tag::kDerived
#define CBS_ROUTE(type, name, tag) ::cublasspy::tags::route_arg<::cublasspy::tags::tag>(cbs_variant, name)
#define CBS_KEEPS_ROUTING(type, name, tag) || ::cublasspy::tags::kKeepsRouting<::cublasspy::tags::tag>

// The real function's type, as the hook list spells it.
#define CBS_REAL_TYPE(ret_, ...) ret_ (*)(CBS_MAP_COMMA(CBS_TYPE, __VA_ARGS__))

// The recording every wrapper shares, as the statement that returns its result: hook fn_'s
// record is begun, its arguments written (before, then late), the real function called as
// call_(real, arguments...), the outcome written (after). Each phase walks the parameters with
// one SlotCursor: argument slots from 0, derived slots from kParams.
// Expanded inside a function whose parameters are the hook's and whose caller is the program:
// __builtin_return_address(0) is the call site the record keeps.
// The moments' lambdas are made from the arguments by a function of them, which passes them to
// its first argument (intercept.h, make_moments): inline, in the wrapper's usual case, where they
// cost nothing, or out of line from the copies of the arguments that the out-of-line path is
// given (a lambda built in the wrapper and passed out of line would be built, its captures
// stored, before the wrapper knows which path it takes).
// CBS_RECORD_CALL's call_ is an object of the wrapper (a loader, an exec's replacement image):
// the real call uses it by reference, and the call takes the whole path even when the shim
// passes calls through (what the object does is more than the plain call).
// kPassesThrough: when the shim passes calls through (CUBLASSPY_DISABLE=1), the call is only
// routed and made (intercept.h), unless a tag keeps what routing reads (a handle's creation).
#define CBS_INLINE __attribute__((always_inline))
#define CBS_NO_REF(x)
#define CBS_BY_REF(x) , &x
#define CBS_RECORD_CALL(ret_, fn_, fail_, call_, ...) \
  CBS_RECORD_CALL_CAPTURING(&, CBS_BY_REF, false, ret_, fn_, fail_, call_, __VA_ARGS__)
// The same, the function of the arguments capturing as `capture_` says (`=` where `call_` is a
// function, the exported wrappers: then it captures nothing) and the real call capturing call_
// as call_ref_ says (CBS_NO_REF, CBS_BY_REF), and passing through where may_pass_ allows.
#define CBS_RECORD_CALL_CAPTURING(capture_, call_ref_, may_pass_, ret_, fn_, fail_, call_, ...)  \
  constexpr int kParams = 0 CBS_MAP_SPACE(CBS_SLOTS, __VA_ARGS__);                              \
  constexpr int kDerivedSlots = 0 CBS_MAP_SEMI_PLUS(__VA_ARGS__);                               \
  static_assert(kParams + kDerivedSlots <= ::cublasspy::format::kMaxArgs);                      \
  constexpr bool kStampedOnce = false CBS_MAP_SPACE(CBS_SETS_STATE, __VA_ARGS__);               \
  constexpr bool kPassesThrough = may_pass_ && !(false CBS_MAP_SPACE(CBS_KEEPS_ROUTING, __VA_ARGS__)); \
  return ::cublasspy::intercept<::cublasspy::FnId::k##fn_, ret_, kParams + kDerivedSlots,       \
                               kStampedOnce, kPassesThrough>(                                   \
      fail_, __builtin_return_address(0),                                                       \
      [capture_](auto&& cbs_use CBS_MAP_AFTER_COMMA(CBS_PARAM, __VA_ARGS__)) CBS_INLINE {        \
        return cbs_use(                                                                         \
            [=]([[maybe_unused]] ::cublasspy::CallContext& ctx) {                               \
              [[maybe_unused]] ::cublasspy::tags::SlotCursor cbs_at{0, kParams};                \
              CBS_MAP_SEMI(CBS_BEFORE, __VA_ARGS__)                                             \
            },                                                                                  \
            [=]([[maybe_unused]] ::cublasspy::CallContext& ctx) {                               \
              [[maybe_unused]] ::cublasspy::tags::SlotCursor cbs_at{0, kParams};                \
              CBS_MAP_SEMI(CBS_LATE, __VA_ARGS__)                                               \
            },                                                                                  \
            [= call_ref_(call_)](void* real) {                                                  \
              return call_(real CBS_MAP_AFTER_COMMA(CBS_NAME, __VA_ARGS__));                    \
            },                                                                                  \
            [=]([[maybe_unused]] ::cublasspy::CallContext& ctx, [[maybe_unused]] int status) {  \
              [[maybe_unused]] ::cublasspy::tags::SlotCursor cbs_at{0, kParams};                \
              CBS_MAP_SEMI(CBS_AFTER, __VA_ARGS__)                                              \
            },                                                                                  \
            /* generic: compiled only for the setters, whose tags have probe() and state_arg() */ \
            [=](auto& call) { CBS_MAP_SEMI(CBS_PROBE, __VA_ARGS__) },                           \
            [=]([[maybe_unused]] int& cbs_variant) { CBS_MAP_SEMI(CBS_ROUTE, __VA_ARGS__) });   \
      },                                                                                        \
      []([[maybe_unused]] const auto& state, [[maybe_unused]] uint64_t* args) {                 \
        [[maybe_unused]] int i = 0;                                                             \
        CBS_MAP_SEMI(CBS_STATE_ARG, __VA_ARGS__)                                                \
        return i;                                                                               \
      } CBS_MAP_AFTER_COMMA(CBS_NAME, __VA_ARGS__));

// The exported wrapper of a hook: the shared recording around a plain call of the real
// function. The cast of &::fn_ to the hook list's type selects the header's declaration of
// exactly that type, or fails to compile: the list cannot drift from the CUDA headers.
// (cublasGemmEx also has an inline C++ overload in cublas_api.h, hence a cast, not decltype.)
#define CBS_DEFINE_WRAPPER(lib_, ret_, fn_, fail_, family_, traits_, ...)                                \
  CUBLASSPY_EXPORT ret_ fn_(CBS_MAP_COMMA(CBS_PARAM, __VA_ARGS__)) {                            \
    using Real = CBS_REAL_TYPE(ret_, __VA_ARGS__);                                              \
    static_assert(sizeof(static_cast<Real>(&::fn_)) != 0,                                       \
                  "hook_list.h prototype differs from the CUDA header: " #fn_);                 \
    CBS_RECORD_CALL_CAPTURING(=, CBS_NO_REF, true, ret_, fn_, fail_, ::cublasspy::call_real<Real>, __VA_ARGS__) \
  }
// kParams + the derived slots of every tag must fit in a record.
#define CBS_MAP_SEMI_PLUS(...) CBS_MAP_SPACE(CBS_DERIVED, __VA_ARGS__)

// The address table entry of a hook (same cast as above).
#define CBS_HOOK_INFO(lib_, ret_, fn_, fail_, family_, traits_, ...) \
  {#fn_, ::cublasspy::Library::lib_,                        \
   reinterpret_cast<void*>(static_cast<CBS_REAL_TYPE(ret_, __VA_ARGS__)>(&::fn_))},

namespace cublasspy::tags {
// Where the next parameter's slots are: its argument slots (kSlots of them, from 0) and its
// derived slots (kDerived, after every parameter's). Every moment of a hook walks the
// parameters with a cursor of its own from the start, and only apply_*() below move it, each by
// the tag's two constants: a tag sees the same slots in before(), late() and after(), and cannot
// move them (arg_tags.h, DerivedSlots). Inlined, the cursor is a constant at each parameter.
struct SlotCursor {
  int arg;
  int derived;
};

template <typename Tag>
[[gnu::always_inline]] inline void advance(SlotCursor& cursor) {
  static_assert(Tag::kSlots > 0 && Tag::kDerived >= 0, "a tag's slot counts");
  cursor.arg += Tag::kSlots;
  cursor.derived += Tag::kDerived;
}

// One moment of one parameter's tag, with its slots; a tag with derived slots gets them too.
template <typename Tag, typename T>
[[gnu::always_inline]] inline void apply_before(CallContext& c, SlotCursor& cursor, T v) {
  if constexpr (Tag::kDerived == 0) Tag::before(c, cursor.arg, v);
  else Tag::before(c, cursor.arg, DerivedSlots<Tag::kDerived>{cursor.derived}, v);
  advance<Tag>(cursor);
}
template <typename Tag, typename T>
[[gnu::always_inline]] inline void apply_late(CallContext& c, SlotCursor& cursor, T v) {
  if constexpr (Tag::kDerived == 0) Tag::late(c, cursor.arg, v);
  else Tag::late(c, cursor.arg, DerivedSlots<Tag::kDerived>{cursor.derived}, v);
  advance<Tag>(cursor);
}
template <typename Tag, typename T>
[[gnu::always_inline]] inline void apply_after(CallContext& c, SlotCursor& cursor, T v, int status) {
  if constexpr (Tag::kDerived == 0) Tag::after(c, cursor.arg, v, status);
  else Tag::after(c, cursor.arg, DerivedSlots<Tag::kDerived>{cursor.derived}, v, status);
  advance<Tag>(cursor);
}
}  // namespace cublasspy::tags

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
