// A plan for the cuBLAS entry points (v2, _64, Ex, batched, strided, grouped, v1, cublasXt):
// what the normalized GEMM view of the record says, operand by operand.
#include <string>

#include <cublas_api.h>
#include <library_types.h>

#include "replay/plan_steps.h"

namespace cublasspy::replay {

namespace {

// What alpha and beta point to, for the cuBLAS entry points: the compute type's scalar for the
// Ex forms (cuBLAS's table), else the element type the prototype fixes (cublasXtSgemm's float).
int scalar_type_of(const format::FunctionEntry& entry, int compute_type, int c_type) {
  const bool complex = is_complex(static_cast<DataType>(c_type));
  switch (compute_type) {
    case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC: return CUDA_R_16F;
    case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC: return complex ? CUDA_C_64F : CUDA_R_64F;
    case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC: return CUDA_R_32I;
    case -1: break;  // none recorded: the prototype says
    default: return complex ? CUDA_C_32F : CUDA_R_32F;  // the 32F family
  }
  const int fixed = format::fixed_element_type(entry);
  return fixed < 0 ? CUDA_R_32F : fixed;
}

}  // namespace

// cuBLAS entry points (v2, _64, Ex, batched, strided, grouped, v1, cublasXt): the normalized
// view says it all.
void PlanBuilder::build_cublas() {
  const GemmCall g = call_.gemm();
  if (!g.valid) throw Refusal("the record lacks the GEMM's sizes (m, n, k)");
  p_.transa = g.trans_a;
  p_.transb = g.trans_b;
  p_.m = g.m, p_.n = g.n, p_.k = g.k;
  p_.compute_type = g.compute_type;
  check_sizes();
  int64_t members = 1;
  bool arrays = false;
  switch (p_.kind) {
    case CallKind::kGemmBatched:
      members = g.batch_count;
      arrays = true;
      break;
    case CallKind::kGemmStridedBatched:
      members = g.batch_count;
      break;
    case CallKind::kGemmGrouped:
      members = plan_groups(g);
      arrays = true;
      break;
    default:
      break;
  }
  if (members < 0 || members > (arrays ? kMaxMembers : int64_t{1} << 31)) {
    throw Refusal("a batch of " + std::to_string(members) + " members is not one a program could pass (the record is "
                  "damaged, or the call is invalid: cuBLAS rejects a negative batch count)");
  }
  p_.batch = members;
  p_.quantized = format::has_trait(call_.function, format::Trait::kQuantized);
  const bool uint8_bias = p_.quantized;
  const char* names[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i) {
    const Matrix& mat = g.op[i];
    OperandPlan o;
    if (p_.kind == CallKind::kGemmGrouped) o.member_capacity = group_capacity(i);
    o.name = names[i];
    o.data_type = uint8_bias ? CUDA_R_8U : static_cast<int>(mat.type);
    if (element_bytes(static_cast<DataType>(o.data_type)) == 0) {
      throw Refusal("operand " + std::string(names[i]) + " has a data type the replay does not know (" +
                    std::to_string(static_cast<int>(mat.type)) + ")");
    }
    o.rows = mat.rows;
    o.cols = mat.cols;
    o.ld = mat.ld;
    o.members = members;
    o.pointer_array = arrays;
    o.stride = p_.kind == CallKind::kGemmStridedBatched ? mat.stride : 0;
    o.output = i == 2;
    // Pointer-array forms (batched and grouped): the array's address.
    place(o, g.pointer_arrays ? mat.array_ptr : mat.ptr, /*may_share=*/!arrays);
    add_operand(o);
  }
  const format::Record& r = call_.rec();
  if (uint8_bias) {
    p_.scalar_type = CUDA_R_32F;  // no alpha or beta: biases, a multiplier and a shift instead
  } else {
    p_.scalar_type = scalar_type_of(*call_.function, g.compute_type, static_cast<int>(g.op[2].type));
    if (p_.kind == CallKind::kGemmGrouped) {
      scalars(groups_alpha_known_, groups_beta_known_);
      if (groups_alpha_known_) p_.alpha = {p_.groups.front().alpha, 0};
      if (groups_beta_known_) p_.beta = {p_.groups.front().beta, 0};
      for (GroupPlan& group : p_.groups) {
        if (!groups_alpha_known_) group.alpha = 1;
        if (!groups_beta_known_) group.beta = 1;
      }
    } else {
      scalars(r.flags & format::kFlagAlphaKnown, r.flags & format::kFlagBetaKnown);
    }
  }
  handle_state();
}

}  // namespace cublasspy::replay
