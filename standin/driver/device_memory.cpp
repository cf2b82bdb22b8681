// The allocation table: "device" memory is host memory, but every allocation is recorded with
// its kind, device and size, so the stand-in can answer pointer queries, reject copies to
// non-device pointers, and fault (sticky illegal address) when a GEMM touches memory no device
// could reach. Allocations are anonymous mappings: page-aligned like real device allocations,
// committed lazily, and an 80 GB device costs nothing until it is written.
#include <sys/mman.h>

#include <atomic>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "driver_state.h"

namespace standin::driver {

namespace {

struct Allocation {
  size_t size;        // as requested
  size_t mapped;      // as mapped (rounded up to a page, at least one page); 0: registered, not ours
  int kind;
  int device;
  uint64_t id;
};

struct Table {
  std::shared_mutex mutex;
  std::map<uintptr_t, Allocation> by_base;
  std::unordered_map<int, size_t> in_use;  // device bytes per device
  uint64_t next_id = 1;
};

Table& table() {
  static Table* const t = new Table;  // process lifetime: frees may come during exit
  return *t;
}

bool lookup(Table& t, const void* p, uintptr_t* base, Allocation* out) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  auto it = t.by_base.upper_bound(addr);
  if (it == t.by_base.begin()) return false;
  --it;
  // An address inside the allocation (a zero-size request still owns its first byte).
  const size_t span = it->second.size ? it->second.size : 1;
  if (addr - it->first >= span) return false;
  *base = it->first;
  *out = it->second;
  return true;
}

}  // namespace

void* allocate(size_t bytes, int kind, int device) {
  Table& t = table();
  const size_t page = 4096;
  const size_t mapped = bytes == 0 ? page : (bytes + page - 1) / page * page;
  if (kind == STANDIN_MEMORY_DEVICE || kind == STANDIN_MEMORY_MANAGED) {
    std::unique_lock lock(t.mutex);
    if (bytes > config().memory_per_device || t.in_use[device] > config().memory_per_device - bytes) {
      return nullptr;
    }
    t.in_use[device] += bytes;
  }
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  std::unique_lock lock(t.mutex);
  if (p == MAP_FAILED) {
    if (kind == STANDIN_MEMORY_DEVICE || kind == STANDIN_MEMORY_MANAGED) t.in_use[device] -= bytes;
    return nullptr;
  }
  t.by_base[reinterpret_cast<uintptr_t>(p)] = Allocation{bytes, mapped, kind, device, t.next_id++};
  return p;
}

bool release(void* base, unsigned kinds) {
  Table& t = table();
  Allocation a{};
  {
    std::unique_lock lock(t.mutex);
    auto it = t.by_base.find(reinterpret_cast<uintptr_t>(base));
    if (it == t.by_base.end() || it->second.mapped == 0 || (kinds & (1u << it->second.kind)) == 0) return false;
    a = it->second;
    t.by_base.erase(it);
    if (a.kind == STANDIN_MEMORY_DEVICE || a.kind == STANDIN_MEMORY_MANAGED) t.in_use[a.device] -= a.size;
  }
  munmap(base, a.mapped);
  return true;
}

bool register_host(void* p, size_t bytes, int device) {
  Table& t = table();
  const uintptr_t base = reinterpret_cast<uintptr_t>(p);
  std::unique_lock lock(t.mutex);
  uintptr_t other = 0;
  Allocation a{};
  // Overlap: an allocation holding p, or one starting inside [p, p + bytes).
  auto next = t.by_base.lower_bound(base);
  if (lookup(t, p, &other, &a) || (next != t.by_base.end() && next->first - base < bytes)) return false;
  t.by_base[base] = Allocation{bytes, 0, STANDIN_MEMORY_HOST, device, t.next_id++};
  return true;
}

bool unregister_host(void* base) {
  Table& t = table();
  std::unique_lock lock(t.mutex);
  auto it = t.by_base.find(reinterpret_cast<uintptr_t>(base));
  if (it == t.by_base.end() || it->second.mapped != 0) return false;
  t.by_base.erase(it);
  return true;
}

void release_device(int device) {
  Table& t = table();
  std::vector<std::pair<void*, size_t>> unmap;
  {
    std::unique_lock lock(t.mutex);
    for (auto it = t.by_base.begin(); it != t.by_base.end();) {
      if (it->second.device != device) {
        ++it;
        continue;
      }
      if (it->second.mapped != 0) unmap.emplace_back(reinterpret_cast<void*>(it->first), it->second.mapped);
      it = t.by_base.erase(it);
    }
    t.in_use[device] = 0;
  }
  for (const auto& [base, bytes] : unmap) munmap(base, bytes);
}

bool find(const void* p, standin_allocation* out) {
  Table& t = table();
  std::shared_lock lock(t.mutex);
  uintptr_t base = 0;
  Allocation a{};
  if (!lookup(t, p, &base, &a)) return false;
  if (out) *out = standin_allocation{reinterpret_cast<void*>(base), a.size, a.kind, a.device, a.id};
  return true;
}

size_t bytes_in_use(int device) {
  Table& t = table();
  std::shared_lock lock(t.mutex);
  auto it = t.in_use.find(device);
  return it == t.in_use.end() ? 0 : it->second;
}

}  // namespace standin::driver

extern "C" {

STANDIN_EXPORT int standin_find_allocation(const void* p, standin_allocation* out) {
  return standin::driver::find(p, out) ? 1 : 0;
}

STANDIN_EXPORT int standin_device_accessible(const void* p, size_t bytes) {
  standin_allocation a{};
  if (!standin::driver::find(p, &a)) return 0;
  const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - static_cast<const char*>(a.base));
  return bytes <= a.size - offset ? 1 : 0;
}

}  // extern "C"
