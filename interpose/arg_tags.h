// Argument tags: how each argument of a hooked function is recorded, and what it changes in the
// shim's shadow state. The hook list (hook_list.h) names one tag per argument; the tag decides
// the slot's ArgKind and ArgRole for the reader (how to print it, what it means), what is
// written before the call, and what after it. The general tags take the role as a parameter
// (Int<Role::kM>, Ptr<Role::kA>; Int<> for none); the others have theirs (Handle, Alpha, ...).
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <cerrno>
#include <unistd.h>

#include <cublas_api.h>

#include <cublasLt.h>

#include "call_context.h"
#include "lt_descriptors.h"
#include "runtime.h"
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

// The common case: the value itself, before the call; nothing after.
// Every tag has three moments: before() writes the slot while the record is still private;
// late() runs once the record is visible as in flight and may read the program's host memory
// (a bad pointer then crashes with the call already named); after() sees the outcome.
// A tag may also fill derived slots (kDerived of them) after the parameters: e.g. the first
// group's m of a grouped GEMM, so the report can show it; describe() names them and gives each
// its kind and role.
void describe_derived(format::FunctionEntry& entry, const char* name, ArgKind kind, ArgRole role);

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
};
template <ArgRole R = ArgRole::kNone> using Int = Plain<ArgKind::kInt, R>;
template <ArgRole R = ArgRole::kNone> using UInt = Plain<ArgKind::kUInt, R>;
template <ArgRole R = ArgRole::kNone> using Ptr = Plain<ArgKind::kPointer, R>;
template <ArgRole R = ArgRole::kNone> using Op = Plain<ArgKind::kOperation, R>;
template <ArgRole R = ArgRole::kNone> using LegacyOp = Plain<ArgKind::kLegacyChar, R>;
using Algo = Plain<ArgKind::kGemmAlgo, ArgRole::kAlgo>;

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
    uint64_t h = bits(v);
    c.rec.args[s] = h;
    c.rec.handle = h;
    if (HandleState* st = find_handle(thread_state(), h)) {
      c.handle_state = st;
      c.variant = st->variant.load(std::memory_order_relaxed);
      c.rec.stream = st->stream.load(std::memory_order_relaxed);
      c.rec.pointer_mode = st->pointer_mode.load(std::memory_order_relaxed);
      c.rec.math_mode = st->math_mode.load(std::memory_order_relaxed);
    }
  }
  // A setter's handle (unchanged_setter.h): the state its values are compared with.
  template <typename Call, typename T> static void probe(Call& u, T v) {
    uint64_t h = bits(v);
    u.args[u.arg_count++] = h;
    u.state = find_handle(thread_state(), h);
    if (u.state == nullptr) u.unchanged = false;  // a handle the shim did not see created
    else u.variant = u.state->variant.load(std::memory_order_relaxed);
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

// A stream passed to the call itself (cuBLASLt, synchronization): the record's stream.
struct StreamArg : Plain<ArgKind::kPointer, ArgRole::kStream> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.rec.stream = bits(v);
  }
};

