// The element rules of CUBLASSPY_SCAN: how each element type is decoded and classified as NaN,
// +Inf, -Inf or finite, how a complex element combines its two parts, and how a scan's running
// tally is kept. This is the ONE definition: the GPU kernel (scan_kernel.cu, nvcc) and the
// host-side path (host_scan.cpp, g++) both include it, so the two paths cannot disagree.
//
// Everything works on the raw bits, never on floating-point arithmetic: a NaN cannot be lost to
// a fast-math flag, a subnormal cannot be flushed to zero, and fp8 needs no hardware support.
// For every format here, |x| orders like the integer (bits & ~sign) over the finite values, so
// "largest finite magnitude" is an integer max of magnitude bits, decoded once at the end.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CBS_SCAN_HD __host__ __device__ __forceinline__
#else
#define CBS_SCAN_HD inline
#endif

namespace cublasspy::scan {

// The scalar formats that can hold NaN or Inf. Complex types are pairs of one of these.
enum class ElementFormat : uint8_t { kF16 = 0, kBF16 = 1, kF32 = 2, kF64 = 3, kE4M3 = 4, kE5M2 = 5 };
inline constexpr int kElementFormatCount = 6;

enum class ElementClass : uint8_t { kFinite = 0, kNaN = 1, kPosInf = 2, kNegInf = 3 };

// Bit layout of each format. `nonfinite_from` is the smallest magnitude-bit pattern that is not
// a finite number: the all-ones exponent for the IEEE-like formats; for e4m3 (the "FN" variant
// of __nv_fp8_e4m3: no infinities, S.1111.111 is NaN, 448 is the largest value) the single NaN
// pattern 0x7f.
template <ElementFormat F> struct FormatBits;
template <> struct FormatBits<ElementFormat::kF16> {
  using Bits = uint16_t;
  static constexpr uint64_t kSign = 0x8000, kExp = 0x7c00, kMant = 0x03ff;
  static constexpr int kMantBits = 10, kBias = 15;
  static constexpr bool kHasInf = true;
  static constexpr uint64_t kNonfiniteFrom = kExp;
};
template <> struct FormatBits<ElementFormat::kBF16> {
  using Bits = uint16_t;
  static constexpr uint64_t kSign = 0x8000, kExp = 0x7f80, kMant = 0x007f;
  static constexpr int kMantBits = 7, kBias = 127;
  static constexpr bool kHasInf = true;
  static constexpr uint64_t kNonfiniteFrom = kExp;
};
template <> struct FormatBits<ElementFormat::kF32> {
  using Bits = uint32_t;
  static constexpr uint64_t kSign = 0x80000000u, kExp = 0x7f800000u, kMant = 0x007fffffu;
  static constexpr int kMantBits = 23, kBias = 127;
  static constexpr bool kHasInf = true;
  static constexpr uint64_t kNonfiniteFrom = kExp;
};
template <> struct FormatBits<ElementFormat::kF64> {
  using Bits = uint64_t;
  static constexpr uint64_t kSign = 0x8000000000000000ull, kExp = 0x7ff0000000000000ull,
                            kMant = 0x000fffffffffffffull;
  static constexpr int kMantBits = 52, kBias = 1023;
  static constexpr bool kHasInf = true;
  static constexpr uint64_t kNonfiniteFrom = kExp;
};
template <> struct FormatBits<ElementFormat::kE4M3> {
  using Bits = uint8_t;
  static constexpr uint64_t kSign = 0x80, kExp = 0x78, kMant = 0x07;
  static constexpr int kMantBits = 3, kBias = 7;
  static constexpr bool kHasInf = false;
  static constexpr uint64_t kNonfiniteFrom = 0x7f;
};
template <> struct FormatBits<ElementFormat::kE5M2> {
  using Bits = uint8_t;
  static constexpr uint64_t kSign = 0x80, kExp = 0x7c, kMant = 0x03;
  static constexpr int kMantBits = 2, kBias = 15;
  static constexpr bool kHasInf = true;
  static constexpr uint64_t kNonfiniteFrom = kExp;
};

// The magnitude bits of a value: its bits without the sign.
template <ElementFormat F>
CBS_SCAN_HD uint64_t magnitude_bits(uint64_t bits) {
  return bits & ~FormatBits<F>::kSign & (FormatBits<F>::kSign | (FormatBits<F>::kSign - 1));
}

template <ElementFormat F>
CBS_SCAN_HD bool is_finite_magnitude(uint64_t mag) {
  return mag < FormatBits<F>::kNonfiniteFrom;
}

template <ElementFormat F>
CBS_SCAN_HD ElementClass classify(uint64_t bits) {
  using B = FormatBits<F>;
  uint64_t mag = magnitude_bits<F>(bits);
  if (mag < B::kNonfiniteFrom) return ElementClass::kFinite;
  if (B::kHasInf && mag == B::kExp) {
    return (bits & B::kSign) ? ElementClass::kNegInf : ElementClass::kPosInf;
  }
  return ElementClass::kNaN;
}

// A complex element is NaN when either part is NaN; otherwise it is infinite when either part
// is, with the sign of the first infinite part (real before imaginary); otherwise finite.
CBS_SCAN_HD ElementClass combine_complex(ElementClass re, ElementClass im) {
  if (re == ElementClass::kNaN || im == ElementClass::kNaN) return ElementClass::kNaN;
  return re != ElementClass::kFinite ? re : im;
}

// A finite complex element's magnitude is the larger of |re| and |im| (not the modulus, which
// can overflow and says nothing more about the range the type must hold).
CBS_SCAN_HD uint64_t max_bits(uint64_t a, uint64_t b) { return a > b ? a : b; }

CBS_SCAN_HD double bits_to_double(uint64_t bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double d;
  __builtin_memcpy(&d, &bits, sizeof d);
  return d;
#endif
}

// 2^e as a double, built from bits: exact for the exponents these formats reach, and the same
// on host and device (no library call).
CBS_SCAN_HD double pow2(int e) { return bits_to_double(static_cast<uint64_t>(e + 1023) << 52); }

// Exact value of a finite magnitude pattern, as a double (every format here fits a double).
template <ElementFormat F>
CBS_SCAN_HD double decode_magnitude(uint64_t mag) {
  using B = FormatBits<F>;
  if constexpr (F == ElementFormat::kF64) {
    return bits_to_double(mag);
  } else {
    int exp = static_cast<int>((mag & B::kExp) >> B::kMantBits);
    double mant = static_cast<double>(mag & B::kMant);
    if (exp == 0) return mant * pow2(1 - B::kBias - B::kMantBits);  // zero or subnormal
    return (mant * pow2(-B::kMantBits) + 1.0) * pow2(exp - B::kBias);
  }
}

// The value of any pattern, NaN and Inf included (for tests, dumps and messages).
template <ElementFormat F>
CBS_SCAN_HD double decode(uint64_t bits) {
  double sign = (bits & FormatBits<F>::kSign) ? -1.0 : 1.0;
  switch (classify<F>(bits)) {
    case ElementClass::kNaN: return bits_to_double(0x7ff8000000000000ull);
    case ElementClass::kPosInf: return bits_to_double(0x7ff0000000000000ull);
    case ElementClass::kNegInf: return bits_to_double(0xfff0000000000000ull);
    default: return sign * decode_magnitude<F>(magnitude_bits<F>(bits));
  }
}

// Runtime-dispatched forms, for code that holds the format as a value.
CBS_SCAN_HD ElementClass classify(ElementFormat f, uint64_t bits) {
  switch (f) {
    case ElementFormat::kF16: return classify<ElementFormat::kF16>(bits);
    case ElementFormat::kBF16: return classify<ElementFormat::kBF16>(bits);
    case ElementFormat::kF32: return classify<ElementFormat::kF32>(bits);
    case ElementFormat::kF64: return classify<ElementFormat::kF64>(bits);
    case ElementFormat::kE4M3: return classify<ElementFormat::kE4M3>(bits);
    default: return classify<ElementFormat::kE5M2>(bits);
  }
}

CBS_SCAN_HD double decode(ElementFormat f, uint64_t bits) {
  switch (f) {
    case ElementFormat::kF16: return decode<ElementFormat::kF16>(bits);
    case ElementFormat::kBF16: return decode<ElementFormat::kBF16>(bits);
    case ElementFormat::kF32: return decode<ElementFormat::kF32>(bits);
    case ElementFormat::kF64: return decode<ElementFormat::kF64>(bits);
    case ElementFormat::kE4M3: return decode<ElementFormat::kE4M3>(bits);
    default: return decode<ElementFormat::kE5M2>(bits);
  }
}

CBS_SCAN_HD double decode_magnitude(ElementFormat f, uint64_t mag) {
  switch (f) {
    case ElementFormat::kF16: return decode_magnitude<ElementFormat::kF16>(mag);
    case ElementFormat::kBF16: return decode_magnitude<ElementFormat::kBF16>(mag);
    case ElementFormat::kF32: return decode_magnitude<ElementFormat::kF32>(mag);
    case ElementFormat::kF64: return decode_magnitude<ElementFormat::kF64>(mag);
    case ElementFormat::kE4M3: return decode_magnitude<ElementFormat::kE4M3>(mag);
    default: return decode_magnitude<ElementFormat::kE5M2>(mag);
  }
}

CBS_SCAN_HD int format_bytes(ElementFormat f) {
  switch (f) {
    case ElementFormat::kF16: case ElementFormat::kBF16: return 2;
    case ElementFormat::kF32: return 4;
    case ElementFormat::kF64: return 8;
    default: return 1;
  }
}

// The running result of a scan, identical on both paths. Elements are numbered in the order
// (batch, column, row), row fastest: key = (batch * cols + col) * rows + row, so the smallest
// key of a non-finite element is the "first" one whichever thread saw it. The first key is
// stored inverted so that "none yet" is 0 (zeroed memory) and merging is a max, like the rest.
struct ScanTally {
  uint64_t nan_count;
  uint64_t pos_inf_count;
  uint64_t neg_inf_count;
  uint64_t first_key_inverted;  // ~key of the first non-finite element; 0: none
  uint64_t max_magnitude_bits;  // over the finite elements
  uint64_t pad[3];              // 64 bytes: one result per cache line on the device
};
static_assert(sizeof(ScanTally) == 64);

CBS_SCAN_HD void tally_nonfinite(ScanTally& t, ElementClass c, uint64_t key) {
  if (c == ElementClass::kNaN) t.nan_count++;
  else if (c == ElementClass::kPosInf) t.pos_inf_count++;
  else t.neg_inf_count++;
  t.first_key_inverted = max_bits(t.first_key_inverted, ~key);
}

// One element (real: `im` unused) at position `key`.
template <ElementFormat F, bool kComplex>
CBS_SCAN_HD void tally_element(ScanTally& t, uint64_t re, uint64_t im, uint64_t key) {
  uint64_t mag = magnitude_bits<F>(re);
  if constexpr (kComplex) {
    uint64_t mag_im = magnitude_bits<F>(im);
    if (is_finite_magnitude<F>(mag) && is_finite_magnitude<F>(mag_im)) {
      t.max_magnitude_bits = max_bits(t.max_magnitude_bits, max_bits(mag, mag_im));
    } else {
      tally_nonfinite(t, combine_complex(classify<F>(re), classify<F>(im)), key);
    }
  } else {
    if (is_finite_magnitude<F>(mag)) t.max_magnitude_bits = max_bits(t.max_magnitude_bits, mag);
    else tally_nonfinite(t, classify<F>(re), key);
  }
}

CBS_SCAN_HD void merge_tally(ScanTally& into, const ScanTally& from) {
  into.nan_count += from.nan_count;
  into.pos_inf_count += from.pos_inf_count;
  into.neg_inf_count += from.neg_inf_count;
  into.first_key_inverted = max_bits(into.first_key_inverted, from.first_key_inverted);
  into.max_magnitude_bits = max_bits(into.max_magnitude_bits, from.max_magnitude_bits);
}

CBS_SCAN_HD uint64_t nonfinite_count(const ScanTally& t) {
  return t.nan_count + t.pos_inf_count + t.neg_inf_count;
}

}  // namespace cublasspy::scan
