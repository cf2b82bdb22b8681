#include "report/shrugged_off.h"

#include <algorithm>

namespace cublasspy::tools {
namespace {

using format::Library;

// The libraries whose calls need the one a load asked for (shrugged_off.h), by its file name.
std::vector<Library> needed_by(const std::string& requested) {
  const std::string base = requested.substr(requested.rfind('/') + 1);
  auto is = [&](const char* prefix) { return base.rfind(prefix, 0) == 0; };
  if (is("libcuda.so")) return {Library::kCuda, Library::kCudart, Library::kCublas, Library::kCublasLt};
  if (is("libcudart.so")) return {Library::kCudart};
  if (is("libcublasLt.so")) return {Library::kCublasLt, Library::kCublas};
  if (is("libcublas.so")) return {Library::kCublas};
  return {};
}

bool failed_or_unresolved(const CallView& call) {
  return call.failed() || (!call.in_flight() && (call.rec().flags & format::kFlagUnresolved) != 0);
}

}  // namespace

bool is_failed_load(const CallView& call) {
  return call.function != nullptr && call.function->family == static_cast<uint16_t>(format::Family::kLibraryLoad) &&
         call.failed();
}

void ShruggedOffLoads::add(const CallView& call) {
  const Library library = call.library();
  if (library == Library::kSystem || library == Library::kUnknown) return;
  const uint64_t start = call.rec().start_ns;
  if (failed_or_unresolved(call)) {
    uint64_t& last = last_failure_ns_[static_cast<uint8_t>(library)];
    last = std::max(last, start);
  } else if (!call.in_flight()) {
    last_success_ns_ = std::max(last_success_ns_.value_or(0), start);
  }
}

std::optional<std::string> ShruggedOffLoads::why(const CallView& call, const ProcessEnd& end) const {
  if (!is_failed_load(call)) return std::nullopt;
  const uint64_t at = call.rec().start_ns;
  const std::string requested = call.text_arg(format::ArgRole::kFilename);
  for (Library needing : needed_by(requested)) {
    auto it = last_failure_ns_.find(static_cast<uint8_t>(needing));
    if (it != last_failure_ns_.end() && it->second > at) return std::nullopt;  // needed, and missed
  }
  if (last_success_ns_ && *last_success_ns_ > at) return std::string("CUDA calls succeeded after it");
  if (end.how == ProcessEnd::How::kExited && end.exit_status == 0) return std::string("the process exited with status 0");
  return std::nullopt;
}

}  // namespace cublasspy::tools
