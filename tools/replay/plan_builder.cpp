#include "replay/plan_builder.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string_view>

#include <cublas_api.h>
#include <library_types.h>

#include "replay/hook_signatures.h"
#include "replay/plan_steps.h"
#include "replay/tolerance.h"

namespace cublasspy::replay {

using format::ArgKind;
using format::ArgRole;

namespace {

bool integer_kind(ArgKind k) {
  switch (k) {
    case ArgKind::kInt: case ArgKind::kUInt: case ArgKind::kOperation: case ArgKind::kDataType:
    case ArgKind::kComputeType: case ArgKind::kGemmAlgo: case ArgKind::kLegacyChar: case ArgKind::kPointerMode:
    case ArgKind::kMathMode: case ArgKind::kOrder: case ArgKind::kEpilogue:
      return true;
    default:
      return false;
  }
}

CallKind kind_of(const format::FunctionEntry& entry) {
  switch (static_cast<Family>(entry.family)) {
    case Family::kGemmBatched: return CallKind::kGemmBatched;
    case Family::kGemmStridedBatched: return CallKind::kGemmStridedBatched;
    case Family::kGemmGrouped: return CallKind::kGemmGrouped;
    case Family::kLtMatmul: return CallKind::kLtMatmul;
    case Family::kLegacyGemm: return CallKind::kLegacyGemm;
    default: return slot_with_role(entry, ArgRole::kXtHandle) >= 0 ? CallKind::kXtGemm : CallKind::kGemm;
  }
}

}  // namespace

ReplayPlan PlanBuilder::build() {
  const std::string name = call_.function_name();
  const FunctionSignature* sig = find_signature(name);
  const Family family = call_.function ? static_cast<Family>(call_.function->family) : Family::kOther;
  if (sig == nullptr || !is_replayable_family(family)) {
    throw Refusal(name + " is not a GEMM: there is nothing to replay (replay re-executes GEMM calls; "
                  "`cublasspy report` and `cublasspy doctor` explain the others)");
  }
  p_.function = name;
  p_.kind = kind_of(*call_.function);
  p_.call_seq = call_.seq;
  p_.seed = options_.seed;
  p_.repeat = options_.repeat;
  p_.verify = options_.verify;
  for (const ArgView& a : call_.args()) {
    if (a.name[0] == '\0' || a.raw == format::kArgUnset || !integer_kind(a.kind)) continue;
    p_.values[a.name] = static_cast<int64_t>(a.raw);
  }
  if (p_.kind == CallKind::kLtMatmul) {
    build_lt();
  } else {
    build_cublas();
  }
  check_null_operands();
  check_total();
  attach_dumps();
  p_.tolerance = tolerance_for(tolerance_inputs_for(p_));
  return p_;
}

void PlanBuilder::scalars(bool known_alpha, bool known_beta) {
  const format::Record& r = call_.rec();
  if (known_alpha) p_.alpha = {r.alpha[0], r.alpha[1]};
  if (known_beta) p_.beta = {r.beta[0], r.beta[1]};
  if (!known_alpha || !known_beta) {
    // Unknown (device pointer mode, or a grouped call's host arrays): beta 1 reads C as any
    // non-zero beta would, so a bad C still faults.
    if (!known_alpha) p_.alpha = {1, 0};
    if (!known_beta) p_.beta = {1, 0};
    out_.notes.push_back(std::string(!known_alpha && !known_beta ? "alpha and beta were" : !known_alpha ? "alpha was" : "beta was") +
                         " not recorded (device memory, or not read): the replay uses alpha 1, beta 1");
  }
}

void PlanBuilder::handle_state() {
  const format::Record& r = call_.rec();
  p_.pointer_mode = r.pointer_mode == CUBLAS_POINTER_MODE_DEVICE ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST;
  if (r.pointer_mode < 0 && p_.kind != CallKind::kLegacyGemm && p_.kind != CallKind::kXtGemm) {
    out_.notes.push_back("the handle's pointer mode is unknown (created before tracing): the replay uses host");
  }
  p_.math_mode = r.math_mode;
  p_.own_stream = r.stream != 0 && p_.kind != CallKind::kXtGemm && p_.kind != CallKind::kLegacyGemm;
  if (p_.kind == CallKind::kGemm || p_.kind == CallKind::kGemmBatched || p_.kind == CallKind::kGemmStridedBatched ||
      p_.kind == CallKind::kGemmGrouped) {
    if (auto ws = workspace_before(trace_, r.handle, call_.seq)) p_.workspace_bytes = static_cast<int64_t>(*ws);
  }
}

void PlanBuilder::check_sizes() const {
  for (auto [name, v] : {std::pair{"m", p_.m}, std::pair{"n", p_.n}, std::pair{"k", p_.k}}) {
    if (v < 0) {
      throw Refusal(std::string(name) + " is " + std::to_string(v) +
                    ": the call is invalid as recorded (cuBLAS rejects it with CUBLAS_STATUS_INVALID_VALUE); "
                    "fix the caller, there is nothing to replay");
    }
  }
}

std::string byte_text(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  char text[32];
  if (u == 0) std::snprintf(text, sizeof text, "%" PRIu64 " B", bytes);
  else std::snprintf(text, sizeof text, "%.1f %s", v, units[u]);
  return text;
}

ToleranceInputs tolerance_inputs_for(const ReplayPlan& p) {
  ToleranceInputs t;
  const OperandPlan* out = p.operand(p.kind == CallKind::kLtMatmul ? "d" : "c");
  t.output_type = out ? out->data_type : CUDA_R_32F;
  t.input_type = p.operand("a") ? p.operand("a")->data_type : CUDA_R_32F;
  t.compute_type = p.compute_type;
  t.math_mode = p.math_mode;
  // Hgemm-style entry points: half elements, and no compute type to widen the sums.
  t.half_accumulate = p.compute_type == -1 && t.input_type == CUDA_R_16F && p.kind != CallKind::kLtMatmul;
  t.k = p.k;
  for (const GroupPlan& g : p.groups) t.k = std::max(t.k, g.k);  // grouped: the longest sums
  return t;
}

std::optional<uint64_t> workspace_before(const TraceFile& trace, uint64_t handle, uint64_t seq) {
  std::optional<uint64_t> found;
  trace.for_each_call([&](const CallView& c) {
    if (c.seq >= seq || c.failed() || c.in_flight()) return;
    // cublasSetWorkspace: the handle call that sets a workspace's size.
    if (c.function == nullptr || c.function->family != static_cast<uint16_t>(Family::kHandle)) return;
    if (c.arg(ArgRole::kHandle).value_or(0) != handle) return;
    auto bytes = c.arg(ArgRole::kWorkspaceBytes);
    if (bytes && *bytes != format::kArgUnset) found = *bytes;
  });
  return found;
}

PlanResult build_plan(const TraceFile& trace, const CallView& call, const PlanOptions& options) {
  PlanResult out;
  try {
    out.plan = PlanBuilder(trace, call, options, out).build();
  } catch (const Refusal& r) {
    out.plan.reset();
    out.refusal = r.what();
  }
  return out;
}

}  // namespace cublasspy::replay
