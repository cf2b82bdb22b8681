// Argument tags: how each argument of a hooked function is recorded, and what it changes in the
// shim's shadow state. The hook list (hook_list.h) names one tag per argument; the tag decides
// the slot's ArgKind and ArgRole for the reader (how to print it, what it means), what is
// written before the call, and what after it. The general tags take the role as a parameter
// (Int<Role::kM>, Ptr<Role::kA>; Int<> for none); the others have theirs (Handle, Alpha, ...).
// This header holds what every library's tags are made of; the tags of each library are in
// cublas_tags.h (the v2 and v1 APIs, cublasXt), lt_tags.h (cuBLASLt), cuda_tags.h (the CUDA
// runtime and driver) and process_tags.h (library loads, exec, the texts of failure codes);
// hook_expansion.h applies them.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "call_context.h"
#include "trace/trace_format.h"

namespace cublasspy::tags {

using format::ArgKind;
using format::ArgRole;

template <typename T>
uint64_t bits(T v) {
  if constexpr (std::is_pointer_v<T>) return reinterpret_cast<uint64_t>(v);
  else if constexpr (std::is_enum_v<T>) return static_cast<uint64_t>(static_cast<int64_t>(v));
  else if constexpr (std::is_floating_point_v<T>) { double d = v; uint64_t u; std::memcpy(&u, &d, 8); return u; }
  else if constexpr (std::is_signed_v<T>) return static_cast<uint64_t>(static_cast<int64_t>(v));
  else return static_cast<uint64_t>(v);
}

// Every tag has three moments: before() writes the slot while the record is still private;
// late() runs once the record is visible as in flight and may read the program's host memory
// (a bad pointer then crashes with the call already named); after() sees the outcome.
// A tag may also fill derived slots after the parameters (kDerived of them): e.g. the first
// group's m of a grouped GEMM, so the report can show it; describe() names them and gives each
// its kind and role.
void describe_derived(format::FunctionEntry& entry, const char* name, ArgKind kind, ArgRole role);

// A tag's derived slots, `first` on. The expansion (hook_expansion.h) hands every moment of a
// tag the same ones and moves on by the tag's kDerived, in that one place: no tag advances a
// position of its own. A tag with derived slots takes them as DerivedSlots<kDerived> in each
// moment, and reaches its slot I as at<I>(d), checked against kDerived at compile time.
template <int N>
struct DerivedSlots {
  static_assert(N > 0, "a tag without derived slots takes none");
  int first;
};
template <int I, int N>
constexpr int at(DerivedSlots<N> d) {
  static_assert(I >= 0 && I < N, "a derived slot beyond the tag's kDerived");
  return d.first + I;
}

// The common case: the value itself, before the call; nothing after.
template <ArgKind K, ArgRole R = ArgRole::kNone>
struct Plain {
  static constexpr ArgKind kind = K;
  static constexpr ArgRole role = R;
  static constexpr int kSlots = 1;  // argument slots the parameter occupies
  static constexpr int kDerived = 0;
  static void describe(format::FunctionEntry&, const char*) {}
  template <typename T> static void before(CallContext& c, int s, T v) { c.rec.args[s] = bits(v); }
  template <typename T> static void late(CallContext&, int, T) {}
  template <typename T> static void after(CallContext&, int, T, int) {}
  // late() and after() of a tag with derived slots that has nothing to do then. Its before()
  // is its own: it writes them.
  template <int N, typename T> static void late(CallContext&, int, DerivedSlots<N>, T) {}
  template <int N, typename T> static void after(CallContext&, int, DerivedSlots<N>, T, int) {}
};
template <ArgRole R = ArgRole::kNone> using Int = Plain<ArgKind::kInt, R>;
template <ArgRole R = ArgRole::kNone> using UInt = Plain<ArgKind::kUInt, R>;
template <ArgRole R = ArgRole::kNone> using Ptr = Plain<ArgKind::kPointer, R>;
template <ArgRole R = ArgRole::kNone> using Op = Plain<ArgKind::kOperation, R>;
template <ArgRole R = ArgRole::kNone> using LegacyOp = Plain<ArgKind::kLegacyChar, R>;
using Algo = Plain<ArgKind::kGemmAlgo, ArgRole::kAlgo>;

// An out-parameter: its value after a successful call, kArgUnset when the call wrote nothing.
template <ArgKind K, ArgRole R = ArgRole::kNone>
struct Out {
  static constexpr ArgKind kind = K;
  static constexpr ArgRole role = R;
  static constexpr int kSlots = 1;
  static constexpr int kDerived = 0;
  static void describe(format::FunctionEntry&, const char*) {}
  template <typename T> static void late(CallContext&, int, T) {}
  template <typename T> static void before(CallContext& c, int s, T) {
    c.rec.args[s] = format::kArgUnset;
  }
  template <typename T> static void after(CallContext& c, int s, T out, int status) {
    if (status == 0 && out != nullptr) c.rec.args[s] = bits(*out);
  }
};
template <ArgRole R = ArgRole::kNone> using OutInt = Out<ArgKind::kStatusOut, R>;
template <ArgRole R = ArgRole::kNone> using OutPtr = Out<ArgKind::kPointer, R>;  // kArgUnset until written
using OutPMode = Out<ArgKind::kPointerMode>;
using OutMMode = Out<ArgKind::kMathMode>;

// A parameter's part in routing the call (which loaded library it goes to) when the shim only
// passes calls through (intercept.h, pass_through): its tag's route(), where it has one
// (cublas_tags.h, Handle); nothing otherwise.
template <typename Tag, typename T>
[[gnu::always_inline]] inline void route_arg(int& variant, T v) {
  if constexpr (requires { Tag::route(variant, v); }) Tag::route(variant, v);
}
// A tag whose after() keeps what routing reads (a handle created or destroyed, in the handles'
// registry): its hook's calls take the whole path even when the shim passes calls through, so
// that the calls on the handle that follow are routed.
template <typename Tag>
inline constexpr bool kKeepsRouting = false;

}  // namespace cublasspy::tags
