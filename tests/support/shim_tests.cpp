#include "support/shim_tests.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

namespace cublasspy::integration {

namespace fs = std::filesystem;

std::string program(const std::string& name) { return kProgramDir + "/" + name; }

Env traced(const ScratchDir& dir) {
  // CUBLASSPY_KEEP=always: the tests read the traces of clean runs too (a test of the keep
  // policy overrides it).
  return {{"LD_PRELOAD", kShim}, {"CUBLASSPY_TRACE", dir / "t-%p.cbt"}, {"TMPDIR", dir.path()}, {"CUBLASSPY_KEEP", "always"}};
}

std::string trace_path(const ScratchDir& dir, pid_t pid) { return dir / ("t-" + std::to_string(pid) + ".cbt"); }

Env on_standin() { return {{"LD_LIBRARY_PATH", kStandinDir}}; }


std::optional<TraceFile> open_trace(const std::string& path) {
  std::string error;
  auto trace = TraceFile::open(path, error);
  if (!trace) ADD_FAILURE() << error;
  return trace;
}

std::vector<CallView> calls_of(const TraceFile& trace, const std::string& function) {
  std::vector<CallView> out;
  trace.for_each_call([&](const CallView& c) {
    if (function.empty() || function == c.function_name()) out.push_back(c);
  });
  return out;
}

int function_id(const TraceFile& trace, const std::string& function) {
  for (uint32_t i = 0; i < trace.function_count(); ++i) {
    if (function == trace.function(static_cast<uint16_t>(i)).name) return static_cast<int>(i);
  }
  return -1;
}

std::string text_arg(const CallView& call, const char* name) {
  if (call.function == nullptr) return "";
  uint16_t count = std::min<uint16_t>(call.function->arg_count, format::kMaxArgs);
  for (uint16_t i = 0; i < count; ++i) {
    if (std::strncmp(call.function->args[i].name, name, format::kArgNameBytes) != 0) continue;
    const char* text = reinterpret_cast<const char*>(&call.rec().args[i]);
    size_t room = (format::kMaxArgs - i) * 8;
    return std::string(text, strnlen(text, room));
  }
  return "";
}

}  // namespace cublasspy::integration
