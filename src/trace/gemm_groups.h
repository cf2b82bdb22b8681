// A grouped GEMM's group table (format::SideKind::kGemmGroups, format version 5) as a reader
// sees it: decoded from the side entry and checked, never trusted (the bytes come from a file).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "trace/trace_format.h"
#include "trace/trace_reader.h"

namespace cublasspy {

struct GemmGroups {
  int64_t group_count = 0;    // the call's group_count
  int64_t problem_count = 0;  // the sum of the group sizes (format::kMaxSummedGroups at most)
  std::vector<format::GemmGroup> groups;  // the first format::kMaxRecordedGroups groups
};

// nullopt when the entry is not a well-formed group table: shorter than its header, another
// entry size, more groups than the writer keeps or than the call had, or a length that does not
// match the count.
std::optional<GemmGroups> decode_gemm_groups(const std::vector<uint8_t>& bytes);

// The call's groups, when the trace holds a valid table for it.
std::optional<GemmGroups> gemm_groups_of(const TraceFile& trace, const CallView& call);

}  // namespace cublasspy
