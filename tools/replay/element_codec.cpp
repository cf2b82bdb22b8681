#include "replay/element_codec.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace cublasspy::replay {
namespace {

// A binary float format with `E` exponent and `M` mantissa bits. `fn` formats (E4M3) have no
// infinities: the all-ones exponent holds finite values, and only all-ones bits are NaN.
struct SmallFloat {
  int E, M;
  bool fn;
  int bias() const { return (1 << (E - 1)) - 1; }
  uint32_t nan_bits() const { return fn ? (1u << (E + M)) - 1 : (((1u << E) - 1) << M) | (1u << (M - 1)); }
  uint32_t inf_bits() const { return ((1u << E) - 1) << M; }
  uint32_t max_bits() const { return fn ? (1u << (E + M)) - 2 : inf_bits() - 1; }
};

constexpr SmallFloat kHalf{5, 10, false};
constexpr SmallFloat kBf16{8, 7, false};
constexpr SmallFloat kE4M3{4, 3, true};
constexpr SmallFloat kE5M2{5, 2, false};

uint32_t encode_small(const SmallFloat& f, double v) {
  const uint32_t sign = std::signbit(v) ? 1u << (f.E + f.M) : 0u;
  if (std::isnan(v)) return sign | f.nan_bits();
  double a = std::fabs(v);
  if (std::isinf(a)) return sign | (f.fn ? f.nan_bits() : f.inf_bits());
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a = x * 2^e, x in [0.5, 1): the leading bit is 2^(e-1)
  int exponent = e - 1;
  const int min_normal = 1 - f.bias();
  uint64_t bits;
  if (exponent < min_normal) {
    // Subnormal: a multiple of 2^(min_normal - M); rounding up may reach the first normal,
    // which is the next integer of the encoding, so the arithmetic carries over by itself.
    bits = static_cast<uint64_t>(std::nearbyint(std::ldexp(a, f.M - min_normal)));
  } else {
    double q = std::nearbyint(std::ldexp(a, f.M - exponent));  // in [2^M, 2^(M+1)]
    bits = (static_cast<uint64_t>(exponent + f.bias()) << f.M) + static_cast<uint64_t>(q) - (uint64_t{1} << f.M);
  }
  if (bits > f.max_bits()) return sign | (f.fn ? f.nan_bits() : f.inf_bits());
  return sign | static_cast<uint32_t>(bits);
}

double decode_small(const SmallFloat& f, uint32_t bits) {
  const bool negative = (bits >> (f.E + f.M)) & 1u;
  const uint32_t exp = (bits >> f.M) & ((1u << f.E) - 1);
  const uint32_t man = bits & ((1u << f.M) - 1);
  double value;
  if (f.fn && exp == (1u << f.E) - 1 && man == (1u << f.M) - 1) {
    return std::numeric_limits<double>::quiet_NaN();
  } else if (!f.fn && exp == (1u << f.E) - 1) {
    value = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exp == 0) {
    value = std::ldexp(static_cast<double>(man), 1 - f.bias() - f.M);
  } else {
    value = std::ldexp(static_cast<double>(man | (1u << f.M)), static_cast<int>(exp) - f.bias() - f.M);
  }
  return negative ? -value : value;
}

template <typename T>
T load(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void store(void* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

template <typename T>
T to_integer(double v) {
  if (std::isnan(v)) return 0;
  double r = std::nearbyint(v);
  if (r < static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (r > static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

// The real type a complex type is made of (or the type itself).
DataType part_type(DataType t) {
  switch (t) {
    case DataType::kC16F: return DataType::kR16F;
    case DataType::kC16BF: return DataType::kR16BF;
    case DataType::kC32F: return DataType::kR32F;
    case DataType::kC64F: return DataType::kR64F;
    case DataType::kC8I: return DataType::kR8I;
    case DataType::kC32I: return DataType::kR32I;
    default: return t;
  }
}

}  // namespace

uint16_t to_half_bits(double v) { return static_cast<uint16_t>(encode_small(kHalf, v)); }
uint16_t to_bf16_bits(double v) { return static_cast<uint16_t>(encode_small(kBf16, v)); }
uint8_t to_e4m3_bits(double v) { return static_cast<uint8_t>(encode_small(kE4M3, v)); }
uint8_t to_e5m2_bits(double v) { return static_cast<uint8_t>(encode_small(kE5M2, v)); }
double from_half_bits(uint16_t b) { return decode_small(kHalf, b); }
double from_bf16_bits(uint16_t b) { return decode_small(kBf16, b); }
double from_e4m3_bits(uint8_t b) { return decode_small(kE4M3, b); }
double from_e5m2_bits(uint8_t b) { return decode_small(kE5M2, b); }

int element_parts(DataType t) { return is_complex(t) ? 2 : 1; }

int part_bytes(DataType t) { return element_bytes(t) / element_parts(t); }

double decode_part(DataType t, const void* p, int part) {
  const DataType r = part_type(t);
  const char* at = static_cast<const char*>(p) + part * part_bytes(t);
  switch (r) {
    case DataType::kR64F: return load<double>(at);
    case DataType::kR32F: return load<float>(at);
    case DataType::kR16F: return from_half_bits(load<uint16_t>(at));
    case DataType::kR16BF: return from_bf16_bits(load<uint16_t>(at));
    case DataType::kR8F_E4M3: return from_e4m3_bits(load<uint8_t>(at));
    case DataType::kR8F_E5M2: return from_e5m2_bits(load<uint8_t>(at));
    case DataType::kR8I: return load<int8_t>(at);
    case DataType::kR8U: return load<uint8_t>(at);
    case DataType::kR32I: return load<int32_t>(at);
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

void encode_part(DataType t, void* p, int part, double v) {
  const DataType r = part_type(t);
  char* at = static_cast<char*>(p) + part * part_bytes(t);
  switch (r) {
    case DataType::kR64F: store<double>(at, v); break;
    case DataType::kR32F: store<float>(at, static_cast<float>(v)); break;
    case DataType::kR16F: store<uint16_t>(at, to_half_bits(v)); break;
    case DataType::kR16BF: store<uint16_t>(at, to_bf16_bits(v)); break;
    case DataType::kR8F_E4M3: store<uint8_t>(at, to_e4m3_bits(v)); break;
    case DataType::kR8F_E5M2: store<uint8_t>(at, to_e5m2_bits(v)); break;
    case DataType::kR8I: store<int8_t>(at, to_integer<int8_t>(v)); break;
    case DataType::kR8U: store<uint8_t>(at, to_integer<uint8_t>(v)); break;
    case DataType::kR32I: store<int32_t>(at, to_integer<int32_t>(v)); break;
    default: break;
  }
}

SeededValues::SeededValues(uint64_t seed, const char* operand_name) {
  // FNV-1a of the name, so each operand's stream is independent of the others' sizes.
  uint64_t h = 1469598103934665603ull;
  for (const char* c = operand_name; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
  state = seed ^ h;
}

uint64_t SeededValues::next_bits() {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double SeededValues::next(DataType t) {
  uint64_t bits = next_bits();
  switch (part_type(t)) {
    case DataType::kR8I: return static_cast<double>(static_cast<int64_t>(bits % 17) - 8);
    case DataType::kR8U: return static_cast<double>(bits % 17);
    case DataType::kR32I: return static_cast<double>(static_cast<int64_t>(bits % 129) - 64);
    default: return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;  // [-1, 1)
  }
}

void fill_seeded(SeededValues& values, DataType t, void* p, uint64_t elements) {
  const int bytes = element_bytes(t);
  const int parts = element_parts(t);
  char* at = static_cast<char*>(p);
  for (uint64_t i = 0; i < elements; ++i, at += bytes) {
    for (int part = 0; part < parts; ++part) encode_part(t, at, part, values.next(t));
  }
}

void fill_ones(DataType t, void* p, uint64_t elements) {
  const int bytes = element_bytes(t);
  const int parts = element_parts(t);
  char* at = static_cast<char*>(p);
  for (uint64_t i = 0; i < elements; ++i, at += bytes) {
    for (int part = 0; part < parts; ++part) encode_part(t, at, part, part == 0 ? 1.0 : 0.0);
  }
}

}  // namespace cublasspy::replay
