#include "doctor/driver_probe.h"

#include <dlfcn.h>
#include <link.h>

#include <chrono>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "doctor/vector_sink.h"
#include "machine/nvml_reader.h"
#include "process/child.h"

namespace cublasspy::doctor {
namespace {

using json = nlohmann::json;

// Driver API signatures (cuda.h), declared here so the doctor needs no CUDA headers.
using CuDriverGetVersion = int (*)(int*);
using CuInit = int (*)(unsigned);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetAttribute = int (*)(int*, int, int);
using CuDeviceGetName = int (*)(char*, int, int);
constexpr int kAttrPciBusId = 33, kAttrPciDeviceId = 34, kAttrPciDomainId = 50;

// NVML (nvml.h): handles are opaque pointers; nvmlPciInfo_t starts with a 16-byte legacy bus id,
// then domain, bus, device. A generous buffer stands in for the struct.
using NvmlInit = int (*)();
using NvmlGetCount = int (*)(unsigned*);
using NvmlGetHandle = int (*)(unsigned, void**);
using NvmlGetPci = int (*)(void*, void*);
using NvmlGetMig = int (*)(void*, unsigned*, unsigned*);
using NvmlShutdown = int (*)();
struct NvmlPciPrefix {
  char bus_id_legacy[16];
  unsigned domain, bus, device;
};

template <typename F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

std::string loaded_path(void* lib) {
  link_map* map = nullptr;
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name) return map->l_name;
  return "";
}

void probe_cuda(DriverProbe& p) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    p.load_error = e ? e : "dlopen failed";
    return;
  }
  p.loaded = true;
  p.library_path = loaded_path(lib);
  if (auto version = symbol<CuDriverGetVersion>(lib, "cuDriverGetVersion")) {
    int v = 0;
    if (version(&v) == 0) p.driver_version = v;
  }
  auto init = symbol<CuInit>(lib, "cuInit");
  if (init == nullptr) return;
  p.init_status = init(0);
  if (p.init_status != 0) return;
  auto count = symbol<CuDeviceGetCount>(lib, "cuDeviceGetCount");
  if (count == nullptr) return;
  int n = 0;
  p.count_status = count(&n);
  if (p.count_status != 0) return;
  p.device_count = n;
  auto get = symbol<CuDeviceGet>(lib, "cuDeviceGet");
  auto attr = symbol<CuDeviceGetAttribute>(lib, "cuDeviceGetAttribute");
  auto name = symbol<CuDeviceGetName>(lib, "cuDeviceGetName");
  for (int i = 0; i < n && get != nullptr; ++i) {
    int dev = 0;
    if (get(&dev, i) != 0) break;
    int domain = 0, bus = 0, device = 0;
    bool ok = attr != nullptr && attr(&domain, kAttrPciDomainId, dev) == 0 && attr(&bus, kAttrPciBusId, dev) == 0 &&
              attr(&device, kAttrPciDeviceId, dev) == 0;
    p.cuda_bus_ids.push_back(ok ? fmt::format("{:04x}:{:02x}:{:02x}.0", domain, bus, device) : "");
    char text[256] = {};
    p.cuda_names.push_back(name != nullptr && name(text, sizeof text - 1, dev) == 0 ? text : "");
  }
}

