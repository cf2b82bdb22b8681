#include "group_recording.h"

#include <atomic>
#include <cstddef>

#include "call_context.h"
#include "runtime.h"

namespace cublasspy {
namespace {

// Element i of a per-group array of 4- or 8-byte integers (cublasOperation_t is an int).
int64_t element(const GroupArgs& g, format::ArgRole role, int64_t i) {
  const int a = static_cast<int>(role) - GroupArgs::kFirstRole;
  const void* p = g.array[a];
  if (p == nullptr) return 0;
  if (g.element_bytes[a] == 8) return static_cast<const int64_t*>(p)[i];
  return static_cast<const int32_t*>(p)[i];
}

}  // namespace

void record_groups(CallContext& ctx, Runtime* rt, format::RecordSlot* slot, uint64_t seq) {
  using format::ArgRole;
  GroupArgs& g = *ctx.groups;
  const int64_t count = g.group_count;
  const int sizes = static_cast<int>(ArgRole::kGroupSizeArray) - GroupArgs::kFirstRole;
  // Without its group count or sizes a call describes no group: cuBLAS refuses it.
  if (count < 0 || g.array[sizes] == nullptr) return;
  const uint32_t recorded = static_cast<uint32_t>(count < format::kMaxRecordedGroups ? count : format::kMaxRecordedGroups);
  const ScalarType scalar = host_scalar_type(ctx);
  const size_t scalar_size = scalar_bytes(scalar);
  for (uint32_t i = 0; i < recorded; ++i) {
    format::GemmGroup& e = g.groups[i];
    e.m = element(g, ArgRole::kMArray, i);
    e.n = element(g, ArgRole::kNArray, i);
    e.k = element(g, ArgRole::kKArray, i);
    e.lda = element(g, ArgRole::kLdaArray, i);
    e.ldb = element(g, ArgRole::kLdbArray, i);
    e.ldc = element(g, ArgRole::kLdcArray, i);
    e.size = element(g, ArgRole::kGroupSizeArray, i);
    e.transa = static_cast<int32_t>(element(g, ArgRole::kTransAArray, i));
    e.transb = static_cast<int32_t>(element(g, ArgRole::kTransBArray, i));
    e.flags = 0;
    e.reserved = 0;
    e.alpha = e.beta = 0;
    // Host pointer mode: alpha_array and beta_array are host arrays of group_count scalars.
    if (scalar_size != 0) {
      double value[2] = {0, 0};
      if (g.alpha != nullptr) {
        read_scalar_value(scalar, static_cast<const char*>(g.alpha) + i * scalar_size, value);
        e.alpha = value[0];
        e.flags |= format::kGroupAlphaKnown;
      }
      if (g.beta != nullptr) {
        value[0] = value[1] = 0;
        read_scalar_value(scalar, static_cast<const char*>(g.beta) + i * scalar_size, value);
        e.beta = value[0];
        e.flags |= format::kGroupBetaKnown;
      }
    }
  }
  int64_t problems = 0;
  const int64_t summed = count < format::kMaxSummedGroups ? count : format::kMaxSummedGroups;
  for (int64_t i = 0; i < summed; ++i) problems += element(g, ArgRole::kGroupSizeArray, i);
  g.header.group_count = count;
  g.header.problem_count = problems;
  g.header.recorded = recorded;
  g.header.entry_bytes = sizeof(format::GemmGroup);
  g.read = true;
  // The first group's scalars are the record's alpha and beta (the first group's m, n, k are
  // its derived slots already).
  if (recorded > 0 && (g.groups[0].flags & format::kGroupAlphaKnown)) {
    ctx.rec.alpha[0] = g.groups[0].alpha;
    ctx.rec.flags |= format::kFlagAlphaKnown;
  }
  if (recorded > 0 && (g.groups[0].flags & format::kGroupBetaKnown)) {
    ctx.rec.beta[0] = g.groups[0].beta;
    ctx.rec.flags |= format::kFlagBetaKnown;
  }
  if (rt == nullptr) return;
  // A program making grouped GEMMs in a loop would fill the side area with tables and leave no
  // room for the stacks of a later failing call: the tables use at most half of it, and past
  // that a call keeps its first group in its slots only (its scans and checks still see every
  // group: they use the table on the stack).
  format::FileHeader* h = rt->writer.header();
  const uint64_t length = sizeof g.header + recorded * sizeof(format::GemmGroup);
  if (std::atomic_ref<uint64_t>(h->side_used).load(std::memory_order_relaxed) + length > h->side_bytes / 2) {
    return;
  }
  // One entry: the header and the groups after it, as GroupArgs lays them out.
  static_assert(offsetof(GroupArgs, groups) == offsetof(GroupArgs, header) + sizeof(format::GemmGroupsHeader));
  rt->writer.attach(slot, seq, static_cast<uint32_t>(format::SideKind::kGemmGroups), &g.header,
                    static_cast<uint32_t>(length));
}

}  // namespace cublasspy
