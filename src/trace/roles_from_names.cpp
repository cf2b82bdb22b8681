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

}  // namespace

void derive_roles_from_names(format::FunctionEntry& entry) {
  entry.library = static_cast<uint8_t>(library_of(entry.name));
  for (uint16_t i = 0; i < entry.arg_count && i < format::kMaxArgs; ++i) {
    entry.args[i].role = static_cast<uint8_t>(role_of(entry, entry.args[i]));
  }
}

}  // namespace cublasspy
