// The argument tags of cuBLAS (arg_tags.h): its handles and their shadow state, data and compute
// types, alpha and beta, the grouped GEMMs' per-group arrays, cublasXt's handle and the v1 API's
// scalars by value.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "arg_tags.h"
#include "call_context.h"
#include "runtime.h"

namespace cublasspy::tags {

// cudaDataType: remembered as C's type (the last one) for complex scalars of GemmEx.
template <ArgRole R = ArgRole::kNone>
struct DType : Plain<ArgKind::kDataType, R> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.last_type_slot = s;
  }
};
struct Compute : Plain<ArgKind::kComputeType, ArgRole::kComputeType> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.compute_slot = s;
  }
};

// A cuBLAS handle: the record carries the handle's stream, pointer and math mode, and the call
// is routed to the library that created the handle.
struct Handle : Plain<ArgKind::kPointer, ArgRole::kHandle> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    // The record through a local: the context is in memory, and read through it after each
    // atomic load below the record's address would be loaded again.
    format::Record& rec = c.rec;
    uint64_t h = bits(v);
    rec.args[s] = h;
    rec.handle = h;
    if (HandleState* st = find_handle(thread_state(), h)) {
      c.handle_state = st;
      c.variant = st->variant.load(std::memory_order_relaxed);
      rec.stream = st->stream.load(std::memory_order_relaxed);
      rec.pointer_mode = st->pointer_mode.load(std::memory_order_relaxed);
      rec.math_mode = st->math_mode.load(std::memory_order_relaxed);
    }
  }
  // The call's routing alone (arg_tags.h, route_arg): the library that created the handle.
  template <typename T> static void route(int& variant, T v) {
    if (HandleState* st = find_handle(thread_state(), bits(v))) variant = st->variant.load(std::memory_order_relaxed);
  }
  // A setter's handle (unchanged_setter.h): the state its values are compared with.
  template <typename Probe, typename T> static void probe(Probe& u, T v) {
    u.state = u.inline_only ? find_last_handle(thread_state(), bits(v)) : find_handle(thread_state(), bits(v));
    if (u.state == nullptr) u.unchanged = false;  // a handle the shim did not see created
  }
  // The handle's slot of an unchanged setter, from its state (the entry's key is the handle).
  template <typename T> static uint64_t state_arg(const HandleState& st) {
    return st.key.load(std::memory_order_relaxed);
  }
};

// cublasCreate's out-parameter: registers the new handle with the library its caller uses.
template <Library L>
struct HandleCreatedBy : Plain<ArgKind::kPointer, ArgRole::kHandle> {
  template <typename T> static void before(CallContext& c, int s, T) {
    c.rec.args[s] = format::kArgUnset;
    c.variant = variant_of_caller(L, c.caller);
  }
  template <typename T> static void after(CallContext& c, int s, T out, int status) {
    if (status != 0 || out == nullptr) return;
    uint64_t h = bits(*out);
    c.rec.args[s] = h;
    c.rec.handle = h;
    c.rec.pointer_mode = 0;
    c.rec.math_mode = 0;
    handles().add(h, c.variant);
  }
};

using HandleCreated = HandleCreatedBy<Library::kCublas>;
using LtHandleCreated = HandleCreatedBy<Library::kCublasLt>;

struct HandleDestroyed : Handle {
  template <typename T> static void after(CallContext&, int, T v, int status) {
    if (status == 0) handles().remove(bits(v));
  }
};
template <Library L>
inline constexpr bool kKeepsRouting<HandleCreatedBy<L>> = true;
template <>
inline constexpr bool kKeepsRouting<HandleDestroyed> = true;