void probe_nvml(DriverProbe& p) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    p.nvml_error = e ? e : "dlopen failed";
    return;
  }
  p.nvml_loaded = true;
  auto init = symbol<NvmlInit>(lib, "nvmlInit_v2");
  auto count = symbol<NvmlGetCount>(lib, "nvmlDeviceGetCount_v2");
  auto handle = symbol<NvmlGetHandle>(lib, "nvmlDeviceGetHandleByIndex_v2");
  auto pci = symbol<NvmlGetPci>(lib, "nvmlDeviceGetPciInfo_v3");
  auto mig = symbol<NvmlGetMig>(lib, "nvmlDeviceGetMigMode");
  auto shutdown = symbol<NvmlShutdown>(lib, "nvmlShutdown");
  if (init == nullptr || count == nullptr) return;
  p.nvml_status = init();
  if (p.nvml_status != 0) return;
  unsigned n = 0;
  if (count(&n) == 0) p.nvml_count = static_cast<int>(n);
  for (unsigned i = 0; i < n && handle != nullptr; ++i) {
    void* dev = nullptr;
    if (handle(i, &dev) != 0) break;
    alignas(8) unsigned char buffer[512] = {};
    std::string bus_id;
    if (pci != nullptr && pci(dev, buffer) == 0) {
      NvmlPciPrefix prefix;
      std::memcpy(&prefix, buffer, sizeof prefix);
      bus_id = fmt::format("{:04x}:{:02x}:{:02x}.0", prefix.domain, prefix.bus, prefix.device);
    }
    p.nvml_bus_ids.push_back(bus_id);
    unsigned current = 0, pending = 0;
    p.mig_modes.push_back(mig != nullptr && mig(dev, &current, &pending) == 0 ? static_cast<int>(current) : -1);
  }
  if (shutdown != nullptr) shutdown();
}

// What the shim would record of the GPUs' health at a failure, every GPU NVML lists.
void probe_gpu_health(DriverProbe& p) {
  NvmlReader reader;
  if (!reader.open(&::dlopen, &::dlsym)) return;
  reader.select(nullptr);
  VectorSink sink(p.gpu_health);
  reader.collect(sink);
}

}  // namespace

std::string DriverProbe::to_json() const {
  json j;
  j["ran"] = ran;
  j["loaded"] = loaded;
  j["library_path"] = library_path;
  j["load_error"] = load_error;
  j["driver_version"] = driver_version;
  j["init_status"] = init_status;
  j["count_status"] = count_status;
  j["device_count"] = device_count;
  j["cuda_bus_ids"] = cuda_bus_ids;
  j["cuda_names"] = cuda_names;
  j["nvml_loaded"] = nvml_loaded;
  j["nvml_error"] = nvml_error;
  j["nvml_status"] = nvml_status;
  j["nvml_count"] = nvml_count;
  j["nvml_bus_ids"] = nvml_bus_ids;
  j["gpu_health"] = gpu_health;
  j["mig_modes"] = mig_modes;
  return j.dump();
}

DriverProbe DriverProbe::from_json(const std::string& text) {
  DriverProbe p;
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return p;
  p.ran = j.value("ran", false);
  p.loaded = j.value("loaded", false);
  p.library_path = j.value("library_path", "");
  p.load_error = j.value("load_error", "");
  p.driver_version = j.value("driver_version", -1);
  p.init_status = j.value("init_status", -1);
  p.count_status = j.value("count_status", -1);
  p.device_count = j.value("device_count", -1);
  p.cuda_bus_ids = j.value("cuda_bus_ids", std::vector<std::string>{});
  p.cuda_names = j.value("cuda_names", std::vector<std::string>{});
  p.nvml_loaded = j.value("nvml_loaded", false);
  p.nvml_error = j.value("nvml_error", "");
  p.nvml_status = j.value("nvml_status", -1);
  p.nvml_count = j.value("nvml_count", -1);
  p.nvml_bus_ids = j.value("nvml_bus_ids", std::vector<std::string>{});
  p.gpu_health = j.value("gpu_health", std::vector<std::pair<std::string, std::string>>{});
  p.mig_modes = j.value("mig_modes", std::vector<int>{});
  return p;
}

DriverProbe probe_driver_here() {
  DriverProbe p;
  p.ran = true;
  probe_cuda(p);
  probe_nvml(p);
  probe_gpu_health(p);
  return p;
}

DriverProbe probe_driver_in_child(int seconds) {
  process::Spawn spawn;
  spawn.child_function = [] { return probe_driver_here().to_json(); };
  spawn.limit = std::chrono::seconds(seconds);
  const process::Outcome ran = process::run(spawn);
  if (!ran.started) return DriverProbe{};
  DriverProbe p = ran.timed_out ? DriverProbe{} : DriverProbe::from_json(ran.answer);
  p.ran = true;
  p.timed_out = ran.timed_out;
  p.crashed = !ran.timed_out && ran.signal != 0;
  return p;
}

}  // namespace cublasspy::doctor
