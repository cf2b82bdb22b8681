// The readers' decoding of a preset cuBLASLt algorithm (src/present/lt_algo_config.h) against the
// real CUDA 13 libcublasLt, which works without a driver: the bytes are made by the library's
// own cublasLtMatmulAlgoConfigSetAttribute (on this machine, without a GPU), then decoded by the
// cuBLASLt the reader loads, and the call text of a matmul record names what they hold.
#include "present/lt_algo_config.h"

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
  // Read by this machine's library in place of the traced program's, and the decoding says so.
  EXPECT_EQ(c->decoded_by, "libcublasLt.so.13 (this machine's; the traced program's /nonexistent/libcublasLt.so.13 "
                           "could not be loaded)");
  EXPECT_TRUE(c->refused.empty()) << c->refused;
  prefer_cublaslt_for_algorithms("libcublasLt.so.13");
  EXPECT_EQ(decode_lt_algo(bytes)->decoded_by, "libcublasLt.so.13 (the traced program's)");
}

// The stand-in's algorithm (its first word: the magic "SnStAlgo") read by the real
// cuBLASLt 13: an id and a tile no cuBLASLt gives (1951624787 and 1869048897, the magic's
// halves). Refused, not shown as values.
TEST(LtAlgoConfig, AnotherLibrarysBytesAreRefused) {
  const uint64_t bytes[8] = {0x6f676c4174536e53ull, 6, 0, 0, 0, 0, 0, 0};
  prefer_cublaslt_for_algorithms("/nonexistent/libcublasLt.so.12");
  const std::optional<LtAlgoConfig> c = decode_lt_algo(bytes);
  ASSERT_TRUE(c.has_value()) << cublaslt_for_algorithms_error();
  EXPECT_FALSE(c->id.has_value()) << *c->id;
  EXPECT_FALSE(c->tile.has_value()) << *c->tile;
  EXPECT_FALSE(c->stages.has_value() || c->splitk_num.has_value());
  EXPECT_NE(c->refused.find("libcublasLt.so.13 reads id, tile"), std::string::npos) << c->refused;
  EXPECT_NE(c->decoded_by.find("/nonexistent/libcublasLt.so.12 could not be loaded"), std::string::npos) << c->decoded_by;
}

}  // namespace
}  // namespace cublasspy