// Setters update the shadow state once the real call accepted the value. Relaxed stores: the
// state is read relaxed, and a sequentially consistent store is a locked instruction on x86
// that waits for the record's stores to cold ring lines (most of a setter's cost in PyTorch,
// which sets the math mode before every GEMM).
template <ArgKind K, auto Field, ArgRole R = ArgRole::kNone>
struct Setter : Plain<K, R> {
  template <typename T> static void after(CallContext& c, int, T v, int status) {
    if (status == 0 && c.handle_state != nullptr) {
      auto& field = c.handle_state->*Field;
      using Value = typename std::remove_reference_t<decltype(field)>::value_type;
      field.store(static_cast<Value>(bits(v)), std::memory_order_relaxed);
    }
  }
  // Whether the value is the one the handle holds (unchanged_setter.h; after Handle::probe).
  template <typename Probe, typename T> static void probe(Probe& u, T v) {
    if (u.state == nullptr) return;
    auto& field = u.state->*Field;
    using Value = typename std::remove_reference_t<decltype(field)>::value_type;
    if (field.load(std::memory_order_relaxed) != static_cast<Value>(bits(v))) u.unchanged = false;
  }
  // The slot of an unchanged setter's value (parameter type T), from the state it equals: the
  // bits the argument itself gives.
  template <typename T> static uint64_t state_arg(const HandleState& st) {
    const auto value = (st.*Field).load(std::memory_order_relaxed);
    if constexpr (std::is_pointer_v<T>) return bits(reinterpret_cast<T>(static_cast<uintptr_t>(value)));
    else return bits(static_cast<T>(value));
  }
};
// A call with a Setter parameter is stamped once, at entry (format::kFlagStampedOnce): its
// duration would measure the shim more than the call.
template <typename Tag>
inline constexpr bool kSetsHandleState = false;
template <ArgKind K, auto Field, ArgRole R>
inline constexpr bool kSetsHandleState<Setter<K, Field, R>> = true;
// A setter's argument, probed (unchanged_setter.h): a template, so that the wrappers of the
// other hooks, whose tags have no probe(), never instantiate it.
template <typename Tag, typename Probe, typename T>
void probe_arg(Probe& u, T v) {
  Tag::probe(u, v);
}
template <typename Tag, typename T, typename State>
uint64_t state_arg(const State& st) {
  return Tag::template state_arg<T>(st);
}
using StreamSet = Setter<ArgKind::kPointer, &HandleState::stream, ArgRole::kStream>;
using WorkspaceSet = Setter<ArgKind::kPointer, &HandleState::workspace, ArgRole::kWorkspace>;
using WorkspaceBytesSet = Setter<ArgKind::kUInt, &HandleState::workspace_bytes, ArgRole::kWorkspaceBytes>;
using PModeSet = Setter<ArgKind::kPointerMode, &HandleState::pointer_mode>;
using MModeSet = Setter<ArgKind::kMathMode, &HandleState::math_mode>;

// says host memory (call_context.cpp).
template <ScalarType S>
struct Alpha : Plain<ArgKind::kPointer, ArgRole::kAlpha> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.scalar_type = S;
  }
  template <typename T> static void late(CallContext& c, int, T v) {
    read_scalar<S>(c, v, c.rec.alpha, format::kFlagAlphaKnown);
  }
};
template <ScalarType S>
struct Beta : Plain<ArgKind::kPointer, ArgRole::kBeta> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.scalar_type = S;
  }
  template <typename T> static void late(CallContext& c, int, T v) {
    read_scalar<S>(c, v, c.rec.beta, format::kFlagBetaKnown);
  }
};

// The role of a grouped GEMM's first-group value, by the role of the per-group array it is
// read from (m_array's first element is the GEMM's m, as far as one group describes it).
constexpr ArgRole first_group_role(ArgRole array) {
  switch (array) {
    case ArgRole::kTransAArray: return ArgRole::kTransA;
    case ArgRole::kTransBArray: return ArgRole::kTransB;
    case ArgRole::kMArray: return ArgRole::kM;
    case ArgRole::kNArray: return ArgRole::kN;
    case ArgRole::kKArray: return ArgRole::kK;
    case ArgRole::kLdaArray: return ArgRole::kLda;
    case ArgRole::kLdbArray: return ArgRole::kLdb;
    case ArgRole::kLdcArray: return ArgRole::kLdc;
    case ArgRole::kGroupSizeArray: return ArgRole::kFirstGroupSize;
    default: return ArgRole::kNone;
  }
}

