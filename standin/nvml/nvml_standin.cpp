// libnvidia-ml.so.1, the stand-in: the few NVML functions cublasspy's GPU-health reader calls,
// answering what the environment scripts (README.md, "NVML"). Devices are the CUDA stand-in's
// (STANDIN_DEVICE_COUNT, default 1), with the PCI bus ids its driver gives (bus = index + 1).
// The prototypes are written out from NVML's ABI rather than taken from nvml.h, which the CUDA
// toolkit does not always carry; the stand-in shares nothing with cublasspy, so a test does not
// check the reader against its own declarations.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#define STANDIN_NVML_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using nvmlReturn_t = int;
constexpr nvmlReturn_t kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kNotSupported = 3,
                       kInsufficientSize = 7, kTimeout = 10, kUnknown = 999;
constexpr unsigned long long kSingleBitEcc = 0x1, kDoubleBitEcc = 0x2, kXid = 0x8;

struct Device {
  unsigned index;
};
struct EventData {
  Device* device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
struct ScriptedEvent {
  unsigned long long type;
  unsigned long long xid;
  int device;  // -1: every device
};
struct EventSet {
  pid_t owner;
  unsigned long long registered[64] = {};
  std::vector<EventData> pending;
  bool filled = false;
};

std::mutex g_mutex;
int g_init_count = 0;
Device g_devices[64];

int device_count() {
  const char* v = std::getenv("STANDIN_DEVICE_COUNT");
  int n = v != nullptr ? std::atoi(v) : 1;
  return n < 0 ? 0 : n > 64 ? 64 : n;
}

bool valid(Device* d) { return d != nullptr && d >= g_devices && d < g_devices + device_count(); }

// STANDIN_NVML_<name>: comma-separated whole numbers; "unsupported" gives none and false.
bool numbers(const char* name, std::vector<unsigned long long>& out, size_t count) {
  out.assign(count, 0);
  const char* v = std::getenv(name);
  if (v == nullptr) return true;
  if (std::strcmp(v, "unsupported") == 0) return false;
  std::string s = v;
  size_t at = 0;
  for (size_t i = 0; i < count && at <= s.size(); ++i) {
    out[i] = std::strtoull(s.c_str() + at, nullptr, 10);
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return true;
}

// The events that "happen" while a set is watching: STANDIN_NVML_XID=79[@DEVICE][,...] and
// STANDIN_NVML_ECC_EVENT=double-bit|single-bit[@DEVICE][,...].
std::vector<ScriptedEvent> scripted_events() {
  std::vector<ScriptedEvent> out;
  auto parse = [&](const char* name, bool xid) {
    const char* v = std::getenv(name);
    if (v == nullptr) return;
    std::string s = v;
    size_t at = 0;
    while (at < s.size()) {
      size_t comma = s.find(',', at);
      std::string item = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      int device = -1;
      size_t sign = item.find('@');
      if (sign != std::string::npos) {
        device = std::atoi(item.c_str() + sign + 1);
        item.resize(sign);
      }
      if (xid) out.push_back({kXid, std::strtoull(item.c_str(), nullptr, 10), device});
      else out.push_back({item == "single-bit" ? kSingleBitEcc : kDoubleBitEcc, 0, device});
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
  };
  parse("STANDIN_NVML_XID", true);
  parse("STANDIN_NVML_ECC_EVENT", false);
  return out;
}

// A set used by another process than the one that created it: NVML's state is not the
// child's after a fork. Said on stderr, so that a test sees it.
bool foreign(const EventSet* set) {
  if (set->owner == getpid()) return false;
  std::fprintf(stderr, "standin-nvml: event set of pid %d used in pid %d\n", static_cast<int>(set->owner),
               static_cast<int>(getpid()));
  return true;
}

}  // namespace

STANDIN_NVML_EXPORT nvmlReturn_t nvmlInit_v2() {
  if (const char* v = std::getenv("STANDIN_NVML_INIT_ERROR")) return std::atoi(v);
  std::lock_guard<std::mutex> lock(g_mutex);
  for (unsigned i = 0; i < 64; ++i) g_devices[i].index = i;
  ++g_init_count;
  return kSuccess;
}

STANDIN_NVML_EXPORT nvmlReturn_t nvmlShutdown() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_init_count == 0) return kUninitialized;
  --g_init_count;
  return kSuccess;
}

STANDIN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  if (g_init_count == 0) return kUninitialized;
  if (count == nullptr) return kInvalidArgument;
  *count = static_cast<unsigned>(device_count());
  return kSuccess;
}

STANDIN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, Device** device) {
  if (g_init_count == 0) return kUninitialized;
  if (device == nullptr || index >= static_cast<unsigned>(device_count())) return kInvalidArgument;
  *device = &g_devices[index];
  return kSuccess;
}

// "domain:bus:device.function" in hex, as CUDA and nvidia-smi write it (any domain width).
STANDIN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* pci_bus_id, Device** device) {
  if (g_init_count == 0) return kUninitialized;
  if (pci_bus_id == nullptr || device == nullptr) return kInvalidArgument;
  unsigned domain = 0, bus = 0, slot = 0, function = 0;
  if (std::sscanf(pci_bus_id, "%x:%x:%x.%x", &domain, &bus, &slot, &function) != 4) return kInvalidArgument;
  if (domain != 0 || slot != 0 || function != 0 || bus == 0 || bus > static_cast<unsigned>(device_count())) {
    return 6;  // NVML_ERROR_NOT_FOUND
  }
  *device = &g_devices[bus - 1];
  return kSuccess;
}

