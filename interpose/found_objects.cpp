#include "found_objects.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace cublasspy {
namespace {

// A watched object: its load address (link_map::l_addr, dl_phdr_info::dlpi_addr), published
// after its name. kClaimed while a thread writes the name.
struct FoundObject {
  std::atomic<uintptr_t> base{0};
  char name[256];
};
constexpr uintptr_t kClaimed = 1;
// cuBLAS, cuBLASLt, the runtime and the driver, a major or two each: 16 is room to spare.
FoundObject g_objects[16];
// An object that could not be watched (no room, no name): any unload forgets.
std::atomic<bool> g_unknown{false};

bool is_loaded(uintptr_t base, const char* name) {
  struct Search {
    uintptr_t base;
    const char* name;
    bool found;
  } s{base, name, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_addr != s->base || info->dlpi_name == nullptr) return 0;
        s->found = std::strcmp(info->dlpi_name, s->name) == 0;
        return 1;
      },
      &s);
  return s.found;
}

}  // namespace

void note_found_in(const void* function) {
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(function, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr ||
      map->l_name == nullptr || std::strlen(map->l_name) >= sizeof FoundObject::name || map->l_addr <= kClaimed) {
    g_unknown.store(true, std::memory_order_release);
    return;
  }
  const uintptr_t base = map->l_addr;
  for (FoundObject& o : g_objects) {
    if (o.base.load(std::memory_order_acquire) == base) return;
  }
  for (FoundObject& o : g_objects) {
    uintptr_t expected = 0;
    if (!o.base.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel)) continue;
    std::strcpy(o.name, map->l_name);
    o.base.store(base, std::memory_order_release);
    return;
  }
  g_unknown.store(true, std::memory_order_release);
}

bool found_objects_gone() {
  bool gone = g_unknown.load(std::memory_order_acquire);
  for (FoundObject& o : g_objects) {
    const uintptr_t base = o.base.load(std::memory_order_acquire);
    if (base == 0) continue;
    if (base == kClaimed || !is_loaded(base, o.name)) gone = true;
  }
  if (!gone) return false;
  // Emptied before the caller forgets the functions: a function stored meanwhile is either
  // forgotten or has its object watched again.
  g_unknown.store(false, std::memory_order_release);
  for (FoundObject& o : g_objects) o.base.store(0, std::memory_order_release);
  return true;
}

}  // namespace cublasspy
