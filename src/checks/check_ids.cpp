#include "checks/check_ids.h"

#include <cstdarg>
#include <cstdio>
#include <string_view>

#include "checks/operand_checks.h"
#include "common/cuda_names.h"
#include "common/diagnosis_ids.h"

namespace cublasspy {
namespace {

// By CheckId; the registry's (common/diagnosis_ids.h) ids of kind kCheck, each once.
constexpr const char* kNames[kCheckCount] = {
    ids::kInvalidLeadingDimension, ids::kInvalidStride,      ids::kOutputAliasesInput,
    ids::kPointerModeMismatch,     ids::kHostPointerOperand, ids::kOperandOutOfBounds,
    ids::kDeviceMismatch,          ids::kMisalignedOperand,  ids::kSizeOverflow,
    ids::kBatchCountMismatch,      ids::kEpilogueOperand,    ids::kFp8Layout,
};
static_assert([] {
  int checks = 0;
  for (const ids::IdInfo& info : ids::kIds) checks += info.kind == ids::IdKind::kCheck ? 1 : 0;
  for (const char* name : kNames) {
    // Matched by text, not through find_id's pointer: under -fsanitize=address GCC cannot fold
    // a global's address compared with null in a constant expression.
    bool a_check = false;
    for (const ids::IdInfo& info : ids::kIds) {
      a_check |= std::string_view(name) == info.id && info.kind == ids::IdKind::kCheck;
    }
    if (!a_check) return false;
  }
  return checks == kCheckCount;
}(), "every check id is one of the registry's, and the registry has no other check");

std::string text(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string text(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  if (n < 0) return {};
  return std::string(buffer, static_cast<size_t>(n) < sizeof buffer ? static_cast<size_t>(n) : sizeof buffer - 1);
}

using ull = unsigned long long;
using ll = long long;

constexpr const char* kLdNames[4] = {"lda", "ldb", "ldc", "ldd"};
constexpr const char* kStrideNames[4] = {"stride_a", "stride_b", "stride_c", "stride_d"};
const char* ld_name(int op) { return kLdNames[op]; }
const char* stride_name(int op) { return kStrideNames[op]; }
char trans_char(int t) { return t == 1 ? 'T' : t == 2 ? 'C' : 'N'; }

// The size names of an operand's stored rows and columns: A is m x k (N) or k x m (T/C).
const char* rows_name(const GemmCall& g, int op) {
  if (op == 0) return g.trans_a == 0 ? "m" : "k";
  if (op == 1) return g.trans_b == 0 ? "k" : "n";
  return "m";
}
const char* cols_name(const GemmCall& g, int op) {
  if (op == 0) return g.trans_a == 0 ? "k" : "m";
  if (op == 1) return g.trans_b == 0 ? "n" : "k";
  return "n";
}
// "transa=T, " for A and B, nothing for C and D.
std::string trans_part(const GemmCall& g, int op) {
  if (op == 0) return text("transa=%c, ", trans_char(g.trans_a));
  if (op == 1) return text("transb=%c, ", trans_char(g.trans_b));
  return {};
}

bool is_matrix(int op) { return op >= 0 && op < 4; }

uint64_t address_of(const GemmCall& g, int op) {
  if (op >= 4) return op == 4 ? g.alpha_ptr : g.beta_ptr;
  return g.op[op].array_ptr != 0 ? g.op[op].array_ptr : g.op[op].ptr;
}
bool arrays(const GemmCall& g) { return g.pointer_arrays; }

// "A" or "the pointer array of A".
std::string operand_name(const GemmCall& g, int op) {
  const char* name = check_operand_name(static_cast<CheckOperand>(op));
  return op < 4 && arrays(g) ? text("the pointer array of %s", name) : std::string(name);
}
// "A (0x7f0000001000)" or "the pointer array of A (0x...)".
std::string operand_ref(const GemmCall& g, int op) {
  return text("%s (0x%llx)", operand_name(g, op).c_str(), ull(address_of(g, op)));
}

bool detail_for(const format::Record& rec, CheckId id, CheckDetail* out) {
  *out = unpack_check_detail(rec.check_detail);
  return out->present && out->id == id && static_cast<int>(out->operand) < 6;
}
// The same for the checks whose finding may name no operand (CheckOperand::kNone).
bool operandless_detail_for(const format::Record& rec, CheckId id, CheckDetail* out) {
  *out = unpack_check_detail(rec.check_detail);
  return out->present && out->id == id;
}

const char* pointer_mode_name(int mode) {
  switch (mode) {
    case 0: return "host";
    case 1: return "device";
    case 2: return "device vector";
    case 3: return "alpha device vector, beta zero";
    case 4: return "alpha device vector, beta host";
    default: return "unknown";
  }
}

std::string leading_dimension_message(const GemmCall& g) {
  Finding f = check_leading_dimensions(g);
  int op = static_cast<int>(f.operand);
  if (!f.flagged || !is_matrix(op)) return "a leading dimension is below the rows its matrix spans";
  const Matrix& m = g.op[op];
  const char* name = check_operand_name(f.operand);
  if (m.rows < 1) {
    return text("%s=%lld is below 1: cuBLAS requires %s >= max(1, rows) even when %s has no rows (%s%s=%lld)",
                ld_name(op), ll(m.ld), ld_name(op), name, trans_part(g, op).c_str(), rows_name(g, op), ll(m.rows));
  }
  return text("%s=%lld is below the %lld rows %s spans (%s%s=%lld)", ld_name(op), ll(m.ld), ll(m.rows), name,
              trans_part(g, op).c_str(), rows_name(g, op), ll(m.rows));
}

std::string stride_message(const GemmCall& g) {
  Finding f = check_batch_strides(g);
  int op = static_cast<int>(f.operand);
  if (!f.flagged || !is_matrix(op)) return "batch members of an operand share elements";
  const Matrix& m = g.op[op];
  const char* name = check_operand_name(f.operand);
  if (m.stride == 0) {
    return text("%s=0 with batch_count=%lld: all %lld outputs %s are written to the same memory",
                stride_name(op), ll(g.batch_count), ll(g.batch_count), name);
  }
  // Wide: lds and sizes from a trace may be anything.
  auto span = static_cast<long long>((ByteOffset{m.cols} - 1) * m.ld + m.rows);
  auto usual = static_cast<long long>(ByteOffset{m.ld} * m.cols);
  return text("%s=%lld is smaller than one %s: batch members %llu and %llu share elements "
              "(one %s spans %lld elements: %lld columns at %s=%lld, %lld rows; %s*%s = %lld keeps them apart)",
              stride_name(op), ll(m.stride), name, ull(f.value_a), ull(f.value_b), name, span, ll(m.cols),
              ld_name(op), ll(m.ld), ll(m.rows), ld_name(op), cols_name(g, op), usual);
}

std::string aliasing_message(const GemmCall& g) {
  Finding f = check_output_aliasing(g);
  int out = static_cast<int>(f.operand);
  int in = static_cast<int>(f.value_a);
  if (!f.flagged || !is_matrix(out) || !is_matrix(in)) return "the output overlaps an input";
  const char* out_name = check_operand_name(f.operand);
  const char* in_name = check_operand_name(static_cast<CheckOperand>(in));
  if (f.pointer_array) {
    return text("the pointer array of %s (0x%llx) is also the one of %s: every output %s[i] is the input %s[i]",
                out_name, ull(address_of(g, out)), in_name, out_name, in_name);
  }
  if (out == 3 && in == 2 && g.op[2].ptr == g.op[3].ptr) {
    return text("D is C's memory (0x%llx) with another layout (ldd=%lld, ldc=%lld, stride_d=%lld, "
                "stride_c=%lld): in-place cuBLASLt needs D's layout to be C's",
                ull(g.op[3].ptr), ll(g.op[3].ld), ll(g.op[2].ld), ll(g.op[3].stride), ll(g.op[2].stride));
  }
  ByteSpan so = operand_span(g, out), si = operand_span(g, in);
  return text("output %s shares elements with input %s: %s spans 0x%llx..0x%llx, %s spans 0x%llx..0x%llx "
              "(the output is written while it is read)",
              out_name, in_name, out_name, ull(so.begin), ull(so.end), in_name, ull(si.begin), ull(si.end));
}

std::string pointer_mode_message(const GemmCall& g, const format::Record& rec) {
  CheckDetail d;
  const char* mode = pointer_mode_name(rec.pointer_mode);
  if (!detail_for(rec, CheckId::kPointerModeMismatch, &d)) {
    return text("alpha or beta lives in another memory space than the pointer mode (%s) says", mode);
  }
  int op = static_cast<int>(d.operand);
  const char* name = check_operand_name(d.operand);
  auto kind = static_cast<MemoryKind>(d.value_a);
  if (kind == MemoryKind::kDevice) {
    return text("%s (0x%llx) is device memory (device %lld) but the pointer mode is %s: cuBLAS reads %s on the CPU",
                name, ull(address_of(g, op)), ll(d.value_b), mode, name);
  }
  return text("%s (0x%llx) is host memory the driver does not know, but the pointer mode is %s: the GPU "
              "cannot read %s",
              name, ull(address_of(g, op)), mode, name);
}

std::string host_pointer_message(const GemmCall& g, const format::Record& rec) {
  CheckDetail d;
  // A null operand needs no driver: say so first whatever the detail holds.
  for (int op = 0; op < 4; ++op) {
    const bool separate_d = output_is_separate_d(g);
    if (op == 3 && !separate_d) continue;  // D mirrors C
    if (op == 2 && separate_d) continue;   // an input C may be null when beta is 0
    if (operand_used(g, op) && address_of(g, op) == 0) {
      const bool output = op == 3 || (op == 2 && !separate_d);
      return text("%s is a null pointer, yet the call %s it", operand_name(g, op).c_str(),
                  output ? "writes" : "reads");
    }
  }
  if (!detail_for(rec, CheckId::kHostPointerOperand, &d)) {
    return "an operand is memory the GPU cannot read (pageable host memory, or memory already freed); the "
           "trace keeps the addresses of the first finding only";
  }
  return text("%s is not memory the GPU can read: the driver does not know the address (pageable host "
              "memory, or memory already freed)",
              operand_ref(g, static_cast<int>(d.operand)).c_str());
}

std::string out_of_bounds_message(const GemmCall& g, const format::Record& rec) {
  CheckDetail d;
  if (!detail_for(rec, CheckId::kOperandOutOfBounds, &d)) {
    return "an operand runs past the end of its allocation; the trace keeps the sizes of the first finding only";
  }
  int op = static_cast<int>(d.operand);
  ByteSpan s = operand_span(g, op);
  if (!is_matrix(op) || !s.valid) {
    return text("%s runs past the end of its allocation (the allocation at 0x%llx holds %llu bytes)",
                check_operand_name(d.operand), ull(d.value_b), ull(d.value_a));
  }
  ByteOffset base = d.value_b, end = base + d.value_a;
  std::string where;
  if (s.begin < base) {
    where = text("starts %llu bytes before", ull(base - s.begin));
  } else {
    where = text("runs %llu bytes past the end of", ull(s.end - end));
  }
  return text("%s %s its allocation: it spans %llu bytes (0x%llx..0x%llx) while the allocation at 0x%llx holds "
              "%llu bytes",
              operand_ref(g, op).c_str(), where.c_str(), ull(s.end - s.begin), ull(s.begin), ull(s.end),
              ull(d.value_b), ull(d.value_a));
}

std::string device_message(const GemmCall& g, const format::Record& rec) {
  CheckDetail d;
  if (!detail_for(rec, CheckId::kDeviceMismatch, &d)) {
    return "an operand is memory of another device than the one the call runs on";
  }
  return text("%s is memory of device %lld, but the call runs on device %lld",
              operand_ref(g, static_cast<int>(d.operand)).c_str(), ll(d.value_a), ll(d.value_b));
}

std::string alignment_message(const GemmCall& g) {
  Finding f = check_alignment(g);
  int op = static_cast<int>(f.operand);
  if (!f.flagged || !is_matrix(op)) return "an operand is not aligned to its element size";
  if (f.pointer_array) {
    return text("%s is not aligned to the %llu bytes of a pointer", operand_ref(g, op).c_str(), ull(f.value_a));
  }
  const char* type = cuda_name(NameSet::kDataType, static_cast<int>(g.op[op].type));
  return text("%s is not aligned to its %llu-byte elements (%s)", operand_ref(g, op).c_str(), ull(f.value_a),
              type ? type : "?");
}

std::string size_overflow_message(const GemmCall& g, const char* function) {
  Finding f = check_size_overflow(g);
  int op = static_cast<int>(f.operand);
  if (!f.flagged || !is_matrix(op)) return "an operand spans more elements than a 32-bit entry point indexes";
  const Matrix& m = g.op[op];
  const std::string wide = function ? std::string(function) + "_64" : std::string("its _64 form");
  return text("%s spans %lld elements ((cols-1)*%s+rows = (%lld-1)*%lld+%lld), past the 2^31-1 that %s "
              "indexes in 32 bits; %s takes 64-bit sizes",
              check_operand_name(f.operand), ll(f.value_a), ld_name(op), ll(m.cols), ll(m.ld), ll(m.rows),
              function ? function : "a 32-bit entry point", wide.c_str());
}

// The epilogue's name for a message ("CUBLASLT_EPILOGUE_RELU_AUX_BIAS"), its number when unnamed.
std::string epilogue_name(uint32_t epilogue) {
  const char* name = cuda_name(NameSet::kLtEpilogue, static_cast<int>(epilogue));
  return name ? std::string(name) : text("epilogue %u", epilogue);
}

std::string batch_count_message(const format::Record& rec) {
  CheckDetail d;
  if (!detail_for(rec, CheckId::kBatchCountMismatch, &d) || !is_matrix(static_cast<int>(d.operand))) {
    return "the layouts' batch counts differ (CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT): cuBLASLt needs one count for "
           "A, B, C and D";
  }
  return text("%s's layout has CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT %llu but D's has %llu: cuBLASLt needs the same "
              "batch count on A, B, C and D (INVALID_VALUE, \"Input matrices batch counts mismatch\")",
              check_operand_name(d.operand), ull(d.value_a), ull(d.value_b));
}

std::string epilogue_message(const GemmCall& g, const format::Record& rec) {
  CheckDetail d;
  if (!operandless_detail_for(rec, CheckId::kEpilogueOperand, &d)) {
    return "the epilogue's bias or auxiliary buffer is missing, misaligned, or its ld breaks the epilogue's rule";
  }
  const uint32_t epilogue = static_cast<uint32_t>(d.value_a >> 8);
  const std::string name = epilogue_name(epilogue);
  switch (static_cast<EpilogueProblem>(d.value_a & 0xFF)) {
    case EpilogueProblem::kBiasMissing:
      return text("%s reads or writes a bias vector, but CUBLASLT_MATMUL_DESC_BIAS_POINTER is NULL", name.c_str());
    case EpilogueProblem::kBiasMisaligned:
      return text("%s's bias vector (0x%llx, CUBLASLT_MATMUL_DESC_BIAS_POINTER) is not aligned to its elements",
                  name.c_str(), ull(d.value_b));
    case EpilogueProblem::kAuxMissing:
      return text("%s reads or writes an auxiliary buffer, but CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER is NULL",
                  name.c_str());
    case EpilogueProblem::kAuxLd:
      return text("%s's CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD is %lld: it must be a multiple of %lld (%s) and at "
                  "least m=%lld",
                  name.c_str(), ll(d.value_b), ll(aux_ld_multiple(epilogue)),
                  aux_ld_multiple(epilogue) == 8 ? "GELU's input, in elements" : "ReLU's bit-mask, in bits", ll(g.m));
    case EpilogueProblem::kAuxMisaligned:
      return text("%s's auxiliary buffer (0x%llx) is not aligned to its elements", name.c_str(), ull(d.value_b));
  }
  return text("%s's operands break its rules", name.c_str());
}

std::string fp8_message(const GemmCall& g, const format::Record& rec) {
  CheckDetail d;
  if (!operandless_detail_for(rec, CheckId::kFp8Layout, &d)) {
    // Another check's numbers are kept: say what the call shows.
    return text("the fp8 matmul breaks what cuBLASLt's fp8 kernels need: 16-byte aligned matrices with lds in "
                "multiples of 16 bytes, and on Ada and Hopper A transposed and B not (transa=%c, transb=%c)",
                trans_char(g.trans_a), trans_char(g.trans_b));
  }
  const int op = static_cast<int>(d.operand);
  switch (static_cast<Fp8Problem>(d.value_a)) {
    case Fp8Problem::kPointer:
      if (is_matrix(op)) {
        return text("%s is not 16-byte aligned: cuBLASLt's fp8 kernels need every matrix on 16 bytes",
                    operand_ref(g, op).c_str());
      }
      break;
    case Fp8Problem::kLd:
      if (is_matrix(op)) {
        return text("%s=%lld is not a multiple of %llu: cuBLASLt's fp8 kernels need each ld in multiples of 16 "
                    "bytes (%llu elements of %s)",
                    ld_name(op), ll(g.op[op].ld), ull(d.value_b), ull(d.value_b),
                    cuda_name(NameSet::kDataType, static_cast<int>(g.op[op].type))
                        ? cuda_name(NameSet::kDataType, static_cast<int>(g.op[op].type))
                        : "?");
      }
      break;
    case Fp8Problem::kNotTn:
      return text("transa=%c, transb=%c: on compute capability %llu.%llu cuBLASLt's fp8 kernels take only the "
                  "\"TN\" layout, A transposed and B not",
                  trans_char(g.trans_a), trans_char(g.trans_b), ull(d.value_b / 10), ull(d.value_b % 10));
  }
  return "the fp8 matmul breaks what cuBLASLt's fp8 kernels need";
}

}  // namespace

const char* check_id_name(CheckId id) {
  auto i = static_cast<unsigned>(id);
  return i < kCheckCount ? kNames[i] : nullptr;
}

bool check_is_warning(CheckId id) { return id == CheckId::kMisalignedOperand; }

const char* check_severity(CheckId id) { return check_is_warning(id) ? "warning" : "error"; }

bool check_bits_have_error(uint32_t bits) {
  return (bits & ~check_bit(CheckId::kMisalignedOperand)) != 0;
}

const char* check_operand_name(CheckOperand op) {
  switch (op) {
    case CheckOperand::kA: return "A";
    case CheckOperand::kB: return "B";
    case CheckOperand::kC: return "C";
    case CheckOperand::kD: return "D";
    case CheckOperand::kAlpha: return "alpha";
    case CheckOperand::kBeta: return "beta";
    default: return "?";
  }
}

const char* memory_kind_name(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kDevice: return "device";
    case MemoryKind::kHost: return "pinned host";
    case MemoryKind::kManaged: return "managed";
    default: return "unknown to the driver";
  }
}

void pack_check_detail(const CheckDetail& d, uint64_t out[2]) {
  if (!d.present) {
    out[0] = out[1] = 0;
    return;
  }
  out[0] = (uint64_t{static_cast<uint8_t>(d.id)} + 1) << 56 | uint64_t{static_cast<uint8_t>(d.operand) & 0xFu} << 52 |
           uint64_t{d.pointer_array} << 51 | (d.value_a & kCheckDetailValueMask);
  out[1] = d.value_b;
}

CheckDetail unpack_check_detail(const uint64_t in[2]) {
  CheckDetail d;
  uint64_t tag = in[0] >> 56;
  if (tag == 0) return d;
  d.present = true;
  d.id = static_cast<CheckId>(tag - 1);
  d.operand = static_cast<CheckOperand>((in[0] >> 52) & 0xFu);
  d.pointer_array = ((in[0] >> 51) & 1u) != 0;
  d.value_a = in[0] & kCheckDetailValueMask;
  d.value_b = in[1];
  return d;
}

std::string check_message(CheckId id, const GemmCall& call, const format::Record& rec, const char* function) {
  switch (id) {
    case CheckId::kInvalidLeadingDimension: return leading_dimension_message(call);
    case CheckId::kInvalidStride: return stride_message(call);
    case CheckId::kOutputAliasesInput: return aliasing_message(call);
    case CheckId::kPointerModeMismatch: return pointer_mode_message(call, rec);
    case CheckId::kHostPointerOperand: return host_pointer_message(call, rec);
    case CheckId::kOperandOutOfBounds: return out_of_bounds_message(call, rec);
    case CheckId::kDeviceMismatch: return device_message(call, rec);
    case CheckId::kMisalignedOperand: return alignment_message(call);
    case CheckId::kSizeOverflow: return size_overflow_message(call, function);
    case CheckId::kBatchCountMismatch: return batch_count_message(rec);
    case CheckId::kEpilogueOperand: return epilogue_message(call, rec);
    case CheckId::kFp8Layout: return fp8_message(call, rec);
  }
  return "unknown check";
}

}  // namespace cublasspy