// Memory allocated or freed: cached pointer attributes (the checks) may now be stale.
struct FreedPtr : Plain<ArgKind::kPointer> {
  template <typename T> static void after(CallContext&, int, T, int status) {
    if (status == 0) allocation_generation().fetch_add(1, std::memory_order_release);
  }
};

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
  template <typename Call, typename T> static void probe(Call& u, T v) {
    u.args[u.arg_count++] = bits(v);
    if (u.state == nullptr) return;
    auto& field = u.state->*Field;
    using Value = typename std::remove_reference_t<decltype(field)>::value_type;
    if (field.load(std::memory_order_relaxed) != static_cast<Value>(bits(v))) u.unchanged = false;
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
template <typename Tag, typename Call, typename T>
void probe_arg(Call& u, T v) {
  Tag::probe(u, v);
}
using StreamSet = Setter<ArgKind::kPointer, &HandleState::stream, ArgRole::kStream>;
using WorkspaceSet = Setter<ArgKind::kPointer, &HandleState::workspace, ArgRole::kWorkspace>;
using WorkspaceBytesSet = Setter<ArgKind::kUInt, &HandleState::workspace_bytes, ArgRole::kWorkspaceBytes>;
using PModeSet = Setter<ArgKind::kPointerMode, &HandleState::pointer_mode>;
using MModeSet = Setter<ArgKind::kMathMode, &HandleState::math_mode>;

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

// cudaMalloc's out-pointer: new memory, so cached pointer attributes may be stale.
struct AllocatedPtr : Out<ArgKind::kPointer> {
  template <typename T> static void after(CallContext& c, int s, T out, int status) {
    Out<ArgKind::kPointer>::after(c, s, out, status);
    if (status == 0) allocation_generation().fetch_add(1, std::memory_order_release);
  }
};

// alpha/beta pointers: the address is recorded; the value is read late, when the pointer mode
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
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.rec.args[c.derived++] = format::kArgUnset;
  }
  template <typename T> static void late(CallContext& c, int, T v) {
    int d = c.derived++;
    if (v != nullptr) c.rec.args[d] = bits(v[0]);  // the element as the array holds it
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

// --- cuBLASLt -------------------------------------------------------------------------------

// Create's out-parameter / Init_internal's descriptor: registered after success; the following
// constructor arguments (LtInit<attribute>) then fill the shadow.
template <LtObject O, bool kOutParam>
struct LtCreated : Plain<ArgKind::kPointer> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    if constexpr (kOutParam) c.rec.args[s] = format::kArgUnset;
    else c.rec.args[s] = bits(v);
  }
  template <typename T> static void after(CallContext& c, int s, T v, int status) {
    if (status != 0) return;
    uint64_t desc;
    if constexpr (kOutParam) {
      if (v == nullptr) return;
      desc = bits(*v);
    } else {
      desc = bits(v);
    }
    c.rec.args[s] = desc;
    c.lt->new_object = desc;
    lt_registry().add(desc, O);
  }
};
template <uint32_t Attr, ArgKind K, ArgRole R = ArgRole::kNone>
struct LtInit : Plain<K, R> {
  template <typename T> static void after(CallContext& c, int, T v, int status) {
    if (status != 0 || c.lt->new_object == 0) return;
    uint64_t value = bits(v);
    lt_set_attribute(c.lt->new_object, Attr, &value, sizeof value);
  }
};
struct LtDestroyed : Plain<ArgKind::kPointer> {
  template <typename T> static void after(CallContext&, int, T v, int status) {
    if (status == 0) lt_registry().remove(bits(v));
  }
};

// SetAttribute(desc, attr, buf, size): the three arguments update the shadow together.
struct LtTarget : Plain<ArgKind::kPointer> {
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.lt->new_object = bits(v);
  }
};
using LtAttr = Plain<ArgKind::kLtAttribute>;
struct LtAttrBuffer : Plain<ArgKind::kPointer> {
  // The value itself goes in a derived slot, read late (it is host memory of the program).
  static constexpr int kDerived = 1;
  static void describe(format::FunctionEntry& e, const char*) {
    describe_derived(e, "value", ArgKind::kUInt, ArgRole::kNone);
  }
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.rec.args[c.derived++] = format::kArgUnset;
  }
  template <typename T> static void late(CallContext& c, int s, T v) {
    int d = c.derived++;
    if (v != nullptr) c.rec.args[d] = first_bytes(v, c.rec.args[s + 1]);
  }
  // Up to 8 bytes of the attribute's value; the size argument follows the buffer's slot.
  static uint64_t first_bytes(const void* v, uint64_t size) {
    uint64_t value = 0;
    std::memcpy(&value, v, size < sizeof value ? size : sizeof value);
    return value;
  }
};
// GetAttribute(obj, attr, buf, size, written): the value the call wrote, in a derived slot
// (its first 8 bytes), after a successful call.
// (The after phase walks the derived slots from the first again: this tag must own the
// function's first derived slot, as in every GetAttribute.)
struct LtAttrOutBuffer : LtAttrBuffer {
  template <typename T> static void late(CallContext& c, int, T) { c.derived++; }
  template <typename T> static void after(CallContext& c, int s, T v, int status) {
    int d = c.derived++;
    if (status == 0 && v != nullptr) c.rec.args[d] = first_bytes(v, c.rec.args[s + 1]);
  }
};
struct LtAttrSize : Plain<ArgKind::kUInt> {
  template <typename T> static void after(CallContext& c, int s, T size, int status) {
    if (status != 0) return;
    const void* buf = reinterpret_cast<const void*>(c.rec.args[s - 1]);
    uint32_t attr = static_cast<uint32_t>(c.rec.args[s - 2]);
    lt_set_attribute(c.lt->new_object, attr, buf, size);
  }
};

