// Reads the environment that shapes the stand-in machine: device count, visible devices,
// driver version, a missing driver, a failing device query.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cuda_enum_names.h"
#include "driver_state.h"
#include "stack_version.h"

namespace standin::driver {

namespace {

bool parse_int(const char* text, long long* out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  while (*end == ' ' || *end == '\t') ++end;
  if (*end != '\0') return false;
  *out = v;
  return true;
}

long long env_int(const char* name, long long fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr) return fallback;
  long long v = 0;
  if (!parse_int(text, &v)) {
    std::fprintf(stderr, "standin: ignoring %s=%s (not a number)\n", name, text);
    return fallback;
  }
  return v;
}

// STANDIN_DEVICE_CC="MAJOR.MINOR": the compute capability every device reports (default 9.0),
// to play a GPU that a program's build has no code for.
void read_compute_capability(Config* c) {
  const char* text = std::getenv("STANDIN_DEVICE_CC");
  if (text == nullptr) return;
  int major = 0, minor = 0;
  char rest = 0;
  if (std::sscanf(text, "%d.%d%c", &major, &minor, &rest) != 2 || major < 1 || major > 99 || minor < 0 || minor > 9) {
    std::fprintf(stderr, "standin: ignoring STANDIN_DEVICE_CC=%s (not MAJOR.MINOR)\n", text);
    return;
  }
  c->cc_major = major;
  c->cc_minor = minor;
}

// Known CUresult values keep their number; the runtime-only codes (35 insufficient driver and
// the like) become CUDA_ERROR_UNKNOWN for the driver, which has no such code.
CUresult driver_code_for(int runtime_code) {
  if (standin::driver_error_name(runtime_code) != nullptr) {
    return static_cast<CUresult>(runtime_code);
  }
  return CUDA_ERROR_UNKNOWN;
}

// CUDA_VISIBLE_DEVICES as CUDA reads it: a comma-separated list of device indices; parsing
// stops at the first entry that is not a valid, unused index, and the devices before it stay
// visible. Unset means all devices; an empty string means none.
std::vector<int> visible_devices(int physical) {
  std::vector<int> visible;
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  if (env == nullptr) {
    for (int i = 0; i < physical; ++i) visible.push_back(i);
    return visible;
  }
  std::string list = env;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    long long index = -1;
    if (!parse_int(item.c_str(), &index) || index < 0 || index >= physical) break;
    bool duplicate = false;
    for (int v : visible) duplicate = duplicate || v == index;
    if (duplicate) break;
    visible.push_back(static_cast<int>(index));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return visible;
}

Config* read_config() {
  auto* c = new Config;  // process lifetime, never destroyed (safe during static destruction)
  const char* no_driver = std::getenv("STANDIN_NO_DRIVER");
  c->no_driver = no_driver != nullptr && *no_driver != '\0' && std::strcmp(no_driver, "0") != 0;
  c->driver_version = static_cast<int>(env_int("STANDIN_DRIVER_VERSION", kDriverVersion));
  long long count = env_int("STANDIN_DEVICE_COUNT", 1);
  c->physical_devices = static_cast<int>(count < 0 ? 0 : (count > 64 ? 64 : count));
  c->visible = visible_devices(c->physical_devices);
  c->count_error_runtime = static_cast<int>(env_int("STANDIN_DEVICE_COUNT_ERROR", 0));
  c->count_error = c->count_error_runtime ? driver_code_for(c->count_error_runtime) : CUDA_SUCCESS;
  long long memory = env_int("STANDIN_DEVICE_MEMORY", static_cast<long long>(80ull << 30));
  c->memory_per_device = memory > 0 ? static_cast<size_t>(memory) : (80ull << 30);
  read_compute_capability(c);
  return c;
}

}  // namespace

const Config& config() {
  static const Config* const c = read_config();
  return *c;
}

}  // namespace standin::driver

extern "C" {

STANDIN_EXPORT int standin_no_driver(void) { return standin::driver::config().no_driver ? 1 : 0; }

STANDIN_EXPORT int standin_device_count_error(void) { return standin::driver::config().count_error_runtime; }

}  // extern "C"
