#include "gemm/gemm_call.h"

#include <string_view>
#include <utility>

namespace cublasspy {

int element_bytes(DataType t) {
  switch (t) {
    case DataType::kR8I: case DataType::kR8U: case DataType::kR8F_E4M3: case DataType::kR8F_E5M2:
      return 1;
    case DataType::kR16F: case DataType::kR16BF: case DataType::kC8I:
      return 2;
    case DataType::kR32F: case DataType::kR32I: case DataType::kC16F: case DataType::kC16BF:
      return 4;
    case DataType::kR64F: case DataType::kC32F: case DataType::kC32I:
      return 8;
    case DataType::kC64F:
      return 16;
    default:
      return 0;
  }
}

bool is_complex(DataType t) {
  switch (t) {
    case DataType::kC16F: case DataType::kC16BF: case DataType::kC32F: case DataType::kC64F:
    case DataType::kC8I: case DataType::kC32I:
      return true;
    default:
      return false;
  }
}

bool is_floating(DataType t) {
  switch (t) {
    case DataType::kR8I: case DataType::kR8U: case DataType::kC8I: case DataType::kR32I:
    case DataType::kC32I: case DataType::kUnknown:
      return false;
    default:
      return true;
  }
}

uint64_t Matrix::extent_bytes(int64_t batch_count) const {
  int bytes = element_bytes(type);
  if (!present || bytes == 0 || rows <= 0 || cols <= 0) return 0;
  // Column-major: the last element of a matrix is at (rows-1) + (cols-1)*ld.
  uint64_t one = static_cast<uint64_t>((cols - 1) * ld + rows);
  if (batch_count > 1 && stride > 0) one += static_cast<uint64_t>(stride) * (batch_count - 1);
  return one * bytes;
}

void apply_plane_offsets(const int64_t* offsets, GemmCall& g) {
  for (int i = 0; i < 4; ++i) g.op[i].plane_offset = offsets[i];
  if (g.output_is_c && offsets[3] == 0) g.op[3].plane_offset = g.op[2].plane_offset;
}

int slot_with_role(const format::FunctionEntry& entry, format::ArgRole role) {
  for (uint16_t i = 0; i < entry.arg_count && i < format::kMaxArgs; ++i) {
    if (entry.args[i].role == static_cast<uint8_t>(role)) return i;
  }
  return -1;
}

namespace {

bool is_legacy_char(const format::FunctionEntry& entry, int8_t slot) {
  return slot >= 0 && static_cast<format::ArgKind>(entry.args[slot].kind) == format::ArgKind::kLegacyChar;
}

// The slot's value, or nothing when the function has no such argument or the call left it unset.
std::optional<uint64_t> value(const format::Record& rec, int8_t slot) {
  if (slot < 0 || rec.args[slot] == format::kArgUnset) return std::nullopt;
  return rec.args[slot];
}
int64_t number(const format::Record& rec, int8_t slot, int64_t fallback) {
  auto v = value(rec, slot);
  return v ? static_cast<int64_t>(*v) : fallback;
}

int operation_of(const format::Record& rec, int8_t slot, bool legacy) {
  auto v = value(rec, slot);
  if (!v) return 0;
  if (legacy) {
    char c = static_cast<char>(*v);
    return (c == 'T' || c == 't') ? 1 : (c == 'C' || c == 'c') ? 2 : 0;
  }
  return static_cast<int>(*v);
}

// Stored shapes: op(A) is m x k, so A is stored m x k (N) or k x m (T/C); likewise B.
void set_stored_shapes(GemmCall& g) {
  g.op[0].rows = g.trans_a == 0 ? g.m : g.k;
  g.op[0].cols = g.trans_a == 0 ? g.k : g.m;
  g.op[1].rows = g.trans_b == 0 ? g.k : g.n;
  g.op[1].cols = g.trans_b == 0 ? g.n : g.k;
  g.op[2].rows = g.op[3].rows = g.m;
  g.op[2].cols = g.op[3].cols = g.n;
}

// A cuBLASLt order other than column-major as the column-major footprint it occupies (see
// Matrix::order). Sizes from a trace may be anything: a fold that would overflow is left undone.
void fold_order(Matrix& m) {
  int64_t tile = 0;
  switch (m.order) {
    case 1: std::swap(m.rows, m.cols); return;  // CUBLASLT_ORDER_ROW
    case 2: tile = 1; break;                      // CUBLASLT_ORDER_COL32
    case 3: tile = 8; break;                      // CUBLASLT_ORDER_COL4_4R2_8C
    case 4: tile = 32; break;                     // CUBLASLT_ORDER_COL32_2R_4R4
    default: return;
  }
  if (m.rows < 0 || m.cols < 0 || m.rows > (int64_t{1} << 40)) return;
  m.rows = 32 * ((m.rows + tile - 1) / tile * tile);
  m.cols = (m.cols + 31) / 32;
}

// A column-major CUDA_R_4F_E2M1 matrix as the bytes it occupies (see Matrix::packed_fp4).
void fold_packed_fp4(Matrix& m) {
  if (m.type != DataType::kR4F_E2M1 || m.order != 0 || m.rows < 0 || m.ld < 0 || m.stride < 0) return;
  m.rows = m.rows / 2 + m.rows % 2;
  m.ld = m.ld / 2 + m.ld % 2;
  m.stride = m.stride / 2 + m.stride % 2;
  m.type = DataType::kR8U;
  m.packed_fp4 = true;
}

}  // namespace

GemmCall group_call(const GemmCall& first, const format::GemmGroup& group, int64_t first_problem) {
  GemmCall g = first;
  g.m = group.m;
  g.n = group.n;
  g.k = group.k;
  g.trans_a = group.transa;
  g.trans_b = group.transb;
  g.batch_count = group.size;
  const int64_t ld[4] = {group.lda, group.ldb, group.ldc, group.ldc};
  for (int i = 0; i < 4; ++i) {
    Matrix& mat = g.op[i];
    mat.ld = ld[i];
    // The group's members are the next entries of each pointer array (64-bit addresses).
    if (mat.present && mat.array_ptr != 0) mat.array_ptr += static_cast<uint64_t>(first_problem) * sizeof(uint64_t);
  }
  set_stored_shapes(g);
  return g;
}

GemmSlots gemm_slots(const format::FunctionEntry& entry) {
  using format::ArgRole;
  GemmSlots s;
  // One pass over the descriptors: each role the view needs names the field its slot fills
  // (the first slot of a role wins, as a reader of the table expects).
  auto take = [](int8_t& field, uint16_t slot) {
    if (field < 0) field = static_cast<int8_t>(slot);
  };
  // The per-operand roles (kA..kD, kAType..kDType, ...) and the fields they fill.
  const std::pair<ArgRole, int8_t*> per_operand[] = {
      {ArgRole::kA, s.ptr}, {ArgRole::kAType, s.type}, {ArgRole::kLda, s.ld}, {ArgRole::kStrideA, s.stride},
      {ArgRole::kAOrder, s.order}};
  for (uint16_t i = 0; i < entry.arg_count && i < format::kMaxArgs; ++i) {
    const auto role = static_cast<ArgRole>(entry.args[i].role);
    switch (role) {
      case ArgRole::kM: take(s.m, i); break;
      case ArgRole::kN: take(s.n, i); break;
      case ArgRole::kK: take(s.k, i); break;
      case ArgRole::kTransA: take(s.transa, i); break;
      case ArgRole::kTransB: take(s.transb, i); break;
      case ArgRole::kBatchCount: take(s.batch_count, i); break;
      // A grouped GEMM's first group is first_group_size problems through the pointer arrays.
      case ArgRole::kFirstGroupSize: take(s.batch_count, i); break;
      case ArgRole::kComputeType: take(s.compute_type, i); break;
      case ArgRole::kAlpha: take(s.alpha, i); break;
      case ArgRole::kBeta: take(s.beta, i); break;
      case ArgRole::kBatchMode: take(s.batch_mode, i); break;
      case ArgRole::kXtHandle: s.host_operands = true; break;
      default:
        for (const auto& [first, fields] : per_operand) {
          const int o = static_cast<int>(role) - static_cast<int>(first);
          if (o >= 0 && o < 4) take(fields[o], i);
        }
        break;
    }
  }
  s.legacy_transa = is_legacy_char(entry, s.transa);
  s.legacy_transb = is_legacy_char(entry, s.transb);
  s.grouped = entry.family == static_cast<uint16_t>(format::Family::kGemmGrouped);
  // Grouped GEMMs pass arrays of pointers too: reading them as matrices scans pointer bytes.
  s.pointer_arrays = s.grouped || entry.family == static_cast<uint16_t>(format::Family::kGemmBatched);
  const int fixed = format::fixed_element_type(entry);
  s.implied = fixed < 0 ? DataType::kUnknown : static_cast<DataType>(fixed);
  s.index32 = (entry.traits & format::Trait::kInt32Sizes) != 0;
  return s;
}

GemmCall gemm_from_record(const format::FunctionEntry& entry, const format::Record& rec) {
  return gemm_from_record(gemm_slots(entry), rec);
}

GemmCall gemm_from_record(const GemmSlots& s, const format::Record& rec) {
  GemmCall g;
  gemm_from_record(s, rec, g);
  return g;
}

void gemm_from_record(const GemmSlots& s, const format::Record& rec, GemmCall& g) {
  if (!value(rec, s.m) || !value(rec, s.n) || !value(rec, s.k)) return;
  g.m = number(rec, s.m, 0);
  g.n = number(rec, s.n, 0);
  g.k = number(rec, s.k, 0);
  g.trans_a = operation_of(rec, s.transa, s.legacy_transa);
  g.trans_b = operation_of(rec, s.transb, s.legacy_transb);
  g.batch_count = number(rec, s.batch_count, 1);
  g.compute_type = static_cast<int>(number(rec, s.compute_type, -1));
  g.alpha_ptr = static_cast<uint64_t>(number(rec, s.alpha, 0));
  g.beta_ptr = static_cast<uint64_t>(number(rec, s.beta, 0));
  g.beta_zero = (rec.flags & format::kFlagBetaKnown) != 0 && rec.beta[0] == 0.0 && rec.beta[1] == 0.0;
  // A cuBLASLt layout in CUBLASLT_BATCH_MODE_POINTER_ARRAY passes arrays like the Batched forms.
  g.pointer_arrays = s.pointer_arrays || number(rec, s.batch_mode, 0) == 1;
  g.grouped = s.grouped;
  g.host_operands = s.host_operands;
  g.index32 = s.index32;
  for (int i = 0; i < 4; ++i) {
    Matrix& mat = g.op[i];
    auto p = value(rec, s.ptr[i]);
    if (!p) continue;
    mat.present = true;
    if (g.pointer_arrays) mat.array_ptr = *p;
    else mat.ptr = *p;
    auto t = value(rec, s.type[i]);
    mat.type = t ? static_cast<DataType>(static_cast<int32_t>(*t)) : s.implied;
    mat.ld = number(rec, s.ld[i], 0);
    mat.stride = number(rec, s.stride[i], 0);
    mat.order = static_cast<int32_t>(number(rec, s.order[i], 0));
  }
  set_stored_shapes(g);
  for (Matrix& mat : g.op) {
    fold_order(mat);
    fold_packed_fp4(mat);
  }
  if (!g.op[3].present) {
    g.op[3] = g.op[2];
    g.output_is_c = true;
  } else {
    g.output_is_c = g.op[3].ptr == g.op[2].ptr && g.op[3].array_ptr == g.op[2].array_ptr;
  }
  g.valid = true;
}

}  // namespace cublasspy
