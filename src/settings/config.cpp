#include "settings/config.h"

#include <charconv>
#include <string>

namespace cublasspy {
namespace {

template <typename Enum, size_t N>
bool parse_named(std::string_view text, const char* const (&names)[N], Enum& out) {
  for (size_t i = 0; i < N; ++i) {
    if (text == names[i]) {
      out = static_cast<Enum>(i);
      return true;
    }
  }
  return false;
}

constexpr const char* kScanNames[] = {"none", "inputs", "outputs", "all"};
constexpr const char* kOnErrorNames[] = {"continue", "abort", "trap"};
constexpr const char* kDumpNames[] = {"none", "failing", "all"};
constexpr const char* kStackNames[] = {"none", "failing", "all"};
constexpr const char* kNvmlNames[] = {"off", "failure", "early"};
constexpr const char* kKeepNames[] = {"incident", "always"};

}  // namespace

bool parse_bool(std::string_view text, bool& out) {
  if (text == "0") return out = false, true;
  if (text == "1") return out = true, true;
  return false;
}
bool parse_sync_mode(std::string_view text, SyncMode& out) {
  if (text == "0") return out = SyncMode::kOff, true;
  if (text == "1") return out = SyncMode::kCalls, true;
  if (text == "all") return out = SyncMode::kAll, true;
  return false;
}
bool parse_scan_mode(std::string_view t, ScanMode& out) { return parse_named(t, kScanNames, out); }
bool parse_on_error(std::string_view t, OnError& out) { return parse_named(t, kOnErrorNames, out); }
bool parse_dump_mode(std::string_view t, DumpMode& out) { return parse_named(t, kDumpNames, out); }
bool parse_stack_mode(std::string_view t, StackMode& out) { return parse_named(t, kStackNames, out); }
bool parse_nvml_mode(std::string_view t, NvmlMode& out) { return parse_named(t, kNvmlNames, out); }
bool parse_keep_mode(std::string_view t, KeepMode& out) { return parse_named(t, kKeepNames, out); }

bool parse_ring(std::string_view text, uint64_t& out) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  if (value < kMinRing || value > kMaxRing) return false;
  out = value;
  return true;
}

bool parse_launch_ring(std::string_view text, uint64_t& out) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return false;
  if (value != 0 && (value < kMinRing || value > kMaxLaunchRing)) return false;
  out = value;
  return true;
}

namespace {
bool parse_mb(std::string_view text, uint64_t max, uint64_t& out) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return false;
  if (value > max) return false;
  out = value;
  return true;
}
}  // namespace

bool parse_dump_max_mb(std::string_view text, uint64_t& out) { return parse_mb(text, kMaxDumpMaxMb, out); }
bool parse_side_mb(std::string_view text, uint64_t& out) { return parse_mb(text, kMaxSideMb, out); }

const char* to_string(ScanMode m) { return kScanNames[static_cast<int>(m)]; }
const char* to_string(OnError m) { return kOnErrorNames[static_cast<int>(m)]; }
const char* to_string(DumpMode m) { return kDumpNames[static_cast<int>(m)]; }
const char* to_string(StackMode m) { return kStackNames[static_cast<int>(m)]; }
const char* to_string(KeepMode m) { return kKeepNames[static_cast<int>(m)]; }

Config parse_config(GetEnv getenv_fn, std::vector<std::string>& errors) {
  Config c;
  auto read = [&](const char* name, auto parse, auto& field, const char* accepted) {
    const char* v = getenv_fn(name);
    if (v == nullptr) return;
    if (!parse(std::string_view(v), field)) {
      errors.push_back(std::string("cublasspy: ignoring ") + name + "='" + v +
                       "': accepted values are " + accepted + "; using the default");
    }
  };
  read("CUBLASSPY_DISABLE", parse_bool, c.disabled, "0 or 1");
  read("CUBLASSPY_CHECK", parse_bool, c.check, "0 or 1");
  read("CUBLASSPY_SYNC", parse_sync_mode, c.sync_mode, "0, 1 or all");
  c.sync = c.sync_mode != SyncMode::kOff;
  read("CUBLASSPY_SCAN", parse_scan_mode, c.scan, "none, inputs, outputs, all");
  read("CUBLASSPY_ON_ERROR", parse_on_error, c.on_error, "continue, abort, trap");
  read("CUBLASSPY_DUMP", parse_dump_mode, c.dump, "none, failing, all");
  read("CUBLASSPY_RING", parse_ring, c.ring,
       "a whole number of records from 16 to 4194304 (default 8192)");
  read("CUBLASSPY_LAUNCH_RING", parse_launch_ring, c.launch_ring,
       "0 (launches not recorded) or a whole number of launches from 16 to 16777216 (default 16384)");
  read("CUBLASSPY_DUMP_MAX_MB", parse_dump_max_mb, c.dump_max_mb,
       "a whole number of MiB, 0 for no dumps (default 256)");
  read("CUBLASSPY_STACKS", parse_stack_mode, c.stacks, "none, failing, all");
  read("CUBLASSPY_SIDE_MB", parse_side_mb, c.side_mb,
       "a whole number of MiB from 0 to 4096 (default 4)");
  read("CUBLASSPY_NVML", parse_nvml_mode, c.nvml, "off, failure, early");
  read("CUBLASSPY_KEEP", parse_keep_mode, c.keep, "incident, always");
  if (const char* t = getenv_fn("CUBLASSPY_TRACE")) {
    if (*t == '\0') {
      errors.push_back("cublasspy: ignoring CUBLASSPY_TRACE='': accepted values are a path "
                       "template (%p pid, %h host, %r rank, %t time, %%); using the default");
    } else {
      c.trace_template = t;
    }
  }
  if (const char* l = getenv_fn("CUBLASSPY_LOG")) {
    if (*l == '\0') {
      errors.push_back("cublasspy: ignoring CUBLASSPY_LOG='': accepted values are stderr, off, "
                       "or a file path; using stderr");
    } else {
      c.log = l;
    }
  }
  if (const char* r = getenv_fn("CUBLASSPY_MACHINE_ROOT")) {
    if (*r != '/' || std::string_view(r).size() > 256) {
      errors.push_back(std::string("cublasspy: ignoring CUBLASSPY_MACHINE_ROOT='") + r +
                       "': accepted values are an absolute path of at most 256 bytes; using /");
    } else {
      c.machine_root = r;
    }
  }
  return c;
}

}  // namespace cublasspy
