#include "native_stack.h"

#include <dlfcn.h>
#include <execinfo.h>

#include <atomic>
#include <cstring>

namespace cublasspy {
namespace {

// The shim's own module, whose frames (the wrapper, this function) are not the program's.
const void* shim_base() {
  static const void* base = [] {
    Dl_info info{};
    return dladdr(reinterpret_cast<const void*>(&shim_base), &info) != 0 ? info.dli_fbase : nullptr;
  }();
  return base;
}

uint32_t clamp(size_t n, uint32_t max) { return n > max ? max : static_cast<uint32_t>(n); }

// dladdr scans a module's whole symbol table (milliseconds in libtorch_cuda's hundreds of
// thousands of symbols), so what it said about a return address is kept: a cache, lock-free,
// where an address may sit in any of kWays slots from its home slot (a direct-mapped cache
// thrashed whenever two frames of one stack shared a slot: each location then paid two scans).
// An entry's key is 0 (empty), kBusy (being written: a reader misses, another writer skips) or
// the address; a reader copies the entry and accepts it if the key still reads the same
// afterwards. An address dladdr knows nothing of is kept too (base null), so it is not asked
// again. The names point into the modules' string tables (valid while loaded; a module
// unloaded and another loaded at its address could be misnamed: rare, and only a name).
constexpr uint64_t kBusy = 1;
struct CachedFrame {
  std::atomic<uint64_t> key{0};
  const char* module = nullptr;
  const void* base = nullptr;
  const char* symbol = nullptr;
  const void* symbol_start = nullptr;
};
constexpr uint32_t kCachedFrames = 1024;  // a power of two
constexpr uint32_t kWays = 8;
CachedFrame g_frames[kCachedFrames];

uint32_t home_of(uint64_t address) { return static_cast<uint32_t>((address * 0x9E3779B97F4A7C15ull) >> 54); }
CachedFrame& way(uint32_t home, uint32_t w) { return g_frames[(home + w) % kCachedFrames]; }

// The cached answer for `address`: 1 known, 0 unknown to dladdr, -1 not cached.
int cached(uint64_t address, Dl_info& info) {
  const uint32_t home = home_of(address);
  for (uint32_t w = 0; w < kWays; ++w) {
    CachedFrame& c = way(home, w);
    const uint64_t key = c.key.load(std::memory_order_acquire);
    if (key == 0) return -1;  // slots fill from home on: the address is in none further on
    if (key != address) continue;
    Dl_info copy{c.module, const_cast<void*>(c.base), c.symbol, const_cast<void*>(c.symbol_start)};
    std::atomic_thread_fence(std::memory_order_acquire);
    if (c.key.load(std::memory_order_relaxed) != address) return -1;
    info = copy;
    return copy.dli_fbase != nullptr ? 1 : 0;
  }
  return -1;
}

void remember(uint64_t address, const Dl_info& info) {
  const uint32_t home = home_of(address);
  // The first empty way, else the home slot's entry is replaced.
  uint32_t w = 0;
  while (w < kWays && way(home, w).key.load(std::memory_order_relaxed) != 0) ++w;
  CachedFrame& c = way(home, w < kWays ? w : 0);
  uint64_t old = c.key.load(std::memory_order_relaxed);
  if (old == kBusy || !c.key.compare_exchange_strong(old, kBusy, std::memory_order_acquire)) return;
  c.module = info.dli_fname;
  c.base = info.dli_fbase;
  c.symbol = info.dli_sname;
  c.symbol_start = info.dli_saddr;
  c.key.store(address, std::memory_order_release);
}

bool lookup(uint64_t address, Dl_info& info) {
  if (const int hit = cached(address, info); hit >= 0) return hit == 1;
  // A return address points after the call: the caller's symbol is the one holding address - 1.
  Dl_info found{};
  const bool known = dladdr(reinterpret_cast<void*>(address - 1), &found) != 0 && found.dli_fbase != nullptr;
  if (!known) found = Dl_info{};
  remember(address, found);
  info = found;
  return known;
}

}  // namespace

bool take_native_stack(StackEncoder& out) {
  void* addresses[kMaxNativeFrames + 8];
  const int got = backtrace(addresses, static_cast<int>(sizeof addresses / sizeof addresses[0]));
  struct Frame {
    uint64_t address, offset;
    uint16_t module;
    const char* symbol;
    uint32_t symbol_offset;
  };
  Frame frames[kMaxNativeFrames];
  const char* modules[kMaxNativeModules];
  const void* module_bases[kMaxNativeModules];
  uint32_t module_count = 0, count = 0;
  const void* own = shim_base();
  bool past_shim = false;
  for (int i = 0; i < got && count < kMaxNativeFrames; ++i) {
    const auto address = reinterpret_cast<uint64_t>(addresses[i]);
    Dl_info info{};
    const bool known = lookup(address, info);
    if (known && info.dli_fbase == own) {
      if (!past_shim) continue;  // the shim's frames above the program's call
    } else {
      past_shim = true;
    }
    if (!past_shim) continue;
    Frame& f = frames[count++];
    f.address = address;
    f.offset = known ? address - reinterpret_cast<uint64_t>(info.dli_fbase) : 0;
    f.module = kNoModule;
    f.symbol = known ? info.dli_sname : nullptr;
    f.symbol_offset = known && info.dli_saddr ? static_cast<uint32_t>(address - reinterpret_cast<uint64_t>(info.dli_saddr)) : 0;
    if (known && info.dli_fname != nullptr) {
      for (uint32_t m = 0; m < module_count; ++m) {
        if (module_bases[m] == info.dli_fbase) f.module = static_cast<uint16_t>(m);
      }
      if (f.module == kNoModule && module_count < kMaxNativeModules) {
        modules[module_count] = info.dli_fname;
        module_bases[module_count] = info.dli_fbase;
        f.module = static_cast<uint16_t>(module_count++);
      }
    }
  }
  if (count == 0) return false;
  out.truncate(0);
  out.put_value<uint16_t>(0);
  out.put_value<uint16_t>(0);
  out.put_value<uint16_t>(static_cast<uint16_t>(module_count));
  out.put_value<uint16_t>(0);
  for (uint32_t m = 0; m < module_count; ++m) {
    const size_t len = std::strlen(modules[m]);
    const uint32_t n = clamp(len, kStackModuleBytes);
    if (!out.put_value<uint16_t>(static_cast<uint16_t>(n)) || !out.put(modules[m] + (len - n), n)) return false;
  }
  uint16_t written = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const Frame& f = frames[i];
    const uint32_t at = out.used();
    const uint32_t n = f.symbol ? clamp(std::strlen(f.symbol), kStackSymbolBytes) : 0;
    if (!out.put_value(f.address) || !out.put_value(f.offset) || !out.put_value(f.module) ||
        !out.put_value<uint16_t>(static_cast<uint16_t>(n)) || !out.put_value(f.symbol_offset) ||
        !out.put(f.symbol, n)) {
      out.truncate(at);
      break;
    }
    ++written;
  }
  out.set_value<uint16_t>(0, written);
  return written != 0;
}

uint32_t encode_fault_pc(uint8_t (&out)[kFaultPcBytes], uint64_t pc) {
  // The layout of stack_codec.h: one frame, no module, no symbol.
  const uint16_t head[4] = {1, kNativeAtSignal, 0, 0};
  const uint64_t offset = 0;
  const uint16_t module = kNoModule, symbol_len = 0;
  const uint32_t symbol_offset = 0;
  std::memcpy(out, head, 8);
  std::memcpy(out + 8, &pc, 8);
  std::memcpy(out + 16, &offset, 8);
  std::memcpy(out + 24, &module, 2);
  std::memcpy(out + 26, &symbol_len, 2);
  std::memcpy(out + 28, &symbol_offset, 4);
  return kFaultPcBytes;
}

}  // namespace cublasspy
