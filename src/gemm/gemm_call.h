// A GEMM call in one normalized shape, whatever entry point made it: the checks, the scans, the
// dumps, the diagnoses and the replay all reason about this, never about a particular
// signature. Built from a record's argument slots by their roles (ArgDescriptor::role in the
// trace's function table), so it works in the shim (from the live record) and in the tools
// (from a trace: the reader gives traces older than roles theirs, trace_upgrade.cpp).
//
// Column-major throughout, as cuBLAS: op(A) is m x k, op(B) is k x n, C and D are m x n.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trace/trace_format.h"

namespace cublasspy {

// cudaDataType values used by the element rules (cuda's library_types.h numbering; their names:
// common/cuda_names.h, NameSet::kDataType).
enum class DataType : int32_t {
  kR16F = 2, kC16F = 6, kR16BF = 14, kC16BF = 15, kR32F = 0, kC32F = 4, kR64F = 1, kC64F = 5,
  kR8I = 3, kC8I = 7, kR8U = 8, kR32I = 10, kC32I = 11, kR8F_E4M3 = 28, kR8F_E5M2 = 29,
  kR4F_E2M1 = 33,  // half a byte: element_bytes 0; a GemmCall holds it as bytes (Matrix::packed_fp4)
  kUnknown = -1,
};
int element_bytes(DataType t);  // 0 if unknown
bool is_complex(DataType t);
bool is_floating(DataType t);

enum class Operand : uint8_t { kA = 0, kB = 1, kC = 2, kD = 3 };

struct Matrix {
  uint64_t ptr = 0;         // device address of the first matrix (for pointer-array forms: 0)
  uint64_t array_ptr = 0;   // Batched and grouped forms: the address of the pointer array
  DataType type = DataType::kUnknown;
  int64_t rows = 0;         // as stored (before the transpose): lda must be >= rows
  int64_t cols = 0;
  int64_t ld = 0;
  int64_t stride = 0;       // elements between batch members (StridedBatched), 0 otherwise
  // cuBLASLt planar complex (CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET): bytes from the real plane at
  // `ptr` to the imaginary plane, either sign; 0 for interleaved complex and everything else.
  int64_t plane_offset = 0;
  // A cuBLASLt layout's CUBLASLT_MATRIX_LAYOUT_ORDER (cublasLtOrder_t; 0, column-major, for
  // cuBLAS). gemm_from_record folds the others into rows, cols and ld: the column-major
  // footprint they occupy (ROW: the transpose's; COL32, COL4_4R2_8C, COL32_2R_4R4: one column of
  // 32 * rows (rounded up to the order's tile) elements per group of 32 columns, ld apart), so the
  // checks' column-major arithmetic measures the real memory.
  int32_t order = 0;
  // A CUDA_R_4F_E2M1 matrix (two elements a byte, the first in the low nibble; cuBLASLt's NVFP4):
  // gemm_from_record folds it into the bytes it occupies (type kR8U, rows, ld and stride halved,
  // rounded up), so the checks measure its real memory and a dump holds its bytes as stored.
  // E2M1 has no NaN or Inf encodings: as bytes it is not scanned.
  bool packed_fp4 = false;
  bool present = false;
  bool planar() const { return plane_offset != 0; }
  bool column_major() const { return order == 0; }
  // Bytes from the first element to one past the last element of one matrix, or of all
  // `batch_count` members when they are strided (stride 0 broadcasts one matrix).
  uint64_t extent_bytes(int64_t batch_count = 1) const;
};

struct GemmCall {
  bool valid = false;       // false: not a GEMM, or the record lacks what is needed
  int trans_a = 0, trans_b = 0;  // cublasOperation_t: 0 N, 1 T, 2 C
  int64_t m = 0, n = 0, k = 0;
  int64_t batch_count = 1;       // GroupedBatched: the first group's size
  bool pointer_arrays = false;   // Batched and GroupedBatched forms: A/B/C are arrays of pointers
  bool grouped = false;          // GroupedBatched: the first group is described here (group_call)
  bool host_operands = false;    // cublasXt: A, B and C are in host memory
  // A cuBLAS entry point with 32-bit sizes (cublasSgemm_v2, not cublasSgemm_v2_64, cuBLASLt or
  // cublasXt): cuBLAS indexes an operand's elements in 32 bits there (size-overflow).
  bool index32 = false;
  bool output_is_c = true;       // D == C (cuBLAS); cuBLASLt can have a separate D
  int compute_type = -1;
  Matrix op[4];                  // A, B, C, D (D mirrors C when output_is_c)
  uint64_t alpha_ptr = 0, beta_ptr = 0;
  // beta is known to be 0 (read in host pointer mode): a separate D's call reads no C, so C is
  // no operand of the checks (NVIDIA's FP8 samples pass C == D with C's type differing, beta 0).
  bool beta_zero = false;

  const Matrix& a() const { return op[0]; }
  const Matrix& b() const { return op[1]; }
  const Matrix& c() const { return op[2]; }
  const Matrix& d() const { return op[3]; }
};

// Builds the normalized call from a record. `entry` describes the record's slots.
GemmCall gemm_from_record(const format::FunctionEntry& entry, const format::Record& rec);

// Where gemm_from_record finds each argument of one function: slot indices by role, -1 when
// absent. Finding them is a pass over the function's descriptors, so code that runs per call
// (the shim's checks, scans and dumps) computes this once per function and keeps it.
struct GemmSlots {
  int8_t m = -1, n = -1, k = -1, transa = -1, transb = -1, batch_count = -1, compute_type = -1;
  int8_t alpha = -1, beta = -1, batch_mode = -1;
  int8_t ptr[4] = {-1, -1, -1, -1}, type[4] = {-1, -1, -1, -1}, ld[4] = {-1, -1, -1, -1},
         stride[4] = {-1, -1, -1, -1}, order[4] = {-1, -1, -1, -1};
  bool legacy_transa = false, legacy_transb = false;  // v1 API: 'N'/'T'/'C' characters
  bool pointer_arrays = false, grouped = false, host_operands = false, index32 = false;
  DataType implied = DataType::kUnknown;
};
GemmSlots gemm_slots(const format::FunctionEntry& entry);
GemmCall gemm_from_record(const GemmSlots& slots, const format::Record& rec);
// The same, built in `out` (a default GemmCall): the shim builds a call's view in place.
void gemm_from_record(const GemmSlots& slots, const format::Record& rec, GemmCall& out);

// A cuBLASLt matmul's plane offsets (the four of RecordSlot::plane_offset, A..D) onto its operands; D
// mirrors C's when it is C. Kept beside the slots: a record has no argument slot left for them.
void apply_plane_offsets(const int64_t* offsets, GemmCall& g);

// One group of a grouped GEMM as a call of its own: `first` (the record's view, which describes
// the first group) with group `group`'s shape and size, its members the pointer arrays'
// entries from `first_problem` on. The checks, scans and dumps go through every group so.
GemmCall group_call(const GemmCall& first, const format::GemmGroup& group, int64_t first_problem);

// The first slot of `entry` with `role`, -1 when it has none.
int slot_with_role(const format::FunctionEntry& entry, format::ArgRole role);

}  // namespace cublasspy
