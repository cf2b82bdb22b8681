// Bit-exact conversions between double and the narrow formats the GEMMs read and write
// (IEEE half, bfloat16, the two fp8 formats), plus the input roundings of the "fast" compute
// modes (TF32, half, bf16). The stand-in computes in double and rounds once when it stores,
// the way a GPU kernel with a wide accumulator would; results can therefore differ from a real
// GPU in the last bits, never in meaning.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace standin {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// float -> IEEE binary16, round to nearest even, with overflow to infinity.
inline uint16_t float_to_half(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {  // result is subnormal in half (or zero)
    if (abs < 0x33000000u) return sign;  // below half of the smallest subnormal
    uint32_t mant = (abs & 0x007fffffu) | 0x00800000u;
    int shift = 126 - static_cast<int>(abs >> 23);  // 14 + (113 - exp)
    uint32_t half_mant = mant >> (shift);
    uint32_t rest = mant & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<uint16_t>(sign | half_mant);
  }
  uint32_t rounded = abs + 0x00000fffu + ((abs >> 13) & 1u);  // round to nearest even
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

inline float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    float v = std::ldexp(static_cast<float>(mant), -24);
    return (sign != 0u) ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

inline uint16_t float_to_bf16(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // NaN
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

inline float bf16_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

// TF32 keeps 10 mantissa bits of a float (what tensor cores read for TF32 math).
inline float round_to_tf32(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) >= 0x7f800000u) return f;
  x += 0xfffu + ((x >> 13) & 1u);
  return bits_float(x & 0xffffe000u);
}

// fp8: E4M3 (bias 7, no infinities, 0x7f/0xff are NaN, max 448) and E5M2 (bias 15, IEEE-like,
// max 57344). Decoding is direct; encoding picks the nearest value (ties to even code) and
// saturates to the largest finite value, like the satfinite conversions cuBLASLt uses.
inline double fp8_e4m3_to_double(uint8_t v) {
  int sign = (v & 0x80) ? -1 : 1;
  int exp = (v >> 3) & 0xf;
  int mant = v & 0x7;
  if (exp == 0xf && mant == 0x7) return std::nan("");
  if (exp == 0) return sign * std::ldexp(static_cast<double>(mant), -9);
  return sign * std::ldexp(1.0 + mant / 8.0, exp - 7);
}

inline double fp8_e5m2_to_double(uint8_t v) {
  int sign = (v & 0x80) ? -1 : 1;
  int exp = (v >> 2) & 0x1f;
  int mant = v & 0x3;
  if (exp == 0x1f) return mant ? std::nan("") : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(static_cast<double>(mant), -16);
  return sign * std::ldexp(1.0 + mant / 4.0, exp - 15);
}

template <double (*Decode)(uint8_t)>
inline uint8_t encode_fp8(double x, uint8_t max_finite_code, uint8_t nan_code) {
  if (std::isnan(x)) return nan_code;
  uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  double a = std::fabs(x);
  if (a >= Decode(max_finite_code)) return static_cast<uint8_t>(sign | max_finite_code);
  // Codes 0..max_finite_code are monotonic in value: binary search for the bracket.
  int lo = 0, hi = max_finite_code;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (Decode(static_cast<uint8_t>(mid)) <= a) lo = mid; else hi = mid;
  }
  double dlo = a - Decode(static_cast<uint8_t>(lo));
  double dhi = Decode(static_cast<uint8_t>(hi)) - a;
  int code = (dlo < dhi || (dlo == dhi && (lo & 1) == 0)) ? lo : hi;
  return static_cast<uint8_t>(sign | code);
}

inline uint8_t double_to_fp8_e4m3(double x) { return encode_fp8<fp8_e4m3_to_double>(x, 0x7e, 0x7f); }
inline uint8_t double_to_fp8_e5m2(double x) { return encode_fp8<fp8_e5m2_to_double>(x, 0x7b, 0x7f); }

}  // namespace standin
