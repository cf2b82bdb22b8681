#include "trace/roles_from_names.h"

#include <cstring>
#include <string_view>

namespace cublasspy {
namespace {

using format::ArgKind;
using format::ArgRole;
using format::Family;
using format::Library;

// The slot names of version 1 and 2 writers that meant one thing wherever they appeared.
struct NamedRole {
  std::string_view name;
  ArgRole role;
};
constexpr NamedRole kRoles[] = {
    {"handle", ArgRole::kHandle}, {"transa", ArgRole::kTransA}, {"transb", ArgRole::kTransB},
    {"m", ArgRole::kM}, {"n", ArgRole::kN}, {"k", ArgRole::kK},
    {"alpha", ArgRole::kAlpha}, {"beta", ArgRole::kBeta},
    {"a", ArgRole::kA}, {"b", ArgRole::kB}, {"c", ArgRole::kC}, {"d", ArgRole::kD},
    {"lda", ArgRole::kLda}, {"ldb", ArgRole::kLdb}, {"ldc", ArgRole::kLdc}, {"ldd", ArgRole::kLdd},
    {"a_type", ArgRole::kAType}, {"b_type", ArgRole::kBType}, {"c_type", ArgRole::kCType},
    {"d_type", ArgRole::kDType},
    {"stride_a", ArgRole::kStrideA}, {"stride_b", ArgRole::kStrideB}, {"stride_c", ArgRole::kStrideC},
    {"stride_d", ArgRole::kStrideD},
    {"a_order", ArgRole::kAOrder}, {"b_order", ArgRole::kBOrder}, {"c_order", ArgRole::kCOrder},
    {"d_order", ArgRole::kDOrder},
    {"batch_count", ArgRole::kBatchCount}, {"compute_type", ArgRole::kComputeType}, {"algo", ArgRole::kAlgo},
    {"group_count", ArgRole::kGroupCount}, {"first_group_size", ArgRole::kFirstGroupSize},
    {"group_size", ArgRole::kGroupSizeArray},
    {"transa_array", ArgRole::kTransAArray}, {"transb_array", ArgRole::kTransBArray},
    {"m_array", ArgRole::kMArray}, {"n_array", ArgRole::kNArray}, {"k_array", ArgRole::kKArray},
    {"alpha_array", ArgRole::kAlphaArray}, {"beta_array", ArgRole::kBetaArray},
    {"lda_array", ArgRole::kLdaArray}, {"ldb_array", ArgRole::kLdbArray}, {"ldc_array", ArgRole::kLdcArray},
    {"scale_type", ArgRole::kScaleType}, {"epilogue", ArgRole::kEpilogue}, {"bias", ArgRole::kBias},
    {"a_scale", ArgRole::kAScale}, {"b_scale", ArgRole::kBScale}, {"d_scale", ArgRole::kDScale},
    {"workspace", ArgRole::kWorkspace}, {"workspace_size_in_bytes", ArgRole::kWorkspaceBytes},
    {"stream", ArgRole::kStream}, {"device", ArgRole::kDevice},
    {"filename", ArgRole::kFilename}, {"result", ArgRole::kLoadResult},
};

bool starts_with(const char* name, const char* prefix) { return std::strncmp(name, prefix, std::strlen(prefix)) == 0; }

ArgRole role_of(const format::FunctionEntry& entry, const format::ArgDescriptor& slot) {
  const std::string_view name = slot.name;
  const auto kind = static_cast<ArgKind>(slot.kind);
  const auto family = static_cast<Family>(entry.family);
  // Names that meant different things in different functions.
  if (name == "count") return kind == ArgKind::kStatusOut ? ArgRole::kDeviceCount : ArgRole::kByteCount;
  if (name == "size") return family == Family::kMemory ? ArgRole::kByteCount : ArgRole::kNone;
  // The stream-ordered allocations' own names (cuMemAllocAsync's bytesize, hStream).
  if (family == Family::kMemory && name == "bytesize") return ArgRole::kByteCount;
  if (family == Family::kMemory && name == "h_stream") return ArgRole::kStream;
  if (name == "flags") return family == Family::kLibraryLoad ? ArgRole::kLoadFlags : ArgRole::kNone;
  if (name == "handle" && starts_with(entry.name, "cublasXt")) return ArgRole::kXtHandle;
  for (const NamedRole& r : kRoles) {
    if (r.name == name) return r.role;
  }
  return ArgRole::kNone;
}

Library library_of(const char* function) {
  if (starts_with(function, "cublasLt")) return Library::kCublasLt;
  if (starts_with(function, "cublas")) return Library::kCublas;
  if (starts_with(function, "cuda")) return Library::kCudart;
  if (starts_with(function, "cu")) return Library::kCuda;
  if (std::strcmp(function, "dlopen") == 0) return Library::kSystem;
  return Library::kUnknown;
}

// The functions whose traits the hook list names (its traits column), by name and with their
// per-thread-default-stream forms, which mean the same.
struct NamedTraits {
  std::string_view name;
  uint16_t traits;
};
namespace Trait = format::Trait;
constexpr NamedTraits kTraits[] = {
    {"cudaGetDeviceCount", Trait::kEnumeratesDevices | Trait::kSetupCall},
    {"cuInit", Trait::kEnumeratesDevices | Trait::kSetupCall},
    {"cuDeviceGetCount", Trait::kEnumeratesDevices | Trait::kSetupCall},
    {"cublasCreate_v2", Trait::kCreatesHandle | Trait::kSetupCall},
    {"cublasLtCreate", Trait::kCreatesHandle},
    {"cudaSetDevice", Trait::kSelectsDevice},
    {"cudaMalloc", Trait::kAllocatesDevice},
    {"cudaMallocAsync", Trait::kAllocatesDevice},
    {"cudaMallocFromPoolAsync", Trait::kAllocatesDevice},
    {"cuMemAllocAsync", Trait::kAllocatesDevice},
    {"cublasUint8gemmBias", Trait::kQuantized},
    {"cudaDeviceSynchronize", Trait::kWaitsForDevice},
    {"cuCtxSynchronize", Trait::kWaitsForDevice},
    {"cudaStreamSynchronize", Trait::kWaitsForStream},
    {"cuStreamSynchronize", Trait::kWaitsForStream},
    {"cudaStreamQuery", Trait::kQueriesStream},
    {"cuStreamQuery", Trait::kQueriesStream},
    {"cublasLtMatmulAlgoGetIds", Trait::kConfiguresAlgo},
    {"cublasLtMatmulAlgoInit", Trait::kConfiguresAlgo},
    {"cublasLtMatmulAlgoCheck", Trait::kConfiguresAlgo},
    {"cublasLtMatmulAlgoConfigSetAttribute", Trait::kConfiguresAlgo},
    {"cublasLtMatmulAlgoConfigGetAttribute", Trait::kConfiguresAlgo},
    {"cublasLtMatmulAlgoCapGetAttribute", Trait::kConfiguresAlgo},
};

uint16_t named_traits(std::string_view name) {
  constexpr std::string_view kPerThread = "_ptsz";
  if (name.size() > kPerThread.size() && name.substr(name.size() - kPerThread.size()) == kPerThread) {
    name.remove_suffix(kPerThread.size());
  }
  for (const NamedTraits& t : kTraits) {
    if (t.name == name) return t.traits;
  }
  return Trait::kNone;
}

// The element type of a cuBLAS GEMM whose name's precision letter fixes it (cublasSgemm,
// cublasXtDgemm, cublasHgemmBatched; cudaDataType_t values), as its pointer types do.
int element_type_from_name(std::string_view n) {
  if (n == "cublasUint8gemmBias") return 8;  // CUDA_R_8U
  if (n.rfind("cublas", 0) != 0) return -1;
  std::string_view rest = n.substr(6);
  if (rest.rfind("Xt", 0) == 0) rest.remove_prefix(2);
  if (rest.size() < 5 || rest.substr(1, 4) != "gemm") return -1;
  switch (rest[0]) {
    case 'S': return 0;  // CUDA_R_32F
    case 'D': return 1;  // CUDA_R_64F
    case 'C': return 4;  // CUDA_C_32F
    case 'Z': return 5;  // CUDA_C_64F
    case 'H': return 2;  // CUDA_R_16F
    default: return -1;
  }
}

// A cuBLAS entry point (not cuBLASLt, not cublasXt) whose name does not end in _64 takes its
// sizes as 32-bit integers, when it has sizes at all.
bool has_32bit_sizes(const format::FunctionEntry& entry) {
  const std::string_view n = entry.name;
  if (n.rfind("cublas", 0) != 0 || n.rfind("cublasLt", 0) == 0 || n.rfind("cublasXt", 0) == 0) return false;
  if (n.size() >= 3 && n.substr(n.size() - 3) == "_64") return false;
  for (uint16_t i = 0; i < entry.arg_count && i < format::kMaxArgs; ++i) {
    const auto role = static_cast<ArgRole>(entry.args[i].role);
    if (role == ArgRole::kM || role == ArgRole::kMArray) return true;
  }
  return false;
}

}  // namespace

void derive_traits_from_names(format::FunctionEntry& entry) {
  const std::string_view name(entry.name, strnlen(entry.name, sizeof entry.name));
  entry.traits = named_traits(name);
  if (has_32bit_sizes(entry)) entry.traits |= Trait::kInt32Sizes;
  // Where a type argument says (cublasSgemmEx's Atype), the prototype fixes none (void* A).
  bool typed_by_arguments = false;
  for (uint16_t i = 0; i < entry.arg_count && i < format::kMaxArgs; ++i) {
    typed_by_arguments |= static_cast<ArgRole>(entry.args[i].role) == ArgRole::kAType;
  }
  const int element = typed_by_arguments ? -1 : element_type_from_name(name);
  entry.element_type = element >= 0 ? static_cast<uint8_t>(element) : 0;
  if (element >= 0) entry.traits |= Trait::kFixedElementType;
}

void derive_roles_from_names(format::FunctionEntry& entry) {
  entry.library = static_cast<uint8_t>(library_of(entry.name));
  for (uint16_t i = 0; i < entry.arg_count && i < format::kMaxArgs; ++i) {
    entry.args[i].role = static_cast<uint8_t>(role_of(entry, entry.args[i]));
  }
}

}  // namespace cublasspy
