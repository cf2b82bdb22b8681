// The CUDA vocabulary (src/common/cuda_names.h) against the toolkit this build compiles with:
// every enumerator of its headers, listed at build time by the same parse that generates the
// table (scripts/gen_cuda_names.py enumerators), has a name, and the compiler, not the parse,
// says what its value is. Then the spellings the report and the shim print.
#include "common/cuda_names.h"

#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda.h>
#include <driver_types.h>
#include <library_types.h>

#include <cstring>
#include <string>

#include <gtest/gtest.h>

namespace cublasspy {
namespace {

struct Enumerator {
  NameSet set;
  const char* name;
  int64_t value;
};

const Enumerator kToolkit[] = {
#define CUBLASSPY_ENUMERATOR(set, name) {NameSet::set, #name, static_cast<int64_t>(name)},
#include "cuda_enumerators.inc"
#undef CUBLASSPY_ENUMERATOR
};

TEST(CudaNames, EveryEnumeratorOfTheToolkitHasItsName) {
  // The parse found the enums at all (a header that moved an enum would leave it empty).
  ASSERT_GT(std::size(kToolkit), 350u);
  for (const Enumerator& e : kToolkit) {
    SCOPED_TRACE(e.name);
    // The name is known, and stands for the value the compiler gives it.
    ASSERT_EQ(cuda_value(e.set, e.name), e.value);
    // The value prints as a name that stands for it: this one, or the current spelling of an
    // alias (CUDA_R_8F_UE4M3 prints as CUDA_R_8F_E4M3).
    const char* printed = cuda_name(e.set, e.value);
    ASSERT_NE(printed, nullptr);
    EXPECT_EQ(cuda_value(e.set, printed), e.value);
  }
}

TEST(CudaNames, EveryValueOfTheToolkitPrintsAsItsHeaderSpellingUnlessAnAlias) {
  for (const Enumerator& e : kToolkit) {
    const char* printed = cuda_name(e.set, e.value);
    ASSERT_NE(printed, nullptr) << e.name;
    if (std::strcmp(printed, e.name) == 0) continue;
    // Another enumerator of the toolkit has the value and is the one printed.
    bool printed_is_an_enumerator = false;
    for (const Enumerator& other : kToolkit) {
      printed_is_an_enumerator |= other.set == e.set && other.value == e.value && std::strcmp(other.name, printed) == 0;
    }
    EXPECT_TRUE(printed_is_an_enumerator) << e.name << " prints as " << printed;
  }
}

TEST(CudaNames, NamesTheValuesTheReportMeets) {
  EXPECT_STREQ(cuda_name(NameSet::kCuResult, CUDA_ERROR_NO_DEVICE), "CUDA_ERROR_NO_DEVICE");
  EXPECT_STREQ(cuda_name(NameSet::kCudaError, cudaErrorNoDevice), "cudaErrorNoDevice");
  EXPECT_STREQ(cuda_name(NameSet::kCublasStatus, CUBLAS_STATUS_EXECUTION_FAILED), "CUBLAS_STATUS_EXECUTION_FAILED");
  EXPECT_STREQ(cuda_name(NameSet::kDataType, CUDA_R_16BF), "CUDA_R_16BF");
  EXPECT_STREQ(cuda_name(NameSet::kComputeType, CUBLAS_COMPUTE_32F_FAST_TF32), "CUBLAS_COMPUTE_32F_FAST_TF32");
  EXPECT_STREQ(cuda_name(NameSet::kLtEpilogue, CUBLASLT_EPILOGUE_GELU_AUX_BIAS), "CUBLASLT_EPILOGUE_GELU_AUX_BIAS");
  EXPECT_STREQ(cuda_name(NameSet::kLtOrder, CUBLASLT_ORDER_ROW), "CUBLASLT_ORDER_ROW");
  EXPECT_STREQ(cuda_name(NameSet::kLtMatmulDescAttribute, CUBLASLT_MATMUL_DESC_EPILOGUE), "CUBLASLT_MATMUL_DESC_EPILOGUE");
  EXPECT_STREQ(cuda_name(NameSet::kLtMatrixLayoutAttribute, CUBLASLT_MATRIX_LAYOUT_LD), "CUBLASLT_MATRIX_LAYOUT_LD");
  EXPECT_STREQ(cuda_name(NameSet::kLtPreferenceAttribute, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES),
               "CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES");
}

TEST(CudaNames, GemmAlgosPrintTheirCurrentSpelling) {
  // cublas_api.h lists the deprecated CUBLAS_GEMM_DFALT first, with the same value.
  EXPECT_STREQ(cuda_name(NameSet::kGemmAlgo, -1), "CUBLAS_GEMM_DEFAULT");
  EXPECT_STREQ(cuda_name(NameSet::kGemmAlgo, 99), "CUBLAS_GEMM_DEFAULT_TENSOR_OP");
  EXPECT_STREQ(cuda_name(NameSet::kGemmAlgo, 999), "CUBLAS_GEMM_AUTOTUNE");
  EXPECT_STREQ(cuda_name(NameSet::kGemmAlgo, 115), "CUBLAS_GEMM_ALGO15_TENSOR_OP");
  EXPECT_EQ(cuda_value(NameSet::kGemmAlgo, "CUBLAS_GEMM_DFALT"), -1);
  EXPECT_EQ(cuda_value(NameSet::kGemmAlgo, "CUBLAS_GEMM_DFALT_TENSOR_OP"), 99);
}

TEST(CudaNames, HoldsTheNamesOfEitherToolkit) {
  // CUDA 12 only (cuBLASLt 13 dropped the atomic-sync attributes): a CUDA 12 program's trace.
  EXPECT_STREQ(cuda_name(NameSet::kLtMatmulDescAttribute, 27), "CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_ROWS");
  EXPECT_STREQ(cuda_name(NameSet::kLtMatmulDescAttribute, 30), "CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_OUT_COUNTERS_POINTER");
  // CUDA 13 only.
  EXPECT_STREQ(cuda_name(NameSet::kCuResult, 916), "CUDA_ERROR_KEY_ROTATION");
  EXPECT_STREQ(cuda_name(NameSet::kComputeType, 79), "CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT");
}

TEST(CudaNames, TheSameNumberIsADifferentErrorInEachApi) {
  EXPECT_STREQ(cuda_name(NameSet::kCudaError, 3), "cudaErrorInitializationError");
  EXPECT_STREQ(cuda_name(NameSet::kCuResult, 3), "CUDA_ERROR_NOT_INITIALIZED");
  EXPECT_STREQ(cuda_name(NameSet::kCudaError, 35), "cudaErrorInsufficientDriver");
  EXPECT_EQ(cuda_name(NameSet::kCuResult, 35), nullptr);  // the driver has no such code
  EXPECT_STREQ(cuda_name(NameSet::kCublasStatus, 3), "CUBLAS_STATUS_ALLOC_FAILED");
}

TEST(CudaNames, UnknownValuesHaveNoName) {
  EXPECT_EQ(cuda_name(NameSet::kCuResult, 12345), nullptr);
  EXPECT_EQ(cuda_name(NameSet::kDataType, -2), nullptr);
  EXPECT_EQ(cuda_name(NameSet::kLtOrder, 1LL << 40), nullptr);
  EXPECT_EQ(cuda_value(NameSet::kCuResult, "CUDA_ERROR_NO_SUCH_THING"), std::nullopt);
  EXPECT_EQ(cuda_value(NameSet::kCudaError, "CUDA_ERROR_NO_DEVICE"), std::nullopt);  // another set's
}

TEST(CudaNames, Spellings) {
  EXPECT_EQ(name_and_number(NameSet::kCuResult, 100), "CUDA_ERROR_NO_DEVICE (100)");
  EXPECT_EQ(name_and_number(NameSet::kCuResult, 12345), "unknown CUresult (12345)");
  EXPECT_EQ(name_or_number(NameSet::kDataType, 2), "CUDA_R_16F");
  EXPECT_EQ(name_or_number(NameSet::kDataType, 4242), "4242");
  EXPECT_STREQ(compute_type_name(CUBLAS_COMPUTE_32F), "CUBLAS_COMPUTE_32F");
  EXPECT_STREQ(compute_type_name(CUDA_R_32F), "CUDA_R_32F");  // the legacy cudaDataType form
  EXPECT_EQ(compute_type_name(4242), nullptr);
  EXPECT_EQ(math_mode_text(CUBLAS_DEFAULT_MATH), "CUBLAS_DEFAULT_MATH");
  EXPECT_EQ(math_mode_text(CUBLAS_TF32_TENSOR_OP_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION),
            "CUBLAS_TF32_TENSOR_OP_MATH|CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION");
  EXPECT_EQ(math_mode_text(1000), "1000");
}

// The function table's library picks the vocabulary (what the reader and the shim use).
TEST(CudaNames, ALibrarysStatusesAreItsApis) {
  using cublasspy::format::Library;
  EXPECT_EQ(status_set_of(Library::kCublas), NameSet::kCublasStatus);
  EXPECT_EQ(status_set_of(Library::kCublasLt), NameSet::kCublasStatus);
  EXPECT_EQ(status_set_of(Library::kCudart), NameSet::kCudaError);
  EXPECT_EQ(status_set_of(Library::kCuda), NameSet::kCuResult);
  EXPECT_EQ(status_set_of(Library::kSystem), std::nullopt);
  EXPECT_EQ(status_set_of(Library::kUnknown), std::nullopt);
}

TEST(CudaNames, AFunctionsStatusIsNamedByItsApi) {
  EXPECT_EQ(status_set_for("cublasSgemm_v2"), NameSet::kCublasStatus);
  EXPECT_EQ(status_set_for("cublasLtMatmul"), NameSet::kCublasStatus);
  EXPECT_EQ(status_set_for("cublasXtSgemm"), NameSet::kCublasStatus);
  EXPECT_EQ(status_set_for("cudaGetDeviceCount"), NameSet::kCudaError);
  EXPECT_EQ(status_set_for("cuInit"), NameSet::kCuResult);
  EXPECT_EQ(status_set_for("dlopen"), std::nullopt);
  EXPECT_EQ(status_name("cuInit", 100), "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(status_name("cudaGetDeviceCount", 100), "cudaErrorNoDevice");
  EXPECT_EQ(status_name("cuDeviceGetCount", 12345), "unknown CUresult");
  EXPECT_EQ(status_name("dlopen", 1), "1");
  EXPECT_EQ(status_text("cuInit", 100), "CUDA_ERROR_NO_DEVICE (100)");
  EXPECT_EQ(status_text("cublasCreate_v2", 1), "CUBLAS_STATUS_NOT_INITIALIZED (1)");
  EXPECT_EQ(status_text("dlopen", 1), "1");
}

TEST(CudaNames, LtAttributesAreNamedByTheirDescriptor) {
  EXPECT_EQ(lt_attribute_set_for("cublasLtMatmulDescSetAttribute"), NameSet::kLtMatmulDescAttribute);
  EXPECT_EQ(lt_attribute_set_for("cublasLtMatrixLayoutSetAttribute"), NameSet::kLtMatrixLayoutAttribute);
  EXPECT_EQ(lt_attribute_set_for("cublasLtMatmulPreferenceSetAttribute"), NameSet::kLtPreferenceAttribute);
  EXPECT_EQ(lt_attribute_set_for("cublasLtMatmul"), std::nullopt);
  // The same number is a different attribute of each descriptor.
  EXPECT_STREQ(cuda_name(NameSet::kLtMatmulDescAttribute, 1), "CUBLASLT_MATMUL_DESC_SCALE_TYPE");
  EXPECT_STREQ(cuda_name(NameSet::kLtMatrixLayoutAttribute, 1), "CUBLASLT_MATRIX_LAYOUT_ORDER");
  EXPECT_STREQ(cuda_name(NameSet::kLtPreferenceAttribute, 1), "CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES");
}

}  // namespace
}  // namespace cublasspy
