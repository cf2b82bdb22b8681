#include "trace/gemm_groups.h"

#include <cstring>

namespace cublasspy {

std::optional<GemmGroups> decode_gemm_groups(const std::vector<uint8_t>& bytes) {
  format::GemmGroupsHeader header;
  if (bytes.size() < sizeof header) return std::nullopt;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.entry_bytes != sizeof(format::GemmGroup) || header.recorded > format::kMaxRecordedGroups ||
      header.group_count < 0 || static_cast<uint64_t>(header.recorded) > static_cast<uint64_t>(header.group_count) ||
      bytes.size() != sizeof header + static_cast<uint64_t>(header.recorded) * sizeof(format::GemmGroup)) {
    return std::nullopt;
  }
  GemmGroups out;
  out.group_count = header.group_count;
  out.problem_count = header.problem_count;
  out.groups.resize(header.recorded);
  if (header.recorded != 0) {
    std::memcpy(out.groups.data(), bytes.data() + sizeof header, header.recorded * sizeof(format::GemmGroup));
  }
  return out;
}

std::optional<GemmGroups> gemm_groups_of(const TraceFile& trace, const CallView& call) {
  if (call.slot.side_head == 0) return std::nullopt;
  auto entry = trace.side_entry(call, static_cast<uint32_t>(format::SideKind::kGemmGroups));
  if (!entry) return std::nullopt;
  return decode_gemm_groups(entry->bytes);
}

}  // namespace cublasspy
