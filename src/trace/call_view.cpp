// CallView's questions about one record: its arguments by role or name, its library, its GEMM,
// its status by name. The answers come from the function table alone (roles, library), which
// the reader has completed for older versions when it opened the trace.
#include <algorithm>
#include <cstring>


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

std::string CallView::text_arg(ArgRole role) const {
  if (function == nullptr) return "";
  const int i = slot_with_role(*function, role);
  if (i < 0 || static_cast<ArgKind>(function->args[i].kind) != ArgKind::kText) return "";
  const char* begin = reinterpret_cast<const char*>(&slot.call.args[i]);
  return std::string(begin, strnlen(begin, (kMaxArgs - i) * sizeof(uint64_t)));
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

GemmCall CallView::gemm() const {
  if (!function) return GemmCall{};
  GemmCall g = gemm_from_record(*function, rec());
  if (g.valid) apply_plane_offsets(slot.plane_offset, g);
  return g;
}

std::string CallView::status_name() const { return status_name_for(library(), rec().status); }

std::string status_name_for(Library library, int status) {
  // dlopen's record: 0 the library loaded, 1 it did not (its dlerror() text is the
  // LoadedFile argument); an exec's (format version 9): -1 it returned, failed (its errno is an
  // argument).
  if (library == Library::kSystem) {
    return status == 0 ? "loaded" : status == 1 || status == -1 ? "failed" : std::to_string(status);
  }
  const std::optional<NameSet> set = status_set_of(library);
  return set ? name_or_unknown(*set, status) : std::to_string(status);
}

std::string status_text_for(Library library, int status) {
  if (library == Library::kSystem) return status_name_for(library, status);
  const std::optional<NameSet> set = status_set_of(library);
  return set ? name_and_number(*set, status) : std::to_string(status);
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
