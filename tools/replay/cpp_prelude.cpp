#include "replay/cpp_prelude.h"

namespace cublasspy::replay {

const char* const kCppPrelude = R"CPP(
namespace {

bool cuda_ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::printf("%s: %s (%d): %s\n", what, cudaGetErrorName(e), static_cast<int>(e), cudaGetErrorString(e));
  return false;
}

bool cublas_ok(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return true;
  std::printf("%s: %s (%d)\n", what, cublasGetStatusName(s), static_cast<int>(s));
  return false;
}

// The seeded values of `cublasspy replay --seed N` (splitmix64; one stream per operand).
struct Seeded {
  uint64_t state;
  Seeded(uint64_t seed, const char* name) {
    uint64_t h = 1469598103934665603ull;
    for (const char* c = name; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
    state = seed ^ h;
  }
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

// cudaDataType: the real type of one part, and sizes.
int part_type(int t) {
  switch (t) {
    case CUDA_C_16F: return CUDA_R_16F;
    case CUDA_C_16BF: return CUDA_R_16BF;
    case CUDA_C_32F: return CUDA_R_32F;
    case CUDA_C_64F: return CUDA_R_64F;
    case CUDA_C_8I: return CUDA_R_8I;
    case CUDA_C_32I: return CUDA_R_32I;
    default: return t;
  }
}
int parts(int t) { return part_type(t) == t ? 1 : 2; }
int part_bytes(int t) {
  switch (part_type(t)) {
    case CUDA_R_64F: return 8;
    case CUDA_R_32F: case CUDA_R_32I: return 4;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    default: return 1;
  }
}

// Round to nearest even into a binary float of E exponent and M mantissa bits ("fn": E4M3).
uint32_t small_float(double v, int E, int M, bool fn) {
  const int bias = (1 << (E - 1)) - 1;
  const uint32_t sign = std::signbit(v) ? 1u << (E + M) : 0u;
  const uint32_t nan = fn ? (1u << (E + M)) - 1 : (((1u << E) - 1) << M) | (1u << (M - 1));
  const uint32_t inf = ((1u << E) - 1) << M, max = fn ? (1u << (E + M)) - 2 : inf - 1;
  if (std::isnan(v)) return sign | nan;
  double a = std::fabs(v);
  if (std::isinf(a)) return sign | (fn ? nan : inf);
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);
  const int exponent = e - 1, min_normal = 1 - bias;
  uint64_t bits;
  if (exponent < min_normal) {
    bits = static_cast<uint64_t>(std::nearbyint(std::ldexp(a, M - min_normal)));
  } else {
    double q = std::nearbyint(std::ldexp(a, M - exponent));
    bits = (static_cast<uint64_t>(exponent + bias) << M) + static_cast<uint64_t>(q) - (uint64_t{1} << M);
  }
  return sign | (bits > max ? (fn ? nan : inf) : static_cast<uint32_t>(bits));
}

template <typename T> T clamp_round(double v) {
  double r = std::nearbyint(v), lo = static_cast<double>(std::numeric_limits<T>::min()),
         hi = static_cast<double>(std::numeric_limits<T>::max());
  return static_cast<T>(r < lo ? lo : r > hi ? hi : r);
}

void encode(int t, unsigned char* p, int part, double v) {
  unsigned char* at = p + part * part_bytes(t);
  switch (part_type(t)) {
    case CUDA_R_64F: std::memcpy(at, &v, 8); break;
    case CUDA_R_32F: { float f = static_cast<float>(v); std::memcpy(at, &f, 4); break; }
    case CUDA_R_16F: { uint16_t b = static_cast<uint16_t>(small_float(v, 5, 10, false)); std::memcpy(at, &b, 2); break; }
    case CUDA_R_16BF: { uint16_t b = static_cast<uint16_t>(small_float(v, 8, 7, false)); std::memcpy(at, &b, 2); break; }
    case CUDA_R_8F_E4M3: *at = static_cast<unsigned char>(small_float(v, 4, 3, true)); break;
    case CUDA_R_8F_E5M2: *at = static_cast<unsigned char>(small_float(v, 5, 2, false)); break;
    case CUDA_R_8I: { int8_t b = clamp_round<int8_t>(v); std::memcpy(at, &b, 1); break; }
    case CUDA_R_8U: *at = clamp_round<uint8_t>(v); break;
    case CUDA_R_32I: { int32_t b = clamp_round<int32_t>(v); std::memcpy(at, &b, 4); break; }
    default: break;
  }
}

double next_value(Seeded& s, int t) {
  uint64_t bits = s.next();
  switch (part_type(t)) {
    case CUDA_R_8I: return static_cast<double>(static_cast<int64_t>(bits % 17) - 8);
    case CUDA_R_8U: return static_cast<double>(bits % 17);
    case CUDA_R_32I: return static_cast<double>(static_cast<int64_t>(bits % 129) - 64);
    default: return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;
  }
}

// `bytes` of seeded values of type t (ones when `ones`).
std::vector<unsigned char> values(int t, size_t bytes, uint64_t seed, const char* name, bool ones = false) {
  std::vector<unsigned char> host(bytes);
  Seeded s(seed, name);
  const size_t elem = static_cast<size_t>(part_bytes(t) * parts(t));
  for (size_t at = 0; at + elem <= bytes; at += elem) {
    for (int part = 0; part < parts(t); ++part) encode(t, &host[at], part, ones ? (part == 0) : next_value(s, t));
  }
  return host;
}

// A device copy of host[offset, offset + bytes), `misalignment` bytes past a 256-byte boundary.
void* to_device(const std::vector<unsigned char>& host, size_t offset, size_t bytes, unsigned misalignment) {
  void* base = nullptr;
  if (!cuda_ok(cudaMalloc(&base, bytes + 256), "cudaMalloc")) std::exit(1);
  void* p = static_cast<char*>(base) + misalignment;
  if (!cuda_ok(cudaMemcpy(p, host.data() + offset, bytes, cudaMemcpyHostToDevice), "cudaMemcpy")) std::exit(1);
  return p;
}

// The captured values: `members` matrices of `bytes` each, back to back in the .npy dump at `path`
// from `offset`, into host at `first`, `first + stride`, ... A missing or short file leaves the
// seeded values (it says so); false then.
bool load_dump(std::vector<unsigned char>& host, const char* what, const char* path, long offset, size_t first,
               size_t bytes, size_t members, size_t stride) {
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) {
    std::printf("%s: %s: %s: seeded values instead\n", what, path, std::strerror(errno));
    return false;
  }
  bool ok = std::fseek(f, offset, SEEK_SET) == 0;
  for (size_t i = 0; ok && i < members; ++i) {
    ok = first + i * stride + bytes <= host.size() && std::fread(host.data() + first + i * stride, 1, bytes, f) == bytes;
  }
  std::fclose(f);
  if (ok) std::printf("%s: %zu member(s) from %s\n", what, members, path);
  else std::printf("%s: %s is shorter than the operand: seeded values for the rest\n", what, path);
  return ok;
}

// Elements of an m x n result (ld, `members` of them `stride` bytes apart) that hold the same
// bits in `got` and `want`.
size_t same_elements(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want, size_t first,
                     size_t members, size_t stride, long m, long n, long ld, size_t elem) {
  size_t same = 0;
  for (size_t b = 0; b < members; ++b) {
    for (long j = 0; j < n; ++j) {
      for (long i = 0; i < m; ++i) {
        const size_t at = first + b * stride + static_cast<size_t>(i + j * ld) * elem;
        same += std::memcmp(got.data() + at, want.data() + at, elem) == 0;
      }
    }
  }
  return same;
}

}  // namespace
)CPP";

}  // namespace cublasspy::replay