STANDIN_NVML_EXPORT nvmlReturn_t nvmlEventSetCreate(EventSet** set) {
  if (g_init_count == 0) return kUninitialized;
  if (set == nullptr) return kInvalidArgument;
  *set = new EventSet{getpid()};
  return kSuccess;
}

// ECC events only where the device has ECC (STANDIN_NVML_ECC is not "unsupported").
STANDIN_NVML_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(Device* device, unsigned long long types, EventSet* set) {
  if (g_init_count == 0) return kUninitialized;
  if (!valid(device) || set == nullptr) return kInvalidArgument;
  if (foreign(set)) return kUnknown;
  std::vector<unsigned long long> ecc;
  if ((types & (kSingleBitEcc | kDoubleBitEcc)) != 0 && !numbers("STANDIN_NVML_ECC", ecc, 4)) return kNotSupported;
  if ((types & ~(kSingleBitEcc | kDoubleBitEcc | kXid)) != 0) return kNotSupported;
  std::lock_guard<std::mutex> lock(g_mutex);
  set->registered[device->index] |= types;
  return kSuccess;
}

// The scripted events reach a set at its first wait, each for the devices it registered it for.
STANDIN_NVML_EXPORT nvmlReturn_t nvmlEventSetWait_v2(EventSet* set, EventData* data, unsigned int) {
  if (g_init_count == 0) return kUninitialized;
  if (set == nullptr || data == nullptr) return kInvalidArgument;
  if (foreign(set)) return kUnknown;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!set->filled) {
    set->filled = true;
    for (const ScriptedEvent& e : scripted_events()) {
      for (int d = 0; d < device_count(); ++d) {
        if ((e.device == -1 || e.device == d) && (set->registered[d] & e.type) != 0) {
          set->pending.push_back({&g_devices[d], e.type, e.xid, 0xFFFFFFFFu, 0xFFFFFFFFu});
        }
      }
    }
  }
  if (set->pending.empty()) return kTimeout;
  *data = set->pending.front();
  set->pending.erase(set->pending.begin());
  return kSuccess;
}

STANDIN_NVML_EXPORT nvmlReturn_t nvmlEventSetFree(EventSet* set) {
  if (set == nullptr) return kInvalidArgument;
  delete set;
  return kSuccess;
}

// STANDIN_NVML_ECC=UNCORRECTED_VOLATILE,UNCORRECTED_AGGREGATE,CORRECTED_VOLATILE,CORRECTED_AGGREGATE.
STANDIN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(Device* device, int error_type, int counter_type,
                                                             unsigned long long* count) {
  if (g_init_count == 0) return kUninitialized;
  if (!valid(device) || count == nullptr || error_type < 0 || error_type > 1 || counter_type < 0 || counter_type > 1) {
    return kInvalidArgument;
  }
  std::vector<unsigned long long> v;
  if (!numbers("STANDIN_NVML_ECC", v, 4)) return kNotSupported;
  *count = v[static_cast<size_t>((1 - error_type) * 2 + counter_type)];
  return kSuccess;
}

// STANDIN_NVML_RETIRED=SINGLE_BIT_PAGES,DOUBLE_BIT_PAGES,PENDING (0 or 1).
STANDIN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(Device* device, int cause, unsigned int* page_count,
                                                           unsigned long long* addresses) {
  if (g_init_count == 0) return kUninitialized;
  if (!valid(device) || page_count == nullptr || cause < 0 || cause > 1) return kInvalidArgument;
  std::vector<unsigned long long> v;
  if (!numbers("STANDIN_NVML_RETIRED", v, 3)) return kNotSupported;
  const unsigned have = static_cast<unsigned>(v[static_cast<size_t>(cause)]);
  const unsigned room = *page_count;
  *page_count = have;
  if (have > room) return kInsufficientSize;
  if (have > 0 && addresses == nullptr) return kInvalidArgument;
  for (unsigned i = 0; i < have; ++i) addresses[i] = 0x1000ull * (i + 1);
  return kSuccess;
}

STANDIN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(Device* device, int* pending) {
  if (g_init_count == 0) return kUninitialized;
  if (!valid(device) || pending == nullptr) return kInvalidArgument;
  std::vector<unsigned long long> v;
  if (!numbers("STANDIN_NVML_RETIRED", v, 3)) return kNotSupported;
  *pending = v[2] != 0 ? 1 : 0;
  return kSuccess;
}

// STANDIN_NVML_REMAPPED=CORRECTABLE,UNCORRECTABLE,PENDING,FAILED.
STANDIN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(Device* device, unsigned int* correctable,
                                                           unsigned int* uncorrectable, unsigned int* pending,
                                                           unsigned int* failed) {
  if (g_init_count == 0) return kUninitialized;
  if (!valid(device) || correctable == nullptr || uncorrectable == nullptr || pending == nullptr || failed == nullptr) {
    return kInvalidArgument;
  }
  std::vector<unsigned long long> v;
  if (!numbers("STANDIN_NVML_REMAPPED", v, 4)) return kNotSupported;
  *correctable = static_cast<unsigned>(v[0]);
  *uncorrectable = static_cast<unsigned>(v[1]);
  *pending = static_cast<unsigned>(v[2]);
  *failed = static_cast<unsigned>(v[3]);
  return kSuccess;
}
