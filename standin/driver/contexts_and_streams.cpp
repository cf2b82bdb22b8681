// Contexts and streams. Work is synchronous on the stand-in, so a stream is only a token that
// must have been created and not destroyed; a context is one primary context per device, and
// the current context is per thread, as in the driver.
#include <array>
#include <atomic>
#include <mutex>
#include <unordered_set>

#include "driver_state.h"

namespace standin::driver {

namespace {

constexpr uint64_t kStreamMagic = 0x6d61657274536e53ull;  // "SnStream"
constexpr int kMaxDevices = 64;

// Constant-initialized (no constructor at load time, no writes afterwards, so no races).
constexpr std::array<CUctx_st, kMaxDevices> make_contexts() {
  std::array<CUctx_st, kMaxDevices> all{};
  for (int i = 0; i < kMaxDevices; ++i) all[i].device = i;
  return all;
}

std::array<CUctx_st, kMaxDevices> contexts = make_contexts();
std::array<std::atomic<bool>, kMaxDevices> active{};  // retained since the last reset
thread_local CUcontext current = nullptr;
std::atomic<bool> init_done{false};

struct Streams {
  std::mutex mutex;
  std::unordered_set<CUstream> live;
};

Streams& streams() {
  static Streams* const s = new Streams;
  return *s;
}

}  // namespace

CUcontext primary_context(int device) {
  active[static_cast<size_t>(device)].store(true, std::memory_order_release);
  return &contexts[static_cast<size_t>(device)];
}

bool primary_context_active(int device) { return active[static_cast<size_t>(device)].load(std::memory_order_acquire); }
void deactivate_primary_context(int device) { active[static_cast<size_t>(device)].store(false, std::memory_order_release); }

bool is_context(CUcontext ctx) {
  for (int i = 0; i < device_count(); ++i)
    if (ctx == &contexts[static_cast<size_t>(i)]) return true;
  return false;
}

CUcontext current_context() { return current; }
void set_current_context(CUcontext ctx) { current = ctx; }

bool initialized() { return init_done.load(std::memory_order_acquire); }
void mark_initialized() { init_done.store(true, std::memory_order_release); }

CUstream create_stream(unsigned int flags, int device) {
  auto* s = new CUstream_st{kStreamMagic, flags, device};
  Streams& all = streams();
  std::lock_guard lock(all.mutex);
  all.live.insert(s);
  return s;
}

bool destroy_stream(CUstream stream) {
  Streams& all = streams();
  {
    std::lock_guard lock(all.mutex);
    if (all.live.erase(stream) == 0) return false;
  }
  delete stream;
  return true;
}

bool stream_valid(CUstream stream) {
  if (stream == nullptr || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD) return true;
  Streams& all = streams();
  std::lock_guard lock(all.mutex);
  return all.live.count(stream) != 0;
}

}  // namespace standin::driver

extern "C" STANDIN_EXPORT int standin_stream_valid(const void* stream) {
  return standin::driver::stream_valid(static_cast<CUstream>(const_cast<void*>(stream))) ? 1 : 0;
}

extern "C" STANDIN_EXPORT void standin_bind_device_context(int device) {
  using namespace standin::driver;
  if (!initialized() || current_context() != nullptr || device < 0 || device >= device_count()) return;
  set_current_context(primary_context(device));
}
