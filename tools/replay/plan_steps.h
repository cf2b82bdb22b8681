// The steps of build_plan (plan_builder.h), one class whose parts live by concern:
// plan_builder.cpp (the order of the steps, the call's slots, scalars and handle state),
// plan_cublas.cpp (the cuBLAS entry points), plan_groups.cpp (grouped GEMMs), plan_lt.cpp
// (cublasLtMatmul), operand_placement.cpp (where each operand lies, what it costs) and
// plan_dumps.cpp (the operand dumps next to the trace). Internal to the replay library.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "replay/plan_builder.h"
#include "gemm/gemm_call.h"

namespace cublasspy::replay {

// Why a call has no plan: thrown by any step, caught by build_plan, which says it to the user.
struct Refusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Pointer-array forms get one allocation per member: beyond this, the batch count is not a
// batch the program could have had either.
inline constexpr int64_t kMaxMembers = int64_t{1} << 20;

class PlanBuilder {
 public:
  PlanBuilder(const TraceFile& trace, const CallView& call, const PlanOptions& options, PlanResult& out)
      : trace_(trace), call_(call), options_(options), out_(out) {}

  ReplayPlan build();

 private:
  // The slot with `role`; `what` names it in the refusal when the record lacks it.
  int64_t required(format::ArgRole role, const std::string& what, const char* why) const {
    auto v = call_.arg(role);
    if (!v || *v == format::kArgUnset) throw Refusal("the record has no " + what + ": " + why);
    return static_cast<int64_t>(*v);
  }
  int64_t optional_slot(format::ArgRole role, int64_t fallback) const {
    auto v = call_.arg(role);
    return v && *v != format::kArgUnset ? static_cast<int64_t>(*v) : fallback;
  }
  uint64_t address(format::ArgRole role) const {
    auto v = call_.arg(role);
    return v && *v != format::kArgUnset ? *v : 0;
  }

  // plan_builder.cpp
  void scalars(bool known_alpha, bool known_beta);
  void handle_state();
  void check_sizes() const;
  // plan_cublas.cpp
  void build_cublas();
  // plan_groups.cpp
  int64_t plan_groups(const GemmCall& g);
  uint64_t group_capacity(int i) const;
  // plan_lt.cpp
  void build_lt();
  // operand_placement.cpp
  void check_null_operands() const;
  void place(OperandPlan& o, uint64_t original, bool may_share);
  void add_operand(const OperandPlan& o);
  void check_total() const;
  // plan_dumps.cpp
  void attach_dumps();
  void attach_program_results(OperandPlan* output, const std::vector<std::optional<DumpPiece>>& results,
                              const std::vector<std::set<std::string>>& from_dump);

  const TraceFile& trace_;
  const CallView& call_;
  const PlanOptions& options_;
  PlanResult& out_;
  ReplayPlan p_;
  bool groups_alpha_known_ = true, groups_beta_known_ = true;  // every recorded group's scalar
  std::vector<std::pair<uint64_t, std::string>> seen_;  // operand addresses so far, and whose
};

}  // namespace cublasspy::replay
