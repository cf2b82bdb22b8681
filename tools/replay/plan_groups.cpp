// A plan for a grouped GEMM's groups: the trace's group table, checked, or the first group alone
// (older traces), and the room each operand's members need.
#include <algorithm>
#include <string>

#include "replay/plan_steps.h"
#include "trace/gemm_groups.h"

namespace cublasspy::replay {

using format::ArgKind;
using format::ArgRole;

// A grouped call's groups (the trace's table, format version 5; older traces describe the
// first group alone): p_.groups, and the problems of all of them, which are the members.
int64_t PlanBuilder::plan_groups(const GemmCall& g) {
  const int64_t group_count = optional_slot(ArgRole::kGroupCount, 1);
  const std::optional<GemmGroups> table = gemm_groups_of(trace_, call_);
  if (!table) {
    GroupPlan first;
    first.transa = g.trans_a, first.transb = g.trans_b;
    first.m = g.m, first.n = g.n, first.k = g.k;
    first.lda = g.op[0].ld, first.ldb = g.op[1].ld, first.ldc = g.op[2].ld;
    first.size = required(ArgRole::kFirstGroupSize, "first_group_size", "the first group's size was not read");
    p_.groups = {first};
    groups_alpha_known_ = groups_beta_known_ = false;
    if (group_count > 1) {
      out_.notes.push_back("the trace describes the first of " + std::to_string(group_count) +
                           " groups only (no group table: older than format version 5): the replay runs that group alone");
    }
    return first.size;
  }
  int64_t problems = 0;
  for (const format::GemmGroup& recorded : table->groups) {
    GroupPlan one;
    one.transa = recorded.transa, one.transb = recorded.transb;
    one.m = recorded.m, one.n = recorded.n, one.k = recorded.k;
    one.lda = recorded.lda, one.ldb = recorded.ldb, one.ldc = recorded.ldc;
    one.size = recorded.size;
    one.alpha = recorded.alpha, one.beta = recorded.beta;
    groups_alpha_known_ = groups_alpha_known_ && (recorded.flags & format::kGroupAlphaKnown);
    groups_beta_known_ = groups_beta_known_ && (recorded.flags & format::kGroupBetaKnown);
    for (auto [name, v] : {std::pair{"m", one.m}, std::pair{"n", one.n}, std::pair{"k", one.k}, std::pair{"size", one.size}}) {
      if (v < 0) {
        throw Refusal("group " + std::to_string(p_.groups.size()) + " has " + name + " " + std::to_string(v) +
                      ": the call is invalid as recorded (cuBLAS rejects it with CUBLAS_STATUS_INVALID_VALUE)");
      }
    }
    for (const char* name : {"a", "b", "c"}) {
      OperandPlan o;
      o.name = name;
      set_group_shape(o, one);
      if (o.ld < std::max<int64_t>(1, o.rows) || o.ld > (int64_t{1} << 31) || o.cols > (int64_t{1} << 31)) {
        throw Refusal("group " + std::to_string(p_.groups.size()) + " has ld" + name + " " + std::to_string(o.ld) +
                      " for " + std::to_string(o.rows) + " x " + std::to_string(o.cols) +
                      ": the call is invalid as recorded (cuBLAS rejects it with CUBLAS_STATUS_INVALID_VALUE)");
      }
    }
    if (problems > kMaxMembers - one.size) break;  // refused below, with the count
    problems += one.size;
    p_.groups.push_back(one);
  }
  if (p_.groups.size() < table->groups.size()) return kMaxMembers + 1;
  if (group_count > static_cast<int64_t>(p_.groups.size())) {
    out_.notes.push_back("the trace holds the first " + std::to_string(p_.groups.size()) + " of " +
                         std::to_string(group_count) + " groups (groups_omitted " +
                         std::to_string(group_count - static_cast<int64_t>(p_.groups.size())) +
                         "): the replay runs those groups only");
  }
  return problems;
}

// Elements of one member of operand `i` (A, B, C) that hold the largest group's matrix.
uint64_t PlanBuilder::group_capacity(int i) const {
  uint64_t most = 0;
  for (const GroupPlan& group : p_.groups) {
    OperandPlan o;
    o.name = std::string(1, "abc"[i]);
    set_group_shape(o, group);
    most = std::max(most, o.member_elements());
  }
  return most;
}

}  // namespace cublasspy::replay