// The matmul descriptor of a matmul or heuristic query: its settings become derived slots.
struct LtMatmulDescArg : Plain<ArgKind::kPointer> {
  static constexpr int kDerived = 9;
  static void describe(format::FunctionEntry& e, const char*) {
    describe_derived(e, "compute_type", ArgKind::kComputeType, ArgRole::kComputeType);
    describe_derived(e, "scale_type", ArgKind::kDataType, ArgRole::kScaleType);
    describe_derived(e, "transa", ArgKind::kOperation, ArgRole::kTransA);
    describe_derived(e, "transb", ArgKind::kOperation, ArgRole::kTransB);
    describe_derived(e, "epilogue", ArgKind::kEpilogue, ArgRole::kEpilogue);
    describe_derived(e, "bias", ArgKind::kPointer, ArgRole::kBias);
    describe_derived(e, "a_scale", ArgKind::kPointer, ArgRole::kAScale);
    describe_derived(e, "b_scale", ArgKind::kPointer, ArgRole::kBScale);
    describe_derived(e, "d_scale", ArgKind::kPointer, ArgRole::kDScale);
  }
  template <typename T> static void before(CallContext& c, int s, T v) {
    uint64_t desc = bits(v);
    c.rec.args[s] = desc;
    const LtAttributes attributes(LtObject::kMatmulDesc, desc);
    auto get = [&](uint32_t attr) { return attributes.get(attr); };
    c.compute_slot = c.derived;
    c.rec.args[c.derived++] = get(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE);
    uint64_t scale = get(CUBLASLT_MATMUL_DESC_SCALE_TYPE);
    c.lt->scale_type = scale == format::kArgUnset ? -1 : static_cast<int>(scale);
    c.rec.args[c.derived++] = scale;
    uint64_t transa = get(CUBLASLT_MATMUL_DESC_TRANSA);
    c.lt->transa = transa == format::kArgUnset ? 0 : static_cast<int>(transa);
    c.lt->transa_known = transa != format::kArgUnset;
    c.rec.args[c.derived++] = transa;
    c.rec.args[c.derived++] = get(CUBLASLT_MATMUL_DESC_TRANSB);
    c.rec.args[c.derived++] = get(CUBLASLT_MATMUL_DESC_EPILOGUE);
    c.rec.args[c.derived++] = get(CUBLASLT_MATMUL_DESC_BIAS_POINTER);
    c.rec.args[c.derived++] = get(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER);
    c.rec.args[c.derived++] = get(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER);
    c.rec.args[c.derived++] = get(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER);
    uint64_t mode = get(CUBLASLT_MATMUL_DESC_POINTER_MODE);
    c.rec.pointer_mode = mode == format::kArgUnset ? -1 : static_cast<int32_t>(mode);
    c.lt->emulation_desc = get(CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR);
  }
  // The emulation settings in effect (RecordSlot::lt_emulation, beside the slots: none are
  // left), read late like the algorithm; written on every such call, zero without emulation.
  template <typename T> static void late(CallContext& c, int, T) {
    c.derived += kDerived;
    read_lt_emulation(c.lt->emulation_desc, slot_of(c).lt_emulation);
  }
};

