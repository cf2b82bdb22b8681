// CUBLASSPY_SCAN's element rules and host-side scan, the kernel's per-thread loop run on the CPU,
// and the .npy writer. Decoding is checked against the stand-in's independent conversions.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <vector>

#include "../../standin/shared/numeric_formats.h"
#include "common/cuda_names.h"
#include "dump/npy_writer.h"
#include "scan/element_rules.h"
#include "scan/host_scan.h"
#include "scan/scan_kernel_body.h"

namespace cublasspy {
namespace {

using scan::ElementClass;
using scan::ElementFormat;
using F = ElementFormat;

constexpr uint32_t kF32NaN = 0x7fc00000u, kF32Inf = 0x7f800000u, kF32NegInf = 0xff800000u;

float f32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// ---- element rules ---------------------------------------------------------------------------

TEST(ElementRules, Float32Classes) {
  EXPECT_EQ(scan::classify<F::kF32>(bits_of(1.5f)), ElementClass::kFinite);
  EXPECT_EQ(scan::classify<F::kF32>(0x00000001u), ElementClass::kFinite);  // smallest subnormal
  EXPECT_EQ(scan::classify<F::kF32>(0x7f7fffffu), ElementClass::kFinite);  // FLT_MAX
  EXPECT_EQ(scan::classify<F::kF32>(kF32Inf), ElementClass::kPosInf);
  EXPECT_EQ(scan::classify<F::kF32>(kF32NegInf), ElementClass::kNegInf);
  EXPECT_EQ(scan::classify<F::kF32>(kF32NaN), ElementClass::kNaN);
  EXPECT_EQ(scan::classify<F::kF32>(0x7f800001u), ElementClass::kNaN);  // signalling NaN
  EXPECT_EQ(scan::classify<F::kF32>(0xffc00000u), ElementClass::kNaN);  // negative NaN
  EXPECT_EQ(scan::decode<F::kF32>(0x00000001u), std::ldexp(1.0, -149));
  EXPECT_EQ(scan::decode<F::kF32>(bits_of(-2.25f)), -2.25);
}

TEST(ElementRules, Float64Classes) {
  auto bits = [](double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
  };
  EXPECT_EQ(scan::classify<F::kF64>(bits(1e300)), ElementClass::kFinite);
  EXPECT_EQ(scan::classify<F::kF64>(1), ElementClass::kFinite);  // subnormal
  EXPECT_EQ(scan::classify<F::kF64>(bits(INFINITY)), ElementClass::kPosInf);
  EXPECT_EQ(scan::classify<F::kF64>(bits(-INFINITY)), ElementClass::kNegInf);
  EXPECT_EQ(scan::classify<F::kF64>(bits(NAN)), ElementClass::kNaN);
  EXPECT_EQ(scan::classify<F::kF64>(0x7ff0000000000001ull), ElementClass::kNaN);
  EXPECT_EQ(scan::decode<F::kF64>(bits(-3.75)), -3.75);
  EXPECT_EQ(scan::decode<F::kF64>(1), std::ldexp(1.0, -1074));
}

TEST(ElementRules, HalfMatchesIndependentDecoderForEveryCode) {
  for (uint32_t code = 0; code <= 0xffff; ++code) {
    float expected = standin::half_to_float(static_cast<uint16_t>(code));
    double got = scan::decode<F::kF16>(code);
    ElementClass c = scan::classify<F::kF16>(code);
    if (std::isnan(expected)) {
      EXPECT_EQ(c, ElementClass::kNaN) << code;
      EXPECT_TRUE(std::isnan(got));
    } else {
      EXPECT_EQ(got, static_cast<double>(expected)) << code;
      ElementClass want = std::isinf(expected) ? (expected > 0 ? ElementClass::kPosInf : ElementClass::kNegInf)
                                               : ElementClass::kFinite;
      EXPECT_EQ(c, want) << code;
    }
  }
  EXPECT_EQ(scan::decode<F::kF16>(0x7bff), 65504.0);
  EXPECT_EQ(scan::decode<F::kF16>(0x0001), std::ldexp(1.0, -24));  // subnormal
}

TEST(ElementRules, Bfloat16MatchesFloatBitsForEveryCode) {
  for (uint32_t code = 0; code <= 0xffff; ++code) {
    float expected = f32(code << 16);
    double got = scan::decode<F::kBF16>(code);
    if (std::isnan(expected)) {
      EXPECT_EQ(scan::classify<F::kBF16>(code), ElementClass::kNaN) << code;
    } else {
      EXPECT_EQ(got, static_cast<double>(expected)) << code;
    }
  }
  EXPECT_EQ(scan::classify<F::kBF16>(0x7f80), ElementClass::kPosInf);
  EXPECT_EQ(scan::classify<F::kBF16>(0xff80), ElementClass::kNegInf);
  EXPECT_EQ(scan::classify<F::kBF16>(0x7fc0), ElementClass::kNaN);
  EXPECT_EQ(scan::decode<F::kBF16>(0x0001), std::ldexp(1.0, -133));  // subnormal
}

TEST(ElementRules, Fp8E4m3HasNaNButNoInfinity) {
  for (uint32_t code = 0; code <= 0xff; ++code) {
    double expected = standin::fp8_e4m3_to_double(static_cast<uint8_t>(code));
    ElementClass c = scan::classify<F::kE4M3>(code);
    EXPECT_NE(c, ElementClass::kPosInf) << code;
    EXPECT_NE(c, ElementClass::kNegInf) << code;
    if (std::isnan(expected)) EXPECT_EQ(c, ElementClass::kNaN) << code;
    else EXPECT_EQ(scan::decode<F::kE4M3>(code), expected) << code;
  }
  EXPECT_EQ(scan::classify<F::kE4M3>(0x7f), ElementClass::kNaN);
  EXPECT_EQ(scan::classify<F::kE4M3>(0xff), ElementClass::kNaN);
  // The all-ones exponent holds ordinary numbers in e4m3: 256 .. 448.
  EXPECT_EQ(scan::classify<F::kE4M3>(0x78), ElementClass::kFinite);
  EXPECT_EQ(scan::decode<F::kE4M3>(0x78), 256.0);
  EXPECT_EQ(scan::decode<F::kE4M3>(0x7e), 448.0);
  EXPECT_EQ(scan::decode<F::kE4M3>(0xfe), -448.0);
  EXPECT_EQ(scan::decode<F::kE4M3>(0x01), std::ldexp(1.0, -9));  // subnormal
}

TEST(ElementRules, Fp8E5m2HasNaNAndInfinity) {
  for (uint32_t code = 0; code <= 0xff; ++code) {
    double expected = standin::fp8_e5m2_to_double(static_cast<uint8_t>(code));
    if (std::isnan(expected)) EXPECT_EQ(scan::classify<F::kE5M2>(code), ElementClass::kNaN) << code;
    else EXPECT_EQ(scan::decode<F::kE5M2>(code), expected) << code;
  }
  EXPECT_EQ(scan::classify<F::kE5M2>(0x7c), ElementClass::kPosInf);
  EXPECT_EQ(scan::classify<F::kE5M2>(0xfc), ElementClass::kNegInf);
  EXPECT_EQ(scan::classify<F::kE5M2>(0x7d), ElementClass::kNaN);
  EXPECT_EQ(scan::classify<F::kE5M2>(0xff), ElementClass::kNaN);
  EXPECT_EQ(scan::decode<F::kE5M2>(0x7b), 57344.0);
  EXPECT_EQ(scan::decode<F::kE5M2>(0x01), std::ldexp(1.0, -16));
}

// The scan keeps the largest finite magnitude as an integer max of magnitude bits: valid only
// if the value grows with the bits over every finite pattern.
template <F kFormat>
void expect_magnitude_order(uint64_t patterns) {
  double previous = -1;
  for (uint64_t mag = 0; mag < patterns && scan::is_finite_magnitude<kFormat>(mag); ++mag) {
    double v = scan::decode_magnitude<kFormat>(mag);
    ASSERT_GT(v, previous) << "pattern " << mag;
    previous = v;
  }
}

TEST(ElementRules, MagnitudeGrowsWithBitsInEveryNarrowFormat) {
  expect_magnitude_order<F::kF16>(0x8000);
  expect_magnitude_order<F::kBF16>(0x8000);
  expect_magnitude_order<F::kE4M3>(0x80);
  expect_magnitude_order<F::kE5M2>(0x80);
}

TEST(ElementRules, ComplexCombinesParts) {
  EXPECT_EQ(scan::combine_complex(ElementClass::kFinite, ElementClass::kFinite), ElementClass::kFinite);
  EXPECT_EQ(scan::combine_complex(ElementClass::kFinite, ElementClass::kNaN), ElementClass::kNaN);
  EXPECT_EQ(scan::combine_complex(ElementClass::kPosInf, ElementClass::kNaN), ElementClass::kNaN);
  EXPECT_EQ(scan::combine_complex(ElementClass::kFinite, ElementClass::kNegInf), ElementClass::kNegInf);
  EXPECT_EQ(scan::combine_complex(ElementClass::kPosInf, ElementClass::kNegInf), ElementClass::kPosInf);
}

// ---- host scan -------------------------------------------------------------------------------

TEST(HostScan, HonoursLeadingDimensionAndFindsFirstElement) {
  // 3 x 4 in a 5-row buffer; the gap rows hold NaN that must not be counted.
  const int64_t rows = 3, cols = 4, ld = 5;
  std::vector<float> a(ld * cols, 1.0f);
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = rows; r < ld; ++r) a[c * ld + r] = f32(kF32NaN);
  a[1 * ld + 2] = f32(kF32Inf);     // (2, 1): the first in column-major order
  a[3 * ld + 0] = f32(kF32NaN);     // (0, 3)
  a[2 * ld + 1] = f32(kF32NegInf);  // (1, 2)
  a[0 * ld + 1] = -7.5f;
  format::ScanSummary s = scan_matrix_host(a.data(), DataType::kR32F, rows, cols, ld, 1, 0);
  EXPECT_EQ(s.nan_count, 1u);
  EXPECT_EQ(s.pos_inf_count, 1u);
  EXPECT_EQ(s.neg_inf_count, 1u);
  EXPECT_EQ(s.first_row, 2u);
  EXPECT_EQ(s.first_col, 1u);
  EXPECT_EQ(s.first_batch, 0u);
  EXPECT_EQ(s.max_abs_finite, 7.5);
  EXPECT_EQ(s.overflow, 0u);  // fp32 never reports overflow
}

TEST(HostScan, HonoursBatchStrideAndSkipsTheGapBetweenMembers) {
  const int64_t rows = 2, cols = 2, ld = 2, stride = 6, batch = 3;
  std::vector<double> a(stride * batch, 0.5);
  for (int64_t b = 0; b < batch; ++b) a[b * stride + 4] = a[b * stride + 5] = NAN;  // gaps
  a[2 * stride + 1 * ld + 0] = NAN;  // member 2, (0, 1)
  a[2 * stride + 1 * ld + 1] = INFINITY;
  format::ScanSummary s = scan_matrix_host(a.data(), DataType::kR64F, rows, cols, ld, batch, stride);
  EXPECT_EQ(s.nan_count, 1u);
  EXPECT_EQ(s.pos_inf_count, 1u);
  EXPECT_EQ(s.first_batch, 2u);
  EXPECT_EQ(s.first_row, 0u);
  EXPECT_EQ(s.first_col, 1u);
  EXPECT_EQ(s.max_abs_finite, 0.5);
}

TEST(HostScan, CountsEveryElementExactlyOnce) {
  const int64_t rows = 7, cols = 5, ld = 9, stride = 50, batch = 4;
  std::vector<uint16_t> a(stride * batch, 0x7e00);  // fp16 NaN everywhere, gaps included
  format::ScanSummary s = scan_matrix_host(a.data(), DataType::kR16F, rows, cols, ld, batch, stride);
  EXPECT_EQ(s.nan_count, static_cast<uint64_t>(rows * cols * batch));
  EXPECT_EQ(s.first_row + s.first_col + s.first_batch, 0u);
}

TEST(HostScan, BroadcastMatrixIsScannedOnce) {
  std::vector<float> a(4, f32(kF32NaN));
  format::ScanSummary s = scan_matrix_host(a.data(), DataType::kR32F, 2, 2, 2, 8, 0);
  EXPECT_EQ(s.nan_count, 4u);
}

TEST(HostScan, ComplexElementCountsOnceWhicheverPartIsBad) {
  // 4 complex elements: (NaN, 1), (NaN, NaN), (1, +Inf) and (-3, 2).
  std::vector<float> a = {f32(kF32NaN), 1.0f, f32(kF32NaN), f32(kF32NaN), 1.0f, f32(kF32Inf), -3.0f, 2.0f};
  format::ScanSummary s = scan_matrix_host(a.data(), DataType::kC32F, 4, 1, 4, 1, 0);
  EXPECT_EQ(s.nan_count, 2u);
  EXPECT_EQ(s.pos_inf_count, 1u);
  EXPECT_EQ(s.first_row, 0u);
  EXPECT_EQ(s.max_abs_finite, 3.0);  // the larger part of the one finite element
}

TEST(HostScan, ComplexDoubleAndComplexHalf) {
  std::vector<double> z = {1.0, 2.0, 3.0, -INFINITY};
  format::ScanSummary s = scan_matrix_host(z.data(), DataType::kC64F, 2, 1, 2, 1, 0);
  EXPECT_EQ(s.neg_inf_count, 1u);
  EXPECT_EQ(s.first_row, 1u);
  EXPECT_EQ(s.max_abs_finite, 2.0);
  std::vector<uint16_t> h = {0x3c00, 0x7c00, 0x4000, 0x0000};  // (1, +Inf), (2, 0)
  s = scan_matrix_host(h.data(), DataType::kC16F, 2, 1, 2, 1, 0);
  EXPECT_EQ(s.pos_inf_count, 1u);
  EXPECT_EQ(s.overflow, 1u);
  EXPECT_EQ(s.max_abs_finite, 2.0);
}

TEST(HostScan, SixteenBitInfinityReportsOverflow) {
  std::vector<uint16_t> half = {0x3c00, 0xfc00, 0x7bff};  // 1, -Inf, 65504
  format::ScanSummary s = scan_matrix_host(half.data(), DataType::kR16F, 3, 1, 3, 1, 0);
  EXPECT_EQ(s.neg_inf_count, 1u);
  EXPECT_EQ(s.overflow, 1u);
  EXPECT_EQ(s.max_abs_finite, 65504.0);
  std::vector<uint16_t> bf = {0x3f80, 0x7f80};  // 1, +Inf
  s = scan_matrix_host(bf.data(), DataType::kR16BF, 2, 1, 2, 1, 0);
  EXPECT_EQ(s.overflow, 1u);
  std::vector<uint16_t> nan_only = {0x7e00};
  s = scan_matrix_host(nan_only.data(), DataType::kR16F, 1, 1, 1, 1, 0);
  EXPECT_EQ(s.overflow, 0u);  // NaN is not an overflow
}

TEST(HostScan, Fp8Operands) {
  std::vector<uint8_t> e4m3 = {0x78, 0x7e, 0x7f, 0xff, 0x01};  // 256, 448, NaN, NaN, 2^-9
  format::ScanSummary s = scan_matrix_host(e4m3.data(), DataType::kR8F_E4M3, 5, 1, 5, 1, 0);
  EXPECT_EQ(s.nan_count, 2u);
  EXPECT_EQ(s.pos_inf_count + s.neg_inf_count, 0u);
  EXPECT_EQ(s.first_row, 2u);
  EXPECT_EQ(s.max_abs_finite, 448.0);
  std::vector<uint8_t> e5m2 = {0x7b, 0xfc, 0x7c, 0x7d};  // 57344, -Inf, +Inf, NaN
  s = scan_matrix_host(e5m2.data(), DataType::kR8F_E5M2, 4, 1, 4, 1, 0);
  EXPECT_EQ(s.nan_count, 1u);
  EXPECT_EQ(s.pos_inf_count, 1u);
  EXPECT_EQ(s.neg_inf_count, 1u);
  EXPECT_EQ(s.first_row, 1u);
  EXPECT_EQ(s.max_abs_finite, 57344.0);
  EXPECT_EQ(s.overflow, 0u);  // overflow is reported for 16-bit outputs only
}

TEST(HostScan, SubnormalsAreFiniteAndKeepTheirMagnitude) {
  std::vector<uint32_t> a = {0x00000001u, 0x80000002u};
  format::ScanSummary s = scan_matrix_host(a.data(), DataType::kR32F, 2, 1, 2, 1, 0);
  EXPECT_EQ(nonfinite_count(s), 0u);
  EXPECT_EQ(s.max_abs_finite, std::ldexp(2.0, -149));
}

TEST(HostScan, UnscannableInputsSayNotScanned) {
  std::vector<float> a(16, 1.0f);
  EXPECT_FALSE(was_scanned(scan_matrix_host(a.data(), DataType::kR32F, 4, 2, 3, 1, 0)));  // ld < rows
  EXPECT_FALSE(was_scanned(scan_matrix_host(a.data(), DataType::kR32I, 4, 2, 4, 1, 0)));  // integers
  format::ScanSummary empty = scan_matrix_host(a.data(), DataType::kR32F, 0, 2, 1, 1, 0);
  EXPECT_TRUE(was_scanned(empty));
  EXPECT_EQ(empty.max_abs_finite, 0.0);
}

// Random operands with scattered NaN/Inf: any split into spans gives the same tally.
TEST(HostScan, SpansInAnySizeGiveTheSameTally) {
  std::mt19937 rng(7);
  const uint64_t rows = 37, cols = 11, ld = 41;
  const uint64_t extent = (cols - 1) * ld + rows;
  std::vector<float> a(extent);
  for (float& v : a) v = std::uniform_real_distribution<float>(-100, 100)(rng);
  for (int i = 0; i < 20; ++i) {
    uint32_t bits[3] = {kF32NaN, kF32Inf, kF32NegInf};
    a[rng() % extent] = f32(bits[rng() % 3]);
  }
  ElementKind kind{F::kF32, false};
  HostScanner whole(kind, rows, cols, ld);
  whole.add_span(a.data(), 0, extent, 0);
  for (uint64_t piece : {1ull, 3ull, 40ull, 41ull, 100ull}) {
    HostScanner split(kind, rows, cols, ld);
    for (uint64_t first = 0; first < extent; first += piece) {
      split.add_span(a.data() + first, first, std::min(piece, extent - first), 0);
    }
    EXPECT_EQ(std::memcmp(&split.tally(), &whole.tally(), sizeof(scan::ScanTally)), 0) << piece;
  }
  EXPECT_GT(nonfinite_count(whole.tally()), 0u);
}

// The host path tallies all-finite blocks of 64 elements with one vectorized max: compare it,
// over long columns with bad values scattered, with the element rules applied one by one.
template <F kFormat, bool kComplex>
void expect_blocks_agree(DataType type, uint64_t seed) {
  using Bits = typename scan::FormatBits<kFormat>::Bits;
  constexpr uint64_t kParts = kComplex ? 2 : 1;
  const uint64_t rows = 1000, cols = 3, ld = 1003;
  std::mt19937_64 rng(seed);
  std::vector<Bits> data(((cols - 1) * ld + rows) * kParts);
  for (Bits& v : data) {
    do v = static_cast<Bits>(rng()); while (scan::classify<kFormat>(v) != ElementClass::kFinite);
  }
  for (int i = 0; i < 30; ++i) data[rng() % data.size()] = static_cast<Bits>(~Bits{0});  // NaN
  for (int i = 0; i < 5; ++i) {
    if (scan::FormatBits<kFormat>::kHasInf) data[rng() % data.size()] = static_cast<Bits>(scan::FormatBits<kFormat>::kExp);
  }
  scan::ScanTally want{};
  for (uint64_t c = 0; c < cols; ++c) {
    for (uint64_t r = 0; r < rows; ++r) {
      const Bits* e = &data[(c * ld + r) * kParts];
      scan::tally_element<kFormat, kComplex>(want, e[0], e[kParts - 1], c * rows + r);
    }
  }
  HostScanner got(*element_kind_of(type), rows, cols, ld);
  got.add_span(data.data(), 0, data.size() / kParts, 0);
  EXPECT_EQ(std::memcmp(&got.tally(), &want, sizeof want), 0) << cuda_name(NameSet::kDataType, static_cast<int>(type));
  EXPECT_GT(scan::nonfinite_count(want), 0u);
}

TEST(HostScan, BlockFastPathAgreesWithElementByElement) {
  for (uint64_t seed : {1, 2, 3}) {
    expect_blocks_agree<F::kF16, false>(DataType::kR16F, seed);
    expect_blocks_agree<F::kBF16, false>(DataType::kR16BF, seed);
    expect_blocks_agree<F::kF32, false>(DataType::kR32F, seed);
    expect_blocks_agree<F::kF64, false>(DataType::kR64F, seed);
    expect_blocks_agree<F::kE4M3, false>(DataType::kR8F_E4M3, seed);
    expect_blocks_agree<F::kE5M2, false>(DataType::kR8F_E5M2, seed);
    expect_blocks_agree<F::kF32, true>(DataType::kC32F, seed);
    expect_blocks_agree<F::kF16, true>(DataType::kC16F, seed);
  }
}

// ---- the kernel's per-thread loop, run on the CPU ------------------------------------------

template <F kFormat, bool kComplex>
scan::ScanTally run_kernel_on_cpu(scan::ScanKernelParams p, uint64_t threads) {
  scan::set_launch_threads(p, threads);
  scan::ScanTally total{};
  for (uint64_t t = 0; t < threads; ++t) {
    scan::ScanTally mine{};
    scan::scan_thread<kFormat, kComplex>(p, t, mine);
    scan::merge_tally(total, mine);
  }
  return total;
}

TEST(KernelLoop, MatchesHostScanForEveryGeometry) {
  std::mt19937 rng(11);
  for (uint64_t rows : {1ull, 3ull, 17ull}) {
    for (uint64_t cols : {1ull, 5ull}) {
      for (uint64_t batch : {1ull, 3ull}) {
        const uint64_t ld = rows + 2, stride = (cols - 1) * ld + rows + 3;
        std::vector<float> a(stride * batch, 2.0f);
        for (int i = 0; i < 4; ++i) a[rng() % a.size()] = f32(i % 2 ? kF32NaN : kF32NegInf);
        for (float& v : a) if (!std::isnan(v) && !std::isinf(v)) v = std::uniform_real_distribution<float>(-9, 9)(rng);
        HostScanner host({F::kF32, false}, rows, cols, ld);
        for (uint64_t b = 0; b < batch; ++b) host.add_span(a.data() + b * stride, 0, (cols - 1) * ld + rows, b);
        scan::ScanKernelParams p{};
        p.base = reinterpret_cast<uint64_t>(a.data());
        p.rows = rows, p.cols = cols, p.batch = batch, p.ld = ld, p.stride = stride;
        for (uint64_t threads : {1ull, 2ull, 7ull, 64ull, 1000ull}) {
          scan::ScanTally gpu = run_kernel_on_cpu<F::kF32, false>(p, threads);
          EXPECT_EQ(std::memcmp(&gpu, &host.tally(), sizeof gpu), 0)
              << rows << "x" << cols << "x" << batch << " threads " << threads;
        }
      }
    }
  }
}

TEST(KernelLoop, VisitsEachElementOnceWithPointerArraysAndComplex) {
  const uint64_t rows = 5, cols = 3, ld = 6, batch = 4;
  std::vector<std::vector<double>> members(batch, std::vector<double>(2 * ld * cols, NAN));
  std::vector<uint64_t> pointers;
  for (auto& m : members) pointers.push_back(reinterpret_cast<uint64_t>(m.data()));
  scan::ScanKernelParams p{};
  p.ptr_array = reinterpret_cast<uint64_t>(pointers.data());
  p.rows = rows, p.cols = cols, p.batch = batch, p.ld = ld;
  for (uint64_t threads : {1ull, 4ull, 13ull, 256ull}) {
    scan::ScanTally t = run_kernel_on_cpu<F::kF64, true>(p, threads);
    EXPECT_EQ(t.nan_count, rows * cols * batch) << threads;
    EXPECT_EQ(~t.first_key_inverted, 0u);
  }
  for (auto& m : members) std::fill(m.begin(), m.end(), 0.25);
  members[3][2 * (2 * ld + 1)] = INFINITY;  // member 3, (1, 2)
  scan::ScanTally t = run_kernel_on_cpu<F::kF64, true>(p, 13);
  EXPECT_EQ(t.pos_inf_count, 1u);
  format::ScanSummary s = summarize(t, {F::kF64, true}, rows, cols);
  EXPECT_EQ(s.first_batch, 3u);
  EXPECT_EQ(s.first_col, 2u);
  EXPECT_EQ(s.first_row, 1u);
  EXPECT_EQ(s.max_abs_finite, 0.25);
}

TEST(KernelLoop, LaunchGeometryCoversSmallAndLargeOperands) {
  scan::ScanKernelParams p{};
  p.rows = 10, p.cols = 10, p.batch = 1;
  EXPECT_EQ(scan::prepare_launch(p), 1u);
  EXPECT_EQ(p.threads, scan::kScanBlockThreads);
  p.rows = 100000, p.cols = 1000;
  EXPECT_EQ(scan::prepare_launch(p), scan::kScanMaxBlocks);
  EXPECT_EQ(p.step_row, p.threads % p.rows);
  EXPECT_EQ(scan::scan_kernel_index(F::kE4M3, true), -1);  // no complex fp8
  EXPECT_STREQ(scan::scan_kernel_name(scan::scan_kernel_index(F::kBF16, false)), "cublasspy_scan_bf16");
}

// ---- .npy files ----------------------------------------------------------------------------

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/cublasspy-npy-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override { (void)system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string dir_;
};

TEST_F(NpyTest, RoundTripsHeaderAndBytes) {
  std::vector<float> data = {1, 2, 3, 4, 5, 6};
  std::string path = dir_ + "/x.npy", error;
  ASSERT_TRUE(write_npy(path, "<f4", {6}, data.data(), 24, &error)) << error;
  auto info = read_npy_header(path, &error);
  ASSERT_TRUE(info) << error;
  EXPECT_EQ(info->major, 1);
  EXPECT_EQ(info->descr, "<f4");
  EXPECT_FALSE(info->fortran_order);
  EXPECT_EQ(info->shape, std::vector<uint64_t>{6});
  EXPECT_EQ(info->data_offset % 64, 0u);
  std::string bytes = slurp(path);
  ASSERT_EQ(bytes.size(), info->data_offset + 24);
  EXPECT_EQ(std::memcmp(bytes.data() + info->data_offset, data.data(), 24), 0);
  EXPECT_EQ(bytes[info->data_offset - 1], '\n');
  EXPECT_NE(bytes.find("'shape': (6,)"), std::string::npos);  // a Python 1-tuple
}

TEST_F(NpyTest, TwoDimensionalShapeForComplexPairs) {
  std::vector<uint16_t> data(8, 0x3c00);
  std::string path = dir_ + "/c.npy", error;
  auto dtype = npy_dtype_for(DataType::kC16F);
  ASSERT_TRUE(dtype);
  EXPECT_EQ(dtype->parts, 2);
  ASSERT_TRUE(write_npy(path, dtype->descr, {4, 2}, data.data(), 16, &error));
  auto info = read_npy_header(path, &error);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->shape, (std::vector<uint64_t>{4, 2}));
  EXPECT_EQ(info->descr, "<f2");
}

