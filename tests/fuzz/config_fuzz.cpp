// libFuzzer target: the shim's settings as the environment gives them. The input is lines of
// NAME=VALUE (the environment a program might run with) read through parse_config, and each
// value also goes through the individual parsers, the trace path template and the rank lookup.
// Every bad value must yield one message naming the variable, and the result must stay within
// the documented ranges; never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "settings/config.h"
#include "settings/path_template.h"

namespace {

// The fuzzed environment, for a getenv that parse_config can call through a plain pointer.
std::map<std::string, std::string> g_env;

const char* fuzz_getenv(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "config_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cublasspy;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  g_env.clear();
  std::vector<std::string> values;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    // A C environment cannot hold a NUL: cut there, as getenv would see it.
    std::string name(line.substr(0, eq)), value(line.substr(eq + 1));
    name = name.c_str();
    value = value.c_str();
    g_env[name] = value;
    values.push_back(value);
  }

  std::vector<std::string> errors;
  Config c = parse_config(&fuzz_getenv, errors);
  if (c.ring < kMinRing || c.ring > kMaxRing) fail("ring out of range", std::to_string(c.ring));
  if (c.dump_max_mb > kMaxDumpMaxMb) fail("dump budget out of range", std::to_string(c.dump_max_mb));
  if (c.trace_template.empty() || c.log.empty()) fail("empty template or log", "");
  for (const std::string& e : errors) {
    if (e.rfind("cublasspy: ignoring CUBLASSPY_", 0) != 0) fail("message without the variable", e);
  }
  (void)to_string(c.scan);
  (void)to_string(c.on_error);
  (void)to_string(c.dump);
  (void)to_string(c.keep);

  TemplateValues v;
  v.pid = 4242;
  v.host = "host";
  v.rank = rank_from_environment(&fuzz_getenv);
  if (v.rank < -1) fail("negative rank", std::to_string(v.rank));
  v.start_time = "20250101-000000";
  std::string template_error;
  std::string path = expand_path_template(c.trace_template, v, &template_error);
  if (c.trace_template.find('%') == std::string::npos && path != c.trace_template) {
    fail("a template without % changed", c.trace_template);
  }
  if (path.size() > 64 * c.trace_template.size() + 64) fail("template blew up", c.trace_template);

  for (const std::string& value : values) {
    bool b;
    ScanMode s;
    OnError o;
    DumpMode d;
    KeepMode k;
    uint64_t ring = 0, dump_mb = 0;
    (void)parse_bool(value, b);
    (void)parse_scan_mode(value, s);
    (void)parse_on_error(value, o);
    (void)parse_dump_mode(value, d);
    (void)parse_keep_mode(value, k);
    if (parse_ring(value, ring) && (ring < kMinRing || ring > kMaxRing)) fail("ring accepted", value);
    if (parse_dump_max_mb(value, dump_mb) && dump_mb > kMaxDumpMaxMb) fail("dump budget accepted", value);
    (void)expand_path_template(value, v, nullptr);
  }
  return 0;
}
