// The CUDA vocabulary: what the values of CUDA's enums are called (data types, compute types,
// statuses, cuBLASLt attributes, epilogues and orders, GEMM algos, math modes). One table,
// cuda_names.inc, generated from the CUDA headers by scripts/gen_cuda_names.py, serves the
// shim's messages, the report, the rules, replay and the stand-in. It holds the names of every
// toolkit it was generated from (CUDA 12 and 13): a trace names the values of the CUDA the
// traced program used, whichever one cublasspy was built with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "trace/trace_format.h"

namespace cublasspy {

// The enums named. The order is the table's (cuda_names.cpp checks it).
enum class NameSet : uint8_t {
  kDataType,                 // cudaDataType: "CUDA_R_16F"
  kComputeType,              // cublasComputeType_t: "CUBLAS_COMPUTE_32F"
  kCudaError,                // cudaError_t: "cudaErrorNoDevice"
  kCuResult,                 // CUresult: "CUDA_ERROR_NO_DEVICE"
  kCublasStatus,             // cublasStatus_t (cuBLAS and cuBLASLt): "CUBLAS_STATUS_NOT_INITIALIZED"
  kGemmAlgo,                 // cublasGemmAlgo_t: "CUBLAS_GEMM_DEFAULT_TENSOR_OP"
  kMathMode,                 // cublasMath_t: "CUBLAS_TF32_TENSOR_OP_MATH"
  kLtMatmulDescAttribute,    // cublasLtMatmulDescAttributes_t: "CUBLASLT_MATMUL_DESC_EPILOGUE"
  kLtMatrixLayoutAttribute,  // cublasLtMatrixLayoutAttribute_t: "CUBLASLT_MATRIX_LAYOUT_ORDER"
  kLtPreferenceAttribute,    // cublasLtMatmulPreferenceAttributes_t
  kLtEpilogue,               // cublasLtEpilogue_t: "CUBLASLT_EPILOGUE_RELU_BIAS"
  kLtOrder,                  // cublasLtOrder_t: "CUBLASLT_ORDER_ROW"
  kLtAlgoConfigAttribute,    // cublasLtMatmulAlgoConfigAttributes_t: "CUBLASLT_ALGO_CONFIG_TILE_ID"
  kLtAlgoCapAttribute,       // cublasLtMatmulAlgoCapAttributes_t: "CUBLASLT_ALGO_CAP_TILE_IDS"
  kLtTransformDescAttribute, // cublasLtMatrixTransformDescAttributes_t
  kLtEmulationDescAttribute, // cublasLtEmulationDescAttributes_t: "CUBLASLT_EMULATION_DESC_STRATEGY"
  kEmulationStrategy,        // cublasEmulationStrategy_t: "CUBLAS_EMULATION_STRATEGY_EAGER"
  kEmulationSpecialValues,   // cudaEmulationSpecialValuesSupport (bits): "CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_NAN"
  kEmulationMantissaControl, // cudaEmulationMantissaControl: "CUDA_EMULATION_MANTISSA_CONTROL_FIXED"
  // What a cuBLASLt algorithm's configuration says (CUBLASLT_ALGO_CONFIG_*):
  kLtMatmulTile,             // cublasLtMatmulTile_t: "CUBLASLT_MATMUL_TILE_128x128"
  kLtMatmulStages,           // cublasLtMatmulStages_t: "CUBLASLT_MATMUL_STAGES_64x3"
  kLtReductionScheme,        // cublasLtReductionScheme_t: "CUBLASLT_REDUCTION_SCHEME_INPLACE"
  kLtInnerShape,             // cublasLtMatmulInnerShape_t: "CUBLASLT_MATMUL_INNER_SHAPE_MMA16816"
  kLtClusterShape,           // cublasLtClusterShape_t: "CUBLASLT_CLUSTER_SHAPE_2x1x1"
};

// ---- lookups: constant tables, no allocation, no lock (safe anywhere in the shim) ----

// The name `value` prints as; nullptr when the set has no such value.
const char* cuda_name(NameSet set, int64_t value);
// The C type of the set: "CUresult", "cudaDataType".
const char* name_set_type(NameSet set);
// A compute type as cuBLAS takes it: a cublasComputeType_t or, the legacy form (cublasSgemmEx,
// CUDA 10 callers of cublasGemmEx), a cudaDataType. nullptr when it is neither.
const char* compute_type_name(int64_t value);
// The enum a function's return value belongs to: cublasStatus_t for cublas* (cuBLAS, cuBLASLt,
// cublasXt), cudaError_t for cuda*, CUresult for the other cu* (the driver); none for dlopen.
std::optional<NameSet> status_set_for(std::string_view function);
// The enum the functions of a library return (a function's library is in the trace's function
// table, FunctionEntry::library): cublasStatus_t for cuBLAS and cuBLASLt, cudaError_t for the
// runtime, CUresult for the driver; none for the C library (dlopen) or a library not known.
std::optional<NameSet> status_set_of(format::Library library);
// The attribute enum of a cuBLASLt descriptor function (cublasLtMatmulDescSetAttribute: the
// matmul descriptor's); none for other functions.
std::optional<NameSet> lt_attribute_set_for(std::string_view function);

// The value a name stands for, any of its spellings ("CUBLAS_GEMM_DFALT" too).
std::optional<int64_t> cuda_value(NameSet set, std::string_view name);

// ---- spellings for messages and reports (they allocate) ----

// "CUDA_R_16F"; the number ("42") when the set has no such value.
std::string name_or_number(NameSet set, int64_t value);
// "CUDA_ERROR_NO_DEVICE"; "unknown CUresult" for a value of no toolkit (JSON's *_name fields).
std::string name_or_unknown(NameSet set, int64_t value);
// "CUDA_ERROR_NO_DEVICE (100)"; "unknown CUresult (12345)".
std::string name_and_number(NameSet set, int64_t value);
// compute_type_name, or the number.
std::string compute_type_text(int64_t value);
// The status a function returned, by name: "CUDA_ERROR_NO_DEVICE", "unknown CUresult" for a
// value of no toolkit, the number for functions outside CUDA (dlopen).
std::string status_name(std::string_view function, int64_t status);
// The same with the number: "CUDA_ERROR_NO_DEVICE (100)", "unknown CUresult (12345)", "1".
std::string status_text(std::string_view function, int64_t status);
// "CUBLAS_TF32_TENSOR_OP_MATH", with "|CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION" when
// that flag is set; the number when the mode is not known.
std::string math_mode_text(int64_t mode);

}  // namespace cublasspy
