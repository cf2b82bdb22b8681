#include "bundle/operand_dumps.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace cublasspy::tools::bundle {

namespace fs = std::filesystem;

uint64_t CallDumps::bytes() const {
  uint64_t total = 0;
  for (const DumpFile& f : files) total += f.bytes;
  return total;
}

namespace {

// The call of "<trace name>.call<seq>.<rest>" ending in .npy or .json, or 0 (not a dump).
uint64_t dump_call(const std::string& file, const std::string& trace_name) {
  const std::string prefix = trace_name + ".call";
  if (file.rfind(prefix, 0) != 0) return 0;
  const bool npy = file.size() > 4 && file.compare(file.size() - 4, 4, ".npy") == 0;
  const bool json = file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0;
  if (!npy && !json) return 0;
  char* end = nullptr;
  const unsigned long long seq = std::strtoull(file.c_str() + prefix.size(), &end, 10);
  return end != file.c_str() + prefix.size() && *end == '.' ? seq : 0;
}

// The dumps next to one trace, by call.
std::vector<CallDumps> dumps_of(const std::string& trace_path) {
  const fs::path trace(trace_path);
  const std::string trace_name = trace.filename().string();
  const fs::path dir = trace.has_parent_path() ? trace.parent_path() : fs::path(".");
  std::map<uint64_t, CallDumps> by_call;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string file = entry.path().filename().string();
    const uint64_t seq = dump_call(file, trace_name);
    std::error_code size_ec;
    if (seq == 0 || !entry.is_regular_file(size_ec)) continue;
    const uint64_t bytes = entry.file_size(size_ec);
    if (size_ec) continue;
    CallDumps& call = by_call[seq];
    call.trace_path = trace_path;
    call.seq = seq;
    call.files.push_back({entry.path().string(), file, bytes});
  }
  std::vector<CallDumps> out;
  for (auto& [seq, call] : by_call) {
    std::sort(call.files.begin(), call.files.end(), [](const DumpFile& a, const DumpFile& b) { return a.name < b.name; });
    out.push_back(std::move(call));
  }
  return out;
}

}  // namespace

DumpSelection select_dumps(const std::vector<std::string>& trace_paths, uint64_t cap) {
  DumpSelection s;
  for (const std::string& trace : trace_paths) {
    for (CallDumps& call : dumps_of(trace)) {
      const uint64_t bytes = call.bytes();
      if (bytes <= cap - s.kept_bytes) {  // kept_bytes never passes cap
        s.kept_bytes += bytes;
        s.kept.push_back(std::move(call));
      } else {
        s.left_out.push_back(std::move(call));
      }
    }
  }
  return s;
}

}  // namespace cublasspy::tools::bundle
