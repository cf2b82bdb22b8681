// The argument tags of cuBLASLt (arg_tags.h): its descriptors' shadow (created, initialized,
// set), their attributes as a matmul reads them, and the algorithm a matmul is given.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include <cublasLt.h>

#include "arg_tags.h"
#include "call_context.h"
#include "cublas_tags.h"
#include "lt_descriptors.h"
#include "runtime.h"

namespace cublasspy::tags {

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
  template <typename T> static void before(CallContext& c, int s, DerivedSlots<kDerived> d, T v) {
    c.rec.args[s] = bits(v);
    c.rec.args[at<0>(d)] = format::kArgUnset;
  }
  template <typename T> static void late(CallContext& c, int s, DerivedSlots<kDerived> d, T v) {
    if (v != nullptr) c.rec.args[at<0>(d)] = first_bytes(v, c.rec.args[s + 1]);
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
struct LtAttrOutBuffer : LtAttrBuffer {
  template <typename T> static void late(CallContext&, int, DerivedSlots<kDerived>, T) {}
  template <typename T> static void after(CallContext& c, int s, DerivedSlots<kDerived> d, T v, int status) {
    if (status == 0 && v != nullptr) c.rec.args[at<0>(d)] = first_bytes(v, c.rec.args[s + 1]);
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
  template <typename T> static void before(CallContext& c, int s, DerivedSlots<kDerived> d, T v) {
    uint64_t desc = bits(v);
    c.rec.args[s] = desc;
    c.lt->matmul_desc = desc;
    const LtAttributes attributes(LtObject::kMatmulDesc, desc);
    auto get = [&](uint32_t attr) { return attributes.get(attr); };
    c.compute_slot = at<0>(d);
    c.rec.args[at<0>(d)] = get(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE);
    uint64_t scale = get(CUBLASLT_MATMUL_DESC_SCALE_TYPE);
    c.lt->scale_type = scale == format::kArgUnset ? -1 : static_cast<int>(scale);
    c.rec.args[at<1>(d)] = scale;
    uint64_t transa = get(CUBLASLT_MATMUL_DESC_TRANSA);
    c.lt->transa = transa == format::kArgUnset ? 0 : static_cast<int>(transa);
    c.lt->transa_known = transa != format::kArgUnset;
    c.rec.args[at<2>(d)] = transa;
    c.rec.args[at<3>(d)] = get(CUBLASLT_MATMUL_DESC_TRANSB);
    c.rec.args[at<4>(d)] = get(CUBLASLT_MATMUL_DESC_EPILOGUE);
    c.rec.args[at<5>(d)] = get(CUBLASLT_MATMUL_DESC_BIAS_POINTER);
    c.rec.args[at<6>(d)] = get(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER);
    c.rec.args[at<7>(d)] = get(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER);
    c.rec.args[at<8>(d)] = get(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER);
    uint64_t mode = get(CUBLASLT_MATMUL_DESC_POINTER_MODE);
    c.rec.pointer_mode = mode == format::kArgUnset ? -1 : static_cast<int32_t>(mode);
    c.lt->emulation_desc = get(CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR);
  }
  // The emulation settings in effect (RecordSlot::lt_emulation, beside the slots: none are
  // left), read late like the algorithm; written on every such call, zero without emulation.
  template <typename T> static void late(CallContext& c, int, DerivedSlots<kDerived>, T) {
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
  template <typename T> static void before(CallContext& c, int s, DerivedSlots<kDerived> d, T v) {
    uint64_t layout = bits(v);
    c.rec.args[s] = layout;
    c.lt->layouts[kOperand] = layout;
    const LtAttributes attributes(LtObject::kLayout, layout);
    auto get = [&](uint32_t attr) { return attributes.get(attr); };
    uint64_t type = get(CUBLASLT_MATRIX_LAYOUT_TYPE);
    c.rec.args[at<0>(d)] = type;
    if (type != format::kArgUnset) c.last_type_slot = at<0>(d);
    c.rec.args[at<1>(d)] = get(CUBLASLT_MATRIX_LAYOUT_LD);
    uint64_t order = get(CUBLASLT_MATRIX_LAYOUT_ORDER);
    c.rec.args[at<2>(d)] = order;
    c.rec.args[at<3>(d)] = get(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
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
      c.rec.args[at<4>(d)] = get(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
      bool t = c.lt->transa != CUBLAS_OP_N;
      // A matmul descriptor whose TRANSA is not known (cuBLAS's own, made on its stack for a
      // matmul nested in a GemmEx, which the library does not read back): D is m x n whatever
      // the transposes, so A is transposed when its columns, not its rows, are D's rows.
      if (!c.lt->transa_known && static_cast<uint64_t>(rows) != format::kArgUnset) {
        t = c.lt->a_rows != rows && c.lt->a_cols == rows;
      }
      c.rec.args[at<5>(d)] = static_cast<uint64_t>(t ? c.lt->a_cols : c.lt->a_rows);  // m
      c.rec.args[at<6>(d)] = static_cast<uint64_t>(cols);                           // n
      c.rec.args[at<7>(d)] = static_cast<uint64_t>(t ? c.lt->a_rows : c.lt->a_cols);  // k
      c.rec.args[at<8>(d)] = get(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE);
    }
  }
};

// cublasLtMatmul's algo: the pointer in the slot; a preset algorithm's 64 bytes on the record
// (RecordSlot::lt_algo) and its id in a derived slot, read late (lt_algo.cpp).
void read_lt_algo(CallContext& c, const cublasLtMatmulAlgo_t* algo, int id_slot);
struct LtAlgoArg : Plain<ArgKind::kPointer, ArgRole::kAlgo> {
  static constexpr int kDerived = 1;
  static void describe(format::FunctionEntry& e, const char*) {
    describe_derived(e, "algo_id", ArgKind::kInt, ArgRole::kLtAlgoId);
  }
  template <typename T> static void before(CallContext& c, int s, DerivedSlots<kDerived> d, T v) {
    c.rec.args[s] = bits(v);
    c.rec.args[at<0>(d)] = format::kArgUnset;
  }
  template <typename T> static void late(CallContext& c, int, DerivedSlots<kDerived> d, T v) {
    read_lt_algo(c, v, at<0>(d));
  }
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

}  // namespace cublasspy::tags
