#include "replay/runner/lt_matmul_descriptors.h"

#include <cstdint>

namespace cublasspy::replay {

LtDescriptors::~LtDescriptors() {
  for (cublasLtMatrixLayout_t l : layout) {
    if (l != nullptr) cuda_.LtMatrixLayoutDestroy(l);
  }
  if (matmul != nullptr) cuda_.LtMatmulDescDestroy(matmul);
}

int LtDescriptors::build(const ReplayPlan& plan, const DeviceOperands& operands, std::string& step) {
  auto desc_attr = [&](cublasLtMatmulDescAttributes_t attr, const void* value, size_t size, const char* name) {
    step = std::string("cublasLtMatmulDescSetAttribute(") + name + ")";
    return static_cast<int>(cuda_.LtMatmulDescSetAttribute(matmul, attr, value, size));
  };
  step = "cublasLtMatmulDescCreate";
  int s = static_cast<int>(cuda_.LtMatmulDescCreate(&matmul, static_cast<cublasComputeType_t>(plan.lt.compute_type),
                                                    static_cast<cudaDataType_t>(plan.lt.scale_type)));
  if (s != 0) return s;
  const int32_t transa = plan.transa, transb = plan.transb;
  if ((s = desc_attr(CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa, "TRANSA")) != 0) return s;
  if ((s = desc_attr(CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb, "TRANSB")) != 0) return s;
  if (plan.pointer_mode != 0) {
    const int32_t mode = plan.pointer_mode;
    if ((s = desc_attr(CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode, sizeof mode, "POINTER_MODE")) != 0) return s;
  }
  if (plan.lt.epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
    const uint32_t epilogue = static_cast<uint32_t>(plan.lt.epilogue);
    if ((s = desc_attr(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue, "EPILOGUE")) != 0) return s;
  }
  if (const OperandPlan* bias = plan.operand("bias")) {
    const void* p = reinterpret_cast<const void*>(operands.call_address("bias"));
    const int32_t type = bias->data_type;
    if ((s = desc_attr(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &p, sizeof p, "BIAS_POINTER")) != 0) return s;
    if ((s = desc_attr(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &type, sizeof type, "BIAS_DATA_TYPE")) != 0) return s;
  }
  const std::pair<const char*, cublasLtMatmulDescAttributes_t> scales[] = {
      {"a_scale", CUBLASLT_MATMUL_DESC_A_SCALE_POINTER},
      {"b_scale", CUBLASLT_MATMUL_DESC_B_SCALE_POINTER},
      {"d_scale", CUBLASLT_MATMUL_DESC_D_SCALE_POINTER}};
  for (const auto& [name, attr] : scales) {
    if (plan.operand(name) == nullptr) continue;
    const void* p = reinterpret_cast<const void*>(operands.call_address(name));
    if ((s = desc_attr(attr, &p, sizeof p, name)) != 0) return s;
  }

  const char* names[4] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; ++i) {
    const OperandPlan* o = plan.operand(names[i]);
    if (o == nullptr) continue;
    step = std::string("cublasLtMatrixLayoutCreate(") + names[i] + ")";
    s = static_cast<int>(cuda_.LtMatrixLayoutCreate(&layout[i], static_cast<cudaDataType>(o->data_type),
                                                    static_cast<uint64_t>(o->rows), static_cast<uint64_t>(o->cols), o->ld));
    if (s != 0) return s;
    auto layout_attr = [&](cublasLtMatrixLayoutAttribute_t attr, const void* value, size_t size, const char* what) {
      step = std::string("cublasLtMatrixLayoutSetAttribute(") + names[i] + ", " + what + ")";
      return static_cast<int>(cuda_.LtMatrixLayoutSetAttribute(layout[i], attr, value, size));
    };
    if (o->row_order) {
      const int32_t order = CUBLASLT_ORDER_ROW;
      if ((s = layout_attr(CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order, "ORDER")) != 0) return s;
    }
    if (o->members > 1) {
      const int32_t count = static_cast<int32_t>(o->members);
      const int64_t stride = o->stride;
      if ((s = layout_attr(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count, "BATCH_COUNT")) != 0) return s;
      if ((s = layout_attr(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride, "STRIDED_BATCH_OFFSET")) != 0) {
        return s;
      }
    }
  }
  step.clear();
  return 0;
}

}  // namespace cublasspy::replay