TEST_F(NpyTest, DtypesNameTheRawTypes) {
  EXPECT_STREQ(npy_dtype_for(DataType::kR16BF)->descr, "<u2");
  EXPECT_STREQ(npy_dtype_for(DataType::kR8F_E4M3)->descr, "|u1");
  EXPECT_STREQ(npy_dtype_for(DataType::kR8F_E5M2)->descr, "|u1");
  EXPECT_STREQ(npy_dtype_for(DataType::kC32F)->descr, "<c8");
  EXPECT_STREQ(npy_dtype_for(DataType::kC64F)->descr, "<c16");
  EXPECT_STREQ(npy_dtype_for(DataType::kR64F)->descr, "<f8");
  EXPECT_FALSE(npy_dtype_for(DataType::kUnknown));
}

TEST_F(NpyTest, NeverReplacesAFileNorFollowsALink) {
  std::string path = dir_ + "/x.npy", error;
  float one = 1;
  ASSERT_TRUE(write_npy(path, "<f4", {1}, &one, 4, &error));
  std::string before = slurp(path);
  float two = 2;
  EXPECT_FALSE(write_npy(path, "<f4", {1}, &two, 4, &error));
  EXPECT_EQ(slurp(path), before);
  std::string target = dir_ + "/target", link = dir_ + "/link.npy";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_FALSE(write_npy(link, "<f4", {1}, &one, 4, &error));
  EXPECT_NE(access(target.c_str(), F_OK), 0);  // nothing created through the link
}

TEST_F(NpyTest, FilesGetTheUmaskedMode) {
  mode_t old = umask(027);
  std::string path = dir_ + "/m.npy", error;
  float one = 1;
  bool ok = write_npy(path, "<f4", {1}, &one, 4, &error);
  umask(old);
  ASSERT_TRUE(ok);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

}  // namespace
}  // namespace cublasspy