// A matrix layout: type, ld, order and batch stride as derived slots; the D layout also gives
// the batch count and the GEMM's m, n, k (m, k from A's rows/cols, swapped by TRANSA; n from
// D's cols). ROWS and COLS are the matrix's own whatever its ORDER, which only says how the
// elements lie in memory (cublasLt.h: for ROW, ld is the distance between rows).
template <char Which>
struct LtLayoutArg : Plain<ArgKind::kPointer> {
  static constexpr bool kIsD = Which == 'd';
  static constexpr int kDerived = kIsD ? 9 : 4;
  static constexpr int kOperand = Which - 'a';  // the operand_role() index
  static void describe(format::FunctionEntry& e, const char*) {
    const std::string x(1, Which);
    describe_derived(e, (x + "_type").c_str(), ArgKind::kDataType, format::operand_role(ArgRole::kAType, kOperand));
    describe_derived(e, ("ld" + x).c_str(), ArgKind::kInt, format::operand_role(ArgRole::kLda, kOperand));
    describe_derived(e, (x + "_order").c_str(), ArgKind::kOrder, format::operand_role(ArgRole::kAOrder, kOperand));
    describe_derived(e, ("stride_" + x).c_str(), ArgKind::kInt, format::operand_role(ArgRole::kStrideA, kOperand));
    if constexpr (kIsD) {
      describe_derived(e, "batch_count", ArgKind::kInt, ArgRole::kBatchCount);
      describe_derived(e, "m", ArgKind::kInt, ArgRole::kM);
      describe_derived(e, "n", ArgKind::kInt, ArgRole::kN);
      describe_derived(e, "k", ArgKind::kInt, ArgRole::kK);
      // D's: the stand-in and cuBLASLt's documented layouts give all four operands one mode.
      describe_derived(e, "batch_mode", ArgKind::kInt, ArgRole::kBatchMode);
    }
  }
  template <typename T> static void before(CallContext& c, int s, T v) {
    uint64_t layout = bits(v);
    c.rec.args[s] = layout;
    const LtAttributes attributes(LtObject::kLayout, layout);
    auto get = [&](uint32_t attr) { return attributes.get(attr); };
    uint64_t type = get(CUBLASLT_MATRIX_LAYOUT_TYPE);
    c.rec.args[c.derived++] = type;
    if (type != format::kArgUnset) c.last_type_slot = c.derived - 1;
    c.rec.args[c.derived++] = get(CUBLASLT_MATRIX_LAYOUT_LD);
    uint64_t order = get(CUBLASLT_MATRIX_LAYOUT_ORDER);
    c.rec.args[c.derived++] = order;
    c.rec.args[c.derived++] = get(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
    // Planar complex: beside the slots (RecordSlot::plane_offset), which have no room left.
    if (uint64_t plane = get(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET);
        c.plane_offset != nullptr && plane != format::kArgUnset) {
      c.plane_offset[kOperand] = static_cast<int64_t>(plane);
    }
    int64_t rows = static_cast<int64_t>(get(CUBLASLT_MATRIX_LAYOUT_ROWS));
    int64_t cols = static_cast<int64_t>(get(CUBLASLT_MATRIX_LAYOUT_COLS));
    if constexpr (Which == 'a') {
      c.lt->a_rows = rows;
      c.lt->a_cols = cols;
    }
    if constexpr (kIsD) {
      c.rec.args[c.derived++] = get(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
      bool t = c.lt->transa != CUBLAS_OP_N;
      // A matmul descriptor whose TRANSA is not known (cuBLAS's own, made on its stack for a
      // matmul nested in a GemmEx, which the library does not read back): D is m x n whatever
      // the transposes, so A is transposed when its columns, not its rows, are D's rows.
      if (!c.lt->transa_known && static_cast<uint64_t>(rows) != format::kArgUnset) {
        t = c.lt->a_rows != rows && c.lt->a_cols == rows;
      }
      c.rec.args[c.derived++] = static_cast<uint64_t>(t ? c.lt->a_cols : c.lt->a_rows);  // m
      c.rec.args[c.derived++] = static_cast<uint64_t>(cols);                           // n
      c.rec.args[c.derived++] = static_cast<uint64_t>(t ? c.lt->a_rows : c.lt->a_cols);  // k
      c.rec.args[c.derived++] = get(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE);
    }
  }
  template <typename T> static void late(CallContext& c, int, T) { c.derived += kDerived; }
};

// cublasLtMatmul's algo: the pointer in the slot; a preset algorithm's 64 bytes on the record
// (RecordSlot::lt_algo) and its id in a derived slot, read late (lt_algo.cpp).
void read_lt_algo(CallContext& c, const cublasLtMatmulAlgo_t* algo, int id_slot);
struct LtAlgoArg : Plain<ArgKind::kPointer, ArgRole::kAlgo> {
  static constexpr int kDerived = 1;
  static void describe(format::FunctionEntry& e, const char*) {
    describe_derived(e, "algo_id", ArgKind::kInt, ArgRole::kLtAlgoId);
  }
  template <typename T> static void before(CallContext& c, int s, T v) {
    c.rec.args[s] = bits(v);
    c.rec.args[c.derived++] = format::kArgUnset;
  }
  template <typename T> static void late(CallContext& c, int, T v) { read_lt_algo(c, v, c.derived++); }
};

// Names for the tags above whose template arguments hold a comma (the hook list is a macro).
using LtDescCreated = LtCreated<LtObject::kMatmulDesc, true>;
using LtDescInitialized = LtCreated<LtObject::kMatmulDesc, false>;
using LtLayoutCreated = LtCreated<LtObject::kLayout, true>;
using LtLayoutInitialized = LtCreated<LtObject::kLayout, false>;
using LtPreferenceCreated = LtCreated<LtObject::kPreference, true>;
using LtPreferenceInitialized = LtCreated<LtObject::kPreference, false>;
using LtEmulationCreated = LtCreated<LtObject::kEmulationDesc, true>;
using LtEmulationInitialized = LtCreated<LtObject::kEmulationDesc, false>;
using LtInitComputeType = LtInit<CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, ArgKind::kComputeType, ArgRole::kComputeType>;
using LtInitScaleType = LtInit<CUBLASLT_MATMUL_DESC_SCALE_TYPE, ArgKind::kDataType, ArgRole::kScaleType>;
using LtInitType = LtInit<CUBLASLT_MATRIX_LAYOUT_TYPE, ArgKind::kDataType>;
using LtInitRows = LtInit<CUBLASLT_MATRIX_LAYOUT_ROWS, ArgKind::kUInt>;
using LtInitCols = LtInit<CUBLASLT_MATRIX_LAYOUT_COLS, ArgKind::kUInt>;
using LtInitLd = LtInit<CUBLASLT_MATRIX_LAYOUT_LD, ArgKind::kInt>;
using LtLayoutA = LtLayoutArg<'a'>;
using LtLayoutB = LtLayoutArg<'b'>;
using LtLayoutC = LtLayoutArg<'c'>;
using LtLayoutD = LtLayoutArg<'d'>;

// --- Library loads (dlopen_hook.cpp) -----------------------------------------------------------

// The requested file name, as text over 16 slots (127 bytes); the outcome, the path loaded or
// dlerror()'s text, in a derived text of 16 slots, written after the call.
void describe_placeholders(format::FunctionEntry& entry, int count);
std::string loaded_path_or_error(const char* filename, bool failed);

struct LoadedFile : Plain<ArgKind::kText, ArgRole::kFilename> {
  static constexpr int kSlots = 16;
  static constexpr int kDerived = 16;
  static void describe(format::FunctionEntry& e, const char*) {
    describe_derived(e, "result", ArgKind::kText, ArgRole::kLoadResult);
    describe_placeholders(e, kDerived - 1);
  }
  static void put_text(CallContext& c, int s, int slots, const char* text) {
    char* dst = reinterpret_cast<char*>(&c.rec.args[s]);
    size_t room = static_cast<size_t>(slots) * 8 - 1;
    size_t n = text ? std::min(room, std::strlen(text)) : 0;
    if (n) std::memcpy(dst, text, n);
    std::memset(dst + n, 0, slots * 8 - n);
  }
  template <typename T> static void before(CallContext& c, int s, T v) {
    put_text(c, s, kSlots, v);
    put_text(c, c.derived, kDerived, "");
    c.derived += kDerived;
  }
  template <typename T> static void late(CallContext& c, int, T) { c.derived += kDerived; }
  template <typename T> static void after(CallContext& c, int, T v, int status) {
    std::string outcome = loaded_path_or_error(v, status != 0);
    put_text(c, c.derived, kDerived, outcome.c_str());
  }
};

// --- The texts of failure codes (error_text_hooks.cpp) -------------------------------------------

// The failure code a program asked the text of, in its library's status words.
using ReportedStatus = Plain<ArgKind::kInt, ArgRole::kReportedStatus>;

// --- Replacing the image (exec_hooks.cpp) --------------------------------------------------------

// The program an exec replaces the image by, as text over 16 slots (127 bytes; a longer path
// keeps its beginning); and after an exec that returned (failed), its errno, in a derived slot.
// Nothing here allocates: an exec may follow a fork of a threaded program.
struct ExecTarget : Plain<ArgKind::kText, ArgRole::kExecTarget> {
  static constexpr int kSlots = 16;
  static constexpr int kDerived = 1;
  static void describe(format::FunctionEntry& e, const char*) {
    describe_derived(e, "errno", ArgKind::kInt, ArgRole::kNone);
  }
  static void put_target(CallContext& c, int s, const char* text) { LoadedFile::put_text(c, s, kSlots, text); }
  template <typename T> static void before(CallContext& c, int s, T v) {
    put_target(c, s, v);
    c.rec.args[c.derived++] = 0;
  }
  template <typename T> static void late(CallContext& c, int, T) { c.derived += kDerived; }
  // Right after the real call: errno is still the exec's.
  template <typename T> static void after(CallContext& c, int, T, int status) {
    if (status != 0) c.rec.args[c.derived] = static_cast<uint64_t>(errno);
    c.derived += kDerived;
  }
};

// fexecve's descriptor: the file it names, as /proc/self/fd gives it.
struct ExecFdTarget : ExecTarget {
  template <typename T> static void before(CallContext& c, int s, T fd) {
    char link[32] = "/proc/self/fd/";
    char digits[12];
    int n = 0;
    for (unsigned v = static_cast<unsigned>(fd); n == 0 || v != 0; v /= 10) {
      digits[n++] = static_cast<char>('0' + v % 10);
    }
    size_t at = std::strlen(link);
    while (n > 0) link[at++] = digits[--n];
    link[at] = 0;
    char target[kSlots * 8];
    ssize_t got = fd >= 0 ? ::readlink(link, target, sizeof target - 1) : -1;
    target[got > 0 ? got : 0] = 0;
    put_target(c, s, got > 0 ? target : fd >= 0 ? link : "(no descriptor)");
    c.rec.args[c.derived++] = 0;
  }
};

}  // namespace cublasspy::tags
