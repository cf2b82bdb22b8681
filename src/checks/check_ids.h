// The argument checks of CUBLASSPY_CHECK=1 as a trace stores them: one bit per check in
// Record::check_bits, the numbers behind the first finding in Record::check_detail, and the
// sentence a report prints for each finding. Messages are built from the record alone, so the
// tools render them offline from a trace exactly as the shim would have. docs/CHECKS.md
// describes each check.
#pragma once

#include <cstdint>
#include <string>

#include "gemm/gemm_call.h"
#include "trace/trace_format.h"

namespace cublasspy {

// Bit positions in Record::check_bits. Traces store them: never renumber, only append.
//   bit 0  invalid-leading-dimension   error
//   bit 1  invalid-stride              error
//   bit 2  output-aliases-input        error
//   bit 3  pointer-mode-mismatch       error
//   bit 4  host-pointer-operand        error
//   bit 5  operand-out-of-bounds       error
//   bit 6  device-mismatch             error
//   bit 7  misaligned-operand          warning
//   bit 8  size-overflow               error
//   bit 9  batch-count-mismatch        error
//   bit 10 epilogue-operand            error
//   bit 11 fp8-layout                  error
enum class CheckId : uint8_t {
  kInvalidLeadingDimension = 0,
  kInvalidStride = 1,
  kOutputAliasesInput = 2,
  kPointerModeMismatch = 3,
  kHostPointerOperand = 4,
  kOperandOutOfBounds = 5,
  kDeviceMismatch = 6,
  kMisalignedOperand = 7,
  kSizeOverflow = 8,
  kBatchCountMismatch = 9,
  kEpilogueOperand = 10,
  kFp8Layout = 11,
};
inline constexpr int kCheckCount = 12;

constexpr uint32_t check_bit(CheckId id) { return 1u << static_cast<unsigned>(id); }

// The contract's id ("invalid-leading-dimension"); nullptr for a value past the known ones.
const char* check_id_name(CheckId id);
// "error" or "warning" (misaligned-operand is the only warning).
const char* check_severity(CheckId id);
bool check_is_warning(CheckId id);
// True when `bits` holds a finding of error severity (what CUBLASSPY_ON_ERROR should act on).
bool check_bits_have_error(uint32_t bits);

// What a finding names. Values are stored in check_detail: append only.
enum class CheckOperand : uint8_t { kA = 0, kB = 1, kC = 2, kD = 3, kAlpha = 4, kBeta = 5, kNone = 15 };
const char* check_operand_name(CheckOperand op);  // "A", "B", "C", "D", "alpha", "beta"

// Where the driver says an address lives. Stored in check_detail: append only.
enum class MemoryKind : uint8_t {
  kUnknown = 0,  // the driver does not know the address: pageable host memory, freed or garbage
  kDevice = 1,   // device memory of one device
  kHost = 2,     // pinned (page-locked) host memory: the GPU reads it through the bus
  kManaged = 3,  // managed (unified) memory: readable from host and devices
};
const char* memory_kind_name(MemoryKind kind);

// Record::check_detail, the numbers behind the first finding (lowest CheckId set; within one
// check, the first operand in the order A, B, C, D, alpha, beta):
//
//   detail[0] bits 56..63  CheckId + 1 of the finding described (0: no detail)
//             bits 52..55  CheckOperand
//             bit  51      1: the operand is the address of a pointer array (Batched forms)
//             bits  0..47  value_a
//   detail[1]              value_b
//
//   check                       operand        value_a                     value_b
//   invalid-leading-dimension   A/B/C/D        the ld passed               the minimum, max(1, rows)
//   invalid-stride              A/B/C/D        batch member i              member j (> i) sharing
//                                                                          elements with member i
//   output-aliases-input        C/D (output)   the input it overlaps       0
//                                              (CheckOperand)
//   pointer-mode-mismatch       alpha/beta     MemoryKind of the scalar    the scalar's device, or
//                                                                          2^64-1 when none
//   host-pointer-operand        A/B/C/D        MemoryKind (kUnknown)       0
//   operand-out-of-bounds       A/B/C/D        allocation size in bytes    allocation base address
//   device-mismatch             A/B/C/D        the operand's device        the call's device
//   misaligned-operand          A/B/C/D        required alignment (bytes)  0
//   size-overflow               A/B/C/D        the extent in elements      2^31 - 1, the most a
//                                              (48 bits kept)              32-bit entry point indexes
//   batch-count-mismatch        A/B/C          the layout's batch count    D's batch count
//   epilogue-operand            none           EpilogueProblem | epilogue  the pointer or aux ld at
//                                              << 8 (operand_checks.h)     fault (0 when missing)
//   fp8-layout                  A/B/C/D, or    Fp8Problem                  16 (pointer), the elements
//                               none (layout)  (operand_checks.h)          of 16 bytes (ld), the
//                                                                          compute capability (layout)
//
// Only the shim knows the driver's answers (allocation size/base, devices, memory kinds), so
// messages for the other driver-based findings of the same call are less specific.
struct CheckDetail {
  bool present = false;
  CheckId id = CheckId::kInvalidLeadingDimension;
  CheckOperand operand = CheckOperand::kNone;
  bool pointer_array = false;
  uint64_t value_a = 0;  // 48 bits are kept
  uint64_t value_b = 0;
};
inline constexpr uint64_t kCheckDetailValueMask = (uint64_t{1} << 48) - 1;
void pack_check_detail(const CheckDetail& detail, uint64_t out[2]);
CheckDetail unpack_check_detail(const uint64_t in[2]);

// A human sentence with the numbers, e.g. "lda=3 is below the 4 rows A spans (transa=N, m=4)".
// `call` is gemm_from_record(entry, rec); `rec` supplies check_detail and the pointer mode.
// `function` is the entry point's name: size-overflow names its _64 form (nullptr: "its _64 form").
std::string check_message(CheckId id, const GemmCall& call, const format::Record& rec,
                          const char* function = nullptr);

}  // namespace cublasspy