// Grouped GEMMs pass per-group host arrays: the array's address goes in the slot (role
// `Array`), and the first group's value in a derived slot named without "_array" (m_array ->
// m, role kM), read late.
template <ArgKind K, ArgRole Array>
struct First : Plain<ArgKind::kPointer, Array> {
  static_assert(first_group_role(Array) != ArgRole::kNone, "a per-group array role");
  static constexpr int kDerived = 1;
  static void describe(format::FunctionEntry& e, const char* param) {
    std::string name = param;
    if (auto at = name.find("_array"); at != std::string::npos) name.erase(at);
    else name = "first_" + name;  // group_size -> first_group_size
    describe_derived(e, name.c_str(), K, first_group_role(Array));
  }
  template <typename T> static void before(CallContext& c, int s, DerivedSlots<kDerived> d, T v) {
    c.rec.args[s] = bits(v);
    c.rec.args[at<0>(d)] = format::kArgUnset;
  }
  template <typename T> static void late(CallContext& c, int, DerivedSlots<kDerived> d, T v) {
    if (v != nullptr) c.rec.args[at<0>(d)] = bits(v[0]);  // the element as the array holds it
    if (c.groups != nullptr) c.groups->set_array(Array, v);  // every group: record_groups()
  }
};
template <ArgRole Array> using FirstInt = First<ArgKind::kInt, Array>;
template <ArgRole Array> using FirstOp = First<ArgKind::kOperation, Array>;

// A grouped GEMM's alpha_array / beta_array: the address in the slot; every group's value is
// read by record_groups() (host pointer mode only), of the type S says.
template <ArgRole Array, ScalarType S>
struct ScalarArray : Plain<ArgKind::kPointer, Array> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.scalar_type = S;
    if (c.groups == nullptr) return;
    (Array == ArgRole::kAlphaArray ? c.groups->alpha : c.groups->beta) = v;
  }
};
template <ScalarType S> using AlphaArray = ScalarArray<ArgRole::kAlphaArray, S>;
template <ScalarType S> using BetaArray = ScalarArray<ArgRole::kBetaArray, S>;

// A grouped GEMM's group_count: how many entries of each array record_groups() reads.
struct GroupCount : Plain<ArgKind::kInt, ArgRole::kGroupCount> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    if (c.groups != nullptr) c.groups->group_count = static_cast<int64_t>(v);
  }
};

// cublasXt takes host scalars always and has its own handle type.
struct XtHandle : Plain<ArgKind::kPointer, ArgRole::kXtHandle> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.rec.pointer_mode = 0;
  }
};

// The legacy v1 API passes alpha/beta by value.
struct AlphaValue : Plain<ArgKind::kDouble, ArgRole::kAlpha> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    if constexpr (std::is_arithmetic_v<T>) c.rec.args[s] = bits(v);
    else c.rec.args[s] = bits(static_cast<double>(v.x));  // complex: the real part
    if constexpr (std::is_arithmetic_v<T>) c.rec.alpha[0] = v;
    else c.rec.alpha[0] = v.x, c.rec.alpha[1] = v.y;
    c.rec.flags |= format::kFlagAlphaKnown;
  }
};
struct BetaValue : Plain<ArgKind::kDouble, ArgRole::kBeta> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    if constexpr (std::is_arithmetic_v<T>) c.rec.args[s] = bits(v);
    else c.rec.args[s] = bits(static_cast<double>(v.x));  // complex: the real part
    if constexpr (std::is_arithmetic_v<T>) c.rec.beta[0] = v;
    else c.rec.beta[0] = v.x, c.rec.beta[1] = v.y;
    c.rec.flags |= format::kFlagBetaKnown;
  }
};

}  // namespace cublasspy::tags
