// A plan for cublasLtMatmul: the descriptors' settings the shim copied into derived slots, the
// bias and scale vectors, the workspace and the recorded algorithm.
#include <algorithm>
#include <iterator>
#include <string>

#include <cublasLt.h>
#include <cublas_api.h>
#include <library_types.h>

#include "replay/plan_steps.h"
#include "present/call_text.h"
#include "present/lt_algo_config.h"

namespace cublasspy::replay {

using format::ArgKind;
using format::ArgRole;

// cublasLtMatmul: the descriptors' settings the shim copied into derived slots.
void PlanBuilder::build_lt() {
  const char* why = "the call's descriptors were not recorded (created before tracing, or built inside another "
                    "library call: replay the outer call instead)";
  // Layouts the replay does not rebuild: refused, rather than replayed as something else.
  for (int64_t offset : call_.slot.plane_offset) {
    if (offset != 0) throw Refusal("planar complex layouts (CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET) are not replayed");
  }
  if (optional_slot(ArgRole::kBatchMode, CUBLASLT_BATCH_MODE_STRIDED) != CUBLASLT_BATCH_MODE_STRIDED) {
    throw Refusal("pointer-array batches (CUBLASLT_MATRIX_LAYOUT_BATCH_MODE) are not replayed");
  }
  p_.lt.compute_type = static_cast<int>(required(ArgRole::kComputeType, "compute_type", why));
  p_.lt.scale_type = static_cast<int>(required(ArgRole::kScaleType, "scale_type", why));
  p_.m = required(ArgRole::kM, "m", why);
  p_.n = required(ArgRole::kN, "n", why);
  p_.k = required(ArgRole::kK, "k", why);
  p_.transa = static_cast<int>(optional_slot(ArgRole::kTransA, CUBLAS_OP_N));
  p_.transb = static_cast<int>(optional_slot(ArgRole::kTransB, CUBLAS_OP_N));
  p_.lt.epilogue = static_cast<int>(optional_slot(ArgRole::kEpilogue, CUBLASLT_EPILOGUE_DEFAULT));
  p_.compute_type = p_.lt.compute_type;
  p_.scalar_type = p_.lt.scale_type;
  check_sizes();
  const int64_t batch = optional_slot(ArgRole::kBatchCount, 1);
  if (batch < 1 || batch > (int64_t{1} << 31)) throw Refusal("a batch count of " + std::to_string(batch) + " is not valid");
  p_.batch = batch;
  const char* names[4] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; ++i) {
    auto role = [i](ArgRole a_role) { return format::operand_role(a_role, i); };
    OperandPlan o;
    o.name = names[i];
    o.data_type = static_cast<int>(required(role(ArgRole::kAType), o.name + "_type", why));
    if (element_bytes(static_cast<DataType>(o.data_type)) == 0) {
      throw Refusal("operand " + o.name + " has a data type the replay does not know (" + std::to_string(o.data_type) + ")");
    }
    // A layout's rows and cols are the stored matrix's own (ORDER says only how they lie).
    if (i == 0) {
      o.rows = p_.transa ? p_.k : p_.m;
      o.cols = p_.transa ? p_.m : p_.k;
    } else if (i == 1) {
      o.rows = p_.transb ? p_.n : p_.k;
      o.cols = p_.transb ? p_.k : p_.n;
    } else {
      o.rows = p_.m;
      o.cols = p_.n;
    }
    o.ld = required(role(ArgRole::kLda), "ld" + o.name, why);
    o.row_order = optional_slot(role(ArgRole::kAOrder), CUBLASLT_ORDER_COL) == CUBLASLT_ORDER_ROW;
    o.stride = batch > 1 ? optional_slot(role(ArgRole::kStrideA), 0) : 0;
    o.members = batch;
    o.output = i == 3;
    place(o, address(role(ArgRole::kA)), /*may_share=*/true);
    add_operand(o);
  }
  if ((p_.lt.epilogue & CUBLASLT_EPILOGUE_BIAS) && address(ArgRole::kBias) != 0) {
    // CUBLASLT_EPILOGUE_*BIAS: a vector of m, in D's type (bf16 for fp8 outputs), as cuBLASLt defaults.
    OperandPlan bias;
    bias.name = "bias";
    const int d_type = p_.operand("d")->data_type;
    bias.data_type = element_bytes(static_cast<DataType>(d_type)) == 1 ? CUDA_R_16BF : d_type;
    bias.rows = p_.m, bias.cols = 1, bias.ld = std::max<int64_t>(p_.m, 1);
    place(bias, address(ArgRole::kBias), false);
    add_operand(bias);
  }
  for (const auto& [role, scale] : {std::pair{ArgRole::kAScale, "a_scale"}, std::pair{ArgRole::kBScale, "b_scale"},
                                    std::pair{ArgRole::kDScale, "d_scale"}}) {
    if (address(role) == 0) continue;
    OperandPlan s;
    s.name = scale;
    s.data_type = CUDA_R_32F;
    s.rows = s.cols = s.ld = 1;
    s.fill = Fill::kOnes;
    place(s, address(role), false);
    add_operand(s);
  }
  if (address(ArgRole::kWorkspace) != 0) {
    p_.lt.workspace_bytes = optional_slot(ArgRole::kWorkspaceBytes, 0);
    if (p_.lt.workspace_bytes < 0) throw Refusal("the workspace size is negative");
  }
  p_.values["workspace_size_in_bytes"] = p_.lt.workspace_bytes;
  if (address(ArgRole::kAlgo) != 0) {
    // Format version 5 records the algorithm's bytes (a trace with an algo_id slot has them).
    if (call_.function != nullptr && slot_with_role(*call_.function, ArgRole::kLtAlgoId) >= 0) {
      p_.lt.algo.assign(std::begin(call_.slot.lt_algo), std::end(call_.slot.lt_algo));
      // What it is, as the program's cuBLASLt reads the bytes (when it can be loaded here).
      prefer_cublaslt_of(trace_);
      std::string what;
      if (const nlohmann::ordered_json args = call_arguments(call_); args.contains("algo_config")) {
        what = " (" + argument_pieces(nlohmann::ordered_json{{"algo_config", args["algo_config"]}}).front() + ")";
      }
      out_.notes.push_back("the program's cuBLASLt algorithm" + what +
                           " is replayed as recorded (the same library version is needed)");
    } else {
      out_.notes.push_back("the program chose a cuBLASLt algorithm (not recorded): the replay lets cuBLASLt pick one");
    }
  }
  const format::Record& r = call_.rec();
  scalars(r.flags & format::kFlagAlphaKnown, r.flags & format::kFlagBetaKnown);
  p_.pointer_mode = r.pointer_mode == CUBLASLT_POINTER_MODE_DEVICE ? CUBLASLT_POINTER_MODE_DEVICE : CUBLASLT_POINTER_MODE_HOST;
  p_.own_stream = address(ArgRole::kStream) != 0;
}

}  // namespace cublasspy::replay
