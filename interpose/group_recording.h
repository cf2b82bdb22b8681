// A grouped GEMM's groups (cublas?gemmGroupedBatched, cublasGemmGroupedBatchedEx and the _64
// forms): the tags gather the per-group host arrays (cublas_tags.h: First, ScalarArray,
// GroupCount), record_groups() reads them once the record is in flight, into a table on the
// hook's own stack (only the grouped hooks have one, intercept.h) and into the trace's side
// area (format::SideKind::kGemmGroups), and the scans and dumps walk every group through it.
#pragma once

#include <cstdint>

#include "trace/trace_format.h"

namespace cublasspy {

struct CallContext;
class Runtime;

struct GroupArgs {
  // The per-group arrays by role, from kGroupSizeArray (35) to kLdcArray (45), as passed.
  static constexpr int kFirstRole = static_cast<int>(format::ArgRole::kGroupSizeArray);
  static constexpr int kArrays = static_cast<int>(format::ArgRole::kLdcArray) - kFirstRole + 1;
  const void* array[kArrays] = {};
  uint8_t element_bytes[kArrays] = {};  // 4 (int, cublasOperation_t) or 8 (int64_t)
  const void* alpha = nullptr;          // alpha_array, beta_array
  const void* beta = nullptr;
  int64_t group_count = -1;             // -1 until the tag saw it
  // Filled by record_groups(): the table, as the side entry holds it.
  bool read = false;
  format::GemmGroupsHeader header{};
  format::GemmGroup groups[format::kMaxRecordedGroups];

  template <typename T>
  void set_array(format::ArgRole role, const T* values) {
    const int i = static_cast<int>(role) - kFirstRole;
    if (i < 0 || i >= kArrays) return;
    array[i] = values;
    element_bytes[i] = sizeof(T);
  }
};

// Reads the arrays the tags gathered (host memory of the program, read late like the first
// group's values: a bad pointer crashes as it would in cuBLAS, with the call already named),
// fills ctx.groups' table and the record's first-group scalars, and attaches the table to the
// record in `rt`'s trace (only calls being recorded get here). Reads at most
// format::kMaxSummedGroups entries of group_size and format::kMaxRecordedGroups of the others.
void record_groups(CallContext& ctx, Runtime* rt, format::RecordSlot* slot, uint64_t seq);

}  // namespace cublasspy
