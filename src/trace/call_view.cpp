// CallView's questions about one record: its arguments by role or name, its library, its GEMM,
// its status by name. The answers come from the function table alone (roles, library), which
// the reader has completed for older versions when it opened the trace.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "trace/trace_reader.h"

namespace cublasspy {

using namespace format;

std::vector<ArgView> CallView::args() const {
  std::vector<ArgView> out;
  if (function == nullptr) return out;
  uint16_t count = std::min<uint16_t>(function->arg_count, kMaxArgs);
  for (uint16_t i = 0; i < count; ++i) {
    const ArgDescriptor& d = function->args[i];
    out.push_back({d.name, static_cast<ArgKind>(d.kind), static_cast<ArgRole>(d.role), slot.call.args[i]});
  }
  return out;
}

std::optional<uint64_t> CallView::arg(ArgRole role) const {
  if (function == nullptr) return std::nullopt;
  const int i = slot_with_role(*function, role);
  if (i < 0) return std::nullopt;
  return slot.call.args[i];
}

std::optional<uint64_t> CallView::arg(const char* name) const {
  if (function == nullptr) return std::nullopt;
  uint16_t count = std::min<uint16_t>(function->arg_count, kMaxArgs);
  for (uint16_t i = 0; i < count; ++i) {
    if (std::strncmp(function->args[i].name, name, kArgNameBytes) == 0) return slot.call.args[i];
  }
  return std::nullopt;
}

Library CallView::library() const {
  return function ? static_cast<Library>(function->library) : Library::kUnknown;
}

GemmCall CallView::gemm() const { return function ? gemm_from_record(*function, rec()) : GemmCall{}; }

std::string CallView::status_name() const { return status_name_for(library(), rec().status); }

std::string cu_result_name(int status) {
  switch (status) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 4: return "CUDA_ERROR_DEINITIALIZED";
    case 34: return "CUDA_ERROR_STUB_LIBRARY";
    case 46: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 216: return "CUDA_ERROR_CONTEXT_ALREADY_IN_USE";
    case 304: return "CUDA_ERROR_OPERATING_SYSTEM";
    case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case 719: return "CUDA_ERROR_LAUNCH_FAILED";
    case 802: return "CUDA_ERROR_SYSTEM_NOT_READY";
    case 803: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case 804: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    case 999: return "CUDA_ERROR_UNKNOWN";
    default: return "";
  }
}

std::string status_name_for(Library library, int status) {
  switch (library) {
    case Library::kCublas: case Library::kCublasLt:
      return cublas_status_name(status);
    case Library::kCudart:
      return cuda_error_name(status);
    case Library::kCuda: {
      std::string name = cu_result_name(status);
      return name.empty() ? fmt::format("CUresult {}", status) : name;
    }
    default:
      return std::to_string(status);
  }
}

const char* library_name(Library library) {
  switch (library) {
    case Library::kCublas: return "cublas";
    case Library::kCublasLt: return "cublasLt";
    case Library::kCudart: return "cudart";
    case Library::kCuda: return "cuda";
    case Library::kSystem: return "system";
    default: return "unknown";
  }
}

}  // namespace cublasspy
