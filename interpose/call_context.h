// What one intercepted call knows while it runs: its record, the handle's state, the library
// variant it routes to, and where alpha/beta live. Filled by the argument tags (arg_tags.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <cublas_api.h>

#include "checks/check_ids.h"
#include "group_recording.h"
#include "handle_registry.h"
#include "real_functions.h"
#include "gemm/gemm_call.h"
#include "trace/trace_format.h"

namespace cublasspy {

// The type of alpha/beta, from the function (Sgemm: float) or from its compute type (GemmEx).
// cuBLASLt scalars have the matmul descriptor's scale type (kByScaleType).
enum class ScalarType : uint8_t { kNone, kF32, kF64, kC32, kC64, kF16, kI32, kByCompute, kByScaleType };

// What a cuBLASLt call gathers from its descriptors and layouts (the cuBLASLt tags).
struct LtCallState {
  int scale_type = -1;  // the matmul descriptor's scale type
  // What the layouts say, gathered to derive m, n, k on the D layout.
  uint64_t new_object = 0;  // a descriptor being created (Create/Init_internal)
  int transa = 0;
  bool transa_known = false;  // the matmul descriptor's TRANSA was known (set, default, or read back)
  int64_t a_rows = 0, a_cols = 0;
  int a_order = 0;
  uint64_t emulation_desc = 0;  // the matmul descriptor's emulation descriptor (0: none)
  // The matmul descriptor and the A, B, C, D layouts, for the checks of cuBLASLt's own rules.
  uint64_t matmul_desc = 0;
  uint64_t layouts[4] = {};
};

struct CallContext {
  // A constructor, not aggregate initialization: that would value-initialize `gemm` (zero its
  // few hundred bytes) on every call; default-initialized it costs one store.
  CallContext(format::Record& record, format::ScanSummary* summaries, const void* return_address)
      : rec(record), scan(summaries), caller(return_address) {}

  format::Record& rec;
  format::ScanSummary* scan;  // the record's four scan summaries (A, B, C, D)
  int64_t* plane_offset = nullptr;  // the slot's RecordSlot::plane_offset, zeroed per call
  const void* caller;  // return address of the hook: who called it
  int variant = kDefaultVariant;
  HandleState* handle_state = nullptr;
  ScalarType scalar_type = ScalarType::kNone;
  int compute_slot = -1;    // slot of a cublasComputeType_t argument
  int last_type_slot = -1;  // slot of the last cudaDataType argument (C's type)
  // cuBLASLt's calls alone: engaged by intercept() for them, so that the other calls, most of
  // them GEMMs and handle setters, do not clear its fields.
  std::optional<LtCallState> lt;
  // Grouped GEMMs: their arrays and groups (gemm_groups.h), on the hook's stack; else nullptr.
  GroupArgs* groups = nullptr;
  // The call's GEMM, once gemm_view() (gemm_view.h) found it; empty until then, so a call in
  // trace mode never builds one.
  std::optional<GemmCall> gemm;
};

// The slot a call's record lives in (the record is its first member): for the fields a slot
// holds beside the record (RecordSlot::pending_error).
inline format::RecordSlot& slot_of(CallContext& ctx) {
  static_assert(offsetof(format::RecordSlot, call) == 0);
  return *reinterpret_cast<format::RecordSlot*>(&ctx.rec);
}

// Whether alpha and beta may be read from host memory: the pointer mode says host, and the checks
// did not find them in device memory (reading one there would crash the program before cuBLAS
// does). Not for an unknown pointer mode (a handle the shim did not see created).
inline bool scalars_on_host(const CallContext& ctx) {
  if (ctx.rec.check_bits & check_bit(CheckId::kPointerModeMismatch)) return false;
  return ctx.rec.pointer_mode == CUBLAS_POINTER_MODE_HOST;
}

// Reads alpha or beta from host memory into `out` when the pointer mode says it is there.
// Called late: a bad host pointer crashes here as it would in cuBLAS, and the record, already
// visible as in flight, names the call.
void read_scalar(CallContext& ctx, const void* p, double out[2], uint32_t known_flag);
// The same for a scalar whose type the function fixes (Sgemm's float): inline for the real
// types, which are most GEMMs, as every such GEMM reads two.
template <ScalarType S>
inline void read_scalar(CallContext& ctx, const void* p, double out[2], uint32_t known_flag) {
  if constexpr (S == ScalarType::kF32 || S == ScalarType::kF64) {
    if (p == nullptr || !scalars_on_host(ctx)) return;
    if constexpr (S == ScalarType::kF32) out[0] = *static_cast<const float*>(p);
    else out[0] = *static_cast<const double*>(p);
    ctx.rec.flags |= known_flag;
  } else {
    read_scalar(ctx, p, out, known_flag);
  }
}
// The type alpha/beta have for this call (kByCompute and kByScaleType resolved), kNone when it
// cannot be read from host memory (device or unknown pointer mode, a device scalar found by the
// checks); and the bytes of one such scalar.
ScalarType host_scalar_type(const CallContext& ctx);
size_t scalar_bytes(ScalarType type);
// One scalar of `type` at `p` into out[0] (real part) and out[1].
void read_scalar_value(ScalarType type, const void* p, double out[2]);

}  // namespace cublasspy
