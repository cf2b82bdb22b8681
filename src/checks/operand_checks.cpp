#include "checks/operand_checks.h"

#include <algorithm>

namespace cublasspy {
namespace {

using Wide = ByteOffset;

constexpr int kA = 0, kB = 1, kC = 2, kD = 3, kAlpha = 4, kBeta = 5;
constexpr uint64_t kPointerBytes = sizeof(void*);

bool pointer_arrays(const GemmCall& g) { return g.pointer_arrays; }

// The address the call receives for an operand: the matrix, or its array of pointers.
uint64_t operand_address(const GemmCall& g, int op) {
  const Matrix& m = g.op[op];
  return m.array_ptr != 0 ? m.array_ptr : m.ptr;
}

Wide floor_div(Wide a, Wide b) {  // b > 0
  Wide q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
Wide ceil_div(Wide a, Wide b) {  // b > 0
  Wide q = a / b;
  return (a % b != 0 && a > 0) ? q + 1 : q;
}

// The integers t with t * step strictly between lo and hi (step != 0).
struct Range {
  Wide lo, hi;
};
Range multiples_between(Wide lo, Wide hi, Wide step) {
  if (step < 0) {
    step = -step;
    Wide flipped_lo = -hi;
    hi = -lo;
    lo = flipped_lo;
  }
  return {floor_div(lo, step) + 1, ceil_div(hi, step) - 1};
}

// No real call has a size, ld, stride or batch beyond 2^40 elements (a terabyte-scale
// dimension); bounding them keeps every product below 2^127.
constexpr int64_t kHuge = int64_t{1} << 40;
int64_t bounded(int64_t v) { return v > kHuge ? kHuge : v < -kHuge ? -kHuge : v; }
bool beyond_any_call(const Matrix& m, int64_t batch_count) {
  return m.rows > kHuge || m.cols > kHuge || m.ld > kHuge || m.stride > kHuge || m.stride < -kHuge ||
         batch_count > kHuge;
}

// One matrix in bytes, relative to its first element: `columns` segments of `segment` bytes,
// `pitch` bytes apart (pitch >= segment, so a matrix never overlaps itself).
struct Pitched {
  Wide segment, pitch, columns;
  Wide footprint() const { return (columns - 1) * pitch + segment; }
};

// All batch members of one operand: member i starts at origin + i * stride.
struct Batched {
  Wide origin;
  Pitched one;
  Wide stride;
  Wide members;
  Wide first() const { return origin + std::min<Wide>(0, (members - 1) * stride); }
  Wide last_end() const { return origin + std::max<Wide>(0, (members - 1) * stride) + one.footprint(); }
};

// The byte layout of a matrix operand; false when unknown or when its own columns overlap
// (ld < rows: the leading-dimension check reports that).
bool layout_of(const Matrix& m, int64_t batch_count, Batched* out) {
  int e = element_bytes(m.type);
  if (!m.present || e == 0 || m.rows <= 0 || m.cols <= 0 || beyond_any_call(m, batch_count)) return false;
  if (m.cols > 1 && m.ld < m.rows) return false;
  out->origin = m.ptr;
  out->one.segment = Wide{m.rows} * e;
  out->one.pitch = m.cols > 1 ? Wide{m.ld} * e : out->one.segment;
  out->one.columns = m.cols;
  out->members = std::max<int64_t>(batch_count, 1);
  out->stride = out->members > 1 ? Wide{m.stride} * e : 0;
  return true;
}

// Do matrices x (at 0) and y (at d) share a byte?
bool pitched_overlap(const Pitched& x, const Pitched& y, Wide d, int& budget) {
  if (d >= x.footprint() || d + y.footprint() <= 0) return false;
  if (x.pitch == y.pitch) {
    // Column j of x is [j*P, j*P + Lx), column j' of y is [d + j'*P, ... + Ly): they meet when
    // t = j - j' has t*P strictly between d - Lx and d + Ly.
    Range t = multiples_between(d - x.segment, d + y.segment, x.pitch);
    return std::max(t.lo, -(y.columns - 1)) <= std::min(t.hi, x.columns - 1);
  }
  // Different pitches (rare: only reached when the footprints meet): walk y's columns that fall
  // inside x's footprint and test each against x's columns.
  Range cols = multiples_between(-y.segment - d, x.footprint() - d, y.pitch);
  for (Wide j = std::max<Wide>(cols.lo, 0), last = std::min(cols.hi, y.columns - 1); j <= last; ++j) {
    if (--budget < 0) return false;
    Wide s = d + j * y.pitch;
    Range xs = multiples_between(s - x.segment, s + y.segment, x.pitch);
    if (std::max<Wide>(xs.lo, 0) <= std::min(xs.hi, x.columns - 1)) return true;
  }
  return false;
}

bool batched_overlap(const Batched& x, const Batched& y, int& budget) {
  if (x.last_end() <= y.first() || y.last_end() <= x.first()) return false;  // the usual case
  const Wide d0 = y.origin - x.origin;
  const Wide fx = x.one.footprint(), fy = y.one.footprint();
  // Members of x that meet y's whole span, then the members of y that meet each of them.
  Wide i_lo = 0, i_hi = 0;
  if (x.stride != 0 && x.members > 1) {
    Range r = multiples_between(y.first() - x.origin - fx, y.last_end() - x.origin, x.stride);
    i_lo = std::max<Wide>(r.lo, 0);
    i_hi = std::min(r.hi, x.members - 1);
  }
  for (Wide i = i_lo; i <= i_hi; ++i) {
    if (--budget < 0) return false;
    const Wide xo = i * x.stride;
    Wide j_lo = 0, j_hi = 0;
    if (y.stride != 0 && y.members > 1) {
      Range r = multiples_between(xo - fy - d0, xo + fx - d0, y.stride);
      j_lo = std::max<Wide>(r.lo, 0);
      j_hi = std::min(r.hi, y.members - 1);
    }
    for (Wide j = j_lo; j <= j_hi; ++j) {
      if (--budget < 0) return false;
      if (pitched_overlap(x.one, y.one, d0 + j * y.stride - xo, budget)) return true;
    }
  }
  return false;
}

Finding flag(CheckOperand op, uint64_t a, uint64_t b, bool array = false) {
  Finding f;
  f.flagged = true;
  f.operand = op;
  f.pointer_array = array;
  f.value_a = a;
  f.value_b = b;
  return f;
}

CheckOperand operand_code(int op) { return static_cast<CheckOperand>(op); }

// The matrices a call reads and writes, in report order. D only when it is its own operand.
int matrix_operands(const GemmCall& g, int out[4]) {
  int n = 0;
  out[n++] = kA;
  out[n++] = kB;
  out[n++] = kC;
  if (output_is_separate_d(g)) out[n++] = kD;
  return n;
}

void set_first(CheckFindings& all, CheckId id, const Finding& f) {
  if (!f.flagged) return;
  if (all.bits == 0) {
    CheckDetail d;
    d.present = true;
    d.id = id;
    d.operand = f.operand;
    d.pointer_array = f.pointer_array;
    d.value_a = f.value_a;
    d.value_b = f.value_b;
    pack_check_detail(d, all.detail);
  }
  all.bits |= check_bit(id);
}

bool sizes_valid(const GemmCall& g) {
  return g.valid && g.m >= 0 && g.n >= 0 && g.k >= 0 && g.batch_count >= 0;
}

}  // namespace

bool operand_used(const GemmCall& g, int op) {
  if (op < 0 || op > kD || !g.op[op].present) return false;
  if (g.m <= 0 || g.n <= 0 || g.batch_count <= 0) return false;
  if ((op == kA || op == kB) && g.k <= 0) return false;
  if (op == kC && g.beta_zero && output_is_separate_d(g)) return false;  // beta 0: C is not read
  return true;
}

bool output_is_separate_d(const GemmCall& g) {
  const Matrix& c = g.op[kC];
  const Matrix& d = g.op[kD];
  if (!d.present) return false;
  if (!g.output_is_c) return true;
  return d.ptr != c.ptr || d.array_ptr != c.array_ptr || d.ld != c.ld || d.type != c.type ||
         d.stride != c.stride;
}

ByteSpan operand_span(const GemmCall& g, int op) {
  ByteSpan span;
  if (op < 0 || op > kD || !g.op[op].present) return span;
  const Matrix& m = g.op[op];
  if (pointer_arrays(g)) {
    // Only the array is known: batch_count pointers (GroupedBatched: the first group's, at least).
    Wide count = bounded(std::max<int64_t>(g.batch_count, 1));
    span.valid = true;
    span.begin = operand_address(g, op);
    span.end = span.begin + count * kPointerBytes;
    return span;
  }
  int e = element_bytes(m.type);
  // Planar complex: each plane holds one real part per element, the imaginary plane
  // plane_offset bytes from the real one (either side).
  if (m.planar()) e /= 2;
  if (e == 0 || m.rows <= 0 || m.cols <= 0 || m.ld < 0) return span;
  // Column-major: the last element of one matrix is at (rows-1) + (cols-1)*ld. Values beyond
  // any real call are bounded: the span stays far larger than any allocation.
  Wide one = (Wide{bounded(m.cols)} - 1) * bounded(m.ld) * e + Wide{bounded(m.rows)} * e;
  Wide reach = (Wide{bounded(std::max<int64_t>(g.batch_count, 1))} - 1) * bounded(m.stride) * e;
  Wide plane = bounded(m.plane_offset);
  span.valid = true;
  span.begin = Wide{m.ptr} + std::min<Wide>(0, reach) + std::min<Wide>(0, plane);
  span.end = Wide{m.ptr} + std::max<Wide>(0, reach) + one + std::max<Wide>(0, plane);
  return span;
}

bool matrices_overlap(const GemmCall& g, int x, int y) {
  Batched lx, ly;
  // Planar layouts are two pitched planes each: not modelled, never called overlapping.
  if (pointer_arrays(g) || g.op[x].planar() || g.op[y].planar() || !layout_of(g.op[x], g.batch_count, &lx) ||
      !layout_of(g.op[y], g.batch_count, &ly)) {
    return false;
  }
  int budget = kOverlapBudget;
  return batched_overlap(lx, ly, budget);
}

bool batch_members_overlap(const Matrix& mat, int64_t batch_count, int64_t* i, int64_t* j) {
  Batched b;
  if (batch_count <= 1 || !layout_of(mat, batch_count, &b)) return false;
  if (b.stride == 0) {
    *i = 0, *j = 1;
    return true;
  }
  // Member 0 against member t covers every pair (the layout repeats); farther members than one
  // footprint away cannot meet.
  const Wide step = b.stride < 0 ? -b.stride : b.stride;
  int budget = kOverlapBudget;
  for (Wide t = 1; t < b.members && t * step < b.one.footprint(); ++t) {
    if (--budget < 0) return false;
    if (pitched_overlap(b.one, b.one, t * step, budget)) {
      *i = 0, *j = static_cast<int64_t>(t);
      return true;
    }
  }
  return false;
}

Finding check_leading_dimensions(const GemmCall& g) {
  int ops[4];
  int n = matrix_operands(g, ops);
  for (int k = 0; k < n; ++k) {
    const Matrix& m = g.op[ops[k]];
    if (!m.present) continue;
    int64_t need = std::max<int64_t>(1, m.rows);
    if (m.ld < need) {
      return flag(operand_code(ops[k]), static_cast<uint64_t>(m.ld) & kCheckDetailValueMask,
                  static_cast<uint64_t>(need));
    }
  }
  return {};
}

Finding check_batch_strides(const GemmCall& g) {
  if (g.batch_count <= 1 || pointer_arrays(g)) return {};
  const bool separate_d = output_is_separate_d(g);
  int ops[4];
  int n = matrix_operands(g, ops);
  for (int k = 0; k < n; ++k) {
    const int op = ops[k];
    if (!operand_used(g, op)) continue;
    const bool output = op == kD || (op == kC && !separate_d);
    if (!output && g.op[op].stride == 0) continue;  // a broadcast input: one matrix for all
    int64_t i = 0, j = 0;
    if (batch_members_overlap(g.op[op], g.batch_count, &i, &j)) {
      return flag(operand_code(op), static_cast<uint64_t>(i), static_cast<uint64_t>(j));
    }
  }
  return {};
}

Finding check_output_aliasing(const GemmCall& g) {
  const bool separate_d = output_is_separate_d(g);
  const int out = separate_d ? kD : kC;
  if (!operand_used(g, out)) return {};
  int inputs[3] = {kA, kB, kC};
  int count = separate_d ? 3 : 2;
  for (int k = 0; k < count; ++k) {
    const int in = inputs[k];
    if (!operand_used(g, in)) continue;
    if (pointer_arrays(g)) {
      // Only the arrays are known: the same array means every output is its own input.
      uint64_t a = operand_address(g, in);
      if (a != 0 && a == operand_address(g, out)) return flag(operand_code(out), in, 0, true);
      continue;
    }
    if (matrices_overlap(g, out, in)) return flag(operand_code(out), static_cast<uint64_t>(in), 0);
  }
  return {};
}

Finding check_size_overflow(const GemmCall& g) {
  if (!g.index32) return {};
  int ops[4];
  const int n = matrix_operands(g, ops);
  for (int k = 0; k < n; ++k) {
    const Matrix& m = g.op[ops[k]];
    if (!operand_used(g, ops[k]) || m.rows <= 0 || m.cols <= 0 || m.ld <= 0) continue;
    // (cols - 1) * ld + rows, without overflowing: the sizes come from a record, maybe a file's.
    int64_t span = 0;
    if (__builtin_mul_overflow(m.cols - 1, m.ld, &span) || __builtin_add_overflow(span, m.rows, &span)) {
      span = INT64_MAX;
    }
    if (span > kMax32BitElements) {
      return flag(operand_code(ops[k]), static_cast<uint64_t>(span) & kCheckDetailValueMask,
                  static_cast<uint64_t>(kMax32BitElements), pointer_arrays(g));
    }
  }
  return {};
}

Finding check_alignment(const GemmCall& g) {
  int ops[4];
  int n = matrix_operands(g, ops);
  for (int k = 0; k < n; ++k) {
    const int op = ops[k];
    if (!operand_used(g, op)) continue;
    uint64_t address = operand_address(g, op);
    uint64_t need = pointer_arrays(g) ? kPointerBytes : static_cast<uint64_t>(element_bytes(g.op[op].type));
    if (g.op[op].planar()) need /= 2;  // a plane holds one part of each element
    if (need > 1 && address % need != 0) return flag(operand_code(op), need, 0, pointer_arrays(g));
  }
  return {};
}

int scalar_on_device(int pointer_mode, bool beta) {
  switch (pointer_mode) {
    case 0: return 0;                // HOST
    case 1: case 2: return 1;        // DEVICE, DEVICE_VECTOR
    case 3: return beta ? -1 : 1;    // ALPHA_DEVICE_VECTOR_BETA_ZERO: beta is not read
    case 4: return beta ? 0 : 1;     // ALPHA_DEVICE_VECTOR_BETA_HOST
    default: return -1;
  }
}

OperandMemory query_operand_memory(const GemmCall& g, int pointer_mode, PointerQuery& query) {
  OperandMemory mem;
  int ops[4];
  int n = matrix_operands(g, ops);
  for (int k = 0; k < n; ++k) {
    if (!operand_used(g, ops[k])) continue;
    mem.address[ops[k]] = operand_address(g, ops[k]);
    mem.read_by_device[ops[k]] = true;
  }
  if (operand_used(g, kC)) {
    const int alpha_side = scalar_on_device(pointer_mode, false), beta_side = scalar_on_device(pointer_mode, true);
    if (alpha_side >= 0) mem.address[kAlpha] = g.alpha_ptr;
    if (beta_side >= 0) mem.address[kBeta] = g.beta_ptr;
    mem.read_by_device[kAlpha] = alpha_side == 1;
    mem.read_by_device[kBeta] = beta_side == 1;
  }
  for (int i = 0; i < 6; ++i) {
    if (mem.address[i] == 0) continue;
    bool asked = false;
    for (int j = 0; j < i && !asked; ++j) {
      if (mem.address[j] == mem.address[i]) mem.info[i] = mem.info[j], asked = true;
    }
    if (!asked) mem.info[i] = query.query(mem.address[i]);
  }
  return mem;
}

Finding check_pointer_mode(const GemmCall&, const OperandMemory& mem, int pointer_mode,
                           bool pageable_access) {
  for (int s = kAlpha; s <= kBeta; ++s) {
    const PointerInfo& info = mem.info[s];
    if (mem.address[s] == 0 || !info.known) continue;
    int want_device = scalar_on_device(pointer_mode, s == kBeta);
    bool wrong = (want_device == 0 && info.kind == MemoryKind::kDevice) ||
                 (want_device == 1 && info.kind == MemoryKind::kUnknown && !pageable_access);
    if (wrong) {
      uint64_t device = info.kind == MemoryKind::kDevice ? static_cast<uint64_t>(info.device) : ~uint64_t{0};
      return flag(operand_code(s), static_cast<uint64_t>(info.kind), device);
    }
  }
  return {};
}

Finding check_host_operands(const GemmCall& g, const OperandMemory& mem, bool pageable_access) {
  int ops[4];
  int n = matrix_operands(g, ops);
  for (int k = 0; k < n; ++k) {
    const int op = ops[k];
    if (!operand_used(g, op)) continue;
    const PointerInfo& info = mem.info[op];
    // cuBLASLt reads a separate C only when beta is not zero; programs may then pass null.
    bool null = operand_address(g, op) == 0 && !(op == kC && output_is_separate_d(g));
    bool unknown = info.known && info.kind == MemoryKind::kUnknown && !pageable_access;
    if (null || unknown) {
      return flag(operand_code(op), static_cast<uint64_t>(MemoryKind::kUnknown), 0, pointer_arrays(g));
    }
  }
  return {};
}

Finding check_out_of_bounds(const GemmCall& g, const OperandMemory& mem) {
  int ops[4];
  int n = matrix_operands(g, ops);
  for (int k = 0; k < n; ++k) {
    const int op = ops[k];
    const PointerInfo& info = mem.info[op];
    if (!operand_used(g, op)) continue;
    if (mem.address[op] == 0 || !info.known || info.kind == MemoryKind::kUnknown || info.size == 0) continue;
    ByteSpan span = operand_span(g, op);
    if (!span.valid) continue;
    if (span.begin < Wide{info.base} || span.end > Wide{info.base} + info.size) {
      return flag(operand_code(op), info.size & kCheckDetailValueMask, info.base, pointer_arrays(g));
    }
  }
  return {};
}

Finding check_device_mismatch(const GemmCall& g, const OperandMemory& mem, int call_device) {
  if (call_device < 0) return {};
  for (int op = 0; op < 6; ++op) {  // device-mode scalars are read by the call's device too
    const PointerInfo& info = mem.info[op];
    if (mem.address[op] == 0 || !mem.read_by_device[op] || !info.known || info.kind != MemoryKind::kDevice ||
        info.device < 0) {
      continue;
    }
    if (info.device != call_device) {
      bool array = op <= kD && pointer_arrays(g);
      return flag(operand_code(op), static_cast<uint64_t>(info.device), static_cast<uint64_t>(call_device), array);
    }
  }
  return {};
}

CheckFindings check_gemm_shape(const GemmCall& g) {
  CheckFindings all;
  if (!sizes_valid(g)) return all;
  set_first(all, CheckId::kInvalidLeadingDimension, check_leading_dimensions(g));
  set_first(all, CheckId::kInvalidStride, check_batch_strides(g));
  set_first(all, CheckId::kOutputAliasesInput, check_output_aliasing(g));
  set_first(all, CheckId::kMisalignedOperand, check_alignment(g));
  set_first(all, CheckId::kSizeOverflow, check_size_overflow(g));
  return all;
}

CheckFindings check_gemm(const GemmCall& g, int pointer_mode, int call_device, PointerQuery& query,
                         const LtMatmulExtras* lt) {
  CheckFindings all;
  if (!sizes_valid(g)) return all;
  // In CheckId order, so the detail describes the lowest id flagged.
  set_first(all, CheckId::kInvalidLeadingDimension, check_leading_dimensions(g));
  set_first(all, CheckId::kInvalidStride, check_batch_strides(g));
  set_first(all, CheckId::kOutputAliasesInput, check_output_aliasing(g));
  OperandMemory mem = query_operand_memory(g, pointer_mode, query);
  // Asked only when it matters: some address the driver does not know.
  bool pageable = false;
  for (int i = 0; i < 6; ++i) {
    if (mem.address[i] != 0 && mem.info[i].known && mem.info[i].kind == MemoryKind::kUnknown) {
      pageable = call_device >= 0 && query.pageable_memory_access(call_device);
      break;
    }
  }
  set_first(all, CheckId::kPointerModeMismatch, check_pointer_mode(g, mem, pointer_mode, pageable));
  set_first(all, CheckId::kHostPointerOperand, check_host_operands(g, mem, pageable));
  set_first(all, CheckId::kOperandOutOfBounds, check_out_of_bounds(g, mem));
  set_first(all, CheckId::kDeviceMismatch, check_device_mismatch(g, mem, call_device));
  set_first(all, CheckId::kMisalignedOperand, check_alignment(g));
  set_first(all, CheckId::kSizeOverflow, check_size_overflow(g));
  if (lt != nullptr) {  // cuBLASLt's own rules (cuBLAS's GemmEx takes no fp8)
    set_first(all, CheckId::kBatchCountMismatch, check_batch_counts(g, *lt));
    set_first(all, CheckId::kEpilogueOperand, check_epilogue_operands(g, *lt));
    // The layout rule only where the device is known (asked only for an fp8 matmul).
    const bool fp8 = is_fp8(g.op[0].type) || is_fp8(g.op[1].type);
    set_first(all, CheckId::kFp8Layout,
              check_fp8_layout(g, fp8 && call_device >= 0 ? query.compute_capability(call_device) : -1));
  }
  return all;
}

}  // namespace cublasspy
