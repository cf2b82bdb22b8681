// The readers' decoding of a preset cuBLASLt algorithm (src/trace/lt_algo_config.h) against the
// real CUDA 13 libcublasLt, which works without a driver: the bytes are made by the library's
// own cublasLtMatmulAlgoConfigSetAttribute (on this machine, without a GPU), then decoded by the
// cuBLASLt the reader loads, and the call text of a matmul record names what they hold.
#include "trace/lt_algo_config.h"

#include <cublasLt.h>

#include <cstring>

#include <gtest/gtest.h>

#include "common/cuda_names.h"

namespace cublasspy {
namespace {

// An algorithm configured through the real library (its id cannot be set: 0, as zeroed).
cublasLtMatmulAlgo_t configured_algo() {
  cublasLtMatmulAlgo_t algo;
  std::memset(&algo, 0, sizeof algo);
  const uint32_t tile = CUBLASLT_MATMUL_TILE_128x128, stages = CUBLASLT_MATMUL_STAGES_64x3, swizzle = 1, custom = 2,
                 reduction = CUBLASLT_REDUCTION_SCHEME_INPLACE;
  const int32_t splits = 4;
  const uint16_t inner = CUBLASLT_MATMUL_INNER_SHAPE_MMA16816, cluster = CUBLASLT_CLUSTER_SHAPE_2x1x1;
  auto set = [&](cublasLtMatmulAlgoConfigAttributes_t attr, const void* v, size_t size) {
    EXPECT_EQ(cublasLtMatmulAlgoConfigSetAttribute(&algo, attr, v, size), CUBLAS_STATUS_SUCCESS) << attr;
  };
  set(CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile);
  set(CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages);
  set(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof splits);
  set(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &reduction, sizeof reduction);
  set(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle);
  set(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom, sizeof custom);
  set(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &inner, sizeof inner);
  set(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster);
  return algo;
}

TEST(LtAlgoConfig, OffUntilAReaderTurnsItOn) {
  const uint64_t bytes[8] = {};
  EXPECT_FALSE(decode_lt_algo(bytes).has_value());  // the fuzzer and the rules load no CUDA library
}

TEST(LtAlgoConfig, TheRealLibraryReadsWhatItWroteWithoutADriver) {
  const cublasLtMatmulAlgo_t algo = configured_algo();
  uint64_t bytes[8];
  std::memcpy(bytes, algo.data, sizeof bytes);
  // A path that cannot be loaded falls back to the default soname, the real library here.
  prefer_cublaslt_for_algorithms("/nonexistent/libcublasLt.so.13");
  const std::optional<LtAlgoConfig> c = decode_lt_algo(bytes);
  ASSERT_TRUE(c.has_value()) << cublaslt_for_algorithms_error();
  EXPECT_EQ(cublaslt_for_algorithms_path(), "libcublasLt.so.13");
  EXPECT_EQ(c->id, 0);
  EXPECT_EQ(c->tile, CUBLASLT_MATMUL_TILE_128x128);
  EXPECT_EQ(c->stages, CUBLASLT_MATMUL_STAGES_64x3);
  EXPECT_EQ(c->splitk_num, 4);
  EXPECT_EQ(c->reduction_scheme, CUBLASLT_REDUCTION_SCHEME_INPLACE);
  EXPECT_EQ(c->cta_swizzling, 1);
  EXPECT_EQ(c->custom_option, 2);
  EXPECT_EQ(c->inner_shape, CUBLASLT_MATMUL_INNER_SHAPE_MMA16816);
  EXPECT_EQ(c->cluster_shape, CUBLASLT_CLUSTER_SHAPE_2x1x1);
  // And they have names.
  EXPECT_STREQ(cuda_name(NameSet::kLtMatmulTile, *c->tile), "CUBLASLT_MATMUL_TILE_128x128");
  EXPECT_STREQ(cuda_name(NameSet::kLtMatmulStages, *c->stages), "CUBLASLT_MATMUL_STAGES_64x3");
  EXPECT_STREQ(cuda_name(NameSet::kLtInnerShape, *c->inner_shape), "CUBLASLT_MATMUL_INNER_SHAPE_MMA16816");
  EXPECT_STREQ(cuda_name(NameSet::kLtClusterShape, *c->cluster_shape), "CUBLASLT_CLUSTER_SHAPE_2x1x1");
  EXPECT_EQ(undecoded_lt_algos(), 0u);
}

}  // namespace
}  // namespace cublasspy
